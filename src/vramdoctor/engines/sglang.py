"""SGLang memory rules.

Sources (sglang `srt/model_executor/model_runner.py`, `srt/mem_cache/memory_pool.py`,
`srt/server_args.py`): the token pool is
rest = available_after_weights - available_before_weights x (1 - mem_fraction_static),
max_total_num_tokens = rest // cell_size with cell_size = kv_heads/tp x head_dim x layers
x 2 (K and V) x dtype for MHA, (kv_lora_rank + qk_rope_head_dim) x layers x dtype for MLA
(`MLATokenToKVPool`). Pages are one token. It prints "KV Cache is allocated. #tokens: N,
K size: x GB, V size: y GB" in GiB.

The weights in that formula are what loading took from the GPU's free memory ("Load weight end. ...
mem usage=X GB", `get_available_gpu_memory` before and after `get_model`, which calls
`torch.cuda.empty_cache()` then `torch.cuda.mem_get_info()`): the segments PyTorch's caching allocator
reserved for the parameters, created one tensor at a time (`model_loader/loader.py`
`DefaultModelLoader.load_model`), plus the one fp32 RoPE cos/sin cache `get_rope` builds for all layers
(`layers/rotary_embedding.py` `RotaryEmbedding.__init__`, 0.4.3.post4 and 0.4.9.post2). `layout` builds the
tensors, `caching_allocator` places them; QwQ-32B under TP 4 (R23, SGLang 0.4.3.post4) gets 15.54 GiB, as its log
prints. From 0.4.7 the MoE models' expert-location tables (`eplb/expert_location.py`
`ExpertLocationMetadata`, built on the GPU in `ModelRunner.initialize` after the memory at start was read
and before the weights) come out of the pool too.
"""

from __future__ import annotations

from ..nccl import internode_charge
from ..spec import ModelSpec
from .base import (
    Budget,
    Overhead,
    Refusal,
    RulesBase,
    Settings,
    kv_dtype,
    state_bytes_per_seq,
    weights_loaded,
    weights_per_gpu,
)
from .words import modelled, release, rules_note

GIB = 2**30
CUDA_CONTEXT = int(0.45 * GIB)  # memory in use before weights load (CUDA context, NCCL): R23 shows ~0.4-0.9 GiB


NEWEST = "0.5.3"  # the newest release whose rules are modelled
RESERVED_RULE = (0, 5, 3)  # PR #10975 (2025-09-27): the fraction from the memory SGLang reserves
EPLB_TABLES = (0, 4, 7)  # the expert-location metadata is built on the GPU before the weights load


def _release(s: Settings) -> tuple[int, int, int]:
    return modelled(s.engine_version, NEWEST)


def _tiers(gpu_mib: float, tp: int) -> tuple[int, int]:
    """(chunked_prefill_size, cuda_graph_max_bs) SGLang picks by the GPU's memory in MiB
    (`server_args.py` `_handle_gpu_memory_settings`)."""
    if gpu_mib < 20 * 1024:
        return 2048, 8
    if gpu_mib < 35 * 1024:
        return 2048, 24 if tp < 4 else 80
    if gpu_mib < 60 * 1024:
        return 4096, 32 if tp < 4 else 160
    if gpu_mib < 160 * 1024:
        return 8192, 256 if tp < 4 else 512
    return 16384, 512


