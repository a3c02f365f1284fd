"""`vramdoctor logs` on the kinds of fault the held-out rounds 174 and later (issue 6, stop 30) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, kind_of, run_of

# --- the advice PyTorch appends to every CUDA or HIP error ("Compile with `TORCH_USE_CUDA_DSA` to enable device-side
# assertions") is no cause: the error line above it is, and where the paste lost it the cause is not shown ------------

_DSA_ONLY = [
    # vLLM V1, the worker's error lines cut to the boilerplate, then the engine core's wrapper
    ["(VllmWorker pid=168) ERROR 08-12 14:37:42 [multiproc_executor.py:559] CUDA kernel errors might be asynchronously "
     "reported at some other API call, so the stacktrace below might be incorrect.",
     "(VllmWorker pid=168) ERROR 08-12 14:37:42 [multiproc_executor.py:559] For debugging consider passing "
     "CUDA_LAUNCH_BLOCKING=1",
     "(VllmWorker pid=168) ERROR 08-12 14:37:42 [multiproc_executor.py:559] Compile with `TORCH_USE_CUDA_DSA` to "
     "enable device-side assertions.",
     "(EngineCore_0 pid=114) ERROR 08-12 14:37:44 [core.py:718] EngineCore failed to start."],
    # ROCm's build of PyTorch words it for HIP; SGLang's scheduler
    ["[2025-06-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
     '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2300, in run_scheduler_process',
     "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
     "incorrect.",
     "For debugging consider passing AMD_SERIALIZE_KERNEL=3",
     "Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions."],
    # a plain PyTorch script's stderr, the suffix alone
    ["Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.30s/it]",
     "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
     "incorrect.",
     "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."],
]


@pytest.mark.parametrize("lines", _DSA_ONLY)
def test_pytorchs_advice_after_a_cuda_error_is_no_device_side_assert(lines):
    kind, code = kind_of(lines)
    assert code != "device-side-assert", (kind, code)
    assert kind == "UNDETERMINED", (kind, code)


@pytest.mark.parametrize("error,expected", [
    ("RuntimeError: CUDA error: device-side assert triggered", ("NOT_OOM", "device-side-assert")),
    ("torch.AcceleratorError: CUDA error: out of memory", None),
])
def test_the_error_above_pytorchs_advice_decides(error, expected):
    lines = ["Traceback (most recent call last):",
             '  File "/app/server.py", line 88, in generate',
             error,
             "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
             "might be incorrect.",
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]
    kind, code = kind_of(lines)
    if expected:
        assert (kind, code) == expected
    else:
        assert kind not in ("NOT_OOM", "NONE") and code != "device-side-assert", (kind, code)
