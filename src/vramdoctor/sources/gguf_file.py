"""A GGUF file -> `ModelSpec`, through our header parser (`gguf_header`: metadata and tensor infos only;
the file is memory-mapped and its tensor data never read). The `gguf` package is not imported: reading a
real tokenizer through its `GGUFReader` took 15-25 s and 400-700 MiB.

Keys are llama.cpp's (gguf-py `gguf/constants.py` Keys): `{arch}.block_count`,
`{arch}.attention.head_count_kv`, `{arch}.attention.key_length`, ... Which
layers use the sliding window follows llama.cpp's per-architecture patterns
(src/models/*.cpp `load_swa_pattern`, src/llama-hparams.cpp `set_swa_pattern`).
"""

from __future__ import annotations

import mmap
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import ModelSourceError, UnknownArchitectureError
from ..gguf_formats import file_type
from ..spec import (
    FullAttention,
    LatentAttention,
    LayerSpec,
    ModelSpec,
    RecurrentState,
    SlidingWindow,
    WeightsInfo,
)
from .files import open_regular
from .gguf_header import GGUFHeader, SkippedArray, parse_header
from .validate import checked_int

#: llama.cpp's SWA pattern per architecture: layer il is SWA when il % n < n - 1.
SWA_PATTERN = {"gemma2": 2, "gemma3": 6, "gpt-oss": 2, "cohere2": 4, "exaone4": 4, "olmo2": 4,
               "smallthinker": 4, "gemma-embedding": 6}
#: architectures whose GGUF has a sliding_window that llama.cpp ignores (Phi-3: "Phi SWA is currently disabled").
SWA_IGNORED = {"phi3"}


def swa_layers(arch: str, kv: dict[str, Any], n_layer: int, *, path: str | None = None) -> list[bool]:
    """Which layers llama.cpp treats as sliding-window for this GGUF."""
    window = kv.get(f"{arch}.attention.sliding_window")
    if not window or arch in SWA_IGNORED:
        return [False] * n_layer
    pat = kv.get(f"{arch}.attention.sliding_window_pattern")
    if isinstance(pat, SkippedArray):
        raise ModelSourceError(f"is an array of {pat.count:,} {pat.item_type} values, not one per layer.", path=path,
                               field=f"{arch}.attention.sliding_window_pattern",
                               hint="The file is corrupt; re-download or re-convert it.")
    if isinstance(pat, list):
        return [bool(x) for x in pat[:n_layer]]
    n = checked_int(pat, f"{arch}.attention.sliding_window_pattern", path, 0, 4096) if pat else SWA_PATTERN.get(arch, 0)
    return [n == 0 or (il % n < n - 1) for il in range(n_layer)]


