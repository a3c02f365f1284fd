"""LocalAI: an OpenAI-compatible server that runs llama.cpp (and other backends) as gRPC child processes, whose output
it logs under its own prefix, so their llama.cpp lines count for LocalAI.

Sources (mudler/LocalAI): `pkg/model/initializers.go` ("Loading model '%s' with backend %s", "[%s] Attempting to
load", "[%s] Fails: %s", a child's output as "GRPC(%s): stderr %s" / "stdout %s" under zerolog's "8:02AM DBG "),
`core/http` ("LocalAI API is listening! Please connect to the endpoint for API documentation"). Settings are the
model's YAML file (`core/config`, LLMConfig): `context_size`, `gpu_layers`, `f16`, `mmap`, `low_vram`,
`tensor_split`, `main_gpu`, `flash_attention`, `cache_type_k` / `cache_type_v`, `batch`.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import count, fig, msg, rx

LOG = LogWords(
    fingerprint=rx(r"\bGRPC\([\w.:-]{1,120}\): std(?:err|out) |LocalAI API is listening|\blocal-ai\b|"
                   r"\bwith backend [\w.-]+$|\] Attempting to load$|\] Fails: could not load model"),
    messages=(
        # a model it was told to fetch at start that the server refused (pkg/downloader/uri.go: "failed to download url
        # \"https://huggingface.co/...\", invalid status code 401", logged as "error downloading model" and by
        # core/application/startup.go "error installing models"): gated, private or a wrong name
        msg(r"\bfailed to download url \S{1,600} invalid status code 4\d\d\b", "not_oom", code="download-refused"),
        # ... or a download the network broke off
        msg(r"\berror downloading model\b(?![^\n]*invalid status code 4\d\d)", "not_oom", code="network-error"),
        # its backend process that died while it loaded a model (pkg/model/initializers.go, the gRPC call that lost its
        # server: "could not load model: rpc error: code = Unavailable desc = error reading from server: EOF"; also cut
        # short after "code = Unavai"): the backend's own output, shown only with --debug, says why
        msg(r"\b(?:failed to load model with internal loader|could not load model): rpc error: code = "
            r"(?:Unavailable|Unavai\w*\s*$)", "wrapper", candidates=("WEIGHTS", "KV", "WARMUP")),
    ),
    # (its API listening is the front server's, not a model's: it loads a model for the first request that names it,
    # pkg/model/initializers.go "BackendLoader starting backend=..." / "Loading model '%s' with backend %s", the load
    # under way; the backend's "[llama-cpp] Loads OK" the model ready)
    run_start=(rx(r"\bBackendLoader starting backend=|\bLoading model '[^'\n]{1,300}' with backend ", 0),),
    milestones=(
        ("start", rx(r"\bBackendLoader starting backend=|\bLoading model '[^'\n]{1,300}' with backend ")),
        ("ready", rx(r"\] Loads OK\b")),
    ),
    # (it loads a model for the first request that names it, pkg/model/initializers.go: "Request received" comes before
    # the load, so only the backend's own lines of a request the loaded model took are serving: "[llama-cpp] Loads OK"
    # and its llama.cpp slot lines relayed as "GRPC(...): stderr ...")
    loads_on_request=rx(r"\] Loads OK\b|launch_slot|print_timings|prompt eval time"),
    figures=(
        fig("max_model_len", r"^\s*context_size:\s*(\d+)\s*$", count),
        fig("n_gpu_layers", r"^\s*gpu_layers:\s*(-?\d+)\s*$", count),
    ),
)

#: where each setting lives: the model's YAML file
ENGINE = Engine(
    name="localai", label="LocalAI", log=LOG, wraps="llamacpp", aliases=("local-ai",),
    flags={"max_model_len": "context_size: {n} (the model's YAML)",
           "gpu_layers": "gpu_layers: {n} (the model's YAML)",
           "kv_cache_dtype": "cache_type_k: q8_0 and cache_type_v: q8_0, with flash_attention: true (the model's YAML)",
           "flash_attn": "flash_attention: true (the model's YAML)",
           "kv_offload": "low_vram: true (the model's YAML: the KV cache in system memory)",
           "n_ubatch": "batch: {n} (the model's YAML)",
           "tensor_parallel_size": "tensor_split across GPUs (the model's YAML)",
           "quantization": "a smaller quant of the model (Q4_K_M)"},
)
