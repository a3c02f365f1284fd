"""The weights as the engines hold them on one GPU: the parameters vLLM and SGLang create (`layout`), one tensor
at a time through PyTorch's caching allocator (`caching_allocator`), plus the RoPE cache; against the figures the
engines printed."""

from __future__ import annotations

import json

import pytest

from conftest import DATA, load_config
from vramdoctor.engines import Settings
from vramdoctor.engines.sglang import SglangRules
from vramdoctor.errors import VramdoctorError
from vramdoctor.estimate import estimate
from vramdoctor.gpus import find_gpu
from vramdoctor.layout import FAMILIES, param_bytes, rope_positions
from vramdoctor.parallel import stages
from vramdoctor.quantize import with_quantization
from vramdoctor.sources.hf_config import spec_from_config
from vramdoctor.spec import WeightsInfo

GIB, MIB = 2**30, 2**20


def spec(name: str):
    return spec_from_config(load_config(name), name=name)


def sglang_weights(name: str, tp: int, version: str = "0.4.3.post4") -> int:
    return SglangRules().weights_bytes(spec(name), Settings(tensor_parallel_size=tp, engine_version=version))


def test_r23_sglang_holds_what_its_log_prints(gt):
    """QwQ-32B under TP 4 on SGLang 0.4.3.post4: 'Load weight end. ... mem usage=15.54 GB' (R23), where the
    config's parameters per GPU are 15.26 GiB."""
    printed = [line for line in gt["R23"]["printed"] if "Load weight end" in line][0]
    assert "mem usage=15.54 GB" in printed
    w = sglang_weights("Qwen__QwQ-32B.json", 4)
    assert round(w / GIB, 2) == 15.54
    m = spec("Qwen__QwQ-32B.json")
    assert round(m.weights.total_bytes / 4 / GIB, 2) == 15.26


def test_qwen3_14b_on_one_gpu_within_the_public_log():
    """xorbitsai/inference#3481 (SGLang, May 2025, Qwen3-14B on one GPU) prints 'mem usage=27.57 GB'."""
    assert abs(sglang_weights("Qwen__Qwen3-14B.config.json", 1) / GIB - 27.57) < 0.05


def test_r08_fp8_moe_attention_leaves_3_mib_per_layer_in_shared_segments():
    """Qwen3-235B-A22B-FP8 under TP 4: qkv (9 MiB) and o (8 MiB) in fp8 share a 20 MiB segment per layer; with the
    fp8 block scales, the replicated router and the fp32 RoPE cache (40,960 x 128 x 4) that is 55.43 GiB."""
    m = spec("Qwen__Qwen3-235B-A22B-FP8.json")
    layout = m.layout
    assert layout.fp8_block == (128, 128) and layout.weight_bytes == 1 and sum(layout.moe_layers) == 94
    from vramdoctor.engines.base import weights_loaded

    t = weights_loaded(layout, 4, 4)
    assert t.reserved_bytes - t.requested_bytes >= 94 * 3 * MIB
    assert round(t.reserved_bytes / GIB, 2) == 55.43


def test_sglang_keeps_the_rope_cache_in_fp32_once_for_all_layers():
    m = spec("Qwen__QwQ-32B.json")
    assert (m.layout.rope_positions, m.layout.rotary_dim) == (131072, 128)
    from vramdoctor.engines.base import weights_loaded

    whole = weights_loaded(m.layout, 1, 4).requested_bytes
    assert whole - param_bytes(m.layout) == 131072 * 128 * 4


@pytest.mark.parametrize("rope_scaling, positions", [
    (None, 32768),
    ({"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192}, 32768),
    ({"type": "linear", "factor": 2.0}, 65536),
    ({"rope_type": "dynamic", "factor": 4.0}, 131072),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}, 16384),
    ({"rope_type": "longrope", "short_factor": [1], "long_factor": [2]}, None),
])
def test_rope_cache_rows_by_scaling_type(rope_scaling, positions):
    assert rope_positions({"max_position_embeddings": 32768, "rope_scaling": rope_scaling}) == positions


def test_the_layout_counts_the_configs_parameters():
    """For every config of a family with a known layout: the layout's parameters (with Qwen2's qkv biases, Qwen3's
    q/k norms and the vocabulary padded to 64) within 0.05% of the parameter count."""
    seen = set()
    for path in sorted((DATA / "configs").glob("*.json")):
        cfg = json.loads(path.read_text())
        if cfg.get("model_type") not in FAMILIES or "quantization_config" in cfg:
            continue
        try:
            m = spec_from_config(cfg, name=path.name)
        except VramdoctorError:  # a partial config (the GGUF repos' own)
            continue
        assert m.layout is not None, path.name
        assert abs(param_bytes(m.layout) / m.weights.total_bytes - 1) < 0.0005, path.name
        seen.add(cfg["model_type"])
    assert seen == set(FAMILIES)


