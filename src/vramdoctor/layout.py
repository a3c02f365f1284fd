"""The parameters vLLM and SGLang create on one GPU for a llama-style decoder, in the order they create them.
Pure: config fields in, tensor sizes out. The one place where the per-GPU tensors of a checkpoint served by
those engines are built, for `caching_allocator` to place (their weights in memory, see `engines.sglang`).

Sources (vLLM `model_executor/models/llama.py`, `qwen2.py`, `qwen3.py`, `qwen3_moe.py`, and SGLang's copies
under `srt/models/`, which keep vLLM's module order; `layers/linear.py`, `layers/vocab_parallel_embedding.py`,
`layers/fused_moe/layer.py`, `layers/quantization/fp8.py`, `layers/rotary_embedding.py`):

- the model creates `embed_tokens`, then each decoder layer, then the final `norm`, then `lm_head` (none
  when tied: the head reads the embedding); under pipeline parallelism the first stage holds the embedding
  and the last the norm and head (a tied head loads the embedding again there);
- a decoder layer creates its attention (`qkv_proj` weight then bias, `o_proj`, the rotary embedding, then
  Qwen3's `q_norm` and `k_norm`), its MLP (`gate_up_proj`, `down_proj`) or its MoE block (the experts' `w13`
  [E, 2 x I/tp, H] and `w2` [E, H, I/tp], then the router `gate`, replicated and never quantized), then
  `input_layernorm` and `post_attention_layernorm`;
- tensor parallelism splits heads (`QKVParallelLinear`: heads/tp query heads and max(1, kv_heads/tp) KV
  heads), the intermediate size and the vocabulary, padded to 64 (`pad_vocab_size`,
  DEFAULT_VOCAB_PADDING_SIZE) then divided by tp; norms and the router are whole on every GPU;
- fp8 block checkpoints (`Fp8LinearMethod.create_weights`, `Fp8MoEMethod.create_weights`): each linear
  weight in one byte, then its fp32 `weight_scale_inv` of cdiv(N, block_n) x cdiv(K, block_k); the experts'
  w13 and w2 in fp8, then their block scales; embeddings, norms and the router stay in the model dtype;
- `get_rope` builds one cos/sin cache for all layers (`_ROPE_DICT`), in the first layer: inv_freq
  (rotary_dim/2 fp32), positions t (fp32), freqs, cos and sin (positions x rotary_dim/2 fp32 each), then
  the cache `cat(cos, sin)` (positions x rotary_dim fp32); the temporaries go when it returns. vLLM then casts
  the cache to the model dtype (`cache.to(dtype)`); SGLang keeps it in fp32 on CUDA ("cache needs to be in
  FP32 for numerical stability"). Positions: max_position_embeddings, times the factor for `linear` and
  `dynamic` scaling, original_max_position_embeddings times the factor for `yarn`.

Left out: scalar buffers of a few bytes (vLLM's attention scales) and LoRA padding.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .caching_allocator import Alloc, Free

#: model types whose module layout is the one above
FAMILIES = ("llama", "mistral", "qwen2", "qwen3", "qwen3_moe")
VOCAB_PADDING = 64  #: DEFAULT_VOCAB_PADDING_SIZE (vocab_parallel_embedding.py)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True, kw_only=True)
class DecoderLayout:
    """A llama-style decoder as vLLM and SGLang build it (see the module docstring). Sizes are elements.

    family: config `model_type`. hidden_size, vocab_size, num_layers (`num_hidden_layers`), num_heads
    (`num_attention_heads`), num_kv_heads (`num_key_value_heads`), head_dim (`head_dim`, else hidden /
    heads), intermediate_size (the dense MLP's).
    qkv_bias: `qkv_proj` has a bias (Qwen2 always; Llama and Qwen3 with `attention_bias`); o_bias: `o_proj`
    has one (Llama's `attention_bias`); mlp_bias: Llama's `mlp_bias`. qk_norm: Qwen3's per-head q/k norms.
    tied: `tie_word_embeddings` (no lm_head of its own).
    num_experts / moe_intermediate_size: routed experts of the MoE layers (`num_experts`,
    `moe_intermediate_size`); moe_layers: per layer, whether it is MoE (`mlp_only_layers`,
    `decoder_sparse_step`).
    dtype_bytes: the model dtype's width (embeddings, norms, router). weight_bytes: the linear weights' width
    (1 for fp8 checkpoints). fp8_block: `weight_block_size` (block_n, block_k) of an fp8 checkpoint, else None.
    rotary_dim: head_dim x `partial_rotary_factor`. rope_positions: rows of the cos/sin cache.
    layers: the decoder layers held, [first, end); embed / head: whether the embedding / the final norm and
    LM head are held (pipeline stages).
    """

    family: str
    hidden_size: int
    vocab_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    qk_norm: bool = False
    tied: bool = False
    num_experts: int = 0
    moe_intermediate_size: int = 0
    moe_layers: tuple[bool, ...] = ()
    dtype_bytes: int = 2
    weight_bytes: int = 2
    fp8_block: tuple[int, int] | None = None
    rotary_dim: int = 0
    rope_positions: int = 0
    layers: tuple[int, int] = (0, 0)
    embed: bool = True
    head: bool = True

    def __post_init__(self) -> None:
        sizes = (self.hidden_size, self.vocab_size, self.num_layers, self.num_heads, self.num_kv_heads,
                 self.head_dim, self.intermediate_size, self.dtype_bytes, self.weight_bytes)
        if min(sizes) <= 0 or self.rotary_dim < 0 or self.rope_positions < 0:
            raise ValueError(f"a decoder layout needs positive sizes, got {sizes}")
        if self.moe_layers and len(self.moe_layers) != self.num_layers:
            raise ValueError(f"moe_layers has {len(self.moe_layers)} entries for {self.num_layers} layers")
        if self.layers == (0, 0):
            object.__setattr__(self, "layers", (0, self.num_layers))

    def stage(self, first: int, end: int, *, embed: bool, head: bool) -> "DecoderLayout":
        """The layout of a pipeline stage holding layers [first, end)."""
        return replace(self, layers=(first, end), embed=embed, head=head)


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def rope_positions(tc: dict[str, Any]) -> int | None:
    """Rows of the cos/sin cache `get_rope` builds (see the module docstring); None for a scaling type whose
    cache is not modelled (longrope, ntk, dual chunk, mrope)."""
    mpe = _int(tc.get("max_position_embeddings"))
    if not mpe:
        return None
    rs = tc.get("rope_scaling")
    if not rs:
        return mpe
    if not isinstance(rs, dict):
        return None
    kind = rs.get("rope_type") or rs.get("type") or "default"
    factor = rs.get("factor")
    if kind in ("default", "llama3") and "mrope_section" not in rs:
        return mpe
    if not isinstance(factor, (int, float)) or isinstance(factor, bool) or factor <= 0:
        return None
    if kind in ("linear", "dynamic"):
        return int(mpe * factor)
    if kind == "yarn":
        return int((_int(rs.get("original_max_position_embeddings")) or mpe) * factor)
    return None


def layout_from_config(tc: dict[str, Any], layers: tuple, dtype_bytes: int,
                       quant: dict[str, Any] | None) -> DecoderLayout | None:
    """The layout of a config of one of FAMILIES (unquantized, or fp8 with block scales); None for any other
    model type, quantization, layer mix or RoPE scaling (the engines then count the checkpoint's bytes alone)."""
    family = str(tc.get("model_type") or "")
    if family not in FAMILIES or any(layer.kind not in ("full", "sliding") for layer in layers):
        return None
    fp8_block = None
    if quant:
        block = quant.get("weight_block_size")
        if str(quant.get("quant_method")) != "fp8" or not (isinstance(block, list) and len(block) == 2
                                                            and all(_int(b) for b in block)):
            return None
        fp8_block = (block[0], block[1])
    hidden, vocab, heads = _int(tc.get("hidden_size")), _int(tc.get("vocab_size")), _int(tc.get("num_attention_heads"))
    positions = rope_positions(tc)
    if not (hidden and vocab and heads and positions and layers):
        return None
    first = layers[0]
    head_dim = first.head_dim_k
    partial = tc.get("partial_rotary_factor", 1.0)
    if not (isinstance(partial, (int, float)) and not isinstance(partial, bool) and 0 < partial <= 1):
        partial = 1.0
    n = len(layers)
    experts = _int(tc.get("num_experts")) if family == "qwen3_moe" else None
    moe: tuple[bool, ...] = ()
    if experts:
        step = _int(tc.get("decoder_sparse_step")) or 1
        only = tc.get("mlp_only_layers") or []
        only = only if isinstance(only, list) else []
        moe = tuple(i not in only and (i + 1) % step == 0 for i in range(n))
    bias = bool(tc.get("attention_bias"))
    return DecoderLayout(
        family=family, hidden_size=hidden, vocab_size=vocab, num_layers=n, num_heads=heads,
        num_kv_heads=first.num_kv_heads, head_dim=head_dim,
        intermediate_size=_int(tc.get("intermediate_size")) or 4 * hidden,
        qkv_bias=family == "qwen2" or bias, o_bias=family == "llama" and bias,
        mlp_bias=family == "llama" and bool(tc.get("mlp_bias")), qk_norm=family in ("qwen3", "qwen3_moe"),
        tied=bool(tc.get("tie_word_embeddings")), num_experts=experts or 0,
        moe_intermediate_size=(_int(tc.get("moe_intermediate_size")) or 0) if experts else 0, moe_layers=moe,
        dtype_bytes=dtype_bytes, weight_bytes=1 if fp8_block else dtype_bytes, fp8_block=fp8_block,
        rotary_dim=int(head_dim * partial), rope_positions=positions)


def load_events(layout: DecoderLayout, tp: int, rope_kept_bytes: int) -> list[Alloc | Free]:
    """The tensors one GPU of `tp` creates while the engine builds the model, in order (see the module
    docstring). rope_kept_bytes: the width the cos/sin cache is kept in (4: SGLang; the model dtype: vLLM)."""
    L, H, dt = layout, layout.hidden_size, layout.dtype_bytes
    ev: list[Alloc | Free] = []

    def linear(name: str, n_out: int, n_in: int, bias: bool = False) -> None:
        ev.append(Alloc(name=name, nbytes=n_out * n_in * L.weight_bytes))
        if L.fp8_block:
            bn, bk = L.fp8_block
            ev.append(Alloc(name=name + ".scale", nbytes=_cdiv(n_out, bn) * _cdiv(n_in, bk) * 4))
        if bias:
            ev.append(Alloc(name=name + ".bias", nbytes=n_out * dt))

    vocab = _cdiv(_cdiv(L.vocab_size, VOCAB_PADDING) * VOCAB_PADDING, tp)
    if L.embed:
        ev.append(Alloc(name="embed_tokens", nbytes=vocab * H * dt))
    q_heads, kv_heads = L.num_heads // tp, max(1, L.num_kv_heads // tp)
    rope_made = False
    for i in range(*L.layers):
        p = f"layers.{i}."
        linear(p + "qkv_proj", (q_heads + 2 * kv_heads) * L.head_dim, H, L.qkv_bias)
        linear(p + "o_proj", H, q_heads * L.head_dim, L.o_bias)
        if not rope_made and L.rope_positions and L.rotary_dim:
            half = L.rotary_dim // 2
            tmp = {"inv_freq": half * 4, "t": L.rope_positions * 4, "freqs": L.rope_positions * half * 4,
                   "cos": L.rope_positions * half * 4, "sin": L.rope_positions * half * 4}
            ev.extend(Alloc(name="rope." + k, nbytes=v) for k, v in tmp.items())
            ev.append(Alloc(name="rope.cache.fp32", nbytes=L.rope_positions * L.rotary_dim * 4))
            ev.extend(Free(name="rope." + k) for k in tmp)
            if rope_kept_bytes != 4:
                ev.append(Alloc(name="rope.cache", nbytes=L.rope_positions * L.rotary_dim * rope_kept_bytes))
                ev.append(Free(name="rope.cache.fp32"))
            rope_made = True
        if L.qk_norm:
            ev.append(Alloc(name=p + "q_norm", nbytes=L.head_dim * dt))
            ev.append(Alloc(name=p + "k_norm", nbytes=L.head_dim * dt))
        if L.moe_layers and L.moe_layers[i]:
            e, inter = L.num_experts, L.moe_intermediate_size // tp
            ev.append(Alloc(name=p + "experts.w13", nbytes=e * 2 * inter * H * L.weight_bytes))
            ev.append(Alloc(name=p + "experts.w2", nbytes=e * H * inter * L.weight_bytes))
            if L.fp8_block:
                bn, bk = L.fp8_block
                ev.append(Alloc(name=p + "experts.w13.scale", nbytes=e * _cdiv(2 * inter, bn) * _cdiv(H, bk) * 4))
                ev.append(Alloc(name=p + "experts.w2.scale", nbytes=e * _cdiv(H, bn) * _cdiv(inter, bk) * 4))
            ev.append(Alloc(name=p + "gate", nbytes=e * H * dt))
        else:
            inter = L.intermediate_size // tp
            linear(p + "gate_up_proj", 2 * inter, H, L.mlp_bias)
            linear(p + "down_proj", H, inter, L.mlp_bias)
        ev.append(Alloc(name=p + "input_layernorm", nbytes=H * dt))
        ev.append(Alloc(name=p + "post_attention_layernorm", nbytes=H * dt))
    if L.head:
        ev.append(Alloc(name="norm", nbytes=H * dt))
        if not L.tied or not L.embed:
            ev.append(Alloc(name="lm_head", nbytes=vocab * H * dt))
    return ev


def param_bytes(layout: DecoderLayout) -> int:
    """Bytes of the parameters on one GPU of one (no RoPE cache): what a checkpoint of this layout holds, but
    for the vocabulary padding."""
    return sum(e.nbytes for e in load_events(layout, 1, 4) if isinstance(e, Alloc) and not e.name.startswith("rope."))
