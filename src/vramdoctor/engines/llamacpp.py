"""llama.cpp (llama-server, llama-cpp-python, Ollama's runner) memory rules.

Sources (llama.cpp, 2026): `src/llama-context.cpp` (n_ctx = GGML_PAD(n_ctx, 256);
without a unified cache each of n_seq_max streams gets n_ctx_seq =
GGML_PAD(n_ctx / n_seq_max, 256) cells), `src/llama-kv-cache.cpp` (per layer a K
tensor of ggml_row_size(type_k, n_embd_k_gqa) x cells x streams and the same for V;
MLA layers: by build, below), `src/llama-kv-cache-iswa.cpp` (the SWA cache has
GGML_PAD(min(cells, n_swa x (unified ? n_seq_max : 1) + n_ubatch), 256) cells unless
--swa-full), recurrent state in f32 for max(1, n_seq_max) sequences.

What changes with the build (`--engine-version`: the build number llama.cpp prints, `b7812`, `7812` or
`build: 7812 (hash)`; `git rev-list --count HEAD` of upstream, `cmake/build-info.cmake`): the cache of
multi-head latent attention (DeepSeek-V2/V3 GGUFs converted with `attention.key_length_mla`):
- b5137 (daa42288, PR #12801, "llama : DeepSeek V2/V3 MLA implementation") to b7831: the K cache holds
  the latent and the rope part, kv_lora_rank + qk_rope_head_dim per token and layer (`Kcur = concat(k_pe,
  kv_cmpr)`), and the V cache the latent again, kv_lora_rank (`Vcur = kv_cmpr`), both through the normal
  K/V cache (`llama-kv-cache.cpp`). b7812 (PR #18986) reads V as a view of K but still allocates and writes
  the V cache.
- b7832 (d9c6ce46, PR #19067, "kv-cache : support V-less cache") on: `has_v = !is_mla`, no V cache; still
  so at b10573, the newest build checked.
- before b5137 there is no MLA cache: such a build cannot read a GGUF converted with the MLA keys (it has
  `attn_k_b`/`attn_v_b` where the build wants `attn_kv_b`), and is refused for one.
A GGUF converted before PR #12801 (no `key_length_mla`) caches every head's K and V in every build (plain
attention, `sources/gguf_file.py`).

In a llama-server the context `-c` is shared by the `-np` slots, so the grid cell
"max_model_len x concurrency" is `-c (max_model_len x concurrency) -np concurrency`.
"""

from __future__ import annotations

import re

from ..errors import UsageError
from ..parallel import decoder_layers, tied_head, weight_split, with_layers
from .llamacpp_split import device_layers
from ..spec import ModelSpec
from .base import Budget, Overhead, RulesBase, Settings, cdiv, kv_dtype
from .words import build_number, modelled, rules_note

MIB = 2**20
PAD = 256
NEWEST = "b10573"  # the newest build whose rules were checked
MLA_CACHE = 5137  # PR #12801: the latent MLA cache, K and a V of kv_lora_rank
MLA_NO_V = 7832  # PR #19067: no V cache for MLA layers


def build(s: Settings) -> int:
    """The llama.cpp build whose rules apply: the one given, or the newest checked."""
    return modelled(s.engine_version, NEWEST, parse=build_number)


def mla_k_v(layer, kv, s: Settings) -> tuple[int, int]:
    """(K, V) bytes per cell of an MLA layer under build(s) (see the module docstring)."""
    k = kv.row_bytes(layer.kv_lora_rank + layer.qk_rope_head_dim)
    return k, (kv.row_bytes(layer.kv_lora_rank) if build(s) < MLA_NO_V else 0)

# architectures whose sliding windows llama.cpp honours (src/models/*.cpp load_swa_pattern); for the rest
# (Mistral v0.1 as `llama`, Phi-3: "Phi SWA is currently disabled") every layer keeps the full context
_SWA_ARCHS = ("gemma2", "gemma3", "gptoss", "gpt-oss", "cohere2", "exaone4", "olmo2", "smallthinker", "llama4")

def swa_supported(model: ModelSpec) -> bool:
    arch = model.architecture.lower().replace("_", "")
    return any(a.replace("-", "") in arch.replace("-", "") for a in _SWA_ARCHS)

def pad(n: int, to: int = PAD) -> int:
    return cdiv(n, to) * to

def gpu_start(n_layers: int, s: Settings) -> int:
    """The first repeating layer on the GPU: llama.cpp offloads the last -ngl of the n_layer + 1 layers,
    the output layer (index n_layer) counting as the last (`i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0)`,
    `dev_output = get_layer_buft_list(n_layer)` in `llama-model.cpp`): -ngl 1 is the output layer alone."""
    ngl = n_layers + 1 if s.n_gpu_layers is None else s.n_gpu_layers
    return max(n_layers + 1 - ngl, 0)

def _head_on_gpu(s: Settings) -> bool:
    return s.n_gpu_layers is None or s.n_gpu_layers >= 1

def offloaded(model: ModelSpec, s: Settings) -> ModelSpec | None:
    """The part of the model whose KV cache llama.cpp keeps on the GPU (each layer's cache lives with it);
    None when no layer is offloaded."""
    groups = decoder_layers(model)
    start = gpu_start(len(groups), s)
    if start == 0:
        return model
    if start >= len(groups):
        return None
    return with_layers(model, groups[start:])

