"""Kinds of fault found in stop 53: held-out rounds 523 and later and stop 52's leftovers, each in several wordings of
our own, with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, kind_of, run_of


def _run(lines: list[str]):
    return run_of(diag("\n".join(lines)))

# --- a Python warning whose message goes on over lines below its own line (h519/04: "UserWarning: " then "Could not
# load libtorchcodec. Likely causes:" read as the report's words that the run failed) --------------------------------

_SERVED_SCRIPT = ["Loading checkpoint shards: 100%|██████████| 4/4 [00:12<00:00,  3.10s/it]",
                  "Model and processor loaded successfully!",
                  "Setting `pad_token_id` to `eos_token_id`:151645 for open-end generation.",
                  "Captions generated.", "End time: Tue Jun 10 12:01:55 CST 2025"]


@pytest.mark.parametrize("warning", [
    ["/env/lib/python3.12/site-packages/pyannote/audio/core/io.py:47: UserWarning: ",
     "torchcodec is not installed correctly so built-in audio decoding will fail. Solutions are:",
     "* fix torchcodec installation. Error message was:", "",
     "Could not load libtorchcodec. Likely causes:",
     "          1. FFmpeg is not properly installed in your environment.",
     "[start of libtorchcodec loading traceback]",
     "FFmpeg version 7: Could not load this library: /env/lib/torchcodec/libtorchcodec_core7.so",
     "[end of libtorchcodec loading traceback].", "  warnings.warn("],
    ["C:\\env\\lib\\site-packages\\audio\\backend.py:112: RuntimeWarning: The audio backend failed to start:",
     "Error: failed to open libsndfile.so.1 (no such file)", "Falling back to the soundfile reader.",
     "  warnings.warn(msg)"],
    ["/opt/venv/lib/python3.11/site-packages/decord/__init__.py:9: UserWarning:",
     "decord could not be loaded, the video reader crashed on import:", "   ImportError: libavformat.so.58",
     "Video inputs will be read with torchvision instead.", "  _warn(msg)"],
])
def test_a_warnings_message_over_lines_is_no_report_of_a_failure(warning):
    assert kind_of(["+ python run.py", *warning, *_SERVED_SCRIPT])[0] == "NONE"


@pytest.mark.parametrize("said", ["It failed after that and nothing was written.",
                                  "The script crashed at this point, no captions were generated."])
def test_the_reports_words_after_the_warnings_source_line_still_tell_a_failure(said):
    lines = ["/env/lib/python3.12/site-packages/pyannote/audio/core/io.py:47: UserWarning: ",
             "torchcodec is not installed correctly so built-in audio decoding will fail.", "  warnings.warn(",
             "Model and processor loaded successfully!", said]
    assert kind_of(lines)[0] == "UNDETERMINED"


def test_the_reports_words_after_a_one_line_warning_still_tell_a_failure():
    # (a warning whose message ends on its own line opens nothing below it)
    lines = ["/env/lib/python3.12/site-packages/torch/cuda/__init__.py:63: FutureWarning: The pynvml package is "
             "deprecated. Please install nvidia-ml-py instead.", "Model and processor loaded successfully!",
             "It failed after that and nothing was written."]
    assert kind_of(lines)[0] == "UNDETERMINED"


@pytest.mark.parametrize("between", [["  warnings.warn("], ["Traceback (most recent call last):",
                                                            '  File "/app/run.py", line 40, in <module>',
                                                            "    out = model.generate(**inputs)"]])
def test_an_error_after_a_warnings_message_is_still_the_runs(between):
    lines = ["/env/lib/python3.12/site-packages/pyannote/audio/core/io.py:47: UserWarning: ",
             "torchcodec is not installed correctly so built-in audio decoding will fail.", *between,
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of "
             "23.55 GiB of which 3.12 GiB is free."]
    assert kind_of(lines)[0] not in ("NONE", "NOT_OOM")


# --- every context tried ran out of memory, down to a small one (h516/02: kaiwu's "[5/6] Warmup benchmark..." of whole
# starts at each context, read as the engine's warm-up) ------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["[4/6] Preflight check...", "      ✓ VRAM sufficient", "[5/6] Warmup benchmark...",
     "      Probe 1: ctx=128K ... OOM", "      Probe 2: ctx=64K ... OOM", "      Probe 3: ctx=32K ... OOM",
     "      Probe 4: ctx=16K ... OOM", "      Probe 5: ctx=8K ... OOM", "Error: failed to start llama-server"],
    ["Step 3: warming up the model", "Attempt 1 - context 65536: out of memory",
     "Attempt 2 - context 16384: out of memory", "Attempt 3 - context 4096: out of memory", "giving up"],
    ["I tried every context size and it always runs out of memory during warmup:", "- ctx 32768: OOM",
     "- ctx 16384: OOM", "- ctx 8192: OOM", "- ctx 4096: OOM"],
])
def test_every_context_failing_down_to_a_small_one_is_not_the_kv_cache(lines):
    r = _run(lines)
    assert r.kind == "UNDETERMINED" and "KV_CAPACITY" not in r.candidates and "WEIGHTS" in r.candidates


def test_a_context_that_ran_below_the_failing_ones_is_still_the_kv_cache():
    lines = ["I tried every context size:", "- ctx 32768: OOM", "- ctx 16384: OOM", "- ctx 8192: works",
             "CUDA error: out of memory"]
    assert kind_of(lines)[0] == "KV_CAPACITY"


def test_tries_that_stop_at_a_large_context_are_no_evidence_of_the_weights():
    lines = ["Step 3: warming up the model", "Attempt 1 - context 131072: out of memory",
             "Attempt 2 - context 65536: out of memory", "Attempt 3 - context 32768: out of memory", "giving up"]
    r = _run(lines)
    assert not (r.kind == "UNDETERMINED" and "KV_CAPACITY" not in r.candidates)


def test_the_engines_own_line_of_the_buffer_still_places_it():
    lines = ["      Probe 1: ctx=32K ... OOM", "      Probe 2: ctx=16K ... OOM", "      Probe 3: ctx=8K ... OOM",
             "llama_kv_cache_init: CUDA0 KV buffer size =  1024.00 MiB",
             "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9216.00 MiB on device 0: cudaMalloc failed: out "
             "of memory", "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 9663676416",
             "llama_init_from_model: failed to allocate compute buffers"]
    assert kind_of(lines)[0] == "WARMUP"


# --- a library's failed lookup of the code's git repository, which the program goes on from (h523/03: wandb's "git
# root error: Cmd('git') failed due to: exit code(128)" read as the run's failure) ----------------------------------

@pytest.mark.parametrize("lookup", [
    ["(main_task pid=457932) ERROR:2025-03-02 11:56:34,332:git root error: Cmd('git') failed due to: exit code(128)",
     "(main_task pid=457932)   cmdline: git rev-parse --show-toplevel",
     "(main_task pid=457932)   stderr: 'fatal: detected dubious ownership in repository at '/mnt/data/rl'"],
    ["2025-06-01 10:02:11 ERROR lm_eval.utils: Failed to get git hash: Cmd('git') failed due to: exit code(128)"],
    ["fatal: not a git repository (or any of the parent directories): .git"],
])
def test_a_failed_git_lookup_is_no_failure_of_the_run(lookup):
    lines = ["INFO 03-02 11:56:10 llm_engine.py:234] Initializing an LLM engine (v0.6.3) with config: model='Qwen/Qwen2.5-3B'",
             "INFO 03-02 11:56:20 model_runner.py:1067] Loading model weights took 5.7915 GB", *lookup,
             "wandb: Tracking run with wandb version 0.19.7", "wandb: Syncing run grpo-qwen-3b"]
    assert kind_of(lines)[0] == "NONE"


def test_an_out_of_memory_after_a_failed_git_lookup_is_still_the_runs():
    lines = ["fatal: not a git repository (or any of the parent directories): .git",
             "INFO 03-02 11:56:20 model_runner.py:1067] Loading model weights took 5.7915 GB",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 "
             "GiB of which 1.12 GiB is free."]
    assert kind_of(lines)[0] not in ("NONE", "NOT_OOM")


def test_a_git_clone_that_failed_an_install_is_still_a_failure():
    lines = ["  Running command git clone --filter=blob:none --quiet https://github.com/x/y.git /tmp/pip-req-build-abc",
             "  fatal: could not read Username for 'https://github.com': terminal prompts disabled",
             "fatal: not a git repository (or any of the parent directories): .git",
             "ERROR: Command errored out with exit status 128: git clone -q https://github.com/x/y.git /tmp/pip-req"]
    assert kind_of(lines)[0] != "NONE"


# --- a profiler's decorator in a traceback is no profiling run; an engine woken from sleep mode is in use (h523/04:
# TRL's "trl/extras/profiling.py ... in wrapper" above vLLM's LLM.wake_up read as vLLM's profile run) ----------------

_WAKE_UP = ["INFO 09-10 12:12:34 [gpu_worker.py:115] Sleep mode freed 9.19 GiB memory, 7.66 GiB memory is still in use.",
            "INFO 09-10 12:12:34 [executor_base.py:188] It took 0.498879 seconds to fall asleep.",
            "CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62",
            "Traceback (most recent call last):",
            '  File "/app/train.py", line 303, in <module>', "    trainer.train(resume_from_checkpoint=True)",
            '  File "/venv/lib/python3.12/site-packages/trl/extras/profiling.py", line 98, in wrapper',
            "    return func(self, *args, **kwargs)",
            '  File "/app/grpo_trainer.py", line 1795, in _prepare_inputs', "    self.llm.wake_up()",
            '  File "/venv/lib/python3.12/site-packages/vllm/entrypoints/llm.py", line 1572, in wake_up',
            "    self.llm_engine.wake_up(tags)"]


def test_an_engine_woken_from_sleep_mode_runs_out_while_in_use():
    assert kind_of(_WAKE_UP)[0] == "RUNTIME"


def test_a_profilers_decorator_around_generate_is_serving():
    lines = ["Traceback (most recent call last):", '  File "/app/train.py", line 40, in <module>',
             "    trainer.train()",
             '  File "/venv/lib/python3.11/site-packages/trl/extras/profiling.py", line 87, in wrapper',
             "    return func(self, *args, **kwargs)",
             '  File "/venv/lib/python3.11/site-packages/trl/trainer/grpo_trainer.py", line 903, in _generate',
             "    outputs = self.llm.generate(prompts, sampling_params=sampling_params)",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of "
             "79.10 GiB of which 512.00 MiB is free."]
    assert kind_of(lines)[0] == "RUNTIME"


def test_the_engines_own_profile_run_is_still_the_warm_up():
    lines = ["INFO 09-10 12:10:01 [gpu_model_runner.py:1770] Model loading took 14.99 GiB and 6.1 seconds",
             "Traceback (most recent call last):",
             '  File "/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py", line 210, in '
             "determine_available_memory", "    self.model_runner.profile_run()",
             '  File "/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_model_runner.py", line 2030, in profile_run',
             "    hidden_states = self._dummy_run(self.max_num_tokens)",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of "
             "23.55 GiB of which 1.12 GiB is free."]
    assert kind_of(lines)[0] == "WARMUP"


# --- Ollama 0.1 stopping its own runner (h525/01: "llama.go:449: signal: killed" then "llama runner stopped
# successfully", five minutes after the last request: the idle unload, read as the OOM killer) ------------------------

_OLLAMA_01 = ["2023/12/14 14:43:41 llama.go:506: llama runner started in 9.212296 seconds",
              '{"timestamp":1702565023,"level":"INFO","function":"log_server_request","line":2599,"message":"request",'
              '"remote_addr":"127.0.0.1","remote_port":36562,"status":200,"method":"POST","path":"/embedding"}']


@pytest.mark.parametrize("stop", [
    ["2023/12/14 14:48:42 llama.go:449: signal: killed", "2023/12/14 14:48:42 llama.go:523: llama runner stopped successfully"],
    ["2023-12-14 22:48:42 2023/12/14 14:48:42 llama.go:449: signal: killed",
     "2023-12-14 22:48:42 2023/12/14 14:48:42 llama.go:523: llama runner stopped successfully"],
    ["ollama  | 2024/01/09 08:15:02 llama.go:451: signal: killed", "",
     "ollama  | 2024/01/09 08:15:02 llama.go:525: llama runner stopped successfully"],
])
def test_ollama_stopping_its_own_runner_is_no_failure(stop):
    assert kind_of([*_OLLAMA_01, *stop]) == ("NONE", "runner-stopped-by-engine")


def test_a_runner_killed_while_it_loaded_then_stopped_is_still_a_kill():
    # (llm/llama.go 0.1: the runner dies, its exit is logged, the load's wait fails, and Close logs its stop after)
    assert kind_of(["2024/01/05 10:00:00 routes.go:85: loading llama server",
                    "2024/01/05 10:00:07 llama.go:449: signal: killed",
                    "2024/01/05 10:00:07 llama.go:458: error starting llama runner: llama runner process has terminated",
                    "2024/01/05 10:00:07 llama.go:524: llama runner stopped successfully"])[0] not in ("NONE", "NOT_OOM")


def test_a_runner_killed_without_ollamas_own_stop_is_still_a_kill():
    assert kind_of([*_OLLAMA_01, "2023/12/14 14:44:02 llama.go:449: signal: killed",
                    "2023/12/14 14:44:02 llama.go:458: error starting llama runner: llama runner process has terminated",
                    "[GIN] 2023/12/14 - 14:44:02 | 500 |  2.1s | 127.0.0.1 | POST     \"/api/embeddings\""])[0] not in (
        "NONE", "NOT_OOM")


# --- JSON that a Go program could not read (h525/02: one-api's "error unmarshalling stream response: invalid character
# '}' after top-level value", read as no failure at all) -----------------------------------------------------------

@pytest.mark.parametrize("line", [
    "[SYS] 2024/09/14 - 15:22:09 | error unmarshalling stream response: invalid character '}' after top-level value",
    'time=2024-05-01T10:00:00Z level=ERROR source=routes.go:120 msg="decode failed" error="unexpected end of JSON input"',
    "Error: json: cannot unmarshal string into Go struct field ChatRequest.messages of type []api.Message",
    "Error: invalid character '<' looking for beginning of value"])
def test_json_a_go_program_could_not_read_is_no_memory(line):
    assert kind_of(["我用 ollama qwen2:0.5b, 直接运行应用就报错:", line, line]) == ("NOT_OOM", "malformed-json")


def test_an_out_of_memory_after_a_json_error_is_still_the_runs():
    lines = ["[SYS] 2024/09/14 - 15:22:09 | error unmarshalling stream response: invalid character '}' after top-level "
             "value", 'time=2024-09-14T15:22:30.000Z level=INFO source=server.go:612 msg="llama runner started in 3.01 '
             'seconds"', "CUDA error: out of memory",
             "  current device: 0, in function ggml_cuda_pool_malloc at ggml-cuda.cu:290"]
    assert kind_of(lines)[0] == "RUNTIME"


# --- KoboldCpp's own words for an answer it could not write (h525/08: "Generate: The response could not be sent, maybe
# connection was terminated?", its client's timeout on a long prompt, read as no failure) -----------------------------

@pytest.mark.parametrize("lines", [
    ["In the terminal output for koboldcpp it would say:",
     "`Generate: The response could not be sent, maybe connection was terminated?`", "",
     "It was only happening with prompts with a high token count though."],
    ["Processing Prompt [BLAS] (7800 / 7800 tokens)", "Generating (1 / 300 tokens)",
     "Generate: The response could not be sent, maybe connection was terminated?"],
])
def test_koboldcpps_answer_that_could_not_be_sent_is_a_client_that_hung_up(lines):
    assert kind_of(lines) == ("NOT_OOM", "client-disconnected")


def test_koboldcpps_out_of_memory_after_an_answer_not_sent_is_still_the_runs():
    lines = ["Processing Prompt [BLAS] (7800 / 7800 tokens)",
             "Generate: The response could not be sent, maybe connection was terminated?",
             "Processing Prompt [BLAS] (512 / 16000 tokens)", "CUDA error: out of memory",
             "  current device: 0, in function ggml_cuda_pool_malloc at ggml-cuda.cu:290"]
    assert kind_of(lines)[0] == "RUNTIME"


@pytest.mark.parametrize("hung_up", ["BrokenPipeError: [Errno 32] Broken pipe",
                                     "starlette.requests.ClientDisconnect"])
def test_an_out_of_memory_after_a_client_hung_up_ended_the_run(hung_up):
    lines = ["INFO:     Application startup complete.", hung_up,
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
             "23.55 GiB of which 1.12 GiB is free."]
    assert kind_of(lines)[0] == "RUNTIME"


# --- Python's message of a code error printed without its class (h526/07: mlx_vlm.server's "Error loading model ...:
# 'dict' object has no attribute 'model_type'"), and a client's call whose JSON body holds a prompt (h526/07: the
# lines after curl's `--data '{ ... }'` were read as the prompt's text, the server's error among them) ------------

@pytest.mark.parametrize("line", [
    "Error loading model mlx-community/DeepSeek-OCR-8bit: 'dict' object has no attribute 'model_type'",
    "ERROR:    Exception in ASGI application: 'NoneType' object is not subscriptable",
    "Failed to start the engine: module 'torch' has no attribute 'float8_e4m3fn'",
    "generation failed: unsupported operand type(s) for +: 'NoneType' and 'int'"])
def test_pythons_message_of_a_code_error_without_its_class_is_no_memory(line):
    assert kind_of(["Server log:", "", "```", line, "```"])[0] == "NOT_OOM"


def test_an_out_of_memory_after_pythons_message_in_a_note_is_still_the_runs():
    # (h502/08: a server's own note that a lookup failed, then memory running out while serving)
    lines = ["[2026-04-12 23:19:19] Failed to get yes/no token IDs dynamically: 'NoneType' object has no attribute "
             "'encode'", "[2026-04-12 23:19:30] The server is fired up and ready to roll!",
             "[2026-04-12 23:20:02] Prefill batch. #new-seq: 1, #new-token: 8192, #cached-token: 0",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.92 GiB. GPU 0 has a total capacity of "
             "79.19 GiB of which 3.39 GiB is free."]
    assert kind_of(lines)[0] == "RUNTIME"


@pytest.mark.parametrize("warning", [
    "2026-05-04 12:03:33,642 WARNING INT8 load failed ('Gemma4ForConditionalGeneration' object has no attribute "
    "'set_submodule') ? falling back to bfloat16",
    "WARNING 05-04 12:03:33 loader.py:88] fp8 kernel failed: module 'torch' has no attribute 'float8_e4m3fn'; "
    "falling back to bf16",
])
def test_a_warning_that_falls_back_and_goes_on_is_no_failure(warning):
    lines = ["2026-05-04 12:03:32,677 INFO Loading model in INT8 (bitsandbytes) from /models/gemma4", warning,
             "2026-05-04 12:03:33,644 INFO Loading model in bfloat16 from /models/gemma4 (device_map=auto)",
             "2026-05-04 12:04:10,001 INFO Model ready, serving on :8000"]
    assert kind_of(lines)[0] not in ("NOT_OOM",)


def test_a_warning_that_falls_back_then_an_error_is_still_a_failure():
    lines = ["2026-05-04 12:03:32,677 INFO Loading model in INT8 (bitsandbytes) from /models/gemma4",
             "2026-05-04 12:03:33,642 WARNING INT8 load failed ('X' object has no attribute 'set_submodule') ? falling "
             "back to bfloat16", "2026-05-04 12:03:33,650 ERROR bfloat16 load failed too: 'NoneType' object is not "
             "subscriptable"]
    assert kind_of(lines)[0] == "NOT_OOM"


_CALL = ["curl --request POST \\", "  --url http://localhost:8080/chat/completions \\",
         "  --header 'content-type: application/json' \\", "  --data '{", '  "model": "mlx-community/Qwen2-VL-2B-4bit",',
         '  "messages": [', "    {", '      "role": "user",', '      "content": "What are the days of the week?"', "    }",
         "  ],", '  "max_tokens": 100', "}'", "```", "", "Server log:", "", "```"]


@pytest.mark.parametrize("error, kind", [
    ("Error loading model mlx-community/Qwen2-VL-2B-4bit: 'dict' object has no attribute 'model_type'", "NOT_OOM"),
    ("[METAL] Command buffer execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
     "RUNTIME"),
])
def test_the_servers_error_after_a_call_with_a_prompt_is_read(error, kind):
    assert kind_of(["```", *_CALL, error, "```"])[0] == kind


# --- a traceback pasted without its exception's line, its last frame's code an `assert` (h528/05: vLLM's
# get_hf_text_config, `assert hasattr(text_config, "num_attention_heads")`, then the report's words) ---------------

_CONFIG_FRAME = ('  File "/envs/lf/lib/python3.11/site-packages/vllm/transformers_utils/config.py", line 798, in '
                 'get_hf_text_config')


@pytest.mark.parametrize("lines", [
    ["With the merged model I get File \"/envs/lf/lib/python3.11/site-packages/vllm/transformers_utils/config.py\", "
     "line 798, in get_hf_text_config", '    assert hasattr(text_config, "num_attention_heads")',
     "With the adapter it runs, but the answers are as before the fine-tune."],
    ["Traceback (most recent call last):", '  File "/app/scripts/vllm_infer.py", line 40, in <module>',
     "    llm = LLM(**engine_args)", _CONFIG_FRAME, '    assert hasattr(text_config, "num_attention_heads")'],
    ["Traceback (most recent call last):", '  File "/app/run.py", line 12, in <module>', "    main()",
     '  File "/app/sglang/srt/model_executor/model_runner.py", line 233, in init_attention',
     "    assert self.head_dim in (64, 128, 256), self.head_dim", "", "What am I doing wrong?"],
])
def test_a_traceback_ending_on_an_assert_without_its_error_line_is_that_assertion(lines):
    assert kind_of(lines) == ("NOT_OOM", "assertion-failed")


@pytest.mark.parametrize("after", [
    [],
    ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB "
     "of which 1.12 GiB is free."],
])
def test_an_assert_of_memory_or_an_error_after_it_is_not_read_as_that_assertion(after):
    lines = ["Traceback (most recent call last):", '  File "/app/run.py", line 12, in <module>', "    main()",
             '  File "/app/engine/worker.py", line 88, in determine_num_blocks',
             "    assert free_gpu_memory > peak_memory, \"not enough memory for the KV cache\"", *after]
    assert kind_of(lines)[0] != "NOT_OOM"


# --- memory told rising from a reading, in Chinese (h526/08: "显存从最开始的30G一致上涨 ... 推理三个音频数据后就开始报错 CUDA
# out of memory", read as an out of memory with no phase) ------------------------------------------------------------

@pytest.mark.parametrize("said", [
    "在输出音频的时候，多次推理，显存从最开始的30G一致上涨，推理三个音频后就开始报错CUDA out of memory. Tried to allocate "
    "2.95 GiB. GPU 0 has a total capacity of 39.56 GiB of which 1.78 GiB is free",
    "服务跑了一天，内存占用从 8GB 开始增长，现在 40GB 了",
])
def test_memory_told_rising_from_a_reading_is_growth(said):
    assert kind_of(["你好，", said])[0] == "LEAK"


@pytest.mark.parametrize("said", ["加载模型时，显存从0G增长到15G，然后报错 CUDA out of memory",
                                  "换了量化以后显存从20G降到了10G，可以正常推理"])
def test_memory_rising_while_loading_or_falling_is_no_growth(said):
    assert kind_of([said])[0] != "LEAK"


@pytest.mark.parametrize("statement", ["    assert proc.returncode == 0", '    assert res.status_code == 200, (',
                                       "    assert (self.head_dim in (64, 128) and"])
def test_an_assert_on_another_programs_answer_or_cut_is_not_read_as_that_assertion(statement):
    lines = ["Traceback (most recent call last):", '  File "/app/launch.py", line 30, in wait_ready', statement]
    assert kind_of(lines) != ("NOT_OOM", "assertion-failed")


# --- the report's sentence just below the program's error line, the paste closed, names the step (h534/08: "TT_FATAL:
# Out of Memory: ..." / "```" / "Occurs ~15 min into warmup during backbone precompilation.") ---------------------

_TT_OOM = ["```", "TT_FATAL: Out of Memory: Not enough space to allocate 3758096384 B DRAM buffer",
           "across 8 banks, where each bank needs to store 469762048 B,", "```", ""]


@pytest.mark.parametrize("said", ["Occurs ~15 min into warmup during backbone precompilation.",
                                  "Happens about 10 minutes into the warm-up, at batch 32.",
                                  "It fails during precompilation of the XLA graphs."])
def test_the_reports_sentence_below_the_error_names_its_step(said):
    assert kind_of([*_TT_OOM, said])[0] == "WARMUP"


def test_the_logs_own_step_above_beats_the_reports_sentence_below():
    lines = ["Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:10<00:10]", *_TT_OOM,
             "Occurs ~15 min into warmup."]
    assert kind_of(lines)[0] != "WARMUP"


def test_a_sentence_below_that_the_warm_up_went_through_is_no_warm_up():
    assert kind_of([*_TT_OOM, "Warmup completes fine; it fails on the first request with a long prompt."])[0] != "WARMUP"


# --- a step begun a few lines above the log's end, only the engine's notes after it (h531/03: vLLM V1's "Starting to
# load model ..." then its kernel and back-end choices, then the resource tracker at exit, read as NONE) ------------

_V1 = "(EngineCore_DP0 pid=1368984) INFO 05-08 00:37:{:02d} [{}] {}"
_BEGUN = [_V1.format(1, "core.py:93", "Initializing a V1 LLM engine (v0.11.2) with config: model='Qwen/Qwen3-30B-A3B'"),
          _V1.format(14, "gpu_model_runner.py:3476", "Starting to load model Qwen/Qwen3-30B-A3B-AWQ..."),
          _V1.format(14, "compressed_tensors_wNa16.py:114", "Using MarlinLinearKernel for CompressedTensorsWNA16"),
          _V1.format(15, "cuda.py:411", "Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN']"),
          _V1.format(15, "layer.py:379", "Enabled separate cuda stream for MoE shared_experts")]


@pytest.mark.parametrize("end", [
    ["/opt/conda/lib/python3.12/multiprocessing/resource_tracker.py:254: UserWarning: resource_tracker: There appear "
     "to be 1 leaked semaphore objects to clean up at shutdown", "  warnings.warn('resource_tracker: There appear to "
     "be %d '"],
    [],
])
def test_a_step_begun_above_the_engines_notes_at_the_end_was_under_way(end):
    assert kind_of([*_BEGUN, *end]) == ("UNDETERMINED", "log-ends-during-step")


def test_an_engine_note_naming_an_exception_it_went_on_from_is_one_more_note():
    lines = [*_BEGUN, _V1.format(16, "utils.py:12", "RuntimeError in the kernel choice, going on")]
    assert kind_of(lines) == ("UNDETERMINED", "log-ends-during-step")


def test_a_step_done_after_it_began_is_no_step_under_way():
    lines = [*_BEGUN, _V1.format(40, "default_loader.py:262", "Loading weights took 24.40 seconds"),
             _V1.format(41, "gpu_model_runner.py:3510", "Model loading took 31.2 GiB memory and 26.1 seconds"),
             _V1.format(41, "cuda.py:411", "Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN']")]
    assert kind_of(lines)[1] != "log-ends-during-step"


# --- review 53's misses: words inside a web address, curl's own errors, a request cancelled by its client, MLIR's
# pass pipeline, and the "missing" text under an exception's own line -------------------------------------------------

_SERVED = ["INFO 05-30 09:00:00 [api_server.py:1287] vLLM API server version 0.9.0.1",
           "INFO 05-30 09:00:25 [gpu_model_runner.py:1560] Model loading took 7.6254 GiB and 5.91 seconds",
           "INFO:     Application startup complete.",
           'INFO:     127.0.0.1:60350 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("said", [
    "# see https://docs.vllm.ai/en/latest/usage/troubleshooting.html#out-of-memory for my settings",
    "My settings follow https://docs.vllm.ai/en/latest/usage/troubleshooting.html#out-of-memory",
    "Config taken from http://wiki.example.org/llm/cuda-out-of-memory-fixes (works fine now)"])
def test_words_inside_a_web_address_are_no_failure(said):
    assert kind_of([said, *_SERVED])[0] == "NONE"


def test_an_out_of_memory_followed_by_a_web_address_is_still_one():
    lines = [*_SERVED[:2], "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. See "
             "https://pytorch.org/docs/stable/notes/cuda.html#environment-variables"]
    assert kind_of(lines)[0] not in ("NONE", "NOT_OOM")


@pytest.mark.parametrize("line", [
    "curl: (7) Failed to connect to localhost port 8000 after 0 ms: Connection refused",
    "curl: (7) Failed connect to 127.0.0.1:8080; Connection refused",
    "curl: (52) Empty reply from server"])
def test_curls_own_error_that_the_server_was_not_there_tells_no_cause(line):
    assert kind_of(["$ curl http://localhost:8000/v1/models", line, "The container was running a minute ago."]) == (
        "UNDETERMINED", "failure-cause-not-shown")


_CANCELLED = ["INFO 05-30 09:03:00 [async_llm.py:420] Aborted request chatcmpl-77aa.",
              "ERROR:    Exception in ASGI application", "Traceback (most recent call last):",
              '  File "/usr/local/lib/python3.12/dist-packages/starlette/responses.py", line 250, in stream_response',
              "    async for chunk in self.body_iterator:", "asyncio.exceptions.CancelledError"]


def test_a_request_its_client_cancelled_then_more_answered_is_no_failure():
    assert kind_of([*_SERVED, *_CANCELLED, 'INFO:     127.0.0.1:60360 - "POST /v1/chat/completions HTTP/1.1" 200 OK'])[0] \
        == "NONE"


def test_an_out_of_memory_after_a_cancelled_request_is_still_the_runs():
    lines = [*_SERVED, *_CANCELLED, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has "
             "a total capacity of 23.55 GiB of which 1.12 GiB is free."]
    assert kind_of(lines)[0] == "RUNTIME"


def test_mlirs_pass_pipeline_that_failed_is_a_kernel_that_did_not_compile():
    lines = ["INFO 04-10 16:20:41 [gpu_model_runner.py:1276] Model loading took 15.5212 GB and 11.038 seconds",
             "ERROR 04-10 16:21:03 [core.py:387] EngineCore hit an exception: Traceback (most recent call last):",
             'ERROR 04-10 16:21:03 [core.py:387]   File "/usr/local/lib/python3.12/dist-packages/triton/compiler/'
             'compiler.py", line 279, in compile', "ERROR 04-10 16:21:03 [core.py:387]     next_module = compile_ir("
             "module, metadata)", "ERROR 04-10 16:21:03 [core.py:387] RuntimeError: PassManager::run failed"]
    assert kind_of(lines) == ("NOT_OOM", "kernel-compile-error")


def test_an_exceptions_own_line_under_its_frames_is_not_missing():
    lines = ["INFO 04-10 16:20:41 [gpu_model_runner.py:1276] Model loading took 15.5212 GB and 11.038 seconds",
             'ERROR 04-10 16:21:03 [core.py:387]   File "/x/engine.py", line 279, in step',
             "ERROR 04-10 16:21:03 [core.py:387] RuntimeError: Engine step failed"]
    assert "ends inside the traceback" not in run_of(diag("\n".join(lines))).missing
