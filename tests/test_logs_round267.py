"""`vramdoctor logs` on the kinds of fault the held-out rounds 267 and later (issue 6, stop 35) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, flags, kind_of, run_of


def said(run) -> str:
    """All of a run's advice, every field, joined."""
    return " | ".join(" ".join(str(v) for v in a.values()) for a in run.advice)

# --- vLLM's collect_env names ROCm on an NVIDIA machine to say it is absent ("ROCM Version: Could not collect"): the
# re-run advice stays CUDA's ------------------------------------------------------------------------------------------

_ENV_NVIDIA = ["PyTorch version: 2.5.1+cu124", "Is debug build: False", "CUDA used to build PyTorch: 12.4",
               "ROCM used to build PyTorch: N/A", "", "OS: Ubuntu 22.04.4 LTS (x86_64)",
               "Is CUDA available: True", "CUDA runtime version: 12.4.131",
               "GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB", "Nvidia driver version: 550.54.15",
               "HIP runtime version: N/A", "MIOpen runtime version: N/A"]
_ILLEGAL = ["INFO 03-02 10:00:01 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000",
            "INFO:     10.0.0.4:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
            "ERROR 03-02 10:05:11 [core.py:343] RuntimeError: CUDA error: an illegal memory access was encountered"]


@pytest.mark.parametrize("rocm_lines", [
    ["ROCM Version: Could not collect", "vLLM Build Flags:", "CUDA Archs: Not Set; ROCm: Disabled; Neuron: Disabled"],
    ["ROCM Version: N/A"],
    ["ROCm Version : Could not collect"],
])
def test_collect_env_that_names_rocm_as_absent_keeps_cudas_rerun_advice(rocm_lines):
    run = run_of(diag("\n".join(_ENV_NVIDIA + rocm_lines + _ILLEGAL)))
    assert (run.kind, run.code) == ("NOT_OOM", "illegal-memory-access")
    assert "CUDA_LAUNCH_BLOCKING=1" in said(run) and "AMD_SERIALIZE_KERNEL" not in said(run)


def test_a_rocm_machine_keeps_hips_rerun_advice():
    env = [x.replace("12.4", "N/A") if x.startswith("CUDA") else x for x in _ENV_NVIDIA[:4]]
    run = run_of(diag("\n".join(env + ["ROCM Version: 6.2.41133-dd7f95766", "GPU models and configuration: AMD "
                                       "Instinct MI300X (gfx942:sramecc+:xnack-)"] + _ILLEGAL)))
    assert "AMD_SERIALIZE_KERNEL=3" in said(run)


# --- a hang with no error line: the advice finds where it waits, and never says "the error names its cause" --------

@pytest.mark.parametrize("text, multi", [
    ("""
     [Bug]: server launch hangs at NCCL with tensor parallel
     INFO 07-12 13:11:42 [api_server.py:1287] vLLM API server version 0.9.1
     INFO 07-12 13:11:42 [cli_args.py:309] non-default args: {'model': 'meta-llama/Llama-3.1-70B-Instruct', 'tensor_parallel_size': 2}
     (VllmWorker rank=0 pid=311) INFO 07-12 13:12:10 [pynccl.py:69] vLLM is using nccl==2.26.2
     (VllmWorker rank=1 pid=312) INFO 07-12 13:12:10 [pynccl.py:69] vLLM is using nccl==2.26.2
     It gets stuck here forever, no error.
     """, True),
    ("""
     llama-server hangs after the first request
     main: server is listening on http://127.0.0.1:8080 - starting the main loop
     srv  update_slots: all slots are idle
     slot launch_slot_: id  0 | task 0 | processing task
     After this the server is stuck and never answers, no error in the log.
     """, False),
])
def test_a_hang_with_no_error_is_advised_to_find_where_it_waits(text, multi):
    run = run_of(diag(text))
    assert run.code == "hang-no-error"
    advice = said(run)
    assert "py-spy dump" in advice and "error names its cause" not in advice
    assert ("NCCL_DEBUG=INFO" in advice) == multi


# --- a hang in other words: stalls, freezes, "Hang with", "times out while trying to ..."; "after loading" is past the
# load ---------------------------------------------------------------------------------------------------------------

_SGL_START = ["[2025-05-02 10:00:01] server_args=ServerArgs(model_path='Qwen/Qwen3-32B', tp_size=8)",
              "[2025-05-02 10:00:09 TP0] Init torch distributed begin.",
              "[2025-05-02 10:00:11 TP0] Load weight begin. avail mem=78.12 GB"]
_LCPP_UP = ["llama_kv_cache_unified:      ROCm0 KV buffer size =  2560.00 MiB",
            "llama_context:      ROCm0 compute buffer size =   400.00 MiB",
            "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
            "srv  update_slots: all slots are idle"]
_OLLAMA_UP = ['time=2025-03-01T10:00:05.000Z level=INFO source=server.go:619 msg="llama runner started in 4.02 seconds"',
              "[GIN] 2025/03/01 - 10:00:09 | 200 |  3.1s |       127.0.0.1 | POST     \"/api/chat\""]


@pytest.mark.parametrize("lines", [
    ["SGLang start-up stalling with tp 8"] + _SGL_START + ["Nothing happens after this, it stalls here."],
    ["Start-up stalls after this:"] + _SGL_START,
    ["Qwen3 MoE models Hang with ROCm backend"] + _LCPP_UP[:2] + ["1. Start the server", "2. After loading, one GPU "
                                                              "gets stuck at 100% utilization", "3. No text comes"],
    ["ollama freezes after the first chat request"] + _OLLAMA_UP,
    ["Qwen3 MoE on two MI100"] + _LCPP_UP[:2] + ["After loading, one GPU gets stuck at 100% utilization."],
    ["It times out while trying to instantiate the engine."] + _SGL_START,
])
def test_a_hang_told_in_other_words_is_a_hang(lines):
    assert kind_of(lines) == ("UNDETERMINED", "hang-no-error")


def test_a_whole_machine_that_freezes_is_not_a_servers_hang():
    kind, code = kind_of(["My whole system freezes after the first chat request"] + _OLLAMA_UP)
    assert code != "hang-no-error"


# --- vLLM V0's block allocator with no free block (core/block/naive_block.py: BlockAllocator.NoFreeBlocksError): the KV
# pool ran out while serving -------------------------------------------------------------------------------------------

_V0_SERVING = ["INFO 12-13 08:50:01 api_server.py:651] vLLM API server version 0.6.4.post1",
               "INFO 12-13 08:51:10 gpu_executor.py:122] # GPU blocks: 2711, # CPU blocks: 2048",
               "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
               "INFO 12-13 08:58:10 engine.py:267] Added request chatcmpl-1f2e."]


@pytest.mark.parametrize("tail", [
    ["ERROR 12-13 08:58:11 engine.py:165] NoFreeBlocksError()",
     "ERROR 12-13 08:58:11 engine.py:165] Traceback (most recent call last):",
     'ERROR 12-13 08:58:11 engine.py:165]   File "/usr/lib/python3/site-packages/vllm/core/scheduler.py", line 1413, '
     "in _allocate_and_set_running",
     "ERROR 12-13 08:58:11 engine.py:165]     self.block_manager.allocate(seq_group)",
     "ERROR 12-13 08:58:11 engine.py:165] vllm.core.block.interfaces.BlockAllocator.NoFreeBlocksError"],
    ["Traceback (most recent call last):",
     '  File "/opt/venv/lib/python3.10/site-packages/vllm/core/block/prefix_caching_block.py", line 291, in '
     "_allocate_block_id",
     "    raise BlockAllocator.NoFreeBlocksError()",
     "vllm.core.block.interfaces.BlockAllocator.NoFreeBlocksError"],
])
def test_vllm_v0s_no_free_blocks_is_the_pool_running_out_while_serving(tail):
    assert kind_of(_V0_SERVING + tail) == ("RUNTIME", "kv-blocks-exhausted")


