"""`vramdoctor logs` on the kinds of fault left open by round 22 and found by the held-out rounds 23 and 24
(../heldout23/REPORT.md, ../heldout24/REPORT.md), each with logs of our own in other engines, versions and
wordings (none of the held-out logs' own lines). The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, run_of

# --- a condition that says when the growth happens is a reproduction, not a supposition ---------------------------

READY = {
    "llama-server": "main: server is listening on http://0.0.0.0:8080 - starting the main loop",
    "vllm": "INFO:     Application startup complete.",
    "ollama": 'time=2025-03-02T10:11:12.000Z level=INFO source=server.go:619 msg="llama runner started in 4.02 seconds"',
}

GROWTH = {
    # a hedged main clause after a closed condition
    ("vllm", "If the client aborts mid-stream, RSS may keep growing until the pod is killed."): "LEAK",
    # a negation inside the condition, not the growth
    ("llama-server", "If the client does not close the stream, RSS keeps growing with every request."): "LEAK",
    # "never comes back down" without an auxiliary before it
    ("ollama", "Whenever a request is aborted, the process memory goes up and never comes back down."): "LEAK",
    # an answer's "No," before the clause that states it
    ("vllm", "No, memory keeps growing after every request, even at one request a minute."): "LEAK",
    # the denial inside the words themselves
    ("llama-server", "RSS doesn't keep growing, it stays flat at 6 GB."): "NONE",
    # the growth inside the condition: advice, not a report
    ("vllm", "If memory keeps growing, restart the server every night."): "NONE",
    ("ollama", "I want to check whether RSS keeps growing over a day."): "NONE",
    # a hypothetical main clause
    ("llama-server", "Memory would keep growing if we never restarted, I guess."): "NONE",
    ("vllm", "I suspect memory might be leaking somewhere in the tokenizer."): "NONE",
}


@pytest.mark.parametrize("engine,sentence", sorted(GROWTH))
def test_growth_under_a_stated_condition_is_reported(engine, sentence):
    run = run_of(diag(READY[engine] + "\n" + sentence))
    assert run.kind == GROWTH[(engine, sentence)], (run.kind, run.code)


@pytest.mark.parametrize("sentence,kind", [
    ("If I send two requests at once, the server crashes and restarts.", "UNDETERMINED"),
    ("When the second client connects, the whole thing dies.", "UNDETERMINED"),
    ("If it fails to load, lower the context and try again.", "NONE"),
    ("It does not crash, it just gets slow.", "NONE"),
])
def test_a_failure_under_a_stated_condition_is_reported(sentence, kind):
    run = run_of(diag(READY["vllm"] + "\n" + sentence))
    assert run.kind == kind, (run.kind, run.code)


# --- a failure named only by a quoted fragment of the engine's own words (without its figures) ----------------------

QUOTED = {
    # vLLM V0 (core/scheduler.py's check in worker.py raise_if_cache_size_invalid), quoted without "max seq len (N)"
    'vLLM 0.6.3 stops with "...is larger than the maximum number of tokens that can be stored in KV cache" when I '
    'set max-model-len 32768.': ("vllm", "KV_CAPACITY"),
    # the block manager's refusal (core/block_manager.py), quoted without "Input prompt (N tokens)"
    "Every long request gets `is too long and exceeds the capacity of block_manager` back on 0.5.4.":
        ("vllm", "KV_CAPACITY"),
    # TGI's launcher check (router/src/main.rs), quoted without "=N"
    "The router refuses to start: 'Not enough memory to handle max_total_tokens' on one A10G.": ("tgi", "KV_CAPACITY"),
}


@pytest.mark.parametrize("text", sorted(QUOTED))
def test_a_failure_named_by_a_quoted_fragment_is_read(text):
    engine, kind = QUOTED[text]
    rep = diag(text)
    run = run_of(rep)
    assert run.kind == kind, (run.kind, run.code)


# --- a user's sentence about a step, last in the paste, is no step under way ----------------------------------------

V1_SIZED = """
INFO 03-02 10:11:12 [gpu_model_runner.py:1500] Model loading took 14.99 GiB and 9.1 seconds
INFO 03-02 10:11:30 [gpu_worker.py:227] Available KV cache memory: 4.20 GiB
INFO 03-02 10:11:30 [kv_cache_utils.py:716] GPU KV cache size: 34,400 tokens
"""


@pytest.mark.parametrize("tail,kind,code", [
    # the user's words, cut at the excerpt's end: no step line of the engine's
    # (it fails, not hangs: a hang with no error is its own reading, test_logs_round127)
    ("We tried loading it with --enforce-eager and it still fails at the same pla", "UNDETERMINED",
     "failure-cause-not-shown"),
    ('SGLang dies with the "Capture cuda graph failed" error every time', "UNDETERMINED", "failure-cause-not-shown"),
    ("I am capturing the logs with --log-level debug, attached below", "NONE", "no-memory-problem"),
    # the engine's own step lines (a prefix of its own, or a bar) still are
    ("Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  42%|####      | 28/67 [00:03<00:04,  9.10it/s]",
     "UNDETERMINED", "log-ends-during-step"),
    ("INFO 03-02 10:11:31 [gpu_model_runner.py:2000] Capturing CUDA graphs", "UNDETERMINED", "log-ends-during-step"),
])
def test_a_users_sentence_about_a_step_is_no_step_under_way(tail, kind, code):
    run = run_of(diag(V1_SIZED + tail))
    assert (run.kind, run.code) == (kind, code), run


# --- an engine's verdict that a worker could not start places the failure before warm-up ----------------------------

def test_tgi_shard_that_failed_to_start_was_loading_its_weights():
    # TGI 2.x: the shard's own OutOfMemoryError while building the model, then the launcher's verdict (main.rs)
    run = run_of(diag("""
        2024-05-02T08:00:01.100Z  INFO text_generation_launcher: Starting shard rank=1
        2024-05-02T08:00:09.210Z ERROR text_generation_launcher: Error when initializing model
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB. GPU 1 has a total capacity of 22.05 GiB of which 101.12 MiB is free.
        2024-05-02T08:00:10.001Z ERROR text_generation_launcher: Shard 1 failed to start
        2024-05-02T08:00:10.001Z  INFO text_generation_launcher: Shutting down shards
    """))
    assert (run.kind, run.phase_source) == ("WEIGHTS", "the message after the failure"), run


def test_tgi_shard_that_failed_to_start_without_its_cause_is_not_memory_yet():
    run = run_of(diag("""
        2025-01-09T11:00:00.000Z  INFO text_generation_launcher: Starting shard rank=0
        Error: ShardCannotStart
    """))
    assert run.kind == "UNDETERMINED" and run.code == "failure-cause-not-shown", run


def test_tgi_shard_that_crashed_while_serving_is_not_weights():
    run = run_of(diag("""
        2024-05-02T08:01:00.000Z  INFO text_generation_router: router/src/main.rs:450: Connected
        2024-05-02T09:12:00.000Z ERROR text_generation_launcher: Method Decode encountered an error.
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 0 has a total capacity of 79.15 GiB of which 12.62 MiB is free.
        2024-05-02T09:12:01.000Z ERROR text_generation_launcher: Shard 0 crashed
    """))
    assert run.kind == "RUNTIME", run


# --- a markdown heading is the user's words ---------------------------------------------------------------------------

@pytest.mark.parametrize("heading,ready", [
    ("#### Timeline of KV cache usage before the crash", READY["vllm"]),
    ("## Last lines before it crashed", READY["llama-server"]),
    ("### What it prints right before it dies", READY["ollama"]),
])
def test_a_markdown_heading_that_states_a_failure_is_read(heading, ready):
    run = run_of(diag(heading + "\n" + ready))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


# --- a traceback pasted from its middle: the innermost start-up frame decides, not the first line ---------------------

@pytest.mark.parametrize("text,kind", [
    # vLLM V0 (worker/worker.py initialize_cache -> _warm_up_model -> model_runner.capture_model), cut before its error
    ("""
    (VllmWorkerProcess pid=201) ERROR 08-19 07:51:27 multiproc_worker_utils.py:226]   File "/usr/lib/python3/site-packages/vllm/worker/worker.py", line 222, in initialize_cache
    (VllmWorkerProcess pid=201) ERROR 08-19 07:51:27 multiproc_worker_utils.py:226]     self._warm_up_model()
    (VllmWorkerProcess pid=201) ERROR 08-19 07:51:27 multiproc_worker_utils.py:226]   File "/usr/lib/python3/site-packages/vllm/worker/worker.py", line 238, in _warm_up_model
    (VllmWorkerProcess pid=201) ERROR 08-19 07:51:27 multiproc_worker_utils.py:226]     self.model_runner.capture_model(self.gpu_cache)
    """, "WARMUP"),
    # vLLM V1 (v1/engine/core.py _initialize_kv_caches -> gpu_worker.compile_or_warm_up_model)
    ("""
      File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 190, in _initialize_kv_caches
        self.model_executor.initialize_from_config(kv_cache_configs)
      File "/opt/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py", line 288, in compile_or_warm_up_model
        self.model_runner.capture_model()
    """, "WARMUP"),
])
def test_a_headless_traceback_is_placed_by_its_innermost_frame(text, kind):
    run = run_of(diag(text))
    assert run.kind == "UNDETERMINED" and run.candidates == [kind], (run.kind, run.code, run.candidates)


# --- a failure the run went on from to serve, then again while serving: the one after serving began decides ----------

METAL_FAIL = ("ggml_metal_graph_compute: command buffer 0 failed with status 5\n"
              "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)")


@pytest.mark.parametrize("text,kind", [
    # llama-server on Metal (2025): the warm-up run's command buffer failed, the server started, then decode failed
    ("llama_context:      Metal compute buffer size =   304.00 MiB\n" + METAL_FAIL + "\n"
     "main: server is listening on http://127.0.0.1:8080 - starting the main loop\n"
     "srv  log_server_r: request: POST /completion 127.0.0.1 200\n" + METAL_FAIL + "\n" + METAL_FAIL, "RUNTIME"),
    # llama-cpp-python's server on Metal: the same before and after uvicorn's ready line
    ("llama_new_context_with_model:      Metal compute buffer size =   164.00 MiB\n" + METAL_FAIL + "\n"
     "INFO:     Uvicorn running on http://localhost:8000 (Press CTRL+C to quit)\n"
     'INFO:     127.0.0.1:50322 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n' + METAL_FAIL, "RUNTIME"),
    # the warm-up failure alone, the server then serving: handled at start, no failure after
    ("llama_context:      Metal compute buffer size =   304.00 MiB\n" + METAL_FAIL + "\n"
     "main: server is listening on http://127.0.0.1:8080 - starting the main loop\n"
     "srv  log_server_r: request: POST /completion 127.0.0.1 200", "NONE"),
    # another failure after serving began: that one decides
    ("llama_context:      Metal compute buffer size =   304.00 MiB\n" + METAL_FAIL + "\n"
     "main: server is listening on http://127.0.0.1:8080 - starting the main loop\n"
     "srv  log_server_r: request: POST /completion 127.0.0.1 200\n"
     "ggml_metal_graph_compute: command buffer 0 failed with status 3\n"
     "error: Caused GPU Timeout Error (00000002:kIOAccelCommandBufferCallbackErrorTimeout)", "NOT_OOM"),
])
def test_a_failure_again_after_serving_began_decides(text, kind):
    run = run_of(diag(text))
    assert run.kind == kind, (run.kind, run.code)


# --- a count the log shows at none is never advised lower -------------------------------------------------------------

@pytest.mark.parametrize("text", [
    # llama-server on ROCm, pasted with its command: -ngl 0, and still the compute buffer on the GPU failed
    """
    $ ./llama-server -m models/qwen2.5-32b-q4_k_m.gguf -ngl 0 -c 65536
    ggml_gallocr_reserve_n: failed to allocate ROCm0 buffer of size 9663676416
    llama_init_from_model: failed to allocate compute buffers
    """,
    # llama-cpp-python with n_gpu_layers=0 in its keyword arguments (CUDA build)
    """
    llm = Llama(model_path="./mistral-7b.Q5_K_M.gguf", n_gpu_layers=0, n_ctx=32768)
    ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4352.00 MiB on device 0: cudaMalloc failed: out of memory
    ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 4563402752
    llama_new_context_with_model: failed to allocate compute buffers
    """,
    # the load printing none offloaded (offloaded 0/41 layers), then the compute buffer on Vulkan
    """
    llm_load_tensors: offloaded 0/41 layers to GPU
    llm_load_tensors:        CPU buffer size =  7165.44 MiB
    llama_new_context_with_model: n_ctx      = 32768
    ggml_gallocr_reserve_n: failed to allocate Vulkan0 buffer of size 2281701376
    llama_new_context_with_model: failed to allocate compute buffers
    """,
])
def test_layers_already_off_the_gpu_are_not_advised_fewer(text):
    run = run_of(diag(text))
    assert run.kind == "WARMUP", run
    assert not [a for a in run.advice if a.get("setting") == "gpu_layers" and a.get("direction") == "down"], run.advice


# --- one buffer past the device's single-allocation limit (ggml-vulkan ggml_vk_create_buffer) -------------------------

@pytest.mark.parametrize("text", [
    # a 2025 build on RADV: maxMemoryAllocationSize
    """
    llama_context:    Vulkan0 KV buffer size =  6144.00 MiB
    ggml_vulkan: Device memory allocation of size 5368709120 failed.
    ggml_vulkan: Requested buffer size exceeds device memory allocation limit: ErrorOutOfDeviceMemory
    ggml_gallocr_reserve_n: failed to allocate Vulkan0 buffer of size 5368709120
    llama_init_from_model: failed to initialize the context: failed to allocate compute pp buffers
    """,
    # a 2026 build: maxBufferSize, with -ub in the pasted command
    """
    $ llama-server -m qwen3-30b-a3b-q8_0.gguf -c 131072 -ub 2048 -ngl 99
    ggml_vulkan: Requested buffer size exceeds device buffer size limit: ErrorOutOfDeviceMemory
    ggml_gallocr_reserve_n_impl: failed to allocate Vulkan0 buffer of size 6509559808
    graph_reserve: failed to allocate compute buffers
    """,
])
def test_a_buffer_past_the_single_allocation_limit_wants_a_smaller_buffer(text):
    run = run_of(diag(text))
    assert (run.kind, run.code) == ("WARMUP", "buffer-exceeds-allocation-limit"), run
    settings = [(a.get("setting"), a.get("direction")) for a in run.advice]
    assert ("n_ubatch", "down") in settings and ("gpu_layers", "down") not in settings, run.advice
    if "-ub 2048" in text:
        assert any(a.get("setting") == "n_ubatch" and a.get("value") == 1024 for a in run.advice), run.advice


def test_pinned_memory_past_the_limit_is_a_warning_the_load_goes_on_from():
    # ggml_backend_vk_host_buffer_type_alloc_buffer: the pinned host buffer past the limit, then a CPU buffer instead
    run = run_of(diag("""
        llama_kv_cache_unified:        CPU KV buffer size = 48000.00 MiB
        ggml_vulkan: Failed to allocate pinned memory.
        ggml_vulkan: Requested buffer size exceeds device memory allocation limit: ErrorOutOfDeviceMemory
        llama_context:    Vulkan0 compute buffer size =   616.06 MiB
        llama_context: Vulkan_Host compute buffer size = 21014.01 MiB
        main: server is listening on http://127.0.0.1:8080 - starting the main loop
    """))
    assert run.kind == "NONE", run


# --- a model file cut short is model-file-error, however the front end words it ----------------------------------------

@pytest.mark.parametrize("text", [
    "llama_model_load: error loading model: tensor 'blk.17.ffn_gate.weight' data is not within the file bounds, "
    "model is corrupted or incomplete\nllama_load_model_from_file: failed to load model",
    'time=2025-02-01T10:00:00.000Z level=ERROR source=server.go:421 msg="llama runner terminated" error="exit '
    'status 2"\nllama_model_load: error loading model: done_getting_tensors: wrong number of tensors; expected 724, '
    'got 723',
    "ValueError: Failed to load model from file: /models/llama-3-8b.Q4_K_M.gguf\n"
    "llama_model_load: error loading model: tensor 'output.weight' data is not within the file bounds, model is "
    "corrupted or incomplete",
])
def test_a_model_file_cut_short_is_a_model_file_error(text):
    run = run_of(diag(text))
    assert (run.kind, run.code) == ("NOT_OOM", "model-file-error"), run


# --- LM Studio's error dialog copied as text; a blank line ends a message ---------------------------------------------

@pytest.mark.parametrize("cause,kind", [
    ("error loading model: unknown model architecture: 'qwen3next'", "NOT_OOM"),
    ("llama_model_load: error loading model: unable to allocate CUDA0 buffer", "WEIGHTS"),
])
def test_lm_studio_dialog_is_lm_studio_and_its_lines_stay_apart(cause, kind):
    rep = diag("\U0001F972 Failed to load the model\n\nFailed to load model\n\n" + cause, strip=False)
    run = run_of(rep)
    assert rep.engine == "lmstudio" and run.kind == kind, (rep.engine, run.kind, run.code)
    assert all("modelFailed" not in e["text"] and "modelerror" not in e["text"] for e in run.evidence)


# --- 2023's first load line starts a run (llama.cpp llama_model_load "llama.cpp: loading model from PATH") ------------

def test_a_2023_load_printed_twice_is_two_runs():
    load = """llama.cpp: loading model from /models/wizard-13b.ggmlv3.q5_1.bin
