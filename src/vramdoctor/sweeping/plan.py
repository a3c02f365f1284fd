"""The context stage's search: the largest value in [lo, hi] at which the server loads, on a grid of
`granularity`, trying `parallel` points a round (one per device). Pure: it says which points to try and is told
what happened.

The candidates are lo, lo + g, lo + 2g, ... and hi. `good` is the largest candidate known to load, `bad` the
smallest known to fail; the candidates between them are unknown. A round tries the seed first (the estimate's
largest context, or a figure a failed start printed: vLLM's "estimated maximum model length is N"), else points
that split the unknown candidates into parallel + 1 equal parts. With one point a round this is bisection over the
n candidates: at most ceil(log2(n + 1)) starts, plus one for a seed, which is within ceil(log2((hi - lo) / g)) + 2.
Loading is taken as monotone in the context (a larger context never needs less memory).
"""

from __future__ import annotations


class Bisection:
    """Largest loadable value in [lo, hi] at `granularity`, `parallel` points a round."""

    def __init__(self, lo: int, hi: int, granularity: int, *, parallel: int = 1, seed: int | None = None) -> None:
        if lo < 1 or hi < lo:
            raise ValueError(f"the range {lo}:{hi} is empty")
        if granularity < 1:
            raise ValueError("the granularity must be at least 1")
        self.lo, self.hi, self.g = lo, hi, granularity
        self.parallel = max(1, parallel)
        steps = (hi - lo) // granularity
        self.candidates = [lo + i * granularity for i in range(steps + 1)]
        if self.candidates[-1] != hi:
            self.candidates.append(hi)
        self.good: int | None = None  # index of the largest candidate that loaded
        self.bad: int | None = None  # index of the smallest that failed
        self.hints: list[int] = []
        if seed is not None:
            self.hints.append(seed)
        self.tried: dict[int, bool] = {}  # candidate index -> loaded

    def _index(self, value: int) -> int:
        """The index of the largest candidate <= value (clipped to the range)."""
        value = min(max(value, self.lo), self.hi)
        if value == self.hi:
            return len(self.candidates) - 1
        i = (value - self.lo) // self.g
        return min(i, len(self.candidates) - 1)

    def _unknown(self) -> range:
        start = 0 if self.good is None else self.good + 1
        end = len(self.candidates) if self.bad is None else self.bad
        return range(start, end)

    @property
    def done(self) -> bool:
        return len(self._unknown()) == 0

    @property
    def result(self) -> int | None:
        """The largest loadable value found (None: not even lo loads), once done."""
        return None if self.good is None else self.candidates[self.good]

    def hint(self, value: int) -> None:
        """A figure from the engine (the longest context a failed start said would fit): tried next if unknown."""
        self.hints.append(value)

    def next_points(self) -> list[int]:
        """The values to try this round ([] when done). Each is tried once."""
        unknown = self._unknown()
        if not unknown:
            return []
        picks: list[int] = []
        while self.hints and len(picks) < self.parallel:
            i = self._index(self.hints.pop(0))
            if i in unknown and i not in picks:
                picks.append(i)
        k = self.parallel - len(picks)
        if k > 0:
            rest = [i for i in unknown if i not in picks]
            if rest:
                n = len(rest)
                for j in range(1, k + 1):  # split the unknown candidates into k + 1 parts
                    i = rest[min(n - 1, (j * n) // (k + 1))]
                    if i not in picks:
                        picks.append(i)
        return [self.candidates[i] for i in sorted(picks)]

    def record(self, value: int, loaded: bool) -> None:
        """What a try of `value` (one of next_points) gave. Where tries contradict monotonicity (a failure below
        a load), the load wins: a start that fails where a larger context loaded failed for another reason."""
        i = self._index(value)
        self.tried[i] = loaded
        loads = [j for j, ok in self.tried.items() if ok]
        self.good = max(loads) if loads else None
        fails = [j for j, ok in self.tried.items() if not ok and (self.good is None or j > self.good)]
        self.bad = min(fails) if fails else None


def linear_restarts(lo: int, hi: int, granularity: int, boundary: int | None) -> int:
    """The starts a linear step-down from hi takes to reach the largest loadable value (boundary; None: none
    loads, so every candidate is tried)."""
    n = 0
    v = hi
    while v >= lo:
        n += 1
        if boundary is not None and v <= boundary:
            return n
        v -= granularity
    return n
