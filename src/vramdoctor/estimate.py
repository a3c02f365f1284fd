"""The estimate: both ledgers for a grid of contexts x concurrencies, the verdict, the largest
context and concurrency that fit, and the smallest change that makes it fit. Pure: no I/O."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

from .engines import EngineRules, Settings, get_engine
from .engines.base import kv_dtype, state_bytes_per_seq, weights_per_gpu
from .errors import UsageError
from .spec import ModelSpec

Verdict = Literal["fits", "weights_exceed", "kv_exceeds"]
MAX_SEARCH_LEN = 1 << 24
MAX_SEARCH_SEQS = 1 << 16


@dataclass(frozen=True, kw_only=True)
class Cell:
    """One grid cell, per GPU: kv_cache_bytes for `concurrency` sequences of `max_model_len` tokens."""

    max_model_len: int
    concurrency: int
    kv_cache_bytes: int
    total_bytes: int
    verdict: Verdict


@dataclass(frozen=True, kw_only=True)
class Advice:
    """One change that makes the selected cell fit, in the engine's own flags."""

    change: str
    flags: str
    detail: str


@dataclass(frozen=True, kw_only=True)
class Estimate:
    """The result of `estimate()`. All bytes are per GPU.

    kv_bytes_per_token: the layers whose cache grows with every token (full attention, MLA).
    kv_window_bytes_per_seq / state_bytes_per_seq: sliding-window caches at their bound and
    recurrent state, per sequence (fixed, beside the per-token figure).
    engine_kv_bytes_per_token: what one token of the engine's pool capacity costs (vLLM and
    SGLang count sliding layers too).
    kv_pool_bytes / kv_pool_tokens: the pool the engine would allocate and the capacity it
    would print; for llama.cpp the KV buffer it allocates for -c and its cells (n_ctx); None for generic.
    """

    model: str
    engine: str
    gpu: str
    gpu_memory_bytes: int
    budget_bytes: int
    settings: Settings
    cell_flags: str
    weights_bytes: int
    weights_exact: bool
    weights_source: str
    kv_bytes_per_token: int
    kv_window_bytes_per_seq: int
    state_bytes_per_seq: int
    engine_kv_bytes_per_token: int
    kv_cache_bytes: int
    overhead_bytes: int
    overheads: tuple
    total_bytes: int
    kv_pool_bytes: int | None
    kv_pool_tokens: int | None
    verdict: Verdict
    max_model_len_fit: int
    max_concurrency_fit: int
    grid: tuple[Cell, ...]
    advice: tuple[Advice, ...]
    layer_counts: dict[str, int]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["settings"] = asdict(self.settings)
        return d


def _check(s: Settings) -> None:
    for name, value, low in (("--max-model-len", s.max_model_len, 1), ("--concurrency", s.concurrency, 1),
                             ("--tensor-parallel-size", s.tensor_parallel_size, 1), ("--block-size", s.block_size, 1)):
        if value < low:
            raise UsageError(f"must be at least {low}, got {value}.", option=name)
    if not 0 < s.gpu_memory_utilization <= 1:
        raise UsageError(f"must be in (0, 1], got {s.gpu_memory_utilization}.", option="--gpu-memory-utilization")
    if s.mem_fraction_static is not None and not 0 < s.mem_fraction_static <= 1:
        raise UsageError(f"must be in (0, 1], got {s.mem_fraction_static}.", option="--mem-fraction-static")


