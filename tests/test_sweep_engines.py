"""`vramdoctor sweep` against real llama.cpp servers on the CPU under an address-space limit (--memory-limit,
RLIMIT_AS), which makes a large KV cache or large weights fail to allocate as they would on a full GPU. The limit
is calibrated from the servers' own peak virtual memory (/proc/PID/status VmPeak), so that the boundary falls
inside the range on any machine. Marked `engine`."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from clirun import CliRunner
from engine_harness import free_port, llama_server_binary
from tinygguf import write_model
from vramdoctor.cli import run as cli_run

pytestmark = pytest.mark.engine
MIB = 2**20
LO, HI, G = 1024, 16384, 1024


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("sweep-models")
    MODELS_DIR.append(str(d))
    small = write_model(d / "ctx.gguf", n_layer=4, n_embd=512, n_head=8, n_head_kv=8, n_ff=1024, n_ctx_train=65536,
                        dtype=np.float32)  # 8 KiB of f16 KV a token
    f16 = write_model(d / "big-f16.gguf", n_layer=4, n_embd=1024, n_head=16, n_head_kv=16, n_ff=2816,
                      n_ctx_train=65536, dtype=np.float16)
    q8 = write_model(d / "big-q8_0.gguf", n_layer=4, n_embd=1024, n_head=16, n_head_kv=16, n_ff=2816,
                     n_ctx_train=65536, dtype=np.float16, weight_type="Q8_0")
    return {"ctx": small, "f16": f16, "q8_0": q8}


def serves(model: Path, n_ctx: int, limit: int, tmp: Path) -> bool:
    """Whether llama-server loads `model` at -c n_ctx under an address-space limit and serves its requests, as a
    sweep run judges it."""
    from vramdoctor.sweeping.run import Config, Sweep, SweepOptions, _help_text

    s = Sweep(SweepOptions(model=str(model), engine="llamacpp", memory_limit_bytes=limit, results=str(tmp),
                           sets={"threads": "2"}, ready_timeout_s=60))
    s.help = _help_text(llama_server_binary())
    for _ in range(3):  # (a server too slow to be ready on a loaded machine says nothing about the limit: again)
        rec = s._run(Config(stage="context", variant="", max_model_len=n_ctx), None)
        if rec.get("failure_code") != "not-ready-in-time":
            break
    return bool(rec["serves"])


def smallest_limit(model: Path, n_ctx: int, tmp: Path) -> int:
    """The smallest address-space limit (to 8 MiB) at which `model` serves at -c n_ctx: the calibration that puts
    a boundary inside a range on any machine (the peak virtual size overstates it: glibc reserves arenas that it
    does without under a limit)."""
    lo, hi = 64 * MIB, 1024 * MIB
    assert serves(model, n_ctx, hi, tmp)
    while hi - lo > 8 * MIB:
        mid = (lo + hi) // 2
        if serves(model, n_ctx, mid, tmp):
            hi = mid
        else:
            lo = mid
    return hi


def sweep(tmp: Path, model: Path, *extra: str, name: str = "r", code: int = 0) -> dict:
    res = CliRunner().invoke(cli_run, ["sweep", str(model), "--engine", "llamacpp", "--results", str(tmp / name),
                                       "--json", "--set", "threads=2", "--ready-timeout", "60", *extra])
    if res.exception is not None:
        raise res.exception
    assert res.exit_code == code, res.stdout[-2000:] + res.stderr[-2000:]
    return json.loads(res.stdout)


MODELS_DIR: list[str] = []  # this session's model folder: servers of other users of the machine are not ours


def llama_servers() -> list[int]:
    """The llama-servers serving one of this test session's models (orphans of a killed sweep included)."""
    binary = os.path.basename(llama_server_binary())
    out = []
    for p in psutil.process_iter(["cmdline"]):
        try:
            argv = p.info["cmdline"] or []
            if argv and os.path.basename(argv[0]) == binary and any(d in a for d in MODELS_DIR for a in argv):
                out.append(p.pid)
        except psutil.Error:
            continue
    return out


@pytest.fixture(scope="module")
def limit(models, tmp_path_factory) -> int:
    """An address-space limit 64 MiB above what -c LO needs: the KV cache grows 8 MiB a step of 1024 tokens, so
    the boundary falls about eight steps in, well inside LO:HI."""
    return smallest_limit(models["ctx"], LO, tmp_path_factory.mktemp("calibrate")) + 64 * MIB


