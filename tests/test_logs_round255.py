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
