"""Holds a log's figures against the estimate for a known model. Pure."""

from __future__ import annotations

import re
from typing import Callable

from ..engines import Settings, get_engine
from ..spec import ModelSpec
from .advice.sizes import model_buffers

GIB = 2**30
# the ratio of the log's KV bytes per token to the estimate's, and what most often explains it
_EXPLAIN = {0.5: "an 8-bit KV cache or tensor parallelism 2", 0.25: "tensor parallelism 4", 0.125: "tensor parallelism 8"}


def model_checker(spec: ModelSpec) -> Callable[[dict, dict, str], list[str]]:
    """A callable(numbers, derived, engine) -> notes: the log's KV bytes per token and weights
    against `spec`'s estimate under that engine's rules (tp 1, KV dtype auto)."""

    def check(numbers: dict, derived: dict, engine: str) -> list[str]:
        notes = []
        served = numbers.get("model_name")
        a, b = (_base(served) if isinstance(served, str) else ""), _base(spec.name)
        if a and b and a not in b and b not in a:  # ("llama-3.1-8b-instruct-q4_k_m" is that model, quantized)
            notes.append(f"the log serves {served}, not {spec.name}: its figures are not compared with another "
                         "model's estimate (pass the model the log serves)")
            return notes
        rules = get_engine(engine if engine in ("vllm", "sglang", "llamacpp") else "generic")
        expect = rules.engine_bytes_per_token(spec, Settings())
        seen = derived.get("kv_bytes_per_token")
        if seen and expect:
            ratio = seen / expect
            if abs(ratio - 1) > 0.03:
                why = _EXPLAIN.get(round(ratio * 8) / 8, "a different model or settings")
                notes.append(f"KV bytes per token from the log {seen:,} vs {expect:,} estimated for {spec.name} "
                             f"(ratio {ratio:.2f}: {why}?)")
            else:
                notes.append(f"KV bytes per token {seen:,} match the estimate for {spec.name} ({expect:,}).")
        w, what = numbers.get("weights_bytes"), "weights in the log"
        if not (isinstance(w, int) and w > 0):
            w, what = model_buffers(numbers), "weights in the log (its model buffers)"
        if w and spec.weights.total_bytes:
            r = w / spec.weights.total_bytes
            if abs(r - 1) > 0.1:
                why = ("tensor parallelism or quantized weights?" if r < 1 else
                       "another model, a wider dtype, or weights not quantized as the estimate assumes?")
                notes.append(f"{what} {w / GIB:.2f} GiB vs {spec.weights.total_bytes / GIB:.2f} GiB "
                             f"for {spec.name} (ratio {r:.2f}: {why})")
            else:
                notes.append(f"weights {w / GIB:.2f} GiB match the estimate for {spec.name}.")
        elif spec.weights.total_bytes:
            notes.append(f"the log prints no weights figure; {spec.name}'s weights are "
                         f"{spec.weights.total_bytes / GIB:.1f} GiB by the estimate: the GPUs and the offload advised "
                         "are sized from them")
        return notes

    return check


def _base(name: str) -> str:
    """A model's name without its organisation, path, file extension or case ("meta-llama/Llama-3.1-8B-Instruct"
    and "/models/llama-3.1-8b-instruct" are the same name)."""
    tail = name.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()
    for ext in (".gguf", ".safetensors", ".bin"):
        tail = tail.removesuffix(ext)
    tail = _QUANT_TAG.sub("", tail)  # the same model quantized ("llama-3.1-8b-Q4_K_M" is Llama-3.1-8B's)
    return "".join(ch for ch in tail if ch.isalnum())


#: a quantization's tag in a file or repository name: GGUF types (Q4_K_M, IQ4_XS, Q8_0, F16, BF16), methods
_QUANT_TAG = re.compile(r"[-_.](?:i?q\d(?:_[a-z0-9]+)*|f16|bf16|f32|fp16|fp8|awq|gptq|int4|int8|w4a16|w8a8|mxfp4|"
                        r"gguf|ud)(?=$|[-_.])")
