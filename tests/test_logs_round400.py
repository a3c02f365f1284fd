"""Kinds of fault found on held-out rounds 400-411 (logs vramdoctor had not seen) and on stop 43's left-alone list, each
in several wordings of our own, with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, run_of

# --- an engine's own idle leak check that found a large share of its KV pool lost, then the pool running short while
# --- serving: the leak is the cause, the shortage its end (SGLang 0.1-0.2 warned and went on)

_SERVING = [
    "server started on [0.0.0.0]:30000",
    "INFO:     Application startup complete.",
    "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
    "[gpu_id=0] Prefill batch. #new-seq: 1, #new-token: 512, #cached-token: 0, cache hit rate: 0.00%, #running-req: 0",
]


def _warn(avail: int, total: int, form: int) -> list[str]:
    if form == 0:
        return [f"/opt/sglang/srt/managers/controller/tp_worker.py:211: UserWarning: Warning: available_size={avail}, "
                f"max_total_num_token={total}", "KV cache pool leak detected!", "  warnings.warn("]
    if form == 1:
        return [f"WARNING:root:Warning: available_size={avail}, max_total_num_token={total}",
                "KV cache pool leak detected!"]
    return [f"[gpu_id=0] Warning: available_size={avail}, max_total_num_token={total}",
            "KV cache pool leak detected!"]


_PREFILL_OOM = ["Exception in ModelTpServer:", "Traceback (most recent call last):",
                '  File "/opt/sglang/srt/managers/controller/infer_batch.py", line 373, in prepare_for_extend',
                '    raise RuntimeError("Prefill out of memory. This should never happen.")',
                "RuntimeError: Prefill out of memory. This should never happen."]
_DECODE_OOM = ["Exception in ModelTpServer:", "Traceback (most recent call last):",
               '  File "/opt/sglang/srt/managers/controller/infer_batch.py", line 601, in prepare_for_decode',
               "RuntimeError: Decode out of memory. This should never happen."]


@pytest.mark.parametrize("form", [0, 1, 2])
@pytest.mark.parametrize("end", [_PREFILL_OOM, _DECODE_OOM])
def test_a_pool_shortage_after_the_engines_leak_check_lost_a_large_share_is_the_leak(form, end):
    lines = list(_SERVING)
    for avail in (75821, 52210, 20113):
        lines += _warn(avail, 75833, form)
        lines.append("[gpu_id=0] Prefill batch. #new-seq: 4, #new-token: 2048, #cached-token: 0, #running-req: 0")
    run = run_of(diag("\n".join(lines + end)))
    assert (run.kind, run.code) == ("LEAK", "kv-slots-not-returned"), (run.kind, run.code, run.message)
    assert "55,720" in run.message


@pytest.mark.parametrize("avail", [75821, 75000, 69000])
def test_a_few_slots_lost_before_a_pool_shortage_do_not_make_it_a_leak(avail):
    lines = _SERVING + _warn(avail, 75833, 0) + ["[gpu_id=0] Prefill batch. #new-seq: 64, #new-token: 65536"]
    run = run_of(diag("\n".join(lines + _PREFILL_OOM)))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- llama.cpp's loader placing tensors ("... cannot be used with preferred buffer type CUDA_Host, using CPU instead",
# --- printed by done_getting_tensors or load_tensors) is the weights load under way: an allocation failing right after
# --- it is the weights' buffer

@pytest.mark.parametrize("placing", [
    "done_getting_tensors: tensor 'token_embd.weight' (q4_K) (and 0 others) cannot be used with preferred buffer type "
    "CUDA_Host, using CPU instead",
    "load_tensors: tensor 'token_embd.weight' (q6_K) (and 12 others) cannot be used with preferred buffer type "
    "ROCm_Host, using CPU instead",
    "llama_model_loader: done_getting_tensors: tensor 'output.weight' (q8_0) (and 1 others) cannot be used with "
    "preferred buffer type Vulkan_Host, using CPU instead",
])
@pytest.mark.parametrize("fail", [
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 39979.48 MiB on device 1: cudaMalloc failed: out of memory",
    "ggml_vulkan: Device memory allocation of size 4202692608 failed.",
])
def test_an_allocation_failing_as_the_loader_places_tensors_is_the_weights(placing, fail):
    run = run_of(diag("\n".join(["llama-bench -m llama-3.1-70b-instruct-Q4_K_M.gguf -dev CUDA1 -v", placing, fail])))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


def test_an_allocation_after_the_weights_and_the_context_stays_the_kv_cache():
    run = run_of(diag("\n".join([
        "load_tensors: tensor 'token_embd.weight' (q4_K) (and 0 others) cannot be used with preferred buffer type "
        "CUDA_Host, using CPU instead",
        "load_tensors:        CUDA0 model buffer size =  3900.12 MiB",
        "llama_context: n_ctx         = 131072",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on device 0: cudaMalloc failed: out of "
        "memory",
        "llama_kv_cache_unified: failed to allocate buffer for kv cache"])))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)


# --- an assertion in the C runtimes' other words (Microsoft's "Assertion failed: EXPR, file F, line N", musl's
# --- "Assertion failed: EXPR (file: func: line)") on a condition with no memory in it is no memory

@pytest.mark.parametrize("line", [
    r"Assertion failed: found, file F:\ai_system\llama-cpp\src\llama-sampler.cpp, line 1094",
    r"Assertion failed: n_tokens_all <= cparams.n_batch, file D:\a\llama.cpp\src\llama-context.cpp, line 1022",
    "Assertion failed: idx < vocab.n_tokens() (src/llama-vocab.cpp: token_get_attr: 1688)",
])
def test_a_c_runtime_assertion_on_no_memory_condition_is_not_oom(line):
    log = "\n".join(["main: server is listening on http://0.0.0.0:8080 - starting the main loop",
                     "srv  update_slots: all slots are idle", line])
    run = run_of(diag(log))
    assert (run.kind, run.code) == ("NOT_OOM", "assertion-failed"), (run.kind, run.code)


@pytest.mark.parametrize("line", [
    r"Assertion failed: buf != NULL && \"failed to allocate buffer\", file C:\src\ggml-alloc.c, line 90",
    "Assertion failed: ctx->mem_buffer != NULL (ggml/src/ggml.c: ggml_init: 1512)",
])
def test_a_c_runtime_assertion_on_an_allocation_is_not_called_no_memory(line):
    run = run_of(diag("\n".join(["load_tensors:        CUDA0 model buffer size =  3900.12 MiB", line])))
    assert run.kind != "NOT_OOM", (run.kind, run.code)


# --- a setting's line in an args list or config (quoted, a YAML item, commented out, with the writer's comment after
# --- it) is a setting: its words ("# Number of concurrent requests", "reduce kv cache size") are no step of the run

@pytest.mark.parametrize("settings", [
    ['  # "--max_num_seqs=1",  # # Number of concurrent requests. reduce kv cache size.',
     '  "--kv-cache-dtype=fp8" #dynamic quantization of the KV cache'],
    ["  - --max-num-seqs=4  # number of concurrent requests", '  - "--max-model-len=1000"  # reduce the kv cache'],
    ["max_concurrent_requests: 8   # limit on concurrent requests"],
])
def test_a_settings_comment_is_no_step_of_the_run(settings):
    log = "\n".join(["extraArgs: ["] + settings + ["  \"--gpu-memory-utilization=0.99\",", " ]", "```", "",
                     "VllmWorker rank=1 pid=254) torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 "
                     "GiB. GPU 1 has a total capacity of 93.02 GiB of which 1.18 GiB is free."])
    run = run_of(diag(log))
    assert run.kind == "UNDETERMINED", (run.kind, run.code, run.phase_source)


def test_concurrent_requests_in_a_sentence_still_tell_serving():
    run = run_of(diag("\n".join([
        "It crashes with 32 concurrent requests after the server is up:",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB. GPU 0 has a total capacity of "
        "79.19 GiB of which 1.02 GiB is free."])))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- Ollama refusing a model for want of host memory, where its own figures show the kv cache larger than the weights:
# --- the context asked for is what did not fit (KV_CAPACITY), not the weights

@pytest.mark.parametrize("figures", [
    ['msg=load request="{Operation:fit ... KvSize:262144 ...}"', 'msg="kv cache" device=CUDA0 size="36.0 GiB"',
     'msg="model weights" device=CUDA0 size="2.3 GiB"', 'msg="total memory" size="39.5 GiB"'],
    ['time=2026-03-01T10:00:00.000Z level=INFO source=device.go:245 msg="model weights" device=CPU size="4.1 GiB"',
     'time=2026-03-01T10:00:00.000Z level=INFO source=device.go:256 msg="kv cache" device=CPU size="16.0 GiB"'],
    ['time=2025-01-10T09:00:00.000+08:00 level=INFO source=memory.go:356 msg="offload to cpu" layers.requested=-1 '
     'layers.model=29 layers.offload=0 layers.split="" memory.available="[15.2 GiB]" memory.gpu_overhead="0 B" '
     'memory.required.full="30.1 GiB" memory.required.partial="0 B" memory.required.kv="28.0 GiB" '
     'memory.required.allocations="[30.1 GiB]" memory.weights.total="1.9 GiB" memory.weights.repeating="1.7 GiB"'],
])
def test_ollamas_refusal_where_its_kv_cache_outweighs_the_weights_is_the_context(figures):
    log = "\n".join(figures + ['time=2026-03-01T10:00:01.000Z level=ERROR source=server.go:300 msg="model requires '
                               'more system memory (34.4 GiB) than is available (17.7 GiB)"'])
    run = run_of(diag(log))
    assert (run.kind, run.code) == ("KV_CAPACITY", "context-exceeds-system-memory"), (run.kind, run.code)
    assert any("num_ctx" in a or "OLLAMA_CONTEXT_LENGTH" in a for a in map(str, run.advice)), run.advice


@pytest.mark.parametrize("figures", [
    ['msg="kv cache" device=CPU size="1.0 GiB"', 'msg="model weights" device=CPU size="38.3 GiB"'],
    [],
])
def test_ollamas_refusal_where_the_weights_outweigh_the_kv_cache_stays_the_weights(figures):
    log = "\n".join(figures + ["Error: model requires more system memory (40.2 GiB) than is available (31.0 GiB)"])
    run = run_of(diag(log))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


# --- a loader's error that relays only a server's HTTP status names no cause ("Error loading model: Request failed:
# --- 500"): not a cause of no memory

@pytest.mark.parametrize("line", [
    "Error loading model: Request failed: 500",
    "error loading model: HTTP 503 Service Unavailable",
    "Error loading model: status code: 500",
])
def test_a_loaders_error_that_relays_an_http_status_names_no_cause(line):
    run = run_of(diag("\n".join(["# lemonade run Gemma-4-26B-A4B-it-GGUF", "Loading model: Gemma-4-26B-A4B-it-GGUF", line,
                                 "E llama_model_load_from_file_impl: failed to load model"])))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


def test_a_loaders_error_with_a_cause_of_no_memory_is_still_not_oom():
    run = run_of(diag("llama_model_load: error loading model: failed to open x.gguf: No such file or directory"))
    assert (run.kind, run.code) == ("NOT_OOM", "model-load-error"), (run.kind, run.code)


# --- pydantic's own line of a settings check, pasted without its title ("Value error, Total number of attention heads
# --- (64) must be divisible by tensor parallel size (3)."): a setting refused

@pytest.mark.parametrize("line", [
    "Value error, Total number of attention heads (64) must be divisible by tensor parallel size (3).",
    "  Value error, Invalid repository ID or local directory specified: 'org/none'. [type=value_error, "
    "input_value=ArgsKwargs((), {}), input_type=ArgsKwargs]",
    "Value error, Unknown quantization method: awq_int3. Must be one of ['awq', 'gptq']. [type=value_error]",
])
def test_pydantics_value_error_line_is_a_setting_refused(line):
    run = run_of(diag("\n".join(["(APIServer pid=415) INFO 08-15 14:56:15 api_utils.py:273] non-default args: {}",
                                 line])))
    assert (run.kind, run.code) == ("NOT_OOM", "setting-rejected"), (run.kind, run.code)


def test_pydantics_value_error_of_memory_is_not_called_a_setting_refused():
    run = run_of(diag("Value error, Insufficient memory: the KV cache needs 12.00 GiB, 3.20 GiB available."))
    assert run.code != "setting-rejected", (run.kind, run.code)


# --- an exception whose class alone says it is a bug in code, its message cut by the end of the log, is still that
# --- bug ("UnboundLocalError: local variable 'images' referenced before as")

@pytest.mark.parametrize("last", [
    "UnboundLocalError: local variable 'images' referenced before as",
    "KeyError: 'model.layers.0.mlp.experts.0.gate_pr",
    "AttributeError: 'NoneType' object has no attribute 'messag",
])
def test_a_code_errors_line_cut_at_the_logs_end_is_still_a_code_error(last):
    log = "\n".join(["Traceback (most recent call last):", '  File "/srv/app/server.py", line 1033, in generate',
                     "    data = convert(data)", last])
    run = run_of(diag(log))
    assert run.kind == "NOT_OOM", (run.kind, run.code)


def test_a_runtime_error_cut_at_the_logs_end_is_not_called_a_code_error():
    log = "\n".join(["Traceback (most recent call last):", '  File "/srv/app/server.py", line 1033, in generate',
                     "RuntimeError: CUDA out of mem"])
    run = run_of(diag(log))
    assert run.kind != "NOT_OOM", (run.kind, run.code)


# --- glog's and TVM's check that compares two values and prints both, on lengths or indices: an assertion, not memory

@pytest.mark.parametrize("line", [
    "TVMError: Check failed: n <= it->second.seq_length (304 vs. 202) : The sequence only has length 202, while the "
    "length of pop is 304 which exceeds the whole sequence length.",
    "F0312 10:00:00.000000 123 paged_kv_cache.cc:812] Check failed: seq_id < num_seqs (17 vs. 16) : unknown sequence",
    "Check failed: (pos >= 0) (-1 vs. 0) : position is negative",
])
def test_a_checked_comparison_of_lengths_is_an_assertion(line):
    run = run_of(diag("\n".join(["[10:18:16] Serving on http://127.0.0.1:8000", line])))
    assert (run.kind, run.code) == ("NOT_OOM", "assertion-failed"), (run.kind, run.code)


@pytest.mark.parametrize("line", [
    "Check failed: total_bytes <= available_bytes (9126805504 vs. 8589934592) : not enough memory for the pool",
    "Check failed: (__e == VK_SUCCESS) is false: Vulkan Error, code=-2: VK_ERROR_OUT_OF_DEVICE_MEMORY",
    "Check failed: num_pages <= free_pages (4096 vs. 1024)",
])
def test_a_checked_comparison_of_sizes_or_a_status_is_not_called_an_assertion(line):
    run = run_of(diag(line))
    assert run.code != "assertion-failed", (run.kind, run.code)


# --- a front end's own words for the engine's out-of-memory (Tabby's "CUDA memory allocation error detected:")

@pytest.mark.parametrize("line", ["  CUDA memory allocation error detected:", "GPU memory allocation error: retry with "
                                  "a smaller model", "Fatal: device memory allocation error"])
def test_a_front_ends_memory_allocation_error_is_out_of_memory(line):
    run = run_of(diag("\n".join(["WARN llama_cpp_server::supervisor: llama-server <completion> exited with status code 1",
                                 "  ERROR", "", line, "  1. Try using a smaller Model"])))
    assert run.kind not in ("NONE", "NOT_OOM"), (run.kind, run.code)


# --- a warning of what would happen, and a program's own explanation of what happens as a rule, are no failure met

_KOBOLD = ["Initializing CLBlast (First Run)...", "Attempting to use: Platform=0, Device=0 (If invalid, program will crash)",
           "Load Model OK: True", "Starting Kobold HTTP Server on port 5001",
           "Please connect to custom endpoint at http://localhost:5001"]


@pytest.mark.parametrize("aside", ["(If invalid, program will crash)", "(otherwise the server fails to start)",
                                   "(if this is wrong, llama-server will not start)"])
def test_a_bracketed_warning_of_what_would_happen_is_no_failure(aside):
    log = "\n".join(_KOBOLD[:1] + ["Attempting to use: Platform=0, Device=0 " + aside] + _KOBOLD[2:])
    run = run_of(diag(log))
    assert run.kind == "NONE", (run.kind, run.code, run.message)


@pytest.mark.parametrize("line", [
    "No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are "
    "hanging or doing some time-consuming work (e.g. compilation).",
    "Still waiting for the workers. This usually means that one of them is stuck or hanging on a collective.",
])
def test_a_programs_explanation_of_what_happens_as_a_rule_is_no_hang_told(line):
    log = "\n".join(["It takes a long time to load the model, and the following logs are printed during the process:",
                     "```", line, "```"])
    run = run_of(diag(log))
    assert run.code != "hang-no-error", (run.kind, run.code)


def test_a_hang_the_writer_states_is_still_a_hang():
    log = "\n".join(["The server hangs forever after loading the model, no error.", "```",
                     "No available shared memory broadcast block found in 60 seconds.", "```"])
    run = run_of(diag(log))
    assert (run.kind, run.code) == ("UNDETERMINED", "hang-no-error"), (run.kind, run.code)


# --- the words of a report that name the weights being allocated ("preventing allocation of model weights")

@pytest.mark.parametrize("words", [
    "The failure occurs due to TPU HBM fragmentation, preventing allocation of model weights.",
    "It runs out of memory during the allocation of the model weights on the second card.",
])
def test_the_allocation_of_the_weights_in_words_is_the_weights(words):
    log = "\n".join([words, "", "```", "E0118 22:42:45.737331   20084 tpu_pjrt_client.cc:1889] TpuClient::AllocateBuffer "
                     "returning error after 1 attempt(s): RESOURCE_EXHAUSTED: Error allocating device buffer: "
                     "Attempting to allocate 1.96G.", "```"])
    run = run_of(diag(log))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


# --- a task cancelled while a program closes, after it served: its shutdown, no failure

_SERVED = ["INFO 09-18 09:25:21 [model_runner.py:1450] Capturing cudagraphs for decoding.",
           "INFO:     Application startup complete.",
           'INFO:     127.0.0.1:55046 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("frames", [
    ['  File "/workspace/ART/src/mp_actors/move.py", line 214, in close',
     "    asyncio.get_event_loop().run_until_complete(self._handle_responses_task)"],
    ['  File "/srv/app/engine.py", line 88, in shutdown', "    await self._loop_task"],
    ['  File "/srv/app/client.py", line 40, in __aexit__', "    await self.aclose()"],
])
def test_a_task_cancelled_as_the_program_closes_is_no_failure(frames):
    log = "\n".join(_SERVED + ["Traceback (most recent call last):"] + frames + [
        '  File "/usr/lib/python3.10/asyncio/futures.py", line 196, in result', "    raise exc",
        "asyncio.exceptions.CancelledError"])
    run = run_of(diag(log))
    assert (run.kind, run.code) == ("NONE", "cancelled-at-shutdown"), (run.kind, run.code)


@pytest.mark.parametrize("tail", [
    ['  File "/srv/app/engine.py", line 88, in step', "    await self._loop_task", "asyncio.exceptions.CancelledError"],
    ['  File "/srv/app/engine.py", line 88, in shutdown', "    await self._loop_task",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."],
])
def test_a_cancellation_outside_a_close_or_beside_another_error_is_not_called_a_shutdown(tail):
    run = run_of(diag("\n".join(_SERVED + ["Traceback (most recent call last):"] + tail)))
    assert run.code != "cancelled-at-shutdown", (run.kind, run.code)


# --- a request named by what it is for ("The next RAG query needs the worker to embed the question"), and a long input
# --- by its length ("when processing a 256k long sequence"): serving

@pytest.mark.parametrize("words", [
    "The next RAG query needs the embedding worker, and the pipeline hard-fails with:",
    "On the first search query after start-up it fails with:",
    "The service reports an out-of-memory error when processing a 256k long sequence:",
])
def test_a_request_named_by_its_use_or_its_length_is_serving(words):
    log = "\n".join([words, "", "CUDA out of memory. Tried to allocate 490.00 MiB. GPU 0 has a total capacity of 7.60 "
                     "GiB of which 422.62 MiB is free."])
    run = run_of(diag(log))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- a failure not of memory at glog's warning level, after which the server became ready and answered: went on from

def test_a_glog_warning_the_server_went_on_from_is_no_failure():
    log = "\n".join([
        "W0227 14:34:03.339938 3828981 rdma_transport.cpp:400] RdmaTransport: Failed to register memory: addr "
        "0x7f9568000000 length 375858432",
        "[2026-02-27 14:34:03] INFO:     Application startup complete.",
        '[2026-02-27 14:34:05] INFO:     10.99.91.49:55048 - "POST /generate HTTP/1.1" 200 OK',
        "[2026-02-27 14:34:05] The server is fired up and ready to roll!"])
    run = run_of(diag(log))
    assert run.kind == "NONE", (run.kind, run.code)


def test_the_same_failure_at_error_level_with_no_serving_after_stays_a_failure():
    log = "\n".join(["E0227 14:34:03.339938 3828981 rdma_transport.cpp:400] RdmaTransport: Failed to register memory: "
                     "addr 0x7f9568000000 length 375858432", "Killed"])
    run = run_of(diag(log))
    assert run.kind != "NONE", (run.kind, run.code)


# --- a failure told with what still works ("cannot run X with turbomind, although it can still run with PyTorch"): a
# --- path missing, no failure of the run

@pytest.mark.parametrize("words", [
    "We still cannot run the latest Qwen3-VL models with turbomind engine, although it can still run with PyTorch "
    "engine, but it is very slow.",
    "It fails to load with flash attention, but it still works without it.",
])
def test_a_failure_told_with_what_still_runs_is_no_failure(words):
    log = "\n".join([words, "", "```", "2025-12-09 00:43:11,783 - lmdeploy - WARNING - archs.py:45 - Fallback to "
                     "pytorch engine because `/models/Qwen3-VL-32B-Instruct` not supported by turbomind engine.", "```"])
    run = run_of(diag(log))
    assert run.kind == "NONE", (run.kind, run.code, run.message)


# --- vLLM V0's answer to a request after its background loop died of an out-of-memory: serving

@pytest.mark.parametrize("err", [
    "OutOfMemoryError('HIP out of memory. Tried to allocate 1.63 GiB. GPU 0 has a total capacity of 63.98 GiB')",
    "OutOfMemoryError('CUDA out of memory. Tried to allocate 20.00 MiB.')",
])
def test_vllms_engine_loop_not_running_over_an_out_of_memory_is_serving(err):
    run = run_of(diag("Engine loop is not running. Inspect the stacktrace to find the original error: " + err))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- llama.cpp's own warning level (its timestamps on: "0.00.476.197 W srv ..."), a failure it names at that level and
# --- went on from to serve: no failure

_LLAMA_SERVED = ["0.01.102.334 I srv    load_model: initializing slots, n_slots = 1",
                 "0.01.300.001 I main: server is listening on http://0.0.0.0:8098",
                 "0.05.000.000 I srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]


@pytest.mark.parametrize("warned", [
    "0.00.476.197 W srv    load_model: [spec] failed to measure draft model memory: failed to create llama_context "
    "from model",
    "0.00.476.197 W common_init_from_params: failed to load control vector, continuing without it",
])
def test_a_llamacpp_warning_it_went_on_from_is_no_failure(warned):
    run = run_of(diag("\n".join([warned] + _LLAMA_SERVED)))
    assert run.kind == "NONE", (run.kind, run.code)


def test_a_llamacpp_out_of_memory_at_warning_level_is_still_read():
    run = run_of(diag("\n".join([
        "0.00.476.197 W ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4096.00 MiB on device 0: cudaMalloc "
        "failed: out of memory", "0.00.476.300 E llama_init_from_model: failed to initialize the context"])))
    assert run.kind not in ("NONE", "NOT_OOM"), (run.kind, run.code)


# --- a size asked for that no machine has (a petabyte or more): a size computed wrong, not memory running out

@pytest.mark.parametrize("line", [
    "[GPU] Exceeded max size of memory object allocation: requested 2305843008391495680 bytes, but max alloc size "
    "supported by device is 4294959104 bytes.Please try to reduce batch size or use lower precision.",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8589934592.00 GiB. GPU 0 has a total capacity of "
    "79.19 GiB of which 70.02 GiB is free.",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 17592186044416.00 MiB on device 0: cudaMalloc failed: out "
    "of memory",
])
def test_a_size_no_machine_has_is_a_size_computed_wrong(line):
    run = run_of(diag(line))
    assert (run.kind, run.code) == ("NOT_OOM", "allocation-size-overflow"), (run.kind, run.code)


@pytest.mark.parametrize("line", [
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 768000.00 MiB on device 0: cudaMalloc failed: out of memory",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 750.00 GiB. GPU 0 has a total capacity of 79.19 GiB",
])
def test_a_large_but_possible_size_stays_out_of_memory(line):
    run = run_of(diag(line))
    assert run.kind != "NOT_OOM", (run.kind, run.code)


# --- a program's own words that what it found is a bug of its own

@pytest.mark.parametrize("line", ["ID not found in entries. This is a bug.",
                                  "ERROR: unexpected state in scheduler: request 12 has no sequence group. This is a "
                                  "bug, please report it."])
def test_a_programs_own_words_that_it_is_a_bug_are_not_memory(line):
    run = run_of(diag("\n".join(["thread 'tokio-runtime-worker' panicked at router/src/infer.rs:598:14:", line])))
    assert (run.kind, run.code) == ("NOT_OOM", "engine-bug"), (run.kind, run.code)


def test_a_bug_the_program_names_beside_memory_is_not_called_a_bug_of_code():
    run = run_of(diag("RuntimeError: Prefill out of memory. This is a bug if the pool was sized right."))
    assert run.code != "engine-bug", (run.kind, run.code)


# --- smaller readings: Windows' port in use in Chinese; an OS error as the cause a wrapper names; Go's nil error as a
# --- cause; a hyphenated name in a wrapper's words

@pytest.mark.parametrize("line", [
    "Error: listen tcp 127.0.0.1:11434: bind: 通常每个套接字地址(协议/网络地址/端口)只允许使用一次。",
    "Error: listen tcp 127.0.0.1:11434: bind：通常只允许每个套接字地址（协议/网络地址/端口）使用一次。",
])
def test_windows_port_in_use_in_chinese_is_the_port(line):
    run = run_of(diag(line))
    assert (run.kind, run.code) == ("NOT_OOM", "port-in-use"), (run.kind, run.code)


@pytest.mark.parametrize("line", [
    "2025-03-20T10:02:44+00:00 - gpustack.worker.backends.vox_box - ERROR - Failed to run the vox-box server: [Errno 2] "
    "No such file or directory: '/usr/local/python3.10/bin/vox-box'",
    "ERROR - Failed to start the llama-box server: [Errno 13] Permission denied: '/opt/llama-box'",
])
def test_a_wrapper_naming_an_os_error_names_its_cause(line):
    run = run_of(diag(line))
    assert run.kind == "NOT_OOM", (run.kind, run.code)


@pytest.mark.parametrize("line", [
    'litellm.APIConnectionError: OllamaException - {"error":"llama runner process has terminated: %!w(<nil>)"}',
    'OllamaError: {"error":"llama runner process has terminated: %!w(\\u003cnil\\u003e)"}',
])
def test_gos_nil_error_names_no_cause(line):
    run = run_of(diag(line))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


# --- RKLLM and the RKNN runtime on Rockchip NPUs: an NPU allocation the load's own words then say failed is the weights

@pytest.mark.parametrize("lines", [
    ["I rkllm: loading rkllm model from ./language_model_w8a8.rkllm",
     "E RKNN: [09:40:45.140] failed to malloc npu memory, size: 3085697024, flags: 0x2",
     "E RKNN: [09:40:45.148] load model file error!", "E rkllm: rkllm_init failed"],
    ["rkllm init success", "main: LLM Model loaded in 17759.32 ms",
     "E RKNN: [01:13:18.656] failed to malloc npu memory, size: 1427746880, flags: 0x2",
     "E RKNN: [01:13:18.656] Import rknn model failed!", "E RKNN: [01:13:18.656] rknn_init, load model failed!"],
    ["E RKNN: [10:01:02.003] failed to malloc npu memory, size: 4022861824, flags: 0x2",
     "E RKNN: [10:01:02.010] load model file error!"],
])
def test_an_npu_allocation_the_load_then_says_failed_is_the_weights(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


# --- TGI's router going on with the tokenizer it has; a host-memory watchdog's stop; Ollama finding no GPU

def test_tgis_router_without_its_python_tokenizer_goes_on():
    run = run_of(diag("\n".join([
        "2025-04-14T15:52:02.679061Z ERROR text_generation_router::server: router/src/server.rs:1672: Failed to import "
        "python tokenizer ModuleNotFoundError: No module named 'transformers'",
        "2025-04-14T15:52:02.780106Z  INFO text_generation_router::server: router/src/server.rs:2266: Connected"])))
    assert run.kind == "NONE", (run.kind, run.code)


@pytest.mark.parametrize("line", [
    "[2026-03-08T15:49:40Z] watchdog host-memory guard tripped: MemAvailable=10.6GiB < 16GiB; terminating pid=1223238",
    "watchdog system-memory guard triggered: MemAvailable=1.2GiB < 2GiB; terminating pid=4411",
])
def test_a_host_memory_watchdogs_stop_is_host_memory(line):
    run = run_of(diag(line))
    assert run.kind not in ("NONE", "NOT_OOM"), (run.kind, run.code)


@pytest.mark.parametrize("line", [
    'time=2024-09-17T15:04:08.215Z level=INFO source=gpu.go:560 msg="no nvidia devices detected" '
    "library=/usr/lib/x86_64-linux-gnu/libcuda.so.550.107.02",
    'time=2024-09-17T15:04:08.215Z level=INFO source=gpu.go:386 msg="no compatible GPUs were discovered"',
])
def test_ollama_finding_no_gpu_is_the_finding_though_it_serves(line):
    log = "\n".join(['time=2024-09-17T15:04:01.101Z level=INFO source=routes.go:1172 msg="Listening on [::]:11434 '
                     '(version 0.3.10)"', line,
                     "[GIN] 2024/09/17 - 15:05:00 | 200 |  12.1s |       127.0.0.1 | POST     \"/api/chat\""])
    run = run_of(diag(log))
    assert (run.kind, run.code) == ("NOT_OOM", "gpu-not-detected"), (run.kind, run.code)


# --- in Chinese, a load killed partway (模型加载到87%被kill了): the weights

@pytest.mark.parametrize("words", ["原因是内存不够，模型加载到87%被kill了，有木有什么解决办法？", "模型加载到一半就被杀掉了"])
def test_a_load_killed_partway_in_chinese_is_the_weights(words):
    run = run_of(diag("\n".join(["cli_demo.sh: line 5: 12989 Killed", words])))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


# --- TVM's check of a condition it states ("Check failed: (X) is false: MSG") on no memory: an assertion

@pytest.mark.parametrize("line", [
    "TVMError: Check failed: (args.size() == 22 || args.size() == 23) is false: Invalid number of KV cache constructor "
    "args.",
    "Check failed: (f.defined()) is false: Function vm.builtin.attention_kv_cache_create not found",
])
def test_tvms_stated_condition_on_no_memory_is_an_assertion(line):
    run = run_of(diag(line))
    assert (run.kind, run.code) == ("NOT_OOM", "assertion-failed"), (run.kind, run.code)


@pytest.mark.parametrize("line", [
    "Check failed: (__e == VK_SUCCESS) is false: Vulkan Error, code=-2: VK_ERROR_OUT_OF_DEVICE_MEMORY",
    "Check failed: (ptr != nullptr) is false: device allocation returned null",
    "Check failed: (free_pages >= need) is false: not enough pages",
])
def test_tvms_stated_condition_on_a_status_a_pointer_or_memory_is_not_called_an_assertion(line):
    run = run_of(diag(line))
    assert run.code != "assertion-failed", (run.kind, run.code)


@pytest.mark.parametrize("line", ['{"code":-100301,"error":"SDKError(Plugin loading failed)"}',
                                  "RuntimeError: failed to load the QNN plugin"])
def test_a_plugin_that_would_not_load_is_not_memory(line):
    run = run_of(diag(line))
    assert (run.kind, run.code) == ("NOT_OOM", "library-load-failed"), (run.kind, run.code)


@pytest.mark.parametrize("line", ["cli_demo.sh: line 5: 12989 Killed", "./run_server.sh: line 12: 4242 Killed"
                                  "                  python -m vllm.entrypoints.openai.api_server --model x"])
def test_a_scripts_kill_as_the_shell_reports_it_is_a_kill(line):
    run = run_of(diag(line))
    assert (run.kind, run.code) == ("UNDETERMINED", "host-oom-kill"), (run.kind, run.code)


# --- Ollama relaying that its runner went away mid-answer ("unexpected EOF"): no cause named

@pytest.mark.parametrize("line", [
    "Error: an error was encountered while running the model: unexpected EOF",
    "ollama._types.ResponseError: an error was encountered while running the model: unexpected EOF (status code: 500)",
])
def test_ollamas_relay_of_a_runner_gone_mid_answer_names_no_cause(line):
    run = run_of(diag(line))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


# --- from the new-user review and rounds 415-420: a person's short sentence that serving was under way is told, and
# --- the engine's own step under way decides over it

_SG_CAPTURE = ["[2025-03-02 11:00:01 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=60.00 GB",
               "[2025-03-02 11:00:02 TP0] KV Cache is allocated. #tokens: 480000, K size: 20.30 GB, V size: 20.30 GB",
               "[2025-03-02 11:00:03 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=18.00 GB",
               "[2025-03-02 11:00:04 TP0] Scheduler hit an exception: Traceback (most recent call last):",
               '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 300, in capture',
               "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of "
               "79.19 GiB of which 1.00 GiB is free."]


@pytest.mark.parametrize("words", ["It fails when processing a 128k long sequence.", "The next RAG query fails.",
                                   "It crashes with 32 concurrent requests on this box."])
def test_the_engines_own_warm_up_step_decides_over_a_told_request(words):
    run = run_of(diag("\n".join([words] + _SG_CAPTURE)))
    assert run.kind == "WARMUP", (run.kind, run.code, run.phase_source)


def test_a_programs_ready_line_that_reads_like_a_sentence_is_not_told():
    run = run_of(diag("\n".join([
        "Loading model on Cuda(CudaDevice(DeviceId(0)))...", "Model loaded.", "Serving on http://0.0.0.0:8080.",
        "thread '<unnamed>' panicked at mistralrs-core/src/pipeline/llama.rs:311:9:",
        'Model failed with error `DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")`.'])))
    assert run.kind == "RUNTIME", (run.kind, run.phase_source)


# --- a person's sentence that names a step (quoting a program's words) is no step under way for a kill

def test_a_sentence_quoting_a_loaders_line_is_no_step_under_way():
    log = "\n".join(["The expected behavior is that the response is printed but the debug information (i.e "
                     "llama_model_loader: - kv ...) is not.", "```shell",
                     "% llama-cli --log-disable -m ./models/8B/favorite-8B.gguf -p \"Give an answer.\"", "Killed", "```"])
    run = run_of(diag(log))
    assert run.kind == "UNDETERMINED", (run.kind, run.code, run.phase_source)


# --- Ollama's refusal: the compute graph counts with the context; a refusal after another model served is a new load

def test_ollamas_refusal_where_kv_and_graph_outweigh_the_weights_is_the_context():
    log = "\n".join(['msg="model weights" device=CPU size="4.3 GiB"', 'msg="kv cache" device=CPU size="3.0 GiB"',
                     'msg="compute graph" device=CPU size="8.5 GiB"',
                     'level=ERROR source=sched.go:455 msg="error loading llama server" error="model requires more system '
                     'memory (15.8 GiB) than is available (11.2 GiB)"'])
    run = run_of(diag(log))
    assert (run.kind, run.code) == ("KV_CAPACITY", "context-exceeds-system-memory"), (run.kind, run.code)


def test_ollamas_refusal_where_the_weights_alone_exceed_what_is_free_stays_the_weights():
    log = "\n".join(['msg="model weights" device=CPU size="20.1 GiB"', 'msg="kv cache" device=CPU size="16.0 GiB"',
                     'msg="compute graph" device=CPU size="8.5 GiB"',
                     'msg="error loading llama server" error="model requires more system memory (44.6 GiB) than is '
                     'available (17.7 GiB)"'])
    run = run_of(diag(log))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


@pytest.mark.parametrize("load", [
    'time=2025-03-02T10:05:00.000Z level=INFO source=sched.go:731 msg="new model will fit in available VRAM, loading"',
    'time=2025-11-02T10:05:00.000Z level=INFO source=server.go:470 msg="loading model" model=/root/.ollama/models/b',
])
def test_ollamas_refusal_of_a_model_after_another_served_is_a_new_load(load):
    log = "\n".join([
        'time=2025-03-02T10:00:00.000Z level=INFO source=routes.go:1238 msg="Listening on 127.0.0.1:11434 (version '
        '0.5.12)"',
        'time=2025-03-02T10:00:07.000Z level=INFO source=server.go:596 msg="llama runner started in 2.10 seconds"',
        '[GIN] 2025/03/02 - 10:00:09 | 200 |  2.3s |       127.0.0.1 | POST     "/api/chat"', load,
        'time=2025-03-02T10:05:00.200Z level=ERROR source=sched.go:455 msg="error loading llama server" error="model '
        'requires more system memory (45.3 GiB) than is available (17.7 GiB)"'])
    run = run_of(diag(log))
    assert run.kind == "WEIGHTS", (run.kind, run.code)
    assert "context" in run.message and "does not matter" not in " ".join(map(str, run.advice))


# --- SGLang's leak check: its later spelling; a CUDA allocation after it is that allocation's

_LEAK_WARN = ["/sgl-workspace/sglang/python/sglang/srt/managers/tp_worker.py:611: UserWarning: Warning: "
              "available_size=301000, max_total_num_tokens=412000", "KV cache pool leak detected!", "  warnings.warn("]


def test_sglangs_later_leak_warning_spelling_is_read():
    run = run_of(diag("\n".join(["[2024-09-11 08:00:09] The server is fired up and ready to roll!"] + _LEAK_WARN + [
        "[2024-09-11 09:10:00 TP0] Decode batch. #running-req: 120, #token: 300500, token usage: 1.00",
        "RuntimeError: Decode out of memory. This should never happen."])))
    assert (run.kind, run.code) == ("LEAK", "kv-slots-not-returned"), (run.kind, run.code)


def test_a_cuda_allocation_failing_after_the_leak_warning_is_that_allocations():
    run = run_of(diag("\n".join(["[2024-09-11 08:00:09] The server is fired up and ready to roll!"] + _LEAK_WARN + [
        "[2024-09-11 09:10:00 TP0] Decode batch. #running-req: 120, #token: 300500, token usage: 1.00",
        '  File "/sgl-workspace/sglang/python/sglang/srt/layers/logits_processor.py", line 80, in forward',
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB."])))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- more words of memory running out; more sizes no machine has; a GPU found by another library

@pytest.mark.parametrize("line", [
    "ERROR 05-10 11:00:00 [scheduler.py:400] KV block allocation failed for request cmpl-12",
    "2024-05-01T10:00:00Z ERROR text_generation_router::infer: Block allocation failed: allocator returned None.",
    "ERROR:    Metal memory allocation error detected, see above",
    "gpu-memory guard tripped: used=79.1GiB > 78.0GiB; terminating",
])
def test_more_words_of_memory_running_out_are_out_of_memory(line):
    run = run_of(diag("\n".join(["INFO:     Application startup complete.",
                                 'INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK', line])))
    assert run.kind not in ("NONE", "NOT_OOM"), (run.kind, run.code)


@pytest.mark.parametrize("line", [
    "RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: not enough memory: you tried to "
    "allocate 18446744073709551612 bytes.",
    "[TRT] [E] 2: [executionContext.cpp::ExecutionContext::564] Error Code 2: OutOfMemory (Requested size was "
    "1152921504606846976 bytes.)",
    "[TensorRT-LLM][ERROR] Requested amount of GPU memory (1152921504606846976 bytes) could not be allocated.",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating -2048.00 MiB on device 0: cudaMalloc failed: out of memory",
])
def test_more_sizes_no_machine_has_are_a_size_computed_wrong(line):
    run = run_of(diag(line))
    assert (run.kind, run.code) == ("NOT_OOM", "allocation-size-overflow"), (run.kind, run.code)


def test_no_nvidia_device_beside_a_gpu_another_library_found_is_no_finding():
    log = "\n".join([
        'time=2025-02-01T10:00:00.200Z level=INFO source=gpu.go:630 msg="no nvidia devices detected by library '
        '/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14"',
        'time=2025-02-01T10:00:00.400Z level=INFO source=types.go:131 msg="inference compute" id=GPU-0 library=rocm '
        'variant="" compute=gfx1100 driver=6.8 name=1002:744c total="24.0 GiB" available="23.5 GiB"',
        '[GIN] 2025/02/01 - 10:00:09 | 200 |  2.3s |       127.0.0.1 | POST     "/api/chat"'])
    run = run_of(diag(log))
    assert run.kind == "NONE", (run.kind, run.code)


# --- a program's note of what it does then, and a fall-back it takes, are no failure

@pytest.mark.parametrize("line", [
    "WARNING:  If a CUDA memory allocation error is detected, the request will be retried with a smaller batch",
    "0.00.476.197 W llama_model_load: mmap failed: Cannot allocate memory, falling back to reading the file",
    "WARNING 09-13 19:33:14 cpu_executor.py:324] CUDA graph is not supported on CPU, fallback to the eager mode.",
])
def test_a_programs_note_of_what_it_would_do_or_does_instead_is_no_failure(line):
    log = "\n".join([line, "0.01.300.001 I main: server is listening on http://0.0.0.0:8098",
                     'INFO:     127.0.0.1:40000 - "POST /v1/completions HTTP/1.1" 200'])
    run = run_of(diag(log))
    assert run.kind == "NONE", (run.kind, run.code)


# --- the writer's note after a setting, with out-of-memory words in it, is no failure of the run

@pytest.mark.parametrize("setting", ['    "--max_num_seqs=1",  # OOM at 4 concurrent requests',
                                     '    "--max-model-len", "16384",  # Prefill out of memory above this',
                                     "  --gpu-memory-utilization 0.95 \\\\  # CUDA out of memory at 0.98"])
def test_a_settings_note_with_oom_words_is_no_failure(setting):
    log = "\n".join(["args = [", setting, "]",
                     "INFO 05-10 10:00:31 [gpu_model_runner.py:1347] Model loading took 37.7 GiB and 21.0 seconds",
                     'INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK'])
    run = run_of(diag(log))
    assert run.kind == "NONE", (run.kind, run.code)


# --- checks and bugs named beside memory, and hints of what happens as a rule, are not read as their words say

@pytest.mark.parametrize("line", [
    "Request failed during generation: Server error: Not enough free KV blocks to schedule the request. This is a bug.",
    "Assertion failed: cache.n_free_blocks > 0 (src/llama-kv-cache.cpp: find_slot: 640)",
    "SDKError(Plugin loading failed: cannot allocate memory)",
    "ERROR 05-10 11:00:00 [multiproc_executor.py:140] Worker proc VllmWorker-0 died unexpectedly, shutting down "
    "executor. This typically happens when the GPU runs out of memory or some processes are hanging.",
])
def test_words_beside_memory_or_a_hint_are_not_read_as_a_cause(line):
    run = run_of(diag(line))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


# --- more from rounds 415-420

def test_a_kill_right_after_an_assertion_is_the_engines_own():
    log = "\n".join(["Traceback (most recent call last):",
                     '  File "/opt/sglang/srt/managers/controller/cuda_graph_runner.py", line 188, in replay',
                     "    assert not batch.return_logprob", "AssertionError", " ", "Killed"])
    run = run_of(diag(log))
    assert run.kind == "NOT_OOM", (run.kind, run.code)


def test_sglangs_sigquit_after_a_crashed_subprocess_makes_the_kill_its_own():
    log = "\n".join(["Fatal Python error: Segmentation fault", "",
                     "[2026-04-25 02:01:26] Subprocess scheduler_0 (pid=7391) crashed with exit code -11. Triggering "
                     "SIGQUIT for cleanup...",
                     "[2026-04-25 02:01:26] SIGQUIT received. signum=None, frame=None. It usually means one child failed."]
                    + ["node:1021620:1023014 [6] NCCL INFO [Service thread] Connection closed by localRank 1"] * 6
                    + ["bash: line 1:  7231 Killed                  python3 scripts/run.py"])
    run = run_of(diag(log))
    assert run.kind == "NOT_OOM", (run.kind, run.code)


def test_a_crash_told_as_another_issues_is_not_the_writers():
    log = "\n".join(["INFO 09-13 19:33:20 llm_engine.py:100] Processed prompts: 100%| 1/1",
                     "However accordingly to #8198 prompt logs causes vllm to crash when using multi-step."])
    run = run_of(diag(log))
    assert run.kind == "NONE", (run.kind, run.code)


@pytest.mark.parametrize("line,kind", [
    ('got exception: {"code":500,"message":"image input is not supported by this server","type":"server_error"}',
     "NOT_OOM"),
    ("Unable to allocate memory for image embeddings", "RUNTIME"),
    ('ggml_metal_init: error: load pipeline error: Error Domain=CompilerError Code=2 "only 14 constant buffers binding '
     'are supported in the simulator but 25 were used"', "NOT_OOM"),
])
def test_llamacpps_multimodal_and_metal_words(line, kind):
    run = run_of(diag("\n".join(["main: server is listening on http://127.0.0.1:8080 - starting the main loop", line,
                                 "ggml_backend_metal_device_init: error: failed to allocate context"
                                 if "Metal" in line or "metal" in line else ""])))
    assert run.kind == kind, (run.kind, run.code)


def test_llamafile_failing_to_open_a_browser_is_no_failure():
    log = "\n".join(["llama server listening at http://127.0.0.1:8080", "",
                     "failed to open http://127.0.0.1:8080/ in a browser tab using xdg-open: No such file or directory",
                     '{"function":"log_server_request","level":"INFO","line":2794,"method":"POST","msg":"request",'
                     '"path":"/completion","status":200}'])
    run = run_of(diag(log))
    assert run.kind == "NONE", (run.kind, run.code)


@pytest.mark.parametrize("line", [
    "Exception: Ollama Error - {'error': 'POST predict: Post \"http://127.0.0.1:54043/completion\": read tcp "
    "127.0.0.1:54045->127.0.0.1:54043: wsarecv: An existing connection was forcibly closed by the remote host.'}",
    'level=ERROR source=server.go:807 msg="post predict" error="POST predict: Post \\"http://127.0.0.1:34567/completion'
    '\\": EOF"',
])
def test_ollamas_relay_of_its_runner_gone_names_no_cause(line):
    run = run_of(diag(line))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


@pytest.mark.parametrize("words", [
    "this is a memory allocation failure it seems, from me not having enough memory. it just segfaults",
    "(`ctx->mem_buffer` is nullptr which probably means the malloc just failed)",
])
def test_a_segfault_the_report_puts_down_to_memory_is_undetermined(words):
    run = run_of(diag("\n".join(["main: seed = 1679", "llama_model_load: loading model from 'models/7B/ggml-model-q4_0.bin'",
                                 "Segmentation fault (core dumped)", words])))
    assert (run.kind, run.code) == ("UNDETERMINED", "crash-cause-not-shown"), (run.kind, run.code)


@pytest.mark.parametrize("words", ["There is plenty of memory free, it is not OOM.", ""])
def test_a_segfault_with_memory_ruled_out_or_unmentioned_stays_a_crash(words):
    run = run_of(diag("\n".join(["main: seed = 1679", "Segmentation fault (core dumped)", words])))
    assert (run.kind, run.code) == ("NOT_OOM", "crash-access-violation"), (run.kind, run.code)


# --- from the second new-user review

@pytest.mark.parametrize("end", [["AssertionError: req.output_ids is empty"], ["KeyError: 'rid-123'"],
                                 ["    assert req.finished()", "AssertionError"]])
def test_a_bug_after_the_leak_warning_is_that_bug(end):
    log = "\n".join(["[2024-09-12 10:00:00] The server is fired up and ready to roll!"] + _LEAK_WARN + [
        "[2024-09-12 10:20:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/sglang/srt/managers/scheduler.py", line 900, in event_loop'] + end)
    run = run_of(diag(log))
    assert run.kind != "LEAK", (run.kind, run.code)


@pytest.mark.parametrize("line", [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. Cannot fallback to the eager mode.",
    "RuntimeError: mmap failed: Cannot allocate memory, falling back to reading the file also failed: CUDA out of memory",
])
def test_an_out_of_memory_that_cannot_fall_back_stays_one(line):
    run = run_of(diag("\n".join(["INFO ... vLLM API server version 0.9.1",
                                 "INFO ... Model loading took 14.99 GiB and 5.1 seconds", line])))
    assert run.kind not in ("NONE", "NOT_OOM"), (run.kind, run.code)


@pytest.mark.parametrize("words", ["模型加载到87%被kill了", "加载模型到87%时进程被杀掉了"])
def test_a_chinese_load_killed_alone_is_a_kill_while_loading(words):
    run = run_of(diag(words))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


def test_earlyoom_killing_the_server_is_host_memory_and_a_browser_is_not():
    served = ["INFO:     Application startup complete.",
              'INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    server = 'earlyoom[812]: sending SIGKILL to process 4412 uid 1000 "python3": oom_score 900, VmRSS 50000 MiB'
    browser = 'earlyoom[812]: sending SIGTERM to process 5120 uid 1000 "chrome": badness 900, VmRSS 8000 MiB'
    assert run_of(diag("\n".join(served + [server]))).kind == "RUNTIME"
    assert run_of(diag("\n".join(served + [browser] + served[1:]))).kind == "NONE"


def test_tabbys_allocation_error_after_it_listens_is_serving():
    log = "\n".join(["2025-06-18T15:08:32Z  INFO tabby::serve: crates/tabby/src/serve.rs:150: Listening at 0.0.0.0:8080",
                     "2025-06-18T15:10:00Z ERROR tabby_inference: CUDA memory allocation error detected",
                     "2025-06-18T15:10:01Z  INFO tabby::routes: POST /v1/completions 200"])
    assert run_of(diag(log)).kind == "RUNTIME"


@pytest.mark.parametrize("words,kind", [
    ("The first RAG query never arrives: the server crashes during startup.", "UNDETERMINED"),
    ("vLLM allocates its own KV pool at start. It served fine for an hour, then a long request came in:", "RUNTIME"),
])
def test_requests_never_sent_and_general_remarks(words, kind):
    log = "\n".join(["vLLM 0.9.1", words, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."])
    assert run_of(diag(log)).kind == kind


@pytest.mark.parametrize("help_line", ["# HELP vllm:kv_block_allocation_failed_total KV block allocation failed count",
                                       "# HELP tgi_oom_total Number of CUDA out of memory errors"])
def test_a_metrics_description_is_no_failure(help_line):
    log = "\n".join(["INFO:     Application startup complete.",
                     'INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK', help_line,
                     help_line.split()[2] + " 0.0"])
    assert run_of(diag(log)).kind == "NONE"


@pytest.mark.parametrize("line", [
    "F0301 10:00:00.000000 1234 buf.cc:88] Check failed: ptr != nullptr (0 vs. 0)",
    "tvm.error.InternalError: Check failed: (status == kTvmErrorNoError) is false:",
    "Check failed: (workspace_size <= max_workspace_size_) is false: 1073741824 vs 268435456",
    "[TM][ERROR] Check failed: (block_count <= max_block_count) is false: 300 vs 256 (SequenceManager.cc:100)",
    r"Assertion failed: ptr, file C:\src\ggml\src\ggml-alloc.c, line 100",
    "Assertion failed: data (ggml/src/ggml-cuda.cu: ggml_cuda_pool_malloc: 300)",
    "ggml/src/ggml-cuda.cu:300: void* ggml_cuda_pool_malloc(size_t): Assertion `data' failed.",
])
def test_checks_on_pointers_status_sizes_or_blocks_are_not_called_assertions(line):
    assert run_of(diag(line)).code != "assertion-failed"


def test_an_http_reason_phrase_alone_names_no_cause():
    assert run_of(diag("Error loading model: Request failed: 507 Insufficient Storage")).kind == "UNDETERMINED"


# --- no "more layers on the GPU" where every layer is there already (-ngl 99, or the model's layer count)

_LOAD_LINE = ("load_tensors: tensor 'token_embd.weight' (q4_K) (and 0 others) cannot be used with preferred buffer type "
              "CUDA_Host, using CPU instead")


@pytest.mark.parametrize("fail", [["Killed"], ["ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of "
                                               "size 19327352832",
                                               "llama_model_load: error loading model: unable to allocate CPU buffer"]])
def test_no_more_layers_advised_where_every_layer_is_on_the_gpu(fail):
    run = run_of(diag("\n".join(["./llama-server -m Qwen3-32B-Q4_K_M.gguf -ngl 99 -c 32768 --port 8080", _LOAD_LINE]
                                + fail)))
    assert run.kind == "WEIGHTS", (run.kind, run.code)
    assert not any("more layers on the GPU" in str(a) for a in run.advice), run.advice


def test_more_layers_still_advised_where_some_are_on_the_cpu():
    run = run_of(diag("\n".join(["./llama-server -m Qwen3-32B-Q4_K_M.gguf -ngl 20 -c 32768 --port 8080", _LOAD_LINE,
                                 "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 19327352832",
                                 "llama_model_load: error loading model: unable to allocate CPU buffer"])))
    assert any("more layers on the GPU" in str(a) for a in run.advice), run.advice
