"""llama-cpp-python: llama.cpp inside Python (the `Llama` class, `python -m llama_cpp.server`). Its log is
llama.cpp's own lines (they count for it), its settings are keyword arguments.

Sources (abetlen/llama-cpp-python 0.2 -> 0.3.36): `llama_cpp/llama.py` (`Llama(model_path, n_ctx=512,
n_batch=512, n_ubatch, n_gpu_layers=0, offload_kqv=True, flash_attn=False, type_k, type_v, tensor_split)`;
"Failed to create llama_context"), `llama_cpp/_internals.py` ("llama_decode returned N"), `llama_cpp/server/settings.py` (the same names as `--n_ctx` etc., n_ctx
default 2048 in the server); langchain's `LlamaCpp` wrapper (`langchain_community/llms/llamacpp.py` validate_environment:
"Could not load Llama model from path: %s. Received error %s").
"""

from __future__ import annotations

from .interface import Endpoints, Engine, KvView, LogWords, Preset, Spelling, Tokenizer, answer_json, token_ids
from .words import fig, msg, rx

LOG = LogWords(
    fingerprint=rx(r"llama_cpp/|llama_cpp\.(?:server|llama|_internals)|llama-cpp-python|from llama_cpp|"
                   r"Llama\(model_path|"
                   # through langchain's LlamaCpp (langchain_community/llms/llamacpp.py, 2023's langchain/llms/) and
                   # llama-index's LlamaCPP: their validator's words, and the class being built
                   r"\bLlamaCpp\(|validation error for LlamaCpp|Could not load Llama model from path|"
                   r"langchain(?:_community)?[/.]llms[/.]llamacpp|\bLlamaCPP\("),
    # (a prompt evaluated: llama.py's eval and generate call _internals.py's decode only for a request's tokens; the
    # model and its context are made in Llama.__init__)
    frames={"RUNTIME": rx(r"llama_cpp[/\\]_internals\.py\W+line \d+, in decode\b|llama_cpp[/\\]llama\.py\W+line \d+, in "
                          r"(?:eval|generate|_create_completion|create_completion|create_chat_completion|__call__)\b")},
    figures=(
        # the layers on the GPU as the user set them, in a pasted server command (`--n_gpu_layers 1`) or the class's
        # keyword arguments (`n_gpu_layers=35`, `n_gpu_layers: 35` in a settings dump); -1 is all of them
        fig("n_gpu_layers", r"(?:--n_gpu_layers(?:=|\s+)|\bn_gpu_layers\s*[=:]\s*)(-?\d+)\b", lambda m: int(m.group(1))),
    ),
    messages=(
        # _internals.py LlamaContext.decode raises on llama_decode's 1: no KV cells for the batch (the request fails)
        msg(r"llama_decode returned 1\b", "pressure", "RUNTIME", "kv-cache-full-request-failed"),
        # ... and its -2, llama.cpp's GGML_STATUS_ALLOC_FAILED from the graph's compute (llama-context.cpp decode,
        # 2025+: -2 an allocation failed, -3 the compute failed for another reason): memory, its step the run's
        msg(r"\bllama_decode returned -2\b", "oom"),
        # llama.py's check before it evaluates a prompt longer than the context (create_embedding, _create_completion:
        # "Requested tokens (2043) exceed context window of 512"): the request is refused, nothing ran out (its server
        # answers it with a 400, context_length_exceeded)
        msg(r"\bRequested tokens \(\d+\) exceed context window of \d+", "request"),
        # langchain's validator of its LlamaCpp wrapper, whose error is the Llama() it built ("1 validation error for
        # LlamaCpp ... Could not load Llama model from path: x.gguf. Received error Failed to load model from file"):
        # a wrapper, its cause the words under it or llama.cpp's lines above
        msg(r"\b\d+ validation errors? for (?:LlamaCpp|LlamaCPP)\b", "wrapper"),
        # ... and llama.py's own check before it loads (Llama.__init__: "Model path does not exist: %s"): no file
        msg(r"\bModel path does not exist: ", "not_oom", code="model-file-error"),
    ),
)


