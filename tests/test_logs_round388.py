"""Kinds of fault found on held-out rounds 388-395 (logs vramdoctor had not seen), each in several wordings of our own,
with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, kind_of, run_of

# --- a log that ends while a start-up step is under way is that step's, even where the pool is shorter than the
# --- context (which fails only a request longer than the pool, once serving); Python's exit warnings after it say
# --- nothing of their own

_SGLANG_SWA = [
    "[2026-08-01 21:40:00] server_args=ServerArgs(model_path='org/Model-A', mem_fraction_static=0.88, "
    "context_length=65536, max_running_requests=48, chunked_prefill_size=8192)",
    "[2026-08-01 21:40:02] Load weight begin. avail mem=115.26 GB",
    "[2026-08-01 21:50:58] Load weight end. type=ModelForCausalLM, avail mem=22.10 GB, mem usage=93.16 GB.",
    "[2026-08-01 21:51:16] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 32997, K size: 0.76 GB, V size: "
    "0.76 GB",
    "[2026-08-01 21:51:16] Memory pool end. avail mem=12.49 GB",
]


@pytest.mark.parametrize("tail", [
    ["[2026-08-01 21:51:16] Capture cuda graph begin. This can take up to several minutes. avail mem=11.78 GB",
     "  0%|          | 0/58 [00:00<?, ?it/s]Capturing batches (bs=48 avail_mem=11.78 GB):   0%|          | 0/58",
     "/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: There appear to be 1 "
     "leaked semaphore objects to clean up at shutdown",
     "  warnings.warn('resource_tracker: There appear to be %d '"],
    ["[2026-08-01 21:51:16] Capture cuda graph begin. This can take up to several minutes. avail mem=11.78 GB",
     "Capturing batches (bs=32 avail_mem=11.70 GB):  40%|####      | 23/58 [00:04<00:06,  5.1it/s]",
     "  warnings.warn('resource_tracker: There appear to be %d '"],
    ["[2026-08-01 21:51:16] Capture cuda graph begin. This can take up to several minutes. avail mem=11.78 GB"],
])
def test_a_log_ending_in_a_start_up_step_is_that_steps_over_a_pool_shorter_than_the_context(tail):
    run = run_of(diag("\n".join(_SGLANG_SWA + tail)))
    assert (run.kind, run.code) == ("UNDETERMINED", "log-ends-during-step"), (run.kind, run.code)
    assert "WARMUP" in run.candidates and "32,997" in run.message  # (the pool's shortfall told beside the step)


def test_a_pool_shorter_than_the_context_after_the_server_is_ready_is_a_limit_told_not_a_failure():
    # (stop 45, h422/09: SGLang caps a request's input to the smaller of the context and the pool, scheduler's
    # max_req_input_len, and refuses longer ones: a server that is ready with such a pool has not failed)
    lines = _SGLANG_SWA + ["[2026-08-01 21:52:00] The server is fired up and ready to roll!"]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NONE", "no-memory-problem"), (run.kind, run.code)
    assert "32,997" in run.message


def test_a_pool_shorter_than_the_context_with_a_failure_told_stays_kv_capacity():
    lines = _SGLANG_SWA + ["[2026-08-01 21:52:00] The server is fired up and ready to roll!",
                           "Requests longer than about 30k tokens all fail."]
    assert kind_of(lines) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")


# --- LMCache's words of its own buffer ("Failed to allocate memory for the KV cache") are no KV pool of the engine's


@pytest.mark.parametrize("line", [
    "[2025-08-09 17:55:57,778] LMCache WARNING: Failed to allocate memory for the KV cache.",
    "(EngineCore_DP0 pid=7) [2025-10-01 08:00:01,002] LMCache ERROR: Failed to allocate memory for the kv cache, "
    "skipping store (cache_engine.py:310:lmcache.v1.cache_engine)",
])
def test_lmcache_failing_to_allocate_its_buffer_is_not_the_engines_kv_pool(line):
    for lines in (["[Bug] LMCache stops storing after the benchmark runs for a while", "I see this log:", "```", line,
                   "```"],
                  ["INFO 08-09 17:50:00 [api_server.py:1800] vLLM API server version 0.10.0",
                   "INFO 08-09 17:50:40 [gpu_worker.py:276] Available KV cache memory: 20.01 GiB",
                   "INFO:     Application startup complete.",
                   'INFO:     127.0.0.1:40000 - "POST /v1/completions HTTP/1.1" 200 OK', line,
                   'INFO:     127.0.0.1:40002 - "POST /v1/completions HTTP/1.1" 200 OK']):
        kind, code = kind_of(lines)
        assert kind != "KV_CAPACITY" and code != "kv-cache-alloc-failed", (kind, code)


def test_an_engines_own_kv_cache_allocation_failure_is_still_kv_capacity():
    lines = ["INFO 08-09 17:50:00 [api_server.py:1800] vLLM API server version 0.10.0",
             "INFO 08-09 17:50:30 [gpu_model_runner.py:2007] Model loading took 14.2 GiB and 5.1 seconds",
             "ERROR 08-09 17:50:40 [core.py:700] RuntimeError: Failed to allocate memory for the KV cache"]
    assert kind_of(lines)[0] == "KV_CAPACITY"


# --- llama.cpp's loader refusing a model for a cause it names, with no memory in it: not memory


@pytest.mark.parametrize("line", [
    "0.00.622.521 E llama_model_load: error loading model: borrow_shared_tensor: this model is a draft head without "
    "its own 'token_embd.weight'; load it as a draft of its target model, not on its own",
    "llama_model_load: error loading model: invalid split file idx: 3 (file: model-00003-of-00002.gguf)",
    "llama_model_load: error loading model: failed to open /models/qwen.gguf: No such file or directory",
])
def test_llamacpp_error_loading_model_with_a_cause_of_no_memory_is_not_oom(line):
    lines = ["build: 6324 (2bdc9f1) with cc (Ubuntu 11.4.0) for x86_64-linux-gnu",
             "main: loading model", line,
             "llama_model_load_from_file_impl: failed to load model",
             "main: exiting due to model loading error"]
    assert kind_of(lines) == ("NOT_OOM", "model-load-error")


@pytest.mark.parametrize("line", [
    "llama_model_load: error loading model: unable to allocate CUDA0 buffer",
    "llama_model_load: error loading model: vk::Device::allocateMemory: ErrorOutOfDeviceMemory",
])
def test_llamacpp_error_loading_model_for_want_of_memory_stays_weights(line):
    lines = ["build: 6324 (2bdc9f1) with cc (Ubuntu 11.4.0) for x86_64-linux-gnu", "main: loading model", line,
             "llama_model_load_from_file_impl: failed to load model"]
    assert kind_of(lines)[0] == "WEIGHTS"


# --- a setting the loader refuses, and an RPC server it cannot reach: not memory


@pytest.mark.parametrize("line", [
    "llama_prepare_model_devices: invalid value for main_gpu: 0 (available devices: 0)",
    "llama_prepare_model_devices: invalid value for main_gpu: 2 (available devices: 2)",
])
def test_an_invalid_value_for_a_loader_setting_is_a_bad_argument(line):
    lines = [line, "llama_model_load_from_file_impl: failed to load model",
             "ValueError: Failed to load model from file: D:\\models\\gemma.gguf"]
    assert kind_of(lines) == ("NOT_OOM", "bad-argument")


@pytest.mark.parametrize("lines", [
    ["llama_model_load_from_file_impl: using device RPC0 (192.168.1.20:50052) - 0 MiB free",
     "load_tensors: loading model tensors, this can take a while... (mmap = true)",
     "Failed to connect to :50052", "Failed to connect to :50052"],
    ["main: loading model", "Failed to connect to [fe80::1]:50052"],
    ["main: loading model", "Failed to connect to 10.0.0.7:50052", "Failed to connect to 10.0.0.7:50052",
     "llama_model_load_from_file_impl: failed to load model"],
])
def test_an_rpc_server_that_cannot_be_reached_is_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "rpc-worker-unreachable")


# --- a front end's words that its model "appears to have crashed" name no cause


@pytest.mark.parametrize("words", [
    "bug: AMD GPU: Error: Model appears to have crashed!",
    "Error: the model seems to have stopped. Please try again.",
    "RuntimeError: Model crashed!",
])
def test_a_crash_told_with_no_cause_is_undetermined_not_a_cause(words):
    lines = [words, "```",
             "[2025-09-27][09:18:10][tauri_plugin_llamacpp::commands][INFO] Waiting for model session to be ready...",
             "[2025-09-27][09:18:10][tauri_plugin_llamacpp::commands][INFO] [llamacpp] system info: n_threads = 6",
             "```"]
    kind, code = kind_of(lines)
    assert kind == "UNDETERMINED", (kind, code)


# --- out-of-memory words that name a check a test script passed


@pytest.mark.parametrize("lines", [
    ["[2/8] Tool response prefill OOM (~25K-token mock tool response) ...",
     "  \u2713 tool prefill OK \u2014 text response (698 chars, finish=stop)", "[3/8] Multi-turn agent prompt ...",
     "  \u2713 multi-turn agent OK"],
    ["tests/test_serving.py::test_long_prompt_oom PASSED", "tests/test_serving.py::test_batch PASSED"],
    ["[PASS] KV cache OOM guard at 128 concurrent requests", "[PASS] warm-up"],
    ["[1/3] Long prompt OOM check \u2714\ufe0f", "[2/3] Concurrency OOM check \u2714\ufe0f"],
    ["Long prompt OOM check passed", "Concurrency OOM test -> OK"],
])
def test_a_check_named_for_out_of_memory_that_passed_is_no_failure(lines):
    assert kind_of(["Running STRESS / boundary test against http://127.0.0.1:30000"] + lines)[0] == "NONE"


@pytest.mark.parametrize("lines", [
    ["[2/8] Tool response prefill OOM (~25K-token mock tool response) ...",
     "  \u2717 failed: CUDA out of memory. Tried to allocate 2.00 GiB"],
    ["tests/test_serving.py::test_long_prompt_oom FAILED"],
    # (from the new-user review: a real out-of-memory beside another check's mark)
    ["\u274c --max-model-len 32768: CUDA out of memory on the first long request", "\u2705 --max-model-len 16384: works"],
    ["Results: \u2705 16k context works, \u274c 32k context: CUDA out of memory when the prompt is long"],
    ["bs=64 ctx=32768: OOM", "\u2713 bs=32 ctx=32768 OK"],
    ["| 32768 | \u2713 | OOM |"],
    ["CUDA out of memory while serving request 17", "[  OK  ] Started vllm.service."],
])
def test_a_check_named_for_out_of_memory_that_failed_is_still_a_failure(lines):
    assert kind_of(["Running STRESS / boundary test against http://127.0.0.1:30000"] + lines)[0] != "NONE"


# --- CTranslate2 (faster-whisper and the tools on it): its CUDA error's words, the model made (weights) or called
# --- (serving) by its frames


@pytest.mark.parametrize("lines, kind", [
    (["Standalone Faster-Whisper r141.3 running on: CUDA", "Traceback (most recent call last):",
      'File "D:\\whisper-fast\\__main__.py", line 529, in cli', 'File "faster_whisper\\transcribe.py", line 125, in init',
      "RuntimeError: CUDA failed with error out of memory"], "WEIGHTS"),
    (["Traceback (most recent call last):",
      '  File "/app/main.py", line 12, in <module>', '    model = WhisperModel("large-v3", device="cuda")',
      '  File "/usr/lib/python3.10/site-packages/faster_whisper/transcribe.py", line 145, in __init__',
      "    self.model = ctranslate2.models.Whisper(", "RuntimeError: CUDA failed with error out of memory"], "WEIGHTS"),
    (["Traceback (most recent call last):",
      '  File "/usr/lib/python3.8/site-packages/faster_whisper/transcribe.py", line 384, in generate_segments',
      "    ) = self.generate_with_fallback(encoder_output, prompt, tokenizer, options)",
      '  File "/usr/lib/python3.8/site-packages/faster_whisper/transcribe.py", line 584, in generate_with_fallback',
      "    result = self.model.generate(", "RuntimeError: CUDA failed with error out of memory"], "RUNTIME"),
    (["INFO:root:Error processing or transcribing /movies/a.avi: CUDA failed with error out of memory"], "RUNTIME"),
])
def test_ctranslate2_out_of_memory_is_placed_by_its_frames(lines, kind):
    rep = diag("\n".join(lines))
    assert rep.engine == "ctranslate2" and run_of(rep).kind == kind, (rep.engine, run_of(rep).kind)


def test_a_users_code_that_makes_the_model_is_no_step_of_a_later_kill():
    lines = ["every few hours the memory of an instance is maxed out and the worker is killed:",
             '"[ERROR] Worker (pid:25) was sent SIGKILL! Perhaps out of memory?"',
             "This is the code I use:", 'self.model = WhisperModel("small", device="cuda")',
             "segments, _ = self.model.transcribe(audio=audio_bytes, language='en')"]
    assert kind_of(lines)[0] != "WEIGHTS"


def test_ctranslate2_other_cuda_errors_are_not_memory():
    assert kind_of(["faster-whisper 1.0.3", "RuntimeError: CUDA failed with error unknown error"])[0] == "NOT_OOM"


# --- whisper.cpp: its load, its decoders' KV caches, its calls


@pytest.mark.parametrize("lines, kind", [
    (["whisper_init_from_file_with_params_no_state: loading model from '.\\ggml-large-v3.bin'",
      "whisper_model_load: loading model", "whisper_model_load: n_vocab       = 51866",
      "whisper_model_load: n_langs       = 100",
      'GGML_ASSERT: D:\\a\\whisper.cpp\\ggml-backend.c:460: data != NULL && "failed to allocate buffer"'], "WEIGHTS"),
    (["whisper_model_load: model size    = 3094.36 MB",
      "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 560.00 MiB on device 0: cudaMalloc failed: out of memory",
      "whisper_kv_cache_init: failed to allocate memory for the kv cache",
      "whisper_full_with_state: whisper_kv_cache_init() failed for self-attention cache",
      "bin/main: failed to process audio"], "KV_CAPACITY"),
])
def test_whisper_cpp_out_of_memory_is_placed_by_its_steps(lines, kind):
    rep = diag("\n".join(lines))
    assert rep.engine == "whisper.cpp" and run_of(rep).kind == kind, (rep.engine, run_of(rep).kind)


# --- a leak named as what other reports tell is not the writer's own growth


@pytest.mark.parametrize("words", [
    "I have seen some other talk of memory leaks (#390), but I'm having a more sporadic, shorter term issue.",
    "There are existing issues about memory leaks in this server, but mine fails right away:",
    "Unlike the memory leak in #1234, this fails on the first long file:",
])
def test_a_leak_named_as_other_reports_is_not_growth_stated(words):
    lines = [words, "Traceback (most recent call last):",
             '  File "/usr/lib/python3.8/site-packages/faster_whisper/transcribe.py", line 584, in '
             'generate_with_fallback', "    result = self.model.generate(",
             "RuntimeError: CUDA failed with error out of memory"]
    assert kind_of(lines)[0] == "RUNTIME"


def test_a_leak_the_writer_states_is_still_growth():
    lines = ["Memory keeps growing over time with every request until the server is killed.",
             "RSS readings: 2.1 GB, 3.4 GB, 5.0 GB, 7.7 GB"]
    assert kind_of(lines)[0] == "LEAK"


# --- a backtrace as glibc prints it (ggml_print_backtrace without gdb): its frames place the failure; the multimodal
# --- projector's own loader is the projector's weights

_GLIBC_TRACE = [
    "/root/llama.cpp/build/bin/libggml-base.so.0(ggml_print_backtrace+0x1df) [0x76e03fb5da3f]",
    "/root/llama.cpp/build/bin/libggml-base.so.0(ggml_abort+0x11e) [0x76e03fb5dbce]",
]


@pytest.mark.parametrize("frames", [
    ["/root/llama.cpp/build/bin/libmtmd.so.0(_ZN17clip_model_loader12load_tensorsER8clip_ctx+0x9b86) [0x76e040035586]",
     "/root/llama.cpp/build/bin/libmtmd.so.0(_Z9clip_initPKc19clip_context_params+0x305) [0x76e04001fb95]",
     "/root/llama.cpp/build/bin/libmtmd.so.0(mtmd_init_from_file+0x2d) [0x76e03ff8ca0d]"],
    ["/opt/llama/lib/libmtmd.so(mtmd_init_from_file+0x41) [0x7f00aa001122]",
     "/opt/llama/bin/llama-server(+0x11b1) [0x5a5c05f151b1]"],
])
def test_a_glibc_backtrace_through_the_projectors_loader_is_its_weights(frames):
    lines = ["0.00.408.510 I srv    load_model: loading model 'org/Model-VL-GGUF:IQ4_XS'",
             "/root/llama.cpp/ggml/src/ggml-backend.cpp:179: GGML_ASSERT(buffer) failed",
             "0.24.923.820 E ggml_backend_cuda_buffer_type_alloc_buffer: allocating 887.99 MiB on device 0: cudaMalloc "
             "failed: out of memory", "0.24.923.823 E alloc_tensor_range: failed to allocate CUDA0 buffer of size "
             "931127936"] + _GLIBC_TRACE + frames
    assert kind_of(lines) == ("WEIGHTS", "projector-weights-oom")


def test_a_glibc_backtrace_through_the_models_own_loader_is_the_weights():
    lines = ["E ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9887.99 MiB on device 0: cudaMalloc failed: out "
             "of memory"] + _GLIBC_TRACE + [
        "/root/llama.cpp/build/bin/libllama.so(_ZN11llama_model12load_tensorsER18llama_model_loader+0x5e) [0x7f01]",
        "/root/llama.cpp/build/bin/libllama.so(llama_model_load_from_file+0x2d) [0x7f02]"]
    kind, code = kind_of(lines)
    assert kind == "WEIGHTS" and code != "projector-weights-oom", (kind, code)


# --- PyTorch's allocators refusing past what is allowed, also cut to its first words by a UI


@pytest.mark.parametrize("lines", [
    ["ComfyUI: Error loading model: Allocation on device", "got prompt",
     "Loading checkpoint shards:   0%|          | 0/4 [00:07<?, ?it/s]"],
    ["Loading checkpoint shards:  25%|##5       | 1/4 [00:07<00:21,  7.0s/it]",
     "torch.OutOfMemoryError: allocation on device 0 would exceed allowed memory"],
    ["Loading checkpoint shards:  50%|#####     | 2/4 [00:09<00:09,  4.5s/it]",
     "Error loading model: Allocation on device 0"],
])
def test_an_allocation_past_what_the_device_allows_is_out_of_memory(lines):
    assert kind_of(lines)[0] == "WEIGHTS"


def test_an_allocation_on_device_told_as_done_is_no_failure():
    assert kind_of(["Allocation on device 0 took 12 ms", "Model loaded"])[0] not in ("WEIGHTS", "UNDETERMINED")


# --- SGLang's 2024 leak warning (available_size already free + evictable), a warning it goes on from


@pytest.mark.parametrize("avail, total, kind", [(75821, 75833, "LEAK"), (75833, 75833, None), (75840, 75833, "NOT_OOM")])
def test_sglangs_early_leak_warning_is_read_from_its_counts(avail, total, kind):
    lines = ["Rank 0: max_total_num_token=75833, max_prefill_num_token=12638, context_len=4096,",
             "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
             "new fill batch. #seq: 1. #cached_token: 0. #new_token: 27. #remaining_req: 0. #running_req: 0",
             f"/usr/lib/python3/site-packages/sglang/srt/managers/router/model_rpc.py:212: UserWarning: Warning: "
             f"available_size={avail}, max_total_num_token={total}", "KV cache pool leak detected!",
             '  warnings.warn(']
    if kind is None:
        return  # (equal counts: SGLang prints no warning then)
    rep = diag("\n".join(lines))
    run = run_of(rep)
    assert run.kind == kind, (run.kind, run.code)
    if kind == "LEAK":
        assert run.code == "kv-slots-not-returned" and "12 of" in run.message


# --- a notebook's kernel that died names no cause


@pytest.mark.parametrize("line", [
    "nbclient.exceptions.DeadKernelError: Kernel died",
    "Kernel died while waiting for execute reply.",
    "The kernel appears to have died. It will restart automatically.",
])
def test_a_notebook_kernel_that_died_names_no_cause(line):
    lines = ["Run `import vllm`, then the engine starts:",
             "INFO 09-01 10:00:00 [api_server.py:1800] vLLM API server version 0.6.3", line]
    assert kind_of(lines)[0] == "UNDETERMINED"


# --- Mooncake's RDMA registration failing is the transfer engine's set-up, not memory


@pytest.mark.parametrize("lines", [
    ["PD mode failure", "W1212 12:06:27.219069   205 rdma_transport.cpp:166] RdmaTransport: Failed to register memory: "
     "addr 0x7fd3e7048000 length 294912"] * 1,
    ["E0101 08:00:00.000001  77 rdma_transport.cpp:166] RdmaTransport: Failed to register memory: addr 0x7f00 length "
     "1073741824", "RuntimeError: Mooncake transfer engine initialization failed"],
])
def test_mooncakes_rdma_registration_failing_is_a_communication_error(lines):
    assert kind_of(lines) == ("NOT_OOM", "communication-error")


# --- in Chinese, a long document or text worked on is a request


@pytest.mark.parametrize("words", ["对于一些篇幅较长的文档进行分析时总是报错，这个怎么解决？", "处理长文本时显存不够，报错如下：",
                                   "总结很长的文档的时候报错"])
def test_a_long_document_worked_on_in_chinese_is_a_request(words):
    lines = [words, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 18.43 GiB. GPU 0 has a total "
                    "capacity of 23.50 GiB of which 6.64 GiB is free."]
    assert kind_of(lines)[0] == "RUNTIME"


# --- an engine named in a person's Chinese words is the writer's, not the log's; Xinference has its own flags


def test_an_engine_named_in_chinese_words_does_not_make_the_log_its():
    lines = ["### The command used to start Xinference", "xinference-local -H 0.0.0.0 --log-level DEBUG",
             "之前用ollama从没遇到提示GPU资源不足，是不是ollama会自动从不同的gpu获取资源",
             "对于一些篇幅较长的文档进行分析时总是报错",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 18.43 GiB. GPU 0 has a total capacity of "
             "23.50 GiB of which 6.64 GiB is free."]
    rep = diag("\n".join(lines))
    assert rep.engine == "xinference", rep.engine
    assert not any("OLLAMA" in a["flags"] or "num_ctx" in a["flags"] for a in run_of(rep).advice)


def test_an_engine_named_in_chinese_words_alone_is_still_read_as_named():
    """With no program's line naming any engine, the writer's words are all there is."""
    lines = ["我用ollama跑qwen2.5的时候报错了，显存不够", "Error: llama runner process has terminated: cudaMalloc failed: out of "
             "memory"]
    assert diag("\n".join(lines)).engine == "ollama"


# --- Python refusing a call's arguments, whatever they are named, is no memory


@pytest.mark.parametrize("line", [
    "TypeError: VLLMModelConfig.__init__() got an unexpected keyword argument 'gpu_memory_utilization'",
    "TypeError: LLM.__init__() missing 1 required positional argument: 'model'",
    "TypeError: load_model() takes 2 positional arguments but 3 were given",
])
def test_a_call_python_refuses_is_not_memory(line):
    lines = ["lighteval vllm model_config.yaml leaderboard|gsm8k|0|0", "Traceback (most recent call last):",
             '  File "/usr/lib/python3.11/site-packages/lighteval/main_vllm.py", line 120, in vllm', line]
    assert kind_of(lines)[0] == "NOT_OOM"


# --- TensorRT-LLM's PyTorch backend fitting a context the user did not set to its pool; its assertions on settings

_TRT_DEFAULTED = [
    "[12/20/2025-04:20:19] [TRT-LLM] [I] Starting TensorRT-LLM init.",
    "[12/20/2025-04:21:09] [TRT-LLM] [I] max_seq_len is not specified, using inferred value 131072",
    "[12/20/2025-04:21:51] [TRT-LLM] [W] Attention window size 131072 exceeds upper bound 86720 for available blocks. "
    "Reducing to 86720.",
    "[12/20/2025-04:21:51] [TRT-LLM] [W] Adjusted max_seq_len to 86720",
    "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 5.95 GiB for max tokens in paged KV cache (86720).",
    "INFO:     Application startup complete.",
]


def test_trtllm_fitting_a_context_the_user_did_not_set_is_no_failure():
    assert kind_of(_TRT_DEFAULTED) == ("NONE", "context-fit-to-pool")


def test_trtllm_cutting_a_context_the_user_set_stays_kv_capacity():
    lines = [_TRT_DEFAULTED[0], "trtllm-serve openai/gpt-oss-120b --max_seq_len 131072"] + _TRT_DEFAULTED[2:]
    assert kind_of(lines)[0] == "KV_CAPACITY"


@pytest.mark.parametrize("line", [
    "[TensorRT-LLM][ERROR] Assertion failed: When KV cache block reuse is set, model has to be built with paged context "
    "FMHA support (/app/tensorrt_llm/cpp/tensorrt_llm/batch_manager/trtGptModelInflightBatching.cpp:140)",
    "[TensorRT-LLM][ERROR] Assertion failed: Do not set crossKvCacheFraction for decoder-only model",
    "[TensorRT-LLM][ERROR] Assertion failed: remaining_buffer_size == 0 (/workspace/tensorrt_llm/cpp/tensorrt_llm/"
    "kernels/decoderMaskedMultiheadAttention/decoderXQAImplJIT/cubinObjRegistry.h:45)",
])
def test_trtllm_assertions_on_settings_or_builds_are_not_memory(line):
    assert kind_of(["[TensorRT-LLM] TensorRT-LLM version: 0.17.0", line]) == ("NOT_OOM", "assertion-failed")


@pytest.mark.parametrize("line", [
    "[TensorRT-LLM][ERROR] Assertion failed: freeBlockIterator.has_value() (/app/tensorrt_llm/cpp/tensorrt_llm/"
    "batch_manager/kvCacheManager.cpp:250)",
    "[TensorRT-LLM][ERROR] Assertion failed: Impossible to fit in any sequence in kvCache",
])
def test_trtllm_assertions_on_the_pool_stay_memory(line):
    assert kind_of(["[TensorRT-LLM] TensorRT-LLM version: 0.17.0", line])[0] != "NOT_OOM"


# --- a shell's report of a kill glued to the load's progress bar it cut short


@pytest.mark.parametrize("line", [
    "Loading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s][1]    78030 killed     python run_localGPT.py",
    "Loading checkpoint shards:  50%|#####     | 1/2 [00:41<00:41, 41.2s/it][2]+  Killed                  python serve.py",
])
def test_a_job_kill_glued_to_a_load_bar_is_the_weights(line):
    assert kind_of(["python run.py --device_type cpu", line])[0] == "WEIGHTS"


# --- a loader's error that names only the file names no cause


@pytest.mark.parametrize("line", [
    "`Error: error loading model /Users/me/.ollama/models/blobs/sha256:8934d96d3f08982e95922b2b7a2c626a1fe873d7c3b0`",
    "Error: error loading model /root/.ollama/models/blobs/sha256-6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c",
    "llama runner: error loading model: '/models/qwen2.5-7b-instruct-q4_k_m.gguf'",
])
def test_an_error_loading_a_model_that_names_only_its_file_is_undetermined(line):
    assert kind_of(["ollama run llama3.1:70b", line])[0] == "UNDETERMINED"


# --- a client's words that its server crashed name no cause; a program's words that its error is normal take it back


@pytest.mark.parametrize("line", [
    "/src/llama.cpp/ggml/src/ggml-rpc/ggml-rpc.cpp:858: Remote RPC server crashed or returned malformed response",
    "Error: the backend crashed or returned an invalid reply",
])
def test_a_server_that_crashed_or_answered_garbage_names_no_cause(line):
    assert kind_of(["llama-bench -m model.gguf --rpc 10.0.0.2:50052 -p 32768", line])[0] == "UNDETERMINED"


@pytest.mark.parametrize("line", [
    "0.00.289.588 E llama_init_from_model: failed to initialize the context: dflash requires ctx_other to be set (this "
    "warning is normal during memory fitting)",
    "0.00.301.002 E llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache "
    "(this warning is normal during memory fitting)",
])
def test_an_error_its_program_calls_normal_is_no_failure(line):
    lines = [line, "main: model loaded", "main: server is listening on http://0.0.0.0:8098",
             "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]
    assert kind_of(lines)[0] == "NONE"


# --- from the new-user review of this stop's readings


def test_a_windows_paging_file_too_small_while_loading_is_not_said_to_be_no_memory():
    lines = ["main: loading model", "llama_model_load: error loading model: MapViewOfFile failed: The paging file is too "
             "small for this operation to complete.", "llama_load_model_from_file: failed to load model"]
    assert kind_of(lines)[0] != "NOT_OOM"


@pytest.mark.parametrize("line", ["Peak allocation on device", "[stats] total allocation on device 0"])
def test_a_statistic_of_allocation_on_device_is_no_failure(line):
    assert kind_of(["got prompt", line, "Prompt executed in 8.51 seconds"])[0] == "NONE"


def test_lmcache_relaying_an_explicit_cuda_oom_is_that_oom():
    lines = ["INFO:     Application startup complete.",
             'INFO:     127.0.0.1:40000 - "POST /v1/completions HTTP/1.1" 200 OK',
             "[2025-10-01 08:00:01,002] LMCache ERROR: Failed to allocate memory for the KV cache on GPU: CUDA out of "
             "memory. Tried to allocate 2.00 GiB"]
    assert kind_of(lines)[0] == "RUNTIME"


def test_a_leak_named_as_like_another_issue_is_not_growth_stated():
    lines = ["This looks similar to issue #390 (memory leak), but I'm not sure it is the same thing.",
             "Traceback (most recent call last):",
             '  File "/usr/lib/python3.8/site-packages/faster_whisper/transcribe.py", line 584, in '
             'generate_with_fallback', "    result = self.model.generate(",
             "RuntimeError: CUDA failed with error out of memory"]
    assert kind_of(lines)[0] == "RUNTIME"


_WHISPER_UP = ["whisper_model_load: model size    = 3094.36 MB", "whisper_init_state: kv cross size =  251.66 MB"]
_GGML_CUDA_OOM = ["CUDA error: out of memory",
                  "  current device: 0, in function ggml_backend_cuda_graph_compute at ggml/src/ggml-cuda/ggml-cuda.cu:2720",
                  "  cudaStreamSynchronize(cuda_ctx->stream())"]


@pytest.mark.parametrize("between", [
    ["main: processing 'talk.wav' (57600000 samples, 3600.0 sec), 4 threads, 1 processors, 5 beams + best of 5",
     "[00:00:00.000 --> 00:00:04.000]   And so my fellow Americans"],
    ["main: processing 'talk.wav' (57600000 samples, 3600.0 sec), 4 threads, 1 processors, 5 beams + best of 5"],
    ["whisper server listening at http://127.0.0.1:8080", "Received request: jfk.wav", "Successfully loaded jfk.wav"],
])
def test_whisper_cpp_out_of_memory_while_transcribing_is_serving(between):
    rep = diag("\n".join(_WHISPER_UP + between + _GGML_CUDA_OOM))
    assert rep.engine == "whisper.cpp" and run_of(rep).kind == "RUNTIME", (rep.engine, run_of(rep).kind)


def test_ctranslate2_weights_already_8_bit_are_not_advised_8_bit_again():
    lines = ['model = WhisperModel("large-v3", device="cuda", compute_type="int8_float16")',
             "Traceback (most recent call last):",
             '  File "/usr/lib/python3.10/site-packages/faster_whisper/transcribe.py", line 145, in __init__',
             "RuntimeError: CUDA failed with error out of memory"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS" and not any("int8_float16" in a["flags"] for a in run.advice), run.advice


# --- from the second review: an out-of-memory a line states is no check's name, whatever mark or "passed" follows


@pytest.mark.parametrize("lines", [
    ["[2/4] 32k-token prompt ... CUDA out of memory", "  \u2713 server still responding"],
    ["Our vLLM pod gets CUDA out of memory about 10 minutes after the startup health check passed."],
    ["bs=64 -> CUDA out of memory, bs=32 -> OK"],
    ["results: -np 4: OOM, -np 2: ok"],
])
def test_an_out_of_memory_stated_beside_a_pass_is_still_a_failure(lines):
    assert kind_of(lines)[0] != "NONE"


@pytest.mark.parametrize("name", ["blob", "voice_note.aac", "clip.opus"])
def test_whisper_servers_uploaded_file_is_no_model_loaded(name):
    lines = _WHISPER_UP + ["whisper server listening at http://127.0.0.1:8080", f"Received request: {name}",
                           f"Successfully loaded {name}"] + _GGML_CUDA_OOM
    rep = diag("\n".join(lines))
    assert rep.engine == "whisper.cpp" and len(rep.runs) == 1 and run_of(rep).kind == "RUNTIME", (
        rep.engine, len(rep.runs), run_of(rep).kind)


@pytest.mark.parametrize("line", ["ERROR: Failed to load model: Allocation on device",
                                  "RuntimeError: Allocation on device"])
def test_allocation_on_device_cut_after_any_errors_words_is_out_of_memory(line):
    run = run_of(diag("\n".join(["got prompt", line])))
    assert run.oom is True or run.kind in ("WEIGHTS", "RUNTIME", "WARMUP", "KV_CAPACITY"), (run.kind, run.code)


@pytest.mark.parametrize("message", ["Remote server 0.0.0.0:41029 closed", "Server disconnected without sending a response"])
def test_a_logged_message_that_only_says_the_other_side_went_away_names_no_cause(message):
    lines = ["2024-11-20 15:33:02,411 xinference.api.restful_api 1 INFO     Chat completion request for qwen2.5-instruct",
             f"2024-11-20 15:33:09,877 xinference.api.restful_api 1 ERROR    {message}",
             "Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.10/dist-packages/xinference/api/restful_api.py", line 2047, in '
             "create_chat_completion", "    data = await model.chat(",
             f"xoscar.errors.ServerClosed: {message}"]
    assert kind_of(lines)[0] == "UNDETERMINED"


@pytest.mark.parametrize("line", [
    "[12/20/2025-04:30:12] [TRT-LLM] [E] Error in request 12: The sum of prompt length (98213) and query length (0) "
    "should not exceed max_num_tokens (86720)",
    "[TensorRT-LLM][ERROR] Encountered an error in forwardAsync function: Prompt length (98213) exceeds maximum input "
    "length (86720).",
])
def test_trtllm_refusing_a_request_longer_than_the_pool_it_fit_is_no_clean_bill(line):
    lines = _TRT_DEFAULTED + ['INFO:     127.0.0.1:40022 - "POST /v1/chat/completions HTTP/1.1" 200 OK', line]
    assert kind_of(lines)[0] != "NONE" or kind_of(lines)[1] != "context-fit-to-pool"
