"""SGLang memory rules.

Sources (sglang `srt/model_executor/model_runner.py`, `srt/mem_cache/memory_pool.py`,
`srt/server_args.py`): the token pool is
rest = available_after_weights - available_before_weights x (1 - mem_fraction_static),
max_total_num_tokens = rest // cell_size with cell_size = kv_heads/tp x head_dim x layers
x 2 (K and V) x dtype for MHA, (kv_lora_rank + qk_rope_head_dim) x layers x dtype for MLA
(`MLATokenToKVPool`). Pages are one token. It prints "KV Cache is allocated. #tokens: N,
K size: x GB, V size: y GB" in GiB.
"""

from __future__ import annotations

from ..spec import ModelSpec
from .base import Budget, Overhead, RulesBase, Settings, kv_dtype, state_bytes_per_seq, weights_per_gpu

GIB = 2**30
CUDA_CONTEXT = int(0.45 * GIB)  # memory in use before weights load (CUDA context, NCCL): R23 shows ~0.4-0.9 GiB


def default_mem_fraction_static(gpu_bytes: int, tp: int) -> float:
    """SGLang's default mem_fraction_static by GPU size and TP (server_args.py, 2025)."""
    gib = gpu_bytes / GIB
    if gib < 20:
        return 0.79 if tp < 4 else 0.81
    if gib < 35:
        return 0.80 if tp < 4 else 0.83
    if gib < 90:
        return 0.85 if tp < 4 else 0.87
    return 0.88 if tp < 4 else 0.90


class SglangRules(RulesBase):
    name = "sglang"

    def flags(self) -> dict[str, str]:
        return {"max_model_len": "--context-length", "concurrency": "--max-running-requests",
                "kv_cache_dtype": "--kv-cache-dtype", "fp8": "fp8_e4m3",
                "utilization": "--mem-fraction-static", "tp": "--tp-size", "quantization": "--quantization"}

    def cell_flags(self, s: Settings) -> str:
        frac = f" --mem-fraction-static {s.mem_fraction_static}" if s.mem_fraction_static else ""
        return (f"--context-length {s.max_model_len} --max-running-requests {s.concurrency} "
                f"--kv-cache-dtype {s.kv_cache_dtype} --tp-size {s.tensor_parallel_size}{frac}")

    def engine_bytes_per_token(self, model: ModelSpec, s: Settings) -> int:
        """cell_size: every attention layer at every token (sliding layers included: the hybrid
        SWA pool is opt-in and not modelled)."""
        kv, tp = kv_dtype(model, s), s.tensor_parallel_size
        return sum(layer.bytes_per_token(kv, tp) for layer in model.layers if layer.kind != "state")

    def kv_cache_bytes(self, model: ModelSpec, s: Settings, max_model_len: int, seqs: int) -> int:
        return seqs * (max_model_len * self.engine_bytes_per_token(model, s) + state_bytes_per_seq(model, s))

    def pool_tokens(self, model: ModelSpec, s: Settings, pool_bytes: int) -> int:
        cell = self.engine_bytes_per_token(model, s)
        return max(0, pool_bytes // cell) if cell else 0

    def fraction(self, s: Settings, gpu_bytes: int) -> float:
        return s.mem_fraction_static or default_mem_fraction_static(gpu_bytes, s.tensor_parallel_size)

    def budget(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Budget:
        """budget_bytes is SGLang's static memory (weights + KV pool): mem_fraction_static of what is
        available at start; the rest is left to activations and CUDA graphs."""
        frac = self.fraction(s, gpu_bytes)
        ctx = s.non_torch_bytes if s.non_torch_bytes is not None else CUDA_CONTEXT
        avail_before = gpu_bytes - ctx
        static = int(avail_before * frac)
        reserved = avail_before - static
        overheads = (
            Overhead(name="CUDA context", bytes=ctx, estimated=s.non_torch_bytes is None,
                     assumption="memory in use before the weights load"),
            Overhead(name="activations + CUDA graphs", bytes=reserved, estimated=False,
                     assumption=f"(1 - mem_fraction_static={frac:.2f}) of the memory available at start"),
        )
        pool = static - weights_per_gpu(model, s.tensor_parallel_size)
        return Budget(budget_bytes=static, overheads=overheads, kv_pool_bytes=pool)
