"""`vramdoctor logs` on the kinds of fault the held-out rounds 255 and later (issue 6, stop 34) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, flags, kind_of, run_of

# --- vLLM's shared-memory ring buffer (distributed/device_communicators/shm_broadcast.py) waiting, again and again, at
# the end of a log of a server that was serving: a worker stuck, no memory running out; at start-up the same line is a
# long compilation --------------------------------------------------------------------------------------------------

_WAIT = ("INFO 03-12 12:{:02d}:02 [shm_broadcast.py:466] No available shared memory broadcast block found in 60 "
         "seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. "
         "compilation, weight/kv cache quantization).")
_SERVING = ["INFO 03-12 10:01:02 [api_server.py:1351] Starting vLLM API server 0 on http://0.0.0.0:8000",
            "INFO:     Application startup complete.",
            "INFO:     10.0.0.4:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"]


@pytest.mark.parametrize("tail", [
    # V1's engine core, its statistics still printed between the waits (requests running, none finishing)
    ["(EngineCore_DP0 pid=311) " + _WAIT.format(44),
     "(APIServer pid=1) INFO 03-12 12:44:12 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg "
     "generation throughput: 0.0 tokens/s, Running: 4 reqs, Waiting: 9 reqs, GPU KV cache usage: 12.5%, Prefix cache "
     "hit rate: 0.0%",
     "", "(EngineCore_DP0 pid=311) " + _WAIT.format(45)],
    # a worker's form in 0.9, the older "60 second" and its file tag only
    ["(VllmWorker rank=1 pid=2231) " + _WAIT.format(44).replace("seconds", "second"),
     "(VllmWorker rank=1 pid=2231) " + _WAIT.format(45).replace("seconds", "second"),
     "(VllmWorker rank=1 pid=2231) " + _WAIT.format(46).replace("seconds", "second")],
    # a paste without the log's prefix
    ["No available shared memory broadcast block found in 60 seconds. This typically happens when some processes "
     "are hanging or doing some time-consuming work (e.g. compilation).",
     "No available shared memory broadcast block found in 60 seconds. This typically happens when some processes "
     "are hanging or doing some time-consuming work (e.g. compilation)."],
])
def test_vllms_ring_buffer_waiting_again_and_again_after_serving_is_a_stalled_process(tail):
    assert kind_of(_SERVING + tail) == ("NOT_OOM", "process-stalled")


def test_one_wait_after_serving_is_no_stall():
    """One minute's wait is a long step, not yet a process that never answers."""
    assert kind_of(_SERVING + [_WAIT.format(44)])[1] != "process-stalled"


def test_the_same_waits_during_start_up_are_a_compilation_not_a_stall():
    """Before the server is ready the waits are a long torch.compile or kernel JIT (its own words say so)."""
    assert kind_of([
        "INFO 03-12 10:01:02 [gpu_model_runner.py:1928] Model loading took 61.2 GiB and 30.1 seconds",
        "INFO 03-12 10:01:40 [backends.py:530] Dynamo bytecode transform time: 10.38 s",
        _WAIT.format(2), _WAIT.format(3)])[1] != "process-stalled"


def test_a_failure_after_the_waits_decides():
    """A worker that then fails with an out of memory: the failure is the diagnosis, not the wait before it."""
    assert kind_of(_SERVING + [_WAIT.format(44), _WAIT.format(45),
                               "ERROR 03-12 12:46:03 [core.py:634] torch.OutOfMemoryError: CUDA out of memory. Tried "
                               "to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is "
                               "free."])[0] == "RUNTIME"


# --- a report's title on the first line, a sentence with its stop and no blank line under it, that says "out of
# memory": the program's own out-of-memory line below it places the failure, not the title ----------------------------

@pytest.mark.parametrize("lines, kind", [
    # llama.cpp on Vulkan, two GPUs: the compute buffers were made, then an allocation failed
    (["Out of memory with two GPUs on Vulkan.",
      "offloaded 41/41 layers to GPU",
      "   Vulkan0 buffer size = 11458.44 MiB",
      "   Vulkan1 buffer size =  9088.14 MiB",
      "Vulkan0 KV buffer size =    80.00 MiB",
      "Vulkan1 KV buffer size =    40.00 MiB",
      "llama_new_context_with_model: KV self size  =  120.00 MiB, K (f16):   60.00 MiB, V (f16):   60.00 MiB",
      "   Vulkan0 compute buffer size =   113.00 MiB",
      "   Vulkan1 compute buffer size =   139.00 MiB",
      "ggml_vulkan: Device memory allocation of size 120422400 failed.",
      "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory"], "WARMUP"),
    # vLLM: a title in other words, the pool's own check below it
    (["OOM at start-up with Qwen2.5-72B on 4x L40S!",
      "INFO 05-02 10:00:00 [gpu_model_runner.py:1300] Model loading took 34.2 GiB and 40.1 seconds",
      "ERROR 05-02 10:00:30 [core.py:586] ValueError: To serve at least one request with the models's max seq len "
      "(131072), (10.00 GiB KV cache is needed, which is larger than the available KV cache memory (3.10 GiB). Try "
      "increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."],
     "KV_CAPACITY"),
    # llama-server: the model's own buffer failed
    (["Model does not load, out of memory on RTX 3060.",
      "llm_load_tensors: offloading 32 repeating layers to GPU",
      "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 11200.00 MiB on device 0: cudaMalloc failed: out of "
      "memory",
      "llama_model_load: error loading model: unable to allocate backend buffer"], "WEIGHTS"),
])
def test_a_first_line_title_yields_to_the_programs_own_out_of_memory_line(lines, kind):
    assert kind_of(lines)[0] == kind


