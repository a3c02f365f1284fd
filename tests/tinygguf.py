"""Writes tiny GGUF models (random weights, a byte-level SentencePiece vocabulary) that real
llama.cpp loads. Used by the fast suite (parsing) and the engine suite (real servers)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from gguf import GGMLQuantizationType, GGUFWriter, LlamaFileType, TokenType, quants


def _vocab(extra: int) -> tuple[list[bytes], list[float], list[int]]:
    tokens = [b"<unk>", b"<s>", b"</s>"] + [f"<0x{i:02X}>".encode() for i in range(256)]
    types = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL] + [TokenType.BYTE] * 256
    words = ["\u2581", "\u2581the", "\u2581a", "e", "t", "a", "o", "n", "\u2581of", "\u2581and", "s", "r", "i", "h"]
    for i in range(extra):
        tokens.append((words[i] if i < len(words) else f"\u2581w{i}").encode())
        types.append(TokenType.NORMAL)
    scores = [0.0] * len(tokens)
    scores[259:] = [-float(i) for i in range(len(tokens) - 259)]
    return tokens, scores, [int(t) for t in types]


def write_model(
    path: Path,
    *,
    arch: str = "llama",
    n_layer: int = 2,
    n_embd: int = 64,
    n_head: int = 4,
    n_head_kv: int = 2,
    n_ff: int = 128,
    n_ctx_train: int = 4096,
    extra_vocab: int = 61,
    sliding_window: int | None = None,
    dtype=np.float16,
    seed: int = 0,
    extra_kv: dict | None = None,
    weight_type: str | None = None,
    n_expert: int = 0,
    expert_type: str | None = None,
) -> Path:
    """Write a tiny `arch` model ("llama" or "gemma2") to `path` and return it.

    Shapes follow llama.cpp's tensor names (token_embd, blk.N.attn_q, ...); the
    vocabulary is 259 byte/control tokens plus `extra_vocab` words.
    weight_type: a ggml quantization type ("Q8_0") for the matrices of the blocks, quantized by gguf-py.
    n_expert / expert_type: a MoE FFN (ffn_gate_inp and ffn_gate/up/down_exps of `n_ff`) instead of the dense
    one, its experts in `expert_type` ("MXFP4", as gpt-oss's GGUFs hold them) when given.
    """
    rng = np.random.default_rng(seed)
    tokens, scores, types = _vocab(extra_vocab)
    n_vocab = len(tokens)
    hd = n_embd // n_head
    w = GGUFWriter(str(path), arch)
    w.add_name(f"tiny-{arch}")
    w.add_context_length(n_ctx_train)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head_kv)
    w.add_rope_dimension_count(hd)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(LlamaFileType.MOSTLY_F16 if dtype == np.float16 else LlamaFileType.ALL_F32)
    if arch == "gemma2":
        w.add_key_length(hd)
        w.add_value_length(hd)
        w.add_sliding_window(sliding_window or 32)
        w.add_attn_logit_softcapping(50.0)
        w.add_final_logit_softcapping(30.0)
    for key, value in (extra_kv or {}).items():  # integers as uint32 (split.* as uint16), anything else as itself
        if isinstance(value, int):
            w.add_uint16(key, value) if key.startswith("split.") else w.add_uint32(key, value)
        elif isinstance(value, str):
            w.add_string(key, value)
        elif isinstance(value, float):
            w.add_float32(key, value)
        else:
            w.add_array(key, value)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)

    if n_expert:
        w.add_expert_count(n_expert)
        w.add_expert_used_count(min(2, n_expert))

    def t(name: str, *shape: int, norm: bool = False, qtype: str | None = None) -> None:
        data = (np.ones(shape) if norm else rng.standard_normal(shape) * 0.02).astype(np.float32 if norm else dtype)
        if qtype and not norm:
            kind = GGMLQuantizationType[qtype]
            w.add_tensor(name, quants.quantize(data.astype(np.float32), kind), raw_dtype=kind)
        else:
            w.add_tensor(name, data)

    t("token_embd.weight", n_vocab, n_embd)
    t("output_norm.weight", n_embd, norm=True)
    if arch == "llama":
        t("output.weight", n_vocab, n_embd)
    for i in range(n_layer):
        b = f"blk.{i}."
        t(b + "attn_norm.weight", n_embd, norm=True)
        t(b + "attn_q.weight", n_head * hd, n_embd, qtype=weight_type)
        t(b + "attn_k.weight", n_head_kv * hd, n_embd, qtype=weight_type)
        t(b + "attn_v.weight", n_head_kv * hd, n_embd, qtype=weight_type)
        t(b + "attn_output.weight", n_embd, n_head * hd, qtype=weight_type)
        t(b + "ffn_norm.weight", n_embd, norm=True)
        if n_expert:
            t(b + "ffn_gate_inp.weight", n_expert, n_embd, norm=True)
            t(b + "ffn_gate_exps.weight", n_expert, n_ff, n_embd, qtype=expert_type or weight_type)
            t(b + "ffn_up_exps.weight", n_expert, n_ff, n_embd, qtype=expert_type or weight_type)
            t(b + "ffn_down_exps.weight", n_expert, n_embd, n_ff, qtype=expert_type or weight_type)
        else:
            t(b + "ffn_gate.weight", n_ff, n_embd, qtype=weight_type)
            t(b + "ffn_up.weight", n_ff, n_embd, qtype=weight_type)
            t(b + "ffn_down.weight", n_embd, n_ff, qtype=weight_type)
        if arch == "gemma2":
            t(b + "post_attention_norm.weight", n_embd, norm=True)
            t(b + "post_ffw_norm.weight", n_embd, norm=True)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def write_deepseek2(
    path: Path,
    *,
    n_layer: int = 2,
    n_embd: int = 256,
    n_head: int = 4,
    kv_lora_rank: int = 512,
    qk_rope_head_dim: int = 64,
    qk_nope_head_dim: int = 32,
    v_head_dim: int = 32,
    n_ff: int = 128,
    n_ctx_train: int = 4096,
    mla_keys: bool = True,
    seed: int = 0,
) -> Path:
    """Write a tiny DeepSeek-V2/V3-style (`deepseek2`) model with dense FFNs to `path` and return it.

    mla_keys: as `convert_hf_to_gguf.py` writes it since llama.cpp PR #12801 (b5137): one KV head, key_length =
    kv_lora_rank + rope, value_length = kv_lora_rank, the per-head sizes in `key_length_mla` / `value_length_mla`,
    and `attn_kv_b` split into `attn_k_b` / `attn_v_b`. Without: the older conversion, every head's K (nope + rope)
    and V, with `attn_kv_b` whole."""
    rng = np.random.default_rng(seed)
    tokens, scores, types = _vocab(61)
    n_vocab = len(tokens)
    w = GGUFWriter(str(path), "deepseek2")
    w.add_name("tiny-deepseek2")
    w.add_context_length(n_ctx_train)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_leading_dense_block_count(n_layer)
    w.add_head_count(n_head)
    w.add_kv_lora_rank(kv_lora_rank)
    w.add_rope_dimension_count(qk_rope_head_dim)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_vocab_size(n_vocab)
    if mla_keys:
        w.add_head_count_kv(1)
        w.add_key_length(kv_lora_rank + qk_rope_head_dim)
        w.add_value_length(kv_lora_rank)
        w.add_key_length_mla(qk_nope_head_dim + qk_rope_head_dim)
        w.add_value_length_mla(v_head_dim)
    else:
        w.add_head_count_kv(n_head)
        w.add_key_length(qk_nope_head_dim + qk_rope_head_dim)
        w.add_value_length(v_head_dim)
    w.add_file_type(LlamaFileType.MOSTLY_F16)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)

    def t(name: str, *shape: int, norm: bool = False) -> None:
        data = (np.ones(shape) if norm else rng.standard_normal(shape) * 0.02).astype(np.float32 if norm else np.float16)
        w.add_tensor(name, data)

    t("token_embd.weight", n_vocab, n_embd)
    t("output_norm.weight", n_embd, norm=True)
    t("output.weight", n_vocab, n_embd)
    qk = qk_nope_head_dim + qk_rope_head_dim
    for i in range(n_layer):
        b = f"blk.{i}."
        t(b + "attn_norm.weight", n_embd, norm=True)
        t(b + "attn_q.weight", n_head * qk, n_embd)
        t(b + "attn_kv_a_mqa.weight", kv_lora_rank + qk_rope_head_dim, n_embd)
        t(b + "attn_kv_a_norm.weight", kv_lora_rank, norm=True)
        if mla_keys:
            t(b + "attn_k_b.weight", n_head, kv_lora_rank, qk_nope_head_dim)
            t(b + "attn_v_b.weight", n_head, v_head_dim, kv_lora_rank)
        else:
            t(b + "attn_kv_b.weight", n_head * (qk_nope_head_dim + v_head_dim), kv_lora_rank)
        t(b + "attn_output.weight", n_embd, n_head * v_head_dim)
        t(b + "ffn_norm.weight", n_embd, norm=True)
        t(b + "ffn_gate.weight", n_ff, n_embd)
        t(b + "ffn_up.weight", n_ff, n_embd)
        t(b + "ffn_down.weight", n_embd, n_ff)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path
