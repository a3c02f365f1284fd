"""What every engine rule shares: the settings, the per-GPU view of a model, and the rule interface."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Protocol

from ..dtypes import KvDtype, dtype_bytes, resolve_kv_dtype
from ..errors import UsageError
from ..layout import DecoderLayout, load_events
from ..spec import ModelSpec
from ..caching_allocator import AllocatorTotals, caching_allocator

GIB = 2**30


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The knobs an estimate is taken under. Names are the engines' own.

    max_model_len: context per sequence, tokens. concurrency: sequences at once.
    kv_cache_dtype: `auto` or a dtypes name. tensor_parallel_size: GPUs sharing each layer.
    pipeline_parallel_size: stages of consecutive layers (vLLM, SGLang); each stage has
    tensor_parallel_size GPUs.
    gpu_memory_utilization: vLLM's fraction of total memory (0-1].
    mem_fraction_static: SGLang's fraction (None: SGLang's default for the GPU size).
    block_size: vLLM page size in tokens. max_num_batched_tokens: vLLM tokens per step (profile size);
    None: the engine's default for the version and device (see `RulesBase.resolve`).
    max_num_seqs: vLLM's --max-num-seqs, the sequences it runs at once at most and profiles the sampler for; None:
    the engine's default for the release and GPU (not `concurrency`, which is the requests the user sends at once).
    sampler: vLLM's top-k/top-p sampler backend, "flashinfer" or "pytorch" (VLLM_USE_FLASHINFER_SAMPLER; its log
    says "Using FlashInfer for top-p & top-k sampling" for the first); None: by the release and GPU, where they
    settle it, else undetermined between the two (`engines/vllm.py` `sampler_backend`).
    mxfp4_backend: vLLM's MoE kernel for mxfp4 experts, "marlin" (its log: "Using Marlin backend"); None: by the
    release and GPU where they settle it, else undetermined (`engines/vllm.py` `mxfp4_backend`).
    engine_version: the engine release whose rules apply ("0.6.4"); None: the newest modelled.
    device_name: the GPU's name as the runtime reports it (vLLM's defaults look at it: "a100").
    n_gpu_layers: llama.cpp's -ngl, the repeating layers (and, past their count, the output layer) put
    on the GPU; None: all of them.
    n_ubatch / kv_unified / swa_full / flash_attn: llama.cpp context parameters.
    activation_bytes / non_torch_bytes / cuda_graph_bytes: measured overheads that replace
    the estimates (from an engine's log), None to estimate.
    gpu_used: memory other processes already hold on some of the server's GPUs, ((rank, bytes), ...) in rank order
    (`--gpu-used`); a rank is a GPU of the server's tensor_parallel_size x pipeline_parallel_size, 0-based, stage x
    tensor_parallel_size + tensor rank (vLLM's and SGLang's global rank; llama.cpp's device index). Ranks not given
    hold nothing else. rank: the GPU whose ledger this is (None: one no other process uses); `estimate` sets it to
    the rank that decides. gpu_memory_bytes: each GPU's memory, set by `estimate` for the rules that need it outside
    `budget` (llama.cpp's split by free memory); 0 when not set.
    nnodes: the nodes the server's GPUs span (`--nnodes`), the GPUs split evenly over them in rank order.
    """

    max_model_len: int = 4096
    concurrency: int = 1
    kv_cache_dtype: str = "auto"
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    gpu_memory_utilization: float = 0.9
    mem_fraction_static: float | None = None
    block_size: int = 16
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    sampler: str | None = None
    mxfp4_backend: str | None = None
    engine_version: str | None = None
    device_name: str = ""
    n_gpu_layers: int | None = None
    n_ubatch: int = 512
    kv_unified: bool = True
    swa_full: bool = False
    flash_attn: bool = True
    enforce_eager: bool = False
    activation_bytes: int | None = None
    non_torch_bytes: int | None = None
    cuda_graph_bytes: int | None = None
    gpu_used: tuple[tuple[int, int], ...] = ()
    rank: int | None = None
    gpu_memory_bytes: int = 0
    nnodes: int = 1

    def with_(self, **changes) -> "Settings":
        return replace(self, **changes)

    @property
    def world_size(self) -> int:
        """The server's GPUs: tensor_parallel_size x pipeline_parallel_size."""
        return self.tensor_parallel_size * self.pipeline_parallel_size

    def used_on(self, rank: int | None) -> int:
        """Bytes other processes hold on GPU `rank` (0 for a rank not given, and for None)."""
        return dict(self.gpu_used).get(rank, 0) if rank is not None else 0

    @property
    def used_most(self) -> int:
        """The most other processes hold on any of the server's GPUs."""
        return max((b for _, b in self.gpu_used), default=0)


@dataclass(frozen=True, kw_only=True)
class Overhead:
    """One non-weight, non-KV charge. estimated: False when it came from a measurement."""

    name: str
    bytes: int
    estimated: bool
    assumption: str