# --- a crash of the engine's own code right after it retracted or preempted requests for a full KV pool: the crash is
# in the path that copes with the full pool, reached because the pool ran full under load (RUNTIME), never "leave
# memory settings alone" -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    # SGLang >= 0.4.10's words, then its scheduler's traceback ending in an exception its code did not expect
    ["[2025-09-01 10:00:01 TP0] Decode batch. #running-req: 64, #token: 182000, token usage: 0.99, gen throughput "
     "(token/s): 2100.5, #queue-req: 12",
     "[2025-09-01 10:00:02 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 2, #new_token_ratio: 0.41 -> "
     "0.72",
     "[2025-09-01 10:00:02 TP0] Scheduler hit an exception: Traceback (most recent call last):",
     '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2701, in run_scheduler_process',
     "    scheduler.event_loop_overlap()",
     '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1420, in update_running_batch',
     "    self.tree_cache.cache_finished_req(req)",
     "KeyError: 'a3f1c9e2'"],
    # vLLM V0 preempting, then a CUDA kernel's bad access in the next step
    ["INFO 06-01 09:00:00 metrics.py:351] Avg prompt throughput: 5000.1 tokens/s, Avg generation throughput: 900.2 "
     "tokens/s, Running: 120 reqs, Swapped: 0 reqs, Pending: 40 reqs, GPU KV cache usage: 99.8%, CPU KV cache usage: "
     "0.0%.",
     "WARNING 06-01 09:00:01 scheduler.py:1089] Sequence group chatcmpl-7 is preempted by PreemptionMode.RECOMPUTE "
     "mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase "
     "gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption=1",
     "Fatal Python error: Segmentation fault",
     "",
     "Thread 0x00007f4b58a9b700 (most recent call first):",
     '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py", line 1700 in execute_model'],
])
def test_a_crash_at_once_after_the_engine_freed_a_full_pool_is_serving_under_load(lines):
    assert kind_of(lines) == ("RUNTIME", "crash-after-kv-pool-full")


def test_a_crash_after_requests_were_served_again_is_its_own():
    """Requests served between the retraction and the crash: the server went on from the full pool; the crash is its
    own failure."""
    assert kind_of([
        "[2025-09-01 10:00:02 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 2, #new_token_ratio: 0.41 "
        "-> 0.72",
        "[2025-09-01 10:00:03 TP0] Decode batch. #running-req: 30, #token: 90000, token usage: 0.50, gen throughput "
        "(token/s): 2100.5, #queue-req: 0",
        "[2025-09-01 10:00:04] INFO:     127.0.0.1:41604 - \"POST /generate HTTP/1.1\" 200 OK",
        "[2025-09-01 10:05:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2701, in run_scheduler_process',
        "KeyError: 'a3f1c9e2'"])[1] != "crash-after-kv-pool-full"


def test_a_crash_with_no_full_pool_before_it_is_not_memory():
    assert kind_of([
        "[2025-09-01 10:00:03 TP0] Decode batch. #running-req: 30, #token: 90000, token usage: 0.50, gen throughput "
        "(token/s): 2100.5, #queue-req: 0",
        "Fatal Python error: Segmentation fault"])[0] == "NOT_OOM"


# --- an exception the engine's start-up raised ends the process: serving lines pasted after it, no new start-up
# between, are another run's, never a recovery ------------------------------------------------------------------------

_STATS_AFTER = ["Later, with --max-model-len 8192 it works:",
                "INFO 05-03 18:07:24 metrics.py:229] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 "
                "tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.0%, CPU KV cache "
                "usage: 0.0%",
                "INFO:     10.1.1.1:5050 - \"POST /v1/completions HTTP/1.1\" 200 OK"]


@pytest.mark.parametrize("error, kind", [
    # vLLM V0's check, bare as a traceback's last line
    ("ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV "
     "cache (16864). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the "
     "engine.", "KV_CAPACITY"),
    # V1's check as its engine core logs it
    ("ERROR 07-02 10:11:12 [core.py:586] ValueError: No available memory for the cache blocks. Try increasing "
     "`gpu_memory_utilization` when initializing the engine.", "KV_CAPACITY"),
    # SGLang's check of its pool, raised
    ("[2025-06-01 10:00:41 TP0] RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
     "KV_CAPACITY"),
])
def test_an_exception_raised_at_start_is_not_recovered_by_serving_lines_pasted_after_it(error, kind):
    """(PyTorch's own out of memory at start is another matter: an engine may catch it and go on, see round 86.)"""
    lines = ["INFO 05-03 17:50:01 llm_engine.py:100] Initializing an LLM engine (v0.4.1) with config: "
             "model='mistralai/Mistral-7B-Instruct-v0.2'",
             "INFO 05-03 17:50:30 model_runner.py:173] Loading model weights took 13.4966 GB",
             error] + _STATS_AFTER
    assert kind_of(lines)[0] == kind


