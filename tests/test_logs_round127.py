"""`vramdoctor logs` on the kinds of fault the held-out rounds 127 and later (issue 6, stop 28) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, kind_of as _kind, run_of


# --- a failed check that compares two lengths or shapes for equality, or data against a fixed buffer the settings
# sized: a consistency bug, not memory running out (an assertion about a pool or free memory stays open) -----------

@pytest.mark.parametrize("lines", [
    # SGLang, the assertion printed with its condition on the error line (pytest-style or a user's quote)
    ["[2025-10-09 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):",
     '  File "/sgl-workspace/sglang/python/sglang/srt/layers/attention/nsa_backend.py", line 812, in forward_decode',
     "AssertionError: assert logits.shape[0] == len(seq_lens_expanded)"],
    # vLLM, an assertion message that compares two counts
    ["(EngineCore_DP0 pid=7) ERROR 06-01 10:00:00 [core.py:710] Traceback (most recent call last):",
     '(EngineCore_DP0 pid=7) ERROR 06-01 10:00:00 [core.py:710]   File "/vllm/v1/spec_decode/eagle.py", line 301, in propose',
     "(EngineCore_DP0 pid=7) ERROR 06-01 10:00:00 [core.py:710] AssertionError: num_tokens (37) != len(positions) (36)"],
    # a report quoting it in a sentence, with a shape mismatch message
    ["The server crashes on the second request with `AssertionError: hidden_states.shape[-1] == 4096, got 5120 "
     "(shape mismatch)`."],
])
def test_an_assertion_that_two_lengths_agree_is_not_memory(lines):
    assert _kind(lines) == ("NOT_OOM", "assertion-failed")


@pytest.mark.parametrize("lines", [
    # TensorRT-LLM's auto-deploy: a buffer sized from max_batch_size, asked for a larger batch
    ["This caused: AssertionError: Data too large for buffer 'cu_seqlen': 114 > 5"],
    ["[TRT-LLM] [E] AssertionError: Input too large for buffer 'input_ids': 8192 > 4096"],
    ["ValueError: tensor too big for the buffer 'position_ids' (2049 > 2048)"],
])
def test_data_too_large_for_a_fixed_buffer_is_not_memory(lines):
    assert _kind(lines) == ("NOT_OOM", "fixed-buffer-too-small")


@pytest.mark.parametrize("lines", [
    # an assertion about free memory or the pool stays open: memory may be why it failed
    ["[2025-10-09 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):",
     '  File "/sglang/srt/mem_cache/allocator.py", line 120, in alloc',
     "AssertionError: assert self.available_size() >= need_size"],
    ["ERROR 06-01 10:00:00 [core.py:710] AssertionError: len(free_blocks) == num_required_blocks"],
])
def test_an_assertion_about_free_memory_or_the_pool_stays_open(lines):
    kind, code = _kind(lines)
    assert kind != "NOT_OOM", (kind, code)


# --- memory still held after the model was deleted or unloaded: a leak, in the report's words -----------------------

@pytest.mark.parametrize("lines", [
    ["[BUG] exllamav2 does not fully unload memory from CUDA",
     "When unloading models, TabbyAPI does not fully unload them from the GPUs.",
     "INFO:     Model successfully loaded.", "INFO:     Model unloaded.",
     'INFO:     172.22.0.26:37980 - "POST /v1/model/unload HTTP/1.1" 200'],
    ["After deleting the model and calling gc.collect(), the VRAM usage stays at 9.8 GB.",
     "llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from m.gguf"],
    ["GPU memory stays occupied until Ollama is restarted, even after `ollama stop llama3`.",
     'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 msg="llama runner started in 3.02 seconds"'],
    ["VRAM remains at 14 GB after unloading the model in LM Studio."],
])
def test_memory_held_after_the_model_is_unloaded_is_a_leak(lines):
    assert _kind(lines)[0] == "LEAK"


@pytest.mark.parametrize("lines", [
    ["After unloading the model, memory goes back to 0.",
     'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 msg="llama runner started in 3.02 seconds"'],
    ["VRAM usage remains at 14 GB while the model is loaded, as expected.",
     'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 msg="llama runner started in 3.02 seconds"'],
])
def test_memory_given_back_or_held_while_loaded_is_no_leak(lines):
    assert _kind(lines)[0] != "LEAK"


# --- two shapes that do not fit together, in MLX's, NumPy's and PyTorch's words: not memory ---------------------------

@pytest.mark.parametrize("lines", [
    ["Cache corruption not recoverable after retries: [broadcast_shapes]",
     "Shapes (1,1,N,N) and (1,16,N,N+1024) cannot be broadcast."],
    ["ValueError: [broadcast_shapes] Shapes (1,8,512,512) and (1,8,512,1536) cannot be broadcast."],
    ["ValueError: operands could not be broadcast together with shapes (3,4) (5,4)"],
    ["RuntimeError: The size of tensor a (1026) must match the size of tensor b (1027) at non-singleton dimension 3"],
])
def test_shapes_that_cannot_be_broadcast_are_not_memory(lines):
    assert _kind(lines) == ("NOT_OOM", "shape-mismatch")


# --- a failure the report names only by its exception's class, with no line of the log to show it: the failure is
# stated, its cause is not (UNDETERMINED, never NONE) --------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["# [Bug]: 启动qwen3.5-35B后反复kill进程：vllm.v1.engine exceptions enginedeaderror enginecore encountered an issue",
     "vllm版本为0.17.1", "环境为4卡*80G（A800）"],
    ["# SGLang server dies with RuntimeError on the first request", "Version: 0.5.3, 2x H100"],
    ["The llama-server process exits with an InternalServerException after a few prompts."],
])
def test_a_failure_named_by_its_exception_class_alone_is_undetermined(lines):
    assert _kind(lines) == ("UNDETERMINED", "failure-cause-not-shown")


def test_an_error_word_alone_is_no_failure_stated():
    lines = ["# How do I read the error handling docs for llama-server?",
             "main: server is listening on http://127.0.0.1:8080 - starting the main loop"]
    assert _kind(lines)[0] == "NONE"


# --- a start-up step's line, then lines left out ("[...]"), then the failure: the step is not known to be the one
# under way when it failed (held-out 132/10 was a confidently wrong WEIGHTS: its allocation was the KV cache) ---------

@pytest.mark.parametrize("lines", [
    ["llama_model_loader: loaded meta data with 23 key-value pairs and 195 tensors from phi3.gguf (version GGUF V3)",
     "llama_model_loader: - kv   2:                        phi3.context_length u32              = 4096",
     "[...]",
     "ggml_vulkan: Device memory allocation of size 1610612736 failed.",
     "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory"],
    ["llm_load_tensors: ggml ctx size =    0.30 MiB",
     "...",
     "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4096.00 MiB on device 0: cudaMalloc failed: out of memory"],
    ["INFO 06-01 10:00:00 [default_loader.py:262] Loading weights took 2.66 seconds",
     "INFO 06-01 10:00:01 [gpu_model_runner.py:1800] Starting to load model Qwen/Qwen3-8B...",
     "[ ... 40 lines omitted ... ]",
     "[snip]",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB "
     "of which 1.10 GiB is free."],
])
def test_a_step_before_lines_left_out_is_not_the_step_that_failed(lines):
    kind, code = _kind(lines)
    assert kind != "WEIGHTS", (kind, code)


def test_a_step_before_lines_left_out_is_how_far_the_run_got():
    # vLLM registering its graphs' addresses (the capture), a gap, then a traceback cut before its innermost frames in
    # the engine's start-up: the run got as far as the capture, and the start-up frames rule serving out
    p = "(VllmWorker rank=1 pid=3065477) "
    lines = ["# vLLM 0.8.5 fails to start with CUDA out of memory on two RTX 3090s",
             "INFO 05-08 09:31:40 [kv_cache_utils.py:642] Maximum concurrency for 32,768 tokens per request: 2.51x",
             p + "INFO 05-08 09:32:41 [custom_all_reduce.py:195] Registering 7108 cuda graph addresses",
             "...",
             "ERROR 05-08 09:32:47 [core.py:400] EngineCore failed to start.",
             "ERROR 05-08 09:32:47 [core.py:400] Traceback (most recent call last):",
             'ERROR 05-08 09:32:47 [core.py:400]   File "/vllm/v1/engine/core.py", line 391, in run_engine_core',
             "ERROR 05-08 09:32:47 [core.py:400]     engine_core = EngineCoreProc(*args, **kwargs)",
             'ERROR 05-08 09:32:47 [core.py:400]   File "/vllm/v1/engine/core.py", line 333, in __init__',
             "ERROR 05-08 09:32:47 [core.py:400]     super().__init__(vllm_config, executor_class, log_stats,",
             'ERROR 05-08 09:32:47 [core.py:400]   File "/vllm/v1/engine/core.py", line 73, in __init__',
             "ERROR 05-08 09:32:47 [core.py:400]     self._initialize_kv_caches(vllm_config)",
             'ERROR 05-08 09:32:47 [core.py:400]   File "/vllm/v1/engine/core.py", line 158, in _initialize_kv_caches',
             "ERROR 05-08 09:32:47 [core.py:400]     self.model_executor.initialize_from_config(kv_cache_configs)",
             'ERROR 05-08 09:32:47 [core.py:400]   File "/vllm/v1/execu']
    assert _kind(lines)[0] == "WARMUP"


# --- the report's words that place the failure: on a request or a prefill (RUNTIME), with CUDA graphs turned on or
# in the profile run (WARMUP) -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["CFG gave me OOM in tabbyAPI.",
     "Having turned on CFG, the initial load also seemed fine. Unfortunately when I went to inference, GPU0 went OOM."],
    ["Chunked-prefill budget scales with KV pool size -> prefill dies with CUDA OOM on 32GB GPUs"],
    ["It boots and serves decode, then the first 8k prefill OOMs and kills the worker."],
    ["I get a CUDA out of memory error when sending a long prompt (about 20k tokens) to the model on a 4GB GPU."],
    ["Bug: CUDA error: out of memory - Phi-3 Mini 128k prompted with 20k+ tokens on 4GB GPU"],
])
def test_a_request_or_prefill_in_the_reports_words_is_runtime(lines):
    assert _kind(lines)[0] == "RUNTIME"


@pytest.mark.parametrize("lines", [
    ["For Qwen2-7B with EAGLE, when enable cuda graph got OOM error on H20 96GB.",
     "[2025-01-13 12:42:03 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=78.1 GB"],
    ["# [Bug]: FlashInfer MoE workspace allocated inside `profile_run` → OOM on 16 GB Blackwell"],
    ["The server runs out of memory only with CUDA graphs enabled; with --enforce-eager it starts.",
     "INFO 06-01 10:00:00 [gpu_model_runner.py:1800] Model loading took 14.25 GiB and 5.1 seconds"],
])
def test_cuda_graphs_or_the_profile_run_in_the_reports_words_is_warmup(lines):
    assert _kind(lines)[0] == "WARMUP"


@pytest.mark.parametrize("lines", [
    # graphs off does not put the failure in their capture; a sentence about how prompts are sent places nothing
    ["It still runs out of memory when I disable cuda graphs, even with --enforce-eager.",
     "INFO 06-01 10:00:00 [gpu_model_runner.py:1800] Model loading took 14.25 GiB and 5.1 seconds"],
])
def test_graphs_turned_off_are_not_their_capture(lines):
    assert _kind(lines)[0] != "WARMUP"


# --- more words of failures: FlashInfer's workspace in its 0.1 wording, its plan check, LM Studio's guardrail
# "aborted" ------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines,kind,code", [
    (["(VllmWorkerProcess pid=1950430) ERROR 07-07 13:43:36 multiproc_worker_utils.py:226] RuntimeError: Out of "
      "workspace memory in AlignedAlloactor"], "NOT_OOM", "workspace-buffer-too-small"),
    (["[2025-04-24 10:00:00 TP0] RuntimeError: Out of workspace memory in AlignedAllocator"],
     "NOT_OOM", "workspace-buffer-too-small"),
    (["[Bug] Error in function 'MLAPlan' at /opt/conda/lib/python3.10/site-packages/flashinfer/data/include/flashinfer/"
      "attention/scheduler.cuh:1072: qo_indptr[2]14740 - qo_indptr[1]14741 should be non-negative"],
     "NOT_OOM", "kernel-check-failed"),
    (["RuntimeError: Error in function 'PrefillPlan' at /usr/local/lib/python3.12/dist-packages/flashinfer/include/"
      "flashinfer/attention/scheduler.cuh:515: kv_len_arr[0] should be positive"], "NOT_OOM", "kernel-check-failed"),
    (["[2025-08-23 11:25:47.731] [error] [LMSInternal][Client=LM Studio][Endpoint=loadModel] Error in channel handler: "
      "Error: Model loading aborted due to insufficient system resources. Overloading the system will likely cause "
      "it to freeze."], "UNDETERMINED", "guardrail-refused-load"),
])
def test_more_words_of_kernel_libraries_and_guardrails(lines, kind, code):
    assert _kind(lines) == (kind, code)


def test_a_flashinfer_check_about_its_workspace_is_not_a_plan_check():
    lines = ["RuntimeError: Error in function 'AlignedAllocator' at /flashinfer/allocator.h:49: Failed to allocate memory "
             "for batch_prefill_tmp_v with size 1048576 and alignment 16 in AlignedAllocator"]
    assert _kind(lines) == ("NOT_OOM", "workspace-buffer-too-small")


# --- Go's runtime in Ollama's runner: a nil pointer dereference is a bad access; a register dump is a crash whose
# cause the lines before it would name -----------------------------------------------------------------------------

_RUNNER_STARTED = 'time=2026-02-26T23:39:07.284-06:00 level=INFO source=server.go:1388 msg="llama runner started in 9.95 seconds"'


@pytest.mark.parametrize("lines", [
    ['time=2025-08-17T00:08:18.177+03:00 level=ERROR source=sched.go:489 msg="error loading llama server" '
     'error="llama runner process has terminated: error:invalid memory address or nil pointer dereference\\n[signal '
     '0xc0000005 code=0x0 addr=0x0 pc=0x7ff6c1a2b3c4]"'],
    [_RUNNER_STARTED, "panic: runtime error: invalid memory address or nil pointer dereference",
     "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x5620021a3b1c]"],
])
def test_a_nil_pointer_in_gos_runtime_is_a_bad_access(lines):
    assert _kind(lines) == ("NOT_OOM", "crash-access-violation")


def test_a_register_dump_after_serving_is_a_failure_not_a_healthy_run():
    p = "Feb 26 23:39:07 ryzenaimax ollama[33771]: "
    lines = [p + _RUNNER_STARTED,
             p + 'time=2026-02-26T23:39:07.303-06:00 level=DEBUG source=server.go:1536 msg="completion request" images=0 prompt=63',
             "[...]",
             p + "github.com/ollama/ollama/runner/ollamarunner.(*Server).run.gowrap1()",
             p + "        github.com/ollama/ollama/runner/ollamarunner/runner.go:459 +0x58 fp=0xc0000bdfe0 sp=0xc0000bdef0",
             p + "created by github.com/ollama/ollama/runner/ollamarunner.(*Server).run in goroutine 23",
             p + "rax    0x90d000", p + "rbx    0x0", p + "rcx    0x0"]
    kind, code = _kind(lines)
    assert kind == "UNDETERMINED", (kind, code)


@pytest.mark.parametrize("lines", [
    ['Eval bug: SYCL backend core dumps with A770 - "failed to get device memory size"',
     "`[ggml_backend_sycl_device_get_memory] failed to get device memory size`"],
    ["ggml_vulkan: Failed to query device memory info, falling back", "error: failed to query device memory size"],
])
def test_a_failed_query_of_the_devices_memory_is_not_memory_used_up(lines):
    assert _kind(lines) == ("NOT_OOM", "device-memory-query-failed")


def test_a_failed_query_the_back_end_goes_on_from_is_no_failure():
    lines = ["ggml_vulkan: Failed to query device memory info, falling back to the heap size",
             "main: server is listening on http://127.0.0.1:8080 - starting the main loop"]
    assert _kind(lines)[0] == "NONE"


# --- a crash named with an out of memory: memory ran out first, the crash used what the failed allocation gave back --

@pytest.mark.parametrize("lines", [
    ["a lot of CUDA errors and CUDA error: out of memory and SIGSEGV: segmentation violation eventhough VRAM memory "
     "still available"],
    ["llama-server segfaults (Segmentation fault) right after ggml_backend_cuda_buffer_type_alloc_buffer: allocating "
     "2048.00 MiB on device 0: cudaMalloc failed: out of memory"],
])
def test_a_crash_named_with_an_out_of_memory_is_not_not_oom(lines):
    kind, code = _kind(lines)
    assert kind != "NOT_OOM", (kind, code)


def test_a_crash_alone_stays_a_bad_access():
    assert _kind(["Segmentation fault (core dumped)"]) == ("NOT_OOM", "crash-access-violation")


# --- Metal's command buffers ignored for the errors before them: the first error decides, not the ignoring ----------

_IGNORED = ("error: Ignored (for causing prior/excessive GPU errors) "
            "(00000004:kIOAccelCommandBufferCallbackErrorSubmissionsIgnored)")


def test_metal_buffers_ignored_for_earlier_errors_name_no_cause():
    lines = ["ggml_metal_init: recommendedMaxWorkingSetSize  = 21845.34 MB", "...",
             _IGNORED, "ggml_metal_graph_compute: command buffer 0 failed with status 5", _IGNORED]
    assert _kind(lines)[0] == "UNDETERMINED"


def test_metal_buffers_ignored_after_an_out_of_memory_are_that_out_of_memory():
    lines = ["ggml_metal_init: recommendedMaxWorkingSetSize  = 21845.34 MB",
             "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
             "slot launch_slot_: id  0 | task 0 | processing task",
             "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
             "ggml_metal_graph_compute: command buffer 0 failed with status 5", _IGNORED]
    assert _kind(lines) == ("RUNTIME", "metal-command-buffer-oom")


# --- a title that quotes a named error beside a wrapper's words that only point to it: the named error decides ------

_CUT_TRACEBACK = ["ERROR 03-26 08:41:09 [core.py:340] EngineCore hit an exception: Traceback (most recent call last):",
                  'ERROR 03-26 08:41:09 [core.py:340]   File "/vllm/v1/engine/core.py", line 62, in __init__',
                  "ERROR 03-26 08:41:09 [core.py:340]     num_gpu_blocks, num_cpu_blocks = self._initialize_kv_caches(",
                  'ERROR 03-26 08:41:09 [core.py:340]   File "/vllm/v1/engine/core.py", line 135, in _initialize_kv_caches']


@pytest.mark.parametrize("title", [
    "[Usage]: ValueError: Block size must be a multiple of 16. [core_client.py:269] Got fatal signal from worker "
    "processes, shutting down. See stack trace above for root cause issue.",
    "# [Bug]: EngineCore failed to start: NotImplementedError: head_size 80 is not supported by FlashMLA",
])
def test_a_named_error_beside_a_wrappers_words_in_the_title_decides(title):
    assert _kind([title, *_CUT_TRACEBACK])[0] == "NOT_OOM"


def test_a_wrappers_words_alone_in_the_title_name_no_cause():
    title = "# [Bug]: RuntimeError: Engine core initialization failed. See root cause above."
    assert _kind([title, *_CUT_TRACEBACK])[0] == "UNDETERMINED"


@pytest.mark.parametrize("lines,kind,code", [
    (['Currently works on Windows, but says "no ROCm-capable device is detected" on Linux'], "NOT_OOM",
     "cuda-driver-error"),
    (["RuntimeError: HIP error: hipErrorNoDevice"], "NOT_OOM", "cuda-driver-error"),
    (['"Restart failed: Process was killed (SIGKILL) — likely out of memory. Try a smaller model."'], "UNDETERMINED",
     "host-oom-kill"),
    (["[2026-01-02 10:00:00] ERROR backend worker killed by SIGKILL while generating"], "UNDETERMINED",
     "host-oom-kill"),
])
def test_more_words_of_a_missing_device_and_a_killed_server(lines, kind, code):
    assert _kind(lines) == (kind, code)


@pytest.mark.parametrize("lines", [
    ["Then it fails to load the model as it's run out of vRAM - despite not using any of the 24GB on the second card."],
    ["The model fails to load because the GPU ran out of VRAM."],
    ["Loading Qwen2.5-72B: it runs out of VRAM on the first card every time."],
])
def test_out_of_vram_in_a_persons_words_at_load_is_memory_at_start(lines):
    # (a load in a person's words may be the weights or the cache the load makes: memory at start-up, not serving)
    run = run_of(diag("\n".join(lines)))
    assert run.kind in ("WEIGHTS", "UNDETERMINED") and run.oom is not False, (run.kind, run.code)
    assert "RUNTIME" not in (run.candidates or []) and run.kind != "RUNTIME", run.candidates


def test_a_plan_to_avoid_running_out_of_vram_is_no_failure():
    lines = ["To avoid running out of VRAM I set -ngl 20.",
             "main: server is listening on http://127.0.0.1:8080 - starting the main loop"]
    assert _kind(lines)[0] == "NONE"


def test_llama_cpps_hint_if_youre_running_out_of_vram_is_no_out_of_memory():
    lines = ["common_init_from_params: failed to load model '/models/devstral.gguf', try reducing --n-gpu-layers if "
             "you're running out of VRAM",
             "llama_model_load: error loading model: error loading model architecture: unknown model architecture: "
             "'mistral3'"]
    assert _kind(lines)[0] == "NOT_OOM"


def test_the_diagnosis_and_advice_spell_no_engines_pinned_memory_switch():
    # (llama.cpp's own way to tell its pinned buffer from the GPU's memory lives in its module: LogWords.pinned_host_load)
    import inspect

    from vramdoctor.engines import all_engines
    from vramdoctor.logs import advice, diagnose
    for mod in (diagnose, advice):
        assert "GGML_CUDA_NO_PINNED" not in inspect.getsource(mod), mod
    assert {e.name for e in all_engines() if e.log.pinned_host_load} == {"llamacpp"}


# --- SGLang's idle check of its KV pool, read by its own counts: slots lost (LEAK) or given back twice (NOT_OOM) -----

@pytest.mark.parametrize("lines,kind,code", [
    (["/sglang/srt/managers/scheduler.py:1326: UserWarning: token_to_kv_pool_allocator memory leak detected! "
      "available_size=961586, protected_size=0, self.max_total_num_tokens=961593",
      "self.token_to_kv_pool_allocator.available_size()=961586", "self.tree_cache.evictable_size()=0",
      "/sglang/srt/managers/scheduler.py:1336: UserWarning: req_to_token_pool memory leak detected!available_size=3756, "
      "total_size=3757"], "LEAK", "kv-slots-not-returned"),
    (["ValueError: token_to_kv_pool_allocator memory leak detected! self.max_total_num_tokens=325968, "
      "available_size=159180, evictable_size=161436, protected_size=5027"], "LEAK", "kv-slots-not-returned"),
    # a negative count, or more counted than the pool: given back twice, the books only
    (["ValueError: pool memory leak detected! [full] total=205888, available=205888, evictable=0, protected=-12"],
     "NOT_OOM", "kv-accounting-error"),
    (["ValueError: token_to_kv_pool_allocator memory leak detected! self.max_total_num_tokens=1000, "
      "available_size=900, evictable_size=150, protected_size=0"], "NOT_OOM", "kv-accounting-error"),
])
def test_sglangs_pool_check_by_its_counts(lines, kind, code):
    assert _kind(lines) == (kind, code)


# --- more words: Windows' missing DLL or entry point by a runner's exit code, cuBLAS's handle (maybe memory), SGLang's
# KV transfer between disaggregated instances, an MPI rank killed ---------------------------------------------------

@pytest.mark.parametrize("lines,kind,code", [
    (["Error: llama runner process no longer running: 3221225785"], "NOT_OOM", "library-load-failed"),
    (["Error: llama runner process has terminated: exit status 0xc0000139"], "NOT_OOM", "library-load-failed"),
    (["Process finished with exit code -1073741515"], "NOT_OOM", "library-load-failed"),
    (['deepseek v2 memory prediction incorrect - "CUBLAS_STATUS_NOT_INITIALIZED" error or out-of-memory'],
     "UNDETERMINED", "cublas-not-initialized"),
    (["RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`"],
     "UNDETERMINED", "cublas-not-initialized"),
    (['{"text":"","meta_info":{"finish_reason":{"type":"abort","message":"Decode transfer failed for request rank=0 '
      'with exception KVTransferError(bootstrap_room=217): Failed to get kvcache from prefill instance, it might be '
      'dead","status_code":500}}}'], "NOT_OOM", "kv-transfer-failed"),
    (["mpirun noticed that process rank 6 with PID 0 on node n1 exited on signal 9 (Killed)."], "UNDETERMINED",
     "host-oom-kill"),
])
def test_more_words_of_libraries_cublas_transfers_and_mpi(lines, kind, code):
    assert _kind(lines) == (kind, code)


@pytest.mark.parametrize("lines,kind", [
    (["However, hitting the server with an image causes a CUDA OOM crash."], "RUNTIME"),
    (["Text works, but when I send an image the runner dies with CUDA error: out of memory."], "RUNTIME"),
    (["cudaMalloc fails OOM on the 929 MB weight buffer (different failure mode)."], "WEIGHTS"),
    (["The crash is an OOM for the 2 GiB weights buffer on GPU 1."], "WEIGHTS"),
])
def test_an_image_sent_or_a_weights_buffer_named_places_the_failure(lines, kind):
    assert _kind(lines)[0] == kind


# --- a size the log shows negative is the feature off (SGLang's --chunked-prefill-size -1): the step turns it on, never
# "below your current value" (a new user's review, stop 28) ----------------------------------------------------------

def test_chunked_prefill_off_is_advised_on_not_lower():
    lines = ["[2025-07-09 10:00:41 TP0] max_total_num_tokens=420000, chunked_prefill_size=-1, max_prefill_tokens=16384, "
             "max_running_requests=4097, context_len=131072",
             "[2025-07-09 10:00:44] The server is fired up and ready to roll!",
             "[2025-07-09 10:05:33 TP0] Prefill batch. #new-seq: 1, #new-token: 120011, #cached-token: 0, token usage: "
             "0.01, #running-req: 0, #queue-req: 0",
             "[2025-07-09 10:05:34 TP0] Scheduler hit an exception: Traceback (most recent call last):",
             '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1024, in run_batch',
             "    result = self.run_batch(batch)",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 14.67 GiB. GPU 0 has a total capacity of "
             "79.15 GiB of which 6.21 GiB is free."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code)
    step = next(a for a in run.advice if "--chunked-prefill-size" in a["flags"])
    assert "below your current value" not in step["why"] and "positive" in step["why"], step
    assert "off" in step["change"], step


# --- expert-parallel communication buffers, made after the weights: WARMUP; what a sentence names as there already
# ("alongside the model weights and KV cache") is not what ran out --------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["3. CUDA OOM during UCCL-EP buffer allocation, even with gpu-memory-utilization reduced to 0.70."],
    ["torch.OutOfMemoryError: CUDA out of memory while allocating the DeepEP buffers (low-latency mode)."],
])
def test_expert_parallel_buffers_are_warmup(lines):
    assert _kind(lines)[0] == "WARMUP"


def test_what_a_sentence_names_as_already_there_is_not_what_ran_out():
    lines = ["The EP communication buffers need a fixed allocation that cannot fit alongside the model weights and KV "
             "cache, so the server dies with CUDA out of memory."]
    assert _kind(lines)[0] not in ("KV_CAPACITY", "WEIGHTS")


# --- a hang the report tells of, with no error in the log: not memory, which fails with an error (held-out 117/04,
# 117/14, 119/13, 126/03, 137/16) -------------------------------------------------------------------------------

_VLLM_SERVING = ["(APIServer pid=1) INFO:     Application startup complete.",
                 '(APIServer pid=1) INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("lines", [
    ["# [Bug]: EngineCore hangs under sustained traffic; /health still returns 200", *_VLLM_SERVING],
    ["The server was stucked when infering with the client: 4 GPUs of one node at 100%, the other node's at 0.",
     *_VLLM_SERVING],
    ["llama-server hangs indefinitely after the model loads; no further output after 8 hours.",
     "llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from m.gguf"],
    ["SGLang with --tp 16 over two nodes deadlocks during start-up.", "[2025-06-01 10:00:00 TP0] Init torch distributed begin."],
])
def test_a_hang_with_no_error_is_undetermined(lines):
    assert _kind(lines) == ("UNDETERMINED", "hang-no-error")


@pytest.mark.parametrize("lines", [
    # the whole machine freezing: a host out of memory thrashing its swap looks like that
    ["My whole system freezes when loading the 70B model, then the mouse moves again after minutes.",
     "llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from m.gguf"],
    # not a hang: an out of memory
    ["It doesn't hang, it crashes with torch.OutOfMemoryError: CUDA out of memory.", *_VLLM_SERVING],
    # a hang the report ties to the pool's blocks: a pool too small for one request makes the scheduler wait forever
    ["[Bug]: vLLM hangs indefinitely with low `num_gpu_blocks_override`", *_VLLM_SERVING],
    ["The scheduler hangs in an infinite loop when the scheduled requests need more than the total available blocks.",
     *_VLLM_SERVING],
    # the server's log says it is ready, and nothing after: it waits for requests
    ['Stuck at "Application startup complete" during deployment with GPUStack.',
     "(APIServer pid=1) INFO:     Application startup complete."],
    # requests waiting in a full pool
    ["Requests are stuck in the queue for minutes.",
     "(APIServer pid=1) INFO 06-01 10:00:00 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg "
     "generation throughput: 812.0 tokens/s, Running: 48 reqs, Waiting: 31 reqs, GPU KV cache usage: 99.8%, Prefix "
     "cache hit rate: 12.0%"],
])
def test_a_machine_freeze_an_out_of_memory_or_a_queue_is_no_hang(lines):
    assert _kind(lines)[1] != "hang-no-error"


# --- more words from rounds 138-140: Metal's buffer validation past the device's largest buffer, a host buffer that
# posix_memalign could not get, CUDA's error 700 and its GPU core dump, a failure named as absent --------------------

@pytest.mark.parametrize("lines,kind,code", [
    (["-[MTLDebugDevice newBufferWithBytesNoCopy:length:options:deallocator:]:700: failed assertion `Buffer Validation",
      "newBufferWith*:length 0x86004000 must not exceed 2048 MB."], "UNDETERMINED", "buffer-exceeds-allocation-limit"),
    (["ggml_metal_host_malloc: error: posix_memalign failed", "GGML_ASSERT: llama.cpp:491: data"], "UNDETERMINED",
     "oom-phase-not-shown"),
    (["# [Bug] main pd version Exception: Failed to encode tensor map: 700"], "NOT_OOM", "illegal-memory-access"),
    (["Starting GPU coredump generation, set the CUDA_COREDUMP_SHOW_PROGRESS environment variable to 1 to enable more "
      "detailed output"], "NOT_OOM", "cuda-kernel-error"),
    (["RuntimeError: CUDA error 700 at /src/kernels/moe.cu:88"], "NOT_OOM", "illegal-memory-access"),
])
def test_more_words_of_buffers_and_gpu_exceptions(lines, kind, code):
    assert _kind(lines) == (kind, code)


def test_a_failure_named_as_absent_is_none():
    lines = ["tensor_parallel_size = 1  no nccl error", "Works without any illegal memory access either.",
             "(APIServer pid=1) INFO:     Application startup complete."]
    assert _kind(lines)[0] == "NONE"


def test_a_reports_title_above_its_log_does_not_split_the_run():
    # the title names the error; the engine's start line below it is the same run's, cut inside its NCCL init
    lines = ["[Bug]: about NCCL error：unhandled system error",
             "INFO 11-25 08:17:27 llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) with config: model='m'",
             "[...]",
             "(VllmWorkerProcess pid=55933) ERROR 11-25 08:17:34 multiproc_worker_utils.py:229]     self.comm: "
             "ncclComm_t = self.nccl.ncclCommInitRank("]
    rep = diag("\n".join(lines))
    assert run_of(rep).kind == "NOT_OOM", [(r.kind, r.code) for r in rep.runs]


@pytest.mark.parametrize("lines", [
    ["# [GB10] Long prefill (>40k tokens) exhausts unified memory and silently kills the worker rank — no traceback, "
     "no OOM record", "The head then hangs on a collective and self-terminates."],
    ["With 8 concurrent 32k requests the GPU memory is exhausted and the engine dies.", *_VLLM_SERVING],
])
def test_memory_exhausted_in_words_is_an_out_of_memory_not_a_hang(lines):
    kind, code = _kind(lines)
    assert kind not in ("NOT_OOM", "NONE"), (kind, code)


def test_rays_memory_monitor_killing_a_vllm_worker_is_a_host_kill():
    lines = ["Memory on the node (IP: 169.254.181.2, ID: 708c7baf) where the task (actor ID: 0dab4ab4, "
             "name=RayWorkerVllm.__init__, pid=308, memory used=11.15GB) was running was 30.1GB / 31.3GB (0.96), which "
             "exceeds the memory usage threshold of 0.95.", "...",
             "Refer to the documentation on how to address the out of memory issue: "
             "https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html."]
    rep = diag("\n".join(lines))
    assert rep.engine == "vllm" and (run_of(rep).kind, run_of(rep).code) == ("UNDETERMINED", "host-oom-kill")


# --- the allocation that failed is a buffer the engine planned for the device (llama.cpp's memory breakdown): that
# buffer's ledger -------------------------------------------------------------------------------------------------

_BREAKDOWN_HEAD = ("llama_memory_breakdown_print: | memory breakdown [MiB] | total   free    self   model   context   "
                   "compute    unaccounted |")


@pytest.mark.parametrize("row,size,kind", [
    ("llama_memory_breakdown_print: |   - SYCL0 (Intel Arc Pro B65 Graphics) | 32656 = 31827 + (20798 = 20583 + 142 + "
     "72) + -19970 |", 21583194624, "WEIGHTS"),
    ("llama_memory_breakdown_print: |   - CUDA0 (NVIDIA GeForce RTX 4090) | 24080 = 23550 + (12529 = 4430 + 8048 + 51) "
     "+ 0 |", 8048 * 2**20, "KV_CAPACITY"),
    ("llama_memory_breakdown_print: |   - ROCm0 (Radeon RX 7900 XTX) | 24560 = 20000 + (9000 = 7000 + 500 + 1500) + 0 |",
     1500 * 2**20, "WARMUP"),
])
def test_a_failed_buffer_the_engine_planned_is_its_ledger(row, size, kind):
    lines = [_BREAKDOWN_HEAD, row, "...", f"alloc_tensor_range: failed to allocate CUDA0 buffer of size {size}"]
    assert _kind(lines)[0] == kind


def test_a_failed_buffer_of_another_size_is_not_placed_by_the_plan():
    lines = [_BREAKDOWN_HEAD,
             "llama_memory_breakdown_print: |   - CUDA0 (NVIDIA GeForce RTX 4090) | 24080 = 23550 + (12529 = 4430 + 8048 "
             "+ 51) + 0 |", "...", "alloc_tensor_range: failed to allocate CUDA0 buffer of size 3221225472"]
    assert _kind(lines)[0] == "UNDETERMINED"


# --- Ollama: reading the vocabulary only is no weights load; the planner's "insufficient VRAM to load any model
# layers" is a note (it offloads 0 layers and runs on the CPU), and an offload that says nothing failed does not
# override a report that says the load failed (held-out 143/06 and 143/11 were confidently wrong WEIGHTS) ------------

_OLLAMA = 'time=2025-07-23T23:34:46.458+08:00 level={lvl} source={src} msg={msg}'


def test_a_vocab_only_load_is_no_weights_step():
    lines = ['Whenever I try loading qwen3:8B I run into "CUDA error: the resource allocation failed" even though I have '
             "headroom.", "llama_model_load: vocab only - skipping tensors",
             'time=2025-07-01T10:00:00.000Z level=INFO source=server.go:438 msg="starting llama server"']
    assert _kind(lines)[0] != "WEIGHTS"


def test_the_planners_no_layer_note_is_no_failure():
    lines = [_OLLAMA.format(lvl="DEBUG", src="memory.go:351", msg='"insufficient VRAM to load any model layers"'),
             _OLLAMA.format(lvl="INFO", src="server.go:175", msg="offload library=cuda layers.requested=-1 "
                            'layers.model=35 layers.offload=0 layers.split="" memory.available="[29.9 GiB]"')]
    assert _kind(lines)[0] == "NONE"
    titled = ["# Cannot load model on the GPU (Error: llama runner process has terminated: exit status 2)", *lines]
    assert _kind(titled) == ("UNDETERMINED", "failure-cause-not-shown")


def test_koboldcpps_could_not_load_its_model_is_a_failure_whose_cause_is_not_shown():
    lines = ["Welcome to KoboldCpp - Version 1.108.2",
             "load: control token:      4 '<mask>' is not marked as EOG",
             r"Error: Could not load text model: D:\kobold\gemma-3-27b-it.q4_k_m.gguf"]
    rep = diag("\n".join(lines))
    assert rep.engine == "koboldcpp" and run_of(rep).kind == "UNDETERMINED", (rep.engine, run_of(rep).kind)


@pytest.mark.parametrize("title,kind", [
    # a title that quotes the engine's own error line: the failure, its cause not shown
    (r"# KoboldCpp - Version 1.108.2 Error: Could not load text model: D:\kobold\gemma-3-27b-it.q4_k_m.gguf",
     "UNDETERMINED"),
    # a title in the report's own words about a hang: read with the hang's reading
    ("# [Issue]: ROCm unable to load models and hangs since driver 26.5.1", "UNDETERMINED"),
])
def test_a_title_that_quotes_an_engines_wrapper_line(title, kind):
    lines = [title, "Welcome to KoboldCpp - Version 1.108.2", "load: control token:      4 '<mask>' is not marked as EOG"]
    assert _kind(lines)[0] == kind


def test_a_restart_that_failed_without_its_cause_is_not_decided_by_an_earlier_runs_error():
    # the first start failed on its port (the engine's own line), the restart got further and its traceback is cut:
    # the restart's failure stands, undetermined, not the first run's
    lines = ["INFO 06-01 10:00:00 [api_server.py:1287] vLLM API server version 0.9.1",
             "ERROR 06-01 10:00:01 [api_server.py:1300] OSError: [Errno 98] error while attempting to bind on address "
             "('0.0.0.0', 8000): address already in use",
             "INFO 06-01 10:05:00 [api_server.py:1287] vLLM API server version 0.9.1",
             "INFO 06-01 10:05:09 [default_loader.py:262] Loading weights took 5.00 seconds",
             "ERROR 06-01 10:05:20 [core.py:700] EngineCore failed to start.",
             "ERROR 06-01 10:05:20 [core.py:700] Traceback (most recent call last):",
             'ERROR 06-01 10:05:20 [core.py:700]   File "/vllm/v1/engine/core.py", line 62, in __init__']
    rep = diag("\n".join(lines))
    assert run_of(rep).kind == "UNDETERMINED", [(r.kind, r.code) for r in rep.runs]


@pytest.mark.parametrize("said", [
    "[Bug]: Long-context single-request OOM at prefill due to chunked_prefill_enabled=True",
    "When submitting a single long-context request (prompt length L >= 80K tokens), the server runs out of memory.",
    "It goes out of memory during decode once 64 sequences run.",
])
def test_an_out_of_memory_at_a_requests_prefill_or_decode_is_runtime(said):
    lines = [said, "INFO 06-01 10:00:01 [gpu_worker.py:276] Available KV cache memory: 35.01 GiB",
             "INFO 06-01 10:00:01 [kv_cache_utils.py:849] GPU KV cache size: 593,872 tokens"]
    assert _kind(lines)[0] == "RUNTIME"


def test_an_out_of_memory_at_a_decode_graphs_capture_is_warmup():
    lines = ["Qwen3 NVFP4 on RTX 5090: cookbook mem-fraction OOMs at decode-graph capture (~5GB)",
             "[2025-06-01 10:00:00 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=12.1 GB"]
    assert _kind(lines)[0] == "WARMUP"


@pytest.mark.parametrize("lines,kind", [
    (["# [Bug]: Keeps terminating itself", "I run a prompt and in the middle of the generation, it just terminates "
      "itself.", "[engine terminated]"], "UNDETERMINED"),
    (["The server exits unexpectedly after the first request, no error message."], "UNDETERMINED"),
    (["# Killed while loading weight", "nvidia-smi", "| GPU  Name                 Persistence-M | Bus-Id"], "WEIGHTS"),
])
def test_a_server_that_ends_on_its_own_or_is_killed_loading(lines, kind):
    assert _kind(lines)[0] == kind


def test_causes_a_program_lists_as_possible_are_not_stated():
    line = ("Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. "
            "End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due "
            "to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to "
            "SIGSEGV or other unexpected errors.")
    assert _kind([line]) == ("UNDETERMINED", "failure-cause-not-shown")


def test_tgis_method_prefill_heading_a_cut_traceback_places_a_reported_out_of_memory():
    lines = ["I get CUDA out of memory from TGI with llama-3-70b.",
             "2024-05-21T13:58:44.578335Z ERROR text_generation_launcher: Method Prefill encountered an error.",
             "Traceback (most recent call last):",
             '  File "/opt/conda/bin/text-generation-server", line 8, in <module>',
             "    sys.exit(app())",
             '  File "/opt/conda/lib/python3.10/site-packages/typer/core.py", line']
    assert _kind(lines)[0] == "RUNTIME"


@pytest.mark.parametrize("line,kind", [
    # vLLM's own hint at INFO, after a progress bar the terminal joined to it: no failure
    ("Capturing CUDA graph shapes:   0%|          | 0/11 [00:00<?, ?it/s](VllmWorkerProcess pid=21013) INFO 04-24 "
     "08:27:56 [model_runner.py:1456] Capturing cudagraphs for decoding. If out-of-memory error occurs during cudagraph "
     "capture, consider decreasing `gpu_memory_utilization` or switching to eager mode.", "NONE_OR_UNFINISHED"),
    # a person's condition with the out of memory after it states one
    ("If I use a 32k context I get CUDA out of memory right away.", "OOM"),
])
def test_an_out_of_memory_as_the_subject_of_a_condition_is_supposed(line, kind):
    got = _kind([line])[0]
    if kind == "OOM":
        assert got not in ("NONE", "NOT_OOM"), got
    else:
        assert got in ("NONE", "UNDETERMINED") and _kind([line])[1] != "cuda-graph-capture-oom", got


def test_macos_out_of_application_memory_is_a_host_out_of_memory():
    lines = ["Run out of application memory Build 9",
             "When I run it in Build 9, the whole system goes down, forced log out because run out of application memory."]
    kind, code = _kind(lines)
    assert kind not in ("NONE", "NOT_OOM"), (kind, code)


def test_vulkans_device_allocation_failure_quoted_in_a_title_is_an_out_of_memory():
    lines = ["Bug: Device memory allocation of size 17368219904 failed.", "", "Running without SSL",
             "llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from m.gguf"]
    kind, code = _kind(lines)
    assert kind in ("UNDETERMINED", "WEIGHTS") and code != "failure-cause-not-shown", (kind, code)


def test_lm_studios_streaming_response_line_is_a_request():
    lines = ["2026-02-10 23:00:22  [INFO]", " [zai-org/glm-4.7-flash] Streaming response...", "2026-02-10 23:00:25 [DEBUG]",
             " libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer "
             "execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
             "LM Studio 0.4.2"]
    assert _kind(lines)[0] == "RUNTIME"


def test_when_doing_inference_in_chinese_places_the_out_of_memory_on_a_request():
    assert _kind(["当我使用4090和sglang进行推理会报错OOM"])[0] == "RUNTIME"


# --- SGLang's longest input is the smaller of the context and the pool, less one (tp_worker.py max_req_input_len):
# below the context it is the pool's cap, a KV pool too small for the context -----------------------------------------

def test_sglangs_allowed_length_below_the_context_is_the_pools_cap():
    lines = ["python -m sglang.launch_server --model-path /models/deepseek-r1 --tp 8 --mem-fraction-static 0.9 "
             "--context-length 163840",
             "[2025-03-03 06:49:28 TP5] Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens). "
             "Use a shorter input or enable --allow-auto-truncate.",
             "TypeError: '>' not supported between instances of 'NoneType' and 'int'"]
    assert _kind(lines) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")
    # (the context that fits is the pool's: sizes in advice come from what the log shows)
    assert any("--context-length 59863" in a["flags"] for a in run_of(diag("\n".join(lines))).advice)


def test_sglangs_allowed_length_at_the_context_is_no_pool_cap():
    lines = ["python -m sglang.launch_server --model-path m --context-length 32768",
             "[2025-03-03 06:49:28 TP0] Input length (40000 tokens) exceeds the maximum allowed length (32767 tokens). "
             "Use a shorter input or enable --allow-auto-truncate.",
             "[2025-03-03 06:49:29] The server is fired up and ready to roll!"]
    assert _kind(lines)[0] != "KV_CAPACITY"


@pytest.mark.parametrize("title,stated", [
    ("# Ollama v0.2.1 will not run model gemma2:9b-instruct-fp16", True),
    ("# The server will not start after the upgrade", True),
    ("# It will not run out of memory with -c 4096, only with -c 32768", False),
])
def test_will_not_run_is_a_failure_stated(title, stated):
    lines = [title, 'time=2025-07-01T10:00:00.000Z level=INFO source=server.go:175 msg=offload library=cuda '
             'layers.requested=-1 layers.model=43 layers.offload=34 layers.split="" memory.available="[23.4 GiB]"']
    assert (_kind(lines)[0] != "NONE") == stated, _kind(lines)
