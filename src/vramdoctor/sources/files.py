"""Reading a model's files: regular files only, every read capped by what the format allows.

A FIFO named `config.json` would block `read()` forever and a link to `/dev/zero` would never end, so
a file is opened non-blocking, checked with `fstat` to be a regular file, and refused when it is
larger than its format's cap. JSON is parsed with integers of more than `MAX_INT_DIGITS` digits and
nesting too deep for the parser refused as the file's fault, not ours.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from ..errors import ModelSourceError

MiB = 1 << 20
#: config.json, hf_quant_config.json: real ones are under 100 KiB (a vision tower's included)
CONFIG_MAX_BYTES = 8 * MiB
#: model.safetensors.index.json: one entry per tensor; DeepSeek-V3's (91k tensors) is under 9 MiB
INDEX_MAX_BYTES = 64 * MiB
#: an integer in a config counts layers, heads or tokens: 30 digits is far beyond any of them
MAX_INT_DIGITS = 30


def is_regular(path: Path) -> bool:
    """True when `path` (links followed) is a regular file; False for a FIFO, device, folder or nothing."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def open_regular(path: Path, *, what: str = "file"):
    """`path` opened for binary reading, after checking it is a regular file (opened with O_NONBLOCK, so a
    FIFO cannot block the check). Returns (file object, size in bytes). Raises ModelSourceError."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except (OSError, ValueError) as e:
        raise ModelSourceError(f"cannot be read ({getattr(e, 'strerror', None) or e}).", path=str(path),
                               hint="Check the path and its permissions.") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a folder" if stat.S_ISDIR(st.st_mode) else "a pipe" if stat.S_ISFIFO(st.st_mode)
                    else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "not a regular file")
            raise ModelSourceError(f"is {kind}, not a regular file.", path=str(path),
                                   hint=f"Pass the model's {what} itself (a regular file).")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), st.st_size
    except BaseException:
        os.close(fd)
        raise


def read_capped(path: Path, limit: int, *, what: str = "file") -> bytes:
    """All of a regular file of at most `limit` bytes. Raises ModelSourceError naming the size."""
    f, size = open_regular(path, what=what)
    with f:
        if size > limit:
            raise ModelSourceError(f"is {size:,} bytes, more than a {what} can be ({limit:,} bytes).", path=str(path),
                                   hint=f"Pass the model's {what}; this file is something else.")
        data = f.read(limit + 1)
    if len(data) > limit:  # it grew while being read
        raise ModelSourceError(f"is more than {limit:,} bytes.", path=str(path), hint=f"Pass the model's {what}.")
    return data


def _int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(digits)} digits")
    return int(text)


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: str, *, path: str) -> Any:
    """`text` parsed as JSON, with absurd integers, NaN/Infinity and nesting deeper than the parser can go
    refused. Raises ModelSourceError (json.JSONDecodeError's position when it has one)."""
    try:
        return json.loads(text, parse_int=_int, parse_constant=_constant)
    except json.JSONDecodeError as e:
        raise ModelSourceError(f"is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}.", path=path,
                               hint="Re-download the file or fix the syntax.") from None
    except RecursionError:
        raise ModelSourceError("is nested too deeply to be a model's JSON.", path=path,
                               hint="Re-download the file; this is not a config.") from None
    except ValueError as e:  # from _int / _constant
        raise ModelSourceError(f"holds {e}.", path=path, hint="Fix the value in the file.") from None