# --- a C++ length_error by its type's name (libc++'s wording, macOS and clang builds): a size computed wrong, not memory

@pytest.mark.parametrize("tail", [
    ["slot update_slots: id  0 | task 412 | slot context shift, n_keep = 0, n_left = 8190, n_discard = 4095",
     "libc++abi: terminating due to uncaught exception of type std::length_error: vector"],
    ["terminate called after throwing an instance of 'std::length_error'", "  what():  vector::reserve",
     "Aborted (core dumped)"],
])
def test_a_cpp_length_error_in_any_spelling_is_a_code_error(tail):
    lines = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
             "slot launch_slot_: id  0 | task 412 | processing task"] + tail
    assert kind_of(lines) == ("NOT_OOM", "code-error")


# --- .NET's access violation (a C# host of llama.cpp): a bad pointer, not memory running out ---------------------------

@pytest.mark.parametrize("line", [
    "Fatal error: System.AccessViolationException: Attempted to read or write protected memory. This is often an "
    "indication that other memory is corrupt.",
    "Unhandled exception. System.AccessViolationException: Attempted to read or write protected memory.",
    "   at LLama.Native.NativeApi.llama_decode(SafeLLamaContextHandle ctx, LLamaNativeBatch batch): Attempted to read "
    "or write protected memory. This is often an indication that other memory is corrupt.",
])
def test_dotnets_access_violation_is_a_crash_not_memory(line):
    lines = ["llm_load_tensors: offloaded 33/33 layers to GPU",
             "ggml_vulkan: Found 1 Vulkan devices:",
             "Vulkan0: Radeon RX 580 Series (AMD proprietary driver) | uma: 0 | fp16: 0 | warp size: 64", line]
    assert kind_of(lines) == ("NOT_OOM", "crash-access-violation")


# --- two counts that do not agree ("N tokens to M placeholders"): an input's fault, not memory -------------------------

@pytest.mark.parametrize("error", [
    "ValueError: Attempted to assign 5 x 256 = 1280 multimodal tokens to 1024 placeholders",
    "ValueError: The number of image tokens (576) does not match the number of image placeholders (2)",
    "RuntimeError: Expected the number of tokens to match: 3072 tokens doesn't match 2048 slots",
    "RuntimeError: Expected there to be 1 prompt updates corresponding to 1 audio items, but instead found 0 prompt "
    "updates! Either the prompt text has missing/incorrect tokens for multi-modal inputs",
])
def test_tokens_that_do_not_match_placeholders_are_not_memory(error):
    lines = _V0_SERVING + ["ERROR 12-13 08:58:11 engine.py:165] Traceback (most recent call last):",
                           'ERROR 12-13 08:58:11 engine.py:165]   File "/usr/lib/python3/site-packages/vllm/inputs/'
                           'preprocess.py", line 120, in _process_multimodal',
                           "ERROR 12-13 08:58:11 engine.py:165] " + error,
                           'INFO:     10.0.0.4:51234 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error']
    assert kind_of(lines)[0] == "NOT_OOM"


# --- Metal's "command buffer N failed with status 5" is an error of any kind: the error line after it names which -----

_METAL = ["ggml_metal_init: recommendedMaxWorkingSetSize  = 103079.22 MB",
          "llama_kv_cache_init:      Metal KV buffer size =    72.00 MiB",
          "generate: n_ctx = 4096, n_batch = 2048, n_predict = -1, n_keep = 1"]


@pytest.mark.parametrize("after, kind", [
    ("error: Caused GPU Hang Error (00000003:kIOGPUCommandBufferCallbackErrorHang)", "NOT_OOM"),
    ("error: Discarded (victim of GPU error/recovery) (00000005:kIOGPUCommandBufferCallbackErrorInnocentVictim)",
     "NOT_OOM"),
    ("error: Caused GPU Timeout Error (00000002:kIOGPUCommandBufferCallbackErrorTimeout)", "NOT_OOM"),
    ("error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)", "RUNTIME"),
    ("llama_graph_compute: ggml_backend_sched_graph_compute_async failed with error -1", "RUNTIME"),
])
def test_metals_status_5_is_read_by_the_error_line_after_it(after, kind):
    lines = (["When I run llama-cli, the inference crashes partway through with a GPU error."] + _METAL
             + ["ggml_metal_graph_compute: command buffer 0 failed with status 5", after, "main : failed to eval"])
    assert kind_of(lines)[0] == kind


@pytest.mark.parametrize("after, kind", [
    ("error: Caused GPU Hang Error (00000003:kIOGPUCommandBufferCallbackErrorHang)", "NOT_OOM"),
    ("error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)", "memory"),
])
def test_metals_status_5_then_ggmls_abort_then_its_error_line(after, kind):
    # (ggml-metal-context.m of 2026: the status, its own "fatal error" abort, then Metal's error line)
    lines = _METAL[:2] + ["ggml_metal_synchronize: error: command buffer 0 failed with status 5",
                          "/Users/u/llama.cpp/ggml/src/ggml-metal/ggml-metal-context.m:235: fatal error", after,
                          "WARNING: Using native backtrace. Set GGML_BACKTRACE_LLDB for more info."]
    got = kind_of(lines)
    assert got[0] == kind if kind != "memory" else got == (got[0], "metal-command-buffer-oom") and got[0] != "NOT_OOM"


# --- a report that only says something "does not work" / "fails", over a log that ends on the server answering a
# request with no failure: what does not work is not the server failing (the answers' content, a client's side) --------

