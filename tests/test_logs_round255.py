"""`vramdoctor logs` on the kinds of fault the held-out rounds 255 and later (issue 6, stop 34) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import kind_of

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
