"""vLLM memory rules, by release.

Sources (vLLM main, 2025): `vllm/v1/worker/gpu_worker.py` (determine_available_memory:
requested = total x gpu_memory_utilization; KV = requested - weights - peak
activation - non-torch increase - CUDA graphs), `vllm/v1/kv_cache_interface.py`
(page sizes: 2 x block_size x kv_heads x head_size x dtype for attention,
block_size x (kv_lora_rank + rope) x dtype for MLA; a sliding layer needs
cdiv(min(window - 1 + max_num_batched_tokens, max_model_len), block_size) + 1
blocks), `vllm/v1/core/kv_cache_utils.py` (num_blocks = available //
(page_size x layers per group); "GPU KV cache size: N tokens" = num_blocks //
groups x block_size; max model length estimate by binary search).

What changes with the release (`engine/arg_utils.py` and `config.py` per tag):
- V0 (before 0.8.0) profiles one step of `max_num_batched_tokens`, which is
  max(max_model_len, 2048) unless chunked prefill is on; from 0.5.1 it is on by default for
  max_model_len > 32000 (no sliding window, no recurrent layers), with 512 tokens per step, 2048
  from 0.6.5 (PR #10544). V0 keeps Mamba state outside the pool in a cache of
  max_num_seqs sequences that the profile counts (`mamba_cache.py`).
- V1 (0.8.0 on) serving defaults (`_set_default_args_v1`): 8192 tokens per step and 1024
  sequences on large GPUs, else 2048 and 256. "Large": the name says H100/H200 before 0.8.5
  (PR #12369), at least 70 GiB from 0.8.5 (PR #17073), and not an A100 from 0.9.0 (PR #17885);
  before 0.8.4 V1 took 1024 sequences on every GPU (PR #16158).

The weights in the pool formula are vLLM's own reading of them ("Model loading took X GiB", V1
`v1/worker/gpu_model_runner.py` `load_model`; "Loading model weights took X GB", V0
`worker/model_runner.py`): the memory PyTorch has allocated once the model is built
(`DeviceMemoryProfiler` / V0 `CudaMemoryProfiler`, through `platforms/cuda.py`
`get_current_memory_usage`: `torch.cuda.max_memory_allocated` after `reset_peak_memory_stats`), passed
to `memory_profiling` as `weights_memory`. Allocated, not reserved: the caching allocator's blocks, so a
tensor keeps the tail of its block when the allocator does not split it off (1 MiB or less in the large
pool), but the tails it splits off and the segments' free rest do not count. Plus the RoPE cos/sin
cache, computed in fp32 and kept in the model dtype (`layers/rotary_embedding.py`, `cache.to(dtype)`).
`layout` builds the tensors and `caching_allocator` places them: Llama-3.1-8B gets 14.9888 GiB, Qwen2-7B
14.2488 under TP 1 and 7.1217 under TP 2, each what vLLM printed (R01, R13, R15).
"""

from __future__ import annotations

from ..errors import UsageError
from ..nccl import internode_charge
from ..spec import ModelSpec
from .interface import Endpoints, KvView, Preset, Tokenizer, answer_json, as_count, prom_samples, token_ids
from .base import (
    Budget,
    Overhead,
    RulesBase,
    Settings,
    cdiv,
    kv_dtype,
    state_bytes_per_seq,
    step_tokens,
    weights_loaded,
    weights_per_gpu,
)
from . import vllm_graphs, vllm_ranks
from .vllm_profile import (
    accounted,
    marlin_padding_bytes,
    mxfp4_backend,
    non_torch_bytes,
    profile_peak,
    sampler_backend,
)

GIB = 2**30
NEWEST = "0.11.0"  # the newest release whose rules are modelled; --engine-version selects older ones
#: the oldest release whose rules are modelled: V0's `profile_num_available_blocks` as 0.3.0 has it (`vllm_ranks`),
#: `--kv-cache-dtype` from 0.3.0 (`_flags_for`); an older one is refused rather than given these rules
OLDEST = "0.3.0"
V1 = (0, 8, 0)


def _release(s: Settings) -> tuple[int, int, int]:
    return modelled(s.engine_version, NEWEST)


def _large_gpu(v: tuple[int, int, int], gpu_bytes: int, name: str) -> bool:
    """vLLM's test for the larger serving defaults (see the module docstring)."""
    name = name.lower()
    if v < (0, 8, 5):
        return "h100" in name or "h200" in name
    return gpu_bytes >= 70 * GIB and (v < (0, 9, 0) or "a100" not in name)


def _chunked_by_default(v: tuple[int, int, int], model: ModelSpec, max_model_len: int) -> bool:
    """V0 turns chunked prefill on for long contexts (`arg_utils.py`, "enabled by default for models with
    max_model_len > 32K"), except with sliding windows or recurrent layers."""
    plain = not any(layer.kind in ("sliding", "state") for layer in model.layers)
    return v >= (0, 5, 1) and max_model_len > 32000 and plain


