"""Renders a LogReport as text (evidence lines highlighted, figures in GiB = 2**30) or JSON.
Computes nothing beyond formatting; `redact` is applied to every quoted line when asked."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Callable

from rich.console import Console

from ..safe import printable
from . import LogReport, RunReport
from .quiet import COPED

KIND_STYLE = {"WEIGHTS": "red", "KV_CAPACITY": "yellow", "WARMUP": "magenta", "RUNTIME": "cyan", "LEAK": "blue",
              "NOT_OOM": "green", "NONE": "green", "UNDETERMINED": "white"}
WHICH_LEDGER = {
    "WEIGHTS": "the weights ledger broke",
    "KV_CAPACITY": "the KV cache ledger broke",
    "WARMUP": "the overhead ledger (activations, CUDA graphs, compute buffers) broke",
    "RUNTIME": "the KV cache / activation ledger broke under load",
    "LEAK": "memory use kept rising",
    "NOT_OOM": "not a memory problem",
    "NONE": "no memory problem found",
    "UNDETERMINED": "the log does not show enough to name the ledger",
}


def _scrub(value, redact: Callable[[str], str]):
    """Every string in a value (figures, advice, notes), redacted; numbers left alone."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [_scrub(v, redact) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, redact) for k, v in value.items()}
    return value


def _redacted(report: LogReport, redact: Callable[[str], str]) -> LogReport:
    """The report with every string that came from the log redacted: quoted lines, figures (a model path holds a
    user name), advice, messages and notes."""
    runs = [replace(r, evidence=_scrub(r.evidence, redact), numbers=_scrub(r.numbers, redact),
                    advice=_scrub(r.advice, redact), message=redact(r.message), missing=redact(r.missing),
                    phase_source=redact(r.phase_source), model_check=_scrub(r.model_check, redact))
            for r in report.runs]
    return replace(report, runs=runs, notes=_scrub(report.notes, redact))


def to_json(report: LogReport, redact: Callable[[str], str] | None = None) -> str:
    if redact:
        report = _redacted(report, redact)
    return json.dumps(report.to_dict(), indent=2, default=str)


def _fmt(key: str, v: object) -> str:
    if isinstance(v, dict):
        unit = "_bytes" if "_bytes" in key else ""
        return "{" + ", ".join(f"{name}: {_fmt(unit, x)}" for name, x in list(v.items())[:12]) + "}"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v  # (the line it joins is made printable once, as a whole: escaped here too, `[` showed as `\[`)
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(key, x) for x in v[:12]) + (", ..." if len(v) > 12 else "") + "]"
    if key.endswith("_bytes") and isinstance(v, (int, float)):
        return f"{v / 2**30:.2f} GiB" if abs(v) >= 2**27 else f"{v / 2**20:.2f} MiB"
    if isinstance(v, int):
        return str(v) if key.endswith(("pids", "ranks")) else f"{v:,}"
    return str(v)


_MEMORY_WORDS = re.compile(r"out of memory|outofmemory|insufficient|not enough", re.I)
_FAILURE_WORDS = re.compile(r"out of memory|outofmemory|error|fail|alloc|insufficient|not enough", re.I)


def _quote(text: str, width: int = 220) -> str:
    """A quoted line cut to `width` characters, around its first out-of-memory words (else its first failure words)
    when they lie past the start: a JSON log line's `"level": "ERROR"` near its start is no reason to show the start."""
    if len(text) <= width:
        return text
    m = _MEMORY_WORDS.search(text) or _FAILURE_WORDS.search(text)
    if not m or m.end() <= width:
        return text[:width]
    start = max(0, m.start() - width // 4)
    return "[...] " + text[start:start + width]


def _run(console: Console, r: RunReport, total: int, detailed: bool) -> None:
    style = KIND_STYLE.get(r.kind, "white")
    where = f", {printable(r.program)}" if r.program else ""  # (one program's lines of several: `streams`)
    head = f"run {r.index + 1}/{total} (lines {r.first_line}-{r.last_line}, {r.engine}{where}): "
    full = r.kind == "NONE" and r.code in COPED  # (the engine coped: `quiet.pressure`)
    ledger = "no failure; the KV cache pool was full under load" if full else WHICH_LEDGER.get(r.kind, "")
    console.print(f"{head}[bold {style}]{r.kind}[/] [dim]{r.code}[/] - {ledger}"
                  + (" [dim](inferred)[/]" if r.inferred else ""))
    if not detailed:
        return
    console.print(f"  {printable(r.message)}")
    if r.phase_source:
        console.print(f"  [dim]phase read from {printable(r.phase_source)}[/]")
    if r.candidates:
        console.print(f"  could be: {', '.join(r.candidates)}")
    if r.missing:
        console.print(f"  [yellow]missing from the log:[/] {printable(r.missing)}")
    for e in r.evidence:
        console.print(f"  [bold {style}]{e['line']:>6} |[/] {printable(_quote(e['text']))}")
    shown = {k: v for k, v in r.numbers.items() if k not in ("kv_usage_pct", "running_reqs", "queue_reqs")
             and not k.startswith("_")}
    for key in ("kv_usage_pct", "running_reqs"):
        if key in r.numbers:
            shown[key] = r.numbers[key]
    if shown:
        console.print("  figures printed: " + printable("; ".join(f"{k}={_fmt(k, v)}" for k, v in shown.items())))
    if r.derived:
        console.print("  follows from them: " + printable("; ".join(f"{k}={_fmt(k, v)}" for k, v in r.derived.items())))
    for note in r.model_check:
        console.print(f"  [yellow]model check:[/] {printable(note)}")
    for i, a in enumerate(r.advice, 1):
        flags = f"[bold]{printable(a['flags'])}[/] - " if a["flags"] else ""
        console.print(f"  {i}. {printable(a['change'])}: {flags}{printable(a['why'])}")


def render(report: LogReport, console: Console, path: str, redact: Callable[[str], str] | None = None) -> None:
    if redact:
        report = _redacted(report, redact)
    console.print(f"[bold]{printable(path)}[/]: {report.lines:,} lines, engine [bold]{report.engine}[/], "
                  f"{len(report.runs)} run(s)")
    for r in report.runs:
        _run(console, r, len(report.runs), detailed=(r is report.runs[-1] or r.kind not in ("NONE",)))
    for note in report.notes:
        console.print(f"[yellow]note:[/] {printable(note)}")
    d = report.diagnosis
    which = f"run {d['run']}" if d.get("run") else "no run"
    console.print(f"diagnosis ({which}): [bold {KIND_STYLE.get(d['kind'], 'white')}]{d['kind']}[/] {d['code']}")
