"""llama.cpp (llama-server, llama-cpp-python, Ollama's runner) memory rules.

Sources (llama.cpp, 2026): `src/llama-context.cpp` (n_ctx = GGML_PAD(n_ctx, 256);
without a unified cache each of n_seq_max streams gets n_ctx_seq =
GGML_PAD(n_ctx / n_seq_max, 256) cells), `src/llama-kv-cache.cpp` (per layer a K
tensor of ggml_row_size(type_k, n_embd_k_gqa) x cells x streams and the same for V;
MLA layers keep K only), `src/llama-kv-cache-iswa.cpp` (the SWA cache has
GGML_PAD(min(cells, n_swa x (unified ? n_seq_max : 1) + n_ubatch), 256) cells unless
--swa-full), recurrent state in f32 for max(1, n_seq_max) sequences.

In a llama-server the context `-c` is shared by the `-np` slots, so the grid cell
"max_model_len x concurrency" is `-c (max_model_len x concurrency) -np concurrency`.
"""

from __future__ import annotations

from ..spec import ModelSpec
from .base import Budget, Overhead, RulesBase, Settings, cdiv, kv_dtype

MIB = 2**20
PAD = 256


# architectures whose sliding windows llama.cpp honours (src/models/*.cpp load_swa_pattern); for the rest
# (Mistral v0.1 as `llama`, Phi-3: "Phi SWA is currently disabled") every layer keeps the full context
_SWA_ARCHS = ("gemma2", "gemma3", "gptoss", "gpt-oss", "cohere2", "exaone4", "olmo2", "smallthinker", "llama4")


def swa_supported(model: ModelSpec) -> bool:
    arch = model.architecture.lower().replace("_", "")
    return any(a.replace("-", "") in arch.replace("-", "") for a in _SWA_ARCHS)


def pad(n: int, to: int = PAD) -> int:
    return cdiv(n, to) * to