_VLLM_ANSWERED = ["INFO 06-15 14:10:01 api_server.py:177] vLLM API server version 0.5.0",
                  "INFO 06-15 14:11:10 gpu_executor.py:83] # GPU blocks: 2595, # CPU blocks: 2048",
                  "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
                  'INFO:     127.0.0.1:50312 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
_LCPP_CLI_DONE = ["llama_kv_cache_unified:    Vulkan0 KV buffer size =   512.00 MiB",
                  "main: interactive mode on.", "generate: n_ctx = 4096, n_batch = 2048, n_predict = 64, n_keep = 1",
                  " what is your name? is the difference between a man and a boy?",
                  "llama_perf_sampler_print:    sampling time =       3.10 ms /    35 runs   (    0.09 ms per token)",
                  "llama_perf_context_print:        load time =    1520.11 ms",
                  "llama_perf_context_print:       total time =    1952.91 ms /    35 tokens"]
_OLLAMA_ANSWERED = ['time=2025-03-01T10:00:05.000Z level=INFO source=server.go:619 msg="llama runner started in 4.02 '
                    'seconds"',
                    "[GIN] 2025/03/01 - 10:00:09 | 200 |  3.1s |       127.0.0.1 | POST     \"/api/chat\""]


@pytest.mark.parametrize("lines", [
    ["[Bug]: AWQ quantization is not working properly"] + _VLLM_ANSWERED,
    ["Vulkan: Gemma 3 does not work as expected"] + _LCPP_CLI_DONE,
    ["Tool calls fail with qwen2.5 in ollama"] + _OLLAMA_ANSWERED,
])
def test_it_does_not_work_over_a_log_that_ends_answering_is_no_failure(lines):
    assert kind_of(lines) == ("NONE", "no-memory-problem")


# (stop 40: answers the report calls nonsense are a failure of correctness, not a healthy run: NOT_OOM wrong-output,
# as held-out round 347 labelled "gibberish output" over a log that answers; this case was NONE before)
def test_answers_told_as_nonsense_over_a_log_that_ends_answering_are_wrong_output():
    lines = ["I can see some clip layers failing to load, and the other slots answer nonsense."] + _LCPP_CLI_DONE
    assert kind_of(lines) == ("NOT_OOM", "wrong-output")


@pytest.mark.parametrize("lines", [
    ["The server crashes after the second request"] + _VLLM_ANSWERED,
    ["[Bug]: AWQ quantization is not working"] + _VLLM_ANSWERED[:3],
])
def test_a_crash_told_or_a_log_without_an_answer_stays_undetermined(lines):
    assert kind_of(lines)[0] == "UNDETERMINED"


# --- SYCL's unknown result (-999 "Unknown PI error", UR_RESULT_ERROR_UNKNOWN) names no cause: undetermined, memory among
# the causes (an allocation past an Intel GPU's memory ends this way too) ----------------------------------------------

@pytest.mark.parametrize("tail", [
    ["Native API failed. Native API returns: -999 (Unknown PI error) -999 (Unknown PI error)",
     "Exception caught at file:/app/ggml/src/ggml-sycl.cpp, line:3021, func:operator()"],
    ["terminate called after throwing an instance of 'sycl::_V1::exception'",
     "  what():  level_zero backend failed with error: 2147483646 (UR_RESULT_ERROR_UNKNOWN)"],
])
def test_sycls_unknown_error_is_undetermined_not_not_memory(tail):
    lines = ["ggml_sycl_init: found 1 SYCL devices:",
             "llm_load_tensors:      SYCL0 buffer size =  5005.04 MiB",
             "llama_kv_cache_init:      SYCL0 KV buffer size = 17920.00 MiB"] + tail
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "sycl-unknown-error")
    assert "-c" in run.message and run.missing


# --- ggml's asserts: a pooling type is not a memory pool; the older "GGML_ASSERT: <path>:<line>:" form with a Windows
# path that holds spaces ------------------------------------------------------------------------------------------------

_SERVED = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
           "srv  log_server_r: request: POST /v1/embeddings 127.0.0.1 200"]


@pytest.mark.parametrize("line, code", [
    ('/app/src/llama-graph.cpp:185: GGML_ASSERT(seq_id < n_tokens && "seq_id cannot be larger than n_tokens with '
     'pooling_type == MEAN") failed', "ggml-assert"),
    ("GGML_ASSERT: C:\\Users\\me\\Documents\\Random projects\\llama.cpp\\ggml-opencl.cpp:1726: to_fp32_cl != nullptr",
     "ggml-assert"),
    ("GGML_ASSERT: D:\\a b\\llama.cpp\\src\\llama.cpp:12011: n_outputs_prev + n_outputs <= n_outputs_all", "ggml-assert"),
])
def test_ggml_asserts_not_about_memory_in_other_forms(line, code):
    assert kind_of(_SERVED + [line]) == ("NOT_OOM", code)


def test_a_ggml_assert_on_a_memory_buffer_with_a_spaced_path_is_not_called_not_memory():
    kind, code = kind_of(_SERVED + ["GGML_ASSERT: C:\\My Files\\llama.cpp\\ggml.c:4412: ctx->mem_buffer != NULL"])
    assert kind != "NOT_OOM"


# --- logits that are not numbers (SGLang's NaN detection, PyTorch's multinomial refusing inf/nan): the model's numbers
# went wrong, not memory; a KV-pool check that fails after it is its fallout -------------------------------------------

@pytest.mark.parametrize("lines", [
    ["[2024-11-08 04:43:50 TP0] The server is fired up and ready to roll!",
     "[2024-11-08 04:44:04 TP0] Prefill batch. #new-seq: 1, #new-token: 34, #cached-token: 0, token usage: 0.00",
     "[2024-11-08 04:44:04 TP1] Detected errors during sampling! NaN in the logits.",
     "[2024-11-08 04:44:04 TP0] Detected errors during sampling! NaN in the logits."],
    ["INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
     "ERROR 03-02 10:05:11 async_llm_engine.py:61] Engine background task failed",
     "ERROR 03-02 10:05:11 async_llm_engine.py:61]     next_tokens = torch.multinomial(probs, num_samples=1)",
     "ERROR 03-02 10:05:11 async_llm_engine.py:61] RuntimeError: probability tensor contains either `inf`, `nan` or "
     "element < 0"],
    ["Output generated in 0.52 seconds (12.1 tokens/s, 6 tokens, context 60, seed 1)",
     "Traceback (most recent call last):",
     '  File "/app/modules/text_generation.py", line 379, in generate_reply_HF',
     "RuntimeError: probability tensor contains either inf, nan or element < 0",
     "[2024-01-10 10:00:02 TP0] KV cache pool leak detected! max_total_num_tokens=391319, available_size=391285"],
])
def test_logits_that_are_not_numbers_are_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "nan-in-logits")


# --- PyTorch's warning that CUDA could not start as it counted devices ("Error 2: out of memory" in an environment
# report's probe): a warning the program goes on from, not the run's out-of-memory --------------------------------------

_CUDA_INIT = ("/opt/conda/lib/python3.12/site-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: "
              "Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
              "NumCudaDevices() that might have already set an error? Error 2: out of memory (Triggered internally at "
              "../c10/cuda/CUDAFunctions.cpp:108.)")


@pytest.mark.parametrize("after, want", [
    (["ERROR 09-12 19:15:10 async_llm_engine.py:63] ValueError: could not broadcast input array from shape (513,) "
      "into shape (512,)", "INFO 09-12 19:15:11 async_llm_engine.py:180] Aborted request chatcmpl-1."], "NOT_OOM"),
    (["INFO 09-12 19:15:10 metrics.py:351] Avg prompt throughput: 12.0 tokens/s, Avg generation throughput: 30.1 "
      "tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 1.2%, CPU KV cache usage: 0.0%",
      'INFO:     127.0.0.1:50312 - "POST /v1/chat/completions HTTP/1.1" 200 OK'], "NONE"),
])
def test_cudas_init_warning_in_an_environment_report_is_not_the_runs_oom(after, want):
    lines = ["Collecting environment information...", _CUDA_INIT, "  return torch._C._cuda_getDeviceCount() > 0",
             "PyTorch version: 2.4.0+cu121", "Is CUDA available: False",
             "INFO 09-12 19:10:01 api_server.py:495] vLLM API server version 0.6.1",
             "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
             "INFO 09-12 19:15:09 engine.py:267] Added request chatcmpl-1."] + after
    assert kind_of(lines)[0] == want


# --- a report's title or sentence that restates the error, memory words around it ("with kv-cache quantization"): the
# log's own line of that error decides --------------------------------------------------------------------------------

