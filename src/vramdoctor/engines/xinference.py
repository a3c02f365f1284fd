"""Xinference (xorbitsai/inference): a server that launches models on one of several engines (vLLM, SGLang,
transformers, llama.cpp, MLX) inside its own worker processes (xoscar actors). Its memory is the chosen engine's; what
vramdoctor reads is that engine's lines where they are printed, and Xinference's own launch settings.

Sources (xorbitsai/inference): `xinference-local` / `xinference-supervisor` / `xinference-worker` start the server;
`xinference launch --model-engine vllm --model-name NAME --size-in-billions N --n-gpu N --gpu-idx I ...` starts a
model, extra options going to the engine as they are spelled there (`--max_model_len 8192`,
`--gpu_memory_utilization 0.8`, `--max_num_seqs 64`, docs: "Model launching ... additional parameters for the
engine"); worker errors are relayed as `xoscar` actor errors (`xoscar.errors.ServerClosed`, `Remote server ... closed`).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import rx

LOG = LogWords(
    fingerprint=rx(r"\bxinference(?:-local|-supervisor|-worker)?\b|\bxoscar\b|\bXinfernece\b", 0),
)

ENGINE = Engine(
    name="xinference", label="Xinference", log=LOG, aliases=("xinference-local", "xorbits"),
    flags={"max_model_len": "--max_model_len {n} (xinference launch, vLLM engine)",
           "memory_fraction": "--gpu_memory_utilization {x} (xinference launch, vLLM engine)",
           "max_num_seqs": "--max_num_seqs {n} (xinference launch, vLLM engine)",
           "tensor_parallel_size": "--n-gpu {n} (xinference launch)"},
)
