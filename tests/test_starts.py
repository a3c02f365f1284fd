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
    and would print "Maximum concurrency for 32,768 tokens per request: 3.69x"."""
    e = estimate(qwen(), settings=Settings(max_model_len=32768, concurrency=8), gpu_bytes=RTX4090)
    assert e.verdict == "kv_exceeds"
    assert e.starts is True
    assert e.max_concurrency == pytest.approx(e.kv_pool_bytes / e.kv_cache_bytes * 8, abs=0.01)
    assert e.max_concurrency == 3.69
    assert e.answer == "Starts: 3.69 sequences of 32,768 tokens fit the pool; 3 of 8 at once."
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
    assert e.answer.startswith("Does not start: weights 14.25 GiB per GPU exceed")


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


# --- what is not modelled is said, and can make the answer undetermined --------------------------------

def gpt_oss():
    return spec_from_config(load_config("openai__gpt-oss-120b.config.json"), name="gpt-oss-120b")


def marlin_padding(tp):
    """Marlin's mxfp4 layout: the expert intermediate size per GPU to a multiple of 128, the hidden to 256."""
    per = 2880 // tp
    padded = -(-per // 128) * 128 * 3072
    return int(36 * 128 * 3 * per * 2880 * (0.5 + 1 / 32) * (padded / (per * 2880) - 1))


def test_gpt_oss_on_one_h100_is_undetermined_not_a_confident_start():
    """vllm#27508 (R21): --gpu-memory-utilization 0.95 --max-num-batched-tokens 1024 at 131,072 tokens failed
    on one H100; the config alone cannot tell, because the sampler's backend at 1024 requests (FlashInfer's 14
    bytes per logit or the sort path's 38) and the mxfp4 kernel (Marlin pads the experts) depend on the install. The
    answer must say so, not "Starts"."""
    s = Settings(max_model_len=131072, gpu_memory_utilization=0.95, max_num_batched_tokens=1024,
                 device_name="NVIDIA H100 80GB HBM3")
    e = estimate(gpt_oss(), settings=s, gpu_bytes=int(79.15 * GIB))
    assert e.starts is None
    assert e.answer.startswith("Undetermined: starts unless up to 9.7 GiB")
    by_name = {o.name: o.bytes for o in e.uncertain}
    assert by_name["mxfp4 expert padding"] == marlin_padding(1)
    assert by_name["sampler profile"] == 1024 * 201088 * (38 - 14)
    assert e.kv_pool_bytes_low == e.kv_pool_bytes - sum(by_name.values())


def test_mxfp4_padding_accounts_for_the_weights_vllm_printed():
    """In-memory weights of gpt-oss-120b under Marlin: 65.97 GiB on one H100 (vllm#23278), 17.22 GiB per GPU
    under TP 4 on A100s (R18); the checkpoint's size plus the padding is within 1.5% of both."""
    m = gpt_oss()
    assert (m.weights.total_bytes + marlin_padding(1)) / GIB == pytest.approx(65.97, rel=0.015)
    assert (m.weights.total_bytes / 4 + marlin_padding(4)) / GIB == pytest.approx(17.22, rel=0.015)


def test_dense_models_carry_no_expert_padding():
    e = estimate(qwen(), settings=Settings(max_model_len=32768, concurrency=8), gpu_bytes=RTX4090)
    assert [o.name for o in e.uncertain] == ["sampler profile"]
    assert e.starts is True