@pytest.mark.parametrize("title, error", [
    ("[Bug]: KeyError: 'local_attn_masks' on running gemma3 models with kv-cache quantization",
     "KeyError: 'local_attn_masks'"),
    ("Got `ValueError: too many values to unpack (expected 2)` with the fp8 KV cache and a bigger memory pool",
     "ValueError: too many values to unpack (expected 2)"),
    ("[Bug] IndexError: list index out of range in the scheduler when the radix cache is on",
     "IndexError: list index out of range"),
])
def test_the_logs_own_line_of_an_error_the_title_restates_decides(title, error):
    lines = [title, "INFO 04-01 10:00:01 [gpu_model_runner.py:1120] Model loading took 8.1 GiB",
             "Traceback (most recent call last):",
             '  File "/usr/lib/python3/site-packages/vllm/worker/model_runner.py", line 1730, in execute_model',
             "    hidden = model_executable(**inputs)", error,
             "INFO 04-01 10:00:05 [launcher.py:74] Shutting down FastAPI HTTP server."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "NOT_OOM" and run.evidence[0]["line"] == 6, (run.kind, run.code, run.evidence)


# --- a process that died without a cause while serving, the KV pool mostly free: the pool's use rules nothing out (a
# host OOM kill or a crash leaves it as it was): undetermined, not "not memory" -----------------------------------------

_V1_STATS = ("(APIServer pid=1) INFO 09-03 13:20:41 [loggers.py:123] Engine 000: Avg prompt throughput: 2210.7 tokens/s, "
             "Avg generation throughput: 402.3 tokens/s, Running: 22 reqs, Waiting: 0 reqs, GPU KV cache usage: 31.0%, "
             "Prefix cache hit rate: 44.9%")


@pytest.mark.parametrize("died", [
    "(APIServer pid=1) ERROR 09-03 13:20:47 [core_client.py:564] Engine core proc EngineCore_0 died unexpectedly, "
    "shutting down client.",
    "(VllmWorker rank=0 pid=88) ERROR 09-03 13:20:47 [multiproc_executor.py:140] Worker proc VllmWorker-1 died "
    "unexpectedly, shutting down executor.",
])
def test_a_process_that_died_without_a_cause_is_undetermined_whatever_the_pool(died):
    lines = [_V1_STATS, '(APIServer pid=1) INFO:     10.0.0.2:55120 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             died,
             "(APIServer pid=1) ERROR 09-03 13:20:47 [async_llm.py:416] AsyncLLM output_handler failed.",
             "(APIServer pid=1) ERROR 09-03 13:20:47 [async_llm.py:416] vllm.v1.engine.exceptions.EngineDeadError: "
             "EngineCore encountered an issue. See stack trace (above) for the root cause.",
             '(APIServer pid=1) INFO:     10.0.0.2:55130 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server '
             "Error", "(APIServer pid=1) INFO:     Shutting down", "(APIServer pid=1) INFO:     Application shutdown "
             "complete."]
    assert kind_of(lines)[0] == "UNDETERMINED"


# --- the out of memory pasted above the start-up, which ends on a step begun and then only the first line of the
# process's death ("Process SpawnProcess-1:", "Traceback (most recent call last):"): that step -------------------------

_OOM_ABOVE = ["The server dies at startup with this error:", "",
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of "
              "44.53 GiB of which 27.25 MiB is free.", "", "Full log from the start:", ""]


@pytest.mark.parametrize("startup, want", [
    (["INFO 11-19 21:03:12 api_server.py:585] vLLM API server version 0.6.4.post1",
      "INFO 11-19 21:03:40 model_runner.py:1077] Loading model weights took 27.5916 GB",
      "INFO 11-19 21:03:44 gpu_executor.py:113] # GPU blocks: 4533, # CPU blocks: 1365",
      "INFO 11-19 21:03:47 model_runner.py:1400] Capturing cudagraphs for decoding. This may lead to unexpected "
      "consequences if the model is not static.", "Process SpawnProcess-1:"], "WARMUP"),
    (["[2025-03-01 10:00:01] server_args=ServerArgs(model_path='Qwen/Qwen2.5-32B-Instruct', tp_size=1)",
      "[2025-03-01 10:00:40 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=17.10 GB",
      "[2025-03-01 10:00:41 TP0] KV Cache is allocated. #tokens: 120000, K size: 5.49 GB, V size: 5.49 GB",
      "[2025-03-01 10:00:42 TP0] Capture cuda graph begin. This can take up to several minutes.",
      "Traceback (most recent call last):"], "WARMUP"),
    (["INFO 11-19 21:03:12 api_server.py:585] vLLM API server version 0.6.4.post1",
      "INFO 11-19 21:03:23 model_runner.py:1072] Starting to load model Qwen/Qwen2.5-72B-Instruct...",
      "Process SpawnProcess-1:"], "WEIGHTS"),
])
def test_an_oom_pasted_above_a_startup_that_dies_during_a_step_is_that_step(startup, want):
    assert kind_of(_OOM_ABOVE + startup)[0] == want


# --- a GPU index past those the process can see ("invalid device ordinal", HIP's hipErrorInvalidDevice): a set-up that
# asks for more GPUs than visible; the advice lists what it sees and fits the parallel sizes to it ---------------------

@pytest.mark.parametrize("lines", [
    ["INFO 04-10 10:00:01 api_server.py:585] args: Namespace(model='m', tensor_parallel_size=4)",
     "(VllmWorkerProcess pid=311) ERROR 04-10 10:00:09 multiproc_worker_utils.py:226]     torch.cuda.set_device(self.device)",
     "RuntimeError: CUDA error: invalid device ordinal"],
    ["[2025-02-01 10:00:01] server_args=ServerArgs(model_path='m', tp_size=16, nnodes=2)",
     "[2025-02-01 10:00:05 TP9] Scheduler hit an exception: Traceback (most recent call last):",
     "RuntimeError: HIP error: hipErrorInvalidDevice"],
    ["ggml_cuda_init: found 1 CUDA devices:",
     "CUDA error: invalid device ordinal",
     "  current device: 1, in function ggml_cuda_set_device at ggml/src/ggml-cuda/ggml-cuda.cu:88"],
])
def test_an_invalid_device_ordinal_is_a_gpu_set_up_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "invalid-device-ordinal")
    assert "VISIBLE_DEVICES" in said(run) and "CUDA_LAUNCH_BLOCKING" not in said(run)


# --- ENOMEM from sigaltstack (Python's faulthandler.enable(), a stack smaller than the CPU's signal frame): a build too
# old for the CPU, not memory used up; a fork's ENOMEM stays host memory ----------------------------------------------

@pytest.mark.parametrize("tail, code", [
    (["Traceback (most recent call last):",
      '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2238, in run_scheduler_process',
      "    faulthandler.enable()", "OSError: [Errno 12] Cannot allocate memory"], "signal-stack-too-small"),
    (["(VllmWorker rank=0 pid=201) Traceback (most recent call last):",
      '(VllmWorker rank=0 pid=201)   File "/usr/lib/python3.10/site-packages/vllm/v1/executor/multiproc_executor.py", '
      "line 379, in worker_main",
      "(VllmWorker rank=0 pid=201)     faulthandler.enable(file=sys.stderr)",
      "(VllmWorker rank=0 pid=201) OSError: [Errno 12] Cannot allocate memory"], "signal-stack-too-small"),
    (["sigaltstack: Cannot allocate memory"], "signal-stack-too-small"),
    (["Traceback (most recent call last):",
      '  File "/usr/lib/python3.10/multiprocessing/popen_fork.py", line 66, in _launch',
      "    self.pid = os.fork()", "OSError: [Errno 12] Cannot allocate memory"], "host-alloc-failed"),
])
def test_enomem_from_the_signal_stack_is_not_memory_used_up(tail, code):
    lines = ["[2025-05-19 08:01:20] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1)"] + tail
    assert kind_of(lines)[1] == code


