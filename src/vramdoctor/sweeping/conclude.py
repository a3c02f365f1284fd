"""The sweep's conclusion, from its runs, in the issue's terms (README "How sweep concludes"). Pure.

- The wanted configuration (the model as given at the top of the context range) loads: nothing to change.
- Shortening the context makes it load (the context stage found a largest loading context below the top) and
  lowering the weight precision makes it load (a variant loads at the top): both ledgers are tight; the
  cheaper change is recommended: the one that keeps the larger share of what was asked (the context kept,
  found / wanted, against the weight bits kept, variant / model).
- Only lower precision works: the weights are the bottleneck; recommended: the least compressed variant that
  loads at the wanted context (compress the weights, keep the long context).
- Only a shorter context works: the KV cache is; recommended: the largest context found (shorten each request
  before giving up concurrency).
- The model as given loads at no context but a variant loads at the quantization stage's small context: the
  weights are the bottleneck; recommended: that variant at that context (the wanted one needs more).
- Nothing loads: undetermined (the weights may not fit at all: the quantization stage says whether any variant
  loads at the smallest context).
A run that loads but fails the stability recheck counts as not working.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What the runs showed, for the conclusion. wanted_ok: the model at the top of the range works (loads and
    passes the recheck); found: the largest working context of the context stage (None: none); variants: per
    variant (label, bits per weight or None, works at the smallest context, works at the top); small_len: the
    quantization stage's context."""

    wanted_len: int
    wanted_ok: bool | None
    small_len: int = 0
    found: int | None
    model_bits: float | None
    variants: tuple[tuple[str, float | None, bool | None, bool | None], ...] = ()


@dataclass(frozen=True, kw_only=True)
class Conclusion:
    """bottleneck: weights, kv_cache, both or undetermined; reason in words; change: what to run ("context",
    "variant:<label>", or ""), with the context to use."""

    bottleneck: str
    reason: str
    change: str = ""
    max_model_len: int | None = None


def conclude(o: Outcome) -> Conclusion:
    if o.wanted_ok:
        return Conclusion(bottleneck="undetermined", reason=f"the model loads and answers at {o.wanted_len:,} tokens "
                          "as asked: neither ledger stops it", change="as-is", max_model_len=o.wanted_len)
    shorter = o.found is not None and o.found < o.wanted_len
    at_top = [v for v in o.variants if v[3]]
    if shorter and at_top:
        label, bits, _, _ = max(at_top, key=lambda v: v[1] or 0)  # the least compressed that works at the top
        context_kept = o.found / o.wanted_len
        bits_kept = (bits / o.model_bits) if bits and o.model_bits else None
        if bits_kept is not None and bits_kept > context_kept:
            return Conclusion(bottleneck="both", change=f"variant:{label}", max_model_len=o.wanted_len,
                              reason=f"a shorter context ({o.found:,} of {o.wanted_len:,} tokens) and lower-precision "
                                     f"weights ({label}) both make it load: both ledgers are tight; the weights keep "
                                     f"{bits_kept:.0%} of their bits where the context would keep {context_kept:.0%}")
        return Conclusion(bottleneck="both", change="context", max_model_len=o.found,
                          reason=f"a shorter context ({o.found:,} of {o.wanted_len:,} tokens) and lower-precision "
                                 f"weights ({label}) both make it load: both ledgers are tight; the context keeps "
                                 f"{context_kept:.0%} of what was asked"
                                 + (f" where the weights would keep {bits_kept:.0%} of their bits" if bits_kept
                                    else " (the variants' bits are not known)"))
    if at_top:
        label, bits, _, _ = max(at_top, key=lambda v: v[1] or 0)
        return Conclusion(bottleneck="weights", change=f"variant:{label}", max_model_len=o.wanted_len,
                          reason="only lower-precision weights make it load: the weights ledger is the bottleneck; "
                                 f"compress the weights and keep the context of {o.wanted_len:,} tokens")
    if shorter:
        return Conclusion(bottleneck="kv_cache", change="context", max_model_len=o.found,
                          reason=f"only a shorter context makes it load ({o.found:,} of {o.wanted_len:,} tokens): the "
                                 "KV cache ledger is the bottleneck; shorten each request before giving up "
                                 "concurrency")
    small_ok = [v for v in o.variants if v[2]]
    if o.found is None and small_ok:  # the model as given loads at no context; a lower precision does
        label, bits, _, _ = max(small_ok, key=lambda v: v[1] or 0)
        return Conclusion(bottleneck="weights", change=f"variant:{label}", max_model_len=o.small_len,
                          reason=f"the model as given does not load at any context, {label} loads at "
                                 f"{o.small_len:,} tokens: the weights ledger is the bottleneck; at the wanted "
                                 f"{o.wanted_len:,} tokens even {label} does not load: more compression or more "
                                 f"memory for that")
    if o.found is None and not small_ok:
        return Conclusion(bottleneck="undetermined", reason="nothing loaded, not even at the smallest context"
                          + (" with any variant" if o.variants else "") + ": the weights may not fit at all "
                          "(try more compressed variants, or check the failures above)")
    return Conclusion(bottleneck="undetermined", reason="the runs do not settle it: "
                      + ("a variant loads at the smallest context but none at the wanted one"
                         if small_ok else "the context stage did not run to the end"))
