"""What to change, in the engine's own flags, ordered as a careful engineer would try it, with the
numbers filled in from the log. Pure: (kind, engine, figures) in, a list of steps out."""

from __future__ import annotations

GIB = 2**30

# engine -> setting -> how that engine spells it
FLAGS: dict[str, dict[str, str]] = {
    "vllm": {"ctx": "--max-model-len {n}", "seqs": "--max-num-seqs {n}", "util": "--gpu-memory-utilization {x}",
             "kv8": "--kv-cache-dtype fp8", "chunk": "--enable-chunked-prefill --max-num-batched-tokens 2048",
             "graphs": "--enforce-eager (or a smaller --max-num-seqs, which caps the graphs captured)",
             "batch": "--max-num-batched-tokens 2048", "tp": "--tensor-parallel-size {n}",
             "quant": "a 4-bit AWQ/GPTQ or fp8 checkpoint (--quantization awq|gptq|fp8)"},
    "sglang": {"ctx": "--context-length {n}", "seqs": "--max-running-requests {n}", "util": "--mem-fraction-static {x}",
               "kv8": "--kv-cache-dtype fp8_e5m2", "chunk": "--chunked-prefill-size 2048",
               "graphs": "--cuda-graph-max-bs 8 (or --disable-cuda-graph)", "batch": "--chunked-prefill-size 2048",
               "tp": "--tp-size {n}", "quant": "an fp8/AWQ checkpoint (--quantization fp8|awq)"},
    "llamacpp": {"ctx": "-c {n}", "seqs": "-np {n}", "util": "-ngl {n} (fewer layers on the GPU)",
                 "kv8": "-ctk q8_0 -ctv q8_0 -fa on", "chunk": "-ub 256 -b 512", "graphs": "-ub 256 -b 512",
                 "batch": "-ub 256", "tp": "--split-mode layer across GPUs", "quant": "a smaller quant (Q4_K_M)"},
    "ollama": {"ctx": "num_ctx {n} (OLLAMA_CONTEXT_LENGTH={n})", "seqs": "OLLAMA_NUM_PARALLEL={n}",
               "util": "num_gpu {n} (layers on the GPU)", "kv8": "OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0",
               "chunk": "num_batch 256", "graphs": "num_batch 256", "batch": "num_batch 256",
               "tp": "a second GPU (Ollama splits layers)", "quant": "a smaller quant tag (q4_K_M)"},
    "koboldcpp": {"ctx": "--contextsize {n}", "seqs": "--multiuser 1", "util": "--gpulayers {n}", "kv8": "--flashattention --quantkv 1",
                  "chunk": "--blasbatchsize 256", "graphs": "--blasbatchsize 256", "batch": "--blasbatchsize 256",
                  "tp": "--tensor_split across GPUs", "quant": "a smaller quant (Q4_K_M)"},
    "tgi": {"ctx": "--max-total-tokens {n} --max-input-tokens {m}", "seqs": "--max-concurrent-requests {n}",
            "util": "--cuda-memory-fraction {x}", "kv8": "--kv-cache-dtype fp8_e5m2", "chunk": "--max-batch-prefill-tokens 2048",
            "graphs": "--cuda-graphs 1,2,4 (or 0)", "batch": "--max-batch-prefill-tokens 2048",
            "tp": "--num-shard {n}", "quant": "--quantize awq|gptq|bitsandbytes-nf4"},
    "lmdeploy": {"ctx": "--session-len {n}", "seqs": "--max-batch-size {n}", "util": "--cache-max-entry-count {x}",
                 "kv8": "--quant-policy 8", "chunk": "--max-prefill-token-num 2048", "graphs": "--max-batch-size 8",
                 "batch": "--max-prefill-token-num 2048", "tp": "--tp {n}", "quant": "a 4-bit AWQ model (--model-format awq)"},
    "tensorrt-llm": {"ctx": "max_seq_len {n} (trtllm-build --max_seq_len)", "seqs": "max_batch_size {n} (trtllm-build)",
                     "util": "kv_cache_free_gpu_mem_fraction {x}", "kv8": "--kv_cache_dtype fp8 at build",
                     "chunk": "--enable_chunked_context", "graphs": "a smaller max_batch_size / max_num_tokens at build",
                     "batch": "max_num_tokens 2048 (trtllm-build)", "tp": "--tp_size {n} at build",
                     "quant": "an fp8/int4-AWQ engine (quantize.py)"},
    "exllamav2": {"ctx": "max_seq_len {n}", "seqs": "max_batch_size {n}", "util": "gpu_split with more headroom (autosplit_reserve)",
                  "kv8": "cache_mode Q8 (or Q4)", "chunk": "chunk_size 1024", "graphs": "autosplit_reserve / a manual gpu_split leaving 1-2 GiB",
                  "batch": "chunk_size 1024", "tp": "gpu_split across GPUs", "quant": "a lower-bpw EXL2 quant"},
    "text-generation-webui": {"ctx": "n_ctx / truncation_length {n}", "seqs": "one request at a time",
                              "util": "--gpu-memory {x} (leave headroom)", "kv8": "cache_8bit", "chunk": "a smaller n_batch",
                              "graphs": "a smaller n_batch", "batch": "a smaller n_batch", "tp": "--gpu-split across GPUs",
                              "quant": "a 4-bit quant (GPTQ/EXL2/GGUF Q4)"},
    "mlc-llm": {"ctx": "--context-window-size {n}", "seqs": "--max-batch-size {n}", "util": "gpu_memory_utilization {x}",
                "kv8": "a q4f16 KV quantization", "chunk": "--prefill-chunk-size 1024", "graphs": "--prefill-chunk-size 1024",
                "batch": "--prefill-chunk-size 1024", "tp": "--tensor-parallel-shards {n}", "quant": "q4f16_1 weights"},
    "transformers": {"ctx": "a shorter max_length / max_new_tokens ({n})", "seqs": "a smaller batch ({n})",
                     "util": "device_map='auto' with max_memory", "kv8": "cache_implementation='quantized'",
                     "chunk": "smaller batches", "graphs": "no torch.compile / CUDA graphs", "batch": "a smaller batch",
                     "tp": "device_map='auto' across GPUs", "quant": "load_in_4bit (bitsandbytes) or an AWQ/GPTQ checkpoint"},
}