# --- a process ended by SIGABRT as Go's os/exec reports it (Ollama's runner): the signal only, its cause in lines the
# log does not show: undetermined, never "an error that names its cause" ------------------------------------------

@pytest.mark.parametrize("line", [
    'time=2024-06-07T10:00:09.000Z level=ERROR source=sched.go:344 msg="error loading llama server" '
    'error="llama runner process has terminated: signal: aborted (core dumped) "',
    "Error: llama runner process has terminated: signal: aborted (core dumped)",
    "Error: llama runner process has terminated: signal: aborted",
])
def test_a_runner_ended_by_abort_names_no_cause(line):
    assert kind_of(["$ ollama run qwen2:72b-instruct-q2_K", line]) == ("UNDETERMINED", "failure-cause-not-shown")


def test_nvidia_smis_table_at_its_fixed_width_is_no_wrapped_log():
    """nvidia-smi pads its table to 91 characters: its borders and rows at that width are no terminal's wrap."""
    from vramdoctor.logs.unwrap import wrap_width
    border = "+" + "-" * 89 + "+"
    rows = [border, "| NVIDIA-SMI 550.54.15" + " " * 40 + "Driver Version: 550.54.15      CUDA Version: 12.4     |",
            "|" + "=" * 89 + "|"]
    for gpu in range(4):
        rows += [f"|   {gpu}  Tesla V100-SXM2-16GB           On  |   00000000:00:1{gpu}.0 Off |".ljust(90) + "|",
                 f"| N/A   36C    P0             56W /  300W |    8620MiB /  16384MiB |      0%      Default |".ljust(90)
                 + "|", border]
    rows = [r[:90] + "|" if r.startswith("|") and len(r) != 91 else r for r in rows]
    assert {len(r) for r in rows} == {91}
    text = "\n".join(["$ ollama run qwen2:72b-instruct-q2_K", "Error: llama runner process has terminated",
                      "nvidia-smi:"] + rows + ["that is all"]) + "\n"
    assert wrap_width(text.encode()) is None


# --- LMDeploy TurboMind (turbomind.py _load_weights, Nov 2023 - May 2026): "get N model params" is logged before the
# export writes the weights to the GPU under its "Convert to turbomind format" bar; the weights are done at the bar's
# end, and the KV cache comes after (_create_engine) ----------------------------------------------------------------

_TM_START = ["2025-03-01 10:00:00,000 - lmdeploy - INFO - builder.py:63 - Build <pipeline> with "
             "TurbomindEngineConfig(dtype='auto', model_format=None, tp=1, session_len=32768, max_batch_size=128, "
             "cache_max_entry_count=0.8)",
             "2025-03-01 10:00:05,000 - lmdeploy - WARNING - turbomind.py:231 - get 379 model params"]


@pytest.mark.parametrize("tail", [
    # the export's bar short of its end, then PyTorch's out of memory with no frames
    ["Convert to turbomind format:  58%|█████▊    | 28/48 [00:21<00:15,  1.30it/s]",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 640.00 MiB. GPU 0 has a total capacity of 23.64 "
     "GiB of which 211.50 MiB is free."],
    # TurboMind's own allocator, right after the count
    ["RuntimeError: [TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/allocator.h:246"],
])
def test_turbominds_parameter_count_is_no_weights_loaded(tail):
    assert kind_of(_TM_START + tail)[0] in ("WEIGHTS", "UNDETERMINED")
    assert kind_of(_TM_START + tail)[0] == "WEIGHTS" or "WEIGHTS" in run_of(diag("\n".join(_TM_START + tail))).candidates


def test_turbominds_export_at_its_end_is_the_weights_loaded():
    assert kind_of(_TM_START + [
        "Convert to turbomind format: 100%|██████████| 48/48 [00:36<00:00,  1.30it/s]",
        "RuntimeError: [TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/allocator.h:246"])[0] \
        in ("KV_CAPACITY", "UNDETERMINED")


# --- Apple GPUs: the weights' Metal buffers larger than the working-set limit the log shows. ggml-metal wraps the mapped
# file without copying it, so the buffers "succeed" and the first graph fails with a command buffer out of memory: the
# weights ledger, and -ngl sized from the limit, not the warm-up's KV and batch knobs ----------------------------------

def _metal(model_mib: float, kv_mib: float, prefix: str = "") -> list[str]:
    return [prefix + line for line in [
        "llm_load_tensors: offloading 80 repeating layers to GPU",
        "llm_load_tensors: offloaded 81/81 layers to GPU",
        f"llm_load_tensors:      Metal buffer size = {model_mib:.2f} MiB",
        "llm_load_tensors:        CPU buffer size =   563.62 MiB",
        "ggml_metal_init: recommendedMaxWorkingSetSize  = 22906.50 MB",
        f"llama_kv_cache_init:      Metal KV buffer size =  {kv_mib:.2f} MiB",
        "llama_new_context_with_model:      Metal compute buffer size =  1104.00 MiB",
        "ggml_metal_graph_compute: command buffer 0 failed with status 5",
        "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)"]]


