"""NVIDIA GPUs through the `nvidia-smi` command, where the NVML library cannot be loaded from Python: the only
module that runs it.

Two CSV queries per reading (`nvidia-smi --help-query-gpu`, `--help-query-compute-apps`):
`--query-gpu=index,pci.bus_id,name,memory.total,memory.used --format=csv,noheader,nounits` and
`--query-compute-apps=gpu_bus_id,pid,used_memory --format=csv,noheader,nounits`. Memory columns are MiB
(2^20 bytes) with `nounits`; `[N/A]` (WDDM, MIG) is None. One call takes 20-200 ms, so readings come no
faster than that whatever the sampler's interval: the report shows the interval achieved.
"""

from __future__ import annotations

import shutil
import subprocess
import time

from ..errors import SourceUnavailable
from .reading import DeviceReading, PidsFn, Reading, SourceInfo

MIB = 2**20
#: a reading that takes longer than this is a hung driver, not a slow one
TIMEOUT_S = 10.0
#: the most rows a query may return (GPUs, processes): more is not nvidia-smi's output
MAX_ROWS = 4096

GPU_QUERY = ["--query-gpu=index,pci.bus_id,name,memory.total,memory.used", "--format=csv,noheader,nounits"]
APP_QUERY = ["--query-compute-apps=gpu_bus_id,pid,used_memory", "--format=csv,noheader,nounits"]


def _run(binary: str, args: list[str]) -> str:
    """One query's output (the one seam tests replace)."""
    try:
        done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise SourceUnavailable("nvidia-smi", f"`nvidia-smi {' '.join(args)}` did not answer in {TIMEOUT_S:.0f} s"
                                ) from None
    except OSError as e:
        raise SourceUnavailable("nvidia-smi", f"cannot run {binary} ({e.strerror})") from None
    if done.returncode != 0:
        first = (done.stdout + done.stderr).strip().splitlines()[:1]
        raise SourceUnavailable("nvidia-smi", f"nvidia-smi exited with {done.returncode}: "
                                f"{first[0] if first else 'no output'}")
    return done.stdout


def _mib(text: str) -> int | None:
    text = text.strip()
    try:
        v = float(text)
    except ValueError:  # [N/A], [Not Supported]
        return None
    return int(v * MIB) if v >= 0 else None


def parse_gpus(text: str) -> list[tuple[int, str, str, int | None, int | None]]:
    """(index, bus id, name, total bytes, used bytes) per row of the GPU query. Raises SourceUnavailable for
    output that is not the query's."""
    rows = []
    for line in text.strip().splitlines()[:MAX_ROWS]:
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 5:
            raise SourceUnavailable("nvidia-smi", f"cannot read its GPU line {line[:120]!r}")
        name = ",".join(parts[2:-2])  # a name may hold a comma
        try:
            index = int(parts[0])
        except ValueError:
            raise SourceUnavailable("nvidia-smi", f"cannot read its GPU line {line[:120]!r}") from None
        rows.append((index, parts[1].lower(), name, _mib(parts[-2]), _mib(parts[-1])))
    return rows


def parse_apps(text: str) -> list[tuple[str, int, int | None]]:
    """(bus id, pid, used bytes or None) per compute process."""
    rows = []
    for line in text.strip().splitlines()[:MAX_ROWS]:
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 3 or "No running" in line:
            continue
        try:
            rows.append((parts[0].lower(), int(parts[1]), _mib(parts[2])))
        except ValueError:
            continue
    return rows


class NvidiaSmiSource:
    """Every NVIDIA GPU through nvidia-smi. Raises SourceUnavailable when it is not on PATH or fails."""

    def __init__(self, pids: PidsFn, devices: list[int] | None = None, binary: str | None = None) -> None:
        found = binary or shutil.which("nvidia-smi")
        if not found:
            raise SourceUnavailable("nvidia-smi", "nvidia-smi is not on PATH",
                                    hint="Install the NVIDIA driver's tools, or choose another --source.")
        self._bin = found
        self._pids = pids
        self._devices = devices
        self.read()  # fail now, not in the sampler
        self.info = SourceInfo(name="nvidia-smi", basis="process" if pids() is not None else "device",
                               notes=("nvidia-smi takes 20-200 ms a call: readings come no faster",))

    def read(self) -> Reading:
        gpus = parse_gpus(_run(self._bin, GPU_QUERY))
        if self._devices is not None:
            gpus = [g for g in gpus if g[0] in self._devices]
        if not gpus:
            raise SourceUnavailable("nvidia-smi", "nvidia-smi lists no GPU")
        pids = self._pids()
        apps = parse_apps(_run(self._bin, APP_QUERY)) if pids is not None else []
        devices = []
        for index, bus, name, total, used in gpus:
            proc: int | None = None
            note = ""
            if pids is not None:
                mine = [b for bus_id, pid, b in apps if bus_id == bus and pid in pids]
                if any(b is None for b in mine):
                    note = "per-process memory is [N/A] here (WDDM or MIG): the device's use is shown"
                else:
                    proc = sum(b for b in mine if b is not None)
            devices.append(DeviceReading(index=index, name=name, total_bytes=total, used_bytes=used,
                                         process_bytes=proc, process_note=note, host=bus))
        return Reading(t_s=time.monotonic(), devices=tuple(devices),
                       basis="process" if pids is not None else "device")

    def close(self) -> None:
        return None