def _f(engine: str, key: str, **v) -> str:
    table = FLAGS.get(engine, FLAGS["vllm"])
    text = table[key]
    for k, val in v.items():
        text = text.replace("{" + k + "}", str(val))
    return text.replace("{n}", "N").replace("{x}", "X").replace("{m}", "M")


def advise(kind: str, engine: str, n: dict, code: str = "") -> list[dict]:
    """Steps for `kind`, each {'change', 'flags', 'why'}, in the order to try them."""
    eng = engine if engine in FLAGS else "vllm"
    out: list[dict] = []

    def add(change: str, key: str, why: str, **v) -> None:
        out.append({"change": change, "flags": _f(eng, key, **v), "why": why})

    if kind == "KV_CAPACITY":
        fit = n.get("max_model_len_fit") or n.get("kv_pool_tokens")
        if fit and n.get("max_model_len") and fit < n["max_model_len"]:
            add("shorter context", "ctx", f"the pool holds {fit:,} tokens; {n['max_model_len']:,} were asked for",
                n=fit, m=max(1, fit - 512))
        elif n.get("kv_cache_requested_bytes") and n.get("n_ctx"):
            half = max(256, n["n_ctx"] // 2 // 256 * 256)
            add("shorter context", "ctx", f"the KV cache for {n['n_ctx']:,} tokens needs "
                f"{n['kv_cache_requested_bytes'] / GIB:.2f} GiB ({n['kv_bytes_per_token']:,} bytes per token); "
                "it shrinks in proportion", n=half)
        else:
            add("shorter context", "ctx", "the context is what the KV pool must hold per sequence",
                n=fit if fit else "a smaller value")
        conc = n.get("max_concurrency")
        if code != "max-model-len-exceeds-kv-cache":  # there, one sequence alone does not fit
            add("fewer concurrent sequences", "seqs", "each running sequence holds its own KV cache",
                n=max(1, int(conc)) if conc and conc >= 1 else "fewer than now")
        util = n.get("gpu_memory_utilization") or n.get("mem_fraction_static")
        ggml = eng in ("llamacpp", "ollama", "koboldcpp")
        if ggml:
            out.append({"change": "KV cache off the GPU", "flags": {"llamacpp": "-nkvo (or a lower -ngl)",
                        "ollama": "a lower num_gpu", "koboldcpp": "--lowvram (or fewer --gpulayers)"}[eng],
                        "why": "the KV cache lives beside the offloaded layers; keeping it (or some layers) in "
                               "system memory frees the GPU at some speed"})
        elif code.startswith("kv-cache-alloc-failed"):
            add("more headroom", "util", "allocating the pool itself failed: it was sized from a fraction of memory "
                "that was not free (another process, NCCL buffers); leave more outside it",
                x=round(max(0.5, (util or 0.9) - 0.05), 2))
        else:
            add("more memory for the pool", "util", "the pool is what is left of this fraction after weights",
                x=min(0.95, round((util or 0.9) + 0.05, 2)))
        add("8-bit KV cache", "kv8", "halves the bytes per token")
        add("chunked prefill" if not ggml else "smaller batches", "chunk",
            "caps the activation peak profiled at start, leaving more for the KV pool" if not ggml else
            "a smaller batch shrinks the compute buffer reserved beside the KV cache")
    elif kind == "WEIGHTS":
        add("fewer-bit weights", "quant", "the weights alone do not fit; context length does not matter here")
        add("more GPUs", "tp", "splits the weights across GPUs", n=2)
        add("offload fewer layers", "util", "keeps part of the model in CPU memory (slower)", n="fewer")
    elif kind == "WARMUP":
        add("smaller CUDA graphs / batches", "graphs", "graph capture and warm-up run the largest batch at start")
        add("smaller prefill batches", "batch", "the profiled activation peak scales with tokens per step")
        util = n.get("gpu_memory_utilization") or n.get("mem_fraction_static")
        if util:
            add("more headroom outside the pool", "util", "what warm-up needs comes out of what the pool leaves",
                x=round(max(0.5, util - 0.05), 2))
        add("fewer concurrent sequences", "seqs", "the sampler warm-up allocates logits for every sequence", n=64)
    elif kind == "RUNTIME":
        add("shorter requests first", "ctx", "one long prompt's prefill is the usual peak; cap per-request length",
            n=n.get("prompt_tokens") // 2 if n.get("prompt_tokens") else "a smaller value", m="a smaller value")
        add("smaller prefill chunks", "chunk", "spreads a long prompt over several steps")
        add("fewer concurrent sequences", "seqs", "concurrency multiplies the KV cache and activations", n=4)
    elif kind == "LEAK":
        out.append({"change": "watch, then restart", "flags": "track GPU KV cache usage / free memory against load",
                    "why": "usage that keeps rising with steady load points at blocks not being freed: report it "
                           "to the engine with this log; restart to recover"})
    elif kind == "NOT_OOM":
        out.append({"change": "do not resize memory", "flags": "-",
                    "why": "memory is not the problem: lowering the context or utilization will not fix it; "
                           "re-run with CUDA_LAUNCH_BLOCKING=1 (NCCL_DEBUG=INFO for NCCL) and report it"})
    return out
