"""`--weights FORMAT`: the weights in another llama.cpp file type (by llama-quantize's rules, over a GGUF's own
tensors or a config's shape) or checkpoint method, and the estimate that follows from them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tinygguf import write_model
from vramdoctor.engines import Settings, get_engine
from vramdoctor.errors import UsageError
from vramdoctor.gguf_formats import decoder_tensors, weights_bytes_for_ftype
from vramdoctor.sources.catalog import read_catalog
from vramdoctor.sources.gguf_file import read_gguf
from vramdoctor.whatif import with_weights_format


def llama():
    return read_catalog("meta-llama/Llama-3.1-8B-Instruct")


@pytest.mark.parametrize("fmt,file_bytes", [("q4_k_m", 4_920_734_016), ("Q8_0", 8_540_770_560)])
def test_config_what_if_matches_the_published_files(fmt, file_bytes):
    """bartowski's Meta-Llama-3.1-8B-Instruct GGUFs: tensor data is all of the file but its header and
    vocabulary (about 8 MB)."""
    m = with_weights_format(llama(), fmt)
    expected = weights_bytes_for_ftype(decoder_tensors(n_layers=32, hidden=4096, n_heads=32, n_kv_heads=8,
                                                       intermediate=14336, vocab=128256), fmt)
    assert m.weights.total_bytes == expected
    assert m.weights.total_bytes == pytest.approx(file_bytes, rel=0.005)
    assert not m.weights.exact and fmt.upper() in m.weights.source and m.quantization == fmt.upper()


def test_placement_follows_the_planned_tensors():
    """Per-layer bytes, the input embedding and the head add up to the total; llama.cpp keeps the
    embedding on the host, so the GPU holds the rest."""
    m = with_weights_format(llama(), "q4_k_m")
    w = m.weights
    assert sum(w.layer_bytes) + w.input_bytes + w.output_bytes == w.total_bytes
    assert get_engine("llamacpp").weights_bytes(m, Settings()) == w.total_bytes - w.input_bytes
    # use_more_bits: layer 0 holds Q6_K attn_v and ffn_down, layer 4 Q4_K ones
    assert w.layer_bytes[0] > w.layer_bytes[4]


def test_gguf_what_if_requantizes_the_files_own_tensors(tmp_path):
    path = write_model(tmp_path / "f16.gguf", n_layer=4, n_embd=256, n_head=4, n_head_kv=2, n_ff=512,
                       extra_vocab=1000)
    f16 = read_gguf(path)
    assert f16.weights.tensors and len(f16.weights.tensors) == len({t[0] for t in f16.weights.tensors})
    q8 = with_weights_format(f16, "q8_0")
    assert q8.weights.total_bytes == weights_bytes_for_ftype(f16.weights.tensors, "q8_0", arch="llama")
    assert q8.weights.total_bytes < 0.6 * f16.weights.total_bytes
    assert "the GGUF file's own tensors" in q8.weights.source


def test_checkpoint_methods_go_to_quantization():
    assert with_weights_format(llama(), "awq").quantization == "awq"


def test_unknown_format_and_unknown_tensors_are_refused():
    with pytest.raises(UsageError, match="q4_k_m"):
        with_weights_format(llama(), "q4_k_z")
    mla = read_catalog("deepseek-ai/DeepSeek-V2-Lite")
    with pytest.raises(UsageError, match="GGUF file"):
        with_weights_format(mla, "q4_k_m")


def test_cli_weights_what_if():
    args = [sys.executable, "-m", "vramdoctor", "estimate", "meta-llama/Llama-3.1-8B-Instruct", "--engine",
            "llamacpp", "--gpu", "RTX-4060", "--json"]
    q8 = json.loads(subprocess.run(args + ["--weights", "q8_0"], capture_output=True, text=True, check=True).stdout)
    q4 = json.loads(subprocess.run(args + ["--weights", "q4_k_m"], capture_output=True, text=True, check=True).stdout)
    assert q8["starts"] is False and q4["starts"] is True
    assert q4["weights_bytes"] < q8["weights_bytes"]


def test_gpt_oss_q4_k_m_is_the_allow_requantize_result_and_says_so():
    """gpt-oss's experts are MXFP4 in its checkpoint and in the GGUF converted from it: llama-quantize Q4_K_M stops
    with "requantizing from type mxfp4 is disabled" unless given --allow-requantize. The types planned are that
    result (the 2880-wide rows fall back: Q4_K to Q5_0, Q6_K to Q8_0), and the estimate says so."""
    from conftest import load_config
    from vramdoctor.sources.hf_config import spec_from_config

    m = spec_from_config(load_config("openai__gpt-oss-20b.config.json"), name="gpt-oss-20b")
    assert m.quantization == "mxfp4"
    q4 = with_weights_format(m, "q4_k_m")
    note = next(n for n in q4.notes if "--allow-requantize" in n)
    assert "72 tensors are mxfp4 already" in note and "requantizing from type mxfp4 is disabled" in note
    assert "(q5_0, q8_0)" in note and "--tensor-type exps=mxfp4" in note
    # the file type that keeps them MXFP4 needs no requantizing and says nothing
    assert not any("requantize" in n for n in with_weights_format(m, "mxfp4_moe").notes)
    # the note reaches the estimate
    from vramdoctor.estimate import estimate

    e = estimate(q4, engine="llamacpp", settings=Settings(), gpu_bytes=24 * 2**30)
    assert note in e.notes


def test_a_quantized_gguf_is_requantized_only_with_allow_requantize(tmp_path):
    """A GGUF whose matrices are Q8_0 and experts MXFP4: asked as Q4_K_M, llama-quantize stops at the first
    quantized tensor in its order (a Q8_0 attention weight); as MXFP4_MOE nothing quantized changes type."""
    path = write_model(tmp_path / "moe.gguf", n_layer=2, n_embd=256, n_head=4, n_head_kv=2, n_ff=256,
                       weight_type="Q8_0", n_expert=4, expert_type="MXFP4")
    m = read_gguf(path)
    assert {t[2] for t in m.weights.tensors if "_exps." in t[0]} == {"MXFP4"}
    note = next(n for n in with_weights_format(m, "q4_k_m").notes if "--allow-requantize" in n)
    assert note.startswith("14 tensors are mxfp4 / q8_0 already:")
    assert "requantizing from type q8_0 is disabled" in note and "exps=mxfp4" in note
    assert with_weights_format(m, "mxfp4_moe").notes == m.notes
    f16 = read_gguf(write_model(tmp_path / "f16.gguf"))
    assert with_weights_format(f16, "q4_k_m").notes == f16.notes  # F16 sources need no flag
