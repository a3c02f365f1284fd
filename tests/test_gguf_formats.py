"""gguf_formats: ggml block layouts, llama.cpp's file-type mixes, and the bytes they make.

Real quantized files need llama.cpp's quantizer, so the mixes are checked against what llama.cpp itself
publishes: its type-selection snapshots (tests/snapshots/*.schema, checked by
tests/test-quant-type-selection.cpp), the Llama-3-8B sizes in llama-quantize's help
(tools/quantize/quantize.cpp QUANT_OPTIONS), a real llama.cpp load log, and published file sizes.
Tiny GGUF files written with the `gguf` package check the layouts against gguf's own reader.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from gguf import GGMLQuantizationType, GGUFReader, GGUFWriter, LlamaFileType
from gguf.constants import GGML_QUANT_SIZES

from vramdoctor.errors import UsageError
from vramdoctor.gguf_formats import (
    FILE_TYPES,
    GGML_TYPES,
    decoder_tensors,
    file_type,
    ftype_names,
    tensor_bytes,
    tensor_types_for_ftype,
    weights_bytes_for_ftype,
)

LLAMA31_8B = {"n_layers": 32, "hidden": 4096, "n_heads": 32, "n_kv_heads": 8, "intermediate": 14336,
              "vocab": 128256}
GiB, MiB = 2**30, 2**20


# --- (a) block layouts --------------------------------------------------------------------------

#: gguf-py 0.19.0 keeps Q8_1 as (32, 4 + 4 + 32), the float d and s of 2023; ggml-common.h has
#: `static_assert(sizeof(block_q8_1) == 2*sizeof(ggml_half) + QK8_1)`, 36 bytes, and ggml sizes the file.
GGUF_PY_DIFFERS = {"Q8_1": ((32, 40), (32, 36))}


@pytest.mark.parametrize("key", sorted(GGML_TYPES))
def test_block_layout_matches_gguf_table(key):
    t = GGML_TYPES[key]
    q = GGMLQuantizationType(t.type_id)
    assert q.name == key
    if key in GGUF_PY_DIFFERS:
        assert (GGML_QUANT_SIZES[q], (t.block_elems, t.block_bytes)) == GGUF_PY_DIFFERS[key]
    else:
        assert GGML_QUANT_SIZES[q] == (t.block_elems, t.block_bytes)


def test_every_ggml_type_gguf_knows_is_in_the_table():
    """A GGUF tensor of any type gguf-py knows gets its size from our table (ggml.h's enum ggml_type)."""
    ours = {t.type_id: key for key, t in GGML_TYPES.items()}
    assert {q.value: q.name for q in GGMLQuantizationType}.items() <= ours.items()


def test_brief_types_are_all_defined():
    wanted = ["F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ4_NL", "IQ4_XS", "IQ1_S", "IQ1_M", "TQ1_0", "TQ2_0", "MXFP4"]
    assert set(wanted) <= set(GGML_TYPES)


@pytest.mark.parametrize("name", sorted(FILE_TYPES))
def test_file_type_ids_match_llama_h(name):
    member = "ALL_F32" if name == "F32" else f"MOSTLY_{name}"
    if not hasattr(LlamaFileType, member):
        pytest.skip(f"gguf {member} not in this gguf release")
    assert LlamaFileType[member].value == FILE_TYPES[name].ftype_id


def test_row_bytes_boundaries():
    # one Q4_K super-block is 256 values in 144 bytes; Q8_0 is 32 values in 34 bytes
    assert tensor_bytes("q4_K", (256, 1)) == 144
    assert tensor_bytes("Q4_K", (512, 3)) == 3 * 288
    assert tensor_bytes("q8_0", (32, 2, 4)) == 8 * 34
    assert tensor_bytes("f32", (7,)) == 28
    assert tensor_bytes(GGMLQuantizationType.Q6_K, (4096, 10)) == 10 * 16 * 210


@pytest.mark.parametrize("ne0, expected", [(255, "f16"), (256, "q4_K"), (257, "f16"),
                                           (224, "q5_0"), (288, "q5_0"), (512, "q4_K")])
def test_fallback_when_the_row_is_not_a_multiple_of_the_block(ne0, expected):
    """tensor_type_fallback: Q4_K needs ne0 % 256 == 0, else Q5_0 (32), else F16."""
    plan = tensor_types_for_ftype([("blk.0.ffn_gate.weight", (ne0, 64)), ("output.weight", (256, 64))], "Q4_K_M")
    assert {p.name: p.type.name for p in plan}["blk.0.ffn_gate.weight"] == expected


def test_q8_0_refused_for_rows_not_a_multiple_of_32():
    with pytest.raises(ValueError, match="no fallback"):
        weights_bytes_for_ftype([("blk.0.ffn_up.weight", (100, 8))], "Q8_0")


# --- names ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("typed, name", [("Q4_K_M", "Q4_K_M"), ("q4_k_m", "Q4_K_M"), ("Q4_K", "Q4_K_M"),
                                         ("q8_0", "Q8_0"), ("F16", "F16"), ("fp16", "F16"), ("bf16", "BF16"),
                                         ("MOSTLY_Q5_K_S", "Q5_K_S"), ("LLAMA_FTYPE_MOSTLY_IQ4_XS", "IQ4_XS"),
                                         ("15", "Q4_K_M"), (15, "Q4_K_M"), (LlamaFileType.MOSTLY_Q6_K, "Q6_K"),
                                         ("all_f32", "F32"), ("mxfp4_moe", "MXFP4_MOE")])
