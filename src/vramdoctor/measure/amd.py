"""AMD GPUs through `amdsmi` (ROCm's Python binding): the only module that imports it.

Units differ by call (amdsmi 7.0.2 `amdsmi_interface.py`): `amdsmi_get_gpu_vram_usage` answers MB
(`vram_total`, `vram_used`, uint32 "In MB"), so it is not used; `amdsmi_get_gpu_memory_total(h, VRAM)` and
`amdsmi_get_gpu_memory_usage(h, VRAM)` answer bytes (uint64) and are. A process's memory is
`amdsmi_get_gpu_process_list(h)[i]["memory_usage"]["vram_mem"]`, in bytes (the binding's `mem` field is the
sum over memory types, GTT and CPU included, so not the VRAM alone).
"""

from __future__ import annotations

import time

from ..errors import SourceUnavailable
from .reading import DeviceReading, PidsFn, Reading, SourceInfo


def _load():
    """The amdsmi module (the one seam tests replace)."""
    try:
        import amdsmi
    except ImportError:
        raise SourceUnavailable("amdsmi", "the amdsmi package is not installed (it comes with ROCm)",
                                hint="Install ROCm's amdsmi Python package, or choose another --source.") from None
    except OSError as e:  # the package is there, its libamd_smi.so is not
        raise SourceUnavailable("amdsmi", f"the amdsmi library cannot be loaded ({e})") from None
    return amdsmi


class AmdSource:
    """Every AMD GPU through amdsmi. Raises SourceUnavailable when the library cannot start or sees no GPU."""

    def __init__(self, pids: PidsFn, devices: list[int] | None = None) -> None:
        amd = self._amd = _load()
        err = getattr(amd, "AmdSmiException", Exception)
        try:
            amd.amdsmi_init()
            handles = list(amd.amdsmi_get_processor_handles())
        except err as e:
            raise SourceUnavailable("amdsmi", f"amdsmi could not start ({e})",
                                    hint="Is the amdgpu driver loaded? Try --source psutil.") from None
        self._handles = [(i, h) for i, h in enumerate(handles) if devices is None or i in devices]
        if not self._handles:
            self.close()
            raise SourceUnavailable("amdsmi", "amdsmi sees no GPU")
        self._names = {}
        for i, h in self._handles:
            try:
                self._names[i] = str(amd.amdsmi_get_gpu_asic_info(h).get("market_name") or f"AMD GPU {i}")
            except err:
                self._names[i] = f"AMD GPU {i}"
        self._err = err
        self._pids = pids
        self.info = SourceInfo(name="amdsmi", basis="process" if pids() is not None else "device")

    def read(self) -> Reading:
        amd = self._amd
        vram = amd.AmdSmiMemoryType.VRAM
        pids = self._pids()
        devices = []
        for i, h in self._handles:
            try:
                total = int(amd.amdsmi_get_gpu_memory_total(h, vram))
                used = int(amd.amdsmi_get_gpu_memory_usage(h, vram))
            except self._err as e:
                raise SourceUnavailable("amdsmi", f"GPU {i} could not be read ({e})") from None
            proc: int | None = None
            note = ""
            if pids is not None:
                try:
                    procs = amd.amdsmi_get_gpu_process_list(h)
                except self._err as e:
                    procs, note = None, f"its process list cannot be read ({e})"
                if procs is not None:
                    proc = 0
                    for p in procs:
                        if isinstance(p, dict) and int(p.get("pid", -1)) in pids:
                            proc += max(0, int((p.get("memory_usage") or {}).get("vram_mem", 0)))
            devices.append(DeviceReading(index=i, name=self._names[i], total_bytes=total, used_bytes=used,
                                         process_bytes=proc, process_note=note))
        return Reading(t_s=time.monotonic(), devices=tuple(devices),
                       basis="process" if pids is not None else "device")

    def close(self) -> None:
        try:
            self._amd.amdsmi_shut_down()
        except Exception:  # noqa: BLE001 - shutting down a library that already failed is not an error
            pass
