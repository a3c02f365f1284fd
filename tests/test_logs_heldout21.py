"""`vramdoctor logs` on the kinds of fault the held-out round 21 found (../heldout21/REPORT.md), each with logs of
our own in other engines, versions and wordings (none of the held-out logs' own lines). The engines' lines follow
their sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from vramdoctor.logs.knowledge import phase_words
from logcase import diag, flags, run_in, run_of

OOM = ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME")


# --- 1. a failure raised in (or logged by) a request handler happens while serving, start-up lines or not ----------

_TORCH_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total capacity of "
              "44.35 GiB of which 1.21 GiB is free. Process 2231 has 43.13 GiB memory in use. Of the allocated memory "
              "40.52 GiB is allocated by PyTorch, and 1.87 GiB is reserved by PyTorch but unallocated.")

IN_A_HANDLER = {
    # vLLM V0 with the engine in the API server's process (--disable-frontend-multiprocessing): uvicorn's traceback
    # through the completions route (entrypoints/openai/api_server.py create_completion) into serving_completion.py
    "vllm-v0-completion-route": ("""
        ERROR:    Exception in ASGI application
        Traceback (most recent call last):
          File "/usr/local/lib/python3.10/dist-packages/uvicorn/protocols/http/httptools_impl.py", line 401, in run_asgi
            result = await app(  # type: ignore[func-returns-value]
          File "/usr/local/lib/python3.10/dist-packages/vllm/entrypoints/openai/api_server.py", line 315, in create_completion
            generator = await completion(raw_request).create_completion(
          File "/usr/local/lib/python3.10/dist-packages/vllm/entrypoints/openai/serving_completion.py", line 189, in create_completion
            async for i, res in result_generator:
          File "/usr/local/lib/python3.10/dist-packages/vllm/utils.py", line 452, in merge_async_iterators
            item = await d
    """ + _TORCH_OOM, "vllm"),
    # vLLM V1: the engine core's out-of-memory line (its frames cut off), then the API server's chat handler logging
    # the failure of its stream (serving_chat.py: "Error in chat completion stream generator.")
    "vllm-v1-chat-handler-after": ("""
        (EngineCore_DP0 pid=311) ERROR 10-21 09:14:03 [core.py:710] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.12 GiB. GPU 0 has a total capacity of 79.19 GiB of which 2.05 GiB is free. Including non-PyTorch memory, this process has 77.12 GiB memory in use. Of the allocated memory 74.40 GiB is allocated by PyTorch, and 1.31 GiB is reserved by PyTorch but unallocated.
        (APIServer pid=1) ERROR 10-21 09:14:03 [serving_chat.py:1150] Error in chat completion stream generator.
        (APIServer pid=1) ERROR 10-21 09:14:03 [serving_chat.py:1150] Traceback (most recent call last):
    """, "vllm"),
    # SGLang's HTTP server process: the native /generate route (entrypoints/http_server.py generate_request) into the
    # tokenizer manager's request path, where a multimodal processor ran out on the GPU
    "sglang-tokenizer-manager": ("""
        [2025-05-12 03:22:41] ERROR:    Exception in ASGI application
        Traceback (most recent call last):
          File "/usr/local/lib/python3.10/dist-packages/sglang/srt/entrypoints/http_server.py", line 268, in generate_request
            ret = await _global_state.tokenizer_manager.generate_request(obj, request).__anext__()
          File "/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/tokenizer_manager.py", line 401, in generate_request
            tokenized_obj = await self._tokenize_one_request(obj)
          File "/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/tokenizer_manager.py", line 447, in _tokenize_one_request
            image_inputs = await self.mm_processor.process_mm_data_async(
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.50 GiB. GPU 0 has a total capacity of 79.10 GiB of which 3.12 GiB is free.
    """, "sglang"),
}


@pytest.mark.parametrize("name", sorted(IN_A_HANDLER))
def test_a_failure_in_a_request_handler_is_serving(name):
    text, engine = IN_A_HANDLER[name]
    run = run_in(text, engine)
    assert run.kind == "RUNTIME", run


@pytest.mark.parametrize("line,engine", [
    # llama-server's handlers in a gdb backtrace (tools/server/server.cpp handle_completions_impl)
    ("#9  0x00005581c2a4f1d3 in server_routes::handle_completions_impl(server_task_type, json const&) ()", "llamacpp"),
    # TGI's router spans around a failed request (router/src/server.rs chat_completions, router/src/infer)
    ("2024-10-01T10:00:00.000000Z ERROR chat_completions{total_time=1.2s}:generate_stream{parameters=..}:infer:"
     "send_error: text_generation_router::infer: router/src/infer/mod.rs:866: Server error", "tgi"),
    # SGLang's OpenAI adapter (openai_api/adapter.py v1_chat_completions)
    ('  File "/sgl/python/sglang/srt/openai_api/adapter.py", line 1301, in v1_chat_completions', "sglang"),
])
def test_request_handlers_name_the_serving_phase(line, engine):
    assert phase_words(line, engine) == "RUNTIME"


# --- 3. a user's sentence that supposes or expects an out-of-memory is no failure; the phase never goes back before a
# milestone the log shows passed ----------------------------------------------------------------------------------

SUPPOSED = {
    # vLLM V1 ready, then a user's expectation in words: nothing failed in the lines shown
    "vllm-should-not": ("""
        (EngineCore_DP0 pid=88) INFO 11-03 02:10:41 [gpu_model_runner.py:2653] Model loading took 15.2 GiB and 20.1 seconds
        (EngineCore_DP0 pid=88) INFO 11-03 02:10:58 [gpu_worker.py:298] Available KV cache memory: 40.31 GiB
        (APIServer pid=1) INFO 11-03 02:11:20 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000
        With --max-num-seqs 64 the server should not OOM, since the pool is sized when it starts.
    """, "vllm"),
    # SGLang after its CUDA graphs: what the user would expect, and a negated out-of-memory
    "sglang-expected-none": ("""
        [2025-07-01 08:00:10 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=61.02 GB, mem usage=15.27 GB.
        [2025-07-01 08:00:11 TP0] KV Cache is allocated. #tokens: 402155, K size: 21.48 GB, V size: 21.48 GB
        [2025-07-01 08:00:30 TP0] Capture cuda graph end. Time elapsed: 18.92 s. mem usage=2.10 GB. avail mem=15.90 GB.
        We expected to see no out of memory errors once the graphs were captured, and indeed there were none.
    """, "sglang"),
    # llama-server ready: a sentence about what would happen with a larger context, and one that says it did not
    "llamacpp-would-and-did-not": ("""
        load_tensors:        CUDA0 model buffer size =  4403.49 MiB
        llama_kv_cache:      CUDA0 KV buffer size =  1024.00 MiB
        main: server is listening on http://127.0.0.1:8080 - starting the main loop
        At -c 65536 it would not run out of memory either; it never OOMs at 32k.
    """, "llamacpp"),
}


@pytest.mark.parametrize("name", sorted(SUPPOSED))
def test_a_supposed_or_expected_out_of_memory_is_no_failure(name):
    text, engine = SUPPOSED[name]
    run = run_in(text, engine)
    assert run.kind == "NONE", run


_TGI_WARMED = """
    2024-11-20T09:00:00.000000Z  INFO text_generation_launcher: Args { model_id: "meta-llama/Llama-3.1-8B-Instruct", max_total_tokens: 8192 }
    2024-11-20T09:00:40.000000Z  INFO text_generation_launcher: Shard ready in 38.2s rank=0
    2024-11-20T09:00:41.000000Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:125: Warming up model
    2024-11-20T09:01:02.000000Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:137: Setting max batch total tokens to 52048
"""

AFTER_A_MILESTONE = {
    # TGI's router prints "Setting max batch total tokens" once the shards' warm-up returned (backends/v3/src/lib.rs
    # and router/src/main.rs: "Warming up model", warmup(...), then that line, then "Connected"): nothing of the
    # start-up is left, so a later out-of-memory is serving
    "tgi-oom-after-warmup": (_TGI_WARMED + """
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.10 GiB is free.
        2024-11-20T10:14:09.000000Z ERROR text_generation_launcher: Shard 0 crashed
    """, "tgi"),
    # the same start-up, then a user's report in words whose other sentence names the warm-up
    "tgi-prose-after-warmup": (_TGI_WARMED + """
        The warmup succeeded and the budgets were set. But after an hour of traffic the shard dies with CUDA out of memory.
    """, "tgi"),
    # a user's supposition naming the warm-up, then a real failure line without frames
    "tgi-expectation-then-oom": (_TGI_WARMED + """
        I would expect no OOM at all once warmup has passed.
        2024-11-20T10:14:09.000000Z ERROR shard-manager: text_generation_launcher: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. rank=0
    """, "tgi"),
}


@pytest.mark.parametrize("name", sorted(AFTER_A_MILESTONE))
def test_the_phase_never_goes_back_before_a_milestone_passed(name):
    text, engine = AFTER_A_MILESTONE[name]
    run = run_in(text, engine)
    assert run.kind == "RUNTIME", run
    assert all(e["line"] != 6 or "expect" not in e["text"] for e in run.evidence), run.evidence


# --- 2. memory growth stated in words, or as two readings with their difference, is LEAK; a pod or the OS killing a
# process for memory is the host's ledger, never the GPU's -------------------------------------------------------

GROWTH = {
    # vLLM in Kubernetes: the growth in words, the pod's limit, the kubelet's kill (no readings)
    "vllm-pod-words": ("""
        (APIServer pid=1) INFO 09-02 11:00:02 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000
        (APIServer pid=1) INFO 09-02 11:00:05 [loggers.py:123] Engine 000: Avg prompt throughput: 812.4 tokens/s, Avg generation throughput: 95.1 tokens/s, Running: 6 reqs, Waiting: 0 reqs, GPU KV cache usage: 12.3%, Prefix cache hit rate: 40.1%
        Under steady traffic the API server's resident memory keeps climbing, about 3 GiB an hour.
        After a day the container is OOMKilled by the kubelet and restarted.
    """, "vllm", "memory-growth-stated"),
    # Ollama: a user's words about the runner, then the kernel's own line
    "ollama-kernel": ("""
        time=2025-03-01T10:00:00.000Z level=INFO source=server.go:619 msg="llama runner started in 3.52 seconds"
        The ollama runner leaks host memory: RSS grows with every request.
        [90211.118231] Out of memory: Killed process 4412 (ollama_llama_se) total-vm:61234112kB, anon-rss:30412333kB
    """, "ollama", "memory-growth-stated"),
    # llama-server with readings a user took and the difference between them written out
    "llamacpp-delta": ("""
        main: server is listening on http://127.0.0.1:8080 - starting the main loop
        09:00 llama-server RSS = 6.20 GiB
        17:00 llama-server RSS = 9.45 GiB
        increase: +3.25 GiB over 8 hours at the same request rate
    """, "llamacpp", "memory-growth-reported"),
}


@pytest.mark.parametrize("name", sorted(GROWTH))
def test_memory_growth_stated_or_measured_is_a_leak(name):
    text, engine, code = GROWTH[name]
    run = run_of(diag(text))
    assert run.engine == engine, run.engine
    assert (run.kind, run.code) == ("LEAK", code), run
    assert "--gpu-memory-utilization" not in flags(run) and "-c " not in flags(run), run.advice


NOT_GROWTH = {
    # the words denied, asked about, or supposed: no growth reported, and no failure in the lines shown
    "denied": "We checked for hours: there is no memory leak, and RSS does not keep growing.",
    "asked": "Does the scheduler's memory keep growing with each request? Is that a memory leak?",
    "supposed": "If RSS keeps growing over time, restart the server; to see whether memory increases, use ps.",
}


@pytest.mark.parametrize("name", sorted(NOT_GROWTH))
def test_growth_words_denied_asked_or_supposed_are_no_leak(name):
    text = ("INFO 09-02 11:00:02 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000\n"
            + NOT_GROWTH[name])
    run = run_of(diag(text))
    assert run.kind != "LEAK", run


def test_two_readings_without_a_stated_difference_are_no_leak():
    # two readings a fifth apart are not yet a series, and no difference is stated beside them
    run = run_of(diag("""
        main: server is listening on http://127.0.0.1:8080 - starting the main loop
        RSS: 6.20 GiB
        RSS: 6.90 GiB
    """))
    assert run.kind != "LEAK", run


@pytest.mark.parametrize("line", [
    "The pod was OOMKilled twice last night.",
    "The container exceeded its memory limit and was restarted.",
    "It was killed by the OOM killer after a few hours.",
])
def test_a_host_kill_in_words_is_the_host_ledger(line):
    run = run_of(diag("""
        (APIServer pid=1) INFO 09-02 11:00:02 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000
    """ + "    " + line + "\n"))
    assert run.code in ("host-oom-kill",), run
    assert run.kind in ("RUNTIME", "UNDETERMINED"), run


# --- 4. llama.cpp's -c from the context the log shows (n_ctx_seq, the cells a cache was created with) and from the
# KV allocation that failed for them; never "below your current value, which the log does not show" -----------------

CONTEXT_SHOWN = {
    # 2024's llama_kv_cache_init (src/llama.cpp: "kv_size = %u, offload = %d, type_k = '%s'"), no "n_ctx = N" line in
    # the excerpt, the free memory from llama_model_load_from_file ("using device CUDA0 (...) - %zu MiB free")
    "cuda-kv-size": ("""
        llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3060) - 11230 MiB free
        load_tensors:        CUDA0 model buffer size =  4403.49 MiB
        llama_kv_cache_init: kv_size = 65536, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 32, can_shift = 1
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of memory
        llama_kv_cache_init: failed to allocate buffer for kv cache
        llama_init_from_model: llama_kv_cache_init() failed for self-attention cache
    """, 65536, True),
    # 2026's Vulkan build: only n_ctx_seq, one sequence (llama-context.cpp "n_ctx_seq (%u) < n_ctx_train (%u)")
    "vulkan-n-ctx-seq": ("""
        llama_context: n_ctx_seq (98304) < n_ctx_train (131072) -- the full capacity of the model will not be utilized
        ggml_vulkan: Device memory allocation of size 6442450944 failed.
        alloc_tensor_range: failed to allocate Vulkan0 buffer of size 6442450944
        llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache
    """, 98304, False),
}


@pytest.mark.parametrize("name", sorted(CONTEXT_SHOWN))
def test_llamacpp_context_from_the_lines_that_show_it(name):
    text, ctx, sized = CONTEXT_SHOWN[name]
    r = run_of(diag(text, "llamacpp"))
    assert r.kind == "KV_CAPACITY"
    step = next(a for a in r.advice if a["setting"] == "max_model_len")
    assert step["current"] == ctx and step["direction"] == "down"
    assert "which the log does not show" not in step["why"] and "-c N" not in step["flags"]
    assert r.derived["kv_bytes_per_token"] > 0
    if sized:  # the free memory less the weights, a tenth kept: the -c whose cache fits
        assert isinstance(step["value"], int) and 0 < step["value"] < ctx
        assert step["value"] * r.derived["kv_bytes_per_token"] < (11230 - 4403.49) * 2**20
    else:  # no free memory shown: what each context needs
        assert "tokens need" in step["why"]


def test_n_ctx_seq_of_several_slots_is_not_taken_for_the_context():
    # four slots and no word on a unified cache: n_ctx_seq may be n_ctx / 4, so -c is not read from it
    r = run_of(diag("""
        llama_context: n_seq_max     = 4
        llama_context: n_ctx_seq (16384) < n_ctx_train (131072) -- the full capacity of the model will not be utilized
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of memory
        llama_kv_cache_init: failed to allocate buffer for kv cache
    """, "llamacpp"))
    assert "n_ctx" not in r.derived
    assert all(a["current"] != 16384 for a in r.advice if a["setting"] == "max_model_len")


# --- 5. the GPU layers from a pasted command or keyword arguments; below 1 only 0; one Apple GPU has nothing to split
# over; the Metal limits the log shows are named ---------------------------------------------------------------------

GPU_LAYERS = {
    # llama-cpp-python's keyword arguments (llama_cpp/llama.py Llama) on a 2023 Metal build whose single buffer is
    # capped (ggml-metal.m ggml_metal_add_buffer: "buffer '%s' size %zu is larger than buffer maximum of %zu")
    "python-kwargs-metal-max": ("""
        >>> llm = Llama(model_path="./models/llama-2-70b.Q4_0.gguf", n_gpu_layers=1, n_ctx=2048)
        ggml_metal_init: recommendedMaxWorkingSetSize = 49152.00 MB
        ggml_metal_add_buffer: buffer 'data' size 38872735744 is larger than buffer maximum of 28991029248
        llama_new_context_with_model: failed to add buffer
    """, "llama-cpp-python", 1, 0, "maxBufferLength"),
    # llama.cpp's own main on Metal, -ngl 1, the buffer beyond the working set (2023: MiB, one space before '=')
    "llamacpp-ngl-metal-working-set": ("""
        $ ./main -m models/mixtral-8x7b.Q8_0.gguf -ngl 1 -c 4096 -p "hi"
        ggml_metal_init: recommendedMaxWorkingSetSize = 21845.34 MB
        ggml_metal_add_buffer: error: failed to allocate 'data            ' buffer, size = 47000.00 MiB
        llama_load_model_from_file: failed to load model
    """, "llamacpp", 1, 0, "iogpu.wired_limit_mb"),
    # the server's settings on CUDA: 35 layers asked for, no sizes printed: below 35, and a split over GPUs is open
    "python-server-cuda": ("""
        python3 -m llama_cpp.server --model ./q.gguf --n_gpu_layers 35 --n_ctx 8192
        llm_load_tensors: offloading 35 repeating layers to GPU
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9000.00 MiB on device 0: cudaMalloc failed: out of memory
        llama_model_load: error loading model: unable to allocate backend buffer
    """, "llama-cpp-python", 35, None, ""),
}


@pytest.mark.parametrize("name", sorted(GPU_LAYERS))
def test_gpu_layers_read_from_the_command_and_metal_is_one_gpu(name):
    text, engine, cur, to, named = GPU_LAYERS[name]
    rep = diag(text)
    r = run_of(rep)
    assert rep.engine == engine and r.kind == "WEIGHTS"
    step = next(a for a in r.advice if a["setting"] == "gpu_layers")
    assert step["current"] == cur and step["direction"] == "down"
    assert "which the log does not show" not in step["why"]
    if to is not None:
        assert step["value"] == to
    metal = "metal" in text.lower()
    assert any(a["setting"] == "tensor_parallel_size" for a in r.advice) is not metal
    if named:
        assert named in " ".join(a["why"] for a in r.advice)


# --- 6. TGI's prefill budget from the launcher's defaults and its Args; a serving failure gets serving knobs ---------

TGI_SERVING = {
    # TGI 2.x: the launcher's defaults (launcher/src/main.rs "Default `max_batch_prefill_tokens` to {}"), then a request
    # that failed in the router's generate span
    "launcher-defaults": ("""
        2024-09-02T10:01:11.201Z  INFO text_generation_launcher: Default `max_input_tokens` to 4095
        2024-09-02T10:01:11.201Z  INFO text_generation_launcher: Default `max_total_tokens` to 4096
        2024-09-02T10:01:11.201Z  INFO text_generation_launcher: Default `max_batch_prefill_tokens` to 4145
        2024-09-02T10:02:40.118Z  INFO text_generation_router::server: router/src/server.rs:1893: Setting max batch total tokens to 120000
        2024-09-02T10:02:40.530Z  INFO text_generation_router::server: router/src/server.rs:2311: Connected
        2024-09-02T11:15:07.918Z ERROR generate_stream{parameters=GenerateParameters { max_new_tokens: Some(512) }}:async_stream:generate_stream:infer:send_error: text_generation_router::infer: router/src/infer/mod.rs:865: Request failed during generation: Server error: CUDA out of memory. Tried to allocate 1.20 GiB. GPU 0 has a total capacity of 79.15 GiB of which 0.98 GiB is free.
    """, 4145, None, 4096),
    # TGI 1.x: the Args dump pretty-printed over lines, a decode that failed once serving
    "args-dump": ("""
        2023-11-20T08:00:01.000Z  INFO text_generation_launcher: Args { model_id: "meta-llama/Llama-2-13b-chat-hf", max_input_length: 1024, max_total_tokens: 2048, max_batch_prefill_tokens: 8192, cuda_memory_fraction: 1.0 }
        2023-11-20T08:01:30.000Z  INFO text_generation_router: router/src/main.rs:372: Setting max batch total tokens to 40000
        2023-11-20T08:01:30.100Z  INFO text_generation_router: router/src/main.rs:373: Connected
        2023-11-20T09:12:44.000Z ERROR text_generation_launcher: Method Decode encountered an error.
        torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of 39.39 GiB of which 300.00 MiB is free.
    """, 8192, 4096, 2048),
}


@pytest.mark.parametrize("name", sorted(TGI_SERVING))
def test_tgi_serving_reads_its_prefill_budget_and_gets_serving_knobs(name):
    text, prefill, half, total = TGI_SERVING[name]
    r = run_of(diag(text))
    assert r.engine == "tgi" and r.kind == "RUNTIME"
    assert r.numbers["max_batch_prefill_tokens"] == prefill
    assert not any(a["setting"] == "cuda_graphs" for a in r.advice)  # (a warm-up knob)
    steps = [a for a in r.advice if a["setting"] == "prefill_tokens"]
    if half is None:  # half the budget would fall below the input limit: the shorter-requests step moves all three
        assert not steps
    else:
        assert steps[0]["value"] == half and steps[0]["current"] == prefill
    assert next(a for a in r.advice if a["setting"] == "max_model_len")["current"] == total
    assert "which the log does not show" not in " ".join(a["why"] for a in r.advice if a["setting"] == "prefill_tokens")


# --- 7. a raise of the memory fraction only where the cap was hit, not where the device itself was full --------------

_ALLOWED = ("torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)\n"
            "Currently allocated     : {alloc}\nRequested               : 3.50 GiB\n"
            "Device limit            : 79.15 GiB\nFree (according to CUDA): {free}\n"
            "PyTorch limit (set by user-supplied memory fraction)\n                        : {cap}")

DEVICE_OR_CAP = {
    # TGI's warm-up, the caching allocator's message over several lines: the device full (19 MiB free, cap = device)
    "tgi-warmup-device-full": ("2024-05-01T10:00:00Z ERROR text_generation_launcher: Method Warmup encountered an error.\n"
                               + _ALLOWED.format(alloc="75.10 GiB", free="19.31 MiB", cap="79.15 GiB"), "tgi", False),
    # the same with --cuda-memory-fraction 0.5: the cap was hit with 38 GiB free on the device
    "tgi-warmup-cap-hit": ("2024-05-01T10:00:00Z ERROR text_generation_launcher: Method Warmup encountered an error.\n"
                           + _ALLOWED.format(alloc="36.40 GiB", free="38.02 GiB", cap="39.57 GiB"), "tgi", True),
    # PyTorch's older one-line form with a per-process fraction set ("X allowed"), the GPU itself out of room (vLLM V0)
    "vllm-old-torch-allowed": ("INFO 03-02 10:00:00 llm_engine.py:73] Initializing an LLM engine with config: model='m'\n"
                               "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 96.00 MiB (GPU 0; "
                               "23.65 GiB total capacity; 21.10 GiB already allocated; 5.06 MiB free; 21.50 GiB allowed; "
                               "21.90 GiB reserved in total by PyTorch)", "vllm", False),
}


@pytest.mark.parametrize("name", sorted(DEVICE_OR_CAP))
def test_a_fraction_is_raised_only_where_the_cap_not_the_device_was_full(name):
    text, engine, raise_ = DEVICE_OR_CAP[name]
    r = run_of(diag(text, engine))
    assert r.kind in OOM + ("UNDETERMINED",)
    up = [a for a in r.advice if a["setting"] == "memory_fraction" and a["direction"] == "up"]
    assert bool(up) is raise_
    if not raise_ and r.kind == "WARMUP":  # headroom instead: a lower fraction or fewer prefill tokens
        assert any(a["direction"] == "down" and a["setting"] in ("memory_fraction", "max_num_batched_tokens",
                                                                  "prefill_tokens") for a in r.advice)


# --- 8. the engine whose frames a traceback is: SGLang's frames calling vLLM's modules are SGLang's; Ollama's Go
# runner panicking on a batch it could not decode is Ollama, with advice in its own settings ------------------------

ENGINE_OF = {
    # SGLang 0.3 loading through vLLM's model loader (sglang/srt/model_executor/model_runner.py imported vllm's
    # get_model): two vLLM frames under one SGLang frame
    "sglang-through-vllm-loader": ("""
        Traceback (most recent call last):
          File "/opt/conda/lib/python3.10/site-packages/sglang/srt/model_executor/model_runner.py", line 212, in load_model
            self.model = get_model(
          File "/opt/conda/lib/python3.10/site-packages/vllm/model_executor/model_loader/__init__.py", line 19, in get_model
            return loader.load_model(model_config=model_config,
          File "/opt/conda/lib/python3.10/site-packages/vllm/model_executor/model_loader/loader.py", line 344, in load_model
            model = _initialize_model(model_config, self.load_config,
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 0 has a total capacity of 23.64 GiB of which 301.44 MiB is free.
    """, "sglang", ("--mem-fraction-static", "--tp"), ("--gpu-memory-utilization", "--tensor-parallel-size")),
    # Ollama's Go runner on Metal (runner/llamarunner/runner.go: panic on processBatch's "failed to decode batch")
    "ollama-runner-metal": ("""
        ggml_metal_synchronize: error: command buffer 0 failed with status 5
        error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)
        decode: failed to decode, ret = -3
        panic: failed to decode batch: llama_decode failed with code -3

        goroutine 21 [running]:
    """, "ollama", ("num_ctx", "OLLAMA_NUM_PARALLEL"), ("-c ", "-np ")),
    # the same runner on CUDA, the panic after ggml-cuda's own out-of-memory
    "ollama-runner-cuda": ("""
        CUDA error: out of memory
          current device: 0, in function alloc at /go/src/github.com/ollama/ollama/ml/backend/ggml/ggml/src/ggml-cuda/ggml-cuda.cu:410
        llama_decode failed with code -1
        panic: failed to decode batch: llama_decode failed with code -1
    """, "ollama", ("num_ctx",), ("-c ", "-np ")),
}


@pytest.mark.parametrize("name", sorted(ENGINE_OF))
def test_the_engine_is_the_one_whose_code_ran(name):
    text, engine, own, others = ENGINE_OF[name]
    rep = diag(text)
    r = run_of(rep)
    assert rep.engine == engine and r.engine == engine
    assert r.kind in OOM + ("UNDETERMINED",)
    said = flags(r)
    assert any(f in said for f in own)
    assert not any(f in said for f in others)


# --- 9. a setting the user's own words show in use is never proposed again (an 8-bit KV cache named in prose) --------

KV_IN_PROSE = {
    # vLLM V1's KV-capacity check (vllm/v1/core/kv_cache_utils.py), the dtype only in the user's sentence
    "vllm-using-an-fp8-cache": ("""
        I am using an fp8 KV cache on one L40S and still cannot reach 131072 tokens:
        (EngineCore_DP0 pid=88) ERROR 11-02 14:20:11 [core.py:708] ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.50 GiB). Based on the available memory, the estimated maximum model length is 77824. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
    """, "vllm"),
    # SGLang's pool too small for the context (model_runner.py), the dtype set "to" a value in prose
    "sglang-set-to": ("""
        Setting kv_cache_dtype to fp8_e5m2 did not give me the 128k context I expected.
        [2025-04-01 10:00:00 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=30.12 GB, mem usage=44.20 GB.
        [2025-04-01 10:00:02 TP0] Scheduler hit an exception: Traceback (most recent call last):
        RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.
    """, "sglang"),
    # llama.cpp's cache that failed to allocate, its type only in prose ("KV cache in q8_0")
    "llamacpp-cache-in-q8": ("""
        Same with the KV cache in q8_0, it fails at start:
        llama_kv_cache_init: kv_size = 131072, offload = 1, n_layer = 40, can_shift = 1
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 10240.00 MiB on device 0: cudaMalloc failed: out of memory
        llama_kv_cache_init: failed to allocate buffer for kv cache
    """, "llamacpp"),
}


@pytest.mark.parametrize("name", sorted(KV_IN_PROSE))
def test_a_kv_cache_dtype_in_the_users_words_is_not_proposed_again(name):
    text, engine = KV_IN_PROSE[name]
    r = run_of(diag(text, engine))
    assert r.kind in OOM
    assert r.numbers.get("kv_cache_dtype")
    assert not any(a["setting"] == "kv_cache_dtype" for a in r.advice)


def test_a_kv_cache_dtype_without_or_asked_about_is_not_in_use():
    r = run_of(diag("""
        It runs without kv-cache-dtype fp8 at 32k; is an fp8 KV cache worth trying?
        ValueError: To serve at least one request with the models's max seq len (65536), (8.00 GiB KV cache is needed, which is larger than the available KV cache memory (5.00 GiB). Based on the available memory, the estimated maximum model length is 40960. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
    """, "vllm"))
    assert not r.numbers.get("kv_cache_dtype")
    assert any(a["setting"] == "kv_cache_dtype" for a in r.advice)


# --- 10. values a user lists as tried and failed are never proposed again; every one failing with memory free points
# away from memory ------------------------------------------------------------------------------------------------

TRIED_LISTED = {
    # llama-server: a list under a line saying all of it fails (llama.cpp's KV allocation, b4xxx wording)
    "llamacpp-list": ("""
        All of these fail with the same out of memory:
        - `-c 32768`
        - `-c 16384` / `8192`, with `-ngl 99`
        llama_kv_cache_init: kv_size = 8192, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 80, can_shift = 1
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2560.00 MiB on device 0: cudaMalloc failed: out of memory
        llama_kv_cache_init: failed to allocate buffer for kv cache
    """, "llamacpp", False, (32768, 16384, 8192)),
    # llama-cpp-python's server, numbered items, and the same on the CPU with RAM free: not memory
    "python-list-memory-free": ("""
        Every attempt below fails:
        1. `python -m llama_cpp.server --model q.gguf --n_ctx 4096`
        2. the same with `--n_ctx 2048` / `1024`
        Same error on the CPU-only build, even with 50 GB RAM free.
        llama_kv_cache_init: failed to allocate buffer for kv cache
        ValueError: Failed to create llama_context
    """, "llama-cpp-python", True, (4096, 2048, 1024)),
    # KoboldCpp (its own --contextsize), dashes under "none of these help", with VRAM to spare
    "koboldcpp-list-memory-free": ("""
        None of these help, it crashes at load:
        * --contextsize 8192
        * --contextsize 4096 --blasbatchsize 128
        Identical crash on a second machine with 22 GB of VRAM free.
        llama_kv_cache_init: failed to allocate buffer for kv cache
    """, "koboldcpp", True, (8192, 4096)),
}


@pytest.mark.parametrize("name", sorted(TRIED_LISTED))
def test_listed_failed_values_are_not_proposed_and_memory_free_points_away(name):
    text, engine, away, tried = TRIED_LISTED[name]
    r = run_of(diag(text, engine))
    assert r.kind in OOM + ("UNDETERMINED",)
    for a in r.advice:
        assert a["value"] not in tried
    if away:
        assert len(r.advice) == 1 and "points away from memory" in r.advice[0]["why"]
        assert all(str(v) in r.advice[0]["why"] for v in tried)
    else:
        ctx = next(a for a in r.advice if a["setting"] == "max_model_len")
        assert ctx["value"] is None or ctx["value"] < min(tried)


def test_a_list_of_attempts_that_worked_is_no_tried_list():
    r = run_of(diag("""
        All of these fail except the last one:
        - `-c 4096` works
        Notes: with the settings below it loads:
        - `-c 2048`
        llama_kv_cache_init: kv_size = 8192, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 80, can_shift = 1
        llama_kv_cache_init: failed to allocate buffer for kv cache
    """, "llamacpp"))
    assert not any("points away" in a["why"] or "was tried" in a["why"] for a in r.advice)
