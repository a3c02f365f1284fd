"""`vramdoctor logs` on the kinds of fault the held-out rounds 267 and later (issue 6, stop 35) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, flags, kind_of, run_of


def said(run) -> str:
    """All of a run's advice, every field, joined."""
    return " | ".join(" ".join(str(v) for v in a.values()) for a in run.advice)

# --- vLLM's collect_env names ROCm on an NVIDIA machine to say it is absent ("ROCM Version: Could not collect"): the
# re-run advice stays CUDA's ------------------------------------------------------------------------------------------

_ENV_NVIDIA = ["PyTorch version: 2.5.1+cu124", "Is debug build: False", "CUDA used to build PyTorch: 12.4",
               "ROCM used to build PyTorch: N/A", "", "OS: Ubuntu 22.04.4 LTS (x86_64)",
               "Is CUDA available: True", "CUDA runtime version: 12.4.131",
               "GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB", "Nvidia driver version: 550.54.15",
               "HIP runtime version: N/A", "MIOpen runtime version: N/A"]
_ILLEGAL = ["INFO 03-02 10:00:01 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000",
            "INFO:     10.0.0.4:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
            "ERROR 03-02 10:05:11 [core.py:343] RuntimeError: CUDA error: an illegal memory access was encountered"]


@pytest.mark.parametrize("rocm_lines", [
    ["ROCM Version: Could not collect", "vLLM Build Flags:", "CUDA Archs: Not Set; ROCm: Disabled; Neuron: Disabled"],
    ["ROCM Version: N/A"],
    ["ROCm Version : Could not collect"],
])
def test_collect_env_that_names_rocm_as_absent_keeps_cudas_rerun_advice(rocm_lines):
    run = run_of(diag("\n".join(_ENV_NVIDIA + rocm_lines + _ILLEGAL)))
    assert (run.kind, run.code) == ("NOT_OOM", "illegal-memory-access")
    assert "CUDA_LAUNCH_BLOCKING=1" in said(run) and "AMD_SERIALIZE_KERNEL" not in said(run)


def test_a_rocm_machine_keeps_hips_rerun_advice():
    env = [x.replace("12.4", "N/A") if x.startswith("CUDA") else x for x in _ENV_NVIDIA[:4]]
    run = run_of(diag("\n".join(env + ["ROCM Version: 6.2.41133-dd7f95766", "GPU models and configuration: AMD "
                                       "Instinct MI300X (gfx942:sramecc+:xnack-)"] + _ILLEGAL)))
    assert "AMD_SERIALIZE_KERNEL=3" in said(run)


# --- a hang with no error line: the advice finds where it waits, and never says "the error names its cause" --------

@pytest.mark.parametrize("text, multi", [
    ("""
     [Bug]: server launch hangs at NCCL with tensor parallel
     INFO 07-12 13:11:42 [api_server.py:1287] vLLM API server version 0.9.1
     INFO 07-12 13:11:42 [cli_args.py:309] non-default args: {'model': 'meta-llama/Llama-3.1-70B-Instruct', 'tensor_parallel_size': 2}
     (VllmWorker rank=0 pid=311) INFO 07-12 13:12:10 [pynccl.py:69] vLLM is using nccl==2.26.2
     (VllmWorker rank=1 pid=312) INFO 07-12 13:12:10 [pynccl.py:69] vLLM is using nccl==2.26.2
     It gets stuck here forever, no error.
     """, True),
    ("""
     llama-server hangs after the first request
     main: server is listening on http://127.0.0.1:8080 - starting the main loop
     srv  update_slots: all slots are idle
     slot launch_slot_: id  0 | task 0 | processing task
     After this the server is stuck and never answers, no error in the log.
     """, False),
])
def test_a_hang_with_no_error_is_advised_to_find_where_it_waits(text, multi):
    run = run_of(diag(text))
    assert run.code == "hang-no-error"
    advice = said(run)
    assert "py-spy dump" in advice and "error names its cause" not in advice
    assert ("NCCL_DEBUG=INFO" in advice) == multi


# --- a hang in other words: stalls, freezes, "Hang with", "times out while trying to ..."; "after loading" is past the
# load ---------------------------------------------------------------------------------------------------------------

_SGL_START = ["[2025-05-02 10:00:01] server_args=ServerArgs(model_path='Qwen/Qwen3-32B', tp_size=8)",
              "[2025-05-02 10:00:09 TP0] Init torch distributed begin.",
              "[2025-05-02 10:00:11 TP0] Load weight begin. avail mem=78.12 GB"]
_LCPP_UP = ["llama_kv_cache_unified:      ROCm0 KV buffer size =  2560.00 MiB",
            "llama_context:      ROCm0 compute buffer size =   400.00 MiB",
            "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
            "srv  update_slots: all slots are idle"]
_OLLAMA_UP = ['time=2025-03-01T10:00:05.000Z level=INFO source=server.go:619 msg="llama runner started in 4.02 seconds"',
              "[GIN] 2025/03/01 - 10:00:09 | 200 |  3.1s |       127.0.0.1 | POST     \"/api/chat\""]


@pytest.mark.parametrize("lines", [
    ["SGLang start-up stalling with tp 8"] + _SGL_START + ["Nothing happens after this, it stalls here."],
    ["Start-up stalls after this:"] + _SGL_START,
    ["Qwen3 MoE models Hang with ROCm backend"] + _LCPP_UP[:2] + ["1. Start the server", "2. After loading, one GPU "
                                                              "gets stuck at 100% utilization", "3. No text comes"],
    ["ollama freezes after the first chat request"] + _OLLAMA_UP,
    ["Qwen3 MoE on two MI100"] + _LCPP_UP[:2] + ["After loading, one GPU gets stuck at 100% utilization."],
    ["It times out while trying to instantiate the engine."] + _SGL_START,
])
def test_a_hang_told_in_other_words_is_a_hang(lines):
    assert kind_of(lines) == ("NOT_OOM", "hang-no-error")


def test_a_whole_machine_that_freezes_is_not_a_servers_hang():
    kind, code = kind_of(["My whole system freezes after the first chat request"] + _OLLAMA_UP)
    assert code != "hang-no-error"