class LlamaCppRules(RulesBase):
    name = "llamacpp"

    def flags(self) -> dict[str, str]:
        return {"max_model_len": "-c", "concurrency": "-np", "kv_cache_dtype": "-ctk/-ctv", "fp8": "q8_0",
                "utilization": "-ngl", "tp": "--split-mode layer", "quantization": "a smaller GGUF quant"}

    def cell_flags(self, s: Settings) -> str:
        t = {"auto": "f16", "fp16": "f16", "fp32": "f32"}.get(s.kv_cache_dtype, s.kv_cache_dtype)
        unified = " -kvu" if s.kv_unified and s.concurrency > 1 else ""
        return f"-c {s.max_model_len * s.concurrency} -np {s.concurrency} -ctk {t} -ctv {t} -ub {s.n_ubatch}{unified}"

    def cells(self, s: Settings, n_ctx: int, n_seq: int) -> tuple[int, int]:
        """(cells per stream, streams) of the non-SWA cache for context `n_ctx` over `n_seq` sequences."""
        n_ctx = pad(n_ctx)
        if s.kv_unified or n_seq == 1:
            return n_ctx, 1
        return pad(n_ctx // n_seq), n_seq

    def swa_cells(self, s: Settings, window: int, base_cells: int, n_seq: int) -> int:
        if s.swa_full:
            return base_cells
        return pad(min(base_cells, window * (n_seq if s.kv_unified else 1) + s.n_ubatch))

    def layer_bytes(self, model: ModelSpec, s: Settings, n_ctx: int, n_seq: int) -> dict[str, int]:
        """Bytes of K, V and recurrent state over all layers for context `n_ctx` and `n_seq` sequences,
        as llama.cpp prints them in `llama_kv_cache: size = ... K (f16): ..., V (f16): ...`."""
        kv = kv_dtype(model, s)
        base, streams = self.cells(s, n_ctx, n_seq)
        swa = swa_supported(model)
        out = {"k": 0, "v": 0, "k_swa": 0, "v_swa": 0, "state": 0}
        for layer in model.layers:
            if layer.kind == "state":
                out["state"] += layer.bytes_per_seq(4, 1) * max(1, n_seq)
            elif layer.kind == "mla":
                out["k"] += kv.row_bytes(layer.kv_lora_rank + layer.qk_rope_head_dim) * base * streams
            elif layer.kind == "sliding" and swa:
                cells = self.swa_cells(s, layer.window, base, n_seq)
                out["k_swa"] += kv.row_bytes(layer.k_elems(1)) * cells * streams
                out["v_swa"] += kv.row_bytes(layer.v_elems(1)) * cells * streams
            else:
                out["k"] += kv.row_bytes(layer.k_elems(1)) * base * streams
                out["v"] += kv.row_bytes(layer.v_elems(1)) * base * streams
        return out

    def kv_cache_bytes(self, model: ModelSpec, s: Settings, max_model_len: int, seqs: int) -> int:
        """Per GPU: llama.cpp has no tensor parallelism; `--split-mode layer` over tensor_parallel_size
        GPUs gives each an even share of the layers, and so of the cache."""
        return cdiv(sum(self.layer_bytes(model, s, max_model_len * seqs, seqs).values()), s.tensor_parallel_size)

    def growing_bytes_per_token(self, model: ModelSpec, s: Settings) -> int:
        """Per GPU, the layers that grow with every token, split by layers across GPUs."""
        return cdiv(self.engine_bytes_per_token(model, s), s.tensor_parallel_size)

    def engine_bytes_per_token(self, model: ModelSpec, s: Settings) -> int:
        """Bytes per cell of the non-SWA cache (the part that grows with -c)."""
        kv = kv_dtype(model, s)
        total, swa = 0, swa_supported(model)
        for layer in model.layers:
            if layer.kind == "mla":
                total += kv.row_bytes(layer.kv_lora_rank + layer.qk_rope_head_dim)
            elif layer.kind == "full" or (layer.kind == "sliding" and not swa):
                total += layer.bytes_per_token(kv, 1)
        return total

    def pool_tokens(self, model: ModelSpec, s: Settings, pool_bytes: int) -> int:
        per = self.engine_bytes_per_token(model, s)
        return max(0, pool_bytes // per) if per else 0

    def allocation(self, model: ModelSpec, s: Settings) -> tuple[int, int]:
        """(KV buffer bytes, cells) llama.cpp allocates at start for the selected cell: it sizes the cache
        to -c, so this is its pool; the cells are the padded -c it prints as n_ctx."""
        n_ctx = s.max_model_len * s.concurrency
        cells, streams = self.cells(s, n_ctx, s.concurrency)
        return self.kv_cache_bytes(model, s, s.max_model_len, s.concurrency), cells * streams

    def compute_buffer_estimate(self, model: ModelSpec, s: Settings, n_ctx: int) -> int:
        """The compute buffer (estimate): logits of one ubatch in f32 plus its hidden states; without
        flash attention also the KQ matrix, n_ubatch x n_ctx x n_head x f32."""
        vocab, hidden = model.vocab_size or 32000, model.hidden_size or 4096
        ff = model.intermediate_size or 4 * hidden
        ub = s.n_ubatch
        buf = ub * (vocab + 4 * hidden + 2 * ff) * 4
        if not s.flash_attn:
            buf += ub * pad(n_ctx) * (model.num_attention_heads or 32) * 4
        return buf

    def budget(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Budget:
        n_ctx = s.max_model_len * s.concurrency
        overheads = (
            Overhead(name="compute buffer", bytes=self.compute_buffer_estimate(model, s, n_ctx), estimated=True,
                     assumption=f"n_ubatch={s.n_ubatch}, flash attention {'on' if s.flash_attn else 'off'}"),
            Overhead(name="CUDA context", bytes=s.non_torch_bytes if s.non_torch_bytes is not None else 300 * MIB,
                     estimated=s.non_torch_bytes is None, assumption="driver context and cuBLAS workspace"),
        )
        return Budget(budget_bytes=gpu_bytes, overheads=overheads, kv_pool_bytes=None)
