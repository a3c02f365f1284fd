"""Every record of shared/data/ground_truth: the KV bytes per token the engine computed, and the
KV capacity in tokens it printed (within 2%) where the record gives total memory, utilization and weights."""

from __future__ import annotations

import pytest

from conftest import load_config, records
from vramdoctor.engines import Settings, get_engine
from vramdoctor.estimate import estimate
from vramdoctor.sources.catalog import read_catalog
from vramdoctor.sources.hf_config import spec_from_config
from vramdoctor.spec import FullAttention, ModelSpec, RecurrentState, WeightsInfo

GIB = 2**30


def spec(name: str, weights_gib: float = 1.0):
    cfg = load_config(name)
    return spec_from_config(cfg, name=name, weights=WeightsInfo(total_bytes=int(weights_gib * GIB), exact=True, source="record"))


def hybrid_gdn() -> ModelSpec:
    """R38's model as its PR states it: 64 layers, every 4th full attention with 4 KV heads x 256."""
    full = FullAttention(num_kv_heads=4, head_dim_k=256, head_dim_v=256)
    state = RecurrentState(family="gated_deltanet", conv_elems=0, ssm_elems=0)
    layers = tuple(full if (i + 1) % 4 == 0 else state for i in range(64))
    return ModelSpec(name="Qwen3.8-27B-FP8", architecture="hybrid", layers=layers, dtype="bf16",
                     weights=WeightsInfo(total_bytes=1, exact=False, source="-"))


# record id -> (spec factory, engine, settings, expected bytes per token, which figure)
PER_TOKEN = {
    "R01": (lambda: spec("meta-llama__Llama-3.1-8B-Instruct.json"), "vllm", {}, 131072),
    "R02": (lambda: spec("meta-llama__Llama-3.1-8B-Instruct.json"), "vllm", {}, 131072),
    "R04": (lambda: spec("reconstructed__Bamba-9B.json"), "vllm", {}, 12288),
    "R07": (lambda: spec("Qwen__Qwen3-235B-A22B-FP8.json"), "vllm", {"tensor_parallel_size": 4}, 48128),
    # SGLang prints K alone: K bytes are half of K + V
    "R08": (lambda: spec("Qwen__Qwen3-235B-A22B-FP8.json"), "sglang", {"tensor_parallel_size": 4}, 2 * 24064),
    "R10": (lambda: spec("reconstructed__deepseek-coder-6.7b-instruct.json"), "vllm", {"tensor_parallel_size": 2}, 262144),
    "R11": (lambda: spec("Qwen__Qwen2.5-7B-Instruct.json"), "vllm", {}, 57344),
    "R13": (lambda: spec("Qwen__Qwen2-7B-Instruct.json"), "vllm", {}, 57344),
    "R14": (lambda: spec("Qwen__Qwen2-7B-Instruct.json"), "vllm", {}, 57344),
    "R15": (lambda: spec("Qwen__Qwen2-7B-Instruct.json"), "vllm", {"tensor_parallel_size": 2}, 28672),
    "R18": (lambda: read_catalog("openai/gpt-oss-120b"), "vllm", {"tensor_parallel_size": 4}, 18432),
    "R21": (lambda: read_catalog("openai/gpt-oss-120b"), "vllm", {}, 73728),
    "R23": (lambda: spec("Qwen__QwQ-32B.json"), "sglang", {"tensor_parallel_size": 4}, 2 * 32768),
    "R25": (lambda: spec("deepseek-ai__DeepSeek-V3.2-Exp.json"), "sglang", {"kv_cache_dtype": "fp8"}, 61 * (656 + 132)),
    "R27": (lambda: read_catalog("openai/gpt-oss-120b"), "llamacpp", {}, 36864),
    "R29": (lambda: spec("microsoft__Phi-3-mini-4k-instruct.json"), "llamacpp", {}, 393216),
    "R32": (lambda: spec("Qwen__Qwen3-Coder-480B-A35B-Instruct-FP8.json"), "vllm", {}, 253952),
    "R38": (hybrid_gdn, "vllm", {"tensor_parallel_size": 2, "kv_cache_dtype": "fp8"}, 16384),
}
NOT_MODELLED = {
    "R34": "vLLM 0.5.0 predates MLA kernels and cached per-head K and V padded to 256; current engines cache the latent",
}


def test_every_record_is_checked():
    assert set(records()) == set(PER_TOKEN) | set(NOT_MODELLED)


