"""Ollama: a server around llama.cpp (its runner prints llama.cpp's own lines, which count for Ollama).

Sources (ollama v0.1 -> v0.30): `llm/server.go` ("starting llama server", "llama runner started in %.2f
seconds", "llama runner process has terminated: %v"), `llm/memory.go` (<= v0.12.10: msg=offload with
layers.offload, memory.available, memory.required.full/partial/kv, memory.weights.total, memory.graph.*),
`server/sched.go` ("error loading llama server"), `server/routes.go` ("insufficient VRAM to load any model
layers", "model requires more system memory (%s) than is available (%s)", "model request too large for
system"); v0.12+ `ml/device.go` (msg="model weights" / "kv cache" / "compute graph" device=... size=...).
Settings: OLLAMA_NUM_PARALLEL, OLLAMA_CONTEXT_LENGTH / num_ctx, OLLAMA_KV_CACHE_TYPE (needs
OLLAMA_FLASH_ATTENTION=1), num_gpu (layers on the GPU), OLLAMA_GPU_OVERHEAD.
"""

from __future__ import annotations

import time

from .interface import Endpoints, Engine, KvView, LogWords, StepCode, Spelling, answer_json, as_count
from .words import NOT_ADMIN, SIZE, count, fig, msg, release, rx

#: a question typed at `ollama run`'s prompt (cmd/interactive.go ">>> "), shown only once the model has loaded: words,
#: not its "Send a message" placeholder, a /command, or a Python REPL's statement (code signs, a keyword first, a
#: block's colon)
CHAT_QUESTION = rx(r"^\s*>>> (?!Send a message)(?!(?:import|from|for|while|if|elif|else|with|def|class|print|return|"
                   r"assert|del|try|except|lambda|raise|async|await|yield|pass)\b)(?![^\n]*[=()\[\]{}`]|"
                   r"[^\n]*:\s*$)[A-Za-z][\w'\u2019,-]*(?:\s+[\w'\u2019\x22\u201c\u201d,.!?:;-]+){2,}\s*$", 0)

