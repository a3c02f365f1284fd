"""Kinds of fault found on held-out rounds 429-433 (logs vramdoctor had not seen), each in several wordings of our own,
with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import kind_of

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