@pytest.mark.parametrize("prefix", ["", "llama-server-1  | ", "[2024-09-01 10:00:00] "])
def test_weights_past_the_metal_working_set_are_the_weights(prefix):
    run = run_of(diag("\n".join(_metal(40543.11, 2560.0, prefix))))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-working-set")
    assert "-ngl 36" in flags(run), flags(run)


def test_weights_within_the_working_set_leave_the_warm_up():
    """A 10 GiB model with a 9 GiB KV cache beside it: the weights fit the limit; what did not is the rest."""
    assert kind_of(_metal(10240.0, 9216.0))[1] != "weights-exceed-working-set"


# --- a user's image encoded for a prompt (mtmd-helper's "encoding image or slice...", printed bare by llama-mtmd-cli
# and llama-server): a request's work, so a buffer that fails after it is serving, not the warm-up; a buffer past the
# device's single-allocation limit keeps that code --------------------------------------------------------------------

_MTMD = ["llama_context: Vulkan0 compute buffer size =   941.25 MiB",
         "main: loading model: Qwen2.5-VL-3B-Instruct-f16.gguf",
         "alloc_compute_meta:    Vulkan0 compute buffer size =   208.69 MiB",
         "main: Qwen2.5-VL-3B-Instruct-f16.gguf"]


@pytest.mark.parametrize("step, failed", [
    ("encoding image or slice...", ["ggml_vulkan: Device memory allocation of size 4342230552 failed.",
                                    "ggml_vulkan: Requested buffer size exceeds device memory allocation limit: "
                                    "ErrorOutOfDeviceMemory",
                                    "ggml_gallocr_reserve_n: failed to allocate Vulkan0 buffer of size 4342230552"]),
    ("encoding image slice...", ["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 6144.00 MiB on device 0: "
                                 "cudaMalloc failed: out of memory",
                                 "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 6442450944"]),
])
def test_a_buffer_that_fails_while_a_users_image_is_encoded_is_serving(step, failed):
    assert kind_of(_MTMD + [step] + failed)[0] == "RUNTIME"


def test_the_single_allocation_limit_is_kept_while_serving():
    run = run_of(diag("\n".join(_MTMD + ["encoding image or slice...",
                                         "ggml_vulkan: Device memory allocation of size 4342230552 failed.",
                                         "ggml_vulkan: Requested buffer size exceeds device memory allocation limit: "
                                         "ErrorOutOfDeviceMemory",
                                         "ggml_gallocr_reserve_n: failed to allocate Vulkan0 buffer of size 4342230552"])))
    assert (run.kind, run.code) == ("RUNTIME", "buffer-exceeds-allocation-limit")
    assert "single-allocation limit" in " ".join(a["change"] for a in run.advice)


# --- the report quotes the error first, then pastes the whole output that ends in the same line: the line in the
# output, after the start-up steps, is the failure (not "the log begins at the failure") --------------------------

@pytest.mark.parametrize("error, steps, kind", [
    ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9651.94 MiB on device 0: cudaMalloc failed: out of memory",
     ["llm_load_tensors: offloaded 63/63 layers to GPU", "llm_load_tensors:        CUDA0 buffer size = 20110.22 MiB",
      "llama_kv_cache_init:      CUDA0 KV buffer size =  2048.00 MiB",
      "llama_new_context_with_model: KV self size  = 2048.00 MiB, K (f16): 1024.00 MiB, V (f16): 1024.00 MiB"],
     "WARMUP"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 79.19 GiB "
     "of which 1.22 GiB is free.",
     ["INFO 05-02 10:00:00 [gpu_model_runner.py:1300] Model loading took 70.2 GiB and 40.1 seconds",
      "INFO 05-02 10:00:20 [gpu_worker.py:220] Available KV cache memory: 1.40 GiB",
      "INFO 05-02 10:00:20 [kv_cache_utils.py:716] GPU KV cache size: 11,424 tokens",
      "INFO 05-02 10:00:21 [api_server.py:1351] Starting vLLM API server 0 on http://0.0.0.0:8000",
      "INFO:     Application startup complete.",
      "INFO:     10.0.0.4:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"], "RUNTIME"),
])
def test_the_error_quoted_above_its_whole_output_is_placed_in_the_output(error, steps, kind):
    lines = ["It errors out with:", error, "", "Here is the whole output:"] + steps + [error]
    assert kind_of(lines)[0] == kind


def test_pipeline_parallelisms_copies_of_the_compute_buffers_are_named():
    run = run_of(diag("\n".join([
        "llama_new_context_with_model: pipeline parallelism enabled (n_copies=4)",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 12288.00 MiB on device 0: cudaMalloc failed: out of "
        "memory",
        "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 12884901888",
        "llama_new_context_with_model: failed to allocate compute buffers"])))
    assert run.kind == "WARMUP"
    assert any("GGML_SCHED_MAX_COPIES" in a["why"] for a in run.advice), run.advice


