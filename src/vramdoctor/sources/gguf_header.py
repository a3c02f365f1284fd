"""GGUF headers: the pure parser. The bytes of a whole file (`bytes`, `memoryview` or an `mmap`) in, its
key/values and tensor infos out. Tensor data is never read, so a 100 GB file costs what its header costs.

Format: ggml `docs/gguf.md` ("File Structure"), as llama.cpp reads it (`ggml/src/gguf.cpp`
`gguf_init_from_file_impl`), with the value types of gguf-py `gguf/constants.py` (`GGUFValueType`):

    magic         4 bytes   b"GGUF"
    version       uint32    2 or 3 (version 1 had uint32 counts and lengths: refused, as llama.cpp refuses it)
    tensor_count  uint64
    kv_count      uint64
    kv_count x    key (string), value type (uint32, GGUFValueType), value
    tensor_count x  name (string), n_dims (uint32, at most GGML_MAX_DIMS = 4), ne (n_dims x uint64, ne[0]
                  the row), type (uint32, enum ggml_type), offset (uint64, bytes from the data start)
    padding       to `general.alignment` (a uint32 power of two; GGUF_DEFAULT_ALIGNMENT = 32 when absent)
    tensor data   each tensor at data start + offset, ggml_nbytes long

A string is a uint64 byte length and that many UTF-8 bytes (no NUL); an array is an item type (uint32),
a count (uint64) and the items, which may be arrays (gguf.md allows it; llama.cpp refuses such files).
Numbers are little-endian; a file whose version reads with its low 16 bits zero is big-endian (GGUF v3
allows it; gguf-py `GGUFReader` tells it the same way) and is read as such.

Every count and length is checked against the bytes left in the file before it is used: a 19 KB file
whose array claims 2**62 elements is an error at once, not a loop. Errors are `GGUFFormatError` (a
`ModelSourceError`: exit 2 in the CLI) naming the file, the key or tensor, and the byte offset.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import GGUFFormatError
from ..gguf_formats import GGML_TYPES, GgmlType

MAGIC = b"GGUF"
VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32  #: GGUF_DEFAULT_ALIGNMENT, bytes.
MAX_DIMS = 4  #: GGML_MAX_DIMS.
#: Numeric arrays up to this many items are read (per-layer arrays have block_count <= 4096 items);
#: longer ones (a tokenizer's scores and token types) are stepped over, as are all string arrays.
MAX_ARRAY_ITEMS = 16384
MAX_ARRAY_DEPTH = 8  #: arrays of arrays nested deeper than this are refused.

#: GGUFValueType -> (name, struct code, bytes). STRING and ARRAY are variable-sized.
SCALARS = {0: ("uint8", "B", 1), 1: ("int8", "b", 1), 2: ("uint16", "H", 2), 3: ("int16", "h", 2),
           4: ("uint32", "I", 4), 5: ("int32", "i", 4), 6: ("float32", "f", 4), 7: ("bool", "?", 1),
           10: ("uint64", "Q", 8), 11: ("int64", "q", 8), 12: ("float64", "d", 8)}
STRING, ARRAY = 8, 9
_GGML_BY_ID = {t.type_id: t for t in GGML_TYPES.values()}
_INT64_MAX = 2**63 - 1
_HINT = "Re-download the file, or convert it again with a current llama.cpp."


@dataclass(frozen=True, kw_only=True)
class SkippedArray:
    """An array value stepped over, not read: every string array (a tokenizer's tokens and merges), numeric
    arrays of more than MAX_ARRAY_ITEMS items, and arrays of arrays holding either."""

    item_type: str  #: GGUF value type of the items: "string", "float32", "array", ...
    count: int  #: items, as the file states it.
    offset: int  #: byte of the file where the array (its item type) starts.
    nbytes: int  #: bytes of the items, after the 12-byte item type and count.


@dataclass(frozen=True, kw_only=True)
class TensorInfo:
    """One tensor info (gguf.md `gguf_tensor_info_t`)."""

    name: str  #: as stored: llama.cpp's names (token_embd.weight, blk.N.attn_q.weight, ...).
    shape: tuple[int, ...]  #: ne in ggml order, ne[0] (the row) first; () for a 0-dim tensor.
    ggml_type: GgmlType  #: from the stored enum ggml_type id (gguf_formats.GGML_TYPES).
    offset: int  #: bytes from the data start (GGUFHeader.data_offset) to its first byte.
    nbytes: int  #: ggml_nbytes: rows x ggml_row_size(type, ne[0]), bytes, unpadded.

    def padded_bytes(self, alignment: int) -> int:
        """nbytes rounded up to `alignment`: what the file and llama.cpp's model buffer give it."""
        return -(-self.nbytes // alignment) * alignment


@dataclass(frozen=True, kw_only=True)
class GGUFHeader:
    """A parsed GGUF header. Values are int, float, bool, str, list (numeric arrays; arrays of arrays as
    nested lists) or SkippedArray; strings that are not UTF-8 are decoded with U+FFFD replacements."""

    version: int  #: GGUF version, 2 or 3.
    big_endian: bool
    kv: dict[str, Any]  #: key -> value, in file order.
    tensors: tuple[TensorInfo, ...]  #: in file order.
    alignment: int  #: general.alignment, or 32; bytes.
    data_offset: int  #: byte where tensor data starts: the end of the tensor infos rounded up to alignment.
    file_bytes: int  #: size of the file parsed.


def parse_header(buf: Any, *, path: str, release: Callable[[int, int], None] | None = None) -> GGUFHeader:
    """Parse the GGUF in `buf` (the whole file: its length is the file's size). Pure: `release(start, end)`,
    when given, is told of each stretch of a string array (65,536 strings) it has stepped over, which the reader
    of a memory-mapped file can drop from memory (a 2-million-token tokenizer is 80 MB of strings).

    Raises GGUFFormatError (a ModelSourceError) for: not a GGUF (bad magic); version 1 or above 3; any count,
    length or tensor that runs past the end of the file (a truncated or corrupt file, or a truncated
    download: tensor data that ends past the end of the file); a duplicate key or tensor name; an unknown
    value type; arrays nested deeper than MAX_ARRAY_DEPTH; more than 4 dimensions, a dimension or element
    count above int64; an unknown ggml type id; rows not a multiple of the type's block; a
    `general.alignment` that is not a uint32 power of two. Not checked (llama.cpp checks them): that
    tensor offsets are aligned and contiguous, and that names are shorter than GGML_MAX_NAME (64)."""
    return _Parser(buf, path, release).parse()


def _ranges(ids: list[int]) -> str:
    """[0, 1, 2, 6, 7] -> "0-2, 6-7"."""
    runs: list[list[int]] = []
    for i in ids:
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in runs)


def _items(value: list) -> int:
    """Values and lists inside a read (nested) array."""
    return sum(1 + _items(v) if isinstance(v, list) else 1 for v in value)


class _Parser:
    def __init__(self, buf: Any, path: str, release: Callable[[int, int], None] | None) -> None:
        self.buf, self.path, self.size, self.release = buf, path, len(buf), release
        self.end = "<"

    def error(self, what: str, offset: int, field: str | None = None, hint: str = _HINT) -> GGUFFormatError:
        return GGUFFormatError(f"is a truncated or corrupt GGUF file: {what} (at byte {offset:,}).", path=self.path,
                               field=field, offset=offset, hint=hint)

    def need(self, off: int, n: int, what: str, field: str | None, at: int | None = None) -> None:
        """`n` bytes must remain at `off`; else an error at `at` (the count or length that asked), or `off`."""
        if n > self.size - off:
            raise self.error(f"{what} needs {n:,} bytes, and only {max(self.size - off, 0):,} remain",
                             off if at is None else at, field)

    def unpack(self, code: str, off: int, what: str, field: str | None) -> tuple:
        self.need(off, struct.calcsize(code), what, field)
        return struct.unpack_from(self.end + code, self.buf, off)

    def string(self, off: int, what: str, field: str | None) -> tuple[str, int]:
        (n,) = self.unpack("Q", off, f"the length of {what}", field)
        self.need(off + 8, n, f"{what} (a string)", field, at=off)
        return str(self.buf[off + 8:off + 8 + n], "utf-8", "replace"), off + 8 + n

    def parse(self) -> GGUFHeader:
        head = bytes(self.buf[:4])
        if head != MAGIC:
            raise GGUFFormatError(f"is not a GGUF file (starts with {head!r}, expected b'GGUF').", path=self.path,
                                  offset=0, hint="Pass a .gguf model file.")
        (version,) = self.unpack("I", 4, "the version", None)
        big = version != 0 and version & 0xFFFF == 0
        if big:
            self.end = ">"
            version = int.from_bytes(version.to_bytes(4, "little"), "big")
        if version == 1:
            raise GGUFFormatError("is a GGUF version 1 file (2023; 32-bit counts), which llama.cpp no longer reads.",
                                  path=self.path, offset=4, hint="Convert the model again with a current llama.cpp.")
        if version not in VERSIONS:
            raise GGUFFormatError(f"is GGUF version {version:,}; vramdoctor reads versions 2 and 3.", path=self.path,
                                  offset=4, hint="Update vramdoctor if a newer llama.cpp wrote the file; otherwise "
                                                 "it is corrupt: re-download it.")
        n_tensors, n_kv = self.unpack("QQ", 8, "the tensor and key/value counts", None)
        off, left = 24, self.size - 24
        # a key/value takes at least 13 bytes (key length, value type, one byte), a tensor info 24
        if n_kv > left // 13 or n_tensors > left // 24:
            raise self.error(f"it claims {n_kv:,} key/values and {n_tensors:,} tensor infos, which {left:,} bytes "
                             "cannot hold", 8)
        kv: dict[str, Any] = {}
        align_at = align_type = None
        for i in range(n_kv):
            start = off
            key, off = self.string(off, f"key {i:,}", None)
            if key in kv:
                raise self.error(f"key '{key}' appears twice", start, key)
            (vtype,) = self.unpack("I", off, "its value type", key)
            if key == "general.alignment":
                align_at, align_type = start, vtype
            kv[key], off = self.value(vtype, off + 4, key)
        alignment = DEFAULT_ALIGNMENT if align_at is None else self.alignment(kv, align_at, align_type)
        tensors = []
        seen: set[str] = set()
        for i in range(n_tensors):
            start = off
            name, off = self.string(off, f"the name of tensor {i:,}", None)
            if name in seen:
                raise self.error(f"tensor '{name}' appears twice", start, name)
            seen.add(name)
            t, off = self.tensor(name, off)
            tensors.append(t)
        data_offset = -(-off // alignment) * alignment
        self.check_data(tensors, data_offset)
        return GGUFHeader(version=version, big_endian=big, kv=kv, tensors=tuple(tensors), alignment=alignment,
                          data_offset=data_offset, file_bytes=self.size)

    def value(self, vtype: int, off: int, key: str) -> tuple[Any, int]:
        if vtype in SCALARS:
            name, code, width = SCALARS[vtype]
            return self.unpack(code, off, f"its {name} value", key)[0], off + width
        if vtype == STRING:
            return self.string(off, "its value", key)
        if vtype == ARRAY:
            return self.array(off, key, 0)
        raise self.error(f"value type {vtype:,} is not a GGUF value type (0-12, gguf-py GGUFValueType)", off - 4, key)

    def array(self, start: int, key: str, depth: int) -> tuple[Any, int]:
        itype, n = self.unpack("IQ", start, "the array's item type and count", key)
        off = start + 12
        left = self.size - off
        if itype in SCALARS:
            name, code, width = SCALARS[itype]
            self.need(off, n * width, f"its array of {n:,} {name} values", key, at=start + 4)
            if n <= MAX_ARRAY_ITEMS:
                return list(struct.unpack_from(f"{self.end}{n}{code}", self.buf, off)), off + n * width
            return SkippedArray(item_type=name, count=n, offset=start, nbytes=n * width), off + n * width
        if itype == STRING:
            end = self.skip_strings(off, n, key)
            return SkippedArray(item_type="string", count=n, offset=start, nbytes=end - off), end
        if itype != ARRAY:
            raise self.error(f"array item type {itype:,} is not a GGUF value type (0-12)", start, key)
        if depth + 1 >= MAX_ARRAY_DEPTH:
            raise self.error(f"arrays nest more than {MAX_ARRAY_DEPTH} deep", start, key)
        if n > left // 12:  # each inner array has a 12-byte item type and count
            raise self.error(f"its array of {n:,} arrays needs at least {12 * n:,} bytes, and only {left:,} remain",
                             start + 4, key)
        items: list | None = [] if n <= MAX_ARRAY_ITEMS else None
        total = 0
        for _ in range(n):
            value, off = self.array(off, key, depth + 1)
            if items is not None:
                total += 1 + (_items(value) if isinstance(value, list) else MAX_ARRAY_ITEMS)
                if total > MAX_ARRAY_ITEMS:
                    items = None
                else:
                    items.append(value)
        if items is not None:
            return items, off
        return SkippedArray(item_type="array", count=n, offset=start, nbytes=off - start - 12), off

    def skip_strings(self, off: int, n: int, key: str) -> int:
        """The end of `n` strings at `off`: each one's uint64 length read, its bytes stepped over."""
        size, buf = self.size, self.buf
        if n > (size - off) // 8:
            raise self.error(f"its array of {n:,} strings needs at least {8 * n:,} bytes, and only "
                             f"{max(size - off, 0):,} remain", off - 8, key)
        length = struct.Struct(self.end + "Q").unpack_from
        first, last, done = off, size - 8, 0
        while done < n:
            chunk = min(n - done, 1 << 16)
            start = off
            for _ in range(chunk):  # the hot loop: 2 million strings in ~0.1 s; each offset checked before use
                if off > last:
                    break
                off += 8 + length(buf, off)[0]
            else:
                done += chunk
                if self.release is not None and off <= size:
                    self.release(start, off)
                continue
            break
        if done == n and off <= size:
            return off
        off = first  # find the string that runs past the end, to name it
        for i in range(n):
            (ln,) = self.unpack("Q", off, f"the length of string {i:,} of its array of {n:,}", key)
            self.need(off + 8, ln, f"string {i:,} of its array of {n:,}", key, at=off)
            off += 8 + ln
        raise AssertionError("unreachable: the strings fit")  # pragma: no cover

    def alignment(self, kv: dict[str, Any], at: int, vtype: int) -> int:
        a = kv["general.alignment"]
        if vtype != 4 or a <= 0 or a & (a - 1):
            kind = SCALARS.get(vtype, ("string" if vtype == STRING else "array",))[0]
            raise self.error(f"general.alignment is the {kind} {repr(a)[:40]}; it must be a uint32 power of two (gguf.md)",
                             at, "general.alignment")
        return a

    def tensor(self, name: str, off: int) -> tuple[TensorInfo, int]:
        (n_dims,) = self.unpack("I", off, "its dimension count", name)
        if n_dims > MAX_DIMS:
            raise self.error(f"tensor '{name}' has {n_dims:,} dimensions; ggml allows at most {MAX_DIMS} "
                             "(GGML_MAX_DIMS)", off, name)
        *ne, type_id, offset = self.unpack(f"{n_dims}QIQ", off + 4, "its dimensions, type and offset", name)
        elements = 1
        for d in ne:
            elements *= d
        if any(d > _INT64_MAX for d in ne) or elements > _INT64_MAX:
            raise self.error(f"tensor '{name}' has shape {tuple(ne)}: more elements than ggml's int64 holds", off + 4,
                             name)
        t = _GGML_BY_ID.get(type_id)
        if t is None:
            raise GGUFFormatError(
                f"tensor '{name}' has ggml type {type_id:,}, which vramdoctor does not know (it knows ids "
                f"{_ranges(sorted(_GGML_BY_ID))} of ggml.h's enum ggml_type).", path=self.path,
                field=name, offset=off + 4 + 8 * n_dims,
                hint="If a newer llama.cpp wrote the file, update vramdoctor; otherwise re-download it.")
        ne0 = ne[0] if ne else 1
        if ne0 % t.block_elems:
            raise self.error(f"tensor '{name}' has rows of {ne0:,} values, not a multiple of the {t.name} block "
                             f"({t.block_elems})", off + 4, name)
        end = off + 4 + 8 * n_dims + 12
        return TensorInfo(name=name, shape=tuple(ne), ggml_type=t, offset=offset,
                          nbytes=elements // t.block_elems * t.block_bytes), end

    def check_data(self, tensors: list[TensorInfo], data_offset: int) -> None:
        """Every tensor's data lies inside the file; else the file is a cut download (llama.cpp's loader
        refuses it: "tensor data is not within the file bounds")."""
        cut = [t for t in tensors if data_offset + t.offset + t.nbytes > self.size]
        if cut:
            need = max(data_offset + t.offset + t.nbytes for t in cut)
            raise GGUFFormatError(
                f"is truncated: tensor '{cut[0].name}' ends at byte {data_offset + cut[0].offset + cut[0].nbytes:,} "
                f"and the file has {self.size:,} bytes ({len(cut):,} of {len(tensors):,} tensors cut, "
                f"{need - self.size:,} bytes missing).", path=self.path, field=cut[0].name, offset=self.size,
                hint="The download is incomplete: download the file again (llama.cpp refuses it too).")
