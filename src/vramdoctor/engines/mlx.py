"""MLX LM: `mlx_lm.server` / `mlx_lm.generate` (and mlx-vlm) on Apple silicon.

Sources (ml-explore/mlx, ml-explore/mlx-lm): `mlx/backend/metal/eval.cpp` / `device.cpp` ("[METAL] Command
buffer execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)", an
uncaught C++ exception that ends the process), `mlx_lm/server.py` (its access lines and "Starting httpd
at ..."), `mlx_lm/generate.py` (--max-kv-size: a rotating KV cache of that many tokens), `mlx/backend/metal/allocator.cpp`
("[metal::malloc] Resource limit (N) exceeded.": the number of Metal buffers, not bytes). Memory is the
Metal working set of unified memory: macOS lets the GPU wire only part of it (`iogpu.wired_limit_mb`).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import SIZE, fig, msg, release, rx

LOG = LogWords(
    fingerprint=rx(r"mlx_lm|mlx-lm|mlx_vlm|mlx\.core|\[METAL\] Command buffer execution failed|mlx-community/|"
                   r"Batch eval all weights|\[ModelKit\]\[INFO\]|mlx_engine"),
    # no KV pool is made at start: after the weights come kernel compilation and requests
    after={"weights_done": ("WARMUP", "RUNTIME")},
    messages=(
        # mlx/backend/metal/allocator.cpp: "[metal::malloc] Resource limit (499000) exceeded.": the count of live Metal
        # buffers (iogpu.rsrc_limit, 499000 where unknown) past its ceiling, not bytes: buffers the allocator's cache
        # keeps, or a long context's many small ones
        msg(r"\bResource limit \(\d+\) exceeded", "not_oom", code="metal-resource-limit"),
        # ... and one buffer past the largest the GPU allocates ("[metal::malloc] Attempting to allocate N bytes which is
        # greater than the maximum allowed buffer size of M bytes"): a prompt's KV cache or activations in one buffer
        msg(r"Attempting to allocate \d+ bytes which is greater than the maximum allowed buffer size", "oom",
            code="metal-buffer-exceeds-max"),
        # a crash report whose crashed thread stops in the allocator (macOS's "Exception Type: EXC_CRASH (SIGABRT)",
        # then "libmlx.dylib  mlx::core::metal::MetalAllocator::malloc(unsigned long)"): malloc throws only when it
        # cannot give the buffer, and the uncaught throw aborts the process
        msg(r"\bmlx::core::metal::MetalAllocator::malloc\(", "oom"),
        # the allocator's own refusal of one buffer (mlx/allocator.cpp, "[malloc] Unable to allocate N bytes.";
        # "[malloc_or_wait]" in releases before 0.22): the device's memory is spent
        msg(r"\[malloc\] Unable to allocate \d+ bytes", "oom"),
    ),
    # mlx_lm's load (utils.py load_model: `mx.eval(model.parameters())` makes the weights real, lazily loaded until
    # then): an allocation failing there is the weights
    frames={"WEIGHTS": rx(r"\bin load_model\b[^\n]*$|mx\.eval\(model\.parameters\(\)\)")},
    milestones=(
        # (and LM Studio's MLX engine, mlx-engine mlx_engine/model_kit.py: "[ModelKit][INFO] Model loaded
        # successfully"; the app's `lms log stream` shows each request as "type: llm.prediction.input")
        ("weights_done", rx(r"Batch eval all weights|\[ModelKit\]\[INFO\] Model loaded successfully")),
        ("ready", rx(r"Starting httpd at")),
        # (and a fine-tune's steps under way, mlx_lm.lora's and mlx-examples' lora.py reports: "Iter 50: Train loss
        # 1.487, ...", "Iter 1: Val loss 3.495": its model loaded, its work on the data going on)
        ("requests", rx(r"\"POST /v1/(?:chat/)?completions|^\s*type: llm\.prediction\.input\b|"
                        r"^Iter \d+: (?:Train|Val) loss [\d.]+|"
                        # (mlx-examples' lora.py, after "Loading datasets": "Training", its loop begun)
                        r"^Training\s*$")),
    ),
    figures=(
        # which program ran: the server (mlx_lm/server.py: "Starting httpd at", its access lines) or the one-shot
        # generate / chat commands, which have --max-kv-size
        fig("_mlx_server", r"\bmlx_lm[.\s]server\b|\bmlx_lm/server\.py\b|\bStarting httpd at\b", lambda m: True),
        fig("_mlx_generate", r"\bmlx_lm[.\s](?:generate|chat)\b|\bmlx_lm/(?:generate|chat)\.py\b", lambda m: True),
        # its release where a paste shows it ("mlx-lm==0.26.3", pip's "mlx-lm 0.31.0", "mlx_lm version: 0.30.6")
        fig("engine_version", r"\bmlx[-_]lm(?:==|\s+v?|\s+version:?\s*v?)(\d+\.\d+(?:\.\d+)?)\b", lambda m: m.group(1)),
        # the server's prompt cache after each request (server.py's LRUPromptCache, capped by its count of sequences,
        # not by bytes: "Prompt Cache: 8 sequences, 19.81 GB"): a reading of the memory it holds, which rises as it
        # keeps longer prompts' states
        fig("reported_memory_bytes", r"\bPrompt Cache: \d+ sequences?, " + SIZE, mode="list"),
        fig("_mlx_prompt_cache", r"\bPrompt Cache: \d+ sequences?, ", lambda m: True),
    ),
)

#: mlx_lm.server's flags by release (mlx_lm/server.py argparse per tag): --decode-concurrency and
#: --prompt-concurrency (requests decoded / prompts read at once) from 0.30.6, --prefill-step-size (tokens per
#: prefill step, 2048 by default) from 0.31.0; no release has --max-kv-size, which is generate's and chat's
SERVER_CONCURRENCY = (0, 30, 6)
SERVER_PREFILL_STEP = (0, 31, 0)


def _flags_for(flags: dict, n: dict) -> dict:
    """The flags of the program the log shows: mlx_lm.server has no --max-kv-size (a long prompt is the client's to
    shorten), and its concurrency and prefill-step flags by release (`SERVER_CONCURRENCY`, `SERVER_PREFILL_STEP`;
    named with the release that added them where the log shows none)."""
    if not n.get("_mlx_server") or n.get("_mlx_generate"):
        return flags
    v = release(n.get("engine_version"))
    flags["max_model_len"] = "shorter prompts (mlx_lm.server caps no context: --max-kv-size is mlx_lm.generate's)"
    if v is None or v >= SERVER_CONCURRENCY:
        flags["max_num_seqs"] = "--decode-concurrency {n} --prompt-concurrency {n}" + (
            " (mlx-lm 0.30.6 and later)" if v is None else "")
    if v is None or v >= SERVER_PREFILL_STEP:
        flags["max_num_batched_tokens"] = "--prefill-step-size {n}" + (" (mlx-lm 0.31 and later)" if v is None else "")
    return flags


ENGINE = Engine(
    name="mlx", label="MLX LM", log=LOG, aliases=("mlx-lm", "mlx_lm", "mlx-vlm"), adapt_flags=_flags_for,
    flags={"max_model_len": "shorter prompts, or --max-kv-size {n} (mlx_lm.generate: a rotating KV cache)",
           "quantization": "a 4-bit MLX conversion of the model (mlx_lm.convert -q, or an mlx-community -4bit repo)",
           "quantization_4bit": "a 4-bit MLX conversion of the model (mlx_lm.convert -q --q-bits 4, or an mlx-community "
                                "-4bit repo)"},
)