@pytest.mark.parametrize("rid", sorted(PER_TOKEN))
def test_kv_bytes_per_token_is_what_the_engine_computed(rid):
    factory, engine, changes, expected = PER_TOKEN[rid]
    rules = get_engine(engine)
    assert rules.engine_bytes_per_token(factory(), Settings().with_(**changes)) == expected


def test_llamacpp_gpt_oss_buffers_r27(gt):
    """R27: -c 262144 -np 2, no unified cache, n_ubatch 1024: non-SWA 9216 MiB, SWA 90 MiB (1280 cells per stream)."""
    rules = get_engine("llamacpp")
    s = Settings(kv_unified=False, n_ubatch=1024)
    b = rules.layer_bytes(read_catalog("openai/gpt-oss-120b"), s, 262144, 2)
    assert (b["k"] + b["v"]) == 9216 * 2**20
    assert b["k"] == b["v"] == 4608 * 2**20
    assert (b["k_swa"] + b["v_swa"]) == 90 * 2**20
    assert rules.swa_cells(s, 128, 131072, 2) == 1280


def test_llamacpp_phi3_r29():
    b = get_engine("llamacpp").layer_bytes(spec("microsoft__Phi-3-mini-4k-instruct.json"), Settings(), 4096, 1)
    assert b["k"] == b["v"] == 768 * 2**20


def _tokens(model, engine, gpu_gib, weights_gib, **changes):
    s = Settings().with_(**changes)
    e = estimate(model, engine=engine, settings=s, gpu_bytes=int(gpu_gib * GIB))
    return e


def _capacity(rid):
    """(model, engine, gpu GiB, settings with the record's measured overheads, printed tokens)."""
    llama = lambda w: spec("meta-llama__Llama-3.1-8B-Instruct.json", w)  # noqa: E731
    return {
        "R01": (llama(14.9888), "vllm", 23.58, dict(max_model_len=20000, activation_bytes=int((17.06 - 14.9888) * GIB),
                                                     non_torch_bytes=int(0.35 * GIB)), 31232),
        "R02": (llama(14.9888), "vllm", 23.58, dict(max_model_len=29000, activation_bytes=int((17.98 - 14.9888) * GIB),
                                                     non_torch_bytes=int(0.35 * GIB)), 23648),
        "R04": (spec("reconstructed__Bamba-9B.json", 18.4902), "vllm", 79.15,
                dict(max_model_len=1024, activation_bytes=int((34.32 - 18.4902) * GIB), non_torch_bytes=int(1.96 * GIB)),
                3039120),
        "R11": (spec("Qwen__Qwen2.5-7B-Instruct.json", 5.2032), "vllm", 8.00,
                dict(gpu_memory_utilization=0.7, activation_bytes=int(1.42 * GIB), non_torch_bytes=int(0.03 * GIB)), 0),
    }[rid]


@pytest.mark.parametrize("rid", ["R01", "R02", "R04", "R11"])
def test_vllm_capacity_from_the_printed_profile(rid):
    model, engine, gpu, changes, printed = _capacity(rid)
    e = _tokens(model, engine, gpu, 0, gpu_memory_utilization=changes.pop("gpu_memory_utilization", 0.9), **changes)
    if printed == 0:
        assert e.kv_pool_tokens == 0 and e.verdict == "kv_exceeds"
    else:
        assert e.kv_pool_tokens == pytest.approx(printed, rel=0.02)


A100_0_10 = dict(device_name="NVIDIA A100-SXM4-80GB", engine_version="0.10.1.1")
ESTIMATED = {
    # V0 engines profile max(max_model_len, 2048) tokens when chunked prefill is off
    "R01": ("meta-llama__Llama-3.1-8B-Instruct.json", 14.9888, 23.58, dict(max_model_len=20000, max_num_batched_tokens=20000,
                                                                           engine_version="0.6.4"), 31232),
    "R02": ("meta-llama__Llama-3.1-8B-Instruct.json", 14.9888, 23.58, dict(max_model_len=29000, max_num_batched_tokens=29000,
                                                                           engine_version="0.6.4"), 23648),
    # vLLM 0.10.1.1 on A100s: 2048 tokens per step and 256 sequences (not the H100 defaults)
    "R13": ("Qwen__Qwen2-7B-Instruct.json", 14.2488, 79.15, dict(gpu_memory_utilization=0.25, max_model_len=16384,
                                                                  **A100_0_10), 93872),
    "R14": ("Qwen__Qwen2-7B-Instruct.json", 14.2488, 79.15, dict(gpu_memory_utilization=0.5, max_model_len=16384,
                                                                  **A100_0_10), 464848),
    "R15": ("Qwen__Qwen2-7B-Instruct.json", 7.1217 * 2, 79.15,
            dict(gpu_memory_utilization=0.25, max_model_len=16384, tensor_parallel_size=2, **A100_0_10), 450192),
}


