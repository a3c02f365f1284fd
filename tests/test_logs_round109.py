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