# --- numbers that went NaN in a computation, as llama.cpp's tools print it (ik_llama.cpp's op check, llama-perplexity's
# chunks), and ggml's abort in a header's kernel ("mmq.cuh:4254: fatal error"): not memory -------------------------------

_LCPP_LOADED = ["llm_load_tensors:        CPU buffer size = 118694.87 MiB",
                "llm_load_tensors:      CUDA0 buffer size = 17032.39 MiB",
                "llama_kv_cache_init:      CUDA0 KV buffer size =   512.00 MiB",
                "llama_new_context_with_model:      CUDA0 compute buffer size =   312.00 MiB"]


@pytest.mark.parametrize("tail, code", [
    (["Oops(ggml_compute_forward_sum_rows_f32, ffn_moe_weights_sum-60): found nan for i1 = 0, i2 = 0, i3 = 0. ne00 = 8"],
     "nan-in-logits"),
    (["Oops(ggml_compute_forward_soft_max_f32, kq_soft_max-3): found -inf for i1 = 2, i2 = 0, i3 = 0. ne00 = 512"],
     "nan-in-logits"),
    (["perplexity: calculating perplexity over 20 chunks, n_ctx=512, batch_size=2048, n_seq=4",
      "[1]nan,[2]nan,[3]nan,[4]nan,[5]nan,[6]nan,[7]nan,[8]nan,^C"], "nan-in-logits"),
    (["[1]-nan,[2]-nan,[3]-nan,[4]-nan,", "Unexpected negative standard deviation of log(prob)"], "nan-in-logits"),
    (["/opt/ik_llama.cpp/ggml/src/ggml-cuda/template-instances/../mmq.cuh:4254: fatal error"], "ggml-assert"),
    (["D:\\a\\llama.cpp\\ggml\\src\\ggml-cuda\\mmq.cuh:107: fatal error"], "ggml-assert"),
])
def test_nan_in_a_computation_or_a_kernels_abort_is_not_memory(tail, code):
    assert kind_of(_LCPP_LOADED + tail) == ("NOT_OOM", code)


# --- a leak detector's report of bytes not freed at exit ("Detected memory leaks!", LeakSanitizer, valgrind) under a
# title that says "memory leak": no memory growing while the server runs -------------------------------------------------

@pytest.mark.parametrize("report", [
    ["Detected memory leaks!", "Leak Hash: 0xD208674E, Count: 1, Total 16 bytes",
     "  Call Stack (TID 1234):", "    ucrtbased.dll!malloc()"],
    ["==4242==ERROR: LeakSanitizer: detected memory leaks", "",
     "Direct leak of 64 byte(s) in 1 object(s) allocated from:", "    #0 0x7f1 in malloc"],
    ["==4242== LEAK SUMMARY:", "==4242==    definitely lost: 1,024 bytes in 2 blocks",
     "==4242==    indirectly lost: 0 bytes in 0 blocks"],
])
def test_a_leak_detectors_report_at_exit_is_not_memory_growth(report):
    lines = (["Misc. bug: Potential memory leak in backend registry",
              "This is not a huge leak but here's the details of the leak detector:",
              "llama_model_loader: loaded meta data with 29 key-value pairs and 291 tensors from model.gguf",
              "llm_load_tensors:        CPU buffer size =  4437.80 MiB"] + report)
    assert kind_of(lines)[0] != "LEAK"


# --- a library from another build (the dynamic linker's "symbol lookup error ... undefined symbol"), a tensor whose
# shape this build's architecture does not expect (check_tensor_dims): not memory ---------------------------------------

@pytest.mark.parametrize("line, code", [
    ("/home/ai/ik_llama.cpp/build/bin/llama-server: symbol lookup error: /home/ai/ik_llama.cpp/build/ggml/src/"
     "libggml.so: undefined symbol: _Z26ggml_cuda_op_mul_multi_addR25ggml_backend_cuda_contextP11ggml_tensor",
     "library-load-failed"),
    ("python3: symbol lookup error: /usr/local/lib/python3.10/dist-packages/vllm/_C.abi3.so: undefined symbol: "
     "_ZN3c104cuda9SetDeviceEi", "library-load-failed"),
    ("llama_model_load: error loading model: check_tensor_dims: tensor 'blk.0.attn_q_b.weight' has wrong shape; "
     "expected  1536, 73728, got  1536, 24576,     1,     1", "model-file-error"),
    ("llama_load_model_from_file: failed to load model: check_tensor_dims: tensor 'output.weight' has wrong shape; "
     "expected  4096, 128256, got  4096, 32000,     1,     1", "model-file-error"),
])
def test_a_foreign_library_or_a_tensor_of_the_wrong_shape_is_not_memory(line, code):
    lines = ["llama_model_loader: loaded meta data with 43 key-value pairs and 1147 tensors from model.gguf",
             "llm_load_print_meta: model size       = 387.56 GiB (4.96 BPW)", line]
    assert kind_of(lines) == ("NOT_OOM", code)


# --- a server that restarts of itself, told in words: a failure the log does not show; a "[Performance]" report of
# what runs slowly: no failure; V1's "RPC call to execute_model timed out": a worker's failure elsewhere ----------------

_V1_UP = ["INFO 03-12 10:01:02 [api_server.py:1351] Starting vLLM API server 0 on http://0.0.0.0:8000",
          "INFO:     Application startup complete.",
          'INFO:     10.0.0.4:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
          "INFO 03-12 10:09:00 [launcher.py:80] Shutting down FastAPI HTTP server."]


@pytest.mark.parametrize("lines, want", [
    (["[Bug]: Vllm automatically restarts", "Vllm restarts randomly while running multiple subsequent requests."]
     + _V1_UP, "UNDETERMINED"),
    (["The server keeps restarting under load, logs after it restarted:"] + _V1_UP, "UNDETERMINED"),
    (["[Performance]: Added requests take too much time, and the model will not run until all are added"]
     + _V1_UP[:3], "NONE"),
    (_V1_UP[:3] + ["(EngineCore_DP0 pid=77) ERROR 03-12 10:09:01 [core.py:710] TimeoutError: RPC call to "
                   "execute_model timed out.",
                   "(APIServer pid=1) ERROR 03-12 10:09:01 [async_llm.py:420] vllm.v1.engine.exceptions."
                   "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
                   "(APIServer pid=1) INFO:     Shutting down"], "NOT_OOM"),
])
def test_restarts_told_speed_asked_and_a_workers_rpc_timeout(lines, want):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == want
    if run.code == "worker-rpc-timeout":  # (a stuck worker: find where it waits)
        assert "py-spy dump" in said(run)


# --- "ollama" as a folder of a model's path is not Ollama's log ----------------------------------------------------------

def test_a_folder_named_ollama_in_a_path_does_not_make_the_log_ollamas():
    rep = diag("\n".join([
        "./build/bin/llama-sweep-bench --model /mnt/models/ollama/models--ubergarm--DeepSeek-R1/IQ2_K_R4.gguf -c 8192",
        "llama_model_loader: loaded meta data with 45 key-value pairs and 1147 tensors from /mnt/models/ollama/"
        "models--ubergarm--DeepSeek-R1/IQ2_K_R4.gguf (version GGUF V3 (latest))",
        "llm_load_tensors:        CPU buffer size = 118694.87 MiB",
        "llama_kv_cache_init:      CUDA0 KV buffer size =   512.00 MiB"]))
    assert rep.engine == "llamacpp"