def test_names_users_type(typed, name):
    assert file_type(typed).name == name


def test_unknown_ftype_raises_with_the_known_names():
    t = decoder_tensors(n_layers=1, hidden=256, n_heads=2, n_kv_heads=1, intermediate=512, vocab=300)
    with pytest.raises(ValueError) as e:
        weights_bytes_for_ftype(t, "Q4_K_X")
    assert isinstance(e.value, UsageError)
    assert "Q4_K_X" in str(e.value) and "Q4_K_M" in str(e.value) and "IQ4_XS" in str(e.value)
    with pytest.raises(ValueError):
        file_type(99)
    assert "Q4_K_M" in ftype_names() and ftype_names()[0] == "F32"


def test_bad_shape_is_refused():
    with pytest.raises(ValueError, match="blk.0.attn_q.weight"):
        weights_bytes_for_ftype([("blk.0.attn_q.weight", (0, 4))], "Q8_0")


# --- (b) Llama-3.1-8B by hand, and real file sizes ------------------------------------------------

def test_llama31_8b_q4_k_m_by_hand():
    """llama-quant.cpp for Q4_K_M (default Q4_K), 32 layers, untied:
    output.weight Q6_K; token_embd Q4_K; attn_q/attn_k/attn_output/ffn_gate/ffn_up Q4_K;
    attn_v and ffn_down Q6_K where use_more_bits(i, 32): i < 4, i >= 28, or (i - 4) % 3 == 2
    (layers 0-3, 6, 9, ..., 27, 28-31: 16 layers), Q4_K elsewhere; norms F32."""
    more = [i for i in range(32) if i < 4 or i >= 28 or (i - 4) % 3 == 2]
    assert len(more) == 16
    q4k_row = lambda n: n // 256 * 144
    q6k_row = lambda n: n // 256 * 210
    layer = (4096 * q4k_row(4096) * 2          # attn_q (4096 rows of 4096), attn_output
             + 1024 * q4k_row(4096)            # attn_k (8 KV heads x 128)
             + 14336 * q4k_row(4096) * 2       # ffn_gate, ffn_up
             + 2 * 4096 * 4)                   # attn_norm, ffn_norm (F32)
    attn_v = {True: 1024 * q6k_row(4096), False: 1024 * q4k_row(4096)}
    ffn_down = {True: 4096 * q6k_row(14336), False: 4096 * q4k_row(14336)}
    total = (128256 * q4k_row(4096)             # token_embd
             + 128256 * q6k_row(4096)           # output
             + 4096 * 4                         # output_norm
             + sum(layer + attn_v[i in more] + ffn_down[i in more] for i in range(32)))
    assert total == 4_912_898_048
    t = decoder_tensors(**LLAMA31_8B)
    assert weights_bytes_for_ftype(t, "q4_k_m") == total
    types = {p.name: p.type.name for p in tensor_types_for_ftype(t, "Q4_K_M")}
    assert types["output.weight"] == "q6_K" and types["token_embd.weight"] == "q4_K"
    assert [i for i in range(32) if types[f"blk.{i}.attn_v.weight"] == "q6_K"] == more
    assert [i for i in range(32) if types[f"blk.{i}.ffn_down.weight"] == "q6_K"] == more
    assert types["blk.5.attn_norm.weight"] == "f32"


