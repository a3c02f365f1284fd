"""vLLM V1's profile run, by release, GPU and install: the sampler warm-up by top-k/top-p backend, the mxfp4
experts' layout by MoE kernel, and the memory outside torch. Pure; `vllm.VllmRules` uses it.

Sources (vLLM 0.9.2 - 0.11.0, read at the upstream commits of the release dates: d8ee5a2ca = v0.9.2,
fe56180c7f = v0.10.0, 0dd3f4f5ab = v0.10.1, f1fc2107a3 = v0.11.0; research/vllm_moe.md):

- `v1/worker/gpu_worker.py` `determine_available_memory`, through `utils.memory_profiling` (PR #19312, 2025-06-10):
  available = requested - (weights + torch peak increase of the profile + non-torch increase since
  `init_snapshot`). The snapshot is taken after the CUDA context exists, so the non-torch term is what NCCL, custom
  all-reduce and cuBLAS add later: 0.05 GiB on one GPU and 0.15 GiB under TP, what the A100 records R13-R15 leave
  once the sampler is counted (research §4). CUDA graphs are captured after the pool is sized.
- `v1/worker/gpu_model_runner.py` `profile_run`: a forward pass of T = max_num_batched_tokens tokens, its
  activations freed, then `_dummy_sampler_run` over R = min(max_num_seqs, T) rows of the whole vocabulary (every
  tensor-parallel rank gathers all of it) with top_k = vocab - 1 and top_p = 0.9, so the top-k/top-p path runs.
  The two peaks do not add: peak = max(forward, sampler + the hidden states still held, 2 x hidden x (T + 2R) bytes
  in the model dtype).
- The sampler's peak per logit (research §2): the PyTorch path (`v1/sample/ops/topk_topp_sampler.py`
  `apply_top_k_top_p`) holds 38 bytes inside `logits.sort` (bf16 and fp32 logits, sorted fp32 values and int64
  indices, PyTorch's `segmented_sort_pairs` reverse indices, CUB's extra key and value buffers); FlashInfer's
  `top_k_top_p_sampling_from_logits` (flashinfer 0.2.11) 14 (the two logits, its fp32 mask and the softmax).
- Which path runs (`TopKTopPSampler.__init__`): on CUDA, FlashInfer when it is importable (>= 0.2.3) and
  VLLM_USE_FLASHINFER_SAMPLER is not 0 ("Using FlashInfer for top-p & top-k sampling."); otherwise, and on every
  other platform (ROCm), the PyTorch path. FlashInfer ships in vLLM's Docker images but is only an extra of the pip
  package up to 0.11.0 (`vllm[flashinfer]`, #21959; a dependency from #26443, after 0.11.0), so on NVIDIA GPUs the
  install decides and, unless `--sampler` says, it is undetermined between the two. (From #26859, 0.11.1, the
  PyTorch path is the default; newer releases are modelled with 0.11.0's rules.)
- mxfp4 experts (`model_executor/layers/quantization/mxfp4.py`, 0.10.1 `Mxfp4MoEMethod._should_use_marlin`, 0.11.0
  `get_mxfp4_backend`): on compute capability below 9.0 the Marlin kernel always; on Hopper and Blackwell Marlin only
  without FlashInfer's MoE (SM100, or VLLM_USE_FLASHINFER_MOE_MXFP4_BF16 on SM90) and without `triton_kernels`, so
  the install decides there. Marlin's `create_weights` pads the intermediate size per GPU to 128 and the hidden size
  to 256 ("n % 256 == 0 and k % 128 == 0"); gpt-oss-120b then holds 65.97 GiB on one H100 (vllm#23278) and 17.22 GiB
  per GPU under TP 4 on A100s (R18) for a 60.7 GiB checkpoint.

Before 0.9.2 the profile was accounted otherwise (V1 before PR #19312 read the peak from torch and the free memory;
V0 its own profile) and the sampler backends were not read: those releases keep the older estimate (4 bytes per
logit modelled, the sort path's 36 as the uncertain bound), which is undetermined, not derived.
"""

