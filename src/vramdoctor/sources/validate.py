"""Range and type checks on the fields that size memory, before any arithmetic uses them.

A config that says `num_hidden_layers: 1e9` or `hidden_size: "4096"` is a broken file, not a
model: it gets a ModelSourceError naming the field, never a hang, a MemoryError or a negative
byte count. The bounds are far beyond any real model (the largest have ~200 layers).
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ModelSourceError

K = 1 << 10
# field -> (smallest, largest) allowed when present and not null
BOUNDS: dict[str, tuple[int, int]] = {
    "num_hidden_layers": (1, 4 * K), "n_layer": (1, 4 * K), "hidden_size": (1, 1 << 20),
    "num_attention_heads": (1, 16 * K), "num_key_value_heads": (1, 16 * K), "head_dim": (1, 16 * K),
    "v_head_dim": (1, 16 * K), "intermediate_size": (0, 1 << 22), "moe_intermediate_size": (0, 1 << 22),
    "shared_expert_intermediate_size": (0, 1 << 22), "vocab_size": (1, 1 << 24),
    "max_position_embeddings": (1, 1 << 28), "sliding_window": (1, 1 << 28), "max_window_layers": (0, 4 * K),
    "sliding_window_pattern": (1, 4 * K), "full_attention_interval": (1, 4 * K), "attn_layer_period": (1, 4 * K),
    "attn_layer_offset": (0, 4 * K), "num_local_experts": (0, 1 << 16), "n_routed_experts": (0, 1 << 16),
    "num_experts": (0, 1 << 16), "n_shared_experts": (0, 1 << 10), "first_k_dense_replace": (0, 4 * K),
    "kv_lora_rank": (1, 1 << 16), "qk_rope_head_dim": (1, 1 << 16), "qk_nope_head_dim": (1, 1 << 16),
    "q_lora_rank": (1, 1 << 16), "index_head_dim": (0, 1 << 16), "linear_num_key_heads": (1, 16 * K),
    "linear_num_value_heads": (1, 16 * K), "linear_key_head_dim": (1, 16 * K), "linear_value_head_dim": (1, 16 * K),
    "linear_conv_kernel_dim": (1, 1 * K), "mamba_n_heads": (1, 16 * K), "mamba_num_heads": (1, 16 * K),
    "mamba_d_head": (1, 16 * K), "mamba_head_dim": (1, 16 * K), "mamba_d_state": (1, 16 * K),
    "mamba_d_conv": (1, 1 * K), "mamba_n_groups": (1, 16 * K), "mamba_expand": (1, 64), "state_size": (1, 16 * K),
    "conv_kernel": (1, 1 * K), "ssm_state_size": (1, 16 * K), "n_groups": (1, 16 * K), "expand": (1, 64),
    "num_heads": (1, 16 * K), "seq_length": (1, 1 << 28), "attention_chunk_size": (1, 1 << 28),
    "num_kv_shared_layers": (0, 4 * K), "hidden_size_per_layer_input": (0, 1 << 20),
    "vocab_size_per_layer_input": (0, 1 << 24), "mamba_d_ssm": (1, 1 << 20), "time_step_rank": (1, 1 << 20),
}
#: fields read as lists of layer indices (Qwen MoE `mlp_only_layers`, Bamba/GraniteMoeHybrid `attn_layer_indices`)
INDEX_LISTS = ("mlp_only_layers", "attn_layer_indices")
#: fields read as lists of names, one per layer
NAME_LISTS = ("layer_types", "layers_block_type")
#: fields read as names or patterns
STRINGS = ("model_type", "hidden_act", "torch_dtype", "dtype", "hybrid_override_pattern")
#: of those, the ones that are identifiers (transformers' model types 'qwen2', 'gpt_oss', 'xlm-roberta'; activations;
#: dtypes): anything else, a terminal escape or markup, is no model's
IDENTIFIERS = ("model_type", "hidden_act", "torch_dtype", "dtype")
_IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
#: fields read as objects
OBJECTS = ("quantization_config", "compression_config")
QUANT_BOUNDS = {"bits": (1, 32), "w_bit": (1, 32), "weight_bits": (1, 32), "group_size": (-1, 1 << 20),
                "q_group_size": (-1, 1 << 20)}


def _check(d: dict[str, Any], bounds: dict[str, tuple[int, int]], path: str | None, prefix: str = "") -> dict:
    out = dict(d)
    for key, (lo, hi) in bounds.items():
        value = d.get(key)
        if value is None:
            continue
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ModelSourceError(f"expected an integer, found {value!r}.", path=path, field=prefix + key,
                                   hint="Fix the value in the file; numbers must not be quoted.")
        if not lo <= value <= hi:
            raise ModelSourceError(f"{value} is outside the plausible range {lo}..{hi}.", path=path,
                                   field=prefix + key, hint="The file is corrupt or hand-edited; fix the value.")
        out[key] = value
    return out


def checked_config(tc: dict[str, Any], path: str | None) -> dict[str, Any]:
    """`tc` with its sizing fields verified (and integral floats made ints). Raises ModelSourceError.

    A per-layer `intermediate_size` list (Gemma 3n's `Gemma3nTextConfig`) is checked element by element and
    kept as `intermediate_size_per_layer`, with `intermediate_size` its largest value."""
    inter = tc.get("intermediate_size")
    if isinstance(inter, list):
        lo, hi = BOUNDS["intermediate_size"]
        sizes = [_check({"intermediate_size": v}, {"intermediate_size": (lo, hi)}, path)["intermediate_size"]
                 for v in inter]
        if not sizes:
            raise ModelSourceError("is an empty list.", path=path, field="intermediate_size")
        tc = {**tc, "intermediate_size": max(sizes), "intermediate_size_per_layer": sizes}
    out = _check(tc, BOUNDS, path)
    arch = out.get("architectures")
    if arch is not None and not (isinstance(arch, list) and all(isinstance(a, str) for a in arch)):
        raise ModelSourceError(f"expected a list of class names, found {arch!r}.", path=path, field="architectures")
    for key in NAME_LISTS:
        v = out.get(key)
        if v is not None and not (isinstance(v, list) and all(isinstance(t, str) for t in v)):
            raise ModelSourceError(f"expected a list with one type name per layer, found {_shown(v)}.", path=path,
                                   field=key, hint="Fix the list in the file.")
    for key in INDEX_LISTS:
        v = out.get(key)
        if v is not None and not (isinstance(v, list) and all(isinstance(i, int) and not isinstance(i, bool)
                                                              and 0 <= i < 4 * K for i in v)):
            raise ModelSourceError(f"expected a list of layer indices, found {_shown(v)}.", path=path, field=key,
                                   hint="Fix the list in the file.")
    for key in STRINGS:
        v = out.get(key)
        if v is not None and not isinstance(v, str):
            raise ModelSourceError(f"expected a name, found {_shown(v)}.", path=path, field=key,
                                   hint="Fix the value in the file.")
        if v is not None and key in IDENTIFIERS and not _IDENTIFIER.fullmatch(v):
            cut = v if len(v) <= 60 else v[:57] + "..."  # (as written: the renderer shows control characters)
            raise ModelSourceError(f"expected a plain name (letters, digits, '_', '-', '.'), found '{cut}'.",
                                   path=path, field=key, hint="Fix the value in the file.")
    for key in OBJECTS:
        v = out.get(key)
        if v is not None and not isinstance(v, dict):
            raise ModelSourceError(f"expected an object, found {_shown(v)}.", path=path, field=key,
                                   hint="Fix the value in the file, or remove it.")
    q = out.get("quantization_config")
    if isinstance(q, dict):
        out["quantization_config"] = _check(q, QUANT_BOUNDS, path, "quantization_config.")
    return out


def _shown(v: Any) -> str:
    """A value as an error names it: its repr, cut to 60 characters."""
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def checked_int(value: Any, field: str, path: str, lo: int, hi: int) -> int:
    """One GGUF value: an integer in lo..hi. Raises ModelSourceError naming the key."""
    return _check({field: value}, {field: (lo, hi)}, path)[field]
