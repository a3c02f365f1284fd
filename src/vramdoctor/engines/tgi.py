"""Text Generation Inference (TGI).

Sources (huggingface/text-generation-inference, v0.9 -> v3): `server/text_generation_server/models/
flash_causal_lm.py` (warmup: "Not enough memory to handle {N} prefill tokens. You need to decrease
`--max-batch-prefill-tokens`"), `launcher/src/main.rs` ("Args {...}", "Method Warmup encountered an
error"), `backends/v3/src/lib.rs` ("Setting max batch total tokens to {N}", "Inferred max batch total
tokens: {N}"), router ("Request failed during generation: Server error: ...", "Connected").
Flags: --cuda-memory-fraction (default 1.0), --max-batch-prefill-tokens, --max-total-tokens,
--max-input-tokens, --max-concurrent-requests, --num-shard, --quantize.
"""

from __future__ import annotations

from re import IGNORECASE as I, DOTALL as S

from .interface import Endpoints, Engine, KvView, LogWords, StepCode, Tokenizer, answer_json, as_count, prom_samples
from .words import NOT_ADMIN, NUM, cli, count, fig, fraction, msg, rx

# the model built from its weights (server/text_generation_server/models/flash_causal_lm.py FlashCausalLM.__init__:
# `weights = Weights(filenames, device, dtype, ...)` then `model = model_class(prefix, config, weights)`, 1.x's
# flash_mistral.py `model = model_cls(config, weights)`; each layer takes its tensors through utils/weights.py
# `weights.get_tensor` / `get_sharded` / `get_multi_weights_col`): the KV cache comes later, in warmup()
_MODEL_BUILT = rx(r"\bmodel_(?:cls|class)\((?:(?:prefix,\s*)?config,\s*weights\))?|\bweights\.get_(?:tensor|sharded|"
                  r"multi_weights_col|multi_weights_row|packed_sharded|weights_col)\(|text_generation_server/utils/weights\.py")

