"""What to change, in the engine's own flags, ordered as a careful engineer would try it, with the
numbers filled in from the log. Pure: (kind, code, engine, figures) in, a list of steps out.

Each step is {'change', 'flags', 'why'}. Steps whose setting the engine does not have are left
out rather than given in another engine's words.
"""

from __future__ import annotations

GIB = 2**30
GGML = ("llamacpp", "ollama", "koboldcpp")

# engine -> setting -> spelling; {n} a count, {x} a fraction. A missing key: the engine has no such knob.
FLAGS: dict[str, dict[str, str]] = {
    "vllm": {"ctx": "--max-model-len {n}", "seqs": "--max-num-seqs {n}", "util": "--gpu-memory-utilization {x}",
             "kv8": "--kv-cache-dtype fp8", "chunk": "--enable-chunked-prefill --max-num-batched-tokens 2048",
             "graphs": "--enforce-eager (or --max-num-seqs lower: fewer graph sizes to capture)",
             "tp": "--tensor-parallel-size {n}", "quant": "a 4-bit AWQ/GPTQ or fp8 checkpoint (--quantization awq|gptq|fp8)",
             "offload": "--cpu-offload-gb {n}", "nccl": "--disable-custom-all-reduce",
             "batch": "--max-num-batched-tokens {n}"},
    "sglang": {"ctx": "--context-length {n}", "seqs": "--max-running-requests {n}", "util": "--mem-fraction-static {x}",
               "kv8": "--kv-cache-dtype fp8_e5m2", "chunk": "--chunked-prefill-size 2048",
               "graphs": "--cuda-graph-max-bs 8 (or --disable-cuda-graph)", "tp": "--tp-size {n}",
               "quant": "an fp8/AWQ checkpoint (--quantization fp8|awq)", "offload": "--cpu-offload-gb {n}",
               "nccl": "--disable-custom-all-reduce"},
    "llamacpp": {"ctx": "-c {n}", "seqs": "-np {n}", "kv8": "-ctk q8_0 -ctv q8_0 -fa on", "ubatch": "-ub 256 -b 512",
                 "fa": "-fa on", "tp": "--split-mode layer across GPUs", "quant": "a smaller quant (Q4_K_M)",
                 "offload": "-ngl {n} (fewer layers on the GPU)", "kv_off": "-nkvo (or a lower -ngl)"},
    "ollama": {"ctx": "num_ctx {n} (OLLAMA_CONTEXT_LENGTH={n})", "seqs": "OLLAMA_NUM_PARALLEL={n}",
               "kv8": "OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0", "ubatch": "num_batch 256",
               "fa": "OLLAMA_FLASH_ATTENTION=1", "tp": "a second GPU (Ollama splits layers)",
               "quant": "a smaller quant tag (q4_K_M)", "offload": "num_gpu {n} (layers on the GPU)",
               "kv_off": "a lower num_gpu"},
    "koboldcpp": {"ctx": "--contextsize {n}", "kv8": "--flashattention --quantkv 1", "ubatch": "--blasbatchsize 256",
                  "fa": "--flashattention", "tp": "--tensor_split across GPUs", "quant": "a smaller quant (Q4_K_M)",
                  "offload": "--gpulayers {n}", "kv_off": "--lowvram (or fewer --gpulayers)"},
    "tgi": {"ctx": "--max-total-tokens {n} --max-input-tokens {m}", "seqs": "--max-concurrent-requests {n}",
            "util": "--cuda-memory-fraction {x}", "kv8": "--kv-cache-dtype fp8_e5m2",
            "graphs": "--cuda-graphs 1,2,4", "tp": "--num-shard {n}", "quant": "--quantize awq|gptq|bitsandbytes-nf4",
            "prefill": "--max-input-tokens {n} --max-batch-prefill-tokens {n} (prefill tokens must be >= input tokens)"},
    "lmdeploy": {"ctx": "--session-len {n}", "seqs": "--max-batch-size {n}", "util": "--cache-max-entry-count {x}",
                 "kv8": "--quant-policy 8", "chunk": "--max-prefill-token-num 2048", "tp": "--tp {n}",
                 "quant": "a 4-bit AWQ model (--model-format awq)"},
    "tensorrt-llm": {"ctx": "max_seq_len {n} (trtllm-build --max_seq_len)", "seqs": "max_batch_size {n} (trtllm-build)",
                     "util": "kv_cache_free_gpu_mem_fraction {x}", "kv8": "--kv_cache_dtype fp8 at build",
                     "chunk": "--enable_chunked_context", "tp": "--tp_size {n} at build",
                     "quant": "an fp8/int4-AWQ engine (quantize.py)"},
    "exllamav2": {"ctx": "max_seq_len {n}", "seqs": "max_batch_size {n}", "kv8": "cache_mode Q8 (or Q4)",
                  "chunk": "chunk_size 1024", "graphs": "autosplit_reserve / a gpu_split leaving 1-2 GiB",
                  "tp": "gpu_split across GPUs", "quant": "a lower-bpw EXL2 quant", "offload": "gpu_split with less per GPU"},
    "text-generation-webui": {"ctx": "n_ctx / truncation_length {n}", "kv8": "cache_8bit", "chunk": "a smaller n_batch",
                              "tp": "--gpu-split across GPUs", "quant": "a 4-bit quant (GPTQ/EXL2/GGUF Q4)",
                              "offload": "--gpu-memory lower (the rest on the CPU)"},
    "mlc-llm": {"ctx": "--context-window-size {n}", "seqs": "--max-batch-size {n}", "util": "gpu_memory_utilization {x}",
                "chunk": "--prefill-chunk-size 1024", "tp": "--tensor-parallel-shards {n}", "quant": "q4f16_1 weights"},
    "transformers": {"ctx": "a shorter input / max_new_tokens ({n})", "seqs": "a smaller batch ({n})",
                     "kv8": "cache_implementation='quantized'", "chunk": "smaller batches",
                     "tp": "device_map='auto' across GPUs", "quant": "load_in_4bit (bitsandbytes) or an AWQ/GPTQ checkpoint",
                     "offload": "device_map='auto' with max_memory (the rest on the CPU)",
                     "fa": "attn_implementation='sdpa' or 'flash_attention_2'"},
}
DEFAULT_UTIL = {"vllm": 0.9, "lmdeploy": 0.8, "tensorrt-llm": 0.9, "mlc-llm": 0.85}