llama_model_load_internal: format     = ggjt v3 (latest)
llama_model_load_internal: n_layer    = 40
llama_model_load_internal: using CUDA for GPU acceleration
llama_model_load_internal: mem required  = 2135.99 MB (+ 1608.00 MB per state)
llama_model_load_internal: offloading {ngl} repeating layers to GPU
"""
    text = (load.format(ngl=40) + "CUDA error 2 at ggml-cuda.cu:6301: out of memory\n"
            + load.format(ngl=30) + "llama_model_load_internal: total VRAM used: 7812 MB\n"
            "llama_init_from_file: kv self size  =  400.00 MB\n")
    rep = diag(text)
    assert len(rep.runs) == 2, [(r.first_line, r.kind) for r in rep.runs]
    assert rep.runs[0].kind == "WEIGHTS", rep.runs[0]


# --- Triton's TensorRT-LLM backend: TensorRT-LLM's lines, Triton's settings ------------------------------------------

def test_triton_trtllm_backend_is_advised_in_its_own_settings():
    # the backend's C++ runtime sized the pool, then Triton's model instance failed (inflight_batcher_llm)
    rep = diag("""
        I0412 09:12:01.100000 88 model_lifecycle.cc:469] loading: tensorrt_llm:1
        [TensorRT-LLM][INFO] Allocate 1073741824 bytes for k/v cache.
        [TensorRT-LLM][INFO] Using 32768 total tokens in paged KV cache, and 512 blocks per sequence
        E0412 09:12:09.300000 88 backend_model.cc:692] ERROR: Failed to create instance: unexpected error when creating modelInstanceState: maxTokensInPagedKvCache (32768) must be large enough to process at least 1 sequence to completion (i.e. must be larger than beam_width (1) * tokensPerBlock (64) * maxBlocksPerSeq (1024))
    """)
    run = run_of(rep)
    assert rep.engine == "triton-trtllm" and run.kind == "KV_CAPACITY", (rep.engine, run.kind)
    flags = " | ".join(a["flags"] for a in run.advice)
    assert "kv_cache_free_gpu_mem_fraction" in flags and "max_attention_window_size" in flags, flags
    assert "--kv_cache_free_gpu_memory_fraction" not in flags and "kv_cache_config" not in flags, flags


def test_triton_with_another_backend_is_not_trtllm():
    # Triton's core lines are every backend's: its vLLM backend is vLLM
    rep = diag("""
        I0412 09:12:01.100000 88 model_lifecycle.cc:469] loading: vllm_model:1
        INFO 04-12 09:12:05 llm_engine.py:100] Initializing an LLM engine (v0.5.3) with config: model='/models/llama3'
        INFO 04-12 09:12:30 model_runner.py:300] Loading model weights took 14.9595 GB
        ERROR 04-12 09:12:40 worker.py:200] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.
    """)
    assert rep.engine == "vllm", rep.engine


# --- a value printed under its label, on a line of its own -------------------------------------------------------------

ALLOWED = """torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)
Currently allocated     : 17.50 GiB
Requested               : 1.00 GiB
Device limit            : 23.64 GiB
Free (according to CUDA): 5.20 GiB
PyTorch limit (set by user-supplied memory fraction)
                        : 18.00 GiB"""


@pytest.mark.parametrize("before", [
    # TGI while serving
    "2024-06-01T10:00:00.000Z  INFO text_generation_router: router/src/main.rs:450: Connected\n"
    "2024-06-01T10:05:00.000Z ERROR text_generation_launcher: Method Prefill encountered an error.\n",
    # a transformers pipeline behind FastAPI
    "INFO:     Application startup complete.\n",
])
def test_a_value_under_its_label_is_read(before):
    run = run_of(diag(before + ALLOWED))
    assert run.numbers.get("allowed_bytes") == 18 * 2**30, run.numbers
    assert run.numbers.get("total_memory_bytes") == int(23.64 * 2**30), run.numbers


# --- an issue's title or a heading is the user's summary, not a line of the log ---------------------------------------

@pytest.mark.parametrize("text,kind", [
    # llama-server: the title names the client's error; the engine's own lines say the cells were full while serving
    ("""# llama-server error: "Server error: failed to decode"
        slot update_slots: id  0 | task 88 | new prompt, n_ctx_slot = 4096, n_keep = 0, n_prompt_tokens = 3900
        update_slots: failed to find free space in the KV cache, retrying with smaller batch size, i = -8, n_batch = 8
        llama_decode: failed to decode, ret = 1""", "RUNTIME"),
    # a title saying out of memory above an engine's warm-up failure (a vendor server's own words)
    ("""## Deploying Qwen2.5-7B on two cards fails: out of memory
        2025-11-25 10:00:01 INFO Loading weights done
        2025-11-25 10:00:09 ERROR Warmup failed, because of NPU out of memory""", "WARMUP"),
    # a question quoting a warning the engine goes on from, then the server listening
    ("""### question: Is this expected? WARNING: failed to allocate 17088.03 MB of pinned memory: out of memory
        llm_load_tensors: offloaded 33/33 layers to GPU
        WARNING: failed to allocate 17088.03 MB of pinned memory: out of memory
        main: server is listening on http://127.0.0.1:8080 - starting the main loop""", "NONE"),
])
def test_a_heading_is_the_users_summary_not_a_log_line(text, kind):
    run = run_of(diag(text))
    assert run.kind == kind, (run.kind, run.code, run.evidence)


