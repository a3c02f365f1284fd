"""Parameter counts and weight widths from config.json alone (the "estimated" weights path).

Used only when no exact byte count is available (no safetensors headers, no
GGUF, no checkpoint index). Counts follow the `transformers` modeling files of
each family: embeddings, attention projections, gated MLP or experts, norms.
"""

from __future__ import annotations

from typing import Any

from ..spec import LayerSpec


def _attn_params(cfg: dict[str, Any], layer: LayerSpec, hidden: int) -> int:
    g = cfg.get
    if layer.kind == "mla":
        q_lora = g("q_lora_rank")
        heads = g("num_attention_heads")
        qk_head = (g("qk_nope_head_dim") or 128) + layer.qk_rope_head_dim  # type: ignore[union-attr]
        v_head = g("v_head_dim") or 128
        q = (hidden * q_lora + q_lora * heads * qk_head) if q_lora else hidden * heads * qk_head
        kv_a = hidden * (layer.kv_lora_rank + layer.qk_rope_head_dim)  # type: ignore[union-attr]
        kv_b = layer.kv_lora_rank * heads * ((g("qk_nope_head_dim") or 128) + v_head)  # type: ignore[union-attr]
        o = heads * v_head * hidden
        return q + kv_a + kv_b + o
    if layer.kind == "state" and layer.family == "lightning":  # type: ignore[union-attr]
        # MiniMax lightning attention: qkv (3 x inner), output gate and out_proj, RMSNorm over inner,
        # inner = num_attention_heads x head_dim (vLLM minimax_text_01.py MiniMaxText01LinearAttention)
        heads = g("num_attention_heads") or 0
        inner = heads * (g("head_dim") or hidden // max(heads, 1))
        return 5 * hidden * inner + inner
    if layer.kind == "state":
        conv = layer.conv_elems  # type: ignore[union-attr]
        inner = int(g("intermediate_size") if layer.family == "mamba" else 0) or 2 * hidden  # type: ignore[union-attr]
        if g("linear_num_value_heads"):
            kd = g("linear_num_key_heads") * g("linear_key_head_dim")
            vd = g("linear_num_value_heads") * g("linear_value_head_dim")
            return hidden * (2 * kd + 2 * vd + 2 * g("linear_num_value_heads")) + vd * hidden + conv
        extra = 0
        if layer.family == "mamba":  # type: ignore[union-attr]  # Mamba1: x_proj to (dt_rank + 2 x state), dt_proj
            state = g("state_size") or 16
            dt_rank = g("time_step_rank") if isinstance(g("time_step_rank"), int) else -(-hidden // 16)
            extra = inner * (dt_rank + 2 * state) + dt_rank * inner + 2 * inner
        return hidden * inner * 3 + conv + layer.ssm_elems + extra  # type: ignore[union-attr]
    heads = g("num_attention_heads") or 0
    hd = layer.head_dim_k  # type: ignore[union-attr]
    kv = layer.num_kv_heads * (layer.head_dim_k + layer.head_dim_v)  # type: ignore[union-attr]
    return hidden * heads * hd + hidden * kv + heads * hd * hidden


def _parallel_mixer_params(cfg: dict[str, Any], hidden: int) -> int:
    """The Mamba2 mixer beside the attention of a Falcon-H1 layer (transformers FalconH1Mixer, vLLM
    MambaMixer2): in_proj to gate + conv channels + one dt per head, the depthwise conv (with bias),
    A_log, D and dt_bias per head, an optional gated RMSNorm, out_proj."""
    g = cfg.get
    heads, d_state, groups = g("mamba_n_heads") or 0, g("mamba_d_state") or 0, g("mamba_n_groups") or 1
    d_ssm = g("mamba_d_ssm") or int(g("mamba_expand") or 2) * hidden
    conv_dim = d_ssm + 2 * groups * d_state
    d_conv = g("mamba_d_conv") or 4
    conv = conv_dim * d_conv + (conv_dim if g("mamba_conv_bias", True) else 0)
    norm = d_ssm if g("mamba_rms_norm") else 0
    return hidden * (d_ssm + conv_dim + heads) + conv + 3 * heads + norm + d_ssm * hidden


def _mlp_params(cfg: dict[str, Any], hidden: int, layer_idx: int) -> int:
    g = cfg.get
    experts = g("num_local_experts") or g("n_routed_experts") or g("num_experts") or 0
    dense_first = g("first_k_dense_replace") or 0
    per_layer = g("intermediate_size_per_layer")
    inter = (per_layer[layer_idx] if isinstance(per_layer, list) and layer_idx < len(per_layer)
             else g("intermediate_size")) or 4 * hidden
    gated = 3 if g("hidden_act", "silu") != "gelu" or g("model_type") not in ("gpt2", "opt") else 2
    if not experts or layer_idx < dense_first or layer_idx in (g("mlp_only_layers") or []):
        return gated * hidden * inter
    moe_inter = g("moe_intermediate_size") or inter
    total = experts * gated * hidden * moe_inter + hidden * experts
    shared = g("n_shared_experts") or (1 if g("shared_expert_intermediate_size") else 0)
    shared_inter = g("shared_expert_intermediate_size") or moe_inter * (g("n_shared_experts") or 0)
    if shared:
        total += gated * hidden * shared_inter
    return total


def count_params(cfg: dict[str, Any], layers: tuple[LayerSpec, ...]) -> tuple[int, int]:
    """(all parameters, parameters in routed experts) of a decoder-only text model.

    Raises nothing: missing sizes count as 0 and the result is labelled estimated.
    """
    g = cfg.get
    hidden = g("hidden_size") or 0
    vocab = g("vocab_size") or 0
    emb = vocab * hidden
    # a Mamba model's block is its mixer alone (transformers MambaBlock / Mamba2Block: no MLP), and its
    # config classes tie the head by default (MambaConfig, Mamba2Config: tie_word_embeddings=True)
    arch = str((g("architectures") or [""])[0])
    pure_mamba = bool(layers) and all(layer.kind == "state" for layer in layers) and (
        "mamba" in str(g("model_type") or "").lower() or arch.startswith(("Mamba", "FalconMamba")))
    tied = g("tie_word_embeddings") if "tie_word_embeddings" in cfg else g("tie_embeddings", pure_mamba)
    total = emb if tied else 2 * emb
    # Gemma 3n's per-layer embeddings: one table of vocab_size_per_layer_input x (layers x
    # hidden_size_per_layer_input), beside the main one (transformers Gemma3nTextModel.embed_tokens_per_layer)
    per_layer_vocab, per_layer_hidden = g("vocab_size_per_layer_input"), g("hidden_size_per_layer_input")
    if isinstance(per_layer_vocab, int) and isinstance(per_layer_hidden, int) and per_layer_vocab > 0:
        n_dec = sum(1 for layer in layers if not getattr(layer, "parallel", False))
        total += per_layer_vocab * n_dec * per_layer_hidden
    experts_total = 0
    i = -1  # the decoder layer: a parallel state (Falcon-H1) shares it with the attention entry before it
    for layer in layers:
        if getattr(layer, "parallel", False):
            total += _parallel_mixer_params(cfg, hidden)
            continue
        i += 1
        total += _attn_params(cfg, layer, hidden) + (hidden if pure_mamba else 2 * hidden)
        mlp = 0 if pure_mamba else _mlp_params(cfg, hidden, i)
        total += mlp
        if (g("num_local_experts") or g("n_routed_experts") or g("num_experts")) and i >= (g("first_k_dense_replace") or 0):
            experts_total += mlp
    return total + hidden, experts_total


def bytes_per_param(quant: dict[str, Any] | None, dtype_bytes: int) -> tuple[float, str]:
    """(bytes per quantized parameter, label) for a `quantization_config`.

    GPTQ/AWQ: bits/8 plus an fp16 scale and a packed zero per group.
    bitsandbytes: 1 byte (8-bit) or 0.5 + an fp32 absmax per 64 (nf4); with double quantization the
    absmax is one byte per 64 plus an fp32 scale per 256 blocks (bitsandbytes `quantize_4bit`, `compress_statistics`).
    fp8: 1 byte plus fp32 block scales. mxfp4: 4 bits + one e8m0 scale per 32.
    NVFP4: 4 bits + one fp8 scale per 16. compressed-tensors: `num_bits` of its first group.
    """
    if not quant:
        return float(dtype_bytes), f"{dtype_bytes} B/param"
    method = str(quant.get("quant_method", "")).lower()
    bits = quant.get("bits") or quant.get("w_bit") or quant.get("weight_bits")
    group = quant.get("group_size") or quant.get("q_group_size") or 128
    if method in ("gptq", "awq", "gptq_marlin", "awq_marlin", "exl2", "hqq", "aqlm") and bits:
        group = group if group and group > 0 else 4096
        return bits / 8 + (2 + bits / 8) / group, f"{method} {bits}-bit, group {group}"
    if method == "bitsandbytes":
        if quant.get("load_in_4bit") and quant.get("bnb_4bit_use_double_quant"):
            return 0.5 + 1 / 64 + 4 / (64 * 256), "bitsandbytes 4-bit, double quantization"
        if quant.get("load_in_4bit"):
            return 0.5 + 4 / 64, "bitsandbytes 4-bit"
        return 1.0, "bitsandbytes 8-bit"
    if method in ("fp8", "fbgemm_fp8", "modelopt") and "fp4" not in str(quant).lower():
        return 1.0 + 4 / (128 * 128), "fp8"
    if method == "mxfp4":
        return 0.5 + 1 / 32, "mxfp4"
    if "nvfp4" in str(quant).lower() or "fp4" in method:
        return 0.5 + 1 / 16, "nvfp4"
    if method == "compressed-tensors":
        for grp in (quant.get("config_groups") or {}).values():
            nb = (grp.get("weights") or {}).get("num_bits")
            if nb:
                return nb / 8 + (2 / 128 if nb < 8 else 0), f"compressed-tensors {nb}-bit"
    return float(dtype_bytes), f"{method or 'unknown'} (treated as {dtype_bytes} B/param)"