# --- the live server (probe): ../shared/ENGINES.md §4 (llama_cpp/server/app.py) ----------------------------------


def _recognise(answers: dict) -> str | None:
    """FastAPI's /openapi.json titled "🦙 llama.cpp Python API", versioned llama_cpp.__version__."""
    j = answer_json(answers, "/openapi.json")
    info = j.get("info") if isinstance(j, dict) else None
    if isinstance(info, dict) and "llama.cpp Python API" in str(info.get("title", "")):
        return str(info.get("version") or "")
    return None


ENDPOINTS = Endpoints(
    identify=("/openapi.json",), recognise=_recognise, ready=None,  # no /health: /v1/models answers once loaded
    kv_view=lambda answers: KvView(source="", note="llama-cpp-python's server has no endpoint with its KV cache: "
                                                  "give its log (--log), which holds llama.cpp's KV lines"),
    tokenizers=(Tokenizer(path="/extras/tokenize", body=lambda text, model: {"input": text}, read=token_ids,
                          detok_path="/extras/detokenize", detok_body=lambda ids, model: {"tokens": ids},
                          detok_read=lambda j: j.get("text") if isinstance(j, dict) else None),),
)

# --- sweep's launch preset: ../shared/ENGINES.md §4 (llama_cpp/server/settings.py: underscores, n_ctx default
# 2048, n_gpu_layers 0; -1 = all; verbose prints llama.cpp's KV lines, which give the pool)
PRESET = Preset(
    command=("{server_python}", "-m", "llama_cpp.server", "--model", "{model}", "--host", "127.0.0.1", "--port",
             "{port}", "--n_ctx", "{max_model_len}", "--n_gpu_layers", "{n_gpu_layers}", "--verbose", "true"),
    optional={"n_batch": ("--n_batch", "{n_batch}"), "threads": ("--n_threads", "{threads}")},
    defaults={"n_gpu_layers": "-1"},
    knobs={"n_batch": ("128", "512")},
)

#: llama-cpp-python's keyword arguments for what `estimate` says (`llama_cpp/llama.py` Llama): one n_ctx (no
#: parallel slots), type_k / type_v as ggml_type numbers (ggml.h: F32 0, F16 1, Q4_0 2, Q4_1 3, Q5_0 6, Q5_1 7, Q8_0 8,
#: IQ4_NL 20, BF16 30; quantized V needs flash_attn=True), n_gpu_layers, n_ubatch, tensor_split
SPELLING = Spelling(label="llama-cpp-python", context="n_ctx={ctx}", kv_cache="type_k={t} type_v={t}",
                    kv8="type_k=8, type_v=8 (q8_0) with flash_attn=True", ubatch="n_ubatch={u}",
                    gpu_layers="n_gpu_layers={k}", split="tensor_split=[{tsl}]",
                    kv_types={"f32": "0", "f16": "1", "q4_0": "2", "q4_1": "3", "q5_0": "6", "q5_1": "7",
                              "q8_0": "8", "iq4_nl": "20", "bf16": "30"})

ENGINE = Engine(
    endpoints=ENDPOINTS, preset=PRESET, spelling=SPELLING,
    name="llama-cpp-python", label="llama-cpp-python", log=LOG, wraps="llamacpp",
    aliases=("llama_cpp_python", "llamacpp-python", "llama-cpp-py"),
    flags={"max_model_len": "n_ctx={n} (server: --n_ctx {n})", "n_ubatch": "n_batch={n} / n_ubatch={n}",
           "flash_attn": "flash_attn=True", "kv_cache_dtype": "type_k=8, type_v=8 (q8_0) with flash_attn=True",
           "gpu_layers": "n_gpu_layers={n}", "kv_offload": "offload_kqv=False",
           "tensor_parallel_size": "tensor_split=[...] across GPUs", "quantization": "a smaller quant (a Q4_K_M GGUF)"},
)