def test_a_number_with_a_decimal_point_does_not_end_the_users_sentence():
    # "v0.6.3" and "17.5 GB" are no sentence ends: the denial before them still governs the words after
    run = run_of(diag(READY["vllm"] + "\nWith v0.6.3 at 17.5 GB RSS there is no memory leak, it is flat."))
    assert run.kind == "NONE", (run.kind, run.code)


# --- SIGKILL as the parent reports it is the host's OOM killer, like the shell's "Killed" -------------------------------

@pytest.mark.parametrize("text,kind", [
    # Ollama's scheduler, the runner killed while it loaded
    ('time=2025-01-24T15:54:16.769-08:00 level=ERROR source=sched.go:455 msg="error loading llama server" '
     'error="llama runner process has terminated: signal: killed"', "WEIGHTS"),
    # a container that exited with 137 (128 + SIGKILL) after the server had been serving
    ("INFO:     Application startup complete.\n"
     'INFO:     10.0.0.2:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
     "vllm-1 exited with code 137", "RUNTIME"),
    # macOS's shell after memory pressure ended llama-server while it served
    ("main: server is listening on http://127.0.0.1:8080 - starting the main loop\n"
     "srv  log_server_r: request: POST /completion 127.0.0.1 200\n"
     "zsh: Killed: 9    ./llama-server -m qwen2.5-32b-q8_0.gguf -c 32768", "RUNTIME"),
])
def test_a_sigkill_reported_by_the_parent_is_the_hosts_oom_killer(text, kind):
    run = run_of(diag(text))
    assert run.kind == kind and run.code in ("host-oom-kill", "weights-exceed-system-memory"), (run.kind, run.code)


