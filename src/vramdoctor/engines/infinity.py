"""Infinity (michaelfeil/infinity, `infinity_emb`): an embedding, reranking and classification server. It holds no
KV cache: its memory is the model's weights and the activations of one batch of sentences.

Sources (libs/infinity_emb/infinity_emb/): `inference/batch_handler.py` (`BatchHandler`: every request's sentences
are queued and run in batches of at most `batch_size` by `_core_batch`, which logs an exception as
`logger.error(f"{e}")` before its traceback; the model's warm-up at start calls the model's encode functions directly,
`inference/select_model.py` `select_model` -> `warmup`, never the batch handler), `args.py` / `cli.py` (`--batch-size`,
default 32; `--dtype` float32, float16, bfloat16, int8, fp8; `--no-model-warmup`), `log_handler.py` (rich's handler:
the level, the time, "infinity_emb", the message, its source file on the right, long messages wrapped).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import count, fig, msg, rx

LOG = LogWords(
    fingerprint=rx(r"\binfinity_emb\b|\binfinity-emb\b|michaelf34/infinity"),
    messages=(
        # the batch handler's record of the exception it caught, its message on the record's line ("infinity_emb
        # ERROR: shape '[2, 512]' is invalid for input of size 524288   batch_handler.py:434"), the traceback after it:
        # the cause stated, where its words name nothing of memory (an out of memory is read by the generic words)
        msg(r"\binfinity_emb ERROR: (?![^\n]*(?:memory|alloc|CUDA|cuda|OOM|cache|buffer|[Kk]illed))[^\n]{12,}", "not_oom",
            code="error-not-memory"),
    ),
    # the batch handler runs only requests' sentences: a failure in it (its file named on the record's line, or a
    # frame of it) is while serving
    frames={"RUNTIME": rx(r"\bbatch_handler\.py\b|\b_core_batch\b")},
    milestones=(("ready", rx(r"Uvicorn running on|Application startup complete|infinity_emb INFO: model warmed up")),),
    figures=(
        fig("max_num_seqs", r"(?:^|\s)--batch-size(?:=|\s+)(\d+)\b", count, flags=0),
        fig("max_num_seqs", r"\bbatch_size['\"]?\s*[=:]\s*(\d+)\b", count),
    ),
)

ENGINE = Engine(
    name="infinity", label="Infinity", log=LOG, aliases=("infinity-emb", "infinity_emb"),
    flags={"max_num_seqs": "--batch-size {n}", "quantization": "--dtype int8",
           "quantization_4bit": "--dtype int8"},
)
