"""Kinds of fault found on held-out rounds 429-433 (logs vramdoctor had not seen), each in several wordings of our own,
with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, kind_of

# --- LM Studio's server refusing a conversation longer than the context the model was loaded with (h429/08)

@pytest.mark.parametrize("line", [
    "2025-05-20 15:33:59 [ERROR] Trying to keep the first 10136 tokens when context the overflows. However, the model "
    "is loaded with context length of only 7866 tokens, which is not enough. Try to load the model with a larger "
    "context length, or provide a shorter input",
    "[ERROR] The model is loaded with context length of only 4096 tokens, which is not enough.",
])
def test_lm_studios_context_overflow_is_a_request_refused(line):
    lines = ["2025-05-20 15:33:59  [INFO] [LM STUDIO SERVER] Running chat completion on conversation with 2 messages.",
             line]
    assert kind_of(lines) == ("NOT_OOM", "requests-refused-too-long")


# --- TensorRT-LLM's block manager finding no GPU block to free while serving (h432/11)

@pytest.mark.parametrize("line", [
    "[TensorRT-LLM][ERROR] Encountered an error in forwardAsync function: [TensorRT-LLM][ERROR] Assertion failed: "
    "mFreePrimaryBlocks list has no GPU blocks (/src/cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp:716)",
    "[TensorRT-LLM][ERROR] Assertion failed: mFreePrimaryBlocks list has no GPU blocks",
])
def test_no_free_gpu_kv_block_is_the_pool_run_dry(line):
    assert kind_of(["[TensorRT-LLM] TensorRT-LLM version: 0.10.0", line]) == ("RUNTIME", "kv-blocks-exhausted")


# --- a report's words of llama.cpp's compute graph reservation, after the KV cache (h432/14)

_LLAMA = ["llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from m.gguf"]


@pytest.mark.parametrize("said", [
    "Setting -c 32768 causes a fatal cudaMalloc out-of-memory error during the graph reservation step.",
    "It runs out of VRAM while reserving the compute buffers with the draft model loaded.",
    "CUDA OOM in compute buffer reservation when -c is 65536.",
])
def test_the_graph_reservation_in_words_is_the_warm_up(said):
    assert kind_of([said, *_LLAMA]) == ("WARMUP", "compute-buffer-alloc-failed")


def test_a_reservation_of_the_kv_cache_in_words_is_not_the_graph():
    said = "CUDA OOM while reserving the KV cache for -c 131072."
    assert kind_of([said, *_LLAMA])[0] != "WARMUP"


# --- vllm-ascend's graph capture short of streams, AWS Neuron's compiler failing: not memory (h430/01, h430/06)

@pytest.mark.parametrize("line, code", [
    ("(Worker_TP11 pid=15618) ERROR 10-11 11:32:59 [model_runner_v1.py:3556] ACLgraph has insufficient available "
     "streams to capture the configured number of sizes. Please verify both the availability of adequate streams",
     "device-resource-exhausted"),
    ("(EngineCore_DP0 pid=15120) ERROR 01-27 16:26:16 [core.py:866] subprocess.CalledProcessError: Command "
     "'['neuronx-cc', 'compile', '--framework=XLA', '/tmp/nxd_model/model.hlo_module.pb']' returned non-zero exit "
     "status 70.", "kernel-build-failed"),
])
def test_more_start_up_failures_that_are_not_memory(line, code):
    assert kind_of([line]) == ("NOT_OOM", code)


def test_a_compiler_killed_by_signal_nine_is_not_called_a_build_failure():
    line = ("subprocess.CalledProcessError: Command '['neuronx-cc', 'compile', '--framework=XLA', 'm.pb']' returned "
            "non-zero exit status -9.")
    assert kind_of([line])[1] != "kernel-build-failed"


# --- an AssertionError whose message only shows values: the `assert` line above it is the condition (h430/08)

@pytest.mark.parametrize("cond, kind", [
    ("assert num_output_tokens == 0, \\", "NOT_OOM"),
    ("assert request.num_computed_tokens == expected, (", "NOT_OOM"),
    ("assert num_free_blocks >= num_needed, \\", "UNDETERMINED"),
])
def test_an_assertion_with_a_message_of_values_is_read_by_its_condition(cond, kind):
    lines = ['  File "/usr/lib/python3/site-packages/vllm/v1/core/sched/scheduler.py", line 700, in update_from_output',
             "    " + cond, "(EngineCore_DP0 pid=545) ERROR 10-13 06:03:56 [core.py:710] AssertionError: req_id: "
             "cmpl-benchmark-serving39-0, 236"]
    assert kind_of(lines)[0] == kind, kind_of(lines)


# --- a web framework's log of a request's handler that raised, and an out of memory called a runtime one: serving
# --- (h431/06, h431/07)

@pytest.mark.parametrize("lines", [
    ["2022-11-08T12:29:36+0000 [ERROR] [api_server:3] Exception on /minilm_sim [POST]",
     "onnxruntime.capi.onnxruntime_pybind11_state.RuntimeException: [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : "
     "Failed to allocate memory for requested buffer of size 2147483648"],
    ["[2024-05-01 10:00:00,123] ERROR in app: Exception on /predict [POST]",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."],
    ["Its possible to get a runtime OOM from the MLA attention workspace:",
     "RuntimeError: CUDA out of memory. Tried to allocate 394.00 MiB."],
])
def test_a_request_handlers_failure_and_a_runtime_oom_are_serving(lines):
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


def test_a_runtime_error_class_is_not_a_runtime_oom():
    lines = ["RuntimeError: CUDA out of memory. Tried to allocate 394.00 MiB."]
    assert kind_of(lines)[0] != "RUNTIME"


# --- vLLM V0's handler of SIGTERM after the server served: a stop, not a failure (h433/11)

_V0_SERVED = ["INFO 04-18 14:20:00 api_server.py:958] vLLM API server version 0.7.2",
              "INFO:     Application startup complete.",
              'INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("tail", [
    ["ERROR 04-18 15:05:59 engine.py:389] MQLLMEngine terminated", "Traceback (most recent call last):",
     '  File "/x/vllm/engine/multiprocessing/engine.py", line 374, in signal_handler',
     '    raise KeyboardInterrupt("MQLLMEngine terminated")', "KeyboardInterrupt: MQLLMEngine terminated"],
    ["Traceback (most recent call last):", '  File "/x/vllm/engine/multiprocessing/engine.py", line 386, in run_mp_engine',
     "    engine.start()", "KeyboardInterrupt: MQLLMEngine terminated", "INFO:     Shutting down"],
])
def test_v0s_sigterm_handler_after_serving_is_a_stop(tail):
    assert kind_of([*_V0_SERVED, *tail])[0] == "NONE"


def test_another_keyboard_interrupt_message_is_not_a_stop_by_itself():
    lines = [*_V0_SERVED, "Traceback (most recent call last):", '  File "/x/app.py", line 3, in run',
             "KeyboardInterrupt: CUDA out of memory while stopping"]
    assert kind_of(lines)[0] != "NONE"


# --- FlashInfer's check of a launch's status with CUDA's error string: invalid argument is no memory (h433/13)

@pytest.mark.parametrize("err, kind", [
    ("invalid argument", "NOT_OOM"),
    ("out of memory", "RUNTIME"),
])
def test_a_status_check_reads_cudas_error_string(err, kind):
    lines = [*_V0_SERVED, "(Worker_TP0 pid=300) ERROR 06-13 20:09:13 [multiproc_executor.py:962] RuntimeError: Check "
             f"failed: (status == cudaSuccess) is false: BatchPrefillWithPagedKVCache failed with error {err}"]
    assert kind_of(lines)[0] == kind, kind_of(lines)


# --- from the new-user review of stop 45 (helper-446) -----------------------------------------------------------------

# llama_decode's -2 is llama.cpp's GGML_STATUS_ALLOC_FAILED (llama-context.cpp decode): memory, not a bug

@pytest.mark.parametrize("lines", [
    ["Traceback (most recent call last):",
     '  File "/home/u/.venv/lib/python3.11/site-packages/llama_cpp/_internals.py", line 320, in decode',
     '    raise RuntimeError(f"llama_decode returned {return_code}")', "RuntimeError: llama_decode returned -2"],
    ["srv  update_slots: id  0 | task 5 | prompt processing progress, n_tokens = 512",
     "llama_decode: failed to decode, ret = -2"],
])
def test_llama_decodes_minus_two_is_memory(lines):
    assert kind_of(lines)[0] not in ("NOT_OOM", "NONE"), kind_of(lines)


# PyTorch's capability warning is a warning: a real out of memory after it decides

def test_a_capability_warning_does_not_outrank_an_out_of_memory():
    lines = ["/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:235: UserWarning: NVIDIA RTX PRO 6000 "
             "Blackwell with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
             "Traceback (most recent call last):",
             '  File "/app/run.py", line 12, in <module>',
             '    model = AutoModelForCausalLM.from_pretrained(name, device_map="cuda:0")',
             '  File "/usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py", line 4200, in '
             "from_pretrained",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of "
             "31.36 GiB of which 1.20 GiB is free."]
    assert kind_of(lines)[0] == "WEIGHTS"


# LM Studio's crash line in its server log's form

@pytest.mark.parametrize("line", [
    "2025-06-01 11:01:05 [ERROR] The model has crashed without additional information. (Exit code: 6)",
    "[ERROR] The model has crashed without additional information. (Exit code: 18446744072635812000)",
])
def test_lm_studios_crash_line_is_a_failure_whose_cause_is_not_shown(line):
    lines = ["2025-06-01 11:00:00 [INFO] [LM STUDIO SERVER] Success! HTTP server listening on port 1234",
             "2025-06-01 11:01:00 [INFO] [LM STUDIO SERVER] Running chat completion on conversation with 2 messages.",
             line]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


# a request's handler that loads the model on demand: the loader proper decides

@pytest.mark.parametrize("route", ["/load_model [POST]", "/v1/models/load [POST]"])
def test_a_handler_that_loads_the_model_is_the_weights(route):
    lines = [f"[2024-05-01 10:00:00,123] ERROR in app: Exception on {route}", "Traceback (most recent call last):",
             '  File "/app/server.py", line 40, in load_model',
             '    model = AutoModelForCausalLM.from_pretrained(path, device_map="cuda:0")',
             '  File "/usr/local/lib/python3.10/site-packages/transformers/modeling_utils.py", line 3850, in '
             "from_pretrained",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."]
    assert kind_of(lines)[0] == "WEIGHTS"


# warnings that are no failure: tokenizers' fork warning, torch's "you may run out of memory"

_V = ["INFO 05-20 10:12:01 [api_server.py:1043] vLLM API server version 0.8.5",
      "INFO:     Application startup complete.",
      'INFO:     10.0.0.5:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("line", [
    "huggingface/tokenizers: The current process just got forked, after parallelism has already been used. Disabling "
    "parallelism to avoid deadlocks...",
    "/usr/local/lib/python3.12/dist-packages/torch/cuda/memory.py:400: UserWarning: You may run out of memory with "
    "expandable_segments disabled.",
])
def test_a_warning_is_no_failure(line):
    assert kind_of([line, *_V])[0] == "NONE", kind_of([line, *_V])
    assert kind_of([*_V, line])[0] == "NONE", kind_of([*_V, line])


def test_running_out_of_memory_stated_is_still_memory():
    assert kind_of([*_V, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."])[0] == "RUNTIME"


# a report's "the KV cache is allocated" names no engine

def test_a_reports_words_of_the_kv_cache_allocated_are_not_sglangs_line():
    lines = ["vLLM crashes right after the KV cache is allocated:",
             "INFO 05-20 10:12:01 [api_server.py:1043] vLLM API server version 0.8.5",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    rep = diag("\n".join(lines))
    assert rep.engine == "vllm", rep.engine


# an SGLang pool shorter than the context, under a report of long requests that fail in other words

@pytest.mark.parametrize("said", ["Prompts longer than about 12k tokens are rejected.", "Long prompts return a 400 error.",
                                  "Any request above 12k tokens comes back with HTTP 400."])
def test_long_requests_told_keep_a_short_pool_the_cause(said):
    lines = [said, "[2026-04-11 14:34:10 TP0] max_total_num_tokens=12079, chunked_prefill_size=4096, max_prefill_tokens="
             "16384, max_running_requests=1, context_len=40960, available_gpu_mem=4.10 GB",
             "[2026-04-11 14:34:21] The server is fired up and ready to roll!"]
    assert kind_of(lines) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")


# more refusals of a request's length, and growth in more words

@pytest.mark.parametrize("line", [
    "2024-05-01T10:00:00.000Z ERROR text_generation_router::infer: router/src/infer/mod.rs:105: `inputs` must have "
    "less than 4000 tokens. Given: 4512",
    "[TensorRT-LLM][ERROR] Assertion failed: Input length (8193) + max new tokens (100) + draft tokens (0) must be less "
    "than max sequence length (8192).",
    "[TensorRT-LLM][ERROR] Prompt length + number of requested output tokens (8000 + 500) exceeds maximum sequence "
    "length (8192)",
    "2025-06-01 11:01:05 [ERROR] The number of tokens to keep from the initial prompt is greater than the context "
    "length. Try to load the model with a larger context length, or provide a shorter input",
])
def test_more_refusals_of_a_requests_length(line):
    assert kind_of([line]) == ("NOT_OOM", "requests-refused-too-long")


@pytest.mark.parametrize("said", ["Memory creeps up between requests.", "The memory usage creeps up slowly."])
def test_memory_that_creeps_up_is_growth(said):
    assert kind_of([said]) == ("LEAK", "memory-growth-stated")


@pytest.mark.parametrize("said", ['The model answers with an infinite loop of "the the the".',
                                  "Stuck in an infinite loop of tool calls, the agent never stops."])
def test_output_in_an_infinite_loop_is_no_hang(said):
    assert kind_of([said, *_V])[1] != "hang-no-error"


@pytest.mark.parametrize("said", [
    "I would expect memory to be released after each request, but it keeps growing.",
    "I expected RSS to stay flat between requests, but it keeps climbing.",
])
def test_an_expectation_then_growth_is_growth(said):
    assert kind_of([said, *_V]) == ("LEAK", "memory-growth-stated")


@pytest.mark.parametrize("said", [
    "I expected memory to keep growing, but it stays flat.",
    "Memory keeps growing, I thought, but it is only the cache warming up?",
])
def test_growth_that_was_only_expected_or_asked_is_no_leak(said):
    assert kind_of([said, *_V])[0] != "LEAK", kind_of([said, *_V])


# a report's words that place the failure: a request by its turn, the model placed on several GPUs, a load partway

_BARE_OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 500.00 MiB."


@pytest.mark.parametrize("said, kind", [
    ("It crashes on the second chat message with CUDA out of memory.", "RUNTIME"),
    ("It fails at the third request every time.", "RUNTIME"),
    ("When loading the model onto two GPUs with device_map='auto' it goes out of memory on GPU 0.", "WEIGHTS"),
    ("Midway through loading the checkpoint shards it fails with CUDA out of memory.", "WEIGHTS"),
])
def test_more_words_that_place_the_failure(said, kind):
    assert kind_of([said, _BARE_OOM])[0] == kind


def test_a_first_step_that_is_not_a_request_is_not_serving():
    assert kind_of(["It fails on the first try of loading the model onto the card.", _BARE_OOM])[0] != "RUNTIME"
