"""Triton Inference Server with the TensorRT-LLM backend (`tensorrtllm_backend`): TensorRT-LLM's C++ runtime
behind Triton, so its memory lines are TensorRT-LLM's (`engines/tensorrt_llm.py`) and only its settings differ.

Sources (triton-inference-server/tensorrtllm_backend): `all_models/inflight_batcher_llm/tensorrt_llm/config.pbtxt`
(parameters `kv_cache_free_gpu_mem_fraction`, `max_tokens_in_paged_kv_cache`, `max_attention_window_size`,
`batch_scheduler_policy`, `enable_chunked_context`), `inflight_batcher_llm/src/` ("unexpected error when creating
modelInstanceState: ..."), `scripts/launch_triton_server.py --world_size`. The engine's own limits (max_seq_len,
max_batch_size, max_num_tokens, the KV cache's dtype, the tensor-parallel size) are fixed when the engine is built
(`trtllm-build`, the checkpoint converted or quantized before it): changing them means rebuilding the engine, not a
Triton setting.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import fig, fraction, msg, rx

LOG = LogWords(
    # (Triton's own lines are every backend's: only those of the TensorRT-LLM backend say it is this one)
    fingerprint=rx(r"tensorrtllm_backend|inflight_batcher_llm|libtriton_tensorrtllm|backend:\s*\"?tensorrtllm\b|"
                   r"when creating modelInstanceState|TRITONBACKEND_\w+: tensorrt_llm\b"),
    messages=(
        # Triton's summary of the models that did not load (src/main.cc: "error: creating server: Internal - failed to
        # load all models"): the model's own error above says why
        msg(r"\berror: creating server: \w+ - failed to load all models\b", "wrapper"),
    ),
    figures=(
        fig("free_gpu_memory_fraction", r"kv_cache_free_gpu_mem_fraction\W{1,40}?(0?\.\d+|1(?:\.0+)?)\b", fraction),
    ),
)

#: where each setting lives: the model's config.pbtxt for the runtime's, the engine build for the rest
ENGINE = Engine(
    name="triton-trtllm", label="Triton (TensorRT-LLM backend)", log=LOG, wraps="tensorrt-llm",
    fraction_key="free_gpu_memory_fraction", aliases=("triton", "tritonserver", "tensorrtllm_backend"),
    flags={"memory_fraction": "kv_cache_free_gpu_mem_fraction: {x} (config.pbtxt parameters)",
           "max_model_len": "max_attention_window_size: {n} in config.pbtxt, or an engine rebuilt with trtllm-build "
                            "--max_seq_len {n}",
           "max_num_seqs": "an engine rebuilt with trtllm-build --max_batch_size {n}",
           "max_num_batched_tokens": "an engine rebuilt with trtllm-build --max_num_tokens {n}",
           "kv_cache_dtype": "an fp8 KV cache built into the engine (quantize.py --kv_cache_dtype fp8, then "
                             "trtllm-build)",
           "tensor_parallel_size": "an engine converted with --tp_size {n} (launch_triton_server.py --world_size {n})",
           "quantization": "an fp8 or int4-AWQ engine (quantize.py, then trtllm-build)",
           "quantization_4bit": "an int4-AWQ engine (quantize.py --qformat int4_awq, then trtllm-build)"},
)