class LlamaCppRules(RulesBase):
    name = "llamacpp"
    # `src/llama-context.cpp` (b10587): "n_ctx_seq (%u) > n_ctx_train (%u) -- possible training context overflow" is
    # a warning; the context is allocated and served
    past_context = ("llama.cpp only warns (n_ctx_seq > n_ctx_train: possible training context overflow) and runs it; "
                    "output past the trained context may degrade without rope scaling (--rope-scaling yarn)")
    past_context_override = "llama.cpp, which only warns past it (rope scaling: --rope-scaling yarn)"

    def check_version(self, version: str) -> None:
        if build_number(version) is None:
            raise UsageError(f"cannot read '{version}' as a llama.cpp build.", option="--engine-version",
                             hint="Give the build number llama.cpp prints: b7812, 7812 or 'build: 7812 (hash)'.")

    def resolve(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Settings:
        """The settings with the defaults filled in. Raises UsageError for a build before b5137 and a model with
        MLA layers: such a build has no MLA cache and cannot read a GGUF converted with one."""
        if model.count("mla") and build(s) < MLA_CACHE:
            raise UsageError(f"llama.cpp b{build(s)} predates its MLA cache (b5137, PR #12801) and cannot read a "
                             "GGUF converted with it (attention.key_length_mla).", option="--engine-version",
                             hint="Pass the GGUF that build converted (no key_length_mla: it caches every head's K and "
                                  "V), or a build from b5137.")
        return super().resolve(model, s, gpu_bytes)

    def rules_used(self, s: Settings) -> str:
        b = build(s)
        mla = ("MLA layers cache K only (from b7832, PR #19067)" if b >= MLA_NO_V else
               "MLA layers cache K and a kv_lora_rank-wide V (b5137-b7831)" if b >= MLA_CACHE else
               "no MLA cache (before b5137, PR #12801: a GGUF converted with MLA needs a later build)")
        return f"llama.cpp b{b} rules{rules_note(s.engine_version, b, parse=build_number)}, {mla}"

    def _per_gpu(self, model: ModelSpec, s: Settings, max_model_len: int, seqs: int) -> list[tuple[int, int]]:
        """(weights, KV cache) on each GPU for `seqs` sequences of `max_model_len`: the layers `device_layers` puts on
        it (whole layers, `--split-mode layer` over tensor_parallel_size GPUs), each with its cache, the output layer
        on the last; the input embedding stays on the host (`dev_input` is the CPU)."""
        memo = getattr(self, "_per_gpu_memo", None)
        if memo is None or memo[0] is not model or len(memo[1]) > 256:  # the model last asked about (searches)
            memo = self._per_gpu_memo = (model, {})
        key = (s, max_model_len, seqs)
        if key in memo[1]:
            return memo[1][key]
        layers, _, out = weight_split(model)
        groups = decoder_layers(model)
        n = len(groups)
        one = s.with_(tensor_parallel_size=1, n_gpu_layers=None)
        result = []
        for idx in device_layers(n, s.tensor_parallel_size, s.n_gpu_layers, self.free(s)):
            own = [i for i in idx if i < n]
            w = sum(layers[i] for i in own) + (out if n in idx else 0)
            kv = sum(self.layer_bytes(with_layers(model, [groups[i] for i in own]), one, max_model_len * seqs,
                                      seqs).values()) if own else 0
            result.append((w, kv))
        memo[1][key] = result
        return result

    @staticmethod
    def free(s: Settings) -> list[int] | None:
        """Each GPU's free memory at load, the split's weights (`llamacpp_split`): the GPU's memory less what other
        processes hold; None where none is given (equal free memory)."""
        if not s.gpu_used or not s.gpu_memory_bytes:
            return None
        return [max(0, s.gpu_memory_bytes - s.used_on(k)) for k in range(s.tensor_parallel_size)]

    def _decisive(self, model: ModelSpec, s: Settings) -> int:
        """The GPU with the least room left (its weights, KV cache and the others' memory on it, against the same
        memory on each) at the selected cell: its figures are the per-GPU ones (the first such GPU where several
        tie). Without other processes, the GPU with the most to hold."""
        per = self._per_gpu(model, s, s.max_model_len, s.concurrency)
        return max(range(len(per)), key=lambda k: (per[k][0] + per[k][1] + s.used_on(k), -k))

    def devices(self, model: ModelSpec, s: Settings) -> list[dict]:
        """Each GPU at the selected cell: its layers (n_layer is the output layer), weights, KV cache, and the memory
        other processes hold on it."""
        n = len(decoder_layers(model))
        idx = device_layers(n, s.tensor_parallel_size, s.n_gpu_layers, self.free(s))
        per = self._per_gpu(model, s, s.max_model_len, s.concurrency)
        return [{"rank": k, "layers": idx[k], "weights_bytes": w, "kv_cache_bytes": kv, "used_bytes": s.used_on(k)}
                for k, (w, kv) in enumerate(per)]

    def weights_bytes(self, model: ModelSpec, s: Settings) -> int:
        """Weights on the GPU that decides (`_decisive`): its offloaded layers, and the output layer on the last GPU
        from -ngl 1."""
        return self._per_gpu(model, s, s.max_model_len, s.concurrency)[self._decisive(model, s)][0]

    def host_bytes(self, model: ModelSpec, s: Settings, max_model_len: int, seqs: int) -> tuple[int, int]:
        """(weights, KV cache) bytes llama.cpp keeps in host memory: the layers not offloaded, the input
        embedding, the output layer unless offloaded, and those layers' caches."""
        layers, inp, out = weight_split(model)
        start = gpu_start(len(layers), s)
        # (a tied head left on the host reads the embedding itself: no second copy)
        weights = inp + sum(layers[:start]) + (0 if _head_on_gpu(s) or tied_head(model) else out)
        every = sum(self.layer_bytes(model, s.with_(tensor_parallel_size=1, n_gpu_layers=None), max_model_len * seqs,
                                     seqs).values())
        return weights, every - sum(kv for _, kv in self._per_gpu(model, s, max_model_len, seqs))

    def flags(self) -> dict[str, str]:
        return {"max_model_len": "-c", "concurrency": "-np", "kv_cache_dtype": "-ctk/-ctv", "fp8": "q8_0",
                "utilization": "-ngl", "tp": "--split-mode layer", "quantization": "a smaller GGUF quant"}

    def cell_flags(self, s: Settings) -> str:
        return spelled_cell(SPELLING, s)

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
                k, v = mla_k_v(layer, kv, s)
                out["k"] += k * base * streams
                out["v"] += v * base * streams
            elif layer.kind == "sliding" and swa:
                cells = self.swa_cells(s, layer.window, base, n_seq)
                out["k_swa"] += kv.row_bytes(layer.k_elems(1)) * cells * streams
                out["v_swa"] += kv.row_bytes(layer.v_elems(1)) * cells * streams
            else:
                out["k"] += kv.row_bytes(layer.k_elems(1)) * base * streams
                out["v"] += kv.row_bytes(layer.v_elems(1)) * base * streams
        return out

    def kv_cache_bytes(self, model: ModelSpec, s: Settings, max_model_len: int, seqs: int) -> int:
        """Per GPU: the KV cache of the layers on the GPU that decides (all layers on one GPU by default). At the
        selected cell that is its own cache; at another, the most any GPU needs beyond the decisive GPU's weights
        (max over GPUs of weights + cache, less those weights), so weights + KV cache is the fullest GPU's at
        every cell the searches try. Where other processes hold memory, the others' memory of each GPU counts with it
        (against the decisive GPU's, which its budget carries), so the fullest GPU is the one with the least room."""
        per = self._per_gpu(model, s, max_model_len, seqs)
        fullest = max(wk + kv + s.used_on(k) for k, (wk, kv) in enumerate(per))
        return max(0, fullest - s.used_on(self._decisive(model, s)) - self.weights_bytes(model, s))

    def growing_bytes_per_token(self, model: ModelSpec, s: Settings) -> int:
        """Per GPU, the layers that grow with every token on the GPU that decides: the decoder layers `device_layers`
        puts there (split by each GPU's free memory, `free`, and only the last -ngl offloaded), as its KV cache row
        counts them; the layers left on the host keep their cache there."""
        groups = decoder_layers(model)
        n = len(groups)
        idx = device_layers(n, s.tensor_parallel_size, s.n_gpu_layers, self.free(s))[self._decisive(model, s)]
        own = [i for i in idx if i < n]
        if len(own) == n:
            return self.engine_bytes_per_token(model, s)
        return self.engine_bytes_per_token(with_layers(model, [groups[i] for i in own]), s) if own else 0

    def engine_bytes_per_token(self, model: ModelSpec, s: Settings) -> int:
        """Bytes per cell of the non-SWA cache (the part that grows with -c)."""
        kv = kv_dtype(model, s)
        total, swa = 0, swa_supported(model)
        for layer in model.layers:
            if layer.kind == "mla":
                total += sum(mla_k_v(layer, kv, s))
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
        if s.gpu_used:
            k = self._decisive(model, s)
            if s.used_on(k):
                overheads += (Overhead(name=f"other processes (GPU {k})", bytes=s.used_on(k), estimated=False,
                                       assumption="given (--gpu-used); llama.cpp splits the layers by each GPU's free "
                                                  "memory (llama-model.cpp load_tensors)"),)
        return Budget(budget_bytes=gpu_bytes, overheads=overheads, kv_pool_bytes=None)

# --- the log ------------------------------------------------------------------------------------
# Sources (llama.cpp 2024 -> 2026; the prefix before ':' is the C function and changes by version):
# old `llm_load_tensors: CUDA0 buffer size`, `llama_kv_cache_init`, `llama_new_context_with_model:
# KV self size`; new `load_tensors: CUDA0 model buffer size`, `llama_kv_cache(_unified): size = %7.2f MiB
# (%6u cells, %3d layers, %2u/%u seqs)`, `llama_context: CUDA0 compute buffer size` (`sched_reserve:` in
# 2026), `llama_init_from_model: failed to initialize the context`; ggml `ggml_backend_cuda_buffer_type_
# alloc_buffer: allocating %.2f MiB on device %d: cudaMalloc failed: %s`, `ggml_gallocr_reserve_n: failed
# to allocate %s buffer of size %zu`; Metal `ggml_metal_(device_)init: recommendedMaxWorkingSetSize =
# %8.2f MB` (MiB until 2024, decimal MB after), `ggml_metal_synchronize: error: command buffer %d failed
# with status 5`, then Apple's "Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)";
# `tools/server`: "main: server is listening", "srv  update_slots", "print_timing".

from .interface import (Endpoints, Engine, Figure, KvView, LogWords, StepCode, Preset, Spelling,  # noqa: E402
                        Tokenizer, answer_json, as_count, token_ids)
from .words import NOT_ADMIN, NUM, SIZE, count, fig, lazy, msg, rx, to_bytes  # noqa: E402
from .generic import MEMORY_TERMS  # noqa: E402

_DEV = r"(?:CUDA|ROCm|Metal|MTL|Vulkan|SYCL|CANN)\d*"

#: a user's image encoded for a prompt (tools/mtmd/mtmd-helper.cpp mtmd_helper_eval_chunk_single: "encoding image or
#: slice...", "image/slice encoded in 812 ms", "decoding image batch 1/1"), printed bare, with no log prefix, by
#: llama-mtmd-cli and llama-server alike: a request's work (clip's own warm-up says "warmup" instead)
MTMD_STEPS = re.compile(r"\bencoding image (?:or )?slice\.\.\.|\bimage(?:/| )slice encoded in \d+ ms|"
                        r"\bdecoding image batch \d+/\d+")

#: tools/server update_slots: "Context size has been exceeded.", sent to every processing slot when llama_decode finds
#: no free KV cell for even a one-token batch; with slots sharing one cache (kv_unified) that cache is full under load
DECODE_FULL = r"\bContext size has been exceeded\b"

def _working_set(m) -> int:
    """recommendedMaxWorkingSetSize: MiB in 2023 builds (one space before '='), decimal MB since 2024."""
    if m.group(3) == "MiB":  # (a build that names the unit)
        return to_bytes(m.group(2), "MiB")
    return to_bytes(m.group(2), "MiB") if len(m.group(1)) == 1 else round(float(m.group(2)) * 10**6)

#: where a flag on a line is one in use, not one a person proposes ("try -fa on", "with -fa on it works")
_NOT_PROPOSED = (r"(?:^|(?<!\b[Tt]ry)(?<!\b[Uu]se)(?<!\b[Ww]ith)(?<!\b[Aa]dd)(?<!\b[Ss]et)(?<!\b[Pp]ass)(?<!\b[Nn]o)"
                 r"(?<!\b[Nn]ot)\s)")

#: a device's row of llama.cpp's memory breakdown: total = free + (self = model + context + compute) + unaccounted
#: (the source's format, "%*zu = %*zu + (%*zu = %*zu + %*zu + %*zu) + %*zu |", pads the numbers, never " + (")
_BREAKDOWN = (r"\|\s*(?:-\s*)?(?!Host\b)(\w+)(?: \([^)|]{0,80}\))?\s*\|\s*\d+\s*=\s*\d+ \+ \(\s*\d+\s*=\s*(\d+)\s*\+"
              r"\s*(\d+)\s*\+\s*(\d+)\s*\)")

#: the timings a llama.cpp program prints for a finished request or at its end (print_timings; since 2024
#: llama_perf_context_print)
TIMINGS = r"\b(?:(?:llama_)?print_timings|llama_perf_context_print):\s+total time\b"
#: the 2024 server's key=value access line, kept by forks such as ik_llama.cpp, up to its fields ("INFO [
#: log_server_request] request | tid=\x22...\x22 ... status=200 method=\x22POST\x22 path=\x22/completion\x22")
KV_ACCESS = r"\[\s*log_server_request\] request \|[^\n]*?"

LOG = LogWords(
    # the server command (tools/server's binary, llama-server)
    launch=rx(r"llama-server"),
    # (tools/main, llama-cli: the prompt's evaluation starts, then the answer is printed as it is sampled, then the
    # timings: "generate: n_ctx = 4096, n_batch = 2048, n_predict = -1, n_keep = 1"; in interactive mode "== Running in
    # interactive mode. ==")
    answer_begins=rx(r"generate: n_ctx = \d+, n_batch = \d+|== Running in interactive mode\. =="),
    bare_requests=MTMD_STEPS,
    # (a request answered: the timings of a finished request, print_timings before 2024's llama_perf_context_print,
    # "llama_perf_context_print:        total time =   1234.56 ms"; tools/server's access line, log_server_request
    # "request: POST /v1/chat/completions 127.0.0.1 200")
    # (and the 2024 server's key=value access line, kept by forks: "INFO [ log_server_request] request | ... status=200
    # method=\x22POST\x22 path=\x22/completion\x22"; in JSON, "function":"log_server_request" ... "status":200,"method":"POST")
    answered=rx(TIMINGS + r"|\brequest: POST /\S+ \S+ 200\b|" + KV_ACCESS + r"\bstatus=200 "
                r"method=\x22POST\x22|\x22function\x22:\s*\x22log_server_request\x22[^\n]*?\x22status\x22:\s*200,\s*"
                r"\x22method\x22:\s*\x22POST\x22", 0),
    # (a program's end of its work: those timings; llama-cli's "Interrupted by user" on Ctrl-C)
    work_done=rx(TIMINGS + r"|^\s*Interrupted by user\s*$", 0),
    # (and its own programs on a pasted command line, before 2024's llama- names: "./server ... -ngl 999", "./main -m")
    fingerprint=rx(r"llama_model_loader|llm_load_|load_tensors:|llama_new_context_with_model|llama_context:|"
                   r"(?:^|\s)\./(?:server|main)\s(?=[^\n]*\s-(?:ngl|m|c|np)\s)|"
                   r"llama_kv_cache|ggml_backend|ggml_cuda|llama-server|llama_init_from|print_info:|ggml_gallocr|"
                   r"srv\s+\w+:|main: build|ggml_metal|update_slots|launch_slot|ggml_new_tensor_impl|"
                   r"slot print_timing|llama_io_(?:write|read)_|"
                   # (its tools' own output: the timings every program prints at its end, llama_print_timings before
                   # 2024's llama_perf_context_print; llama-bench's table, "| model | size | params | backend | ngl |"
                   # and its "| pp512 |" / "| tg128 |" tests; 2023's loader and main, "llama_model_load: ggml ctx size =",
                   # "main: seed  = 1679"; 2024's server "llama server listening at")
                   r"llama_print_timings|llama_perf_\w+_print|^\s*\|\s*model\s*\|\s*size\s*\|\s*params\s*\|\s*backend\s*\||"
                   r"\|\s*(?:pp|tg)\d+\s*\|\s*[\d.]+ \u00b1 [\d.]+\s*\||llama_model_load: (?:ggml ctx size|loading model "
                   r"from|memory_size)|^main: seed\s*=\s*\d|llama server listening at|"
                   # (its server's key=value log of 2024, kept by forks such as ik_llama.cpp: "INFO [
                   # log_server_request] request | tid=\x22...\x22 ... status=200 method=\x22POST\x22"; and the same
                   # in JSON, "function":"log_server_request")
                   r"\[\s*(?:log_server_request|update_slots|launch_slot_with_task|print_timings|main)\] [\w ]{1,40}\| tid=|"
                   r"\x22function\x22:\s*\x22(?:log_server_request|update_slots|launch_slot_with_task|print_timings)\x22"),
    # (and the first line of a model's load where no program line comes before it: 2023's "llama.cpp: loading model
    # from PATH" (llama.cpp llama_model_load), as llama-cpp-python and other bindings print it)
    # (and llama-swap, the proxy that starts llama-server per model, at its own start: "llama-swap listening on :8080"
    # (mostlygeek/llama-swap main.go): a restart of the proxy starts its servers afresh)
    run_start=(rx(r"llama_server: initializing|main: build = |build: \d+ \(|system info: n_threads|"
                  r"^llama\.cpp: loading model from |^llama-swap listening on ", 0),),
    messages=(
        # llama-server's prompt cache (tools/server: a slot's cached prompt restored into the context's KV cache,
        # llama_state_seq_set_data) finding no free cells to restore into ("state_read_meta: failed to find available
        # cells in kv cache", "error loading state: failed to restore kv cache", "load: failed to restore state with
        # size N"): the slot clears the prompt and processes it afresh ("failed to load prompt from cache"), no failure
        msg(r"\bstate_read_meta: failed to find available cells in kv cache\b|\berror loading state: failed to restore "
            r"kv cache\b|\bload: failed to restore state with size \d+", "note", code="prompt-cache-restore-failed"),
        # its answer to a request sent while it still loads the model (tools/server: 503 '{"error":{"code":503,
        # "message":"Loading model","type":"unavailable_error"}}'), as a client relays it (litellm's
        # "ServiceUnavailableError: OpenAIException - Loading model."): the request came before the server was ready
        msg(r"\bServiceUnavailableError\b[^\n]{0,120}?\bLoading model\b|\x22message\x22\s*:\s*\x22Loading model\x22|"
            r"\b503\b[^\n]{0,60}?\bLoading model\b", "not_oom", code="server-still-loading"),
        # its HTTP layer's catch of an exception a request raised, in the server's key=value log of 2024 and its forks
        # (ik_llama.cpp: "VERB [ operator()] Got exception | tid=\x22...\x22 code=500 message=\x22split method must
        # have between 1 and 1 positional arguments ...\x22", a chat template that does not render): that request
        # failed, for the reason in its message; memory only where the message says so
        msg(r"\bGot exception \|[^\n]*?\bcode=5\d\d message=\x22(?![^\n]*?(?:out of memory|" + MEMORY_TERMS + r"))",
            "not_oom", code="error-not-memory"),
        # its argument parser refusing a value (common/arg.cpp common_params_parse_ex: "error while handling argument
        # \"--cache-type-k\": Unsupported cache type: q8", then the usage of that flag): nothing ran
        msg(r"\berror while handling argument \x22-{1,2}[\w-]+\x22: ", "not_oom", code="bad-argument"),
        # ... or its HTTP server that could not listen (tools/server/server.cpp main: "couldn't bind HTTP server socket,
        # hostname: 0.0.0.0, port: 8080", then "cleaning up before exit"): before the model loads
        # (before mid-2024, examples/server/server.cpp: "couldn't bind to server socket: hostname=0.0.0.0 port=80")
        msg(r"\bcouldn'?t bind (?:HTTP server socket|to server socket)\b", "not_oom", code="port-in-use"),
        # a batch asked for logits it did not request (src/llama-context.cpp llama_get_logits_ith: "invalid logits id
        # 14, reason: no logits", then GGML_ABORT): a bug of the caller's batch (a server or binding out of step with
        # the library), not memory
        msg(r"\bllama_get_logits_ith: invalid logits id -?\d+", "not_oom", code="ggml-assert"),
        # ggml-sycl's pool and buffer type refusing a device allocation ("alloc: can't malloc 2415914188 Bytes memory on
        # device"): the device's memory, its phase left to the progress
        msg(r"\bcan'?t malloc \d+ Bytes memory on device", "oom"),
        # ... or an RPC worker it was given that it could not reach (ggml/src/ggml-rpc/ggml-rpc.cpp socket_connect:
        # "Failed to connect to 192.168.1.43:50052"): the model is then placed without that device, on the others
        # and the CPU; the network, not memory
        # (the host's name empty where the address was given as ":50052", or an IPv6 one in brackets)
        msg(r"^\s*Failed to connect to [\w.\[\]:-]*:\d{2,5}\s*$", "not_oom", code="rpc-worker-unreachable"),
        msg(r"failed to allocate buffer for (?:kv|rs) cache|llama_kv_cache_init\(\) failed|"
            # (not where the same line names another cause: "...: CUDA driver version is insufficient")
            r"failed to initialize the KV cache(?![^\n]*\b(?:driver version|no CUDA-capable|not supported|unsupported|"
            r"[Pp]ermission denied)\b)", "oom", "KV", "kv-cache-alloc-failed"),
        msg(r"failed to allocate compute (?:pp |tg )?buffers|ggml_gallocr_reserve_n: failed to allocate|"
            r"failed to allocate output buffer", "oom", "WARMUP", "compute-buffer-alloc-failed"),
        msg(r"unable to allocate (?:backend|\w+) buffer|failed to allocate buffer for model|"
            r"failed to load model.*buffer", "oom", "WEIGHTS", "weights-alloc-failed"),
        # ggml's Vulkan backend on its own (`ggml-vulkan.cpp` ggml_vk_create_buffer): device memory it could not get,
        # also printed by llama-bench, before or without vk's ErrorOutOfDeviceMemory
        # (also as a report's title quotes it without the prefix: "Device memory allocation of size 17368219904 failed")
        msg(r"(?:ggml_vulkan: )?\bDevice memory allocation of size \d+ failed", "oom"),
        # llava's and llamafile's embedding of an image, made for each image a request sends (examples/llava/llava.cpp
        # llava_image_embed_make_with_clip_img: "Unable to allocate memory for image embeddings"): serving
        msg(r"\bUnable to allocate memory for image embeddings?\b", "oom", "RUNTIME", "serving-oom"),
        # a server started without a projector refusing an image (tools/server: "image input is not supported by this
        # server", "audio input is not supported ..."): the request asked for what it cannot do, no memory
        msg(r"\b(?:image|audio|multimodal) input is not supported by this server\b", "not_oom",
            code="capability-unsupported"),
        # ... or one buffer larger than the device allows in a single allocation (ggml_vk_create_buffer: size above
        # maxMemoryAllocationSize, "memory allocation limit", or above maxBufferSize / maxStorageBufferRange, "buffer
        # size limit"; about 4 GiB on many drivers): no amount of free memory takes it, only a smaller buffer (the phase
        # is the buffer's: the compute buffer's "failed to allocate compute buffers" after it, most often)
        msg(r"Requested buffer size exceeds device (?:memory allocation|buffer size) limit", "oom",
            code="buffer-exceeds-allocation-limit"),
        # ... and ggml-alloc's own check of a tensor against the buffer type's largest buffer
        # (ggml_backend_alloc_ctx_tensors_from_buft: "tensor blk.0.ffn_up.weight is too large to fit in a Vulkan0 buffer
        # (tensor size: N, max buffer size: M)"); a largest buffer of 0 is no limit of the device but one the back end
        # failed to read (an early Vulkan or SYCL build): no size fits it, whatever is free
        # (its figures alone: a terminal may wrap the words before them onto the line above)
        msg(r"\bbuffer \(tensor size: \d+, max buffer size: (?!0\))\d+\)", "oom",
            code="buffer-exceeds-allocation-limit"),
        msg(r"\bbuffer \(tensor size: \d+, max buffer size: 0\)", "not_oom",
            code="device-memory-query-failed"),
        # one batch holds more tokens than the whole cache has cells (llama-kv-cache.cpp find_slot, b3xxx to today:
        # "find_slot: n_tokens = 2043 > size = 512"): no load makes it fit and nothing ran out; the context is smaller
        # than the batch the program sends (-c below -b / -ub, an embedding's whole input in one batch)
        msg(r"\bfind_slot: n_tokens = \d+ > size = \d+", "not_oom", code="batch-larger-than-context"),
        # the cells are full while serving: the server retries with a smaller batch (not a crash); older builds
        # failed the batch ("KV cache is full - try increasing it via the context size")
        # (llama_decode returns 1: "could not find a KV slot for the batch (try reducing the size of the batch or
        # increase the context)" in llama.h, which bindings such as node-llama-cpp print; b3xxx-b5xxx
        # "decode: failed to find KV cache slot for ubatch of size N")
        # (the server's retry is its own line, tools/server update_slots: "failed to find free space in the KV cache,
        # retrying with smaller batch size, i = 0, n_batch = 2048, ret = 1"; it halves the batch until one fits, and
        # only at a batch of one does it fail the requests: "failed to decode the batch: KV cache is full - try
        # increasing it via the context size", each slot sent an error)
        msg(r"failed to find free space in the KV cache, retrying with smaller", "pressure", "RUNTIME",
            "kv-pool-full-smaller-batch"),
        msg(r"KV cache is full - try increasing it", "pressure", "RUNTIME", "kv-cache-full-request-failed"),
        msg(r"failed to find free space in the KV cache(?!, retrying with smaller)|failed to find a memory slot for batch|"
            r"failed to find (?:a )?KV cache slot for u?batch|"
            r"could not find a KV slot for the batch|llama_decode: failed to decode, ret = 1\b", "pressure",
            "RUNTIME", "kv-cache-full"),
        # a batch the context's own check refuses before it runs (llama-batch.cpp llama_batch_allocr::init, b5xxx+:
        # "the tokens of sequence 3 in the input batch have inconsistent sequence positions", "invalid token[0] =
        # 151700", "invalid seq_id[0][0] = 5 > 4"; then llama-context.cpp decode's "failed to initialize batch" and
        # llama_decode's "failed to decode, ret = -1"): the program's input (a speculative draft, a client's token
        # ids), not memory
        msg(r"\bin the input batch have inconsistent sequence positions\b|\binvalid token\[\d+\] = -?\d+|"
            r"\binvalid seq_id\[\d+\]\[\d+\] = -?\d+|\bdecode: failed to initialize batch\b|"
            r"\bllama_decode: failed to decode, ret = -1\b", "not_oom", code="batch-invalid"),
        # a decode asked of an encoder-only model (llama-context.cpp decode: "cannot decode batches with this context
        # (use llama_encode() instead)", an embedding model such as bge-m3 or a BERT; Ollama's embeddings path then
        # encodes and answers): the request's kind for this model, not memory
        msg(r"\bcannot decode batches with this context\b", "not_oom", code="decode-on-encoder-model"),
        # llama_decode's -2: the graph's compute could not allocate (llama-context.cpp decode maps
        # GGML_STATUS_ALLOC_FAILED to -2, 2025+; -3 is a compute that failed otherwise, its cause not given)
        # (llama-cpp-python's "llama_decode returned -2" is its own engine's words)
        msg(r"\bfailed to decode, ret = -2\b", "oom"),
        # ggml-sycl's device allocation that failed (ggml-sycl.cpp ggml_backend_sycl_buffer_type_alloc_buffer: "can't
        # allocate 12745011200 Bytes of memory on device"): the device had not that much; the buffer's step decides
        msg(r"\bcan't allocate \d+ Bytes of memory on device\b", "oom"),
        # an option value the build's back end refuses before anything loads (common/common.cpp, 2024, under
        # GGML_USE_SYCL: "warning: The split mode value:[row] is not supported by llama.cpp with SYCL. It's developing."
        # then "Exit!" and exit(1))
        msg(r"\bis not supported by llama\.cpp with \w+\. It's developing\b", "not_oom", code="bad-argument"),
        # a request longer than a slot's context (-c / -np): refused, the server goes on
        msg(r"the request exceeds the available context size|exceeds the available context size|"
            # (server.cpp, with context shift off: "Input prompt is too big compared to KV size. Please try increasing
            # KV size.")
            r"Input prompt is too big compared to KV size|"
            # (server.cpp, a slot that filled its context while generating, context shift off: "Context size has been
            # exceeded.", ERROR_TYPE_EXCEED_CONTEXT_SIZE; see DECODE_FULL)
            + DECODE_FULL, "request"),
        # a failed reservation that llama.cpp retries another way (2026): the failure before it need not be fatal
        msg(r"retrying without pipeline parallelism", "retry", "WARMUP"),
        # the fitting of -c / -ngl to free memory (2026, llama_params_fit) failed: llama.cpp goes on loading with the
        # settings as given, so what failed the fit is told by what follows
        msg(r"llama_params_fit: encountered an error while trying to fit", "note"),
        # ggml-metal compiling its kernels and failing (ggml_metal_init: "error: load pipeline error: Error
        # Domain=CompilerError Code=2 \"only 14 constant buffers binding are supported in the simulator but 25 were
        # used\"", "error: Error Domain=MTLLibraryErrorDomain ... failed to load library"): the back end cannot start on
        # this device (its "failed to allocate context" after it is that init's, not memory)
        msg(r"\bggml_metal_init: error: load pipeline error\b", "not_oom", code="kernel-build-failed"),
        # a KV cache type this model or these settings cannot take (llama-context.cpp): a setting, not memory
        msg(r"[KV] cache type \w+ with block size \d+ does not divide n_embd_head|V cache quantization requires "
            r"flash.?attn|quantized V cache was requested, but this requires Flash Attention", "not_oom",
            code="kv-cache-type-unsupported"),
        # an operation the back end cannot run: ggml-backend.cpp's scheduler, a tensor already placed on a back end
        # that lacks its op ("pre-allocated tensor (cache_k_l3 (view)) in a buffer (Vulkan0) that cannot run the
        # operation (SET_ROWS)"), ggml-vulkan's "ggml_vulkan: Error: Missing op: X", ggml-sycl's "error: op not
        # supported", ggml-metal's "node N, op = X not implemented": a build without that op, not memory
        msg(r"\bpre-allocated tensor \(.{1,200}?\) in a buffer \(\S+\) that cannot run the operation\b|"
            r"\bggml_vulkan: Error: Missing op: |compute_forward: error: op not supported\b|"
            r"\berror: node +\d+, op = +\w+ not implemented\b", "not_oom", code="backend-op-unsupported"),
        # a 2023 build's ggml arena, a context made with its data (ggml.c ggml_new_tensor_impl before ggml-alloc and
        # GGUF, Aug 2023; llama.cpp sized it at start from the model and the settings: "llama_model_load: ggml ctx
        # size = 41477.73 MB" for the weights and the KV cache, a compute buffer for an eval): the tensors themselves
        # outgrew it, in the phase the run was in
        msg(r"\bggml_new_tensor_impl: not enough space in the context's memory pool", "oom",
            code="ggml-arena-too-small"),
        # ggml's own fixed metadata pool (ggml_new_object: a context of tensor headers, no data) and the fixed scratch
        # buffers of 2023 builds and KoboldCpp ("not enough space in the scratch memory" on a BLAS prompt batch): too
        # small for the batch's graph, not the GPU
        msg(r"(?<!ggml_new_tensor_impl: )not enough space in the context's memory pool|"
            r"not enough space in the (?:scratch memory|buffer)", "not_oom", code="ggml-context-pool-too-small"),
        # pinned host memory is optional: llama.cpp warns and goes on with pageable memory (ggml-cuda.cu
        # ggml_cuda_host_malloc "WARNING: failed to allocate %.2f MB of pinned memory: %s"; ggml-vulkan.cpp
        # ggml_backend_vk_host_buffer_type_alloc_buffer "ggml_vulkan: Failed to allocate pinned memory (%s)", in older
        # builds that line then the exception's what() on the next, and a CPU buffer instead)
        # (its size in the locale's own decimal mark where a user types it: "1900,00 MiB")
        msg(r"failed to allocate [\d.,]+ [KMG]i?B of pinned memory|\bof pinned memory: out\b|"
            r"ggml_vulkan: Failed to allocate pinned memory\b", "note"),
        # ... and so is locking the mapped model in RAM (--mlock): llama-mmap.cpp llama_mlock::raw_lock warns "failed to
        # mlock N-byte buffer (after previously locking M bytes): <reason>" (Linux's "Cannot allocate memory" past
        # RLIMIT_MEMLOCK, Windows' "Out of memory (win32 error 1453)" past the working set) and loads on unlocked
        msg(r"\bfailed to mlock \d+-byte buffer\b", "note"),
        # the loader's mmap of the model file refused, then the file read into memory instead (llama-mmap.cpp: "mmap
        # failed: Cannot allocate memory, falling back to reading the file"): it goes on
        msg(r"\bmmap failed: [^\n]{0,80}?\bfalling back to reading the file\b(?![^\n]*(?:also failed|out of memory|"
            r"OutOfMemory))", "note"),
        # llamafile opening its web page in a browser once the server listens (llamafile/launch_browser: "failed to open
        # http://127.0.0.1:8080/ in a browser tab using xdg-open: No such file or directory", a machine with no
        # browser): the server goes on, no failure
        msg(r"\bfailed to open https?://\S+ in a browser tab\b", "note"),
        # the scheduler re-reserving its graph when the backends of a split change (ggml-backend.cpp
        # ggml_backend_sched_alloc_splits): routine, and it goes on
        msg(r"failed to allocate graph, reserving", "note"),
        # Metal builds of 2023 (ggml-metal.m ggml_metal_add_buffer): one buffer beyond the device's largest
        # (maxBufferLength): 'data' holds the weights, 'kv' the cache, the others ('eval', 'alloc', 'scr0') compute
        msg(r"buffer 'data\s*' size \d+ is larger than buffer maximum", "oom", "WEIGHTS", "metal-buffer-exceeds-max"),
        msg(r"buffer 'kv\s*' size \d+ is larger than buffer maximum", "oom", "KV", "metal-buffer-exceeds-max"),
        msg(r"buffer '(?!data|kv)\w+\s*' size \d+ is larger than buffer maximum", "oom", "WARMUP",
            "metal-buffer-exceeds-max"),
        msg(r"command buffer \d+ failed with status 5", "oom",
            code="metal-command-buffer-oom"),
        # the model file itself cannot be opened or parsed (gguf.cpp gguf_init_from_file_impl, since 2026 its reader
        # gguf_init_from_reader; ggml.c's gguf_init_from_file before: "tensor '%s' has offset %zu, expected %zu", the
        # data not where the header says, a file cut or written by a tool this build does not follow): not memory
        msg(r"gguf_init_from_(?:file|reader)\w*: (?:failed to open|failed to read|invalid magic|tensor .* has invalid|"
            r"tensor '[^']{1,200}' has offset \d+, expected \d+)", "not_oom", code="model-file-error"),
        # a file this build cannot read (converted by a newer or older convert_hf_to_gguf.py, or another engine's
        # conversion): llama-model-loader's "key %s has wrong array length", an architecture it does not know
        # (also a tensor the architecture needs that the file lacks, llama-model-loader's "missing tensor '%s'" /
        # older "tensor '%s' not found": a file made for a newer build, or another conversion)
        msg(r"has wrong array length; expected \d+, got \d+|unknown model architecture: '|error loading model "
            r"(?:hyperparameters|architecture|vocabulary)|\bmissing tensor '|\btensor '[^']{1,200}' not found\b|"
            # (a multimodal projector of a kind this build does not know, clip.cpp's "unknown projector type: %s")
            r"\bunknown projector type\b|"
            # (clip.cpp before the type table, 2024: "clip_model_load: don't support projector with: %s currently")
            r"\bdon't support projector with:",
            "not_oom", code="model-file-error"),
        # a file cut short (a partial download, a split GGUF's first part alone): llama-model-loader's "tensor '%s' data
        # is not within the file bounds, model is corrupted or incomplete", and a tensor count it cannot find
        # ... or a tensor whose shape is not the one this build's architecture expects (llama-model.cpp
        # create_tensor -> check_tensor_dims: "tensor 'blk.0.attn_q_b.weight' has wrong shape; expected 1536, 73728,
        # got 1536, 24576, 1, 1"): a file converted for another build or fork
        msg(r"check_tensor_dims: tensor '[^']{1,200}' has wrong shape\b", "not_oom", code="model-file-error"),
        # llama-quantize's own failures (tools/quantize, llama_model_quantize_impl: "llama_model_quantize: failed to
        # quantize: quantized data validation failed", ik_llama.cpp's "Sorry, uknown model => cannot fix it => bailing
        # out"): the model or its data, not memory (an allocation it could not make says so in its own words)
        msg(r"\bllama_model_quantize: failed to quantize: (?![^\n]*(?:alloc|memory))|=> bailing out\b", "not_oom",
            code="model-file-error"),
        # (2023's loader, llama_model_load before GGUF: "tensor 'tok_embeddings.weight' has wrong size in model file",
        # "invalid model file '...' (bad magic)", "unknown tensor '...' in model file")
        msg(r"\btensor '[^']{1,200}' has wrong (?:size|shape) in model file\b|\binvalid model file '[^']{0,300}' "
            r"\(bad magic\)|\bunknown tensor '[^']{1,200}' in model file\b", "not_oom", code="model-file-error"),
        msg(r"data is not within the file bounds|model is corrupted or incomplete|wrong number of tensors; expected "
            r"\d+, got \d+|done_getting_tensors: wrong number of tensors", "not_oom", code="model-file-error"),
        # a setting the loader refuses (src/llama.cpp llama_prepare_model_devices: "invalid value for main_gpu: 0
        # (available devices: 0)", a GPU index with no GPU the build can use)
        msg(r"\binvalid value for (?:main_gpu|split_mode|tensor_split|n_gpu_layers|[a-z_]{3,40})\b: ", "not_oom",
            code="bad-argument"),
        # wrappers that only follow a failed load of the weights (llama_model_load_from_file returned NULL:
        # llama.cpp's common_init_from_params, llama-cpp-python's Llama(), Tabby's bindings "Unable to load model:
        # PATH"); a failure before them with no phase of its own was loading the weights
        msg(r"(?:llama_load_model_from_file|llama_model_load_from_file\w*|common_init_from_params): failed to load "
            r"model|Failed to load model from file|Unable to load model: |"
            # llama_model_load's own catch (src/llama.cpp: "error loading model: %s", the loader's exception: a
            # tensor buffer it could not allocate, a file it could not read)
            r"\bllama_model_load: error loading model\b", "wrapper", "WEIGHTS"),
        # wrappers: their cause is another line ("error loading model: <cause>" states it, so only the bare form);
        # llama-server's "unable to load model" / "failed to load model" also follow a context that failed
        # a context that could not be made: the model had loaded (common.cpp common_init_from_params loads the model,
        # then llama_init_from_model; llama-cpp-python's Llama() makes its LlamaContext after its LlamaModel), and
        # making the context allocates the KV cache and reserves the compute buffers
        msg(r"failed to create context with model|Failed to create llama_context|failed to initialize the context\s*$",
            "wrapper", candidates=("KV", "WARMUP")),
        msg(r"error loading model\s*$|unable to load model|failed to load model(?:, '[^']*')?\s*$|"
            r"exiting due to model loading error", "wrapper"),
        # llama-bench loads the model alone, then makes each context (tools/llama-bench: "%s: error: failed to load
        # model '%s'" when llama_model_load_from_file fails; "failed to create context with model '%s'" after): the
        # weights
        msg(r"^main: error: failed to load model '[^'\n]+'\s*$", "wrapper", "WEIGHTS"),
    ),
    frames={
        # (and the context's output buffer in builds with llama_context's own tag, llama-context.cpp: it prints
        # "llama_context:        CPU  output buffer size =     0.49 MiB" and then makes its memory module, the KV cache,
        # whose cells and buffers come next; the builds of 2024 printed it under llama_new_context_with_model after the
        # KV cache, before the compute buffers)
        "KV": rx(r"llama_kv_cache_init|llama_kv_cache\w*::|init_kv_cache|\bllama_context:\s+\S+\s+output buffer size ="),
        "WARMUP": rx(r"gallocr_reserve|sched_reserve|graph_reserve|warming up the model|warmup|"
                     r"reserving compute|compute buffers"),
        # a compute-pool allocation runs in any graph evaluation: the warm-up pass, or a request once serving
        # (CUDA graphs are captured as graphs are evaluated, by the warm-up pass or by any request: not a warm-up
        # step of their own as in vLLM)
        "COMPUTE": rx(r"in function alloc(?: at|\s+\S+\.cu:\d+)|ggml_cuda_device_malloc|ggml_cuda_pool|ggml_backend_cuda_graph_compute|"
                      r"cudaStreamSynchronize|ggml_cuda_graph_\w+|evaluate_and_capture|"
                      # (llama_decode evaluates a batch: the warm-up's empty run, common_init_from_params "warming up
                      # the model with an empty run", as well as a request's)
                      r"llama_decode"),
        # (not a load that reads the vocabulary only, "llama_model_load: vocab only - skipping tensors", as Ollama
        # does to tokenize before its runner starts: no weights move)
        # (and llama-bench's own progress, examples/llama-bench/llama-bench.cpp: "llama-bench: benchmark 1/2: starting"
        # comes before it loads that test's model, "... warmup prompt run" after)
        # (also the loader placing tensors, llama-model-loader.cpp done_getting_tensors and load_tensors' "tensor
        # 'token_embd.weight' (q4_K) (and 0 others) cannot be used with preferred buffer type CUDA_Host, using CPU
        # instead": the weights' buffers are made next)
        "WEIGHTS": rx(r"^(?![^\n]*\bvocab only\b)[^\n]*?(?:llama_model_load|load_tensors|llm_load_tensors|loading model "
                      r"tensors|ggml_backend_metal_buffer_from_ptr|ggml_metal_buffer_map|done_getting_tensors|"
                      r"cannot be used with preferred buffer type|"
                      r"llama-bench: benchmark \d+/\d+: starting)"),
        "RUNTIME": rx(r"update_slots|launch_slot|slot \d+ |prompt processing|print_timing|n_past =|"
                      r"common_speculative\w*|::draft\b|"
                      # tools/server's request handlers (server.cpp handle_completions_impl, handle_chat_completions,
                      # ...): they run only for a request
                      r"\bhandle_(?:completions|chat_completions|completions_impl|infill|embeddings\w*|rerank)\b"),
    },
    milestones=(
        # (not "offloaded N/M layers to GPU": load_tensors prints it before it allocates the weights' buffers)
        # (and the load's summary of 2023-24 builds: "llm_load_tensors: system memory used = 2939.68 MiB", "VRAM used
        # = 1456.19 MiB", "llama_model_load_internal: mem required = ...")
        ("weights_done", rx(r"model buffer size =|" + _DEV + r"\w* buffer size =|CPU buffer size =|"
                            r"llm_load_tensors: (?:system memory|VRAM) used\s*=")),
        # (the cache's summary, printed once all its buffers are allocated: llama-kv-cache.cpp prints "KV buffer size"
        # after each buffer it allocates, so a failure after one is the next buffer of the same cache; an iSWA model
        # makes two caches, the non-SWA one, then the SWA one)
        ("kv_sized", rx(r"KV buffer size =")),
        ("kv_done", rx(r"KV self size|llama_kv_cache(?:_unified|_iswa)?: size =|compute buffer size =")),
        # llama-cli (tools/main/main.cpp), after common_init_from_params has loaded the model and run its warm-up:
        # "main: llama threadpool init, n_threads = 4", its sampler ("sampler seed: 3140513417"); then it reads the
        # prompt: "generate: n_ctx = 4096, n_batch = 2048, n_predict = -1, n_keep = 0" (its one request)
        ("warmup_done", rx(r"\bmain: llama threadpool init\b|^sampler seed: \d+")),
        ("ready", rx(r"server is listening on|main: model loaded|srv\s+main: listening on|starting the main loop|"
                     r"all slots are idle")),
        # (and the lines a request prints before its slot runs, tools/server 2025-2026: "srv  params_from_: Chat format:
        # ...", "slot get_availabl: id 0 | task -1 | selected slot by LRU", "updating prompt cache", "prompt_save:  -
        # saving prompt with length N", "new prompt, n_ctx_slot = N")
        # (not the server's own endpoints, which answer while it loads: "request: GET /health 127.0.0.1 503")
        ("requests", rx(r"launch_slot_|print_timing|POST /completion|\"POST /v1/" + NOT_ADMIN + r"|"
                        # (the 2024 server's key=value access line of a POST: "INFO [ log_server_request] request |
                        # ... status=200 method=\x22POST\x22 path=\x22/completion\x22")
                        + KV_ACCESS + r"\bmethod=\x22POST\x22|"
                        r"log_server_r: request: (?!GET /(?:health|metrics|props|slots|v1/models|models)\b)|"
                        r"prompt eval time|processing task|selected slot by|params_from_: |updating prompt cache|"
                        r"prompt_save: |new prompt, n_ctx_slot|"
                        # (a user's image encoded for a prompt, mtmd-helper.cpp mtmd_helper_eval_chunk_single:
                        # "encoding image or slice...", "image/slice encoded in 812 ms", "decoding image batch 1/1";
                        # clip's own warm-up says "warmup" instead)
                        + MTMD_STEPS.pattern + r"|"
                        # (the prompt cache's own words without the function's tag, server_prompt_cache: "saving prompt
                        # with length 146764, total state size = 5332.813 MiB", "... exceeds cache limit (360.000
                        # MiB), skipping cache": it saves a request's prompt state)
                        r"\bsaving prompt with length \d+|\bexceeds cache limit \([\d.]+ MiB\), skipping cache\b|"
                        # a slot at work on a task (tools/server/server.cpp update_slots: "slot update_slots: id  2 |
                        # task 10391 | prompt processing progress ..."): tasks are requests, the warm-up takes none
                        r"update_slots: id +\d+ \| task \d+|"
                        # (a request's image or audio chunk encoded, tools/server: "srv  process_chun: processing
                        # image...")
                        r"process_chun\w*: processing (?:image|audio)|"
                        # (... or its interactive session begun, main.cpp: "== Running in interactive mode. ==", printed
                        # after "generate: ..." once the model is loaded; each input the user types is a request)
                        r"^generate: n_ctx = \d+, n_batch = \d+|^== Running in interactive mode\. ==")),
    ),
    figures=(
        # (also Metal's view of the mmapped file, "Metal_Mapped model buffer size": on unified memory, the GPU's)
        # a build without a GPU back end, or none found (common/arg.cpp: "warning: no usable GPU found, --gpu-layers
        # option will be ignored"): the model runs on the CPU, nothing moves to a GPU
        fig("gpu_absent", r"\bno usable GPU found\b", lambda m: True),
        # a 2023 build's loader (llama.cpp before the llama_model_loader rewrite: "llama_model_load_internal: ..."),
        # which kept every layer on the CPU unless -ngl asked for some
        fig("_cpu_layers_unless_told", r"\bllama_model_load_internal:", lambda m: True),
        # (and the row split's share of each device, --split-mode row: "CUDA0_Split model buffer size = 13302.19 MiB",
        # the weights the split spreads, beside the small per-device "CUDA0 model buffer")
        fig("gpu_model_buffer_bytes", _DEV + r"(?:_Mapped|_Split)? (?:model )?buffer size =\s*" + SIZE, mode="list"),
        # what each device is planned to hold before anything is allocated (llama-context.cpp
        # llama_memory_breakdown_print, the fit's projection, 2025-09 on: "| memory breakdown [MiB] | total free self
        # model context compute unaccounted |" / "| SYCL0 (Intel Arc Pro B65) | 32656 = 31827 + (20798 = 20583 + 142 +
        # 72) + -19970 |"): a device's model, context (the KV cache) and compute buffers, in MiB; not the host's row
        fig("planned_model_bytes", _BREAKDOWN, lambda m: int(m.group(2)) * 2**20, mode="list"),
        fig("planned_context_bytes", _BREAKDOWN, lambda m: int(m.group(3)) * 2**20, mode="list"),
        fig("planned_compute_bytes", _BREAKDOWN, lambda m: int(m.group(4)) * 2**20, mode="list"),
        # (and the weights the CPU back end repacked for its kernels, a copy of their own: "CPU_REPACK model buffer
        # size", before 2025 "CPU_AARCH64 model buffer size")
        fig("cpu_model_buffer_bytes", r"CPU(?:_Mapped|_REPACK|_AARCH64)? (?:model )?buffer size =\s*" + SIZE,
            mode="list"),
        fig("kv_pool_bytes", r"KV self size\s*=\s*" + SIZE),
        fig("kv_pool_bytes", r"llama_kv_cache(?:_unified|_iswa)?: size =\s*" + SIZE, mode="list"),
        fig("kv_cells", r"llama_kv_cache(?:_unified|_iswa)?: size =.*?\(\s*" + NUM + r" cells", count, mode="list"),
        # tools/server `load_model`: "initializing, n_slots = 4, n_ctx_slot = 16384, kv_unified = 'true'" (printed at
        # the default verbosity, where the KV lines are not, from late 2025)
        fig("n_slots", r"\bn_slots = (\d+), n_ctx_slot = \d+", count, mode="first"),
        # (tools/server before that line: "init: initializing slots, n_slots = 4"; the context's "n_seq_max = 4")
        fig("n_slots", r"\binitializing slots, n_slots = (\d+)", count, mode="first"),
        fig("n_slots", r"\bllama_context: n_seq_max\s*=\s*(\d+)", count, mode="first"),
        fig("n_ctx_slot", r"\bn_slots = \d+, n_ctx_slot = (\d+)", count, mode="first"),
        # ... and as each request meets its slot (tools/server update_slots: "new prompt, n_ctx_slot = 4096, n_keep = 0,
        # n_prompt_tokens = 9120"): the slot's share of -c and the longest prompt sent to it (the list first: a figure
        # read whole ends the line's reading)
        fig("_slot_prompt_tokens", r"\bnew prompt, n_ctx_slot = \d+, n_keep = \d+, n_prompt_tokens = (\d+)", count,
            mode="list"),
        fig("n_ctx_slot", r"\bnew prompt, n_ctx_slot = (\d+)", count, mode="first"),
        fig("kv_unified", r"\bn_ctx_slot = \d+, kv_unified = '(true|false)'", lambda m: m.group(1) == "true",
            mode="first"),
        # "(%6u cells, %3d layers, %2u/%u seqs)": the cells are per stream, and a cache that is not unified has
        # one stream per sequence (llama-kv-cache.cpp), so its cells in all are cells x streams
        # (the second number is the streams: "4/1 seqs" is four sequences sharing one, a unified cache)
        fig("kv_cells_in_all", r"llama_kv_cache(?:_unified)?: size =.*?\(\s*(\d+) cells,\s*\d+ layers,\s*\d+/(\d+) seqs",
            lambda m: int(m.group(1)) * int(m.group(2)), mode="first"),
        # the context's own line of it (llama-context.cpp: "llama_context: kv_unified    = true"), and the cache's
        # sequences over its streams ("4/1 seqs": several sequences, one stream)
        fig("kv_unified", r"\bllama_context: kv_unified\s*=\s*(true|false)\b", lambda m: m.group(1) == "true",
            mode="first"),
        # (and the server's own choice of it, with the slots set to auto: "n_parallel is set to auto, using n_parallel =
        # 4 and kv_unified = true", tools/server/server.cpp)
        fig("kv_unified", r"\busing n_parallel = \d+ and kv_unified = (true|false)\b", lambda m: m.group(1) == "true",
            mode="first"),
        fig("n_slots", r"\busing n_parallel = (\d+) and kv_unified\b", count, mode="first"),
        fig("kv_unified", r"llama_kv_cache(?:_unified)?: size =.*?cells,\s*\d+ layers,\s*(?:[2-9]|\d\d+)/1 seqs",
            lambda m: True, mode="first"),
        fig("n_slots", r"llama_kv_cache(?:_unified)?: size =.*?cells,\s*\d+ layers,\s*(\d+)/\d+ seqs", count,
            mode="first"),
        fig("gpu_kv_buffer_bytes", _DEV + r" KV buffer size =\s*" + SIZE, mode="list"),
        fig("kv_buffer_bytes_by_device", r"\b(" + _DEV + r"|CPU|CPU_Mapped|[A-Za-z]+_Host) KV buffer size =\s*" + SIZE,
            lambda m: (m.group(1), to_bytes(m.group(2), m.group(3))), mode="map"),
        fig("host_kv_buffer_bytes", r"(?:CPU|[A-Za-z]+_Host) KV buffer size =\s*" + SIZE, mode="list"),
        fig("compute_buffer_bytes", r"compute buffer size =\s*" + SIZE, mode="list"),
        fig("gpu_compute_buffer_bytes", _DEV + r" compute buffer size =\s*" + SIZE, mode="list"),
        fig("n_ctx", r"\bn_ctx\s*=\s*" + NUM, count),
        # the context where a log shows no "n_ctx = N" (llama-context.cpp: "n_ctx_seq (%u) < n_ctx_train (%u)", 2025's
        # "n_ctx_per_seq = %u"; n_ctx_seq is n_ctx / n_seq_max, or n_ctx itself with a unified cache), and the cells of
        # the cache (llama-kv-cache-iswa.cpp "creating non-SWA KV cache, size = %u cells", the old llama_kv_cache_init
        # "kv_size = %u"): the cells a -c asked for
        fig("n_ctx_seq", r"\bn_ctx_(?:per_)?seq\s*(?:=\s*|\(\s*)(\d+)", count),
        fig("kv_size_cells", r"creating non-SWA KV cache, size = (\d+) cells|\bkv_size = (\d+)",
            lambda m: int(m.group(1) or m.group(2))),
        # a pasted command line ("llama-server -m m.gguf -c 131072 -ctk q8_0 -ctv q8_0 -ngl 99 -ub 512")
        fig("kv_cache_dtype", r"(?:^|\s)(?:-ctk|--cache-type-k)(?:=|\s+)(\w+)", lambda m: m.group(1), flags=0),
        fig("n_ubatch", r"(?:-ub |--ubatch-size[= ])\s*(\d+)", count, flags=0),
        # the context the user set on a pasted command line (llama.cpp pads it to its cells: -c 5000 prints n_ctx =
        # 5120); "-c" only after the program's name ("-c" alone is too short a word to search a log for)
        # (not 0, which asks for the model's own training context: that context is the one the log's n_ctx shows)
        fig("max_model_len", r"(?:^|\s)--ctx-size(?:=|\s+)(?!0\b)(\d+)\b", count, flags=0),
        fig("max_model_len", r"\bllama-(?:server|cli)\b.*?\s-c(?:=|\s+)(?!0\b)(\d+)\b", count, flags=0),
        fig("n_parallel", r"(?:--parallel|-np|n_seq_max\s*=)\s*(\d+)", count),
        # KV defragmentation's threshold on a pasted command line (common/arg.cpp -dt / --defrag-thold, "< 0 -
        # disabled"; deprecated and ignored once the unified cache no longer needs it, late 2025)
        # ("-dt" only after the program's name or its image, "-dt" alone being too short a word to search a log for)
        fig("defrag_thold", r"(?:^|\s)--defrag-thold(?:=|\s+)(-?\d+(?:\.\d+)?)(?![\w.])", lambda m: float(m.group(1)),
            flags=0),
        fig("defrag_thold", r"\bllama(?:-server|-cli|\.cpp:server)\b.*?\s-dt(?:=|\s+)(-?\d+(?:\.\d+)?)(?![\w.])",
            lambda m: float(m.group(1)), flags=0),
        # the decode loop's own hint that the cache's free cells were too scattered for a batch (llama.cpp
        # llama_decode / the server's update_slots: "failed to find free space in the KV cache, retrying with smaller
        # batch size - try increasing it via the context size or enable defragmentation"): builds whose -dt works
        fig("_defrag_hint", r"\bor enable defragmentation\b", lambda m: True),
        # the layers on the GPU as set on a pasted command line (-1 or a number above the model's layers: all)
        fig("n_gpu_layers", r"(?:^|\s)(?:-ngl|--n-gpu-layers|--gpu-layers)(?:=|\s+)(-?\d+)\b", lambda m: int(m.group(1)),
            flags=0),
        # an Apple GPU (ggml-metal: one device, whose memory is the Mac's own): no split across GPUs
        fig("_metal", r"\bggml_metal_\w+:|\bMetal\d? (?:model |KV |compute )?buffer size|\bMTL\d (?:model |KV |compute )?"
            r"buffer|recommendedMaxWorkingSetSize|kIOGPUCommandBuffer", lambda m: True),
        fig("failed_alloc_bytes", r"allocating " + SIZE + r" on device \d+: cudaMalloc failed", mode="list"),
        # a buffer on a GPU (not host RAM), and that GPU's index
        fig("_gpu_alloc_bytes", r"allocating " + SIZE + r" on device \d+: cudaMalloc failed", mode="list"),
        fig("_gpu_alloc_bytes", r"failed to allocate (?:CUDA|ROCm|Vulkan|SYCL|MUSA|CANN)\d+ buffer of size (\d+)",
            count, mode="list"),
        # ggml's Vulkan backend names the size it asked the device for (ggml-vulkan.cpp ggml_vk_create_buffer:
        # "ggml_vulkan: Device memory allocation of size 10737418240 failed.", bytes)
        fig("failed_alloc_bytes", r"ggml_vulkan: Device memory allocation of size (\d+) failed", count, mode="list"),
        fig("failed_alloc_bytes", r"\bcan't allocate (\d+) Bytes of memory on device\b", count, mode="list"),
        fig("_gpu_alloc_bytes", r"\bcan't allocate (\d+) Bytes of memory on device\b", count, mode="list"),
        fig("_gpu_alloc_bytes", r"ggml_vulkan: Device memory allocation of size (\d+) failed", count, mode="list"),
        # (a Vulkan device allocates at most maxMemoryAllocationSize, about 4 GiB, at once, so llama.cpp splits the
        # weights into buffers no larger (ggml_backend_buft_get_max_size): the allocation that failed is one of them)
        fig("_alloc_chunked", r"ggml_vulkan: Device memory allocation of size \d+ failed", lambda m: True),
        fig("_gpu_index", r"on device (\d+): cudaMalloc failed|(?:failed|unable) to allocate "
            r"(?:CUDA|ROCm|Vulkan|SYCL|MUSA|CANN)(\d+) buffer", lambda m: int(m.group(1) or m.group(2)), mode="list"),
        # (not a count a user grouped by thousands, "of size 108 000 000 000": ggml prints %zu)
        fig("failed_alloc_bytes", r"failed to allocate (?:\w+ |'[\w ]+' )?buffer(?: of size|, size =)\s*" + NUM +
            r"(?![\d.,])(?! \d{3}\b)(?:\s*([KMGT]i?B))?", lambda m: to_bytes(m.group(1), m.group(2) or "B"), mode="list"),
        # the buffer that failed was host RAM (ggml-cpu.c / llama-model.cpp "unable to allocate CPU buffer"; ggml.c's own
        # host allocator, ggml_aligned_malloc, for a context's memory; C++'s operator new, "failed to initialize the
        # context: std::bad_alloc", for the KV cache's cells)
        fig("_host_alloc_failed", r"cpu_buffer_type_alloc_buffer: failed to allocate|(?:failed|unable) to allocate "
            r"(?:CPU|CPU_Mapped|CPU_REPACK|CPU_AARCH64|CUDA_Host|ROCm_Host) buffer|ggml_aligned_malloc: insufficient memory|"
            r"\bstd::bad_alloc\b",
            lambda m: True),
        # the layers kept on the CPU could not be pinned (ggml-cuda.cu ggml_cuda_host_malloc "failed to allocate %.2f MB
        # of pinned memory"): the load goes on with pageable memory, but host RAM (or the pinning limit) is short, so
        # layers moved off the GPU are no step to propose
        fig("_host_pinned_failed_bytes", r"failed to allocate " + SIZE + r" of pinned memory"),
        fig("free_memory_bytes", r"using device \w+ \(.*\) .*?- " + SIZE + r" free"),
        # whether the weights are memory-mapped (load_tensors "... (mmap = true)", llama-cpp-python's use_mmap, a pasted
        # --no-mmap; KoboldCpp's --usemmap): then they are not copied into RAM, and mmap is no step to propose
        fig("mmap_in_use", r"\(mmap = (true|false)\)|\buse_mmap\s*[=:]\s*(True|False|true|false)\b",
            lambda m: (m.group(1) or m.group(2)).lower() == "true"),
        fig("mmap_in_use", r"(?:^|\s)--(no-mmap|nommap|usemmap)\b", lambda m: m.group(1) == "usemmap", flags=0),
        # (llama-cpp-python's server, llama_cpp/server/settings.py: "--use_mmap false")
        fig("mmap_in_use", r"(?:^|\s)--use_mmap(?:=|\s+)(true|false|True|False|1|0)\b",
            lambda m: m.group(1).lower() in ("true", "1"), flags=0),
        # ... and the weights' buffer on the CPU named as mapped (llama-model.cpp: a host buffer made from the mmap'd
        # file is "CPU_Mapped", "load_tensors:   CPU_Mapped model buffer size = ..."): mmap in use
        fig("mmap_in_use", r"\bCPU_Mapped model buffer size\b", lambda m: True, flags=0),
        # the CPU's repacked copy of the weights (ggml-cpu's extra buffer type, "CPU_REPACK"): made in RAM even with mmap
        # (named CPU_AARCH64 before 2025)
        fig("_repack_failed", r"(?:failed|unable) to allocate CPU_(?:REPACK|AARCH64) buffer", lambda m: True),
        fig("layers_offloaded", r"offloaded (\d+)/\d+ layers", count),
        # printed before the buffers are allocated ("offloaded N/M" comes after them, so a failed load lacks it)
        fig("repeating_layers_offloaded", r"offloading (\d+) repeating layers to GPU", count),
        fig("_output_layer_offloaded", r"offloading output layer to GPU", lambda m: True),
        fig("layers_total", r"offloaded \d+/(\d+) layers", count),
        # ... or the model's own count where no offload line was printed (the load failed first): n_layer repeating
        # layers and the output layer (llama-model.cpp print_info "n_layer = 80", 2024's llm_load_print_meta; the GGUF
        # key "<arch>.block_count" the loader dumps)
        fig("model_layers", r"(?:print_info|llm_load_print_meta): n_layer\s*=\s*(\d+)\s*$", count),
        fig("model_layers", r"llama_model_loader: - kv\s+\d+:\s+\w+\.block_count\s+u32\s+=\s+(\d+)\s*$", count),
        # (print_info / llm_load_print_meta: "file type   = Q4_K - Medium"; older builds "model ftype      = Q4_K - Medium")
        fig("file_type", r"(?:file type|model ftype)\s*=\s*(\S+(?: - \w+)?)", lambda m: m.group(1)),
        fig("kv_cache_dtype", r"\bK \((\w+)\):", lambda m: m.group(1)),
        fig("kv_cache_dtype", r"\btype_k\s*=\s*'?(\w+)", lambda m: m.group(1)),
        fig("flash_attn", r"\bflash_attn\s*=\s*(\w+)", lambda m: m.group(1)),
        # ... and from a pasted command line: "-fa on", "--flash-attn auto", and older builds' bare "-fa"
        # (one pattern per spelling: each then has a word of its own the block search looks for; not a flag a person
        # proposes, "try -fa on", "with -fa on it works")
        *(Figure(key="flash_attn", pattern=lazy(_NOT_PROPOSED + p, 0), read=r, command=True) for p, r in (
            (r"-fa(?:=|\s+)(on|off|auto|1|0|true|false)\b", lambda m: m.group(1)),
            (r"--flash-attn(?:=|\s+)(on|off|auto|1|0|true|false)\b", lambda m: m.group(1)),
            (r"-fa(?=\s+-|\s*$)", lambda m: "on"))),
        # -fa auto resolved (llama-context.cpp, August 2025 on: "Flash Attention was auto, set to enabled"): what it runs
        fig("flash_attn", r"Flash Attention was auto, set to (enabled|disabled)",
            lambda m: "on" if m.group(1) == "enabled" else "off"),
        fig("kv_offload", r"llama_kv_cache_init: .*\boffload = ([01])\b", lambda m: m.group(1) == "1"),
        fig("n_ubatch", r"\bn_ubatch\s*=\s*(\d+)", count),
        # the model's attention heads (print_info / llm_load_print_meta: "n_head = 40"; not n_head_kv), which size the
        # KQ matrix of the compute buffer where flash attention is off
        fig("n_head", r"\bn_head\s*=\s*(\d+)\b", count, mode="first"),
        # the scheduler's copies of every compute buffer under pipeline parallelism (src/llama-context.cpp: more than
        # one device, every layer on them, --split-mode layer, the KV cache on the GPUs and no tensor override;
        # GGML_SCHED_MAX_COPIES, 4 by default, a build option): "pipeline parallelism enabled (n_copies=4)"
        fig("sched_copies", r"pipeline parallelism enabled \(n_copies=(\d+)\)", count),
        # (not llama-bench's footer, "build: 7eee341b (3906)", its commit first and the number after it)
        fig("llama_build", r"(?:main: build = |\bbuild: )(\d+)(?![0-9a-f])", count),
        fig("llama_build", r"\bbuild: [0-9a-f]{7,12} \((\d+)\)", count),
        # (2026: "common_params_print_info: build 9592 (ac4cddeb0) with GNU 13.3.0")
        fig("llama_build", r"\bcommon_params_print_info: build (\d+) \(", count),
        # lines only builds before mid-2025 print (renamed to load_tensors / llama_context / llama_kv_cache); not
        # llama_init_from_model's own error, "failed to initialize the context", which builds still print
        fig("_old_wording", r"^\s*(?:llm_load_\w+|llama_new_context_with_model|llama_kv_cache_init):|"
            r"^\s*llama_init_from_model: (?!failed to initialize the context)", lambda m: True),
        # (llama_context's flash attention as a number, "flash_attn    = 0" (%d): builds before b6343 printed the
        # switch; since, its mode by name, "flash_attn = auto")
        fig("_old_wording", r"\bllama_context: flash_attn\s+= [01]\s*$", lambda m: True),
        # names only builds from b6343 (-fa on|off|auto, August 2025) on print: llama_context's "flash_attn = auto",
        # llama_memory_breakdown_print (September 2025), the pipeline-parallel retry (October 2025, PR 16748),
        # common_init_result and ggml_gallocr_reserve_n_impl (late 2025), sched_reserve and common_params_print_info
        # (2026)
        fig("_new_wording", r"\b(?:common_init_result|ggml_gallocr_reserve_n_impl|llama_memory_breakdown_print|"
            r"common_params_print_info)\b|\bsched_reserve:|llama_context: flash_attn\s+= (?:auto|enabled|disabled)\b|"
            r"compute buffer allocation failed, retrying without pipeline", lambda m: True),
        # the old server's "update_slots : ..." (examples/server before its 2024 logging rewrite)
        # (each name with its " : " in one literal: newer builds print "update_slots: " on every request)
        fig("_old_wording", r"^(?:\[\d+\] )?(?:update_slots : |launch_slot_with_data : |process_single_task : )",
            lambda m: True),
        # the day a line was written, from common/log.h's stamps (before its September 2024 rewrite) or the old
        # server's JSON lines: the build in use is no newer
        # (the names after the stamp are start-up functions that print them, in full: "server" or "log" alone, or
        # newer builds' per-request "update_slots" / "slot ", would make every line of a serving log a candidate)
        fig("_log_epoch", r"^\[(1[67]\d{8})\] (?=\S)(?:update_slots : |llm_load_|llama_|ggml_|main: (?:build|seed)|system_info|"
            r"sampled|build: |print_info)", count, mode="first"),
        fig("_log_epoch", r"\"timestamp\":\s*(1[67]\d{8})\b", count, mode="first"),
        fig("working_set_bytes", r"recommendedMaxWorkingSetSize( +)=\s*" + NUM + r"\s*(MiB|MB)", _working_set),
        # a Metal buffer that took the allocations past the GPU's working-set limit (ggml-metal.m of 2023,
        # ggml_metal_add_buffer: "allocated 'kv              ' buffer, size = 12500.03 MB, (15816.59 / 10922.67),
        # warning: current allocated size is greater than the recommended max working set size"; later builds'
        # ggml_backend_metal_log_allocated_size prints the warning alone): the buffer's name, "" where not printed;
        # macOS then pages the GPU's memory, and the start-up crawls or stops
        fig("_metal_over_working_set", r"(?:allocated '(\w+)\s*' buffer\b[^\n]*?)?\bwarning: current allocated size is "
            r"greater than the recommended max working set size", lambda m: m.group(1) or "", mode="first"),
        # the file served (llama-model-loader.cpp: "loaded meta data with N key-value pairs and M tensors from PATH";
        # the server's load_model), then the name inside it (general.name), printed after
        fig("model_name", r"loaded meta data with \d+ key-value pairs and \d+ tensors from (\S{1,400}?\.gguf)\b",
            lambda m: m.group(1)),
        fig("model_name", r"load_model: (?:loading|failed to load) model,? '([^']{1,400}\.gguf)'", lambda m: m.group(1)),
        fig("model_name", r"general\.name\s+str\s+=\s+(.{1,200})$", lambda m: m.group(1).strip()),
        # the 2023 builds' load line ("llama.cpp: loading model from ./models/7B/ggml-model-q4_0.bin",
        # "llama_model_load: loading model from 'models/7B/ggml-model-q4_0.bin' - please wait ...")
        fig("model_name", r"\bloading model from '?(\S{1,400}?\.(?:gguf|bin))\b", lambda m: m.group(1)),
        # the file a pasted command serves ("./server -c 4096 --model /models/yi-34b.Q4_K_M.gguf -ngl 61"): its
        # quantization is in its name
        Figure(key="model_name", pattern=lazy(r"(?:^|\s)(?:-m|--model)(?:=|\s+)['\x22]?(\S{1,400}?\.gguf)\b", 0),
               read=lambda m: m.group(1), mode="last", command=True),
    ),
    sentences=(
        # ggml-cuda.cu ggml_backend_cuda_buffer_type_alloc_buffer, and ggml-alloc.c / ggml-backend.cpp after it: a
        # line cut partway into one is cut before its cause ("... allocating 16384.00 MiB on devi")
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating {} MiB on device {}: cudaMalloc failed: out of memory",
        "allocating {} MiB on device {}: cudaMalloc failed: out of memory",
        "alloc_tensor_range: failed to allocate {} buffer of size {}",
        "ggml_gallocr_reserve_n: failed to allocate {} buffer of size {}",
    ),
    step_codes=(
        # a compute graph reserved at load (llama-context.cpp graph_reserve, ggml-alloc.c ggml_gallocr_reserve_n,
        # ggml-backend.cpp ggml_backend_sched_reserve): a compute buffer, not a captured CUDA graph
        StepCode("WARMUP", "compute-buffer-alloc-failed", rx(r"gallocr|compute buffer|sched_reserve|graph[_ ]reserv")),
    ),
    # its context set up once the weights are read (llama-context.cpp llama_context, older llama.cpp
    # llama_new_context_with_model, llama_init_from_model; its "n_ctx = N" line): llama-model.cpp load_tensors prints
    # the weights' buffer sizes first and reads the data into them after (load_all_data)
    context_setup=rx(r"\bllama_(?:new_)?context\b|\bllama_init_from_model\b|\bn_ctx\s*="),
    # a second model loaded after the first one's context: llama-server's multimodal projector (tools/mtmd clip.cpp
    # "clip_model_loader: model name: ...", "load_hparams: model size: 17140.88 MiB", "clip_ctx: CLIP using CUDA0
    # backend"; 2024 llava's clip_model_load; the server's "loading multimodal model 'mmproj.gguf'"; Ollama's
    # "handle_gemma4_clip: ... used as mmproj") or its draft model ("loading draft model"): weights again
    more_weights=rx(r"\bclip_model_load(?:er)?: |\bload_hparams: (?:projector|model size)\b|\bclip_ctx: CLIP using\b|"
                    r"\bloading (?:multimodal|draft) model\b|\bused as mmproj\b|\bmtmd_init_from_file\b"),
    # its loader proper, as a native backtrace names it (gdb's "#5 0x... in llama_model::load_tensors(...)", older
    # builds' llm_load_tensors, the data read by load_all_data): it makes the weights' buffers and reads them, nothing
    # else, so a backtrace cut inside it was loading the weights
    # (also ggml_print_backtrace's mangled names, "libllama.so(_ZN11llama_model12load_tensorsER18llama_model_loader+0x5e)",
    # and the multimodal projector's own loader, mtmd's "clip_model_loader::load_tensors" / mtmd_init_from_file: the
    # projector's weights)
    loader=rx(r"\bllama_model::load_tensors\b|\bin llm_load_tensors\b|\bllama_model_loader::load_all_data\b|"
              r"\b_ZN\d+llama_model\d+load_tensors|\bclip_model_loader::load_tensors\b|"
              r"\b_ZN\d+clip_model_loader\d+load_tensors|\bmtmd_init_from_file\b"),
    # CUDA builds copy the model into pinned host buffers when mmap is off (ggml-cuda.cu ggml_cuda_host_malloc, which
    # GGML_CUDA_NO_PINNED turns off)
    pinned_host_load="Run once with GGML_CUDA_NO_PINNED=1, or with mmap on (no --no-mmap): if it then loads, pinned "
                     "memory was the limit.",
    # (a per-buffer "KV buffer size" line with no summary after it: the cache is still being made, its next buffer)
    after={"kv_sized": ("KV",)},
    not_oom_advice={
        "rpc-worker-unreachable": "an RPC worker given with --rpc could not be reached (its rpc-server not running, "
                                  "another port, a firewall, no route to the host): the model was placed without it, "
                                  "on the other devices and the CPU, so it runs slower; start the worker's rpc-server "
                                  "(rpc-server -H 0.0.0.0 -p PORT) and check the route (nc -vz HOST PORT). Memory is "
                                  "not the problem.",
        "port-in-use": "llama-server could not listen on its host and port: another process holds the port (`ss "
                       "-ltnp` or `netstat -ano` shows which), or the port is below 1024 and the user may not bind it; "
                       "pick another --port (or stop the other process). The model was never loaded: memory is not "
                       "involved.",
        "batch-larger-than-context": "one batch holds more tokens than the KV cache has cells (find_slot's n_tokens "
                                     "> size): the context, -c, is smaller than the batch the program sends. Give -c "
                                     "at least the batch's tokens, or send smaller batches (-b and -ub no larger "
                                     "than -c; for embeddings, inputs that fit one batch).",
        "k-shift-unsupported": "a slot's context filled and llama.cpp tried to shift its KV cache (K-shift), which "
                               "this model's cache cannot do: keep each request within the context (a smaller "
                               "n_predict, or a larger -c per slot), or turn context shift off (llama-server's "
                               "--no-context-shift; off by default since mid-2025 builds, so drop --context-shift) "
                               "so a full slot ends its request instead.",
    },
)

FLASH_ATTN_EPOCH = 1714435200  # 2024-04-30 00:00 UTC
CACHE_TYPE_EPOCH = 1701907200  # 2023-12-07 00:00 UTC


def flags_by_build(flags: dict, n: dict) -> dict:
    """Flags of the build the log shows: `-fa` took no value before b6343 (August 2025, when `-fa on|off|auto`
    came), and `-ctk`/`-ctv` came in December 2023 (about b1600). With no build number, a log in the wording of
    builds from b6343 (`flash_attn = auto`, `common_init_result`, `ggml_gallocr_reserve_n_impl`, ...) gets `-fa on`;
    one in the wording of builds before mid-2025 (`llm_load_*`, `llama_new_context_with_model`, the context lines of
    `llama_init_from_model` (not its error, which builds still print), `llama_kv_cache_init`, the old server's
    `update_slots : `, log.h's `[1705312230]` stamps) the older `-fa`, and one dated before flash attention came
    (2024-04-30) none."""
    build = n.get("llama_build")
    epoch = n.get("_log_epoch")
    if isinstance(epoch, int) and epoch < FLASH_ATTN_EPOCH and not isinstance(build, int):
        # written before flash attention came (PR 5021, merged 2024-04-30): no -fa, and no quantized V cache (it needs
        # flash attention); quantized K from -ctk, December 2023 (PR 4312)
        flags.pop("flash_attn", None)
        if epoch < CACHE_TYPE_EPOCH:
            flags.pop("kv_cache_dtype", None)
        elif "kv_cache_dtype" in flags:
            flags["kv_cache_dtype"] = "-ctk q8_0"
        return flags
    if not isinstance(build, int):
        if n.get("_new_wording"):
            build = 6343
        elif n.get("_old_wording") or isinstance(epoch, int):
            build = 6342
        else:
            return flags
    if build < 6343:
        for key in ("flash_attn", "kv_cache_dtype"):
            if key in flags:
                flags[key] = flags[key].replace("-fa on (builds before b6343, Aug 2025: -fa)", "-fa").replace("-fa on", "-fa")
    else:
        flags["flash_attn"] = "-fa on"
    if build < 1600:
        flags.pop("kv_cache_dtype", None)
    return flags


# --- the live server (probe): ../shared/ENGINES.md §3.1 (tools/server/server-context.cpp) -----------------------


def _recognise(answers: dict) -> str | None:
    """llama-server: /props has default_generation_settings and total_slots; build_info names the build."""
    j = answer_json(answers, "/props")
    if isinstance(j, dict) and "default_generation_settings" in j and "total_slots" in j:
        return str(j.get("build_info") or "")
    return None


def _kv_view(answers: dict) -> KvView:
    """/props: total_slots and the context per slot (default_generation_settings.n_ctx). The cells are the
    per-slot context x slots without a unified cache, and the per-slot context with one (-kvu, the default
    when -np is not given): /props does not say which, so two slots or more leave two candidates, which the
    log's `llama_kv_cache: size = ... (N cells, ...)` line settles."""
    j = answer_json(answers, "/props")
    if not isinstance(j, dict):
        return KvView(source="GET /props", note="/props did not answer")
    slots = as_count(j.get("total_slots"), 1 << 16)
    dgs = j.get("default_generation_settings")
    per_slot = as_count(dgs.get("n_ctx")) if isinstance(dgs, dict) else None
    figures = {k: v for k, v in (("slots", slots), ("n_ctx_per_slot", per_slot)) if v is not None}
    if isinstance(j.get("model_path"), str):
        figures["model_path"] = j["model_path"]
    if slots is None or per_slot is None:
        return KvView(figures=figures, source="GET /props", note="/props gives no total_slots or n_ctx")
    if slots == 1:
        return KvView(tokens=per_slot, figures=figures, source="GET /props n_ctx (one slot)")
    return KvView(figures=figures, source="GET /props n_ctx x total_slots", candidates=(per_slot * slots, per_slot),
                  note=f"{slots} slots of {per_slot} tokens: {per_slot * slots} cells without a unified cache, "
                       f"{per_slot} with one (-kvu); the server's log says which")


ENDPOINTS = Endpoints(
    identify=("/props", "/v1/models"), recognise=_recognise, ready="/health",
    kv_paths=("/props", "/slots"), kv_view=_kv_view,
    tokenizers=(Tokenizer(path="/tokenize", body=lambda text, model: {"content": text, "add_special": False},
                          read=token_ids, detok_path="/detokenize", detok_body=lambda ids, model: {"tokens": ids},
                          detok_read=lambda j: j.get("content") if isinstance(j, dict) else None),),
    # server-task.cpp params_from_json: ignore_eos; cache_prompt off so that no tier reuses another's prefix
    completion_extras={"ignore_eos": True, "cache_prompt": False},
    # common/arg.cpp: -cram, --cache-ram N, "set the maximum cache size in MiB (default: 8192 ...)"; a slot's
    # prompt is saved there when another request takes the slot's place
    kept_after_request=("llama-server keeps the prompts of finished requests in host memory (its prompt cache, "
                        "-cram/--cache-ram, 8192 MiB at most by default in builds from late 2025): memory kept after a "
                        "request is that cache, not a leak; start it with --cache-ram 0 to measure without it"),
)

# --- sweep's launch preset: ../shared/ENGINES.md §3.4 (common/arg.cpp) ----------------------------------------
# Explicit -c, -np and -ngl, and --fit off where the build has it: otherwise llama_params_fit shrinks the context or
# the offload to the free memory by itself and the experiment measures nothing. With an explicit -np the cache is
# not unified, so each slot gets -c / -np cells: -c is max_model_len x max_num_seqs. --cache-ram 0 (where the build
# has it) keeps finished prompts out of host memory, so that each run's peak is its own.
PRESET = Preset(
    command=("{server_bin}", "-m", "{model}", "--host", "127.0.0.1", "--port", "{port}", "-c", "{n_ctx}",
             "-np", "{max_num_seqs}", "-ngl", "{n_gpu_layers}"),
    optional={"kv_cache_dtype": ("-ctk", "{kv_cache_dtype}", "-ctv", "{kv_cache_dtype}"),
              "n_ubatch": ("-ub", "{n_ubatch}"), "threads": ("-t", "{threads}")},
    defaults={"max_num_seqs": "1", "n_gpu_layers": "999"},
    needs_help=(("--fit", "off"), ("--cache-ram", "0")),
    knobs={"max_num_seqs": ("1", "2", "4", "8"), "n_ubatch": ("128", "512")},
    program="llama-server",
)

#: llama-server's flags (tools/server, common/arg.cpp): -c is shared by the -np slots
SPELLING = Spelling(label="llama.cpp", context="-c {ctx} -np {c}", kv_cache="-ctk {t} -ctv {t}",
                    kv8="-ctk q8_0 -ctv q8_0 -fa on", ubatch="-ub {u}", gpu_layers="-ngl {k}",
                    split="--split-mode layer --tensor-split {ts}", unified="-kvu",
                    kv_types={t: t for t in ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl")})


def spelled_cell(sp: Spelling, s: Settings) -> str:
    """The selected cell in a llama.cpp front end's flags: the context for max_model_len x concurrency, the KV cache
    type, the physical batch, the unified cache with several slots, and -ngl where given."""
    t = {"auto": "f16", "fp16": "f16", "fp32": "f32"}.get(s.kv_cache_dtype, s.kv_cache_dtype)
    n, c = s.max_model_len, s.concurrency
    parts = [sp.context.format(n=n, ctx=n * c, c=c), sp.kv_cache.format(t=sp.kv_types.get(t, t)),
             sp.ubatch.format(u=s.n_ubatch)]
    if sp.unified and s.kv_unified and c > 1:
        parts.append(sp.unified)
    if s.n_gpu_layers is not None:
        parts.append(sp.gpu_layers.format(k=s.n_gpu_layers))
    return " ".join(p for p in parts if p)


ENGINE = Engine(
    endpoints=ENDPOINTS, preset=PRESET, spelling=SPELLING,
    name="llamacpp", label="llama.cpp", log=LOG, rules=LlamaCppRules, adapt_flags=flags_by_build,
    aliases=("llama", "llama-cpp", "llama-server", "llama.cpp"),
    flags={"max_model_len": "-c {n}", "max_num_seqs": "-np {n}", "kv_cache_dtype": "-ctk q8_0 -ctv q8_0 -fa on",
           "n_ubatch": "-ub {n}", "flash_attn": "-fa on (builds before b6343, Aug 2025: -fa)", "tensor_parallel_size": "--split-mode layer across GPUs",
           "quantization": "a smaller quant (Q4_K_M)", "gpu_layers": "-ngl {n}",
           "kv_offload": "-nkvo (or a lower -ngl)", "overhead": "--fit-target {v} (MiB kept free per GPU)",
           "kv_defrag": "-dt 0.1"},
)