class _Steps:
    def __init__(self, engine: str) -> None:
        self.engine = engine if engine in FLAGS else "vllm"
        self.table = FLAGS[self.engine]
        self.out: list[dict] = []

    def add(self, change: str, key: str, why: str, **v: object) -> None:
        text = self.table.get(key)
        if text is None:
            return
        for k, val in v.items():
            text = text.replace("{" + k + "}", str(val))
        text = text.replace("{n}", "a lower value").replace("{x}", "a lower value").replace("{m}", "a lower value")
        self.out.append({"change": change, "flags": text, "why": why})

    def say(self, change: str, why: str) -> None:
        self.out.append({"change": change, "flags": "", "why": why})


def _util(n: dict, engine: str) -> float | None:
    for key in ("gpu_memory_utilization", "mem_fraction_static", "cache_max_entry_count"):
        v = n.get(key)
        if isinstance(v, list):
            v = v[-1] if v else None
        if v:
            return float(v)
    return DEFAULT_UTIL.get(engine)


def _down(u: float | None, to: float | None = None) -> object:
    """A fraction strictly below `u` (to `to` when the log says how much is free)."""
    if not u:
        return "a lower value"
    target = to if to is not None and to < u else u - 0.05
    return round(max(target, u / 2), 2)


def _up(u: float | None) -> object | None:
    """A fraction strictly above `u`, at most 0.98; None when it cannot grow."""
    if not u:
        return "a higher value"
    return round(min(0.98, u + 0.05), 2) if u < 0.98 else None


def _more_gpus(n: dict) -> int:
    tp = n.get("tensor_parallel_size")
    return 2 * tp if isinstance(tp, int) and tp >= 1 else 2


def _other_process(s: "_Steps", n: dict) -> None:
    other = n.get("other_process_in_use_bytes")
    if other:
        gib = (sum(other) if isinstance(other, list) else other) / GIB
        s.say("free the GPU", f"another process holds {gib:.2f} GiB on this GPU; stop it or use another device")


