"""The one model of a model: `ModelSpec`, a list of per-layer cache specs plus weights.

Every source (config.json, safetensors headers, GGUF metadata, the Hub, the
catalog) parses into this, and every memory figure is computed from it once.
One frozen dataclass per layer kind, each knowing its own cache size, as
vLLM's `vllm/v1/kv_cache_interface.py` does.

Units: bytes are ints, tokens are ints, `tp` is the tensor-parallel size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Union

from .dtypes import KvDtype

if TYPE_CHECKING:
    from .layout import DecoderLayout


def kv_heads_per_gpu(num_kv_heads: int, tp: int) -> int:
    """KV heads one GPU holds: max(1, num_key_value_heads // tp).

    Source: vLLM `ModelConfig.get_num_kv_heads` (heads are replicated, never
    split, when tp exceeds them); SGLang `get_num_kv_heads` does the same.
    """
    return max(1, num_kv_heads // tp)


@dataclass(frozen=True, kw_only=True)
class FullAttention:
    """A layer that caches K and V for every token of the context (MHA, GQA, MQA).

    num_kv_heads: config `num_key_value_heads` (defaults to `num_attention_heads`).
    head_dim_k / head_dim_v: config `head_dim` (else hidden_size / num_attention_heads);
    separate when the config has `v_head_dim`.
    """

    kind: Literal["full"] = "full"
    num_kv_heads: int
    head_dim_k: int
    head_dim_v: int

    def k_elems(self, tp: int) -> int:
        return kv_heads_per_gpu(self.num_kv_heads, tp) * self.head_dim_k

    def v_elems(self, tp: int) -> int:
        return kv_heads_per_gpu(self.num_kv_heads, tp) * self.head_dim_v

    def bytes_per_token(self, kv: KvDtype, tp: int) -> int:
        """K + V bytes per token on one GPU: kv_heads/tp x (head_dim_k + head_dim_v) x width."""
        return kv.row_bytes(self.k_elems(tp)) + kv.row_bytes(self.v_elems(tp))


@dataclass(frozen=True, kw_only=True)
class SlidingWindow(FullAttention):
    """Full attention limited to the last `window` tokens (config `sliding_window`).

    The cache per sequence stops growing at the window; how far past it an
    engine keeps tokens is an engine rule (see `vramdoctor.engines`).
    """

    kind: Literal["sliding"] = "sliding"  # type: ignore[assignment]
    window: int


@dataclass(frozen=True, kw_only=True)
class LatentAttention:
    """Multi-head latent attention (DeepSeek-V2/V3): one latent per token per layer.

    kv_lora_rank + qk_rope_head_dim elements, shared by all heads, so tensor
    parallelism does not divide it (vLLM `MLAAttentionSpec`, SGLang `MLATokenToKVPool`).
    index_head_dim: DeepSeek-V3.2's lightning-indexer key cache (config `index_head_dim`), 0 if absent.
    """

    kind: Literal["mla"] = "mla"
    kv_lora_rank: int
    qk_rope_head_dim: int
    index_head_dim: int = 0

    def bytes_per_token(self, kv: KvDtype, tp: int) -> int:
        """Latent bytes per token (tp-independent).

        bf16/fp16: (kv_lora_rank + qk_rope_head_dim) x 2. fp8 on a model with an
        indexer uses DeepSeek's fp8_ds_mla layout (vLLM `fp8_ds_mla`, SGLang NSA):
        kv_lora_rank fp8 bytes + one fp32 scale per 128 + the rope part in bf16,
        plus the indexer key (index_head_dim fp8 + one fp32 scale per 128).
        Otherwise fp8 is one byte per element.
        """
        if self.index_head_dim and kv.block_bytes == 1 and kv.block_elems == 1:
            latent = self.kv_lora_rank + (self.kv_lora_rank // 128) * 4 + self.qk_rope_head_dim * 2
        else:
            latent = kv.row_bytes(self.kv_lora_rank + self.qk_rope_head_dim)
        return latent + self.indexer_bytes_per_token()

    def indexer_bytes_per_token(self) -> int:
        if not self.index_head_dim:
            return 0
        return self.index_head_dim + -(-self.index_head_dim // 128) * 4


@dataclass(frozen=True, kw_only=True)
class RecurrentState:
    """A linear-attention or Mamba layer: a fixed-size state per sequence, no per-token growth.

    conv_elems: elements of the convolution state (conv_dim x (d_conv - 1)), divided by tp.
    ssm_elems: elements of the recurrent / SSM state, divided by tp.
    family: "mamba", "mamba2", "gated_deltanet", or "lightning" (MiniMax-Text-01's lightning
    attention: no conv state, one num_attention_heads x head_dim x head_dim matrix,
    `MambaStateShapeCalculator.linear_attention_state_shape`).
    parallel: the state sits beside the attention of the same decoder layer (Falcon-H1's parallel
    hybrid: every layer holds a KV cache and a Mamba2 state), so this entry follows its layer's
    attention entry in `ModelSpec.layers` and is not a decoder layer of its own.
    Sources: vLLM `MambaSpec` shapes (`mamba_utils.MambaStateShapeCalculator`).
    """

    kind: Literal["state"] = "state"
    family: str
    conv_elems: int
    ssm_elems: int
    parallel: bool = False

    def bytes_per_token(self, kv: KvDtype, tp: int) -> int:
        return 0

    def bytes_per_seq(self, state_bytes_per_elem: int, tp: int) -> int:
        """State bytes of one sequence on one GPU."""
        return (self.conv_elems // tp + self.ssm_elems // tp) * state_bytes_per_elem


@dataclass(frozen=True, kw_only=True)
class SharedKV:
    """An attention layer that reads an earlier layer's K/V cache and keeps none of its own.

    Cross-layer KV sharing (Gemma 3n, config `num_kv_shared_layers`): the last N decoder layers
    attend over the cache of the last earlier layer of the same attention type. vLLM gives such a
    layer `kv_sharing_target_layer_name` (`model_executor/models/gemma3n.py`) and its
    `get_kv_cache_spec` skips it (`v1/worker/gpu_model_runner.py`, `shared_kv_cache_layers`): it
    owns no pages, so every cache size here is 0.
    target_layer: index of the decoder layer whose cache it reads. target_kind: that layer's kind
    ('full' or 'sliding').
    num_kv_heads / head_dim_k / head_dim_v: the shape of its own K/V projections, which the
    checkpoint still holds (parameter counts only).
    """

    kind: Literal["shared"] = "shared"
    target_layer: int
    target_kind: str
    num_kv_heads: int
    head_dim_k: int
    head_dim_v: int

    def __post_init__(self) -> None:
        if self.target_kind not in ("full", "sliding") or self.target_layer < 0:
            raise ValueError(f"a shared-KV layer reads an earlier full or sliding layer, "
                             f"not {self.target_kind} layer {self.target_layer}")

    def k_elems(self, tp: int) -> int:
        return 0

    def v_elems(self, tp: int) -> int:
        return 0

    def bytes_per_token(self, kv: KvDtype, tp: int) -> int:
        return 0

    def bytes_per_seq(self, state_bytes_per_elem: int, tp: int) -> int:
        return 0


LayerSpec = Union[FullAttention, SlidingWindow, LatentAttention, RecurrentState, SharedKV]


@dataclass(frozen=True, kw_only=True)
class WeightsInfo:
    """Bytes the weights take once loaded (whole model, all GPUs together).

    total_bytes: exact when `exact` (safetensors headers, GGUF tensor infos,
    a checkpoint index's `total_size`), else parameters x width.
    source: where the figure came from, shown to the user.
    num_params: parameter count when known.
    replicated_bytes: bytes every GPU holds under tensor parallelism (embeddings
    vocab-parallel are split, so this is norms and similar; 0 when unknown).
    embedding_params: parameters of the input embedding and the LM head (one table when tied),
    which every quantization method leaves in the compute dtype; None when unknown.
    layer_bytes / input_bytes / output_bytes: where the bytes are, when the source tells (GGUF tensor
    infos): per repeating block (`blk.N.*`), the input embedding (`token_embd.*`, which llama.cpp keeps
    on the host), and the output head and final norm (`output*`); empty / None when unknown.
    tensors: (name, shape in ggml order, ggml type name) of a GGUF file's tensors, for the what-if of
    another llama.cpp file type; empty for other sources.
    """

    total_bytes: int
    exact: bool
    source: str
    num_params: int | None = None
    replicated_bytes: int = 0
    embedding_params: int | None = None
    layer_bytes: tuple[int, ...] = ()
    input_bytes: int | None = None
    output_bytes: int | None = None
    tensors: tuple[tuple[str, tuple[int, ...], str], ...] = ()


@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """A model as far as memory is concerned.

    layers: one entry per decoder layer, in order; a parallel hybrid layer (Falcon-H1) has two, its
    attention then its state (`RecurrentState.parallel`), and a layer that reads another's cache
    has a `SharedKV` entry.
    dtype: compute dtype short name (fp32/fp16/bf16), config `torch_dtype`.
    quantization: weight quantization method (config `quantization_config.quant_method`, GGUF file type) or None.
    max_position_embeddings: trained context (config key, GGUF `{arch}.context_length`).
    num_experts / moe_intermediate_size / num_moe_layers: routed experts per MoE layer (config
    `num_local_experts`, `num_experts` or `n_routed_experts`), each expert's intermediate size
    (`moe_intermediate_size`, else `intermediate_size`), and how many layers are MoE; None / 0 for
    dense models. num_experts_per_tok: the experts each token is routed to (config `num_experts_per_tok`),
    None where the config does not say.
    layout: the parameters vLLM and SGLang create per GPU (`layout.DecoderLayout`), for the llama-style
    decoders whose module layout is known (from config.json); None otherwise (GGUF files, other families,
    quantization methods other than fp8 block scales).
    """

    name: str
    architecture: str
    layers: tuple[LayerSpec, ...]
    dtype: str
    weights: WeightsInfo
    quantization: str | None = None
    max_position_embeddings: int | None = None
    vocab_size: int | None = None
    hidden_size: int | None = None
    intermediate_size: int | None = None
    num_attention_heads: int | None = None
    num_experts: int | None = None
    moe_intermediate_size: int | None = None
    num_moe_layers: int = 0
    num_experts_per_tok: int | None = None
    layout: "DecoderLayout | None" = None
    source: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if not self.layers:
            raise ValueError("a ModelSpec needs at least one layer")

    def count(self, kind: str) -> int:
        return sum(1 for layer in self.layers if layer.kind == kind)

    @property
    def attention_layers(self) -> tuple[LayerSpec, ...]:
        return tuple(layer for layer in self.layers if layer.kind != "state")

    @property
    def num_decoder_layers(self) -> int:
        """Decoder layers the entries describe: a parallel state (Falcon-H1) shares its layer with
        the attention entry before it. MLP-only blocks (Nemotron-H '-') have no entry."""
        return sum(1 for layer in self.layers if not getattr(layer, "parallel", False))