LOG = LogWords(
    # the server command (launcher/src/main.rs)
    launch=rx(r"text-generation-launcher"),
    # (and its name as people write it, "TGI", and its benchmark client, text-generation-benchmark)
    fingerprint=rx(r"text[-_]generation[-_](?:inference|router|launcher|server|client|benchmark)|router/src|\bTGI\b|"
                   r"max[-_]batch[-_](?:total[-_])?tokens|--max-total-tokens|warmup\{|prefill\{|--num-shard"),
    run_start=(rx(r"text_generation_launcher: Args", 0),),
    # (launcher/src/main.rs shard_manager: the dead shard's stderr, printed whole after it)
    replay_begins="Shard complete standard error output:",
    messages=(
        # the router's note that it could not import the Python tokenizer (router/src/server.rs: "Failed to import
        # python tokenizer ModuleNotFoundError: No module named 'transformers'", logged at ERROR): it goes on with the
        # tokenizer.json it loaded, no failure
        msg(r"\bFailed to import python tokenizer\b", "note"),
        # the router's span of a batch it serves ("batch{batch_size=1}:prefill:prefill{id=7570 size=1}: ... Server error:
        # CUDA out of memory"): a request's prefill or decode, after start-up (the warm-up runs under its own span)
        msg(r"\bbatch\{batch_size=\d+\}:(?:prefill|decode)\b.{0,300}?out of memory", "oom", "RUNTIME"),
        # the shard's block allocator out of KV blocks for a batch the router admitted (server/text_generation_server/
        # models/cache_manager.py allocate: "Out of available cache blocks: asked {n}, only {m} free blocks"): the
        # request fails while serving
        msg(r"Out of available cache blocks: asked \d+, only \d+ free blocks", "oom", "RUNTIME", "kv-blocks-exhausted"),
        # (not the source line a traceback shows of it, v3.0's f"Not enough memory to handle {num_tokens} prefill
        # tokens. ", where an error in the handler itself, UnboundLocalError on num_tokens, is what was raised)
        msg(r"Not enough memory to handle (?!\{)[^\n]*prefill tokens|decrease `?--max-batch-prefill-tokens", "oom",
            "WARMUP", "prefill-tokens-exceed-memory"),
        # (router/src/validation.rs: "`inputs` must have less than 4000 tokens. Given: 4512" as well)
        msg(r"Input validation error|`inputs` tokens \+ `max_new_tokens` must be <=|`inputs` must have less than \d+ tokens\b",
            "request"),
        # (the error's Debug form as the launcher and the router print it: backends/v3/src/lib.rs
        # V3Error::NotEnoughMemory(usize), "Error: Backend(NotEnoughMemory(64))", whose Display is the sentence)
        msg(r"Not enough memory to handle `?max_total_tokens\b|`max_total_tokens` must be <= `max_batch_total_tokens`|"
            r"\bNotEnoughMemory\(\d+\)", "oom", "KV", "max-model-len-exceeds-kv-cache"),
        # graph capture failed at warm-up: TGI goes on without those graphs (v2.0.4+)
        msg(r"Decode cuda graph warmup failed", "pressure", "WARMUP", "cuda-graph-warmup-skipped"),
        msg(r"Method Warmup encountered an error|Unable to warmup the Python model shards", "wrapper", "WARMUP"),
        msg(r"Method (?:Prefill|Decode) encountered an error", "wrapper", "RUNTIME"),
        # the router's stream that ended before its last token (router/src/infer: InferError::IncompleteGeneration,
        # "Incomplete generation", and "Incomplete generation stream"): a request's generation failed, its cause in the
        # shard's own lines
        msg(r"\binfer\b[^\n]{0,80}\bIncomplete generation\b", "wrapper", "RUNTIME"),
        # a shard that exits before it says "Server started at unix://..." (launcher/src/main.rs shard_manager:
        # ShardCannotStart): it was building the model and loading its weights; the router's warm-up comes only once
        # every shard is up, so the failure is in the weights phase
        msg(r"Shard \d+ failed to start|\bShardCannotStart\b", "wrapper", "WEIGHTS"),
        msg(r"Shard \d+ crashed|Shard complete standard error output", "wrapper"),
        # the launcher's own exit (launcher/src/main.rs: main returns Err(LauncherError), which Rust prints as "Error:
        # DownloadError"): a step's failure whose cause the step printed (the download step's "Download encountered an
        # error: ..." or "Download process was signaled to shutdown with signal 9"). The download step also converts a
        # .bin checkpoint to safetensors in host RAM, before any shard loads it: the weights' phase
        msg(r"\bError: DownloadError\b|\bDownload encountered an error\b", "wrapper", "WEIGHTS"),
        msg(r"\bError: (?:ShardFailed|ShardDisconnected|WebserverFailed|WebserverCannotStart)\b", "wrapper"),
        # the router's client that lost its shard (router/client/src/lib.rs, "Server error: transport error", "error
        # trying to connect: Connection refused (os error 111)"; infer.rs "Request failed during generation: Server
        # error: ..."): the shard process died, its cause in the shard's own lines; in a batch's prefill or decode, or a
        # stream's generation, while serving
        msg(r"(?=.*\b(?:prefill|decode|generate(?:_stream)?)\b).*(?:text_generation_client: router/client/src/lib\.rs:\d+: "
            r"|Request failed during generation: )Server error: (?:transport error|error trying to connect|"
            r"[^\n]{0,80}?Connection refused|[^\n]{0,80}?broken pipe)", "wrapper", "RUNTIME"),
        msg(r"(?:text_generation_client: router/client/src/lib\.rs:\d+: |Request failed during generation: )Server error: "
            r"(?:transport error|error trying to connect|[^\n]{0,80}?Connection refused|[^\n]{0,80}?broken pipe)", "wrapper"),
        # the shard's own verdict that building its model failed (server/text_generation_server/server.py serve_inner:
        # get_model raised, logged as "Error when initializing model" before the traceback): the model's layers and
        # weights; its KV cache and warm-up come later, in the router's Warmup call
        msg(r"\bError when initializing model\b", "wrapper", "WEIGHTS"),
    ),
    frames={
        # (and the launcher's download step before any shard, which converts a .bin checkpoint to safetensors in host
        # RAM: cli.py "No safetensors weights found ... Converting PyTorch weights to safetensors.", utils/convert.py
        # "Convert: [3/15] -- Took: ...", and the step's own span, "download: text_generation_launcher")
        "WEIGHTS": rx(_MODEL_BUILT.pattern + r"|Converting PyTorch weights to safetensors|\bConvert: \[\d+/\d+\]|"
                      r"\bdownload: text_generation_launcher\b|Starting check and download process"),
        # (the warm-up makes the KV cache first, v2.3+: flash_causal_lm.py warmup -> init_kv_cache, layers/attention/
        # kv_cache.py KVCache; v2.x models/cache_manager.py CacheManager)
        "KV": rx(r"\binit_kv_cache\b|layers/attention/kv_cache\.py|\bset_cache_manager\b|models/cache_manager\.py"),
        "WARMUP": rx(r"in warmup\b|\bwarmup\{|Method Warmup|Warming up model"),
        # (and the router's request spans, router/src/server.rs chat_completions / completions / compat_generate /
        # generate_stream, and its infer module, router/src/infer: they run only for a request)
        "RUNTIME": rx(r"prefill\{|decode\{|Request failed during generation|generate_token|in Prefill\b|in Decode\b|"
                      r"\b(?:chat_completions|completions|compat_generate|generate_stream)\{|router/src/infer\b|"
                      r":infer:send_error\b"),
        # the launcher polling a shard that is still starting (launcher/src/main.rs shard_manager: "Waiting for
        # shard to be ready..." every 10 s until the shard's server answers): the shard loads its weights then
        "STARTUP": rx(r"Waiting for shard to be ready"),
    },
    milestones=(
        ("weights_done", rx(r"Shard ready in|Server started at unix")),
        ("kv_sized", rx(r"KV-cache blocks: [1-9]")),
        # printed once the shards' warmup() returned (backends/v3/src/lib.rs; router/src/main.rs before v2): the pool,
        # the prefill pass and the CUDA graphs are behind it, and the router starts serving next (after checking its
        # limits against that pool, backends/v3/src/main.rs: "`max_total_tokens` must be <= `max_batch_total_tokens`")
        ("ready", rx(r"(?:Setting|Inferred) max batch total tokens")),
        # (not the router's "Invalid hostname, defaulting to 0.0.0.0": v1.x printed it after the warm-up, v2+ in
        # main.rs before server::run warms the model up)
        ("ready", rx(r"text_generation_router.*Connected|Starting HTTP server")),
        # (the router's "...: router/src/server.rs:432: Success" at a request's end, in its case; not systemd's
        # "Main process exited, code=exited, status=0/SUCCESS")
        ("requests", rx(r"generate\{|generate_stream\{|\"POST /(?:generate|v1/" + NOT_ADMIN + r")|:\s(?-i:Success)$")),
    ),
    figures=(
        # TGI 3's router (backends/v3), which splits a long input over prefill batches where the model supports
        # chunking (main.rs refuses max_input_tokens above max_batch_prefill_tokens only `&& !support_chunking`)
        fig("_tgi_chunking", r"\btext_generation_router_v3\b|\bbackends/v3/src/", lambda m: True),
        fig("kv_pool_tokens", r"(?:Inferred|Setting) max batch total tokens(?: to)?:? " + NUM, count),
        # the router overriding the user's --max-batch-total-tokens with the pool it sized from free memory (router
        # main.rs, flash models: a warning "Inferred max batch total tokens: N", printed only where the user set one)
        fig("_tgi_pool_overrode", r"Inferred max batch total tokens:? " + NUM, count),
        fig("prefill_tokens", r"Not enough memory to handle (\d+) prefill tokens", count),
        fig("num_gpu_blocks", r"KV-cache blocks: (\d+)", count),
        fig("block_size", r"KV-cache blocks: \d+, size: (\d+)", count),
        fig("max_model_len", r"handle `?max_total_tokens=(\d+)", count),
        fig("max_batch_prefill_tokens", r"max_batch_prefill_tokens[:=] ?(?:Some\()?(\d+)", count),
        fig("max_batch_prefill_tokens", r"warmup\{.*?max_prefill_tokens=(\d+)", count),
        # the launcher's defaults where the user set none (launcher/src/main.rs: "Default `max_batch_prefill_tokens` to
        # {}", likewise `max_input_tokens` and `max_total_tokens`): the values in use
        fig("max_batch_prefill_tokens", r"Default `?max_batch_prefill_tokens`? to (\d+)", count),
        fig("max_input_tokens", r"Default `?max_input_(?:tokens|length)`? to (\d+)", count),
        fig("max_model_len", r"Default `?max_total_tokens`? to (\d+)", count),
        fig("max_input_tokens", r"max_input_(?:length|tokens)[:=] ?(?:Some\()?(\d+)", count),
        fig("max_model_len", r"max_total_tokens:? (?:Some\()?(\d+)", count),
        fig("cuda_memory_fraction", r"cuda_memory_fraction:? ([\d.]+)", fraction),
        fig("max_num_seqs", r"max_concurrent_requests:? (\d+)", count),
        # (its Quantize enum, launcher/src/main.rs, as the Args dump or a command line prints it: never a user's "with the
        # --quantize option")
        fig("quantization", r"quantize(?::? |=)[\x22']?(?:Some\()?(awq|eetq|exl2|gptq|marlin|bitsandbytes(?:[-_]?(?:nf4|fp4))?|fp8|"
            r"compressed[-_]?tensors)\b", lambda m: m.group(1)),
        fig("model_name", r"model_id:? \"([^\"]{1,300})\"", lambda m: m.group(1)),
        fig("args_listing", r"text_generation_launcher: (Args) \{", lambda m: "full"),
        # which flags this version has: from the Args dump, on one line or pretty-printed over many
        fig("tgi_has_cuda_graphs", r"(?:Args \{.*?|^\s*)(cuda_graphs):", lambda m: True),
        # 2.x prints both keys (max_input_length as a deprecated alias): max_input_tokens anywhere means 2.x
        fig("tgi_input_key", r"(?:Args \{.*?|^\s*)\b(max_input_length|max_input_tokens):", lambda m: m.group(1),
            mode="set"),
        # LoRAX, TGI's fork from 0.9 (lorax_client, lorax-launcher): its launcher kept --max-input-length
        fig("tgi_input_key", r"\blorax[_-](?:client|launcher|server|router)\b", lambda m: "max_input_length", mode="set"),
        # the warm-up's own span: "warmup{max_input_length=30000 max_prefill_tokens=30000 max_total_tokens=32000"
        fig("max_input_tokens", r"warmup\{max_input_(?:length|tokens)=(?:Some\()?(\d+)", count),
        fig("max_model_len", r"warmup\{.*?max_total_tokens=(?:Some\()?(\d+)", count),
        # the launcher's flags on a pasted command line (`docker run ... \` and its continued option lines;
        # launcher/src/main.rs Args, clap's kebab-case)
        cli("cuda_memory_fraction", "cuda-memory-fraction", fraction),
        cli("max_batch_prefill_tokens", "max-batch-prefill-tokens", count),
        cli("max_input_tokens", "max-input-tokens|max-input-length", count),
        cli("max_model_len", "max-total-tokens", count),
        cli("max_num_seqs", "max-concurrent-requests", count),
        cli("tensor_parallel_size", "num-shard", count),
        # no CUDA graphs: `--cuda-graphs 0`, and the Args dump's `cuda_graphs: Some([0])`
        fig("cuda_graphs_off", r"(?:^|\s)--cuda-graphs(?:=|\s+)['\"]?0(?![\d,.])|\bcuda_graphs: Some\(\[0\]\)",
            lambda m: True),
    ),
    loader=_MODEL_BUILT,
    step_codes=(
        # the warm-up prefill (server/text_generation_server/models/flash_causal_lm.py warmup -> generate_token, before
        # the KV cache is sized and the graphs captured): what its own message says, "Not enough memory to handle N
        # prefill tokens"
        StepCode("WARMUP", "prefill-tokens-exceed-memory",
                 rx(r"^(?=.*\bin warmup\b)(?=.*\bgenerate_token\b).*flash_causal_lm", I | S)),
    ),
)



