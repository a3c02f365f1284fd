"""GGUF file types: which ggml type llama.cpp's quantizer gives each tensor, and the bytes that makes.

Answers "what if I take the Q4_K_M file instead of the Q8_0" for a llama.cpp or Ollama user, from
llama.cpp's own rules rather than from example sizes. Pure: tensor names and shapes in, bytes out.

Sources (ggml-org/llama.cpp master of 2026: llama-quant.cpp at 007dbbf3, ggml-common.h at 01243c58,
quantize.cpp at 03161a4e, tests/snapshots at a45da44f; version differences noted where they change a size):

- Block layouts: `ggml/src/ggml.c` `type_traits` (`.blck_size`, `.type_size = sizeof(block_*)`) and the
  block structs of `ggml/src/ggml-common.h`; `ggml_row_size = type_size * ne0 / blck_size`.
- File-type mixes: `src/llama-quant.cpp` `llama_ftype_get_default_type` (the default type per ftype),
  `tensor_allows_quantization` (what is left alone), `llama_tensor_get_type_impl` (the per-tensor
  rules), `tensor_type_fallback` (rows whose length is not a multiple of the block) and the tensor
  order of `llama_model_loader::weight_name_comparer` (layer, then name), which the counters of the
  `use_more_bits` rule follow. Since the 2026 rework (`tensor_type_fallback`) Q2_K/Q3_K fall back to
  Q4_0 (IQ4_NL in the `convert_incompatible_tensor` code of 2024-2025 releases). Only that table was
  checked against an older copy; older releases are assumed to share the mixes.
  llama.cpp checks itself against `tests/snapshots/*.schema` (`tests/test-quant-type-selection.cpp`).
- Names users type: `tools/quantize/quantize.cpp` `QUANT_OPTIONS` (case-insensitive, with the
  aliases Q3_K, Q4_K and Q5_K for the _M mixes, or the number of the ftype).
- Types a converted (F16/BF16) GGUF keeps in F32: `convert_hf_to_gguf.py` `prepare_tensors`.

Shapes are in ggml order, `ne[0]` (the row, the input dimension) first, as gguf's `GGUFReader`
reports `tensor.shape` and llama.cpp prints them. Not modelled: `--pure`, `--tensor-type`,
`--output-tensor-type`, `--token-embedding-type`, `--leave-output-tensor` and the BailingMoE3 and
DeepSeek-V4 special cases.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import ModelSourceError, UsageError


@dataclass(frozen=True)
class GgmlType:
    """One ggml tensor type: `block_bytes` bytes hold `block_elems` consecutive values of a row."""

    name: str  #: ggml's type name, as llama.cpp prints it ("q4_K").
    type_id: int  #: enum ggml_type (ggml.h), as stored in a GGUF tensor info.
    block_elems: int  #: type_traits[].blck_size.
    block_bytes: int  #: type_traits[].type_size, sizeof(block_*) in ggml-common.h.

    def row_bytes(self, ne0: int) -> int:
        """ggml_row_size: bytes of one row of `ne0` values (ne0 a multiple of the block)."""
        return self.block_bytes * (ne0 // self.block_elems)


#: Every type a GGUF tensor can have (enum ggml_type in ggml.h; ids 4, 5 and 31-33 were removed from ggml).
#: QK_K = 256 super-blocks; the struct sizes are the sums of ggml-common.h's fields.
GGML_TYPES: dict[str, GgmlType] = {t.name.upper(): t for t in (
    GgmlType("f32", 0, 1, 4), GgmlType("f16", 1, 1, 2), GgmlType("bf16", 30, 1, 2),
    GgmlType("q4_0", 2, 32, 18),       # d + qs[16]
    GgmlType("q4_1", 3, 32, 20),       # d, m + qs[16]
    GgmlType("q5_0", 6, 32, 22),       # d + qh[4] + qs[16]
    GgmlType("q5_1", 7, 32, 24),       # d, m + qh[4] + qs[16]
    GgmlType("q8_0", 8, 32, 34),       # d + qs[32]
    GgmlType("q8_1", 9, 32, 36),       # d, s (ggml_half) + qs[32]; gguf-py says 40 (its float d, s of 2023)
    GgmlType("q2_K", 10, 256, 84),     # scales[16] + qs[64] + d, dmin
    GgmlType("q3_K", 11, 256, 110),    # hmask[32] + qs[64] + scales[12] + d
    GgmlType("q4_K", 12, 256, 144),    # d, dmin + scales[12] + qs[128]
    GgmlType("q5_K", 13, 256, 176),    # d, dmin + scales[12] + qh[32] + qs[128]
    GgmlType("q6_K", 14, 256, 210),    # ql[128] + qh[64] + scales[16] + d
    GgmlType("q8_K", 15, 256, 292),    # d (float) + qs[256] + bsums[16] (int16)
    GgmlType("iq2_xxs", 16, 256, 66),  # d + qs[32] (uint16)
    GgmlType("iq2_xs", 17, 256, 74),   # d + qs[32] (uint16) + scales[8]
    GgmlType("iq3_xxs", 18, 256, 98),  # d + qs[96]
    GgmlType("iq1_s", 19, 256, 50),    # d + qs[32] + qh[8] (uint16)
    GgmlType("iq4_nl", 20, 32, 18),    # d + qs[16]
    GgmlType("iq3_s", 21, 256, 110),   # d + qs[64] + qh[8] + signs[32] + scales[4]
    GgmlType("iq2_s", 22, 256, 82),    # d + qs[64] + qh[8] + scales[8]
    GgmlType("iq4_xs", 23, 256, 136),  # d + scales_h + scales_l[4] + qs[128]
    GgmlType("i8", 24, 1, 1), GgmlType("i16", 25, 1, 2), GgmlType("i32", 26, 1, 4), GgmlType("i64", 27, 1, 8),
    GgmlType("f64", 28, 1, 8),
    GgmlType("iq1_m", 29, 256, 56),    # qs[32] + qh[16] + scales[8]
    GgmlType("tq1_0", 34, 256, 54),    # qs[48] + qh[4] + d
    GgmlType("tq2_0", 35, 256, 66),    # qs[64] + d
    GgmlType("mxfp4", 39, 32, 17),     # e (E8M0) + qs[16]
    GgmlType("nvfp4", 40, 64, 36),     # d[4] (UE4M3) + qs[32]
    GgmlType("q1_0", 41, 128, 18),     # d + qs[16]
)}
_BY_ID = {t.type_id: t for t in GGML_TYPES.values()}
_UNQUANTIZED = {"F32", "F16", "BF16"}


@dataclass(frozen=True)
class FileType:
    """A llama.cpp file type (enum llama_ftype, GGUF `general.file_type`) and its default tensor type."""

    name: str  #: the name llama-quantize takes ("Q4_K_M").
    ftype_id: int  #: LLAMA_FTYPE_* in llama.h.
    default: str  #: key of GGML_TYPES, from llama_ftype_get_default_type.


FILE_TYPES: dict[str, FileType] = {f.name: f for f in (
    FileType("F32", 0, "F32"), FileType("F16", 1, "F16"), FileType("BF16", 32, "BF16"),
    FileType("Q4_0", 2, "Q4_0"), FileType("Q4_1", 3, "Q4_1"), FileType("Q8_0", 7, "Q8_0"),
    FileType("Q5_0", 8, "Q5_0"), FileType("Q5_1", 9, "Q5_1"),
    FileType("Q2_K", 10, "Q2_K"), FileType("Q2_K_S", 21, "Q2_K"),
    FileType("Q3_K_S", 11, "Q3_K"), FileType("Q3_K_M", 12, "Q3_K"), FileType("Q3_K_L", 13, "Q3_K"),
    FileType("Q4_K_S", 14, "Q4_K"), FileType("Q4_K_M", 15, "Q4_K"),
    FileType("Q5_K_S", 16, "Q5_K"), FileType("Q5_K_M", 17, "Q5_K"), FileType("Q6_K", 18, "Q6_K"),
    FileType("IQ2_XXS", 19, "IQ2_XXS"), FileType("IQ2_XS", 20, "IQ2_XS"),
    FileType("IQ2_S", 28, "IQ2_XS"), FileType("IQ2_M", 29, "IQ2_S"),
    FileType("IQ3_XXS", 23, "IQ3_XXS"), FileType("IQ3_XS", 22, "IQ3_S"),
    FileType("IQ3_S", 26, "IQ3_S"), FileType("IQ3_M", 27, "IQ3_S"),
    FileType("IQ1_S", 24, "IQ1_S"), FileType("IQ1_M", 31, "IQ1_M"),
    FileType("IQ4_NL", 25, "IQ4_NL"), FileType("IQ4_XS", 30, "IQ4_XS"),
    FileType("TQ1_0", 36, "TQ1_0"), FileType("TQ2_0", 37, "TQ2_0"),
    FileType("MXFP4_MOE", 38, "MXFP4"), FileType("NVFP4", 39, "NVFP4"), FileType("Q1_0", 40, "Q1_0"),
)}
#: llama-quantize's aliases, plus the spellings of GGUF metadata and of other tools.
_ALIASES = {"Q3_K": "Q3_K_M", "Q4_K": "Q4_K_M", "Q5_K": "Q5_K_M", "FP16": "F16", "FP32": "F32",
            "MXFP4": "MXFP4_MOE"}
_BY_FTYPE_ID = {f.ftype_id: f for f in FILE_TYPES.values()}


def ftype_names() -> tuple[str, ...]:
    """The file-type names `weights_bytes_for_ftype` takes, in llama.h order."""
    return tuple(f.name for f in sorted(FILE_TYPES.values(), key=lambda f: f.ftype_id))


def file_type(ftype: str | int) -> FileType:
    """Resolve "q4_k_m", "Q4_K", "MOSTLY_Q4_K_M", "LLAMA_FTYPE_MOSTLY_Q4_K_M" or 15 to a FileType.

    Raises UsageError (a ValueError) naming the known file types for anything else.
    """
    key = str(int(ftype)) if isinstance(ftype, int) else str(ftype).strip().upper().replace("-", "_")
    key = key.removeprefix("LLAMA_FTYPE_").removeprefix("MOSTLY_").removeprefix("ALL_")
    key = _ALIASES.get(key, key)
    if key in FILE_TYPES:
        return FILE_TYPES[key]
    if key.isdigit() and int(key) in _BY_FTYPE_ID:
        return _BY_FTYPE_ID[int(key)]
    raise UsageError(f"'{ftype}' is not a llama.cpp file type.", option="ftype",
                     hint="Known (llama-quantize's names, any case): " + ", ".join(ftype_names()) +
                          "; Q3_K, Q4_K and Q5_K mean the _M mixes.")


def ggml_type(t: str | int | GgmlType) -> GgmlType:
    """A ggml type by name ("q4_K", "Q4_K"), enum value (12) or GgmlType."""
    if isinstance(t, GgmlType):
        return t
    if isinstance(t, int) or str(t).isdigit():
        if int(t) in _BY_ID:
            return _BY_ID[int(t)]
    elif str(t).upper() in GGML_TYPES:
        return GGML_TYPES[str(t).upper()]
    raise UsageError(f"'{t}' is not a ggml tensor type modelled here.", option="tensor type",
                     hint="Known: " + ", ".join(g.name for g in GGML_TYPES.values()) + ".")


def tensor_bytes(t: str | int | GgmlType, shape: Sequence[int]) -> int:
    """ggml_nbytes of a contiguous tensor: rows x ggml_row_size(type, ne[0]). Unpadded."""
    g = ggml_type(t)
    rows = 1
    for n in shape[1:]:
        rows *= int(n)
    return rows * g.row_bytes(int(shape[0]))


@dataclass(frozen=True)
class PlannedTensor:
    """One tensor of the file llama-quantize would write: its name, shape (ggml order), type and bytes."""

    name: str
    shape: tuple[int, ...]
    type: GgmlType
    nbytes: int  #: unpadded, ggml_nbytes.


TensorInfo = tuple[str, Sequence[int]] | tuple[str, Sequence[int], str | int | GgmlType | None]

_BLK = re.compile(r"^blk\.(\d+)\.")
#: convert_hf_to_gguf.py keeps these 2-D tensors in F32 (MODEL_TENSOR.FFN_GATE_INP, POS_EMBD, ...).
_F32_IN_CONVERT = ("ffn_gate_inp", "position_embd", "token_types", "ssm_conv1d", "shortconv.conv",
                   "time_mix_first", "time_mix_w1", "time_mix_w2", "time_mix_decay_w1", "time_mix_decay_w2",
                   "time_mix_lerp_fused")
#: tensor_allows_quantization: name fragments llama-quantize never quantizes (besides norms and 1-D).
_KEEP = ("ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel", "per_layer_model_proj",
         "ssm_conv1d", "shortconv.conv.weight", "indexer.k_proj.weight", "indexer.q_proj.weight",
         "time_mix_first.weight", "time_mix_w0.weight", "time_mix_w1.weight", "time_mix_w2.weight",
         "time_mix_v0.weight", "time_mix_v1.weight", "time_mix_v2.weight", "time_mix_a0.weight",
         "time_mix_a1.weight", "time_mix_a2.weight", "time_mix_g1.weight", "time_mix_g2.weight",
         "time_mix_decay_w1.weight", "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight",
         "attn_rel_b.weight", ".position_embd", "sam.pos_embd", "sam.neck.", "sam.net_", ".rel_pos",
         ".patch_embd", ".patch_merger", "a.rvq.codebook", "mm.a.code_embd")
#: model types llama.cpp calls LLM_TYPE_70B (llama-model.cpp load_hparams: 80 layers in these archs).
_ARCH_70B = ("llama", "qwen2", "deci", "olmoe")


def _n_dims(shape: tuple[int, ...]) -> int:
    """ggml_n_dims: the index of the last dimension above 1, plus one (at least 1)."""
    for i in range(len(shape) - 1, 0, -1):
        if shape[i] > 1:
            return i + 1
    return 1


def _allows_quantization(name: str, shape: tuple[int, ...]) -> bool:
    if _n_dims(shape) < 2 or not name.endswith("weight") or "_norm.weight" in name:
        return False
    if name in ("position_embd.weight", "token_types.weight"):
        return False
    return not any(k in name for k in _KEEP)


def _source_type(name: str, shape: tuple[int, ...]) -> GgmlType:
    """The type a tensor llama-quantize leaves alone has in a converted F16 GGUF."""
    if len(shape) <= 1 or name.endswith("_norm.weight") or not name.endswith(".weight") \
            or any(k in name for k in _F32_IN_CONVERT):
        return GGML_TYPES["F32"]
    return GGML_TYPES["F16"]


def _category(name: str) -> str:
    """tensor_get_category: the broad role of a tensor, by its name, in llama.cpp's order."""
    if name == "output.weight":
        return "output"
    if name in ("token_embd.weight", "per_layer_token_embd.weight"):
        return "token_embd"
    for frag, cat in (("attn_qkv.weight", "attn_qkv"), ("attn_kv_b.weight", "attn_kv_b"),
                      ("attn_v.weight", "attn_v"), ("attn_k.weight", "attn_k"), ("attn_q.weight", "attn_q"),
                      ("attn_output.weight", "attn_output"), ("ffn_up", "ffn_up"), ("ffn_gate", "ffn_gate"),
                      ("ffn_down", "ffn_down")):
        if frag in name:
            return cat
    return "other"


