"""`vramdoctor logs` on the kinds of fault the held-out rounds 109 and later (issue 6, stop 27) found, each with logs
of our own in other engines, versions and wordings, and the structure that keeps each engine's knowledge in its own
module. The engines' lines follow their sources (named in `vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import inspect

import pytest

from logcase import diag
from vramdoctor.engines import all_engines
from vramdoctor.logs import diagnose


def run_of(rep):
    return rep.runs[0]


# --- one place per engine: what an engine's log says about its device set-up, its context set-up and its own advice
# for a failure lives in its module (LogWords.device_setup, context_setup, not_oom_advice), not in the diagnosis -------


def test_the_diagnosis_spells_no_engines_setup_steps_or_flags():
    src = inspect.getsource(diagnose)
    for word in ("init_worker_distributed_environment", "ncclCommInitRank", "_cuda_setDevice", "llama_context",
                 "llama_init_from_model", "--no-context-shift", "num_ctx"):
        assert word not in src, word
    owners = {e.name for e in all_engines() if e.log.device_setup is not None or e.log.context_setup is not None}
    assert {"vllm", "llamacpp", "generic"} <= owners, owners


_K_SHIFT = "llama.cpp/src/llama-context.cpp:1067: The current context does not support K-shift"


@pytest.mark.parametrize("lines,own,foreign", [
    # KoboldCpp embeds llama.cpp: llama.cpp's advice (its flags), not Ollama's
    (["Welcome to KoboldCpp - Version 1.92", "Load Text Model OK: True",
      "Please connect to custom endpoint at http://localhost:5001", _K_SHIFT], "--no-context-shift", "num_ctx"),
    # llama-cpp-python's server over llama.cpp
    (["INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
      "llama_new_context_with_model: n_ctx      = 4096", "from llama_cpp import Llama", _K_SHIFT],
     "--no-context-shift", "num_ctx"),
    # Ollama's runner: its own settings
    (['time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 msg="llama runner started in 3.02 seconds"',
      _K_SHIFT], "num_ctx", "--no-context-shift"),
])
def test_a_k_shift_is_advised_in_the_settings_of_the_engine_or_the_one_it_wraps(lines, own, foreign):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "k-shift-unsupported"), (run.kind, run.code)
    assert own in run.message and foreign not in run.message, run.message


# --- an engine's allocation site that names its ledger: TurboMind's deviceMalloc (utils/memory_utils.cu) makes the
# weights, its allocator (allocator.h) the KV blocks and buffers ----------------------------------------------------


@pytest.mark.parametrize("text", [
    # a pipeline built in a script, the error quoted in the report's words
    "I load InternVL2-26B with lmdeploy's pipeline() and get `RuntimeError: [TM][ERROR] CUDA runtime error: out of "
    "memory /opt/lmdeploy/src/turbomind/utils/memory_utils.cu:31` on a 48 GB card.",
    # the server's own lines, the traceback cut above the weights' frames
    "\n".join(["2024-08-01 10:00:00,000 - lmdeploy - INFO - input backend=turbomind, backend_config=TurbomindEngineConfig("
               "model_format=None, tp=1, session_len=32768, max_batch_size=128, cache_max_entry_count=0.8)",
               "[TM][WARNING] [LlamaTritonModel] `max_context_token_num` is not set, default to 32768.",
               "Exception in thread Thread-3:",
               "Traceback (most recent call last):",
               '  File "/usr/lib/python3.10/threading.py", line 1016, in _bootstrap_inner',
               "RuntimeError: [TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/"
               "memory_utils.cu:32"]),
])
def test_turbomind_out_of_memory_in_its_device_malloc_is_the_weights(text):
    run = run_of(diag(text))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-alloc-failed"), (run.kind, run.code, run.phase_source)


def test_turbomind_out_of_memory_in_its_allocator_is_not_told_as_the_weights():
    run = run_of(diag("\n".join([
        "2024-08-01 10:00:00,000 - lmdeploy - INFO - input backend=turbomind, backend_config=TurbomindEngineConfig("
        "tp=1, session_len=32768, cache_max_entry_count=0.8)",
        "RuntimeError: [TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/allocator.h:231"])))
    assert run.kind != "WEIGHTS", (run.kind, run.code)


# --- a person's words around a command's name are not its arguments: "when starting vllm serve with tp 4" names no
# model ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("said,model", [
    ("# [Bug]: OOM when starting vllm serve with tp 4", None),
    ("I use vllm serve and it fails after a while.", None),
    ("$ vllm serve Qwen/Qwen3-8B --max-model-len 8192", "Qwen/Qwen3-8B"),
    ("vllm serve mymodel --tensor-parallel-size 2", "mymodel"),
])
def test_the_model_of_a_vllm_serve_command_is_read_only_from_a_command(said, model):
    rep = diag("\n".join([said, "INFO 05-01 10:00:02 [api_server.py:1043] vLLM API server version 0.8.5"]))
    assert run_of(rep).numbers.get("model_name") == model, run_of(rep).numbers


# --- NCCL's out of memory where the frames show its communicators being made, before any weights: the GPU was full
# before the engine began (device set-up), not a warm-up ---------------------------------------------------------------

_TP_INIT = [
    "(VllmWorker rank=1 pid=2231) Traceback (most recent call last):",
    '(VllmWorker rank=1 pid=2231)   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line '
    '132, in init_device',
    "(VllmWorker rank=1 pid=2231)     init_worker_distributed_environment(self.vllm_config, self.rank,",
    '(VllmWorker rank=1 pid=2231)   File "/usr/local/lib/python3.12/dist-packages/vllm/distributed/parallel_state.py", '
    'line 1092, in initialize_model_parallel',
    "(VllmWorker rank=1 pid=2231)     _TP = init_model_parallel_group(group_ranks,"]


@pytest.mark.parametrize("lines", [
    # the error only in the title, the traceback cut before it
    ["# [Bug]: NCCL error: out of memory when starting vllm serve with tp 4",
     "INFO 05-01 10:00:02 [api_server.py:1043] vLLM API server version 0.8.5", *_TP_INIT],
    # the error at the traceback's end, in NCCL's words
    ["INFO 05-01 10:00:02 [api_server.py:1043] vLLM API server version 0.8.5", *_TP_INIT,
     "(VllmWorker rank=1 pid=2231) torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:3356, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
     "(VllmWorker rank=1 pid=2231) ncclUnhandledCudaError: Call to CUDA function failed.",
     "(VllmWorker rank=1 pid=2231) Last error:",
     "(VllmWorker rank=1 pid=2231) Cuda failure 'out of memory'"],
])
def test_nccl_out_of_memory_while_its_communicators_are_made_is_device_setup(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "device-setup-oom"), (run.kind, run.code, run.phase_source)