@pytest.mark.parametrize("ftype, file_bytes", [
    ("Q4_K_M", 4_920_734_016),   # bartowski/Meta-Llama-3.1-8B-Instruct-GGUF, Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf
    ("Q8_0", 8_540_770_560),     # same repository, -Q8_0.gguf
])
def test_llama31_8b_against_published_files(ftype, file_bytes):
    est = weights_bytes_for_ftype(decoder_tensors(**LLAMA31_8B), ftype)
    assert est < file_bytes  # the file adds its header and vocabulary (~7.8 MB here)
    assert abs(est - file_bytes) / file_bytes < 0.01


#: llama-quantize's own help (tools/quantize/quantize.cpp QUANT_OPTIONS): file size in GiB of
#: Llama-3-8B (the shapes of Llama-3.1-8B) per file type.
LLAMA3_8B_GIB = {"Q4_0": 4.34, "Q4_1": 4.78, "Q5_0": 5.21, "Q5_1": 5.65, "Q2_K": 2.96, "Q3_K_S": 3.41,
                 "Q3_K_M": 3.74, "Q3_K_L": 4.03, "Q4_K_S": 4.37, "Q4_K_M": 4.58, "Q5_K_S": 5.21,
                 "Q5_K_M": 5.33, "Q6_K": 6.14, "Q8_0": 7.96}


@pytest.mark.parametrize("ftype", sorted(LLAMA3_8B_GIB))
def test_llama3_8b_sizes_llama_quantize_prints(ftype):
    est = weights_bytes_for_ftype(decoder_tensors(**LLAMA31_8B), ftype) / GiB
    assert abs(est - LLAMA3_8B_GIB[ftype]) / LLAMA3_8B_GIB[ftype] < 0.01


def test_qwen25_32b_q4_k_m_matches_a_real_llama_cpp_load():
    """tests/data/logs/review3/llamacpp-{weights,cpu-kv}.log: Qwen2.5-32B-Instruct-Q4_K_M.gguf, 771
    tensors (321 f32, 385 q4_K, 65 q6_K), file size 18.48 GiB, CUDA0 model buffer 18508.35 MiB (the
    allocation that fails in the first log) and the token embedding on the host (CPU_Mapped) 417.66 MiB."""
    logs = Path(__file__).parent / "data/logs/review3"
    weights, cpu_kv = (logs / "llamacpp-weights.log").read_text(), (logs / "llamacpp-cpu-kv.log").read_text()
    assert "type q4_K:  385 tensors" in weights and "allocating 18508.35 MiB on device 0" in weights
    assert "CUDA0 model buffer size = 18508.35 MiB" in cpu_kv and "CPU_Mapped model buffer size =   417.66 MiB" in cpu_kv
    t = decoder_tensors(n_layers=64, hidden=5120, n_heads=40, n_kv_heads=8, intermediate=27648, vocab=152064,
                        qkv_bias=True)
    plan = tensor_types_for_ftype(t, "Q4_K_M")
    assert Counter(p.type.name for p in plan) == {"f32": 321, "q4_K": 385, "q6_K": 65}
    embd = sum(p.nbytes for p in plan if p.name == "token_embd.weight")
    assert f"{embd / MiB:.2f}" == "417.66"
    assert f"{(weights_bytes_for_ftype(t, 'Q4_K_M') - embd) / MiB:.2f}" == "18508.35"
    assert f"{weights_bytes_for_ftype(t, 'Q4_K_M') / GiB:.2f}" == "18.48"


def test_qwen25_7b_q4_k_m_published_size():
    """Qwen/Qwen2.5-7B-Instruct-GGUF and bartowski list Qwen2.5-7B-Instruct Q4_K_M at 4.68 GB."""
    t = decoder_tensors(n_layers=28, hidden=3584, n_heads=28, n_kv_heads=4, intermediate=18944, vocab=152064,
                        qkv_bias=True)
    assert abs(weights_bytes_for_ftype(t, "Q4_K_M") - 4.68e9) / 4.68e9 < 0.01


