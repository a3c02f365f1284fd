"""whisper.cpp (ggml-org/whisper.cpp): speech to text on ggml, the same back ends as llama.cpp. Its memory is the
model's weights (placed by `whisper_model_load`), the KV caches of its decoders (`whisper_kv_cache_init`: a self-
attention cache per decoder, so `--beam-size` and `--best-of` multiply it, and a cross-attention cache), and the
compute buffers of the encoder and decoder graphs.

Sources (src/whisper.cpp): `whisper_init_from_file_with_params_no_state: loading model from '%s'`,
`whisper_model_load: loading model`, its hyperparameters and `model size = %7.2f MB`; `whisper_init_state`:
`kv self size`, `kv cross size`, `compute buffer (encode)`; `whisper_kv_cache_init: failed to allocate memory for the
kv cache`; `whisper_full_with_state: whisper_kv_cache_init() failed for self-attention cache` (the decoders' caches
made per call when beams need more); examples' `failed to process audio`; `--beam-size`, `--best-of`, `-ng` (no GPU).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import rx

#: a file or a request under way: whisper-cli's "main: processing 'talk.wav' (...)", whisper-server's "Received request:
#: jfk.wav" (a frame of the run's work, and a milestone of it)
_UNDER_WAY = r"\bmain: processing '|\bReceived request: "

LOG = LogWords(
    load_is_weights=True,  # (its start-up is the weights' load: no pool sized, no warm-up)
    fingerprint=rx(r"\bwhisper_(?:init_from_file\w*|model_load|init_state|full\w*|kv_cache_init|print_timings)\b"),
    frames={
        "WEIGHTS": rx(r"\bwhisper_model_load\b|\bwhisper_init_from_file\w*: loading model\b"),
        "KV": rx(r"\bwhisper_kv_cache_init\b"),
        "RUNTIME": rx(r"\bwhisper_full\w*\b|\bwhisper_(?:encode|decode)\w*\b|\bfailed to process audio\b|" + _UNDER_WAY),
    },
    milestones=(("weights_done", rx(r"\bwhisper_model_load: (?:model size|CUDA\d* total size)\s+=")),
                ("kv_done", rx(r"\bwhisper_init_state: kv cross size\s+=")),
                # (or a segment transcribed: "[00:00:00.000 --> 00:00:04.000]   And so ...")
                ("requests", rx(_UNDER_WAY + r"|^\[\d\d:\d\d:\d\d\.\d{3} --> \d\d:"))),
)

ENGINE = Engine(
    name="whisper.cpp", label="whisper.cpp", log=LOG, aliases=("whisper-cpp", "whispercpp"),
    flags={"max_num_seqs": "--beam-size {n}", "quantization": "a quantized model (whisper.cpp's quantize, q5_0)"},
)
