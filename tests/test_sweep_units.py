"""sweep's pure parts: the context search (its bound on restarts, fewer rounds with more devices, the largest
loadable value exactly), command templates, the stability recheck on answers the tests build, the conclusion in
each case of the issue, and the results database across an interruption."""

from __future__ import annotations

import math

import pytest

from vramdoctor.engines import get
from vramdoctor.errors import UsageError
from vramdoctor.probing.prompts import fixed_text
from vramdoctor.sweeping import template as tpl
from vramdoctor.sweeping.conclude import Outcome, conclude
from vramdoctor.sweeping.plan import Bisection, linear_restarts
from vramdoctor.sweeping.stability import Answer, check, repetition
from vramdoctor.sweeping.store import Store, run_key


def search(lo, hi, g, boundary, *, parallel=1, seed=None):
    b = Bisection(lo, hi, g, parallel=parallel, seed=seed)
    starts = rounds = 0
    while not b.done:
        pts = b.next_points()
        assert pts and len(pts) <= parallel
        rounds += 1
        for p in pts:
            starts += 1
            b.record(p, boundary is not None and p <= boundary)
    return b, starts, rounds


@pytest.mark.parametrize("lo,hi,g", [(1024, 65536, 1024), (512, 131072, 1024), (1000, 9000, 1000), (2048, 2048, 1024),
                                     (1024, 4096, 1024), (1, 100, 7)])