def default_mem_fraction_static(gpu_bytes: int, tp: int, version: tuple[int, int, int] | None = None,
                                chunked_prefill_size: int | None = None) -> float:
    """SGLang's default mem_fraction_static for a GPU of `gpu_bytes`, `tp` GPUs and a release.

    From 0.5.3 (`server_args.py` `_handle_gpu_memory_settings`, PR #10975): reserved MiB = 512 +
    1.5 x max(chunked_prefill_size, 2048) + 2 x cuda_graph_max_bs + tp x 1024 / 8, at least 10 GiB on
    GPUs over 60 GiB; fraction = round((gpu MiB - reserved) / gpu MiB, 3). SGLang reads the GPU's
    memory from nvidia-smi, a little above the runtime's total used here. Before 0.5.3 a table by GPU
    size and TP (`server_args.py`, 2025). chunked_prefill_size: the flag when given (else the tier's).
    """
    v = version or release(NEWEST)
    mib = gpu_bytes / 2**20
    if v >= RESERVED_RULE:
        chunk, max_bs = _tiers(mib, tp)
        chunk = chunked_prefill_size or chunk
        reserved = 512 + 1.5 * max(chunk, 2048) + 2 * max_bs + tp * 1024 / 8
        if mib > 60 * 1024:
            reserved = max(reserved, 10 * 1024)
        return round((mib - reserved) / mib, 3)
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
    # `srt/configs/model_config.py`: a --context-length above the derived one raises unless
    # SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is set
    past_context = "SGLang refuses it unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set"
    past_context_override = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"

    def flags(self) -> dict[str, str]:
        return {"max_model_len": "--context-length", "concurrency": "--max-running-requests",
                "kv_cache_dtype": "--kv-cache-dtype", "fp8": "fp8_e5m2",
                "utilization": "--mem-fraction-static", "tp": "--tp-size", "quantization": "--quantization"}

    def cell_flags(self, s: Settings) -> str:
        frac = f" --mem-fraction-static {s.mem_fraction_static}" if s.mem_fraction_static else ""
        return (f"--context-length {s.max_model_len} --max-running-requests {s.concurrency} "
                f"--kv-cache-dtype {s.kv_cache_dtype} --tp-size {s.tensor_parallel_size}{frac}"
                + (f" --pp-size {s.pipeline_parallel_size}" if s.pipeline_parallel_size > 1 else ""))

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
        return s.mem_fraction_static or default_mem_fraction_static(gpu_bytes, s.tensor_parallel_size, _release(s),
                                                                    s.max_num_batched_tokens)

    def resolve(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Settings:
        """`max_num_batched_tokens` is SGLang's `--chunked-prefill-size`: the one given, else the one SGLang
        picks for the GPU's memory."""
        chunk = s.max_num_batched_tokens or _tiers(gpu_bytes / 2**20, s.tensor_parallel_size)[0]
        return s.with_(max_num_batched_tokens=chunk, max_num_seqs=s.max_num_seqs or 256)

    def rules_used(self, s: Settings) -> str:
        v = ".".join(map(str, _release(s)))
        given = rules_note(s.engine_version, _release(s))
        how = ("given" if s.mem_fraction_static else
               "SGLang's default from the memory it reserves" if _release(s) >= RESERVED_RULE else
               "SGLang's default by GPU size and TP")
        return f"SGLang {v} rules{given}, mem_fraction_static {how}"

    def weights_bytes(self, model: ModelSpec, s: Settings) -> int:
        """The weights as SGLang holds them on one GPU ("Load weight end ... mem usage"): the segments PyTorch's
        caching allocator reserved for the parameters and the fp32 RoPE cache, where the model's layout is known
        (`model.layout`); else the checkpoint's bytes per GPU."""
        if model.layout is None:
            return weights_per_gpu(model, s.tensor_parallel_size)
        return weights_loaded(model.layout, s.tensor_parallel_size, 4).reserved_bytes

    def weights_note(self, model: ModelSpec, s: Settings) -> str:
        if model.layout is None:
            return ""
        more = self.weights_bytes(model, s) - weights_per_gpu(model, s.tensor_parallel_size)
        return (f"; as SGLang holds them ({more / GIB:+.2f} GiB): its per-GPU parameters in PyTorch's allocator "
                "segments and one fp32 RoPE cache")

    def expert_tables_bytes(self, model: ModelSpec, s: Settings) -> int:
        """The expert-location tables of a MoE model from SGLang 0.4.7 (`eplb/expert_location.py`
        `ExpertLocationMetadata`, read in 0.4.9.post2): about MoE layers x experts x experts int64 in all, an
        approximation of their sizes (12 MiB for Qwen3-235B-A22B's 94 x 128 x 128); 0 before 0.4.7 and for dense
        models."""
        if _release(s) < EPLB_TABLES or not model.num_experts or not model.num_moe_layers:
            return 0
        return model.num_moe_layers * model.num_experts * model.num_experts * 8

    def budget(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Budget:
        """budget_bytes is SGLang's static memory (weights + KV pool): mem_fraction_static of what is
        available at start; the rest is left to activations and CUDA graphs. What is allocated after the
        memory at start was read and before the weights (the expert-location tables) comes out of the pool.

        Other processes' memory (`s.gpu_used`): the memory at start is the least free over the ranks
        (`model_runner.py` `init_torch_distributed`: `get_available_gpu_memory(..., distributed=world_size > 1)`, a
        minimum over the world group), and so is the memory after the weights that `profile_max_num_token` reads,
        so every rank's rest is (total - context - U) x mem_fraction_static - weights, U the most any rank's others
        hold: the rank with the least free memory decides for all. (With pipeline stages each stage is modelled with
        its own weights, as without other processes.) SGLang's default fraction is from the GPU's total memory,
        which the others do not change."""
        frac = self.fraction(s, gpu_bytes)
        ctx = s.non_torch_bytes if s.non_torch_bytes is not None else CUDA_CONTEXT
        most = s.used_most
        avail_before = max(0, gpu_bytes - ctx - most)
        static = int(avail_before * frac)
        reserved = avail_before - static
        overheads = [
            Overhead(name="CUDA context", bytes=ctx, estimated=s.non_torch_bytes is None,
                     assumption="memory in use before the weights load"),
        ]
        if most:
            who = [r for r, b in s.gpu_used if b == most][0]
            overheads.append(Overhead(name=f"other processes (GPU {who})", bytes=most, estimated=False,
                                      assumption="given (--gpu-used); SGLang sizes every rank from the least free "
                                                 "memory over the ranks"))
        overheads.append(Overhead(name="activations + CUDA graphs", bytes=reserved, estimated=False,
                                  assumption=f"(1 - mem_fraction_static={frac:.3f}) of the memory available at start"))
        tables = self.expert_tables_bytes(model, s)
        if tables:
            overheads.append(Overhead(name="expert-location tables", bytes=tables, estimated=True,
                                      assumption="EPLB metadata, MoE layers x experts^2 int64, out of the pool"))
        pool = static - self.weights_bytes(model, s) - tables
        nccl = internode_charge(s)  # several nodes: NCCL's network buffers, a bound (nccl.py)
        return Budget(budget_bytes=static, overheads=tuple(overheads), kv_pool_bytes=pool,
                      uncertain=(nccl,) if nccl else (), refusal=self.imbalance(s, gpu_bytes, ctx))

    def imbalance(self, s: Settings, gpu_bytes: int, ctx: int) -> Refusal | None:
        """SGLang's refusal of very unbalanced GPUs (`model_runner.py` `init_torch_distributed`, read in several
        releases): with tp_size > 1 every rank compares the least free memory over the ranks with its own and raises
        "The memory capacity is unbalanced. Some GPUs may be occupied by other processes." when the least is below
        0.9 of its own, so the server refuses when min free < 0.9 x max free. Newer releases raise only while
        SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK is on (`environ.py`: EnvBool(True), the default) and warn otherwise;
        older ones skip it with SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1, the oldest always raise (which release
        changed the switch is not checked). Free memory as SGLang reads it: total - its context - the others'."""
        if s.tensor_parallel_size <= 1 or not s.gpu_used:
            return None
        frees = {r: gpu_bytes - ctx - b for r, b in s.gpu_used}
        idle = next((r for r in range(s.world_size) if r not in frees), None)  # (a GPU no other process uses)
        if idle is not None:
            frees[idle] = gpu_bytes - ctx
        low, high = min(frees.values()), max(frees.values())
        if low >= 0.9 * high:
            return None
        r = min(frees, key=lambda k: (frees[k], k))
        answer = f"Does not start: GPU {r}'s free memory is under 0.9 of the fullest's."
        why = (f"SGLang refuses GPUs this unbalanced ('The memory capacity is unbalanced', model_runner.py "
               f"init_torch_distributed): GPU {r} has {low / GIB:.2f} GiB free as SGLang reads it, under 0.9 x the "
               f"{high / GIB:.2f} GiB of the GPU with the most")
        return Refusal(certain=True, rank=r, answer=answer, why=why, short=f"GPU {r}'s free memory is unbalanced")


# --- the log ------------------------------------------------------------------------------------
# Sources: sglang 0.4.x / 0.5.x `srt/model_executor/model_runner.py` ("Load weight end. ... avail mem=%.2f
# GB, mem usage=%.2f GB", profile_max_num_token, "Not enough memory. Please try to increase
# --mem-fraction-static."), `srt/mem_cache/memory_pool.py` ("KV Cache is allocated. (dtype: ..,)
# #tokens: N, K size: x GB, V size: y GB"), `srt/managers/scheduler.py` ("max_total_num_tokens=N, ...",
# "Decode out of memory happened. #retracted_reqs: N, #new_token_ratio: a -> b", "Decode batch.
# #running-req: N, #token: N, token usage: 0.xx"), `srt/model_executor/cuda_graph_runner.py`
# ("Capture cuda graph failed: ..."), `srt/entrypoints/http_server.py` ("The server is fired up").
# "GB" there is GiB (/ (1 << 30)).

from .interface import (Endpoints, Engine, KvView, LogWords, StepCode, Preset, Tokenizer, answer_json,  # noqa: E402
                        as_count, token_ids)
from .words import FIX_GAP, NUM, SIZE, cli, count, fig, fraction, msg, rx, switch  # noqa: E402

_ARG = r"['\"]?\s*[=:]\s*['\"]?"

#: the KV pool's idle leak check, in its versions' words (scheduler check_memory)
_KV_LEAK = r"(?:token_to_kv_pool(?:_allocator)? memory leak detected!|KV cache pool leak detected!|pool memory leak detected! \[full\])"


def _decimal_gb(m) -> int:
    """Bytes from a size SGLang prints in decimal GB (`bytes / 1e9`); a negative one (free memory below its reserve)
    is none."""
    return max(0, round(float(m.group(1)) * 1e9))


LOG = LogWords(
    # (another rank that did not finish loading: an out of memory there, or a slow node)
    maybe_memory=("rank-failed-loading",),
    # the server command (python -m sglang.launch_server, python/sglang/launch_server.py)
    launch=rx(r"python[\d.]*\s+-m\s+sglang\.launch_server"),
    # ("sglang" anywhere but as the name of a conda or virtual environment a vLLM log runs in: ".../envs/sglang/lib/...")
    # (not its kernels' package, sglang-kernel / sgl-kernel, which other engines install too)
    fingerprint=rx(r"(?<!envs/)(?<!venvs/)sglang(?!/lib/python|[-_]kernel)| TP\d+\]|\[TP\d+\]|KV Cache is allocated\. \(?(?:#tokens|dtype|K size)|Load weight (?:begin|end)|mem_fraction_static|"
                   r"Capture cuda graph|max_total_num_tokens|Prefill batch[.,] #new-seq|#running-req"),
    run_start=(rx(r"server_args=ServerArgs", 0),),
    not_oom_advice={
        "gpu-memory-unbalanced": "one GPU had far less memory free than the others when SGLang started "
                                 "(model_runner.py init_torch_distributed: min_per_gpu_memory below 0.9 of the local "
                                 "GPU's): another process holds memory on it. Free that GPU (nvidia-smi shows the "
                                 "process) or start on GPUs that are alike and free (CUDA_VISIBLE_DEVICES); no memory "
                                 "setting of SGLang's passes this check.",
    },
    messages=(
        # its check that every GPU has about the same memory free before it loads (model_runner.py
        # init_torch_distributed: "The memory capacity is unbalanced. Some GPUs may be occupied by other processes.
        # min_per_gpu_memory=41.37, local_gpu_memory=78.92, local_gpu_memory * 0.9=71.03"): another process holds one
        msg(r"\bThe memory capacity is unbalanced\b", "not_oom", code="gpu-memory-unbalanced"),
        # the barrier after the weights (model_runner.py load_model, 0.4.x+: "TP rank 0 could finish the model loading,
        # but there are other ranks that didn't finish loading. It is likely due to unexpected failures (e.g., OOM) or
        # a slow node."): another rank failed or stalled while it loaded its weights, whatever this rank reached
        msg(r"could finish the model loading, but there are other ranks that didn'?t finish loading", "not_oom",
            "WEIGHTS", "rank-failed-loading"),
        # the sampler found NaN in the logits (layers/sampler.py with --enable-nan-detection: "Detected errors during
        # sampling! NaN in the logits."): the model's numbers went wrong (a dtype that overflows, a kernel, a
        # quantisation), not memory
        msg(r"Detected errors during sampling! NaN in the logits", "not_oom", code="nan-in-logits"),
        # (0.1.x model_runner.py init_memory_pool as users pasted it, "Not enought memory. Please try to increase
        # --mem-fraction-static."; later pool_configurator.py's, which may also name the KV cache: "Not enough memory
        # to allocate KV cache.")
        msg(r"Not enought? memory\. Please try to increase --mem-fraction-static|"
            r"Not enough memory to allocate (?:the )?KV cache\b", "oom", "KV", "no-memory-for-kv-cache"),
        # "max_total_tokens=X is larger than the profiled value Y": a warning, unless Y leaves no pool
        msg(r"larger than the profiled value (?:-\d+|0)\b", "oom", "KV", "no-memory-for-kv-cache"),
        msg(r"SWA pool cap .* leaves no room for the full KV pool", "oom", "KV", "no-memory-for-kv-cache"),
        msg(r"Loaded weights leave no GPU memory for the KV cache", "oom", "KV", "no-memory-for-kv-cache"),
        # the host tier of the hierarchical KV cache (HiCache) larger than the host's free memory, checked as it is
        # made, after the device pool (mem_cache/memory_pool_host.py HostKVCache.__init__: "Not enough host memory
        # available. Requesting X GB but only have Y GB free. Please reduce the size of the hierarchical cache.";
        # a fork's "... of the KVStore"): sized --hicache-ratio x the device pool, or --hicache-size GB per rank
        msg(r"Not enough host memory available\. Requesting\b", "oom", "KV", "hicache-host-memory-short"),
        msg(r"Capture (?:prefill |target \w+ )?cuda graph failed.*(?:out of memory|OutOfMemory)", "oom", "WARMUP",
            "cuda-graph-capture-oom"),
        # the pool is full while serving: <= 0.4.6 "Decode out of memory happened", >= 0.4.10 "KV cache pool is full.
        # Retract requests." (requests are retracted and re-queued; the server keeps running)
        # the periodic batch line with the pool full and requests waiting for it (scheduler.py log_decode_stats)
        # (admission holds back room for the running requests' next tokens, so requests queue well below 1.00:
        # schedule_policy.py PrefillAdder, rem_total_tokens less new_token_ratio x max_new_tokens per request)
        msg(r"(?<!swa )token usage: (?:0\.9\d|1\.00)\b.*#queue-req: [1-9]", "pressure", "RUNTIME",
            "kv-pool-full-queueing"),
        msg(r"(?:Decode|Prefill) out of memory happened|KV cache pool is full\. Retract requests", "pressure",
            "RUNTIME", "kv-pool-full-retracting"),
        # the pool had no room for a batch's tokens: fatal (schedule_batch.py / mem_cache/allocation.py)
        msg(r"(?:Prefill|Decode) out of memory\. Try to lower your batch size", "oom", "RUNTIME",
            "kv-blocks-exhausted"),
        msg(r"alloc_req_slots runs out of memory", "oom", "RUNTIME", "request-slots-exhausted"),
        # the pool of a hybrid model's recurrent (Mamba / linear-attention) state has no free slot for a request it
        # admits (mem_cache: "Not enough space for mamba cache" / "... for mamba ping pong idx, try to increase
        # --mamba-full-memory-ratio"): a pool of its own beside the KV pool, full under load
        msg(r"Not enough space for mamba\b", "oom", "RUNTIME", "mamba-pool-exhausted"),
        # retract_decode's assertion: even with every other request retracted, one running request's next
        # token has no room in the pool (schedule_batch.py "No space left for only one request")
        msg(r"No space left for only one request", "oom", "RUNTIME", "kv-blocks-exhausted"),
        msg(r"is longer than the model's context length|exceeds the maximum allowed length", "request"),
        # the scheduler's own check (check_memory, when idle): free + cached KV slots that do not add up to the pool
        # (ValueError, or a warning): its bookkeeping, not memory (logs.quiet.leak)
        msg(r"memory leak detected!|KV cache pool leak detected|token_to_kv_pool.* leak", "leak", code="kv-accounting-error"),
        # ... and a request's own count of its KV slots found off when it is released (schedule_batch.py Req's
        # assertion "Committed KV cache already freed (self.kv_committed_len=...)"): slots freed twice, a bug
        msg(r"\bKV cache already freed\b", "not_oom",
            code="kv-accounting-error"),
        # a request's KV cache that could not be moved between prefill and decode instances (PD disaggregation,
        # disaggregation/decode.py: "Decode transfer failed for request ... KVTransferError(...): Failed to get
        # kvcache from prefill instance, it might be dead"): the transfer engine or the other instance, not memory
        msg(r"\bKVTransferError\b|\bDecode transfer failed for request\b|Failed to get kvcache from prefill instance",
            "not_oom", code="kv-transfer-failed"),
        # the scheduler's watchdog: a forward step stuck past --watchdog-timeout (managers/scheduler.py
        # watchdog_thread: "Watchdog timeout (self.watchdog_timeout=300)", then it kills its own process tree): a hang,
        # not memory running out
        msg(r"\bWatchdog timeout \(self\.watchdog_timeout=", "not_oom", code="watchdog-timeout"),
        msg(r"Initialization failed\. warmup error", "wrapper", "WARMUP"),
        # the warm-up request to its own port answered by a web page (entrypoints/http_server.py _wait_and_warmup:
        # "assert res.status_code == 200, f'{res=}, {res.text=}'" with "res=<Response [503]>, res.text='<!DOCTYPE
        # html ... Squid'"): an HTTP proxy in the environment took the request to localhost, not the server
        msg(r"res=<Response \[\d{3}\]>, res\.text='\s*<(?:!DOCTYPE html|html)\b", "not_oom",
            code="warmup-request-proxied"),
        msg(r"Scheduler hit an exception|Exception in ModelTpServer|scheduler is dead|Received sigquit from a child|"
            r"Initialization failed\. Please see the error messages above|"
            # (2026's launcher: "RuntimeError: Rank 0 scheduler died during initialization (exit code: -3)": the
            # scheduler's own lines say why; its exit code -3 is the SIGQUIT the scheduler sends on any failure)
            r"\bscheduler died during initialization\b", "wrapper"),
    ),
    frames={
        # (model_executor/model_runner.py load_model logs "Load weight begin" before it loads, "Load weight end" after)
        "WEIGHTS": rx(r"Load weight begin\b"),
        # (and init_memory_pool's first line, model_runner.py "Using KV cache dtype: torch.bfloat16": the pool is
        # being sized and made after it)
        "KV": rx(r"init_memory_pool|TokenToKVPool|_create_buffers|memory_pool\.py|profile_max_num_token|"
                 r"Using KV cache dtype:"),
        # (init_device_graphs: the name from 0.5 on, for every device's graph runner)
        # (and the symmetric-memory pool preallocated for the communication kernels after the KV pool,
        # model_runner.py prealloc_symmetric_memory_pool, SGLANG_SYMM_MEM_PREALLOC_GB_SIZE)
        "WARMUP": rx(r"init_cuda_graphs|init_device_graphs|CudaGraphRunner|cuda_graph_runner|cuda_graph_setup|Capture .{0,20}"
                     r"(?:cuda|CUDA) graph begin|prealloc_symmetric_memory_pool|SYMM_MEM_PREALLOC"),
        # (and the scheduler's handling of a batch's result, managers/scheduler_output_processor_mixin.py
        # process_batch_result_prefill / _decode: only for a batch of requests)
        "RUNTIME": rx(r"forward_batch_generation|forward_extend|forward_decode|run_batch|event_loop_normal|"
                      r"\bprocess_batch_result\w*|"
                      r"event_loop_overlap|event_loop_pp|run_event_loop|dispatch_event_loop|event_loop_\w+|"
                      # 0.1.x's router (managers/router/model_rpc.py: ModelRpcServer.exposed_step runs each step)
                      r"model_rpc\.py\W+line \d+, in (?:exposed_step|forward_step|forward_fill_batch|"
                      r"forward_decode_batch)\b|"
                      # the overlap scheduler's forward thread (managers/tp_worker_overlap_thread.py), which runs the
                      # batches the scheduler hands it; the HTTP server's handlers and the tokenizer manager's request
                      # path (managers/tokenizer_manager.py generate_request), which run only for a request
                      r"forward_thread_func|tokenizer_manager\.py\W+line \d+, in (?:generate_request|_tokenize_one_request|"
                      r"_wait_one_response|_handle_batch_request)|http_server\.py\W+line \d+, in (?:generate_request|"
                      r"openai_v1_\w+|v1_\w+)|\bin v1_(?:chat_)?completions\b"),
        # (not `run_scheduler_process` itself: it builds the scheduler, then runs its event loop)
        "STARTUP": rx(r"scheduler = Scheduler\(|TpWorkerClass\(|tp_worker\.py\", line \d+, "
                      r"in __init__|ModelRunner\(|model_runner\.py\", line \d+, in __init__"),
    },
    milestones=(
        ("weights_done", rx(r"Load weight end")),
        # (its own line, "KV Cache is allocated. #tokens: N" / ". dtype: ...": not a report's "the KV cache is
        # allocated")
        ("kv_done", rx(r"KV Cache is allocated\. \(?(?:#tokens|dtype|K size)|Memory pool end|max_total_num_tokens=")),
        ("warmup_done", rx(r"Capture .{0,20}(?:cuda|CUDA) graph end")),
        # (also the scheduler's own leak check, check_memory: it runs in the event loop when idle, after start-up)
        ("ready", rx(r"The server is fired up|leak detected!")),
        # ("Decode batch." up to 0.4, "Decode batch," from 0.5)
        ("requests", rx(r"Prefill batch[.,]|Decode batch[.,]|POST /generate")),
    ),
    figures=(
        # a report's words that a start-up failure went away with CUDA graphs off or a lower static fraction (see
        # vllm's figure of the same key): memory outside the pool, the warm-up's
        fig("_fixed_outside_pool", r"--disable[-_]cuda[-_]graph\b" + FIX_GAP + r"\b(?:boots?|starts?|started|works?|worked|"
            r"fix(?:es|ed)?|solve[sd]|loads?|loaded)\b|\b(?:reduc|lower|decreas|dropp)\w*\s+(?:the\s+)?`?(?:--)?"
            r"mem[-_]fraction[-_]static`?" + FIX_GAP + r"\b(?:allows?|lets?|makes?|fix(?:es|ed)?|solve[sd]|works?|worked|"
            r"helps?|helped|boots|starts)\b", lambda m: m.group(0), mode="first", prose=True),
        fig("weights_bytes", r"Load weight end\..*?mem usage=" + SIZE),
        fig("kv_pool_bytes", r"KV Cache is allocated\..*?KV size: " + SIZE),
        fig("kv_k_bytes", r"KV Cache is allocated\..*?K size: " + SIZE),
        fig("kv_v_bytes", r"KV Cache is allocated\..*?V size: " + SIZE),
        fig("kv_pool_tokens", r"#tokens: " + NUM, count),
        fig("kv_pool_tokens", r"max_total_num_tokens=" + NUM, count),
        # the KV pool's leak check's own counts (scheduler check_memory, when idle: "token_to_kv_pool_allocator memory
        # leak detected! self.max_total_num_tokens=325968, available_size=159180, evictable_size=161436,
        # protected_size=5027"; 0.5's "pool memory leak detected! [full] total=205888, available=205888, evictable=0,
        # protected=-12"; the radix cache's evictable count on a line of its own, "self.tree_cache.evictable_size()=0"):
        # free + cached + in-use-by-the-cache slots against the pool (not the request pool's check, "req_to_token_pool
        # memory leak detected!")
        # the longest input it takes (scheduler validate_input_length, "Input length (160062 tokens) exceeds the maximum
        # allowed length (59862 tokens)"): tp_worker.py's max_req_input_len = min(context_len, max_total_num_tokens) - 1,
        # so one more is the smaller of the context and the pool (the pool where it is below the context)
        fig("_pool_capped_request_tokens", r"exceeds the maximum allowed length \((\d+) tokens\)",
            lambda m: count(m) + 1),
        fig("leak_check_available_tokens", _KV_LEAK + r".{0,200}?\bavailable(?:_size)?=" + NUM, count),
        fig("leak_check_available_tokens", r"\btoken_to_kv_pool_allocator\.available_size\(\)=" + NUM, count),
        fig("leak_check_evictable_tokens", _KV_LEAK + r".{0,200}?\bevictable(?:_size)?=" + NUM, count),
        fig("leak_check_evictable_tokens", r"\btree_cache\.evictable_size\(\)=" + NUM, count),
        fig("leak_check_protected_tokens", _KV_LEAK + r".{0,200}?\bprotected(?:_size)?=" + NUM, count),
        fig("leak_check_total_tokens", _KV_LEAK + r".{0,200}?\b(?:max_total_num_tokens|total)=" + NUM, count),
        # the 2024 releases' form (srt/managers/router/model_rpc.py forward_step, when idle: warnings.warn("Warning:
        # available_size={available_size}, max_total_num_token={N}\nKV cache pool leak detected!"), its available_size
        # already free + evictable, so nothing cached is left to add), a warning the server goes on from (the
        # attribute spelled max_total_num_tokens in later 2024 releases, managers/tp_worker.py)
        fig("leak_check_available_tokens", r"\bWarning: available_size=" + NUM + r", max_total_num_tokens?=\d", count),
        fig("leak_check_evictable_tokens", r"\bWarning: available_size=\d+, max_total_num_tokens?=\d", lambda m: 0),
        fig("leak_check_total_tokens", r"\bWarning: available_size=\d+, max_total_num_tokens?=" + NUM, count),
        fig("free_memory_bytes", r"avail mem=" + SIZE, mode="list"),
        fig("kv_usage_pct", r"(?<!swa )token usage: ([\d.]+)", lambda m: round(float(m.group(1)) * 100, 2),
            mode="list"),  # the full-attention pool ("full token usage"; not the sliding-window one)
        fig("running_reqs", r"#running-req: (\d+)", count, mode="list"),
        # a prefill batch's new sequences join the running ones (scheduler log_prefill_stats: "#new-seq" are the
        # requests it admits, "#running-req" the running batch they are merged into): both were in flight
        fig("prefill_concurrency", r"Prefill batch[.,] #new-seq: (\d+),.*?#running-req: (\d+)",
            lambda m: int(m.group(1)) + int(m.group(2)), mode="list"),
        fig("queue_reqs", r"#queue-req: (\d+)", count, mode="list"),
        fig("prefill_batch_tokens", r"#new-token: " + NUM, count),
        fig("retracted_reqs", r"#retracted_reqs: (\d+)", count, mode="list"),
        # (the host check's sizes are decimal: requested_bytes / 1e9, memory_pool_host.py)
        fig("hicache_requested_bytes", r"Not enough host memory available\. Requesting ([\d.]+) GB", _decimal_gb),
        fig("hicache_host_free_bytes", r"Not enough host memory available\..{0,60}?but only have (-?[\d.]+) GB free",
            _decimal_gb),
        fig("hicache_ratio", r"\bhicache_ratio" + _ARG + r"([\d.]+)", fraction),
        fig("hicache_size", r"\bhicache_size" + _ARG + r"(\d+)", count),
        cli("hicache_ratio", "hicache-ratio", fraction),
        cli("hicache_size", "hicache-size", count),
        switch("hicache_on", "enable-hierarchical-cache"),
        fig("hicache_on", r"\benable_hierarchical_cache" + _ARG + r"True\b", lambda m: True),
        fig("mem_fraction_static", r"mem[_-]fraction[_-]static" + _ARG + r"([\d.]+)", fraction),
        # a pasted command line ("python -m sglang.launch_server ... --mem-fraction-static 0.8 --tp 2")
        cli("mem_fraction_static", "mem-fraction-static", fraction),
        # the value it runs with where it lowers the one given (server_args.py: "Automatically reduce
        # --mem-fraction-static to 0.630 because this is a multimodal model", "... to 0.540")
        fig("mem_fraction_static", r"Automatically (?:reduce|adjust|set) --mem-fraction-static to ([\d.]+)", fraction),
        cli("max_model_len", "context-length", count),
        cli("max_num_seqs", "max-running-requests", count),
        cli("chunked_prefill_size", "chunked-prefill-size", count),
        cli("kv_cache_dtype", "kv-cache-dtype", lambda m: m.group(1)),
        cli("quantization", "quantization", lambda m: m.group(1)),
        # (and its alias, server_args.py's "--tensor-parallel-size", which SGLang takes as --tp-size)
        cli("tensor_parallel_size", "tp-size|tp|tensor-parallel-size", count),
        cli("pipeline_parallel_size", "pp-size|pp", count),
        cli("cuda_graph_max_bs", "cuda-graph-max-bs", count),
        cli("page_size", "page-size", count),
        # no CUDA graphs (server_args.py --disable-cuda-graph, disable_cuda_graph=True in its ServerArgs dump)
        switch("cuda_graphs_off", "disable-cuda-graph"),
        # the tensor-parallel rank in its log prefix ("[2025-07-02 07:41:59 DP7 TP7]"; utils.py configure_logger):
        # TP ranks run 0..tp_size-1, so the highest seen bounds the size from below
        fig("_tp_ranks_seen", r"^\[\d{4}-\d\d-\d\d[^\]]{0,40}?(?:\d\d:\d\d|DP\d+|PP\d+) TP(\d+)(?: EP\d+)?\]", count,
            mode="list", passive=True),
        fig("cuda_graphs_off", r"\bdisable_cuda_graph" + _ARG + r"True\b", lambda m: True),
        fig("profiled_max_total_tokens", r"larger than the profiled value (-?\d+)", count),
        fig("failed_alloc_tokens", r"Try to allocate (\d+) tokens", count),
        fig("available_tokens", r"Ava(?:ila|lia)ble tokens: (\d+)", count),
        fig("max_model_len", r"\bcontext_length" + _ARG + r"(\d+)", count),
        fig("max_num_seqs", r"\bmax_running_requests" + _ARG + r"(\d+)", count),
        fig("page_size", r"\bpage_size" + _ARG + r"(\d+)", count),
        fig("chunked_prefill_size", r"\bchunked_prefill_size" + _ARG + r"(-?\d+)", count),
        fig("cuda_graph_max_bs", r"\bcuda_graph_max_bs" + _ARG + r"(\d+)", count),
        fig("kv_cache_dtype", r"\bkv_cache_dtype" + _ARG + r"(\w+)", lambda m: m.group(1)),
        fig("quantization", r"\bquantization" + _ARG + r"(\w+)", lambda m: m.group(1)),
        fig("cpu_offload_gb", r"\bcpu_offload_gb" + _ARG + r"([\d.]+)", fraction),
        fig("model_name", r"\bmodel_path=['\"]([^'\"]{1,300})['\"]", lambda m: m.group(1)),
        fig("model_name", r"(?:^|\s)--model-path(?:=|\s+)['\"]?([^\s'\"\\]{1,300})", lambda m: m.group(1), flags=0),
        # the whole argument list, only when the line is whole (an excerpt may cut it)
        fig("args_listing", r"(server_args)=ServerArgs\(.*\)\s*$", lambda m: "full"),
    ),
    step_codes=(
        # the extend (prefill) forward pass (model_executor/model_runner.py forward_extend)
        # the vision encoder, on a request's images (managers/mm_utils.py general_mm_embed_routine -> embed_mm_inputs
        # -> the model's get_image_feature)
        StepCode("RUNTIME", "multimodal-encoder-oom", rx(r"general_mm_embed_routine|embed_mm_inputs|get_image_feature")),
        StepCode("RUNTIME", "prefill-oom", rx(r"forward_extend")),
        # a LoRA adapter loaded while serving (lora/lora_manager.py load_lora_adapter, its weights into the
        # memory pool's slots: lora/mem_pool.py load_lora_weight_to_buffer)
        StepCode("RUNTIME", "lora-load-oom", rx(r"lora_manager|\bload_lora_adapter\b|load_lora_weight_to_buffer")),
    ),
    # ModelRunner.initialize's call into its own load_model (`self.load_model()` under a model_runner.py frame): the
    # KV pool is made after it returns (init_memory_pool)
    # (and a model class's __init__ under srt/models, which allocates its weights as it makes its layers)
    loader=rx(r"model_runner\.py\W+line \d+, in \w+[^\n]*\n[^\n]*\bself\.load_model\(|"
              r"srt/models/\w+\.py\W+line \d+, in __init__\b"),
    # a second model loaded after the target's: the speculative draft worker (speculative/eagle_worker.py builds a
    # TpModelWorker with is_draft_worker=True once the target's runner, its pool included, is made) runs its own
    # ModelRunner.load_model, which prints "Load weight begin" again
    more_weights=rx(r"\bLoad weight begin\b"),
)


# --- the live server (probe): ../shared/ENGINES.md §2.1 ---------------------------------------------------------


def _info(answers: dict):
    """/server_info (0.5+) or /get_server_info (0.4, a deprecated alias later): server args and scheduler info."""
    for path in ("/server_info", "/get_server_info"):
        j = answer_json(answers, path)
        if isinstance(j, dict):
            return j, path
    return None, ""


def _max_total(j: dict):
    """max_total_num_tokens: top-level (scheduler_info merged in) or in the per-DP internal_states."""
    if "max_total_num_tokens" in j:
        return as_count(j["max_total_num_tokens"])
    states = j.get("internal_states")
    if isinstance(states, list):
        vals = [as_count(s.get("max_total_num_tokens")) for s in states if isinstance(s, dict)]
        vals = [v for v in vals if v is not None]
        return sum(vals) if vals else None
    return None


def _recognise(answers: dict) -> str | None:
    j, _ = _info(answers)
    if isinstance(j, dict) and ("max_total_num_tokens" in j or "mem_fraction_static" in j):
        return str(j.get("version") or "")
    models = answer_json(answers, "/v1/models")
    if isinstance(models, dict) and any(isinstance(m, dict) and m.get("owned_by") == "sglang"
                                        for m in models.get("data") or []):
        return ""
    return None


def _kv_view(answers: dict) -> KvView:
    """`max_total_num_tokens` of the server info (`Scheduler.get_init_info`, managers/scheduler.py)."""
    j, path = _info(answers)
    if not isinstance(j, dict):
        return KvView(source="GET /server_info", note="neither /server_info nor /get_server_info answered")
    figures = {k: j[k] for k in ("mem_fraction_static", "context_length", "page_size", "kv_cache_dtype",
                                 "max_running_requests", "chunked_prefill_size", "tp_size") if k in j}
    tokens = _max_total(j)
    return KvView(tokens=tokens, figures=figures, source=f"GET {path} max_total_num_tokens",
                  note="" if tokens is not None else "the server info has no max_total_num_tokens")


ENDPOINTS = Endpoints(
    identify=("/server_info", "/get_server_info", "/v1/models"), recognise=_recognise, ready="/health",
    kv_paths=("/server_info", "/get_server_info"), kv_view=_kv_view,
    tokenizers=(Tokenizer(path="/v1/tokenize", body=lambda text, model: {"model": model, "prompt": text,
                                                                         "add_special_tokens": False}, read=token_ids),),
    completion_extras={"ignore_eos": True},
)

# --- sweep's launch preset: ../shared/ENGINES.md §2 (server args) ---------------------------------------------
PRESET = Preset(
    command=("{server_python}", "-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
             "--port", "{port}", "--context-length", "{max_model_len}"),
    optional={"mem_fraction_static": ("--mem-fraction-static", "{mem_fraction_static}"),
              "max_num_seqs": ("--max-running-requests", "{max_num_seqs}"),
              "max_num_batched_tokens": ("--chunked-prefill-size", "{max_num_batched_tokens}"),
              "kv_cache_dtype": ("--kv-cache-dtype", "{kv_cache_dtype}"),
              "tensor_parallel_size": ("--tp-size", "{tensor_parallel_size}")},
    knobs={"max_num_seqs": ("16", "64", "256"), "mem_fraction_static": ("0.8", "0.85", "0.9")},
)

ENGINE = Engine(
    endpoints=ENDPOINTS, preset=PRESET,
    name="sglang", label="SGLang", log=LOG, rules=SglangRules, fraction_key="mem_fraction_static", imports=("vllm",),
    defaults={"kv_cache_dtype": "auto", "cpu_offload_gb": 0.0},
    flags={"max_model_len": "--context-length {n}", "max_num_seqs": "--max-running-requests {n}",
           "memory_fraction": "--mem-fraction-static {x}", "kv_cache_dtype": "--kv-cache-dtype fp8_e5m2",
           "max_num_batched_tokens": "--chunked-prefill-size {n}",
           "cuda_graphs": "--cuda-graph-max-bs {n} (or --disable-cuda-graph)", "tensor_parallel_size": "--tp-size {n}",
           "quantization": "an fp8/AWQ checkpoint (--quantization fp8|awq)",
           "quantization_4bit": "a 4-bit AWQ/GPTQ checkpoint (--quantization awq|gptq)", "cpu_offload": "--cpu-offload-gb {n}",
           "nccl": "--disable-custom-all-reduce", "page_size": "--page-size {n}",
           "lora_slots": "--max-loras-per-batch {n}", "lora_rank": "--max-lora-rank {n}",
           "hicache_size": "--hicache-size {n} (GB per rank; it overrides --hicache-ratio)",
           "hicache_ratio": "--hicache-ratio {x}"},
    aliases=("sgl", "sglang-router"),
)
