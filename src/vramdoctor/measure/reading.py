"""One reading of memory, and the interface every memory source answers. Pure: no I/O here.

A source (`measure/nvml.py`, `nvidia_smi.py`, `amd.py`, `host.py`, `dcgm.py`, `torch_alloc.py`) is the only
module that talks to its outside system; everything else (the sampler, the probe) sees `Reading`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol


@dataclass(frozen=True, kw_only=True)
class DeviceReading:
    """One device at one instant.

    index: the device's number as its source gives it (NVML / nvidia-smi index, amdsmi handle order, DCGM's
    `gpu` label; 0 for the host). name: as the source names it ("NVIDIA H100 80GB HBM3", "host").
    total_bytes: the device's memory (NVML `nvmlDeviceGetMemoryInfo_v2().total`, nvidia-smi `memory.total`,
    amdsmi `amdsmi_get_gpu_memory_total(VRAM)`, DCGM FB_USED + FB_FREE, psutil `virtual_memory().total`).
    used_bytes: in use on the whole device, by every process (NVML v2 `used`, which leaves out the memory
    the driver reserves; nvidia-smi `memory.used`; amdsmi `amdsmi_get_gpu_memory_usage(VRAM)`; DCGM
    `DCGM_FI_DEV_FB_USED`); None where the source does not give it (psutil: the host's used memory is
    not the server's).
    process_bytes: the watched process tree's share (NVML `usedGpuMemory` of its PIDs, nvidia-smi
    `--query-compute-apps`, amdsmi `vram_mem`, psutil the sum of the tree's RSS); None where per-process
    figures are not available (WSL, a container with host PIDs, DCGM), with `process_note` saying why.
    host: a uuid, bus id or host name where the source gives one (DCGM's `Hostname`, NVML's UUID).
    """

    index: int
    name: str
    total_bytes: int | None
    used_bytes: int | None
    process_bytes: int | None = None
    process_note: str = ""
    host: str = ""


@dataclass(frozen=True, kw_only=True)
class Reading:
    """Every device a source reads, at `t_s` (time.monotonic() seconds).

    basis: what `bytes` measures: "process" (the server's process tree, summed over its devices) or
    "device" (the devices' whole use: the tree's share is not available, so other processes count too).
    """

    t_s: float
    devices: tuple[DeviceReading, ...]
    basis: str

    @property
    def bytes(self) -> int | None:
        """The measured memory in bytes on this reading's basis; None when a device lacks it."""
        return self.measured(self.basis)

    def measured(self, basis: str, devices: "set[int] | None" = None) -> int | None:
        """Bytes on `basis` ("process" or "device") summed over `devices` (indices; None: all); None when a
        device lacks the figure."""
        picked = [d for d in self.devices if devices is None or d.index in devices]
        vals = [d.process_bytes if basis == "process" else d.used_bytes for d in picked]
        if not vals or any(v is None for v in vals):
            return None
        return sum(v for v in vals if v is not None)

    @property
    def total_bytes(self) -> int | None:
        """The devices' memory summed; None when a device's total is not known."""
        vals = [d.total_bytes for d in self.devices]
        if not vals or any(v is None for v in vals):
            return None
        return sum(v for v in vals if v is not None)

    def device_bytes(self, index: int) -> int | None:
        """The measured bytes of one device (by its index), on this reading's basis."""
        for d in self.devices:
            if d.index == index:
                return d.process_bytes if self.basis == "process" else d.used_bytes
        return None


@dataclass(frozen=True, kw_only=True)
class SourceInfo:
    """What a source is, for the report: name (nvml, nvidia-smi, amdsmi, psutil, dcgm, torch), what it
    measures (`basis`), and notes (a fallback taken, a quirk of the platform)."""

    name: str
    basis: str
    notes: tuple[str, ...] = field(default_factory=tuple)


class MemorySource(Protocol):
    """A memory source: `read()` returns one Reading or raises SourceUnavailable (errors.py) with the reason;
    `info` says what it measures; `close()` releases the library. Sources are built with a callable that
    returns the watched PIDs at the moment of the reading (a server's tree changes: vLLM and SGLang start
    workers after the API process), or None to read devices only."""

    info: SourceInfo

    def read(self) -> Reading: ...

    def close(self) -> None: ...


PidsFn = Callable[[], "set[int] | None"]
