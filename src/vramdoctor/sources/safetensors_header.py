"""safetensors headers: the pure parser and the local reader (header bytes only, never tensor data).

Format (safetensors spec): 8-byte little-endian header length N, then N bytes
of UTF-8 JSON mapping tensor name -> {dtype, shape, data_offsets: [begin, end]},
plus an optional "__metadata__" entry. A tensor's bytes are end - begin.
"""

from __future__ import annotations

import struct
from pathlib import Path

from ..errors import ModelSourceError
from .files import open_regular, parse_json

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


def _tensors(header: bytes, *, path: str) -> dict[str, tuple[int, int]]:
    """Tensor name -> (begin, end) byte offsets from the JSON header. Raises ModelSourceError when malformed."""
    try:
        data = parse_json(header.decode("utf-8"), path=path)
    except UnicodeDecodeError as e:
        raise ModelSourceError(f"has a malformed header ({e}).", path=path, hint="Re-download the shard.") from None
    if not isinstance(data, dict):
        raise ModelSourceError("has a header that is not a JSON object.", path=path)
    out: dict[str, tuple[int, int]] = {}
    for name, info in data.items():
        if name == "__metadata__":
            continue
        offsets = info.get("data_offsets") if isinstance(info, dict) else None
        if not (isinstance(offsets, list) and len(offsets) == 2
                and all(isinstance(o, int) and not isinstance(o, bool) and o >= 0 for o in offsets)):
            raise ModelSourceError(f"tensor '{name}' has no valid data_offsets.", path=path,
                                   field="data_offsets", hint="Re-download the shard.")
        begin, end = offsets
        if end < begin:
            raise ModelSourceError(f"tensor '{name}' has negative size.", path=path, field="data_offsets")
        out[name] = (begin, end)
    return out


def tensor_bytes(header: bytes, *, path: str) -> dict[str, int]:
    """Map tensor name -> bytes (end - begin of `data_offsets`) from the JSON header. Raises ModelSourceError
    when malformed."""
    return {name: end - begin for name, (begin, end) in _tensors(header, path=path).items()}


def read_local(path: Path) -> dict[str, int]:
    """Tensor name -> bytes of one local .safetensors file, reading only its header."""
    p = str(path)
    f, size = open_regular(path, what="safetensors shard")
    try:
        with f:
            n = header_length(f.read(8), path=p, file_size=size)
            header = f.read(n)
    except OSError as e:
        raise ModelSourceError(f"cannot be read ({e.strerror}).", path=p) from None
    offsets = _tensors(header, path=p)
    data_end = 8 + n + max((end for _, end in offsets.values()), default=0)
    if data_end > size:
        raise ModelSourceError(f"is truncated: its tensors end at byte {data_end}, the file has {size}.", path=p,
                               hint="Re-download the shard; the download stopped early.")
    return {name: end - begin for name, (begin, end) in offsets.items()}
