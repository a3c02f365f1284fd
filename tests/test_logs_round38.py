"""`vramdoctor logs` on the kinds of fault left open by the held-out rounds 34-37 and the last new-user review (issue
6's note), each with logs of our own in other engines, versions and wordings (none of the held-out logs' own lines).
The engines' lines follow their sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, run_of

VLLM_LOADING = [
    "INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1",
    "INFO 06-02 10:00:40 [gpu_model_runner.py:1595] Starting to load model meta-llama/Llama-3.1-70B-Instruct...",
]
VLLM_SERVING = [
    "INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1",
    "INFO:     Application startup complete.",
    'INFO:     10.0.0.2:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
]

# --- a SIGKILL whose cause the log shows is not the OOM killer ----------------------------------------------------------

KUBECTL_ERROR_137 = ["Containers:", "  vllm:", "    State:          Waiting", "      Reason:       CrashLoopBackOff",
                     "    Last State:     Terminated", "      Reason:       Error", "      Exit Code:    137",
                     "      Started:      Mon, 01 Dec 2025 10:00:00 +0000",
                     "      Finished:     Mon, 01 Dec 2025 10:05:12 +0000"]
KUBECTL_OOM_137 = [l.replace("Reason:       Error", "Reason:       OOMKilled") for l in KUBECTL_ERROR_137]
DOCKER_INSPECT = ['        "State": {', '            "Status": "exited",', '            "Running": false,',
                  '            "Paused": false,', '            "Restarting": false,',
                  '            "OOMKilled": false,', '            "Dead": false,', '            "Pid": 0,',
                  '            "ExitCode": 137,']


@pytest.mark.parametrize("lines", [
    [*VLLM_LOADING, *KUBECTL_ERROR_137],
    [*KUBECTL_ERROR_137, *VLLM_SERVING],
    [*VLLM_LOADING, *DOCKER_INSPECT],
    [*VLLM_SERVING, "It exits with code 137 but dmesg shows no oom-killer."],
    [*VLLM_SERVING, "sglang-1 exited with code 137, and the container was not OOMKilled"],
])
def test_a_sigkill_not_from_the_oom_killer_is_a_kill_of_unknown_cause(lines):
    """Exit 137 is SIGKILL (128 + 9); Kubernetes says `OOMKilled` (docker `"OOMKilled": true`) when the OOM killer sent
    it. Where the log says it was not (`Reason: Error`, `OOMKilled: false`, the user's words), the kill's cause is not
    shown: a liveness probe, a stop timeout, a `kill -9`."""
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "process-killed"), (run.kind, run.code, run.message)
    assert "liveness" in run.message


def test_a_sigkill_the_oom_killer_sent_is_still_host_memory():
    run = run_of(diag("\n".join([*VLLM_LOADING, *KUBECTL_OOM_137])))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-system-memory"), (run.kind, run.code)


def test_a_sigkill_after_a_failed_liveness_probe_is_the_probe():
    lines = [*VLLM_LOADING, *KUBECTL_ERROR_137, "Events:",
             "  Warning  Unhealthy  3m (x3 over 4m)  kubelet  Liveness probe failed: Get \"http://10.1.2.3:8000/health\":"
             " dial tcp 10.1.2.3:8000: connect: connection refused",
             "  Normal   Killing    3m               kubelet  Container vllm failed liveness probe, will be restarted"]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "health-check-failed"), (run.kind, run.code)


# --- host RAM that ran out at load: the weights never reached the GPUs, so no GPU-side step ----------------------------

@pytest.mark.parametrize("lines", [
    # vLLM, two workers, the kernel killed it while the shards loaded
    ["INFO 06-02 10:00:01 [api_server.py:1043] args: Namespace(model='Qwen/Qwen2.5-72B-Instruct', "
     "tensor_parallel_size=2, swap_space=4)",
     "INFO 06-02 10:00:40 [gpu_model_runner.py:1595] Starting to load model Qwen/Qwen2.5-72B-Instruct...",
     "Loading safetensors checkpoint shards:  35% Completed | 13/37 [01:02<01:55,  4.80s/it]",
     "Killed"],
    # transformers / text-generation-webui, PyTorch's CPU allocator while it loaded
    ["Loading checkpoint shards:  40%|####      | 6/15 [00:31<00:47,  5.3s/it]",
     "RuntimeError: [enforce fail at alloc_cpu.cpp:83] data. DefaultCPUAllocator: not enough memory: you tried to "
     "allocate 1073741824 bytes."],
    # SGLang, killed while it loaded
    ["[2025-06-02 10:00:02 TP0] Load weight begin. avail mem=78.50 GB",
     "Loading safetensors checkpoint shards:  20% Completed | 3/15 [00:21<01:30,  7.51s/it]",
     "dmesg: Out of memory: Killed process 4242 (python3) total-vm:182000000kB, anon-rss:120000000kB"],
])
def test_host_ram_at_load_gets_no_gpu_side_step(lines):
    """The weights pass through host RAM: more GPUs (more workers, each loading its shard) or a device_map do not
    lower it, and what is free on the GPU does not matter."""
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-system-memory"), (run.kind, run.code)
    assert any(a["change"] == "more host memory" for a in run.advice), run.advice
    bad = [a for a in run.advice if a["setting"] in ("tensor_parallel_size", "memory_fraction", "gpu_layers")
           and a["direction"] != "up" or a["setting"] == "tensor_parallel_size"]
    assert not bad, bad
