"""One test per architecture family, each on a real config from shared/data/configs."""

from __future__ import annotations

import pytest

from conftest import load_config
from vramdoctor.dtypes import resolve_kv_dtype
from vramdoctor.engines import Settings, get_engine
from vramdoctor.estimate import estimate
from vramdoctor.sources.hf_config import spec_from_config
from vramdoctor.spec import FullAttention, LatentAttention, RecurrentState, SlidingWindow

GIB = 2**30


def spec(name):
    return spec_from_config(load_config(name), name=name, path=name)


def per_token(name, engine="generic", **changes):
    return get_engine(engine).engine_bytes_per_token(spec(name), Settings().with_(**changes))


def test_dense_gqa_llama3():
    m = spec("meta-llama__Meta-Llama-3.1-8B.config.json")
    assert m.count("full") == 32
    assert m.layers[0] == FullAttention(num_kv_heads=8, head_dim_k=128, head_dim_v=128)
    assert per_token("meta-llama__Meta-Llama-3.1-8B.config.json") == 32 * 8 * 128 * 2 * 2
    # 8.03B parameters x 2 bytes
    assert m.weights.num_params == pytest.approx(8.03e9, rel=0.005)


def test_mha_llama2():
    assert per_token("meta-llama__Llama-2-7b-hf.config.json") == 32 * 32 * 128 * 2 * 2


def test_explicit_head_dim_wins():
    """Qwen3-0.6B: hidden 1024 / 16 heads = 64, but head_dim is 128."""
    m = spec("Qwen__Qwen3-0.6B.config.json")
    assert m.layers[0].head_dim_k == 128
    assert per_token("Qwen__Qwen3-0.6B.config.json") == 28 * 8 * 128 * 2 * 2


def test_mqa_gemma_2b():
    assert per_token("google__gemma-2b-it.config.json") == 18 * 1 * 256 * 2 * 2


def test_sliding_window_every_layer_mistral_v01():
    m = spec("mistralai__Mistral-7B-Instruct-v0.1.config.json")
    assert m.count("sliding") == 32 and m.layers[0].window == 4096
    rules = get_engine("generic")
    s = Settings()
    # the cache stops growing at the window
    assert rules.kv_cache_bytes(m, s, 32768, 1) == rules.kv_cache_bytes(m, s, 4096, 1) == 4096 * 131072


def test_qwen2_use_sliding_window_false_means_full():
    m = spec("Qwen__Qwen2.5-7B-Instruct.config.json")
    assert m.count("full") == 28 and m.count("sliding") == 0


def test_qwen2_max_window_layers():
    cfg = dict(load_config("Qwen__Qwen2.5-7B-Instruct.config.json"), use_sliding_window=True,
               sliding_window=4096, max_window_layers=20)
    m = spec_from_config(cfg, name="x")
    assert [layer.kind for layer in m.layers] == ["full"] * 20 + ["sliding"] * 8


def test_interleaved_gemma2():
    m = spec("google__gemma-2-9b-it.config.json")
    assert [layer.kind for layer in m.layers[:4]] == ["sliding", "full", "sliding", "full"]
    assert m.count("sliding") == 21 and m.count("full") == 21


def test_interleaved_gemma3_multimodal_text_config():
    """gemma-3-4b-it nests text_config and leaves most keys to Gemma3TextConfig's defaults."""
    m = spec("google__gemma-3-4b-it.config.json")
    assert len(m.layers) == 34
    assert m.count("full") == 5 and m.count("sliding") == 29  # every 6th layer is global
    assert m.layers[5].kind == "full" and m.layers[5].num_kv_heads == 4 and m.layers[5].head_dim_k == 256
    assert m.layers[0].window == 1024