def test_the_what_if_orders_the_ladder():
    t = decoder_tensors(**LLAMA31_8B)
    sizes = [weights_bytes_for_ftype(t, f) for f in ("Q2_K", "Q3_K_M", "Q4_K_S", "Q4_K_M", "Q5_K_M", "Q6_K",
                                                      "Q8_0", "F16")]
    assert sizes == sorted(sizes)
    assert weights_bytes_for_ftype(t, "F16") == weights_bytes_for_ftype(t, "BF16")


# --- llama.cpp's own type-selection snapshots ----------------------------------------------------

def _layers(kind: str, t: str, layers) -> dict[str, str]:
    return {f"blk.{i}.{kind}.weight": t for i in layers}


def _all(kinds: str, t: str, n: int) -> dict[str, str]:
    out: dict[str, str] = {}
    for k in kinds.split():
        out |= _layers(k, t, range(n))
    return out


def _check(tensors, ftype, default, overrides, **rules):
    got = {p.name: p.type.name for p in tensor_types_for_ftype(tensors, ftype, imatrix=False, **rules)
           if p.type.name not in ("f32",) or default == "f32"}
    want = {n: overrides.get(n, default) for n in got}
    assert {n: t for n, t in got.items() if t != want[n]} == {}
    assert set(overrides) <= set(got)


def _qwen3_06b_expected() -> dict[str, tuple[str, dict[str, str]]]:
    """tests/snapshots/qwen3-0.6b.schema (ggml-org/llama.cpp a45da44f, "Snapshot version: 1"):
    28 layers, n_embd 1024, n_head 16, n_head_kv 8. Tensors not listed keep the default type."""
    n, more = 28, [0, 1, 2, 5, 8, 11, 14, 17, 20, 23, 24, 25, 26, 27]
    out6 = {"output.weight": "q6_K"}
    iq2 = {"output.weight": "q5_K", "token_embd.weight": "q2_K", **_all("attn_v", "q2_K", n),
           **_layers("ffn_down", "q2_K", range(3))}
    iq2s = {"output.weight": "q5_K", "token_embd.weight": "iq3_s", **_all("attn_output attn_v", "iq3_s", n),
            **_layers("ffn_down", "iq3_s", range(3))}
    iq1 = {"output.weight": "q5_K", "token_embd.weight": "q2_K", **_all("attn_output", "iq2_xxs", n),
           **_all("attn_v", "q2_K", n), **_layers("ffn_down", "q2_K", range(3))}
    km = {**out6, **_layers("attn_v", "q6_K", more), **_layers("ffn_down", "q6_K", more)}
    return {
        "F32": ("f32", {}), "F16": ("f16", {}), "BF16": ("bf16", {}), "Q8_0": ("q8_0", {}), "Q6_K": ("q6_K", {}),
        "Q4_0": ("q4_0", out6), "Q4_1": ("q4_1", out6), "Q5_0": ("q5_0", out6), "Q5_1": ("q5_1", out6),
        "Q2_K": ("q2_K", {**out6, **_all("attn_output attn_v ffn_down", "q3_K", n)}),
        "Q3_K_S": ("q3_K", out6),
        "Q3_K_M": ("q3_K", {**out6, **_all("attn_output", "q4_K", n), **_all("attn_v", "q4_K", n),
                            **_layers("attn_v", "q5_K", [0, 1]), **_all("ffn_down", "q4_K", n),
                            **_layers("ffn_down", "q5_K", [0])}),
        "Q3_K_L": ("q3_K", {**out6, **_all("attn_output attn_v ffn_down", "q5_K", n)}),
        "Q4_K_S": ("q4_K", {**out6, **_layers("attn_v", "q5_K", range(4)), **_layers("ffn_down", "q5_K", range(3))}),
        "Q4_K_M": ("q4_K", km), "Q5_K_S": ("q5_K", out6), "Q5_K_M": ("q5_K", km),
        "IQ2_XXS": ("iq2_xxs", iq2), "IQ2_XS": ("iq2_xs", iq2),
        "Q2_K_S": ("q2_K", {**out6, **_layers("ffn_down", "q4_K", range(3))}),
        "IQ3_XS": ("iq3_s", {**out6, **_all("attn_k attn_q", "iq3_xxs", n),
                             **_layers("ffn_gate", "iq3_xxs", range(3, 24)), **_layers("ffn_up", "iq3_xxs", range(3, 24))}),
        "IQ3_XXS": ("iq3_xxs", {"output.weight": "q5_K", "token_embd.weight": "iq3_s",
                                **_all("attn_k attn_q", "iq2_s", n), **_all("attn_output attn_v", "iq3_s", n),
                                **_all("ffn_down", "q3_K", n), **_layers("ffn_down", "q4_K", range(3))}),
        "IQ1_S": ("iq1_s", iq1), "IQ1_M": ("iq1_m", iq1),
        "IQ4_NL": ("iq4_nl", {**out6, **_layers("ffn_down", "q5_K", range(3))}),
        "IQ4_XS": ("iq4_xs", {**out6, **_layers("ffn_down", "q5_K", range(3))}),
        "IQ3_S": ("iq3_s", out6),
        "IQ3_M": ("iq3_s", {**out6, **_all("attn_output attn_v", "q4_K", n), **_layers("ffn_down", "q4_K", range(3))}),
        "IQ2_S": ("iq2_xs", iq2s), "IQ2_M": ("iq2_s", iq2s),
        "TQ1_0": ("tq1_0", {**out6, "token_embd.weight": "q4_K"}),
        "TQ2_0": ("tq2_0", {**out6, "token_embd.weight": "q4_K"}),
        "MXFP4_MOE": ("mxfp4", {"output.weight": "q8_0", "token_embd.weight": "q8_0",
                                **_all("attn_k attn_output attn_q attn_v ffn_down ffn_gate ffn_up", "q8_0", n)}),
    }