# --- an engine named only in the user's words counts only where no program's line names one -------------------------

LLAMA_SERVER_KV_FAIL = """llama_kv_cache_unified:      CUDA0 KV buffer size =  4608.00 MiB
llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache"""


@pytest.mark.parametrize("text,engine", [
    # a list item of the report naming the model's source
    ("4. model: Ollama GGUF blob of qwen3:8b (4.9 GB)\n" + LLAMA_SERVER_KV_FAIL, "llamacpp"),
    # the first person comparing with another engine
    ("I run the same GGUF in Ollama and it works, but llama-server fails:\n" + LLAMA_SERVER_KV_FAIL, "llamacpp"),
    # a directory named after the other engine, in the command pasted
    ("./server -t 32 -ngl 999 -m /opt/models/mixtral_ollama/mixtral-8x7b.Q5_K_M.gguf -c 131072 --parallel 512\n"
     + LLAMA_SERVER_KV_FAIL, "llamacpp"),
    # KoboldCpp's own banner names the API it emulates
    ("Welcome to KoboldCpp - Version 1.98\nNote: For third party Ollama API Emulation, you should set the port to "
     "11434.\nStarting Kobold API on port 5001 at http://localhost:5001/api/", "koboldcpp"),
    # only the user's words name an engine: theirs
    ("I'm on Ollama 0.5.7 and every chat ends with this:\nCUDA error: out of memory", "ollama"),
])
def test_an_engine_in_the_users_words_yields_to_the_logs_own(text, engine):
    rep = diag(text)
    assert rep.engine == engine, rep.engine


