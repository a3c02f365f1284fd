"""A catalog of common accelerators and their memory.

`memory_bytes` is the total the runtime reports (cudaMemGetInfo / torch
`mem_get_info()[1]`, what vLLM prints as `total_gpu_memory`), which is a few
hundred MiB under the marketing figure because of driver reservations. Values
come from engine logs and PyTorch OOM messages ("has a total capacity of ...");
they vary by ±0.1 GiB with the driver. Apple entries are the unified memory
that Metal lets the GPU wire by default (`recommendedMaxWorkingSetSize`, about
75% of RAM on machines of 36 GB and more, 66% below).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import UsageError
from .units import parse_bytes

GIB = 2**30


@dataclass(frozen=True, kw_only=True)
class Gpu:
    """One device. memory_bytes: usable total, bytes (see module docstring). cuda_capability: NVIDIA's compute
    capability (major, minor), as `torch.cuda.get_device_capability()` gives it and engines choose kernels by
    (vLLM's mxfp4 MoE backend); None for AMD and Apple devices."""

    name: str
    memory_bytes: int
    vendor: str
    cuda_capability: tuple[int, int] | None = None


def _g(name: str, gib: float, vendor: str = "nvidia", cc: tuple[int, int] | None = None) -> Gpu:
    return Gpu(name=name, memory_bytes=round(gib * GIB), vendor=vendor, cuda_capability=cc)


# compute capabilities: NVIDIA's "CUDA GPUs" table (Turing 7.5, Volta 7.0, Ampere 8.0 / 8.6, Ada 8.9, Hopper 9.0,
# Blackwell 10.0, consumer Blackwell 12.0)
GPUS: tuple[Gpu, ...] = (
    _g("T4", 14.75, cc=(7, 5)), _g("V100-16GB", 15.77, cc=(7, 0)), _g("V100-32GB", 31.74, cc=(7, 0)),
    _g("RTX-3060", 11.76, cc=(8, 6)), _g("RTX-3080", 9.77, cc=(8, 6)), _g("RTX-3090", 23.58, cc=(8, 6)),
    _g("RTX-4060", 8.00, cc=(8, 9)), _g("RTX-4060-Ti-16GB", 15.70, cc=(8, 9)), _g("RTX-4070", 11.72, cc=(8, 9)),
    _g("RTX-4080", 15.70, cc=(8, 9)), _g("RTX-4090", 23.64, cc=(8, 9)), _g("RTX-5090", 31.36, cc=(12, 0)),
    _g("RTX-A6000", 47.53, cc=(8, 6)), _g("RTX-6000-Ada", 47.50, cc=(8, 9)), _g("A10", 22.06, cc=(8, 6)),
    _g("A10G", 22.19, cc=(8, 6)), _g("L4", 22.05, cc=(8, 9)), _g("L40S", 44.39, cc=(8, 9)),
    _g("A100-40GB", 39.39, cc=(8, 0)), _g("A100-80GB", 79.15, cc=(8, 0)), _g("H100-80GB", 79.15, cc=(9, 0)),
    _g("H100-PCIe", 79.15, cc=(9, 0)), _g("H100-NVL", 93.10, cc=(9, 0)), _g("H20", 95.00, cc=(9, 0)),
    _g("H200", 139.80, cc=(9, 0)), _g("B200", 178.35, cc=(10, 0)), _g("MI210", 63.98, "amd"), _g("MI250X", 63.98, "amd"),
    _g("MI300X", 191.98, "amd"), _g("MI325X", 255.98, "amd"), _g("RX-7900-XTX", 23.98, "amd"),
    _g("M1-Max-64GB", 48.0, "apple"), _g("M2-Ultra-192GB", 144.0, "apple"), _g("M3-Max-128GB", 96.0, "apple"),
    _g("M4-Max-128GB", 96.0, "apple"), _g("M4-Pro-48GB", 36.0, "apple"), _g("M3-Ultra-512GB", 384.0, "apple"),
)


def _norm(s: str) -> str:
    return "".join(ch for ch in s.lower() if ch.isalnum())


def find_gpu(name: str) -> Gpu:
    """Look a device up by name, ignoring case and punctuation ("rtx 4090", "h100-80gb").

    Raises UsageError listing the known names.
    """
    key = _norm(name)
    for vendor in ("nvidia", "geforce", "tesla", "quadro", "amd", "radeon", "instinct", "apple"):
        key = key.replace(vendor, "") if key != vendor else key
    exact = [g for g in GPUS if _norm(g.name) == key]  # before the form factor goes: "H100 PCIe" is its own card
    if exact:
        return exact[0]
    for noise in ("hbm3e", "hbm3", "hbm2e", "pcie", "sxm5", "sxm4", "sxm3", "sxm2", "sxm", "nvl"):
        key = key.replace(noise, "") if key != noise else key
    if not key:
        raise UsageError(f"'{name}' names no device.", option="--gpu",
                         hint="Use --gpu RTX-4090, --gpu H100-80GB, ... (--list-gpus) or --gpu-memory 24GiB.")
    exact = [g for g in GPUS if _norm(g.name) == key]
    if exact:
        return exact[0]
    partial = [g for g in GPUS if _norm(g.name).startswith(key) or key in _norm(g.name)]
    if len(partial) == 1:
        return partial[0]
    hint = "Use --gpu-memory 24GiB for other devices. Known: " + ", ".join(g.name for g in GPUS) + "."
    if partial:
        raise UsageError(f"'{name}' matches several devices: {', '.join(g.name for g in partial)}.",
                         option="--gpu", hint=hint)
    import difflib

    near = difflib.get_close_matches(key, {_norm(g.name): g.name for g in GPUS}, n=3, cutoff=0.6)
    names = {_norm(g.name): g.name for g in GPUS}
    if near:
        hint = "Did you mean " + " or ".join(names[k] for k in near) + "? " + hint
    raise UsageError(f"unknown device '{name}'.", option="--gpu", hint=hint)


#: the most memory taken as one device's (the largest today hold a few hundred GiB)
MAX_DEVICE_BYTES = 64 << 40


def device(name: str) -> Gpu | None:
    """The catalog entry an engine's rules read for a device name (`Settings.device_name`: a catalog name or what
    nvidia-smi prints); None when the name is empty or not in the catalog."""
    if not name:
        return None
    try:
        return find_gpu(name.split(" (")[0])
    except UsageError:
        return None


def gpu_memory(gpu: str | None, gpu_memory_text: str | None) -> tuple[int, str]:
    """(bytes, label) from --gpu or --gpu-memory; --gpu-memory wins. Defaults to an 80 GB H100."""
    if gpu_memory_text is not None:
        n = parse_bytes(gpu_memory_text, option="--gpu-memory")
        if n > MAX_DEVICE_BYTES:
            raise UsageError(f"'{gpu_memory_text}' is more than any one device holds (limit 64 TiB).",
                             option="--gpu-memory", hint="Give one GPU's memory, e.g. 80GiB.")
        return n, gpu_memory_text
    g = find_gpu("H100-80GB" if gpu is None else gpu)
    return g.memory_bytes, g.name + (" (assumed: no --gpu or --gpu-memory given)" if gpu is None else "")