from __future__ import annotations

from ..dtypes import dtype_bytes
from ..gpus import device
from ..spec import ModelSpec
from .base import (Overhead, Settings, activation_estimate, cdiv, moe_activation_estimate, state_bytes_per_seq,
                   step_tokens)

GIB = 2**30
PROFILE_ACCOUNTING = (0, 9, 2)  # the first release whose profile accounting and sampler paths were read
MXFP4_READ = (0, 10, 1)  # the first release with gpt-oss's mxfp4 MoE (mxfp4.py read at 0.10.1 and 0.11.0)
#: bytes per logit of the sampler warm-up's peak, by top-k/top-p backend (see the module docstring)
SAMPLER_BYTES = {"flashinfer": 14, "pytorch": 38}
SAMPLER_LOG = {"flashinfer": "Using FlashInfer for top-p & top-k sampling",
               "pytorch": "Falling back to the PyTorch-native implementation of top-p & top-k sampling"}
#: before PROFILE_ACCOUNTING: the fp32 logits modelled, up to the sort path's 36 bytes uncertain
OLD_SAMPLER_BYTES, OLD_SORT_BYTES = 4, 36
#: memory outside torch the profile charges: since PR #19312 only what comes after the CUDA context
NON_TORCH = {"tp1": int(0.05 * GIB), "tp": int(0.15 * GIB)}
#: ... and before it, as vLLM 0.6 logs print it with the CUDA context (R01: 0.35 GiB on one RTX 3090)
OLD_NON_TORCH = {"tp1": int(0.35 * GIB), "tp": int(0.50 * GIB)}


def accounted(v: tuple[int, int, int]) -> bool:
    """Whether release `v` is one whose profile accounting is modelled from its source (0.9.2 on)."""
    return v >= PROFILE_ACCOUNTING


def non_torch_bytes(v: tuple[int, int, int], tp: int) -> int:
    table = NON_TORCH if accounted(v) else OLD_NON_TORCH
    return table["tp1" if tp == 1 else "tp"]


def sampler_backend(v: tuple[int, int, int], s: Settings) -> str | None:
    """The top-k/top-p backend the profile's sampler runs: the one given, the PyTorch path off CUDA (an AMD GPU),
    else None (the install decides: see the module docstring)."""
    if s.sampler:
        return s.sampler
    gpu = device(s.device_name)
    if gpu is not None and gpu.vendor == "amd":
        return "pytorch"
    return None


def sampler_rows(s: Settings) -> int:
    """R: the requests the sampler warm-up runs, min(max_num_seqs, max_num_batched_tokens)."""
    return min(s.max_num_seqs or 256, step_tokens(s))


def _sampler_peak(model: ModelSpec, s: Settings, per_logit: int) -> int:
    reqs, step = sampler_rows(s), step_tokens(s)
    hidden = (model.hidden_size or 0) * dtype_bytes(model.dtype) * (step + 2 * reqs)
    return per_logit * reqs * (model.vocab_size or 0) + hidden


