"""LLamaSharp: llama.cpp inside .NET (`LLamaWeights.LoadFromFile(parameters)`, `ModelParams`). Its log is llama.cpp's own
lines (they count for it), its settings are the properties of `ModelParams`, and its failures .NET exceptions.

Sources (SciSharp/LLamaSharp, LLama/Common/ModelParams.cs, LLama/Native/DecodeResult.cs, LLama/Exceptions/):
`ModelParams` ContextSize, GpuLayerCount, BatchSize, UBatchSize, FlashAttention, TypeK / TypeV (GGMLType), NoKqvOffload;
`DecodeResult.NoKvSlot` (llama_decode's 1: no KV cells for the batch), raised as `LLamaDecodeError: llama_decode failed:
'NoKvSlot'`; `LoadWeightsFailedException` ("Failed to load model '<path>'"), llama_model_load_from_file returning null,
its cause in llama.cpp's lines above it.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import count, fig, msg, rx

LOG = LogWords(
    fingerprint=rx(r"\bLLama\.(?:Exceptions|Native|Common|Abstractions)\b|\bLLamaSharp\b|\bLLamaWeights\.LoadFromFile\b"),
    figures=(
        # the context the app set (`ContextSize = 4096` in C#, `"ContextSize": 4096` in a settings file)
        fig("max_model_len", r"\bContextSize\x22?\s*[=:]\s*(\d+)\b", count, flags=0),
    ),
    messages=(
        # llama_decode's 1 as LLamaSharp raises it: the KV cache full, the app stopped
        msg(r"\bllama_decode failed: '?NoKvSlot'?", "oom", "RUNTIME", "kv-cache-full"),
        # the model's load failed; its cause, if memory, is in llama.cpp's lines above (a buffer it could not allocate)
        msg(r"\bLoadWeightsFailedException\b", "wrapper", "WEIGHTS"),
    ),
)

ENGINE = Engine(
    name="llamasharp", label="LLamaSharp", log=LOG, wraps="llamacpp", aliases=("llama-sharp", "llama#"),
    flags={"max_model_len": "ModelParams.ContextSize = {n}", "n_ubatch": "ModelParams.BatchSize = {n} / UBatchSize = {n}",
           "flash_attn": "ModelParams.FlashAttention = true",
           "kv_cache_dtype": "ModelParams.TypeK = TypeV = GGMLType.GGML_TYPE_Q8_0 with FlashAttention = true",
           "gpu_layers": "ModelParams.GpuLayerCount = {n}", "kv_offload": "ModelParams.NoKqvOffload = true",
           "quantization": "a smaller quant (a Q4_K_M GGUF)"},
)