@dataclass(frozen=True, kw_only=True)
class Refusal:
    """A check the engine makes at start that refuses these settings whatever its pool would hold (vLLM's free
    memory against its request, SGLang's balance of free memory over the ranks). certain: False when what is not
    modelled decides it (the start is then undetermined). rank: the GPU that fails it. answer: the one-line answer
    (80 columns at most). why: the engine's rule, in words, with its source. short: a few words for a grid cell."""

    certain: bool
    rank: int | None
    answer: str
    why: str
    short: str


@dataclass(frozen=True, kw_only=True)
class Budget:
    """How an engine divides one GPU.

    budget_bytes: what the engine lets itself use (total x utilization, or total).
    overheads: charges besides weights and KV that come out of the budget.
    kv_pool_bytes: the KV pool the engine would allocate at start (None where it sizes the
    cache to the request instead, as llama.cpp does).
    uncertain: charges the engine may take that are not modelled, each with its reason and the most
    it could take (bytes); the pool may be smaller by their sum.
    refusal: a start check these settings fail (or may fail) on this GPU, None when they pass it.
    """

    budget_bytes: int
    overheads: tuple[Overhead, ...]
    kv_pool_bytes: int | None
    uncertain: tuple[Overhead, ...] = ()
    refusal: Refusal | None = None

    @property
    def uncertain_bytes(self) -> int:
        return sum(o.bytes for o in self.uncertain)

    @property
    def overhead_bytes(self) -> int:
        return sum(o.bytes for o in self.overheads)


