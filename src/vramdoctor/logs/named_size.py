"""The least the weights can weigh, told by the model's name and the log's own settings, where the log shows no line
that places an out of memory: if even that least does not fit the GPUs the weights go to, the weights ledger broke,
whatever step the log leaves out. Pure: figures in, a finding out.

A lower bound, never an estimate: the parameters the name states (`mpt-30b`, `Qwen2.5-72B-Instruct`, `Qwen3-30B-A3B`:
30), less a tenth for the name's rounding (Llama-2-7b has 6.74 billion); bytes per parameter 2 where the log shows a
16-bit dtype and that nothing quantizes the weights (a serving engine's config line with `quantization=None`;
transformers' `torch_dtype`), 4 for 32-bit, else 1 (checkpoints published in fp8: DeepSeek-V3, MiniMax-M2), and 0.5
for a quantized model or a family published in 4 bits (gpt-oss in MXFP4, Kimi-K2-Thinking in INT4); nothing at all for
3 bits or fewer, a mixture named as `8x7B`, or a name with two counts. The GPUs are the tensor and pipeline parallel
sizes the log shows (1 where it shows neither and nothing else spreads the weights); the least must pass what they
hold by a tenth. Only engines that put the whole model on the GPUs are read (vLLM, SGLang, TGI, transformers, LMDeploy,
TensorRT-LLM, Aphrodite); a set-up that puts weights elsewhere (a device map, CPU offload, experts across
data-parallel ranks, several processes, DeepSpeed, FSDP) gets nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .facts import latest, positive
from .settings import current

GIB = 2**30

#: a count of parameters in billions as a model's name states it, standing alone ("mpt-30b", "Qwen2.5-7B-Instruct",
#: "Llama-2-13b-chat-hf", "OPT-1.3b"); not one joined to a letter before it (an MoE's active count, "A3B", or a
#: mixture "8x7B") or after it ("bloom-7b1")
_PARAMS = re.compile(r"(?<![\w.])(\d{1,4}(?:\.\d{1,2})?)[bB](?!\w)")
#: weights of 3 bits or fewer, or ternary: no bound from 4 bits holds
_VERY_LOW_BIT = re.compile(r"\b[123]\.?\d*-?bits?\b|\bi?q[123]_|\biq[1-3]\b|\btq[12]_|\bint[23]\b|\bw[23]a\d+\b|"
                           r"1\.58|bitnet|ternary|-[1-3](?:\.\d+)?bpw|\baqlm\b|\bquip", re.I)
#: families published with fewer than 16 bits per parameter, and the least they weigh per parameter
_NATIVE = ((re.compile(r"gpt-oss|kimi", re.I), 0.5),
           (re.compile(r"deepseek-(?:v3|r1)(?![\w.-]*distill)|minimax-m|mistral-large-3", re.I), 1.0))
#: engines that put the whole model on the GPUs unless told otherwise (a device map, CPU offload, checked apart); the
#: others keep layers in host memory by design (llama.cpp and the servers over it, ExLlamaV2, KTransformers), or are
#: not known: a size tells nothing of their GPU
_WHOLE_ON_GPU = frozenset({"vllm", "sglang", "tgi", "transformers", "lmdeploy", "tensorrt-llm", "triton-trtllm",
                           "aphrodite"})
#: how much more than the GPUs hold the least size must be: a name's count and a GPU's capacity are both rounded
_MARGIN = 1.1


@dataclass(frozen=True)
class NamedSize:
    """The weights' least size (bytes) against the GPU memory they go to (bytes: one GPU's total capacity times
    `gpus`), and the words that say how it was found."""

    least_bytes: int
    capacity_bytes: int
    gpus: int
    reason: str


def params_billion(name: str) -> float | None:
    """The parameters (billions) a model's name states: its last path part's one count ("mosaicml/mpt-30b" -> 30.0,
    "Qwen3-30B-A3B" -> 30.0); None where it states none, two different ones, or a mixture ("Mixtral-8x7B")."""
    last = name.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    counts = {float(m.group(1)) for m in _PARAMS.finditer(last)}
    return counts.pop() if len(counts) == 1 and min(counts) > 0 else None


def _bytes_per_param(n: dict, name: str, quantized: bool, engine: str) -> float | None:
    """The least bytes a parameter takes (see the module docstring); None where no bound holds."""
    said = " ".join(str(n.get(k) or "") for k in ("quantization", "_quant_said", "_quantized_name")) + " " + name
    if _VERY_LOW_BIT.search(said):
        return None
    if quantized or n.get("_quant_said"):
        return 0.5
    for family, least in _NATIVE:
        if family.search(name):
            return least
    dtype = str(latest(n, "_weights_dtype") or "").lower()
    # (a 16- or 32-bit dtype is the weights' only where nothing quantizes them: a serving engine's --dtype is its
    # activations', and it reads a checkpoint's own quantization (fp8 published) unless its config line says None;
    # transformers' torch_dtype casts what it loads, quantized only by a config the log would show)
    unquantized = bool(n.get("_quant_none")) and not n.get("quantization") or engine == "transformers"
    if unquantized and dtype in ("float32", "float", "fp32"):
        return 4.0
    if unquantized and dtype in ("bfloat16", "float16", "half", "bf16", "fp16"):
        return 2.0
    return 1.0


def _gpus(n: dict) -> int | None:
    """The GPUs that share the weights: tensor times pipeline parallel size as the log shows them, else 1 where
    nothing in the log spreads the weights over more; None where something does, or the count is not shown."""
    tp, pp = latest(n, "tensor_parallel_size"), latest(n, "pipeline_parallel_size")
    others = any(i != 0 for i in (n.get("_gpu_index") or []) if isinstance(i, int))
    if n.get("_weights_spread") or (others and tp is None):
        return None
    tp = tp if isinstance(tp, int) and tp > 0 else 1
    pp = pp if isinstance(pp, int) and pp > 0 else 1
    return tp * pp


def weights_exceed_gpus(n: dict, engine: str) -> NamedSize | None:
    """The weights' least size where it is more than the GPUs they go to hold (`n`: a run's figures; engine: the
    log's engine); None where it fits, or where the
    name, the capacity or the GPUs are not known. Sources: the name (`model_name`, else a script's
    `from_pretrained("...")` or `model_id = "..."`, `_pretrained_name`), PyTorch's "GPU 0 has a total capacity of X
    GiB" (`total_memory_bytes`), the engine's `tensor_parallel_size` / `pipeline_parallel_size`."""
    if engine not in _WHOLE_ON_GPU or n.get("cpu_offload_gb"):
        return None
    for key in ("model_name", "_pretrained_name"):
        name = latest(n, key)
        params = params_billion(name) if isinstance(name, str) else None
        if params:
            break
    else:
        return None
    per = _bytes_per_param(n, name, current(n, None).quantized, engine)
    capacity = max(positive(n, "total_memory_bytes"), default=0)
    gpus = _gpus(n)
    if per is None or not capacity or gpus is None:
        return None
    least = int(params * 1e9 * 0.9 * per)
    if least <= _MARGIN * capacity * gpus:
        return None
    on = f"{gpus} GPUs of {capacity / GIB:.2f} GiB" if gpus > 1 else f"a GPU of {capacity / GIB:.2f} GiB"
    return NamedSize(least_bytes=least, capacity_bytes=capacity * gpus, gpus=gpus,
                     reason=f"the model's size from its name: {name!s:.100} states {params:g} billion parameters, "
                            f"at least {least / GIB:.1f} GiB of weights at {per:g} byte{'' if per == 1 else 's'} each (less a tenth for the "
                            f"name's rounding), more than {on} hold")
