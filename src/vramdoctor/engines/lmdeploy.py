"""LMDeploy: the TurboMind engine and the PyTorch engine.

Sources (InternLM/lmdeploy v0.0.14 -> v0.16): TurboMind `src/turbomind/utils/logger.h` ("[TM][INFO] ",
v0.13+ "[TM][INFO][MMDD.HH:MM:SS.us][file:line] "), `models/llama/BlockManager.cc` ("[BlockManager]
block_size = %lu MB", "max_block_count = %d"), `LlamaCacheManager.cc` ("No enough cache entries."),
`LlamaBatch.cc` ("No enough blocks.", "`session_len` truncated to %d"), `turbomind.py` (weights in
`_create_weight` / `create_shared_weights`; the KV blocks in `create_model_instance` (v0.1-v0.5),
`create_engine` (v0.6-v0.11), `engine.cc` (v0.12+)); PyTorch engine `pytorch/engine/executor/base.py`
("No enough gpu memory for kv cache.", "No enough gpu memory for runtime."), its serving loop
(`pytorch/engine/request.py` "Engine loop failed with error: %s" v0.3-v0.6, `engine.py` "Engine main loop failed."
v0.7+), its warm-up (`model_agent` "Starting engine warmup. This may take a while...").
`cache_max_entry_count`: whole-sequence entries up to v0.0.14, a fraction of total memory in v0.1-v0.2.1,
a fraction of the memory free after the weights from v0.2.2 (default 0.8).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import NEGATIVE_BLOCKS, SIZE, cli, count, count_outside, fig, fraction, msg, rx, switch

LOG = LogWords(
    # the server command (lmdeploy/cli/serve.py: "lmdeploy serve api_server")
    launch=rx(r"lmdeploy\s+serve\s+api_server"),
    quiet=True,  # default log level WARNING: the INFO lines of loading and sizing are not printed
    # (a word of its own: not inside Ray Serve's "VLLMDeployment", whose letters hold "LMDeploy")
    fingerprint=rx(r"(?<![A-Za-z])lmdeploy|turbomind|\[TM\]\[|\[BlockManager\]"),
    # (and the engine's first line, serve/async_engine.py AsyncEngine.__init__ "input backend=pytorch, backend_config=...")
    run_start=(rx(r"lmdeploy serve api_server|lmdeploy\.serve\.|turbomind model config:|"
                  r"\binput backend=\w+, backend_config=", 0),),
    not_oom_advice={
        "environment-check-failed": "LMDeploy's check of its environment failed before it built anything "
                                    "(pytorch/check_env: the GPU's architecture, the CUDA or torch install, the "
                                    "transformers version or the model's format); the line after it says which. Fix "
                                    "that (another model format or GPU, a matching install); memory is not involved.",
    },
    messages=(
        # TurboMind's dispatch finding no kernel for the weights' type on this GPU (src/turbomind/kernels/gemm:
        # "not implemented: dtype=e2m1, is_fused_moe=1, sm=70", then abort): MXFP4 on a V100, a kernel this GPU lacks
        msg(r"^\s*not implemented: dtype=\w+[^\n]*?\bsm=\d+", "not_oom", code="gpu-unsupported"),
        # its environment checks before it builds anything (lmdeploy/pytorch/check_env: "<CUDA> check failed!",
        # "<Transformers> check failed!", "<Model> check failed!", each with its cause in red on the next line,
        # log_and_exit: "model_format=fp8 requires sm>=9.0."): the GPU, the install or the model, not memory
        msg(r"<[\w ]{1,40}> check failed!", "not_oom", code="environment-check-failed"),
        # a request longer than the session allows (TurboMind: "total sequence length (62534 + 3002) exceeds session_len
        # (65536)", then async_engine's "run out of tokens. session=119"; "Truncate max_new_tokens to 128"): the request
        # is cut or refused, the server goes on
        msg(r"exceeds session_len|run out of tokens\. session(?:_id)?=\d+|"
            # (TurboMind's request status 6, kTooLong, "history + prompt > session_len", engine/request.h: "[TM][WARNING]
            # [RejectInvalidRequests] Skipping invalid infer request for id 3, code = 6", "[forward] Request failed for
            # 3, code 6")
            r"\bSkipping invalid infer request for id \d+, code = 6\b|\bRequest failed for \d+, code 6\b", "request"),
        # a request that ended in an error, its cause not said (serve/async_engine.py: "session 3 finished, reason
        # \"error\""): a failure whose cause is in other lines, or in none
        msg(r"\bsession \d+ finished, reason \x22error\x22", "error"),
        # TurboMind's deviceMalloc (src/turbomind/utils/memory_utils.cu, a FasterTransformer helper) allocates the
        # weights (LlamaWeight, LlamaDecoderLayerWeight: create_shared_weights); the KV blocks come from its allocator
        # (BlockManager::Malloc -> allocator_->malloc, allocator.h), so an out-of-memory raised there is the weights
        msg(r"\bout of memory\W+\S*turbomind/utils/memory_utils\.cu:\d+", "oom", "WEIGHTS", "weights-alloc-failed"),
        msg(r"No enough cache entries", "oom", "RUNTIME", "kv-cache-entries-exhausted"),
        msg(r"No enough blocks\b(?! for `session_len`)|cache out of memory, no request can be admitted", "oom",
            "RUNTIME", "kv-blocks-exhausted"),
        msg(r"max_block_count\s*=\s*0\b|cache_block_num\s*=\s*0\b|No enough gpu memory for kv cache", "oom", "KV",
            "no-memory-for-kv-cache"),
        # (and "for runtime": the same sizing, pytorch/engine/model_agent.py __get_runtime_size (v0.2-v0.6),
        # executor/base.py _get_runtime_size (v0.7+), halves max_prefill_token_num until the logits buffer leaves room
        # for 16 KV blocks of the free memory times cache_max_entry_count, and raises this at 0: the KV cache sized
        # after the weights found no room, not a warm-up)
        msg(r"No enough gpu memory for runtime", "oom", "KV", "no-memory-for-kv-cache"),
        # ... before that check (the PyTorch engine of 0.2.x, pytorch/engine/cache_engine.py allocate_gpu_cache): the
        # block count from the free memory came out negative and the cache's [num_blocks, block_size, num_heads,
        # head_dim] tensor was made with it ("rank[0] failed with error: Trying to create tensor with negative
        # dimension -83: [-83, 64, 4, 128]")
        msg(NEGATIVE_BLOCKS, "oom", "KV", "no-memory-for-kv-cache"),
        msg(r"No enough blocks for `session_len`|`session_len` truncated to \d+", "pressure", "KV",
            "session-len-truncated"),
        msg(r"Maybe cache is full, free gpu cache blocks", "pressure", "RUNTIME", "kv-pool-full-queueing"),
        # the PyTorch engine's serving loop died (it runs the model only for requests it scheduled): v0.3-v0.6
        # request.py _raise_exception_on_finish "Engine loop failed with error: {e}", v0.7+ engine.py async_loop
        # "Engine main loop failed."
        msg(r"Engine loop failed with error|Engine main loop failed", "wrapper", "RUNTIME"),
    ),
    frames={
        "KV": rx(r"create_model_instance|_create_model_instance|createModelInstance|create_engine|_create_engine|"
                 r"LlamaCacheManager|BlockManager|SequenceManager|(?<!cache_)max_entry_count|CacheEngine|_update_cache_config"),
        # (and TurboMind's export of the weights under way, its tqdm bar short of 100%: "Convert to turbomind format:
        # 41%|████▏     | 33/80")
        "WEIGHTS": rx(r"_create_weight|create_shared_weights|createSharedWeights|_load_weights|export_weights|"
                      r"Convert to turbomind format:\s+(?!100%)\d{1,2}%"),
        # TurboMind's warm-up after its KV blocks are made: GEMM tuning, one prefill forward pass per batch size
        # (LlamaBatch::Warmup, v0.6 LlamaV2.cc - v0.10 LlamaBatch.cc: "[Gemm2] Tuning sequence: 8, 16, ...", then
        # "[Gemm2] 8192" before each pass; LlamaTritonModel.cc createEngine runs it before the engine starts)
        "WARMUP": rx(r"\[Gemm2\] (?:Tuning sequence:|\d+\s*$)|LlamaBatch::Warmup|\[Engine\]\[Warmup\]"),
        "RUNTIME": rx(r"LlamaBatch::(?:Forward|InitializeSampling)|_forward_thread|stream_infer|async_stream_infer|"
                      # (the vision encoder's loop over requests' images, vl/engine.py _forward_loop)
                      r"lmdeploy/vl/engine\.py\W+line \d+, in _forward_loop\b|"
                      # the PyTorch engine's serving loop (request.py, engine.py, engine_loop.py)
                      r"_raise_exception_on_finish|_async_loop_background|_async_step_background|"
                      r"_main_loop_get_outputs|_main_loop_try_send_next_inputs|engine/engine_loop\.py"),
    },
    milestones=(
        # TurboMind's weights are written to the GPU by the export that its "Convert to turbomind format" bar follows
        # (turbomind.py _load_weights, Nov 2023 - May 2026: _get_model_params logs "get N model params" first, then
        # _tm_model.export(); the KV cache comes after, in _create_engine): the bar at its end, not the count before it
        ("weights_done", rx(r"Convert to turbomind format:\s*100%|model params loaded")),
        # (BlockManager's constructor prints its block_size, max_block_count and chunk_size, then allocates its first
        # chunk, Malloc(): the pool sized, its memory not yet taken; v0.1-v0.5 models/llama/BlockManager.cc)
        ("kv_sized", rx(r"max_block_count = [1-9]")),
        ("kv_done", rx(r"max cached tokens: [1-9]|Object cache budget")),
        ("warmup_done", rx(r"\[Gemm2\] Tuning finished in")),
        # (or TurboMind's batch loop started, LlamaBatch.cc Start(): "[TM][INFO] LlamaBatch<T>::Start()", the engine
        # built and its cache made, for the offline pipeline too)
        ("ready", rx(r"Uvicorn running|HINT:\s+Please open|LlamaBatch<T>::Start\(\)")),
        # a request taken up (serve/async_engine.py generate: "session_id=1, history_tokens=0, input_tokens=2408,
        # max_new_tokens=2048, ..."; later "session=1, adapter_name=None, input_tokens=...")
        # (and a request's images taken by the vision encoder, vl/engine.py: "ImageEncoder received 1 images, left 1
        # images.", "ImageEncoder process 1 images, left 0 images.")
        ("requests", rx(r"\bsession(?:_id)?=\d+, (?:history_tokens=\d+|adapter_name=\S+), input_tokens=\d+|"
                        r"\bImageEncoder (?:received|process) \d+ images?\b")),
    ),
    figures=(
        # the PyTorch engine without CUDA graphs (cli/utils.py --eager-mode; PytorchEngineConfig(eager_mode=True))
        switch("cuda_graphs_off", "eager-mode"),
        fig("cuda_graphs_off", r"\beager_mode\s*=\s*True\b", lambda m: True),
        fig("max_entry_count", r"\bmax_entry_count = ([\d.]+)", fraction),
        fig("cache_max_entry_count", r"cache_max_entry_count['\"]?\s*[=:]\s*([\d.]+)", fraction, mode="list"),
        fig("num_gpu_blocks", r"max_block_count = (\d+)", count),
        fig("block_size", r"cache_block_seq_len['\"]?\s*[=:]\s*(\d+)", count),  # tokens per block (default 64)
        fig("block_bytes", r"\[BlockManager\] block_size = " + SIZE),
        fig("max_model_len", r"\bsession_len['\"]?\s*[=:]\s*(\d+)", count),
        # ... as the cache cut it (LlamaBatch.cc: "`session_len` truncated to %d"), printed after the settings: the
        # context in force, so advice moves from it, not from the one asked for
        fig("max_model_len", r"`session_len` truncated to (\d+)", count),
        fig("max_num_seqs", r"\bmax_batch_size['\"]?\s*[=:]\s*(\d+)", count_outside("cuda_graph_config")),
        fig("max_num_batched_tokens", r"\bmax_prefill_token_num['\"]?\s*[=:]\s*(\d+)", count),
        fig("kv_cache_dtype", r"\bquant_policy['\"]?\s*[=:]\s*([48])\b", lambda m: "int" + m.group(1)),
        fig("model_name", r"model_path['\"]?\s*[=:]\s*['\"]([^'\"]{1,300})['\"]", lambda m: m.group(1)),
        # the command line (`lmdeploy serve api_server MODEL --cache-max-entry-count 0.65 ...`)
        cli("cache_max_entry_count", "cache-max-entry-count", fraction, mode="list"),
        cli("max_model_len", "session-len", count),
        cli("max_num_seqs", "max-batch-size", count),
        cli("max_num_batched_tokens", "max-prefill-token-num", count),
        cli("tensor_parallel_size", "tp", count),
        cli("kv_cache_dtype", "quant-policy", lambda m: {"4": "int4", "8": "int8"}.get(m.group(1), "")),
    ),
    # TurboMind making its weights (lmdeploy/turbomind/turbomind.py _create_weight, create_shared_weights)
    loader=rx(r"\b_?create_shared_weights?\b|\b_create_weight\b"),
)

ENGINE = Engine(
    name="lmdeploy", kv_block_tokens=64, label="LMDeploy", log=LOG, fraction_key="cache_max_entry_count", aliases=("turbomind",),
    flags={"max_model_len": "--session-len {n}", "max_num_seqs": "--max-batch-size {n}",
           "memory_fraction": "--cache-max-entry-count {x}", "kv_cache_dtype": "--quant-policy 8",
           "max_num_batched_tokens": "--max-prefill-token-num {n}", "tensor_parallel_size": "--tp {n}",
           "quantization": "a 4-bit AWQ model (--model-format awq)",
           "quantization_4bit": "a 4-bit AWQ model (--model-format awq)"},
)