# --- llama-server's own lines for a request are serving ---------------------------------------------------------------

def test_llama_servers_request_lines_before_its_slot_runs_are_serving():
    run = run_of(diag("""
        srv  params_from_: Chat format: Hermes 2 Pro
        slot get_availabl: id  0 | task -1 | selected slot by LRU, t_last = 71783813801
        srv   prompt_save:  - saving prompt with length 28960, total state size = 3462.850 MiB
        A process of this unit has been killed by the OOM killer.
    """))
    assert (run.kind, run.code) == ("RUNTIME", "host-oom-kill"), run


# --- growth stated, then memory ran out: the growth is the cause -------------------------------------------------------

@pytest.mark.parametrize("text", [
    "We stress test with 30 users and the memory is not released when they stop. At some point we have OOM.",
    "INFO:     Application startup complete.\nVRAM keeps growing with every request, then:\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB "
    "of which 1.10 GiB is free.",
])
def test_stated_growth_then_out_of_memory_is_a_leak(text):
    run = run_of(diag(text))
    assert run.kind == "LEAK", (run.kind, run.code)


# --- serving stated in the user's words with more words between; a task on the device that timed out ---------------

def test_serving_stated_with_words_between_is_serving():
    run = run_of(diag("""
        `mlx_lm.server` crashed twice while serving OpenAI-compatible chat completion requests for a 4B model.
        libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)
    """))
    assert run.kind == "RUNTIME", (run.kind, run.code)