def test_bisection_finds_the_boundary_in_few_restarts(models, tmp_path, limit):
    r = sweep(tmp_path, models["ctx"], "--context", f"{LO}:{HI}", "--granularity", str(G), "--memory-limit",
              f"{limit}B", "--stages", "context")
    found = r["max_model_len_found"]
    assert LO <= found < HI
    # the true boundary, found independently: every step tried, one after another, the same way
    from vramdoctor.sweeping.run import Config, Sweep, SweepOptions, _help_text

    s = Sweep(SweepOptions(model=str(models["ctx"]), engine="llamacpp", memory_limit_bytes=limit,
                           results=str(tmp_path / "every"), sets={"threads": "2"}, ready_timeout_s=60))
    s.help = _help_text(llama_server_binary())
    serving = [c for c in range(LO, HI + 1, G) if s._run(Config(stage="context", variant="", max_model_len=c),
                                                          None)["serves"]]
    truth = max(serving)
    assert abs(found - truth) <= G, (found, truth, serving)
    assert r["restarts"] <= math.ceil(math.log2((HI - LO) / G)) + 2
    assert r["bottleneck"] == "kv_cache" and f"-c {r['max_model_len_working']}" in r["recommendation"]
    assert "--fit off" in r["recommendation"] and "-ngl" in r["recommendation"]
    failed = [x for x in r["runs"] if not x["serves"]]  # did not load, or died on its first requests
    assert failed and all(x["failure_kind"] in ("KV_CAPACITY", "WARMUP", "WEIGHTS", "RUNTIME", "UNDETERMINED")
                          and x["failure_message"] for x in failed), failed
    assert all(Path(x["log_path"]).is_file() for x in r["runs"])
    assert not llama_servers()


def test_two_devices_take_fewer_rounds(models, tmp_path, limit):
    r = sweep(tmp_path, models["ctx"], "--context", f"{LO}:{HI}", "--granularity", str(G), "--memory-limit",
              f"{limit}B", "--stages", "context", "--devices", "0,1")
    one = sweep(tmp_path, models["ctx"], "--context", f"{LO}:{HI}", "--granularity", str(G), "--memory-limit",
                f"{limit}B", "--stages", "context", name="one")
    rounds = lambda res: len({round(x["started_at"], 0) for x in res["runs"]})  # noqa: E731 - runs started together
    assert {x["device"] for x in r["runs"]} == {0, 1}
    assert abs(r["max_model_len_found"] - one["max_model_len_found"]) <= G
    assert len(r["runs"]) >= 2 and rounds(r) < len(one["runs"])


def test_quantization_stage_shows_the_weights(models, tmp_path):
    lim = smallest_limit(models["q8_0"], LO, tmp_path / "cal-q8") + 16 * MIB  # q8_0's 53 MiB fit with room;
    # f16's weights are 47 MiB more, past the 16 of room
    r = sweep(tmp_path, models["f16"], "--context", f"{LO}:{LO}", "--memory-limit", f"{lim}B",
              "--variants", str(models["q8_0"]), "--stages", "context,quantization")
    seen = [(x["stage"], x["settings"], x["loaded"], x.get("serves"), x["failure_code"], x.get("stability"))
            for x in r["runs"]]
    assert r["max_model_len_found"] is None, seen  # f16 does not load, not even at the smallest context
    q = [x for x in r["runs"] if x["stage"] == "quantization"]
    assert q[0]["serves"] and q[0]["settings"]["variant"] == str(models["q8_0"]), seen
    assert r["bottleneck"] == "weights" and str(models["q8_0"]) in r["recommendation"], (r["conclusion"], seen)


def test_killed_and_resumed(models, tmp_path, limit):
    """SIGKILL in the middle: the servers die with it, the finished runs stay, --resume completes."""
    results = tmp_path / "killed"
    cmd = [sys.executable, "-m", "vramdoctor", "sweep", str(models["ctx"]), "--engine", "llamacpp", "--context",
           f"{LO}:{HI}", "--memory-limit", f"{limit}B", "--stages", "context", "--results", str(results),
           "--set", "threads=2", "--json"]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = results / "sweep.sqlite"
    deadline = time.monotonic() + 120
    done = 0
    while time.monotonic() < deadline:
        if db.exists():
            try:
                done = sqlite3.connect(db).execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            except sqlite3.Error:
                done = 0
        if done >= 2:
            break
        time.sleep(0.2)
    assert done >= 2
    p.send_signal(signal.SIGKILL)
    p.wait()
    time.sleep(1.0)
    assert not llama_servers()  # the server in progress died with vramdoctor
    first = sqlite3.connect(db).execute("SELECT key FROM runs").fetchall()
    r = sweep(tmp_path, models["ctx"], "--context", f"{LO}:{HI}", "--memory-limit", f"{limit}B", "--stages",
              "context", "--resume", name="killed")
    keys = {json.dumps(x["settings"], sort_keys=True, separators=(",", ":")) for x in r["runs"]}
    assert {k for (k,) in first} <= keys  # every finished run is still there
    assert r["restarts_this_session"] == r["restarts"] - len(first)  # none repeated
    assert r["max_model_len_found"] is not None
    assert not llama_servers()


