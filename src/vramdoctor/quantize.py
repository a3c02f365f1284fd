"""`--quantization METHOD`: the weights of a model served quantized, from an unquantized model's
description (the base model's config, or its bf16 checkpoint). Pure: a ModelSpec in, one out.

Widths per method are those of `sources.params.bytes_per_param` (the formats' own layouts); the
embedding and LM head stay in the compute dtype, as every method leaves them. A checkpoint that is
already quantized keeps its own method: vLLM refuses a `--quantization` that differs from the
checkpoint's `quantization_config` (`config.py`, "does not match the quantization method specified
in the `quantization` argument"), apart from the Marlin kernels of the same format.
"""

from __future__ import annotations

from dataclasses import replace

from .dtypes import dtype_bytes
from .errors import UsageError
from .sources.params import bytes_per_param
from .spec import ModelSpec

#: vLLM's spelling of each method -> the quantization_config a checkpoint of that method carries
#: (4-bit with groups of 128 for AWQ and GPTQ, their usual export; nf4 for bitsandbytes in-flight).
METHODS: dict[str, dict] = {
    "awq": {"quant_method": "awq", "bits": 4, "group_size": 128},
    "awq_marlin": {"quant_method": "awq", "bits": 4, "group_size": 128},
    "gptq": {"quant_method": "gptq", "bits": 4, "group_size": 128},
    "gptq_marlin": {"quant_method": "gptq", "bits": 4, "group_size": 128},
    "bitsandbytes": {"quant_method": "bitsandbytes", "load_in_4bit": True},
    "fp8": {"quant_method": "fp8"},
    "modelopt_fp4": {"quant_method": "modelopt_fp4"},
    "nvfp4": {"quant_method": "modelopt_fp4"},
}


def _family(method: str) -> str:
    """One name per format: the Marlin kernels of AWQ/GPTQ, and ModelOpt's FP4 under its names."""
    m = method.lower().replace("_marlin", "").replace("-", "_")
    return "modelopt" if m in ("modelopt_fp4", "nvfp4", "modelopt") else m


def with_quantization(model: ModelSpec, method: str | None) -> ModelSpec:
    """The model as served with `--quantization method` (None: unchanged).

    Raises UsageError for an unknown method, for one that differs from the checkpoint's own, or when
    the parameter count is unknown (a GGUF file is quantized already).
    """
    if not method:
        return model
    key = method.lower()
    if key not in METHODS:
        raise UsageError(f"'{method}' is not a method modelled here.", option="--quantization",
                         hint="Known: " + ", ".join(METHODS) + ".")
    if model.weights.tensors:  # a GGUF file: llama.cpp's formats, not a checkpoint method
        raise UsageError(f"'{method}' is a checkpoint method; a GGUF file is in llama.cpp's formats.",
                         option="--quantization", hint="Give a llama.cpp file type with --weights: q4_k_m, q8_0, ...")
    if model.quantization:
        own = _family(model.quantization)
        if own == _family(METHODS[key]["quant_method"]) or own == _family(key):
            return model
        raise UsageError(f"the checkpoint is already quantized with {model.quantization}, and vLLM refuses a "
                         f"different --quantization ({method}).", option="--quantization",
                         hint="Leave --quantization out: the checkpoint's own method is used.")
    w = model.weights
    if not w.num_params or w.embedding_params is None:
        raise UsageError("needs the model's parameter count, which this source does not give.",
                         option="--quantization", hint="Pass the model's config.json, folder or Hub id.")
    width = dtype_bytes(model.dtype)
    bpp, label = bytes_per_param(METHODS[key], width)
    quantized = max(0, w.num_params - w.embedding_params)
    total = int(quantized * bpp + (w.num_params - quantized) * width)
    weights = replace(w, total_bytes=total, exact=False,
                      source=f"estimated: {w.num_params / 1e9:.2f}B parameters as --quantization {key} ({label}; "
                             "embeddings in the model dtype)")
    # (the layout is of the checkpoint's own tensors: the engines' quantized ones are not modelled)
    return replace(model, weights=weights, quantization=key, layout=None)
