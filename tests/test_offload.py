"""llama.cpp's partial offload (`-ngl`): where the weights and the KV cache of each layer go, and the
largest -ngl that fits. Rules from llama.cpp `src/llama-model.cpp` (i_gpu_start = n_layer + 1 - ngl over the
n_layer + 1 layers, the output layer the last of them; the input embedding on the host; a tied head
duplicated on the output's device) and `llama-kv-cache.cpp` (each layer's cache on its layer's device)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tinygguf import write_model
from vramdoctor.engines import Settings, get_engine
from vramdoctor.estimate import estimate
from vramdoctor.sources.gguf_file import read_gguf

MIB = 2**20


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = write_model(tmp_path_factory.mktemp("ngl") / "tiny.gguf", n_layer=8, n_embd=256, n_head=4, n_head_kv=2,
                       n_ff=512, extra_vocab=2000)
    return read_gguf(path)


def test_gguf_tensors_are_placed_by_block(tiny):
    w = tiny.weights
    assert len(w.layer_bytes) == 8 and len(set(w.layer_bytes)) == 1
    assert sum(w.layer_bytes) + w.input_bytes + w.output_bytes == w.total_bytes
    assert w.input_bytes > 0 and w.output_bytes > 0


@pytest.mark.parametrize("ngl,layers,head", [(None, 8, True), (99, 8, True), (9, 8, True), (8, 7, True),
                                              (3, 2, True), (1, 0, True), (0, 0, False)])
def test_weights_and_cache_on_the_gpu_by_ngl(tiny, ngl, layers, head):
    rules = get_engine("llamacpp")
    w = tiny.weights
    s = Settings(n_gpu_layers=ngl, max_model_len=4096)
    assert rules.weights_bytes(tiny, s) == layers * w.layer_bytes[0] + (w.output_bytes if head else 0)
    every = rules.kv_cache_bytes(tiny, Settings(max_model_len=4096), 4096, 1)
    assert rules.kv_cache_bytes(tiny, s, 4096, 1) == every * layers // 8
    host_w, host_kv = rules.host_bytes(tiny, s, 4096, 1)
    assert host_w == w.total_bytes - rules.weights_bytes(tiny, s)
    assert host_kv == every - every * layers // 8


@pytest.mark.parametrize("ngl,layers", [(None, 8), (9, 8), (5, 4), (1, 0), (0, 0)])
def test_kv_per_token_counts_the_offloaded_layers_only(tiny, ngl, layers):
    """Review 3, defect 2: -ngl N keeps the cache of the layers left on the host there, so the KV per token of the GPU
    is that of its N - 1 repeating layers (the output layer has none), as its KV cache row is."""
    every = estimate(tiny, engine="llamacpp", settings=Settings(max_model_len=4096), gpu_bytes=1 << 40)
    e = estimate(tiny, engine="llamacpp", settings=Settings(max_model_len=4096, n_gpu_layers=ngl), gpu_bytes=1 << 40)
    assert e.kv_bytes_per_token == every.kv_bytes_per_token * layers // 8
    assert e.kv_bytes_per_token * 4096 == e.kv_cache_bytes


def test_largest_ngl_is_the_last_that_fits(tiny):
    """Brute force over every -ngl on a GPU that holds some of the layers only."""
    s = Settings(max_model_len=65536)
    full = estimate(tiny, engine="llamacpp", settings=s, gpu_bytes=1 << 40)
    gpu = full.total_bytes - full.kv_cache_bytes // 2  # about half the cache does not fit
    fits = [k for k in range(10)
            if estimate(tiny, engine="llamacpp", settings=s.with_(n_gpu_layers=k), gpu_bytes=gpu).verdict == "fits"]
    e = estimate(tiny, engine="llamacpp", settings=s, gpu_bytes=gpu)
    assert e.verdict != "fits"
    assert e.max_n_gpu_layers_fit == max(fits) and 0 < max(fits) < 8
    assert any(a.flags == f"-ngl {max(fits)}" for a in e.advice)


def test_config_only_models_keep_the_input_embedding_on_the_host():
    from conftest import load_config
    from vramdoctor.sources.hf_config import spec_from_config

    cfg = load_config("Qwen__Qwen2.5-7B-Instruct.config.json")
    m = spec_from_config(cfg, name="q")
    table = cfg["vocab_size"] * cfg["hidden_size"] * 2  # bf16, untied: the head is a second table
    rules = get_engine("llamacpp")
    assert rules.weights_bytes(m, Settings()) == pytest.approx(m.weights.total_bytes - table, rel=1e-6)
    assert rules.host_bytes(m, Settings(), 4096, 1)[0] == pytest.approx(table, rel=1e-6)


def test_cli_ngl(tmp_path):
    path = write_model(tmp_path / "t.gguf", n_layer=4)
    r = subprocess.run([sys.executable, "-m", "vramdoctor", "estimate", str(path), "--engine", "llamacpp",
                        "-ngl", "2", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    import json

    j = json.loads(r.stdout)
    assert "-ngl 2" in j["cell_flags"] and j["host_weights_bytes"] > 0


def _deepseek_kv(converted_with_mla: bool) -> dict:
    kv = {"general.architecture": "deepseek2", "deepseek2.block_count": 61, "deepseek2.embedding_length": 7168,
          "deepseek2.attention.head_count": 128, "deepseek2.attention.kv_lora_rank": 512,
          "deepseek2.rope.dimension_count": 64, "deepseek2.vocab_size": 129280, "deepseek2.context_length": 163840}
    if converted_with_mla:  # convert_hf_to_gguf.py after llama.cpp PR #12801: the latent is the cached "head"
        kv.update({"deepseek2.attention.head_count_kv": 1, "deepseek2.attention.key_length": 576,
                   "deepseek2.attention.value_length": 512, "deepseek2.attention.key_length_mla": 192,
                   "deepseek2.attention.value_length_mla": 128})
    else:  # older conversions: every head's K (qk_nope 128 + rope 64) and V (128)
        kv.update({"deepseek2.attention.head_count_kv": 128, "deepseek2.attention.key_length": 192,
                   "deepseek2.attention.value_length": 128})
    return kv


def test_an_old_deepseek_gguf_caches_every_head_as_llama_cpp_does():
    """A DeepSeek GGUF converted before llama.cpp's MLA cache has no key_length_mla: llama.cpp caches K of
    128 x 192 and V of 128 x 128 per token and layer (n_embd_k_gqa 24576, n_embd_v_gqa 16384 in its log),
    71x the 576-wide latent a newer conversion caches."""
    from vramdoctor.sources.gguf_file import spec_from_gguf_fields

    rules = get_engine("llamacpp")
    old = spec_from_gguf_fields(_deepseek_kv(False), 1 << 30, path="old.gguf")
    new = spec_from_gguf_fields(_deepseek_kv(True), 1 << 30, path="new.gguf")
    s = Settings()
    assert rules.engine_bytes_per_token(old, s) == 61 * (24576 + 16384) * 2
    assert rules.engine_bytes_per_token(new, s) == 61 * 576 * 2
    assert rules.engine_bytes_per_token(old, s) / rules.engine_bytes_per_token(new, s) == pytest.approx(71.1, abs=0.1)


def test_a_tied_head_on_the_host_is_not_counted_twice():
    """Llama-3.2-1B ties its head to the embedding: with -ngl 0 the host holds the file's tensors once."""
    from vramdoctor.sources.catalog import read_catalog

    m = read_catalog("meta-llama/Llama-3.2-1B-Instruct")
    host_w, _ = get_engine("llamacpp").host_bytes(m, Settings(n_gpu_layers=0), 4096, 1)
    assert host_w == pytest.approx(m.weights.total_bytes, rel=1e-6)
