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
