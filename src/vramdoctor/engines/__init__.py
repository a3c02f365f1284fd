"""The engines vramdoctor knows, one module each (`engines/<name>.py` defining `ENGINE`), found by
listing this package: adding an engine is adding its file. Modules load lazily, so `estimate` on vLLM
imports vLLM's module alone; `logs` loads them all (any log may be any engine's).

`get(name)` returns an `Engine` for a name or alias as users type it ("vLLM", "llama.cpp", "trtllm");
`get_engine(name)` the memory rules `estimate` uses; `all_engines()` every engine, generic last.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from ..errors import UsageError
from ..spec import ModelSpec
from .base import (
    Budget,
    EngineRules,
    Overhead,
    RulesBase,
    Settings,
    activation_estimate,
    kv_dtype,
    state_bytes_per_seq,
)
from .interface import Engine

_NOT_ENGINES = {"base", "interface", "words", "vllm_profile", "vllm_ranks", "vllm_graphs", "llamacpp_split"}

#: the --kv-cache-dtype values each engine accepts (vLLM `CacheDType`, SGLang `--kv-cache-dtype` choices,
#: llama.cpp `-ctk/-ctv` types); vramdoctor's names, printed in the engine's spelling by cell_flags
KV_DTYPES_BY_ENGINE = {
    "vllm": ("auto", "bf16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2"),
    "sglang": ("auto", "bf16", "bfloat16", "fp8_e4m3", "fp8_e5m2"),
    "llamacpp": ("auto", "f32", "fp32", "f16", "fp16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl"),
}


def _key(name: str) -> str:
    return name.strip().lower().replace(".", "").replace("_", "-").replace(" ", "-")


def _module_names() -> list[str]:
    return [m.name for m in pkgutil.iter_modules(__path__) if m.name not in _NOT_ENGINES]


def _load(module: str) -> Engine | None:
    mod = importlib.import_module(f"{__name__}.{module}")
    return getattr(mod, "ENGINE", None)


@lru_cache(maxsize=None)
def all_engines() -> tuple[Engine, ...]:
    """Every engine, the generic one last (its words are the fallback of every log)."""
    found = [e for e in (_load(m) for m in sorted(_module_names())) if e is not None]
    return tuple(sorted(found, key=lambda e: e.name == "generic"))


@lru_cache(maxsize=None)
def get(name: str) -> Engine:
    """The engine called `name` (its name or an alias, in any case, with '.', '_' or spaces).
    Raises UsageError naming the engines known."""
    key = _key(name)
    module = key.replace("-", "_")
    if module in _module_names():  # the common case: no need to load every engine
        e = _load(module)
        if e is not None:
            return e
    for e in all_engines():
        if key in {_key(e.name), _key(e.label), *(_key(a) for a in e.aliases)}:
            return e
    raise UsageError(f"unknown engine '{name}'.", option="--engine",
                     hint="Use one of: " + ", ".join(e.name for e in all_engines()) + ".")


def get_engine(name: str) -> EngineRules:
    """The memory rules for `name` (vllm, sglang, llamacpp, generic, and the engines that share theirs:
    Ollama and KoboldCpp use llama.cpp's, Aphrodite vLLM's). Raises UsageError."""
    try:
        e = get(name)
    except UsageError:
        e = None
    if e is not None and e.rules is None and e.wraps:
        e = get(e.wraps)
    if e is not None and e.rules is not None:
        return e.rules()
    # (only now every engine is loaded, to name those that share rules: estimate on one engine imports one module)
    # (those whose wrapped engine has rules of its own: Triton's TensorRT-LLM backend wraps an engine with none)
    shared = ", ".join(f"{x.name} ({x.wraps}'s)" for x in all_engines() if x.wraps and get(x.wraps).rules is not None)
    hint = f"Use vllm, sglang, llamacpp or generic, or an engine that shares their rules: {shared}."
    if e is not None:
        raise UsageError(f"estimate has no memory rules for {e.label} (`logs` reads its logs).", option="--engine",
                         hint=hint + " `--engine generic` gives weights and KV cache without an engine's overheads.")
    raise UsageError(f"unknown engine '{name}'.", option="--engine", hint=hint)


__all__ = ["KV_DTYPES_BY_ENGINE", "Budget", "Engine", "EngineRules", "Overhead", "RulesBase", "Settings",
           "activation_estimate", "all_engines", "get", "get_engine", "kv_dtype", "state_bytes_per_seq",
           "ModelSpec"]
