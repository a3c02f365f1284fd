"""PyTorch's caching allocator, read from inside the process that runs the model: the only module that
imports torch.

`torch.cuda.memory_allocated(d)` (bytes in live tensors), `memory_reserved(d)` (bytes the allocator holds
from the driver, its cache included) and `max_memory_allocated(d)` (the peak of the first since
`reset_peak_memory_stats(d)`). A peak counter beats any sampling: no spike between two readings is missed.
The gap between reserved and allocated is the allocator's cache and fragmentation.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..errors import SourceUnavailable
from .reading import DeviceReading, Reading, SourceInfo


def _load():
    """torch with CUDA available (the one seam tests replace)."""
    try:
        import torch
    except ImportError:
        raise SourceUnavailable("torch", "PyTorch is not installed in this process") from None
    if not torch.cuda.is_available():
        raise SourceUnavailable("torch", "PyTorch sees no CUDA device in this process")
    return torch


@dataclass(frozen=True, kw_only=True)
class AllocatorCounters:
    """One device's allocator counters, bytes: allocated, reserved, and the allocated peak since the last reset."""

    device: int
    allocated_bytes: int
    reserved_bytes: int
    peak_allocated_bytes: int

    @property
    def cached_bytes(self) -> int:
        """Reserved but not allocated: the allocator's cache and fragmentation (never negative)."""
        return max(0, self.reserved_bytes - self.allocated_bytes)


class TorchSource:
    """This process's CUDA tensors through PyTorch's allocator (devices: indices; None: every visible one)."""

    def __init__(self, devices: list[int] | None = None) -> None:
        self._torch = _load()
        n = self._torch.cuda.device_count()
        self._devices = [d for d in (range(n) if devices is None else devices) if 0 <= d < n]
        if not self._devices:
            raise SourceUnavailable("torch", "none of the devices asked for is visible to PyTorch")
        self.info = SourceInfo(name="torch", basis="process",
                               notes=("PyTorch's allocator in this process: memory outside it (the CUDA context, "
                                      "NCCL, other libraries) is not counted",))

    def reset_peak(self) -> None:
        for d in self._devices:
            self._torch.cuda.reset_peak_memory_stats(d)

    def counters(self) -> list[AllocatorCounters]:
        c = self._torch.cuda
        return [AllocatorCounters(device=d, allocated_bytes=int(c.memory_allocated(d)),
                                  reserved_bytes=int(c.memory_reserved(d)),
                                  peak_allocated_bytes=int(c.max_memory_allocated(d))) for d in self._devices]

    def read(self) -> Reading:
        c = self._torch.cuda
        devices = []
        for d in self._devices:
            total = int(c.get_device_properties(d).total_memory)
            devices.append(DeviceReading(index=d, name=str(c.get_device_name(d)), total_bytes=total,
                                         used_bytes=None, process_bytes=int(c.memory_reserved(d))))
        return Reading(t_s=time.monotonic(), devices=tuple(devices), basis="process")

    def close(self) -> None:
        return None
