"""`vramdoctor logs` on the kinds of fault the held-out rounds 150 and later (issue 6, stop 29) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, flags, kind_of, run_of

# --- SGLang's hierarchical cache whose host tier finds too little free host memory: the KV ledger's host tier, told
# by its own sizes, never the GPU's fraction -------------------------------------------------------------------------

_HICACHE = [
    # the scheduler's traceback, ratio from the ServerArgs dump
    (["[2025-09-10 08:12:01] server_args=ServerArgs(model_path='Qwen/Qwen3-32B', mem_fraction_static=0.85, "
      "enable_hierarchical_cache=True, hicache_ratio=2.0, hicache_size=0)",
      "[2025-09-10 08:12:30 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=17.21 GB, "
      "mem usage=61.12 GB.",
      "[2025-09-10 08:12:31 TP0] KV Cache is allocated. #tokens: 290000, K size: 5.70 GB, V size: 5.70 GB",
      "[2025-09-10 08:12:31 TP0] Scheduler hit an exception: Traceback (most recent call last):",
      '  File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/memory_pool_host.py", line 120, in __init__',
      "    raise ValueError(",
      "ValueError: Not enough host memory available. Requesting 45.60 GB but only have 30.12 GB free. Please "
      "reduce the size of the hierarchical cache."], "--hicache-ratio 1.1"),
    # a fixed size per rank on a pasted command line, a fork's wording
    (["$ python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --enable-hierarchical-cache "
      "--hicache-size 64",
      "[2025-11-02 10:00:01 TP3] Load weight end. type=DeepseekV3ForCausalLM, avail mem=20.11 GB, mem usage=78.40 GB.",
      "[2025-11-02 10:00:05 TP3] ValueError: Not enough host memory available. Requesting 64.00 GB but only have "
      "41.50 GB free. Please reduce the size of the KVStore."], "--hicache-size 37"),
    # a front end's log line (Dynamo) with a negative free figure: the direction only
    (["2025-11-02T10:00:01.123Z ERROR dynamo_sglang::worker: engine failed: ValueError: Not enough host memory "
      "available. Requesting 120.30 GB but only have -4.20 GB free. Please reduce the size of the hierarchical "
      "cache."], "--hicache-ratio X"),
]


@pytest.mark.parametrize("lines,step", _HICACHE)
def test_a_host_tier_too_large_for_host_memory_is_the_kv_ledger_on_the_host(lines, step):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("KV_CAPACITY", "hicache-host-memory-short")
    advised = flags(run)
    assert step in advised, advised
    assert "--mem-fraction-static" not in advised and "--context-length" not in advised, advised
    assert "host" in run.message


def test_the_host_tiers_sizes_are_decimal_gb():
    rep = diag("\n".join(_HICACHE[0][0]))
    n = run_of(rep).numbers
    assert n["hicache_requested_bytes"] == 45_600_000_000 and n["hicache_host_free_bytes"] == 30_120_000_000
