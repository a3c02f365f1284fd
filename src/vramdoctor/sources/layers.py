"""config.json -> per-layer cache specs. Pure: a dict in, a tuple of layer specs out.

Field names are Hugging Face `transformers` config keys; defaults a config may
omit are the `transformers` config-class defaults for that `model_type`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from ..errors import ModelSourceError, UnknownArchitectureError
from ..spec import (
    FullAttention,
    LatentAttention,
    LayerSpec,
    RecurrentState,
    SharedKV,
    SlidingWindow,
)

#: transformers config-class defaults for keys that real configs omit, by model_type (`configuration_<type>.py`,
#: each class's `__init__` or dataclass defaults, transformers main of 2026: `LlamaConfig`, `MixtralConfig`,
#: `GptOssConfig`, `Qwen3NextConfig`, `DeepseekV2Config`, `DeepseekV3Config` read there); a key taken from here is
#: named in the estimate's notes (`sources/hf_config.py`). A model type not listed gets no default: a sizing key it
#: omits is refused with the field named.
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
    # transformers Gemma3nTextConfig; its default layer_types (every 5th layer full) is the
    # sliding_window_pattern rule below with 5
    "gemma3n_text": {
        "vocab_size": 262400, "hidden_size": 2048, "intermediate_size": 16384,
        "num_hidden_layers": 35, "num_attention_heads": 8, "num_key_value_heads": 2,
        "head_dim": 256, "sliding_window": 512, "sliding_window_pattern": 5,
        "num_kv_shared_layers": 15, "max_position_embeddings": 32768, "tie_word_embeddings": True,
    },
    "gemma3n": {"tie_word_embeddings": True},
    # transformers FalconH1Config (mamba_d_head "auto" is mamba_d_ssm / mamba_n_heads)
    "falcon_h1": {
        "mamba_d_ssm": 1024, "mamba_n_heads": 128, "mamba_n_groups": 1, "mamba_d_state": 256,
        "mamba_d_conv": 4, "mamba_expand": 2,
    },
    # transformers LlamaConfig (num_key_value_heads None: as many as the attention heads)
    "llama": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
              "num_attention_heads": 32, "max_position_embeddings": 2048},
    # transformers MixtralConfig
    "mixtral": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 4096 * 32,
                "num_local_experts": 8},
    # transformers GptOssConfig (its layer_types default, sliding and full alternating, is in `text_config`)
    "gpt_oss": {"num_hidden_layers": 36, "num_local_experts": 128, "vocab_size": 201088, "hidden_size": 2880,
                "intermediate_size": 2880, "head_dim": 64, "num_attention_heads": 64, "num_key_value_heads": 8,
                "sliding_window": 128, "max_position_embeddings": 131072},
    # transformers Qwen3NextConfig (its layer_types default is every full_attention_interval-th layer full, 4)
    "qwen3_next": {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 48,
                   "num_attention_heads": 16, "num_key_value_heads": 2, "max_position_embeddings": 32768,
                   "head_dim": 256, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128,
                   "linear_value_head_dim": 128, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
                   "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "num_experts": 512,
                   "full_attention_interval": 4},
    # transformers DeepseekV2Config
    "deepseek_v2": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                    "num_attention_heads": 32, "max_position_embeddings": 2048, "first_k_dense_replace": 0,
                    "kv_lora_rank": 512, "q_lora_rank": 1536, "n_routed_experts": 64, "n_shared_experts": 2,
                    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                    "moe_intermediate_size": 1407},
    # transformers DeepseekV3Config
    "deepseek_v3": {"vocab_size": 129280, "hidden_size": 7168, "intermediate_size": 18432,
                    "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 128,
                    "num_key_value_heads": 128, "n_shared_experts": 1, "n_routed_experts": 256, "kv_lora_rank": 512,
                    "q_lora_rank": 1536, "qk_rope_head_dim": 64, "v_head_dim": 128, "qk_nope_head_dim": 128,
                    "first_k_dense_replace": 3, "max_position_embeddings": 4096},
}
#: the transformers config class of each model type above, named in the note when its default is taken
MODEL_TYPE_CLASS = {"gemma3_text": "Gemma3TextConfig", "gemma3": "Gemma3Config", "gemma2": "Gemma2Config",
                    "gemma": "GemmaConfig", "gemma3n_text": "Gemma3nTextConfig", "gemma3n": "Gemma3nConfig",
                    "falcon_h1": "FalconH1Config", "llama": "LlamaConfig", "mixtral": "MixtralConfig",
                    "gpt_oss": "GptOssConfig", "qwen3_next": "Qwen3NextConfig", "deepseek_v2": "DeepseekV2Config",
                    "deepseek_v3": "DeepseekV3Config"}
#: model types whose attention is multi-head latent attention whatever the config says (their modeling files build
#: kv_a_proj_with_mqa from kv_lora_rank + qk_rope_head_dim): a null rank is a broken file, not another layout
MLA_TYPES = ("deepseek_v2", "deepseek_v3")

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


def _norm(name: Any) -> str:
    return str(name or "").lower().replace("_", "").replace("-", "")


def _arch(cfg: dict[str, Any]) -> str:
    return str((cfg.get("architectures") or [""])[0])


def _is_parallel_hybrid(cfg: dict[str, Any]) -> bool:
    """Falcon-H1: every decoder layer runs attention and a Mamba2 mixer side by side (vLLM
    `falcon_h1.py` FalconH1ParallelHybrid), so each keeps a KV cache and a state."""
    return _norm(cfg.get("model_type")) == "falconh1" or _arch(cfg).startswith("FalconH1")


def _is_lightning(cfg: dict[str, Any]) -> bool:
    """MiniMax-Text-01 / MiniMax-M1 (and transformers' `minimax`): linear layers are lightning attention."""
    return ("attn_type_list" in cfg or "decoder_attention_types" in cfg
            or _norm(cfg.get("model_type")) in ("minimaxtext01", "minimaxm1", "minimax")
            or _arch(cfg).startswith(("MiniMaxText01", "MiniMaxM1", "MiniMaxForCausalLM")))


def layer_kinds(cfg: dict[str, Any], path: str | None) -> list[str]:
    """One of 'full', 'sliding', 'mla', 'state', 'parallel' (attention beside a state in the same
    layer, Falcon-H1), 'shared' (reads an earlier layer's cache, `num_kv_shared_layers`) or 'none'
    (an MLP-only block) per layer. Precedence as `_base_kinds`; then the last
    `num_kv_shared_layers` layers become 'shared'."""
    kinds = _base_kinds(cfg, path)
    for i in _shared_targets(cfg, path, kinds):
        kinds[i] = "shared"
    return kinds


def _shared_targets(cfg: dict[str, Any], path: str | None, kinds: list[str]) -> dict[int, int]:
    """{layer: the layer whose cache it reads} for cross-layer KV sharing (Gemma 3n).

    The last `num_kv_shared_layers` layers keep no cache; each reads the last earlier layer of its own
    attention type (transformers `Gemma3nTextAttention.kv_shared_layer_index`; vLLM `gemma3n.py` names the
    same layers: 1 before the first shared layer for full attention, 2 before it for sliding).
    """
    shared = cfg.get("num_kv_shared_layers")
    if not shared:
        return {}
    k, n = _int(cfg, "num_kv_shared_layers", path), len(kinds)
    first = n - k
    if first < 1:
        raise ModelSourceError(f"is {k} but the model has {n} layers: no layer would own a KV cache.",
                               path=path, field="num_kv_shared_layers",
                               hint="It must be smaller than num_hidden_layers.")
    out = {}
    for i in range(first, n):
        if kinds[i] not in ("full", "sliding"):
            raise ModelSourceError(f"makes layer {i} ('{kinds[i]}') read another layer's KV cache; only full and "
                                   "sliding-window attention layers share one.", path=path,
                                   field="num_kv_shared_layers", hint="Check layer_types and num_kv_shared_layers.")
        same = [j for j in range(first) if kinds[j] == kinds[i]]
        if not same:
            raise ModelSourceError(f"makes layer {i} read the cache of an earlier {kinds[i]} layer, and there is "
                                   f"none among the first {first}.", path=path, field="num_kv_shared_layers",
                                   hint="Check layer_types and num_kv_shared_layers.")
        out[i] = same[-1]
    return out


def _base_kinds(cfg: dict[str, Any], path: str | None) -> list[str]:
    """One of 'full', 'sliding', 'mla', 'state', 'parallel', 'none' per layer, before KV sharing.

    Precedence: `layer_types`; MiniMax's `attn_type_list` (0 lightning attention, 1 softmax
    attention); Falcon-H1 (every layer 'parallel'); hybrid layouts (`attn_layer_indices`,
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
    key = "attn_type_list" if "attn_type_list" in cfg else "decoder_attention_types"
    if isinstance(cfg.get(key), list):  # MiniMax-Text-01 / M1 (vLLM minimax_text_01.py reads both keys)
        atl = cfg[key]
        odd = [t for t in atl if isinstance(t, bool) or t not in (0, 1)]
        if len(atl) != n or odd:
            found = f"found {odd[0]!r}" if odd else f"found {len(atl)} entries"
            raise ModelSourceError(
                f"must list 0 (lightning attention) or 1 (softmax attention) for each of the {n} layers; "
                f"{found}.", path=path, field=key, hint="Fix the list in config.json.")
        return ["full" if t == 1 else "state" for t in atl]
    if _is_parallel_hybrid(cfg):
        return ["parallel"] * n
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
    if heads and heads % kv_heads:
        raise ModelSourceError(
            f"{kv_heads} does not divide num_attention_heads {heads}: grouped-query attention gives every KV head "
            "the same number of query heads (transformers `repeat_kv`, vLLM's num_heads // num_kv_heads).",
            path=path, field="num_key_value_heads", hint="Fix the value in config.json.")
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
    if _is_lightning(cfg):  # MiniMax lightning attention: one head_dim x head_dim matrix per head, no conv
        _need(cfg, path, "num_attention_heads")
        heads = _int(cfg, "num_attention_heads", path)
        hd = _int(cfg, "head_dim", path) if g("head_dim") else (g("hidden_size") or 0) // max(heads, 1)
        _need({"head_dim": hd or None}, path, "head_dim")
        # vLLM MambaStateShapeCalculator.linear_attention_state_shape: (num_heads // tp, head_dim, head_dim)
        return RecurrentState(family="lightning", conv_elems=0, ssm_elems=heads * hd * hd)
    if g("mamba_n_heads") or g("mamba_num_heads"):  # Mamba2 (Bamba, Nemotron-H, Granite hybrid, Falcon-H1)
        heads = g("mamba_n_heads") or g("mamba_num_heads")
        d_head = g("mamba_d_head") or g("mamba_head_dim")
        _need({"mamba_d_head": d_head, "mamba_d_state": g("mamba_d_state") or g("ssm_state_size")},
              path, "mamba_d_head", "mamba_d_state")
        d_state = g("mamba_d_state") or g("ssm_state_size")
        d_inner = heads * d_head
        if "mamba_d_ssm" in cfg:  # Falcon-H1 states the mixer width; null means mamba_expand x hidden_size
            d_inner = g("mamba_d_ssm") or int(g("mamba_expand") or 2) * int(g("hidden_size") or 0) or d_inner
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
    """Per-layer cache specs of a (text) config. Raises UnknownArchitectureError.

    A 'parallel' layer (Falcon-H1) gives two entries, its attention and then its state marked
    `parallel`; a layer that reads an earlier layer's cache gives a `SharedKV` entry."""
    _need(cfg, path, "num_hidden_layers")
    kinds = _base_kinds(cfg, path)
    targets = _shared_targets(cfg, path, kinds)
    built: dict[str, Callable[[], LayerSpec]] = {
        "full": lambda: _attention(cfg, path, "full"),
        "sliding": lambda: _attention(cfg, path, "sliding"),
        "mla": lambda: _attention(cfg, path, "mla"),
        "state": lambda: _state(cfg, path),
        "parallel state": lambda: replace(_state(cfg, path), parallel=True),
    }
    cache: dict[str, LayerSpec] = {}

    def get(kind: str) -> LayerSpec:
        if kind not in cache:
            cache[kind] = built[kind]()
        return cache[kind]

    out = []
    for i, kind in enumerate(kinds):
        if kind == "none":  # an MLP-only block keeps no cache
            continue
        if i in targets:
            own = get(kind)
            out.append(SharedKV(target_layer=targets[i], target_kind=kinds[targets[i]],
                                num_kv_heads=own.num_kv_heads, head_dim_k=own.head_dim_k,  # type: ignore[union-attr]
                                head_dim_v=own.head_dim_v))  # type: ignore[union-attr]
        elif kind == "parallel":
            out.extend((get("full"), get("parallel state")))
        else:
            out.append(get(kind))
    if not out:
        raise ModelSourceError("describes no layer that attends or keeps state.", path=path,
                               field="hybrid_override_pattern" if "hybrid_override_pattern" in cfg else "layer_types",
                               hint="Check the layer layout fields.")
    return tuple(out)