# --- a tuning guide's words that name an out of memory as a risk or as the end point of a procedure: no failure seen --

@pytest.mark.parametrize("words", [
    "Raise --mem-fraction-static in steps of 0.01 until you encounter OOM errors for your workloads.",
    "If it is too low, you risk out-of-memory (OOM) errors later, so decrease it.",
    "Keep raising gpu_memory_utilization until it hits OOM, then step back by 0.02.",
])
def test_an_out_of_memory_named_as_a_risk_or_an_end_point_is_no_failure(words):
    assert kind_of(["[2025-08-11 17:17:03] max_total_num_tokens=665690, chunked_prefill_size=8192, max_prefill_tokens="
                    "16384, max_running_requests=4096, context_len=65536, available_gpu_mem=13.50 GB", words])[0] == "NONE"


# --- glibc's heap checks in their other words: memory corrupted by a bug, the SIGABRT after them named ---------------

@pytest.mark.parametrize("line", [
    "(RayWorkerWrapper pid=336, ip=10.99.48.129) free(): double free detected in tcache 2",
    "free(): invalid next size (fast)",
    "munmap_chunk(): invalid pointer",
    "malloc(): unaligned tcache chunk detected",
    "corrupted double-linked list",
])
def test_glibcs_heap_checks_are_heap_corruption(line):
    assert kind_of(["INFO 03-27 22:18:01 [pynccl.py:69] vLLM is using nccl==2.25.1", line,
                    "*** SIGABRT received at time=1743139179 on cpu 162 ***", "Fatal Python error: Aborted"]) == (
        "NOT_OOM", "heap-corruption")


# --- a leak stated as memory never let go, or as growing until it runs out -----------------------------------------

@pytest.mark.parametrize("words", [
    "The vision mask cache is never released, so with images of many sizes it fills the GPU.",
    "Tensors allocated for each LoRA request are never freed.",
    "The prefix cache will keep increasing and finally cause OOM after a few hundred requests.",
])
def test_memory_never_let_go_is_a_leak(words):
    assert kind_of(["[2025-02-18 09:33:55] INFO:     127.0.0.1:41604 - \"POST /generate HTTP/1.1\" 200 OK", words,
                    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."])[0] == "LEAK"


def test_a_cache_freed_as_it_should_be_is_no_leak():
    assert kind_of(["[2025-02-18 09:33:55] INFO:     127.0.0.1:41604 - \"POST /generate HTTP/1.1\" 200 OK",
                    "The cache is released after every request, as expected."])[0] == "NONE"


# --- the report's words of an out of memory above a log that ends while a start-up step is under way (its bar short
# of its end): that step; the Run:ai Model Streamer's lines are vLLM's weights being read --------------------------

@pytest.mark.parametrize("tail, kind", [
    (["(VllmWorker rank=0 pid=783) Loading safetensors using Runai Model Streamer:   8% Completed | 9/118 "
      "[00:31<05:05,  2.80s/it]",
      "(VllmWorker rank=0 pid=783) [RunAI Streamer] CPU Buffer size: 3.7 GiB for file: "
      "model-00010-of-00118.safetensors"], "WEIGHTS"),
    (["(VllmWorker rank=1 pid=784) Loading safetensors checkpoint shards:  45% Completed | 5/11 [00:40<00:48, "
      "8.11s/it]"], "WEIGHTS"),
    (["(VllmWorker rank=0 pid=783) INFO 05-02 10:02:00 [gpu_model_runner.py:1900] Model loading took 55.2 GiB",
      "(VllmWorker rank=0 pid=783) INFO 05-02 10:03:00 [kv_cache_utils.py:716] GPU KV cache size: 211,424 tokens",
      "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  30%|███       | 20/67 [00:05<00:12,  3.71it/s]"],
     "WARMUP"),
])
def test_a_stated_out_of_memory_over_a_log_ending_in_a_step_is_that_step(tail, kind):
    lines = ["Partway through the start-up the server fails with CUDA out of memory.", "",
             "INFO 05-02 10:00:00 [core.py:58] Initializing a V1 LLM engine (v0.9.1) with config: "
             "model='Qwen/Qwen3-235B-A22B', tensor_parallel_size=8"] + tail
    assert kind_of(lines)[0] == kind


# --- TGI v3's error in its Debug form (backends/v3/src/lib.rs V3Error::NotEnoughMemory(usize), whose Display is "Not
# enough memory to handle `max_total_tokens={0}`"): the KV pool cannot hold max_total_tokens; a warning line that the
# launcher went on from is no failure of its own ----------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["[Bug] Error: Backend(NotEnoughMemory(64)) when deploying Gemma-2B on v5e-8", "",
     "2025-03-24T09:41:58.843958Z  WARN text_generation_launcher::gpu: Cannot determine GPU compute capability: "
     "AssertionError: Torch not compiled with CUDA enabled",
     "2025-03-24T09:42:28.064165Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0"],
    ["2025-05-01T10:00:00.000000Z  INFO text_generation_launcher: Starting Webserver",
     "Error: Backend(NotEnoughMemory(131072))"],
])
def test_tgis_not_enough_memory_is_the_pool_against_max_total_tokens(lines):
    assert kind_of(lines) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")