@pytest.mark.parametrize("text", [
    # vllm-ascend 0.10 (CANN's runtime through torch_npu)
    "(VllmWorker TP1 pid=961) ERROR 09-07 01:11:09 [multiproc_executor.py:596] [Error]: The execution of the internal "
    "task times out.\n(VllmWorker TP1 pid=961) ERROR 09-07 01:11:09 [multiproc_executor.py:596]         "
    "rtStreamSynchronizeWithTimeout execute failed, reason=[fftsplus timeout][FUNC:FuncErrorReason]",
    # MindIE's own log of the same runtime error
    "[2025-10-01 10:00:00] [ERROR] EH9999: Inner Error! rtStreamSynchronizeWithTimeout execute failed, "
    "reason=[fftsplus timeout]",
])
def test_a_device_task_that_timed_out_is_not_memory(text):
    run = run_of(diag(text))
    assert (run.kind, run.code) == ("NOT_OOM", "device-task-timeout"), (run.kind, run.code)


# --- a heading that names a failure in an engine's words stands where the log's own lines show none --------------------

@pytest.mark.parametrize("text,kind", [
    # Ollama's runner (kvcache/causal.go ErrKvCacheFull) in the title, the body only the load
    ("""# panic: failed to decode batch: could not find a kv cache slot (length: 6656)
        time=2025-05-26T19:05:56.817Z level=INFO source=ggml.go:351 msg="model weights" buffer=CUDA0 size="16.2 GiB"
        time=2025-05-26T19:05:57.087Z level=INFO source=ggml.go:638 msg="compute graph" backend=CUDA0 size="1.1 GiB\"""",
     "RUNTIME"),
    # vLLM's pool check in a heading above the start-up lines only
    ("""## ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`
        INFO 05-01 10:00:00 model_runner.py:1000] Loading model weights took 13.4 GiB""", "KV_CAPACITY"),
])
def test_a_heading_naming_a_failure_stands_where_the_log_shows_none(text, kind):
    run = run_of(diag(text))
    assert run.kind == kind, (run.kind, run.code)


def test_ollamas_runner_panicking_on_a_full_cache_is_a_failure_while_serving():
    run = run_of(diag("time=2025-05-26T19:10:01.000Z level=INFO source=server.go:800 msg=\"llama runner started in 3.1 "
                      "seconds\"\npanic: failed to decode batch: could not find a kv cache slot (length: 6656)"))
    assert (run.kind, run.code, run.oom) == ("RUNTIME", "kv-cache-full", True), run


@pytest.mark.parametrize("words", [
    "Cuda out of memory while inference for a 30B model on two L40S",
    "The server crashes with CUDA OOM error with 30 concurrent requests",
    "OOM during inference after the first few users",
])
def test_inference_or_a_load_of_requests_named_is_serving(words):
    run = run_of(diag(words + "\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a "
                              "total capacity of 44.39 GiB of which 1.20 GiB is free."))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- the platform's own debugging switch --------------------------------------------------------------------------------

