"""llama-cpp-python: llama.cpp inside Python (the `Llama` class, `python -m llama_cpp.server`). Its log is
llama.cpp's own lines (they count for it), its settings are keyword arguments.

Sources (abetlen/llama-cpp-python 0.2 -> 0.3.36): `llama_cpp/llama.py` (`Llama(model_path, n_ctx=512,
n_batch=512, n_ubatch, n_gpu_layers=0, offload_kqv=True, flash_attn=False, type_k, type_v, tensor_split)`;
"Failed to create llama_context"), `llama_cpp/_internals.py` ("llama_decode returned N"), `llama_cpp/server/settings.py` (the same names as `--n_ctx` etc., n_ctx
default 2048 in the server); langchain's `LlamaCpp` wrapper (`langchain_community/llms/llamacpp.py` validate_environment:
"Could not load Llama model from path: %s. Received error %s").
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import msg, rx

LOG = LogWords(
    fingerprint=rx(r"llama_cpp/|llama_cpp\.(?:server|llama|_internals)|llama-cpp-python|from llama_cpp|"
                   r"Llama\(model_path|"
                   # through langchain's LlamaCpp (langchain_community/llms/llamacpp.py, 2023's langchain/llms/) and
                   # llama-index's LlamaCPP: their validator's words, and the class being built
                   r"\bLlamaCpp\(|validation error for LlamaCpp|Could not load Llama model from path|"
                   r"langchain(?:_community)?[/.]llms[/.]llamacpp|\bLlamaCPP\("),
    messages=(
        # _internals.py LlamaContext.decode raises on llama_decode's 1: no KV cells for the batch (the request fails)
        msg(r"llama_decode returned 1\b", "pressure", "RUNTIME", "kv-cache-full-request-failed"),
    ),
)

ENGINE = Engine(
    name="llama-cpp-python", label="llama-cpp-python", log=LOG, wraps="llamacpp",
    aliases=("llama_cpp_python", "llamacpp-python", "llama-cpp-py"),
    flags={"max_model_len": "n_ctx={n} (server: --n_ctx {n})", "n_ubatch": "n_batch={n} / n_ubatch={n}",
           "flash_attn": "flash_attn=True", "kv_cache_dtype": "type_k=8, type_v=8 (q8_0) with flash_attn=True",
           "gpu_layers": "n_gpu_layers={n}", "kv_offload": "offload_kqv=False",
           "tensor_parallel_size": "tensor_split=[...] across GPUs", "quantization": "a smaller quant (a Q4_K_M GGUF)"},
)
