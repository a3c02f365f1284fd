"""Regression tests for input that once hung, crashed or gave wrong answers (found by a new-user review)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from safetensors.numpy import save_file
from clirun import CliRunner

from test_sources import TINY_CFG, folder
from tinygguf import write_model
from vramdoctor.cli import run as app
from vramdoctor.errors import ModelSourceError
from vramdoctor.sources import load_model

runner = CliRunner()


def est(*args):
    return runner.invoke(app, ["estimate", *args])


def cfg_file(tmp_path, **changes):
    p = tmp_path / "config.json"
    p.write_text(json.dumps({**TINY_CFG, **changes}))
    return str(p)


@pytest.mark.parametrize("changes,field", [
    ({"num_hidden_layers": 10**8}, "num_hidden_layers"),
    ({"num_hidden_layers": 0}, "num_hidden_layers"),
    ({"hidden_size": "4096"}, "hidden_size"),
    ({"hidden_size": -3584}, "hidden_size"),
    ({"vocab_size": -1}, "vocab_size"),
    ({"sliding_window": "abc"}, "sliding_window"),
    ({"max_window_layers": "x", "use_sliding_window": True, "sliding_window": 8}, "max_window_layers"),
    ({"quantization_config": {"quant_method": "gptq", "bits": "4"}}, "quantization_config.bits"),
    ({"layer_types": "full_attention"}, "layer_types"),
])
def test_implausible_or_mistyped_fields_are_named(tmp_path, changes, field):
    with pytest.raises(ModelSourceError) as e:
        load_model(cfg_file(tmp_path, **changes))
    assert e.value.field == field


@pytest.mark.parametrize("arch", [None, []])
def test_null_architectures_is_fine(tmp_path, arch):
    assert load_model(cfg_file(tmp_path, architectures=arch)).count("full") == 2


def test_config_without_sizes_cannot_estimate_weights(tmp_path):
    cfg = {k: v for k, v in TINY_CFG.items() if k not in ("vocab_size",)}
    p = tmp_path / "config.json"
    p.write_text(json.dumps({**cfg, "head_dim": 16, "hidden_size": None}))
    r = est(str(p))
    assert r.exit_code == 2 and "hidden_size" in r.stderr


def test_gguf_with_absurd_block_count(tmp_path):
    from gguf import GGUFWriter

    p = tmp_path / "evil.gguf"
    w = GGUFWriter(str(p), "llama")
    w.add_block_count(10**9)
    w.add_head_count(4)
    w.add_tensor("x", np.zeros(4, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    with pytest.raises(ModelSourceError, match="block_count"):
        load_model(str(p))


def test_consolidated_beside_shards_is_not_counted_twice(tmp_path):
    d = folder(tmp_path, shards=2)
    save_file({"all": np.zeros((2 * 10 * 7 + 2 * 3 * 2,), dtype=np.float16)}, str(d / "consolidated.safetensors"))
    assert load_model(str(d)).weights.total_bytes == 2 * (10 * 7 * 2 + 3 * 4)


def test_partial_download_uses_the_index(tmp_path):
    d = folder(tmp_path, shards=2)
    names = sorted(p.name for p in d.glob("*.safetensors"))
    (d / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": 999}, "weight_map": {"a": names[0], "b": names[1]}}))
    (d / names[1]).unlink()
    w = load_model(str(d)).weights
    assert w.total_bytes == 999 and "not downloaded" in w.source


def test_shard_with_cut_data_is_truncated(tmp_path):
    d = folder(tmp_path, shards=1)
    shard = next(d.glob("*.safetensors"))
    shard.write_bytes(shard.read_bytes()[:-10])
    with pytest.raises(ModelSourceError, match="truncated"):
        load_model(str(d))


def test_empty_safetensors_header(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(TINY_CFG))
    save_file({}, str(d / "model.safetensors"))
    with pytest.raises(ModelSourceError, match="no tensors"):
        load_model(str(d))


def test_split_gguf_counts_every_part_and_needs_them_all(tmp_path):
    one = load_model(str(write_model(tmp_path / "whole.gguf", n_layer=2))).weights.total_bytes
    a, b = (write_model(tmp_path / f"m-0000{i + 1}-of-00002.gguf", n_layer=2,
                        extra_kv={"split.count": 2, "split.no": i}) for i in range(2))
    assert load_model(str(a)).weights.total_bytes == 2 * one
    b.unlink()
    with pytest.raises(ModelSourceError, match="missing"):
        load_model(str(a))


def test_gguf_without_extension_is_found_by_its_magic(tmp_path):
    p = write_model(tmp_path / "m.gguf")
    blob = tmp_path / "sha256-0123abcd"
    p.rename(blob)
    assert load_model(str(blob)).count("full") == 2


@pytest.mark.parametrize("args,option", [
    (["--grid", "-4096x1"], "--grid"), (["--grid", "4096x0"], "--grid"),
    (["--max-num-batched-tokens", "-100000"], "--max-num-batched-tokens"), (["--n-ubatch", "0"], "--n-ubatch"),
    (["--gpu-memory", "24"], "--gpu-memory"), (["--gpu-memory", ""], "--gpu-memory"), (["--gpu", ""], "--gpu"),
    (["-tp", "3"], "--tensor-parallel-size"), (["--kv-cache-dtype", "q8_0"], "--kv-cache-dtype"),
    (["--engine", "llamacpp", "--kv-cache-dtype", "fp8"], "--kv-cache-dtype"),
    (["--engine", "sglang", "--kv-cache-dtype", "fp8"], "--kv-cache-dtype"),
    (["--block-size", "7"], "--block-size"), (["--mem-fraction-static", "0.8"], "--mem-fraction-static"),
])
def test_bad_values_exit_2(args, option):
    r = est("Qwen/Qwen2.5-7B-Instruct", *args)
    assert r.exit_code == 2, r.output
    assert option in r.stderr


def j(*args):
    r = est(*args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_weights_exceed_always_says_how_many_gpus():
    d = j("deepseek-ai/DeepSeek-R1", "--gpu", "H100-80GB")
    assert d["verdict"] == "weights_exceed" and d["advice"]
    assert "GPUs" in d["advice"][-1]["change"] or "GPUs" in d["advice"][-1]["detail"]


def test_no_pool_at_all_gets_weight_remedies():
    d = j("Qwen/Qwen2.5-7B-Instruct", "--gpu-memory", "15.9GiB")
    assert d["kv_pool_bytes"] == 0 < d["kv_pool_shortfall_bytes"] and d["max_model_len_fit"] == 0  # never negative
    assert any("weights" in a["change"] or "GPUs" in a["change"] for a in d["advice"])


def test_context_cap_only_when_asked_within_it():
    d = j("Qwen/Qwen2.5-7B-Instruct", "--gpu", "H200")
    assert d["max_model_len_fit"] == 32768  # capped at max_position_embeddings
    beyond = j("Qwen/Qwen2.5-7B-Instruct", "--gpu", "H200", "--max-model-len", "200000")
    assert beyond["max_model_len_fit"] > 32768  # the user asked past it (rope scaling): no cap


def test_llamacpp_tp_is_consistent():
    """-tp 4 is --split-mode layer over 4 GPUs: whole layers (8, 7, 7 and 6 with the output layer, llama.cpp's split
    points), and the fullest GPU, the last (its output layer outweighs two layers), is the one shown."""
    d = j("Qwen/Qwen2.5-7B-Instruct", "--engine", "llamacpp", "-tp", "4", "--max-model-len", "4096")
    assert d["kv_cache_bytes"] == d["kv_bytes_per_token"] * 4096
    d1 = j("Qwen/Qwen2.5-7B-Instruct", "--engine", "llamacpp", "--max-model-len", "4096")
    assert d["kv_cache_bytes"] * 28 == d1["kv_cache_bytes"] * 6


def test_llamacpp_fewer_sequences_shrinks_c():
    d = j("Qwen/Qwen2.5-7B-Instruct", "--engine", "llamacpp", "--max-model-len", "32768", "--concurrency", "8",
          "--gpu", "RTX-4090")
    flags = [a["flags"] for a in d["advice"]]
    assert any(f.startswith("-c ") and " -np " in f and not f.startswith("-c 262144") for f in flags), flags


@pytest.mark.parametrize("name,expect", [("NVIDIA GeForce RTX 4090", "RTX-4090"), ("NVIDIA H100 80GB HBM3", "H100-80GB"),
                                         ("Tesla T4", "T4")])
def test_nvidia_smi_names(name, expect):
    assert j("Qwen/Qwen2.5-7B-Instruct", "--gpu", name)["gpu"] == expect


def test_unreachable_hub_is_quick_and_clear(tmp_path):
    env = {"HF_ENDPOINT": "http://127.0.0.1:9", "HF_HOME": str(tmp_path)}
    import os

    r = subprocess.run([sys.executable, "-m", "vramdoctor", "estimate", "acme/not-cached"], capture_output=True,
                       text=True, timeout=60, env={**os.environ, **env})
    assert r.returncode == 2 and "cannot be reached" in r.stderr and "Traceback" not in r.stderr
    assert "Retry" not in r.stderr


def test_pipe_to_head_exits_0():
    exe = f"{sys.executable} -m vramdoctor"
    for cmd in ("estimate Qwen/Qwen2.5-7B-Instruct", "estimate --list-gpus"):
        r = subprocess.run(["bash", "-o", "pipefail", "-c", f"{exe} {cmd} | head -1 >/dev/null"], timeout=60)
        assert r.returncode == 0


def test_llamacpp_ignores_windows_it_does_not_implement():
    """Mistral v0.1 runs as `llama` in llama.cpp and Phi-3's window is disabled there: full caches."""
    d = j("mistralai/Mistral-7B-Instruct-v0.1", "--engine", "llamacpp", "--max-model-len", "8192")
    assert d["kv_cache_bytes"] == 8192 * 131072
    g = j("google/gemma-2-9b-it", "--engine", "llamacpp", "--max-model-len", "8192")
    assert g["kv_cache_bytes"] < 8192 * g["engine_kv_bytes_per_token"] * 2  # gemma 2's windows are honoured