class _Ledger:
    """Fit arithmetic for one model, engine, settings and GPU."""

    def __init__(self, model: ModelSpec, rules: EngineRules, s: Settings, gpu_bytes: int) -> None:
        self.model, self.rules, self.s, self.gpu_bytes = model, rules, s, gpu_bytes
        self.budget = rules.budget(model, s, gpu_bytes)
        self.weights = weights_per_gpu(model, s.tensor_parallel_size)

    def kv(self, max_model_len: int, seqs: int) -> int:
        return self.rules.kv_cache_bytes(self.model, self.s, max_model_len, seqs)

    def room(self) -> int:
        """Bytes the KV cache may take: the engine's pool, or what is left of the budget."""
        if self.budget.kv_pool_bytes is not None:
            return self.budget.kv_pool_bytes
        return self.budget.budget_bytes - self.weights - self.budget.overhead_bytes

    def verdict(self, max_model_len: int, seqs: int) -> Verdict:
        if self.weights > self.budget.budget_bytes:
            return "weights_exceed"
        return "fits" if self.kv(max_model_len, seqs) <= self.room() else "kv_exceeds"

    def _largest(self, fits, hi: int) -> int:
        if not fits(1):
            return 0
        lo = 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
        return lo

    def max_len(self, seqs: int, cap: int | None) -> int:
        room = self.room()
        return self._largest(lambda n: self.kv(n, seqs) <= room, cap or MAX_SEARCH_LEN)

    def max_seqs(self, max_model_len: int) -> int:
        room = self.room()
        return self._largest(lambda n: self.kv(max_model_len, n) <= room, MAX_SEARCH_SEQS)


def _advice(model: ModelSpec, rules: EngineRules, s: Settings, gpu_bytes: int, led: _Ledger) -> list[Advice]:
    """The smallest changes that make the selected cell fit, cheapest first, each checked by re-estimating."""
    f = rules.flags()
    out: list[Advice] = []
    verdict = led.verdict(s.max_model_len, s.concurrency)
    if verdict == "fits":
        return out

    def fits_with(**changes) -> bool:
        s2 = s.with_(**changes)
        return _Ledger(model, rules, s2, gpu_bytes).verdict(s2.max_model_len, s2.concurrency) == "fits"

    if verdict == "kv_exceeds":
        n = led.max_len(s.concurrency, None)
        if n >= 1:
            shown = n * s.concurrency if rules.name == "llamacpp" else n
            out.append(Advice(change="shorter context", flags=f"{f['max_model_len']} {shown}",
                              detail=f"{n} tokens per sequence fit at {s.concurrency} concurrent"))
        k = led.max_seqs(s.max_model_len)
        if k >= 1 and s.concurrency > 1:
            out.append(Advice(change="fewer concurrent sequences", flags=f"{f['concurrency']} {k}",
                              detail=f"{k} sequences of {s.max_model_len} tokens fit"))
        fp8 = "q8_0" if rules.name == "llamacpp" else "fp8"
        if kv_dtype(model, s).block_bytes > 1 and fits_with(kv_cache_dtype=fp8):
            flag = "-ctk q8_0 -ctv q8_0 -fa on" if rules.name == "llamacpp" else f"{f['kv_cache_dtype']} {f['fp8']}"
            out.append(Advice(change="8-bit KV cache", flags=flag, detail="halves the KV bytes per token"))
        if rules.name == "vllm" and s.gpu_memory_utilization < 0.95 and fits_with(gpu_memory_utilization=0.95):
            out.append(Advice(change="more memory for the pool", flags=f"{f['utilization']} 0.95",
                              detail="leaves 5% for CUDA graphs and other processes"))
    if verdict == "weights_exceed" or not out:
        bits_now = 8 * model.weights.total_bytes / max(1, (model.weights.num_params or 0)) if model.weights.num_params else None
        for bits, label in ((8, "8-bit (fp8 / int8)"), (4, "4-bit (AWQ / GPTQ / Q4_K_M)")):
            if bits_now is not None and bits_now <= bits + 0.5:
                continue
            scaled = _scaled_weights(model, bits)
            if scaled and _Ledger(scaled, rules, s, gpu_bytes).verdict(s.max_model_len, s.concurrency) == "fits":
                q = "a GGUF at Q8_0" if bits == 8 else "a GGUF at Q4_K_M"
                flag = q if rules.name == "llamacpp" else f"{f['quantization']} {'fp8' if bits == 8 else 'awq'} (a {bits}-bit checkpoint)"
                out.append(Advice(change=f"{label} weights", flags=flag,
                                  detail=f"weights about {scaled.weights.total_bytes / 2**30:.1f} GiB in all"))
                break
        for tp in (2, 4, 8):
            if tp > s.tensor_parallel_size and fits_with(tensor_parallel_size=tp):
                flag = f"{f['tp']} {tp}" if rules.name != "llamacpp" else f"--split-mode layer over {tp} GPUs"
                out.append(Advice(change=f"{tp} GPUs", flags=flag, detail="weights and KV heads split across GPUs"))
                break
    return out