class VllmRules(RulesBase):
    name = "vllm"
    # `config/model.py` `_get_and_verify_max_len` (0.11.0): a max_model_len above the derived one (the config's
    # max_position_embeddings, times a rope_scaling factor) raises unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is set
    past_context = ("vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set (or rope scaling in the config "
                    "raises the limit)")
    past_context_override = "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 or rope scaling"

    def check_version(self, version: str) -> None:
        """A release vLLM prints or tags (0.6.4, v0.10.1), from OLDEST: an older one's rules are not modelled."""
        super().check_version(version)
        if release(version) < release(OLDEST):
            raise UsageError(f"vLLM {version} is older than the oldest release whose memory rules are modelled "
                             f"({OLDEST}).", option="--engine-version",
                             hint=f"Give a release from {OLDEST} to {NEWEST}; a newer one gets {NEWEST}'s rules.")

    def resolve(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Settings:
        """Fill in vLLM's defaults for `max_num_batched_tokens` and `max_num_seqs` for the release in
        `engine_version` (default NEWEST) and the device (its memory and `device_name`)."""
        v = _release(s)
        large = _large_gpu(v, gpu_bytes, s.device_name)
        if v < V1:
            seqs = s.max_num_seqs or 256
            step = s.max_num_batched_tokens or (
                (2048 if v >= (0, 6, 5) else 512) if _chunked_by_default(v, model, s.max_model_len)
                else max(s.max_model_len, 2048))
        else:
            seqs = s.max_num_seqs or (1024 if large or v < (0, 8, 4) else 256)
            step = s.max_num_batched_tokens or (8192 if large else 2048)
        return s.with_(max_num_seqs=seqs, max_num_batched_tokens=step)

    def rules_used(self, s: Settings) -> str:
        v = _release(s)
        engine = "V1" if v >= V1 else "V0"
        given = rules_note(s.engine_version, _release(s))
        seqs = f"{s.max_num_seqs} sequence" + ("s" if s.max_num_seqs != 1 else "")
        sampler = ""
        if v >= V1 and accounted(v):
            backend = sampler_backend(v, s)
            sampler = f", sampler {'FlashInfer' if backend == 'flashinfer' else 'PyTorch' if backend else 'undetermined'}"
        graphs = (", CUDA graphs profiled into the budget (from 0.21)"
                  if vllm_graphs.profiled(release(s.engine_version), s) else "")
        return (f"vLLM {'.'.join(map(str, v))} rules{given}, {engine} engine: {s.max_num_batched_tokens} tokens "
                f"per step and {seqs} profiled{sampler}{graphs}")

    def flags(self) -> dict[str, str]:
        return {"max_model_len": "--max-model-len", "concurrency": "--max-num-seqs",
                "kv_cache_dtype": "--kv-cache-dtype", "fp8": "fp8",
                "utilization": "--gpu-memory-utilization", "tp": "--tensor-parallel-size",
                "quantization": "--quantization"}

    def cell_flags(self, s: Settings) -> str:
        return (f"--max-model-len {s.max_model_len} --max-num-seqs {s.max_num_seqs or s.concurrency} "
                f"--kv-cache-dtype {s.kv_cache_dtype} "
                f"--gpu-memory-utilization {s.gpu_memory_utilization} --tensor-parallel-size {s.tensor_parallel_size}"
                + (f" --pipeline-parallel-size {s.pipeline_parallel_size}" if s.pipeline_parallel_size > 1 else ""))

    def weights_bytes(self, model: ModelSpec, s: Settings) -> int:
        """The weights as vLLM counts them on one GPU (see the module docstring): the allocator's blocks for the
        parameters and the RoPE cache in the model dtype, where the model's layout is known (`model.layout`);
        else the checkpoint's bytes per GPU; mxfp4 experts in Marlin's padded layout where that kernel runs
        (`vllm_profile.mxfp4_backend`)."""
        tp = s.tensor_parallel_size
        if model.layout is None:
            base = weights_per_gpu(model, tp)
        else:
            base = weights_loaded(model.layout, tp, model.layout.dtype_bytes).allocated_bytes
        if mxfp4_backend(_release(s), s) == "marlin":
            base += marlin_padding_bytes(model, tp)
        return base

    def weights_note(self, model: ModelSpec, s: Settings) -> str:
        tp = s.tensor_parallel_size
        marlin = marlin_padding_bytes(model, tp) if mxfp4_backend(_release(s), s) == "marlin" else 0
        note = ""
        if model.layout is not None:
            more = self.weights_bytes(model, s) - marlin - weights_per_gpu(model, tp)
            note = (f"; as vLLM counts them ({more / GIB:+.2f} GiB): its per-GPU parameters in PyTorch's allocator "
                    "blocks and the RoPE cache in the model dtype")
        if marlin:
            note += (f"; mxfp4 experts in Marlin's layout (+{marlin / GIB:.2f} GiB: intermediate size per GPU "
                     "padded to 128, hidden size to 256)")
        return note

    @staticmethod
    def _state_in_pool(s: Settings) -> bool:
        """V1 pages recurrent state in the KV pool; V0 keeps it in a separate Mamba cache."""
        return _release(s) >= V1

    def _tokens_for_layer(self, layer, s: Settings, max_model_len: int) -> int:
        """Tokens one sequence occupies in a layer's pages, rounded to whole blocks."""
        b = s.block_size
        if layer.kind == "sliding":
            need = min(layer.window - 1 + step_tokens(s), max_model_len)
            return (cdiv(need, b) + 1) * b
        return cdiv(max_model_len, b) * b

    def kv_cache_bytes(self, model: ModelSpec, s: Settings, max_model_len: int, seqs: int) -> int:
        per_seq = sum(self._tokens_for_layer(layer, s, max_model_len) * per_token
                      for layer, per_token in self._paged_layers(model, s))
        state = state_bytes_per_seq(model, s) if self._state_in_pool(s) else 0
        return seqs * (per_seq + state)

    def _paged_layers(self, model: ModelSpec, s: Settings) -> list:
        """(layer, bytes per token) of every layer with pages, kept for the model and settings last asked about:
        the searches for the largest context and concurrency ask hundreds of times (start-up time)."""
        kv, tp = kv_dtype(model, s), s.tensor_parallel_size
        key = (model, kv, tp)
        memo = getattr(self, "_paged_memo", None)
        if memo is None or memo[0][0] is not model or memo[0][1:] != key[1:]:
            memo = (key, [(layer, layer.bytes_per_token(kv, tp)) for layer in model.layers if layer.kind != "state"])
            self._paged_memo = memo
        return memo[1]

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
        v = _release(s)
        unsure = []
        if s.activation_bytes is not None:
            overheads.append(Overhead(name="activation peak", bytes=s.activation_bytes, estimated=False,
                                      assumption="given"))
        else:
            peak, open_part = profile_peak(v, model, s)
            overheads.append(peak)
            unsure += [open_part] if open_part else []
        nt = s.non_torch_bytes if s.non_torch_bytes is not None else non_torch_bytes(v, tp)
        overheads.append(Overhead(name="non-torch memory", bytes=nt, estimated=s.non_torch_bytes is None,
                                  assumption=("NCCL, custom all-reduce and cuBLAS after the CUDA context, as vLLM "
                                              "0.9.2+ profiles it" if accounted(v) else
                                              "cuBLAS/NCCL workspaces, as vLLM logs show them")))
        if vllm_graphs.profiled(release(s.engine_version), s):  # from 0.21: out of the pool (vllm_graphs)
            floor, rest = vllm_graphs.charge(model, s)
            overheads.append(floor)
            unsure.append(rest)
        elif not s.enforce_eager:
            cg = s.cuda_graph_bytes if s.cuda_graph_bytes is not None else 0
            overheads.append(Overhead(
                name="CUDA graphs", bytes=cg, estimated=s.cuda_graph_bytes is None,
                assumption="captured after the pool is sized; 0.5-1.9 GiB of the headroom"))
        nccl = internode_charge(s)  # several nodes: NCCL's network buffers, a bound (nccl.py)
        unsure += [nccl] if nccl else []
        others = vllm_ranks.charged_bytes(v, s)
        if others:
            overheads.append(Overhead(
                name=f"other processes (GPU {s.rank})", bytes=others, estimated=False,
                assumption=f"given (--gpu-used); vLLM {'.'.join(map(str, v))} counts what is in use on the GPU, theirs "
                           "too, as its profile's (total - free)"))
        pool = requested - self.weights_bytes(model, s) - sum(o.bytes for o in overheads)
        activation = next((o.bytes for o in overheads if o.name == "activation peak"), 0)
        return Budget(budget_bytes=requested, overheads=tuple(overheads), kv_pool_bytes=pool,
                      uncertain=tuple(unsure) + self._uncertain(model, s),
                      refusal=vllm_ranks.refusal(v, s, gpu_bytes, activation))

    def _uncertain(self, model: ModelSpec, s: Settings) -> tuple[Overhead, ...]:
        """What vLLM may take beyond the model that the release, GPU and settings do not settle (besides the
        sampler's backend, `vllm_profile.profile_peak`): mxfp4 experts (gpt-oss) where the MoE kernel is not known.
        Marlin pads them in memory (intermediate size per GPU to 128, hidden size to 256, `quantization/mxfp4.py`),
        which the checkpoint's size does not show: 65.97 GiB in memory for 60.7 GiB of file (vllm#23278); the
        Triton and FlashInfer kernels pad less."""
        if mxfp4_backend(_release(s), s) is not None:
            return ()
        extra = marlin_padding_bytes(model, s.tensor_parallel_size)
        if not extra:
            return ()
        return (Overhead(name="mxfp4 expert padding", bytes=extra, estimated=True,
                         assumption="the MoE kernel's padded layout (Marlin's: 128 x 256), which vLLM uses without "
                                    "FlashInfer's MoE and triton_kernels; its log says 'Using Marlin backend'"),)

    def max_concurrency(self, model: ModelSpec, s: Settings, pool_bytes: int) -> float:
        """vLLM's "Maximum concurrency for N tokens per request": pool / one request's pages."""
        one = self.kv_cache_bytes(model, s, s.max_model_len, 1)
        return pool_bytes / one if one else 0.0


# --- the log ------------------------------------------------------------------------------------
# Sources: vLLM V0 `executor_base.py` ("# %s blocks: %d, # CPU blocks: %d", device_name "cuda" or "GPU"),
# `worker/worker.py` (raise_if_cache_size_invalid, "No available memory for the cache blocks"),
# `worker/model_runner.py` ("Loading model weights took %.4f GB", graph capture), `core/scheduler.py`
# (preemption warning); V1 `v1/worker/gpu_worker.py` ("Available KV cache memory: %.2f GiB", the
# free-memory check of `request_memory`), `v1/core/kv_cache_utils.py` ("GPU KV cache size: %s tokens",
# "Maximum concurrency for %s tokens per request: %.2fx", check_enough_kv_cache_memory),
# `v1/worker/gpu_model_runner.py` ("Model loading took", "Graph capturing finished in %.0f secs, took
# %.2f GiB", `_dummy_sampler_run`: "CUDA out of memory occurred when warming up sampler with N dummy
# requests"), `entrypoints/openai/api_server.py` ("vLLM API server version", "non-default args").

from .interface import Engine, LogWords, StepCode  # noqa: E402
from .words import (  # noqa: E402
    FIX_GAP,
    NEGATIVE_BLOCKS,
    NOT_ADMIN,
    NUM,
    SIZE,
    cli,
    count,
    fig,
    fraction,
    gib,
    modelled,
    msg,
    release,
    rules_note,
    rx,
    switch,
)

_ARG = r"['\"]?\s*[=:]\s*['\"]?"  # key=value in Namespace(...), key: value in dicts and config dumps



def default_utilization(version: str | None) -> float:
    """vLLM's default --gpu-memory-utilization for a release (`_defaults`): 0.9 up to 0.19 and for no release given
    (the newest modelled, 0.11.0), 0.92 from 0.20."""
    return _defaults(version or NEWEST).get("gpu_memory_utilization", 0.9)


def _defaults(version: str | None) -> dict:
    """vLLM's defaults for the settings its "non-default args" leaves out (`engine/arg_utils.py`):
    gpu_memory_utilization 0.90 up to 0.19 and 0.92 from 0.20; max_num_seqs depends on the GPU in V1."""
    d: dict = {"kv_cache_dtype": "auto", "cpu_offload_gb": 0.0, "enforce_eager": False, "quantization": None}
    v = release(version)
    if v is not None:
        d["gpu_memory_utilization"] = 0.92 if v >= (0, 20, 0) else 0.9
    return d


def _v1(n: dict, v: tuple[int, int, int] | None) -> bool:
    """The log is V1's: its own lines (`Initializing a V1 LLM engine`, the engine core's process tag, "Model loading
    took", "Available KV cache memory", "GPU KV cache size: N tokens", its KV-capacity check), else not V0's own
    (`Initializing an LLM engine`, "Loading model weights took", "# GPU blocks: N, # CPU blocks", V0's KV check) and
    a release from 0.8.0, or none printed (the newest's)."""
    if n.get("_vllm_v1"):
        return True
    return not n.get("_vllm_v0") and (v is None or v >= V1)


def _flags_for(flags: dict, n: dict) -> dict:
    """The flags of the release the log shows (vLLM's release notes and `engine/arg_utils.py` per tag):
    `--kv-cache-dtype` from 0.3.0 (fp8_e5m2 only; "fp8", e4m3, from 0.4.1), `--enable-chunked-prefill` from
    0.4.0 (before it `--max-num-batched-tokens` must cover `--max-model-len`), `--cpu-offload-gb` from
    0.5.3, `--disable-custom-all-reduce` with the custom all-reduce in 0.3.0. V1 (the default from 0.8.0, the
    only engine from 0.11) always chunks its prefill, so its step is `--max-num-batched-tokens` alone, as it is
    for a V0 log that says chunked prefill is on, or one from 0.5.1 on above a 32K context (on by default there)."""
    v = release(n.get("engine_version"))
    ctx = n.get("max_model_len")
    # (V0 from 0.5.1 turns chunked prefill on by itself above a 32K context where the flag is not given:
    # engine/arg_utils.py create_engine_config, use_long_context = max_model_len > 32K)
    long_default = (v is not None and v >= (0, 5, 1) and isinstance(ctx, int) and ctx > 32768
                    and not n.get("_chunked_prefill_off"))
    if _v1(n, v) or n.get("_chunked_prefill_on") or long_default:
        flags["max_num_batched_tokens"] = "--max-num-batched-tokens {n}"
    if n.get("_chunked_prefill_off"):  # turned off on the command line: a smaller step needs it on again
        flags["max_num_batched_tokens"] = "--enable-chunked-prefill --max-num-batched-tokens {n} (chunked prefill " \
                                          "is off here, --no-enable-chunked-prefill: off, a step must hold the whole " \
                                          "--max-model-len)"
    if v is None:
        return flags
    if v < (0, 4, 1):
        flags["kv_cache_dtype"] = "--kv-cache-dtype fp8_e5m2"
    if v < (0, 3, 0):
        for key in ("kv_cache_dtype", "nccl"):
            flags.pop(key, None)
    if v < (0, 4, 0):
        flags["max_num_batched_tokens"] = "--max-num-batched-tokens {n} (no chunked prefill before 0.4.0: it " \
                                          "must stay at least --max-model-len)"
    if v < (0, 5, 3):
        flags.pop("cpu_offload", None)
    return flags


#: the multimodal encoder's steps (v1/worker/gpu_model_runner.py, 0.7-0.11)
# (and the models' own image and video paths, V0 and V1 alike: model_executor/models/qwen2_vl.py _process_image_input,
# llava.py _process_image_input / get_image_features)
_MM_ENCODER = (r"_execute_mm_encoder|execute_mm_encoder|get_multimodal_embeddings|embed_multimodal|_gather_mm_embeddings|"
               r"\b_process_(?:image|video|audio)_input\b|\bget_image_features\b")

LOG = LogWords(
    # (the offline LLM.generate's requests answered: its "Processed prompts:" bar at 100%, and the example scripts'
    # own print of each output, examples/offline_inference "Prompt: %r, Generated text: %r")
    answered=rx(r"Processed prompts: 100%|\bPrompt: .{0,400}?, Generated text: "),
    # the server command (vllm/entrypoints/cli/serve.py; the older entry points python -m vllm.entrypoints.openai.api_server
    # and vllm.entrypoints.api_server)
    launch=rx(r"vllm\s+serve|python[\d.]*\s+-m\s+vllm\.entrypoints\S*"),
    fingerprint=rx(r"\bvllm\b(?![-.](?:rs|metal|mlx)\b)|VllmWorker|EngineCore|gpu_model_runner\.py|kv_cache_utils\.py|gpu_worker\.py|"
                   r"# (?:GPU|cuda) blocks|GPU KV cache size|Loading model weights took|Memory profiling results|"
                   r"async_llm_engine\.py|llm_engine\.py|model_runner\.py:\d+\]|APIServer pid=|\[loggers\.py:\d+\]|"
                   r"Avg prompt throughput|Engine loop is not running\. Inspect the stacktrace|"
                   # V1's worker processes by their parallel ranks ("(Worker_TP7_EP7 pid=65033)", "(Worker_DP1_TP0 pid=...)")
                   # and the executor that runs them
                   r"\(Worker(?:_[A-Z]{2}\d+)+ pid=\d+\)|multiproc_executor\.py:\d+\]|"
                   # its Ray workers' process names (0.2's engine/ray_utils.py RayWorkerVllm, 0.4+ executor/ray_utils.py
                   # RayWorkerWrapper), as `ps` lists them
                   r"\bray::RayWorker(?:Vllm|Wrapper)\b|"
                   # (... and as Ray names the actor in its own messages: "name=RayWorkerVllm.__init__")
                   r"\bname=RayWorker(?:Vllm|Wrapper)\.|"
                   # its own line format up to 0.7 ("ERROR 09-27 06:46:46 engine.py:157] ..."), also inside a pane's
                   # borders (k9s, tmux)
                   r"^\W{0,3}(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d [\w.]+\.py:\d+\] "),
    run_start=(rx(r"vLLM API server version|Initializing an? (?:V1 )?LLM engine|non-default args:|"
                  r"args: Namespace\(", 0),),
    messages=(
        # a LoRA adapter whose rank is above the cap the slots were sized for (lora/peft_helper.py validate_legal:
        # "LoRA rank {r} is greater than max_lora_rank {max_lora_rank}"): a setting, not memory
        msg(r"LoRA rank \d+ is greater than max_lora_rank\b", "not_oom", code="lora-rank-over-cap"),
        # the sleep-mode allocator's CUDA call failing for a cause other than memory (csrc/cumem_allocator.cpp's
        # CUDA_CHECK: "CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:119"), which PyTorch then
        # raises as an out of memory, the allocation having returned nothing ("Tried to allocate 20.00 MiB ... of
        # which 66.43 GiB is free"): not memory (its "CUDA Error: out of memory at ..." is)
        msg(r"\bCUDA Error: (?!out of memory)[^\n]{1,80}? at \S*cumem_allocator\.cpp:\d+", "not_oom",
            code="allocator-cuda-error"),
        # a tool-call parser that could not read the model's output (entrypoints/openai/tool_parsers/*_tool_parser.py,
        # logger.exception: "Error in extracting tool call from response." for a whole answer, "Error trying to handle
        # streaming tool call." for a stream): this request's output, not memory
        msg(r"\bError (?:in extracting tool calls? from (?:the )?response|trying to handle streaming tool call)\b",
            "not_oom", code="tool-call-parse-error"),
        # V1's block pool asked for more blocks than are free (v1/core/block_pool.py get_new_blocks: "Cannot get N free
        # blocks from the pool"), the scheduler's count and the pool apart (an elastic or shared pool, kvcached's, that
        # shrank under it: "[kvcached][WARNING] ... available_size()=71 < need_size=76"): the pool ran out while serving
        msg(r"Cannot get \d+ (?:leased )?free blocks from the pool|\bavailable_size\(\)\s*=\s*\d+\s*<\s*need_size\s*=\s*\d+",
            "oom", "RUNTIME", "kv-blocks-exhausted"),
        # ... V0's block allocator with no free block when its scheduler allocates a request's blocks
        # (core/block/naive_block.py _allocate_block_id: "raise BlockAllocator.NoFreeBlocksError()", logged as
        # "NoFreeBlocksError()" and "vllm.core.block.interfaces.BlockAllocator.NoFreeBlocksError"; the prefix-caching
        # allocator's too): the pool ran out while serving
        msg(r"\bNoFreeBlocksError\b", "oom", "RUNTIME", "kv-blocks-exhausted"),
        msg(r"No available memory for the cache blocks", "oom", "KV", "no-memory-for-kv-cache"),
        # ... before that check existed (0.1.x-0.2.1, worker/cache_engine.py allocate_gpu_cache): the block count came
        # out negative (the profiled peak above the utilization's share) and the cache's first tensor, [num_blocks,
        # num_heads, head_size // x, block_size, x], was made with it: "Trying to create tensor with negative dimension
        # -1234: [-1234, 32, 16, 16, 8]"
        msg(NEGATIVE_BLOCKS, "oom", "KV", "no-memory-for-kv-cache"),
        # V1 dumps the batch it was running after its engine core crashed (`v1/engine/core.py` ->
        # `dump_input.py`: "Dumping input data for V1 LLM engine", earlier "Dumping scheduler output for model
        # execution" and "Dumping scheduler stats"): a failure while serving, its cause in the lines after the dump
        msg(r"Dumping (?:input data for V1 LLM engine|scheduler output for model execution|scheduler stats:)", "error",
            "RUNTIME"),
        # its start-up's warning that the open-file limit could not be raised (utils set_ulimit: "Found ulimit of 1024
        # and failed to automatically increase with error current limit exceeds maximum limit. This can cause fd limit
        # errors like `OSError: [Errno 24] Too many open files`. Consider increasing with ulimit -n"): it goes on
        msg(r"Found ulimit of \d+ and failed to automatically increase", "note"),
        msg(r"Failed to load model - not enough GPU memory|Failed to create unquantized linear weights|"
            r"Failed to initialize q/k/v range constants", "oom", "WEIGHTS", "weights-alloc-failed"),
        # (a user may quote only its words, without the figures: "... is larger than the maximum number of tokens ...";
        # or retype it, "maxinum")
        msg(r"is larger than the maxi[mn]u[mn] number of tokens that can be stored in KV cache",
            "oom", "KV", "max-model-len-exceeds-kv-cache"),
        # (and as a report shortens it: "ValueError: 1.75 GiB KV cache is needed, available 0.13 GiB"; V1's first form,
        # 0.7, printed "KV cache is" "needed" with no space between; the sentence's own start, which
        # v1/core/kv_cache_utils.py raises only there, names it too where a paste or a terminal cut the line after it:
        # "To serve at least one request with the model's max seq len (1048576),")
        msg(r"KV cache is ?needed, which is larger than the available KV cache memory|"
            r"\bTo serve at least one request with the models?'s?'? max seq len \(\d+\)|"
            # (or its last sentence alone, which only that check says: "the estimated maximum model length is 185840",
            # as a report's table quotes it)
            r"\bestimated maximum model length is \d+|"
            # (or a report's words for that check failing: "`--attention-backend FLASHINFER` fails the startup
            # KV-cache-memory check at a `--max-model-len` that ...", "the KV cache memory check failed")
            r"(?<!no longer )(?<!\bnot )(?<!n't )(?<!never )\bfail(?:s|ed|ing)?\s+(?:the\s+|vLLM's\s+)?(?:start-?up\s+)?KV[- ]cache[- ](?:memory|size|capacity)[- ]check\b|"
            r"\bKV[- ]cache[- ](?:memory|size|capacity)[- ]check\s+(?:fails|failed|failing)\b|"
            r"\bKV cache is needed,?\s+(?:but\s+|while\s+|and\s+)?(?:only\s+)?(?:the\s+)?(?:[\d.]+\s*[KMG]i?B\s+)?"
            r"(?:is\s+)?available\b", "oom", "KV",
            "max-model-len-exceeds-kv-cache"),
        # the CPU back end's KV cache space (VLLM_CPU_KVCACHE_SPACE, host RAM) larger than the NUMA node has free
        # (v1/worker/cpu_worker.py: "Available memory on node 0 (149.11/692.65 GiB) on kv cache allocation is less than
        # requested memory for kv (206.54/207.8 GiB). Reduce CPU memory used by other processes.")
        msg(r"on kv cache allocation is less than requested memory for kv\b", "oom", "KV", "cpu-kv-space-exceeds-memory"),
        msg(r"out of memory occurred when warming up sampler|warming up sampler with \d+ dummy", "oom", "WARMUP",
            "sampler-warmup-oom"),
        # a hybrid model's recurrent state (Mamba, linear attention) takes one block of the pool per running sequence,
        # and the pool holds fewer blocks than max_num_seqs (config/compilation.py, at the CUDA graph sizes: "max_num_seqs
        # (1024) exceeds available Mamba cache blocks (614). Each decode sequence requires one Mamba cache block"):
        # the pool cannot hold the configured concurrency
        msg(r"max_num_seqs \(\d+\) exceeds available Mamba cache blocks", "oom", "KV",
            "max-num-seqs-exceeds-state-pool"),
        # the profiling check (v1/worker/gpu_worker.py determine_available_memory: "assert init free memory > free
        # memory after profiling"): with the two the same, the device's free memory did not move while the profile ran
        # (a platform whose memory query does not see the engine's own allocations, Intel XPU among them), not another
        # process; "Initial free memory 30.3 GiB, current free memory 30.3 GiB"
        msg(r"Error in memory profiling\. Initial free memory ([\d.]+ ?[KMGT]i?B), current free memory \1(?!\w)",
            "not_oom", code="free-memory-unchanged"),
        msg(r"Free memory on device .* is less than desired GPU memory utilization|Error in memory profiling\. "
            r"(?:Initial free memory|This happens when)", "not_oom", code="gpu-shared-with-other-process"),
        msg(r"is too long and exceeds the capacity of block_manager|not enough kv cache blocks to run the entire sequence", "pressure", "KV",
            "request-exceeds-kv-pool"),
        msg(r"greater than the derived max_model_len|max_model_len.*exceeds? the model's", "not_oom",
            code="max-model-len-exceeds-model"),
        msg(r"is preempted by PreemptionMode\.\w+ mode because there is not enough KV cache space", "pressure",
            "RUNTIME", "kv-pool-full-preempting"),
        # V1 schedulers that log a preempted request coming back (v1/core/sched/scheduler.py in some builds)
        msg(r"\bPreempted request \S+ has been resumed", "pressure", "RUNTIME", "kv-pool-full-preempting"),
        # V0's scheduler could not swap a preempted sequence's blocks out (core/scheduler.py _preempt_by_swap:
        # "Aborted due to the lack of CPU swap space. Please increase the swap space to avoid this error."): the pool
        # was full under load and the CPU swap space (--swap-space, GiB per GPU) too
        msg(r"Aborted due to the lack of CPU swap space", "oom", "RUNTIME", "kv-swap-space-exhausted"),
        # ... and its check of that space against the host's RAM at start (config.py, CacheConfig: "Too large swap
        # space. 4.00 GiB out of the 4.30 GiB total CPU memory is allocated for the swap space." over 70% of it; "Possibly
        # too large swap space" over 40%, a warning): a setting refused, nothing allocated
        msg(r"\bToo large swap space\. ", "not_oom", code="swap-space-too-large", flags=0),
        # the periodic stats line with the pool full and requests waiting for it (metrics / v1 loggers.py)
        # (case-sensitive: vLLM's own spelling, and 2.5x faster on every stats line)
        msg(r"(?:Waiting|Pending): [1-9]\d* reqs,\s*GPU KV cache usage: (?:99\.\d|100\.0)%", "pressure", "RUNTIME",
            "kv-pool-full-queueing", flags=0),
        # a request refused for its length (entrypoints' validation): the server goes on serving
        # (or an image's tokens more than the encoder cache was sized for at start, v1/core/encoder_cache_manager and
        # the input processor: "The decoder prompt contains a(n) image item with length 4200, which exceeds the
        # pre-allocated encoder cache size 3721. Please reduce the input size or increase the encoder cache size")
        msg(r"maximum context length is \d+ tokens|is longer than the maximum model length|"
            r"Input prompt \(\d+ tokens\) is too long and exceeds limit of|"
            r"\bwhich exceeds the pre-allocated encoder cache size \d+", "request"),
        # the engine core's exit code as the front end lists it (v1/engine/utils.py "Failed core proc(s): {'EngineCore_0':
        # -4}", Python's returncode: minus the signal that ended it): that signal, where it names a cause
        msg(r"Failed core proc\(s\): \{[^}]{0,200}?: -4\b", "not_oom", code="illegal-instruction"),
        msg(r"Failed core proc\(s\): \{[^}]{0,200}?: -11\b", "not_oom", code="crash-access-violation"),
        msg(r"Failed core proc\(s\): \{[^}]{0,200}?: -8\b", "not_oom", code="floating-point-exception"),
        msg(r"Failed core proc\(s\): \{[^}]{0,200}?: -9\b", "oom", "HOST"),
        # V1's executor waiting on its workers past its timeout (v1/executor/multiproc_executor.py collective_rpc:
        # "TimeoutError: RPC call to execute_model timed out."): a worker alive and stuck (a collective, a kernel);
        # one that ran out of memory raises and reports it, one that died is reported as died
        msg(r"RPC call to \w+ timed out", "not_oom", code="worker-rpc-timeout"),
        msg(r"EngineCore hit an exception|Engine core initialization failed|Got fatal signal from worker|"
            r"Exception in worker|WorkerProc hit an exception|WorkerProc failed to start|Error in model execution|"
            r"EngineCore failed to start|EngineCore encountered (?:a fatal error|an issue)|Background loop has errored|"
            r"EngineDeadError|AsyncEngineDeadError|"
            # V0's front end (entrypoints/openai/api_server.py, 0.6-0.10): its engine process died, the cause above
            r"Engine process failed to start|"
            # ... or while serving (engine/multiprocessing/client.py run_heartbeat_loop: "Engine process (pid N) died.";
            # entrypoints/launcher.py, 0.5-0.10: the server stops once its engine is dead)
            r"Engine process \(pid \d+\) died|"
            # V1's front end finding its engine core process gone (v1/engine/core_client.py monitor_engine_cores:
            # "Engine core proc EngineCore_DP0 died unexpectedly, shutting down client."): its cause is the core's
            r"\bEngine core proc \w+ died unexpectedly\b|(?:MQLLMEngine|AsyncLLMEngine) (?:is already dead|has failed), "
            r"terminating server process", "wrapper"),
        # V0's model runner dumping the inputs of a model execution that raised (worker/model_runner_base.py
        # dump_input_on_failure: "Writing input of failed execution to /tmp/err_execute_model_input_....pkl..."): an
        # execution failed while serving, its exception after
        msg(r"Writing input of failed execution to\b", "wrapper", "RUNTIME"),
        # V0's AsyncLLMEngine answering a request after its background loop died (engine/async_llm_engine.py
        # AsyncEngineDeadError: "Engine loop is not running. Inspect the stacktrace to find the original error: %s",
        # what a client gets back, "OutOfMemoryError('HIP out of memory ...')"): the loop runs only once the engine
        # serves, so the error it names came while serving
        msg(r"\bEngine loop is not running\. Inspect the stacktrace to find the original error: [^\n]{0,40}?"
            r"(?:OutOfMemoryError|out of memory)", "oom", "RUNTIME", "serving-oom"),
        msg(r"\bEngine loop is not running\. Inspect the stacktrace to find the original error\b", "wrapper", "RUNTIME"),
        # vllm-omni's diffusion engine reporting its warm-up's failure (diffusion_engine.py: "dummy run to warm up the
        # model", then "Dummy run failed: <the error>"): the warm-up failed, its cause after the colon, which a paste
        # may cut ("Dummy run failed: CUD")
        msg(r"\bDummy run failed\b", "wrapper", "WARMUP"),
        # V1's executor finding a worker that failed while it started (v1/executor/multiproc_executor.py
        # wait_for_ready: "WorkerProc initialization failed due to an exception in a background process. See stack
        # trace for root cause."): the worker's own lines, or the kernel's kill of it, say why
        msg(r"\bWorkerProc initialization failed due to an exception in a background process\b", "wrapper"),
    ),
    frames={
        # (not the engine's `_initialize_kv_caches`, which runs the profile, then the cache, then the warm-up: a
        # start-up step below)
        "KV": rx(r"(?<!_)initialize_kv_cache(?!s)|_allocate_kv_cache|kv_cache_utils|"
                 r"check_enough_kv_cache_memory|get_kv_cache_config|CacheEngine|init_cache_engine|_initialize_kv(?!_caches)|"
                 r"initialize_from_config|_reshape_kv_cache|initialize_cache|raise_if_cache_size_invalid|"
                 # (AWS Neuron through transformers-neuronx: decoder.py to_neuron makes each layer's KV cache,
                 # init_caches, as it loads the layers)
                 r"\binit_caches\b"),
        # (and the dummy run in words, vllm-omni's worker: "RuntimeError: Dummy run failed: Worker failed with error 'CUDA
        # out of memory. ...'": the profile or warm-up run, which V1 names _dummy_run)
        "WARMUP": rx(r"profile_run|_dummy_run|_dummy_sampler_run|determine_available_memory|\b[Dd]ummy (?:sampler )?run\b|"
                     r"determine_num_available_blocks|capture_model|compile_or_warm_up_model|_warm_up_model|Capturing CUDA graph|"
                     r"Capturing cudagraph|Memory profiling|"
                     # (multimodal/profiling.py making the profile run's dummy inputs: "The sequence length used for
                     # profiling (max_num_batched_tokens / max_num_seqs = 20000) is too short to hold the multi-modal
                     # embeddings in the worst case")
                     r"sequence length used for profiling|"
                     # (torch.compile of the model, V1's first step of the profile run, compilation/backends.py:
                     # "Dynamo bytecode transform time: 12.87 s", "Compiling a graph for dynamic shape takes 41.2 s",
                     # its Inductor workers using host RAM; done at "torch.compile takes 54.1 s in total")
                     r"\bDynamo bytecode transform time\b|\bCompiling a graph for (?:dynamic shape|general shape|"
                     r"shape \d+)\b|\bCache the graph (?:of shape|for dynamic shape)\b"),
        # (the quantization methods' repacking after the weights are read: process_weights_after_loading,
        # gptq_marlin_repack, awq_marlin_repack)
        "WEIGHTS": rx(r"load_model|init_device\b|Starting to load model|Loading weights|Loading drafter model|create_weights|"
                      r"process_weights_after_loading|\b\w+_marlin_repack|"
                      r"_initialize_model|initialize_model|get_model\(|model_loader|"
                      # (the model's layers being made, model_executor/models/utils.py: only while it is built)
                      r"\bmake_layers\b|"
                      # (the Run:ai Model Streamer loader, model_loader/runai_streamer_loader.py: "Loading safetensors
                      # using Runai Model Streamer:   8% Completed | 9/118", its "[RunAI Streamer] CPU Buffer size: 3.7
                      # GiB for file: ..." as each file is read)
                      r"Loading safetensors using Runai Model Streamer|\[RunAI Streamer\] CPU Buffer size"),
        # (the sampler's own frames are not here: the warm-up runs it too, _dummy_sampler_run, so alone they are a
        # graph evaluation, COMPUTE below; the frame that called it, execute_model or the dummy run, decides)
        "RUNTIME": rx(r"(?<![\w])execute_model|_get_prompt_logprobs_dict|compute_logprobs|step_async|"
                      r"_process_model_outputs|engine_step|start_worker_execution_loop|execute_model_spmd|"
                      # V1's engine core loop (v1/engine/core.py): entered once start-up is done
                      r"run_busy_loop|_process_engine_step|step_with_batch_queue|"
                      # the async front ends' loops, which run only once requests arrive (V0 AsyncLLMEngine's
                      # background loop and its completion callback, V1 AsyncLLM's output handler)
                      r"_log_task_completion|run_engine_loop|\boutput_handler\b|"
                      # the OpenAI server's request handlers (entrypoints/openai/serving_chat.py, serving_completion.py,
                      # api_server.py's routes): they run only for a request, so a failure they log or raise through is
                      # serving ("[serving_chat.py:883] Error in chat completion stream generator.")
                      # (the old prefix without its bracket: "ERROR 02-11 08:25:49 serving_chat.py:661] ...")
                      r"(?:\[|\s)serving_(?:chat|completion|engine|responses|embedding)\.py:\d+\]|"
                      r"serving_(?:chat|completion|responses)\.py\W+line \d+, in \w+|"
                      r"\bin (?:create_chat_completion|create_completion|chat_completion_(?:stream|full)_generator|"
                      r"completion_(?:stream|full)_generator)\b"),
        # the model's own forward pass (model_executor/models/<model>.py forward, under the compiled wrapper's
        # __call__): the profile run or graph capture at start-up, or a request once serving
        # (and V0's dump of a failed model execution, "Error in model execution (input dumped to
        # /tmp/err_execute_model_input_...)": the profile run executes the model too)
        "COMPUTE": rx(r"model_executor/models/\w+\.py\W+line \d+, in forward\b|Error in model execution \(input dumped|"
                      r"compilation/decorators\.py\W+line \d+, in __call__|sampler\(|\.sample\(|"
                      r"v1/sample/sampler\.py\W+line \d+, in \w+"),
        # start-up, the step not named: the engine core or worker being built (not `run_engine_core` itself: it
        # builds the core, then runs its busy loop, so it is on the stack in both)
        "STARTUP": rx(r"EngineCoreProc\(|engine_core = |EngineCore\.__init__|"
                      r"in _init_executor|WorkerProc\.__init__|init_worker|in worker_main|"
                      # (the offline entry point being built: a script's "llm = LLM(model=...)", vllm/entrypoints/llm.py
                      # __init__, the engine from its arguments; its generate() is a request)
                      r"\bLLM\((?:model\b|\*\*|\w+\s*=)|entrypoints/llm\.py\W+line \d+, in __init__|"
                      r"\bfrom_engine_args\b|"
                      # (the engine's `_initialize_kv_caches`, V0 llm_engine.py and V1 engine/core.py: the profile run,
                      # determine_num_available_blocks / determine_available_memory, then the cache, then the warm-up
                      # and graph capture; the frame under it names the step)
                      r"\b_initialize_kv_caches\b"),
    },
    milestones=(
        ("weights_done", rx(r"Loading model weights took|Model loading took|Model weights loaded")),
        ("kv_sized", rx(r"# (?:GPU|cuda) blocks: [1-9]|\bGPU blocks: [1-9]|KV cache size: [\d,]+ tokens|"
                        r"Available KV cache memory:|Maximum concurrency for [\d,]+ tokens per request|"
                        # V0's profiling result (worker/worker.py determine_num_available_blocks, 0.6.4-0.8): the pool
                        # sized, when what is left is more than nothing
                        r"the rest of the memory reserved for KV Cache is (?:[1-9]|0\.\d*[1-9])|"
                        # vllm-ascend's worker (worker_v1.py determine_available_memory: "Available memory: %d, total
                        # memory: %d", bytes, the pool's share clamped at 0)
                        r"\bAvailable memory: [1-9]\d*, total memory: \d+")),
        ("warmup_done", rx(r"Graph capturing finished|init engine .* took")),
        # (and the offline LLM built, entrypoints/llm.py's "Supported tasks: ['generate']": it takes prompts now)
        ("ready", rx(r"Starting vLLM (?:API )?server|Available routes are|\[llm\.py:\d+\] Supported tasks: \[")),
        # (offline LLM.generate: its "Processed prompts:" progress bar)
        # (and V1's dump of what the engine core was running when it failed, v1/engine/core.py dump_engine_exception ->
        # logging_utils/dump_input.py: "Dumping scheduler stats: SchedulerStats(num_running_reqs=809, ..."; the warm-up's
        # dummy runs are never scheduled)
        ("requests", rx(r"Processed prompts:|\"(?:POST|GET) /v1/" + NOT_ADMIN + r"|Avg prompt throughput|Received request|"
                        r"Added request|Dumping scheduler stats: SchedulerStats\(num_running_reqs=[1-9]|"
                        # (... or a request in the scheduler output it dumps, any of its lines: "NewRequestData(req_id=",
                        # a multimodal input's "modality='video'", a request's prompt tokens)
                        r"\[dump_input\.py:\d+\][^\n]*?(?:NewRequestData\(|CachedRequestData\(req_ids=\[[\x22']|"
                        r"\bmodality=[\x22']|prompt_token_ids=\[\d)")),
    ),
    figures=(
        # a report's words that a start-up failure went away when the server kept more memory outside its KV pool: CUDA
        # graphs off (--enforce-eager: "--enforce-eager ... Pod boots") or a lower --gpu-memory-utilization, the
        # pool's budget ("reducing the gpu-memory-utilization value from 0.93 to 0.83 allows the server to start"):
        # what failed needed memory outside the pool, the warm-up's (read with `diagnose._fixed_outside_pool`)
        # (the words between the flag and the verb say nothing against it: not "--enforce-eager did not help, lowering
        # max-model-len fixed it"; the verb also before it: "it works when I add --enforce-eager")
        fig("_fixed_outside_pool", r"(?:--enforce[-_]eager|\benforce_eager\s*=\s*True|\bdisabl\w* (?:the )?CUDA ?graphs?)"
            + FIX_GAP + r"\b(?:boots?|booted|starts?|started|works?|worked|fix(?:es|ed)?|solve[sd]|loads?|loaded)\b|"
            r"\b(?:works?|worked|starts?|started|boots?|booted|loads?|loaded)\b(?: fine| again| now)?,? (?:when|if|after|once|"
            r"with) (?:I |we )?(?:add(?:ing)?|us(?:e|ing)|pass(?:ing)?|set(?:ting)?)? ?`?(?:--enforce[-_]eager|"
            r"enforce_eager\s*=\s*True)\b|"
            r"\b(?:reduc|lower|decreas|dropp)\w*\s+(?:the\s+)?`?(?:--)?gpu[-_]memory[-_]utili[sz]ation`?" + FIX_GAP
            + r"\b(?:allows?|lets?|makes?|fix(?:es|ed)?|solve[sd]|works?|worked|helps?|helped|boots|starts)\b",
            lambda m: m.group(0), mode="first", prose=True),
        # the images per prompt the engine allows (--limit-mm-per-prompt, printed in its args: "'limit_mm_per_prompt':
        # {'image': 1}", "limit_mm_per_prompt={'image': 2, 'video': 0}"): a cap already at 1 is not proposed again
        fig("limit_mm_images", r"\blimit_mm_per_prompt['\x22]?\s*[=:]\s*\{[^}]{0,80}?['\x22]image['\x22]\s*:\s*(\d+)", count),
        fig("weights_bytes", r"(?:Loading model weights|Model loading) took " + SIZE),
        fig("kv_pool_bytes", r"Available KV cache memory: " + SIZE),
        # what sleep mode could not free, one reading a sleep (v1/worker/gpu_worker.py sleep(): "Sleep mode freed
        # 43.82 GiB memory, 4.11 GiB memory is still in use."): rising across an RL trainer's steps, memory kept
        # (in its own lines, and quoted in a report's words)
        fig("reported_memory_bytes", SIZE + r" memory is still in use", mode="list"),
        fig("reported_memory_bytes", SIZE + r" memory is still in use", mode="list", prose=True),
        fig("kv_pool_bytes", r"memory reserved for KV Cache is " + SIZE),
        fig("kv_pool_bytes", r"kv_cache_size=" + SIZE),
        fig("kv_pool_bytes", r"\bAvailable memory: (\d+), total memory: \d+", count),  # (vllm-ascend: bytes)
        fig("total_memory_bytes", r"\bAvailable memory: \d+, total memory: (\d+)", count),
        fig("weights_bytes", r"model weights take " + SIZE),
        fig("num_gpu_blocks", r"(?:# )?(?:GPU|cuda) blocks: " + NUM, count),
        fig("num_cpu_blocks", r"# CPU blocks: " + NUM, count),
        fig("kv_pool_tokens", r"KV cache size: " + NUM + r" tokens", count),
        fig("kv_pool_tokens", r"can be stored in KV cache \(" + NUM + r"\)", count),
        fig("kv_needed_bytes", SIZE + r" KV cache is needed"),
        fig("max_num_seqs", r"max_num_seqs \(" + NUM + r"\) exceeds available Mamba cache blocks", count),
        fig("state_pool_blocks", r"exceeds available Mamba cache blocks \(" + NUM + r"\)", count),
        fig("kv_available_bytes", r"available KV cache memory \(" + SIZE),
        fig("kv_available_bytes", r"KV cache is needed,?\s+(?:but\s+|while\s+|and\s+)?(?:only\s+)?(?:the\s+)?"
            r"available:?\s+" + SIZE),
        fig("kv_available_bytes", r"KV cache is needed,?\s+(?:but\s+|while\s+|and\s+)?(?:only\s+)?" + SIZE +
            r"\s+(?:is\s+)?available"),
        fig("kv_pool_bytes", r"available KV cache memory \(" + SIZE),
        fig("max_model_len_model", r"derived max_model_len \((?:max_position_embeddings|\w+)=" + NUM, count),
        fig("max_model_len_fit", r"estimated maximum model length is " + NUM, count),
        fig("kv_available_bytes", r"Available memory on node \d+ \(([\d.]+)/[\d.]+ ([KMGT]i?B)\) on kv cache allocation"),
        fig("kv_needed_bytes", r"less than requested memory for kv \(([\d.]+)/[\d.]+ ([KMGT]i?B)\)"),
        fig("max_model_len", r"max seq len \(" + NUM + r"\)", count),
        fig("max_model_len", r"Maximum concurrency for " + NUM + r" tokens per request", count),
        fig("max_concurrency", r"Maximum concurrency for [\d,]+ tokens per request: ([\d.]+)x", fraction),
        fig("total_memory_bytes", r"total_gpu_memory\s*[=(]\s*" + SIZE),
        fig("free_memory_bytes", r"Free memory on device (?:\S+ )?\(" + NUM + r"/", gib),
        fig("total_memory_bytes", r"Free memory on device (?:\S+ )?\([\d.]+/" + NUM + r" GiB\)", gib),
        fig("requested_memory_bytes", r"desired GPU memory utilization \([\d.]+, " + SIZE + r"\)"),
        fig("gpu_memory_utilization", r"desired GPU memory utilization \(([\d.]+)", fraction),
        fig("peak_torch_memory_bytes", r"peak_torch_memory=" + SIZE),
        fig("activation_peak_bytes", r"activation peak memory takes " + SIZE),
        fig("non_torch_memory_bytes", r"non_torch_memory(?:=| takes )" + SIZE),
        fig("graph_memory_bytes", r"Graph capturing finished in [\d.]+ secs?, took " + SIZE),
        fig("sampler_dummy_requests", r"warming up sampler with (\d+)(?: dummy requests|\s*$)", count),  # (or wrapped)
        fig("kv_usage_pct", r"GPU KV cache usage: ([\d.]+)%", fraction, mode="list"),
        fig("running_reqs", r"Running: (\d+) reqs", count, mode="list"),
        fig("prompt_tps", r"Avg prompt throughput: ([\d.]+) tokens/s", fraction, mode="list"),
        fig("generation_tps", r"Avg generation throughput: ([\d.]+) tokens/s", fraction, mode="list"),
        fig("preemptions", r"Preemptions: (\d+)", count, mode="list"),
        fig("queue_reqs", r"Waiting: (\d+) reqs", count, mode="list"),
        # settings from a pasted command line ("python -m vllm.entrypoints.openai.api_server ... --gpu-memory-utilization
        # 0.98"), then from "args: Namespace(...)", "non-default args: {...}" and the engine's config line (later wins)
        cli("gpu_memory_utilization", "gpu-memory-utilization", fraction),
        cli("max_model_len", "max-model-len", count),
        cli("max_num_seqs", "max-num-seqs", count),
        # LoRA adapters: how many are held on the GPU at once, and the largest rank (lora/worker_manager.py makes
        # their slots for max_loras x max_lora_rank)
        fig("max_loras", r"\bmax_loras['\"]?\s*[=:]\s*(\d+)", count),
        fig("max_lora_rank", r"\bmax_lora_rank['\"]?\s*[=:]\s*(\d+)", count),
        cli("max_loras", "max-loras", count),
        cli("max_lora_rank", "max-lora-rank", count),
        cli("max_num_batched_tokens", "max-num-batched-tokens", count),
        cli("kv_cache_dtype", "kv-cache-dtype", lambda m: m.group(1)),
        cli("quantization", "quantization", lambda m: m.group(1)),
        cli("tensor_parallel_size", "tensor-parallel-size", count),
        # (its short alias, engine/arg_utils.py "--tensor-parallel-size", "-tp")
        fig("tensor_parallel_size", r"(?:^|\s)-tp(?:=|\s+)(\d+)\b", count, flags=0),
        # (the pipeline's stages, each holding its share of the weights: --pipeline-parallel-size, -pp; and the
        # quantization's short flag, -q)
        cli("pipeline_parallel_size", "pipeline-parallel-size", count),
        fig("pipeline_parallel_size", r"(?:^|\s)-pp(?:=|\s+)(\d+)\b", count, flags=0),
        fig("quantization", r"(?:^|\s)-q(?:=|\s+)((?:awq|gptq|fp8|marlin|bitsandbytes|compressed-tensors|gguf|aqlm|"
            r"squeezellm|deepspeedfp|experts_int8|fbgemm_fp8|modelopt|nvfp4|mxfp4|hqq|bitblas|torchao|quark|moe_wna16|"
            r"ptpc_fp8|qqq|ipex|tpu_int8)\w*)\b", lambda m: m.group(1), flags=0),
        # no CUDA graphs: --enforce-eager (engine/arg_utils.py; Aphrodite's too)
        switch("cuda_graphs_off", "enforce-eager"),
        fig("gpu_memory_utilization", r"gpu[_-]memory[_-]utilization['\"]?\s*[=(:]\s*['\"]?\(?([\d.]+)", fraction),
        # (not the profiler's quotient, "max_num_batched_tokens / max_num_seqs = 8192", a length per sequence)
        fig("max_num_seqs", r"(?<!/ )\bmax_num_seqs" + _ARG + r"(\d+)", count),
        fig("max_num_batched_tokens", r"\bmax_num_batched_tokens" + _ARG + r"(\d+)", count),
        fig("kv_cache_dtype", r"\bkv_cache_dtype" + _ARG + r"(\w+(?:[.-]\w+)*)", lambda m: m.group(1)),
        fig("quantization", r"\bquantization" + _ARG + r"(\w+(?:[.-]\w+)*)", lambda m: m.group(1)),
        fig("cpu_offload_gb", r"\bcpu_offload_gb" + _ARG + r"([\d.]+)", fraction),
        cli("cpu_offload_gb", "cpu-offload-gb", fraction),
        # (only in argument dumps: vLLM's own hint "set 'enforce_eager=True'" names the setting without using it)
        fig("enforce_eager", r"[,({]\s*['\"]?enforce_eager" + _ARG + r"(True|False)", lambda m: m.group(1) == "True"),
        fig("model_name", r"(?:\bmodel=|'model': )['\"]([^'\"]{1,300})['\"]", lambda m: m.group(1)),
        # ... and from a pasted command line: `vllm serve MODEL`, `--model MODEL` / `--model=MODEL` (a model's id or path
        # has a slash, a dot, a digit, a dash or an underscore, or flags follow it: "when starting vllm serve with tp 4"
        # is a person's words, "with" no model)
        fig("model_name", r"\bvllm serve\s+['\"]?((?=[^\s'\"\\]*[/.\d_-])[^\s'\"\\-][^\s'\"\\]{0,299}|"
                          r"[^\s'\"\\-][^\s'\"\\]{0,299}(?=\s+--))", lambda m: m.group(1), flags=0),
        fig("model_name", r"(?:^|\s)--model(?:=|\s+)['\"]?([^\s'\"\\]{1,300})", lambda m: m.group(1), flags=0),
        # (the V1 runner's "Starting to load model /models/Llama-3.3-70B-Instruct-AWQ..." names it too)
        fig("model_name", r"Starting to load model ([^\s'\"]{1,300}?)(?:\.\.\.)?\s*$", lambda m: m.group(1)),
        fig("engine_version", r"(?:vLLM (?:API )?server version|LLM engine \(v)\s*v?(\d+\.\d+[\w.+-]*)",
            lambda m: m.group(1)),
        fig("args_listing", r"(non-default args:|args: Namespace\()", lambda m: m.group(1).split(":")[0]),
        # which engine printed the log: V1's own lines, V0's own lines (see _v1), and chunked prefill said to be on
        fig("_vllm_v1", r"\bV1 LLM engine\b|\(EngineCore\w* pid=\d+\)|\bModel loading took\b|"
            r"\bAvailable KV cache memory: |\bGPU KV cache size: [\d,]+ tokens|To serve at least one request with the "
            r"model", lambda m: True, passive=True),
        # (and V0's own code in a traceback: V1 runs vllm/v1/..., and from 0.8 the old engine modules hand over to it, so a
        # frame in them, or V0's dead-engine error, is V0's)
        fig("_vllm_v0", r"Initializing an LLM engine \(v|\bLoading model weights took\b|# (?:GPU|cuda) blocks: [\d,]+, "
            r"# CPU blocks|is larger than the maxi[mn]u[mn] number of tokens that can be stored in KV cache|"
            r"vllm/engine/(?:async_)?llm_engine\.py|vllm/worker/(?:worker|model_runner|cache_engine)\.py|"
            r"\bAsyncEngineDeadError\b|\bMQLLMEngine", lambda m: True, passive=True),
        # (not the warning's own hint how to turn it off, arg_utils.py: "please disable chunked prefill by setting
        # --enable-chunked-prefill=False")
        fig("_chunked_prefill_off", r"(?<!setting )--no-enable-chunked-prefill\b|(?<!setting --)enable[_-]chunked[_-]"
            r"prefill['\"]?\s*[=:]\s*['\"]?False\b|(?<!setting )--enable-chunked-prefill[= ]false\b", lambda m: True),
        fig("_chunked_prefill_on", r"Chunked prefill is enabled with max_num_batched_tokens|"
            r"enable[_-]chunked[_-]prefill['\"]?\s*[=:]\s*['\"]?True\b|--enable-chunked-prefill\b(?! false)",
            lambda m: True),
    ),
    after={"weights_done": ("WARMUP", "KV")},  # the profiling pass runs before the pool is sized
    sentences=(
        # V1 0.8-0.10 (v1/core/kv_cache_utils.py check_enough_kv_cache_memory; estimated_msg is "" or "Based on the
        # available memory, the estimated maximum model length is N.")
        "To serve at least one request with the models's max seq len ({}), ({} GiB KV cache is needed, which is "
        "larger than the available KV cache memory ({} GiB). {*} Try increasing `gpu_memory_utilization` or "
        "decreasing `max_model_len` when initializing the engine.",
        # V1 from 0.11 (format_gib, the estimate's own trailing space, a link)
        "To serve at least one request with the models's max seq len ({}), ({} GiB KV cache is needed, which is "
        "larger than the available KV cache memory ({} GiB). {*}Try increasing `gpu_memory_utilization` or "
        "decreasing `max_model_len` when initializing the engine. See https://docs.vllm.ai/en/latest/"
        "configuration/conserving_memory/ for more details.",
        # V1 from 0.12 (the typo "models's" fixed; utilization also controls the CPU backend's memory)
        "To serve at least one request with the model's max seq len ({}), ({} GiB KV cache is needed, which is "
        "larger than the available KV cache memory ({} GiB). {*}Try increasing `gpu_memory_utilization` (which also "
        "controls CPU memory on the CPU backend) or decreasing `max_model_len` when initializing the engine. See "
        "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.",
        # V1's start-up check (v1/worker/gpu_worker.py init_device / utils request_memory): 0.8-0.10, then with the
        # device's name (0.11+)
        "Free memory on device ({}/{} GiB) on startup is less than desired GPU memory utilization ({}, {} GiB). "
        "Decrease GPU memory utilization or reduce GPU memory used by other processes.",
        "Free memory on device {} ({}/{} GiB) on startup is less than desired GPU memory utilization ({}, {} GiB). "
        "Decrease GPU memory utilization or reduce GPU memory used by other processes.",
        # V0 (worker/worker.py raise_if_cache_size_invalid; also V1's first gpu_worker.py, 0.7)
        "The model's max seq len ({}) is larger than the maximum number of tokens that can be stored in KV cache "
        "({}). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
    ),
    step_codes=(
        # (vLLM V1 gpu_model_runner.py capture_model / _capture_cudagraphs, which call _dummy_run too: so first)
        StepCode("WARMUP", "cuda-graph-capture-oom", rx(r"capture_model|_capture_cudagraphs")),
        # the vision (multimodal) encoder, serving an image (V1 gpu_model_runner.py _execute_mm_encoder ->
        # model.get_multimodal_embeddings / embed_multimodal) or profiled with the largest image the limits allow
        # (profile_run: "dummy_encoder_outputs = self.model.get_multimodal_embeddings(")
        StepCode("RUNTIME", "multimodal-encoder-oom", rx(_MM_ENCODER)),
        # a LoRA adapter loaded while serving (lora/worker_manager.py _load_adapter -> lora/models.py
        # from_local_checkpoint, its tensors read onto the GPU; add_adapter / activate_adapter copy them into a slot)
        StepCode("RUNTIME", "lora-load-oom", rx(r"lora/worker_manager|\b_load_adapter\b|\bfrom_local_checkpoint\b|"
                                                r"\bactivate_adapter\b|\bload_lora_adapter\b")),
        StepCode("WARMUP", "multimodal-encoder-oom", rx(_MM_ENCODER)),
        # the profiling pass (V0 worker.py determine_num_available_blocks -> profile_run; V1 gpu_worker.py
        # determine_available_memory -> gpu_model_runner.py profile_run -> _dummy_run)
        StepCode("WARMUP", "profile-run-oom",
                 rx(r"profile_run|_dummy_run\b|determine_available_memory|determine_num_available_blocks")),
        # prompt log-probabilities (_get_prompt_logprobs_dict, compute_logprobs, gather_logprobs, a frame
        # "in ..._logprobs..."; not a variable of that name in a code line, mlx_lm's "for n, (token, logprobs, ...)")
        StepCode("RUNTIME", "logprobs-oom", rx(r"\w*_logprobs\w*\(|\b(?:compute|gather|get)_\w*logprobs\w*|"
                                               r"\bin \w*logprobs\w*\b|\bprompt_logprobs\b")),
        # the engine's check of the pool's size, not its allocation (V0 worker.py raise_if_cache_size_invalid: no
        # blocks, or fewer than the context; V1 kv_cache_utils.py check_enough_kv_cache_memory): a traceback cut
        # there found the pool too small, and a smaller fraction would shrink it more
        StepCode("KV_CAPACITY", "kv-cache-too-small",
                 rx(r"raise_if_cache_size_invalid|check_enough_kv_cache_memory|_check_enough_kv_cache_memory")),
    ),
    # model_executor/model_loader, get_model (the model only: its KV cache is made later, initialize_kv_cache), the
    # worker's and model runner's load_model, and the worker's call into the runner's (`self.model_runner.load_model()`
    # under a gpu_worker.py / worker.py frame)
    # (and the model being built, which allocates its weights as it makes its layers: model_executor/models/utils.py
    # make_layers, a model class's __init__ under model_executor/models; a traceback cut there was loading them)
    loader=rx(r"model_loader[/.]|\bin get_model\b|\bget_model\(|\bin make_layers\b|"
              r"model_executor/models/\w+\.py\W+line \d+, in __init__\b|"
              r"(?:gpu_worker|worker|gpu_model_runner|model_runner)\.py\W+line \d+, in load_model\b|"
              r"(?:gpu_worker|worker)\.py\W+line \d+, in \w+[^\n]*\n[^\n]*\bself\.model_runner\.load_model\("),
    # V1's graph capture (gpu_model_runner.py capture_model: "Graph capturing finished in 28 secs, took 1.88 GiB") is
    # followed by the sampler's warm-up (gpu_worker.py compile_or_warm_up_model: _dummy_sampler_run after
    # capture_model, on purpose, so its buffers survive the capture's empty_cache); V0's capture (model_runner.py) is
    # the last step of its warm-up
    # on Intel GPUs (vLLM's XPU workers over IPEX / Level Zero), UR_RESULT_ERROR_OUT_OF_RESOURCES is what a device out
    # of memory most often returns (a larger batch fails, a smaller one runs), though the driver's other limits give it
    # too: maybe memory here (llama.cpp's SYCL kernels hit it on their own limits: not memory there)
    maybe_memory=("sycl-out-of-resources",),
    # distributed/device_communicators/shm_broadcast.py (MessageQueue.acquire_write / acquire_read): every
    # VLLM_RINGBUFFER_WARNING_INTERVAL (60 s) a reader or writer waits on the ring buffer, "No available shared memory
    # broadcast block found in 60 seconds" (0.5: "No available block found in 60 second.", at debug level)
    stalled=rx(r"No available shared memory broadcast block found in \d+ seconds?|"
               r"shm_broadcast\.py:\d+\]\s+No available block found in \d+ second"),
    warmup_goes_on=(rx(r"gpu_model_runner\.py:\d+\]\s+Graph capturing finished"), "the sampler's warm-up"),
    # a worker setting up its device before any weights (gpu_worker.py init_device,
    # init_worker_distributed_environment; distributed/parallel_state.py init_distributed_environment,
    # ensure_model_parallel_initialized, initialize_model_parallel; device_communicators/pynccl.py's communicator)
    device_setup=rx(r"\bin (?:init_device|init_worker_distributed_environment|init_distributed_environment|"
                    r"ensure_model_parallel_initialized|initialize_model_parallel)\b|\bpynccl\.py\W+line \d+, in __init__"),
    # a second model loaded after the target's weights: V0's speculative decoding builds its draft model's worker after
    # the target's (spec_decode/spec_decode_worker.py init_device -> proposer_worker.load_model, whose model runner
    # prints "Starting to load model <draft>..." again); V1's runner loads the drafter after the target in load_model
    # (v1/spec_decode/eagle.py, "Loading drafter model...")
    more_weights=rx(r"\bStarting to load model\b|\bLoading drafter model\b"),
)


# --- the live server (probe): ../shared/ENGINES.md §1.1, §1.5 ---------------------------------------------------
#: vLLM's cache_config_info labels are CacheConfig's fields (`CacheConfig.metrics_info()`, config/cache.py):
#: num_gpu_blocks and block_size in every release, kv_cache_size_tokens from 0.25 (per DP engine, group-aware:
#: preferred, since num_gpu_blocks x block_size is wrong for hybrid models)
_USAGE = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")  # 0.9.2+ / up to 0.11 (hidden from 0.11)


def _recognise(answers: dict) -> str | None:
    """vLLM: /version answers {"version": ...} and /v1/models says owned_by "vllm" or /metrics has vllm:
    series (`entrypoints/openai/api_server.py`)."""
    models = answer_json(answers, "/v1/models")
    owned = isinstance(models, dict) and any(isinstance(m, dict) and m.get("owned_by") == "vllm"
                                             for m in models.get("data") or [])
    metrics = answers.get("/metrics")
    series = bool(metrics and metrics[0] == 200 and "vllm:" in metrics[1][:4 * 2**20])
    if not (owned or series):
        return None
    v = answer_json(answers, "/version")
    return v["version"] if isinstance(v, dict) and isinstance(v.get("version"), str) else ""


def _kv_view(answers: dict) -> KvView:
    """`vllm:cache_config_info` on /metrics (emitted once the pool is sized; absent with --disable-log-stats)."""
    info = prom_samples(answers, "/metrics", ("vllm:cache_config_info",))
    usage = prom_samples(answers, "/metrics", _USAGE)
    figures: dict = {}
    if usage:
        figures["kv_cache_usage"] = max(v for _, _, v in usage)
    if not info:
        return KvView(figures=figures, source="GET /metrics",
                      note="/metrics has no vllm:cache_config_info (stats logging off: --disable-log-stats?)")
    tokens_total, blocks_total, dp = 0, 0, 0
    exact = True
    for _, labels, _v in info:
        blocks, block = as_count(labels.get("num_gpu_blocks")), as_count(labels.get("block_size"), 1 << 20)
        size_tokens = as_count(labels.get("kv_cache_size_tokens"))
        dp += 1
        figures.update({k: labels[k] for k in ("cache_dtype", "gpu_memory_utilization", "kv_cache_memory_bytes",
                                                "enable_prefix_caching") if k in labels})
        if blocks is not None:
            blocks_total += blocks
            figures["num_gpu_blocks"] = blocks_total
        if block is not None:
            figures["block_size"] = block
        if size_tokens is not None:
            tokens_total += size_tokens
        elif blocks is not None and block is not None:
            tokens_total += blocks * block
        else:
            exact = False
    if dp > 1:
        figures["data_parallel_engines"] = dp
    pool_bytes = as_count(figures.get("kv_cache_memory_bytes"))
    source = "GET /metrics vllm:cache_config_info" + (" kv_cache_size_tokens" if any(
        "kv_cache_size_tokens" in lab and as_count(lab["kv_cache_size_tokens"]) is not None for _, lab, _ in info)
        else " num_gpu_blocks x block_size")
    return KvView(tokens=tokens_total if exact and tokens_total else None, bytes_=pool_bytes, figures=figures,
                  source=source, note="" if exact else "num_gpu_blocks or block_size is not filled in")


ENDPOINTS = Endpoints(
    identify=("/version", "/v1/models", "/metrics"), recognise=_recognise, ready="/health",
    kv_paths=("/metrics",), kv_view=_kv_view,
    # entrypoints/openai/protocol.py TokenizeCompletionRequest / DetokenizeRequest (0.9.2; serve/tokenize in 0.33)
    tokenizers=(Tokenizer(path="/tokenize", body=lambda text, model: {"model": model, "prompt": text,
                                                                      "add_special_tokens": False},
                          read=token_ids, detok_path="/detokenize",
                          detok_body=lambda ids, model: {"model": model, "tokens": ids},
                          detok_read=lambda j: j.get("prompt") if isinstance(j, dict) else None),),
    completion_extras={"ignore_eos": True},  # SamplingParams.ignore_eos, accepted as an extra field
)

# --- sweep's launch preset: ../shared/ENGINES.md §1.3-1.5 ----------------------------------------------------
# `python -m vllm.entrypoints.openai.api_server` is the server in every release (`vllm serve` from 0.5); the
# startup plan of 0.33 (VLLM_ENABLE_STARTUP_PLAN=1 reuses a profiled KV size across boots) is kept off, so that
# every run profiles its own settings.
PRESET = Preset(
    command=("{server_python}", "-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
             "127.0.0.1", "--port", "{port}", "--max-model-len", "{max_model_len}"),
    optional={"gpu_memory_utilization": ("--gpu-memory-utilization", "{gpu_memory_utilization}"),
              "max_num_seqs": ("--max-num-seqs", "{max_num_seqs}"),
              "max_num_batched_tokens": ("--max-num-batched-tokens", "{max_num_batched_tokens}"),
              "kv_cache_dtype": ("--kv-cache-dtype", "{kv_cache_dtype}"),
              "tensor_parallel_size": ("--tensor-parallel-size", "{tensor_parallel_size}")},
    env={"VLLM_ENABLE_STARTUP_PLAN": "0"},
    knobs={"max_num_seqs": ("16", "64", "256"), "max_num_batched_tokens": ("2048", "8192"),
           "gpu_memory_utilization": ("0.85", "0.9", "0.95")},
)

ENGINE = Engine(
    endpoints=ENDPOINTS, preset=PRESET,
    name="vllm", kv_block_tokens=16, label="vLLM", log=LOG, rules=VllmRules, fraction_key="gpu_memory_utilization",
    defaults=_defaults, adapt_flags=_flags_for,
    flags={"max_model_len": "--max-model-len {n}", "max_num_seqs": "--max-num-seqs {n}",
           "memory_fraction": "--gpu-memory-utilization {x}", "kv_cache_dtype": "--kv-cache-dtype fp8",
           "max_num_batched_tokens": "--enable-chunked-prefill --max-num-batched-tokens {n}",
           "cuda_graphs": "--enforce-eager (or a lower --max-num-seqs: fewer graph sizes to capture)",
           "tensor_parallel_size": "--tensor-parallel-size {n}",
           "quantization": "a 4-bit AWQ/GPTQ or fp8 checkpoint (--quantization awq|gptq|fp8)",
           "quantization_4bit": "a 4-bit AWQ/GPTQ checkpoint (--quantization awq|gptq)",
           "cpu_offload": "--cpu-offload-gb {n}", "nccl": "--disable-custom-all-reduce",
           "lora_slots": "--max-loras {n}", "lora_rank": "--max-lora-rank {n}"},
    aliases=("vllm-v1", "vllm-v0"),
)
