"""The probe's memory timeline as a PNG (matplotlib, the `plot` extra): the readings over time, the baseline,
readings A and D, and each request marked. Draws only what the result holds."""

from __future__ import annotations

from ..errors import UsageError
from .result import ProbeResult


def available() -> None:
    """Raises UsageError when matplotlib cannot be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("needs matplotlib.", option="--plot", hint="pip install 'vramdoctor[plot]'") from None


def plot(r: ProbeResult, path: str) -> None:
    """Write the timeline of `r` to `path` (PNG). Raises UsageError when matplotlib is not installed, OSError
    when the file cannot be written."""
    available()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    peak = max([b for _, b in r.timeline] + [r.peak_bytes or 0, 1])
    gib, unit = (2**30, "GiB") if peak >= 2**30 else (2**20, "MiB")
    fig, ax = plt.subplots(figsize=(10, 4.5))
    if r.timeline:
        ax.plot([t for t, _ in r.timeline], [b / gib for _, b in r.timeline], lw=1, label="memory")
    if r.baseline_bytes is not None:
        ax.axhline(r.baseline_bytes / gib, color="grey", ls="--", lw=0.8, label="B (baseline)")
    if r.engine_kv_pool_bytes is not None and r.weights_plus_overhead_bytes is not None:
        ax.axhline(r.weights_plus_overhead_bytes / gib, color="tab:green", ls=":", lw=0.8,
                   label="weights + overhead (B - pool)")
    shown_limit = bool(r.limit_bytes and peak >= 0.5 * r.limit_bytes)  # else it would flatten the curve
    if shown_limit:
        ax.axhline(r.limit_bytes / gib, color="tab:red", lw=0.8, label="limit")
    starts = {}
    for t, label in r.marks:
        ax.axvline(t, color="tab:orange" if label.startswith("request") else "black", lw=0.5, alpha=0.6)
        ax.annotate(label, (t, 1), xycoords=("data", "axes fraction"), rotation=90, va="top", fontsize=7)
        starts[label] = t
    if r.rest_bytes is not None and "D" in starts:
        ax.plot([starts["D"]], [r.rest_bytes / gib], "o", color="black", label="D (after the rest)")
    ax.set_xlabel("seconds")
    ax.set_ylabel(f"{unit} ({'server process tree' if r.basis == 'process' else 'whole devices'}, {r.source})")
    limit = f", limit {r.limit_bytes / 2**30:.1f} GiB" if r.limit_bytes and not shown_limit else ""
    ax.set_title(f"vramdoctor probe {r.url}: bottleneck {r.bottleneck}{limit}", fontsize=10)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