def test_failing_commands_are_recorded_and_the_sweep_goes_on(models, tmp_path, monkeypatch):
    r = sweep(tmp_path, models["ctx"], "--command", "/nonexistent/llama-server -m {model} -c {n_ctx} --port {port}",
              "--context", "1024:2048", "--stages", "context", name="missing", code=2)  # no run could start
    assert all(x["failure_code"] == "launch-failed" for x in r["runs"]) and r["max_model_len_found"] is None
    assert "could not run" in r["error"]
    quick = f"{sys.executable} -c 'import sys; sys.exit(3)' {{port}} {{n_ctx}}"
    r = sweep(tmp_path, models["ctx"], "--command", quick, "--context", "1024:2048", "--stages", "context", name="exit")
    assert r["runs"] and all(not x["loaded"] and "code 3" in (x["failure_message"] or "") for x in r["runs"])
    never = f"{sys.executable} -c 'import time; time.sleep(60)' {{port}} {{n_ctx}}"  # alive, never listening
    r = sweep(tmp_path, models["ctx"], "--command", never, "--context", "1024:1024", "--stages", "context",
              "--ready-timeout", "3", name="never", code=2)
    assert r["runs"] and not r["runs"][0]["loaded"] and "not ready" in r["runs"][0]["error"]
    assert r["runs"][0]["failure_code"] == "not-ready-in-time"
    import socket

    from vramdoctor.sweeping import run as sweep_run

    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    port = held.getsockname()[1]
    monkeypatch.setattr(sweep_run, "_free_port", lambda: port)  # the port vramdoctor picks is taken meanwhile
    try:
        res = CliRunner().invoke(cli_run, ["sweep", str(models["ctx"]), "--engine", "llamacpp", "--results",
                                           str(tmp_path / "taken"), "--json", "--set", "threads=2", "--ready-timeout",
                                           "20", "--context", "1024:2048", "--stages", "context"])
        r = json.loads(res.stdout)
    finally:
        held.close()
    assert r["runs"] and not r["runs"][0]["loaded"]
    assert not llama_servers()


def test_llama_cpp_python_preset(models, tmp_path):
    """The llama-cpp-python preset (`python -m llama_cpp.server --n_ctx ...`) with no limit: it loads and serves
    at the top of the range, so there is nothing to change."""
    r = CliRunner().invoke(cli_run, ["sweep", str(models["ctx"]), "--engine", "llama-cpp-python", "--context",
                                     "1024:2048", "--stages", "context", "--results", str(tmp_path / "lcp"), "--json",
                                     "--set", "threads=2", "--server-python", sys.executable])
    assert r.exception is None and r.exit_code == 0, r.stderr[-2000:]
    res = json.loads(r.stdout)
    assert res["max_model_len_found"] == 2048 and res["bottleneck"] == "undetermined"
    top = [x for x in res["runs"] if x["settings"]["max_model_len"] == 2048][0]
    assert top["command"][1:3] == ["-m", "llama_cpp.server"] and "--n_ctx" in top["command"]
    assert top["kv_pool_bytes"] == 2048 * 8 * 1024  # from its log's llama.cpp KV lines (verbose)
    assert "--n_ctx 2048" in res["recommendation"]


def test_a_context_beyond_the_trained_one_is_not_taken_for_served(tmp_path):
    """llama-server caps each slot at the model's trained context (n_ctx_train 4096 here) by itself: a run asked
    for more loads, but does not serve what was asked, so it does not count."""
    short = write_model(tmp_path / "short.gguf", n_layer=2, n_embd=256, n_head=4, n_head_kv=4, n_ff=512,
                        n_ctx_train=4096, dtype=np.float32)
    r = sweep(tmp_path, short, "--context", "1024:8192", "--granularity", "1024", "--stages", "context")
    capped = [x for x in r["runs"] if x["settings"]["max_model_len"] > 4096]
    assert capped and all(x["failure_code"] == "context-capped" and x["loaded"] and not x["serves"] for x in capped)
    assert r["max_model_len_found"] == 4096 and "-c 4096" in r["recommendation"]
