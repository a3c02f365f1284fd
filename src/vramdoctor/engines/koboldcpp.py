"""KoboldCpp: a llama.cpp fork with its own server (its llama.cpp lines count for it).

Sources (LostRuins/koboldcpp): `koboldcpp.py` (--contextsize, --blasbatchsize default 512, values -1, 16,
32, 64, 128, 256, 512, 1024, 2048; --quantkv 0/1/2 needs --flashattention; --gpulayers; --lowvram keeps
the KV cache off the GPU), `gpttype_adapter.cpp` ("Processing Prompt [BLAS] (%d / %d tokens)",
"[Context Shifting: Erased %d tokens at position %d]").
"""

from __future__ import annotations

from .interface import Engine, LogWords, Spelling
from .words import count, fig, msg, rx

LOG = LogWords(
    messages=(
        # gpttype_adapter.cpp: llama_decode failed for a prompt (its KV cells are full); the request ends
        msg(r"Failed to predict at token position \d+! Check your context buffer sizes", "pressure", "RUNTIME",
            "kv-cache-full-request-failed"),
        # ... and in its generation loop ("Failed to predict at %d! Check your context buffer sizes!", n_past): the
        # evaluation failed, for the reason the lines before it give
        msg(r"Failed to predict at \d+! Check your context buffer sizes", "wrapper", "RUNTIME"),
        # koboldcpp.py's own words when its model load returned false ("Error: Could not load text model: <path>"):
        # the load failed, for the reason llama.cpp's lines before it give (weights, context or buffers)
        msg(r"\bCould not load text model\b", "wrapper"),
        # koboldcpp.py's request handler when writing the answer failed ("Generate: The response could not be sent,
        # maybe connection was terminated?"): the client had hung up (a front end's timeout on a long prompt's
        # processing), that request only; not memory
        msg(r"\bThe response could not be sent, maybe connection was terminated\b", "not_oom",
            code="client-disconnected"),
    ),
    fingerprint=rx(r"koboldcpp|\[Context Shifting|Processing Prompt(?: \[BLAS\])? \(\d+ / \d+ tokens\)|"
                   r"Check your context buffer sizes|The response could not be sent, maybe connection was terminated|"
                   r"Welcome to KoboldCpp|gpttype_load_model|gpttype_adapter|Load Text Model OK|Could not load text model"),
    run_start=(rx(r"Welcome to KoboldCpp", 0),),
    # (its own progress line, with its count: not another server's "Error processing prompt")
    frames={"RUNTIME": rx(r"Processing Prompt(?: \[BLAS\])? \(\d+ / \d+ tokens\)|Generating \(\d+ / \d+ tokens\)")},
    # a generation's summary, printed when it ends (koboldcpp.py: "CtxLimit:3768/4096, Amt:242/242, Init:0.01s,
    # Process:0.44s (442.0ms/T = 2.26T/s), Generate:..., Total:0.45s (2.25T/s)"; before 1.50 "ContextLimit: ...,
    # Processing:..., Generation:..., Total:..."): a request answered
    answered=rx(r"\b(?:CtxLimit|ContextLimit):\s*\d+/\d+,[^\n]{0,160}?\bTotal:\s*[\d.]+s\b"),
    milestones=(
        ("ready", rx(r"Please connect to custom endpoint at|Starting Kobold API on port")),
        ("requests", rx(r"Processing Prompt(?: \[BLAS\])? \(\d+ / \d+ tokens\)|Input: \{|Generating \(")),
    ),
    figures=(
        fig("prompt_tokens", r"Processing Prompt(?: \[BLAS\])? \(\d+ / (\d+) tokens\)", count),
        fig("processed_prompt_tokens", r"Processing Prompt(?: \[BLAS\])? \((\d+) / \d+ tokens\)", count),
        fig("context_shift_erased_tokens", r"Context Shifting: Erased (\d+) tokens", count),
        fig("blas_batch_size", r"blasbatchsize[=:]\s*(-?\d+)", count),
        fig("max_model_len", r"contextsize[=:]\s*(\d+)", count),
    ),
)

#: KoboldCpp's flags for what `estimate` says (koboldcpp.py): one --contextsize (it has no parallel slots), --quantkv
#: 1 (q8_0) or 2 (q4_0) with --flashattention, --gpulayers, --blasbatchsize
SPELLING = Spelling(label="KoboldCpp", context="--contextsize {ctx}", kv_cache="{t}",
                    kv8="--flashattention --quantkv 1", ubatch="--blasbatchsize {u}", gpu_layers="--gpulayers {k}",
                    split="--tensor_split {tss}", kv_types={"f16": "", "q8_0": "--flashattention --quantkv 1",
                                                                  "q4_0": "--flashattention --quantkv 2"})

ENGINE = Engine(
    spelling=SPELLING,
    name="koboldcpp", label="KoboldCpp", log=LOG, wraps="llamacpp", aliases=("kobold", "koboldcpp-rocm"),
    flags={"max_model_len": "--contextsize {n}", "kv_cache_dtype": "--flashattention --quantkv 1",
           "n_ubatch": "--blasbatchsize {n}", "flash_attn": "--flashattention",
           "tensor_parallel_size": "--tensor_split across GPUs", "quantization": "a smaller quant (Q4_K_M)",
           "gpu_layers": "--gpulayers {n}",
           "kv_offload": "--usecublas lowvram (newer builds: --lowvram), or fewer --gpulayers"},
)
