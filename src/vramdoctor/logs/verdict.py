"""A run's verdict as data: its kind, stable code, message, evidence and what the log lacks."""

from __future__ import annotations

from dataclasses import dataclass, field

KIND_OF_PHASE = {"WEIGHTS": "WEIGHTS", "KV": "KV_CAPACITY", "WARMUP": "WARMUP", "RUNTIME": "RUNTIME"}
OOM_KINDS = ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME")


@dataclass
class Diagnosis:
    """One run's verdict. evidence: (line number, text) pairs; inferred: no failure line states the
    phase, it follows from the run's progress and figures; oom: True (memory ran out), False (it did
    not) or None (the log cannot tell); candidates: the phases an UNDETERMINED failure could be in;
    missing: what the log lacks to settle it."""

    kind: str
    code: str
    message: str
    evidence: list[tuple[int, str]] = field(default_factory=list)
    phase_source: str = ""
    inferred: bool = False
    oom: bool | None = True
    candidates: list[str] = field(default_factory=list)
    missing: str = ""