@pytest.mark.parametrize("text,switch", [
    ("RuntimeError: HIP error: an illegal memory access was encountered\nSearch for `hipErrorIllegalAddress' in "
     "https://rocm.docs.amd.com/projects/HIP/en/latest/index.html for more information.", "AMD_SERIALIZE_KERNEL=3"),
    ("RuntimeError: CUDA error: an illegal memory access was encountered", "CUDA_LAUNCH_BLOCKING=1"),
])
def test_a_kernel_error_is_rerun_with_its_platforms_switch(text, switch):
    run = run_of(diag(text))
    assert run.kind == "NOT_OOM", run
    why = " ".join(a["why"] for a in run.advice)
    assert switch in why and ("CUDA_LAUNCH_BLOCKING=1" not in why or switch == "CUDA_LAUNCH_BLOCKING=1"), why


# --- a setting the user says they moved to a value, and it still failed ------------------------------------------------

@pytest.mark.parametrize("text,bound", [
    # vLLM V1 graph capture, the flag lowered in words
    ("I lowered --gpu-memory-utilization to 0.7 and still get the same OOM.\n"
     "INFO 05-01 10:00:00 [gpu_model_runner.py:2000] Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  10%\n"
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of 79.19 "
     "GiB of which 300.00 MiB is free.", 0.7),
    # SGLang's capture, the config key lowered
    ("we reduced mem_fraction_static to 0.6, still crashes here:\n"
     "[2025-03-01 10:00:00 TP0] Capture cuda graph failed: CUDA out of memory. Tried to allocate 448.00 MiB.", 0.6),
    # TensorRT-LLM's PyTorch backend: a harness's config key, down to ".10"
    ("We reduced the kvcache_free_gpu_mem_frac flag in the config file all the way down to .10 and still see this "
     "error.\nRuntimeError: Executor creation failed due to insufficient GPU memory.\n"
     "The following component could not be created: KV cache", 0.1),
])
def test_a_fraction_moved_in_words_is_never_proposed_again(text, bound):
    run = run_of(diag(text))
    fractions = [a for a in run.advice if a.get("setting") == "memory_fraction"]
    for a in fractions:
        assert a.get("value") is None or a["value"] < bound, a
    assert any(str(bound).lstrip("0") in a["why"] for a in run.advice), run.advice


# --- vLLM V0 told by its own code in a traceback ---------------------------------------------------------------------

@pytest.mark.parametrize("frames", [
    '  File "/envs/x/lib/python3.10/site-packages/vllm/engine/async_llm_engine.py", line 70, in _log_task_completion\n'
    "vllm.engine.async_llm_engine.AsyncEngineDeadError: Task finished unexpectedly.",
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py", line 1700, in execute_model',
])
def test_vllm_v0_code_in_a_traceback_gets_v0s_chunked_prefill_flag(frames):
    run = run_of(diag("Traceback (most recent call last):\n" + frames + "\ntorch.OutOfMemoryError: CUDA out of memory. "
                      "Tried to allocate 318.00 MiB. GPU 0 has a total capacity of 23.53 GiB of which 315.44 MiB is free.",
                      engine="vllm"))
    chunk = [a["flags"] for a in run.advice if a.get("setting") == "max_num_batched_tokens"]
    assert chunk and all("--enable-chunked-prefill" in f for f in chunk), run.advice


def test_weights_past_the_single_allocation_limit_want_a_smaller_buffer_not_more_gpus():
    run = run_of(diag("""
        load_tensors: loading model tensors, this can take a while... (mmap = true)
        ggml_vulkan: Device memory allocation of size 4697620480 failed.
        ggml_vulkan: Requested buffer size exceeds device memory allocation limit: ErrorOutOfDeviceMemory
        alloc_tensor_range: failed to allocate Vulkan0 buffer of size 4697620480
        llama_model_load: error loading model: unable to allocate Vulkan0 buffer
    """))
    assert (run.kind, run.code) == ("WEIGHTS", "buffer-exceeds-allocation-limit"), run
    settings = [(a.get("setting"), a.get("direction")) for a in run.advice]
    assert ("gpu_layers", "down") in settings, settings
    assert not any(s in ("tensor_parallel_size", "quantization") for s, _ in settings), settings


@pytest.mark.parametrize("sentence", [
    "While the error seems to suggest running out of memory, radeontop shows plenty of free VRAM.",
    "It looks like an OOM at first sight but nvidia-smi says 20 GB are free.",
    "The message suggests out of memory, yet only 6 of 24 GB are in use.",
])
def test_a_hedged_inference_of_out_of_memory_is_no_failure(sentence):
    run = run_of(diag(READY["llama-server"] + "\n" + sentence))
    assert run.kind == "NONE", (run.kind, run.code)


@pytest.mark.parametrize("line,value", [
    ("I loaded it with --quantize option, it occupies 15G", None),
    ('2024-05-02T08:00:00Z  INFO text_generation_launcher: Args { quantize: Some(BitsandbytesNF4), num_shard: None }',
     "BitsandbytesNF4"),
    ("text-generation-launcher --model-id x --quantize gptq --num-shard 2", "gptq"),
])
def test_tgis_quantize_setting_is_one_of_its_methods(line, value):
    run = run_of(diag(line + "\n2024-05-02T08:00:01Z ERROR text_generation_launcher: Method Warmup encountered an error."
                      "\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.", engine="tgi"))
    assert run.numbers.get("quantization") == value, run.numbers.get("quantization")


