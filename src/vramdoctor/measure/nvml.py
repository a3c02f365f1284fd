"""NVIDIA GPUs through NVML (the `nvidia-ml-py` package, imported as `pynvml`): the only module that imports it.

Device memory is `nvmlDeviceGetMemoryInfo(handle, version=nvmlMemory_v2)`: its `used` leaves out the memory
the driver and firmware reserve (v1's `used` counts it: about 0.5-1 GiB on an A100), as nvidia-smi shows it;
drivers before 515 answer only v1, which is then used, with a note. Each process's memory is the
`usedGpuMemory` of `nvmlDeviceGetComputeRunningProcesses` and `...GraphicsRunningProcesses` (and the MPS list
where the binding has it), matched by PID against the server's process tree, what
`nvidia-smi --query-compute-apps=pid,used_memory` lists. Under WDDM (Windows, WSL2) per-process memory is
N/A (None) and in a container without `--pid=host` the driver may report host PIDs that match nothing: the
reading then keeps the device's `used` only, and says why.
"""

from __future__ import annotations

import time

from ..errors import SourceUnavailable
from .reading import DeviceReading, PidsFn, Reading, SourceInfo


def _load():
    """The pynvml module (the one seam tests replace)."""
    try:
        import pynvml
    except ImportError:
        raise SourceUnavailable("nvml", "the nvidia-ml-py package is not installed",
                                hint="pip install nvidia-ml-py, or choose another --source.") from None
    return pynvml


def _text(value) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


class NvmlSource:
    """Every NVIDIA GPU of this machine through NVML.

    pids: a callable giving the server's PIDs at each reading (None: devices only). devices: the indices to
    read (None: every GPU). Raises SourceUnavailable when the NVML library cannot be loaded or initialised
    (no driver, no GPU), naming NVML's own error."""

    def __init__(self, pids: PidsFn, devices: list[int] | None = None) -> None:
        nv = self._nv = _load()
        try:
            nv.nvmlInit()
        except nv.NVMLError as e:
            raise SourceUnavailable("nvml", f"NVML could not be initialised ({_text(e)})",
                                    hint="Is the NVIDIA driver installed and a GPU visible? Try --source "
                                         "nvidia-smi or --source psutil.") from None
        try:
            count = nv.nvmlDeviceGetCount()
            wanted = list(range(count)) if devices is None else [i for i in devices if 0 <= i < count]
            self._handles = [(i, nv.nvmlDeviceGetHandleByIndex(i)) for i in wanted]
            self._names = {i: _text(nv.nvmlDeviceGetName(h)) for i, h in self._handles}
        except nv.NVMLError as e:
            nv.nvmlShutdown()
            raise SourceUnavailable("nvml", f"the GPUs could not be listed ({_text(e)})") from None
        if not self._handles:
            nv.nvmlShutdown()
            raise SourceUnavailable("nvml", "NVML sees no GPU" + (f" among {devices}" if devices else ""),
                                    hint="Check --devices against `nvidia-smi -L`.")
        self._pids = pids
        self._v2 = hasattr(nv, "nvmlMemory_v2")
        self._notes: list[str] = []
        self.info = SourceInfo(name="nvml", basis="process" if pids() is not None else "device")

    # -- one device ---------------------------------------------------------------------------------------
    def _memory(self, handle):
        nv = self._nv
        if self._v2:
            try:
                return nv.nvmlDeviceGetMemoryInfo(handle, version=nv.nvmlMemory_v2)
            except (nv.NVMLError, TypeError):  # a driver before 515, or an old binding without `version`
                self._v2 = False
                self._note("this driver answers only NVML's v1 memory info, whose 'used' includes the memory "
                           "the driver reserves")
        return nv.nvmlDeviceGetMemoryInfo(handle)

    def _processes(self, handle) -> list:
        nv = self._nv
        procs = []
        for fn in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses",
                   "nvmlDeviceGetMPSComputeRunningProcesses"):
            call = getattr(nv, fn, None)
            if call is None:
                continue
            try:
                procs.extend(call(handle))
            except nv.NVMLError:  # not supported on this device or driver (MIG, MPS off)
                continue
        return procs

    def _note(self, text: str) -> None:
        if text not in self._notes:
            self._notes.append(text)
            self.info = SourceInfo(name="nvml", basis=self.info.basis, notes=tuple(self._notes))

    def read(self) -> Reading:
        nv = self._nv
        pids = self._pids()
        devices = []
        for i, h in self._handles:
            try:
                mem = self._memory(h)
            except nv.NVMLError as e:
                raise SourceUnavailable("nvml", f"GPU {i} could not be read ({_text(e)})") from None
            total, used = int(mem.total), int(mem.used)
            if total == 0:  # unified memory (Jetson, GB10): NVML has no framebuffer figure
                self._note(f"GPU {i} reports no memory of its own (unified memory): use --source psutil")
            proc_bytes: int | None = None
            note = ""
            if pids is not None:
                seen = {}
                for p in self._processes(h):
                    seen.setdefault(int(p.pid), p.usedGpuMemory)  # compute and graphics lists repeat a PID
                mine = {pid: b for pid, b in seen.items() if pid in pids}
                if any(b is None for b in mine.values()):
                    note = "per-process memory is not available here (WDDM or MIG): the device's use is shown"
                elif mine:
                    proc_bytes = sum(int(b) for b in mine.values())
                elif seen and not any(pid in pids for pid in seen):
                    proc_bytes = 0
                    note = ("none of the processes on this GPU is the server's: if the server runs here, its "
                            "PIDs are not those of this namespace (a container without --pid=host)")
                else:
                    proc_bytes = 0
            devices.append(DeviceReading(index=i, name=self._names[i], total_bytes=total or None, used_bytes=used,
                                         process_bytes=proc_bytes, process_note=note))
        basis = "process" if pids is not None else "device"
        return Reading(t_s=time.monotonic(), devices=tuple(devices), basis=basis)

    def close(self) -> None:
        try:
            self._nv.nvmlShutdown()
        except Exception:  # noqa: BLE001 - shutting down a library that already failed is not an error
            pass
