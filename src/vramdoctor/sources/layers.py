"""config.json -> per-layer cache specs. Pure: a dict in, a tuple of layer specs out.

Field names are Hugging Face `transformers` config keys; defaults a config may
omit are the `transformers` config-class defaults for that `model_type`.
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import ModelSourceError, UnknownArchitectureError
from ..spec import FullAttention, LatentAttention, LayerSpec, RecurrentState, SlidingWindow

#: transformers config-class defaults for keys that real configs omit.
MODEL_TYPE_DEFAULTS: dict[str, dict[str, Any]] = {
    # transformers Gemma3TextConfig
    "gemma3_text": {
        "vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
        "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
        "head_dim": 256, "sliding_window": 4096, "sliding_window_pattern": 6,
        "max_position_embeddings": 131072, "tie_word_embeddings": True,
    },
    "gemma3": {"tie_word_embeddings": True},
    # transformers Gemma2Config
    "gemma2": {"sliding_window": 4096, "head_dim": 256, "tie_word_embeddings": True},
    "gemma": {"tie_word_embeddings": True},
}

_FULL = ("full_attention", "attention", "global", "global_attention", "full")
_SLIDING = ("sliding_attention", "sliding", "local", "local_attention", "chunked_attention")
_STATE = ("linear_attention", "mamba", "mamba2", "recurrent", "ssm", "gated_deltanet", "deltanet")


def _need(cfg: dict[str, Any], path: str | None, *keys: str) -> None:
    missing = [k for k in keys if cfg.get(k) is None]
    if missing:
        raise UnknownArchitectureError(
            f"cannot determine the layer layout of model_type '{cfg.get('model_type', '?')}'.",
            path=path,
            missing=missing,
        )


def _int(cfg: dict[str, Any], key: str, path: str | None) -> int:
    value = cfg.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ModelSourceError(
            f"expected a non-negative integer, found {value!r}.", path=path, field=key,
            hint="Fix the value in config.json.",
        )
    return value


def layer_kinds(cfg: dict[str, Any], path: str | None) -> list[str]:
    """One of 'full', 'sliding', 'mla', 'state' per layer.

    Precedence: `layer_types`; hybrid layouts (`attn_layer_indices`,
    `full_attention_interval`, `attn_layer_period`/`attn_layer_offset`,
    `hybrid_override_pattern`, `layers_block_type`); Mamba models; interleaved
    sliding windows (`sliding_window_pattern`, Gemma 2's alternation, Qwen2's
    `use_sliding_window` + `max_window_layers`); a plain `sliding_window`.
    """
    mt = str(cfg.get("model_type", ""))
    n = _int(cfg, "num_hidden_layers", path)
    lt = cfg.get("layer_types")
    if isinstance(lt, list):
        if len(lt) != n:
            raise ModelSourceError(
                f"has {len(lt)} entries but num_hidden_layers is {n}.", path=path, field="layer_types",
                hint="The list must name one type per layer.",
            )
        out = []
        for t in lt:
            t = str(t).lower()
            if t in _FULL:
                out.append("mla" if cfg.get("kv_lora_rank") else "full")
            elif t in _SLIDING:
                out.append("sliding")
            elif t in _STATE:
                out.append("state")
            else:
                raise ModelSourceError(
                    f"unknown layer type '{t}'.", path=path, field="layer_types",
                    hint="Known: full_attention, sliding_attention, linear_attention, mamba.",
                )
        return out
    if isinstance(cfg.get("attn_layer_indices"), list):  # Bamba, GraniteMoeHybrid
        idx = set(cfg["attn_layer_indices"])
        return ["full" if i in idx else "state" for i in range(n)]
    if cfg.get("full_attention_interval"):  # Qwen3-Next, Qwen3.5
        k = _int(cfg, "full_attention_interval", path)
        return ["full" if (i + 1) % k == 0 else "state" for i in range(n)]
    if cfg.get("attn_layer_period"):  # Jamba
        p, o = _int(cfg, "attn_layer_period", path), int(cfg.get("attn_layer_offset", 0))
        return ["full" if i % p == o else "state" for i in range(n)]
    if isinstance(cfg.get("hybrid_override_pattern"), str):  # Nemotron-H: M mamba, * attention, - MLP
        pat = cfg["hybrid_override_pattern"]
        return ["full" if c == "*" else "state" if c == "M" else "none" for c in pat[:n]]
    if isinstance(cfg.get("layers_block_type"), list):
        return ["full" if t == "attention" else "state" for t in cfg["layers_block_type"]]
    if "mamba" in mt or str((cfg.get("architectures") or [""])[0]).startswith("Mamba"):
        return ["state"] * n
    if cfg.get("kv_lora_rank"):
        return ["mla"] * n
    window = cfg.get("sliding_window")
    if cfg.get("sliding_window_pattern") and window:  # Gemma 3: every Nth layer is global
        k = _int(cfg, "sliding_window_pattern", path)
        return ["full" if (i + 1) % k == 0 else "sliding" for i in range(n)]
    if mt == "gemma2" and window:  # Gemma 2 alternates, layer 0 local
        return ["sliding" if i % 2 == 0 else "full" for i in range(n)]
    if "use_sliding_window" in cfg:  # Qwen2 family
        if not cfg.get("use_sliding_window") or not window:
            return ["full"] * n
        first = int(cfg.get("max_window_layers", 0))
        return ["sliding" if i >= first else "full" for i in range(n)]
    if window and (not cfg.get("max_position_embeddings") or window < cfg["max_position_embeddings"]):
        return ["sliding"] * n  # Mistral v0.1, Phi-3: every layer has the window
    return ["full"] * n


def _attention(cfg: dict[str, Any], path: str | None, kind: str) -> LayerSpec:
    if kind == "mla":
        _need(cfg, path, "kv_lora_rank", "qk_rope_head_dim")
        return LatentAttention(
            kv_lora_rank=_int(cfg, "kv_lora_rank", path),
            qk_rope_head_dim=_int(cfg, "qk_rope_head_dim", path),
            index_head_dim=int(cfg.get("index_head_dim") or 0),
        )
    _need(cfg, path, "num_attention_heads")
    heads = _int(cfg, "num_attention_heads", path)
    kv_heads = cfg.get("num_key_value_heads")
    kv_heads = heads if kv_heads is None else _int(cfg, "num_key_value_heads", path)
    if cfg.get("multi_query") is True:  # Falcon-7B style MQA
        kv_heads = 1
    if cfg.get("head_dim"):
        hd = _int(cfg, "head_dim", path)
    else:
        _need(cfg, path, "hidden_size")
        if heads == 0 or cfg["hidden_size"] % heads:
            raise ModelSourceError(
                f"hidden_size {cfg['hidden_size']} is not a multiple of num_attention_heads {heads}.",
                path=path, field="head_dim", hint="Add an explicit head_dim to config.json.",
            )
        hd = cfg["hidden_size"] // heads
    hd_v = int(cfg.get("v_head_dim") or hd)
    if kv_heads == 0:
        raise ModelSourceError("must be at least 1.", path=path, field="num_key_value_heads")
    if kind == "sliding":
        window = cfg.get("sliding_window") or cfg.get("attention_chunk_size")
        _need({"sliding_window": window}, path, "sliding_window")
        return SlidingWindow(num_kv_heads=kv_heads, head_dim_k=hd, head_dim_v=hd_v, window=int(window))
    return FullAttention(num_kv_heads=kv_heads, head_dim_k=hd, head_dim_v=hd_v)


def _state(cfg: dict[str, Any], path: str | None) -> RecurrentState:
    """State shapes as vLLM's MambaStateShapeCalculator builds them."""
    g = cfg.get
    if g("linear_num_value_heads"):  # Gated DeltaNet (Qwen3-Next)
        _need(cfg, path, "linear_num_key_heads", "linear_key_head_dim", "linear_value_head_dim",
              "linear_conv_kernel_dim")
        key_dim = g("linear_num_key_heads") * g("linear_key_head_dim")
        value_dim = g("linear_num_value_heads") * g("linear_value_head_dim")
        return RecurrentState(
            family="gated_deltanet",
            conv_elems=(2 * key_dim + value_dim) * (g("linear_conv_kernel_dim") - 1),
            ssm_elems=g("linear_num_value_heads") * g("linear_key_head_dim") * g("linear_value_head_dim"),
        )
    if g("mamba_n_heads") or g("mamba_num_heads"):  # Mamba2 (Bamba, Nemotron-H, Granite hybrid)
        heads = g("mamba_n_heads") or g("mamba_num_heads")
        d_head = g("mamba_d_head") or g("mamba_head_dim")
        _need({"mamba_d_head": d_head, "mamba_d_state": g("mamba_d_state") or g("ssm_state_size")},
              path, "mamba_d_head", "mamba_d_state")
        d_state = g("mamba_d_state") or g("ssm_state_size")
        d_inner = heads * d_head
        conv_dim = d_inner + 2 * int(g("mamba_n_groups") or g("n_groups") or 1) * d_state
        d_conv = int(g("mamba_d_conv") or g("conv_kernel") or 4)
        return RecurrentState(family="mamba2", conv_elems=conv_dim * (d_conv - 1),
                              ssm_elems=heads * d_head * d_state)
    if g("num_heads") and g("head_dim") and g("state_size") and g("n_groups"):  # Mamba2Config
        d_inner = g("num_heads") * g("head_dim")
        conv_dim = d_inner + 2 * g("n_groups") * g("state_size")
        return RecurrentState(family="mamba2", conv_elems=conv_dim * (int(g("conv_kernel") or 4) - 1),
                              ssm_elems=g("num_heads") * g("head_dim") * g("state_size"))
    # Mamba1 (MambaConfig, FalconMamba, Jamba's mamba_* keys)
    d_state = g("state_size") or g("mamba_d_state")
    d_conv = g("conv_kernel") or g("mamba_d_conv")
    d_inner = g("intermediate_size") if g("state_size") else None
    if not d_inner and g("hidden_size"):
        d_inner = int(g("mamba_expand") or g("expand") or 2) * g("hidden_size")
    _need({"state_size": d_state, "conv_kernel": d_conv, "intermediate_size": d_inner}, path,
          "state_size", "conv_kernel", "intermediate_size")
    return RecurrentState(family="mamba", conv_elems=d_inner * (d_conv - 1), ssm_elems=d_inner * d_state)


def parse_layers(cfg: dict[str, Any], path: str | None) -> tuple[LayerSpec, ...]:
    """Per-layer cache specs of a (text) config. Raises UnknownArchitectureError."""
    _need(cfg, path, "num_hidden_layers")
    kinds = layer_kinds(cfg, path)
    built: dict[str, Callable[[], LayerSpec]] = {
        "full": lambda: _attention(cfg, path, "full"),
        "sliding": lambda: _attention(cfg, path, "sliding"),
        "mla": lambda: _attention(cfg, path, "mla"),
        "state": lambda: _state(cfg, path),
    }
    cache: dict[str, LayerSpec] = {}
    out = []
    for kind in kinds:
        if kind == "none":  # an MLP-only block keeps no cache
            continue
        if kind not in cache:
            cache[kind] = built[kind]()
        out.append(cache[kind])
    if not out:
        raise ModelSourceError("describes no layer that attends or keeps state.", path=path,
                               field="hybrid_override_pattern" if "hybrid_override_pattern" in cfg else "layer_types",
                               hint="Check the layer layout fields.")
    return tuple(out)
