"""From the readings to the ledgers: baseline, pool, weights plus overhead, increments, whether memory returns,
whether it creeps, and which ledger is the bottleneck. Pure: numbers in, numbers and words out.

The rules (README, "How probe decides"):
- baseline B: reading B, after the server answered and before any request; the engine's KV pool P (its own
  endpoint or its log); weights plus overhead W = B - P where P is known.
- increment of a tier: its peak minus B (never below 0).
- grows with tokens: over two tiers or more, the increment rises with the tier's tokens (prompt plus output)
  in a straight line (least squares, R^2 >= 0.9) by more than the noise (TOLERANCE below): then each request's
  cache and activations are what costs, at `slope` bytes per token.
- returns to baseline: the reading after the rest D is within TOLERANCE of B.
- leak suspected: while the server is idle after the last request, memory keeps rising (the last third of the
  rest above the first third by more than TOLERANCE, and D above the reading right after the last request); or
  every request leaves memory behind (each reading after a request above the one before by more than TOLERANCE,
  over three requests or more) that the rest does not give back, unless the engine keeps it by design (its
  `kept_after_request`); memory held once and flat (the allocator's cache) is not a leak.
- bottleneck, against the limit L (the devices' memory, or --limit): near the limit means the peak is at least
  NEAR_LIMIT of L. With P known and near the limit: the larger of W and P (+ the increments when the cache
  grows per request); with P unknown: "kv_cache" when the increments grow with tokens and their projection to
  the server's context reaches L, "weights" when the increments stay small and B alone is near L; otherwise
  "undetermined", with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

MIB = 2**20
#: readings closer than this are the same (allocator granularity, page cache, a sampler between two steps)
TOLERANCE_MIN_BYTES = 16 * MIB
TOLERANCE_FRACTION = 0.01
#: the peak at or above this share of the limit is "near the limit"
NEAR_LIMIT = 0.9
#: a straight line through the increments must explain this much of their variance
R2_MIN = 0.9


def _size(n: float) -> str:
    """Bytes in words: GiB from 1 GiB, else MiB (both labelled)."""
    return f"{n / 2**30:.2f} GiB" if abs(n) >= 2**30 else f"{n / MIB:.1f} MiB"


def tolerance(baseline_bytes: int | None) -> int:
    """The smallest difference that counts, bytes: max(16 MiB, 1% of the baseline)."""
    return max(TOLERANCE_MIN_BYTES, int(TOLERANCE_FRACTION * (baseline_bytes or 0)))


@dataclass(frozen=True, kw_only=True)
class Fit:
    """Increment against tokens: slope (bytes per token), intercept (bytes), r2, and whether it `grows`."""

    slope_bytes_per_token: float
    intercept_bytes: float
    r2: float
    grows: bool


def fit_increments(points: list[tuple[int, int]], tol: int) -> Fit | None:
    """Least squares of increment (bytes) on tokens over `points` [(tokens, increment_bytes)]; None with fewer
    than two distinct token counts."""
    if len({t for t, _ in points}) < 2:
        return None
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(b for _, b in points) / n
    sxx = sum((t - mx) ** 2 for t, _ in points)
    sxy = sum((t - mx) * (b - my) for t, b in points)
    syy = sum((b - my) ** 2 for _, b in points)
    slope = sxy / sxx if sxx else 0.0
    intercept = my - slope * mx
    r2 = (sxy * sxy) / (sxx * syy) if sxx and syy else 0.0
    span = max(t for t, _ in points) - min(t for t, _ in points)
    rise = slope * span
    grows = slope > 0 and r2 >= R2_MIN and rise > tol
    return Fit(slope_bytes_per_token=slope, intercept_bytes=intercept, r2=r2, grows=grows)


def creeping(rest: list[tuple[float, int]], after_last_bytes: int | None, rest_bytes: int | None, tol: int
             ) -> tuple[bool, str]:
    """Whether memory keeps rising while the server is idle (the rest's readings [(t_s, bytes)]), and why."""
    if len(rest) < 6 or rest_bytes is None:
        return False, "too few readings during the rest to see a trend"
    third = max(1, len(rest) // 3)
    first = sum(b for _, b in rest[:third]) / third
    last = sum(b for _, b in rest[-third:]) / third
    rise = last - first
    since = rest_bytes - after_last_bytes if after_last_bytes is not None else rise
    if rise > tol and since > tol:
        return True, (f"while idle after the last request, memory rose by {rise / MIB:.1f} MiB "
                      f"(the last third of the rest against its first third)")
    return False, f"flat while idle (within {tol / MIB:.0f} MiB)"


def kept_per_request(afters: list[int], baseline_bytes: int | None, rest_bytes: int | None, tol: int
                     ) -> tuple[bool, str]:
    """Whether each request leaves memory behind that the rest does not give back: over three requests or more,
    the reading after each is above the one after the request before by more than `tol`, and the reading after
    the rest is still at the last of them."""
    if len(afters) < 3 or baseline_bytes is None or rest_bytes is None:
        return False, ""
    steps = [b - a for a, b in zip([baseline_bytes] + afters[:-1], afters)]
    if all(d > tol for d in steps) and rest_bytes >= afters[-1] - tol:
        return True, (f"each request left memory behind that the rest did not give back: "
                      f"+{_size(sum(steps) / len(steps))} a request on average over {len(steps)} requests")
    return False, ""


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """bottleneck: "weights", "kv_cache" or "undetermined"; reason: in words, with the numbers; first_step:
    the setting to move first (a key of engines.interface.SETTINGS), or ""."""

    bottleneck: str
    reason: str
    first_step: str = ""


def bottleneck(*, baseline_bytes: int | None, peak_bytes: int | None, limit_bytes: int | None,
               pool_bytes: int | None, pre_reserves: bool, fit: Fit | None, context_tokens: int | None,
               max_increment_bytes: int | None) -> Verdict:
    """Which ledger limits the server (see the module's rules). Bytes are summed over the devices read."""
    if baseline_bytes is None or peak_bytes is None:
        return Verdict(bottleneck="undetermined", reason="the memory readings needed (B and the peaks) are missing")
    if not limit_bytes:
        return Verdict(bottleneck="undetermined", reason="the memory limit is not known (give --limit)")
    share = peak_bytes / limit_bytes
    near = share >= NEAR_LIMIT
    grows = fit is not None and fit.grows
    inc = max_increment_bytes or 0
    if pool_bytes is not None and pool_bytes <= baseline_bytes:
        weights = baseline_bytes - pool_bytes
        kv = pool_bytes + (inc if grows else 0)
        parts = (f"weights and overhead {_size(weights)}, KV cache {_size(kv)}"
                 + (" (its pool and the growth per request)" if grows else " (the pool the engine reserved)")
                 + f"; peak {_size(peak_bytes)} of {_size(limit_bytes)}")
        if not near:
            return Verdict(bottleneck="undetermined",
                           reason=f"neither ledger is at the limit: {parts} ({share:.0%})")
        if weights >= kv:
            return Verdict(bottleneck="weights", reason=f"the weights take the larger share: {parts}",
                           first_step="quantization")
        return Verdict(bottleneck="kv_cache", reason=f"the KV cache takes the larger share: {parts}",
                       first_step="max_model_len")
    if grows and fit is not None:
        per_token = fit.slope_bytes_per_token
        if context_tokens:
            projected = baseline_bytes + fit.intercept_bytes + per_token * context_tokens
            text = (f"each request's memory grows with its tokens ({per_token / 1024:.1f} KiB per token, "
                    f"R^2 {fit.r2:.2f}); at the server's context of {context_tokens:,} tokens that projects to "
                    f"{_size(projected)} of {_size(limit_bytes)}")
            if projected >= NEAR_LIMIT * limit_bytes or near:
                return Verdict(bottleneck="kv_cache", reason=text, first_step="max_model_len")
            return Verdict(bottleneck="undetermined", reason=text + ": nothing is at the limit")
        return Verdict(bottleneck="kv_cache" if near else "undetermined",
                       reason=f"each request's memory grows with its tokens ({per_token / 1024:.1f} KiB per token)"
                              + ("" if near else "; the server's context is not known, so no projection"),
                       first_step="max_model_len" if near else "")
    if near and not grows:
        what = "the pool is not known, so weights and cache cannot be split" if pre_reserves else ""
        if pre_reserves:
            return Verdict(bottleneck="undetermined",
                           reason=f"the baseline {_size(baseline_bytes)} is near the limit "
                                  f"{_size(limit_bytes)}, but {what}: give --log or --model")
        return Verdict(bottleneck="weights",
                       reason=f"the increments stay small (at most {_size(inc)}) while the baseline "
                              f"{_size(baseline_bytes)} already sits near the limit {_size(limit_bytes)}",
                       first_step="quantization")
    return Verdict(bottleneck="undetermined",
                   reason=f"nothing is near the limit: the peak is {share:.0%} of {_size(limit_bytes)}"
                          + ("" if pool_bytes is not None else ", and the KV pool is not known"))
