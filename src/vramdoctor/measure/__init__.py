"""Memory sources, one module each, behind one interface (`reading.MemorySource`), and the sampler.

nvml (NVIDIA through nvidia-ml-py), nvidia-smi (its CSV queries), amdsmi (AMD), psutil (a process tree's
resident memory: CPU serving, unified memory), dcgm (a DCGM exporter's Prometheus page), torch (PyTorch's
allocator, in-process). `open_source(name, ...)` builds one; "auto" takes the first that works in the order
nvml, nvidia-smi, amdsmi, psutil, and says which were passed over and why.
"""

from __future__ import annotations

from ..errors import SourceUnavailable, UsageError
from .reading import DeviceReading, MemorySource, Reading, SourceInfo

SOURCES = ("auto", "nvml", "nvidia-smi", "amdsmi", "psutil", "dcgm")

__all__ = ["DeviceReading", "MemorySource", "Reading", "SourceInfo", "SOURCES", "open_source"]


def _one(name: str, tree, devices, dcgm_urls, http_get, dcgm_host) -> MemorySource:
    from .host import pids_fn

    if name == "nvml":
        from .nvml import NvmlSource

        return NvmlSource(pids_fn(tree), devices)
    if name == "nvidia-smi":
        from .nvidia_smi import NvidiaSmiSource

        return NvidiaSmiSource(pids_fn(tree), devices)
    if name == "amdsmi":
        from .amd import AmdSource

        return AmdSource(pids_fn(tree), devices)
    if name == "psutil":
        from .host import HostSource

        return HostSource(tree)
    if name == "dcgm":
        if not dcgm_urls:
            raise UsageError("the dcgm source needs the exporter's URL.", option="--dcgm-url",
                             hint="Give --dcgm-url http://HOST:9400/metrics.")
        from .dcgm import DcgmSource

        return DcgmSource(dcgm_urls, http_get, hostname=dcgm_host, devices=devices)
    raise UsageError(f"unknown source '{name}'.", option="--source", hint="Use one of: " + ", ".join(SOURCES) + ".")


def open_source(name: str = "auto", *, tree=None, devices: list[int] | None = None,
                dcgm_urls: list[str] | None = None, http_get=None, dcgm_host: str | None = None
                ) -> tuple[MemorySource, list[str]]:
    """The memory source `name` (one of SOURCES) and the notes of the choice. `tree`: the server's
    measure.host.ProcessTree, or None (devices only); devices: the GPU indices to read (None: all).

    "auto" (with dcgm_urls: dcgm) tries nvml, nvidia-smi, amdsmi, then psutil, and raises SourceUnavailable
    listing each reason when none works. A named source raises its own SourceUnavailable."""
    if name != "auto":
        return _one(name, tree, devices, dcgm_urls, http_get, dcgm_host), []
    if dcgm_urls:
        return _one("dcgm", tree, devices, dcgm_urls, http_get, dcgm_host), []
    passed: list[str] = []
    for candidate in ("nvml", "nvidia-smi", "amdsmi", "psutil"):
        try:
            src = _one(candidate, tree, devices, dcgm_urls, http_get, dcgm_host)
        except SourceUnavailable as e:
            passed.append(f"{candidate}: {e.reason}")
            continue
        return src, ([f"passed over: {'; '.join(passed)}"] if passed and candidate != "nvml" else [])
    raise SourceUnavailable("auto", "no memory source works here: " + "; ".join(passed),
                            hint="Give --pid (or --serve) so psutil can measure the server's processes, or "
                                 "--dcgm-url for a DCGM exporter.")
