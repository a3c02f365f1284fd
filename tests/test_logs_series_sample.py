"""A long run of periodic statistics lines (an engine's throughput and KV usage line every few seconds, for days) is
read as a sample (`Scanner._sampled_out`): the first lines of its shape whole, then fewer, the latest always, and in
the log's order with every other figure. These check what the series are read for, by both reading paths."""

from __future__ import annotations

import importlib

from logcase import diag, run_of

from vramdoctor.logs.scan import SERIES_WHOLE, numbered

scan_module = importlib.import_module("vramdoctor.logs.scan")

HEAD = [
    "(APIServer pid=1) INFO 09-01 12:00:00 [api_server.py:1800] vLLM API server version 0.10.1.1",
    "(EngineCore_DP0 pid=2) INFO 09-01 12:00:05 [gpu_model_runner.py:2007] Model loading took 14.2488 GiB and 5.1 "
    "seconds",
    "(EngineCore_DP0 pid=2) INFO 09-01 12:00:09 [kv_cache_utils.py:849] GPU KV cache size: 93,872 tokens",
    "(APIServer pid=1) INFO:     Application startup complete.",
]


def _stats(i: int, running: int, usage: float, waiting: int = 0) -> str:
    return (f"(APIServer pid=1) INFO 09-01 {12 + i // 3600 % 12:02d}:{i // 60 % 60:02d}:{i % 60:02d} [loggers.py:123] "
            f"Engine 000: Avg prompt throughput: {100 + i % 7}.0 tokens/s, Avg generation throughput: {800 + i % 5}.0 "
            f"tokens/s, Running: {running} reqs, Waiting: {waiting} reqs, GPU KV cache usage: {usage}%, Prefix cache "
            f"hit rate: 42.4%")


SERIES = ("kv_usage_pct", "running_reqs", "prompt_tps", "generation_tps", "queue_reqs")


def test_the_latest_stats_line_is_read_before_a_later_failure_and_the_series_keep_step():
    n = 20 * SERIES_WHOLE
    lines = HEAD + [_stats(i, 30 + i % 5, round(10 + 50 * i / n, 1)) for i in range(n)]
    lines.append(_stats(n, 61, 97.5, waiting=12))  # (the last reading, the line just before the failure)
    lines += ["(EngineCore_DP0 pid=2) ERROR 09-02 12:00:00 [core.py:700] torch.OutOfMemoryError: CUDA out of memory. "
              "Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.10 GiB is free."]
    rep = diag("\n".join(lines))
    numbers = rep.to_dict()["runs"][0]["numbers"]
    assert numbers["kv_usage_pct"][-1] == 97.5 and numbers["running_reqs"][-1] == 61 and numbers["queue_reqs"][-1] == 12
    assert len({len(numbers[k]) for k in SERIES}) == 1  # (every figure of a line read, or none)
    usage = numbers["kv_usage_pct"]
    assert usage == sorted(usage)  # (in the log's order)
    assert run_of(rep).kind == "RUNTIME"


def test_a_week_of_stats_lines_is_read_as_a_sample(monkeypatch):
    """Lines of one shape past SERIES_WHOLE are read at a rate halving with each doubling of their count: 40 times
    SERIES_WHOLE lines give a few thousand figure reads, not one per figure per line."""
    reads = []
    figure = scan_module.Scanner._figure

    def counted(self, *args, **kwargs):
        reads.append(1)
        return figure(self, *args, **kwargs)

    monkeypatch.setattr(scan_module.Scanner, "_figure", counted)
    n = 40 * SERIES_WHOLE
    scan_module.scan(numbered(HEAD + [_stats(i, 30, 40.0) for i in range(n)]))
    assert len(reads) < 6 * (SERIES_WHOLE + SERIES_WHOLE // 2 * 7), len(reads)


def test_pool_usage_creep_over_a_long_run_is_still_found():
    """The KV pool's usage rising over thousands of stats lines at a steady number of running requests: a leak, read
    from the sample as from every line."""
    n = 12 * SERIES_WHOLE
    lines = ["[Bug]: GPU KV cache usage keeps increasing over days at the same load"] + HEAD + [
        _stats(i, 20 + i % 2, round(8 + 90 * i / n, 1)) for i in range(n)]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("LEAK", "kv-cache-usage-creep"), (run.kind, run.code)


def test_a_new_run_reads_the_last_stats_line_of_the_run_before():
    n = 6 * SERIES_WHOLE
    first = HEAD + [_stats(i, 30, 20.0) for i in range(n)] + [_stats(n, 33, 88.8)]
    rep = diag("\n".join(first + HEAD))
    numbers = rep.to_dict()["runs"][0]["numbers"]
    assert len(rep.runs) == 2 and numbers["kv_usage_pct"][-1] == 88.8 and numbers["running_reqs"][-1] == 33


def test_a_stats_line_within_a_persons_words_is_not_sampled_out():
    """Lines a person wrote are read as always (their figures may be the person's): only a program's lines are
    sampled. A person quoting the same reading many times still gives the last one read."""
    n = 3 * SERIES_WHOLE
    lines = HEAD + [f"I see Running: 30 reqs, Waiting: 0 reqs, GPU KV cache usage: {40 + i % 3}% again" for i in range(n)]
    rep = diag("\n".join(lines))
    numbers = rep.to_dict()["runs"][0]["numbers"]
    assert numbers.get("kv_usage_pct", [None])[-1] == 40 + (n - 1) % 3


def test_a_held_stats_line_is_read_before_a_later_line_of_the_same_figures():
    """A line of another shape giving the same figures (here SGLang's decode line after vLLM's stats lines) comes
    after the held line in each series: the latest reading stays the latest."""
    n = 4 * SERIES_WHOLE
    lines = HEAD + [_stats(i, 30, 20.0 + i % 2) for i in range(n)] + [
        "[2025-01-01 12:00:00] Decode batch. #running-req: 33, #token: 90000, token usage: 0.99, gen throughput "
        "(token/s): 800.00, #queue-req: 5"]
    numbers = diag("\n".join(lines)).to_dict()["runs"][0]["numbers"]
    assert numbers["kv_usage_pct"][-2:] == [20.0 + (n - 1) % 2, 99.0], numbers["kv_usage_pct"][-3:]
    assert numbers["running_reqs"][-1] == 33 and numbers["queue_reqs"][-1] == 5


def test_two_engines_taking_turns_are_both_sampled():
    """Data-parallel engines print their stats lines in turn (`Engine 000`, `Engine 001`): the sample's odd step reads
    both, not every other line of one."""
    n = 8 * SERIES_WHOLE
    lines = HEAD + [_stats(i, 30, 10.0).replace("Engine 000", "Engine 00%d" % (i % 2)).replace(
        "GPU KV cache usage: 10.0%", "GPU KV cache usage: %s%%" % ("10.0" if i % 2 == 0 else "80.0")) for i in range(n)]
    usage = diag("\n".join(lines)).to_dict()["runs"][0]["numbers"]["kv_usage_pct"]
    tail = usage[-40:-1]  # (the latest line is always read: the sample before it)
    assert 10.0 in tail and 80.0 in tail, tail
