"""mistral.rs: a Rust inference server (candle) with its own PagedAttention KV cache.

Sources (EricLBuehler/mistral.rs): `mistralrs-core/src/engine` (a failed forward pass: "prompt step - Model failed with
error: ..." / "completion step - Model failed with error: ...", logged by the target `mistralrs_core::engine`: a model
execution, the warm-up or a request); `mistralrs-core/src/lib.rs` (the warm-up request it sends itself once a text or
vision model is loaded: "Beginning dummy run." ... "Dummy run completed in Xs.", INFO until it moved to debug, so its
absence says nothing); candle's CUDA errors (`DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")`). Flags
(`mistralrs-server` / `mistralrs serve`): `--max-seqs` (default 32), PagedAttention's `--pa-gpu-mem-usage` (the
fraction of GPU memory its KV cache takes), `--pa-ctxt-len`, `--pa-cache-type f8e4m3`, `--pa-prefill-chunk-size`;
in-situ quantization `--isq Q4K`; `--num-device-layers` (layers on the GPU, the rest on the CPU).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import cli, count, fig, fraction, msg, rx

LOG = LogWords(
    fingerprint=rx(r"\bmistralrs_(?:core|server|server_core|quant)\b|\bmistralrs-server\b|\bmistral\.rs\b"),
    # a forward pass that failed: a model execution, the warm-up's or a request's, placed by the progress before it
    frames={"COMPUTE": rx(r"\b(?:prompt|completion) step - Model failed with error\b"),
            # in-situ quantization, run on the weights as they load (pipeline/isq.rs "Applying in-situ quantization into
            # Some(HQQ8) to 449 tensors.", "Applying ISQ on 1 threads.", its panic's frame "pipeline/isq.rs:582")
            # ... and its loader's own words: "Loading model `mistralai/...` on cuda[0].", the layers' progress bar
            # ("Loading repeating layers: [####>---]  22/40", utils/progress.rs), short of its end a load under way
            "WEIGHTS": rx(r"\bApplying (?:in-situ quantization|ISQ)\b|\bpipeline[/:]+isq\b|\bisq\.rs\b|\bapply_isq\b|"
                          r"\bLoading model `[^`]{1,300}` on\b|\bLoading repeating layers\b")},
    messages=(
        # the automatic device map's check before it loads (device_map.rs: "This model does not fit on the devices
        # [...], and exceeds total capacity by 7530MB"): its layers (with their share of the cache it plans for) do
        # not fit on the devices given
        msg(r"This model does not fit on the devices\b", "oom", "WEIGHTS", "weights-exceed-gpu-memory"),
        # the PagedAttention scheduler (paged_attention/scheduler.rs, v0.6+) finishing a waiting request as ignored, its
        # answer empty: after evicting a running sequence it still found no room ("Sequence 17 with length of 3581
        # tokens still exceeds KV cache size even after evicting another sequence."): the pool full under load
        msg(r"tokens still exceeds KV cache size even after evicting another sequence", "pressure", "RUNTIME",
            "kv-cache-full-request-failed"),
        # ... or with nothing running to evict, or longer than the whole pool ("... is too long and exceeds KV cache
        # size. To fix, increase the maximum sequence length for the KV cache"): one request past the pool
        msg(r"tokens is too long and exceeds KV cache size", "pressure", "KV", "request-exceeds-kv-pool"),
    ),
    # its warm-up request is the start-up's last step, sent once the model and its KV cache are made: a model
    # execution after "Beginning dummy run." is that warm-up, and after "Dummy run completed" a served request
    milestones=(
        # (the layers' bar at its end, "40/40", and mistralrs-server's "Model loaded.")
        ("weights_done", rx(r"\bLoading repeating layers\b.*?\b(\d+)/\1\b|\bmistralrs_server\w*: Model loaded\b")),
        ("kv_done", rx(r"\bBeginning dummy run\b")),
        ("ready", rx(r"\bDummy run completed in\b")),
    ),
    figures=(
        # mistralrs-core/src/paged_attention ("Allocating 7680 MB for PagedAttention KV cache per GPU", MB of 2**20
        # bytes; "Using PagedAttention with block size 32 and 640 GPU blocks: available context length is 20480 tokens")
        fig("kv_pool_bytes", r"Allocating (\d+(?:\.\d+)?) MB for PagedAttention KV cache", lambda m: int(float(m.group(1)) * 2**20)),
        fig("num_gpu_blocks", r"PagedAttention with block size \d+ and (\d+) GPU blocks", count),
        fig("block_size", r"PagedAttention with block size (\d+) and \d+ GPU blocks", count),
        fig("kv_pool_tokens", r"GPU blocks: available context length is (\d+) tokens", count),
        cli("max_num_seqs", "max-seqs", count),
        cli("pa_gpu_mem_usage", "pa-gpu-mem-usage", fraction),
        # the pool's size in tokens (mistralrs-server --pa-ctxt-len: "Total context length to allocate the KV cache
        # for", which takes priority over --pa-gpu-mem-usage); a model type's --max-seq-len only sizes the automatic
        # device map ("not a hard limit", model_selected.rs)
        cli("pa_ctxt_len", "pa-ctxt-len", count),
    ),
)


def _flags_for(flags: dict, n: dict) -> dict:
    """mistral.rs caps no request's length (a model type's --max-seq-len sizes the device map only), so a shorter
    request is the client's; its pool is --pa-ctxt-len tokens where that is given, which takes priority over
    --pa-gpu-mem-usage (mistralrs-server main.rs, v0.6), so a larger pool is asked of it there."""
    flags["max_model_len"] = "shorter prompts (mistral.rs caps no request's length: --max-seq-len sizes the device map only)"
    tokens = n.get("pa_ctxt_len")
    if isinstance(tokens, int) and tokens > 0:
        flags["memory_fraction"] = (f"--pa-ctxt-len above {tokens} (the pool's tokens, if memory allows: it takes "
                                    "priority over --pa-gpu-mem-usage)")
    return flags

ENGINE = Engine(
    name="mistralrs", label="mistral.rs", log=LOG, fraction_key="pa_gpu_mem_usage", adapt_flags=_flags_for,
    aliases=("mistral.rs", "mistral-rs", "mistralrs-server"),
    flags={"max_num_seqs": "--max-seqs {n}",
           "memory_fraction": "--pa-gpu-mem-usage {x} (PagedAttention's share of GPU memory)",
           "max_model_len": "--max-seq-len {n} (after the model type)",
           "kv_cache_dtype": "--pa-cache-type f8e4m3",
           "max_num_batched_tokens": "--pa-prefill-chunk-size {n}",
           "quantization": "--isq Q4K (in-situ quantization) or a smaller quant",
           "quantization_4bit": "--isq Q4K (in-situ quantization) or a 4-bit quant",
           "gpu_layers": "--num-device-layers {n}"},
)
