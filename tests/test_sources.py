"""Model sources: local folders with safetensors, bare configs, GGUF, the catalog, the Hub offline;
and every kind of bad input, each a clear error naming the file and field."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from conftest import DATA
from tinygguf import write_model
from vramdoctor.errors import HubError, ModelSourceError, UnknownArchitectureError
from vramdoctor.sources import load_model
from vramdoctor.sources.catalog import model_ids
from vramdoctor.sources.safetensors_header import MAX_HEADER_BYTES, header_length, read_local

TINY_CFG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100,
            "torch_dtype": "bfloat16", "max_position_embeddings": 2048}


def folder(tmp_path: Path, shards: int = 2) -> Path:
    d = tmp_path / "model"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(TINY_CFG))
    for i in range(shards):
        save_file({f"w{i}": np.zeros((10, 7), dtype=np.float16), f"b{i}": np.zeros(3, dtype=np.float32)},
                  str(d / f"model-{i:05d}-of-{shards:05d}.safetensors"))
    return d


def test_folder_weights_are_exact_from_headers(tmp_path):
    spec = load_model(str(folder(tmp_path)))
    assert spec.weights.exact
    assert spec.weights.total_bytes == 2 * (10 * 7 * 2 + 3 * 4)
    assert spec.count("full") == 2


def test_folder_reads_only_the_header(tmp_path):
    """A 64 GiB sparse shard: reading its tensor data would exhaust this machine's memory."""
    d = tmp_path / "big"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(TINY_CFG))
    size = 64 * 2**30
    header = json.dumps({"w": {"dtype": "BF16", "shape": [size // 2], "data_offsets": [0, size]}}).encode()
    shard = d / "model.safetensors"
    with shard.open("wb") as f:
        f.write(struct.pack("<Q", len(header)) + header)
        f.truncate(8 + len(header) + size)
    assert load_model(str(d)).weights.total_bytes == size


def test_folder_index_total_size_without_shards(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(TINY_CFG))
    (d / "model.safetensors.index.json").write_text(json.dumps({"metadata": {"total_size": 123456}, "weight_map": {}}))
    spec = load_model(str(d))
    assert spec.weights.exact and spec.weights.total_bytes == 123456


def test_bare_config_is_estimated(tmp_path):
    p = tmp_path / "config.json"
    p.write_text(json.dumps(TINY_CFG))
    spec = load_model(str(p))
    assert not spec.weights.exact and "estimated" in spec.weights.source


def test_catalog_has_at_least_30_models_and_works_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert len(model_ids()) >= 30
    spec = load_model("qwen/qwen2.5-7b-instruct")  # case-insensitive
    assert spec.name == "Qwen/Qwen2.5-7B-Instruct"


def test_gguf_file(tmp_path):
    p = write_model(tmp_path / "m.gguf", n_layer=3, n_embd=64, n_head=4, n_head_kv=1)
    spec = load_model(str(p))
    assert spec.weights.exact and spec.count("full") == 3
    assert spec.layers[0].num_kv_heads == 1 and spec.layers[0].head_dim_k == 16
    assert spec.quantization == "F16"


def test_gguf_sliding_pattern(tmp_path):
    spec = load_model(str(write_model(tmp_path / "g.gguf", arch="gemma2", n_layer=4, sliding_window=64)))
    assert [layer.kind for layer in spec.layers] == ["sliding", "full", "sliding", "full"]


# --- bad input -------------------------------------------------------------------------------


def test_malformed_json(tmp_path):
    p = tmp_path / "config.json"
    p.write_text('{"num_hidden_layers": 2,')
    with pytest.raises(ModelSourceError, match=r"config.json: is not valid JSON"):
        load_model(str(p))


def test_non_utf8_json(tmp_path):
    p = tmp_path / "config.json"
    p.write_bytes(b'{"a": "\xff\xfe"}')
    with pytest.raises(ModelSourceError, match="not UTF-8"):
        load_model(str(p))


def test_missing_layout_fields_are_named(tmp_path):
    """A model type with no transformers default known here (llama's LlamaConfig defaults are taken, with a note:
    tests/test_review_estimate.py)."""
    p = tmp_path / "config.json"
    p.write_text(json.dumps({"model_type": "qwen2", "num_hidden_layers": 4}))
    with pytest.raises(UnknownArchitectureError) as e:
        load_model(str(p))
    assert e.value.missing == ["num_attention_heads"]
    assert str(p) in str(e.value)


def test_wrong_type_field_is_named(tmp_path):
    p = tmp_path / "config.json"
    p.write_text(json.dumps({**TINY_CFG, "num_key_value_heads": "two"}))
    with pytest.raises(ModelSourceError, match="num_key_value_heads"):
        load_model(str(p))


@pytest.mark.parametrize("n,size,ok", [(100, 108, True), (100, 107, False), (MAX_HEADER_BYTES, None, True),
                                        (MAX_HEADER_BYTES + 1, None, False)])
def test_header_length_boundaries(n, size, ok):
    prefix = struct.pack("<Q", n)
    if ok:
        assert header_length(prefix, path="x", file_size=size) == n
    else:
        with pytest.raises(ModelSourceError):
            header_length(prefix, path="x", file_size=size)


def test_safetensors_claiming_gigabytes(tmp_path):
    p = tmp_path / "bad.safetensors"
    p.write_bytes(struct.pack("<Q", 5 * 2**30) + b"{}")
    with pytest.raises(ModelSourceError, match="claims a 5368709120-byte header"):
        read_local(p)


def test_truncated_safetensors_in_a_folder(tmp_path):
    d = folder(tmp_path, shards=1)
    shard = next(d.glob("*.safetensors"))
    shard.write_bytes(shard.read_bytes()[:20])
    with pytest.raises(ModelSourceError, match="truncated"):
        load_model(str(d))


def test_truncated_gguf(tmp_path):
    p = write_model(tmp_path / "m.gguf")
    p.write_bytes(p.read_bytes()[:200])
    with pytest.raises(ModelSourceError, match="truncated or corrupt GGUF"):
        load_model(str(p))


def test_not_a_gguf(tmp_path):
    p = tmp_path / "x.gguf"
    p.write_bytes(b"\x00" * 64)
    with pytest.raises(ModelSourceError, match="not a GGUF file"):
        load_model(str(p))


def test_unknown_argument():
    with pytest.raises(ModelSourceError, match="neither an existing file"):
        load_model("no such thing")


def test_hub_offline_not_cached(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    import importlib

    import huggingface_hub.constants as c

    importlib.reload(c)
    try:
        with pytest.raises(HubError, match="not in the Hugging Face cache"):
            load_model("someone/not-cached-model")
    finally:
        monkeypatch.undo()
        importlib.reload(c)


def test_every_shared_config_parses_or_fails_cleanly():
    """No config in shared/data/configs may crash the parser: a spec or a ModelSourceError."""
    for p in sorted((DATA / "configs").glob("*.config.json")):
        try:
            load_model(str(p))
        except ModelSourceError:
            pass


def _cli(args, env):
    import os
    import subprocess
    import sys

    full = {**os.environ, **env}
    return subprocess.run([sys.executable, "-m", "vramdoctor", "estimate", *args, "--json"], capture_output=True,
                          text=True, timeout=120, env=full)


def test_hub_config_and_safetensors_headers_over_http(tmp_path):
    """Through a local stand-in for the Hub: config.json is downloaded and cached, the weights come
    from safetensors headers read with Range requests, and no tensor data is fetched."""
    from fake_hub import serve

    repo = folder(tmp_path, shards=1)
    (repo / next(repo.glob("*.safetensors")).name).rename(repo / "model.safetensors")
    server, url = serve("acme/tiny", repo)
    try:
        env = {"HF_ENDPOINT": url, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_DISABLE_TELEMETRY": "1"}
        r = _cli(["acme/tiny"], env)
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        assert d["weights_exact"] and d["weights_bytes"] == 10 * 7 * 2 + 3 * 4
        assert d["kv_bytes_per_token"] == 2 * 2 * 16 * 2 * 2
        gets = [h for h in server.hits if h.startswith("GET") and "model.safetensors" in h]
        assert gets and all("bytes=" in h for h in gets)  # header reads only
        # offline afterwards: the cached config.json still works; the weights fall back to an estimate
        off = _cli(["acme/tiny"], {**env, "HF_HUB_OFFLINE": "1"})
        assert off.returncode == 0, off.stderr
        assert json.loads(off.stdout)["weights_exact"] is False
    finally:
        server.shutdown()


def test_hub_unknown_repo_is_a_clear_error(tmp_path):
    from fake_hub import serve

    server, url = serve("acme/tiny", tmp_path)
    try:
        r = _cli(["acme/missing"], {"HF_ENDPOINT": url, "HF_HOME": str(tmp_path / "hf")})
        assert r.returncode == 2
        assert "acme/missing" in r.stderr and "Traceback" not in r.stderr
    finally:
        server.shutdown()
