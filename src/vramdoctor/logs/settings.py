"""The user's own settings as a log shows them: the memory fraction, sequences, KV cache dtype, whether the
weights are quantized, where the KV cache lives, CPU offload. Pure: figures in, a `Current` out.

A setting the log does not show is None, unless the log prints the engine's full argument list and leaves
it out, which makes it the engine's default for that version."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..engines.interface import Engine
from .facts import latest

_QUANT_NAME = re.compile(r"awq|gptq|fp8|fp4|fp6|int4|int8|w4a16|w8a8|4bit|8bit|bnb|nf4|exl2|gguf|\bq[2-8]_|\biq[1-4]|mxfp4|"
                         r"nvfp4|marlin|squeezellm|hqq|-\d(?:\.\d+)?bpw", re.I)
_LOW_BIT_GGUF = re.compile(r"^(?:Q[2-4]|IQ[1-4]|TQ)", re.I)
#: a model name or quantization of 4 bits or fewer: 4-bit methods, GGUF/GGML quants of 1-4 bits (`q2_K`, `IQ3_XXS`,
#: `TQ1_0`), MLX's `-3bit`, EXL2 at 4 bpw or fewer
_LOW_BIT_NAME = re.compile(r"awq|gptq|int4|fp4|[234]bit|nf4|w4a16|q4|\bq[23]_|\bi?q[1-4]_|\biq[1-4]\b|\btq[12]_|mxfp4|"
                           r"nvfp4|-[234](?:\.\d+)?bpw", re.I)


@dataclass
class Current:
    """The user's settings as the log shows them (None: not shown). default_*: taken from the engine's
    defaults because the log prints its full argument list and leaves the setting out."""

    fraction: float | None
    fraction_default: bool
    max_num_seqs: int | None
    kv_dtype: str | None
    quantized: bool
    low_bit: bool
    kv_on_host: bool
    cpu_offload_gb: float | None


def current(n: dict, e: Engine | None) -> Current:
    listed = n.get("args_listing")
    defaults = e.defaults_for(n.get("engine_version")) if e and listed else {}
    frac, frac_default = None, False
    if e and e.fraction_key:
        v = latest(n, e.fraction_key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= 1:
            frac = float(v)
        elif e.fraction_key in defaults:
            frac, frac_default = float(defaults[e.fraction_key]), True
    seqs = (n.get("max_num_seqs") or n.get("n_parallel") or n.get("sampler_dummy_requests")
            or defaults.get("max_num_seqs"))
    kv = str(n.get("kv_cache_dtype") or defaults.get("kv_cache_dtype") or "") or None
    quant = str(n.get("quantization") or "")
    name = " ".join(str(n.get(k) or "") for k in ("model_name", "file_type", "_quantized_name"))
    quantized = bool(quant and quant.lower() not in ("none", "null", "false")) or bool(_QUANT_NAME.search(name))
    ftype = str(n.get("file_type") or "")
    low_bit = bool(_LOW_BIT_GGUF.match(ftype)) or bool(_LOW_BIT_NAME.search(name + " " + quant))
    host = n.get("host_kv_buffer_bytes")
    gpu_kv = n.get("gpu_kv_buffer_bytes")
    kv_on_host = bool(host) and not gpu_kv or n.get("kv_offload") is False
    offl = n.get("layers_offloaded")
    offl = offl[-1] if isinstance(offl, list) and offl else offl
    # (no layer on a GPU: the KV cache, which lives beside its layers, is all in host memory already; Ollama's new
    # engine says so, `msg="kv cache" device=CPU`)
    if n.get("failed_on_host") or offl == 0 and (n.get("layout_cpu_kv_bytes") or n.get("layers_total")):
        kv_on_host = True
    off = n.get("cpu_offload_gb", defaults.get("cpu_offload_gb"))
    return Current(fraction=frac, fraction_default=frac_default, max_num_seqs=seqs if isinstance(seqs, int) else None,
                   kv_dtype=kv, quantized=quantized, low_bit=low_bit, kv_on_host=kv_on_host,
                   cpu_offload_gb=float(off) if isinstance(off, (int, float)) else None)
