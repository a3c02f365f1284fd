"""Whether the engine starts, and how many full-length sequences it runs at once, as the engine itself
would print it; the one-line answer that leads the output (within 80 columns)."""

from __future__ import annotations

import pytest

from conftest import load_config
from vramdoctor.engines import Settings
from vramdoctor.estimate import estimate
from vramdoctor.sources.catalog import read_catalog
from vramdoctor.sources.hf_config import spec_from_config

GIB = 2**30
RTX4090 = int(23.64 * GIB)


def qwen():
    return read_catalog("Qwen/Qwen2.5-7B-Instruct")


def test_vllm_starts_and_queues_what_the_pool_cannot_hold():
    """32768 x 8 on a 4090: the cell does not fit at once, but vLLM starts (one sequence fits its pool)
    and prints "Maximum concurrency for 32,768 tokens per request: 3.70x"."""
    e = estimate(qwen(), settings=Settings(max_model_len=32768, concurrency=8), gpu_bytes=RTX4090)
    assert e.verdict == "kv_exceeds"
    assert e.starts is True
    assert e.max_concurrency == pytest.approx(e.kv_pool_bytes / e.kv_cache_bytes * 8, abs=0.01)
    assert e.max_concurrency == 3.70
    assert e.answer == "Starts: 3.70 sequences of 32,768 tokens fit the pool; 3 of 8 run at once."
    cell = estimate(qwen(), settings=Settings(max_model_len=32768, concurrency=8), gpu_bytes=RTX4090,
                    grid=[(32768, 8)]).grid[0]
    assert cell.starts and cell.concurrent == 3


def test_vllm_does_not_start_when_one_sequence_exceeds_the_pool():
    e = estimate(qwen(), settings=Settings(max_model_len=131072), gpu_bytes=RTX4090)
    assert e.starts is False and e.max_concurrency is None
    assert e.answer == "Does not start: a 131,072-token sequence needs 7.0 GiB of KV; pool 6.5 GiB."


def test_weights_that_exceed_the_budget():
    e = estimate(qwen(), settings=Settings(), gpu_bytes=8 * GIB)
    assert e.starts is False
    assert e.answer.startswith("Does not start: weights 14.18 GiB per GPU exceed")


def test_sglang_concurrency_is_its_token_pool_over_the_context():
    e = estimate(qwen(), engine="sglang", settings=Settings(max_model_len=32768, concurrency=4), gpu_bytes=RTX4090)
    assert e.starts
    assert e.max_concurrency == round(e.kv_pool_tokens / 32768, 2)


def test_llamacpp_starts_only_if_the_whole_cache_fits():
    ok = estimate(qwen(), engine="llamacpp", settings=Settings(max_model_len=32768, concurrency=2),
                  gpu_bytes=RTX4090)
    too_big = estimate(qwen(), engine="llamacpp", settings=Settings(max_model_len=32768, concurrency=16),
                       gpu_bytes=RTX4090)
    assert ok.starts and ok.max_concurrency == 2
    assert not too_big.starts and too_big.answer.startswith("Does not start: 32,768 x 16 needs")


@pytest.mark.parametrize("engine,n,c,gpu", [
    ("vllm", 32768, 8, RTX4090), ("vllm", 131072, 1, RTX4090), ("vllm", 4096, 1, 8 * GIB),
    ("vllm", 1048576, 256, 200 * GIB), ("sglang", 32768, 4, RTX4090), ("llamacpp", 1048576, 64, 200 * GIB),
])
def test_the_answer_fits_80_columns(engine, n, c, gpu):
    model = spec_from_config(load_config("meta-llama__Llama-3.1-70B-Instruct.json"), name="l")
    for m in (qwen(), model):
        e = estimate(m, engine=engine, settings=Settings(max_model_len=n, concurrency=c), gpu_bytes=gpu)
        assert len(e.answer) <= 80, e.answer
