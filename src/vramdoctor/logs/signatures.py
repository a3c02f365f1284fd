"""What the engines print: engine fingerprints, failure lines, phase markers and run starts.

Pure data (compiled regexes). Wordings come from the engines' sources and from real logs
in public bug reports (tests/data/logs): vLLM V0 (`worker.py`, `model_runner.py`,
`executor_base.py`) and V1 (`gpu_worker.py`, `kv_cache_utils.py`, `core.py`), SGLang
(`model_runner.py`, `memory_pool.py`, `cuda_graph_runner.py`), llama.cpp (old `llm_load_*`,
`llama_new_context_with_model`, `llama_kv_cache_init`; new `load_tensors`, `llama_context`,
`llama_kv_cache`), Ollama (`server.go`, `memory.go`, runner), TGI, TensorRT-LLM, LMDeploy
(TurboMind), ExLlamaV2/tabbyAPI, transformers/accelerate, KoboldCpp, text-generation-webui, MLC LLM.
"""

from __future__ import annotations

import re

I = re.IGNORECASE

#: engine -> patterns whose presence identifies it; the engine with the most matching lines wins.
ENGINES: dict[str, re.Pattern] = {
    "vllm": re.compile(r"\bvllm\b|VllmWorker|EngineCore|gpu_model_runner\.py|kv_cache_utils\.py|gpu_worker\.py|"
                       r"# (?:GPU|cuda) blocks|GPU KV cache size|Loading model weights took|Memory profiling results|"
                       r"async_llm_engine\.py|llm_engine\.py|model_runner\.py:\d+\]|APIServer pid=|\[loggers\.py:\d+\]|"
                       r"Avg prompt throughput", I),
    "sglang": re.compile(r"sglang|\bTP\d+\]|KV Cache is allocated|Load weight (?:begin|end)|mem_fraction_static|"
                         r"Capture cuda graph|max_total_num_tokens|Prefill batch\. #new-seq", I),
    "ollama": re.compile(r"ollama|\[GIN\]|source=(?:server|memory|sched|routes)\.go|msg=\"?offload|runner\.go", I),
    "koboldcpp": re.compile(r"koboldcpp|\[Context Shifting|Processing Prompt(?: \[BLAS\])? \(\d+ / \d+ tokens\)", I),
    "llamacpp": re.compile(r"llama_model_loader|llm_load_|load_tensors:|llama_new_context_with_model|llama_context:|"
                           r"llama_kv_cache|ggml_backend|ggml_cuda|llama-server|llama_init_from|print_info:|"
                           r"ggml_gallocr|srv\s+\w+:|main: build", I),
    "tgi": re.compile(r"text[-_]generation[-_](?:inference|router|launcher|server|client)|router/src|"
                      r"max[-_]batch[-_](?:total[-_])?tokens|--max-total-tokens|warmup\{|prefill\{|--num-shard", I),
    "tensorrt-llm": re.compile(r"TensorRT-LLM|tensorrt_llm|TllmRuntime|trtllm", I),
    "lmdeploy": re.compile(r"lmdeploy|turbomind|\[TM\]\[", I),
    "exllamav2": re.compile(r"exllamav2|tabbyAPI|exl2\b", I),
    "text-generation-webui": re.compile(r"text-generation-webui|oobabooga|server\.py --model|Output generated in|--wbits|--pre_layer", I),
    "mlc-llm": re.compile(r"mlc[-_]llm|mlc_chat|mlcchat|threaded_engine\.cc|prefill-chunk-size", I),
    "transformers": re.compile(r"transformers/(?:modeling_utils|generation/utils|models/)|from_pretrained|accelerate/|"
                               r"_load_state_dict_into_meta_model|Loading checkpoint shards", I),
}

_ALIASES = {"llama": "llamacpp", "llama-cpp": "llamacpp", "llama-server": "llamacpp", "llama-cpp-python": "llamacpp",
            "text-generation-inference": "tgi", "trtllm": "tensorrt-llm", "trt-llm": "tensorrt-llm",
            "tensorrtllm": "tensorrt-llm", "exllama": "exllamav2", "tabbyapi": "exllamav2", "hf": "transformers",
            "accelerate": "transformers", "oobabooga": "text-generation-webui", "tgwebui": "text-generation-webui",
            "mlc": "mlc-llm", "mlcllm": "mlc-llm", "kobold": "koboldcpp", "turbomind": "lmdeploy"}


def engine_name(name: str) -> str:
    """The canonical engine name for what a user typed ("vLLM", "llama.cpp", "TGI", ...).
    Raises UsageError for an engine vramdoctor does not know."""
    from ..errors import UsageError

    key = name.strip().lower().replace(".", "").replace("_", "-").replace(" ", "-")
    key = _ALIASES.get(key, key)
    if key not in ENGINES:
        raise UsageError(f"unknown engine '{name}'.", option="--engine",
                         hint="Use one of: " + ", ".join(sorted(ENGINES)) + ".")
    return key


