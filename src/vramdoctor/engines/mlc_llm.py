"""MLC LLM.

Sources (mlc-ai/mlc-llm): `cpp/llm_chat.cc` and `python/mlc_llm/cli/chat.py` (the chat CLI's help, "You can use the
following special commands:", printed once the model is loaded), `cpp/serve/threaded_engine.cc` / `config.cc` ("Insufficient GPU memory error: The
available single GPU memory is %.3f MB, which is less than the sum of model weight size (%.3f MB) and
temporary buffer size (%.3f MB)"; MB there is MiB: / 1024 / 1024), engine config gpu_memory_utilization
(default 0.85), --prefill-chunk-size, --context-window-size, --max-batch-size.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import SIZE, fig, fraction, msg, rx

LOG = LogWords(
    # (and WebLLM, its build for the browser, and TVM's paged KV cache both run: "free_page_ids_", paged_kv_cache.cc)
    fingerprint=rx(r"mlc[-_]llm|mlc_chat|mlcchat|threaded_engine\.cc|prefill-chunk-size|MLCEngine|\bweb-?llm\b|"
                   r"free_page_ids_|paged_kv_cache\.cc"),
    messages=(
        # the engine sums weights and buffers: which ledger broke follows from the figures (see diagnose)
        msg(r"Insufficient GPU memory error: The available single GPU memory", "oom", "WEIGHTS",
            "weights-exceed-gpu-memory"),
        # relax_vm's static storage, sized when the model was compiled (its context window): overflowed by a longer
        # input, however much GPU memory is free
        msg(r"storage allocation failure", "not_oom", code="static-storage-overflow"),
        # serve/engine.py _estimate_max_total_sequence_length: nothing is left for the KV cache after the weights
        # and temporary buffers ("Cannot estimate KV cache capacity. The model weight size W may be larger than GPU
        # memory G")
        msg(r"Cannot estimate KV cache capacity", "oom", "KV", "no-memory-for-kv-cache"),
    ),
    # its weights are the params/ directory of a compiled model (params_shard_N.bin, listed in ndarray-cache.json):
    # loading it, or a shard of it, is the weights being read ("-- loading /models/mlc/.../params/")
    # (the Android and iOS apps' ChatModule, llm_chat.cc's entry points as the app calls them: "at
    # com.modelbest.mlcllm.ChatModule.image(ChatModule.java:63)" for an image sent, prefill and decode for a message;
    # its reload loads the model)
    frames={"WEIGHTS": rx(r"\bloading\s+\S*/params/?(?:\s|$)|\bparams_shard_\d+\.bin\b|\bndarray-cache\.json\b|"
                          r"\bChatModule\.reload\b"),
            "RUNTIME": rx(r"\bChatModule\.(?:prefill|decode|image|generate)\b")},
    # (the chat CLI, mlc_chat_cli / `mlc_llm chat`, lists its commands once the model is loaded and it waits for
    # input: "You can use the following special commands:")
    milestones=(("ready", rx(r"Serving on http|Uvicorn running|You can use the following special commands:")),),
    figures=(
        fig("available_memory_bytes", r"available single GPU memory is " + SIZE),
        fig("weights_bytes", r"model weight size \(" + SIZE),
        fig("weights_bytes", r"model weight size (\d+)(?:\.\d+)? may", lambda m: int(m.group(1))),  # bytes
        fig("total_memory_bytes", r"larger than GPU memory (\d+)(?:\.\d+)?", lambda m: int(m.group(1))),
        fig("temporary_buffer_bytes", r"temporary buffer size \(" + SIZE),
        fig("gpu_memory_utilization", r"gpu_memory_utilization['\"]?\s*[=:]\s*([\d.]+)", fraction),
    ),
)

ENGINE = Engine(
    name="mlc-llm", label="MLC LLM", log=LOG, aliases=("mlc", "mlcllm", "mlc-chat"),
    fraction_key="gpu_memory_utilization",
    flags={"max_model_len": "--context-window-size {n}", "max_num_seqs": "--max-batch-size {n}",
           "memory_fraction": "gpu_memory_utilization {x}", "max_num_batched_tokens": "--prefill-chunk-size {n}",
           "tensor_parallel_size": "--tensor-parallel-shards {n}", "quantization": "q4f16_1 weights",
           "quantization_4bit": "q4f16_1 weights"},
)
