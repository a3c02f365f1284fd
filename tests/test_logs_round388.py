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


def test_a_pool_shorter_than_the_context_after_the_server_is_ready_stays_kv_capacity():
    lines = _SGLANG_SWA + ["[2026-08-01 21:52:00] The server is fired up and ready to roll!"]
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
])
def test_a_check_named_for_out_of_memory_that_passed_is_no_failure(lines):
    assert kind_of(["Running STRESS / boundary test against http://127.0.0.1:30000"] + lines)[0] == "NONE"


@pytest.mark.parametrize("lines", [
    ["[2/8] Tool response prefill OOM (~25K-token mock tool response) ...",
     "  \u2717 failed: CUDA out of memory. Tried to allocate 2.00 GiB"],
    ["tests/test_serving.py::test_long_prompt_oom FAILED"],
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
