"""A streaming pass over log lines: splits server starts into runs and gathers, per run, the facts
a diagnosis needs (progress reached, failure lines with their surrounding frames, figures).

Memory is bounded whatever the log's length: a fixed window of recent lines, a capped list of
failures, and figures kept as latest values or capped series.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from . import signatures as sig
from .numbers import extract

WINDOW = 80  # lines kept before a failure: the traceback that leads to it
AFTER = 12  # lines kept after a failure: C++ backtraces and follow-up messages
MAX_FAILURES = 8
MAX_SERIES = 512
ENGINE_SAMPLE_LINES = 2000

# cheap substring tests before any regex: most lines of a long log are access logs and stats
_NUMBER_WORDS = ("took", "block", "kv", "size", "memory", "alloc", "capac", "token", "n_ctx", "usage", "utiliz",
                 "fraction", "avail", "free", "offload", "layers", "maximum", "max_", "context", "prompt",
                 "entry_count", "running", "total", "weight", "buffer", "reserved", "in use", "waiting", "queue",
                 "erased", "len", "modules", "partial", "graph", "engine size", "parallel", "n_seq_max", "-np",
                 "tp_size", "num_shard", "file type", "in use", "free memory")


@dataclass
class Failure:
    """One failure line with the lines around it. kind: 'oom', 'not_oom' or 'error' (cause unknown)."""

    line_no: int
    text: str
    kind: str
    code: str = ""
    before: list[tuple[int, str]] = field(default_factory=list)
    after: list[tuple[int, str]] = field(default_factory=list)
    progress: frozenset = frozenset()
    end_line: int = 0  # the last line of the same traceback or message


@dataclass
class RunFacts:
    """What one server start left in the log."""

    first_line: int
    last_line: int = 0
    progress: dict[str, int] = field(default_factory=dict)  # marker -> first line number
    failures: list[Failure] = field(default_factory=list)
    numbers: dict[str, object] = field(default_factory=dict)
    number_lines: dict[str, int] = field(default_factory=dict)
    engine_hits: dict[str, int] = field(default_factory=dict)
    lines: int = 0

    def note(self, key: str, value: object, mode: str, line_no: int) -> None:
        if mode == "list":
            series = self.numbers.setdefault(key, [])
            if key == "failed_alloc_bytes" and series and abs(series[-1] - value) <= 0.001 * max(series[-1], 1):
                series[-1] = value  # the same buffer, in MiB then in exact bytes: keep the exact one
                return
            if len(series) < MAX_SERIES:
                series.append(value)
            else:  # keep the shape of a long series: every other sample, then append
                del series[::2]
                series.append(value)
        elif mode == "first" and key in self.numbers:
            return
        else:
            self.numbers[key] = value
        self.number_lines[key] = line_no


_FAILURE_WORDS = ("memory", "alloc", "oom", "error", "exception", "fail", "insufficient", "traceback", "panic",
                  "terminate", "dumped", "fault", 'file "', "illegal", "nccl", "assert", "requires more",
                  "cache entries", "too large", "stored in kv", "is needed", "cuda", "check failed", "invalid argument",
                  "killed", "max_block_count", "cache_block_num", "can hold", "derived max_model_len", "free memory")


_ECHO = re.compile(r"Received request|\bprompt: ['\"]|prompt_token_ids|\bparams: SamplingParams|\"messages\": \[")
MAX_LINE = 16384  # longer lines (a prompt logged whole, a minified dump) are cut around their failure words


def _window(text: str) -> str:
    """The part of an over-long line that matters: around its first failure word, else its start."""
    low = text.lower()
    hits = [i for i in (low.find(w) for w in ("out of memory", "outofmemory", "error", "fail", "alloc")) if i >= 0]
    if not hits:
        return text[:MAX_LINE] + " [...]"
    i = min(hits)
    start = max(0, i - MAX_LINE // 4)
    return ("[...] " if start else "") + text[start:start + MAX_LINE] + " [...]"


def classify_line(text: str, low: str | None = None) -> tuple[str, str] | None:
    """('not_oom', code) | ('oom', '') | ('error', '') | None for an ordinary line. A bare Python
    frame counts as an error: a traceback pasted without its header or its exception line."""
    low = text.lower() if low is None else low
    if not any(w in low for w in _FAILURE_WORDS):
        return None
    for pattern, code in sig.NOT_OOM:
        if pattern.search(text):
            return "not_oom", code
    if sig.OOM.search(text):
        return "oom", ""
    if sig.OTHER_ERROR.search(text) or sig.PY_FRAME.search(text):
        return "error", ""
    return None


class Scanner:
    """Feed (line_no, text) pairs with `feed`, then `finish`; `runs` holds one RunFacts per server start."""

    def __init__(self) -> None:
        self.runs: list[RunFacts] = []
        self.run = RunFacts(first_line=1)
        self.recent: deque[tuple[int, str]] = deque(maxlen=WINDOW)
        self.pending: list[Failure] = []
        self.total_lines = 0

    def _new_run(self, line_no: int) -> None:
        self._close_pending()
        self.runs.append(self.run)
        self.run = RunFacts(first_line=line_no)
        self.recent.clear()

    def _close_pending(self) -> None:
        self.pending = []

    def _is_new_start(self, text: str, start: bool) -> bool:
        r = self.run
        if start:  # a start line after the run got anywhere (or failed) opens the next run
            return any(k in r.progress for k in ("weights_done", "kv_done", "warmup_done")) or bool(r.failures)
        # a weights-loaded line after this run already got further means the server restarted
        if ("kv_done" in r.progress or r.failures) and "weights_done" in r.progress:
            return bool(sig.RESTART_WEIGHTS.search(text))
        return False

    def feed(self, line_no: int, text: str) -> None:
        if len(text) > MAX_LINE:
            text = _window(text)
        if _ECHO.search(text):  # a logged request: its prompt is the user's text, not the server's
            self.total_lines = line_no
            self.run.lines += 1
            self.run.last_line = line_no
            self.run.progress.setdefault("requests", line_no)
            self.recent.append((line_no, text))
            return
        self.total_lines = line_no
        start = bool(sig.RUN_START.search(text))
        if self._is_new_start(text, start):
            self._new_run(line_no)
        r = self.run
        r.lines += 1
        r.last_line = line_no
        if start:
            r.progress.setdefault("start", line_no)
        if line_no <= ENGINE_SAMPLE_LINES or r.failures:
            for name, pattern in sig.ENGINES.items():
                if pattern.search(text):
                    r.engine_hits[name] = r.engine_hits.get(name, 0) + 1
        low = text.lower()
        for marker, pattern in sig.PROGRESS:
            if marker not in r.progress and any(w in low for w in sig.PROGRESS_WORDS[marker]) and pattern.search(text):
                r.progress[marker] = line_no
        if any(w in low for w in _NUMBER_WORDS):
            for key, value, mode in extract(text):
                r.note(key, value, mode, line_no)
        for f in self.pending:
            if len(f.after) < AFTER:
                f.after.append((line_no, text))
        self.pending = [f for f in self.pending if len(f.after) < AFTER]
        c = classify_line(text, low)
        if c and len(r.failures) < MAX_FAILURES:
            kind, code = c
            last = r.failures[-1] if r.failures else None
            # one failure, many lines: lines that continue the same traceback or message join it
            if last and line_no - max(last.end_line, last.line_no) <= 3:
                last.end_line = line_no
            if not (last and last.end_line == line_no and kind in ("error", last.kind)):
                f = Failure(line_no=line_no, text=text, kind=kind, code=code, before=list(self.recent),
                            progress=frozenset(r.progress))
                r.failures.append(f)
                self.pending.append(f)
            elif last and kind == "oom" and last.kind == "error":  # the cause arrives a line later
                last.kind, last.text, last.line_no = "oom", text, line_no
            elif last and kind == "not_oom" and last.kind != "not_oom":
                last.kind, last.code, last.text, last.line_no = "not_oom", code, text, line_no
        self.recent.append((line_no, text))

    def finish(self) -> list[RunFacts]:
        self.runs.append(self.run)
        return [r for r in self.runs if r.lines]


def scan(lines: Iterable[tuple[int, str]]) -> list[RunFacts]:
    """Scan numbered lines. A line holding several literal '\\n' escapes (a log pasted from JSON)
    is read as the lines it encodes, under its own line number."""
    s = Scanner()
    for line_no, text in lines:
        if text.count("\\n") >= 2 and not _ECHO.search(text):
            for part in text.split("\\n"):
                s.feed(line_no, part)
        else:
            s.feed(line_no, text)
    return s.finish()


def numbered(texts: Iterable[str]) -> Iterator[tuple[int, str]]:
    for i, t in enumerate(texts, 1):
        yield i, t.rstrip("\n")
