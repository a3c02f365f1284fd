"""`vramdoctor probe` against real llama.cpp servers on the CPU (memory is the server's resident memory):
llama.cpp's own llama-server started by the probe with explicit -c, -np and --fit off, and llama-cpp-python's
server with its log. The engine's own figures (/props, the KV buffer lines), the baseline and the increments
must agree with the estimate and with what llama.cpp printed, and two context sizes must differ by the KV
cache between them. Marked `engine`."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from clirun import CliRunner
from engine_harness import free_port, llama_server_binary
from tinygguf import write_model
from vramdoctor.cli import run as cli_run
from vramdoctor.engines import Settings, get_engine
from vramdoctor.sources import load_model

pytestmark = pytest.mark.engine
MIB = 2**20


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """f32 weights of ~40 MiB and full multi-head attention: 8 KiB of f16 KV a token (4 layers x 2 x 512 x 2 B)."""
    d = tmp_path_factory.mktemp("probe-models")
    return write_model(d / "probe-llama.gguf", n_layer=4, n_embd=512, n_head=8, n_head_kv=8, n_ff=1024,
                       n_ctx_train=65536, dtype=np.float32)


def probe(tmp_path, serve: str, *extra: str) -> dict:
    port = free_port()
    res = CliRunner().invoke(cli_run, ["probe", "--url", f"http://127.0.0.1:{port}", "--serve", serve, "--json",
                                       "--rest", "2", "--tiers", "64,512", "--output-tiers", "8,32",
                                       "--results-dir", str(tmp_path), "--ready-timeout", "60", *extra])
    if res.exception is not None:
        raise res.exception
    assert res.exit_code == 0, res.stdout[-3000:] + res.stderr
    return json.loads(res.stdout)


def llama_server_cmd(model, n_ctx: int, n_seq: int = 1) -> str:
    return (f"{llama_server_binary()} -m {model} --port {{port}} --host 127.0.0.1 -c {n_ctx} -np {n_seq} "
            f"--fit off -t 2 --no-warmup -lv 4")


def kv_bytes(model, n_ctx: int, n_seq: int = 1) -> int:
    spec = load_model(str(model))
    s = Settings(max_model_len=n_ctx // n_seq, concurrency=n_seq, kv_cache_dtype="f16", kv_unified=False)
    return get_engine("llamacpp").allocation(spec, s)[0]


def test_llama_server_pool_baseline_and_estimate(model, tmp_path):
    r = probe(tmp_path, llama_server_cmd(model, 4096))
    assert r["engine"] == "llamacpp"
    # /props build_info: a build from the sdist has no git history ("b0-unknown"), which is said, not shown as a build
    assert r["engine_version"] or any("carries no version (b0-unknown)" in n for n in r["notes"])
    assert r["source"] == "psutil" and r["basis"] == "process"
    expected_kv = kv_bytes(model, 4096)
    assert expected_kv == 32 * MIB
    assert r["engine_kv_pool_tokens"] == 4096  # /props: one slot of 4096
    assert r["engine_kv_pool_bytes"] == expected_kv  # the log's KV buffer line, exactly the estimate's
    weights = load_model(str(model)).weights.total_bytes
    assert r["baseline_bytes"] >= weights + expected_kv  # both ledgers resident
    rows = {c["part"]: c for c in r["comparison"]}
    assert rows["kv_pool"]["difference_bytes"] == 0
    assert not rows["baseline"]["flagged"], rows["baseline"]  # within max(64 MiB, 10%)
    assert not rows["weights_plus_overhead"]["flagged"], rows["weights_plus_overhead"]
    # llama.cpp reserved its cache and compute buffers at start: each request adds little
    for t in r["tiers"]:
        assert t["error"] is None and t["completion_tokens"] == t["max_tokens"]  # ignore_eos: exact lengths
        assert t["increment_bytes"] < 32 * MIB, t
    assert r["increments_grow"] is False
    assert r["leak_suspected"] is False


def test_two_contexts_differ_by_the_kv_cache_between_them(model, tmp_path):
    small = probe(tmp_path, llama_server_cmd(model, 2048))
    big = probe(tmp_path, llama_server_cmd(model, 16384))
    want = kv_bytes(model, 16384) - kv_bytes(model, 2048)  # 112 MiB
    got = big["baseline_bytes"] - small["baseline_bytes"]
    assert abs(got - want) <= max(8 * MIB, 0.05 * want), (got / MIB, want / MIB)
    assert big["engine_kv_pool_bytes"] - small["engine_kv_pool_bytes"] == want


def test_several_slots_the_log_settles_the_cells(model, tmp_path):
    r = probe(tmp_path, llama_server_cmd(model, 8192, n_seq=4), "--tiers", "64")
    assert r["engine_kv_figures"]["slots"] == 4
    assert r["engine_kv_pool_tokens"] == 8192 and r["engine_kv_pool_bytes"] == kv_bytes(model, 8192, 4)


def test_llama_cpp_python_server_through_its_log(model, tmp_path):
    serve = (f"{sys.executable} -m llama_cpp.server --model {model} --port {{port}} --host 127.0.0.1 "
             f"--n_ctx 4096 --n_threads 2 --verbose true")
    r = probe(tmp_path, serve, "--tiers", "64")
    assert r["engine"] == "llama-cpp-python"
    assert r["engine_kv_pool_bytes"] == kv_bytes(model, 4096)  # only its log has the pool
    assert "log" in r["engine_kv_pool_source"]
    assert r["tiers"][0]["error"] is None


def test_an_8_bit_cache_is_sized_as_one(model, tmp_path):
    """-ctk q8_0 -ctv q8_0: the pool's bytes follow the cache type the command sets (not f16's)."""
    r = probe(tmp_path, llama_server_cmd(model, 4096) + " -ctk q8_0 -ctv q8_0 -fa on", "--tiers", "64")
    spec = load_model(str(model))
    s = Settings(max_model_len=4096, concurrency=1, kv_cache_dtype="q8_0", kv_unified=False)
    want = get_engine("llamacpp").allocation(spec, s)[0]
    assert r["engine_kv_pool_bytes"] == want and want < kv_bytes(model, 4096)  # 17 MiB, not 32


def test_a_server_of_its_own_by_url_with_a_relative_model_path(model, tmp_path):
    """A llama-server the user started in the model's folder with `-m probe-llama.gguf`: the path the server names
    is resolved in the server's folder, so the estimate is of the right file; with no log, the cache type is
    not shown, so no pool bytes are guessed, and the pool is not held against the estimate."""
    import subprocess

    from vramdoctor.server.launch import launch

    port = free_port()
    cmd = [llama_server_binary(), "-m", model.name, "--port", str(port), "--host", "127.0.0.1", "-c", "2048",
           "-np", "1", "--fit", "off", "-t", "2"]
    with launch(cmd, tmp_path / "own.log", cwd=str(model.parent)):
        res = CliRunner().invoke(cli_run, ["probe", "--url", f"http://127.0.0.1:{port}", "--json", "--rest", "1",
                                           "--tiers", "64", "--output-tiers", "8"])
    assert res.exit_code == 0, res.stderr
    r = json.loads(res.stdout)
    total = load_model(str(model)).weights.total_bytes  # (the estimate leaves the input embedding on the host)
    assert r["estimate"] is not None and abs(r["estimate"]["weights_bytes"] - total) < 0.02 * total
    assert r["engine_kv_pool_tokens"] == 2048 and r["engine_kv_pool_bytes"] is None
    assert "type is not shown" in r["engine_kv_pool_bytes_reason"]
    assert not any(c["part"] == "kv_pool" for c in r["comparison"])
    assert r["process"].startswith(str(r["pid"]))
    del subprocess
