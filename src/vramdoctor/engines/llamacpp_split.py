"""llama.cpp's layer split over several GPUs (`--split-mode layer`, its default): which layers each GPU holds.
Pure.

Source: `src/llama-model.cpp` `llama_model::load_tensors` (b4700 of February 2025 and b10587 of August 2026 alike):
the split points are the GPUs' free memory summed and normalised (`splits[i] = sum(free[0..i]) / sum(free)`, in
float); of the n_layer + 1 layers (the output layer is index n_layer) the last `act_gpu_layers = min(n_gpu_layers,
n_layer + 1)` are offloaded from `i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0)`, and layer `il` goes to the GPU
`upper_bound(splits, float(il - i_gpu_start) / act_gpu_layers)`; the input embedding stays on the CPU
(`dev_input`), the output layer goes where index n_layer does (`dev_output`), the last GPU. Each layer's KV cache
lives with the layer (`llama-kv-cache.cpp`, a buffer per device). Whole layers move, never heads.

Modelled for GPUs of equal free memory (the split points at k / N); where a layer falls exactly on a split point,
a few bytes' difference in the GPUs' free memory can put it on either side.
"""

from __future__ import annotations

import struct
from bisect import bisect_right


def _f32(x: float) -> float:
    """x rounded to a C float, as llama.cpp computes the split points and positions."""
    return struct.unpack("f", struct.pack("f", x))[0]


def device_layers(n_layer: int, gpus: int, n_gpu_layers: int | None = None) -> list[list[int]]:
    """The layer indices (0 .. n_layer, n_layer being the output layer) each of `gpus` GPUs holds, in order; the
    layers before the offloaded ones stay on the CPU and are in no list. n_gpu_layers None: every layer (-ngl all)."""
    gpus = max(1, gpus)
    ngl = n_layer + 1 if n_gpu_layers is None else max(0, n_gpu_layers)
    start = max(n_layer + 1 - ngl, 0)
    act = min(ngl, n_layer + 1)
    splits = [_f32((k + 1) / gpus) for k in range(gpus)]
    out: list[list[int]] = [[] for _ in range(gpus)]
    for il in range(start, start + act):
        dev = bisect_right(splits, _f32((il - start) / act))
        out[min(dev, gpus - 1)].append(il)
    return out