QWEN3_06B = _qwen3_06b_expected()


@pytest.mark.parametrize("ftype", sorted(QWEN3_06B))
def test_qwen3_06b_snapshot(ftype):
    t = decoder_tensors(n_layers=28, hidden=1024, n_heads=16, n_kv_heads=8, head_dim=128, intermediate=3072,
                        vocab=151936, qk_norm=True)
    default, overrides = QWEN3_06B[ftype]
    _check(t, ftype, default, overrides)


def test_every_ftype_has_a_snapshot_or_is_new():
    assert set(FILE_TYPES) - set(QWEN3_06B) == {"NVFP4", "Q1_0"}


def _gpt_oss_120b():
    return decoder_tensors(n_layers=36, hidden=2880, n_heads=64, n_kv_heads=8, head_dim=64, intermediate=2880,
                           vocab=201088, n_experts=128, expert_intermediate=2880)


def _gpt_oss_expected() -> dict[str, tuple[str, dict[str, str]]]:
    """tests/snapshots/gpt-oss-120b.schema (a45da44f): n_embd 2880 is not a multiple of 256, so the
    K-quant choices fall back (Q2_K/Q3_K -> Q4_0, Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0);
    attn_output rows are 4096 wide and keep theirs."""
    n = 36
    more = [i for i in range(n) if i < 4 or i >= 31 or (i - 4) % 3 == 2]
    rest = [i for i in range(n) if i not in more]
    exps = "ffn_down_exps ffn_gate_exps ffn_up_exps"
    return {
        "Q4_0": ("q4_0", {"output.weight": "q8_0"}),
        "Q2_K": ("q2_K", {"output.weight": "q8_0", "token_embd.weight": "q4_0", **_all("attn_k attn_q " + exps, "q4_0", n),
                          **_all("attn_output", "q3_K", n), **_all("attn_v", "q5_0", n)}),
        "Q3_K_S": ("q3_K", {"output.weight": "q8_0", "token_embd.weight": "q4_0",
                            **_all("attn_k attn_q attn_v " + exps, "q4_0", n)}),
        "Q3_K_M": ("q3_K", {"output.weight": "q8_0", "token_embd.weight": "q4_0",
                            **_all("attn_k attn_q ffn_gate_exps ffn_up_exps", "q4_0", n), **_all("attn_output", "q4_K", n),
                            **_all("attn_v ffn_down_exps", "q5_0", n), **_layers("attn_v", "q5_1", [0, 1]),
                            **_layers("ffn_down_exps", "q5_1", [0, 1])}),
        "Q5_K_M": ("q5_K", {"output.weight": "q8_0", "token_embd.weight": "q5_1",
                            **_all("attn_k attn_q ffn_gate_exps ffn_up_exps", "q5_1", n),
                            **_layers("attn_v", "q8_0", more), **_layers("ffn_down_exps", "q8_0", more),
                            **_layers("attn_v", "q5_1", rest), **_layers("ffn_down_exps", "q5_1", rest)}),
        "Q6_K": ("q6_K", {"output.weight": "q8_0", "token_embd.weight": "q8_0",
                          **_all("attn_k attn_q attn_v " + exps, "q8_0", n)}),
    }