def _use_more_bits(i: int, n: int) -> bool:
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


_FALLBACK = {"IQ1_S": "IQ4_NL", "IQ1_M": "IQ4_NL", "IQ2_XXS": "IQ4_NL", "IQ2_XS": "IQ4_NL", "IQ2_S": "IQ4_NL",
             "IQ3_XXS": "IQ4_NL", "IQ3_S": "IQ4_NL", "IQ4_XS": "IQ4_NL", "Q2_K": "Q4_0", "Q3_K": "Q4_0",
             "TQ1_0": "Q4_0", "TQ2_0": "Q4_0", "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"}
#: tensor_requires_imatrix: llama-quantize refuses these types without an importance matrix.
_NEEDS_IMATRIX = {"IQ3_XXS", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ1_M", "IQ1_S"}
_IQ2_FAMILY = {"IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"}


def _fallback(name: str, ne0: int, t: str) -> str:
    """tensor_type_fallback: a type whose block divides the row, else F16."""
    if ne0 % GGML_TYPES[t].block_elems == 0:
        return t
    if t not in _FALLBACK:
        raise ModelSourceError(f"rows of {ne0} values are not a multiple of the {GGML_TYPES[t].name} block "
                               f"({GGML_TYPES[t].block_elems}); llama-quantize has no fallback for that type "
                               "and refuses the file type.", field=name,
                               hint="Pick another file type (a K-quant falls back to a 32-block type).")
    f = _FALLBACK[t]
    return f if ne0 % GGML_TYPES[f].block_elems == 0 else "F16"


class _Mix:
    """quantize_state_impl and llama_tensor_get_type_impl, for one ftype over one model's tensors."""

    def __init__(self, ft: FileType, names: list[str], *, arch: str, n_layer: int, n_expert: int,
                 n_gqa: int, imatrix: bool) -> None:
        self.ft, self.arch, self.n_layer, self.n_expert, self.n_gqa = ft.name, arch, n_layer, n_expert, n_gqa
        self.imatrix = imatrix
        self.tied = "output.weight" not in names
        self.n_attention_wv = sum(_category(n) in ("attn_v", "attn_qkv", "attn_kv_b") for n in names)
        self.i_attention_wv = self.i_ffn_down = self.i_ffn_gate = self.i_ffn_up = 0
        self.is_70b = arch in _ARCH_70B and n_layer == 80 and (arch != "llama" or n_gqa != 1)

    def _layer(self, counter: int, name: str) -> tuple[int, int]:
        if self.n_expert > 1:  # experts are not consecutive: read the layer from the name
            m = _BLK.match(name)
            if not m:
                raise ModelSourceError("cannot tell the layer of this tensor.", field=name)
            return int(m.group(1)), self.n_layer
        return counter, self.n_layer

    def choose(self, name: str, shape: tuple[int, ...], new: str) -> str:
        ft, cat, gqa, nexp = self.ft, _category(name), self.n_gqa, self.n_expert
        attn_v_like = cat in ("attn_v", "attn_qkv", "attn_kv_b")
        if cat == "output" or (self.tied and cat == "token_embd"):
            if ft == "MXFP4_MOE" or self.arch == "falcon" or shape[0] % GGML_TYPES[new].block_elems:
                return "Q8_0"
            if ft in ("IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"):
                return "Q5_K"
            return new if new == "Q8_0" else "Q6_K"
        if ft == "MXFP4_MOE":
            return "MXFP4" if len(shape) > 2 and shape[2] > 1 else "Q8_0"
        if cat == "token_embd":
            if ft in ("IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"):
                return "Q2_K"
            if ft in ("IQ2_S", "IQ2_M", "IQ3_XXS"):
                return "IQ3_S"
            return "Q4_K" if ft in ("TQ1_0", "TQ2_0") else new
        if ft in _IQ2_FAMILY:
            iq3 = ft in ("IQ2_S", "IQ2_M")
            if attn_v_like:
                self.i_attention_wv += 1
                return "Q4_K" if gqa >= 4 or nexp >= 4 else ("IQ3_S" if iq3 else "Q2_K")
            if nexp == 8 and cat == "attn_k":
                return "Q4_K"
            if cat == "ffn_down":
                low = self.i_ffn_down < self.n_layer // 8
                self.i_ffn_down += 1
                return ("IQ3_S" if iq3 else "Q2_K") if low else new
            if cat == "attn_output":
                if nexp == 8:
                    return "Q5_K"
                return "IQ2_XXS" if ft in ("IQ1_S", "IQ1_M") else "IQ3_S" if iq3 else new
            return new
        if attn_v_like:
            i, n = self.i_attention_wv, self.n_attention_wv
            if ft == "Q2_K":
                new = "Q4_K" if gqa >= 4 else "Q3_K"
            elif ft == "Q2_K_S" and gqa >= 4:
                new = "Q4_K"
            elif ft == "IQ3_XXS":
                new = "Q4_K" if gqa >= 4 else "IQ3_XXS" if self.imatrix else "IQ3_S"
            elif (ft in ("IQ3_XS", "IQ3_S") and gqa >= 4) or ft == "IQ3_M":
                new = "Q4_K"
            elif ft == "Q3_K_M":
                new = "Q5_K" if i < 2 else "Q4_K"
            elif ft == "Q3_K_L" or (ft in ("IQ4_NL", "IQ4_XS") and gqa >= 4):
                new = "Q5_K"
            elif ft in ("Q4_K_M", "Q5_K_M") and _use_more_bits(i, n):
                new = "Q6_K"
            elif ft == "Q4_K_S" and i < 4:
                new = "Q5_K"
            if self.is_70b and new in ("Q3_K", "Q4_K"):
                new = "Q5_K"  # attn_v is 8x smaller than attn_q in the 70B: more bits cost little
            if nexp == 8:
                new = "Q8_0"
            self.i_attention_wv += 1
            return new
        if cat == "attn_k":
            return "Q8_0" if nexp == 8 else "IQ3_XXS" if ft == "IQ3_XS" else "IQ2_S" if ft == "IQ3_XXS" else new
        if cat == "attn_q":
            return "IQ3_XXS" if ft == "IQ3_XS" else "IQ2_S" if ft == "IQ3_XXS" else new
        if cat == "ffn_down":
            i, n = self._layer(self.i_ffn_down, name)
            self.i_ffn_down += 1
            falcon = self.arch == "falcon"
            if ft == "Q2_K":
                return "Q3_K"
            if ft == "Q2_K_S":
                return "Q4_K" if i < n // 8 else new
            if ft == "IQ3_XXS" and not self.imatrix:
                return "Q4_K" if i < n // 8 else "Q3_K"
            if ft == "Q3_K_M":
                return "Q5_K" if i < n // 16 else "Q4_K" if not falcon or _use_more_bits(i, n) else "Q3_K"
            if ft == "IQ3_M" and (i < n // 8 or (nexp == 8 and _use_more_bits(i, n))):
                return "Q4_K"
            if ft == "Q3_K_L":
                return "Q4_K" if falcon else "Q5_K"
            if ft == "Q4_K_M":
                if falcon:
                    return "Q6_K" if i < n // 16 else "Q5_K" if _use_more_bits(i, n) else "Q4_K"
                return "Q6_K" if _use_more_bits(i, n) else new
            if i < n // 8 and ft in ("IQ4_NL", "IQ4_XS") and not self.imatrix:
                return "Q5_K"
            if ft == "Q5_K_M" and _use_more_bits(i, n):
                return "Q6_K"
            if ft == "Q4_K_S" and not falcon and i < n // 8:
                return "Q5_K"
            if ft in ("Q4_0", "Q5_0") and self.imatrix and i < n // 8:
                return "Q4_1" if ft == "Q4_0" else "Q5_1"
            return new
        if cat == "attn_output":
            if self.arch == "falcon":
                return "Q4_K" if ft == "Q3_K_L" else new
            if nexp == 8:
                return "Q5_K" if ft in ("Q2_K", "IQ3_XS", "IQ3_XXS", "Q3_K_S", "Q3_K_M", "IQ4_NL", "Q4_K_S",
                                        "Q4_K_M", "IQ3_S", "IQ3_M", "IQ4_XS") else new
            return {"Q2_K": "Q3_K", "IQ3_XXS": "IQ3_S", "Q3_K_M": "Q4_K", "Q3_K_L": "Q5_K",
                    "IQ3_M": "Q4_K"}.get(ft, new)
        if cat in ("ffn_gate", "ffn_up"):
            i, n = self._layer(self.i_ffn_gate if cat == "ffn_gate" else self.i_ffn_up, name)
            if cat == "ffn_gate":
                self.i_ffn_gate += 1
            else:
                self.i_ffn_up += 1
            return "IQ3_XXS" if ft == "IQ3_XS" and n // 8 <= i < 7 * n // 8 else new
        return new  # attn_qkv is caught by the attn_v rule above, as in llama.cpp


def _normalize(tensors: Iterable[TensorInfo]) -> list[tuple[str, tuple[int, ...], GgmlType | None]]:
    out = []
    for t in tensors:
        name = str(t[0])
        try:
            shape = tuple(operator.index(n) for n in t[1])
        except TypeError:
            shape = ()
        if not 1 <= len(shape) <= 4 or min(shape) < 1:
            raise ModelSourceError(f"has shape {tuple(t[1])}; expected 1 to 4 positive ints in ggml order.",
                                   field=name)
        out.append((name, shape, ggml_type(t[2]) if len(t) > 2 and t[2] is not None else None))
    return out


def _sort_key(name: str) -> tuple[int, str]:
    m = _BLK.match(name)  # weight_name_comparer: sscanf("blk.%d.") else -1, then strcmp
    return (int(m.group(1)) if m else -1, name)


def tensor_types_for_ftype(tensors: Iterable[TensorInfo], ftype: str | int, *, arch: str = "llama",
                           n_gqa: int | None = None, n_expert: int | None = None, n_layer: int | None = None,
                           imatrix: bool | None = None) -> list[PlannedTensor]:
    """Each tensor of `tensors` as llama-quantize `ftype` would write it, in llama.cpp's tensor order.

    tensors: (name, shape) or (name, shape, current type) with GGUF names ("blk.3.attn_v.weight")
    and shapes in ggml order; the current type (a ggml type name or id) is kept for the tensors
    llama-quantize does not quantize (norms, biases, the MoE router); without it they get the type
    convert_hf_to_gguf.py gives them (F32 for 1-D, norms and the router, else F16).
    arch: GGUF `general.architecture` ("falcon" and the 70B models of llama/qwen2 have own rules).
    n_gqa: heads per KV head (`head_count` / `head_count_kv`); default from attn_q/attn_k rows.
    n_expert: `expert_count`; default from the expert tensors' third dimension.
    n_layer: `block_count`; default the highest `blk.N.` + 1.
    imatrix: whether an importance matrix is used; default only where llama-quantize demands one.
    """
    ft = file_type(ftype)
    infos = sorted(_normalize(tensors), key=lambda t: _sort_key(t[0]))
    names = [t[0] for t in infos]
    shapes = {t[0]: t[1] for t in infos}
    if n_layer is None:
        n_layer = max((_sort_key(n)[0] for n in names), default=-1) + 1
    if n_expert is None:
        n_expert = max([s[2] for n, s in shapes.items() if "_exps." in n and len(s) > 2]
                       + [s[1] for n, s in shapes.items() if "ffn_gate_inp.weight" in n and len(s) > 1], default=0)
    if n_gqa is None:
        q = next((s for n, s in shapes.items() if n.endswith("attn_q.weight")), None)
        k = next((s for n, s in shapes.items() if n.endswith("attn_k.weight")), None)
        n_gqa = q[1] // k[1] if q and k and len(q) > 1 and len(k) > 1 else 1
    default = ft.default

    def plan(use_imatrix: bool) -> list[PlannedTensor]:
        mix = _Mix(ft, names, arch=arch.lower(), n_layer=n_layer, n_expert=n_expert, n_gqa=n_gqa,
                   imatrix=use_imatrix)
        out = []
        for name, shape, src in infos:
            if not _allows_quantization(name, shape):
                t = src or _source_type(name, shape)
            elif default in _UNQUANTIZED:
                t = GGML_TYPES[default]
            else:
                t = GGML_TYPES[_fallback(name, shape[0], mix.choose(name, shape, default))]
            out.append(PlannedTensor(name, shape, t, tensor_bytes(t, shape)))
        return out

    planned = plan(bool(imatrix))
    if imatrix is None and any(p.type.name.upper() in _NEEDS_IMATRIX or (ft.name == "Q2_K_S" and p.type.name == "q2_K")
                               for p in planned if p.name not in ("token_embd.weight", "output.weight")):
        planned = plan(True)  # llama-quantize refuses these without one: the files that exist have one
    return planned


def weights_bytes_for_ftype(tensors: Iterable[TensorInfo], ftype: str | int, *, alignment: int = 32,
                            **rules) -> int:
    """Bytes of tensor data of `tensors` quantized as llama.cpp file type `ftype` ("Q4_K_M", "q8_0", "F16").

    Each tensor is padded to `alignment` (GGUF `general.alignment`, 32 by default), as the file and
    llama.cpp's model buffer lay it out; alignment=1 gives the bare ggml_nbytes sum. `rules` are the
    keywords of `tensor_types_for_ftype` (arch, n_gqa, n_expert, n_layer, imatrix).
    Raises UsageError (a ValueError) for an unknown ftype, listing the known names.
    """
    return sum(-(-p.nbytes // alignment) * alignment for p in tensor_types_for_ftype(tensors, ftype, **rules))


def decoder_tensors(*, n_layers: int, hidden: int, n_heads: int, n_kv_heads: int, intermediate: int, vocab: int,
                    head_dim: int | None = None, tied: bool = False, n_experts: int = 0,
                    expert_intermediate: int | None = None, shared_intermediate: int = 0,
                    qkv_bias: bool = False, qk_norm: bool = False) -> list[tuple[str, tuple[int, ...]]]:
    """The GGUF tensors (names and ggml-order shapes) of a plain llama-style decoder, as llama.cpp names them.

    Per layer: attn_norm, attn_q/k/v (+ .bias with `qkv_bias`, Qwen2), attn_q_norm/attn_k_norm with
    `qk_norm` (Qwen3), attn_output, ffn_norm, then ffn_gate/up/down, or for a MoE (`n_experts` > 0)
    ffn_gate_inp and ffn_gate_exps/up_exps/down_exps of `expert_intermediate` (plus ffn_*_shexp of
    `shared_intermediate` when set). token_embd, output_norm, and output unless `tied`.
    """
    for key, v in (("n_layers", n_layers), ("hidden", hidden), ("n_heads", n_heads), ("n_kv_heads", n_kv_heads),
                   ("intermediate", intermediate), ("vocab", vocab), ("head_dim", head_dim or 1),
                   ("n_experts", n_experts + 1), ("shared_intermediate", shared_intermediate + 1)):
        if not isinstance(v, int) or v < 1:
            raise ModelSourceError(f"is {v!r}; a decoder needs a positive whole number here.", field=key)
    hd = head_dim or hidden // n_heads
    q, kv = n_heads * hd, n_kv_heads * hd
    out: list[tuple[str, tuple[int, ...]]] = [("token_embd.weight", (hidden, vocab)), ("output_norm.weight", (hidden,))]
    if not tied:
        out.append(("output.weight", (hidden, vocab)))
    for i in range(n_layers):
        b = f"blk.{i}."
        out += [(b + "attn_norm.weight", (hidden,)), (b + "attn_q.weight", (hidden, q)),
                (b + "attn_k.weight", (hidden, kv)), (b + "attn_v.weight", (hidden, kv))]
        if qkv_bias:
            out += [(b + "attn_q.bias", (q,)), (b + "attn_k.bias", (kv,)), (b + "attn_v.bias", (kv,))]
        if qk_norm:
            out += [(b + "attn_q_norm.weight", (hd,)), (b + "attn_k_norm.weight", (hd,))]
        out += [(b + "attn_output.weight", (q, hidden)), (b + "ffn_norm.weight", (hidden,))]
        if n_experts:
            ff = expert_intermediate or intermediate
            out += [(b + "ffn_gate_inp.weight", (hidden, n_experts)),
                    (b + "ffn_gate_exps.weight", (hidden, ff, n_experts)),
                    (b + "ffn_up_exps.weight", (hidden, ff, n_experts)),
                    (b + "ffn_down_exps.weight", (ff, hidden, n_experts))]
            if shared_intermediate:
                out += [(b + "ffn_gate_shexp.weight", (hidden, shared_intermediate)),
                        (b + "ffn_up_shexp.weight", (hidden, shared_intermediate)),
                        (b + "ffn_down_shexp.weight", (shared_intermediate, hidden))]
        else:
            out += [(b + "ffn_gate.weight", (hidden, intermediate)), (b + "ffn_up.weight", (hidden, intermediate)),
                    (b + "ffn_down.weight", (intermediate, hidden))]
    return out
