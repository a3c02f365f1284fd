"""`vramdoctor probe` against real server processes: the tests' own small OpenAI-compatible server
(tests/openai_server.py), measured through psutil. Each misbehaviour gets a clear message, the readings so far
kept, and a non-zero exit; a real leak is found, and no leak where there is none. Marked `live`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from clirun import CliRunner
from engine_harness import free_port
from vramdoctor.cli import run as cli_run

pytestmark = pytest.mark.live

SERVER = str(Path(__file__).parent / "openai_server.py")


class _Res:
    def __init__(self, r) -> None:
        self.code, self.out, self.err = r.exit_code, r.stdout, r.stderr
        if r.exception is not None:
            raise r.exception


def run(argv: list[str]) -> _Res:
    return _Res(CliRunner().invoke(cli_run, argv))
MIB = 2**20


def serve(mode: str = "normal", **kw) -> str:
    args = [sys.executable, SERVER, "--port", "{port}", "--mode", mode]
    for k, v in kw.items():
        args += [f"--{k.replace('_', '-')}", str(v)]
    return " ".join(args)


def probe(tmp_path, command: str | None, *extra: str, port: int | None = None):
    port = port or free_port()
    argv = ["probe", "--url", f"http://127.0.0.1:{port}", "--json", "--rest", "2", "--tiers", "128,1024",
            "--output-tiers", "16", "--results-dir", str(tmp_path), "--ready-timeout", "20", *extra]
    if command:
        argv += ["--serve", command]
    res = run(argv)
    return res, (json.loads(res.out) if res.out.strip() else None)


def test_a_normal_server_gives_every_reading(tmp_path):
    res, r = probe(tmp_path, serve(weights_mib=96, per_token_kib=64), "--tiers", "128,1024,4096")
    assert res.code == 0, res.err
    assert r["complete"] and r["error"] is None and r["source"] == "psutil" and r["basis"] == "process"
    assert r["baseline_bytes"] >= 96 * MIB  # its "weights" are resident
    t = r["tiers"]
    assert [x["prompt_tokens"] for x in t] == [128, 1024, 4096]  # exact, through /tokenize
    assert all(x["ttft_s"] and x["finish_reason"] == "length" and x["completion_tokens"] == 16 for x in t)
    # 64 KiB a prompt token held during the request: the increments follow, within the sampler's noise
    assert t[2]["increment_bytes"] == pytest.approx(4096 * 64 * 1024, rel=0.15)
    assert r["increments_grow"] and r["increment_slope_bytes_per_token"] == pytest.approx(64 * 1024, rel=0.15)
    assert r["returns_to_baseline"] and r["leak_suspected"] is False
    assert r["devices"][0]["name"] == "host" and r["rest_bytes"] is not None
    assert r["estimate"] is None and "give --model" in r["estimate_reason"]
    assert Path(r["log_path"]).is_file()


def test_a_leaking_server_is_found(tmp_path):
    res, r = probe(tmp_path, serve("leak", weights_mib=32, leak_mib=8), "--rest", "4")
    assert res.code == 0, res.err
    assert r["leak_suspected"] is True and "rose" in r["leak_reason"]
    assert r["returns_to_baseline"] is False


def test_a_server_that_is_not_running(tmp_path):
    res, r = probe(tmp_path, None)
    assert res.code == 2 and r["error"] and "nothing answers" in r["error"]
    assert "Traceback" not in res.err + res.out
    res2 = run(["probe", "--url", f"http://127.0.0.1:{free_port()}"])  # the human report
    assert res2.code == 2 and "nothing answers" in res2.out + res2.err and "Traceback" not in res2.err


def test_a_server_that_never_answers(tmp_path):
    res, r = probe(tmp_path, serve("hang"), "--ready-timeout", "3")
    assert res.code == 2 and "not ready after 3 s" in r["error"]


def test_a_server_that_dies_during_a_request_keeps_the_readings(tmp_path):
    res, r = probe(tmp_path, serve("die", weights_mib=48))
    assert res.code == 2 and "died during request 1" in r["error"]
    assert r["baseline_bytes"] >= 48 * MIB and r["tiers"][0]["peak_bytes"] is not None  # measured, not lost
    assert r["timeline"] and not r["complete"]


def test_a_server_that_drops_the_connection_on_its_way_down_died(tmp_path):
    """The connection dropped unanswered and the process exits 1.5 s later (an abort printing its backtrace): the
    server died during the request, not "its requests failed" while it lived."""
    res, r = probe(tmp_path, serve("die-slowly", weights_mib=48))
    assert res.code == 2 and "died during request 1" in r["error"], r["error"]
    assert r["baseline_bytes"] >= 48 * MIB


def test_a_server_that_answers_garbage_or_an_http_error(tmp_path):
    res, r = probe(tmp_path, serve("garbage"))
    assert res.code == 2 and "not with a model list" in r["error"]
    res, r = probe(tmp_path, serve("error"))
    assert res.code == 2 and r["tiers"][0]["error"].startswith("HTTP 500")  # every tier tried: the server lives
    assert all(t["error"] for t in r["tiers"]) and r["complete"] and r["rest_bytes"] is not None
    assert "internal failure on purpose" in r["tiers"][0]["error"] and "requests failed" in r["error"]


def test_a_loading_server_is_waited_for(tmp_path):
    res, r = probe(tmp_path, serve("loading", load_s=2))
    assert res.code == 0, res.err
    assert any("answered after" in n for n in r["notes"])


def test_an_already_running_server_found_by_its_port(tmp_path):
    from vramdoctor.server.launch import launch

    port = free_port()
    with launch(serve(weights_mib=40).replace("{port}", str(port)), tmp_path / "own.log") as server:
        res, r = probe(tmp_path, None, port=port)
        assert res.code == 0, res.err
        assert r["pid"] == server.pid and r["baseline_bytes"] >= 40 * MIB
        res, r = probe(tmp_path, None, "--pid", str(server.pid), port=port)
        assert res.code == 0 and r["pid"] == server.pid


def test_the_plot_and_the_text_report(tmp_path):
    port = free_port()
    png = tmp_path / "timeline.png"
    res = run(["probe", "--url", f"http://127.0.0.1:{port}", "--serve", serve(per_token_kib=16), "--rest", "1",
               "--tiers", "128,512", "--output-tiers", "8", "--results-dir", str(tmp_path), "--plot", str(png)])
    assert res.code == 0, res.err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "B  baseline" in res.out and "D  after 1 s of rest" in res.out and "bottleneck" in res.out


def test_no_server_is_left_behind(tmp_path):
    import psutil

    res, r = probe(tmp_path, serve(weights_mib=16))
    assert res.code == 0
    assert not psutil.pid_exists(r["pid"]) or psutil.Process(r["pid"]).status() == psutil.STATUS_ZOMBIE


# --- a new user's review: each kind of defect, on a real server process ---------------------------------------

def test_a_stream_that_trickles_is_bounded_by_the_request_timeout(tmp_path):
    import time

    t0 = time.monotonic()
    res, r = probe(tmp_path, serve("trickle"), "--request-timeout", "4", "--tiers", "128", "--rest", "0")
    assert time.monotonic() - t0 < 60 and res.code == 2
    assert "longer than 4 s" in r["tiers"][0]["error"]


def test_a_health_that_trickles_is_bounded_by_the_ready_timeout(tmp_path):
    import time

    t0 = time.monotonic()
    res, r = probe(tmp_path, serve("trickle-health"), "--ready-timeout", "5")
    assert time.monotonic() - t0 < 40 and res.code == 2 and "not ready after 5 s" in r["error"]


def test_a_tokenizer_that_cannot_be_true_gives_approximate_prompts(tmp_path):
    res, r = probe(tmp_path, serve("undercount"), "--tiers", "1024", "--rest", "0")
    assert res.code == 0, res.err
    t = r["tiers"][0]
    assert not t["prompt_exact"] and t["prompt_tokens"] < 100_000  # no endless doubling of the prompt


def test_a_url_that_is_not_an_inference_server_fails_at_once(tmp_path):
    import time

    t0 = time.monotonic()
    res, r = probe(tmp_path, serve("notopenai"), "--ready-timeout", "120")
    assert res.code == 2 and time.monotonic() - t0 < 30 and "not an OpenAI-compatible server" in r["error"]


def test_an_openai_base_url_is_taken_for_the_server(tmp_path):
    port = free_port()
    res, r = probe(tmp_path, serve(), "--tiers", "128", "--rest", "0", port=port)
    argv = ["probe", "--url", f"http://127.0.0.1:{port}/v1", "--json", "--rest", "0", "--tiers", "128",
            "--output-tiers", "8", "--results-dir", str(tmp_path), "--serve", serve()]
    r2 = json.loads(run(argv).out)
    assert r2["error"] is None and any("base_url" in n for n in r2["notes"])


def test_a_chatty_server_does_not_stall_the_probe(tmp_path):
    import time

    t0 = time.monotonic()
    res, r = probe(tmp_path, serve("chatty"), "--tiers", "128", "--rest", "1")
    assert res.code == 0, res.err
    assert time.monotonic() - t0 < 60


def test_another_server_on_the_port_is_never_measured_as_ours(tmp_path):
    from vramdoctor.server.launch import launch

    port = free_port()
    with launch(serve(weights_mib=24).replace("{port}", str(port)), tmp_path / "other.log"):
        import time

        time.sleep(1.0)
        res, r = probe(tmp_path, serve(weights_mib=16), port=port)
    assert res.code == 2 and ("another server holds the port" in r["error"] or "another process" in r["error"])
    assert r["baseline_bytes"] is None or r["baseline_bytes"] > 0  # never a dead server's 0


def test_memory_kept_after_every_request_is_a_suspected_leak(tmp_path):
    res, r = probe(tmp_path, serve("keep", weights_mib=16, leak_mib=40), "--tiers", "128,256,512", "--rest", "2")
    assert res.code == 0, res.err
    assert r["leak_suspected"] is True and "each request left memory behind" in r["leak_reason"]


def test_server_text_cannot_forge_a_line_of_the_report(tmp_path):
    forged = "tiny\nnote: FAKE LINE bottleneck weights"
    long_id = "m" * 300
    import shlex

    for ident in (forged, long_id):
        port = free_port()
        cmd = shlex.join([sys.executable, SERVER, "--port", "{port}", "--model-id", ident])
        res = run(["probe", "--url", f"http://127.0.0.1:{port}", "--rest", "0", "--tiers", "128", "--output-tiers",
                   "8", "--results-dir", str(tmp_path), "--serve", cmd])
        assert res.code == 0, res.err
        assert "\nnote: FAKE LINE" not in res.out and "Traceback" not in res.err


def test_a_server_that_ignores_sigterm_and_its_setsid_child_are_stopped(tmp_path):
    import psutil

    for mode in ("stubborn", "setsid-child"):
        res, r = probe(tmp_path, serve(mode, weights_mib=16), "--tiers", "128", "--rest", "0")
        assert res.code == 0, res.err
        alive = [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] and
                 any("bytearray(16 * 2**20)" in a for a in p.info["cmdline"])]
        assert not alive, alive
        assert not psutil.pid_exists(r["pid"]) or psutil.Process(r["pid"]).status() == psutil.STATUS_ZOMBIE


def _default_sigint() -> None:
    """In the child before exec: SIGINT as a terminal's Ctrl-C finds it. A shell starts a background job (`cmd &`
    without job control, as CI runners and `nohup ... &` do) with SIGINT ignored, the child inherits that, and Python
    then installs no KeyboardInterrupt handler: the probe would never see the Ctrl-C this test sends."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_second_ctrl_c_still_stops_the_server_and_prints_the_report(tmp_path):
    """SIGINT twice while the server ignores SIGTERM: no grace left, but the group is killed and the partial
    report printed; exit 130."""
    import signal
    import subprocess
    import time

    import psutil

    port = free_port()
    p = subprocess.Popen([sys.executable, "-m", "vramdoctor", "probe", "--url", f"http://127.0.0.1:{port}", "--serve",
                          serve("stubborn", weights_mib=16), "--rest", "30", "--tiers", "128", "--output-tiers", "8",
                          "--results-dir", str(tmp_path), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, preexec_fn=_default_sigint)
    # (the Ctrl-C must come in the 30 s rest, after the baseline: wait for the server to listen, however long a loaded
    # machine takes to start it, then for the baseline and the one short request)
    import socket

    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.2)
    time.sleep(5)
    kids = [c.pid for c in psutil.Process(p.pid).children(recursive=True)]
    p.send_signal(signal.SIGINT)
    time.sleep(1)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    r = json.loads(out)
    assert r["baseline_bytes"] and "interrupted" in r["error"]
    time.sleep(0.5)
    assert not [k for k in kids if psutil.pid_exists(k) and psutil.Process(k).status() != psutil.STATUS_ZOMBIE]