GPT_OSS = _gpt_oss_expected()


@pytest.mark.parametrize("ftype", sorted(GPT_OSS))
def test_gpt_oss_120b_snapshot(ftype):
    default, overrides = GPT_OSS[ftype]
    _check(_gpt_oss_120b(), ftype, default, overrides)


def test_moe_experts_mxfp4_and_router_kept():
    plan = {p.name: p.type.name for p in tensor_types_for_ftype(_gpt_oss_120b(), "MXFP4_MOE")}
    assert plan["blk.7.ffn_down_exps.weight"] == "mxfp4" and plan["blk.7.attn_q.weight"] == "q8_0"
    assert plan["blk.7.ffn_gate_inp.weight"] == "f32" and plan["output.weight"] == "q8_0"


def test_llama_70b_snapshot_bumps_attn_v():
    """tests/snapshots/meta-llama-3.1-70b-instruct.schema: 80 layers with GQA is LLM_TYPE_70B, whose
    attn_v goes from Q3_K/Q4_K to Q5_K."""
    t = decoder_tensors(n_layers=80, hidden=8192, n_heads=64, n_kv_heads=8, intermediate=28672, vocab=128256)
    n = 80
    _check(t, "Q2_K", "q2_K", {"output.weight": "q6_K", **_all("ffn_down attn_output", "q3_K", n),
                               **_all("attn_v", "q5_K", n)})
    _check(t, "Q3_K_S", "q3_K", {"output.weight": "q6_K", **_all("attn_v", "q5_K", n)})
    _check(t, "Q3_K_M", "q3_K", {"output.weight": "q6_K", **_all("attn_output", "q4_K", n), **_all("attn_v", "q5_K", n),
                                 **_all("ffn_down", "q4_K", n), **_layers("ffn_down", "q5_K", range(5))})
    # the same shapes under another architecture are not a "70B" to llama.cpp
    plan = {p.name: p.type.name for p in tensor_types_for_ftype(t, "Q3_K_S", arch="gemma2")}
    assert plan["blk.9.attn_v.weight"] == "q3_K"


def test_tied_embeddings_take_the_output_rule():
    t = decoder_tensors(n_layers=2, hidden=256, n_heads=2, n_kv_heads=1, intermediate=512, vocab=300, tied=True)
    plan = {p.name: p.type.name for p in tensor_types_for_ftype(t, "Q4_K_M")}
    assert "output.weight" not in plan and plan["token_embd.weight"] == "q6_K"


def test_imatrix_only_where_llama_quantize_demands_it():
    t = decoder_tensors(**LLAMA31_8B)
    # IQ4_XS without an imatrix gives the first n/8 ffn_down Q5_K; with one, it leaves them
    assert weights_bytes_for_ftype(t, "IQ4_XS", imatrix=True) < weights_bytes_for_ftype(t, "IQ4_XS")
    # IQ3_XXS cannot be made without one (attn_q -> IQ2_S): the default assumes it
    assert weights_bytes_for_ftype(t, "IQ3_XXS") == weights_bytes_for_ftype(t, "IQ3_XXS", imatrix=True)


# --- tiny real GGUF files --------------------------------------------------------------------------

