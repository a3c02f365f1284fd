"""text-generation-webui (oobabooga): a UI around several loaders (transformers, GPTQ, ExLlama, llama.cpp).

Sources (oobabooga/textgen): `server.py` flags (--wbits, --groupsize, --pre_layer, --gpu-memory,
--cpu-memory, --n_ctx, --cache_8bit), `modules/text_generation.py` ("Output generated in %.2f seconds").
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import NOT_ADMIN, count, fig, rx

LOG = LogWords(
    # (not its models folder in a path another program reads: "./main -m /data/text-generation-webui/models/x.gguf")
    fingerprint=rx(r"text-generation-webui(?![/\\]models[/\\])|oobabooga|server\.py --model|Output generated in|--wbits|"
                   r"--pre_layer|modules/text_generation\.py"),
    # (and a model's load begun from the UI, after it was ready: 'INFO     Loading "Qwen_Qwen2.5-14B-Instruct"', the
    # 1.x form of "Loading x...": a start-up of its own, whose steps the UI's ready line came before)
    run_start=(rx(r"python server\.py|Starting Text generation web UI|Loading \S+\.\.\.$|"
                  r"\bINFO\s+Loading \x22[^\x22\n]{1,200}\x22\s*$", 0),),
    frames={"RUNTIME": rx(r"generate_reply|generate_with_streaming|text_generation\.py|Output generated")},
    milestones=(
        # (not Triton's "successfully loaded 'postprocessing'" of each model in its repository, quoted)
        # (not a file a request brought, whisper-server's "Successfully loaded jfk.wav")
        ("weights_done", rx(r"Loaded the model in|(?<![\x22'])Successfully loaded(?! ')(?!\s+(?:blob|\S+\.(?:wav|mp3|"
                            r"flac|ogg|oga|opus|aac|m4a|amr|3gp|mp4|mkv|mov|avi|webm|png|jpe?g|webp|gif|pdf|txt))\s*$)")),
        ("ready", rx(r"Running on local URL|Starting API at")),
        ("requests", rx(r"Output generated in|\"POST /v1/" + NOT_ADMIN + r"|/api/v1/generate")),
    ),
    figures=(
        fig("prompt_tokens", r"context (\d+), seed", count),
        fig("max_model_len", r"--n_ctx[= ](\d+)", count),
        fig("quantization", r"--wbits[= ](\d+)", lambda m: f"{m.group(1)}-bit"),
    ),
)

ENGINE = Engine(
    name="text-generation-webui", label="text-generation-webui", log=LOG,
    aliases=("oobabooga", "tgwebui", "textgen", "textgen-webui", "text-gen-webui"),
    # (each loader has its own settings: n_ctx and n_batch are the llama.cpp loaders', max_seq_len ExLlama's; the
    # transformers and GPTQ loaders prefill the whole prompt at once, and truncation_length caps it in every loader)
    flags={"max_model_len": "truncation_length {n} (n_ctx for the llama.cpp loaders, max_seq_len for ExLlama)",
           "kv_cache_dtype": "cache_8bit",
           "max_num_batched_tokens": "a smaller n_batch (llama.cpp loaders only; transformers and GPTQ prefill the whole "
                                     "prompt at once: shorten it)",
           "tensor_parallel_size": "--gpu-split across GPUs",
           "quantization": "a 4-bit quant (GPTQ/EXL2/GGUF Q4)",
           "quantization_4bit": "a 4-bit quant (GPTQ/EXL2/GGUF Q4)", "cpu_offload": "--gpu-memory lower (the rest on the CPU)"},
)
