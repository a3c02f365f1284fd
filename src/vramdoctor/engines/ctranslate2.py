"""CTranslate2 (OpenNMT/CTranslate2) and the servers and tools built on it: faster-whisper (`WhisperModel`),
whisper-ctranslate2, WhisperX, subgen, and others that transcribe with it. It holds no paged KV pool of its own to
size: its memory is the model's weights, placed on the device when the model object is made, and each call's
activations and decoder caches (beam size x batch size x the decoded length), made while it runs.

Sources: CTranslate2 `src/cuda/utils.h` (CUDA_CHECK: "CUDA failed with error " + cudaGetErrorString, so an allocation
that fails reads "CUDA failed with error out of memory"), `python/cpp/whisper.cc` / `generator.cc` / `translator.cc`
(the model is loaded onto the device in the constructor: `ctranslate2.models.Whisper(...)`,
`ctranslate2.Generator(...)`, `ctranslate2.Translator(...)`; `compute_type`, `device_index`); faster-whisper
`faster_whisper/transcribe.py` (`WhisperModel.__init__` makes the CTranslate2 model; `transcribe` ->
`generate_segments` -> `generate_with_fallback` -> `self.model.generate`, `encode`, `detect_language`; `beam_size`
default 5, `batch_size` in `BatchedInferencePipeline`); subgen's `Error processing or transcribing <file>: <error>`.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import fig, msg, rx

LOG = LogWords(
    load_is_weights=True,  # (its start-up is the weights' load: no pool sized, no warm-up)
    fingerprint=rx(r"\bctranslate2\b|\bfaster[_-]whisper\b|\bwhisper[_-]ctranslate2\b|\bwhisperx\b|"
                   r"\bCUDA failed with error\b"),
    messages=(
        # CUDA_CHECK's words for a failed allocation (cudaErrorMemoryAllocation's string)
        msg(r"\bCUDA failed with error out of memory\b", "oom", code="ctranslate2-cuda-oom"),
        # ... and for other CUDA errors: the device, the driver or a kernel, not memory
        msg(r"\bCUDA failed with error (?!out of memory)[a-z]", "not_oom", code="cuda-kernel-error"),
    ),
    figures=(
        # the weights' type the user chose (WhisperModel(..., compute_type="int8_float16"), whisper-ctranslate2's
        # --compute_type int8): already 8-bit, fewer bits are not advised again
        fig("quantization", r"\bcompute_type\s*[=:]?\s*['\x22]?(int8(?:_float16|_bfloat16|_float32)?|int16)\b",
            lambda m: m.group(1)),
    ),
    frames={
        # the model object made: its weights placed on the device (a frozen build names the constructor "init"); the
        # frame only, not a user's code that makes one ("self.model = WhisperModel('small')" beside a later failure)
        "WEIGHTS": rx(r"\bfaster_whisper[\\/]transcribe\.py\x22?, line \d+, in (?:__init__|init)\b"),
        # a call on a model already made: a file or a request being transcribed or generated
        "RUNTIME": rx(r"\bgenerate_segments\b|\bgenerate_with_fallback\b|\bself\.model\.(?:generate|encode|"
                      r"detect_language|align)\b|\btranslate_batch\b|\bgenerate_batch\b|\bgenerate_tokens\b|"
                      r"\bError processing or transcribing\b|\b(?:while|when) transcribing\b"),
    },
)

ENGINE = Engine(
    name="ctranslate2", label="CTranslate2 / faster-whisper", log=LOG,
    aliases=("faster-whisper", "faster_whisper", "whisper-ctranslate2", "whisperx"),
    flags={"quantization": "compute_type=\"int8_float16\"",
           "max_num_seqs": "beam_size={n} (batch_size={n} in BatchedInferencePipeline)"},
)