#: an out-of-memory failure line, in any engine's words
OOM = re.compile(
    r"out of memory|OutOfMemoryError|\bOOM\b|cudaErrorMemoryAllocation|hipErrorOutOfMemory|ErrorOutOfDeviceMemory|"
    r"failed to allocate|unable to allocate .*buffer|Insufficient GPU memory|not enough memory|"
    r"requires more system memory|No available memory for the cache blocks|No enough cache entries|"
    r"larger than the maximum number of tokens that can be stored in KV cache|"
    r"KV cache is needed, which is larger than the available KV cache memory|"
    r"insufficient (?:GPU )?memory|insufficient VRAM|cudaMalloc failed|CUDA_ERROR_OUT_OF_MEMORY|memory allocation failed|"
    r"model request too large|CUDA out of\b|max_block_count\s*=\s*0\b|tokens the KV cache can hold|"
    r"^\s*Killed\s*$|Out of memory: Killed process|OOMKilled|oom-kill", I)

#: a failure that is not memory exhaustion although it is often read as one
NOT_OOM = [
    (re.compile(r"illegal memory access|illegal address", I), "illegal-memory-access"),
    (re.compile(r"NCCL error|ncclUnhandledCudaError|NCCL watchdog|ncclSystemError|ncclInternalError", I), "nccl-error"),
    (re.compile(r"device-side assert", I), "device-side-assert"),
    (re.compile(r"CUDA (?:runtime )?error:? invalid argument|invalid argument .*\.cu:\d+", I), "cuda-invalid-argument"),
    (re.compile(r"misaligned address|CUBLAS_STATUS_(?!ALLOC)\w+|cuDNN error|unspecified launch failure", I), "cuda-kernel-error"),
    (re.compile(r"Free memory on device .* is less than desired GPU memory utilization|Error in memory profiling\. "
                r"Initial free memory", I), "gpu-shared-with-other-process"),
    (re.compile(r"greater than the derived max_model_len|max_model_len.*exceeds? the model's", I), "max-model-len-exceeds-model"),
]

#: a fatal error whose cause the excerpt does not say (truncated "CUDA ru...", an engine exception)
OTHER_ERROR = re.compile(
    r"\b(?:\w+\.)*\w+(?:Error|Exception):|CUDA (?:runtime )?error|\[TM\]\[ERROR\]|EngineCore hit an exception|"
    r"Traceback \(most recent call last\)|panic:|Check failed|terminate called|core dumped|Segmentation fault|"
    r"FATAL EXCEPTION|Scheduler hit an exception|Exception in worker", I)

#: phases in lifecycle order and the words that place a failure in one (frames, messages)
PHASES = ("WEIGHTS", "KV", "WARMUP", "RUNTIME")
PHASE_WORDS: dict[str, re.Pattern] = {
    "KV": re.compile(
        r"init_memory_pool|TokenToKVPool|_create_buffers|kv_cache_init|llama_kv_cache|initialize_kv_cache|"
        r"_initialize_kv_caches|_allocate_kv_cache|kv_cache_utils|check_enough_kv_cache_memory|get_kv_cache_config|"
        r"CacheEngine|init_cache_engine|LlamaCacheManager|cache_manager|kv cache|KV cache|cache blocks|"
        r"max_entry_count|memory\.required\.kv|_initialize_kv", I),
    "WARMUP": re.compile(
        r"captur|cuda_graph|CudaGraph|graph_runner|_dummy_sampler_run|_dummy_run|profile_run|determine_available_memory|"
        r"warm(?:ing)?[ _-]?up|gallocr_reserve|compute buffers?|sched_reserve|preprocess_only|load_gen|\bprofil", I),
    "WEIGHTS": re.compile(
        r"load_model|load_weights|weight_loader|from_pretrained|_load_state_dict|load_state_dict|llama_model_load|"
        r"load_tensors|llm_load_tensors|create_shared_weights|_create_weight|model weight size|"
        r"Parameter\(torch\.empty|requires more system memory|model request too large|"
        r"init_device|unable to load model|error loading model|model buffer|loading model tensors", I),
    "RUNTIME": re.compile(
        r"execute_model|forward_batch_generation|forward_extend|forward_decode|Prefill batch|Decode batch|"
        r"Processing Prompt|prefill\{|decode\{|Request failed during generation|/v1/(?:chat/)?completions|"
        r"/api/(?:chat|generate)|/generate\b|RuntimeBuffers::(?:prepareStep|reshape)|Output generated|"
        r"ggml_cuda_device_malloc|ggml_cuda_pool|generate_step|\.sample\(|sampler\(|print_timing|context \d+|"
        r"\bin generate\b|\.generate\(|\bin _sample\b|greedy_search|beam_search|in _prefill|chat_completion", I),
}

