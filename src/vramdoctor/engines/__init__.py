"""Engine memory rules. `get_engine(name)` returns the rules for vllm, sglang, llamacpp or generic."""

from __future__ import annotations

from ..errors import UsageError
from ..spec import ModelSpec
from .base import (Budget, EngineRules, Overhead, RulesBase, Settings, activation_estimate, kv_dtype,
                   state_bytes_per_seq)
from .llamacpp import LlamaCppRules
from .sglang import SglangRules
from .vllm import VllmRules

GIB = 2**30


class GenericRules(RulesBase):
    """No engine in particular: every token of every full layer, sliding layers up to their window,
    recurrent state per sequence; an activation estimate and 0.5 GiB of CUDA context besides."""

    name = "generic"

    def flags(self) -> dict[str, str]:
        return {"max_model_len": "max_model_len", "concurrency": "concurrency", "kv_cache_dtype": "kv_cache_dtype",
                "fp8": "fp8", "utilization": "gpu_memory_utilization", "tp": "tensor_parallel_size",
                "quantization": "quantization"}

    def cell_flags(self, s: Settings) -> str:
        return (f"max_model_len={s.max_model_len} concurrency={s.concurrency} kv_cache_dtype={s.kv_cache_dtype} "
                f"tensor_parallel_size={s.tensor_parallel_size}")

    def kv_cache_bytes(self, model: ModelSpec, s: Settings, max_model_len: int, seqs: int) -> int:
        kv, tp = kv_dtype(model, s), s.tensor_parallel_size
        per_seq = 0
        for layer in model.layers:
            if layer.kind == "sliding":
                per_seq += min(layer.window, max_model_len) * layer.bytes_per_token(kv, tp)
            elif layer.kind != "state":
                per_seq += max_model_len * layer.bytes_per_token(kv, tp)
        return seqs * (per_seq + state_bytes_per_seq(model, s))

    def engine_bytes_per_token(self, model: ModelSpec, s: Settings) -> int:
        kv, tp = kv_dtype(model, s), s.tensor_parallel_size
        return sum(layer.bytes_per_token(kv, tp) for layer in model.layers if layer.kind in ("full", "mla"))

    def pool_tokens(self, model: ModelSpec, s: Settings, pool_bytes: int) -> int:
        per = self.engine_bytes_per_token(model, s)
        return max(0, pool_bytes // per) if per else 0

    def budget(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Budget:
        act = s.activation_bytes if s.activation_bytes is not None else activation_estimate(
            model, s.max_num_batched_tokens, s.tensor_parallel_size)
        ctx = s.non_torch_bytes if s.non_torch_bytes is not None else GIB // 2
        return Budget(budget_bytes=gpu_bytes, kv_pool_bytes=None, overheads=(
            Overhead(name="activation peak", bytes=act, estimated=s.activation_bytes is None,
                     assumption=f"one forward pass of {s.max_num_batched_tokens} tokens"),
            Overhead(name="CUDA context", bytes=ctx, estimated=s.non_torch_bytes is None,
                     assumption="driver context and library workspaces"),
        ))


#: the --kv-cache-dtype values each engine accepts (vLLM `CacheDType`, SGLang `--kv-cache-dtype` choices,
#: llama.cpp `-ctk/-ctv` types); vramdoctor's names, printed in the engine's spelling by cell_flags
KV_DTYPES_BY_ENGINE = {
    "vllm": ("auto", "bf16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2"),
    "sglang": ("auto", "bf16", "bfloat16", "fp8_e4m3", "fp8_e5m2"),
    "llamacpp": ("auto", "f32", "fp32", "f16", "fp16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl"),
}

ENGINES = {"vllm": VllmRules, "sglang": SglangRules, "llamacpp": LlamaCppRules, "generic": GenericRules}


def get_engine(name: str) -> EngineRules:
    """The rules for `name` (vllm, sglang, llamacpp, generic). Raises UsageError."""
    key = name.lower().replace(".", "").replace("-", "").replace("_", "")
    if key in ("llamacpp", "llama", "ollama"):
        key = "llamacpp"
    if key not in ENGINES:
        raise UsageError(f"unknown engine '{name}'.", option="--engine", hint="Use vllm, sglang, llamacpp or generic.")
    return ENGINES[key]()


__all__ = ["KV_DTYPES_BY_ENGINE", "Budget", "EngineRules", "Overhead", "Settings", "get_engine", "ENGINES", "state_bytes_per_seq"]