def test_ollamas_own_log_with_its_model_path_is_still_ollamas():
    rep = diag("\n".join([
        'time=2025-03-01T10:00:01.000Z level=INFO source=server.go:405 msg="starting llama server" cmd="/usr/bin/ollama '
        'runner --model /usr/share/ollama/.ollama/models/blobs/sha256-6a0746a1ec1a --ctx-size 8192"',
        "llama_model_loader: loaded meta data with 29 key-value pairs and 291 tensors from /usr/share/ollama/.ollama/"
        "models/blobs/sha256-6a0746a1ec1a (version GGUF V3 (latest))"]))
    assert rep.engine == "ollama"


# --- llama.cpp's tools read as llama.cpp: llama-bench's table, the end-of-run timings, 2023's loader and main --------

@pytest.mark.parametrize("lines", [
    ["| model                          |       size |     params | backend    | ngl | n_batch | n_ubatch |          test |"
     "              t/s |",
     "| ------------------------------ | ---------: | ---------: | ---------- | --: | ------: | -------: | ------------: |"
     " ---------------: |",
     "| deepseek2 671B Q8_0            | 307.20 GiB |   671.03 B | CUDA       |  63 |    2048 |      512 |         pp512 |"
     "     12.31 \u00b1 0.10 |"],
    ["main: seed  = 1679150968", "llama_model_load: loading model from './models/65B/ggml-model-q4_0.bin' - please wait ...",
     "llama_model_load: ggml ctx size = 41477.73 MB"],
    ["what is your name? is the difference between a man and a boy?",
     "llama_perf_sampler_print:    sampling time =       3.10 ms /    35 runs   (    0.09 ms per token)",
     "llama_perf_context_print:       total time =    1952.91 ms /    35 tokens"],
])
def test_llamacpps_tools_output_is_read_as_llamacpp(lines):
    assert diag("\n".join(lines)).engine == "llamacpp"


# --- layers on the GPU as the command asked (-ngl N), or none with no GPU in sight: not "the GPU is at its limit" -------

@pytest.mark.parametrize("lines, code", [
    (["./llama-cli -m model.gguf -ngl 16 -c 4096 -p hello",
      "llm_load_tensors: offloading 16 repeating layers to GPU", "llm_load_tensors: offloaded 16/33 layers to GPU",
      "llm_load_tensors:      CUDA0 buffer size =  2100.00 MiB"], "offload-as-asked"),
    (["./llama-server -m model.gguf --n-gpu-layers 20",
      "load_tensors: offloaded 20/49 layers to GPU", "load_tensors:        CUDA0 model buffer size =  6000.00 MiB",
      "main: server is listening on http://127.0.0.1:8080 - starting the main loop"], "offload-as-asked"),
    (["ggml_init_cublas: no CUDA devices found, CUDA will be disabled", "./main -m model.gguf -p hello",
      "llm_load_tensors: offloaded 0/33 layers to GPU", "llm_load_tensors:        CPU buffer size =  3891.24 MiB"],
     "no-gpu-offload"),
])
def test_layers_offloaded_as_asked_or_none_without_a_gpu_are_not_a_full_gpu(lines, code):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NONE", code) and "at its limit" not in run.message


# --- llama.cpp's buffers that hold weights or cache under other names: the row split's "CUDA0_Split", the CPU's
# repacked copies ("CPU_REPACK", before 2025 "CPU_AARCH64"), a GPU back end's host buffer ("ROCm_Host KV") -------------

def test_split_repacked_and_host_buffers_are_counted():
    run = run_of(diag("\n".join([
        "llm_load_tensors: CUDA0_Split model buffer size = 13302.19 MiB",
        "llm_load_tensors: CUDA1_Split model buffer size = 12949.22 MiB",
        "llm_load_tensors:      CUDA0 model buffer size =     1.69 MiB",
        "llm_load_tensors:        CPU model buffer size =   563.62 MiB",
        "load_tensors:  CPU_REPACK model buffer size =  1024.00 MiB",
        "llm_load_tensors: CPU_AARCH64 model buffer size =   512.00 MiB",
        "llama_kv_cache_init:      ROCm0 KV buffer size =   128.00 MiB",
        "llama_kv_cache_init:  ROCm_Host KV buffer size =   256.00 MiB"])))
    n = run.numbers
    mib = [round(x * 2**20) for x in (13302.19, 12949.22, 1.69, 563.62, 1024, 512)]
    assert sorted(n["gpu_model_buffer_bytes"]) == sorted(mib[:3])
    assert sorted(n["cpu_model_buffer_bytes"]) == sorted(mib[3:])
    assert n["kv_buffer_bytes_by_device"]["ROCm_Host"] == 256 * 2**20


@pytest.mark.parametrize("command", ["./llama-server -m model.gguf --ctx-size 0 -ngl 99",
                                     "./llama-cli -m model.gguf -c 0 -ngl 99 -p hi"])
def test_a_context_of_0_asks_for_the_models_own_and_is_not_read_as_0(command):
    run = run_of(diag("\n".join([command, "llama_context: n_ctx         = 32768",
                                 "llama_kv_cache_unified:      CUDA0 KV buffer size =  4096.00 MiB"])))
    assert run.numbers.get("max_model_len") != 0


# --- causes named by other runtimes' words: HIP without a kernel's code object for this GPU ("Cannot find Symbol with
# name"), SYCL's work-group limit above ggml-sycl's "Exception caught at file", a library checked for and not loaded,
# and NCCL's probe of its optional plugins (tuner, profiler, net) is no failure ------------------------------------------

@pytest.mark.parametrize("tail, code", [
    ([":0:/src/clr/hipamd/src/hip_global.cpp:117 : 6190051732 us:  Cannot find Symbol with name: "
      "_ZN7ck_tile6kentryILi256ELi1ENS_12Rmsnorm2dFwd", "Fatal Python error: Aborted"], "cuda-no-kernel-image"),
    (["The number of work-items in each dimension of a work-group cannot exceed {512, 512, 512} for this device",
      "Exception caught at file:/app/ggml/src/ggml-sycl/ggml-sycl.cpp, line:3600"], "kernel-config-unsupported"),
    (["Total number of work-items in a work-group cannot exceed 1024 for this device",
      "Exception caught at file:/app/ggml/src/ggml-sycl/ggml-sycl.cpp, line:3210"], "kernel-config-unsupported"),
    (['  File "/sgl-workspace/sglang/python/sglang/srt/distributed/device_communicators/custom_all_reduce.py", line '
      "250, in create_shared_buffer", "AssertionError: libcudart is not loaded in the current process"],
     "library-load-failed"),
])
def test_other_runtimes_words_for_a_cause_not_memory(tail, code):
    lines = ["[2025-04-22 21:29:09 TP0] Memory pool end. avail mem=7.57 GB",
             "[2025-04-22 21:29:09 TP0] Capture cuda graph begin. This can take up to several minutes."] + tail
    assert kind_of(lines) == ("NOT_OOM", code)


