"""What a file is, from its first bytes: a model file, an executable, an archive, a binary, or text in UTF-8,
UTF-16 or UTF-32. Pure: bytes in, a name or an encoding out."""

from __future__ import annotations

import codecs
import re
import struct

#: first bytes of files that are not logs, and what they are
MAGIC = [
    (b"GGUF", "a GGUF model file"),
    (b"\x7fELF", "an ELF executable"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x93NUMPY", "a NumPy array"),
    (b"\x89HDF", "an HDF5 file"),
    (b"BZh", "a bzip2 archive"),
    (b"\xfd7zXZ", "an xz archive"),
    (b"\x28\xb5\x2f\xfd", "a zstd archive"),
    (b"7z\xbc\xaf", "a 7-zip archive"),
    (b"%PDF-", "a PDF document"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
    (b"MZ", "a Windows executable"),
    (b"\x1f\x8b", "a gzip file compressed twice"),  # seen only inside a gzip: a plain one is opened as gzip
]
ARCHIVES = ("archive", "compressed twice")


def is_binary(head: bytes) -> bool:
    """Many control bytes, or bytes that are not UTF-8. NUL bytes do not count: a logrotate copytruncate hole
    is NULs before the text of a log, however long (a device of zeros is refused as no regular file)."""
    text = head.replace(b"\x00", b"")
    if not text:
        return False
    control = sum(1 for c in text if c < 9 or 13 < c < 32 or c == 127)
    bad = text.decode("utf-8", errors="replace").count("\ufffd")
    return control > len(text) * 0.2 or bad > len(text) * 0.1


def what_binary(head: bytes) -> str | None:
    """What a file that is not a log is, from its first bytes (None: it may be a log)."""
    if head.startswith(b"PK\x03\x04"):  # a zip: its first member's name (local file header, offset 30) tells
        # a PyTorch checkpoint ("archive/data.pkl", "model/data.pkl", "*/version") from an archive of anything else
        (n,) = struct.unpack("<H", head[26:28]) if len(head) >= 30 else (0,)
        first = head[30:30 + n].decode("utf-8", "replace")
        if re.search(r"(?:^|/)(?:data\.pkl|version|data/\d+|byteorder)$", first):
            return "a PyTorch checkpoint (a zip archive)"
        return "a zip archive"
    for magic, name in MAGIC:
        if head.startswith(magic):
            return name
    if len(head) >= 10:  # safetensors: a little-endian u64 header length, then a JSON object
        (n,) = struct.unpack("<Q", head[:8])
        if 2 <= n <= 100 * 2**20 and head[8:10] in (b'{"', b"{ ", b"{\n"):
            return "a safetensors model file"
    if head[257:262] == b"ustar":  # POSIX tar: the magic of the first member's header
        return "a tar archive"
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "a Python pickle (a PyTorch checkpoint)"
    return None


#: keys of a model's JSON description (config.json, a safetensors index), as JSON writes them
_MODEL_KEYS = re.compile(rb'"(architectures|model_type|num_hidden_layers|hidden_size|num_attention_heads|torch_dtype|'
                         rb'n_layer|n_embd|weight_map)"\s*:')


def what_json(head: bytes) -> str | None:
    """A model's JSON description from its first bytes (a BOM allowed): one JSON document opening with `{` that names
    at least two of a config's keys, or a safetensors index's `weight_map`. A JSON-lines log (every line an object of
    its own, some naming a model's type) is not one."""
    body = head[3:] if head.startswith(codecs.BOM_UTF8) else head
    if not body.lstrip().startswith(b"{"):
        return None
    if sum(1 for line in body.split(b"\n") if line.startswith(b"{")) >= 2:
        return None  # one object per line: a structured log
    keys = set(_MODEL_KEYS.findall(body))
    if b"weight_map" in keys:
        return "a safetensors index (a model's JSON description)"
    return "a model's config.json (a JSON description of the model)" if len(keys) >= 2 else None


def text_encoding(head: bytes) -> str | None:
    """UTF-32 and UTF-16 by their BOM, or by where the zero bytes of ASCII text fall (PowerShell writes UTF-16LE)."""
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    body = head.lstrip(b"\x00") if head[:1] == b"\x00" and head[1:2] == b"\x00" else head
    quads = [body[i::4][:256] for i in range(4)]
    if len(quads[3]) > 8 and quads[1].count(0) > 0.9 * len(quads[1]) and quads[2].count(0) > 0.9 * len(quads[2]):
        if quads[3].count(0) > 0.9 * len(quads[3]) and quads[0].count(0) < 0.1 * len(quads[0]):
            return "utf-32-le"
        if quads[0].count(0) > 0.9 * len(quads[0]) and quads[3].count(0) < 0.1 * len(quads[3]):
            return "utf-32-be"
    even, odd = head[0::2][:512], head[1::2][:512]
    if len(odd) > 16 and odd.count(0) > 0.9 * len(odd) and even.count(0) < 0.1 * len(even):
        return "utf-16-le"
    if len(even) > 16 and even.count(0) > 0.9 * len(even) and odd.count(0) < 0.1 * len(odd):
        return "utf-16-be"
    return None
