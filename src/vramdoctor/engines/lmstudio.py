"""LM Studio: a desktop app and server (`lms`) over llama.cpp (and MLX on Apple silicon).

Sources: the app's load-error dialog and `lms` output, a JSON object ("title": "Error loading model." /
"Failed to load model", "cause": "(Exit code: N). Some model operation failed. Try a different model
and/or config.", "data": {"memory": {"ram_capacity", "ram_unused"}, "gpu": {"gpu_names",
"vram_recommended_capacity", "vram_unused"}, "app": {"version"}}); its server log ("[LM STUDIO SERVER]
Success! HTTP server listening on port N", "Running chat completion on conversation with N messages").
Sizes there are "GB" of 2**30 bytes (an 8 GiB card shows "8.00 GB"). Its llama.cpp lines count for it.
Settings are the model's load settings in the app (or `lms load --context-length N --gpu R`).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import SIZE, count, fig, msg, rx

LOG = LogWords(
    # (not "lmstudio" alone: llama.cpp users keep models in ~/.lmstudio/models, and lmstudio-community is a
    # model publisher)
    fingerprint=rx(r"LM STUDIO SERVER|\bLM Studio\b|\"vram_(?:unused|recommended_capacity)\"|"
                   r"Some model operation failed|\[LM STUDIO|Model loading (?:was stopped|was aborted|aborted|stopped) due to "
                   r"insufficient system|"
                   # the app's error dialog copied as text: "🥲 Failed to load the model", the title above its cause
                   r"\U0001F972 Failed to load the model"),
    messages=(
        # the load guardrail refusing a model its estimate says will not fit ("Model loading was stopped due to
        # insufficient system resources. Under the current settings, this model requires approximately 14.2 GB of
        # memory"): nothing was allocated; the estimate counts the weights and the context's cache. An estimate of
        # "NaN undefined" is the estimator failing (a model it cannot size), not memory
        msg(r"requires approximately NaN\b", "not_oom", code="guardrail-estimate-invalid"),
        # (0.3.2x says "aborted": "Model loading aborted due to insufficient system resources. Overloading the system
        # will likely cause it to freeze.")
        msg(r"Model loading (?:was stopped|was aborted|aborted|stopped) due to insufficient system resources", "oom",
            code="guardrail-refused-load",
            candidates=("WEIGHTS", "KV")),
        # the dialog's title only says the load failed (weights, context or buffers): its cause is the "cause" line
        msg(r"\"title\":\s*\"(?:Error loading model|Failed to load (?:the )?model)", "wrapper"),
        # a cause that names nothing: the process exited ("Exit code: N"); no memory words
        # (also as its server log says it: "[ERROR] The model has crashed without additional information. (Exit
        # code: 6)", with or without a stop after it)
        msg(r"Some model operation failed|\(Exit code: -?\d+\)(?:\.|\s*$)|\bThe model has crashed\b", "error"),
        # ... or its engine runtime (llama-server run by LM Studio, 0.3.2x-0.4) that exited while loading: "Engine
        # protocol runtime llama-server for <id> exited before becoming healthy. exitCode=1, signal=null": the
        # runtime's own lines say why; a load, since the runtime is started to load a model
        msg(r"\bexited before becoming healthy\b", "wrapper", candidates=("WEIGHTS", "KV", "WARMUP")),
        # its server refusing a conversation longer than the context the model was loaded with ("[ERROR] Trying to keep
        # the first 10136 tokens when context the overflows. However, the model is loaded with context length of only
        # 7866 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter
        # input"): a request too long, not memory
        msg(r"\bthe model is loaded with context length of only \d+ tokens\b|\bTrying to keep the first \d+ tokens when "
            r"context the overflows\b|\bThe number of tokens to keep from the initial prompt is greater than the context "
            r"length\b", "request"),
    ),
    # (not its "[LM STUDIO SERVER] Success! HTTP server listening on port N": the server listens before any model is
    # loaded, by hand or just in time for a request, so a load that fails after it is a load, not serving)
    milestones=(
        # (and its per-request line, "[zai-org/glm-4.7-flash] Streaming response...", the model's name in brackets)
        ("requests", rx(r"Running chat completion on conversation|\[LM STUDIO SERVER\] Processing queued request|"
                        r"^\s*\[[^\]\n]{1,160}\] Streaming response\b")),
    ),
    figures=(
        fig("free_memory_bytes", r"\"vram_unused\":\s*\"" + SIZE),
        fig("total_memory_bytes", r"\"vram_recommended_capacity\":\s*\"" + SIZE),
        fig("n_ctx", r"\"n_ctx\":\s*(\d+)", count),
        # (its refusal names the context the model was loaded with: "the model is loaded with context length of only
        # 7866 tokens")
        fig("max_model_len", r"\bloaded with context length of only (\d+) tokens\b", count),
        fig("host_free_memory_bytes", r"\"ram_unused\":\s*\"" + SIZE),
        fig("engine_version", r"\"app\":\s*\{\s*\"version\":\s*\"([\w.+-]{1,40})\"", lambda m: m.group(1)),
        # its load estimate, a block in its log ("[LM Studio] Model load size estimate with raw num offload layers
        # 'max' and context length '262144':", then "  Model: 34.85 GB", "  Context: 73.60 GB", "  Total: 108.45 GB"):
        # the context asked for, and what each ledger would take by its estimate (weights; the context's KV cache)
        fig("max_model_len", r"Model load size estimate with raw num offload layers '[^']{0,20}' and context length "
                             r"'(\d+)'", count),
        fig("estimate_weights_bytes", r"^\s+Model:\s+" + SIZE + r"\s*$"),
        fig("estimate_kv_bytes", r"^\s+Context:\s+" + SIZE + r"\s*$"),
    ),
)

ENGINE = Engine(
    name="lmstudio", label="LM Studio", log=LOG, wraps="llamacpp", aliases=("lm-studio", "lms"),
    flags={"max_model_len": "Context Length {n} (load settings; lms load --context-length {n})",
           "gpu_layers": "GPU Offload {n} layers (load settings)",
           "kv_cache_dtype": "K Cache / V Cache Quantization Type q8_0 (load settings, with Flash Attention)",
           "flash_attn": "Flash Attention on (load settings)",
           "kv_offload": "Offload KV Cache to GPU Memory off (load settings)",
           "n_ubatch": "Evaluation Batch Size {n} (load settings)",
           "quantization": "a smaller quant of the model (Q4_K_M)"},
)