def _kv(s: _Steps, n: dict, code: str) -> None:
    eng, u = s.engine, _util(n, s.engine)
    fit, asked = n.get("max_model_len_fit") or n.get("kv_pool_tokens"), n.get("max_model_len")
    if code == "no-memory-for-kv-cache":
        if _up(u) is not None:
            s.add("more memory for the pool", "util", "the weights leave no room for a KV pool in this fraction", x=_up(u))
        s.add("fewer-bit weights", "quant", "smaller weights leave room for the pool")
        s.add("more GPUs", "tp", "splits the weights, leaving each GPU room for a pool", n=_more_gpus(n))
        return
    if code.startswith("kv-cache-alloc-failed") and eng not in GGML:
        # the pool is sized from the fraction, not from the context: allocating it failed because the fraction
        # counted memory that was not free
        tried, free, total = n.get("failed_alloc_bytes"), n.get("free_memory_bytes"), n.get("total_memory_bytes")
        tried = max(tried) if isinstance(tried, list) and tried else tried
        free = free[-1] if isinstance(free, list) and free else free
        to = None
        if u and all(isinstance(v, int) and v > 0 for v in (tried, free, total)) and tried > free:
            to = u - (tried - free) / total - 0.02
        s.add("more headroom", "util", "allocating the pool itself failed: it was sized from a fraction of memory "
              "that was not free (another process, NCCL buffers); leave more outside it", x=_down(u, to))
        _other_process(s, n)
        return
    if fit and asked and fit < asked:
        s.add("shorter context", "ctx", f"the pool holds {fit:,} tokens; {asked:,} were asked for",
              n=fit, m=max(1, fit - 512))
    elif n.get("kv_cache_requested_bytes") and n.get("n_ctx"):
        per, ctx = n["kv_bytes_per_token"], n["n_ctx"]
        free, weights = n.get("free_memory_bytes"), n.get("gpu_model_buffer_bytes")
        if isinstance(weights, list):
            weights = sum(weights)
        target = max(256, ctx // 2 // 256 * 256)
        why = (f"the KV cache for {ctx:,} tokens needs {n['kv_cache_requested_bytes'] / GIB:.2f} GiB "
               f"({per:,} bytes per token)")
        if isinstance(free, int) and weights and free > weights:
            target = max(256, int((free - weights) * 0.9 / per) // 256 * 256)
            why += f"; {free / GIB:.1f} GiB free minus {weights / GIB:.1f} GiB of weights, with a 10% margin"
        parallel = n.get("n_parallel")
        if eng in ("ollama", "llamacpp") and isinstance(parallel, int) and parallel > 1:
            s.add("one sequence at a time", "seqs", f"the KV cache is sized for {parallel} parallel slots", n=1)
            target = max(256, target // parallel // 256 * 256)
        s.add("shorter context", "ctx", why + "; it shrinks in proportion", n=target, m=max(1, target - 512))
    else:
        s.add("shorter context", "ctx", "the context is what the KV pool must hold per sequence")
    parallel = n.get("n_parallel")
    one_already = any(step["change"] == "one sequence at a time" for step in s.out)
    if code != "max-model-len-exceeds-kv-cache" and not one_already and not (isinstance(parallel, int) and parallel <= 1):
        # (with max-model-len-exceeds-kv-cache one sequence alone does not fit)
        conc = n.get("max_concurrency")
        s.add("fewer concurrent sequences", "seqs", "each running sequence holds its own KV cache",
              n=max(1, int(conc)) if conc and conc >= 1 else "fewer than now")
    if eng in GGML:
        s.add("KV cache off the GPU", "kv_off", "the KV cache lives beside the offloaded layers; keeping it (or "
              "some layers) in system memory frees the GPU at some speed")
    elif _up(u) is not None:
        s.add("more memory for the pool", "util", "the pool is what is left of this fraction after the weights", x=_up(u))
    s.add("8-bit KV cache", "kv8", "halves the bytes per token")
    if eng in GGML:
        s.add("smaller batches", "ubatch", "a smaller batch shrinks the compute buffer reserved beside the KV cache")
    else:
        s.add("chunked prefill", "chunk", "caps the activation peak profiled at start, leaving more for the KV pool")


def _warmup(s: _Steps, n: dict, code: str) -> None:
    u = _util(n, s.engine)
    if code == "profile-run-oom":
        tokens = n.get("max_num_batched_tokens")
        s.add("fewer tokens per step", "batch", "the profiling pass runs one batch of max_num_batched_tokens tokens; "
              "its activations must fit beside the weights", n=max(512, tokens // 4) if isinstance(tokens, int) else 2048)
        s.add("chunked prefill", "chunk", "keeps every step, and the profiled peak, small")
        s.add("more headroom outside the pool", "util", "the profiling pass runs in what the fraction leaves", x=_down(u))
    elif code == "sampler-warmup-oom":
        s.add("fewer sequences warmed up", "seqs", "the sampler warm-up allocates logits for max_num_seqs sequences "
              "(256 by default)", n=128)
        s.add("more headroom outside the pool", "util", "the warm-up runs in what the pool leaves", x=_down(u))
    elif code == "compute-buffer-alloc-failed":
        s.add("smaller physical batch", "ubatch", "the compute buffer grows with the batch")
        s.add("flash attention", "fa", "without it the compute buffer holds an n_ctx x n_ubatch attention matrix")
        s.add("shorter context", "ctx", "the compute buffer grows with the context too")
        s.add("fewer layers on the GPU", "offload", "frees room for the compute buffer")
    elif code == "prefill-tokens-exceed-memory":
        s.add("smaller prefill batches", "prefill", "TGI's warm-up runs one prefill of --max-batch-prefill-tokens")
        s.add("fewer-bit weights", "quant", "leaves more memory for the warm-up")
    elif code == "temporary-buffer-exceeds-memory":
        s.add("smaller prefill chunks", "chunk", "the temporary buffer is sized for one prefill chunk")
        s.add("shorter context window", "ctx", "the buffers grow with the context window")
        s.add("more memory for the engine", "util", "the weights fit; what comes beside them does not", x=_up(u))
    elif code == "nccl-buffers-oom":
        s.add("more headroom outside the pool", "util", "NCCL allocates its buffers outside the KV pool", x=_down(u))
        s.add("no custom all-reduce buffers", "nccl", "one fewer set of communication buffers")
        s.say("smaller NCCL buffers", "set NCCL_BUFFSIZE=4194304 (4 MiB) in the environment")
    else:
        s.add("more headroom outside the pool", "util", "graph capture and warm-up run in what the pool leaves",
              x=_down(u))
        s.add("smaller CUDA graphs", "graphs", "graph capture keeps memory for every captured batch size")
        s.add("smaller batches", "chunk", "the profiled activation peak scales with tokens per step")
        s.add("smaller physical batch", "ubatch", "the compute buffer grows with the batch")


def advise(kind: str, engine: str, n: dict, code: str = "") -> list[dict]:
    """Steps for `kind` (and its `code`), each {'change', 'flags', 'why'}, in the order to try them."""
    s = _Steps(engine)
    if kind == "KV_CAPACITY":
        _kv(s, n, code)
    elif kind == "WEIGHTS":
        if code == "weights-exceed-system-memory":
            s.say("more host memory", "the weights pass through CPU RAM on the way to the GPU: add RAM or swap, or "
                  "load with mmap / safetensors so they are not copied")
        ftype = str(n.get("file_type") or "").upper()
        low_bit = ftype.startswith(("Q2", "Q3", "Q4", "IQ1", "IQ2", "IQ3", "IQ4", "TQ"))
        offl = n.get("layers_offloaded")
        offl = offl[-1] if isinstance(offl, list) and offl else offl
        if s.engine in GGML:
            layers = n.get("layers_total")
            s.add("fewer layers on the GPU", "offload", "keeps part of the model in CPU memory (slower); the weights "
                  "do not fit whole", n=offl if offl else (f"under {layers}" if layers else "fewer"))
        if not low_bit:
            s.add("fewer-bit weights", "quant", "the weights alone do not fit; context length does not matter here")
        s.add("more GPUs", "tp", "splits the weights across GPUs", n=_more_gpus(n))
        if s.engine in ("vllm", "sglang"):
            s.add("offload part of the weights", "offload", "keeps that many GiB of weights in CPU memory (slower); "
                  "raise it until the load succeeds", n=8)
        elif s.engine not in GGML:
            s.add("offload part of the model", "offload", "keeps part of the model in CPU memory (slower)")
        _other_process(s, n)
    elif kind == "WARMUP":
        _warmup(s, n, code)
    elif kind == "RUNTIME":
        _other_process(s, n)
        if code == "host-oom-kill":
            s.say("more host memory", "the operating system killed the server for lack of RAM (CPU offload, "
                  "swap-space, or pinned buffers): add RAM or offload less")
        prompt = n.get("prompt_tokens")
        s.add("shorter requests first", "ctx", "one long prompt's prefill is the usual peak; cap per-request length",
              n=prompt // 2 if isinstance(prompt, int) else "a lower value", m="a lower value")
        s.add("smaller prefill chunks", "chunk", "spreads a long prompt over several steps")
        s.add("fewer concurrent sequences", "seqs", "concurrency multiplies the KV cache and activations")
        s.add("more headroom outside the pool", "util", "long prompts' activations live outside the KV pool",
              x=_down(_util(n, s.engine)))
    elif kind == "LEAK":
        s.say("watch, then restart", "usage that keeps rising with steady load points at memory not being freed: "
              "track the engine's KV usage or free memory against load, report it with this log, and restart")
    elif kind == "NOT_OOM":
        if code == "gpu-shared-with-other-process":
            free, total = n.get("free_memory_bytes"), n.get("total_memory_bytes")
            x = round(free / total - 0.02, 2) if isinstance(free, int) and isinstance(total, int) and total else None
            s.add("a fraction of what is free", "util", "vLLM takes its fraction of the whole GPU, and another "
                  "process holds part of it", x=x if x else "a lower value")
            s.say("free the GPU", "stop the other process (nvidia-smi lists it) or give this server its own GPU")
        elif code == "max-model-len-exceeds-model":
            s.add("the model's own context", "ctx", "the requested max_model_len exceeds what the model was "
                  "trained for; use its max_position_embeddings, or rope scaling on purpose",
                  n=n.get("max_model_len_model") or "the model's max_position_embeddings")
        else:
            s.say("leave memory settings alone", "memory is not the problem: a shorter context or lower utilization "
                  "will not fix it; re-run with CUDA_LAUNCH_BLOCKING=1 (NCCL_DEBUG=INFO for NCCL) and report it")
    return s.out
