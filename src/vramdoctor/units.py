"""Byte quantities: parsing what users type, formatting for display (GiB = 2**30, labelled)."""

from __future__ import annotations

import re

from .errors import UsageError

GIB = 2**30
MIB = 2**20

_UNITS = {
    "": 1, "b": 1,
    "k": 1000, "kb": 1000, "kib": 2**10,
    "m": 1000**2, "mb": 1000**2, "mib": 2**20,
    "g": 1000**3, "gb": 1000**3, "gib": 2**30,
    "t": 1000**4, "tb": 1000**4, "tib": 2**40,
}
_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*$")


def parse_bytes(text: str, *, option: str) -> int:
    """'24GiB' -> 25769803776, '80GB' -> 80e9, '1024' -> bytes. Raises UsageError."""
    m = _RE.match(text)
    unit = m.group(2).lower() if m else None
    if m and unit == "":
        raise UsageError(f"'{text}' has no unit.", option=option,
                         hint=f"Write {text}GiB (2**30 bytes) or {text}GB (10**9 bytes).")
    if not m or unit not in _UNITS:
        raise UsageError(f"cannot read '{text}' as a memory size.", option=option,
                         hint="Write it like 24GiB, 80GB or 16000MiB (GiB = 2**30 bytes, GB = 10**9).")
    value = int(float(m.group(1)) * _UNITS[unit])
    if value <= 0:
        raise UsageError("must be more than 0 bytes.", option=option)
    return value


def gib(n: int | None) -> str:
    """Bytes as 'x.xx GiB' for display; '-' for None."""
    if n is None:
        return "-"
    return f"{n / GIB:.2f} GiB"


def human(n: int | None) -> str:
    """Bytes as GiB, or MiB below 0.1 GiB (MiB = 2**20), for display."""
    if n is None:
        return "-"
    if abs(n) < GIB // 10:
        return f"{n / MIB:.1f} MiB"
    return gib(n)
