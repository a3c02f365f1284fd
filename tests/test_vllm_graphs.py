"""vLLM from 0.21: the CUDA graphs' memory profiled into the KV budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 by
default), as a charge of its source-exact floor with the rest up to the public captures' rate not modelled; 0.20 and
--enforce-eager keep the old rule. Graph counts are computed here by hand from vLLM's `_set_cudagraph_sizes` and the
dispatcher's FULL decode sizes."""

from __future__ import annotations

import json

import pytest

from clirun import CliRunner
from conftest import load_config, records
from vramdoctor.cli import run
from vramdoctor.engines import Settings
from vramdoctor.engines import vllm_graphs
from vramdoctor.estimate import estimate
from vramdoctor.sources.catalog import read_catalog

GIB = 2**30
MIB = 2**20
H100 = int(79.19 * GIB)


def sizes_by_hand(max_num_seqs, max_num_batched_tokens):
    """vllm/config/vllm.py `_set_cudagraph_sizes` (balanced mode, no speculative decoding): up to min(2 x
    max_num_seqs, 512) and max_num_batched_tokens: 1, 2, 4, multiples of 8 below 256, multiples of 16 from 256."""
    top = min(min(2 * max_num_seqs, 512), max_num_batched_tokens)
    out = [i for i in (1, 2, 4) if i <= top]
    if top >= 8:
        out += list(range(8, min(top + 1, 256), 8))
    if top >= 256:
        out += list(range(256, top + 1, 16))
    return sorted(set(out))


@pytest.mark.parametrize("seqs,tokens", [(256, 2048), (1024, 8192), (8, 2048), (256, 128), (192, 8192), (1, 1)])
def test_graph_counts_follow_vllms_capture_sizes(seqs, tokens):
    by_hand = sizes_by_hand(seqs, tokens)
    assert vllm_graphs.capture_sizes((0, 21, 0), seqs, tokens) == by_hand
    piecewise, full = vllm_graphs.graph_counts((0, 21, 0), seqs, tokens)
    assert piecewise == len(by_hand)
    assert full == len([x for x in by_hand if x <= seqs])  # FULL decode graphs: sizes up to max_num_seqs


def test_the_h100_defaults_give_51_piecewise_and_51_full_graphs():
    """1, 2, 4 (3), 8..248 (31), 256..512 (17): 51, every one at most 1024 sequences."""
    assert vllm_graphs.graph_counts((0, 21, 0), 1024, 8192) == (51, 51)


def test_releases_before_26016_captured_every_multiple_of_8():
    """0.10-0.11.0: 1, 2, 4 and multiples of 8 up to min(2 x max_num_seqs, 512): 67 graphs for 256 sequences."""
    assert len(vllm_graphs.capture_sizes((0, 10, 1), 256, 2048)) == 3 + 64


def qwen():
    return read_catalog("Qwen/Qwen2.5-7B-Instruct")


def est(version, **kw):
    kw.setdefault("max_model_len", 8192)
    return estimate(qwen(), settings=Settings(engine_version=version, **kw), gpu_bytes=H100,
                    gpu_name="H100-80GB")


def graphs(e):
    return next(o for o in e.overheads if o.name == "CUDA graphs")


def test_from_021_the_floor_comes_out_of_the_pool_and_the_rest_is_named():
    old, new = est("0.20.0", device_name="H100-80GB"), est("0.21.0", device_name="H100-80GB")
    pw, full = vllm_graphs.graph_counts((0, 21, 0), new.settings.max_num_seqs, new.settings.max_num_batched_tokens)
    floor = (pw - 1) * MIB  # vLLM charges at least 1 MiB a graph beyond the first (profile_cudagraph_memory)
    assert graphs(old).bytes == 0 and "captured after the pool is sized" in graphs(old).assumption
    assert graphs(new).bytes == floor
    assert new.kv_pool_bytes == old.kv_pool_bytes - floor
    extra = next(o for o in new.uncertain if o.name == "CUDA graph estimate")
    high = (pw + full - 1) * qwen().num_decoder_layers * vllm_graphs.BYTES_PER_GRAPH_LAYER_HIGH
    assert extra.bytes == high - floor
    assert "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS" in extra.assumption
    assert "CUDA graphs profiled into the budget" in new.engine_rules


def test_enforce_eager_and_the_switch_turn_it_off():
    e = est("0.21.0", enforce_eager=True)
    assert not any(o.name == "CUDA graphs" for o in e.overheads)
    assert not any(o.name == "CUDA graph estimate" for o in e.uncertain)


def test_the_default_release_keeps_the_old_rule():
    e = estimate(qwen(), settings=Settings(max_model_len=8192), gpu_bytes=H100)
    assert graphs(e).bytes == 0 and not any(o.name == "CUDA graph estimate" for o in e.uncertain)


def test_the_range_holds_the_public_captures():
    """R13, R15 (Qwen2-7B on A100s, TP 1 and 2) and R18 (gpt-oss-120b, TP 4) printed "Graph capturing finished ...
    took X GiB" for 67 piecewise graphs (vLLM 0.10.1.1's capture sizes for its A100 defaults); the upper rate is
    R18's, so the others must fall inside, R18 on the bound."""
    gt = records()
    cases = {"R13": ("Qwen__Qwen2-7B-Instruct.json", 0.50), "R15": ("Qwen__Qwen2-7B-Instruct.json", 0.65),
             "R18": ("openai__gpt-oss-120b.json", 1.88)}
    for rid, (cfg, took) in cases.items():
        assert f"took {took:.2f} GiB" in " ".join(gt[rid]["printed"])
        layers = load_config(cfg)["num_hidden_layers"]
        n = len(vllm_graphs.capture_sizes((0, 10, 1), 256, 2048))
        low, high = (n - 1) * MIB, n * layers * vllm_graphs.BYTES_PER_GRAPH_LAYER_HIGH
        assert low <= took * GIB <= high + GIB // 100, rid


def test_cli_enforce_eager_and_the_output_names_the_charge():
    r = CliRunner().invoke(run, ["estimate", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100-80GB", "--engine-version",
                                 "0.21", "--json"])
    d = json.loads(r.stdout)
    assert any(o["name"] == "CUDA graphs" and o["bytes"] > 0 for o in d["overheads"])
    assert d["settings"]["gpu_memory_utilization"] == 0.92  # vLLM's default from 0.20
    r = CliRunner().invoke(run, ["estimate", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100-80GB", "--engine-version",
                                 "0.21", "--enforce-eager", "--json"])
    d = json.loads(r.stdout)
    assert not any(o["name"] == "CUDA graphs" for o in d["overheads"])
    text = CliRunner().invoke(run, ["estimate", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100-80GB", "--engine-version",
                                    "0.21"]).stdout
    assert "profiled into the budget" in text and "CUDA graph estimate" in text
    r = CliRunner().invoke(run, ["estimate", "Qwen/Qwen2.5-7B-Instruct", "--engine", "sglang", "--enforce-eager"])
    assert r.exit_code == 0 and "--enforce-eager is ignored" in r.stderr