def _scaled_weights(model: ModelSpec, bits: int) -> ModelSpec | None:
    from dataclasses import replace

    if not model.weights.num_params and not model.weights.total_bytes:
        return None
    params = model.weights.num_params or model.weights.total_bytes // 2
    new = replace(model.weights, total_bytes=int(params * (bits / 8 + 0.03)), exact=False)
    return replace(model, weights=new)


def estimate(
    model: ModelSpec,
    *,
    engine: str = "vllm",
    settings: Settings | None = None,
    gpu_bytes: int,
    gpu_name: str = "",
    grid: list[tuple[int, int]] | None = None,
) -> Estimate:
    """Estimate both ledgers of `model` on one GPU of `gpu_bytes` under `engine`'s rules.

    grid: (max_model_len, concurrency) cells to tabulate; the selected cell is
    (settings.max_model_len, settings.concurrency). Raises UsageError for bad settings.
    """
    s = settings or Settings()
    _check(s)
    if gpu_bytes <= 0:
        raise UsageError("must be more than 0 bytes.", option="--gpu-memory")
    rules = get_engine(engine)
    led = _Ledger(model, rules, s, gpu_bytes)
    kv = kv_dtype(model, s)
    tp = s.tensor_parallel_size
    per_token = sum(layer.bytes_per_token(kv, tp) for layer in model.layers if layer.kind in ("full", "mla"))
    window = sum(min(layer.window, s.max_model_len) * layer.bytes_per_token(kv, tp)
                 for layer in model.layers if layer.kind == "sliding")
    kv_sel = led.kv(s.max_model_len, s.concurrency)
    cells = []
    for n, c in grid or []:
        kv_c = led.kv(n, c)
        cells.append(Cell(max_model_len=n, concurrency=c, kv_cache_bytes=kv_c,
                          total_bytes=led.weights + kv_c + led.budget.overhead_bytes, verdict=led.verdict(n, c)))
    pool = led.budget.kv_pool_bytes
    pool_tokens = rules.pool_tokens(model, s, pool) if pool is not None else None
    if pool is None and hasattr(rules, "allocation"):  # engines that size the cache to the request
        pool, pool_tokens = rules.allocation(model, s)
    notes = list(model.notes)
    if s.max_model_len > (model.max_position_embeddings or MAX_SEARCH_LEN):
        notes.append(f"max_model_len {s.max_model_len} exceeds the model's max_position_embeddings "
                     f"{model.max_position_embeddings}; engines refuse it unless told otherwise")
    cap = model.max_position_embeddings
    return Estimate(
        model=model.name, engine=rules.name, gpu=gpu_name, gpu_memory_bytes=gpu_bytes,
        budget_bytes=led.budget.budget_bytes, settings=s, cell_flags=rules.cell_flags(s),
        weights_bytes=led.weights, weights_exact=model.weights.exact, weights_source=model.weights.source,
        kv_bytes_per_token=per_token, kv_window_bytes_per_seq=window,
        state_bytes_per_seq=state_bytes_per_seq(model, s),
        engine_kv_bytes_per_token=rules.engine_bytes_per_token(model, s),
        kv_cache_bytes=kv_sel, overhead_bytes=led.budget.overhead_bytes, overheads=led.budget.overheads,
        total_bytes=led.weights + kv_sel + led.budget.overhead_bytes,
        kv_pool_bytes=pool, kv_pool_tokens=pool_tokens,
        verdict=led.verdict(s.max_model_len, s.concurrency),
        max_model_len_fit=led.max_len(s.concurrency, cap) if led.weights <= led.budget.budget_bytes else 0,
        max_concurrency_fit=led.max_seqs(s.max_model_len) if led.weights <= led.budget.budget_bytes else 0,
        grid=tuple(cells), advice=tuple(_advice(model, rules, s, gpu_bytes, led)),
        layer_counts={k: model.count(k) for k in ("full", "sliding", "mla", "state") if model.count(k)},
        notes=tuple(notes),
    )