@pytest.mark.parametrize("probe", [
    "host:75208:75208 [4] NCCL INFO TUNER/Plugin: Plugin load returned 11 : libnccl-net.so: cannot open shared object "
    "file: No such file or directory : when loading libnccl-tuner.so",
    "host:75208:75208 [4] NCCL INFO PROFILER/Plugin: Plugin load returned 2 : libnccl-profiler.so: cannot open shared "
    "object file: No such file or directory",
])
def test_nccls_probe_of_an_optional_plugin_is_no_failure(probe):
    lines = ["[2025-02-08 00:25:30 TP4] Init torch distributed begin.", probe,
             "host:75208:75208 [4] NCCL INFO comm 0x5a4 rank 4 nranks 16 cudaDev 4 busId 9d000 - Init COMPLETE",
             "[2025-02-08 00:26:30 TP4] Load weight begin. avail mem=78.12 GB"]
    assert kind_of(lines)[1] != "library-load-failed"


# --- C++'s out_of_range / invalid_argument (a bad index or argument, not memory), and a title that names a ggml assert
# it fails "with" -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines, code", [
    (["Using --grammar with Command R causes an std::out_of_range exception and crashes.",
      "llama_new_context_with_model:      CUDA0 compute buffer size =   508.00 MiB",
      "msvcp140d.dll!std::_Xout_of_range(const char * _Message) Line 26"], "code-error"),
    (["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
      "terminate called after throwing an instance of 'std::out_of_range'", "  what():  unordered_map::at",
      "Aborted (core dumped)"], "code-error"),
    (["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
      "terminate called after throwing an instance of 'std::invalid_argument'", "  what():  stoi",
      "Aborted (core dumped)"], "code-error"),
    (["Misc. bug: Hybrid models failing to load with assert GGML_ASSERT(kv_size % n_pad == 0)",
      "llama_model_loader: loaded meta data with 41 key-value pairs and 449 tensors from granite-4.0-h.gguf"],
     "ggml-assert"),
    (["llama-server crashes with the assertion GGML_ASSERT(n_tokens_all <= cparams.n_batch) on long prompts",
      "main: server is listening on http://127.0.0.1:8080 - starting the main loop"], "ggml-assert"),
])
def test_cpp_logic_errors_and_a_named_ggml_assert_are_not_memory(lines, code):
    assert kind_of(lines) == ("NOT_OOM", code)



# --- a rule of its own ("==================" under a longer one) at the log's end is a report's separator, not a line
# cut partway -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rule", ["==================", "------", "**********"])
def test_a_shorter_rule_under_a_longer_one_is_not_a_cut_line(rule):
    from vramdoctor.logs.lines import cut_mid_line
    before = ["=================================", "GPU 0: NVIDIA GeForce RTX 3090 | 22.2 / 24.0 GB",
              "Report generated at: Thu Nov  6 11:19:54 2025", rule[0] * 33]
    assert not cut_mid_line(rule, before)


# --- a program's own summaries of what it allocated at load ("llm_load_tensors: VRAM used = ...", "total VRAM used")
# are not readings over time: no LEAK from them ----------------------------------------------------------------------

@pytest.mark.parametrize("summaries", [
    ["llm_load_tensors: system memory used  =   70.44 MiB", "llm_load_tensors: VRAM used           = 1456.19 MiB",
     "llama_new_context_with_model: total VRAM used: 1726.19 MiB (model: 1456.19 MiB, context: 270.00 MiB)"],
    ["llama_model_load_internal: mem required  =  372.40 MB (+ 1608.00 MB per state)",
     "llama_model_load_internal: VRAM used: 3475 MB", "llama_init_from_file: kv self size  = 1600.00 MB"],
])
def test_load_summaries_of_memory_used_are_no_growth(summaries):
    lines = (["llama.cpp is slow on my GPU"] + summaries
             + ["llama_print_timings:       total time =  4965.25 ms", "[end of text]"])
    assert kind_of(lines)[0] != "LEAK"


# --- a pasted script's own messages (echo "ERROR: ...", print("Error: ...".format(...))) are not the server's failure

@pytest.mark.parametrize("script", [
    ['    echo "ERROR: Server failed to start"', "    exit 1", "fi"],
    ['        print("Error: Command timed out after {} seconds".format(timeout))', "        sys.exit(1)"],
    ["  printf 'FATAL: model failed to load\\n'", "done"],
])
def test_a_pasted_scripts_messages_are_not_the_servers_failure(script):
    lines = (["My launcher script:"] + script
             + ["INFO 06-15 14:11:10 gpu_executor.py:83] # GPU blocks: 2595, # CPU blocks: 2048",
                "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"])
    assert kind_of(lines)[0] == "NONE"


# --- llama-cli's answer, printed bare after its "generate: n_ctx = ..." line: the model's words are not the report's
# ("the waves crashed", "UserNotFoundException"), but an error the program prints bare there is still read ---------------

_CLI = ["llama_kv_cache_init:      CUDA0 KV buffer size =   832.00 MiB",
        "generate: n_ctx = 4096, n_batch = 2048, n_predict = -1, n_keep = 1", "", "> write a story"]
_TIMINGS = ["llama_print_timings:        load time =    1520.11 ms",
            "llama_print_timings:       total time =    1952.91 ms /    35 tokens"]


@pytest.mark.parametrize("answer", [
    ["Once upon a time the waves crashed against the rocks, and the ship failed to reach the shore."],
    ["import com.example.demo.exception.UserNotFoundException;", "public class UserService {", "}"],
])
def test_the_models_answer_is_not_the_reports_words(answer):
    assert kind_of(_CLI + answer + _TIMINGS)[0] == "NONE"


def test_an_error_printed_bare_during_the_answer_is_still_read():
    kind, code = kind_of(_CLI + ["Once upon a time", "CUDA error 400 at ggml-cuda.cu:3343: invalid resource handle"])
    assert kind == "NOT_OOM"


# --- a Vulkan call that failed for another reason than memory, and 2023's loader's model-file errors: not memory; a
# Vulkan out of memory stays memory ------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines, want", [
    (["AdrenoVK-0: Failed to link shaders.", "llama_model_load: error loading model: vk::Device::createComputePipeline: "
      "ErrorUnknown"], ("NOT_OOM", "gpu-driver-error")),
    (["ggml_vulkan: Found 1 Vulkan devices:", "terminate called after throwing an instance of "
      "'vk::InitializationFailedError'", "  what():  vk::Queue::submit: ErrorInitializationFailed"],
     ("NOT_OOM", "gpu-driver-error")),
    (["main: seed = 1678609319", "llama_model_load: tensor 'tok_embeddings.weight' has wrong size in model file",
      "main: failed to load model from './models/7B/ggml-model-q4_0.bin'"], ("NOT_OOM", "model-file-error")),
    (["llama_model_load: invalid model file './models/ggml-model.bin' (bad magic)",
      "main: failed to load model from './models/ggml-model.bin'"], ("NOT_OOM", "model-file-error")),
])
def test_a_vulkan_call_failing_or_an_old_model_file_is_not_memory(lines, want):
    assert kind_of(lines) == want


def test_a_vulkan_out_of_memory_is_still_memory():
    kind, code = kind_of(["ggml_vulkan: Found 1 Vulkan devices:", "llama_model_load: error loading model: "
                          "vk::Device::allocateMemory: ErrorOutOfDeviceMemory"])
    assert kind != "NOT_OOM"


# --- more words of causes: a segfault in other locales, ggml's empty backend buffer (an allocation that came back
# NULL: memory), llama-quantize's own failures, a test harness's comparison, Ray's placement --------------------------

