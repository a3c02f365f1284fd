"""The sweep's conclusion, from its runs, in the issue's terms (README "How sweep concludes"). Pure.

- The wanted configuration (the model as given at the top of the context range) works: nothing to change.
- Shortening the context makes it work (the context stage found a largest working context below the top) and a
  lower weight precision makes it work (a weights variant works at the top): both ledgers are tight; the cheaper
  change is recommended: the one that keeps the larger share of what was asked (the context kept, found /
  wanted, against the weight bits kept, variant / model).
- An 8-bit KV cache (a variant of flags that sets the cache type) makes it work at the top: the KV cache is the
  bottleneck, and that is the change that keeps the context.
- Only lower precision works: the weights are the bottleneck; recommended: the least compressed variant that
  works at the wanted context (compress the weights, keep the long context).
- Only a shorter context works: the KV cache is; recommended: the largest context found (shorten each request
  before giving up concurrency).
- The model as given loads at no context but a variant loads at the quantization stage's small context: the
  weights are the bottleneck; recommended: that variant at that context (the wanted one needs more).
- The model as given was not tried (no context stage): undetermined, saying what did work.
- Nothing loads: undetermined (the weights may not fit at all: the quantization stage says whether any variant
  loads at the smallest context).
A run that loads but fails the stability recheck counts as not working.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What the runs showed, for the conclusion. wanted_ok: the model at the top of the range works (loads, serves
    and passes the recheck); wanted_loaded: it loaded and served there (even if its answer failed the recheck);
    found: the largest working context of the context stage (None: none); variants: per variant (label, bits per
    weight or None, works at the smallest context, works at the top, kind: "weights", "kv_cache" or "flags");
    small_len: the quantization stage's context; tried_base: the context stage ran; served: the settings of every
    run that worked."""

    wanted_len: int
    wanted_ok: bool | None
    found: int | None
    model_bits: float | None
    variants: tuple[tuple, ...] = ()
    small_len: int = 0
    wanted_loaded: bool | None = None
    tried_base: bool = True
    served: list = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Conclusion:
    """bottleneck: weights, kv_cache, both or undetermined; reason in words; change: what to run ("as-is",
    "context", "variant:<label>", or ""), with the context to use."""

    bottleneck: str
    reason: str
    change: str = ""
    max_model_len: int | None = None


def _kind(v: tuple) -> str:
    return v[4] if len(v) > 4 else "weights"


def conclude(o: Outcome) -> Conclusion:
    if not o.tried_base:
        worked = ", ".join(f"{s.get('variant') or 'the model'} at {s['max_model_len']:,}" for s in o.served[:4])
        return Conclusion(bottleneck="undetermined",
                          reason="the model as given was not tried (the context stage did not run), so no ledger can "
                                 "be named" + (f"; what worked: {worked}" if worked else "; nothing worked"))
    if o.wanted_ok:
        return Conclusion(bottleneck="undetermined", reason=f"the model loads and answers at {o.wanted_len:,} tokens "
                          "as asked: neither ledger stops it", change="as-is", max_model_len=o.wanted_len)
    shorter = o.found is not None and o.found < o.wanted_len
    recheck = (f"; at {o.wanted_len:,} tokens it loads and serves, but its answer fails the stability recheck"
               if o.wanted_loaded else "")
    kv_top = [v for v in o.variants if v[3] and _kind(v) == "kv_cache"]
    if kv_top:
        label = kv_top[0][0]
        return Conclusion(bottleneck="kv_cache", change=f"variant:{label}", max_model_len=o.wanted_len,
                          reason=f"an 8-bit KV cache ({label}) makes it work at {o.wanted_len:,} tokens"
                                 + (f" where the context had to come down to {o.found:,}" if shorter else "")
                                 + ": the KV cache ledger is the bottleneck, and this change keeps the context" + recheck)
    at_top = [v for v in o.variants if v[3] and _kind(v) == "weights"]
    if shorter and at_top:
        label, bits = max(at_top, key=lambda v: v[1] or 0)[:2]  # the least compressed that works at the top
        context_kept = o.found / o.wanted_len
        bits_kept = (bits / o.model_bits) if bits and o.model_bits else None
        if bits_kept is not None and bits_kept > context_kept:
            return Conclusion(bottleneck="both", change=f"variant:{label}", max_model_len=o.wanted_len,
                              reason=f"a shorter context ({o.found:,} of {o.wanted_len:,} tokens) and lower-precision "
                                     f"weights ({label}) both make it work: both ledgers are tight; the weights keep "
                                     f"{bits_kept:.0%} of their bits where the context would keep {context_kept:.0%}"
                                     + recheck)
        return Conclusion(bottleneck="both", change="context", max_model_len=o.found,
                          reason=f"a shorter context ({o.found:,} of {o.wanted_len:,} tokens) and lower-precision "
                                 f"weights ({label}) both make it work: both ledgers are tight; the context keeps "
                                 f"{context_kept:.0%} of what was asked"
                                 + (f" where the weights would keep {bits_kept:.0%} of their bits" if bits_kept
                                    else " (the variants' bits are not known)") + recheck)
    if at_top:
        label = max(at_top, key=lambda v: v[1] or 0)[0]
        return Conclusion(bottleneck="weights", change=f"variant:{label}", max_model_len=o.wanted_len,
                          reason="only lower-precision weights make it work: the weights ledger is the bottleneck; "
                                 f"compress the weights and keep the context of {o.wanted_len:,} tokens" + recheck)
    if shorter:
        return Conclusion(bottleneck="kv_cache", change="context", max_model_len=o.found,
                          reason=f"only a shorter context makes it work ({o.found:,} of {o.wanted_len:,} tokens): the "
                                 "KV cache ledger is the bottleneck; shorten each request before giving up "
                                 "concurrency" + recheck)
    small_ok = [v for v in o.variants if v[2] and _kind(v) == "weights"]
    if o.found is None and small_ok:  # the model as given works at no context; a lower precision does
        label = max(small_ok, key=lambda v: v[1] or 0)[0]
        return Conclusion(bottleneck="weights", change=f"variant:{label}", max_model_len=o.small_len,
                          reason=f"the model as given does not load at any context, {label} loads at "
                                 f"{o.small_len:,} tokens: the weights ledger is the bottleneck; at the wanted "
                                 f"{o.wanted_len:,} tokens even {label} does not load: more compression or more "
                                 f"memory for that")
    if o.found is None and not small_ok:
        return Conclusion(bottleneck="undetermined", reason="nothing worked, not even at the smallest context"
                          + (" with any variant" if o.variants else "") + ": the weights may not fit at all "
                          "(try more compressed variants, or check the failures above)")
    return Conclusion(bottleneck="undetermined", reason="the runs do not settle it" + recheck)