LOG = LogWords(
    # the server command (cmd/cmd.go: "ollama serve")
    launch=rx(r"ollama\s+serve"),
    # (a request answered: Gin's access line, "[GIN] 2025/04/03 - 19:22:31 | 200 |    6.82s | 127.0.0.1 | POST ...")
    answered=rx(r"\|\s*2\d\d\s*\|", 0),
    # (0.1's llm/llama.go Close, on an idle unload after keep_alive (5 minutes by default), a switch to another model or
    # its own shutdown: it kills the runner, Go's exit error "signal: killed" is logged, then this)
    stops_own=rx(r"\bllama runner stopped successfully\b"),
    # (its front server loads the model for a request: the runner taking one up is its own line of serving,
    # runner/llamarunner/cache.go "loading cache slot")
    loads_on_request=rx(r"loading cache slot", 0),
    # (the name alone, not inside another: "/models/mixtral_ollama/", and not a front end that emulates its API,
    # KoboldCpp's "For third party Ollama API Emulation")
    # (not a folder of a path, "/mnt/models/ollama/models--ubergarm--..." that another engine loads from)
    fingerprint=rx(r"(?<![A-Za-z0-9_/\\])ollama(?![A-Za-z0-9_/\\]|\s+API\s+Emulation)|\[GIN\]|memory layout cannot be allocated|source=(?:server|memory|sched|routes|types|gpu|device|causal|runner|ggml)\.go|msg=\"?offload|"
                   r"runner\.go|llama runner|starting llama server|"
                   # its Go runner's errors (runner/llamarunner/runner.go panics on processBatch's "failed to decode
                   # batch: %w"; llama/llama.go Decode: "llama_decode failed with code %d")
                   r"^panic: failed to (?:decode batch|sample token)|llama_decode failed with code -?\d|"
                   # any of its Go sources in its slog lines ("level=INFO source=dyn_ext_server.go:90"); llama.cpp's
                   # server built into it, early 2024 (llm/ext_server/ext_server.cpp)
                   r"level=\w+ source=[\w.-]+\.go:\d+|llama server main loop starting|"
                   r"exception in llama server main loop|error in llama server update_slots|llama server shutting down"),
    # (and the scheduler's lines for a model it is about to load, printed before that model's "starting llama server":
    # server/sched.go "updated VRAM based on existing loaded models", "new model will fit in available VRAM ...",
    # llm/memory.go's "offload to cuda" estimate: after a model that loaded, they are the next model's, or the same
    # model's reload; while no run got anywhere they are part of the one that starts)
    run_start=(rx(r"msg=\"Listening on |msg=\"starting llama server\"|msg=\"starting runner\"|"
                  r"msg=\"updated VRAM based on existing loaded models\"|msg=\"new model will fit in available VRAM|"
                  r"msg=\"?offload to \w+\"?\s+layers\.", 0),),
    messages=(
        msg(r"requires more system memory|model request too large", "oom", "WEIGHTS", "weights-exceed-system-memory"),
        # the planner's note that no layer fits on the GPU (llm/memory.go, at DEBUG: "insufficient VRAM to load any
        # model layers"): it then offloads 0 layers and runs the model on the CPU, nothing failed (what the offload
        # decision says is read from its msg=offload line)
        msg(r"insufficient VRAM to load", "note"),
        # a discovery that found no GPU to use (gpu/gpu.go 0.1-0.11: "no nvidia devices detected" with the libcuda it
        # tried, "no compatible GPUs were discovered"): the model runs on the CPU; a finding that stays though it serves
        msg(r"\bno nvidia devices detected\b|\bno compatible GPUs were discovered\b", "not_oom", code="gpu-not-detected"),
        # a pull the network broke off (server/download.go: each part's "attempt N failed: ... retrying", then the
        # client's "Error: max retries exceeded: Get \"https://...\": dial tcp ...: i/o timeout"; images.go
        # "pull model manifest: ... no such host"): not memory, not the model
        msg(r"\bmax retries exceeded: Get \x22https?://(?!localhost|127\.)|\bpull model manifest: [^\n]{0,300}?"
            r"(?:i/o timeout|no such host|connection refused|TLS handshake timeout|connection reset)", "not_oom",
            code="network-error"),
        # a request for something the model cannot do (the new engine's runner: "llm embedding error: this model does
        # not support embeddings"; server/routes.go: "\"gemma3\" does not support tools", "... does not support
        # thinking", "... does not support generate"): the request refused, not memory (not its warning that it goes on
        # without the option: "model does not support thinking, ignoring think option")
        msg(r"(?:\bthis model|[\x22'][^\x22'\n]{1,200}[\x22']|[\w./:-]+) does not support (?:embeddings|generate|chat|tools|"
            r"thinking|insert|completions?|vision)\b(?![^\n]{0,40}\bignoring\b)", "not_oom", code="capability-unsupported"),
        # a GPU it found and would not use, so the model runs on the CPU: a ROCm or CUDA library that could not
        # initialize it (discover/runner.go v0.12+, at DEBUG: "filtering device which didn't fully initialize"), a
        # Radeon its ROCm build has no kernels for (discover/amd_linux.go, amd_windows.go v0.1.3x-0.11: "amdgpu is not
        # supported" with its gpu_type and the supported types; HSA_OVERRIDE_GFX_VERSION maps it to one on Linux), an
        # APU's iGPU ("unsupported Radeon iGPU detected skipping"), a GPU older than its builds ("amdgpu too old",
        # gpu.go "CUDA GPU is too old. Compute Capability detected: 3.5")
        msg(r"filtering device which didn'?t fully initialize|\bamdgpu is not supported\b|"
            r"unsupported Radeon iGPU detected skipping|\bamdgpu too old\b|CUDA GPU is too old\b", "not_oom",
            code="gpu-unsupported"),
        # the Go runner's KV cache (kvcache/causal.go): no cells for a batch while serving
        # (ErrKvCacheFull, "could not find a kv cache slot" in later releases); the runner panics on it in processBatch
        # ("panic: failed to decode batch: could not find a kv cache slot"): a failure, not pressure
        msg(r"(?:unable to|could not) find a kv cache slot", "pressure", "RUNTIME", "kv-cache-full"),
        msg(r"failed to decode batch: (?:unable to|could not) find a kv cache slot", "oom", "RUNTIME", "kv-cache-full"),
        msg(r"unable to allocate memory from device .* for model weights", "oom", "WEIGHTS", "weights-alloc-failed"),
        # the new engine (v0.11+) lays out weights, cache and graph together: which one did not fit is not said
        msg(r"insufficient memory - required allocations|failed to allocate memory for model|"
            r"memory layout cannot be allocated", "oom", code="layout-exceeds-memory"),
        # the runner died, in the server's words and a client's (a paste cut at "llama runner process has te"),
        # and the server's request to it that got no answer (llm/server.go "POST predict: %v" ... EOF): why it died
        # is in the runner's own lines
        # a request answered with a server error: in Ollama a request loads its model first (Gin prints the line
        # when the request ends), so it names no phase: the load it started may be what failed
        msg(r"\[GIN\][^|]*\|\s*50[0-3]\s*\|", "error"),
        # the scheduler's verdict that the runner failed to start: loading the weights, sizing the cache or
        # reserving the graph, never serving (server/sched.go "error loading llama server", v0.12+ "Load failed")
        msg(r"error loading llama server|msg=\"?Load failed\"? model=", "wrapper", candidates=("WEIGHTS", "KV", "WARMUP")),
        # ... that gave up waiting for the load (llm/server.go WaitUntilRunning: "timed out waiting for llama runner
        # to start - progress 0.00 - <the runner's last error>" after OLLAMA_LOAD_TIMEOUT without progress, or
        # ": context canceled" when the client went away first): a load that stalled, not memory (unless the last
        # error it quotes says so, which the words for that error read)
        # the runner stopping an answer because its client went away (runner/ollamarunner and llamarunner
        # runner.go: "aborting completion request due to client closing the connection"): the client's timeout or
        # its user, the server slower than the client would wait (a 500 after exactly 10m0s is such a timeout), not
        # memory
        msg(r"\baborting completion request due to client closing the connection\b", "not_oom",
            code="client-closed-connection"),
        # (from 2026 the runner is llama.cpp's own server: "timed out waiting for llama-server to start")
        msg(r"timed out waiting for (?:llama runner|llama-server) to start(?![^\n]*(?:out of memory|cudaMalloc failed|failed to allocate|"
            r"\bOOM\b|insufficient memory))", "not_oom", code="load-timeout"),
        msg(r"llama runner process has terminated: exit status|"
            r"llama runner process no longer running|llama runner process has (?:t\w*)?\W*$|"
            # (... with the runner's last line of error as llm/status.go keeps it: the prefix it matched and what
            # follows on that line, so ggml's abort line, "ggml-cuda.cu:132: CUDA error", written after the line with
            # the reason, leaves the bare prefix: "llama runner process has terminated: CUDA error" names no cause)
            r"llama runner process has terminated: (?:CUDA|ROCm|HIP|SYCL|Vulkan|Metal) error\W*$|"
            r"(?:POST predict|do load request|completion request): .{0,200}\bEOF\b|"
            # (the client's view of the runner that died mid-answer, 2023-2024: "Error: error reading llm response:
            # unexpected EOF"; its cause is in the server's log)
            r"\berror reading llm response: (?:unexpected )?EOF\b|"
            # (... and on Windows, the socket the runner held closed under the server: "wsarecv: An existing connection
            # was forcibly closed by the remote host")
            r"\bwsarecv:? an existing connection was forcibly closed by the remote host\b", "wrapper"),
    ),
    # the Go runner (runner/ollamarunner/runner.go): reserving the worst-case compute graph at load is its warm-up
    frames={"WARMUP": rx(r"reserveWorstCaseGraph|\breserveGraph\b"),
            # its runner decodes for requests only (runner/llamarunner/runner.go processBatch, then llama/llama.go
            # Decode's "llama_decode failed with code %d"): no warm-up decode as llama-server's
            "RUNTIME": rx(r"\bprocessBatch\b|llama_decode failed with code|failed to decode batch"),
            "WEIGHTS": rx(r"ollamarunner\.\(\*Server\)\.loadModel|model\.New\("),
            # the server polling its runner while the runner loads the model, sizes its cache and reserves its
            # graph (llm/server.go WaitUntilRunning: ServerStatusLoadingModel -> "llm server loading model"):
            # some start-up step, which one not said
            "STARTUP": rx(r"status=\"?llm server loading model|"
                          # the new engine's runner taking a load request (runner/ollamarunner/runner.go): fit
                          # measures, alloc allocates weights, cache and graph together, commit reads the weights in
                          r"msg=\"?load\"? request=\"?\{Operation:")},
    milestones=(
        ("ready", rx(r"llama runner started in|llama-server started in")),
        # inference requests only: /api/show, /api/pull and the like come before any model is loaded
        # ... and the runner taking one up (runner/llamarunner/cache.go "loading cache slot")
        ("requests", rx(r"POST\s+\"/(?:api/(?:chat|generate|embed\w*)|v1/)|\"POST /v1/" + NOT_ADMIN + r"|loading cache slot")),
        # ... and a question typed at `ollama run`'s prompt, which it shows only once the model has loaded
        ("requests", CHAT_QUESTION),
    ),
    figures=(
        # the devices it found (discover, "inference compute" once per GPU): library=cpu, alone, where it found none
        fig("gpu_absent", r"msg=\"?inference compute\"? id=\S+ library=cpu\b", lambda m: True),
        fig("kv_required_bytes", r"memory\.required\.kv=\"?" + SIZE),
        fig("weights_bytes", r"memory\.weights\.total=\"?" + SIZE),
        fig("available_memory_bytes", r"memory\.available=\"?\[" + SIZE),
        fig("required_full_bytes", r"memory\.required\.full=\"?" + SIZE, mode="list"),
        fig("graph_full_bytes", r"memory\.graph\.full=\"?" + SIZE),
        fig("required_partial_bytes", r"memory\.required\.partial=\"?" + SIZE, mode="list"),
        fig("graph_partial_bytes", r"memory\.graph\.partial=\"?" + SIZE),
        fig("layers_offloaded", r"layers\.offload=(\d+)", count, mode="list"),
        fig("layers_total", r"layers\.model=(\d+)", count),
        fig("runner_size_bytes", r"runner\.size=\"?" + SIZE),
        fig("runner_vram_bytes", r"runner\.vram=\"?" + SIZE),
        fig("n_parallel", r"(?:--parallel|OLLAMA_NUM_PARALLEL[=:])\s*(\d+)", count),
        # num_batch: the runner's --batch-size (its cmd line), or the new engine's load request "BatchSize:512"; the
        # runner sets both n_batch and n_ubatch to it (llama/llama.go NewContextParams), so it is the physical batch
        # (not the request that closes a failed load, whose fields are all zero: "{Operation:close ... KvSize:0 ...}")
        fig("n_ubatch", r"--batch-size[= ](\d+)|^(?!.*\bOperation:close\b).*?\bBatchSize:(\d+)",
            lambda m: count(m, 1 if m.group(1) else 2)),
        fig("max_model_len", r"--ctx-size (\d+)", count),
        # the new engine's load request (runner/ollamarunner/runner.go `msg=load request="{Operation:alloc ...
        # Parallel:4 BatchSize:512 FlashAttention:false KvSize:131072 KvCacheType:q8_0 ...}"`): KvSize is the runner's
        # whole context (num_ctx x parallel), as --ctx-size was
        fig("max_model_len", r"^(?!.*\bOperation:close\b).*?\bKvSize:(\d+)", count),
        fig("n_parallel", r"^(?!.*\bOperation:close\b).*?\bload request=.*?\bParallel:(\d+)", count),
        fig("kv_cache_dtype", r"\bKvCacheType:(\w+)", lambda m: m.group(1)),
        # the layers asked for (server.go `msg="loading model" "model layers"=81 requested=81`, -1: as many as fit;
        # `memory layout cannot be allocated with num_gpu = 81`)
        fig("n_gpu_layers", r'"model layers"=\d+ requested=(\d+)|with num_gpu = (\d+)',
            lambda m: int(m.group(1) or m.group(2))),
        # the new engine's layout (v0.11+, ml/device.go BackendMemory.Log): what each ledger needs on each device, printed
        # after every load request, the failed one included (HumanBytes2: one decimal)
        fig("layout_weights_bytes", r'msg="model weights" device=(?!CPU)\S+ size="?' + SIZE, mode="list"),
        fig("layout_kv_bytes", r'msg="kv cache" device=(?!CPU)\S+ size="?' + SIZE, mode="list"),
        fig("layout_graph_bytes", r'msg="compute graph" device=(?!CPU)\S+ size="?' + SIZE, mode="list"),
        # ... and what stays on the CPU (all of it where no layer went to a GPU)
        fig("layout_cpu_weights_bytes", r'msg="model weights" device=CPU size="?' + SIZE),
        fig("layout_cpu_kv_bytes", r'msg="kv cache" device=CPU size="?' + SIZE),
        fig("layout_cpu_graph_bytes", r'msg="compute graph" device=CPU size="?' + SIZE),
        # each GPU's free memory as discovery found it (types.go: `msg="inference compute" id=GPU-... library=cuda ...
        # total="95.6 GiB" available="95.0 GiB"`)
        fig("gpu_available_bytes", r'msg="?inference compute"? id=\S+ library=(?!cpu\b)\S+\b[^\n]*?\bavailable="?' + SIZE,
            mode="list"),
        fig("system_memory_required_bytes", r"requires more system memory \(" + SIZE),
        fig("system_memory_available_bytes", r"than is available \(" + SIZE),
        fig("kv_cache_dtype", r"OLLAMA_KV_CACHE_TYPE[=:](\w+)", lambda m: m.group(1)),
        fig("flash_attn", r"OLLAMA_FLASH_ATTENTION[=:](\w+)", lambda m: m.group(1)),
        # (routes.go's "Listening on 127.0.0.1:11434 (version 0.5.7)", the client's "ollama version is 0.5.7": not
        # another program's "(version 0.2.27)")
        fig("ollama_version", r"Listening on [^\s\"]+ \(version (\d+\.\d+\.\d+)|ollama version (?:is )?(\d+\.\d+\.\d+)",
            lambda m: m.group(1) or m.group(2)),
        # the day of its first slog line (the release in use is no newer)
        fig("_log_date", r"^time=(20\d\d-\d\d-\d\d)T\S* level=", lambda m: m.group(1), mode="first"),
    ),
    # server/routes.go, as the client prints it ("Error: model requires more system memory ...")
    chat=CHAT_QUESTION,
    sentences=("model requires more system memory ({} {}) than is available ({} {})",),
    step_codes=(
        # the runner's worst-case compute graph (runner/ollamarunner reserveWorstCaseGraph): a compute buffer
        StepCode("WARMUP", "compute-buffer-alloc-failed", rx(r"reserve\w*graph")),
    ),
    # the runner takes no --no-context-shift from its user: the request's num_ctx and num_predict, and in 2026
    # builds its "shift" option, set it (server/sched.go resolveContextShift)
    not_oom_advice={
        "access-denied": "the system refused to run Ollama's runner (llm/server.go: \"fork/exec ...: permission "
                         "denied\", its temporary directory mounted noexec, or on Windows an antivirus or a folder's "
                         "rights): set OLLAMA_TMPDIR to a directory the server may write to and execute from, or allow "
                         "the runner; memory is not involved.",
        "load-timeout": "Ollama gave up waiting for its runner to load the model (OLLAMA_LOAD_TIMEOUT, 5 minutes by "
                        "default, with no progress; or the client closed its request first: 'context canceled'): the "
                        "load stalled reading the model (a slow or network disk, a model larger than RAM paged in "
                        "over and over) or the runner hung. Check the disk's read speed and the runner's own lines "
                        "before the timeout; raise OLLAMA_LOAD_TIMEOUT where the load is only slow.",
        "network-error": "Ollama's pull could not reach its registry or the storage it redirects to (a proxy it was "
                         "not told of, DNS, a firewall, a connection that stalls): set HTTPS_PROXY in the server's own "
                         "environment (`systemctl edit ollama`, or the container's env), not only the shell's, then "
                         "`ollama pull` again (it resumes the parts it has); memory is not involved.",
        "gpu-unsupported": "Ollama found the GPU but would not use it, so the model runs on the CPU: its ROCm build "
                           "has no kernels for this Radeon (Linux: set HSA_OVERRIDE_GFX_VERSION to the nearest type it "
                           "supports, 10.3.0 for RDNA2 gfx103x, 11.0.0 for RDNA3 gfx110x; Windows takes no override), "
                           "the GPU is older than its CUDA build, or the library could not initialize it (run with "
                           "OLLAMA_DEBUG=1 to see its discovery lines; builds since 0.12.6 can use the GPU through "
                           "Vulkan with OLLAMA_VULKAN=1); memory is not the problem.",
        "gpu-not-detected": "Ollama found no GPU it can use, so the model runs on the CPU: the driver or its "
                            "library is not visible to the server (a container started without `--gpus all` or the "
                            "NVIDIA container toolkit, a libcuda of another driver version, nouveau instead of the "
                            "NVIDIA driver, a service without access to /dev/nvidia*). Run `nvidia-smi` where the "
                            "server runs, and OLLAMA_DEBUG=1 to see its discovery lines; if the CPU is what you meant, "
                            "nothing is wrong. Memory is not the problem.",
        "k-shift-unsupported": "a request's context filled and Ollama's runner tried to shift its KV cache "
                               "(K-shift), which this model's cache cannot do: size num_ctx to hold the prompt and "
                               "the whole answer, and cap the answer with num_predict (newer Ollama also takes "
                               "\"shift\": false in a request), so a full context ends the request instead.",
    },
)