def test_vllm_sliding_charge_is_bounded():
    """vLLM keeps cdiv(min(window - 1 + max_num_batched_tokens, max_model_len), block) + 1 blocks per sliding layer."""
    m = spec("google__gemma-3-4b-it.config.json")
    rules = get_engine("vllm")
    s = Settings(max_num_batched_tokens=2048)
    one_sliding = m.layers[0].bytes_per_token(resolve_kv_dtype("auto", "bf16"), 1)
    full_only = 5 * 32768 * one_sliding
    tokens = (-(-(1024 - 1 + 2048) // 16) + 1) * 16  # 3088
    assert rules.kv_cache_bytes(m, s, 32768, 1) == full_only + 29 * tokens * one_sliding
    # below the window: 7 blocks for 100 tokens, and the sliding layers keep their extra block
    assert rules.kv_cache_bytes(m, s, 100, 1) == 5 * 112 * one_sliding + 29 * 128 * one_sliding


def test_layer_types_gpt_oss():
    m = spec("openai__gpt-oss-20b.config.json")
    assert m.count("sliding") == 12 and m.count("full") == 12
    assert m.layers[0].kind == "sliding" and m.layers[0].window == 128


def test_mla_deepseek_v3():
    m = spec("deepseek-ai__DeepSeek-V3.config.json")
    assert m.layers[0] == LatentAttention(kv_lora_rank=512, qk_rope_head_dim=64)
    # one latent per layer, not per head, and TP does not divide it
    for tp in (1, 8):
        assert per_token("deepseek-ai__DeepSeek-V3.config.json", "vllm", tensor_parallel_size=tp) == 61 * 576 * 2
    assert per_token("deepseek-ai__DeepSeek-V3.config.json", "vllm", kv_cache_dtype="fp8") == 61 * 576


def test_moe_every_expert_resident():
    """Mixtral 8x7B: 46.7B parameters resident although 12.9B are active."""
    m = spec("mistralai__Mixtral-8x7B-v0.1.config.json")
    assert m.weights.num_params == pytest.approx(46.7e9, rel=0.01)
    qwen_moe = spec("Qwen__Qwen3-30B-A3B.config.json")
    assert qwen_moe.weights.num_params == pytest.approx(30.5e9, rel=0.01)


def test_hybrid_qwen3_next_state_not_per_token():
    m = spec("Qwen__Qwen3-Next-80B-A3B-Thinking.config.json")
    assert m.count("full") == 12 and m.count("state") == 36
    st = m.layers[0]
    assert isinstance(st, RecurrentState)
    # conv: (2 x 16 x 128 + 32 x 128) x (4 - 1); recurrent: 32 heads x 128 x 128
    assert st.conv_elems == (2 * 2048 + 4096) * 3 and st.ssm_elems == 32 * 128 * 128
    e = estimate(m, engine="vllm", settings=Settings(), gpu_bytes=200 * GIB)
    assert e.kv_bytes_per_token == 12 * 2 * 256 * 2 * 2
    assert e.state_bytes_per_seq == 36 * (st.conv_elems + st.ssm_elems) * 2


def test_mamba_only():
    m = spec("derivative__mamba-2.8b-ov.config.json")
    assert m.count("state") == 64
    e = estimate(m, engine="generic", settings=Settings(max_model_len=4096), gpu_bytes=24 * GIB)
    assert e.kv_bytes_per_token == 0
    assert e.state_bytes_per_seq == 64 * (5120 * 3 + 5120 * 16) * 4  # float32 model
    longer = estimate(m, engine="generic", settings=Settings(max_model_len=65536), gpu_bytes=24 * GIB)
    assert longer.kv_cache_bytes == e.kv_cache_bytes


def test_hybrid_bamba_attention_indices():
    m = spec("reconstructed__Bamba-9B.json")
    assert [i for i, layer in enumerate(m.layers) if layer.kind == "full"] == [9, 18, 27]


def test_quantized_gptq_weights_estimated():
    """Llama-2-13B GPTQ 4-bit, group 128: the main branch is 7.26 GB."""
    m = spec("TheBloke__Llama-2-13B-chat-GPTQ.config.json")
    assert not m.weights.exact
    assert m.weights.total_bytes == pytest.approx(7.26e9, rel=0.03)


def test_quantized_fp8_and_mxfp4():
    fp8 = spec("Qwen__Qwen3-32B-FP8.config.json")
    bf16 = spec("Qwen__Qwen3-32B.config.json")
    assert fp8.weights.total_bytes < 0.55 * bf16.weights.total_bytes
    oss = spec("openai__gpt-oss-20b.config.json")
    assert oss.weights.total_bytes == pytest.approx(13.76e9, rel=0.03)  # the published checkpoint


def test_kv_heads_replicated_beyond_tp():
    """Qwen2.5-7B has 4 KV heads: at tp=8 each GPU still holds one."""
    assert per_token("Qwen__Qwen2.5-7B-Instruct.config.json", tensor_parallel_size=8) == 28 * 1 * 128 * 2 * 2


@pytest.mark.parametrize("dtype,expected", [("fp16", 4096), ("fp8", 2048), ("q8_0", 2176), ("q4_0", 1152)])
def test_kv_dtypes_block_sizes(dtype, expected):
    layer = SlidingWindow(num_kv_heads=8, head_dim_k=128, head_dim_v=128, window=1)
    assert layer.bytes_per_token(resolve_kv_dtype(dtype, "bf16"), 1) == expected


def test_a_pure_mamba_model_counts_its_mixers_only():
    """Mamba blocks hold the mixer alone (no MLP) and the head is tied by default: mamba-2.8b has 2.77B
    parameters (its float32 checkpoint is 11,073,382,400 bytes = 2.768B x 4)."""
    from vramdoctor.sources.catalog import read_catalog

    m = read_catalog("derivative/mamba-2.8b-ov")
    assert m.weights.num_params == pytest.approx(11_073_382_400 / 4, rel=0.005)