@pytest.mark.parametrize("line,version", [
    ('time=2024-04-20T10:00:00.000Z level=INFO source=routes.go:1143 msg="Listening on 127.0.0.1:11434 (version 0.1.32)"',
     "0.1.32"),
    ("LM Studio (version 0.2.27) fails to load the model file on my machine", None),
])
def test_ollamas_version_is_read_from_its_own_lines_only(line, version):
    rep = diag(line + "\nllama_model_load: error loading model: unable to allocate CUDA0 buffer")
    assert run_of(rep).numbers.get("ollama_version") == version


# --- LocalAI: llama.cpp under its own prefix, advised in its model YAML ------------------------------------------------

def test_localai_is_advised_in_its_model_yaml():
    rep = diag("""
        8:02AM INF Loading model 'mixtral' with backend llama-cpp
        8:02AM DBG GRPC(mixtral-127.0.0.1:39595): stderr llm_load_tensors: offloading 33 repeating layers to GPU
        8:02AM DBG GRPC(mixtral-127.0.0.1:39595): stderr ggml_backend_cuda_buffer_type_alloc_buffer: allocating 5563.66 MiB on device 0: cudaMalloc failed: out of memory
        8:02AM DBG GRPC(mixtral-127.0.0.1:39595): stderr llama_model_load: error loading model: unable to allocate backend buffer
        8:02AM INF [llama-cpp] Fails: could not load model: rpc error: code = Canceled desc =
    """)
    run = run_of(rep)
    assert rep.engine == "localai" and run.kind == "WEIGHTS", (rep.engine, run.kind)
    flags = " | ".join(a["flags"] for a in run.advice)
    assert "gpu_layers: " in flags and "-ngl" not in flags and "--split-mode" not in flags, flags


# --- the user's sentence yields to the engine's own line; a start-up line after the failure says it was starting --------

def test_a_users_sentence_yields_to_the_engines_line_and_start_up_after_it_rules_out_serving():
    run = run_of(diag("""
        I was able to reproduce it: llama-server answers /health after a fatal OOM Metal during init.
        ## Captured logs:
        0.26.672.359 E ggml_metal_synchronize: error: command buffer 0 failed with status 5
        0.26.673.527 E error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)
        0.26.675.720 W srv  load_model: the slot context (262144) exceeds the training context of the model (40960)- capping
    """))
    assert run.kind == "UNDETERMINED", run
    assert "RUNTIME" not in run.candidates and run.evidence[0]["line"] == 3, (run.candidates, run.evidence)


@pytest.mark.parametrize("after", [
    # vLLM V1's weights milestone printed after a failure line (a retry, a second worker): still starting
    "INFO 05-01 10:00:09 [gpu_model_runner.py:1500] Model loading took 14.99 GiB and 9.1 seconds",
    "0.01.000.000 I srv  load_model: initializing slots, n_slots = 1",
])
def test_a_start_up_line_after_the_failure_rules_out_serving(after):
    run = run_of(diag("CUDA error: out of memory\n" + after))
    assert "RUNTIME" not in run.candidates, (run.kind, run.candidates)


@pytest.mark.parametrize("sentence,kind", [
    ("Came back to use the WebUI again, and met with an error.", "UNDETERMINED"),
    ("Every time I send the second prompt I get this error and the runner restarts.", "UNDETERMINED"),
    ("I don't get an error, it just answers slowly.", "NONE"),
])
def test_an_error_met_in_the_users_words_is_a_stated_failure(sentence, kind):
    run = run_of(diag(sentence + "\n" + READY["ollama"]))
    assert run.kind == kind, (run.kind, run.code)


def test_a_glog_or_trantor_stamp_starts_a_line_of_its_own():
    # Jan's cortex (trantor: "20250430 21:55:01.443740 UTC") puts its source on the next line; the next record is
    # a line of its own, never joined to the one before
    run = run_of(diag("""
        20250430 21:55:01.443740 UTC 8354 ERROR ggml_backend_cuda_buffer_type_alloc_buffer: allocating 7203.17 MiB on device 0: cudaMalloc failed: out of memory
         - llama_engine.cc:533
        20250430 21:55:01.443769 UTC 8354 ERROR alloc_tensor_range: failed to allocate CUDA0 buffer of size 7553073280
         - llama_engine.cc:533
        20250430 21:55:01.597022 UTC 8354 ERROR llama_model_load: error loading model: unable to allocate CUDA0 buffer
         - llama_engine.cc:533
    """))
    assert run.kind == "WEIGHTS", run
    assert all("UTC 8354" not in e["text"][40:] for e in run.evidence), run.evidence


def test_setting_a_flag_to_a_value_that_failed_is_a_value_tried():
    run = run_of(diag("When setting --mem-fraction-static to 0.85, I get a CUDA out of memory error:\n"
                      "[2025-03-01 10:00:00 TP0] Capture cuda graph failed: CUDA out of memory. Tried to allocate "
                      "448.00 MiB."))
    steps = [a for a in run.advice if a.get("setting") == "memory_fraction"]
    assert steps and all(a.get("value") is None or a["value"] < 0.85 for a in steps), steps
    assert any("0.85" in a["why"] for a in steps), steps
