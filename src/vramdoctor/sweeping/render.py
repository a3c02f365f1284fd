"""The sweep's result as a table and its conclusion (rich), as JSON, and as a plot (matplotlib). Computes nothing
but layout; outside text (commands, failure messages) is escaped."""

from __future__ import annotations

import json

from ..safe import printable_line as printable

MIB = 2**20


def _size(n) -> str:
    if n is None:
        return "-"
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / MIB:.1f} MiB"


def _settings(rec: dict) -> str:
    s = dict(rec["settings"])
    v = s.pop("variant", "")
    parts = [f"{k}={val}" for k, val in s.items()]
    if v:
        parts.append(v.rsplit("/", 1)[-1] if not v.startswith("-") else v)
    return " ".join(parts)


def to_json(result: dict) -> str:
    return json.dumps(result, indent=2, default=str)


def render(result: dict, console) -> None:
    p = console.print
    lo, hi = result["context_range"]
    p(f"[bold]sweep[/bold] {printable(result['model'])} ({printable(result['engine'])}), context {lo:,}:{hi:,} by "
      f"{result['granularity']:,}; results in {printable(result['results'])}")
    p(f"{'#':>3}  {'stage':<12} {'settings':<44} {'loaded':<6} {'failure':<40} {'ready':>7} {'ttft':>7} "
      f"{'peak':>10} {'KV pool':>10}  stability")
    for i, r in enumerate(result["runs"], 1):
        fail = " ".join(x for x in (r.get("failure_kind"), r.get("failure_code")) if x) or "-"
        st = r.get("stability")
        stab = "-" if not st else ("ok" if st["ok"] else "FAILS: " + ", ".join(st["flags"]))
        ready = f"{r['ready_s']:.1f} s" if r.get("ready_s") is not None else "-"
        ttft = f"{r['ttft_s']:.3f}" if r.get("ttft_s") is not None else "-"
        loaded = "yes" if r.get("serves", r["loaded"]) else ("died" if r["loaded"] else "no")
        p(f"{i:>3}  {r['stage']:<12} {printable(_settings(r))[:44]:<44} {loaded:<6} "
          f"{printable(fail)[:40]:<40} {ready:>7} {ttft:>7} {_size(r.get('peak_bytes')):>10} "
          f"{_size(r.get('kv_pool_bytes')):>10}  {printable(stab)}")
    found = result.get("max_model_len_found")
    if found is not None or "context" in [r["stage"] for r in result["runs"]]:
        working = result.get("max_model_len_working")
        p(f"largest max_model_len that loads and serves: {found:,}" if found else
          "largest max_model_len that loads and serves: none in the range")
        if found and working != found:
            p(f"  and that also passes the stability recheck: {working:,}" if working else
              "  none of them passes the stability recheck")
    p(f"restarts: {result['restarts']} ({result['restarts_this_session']} in this session)")
    p(f"[bold]bottleneck: {printable(result['bottleneck'])}[/bold]: {printable(result['conclusion'])}")
    if result.get("recommendation"):
        p(f"run: {printable(result['recommendation'])}")
    for pgid in result.get("stopped_leftovers") or ():
        p(f"note: stopped the server (process group {pgid}) an interrupted sweep left running")


def plot(result: dict, path: str) -> None:
    """Peak memory, KV pool and TTFT against the context of the context stage's runs, to a PNG. Raises
    UsageError without matplotlib."""
    from ..probing.plot import available

    available()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = sorted((r for r in result["runs"] if r["stage"] == "context"), key=lambda r: r["settings"]["max_model_len"])
    fig, ax = plt.subplots(figsize=(9, 4.5))
    xs = [r["settings"]["max_model_len"] for r in runs]
    ax.plot([x for x, r in zip(xs, runs) if r.get("peak_bytes")],
            [r["peak_bytes"] / MIB for r in runs if r.get("peak_bytes")], "o-", label="peak memory (MiB)")
    ax.plot([x for x, r in zip(xs, runs) if r.get("kv_pool_bytes")],
            [r["kv_pool_bytes"] / MIB for r in runs if r.get("kv_pool_bytes")], "s--", label="KV pool (MiB)")
    for x, r in zip(xs, runs):
        if not r.get("serves", r["loaded"]):
            ax.axvline(x, color="tab:red", alpha=0.3, lw=1)
    ax.set_xlabel("max_model_len (tokens); red: did not load, or died serving")
    ax.set_ylabel("MiB")
    ax2 = ax.twinx()
    ax2.plot([x for x, r in zip(xs, runs) if r.get("ttft_s") is not None],
             [r["ttft_s"] for r in runs if r.get("ttft_s") is not None], "^:", color="tab:green", label="TTFT (s)")
    ax2.set_ylabel("TTFT (s)")
    fig.legend(fontsize=8, loc="upper left")
    ax.set_title(f"vramdoctor sweep: {result['model']} ({result['engine']}), bottleneck {result['bottleneck']}",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
