"""Sizes from the memory the log (or `--model`) shows: the GPUs that hold the weights, the part of them to keep in
CPU memory, fewer-bit weights that fit or not, and the memory fraction a pool's shortfall needs. Pure: figures in,
numbers (or None where the log does not show enough) out."""

from __future__ import annotations

import math

GIB = 2**30
#: the part of what the memory fraction gives that the weights may take: a tenth is kept for the KV cache and
#: activations (as the fewer-GPU-layers step of llama.cpp keeps a tenth for its buffers)
WEIGHTS_SHARE = 0.9
#: fraction when the log shows none (vLLM's default up to 0.19, SGLang's usual static fraction)
FRACTION_UNSHOWN = 0.9
#: 16-bit weights at 4 bits (AWQ/GPTQ, group scales, 16-bit embeddings and head) and at 8 bits (fp8)
AT_4_BITS, AT_8_BITS = 0.30, 0.52


def _int(n: dict, key: str) -> int | None:
    v = n.get(key)
    v = max(v) if isinstance(v, list) and v else v
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def device_bytes(n: dict) -> int | None:
    """One GPU's memory as the log prints it (PyTorch's 'total capacity', vLLM's total_gpu_memory)."""
    return _int(n, "total_memory_bytes")


def model_buffers(n: dict) -> int | None:
    """The weights as llama.cpp prints them: the sum of its model buffers, one line per device and the CPU's
    (`load_tensors: CUDA0 model buffer size = ...`, `CPU_Mapped model buffer size = ...`); None where none is shown."""
    parts = [v for key in ("gpu_model_buffer_bytes", "cpu_model_buffer_bytes")
             for v in (n.get(key) if isinstance(n.get(key), list) else [n.get(key)])
             if isinstance(v, int) and not isinstance(v, bool) and v > 0]
    return sum(parts) or None


def weights_in_all(n: dict, tp: int | None) -> tuple[int | None, str]:
    """The model's weights over all GPUs and where that figure comes from: what the log prints (llama.cpp's model
    buffers, or the weights one GPU printed times the tensor-parallel size), else `--model`'s estimate (which
    assumes the checkpoint's own dtype: the file served may be quantized); (None, '') when neither is shown."""
    buffers = model_buffers(n)
    if buffers:
        return buffers, "as the log prints them (its model buffers)"
    printed = _int(n, "weights_bytes")
    if printed and tp:
        return printed * tp, "as the log prints them"
    model = _int(n, "_model_weights_bytes")
    if model:
        return model, "by the estimate for --model"
    return None, ""


def loaded_when_it_failed(n: dict) -> int | None:
    """What one GPU held when loading failed, and what it asked for then: the weights are more than this."""
    held = _int(n, "torch_allocated_bytes") or _int(n, "process_in_use_bytes")
    tried = _int(n, "failed_alloc_bytes") or 0
    return held + tried if held else None


def for_weights(n: dict, fraction: float | None) -> int | None:
    """What one GPU holds for weights: its memory x the fraction in use (0.9 where none is shown) x WEIGHTS_SHARE."""
    total = device_bytes(n)
    return int(total * (fraction or FRACTION_UNSHOWN) * WEIGHTS_SHARE) if total else None


def tp_sizes_allowed(size: int, heads: tuple[int, tuple[int, ...]] | None) -> int | None:
    """The smallest tensor-parallel size from `size` up that the model's heads allow (vLLM and SGLang: it divides the
    attention heads, and each KV head count divides it or it divides them); with the heads not known, the next power
    of two (which divides most head counts). None when no size up to the head count is allowed."""
    if not heads:
        return 1 << max(0, size - 1).bit_length()
    attention, kv = heads
    for t in range(max(1, size), attention + 1):
        if attention % t == 0 and all(k % t == 0 or t % k == 0 for k in kv):
            return t
    return None


def gpus_needed(weights: int, per_gpu: int) -> int:
    return max(1, math.ceil(weights / per_gpu))


def kv_shortfall(n: dict, fraction: float | None) -> tuple[int | None, int | None, bool]:
    """(bytes the KV pool lacks for one sequence of the context asked for, one GPU's memory, whether that memory is
    printed or only the least the figures allow). The shortfall: vLLM V1's 'X GiB KV cache is needed' less what was
    available, or the tokens the pool lacks x its bytes per token. The memory, where not printed: the weights and
    the pool the fraction gave, over that fraction (the profile's peak is left out: the GPU is at least this)."""
    needed, avail = _int(n, "kv_needed_bytes"), _int(n, "kv_available_bytes")
    fit = _int(n, "max_model_len_fit") or _int(n, "kv_pool_tokens")
    asked, per_token = _int(n, "max_model_len"), _int(n, "kv_bytes_per_token")
    gap = None
    if needed and avail and needed > avail:
        gap = needed - avail
    elif fit and asked and per_token and asked > fit:
        gap = (asked - fit) * per_token
    total = device_bytes(n)
    if total:
        return gap, total, True
    pool, w = avail or _int(n, "kv_pool_bytes"), _int(n, "weights_bytes")
    if pool and w and fraction:
        return gap, int((w + pool) / fraction), False
    return gap, None, False