def test_bisection_finds_the_largest_loadable_value_within_its_bound(lo, hi, g):
    bound = math.ceil(math.log2(max(1, (hi - lo) / g))) + 2
    for boundary in [None, lo - 1, *range(lo, hi + 1, max(1, (hi - lo) // 53))]:
        for seed in (None, lo, hi, (lo + hi) // 2, boundary):
            b, starts, _ = search(lo, hi, g, boundary, seed=seed)
            truth = None if boundary is None or boundary < lo else max(c for c in b.candidates if c <= boundary)
            assert b.result == truth
            assert starts <= bound, (boundary, seed, starts, bound)


def test_more_devices_take_fewer_rounds():
    worst = {}
    for par in (1, 2, 4):
        worst[par] = max(search(1024, 65536, 1024, boundary, parallel=par)[2]
                         for boundary in range(1024, 65537, 1024))
    assert worst[1] > worst[2] > worst[4]
    assert worst[1] == math.ceil(math.log2(64 + 1))


def test_an_engine_hint_is_tried_next_and_a_flaky_failure_below_a_load_is_overruled():
    b = Bisection(1024, 32768, 1024)
    b.record(32768, False)
    b.hint(20000)  # vLLM: "estimated maximum model length is 20000"
    assert b.next_points() == [19456]
    b = Bisection(1024, 8192, 1024)
    b.record(4096, False)
    b.record(6144, True)  # a larger context loaded: the failure at 4096 was not memory
    assert b.good is not None and b.candidates[b.good] == 6144 and 4096 not in b.next_points()


def test_linear_step_down_counts():
    assert linear_restarts(1024, 8192, 1024, 8192) == 1
    assert linear_restarts(1024, 8192, 1024, 1024) == 8
    assert linear_restarts(1024, 8192, 1024, None) == 8


# --- templates --------------------------------------------------------------------------------------------

def test_templates_fill_and_refuse_unknown_placeholders():
    args = tpl.split("llama-server -m '{model}' -c {n_ctx} --port {port}")
    assert tpl.placeholders(args) == {"model", "n_ctx", "port"}
    assert tpl.fill(args, {"model": "/m/a b.gguf", "n_ctx": "4096", "port": "8080"}) == [
        "llama-server", "-m", "/m/a b.gguf", "-c", "4096", "--port", "8080"]
    with pytest.raises(UsageError, match=r"\{threads\}"):
        tpl.fill(tpl.split("x -t {threads} {port}"), {"port": "1"})
    with pytest.raises(UsageError, match="quotes"):
        tpl.split("x 'unbalanced")
    assert tpl.quoted(["a", "b c"]) == "a 'b c'"


def test_presets_pass_what_each_engine_needs():
    ll = get("llamacpp").preset
    help_new = "  -fit, --fit [on|off]   fit ...\n  -cram, --cache-ram N  ...\n"
    args = tpl.from_preset(ll, {"kv_cache_dtype": "q8_0"}, help_new)
    assert ["-c", "{n_ctx}"] == args[args.index("-c"):args.index("-c") + 2] and "-ngl" in args
    assert args[-4:] == ["--fit", "off", "--cache-ram", "0"] and "-ctk" in args
    old = tpl.from_preset(ll, {}, "  -c, --ctx-size N\n")  # a build before --fit: not passed
    assert "--fit" not in old and "-ctk" not in old
    vllm = get("vllm").preset
    assert vllm.env == {"VLLM_ENABLE_STARTUP_PLAN": "0"} and "--max-model-len" in vllm.command
    assert "--context-length" in get("sglang").preset.command
    assert "--n_ctx" in get("llama-cpp-python").preset.command


# --- the stability recheck ----------------------------------------------------------------------------------

SOURCE = fixed_text()


def normal(text: str = SOURCE[:1500]) -> Answer:
    return Answer(text=text, completion_tokens=300, finish_reason="length")


def test_stability_passes_a_normal_answer_and_flags_a_truncated_and_a_repeating_one():
    ref = normal()
    assert check(ref, None, SOURCE).ok  # the first is the reference
    assert check(normal(), ref, SOURCE).ok
    cut = Answer(text=SOURCE[:200], completion_tokens=40, finish_reason=None)
    r = check(cut, ref, SOURCE)
    assert not r.ok and {"cut_off", "shorter", "numbers_altered"} <= set(r.flags)
    loop = Answer(text="the harbour town of " * 80, completion_tokens=300, finish_reason="length")
    r = check(loop, ref, SOURCE)
    assert not r.ok and "repeating" in r.flags and repetition(loop.text) > 0.9


def test_stability_flags_altered_numbers_and_code_and_new_errors():
    ref = normal(SOURCE)
    changed = normal(SOURCE.replace("9,400", "9,480").replace("rate=650.0", "rate=65.0"))
    r = check(changed, ref, SOURCE)
    assert "numbers_altered" in r.flags and "9400" in r.flags["numbers_altered"]
    assert "code_altered" in r.flags
    err = Answer(text=SOURCE, completion_tokens=300, finish_reason="length",
                 new_error_lines=("ERROR 12-01 [engine.py:1] CUDA error: an illegal memory access",))
    assert "error" in check(err, ref, SOURCE).flags
    gone = Answer(text="", completion_tokens=None, finish_reason=None, error="the stream broke off",
                  alive_after=False)
    assert {"error", "exited"} <= set(check(gone, ref, SOURCE).flags)


# --- the conclusion ---------------------------------------------------------------------------------------

def test_conclusions_in_the_issues_terms():
    both_ctx = conclude(Outcome(wanted_len=32768, wanted_ok=False, found=28672, model_bits=16.0,
                                variants=(("m-q4.gguf", 4.5, True, True),)))
    assert both_ctx.bottleneck == "both" and both_ctx.change == "context"  # keeps 88% of the context, 28% of bits
    both_q = conclude(Outcome(wanted_len=32768, wanted_ok=False, found=4096, model_bits=16.0,
                              variants=(("m-q8.gguf", 8.5, True, True),)))
    assert both_q.bottleneck == "both" and both_q.change == "variant:m-q8.gguf"
    w = conclude(Outcome(wanted_len=32768, wanted_ok=False, found=None, model_bits=16.0,
                         variants=(("m-q8.gguf", 8.5, True, True), ("m-q4.gguf", 4.5, True, True))))
    assert w.bottleneck == "weights" and w.change == "variant:m-q8.gguf"  # the least compressed that works
    kv = conclude(Outcome(wanted_len=32768, wanted_ok=False, found=8192, model_bits=16.0,
                          variants=(("m-q8.gguf", 8.5, True, False),)))
    assert kv.bottleneck == "kv_cache" and kv.max_model_len == 8192
    ok = conclude(Outcome(wanted_len=32768, wanted_ok=True, found=32768, model_bits=16.0))
    assert ok.bottleneck == "undetermined" and ok.change == "as-is"
    small_only = conclude(Outcome(wanted_len=32768, wanted_ok=False, found=None, model_bits=16.0, small_len=1024,
                                  variants=(("m-q8.gguf", 8.5, True, False),)))
    assert small_only.bottleneck == "weights" and small_only.max_model_len == 1024
    kv = conclude(Outcome(wanted_len=32768, wanted_ok=False, found=8192, model_bits=16.0,
                          variants=(("-ctk q8_0 -ctv q8_0 -fa on", None, True, True, "kv_cache"),)))
    assert kv.bottleneck == "kv_cache" and kv.change == "variant:-ctk q8_0 -ctv q8_0 -fa on"
    assert kv.max_model_len == 32768  # the 8-bit cache keeps the whole context
    untried = conclude(Outcome(wanted_len=32768, wanted_ok=None, found=None, model_bits=16.0, tried_base=False,
                               variants=(("m-q8.gguf", 8.5, True, True),), served=[{"variant": "m-q8.gguf",
                                                                                     "max_model_len": 1024}]))
    assert untried.bottleneck == "undetermined" and "not tried" in untried.reason and not untried.change
    recheck = conclude(Outcome(wanted_len=32768, wanted_ok=False, wanted_loaded=True, found=8192, model_bits=16.0))
    assert recheck.bottleneck == "kv_cache" and "fails the stability recheck" in recheck.reason
    none = conclude(Outcome(wanted_len=32768, wanted_ok=False, found=None, model_bits=None,
                            variants=(("m-q4.gguf", None, False, None),)))
    assert none.bottleneck == "undetermined" and not none.change


# --- the results database ---------------------------------------------------------------------------------

def test_store_keeps_finished_runs_across_a_reopen(tmp_path):
    s = Store(tmp_path)
    s.save(run_key({"max_model_len": 1024, "variant": ""}), "context", {"loaded": True})
    s.running(999999, "k", '["/bin/true"]')
    s.close()
    again = Store(tmp_path)
    assert list(again.finished().values()) == [{"loaded": True}]
    assert again.stop_leftovers() == []  # PID 999999 is no process of ours: nothing is signalled
    assert again.db.execute("SELECT COUNT(*) FROM running").fetchone()[0] == 0
    assert run_key({"b": 1, "a": 2}) == run_key({"a": 2, "b": 1})


def test_a_server_recorded_late_is_still_found_by_its_start_time(tmp_path):
    """The time recorded is the one taken before the start: on a loaded machine the record may come seconds after the
    server's processes began, and they are still the killed sweep's leftovers."""
    import subprocess
    import time

    s = Store(tmp_path)
    before = time.time()
    p = subprocess.Popen(["sh", "-c", "sleep 30; true"], start_new_session=True)
    try:
        time.sleep(2.5)  # (the record comes late)
        s.running(p.pid, "k", '["sh"]', started_at=before)
        assert s.stop_leftovers() == [p.pid]
        assert p.wait(timeout=10) == -9
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_sweep_usage_errors(tmp_path):
    from clirun import CliRunner
    from vramdoctor.cli import run

    cases = [
        (["m.gguf", "--engine", "tgi"], "no preset"),
        (["m.gguf", "--engine", "llamacpp", "--context", "9:3"], "above"),
        (["m.gguf", "--engine", "llamacpp", "--context", "1024"], "MIN:MAX"),
        (["m.gguf", "--engine", "llamacpp", "--command", "llama-server -m {model} -c {n_ctx}"], "{port}"),
        (["m.gguf", "--engine", "llamacpp", "--command", "llama-server -m {model} --port {port}"], "context"),
        (["m.gguf", "--engine", "llamacpp", "--command", "s -c {n_ctx} --port {port} -t {threads}"], "{threads}"),
        (["m.gguf", "--engine", "llamacpp", "--stages", "context,speed"], "unknown stage"),
        (["m.gguf", "--engine", "llamacpp", "--devices", "a,b"], "--devices"),
        (["m.gguf", "--engine", "llamacpp", "--set", "novalue"], "NAME=VALUE"),
        (["m.gguf", "--engine", "llamacpp", "--knobs", "max_num_seqs="], "--knobs"),
        (["m.gguf", "--engine", "llamacpp", "--context", "0:2048"], "no range of contexts"),
        (["m.gguf", "--engine", "llamacpp", "--knobs", "max_num_seqs=abc"], "whole number"),
        (["m.gguf", "--engine", "llamacpp", "--knobs", "max_num_seqs=1.5"], "whole number"),
        (["m.gguf", "--engine", "vllm", "--knobs", "gpu_memory_utilization=1.5"], "fraction"),
        (["m.gguf", "--engine", "llamacpp", "--knobs", "foo=1,2"], "does not use 'foo'"),
        (["m.gguf", "--engine", "llama-cpp-python", "--knobs", "max_num_seqs=1,2"], "does not use 'max_num_seqs'"),
        (["m.gguf", "--engine", "llamacpp", "--set", "port=abc"], "vramdoctor's to fill"),
        (["m.gguf", "--engine", "llamacpp", "--set", "max_num_seqs=-1"], "whole number"),
        (["m.gguf", "--engine", "llamacpp", "--ready-timeout", "-1"], "--ready-timeout"),
        (["m.gguf", "--engine", "llamacpp", "--plot", "x.txt"], "picture"),
        (["m.gguf", "--engine", "llamacpp", "--command", "s -c {n_ctx} --port {port}", "--variants", "q8.gguf"],
         "does not take the model"),
    ]
    for argv, words in cases:
        res = CliRunner().invoke(run, ["sweep", *argv, "--results", str(tmp_path / "r")])
        assert res.exception is None and res.exit_code == 2, (argv, res.stdout, res.stderr)
        assert words in res.stdout + res.stderr, (argv, res.stderr)


# --- the recheck's prompt ----------------------------------------------------------------------------------

def test_a_recheck_cut_that_could_not_be_measured_is_never_kept(tmp_path):
    """Review round 3, defect 1: a server that died while counting (count -> None) left the uncut text cached,
    longer than the smallest context, for every later run. Now that run gets a cut of the budget in UTF-8 bytes
    (no tokenizer makes more than one token of a byte), and the next live server measures and keeps the cut."""
    from vramdoctor.sweeping.run import Sweep, SweepOptions
    from vramdoctor.sweeping.stability import INSTRUCTION

    s = Sweep(SweepOptions(model="m.gguf", engine="llamacpp", results=str(tmp_path / "r")))
    s._lo = 1024
    budget = s._recheck_budget()
    assert budget == 1024 - 128 - 16
    full = INSTRUCTION + fixed_text()
    per_byte = lambda t: len(t.encode())  # noqa: E731 - the tests' server: one token a byte
    for dead in (None, lambda t: None, lambda t: None if len(t) < len(full) else per_byte(t)):
        text = s._recheck_text(dead)
        assert s._recheck is None and full.startswith(text) and len(text.encode()) == budget
    calls = []
    live = lambda t: calls.append(t) or per_byte(t)  # noqa: E731
    text = s._recheck_text(live)
    assert s._recheck == text and per_byte(text) == budget and calls
    n = len(calls)
    assert s._recheck_text(lambda t: None) == text and len(calls) == n  # kept: measured once
    fits = Sweep(SweepOptions(model="m.gguf", engine="llamacpp", results=str(tmp_path / "r2")))
    fits._lo = 65536
    assert fits._recheck_text(per_byte) == full  # the whole text where it fits


# --- paths refused before anything starts ------------------------------------------------------------------

def test_model_paths_are_judged_by_what_each_engine_takes(tmp_path):
    """llama.cpp's servers take a local GGUF file only; vLLM and SGLang also a Hub id, so only what is clearly
    meant as a local path is refused there."""
    import os

    from vramdoctor.sweeping.run import model_path_problem as why

    f = tmp_path / "m.gguf"
    f.write_bytes(b"GGUF")
    locked = tmp_path / "locked.gguf"
    locked.write_bytes(b"GGUF")
    locked.chmod(0)
    for engine in ("llamacpp", "llama-cpp-python", "vllm", "sglang"):
        assert why(str(f), engine) is None
        for missing in (str(tmp_path / "none.gguf"), "./none", "../none", "~/none-at-all", "none.gguf",
                        "a/b/c", "/abs/none", "has space/x"):
            assert "no such model file" in why(missing, engine), (missing, engine)
        assert "not a regular file" in why("/dev/null", engine)
        if os.geteuid() != 0:  # root reads every file
            assert "cannot be read" in why(str(locked), engine)
    for hub in ("Qwen/Qwen2.5-7B-Instruct", "gpt2", "meta-llama/Llama-3.1-8B"):
        assert why(hub, "vllm") is None and why(hub, "sglang") is None
        assert "no such model file" in why(hub, "llamacpp")
    assert why(str(tmp_path), "vllm") is None and "is a folder" in why(str(tmp_path), "llamacpp")


def test_programs_that_cannot_be_started_are_named(tmp_path):
    from vramdoctor.sweeping.run import program_problem as why

    script = tmp_path / "server"
    script.write_text("#!/bin/sh\n")
    assert "not executable" in why(str(script))
    script.chmod(0o755)
    assert why(str(script)) is None and why("sh") is None
    assert "no such program" in why(str(tmp_path / "none"))
    assert "folder" in why(str(tmp_path))
    assert "not a program on PATH" in why("no-such-program-vramdoctor")


def test_a_missing_model_or_server_is_refused_before_anything_starts(tmp_path):
    """Review round 3, defect 6: each of these used to start (or try to start) every run of the sweep."""
    from clirun import CliRunner
    from vramdoctor.cli import run

    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    cases = [
        (["nosuch.gguf", "--engine", "llamacpp"], "MODEL: no such model file: 'nosuch.gguf'"),
        ([str(tmp_path), "--engine", "llama-cpp-python"], "is a folder, not a model file"),
        (["./nosuch", "--engine", "vllm"], "MODEL: no such model file or folder: './nosuch'"),
        ([str(model), "--engine", "llamacpp", "--server-bin", "/nonexistent"], "--server-bin: no such program"),
        ([str(model), "--engine", "llamacpp", "--server-bin", str(tmp_path)], "not a program but a folder"),
        ([str(model), "--engine", "llamacpp", "--server-bin", str(model)], "is not executable"),
        ([str(model), "--engine", "sglang", "--server-python", "/nonexistent/python"], "--server-python"),
        ([str(model), "--engine", "llamacpp", "--variants", "/nonexistent.gguf"], "--variants: no such model file"),
        (["m.gguf", "--engine", "llamacpp", "--command", "s -m {model} -c {n_ctx} --port {port}"], "MODEL"),
    ]
    for argv, words in cases:
        res = CliRunner().invoke(run, ["sweep", *argv, "--results", str(tmp_path / "r")])
        assert res.exception is None and res.exit_code == 2, (argv, res.stdout, res.stderr)
        assert words in res.stderr and "Traceback" not in res.stderr, (argv, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr  # one paragraph
        assert not (tmp_path / "r").exists()  # nothing started, not even the results folder


def test_a_server_under_a_memory_limit_gets_one_malloc_arena_unless_the_user_set_it(tmp_path, monkeypatch):
    """glibc's per-thread arenas reserve 64 MiB of address space each, as many as the threads' timing makes: under
    RLIMIT_AS the same settings would fit once and fail the next time."""
    import sys

    from vramdoctor.server.launch import launch

    def seen(name: str, limit: int | None) -> str:
        s = launch([sys.executable, "-c", "import os; print(os.environ.get('MALLOC_ARENA_MAX'))"], tmp_path / name,
                   memory_limit_bytes=limit)
        s.proc.wait(timeout=60)
        s.stop()
        return (tmp_path / name).read_text().strip()

    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert seen("limited.log", 2**32) == "1"
    assert seen("free.log", None) == "None"
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert seen("user.log", 2**32) == "4"
    monkeypatch.setenv("MALLOC_ARENA_MAX", "")  # (set empty: glibc's default, as if absent)
    assert seen("empty.log", 2**32) == "1"
