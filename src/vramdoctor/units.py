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
    """Bytes as 'x.xx GiB' for display, with thousands separators; '-' for None."""
    if n is None:
        return "-"
    return f"{n / GIB:,.2f} GiB"


def human(n: int | None) -> str:
    """Bytes as GiB, or MiB below 0.1 GiB (MiB = 2**20), for display."""
    if n is None:
        return "-"
    if abs(n) < GIB // 10:
        return f"{n / MIB:,.1f} MiB"
    return gib(n)


_DECIMAL = (("k", 10**3), ("m", 10**6), ("g", 10**9), ("t", 10**12), ("p", 10**15), ("e", 10**18))


def compact(x: float, width: int) -> str:
    """A count for a line that must stay short (the answer): exact with thousands separators (2 decimals for a
    fraction) when that takes at most `width` characters, else 3 significant digits with a decimal suffix as vLLM
    reads them (k = 10^3, m = 10^6, g = 10^9, ...: 1,048,576 -> '1.05m'). At most `width` characters for width >= 5
    and any x >= 0."""
    exact = f"{x:,.0f}" if float(x).is_integer() else f"{x:,.2f}"
    if len(exact) <= width:
        return exact
    for unit, scale in _DECIMAL:
        v = x / scale
        if v < 999.5:
            short = f"{v:.3g}" if v >= 1 else f"{v:.2f}"
            if len(short) + 1 <= width and "e" not in short:
                return short + unit
    return f"{x:.0e}".replace("+", "")[:width]


_BINARY = ("GiB", "TiB", "PiB", "EiB", "ZiB", "YiB")


def compact_gib(n: int, decimals: int = 2) -> str:
    """Bytes in GiB for a line that must stay short, the unit growing with them (TiB, PiB, ... YiB, all 2^10 apart)
    so that it takes at most 10 characters ('999.99 GiB', '5.08 EiB'); beyond YiB in powers of ten of YiB."""
    v = n / GIB
    for unit in _BINARY:
        if round(v, decimals) < 1000:
            return f"{v:.{decimals}f} {unit}"
        v /= 1024
    return f"{v:.0e} YiB".replace("+", "")


_TOKENS = re.compile(r"^\s*(\d+(?:\.\d+)?)([kKmM]?)\s*$")


def parse_tokens(text: str, *, option: str) -> int:
    """A token count as vLLM reads one (`human_readable_int` in vLLM's `arg_utils.py`): a lowercase
    suffix is decimal ('32k' -> 32,000), an uppercase one binary ('32K' -> 32,768, no decimals).
    Raises UsageError."""
    m = _TOKENS.match(str(text))
    if not m:
        raise UsageError(f"cannot read '{text}' as a token count.", option=option,
                         hint="Write it like 32768, 32K (32,768) or 32k (32,000), as vLLM reads them.")
    number, suffix = m.groups()
    if suffix in ("k", "m"):
        value = int(float(number) * (10**3 if suffix == "k" else 10**6))
    elif "." in number:
        raise UsageError(f"'{text}': decimals go with a decimal suffix (k, m) only.", option=option,
                         hint=f"Write {number}k or a whole number of K.")
    else:
        value = int(number) * {"": 1, "K": 2**10, "M": 2**20}[suffix]
    if value > 2**40:
        raise UsageError(f"'{text}' is more tokens than any model takes.", option=option)
    return value


#: memory sizes GPUs are sold with, in GB, which are GiB in fact (a "24 GB" RTX 4090 has 24 GiB)
_GIB_SIZES = (4, 6, 8, 10, 11, 12, 16, 20, 24, 32, 40, 48, 64, 80, 94, 96, 128, 141, 180, 192, 256, 288)


def gb_meant_as_gib(text: str) -> str | None:
    """A warning when a size in GB (10**9) is a GPU size that is really in GiB: '24GB' -> '24GiB'."""
    m = _RE.match(text)
    if not m or m.group(2).lower() not in ("g", "gb"):
        return None
    number = float(m.group(1))
    if number not in _GIB_SIZES:
        return None
    return (f"--gpu-memory {text} is {number * 10**9 / GIB:.2f} GiB (GB = 10^9 bytes); a GPU sold as "
            f"{number:g} GB has {number:g} GiB: write {number:g}GiB if that is what you mean.")
