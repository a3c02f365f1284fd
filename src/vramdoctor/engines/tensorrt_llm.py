"""TensorRT-LLM: the C++ runtime (TensorRT engines, Triton's tensorrtllm backend) and the PyTorch backend
(`trtllm-serve`, the LLM API).

Sources: C++ `cpp/include/tensorrt_llm/common/logger.h` ("[TensorRT-LLM][INFO] "), `batch_manager/
kvCacheManager.cpp` ("[MemUsageChange] Allocated %0.2f GiB for max tokens in paged KV cache (%d).", "Memory
usage when calculating max tokens in paged kv cache: total: %0.2f GiB, available: %0.2f GiB", "Can't
allocate new blocks. No free blocks left."); Python `tensorrt_llm/logger.py` ("[TRT-LLM] [RANK n] [E] ..."),
`_torch/pyexecutor/py_executor_creator.py` (`_ExecutorMemoryMonitor`: "Executor creation failed due to
insufficient GPU memory." and its table: "The following component could not be created: <stage>", "Total
GPU memory (GiB): x", "Free GPU memory before component creation attempt (GiB): x", "<stage>: before /
after"), `_torch/pyexecutor/_util.py` (KvCacheCreator: "Peak memory during memory usage profiling ...",
"Estimated max tokens in KV cache : N" / "Estimated max memory in KV cache : x GiB"), model loader ("Use
%.2f GB for model weights." in GiB). The PyTorch backend prints the paged-KV allocation twice: first a
temporary cache for the estimate, then the real one.
Flags: --kv_cache_free_gpu_memory_fraction / kv_cache_config.free_gpu_memory_fraction (default 0.9 of the
free memory after weights and buffers), --max_batch_size (2048), --max_num_tokens (8192), --max_seq_len.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .generic import MEMORY_TERMS
from .words import NUM, SIZE, cli, count, count_outside, fig, fraction, gib, msg, rx

_STAGE = r"The following component could not be created: "

LOG = LogWords(
    quiet=True,  # default log level WARNING: the INFO lines of loading and sizing are not printed
    # (its own programs, trtllm-serve / trtllm-build / trtllm-bench; not the kernels other engines borrow under the name:
    # SGLang's and vLLM's "flashinfer_trtllm" MoE and GEMM back ends, SGLang's trtllm_mha / trtllm_mla attention)
    fingerprint=rx(r"TensorRT-LLM|tensorrt_llm|TllmRuntime|(?<![\w-])trtllm-(?:serve|build|bench|eval|llmapi-launch)\b|"
                   r"\[TRT-LLM\]"),
    run_start=(rx(r"\[TRT-LLM\] \[(?:RANK \d+\] \[)?I\] Starting TensorRT.LLM|trtllm-serve|"
                  r"\[TensorRT-LLM\] TensorRT-LLM version:", 0),),
    messages=(
        msg(r"No free blocks left", "oom", "RUNTIME", "kv-blocks-exhausted"),
        # a request refused for its length, the server going on (the PyTorch backend: "[TRT-LLM] [E] Error in request
        # 12: The sum of prompt length (98213) and query length (0) should not exceed max_num_tokens (86720)"; the C++
        # executor's "Prompt length (9000) exceeds maximum input length (8192)")
        msg(r"\bThe sum of prompt length \(\d+\)[^\n]{0,80}? should not exceed (?:max_num_tokens|max_seq_len|max_input_len)\b|"
            r"\bPrompt length \(\d+\) exceeds maximum input length \(\d+\)|"
            # (and the request's whole length against the engine's: "Prompt length + number of requested output tokens
            # (8000 + 500) exceeds maximum sequence length (8192)", "Input length (8193) + max new tokens (100) + draft
            # tokens (0) must be less than max sequence length (8192)")
            r"\bnumber of requested output tokens \(\d+ \+ \d+\) exceeds maximum sequence length\b|"
            r"\bInput length \(\d+\) \+ max new tokens \(\d+\)[^\n]{0,60}? must be less than max sequence length\b",
            "request"),
        # the pool holds less than one sequence of maxSequenceLen: the engine cuts it ("... are too large for at least
        # one sequence to fit in kvCache. they are reduced to 5376"); longer requests fail
        # (the PyTorch backend's words for the same cut, 1.x: "Attention window size 131072 exceeds upper bound 38048
        # for available blocks. Reducing to 38048." then "Adjusted max_seq_len to 38048")
        # (and the C++ executor's, 0.1x (trtGptModelInflightBatching.cpp): "maxAttentionWindowVec[0] (32768) is larger
        # than the maximum number of tokens that can be stored in the KV cache (14208). It will be clamped to 14208")
        msg(r"too large for at least one sequence to fit in kvCache|"
            r"\bAttention window size \d+ exceeds upper bound \d+ for available blocks|"
            r"\bmaxAttentionWindow(?:Vec\[\d+\])? \(\d+\) is larger than the maximum number of tokens that can be stored in "
            r"the KV cache \(\d+\)", "pressure", "KV", "max-model-len-exceeds-kv-cache"),
        # TensorRT's execution context made after the engine's weights and before the KV cache (runtime/tllmRuntime.cpp
        # addContext, then the KV cache manager from what is left): its activation buffers, sized by the build's
        # max_num_tokens and max_batch_size ("[executionContext.cpp::ExecutionContext::564] Error Code 2: OutOfMemory
        # (Requested size was 8858370048 bytes.)", then "Unable to create execution context")
        msg(r"executionContext\.cpp[^\n]{0,120}?(?:OutOfMemory|out of memory)", "oom", "WARMUP", "execution-context-oom"),
        # the block manager's own assertion when it finds no free block (kvCacheManager.cpp getFreeBlock)
        msg(r"Assertion failed: freeBlockIterator\.has_value\(\)", "oom", "RUNTIME", "kv-blocks-exhausted"),
        # (the block manager finding no GPU block to free for a new one, kvCacheManager.cpp findBestGPUBlockToFree:
        # "Assertion failed: mFreePrimaryBlocks list has no GPU blocks", with reuse and host offload on): the same
        # pool run dry while serving
        msg(r"Assertion failed: mFreePrimaryBlocks list has no GPU blocks", "oom", "RUNTIME", "kv-blocks-exhausted"),
        msg(r"tokens the KV cache can hold|maxTokensInPagedKvCache(?: \(\d+\))? must be large enough\b",  # (also cut after "enough")
            "oom", "KV", "max-model-len-exceeds-kv-cache"),
        # ... and the pool that holds not one sequence of the beam width's blocks (kvCacheManager.cpp
        # getMaxAttentionWindowUpperBound: "Impossible to fit in any sequence in kvCache", misspelt "Impossibe" in
        # releases of 2024): the pool sized from what the fraction left was too small
        msg(r"\bImpossib(?:l)?e to fit in any sequence in kvCache\b", "oom", "KV", "max-model-len-exceeds-kv-cache"),
        msg(r"\[TensorRT-LLM\]\[ERROR\]", "error"),
        # (listed before the general checks below: the first of equal verdicts wins)
        # its GEMM plugins finding no kernel configuration that runs on this GPU (the CUTLASS profiler's verdict,
        # weightOnlyGroupwiseQuantMatmulPlugin.cpp / gemm profilers: "Assertion failed: No valid weight only groupwise
        # GEMM tactic(It is usually caused by the failure to execute all candidate configurations of the CUTLASS
        # kernel ...)", "No valid weight only per-channel GEMM tactic"): a kernel this GPU or build does not run
        msg(r"\bAssertion failed: No valid [\w -]{1,80}? tactic\b", "not_oom", code="kernel-no-valid-tactic"),
        # its other assertions, on a condition that is not about memory (customAllReduceKernels.cu "Assertion failed:
        # elts_per_rank % elts_per_thread == 0"): a size or setting its kernels do not handle; read whole only, to the
        # source file it names (a line cut at "Assertion failed: maxTo" may be the pool's)
        # (the condition read up to the source file's parenthesis, not the file's name, "kvCacheManager.cpp"; a block's
        # size, "tokensPerBlock % 64 == 0", is a shape the kernels need, not the pool's blocks)
        # (and a condition there at all: "Assertion failed: (/src/.../kvCacheManager.cpp:612)" printed none)
        msg(r"\[TensorRT-LLM\]\[ERROR\] Assertion failed: (?!\s*\([^()\s]+\.(?:cu|cuh|cpp|h):\d+\))"
            r"(?!(?:(?!\([^()\s]+\.(?:cu|cuh|cpp|h):\d+\))[^\n])*?(?:"
            + MEMORY_TERMS + r"|[Cc]ache|"
            r"(?<![Pp]er)(?<![Pp]er )[Bb]lock(?!s? ?[Ss]ize)|\b[Tt]okens?\b(?! per\b)|"
            r"[Ff]ree|[Pp]ool|[Ss]pace|[Mm]em))[^\n]*\([^()\s]+\.(?:cu|cuh|cpp|h):\d+\)", "not_oom",
            code="assertion-failed", flags=0),
        # ... and, whatever words of caches or buffers they hold, those that state a setting or a build the model or
        # engine needs ("Assertion failed: When KV cache block reuse is set, model has to be built with paged context
        # FMHA support", "Do not set crossKvCacheFraction for decoder-only model", "KV-cache-less is only supported for
        # context", an engine built with --kv_cache_type=disabled) or compare two values for equality
        # (the XQA kernels' "Assertion failed: remaining_buffer_size == 0"): a consistency check of settings or of a
        # build, which memory running out does not fail
        msg(r"\[TensorRT-LLM\]\[ERROR\] Assertion failed: (?![^\n]*(?:\balloc|[Mm]emory|\benough\b|\bfit\b|has_value|"
            r"[Ii]nsufficient|[Ee]xceed|too (?:small|large)|\bOOM\b))(?:[^\n]*?(?:\bhas to be built with\b|\b[Dd]o not set\b|"
            r"\bis not supported\b|\bis only supported (?:for|with|on|in|when|by|if)\b|"
            r"\bmust be (?:set|built|enabled|disabled)\b)|"
            # (the equality of two values none of which names the KV manager's blocks, caches or pools:
            # "mNextBlocks.size() == mBlocks.size()" is its bookkeeping, left undetermined)
            r"\s*(?![^\n]*(?:[Bb]lock|[Cc]ache|[Pp]ool|[Ff]ree|[Tt]oken))[\w.\[\]()>-]+ == [\w.]+\s*(?:\(|$))",
            "not_oom", code="assertion-failed", flags=0),
        msg(_STAGE + r"(?:KV cache|kv_cache|Initial KV cache|_no_capture_init_kv_cache)", "oom", "KV",
            "kv-cache-alloc-failed"),
        msg(_STAGE + r"(?:Model|model|Draft model|draft_model)\s*$", "oom", "WEIGHTS", "weights-alloc-failed"),
        msg(_STAGE + r"\S", "oom", "WARMUP"),
        msg(r"Failed to initialize executor on rank|Executor creation failed with", "wrapper"),
        # TensorRT's runtime refusing an engine built by another TensorRT or for another GPU ("The engine plan file
        # is not compatible with this version of TensorRT, expecting library version 9.2.0.4 got 9.2.0.5, please
        # rebuild.", "... is generated on an incompatible device, expecting compute 8.6 got compute 8.9"): rebuild it
        # (TensorRT's own error line for it, which may end there: "[TRT] [E] 6: The engine plan file is not compatible")
        # (TensorRT 10's words for an engine serialized by another version: "IRuntime::deserializeCudaEngine: Error Code
        # 1: Serialization (Serialization assertion stdVersionRead == kSERIALIZATION_VERSION failed.Version tag does
        # not match. ...)")
        msg(r"\bengine plan file is (?:not compatible(?: with this version of TensorRT|\s*$)|generated on an incompatible "
            r"device)\b|\bSerialization assertion stdVersionRead == kSERIALIZATION_VERSION failed\b|\bVersion tag does not "
            r"match\b", "not_oom", code="engine-plan-incompatible"),
        msg(r"Failed to deserialize cuda engine|Engine deserialization failed", "wrapper", "WEIGHTS"),
        # trtllm-build: TensorRT could not place the engine's weights while building it ("[TRT] [E] [defaultAllocator]
        # ... Error Code 2: OutOfMemory (Requested size was N bytes.)", then "Engine building failed")
        msg(r"Engine building failed", "wrapper", "WEIGHTS"),
    ),
    frames={
        # (the PyTorch backend's loader logs each module it fails to place: "Error executing load_single_module
        # with args ('model.layers.9.mlp.gate_up_proj', ...)")
        "WEIGHTS": rx(r"TllmRuntime::TllmRuntime|TllmRuntime\(|PyTorchModelEngine\.__init__|load_weights|"
                      r"load_single_module|"
                      r"deserializeCudaEngine|deserialize cuda engine"),
        "KV": rx(r"KVCacheManager|kvCacheManager|_create_kv_cache_manager|KvCacheCreator|create_kv_cache|"
                 r"calculateMaxNumBlocks"),
        # (and the PyTorch backend's profiling pass before the pool is sized, _torch/pyexecutor/_util.py KvCacheCreator
        # .estimate_max_tokens: dummy requests of max_num_tokens through the model, whose out of memory it raises
        # again, "raise RuntimeError(response.error_msg)")
        "WARMUP": rx(r"RuntimeBuffers::RuntimeBuffers|RuntimeBuffers::create|_run_dummy|configure_kv_cache_capacity|"
                     r"Autotuning process starts|CUDA graph warmup|\bin estimate_max_tokens\b"),
        "RUNTIME": rx(r"RuntimeBuffers::(?:prepareStep|reshape)|forwardAsync|executeStep|_executor_loop|_forward_step"),
    },
    milestones=(
        ("weights_done", rx(r"Loaded engine size|Use [\d.]+ GB for model weights|Model init total")),
        # (2024 builds: "Allocate N bytes for k/v cache." then "Using N tokens in paged KV cache.")
        ("kv_sized", rx(r"for max tokens in paged KV cache|Estimated max (?:tokens|memory) in KV cache|"
                        r"Using \d+ tokens in paged KV cache|Allocate \d+ bytes for k/v cache")),
        ("ready", rx(r"Executor instance created|Setting PyTorch memory fraction")),
    ),
    figures=(
        fig("weights_bytes", r"Loaded engine size: " + SIZE),
        fig("weights_bytes", r"Use " + NUM + r" GB for model weights", gib),
        fig("kv_pool_bytes", r"Allocated " + SIZE + r" for max tokens in paged KV cache"),
        fig("kv_pool_tokens", r"for max tokens in paged KV cache \(" + NUM + r"\)", count),
        fig("kv_pool_tokens", r"Using (\d+) tokens in paged KV cache", count),
        fig("kv_pool_bytes", r"Allocate (\d+) bytes for k/v cache", count),
        fig("kv_pool_tokens", r"tokens the KV cache can hold \(" + NUM + r"\)", count),
        fig("kv_pool_tokens", r"Estimated max tokens in KV cache\s*:\s*" + NUM, count),
        fig("max_model_len", r"number of tokens requested \(" + NUM + r"\)", count),
        fig("kv_available_bytes", r"calculating max tokens in paged kv cache: total: [\d.]+ GiB, available: " + SIZE),
        fig("total_memory_bytes", r"Total GPU memory \(GiB\): " + NUM, gib),
        fig("total_memory_bytes", r"calculating max tokens in paged kv cache: total: " + SIZE),
        fig("free_memory_bytes", r"Free GPU memory before component creation attempt \(GiB\): " + NUM, gib),
        fig("weights_bytes", r"^\s*(?:Model|model): ([\d.]+) / ([\d.]+)\s*$",
            lambda m: gib(m, 1) - gib(m, 2)),
        fig("kv_pool_tokens", r"to fit in kvCache\. they are reduced to (\d+)", count),
        fig("kv_pool_tokens", r"\bmaxAttentionWindow(?:Vec\[\d+\])? \(\d+\) is larger than the maximum number of tokens "
            r"that can be stored in the KV cache \((\d+)\)", count),
        fig("max_model_len", r"\bmaxAttentionWindow(?:Vec\[\d+\])? \((\d+)\) is larger than the maximum number of tokens "
            r"that can be stored in the KV cache", count, mode="first"),
        fig("kv_pool_tokens", r"\bAttention window size \d+ exceeds upper bound (\d+) for available blocks", count),
        fig("max_model_len", r"\bAttention window size (\d+) exceeds upper bound \d+ for available blocks", count,
            mode="first"),
        # a context the user did not set, the model's own taken (the PyTorch backend: "max_seq_len is not specified,
        # using inferred value 131072"): a cut of it to the pool is the engine sizing to the GPU, not a setting that
        # did not fit
        fig("_context_defaulted", r"\bmax_seq_len is not specified, using inferred value \d+", lambda m: True),
        fig("failed_component", _STAGE + r"(.{1,120})$", lambda m: m.group(1).strip()),
        fig("free_gpu_memory_fraction", r"(?:free_gpu_memory_fraction|free_gpu_mem_fraction|freeGpuMemoryFraction)"
            r"['\"]?\s*[=:]\s*([\d.]+)", fraction),
        # the PyTorch backend's profiling summary (_torch/pyexecutor: "Peak memory during memory usage profiling ...:
        # 12.76 GiB, available KV cache memory when calculating max tokens: 9.11 GiB, fraction is set 0.95, kv size is
        # 131072. device total memory 23.53 GiB")
        fig("free_gpu_memory_fraction", r"\bfraction is set ([\d.]+)", fraction),
        fig("kv_available_bytes", r"available KV cache memory when calculating max tokens: " + SIZE),
        fig("total_memory_bytes", r"\bfraction is set [\d.]+, kv size (?:per token )?is \d+\. device total memory " + SIZE),
        fig("max_num_seqs", r"\bmax_batch_size['\"]?\s*[=:]\s*(\d+)", count_outside("cuda_graph_config")),
        # the command line (trtllm-serve / trtllm-llmapi-launch spell flags with underscores)
        cli("max_num_seqs", "max_batch_size", count),
        cli("max_num_batched_tokens", "max_num_tokens", count),
        cli("max_model_len", "max_seq_len", count),
        cli("tensor_parallel_size", "tp_size", count),
        cli("free_gpu_memory_fraction", "kv_cache_free_gpu_memory_fraction", fraction),
        # the CUDA graphs' largest batch: extra_llm_api_options' cuda_graph_config.max_batch_size (1.0+, nested or
        # inline), the PyTorch backend's flat cuda_graph_max_batch_size before it (0.19-0.20)
        fig("cuda_graph_max_bs", r"cuda_graph_config(?:\.|['\"]?\s*[=:]\s*(?:\w+\()?\{?[^)}]{0,200}?\b)"
            r"max_batch_size['\"]?\s*[=:]\s*(\d+)", count),
        fig("cuda_graph_max_bs", r"\bcuda_graph_max_batch_size['\"]?\s*[=:]\s*(\d+)", count),
        # (which of the two spellings the release reads: the advice names that one)
        fig("_cuda_graph_flat", r"\bcuda_graph_max_batch_size['\"]?\s*[=:]\s*\d+", lambda m: True),
        # the C++ runtime's settings table ("maxBatchSize: 64", "maxSequenceLen: 8192", "maxNumTokens: 8192")
        fig("max_num_seqs", r"\bmaxBatchSize\s*[=:]\s*(\d+)", count),
        fig("max_model_len", r"\bmaxSequenceLen\s*[=:]\s*(\d+)", count),
        fig("max_num_batched_tokens", r"\bmaxNumTokens\s*[=:]\s*(\d+)", count),
        fig("max_num_batched_tokens", r"\bmax_num_tokens['\"]?\s*[=:]\s*(\d+)", count),
    ),
    # _torch/pyexecutor/py_executor_creator.py (_ExecutorMemoryMonitor): its memory words come last
    sentences=("Executor creation failed due to insufficient GPU memory.",),
)

def flags_by_release(flags: dict, n: dict) -> dict:
    """The CUDA graphs' key as the release the log shows spells it: the PyTorch backend's flat
    cuda_graph_max_batch_size / use_cuda_graph (0.19-0.20, PyTorchConfig), where the log prints that key, rather than
    cuda_graph_config.max_batch_size (1.0+)."""
    if n.get("_cuda_graph_flat") is True:
        flags["cuda_graphs"] = ("cuda_graph_max_batch_size: {n} (extra_llm_api_options, as your release spells it; or "
                                "use_cuda_graph: false: no CUDA graphs)")
    return flags


ENGINE = Engine(
    name="tensorrt-llm", label="TensorRT-LLM", log=LOG, fraction_key="free_gpu_memory_fraction",
    adapt_flags=flags_by_release,
    aliases=("trtllm", "trt-llm", "tensorrtllm", "tensorrt_llm", "trtllm-serve", "trt-llm-pytorch"),
    flags={"max_model_len": "--max_seq_len {n}", "max_num_seqs": "--max_batch_size {n}",
           "memory_fraction": "--kv_cache_free_gpu_memory_fraction {x} (kv_cache_config.free_gpu_memory_fraction)",
           "kv_cache_dtype": "kv_cache_config.dtype: fp8", "max_num_batched_tokens": "--max_num_tokens {n}",
           "cuda_graphs": "cuda_graph_config.max_batch_size: {n} (or no cuda_graph_config: no CUDA graphs)",
           "tensor_parallel_size": "--tp_size {n}", "quantization": "an fp8 or int4-AWQ checkpoint",
           "quantization_4bit": "an int4-AWQ checkpoint"},
)
