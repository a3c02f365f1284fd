"""Process listings a user pasted beside a log (`ps`, `top`), read as snapshots: the resident memory of each process
in each snapshot. One snapshot of many processes is a list, not a series; the same process in several snapshots
(a `ps` run now, two hours later, three hours later) is a series over time, which `quiet.leak` reads.

The columns are named by the listing's own header: `ps` (procps: USER PID %CPU %MEM VSZ RSS TTY STAT START TIME
COMMAND, or the columns of `ps -o`), `top` (PID USER PR NI VIRT RES SHR S %CPU %MEM TIME+ COMMAND). Their units are
the tools' own: ps prints RSS and VSZ in KiB (ps(1): "resident set size ... in kilobytes"), top prints RES and VIRT
in KiB unless a value carries its scale (`5.1g`, `812.4m`). `ps aux` rows pasted without their header (`ps aux |
grep vllm`) are read by the shape of ps's BSD listing. Pure: text in, a header or a row out."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: the column names of ps (procps) and top headers
_NAMES = {"USER", "UID", "PID", "PPID", "PGID", "SID", "LWP", "SPID", "TID", "NLWP", "%CPU", "%MEM", "CPU", "MEM",
          "VSZ", "VSIZE", "VIRT", "RSS", "RSZ", "RES", "SHR", "SZ", "TTY", "TT", "STAT", "S", "START", "STARTED",
          "STIME", "TIME", "TIME+", "ELAPSED", "ETIME", "COMMAND", "CMD", "ARGS", "COMM", "PR", "PRI", "NI", "F", "C",
          "WCHAN", "ADDR", "PSR", "SWAP", "DATA", "CODE", "USED"}
#: resident memory first; the address space only where a listing has no resident column
_RESIDENT = ("RSS", "RSZ", "RES")
_VIRTUAL = ("VSZ", "VSIZE", "VIRT")
_VALUE = re.compile(r"^(\d+(?:\.\d+)?)([kKmMgGtTpP]?)$")
_SCALE = {"": 1, "k": 1, "m": 2**10, "g": 2**20, "t": 2**30, "p": 2**40}  # in KiB
#: a row of `ps aux` (BSD form) without its header: USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND
_AUX_ROW = re.compile(r"^\s*[\w.+-]{1,32}\s+(\d+)\s+\d+(?:\.\d+)?\s+\d+(?:\.\d+)?\s+(\d+)\s+(\d+)\s+\S+\s+\S+\s+"
                      r"[\w:]+\s+[\d:.]+\s+(\S.*)$")


@dataclass(frozen=True)
class Header:
    """A listing's header: the columns of the process id, the memory read (resident if shown), the thread id (a
    listing of threads), the command; `memory` names the column read (RSS, RES, VSZ, ...)."""

    columns: int
    pid: int
    mem: int
    memory: str
    lwp: int | None = None
    command: int | None = None


def header(text: str) -> Header | None:
    """The header of a ps or top listing, else None: every cell a column name those tools print, a PID column and
    a memory column."""
    cells = text.split()
    if not 2 <= len(cells) <= 24 or not all(c in _NAMES for c in cells) or "PID" not in cells:
        return None
    mem = next((c for c in _RESIDENT if c in cells), None) or next((c for c in _VIRTUAL if c in cells), None)
    if mem is None:
        return None
    lwp = next((cells.index(c) for c in ("LWP", "SPID", "TID") if c in cells), None)
    command = next((cells.index(c) for c in ("COMMAND", "CMD", "ARGS", "COMM") if c in cells), None)
    return Header(columns=len(cells), pid=cells.index("PID"), mem=cells.index(mem), memory=mem, lwp=lwp,
                  command=command)


def kib_to_bytes(value: str) -> int | None:
    """A ps or top memory cell in bytes ("6284616" KiB, "5.1g"); None for a cell that is no size (a bare decimal
    is top scaled by `-e`, whose unit the row does not say)."""
    m = _VALUE.match(value)
    if not m or "." in m.group(1) and not m.group(2):
        return None
    return int(float(m.group(1)) * _SCALE[m.group(2).lower()] * 1024)


def row(text: str, h: Header) -> tuple[str, int, str] | None:
    """(the process's key: its pid, with the thread id in a listing of threads; its memory in bytes; its command)
    for a row under header `h`, else None (the listing ended)."""
    cells = text.split(None, h.columns - 1)
    if len(cells) < h.columns - (1 if h.command == h.columns - 1 else 0):
        return None
    pid = cells[h.pid] if h.pid < len(cells) else ""
    if not pid.isdigit() or h.mem >= len(cells):
        return None
    size = kib_to_bytes(cells[h.mem])
    if size is None:
        return None
    key = pid if h.lwp is None or h.lwp >= len(cells) else f"{pid}/{cells[h.lwp]}"
    command = cells[h.command] if h.command is not None and h.command < len(cells) else ""
    return key, size, command[:80]


#: a monitor's row of one process or container over time: nvidia-smi's per-process query (`--query-compute-apps=pid,
#: process_name,used_memory --format=csv,noheader`, MiB) with the time a user's loop put first ("2025-07-13 21:05:01,
#: 305522, /usr/local/bin/ollama, 1512 MiB"), and `docker stats`' row (CONTAINER ID, NAME, CPU %, MEM USAGE / LIMIT,
#: MEM %: "7c2e9d41b0af   vl-ocr   214.3%    13.92GiB / 64GiB   21.75%"; a `--format "table {{.Name}}\t{{.CPUPerc}}\t
#: {{.MemUsage}}"` row starts at the name, "vllm-vl   187.31%   11.42GiB / 64GiB"), a time or a note around it
_APPS_ROW = re.compile(r"^\s*\d{4}[-/]\d\d[-/]\d\d[ T]\d\d:\d\d(?::\d\d)?(?:\.\d+)?,\s*(\d+),\s*([^,\n]{1,200}),\s*(\d+)\s*MiB\s*$")
_STATS_ROW = re.compile(r"(?:\b([0-9a-f]{12})\s+)?(?<![\w.-])([A-Za-z][\w.-]{0,127})\s+\d+(?:\.\d+)?%\s+(\d+(?:\.\d+)?)\s?"
                        r"([KMGT]i?B)\s+/\s+\d+(?:\.\d+)?\s?[KMGT]i?B(?:\s+\d+(?:\.\d+)?%|\s*$)")
#: ... and `kubectl top pod`'s row (NAME, CPU(cores), MEMORY(bytes); with --all-namespaces the namespace first:
#: "vllm-deployment-router-7d9f8c6b6d-hq2lp   212m   1184Mi"): a pod's memory, in Kubernetes' binary suffixes
_TOP_ROW = re.compile(r"^\s*(?:[a-z0-9][a-z0-9-]{0,62}\s+)?([a-z0-9][a-z0-9.-]{0,252})\s+\d+m\s+(\d+)(Ki|Mi|Gi|Ti)\s*$")
_UNIT = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
#: a process row of nvidia-smi's table (GPU, GI, CI, PID, Type, Process name, GPU Memory Usage: "|    0   N/A  N/A
#: 1834      C   /opt/lmdeploy/venv/bin/python3                73204MiB |"): one table after another is a series per
#: process on its GPU
_SMI_ROW = re.compile(r"^\s*\|\s+(\d+)\s+(?:N/A|\d+)\s+(?:N/A|\d+)\s+(\d+)\s+(?:C|G|C\+G|M|M\+C)\s+(\S.{0,120}?)\s+"
                      r"(\d+)\s*MiB\s*\|\s*$")
#: ... and gpustat's row of a GPU (gpustat/core.py print_to: "[0] NVIDIA GeForce RTX 4090 | 41°C,   0 % | 11212 / 24564
#: MB | ollama(11020M)"; its "MB" and each process's "M" are MiB, NVML's bytes // 2**20), its processes last, each
#: "name(NNNNM)" or with -p/-c "user:command/pid(NNNNM)"
_GPUSTAT_ROW = re.compile(r"^\s*\[(\d+)\]\s+[^|\n]{1,120}\|[^|\n]{0,60}%\s*\|\s*(\d+)\s*/\s*\d+\s*MB\s*\|([^\n]{0,2000})$")
_GPUSTAT_PROCESS = re.compile(r"([^\s()]{1,200})\((\d+)M\)")


def monitor_row(text: str) -> tuple[str, int, str] | None:
    """(process or container, bytes, its name) of a monitor's row over time (`_APPS_ROW`, `_SMI_ROW`: GPU memory,
    `_STATS_ROW`: a container's memory, `_TOP_ROW`: a pod's), else None. docker prints binary units (GiB, MiB) and, in older releases, GB/MB for them too."""
    if "B" not in text:  # (every row holds a size's unit: most lines of a log are passed over at once)
        m = _TOP_ROW.match(text) if text.rstrip().endswith("i") else None
        return (m.group(1), int(m.group(2)) * _UNIT[m.group(3)[0]], m.group(1)) if m else None
    if "MiB" in text:
        m = _APPS_ROW.match(text) or _SMI_ROW.match(text)
        if m and m.re is _APPS_ROW:
            return m.group(1), int(m.group(3)) * 2**20, m.group(2).strip()[:80]
        if m:
            return f"{m.group(2)} on GPU {m.group(1)}", int(m.group(4)) * 2**20, m.group(3)[:80]
    if " MB" in text and text.lstrip().startswith("["):
        m = _GPUSTAT_ROW.match(text)
        if m:  # (the largest process the row lists, on its GPU; the GPU's whole use where it lists none)
            procs = [(int(p.group(2)), p.group(1)) for p in _GPUSTAT_PROCESS.finditer(m.group(3))]
            if procs:
                size, name = max(procs)
                return f"{name} on GPU {m.group(1)}", size * 2**20, name[:80]
            return f"GPU {m.group(1)}", int(m.group(2)) * 2**20, f"GPU {m.group(1)}"
    if " / " in text and "%" in text:
        m = _STATS_ROW.search(text)
        if m:  # (keyed by its container id, or its name where the row has none)
            return m.group(1) or m.group(2), int(float(m.group(3)) * _UNIT[m.group(4)[0]]), m.group(2)
    return None


def aux_row(text: str) -> tuple[str, int, str] | None:
    """(pid, resident bytes, command) of a `ps aux` row pasted without its header, else None."""
    m = _AUX_ROW.match(text)
    if not m:
        return None
    return m.group(1), int(m.group(3)) * 1024, m.group(4)[:80]
