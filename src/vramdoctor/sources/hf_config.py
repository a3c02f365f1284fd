"""A Hugging Face `config.json` (dict) -> `ModelSpec`. Pure apart from `load_json`."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..dtypes import dtype_bytes, is_model_dtype, model_dtype_name
from ..errors import ModelSourceError, UnknownArchitectureError
from ..layout import layout_from_config, param_bytes
from ..spec import ModelSpec, WeightsInfo
from .files import CONFIG_MAX_BYTES, parse_json, read_capped
from .layers import MLA_TYPES, MODEL_TYPE_CLASS, MODEL_TYPE_DEFAULTS, parse_layers
from .params import bytes_per_param, count_params
from .validate import checked_config


def load_json(path: Path, *, limit: int = CONFIG_MAX_BYTES, what: str = "config.json") -> dict[str, Any]:
    """Read a JSON object from the regular file `path` of at most `limit` bytes (sources/files.py), in UTF-8 with or
    without a BOM. Raises ModelSourceError on a file that is not regular, too large, unreadable, not UTF-8 or
    malformed JSON."""
    raw = read_capped(path, limit, what=what)
    try:
        text = raw.decode("utf-8-sig")  # (a BOM first, as Windows editors write one, is not part of the JSON)
    except UnicodeDecodeError as e:
        raise ModelSourceError(f"is not UTF-8 text (byte {e.start}).", path=str(path),
                               hint="Pass the model's config.json, not a binary file.") from None
    try:
        data = parse_json(text, path=str(path))
    except ModelSourceError:
        looks_like_log = not text.lstrip().startswith(("{", "[")) and text.count("\n") >= 2
        if not looks_like_log:
            raise
        raise ModelSourceError("is not valid JSON.", path=str(path),
                               hint="It reads like a server's log: to diagnose it, run `vramdoctor logs "
                                    + str(path) + "`.") from None
    if not isinstance(data, dict):
        raise ModelSourceError("must hold a JSON object.", path=str(path))
    return data


#: the key `text_config` files the defaults it took under: [(key, value as shown, config class)]
DEFAULTS_TAKEN = "_defaults_taken"


def text_config(cfg: dict[str, Any]) -> dict[str, Any]:
    """The language-model part of a config: nested `text_config` / `llm_config` merged over the
    top level (multimodal models), with transformers' config-class defaults for keys it omits
    (`layers.MODEL_TYPE_DEFAULTS`), each listed under DEFAULTS_TAKEN for the notes."""
    inner = cfg.get("text_config") or cfg.get("llm_config") or cfg.get("language_config")
    merged = dict(cfg)
    if isinstance(inner, dict):
        merged.pop("text_config", None)
        for k, v in inner.items():
            merged[k] = v
        if "torch_dtype" not in inner and "dtype" not in inner:
            merged["torch_dtype"] = cfg.get("torch_dtype") or cfg.get("dtype")
    if merged.get("n_layer") and not merged.get("num_hidden_layers"):
        merged["num_hidden_layers"] = merged["n_layer"]
    taken: list[tuple[str, str, str]] = []
    for key in (merged.get("model_type"), cfg.get("model_type")):
        cls = MODEL_TYPE_CLASS.get(str(key), "")
        for k, v in MODEL_TYPE_DEFAULTS.get(str(key), {}).items():
            if k not in merged:
                merged[k] = v
                taken.append((k, str(v).lower() if isinstance(v, bool) else str(v), cls))
    n = merged.get("num_hidden_layers")
    if merged.get("model_type") == "gpt_oss" and "layer_types" not in merged and isinstance(n, int) and n > 0:
        # GptOssConfig.__post_init__: "sliding_attention" if (i + 1) % 2 else "full_attention"
        merged["layer_types"] = ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(min(n, 4096))]
        taken.append(("layer_types", "sliding and full attention alternating, sliding first", "GptOssConfig"))
    merged[DEFAULTS_TAKEN] = taken
    return merged


#: keys that size the weights and the cache: missing (or null) with no class default, they are refused
SIZING = ("hidden_size", "vocab_size")


def _check_sizing(tc: dict[str, Any], layers, path: str | None) -> None:
    """Refuse what transformers itself could not build: a sizing key missing or null with no config-class default
    (`SIZING`; `intermediate_size` where a dense MLP uses it), a latent-attention model type with a null rank, and a
    torch_dtype no model computes in. Raises UnknownArchitectureError / ModelSourceError naming the field."""
    mt = str(tc.get("model_type") or "")
    for key in ("kv_lora_rank", "qk_rope_head_dim"):
        if mt in MLA_TYPES and not tc.get(key):
            raise ModelSourceError(f"is {json.dumps(tc.get(key))}; {mt}'s attention is multi-head latent attention, built from "
                                   "it (kv_a_proj_with_mqa is kv_lora_rank + qk_rope_head_dim wide).", path=path,
                                   field=key, hint="Give the checkpoint's value (DeepSeek-V2/V3: 512 and 64).")
    missing = [k for k in SIZING if tc.get(k) is None]
    experts = tc.get("num_local_experts") or tc.get("n_routed_experts") or tc.get("num_experts")
    pure_state = bool(layers) and all(layer.kind == "state" for layer in layers)
    dense = (not experts or tc.get("first_k_dense_replace") or tc.get("mlp_only_layers")) and not pure_state
    if dense and tc.get("intermediate_size") is None:
        missing.append("intermediate_size")
    if any(layer.kind == "mla" for layer in layers):
        missing += [k for k in ("qk_nope_head_dim", "v_head_dim") if tc.get(k) is None]
    if missing:
        raise UnknownArchitectureError(
            f"cannot size the model: model_type '{mt or '?'}' has no transformers default this tool knows for what "
            "config.json leaves out.", path=path, missing=missing)
    name = tc.get("torch_dtype") or tc.get("dtype")
    if name is not None and not is_model_dtype(str(name)):
        raise ModelSourceError(f"'{name}' is not a dtype a model computes in; torch_dtype names the width of the "
                               "unquantized tensors (bfloat16, float16, float32), and a quantized checkpoint gives its "
                               "bits in quantization_config.", path=path, field="torch_dtype",
                               hint="Fix the value in config.json.")


def _defaults_note(tc: dict[str, Any]) -> str | None:
    taken = tc.get(DEFAULTS_TAKEN) or []
    if not taken:
        return None
    by_cls: dict[str, list[str]] = {}
    for key, shown, cls in taken:
        by_cls.setdefault(cls or "its config class", []).append(f"{key} {shown}")
    return "config.json omits " + "; ".join(f"{', '.join(keys)} (transformers' {cls} default, taken)"
                                           for cls, keys in by_cls.items())


def quantization_of(cfg: dict[str, Any]) -> dict[str, Any] | None:
    q = cfg.get("quantization_config") or cfg.get("compression_config")
    return q if isinstance(q, dict) else None


def spec_from_config(
    cfg: dict[str, Any],
    *,
    name: str,
    path: str | None = None,
    weights: WeightsInfo | None = None,
) -> ModelSpec:
    """Build a ModelSpec from a config dict.

    weights: exact weights from safetensors headers or an index, when the
    caller has them; otherwise parameters x width, labelled estimated.
    Raises ModelSourceError / UnknownArchitectureError naming `path` and the field.
    """
    tc = checked_config(text_config(cfg), path)
    layers = parse_layers(tc, path)
    _check_sizing(tc, layers, path)
    dtype = model_dtype_name(tc.get("torch_dtype") or tc.get("dtype"))
    quant = quantization_of(tc) or quantization_of(cfg)
    qlabel = str(quant.get("quant_method")) if quant else None
    estimated = estimate_weights(tc, layers, dtype, quant)
    if weights is None:
        if estimated.total_bytes <= 0:
            missing = [k for k in ("hidden_size", "vocab_size") if not tc.get(k)]
            raise UnknownArchitectureError("cannot estimate the weights from this config.", path=path,
                                           missing=missing or ["hidden_size"])
        weights = estimated
    elif weights.num_params is None:
        weights = replace(weights, num_params=estimated.num_params, embedding_params=estimated.embedding_params)
    elif weights.embedding_params is None:
        weights = replace(weights, embedding_params=estimated.embedding_params)
    layout = layout_from_config(tc, layers, dtype_bytes(dtype), quant)
    if layout and weights.exact and abs(param_bytes(layout) - weights.total_bytes) > 0.01 * weights.total_bytes:
        layout = None  # the checkpoint holds more (or other) tensors than the layout names
    notes = [n for n in (_defaults_note(tc),) if n]
    if isinstance(cfg.get("text_config"), dict) and not weights.exact:
        notes.append("vision tower not counted: config.json alone does not size it")
    return ModelSpec(
        name=name,
        architecture=(tc.get("architectures") or [tc.get("model_type", "?")])[0],
        layers=layers,
        dtype=dtype,
        weights=weights,
        quantization=qlabel,
        max_position_embeddings=tc.get("max_position_embeddings") or tc.get("seq_length"),
        vocab_size=tc.get("vocab_size"),
        hidden_size=tc.get("hidden_size"),
        intermediate_size=tc.get("intermediate_size"),
        num_attention_heads=tc.get("num_attention_heads"),
        **_moe_shape(tc, sum(1 for layer in layers if not getattr(layer, "parallel", False))),
        layout=layout,
        source=path or name,
        notes=tuple(notes),
    )


def _moe_shape(tc: dict[str, Any], n_layers: int) -> dict[str, Any]:
    """The routed experts' shape (see ModelSpec): config `num_local_experts` / `num_experts` /
    `n_routed_experts`, `moe_intermediate_size` (else `intermediate_size`), the MoE layers: all but
    the first `first_k_dense_replace` and those in `mlp_only_layers`, and the experts each token is routed to
    (`num_experts_per_tok`, gpt-oss's `experts_per_token`, Hunyuan's `moe_topk`; None where absent)."""
    experts = tc.get("num_local_experts") or tc.get("num_experts") or tc.get("n_routed_experts")
    if not isinstance(experts, int) or isinstance(experts, bool) or experts <= 1:
        return {}
    inter = tc.get("moe_intermediate_size") or tc.get("intermediate_size")
    if not isinstance(inter, int) or isinstance(inter, bool) or inter <= 0:
        return {}
    dense = tc.get("first_k_dense_replace") or 0
    only = tc.get("mlp_only_layers") or []
    moe_layers = sum(1 for i in range(n_layers)
                     if i >= (dense if isinstance(dense, int) else 0) and i not in (only if isinstance(only, list) else []))
    top = next((v for v in (tc.get(k) for k in ("num_experts_per_tok", "experts_per_token", "moe_topk",
                                                   "num_experts_per_token")) if v is not None), None)
    if isinstance(top, list) and top:  # (Hunyuan's moe_topk is a list per layer)
        top = max(top) if all(isinstance(t, int) and not isinstance(t, bool) for t in top) else None
    top = top if isinstance(top, int) and not isinstance(top, bool) and 0 < top <= experts else None
    return {"num_experts": experts, "moe_intermediate_size": inter, "num_moe_layers": moe_layers,
            "num_experts_per_tok": top}


def estimate_weights(tc: dict[str, Any], layers, dtype: str, quant: dict[str, Any] | None) -> WeightsInfo:
    """Parameters x width. Embeddings, lm_head and norms stay in the compute dtype under
    every quantization method; mxfp4 (gpt-oss) quantizes the routed experts only."""
    n_params, n_expert = count_params(tc, layers)
    width = dtype_bytes(dtype)
    bpp, label = bytes_per_param(quant, width)
    hidden, vocab = tc.get("hidden_size") or 0, tc.get("vocab_size") or 0
    unquantized = vocab * hidden * (1 if tc.get("tie_word_embeddings") else 2)
    if quant and str(quant.get("quant_method")) == "mxfp4":
        quantized = n_expert
    else:
        quantized = n_params - unquantized if quant else 0
    total = int(quantized * bpp + (n_params - quantized) * width)
    return WeightsInfo(total_bytes=total, exact=False, num_params=n_params, embedding_params=unquantized,
                       source=f"estimated: {n_params / 1e9:.2f}B parameters x {label}")


def config_error_if_empty(cfg: dict[str, Any], path: str) -> None:
    if not cfg:
        raise ModelSourceError("is an empty JSON object.", path=path, hint="Pass the model's full config.json.")