@pytest.mark.parametrize("rid", sorted(ESTIMATED))
def test_vllm_capacity_with_estimated_overheads(rid):
    """Only total memory, utilization and weights come from the record; activation and non-torch are estimated."""
    name, w, gpu, changes, printed = ESTIMATED[rid]
    e = _tokens(spec(name, w), "vllm", gpu, w, **changes)
    assert e.kv_pool_tokens == pytest.approx(printed, rel=0.02)


def test_gpt_oss_120b_capacity_and_concurrency_r18():
    """From the config alone, on the record's A100s and release with the sampler its log names (FlashInfer): the
    weights in Marlin's layout are the 17.2217 GiB it printed within 1%, the capacity within 1%."""
    model = read_catalog("openai/gpt-oss-120b")
    s = Settings(gpu_memory_utilization=0.8, max_model_len=16384, tensor_parallel_size=4, sampler="flashinfer",
                 **A100_0_10)
    e = estimate(model, engine="vllm", settings=s, gpu_bytes=int(79.15 * GIB))
    assert e.weights_bytes / GIB == pytest.approx(17.2217, rel=0.01)
    assert e.kv_pool_tokens == pytest.approx(2640144, rel=0.01)
    rules = get_engine("vllm")
    printed_pool = int(45.32 * GIB)
    assert rules.max_concurrency(model, s, printed_pool) == pytest.approx(284.25, rel=0.002)


def test_pool_tokens_from_printed_available_memory():
    """R07, R13-R15: 'Available KV cache memory: X GiB' -> 'GPU KV cache size: N tokens'."""
    rules = get_engine("vllm")
    qwen = spec("Qwen__Qwen2-7B-Instruct.json")
    assert rules.pool_tokens(qwen, Settings(), int(5.01 * GIB)) == pytest.approx(93872, rel=0.002)
    assert rules.pool_tokens(qwen, Settings(), int(24.83 * GIB)) == pytest.approx(464848, rel=0.002)
    assert rules.pool_tokens(qwen, Settings(tensor_parallel_size=2), int(12.02 * GIB)) == pytest.approx(450192, rel=0.002)
    big = spec("Qwen__Qwen3-235B-A22B-FP8.json")
    assert rules.pool_tokens(big, Settings(tensor_parallel_size=4), int(8.11 * GIB)) == pytest.approx(178880, rel=0.02)


def test_sglang_pool_r23():
    """R23: avail before weights 21.63 GiB, weights 15.54 GiB per GPU, mem_fraction_static 0.85 -> 46,611 tokens."""
    model = spec("Qwen__QwQ-32B.json", 15.54 * 4)
    s = Settings(tensor_parallel_size=4, mem_fraction_static=0.85, non_torch_bytes=0)
    e = estimate(model, engine="sglang", settings=s, gpu_bytes=int(21.63 * GIB))
    assert e.kv_pool_tokens == pytest.approx(46611, rel=0.02)


def test_vllm_max_model_len_estimate_r32():
    """R32: 48.66 GiB available -> vLLM's 'estimated maximum model length is 205728'."""
    model = spec("Qwen__Qwen3-Coder-480B-A35B-Instruct-FP8.json", 1)
    s = Settings(max_model_len=262144, activation_bytes=0, non_torch_bytes=0, cuda_graph_bytes=0,
                 gpu_memory_utilization=1.0)
    avail = int(48.66 * GIB)
    e = estimate(model, engine="vllm", settings=s, gpu_bytes=avail + GIB)
    assert e.kv_pool_bytes == avail
    assert e.verdict == "kv_exceeds"
    assert e.max_model_len_fit == 205728
    assert e.kv_cache_bytes == pytest.approx(62.00 * GIB, rel=0.001)


def test_gpt_oss_on_one_h100_r21():
    """R21: 1.71 GiB left for KV; one 131,072-token request needs ~4.5 GiB full + 0.04 GiB sliding."""
    model = read_catalog("openai/gpt-oss-120b")
    s = Settings(max_model_len=131072, max_num_batched_tokens=1024)
    rules = get_engine("vllm")
    need = rules.kv_cache_bytes(model, s, 131072, 1)
    full = 18 * 131072 * 2048
    assert need - full == pytest.approx(0.04 * GIB, abs=0.005 * GIB)
    assert full / GIB == pytest.approx(4.5)