# --- not memory: SGLang's warm-up request answered by an HTTP proxy's page; ggml's CPU back end not loaded ------------

def test_a_warm_up_request_answered_by_a_proxys_page_is_no_memory():
    assert kind_of([
        "[2025-03-05 10:32:47] INFO:     Uvicorn running on http://0.0.0.0:8039 (Press CTRL+C to quit)",
        "[2025-03-05 10:34:48] Initialization failed. warmup error: Traceback (most recent call last):",
        '  File "/sglang/srt/entrypoints/http_server.py", line 548, in _wait_and_warmup',
        '    assert res.status_code == 200, f"{res=}, {res.text=}"',
        "AssertionError: res=<Response [502]>, res.text='<html><head><title>502 Bad Gateway</title></head>'",
        "Killed"]) == ("NOT_OOM", "warmup-request-proxied")


@pytest.mark.parametrize("line", ["llama_model_load: error loading model: make_cpu_buft_list: no CPU backend found",
                                  "ggml_backend_dev_get: no backends are loaded. hint: use ggml_backend_load() or "
                                  "ggml_backend_load_all() to load a backend before calling this function"])
def test_ggmls_back_ends_not_loaded_are_no_memory(line):
    assert kind_of(["build: 5930 (b0f0ecc3) with cc (GCC) 14.2.1 for x86_64-pc-linux-gnu", line,
                    "llama_model_load_from_file_impl: failed to load model"]) == ("NOT_OOM", "library-load-failed")


# --- an out of memory named by its stage, the stage first: decode is a request's (not a decode graph's capture) ------

@pytest.mark.parametrize("title, kind", [
    ("[Bug] Decode OOM due to wrong new page estimation", "RUNTIME"),
    ("decoding out-of-memory with 64 concurrent requests", "RUNTIME"),
    ("Decode OOM during CUDA graph capture", "WARMUP"),
])
def test_an_out_of_memory_named_by_its_stage(title, kind):
    assert kind_of([title, "", "The server was started with --tp 2 and the default settings."])[0] == kind


# --- a benchmark or load test run against the server, in the report's words: requests, which only serving takes ----

@pytest.mark.parametrize("words", [
    "The server is successfully started but OOM occurs while running the benchmark.",
    "It starts fine, then it OOMs under the load test after a minute.",
    "We get CUDA out of memory during running our stress test with 80 concurrent users.",
])
def test_an_out_of_memory_under_a_benchmark_is_serving(words):
    assert kind_of(["[Bug] hierarchical cache oom", "", words])[0] == "RUNTIME"


# --- the whole device hanging or rebooting is not the server's hang: a host short of memory looks like that --------

@pytest.mark.parametrize("words", [
    "If in adb shell, Android hangs and reboots.",
    "After a minute the phone freezes completely.",
    "The box hangs and then restarts when the model loads.",
])
def test_a_device_that_hangs_or_reboots_is_not_ruled_out_as_memory(words):
    run = run_of(diag("\n".join(["llama_model_loader: loaded meta data with 29 key-value pairs",
                                 "llm_load_tensors:        CPU buffer size =  4437.80 MiB", words])))
    assert run.kind != "NOT_OOM", (run.kind, run.code)


# --- "same error with X": a value tried that still failed, never proposed again -----------------------------------

@pytest.mark.parametrize("words", [
    "Same error with --gpu-memory-utilization 0.95, on an RTX 4090.",
    "The same OOM happens when using --gpu-memory-utilization 0.95.",
])
def test_a_value_with_the_same_error_is_not_proposed_again(words):
    run = run_of(diag("\n".join([
        words,
        "INFO 05-02 09:59:00 [utils.py:326] non-default args: {'model': 'Qwen/Qwen2.5-7B', 'gpu_memory_utilization': 0.9}",
        "INFO 05-02 10:00:00 [gpu_model_runner.py:1300] Model loading took 14.2 GiB and 40.1 seconds",
        "ERROR 05-02 10:00:30 [core.py:586] ValueError: To serve at least one request with the models's max seq len "
        "(32768), (4.00 GiB KV cache is needed, which is larger than the available KV cache memory (3.05 GiB). Try "
        "increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."])))
    assert "--gpu-memory-utilization 0.95 " not in flags(run) + " ", flags(run)


# --- a GPU shared with another process, where what is free cannot hold the weights (--model's estimate): freeing the
# GPU comes first, and the fraction is named only for once they fit --------------------------------------------------

def test_a_fraction_that_cannot_hold_the_weights_is_not_the_first_step():
    from vramdoctor.logs import diagnose
    from vramdoctor.logs.scan import numbered
    text = ("ERROR 05-02 10:00:00 [core.py:586] ValueError: Free memory on device (13.75/79.19 GiB) on startup is less "
            "than desired GPU memory utilization (0.9, 71.27 GiB). Decrease GPU memory utilization or reduce GPU memory "
            "used by other processes.")
    rep = diagnose(numbered([text]), weights_bytes=54 * 2**30)
    run = rep.runs[rep.diagnosis["run"] - 1]
    assert run.code == "gpu-shared-with-other-process"
    assert run.advice[0]["change"] == "free the GPU", run.advice


