"""vLLM (V1 engine) memory rules.

Sources (vLLM main, 2025): `vllm/v1/worker/gpu_worker.py` (determine_available_memory:
requested = total x gpu_memory_utilization; KV = requested - weights - peak
activation - non-torch increase - CUDA graphs), `vllm/v1/kv_cache_interface.py`
(page sizes: 2 x block_size x kv_heads x head_size x dtype for attention,
block_size x (kv_lora_rank + rope) x dtype for MLA; a sliding layer needs
cdiv(min(window - 1 + max_num_batched_tokens, max_model_len), block_size) + 1
blocks), `vllm/v1/core/kv_cache_utils.py` (num_blocks = available //
(page_size x layers per group); "GPU KV cache size: N tokens" = num_blocks //
groups x block_size; max model length estimate by binary search).
"""

from __future__ import annotations

from ..spec import ModelSpec
from .base import (Budget, Overhead, RulesBase, Settings, activation_estimate, cdiv, kv_dtype, sampler_estimate,
                   state_bytes_per_seq, weights_per_gpu)

GIB = 2**30
NON_TORCH_TP1 = int(0.35 * GIB)  # vLLM logs: 0.35 GiB on one RTX 3090 (R01); NCCL adds more under TP
NON_TORCH_TP = int(0.50 * GIB)


class VllmRules(RulesBase):
    name = "vllm"

    def flags(self) -> dict[str, str]:
        return {"max_model_len": "--max-model-len", "concurrency": "--max-num-seqs",
                "kv_cache_dtype": "--kv-cache-dtype", "fp8": "fp8",
                "utilization": "--gpu-memory-utilization", "tp": "--tensor-parallel-size",
                "quantization": "--quantization"}

    def cell_flags(self, s: Settings) -> str:
        return (f"--max-model-len {s.max_model_len} --max-num-seqs {s.concurrency} --kv-cache-dtype {s.kv_cache_dtype} "
                f"--gpu-memory-utilization {s.gpu_memory_utilization} --tensor-parallel-size {s.tensor_parallel_size}")

    def _tokens_for_layer(self, layer, s: Settings, max_model_len: int) -> int:
        """Tokens one sequence occupies in a layer's pages, rounded to whole blocks."""
        b = s.block_size
        if layer.kind == "sliding":
            need = min(layer.window - 1 + s.max_num_batched_tokens, max_model_len)
            return (cdiv(need, b) + 1) * b
        return cdiv(max_model_len, b) * b

    def kv_cache_bytes(self, model: ModelSpec, s: Settings, max_model_len: int, seqs: int) -> int:
        kv, tp = kv_dtype(model, s), s.tensor_parallel_size
        per_seq = sum(self._tokens_for_layer(layer, s, max_model_len) * layer.bytes_per_token(kv, tp)
                      for layer in model.layers if layer.kind != "state")
        return seqs * (per_seq + state_bytes_per_seq(model, s))

    def engine_bytes_per_token(self, model: ModelSpec, s: Settings) -> int:
        """Bytes per token of pool capacity: every attention layer, sliding ones included, as
        `GPU KV cache size` divides the pool (R18: gpt-oss counts all 36 layers)."""
        kv, tp = kv_dtype(model, s), s.tensor_parallel_size
        return sum(layer.bytes_per_token(kv, tp) for layer in model.layers if layer.kind != "state")

    def pool_tokens(self, model: ModelSpec, s: Settings, pool_bytes: int) -> int:
        per_token = self.engine_bytes_per_token(model, s)
        if per_token == 0 or pool_bytes <= 0:
            return 0
        blocks = pool_bytes // (per_token * s.block_size)
        return blocks * s.block_size

    def budget(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Budget:
        tp = s.tensor_parallel_size
        requested = int(gpu_bytes * s.gpu_memory_utilization)
        overheads = []
        if s.activation_bytes is not None:
            overheads.append(Overhead(name="activation peak", bytes=s.activation_bytes, estimated=False,
                                      assumption="given"))
        else:
            act = max(activation_estimate(model, s.max_num_batched_tokens, tp),
                      sampler_estimate(model, min(s.max_num_seqs, s.max_num_batched_tokens)))
            overheads.append(Overhead(
                name="activation peak", bytes=act, estimated=True,
                assumption=f"larger of a {s.max_num_batched_tokens}-token forward pass and "
                           f"{min(s.max_num_seqs, s.max_num_batched_tokens)} x vocab fp32 logits"))
        nt = s.non_torch_bytes if s.non_torch_bytes is not None else (NON_TORCH_TP1 if tp == 1 else NON_TORCH_TP)
        overheads.append(Overhead(name="non-torch memory", bytes=nt, estimated=s.non_torch_bytes is None,
                                  assumption="cuBLAS/NCCL workspaces, as vLLM logs show them"))
        if not s.enforce_eager:
            cg = s.cuda_graph_bytes if s.cuda_graph_bytes is not None else 0
            overheads.append(Overhead(
                name="CUDA graphs", bytes=cg, estimated=s.cuda_graph_bytes is None,
                assumption="captured after the pool is sized; 0.5-1.9 GiB of the headroom"))
        pool = requested - weights_per_gpu(model, tp) - sum(o.bytes for o in overheads)
        return Budget(budget_bytes=requested, overheads=tuple(overheads), kv_pool_bytes=pool)

    def max_concurrency(self, model: ModelSpec, s: Settings, pool_bytes: int) -> float:
        """vLLM's "Maximum concurrency for N tokens per request": pool / one request's pages."""
        one = self.kv_cache_bytes(model, s, s.max_model_len, 1)
        return pool_bytes / one if one else 0.0
