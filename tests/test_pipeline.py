"""Pipeline parallelism: the layers of each stage by the engine's own split, each stage's weights, and the
stage that decides the pool (the engine sizes one pool for all stages from the smallest)."""

from __future__ import annotations

import pytest

from conftest import load_config
from vramdoctor.engines import Settings
from vramdoctor.errors import UsageError
from vramdoctor.estimate import estimate
from vramdoctor.parallel import partitions, stages
from vramdoctor.sources.hf_config import spec_from_config

GIB = 2**30


@pytest.mark.parametrize("n,pp,engine,expected", [
    (80, 3, "vllm", [27, 27, 26]),      # the remainder to the stages before the last (get_pp_indices)
    (32, 3, "vllm", [11, 11, 10]),
    (61, 4, "vllm", [15, 15, 16, 15]),
    (80, 3, "sglang", [26, 27, 27]),    # SGLang: to the last stages
    (32, 4, "vllm", [8, 8, 8, 8]),
])
def test_layers_per_stage(n, pp, engine, expected):
    assert partitions(n, pp, engine) == expected


def llama8b():
    return spec_from_config(load_config("meta-llama__Llama-3.1-8B-Instruct.json"), name="llama")


def test_stage_weights_hold_the_embedding_first_and_the_head_last():
    m = llama8b()
    parts = stages(m, 3, "vllm")
    cfg = load_config("meta-llama__Llama-3.1-8B-Instruct.json")
    table = cfg["vocab_size"] * cfg["hidden_size"] * 2
    per_layer = (m.weights.total_bytes - 2 * table) // 32
    assert [len(p.layers) for p in parts] == [11, 11, 10]
    assert parts[0].weights.total_bytes == 11 * per_layer + table
    assert parts[1].weights.total_bytes == 11 * per_layer
    assert parts[2].weights.total_bytes == 10 * per_layer + table
    assert "pipeline stage 1 of 3: layers 0-10 and the input embedding" in parts[0].weights.source


def test_the_stage_with_the_fewest_tokens_decides():
    """Stage 1 has the most layers and the embedding: the least room per token of its own cache."""
    e = estimate(llama8b(), settings=Settings(pipeline_parallel_size=3, max_model_len=8192),
                 gpu_bytes=int(23.64 * GIB))
    tokens = [r["kv_pool_tokens"] for r in e.pipeline_stages]
    assert e.kv_pool_tokens == min(tokens) == tokens[0] < tokens[2]
    assert "pipeline stage 1 of 3 (layers 0-10) decides the pool" in e.notes[-1]
    assert "--pipeline-parallel-size 3" in e.cell_flags


def test_sglang_pipeline_stage_flag():
    e = estimate(llama8b(), engine="sglang", settings=Settings(pipeline_parallel_size=2), gpu_bytes=int(23.64 * GIB))
    assert "--pp-size 2" in e.cell_flags and len(e.pipeline_stages) == 2


@pytest.mark.parametrize("engine,pp,match", [("llamacpp", 2, "split-mode layer"), ("vllm", 33, "every stage"),
                                             ("vllm", 0, "at least 1")])
def test_refused(engine, pp, match):
    with pytest.raises(UsageError, match=match):
        estimate(llama8b(), engine=engine, settings=Settings(pipeline_parallel_size=pp), gpu_bytes=80 * GIB)


def test_a_split_never_separates_a_parallel_hybrid_layer():
    """Falcon-H1 holds an attention and a Mamba2 state in every layer: a pipeline stage and llama.cpp's -ngl
    count decoder layers, and keep each pair together."""
    from vramdoctor.engines import get_engine
    from vramdoctor.engines.llamacpp import offloaded

    m = spec_from_config(load_config("reconstructed__tiiuae__Falcon-H1-0.5B-Instruct.json"), name="falcon")
    assert m.num_decoder_layers * 2 == len(m.layers)
    for part in stages(m, 5, "vllm"):
        kinds = [layer.kind for layer in part.layers]
        assert kinds == ["full", "state"] * part.num_decoder_layers
    assert sum(p.num_decoder_layers for p in stages(m, 5, "vllm")) == m.num_decoder_layers
    part = offloaded(m, Settings(n_gpu_layers=11))
    assert part.num_decoder_layers == 10 and [x.kind for x in part.layers] == ["full", "state"] * 10
    e = estimate(m, engine="llamacpp", settings=Settings(), gpu_bytes=1 << 40)
    assert e.max_n_gpu_layers_fit == m.num_decoder_layers + 1
    assert get_engine("llamacpp").weights_bytes(m, Settings(n_gpu_layers=0)) == 0
