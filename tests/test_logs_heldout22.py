"""`vramdoctor logs` on the kinds of fault the held-out round 22 found (../heldout22/REPORT.md), each with logs of
our own in other engines, versions and wordings (none of the held-out logs' own lines). The engines' lines follow
their sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, run_of


# --- 10/11. a warning the engine goes on from is no failure, and the start-up lines after it are the same load -----

WENT_ON = {
    # llama-server on Vulkan, a 2024 build: ggml-vulkan's host buffer (ggml_backend_vk_host_buffer_type_alloc_buffer)
    # printed the warning, then the exception's what() on its own line, and fell back to a CPU buffer
    "vulkan-two-lines-ready": ("""
        llm_load_tensors: ggml ctx size =    0.27 MiB
        ggml_vulkan: Failed to allocate pinned memory.
        ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfHostMemory
        llm_load_tensors: offloading 32 repeating layers to GPU
        llm_load_tensors: offloaded 33/33 layers to GPU
        llm_load_tensors:    Vulkan0 buffer size =  4155.99 MiB
        llm_load_tensors:        CPU buffer size =   281.81 MiB
        llama_kv_cache_init:    Vulkan0 KV buffer size =   512.00 MiB
        main: server is listening on http://127.0.0.1:8080 - starting the main loop
    """, "NONE"),
    # a 2025 build prints the cause on the same line; the excerpt stops partway into the context's lines
    "vulkan-one-line-cut": ("""
        load_tensors: loading model tensors, this can take a while... (mmap = true)
        ggml_vulkan: Failed to allocate pinned memory (vk::Device::allocateMemory: ErrorOutOfDeviceMemory)
        load_tensors: offloaded 29/29 layers to GPU
        load_tensors:   CPU_Mapped model buffer size =   308.23 MiB
        load_tensors:      Vulkan0 model buffer size =  1918.35 MiB
        llama_context: constructing llama_context
        llama_context: n_ctx         = 8192
        llama_context: n_ctx_per_seq (8192) < n_ctx_train (1310
    """, "UNDETERMINED"),
    # CUDA: ggml_cuda_host_malloc's warning (ggml-cuda.cu), then the rest of the load
    "cuda-pinned-then-ready": ("""
        llm_load_tensors: offloading 40 repeating layers to GPU
        WARNING: failed to allocate 1024.00 MB of pinned memory: out of memory
        llm_load_tensors:        CPU buffer size =   417.66 MiB
        llm_load_tensors:      CUDA0 buffer size =  7023.90 MiB
        llama_new_context_with_model: n_ctx      = 4096
        main: server is listening on http://0.0.0.0:8080 - starting the main loop
    """, "NONE"),
}


@pytest.mark.parametrize("name", sorted(WENT_ON))
def test_a_warning_the_load_goes_on_from_is_no_failure(name):
    text, kind = WENT_ON[name]
    rep = diag(text)
    assert len(rep.runs) == 1, [(r.first_line, r.kind) for r in rep.runs]
    run = run_of(rep)
    assert run.kind == kind, run
    assert run.kind != "WEIGHTS", run


def test_a_device_buffer_that_failed_on_vulkan_is_still_weights():
    # ggml_backend_vk_buffer_type_alloc_buffer: a device buffer, not a host one, and the load stops
    run = run_of(diag("""
        llm_load_tensors: offloading 32 repeating layers to GPU
        ggml_vulkan: Device memory allocation of size 4357881856 failed.
        ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory
        llama_model_load: error loading model: unable to allocate Vulkan0 buffer
        llama_load_model_from_file: failed to load model
    """))
    assert run.kind == "WEIGHTS", run


def test_the_load_going_on_after_a_failure_line_is_one_run_and_a_cut_start_up_no_clean_bill():
    # a line that failed before any weights buffer was printed, then the buffers on two devices: the load went on
    # (one run, not a restart at the second buffer), and a start-up cut partway through a line clears nothing, even
    # with a partial offload printed
    rep = diag("""
        llm_load_tensors: ggml ctx size =    0.30 MiB
        WARNING: failed to allocate 256.00 MB of pinned memory: invalid argument
        ggml_vulkan: Failed to allocate pinned memory.
        ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfHostMemory
        llm_load_tensors: offloaded 18/41 layers to GPU
        llm_load_tensors:        CPU buffer size =  3840.11 MiB
        llm_load_tensors:    Vulkan0 buffer size =  3011.52 MiB
        llama_new_context_with_model: n_ctx      = 4096
        llama_new_context_with_model: freq_base  = 1000000.0 (of n_ctx_train (3276
    """)
    assert len(rep.runs) == 1, [(r.first_line, r.kind) for r in rep.runs]
    run = run_of(rep)
    assert (run.kind, run.code) == ("UNDETERMINED", "log-cut-off"), run


def test_a_failure_before_the_weights_then_their_buffers_is_one_run():
    # CUDA not initialised, then the weights go on loading into CPU buffers (two buffer lines): one load, not a
    # restart at the second buffer line
    rep = diag("""
        ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected
        llm_load_tensors: ggml ctx size =    0.14 MiB
        llm_load_tensors:        CPU buffer size =  4165.37 MiB
        llm_load_tensors:        CPU buffer size =   281.81 MiB
        llama_new_context_with_model: n_ctx      = 2048
        llama_kv_cache_init:        CPU KV buffer size =   256.00 MiB
    """)
    assert len(rep.runs) == 1, [(r.first_line, r.kind) for r in rep.runs]
    assert run_of(rep).kind == "NOT_OOM"


# --- 9. oneAPI's Unified Runtime results: out of device or host memory is memory, the others are not ---------------

_SYCL_LOAD = """
    llm_load_tensors: offloaded 33/33 layers to GPU
    llm_load_tensors:      SYCL0 buffer size =  4403.49 MiB
    llama_kv_cache_init:      SYCL0 KV buffer size =  1024.00 MiB
"""


@pytest.mark.parametrize("result,oom", [
    # ggml-sycl's SYCL_CHECK on a call that threw (ggml-sycl/common.hpp: "Native API returns: N (NAME)")
    ("39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)", True),
    ("38 (UR_RESULT_ERROR_OUT_OF_HOST_MEMORY)", True),
    ("40 (UR_RESULT_ERROR_OUT_OF_RESOURCES)", False),
    ("20 (UR_RESULT_ERROR_DEVICE_LOST)", False),
])
def test_unified_runtime_results_are_memory_only_when_they_say_so(result, oom):
    run = run_of(diag(_SYCL_LOAD + f"""
        Native API failed. Native API returns: {result}
        Exception caught at file:/src/llama.cpp/ggml/src/ggml-sycl/ggml-sycl.cpp, line:3004, func:operator()
        SYCL error: CHECK_TRY_ERROR(op(ctx, src0, src1, dst)): Exception caught in this line of code.
    """))
    if oom:
        assert run.kind in ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME", "UNDETERMINED") and run.oom is not False, run
        assert run.kind != "NOT_OOM"
    else:
        assert (run.kind, run.code) == ("NOT_OOM", "sycl-runtime-error"), run


def test_a_level_zero_result_in_a_users_words_is_memory():
    # IPEX on an Arc GPU: the Level Zero loader's name for the same result, in a user's sentence
    run = run_of(diag("""
        Loading the 14B model with ipex-llm on the A770 fails right away with ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY.
    """))
    assert run.kind not in ("NONE", "NOT_OOM"), run


# --- 1/3. growth in more words: an onset over time or requests, memory not given back, a count creeping up --------

GROWTH = {
    # vLLM V1 serving, then the onset in a user's words and a kernel kill: a leak of host memory
    "vllm-onset-kill": ("""
        (APIServer pid=1) INFO 03-02 10:00:02 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000
        (APIServer pid=1) INFO:     10.0.0.7:51234 - "POST /v1/completions HTTP/1.1" 200 OK
        After a few hundred requests the API server begins to swap, and the box slows to a crawl.
        [81234.551212] Out of memory: Killed process 3121 (python3) total-vm:80123456kB, anon-rss:60123456kB
    """, "vllm"),
    # llama-server: memory a user says is not given back between requests
    "llamacpp-not-released": ("""
        main: server is listening on http://127.0.0.1:8080 - starting the main loop
        srv  update_slots: all slots are idle
        Host memory is not released when a request finishes; the resident memory remains elevated afterwards.
    """, "llamacpp"),
    # SGLang: the pool's usage creeping up in words, beside one stats line
    "sglang-usage-climbs": ("""
        [2025-09-01 10:00:00 TP0] Decode batch. #running-req: 12, #token: 40312, token usage: 0.41, gen throughput (token/s): 900.12, #queue-req: 0
        With the same 12 clients the token usage keeps climbing hour after hour, though every request completes.
    """, "sglang"),
}


@pytest.mark.parametrize("name", sorted(GROWTH))
def test_growth_in_more_words_is_a_leak(name):
    text, engine = GROWTH[name]
    run = run_of(diag(text))
    assert run.engine == engine, run.engine
    assert (run.kind, run.code) == ("LEAK", "memory-growth-stated"), run


NOT_GROWTH = {
    "released": "Memory is released properly after each request, and RSS goes back to 6 GiB.",
    "supposed": "If the KV cache is not freed after a request, the pool would fill up over time.",
    "asked": "Why does the host memory not get released after a request finishes?",
    "denied-onset": "After 2,000 requests it does not start swapping; resident memory stays flat.",
}


@pytest.mark.parametrize("name", sorted(NOT_GROWTH))
def test_more_growth_words_denied_asked_or_supposed_are_no_leak(name):
    run = run_of(diag("main: server is listening on http://127.0.0.1:8080 - starting the main loop\n"
                      + NOT_GROWTH[name]))
    assert run.kind != "LEAK", run


# --- 5. a failure the text states and no rule places is UNDETERMINED, never a clean bill -------------------------

STATED_FAILURE = {
    # vLLM V0's start-up lines, then the user's words: the crash itself is not in the excerpt
    "vllm-crashes": ("""
        INFO 04-11 08:12:40 llm_engine.py:98] Initializing an LLM engine (v0.4.0) with config: model='mistralai/Mistral-7B-v0.1'
        INFO 04-11 08:13:02 model_runner.py:104] Loading model weights took 13.4966 GB
        The server crashes as soon as a second client connects; nothing more is printed.
    """, "vllm"),
    # TGI's launcher arguments, then a version regression in words
    "tgi-fails-to-start": ("""
        2024-06-02T10:00:00.000000Z  INFO text_generation_launcher: Args { model_id: "tiiuae/falcon-7b", num_shard: Some(1) }
        Since 2.0.4 the launcher fails to start with this model on our L4s; 1.4 still works.
    """, "tgi"),
    # no log at all, only a report
    "prose-only": ("""
        With the 8B at 32k context it can't even run on two 4090s any more, and the same command worked last week.
    """, None),
}


@pytest.mark.parametrize("name", sorted(STATED_FAILURE))
def test_a_stated_failure_no_rule_places_is_undetermined(name):
    text, engine = STATED_FAILURE[name]
    rep = diag(text)
    run = run_of(rep)
    if engine:
        assert rep.engine == engine, rep.engine
    assert (run.kind, run.code) == ("UNDETERMINED", "failure-cause-not-shown"), run


@pytest.mark.parametrize("line", [
    "It has been up for three days and never crashes.",
    "If it fails again I will attach the whole log.",
    "Does it hang for anyone else with this flag?",
])
def test_a_failure_denied_supposed_or_asked_is_no_failure(line):
    run = run_of(diag("main: server is listening on http://127.0.0.1:8080 - starting the main loop\n" + line))
    assert run.kind == "NONE", run


# --- 2. serving stated in words is progress: a host kill then is serving, never the weights ------------------------

@pytest.mark.parametrize("text", [
    "It had been serving requests for six hours when the kernel OOM killer took it down.",
    "The server was handling production traffic all afternoon; then the pod was OOMKilled.",
])
def test_serving_stated_in_words_makes_a_host_kill_serving(text):
    run = run_of(diag(text))
    assert run.kind == "RUNTIME" and run.code == "host-oom-kill", run
