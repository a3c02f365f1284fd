"""`vramdoctor logs`: which ledger broke, from a server's own log.

`diagnose(lines)` streams (line number, text) pairs through the scanner, splits server starts
into runs and diagnoses each; the result is data (`LogReport`) that one renderer prints as text
or JSON. No I/O here: `reader` gets the lines.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Iterable

from .advice import advise
from .diagnose import detect_engine, diagnose_run
from .scan import RunFacts, scan

KINDS = ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME", "LEAK", "NOT_OOM", "NONE")


@dataclass
class RunReport:
    """One server start. numbers: bytes / tokens / counts as printed; derived: what follows from them."""

    index: int
    first_line: int
    last_line: int
    engine: str
    kind: str
    code: str
    message: str
    inferred: bool
    phase_source: str
    evidence: list[dict]
    numbers: dict
    derived: dict
    advice: list[dict]
    model_check: list[str] = field(default_factory=list)


@dataclass
class LogReport:
    """The whole log: `runs` in order; `diagnosis` is the latest run's kind and code."""

    engine: str
    runs: list[RunReport]
    diagnosis: dict
    lines: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def derive(n: dict, kind: str = "") -> dict:
    """KV bytes per token from a pool's bytes and its tokens or blocks; the largest context it holds.
    For a KV cache that failed to allocate for n_ctx (llama.cpp), the bytes per token it asked for."""
    out: dict = {}
    failed = n.get("failed_alloc_bytes")
    if kind == "KV_CAPACITY" and n.get("n_ctx") and failed and not n.get("kv_pool_bytes"):
        out["kv_bytes_per_token"] = round(max(failed) / n["n_ctx"])
        out["kv_cache_requested_bytes"] = max(failed)
    pool = n.get("kv_pool_bytes")
    if isinstance(pool, list):
        pool = sum(pool) if pool else None
    if not pool and n.get("kv_k_bytes") and n.get("kv_v_bytes"):  # SGLang prints K and V apart
        pool = n["kv_k_bytes"] + n["kv_v_bytes"]
        out["kv_pool_bytes"] = pool
    tokens = n.get("kv_pool_tokens")
    if not tokens and n.get("num_gpu_blocks"):
        tokens = n["num_gpu_blocks"] * (n.get("block_size") or 16)
        out["kv_pool_tokens"] = tokens
    if pool and tokens and pool > 0:
        out["kv_bytes_per_token"] = round(pool / tokens)
    if tokens:
        out["largest_context_in_pool"] = tokens
    return out


def _flatten(n: dict) -> dict:
    """Single-valued lists become their value (llama.cpp prints one KV line per cache, summed)."""
    out = {}
    for k, v in n.items():
        if isinstance(v, list) and k in ("kv_pool_bytes", "kv_cells"):
            out[k] = sum(v)
        elif isinstance(v, list) and len(v) == 1 and k not in ("kv_usage_pct", "running_reqs", "failed_alloc_bytes"):
            out[k] = v[0]
        else:
            out[k] = v
    return out


def diagnose(lines: Iterable[tuple[int, str]], *, engine: str | None = None, model_check=None) -> LogReport:
    """Diagnose every run in `lines`. engine: force an engine instead of detecting it.
    model_check: optional callable(numbers, engine) -> list of mismatch notes (see `cli`)."""
    runs: list[RunFacts] = scan(lines)
    hits: dict[str, int] = {}
    for r in runs:
        for k, v in r.engine_hits.items():
            hits[k] = hits.get(k, 0) + v
    detected = detect_engine(hits)
    overall = engine or detected
    notes = []
    if engine and detected not in ("unknown", engine):
        notes.append(f"--engine {engine} was given, but the log reads like {detected}: the advice uses {engine}'s flags.")
    if detected == "unknown" and not engine:
        notes.append("No inference engine was recognised in this text: is it a server log? The generic "
                     "PyTorch and CUDA rules were applied.")
    reports = []
    for i, r in enumerate(runs):
        eng = engine or (detect_engine(r.engine_hits) if r.engine_hits else overall)
        if eng == "unknown":
            eng = overall
        d = diagnose_run(r, eng)
        numbers = _flatten(r.numbers)
        derived = derive(numbers, d.kind)
        reports.append(RunReport(
            index=i, first_line=r.first_line, last_line=r.last_line, engine=eng, kind=d.kind, code=d.code,
            message=d.message, inferred=d.inferred, phase_source=d.phase_source,
            evidence=[{"line": ln, "text": t} for ln, t in d.evidence],
            numbers=numbers, derived=derived,
            advice=advise(d.kind, eng, {**numbers, **derived}, d.code),
            model_check=model_check(numbers, derived, eng) if model_check else [],
        ))
    latest = reports[-1] if reports else None
    total = runs[-1].last_line if runs else 0
    return LogReport(engine=overall, runs=reports, lines=total, notes=notes,
                     diagnosis={"kind": latest.kind, "code": latest.code} if latest else {"kind": "NONE", "code": "empty"})
