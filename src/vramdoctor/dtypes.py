"""Element widths of model dtypes and KV cache dtypes.

KV cache types are (block elements, block bytes) pairs so that llama.cpp's
block-quantized caches are exact: a row of `n` elements takes
`n / block_elems * block_bytes` bytes, as `ggml_row_size` computes it
(ggml/src/ggml.c, type traits `blck_size` and `type_size`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import UsageError

#: bytes per element of the torch dtypes a config.json names (`torch_dtype` / `dtype`).
MODEL_DTYPE_BYTES: dict[str, int] = {
    "float32": 4,
    "float": 4,
    "float16": 2,
    "half": 2,
    "bfloat16": 2,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
}


@dataclass(frozen=True, kw_only=True)
class KvDtype:
    """One KV cache element type.

    name: the canonical name (vLLM `--kv-cache-dtype` or llama.cpp `--cache-type-k`).
    block_elems: elements per quantization block (1 for plain types).
    block_bytes: bytes per block (ggml `type_size`; 2 for fp16, 34 for q8_0).
    """

    name: str
    block_elems: int
    block_bytes: int

    def row_bytes(self, n_elems: int) -> int:
        """Bytes of a row of `n_elems` elements (ggml_row_size). Rounds partial blocks up."""
        blocks = -(-n_elems // self.block_elems)
        return blocks * self.block_bytes


_KV_TYPES: dict[str, KvDtype] = {
    t.name: t
    for t in (
        KvDtype(name="fp32", block_elems=1, block_bytes=4),
        KvDtype(name="fp16", block_elems=1, block_bytes=2),
        KvDtype(name="bf16", block_elems=1, block_bytes=2),
        KvDtype(name="fp8_e4m3", block_elems=1, block_bytes=1),
        KvDtype(name="fp8_e5m2", block_elems=1, block_bytes=1),
        KvDtype(name="int8", block_elems=1, block_bytes=1),
        # llama.cpp block types (ggml-common.h: block_q8_0 = fp16 scale + 32 int8, ...)
        KvDtype(name="q8_0", block_elems=32, block_bytes=34),
        KvDtype(name="q4_0", block_elems=32, block_bytes=18),
        KvDtype(name="q4_1", block_elems=32, block_bytes=20),
        KvDtype(name="q5_0", block_elems=32, block_bytes=22),
        KvDtype(name="q5_1", block_elems=32, block_bytes=24),
        KvDtype(name="iq4_nl", block_elems=32, block_bytes=18),
    )
}

_ALIASES = {
    "f32": "fp32",
    "float32": "fp32",
    "f16": "fp16",
    "float16": "fp16",
    "half": "fp16",
    "bfloat16": "bf16",
    "fp8": "fp8_e4m3",
    "fp8_e4m3fn": "fp8_e4m3",
    "float8_e4m3fn": "fp8_e4m3",
    "fp8_inc": "fp8_e4m3",
    "float8_e5m2": "fp8_e5m2",
}

KV_DTYPE_CHOICES = ("auto", *sorted(_KV_TYPES), *sorted(_ALIASES))


def resolve_kv_dtype(name: str, model_dtype: str) -> KvDtype:
    """The KV element type for `--kv-cache-dtype NAME`; `auto` means the model dtype.

    Raises UsageError for an unknown name.
    """
    key = name.strip().lower()
    if key == "auto":
        key = model_dtype
    key = _ALIASES.get(key, key)
    if key not in _KV_TYPES:
        raise UsageError(
            f"unknown KV cache dtype '{name}'.",
            option="--kv-cache-dtype",
            hint=f"Use one of: {', '.join(KV_DTYPE_CHOICES)}.",
        )
    return _KV_TYPES[key]


def is_model_dtype(torch_dtype: str) -> bool:
    """Whether a config's `torch_dtype` names a dtype a model computes or stores its unquantized tensors in: the
    float widths torch and vLLM take (`float32`/`float`, `float16`/`half`, `bfloat16`, fp8), not an integer type."""
    key = _ALIASES.get(torch_dtype.lower(), torch_dtype.lower())
    return key in ("fp32", "fp16", "bf16", "float") or key.startswith("fp8")


def model_dtype_name(torch_dtype: str | None) -> str:
    """Canonical short name (fp32/fp16/bf16) of a config's `torch_dtype`; bf16 when absent."""
    if not torch_dtype:
        return "bf16"
    key = _ALIASES.get(str(torch_dtype).lower(), str(torch_dtype).lower())
    if key in ("fp32", "fp16", "bf16"):
        return key
    if key.startswith("fp8"):
        return "bf16"  # fp8 checkpoints compute and cache in bf16 unless told otherwise
    return "bf16"


def dtype_bytes(name: str) -> int:
    """Bytes per element of a plain dtype name (fp32/fp16/bf16)."""
    return _KV_TYPES[_ALIASES.get(name, name)].block_bytes