# --- a graph capture that ran out of memory: fewer tokens per step is no step for it --------------------------------

@pytest.mark.parametrize("lines", [
    ["INFO 05-02 10:00:00 [model_runner.py:1300] Loading model weights took 14.2 GiB",
     "INFO 05-02 10:00:10 [gpu_executor.py:122] # GPU blocks: 2048, # CPU blocks: 2048",
     "INFO 05-02 10:00:11 [model_runner.py:1500] Capturing the model for CUDA graphs. This may lead to unexpected "
     "consequences if the model is not static.",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of 23.64 GiB "
     "of which 20.50 MiB is free."],
    ["[2025-06-01 10:00:30 TP0] Load weight end. type=Qwen2ForCausalLM, avail mem=60.00 GB, mem usage=15.00 GB.",
     "[2025-06-01 10:00:40 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=2.00 GB",
     "[2025-06-01 10:00:41 TP0] Capture cuda graph failed: CUDA out of memory. Tried to allocate 64.00 MiB."],
])
def test_a_graph_capture_out_of_memory_gets_no_fewer_tokens_per_step(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WARMUP"
    assert "max-num-batched-tokens" not in flags(run) and "chunked-prefill-size" not in flags(run), flags(run)


# --- a GGUF file named with its quant type, on a pasted command or in the loader's words: fewer-bit weights in use,
# never proposed again ---------------------------------------------------------------------------------------------

_GGUF_OOM = ["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 20110.22 MiB on device 0: cudaMalloc failed: out of "
             "memory", "llama_model_load: error loading model: unable to allocate CUDA0 buffer"]


@pytest.mark.parametrize("head", [
    ["./server -c 4096 --model /models/yi-34b-200k.Q4_K_M.gguf -ngl 61"],
    ["$ llama-server -m /mnt/models/Kimi-K2-Instruct-IQ4_XS.gguf -ngl 62 -c 32768"],
])
def test_a_gguf_quant_in_use_is_not_proposed(head):
    run = run_of(diag("\n".join(head + _GGUF_OOM)))
    assert run.kind == "WEIGHTS"
    assert "Q4_K_M" not in flags(run) and "smaller quant" not in flags(run), flags(run)


def test_mistralrs_loading_a_q4_gguf_gets_no_in_situ_quantization():
    run = run_of(diag("\n".join([
        "2026-04-08T18:41:28.272080Z  INFO mistralrs_core::pipeline::hf: Loading `Qwen3-8B-Q4_K_M.gguf` locally at "
        "`workdir/qwen3/Qwen3-8B-Q4_K_M.gguf`",
        "Error: Model 'Qwen3-8B-Q4_K_M.gguf' (4.68 GB) exceeds available memory on all devices"])))
    assert "--isq" not in flags(run), flags(run)


def test_an_f16_gguf_may_still_get_fewer_bits():
    run = run_of(diag("\n".join(["$ llama-server -m /models/llama-3-8b-F16.gguf -ngl 99"] + _GGUF_OOM)))
    assert "quant" in flags(run), flags(run)


# --- MLX: a crash report whose crashed thread stops in the Metal allocator is an allocation that failed ------------

def test_a_crash_in_mlxs_metal_allocator_is_memory():
    run = run_of(diag("\n".join([
        "2026-03-01 10:00:00,000 - INFO - Starting httpd at 127.0.0.1 on port 8080...",
        '127.0.0.1 - - [01/Mar/2026 10:00:05] "POST /v1/chat/completions HTTP/1.1" 200 -',
        "Exception Type: EXC_CRASH (SIGABRT)",
        "Thread 7 Crashed:",
        "0   libmlx.dylib  0x1051 mlx::core::metal::MetalAllocator::malloc(unsigned long) + 812",
        "1   libmlx.dylib  0x1052 mlx::core::QuantizedMatmul::eval_gpu(std::vector<mlx::core::array> const&) + 96"])))
    assert run.kind == "RUNTIME" and run.oom is not False, (run.kind, run.code)


# --- the pool full under load in the report's words, its share before the word cache ------------------------------

@pytest.mark.parametrize("words, kind", [
    ("[Bug]: Hitting close to 100% cache causes spike in waiting and kills throughput", "RUNTIME"),
    ("At ~100% KV cache the requests pile up in the queue.", "RUNTIME"),
    ("Is it normal to sit near 100% KV cache usage?", "NONE"),
])
def test_a_pool_at_its_full_share_in_the_reports_words(words, kind):
    assert kind_of([words, "", "Your current environment", "vLLM Version: 0.10.1.1"])[0] == kind


# --- a title that names the product first ("Ollama: Crash on ...") is the report's words: the failure it states is
# read, so a start-up cut before ready is no clean bill -----------------------------------------------------------

@pytest.mark.parametrize("title", ["Ollama: Crash on Intel Iris Xe due to non-configurable pipeline parallelism",
                                   "vLLM: Server dies at start with two GPUs"])
def test_a_product_first_title_states_its_failure(title):
    assert kind_of([title, "llm_load_tensors: offloaded 41/41 layers to GPU",
                    "llm_load_tensors:      SYCL0 buffer size = 13302.36 MiB",
                    "Found 1 SYC"])[0] == "UNDETERMINED"


def test_a_2023_builds_own_line_is_no_title():
    assert kind_of(["llama.cpp: loading model from ./models/7B/ggml-model-q4_0.bin",
                    "llama_model_load_internal: mem required  = 5407.71 MB (+ 1026.00 MB per state)",
                    "main: prompt: 'Hello'"])[0] == "NONE"


# --- a 2023 build's ggml arena (ggml_new_tensor_impl before ggml-alloc and GGUF) holds the tensors' data, sized at
# start from the model and the settings: its overflow is that phase's, with a newer build first; the metadata pool
# of today's builds (ggml_new_object) stays no memory ------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "ggml_new_tensor_impl: not enough space in the context's memory pool (needed 268478672, available 268435456)",
    "ggml_new_tensor_impl: not enough space in the context's memory pool (needed 81920140, available 83199)",
])
def test_a_2023_arena_that_overflowed_is_memory_in_its_phase(line):
    run = run_of(diag("\n".join([
        "llama_model_load: loading model from 'models/65B/ggml-model-q4_0.bin' - please wait ...",
        "llama_model_load: ggml ctx size = 41477.73 MB",
        "main: prompt: 'Building a website can be done in 10 simple steps:'", line, "Segmentation fault (core dumped)"])))
    assert run.code == "ggml-arena-too-small" and run.kind != "NOT_OOM", (run.kind, run.code)
    assert run.advice[0]["change"] == "a newer build"


