"""A background sampler: reads a memory source every `interval_s` (default 20 ms), keeps the peak exactly and a
bounded timeline, and opens windows (a request) whose own peak it keeps.

The timeline holds at most `max_points` samples: when full, neighbouring samples are merged two into one, the
larger value kept (a peak is never merged away), and the spacing doubles. Both bases are kept for every
sample (the process tree's bytes and the devices' whole use), so the probe can choose one afterwards.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from ..errors import SourceUnavailable
from .reading import MemorySource, Reading

DEFAULT_INTERVAL_S = 0.02
DEFAULT_MAX_POINTS = 20_000
BASES = ("process", "device")


@dataclass
class Point:
    """One timeline point: t_s (monotonic seconds) and bytes on each basis (None: not available)."""

    t_s: float
    process_bytes: int | None
    device_bytes: int | None

    def on(self, basis: str) -> int | None:
        return self.process_bytes if basis == "process" else self.device_bytes


def _max(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


@dataclass
class Window:
    """The peak within a stretch of time (one request): per basis, the largest reading and its time, and the
    per-device peaks (index -> bytes) on each basis."""

    label: str
    start_s: float
    end_s: float | None = None
    peak: dict[str, int | None] = field(default_factory=lambda: {b: None for b in BASES})
    peak_t_s: dict[str, float | None] = field(default_factory=lambda: {b: None for b in BASES})
    device_peak: dict[str, dict[int, int]] = field(default_factory=lambda: {b: {} for b in BASES})
    samples: int = 0

    def add(self, r: Reading) -> None:
        self.samples += 1
        for basis in BASES:
            v = r.measured(basis)
            if v is not None and (self.peak[basis] is None or v > self.peak[basis]):
                self.peak[basis], self.peak_t_s[basis] = v, r.t_s
            for d in r.devices:
                dv = d.process_bytes if basis == "process" else d.used_bytes
                if dv is not None and dv > self.device_peak[basis].get(d.index, -1):
                    self.device_peak[basis][d.index] = dv


class Sampler:
    """Reads `source` in a background thread every `interval_s` seconds.

    Use as a context manager (`with Sampler(src) as s: ... s.peak("process")`) or start()/stop(). `read_now()`
    takes a reading in the caller's thread (recorded like the others). `window(label)` returns a context
    manager whose Window holds the peak while it is open. Readings that fail are counted, with the last reason
    (`failures`, `last_failure`), and leave no point: an unavailable reading is never a zero."""

    def __init__(self, source: MemorySource, *, interval_s: float = DEFAULT_INTERVAL_S,
                 max_points: int = DEFAULT_MAX_POINTS) -> None:
        if not 0.001 <= interval_s <= 60:
            raise ValueError("interval_s must be between 0.001 and 60 seconds")
        self.source = source
        self.interval_s = interval_s
        self.max_points = max(16, max_points)
        self.points: list[Point] = []
        self.marks: list[tuple[float, str]] = []
        self.whole = Window(label="whole", start_s=time.monotonic())
        self.failures = 0
        self.last_failure = ""
        self.readings = 0
        self.last: Reading | None = None
        self.cpu_s = 0.0
        self._stride = 1  # samples per point since the last merge
        self._pending: Point | None = None
        self._pending_n = 0
        self._open: list[Window] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._first_t: float | None = None
        self._last_t: float | None = None

    # -- recording --------------------------------------------------------------------------------------
    def _record(self, r: Reading) -> None:
        with self._lock:
            self.readings += 1
            self.last = r
            self._first_t = r.t_s if self._first_t is None else self._first_t
            self._last_t = r.t_s
            self.whole.add(r)
            for w in self._open:
                w.add(r)
            p = Point(r.t_s, r.measured("process"), r.measured("device"))
            if self._pending is None:
                self._pending, self._pending_n = p, 1
            else:  # merging into the pending point: keep the larger of each basis, the first time
                self._pending.process_bytes = _max(self._pending.process_bytes, p.process_bytes)
                self._pending.device_bytes = _max(self._pending.device_bytes, p.device_bytes)
                self._pending_n += 1
            if self._pending_n >= self._stride:
                self.points.append(self._pending)
                self._pending = None
                if len(self.points) >= self.max_points:
                    self._halve()

    def _halve(self) -> None:
        merged = []
        for i in range(0, len(self.points) - 1, 2):
            a, b = self.points[i], self.points[i + 1]
            merged.append(Point(a.t_s, _max(a.process_bytes, b.process_bytes), _max(a.device_bytes, b.device_bytes)))
        if len(self.points) % 2:
            merged.append(self.points[-1])
        self.points = merged
        self._stride *= 2

    def read_now(self) -> Reading:
        """One reading now, in this thread. Raises SourceUnavailable (and counts the failure)."""
        try:
            r = self.source.read()
        except SourceUnavailable as e:
            with self._lock:
                self.failures += 1
                self.last_failure = e.reason
            raise
        self._record(r)
        return r

    def _loop(self) -> None:
        start_cpu = time.thread_time()
        next_t = time.monotonic()
        while not self._stop.is_set():
            try:
                self.read_now()
            except SourceUnavailable:
                pass
            except Exception as e:  # noqa: BLE001 - a library's own error must not kill the sampler silently
                with self._lock:
                    self.failures += 1
                    self.last_failure = f"{type(e).__name__}: {e}"
            next_t += self.interval_s
            delay = next_t - time.monotonic()
            if delay < 0:  # the source is slower than the interval: no catching up in a burst
                next_t = time.monotonic()
                delay = 0
            self._stop.wait(delay)
        self.cpu_s = time.thread_time() - start_cpu

    # -- control ----------------------------------------------------------------------------------------
    def start(self) -> "Sampler":
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="vramdoctor-sampler", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=max(5.0, 3 * self.interval_s))
        with self._lock:
            if self._pending is not None:
                self.points.append(self._pending)
                self._pending = None

    def __enter__(self) -> "Sampler":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def mark(self, label: str) -> float:
        t = time.monotonic()
        with self._lock:
            self.marks.append((t, label))
        return t

    class _WindowCtx:
        def __init__(self, sampler: "Sampler", label: str) -> None:
            self.s, self.w = sampler, Window(label=label, start_s=time.monotonic())

        def __enter__(self) -> Window:
            self.s.mark(self.w.label)
            with self.s._lock:
                self.s._open.append(self.w)
            try:
                self.s.read_now()
            except SourceUnavailable:
                pass
            return self.w

        def __exit__(self, *exc) -> None:
            try:
                self.s.read_now()
            except SourceUnavailable:
                pass
            with self.s._lock:
                self.s._open.remove(self.w)
            self.w.end_s = time.monotonic()

    def window(self, label: str) -> "_WindowCtx":
        """A context manager: the Window it yields keeps the peak of every reading taken while it is open (one
        reading is taken as it opens and one as it closes)."""
        return Sampler._WindowCtx(self, label)

    # -- results ----------------------------------------------------------------------------------------
    def peak(self, basis: str) -> int | None:
        return self.whole.peak[basis]

    def timeline(self, basis: str) -> list[tuple[float, int]]:
        """(t_s, bytes) of every kept point with a value on `basis`."""
        with self._lock:
            pts = list(self.points) + ([self._pending] if self._pending is not None else [])
        return [(p.t_s, v) for p in pts if (v := p.on(basis)) is not None]

    @property
    def achieved_interval_s(self) -> float | None:
        """The mean time between readings (a slow source, nvidia-smi, reads slower than asked)."""
        if self.readings < 2 or self._first_t is None or self._last_t is None:
            return None
        return (self._last_t - self._first_t) / (self.readings - 1)