#: (first day of the release, the release before it): a log dated before a release's day ran an older Ollama
#: (the tagged commits' dates in ollama/ollama)
_RELEASES = (("2024-05-02", (0, 1, 32)), ("2024-05-28", (0, 1, 38)), ("2024-12-04", (0, 4, 99)),
             ("2025-03-11", (0, 5, 99)))


def _released_before(n: dict) -> tuple[int, int, int] | None:
    """With no version in the log, the newest release its date allows (a server never runs a release made after
    the log was written): its slog stamps (time=2024-03-02T...) or llama.cpp's log.h stamps ([1705312230])."""
    day = n.get("_log_date")
    epoch = n.get("_log_epoch")
    if not isinstance(day, str) and isinstance(epoch, int):
        day = time.strftime("%Y-%m-%d", time.gmtime(epoch))
    if not isinstance(day, str):
        return None
    return next((before for first, before in _RELEASES if day < first), None)


def flags_by_version(flags: dict, n: dict) -> dict:
    """Settings of the version the log shows (or the newest its date allows): OLLAMA_NUM_PARALLEL from 0.1.33,
    OLLAMA_FLASH_ATTENTION from 0.1.39, OLLAMA_KV_CACHE_TYPE from 0.5, OLLAMA_CONTEXT_LENGTH from 0.6 (before it,
    num_ctx only: in the request's options or a Modelfile)."""
    v = release(n.get("ollama_version")) or _released_before(n)
    if v is None:
        return flags
    if v < (0, 6, 0):
        flags["max_model_len"] = "num_ctx {n} (in the request's options or a Modelfile)"
    if v < (0, 5, 0):
        flags.pop("kv_cache_dtype", None)
    if v < (0, 1, 39):
        flags.pop("flash_attn", None)
    if v < (0, 1, 33):
        flags.pop("max_num_seqs", None)
    return flags