def test_no_layout_where_the_module_layout_is_not_known():
    assert spec("google__gemma-2-9b-it.config.json").layout is None  # another family
    assert spec("TheBloke__Llama-2-13B-chat-GPTQ.config.json").layout is None  # GPTQ
    assert with_quantization(spec("Qwen__Qwen2.5-7B-Instruct.json"), "awq").layout is None
    cfg = load_config("Qwen__QwQ-32B.json")
    # a checkpoint with 5% more bytes than the layout names (a vision tower, extra heads): its bytes are used
    m = spec_from_config(cfg, name="q", weights=WeightsInfo(total_bytes=int(spec("Qwen__QwQ-32B.json")
                                                                            .weights.total_bytes * 1.05),
                                                            exact=True, source="headers"))
    assert m.layout is None
    assert SglangRules().weights_bytes(m, Settings(tensor_parallel_size=4)) == m.weights.total_bytes // 4


def test_pipeline_stages_hold_their_layers_embedding_and_head():
    m = spec("Qwen__QwQ-32B.json")
    parts = stages(m, 2, "sglang")
    assert [p.layout.layers for p in parts] == [(0, 32), (32, 64)]
    assert [(p.layout.embed, p.layout.head) for p in parts] == [(True, False), (False, True)]
    assert sum(param_bytes(p.layout) for p in parts) == param_bytes(m.layout)


def test_the_sglang_pool_is_its_fraction_less_the_weights_it_holds_and_the_expert_tables():
    m = spec("Qwen__Qwen3-235B-A22B-FP8.json")
    g = find_gpu("H100-80GB")
    s = Settings(tensor_parallel_size=4, mem_fraction_static=0.93, max_model_len=40960, engine_version="0.4.9")
    e = estimate(m, engine="sglang", settings=s, gpu_bytes=g.memory_bytes)
    tables = {o.name: o.bytes for o in e.overheads}["expert-location tables"]
    assert tables == 94 * 128 * 128 * 8
    assert e.kv_pool_bytes == e.budget_bytes - e.weights_bytes - tables
    assert "as SGLang holds them" in e.weights_source
    older = estimate(m, engine="sglang", settings=s.with_(engine_version="0.4.6"), gpu_bytes=g.memory_bytes)
    assert "expert-location tables" not in {o.name for o in older.overheads}


def test_the_advice_weighs_a_smaller_checkpoint_by_its_own_bytes_not_the_layout():
    """The 4-bit what-if of the advice is not this checkpoint's tensors: SGLang on Qwen3-32B-FP8 on a 4090 is
    still advised a 4-bit checkpoint."""
    m = spec("Qwen__Qwen3-32B-FP8.config.json")
    assert m.layout is not None
    e = estimate(m, engine="sglang", settings=Settings(), gpu_bytes=find_gpu("RTX-4090").memory_bytes)
    assert e.verdict == "weights_exceed"
    assert any("4-bit" in a.change for a in e.advice)
@pytest.mark.parametrize("rid, config, tp", [
    ("R01", "meta-llama__Llama-3.1-8B-Instruct.json", 1),  # V0 0.6.4: "Loading model weights took 14.9888 GB"
    ("R13", "Qwen__Qwen2-7B-Instruct.json", 1),  # V1 0.10.1.1: "Model loading took 14.2488 GiB"
    ("R15", "Qwen__Qwen2-7B-Instruct.json", 2),  # "Model loading took 7.1217 GiB"
])
def test_vllm_counts_the_allocators_blocks_and_a_rope_cache_in_the_model_dtype(gt, rid, config, tp):
    """vLLM's weights figure is `torch.cuda.max_memory_allocated` after loading: the blocks, not the segments, so
    only the tails the allocator keeps with a tensor count (Qwen2-7B's gate_up_proj of 259 MiB in a 260 MiB segment
    keeps its 1 MiB), and the RoPE cache is in bf16. It is what vLLM printed to within 0.2 MiB: the rest is the
    attention layers' fp32 scalars (k/v/q/prob scales and, in newer releases, q/k/v ranges), a 512-byte block each,
    which the layout leaves out."""
    import re

    from vramdoctor.engines.vllm import VllmRules

    line = next(p for p in gt[rid]["printed"] if "took" in p and "Graph" not in p)
    printed = float(re.search(r"took ([\d.]+) G", line).group(1))
    w = VllmRules().weights_bytes(spec(config), Settings(tensor_parallel_size=tp))
    assert 0 <= printed * GIB - w < 0.2 * MIB
    # the checkpoint's bytes alone (no RoPE cache, no kept tails) fall 30-65 MiB short
    assert printed * GIB - spec(config).weights.total_bytes / tp > 25 * MIB


def test_vllm_and_sglang_differ_by_what_their_figures_read():
    """The same tensors: vLLM reads allocated blocks with a bf16 RoPE cache, SGLang reserved segments with an fp32
    one; both hold more than the checkpoint's bytes per GPU."""
    from vramdoctor.engines.vllm import VllmRules

    m, s = spec("Qwen__QwQ-32B.json"), Settings(tensor_parallel_size=4)
    vllm, sglang, params = VllmRules().weights_bytes(m, s), SglangRules().weights_bytes(m, s), m.weights.total_bytes // 4
    assert params < vllm < sglang
    assert sglang - vllm > 131072 * 128 * 2  # at least the fp32 cache's second half