def test_huge_concurrency_gives_sane_advice():
    d = j("Qwen/Qwen2.5-7B-Instruct", "--concurrency", "100000")
    assert not any("15230974976" in a["detail"] for a in d["advice"])
    assert d["overhead_bytes"] < 8 * 2**30  # the sampler warm-up is capped at max_num_batched_tokens rows


@pytest.mark.parametrize("name,says", [
    ("tgi", "no memory rules for TGI"),
    ("TensorRT-LLM", "no memory rules for TensorRT-LLM"),
    ("nosuchengine", "unknown engine 'nosuchengine'"),
])
def test_estimate_names_what_it_cannot_model(tmp_path, name, says):
    r = est(cfg_file(tmp_path), "--engine", name, "--gpu-memory", "24GiB")
    assert r.exit_code == 2
    assert says in " ".join(r.output.split()) and "ollama (llamacpp's)" in " ".join(r.output.split())
    # (only engines whose rules it shares exist: Triton's TensorRT-LLM backend wraps an engine without rules)
    assert "triton-trtllm" not in r.output, r.output


@pytest.mark.parametrize("name,rules", [("ollama", "llamacpp"), ("koboldcpp", "llamacpp"), ("aphrodite", "vllm")])
def test_estimate_runs_an_engine_under_the_rules_it_shares(tmp_path, name, rules):
    r = est(cfg_file(tmp_path), "--engine", name, "--gpu-memory", "24GiB", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["engine"] == rules
