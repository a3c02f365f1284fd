"""The probe's result as text (rich) and JSON. Computes nothing: every figure is the result's. Sizes are shown
in GiB (2^30 bytes) or MiB (2^20), labelled; outside text (URLs, model names, server replies) is escaped."""

from __future__ import annotations

import json

from ..safe import printable_line as printable
from .result import ProbeResult

GIB = 2**30
MIB = 2**20


def size(n: int | None) -> str:
    """Bytes as GiB (from 1 GiB) or MiB, labelled; '-' for None."""
    if n is None:
        return "-"
    return f"{n / GIB:.2f} GiB" if abs(n) >= GIB else f"{n / MIB:.1f} MiB"


def to_json(r: ProbeResult) -> str:
    d = r.to_dict()
    d["timeline"] = [[t, b] for t, b in d["timeline"]]
    d["marks"] = [[t, label] for t, label in d["marks"]]
    return json.dumps(d, indent=2, default=str)


def render(r: ProbeResult, console) -> None:
    p = console.print
    head = f"[bold]probe[/bold] {printable(r.url)}"
    if r.engine:
        head += f": {printable(r.engine)}" + (f" {printable(r.engine_version)}" if r.engine_version else "")
    if r.served_model:
        head += f", model {printable(r.served_model)}"
    p(head)
    if not r.samples and r.baseline_bytes is None:  # nothing was measured: say why, nothing else
        for n in r.notes:
            p(f"note: {printable(n)}")
        if r.log_path:
            p(f"server log: {printable(r.log_path)}")
        p(f"[red]error:[/red] {printable(r.error or 'nothing was measured')}")
        return
    verdict = {"weights": "the WEIGHTS ledger is the bottleneck", "kv_cache": "the KV CACHE ledger is the bottleneck",
               "undetermined": "bottleneck undetermined"}.get(r.bottleneck, r.bottleneck)
    p(f"[bold]{verdict}[/bold]: {printable(r.bottleneck_reason)}" if r.bottleneck_reason else f"[bold]{verdict}[/bold]")
    for a in r.advice:
        p(f"  try: {printable(a)}")
    src = f"source {printable(r.source or '-')} ({'the server process tree' if r.basis == 'process' else 'whole devices'})"
    if r.achieved_interval_s:
        src += f", a reading every {r.achieved_interval_s * 1000:.0f} ms ({r.samples} readings)"
    p(src)
    if r.process:
        p(f"  process {printable(r.process)}")
    for d in r.devices:
        p(f"  device {d.index} {printable(d.name)}: total {size(d.total_bytes)}, baseline {size(d.baseline_bytes)}, "
          f"peak {size(d.peak_bytes)}")
    if r.reading_a_bytes is not None:
        p(f"A  before the server started (devices' use): {size(r.reading_a_bytes)}")
    p(f"B  baseline, after load and before any request: {size(r.baseline_bytes)}")
    if r.engine_kv_pool_bytes is not None or r.engine_kv_pool_tokens is not None:
        tokens = f", {r.engine_kv_pool_tokens:,} tokens" if r.engine_kv_pool_tokens is not None else ""
        p(f"   the engine's KV pool: {size(r.engine_kv_pool_bytes)}{tokens} ({printable(r.engine_kv_pool_source)})")
        if r.weights_plus_overhead_bytes is not None:
            p(f"   weights + overhead (B minus the pool): {size(r.weights_plus_overhead_bytes)}")
    else:
        why = r.engine_kv_pool_bytes_reason or "the engine's endpoints and log gave no pool figure"
        p(f"   the engine's KV pool: not known ({printable(why)})")
    if r.tiers:
        p("   request (prompt + max_tokens)       ttft        peak   increment       after")
    for i, t in enumerate(r.tiers, 1):
        label = f"{t.target_prompt_tokens:>6} + {t.max_tokens:<5}"
        if t.skipped:
            p(f"   {i}. {label} skipped: {printable(t.skipped)}")
            continue
        got = (f"({t.prompt_tokens if t.prompt_tokens is not None else '?'}+"
               f"{t.completion_tokens if t.completion_tokens is not None else '?'})")
        ttft = f"{t.ttft_s:.3f} s" if t.ttft_s is not None else "-"
        p(f"   {i}. {label} {got:<13} {ttft:>8}  {size(t.peak_bytes):>10}  {size(t.increment_bytes):>10}  "
          f"{size(t.after_bytes):>10}" + (f"  [red]{printable(t.error)}[/red]" if t.error else ""))
    if r.increment_slope_bytes_per_token is not None:
        p(f"   increments against tokens: {r.increment_slope_bytes_per_token:,.0f} bytes a token (R^2 "
          f"{r.increment_r2:.2f}): {'they grow with the tokens' if r.increments_grow else 'flat'}")
    if r.rest_bytes is not None:
        back = {True: "back at the baseline", False: "not back at the baseline", None: "-"}[r.returns_to_baseline]
        p(f"D  after {r.rest_s:.0f} s of rest: {size(r.rest_bytes)} ({back}); leak suspected: "
          f"{'yes' if r.leak_suspected else 'no'} ({printable(r.leak_reason)})")
    if r.comparison:
        p("against the estimate" + (f" ({printable(r.estimate.get('model', ''))})" if r.estimate else "") + ":")
        for c in r.comparison:
            flag = "[yellow]differs[/yellow]" if c.flagged else "agrees"
            diff = "-" if c.difference_bytes is None else ("+" if c.difference_bytes >= 0 else "-") + size(
                abs(c.difference_bytes))
            p(f"   {c.part:<26} measured {size(c.measured_bytes):>10}  estimated {size(c.estimated_bytes):>10}  "
              f"{diff:>11}  {flag} (within {size(c.tolerance_bytes)})")
    elif r.estimate_reason:
        p(f"against the estimate: {printable(r.estimate_reason)}")
    for n in [*r.source_notes, *r.notes]:
        p(f"note: {printable(n)}")
    if r.log_path:
        p(f"server log: {printable(r.log_path)}")
    if r.error:
        p(f"[red]error:[/red] {printable(r.error)}")