# --- the live server (probe): ../shared/ENGINES.md §5.1 (api/types.go ProcessModelResponse) ----------------------


def _recognise(answers: dict) -> str | None:
    j = answer_json(answers, "/api/version")
    if isinstance(j, dict) and isinstance(j.get("version"), str) and len(j) <= 3:
        return j["version"]
    return None


def _kv_view(answers: dict) -> KvView:
    """/api/ps: each loaded model's size, size_vram and (from v0.9.7) context_length. Ollama reports the model's
    whole memory, not its KV cache, so the pool's bytes come from the log or the estimate."""
    j = answer_json(answers, "/api/ps")
    models = j.get("models") if isinstance(j, dict) else None
    if not isinstance(models, list) or not models:
        return KvView(source="GET /api/ps", note="no model is loaded (/api/ps lists none)")
    m = models[0] if isinstance(models[0], dict) else {}
    figures = {k: v for k, v in (("size_bytes", as_count(m.get("size"))), ("size_vram_bytes", as_count(m.get("size_vram"))),
                                 ("context_length", as_count(m.get("context_length"))), ("model", m.get("name")))
               if v is not None}
    return KvView(figures=figures, source="GET /api/ps",
                  note="Ollama gives the model's whole size in memory, not its KV cache; its log's "
                       "`llama_kv_cache: size = ...` line gives the pool")


