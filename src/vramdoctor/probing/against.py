"""The probe's measurements beside the estimate for the settings the server shows: the settings are read from
its endpoints and log (pure), the estimate is `estimate.estimate`, the comparison a list of rows.

Tolerances (stated in each row): the KV pool max(2 MiB, 1%): llama.cpp's and vLLM's pools are computed
exactly; weights plus overhead and the baseline max(64 MiB, 10%) on a process's own memory (its code,
libraries, heap and allocator caches are overhead the estimate does not itemise: tens of MiB for llama-server on
the CPU, the CUDA context's 300-600 MiB on a GPU); an increment max(64 MiB, 5% of the baseline) beyond what the
estimate expects (none for an engine that reserved its pool at start).
"""

from __future__ import annotations

from ..engines import Settings
from .result import Comparison

MIB = 2**20


def _int(v) -> int | None:
    if isinstance(v, list):
        v = v[-1] if v else None
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 else None


def settings_for(engine: str, *, max_model_len: int | None, figures: dict, log_numbers: dict) -> tuple[Settings, str]:
    """The Settings an estimate of this server takes, and the estimate engine's name (vllm, sglang, llamacpp or
    generic). figures: the engine's endpoint figures; log_numbers: the log's (may be empty)."""
    n = log_numbers
    if engine in ("llamacpp", "ollama", "koboldcpp", "llama-cpp-python"):
        slots = _int(figures.get("slots")) or _int(n.get("n_slots")) or _int(n.get("n_seq_max")) or 1
        per_slot = _int(figures.get("n_ctx_per_slot")) or _int(n.get("n_ctx_slot"))
        cells = _int(n.get("kv_cells_in_all"))
        if isinstance(n.get("kv_unified"), bool):
            unified = n["kv_unified"]
        else:
            unified = bool(slots > 1 and cells is not None and per_slot is not None and cells == per_slot)
        # a unified cache's slots each see all n_ctx cells (n_ctx_slot = n_ctx); otherwise n_ctx_slot = n_ctx / slots
        n_ctx = _int(n.get("n_ctx")) or ((per_slot * (1 if unified else slots)) if per_slot else None) \
            or max_model_len or 4096
        kv = str(n.get("cache_type_k") or n.get("kv_cache_dtype") or "f16")
        s = Settings(max_model_len=max(1, n_ctx // slots), concurrency=slots, kv_cache_dtype=kv, kv_unified=unified,
                     n_ubatch=_int(n.get("n_ubatch")) or 512)
        return s, "llamacpp"
    if engine == "vllm":
        util = figures.get("gpu_memory_utilization") or n.get("gpu_memory_utilization")
        try:
            util_f = float(util) if util is not None else 0.9
        except (TypeError, ValueError):
            util_f = 0.9
        dtype = str(figures.get("cache_dtype") or n.get("kv_cache_dtype") or "auto")
        s = Settings(max_model_len=max_model_len or _int(n.get("max_model_len")) or 4096, kv_cache_dtype=dtype,
                     gpu_memory_utilization=util_f, block_size=_int(figures.get("block_size")) or 16,
                     tensor_parallel_size=_int(n.get("tensor_parallel_size")) or 1)
        return s, "vllm"
    if engine == "sglang":
        frac = figures.get("mem_fraction_static") or n.get("mem_fraction_static")
        s = Settings(max_model_len=max_model_len or _int(figures.get("context_length")) or 4096,
                     mem_fraction_static=float(frac) if isinstance(frac, (int, float)) else None,
                     kv_cache_dtype=str(figures.get("kv_cache_dtype") or "auto"),
                     tensor_parallel_size=_int(figures.get("tp_size")) or 1)
        return s, "sglang"
    return Settings(max_model_len=max_model_len or 4096), "generic"


def _row(part: str, measured: int | None, estimated: int | None, tol: int, note: str = "") -> Comparison:
    diff = None if measured is None or estimated is None else measured - estimated
    return Comparison(part=part, measured_bytes=measured, estimated_bytes=estimated, difference_bytes=diff,
                      tolerance_bytes=tol, flagged=diff is not None and abs(diff) > tol, note=note)


def compare(est, *, basis: str, baseline_bytes: int | None, pool_bytes: int | None, pre_reserves: bool,
            tiers: list, on_gpu: bool, pool_settled: bool = True, pool_measured: bool = True) -> list[Comparison]:
    """Rows of measured against estimated. est: an estimate.Estimate for the server's settings (per GPU:
    multiplied by the devices read where the server spreads over several is the caller's business).
    pool_settled: False when the server's settings leave the estimate's pool open (llama.cpp's cells, unified or
    not): then only the increments are compared. pool_measured: False when the pool's bytes are the engine's
    tokens at the estimate's bytes per token: then the pool is not held against the estimate (it is the estimate)."""
    rows = []
    est_pool = est.kv_pool_bytes if pool_settled else None
    if pool_bytes is not None and est_pool is not None and pool_measured:  # never the estimate against itself
        rows.append(_row("kv_pool", pool_bytes, est_pool, max(2 * MIB, int(0.01 * est_pool)),
                         "the engine's pool against the estimate's"))
    overhead = sum(o.bytes for o in est.overheads if on_gpu or "CUDA" not in o.name)
    weights_overhead = est.weights_bytes + overhead
    if pool_settled and baseline_bytes is not None and pool_bytes is not None and pool_bytes <= baseline_bytes:
        measured = baseline_bytes - pool_bytes
        rows.append(_row("weights_plus_overhead", measured, weights_overhead,
                         max(64 * MIB, int(0.10 * weights_overhead)),
                         "baseline minus the pool, against weights + "
                         + ", ".join(o.name for o in est.overheads if on_gpu or "CUDA" not in o.name)))
    if baseline_bytes is not None and est_pool is not None:
        total = weights_overhead + est_pool
        rows.append(_row("baseline", baseline_bytes, total, max(64 * MIB, int(0.10 * total)),
                         "reading B against weights + pool + overheads"
                         + ("" if basis == "process" else " (the device's whole use: other processes count too)")))
    tol = max(64 * MIB, int(0.05 * (baseline_bytes or 0)))
    for t in tiers:
        if t.increment_bytes is None:
            continue
        tokens = (t.prompt_tokens or t.target_prompt_tokens) + (t.completion_tokens or 0)
        expected = 0 if pre_reserves else tokens * est.engine_kv_bytes_per_token
        rows.append(_row(f"increment @ {tokens} tokens", t.increment_bytes, expected, tol,
                         "the pool is reserved at start: a request adds activations and workspaces only"
                         if pre_reserves else "the request's KV cache at the estimate's bytes per token"))
    return rows
