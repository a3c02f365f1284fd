"""The result of a probe: one object, rendered as text or JSON by probe/render.py (which computes nothing).

Every byte figure is an int of bytes (None: not measured, with the reason in `notes` or the field's own
`*_reason`); none is ever negative. Times are seconds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(kw_only=True)
class DeviceSummary:
    """One device the server uses: name, total (its memory), baseline (reading B), peak (over the whole probe),
    on the probe's basis; device_used_* are the device's whole use (every process) where the source gives it."""

    index: int
    name: str
    total_bytes: int | None
    baseline_bytes: int | None
    peak_bytes: int | None
    device_used_baseline_bytes: int | None = None
    device_used_peak_bytes: int | None = None
    host: str = ""


@dataclass(kw_only=True)
class Tier:
    """One request: its target prompt length and max_tokens, what the server counted, time to first token,
    the reading just before it, the peak during it, its increment (the peak minus the reading just before it:
    the request's own, never below 0), the peak above the baseline B (what it adds to what earlier requests left),
    and the reading after it."""

    target_prompt_tokens: int
    max_tokens: int
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_exact: bool = False
    ttft_s: float | None = None
    total_s: float | None = None
    finish_reason: str | None = None
    before_bytes: int | None = None
    peak_bytes: int | None = None
    increment_bytes: int | None = None
    above_baseline_bytes: int | None = None
    after_bytes: int | None = None
    usage_source: str | None = None
    error: str | None = None
    skipped: str | None = None


@dataclass(kw_only=True)
class Comparison:
    """One measured part beside its estimate: difference = measured - estimated (may be negative: it is a
    difference, not a byte count); flagged when |difference| exceeds tolerance_bytes."""

    part: str
    measured_bytes: int | None
    estimated_bytes: int | None
    difference_bytes: int | None
    tolerance_bytes: int
    flagged: bool
    note: str = ""


@dataclass(kw_only=True)
class ProbeResult:
    """Everything one probe measured and concluded (see the README's "probe --json" for each key)."""

    url: str
    source: str = ""
    basis: str = ""
    source_notes: list[str] = field(default_factory=list)
    interval_s: float | None = None
    achieved_interval_s: float | None = None
    samples: int = 0
    sampler_cpu_s: float | None = None
    engine: str | None = None
    engine_version: str | None = None
    served_model: str | None = None
    max_model_len: int | None = None
    pid: int | None = None
    process: str = ""
    reading_a_bytes: int | None = None
    baseline_bytes: int | None = None
    devices: list[DeviceSummary] = field(default_factory=list)
    engine_kv_pool_bytes: int | None = None
    engine_kv_pool_bytes_reason: str = ""
    engine_kv_pool_tokens: int | None = None
    engine_kv_pool_source: str = ""
    engine_kv_figures: dict = field(default_factory=dict)
    weights_plus_overhead_bytes: int | None = None
    tiers: list[Tier] = field(default_factory=list)
    rest_s: float | None = None
    rest_bytes: int | None = None
    peak_bytes: int | None = None
    limit_bytes: int | None = None
    returns_to_baseline: bool | None = None
    leak_suspected: bool | None = None
    leak_reason: str = ""
    increment_slope_bytes_per_token: float | None = None
    increment_r2: float | None = None
    increments_grow: bool | None = None
    bottleneck: str = "undetermined"
    bottleneck_reason: str = ""
    first_step: str = ""
    advice: list[str] = field(default_factory=list)
    estimate: dict | None = None
    estimate_reason: str = ""
    comparison: list[Comparison] = field(default_factory=list)
    allocator: list[dict] = field(default_factory=list)
    timeline: list[tuple[float, int]] = field(default_factory=list)
    marks: list[tuple[float, str]] = field(default_factory=list)
    log_path: str | None = None
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    complete: bool = False

    def to_dict(self) -> dict:
        return asdict(self)
