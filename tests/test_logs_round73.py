"""`vramdoctor logs` on the kinds of fault the held-out rounds 73-74 (issue 6, stop 23) found, each with logs of our
own in other engines, versions and wordings (none of the held-out logs' own lines). The engines' lines follow their
sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, run_of

# --- an assertion on a switch (a setting's name: disable_*, enable_*, use_*) is about a feature, not memory, even
# where the switch's name holds a memory word ("cache") -------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ['  File "/sgl-workspace/sglang/python/sglang/srt/layers/attention/triton_backend.py", line 410, in forward_extend',
     "    assert not self.server_args.enable_hierarchical_cache", "AssertionError"],
    ['  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2210, in _dummy_run',
     "    assert self.use_cuda_graph and not self.model_config.enforce_eager", "AssertionError"],
    ["(EngineCore_DP0 pid=311) ERROR 03-02 10:00:04 [core.py:708]   File \"/opt/vllm/vllm/v1/attention/backends/"
     "mla/common.py\", line 902, in __init__",
     "(EngineCore_DP0 pid=311) ERROR 03-02 10:00:04 [core.py:708]     assert not vllm_config.cache_config."
     "enable_prefix_caching",
     "(EngineCore_DP0 pid=311) ERROR 03-02 10:00:04 [core.py:708] AssertionError"],
])
def test_an_assertion_on_a_switch_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "assertion-failed"), (run.kind, run.code)


@pytest.mark.parametrize("cond", ["self.token_to_kv_pool_allocator.available_size() >= need",
                                  "num_free_blocks > 0 or not self.enable_caching"])
def test_an_assertion_on_memory_beside_a_switch_is_no_verdict_of_not_memory(cond):
    run = run_of(diag("\n".join(['  File "/opt/sglang/srt/managers/scheduler.py", line 1310, in get_new_batch_prefill',
                                 f"    assert {cond}", "AssertionError"])))
    assert run.code != "assertion-failed", run.code
