"""A GGUF file -> `ModelSpec`, through the `gguf` package (metadata and tensor infos only;
tensor data is memory-mapped and never read).

Keys are llama.cpp's (gguf-py `gguf/constants.py` Keys): `{arch}.block_count`,
`{arch}.attention.head_count_kv`, `{arch}.attention.key_length`, ... Which
layers use the sliding window follows llama.cpp's per-architecture patterns
(src/models/*.cpp `load_swa_pattern`, src/llama-hparams.cpp `set_swa_pattern`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ModelSourceError, UnknownArchitectureError
from ..spec import FullAttention, LatentAttention, LayerSpec, ModelSpec, RecurrentState, SlidingWindow, WeightsInfo

#: llama.cpp's SWA pattern per architecture: layer il is SWA when il % n < n - 1.
SWA_PATTERN = {"gemma2": 2, "gemma3": 6, "gpt-oss": 2, "cohere2": 4, "exaone4": 4, "olmo2": 4,
               "smallthinker": 4, "gemma-embedding": 6}
#: architectures whose GGUF has a sliding_window that llama.cpp ignores (Phi-3: "Phi SWA is currently disabled").
SWA_IGNORED = {"phi3"}


def _fields(reader: Any) -> dict[str, Any]:
    out = {}
    for name, f in reader.fields.items():
        try:
            out[name] = f.contents()
        except Exception:  # noqa: BLE001 - an unreadable value is simply absent
            continue
    return out


def _per_layer(value: Any, n: int) -> list[int]:
    if isinstance(value, list):
        return [int(v) for v in value[:n]]
    return [int(value)] * n


def swa_layers(arch: str, kv: dict[str, Any], n_layer: int) -> list[bool]:
    """Which layers llama.cpp treats as sliding-window for this GGUF."""
    window = kv.get(f"{arch}.attention.sliding_window")
    if not window or arch in SWA_IGNORED:
        return [False] * n_layer
    pat = kv.get(f"{arch}.attention.sliding_window_pattern")
    if isinstance(pat, list):
        return [bool(x) for x in pat[:n_layer]]
    n = int(pat) if pat else SWA_PATTERN.get(arch, 0)
    return [n == 0 or (il % n < n - 1) for il in range(n_layer)]


def spec_from_gguf_fields(kv: dict[str, Any], tensor_bytes: int, *, path: str) -> ModelSpec:
    """Build a ModelSpec from GGUF key/values and the tensor bytes (each padded to
    `general.alignment`, as the file and llama.cpp's model buffer lay them out). Pure."""
    arch = kv.get("general.architecture")
    if not arch:
        raise ModelSourceError("has no general.architecture key.", path=path, field="general.architecture")
    g = lambda k, d=None: kv.get(f"{arch}.{k}", d)  # noqa: E731
    n_layer = g("block_count")
    n_embd = g("embedding_length")
    n_head = g("attention.head_count")
    if n_layer is None or (n_head is None and g("ssm.state_size") is None):
        missing = [k for k in ("block_count", "attention.head_count") if g(k) is None]
        raise UnknownArchitectureError(f"GGUF architecture '{arch}' lacks layout keys.", path=path,
                                       missing=[f"{arch}.{k}" for k in missing])
    n_layer = int(n_layer)
    heads = _per_layer(n_head or 0, n_layer)
    kv_heads = _per_layer(g("attention.head_count_kv", n_head or 0), n_layer)
    swa = swa_layers(arch, kv, n_layer)
    layers: list[LayerSpec] = []
    for il in range(n_layer):
        if g("attention.kv_lora_rank"):
            layers.append(LatentAttention(kv_lora_rank=int(g("attention.kv_lora_rank")),
                                          qk_rope_head_dim=int(g("rope.dimension_count", 64))))
        elif kv_heads[il] == 0 or (heads[il] == 0 and g("ssm.state_size")):
            d_conv, d_inner = int(g("ssm.conv_kernel", 4)), int(g("ssm.inner_size", 0))
            d_state, groups = int(g("ssm.state_size", 0)), int(g("ssm.group_count", 0))
            layers.append(RecurrentState(family="mamba2" if groups else "mamba",
                                         conv_elems=(d_conv - 1) * (d_inner + 2 * groups * d_state),
                                         ssm_elems=d_state * d_inner))
        else:
            hd_k = int(g("attention.key_length", (n_embd or 0) // max(heads[il], 1)))
            hd_v = int(g("attention.value_length", hd_k))
            if swa[il]:
                layers.append(SlidingWindow(num_kv_heads=kv_heads[il], head_dim_k=hd_k, head_dim_v=hd_v,
                                            window=int(g("attention.sliding_window"))))
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
        max_position_embeddings=g("context_length"),
        vocab_size=g("vocab_size"),
        hidden_size=n_embd,
        intermediate_size=(_per_layer(g("feed_forward_length"), 1) or [None])[0] if g("feed_forward_length") else None,
        num_attention_heads=heads[0] if heads else None,
        source=path,
    )


def _file_type_name(ftype: Any) -> str | None:
    if ftype is None:
        return None
    try:
        from gguf import LlamaFileType

        return LlamaFileType(int(ftype)).name.removeprefix("MOSTLY_")
    except (ValueError, ImportError):
        return f"file_type {ftype}"


def read_gguf(path: Path) -> ModelSpec:
    """Parse a GGUF file's metadata and tensor infos. Raises ModelSourceError for truncated or invalid files."""
    from gguf import GGUFReader

    p = str(path)
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise ModelSourceError(f"cannot be read ({e.strerror}).", path=p) from None
    if magic != b"GGUF":
        raise ModelSourceError(f"is not a GGUF file (starts with {magic!r}, expected b'GGUF').", path=p,
                               hint="Pass a .gguf model file.")
    try:
        reader = GGUFReader(p, "r")
    except Exception as e:  # noqa: BLE001 - gguf raises ValueError, struct.error, IndexError, ...
        raise ModelSourceError(f"has a truncated or corrupt GGUF header ({type(e).__name__}: {e}).", path=p,
                               hint="Re-download the file; its size or header does not match.") from None
    kv = _fields(reader)
    align = int(kv.get("general.alignment") or 32)
    total = sum(-(-int(t.n_bytes) // align) * align for t in reader.tensors)
    return spec_from_gguf_fields(kv, total, path=p)