class EngineRules(Protocol):
    """The interface each engine module implements."""

    name: str

    def kv_cache_bytes(self, model: ModelSpec, s: Settings, max_model_len: int, seqs: int) -> int:
        """Per-GPU bytes the KV cache (and recurrent state) takes for `seqs` sequences of `max_model_len`."""

    def budget(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Budget:
        """The budget, overheads and KV pool on one GPU of `gpu_bytes`."""

    def pool_tokens(self, model: ModelSpec, s: Settings, pool_bytes: int) -> int:
        """The KV capacity in tokens the engine would print for a pool of `pool_bytes`."""

    def engine_bytes_per_token(self, model: ModelSpec, s: Settings) -> int:
        """Bytes one token of pool capacity costs, as the engine divides its pool."""

    def flags(self) -> dict[str, str]:
        """This engine's spelling of the settings (max_model_len, concurrency, ...)."""

    def cell_flags(self, s: Settings) -> str:
        """The selected cell as this engine's command-line flags."""

    def growing_bytes_per_token(self, model: ModelSpec, s: Settings) -> int:
        """Per GPU, bytes per token of the layers that grow with every token (RulesBase)."""

    def resolve(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Settings:
        """The settings with the engine's defaults for this version and device filled in (RulesBase)."""

    def rules_used(self, s: Settings) -> str:
        """The version rules a resolved Settings selects, in words (RulesBase)."""

    def check_version(self, version: str) -> None:
        """Raise UsageError when `--engine-version` cannot be read as this engine's version (RulesBase)."""

    def weights_bytes(self, model: ModelSpec, s: Settings) -> int:
        """Weights on one GPU under these settings (RulesBase: total / tensor_parallel_size)."""

    def weights_note(self, model: ModelSpec, s: Settings) -> str:
        """How the engine's weights figure differs from the checkpoint's bytes, in words ('' when it does not)."""

    def allocation(self, model: ModelSpec, s: Settings) -> tuple[int, int] | None:
        """The KV cache an engine sized to the request allocates, or None (RulesBase)."""


class RulesBase:
    """Defaults the engines share; an engine overrides what it does differently."""

    def resolve(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Settings:
        """The settings with every engine default filled in (tokens per step, sequences)."""
        return s.with_(max_num_batched_tokens=step_tokens(s), max_num_seqs=s.max_num_seqs or DEFAULT_MAX_NUM_SEQS)

    def rules_used(self, s: Settings) -> str:
        """Which version's rules an estimate was taken under, in words."""
        return "no version differences modelled"

    def check_version(self, version: str) -> None:
        """A release as vLLM and SGLang print it (0.6.4, 0.10.1.1, 0.4.3.post4)."""
        from .words import release

        if release(version) is None:
            raise UsageError(f"cannot read '{version}' as a release.", option="--engine-version",
                             hint="Give the version the engine prints, e.g. 0.6.4 or 0.10.1.1 (or its git tag, "
                                  "v0.6.4).")

    def weights_bytes(self, model: ModelSpec, s: Settings) -> int:
        """Weights on one GPU (see `weights_per_gpu`)."""
        return weights_per_gpu(model, s.tensor_parallel_size)

    def weights_note(self, model: ModelSpec, s: Settings) -> str:
        return ""

    def growing_bytes_per_token(self, model: ModelSpec, s: Settings) -> int:
        """Per GPU, the bytes per token of the layers whose cache grows with every token (full, MLA),
        KV heads split by tensor parallelism."""
        kv, tp = kv_dtype(model, s), s.tensor_parallel_size
        return sum(layer.bytes_per_token(kv, tp) for layer in model.layers if layer.kind in ("full", "mla"))

    def allocation(self, model: ModelSpec, s: Settings) -> tuple[int, int] | None:
        """(bytes, tokens) of the KV cache an engine that sizes it to the request allocates; None for
        engines that reserve a pool from a memory fraction (see Budget.kv_pool_bytes)."""
        return None

    #: what the engine does with a context past the model's max_position_embeddings, and what lets it run one
    past_context = "engines refuse it or warn, each by its own rule"
    past_context_override = "the engine's override for a longer context"


DEFAULT_STEP_TOKENS = 2048
DEFAULT_MAX_NUM_SEQS = 256


def step_tokens(s: Settings) -> int:
    """Tokens per engine step (profile size): the setting, else 2048."""
    return s.max_num_batched_tokens or DEFAULT_STEP_TOKENS


def kv_dtype(model: ModelSpec, s: Settings) -> KvDtype:
    return resolve_kv_dtype(s.kv_cache_dtype, model.dtype)


def weights_per_gpu(model: ModelSpec, tp: int) -> int:
    """Weights on one GPU: total / tp (+ replicated bytes). Embeddings and lm_head are
    vocab-parallel and experts are sharded in vLLM and SGLang, so the split is near even."""
    share = (model.weights.total_bytes - model.weights.replicated_bytes) // tp
    return share + model.weights.replicated_bytes


@lru_cache(maxsize=64)
def weights_loaded(layout: DecoderLayout, tp: int, rope_kept_bytes: int) -> AllocatorTotals:
    """The allocator's statistics once one GPU of `tp` has built the model of `layout` (its parameters and RoPE
    cache, created one tensor at a time: `layout.load_events` through `caching_allocator.caching_allocator`)."""
    return caching_allocator(load_events(layout, tp, rope_kept_bytes))


def state_bytes_per_seq(model: ModelSpec, s: Settings, elem_bytes: int | None = None) -> int:
    """Recurrent state of one sequence on one GPU (all linear-attention / Mamba layers)."""
    width = elem_bytes if elem_bytes is not None else dtype_bytes(model.dtype)
    tp = s.tensor_parallel_size
    return sum(layer.bytes_per_seq(width, tp) for layer in model.layers if layer.kind == "state")


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def activation_estimate(model: ModelSpec, tokens: int, tp: int) -> int:
    """Peak activation of one forward pass over `tokens` tokens, bytes (estimate).

    tokens x (3 x intermediate_size / tp + 3 x hidden_size) x 2 bytes: the gated MLP's
    gate+up output and activation beside the residual stream. Calibrated on vLLM's
    printed `peak_torch_memory - weights` for Llama-3.1-8B (2.07 GiB at 20,000 tokens,
    2.99 GiB at 29,000; shared/data/ground_truth R01, R02).
    """
    hidden = model.hidden_size or 4096
    inter = model.intermediate_size or 4 * hidden
    return tokens * (3 * inter // tp + 3 * hidden) * 2


#: the tokens vLLM's fused-MoE kernel takes at once (`VLLM_FUSED_MOE_CHUNK_SIZE`, vllm/envs.py: 32768 at runtime;
#: the 64 * 1024 beside it is only the type stub's)
FUSED_MOE_CHUNK = 32768


def moe_activation_estimate(model: ModelSpec, tokens: int, tp: int) -> int:
    """Peak activation of one forward pass over `tokens` tokens through a routed-expert layer, bytes; 0 for a
    dense model or one whose config does not give the experts per token.

    vLLM's Triton fused-MoE path (`fused_moe.py fused_experts_impl`, 0.6 to today) works on chunks of
    M = min(tokens, FUSED_MOE_CHUNK) tokens and allocates, in the activations' dtype (2 bytes): `cache13` of
    M x top_k x max(2 x I / tp, H) (the gate+up output, reused for the down projection's output) and `cache2` of
    M x top_k x I / tp (the activation), I the expert's intermediate size (`moe_intermediate_size`), H the hidden
    size; beside them the residual stream of all `tokens` (3 x H x 2 bytes a token, as in `activation_estimate`).
    Transient: freed before the sampler runs.
    """
    k, inter, hidden = model.num_experts_per_tok, model.moe_intermediate_size, model.hidden_size
    if not (model.num_experts and k and inter and hidden) or tokens <= 0:
        return 0
    m = min(tokens, FUSED_MOE_CHUNK)
    per = inter // tp
    return m * k * (max(2 * per, hidden) + per) * 2 + tokens * 3 * hidden * 2