def spec_from_gguf_fields(kv: dict[str, Any], tensor_bytes: int, *, path: str) -> ModelSpec:
    """Build a ModelSpec from GGUF key/values and the tensor bytes (each padded to
    `general.alignment`, as the file and llama.cpp's model buffer lay them out). Pure."""
    arch = kv.get("general.architecture")
    if not arch:
        raise ModelSourceError("has no general.architecture key.", path=path, field="general.architecture",
                               hint="The file is not a complete GGUF model (a vocabulary-only file, an adapter, or a "
                                    "cut download): pass the model's GGUF, or its first shard.")
    def g(k: str, d: Any = None) -> Any:
        value = kv.get(f"{arch}.{k}", d)
        if isinstance(value, SkippedArray):  # more than gguf_header.MAX_ARRAY_ITEMS values, or strings
            raise ModelSourceError(f"is an array of {value.count:,} {value.item_type} values, not a size or one "
                                   "per layer.", path=path, field=f"{arch}.{k}",
                                   hint="The file is corrupt; re-download or re-convert it.")
        return value

    def num(k: str, default: Any = None, lo: int = 0, hi: int = 1 << 28) -> Any:
        """A scalar integer key, checked (a string, a fraction or an array where a number belongs is named)."""
        value = g(k, default)
        return None if value is None else checked_int(value, f"{arch}.{k}", path, lo, hi)

    def per_layer(k: str, default: Any, n: int, hi: int = 16384) -> list[int]:
        """A key llama.cpp reads as one value or one per layer (llama-model-loader `get_key_or_arr`, which
        refuses an array of another length than block_count)."""
        value = g(k, default)
        if isinstance(value, list):
            if len(value) != n:
                raise ModelSourceError(f"has {len(value)} values; llama.cpp needs one per layer ({n}).", path=path,
                                       field=f"{arch}.{k}", hint="The file is corrupt; re-download or re-convert it.")
            return [checked_int(v, f"{arch}.{k}", path, 0, hi) for v in value]
        return [checked_int(value, f"{arch}.{k}", path, 0, hi)] * n

    n_layer = g("block_count")
    n_head = g("attention.head_count")
    if n_layer is None or (n_head is None and g("ssm.state_size") is None):
        missing = [k for k in ("block_count", "attention.head_count") if g(k) is None]
        raise UnknownArchitectureError(f"GGUF architecture '{arch}' lacks layout keys.", path=path,
                                       missing=[f"{arch}.{k}" for k in missing])
    n_layer = checked_int(n_layer, f"{arch}.block_count", path, 1, 4096)
    n_embd = num("embedding_length", lo=1, hi=1 << 20)
    if tensor_bytes <= 0:
        raise ModelSourceError("has no tensors (a vocabulary-only GGUF?).", path=path,
                               hint="Pass the model GGUF itself.")
    heads = per_layer("attention.head_count", n_head or 0, n_layer)
    kv_heads = per_layer("attention.head_count_kv", g("attention.head_count_kv", n_head or 0), n_layer)
    swa = swa_layers(arch, kv, n_layer, path=path)
    layers: list[LayerSpec] = []
    for il in range(n_layer):
        if g("attention.kv_lora_rank") and g("attention.key_length_mla") is not None:
            layers.append(LatentAttention(kv_lora_rank=num("attention.kv_lora_rank", lo=1, hi=1 << 16),
                                          qk_rope_head_dim=num("rope.dimension_count", 64, hi=1 << 16)))
        elif g("attention.kv_lora_rank"):
            # converted before llama.cpp's MLA cache (PR #12801, April 2025: no `key_length_mla`, no wk_b/wv_b):
            # llama.cpp runs it as plain attention and caches every head's K (key_length = qk_nope + rope)
            # and V (value_length), as `llama_hparams::n_embd_k_gqa` sizes them: 71x the latent for DeepSeek-V3
            layers.append(FullAttention(num_kv_heads=kv_heads[il], head_dim_k=num("attention.key_length", 192, hi=1 << 16),
                                        head_dim_v=num("attention.value_length", 128, hi=1 << 16)))
        elif kv_heads[il] == 0 or (heads[il] == 0 and g("ssm.state_size")):
            d_conv, d_inner = num("ssm.conv_kernel", 4, hi=1 << 10), num("ssm.inner_size", 0, hi=1 << 20)
            d_state, groups = num("ssm.state_size", 0, hi=1 << 16), num("ssm.group_count", 0, hi=1 << 16)
            layers.append(RecurrentState(family="mamba2" if groups else "mamba",
                                         conv_elems=(d_conv - 1) * (d_inner + 2 * groups * d_state),
                                         ssm_elems=d_state * d_inner))
        else:
            hd_k = num("attention.key_length", (n_embd or 0) // max(heads[il], 1), hi=1 << 16)
            hd_v = num("attention.value_length", hd_k, hi=1 << 16)
            if swa[il]:
                layers.append(SlidingWindow(num_kv_heads=kv_heads[il], head_dim_k=hd_k, head_dim_v=hd_v,
                                            window=num("attention.sliding_window", lo=1)))
            else:
                layers.append(FullAttention(num_kv_heads=kv_heads[il], head_dim_k=hd_k, head_dim_v=hd_v))
    ftype = kv.get("general.file_type")
    qname = _file_type_name(ftype)
    return ModelSpec(
        name=str(kv.get("general.name") or Path(path).stem),
        architecture=str(arch),
        layers=tuple(layers),
        dtype="fp16",
        weights=WeightsInfo(total_bytes=tensor_bytes, exact=True, source="GGUF tensor infos"),
        quantization=qname,
        max_position_embeddings=num("context_length", lo=1),
        vocab_size=num("vocab_size", lo=1, hi=1 << 24),
        hidden_size=n_embd,
        intermediate_size=max(per_layer("feed_forward_length", 0, n_layer, 1 << 22)) if g("feed_forward_length") else None,
        num_attention_heads=heads[0] if heads else None,
        source=path,
    )


def _file_type_name(ftype: Any) -> str | None:
    """`general.file_type` (enum llama_ftype) as gguf-py's LlamaFileType names it, less MOSTLY_."""
    if ftype is None:
        return None
    try:
        n = int(ftype)
        return {0: "ALL_F32", 1024: "GUESSED"}.get(n) or file_type(n).name
    except (TypeError, ValueError):  # UsageError is a ValueError
        return f"file_type {ftype}"


def _dropper(buf: mmap.mmap):
    """A function that drops bytes [start, end) of a read-only mapping from this process's memory (they are
    read again from the page cache if touched); None where madvise is missing."""
    advice = getattr(mmap, "MADV_DONTNEED", None)
    if advice is None or not hasattr(buf, "madvise"):
        return None

    def drop(start: int, end: int) -> None:
        start -= start % mmap.PAGESIZE
        buf.madvise(advice, start, end - start)

    return drop


def read_header(path: Path) -> GGUFHeader:
    """The header of the GGUF file at `path`, memory-mapped (the pages of the header are read, never the tensor
    data). Only regular files are opened: a folder, FIFO or device is refused before it can block or hang.
    Raises ModelSourceError (GGUFFormatError for a malformed or truncated file)."""
    p = str(path)
    f, size = open_regular(path, what=".gguf model file")
    try:
        with f:
            if size == 0:
                return parse_header(b"", path=p)
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
                return parse_header(buf, path=p, release=_dropper(buf))
    except OSError as e:
        raise ModelSourceError(f"cannot be read ({e.strerror or e}).", path=p) from None


_BLOCK = re.compile(r"^blk\.(\d+)\.")


def place(sizes) -> tuple[dict[int, int], int, int]:
    """(bytes per repeating block, input layer bytes, output layer bytes) of (tensor name, padded bytes) pairs, as
    llama.cpp places them (`llama-model.cpp`): its block (`blk.N.`), the input layer (`token_embd.*`, kept on the
    host) or the output layer (the rest: `output.weight`, `output_norm.weight`, rope factors). Without
    `output.weight` the head is the embedding, which llama.cpp duplicates on the output's device. Pure."""
    layers: dict[int, int] = {}
    inp = out = embd = 0
    has_output = False
    for name, size in sizes:
        m = _BLOCK.match(name)
        if m:
            layers[int(m.group(1))] = layers.get(int(m.group(1)), 0) + size
        elif name.startswith("token_embd"):
            inp += size
        else:
            out += size
        has_output = has_output or name == "output.weight"
        embd = size if name == "token_embd.weight" else embd
    return layers, inp, out + (0 if has_output else embd)


def _tensors(head: GGUFHeader) -> list[tuple[str, tuple[int, ...], str, int]]:
    """(name, shape in ggml order, ggml type as gguf-py names it ("Q4_K"), bytes padded to the file's
    `general.alignment`) of each tensor."""
    return [(t.name, t.shape, t.ggml_type.name.upper(), t.padded_bytes(head.alignment)) for t in head.tensors]


SPLIT = re.compile(r"^(?P<stem>.*)-(?P<i>\d{5})-of-(?P<n>\d{5})\.gguf$")


def read_gguf(path: Path) -> ModelSpec:
    """Parse a GGUF file's metadata and tensor infos; for a split model (`split.count` > 1, files
    NAME-0000i-of-0000N.gguf) the tensors of every part. Raises ModelSourceError for truncated,
    invalid or incomplete files."""
    head = read_header(path)
    kv = head.kv
    tensors = _tensors(head)
    total = sum(size for *_, size in tensors)
    parts = checked_int(kv.get("split.count") or 1, "split.count", str(path), 1, 99999)
    if parts > 1:
        m = SPLIT.match(path.name)
        if not m:
            raise ModelSourceError(f"is part of a {parts}-file split GGUF whose name does not follow "
                                   "NAME-00001-of-0000N.gguf.", path=str(path), field="split.count")
        total = 0
        tensors = []
        for i in range(1, parts + 1):
            part = path.with_name(f"{m['stem']}-{i:05d}-of-{parts:05d}.gguf")
            if not part.exists():
                raise ModelSourceError(f"is split in {parts} files and {part.name} is missing.", path=str(path),
                                       field="split.count", hint="Download every part into the same folder.")
            part_tensors = _tensors(head if part == path else read_header(part))
            total += sum(size for *_, size in part_tensors)
            tensors += part_tensors
        if checked_int(kv.get("split.no") or 0, "split.no", str(path), 0, parts - 1) != 0:  # metadata: first part
            kv = read_header(path.with_name(f"{m['stem']}-00001-of-{parts:05d}.gguf")).kv
    spec = spec_from_gguf_fields(kv, total, path=str(path))
    n = spec.num_decoder_layers
    layers, inp, out = place((name, size) for name, _, _, size in tensors)
    if set(layers) <= set(range(n)):
        spec = replace(spec, weights=replace(spec.weights, layer_bytes=tuple(layers.get(i, 0) for i in range(n)),
                                             input_bytes=inp, output_bytes=out,
                                             tensors=tuple((name, shape, kind) for name, shape, kind, _ in tensors)))
    return spec