@pytest.mark.parametrize("tail, want", [
    (["段错误 (核心已转储)"], ("NOT_OOM", "crash-access-violation")),
    (["Speicherzugriffsfehler (Speicherabzug geschrieben)"], ("NOT_OOM", "crash-access-violation")),
    (["Erreur de segmentation (core dumped)"], ("NOT_OOM", "crash-access-violation")),
    (["llama_model_quantize: failed to quantize: quantized data validation failed"], ("NOT_OOM", "model-file-error")),
    (["Sorry, uknown model => cannot fix it => bailing out"], ("NOT_OOM", "model-file-error")),
    (["E   AssertionError: Scalars are not close!", "E   Absolute difference: 0.0375 (up to 0.01 allowed)"],
     ("NOT_OOM", "assertion-failed")),
    (["ValueError: Ray does not allocate any GPUs on the driver node. Consider adjusting the Ray placement group or "
      "running the driver on a GPU node."], ("NOT_OOM", "error-not-memory")),
])
def test_more_causes_in_other_words(tail, want):
    assert kind_of(["llama_kv_cache_init:      ROCm0 KV buffer size =   256.00 MiB"] + tail) == want


def test_ggmls_empty_backend_buffer_is_an_allocation_that_failed():
    kind, code = kind_of(["llm_load_tensors:      SYCL0 buffer size =  5871.99 MiB",
                          "llama_new_context_with_model: n_ctx      = 131072",
                          "GGML_ASSERT: D:\\a\\llama.cpp\\ggml\\src\\ggml-backend.c:96: base != NULL && \"backend buffer "
                          "base cannot be NULL\""])
    assert kind == "KV_CAPACITY", (kind, code)


# --- a hang told of a start-up step whose name holds "cache" (vLLM's "generating GPU P2P access cache": a file) is a
# hang; "stuck in a loop" over a log that ends on the request's timings is the output, not the process ------------------

def test_a_start_up_stuck_at_generating_the_p2p_access_cache_is_a_hang():
    kind, code = kind_of(['[Bug]: Stuck at "generating GPU P2P access cache"',
                          "INFO 07-29 08:27:19 api_server.py:219] vLLM API server version 0.5.3.post1",
                          "INFO 07-29 08:28:19 custom_all_reduce_utils.py:212] generating GPU P2P access cache in "
                          "/home/u/.cache/vllm/gpu_p2p_access_cache_for_0,1.json"])
    assert (kind, code) == ("UNDETERMINED", "hang-no-error")


def test_stuck_in_a_loop_over_a_finished_request_is_no_hang():
    kind, code = kind_of(["llama-mtmd-cli gets stuck in a loop on this image"] + _CLI
                         + ["the same sentence again and again"] + _TIMINGS)
    assert code != "hang-no-error"


# --- a client's view of a server that stopped answering (aiohttp's payload not completed, httpx's peer closed, Ollama's
# Windows socket closed under it): the server failed, its cause elsewhere: undetermined, not "not memory" ----------------

@pytest.mark.parametrize("line", [
    "aiohttp.client_exceptions.ClientPayloadError: Response payload is not completed: <TransferEncodingError: 400, "
    "message='Not enough data for satisfy transfer length header.'>",
    "httpx.RemoteProtocolError: peer closed connection without sending complete message body (incomplete chunked read)",
    'time=2025-03-10T10:00:09.000+08:00 level=ERROR source=server.go:456 msg="post predict" error="Post '
    '\\"http://127.0.0.1:53120/completion\\": read tcp 127.0.0.1:53123->127.0.0.1:53120: wsarecv: An existing '
    'connection was forcibly closed by the remote host."',
])
def test_a_clients_view_of_a_server_gone_is_undetermined(line):
    lines = ["[2025-03-10 10:00:00] The server is fired up and ready to roll!", line]
    assert kind_of(lines)[0] == "UNDETERMINED"


# --- TGI's weights that do not fit: the quantization advised is one TGI makes at load from an unquantized checkpoint
# (eetq, fp8, bitsandbytes), not awq/gptq, which need a checkpoint already quantized -----------------------------------

def test_tgis_weights_advice_quantizes_at_load():
    run = run_of(diag("\n".join([
        '2024-05-01T10:00:00.000000Z  INFO text_generation_launcher: Args { model_id: "meta-llama/Meta-Llama-3-70B-'
        'Instruct", quantize: None, num_shard: Some(1) }',
        "2024-05-01T10:00:06.000000Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 0 has a total capacity of "
        "79.15 GiB of which 10.56 MiB is free.",
        "2024-05-01T10:01:07.000000Z ERROR text_generation_launcher: Shard 0 failed to start"])))
    assert run.kind == "WEIGHTS"
    assert "--quantize eetq" in flags(run) and "awq" not in flags(run)


# --- llama.cpp's -c sized from the memory free: with flash attention off, each token of context also costs the KQ
# matrix of the compute buffer (n_ubatch x n_head x 4 bytes), so the -c advised is that much shorter -----------------------

@pytest.mark.parametrize("fa, ctx", [("0", 13056), ("1", 17152)])
def test_the_context_advised_counts_the_kq_buffer_without_flash_attention(fa, ctx):
    run = run_of(diag("\n".join([
        "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 4090) - 23305 MiB free",
        "print_info: n_head           = 40", "print_info: n_head_kv        = 8",
        "load_tensors:        CUDA0 model buffer size = 18508.35 MiB",
        "llama_context: n_ctx         = 32768", "llama_context: n_ubatch      = 512",
        f"llama_context: flash_attn    = {fa}",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of "
        "memory",
        "llama_kv_cache_unified: failed to allocate buffer for kv cache"])))
    assert run.kind == "KV_CAPACITY"
    assert f"-c {ctx} " in flags(run) + " "


# --- the images per prompt already capped at 1 in the engine's args are not proposed again -------------------------------

@pytest.mark.parametrize("args, capped", [("'limit_mm_per_prompt': {'image': 1}", True),
                                          ("'limit_mm_per_prompt': {'image': 4}", False)])
def test_the_images_per_prompt_in_use_are_not_proposed_again(args, capped):
    run = run_of(diag("\n".join([
        "(APIServer pid=1) INFO 09-01 10:00:00 [api_server.py:1805] vLLM API server version 0.10.1.1",
        "(APIServer pid=1) INFO 09-01 10:00:00 [utils.py:326] non-default args: {'model': 'Qwen/Qwen2.5-VL-32B-Instruct"
        "-AWQ', " + args + ", 'max_model_len': 8192}",
        "(EngineCore_0 pid=190) INFO 09-01 10:01:10 [gpu_model_runner.py:2007] Model loading took 19.8 GiB",
        "(EngineCore_0 pid=190) INFO 09-01 10:01:12 [gpu_model_runner.py:2461] Encoder cache will be initialized with a "
        "budget of 16384 tokens, and profiled with 1 image items of the maximum feature size.",
        "(EngineCore_0 pid=190) ERROR 09-01 10:01:14 [core.py:700] Traceback (most recent call last):",
        '(EngineCore_0 pid=190) ERROR 09-01 10:01:14 [core.py:700]   File "/usr/lib/python3/vllm/v1/worker/'
        'gpu_model_runner.py", line 2603, in profile_run',
        "(EngineCore_0 pid=190) ERROR 09-01 10:01:14 [core.py:700]     dummy_encoder_outputs = self.model."
        "get_multimodal_embeddings(",
        "(EngineCore_0 pid=190) ERROR 09-01 10:01:14 [core.py:700] torch.OutOfMemoryError: CUDA out of memory. Tried "
        "to allocate 3.20 GiB. GPU 0 has a total capacity of 47.38 GiB of which 1.10 GiB is free."])))
    assert ("--limit-mm-per-prompt" not in said(run)) == capped