def _flags_for(flags: dict, n: dict) -> dict:
    """TGI before 1.x had no --cuda-graphs; before 2.0 the input limit was --max-input-length."""
    if n.get("args_listing") and not n.get("tgi_has_cuda_graphs"):
        flags.pop("cuda_graphs", None)
    keys = n.get("tgi_input_key") or []
    if "max_input_length" in keys and "max_input_tokens" not in keys:
        flags["max_model_len"] = "--max-total-tokens {n} --max-input-length {m}"
    return flags



# --- the live server (probe): ../shared/ENGINES.md §6 (router/src/lib.rs Info, backends/v3/src/lib.rs) -----------


def _recognise(answers: dict) -> str | None:
    j = answer_json(answers, "/info")
    if isinstance(j, dict) and "model_id" in j and ("max_total_tokens" in j or "max_input_tokens" in j):
        return str(j.get("version") or "")
    return None


def _kv_view(answers: dict) -> KvView:
    """`tgi_batch_max_total_tokens` on /metrics: the tokens a batch may hold, which TGI sizes to its KV cache
    ("Setting max batch total tokens to N"); /info lost max_batch_total_tokens in v2.3.0."""
    samples = prom_samples(answers, "/metrics", ("tgi_batch_max_total_tokens",))
    info = answer_json(answers, "/info")
    figures = {k: info[k] for k in ("max_total_tokens", "max_input_tokens", "max_concurrent_requests",
                                    "max_batch_total_tokens") if isinstance(info, dict) and k in info}
    tokens = as_count(samples[-1][2]) if samples else as_count(figures.get("max_batch_total_tokens"))
    return KvView(tokens=tokens, figures=figures,
                  source="GET /metrics tgi_batch_max_total_tokens" if samples else "GET /info",
                  note="" if tokens is not None else "neither /metrics nor /info gives the batch's token budget")


