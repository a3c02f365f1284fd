"""IPEX-LLM (intel/ipex-llm, formerly BigDL-LLM): transformers-style models on Intel GPUs (Arc, Flex, Max) through
IPEX and oneAPI's SYCL runtime, with its own low-bit weights (`load_in_4bit`, `load_in_low_bit="sym_int4"|"fp6"|...`).
Its serving front ends (its vLLM and Ollama builds) print those engines' lines; this module reads what its own Python
package prints.

Sources: ipex-llm `python/llm/src/ipex_llm/transformers/low_bit_linear.py` (`FP4Params.to` quantizes each weight and
moves it to the XPU as the model is placed: `model.to('xpu')`), `transformers/model.py` (`from_pretrained`,
`load_low_bit`), `transformers/convert.py` (`ggml_convert_low_bit`); its troubleshooting notes, which give a device out
of memory on Intel GPUs as `PI_ERROR_OUT_OF_RESOURCES` / `UR_RESULT_ERROR_OUT_OF_RESOURCES` as often as by name.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import rx

LOG = LogWords(
    # (its package in a path or a frame, its benchmark's folder, its env-check's "ipex-llm Version:"; BigDL-LLM's older
    # name)
    fingerprint=rx(r"\bipex[_-]llm\b|\bbigdl[_-]llm\b|\bbigdl[/.]llm\b"),
    # (Level Zero's OUT_OF_RESOURCES from an XPU allocation: on Intel GPUs most often the device's memory, so the log
    # is told as maybe memory, not as a driver's fault: logs.diagnose._MAYBE_MEMORY)
    maybe_memory=("sycl-out-of-resources",),
    frames={
        # each weight quantized and placed on the XPU as the model is moved there (FP4Params.to, its convert step)
        "WEIGHTS": rx(r"ipex_llm[/\\]transformers[/\\](?:low_bit_linear\.py\W+line \d+, in (?:to|xpu|cuda|__new__|"
                      r"quantize)\b|convert\.py|model\.py\W+line \d+, in (?:from_pretrained|load_low_bit|load_convert)\b)|"
                      r"\bFP4Params\(super\(\)\.to\("),
        # a forward pass of a model already placed (its low-bit layers' forward, generate)
        "RUNTIME": rx(r"ipex_llm[/\\]transformers[/\\](?:low_bit_linear\.py\W+line \d+, in forward\b|models[/\\])|"
                      r"\bin generate\b"),
    },
)

ENGINE = Engine(
    # (its models are transformers' models, with their shard bar and frames: its own lines name the engine)
    name="ipex-llm", label="IPEX-LLM (Intel GPUs)", log=LOG, wraps="transformers",
    aliases=("ipex_llm", "bigdl-llm", "bigdl_llm"),
    flags={"quantization": "load_in_low_bit=\"sym_int4\" (or load_in_4bit=True)",
           "max_model_len": "a shorter input / max_new_tokens"},
)