ENDPOINTS = Endpoints(
    identify=("/api/version", "/api/ps"), recognise=_recognise, ready="/api/version",
    kv_paths=("/api/ps",), kv_view=_kv_view,
)

#: Ollama's settings for what `estimate` says: num_ctx is each sequence's context, the runner's -c being num_ctx x
#: OLLAMA_NUM_PARALLEL (server/sched.go effectiveLlamaServerContext); OLLAMA_KV_CACHE_TYPE takes f16, q8_0 and q4_0
#: (fs/ggml/ggml.go SupportsKVCacheType; quantized types need OLLAMA_FLASH_ATTENTION=1); num_gpu is the layers on
#: the GPU and num_batch the batch (api/types.go Options)
SPELLING = Spelling(label="Ollama", context="num_ctx {n} OLLAMA_NUM_PARALLEL={c}", kv_cache="OLLAMA_KV_CACHE_TYPE={t}",
                    kv8="OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0", ubatch="num_batch {u}",
                    gpu_layers="num_gpu {k}", split="",
                    kv_types={"f16": "f16", "q8_0": "q8_0", "q4_0": "q4_0"})

ENGINE = Engine(
    endpoints=ENDPOINTS, spelling=SPELLING,
    name="ollama", adapt_flags=flags_by_version, label="Ollama", log=LOG, wraps="llamacpp",
    flags={"max_model_len": "num_ctx {n} (or OLLAMA_CONTEXT_LENGTH)", "max_num_seqs": "OLLAMA_NUM_PARALLEL={n}",
           "kv_cache_dtype": "OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0", "n_ubatch": "num_batch {n}",
           "flash_attn": "OLLAMA_FLASH_ATTENTION=1", "tensor_parallel_size":
               "another GPU (Ollama splits the layers across all it finds)",
           "quantization": "a smaller quant tag than the one in use (most default tags are already q4_K_M or q4_0: "
                           "q3_K_M, or a smaller model)", "gpu_layers": "num_gpu {n} (layers on the GPU)",
           "kv_offload": "a lower num_gpu (layers, and their KV cache, on the CPU)",
           "overhead": "OLLAMA_GPU_OVERHEAD={v} (bytes kept free on each GPU)"},
)