ENDPOINTS = Endpoints(
    identify=("/info",), recognise=_recognise, ready="/health", kv_paths=("/metrics", "/info"), kv_view=_kv_view,
    tokenizers=(Tokenizer(path="/tokenize", body=lambda text, model: {"inputs": text},
                          read=lambda j: [int(t["id"]) for t in j] if isinstance(j, list) and all(
                              isinstance(t, dict) and isinstance(t.get("id"), int) for t in j) else None),),
)

ENGINE = Engine(
    endpoints=ENDPOINTS,
    name="tgi", adapt_flags=_flags_for, label="TGI", log=LOG, fraction_key="cuda_memory_fraction", defaults={"cuda_memory_fraction": 1.0},
    aliases=("text-generation-inference", "text_generation_inference", "tgi-server"),
    flags={"max_model_len": "--max-total-tokens {n} --max-input-tokens {m}",
           "max_num_seqs": "--max-concurrent-requests {n}", "memory_fraction": "--cuda-memory-fraction {x}",
           "kv_cache_dtype": "--kv-cache-dtype fp8_e5m2", "cuda_graphs": "--cuda-graphs 1,2,4",
           "tensor_parallel_size": "--num-shard {n}",
           # (quantized at load from an unquantized checkpoint; awq, gptq, marlin and exl2 need a checkpoint already
           # quantized that way: server/text_generation_server/cli.py Quantization)
           "quantization": "--quantize eetq|fp8|bitsandbytes-nf4",
           "quantization_4bit": "an AWQ/GPTQ checkpoint (--quantize awq|gptq), or --quantize bitsandbytes-nf4",
           "prefill_tokens": "--max-batch-prefill-tokens {n}",
           "max_num_batched_tokens": "--max-batch-prefill-tokens {n}"},
)
