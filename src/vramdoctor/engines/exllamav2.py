"""ExLlamaV2 and tabbyAPI.

Sources (turboderp/exllamav2 v0.2.7, theroyallab/tabbyAPI up to its exllamav2 backend): `exllamav2/cache.py`
(ExLlamaV2Cache, _Q4/_Q6/_Q8: `create_state_tensors` allocates max_seq_len x batch of K and V per layer),
`exllamav2/model.py` (`load_gen` weights; `load_autosplit_gen` probes weights, the lazy cache and a forward
pass together: "Insufficient VRAM for model and cache"), tabbyAPI `backends/exllamav2/model.py` ("Loading
model: <dir>", the full-length warm-up `model.forward(..., preprocess_only=True)`, "Model successfully
loaded."), dynamic generator ("Job requires N pages (only M available)").
Config: max_seq_len, cache_size (tokens), cache_mode FP16|Q8|Q6|Q4, gpu_split (GiB per GPU),
autosplit_reserve (MiB), chunk_size (default 2048), max_batch_size.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import NOT_ADMIN, count, fig, msg, rx

LOG = LogWords(
    fingerprint=rx(r"exllamav[23]|tabbyAPI|exl[23]\b|ExLlamaV[23]"),
    # (tabbyAPI's model load, at start or when a request asks for another model, inline loading: a load of its own;
    # also under docker compose's "tabbyapi-1  | " prefix)
    run_start=(rx(r"^(?:[\w.-]+\s+\|\s+)?(?:\S+ \S+ )?(?:INFO:\s+)?Loading model: ", 0),),
    messages=(
        # autosplit loads weights, the lazy cache and a forward pass together: the words leave all three open
        msg(r"Insufficient VRAM for model and cache", "oom", code="autosplit-insufficient-vram",
            candidates=("WEIGHTS", "KV", "WARMUP")),
        # ExLlamaV3's autosplit (exllamav3/models/model.py _load_autosplit, and its allocator's initial_split) places
        # each module with its share of the cache, module by module, against the memory left: weights or cache, no
        # forward pass
        msg(r"Insufficient VRAM in split for model and cache", "oom", code="autosplit-insufficient-vram",
            candidates=("WEIGHTS", "KV")),
        msg(r"Insufficient space in device allocation", "oom", "WEIGHTS", "weights-exceed-gpu-split"),
        msg(r"Job requires \d+ pages \(only \d+ available\)", "oom", "RUNTIME", "max-model-len-exceeds-kv-cache"),
        # tabbyAPI's start-up that found its ports taken (main.py entrypoint_async: "Ports 5000 and 5001 are in use by
        # different services."; "Port 5000 is in use by another service."): before any model
        msg(r"\bPorts? \d+(?: and \d+)? (?:is|are) in use by (?:another|different) services?\b", "not_oom",
            code="port-in-use"),
    ),
    frames={
        "KV": rx(r"create_state_tensors|ExLlamaV2Cache|cache\.py\", line \d+, in __init__|create_cache"),
        "WARMUP": rx(r"preprocess_only|load_gen\b.*forward|in warmup\b"),
        # (and ExLlama v1, exllamav2's predecessor by the same author, which loads its weights in its constructor,
        # model.py ExLlama.__init__: "model = ExLlama(config)", "tensor = tensor.to(device, non_blocking = True)")
        "WEIGHTS": rx(r"load_autosplit|load_gen|load_tp_gen|\bmodule\.load\(|load_multi|load_weight|"
                      r"\bExLlama\(config\)|exllama/model\.py\W+line \d+, in __init__\b|"
                      r"exllamav2/(?:linear|attn|mlp|moe_mlp|parallel_decoder|embedding|rmsnorm|layernorm|"
                      r"pos_embedding|head|module)\.py\", line \d+, in load\b|"
                      r"exllamav2/device\.py\", line \d+|get_device_context"),
        "RUNTIME": rx(r"\biterate\b|generate_gen|stream_generate|_gen_begin"),
    },
    milestones=(
        ("weights_done", rx(r"Modules\s*\|.*\|\s*(\d+)/\1|Loaded model weights")),
        # (tabbyAPI's bar over ExLlamaV3's modules, weights and their cache: "Loading model modules ━━╸━━ 58% 94/163")
        ("start", rx(r"Loading model modules\b|Using backend exllamav[23]\b")),
        ("ready", rx(r"Model successfully loaded")),
        ("requests", rx(r"Received chat completion request|Metrics \(ID:|\"POST /v1/" + NOT_ADMIN)),
    ),
    figures=(
        fig("modules_loaded", r"Modules\s*\|.*\|\s*(\d+)/\d+", count),
        # tabbyAPI (backends/exllamav2/model.py create_cache: one cache of batch_size=1 and max_seq_len=cache_size,
        # shared by the dynamic generator's jobs; max_batch_size only bounds the jobs): a cache that does not grow
        # with the batch
        fig("_shared_cache", r"\btabbyAPI\b|\bbackends[/\\]exllamav[23][/\\]model\.py\b|\bUsing backend exllamav[23]\b",
            lambda m: True),
        fig("max_model_len", r"\bmax_seq_len['\"]?\s*[=:]\s*(\d+)", count),
        fig("cache_size_tokens", r"\bcache_size['\"]?\s*[=:]\s*(\d+)", count),
        fig("kv_cache_dtype", r"\bcache_mode['\"]?\s*[=:]\s*['\"]?(\w+)", lambda m: m.group(1)),
        # the example scripts' and model_init's flags: -cq4 / --cache_q4, -cq6, -cq8, -c8 / --cache_8bit
        # (one pattern per spelling: the prefilter needs a literal of 3+ characters in each)
        fig("kv_cache_dtype", r"(?<!\S)-cq([468])\b", lambda m: "Q" + m.group(1), flags=0),
        fig("kv_cache_dtype", r"(?<!\S)--cache_q([468])\b", lambda m: "Q" + m.group(1), flags=0),
        fig("kv_cache_dtype", r"(?<!\S)-c8\b", lambda m: "Q8", flags=0),
        fig("kv_cache_dtype", r"(?<!\S)--cache_8bit\b", lambda m: "Q8", flags=0),
    ),
    # ExLlama (v1) building its model, which reads the weights; its cache is made by ExLlamaCache(model) after it
    # returns (exllama/model.py)
    loader=rx(r"\bmodel\s*=\s*ExLlama\(config\)"),
)

ENGINE = Engine(
    name="exllamav2", label="ExLlamaV2", log=LOG, aliases=("exllama", "tabbyapi", "tabby", "exl2"),
    flags={"max_model_len": "max_seq_len {n} (and cache_size)", "max_num_seqs": "max_batch_size {n}",
           "kv_cache_dtype": "cache_mode Q8 (or Q4)", "max_num_batched_tokens": "chunk_size {n}",
           "cuda_graphs": "autosplit_reserve (MiB per GPU) / a gpu_split leaving 1-2 GiB",
           "tensor_parallel_size": "gpu_split across GPUs", "quantization": "a lower-bpw EXL2 / EXL3 quant",
           "quantization_4bit": "a 4.0 bpw EXL2 / EXL3 quant"},
)
