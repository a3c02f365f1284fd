"""`--quantization METHOD`: the base model's description served quantized gives the weights of the
quantized checkpoint; a quantized checkpoint keeps its own method, as vLLM requires."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import DATA, load_config
from vramdoctor.engines import Settings
from vramdoctor.errors import UsageError
from vramdoctor.estimate import estimate
from vramdoctor.quantize import with_quantization
from vramdoctor.sources.hf_config import spec_from_config

GIB = 2**30


def spec(name):
    return spec_from_config(load_config(name), name=name)


@pytest.mark.parametrize("base,quantized,method", [
    ("meta-llama__Llama-2-13b-hf.config.json", "TheBloke__Llama-2-13B-chat-GPTQ.config.json", "gptq"),
    ("Qwen__Qwen3-32B.config.json", "Qwen__Qwen3-32B-FP8.config.json", "fp8"),
    ("Qwen__Qwen3-30B-A3B.config.json", "Qwen__Qwen3-30B-A3B-FP8.config.json", "fp8"),
])
def test_base_config_with_method_matches_the_quantized_checkpoints_config(base, quantized, method):
    served = with_quantization(spec(base), method)
    assert served.weights.total_bytes == spec(quantized).weights.total_bytes
    assert served.quantization == method


def test_embeddings_stay_in_the_model_dtype():
    """Qwen2.5-7B-Instruct as AWQ 4-bit, group 128: 4 bits + an fp16 scale and a packed 4-bit zero per 128."""
    base = spec("Qwen__Qwen2.5-7B-Instruct.config.json")
    cfg = load_config("Qwen__Qwen2.5-7B-Instruct.config.json")
    emb = 2 * cfg["vocab_size"] * cfg["hidden_size"]  # untied embedding and LM head
    n = base.weights.num_params
    awq = with_quantization(base, "awq")
    assert awq.weights.total_bytes == int((n - emb) * (0.5 + 2.5 / 128) + emb * 2)
    assert not awq.weights.exact and "--quantization awq" in awq.weights.source


def test_bitsandbytes_double_quantization_width():
    from vramdoctor.sources.params import bytes_per_param

    single, _ = bytes_per_param({"quant_method": "bitsandbytes", "load_in_4bit": True}, 2)
    double, label = bytes_per_param({"quant_method": "bitsandbytes", "load_in_4bit": True,
                                     "bnb_4bit_use_double_quant": True}, 2)
    assert single == 0.5 + 4 / 64
    assert double == 0.5 + 1 / 64 + 4 / (64 * 256) and "double" in label


def test_a_quantized_checkpoint_keeps_its_own_method():
    gptq = spec("TheBloke__Llama-2-13B-chat-GPTQ.config.json")
    assert with_quantization(gptq, "gptq") is gptq
    assert with_quantization(gptq, "gptq_marlin") is gptq  # the Marlin kernel of the same format
    with pytest.raises(UsageError, match="already quantized with gptq"):
        with_quantization(gptq, "awq")


def test_unknown_method_is_refused():
    with pytest.raises(UsageError, match="Known: awq"):
        with_quantization(spec("Qwen__Qwen2.5-7B-Instruct.config.json"), "q4_k_m")


def test_the_pool_appears_once_the_weights_are_quantized():
    """Qwen2.5-7B on a 24 GiB card at 0.9: bf16 weights leave a small pool, AWQ a large one."""
    base = spec("Qwen__Qwen2.5-7B-Instruct.config.json")
    s = Settings(max_model_len=32768)
    bf16 = estimate(base, settings=s, gpu_bytes=int(23.64 * GIB))
    awq = estimate(with_quantization(base, "awq"), settings=s, gpu_bytes=int(23.64 * GIB))
    assert awq.kv_pool_bytes - bf16.kv_pool_bytes == bf16.weights_bytes - awq.weights_bytes > 8 * GIB


def test_no_4bit_advice_for_weights_already_at_4_bits():
    """R11's bitsandbytes 4-bit Qwen2.5-7B on an 8 GiB card at 0.7: no pool, and 4-bit weights are not advised
    again (they are what is served)."""
    model = with_quantization(spec("Qwen__Qwen2.5-7B-Instruct.config.json"), "bitsandbytes")
    e = estimate(model, settings=Settings(gpu_memory_utilization=0.7, engine_version="0.7.3"),
                 gpu_bytes=8 * GIB)
    assert e.kv_pool_tokens == 0
    assert not any("4-bit" in a.change for a in e.advice)
    assert any("--tensor-parallel-size" in a.flags for a in e.advice)


def run(*args):
    return subprocess.run([sys.executable, "-m", "vramdoctor", "estimate", *args], capture_output=True, text=True)


def test_cli_quantization():
    config = str(DATA / "configs" / "meta-llama__Llama-2-13b-hf.config.json")
    r = run(config, "--quantization", "gptq", "--json")
    assert r.returncode == 0, r.stderr
    quantized = run(str(DATA / "configs" / "TheBloke__Llama-2-13B-chat-GPTQ.config.json"), "--json")
    assert json.loads(r.stdout)["weights_bytes"] == json.loads(quantized.stdout)["weights_bytes"]
    r = run(config, "--engine", "llamacpp", "-q", "awq")
    assert r.returncode == 2 and "GGUF" in r.stderr and "Traceback" not in r.stderr