def test_todays_metadata_pool_stays_no_memory():
    assert kind_of(["llama_context: n_ctx = 4096",
                    "ggml_new_object: not enough space in the context's memory pool (needed 12582912, available "
                    "12582400)"]) == ("NOT_OOM", "ggml-context-pool-too-small")


def test_nims_hub_client_that_could_not_fetch_its_files_is_the_network():
    assert kind_of([
        "INFO 11-26 10:19:10.000 pre_download.py:87] Fetching contents for profile 3f8c...",
        "[11-26 10:19:17.953 ERROR  nim_sdk::hub::repo  rust/nim-sdk/src/hub/repo.rs:128] One or more errors fetching "
        "files:", "[11-26 10:19:17.953 ERROR  nim_sdk:"]) == ("NOT_OOM", "network-error")


def test_sglangs_own_lowered_fraction_is_the_one_in_use():
    from vramdoctor.logs.scan import numbered
    from vramdoctor.logs import diagnose
    rep = diagnose(numbered([
        "python -m sglang.launch_server --model-path Qwen/Qwen2.5-VL-7B-Instruct --mem-fraction-static 0.7",
        "[2025-04-20 14:03:12 TP0] Automatically reduce --mem-fraction-static to 0.630 because this is a multimodal "
        "model.",
        "[2025-04-20 14:03:20 TP0] Load weight begin. avail mem=15.58 GB"]))
    assert rep.runs[-1].numbers["mem_fraction_static"] == 0.63


# --- the server's own command again after its run served starts the next run: the first run's serving is not the
# second's phase --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("first, command, second, kind", [
    (["main: model loaded", "main: server is listening on http://0.0.0.0:8080 - starting the main loop",
      "srv  update_slots: all slots are idle"],
     "/home/u/llama.cpp/build/bin/llama-server --threads 8 --port 8080 -m granite-3b-q8_0.gguf -ngl 99",
     ["llama_kv_cache_init:    Vulkan0 KV buffer size =   640.00 MiB",
      "llama_new_context_with_model:    Vulkan0 compute buffer size =   152.00 MiB",
      "common_init_from_params: warming up the model with an empty run - please wait ... (--no-warmup to disable)",
      "terminate called after throwing an instance of 'vk::OutOfDeviceMemoryError'",
      "  what():  vk::Device::createDescriptorPool: ErrorOutOfDeviceMemory"], "WARMUP"),
    (["INFO:     Application startup complete.",
      "INFO:     127.0.0.1:50840 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"],
     "$ vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 131072",
     ["INFO 05-02 10:00:00 [gpu_model_runner.py:1300] Model loading took 61.0 GiB and 40.1 seconds",
      "ERROR 05-02 10:00:30 [core.py:586] ValueError: To serve at least one request with the models's max seq len "
      "(131072), (32.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.05 GiB). Try "
      "increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."],
     "KV_CAPACITY"),
])
def test_the_servers_command_again_after_it_served_starts_the_next_run(first, command, second, kind):
    assert kind_of(first + ["", "Now with the bigger settings:", command] + second)[0] == kind


def test_a_client_command_after_serving_starts_nothing():
    assert kind_of(["main: server is listening on http://0.0.0.0:8080 - starting the main loop",
                    "$ curl http://localhost:8080/completion -d '{\"prompt\": \"hi\"}'",
                    "srv  log_server_r: request: POST /completion 127.0.0.1 200"])[0] == "NONE"