#: messages whose phase is known whatever words they contain (checked before PHASE_WORDS)
MESSAGE_PHASE: list[tuple[re.Pattern, str]] = [
    (re.compile(r"No enough cache entries", I), "RUNTIME"),  # TurboMind: a request found no free cache entry
    (re.compile(r"NCCL.*(?:out of memory|Cuda failure)", I), "WARMUP"),  # NCCL buffers: overhead, not KV
    (re.compile(r"max_block_count\s*=\s*0\b|cache_block_num\s*=\s*0\b|tokens the KV cache can hold", I), "KV"),
    (re.compile(r"^\s*Killed\s*$|Out of memory: Killed process|OOMKilled|oom-kill", I), "HOST"),
    (re.compile(r"max seq len .* larger than the maximum number of tokens|KV cache is needed|"
                r"No available memory for the cache blocks|failed to allocate buffer for kv cache", I), "KV"),
    (re.compile(r"warming up sampler|Capture cuda graph failed|failed to allocate compute (?:pp )?buffers|"
                r"Not enough memory to handle .*prefill tokens|decrease `?--max-batch-prefill-tokens", I), "WARMUP"),
    (re.compile(r"insufficient VRAM to load|model requires more (?:system )?memory", I), "WEIGHTS"),
]

#: a Python frame line, the first line of a traceback printed without its header
PY_FRAME = re.compile(r'File "[^"]+", line \d+, in [\w<>]+')

#: a traceback frame: Python `File "...", line N, in f`, C++ backtrace `N 0x... sym`, Go `pkg.(*T).f(`
FRAME = re.compile(r'File "[^"]+", line \d+, in \w+|^\s*(?:\\n)?\d+\s+0x[0-9a-f]+\s|\.go:\d+|\w+\.cu:\d+', I)

#: progress through start-up, in order; each a phase reached
PROGRESS: list[tuple[str, re.Pattern]] = [
    ("weights_done", re.compile(
        r"Loading model weights took|Model loading took|Load weight end|model buffer size|(?:CUDA\d|CPU) buffer size =|"
        r"offloaded \d+/\d+ layers|Modules \|.*\|\s*(\d+)/\1|loaded weights|Model loaded|Weights loaded|"
        r"Loading checkpoint shards: 100%", I)),
    ("kv_done", re.compile(
        r"# (?:GPU|cuda) blocks: [1-9]|GPU blocks: [1-9]|GPU KV cache size|KV Cache is allocated|Memory pool end|"
        r"KV self size|llama_kv_cache(?:_unified)?: size =|KV buffer size|max_total_num_tokens=|"
        r"Setting max batch total tokens|kv_cache_size=", I)),
    ("warmup_done", re.compile(
        r"Graph capturing finished|Capture cuda graph end|compute buffer size|init engine .* took|"
        r"Application startup complete|Uvicorn running|server is listening|listening on http|starting llama main loop|"
        r"model loaded|The server is fired up|Connected", I)),
    ("requests", re.compile(
        r"\"(?:POST|GET) /(?:v1/|api/(?:chat|generate))|POST /generate|Prefill batch|Decode batch|Processing Prompt|"
        r"Avg prompt throughput|print_timing|Output generated|prefill\{|generate\{|\[GIN\].*POST", I)),
]

#: a weights-loaded line that, seen again after the KV cache was sized, means the server restarted
RESTART_WEIGHTS = re.compile(r"Loading model weights took|Model loading took|Load weight end|model buffer size =", I)

#: lines that only a fresh server start prints (the first of each kind in a run is fine)
RUN_START = re.compile(
    r"vLLM API server version|Initializing an? (?:V1 )?LLM engine|server_args=ServerArgs|llama_server: initializing|"
    r"main: build = |build: \d+ \(|system info: n_threads|starting llama server|non-default args:|"
    r"args: Namespace\(|"
    r"text_generation_launcher: Args|^Loading model: ")  # case-sensitive: "error loading model: " is no start

#: substrings (lowercase) one of which a line must hold before its PROGRESS regex is tried
PROGRESS_WORDS = {
    "weights_done": ("took", "load weight", "buffer size", "offloaded", "modules", "loaded", "shards: 100%"),
    "kv_done": ("blocks", "kv cache", "memory pool", "kv self", "llama_kv_cache", "kv buffer", "max_total_num_tokens",
                "max batch total", "kv_cache_size"),
    "warmup_done": ("graph", "captur", "compute buffer", "init engine", "startup complete", "uvicorn", "listening",
                    "main loop", "model loaded", "fired up", "connected"),
    "requests": ("post ", "get /", "prefill", "decode batch", "processing prompt", "throughput", "print_timing",
                 "output generated", "generate{", "[gin]"),
}

#: vLLM / TGI periodic stats that a leak shows in
KV_USAGE = re.compile(r"GPU KV cache usage: ([\d.]+)%|token usage: ([\d.]+)", I)
RUNNING = re.compile(r"Running: (\d+) reqs|#running-req: (\d+)", I)
