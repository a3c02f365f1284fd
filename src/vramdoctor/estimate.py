"""The estimate: both ledgers for a grid of contexts x concurrencies, the verdict, the largest
context and concurrency that fit, and the smallest change that makes it fit. Pure: no I/O."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

from .engines import KV_DTYPES_BY_ENGINE, EngineRules, Settings, get, get_engine
from .engines.interface import Spelling
from .engines.base import kv_dtype, state_bytes_per_seq
from .engines.words import release
from .errors import UsageError
from .units import compact, compact_gib
from .nccl import check_nnodes
from .ranks import check_gpu_used, decide, refusal_advice
from .spec import ModelSpec

Verdict = Literal["fits", "weights_exceed", "kv_exceeds", "refused"]
MAX_SEARCH_LEN = 1 << 24
MAX_SEARCH_SEQS = 1 << 24


@dataclass(frozen=True, kw_only=True)
class Cell:
    """One grid cell, per GPU: kv_cache_bytes for `concurrency` sequences of `max_model_len` tokens."""

    max_model_len: int
    concurrency: int
    kv_cache_bytes: int
    total_bytes: int
    verdict: Verdict
    starts: bool = True
    concurrent: int = 0
    auto_gpu_layers: int | None = None


@dataclass(frozen=True, kw_only=True)
class Advice:
    """One change that makes the selected cell fit. flags: the engine's own flags for it, ready to paste ('' where the
    change is not a flag: another checkpoint, more memory); detail: what it gives, in words."""

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
    verdict: whether the selected cell (max_model_len x concurrency) fits at once; "refused" where a start check of the
    engine's own refuses these settings whatever the pool holds (`refusal` says which): it does not start.
    starts: whether the engine starts with these settings: vLLM needs one sequence of max_model_len in
    its pool (`check_enough_kv_cache_memory`), SGLang a pool of at least one token, llama.cpp and
    generic the whole -c cache beside the weights; an engine with a pool then queues what does not fit.
    None (undetermined) when charges the engine may take but that are not modelled (`uncertain`) would
    turn a start into a failure.
    uncertain: those charges, each with the most it could take; kv_pool_bytes_low: the pool if all apply.
    kv_pool_shortfall_bytes: how far the weights and overheads overshoot the budget when no pool is left
    (kv_pool_bytes is then 0: no byte count is negative).
    max_n_gpu_layers_fit: llama.cpp only, the largest -ngl with which the selected cell fits (the
    layer count + 1 when all of it fits); None for other engines, and when not even -ngl 0 fits.
    host_weights_bytes / host_kv_cache_bytes: llama.cpp only, what stays in host memory under -ngl.
    pipeline_stages: with pipeline_parallel_size > 1, per stage {stage, layers, weights_bytes,
    kv_pool_bytes, kv_pool_tokens}; every other figure is the stage that decides the pool (the one with
    the fewest tokens of room), which `notes` names.
    deciding_rank: where other processes hold memory on some GPUs (`settings.gpu_used`), the GPU (rank) whose free
    memory decides the answer under the engine's rule: the smallest pool, the fullest GPU (llama.cpp), or a start
    check it fails; None where the others' memory changes nothing. Every other figure is that GPU's.
    ranks: then, every GPU's figures: {rank, stage, used_bytes, free_bytes, kv_pool_bytes, kv_pool_tokens, starts}
    (llama.cpp: {rank, layers, weights_bytes, kv_cache_bytes, used_bytes, free_bytes}); () without --gpu-used.
    refusal: where the engine refuses (or may refuse) to start at a check of its own whatever its pool holds, that
    check in a few words ('' where it passes).
    max_model_len_fit / max_concurrency_fit: the largest context at `concurrency`, the most sequences of max_model_len
    that fit; 0 where none does (the weights exceed the budget, or the engine refuses to start: `refusal`).
    max_concurrency: sequences of max_model_len the engine runs at once, as it prints it (vLLM's
    "Maximum concurrency for N tokens per request: X", SGLang's #tokens / context length, llama.cpp's
    -np slots); None when it does not start.
    answer: the one-line answer (starts or not, and what limits it).
    auto_gpu_layers: Ollama with num_gpu unset, where the whole model and cache do not fit: the layers it puts on the
    GPU by itself (`max_n_gpu_layers_fit`, 0 for none: it then runs on the CPU), the rest on the CPU, so it starts
    (slower). Ollama's rule: `llm/server.go` (v0.11.10) `case s.options.NumGPU < 0 && s.estimate.Layers > 0:
    s.options.NumGPU = s.estimate.Layers` and `s.estimate.Layers == 0: gpus = discover.GetCPUInfo()`, the layers from
    `llm/memory.go` `estimateGPULayers` (whole layers with their KV cache, the output layer last, until the free
    memory is spent); from v0.30 `llm/llama_server.go` passes no -ngl ("NumGPU == -1 (default): don't pass -ngl, let
    llama-server auto-detect"). Ollama's own estimate of the layer count is approximated by this one. It fails only
    where host memory is short ("model requires more system memory"), which is not modelled. None otherwise (num_gpu
    set, another engine, or all fits).
    front_end: the engine asked for (Ollama, KoboldCpp and llama-cpp-python run llama.cpp's rules, `engine`, in
    their own settings: `cell_flags` and `advice` are in them); gpu_layers_flag: its spelling of -ngl.
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
    starts: bool | None
    max_concurrency: float | None
    answer: str
    max_model_len_fit: int
    max_concurrency_fit: int
    grid: tuple[Cell, ...]
    advice: tuple[Advice, ...]
    layer_counts: dict[str, int]
    num_decoder_layers: int = 0
    uncertain: tuple = ()
    kv_pool_bytes_low: int | None = None
    kv_pool_shortfall_bytes: int = 0
    max_n_gpu_layers_fit: int | None = None
    pipeline_stages: tuple = ()
    deciding_rank: int | None = None
    ranks: tuple = ()
    refusal: str = ""
    host_weights_bytes: int | None = None
    host_kv_cache_bytes: int | None = None
    engine_rules: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    front_end: str = ""
    gpu_layers_flag: str = "-ngl"
    auto_gpu_layers: int | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["settings"] = asdict(self.settings)
        return d


#: the largest count of sequences, GPUs or batch tokens taken as a setting (vLLM's max_num_seqs tops out far below)
MAX_COUNT = 1 << 20


def _check(s: Settings, model: ModelSpec, rules: EngineRules, grid: list[tuple[int, int]]) -> None:
    pp = s.pipeline_parallel_size
    if pp > 1 and rules.name not in ("vllm", "sglang"):
        raise UsageError(f"is for vllm and sglang; {rules.name} is not split into stages here"
                         + (" (llama.cpp splits layers with --split-mode layer: --tensor-parallel-size)."
                            if rules.name == "llamacpp" else "."), option="--pipeline-parallel-size")
    if s.n_gpu_layers is not None and rules.name != "llamacpp":
        raise UsageError(f"is llama.cpp's; {rules.name} keeps every layer on the GPU.", option="--n-gpu-layers")
    if s.n_gpu_layers is not None and s.n_gpu_layers < 0:
        raise UsageError(f"must be 0 or more (-1 means all, as llama.cpp takes it), got {s.n_gpu_layers}.",
                         option="--n-gpu-layers")
    if pp > model.num_decoder_layers:
        raise UsageError(f"{pp} stages for {model.num_decoder_layers} layers: every stage needs a layer.",
                         option="--pipeline-parallel-size")
    for name, value, low in (("--max-model-len", s.max_model_len, 1), ("--concurrency", s.concurrency, 1),
                             ("--pipeline-parallel-size", s.pipeline_parallel_size, 1),
                             ("--tensor-parallel-size", s.tensor_parallel_size, 1), ("--block-size", s.block_size, 1),
                             ("--max-num-batched-tokens", s.max_num_batched_tokens, 1), ("--n-ubatch", s.n_ubatch, 1),
                             ("--max-num-seqs", s.max_num_seqs, 1)):
        if value < low:
            raise UsageError(f"must be at least {low}, got {value}.", option=name)
    for name, value in (("--concurrency", s.concurrency), ("--max-num-seqs", s.max_num_seqs),
                        ("--pipeline-parallel-size", s.pipeline_parallel_size),
                        ("--tensor-parallel-size", s.tensor_parallel_size), ("--n-ubatch", s.n_ubatch),
                        ("--block-size", s.block_size)):
        if value > MAX_COUNT:
            raise UsageError(f"{value:,} is beyond any server's ({MAX_COUNT:,}).", option=name)
    for n, c in grid:
        if n < 1 or c < 1:
            raise UsageError(f"cell {n}x{c}: both numbers must be at least 1.", option="--grid")
        if c > MAX_COUNT:
            raise UsageError(f"cell {n}x{c}: {c:,} sequences is beyond any server's ({MAX_COUNT:,}).", option="--grid")
    if rules.name == "vllm" and s.block_size not in (1, 8, 16, 32, 64, 128, 256):
        raise UsageError(f"vLLM takes block sizes 1, 8, 16, 32, 64, 128 or 256, not {s.block_size}.",
                         option="--block-size")
    if s.mem_fraction_static is not None and rules.name != "sglang":
        raise UsageError(f"is SGLang's; {rules.name} does not read it.", option="--mem-fraction-static",
                         hint="For vLLM use --gpu-memory-utilization." if rules.name == "vllm" else
                         "llama.cpp allocates what -c and -ngl ask for." if rules.name == "llamacpp" else "")
    allowed = KV_DTYPES_BY_ENGINE.get(rules.name)
    if allowed is not None and s.kv_cache_dtype not in allowed:
        raise UsageError(f"{rules.name} does not take '{s.kv_cache_dtype}'.", option="--kv-cache-dtype",
                         hint=f"{rules.name} takes: {', '.join(allowed)}.")
    tp, heads = s.tensor_parallel_size, model.num_attention_heads
    if rules.name in ("vllm", "sglang") and tp > 1 and heads and not tp_accepted(model, tp):
        bad_kv = [k for k in _kv_heads(model) if k % tp and tp % k]
        sizes = tp_sizes(model)
        why = (f"{tp} does not divide the model's {heads} attention heads" if heads % tp else
               f"{tp} and the model's {bad_kv[0]} KV heads do not divide each other (the KV heads can be neither split "
               "nor replicated evenly)")
        raise UsageError(f"{why}; {rules.name} refuses it.", option="--tensor-parallel-size",
                         hint=("Use one of: " + ", ".join(map(str, sizes)) + "." if sizes else
                               "No size above 1 splits these heads: serve it on one GPU."))
    if not 0 < s.gpu_memory_utilization <= 1:
        raise UsageError(f"must be in (0, 1], got {s.gpu_memory_utilization}.", option="--gpu-memory-utilization")
    if s.mem_fraction_static is not None and not 0 < s.mem_fraction_static <= 1:
        raise UsageError(f"must be in (0, 1], got {s.mem_fraction_static}.", option="--mem-fraction-static")


def _kv_heads(model: ModelSpec) -> set[int]:
    return {layer.num_kv_heads for layer in model.layers if layer.kind in ("full", "sliding")}


def tp_accepted(model: ModelSpec, tp: int) -> bool:
    """Whether vLLM (and SGLang, modelled the same) splits this model's heads over `tp` GPUs: the attention heads
    divide by it (vLLM `config/model.py` `ModelConfig.verify_with_parallel_config`, 0.11.0), and each layer's KV heads
    divide by it or it by them, the KV heads then replicated (`model_executor/layers/linear.py`
    `QKVParallelLinear.__init__`: `divide(total_num_kv_heads, tp_size)` or `divide(tp_size, total_num_kv_heads)`)."""
    heads = model.num_attention_heads
    if tp <= 1 or not heads:
        return True
    return not heads % tp and all(not k % tp or not tp % k for k in _kv_heads(model))


def tp_sizes(model: ModelSpec, limit: int = MAX_COUNT) -> list[int]:
    """Every tensor-parallel size above 1 that `tp_accepted` takes, up to `limit`: divisors of the attention heads."""
    heads = model.num_attention_heads or 0
    return [d for d in range(2, min(heads, limit) + 1) if tp_accepted(model, d)]


def _check_resolved(given: Settings, s: Settings, rules: EngineRules) -> None:
    """Settings vLLM refuses once its defaults are filled in: a step of fewer tokens than sequences
    (`config/scheduler.py` `SchedulerConfig.verify_args`, 0.11.0: "max_num_batched_tokens ... must be greater than
    or equal to max_num_seqs", checked after `arg_utils.py` fills max_num_seqs in)."""
    if rules.name != "vllm" or s.max_num_batched_tokens is None or s.max_num_seqs is None:
        return
    v = release(s.engine_version) or (1, 0, 0)
    if v >= (0, 8, 0) and s.max_num_batched_tokens < s.max_num_seqs:
        seqs = (f"--max-num-seqs {s.max_num_seqs}" if given.max_num_seqs is not None else
                f"max_num_seqs {s.max_num_seqs} (vLLM's default for this release and GPU)")
        raise UsageError(f"{s.max_num_batched_tokens} is below {seqs}; vLLM refuses it (each step schedules at "
                         "least one token per sequence).", option="--max-num-batched-tokens",
                         hint=f"Give at least {s.max_num_seqs}, or a --max-num-seqs of at most "
                              f"{s.max_num_batched_tokens}.")


class _Ledger:
    """Fit arithmetic for one model, engine, settings and GPU."""

    def __init__(self, model: ModelSpec, rules: EngineRules, s: Settings, gpu_bytes: int) -> None:
        self.model, self.rules, self.s, self.gpu_bytes = model, rules, s, gpu_bytes
        self.budget = rules.budget(model, s, gpu_bytes)
        self.weights = rules.weights_bytes(model, s)
        # a context beyond the trained one is the user's own (rope scaling): then it is no cap
        mpe = model.max_position_embeddings
        self.cap = mpe if mpe and s.max_model_len <= mpe else None

    def kv(self, max_model_len: int, seqs: int) -> int:
        return self.rules.kv_cache_bytes(self.model, self.s, max_model_len, seqs)

    def with_settings(self, s: Settings) -> "_Ledger":
        """The same model, engine and GPU under other settings."""
        return _Ledger(self.model, self.rules, s, self.gpu_bytes)

    def room(self) -> int:
        """Bytes the KV cache may take: the engine's pool, or what is left of the budget."""
        if self.budget.kv_pool_bytes is not None:
            return self.budget.kv_pool_bytes
        return self.budget.budget_bytes - self.weights - self.budget.overhead_bytes

    def weights_exceed(self) -> bool:
        """The weights alone exceed what the engine lets itself use."""
        return self.weights > self.budget.budget_bytes

    def verdict(self, max_model_len: int, seqs: int) -> Verdict:
        if self.weights_exceed():
            return "weights_exceed"
        return "fits" if self.kv(max_model_len, seqs) <= self.room() else "kv_exceeds"

    def starts(self, max_model_len: int, seqs: int, less: int = 0) -> bool:
        """Whether the engine starts (see Estimate.starts), with a pool smaller by `less` bytes."""
        ref = self.budget.refusal
        if ref is not None and ref.certain:
            return False
        if self.weights_exceed():
            return False
        if self.budget.kv_pool_bytes is None:
            return self.verdict(max_model_len, seqs) == "fits"
        pool = self.budget.kv_pool_bytes - less
        if self.rules.name == "vllm":
            return pool > 0 and self.kv(max_model_len, 1) <= pool
        if self.rules.engine_bytes_per_token(self.model, self.s) == 0:  # state only (Mamba): room for one sequence
            return pool > 0 and self.kv(max_model_len, 1) <= pool
        return self.rules.pool_tokens(self.model, self.s, pool) >= 1

    def _largest(self, fits, hi: int) -> int:
        if not fits(1):
            return 0
        lo = 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
        return lo

    def max_len(self, seqs: int) -> int:
        if self.weights_exceed():
            return 0
        room = self.room()
        return self._largest(lambda n: self.kv(n, seqs) <= room, self.cap or MAX_SEARCH_LEN)

    def max_seqs(self, max_model_len: int) -> int:
        if self.weights_exceed():
            return 0
        room = self.room()
        return self._largest(lambda n: self.kv(max_model_len, n) <= room, MAX_SEARCH_SEQS)


def _advice(model: ModelSpec, rules: EngineRules, s: Settings, gpu_bytes: int, led: _Ledger,
            sp: Spelling | None = None) -> list[Advice]:
    """The smallest changes that make the selected cell fit, cheapest first, each checked by re-estimating; for
    llama.cpp in the spelling `sp` of the front end asked for (Ollama, KoboldCpp, llama-cpp-python)."""
    f = rules.flags()
    out: list[Advice] = [Advice(change=c, flags=fl, detail=d) for c, fl, d in refusal_advice(rules, s, gpu_bytes, led)]
    verdict = led.verdict(s.max_model_len, s.concurrency)
    if verdict == "fits":
        return out
    llama = rules.name == "llamacpp"

    def fits_with(m: ModelSpec = model, **changes) -> bool:
        s2 = s.with_(**changes)
        return _Ledger(m, rules, s2, gpu_bytes).verdict(s2.max_model_len, s2.concurrency) == "fits"

    if verdict == "kv_exceeds":
        fit = led.max_len(s.concurrency)
        mpe = model.max_position_embeddings
        n = min(fit, mpe) if mpe else fit  # advice never passes the model's trained context
        if n >= 1:
            flag = (sp.context.format(n=n, ctx=n * s.concurrency, c=s.concurrency) if llama and sp else
                    f"{f['max_model_len']} {n}")
            beyond = (f"; that is the model's max_position_embeddings: {fit:,} would fit with "
                      f"{rules.past_context_override}" if n < fit else "")
            out.append(Advice(change="shorter context", flags=flag,
                              detail=f"{n} tokens per sequence fit at {s.concurrency} concurrent{beyond}"))
        k = led.max_seqs(s.max_model_len)
        if k >= 1 and s.concurrency > 1:
            flag = (sp.context.format(n=s.max_model_len, ctx=s.max_model_len * k, c=k) if llama and sp else
                    f"{f['concurrency']} {k}")
            out.append(Advice(change="fewer concurrent sequences", flags=flag,
                              detail=f"{k} sequences of {s.max_model_len} tokens fit"))
        if kv_dtype(model, s).block_bytes > 1 and fits_with(kv_cache_dtype=f["fp8"]):
            flag = sp.kv8 if llama and sp else f"{f['kv_cache_dtype']} {f['fp8']}"
            out.append(Advice(change="8-bit KV cache", flags=flag, detail="halves the KV bytes per token"))
        if (rules.name == "vllm" and s.gpu_memory_utilization < 0.95 and fits_with(gpu_memory_utilization=0.95)
                and _Ledger(model, rules, s.with_(gpu_memory_utilization=0.95), gpu_bytes).budget.refusal is None):
            out.append(Advice(change="more memory for the pool", flags=f"{f['utilization']} 0.95",
                              detail="leaves 5% for CUDA graphs and other processes"))
    if verdict == "weights_exceed" or led.room() <= 0 or not out:  # no pool at all: the weights must shrink
        for bits, label in ((8, "8-bit (fp8 / int8)"), (4, "4-bit (AWQ / GPTQ / Q4_K_M)")):
            scaled = _llama_format(model, bits) if llama else None
            scaled = scaled or _scaled_weights(model, bits)
            smaller = scaled is not None and scaled.weights.total_bytes < 0.9 * model.weights.total_bytes
            if smaller and fits_with(scaled):
                size = f"weights about {scaled.weights.total_bytes / 2**30:.1f} GiB in all"
                if llama:
                    flag, what = "", f"a GGUF at {'Q8_0' if bits == 8 else 'Q4_K_M'}: {size}"
                elif model.quantization:
                    flag, what = "", f"an {'FP8' if bits == 8 else 'AWQ or GPTQ'} checkpoint of this model: {size}"
                elif bits == 8:  # vLLM and SGLang quantize an unquantized checkpoint to fp8 as they load it
                    flag, what = f"{f['quantization']} fp8", f"quantized to fp8 as the engine loads it: {size}"
                else:  # no engine quantizes to AWQ or GPTQ while loading: the checkpoint must be one
                    flag, what = "", (f"an AWQ or GPTQ checkpoint of this model ({f['quantization']} awq or gptq "
                                      f"reads it): {size}")
                out.append(Advice(change=f"{label} weights", flags=flag, detail=what))
                break
        for tp in _gpu_counts(model, rules, s):
            if fits_with(tensor_parallel_size=tp):
                flag = (sp.split.format(g=tp, ts=",".join("1" * tp), tss=" ".join("1" * tp),
                                        tsl=", ".join("1" * tp)) if llama and sp else f"{f['tp']} {tp}")
                pp = s.pipeline_parallel_size
                total = f" per stage, {tp * pp} in all with {pp} pipeline stages" if pp > 1 else ""
                split = ("whole layers and their KV cache on each, the output layer on the last" if llama else
                         "each layer's weights and KV heads split across them")
                if llama and not flag:
                    split += f"; {sp.label if sp else 'the engine'} splits the layers over the GPUs it sees"
                out.append(Advice(change=f"{tp * pp} GPUs of this size", flags=flag,
                                  detail=f"the smallest count that fits{total}; {split}"))
                break
        else:
            usable = led.budget.budget_bytes - led.budget.overhead_bytes
            if usable <= 0:
                out.append(Advice(change="a larger GPU", flags="",
                                  detail=f"the engine's own overheads ({led.budget.overhead_bytes / 2**30:.2f} GiB) "
                                         "exceed its whole budget here: no setting of the model fits"))
            else:
                need = -(-model.weights.total_bytes // usable)
                out.append(Advice(change="much more memory", flags="",
                                  detail=f"the weights alone ({model.weights.total_bytes / 2**30:.1f} GiB) need at "
                                         f"least {need} GPUs of this size before any KV cache"))
    if llama:
        n = model.num_decoder_layers
        k = _max_ngl(model, rules, s, gpu_bytes)
        if 1 <= k <= n and (s.n_gpu_layers is None or s.n_gpu_layers > k):
            out.append(Advice(change="partial offload", flags=sp.gpu_layers.format(k=k) if sp else f"-ngl {k}",
                              detail=f"{k} of {n + 1} layers (the output layer and the last {k - 1}) and their KV "
                                     "cache on the GPU, the rest in host memory and on the CPU (slower)"))
    return out


def _gpu_counts(model: ModelSpec, rules: EngineRules, s: Settings, limit: int = 64) -> list[int]:
    """GPU counts above the current one to try, smallest first, up to `limit`: for vLLM and SGLang the sizes whose
    heads they split (`tp_sizes`); llama.cpp splits whole layers (--split-mode layer), so any count up to one GPU per
    layer (the output layer counting)."""
    if rules.name == "llamacpp":
        return list(range(s.tensor_parallel_size + 1, min(limit, model.num_decoder_layers + 1) + 1))
    sizes = tp_sizes(model, limit) if rules.name in ("vllm", "sglang") else [2, 4, 8, 16, 32, 64]
    return [n for n in sizes if n > s.tensor_parallel_size]


def _llama_format(model: ModelSpec, bits: int) -> ModelSpec | None:
    """The model as a Q8_0 or Q4_K_M GGUF by llama-quantize's rules (`whatif`), None where its tensors cannot be
    known; the weights and their placement then agree with `--weights`."""
    from .whatif import with_weights_format

    try:
        return with_weights_format(model, "q8_0" if bits == 8 else "q4_k_m")
    except (UsageError, ValueError):
        return None


def _scaled_weights(model: ModelSpec, bits: int) -> ModelSpec | None:
    """The model with weights at `bits` per parameter (+3% for scales), embeddings kept in the model dtype."""
    from dataclasses import replace

    from .dtypes import dtype_bytes

    if not model.weights.num_params and not model.weights.total_bytes:
        return None
    params = model.weights.num_params or model.weights.total_bytes // 2
    emb = min(model.weights.embedding_params or 0, params)  # embeddings and LM head stay in the model dtype
    total = int((params - emb) * (bits / 8 + 0.03) + emb * dtype_bytes(model.dtype))
    new = replace(model.weights, total_bytes=total, exact=False)
    return replace(model, weights=new, layout=None)  # (the layout is the checkpoint's tensors, not these)


def _max_ngl(model: ModelSpec, rules: EngineRules, s: Settings, gpu_bytes: int) -> int:
    """The largest llama.cpp -ngl (0 .. layers + 1) with which the selected cell fits the GPU (the GPU part
    only grows with -ngl, so the search is a bisection); -1 when not even -ngl 0 fits (the compute buffer
    and context alone)."""
    def fits(ngl: int) -> bool:
        s2 = s.with_(n_gpu_layers=ngl)
        return _Ledger(model, rules, s2, gpu_bytes).verdict(s2.max_model_len, s2.concurrency) == "fits"

    lo, hi = 0, model.num_decoder_layers + 1
    if not fits(lo):
        return -1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


def _engine_concurrency(model: ModelSpec, rules: EngineRules, s: Settings, led: _Ledger,
                        pool_tokens: int | None) -> float:
    """Sequences of max_model_len at once, as the engine prints it (see Estimate.max_concurrency)."""
    if rules.name == "vllm":
        return round(rules.max_concurrency(model, s, led.budget.kv_pool_bytes), 2)
    if rules.name == "sglang" and rules.engine_bytes_per_token(model, s) == 0:  # state only: sequences of state
        one = led.kv(s.max_model_len, 1)
        return round(led.budget.kv_pool_bytes / one, 2) if one else float(s.concurrency)
    if rules.name == "sglang" and pool_tokens is not None:
        return round(pool_tokens / s.max_model_len, 2)
    return float(s.concurrency)


def _seq_cap(rules: EngineRules, s: Settings) -> int:
    """The most sequences the engine runs at once whatever its pool holds: vLLM's max_num_seqs; else no cap."""
    return s.max_num_seqs if rules.name == "vllm" and s.max_num_seqs else MAX_SEARCH_SEQS


#: the answer's words for the pool or budget, and the same naming the GPU that decides (see `_answer`)
_RANKED = (("fit the pool", "fit GPU {r}'s pool"), ("leave no KV pool", "leave GPU {r} no KV pool"),
           ("; pool ", "; GPU {r}'s pool "), ("its pool holds", "GPU {r}'s pool holds"))


def _answer(rules: EngineRules, s: Settings, led: _Ledger, starts: bool | None, concurrency: float | None,
            pool_tokens: int | None, rank: int | None = None) -> str:
    """The one-line answer, naming the GPU that decides (`rank`, where other processes' memory decides it) where
    the line stays within 80 columns: its pool ('fit GPU 3's pool'), or its memory for llama.cpp ('of GPU 0's'); a
    start check it fails names it itself."""
    text = _plain_answer(rules, s, led, starts, concurrency, pool_tokens)
    if rank is None or f"GPU {rank}" in text:
        return text
    for plain, ranked in _RANKED + ((" of ", " of GPU {r}'s ") if led.budget.kv_pool_bytes is None else ("", ""),):
        if plain and plain in text:
            named = text.replace(plain, ranked.format(r=rank), 1)
            return named if len(named) <= 80 else text
    return text


def _auto_answer(layers: int, of: int) -> str:
    """The answer for Ollama with num_gpu unset where not all fits: it starts with the layers that fit (at most 80
    characters: the layer counts through `compact`)."""
    if layers == 0:
        return "Starts on the CPU: no layer fits the GPU, and Ollama's num_gpu is unset."
    return f"Starts: Ollama puts {compact(layers, 5)} of {compact(of, 5)} layers on the GPU (num_gpu unset; slower)."


def _plain_answer(rules: EngineRules, s: Settings, led: _Ledger, starts: bool | None, concurrency: float | None,
                  pool_tokens: int | None) -> str:
    """The one-line answer: does the engine start, and what limits it. At most 80 characters for any legal input:
    counts go through `compact` (tokens 7 characters, sequences 6, requests 5) and bytes through `compact_gib` (10,
    9 with one decimal), and the longest template with the widest values is 80 (tests/test_review_estimate.py)."""
    n, c = compact(s.max_model_len, 7), compact(s.concurrency, 5)
    ref = led.budget.refusal
    if ref is not None and (ref.certain or starts is None):
        return ref.answer
    if led.weights_exceed():
        return (f"Does not start: weights {compact_gib(led.weights)} per GPU exceed the "
                f"{compact_gib(max(0, led.budget.budget_bytes))} budget.")
    pool = led.budget.kv_pool_bytes
    if pool is None:  # llama.cpp, generic: the whole cache is allocated at start
        need = led.weights + led.kv(s.max_model_len, s.concurrency) + led.budget.overhead_bytes
        verb = "Starts" if starts else "Does not start"
        return f"{verb}: {n} x {c} needs {compact_gib(need)} of {compact_gib(led.budget.budget_bytes)}."
    if starts is None:
        return (f"Undetermined: starts unless up to {compact_gib(led.budget.uncertain_bytes, 1)} of unmodelled "
                "overhead applies.")
    if pool <= 0 or not starts and rules.name != "vllm":
        return (f"Does not start: weights and overheads leave no KV pool ({compact_gib(-pool)} short)." if pool < 0
                else "Does not start: weights and overheads leave no KV pool.")
    if not starts:
        return (f"Does not start: a {n}-token sequence needs {compact_gib(led.kv(s.max_model_len, 1), 1)} of KV; "
                f"pool {compact_gib(pool, 1)}.")
    run = min(s.concurrency, led.max_seqs(s.max_model_len), _seq_cap(rules, s))
    seqs = "<0.01" if concurrency is not None and concurrency < 0.01 else compact(concurrency or 0, 6)
    if run == 0:  # a pool of some tokens but not one whole sequence (SGLang)
        return f"Starts, but its pool holds only {seqs} of one {n}-token sequence."
    head = f"Starts: {seqs} sequences of {n} tokens fit the pool"
    if s.concurrency == 1:
        return head + "."
    return head + (f"; all {c} run at once." if run >= s.concurrency else f"; {compact(run, 5)} of {c} at once.")


#: the options `estimate` takes that only some engines read: option -> (the rules that read it, what the others do)
READ_BY: dict[str, tuple[tuple[str, ...], str]] = {
    "--block-size": (("vllm",), "SGLang's pages and llama.cpp's cells hold one token each"),
    "--max-num-batched-tokens": (("vllm", "sglang", "generic"), "llama.cpp's batch is -b / -ub, --n-ubatch here"),
    "--max-num-seqs": (("vllm",), "--concurrency gives the sequences it serves at once"),
    "--n-ubatch": (("llamacpp",), "it is llama.cpp's physical batch"),
    "--kv-unified": (("llamacpp",), "it is llama.cpp's cache layout across slots"),
    "--sampler": (("vllm",), "it is vLLM's top-k/top-p sampler backend"),
    "--nnodes": (("vllm", "sglang", "llamacpp"), "the generic estimate has no communication buffers"),
    "--enforce-eager": (("vllm",), "it is vLLM's switch for CUDA graphs (SGLang's graphs are in the headroom its "
                                   "--mem-fraction-static leaves, --disable-cuda-graph; llama.cpp sizes no graphs)"),
}


def ignored_options(engine: str, given: dict[str, object]) -> list[str]:
    """Warnings for options in `given` (those the user typed, option -> value) that `engine` does not read; they are
    ignored. Raises UsageError for one the engine cannot take: another engine's memory fraction (as
    --mem-fraction-static is for vLLM), a version that is not the engine's, a GGUF file type vLLM's GGUF loader
    has no kernel for."""
    rules = get_engine(engine)
    name, front = rules.name, _front_end(engine, rules)[0]
    out = []
    if "--gpu-memory-utilization" in given and name != "vllm":
        raise UsageError(f"is vLLM's; {front} does not read it.", option="--gpu-memory-utilization",
                         hint="For SGLang use --mem-fraction-static." if name == "sglang" else
                         "llama.cpp allocates what -c and -ngl ask for." if name == "llamacpp" else
                         "The generic estimate takes the whole GPU.")
    for option, (readers, why) in READ_BY.items():
        if option in given and name not in readers:
            out.append(f"{option} is ignored: {front} does not read it; {why}.")
    v = release(given.get("--engine-version")) or release(NEWEST_VLLM)
    if "--sampler" in given and name == "vllm" and v < (0, 9, 2):
        out.append(f"--sampler is ignored for vLLM {given.get('--engine-version')}: the sampler's backends are "
                   "modelled from 0.9.2, where its profile's accounting was read.")
    fmt = str(given.get("--weights") or "").lower()
    if fmt and name in ("vllm", "sglang"):
        from .gguf_formats import ftype_names

        if fmt.upper() in {n.upper() for n in ftype_names()}:
            out.append(_gguf_on(name, fmt, given.get("_types") or set()))
    return out


#: the GGUF tensor types vLLM's GGUF loader dequantizes or multiplies (`model_executor/layers/quantization/gguf.py`,
#: 0.11.0: UNQUANTIZED_TYPES | STANDARD_QUANT_TYPES | KQUANT_TYPES | IMATRIX_QUANT_TYPES)
VLLM_GGUF_TYPES = {"F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q8_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K",
                   "Q6_K", "IQ1_M", "IQ1_S", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ4_XS", "IQ4_NL"}
NEWEST_VLLM = "0.11.0"


def _gguf_on(name: str, fmt: str, types: set[str]) -> str:
    if name == "vllm":
        bad = sorted(t for t in types if t.upper() not in VLLM_GGUF_TYPES)
        if bad:
            raise UsageError(f"'{fmt}' gives {', '.join(bad)} tensors, which vLLM's GGUF loader has no kernel for "
                             "(model_executor/layers/quantization/gguf.py).", option="--weights",
                             hint="Pick a file type of Q*_0, Q*_K or IQ* tensors, or --engine llamacpp.")
        return (f"--weights {fmt} is a GGUF file type: vLLM loads such a file (experimentally) and keeps its blocks as "
                "they are, so the figures are the file's tensors; its CUDA-graph and kernel choices for GGUF are not "
                "modelled.")
    return (f"--weights {fmt} is a GGUF file type: SGLang's GGUF loading is not modelled, so the figures are the "
            "file's tensors placed as the checkpoint's would be.")


def _front_end(engine: str, rules: EngineRules) -> tuple[str, Spelling | None]:
    """(the engine's name as `estimate` reports it, its spelling of llama.cpp's settings): Ollama, KoboldCpp and
    llama-cpp-python run llama.cpp's rules in their own settings; every other engine spells its own flags."""
    try:
        e = get(engine)
    except UsageError:
        return rules.name, None
    if rules.name != "llamacpp":
        return e.name if e.rules is None else rules.name, None
    return e.name, e.spelling or get("llamacpp").spelling


def _spelled_cell(sp: Spelling, s: Settings) -> str:
    from .engines.llamacpp import spelled_cell  # (llama.cpp's module only where its rules run: start-up time)

    return spelled_cell(sp, s)


def _check_spelled(s: Settings, front: str, sp: Spelling | None) -> None:
    """A KV cache type the front end has no setting for is refused (Ollama: f16, q8_0, q4_0; KoboldCpp: f16 and
    --quantkv 1 / 2)."""
    if sp is None:
        return
    t = {"auto": "f16", "fp16": "f16", "fp32": "f32"}.get(s.kv_cache_dtype, s.kv_cache_dtype)
    if t not in sp.kv_types:
        raise UsageError(f"{sp.label} has no setting for a {t} KV cache.", option="--kv-cache-dtype",
                         hint=f"{sp.label} takes: {', '.join(sp.kv_types)}.")


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
    rules = get_engine(engine)
    front, sp = _front_end(engine, rules)
    if gpu_bytes <= 0:
        raise UsageError("must be more than 0 bytes.", option="--gpu-memory")
    given = settings or Settings()
    if given.engine_version is not None:
        rules.check_version(given.engine_version)
        if rules.name != "llamacpp" and given.engine_version[:1] in ("v", "V"):  # a git tag (v0.10.1): the release
            given = given.with_(engine_version=given.engine_version[1:])
    s = rules.resolve(model, given, gpu_bytes).with_(gpu_memory_bytes=gpu_bytes)
    _check_resolved(given, s, rules)
    _check(s, model, rules, grid or [])
    _check_spelled(s, front, sp)
    check_gpu_used(s, gpu_bytes)
    check_nnodes(s, rules.name)
    decision = decide(model, rules, s, gpu_bytes)
    model, s = decision.model, decision.settings
    stage_rows, stage_note = decision.stage_rows, decision.stage_note
    led = _Ledger(model, rules, s, gpu_bytes)
    kv = kv_dtype(model, s)
    tp = s.tensor_parallel_size
    per_token = rules.growing_bytes_per_token(model, s)
    window = sum(min(layer.window, s.max_model_len) * layer.bytes_per_token(kv, tp)
                 for layer in model.layers if layer.kind == "sliding")
    kv_sel = led.kv(s.max_model_len, s.concurrency)
    refused = led.budget.refusal is not None and led.budget.refusal.certain  # (whatever the cell: no capacity)

    def verdict(n: int, c: int) -> Verdict:
        return "refused" if refused else led.verdict(n, c)

    auto = front == "ollama" and s.n_gpu_layers is None  # Ollama offloads what fits (see Estimate.auto_gpu_layers)

    def auto_layers(n: int, c: int) -> int | None:
        if not auto or led.verdict(n, c) == "fits":
            return None
        return max(0, _max_ngl(model, rules, s.with_(max_model_len=n, concurrency=c), gpu_bytes))

    cells = []
    for n, c in grid or []:
        kv_c = led.kv(n, c)
        layers = auto_layers(n, c)
        starts = led.starts(n, c) or layers is not None
        cells.append(Cell(max_model_len=n, concurrency=c, kv_cache_bytes=kv_c,
                          total_bytes=led.weights + kv_c + led.budget.overhead_bytes, verdict=verdict(n, c),
                          starts=starts, concurrent=min(c, led.max_seqs(n), _seq_cap(rules, s)) if starts else 0,
                          auto_gpu_layers=layers))
    pool = led.budget.kv_pool_bytes
    pool_tokens = rules.pool_tokens(model, s, pool) if pool is not None else None
    allocated = rules.allocation(model, s) if pool is None else None
    if allocated:  # engines that size the cache to the request (llama.cpp)
        pool, pool_tokens = allocated
    max_ngl = host_w = host_kv = None
    if rules.name == "llamacpp":
        max_ngl = _max_ngl(model, rules, s, gpu_bytes)
        max_ngl = None if max_ngl < 0 else max_ngl
        host_w, host_kv = rules.host_bytes(model, s, s.max_model_len, s.concurrency)  # type: ignore[attr-defined]
    auto_sel = auto_layers(s.max_model_len, s.concurrency)
    starts: bool | None = led.starts(s.max_model_len, s.concurrency) or auto_sel is not None
    concurrency = _engine_concurrency(model, rules, s, led, pool_tokens) if starts else None
    unsure = led.budget.uncertain_bytes
    if starts and unsure and not led.starts(s.max_model_len, s.concurrency, less=unsure):
        starts = None
    refusal = led.budget.refusal
    if starts and refusal is not None and not refusal.certain:
        starts = None
    notes = list(model.notes) + ([stage_note] if stage_note else []) + ([decision.note] if decision.note else [])
    if refusal is not None and not decision.note:  # (a check failed with no other process named: its rule)
        notes.append(refusal.why)
    if auto_sel is not None:
        notes.append(f"num_gpu is unset, so Ollama puts on the GPU the layers its own estimate fits (llm/server.go: "
                     f"num_gpu = estimate.Layers, the CPU where none fits; from v0.30 llama-server's own fit) and runs "
                     f"the rest on the CPU: about {auto_sel} of {model.num_decoder_layers + 1} here; the ledger above "
                     "is every layer on the GPU, which the advice makes fit; with num_gpu set, Ollama does not start "
                     "where it does not fit")
    if sp and "{c}" not in sp.context and s.concurrency > 1:
        notes.append(f"{sp.label} has no parallel-slots setting: the figures are one context of "
                     f"{s.max_model_len * s.concurrency:,} tokens ({s.max_model_len:,} x {s.concurrency})")
    if s.max_model_len > (model.max_position_embeddings or MAX_SEARCH_LEN):
        notes.append(f"max_model_len {s.max_model_len} exceeds the model's max_position_embeddings "
                     f"{model.max_position_embeddings}; {rules.past_context}")
    return Estimate(
        model=model.name, engine=rules.name, front_end=front, gpu=gpu_name, gpu_memory_bytes=gpu_bytes,
        budget_bytes=max(0, led.budget.budget_bytes), settings=s,
        cell_flags=_spelled_cell(sp, s) if sp else rules.cell_flags(s),
        gpu_layers_flag=sp.gpu_layers_name() if sp else "-ngl",
        weights_bytes=led.weights, weights_exact=model.weights.exact,
        weights_source=model.weights.source + rules.weights_note(model, s),
        kv_bytes_per_token=per_token, kv_window_bytes_per_seq=window,
        state_bytes_per_seq=state_bytes_per_seq(model, s),
        engine_kv_bytes_per_token=rules.engine_bytes_per_token(model, s),
        kv_cache_bytes=kv_sel, overhead_bytes=led.budget.overhead_bytes, overheads=led.budget.overheads,
        total_bytes=led.weights + kv_sel + led.budget.overhead_bytes,
        kv_pool_bytes=None if pool is None else max(0, pool), kv_pool_tokens=pool_tokens,
        kv_pool_shortfall_bytes=max(0, -pool) if pool is not None else 0,
        verdict=verdict(s.max_model_len, s.concurrency), starts=starts, max_concurrency=concurrency,
        answer=(_auto_answer(auto_sel, model.num_decoder_layers + 1) if auto_sel is not None else
                _answer(rules, s, led, starts, concurrency, pool_tokens, decision.deciding_rank)),
        auto_gpu_layers=auto_sel,
        uncertain=led.budget.uncertain, max_n_gpu_layers_fit=max_ngl, host_weights_bytes=host_w,
        host_kv_cache_bytes=host_kv, pipeline_stages=stage_rows, deciding_rank=decision.deciding_rank,
        ranks=decision.rows, refusal=refusal.short if refusal is not None and starts is not True else "",
        kv_pool_bytes_low=max(0, led.budget.kv_pool_bytes - unsure) if led.budget.kv_pool_bytes is not None else None,
        max_model_len_fit=0 if refused else led.max_len(s.concurrency),
        max_concurrency_fit=0 if refused else led.max_seqs(s.max_model_len),
        grid=tuple(cells), advice=tuple(_advice(model, rules, s, gpu_bytes, led, sp)),
        layer_counts={k: model.count(k) for k in ("full", "sliding", "mla", "state", "shared") if model.count(k)},
        num_decoder_layers=model.num_decoder_layers,
        engine_rules=rules.rules_used(s), notes=tuple(notes),
    )
