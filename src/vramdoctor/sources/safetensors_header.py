"""safetensors headers: the pure parser and the local reader (header bytes only, never tensor data).

Format (safetensors spec): 8-byte little-endian header length N, then N bytes
of UTF-8 JSON mapping tensor name -> {dtype, shape, data_offsets: [begin, end]},
plus an optional "__metadata__" entry. A tensor's bytes are end - begin.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from ..errors import ModelSourceError

#: the safetensors reference implementation refuses headers above 100 MB.
MAX_HEADER_BYTES = 100_000_000


def header_length(prefix: bytes, *, path: str, file_size: int | None) -> int:
    """Header length N from the first 8 bytes. Raises ModelSourceError when truncated or absurd."""
    if len(prefix) < 8:
        raise ModelSourceError(f"is truncated: {len(prefix)} bytes, a safetensors file starts with 8.",
                               path=path, hint="Re-download the shard.")
    (n,) = struct.unpack("<Q", prefix[:8])
    if n > MAX_HEADER_BYTES:
        raise ModelSourceError(f"claims a {n}-byte header (limit {MAX_HEADER_BYTES}); not a safetensors file.",
                               path=path, hint="Re-download the shard; it is corrupt or not safetensors.")
    if file_size is not None and 8 + n > file_size:
        raise ModelSourceError(f"is truncated: its header needs {8 + n} bytes, the file has {file_size}.",
                               path=path, hint="Re-download the shard.")
    return n


def tensor_bytes(header: bytes, *, path: str) -> dict[str, int]:
    """Map tensor name -> bytes from the JSON header. Raises ModelSourceError when malformed."""
    try:
        data = json.loads(header.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ModelSourceError(f"has a malformed header ({e}).", path=path,
                               hint="Re-download the shard.") from None
    if not isinstance(data, dict):
        raise ModelSourceError("has a header that is not a JSON object.", path=path)
    out: dict[str, int] = {}
    for name, info in data.items():
        if name == "__metadata__":
            continue
        try:
            begin, end = info["data_offsets"]
            out[name] = int(end) - int(begin)
        except (TypeError, KeyError, ValueError):
            raise ModelSourceError(f"tensor '{name}' has no valid data_offsets.", path=path,
                                   field="data_offsets", hint="Re-download the shard.") from None
        if out[name] < 0:
            raise ModelSourceError(f"tensor '{name}' has negative size.", path=path, field="data_offsets")
    return out


def read_local(path: Path) -> dict[str, int]:
    """Tensor name -> bytes of one local .safetensors file, reading only its header."""
    p = str(path)
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            n = header_length(f.read(8), path=p, file_size=size)
            header = f.read(n)
    except OSError as e:
        raise ModelSourceError(f"cannot be read ({e.strerror}).", path=p) from None
    sizes = tensor_bytes(header, path=p)
    data_end = 8 + n + _data_end(header)
    if data_end > size:
        raise ModelSourceError(f"is truncated: its tensors end at byte {data_end}, the file has {size}.", path=p,
                               hint="Re-download the shard; the download stopped early.")
    return sizes


def _data_end(header: bytes) -> int:
    data = json.loads(header.decode("utf-8"))
    return max((int(v["data_offsets"][1]) for k, v in data.items() if k != "__metadata__"), default=0)