def profile_peak(v: tuple[int, int, int], model: ModelSpec, s: Settings) -> tuple[Overhead, Overhead | None]:
    """(the profile's peak beside the weights, the part of it not settled by the release, GPU and settings or None).

    From 0.9.2: max(forward pass, sampler + hidden states), the sampler at its backend's bytes per logit; an
    undetermined backend is modelled at FlashInfer's 14 and the PyTorch path's extra is the uncertain part. Before:
    max(forward, 4 bytes per logit), the sort path's extra uncertain; in V0 also its Mamba cache of max_num_seqs
    sequences (padded to 8) that the first forward pass allocates."""
    tp, step = s.tensor_parallel_size, step_tokens(s)
    reqs = sampler_rows(s)
    # (a routed-expert layer's fused-MoE buffers, where larger than the dense MLP's activations)
    forward = max(activation_estimate(model, step, tp), moe_activation_estimate(model, step, tp))
    if accounted(v):
        backend = sampler_backend(v, s)
        low = max(forward, _sampler_peak(model, s, SAMPLER_BYTES[backend or "flashinfer"]))
        what = (f"larger of a {step:,}-token forward pass and the sampler over {reqs:,} requests"
                + (f" ({backend}: {SAMPLER_BYTES[backend]} B/logit)" if backend else
                   f" (FlashInfer's {SAMPLER_BYTES['flashinfer']} B/logit; see below)"))
        peak = Overhead(name="activation peak", bytes=low, estimated=True, assumption=what)
        if backend:
            return peak, None
        high = max(forward, _sampler_peak(model, s, SAMPLER_BYTES["pytorch"]))
        fi = _sampler_peak(model, s, SAMPLER_BYTES["flashinfer"])
        pt = _sampler_peak(model, s, SAMPLER_BYTES["pytorch"])
        why = (f"the sampler warm-up over {reqs:,} requests takes {fi / GIB:.2f} GiB with FlashInfer (14 B/logit) "
               f"and {pt / GIB:.2f} GiB on the PyTorch sort path (38 B/logit); which runs depends on the install "
               "(vLLM's Docker images ship FlashInfer, pip installs up to 0.11.0 do not): the log line "
               f"'{SAMPLER_LOG['flashinfer']}' means FlashInfer; --sampler flashinfer|pytorch settles it")
        return peak, (Overhead(name="sampler profile", bytes=high - low, estimated=True, assumption=why)
                      if high > low else None)
    low = max(forward, reqs * (model.vocab_size or 32000) * OLD_SAMPLER_BYTES)
    what = f"larger of a {step:,}-token forward pass and the sampler over {reqs:,} requests"
    if v < (0, 8, 0) and model.count("state"):
        seqs = cdiv(s.max_num_seqs or 256, 8) * 8
        low += seqs * state_bytes_per_seq(model, s)
        what += f", plus V0's Mamba cache for {seqs} sequences"
    extra = reqs * (model.vocab_size or 32000) * (OLD_SORT_BYTES - OLD_SAMPLER_BYTES)
    unsure = Overhead(name="sampler profile", bytes=extra, estimated=True,
                      assumption=f"the top-k/top-p sort path over {reqs:,} requests, which releases before 0.9.2 "
                                 "may profile (their accounting is not modelled from source)")
    return Overhead(name="activation peak", bytes=low, estimated=True, assumption=what), unsure


def mxfp4_backend(v: tuple[int, int, int], s: Settings) -> str | None:
    """vLLM's MoE kernel for mxfp4 experts: the one given; Marlin on NVIDIA GPUs below compute capability 9.0 from
    0.10.1; else None (the install decides: see the module docstring)."""
    if s.mxfp4_backend:
        return s.mxfp4_backend
    gpu = device(s.device_name)
    if v >= MXFP4_READ and gpu is not None and gpu.cuda_capability is not None and gpu.cuda_capability < (9, 0):
        return "marlin"
    return None


def marlin_padding_bytes(model: ModelSpec, tp: int) -> int:
    """Bytes Marlin's layout adds to one GPU's mxfp4 experts: each expert's gate/up and down matrices at the
    intermediate size per GPU rounded up to 128 and the hidden size to 256, 4 bits and an e8m0 scale per 32 values
    (`mxfp4.py` `create_weights`); 0 for a model without mxfp4 experts."""
    if model.quantization != "mxfp4" or not (model.num_experts and model.moe_intermediate_size and model.hidden_size):
        return 0
    inter, hidden = model.moe_intermediate_size, model.hidden_size
    per = max(1, inter // tp)
    padded = cdiv(per, 128) * 128 * cdiv(hidden, 256) * 256
    experts = model.num_moe_layers * model.num_experts * 3 * per * hidden * (0.5 + 1 / 32)
    return max(0, int(experts * (padded / (per * hidden) - 1)))