def _write(path: Path, plan) -> Path:
    w = GGUFWriter(str(path), "llama")
    w.add_block_count(2)
    w.add_context_length(256)
    w.add_embedding_length(256)
    w.add_feed_forward_length(288)
    w.add_head_count(2)
    w.add_head_count_kv(1)
    for p in plan:
        q = GGMLQuantizationType(p.type.type_id)
        np_shape = tuple(reversed(p.shape))
        if p.type.name == "f32":
            w.add_tensor(p.name, np.zeros(np_shape, np.float32))
        else:
            row = p.type.row_bytes(p.shape[0])
            w.add_tensor(p.name, np.zeros(np_shape[:-1] + (row,), np.uint8), raw_dtype=q)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.mark.parametrize("ftype", ["Q4_K_M", "Q8_0", "IQ4_XS", "Q3_K_L", "IQ2_M", "TQ1_0", "Q1_0", "MXFP4_MOE"])
def test_tiny_gguf_round_trip(tmp_path, ftype):
    """A GGUF laid out as `ftype` (ffn rows of 288: not a multiple of 256, so K-quants fall back) reads
    back through gguf's reader with our per-tensor bytes, and its own tensor infos give the same total
    as vramdoctor's GGUF reader."""
    from vramdoctor.sources.gguf_file import read_gguf

    t = decoder_tensors(n_layers=2, hidden=256, n_heads=2, n_kv_heads=1, intermediate=288, vocab=384)
    if ftype == "Q1_0":  # Q1_0 has 128-value blocks and no fallback: use rows it takes
        t = decoder_tensors(n_layers=2, hidden=256, n_heads=2, n_kv_heads=1, intermediate=384, vocab=384)
    plan = tensor_types_for_ftype(t, ftype)
    path = _write(tmp_path / "tiny.gguf", plan)
    reader = GGUFReader(str(path))
    by_name = {p.name: p for p in plan}
    for rt in reader.tensors:
        p = by_name[rt.name]
        assert tuple(int(x) for x in rt.shape) == p.shape
        assert rt.tensor_type.value == p.type.type_id
        assert int(rt.n_bytes) == p.nbytes
    infos = [(rt.name, tuple(int(x) for x in rt.shape), rt.tensor_type) for rt in reader.tensors]
    assert weights_bytes_for_ftype(infos, ftype) == read_gguf(path).weights.total_bytes
    if ftype == "Q4_K_M":
        types = {p.name: p.type.name for p in plan}
        # 2 layers: use_more_bits is true for layer 1 (>= 7*2/8) only
        assert types["blk.1.ffn_down.weight"] == "q8_0"   # Q6_K -> Q8_0: rows of 288 are not 256-blocks
        assert types["blk.0.ffn_down.weight"] == "q5_0"   # Q4_K -> Q5_0
        assert types["blk.0.ffn_gate.weight"] == "q4_K"   # rows of 256: no fallback
        assert (types["blk.0.attn_v.weight"], types["blk.1.attn_v.weight"]) == ("q4_K", "q6_K")


def test_decoder_tensors_refuses_nonsense():
    with pytest.raises(ValueError, match="n_heads"):
        decoder_tensors(n_layers=2, hidden=256, n_heads=0, n_kv_heads=1, intermediate=512, vocab=300)


def test_decoder_tensors_moe_layout():
    t = dict(decoder_tensors(n_layers=2, hidden=512, n_heads=4, n_kv_heads=2, intermediate=1024, vocab=300,
                             n_experts=8, expert_intermediate=256, shared_intermediate=768))
    assert t["blk.1.ffn_gate_exps.weight"] == (512, 256, 8) and t["blk.1.ffn_down_exps.weight"] == (256, 512, 8)
    assert t["blk.1.ffn_gate_inp.weight"] == (512, 8) and t["blk.0.ffn_down_shexp.weight"] == (768, 512)
    assert "blk.0.ffn_gate.weight" not in t and t["output.weight"] == (512, 300)
    # Mixtral-like (8 experts): attn_v and attn_k go to Q8_0 in every K mix
    plan = {p.name: p.type.name for p in tensor_types_for_ftype(list(t.items()), "Q4_K_M")}
    assert plan["blk.0.attn_v.weight"] == "q8_0" and plan["blk.0.attn_k.weight"] == "q8_0"
    assert plan["blk.0.ffn_gate_inp.weight"] == "f32"
