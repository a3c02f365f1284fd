"""`vramdoctor logs` on the kinds of fault the held-out rounds 109 and later (issue 6, stop 27) found, each with logs
of our own in other engines, versions and wordings, and the structure that keeps each engine's knowledge in its own
module. The engines' lines follow their sources (named in `vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import inspect

import pytest

from logcase import diag
from vramdoctor.engines import all_engines
from vramdoctor.logs import diagnose


#: llama-server up and serving, the line other tests' failures follow
_LISTENING = "main: server is listening on http://127.0.0.1:8080 - starting the main loop"


def run_of(rep):
    return rep.runs[0]


# --- one place per engine: what an engine's log says about its device set-up, its context set-up and its own advice
# for a failure lives in its module (LogWords.device_setup, context_setup, not_oom_advice), not in the diagnosis -------


def test_the_diagnosis_spells_no_engines_setup_steps_or_flags():
    src = inspect.getsource(diagnose)
    for word in ("init_worker_distributed_environment", "ncclCommInitRank", "_cuda_setDevice", "llama_context",
                 "llama_init_from_model", "--no-context-shift", "num_ctx"):
        assert word not in src, word
    owners = {e.name for e in all_engines() if e.log.device_setup is not None or e.log.context_setup is not None}
    assert {"vllm", "llamacpp", "generic"} <= owners, owners


_K_SHIFT = "llama.cpp/src/llama-context.cpp:1067: The current context does not support K-shift"


@pytest.mark.parametrize("lines,own,foreign", [
    # KoboldCpp embeds llama.cpp: llama.cpp's advice (its flags), not Ollama's
    (["Welcome to KoboldCpp - Version 1.92", "Load Text Model OK: True",
      "Please connect to custom endpoint at http://localhost:5001", _K_SHIFT], "--no-context-shift", "num_ctx"),
    # llama-cpp-python's server over llama.cpp
    (["INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
      "llama_new_context_with_model: n_ctx      = 4096", "from llama_cpp import Llama", _K_SHIFT],
     "--no-context-shift", "num_ctx"),
    # Ollama's runner: its own settings
    (['time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 msg="llama runner started in 3.02 seconds"',
      _K_SHIFT], "num_ctx", "--no-context-shift"),
])
def test_a_k_shift_is_advised_in_the_settings_of_the_engine_or_the_one_it_wraps(lines, own, foreign):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "k-shift-unsupported"), (run.kind, run.code)
    assert own in run.message and foreign not in run.message, run.message


# --- an engine's allocation site that names its ledger: TurboMind's deviceMalloc (utils/memory_utils.cu) makes the
# weights, its allocator (allocator.h) the KV blocks and buffers ----------------------------------------------------


@pytest.mark.parametrize("text", [
    # a pipeline built in a script, the error quoted in the report's words
    "I load InternVL2-26B with lmdeploy's pipeline() and get `RuntimeError: [TM][ERROR] CUDA runtime error: out of "
    "memory /opt/lmdeploy/src/turbomind/utils/memory_utils.cu:31` on a 48 GB card.",
    # the server's own lines, the traceback cut above the weights' frames
    "\n".join(["2024-08-01 10:00:00,000 - lmdeploy - INFO - input backend=turbomind, backend_config=TurbomindEngineConfig("
               "model_format=None, tp=1, session_len=32768, max_batch_size=128, cache_max_entry_count=0.8)",
               "[TM][WARNING] [LlamaTritonModel] `max_context_token_num` is not set, default to 32768.",
               "Exception in thread Thread-3:",
               "Traceback (most recent call last):",
               '  File "/usr/lib/python3.10/threading.py", line 1016, in _bootstrap_inner',
               "RuntimeError: [TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/"
               "memory_utils.cu:32"]),
])
def test_turbomind_out_of_memory_in_its_device_malloc_is_the_weights(text):
    run = run_of(diag(text))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-alloc-failed"), (run.kind, run.code, run.phase_source)


def test_turbomind_out_of_memory_in_its_allocator_is_not_told_as_the_weights():
    run = run_of(diag("\n".join([
        "2024-08-01 10:00:00,000 - lmdeploy - INFO - input backend=turbomind, backend_config=TurbomindEngineConfig("
        "tp=1, session_len=32768, cache_max_entry_count=0.8)",
        "RuntimeError: [TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/allocator.h:231"])))
    assert run.kind != "WEIGHTS", (run.kind, run.code)


# --- a person's words around a command's name are not its arguments: "when starting vllm serve with tp 4" names no
# model ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("said,model", [
    ("# [Bug]: OOM when starting vllm serve with tp 4", None),
    ("I use vllm serve and it fails after a while.", None),
    ("$ vllm serve Qwen/Qwen3-8B --max-model-len 8192", "Qwen/Qwen3-8B"),
    ("vllm serve mymodel --tensor-parallel-size 2", "mymodel"),
])
def test_the_model_of_a_vllm_serve_command_is_read_only_from_a_command(said, model):
    rep = diag("\n".join([said, "INFO 05-01 10:00:02 [api_server.py:1043] vLLM API server version 0.8.5"]))
    assert run_of(rep).numbers.get("model_name") == model, run_of(rep).numbers


# --- NCCL's out of memory where the frames show its communicators being made, before any weights: the GPU was full
# before the engine began (device set-up), not a warm-up ---------------------------------------------------------------

_TP_INIT = [
    "(VllmWorker rank=1 pid=2231) Traceback (most recent call last):",
    '(VllmWorker rank=1 pid=2231)   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line '
    '132, in init_device',
    "(VllmWorker rank=1 pid=2231)     init_worker_distributed_environment(self.vllm_config, self.rank,",
    '(VllmWorker rank=1 pid=2231)   File "/usr/local/lib/python3.12/dist-packages/vllm/distributed/parallel_state.py", '
    'line 1092, in initialize_model_parallel',
    "(VllmWorker rank=1 pid=2231)     _TP = init_model_parallel_group(group_ranks,"]


@pytest.mark.parametrize("lines", [
    # the error only in the title, the traceback cut before it
    ["# [Bug]: NCCL error: out of memory when starting vllm serve with tp 4",
     "INFO 05-01 10:00:02 [api_server.py:1043] vLLM API server version 0.8.5", *_TP_INIT],
    # the error at the traceback's end, in NCCL's words
    ["INFO 05-01 10:00:02 [api_server.py:1043] vLLM API server version 0.8.5", *_TP_INIT,
     "(VllmWorker rank=1 pid=2231) torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:3356, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
     "(VllmWorker rank=1 pid=2231) ncclUnhandledCudaError: Call to CUDA function failed.",
     "(VllmWorker rank=1 pid=2231) Last error:",
     "(VllmWorker rank=1 pid=2231) Cuda failure 'out of memory'"],
])
def test_nccl_out_of_memory_while_its_communicators_are_made_is_device_setup(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "device-setup-oom"), (run.kind, run.code, run.phase_source)


# --- a flag named in a person's words is in use only where a command gives it: "(no --enforce-eager)" says it is
# not, "--enforce-eager also works" proposes it ------------------------------------------------------------------------


@pytest.mark.parametrize("line,off", [
    ("CUDA graphs: enabled (no --enforce-eager)", None),
    ("Workaround: smaller capture sizes. --enforce-eager also works but cuts throughput ~4x.", None),
    ("Setting --disable-cuda-graph fixed it for me, at some speed.", None),
    ("`--eager-mode` helped, but I would rather keep the graphs.", None),
    ("$ vllm serve Qwen/Qwen3-8B --enforce-eager --max-model-len 8192", True),
    ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disable-cuda-graph", True),
])
def test_a_graphs_flag_in_words_is_not_a_setting_in_use(line, off):
    run = run_of(diag("\n".join([line, "INFO 05-01 10:00:02 [api_server.py:1043] vLLM API server version 0.8.5"])))
    assert run.numbers.get("cuda_graphs_off") is off, run.numbers


# --- NCCL's result codes by every spelling (nccl.h's C names, CuPy's NcclError that Ray's collectives raise) are NCCL
# errors, not memory, also where only the title names them --------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["# [Bug]: NCCL_ERROR_INTERNAL_ERROR with Ray on two nodes",
     "INFO 06-13 07:35:57 [api_server.py:1043] vLLM API server version 0.9.1",
     "INFO:     Application startup complete."],
    ["(RayWorkerWrapper pid=812) cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_UNHANDLED_CUDA_ERROR: unhandled "
     "cuda error"],
    ["[rank1]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or "
     "there was a network error, NCCL version 2.21.5",
     "[rank1]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."],
])
def test_nccl_result_codes_are_nccl_errors(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "nccl-error"), (run.kind, run.code)


# --- PyTorch's dispatcher without a kernel of an operator for this device: a build that does not match, not memory --


@pytest.mark.parametrize("lines", [
    ["[2025-05-14 10:00:00 TP0] Capture cuda graph failed: Could not run 'sgl_kernel::rmsnorm' with arguments from the "
     "'CUDA' backend. This could be because the operator doesn't exist for this backend."],
    ["INFO 05-01 10:00:02 [api_server.py:1043] vLLM API server version 0.8.5",
     "NotImplementedError: Could not run '_C::rms_norm' with arguments from the 'CUDA' backend."],
    ["RuntimeError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. 'torchvision::nms' is only "
     "available for these backends: [CPU, Meta]."],
])
def test_an_operator_without_a_kernel_for_the_device_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "operator-not-available"), (run.kind, run.code)
    assert "reinstall" in " ".join(a["why"] for a in run.advice), run.advice


# --- memory told as overflowing: GPU memory that overflows is out of memory; memory that overflows into system RAM
# goes on (slower), and a buffer, stack or integer overflow, or a check for overflow, is no memory running out ---------

_LLAMA_SERVING = [_LISTENING,
                  "slot launch_slot_: id  0 | task 12 | processing task",
                  "slot print_timing: id  0 | task 12 | prompt processing, n_tokens = 8192, progress = 0.25"]


@pytest.mark.parametrize("said", [
    "Prefilling a long prompt makes VRAM usage grow until it eventually overflows:",
    "Title: GPU memory overflow on long prompts with -fa on",
])
def test_gpu_memory_told_as_overflowing_above_a_serving_log_is_runtime(said):
    run = run_of(diag("\n".join([said, *_LLAMA_SERVING])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("said", [
    "When VRAM overflows into shared GPU memory the speed drops to 3 t/s.",
    "A heap buffer overflow in memory handling of the tokenizer was fixed upstream.",
    "[2026-04-04 01:58:52.301] [error] [LM Studio] Not using full context length for VRAM overflow calculations",
])
def test_overflow_that_is_not_memory_running_out_is_not_an_out_of_memory(said):
    run = run_of(diag("\n".join([said, *_LLAMA_SERVING])))
    assert run.oom is not True and run.kind not in ("RUNTIME", "WEIGHTS", "KV_CAPACITY", "WARMUP"), (run.kind, run.code)


# --- memory told as not given back after each request: a leak --------------------------------------------------------


@pytest.mark.parametrize("said", [
    "Title: Ollama not freeing and eventually running out of memory",
    "It looks like VRAM isn't released between requests; after ~200 chats the server OOMs.",
    "The server never frees memory after each completion, so a long benchmark ends in OOM.",
])
def test_memory_not_given_back_after_each_request_is_a_leak(said):
    run = run_of(diag("\n".join([said, 'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 '
                                       'msg="llama runner started in 3.02 seconds"',
                                 '[GIN] 2025/06/01 - 10:00:07 | 200 |  5.1s |       127.0.0.1 | POST     "/api/chat"'])))
    assert run.kind == "LEAK", (run.kind, run.code)


# --- a host kill the report places at the load of the model or of its parts (a multimodal projector is weights) ------


@pytest.mark.parametrize("said", [
    "The kernel OOM killer fires at projector load time, before any image is processed.",
    "The process gets OOM-killed while loading the mmproj, every time.",
    "Killed by the OOM killer at model load time, nothing was served.",
])
def test_a_host_kill_told_at_load_time_is_the_weights_inferred(said):
    run = run_of(diag("\n".join(["main: build = 5120 (a1b2c3d4)", "llama_model_loader: loaded meta data with 30 "
                                 "key-value pairs and 399 tensors from qwen-vl.gguf (version GGUF V3 (latest))", said])))
    assert (run.kind, run.inferred) == ("WEIGHTS", True), (run.kind, run.code, run.inferred)


def test_trt_llms_profiling_verbosity_is_no_profiling_step():
    run = run_of(diag("\n".join([
        "The engine loads but then goes OOM on a 15k-token input.",
        "[TensorRT-LLM][INFO] Loaded engine size: 15388 MiB",
        "[TensorRT-LLM][INFO] The profiling verbosity of the engine does not allow this analysis to proceed. Re-build "
        "the engine with 'detailed' profiling verbosity to get more diagnostics.",
        "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 37812.51 MiB for execution context memory."])))
    assert run.code != "profile-run-oom", (run.kind, run.code, run.phase_source)


# --- vLLM V1 warms its sampler up after the graphs are captured (gpu_worker.py compile_or_warm_up_model): an
# out-of-memory straight after "Graph capturing finished", nothing of serving between, is that warm-up --------------

_V1_CAPTURED = [
    "(EngineCore_0 pid=51) INFO 10-29 19:56:50 [kv_cache_utils.py:1087] GPU KV cache size: 426,800 tokens",
    "(Worker_TP0 pid=260) INFO 10-29 19:57:20 [gpu_model_runner.py:3480] Graph capturing finished in 28 secs, took "
    "1.88 GiB",
    "(Worker_TP1 pid=261) INFO 10-29 19:57:20 [gpu_model_runner.py:3480] Graph capturing finished in 28 secs, took "
    "1.88 GiB"]
_V1_OOM = ("(Worker_TP1 pid=261) ERROR 10-29 19:57:21 [multiproc_executor.py:671] torch.OutOfMemoryError: CUDA out "
           "of memory. Tried to allocate 1.16 GiB. GPU 1 has a total capacity of 23.57 GiB of which 402.19 MiB is free.")


def test_an_oom_straight_after_v1s_graph_capture_is_the_sampler_warmup():
    run = run_of(diag("\n".join([*_V1_CAPTURED, _V1_OOM])))
    assert (run.kind, run.code, run.inferred) == ("WARMUP", "sampler-warmup-oom", True), (run.kind, run.code)


def test_the_same_oom_told_above_a_log_cut_after_the_capture_is_the_sampler_warmup():
    run = run_of(diag("\n".join(["With v0.11.0 it reports that the graphics card memory is insufficient:",
                                 *_V1_CAPTURED, "(Worker_TP1 pid=261) ERROR 10-29 19:57:21 [multiproc_executor.py:671] "
                                                "WorkerP"])))
    assert (run.kind, run.code) == ("WARMUP", "sampler-warmup-oom"), (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("between", [
    # the engine's own line that its whole warm-up is done
    ["(EngineCore_0 pid=51) INFO 10-29 19:57:22 [core.py:210] init engine (profile, create kv cache, warmup model) "
     "took 45.20 seconds"],
    # the server up
    ["(APIServer pid=1) INFO 10-29 19:57:25 [api_server.py:1920] Starting vLLM API server 0 on http://0.0.0.0:8000"],
])
def test_after_the_warmups_end_or_the_server_start_the_sampler_is_no_longer_told(between):
    run = run_of(diag("\n".join([*_V1_CAPTURED, *between, _V1_OOM])))
    assert run.code != "sampler-warmup-oom", (run.kind, run.code, run.phase_source)


def test_v0s_capture_is_the_end_of_its_warmup():
    run = run_of(diag("\n".join([
        "INFO 06-01 10:00:00 [worker.py:267] the current vLLM instance can use total_gpu_memory (23.57GiB) x "
        "gpu_memory_utilization (0.90) = 21.21GiB",
        "INFO 06-01 10:00:30 [model_runner.py:1562] Graph capturing finished in 30 secs, took 0.53 GiB",
        "ERROR 06-01 10:00:31 [engine.py:400] CUDA out of memory. Tried to allocate 1.16 GiB."])))
    assert run.code != "sampler-warmup-oom", (run.kind, run.code, run.phase_source)


# --- CUDA could not load a kernel's module: with lazy loading a full GPU fails this way, so it is not told as "not
# memory"; it is undetermined, with the phase it would be and the run that settles it (CUDA_MODULE_LOADING=EAGER) ----


@pytest.mark.parametrize("lines,phase", [
    (["[54881] llama_kv_cache: CUDA0 KV buffer size = 16384.00 MiB",
      "[54881] common_init_: warming up the model with an empty run - please wait ... (--no-warmup to disable)",
      "[54881] CUDA error: shared object initialization failed",
      "[54881] ggml-cuda.cu:107: CUDA error"], "WARMUP"),
    (["INFO 05-01 10:00:09 [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000",
      "INFO:     127.0.0.1:40112 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
      "ERROR 05-01 10:03:12 [core.py:720] RuntimeError: CUDA error: cudaErrorSharedObjectInitFailed"], "RUNTIME"),
    (["[TensorRT-LLM][ERROR] CUDA driver error in loadModule: CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"], None),
])
def test_a_kernel_module_that_could_not_load_is_undetermined_not_told_as_not_memory(lines, phase):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "cuda-module-load-failed"), (run.kind, run.code)
    assert "CUDA_MODULE_LOADING=EAGER" in run.message
    if phase:
        assert run.candidates == [phase], run.candidates


# --- code's words are no request: "at the same call site", "the first call stack" -----------------------------------


@pytest.mark.parametrize("said", [
    "The crash is identical at the same call site across both runs.",
    "Looking at the first call stack, it dies in ggml_cuda_flash_attn_ext.",
])
def test_a_call_site_is_no_request(said):
    run = run_of(diag("\n".join([said, "[54881] common_init_: warming up the model with an empty run - please wait "
                                       "... (--no-warmup to disable)", "[54881] CUDA error: out of memory"])))
    assert "requests" not in run.progress, run.progress
    assert run.kind == "WARMUP", (run.kind, run.code, run.phase_source)


# --- "after `warming up ...`" quotes the engine's line of a step starting: the step under way, not passed ------------


@pytest.mark.parametrize("said", [
    "Both instances died immediately after `warming up the model with an empty run`:",
    "It crashes right after 'Capturing CUDA graphs (mixed prefill-decode, PIECEWISE)' shows up.",
])
def test_a_quoted_step_starting_is_not_a_step_passed(said):
    from vramdoctor.logs.phase import passed_step
    assert passed_step(said) is None, said


def test_a_step_after_it_finished_is_still_passed():
    from vramdoctor.logs.phase import passed_step
    assert passed_step("It crashes right after warmup finished, on the first request.") == "RUNTIME"


# --- a count of held things reached (Metal's buffers) that the report tells of as a leak: a leak ----------------------


@pytest.mark.parametrize("lines", [
    ["Title: Metal buffer-handle leak: [metal::malloc] Resource limit (499000) exceeded after ~2 h of traffic",
     "INFO:     Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)"],
    ["mlx_lm.server leaks buffers: after a day of requests it dies with",
     "libc++abi: terminating due to uncaught exception of type std::runtime_error: [metal::malloc] Resource limit "
     "(499000) exceeded."],
])
def test_metals_buffer_count_reached_with_a_leak_told_is_a_leak(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("LEAK", "metal-buffer-leak"), (run.kind, run.code)


def test_metals_buffer_count_reached_without_a_leak_told_stays_a_count():
    run = run_of(diag("\n".join([
        "Generating with a 120k-token context, not a leak as far as I can tell:",
        "libc++abi: terminating due to uncaught exception of type std::runtime_error: [metal::malloc] Resource limit "
        "(499000) exceeded."])))
    assert (run.kind, run.code) == ("NOT_OOM", "metal-resource-limit"), (run.kind, run.code)


# --- a Rust panic's message on the line after it (Rust 1.73+, the thread's id since 1.88) or quoted on it (older): the
# panic names its cause -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["2025-06-01T10:00:00.000000Z  INFO text_generation_router: router/src/main.rs:500: Serving revision 1a2b",
     "thread 'tokio-runtime-worker' panicked at /usr/src/router/src/server.rs:180:45:",
     "byte index 1000 is not a char boundary; it is inside '\u4f60' (bytes 999..1002)",
     "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"],
    ["svc-1  | thread 'main' (75) panicked at src/utils/kvcache_allocator.rs:539:13:",
     "svc-1  | fp8 kvcache is not compatible with flashinfer or flash-context feature!",
     "svc-1  | stack backtrace:"],
    ["thread 'main' panicked at 'index out of bounds: the len is 3 but the index is 5', src/pipeline/mod.rs:88:17"],
])
def test_a_rust_panic_with_its_message_names_its_cause(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "error-not-memory"), (run.kind, run.code, run.missing)


# --- assertions as C's assert() prints them, or as a report names the GGML_ASSERT that failed: not memory unless the
# condition speaks of it ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("line,code", [
    ("llama-server: /src/llama-sampler.cpp:2686: void llama_sampler_penalties_apply(llama_sampler*, "
     "llama_token_data_array*): Assertion `count > 0 && count <= ctx->penalty_last_n' failed.", "assertion-failed"),
    ("koboldcpp: otherarch/ggml_v3.c:9011: ggml_v3_compute_forward_rope_f16: Assertion `ne2 == n_dims' failed.",
     "assertion-failed"),
    ("At the first prompt it crashes on a failed assert: GGML_ASSERT(max_blocks_per_sm > 0);", "ggml-assert"),
])
def test_an_assertion_on_a_condition_without_memory_words_is_not_memory(line, code):
    run = run_of(diag("\n".join([_LISTENING,
                                 line])))
    assert (run.kind, run.code) == ("NOT_OOM", code), (run.kind, run.code)


def test_an_assertion_on_a_buffer_is_not_told_as_not_memory():
    run = run_of(diag("\n".join([_LISTENING,
                                 "ggml-backend.c:1200: ggml_backend_alloc: Assertion `buf != NULL && \"failed to "
                                 "allocate buffer\"' failed."])))
    assert run.kind != "NOT_OOM", (run.kind, run.code)


# --- NCCL's own strings for its errors, NCCL's debug lines as the program's (not a person's) lines, NIXL's KV
# transfer errors, a compiler's missing header ---------------------------------------------------------------------


@pytest.mark.parametrize("lines,code", [
    (["# [Bug]: unhandled system error with NCCL on 0.5.0",
      "(RayWorkerWrapper pid=67451) ERROR 06-25 15:28:30 worker_base.py:148]     self.model_runner.profile_run()"],
     "nccl-error"),
    (["(VllmWorker rank=0 pid=300) ERROR 03-01 10:00:00 [nixl_connector.py:900] nixl._bindings.nixlBackendError: "
      "NIXL_ERR_BACKEND"], "communication-error"),
    (["[TensorRT-LLM][ERROR] KV cache transfer failed: NIXL_ERR_REMOTE_DISCONNECT"], "communication-error"),
    (["[2025-04-10 10:00:00 TP0] Scheduler hit an exception: RuntimeError: Error building extension "
      "'batch_prefill_with_kv_cache'", "/tmp/flashinfer/prefill.cu:20:10: fatal error: cuda_fp8.h: No such file or "
                                       "directory"], "kernel-build-failed"),
    (["In file included from csrc/quantization/fp8.cu:3:", "csrc/quantization/fp8.cu:3:10: fatal error: "
                                                            "'cuda_bf16.h' file not found"], "kernel-build-failed"),
])
def test_errors_that_name_a_cause_other_than_memory(lines, code):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", code), (run.kind, run.code)


def test_ncclss_cut_out_of_memory_warning_is_the_programs_line_and_decides_over_its_unhandled_cuda_error():
    run = run_of(diag("\n".join([
        "gpu01:1:110 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/direct pointer",
        "gpu01:1:107 [1] include/alloc.h:228 NCCL WARN Cuda failure 2 'out of me",
        "gpu01:1:103 [0] NCCL INFO Channel 01/04 : 0 1",
        "CUDA error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)"])))
    assert run.oom is True and run.code == "nccl-buffers-oom", (run.kind, run.code)


# --- a tracker's tag before a title that starts with a version ("[Bug]: 0.11.0rc0 qwen3-235B OOM"), and requests told
# in other words (a prompt sent, requests served, "inferrence") ------------------------------------------------------


@pytest.mark.parametrize("title", ["[Bug]: 0.9.2 OOM with 2xA100 after a long prompt", "[Bug] 2 GPUs run out of memory"])
def test_a_tagged_title_starting_with_a_number_is_the_reports_title(title):
    run = run_of(diag("\n".join([title, "", "```",
                                 "INFO 06-01 10:00:00 [loggers.py:127] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
                                 "Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%",
                                 "ERROR 06-01 10:02:00 [multiproc_executor.py:671] WorkerProc hit an exception."])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("said", [
    "When prompting for inferrence (asking about an image), ollama crashed with OOM.",
    "After the cluster serves requests for a period of time, the worker runs out of memory.",
    "The last node runs out of memory during continuous inference requests.",
])
def test_requests_told_in_other_words_place_an_oom_while_serving(said):
    run = run_of(diag("\n".join([said, "", "time=2025-03-18T10:45:15.105+08:00 level=INFO source=sched.go:508 "
                                           "msg=\"updated VRAM based on existing loaded models\" library=cuda"])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


# --- LM Studio's load estimate (its log's block: the context asked for, each ledger's size by its estimate) is read,
# and the guardrail's refusal is advised by the larger ledger first; a line that is an engine's message by itself is
# not joined onto the line before it ----------------------------------------------------------------------------------

_LMS_ESTIMATE = ["[2026-04-04 01:58:52.300] [error] [LM Studio] Model load size estimate with raw num offload layers "
                 "'max' and context length '{ctx}':", "  Model: {w} GB", "  Context: {kv} GB", "  Total: 99.00 GB"]
_LMS_REFUSED = ["\U0001F972 Failed to load the model",
                "Model loading was stopped due to insufficient system resources. Under the current settings, this "
                "model requires approximately 99.0 GB of memory"]


@pytest.mark.parametrize("w,kv,first", [("34.85", "73.60", "a shorter context"), ("70.10", "12.40", "a smaller quant")])
def test_lm_studios_estimate_orders_the_guardrails_advice(w, kv, first):
    lines = [x.format(ctx=262144, w=w, kv=kv) for x in _LMS_ESTIMATE] + _LMS_REFUSED
    run = run_of(diag("\n".join(lines)))
    assert run.code == "guardrail-refused-load", (run.kind, run.code)
    assert run.numbers["max_model_len"] == 262144 and run.numbers["estimate_kv_bytes"] == round(float(kv) * 2**30)
    assert run.advice[0]["change"] == first, run.advice
    assert all(e["text"].startswith("Model loading was stopped") for e in run.evidence), run.evidence


def test_an_estimate_block_of_another_engine_is_not_lm_studios():
    run = run_of(diag("\n".join(["INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
                                 "  Model: 34.85 GB", "  Context: 73.60 GB"])))
    assert "estimate_kv_bytes" not in run.numbers, run.numbers


# --- a log pasted into a logged prompt: its start lines start no run and its figures are not the server's, once the
# prompt's close comes (also after the prompt's last words on the same line) ------------------------------------------

_SERVER = ["INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
           "INFO 06-01 10:00:05 [gpu_model_runner.py:1500] Model loading took 14.99 GiB and 6.1 seconds",
           "INFO 06-01 10:00:09 [kv_cache_utils.py:1087] GPU KV cache size: 426,800 tokens",
           "INFO 06-01 10:00:20 [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000",
           "INFO 06-01 10:01:00 [logger.py:43] Received request chatcmpl-1d0f: prompt: '<|user|>Why does my server "
           "print this?"]
_STATS = ("INFO 06-01 10:01:05 [loggers.py:127] Engine 000: Avg prompt throughput: 120.0 tokens/s, Running: 1 reqs, "
          "GPU KV cache usage: 1.0%")


@pytest.mark.parametrize("pasted", [
    ["INFO 05-01 09:00:00 [api_server.py:1043] vLLM API server version 0.4.0",
     "INFO 05-01 09:00:05 [worker.py:100] Loading model weights took 30.50 GiB",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."],
    ["INFO 05-01 09:00:09 [kv_cache_utils.py:1087] GPU KV cache size: 1,000 tokens",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."],
])
@pytest.mark.parametrize("close", ["<|assistant|>', params: SamplingParams(n=1, temperature=0.0, max_tokens=512)",
                                   "', params: SamplingParams(n=1, temperature=0.0, max_tokens=512)"])
def test_a_log_pasted_into_a_logged_prompt_is_not_the_servers(pasted, close):
    rep = diag("\n".join([*_SERVER, *pasted, close, _STATS]))
    assert len(rep.runs) == 1, [(r.first_line, r.kind) for r in rep.runs]
    run = rep.runs[0]
    assert run.kind == "NONE", (run.kind, run.code)
    assert (run.numbers.get("engine_version"), run.numbers.get("kv_pool_tokens")) == ("0.9.1", 426800), run.numbers
    assert "failed_alloc_bytes" not in run.numbers, run.numbers


def test_a_restart_after_a_prompt_closed_on_its_own_line_is_a_new_run():
    rep = diag("\n".join([*_SERVER[:4],
                          "INFO 06-01 10:01:00 [logger.py:43] Received request chatcmpl-1: prompt: 'Hi', params: "
                          "SamplingParams(n=1)",
                          "INFO 06-01 11:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
                          "INFO 06-01 11:00:05 [gpu_model_runner.py:1500] Model loading took 14.99 GiB and 6.1 seconds",
                          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]))
    assert len(rep.runs) == 2 and rep.runs[1].oom is True, [(r.first_line, r.kind) for r in rep.runs]


# --- a GPU that stopped answering, in other drivers' words: Mesa's radv "context is lost", NVIDIA's Xid faults (31 an
# MMU fault, an illegal address; 45 the clean-up after a kill, which may be the OOM killer's, is none of them) ---------


@pytest.mark.parametrize("line,code", [
    ("radv/amdgpu: The CS has been cancelled because the context is lost. This context is innocent.", "gpu-device-lost"),
    ("May 15 08:57:36 host kernel: NVRM: Xid (PCI:0000:01:00): 62, pid=1234, name=llama-server, 0000a4e8", "gpu-device-lost"),
    ("dmesg shows Xid 43 on every crash of the runner", "gpu-device-lost"),
    ("May 15 08:57:36 host kernel: NVRM: Xid (PCI:0000:01:00): 31, pid=80798, name=llama-server, Ch 00000008. MMU Fault",
     "illegal-memory-access"),
])
def test_a_gpu_fault_by_its_drivers_words_is_not_memory(line, code):
    run = run_of(diag("\n".join([_LISTENING, line])))
    assert (run.kind, run.code) == ("NOT_OOM", code), (run.kind, run.code)


def test_xid_45_is_no_gpu_fault_of_its_own():
    run = run_of(diag("\n".join([_LISTENING,
                                 "May 15 08:57:36 host kernel: NVRM: Xid (PCI:0000:01:00): 45, pid=1234, Ch 00000008"])))
    assert run.code != "gpu-device-lost", (run.kind, run.code)


# --- the report's title names a failure that is not memory, and an out-of-memory is only a person's side remark ------


def test_a_titles_non_memory_failure_outranks_a_side_remark_of_oom():
    run = run_of(diag("\n".join([
        "# Eval bug: Vulkan Device lost hosting Gemma-4-31B on llama-server", "",
        _LISTENING,
        "After about 80k tokens of context it crashed. The ROCm backend seems to also crash but instead gets OOM "
        "issues, not sure if that is a ROCm bug."])))
    assert (run.kind, run.code) == ("NOT_OOM", "gpu-device-lost"), (run.kind, run.code)


# --- C++'s uncaught exception: its what() above the abort is the cause ------------------------------------------------


@pytest.mark.parametrize("what,kind", [
    ("  what():  Expected an MLIR object (got [<OpResult object at 0x7f72f4382db0>])", "NOT_OOM"),
    ("  what():  std::bad_function_call", "NOT_OOM"),
])
def test_a_cpp_exceptions_what_above_an_abort_names_the_cause(what, kind):
    run = run_of(diag("\n".join([
        "[2026-01-10 10:00:00 TP0] Capture cuda graph begin. This can take up to several minutes.",
        "terminate called after throwing an instance of 'nanobind::builtin_exception'", what, "",
        "Fatal Python error: Aborted"])))
    assert run.kind == kind, (run.kind, run.code, run.missing)


# --- SYCL's older Plugin Interface results by name: not memory; its unknown one (-999) names nothing: maybe memory
# (stop 35: Level Zero's catch-all, which an allocation past an Intel GPU's memory gives too) --------------------------


@pytest.mark.parametrize("line, want", [
    ("Native API failed. Native API returns: -999 (Unknown PI error)Exception caught at file:ggml-sycl.cpp, line:14714",
     ("UNDETERMINED", "sycl-unknown-error")),
    ("terminate called after throwing an instance of 'sycl::_V1::runtime_error'  what():  PI_ERROR_INVALID_VALUE",
     ("NOT_OOM", "sycl-runtime-error")),
])
def test_sycl_plugin_interface_errors_by_name_are_not_memory(line, want):
    run = run_of(diag("\n".join(["ggml_sycl_init: found 1 SYCL devices:", line])))
    assert (run.kind, run.code) == want, (run.kind, run.code)


# --- llama-cli's lines after its warm-up (threadpool, sampler) and its prompt being read ("generate: n_ctx = ...") ----


def test_llama_clis_sampler_lines_end_the_warmup_and_generate_is_its_request():
    head = ["llama_kv_cache: SYCL0 KV buffer size = 4096.00 MiB",
            "common_init_from_params: warming up the model with an empty run - please wait ... (--no-warmup to disable)",
            "main: llama threadpool init, n_threads = 4", "sampler seed: 3140513417"]
    cut = run_of(diag("\n".join(["Title: SYCL out of memory with a 40k-token prompt", *head])))
    # (the title's "with a 40k-token prompt" names the request since stop 49: RUNTIME itself, or among the candidates)
    assert cut.kind != "WARMUP" and (cut.kind == "RUNTIME" or "RUNTIME" in cut.candidates), (cut.kind, cut.candidates)
    run = run_of(diag("\n".join([*head, "generate: n_ctx = 65536, n_batch = 2048, n_predict = -1, n_keep = 1",
                                 "ggml_sycl: out of memory while processing the prompt"])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


# --- one buffer past a driver's single-allocation cap is told as that, not as memory running out ----------------------


def test_a_buffer_past_the_allocation_cap_is_not_told_as_memory_running_out():
    run = run_of(diag("ggml_vulkan: Requested buffer size exceeds device memory allocation limit: ErrorOutOfDeviceMemory"))
    assert run.code == "buffer-exceeds-allocation-limit" and not run.message.startswith("Memory ran out"), run.message


# --- where the failure is only named, the function it names narrows the phase; a request in the same sentence places
# it while serving; a failure the report names is not "where the log begins" ----------------------------------------


def test_the_function_a_failure_is_said_to_come_from_narrows_its_phase():
    run = run_of(diag("\n".join(["# Crash due to unhandled exception from ggml_vk_allocate in llama_kv_cache_init", "",
                                 "### System Info", "GPT4All 3.4.2, Windows 11, Radeon 780M"])))
    assert run.kind == "UNDETERMINED" and run.candidates == ["KV_CAPACITY"], (run.kind, run.candidates)


def test_a_request_in_the_sentence_of_the_failure_places_it_while_serving():
    run = run_of(diag("\n".join([
        "# [Regression] Running out of memory under ROCm", "",
        "However, after this commit, even saying \"Hello\" will lead to the previously mentioned out of memory error."])))
    assert run.kind == "RUNTIME" and run.inferred, (run.kind, run.code, run.phase_source)


def test_a_failure_the_report_names_above_its_lines_is_not_where_the_log_begins():
    run = run_of(diag("\n".join(["# Out of memory with the 70B model", "", "### System Info",
                                 "ROCm 6.2, two RX 7900 XTX", "Linux 6.8"])))
    assert "begins at the failure" not in run.missing, run.missing


# --- review (stop 27): a report's text above its log, in any language, is about the run its log shows ----------------


@pytest.mark.parametrize("said", [
    "使用 lmdeploy serve api_server 部署 Qwen2-VL-7B，请求量稳定，但是显存一直缓慢增长，第一天 19G，第三天 23G，最后 OOM 退出。",
    "vllm serve Qwen2-7B 部署后，显存每天都在增长，第三天 OOM 退出。",
])
def test_a_reports_words_above_its_log_do_not_make_a_run_of_their_own(said):
    rep = diag("\n".join(["# lmdeploy 0.6.2 服务运行几天后显存一直缓慢增长", "", said, "",
                          "2024-11-20 10:00:00,000 - lmdeploy - INFO - async_engine.py:142 - input backend=pytorch, "
                          "backend_config=PytorchEngineConfig(cache_max_entry_count=0.5, session_len=8192)",
                          "INFO:     Application startup complete.",
                          'INFO:     10.1.1.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']))
    assert len(rep.runs) == 1 and rep.runs[0].kind == "LEAK", [(r.first_line, r.kind) for r in rep.runs]
    assert any(e["text"].startswith("# lmdeploy 0.6.2") for e in rep.runs[0].evidence), rep.runs[0].evidence


# --- a server stopped by hand after it served: its KeyboardInterrupt is no failure ---------------------------------


@pytest.mark.parametrize("served,kind", [
    (['INFO:     127.0.0.1:50000 - "POST /v1/completions HTTP/1.1" 200 OK', "^CINFO:     Shutting down",
      "INFO:     Application shutdown complete."], "NONE"),
    (['[2025-03-01 10:00:05] INFO:     127.0.0.1:40112 - "POST /generate HTTP/1.1" 200 OK'], "NONE"),
])
def test_a_server_stopped_by_hand_after_it_served_did_not_fail(served, kind):
    run = run_of(diag("\n".join(["INFO 03-03 09:00:00 [api_server.py:981] vLLM API server version 0.8.1",
                                 "INFO:     Application startup complete.", *served, "Traceback (most recent call last):",
                                 '  File "/usr/lib/python3.12/asyncio/runners.py", line 118, in run',
                                 "    return self._loop.run_until_complete(task)", "KeyboardInterrupt"])))
    assert (run.kind, run.code) == (kind, "stopped-by-hand"), (run.kind, run.code)


def test_a_server_interrupted_while_it_loaded_is_not_told_healthy():
    run = run_of(diag("\n".join(["INFO 03-03 09:00:00 [api_server.py:981] vLLM API server version 0.8.1",
                                 "Loading safetensors checkpoint shards:  40% Completed | 2/5", "^CTraceback (most recent "
                                 "call last):", "KeyboardInterrupt"])))
    assert run.code != "stopped-by-hand", (run.kind, run.code)


# --- mistral.rs loading its layers: a failure under its bar is the weights ------------------------------------------


@pytest.mark.parametrize("bar,kind", [("Loading repeating layers: [############>---------]  22/40", "WEIGHTS"),
                                      ("Loading repeating layers: [######################]  40/40", None)])
def test_mistralrs_layers_bar_places_a_failure_under_it(bar, kind):
    run = run_of(diag("\n".join([
        "2025-01-15T09:00:02.000Z  INFO mistralrs_core::pipeline::normal: Loading model `mistralai/Mistral-Small-24B` on "
        "cuda[0].", bar, "thread 'main' panicked at mistralrs-core/src/pipeline/normal.rs:404:18:",
        "called `Result::unwrap()` on an `Err` value: Cuda(Cuda(DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")))"])))
    if kind:
        assert run.kind == kind, (run.kind, run.code, run.phase_source)
    else:
        assert "weights_done" in run.progress and run.kind != "WEIGHTS", (run.kind, run.progress)


# --- readings that rise by gigabytes near the GPU's top are a leak, though less than a fifth; a stated leak's message
# does not deny readings the log has ------------------------------------------------------------------------------------


def test_readings_rising_by_gigabytes_near_a_full_gpu_are_a_leak():
    run = run_of(diag("\n".join(["nvidia-smi --query-gpu=timestamp,memory.used --format=csv -l 3600",
                                 "timestamp, memory.used [MiB]", "2024/11/01 00:00:01.000, 71210 MiB",
                                 "2024/11/01 06:00:01.000, 73020 MiB", "2024/11/01 12:00:01.000, 75411 MiB",
                                 "2024/11/01 18:00:01.000, 77802 MiB",
                                 'INFO:     10.0.0.9:40012 - "POST /v1/completions HTTP/1.1" 200 OK'])))
    assert (run.kind, run.code) == ("LEAK", "memory-growth-reported"), (run.kind, run.code)


def test_readings_that_barely_move_are_no_leak_of_their_own():
    run = run_of(diag("\n".join(["timestamp, memory.used [MiB]", "2024/11/01 00:00:01.000, 71210 MiB",
                                 "2024/11/01 06:00:01.000, 71300 MiB", "2024/11/01 12:00:01.000, 71250 MiB",
                                 'INFO:     10.0.0.9:40012 - "POST /v1/completions HTTP/1.1" 200 OK'])))
    assert run.kind != "LEAK", (run.kind, run.code)


# --- no GPU at all: no advice to move layers to it or add GPUs; host RAM for the layers kept on the CPU is not fixed by
# more GPUs ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ['time=2024-10-20T13:45:00.010+02:00 level=INFO source=types.go:107 msg="inference compute" id=0 library=cpu '
     'variant=avx2 compute="" driver=0.0 name="" total="15.5 GiB" available="12.1 GiB"',
     'time=2024-10-20T13:46:10.220+02:00 level=WARN source=server.go:136 msg="model request too large for system" '
     'requested="41.5 GiB" available=16615817216 total="15.5 GiB" free="12.1 GiB" swap="3.4 GiB"'],
    ["warning: no usable GPU found, --gpu-layers option will be ignored",
     "llm_load_print_meta: model size       = 69.82 GiB (8.50 BPW)",
     "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 74968325120",
     "llama_model_load: error loading model: unable to allocate backend buffer"],
])
def test_no_gpu_gets_no_gpu_advice(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.code)
    changes = [a["change"] for a in run.advice]
    assert not any("GPU" in c for c in changes), changes


def test_host_ram_for_the_layers_kept_on_the_cpu_is_not_fixed_by_more_gpus():
    run = run_of(diag("\n".join([
        "llama-server -m /models/Meta-Llama-3.1-70B-Instruct-Q8_0.gguf -c 4096 -ngl 20 --no-mmap",
        "ggml_cuda_init: found 1 CUDA devices:", "llm_load_print_meta: model size       = 69.82 GiB (8.50 BPW)",
        "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 52968325120",
        "llama_model_load: error loading model: unable to allocate backend buffer"])))
    changes = [a["change"] for a in run.advice]
    assert "more GPUs" not in changes and "more layers on the GPU" in changes, changes


# --- a LoRA adapter loaded while serving that ran out of memory: fewer or smaller adapters, not shorter prompts ------


@pytest.mark.parametrize("frames", [
    ['  File "/usr/local/lib/python3.12/dist-packages/vllm/lora/worker_manager.py", line 126, in _load_adapter',
     "    lora = self._lora_model_cls.from_local_checkpoint("],
    ['  File "/sgl-workspace/sglang/python/sglang/srt/lora/lora_manager.py", line 190, in load_lora_adapter',
     "    self.memory_pool.load_lora_weight_to_buffer("],
])
def test_a_lora_adapter_loaded_while_serving_gets_adapter_advice(frames):
    run = run_of(diag("\n".join([
        "INFO 06-01 10:00:00 [api_server.py:1044] args: Namespace(enable_lora=True, max_lora_rank=256, max_loras=32)",
        "INFO:     Application startup complete.", 'INFO:     10.0.0.1:1111 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
        "Traceback (most recent call last):", *frames,
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB."])))
    assert (run.kind, run.code) == ("RUNTIME", "lora-load-oom"), (run.kind, run.code)
    changes = [a["change"] for a in run.advice]
    assert changes[0] == "fewer adapters at once" and "shorter requests first" not in changes, changes


# --- advice checked against the log's own figures: a buffer that fit in what was free names another holder, and no
# higher fraction is offered where the weights fill the GPU past any fraction ---------------------------------------


def test_a_layer_buffer_that_fit_in_what_was_free_is_not_sized_down_from_those_figures():
    run = run_of(diag("\n".join([
        'time=2025-02-01T10:00:00.000Z level=INFO source=memory.go:356 msg="offload to cuda" layers.requested=-1 '
        'layers.model=65 layers.offload=65 layers.split="" memory.available="[22.75 GiB]" memory.gpu_overhead="0 B" '
        'memory.required.full="21.90 GiB" memory.required.partial="21.90 GiB" memory.required.kv="2.00 GiB" '
        'memory.weights.total="18.50 GiB"',
        "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3090) - 23296 MiB free",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 18432.00 MiB on device 0: cudaMalloc failed: out of "
        "memory",
        "llama_model_load: error loading model: unable to allocate CUDA0 buffer"])))
    first = run.advice[0]
    assert first["change"] == "fewer layers on the GPU" and "fit in the" in first["why"], first
    assert first["value"] is None, first


def test_no_higher_fraction_where_the_weights_fill_the_gpu():
    run = run_of(diag("\n".join([
        "INFO 03-01 10:00:00 [api_server.py:1043] vLLM API server version 0.7.3",
        "INFO 03-01 10:00:00 [api_server.py:1044] args: Namespace(model='google/gemma-2-27b-it', "
        "gpu_memory_utilization=0.95, max_model_len=4096)",
        "INFO 03-01 10:00:20 [model_runner.py:1115] Loading model weights took 25.14 GiB",
        "INFO 03-01 10:00:25 [worker.py:267] Memory profiling takes 4.1 seconds; the current vLLM instance can use "
        "total_gpu_memory (23.65GiB) x gpu_memory_utilization (0.95) = 22.47GiB",
        "ERROR 03-01 10:00:26 [engine.py:400] ValueError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine."])))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)
    assert "more memory for the pool" not in [a["change"] for a in run.advice], run.advice


# --- a wrapper's line that only says it failed, then the traceback it logs with the cause at its end: that cause --------


@pytest.mark.parametrize("cause,kind", [
    (['  File "/venv/lib/python3.12/site-packages/exllamav3/modules/gated_delta_net_fn/gated_delta_rule.py", line 125, '
      'in gated_delta_rule_fn', "    assert not history", "           ^^^^^^^^^^^", "AssertionError"], "NOT_OOM"),
    (['  File "/venv/lib/python3.12/site-packages/exllamav2/generator/dynamic.py", line 900, in iterate',
      "    job.prepare_for_queue(self, self.job_serial)", "ValueError: Job requires 33 pages (only 32 available)"],
     None),
])
def test_a_wrappers_failure_is_read_through_to_the_cause_it_logs_later(cause, kind):
    run = run_of(diag("\n".join([
        "2026-05-25 22:48:51.163 ERROR:    FATAL ERROR with generation. Attempting to recreate the generator. If this "
        "fails, please restart the server.", "", "2026-05-25 22:48:51.169 ERROR:    Error Traceback (most recent call "
                                                  "last):",
        *[f'  File "/venv/lib/python3.12/site-packages/tabbyAPI/endpoints/step{i}.py", line {i}, in step{i}\n'
          f'    await step{i + 1}()' for i in range(8)],
        "----------------------------------------", " ## Exception in child process",
        "Traceback (most recent call last):", *cause])))
    if kind:
        assert run.kind == kind, (run.kind, run.code, run.missing)
    assert run.code != "failure-cause-not-shown", (run.kind, run.code, run.missing)


# --- distributed starts: a milestone another worker printed is no floor for this worker's frames; a traceback that goes
# on past an excerpt's '[...]' is read in its later, innermost frames; a model being built is its weights --------------

_LOAD_FRAMES = [
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 183, in load_model',
    "    self.model_runner.load_model()",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/model_loader/loader.py", line 125, in '
    "_initialize_model"]


@pytest.mark.parametrize("tag,milestone", [
    ("[rank0]:", "INFO 03-02 00:36:29 model_runner.py:1115] Loading model weights took 8.4729 GB"),
    ("(VllmWorker rank=7 pid=7071)", "(VllmWorker rank=0 pid=7064) INFO 03-02 00:36:29 [gpu_model_runner.py:1500] "
                                     "Model loading took 8.47 GiB and 9.1 seconds"),
])
def test_another_workers_weights_loaded_is_no_floor_for_this_workers_load(tag, milestone):
    lines = [milestone, f"{tag} Traceback (most recent call last):", *[f"{tag} {x}" for x in _LOAD_FRAMES],
             f"{tag} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


def test_the_same_workers_weights_loaded_is_a_floor():
    tag = "(VllmWorker rank=0 pid=7064)"
    lines = [f"{tag} INFO 03-02 00:36:29 [gpu_model_runner.py:1500] Model loading took 8.47 GiB and 9.1 seconds",
             f"{tag} Traceback (most recent call last):",
             f'{tag}   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 200, in '
             "determine_available_memory",
             f"{tag} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind != "WEIGHTS", (run.kind, run.code, run.phase_source)


def test_a_traceback_past_an_excerpt_mark_is_read_in_its_later_frames():
    run = run_of(diag("\n".join([
        "[Bug]: last gpu always OOM with pipeline parallelism on 2 nodes", "",
        "INFO 03-02 00:36:29 model_runner.py:1115] Loading model weights took 8.4729 GB",
        "[rank0]: Traceback (most recent call last):",
        '[rank0]:   File "/usr/local/bin/vllm", line 8, in <module>', "[rank0]:     sys.exit(main())", "[...]",
        '[rank0]:   File "/usr/local/lib/python3.12/dist-packages/vllm/utils.py", line 2196, in run_method',
        "[rank0]:     return func(*args, **kwargs)", *[f"[rank0]: {x}" for x in _LOAD_FRAMES]])))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("frames", [
    ['  File "/venv/lib/python3.9/site-packages/vllm/model_executor/models/utils.py", line 609, in make_layers',
     "    [PPMissingLayer() for _ in range(start_layer)] + ["],
    ['  File "/venv/lib/python3.9/site-packages/vllm/model_executor/models/llama4.py", line 73, in __init__',
     "    self.experts = FusedMoE("],
    ['  File "/sgl-workspace/sglang/python/sglang/srt/models/deepseek_v2.py", line 1700, in __init__',
     "    self.model = DeepseekV2Model("],
])
def test_a_traceback_cut_while_the_model_is_built_is_the_weights(frames):
    run = run_of(diag("\n".join(["# [Bug]: OOM error during Llama 4 Scout with tp 4", "",
                                 "ERROR 04-15 12:03:00 [core.py:387] EngineCore failed to start.",
                                 "Traceback (most recent call last):", *frames])))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


# --- a CUDA error string after a source file and line with a space for the colon; a service's line as journalctl
# prints it without the time is the program's, not a person's ------------------------------------------------------


def test_a_cuda_error_after_a_file_and_line_with_a_space_is_not_memory():
    run = run_of(diag("# [Bug]: gpt-oss-120 tinygemm2_cuda.cu 64 - invalid argument\n\n### System Info\nH100 x 8"))
    assert (run.kind, run.code) == ("NOT_OOM", "cuda-error"), (run.kind, run.code)


def test_journalctls_service_tag_marks_the_programs_lines():
    from vramdoctor.logs.authorship import program_line
    assert program_line('ollama[1821]: [GIN] 2023/10/02 - 03:30:54 | 200 |  3.71s | 127.0.0.1 | POST "/api/generate"')
    assert program_line("llama-server[4242]: ggml_cuda_init: found 1 CUDA devices:")


# --- the engine's own dump of the batch that failed (vLLM V1's dump_input) shows requests running; a test that sends
# requests, named in words; MPI's and NCCL's network failures ---------------------------------------------------------


def test_v1s_dump_of_running_requests_after_a_model_execution_places_it_while_serving():
    w = "(Worker_DP0_EP0 pid=2647785) ERROR 05-20 10:42:56 [multiproc_executor.py:962]"
    run = run_of(diag("\n".join([
        f"{w} WorkerProc hit an exception.", f"{w} Traceback (most recent call last):",
        f'{w}   File "/vllm/vllm/v1/worker/gpu_model_runner.py", line 2100, in execute_model',
        f"{w}     model_output = self.model(", f"{w} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
        "(EngineCore_DP0 pid=2647451) ERROR 05-20 10:42:56 [dump_input.py:81] Dumping scheduler stats: "
        "SchedulerStats(num_running_reqs=809, num_waiting_reqs=0, kv_cache_usage=0.48)"])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("title", ["[Bug]: Qwen3 w8a8 deployment reports OOM in high-concurrency precision test",
                                   "[Bug]: CUDA OOM during a load test with 64 clients"])
def test_a_test_that_sends_requests_named_in_the_title_is_serving(title):
    run = run_of(diag("\n".join([title, "", "### Environment", "vllm 0.11.0, 8x H20"])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("lines,code", [
    (["terminate called after throwing an instance of 'tensorrt_llm::common::TllmException'",
      "  what():  [TensorRT-LLM][ERROR] Assertion failed: Failed: MPI error /src/tensorrt_llm/common/mpiUtils.cpp:211 '6'"],
     "communication-error"),
    (["node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No "
      "route to host) errno 115(Operation now in progress)", "node5:240:240 [6] NCCL INFO bootstrap.cc:285 -> 2",
      "[2025-03-01 10:00:00 TP6] Scheduler hit an exception: Traceback (most recent call last):"], "nccl-error"),
])
def test_mpi_and_nccl_network_failures_are_not_memory(lines, code):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", code), (run.kind, run.code)


# --- a size that goes up each time the same thing is done is growth; an engine's own line that names the ledgers its
# step could fail in narrows an out-of-memory that only a person's words state ---------------------------------------


@pytest.mark.parametrize("said", [
    "Everytime I executed the prompt, the size of the model increase (ollama ps gave me a bigger number).",
    "Each time I run the same query, VRAM usage goes up by a few hundred MB and never comes back.",
])
def test_a_size_that_rises_each_time_the_same_thing_is_done_is_a_leak(said):
    run = run_of(diag("\n".join([said, "NAME              ID              SIZE     PROCESSOR    UNTIL",
                                 "gemma4:31b        637cc0ff1570    18 GB    100% GPU     Forever"])))
    assert run.kind == "LEAK", (run.kind, run.code)


def test_an_engines_wrapper_narrows_an_oom_a_person_states():
    run = run_of(diag("\n".join([
        "Error: llama runner process has terminated: signal: aborted (core dumped) error:failed to create context with "
        "model '/root/.ollama/models/blobs/sha256-e84ed7399c82'", "",
        "It is saying out of memory but nearly the entire 4096 MB is available."])))
    assert run.kind == "UNDETERMINED" and run.candidates == ["KV_CAPACITY", "WARMUP"], (run.kind, run.candidates)


# --- figures the review found left on the table: ggml-vulkan's allocation size, a slot's share and the prompt sent ---


def test_vulkans_allocation_size_sizes_the_context_advice():
    run = run_of(diag("\n".join([
        "llama_load_model_from_file: using device Vulkan0 (AMD Radeon RX 7800 XT) - 16368 MiB free",
        "llm_load_tensors:      Vulkan0 model buffer size =  9508.55 MiB",
        "llama_new_context_with_model: n_ctx      = 65536",
        "ggml_vulkan: Device memory allocation of size 10737418240 failed.",
        "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory",
        "llama_kv_cache_init: failed to allocate buffer for kv cache"])))
    assert run.numbers.get("failed_alloc_bytes") == [10737418240], run.numbers
    first = run.advice[0]
    assert first["setting"] == "max_model_len" and isinstance(first["value"], int) and first["value"] < 65536, first


def test_a_slots_share_and_the_prompt_it_was_sent_size_the_advice():
    run = run_of(diag("\n".join([
        _LISTENING,
        "slot update_slots: id  0 | task 0 | new prompt, n_ctx_slot = 4096, n_keep = 0, n_prompt_tokens = 9120",
        "srv    send_error: task id = 0, error: the request exceeds the available context size, try increasing it"])))
    assert run.code == "requests-refused-too-long", (run.kind, run.code)
    assert "4,096 tokens and a prompt of 9,120" in run.advice[0]["why"], run.advice


# --- memory not given back when a model is unloaded, put to sleep or forgotten: a leak --------------------------------


@pytest.mark.parametrize("said", [
    "The memory used when a model is loaded doesn't become free when the model is unloaded.",
    "Ollama on Jetson Thor with unified memory doesn't seem to release memory as the models are forgotten.",
    "Title: GPU VRAM not freed with --sleep-idle-seconds leading to crash",
])
def test_memory_not_given_back_after_unload_or_sleep_is_a_leak(said):
    run = run_of(diag("\n".join([said, 'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 '
                                       'msg="llama runner started in 3.02 seconds"'])))
    assert run.kind == "LEAK", (run.kind, run.code)


def test_memory_released_after_unload_is_no_leak():
    run = run_of(diag("\n".join(["The memory is released when the model is unloaded, as expected.",
                                 'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 '
                                 'msg="llama runner started in 3.02 seconds"'])))
    assert run.kind != "LEAK", (run.kind, run.code)


# --- vLLM V0's swap space for preempted sequences ran out: the pool full under load; ggml's own context without host
# memory -----------------------------------------------------------------------------------------------------------


def test_v0s_lack_of_cpu_swap_space_is_the_pool_full_under_load():
    run = run_of(diag("\n".join([
        "INFO 05-01 10:00:00 api_server.py:1043] vLLM API server version 0.4.2",
        "WARNING 05-01 10:10:00 scheduler.py:1089] Sequence group 812 is preempted by PreemptionMode.SWAP mode because "
        "there is not enough KV cache space.",
        "RuntimeError: Aborted due to the lack of CPU swap space. Please increase the swap space to avoid this error."])))
    assert (run.kind, run.code) == ("RUNTIME", "kv-swap-space-exhausted"), (run.kind, run.code)
    assert run.advice[0]["change"] == "preempt by recompute, or more swap", run.advice


@pytest.mark.parametrize("line", ["GGML_ASSERT: /project/llama.cpp/ggml.c:4411: ctx->mem_buffer != NULL",
                                  "ggml.c:4411: GGML_ASSERT(ctx->mem_buffer != NULL) failed"])
def test_ggmls_context_without_its_memory_is_an_allocation_that_failed(line):
    run = run_of(diag("\n".join(["gptj_model_load: loading model from 'ggml-gpt4all-j-v1.3-groovy.bin'", line])))
    assert run.oom is True and run.kind != "NOT_OOM", (run.kind, run.code)


# --- an access violation in a report's words; the sampler's frames alone are warm-up or serving (the warm-up runs the
# sampler too), the frame that called them decides ------------------------------------------------------------------


@pytest.mark.parametrize("said", ["Title: Vulkan backend crash (Exception 0xc0000005) during context shift",
                                  "Then the Vulkan backend crashes with an access violation."])
def test_an_access_violation_in_a_reports_words_is_not_memory(said):
    run = run_of(diag("\n".join([said, 'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 '
                                       'msg="llama runner started in 3.02 seconds"'])))
    assert (run.kind, run.code) == ("NOT_OOM", "crash-access-violation"), (run.kind, run.code)


_W = "(VllmWorker rank=1 pid=477) ERROR 07-22 12:55:39 [multiproc_executor.py:618]"
_SAMPLER = [f'{_W}   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/sample/sampler.py", line 54, in forward',
            f"{_W}     sampled = self.sample(logits, sampling_metadata)",
            f"{_W} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]


@pytest.mark.parametrize("caller,kind", [
    ([], "UNDETERMINED"),
    ([f'{_W}   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1500, in '
      "execute_model", f"{_W}     sampler_output = self.sampler("], "RUNTIME"),
    ([f'{_W}   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2300, in '
      "_dummy_sampler_run", f"{_W}     sampler_output = self.sampler("], "WARMUP"),
])
def test_the_samplers_frames_are_placed_by_the_frame_that_called_them(caller, kind):
    run = run_of(diag("\n".join([f"{_W} Traceback (most recent call last):", *caller, *_SAMPLER])))
    assert run.kind == kind, (run.kind, run.code, run.phase_source)


# --- rounds 124-126: Level Zero's OUT_OF_RESOURCES is maybe memory under vLLM on Intel GPUs, not memory in llama.cpp's
# SYCL kernels; Ascend's words; a pool that got less than nothing decides an OOM whose phase is not shown; more words --


_UR = "RuntimeError: UR backend failed. UR backend returns:40 (UR_RESULT_ERROR_OUT_OF_RESOURCES)"


def test_out_of_resources_under_vllm_is_undetermined_with_a_way_to_settle_it():
    run = run_of(diag("\n".join(["INFO 03-02 02:40:00 [api_server.py:1043] vLLM API server version 0.11.1", "(Worker_TP0 "
                                 "pid=1400) ERROR 03-02 02:46:13 [multiproc_executor.py:815] " + _UR])))
    assert (run.kind, run.code) == ("UNDETERMINED", "sycl-out-of-resources"), (run.kind, run.code)
    assert "smaller batch" in run.message, run.message


def test_out_of_resources_in_llama_cpps_sycl_kernels_is_not_memory():
    run = run_of(diag("\n".join(["ggml_sycl_init: found 1 SYCL devices:", "llama_kv_cache: SYCL0 KV buffer size = 512 MiB",
                                 "Native API failed. Native API returns: 40 (UR_RESULT_ERROR_OUT_OF_RESOURCES)"])))
    assert (run.kind, run.code) == ("NOT_OOM", "sycl-runtime-error"), (run.kind, run.code)


@pytest.mark.parametrize("lines,expect", [
    (["errorStr: The DDR address of the MTE instruction is out of range. fixp_error0 info: 0x6000063"],
     ("NOT_OOM", "illegal-memory-access")),
    (["(EngineCore pid=18) [Error]: Failed to apply for memory.",
      "(EngineCore pid=18) EE9999: Inner Error!",
      "(EngineCore pid=18) EE9999 [SqCqManage]Alloc sq cq fail, stream_id=1984, retCode=0x7020023."],
     ("NOT_OOM", "device-resource-exhausted")),
])
def test_ascends_runtime_words(lines, expect):
    run = run_of(diag("\n".join(["INFO 01-06 17:50:00 [api_server.py:1043] vLLM API server version 0.11.0", *lines])))
    assert (run.kind, run.code) == expect, (run.kind, run.code)


def test_ascends_failed_to_apply_for_memory_alone_is_an_allocation_that_failed():
    run = run_of(diag("\n".join(["INFO 01-06 17:50:00 [api_server.py:1043] vLLM API server version 0.11.0",
                                 "(EngineCore_DP0 pid=357) ERROR 01-06 17:54:58 [model_runner_v1.py:3016] [Error]: Failed "
                                 "to apply for memory."])))
    assert run.oom is True and run.kind != "NOT_OOM", (run.kind, run.code)


def test_a_pool_that_got_less_than_nothing_decides_an_oom_whose_phase_is_not_shown():
    run = run_of(diag("\n".join(["[Misc]: OOM on Ascend NPU with Qwen3-14B", "",
                                 "Loading model weights took 27.5376 GB", "Available KV cache memory: -0.87 GiB"])))
    assert (run.kind, run.code) == ("KV_CAPACITY", "no-memory-for-kv-cache"), (run.kind, run.code)


@pytest.mark.parametrize("lines,kind", [
    (["terminate called after throwing an instance of 'vk::DeviceLostError'",
      "  what():  vk::Queue::submit: ErrorDeviceLost"], "NOT_OOM"),
    (["# `cuda` engine crashes due to insufficient vRAM", "", "llama_context: n_ctx = 4096"], None),
    (["llama-server crashes after some time with HIP out of memory:",
      _LISTENING], "RUNTIME"),
    (["The model loads but gets OOM on CUDA 4 when generating a first message.",
      'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 msg="llama runner started in 3.02 seconds"'],
     "RUNTIME"),
])
def test_more_words_of_failures_and_requests(lines, kind):
    run = run_of(diag("\n".join(lines)))
    if kind:
        assert run.kind == kind, (run.kind, run.code, run.phase_source)
    else:
        assert run.oom is True, (run.kind, run.code)


# --- review 2: llama-server's verbose log of a request's body is the user's text; TGI's warm-up prefill is advised by
# its token limits first; a flash-attention flag on the pasted command line is read, and "auto" is told as such ------


def test_llama_servers_logged_request_body_is_no_failure():
    run = run_of(diag("\n".join([
        _LISTENING,
        "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
        'srv  log_server_r: request:  {"messages":[{"role":"user","content":"My job died with\\ntorch.OutOfMemoryError: '
        'CUDA out of memory. Tried to allocate 2.00 GiB.\\nwhat now?"}],"stream":false}',
        'srv  log_server_r: response: {"choices":[{"message":{"content":"Lower the batch size."}}]}'])))
    assert run.kind == "NONE", (run.kind, run.code)


def test_tgis_warmup_oom_is_advised_by_its_token_limits_first():
    run = run_of(diag("\n".join([
        "2025-06-03T10:00:00.000000Z  INFO text_generation_launcher: Args { max_input_tokens: Some(32000), "
        "max_total_tokens: Some(32768), max_batch_prefill_tokens: Some(32768), cuda_memory_fraction: 1.0 }",
        "2025-06-03T10:00:33.700000Z ERROR text_generation_launcher: Method Warmup encountered an error.",
        'Error: Backend(Warmup(Generation("CUDA out of memory. Tried to allocate 7.83 GiB. GPU 0 has a total capacity '
        'of 22.05 GiB of which 3.12 GiB is free.")))'])))
    assert run.kind == "WARMUP", (run.kind, run.code)
    assert run.advice[0]["setting"] == "prefill_tokens" or "prefill" in run.advice[0]["change"], run.advice


@pytest.mark.parametrize("cmd,value", [("$ llama-server -m m.gguf -c 32768 -ngl 99 -fa on", "on"),
                                       ("./llama-server -m m.gguf --flash-attn auto -c 8192", "auto"),
                                       ("./main -m m.gguf -ngl 35 -fa -c 4096", "on")])
def test_a_flash_attention_flag_on_the_command_line_is_read(cmd, value):
    run = run_of(diag("\n".join([cmd, _LISTENING])))
    assert run.numbers.get("flash_attn") == value, run.numbers


@pytest.mark.parametrize("said", ["Maybe try -fa on to save memory.", "With -fa on it works fine."])
def test_a_flash_attention_flag_a_person_proposes_is_not_in_use(said):
    run = run_of(diag("\n".join([said, _LISTENING])))
    assert run.numbers.get("flash_attn") is None, run.numbers


# --- a CUDA out of memory while llama.cpp loads with mmap off and no layer on the GPU: pinned host memory, most likely
# (held-out 122/12, WSL's cap; GGML_CUDA_NO_PINNED=1 settles it), never a confident WEIGHTS --------------------------


@pytest.mark.parametrize("lines", [
    ["$ ./main -m /mnt/wsl/ggml-vic13b-q5_0.bin -b 512 -t 12 --no-mmap", "main: build = 478 (ad1de39)",
     "llama_model_load_internal: n_ctx      = 512", "llama_model_load_internal: mem required  = 10583.25 MB",
     "CUDA error 2 at ggml-cuda.cu:359: out of memory"],
    ["$ ./llama-server -m m.gguf -ngl 0 --no-mmap -c 4096", "load_tensors: offloaded 0/41 layers to GPU",
     "CUDA error: out of memory", "  current device: 0, in function ggml_cuda_host_malloc"],
])
def test_a_cuda_oom_with_no_layer_on_the_gpu_and_mmap_off_is_pinned_host_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "pinned-host-alloc-failed"), (run.kind, run.code)
    assert "GGML_CUDA_NO_PINNED=1" in run.advice[0]["why"], run.advice


@pytest.mark.parametrize("cmd", ["$ ./llama-server -m m.gguf -ngl 35 --no-mmap -c 4096",
                                 "$ ./llama-server -m m.gguf -ngl 0 -c 4096"])
def test_layers_on_the_gpu_or_mmap_on_are_not_told_as_pinned_memory(cmd):
    run = run_of(diag("\n".join([cmd, "load_tensors: loading model tensors, this can take a while... (mmap = "
                                      + ("false" if "no-mmap" in cmd else "true") + ")",
                                 "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9000.00 MiB on device 0: "
                                 "cudaMalloc failed: out of memory"])))
    assert run.code != "pinned-host-alloc-failed", (run.kind, run.code)
