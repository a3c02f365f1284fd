"""Aphrodite Engine (PygmalionAI), a vLLM fork: vLLM's memory model and flags, its own log lines.

Sources (PygmalionAI/aphrodite-engine v0.3.4 -> v0.6.5): `aphrodite/common/logger.py` (from v0.5: lines are
"INFO:     message", no time or file), `aphrodite/engine/aphrodite_engine.py` ("Initializing Aphrodite Engine
(v0.6.5) with the following config:"; "Initializing the Aphrodite Engine" before v0.6), `executor/` ("# GPU
blocks: %d, # CPU blocks: %d", "Minimum concurrency: %.2fx"), `task_handler/worker.py` ("No available
memory for the cache blocks", "Error in memory profiling"), `task_handler/model_runner.py` ("Model weights
loaded in %.2f seconds.", "Total model weights memory usage: %.2f GiB", "Graph capturing finished in %.2f
secs"), `processing/scheduler.py` (the preemption warning). Flags as vLLM's, plus -gmu and
--single-user-mode.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .vllm import LOG as VLLM_LOG
from .vllm import VllmRules
from .words import NUM, SIZE, count, fig, fraction, msg, rx

LOG = LogWords(
    fingerprint=rx(r"aphrodite|Aphrodite Engine|Minimum concurrency: [\d.]+x"),
    run_start=(rx(r"Initializing (?:the )?Aphrodite Engine", 0),),
    messages=(  # (its KV messages are vLLM's words, read from vllm.py)
        msg(r"GPU memory utilization must be less than 1\.0", "not_oom", code="setting-rejected"),
    ),
    frames=dict(VLLM_LOG.frames),
    milestones=(
        ("weights_done", rx(r"Total model weights memory usage|Weights memory usage|Model weights loaded")),
        ("kv_sized", rx(r"# GPU blocks: [1-9]|Minimum concurrency")),
        ("warmup_done", rx(r"Graph capturing finished")),
    ),
    figures=(
        fig("weights_bytes", r"(?:Total model weights|Weights) memory usage: " + SIZE + r"\s*$"),
        fig("weights_bytes", r"Weights memory usage: [\d.]+ GiB x \d+ = " + SIZE),
        fig("min_concurrency", r"Minimum concurrency: ([\d.]+)x", fraction),
        fig("kv_pool_tokens", r"Single sequence mode: Allocating \d+ blocks \(" + NUM + r" tokens\)", count),
        fig("gpu_memory_utilization", r"(?:-gmu|gpu_memory_utilization)['\"]?(?:\s*[=:]\s*|\s+)([\d.]+)", fraction),
        # its short flags on a pasted command (aphrodite/common/args: -tp, -q)
        fig("tensor_parallel_size", r"(?:^|\s)-tp(?:=|\s+)(\d+)\b", count, flags=0),
        fig("quantization", r"(?:^|\s)-q(?:=|\s+)(awq\w*|gptq\w*|fp8\w*|fp6\w*|exl2|gguf|marlin|aqlm|quip\w*|eetq|"
            r"bitsandbytes|squeezellm|smoothquant|compressed-tensors|fbgemm_fp8|hqq\w*|qqq\w*|deepspeedfp)\b",
            lambda m: m.group(1), flags=0),
        fig("kv_cache_dtype", r"KV Cache DataType = '?(\w+)", lambda m: m.group(1)),
        fig("quantization", r"Quantization Format = '?(\w+)", lambda m: m.group(1)),
        fig("max_model_len", r"Context Length = (\d+)", count),
    ),
    after={"weights_done": ("WARMUP", "KV")},
)

ENGINE = Engine(
    name="aphrodite", kv_block_tokens=16, label="Aphrodite", log=LOG, wraps="vllm", rules=VllmRules,
    fraction_key="gpu_memory_utilization", aliases=("aphrodite-engine",),
    defaults={"gpu_memory_utilization": 0.9, "max_num_seqs": 256, "kv_cache_dtype": "auto"},
    flags={"max_model_len": "--max-model-len {n}", "max_num_seqs": "--max-num-seqs {n}",
           "memory_fraction": "--gpu-memory-utilization {x}", "kv_cache_dtype": "--kv-cache-dtype fp8",
           "max_num_batched_tokens": "--max-num-batched-tokens {n} --enable-chunked-prefill",
           "cuda_graphs": "--enforce-eager", "tensor_parallel_size": "--tensor-parallel-size {n}",
           "quantization": "a 4-bit AWQ/GPTQ or fp8 checkpoint (-q awq|gptq|fp8)",
           "quantization_4bit": "a 4-bit AWQ/GPTQ checkpoint (-q awq|gptq)",
           "cpu_offload": "--cpu-offload-gb {n}"},
)
