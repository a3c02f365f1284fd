"""LlamaEdge: llama.cpp inside WasmEdge's WASI-NN GGML plugin (`wasmedge ... llama-api-server.wasm`). Its
llama.cpp lines, prefixed "[WASI-NN] llama.cpp:", count for it.

Sources (LlamaEdge/LlamaEdge, WasmEdge/WasmEdge plugins/wasi_nn/ggml.cpp): "[WASI-NN] GGML backend: Error:
unable to init model."; llama-api-server's options --ctx-size, --batch-size, --n-gpu-layers (a list per
model: chat and embedding).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import rx

LOG = LogWords(
    fingerprint=rx(r"\[WASI-NN\]|wasmedge|llama-api-server|LlamaEdge|llama-chat\.wasm"),
)

ENGINE = Engine(
    name="llamaedge", label="LlamaEdge", log=LOG, wraps="llamacpp", aliases=("wasmedge", "llama-api-server"),
    flags={"max_model_len": "--ctx-size {n}", "n_ubatch": "--batch-size {n}", "gpu_layers": "--n-gpu-layers {n}",
           "quantization": "a smaller GGUF quant (Q4_K_M)"},
)
