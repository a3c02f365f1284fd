"""RunFacts -> a diagnosis: which phase failed (kind), the pattern (code), the deciding lines (evidence).
Pure.

The rules, in the order they are applied:
- Out of memory is claimed only on memory evidence: out-of-memory words in a failure, or the engine's
  own figures showing a shortfall. A failure whose words do not say why it failed is UNDETERMINED
  (`failure-cause-not-shown`) when its cause is cut off, and NOT_OOM only when its own words name a
  cause that is not memory.
- The phase comes from the failure's own words, then the engine's verdict a line or two later, then
  its stack frames (a start-up step anywhere in them beats a serving step, which start-up also runs),
  then the lines just before it that say a step is under way, then the milestones passed. Lines that
  say a step finished, and periodic statistics, are progress, never the phase of a later failure,
  and the phase can never go back before a milestone already passed.
- Where the evidence leaves more than one phase, the kind is UNDETERMINED (`oom-phase-not-shown`),
  with the phases it could be and what would settle it. A confident wrong kind is worse.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from .authorship import (CJK, INTRO, PROGRAM_MARKS, TITLE, brings_on_failure, narrates_failure, persons_line, program_line, prose_like, sentence_like,
                         told_in_a_sentence, user_words)
from .facts import NAMED_HIT, PROSE_HIT, RELAYED, Failure, RunFacts, positive, summed
from ..engines.interface import AFTER_MILESTONE
from ..engines.generic import CODE_ERRORS, PY_CODE_MESSAGE
from ..engines.words import LOADING_CJK, SIZE, to_bytes
from .knowledge import (CAUSE_UNKNOWN, CLIENT_CALL, COMMAND, ELISION, FRAME, PY_FRAME, SIGKILL_RX, Verdict, exception_not_memory,
                        knowledge, phase_words, without_paths)
from .lines import RAISED, STATED, STRONG_PREFIX, TB_HEADER, error_level, message, stated, stops_inside, traceback_line
from .phase import (FAILED_REQUEST, FINE_WHEN_SERVING, PROJECTOR, SECOND_MODEL, STARTUP, STEP_BEFORE, Place, during_step, frames, locate,
                    LOAD_ANNOUNCED, is_progress, step_done, step_reached)
from .named_size import weights_exceed_gpus
from .prose import OOM_ANY, denied_at, says_gone
from .quiet import (COPES, DEATH_BEGINS, bar_under_way, growth, leak, slots_lost, no_failure, pool_below_context, pressure,
                    shortfall, starved, step_under_way, tracker_noise, wished)
from .verdict import KIND_OF_PHASE, Diagnosis

#: words of memory as an amount (not a kind of it: "unknown memory type", "memory layout")
_MEMORYISH = re.compile(r"\b(?:memory(?!\s+(?:type|layout|format|access|address|order|model|mapping|alignment)\b)|"
                        # (tokens counted, "exceeds the pool's 8192 tokens"; not one token, a parser's, "unexpected token
                        # '{%' at line 3", or the sampler's, Ollama's "failed to sample token: ... logits sum to NaN")
                        r"mem|cache|kv|vram|tokens|blocks?|"
                        r"alloc\w*|buffers?|capacity|gpu_memory\w*)\b",
                        re.I)
_CUT_END = re.compile(r"[.)\]'\"!>:]\s*$")
#: an error's words of a thing wrong in kind (a shape, a type, a spec, a layout it does not support or cannot convert),
#: and of an amount (a size, a shortfall, what is free or allocated): the first without the second is no memory cause
_OF_KIND = re.compile(r"\b(?:unsupported|not supported|shapes?|specs?|layouts?|dtypes?|types?|convert\w*|invalid|"
                      r"mismatch\w*|incompatible|not implemented|"
                      # (two counts that do not agree: "Attempted to assign 5 x 256 = 1280 multimodal tokens to 1024
                      # placeholders", "the number of tokens does not match")
                      r"placeholders?|(?:does|do) not match|doesn't match|"
                      # ("Expected there to be 1 prompt updates corresponding to 1 audio items, but instead found 0")
                      r"corresponding to|but (?:instead )?found|"
                      # (a feature only some settings or builds have: "KV-cache-less is only supported for context",
                      # TensorRT-LLM's "TrtGptModelInflightBatching requires GPT attention plugin with packed input and
                      # paged KV cache", an engine built without it)
                      r"only supported|requires? (?:an? |the )?(?:[\w-]+ ){0,4}?(?:plugin|build flag|build option)|"
                      # (a state the step needs first, not reached: SGLang's "NVFP4 KV cache global scales must be
                      # calibrated before CUDA graph capture", "the KV cache has not been initialized", "cache must be
                      # set before ...")
                      r"must (?:first )?be (?:calibrated|initiali[sz]ed|set|provided|specified|called|registered|enabled|"
                      r"disabled|created)|(?:has|have|was|were) not (?:yet )?been (?:calibrated|initiali[sz]ed|set|"
                      r"called|registered|created)|not (?:yet )?(?:calibrated|initiali[sz]ed))\b",
                      re.I)
_OF_AMOUNT = re.compile(r"\b(?:enough|insufficient|exceed\w*|larger|smaller|bigger|too (?:small|large|big|many|few|"
                        r"long)|out of|available|free|allocat\w*|capacity|no (?:space|room)|full|needs?|needed|required|"
                        r"bytes|[KMGT]i?B)\b|\d(?:\.\d+)?\s*[KMGT]i?B\b", re.I)



def detect_engine(hits: dict[str, int]) -> str:
    """The engine with the most fingerprint lines; an engine that wraps another (Ollama embeds llama.cpp's
    lines, Aphrodite is a vLLM fork) wins over the one it wraps whenever it is seen at all. Hits from a user's words
    (marked PROSE_HIT) count only where no program's line names an engine."""
    k = knowledge()
    found = {n: v for n, v in hits.items() if v and not n.startswith(PROSE_HIT)}
    said = {n[len(PROSE_HIT):]: v for n, v in hits.items() if v and n.startswith(PROSE_HIT)
            and not n.startswith(NAMED_HIT)}
    if not found:  # only the user's words name an engine ("I run it in Ollama"): theirs, then
        found = dict(said)
    if not found:
        return "unknown"
    # a wrapper the report is about (its title, or named with its version: "KoboldCpp 1.93 does not ...") over the
    # lines of the engine it wraps, where no line of its own is pasted: llama.cpp's lines under KoboldCpp, Ollama, LM
    # Studio are theirs (not where the user names the wrapped engine too: "it works in Ollama, but llama-server fails")
    theirs = {n[len(NAMED_HIT):]: v for n, v in hits.items() if v and n.startswith(NAMED_HIT)}
    for n, v in theirs.items():
        wrapped = k.engine[n].wraps
        if n not in found and wrapped in found and wrapped not in said:
            found[n] = v
    # (over the engine it wraps only: Ollama over llama.cpp's lines, never over a vLLM log)
    wrapped = {k.engine[n].wraps for n in found if k.engine[n].wraps}
    pool = {n: v for n, v in found.items() if n not in wrapped} or found
    # an engine whose code imports another's modules (SGLang imports vLLM's) wins over it: the other's frames in its
    # traceback are libraries it called
    imported = {i for n in pool for i in k.engine[n].imports}
    pool = {n: v for n, v in pool.items() if n not in imported} or pool
    return max(pool, key=lambda n: (pool[n], n))


#: which code wins where a failure's steps name several, per kind: the most specific step first (TGI's warm-up
#: prefill over the graphs it captures next; a graph capture over the `_dummy_run` it calls, which is also the
#: profiling pass's; a compute buffer reserved for a graph over the graph)
CODE_ORDER = {
    "WARMUP": ("prefill-tokens-exceed-memory", "cuda-graph-capture-oom", "multimodal-encoder-oom", "sampler-warmup-oom",
               "profile-run-oom", "compute-buffer-alloc-failed"),
    "RUNTIME": ("training-step-oom", "logprobs-oom", "multimodal-encoder-oom", "lora-load-oom", "prefill-oom"),
    "KV_CAPACITY": ("kv-cache-too-small",),
}
#: the code of a kind whose steps name none of the above
_PLAIN_CODE = {"WEIGHTS": "weights-alloc-failed", "KV_CAPACITY": "kv-cache-alloc-failed", "WARMUP": "warmup-oom",
               "RUNTIME": "serving-oom"}
#: any graph left once no compute buffer is named (a graph being captured, in words no engine module spells)
_ANY_GRAPH = re.compile(r"graph")


def _code(kind: str, f: Failure, where: str) -> str:
    """The failure's code within `kind`: its own words' code, else the first code in `CODE_ORDER` whose step (any
    engine's `StepCode`) `where` names, else the kind's plain code."""
    if f.code:
        return f.code
    w = where.lower()
    named = {s.code for s in knowledge().step_codes if s.kind == kind and s.pattern.search(w)}
    code = next((c for c in CODE_ORDER.get(kind, ()) if c in named), None)
    if code is None and kind == "WARMUP" and _ANY_GRAPH.search(w):
        code = "cuda-graph-capture-oom"
    return code or _PLAIN_CODE[kind]


def _checks_pool(f: Failure) -> bool:
    """Whether `f`'s frames show an engine's check of its KV pool's size (a check raises: it is the step)."""
    checks = [s.pattern for s in knowledge().step_codes if s.code == "kv-cache-too-small"]
    return any(p.search(t.lower()) for _, _, t in frames(f) for p in checks)


def _loader_proper(f: Failure) -> bool:
    """Whether `f`'s frames show a model loader proper at work (any engine's `LogWords.loader`, over its frames in
    line order joined by newlines: a frame and the code line under it may match together)."""
    text = "\n".join(t for _, _, t in sorted((ln, order, t) for order, ln, t in frames(f)))
    return any(p.search(text) for p in knowledge().loaders)


_NOT_OOM = {
    "server-still-loading": "the request reached the server while it was still loading the model (a 503, `Loading "
                            "model`): wait until its health check answers 200 (`GET /health`) before sending; if the "
                            "load itself failed, its own log says why.",
    "requests-answered-with-client-error": "the server was up and answered with a client's error (the status in its "
                                           "access line: 404 a path or model it does not have, 401/403 a key, 400 a "
                                           "request it refused): fix what is sent, or the proxy in between; not "
                                           "memory.",
    "error-not-memory": "the error names its cause, and it is not memory (read its message: a setting, the model or "
                        "its template, the install, the cluster's resources); fix that rather than memory settings.",
    "ray-actor-released": "Ray ended the worker's actor because nothing referred to it any more (its handle went out "
                          "of scope, or the deployment or driver that owned it went away): a lifecycle fault, not "
                          "memory; keep a reference to the engine for as long as it serves.",
    "library-load-failed": "a library the program needs could not be loaded (a shared library or DLL missing or of "
                           "another version: the CUDA or ROCm runtime, the engine's back end, a driver's).",
    "access-denied": "the system refused the process access (Windows' STATUS_ACCESS_DENIED as its exit status: a file, "
                     "a folder or the runner's executable it may not open, often an antivirus or a protected folder).",
    "load-timeout": "the server gave up waiting for the model to load (it stalled, or the client went away first).",
    "job-time-limit": "the batch scheduler ended the job at its wall-clock limit (Slurm's --time, PBS's walltime, "
                      "LSF's run limit) before the server was ready: the start-up took longer than the job was given "
                      "(a slow download, load or compile, or a hang at the last step the log shows); ask for more "
                      "time, or find what that step waited on.",
    "job-cancelled": "the batch scheduler cancelled the job (scancel, or a preemption by another job) before the server "
                     "was ready: it did not come up, and not for memory (a job over its memory limit ends "
                     "OUT_OF_MEMORY, with an oom_kill event); if it was cancelled because the start-up seemed stuck, "
                     "the last step the log shows is where it waited.",
    "node-failure": "the batch scheduler ended the job because its node failed (the machine or its daemon): the "
                    "scheduler's own log (slurmctld's) says why; not memory.",
    "health-check-failed": "a supervisor (Kubernetes, Ray Serve, KServe) gave up on a server that did not answer its "
                           "health check: it hung, was too busy, or was still loading.",
    "illegal-memory-access": "a kernel touched memory it does not own (a bug in a kernel, the engine or the driver).",
    "kernel-panic": "the operating system's kernel stopped the machine (a kernel panic, most often in the GPU driver): "
                    "a driver's or the system's fault, not memory used up; the panic report's driver and the OS "
                    "version are what to report.",
    "memory-accounting-wrapped": "a GPU-sharing layer (HAMi-core's limit in a container) counted more memory in use than "
                                 "can exist, a counter that went below zero and wrapped: its accounting is wrong, "
                                 "nothing ran out; update the layer, or run without its memory limit to confirm.",
    "nccl-error": "the GPUs failed to talk to each other (NCCL).",
    "device-side-assert": "a kernel assertion failed (bad token ids or shapes).",
    "heap-corruption": "the C library found its heap or stack corrupted (a double free or a write past a buffer): a "
                       "bug in the engine or a native library, not memory running out.",
    "cuda-invalid-argument": "a CUDA call got an invalid argument.",
    "gpu-ecc-error": "a GPU counts uncorrectable ECC errors in its memory: faulty or failing hardware, which hangs or "
                     "crashes the processes on it. Reset the GPU (or reboot), check `nvidia-smi -q -d ECC` and the "
                     "kernel log for Xid 48/63/64/94/95, and have the card replaced if the count comes back; memory "
                     "settings will not help.",
    "npu-invalid-argument": "an Ascend (CANN) runtime call got an invalid argument (EE1001), such as a memory copy "
                            "between locations it does not allow: a bug in the caller or a version mismatch between "
                            "vllm-ascend, torch_npu and CANN.",
    "kernel-compile-error": "a kernel could not be compiled (Triton's or the backend's compiler failed on this shape). "
                            "A different token budget (--max-num-batched-tokens) changes the "
                            "shapes compiled; upgrading the compiler stack, or the engine's eager mode, avoids it.",
    "cuda-kernel-error": "a CUDA kernel or library call failed.",
    "fraction-above-free": "the configured fraction of the GPU is more than it had free at start, and what was in use "
                           "then is no more than a process's own CUDA context and communication buffers take, so no "
                           "other process need be there: a fraction this near 1 is above what any GPU has free. Nothing "
                           "ran out; the engine refused to start.",
    "gpu-shared-with-other-process": "at start the GPU had less free memory than the configured fraction asks "
                                     "for: another process holds part of it. Nothing ran out; the engine refused to "
                                     "start.",
    "free-memory-unchanged": "vLLM's profiling check found the device's free memory the same before and after its "
                             "profile run, which allocated memory: this platform's memory query does not see the "
                             "engine's own allocations (Intel XPU among them), or the driver reports free memory "
                             "wrongly; no other process and no memory shortage is shown. Update the driver or the "
                             "platform's vLLM build; memory settings do not fix it.",
    "signal-stack-too-small": "the process could not set up its alternate signal stack (sigaltstack's ENOMEM, raised "
                              "by Python's faulthandler.enable()): the stack is smaller than this CPU's signal frame "
                              "needs (Linux 5.14+ checks it on CPUs with AMX), which a Python older than the fix of "
                              "bpo-46968 (3.11, and its 2022 backports) gets wrong. Use a newer Python or image.",
    "remote-task-timeout": "a remote task (a Ray actor's call: a rollout's generation, a worker's step) raised a "
                           "time-out: it ran past its limit, with very long generations or a worker stuck in a "
                           "collective; memory that runs out raises its own error. Raise the call's timeout, cap the "
                           "generation length, or find the worker that waits (py-spy dump).",
    "worker-rpc-timeout": "the engine waited on its workers past its timeout (VLLM_RPC_TIMEOUT): a worker alive and "
                          "stuck, in a collective that never completes or a kernel that does not return. A worker that "
                          "ran out of memory raises and reports it, and one that died is reported as died.",
    "gpu-driver-error": "a GPU API call failed for another reason than memory (a Vulkan call's ErrorUnknown or "
                        "ErrorInitializationFailed, a shader the driver could not build): the driver or the back end's "
                        "build. Update the driver, or use another back end (CPU, another GPU API) to tell them apart.",
    "invalid-device-ordinal": "the server asked for a GPU this process cannot see: more ranks than visible GPUs "
                              "(tensor x pipeline parallel x nodes), or CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES / "
                              "a container's --gpus that shows fewer than it wants.",
    "nan-in-logits": "the model's numbers (its logits, or a layer's output) went NaN or inf, not its memory: most often a "
                     "model trained in bfloat16 run in float16, which overflows (run it in bfloat16 or float32), or a "
                     "quantised or attention kernel's fault on this GPU (another kernel, an unquantised model or a "
                     "newer release tells which).",
    "max-model-len-exceeds-model": "the configured context is longer than the model allows.",
    "static-storage-overflow": "a buffer sized when the model was compiled (for its context window) overflowed: "
                               "an input longer than the compiled context, however much GPU memory is free.",
    "kernel-shared-memory": "a kernel asked for more on-chip shared memory than this GPU has (a kernel limit, "
                            "not GPU memory).",
    "cuda-driver-error": "the CUDA driver and runtime do not fit together (or no GPU is visible).",
    "cuda-no-kernel-image": "this build has no GPU code for this GPU's architecture (compute capability): a build "
                            "or wheel made for other GPUs.",
    "cuda-error": "a CUDA (or HIP) call failed with an error that is not out of memory.",
    "device-resource-exhausted": "the accelerator ran out of a hardware resource that is not memory (Ascend's "
                                 "stream submission queues, SqCq): too many streams or graphs at once; fewer captured "
                                 "graph sizes or fewer concurrent streams, not memory settings.",
    "gpu-device-lost": "the GPU stopped answering or reported a fault (a device lost to a hang, a reset or a "
                       "driver fault; an NVIDIA Xid other than 45): a kernel, driver, power or hardware fault, not "
                       "memory running out; read the kernel log (`dmesg`, `journalctl -k`) around it, and try another "
                       "driver or build where one worked before.",
    "operator-not-available": "PyTorch has no kernel of this operator for this device: the package that provides it "
                              "(a kernel library such as sgl-kernel, vLLM's _C, torchvision, flash-attn) was built for "
                              "another PyTorch, CUDA version or GPU, or not installed whole; install the build that "
                              "matches the PyTorch in use.",
    "device-task-timeout": "a task on the accelerator did not finish in time (Ascend's stream-synchronize "
                           "timeout): a hang, a kernel's fault or a collective waiting on another "
                           "device, not memory running out.",
    "metal-command-buffer-error": "the Metal GPU stopped a command buffer for another reason than memory (a timeout "
                                  "of a long kernel, a hang, an address fault, or work discarded when the GPU was "
                                  "reset for another program).",
    "sycl-runtime-error": "a SYCL / Level Zero call failed with a Unified Runtime error that is not out of memory "
                          "(UR_RESULT_ERROR_OUT_OF_RESOURCES and the like: a driver or kernel resource, not device "
                          "memory).",
    "device-memory-query-failed": "the back end could not read the device's memory size or its largest buffer (its "
                                  "driver or runtime did not answer the query, or answered 0): not memory running out. A driver or runtime that does not "
                                  "match the build is the usual cause: update or match them, or use the build before "
                                  "the change that started it.",
    "watchdog-timeout": "the engine's watchdog found a step stuck past its timeout and killed the server itself (a "
                        "hang: a kernel, a collective waiting on another rank, a deadlock), not memory running out; "
                        "the kill after it is the engine's own. Find the step that hung (py-spy dump on the stuck "
                        "process, NCCL_DEBUG=INFO), and raise --watchdog-timeout only where a step is slow, not stuck.",
    "opencl-error": "an OpenCL call failed with a status that is not memory (CL_INVALID_VALUE and the like): a bug "
                    "in the OpenCL back end or the driver, often at a size it does not handle (a context past 2048 "
                    "tokens in old CLBlast builds); update the engine or the driver, or use another back end (CUDA, "
                    "Vulkan).",
    "setting-rejected": "the engine's own check refused a setting's value before it allocated anything (a fraction "
                        "given as a percentage, 90 for 0.9; a fraction of 1 or more; a value of the wrong type): give "
                        "the setting the error names a value in its range.",
    "client-closed-connection": "the client closed the connection before the answer was done (its own timeout, or its "
                                "user stopping it): the server was slower than the client would wait (generation on "
                                "the CPU, a long prompt, requests queued), not memory; raise the client's timeout, or "
                                "make answers faster (a smaller model, more layers on the GPU, fewer requests at once).",
    "batch-invalid": "the engine's own check refused the batch it was given before running it (token ids outside "
                     "the vocabulary, a sequence id past the slots, positions that do not follow those in the KV "
                     "cache): the program's input or a bug in how it builds batches (speculative decoding, a "
                     "client's token ids), not memory.",
    "decode-on-encoder-model": "the model is encoder-only (an embedding model: BERT, bge-m3, nomic-embed): the engine "
                               "will not decode with it and encodes instead; where the request was still answered "
                               "(200) nothing failed. Send it embedding requests, not completions, and keep "
                               "generation on a decoder model: not memory.",
    "bad-argument": "the command line has an option or a value the program does not accept (a misspelt flag, a flag "
                    "of another version, a subcommand where options go): nothing ran. Fix the command line; `--help` "
                    "lists what this version takes.",
    "malformed-json": "a program could not read JSON it was given (Go's encoding/json: \"invalid character '}' after "
                      "top-level value\", \"unexpected end of JSON input\", \"cannot unmarshal string into Go struct "
                      "field\"): a gateway or client that reads one streaming format where the server sends another, "
                      "or a request body of the wrong shape. Match the API each side speaks (an OpenAI-compatible "
                      "path, stream on or off); not memory.",
    "tool-call-parse-error": "the server could not read the model's answer as a tool call (the parser chosen with "
                             "--tool-call-parser does not fit this model's format, or the model wrote malformed "
                             "JSON): that request's answer, not memory; use the parser made for this model's chat "
                             "template.",
    "kernel-no-valid-tactic": "no configuration of this kernel ran on this GPU (TensorRT-LLM's GEMM profiler found "
                              "no valid tactic): a quantization mode or kernel this GPU or build does not support, or "
                              "an engine built for another GPU; rebuild the engine on this GPU with this TensorRT-LLM, "
                              "or choose another quantization. Not memory.",
    "allocator-cuda-error": "vLLM's sleep-mode allocator (cumem_allocator.cpp) had a CUDA call fail for a cause other "
                            "than memory (invalid argument), and PyTorch then reported the allocation that returned "
                            "nothing as out of memory, with the GPU's memory free: not memory. Update vLLM, or run "
                            "without sleep mode (enable_sleep_mode off; in RL trainers, a server mode instead of "
                            "colocating) to confirm.",
    "command-not-found": "the shell (or the container's runtime, or the service manager) could not find the program "
                         "the command names: nothing started. Install it, activate the environment it was installed "
                         "into, or give its full path (`command -v NAME` on Linux and macOS, `where NAME` on "
                         "Windows, says which one the shell finds).",
    "lora-rank-over-cap": "the LoRA adapter's rank is above the cap the adapter slots were sized for: raise "
                          "--max-lora-rank to the adapter's rank (the slots grow with it) or use an adapter of a lower "
                          "rank. Not memory.",
    "kv-transfer-failed": "a request's KV cache could not be moved between the prefill and the decode instances "
                          "(the transfer engine, Mooncake or NIXL, lost its connection, or the other instance died): "
                          "not memory; read the other instance's log and the transfer engine's, and check the network "
                          "between them.",
    "kernel-check-failed": "a kernel library's own check on this batch's plan failed (FlashInfer's indices or shapes "
                           "it does not accept): a bug or an input it does not support, not memory; update the "
                           "library or the engine, or choose another attention back end, and report it with the "
                           "batch that triggers it.",
    "fixed-buffer-too-small": "the data of this step is larger than a buffer the engine sized in advance from its "
                              "settings (the batch size, the number of sequences, the context): not the GPU out of "
                              "memory. Two settings disagree (CUDA graph batch sizes larger than the maximum batch "
                              "size) or it is a bug: make the sizes agree, or report it with both numbers.",
    "workspace-buffer-too-small": "a fixed-size attention workspace (FlashInfer's) is too small for this batch's "
                                  "temporaries, not the GPU out of memory: raise it (vLLM "
                                  "VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE, SGLang --flashinfer-workspace-size), take "
                                  "fewer tokens per step (--max-num-batched-tokens) or another attention backend",
    "kv-cache-type-unsupported": "the KV cache type asked for (-ctk/-ctv) does not work with this model or these "
                                 "settings (its block size does not divide the head size, or a quantized V cache "
                                 "without flash attention): choose another cache type or turn flash attention on",
    "metal-resource-limit": "the process holds more Metal buffers than the GPU allows (a count, about 499,000, not "
                            "bytes): MLX's buffer cache keeps freed buffers, and a long context holds many; cap the "
                            "cache (mx.set_cache_limit, or the server's own cache-limit setting) or clear it between "
                            "requests (mx.clear_cache), and keep prompts shorter.",
    "metal-api-assertion": "Metal's API validation failed an assertion (a command buffer or encoder used out of "
                           "order, or after it was committed): a bug in the engine or its Metal backend, often a race "
                           "between requests or cache options.",
    "kv-accounting-error": "the engine's own count of KV cache slots is off (slots freed twice, or free and cached "
                           "slots that do not add up to the pool): a bug in its bookkeeping, not memory running out; "
                           "report it with the settings in use (page size, chunked prefill, radix or prefix cache, "
                           "overlap scheduling).",
    "disk-full": "the disk is full (ENOSPC): a download, a compile cache or a checkpoint could not be written; free "
                 "disk space or point the cache elsewhere (HF_HOME, VLLM_CACHE_ROOT).",
    "stack-overflow": "a thread's stack overflowed (deep recursion or a large local buffer): a bug in the engine or a "
                      "build, not memory running out.",
    "ggml-assert": "an assertion in ggml failed (a shape, type or setting it does not support): a bug or an "
                   "unsupported model or option.",
    "model-file-error": "the model file could not be opened or read (a wrong path, a partial download, a format "
                        "this build does not know).",
    "model-load-error": "the loader refused the model for the cause its error names (a draft head loaded alone, a "
                        "file or a split it cannot read, a setting the model does not take): fix the model or the "
                        "command, not memory.",
    "communication-error": "the processes failed to talk to each other (gloo, TCP, NCCL set-up, NIXL's KV cache "
                           "transfer between servers, an RDMA card registering a GPU buffer through UCX).",
    "crash-access-violation": "a crash by a bad memory access (a bug), not memory running out.",
    "capability-unsupported": "the request asked the model for what it cannot do (embeddings from a chat model, tools "
                              "or thinking from a model without them), and the server refused it: not memory; use a "
                              "model that supports it, or leave the option out.",
    "graph-capture-illegal-op": "an operation CUDA forbids while a stream is captured into a graph (an allocation or a "
                                "synchronization during the capture, `cudaErrorStreamCaptureUnsupported`) ran in the "
                                "engine's capture: a bug in its graph path, not memory running out; the allocator's "
                                "failures after it follow from the broken capture. Run without CUDA graphs to confirm "
                                "(--enforce-eager, --disable-cuda-graph).",
    "guardrail-estimate-invalid": "LM Studio's load guardrail could not size this model (its estimate is NaN: an "
                                  "architecture or file its estimator does not know) and refused it; nothing was "
                                  "allocated. Turn the guardrail off (Settings, model loading guardrails) or update LM "
                                  "Studio; memory settings will not change a NaN.",
    "illegal-instruction": "the CPU met an instruction it does not have (SIGILL): a build for AVX2 or AVX-512 run on a "
                           "CPU, or a virtual machine, that lacks them; use a build for this CPU (or pass the CPU's "
                           "flags through to the VM).",
    "compiler-error": "torch.compile's compiler (Inductor, a graph pass, dynamo's backend) failed on this model or GPU: "
                      "a bug or an unsupported combination; running the model without torch.compile avoids it, at some "
                      "speed.",
    "code-error": "the engine's code failed on a path this model or these settings do not have (a method or attribute "
                  "missing, a path not implemented, a Python error such as NotImplementedError, AttributeError or "
                  "KeyError): a bug or an unsupported combination; the error named says which.",
    "gpu-unsupported": "this GPU lacks a data type or kernel the model or settings need (bfloat16 or fp8 below their "
                       "compute capability, a kernel built for newer GPUs): use a type it has (--dtype float16, "
                       "another quantization) or a newer GPU.",
    "engine-bug": "the program says the state it found is a bug of its own (an entry, an index or a state it did not "
                  "expect), not memory running out: upgrade, or report it with the request and settings that set it "
                  "off.",
    "allocation-size-overflow": "the size asked for is more than any machine has (a petabyte or more): a size the "
                                "code computed wrong (an overflow, a negative count read as unsigned), a bug to "
                                "report with the settings and the input that set it off (a cache setting such as "
                                "prefix caching, a very long input); no memory setting makes it fit.",
    "assertion-failed": "an assertion in the engine's code failed, on a condition that is not about memory (a GPU, "
                        "model or setting it does not support, or a bug): read its condition; another attention back "
                        "end, running without CUDA graphs (eager mode) or a newer release may avoid it.",
    "pod-unschedulable": "the Kubernetes scheduler found no node with the pod's requests free (its GPUs, its host "
                         "memory request), so the pod never started and nothing ran out of memory: free GPUs (scale "
                         "down another deployment), lower the pod's requests to what a node has, or add a node; "
                         "`kubectl describe nodes` shows what each has allocatable and allocated.",
    "kernel-build-failed": "a kernel compiled at start-up (FlashInfer's or PyTorch's JIT: ninja, nvcc; ggml's Metal "
                           "shader library) did not build: a toolchain, driver, CUDA version or kernel source problem "
                           "(a GPU newer than the build knows), not memory; read the compiler's first error above, or "
                           "use a prebuilt kernel package (flashinfer-jit-cache, a wheel for this CUDA) or a build "
                           "that supports this GPU.",
    "read-into-buffer-failed": "a read of the model file into its buffer failed with EFAULT ('Bad address'): the "
                               "kernel could not write the target, often a buffer a GPU driver mapped for the "
                               "weights; a driver or runtime bug (an older runtime, another driver, or loading "
                               "without direct reads such as mmap on, may avoid it), not memory running out.",
    "warmup-request-proxied": "the server's warm-up request to its own port was answered by a web page, an HTTP "
                              "proxy's: the environment's http_proxy took a request to localhost. Not memory; set "
                              "NO_PROXY=localhost,127.0.0.1 (and no_proxy) for the server, or unset the proxy.",
    "request-rejected": "the server refused a request's body by its own check of its fields (pydantic's \"N "
                        "validation errors for Message\"): the request's shape (a field a client sends that this "
                        "server does not take, a tool call's format), not memory; the fields it names say which.",
    "download-refused": "the model hub refused the download (401 or 403: a gated or private model, which needs its "
                        "licence accepted on the hub and a token, HF_TOKEN; 404: a wrong repository or file name): not "
                        "memory. Set the token where the server runs, or download the model and pass its local path.",
    "tunnel-failed": "the tunnel started beside the server to expose it (ngrok, cloudflared) was refused by its service "
                     "(an authtoken that is missing, a placeholder or revoked): not memory, and not the server. Set "
                     "the tunnel's token (`ngrok config add-authtoken ...`), or reach the server without the tunnel.",
    "network-error": "a download or a model hub's API could not be reached (a name that did not resolve, a network "
                     "that is down, a proxy or TLS certificate the client refused): not memory; check the network, "
                     "the proxy settings (HTTPS_PROXY) and the certificate store, or download the model first and "
                     "pass its local path (HF_HUB_OFFLINE=1).",
    "backend-op-unsupported": "a ggml back end was given an operation it cannot run (a tensor placed on a back end "
                              "that lacks the op, or an op this build of the back end does not have): not memory; "
                              "update the build, or keep that tensor on a back end that runs it (drop the tensor "
                              "override, -ot, that put it there).",
    "shm-exhausted": "the shared-memory file system /dev/shm is full (a container's default is 64 MiB): NCCL's "
                     "shared-memory transport or PyTorch's worker processes could not make their buffers there; host "
                     "shared memory, not the GPU's.",
    "swap-space-too-large": "vLLM refused its --swap-space: the CPU swap space asked for (per GPU) is over 70% of the "
                            "machine's RAM (its start-up check); nothing was allocated and the GPU is not the "
                            "problem. Lower --swap-space (0 is fine for most serving: it only holds preempted "
                            "sequences).",
    "binary-wrong-architecture": "the program (or a runner it starts) was built for another CPU architecture (an "
                                 "arm64 build on x86-64 or the reverse, Apple Silicon binaries on an Intel Mac, a "
                                 "container image for another platform): not memory; install the build for this "
                                 "machine.",
    "engine-plan-incompatible": "TensorRT refused the engine file: it was built by another TensorRT version or for "
                                "another GPU, so it cannot be loaded here: not memory; rebuild the engine with the "
                                "TensorRT (trtllm-build) of this container, on this GPU model.",
    "model-unsupported": "this engine (this version of it) has no implementation of the model's architecture: not "
                         "memory; upgrade the engine (or transformers) to a version that supports the model, or "
                         "serve it with an engine that does.",
    "io-error": "reading a file failed at the disk or file system (EIO: a failing disk, a network or container "
                "mount that dropped): not memory; check the disk (dmesg, smartctl) or copy the model to local storage.",
    "shape-mismatch": "a kernel's check on tensor shapes failed (a shape it does not handle: a model, a batch size or "
                      "a mode its kernels do not support, often only in CUDA-graph capture or with one back end): "
                      "not memory; try without the option that brings in that kernel (for example CUDA graphs, or "
                      "another attention back end) and report it to the engine.",
    "blas-bad-argument": "a BLAS library (Intel MKL, OpenBLAS, cuBLAS) refused a call's arguments (a matrix size or "
                         "stride it does not take): a bug of the build or its kernels, not memory; try the engine's "
                         "image or build made for this CPU or GPU, and report it to the engine.",
    "dtype-unsupported": "the back end has no kernels for the data type asked on this device (float16 on a CPU back "
                         "end, for one): not memory; ask for a data type it supports (the engine's --dtype, float32 "
                         "on a CPU) or use its build for a GPU.",
    "npu-operator-setup-failed": "an Ascend operator refused its inputs when it was set up (a data type or shape it "
                                 "does not take on this NPU, such as an fp8 KV cache on a 310P): not memory; drop the "
                                 "option that brings it in (--kv-cache-dtype, a quantization) or use versions of "
                                 "vllm-ascend, torch_npu and CANN that support it.",
    "kernel-config-unsupported": "the attention kernel has no build for this model's shape (its head size, group "
                                 "size or page size): not memory; choose another attention back end or a build that "
                                 "supports it.",
    "floating-point-exception": "an arithmetic fault (SIGFPE: an integer division by zero, often a kernel's launch "
                                "arithmetic at a size it does not handle, such as a prompt past the chunk or batch "
                                "size): a bug, not memory running out; note the size it starts at and report it to "
                                "the engine's project, or update it.",
    "ggml-context-pool-too-small": "ggml's own fixed metadata pool (not GPU memory) is too small for this batch: "
                                   "a smaller batch or a newer build.",
}

#: a person's words of a leak ("Metal buffer-handle leak", "leaks buffers"), not denied ("no leak", "not a leak")
_LEAK_TOLD = re.compile(r"(?<!\bno )(?<!\bnot a )(?<!\bnot )\bleak(?:s|ing|ed|age)?\b", re.I)
#: failures of a count of things the process holds, not of bytes (Metal's buffer count): what a leak of them ends in
_COUNT_CODES = ("metal-resource-limit",)


def _count_leak_told(run: RunFacts, f: Failure) -> tuple[int, str] | None:
    """The line of a person's words (the title, the report's sentences near the failure) that tell of a leak, where
    failure `f` is a count of held things reached (`_COUNT_CODES`): the count grew as the server worked, a leak of
    them. None where no such words are there."""
    if f.code not in _COUNT_CODES:
        return None
    near = [(f.line_no, f.text), *([run.heading] if run.heading else []), *f.before[-20:], *f.after[:20]]
    return next(((ln, t) for ln, t in near if not program_line(t) and _LEAK_TOLD.search(t)), None)


#: errors that name no memory but that a full device gives too: code -> (what would settle it, the message, and where
#: only the engines that list it in `LogWords.maybe_memory` know it so, the plain code it is elsewhere)
_MAYBE_MEMORY = {
    "rank-failed-loading": (
        "why the other ranks did not finish: their own lines (the failing rank's prefix, TP1's), or the kernel's log "
        "(dmesg: an OOM kill of a scheduler process)",
        "A rank finished loading its weights and waited for the others, which did not finish (SGLang's barrier after "
        "load_model): another rank failed while it loaded its weights, out of GPU or host memory, or a slow node. The "
        "failing rank's own lines, or dmesg for the OOM killer, tell which.", None),
    "cuda-module-load-failed": (
        "whether the GPU's memory was full when the module loaded",
        "CUDA could not load a kernel's module (cudaErrorSharedObjectInitFailed). With lazy module loading "
        "(CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2) a module is loaded when its kernel first runs and "
        "needs device memory then, so a GPU that is full fails this way instead of with 'out of memory'; a broken or "
        "mismatched build fails this way too. Run once with CUDA_MODULE_LOADING=EAGER: a memory shortfall then shows "
        "as an out-of-memory at start, and anything else stays this error.", None),
    "cublas-not-initialized": (
        "whether the GPU had memory free when cuBLAS made its handle",
        "cuBLAS could not make its handle (CUBLAS_STATUS_NOT_INITIALIZED from cublasCreate). Its workspace is device "
        "memory, so a GPU already full when the first matrix product runs gives this error instead of 'out of "
        "memory'; a broken or mismatched CUDA install gives it too. Watch nvidia-smi as it fails, or run once with a "
        "smaller model or context: if the error goes away, memory was the cause.", None),
    "sycl-out-of-resources": (
        "which resource ran out: the device's memory (xpu-smi, or the same run with a smaller batch or context) or "
        "another of the driver's",
        "Level Zero returned UR_RESULT_ERROR_OUT_OF_RESOURCES: a resource of the driver ran out, and on Intel GPUs "
        "under vLLM or IPEX that is most often the device's memory (a larger batch fails, a smaller one runs), but it "
        "is also a driver's other limits. The same run with a smaller batch or context tells them apart.",
        "sycl-runtime-error"),
    "sycl-unknown-error": (
        "whether the buffers fit the device: the model, KV and compute buffers the log shows against the device's "
        "memory (sycl-ls, xpu-smi), or the same run with a smaller context",
        "The SYCL runtime returned an error it has no name for (-999, 'Unknown PI error', UR_RESULT_ERROR_UNKNOWN): "
        "Level Zero's catch-all. On Intel GPUs an allocation past the device's memory, or past its 4 GiB limit for one "
        "allocation, ends this way as well as a lost device or a driver's fault. Add up the buffers the log shows "
        "against the device's memory, or run once with a smaller context (-c) or fewer layers on the GPU (-ngl): if "
        "the error goes away, memory was the cause.", None),
    "bus-error": (
        "which mapped memory the process could not have: /dev/shm (df -h /dev/shm inside the container), the model "
        "file (changed or cut short while mapped), or device memory mapped into the process",
        "The process died of a bus error (SIGBUS): a page of memory it had mapped could not be had. In a container "
        "that is most often /dev/shm full (docker's default is 64 MiB; PyTorch's and NCCL's shared memory live there: "
        "--shm-size 1g or --ipc=host, or a memory-backed volume at /dev/shm); a model file cut short or changed while "
        "mapped does it too; and where the GPU's memory is mapped into the process (an integrated GPU, SYCL or Metal "
        "unified memory), a device that ran out can end this way: then fewer layers on the GPU or a smaller context "
        "avoid it.", None),
}


def _not_oom_advice(code: str, engine: str) -> str:
    """What to change for not-memory failure `code`: in the engine's own settings where its module says it
    (`LogWords.not_oom_advice`), else the engine it wraps, else the words every engine shares, else the engine
    whose failure it is (a code only one engine's words give)."""
    k = knowledge()
    own = k.own_or_wrapped(engine, lambda w: w.not_oom_advice.get(code))
    if own:
        return own
    return _NOT_OOM.get(code) or next((e.log.not_oom_advice[code] for e in k.engines if code in e.log.not_oom_advice),
                                      "a failure that is not memory exhaustion.")


#: an exception whose class alone says it is a bug in code, with its message after it, or with none (IPython prints
#: "NotImplementedError: " for a bare `raise NotImplementedError`): the class is whole
_CODE_CLASS = re.compile(r"^\s*(?:[\w.]+\.)?(?:" + CODE_ERRORS + r")(?:: \S|:\s*$)")
#: ... or its message without the class (`PY_CODE_MESSAGE`), which names the same causes
_CODE_MESSAGE = re.compile(PY_CODE_MESSAGE)
#: an exception whose message says that something could not be parsed or validated (onnxruntime-genai's "OrtException:
#: Failed to parse the cuda graph annotation id: -1", "ValueError: Unable to parse the chat template: ..."): its input
#: was wrong in form, which memory does not cause, however short the words after its last colon
_PARSE_FAILED = re.compile(r"^\s*(?:[\w.]+\.)?\w*(?:Error|Exception)\w*:\s[^\n]{0,200}?\b(?:(?:[Ff]ailed|[Uu]nable) "
                           r"to|[Cc]ould ?n[o']t|[Cc]annot|[Cc]an't)\s+(?:be\s+)?(?:parse|deserialize|unmarshal|validate)d?\b")
#: IPython's (Jupyter's) traceback header, which names the exception's class before its frames ("FileNotFoundError
#: Traceback (most recent call last)"): a class that is itself the cause (a bug's, a missing file's), its message cut
_IPY_CLASS = re.compile(r"^\s*(?:[\w.]+\.)?(?:" + CODE_ERRORS + r"|FileNotFoundError|PermissionError|IsADirectoryError|"
                        r"NotADirectoryError)\s{2,}Traceback \(most recent call last\)")


def _stops_short(f: Failure) -> bool:
    """The error line stops before its sentence does: the log ends partway into its first error words ("CUDA e"),
    it stops partway into an engine's memory sentence (`head -c` or `cut -c` through "To serve at least one request
    with the models's max seq len (1310"), or, as the log's last line, it ends on a word that joins to the next, on
    a space, or inside a bracket it opened."""
    t = f.text
    if _CODE_CLASS.match(t):  # (whatever its message, cut or not: "UnboundLocalError: local variable 'x' referenced
        return False          # before as" is a bug in code, the class says so)
    if f.cut or stops_inside(t, knowledge().sentences):
        return True
    if f.after:
        return False
    if _GOES_ON.search(t) and stated(t) or t[-1:].isspace():  # (a line the log wrote ends on a word, not a space)
        return True
    return any(t.count(a) > t.count(b) for a, b in ("()", "[]", "{}"))


#: words after a wrapper's colon that point to another line for the cause, or are no cause ("see the traceback above")
_ELSEWHERE = re.compile(r"\b(?:see|above|below|traceback|stack ?trace|logs?|details|root cause|messages?|exception|"
                        r"error|errors)\b|"
                        # (or that the other side was not there or went away: curl's "Failed to connect to localhost
                        # port 8000 after 0 ms: Couldn't connect to server"; that side's own log has the cause)
                        r"\b(?:could ?n[o']?t|could not|cannot|unable to) connect\b|\bconnection (?:refused|reset|closed)\b|"
                        r"\breset by peer\b|\bunreachable\b", re.I)


#: a wrapper's own words of a failure and the colon after them ("Failed to initialize executor on rank 0: ", "hit an
#: exception: "; not a log prefix's colon: "ERROR text_generation_launcher: Shard 0 failed to start")
_WRAPS = re.compile(r"\b(?:[Ff]ailed to \w+|[Ff]ailure (?:in|of|during|while) \w+|(?:hit|raised|caught) an "
                    # (LMDeploy's "Engine loop failed with error: {e}")
                    r"exception|failed with (?:error|exception))\b[^:]{0,80}?: ")


def _wrapper_states_cause(text: str) -> bool:
    """A wrapper's line that names its cause after its last colon, in words of its own (4+ words, none of memory or
    CUDA, none that point elsewhere): TensorRT-LLM's "Failed to initialize executor on rank 0: Cannot determine model
    architecture from config"."""
    m = _WRAPS.search(text)
    if not m:
        return False
    tail = text[m.end():].strip()  # (all of it: a cause may hold a colon of its own, "Permission denied: /models/...")
    return (len(re.findall(r"[A-Za-z]{2,}", tail)) >= 4 and not _MEMORYISH.search(tail) and "cuda" not in tail.lower()
            and not _ELSEWHERE.search(tail) and (not tail.startswith(("{", "(", "[")) or _ERRNO.match(tail)))


#: an OS error as Python prints it, its number then its words ("[Errno 2] No such file or directory: '/x/vox-box'")
_ERRNO = re.compile(r"\[(?:Errno|WinError) \d+\] [A-Z]")


#: words after an error's label that only say an error happened ("openai request error: An error occurred during
#: streaming", "Something went wrong", "Internal Server Error"): no cause
_NO_CAUSE = re.compile(r"\s*(?:an? )?(?:unknown |unexpected |internal |unhandled )?(?:error|exception|failure|problem)s? "
                       r"(?:has |have )?(?:occurred|occured|happened|was raised|was thrown)\b|\s*something went wrong\b|"
                       r"\W*(?:internal server error|unknown error|unexpected error)\W*$|"
                       # ... or only the status a server answered with ("HTTP 503 Service Unavailable", "status code:
                       # 500"; not a cause named before it, "error from HF API, response code: 500"): the server's own
                       # log has the cause
                       r"\s*[45]\d\d\s+(?:Insufficient Storage|Internal Server Error|Service Unavailable|Bad Gateway|"
                       r"Gateway Time-?out|Not Found|Bad Request)\W*$|"
                       r"\s*(?:request failed:?\s*)?(?:HTTP\s*(?:error\s*)?|(?:HTTP )?status(?: code)?\s*[:=]?\s*)[45]\d\d"
                       r"(?:\s+[A-Z][A-Za-z ]{0,40})?\W*$|"
                       # ... or only that a call into the system failed ("Error: [Model_Load] A call to an OS function
                       # failed.", Windows' ERROR_... text as a library relays it; "The operation failed."): which call
                       # and why are not said
                       r"\s*(?:\[[^\]\n]{1,40}\]\s*)?(?:an? )?call to an? (?:OS|operating[- ]system|system) function "
                       r"failed\W*$|\s*(?:\[[^\]\n]{1,40}\]\s*)?(?:the )?(?:operation|system call) failed\W*$|"
                       # ... or only that the load failed ("Error: Error loading model.", LM Studio's channel handler)
                       r"\s*(?:error|failed|failure) (?:while )?(?:loading|to load) (?:the )?model\W*$|"
                       # ... or only the signal that ended it ("Fatal Python error: Aborted", "Abort trap: 6"): abort()
                       # was called by something else (an assertion, an uncaught C++ exception), whose words say why;
                       # also with where it was ("Aborted from _do_external_prefill", "SIGABRT in llama_decode()"): a
                       # place, not a cause
                       r"\s*(?:Aborted|Abort trap(?:: ?6)?|SIGABRT)(?:\s+(?:from|in|at|during|while)\s+(?:the\s+)?"
                       r"[\w.:<>-]+(?:\(\))?)?\W*$", re.I)
#: a crash reported without its cause, anywhere in the line (LM Studio's "The model has crashed without additional
#: information. (Exit code: 6)")
_NO_INFO = re.compile(r"\b(?:crashed|failed|exited|stopped|terminated) (?:without|with no) (?:any )?(?:additional |"
                      r"further |more )?(?:information|details?|message|output|error message)\b|"
                      # ... or that an earlier error, not shown, caused it (CUDA's cudaErrorStreamCaptureInvalidated:
                      # "operation failed due to a previous error during capture")
                      r"\bdue to a previous error\b|"
                      # ... or a client's view of it, the server's HTTP 500 and nothing of why ("openai.error.APIError:
                      # Invalid response object from API: 'Internal Server Error' (HTTP response code was 500)")
                      r"\bInternal Server Error\W{0,3}(?:\(HTTP (?:response )?(?:code|status) (?:was |is )?500\)|for url\b|$)|"
                      # ... or a cloud client's relay of the server's status (botocore's SageMaker runtime: "An error
                      # occurred (ModelError) when calling the InvokeEndpoint operation: Received server error (507)
                      # from primary ..."): the status is the serving stack's, its cause is in the server's own log
                      r"\bReceived (?:server|client) error \(\d{3}\) from \w+|"
                      # ... or a gRPC status with an empty description (LocalAI's backends: "could not load model: rpc
                      # error: code = Canceled desc = "): the backend process said nothing of why
                      r"\brpc error: code = \w+ desc = (?:\x22\x22|\x22?\s*(?:$|\w+=))",
                      re.I)


#: a Rust panic's first line, whose message Rust (1.73+) prints on the next line ("thread 'main' (75) panicked at
#: src/utils/kvcache_allocator.rs:539:13:", then "fp8 kvcache is not compatible with flashinfer ..."), and C++'s
#: std::terminate, whose exception's what() libstdc++ prints on the next ("terminate called after throwing an instance
#: of 'nanobind::builtin_exception'", then "  what():  Expected an MLIR object ...")
_PANIC_AT = re.compile(r"\bthread '[^']*'(?: \(\d+\))? panicked at \S+:\d+:\d+:\s*$|"
                       r"\bterminate called after throwing an instance of '[^']+'\s*$")
#: a container runtime's tag before each line ("vllm-rs-svc2  | "), as docker compose prints it
_COMPOSE_TAG = re.compile(r"^[\w.-]+\s+\|\s?")
#: what follows a panic that is not its message: a backtrace's header or note, a frame
_NOT_PANIC_MESSAGE = re.compile(r"^\s*(?:stack backtrace:|note: run with|\d+: |at \S+:\d+)")


def _with_panic_message(f: Failure) -> Failure:
    """Failure `f` with its message joined, where `f` is a Rust panic's first line or C++'s std::terminate line and
    the message is the next line (in the same container's tag, if any); `f` itself otherwise."""
    if not _PANIC_AT.search(f.text) or not f.after:
        return f
    tag = _COMPOSE_TAG.match(f.text)
    ln, nxt = f.after[0]
    if tag and nxt.startswith(tag.group(0).rstrip()):
        nxt = nxt[tag.end():] if nxt.startswith(tag.group(0)) else nxt[len(tag.group(0).rstrip()):]
    nxt = nxt.strip()
    if ln != f.line_no + 1 or not nxt or _NOT_PANIC_MESSAGE.match(nxt) or FRAME.search(nxt) or (
            "terminate called" in f.text and not nxt.startswith("what():")):
        return f
    return replace(f, text=f.text.rstrip() + " " + nxt, after=f.after[1:])


#: a Python process stopped by hand (Ctrl-C, SIGINT): its traceback ends in a bare KeyboardInterrupt
#: (or vLLM V0's handler of SIGTERM, engine/multiprocessing/engine.py signal_handler: "KeyboardInterrupt: MQLLMEngine
#: terminated", the server stopped by its supervisor or by hand; IPython's "KeyboardInterrupt: ", its message empty)
_INTERRUPTED = re.compile(r"^\s*(?:\^C)?(?:\w+\.)*KeyboardInterrupt(?::\s*(?:MQLLMEngine terminated)?)?\s*$")


TRACEBACK = "Traceback (most recent call last):"


def _process_tag(text: str) -> str:
    """The process's tag before a traceback's header on `text` ("(VllmWorkerProcess pid=268) ", "[rank1]: "); "" where
    the line is no header or has none (the terminal's "^C" echo is none)."""
    at = text.find(TRACEBACK)
    return text[:at] if at > 0 and text[:at].replace("^C", "").strip() else ""


def _interrupted(run: RunFacts, f: Failure) -> tuple[int, str] | None:
    """The bare KeyboardInterrupt (Ctrl-C, SIGINT) that ends the traceback error `f` heads, in the lines after it or
    the run's last lines: the process was stopped by hand. None where it ends otherwise. A traceback whose header
    carries a process's tag ("(VllmWorkerProcess pid=268) Traceback ...", "[rank1]: Traceback ...") is read in each
    tagged process's lines alone, without the tag: the processes' tracebacks interleave, and one Ctrl-C stops them
    all."""
    after = [*f.after, *_tail_after(run, f)]
    tag = _process_tag(f.text)
    if not tag:
        return _ends_interrupted([(f.line_no, f.text), *after], f.after)
    for other in dict.fromkeys([tag, *filter(None, (_process_tag(t) for _, t in after))]):
        mine = [(ln, t[len(other):]) for ln, t in after if t.startswith(other) and not _process_tag(t)]
        stop = _ends_interrupted(mine, mine) if mine else None
        if stop:
            return stop
    return None


def _ends_interrupted(lines: list[tuple[int, str]], kept: list[tuple[int, str]]) -> tuple[int, str] | None:
    """The bare KeyboardInterrupt that ends `lines` (a traceback and what follows it), or that is the traceback's own
    last line among `kept` (its first line that is no frame, no code under a frame, no carets, whatever was pasted
    under it); None otherwise."""
    ends = [(ln, t) for ln, t in lines if t.strip()]
    if ends and _INTERRUPTED.match(ends[-1][1]):
        return ends[-1]
    for ln, t in kept:
        if not t.strip() or FRAME.search(t) or t[:1].isspace():
            continue
        return (ln, t) if _INTERRUPTED.match(t) else None
    return None


#: a server's own line that it was asked to stop and is stopping: vLLM 0.2x's "[shutdown] EngineCore: trigger received
#: signal=SIGTERM" and "[shutdown] API server: shutdown triggered", or a plain "Received SIGTERM, shutting down" (not a
#: signal from a child, SGLang's "Received sigquit from a child process", which is a failure)
_SHUTDOWN_ASKED = re.compile(r"\btrigger received signal=SIG(?:TERM|INT)\b|\[shutdown\][^\n]{0,80}?\bshutdown triggered\b|"
                             r"\b(?:received|got|caught)\s+(?:the\s+)?(?:signal\s+)?(?:SIGTERM|SIGINT|signal (?:15|2)\b)"
                             r"(?![^\n]{0,40}\bchild\b)[^\n]{0,60}?\b(?:shutting down|stopping|exiting|shutdown)\b", re.I)


#: a cancellation, bare, as a traceback's last line (asyncio's, Python 3.8+ "asyncio.exceptions.CancelledError", and
#: concurrent.futures')
_CANCELLED = re.compile(r"^\s*(?:(?:asyncio|concurrent\.futures)(?:\.exceptions|\._base)?\.)?CancelledError\s*$")
#: a server's own line that it is shutting down (uvicorn's server.py "Shutting down", vLLM's launcher.py "Shutting down
#: FastAPI HTTP server.")
_SHUTTING_DOWN = re.compile(r"(?:^|\]\s|INFO:\s+)Shutting down(?: FastAPI HTTP server)?\.?\s*$")
#: a frame of a program closing: its close, shutdown, cleanup or exit path
_CLOSING_FRAME = re.compile(r"\bin (?:\w+_)?(?:close|shutdown|cleanup|clean_up|teardown|stop|exit|__exit__|__aexit__|"
                            r"__del__|atexit|_atexit\w*)(?:_\w+)?\b|\bin (?:close|shutdown)\w*\b")


#: a call that allocates, said to have failed with no cause given (the stable ABI's dispatcher of "aten::new_empty")
_ALLOC_CALL_FAILED = re.compile(r"\baten::(?:new_empty|empty|empty_strided|new_zeros|zeros|ones|full|empty_like)\b"
                                r"[^\n]{0,120}?\bfailed\b|\bcudaMalloc\w*\b[^\n]{0,60}?\bfailed\b(?![^\n]*\b(?:out of memory|"
                                r"invalid|illegal)\b)")


#: Python's threading excepthook above a thread's traceback ("Exception in thread Thread-1 (start_wsgi_server):")
_THREAD_DIED = re.compile(r"^\s*Exception in thread [^\n]{1,120}:\s*$")


def _side_thread_died(run: RunFacts, f: Failure) -> bool:
    """Failure `f` ends the traceback of a thread of its own (threading's "Exception in thread Thread-1
    (start_wsgi_server):" heads it: prometheus_client's metrics server that could not bind its port), and another
    failure of a different line comes after it: the thread died, the program went on, and that later failure is the
    run's."""
    head = next((i for i in range(len(f.before) - 1, -1, -1) if f.before[i][1].strip().startswith(TRACEBACK)), None)
    if head is None or head == 0 or not _THREAD_DIED.match(f.before[head - 1][1]):
        return False
    if any(TRACEBACK in t for _, t in f.before[head + 1:]):
        return False  # (another traceback between: the header is not this one's)
    return any(g.line_no > f.line_no + 1 and g.kind in ("oom", "not_oom") and g is not f for g in run.failures)


def _request_cancelled(run: RunFacts, f: Failure, engine: str) -> bool:
    """Error `f` is a traceback whose every exception is a bare CancelledError (a request's task cancelled when its
    client went away: starlette's stream_response under uvicorn's "Exception in ASGI application", after vLLM's
    "Aborted request chatcmpl-77aa."), and the server answered requests after it: that request's end, no failure."""
    if f.kind != "error":
        return False
    block = [(f.line_no, f.text), *f.after]
    raised = [t for _, t in block if RAISED.match(t)]
    if not raised or not all(_CANCELLED.match(t) for t in raised):
        return False
    end = next((ln for ln, t in block if _CANCELLED.match(t)), f.line_no)
    return bool(_answered_after(run, end, engine))


def _cancelled_at_close(run: RunFacts, f: Failure) -> tuple[int, str] | None:
    """The frame of a close or shutdown path (`_CLOSING_FRAME`) in the traceback of failure `f` (its lines before and
    after), where every exception it raised is a bare CancelledError: a task cancelled as the program closed (ART's "in close_proxy" ... "asyncio.exceptions.CancelledError" after its run
    finished). None otherwise."""
    # (and the traceback chained to it, "During handling of the above exception, another exception occurred:", which
    # the run's last lines hold)
    block = [*f.before[-16:], (f.line_no, f.text), *f.after, *_tail_after(run, f)[:40]]
    raised = [t for _, t in block if RAISED.match(t)]
    if not raised or not all(_CANCELLED.match(t) for t in raised):
        return None  # (no cancellation, or another exception beside it: that one decides)
    closing = next(((ln, t) for ln, t in reversed(block) if PY_FRAME.search(t) and _CLOSING_FRAME.search(t)), None)
    # (or the server's own line that it is shutting down just before, uvicorn's "INFO:     Shutting down" or vLLM's
    # "Shutting down FastAPI HTTP server.", then its lifespan task cancelled in "await receive()": a server stopped,
    # where no other failure of the run comes first)
    return closing or next(((ln, t) for ln, t in reversed(f.before[-12:]) if _SHUTTING_DOWN.search(t)
                            and program_line(t) and run.failures and run.failures[0] is f), None)


def _stopped_by_hand(run: RunFacts, f: Failure) -> Diagnosis | None:
    """NONE where error `f` is the traceback of a server stopped by hand (a bare KeyboardInterrupt ends it, in the lines
    after it or the run's last lines), or one that follows the server's own line that it was asked to stop
    (`_SHUTDOWN_ASKED`: a queue closed under its reader as it stops), or a task cancelled as the program closed
    (`_cancelled_at_close`), after it had served: no failure. None otherwise (a server stopped while it started may
    have hung: that is left to the rest)."""
    served = [f.progress[m] for m in ("ready", "requests") if m in f.progress]
    asked = next(((ln, t) for ln, t in f.before if served and ln > min(served) and _SHUTDOWN_ASKED.search(t)
                  and program_line(t)), None)
    if asked:
        return Diagnosis(kind="NONE", code="stopped-by-hand", oom=False, evidence=[asked, (f.line_no, f.text)],
                         phase_source=f"the server's own line that it was asked to stop (line {asked[0]})",
                         message="The server was asked to stop (a signal, by hand or by its supervisor) after it had "
                                 "served, and the error after that line is its shutdown, not a failure. No memory "
                                 "problem in this run.")
    closing = _cancelled_at_close(run, f) if served else None
    if closing:
        return Diagnosis(kind="NONE", code="cancelled-at-shutdown", oom=False, evidence=[closing, (f.line_no, f.text)],
                         phase_source=f"the traceback: a task cancelled while the program closed (line {closing[0]})",
                         message="The program had served and was closing: a task still waiting was cancelled as it "
                                 "shut down (the CancelledError under a close or shutdown call), which is its "
                                 "shutdown, not a failure. No memory problem in this run.")
    stop = _interrupted(run, f) if served else None
    if stop is None:
        return None
    return Diagnosis(kind="NONE", code="stopped-by-hand", oom=False, evidence=[stop],
                     phase_source="the traceback's last line: the process was interrupted (SIGINT)",
                     message="The server was stopped by hand (Ctrl-C: the KeyboardInterrupt that ends the traceback) "
                             "after it had served; that traceback is its shutdown, not a failure. No memory problem "
                             "in this run.")


def _last_step(f: Failure, engine: str) -> str | None:
    """The phase of the last line before failure `f` that names a step under way in the engine's words (not one that
    says a step finished: that line's phase is over); None where no line does."""
    step = _last_step_line(f, engine)
    return step[2] if step else None


def _memory_blamed(run: RunFacts, f: Failure) -> tuple[int, str] | None:
    """A person's line near failure `f` (or the report's title) that puts it down to memory running out ("from me not
    having enough memory", "the malloc just failed"); None where none does."""
    lines = [*f.before[-30:], *f.after[:30], *([run.heading] if run.heading else [])]
    for ln, t in lines:
        if program_line(t):
            continue
        m = OOM_ANY.search(t) or _MALLOC_FAILED.search(t)
        # (not one that denies it: "it is not an OOM", "there is no out of memory error")
        if m and not denied_at(t, m.start()) and not _NOT_MEMORY.search(t):
            return ln, t
    return None


#: a person's words that memory is not the cause ("plenty of memory free", "it's not OOM", "memory is fine")
_NOT_MEMORY = re.compile(r"\b(?:plenty of|lots of|enough free) (?:free )?(?:memory|RAM|VRAM)\b|\bnot (?:an? )?(?:OOM|out of "
                         r"memory|memory (?:issue|problem))\b|\bmemory (?:is|was) (?:fine|ok|not the (?:issue|problem))\b",
                         re.I)


#: a person's words that an allocation returned nothing or memory was short ("the malloc just failed", "a memory
#: allocation failure it seems", "from me not having enough memory")
_MALLOC_FAILED = re.compile(r"\bmalloc (?:just |probably |must have )?failed\b|\bmalloc returned (?:NULL|null|nullptr)\b|"
                            r"\bmemory allocation fail\w*|\bnot having enough (?:memory|RAM|VRAM)\b", re.I)


def _persons_sentence(text: str) -> bool:
    """The line is a person's sentence (no program's line) that does not speak of the failure, whatever program words
    it quotes ("the debug information (i.e llama_model_loader: - kv ...) is not"); not one that tells where it came
    ("Loading checkpoint shards:  62%, then progress be killed")."""
    return not program_line(text) and (sentence_like(text) or prose_like(text) or persons_line(text)
                                       or user_words(text)) and not _TELLS_FAILURE.search(text)


#: words of a failure in a person's sentence
_TELLS_FAILURE = re.compile(r"\b(?:kill\w*|crash\w*|OOM\w*|out of memory|die[sd]?|dying|fail\w*|abort\w*|stuck|hang\w*)\b",
                            re.I)


def _last_step_line(f: Failure, engine: str) -> tuple[int, str, str] | None:
    """(line, text, phase) of the step `_last_step` finds; None where it finds none."""
    for ln, t in reversed(f.before):
        if _persons_sentence(t):
            continue  # (a person's sentence that names a step, "the debug information (i.e llama_model_loader: - kv
            # ...) is not": no step the program was in)
        ph = phase_words(t, engine)
        if ph is not None:
            return None if step_done(t) else (ln, t, ph)
    return None


#: the message of C++'s uncaught exception, as libstdc++ prints it under "terminate called after throwing ..."
_WHAT = re.compile(r"^\s*what\(\):\s+\S")
#: the most lines above an abort searched for the what() of the exception it ends (a message of many lines)
_WHAT_SPAN = 40
#: an abort that names no cause ("Fatal Python error: Aborted", "Aborted (core dumped)", SIGABRT)
_BARE_ABORT = re.compile(r"\bAborted\b|\bSIGABRT\b|\bsignal 6\b", re.I)


def _with_what_before(f: Failure) -> Failure:
    """Failure `f`, or where `f` is an abort that names no cause, the C++ exception's what() a few lines above it
    (std::terminate prints it, then abort() ends the process): that message is the cause."""
    if not _BARE_ABORT.search(f.text) or _cause_shown(f):
        return f
    # (a few lines above; or further, where the message itself runs over many lines, a model's answer quoted in it,
    # and no program's own line or frame comes between it and the abort)
    what = None
    for i, (ln, t) in enumerate(reversed(f.before[-_WHAT_SPAN:])):
        if _WHAT.match(t):
            what = (ln, t)
            break
        if i >= 6 and (STRONG_PREFIX.match(t) or FRAME.search(t)):
            break
    if what is None:
        return f
    # (the abort follows it: the message is whole, not a last line cut short)
    return replace(f, line_no=what[0], text=what[1].strip(), after=[(f.line_no, f.text), *f.after])


#: a traceback's header after a log prefix at an error level ("ERROR 08-16 18:12:26 [engine.py:458] Traceback (most
#: recent call last):"): group 1 is the prefix
_LOGGED_HEADER = re.compile(r"^(.*\b(?:ERROR|CRITICAL|FATAL)\b.*?)Traceback \(most recent call last\):\s*$")
#: a log record's prefix up to its level ERROR and what follows it before the message: a time, a logger's name, a
#: process id, then the level ("2024-10-25 12:21:14,974 xinference.api.restful_api 37502 ERROR    [address=..., pid=1]")
_RECORD_LEVEL = re.compile(r"^\s*\d{4}-\d\d-\d\d[ T][\d:.,]+\s+(?:[\w.:\[\]-]+\s+){0,3}(?:ERROR|CRITICAL|FATAL)\b:?\s*"
                           r"(?:\[[^\]]{0,120}\]\s*)?")
#: a line that begins a chained traceback's header, not an exception's message
_CHAINED = re.compile(r"above exception|during handling of|^\s*$", re.I)
#: a record's own words that only say something failed, above the traceback it logs ("AsyncLLM output_handler
#: failed.", "Error executing method 'load_model'. This might cause deadlock in distributed execution.", "Exception in
#: worker loop"): `logger.exception` with a message of the caller's, not the exception's
_ONLY_FAILED = re.compile(r"\b(?:failed|crashed|died|errored|exception|error)\W*$|^(?:error|exception|failure|"
                          r"fatal error)\b(?:\s+\w+)?\s+(?:executing|in|while|during|when|on|for|from|calling)\b|"
                          r"\bmight cause\b|\bunexpectedly\b", re.I)


#: a name in quotes and nothing else: how Python prints a KeyError's message (`str(KeyError('a.b'))` is "'a.b'")
_KEY_ALONE = re.compile(r"^(['\x22])[\w.\-/:\[\]]{1,300}\1$")


def _with_message_before(f: Failure) -> Failure:
    """Failure `f`, or where `f` is a traceback's header that names no cause, cut before its exception, the message
    the same log record printed just above it: Python's `logger.exception(e)` writes `str(e)`, then the traceback, each
    line under the record's one prefix (vLLM's `engine.py` run_mp_engine: "ERROR 08-16 18:12:26 [engine.py:458] size_k
    must divisible by BLOCK_SIZE_K", then "... [engine.py:458] Traceback (most recent call last):"). Another record's
    line (another time, another source) is not it."""
    m = _LOGGED_HEADER.match(f.text)
    bare = m is None and f.text.strip() == TB_HEADER + ":" and not f.text[:1].isspace()
    if m is None and not bare or not f.before or _cause_shown(f):
        return f
    ln, prev = f.before[-1]
    if bare:
        # (Python's logging with its default handler: the record's line under its prefix, the traceback under none:
        # "2024-10-25 12:21:14,974 xinference.api.restful_api 37502 ERROR    [...] Timed out after 601 seconds waiting
        # for clients." then "Traceback (most recent call last):")
        level = _RECORD_LEVEL.match(prev)
        if level is None:
            return f
        prefix = prev[:level.end()]
    else:
        prefix = m.group(1)
    if ln != f.line_no - 1 or not prev.startswith(prefix):
        return f
    said = prev[len(prefix):].strip()
    # (one word is no message, but a name in quotes alone is KeyError's `str(e)`: "ERROR 04-07 13:35:48 [engine.py:448]
    # 'model.layers.1.mlp.shared_experts.down_proj.weight_scale_inv'", a key the loader did not find)
    if (len(said.split()) < 2 and not _KEY_ALONE.match(said) or _CHAINED.search(said) or _ONLY_FAILED.search(said)
            or _NO_CAUSE.match(said)
            or FRAME.search(prev) or traceback_line(prev)):
        return f
    return replace(f, line_no=ln, text=prev.strip(), after=[(f.line_no, f.text), *f.after])


#: an exception's own last line, unindented: its class (a dotted path, "torch._dynamo.exc.Unsupported") and message;
#: any class, where lines.RAISED wants one named ...Error, ...Exception, ...Interrupt or ...Exit
_RAISED_ANY_CLASS = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*: \S")


def _with_cause_above(f: Failure) -> Failure:
    """Failure `f`, or where `f` is a traceback's header whose exception is cut off, and the traceback is the one
    raised from another (`raise ... from e`: Python prints the cause's traceback first, its exception line, then "The
    above exception was the direct cause of the following exception:"), the cause's exception line: what the error
    under it was raised from ("torch._dynamo.exc.Unsupported: torch.* op returned non-Tensor" above a cut SGLang
    traceback). Only the header right under that line (blank lines between), and the cause's line within the dozen
    lines above it, past its indented notes ("  Explanation: ...")."""
    if _cause_shown(f) or f.text.strip() != TB_HEADER + ":":
        return f
    before = [(ln, t) for ln, t in f.before[-16:] if t.strip()]
    if not before or not _DIRECT_CAUSE.match(before[-1][1]) or before[-1][0] < f.line_no - 3:
        return f
    for ln, t in reversed(before[-13:-1]):
        if _RAISED_ANY_CLASS.match(t):
            return replace(f, line_no=ln, text=t.strip(), after=[(f.line_no, f.text), *f.after])
        if not t[:1].isspace():
            return f  # (another unindented line: a frame's header, the cause's own traceback cut before its line)
    return f


#: an error chain's next cause under the error (Node's `- Caused By: Error: ...`, LM Studio's serialized errors; Java's
#: `Caused by: ...`): the last one is the root cause
_CAUSED_BY = re.compile(r"^\s*-?\s*Caused [Bb]y:\s")


def _cause_shown(f: Failure) -> bool:
    """The failure's own words state what went wrong (not a wrapper, not a bare frame or header, not cut). A last
    line that may be cut ("CUDA ru") counts only if it ends a sentence or reads whole without CUDA or memory words."""
    if f.wrapper and _wrapper_states_cause(f.text) and not _stops_short(f) and (
            f.after or _CUT_END.search(f.text) or not _GOES_ON.search(f.text)):
        return True
    if (not f.wrapper and (_CODE_CLASS.match(f.text) or _CODE_MESSAGE.search(f.text))) or _IPY_CLASS.match(f.text):
        return True  # (the class is the cause, whatever its message: "KeyError: 'model.layers.0.mlp.gate_pr")
    if not f.wrapper and _PARSE_FAILED.match(f.text) and not _MEMORYISH.search(without_paths(f.text)):
        return True
    if f.wrapper or not stated(f.text) or _CHECK.search(f.text) or _stops_short(f):
        return False
    if _NO_CAUSE.match(f.text.rsplit(": ", 1)[-1]) or _NO_INFO.search(f.text) or CAUSE_UNKNOWN.search(f.text):
        return False  # the words after the label only say that an error happened
    root = next((t for _, t in reversed(f.after) if _CAUSED_BY.match(t)), None)
    if root is not None and (_NO_CAUSE.match(root.rsplit(": ", 1)[-1]) or _NO_INFO.search(root)
                             or CAUSE_UNKNOWN.search(root)):
        return False  # ... or the chain's root cause below it says only that the process ended
    if f.after or _CUT_END.search(f.text):
        return True
    tail = f.text.rsplit(": ", 1)[-1]  # the words after the last label: "... error in CALL: TEXT"
    # (or after the first, where the message names what was not found before a short last part: "Failed to pull model:
    # manifest for granite3.1-dense:8b not found: manifest unknown")
    whole = f.text.split(": ", 1)[-1]
    return (len(tail.split()) >= 3 and _no_memory_words(tail)
            or len(whole.split()) >= 5 and bool(_NAMED_MISSING.search(whole)) and _no_memory_words(whole))


def _no_memory_words(words: str) -> bool:
    """`words` name no amount of memory (`_MEMORYISH`) and no CUDA call, whose own error may be memory's; code the
    message quotes in backticks and dotted names are not its words ("using for example `device_map={'':torch.cuda.
    current_device()}`": a device named in a hint, no CUDA call that failed)."""
    words = _CODE_SPAN.sub(" ", words)
    return not _MEMORYISH.search(words) and "cuda" not in words.lower()


#: code a message quotes in backticks, and a dotted name (`torch.cuda.current_device`)
_CODE_SPAN = re.compile(r"`[^`\n]{1,200}`|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}\b")


#: a message's words that something named was not there or not valid ("... not found", "no such file", "unknown model")
_NAMED_MISSING = re.compile(r"\bnot found\b|\bno such\b|\bdoes not exist\b|\bunknown \w+|\binvalid \w+|\bunsupported\b", re.I)


#: a report's words that the failure came while the server was starting ("when I try to load large models", "model
#: initialization fails", "during model loading", "at startup"), or after its weights had loaded ("after the model is
#: loaded", "the model loads fine")
_STARTING_WORDS = re.compile(r"\b(?:load(?:s|ing)?|initiali[sz](?:e|es|ing|ation)|start(?:ing|s)?[- ]?up|at start|"
                             r"launch(?:es|ing)?)\b(?:\s+(?:the |a |my |large |big |bigger )?(?:\w+ )?models?\b)?|"
                             r"\bmodel (?:load(?:ing)?|initiali[sz]ation)\b", re.I)
_LOADED_WORDS = re.compile(r"\b(?:after|once) (?:the )?(?:\w+ )?models? (?:is |was |has been |had been )?loaded\b|"
                           r"\bmodels? loads? (?:fine|ok|okay|successfully|without (?:issue|problem|error)s?)\b", re.I)
#: a report's words of a step that is over or never began, before the words that name it ("not at startup",
#: "before loading")
_NOT_THEN = re.compile(r"\b(?:not|never|before|without)\s+(?:\w+\s+){0,2}$", re.I)


#: a warning's words that it shows an error the program goes on from ("WARNING  Failed to load flash-attention due to
#: the following error:", text-generation-webui's, then the ImportError's traceback)
#: (also glog's own, "W0227 14:34:03.339938 3828981 rdma_transport.cpp:400] ...": its level letter, then the date;
#: llama.cpp's, the level letter after the time)
_WARNING_LEVEL = re.compile(r"^(?:.{0,80}?\b(?:WARNING|WARN)\b|\[W[ \d]|.{0,80}?\b[Ww]arn(?:ing)?:|"
                            r"\s*W\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ |"
                            # (and llama.cpp's common/log.cpp with timestamps on: "0.00.476.197 W srv  load_model: ...")
                            r"\s*\d+\.\d\d\.\d{3}\.\d{3} W )")


def _under_a_warning(f: Failure) -> bool:
    """Whether the traceback `f` is part of (its header, a frame or its exception line) was printed under a warning: a
    line at WARNING level just before its header, the program going on after it."""
    lines = [*f.before, (f.line_no, f.text)]
    for i in range(len(lines) - 1, -1, -1):
        if lines[i][1].lstrip().startswith(TB_HEADER):
            above = [t for _, t in lines[max(0, i - 3):i] if t.strip()]
            return bool(above) and bool(_WARNING_LEVEL.match(above[-1]))
    return False


#: the code line a traceback prints under its frame that raises or asserts (indented)
_CODE_LINE = re.compile(r"^\s+(?:raise|assert)\s")
#: a traceback's last line: an exception's class at the line's start ("NotImplementedError: awq is not supported",
#: "torch.OutOfMemoryError: ...", a bare "AssertionError")
_EXCEPTION_LINE = re.compile(r"^\s*(?:\w+\.)*\w*(?:Error|Exception)\b(?::|\s*$)")


def _raised_not_memory(f: Failure) -> bool:
    """Whether the traceback failure `f` heads (or is a frame of) goes on to its exception line, and that exception
    names a cause that is not memory (`exception_not_memory`): the first such line after it, before another
    traceback's header."""
    for _, t in f.after:
        if t.lstrip().startswith(TB_HEADER):
            return False
        if _EXCEPTION_LINE.match(t) and not FRAME.search(t):
            return exception_not_memory(t)
    return False


def _narrowed(phases: list[str], said: list[str]) -> list[str]:
    """The candidate phases a report's words leave: loading or starting words rule serving out, "after the model is
    loaded" the weights (only narrowing: where the words would leave none, all stay)."""
    keep = list(phases)
    for text in said:
        if _LOADED_WORDS.search(text):
            keep = [p for p in keep if p != "WEIGHTS"] or keep
        m = _STARTING_WORDS.search(text)
        if m and not _LOADED_WORDS.search(text) and not _NOT_THEN.search(text[:m.start()]):
            keep = [p for p in keep if p != "RUNTIME"] or keep
    return keep


def _error_words(text: str) -> str:
    """The error's own words in a line: in a user's sentence, the error quoted in it and the rest of its clause ("fails
    with a `RuntimeError: invalid argument` in the custom all-reduce kernel. This occurs even with conservative memory
    settings" -> "RuntimeError: invalid argument` in the custom all-reduce kernel."), not the user's words around it;
    a program's line whole."""
    if not user_words(text):
        return text
    m = STATED.search(text)
    if not m:
        return text
    opened = text[:m.start()].rstrip()[-1:]
    if opened and opened in "`'\"\u201c":  # quoted: the error ends where its quote closes
        close = text.find({"\u201c": "\u201d"}.get(opened, opened), m.start())
        if close > 0:
            return text[m.start():close]
    end = re.search(r"[.;!?](?:\s|$)", text[m.start():])
    return text[m.start():m.start() + end.end()] if end else text[m.start():]


#: an internal check that failed (OpenVINO's "Check '...' failed", an assertion): it says which invariant broke,
#: not why; a pool too small for a sequence breaks some engines' checks
_CHECK = re.compile(r"\bCheck\b.{0,300}\bfailed\b|\bAssertion\b.{0,300}\bfailed\b|\bAssertionError\b")


#: the end of a line whose sentence must go on: a word that joins to the next one, or an open bracket or comma
_GOES_ON = re.compile(r"(?:\b(?:with|the|of|a|an|to|for|in|on|at|by|from|and|or|is|are|was|than|as|that|which|"
                      r"when|while|but|not|no|be|has|have)|[,(\[{:=-])\s*$", re.I)




#: a line in Chinese, Japanese or Korean words with no log prefix: a user's sentence ("模型加载报错，cuda out of
#: memory"), not an engine's line
_CJK_PROSE = re.compile(r"^(?![\[(]?\d{4}-\d\d-\d\d|\w+: )(?:[^" + CJK[1:-1] + r"]*" + CJK + r"){4}")


#: a report's words that a failure was not fatal ("I hit a non-fatal compute-buffer allocation failure", "The model
#: still runs", "it is only a warning, the server keeps working")
_NON_FATAL = re.compile(r"\bnon-?fatal\b|\bnot (?:a )?fatal\b|\b(?:the model|the server|it|everything) (?:still|then) "
                        r"(?:runs|works|loads|serves|starts)\b|\b(?:still|then) (?:runs|works) fine\b|"
                        r"\bkeeps? (?:working|running|serving)\b", re.I)


def _says_non_fatal(text: str) -> bool:
    """A person's line that says a failure was not fatal, not asked ("is it non-fatal?") and not taken back in the same
    sentence ("the server still starts, but then crashes", "it keeps running out of memory")."""
    if program_line(text) or text.rstrip().endswith("?"):
        return False
    for m in _NON_FATAL.finditer(text):
        rest = text[m.end():m.end() + 80]
        if not re.match(r"\s*(?:out of|into)\b", rest) and not re.search(r"\b(?:but|until|before|then (?:crash|fail|die))",
                                                                          rest, re.I):
            return True
    return False


#: an engine's start-up check raised as a Python exception ("ValueError: The model's max seq len (32768) is larger than
#: ...", SGLang's "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static"), alone or after a log
#: prefix's source or ERROR level: its verdict, which nothing catches (not PyTorch's own out of memory, "torch.
#: OutOfMemoryError", "RuntimeError: CUDA out of memory": an allocation an engine may catch and go on from, SGLang
#: disabling the graphs it could not capture; nor a line that says the program goes on)
_RAISED_CHECK = re.compile(r"(?:^|\]\s|\s(?:ERROR|CRITICAL)\b[^\n]{0,80}?\s)\s*(?:ValueError|AssertionError|RuntimeError): "
                           r"(?!(?:CUDA|HIP) (?:error: )?out of memory)"
                           r"(?![^\n]*\b(?i:retry|retrying|falling back|fallback|skipping|continuing)\b)")
#: engines whose user interface catches a failed load and goes on serving without the model (the web UI's loader)
_CATCHES_LOAD_ERRORS = frozenset({"text-generation-webui"})


#: a time of day near a line's start: "22:47:03" (24-hour, seconds), or zerolog's Kitchen "10:47PM" (LocalAI)
_TIME_OF_DAY = re.compile(r"(?<![\d:])(?:([01]?\d|2[0-3]):([0-5]\d):([0-5]\d)(?![\d:])|(1[0-2]|0?[1-9]):([0-5]\d)([AP]M)\b)")


def seconds_of_day(text: str) -> int | None:
    m = _TIME_OF_DAY.search(text[:80])
    if not m:
        return None
    if m.group(1) is not None:
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
    return (int(m.group(4)) % 12 + (12 if m.group(6) == "PM" else 0)) * 3600 + int(m.group(5)) * 60


def later_by_clock(failure: str, served: str) -> bool:
    """The failure's line is stamped later than the serving line below it (within the same half day): the error was
    pasted above the start-up it came after ("the error part first, then the start of the log"), so the start-up
    going on to serve is no recovery from it."""
    a, b = seconds_of_day(failure), seconds_of_day(served)
    return a is not None and b is not None and 0 < a - b < 12 * 3600


#: a line that names serving only to say the process failed at it ("rerank worker crashed while serving request ...")
_CRASHED_WHILE = re.compile(r"\b(?:crash(?:ed|es)?|died|dies|failed|killed|aborted)\s+(?:while|when|during|on)\s+"
                            r"(?:serving|handling|processing)\b", re.I)


def _recovered(run: RunFacts, f: Failure, place: Place, engine: str = "") -> Diagnosis | None:
    """A start-up failure the engine got past: it said it retries another way, or the run went on to serve."""
    end = max(f.end_line, f.line_no)
    worse = any(g is not f and g.kind in ("oom", "not_oom") and g.line_no > end for g in run.failures)
    if f.retried and not worse:
        ln, text = f.retried
        return Diagnosis(kind="NONE", code="recovered-by-retry", oom=True, evidence=[(f.line_no, f.text), (ln, text)],
                         phase_source="the engine's retry after the failure",
                         message="An allocation failed at start, and the engine retried another way; no failure "
                                 "follows in this log. If the server then ran, memory was tight but enough.")
    said = None if worse or user_words(f.text) else next(
        ((ln, t) for ln, t in [*f.before[-8:], *f.after] if _says_non_fatal(t)), None)
    if said:  # the report's own words: the failure was not fatal, the model still ran
        return Diagnosis(kind="NONE", code="recovered-by-retry", oom=True, inferred=True,
                         evidence=[(f.line_no, f.text), said], phase_source=f"the report's words (line {said[0]})",
                         message=f"An allocation failed (line {f.line_no}), but the report says it was not fatal and "
                                 "the model went on to run: the engine handled it (a retry or a fallback). Memory "
                                 "was tight; a longer prompt or more parallel requests may not fit.")
    if _RAISED_CHECK.search(f.text) and engine not in _CATCHES_LOAD_ERRORS:
        # a Python exception the engine's start-up raised (vLLM's "ValueError: The model's max seq len (32768) is larger
        # than the maximum number of tokens that can be stored in KV cache"): nothing catches it, the process ends;
        # serving lines after it, no new start-up between, are another run's, pasted after it
        return None
    later = _served_after(run, end, engine)
    # (a user's sentence that names the failure is no step of the run: the engine's lines after it are no recovery)
    if (later and not user_words(f.text) and not prose_like(f.text) and not sentence_like(f.text)
            and not _CJK_PROSE.search(f.text) and not f.pasted
            and not narrates_failure(f.text)
            and not worse
            and (place.phase in STARTUP or place.phase is None)):
        at = min(later)
        text = next((run.progress_text.get(m, "") for m, ln in run.progress.items() if ln == at), "")
        if later_by_clock(f.text, text):
            return None  # (the failure pasted above a start-up it came after: no recovery, see _later_by_clock)
        if _CRASHED_WHILE.search(text):
            return None  # (the line that names serving says it crashed doing so: "worker crashed while serving request
            # id=...; restarting": no recovery)
        if f.code == "max-model-len-exceeds-kv-cache":
            # the pool holds less than the context asked for, and the engine cut the context to it and went on
            # (Aphrodite's "Forcing max_model_len to 12384." after vLLM's words): the KV ledger is short, requests
            # longer than the pool fail
            return Diagnosis(kind="KV_CAPACITY", code=f.code, oom=True, evidence=[(f.line_no, f.text), (at, text)],
                             phase_source="the engine's own words that the pool holds less than the context",
                             message=f"The KV cache pool holds less than the context asked for (line {f.line_no}); "
                                     f"the engine cut the context to what the pool holds and went on to serve (line "
                                     f"{at}). Requests longer than that fail or are refused.")
        return Diagnosis(kind="NONE", code="recovered-at-start", oom=True, evidence=[(f.line_no, f.text), (at, text)],
                         phase_source="the start-up going on to serve after the failure",
                         message=f"An allocation failed at start (line {f.line_no}), but the server went on to serve "
                                 f"(line {min(later)}): the engine handled it (a retry or a fallback).")
    return None


#: a Python frame in PyTorch's own package (".../site-packages/torch/utils/_device.py", "torch/nn/modules/linear.py")
_TORCH_FRAME = re.compile(r'File "[^"]*[/\\](?:site|dist)-packages[/\\]torch[/\\]')


def _in_torch(f: Failure) -> bool:
    """The innermost Python frame the log shows for failure `f` is PyTorch's own: the frames a cut left out are PyTorch's
    too, so the engine's step is the one the frames shown name (nn.Linear's __init__ under a model's layers)."""
    py = [t for _, _, t in sorted(frames(f)) if PY_FRAME.search(t)]  # (innermost first)
    return bool(py) and bool(_TORCH_FRAME.search(py[0]))


def _ends(f: Failure) -> bool:
    """The lines after failure `f` reach an error line (the traceback they show is whole)."""
    return any(stated(t) for _, t in f.after)


#: codes that name what failed whatever the phase (one buffer past the device's largest single allocation): kept where
#: the phase moves
_ANY_PHASE = frozenset({"buffer-exceeds-allocation-limit"})


def _serving_before(run: RunFacts, f: Failure, engine: str) -> bool:
    """The server's own lines (its ready line, a request it took) came before failure `f` in its run: not a user's
    words of serving, nor Ollama's front server (which loads a model for a request)."""
    own = knowledge().engine.get(engine)
    if own is not None and own.log.loads_on_request is not None:
        # (its front server loads a model for a request (Ollama): only its own line of a request the loaded model
        # took is serving; or a request answered after it said it was ready: the load was over)
        ln, ready = f.progress.get("requests"), f.progress.get("ready")
        text = run.progress_text.get("requests", "")
        answered = own.log.answered
        return ln is not None and ln < f.line_no and (bool(own.log.loads_on_request.search(text)) or (
            ready is not None and ready < ln and answered is not None and bool(answered.search(text))))
    for m in ("ready", "requests"):
        ln, text = f.progress.get(m), run.progress_text.get(m, "")
        if ln is not None and ln < f.line_no and (program_line(text) or any(
                p.match(text.strip()) for p in knowledge().bare_requests)):
            return True
    return False


def _told_on_a_request(run: RunFacts, f: Failure) -> bool:
    """Failure `f`'s own line is a person's sentence that also says it came on a request (the run's request words are
    on that line: "the first real completion request crashes the process ... failed to allocate compute pp
    buffers"), or a person's line a few lines after it tells the out of memory again with its request."""
    at = run.progress.get("requests")
    if at == f.line_no:
        # (not where the sentence says the requests run fine: "it will cause OOM during memory profiling. But it's
        # actually ok during inference")
        return not program_line(f.text) and not FINE_WHEN_SERVING.search(f.text)
    # ... or the report's words just after the pasted failure that tell it again with its request ("OOMs at 75 MiB on
    # the 2nd request")
    text = run.progress_text.get("requests", "")
    return any(ln == at for ln, _ in f.after[:8]) and not program_line(text) and bool(OOM_ANY.search(text))


def _served_after(run: RunFacts, end: int, engine: str) -> list[int]:
    """The lines after line `end` where the server shows it served: its ready line, or a request it answered (not
    one it failed: a 5xx status; not a front server that loads its model on a request, `LogWords.loads_on_request`,
    Ollama's, which answers for whichever runner is loaded, or for none). Only the server's own lines: a user's words or a client's call placed after the failure ("when the first
    request is received, it runs out of memory:", a reproduction script) say when it failed, not that it went on."""
    front = knowledge().loads_on_request(engine)
    out = []
    for m, ln in run.progress.items():
        text = run.progress_text.get(m, "")
        if ln > end and program_line(text) and (
                m == "ready" or m == "requests" and not (FAILED_REQUEST.search(text) or front)):
            out.append(ln)
    return out


def _serving_told(run: RunFacts, f: Failure, engine: str = "") -> tuple[int, str] | None:
    """Where the report, not the server, says the run was serving when failure `f` came: a user's words or a
    client's call to the server ("when I give it longer questions", a reproduction script's
    `client.chat.completions.create(`), before the failure or after it; None where it says not, or where a
    start-up line of the server's own follows the failure (the report's serving is then another run's)."""
    ln = run.progress.get("requests")
    text = run.progress_text.get("requests", "")
    if ln is None and "requests" in run.titled:  # (the report's title: "... when inferencing with a large batch")
        ln, text = run.titled["requests"]
    if ln is None or program_line(text):
        return None
    if knowledge().loads_on_request(engine) and CLIENT_CALL.match(text):
        return None  # (a front server loads its model for the request it was sent: the call may have failed its load)
    end = max(f.end_line, f.line_no)
    if any(m != "requests" and at > end for m, at in run.progress.items()):
        return None
    return ln, text


#: a lower-case name with underscores in quotes, a setting's or an argument's ('gpu_memory_utilization', "max_memory")
_QUOTED_NAME = re.compile(r"(['\x22`])[a-z][a-z0-9]*(?:_[a-z0-9]+)+\1|"
                          # (or a module's or an attribute's dotted name, quoted or not: "No module named
                          # 'llama_toolchain.memory.common'", "has no attribute 'kv_cache.blocks'")
                          # (a layer's index among its parts: "'vision_tower.blocks.0.attn.qkv.bias'")
                          r"(['\x22`])[A-Za-z_]\w*(?:\.(?:[A-Za-z_]\w*|\d+))+\2|\b[A-Za-z_]\w*(?:\.(?:[A-Za-z_]\w*|\d+)){2,}\b")


def _titled_cause(run: RunFacts):
    """The error the report's title names (a markdown heading: "# [Bug] RuntimeError: NCCL error: unhandled system
    error"), as (Verdict, (line, text)), where its words are an out-of-memory's or another failure's that the engines'
    words know; None where there is no such title, or it asks ("... out of memory?")."""
    # (or pasted without its markdown, labelled or tagged: "Title: [Bug]: ... ValueError: No available memory for the
    # cache blocks", which the scanner keeps as a failure of its own)
    title = run.heading or next(((x.line_no, x.text) for x in run.failures if TITLE.match(x.text)), None)
    if not title or run.numbers.get("_other_error_said") is True:  # (the log's error is another than the title's)
        return None
    ln, text = title
    if text.rstrip().endswith("?"):
        return None
    k = knowledge()
    v = k.line_verdict(text)
    if (v is None or v.kind == "error") and exception_not_memory(text) or (
            v is not None and v.kind == "wrapper" and exception_not_memory(k.without_wrappers(text))):
        # (a Python exception the title quotes whole, class and message, with no word of memory in it: "[Bug] pp>1
        # report RuntimeError: batch_size must be equal to batch_size_k"; also beside a wrapper's words that only
        # point to it: "ValueError: Block size must be a multiple of 16. Got fatal signal from worker processes")
        v = Verdict(kind="not_oom", phase=None, code="error-not-memory", engine="generic")
    return (v, title) if v is not None and v.kind in ("oom", "not_oom") else None


#: a report title's own tag in the words of a commit message ("bug: GGUF Q4K + CUDA OOMs on 24 GB GPUs", "fix(server):
#: ..."), which reads like a program's "name: " prefix
_TITLE_TAG = re.compile(r"^(?:bug|issue|question|help|feat|feature|fix|problem|regression)(?:\([^)\n]{1,40}\))?:\s", re.I)


def _plain_title(run: RunFacts, f: Failure) -> bool:
    """`f` is a report's title pasted on the log's first line without tag or markdown ("OOM Llama 3.2-11B on RTX 4090"),
    a blank line under it and no stop of a sentence: a person's summary, not a line the program wrote."""
    return (f.line_no == run.first_line == 1 and (not program_line(f.text) or bool(_TITLE_TAG.match(f.text)))
            and not FRAME.search(f.text)
            and len(f.text) <= 200 and (not f.text.rstrip().endswith((".", "!", "?", ":"))
                                        and any(ln == 2 and not t.strip() for ln, t in f.after[:1])
                                        # (or any first line of no program's, where the program's own out-of-memory
                                        # line follows: "Multi GPU with Vulkan out of memory issue." over a log whose
                                        # ggml_vulkan line names the allocation that failed)
                                        or not program_line(f.text) and any(
                                            g.line_no > f.line_no and g.kind == "oom" and program_line(g.text)
                                            and not user_words(g.text) for g in run.failures)))


#: a KV pool running short while serving, in an engine's words (SGLang's scheduler: "Prefill out of memory. This should
#: never happen.", "Decode out of memory happened. #retracted_reqs: 3")
_POOL_SHORT = re.compile(r"\b(?:Prefill|Decode) out of memory\b")


def _grew_until(run: RunFacts, f: Failure, how: str) -> Diagnosis | None:
    """The run's memory growth (reported or stated) as the cause of failure `f`, which ended it (`how` says so); None
    where the run shows no growth."""
    # (or the engine's own idle check of its pool that found a tenth of it lost, where `f` is that pool running short:
    # "Prefill out of memory", "Decode out of memory"; not a CUDA allocation, which the pool reserved up front does
    # not make fail)
    grown = growth(run) or (slots_lost(run) if _POOL_SHORT.search(f.text) else None)
    if not grown:
        return None
    kill = [(f.line_no, f.text)] if all(ln != f.line_no for ln, _ in grown.evidence) else []
    return replace(grown, evidence=grown.evidence + kill, message=grown.message + how)


#: a failure reported as a load that failed: the server was starting, not serving
_LOAD_FAILED = re.compile(r"\berror loading (?:llama server|the model|model)\b|\bfailed to load (?:the )?model\b", re.I)


def _title_over_words(run: RunFacts, f: Failure) -> Failure | None:
    """The report's markdown title as the failure, where it names a failure that is not memory ("# Eval bug: Vulkan
    Device lost hosting Gemma-4-31B") and the out-of-memory `f` is only a person's sentence, with no failure of the
    program's own in the run ("ROCm backend seem to also crash but instead gets OOM"): the title says what the report
    is about, the sentence a side remark. None otherwise."""
    if f.kind != "oom" or not (user_words(f.text) or sentence_like(f.text)) or not run.heading or (
            f.line_no == run.heading[0]):
        return None
    if any(g.kind in ("oom", "not_oom", "error") and not (user_words(g.text) or sentence_like(g.text))
           for g in run.failures if g.line_no != run.heading[0]):
        return None
    ln, text = run.heading
    v = knowledge().line_verdict(text)
    if v is None or v.kind != "not_oom":
        return None
    return replace(f, line_no=ln, text=text, kind="not_oom", code=v.code, phase=None, candidates=(), wrapper=False,
                   deciding=None, after=[], lines_before=[])


def _latest_survived(run: RunFacts, f: Failure, fatal: list[Failure], engine: str) -> Failure:
    """A failure the run went on from to serve (a Metal command buffer that failed during the warm-up pass, then the
    server ready and the same failure while serving): the first failure after the serving began decides, since the
    phase never goes back before a milestone the run has passed."""
    served = _served_after(run, max(f.end_line, f.line_no), engine)
    if not served:
        return f
    after = [g for g in fatal if g.line_no > min(served)]
    # (not one request's failure the server answered more after, a client that hung up, "BrokenPipeError": the
    # failure after it, the Metal out-of-memory that aborted it, is the run's)
    ended = [g for g in after if not _survived(run, g, engine)]
    return ended[0] if ended else after[0] if after else f


#: failures of one request's answer that stay the run's finding where nothing worse follows (a tool call the parser
#: could not read), but give way to a failure after them the server did not go on from
_ONE_ANSWER = frozenset({"tool-call-parse-error"})


def _survived(run: RunFacts, g: Failure, engine: str) -> bool:
    """Failure `g` is one request's (`_ONE_REQUEST`: a client that hung up; `_ONE_ANSWER`), and the server answered
    more after it."""
    if g.code in _ONE_ANSWER:
        # (from its own line: the traceback it logs may be read on to a later failure's lines, its end past them)
        return bool(_answered_after(run, g.line_no, engine))
    return g.code in _ONE_REQUEST and bool(_answered_after(run, max(g.end_line, g.line_no), engine))


def _answered_after(run: RunFacts, end: int, engine: str) -> list[int]:
    """The lines after line `end` where the server shows it served (`_served_after`), or, among the run's last lines,
    answered a request (the engine's `answered` words)."""
    answered = knowledge().answered
    return _served_after(run, end, engine) or [ln for ln, t in run.tail_lines if ln > end and answered is not None
                                                and not sentence_like(t) and answered.search(t)]


def _evidence_before(d: Diagnosis | None, kind: str, what: str, f: Failure | None = None) -> Diagnosis | None:
    """A quiet diagnosis `d` of `kind` (the engine's own figures or warnings) as the evidence for a failure after it
    whose cause the log does not show (`what`: that evidence, as the message names it; `f`: the failure, added to the
    evidence); None where `d` is not of that kind."""
    if d is None or d.kind != kind:
        return None
    return replace(d, inferred=True, evidence=sorted({*d.evidence, (f.line_no, f.text)}) if f else d.evidence,
                   message=d.message + f" A failure follows whose cause the log does not show; {what} the evidence "
                                       "there is.")


def _starved_before(run: RunFacts, f: Failure, engine: str) -> Diagnosis | None:
    """The engine's own figures that the KV pool it sized from free memory got almost none (`quiet.starved`), before
    failure `f` whose cause the log does not show (TensorRT-LLM's "Number of blocks in KV cache primary pool: 0", then an
    assertion cut short): that is the evidence."""
    return _evidence_before(starved(run, engine), "KV_CAPACITY", "the pool's own figures are", f)


def _full_while_serving(run: RunFacts) -> Diagnosis | None:
    """The pool was full under load before a failure whose cause the log does not show: that is the evidence."""
    return _evidence_before(pressure(run, failed_after=True), "RUNTIME", "the full pool is")


#: a crash of the engine's own code (a bad access, a failed check, an exception its code did not expect): where it
#: follows the engine's retraction or preemption of requests at once, it happened in the path that copes with a full pool
_CRASHES = frozenset({"crash-access-violation", "shape-mismatch", "code-error", "kernel-check-failed",
                      "assertion-failed", "error-not-memory", "device-side-assert", "illegal-memory-access"})
#: the engine's acts on a KV pool full while serving that change the batch under way (not requests left waiting)
_POOL_ACTS = frozenset({"kv-pool-full-retracting", "kv-pool-full-preempting", "kv-pool-full-recomputing"})
#: Python's fault handler's dump of a thread's stack ("Thread 0x00007f4b58a9b700 (most recent call first):")
_THREAD_DUMP = re.compile(r"^\s*(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):")
#: the most lines a crash's first line (its traceback's header, a fault handler's line) may follow the engine's act by
#: (blank lines only between them)
_CRASH_NEXT = 3
#: the most lines a traceback runs from its header to its error line
_TRACEBACK_SPAN = 400


def _crash_after_full_pool(run: RunFacts, f: Failure, error: bool = False) -> Diagnosis | None:
    """The engine's own act on a KV pool full while serving (SGLang's "Decode out of memory happened. #retracted_reqs:
    3", vLLM's preemption), then at once a crash of its code, `f` (SGLang's "Fatal Python error: Segmentation fault",
    FlashInfer's CHECK_GE on the batch's KV indices after the retraction): the crash happened in the path that copes with
    the full pool, reached because the pool ran full under load: RUNTIME (inferred), with the crash named. None where
    `f` is no crash of the engine's code, or something else (a request served, a statistics line, a failure) came between
    the act and the crash. `error`: `f` is an error whose cause is shown and is not memory (a KeyError in the code that
    requeues the retracted requests), whatever its code."""
    if not (error or f.code in _CRASHES) or user_words(f.text) or sentence_like(f.text):
        return None
    acts = [p for p in run.pressure if p.kind == "pressure" and p.code in _POOL_ACTS and p.line_no < f.line_no]
    if not acts:
        return None
    p = acts[-1]
    # the crash's first line: its traceback's header (or a fault handler's thread dump) where the lines before it
    # show one after the act, else the first failure after the act
    header = [ln for ln, t in f.before if ln > p.line_no and (TB_HEADER in t or _THREAD_DUMP.match(t))]
    start = min([g.line_no for g in run.failures if p.line_no < g.line_no <= f.line_no] + header[:1],
                default=f.line_no)
    between = [t for ln, t in f.before if p.line_no < ln < start and t.strip()]
    if start - p.line_no > _CRASH_NEXT or f.line_no - start > _TRACEBACK_SPAN or between:
        return None
    crash = _NOT_OOM.get(f.code, "an error of its code: " + f.text.strip()[-80:]).rstrip(".")
    return Diagnosis(kind="RUNTIME", code="crash-after-kv-pool-full", evidence=[(p.line_no, p.text), (f.line_no, f.text)],
                     oom=None, inferred=True, phase_source=f"the engine's act on a full KV pool just before the crash "
                                                           f"(line {p.line_no})",
                     message="The KV cache pool was full while serving: the engine "
                             f"{COPES.get(p.code, 'coped')} (line {p.line_no}), and the server crashed at once "
                             f"after, in the code that copes with it ({crash}). "
                             "The crash is the engine's bug, worth reporting with these lines; what leads into it is a "
                             "pool too small for this load: fewer concurrent requests or a larger pool keep the server off "
                             "that path.")


#: the pool's usage, in percent, at which a stats line shows it full
FULL_PCT = 99


def _stall_after_full_pool(run: RunFacts, f: Failure) -> Diagnosis | None:
    """The engine's watchdog killing a scheduler that stopped making progress (SGLang's "Scheduler watchdog timeout"),
    where the engine's last stats line before it shows the KV pool full (usage FULL_PCT% or more) with requests queued:
    the stall came in the path that copes with a full pool (eviction, retraction), reached because the pool ran full
    under load: RUNTIME (inferred). None where the last reading shows room, or no request waiting."""
    usage = [u for u in run.numbers.get("kv_usage_pct", []) if isinstance(u, (int, float))]
    queued = [q for q in run.numbers.get("queue_reqs", []) if isinstance(q, int)]
    line = run.number_lines.get("kv_usage_pct", 0)
    if not usage or usage[-1] < FULL_PCT or not queued or queued[-1] <= 0 or not line or line > f.line_no:
        return None
    return Diagnosis(kind="RUNTIME", code="stall-after-kv-pool-full", oom=None, inferred=True,
                     evidence=[(line, f"KV cache usage {usage[-1]:g}%, {queued[-1]} requests queued"),
                               (f.line_no, f.text)],
                     phase_source=f"the engine's stats before the stall (line {line}): the pool full under load",
                     message=f"The KV cache pool was full while serving ({usage[-1]:g}% used, {queued[-1]} requests "
                             "waiting), and then the scheduler made no progress until the engine's watchdog killed "
                             "the server: the stall came in the path that copes with a full pool (eviction of cached "
                             "entries, retraction), an engine bug worth reporting with these lines. What leads into it "
                             "is a pool too small for this load: fewer concurrent requests or a larger pool keep the "
                             "server off that path.")


def _weights_over_working_set(run: RunFacts) -> str | None:
    """Where the weights' Metal buffers the log shows (llama.cpp's "Metal_Mapped model buffer size = 40543.11 MiB",
    summed) are larger than the working-set limit it shows (ggml-metal's "recommendedMaxWorkingSetSize = 22906.50 MB"),
    the words that say so; None otherwise (either figure missing, or the weights within the limit)."""
    ws, gpu = run.numbers.get("working_set_bytes"), summed(run.numbers, "gpu_model_buffer_bytes")
    if not (isinstance(ws, int) and ws > 0 and isinstance(gpu, int) and gpu > ws):
        return None
    return (f"the weights' Metal buffers ({gpu / 2**30:.2f} GiB) against the GPU's working-set limit "
            f"({ws / 2**30:.2f} GiB, recommendedMaxWorkingSetSize): the weights alone do not fit")


#: a structured log line's source field ("source=gpu.go:359"), which names the code that logged it, not a frame
_LOG_SOURCE = re.compile(r"\bsource=\S+\.go:\d+")


#: an exception's own line, its class and its message ("RuntimeError: PassManager::run failed")
_EXCEPTION_SAYS = re.compile(r"(?:^|[\s\]|])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception):\s*\S")


def _missing(f: Failure, place: Place | None) -> str:
    tail = f.after and all(traceback_line(t) for _, t in f.after)
    if f.cut or (not f.after and stated(f.text) and _GOES_ON.search(f.text)) or f.kind == "error" and _stops_short(f):
        where = "the line stops" if f.after else "the log ends"
        return f"the rest of the error line: {where} partway into it ('{f.text.strip()[-60:]}')"
    if f.kind == "error" and (not f.after or tail):
        # (not where the line is the exception's own, under the frames: "RuntimeError: PassManager::run failed")
        if not _EXCEPTION_SAYS.search(f.text) and ("Traceback" in f.text or any(
                FRAME.search(t) and not _LOG_SOURCE.search(t) for _, t in f.after + f.before[-3:])):
            return "the error line itself: the log ends inside the traceback, before the line that says what failed"
        return "the cause: this error says that something failed, not why, and no line after it says more"
    if f.kind == "error" and _CHECK.search(f.text):
        return "the cause: an internal check failed, which says what was wrong, not why (memory among the causes)"
    if f.kind == "error":
        return "the error that caused this one: this line only reports that something failed elsewhere"
    if place is not None and place.source.endswith("cut before its innermost frames"):
        return "the rest of the traceback: its innermost frames and the error line, which the log stops before"
    if f.elided:
        return "the lines between the last start-up step and the failure (an excerpt mark '[...]' cuts them)"
    if not f.progress and (user_words(f.text) or sentence_like(f.text) or TITLE.match(f.text)):
        # (a failure the report's words name, its title or a sentence, above lines of its own that show no start-up)
        return "the server's own lines of the run: the report names the failure, but no line below it shows the start-up"
    if not f.progress and any(t.strip() for _, t in f.before):
        # (lines before it, none a start-up step vramdoctor knows: an engine it does not recognise, or a quiet one)
        return ("a start-up step before the failure: the lines before it name none that vramdoctor knows (loading the "
                "weights, sizing the KV cache, warming up, serving); an engine it does not recognise prints its own")
    if not f.progress:
        return "the server's start-up lines: the log begins at the failure"
    return "a line that names the step under way (frames, a warm-up or allocation message)"


def _told_markers(run: RunFacts) -> frozenset[str]:
    """The milestones only a user's words gave (no program's line: "the crash below happens when we send requests")."""
    # (a serving line a program printed bare, text-generation-webui's "Output generated in 21.47 seconds (...)", shows
    # it served; a start-up bar printed bare, transformers' "Loading checkpoint shards: 100%", read the weights into
    # host memory, which a model moved to the GPU after it, `model.cuda()`, goes past: a person's, as before)
    # (a person's sentence that serving was under way, not in the first person: "It fails when processing a 128k long
    # sequence.", "The next RAG query needs the embedding worker": told, not a line the server printed)
    return frozenset(m for m, t in run.progress_text.items()
                     if persons_line(t) or not program_line(t) and (m not in ("ready", "requests") or (
                         sentence_like(t) or user_words(t) or _SHORT_SENTENCE.match(t) and not PROGRAM_MARKS.search(t))
                         and not STRONG_PREFIX.match(t)))


#: a short sentence as people write them: a capital word, then four or more plain words, a stop last (not a program's
#: "Serving on http://0.0.0.0:8080.")
_SHORT_SENTENCE = re.compile(r"^\s*[A-Z][a-z]+(?:,? +[A-Za-z0-9][\w'\u2019-]*){4,}[^\n]*[.!?:]['\x22)]?\s*$")


#: a row of a markdown table the report draws ("| Qwen3.5 PyTorch | accumulates, never frees | ~2,013 GB | OOM |")
_TABLE_ROW = re.compile(r"^\s*\|[^|\n]*\|")


#: failures whose runtime's own detail follows within a few lines and names what it could not get: (kind, code) ->
#: (the detail's kind, the lines it may come within). NCCL's error, then "Last error: / Cuda failure 'out of memory'":
#: the CUDA call it names ran out of memory; Ascend's "Failed to apply for memory.", then "[SqCqManage]Alloc sq cq
#: fail": its stream queues, not memory; Metal's "command buffer 0 failed with status 5" (an error of any kind: older
#: ggml-metal printed nothing more, and it was most often memory), then "error: Caused GPU Hang Error (...Hang)": a hang
#: (the detail's code too, where only one does: not ggml's "fatal error" abort that follows every one of them)
_DETAIL_AFTER = {("not_oom", "nccl-error"): ("oom", 4, ""), ("oom", "npu-alloc-failed"): ("not_oom", 6, ""),
                 ("oom", "metal-command-buffer-oom"): ("not_oom", 3, "metal-command-buffer-error")}


def _cut_copy_of_refusal(run: RunFacts, f: Failure) -> bool:
    """Error line `f`'s last words are inside a request's refusal the run shows whole elsewhere, which goes on past them
    (the report quotes llama-server's "send_error: ... error: request (24743 tokens) exceeds the available context
    size (24064 tokens)" above a log cut at "... request (24743 tokens) exceed")."""
    if not run.refused_first:
        return False
    tail, whole = f.text.rstrip()[-30:], run.refused_first[1]
    # (its last words inside the refusal, which goes on past them: the same line, cut)
    at = whole.find(tail) if len(tail) >= 16 else -1
    return at >= 0 and len(whole.rstrip()) > at + len(tail)


#: the frames of setting up the alternate signal stack (Python's faulthandler.enable(), sigaltstack itself)
_SIGNAL_STACK = re.compile(r"\bfaulthandler\.enable\(|\bsigaltstack\b")
#: failures that are an engine waiting on a worker past its timeout: a consequence where the worker's failure shows
_WAITED_ON = frozenset({"worker-rpc-timeout"})
#: an exception as it prints: its class and the first words of its message ("KeyError: 'local_attn_masks'")
_EXCEPTION_SAID = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Exit|Interrupt)): (\S[^\n]{2,60})")


#: an argument check's words on two limits given (TGI's ArgumentValidation, "`a` must be <= `b`. Given: x and y")
_ARGUMENT_CHECK = re.compile(r"\bArgumentValidation\b|`\w+` must be <= `\w+`\. Given: \d+ and \d+")
#: not-memory failures of one request, which a server survives: code -> what happened
_ONE_REQUEST = {"client-disconnected": "its client hung up before the answer was written (a Stop pressed, a timeout on "
                                       "the client's side)"}
#: the least of an error line two lines must begin with alike to be the same error quoted twice (a title's
#: "Error: DriverError(CUDA_ERROR_OUT_OF_MEMORY) al cargar ..." and the output's "Error:
#: DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")")
_SAME_ERROR_CHARS = 24


def _same_error(a: str, b: str) -> bool:
    """Lines `a` and `b` hold the same error: the same text, or the same first words of it, an exception's class and
    its first argument (`_SAME_ERROR_CHARS` characters at the least), however each goes on."""
    a, b = a.strip(), b.strip()
    if a == b:
        return True
    same = os.path.commonprefix([a, b])
    return len(same) >= _SAME_ERROR_CHARS and bool(STATED.search(same) or _EXCEPTION_SAID.search(same)
                                                    or OOM_ANY.search(same))


#: words in quotes in a report's title or sentence (what it quotes of the log)
_QUOTED = re.compile(r"[\x22\u201c`]([^\x22\u201d`]{12,300})[\x22\u201d`]")


def _quotes_a_note(run: RunFacts, f: Failure) -> bool:
    """Failure `f` is a report's title or sentence that quotes a warning the engine printed and went on from (a note:
    ggml's "failed to allocate 2706.50 MiB of pinned memory: out of memory", then the buffer made in ordinary memory):
    every word it quotes stands in one of the run's notes. Such words report no failure of their own."""
    if not run.notes or not (TITLE.match(f.text) or user_words(f.text) or f.line_no == run.first_line):
        return False
    quoted = [set(re.findall(r"[a-z]+", m.group(1).lower())) for m in _QUOTED.finditer(f.text)]
    quoted = [q for q in quoted if len(q) >= 3]
    return bool(quoted) and all(any(q <= set(re.findall(r"[a-z]+", t.lower())) for _, t in run.notes) for q in quoted)


def _own_line_of(run: RunFacts, f: Failure) -> Failure | None:
    """The log's own line (a program's, after `f`) of the error a report's words `f` restate: an exception whose class
    and first words `f` holds too. None where the log has no such line."""
    for g in run.failures:
        if g.line_no <= f.line_no or g.kind != "error" or not program_line(g.text) or user_words(g.text):
            continue
        m = _EXCEPTION_SAID.search(g.text)
        if m and f"{m.group(1)}: {m.group(2)[:20]}" in f.text:
            return g
    return None


def _detail_after(f: Failure, fatal: list[Failure]) -> Failure:
    """Failure `f`, or, where its runtime prints what it could not get a few lines on (`_DETAIL_AFTER`), that detail:
    after it, on a later line or later on the same line (a JSON string's "\\nLast error:\\nFailed to CUDA malloc")."""
    told_apart = _DETAIL_AFTER.get((f.kind, f.code))
    if not told_apart:
        return f
    kind, within, code = told_apart
    after = next((i + 1 for i, g in enumerate(fatal) if g is f), None)
    rest = fatal[after:] if after is not None else [g for g in fatal if g.line_no > f.line_no]
    detail = [g for g in rest if g.kind == kind and 0 <= g.line_no - f.line_no <= within and g.code == (code or g.code)]
    return detail[0] if detail else f


#: Python's line between a chained exception and the one raised from it (`raise X(...) from e`)
_DIRECT_CAUSE = re.compile(r"^\s*The above exception was the direct cause of the following exception:")


def _cause_of_reraise(f: Failure, fatal: list[Failure], engine: str) -> Failure:
    """An out of memory raised again with an engine's own words (`raise RuntimeError("Not enough memory to handle N
    prefill tokens") from e`: Python prints the cause first, then "The above exception was the direct cause of the
    following exception:", then the error raised from it): where the cause's own stack frames place it in another phase
    than the words raised from it (TGI 3's warm-up wraps making the KV cache and its prefill in one handler), the cause
    decides, in its frames' phase. `f`: the failure chosen, the cause or the error raised from it."""
    if f.kind != "oom":
        return f
    for h in fatal:
        if h.kind != "oom" or h.line_no < f.line_no:
            continue
        cause = [g for g in fatal if g.kind == "oom" and g.line_no < h.line_no and g.line_no <= f.line_no
                 and any(_DIRECT_CAUSE.match(t) and ln > g.line_no for ln, t in h.before)]
        if not cause:
            continue
        g = cause[-1]
        at = locate(g, engine)
        if at.source.startswith("the stack frames") and at.phase and at.phase != locate(h, engine).phase:
            return replace(g, phase=at.phase)  # (its phase its frames', not the words raised from it below)
        return f
    return f


#: at most this share of the GPU in use at start is what the process's own CUDA context and communicators take, with
#: no other process needed to explain it (a context is 0.3-1 GiB; NCCL's buffers and a driver's reserve more on large
#: GPUs): a fraction asked above what is then free is the fraction's own fault
_OWN_START_SHARE = 0.03


def _fraction_above_free(run: RunFacts) -> str:
    """The code of vLLM's start-up check that found less free memory than its fraction asks for: where what was in use
    is no more than a process's own start takes (`_OWN_START_SHARE` of the GPU), `fraction-above-free` (a fraction
    near 1, above what any GPU has free once the CUDA context is made), else `gpu-shared-with-other-process`. The
    figures are the check's own, "Free memory on device (173.8/178.35 GiB)"."""
    free, total = run.numbers.get("free_memory_bytes"), run.numbers.get("total_memory_bytes")
    if isinstance(free, int) and isinstance(total, int) and 0 < free <= total and total - free <= _OWN_START_SHARE * total:
        return "fraction-above-free"
    return "gpu-shared-with-other-process"


def _warned_and_went_on(run: RunFacts, f: Failure, engine: str) -> bool:
    """Failure `f` is not memory (or names no cause), printed by the program at warning level, and the server served
    after it (its ready line or a request answered): a warning it went on from (LMDeploy's "WARNING - utils.py:328 -
    User-specified max_model_len (65536) is greater than the derived max_model_len", which vLLM raises unless allowed;
    llama-server's "W srv load_model: [spec] failed to measure draft model memory: ..."), no failure."""
    if f.code in _ANSWERED_ANYWAY:  # (its request answered after it: the last lines answer, none failed after it)
        end = f.line_no  # (one line: the lines read after it are not its own)
        return bool(_answered_after(run, end, engine)) and not any(
            FAILED_REQUEST.search(t) for ln, t in run.tail_lines if ln > end)
    # (or a bare line the program prints again and again as it goes on, each of its processes once, and serves after:
    # sgl-kernel's "Failed to get device capability: nvcc not found and PyTorch is not built with CUDA support. Could
    # not determine CUDA version.." on ROCm, then "The server is fired up and ready to roll!")
    again = (f.kind in ("not_oom", "error") and f.code not in _SERVES_DEGRADED and not f.wrapper
             and sum(t.strip() == f.text.strip() for _, t in f.after[:16]) >= 1
             and not any(FRAME.search(t) for _, t in [*f.before[-3:], *f.after[:3]]))
    if again and _served_after(run, max(f.end_line, f.line_no), engine):
        return True
    # (or a line of no level that says in itself it goes on another way, and the server served after it: "Could not
    # determine user, using default path. Error: [Errno 13] Permission denied: '/mnt/nfs_test'")
    if (f.kind in ("not_oom", "error") and f.code not in _SERVES_DEGRADED and program_line(f.text) and not f.wrapper
            and _GOES_ON_WITH.search(f.text) and _served_after(run, max(f.end_line, f.line_no), engine)):
        return True
    if not (f.kind in ("not_oom", "error") and f.code not in _SERVES_DEGRADED and program_line(f.text)
            and _WARNING_LEVEL.match(f.text)):
        return False
    if _served_after(run, max(f.end_line, f.line_no), engine):
        return True
    # (or a warning that says it takes another way, and the program's next line goes on with it: "WARNING INT8 load
    # failed ('Gemma4ForConditionalGeneration' object has no attribute 'set_submodule') ? falling back to bfloat16"
    # then "INFO Loading model in bfloat16 ...")
    nxt = next((t for _, t in f.after if t.strip()), "")
    return bool(f.kind == "error" and _FALLS_BACK.search(f.text) and program_line(nxt) and not error_level(nxt)
                and not _WARNING_LEVEL.match(nxt))


#: a program's words in the failure's own line that it takes a default or another way ("using default path", "falling
#: back to CPU", "defaulting to 1"): what failed was optional
_GOES_ON_WITH = re.compile(r"\busing (?:the )?default\b|\bdefaulting to\b|\bfall(?:s|ing)? ?back to\b", re.I)
#: a warning's words that the program takes another way after what failed
_FALLS_BACK = re.compile(r"\bfall(?:s|ing)? ?back(?: to)?\b|\bretrying (?:with|without|on)\b", re.I)


#: errors an engine prints at error level for a path it then takes another way, the request still answered: llama.cpp's
#: "decode: cannot decode batches with this context (use llama_encode() instead)" for an embedding model (Ollama's
#: /api/embed answers 200 after each), a failure only where no answer follows
_ANSWERED_ANYWAY = frozenset({"decode-on-encoder-model"})


#: not-memory failures a server goes on to serve from, slower or smaller, that stay the run's finding: a GPU refused (the
#: CPU serves), an RPC worker it could not reach (placed without it)
_SERVES_DEGRADED = frozenset({"gpu-unsupported", "gpu-not-detected", "rpc-worker-unreachable"})


#: an optional module's import that failed, the exception caught and printed by its repr ("Failed to import amdsmi with
#: ModuleNotFoundError(\"No module named 'amdsmi'\")", vLLM's "Failed to import from vllm._C with ImportError(...)"):
#: the program logs it and goes on without the module
_OPTIONAL_IMPORT = re.compile(r"\b[Ff]ailed to import (?:from )?[\w.]+(?: from [\w.]+)? with (?:ModuleNotFoundError|"
                              r"ImportError|OSError)\(")


def _optional_import_passed(run: RunFacts, f: Failure) -> bool:
    """Failure `f` is an optional import the program caught and printed (`_OPTIONAL_IMPORT`), and the run went on past
    it: a later step of its own, or a later failure that ended it (SGLang on ROCm without amdsmi, then "Load weight
    begin" and an out of memory): no failure of its own."""
    return (f.kind in ("not_oom", "error") and bool(_OPTIONAL_IMPORT.search(f.text))
            and (any(ln > f.line_no for ln in run.progress.values())
                 or any(g.line_no > f.line_no and g.kind in ("oom", "not_oom") and not _OPTIONAL_IMPORT.search(g.text)
                        for g in run.failures)))


def _quoted_as_gone(f: Failure) -> bool:
    """Failure `f` is quoted under a person's line that announces it as an error they no longer get ("With
    --max-model-len 16384 I no longer get the following error:", then the error): a past failure, not the run's."""
    above = [(ln, t) for ln, t in f.before[-3:] if t.strip()]
    if not above:
        return False
    ln, text = above[-1]
    return user_words(text) and text.rstrip().endswith((":", "：")) and says_gone(text)


#: not-memory failures of an allocator's own CUDA call that PyTorch reports as an out of memory just after (vLLM's
#: sleep-mode allocator, cumem_allocator.cpp)
_REPORTED_AS_OOM = frozenset({"allocator-cuda-error"})
#: ... within this many lines after it (its traceback between them)
_REPORTED_WITHIN = 40


#: Ray's exception for a remote task or actor's, naming the class of its cause
_RAY_CAUSE_CLASS = re.compile(r"\bRay(?:Task|Actor)Error\(\w+\)")


def _deciding(run: RunFacts, engine: str) -> tuple[Failure | None, tuple[int, str] | None]:
    """The failure that decides run `run` (None: the run shows none), and the line of the report's own words that gave
    its cause where the log's lines do not (a user's sentence, or the title; None where they do)."""
    told: tuple[int, str] | None = None  # a user's sentence that gave the cause of the failure the log shows cut
    # (nor a discovery that found no GPU of one kind where the run found another to use: Ollama's "no nvidia devices
    # detected" beside its ROCm GPU's "inference compute ... library=rocm ... available=23.5 GiB")
    other_gpu = bool(positive(run.numbers, "gpu_available_bytes"))
    failures = [g for g in run.failures if not _warned_and_went_on(run, g, engine)
                and not (g.code == "gpu-not-detected" and other_gpu) and not _quoted_as_gone(g)
                and not _optional_import_passed(run, g) and not tracker_noise(g) and not wished(run, g)
                and not _request_cancelled(run, g, engine) and not _side_thread_died(run, g)]
    # (and the report's words that quote such an error after the log, "why there is so much decode: cannot decode
    # batches with this context": the program's lines of it were gone on from)
    gone = {g.code for g in run.failures if g.code in _ANSWERED_ANYWAY and g not in failures}
    failures = [g for g in failures if not (g.code in gone and not program_line(g.text))]
    fatal = [f for f in failures if f.kind in ("oom", "not_oom") and not _self_kill(f) and not _quotes_a_note(run, f)]
    # (an allocator's CUDA call that failed for another cause, which PyTorch then raised as an out of memory, the
    # allocation having returned nothing: the out of memory after it is that failure's report, not memory)
    reported = [g.line_no for g in fatal if g.code in _REPORTED_AS_OOM]
    if reported:
        fatal = [g for g in fatal
                 if not (g.kind == "oom" and any(0 < g.line_no - ln <= _REPORTED_WITHIN for ln in reported))]
    # (not one request's failure the server answered more after, a client that hung up, where another failure
    # follows: that one ended the run)
    ended = [g for g in fatal if not _survived(run, g, engine)]
    # (nor one where another failure of the run's own comes after it, answered or not: a client that hung up, then
    # memory running out, ended with the out of memory)
    ended = [g for g in ended if not (g.code in _ONE_REQUEST and any(
        h.line_no > g.line_no and h.code not in _ONE_REQUEST for h in ended))] or ended
    f = ended[0] if ended else fatal[0] if fatal else next((g for g in failures if not _quotes_a_note(run, g)), None)
    if f is None:
        return None, None
    if f.kind == "error" and (user_words(f.text) or sentence_like(f.text)) and not program_line(f.text) and not fatal:
        # (the report's words of an error above the program's own line of it, "vllm-metal errors out with an assertion
        # failure" over the engine's "EngineCore encountered a fatal error." after served requests: the program's line,
        # with the run's progress before it, is the failure)
        own = next((g for g in failures if g.line_no > f.line_no and g.kind == "error" and program_line(g.text)
                    and not user_words(g.text) and not _quotes_a_note(run, g)), None)
        f = own or f
    if f.kind == "not_oom" and _RAY_CAUSE_CLASS.search(f.text):
        # Ray's exception that names its cause's class ("RayTaskError(KeyError): ray::...execute_method()"), then the
        # cause's own traceback: the cause's own line, where the log has it, decides
        below = [g for g in fatal if g.line_no > f.line_no]
        f = below[0] if below else f
    if f.code == "crash-access-violation":
        # a crash by a bad access, which names no cause, beside memory running out in the same run ("fails to load on
        # GPU with ROCm OOM errors, and for some settings even ends with a segfault"; an allocation that returned
        # nothing, then used): the out-of-memory is the cause, the crash its consequence
        ooms = [g for g in fatal if g.kind == "oom"]
        f = ooms[0] if ooms else f
    if f.code in _SERVES_DEGRADED:
        # a failure the engine goes on from, placing the model without what it refused (an RPC worker it could not
        # reach), then memory running out: the placement without it did not fit, and that ended the run
        short = [g for g in fatal if g.line_no > f.line_no and g.kind == "oom"]
        f = short[0] if short else f
    # (or the report's title quotes it, on the run's first line, and the output below ends in it)
    again = [g for g in fatal if g is not f and g.line_no > f.line_no and _same_error(f.text, g.text)
             and (len(g.progress) > len(f.progress) or f.line_no == run.first_line or TITLE.match(f.text))]
    if again:
        # the same line again further on, after start-up steps the first had not (the report quotes the error, then
        # pastes the whole output that ends in it): the one in the output, with its progress, is the failure
        f = again[0]
    if _self_kill(f):  # the engine's own kill after a worker failed: the failure is above it, its cause maybe not shown
        f = replace(f, kind="error", phase=None, code="")
    f = _detail_after(f, fatal)
    if f.kind in ("oom", "not_oom"):
        f = _detail_after(_latest_survived(run, f, fatal, engine), fatal)
    f = _cause_of_reraise(f, fatal, engine)
    if f.code in _WAITED_ON:
        # the engine's timeout waiting on a worker, after that worker's own failure in the log (an illegal memory
        # access, an out of memory): the worker's failure is the cause, the timeout its consequence
        before = [g for g in fatal if g.line_no < f.line_no and g.code not in _WAITED_ON]
        f = before[-1] if before else f
    titled = _title_over_words(run, f)
    if titled:
        return titled, None
    if f.kind in ("oom", "not_oom") and (user_words(f.text) or sentence_like(f.text) or INTRO.match(f.text)
                                          or _plain_title(run, f) or TITLE.match(f.text)
                                          or f.kind == "oom" and (told_in_a_sentence(f.text)
                                                                  or brings_on_failure(f.text))):
        # a user's sentence that names the failure ("I was able to reproduce it: ... after a fatal OOM", "After
        # upgrading, loading the model fails with OOM errors during model initialization."): the engine's own line of
        # it, where the log has one, decides
        # (not the crash the report's words explain as an allocation that failed first: the crash is its consequence)
        # (a traceback's code line is the program's, quotes and all: `raise NotImplementedError(f"{q} is not ...")`)
        own = [g for g in fatal if g is not f and g.kind in ("oom", "not_oom")
               and (not user_words(g.text) or _CODE_LINE.match(g.text))
               and not sentence_like(g.text) and not INTRO.match(g.text) and not _TABLE_ROW.match(g.text)
               # (nor a crash by a bad access under a person's words of an out-of-memory: "still comes to an OOM with
               # 10000+ inference requests", then the crash dump, SIGSEGV in the allocator: the crash names no cause)
               and not (f.kind == "oom" and g.code == "crash-access-violation")
               # (nor a warning the program went on from that names another cause: "WARN ... Cannot determine GPU
               # compute capability: AssertionError: Torch not compiled with CUDA enabled" under a title's
               # "Backend(NotEnoughMemory(64))")
               and not (f.kind == "oom" and g.kind == "not_oom" and _WARNING_LEVEL.match(g.text))]
        later = [g for g in run.failures if g.kind == "error" and g.line_no > f.line_no and not user_words(g.text)
                 and not _WARNING_LEVEL.match(g.text)]  # (an error a warning line reports, the program going on)
        # (an error below the words that goes on to its cause, and the cause is not memory: "It results in OOM on
        # A100." above a traceback that ends "ValueError: Unknown quantization method", or in a bare AssertionError:
        # the log's own failure is that error, as where a title names the out-of-memory)
        # (a Rust panic's header, its cause on the line below it: "called `Result::unwrap()` on an `Err` value:
        # DriverError(CUDA_ERROR_ILLEGAL_ADDRESS, ...)", after "`--isq 8` ... OOMs pretty fast. At 4 or 5, ... produces:")
        shown = [g for g in later if not sentence_like(g.text) and not _under_a_warning(g)
                 and (_cause_shown(g) or _assertion(g) or _raised_not_memory(g)
                      or _cause_shown(_with_panic_message(g)))]
        cut = [g for g in later if g not in shown]
        # (or the engine's wrapper line that names the ledgers its step could have failed in: "failed to create context
        # with model", after the weights, for "It is saying out of memory but it's not")
        named = [g for g in run.failures if g.kind in ("wrapper", "error") and (g.phase or g.candidates)
                 and program_line(g.text)]
        stepped = [g for g in fatal if g is not f and g.kind == "oom" and g.line_no > f.line_no and not g.phase
                   and during_step(g.text, engine)] if f.kind == "oom" and not f.phase and not own and (
            _plain_title(run, f) or TITLE.match(f.text)) else []
        if own:
            f = _detail_after(own[0], fatal)
        elif stepped:
            # (a title that names the out-of-memory alone, "Eval recipe produces OOM with Llama 3.1", then the body's
            # sentence of it that names the step, "run into an OOM error as it tries to create the kv cache")
            f = stepped[0]
        elif f.kind == "oom" and shown and not cut:
            f = shown[0]
            # (a panic's header whose message line below is a failure of its own, with the engines' verdict: that one)
            below = next((g for g in run.failures if g.line_no == f.line_no + 1 and g.kind == "not_oom"), None)
            f = below if below and _with_panic_message(f) is not f else f
        elif f.kind == "oom" and not f.phase and not f.candidates and named and not cut:
            told = (f.line_no, f.text)
            f = replace(named[0], kind="oom", code="", wrapper=False, deciding=None)
        elif f.kind == "oom" and cut:
            # ... or its error cut short before its cause ("now I have a new "out of GPU memory" problem" above a
            # traceback that stops before its last line): the user's words give the cause, the engine's lines the place
            # (where those words are an engine's own message that names its step, "ValueError: No available memory for
            # the cache blocks" quoted in the title, the step is the engine's verdict: kept)
            told = (f.line_no, f.text)
            # (a traceback that goes on past an excerpt's '[...]' is read in the frames after it: its innermost, last)
            more = [g for g in cut[1:] if FRAME.search(g.text) and g.line_no - cut[0].line_no <= 200
                    and g.before and any(ELISION.search(t) for ln, t in g.before if ln > cut[0].line_no)]
            f = replace(more[-1] if more else cut[0], kind="oom", code=f.code if f.phase else "", phase=f.phase,
                        wrapper=False, deciding=told if f.phase else None)
    if f.kind == "oom" and not f.phase and user_words(f.text):
        # a user's words of an out-of-memory that name no step, below a title that quotes the engine's own error with
        # its step ("# llama_model_load: error loading model: unable to allocate backend buffer"): the title's step
        titled = _titled_cause(run)
        if titled and titled[0].kind == "oom" and titled[0].phase:
            v, told = titled
            f = replace(f, phase=v.phase, code=v.code, deciding=told)
    if f.kind == "oom" and not (f.phase and f.code):
        # a driver's line first, the engine's verdict (its phase, or its code for the same phase) soon after
        said = [g for g in fatal if g.kind == "oom" and g.phase and 0 < g.line_no - f.line_no <= 50
                and (not f.phase or g.phase == f.phase and g.code)]
        f = said[0] if said else f
    return f, told


#: an engine shutting itself down after a worker's failure, which it ends by SIGKILL to its own process tree (vLLM V1's
#: core_client.py "Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.",
#: SGLang's "Received sigquit from a child process. It usually means the child failed."): the shell's "Killed" after it
#: is that, not the OOM killer
_SELF_SHUTDOWN = re.compile(r"Got fatal signal from worker processes|See stack trace above for root cause|"
                            r"Received sigquit from a child proces|"  # (an SGLang release spells it "proces.")
                            # (SGLang 0.5's: "SIGQUIT received. signum=None, frame=None. It usually means one child
                            # failed.", after "Subprocess scheduler_0 (pid=7391) crashed with exit code -11. Triggering
                            # SIGQUIT for cleanup...")
                            r"SIGQUIT received\b[^\n]{0,80}?\bIt usually means one child failed|"
                            r"\bcrashed with exit code -?\d+\. Triggering SIGQUIT for cleanup")


def _self_kill(f: Failure) -> bool:
    """`f` is a bare SIGKILL (no killer named) right after the engine's own words that it is shutting itself down."""
    return (f.phase == "HOST" and bool(SIGKILL_RX.search(f.text) or _SHELL_KILLED.match(f.text))
            and not _OOM_KILLER.search(f.text) and (any(_SELF_SHUTDOWN.search(t) for _, t in f.before[-_SELF_SPAN:])
                                                     or _after_a_bug(f)))


def _after_a_bug(f: Failure) -> bool:
    """The kill `f` directly follows a traceback that ended in a bug of the code (an AssertionError, a KeyError, ...:
    SGLang 0.1-0.2 kills its own process tree after its controller's exception, and the shell reports "Killed"): the
    engine's own kill, the bug its cause."""
    last = [t for _, t in f.before[-4:] if t.strip()]
    return bool(last) and bool(_BUG_CLASS.match(last[-1]))


#: an exception of a bug in code, as a traceback's last line
_BUG_CLASS = re.compile(r"^\s*(?:[\w.]+\.)?(?:AssertionError|" + CODE_ERRORS + r")\b(?::|\s*$)")


#: the most lines between the engine's words that it stops itself and the kill (other processes' lines of going down
#: come between: NCCL's "[Service thread] Connection closed by localRank 1", one per peer)
_SELF_SPAN = 16


#: the shell's word for a job that died of SIGKILL ("Killed", "[1]+  Killed   python -m ...")
_SHELL_KILLED = re.compile(r"^\s*(?:\[\d+\][+-]?\s+)?Killed\b")


def _context_swept(run: RunFacts) -> str | None:
    """Where the report's table of context sizes ("- 21k context: 23194MiB used", "- 22k context: OOM") shows it ran
    out of memory only from some context up and ran below it, the words that say so (the KV cache, which grows with
    the context, is what no longer fits); None otherwise."""
    rows = [r for r in run.numbers.get("_context_sweep") or [] if isinstance(r, tuple)]
    failed = [t for t, oom in rows if oom]
    ran = [t for t, oom in rows if not oom and failed and t < min(failed)]
    if not failed or not ran:
        return None
    return (f"the report's table of context sizes (line {run.number_lines.get('_context_sweep', 0)}): it ran at "
            f"{max(ran):,} tokens and ran out of memory from {min(failed):,} up")


#: the smallest context (tokens) at which an out of memory, where every larger one ran out too, says the part that does
#: not shrink with the context is what did not fit (a model's KV cache at 8K tokens is a small share of its weights)
_SMALL_CONTEXT = 8192


def _every_context_failed(run: RunFacts) -> tuple[int, int] | None:
    """(the smallest and largest context, tokens) where the report's or a launcher's tries at three or more context
    sizes ("Probe 1: ctx=128K ... OOM" down to "Probe 5: ctx=8K ... OOM", `_context_sweep`) all ran out of memory,
    down to one of `_SMALL_CONTEXT` or less: the KV cache, which shrinks with the context, is not what broke; the
    weights or the buffers that do not shrink with it are. None otherwise (any context ran, or the tries stop at a
    large one)."""
    rows = [r for r in run.numbers.get("_context_sweep") or [] if isinstance(r, tuple)]
    sizes = {t for t, _ in rows}
    if len(sizes) < 3 or not all(oom for _, oom in rows) or min(sizes) > _SMALL_CONTEXT:
        return None
    return min(sizes), max(sizes)


#: the engine's plan of what each device holds, by ledger, before it allocates (llama.cpp's memory breakdown)
_PLANNED = (("planned_model_bytes", "WEIGHTS", "model"), ("planned_context_bytes", "KV", "context (KV cache)"),
            ("planned_compute_bytes", "WARMUP", "compute"))


def _planned_ledger(run: RunFacts, left: list[str]) -> tuple[str, str] | None:
    """The phase whose buffer the allocation that failed was, where its size is one the engine planned for a device
    before allocating (llama.cpp's memory breakdown: a device's model, context and compute buffers), to within half a
    percent and one ledger only, and that phase is among those left; None otherwise."""
    n = run.numbers
    failed = positive(n, "failed_alloc_bytes")
    found = set()
    for key, phase, name in _PLANNED:
        for size in positive(n, key):
            if any(abs(v - size) <= max(2**20, size // 200) for v in failed):
                found.add((phase, name, size, key))
    if len({f[0] for f in found}) != 1:
        return None
    phase, name, size, key = found.pop()
    if phase not in left:
        return None
    return phase, (f"the engine's own plan: the allocation that failed is the {size / 2**20:,.0f} MiB {name} buffer "
                   f"it planned for the device (line {run.number_lines.get(key, 0)})")


#: a bare AssertionError (no message of its own) and the `assert` statement its traceback shows just before it
#: (also with its colon and nothing after it, as IPython prints it: "AssertionError: "; and the statement as IPython's
#: excerpt marks it, "-> 1228 assert param_data.shape == loaded_weight.shape")
_BARE_ASSERTION = re.compile(r"\bAssertionError:?\s*$")
_ASSERT_LINE = re.compile(r"(?:^|\]\s|\|\s)\s*(?:-*>\s*)?(?:\d+\s+)?assert\s+(\S.*)$")
#: an AssertionError's own words on its line (its condition, or a message)
_ASSERTION_SAYS = re.compile(r"\bAssertionError:\s*(\S.*?)[`'\x22]?\.?\s*$")
#: an assertion's message that names a capability or a state the code lacks (a build, a back end, a feature, a pass)
_UNSUPPORTED = re.compile(r"\b(?:not (?:supported|compiled|enabled|available|implemented|removed|installed)|"
                          r"does(?:n't| not) support|unsupported|only supports?|not compatible)\b", re.I)
#: ... of them, those that say a path is missing rather than a thing absent ("does not support", "not implemented";
#: not "not available", "not enabled", which a cache or its memory may be)
_FEATURE_MISSING = re.compile(r"\b(?:does(?:n't| not) support|(?:is |are )?not (?:yet )?(?:supported|implemented)|"
                              r"unsupported)\b", re.I)
#: ... unless the message also says something ran out ("Out of KV cache blocks; swapping is not supported in V1")
_RAN_OUT = re.compile(r"\bout of\b|\bnot enough\b|\bno (?:free|more)\b|\bis full\b|\bexhausted\b|\binsufficient\b", re.I)
#: ... or quoted whole inside a wrapper's line (vLLM V1's "RuntimeError: Worker failed with error 'AssertionError:
#: auto_functionalized was not removed', please check the stack trace above for the root cause")
_ASSERTION_QUOTED = re.compile(r"[`'\x22]AssertionError:\s*([^`'\x22\n]{3,300}?)\.?[`'\x22]")
#: ... or a rule a setting's value breaks ("max_chunk_size must be multiple of 256, received None", "tp_size must be
#: divisible by the number of heads", "temperature must be positive")
_CONSTRAINT = re.compile(r"\bis not (?:a multiple of|divisible by)\b|\bexpects? [\w.]+ to be one of\b|"
                         r"\bmust be (?:an? )?(?:multiple of|divisible by|positive|non-negative|greater than|less than|"
                         r"smaller than|larger than|at least|at most|between|one of|set|specified|an? (?:int|integer|"
                         r"string|list|bool|float))\b|\b(?:received|got) None\b", re.I)
#: a condition or message that two values must agree (equal, or a mismatch named): a consistency check
_AGREEMENT = re.compile(r"[=!]=|\bmismatch\b|\bexpected\b.{1,80}\b(?:got|but)\b", re.I)
#: words in an assertion's condition that may be about memory (a pool, blocks, free bytes, the cache)
# (not a block's size, "tokensPerBlock % 64 == 0", "Tokens per block must be a power of 2": a shape the kernels need)
_MEMORY_CONDITION = re.compile(r"mem|alloc|pool|buffer|(?<!per )(?<!per)block(?!s? ?size|_size)|free|cache|kv|bytes|"
                               r"size_in|capacity|budget|avail", re.I)
#: a setting's name in an assertion's condition, with the objects it is read from: a switch
#: (`get_global_server_args().disable_chunked_prefix_cache`, `cache_config.enable_prefix_caching`, `use_cuda_graph`),
#: whose words are a feature's, not memory's state
_SWITCH = re.compile(r"(?:\b\w+(?:\(\))?\.)*\b(?:disable|enable|use)_\w+", re.I)


#: an assertion's message that a thing, named by one identifier, must be there ("kv_cache is required for decode",
#: "attn_metadata must not be None"; not an amount, "4 free blocks are required")
_REQUIRED = (r"^\s*[`'\x22]?[A-Za-z_][\w.\[\]()]*[`'\x22]? (?:(?:is|are) required|(?:must|should|cannot|can ?not) (?:not )?be "
             r"None|(?:is|are) missing)\b")


#: a condition that checks an object's type or presence (`isinstance(params.token_to_kv_pool_allocator,
#: TokenToKVPoolAllocator)`, `self.kv_cache is not None`, `hasattr(layer, "kv_cache")`): it names objects, no amount
_TYPE_CHECK = re.compile(r"^\s*\(?\s*(?:not\s+)?(?:isinstance|issubclass|hasattr|callable|type)\s*\(|^[\w.\[\]()]+\s+is\s+"
                         r"(?:not\s+)?None\s*(?:,|$)|"
                         # (or a choice among named options, SGLang's server_args: "KV4 MHA expects attention_backend to
                         # be one of ['triton', 'torch_native', ...], but got flashinfer": a setting's value, not a size)
                         r"\bto be (?:one of|in) [\[({]\s*['\x22]|"
                         # (or a message that a thing must be there: rtp-llm's "AssertionError: kv_cache is required
                         # for decode", "attn_metadata must not be None"; what is absent, not how much)
                         + _REQUIRED)


def _speaks_of_memory(cond: str) -> bool:
    """An assertion's condition names something memory is made of (`_MEMORY_CONDITION`), past the settings' switches
    it reads (`_SWITCH`); a check of a type or presence (`_TYPE_CHECK`), or of two values' equality (`_EQUALITY_ONLY`),
    never does."""
    return (not _TYPE_CHECK.search(cond) and not (_EQUALITY_ONLY.match(cond) and not _FREE_WORDS.search(cond))
            and bool(_MEMORY_CONDITION.search(_SWITCH.sub("", cond))))


#: a condition that only compares for equality (`assert new_spec.page_size_bytes == max_page_size`): a consistency
#: check between two values, which memory running out does not fail, whatever sizes they are (an order, `>=`, may be
#: a check that enough is free)
_EQUALITY_ONLY = re.compile(r"^[^<>]*(?:==|!=)[^<>]*$")
#: ... unless one side is what is free ("len(free_blocks) == num_required_blocks": the blocks a pool could give)
_FREE_WORDS = re.compile(r"free|avail|remain|left", re.I)


#: a C or C++ check's failure quoted whole in a person's words, its condition between the quotes (TensorRT-LLM's
#: TLLM_CHECK "'Assertion failed: emplaceDone'", glog's "`Check failed: idx < n`"), without the source file after it
_C_CHECK_QUOTED = re.compile(r"[`'\x22\u2018\u201c](?:Assertion failed|Check failed): ([^`'\x22\u2019\u201d\n()]{1,120}?)"
                             r"[`'\x22\u2019\u201d]")
#: a check on a pointer or an optional being there (`buf != NULL`, `ptr`, `data`, `freeBlockIterator.has_value()`), or
#: on the KV manager's blocks, tokens or slots: what an allocation that failed leaves, so memory among its causes
_POINTER_CHECK = re.compile(r"\b(?:NULL|nullptr|null|ptr|data|buf|p|ctx)\b|has_value|(?<![Pp]er )(?<![Pp]er)[Bb]lock(?!s? ?[Ss]ize|_size)|"
                            r"\b[Tt]okens?\b(?! per\b)|[Ss]lot")


def _assertion(f: Failure) -> tuple[int, str] | None:
    """The `assert` statement of a bare AssertionError `f` (the last code line of its traceback, within four lines
    before it), or the condition an AssertionError states on its own line (`AssertionError: assert a == b`, a message
    comparing two values for equality: `num_tokens (37) != len(positions) (36)`, "shape mismatch"), where it speaks
    of nothing memory is made of (`assert is_fa_version_supported(...)`, `assert active_topk_width >=
    cm.max_seq_len // self.compress_ratio`); or the `assert` under a traceback's last frame pasted without the
    exception's line (`_ends_on_assert`); None otherwise."""
    quoted = _C_CHECK_QUOTED.search(f.text)
    if quoted and not _speaks_of_memory(quoted.group(1)) and not _POINTER_CHECK.search(quoted.group(1)):
        # (a C++ check the report quotes whole, its quotes closed: "throws the panic 'Assertion failed: emplaceDone'")
        return f.line_no, f.text.strip()
    said = _ASSERTION_QUOTED.search(f.text) or _ASSERTION_SAYS.search(f.text)
    if said:
        cond = said.group(1)
        # (a condition, a comparison, or a message that names what the code does not have or support: "Torch not
        # compiled with CUDA enabled", "auto_functionalized was not removed"; not a consistency check that only says
        # values disagree, "seq_lens_sum must match", whose cause may be anything)
        if not cond.startswith("assert ") and _FEATURE_MISSING.search(cond) and not _RAN_OUT.search(cond):
            # (a message that the code has no such path, whatever it names: "SlidingWindowManager does not support
            # fine-grained (partial) cache hits" is a feature missing, not a cache too small)
            return f.line_no, f.text.strip()
        if (cond.startswith("assert ") or _AGREEMENT.search(cond) or _UNSUPPORTED.search(cond) or _CONSTRAINT.search(cond)
                or re.search(_REQUIRED, cond)):
            return None if _speaks_of_memory(cond) else (f.line_no, f.text.strip())
    # (the failure may be the traceback's first frame, or the kill that ended it: the assertion is before it)
    lines = [*f.before[-6:], (f.line_no, f.text), *f.after]
    # (or one whose message only shows values, its f-string's: "AssertionError: req_id: cmpl-benchmark-39-0, 236"
    # under "assert num_output_tokens == 0, \\": the condition is the `assert` line's; not a message of memory)
    hits = [i for i, (ln, t) in enumerate(lines) if _BARE_ASSERTION.search(t) or (
        (m := _ASSERTION_SAYS.search(t)) is not None and not _speaks_of_memory(m.group(1)) and not _RAN_OUT.search(
            m.group(1)) and not _UNSUPPORTED.search(m.group(1)))]
    at = next((i for i in hits if lines[i][0] >= f.line_no), hits[-1] if hits else None)
    if at is None:
        return _ends_on_assert(f)
    for ln, t in reversed(lines[max(0, at - 4):at]):
        m = _ASSERT_LINE.search(t)
        if m:
            return None if _speaks_of_memory(m.group(1)) else (ln, t.strip())
    return None


#: the end of a statement that goes on to the next line: an open bracket, a comma, a backslash, a string opened
_STATEMENT_GOES_ON = re.compile(r"[(\[{,\\]\s*$|(?:^|[\s(,=])[rfbu]?[\x22']\s*$|\b(?:and|or|not|in|is)\s*$|[-+*/%&|<>=]\s*$")
#: an assertion on another program's answer (an HTTP status, a return code): what failed is that program
_STATUS_CHECK = re.compile(r"\b(?:status(?:_code)?|returncode|\.ok)\b")


def _ends_on_assert(f: Failure) -> tuple[int, str] | None:
    """The `assert` statement under the last frame of a traceback pasted without its exception's line (failure `f` a
    frame: `File ".../vllm/transformers_utils/config.py", line 798, in get_hf_text_config` / `assert
    hasattr(text_config, "num_attention_heads")`, then the report's words or nothing), where it speaks of nothing
    memory is made of: that assertion failed there. None where another frame, an exception's line or a program's
    line follows it."""
    if not (PY_FRAME.search(f.text) or TB_HEADER in f.text):  # (a frame, or the traceback's header above its frames)
        return None
    block = [(f.line_no, f.text), *f.after]
    frames_at = [i for i, (_, t) in enumerate(block) if PY_FRAME.search(t)]
    if not frames_at:
        return None
    i = frames_at[-1]
    code = next(((j, ln, t) for j, (ln, t) in enumerate(block[i + 1:i + 3], i + 1) if t.strip()), None)
    # (the statement under the engine's own prefix too: "ERROR 04-02 10:00:00 [core.py:396]     assert mm_input.ndim
    # == 2, ...")
    if code is None or not (m := re.match(r"^\s*assert\s+(\S.*)$", code[2]) or re.match(
            r"^\s*assert\s+(\S.*)$", message(code[2]) if STRONG_PREFIX.match(code[2]) else "")):
        return None
    cond = m.group(1)
    if (_STATEMENT_GOES_ON.search(cond) or _STATUS_CHECK.search(cond)
            or sum(cond.count(c) for c in "([{") > sum(cond.count(c) for c in ")]}")):
        # (a statement that goes on over lines, `assert res.status_code == 200, f"`, cut; or a check of another
        # program's answer, which failed for its own reason: SGLang's warm-up request answered with an error)
        return None
    if any(RAISED.match(t) or program_line(t) for _, t in block[code[0] + 1:]):
        return None
    return None if _speaks_of_memory(m.group(1)) else (code[1], code[2].strip())


#: a container's state that says its SIGKILL was not the OOM killer's: kubectl's `Reason: Error` (Kubernetes says
#: `OOMKilled` for the OOM killer's), docker inspect's `"OOMKilled": false`
_NOT_OOM_KILLER = re.compile(r"^\s*Reason:\s+Error\s*$|\bOOMKilled\W{0,3}(?:false|0)\b", re.I)
_KILLED = ("The process was killed (SIGKILL: exit code 137 is 128 + 9), and not by the OOM killer, as the log says. "
           "Other senders of SIGKILL: a failed liveness probe (a server still loading its weights past the probe's "
           "initialDelaySeconds), a stop that timed out (docker stop, a pod's terminationGracePeriodSeconds), a "
           "`kill -9`. Read the pod's events (`kubectl describe pod`, `kubectl get events`) or the supervisor's log; "
           "`journalctl -k | grep -i oom` tells whether the kernel killed anything.")


#: the kernel's OOM killer named (its own line, a container's flag) or Ray's memory monitor
#: the OOM killer's victim named as a compiler (CUDA's front end and assembler, GCC's and Clang's, the build tools)
_KILLED_COMPILER = re.compile(r"\bKilled process \d+ \((cicc|ptxas|nvcc|nvlink|fatbinary|cudafe\+\+|cc1plus|cc1|g\+\+|"
                              r"c\+\+|gcc|clang(?:\+\+)?|ninja|ld(?:\.\w+)?)\)|"
                              # (or a report's words of it: "the Linux kernel OOM-kills nvcc workers", "the OOM killer
                              # kills cicc")
                              r"\bOOM[- ]?kill(?:s|ed|ing)?\s+(?:the\s+|my\s+|its\s+|all\s+)?(?:running\s+)?[`'\x22]?(cicc|ptxas|nvcc|"
                              r"nvlink|cc1plus)\b|\bOOM[- ]killer\s+(?:kills|killed|kept killing|picks|picked|chose)\s+(?:the\s+)?"
                              r"[`'\x22]?(cicc|ptxas|nvcc|nvlink|cc1plus)\b")
#: a package built from source: its compilers are the build's, not a server's start-up
_BUILDING = re.compile(r"\bBuilding wheels?\b|\bsetup\.py\b|\bpip3? install\b|\bRunning setup\.py\b|\bcmake\b|"
                       r"\bninja: build stopped\b|\buv pip install\b", re.I)
_OOM_KILLER = re.compile(r"Out of memory: Killed process|OOMKilled|oom-kill|OOM[- ]killer|memory pressure|running low "
                         r"on memory", re.I)
_RAY_KILL = re.compile(r"ray\.exceptions\.OutOfMemoryError|node running low on memory", re.I)


#: the most lines after a SIGKILL that the engine's own line that it stopped its child may come, blank ones only between
#: (`LogWords.stops_own`)
_OWN_STOP_NEXT = 3


def _stopped_by_scheduler(f: Failure) -> Diagnosis | None:
    """NONE where failure `f` is a batch scheduler's stop of the job (`job-time-limit`, `job-cancelled`: Slurm's
    "*** JOB ... CANCELLED AT ... ***", PBS's walltime, LSF's TERM_ lines) after the server had served: the job's
    time ran out or it was cancelled, nothing failed. None otherwise: a stop before serving is the failure's own
    NOT_OOM (a start-up longer than the job's time; a cancel or a preemption of a start-up that did not come up), as
    a job over its memory limit is not stopped in these words (Slurm ends it OUT_OF_MEMORY, with an oom_kill event)."""
    served = bool({"ready", "requests"} & f.progress.keys())
    if f.code not in ("job-time-limit", "job-cancelled") or not served:
        return None
    why = "at its wall-clock limit" if f.code == "job-time-limit" else "by a cancel or a preemption"
    return Diagnosis(kind="NONE", code="stopped-by-scheduler", oom=False, evidence=[(f.line_no, f.text)],
                     phase_source="the scheduler's own line that it ended the job, after the server had served",
                     message=f"The batch scheduler ended the job {why} after the server had started and served; that "
                             "is the job's end, not a failure. No memory problem in this run (a server meant to run "
                             "longer needs a longer time limit: Slurm's --time, PBS's walltime).")


def _killed_not_oom(run: RunFacts, f: Failure) -> Diagnosis | None:
    """A SIGKILL (exit 137) the log says was not the OOM killer's: UNDETERMINED (`process-killed`), its sender not
    shown. (A failed liveness probe in the same log is that sender: the probe's line decides, NOT_OOM; the engine's
    own line at once after it that it stopped that process, `LogWords.stops_own`, makes it the engine's: NONE.)"""
    if f.code == "process-killed":
        return Diagnosis(kind="UNDETERMINED", code="process-killed", evidence=[(f.line_no, f.text)], oom=None,
                         phase_source="the failure line", missing="what sent the SIGKILL", message=_KILLED)
    if f.phase != "HOST" or not SIGKILL_RX.search(f.text):
        return None
    own = knowledge().stops_own
    # (its next line: a line between, "error starting llama runner: ..." when the runner died while loading, says the
    # kill came first and the engine's stop after it, of a runner already dead)
    nxt = next(((ln, t) for ln, t in f.after[:_OWN_STOP_NEXT] if t.strip()), None)
    closed = nxt if nxt and own is not None and own.search(nxt[1]) else None
    if closed:  # the engine killed its own child and says so at once (Ollama 0.1 unloading an idle model)
        return Diagnosis(kind="NONE", code="runner-stopped-by-engine", evidence=[(f.line_no, f.text), closed],
                         oom=False, phase_source=f"the engine's own line that it stopped the process (line {closed[0]})",
                         message="The SIGKILL is the engine's own: it stopped its model runner itself and says so on "
                                 "the next line (Ollama unloads a model after it has been idle for keep_alive, 5 "
                                 "minutes by default, when another model is loaded, or when it shuts down). No failure "
                                 "and no memory problem in this run.")
    probe = [g for g in run.failures if g.kind == "not_oom" and g.code == "health-check-failed"]
    if probe:  # the supervisor killed a server that did not answer its health check
        return Diagnosis(kind="NOT_OOM", code="health-check-failed", evidence=[(probe[0].line_no, probe[0].text),
                                                                              (f.line_no, f.text)], oom=False,
                         message="This is not memory running out: " + _NOT_OOM["health-check-failed"] + " The SIGKILL "
                                 "(exit 137) is the supervisor restarting it after the failed probe, not the OOM "
                                 "killer; a server that loads for longer than the probe waits needs a longer "
                                 "initialDelaySeconds (or a startupProbe).")
    said = [(n, t) for n, t in f.before[-8:] + f.after[:8] if _NOT_OOM_KILLER.search(t)]
    # (or the report's own words of this kill: "Container got killed with exit code 137 after I ran `docker stop`")
    said += [(g.line_no, g.text) for g in run.failures if g.code == "process-killed"]
    if not said:
        return None
    return Diagnosis(kind="UNDETERMINED", code="process-killed", evidence=sorted({(f.line_no, f.text), said[0]}),
                     oom=None, phase_source=f"the words of the kill (line {said[0][0]}): not the OOM killer's",
                     missing="what sent the SIGKILL", message=_KILLED)


#: the size an allocation that failed asked for, in the failure's words or the allocator's line after it (ggml:
#: `allocating 8624.00 MiB on device 0: cudaMalloc failed`, `alloc_tensor_range: failed to allocate CUDA0 buffer of
#: size 9042919424`)
_TRIED_SIZE = re.compile(r"\ballocating " + SIZE + r" on device|\bfailed to allocate \w+ buffer of size (\d+)\b|"
                         # (ggml-vulkan's own: "ggml_vulkan: Device memory allocation of size 134217728 failed.")
                         r"\bDevice memory allocation of size (\d+) failed")
#: ledger figures an engine prints for what each ledger needs, the failed request included (Ollama's layout)
_LEDGER_FIGURES = (("WEIGHTS", "layout_weights_bytes", "the model weights"), ("KV", "layout_kv_bytes", "the kv cache"),
                   ("WARMUP", "layout_graph_bytes", "the compute graph"))


def _refusal_ledger(n: dict) -> str | None:
    """Where an engine refused a model for want of host memory (Ollama's `model requires more system memory (34.4 GiB)
    than is available (17.7 GiB)`, its sum of every ledger for the context asked for: llm/server.go, from the layout
    ml/device.go prints, or llm/memory.go's estimate before the new engine), the kv cache and the compute graph (both grow
    with the context) its own figures show larger than the model's weights: the context is what did not fit (an agent's
    262,144-token KvSize for a 2.3 GiB model). A sentence naming the figures; None where the kv cache and the weights
    are not both shown, or the weights are the larger."""
    # (the compute graph too: its size grows with the context and the batch, an n_ctx x n_batch attention matrix
    # without flash attention, so it is on the context's side)
    kv = sum(positive(n, "layout_kv_bytes")) + sum(positive(n, "layout_cpu_kv_bytes"))
    graph = sum(positive(n, "layout_graph_bytes")) + sum(positive(n, "layout_cpu_graph_bytes"))
    weights = sum(positive(n, "layout_weights_bytes")) + sum(positive(n, "layout_cpu_weights_bytes"))
    if not (kv and weights):
        kv, weights = (sum(positive(n, k)) for k in ("kv_required_bytes", "weights_bytes"))
        graph = max(positive(n, "graph_full_bytes"), default=0)
    avail = n.get("system_memory_available_bytes")
    if not (kv and weights) or kv + graph <= weights or isinstance(avail, int) and weights >= avail:
        return None  # (nor where the weights alone are more than it has: no context makes them fit)
    what = f"the kv cache {kv / 2**30:.1f} GiB" + (f" and the compute graph {graph / 2**30:.1f} GiB" if graph else "")
    return (f"the engine's own figures of what it asked for: {what}, more than the model weights "
            f"{weights / 2**30:.1f} GiB, so the context asked for is what did not fit")


def _ledger_by_size(f: Failure, n: dict) -> Place | None:
    """The ledger whose size, as the engine printed it, is the allocation that failed: Ollama's new engine allocates
    each device's weights in one buffer (ml/backend/ggml/ggml.go New: ggml_backend_alloc_ctx_tensors_from_buft) and its
    graph in one (Reserve), and prints every ledger's size after the request that failed (ml/device.go, one decimal:
    HumanBytes2). None unless exactly one ledger matches within the printed precision (a cache tensor, one layer's,
    matches none)."""
    m = next((m for _, text in [(f.line_no, f.text)] + f.after[:2] for m in _TRIED_SIZE.finditer(text)), None)
    if m is None:
        return None
    try:
        size = to_bytes(m.group(1), m.group(2)) if m.group(1) else int(m.group(3) or m.group(4))
    except ValueError:
        return None  # a size past what any device holds: garbage, no ledger's
    hits = []
    for phase, key, words in _LEDGER_FIGURES:
        for value in positive(n, key):
            slack = 0.005 * value + (0.05 * 2**30 if value >= 2**30 else 0.05 * 2**20)
            if abs(size - value) <= slack:
                hits.append((phase, words, value))
    if len({h[0] for h in hits}) != 1:
        return None if hits else _cache_tensor(f, n, size)
    phase, words, value = hits[0]
    return Place(phase, f"the size that failed ({size / 2**30:.2f} GiB): the engine's own figure for {words} on a "
                        f"device ({value / 2**30:.2f} GiB)", (f.line_no, f.text), [phase])


def _cache_tensor(f: Failure, n: dict, size: int) -> Place | None:
    """An allocation that failed, smaller than the kv cache the engine's layout printed, where the layout has a kv cache
    on a GPU and no compute graph: Ollama's new engine makes the cache tensor by tensor, each in a buffer of its own,
    after the weights' buffers are allocated and before it reserves the graph (whose size the layout prints once tried,
    failed or not: ml/device.go "allocated or not"), so the failure is one of the cache's tensors."""
    kv = positive(n, "layout_kv_bytes")
    if not kv or positive(n, "layout_graph_bytes") or size >= max(kv):
        return None
    return Place("KV", f"the engine's own layout: a kv cache on a device ({max(kv) / 2**30:.2f} GiB) and no compute "
                       f"graph, which is reserved after the cache is made; the size that failed ({size / 2**20:.0f} MiB) "
                       "is one of the cache's tensors", (f.line_no, f.text), ["KV"])


#: frames of loading a model, in any engine's words (a worker past its device set-up)
_LOADING_FRAME = re.compile(r"\bin (?:load_model|load_weights|get_model)\b")


def _warmup_wrapper(f: Failure) -> tuple[int, str] | None:
    """The engine's own line that its warm-up failed (a wrapper whose verdict is WARMUP) within the eight lines before
    failure `f` (whose traceback `f` ends) or after it (its verdict on `f`); None where there is none."""
    k = knowledge()
    for ln, t in [*reversed(f.before[-8:]), *f.after[:8]]:
        v = k.line_verdict(t)
        if v and v.kind == "wrapper" and v.phase == "WARMUP" and v.engine != "generic":
            return ln, t
    return None


def _tail_after(run: RunFacts, f: Failure) -> list[tuple[int, str]]:
    """The run's last lines (number, text) past those kept after failure `f`: what a log ends with beyond the lines a
    failure keeps (a backtrace, a report's body)."""
    last = f.after[-1][0] if f.after else f.line_no
    return [(ln, t) for ln, t in run.tail_lines if ln > last]


def _serving_frames(run: RunFacts, f: Failure, engine: str) -> bool:
    """The stack frames after failure `f` (in the lines kept after it and the run's last lines) name a serving step and
    no start-up step."""
    after = [t for _, t in f.after + _tail_after(run, f)]
    found = {phase_words(t, engine) for t in after if FRAME.search(t)} - {None}
    return "RUNTIME" in found and not found & set(STARTUP)


def _engine_says(place: Place) -> bool:
    """The phase is the engine's own verdict on the failure, a line after it (SGLang's "Initialization failed. warmup
    error" after an out-of-memory on the warm-up request it sends once uvicorn is up): it stands over the milestones."""
    if not place.source.startswith("the message after"):
        return False
    k = knowledge()
    text = place.deciding[1]
    v = k.line_verdict(text)
    return bool(v and v.kind == "wrapper" and v.phase == place.phase and v.engine != "generic")


def _device_setup(run: RunFacts, f: Failure, place: Place) -> Diagnosis | None:
    """Memory ran out while a worker set up its device (the CUDA context, the NCCL communicators), before any
    weights: the frames show device set-up and no loading, and the run passed no milestone. The GPU was (nearly) full
    before the engine began: another process holds it; no model setting changes that. (An NCCL out-of-memory, whose
    message alone would place it in the warm-up, is this too where the frames show the communicators being made.)"""
    if f.kind != "oom" or "weights_done" in f.progress or (
            place.phase is not None and not place.source.startswith("the stack frames")
            and f.code != "nccl-buffers-oom"):
        return None
    texts = [t for _, _, t in frames(f)]
    k = knowledge()
    setup = [e.log.device_setup for e in k.engines if e.log.device_setup is not None]
    joined = "\n".join(texts)
    if (not any(p.search(t) for p in setup for t in texts) or any(_LOADING_FRAME.search(t) for t in texts)
            or any(p.search(joined) for p in k.loaders)):
        return None
    return Diagnosis(kind="UNDETERMINED", code="device-setup-oom", evidence=sorted({(f.line_no, f.text), *(
                     [f.deciding] if f.deciding else [])}), candidates=[],
                     phase_source="the stack frames: the worker setting up its device, before any weights",
                     missing="what holds the GPU's memory before the server starts (nvidia-smi)",
                     message="Memory ran out while the worker set up its device (the CUDA context, the NCCL "
                             "communicators), before any weights were loaded: the GPU was already (nearly) full when "
                             "the engine began. Another process, or a server that did not exit, holds it; no model "
                             "or context setting changes that.")


def _load_announced(f: Failure) -> bool:
    """The last lines before the kill `f` hold a load's announcement (`LOAD_ANNOUNCED`) and no step after it: the
    load was under way (the kill on its own line: "Loading pygmalion-6b..." / "Killed")."""
    before = [t for _, t in f.before[-12:] if t.strip()]
    for i, t in enumerate(before):
        if LOAD_ANNOUNCED.match(t) and not any(is_progress(u) and not LOAD_ANNOUNCED.match(u) for u in before[i + 1:]):
            return True
    return False


#: a report's words that host memory ran out while the model loaded ("killed by Kubernetes when memory crosses the
#: limit while model is loading"): host RAM holds the weights on their way to the GPU (the KV cache and buffers are on
#: the GPU), so the model loading there is its weights
#: (also loading alone, "mid-load", and the checkpoint's progress bar the report says stopped: "`Loading safetensors
#: checkpoint shards` stops advancing at 40%"; not the loading of an adapter, a prompt or the KV cache)
_HOST_LOADING = re.compile(r"\b(?:while|when|during) (?:the )?model (?:is |was )?loading\b|"
                           r"\b(?:while|when) it (?:is|was) (?:still )?loading\b|\b(?:while|when|during) loading "
                           r"(?:the |a |my )?(?:\w+ )?model\b|\bduring model load(?:ing)?\b|\bmid[- ]load(?:ing)?\b|"
                           r"\b(?:while|during) loading\b(?!\s+(?:the\s+|an?\s+)?(?:kv|cache|context|lora|adapters?|"
                           r"prompts?|requests?|images?|tokenizer)\b)|"
                           # (at load time, of the model or its parts: "at projector load time, before any image
                           # is processed"; a multimodal projector, mmproj, is weights too)
                           r"\bat (?:the )?(?:(?:model|projector|mmproj|weights?|vision \w+|clip) )?load(?:ing)? time\b|"
                           r"\b(?:while|when|during) (?:the )?(?:loading (?:the )?)?(?:projector|mmproj|vision tower|clip "
                           r"model)\b(?! (?:is |was )?(?:running|encod\w+|process\w+))|"
                           r"\bcheckpoint shards\W{0,3}\s+(?:bar\s+)?(?:stops?|stopped|stalls?|stalled|hangs?|hung|freezes|"
                           r"froze|gets? stuck|got stuck|is stuck)\b|" + LOADING_CJK, re.I)


#: a program that only converts a model's weights, by its command or its own words: TensorRT-LLM's examples'
#: convert_checkpoint.py ("Total time of reading and converting"), llama.cpp's convert_hf_to_gguf.py, the older
#: convert.py / convert-pth-to-ggml.py / convert-hf-to-gguf.py, and llama-quantize (quantize)
_CONVERTING = re.compile(r"\bconvert(?:[_-](?:checkpoint|hf[_-]to[_-]gguf|pth[_-]to[_-]ggml|llama[_-]ggml[_-]to[_-]gguf))?"
                         r"\.py\b|\bTotal time of reading and converting\b|(?:^|[\s/\\])(?:llama-)?quantize(?:\.exe)?\s+\S+\.(?:gguf|bin)\b")


#: a field of a pod's or container's state, as kubectl describe prints it ("    State:          Running", "      Exit Code:
#: 137"): the orchestrator's words about the process, not the server's own lines
_POD_FIELD = re.compile(r"^\s*(?:State|Last State|Reason|Exit Code|Started|Finished|Ready|Restart Count|Signal|Message|"
                        r"Image|Image ID|Container ID|Port|Host Port|Limits|Requests|memory|cpu|nvidia\.com/gpu)\s*:")


def _kv_over_free(run: RunFacts, f: Failure, cands: list[str]) -> Diagnosis | None:
    """A context that could not be made (the KV cache or the compute buffers, the weights already loaded) where the
    engine's own estimate, printed before it, needs more for the KV cache alone than all the memory it found free
    (Ollama's memory.go `msg=offload` line: memory.required.kv over memory.available): the cache, inferred."""
    if not cands or set(cands) - {"KV_CAPACITY", "WARMUP"} or "KV_CAPACITY" not in cands:
        return None
    n = run.numbers
    kv, free = n.get("kv_required_bytes"), n.get("available_memory_bytes")
    free = sum(free) if isinstance(free, list) and all(isinstance(x, int) for x in free) else free
    if not (isinstance(kv, int) and isinstance(free, int) and 0 < free < kv):
        return None
    ln = run.number_lines.get("kv_required_bytes", f.line_no)
    return Diagnosis(kind="KV_CAPACITY", code="kv-cache-alloc-failed", inferred=True,
                     evidence=[(f.line_no, f.text), (ln, f"KV cache required {kv / 2**30:.2f} GiB, "
                                                         f"{free / 2**30:.2f} GiB available")],
                     phase_source="the engine's own estimate before the failure, inferred: the context (KV cache and "
                                  "compute buffers) could not be made, and the KV cache alone needs more than the "
                                  "memory it found free",
                     message=f"The model loaded, but its context could not be made: the engine's own estimate needs "
                             f"{kv / 2**30:.2f} GiB for the KV cache at this context length, more than the "
                             f"{free / 2**30:.2f} GiB of memory it found free. The line that states the allocation "
                             "that failed is not in this log.")


def _gpu_used_anyway(run: RunFacts, f: Failure) -> bool:
    """A GPU the engine would not use (`gpu-unsupported` from its device discovery: Ollama's "filtering device which
    didn't fully initialize", "unsupported Radeon iGPU detected skipping") where layers went to a GPU all the same
    (`layers_offloaded` above 0), or where the discovery lists another GPU it will compute on (Ollama's "inference
    compute" with a GPU library, `gpu_available_bytes`): another GPU took the model, and the refusal is no failure of
    the run."""
    return f.code == "gpu-unsupported" and bool(positive(run.numbers, "layers_offloaded")
                                                 or positive(run.numbers, "gpu_available_bytes"))


#: a check a script reports as passed, on its own line, in words ("test_prefill_oom PASSED", "[PASS] OOM guard",
#: "OOM stress: passed", "Long prompt OOM check passed", "OOM test -> OK") ...
_CHECK_PASSED = re.compile(r"\bPASS(?:ED)?\s*$|^\s*\[\s*PASS\s*\]|:\s*(?i:passed|ok)\W*$|\b(?i:check|test)\s+(?i:passed)\W*$|"
                           r"(?:->|\u2192)\s*OK\W*$")
#: ... or by a mark on the line under a step's title ("[2/8] Tool response prefill OOM (~25K-token mock tool
#: response) ..." / "  \u2713 tool prefill OK"; the emoji's form with its variation selector too)
_PASS_BELOW = re.compile(r"^\s*(?:[\u2713\u2714\u2611\u2705]\ufe0f?|\[\s*PASS\s*\]|PASS(?:ED)?\b)")
#: ... or by a mark at the end of the check's own title ("[1/3] Long prompt OOM check \u2714\ufe0f")
_PASS_MARK_AFTER = re.compile(r"\s[\u2713\u2714\u2611\u2705]\ufe0f?\s*$")
#: a step's title in a script's output: numbered ("[2/8] ...") or left open ("... ...", "…")
_STEP_TITLE = re.compile(r"^\s*\[\d+/\d+\]|(?:\.\.\.|\u2026)\s*$")
#: words or marks of a failure itself, which no pass mark beside them takes back
_FAILED_WORDS = re.compile(r"(?i:error|exception|traceback|fail(?:s|ed|ure)?|killed|crash\w*|abort\w*)|\bFAIL\b|"
                           r"[\u274c\u2717\u2718\u2716]")


#: an out-of-memory the line states, not only names as a check's ("CUDA out of memory", "-np 4: OOM", "OOMed"): no
#: pass mark on the line or under it takes that back
_OOM_STATED = re.compile(r"out of memory|OutOfMemory|\bCUDA\b|\bOOM(?:ed|s|'d|ing)\b|:\s*OOM\b|\bOOM\s*[,;]", re.I)


def _check_passed(f: Failure) -> bool:
    """Out-of-memory words that are the name of a check a test script ran and reports as passed (in words at the end
    of its own line, or by a mark on the first line under the check's title), in no engine's words of its own and
    with no failure's words or marks: a step that went well. Not a line that states an out-of-memory beside another
    check's mark ("bs=64: OOM" over "\u2713 bs=32 OK"), nor a table's row of marks."""
    if f.engine != "generic" or f.kind != "oom" or _FAILED_WORDS.search(f.text) or _OOM_STATED.search(f.text):
        return False
    if _CHECK_PASSED.search(f.text) or _STEP_TITLE.search(f.text[:12]) and _PASS_MARK_AFTER.search(f.text):
        return True
    below = next((t for _, t in f.after if t.strip()), "")
    return bool(_STEP_TITLE.search(f.text) and _PASS_BELOW.match(below) and not _FAILED_WORDS.search(below))


def _helper_not_found(run: RunFacts, f: Failure) -> bool:
    """Failure `f` is a command the shell did not find, and the server's own start-up lines, or its answers to
    requests, come after it: a helper a script calls ("/entrypoint.sh: line 3: nvidia-smi: command not found") or one
    run beside the server ("bash: gpustat: command not found"), not the server, which was found."""
    # (a milestone's text is not kept where the failure was read with a start-up pasted after it: its line is one)
    if f.code != "command-not-found":
        return False
    end = max(f.end_line, f.line_no)
    return any(ln > end and (m not in run.progress_text or program_line(run.progress_text[m]))
               for m, ln in run.progress.items()) or bool(_answered_after(run, end, ""))


def diagnose_run(run: RunFacts, engine: str, weights_bytes: int | None = None) -> Diagnosis:
    kept = [f for f in run.failures if not _check_passed(f) and not _gpu_used_anyway(run, f)
            and not _helper_not_found(run, f)]
    if len(kept) < len(run.failures):
        run = replace(run, failures=kept)
    if len(run.failures) == 1 and run.failures[0].kind == "error" and _cut_copy_of_refusal(run, run.failures[0]):
        # the refusal the report quotes whole, cut in the log below it: a refused request, and the log's cut is that
        # line's, not another failure's
        return no_failure(replace(run, failures=[], tail_cut=False), engine)
    if run.refused and run.failures and all(g.kind == "error" and RELAYED.search(g.text) for g in run.failures):
        # the client's own error for a request the server refused (requests' "422 Client Error: Unprocessable Entity
        # for url: .../generate", then TGI's "Input validation error: ..."): that refusal, not a failure of its own
        return no_failure(replace(run, failures=[]), engine)
    f, told = _deciding(run, engine)
    if f is None:
        said = run.number_lines.get("_failure_stated")
        if said and any(g.line_no == said for g in run.failures):
            # (the words "read as the report's" are a program's failure line the run went on from: "Failed to get device
            # capability: ..." printed bare, then the server ready; no report's words of a failure)
            run = replace(run, numbers={k: v for k, v in run.numbers.items() if k != "_failure_stated"})
        return no_failure(run, engine)
    not_run = run.numbers.get("_not_run_stated")
    if isinstance(not_run, str) and not any(m in run.progress for m in ("ready", "requests")):
        # the report says the log is not from a run of theirs (not run yet, or quoted from a blog or a page): its
        # failure is someone else's example, no run to diagnose
        ln = run.number_lines.get("_not_run_stated", 0)
        return Diagnosis(kind="NONE", code="log-not-from-a-run", oom=None, evidence=[(ln, not_run), (f.line_no, f.text)],
                         phase_source=f"the report's words (line {ln}): the log is not from a run of theirs",
                         message="The report says these lines are not from a run of its own (not run yet, or quoted "
                                 "from elsewhere): there is no run to diagnose. `vramdoctor estimate MODEL` says "
                                 "whether the model and its context fit a GPU before you run it; after a run, pass "
                                 "its own log.")
    marks = _told_markers(run)
    checked = f.code == "max-model-len-exceeds-kv-cache" and _ARGUMENT_CHECK.search(f.text) and "start" in f.progress
    if checked and "requests" not in f.progress and any(m in f.progress for m in ("kv_sized", "kv_done", "warmup_done",
                                                                                   "ready")):
        # ... the router's same check after the warm-up measured the pool (backends/v3/src/main.rs): the pool holds
        # fewer tokens than one request may take, before anything was served
        return Diagnosis(kind="KV_CAPACITY", code=f.code, evidence=[(f.line_no, f.text)], oom=True,
                         phase_source="the router's check of its limits against the pool the warm-up measured",
                         message="The KV cache pool the warm-up measured holds fewer tokens than one request may take "
                                 "(--max-total-tokens), and the router refused to start: a shorter request limit, or "
                                 "more memory for the pool.")
    if checked and not any(
            m in f.progress for m in ("weights_done", "kv_sized", "kv_done", "warmup_done", "ready", "requests")):
        # the same check on limits the user passed, before any weights loaded (TGI's launcher, main.rs: "`max_total_tokens`
        # must be <= `max_batch_total_tokens`. Given: 32768 and 16000", where the router's same words after its warm-up
        # compare the pool it measured): two settings that contradict each other, nothing was allocated
        return Diagnosis(kind="NOT_OOM", code="bad-argument", evidence=[(f.line_no, f.text)], oom=False,
                         phase_source="the launcher's check of its arguments, before any weights loaded",
                         message="This is not memory running out: two limits given on the command line contradict "
                                 "each other (a longest request larger than the batch's token budget), and the server "
                                 "refused them before it loaded anything. Raise or drop the budget "
                                 "(--max-batch-total-tokens) or lower the request's limit (--max-total-tokens).")
    killed = _killed_not_oom(run, f) or _stopped_by_scheduler(f)
    if killed:
        return killed
    if f.kind == "not_oom" and f.code == "thread-creation-failed":
        return Diagnosis(kind="UNDETERMINED", code=f.code, evidence=[(f.line_no, f.text)], oom=None, candidates=[],
                         phase_source="the failure message", missing="which limit refused the thread",
                         message="A thread could not be created (pthread_create's EAGAIN, 'Resource temporarily "
                                 "unavailable'). Two limits give it: the process's address space had no room left for "
                                 "the thread's stack (a virtual-memory limit, `ulimit -v` / RLIMIT_AS, which GPU "
                                 "mappings and big weights files fill, or memory exhausted), or the number of threads "
                                 "allowed was reached (`ulimit -u` / RLIMIT_NPROC, a container's pids limit, "
                                 "kernel.threads-max). Tell them apart in the server's environment: `ulimit -v` and "
                                 "`ulimit -u`, its threads now (`ls /proc/PID/task | wc -l`) against "
                                 "/sys/fs/cgroup/pids.max.")
    if f.code == "host-alloc-failed" and any(_SIGNAL_STACK.search(t) for _, _, t in frames(f)):
        # Python's faulthandler.enable() raising ENOMEM: its sigaltstack() refused a stack smaller than the CPU's
        # signal frame, not memory used up
        f = replace(f, kind="not_oom", code="signal-stack-too-small", phase=None)
    leaked = _count_leak_told(run, f)
    if leaked:
        return Diagnosis(kind="LEAK", code="metal-buffer-leak", evidence=sorted({(f.line_no, f.text), leaked}),
                         oom=None, inferred=True, phase_source=f"the report's words of a leak (line {leaked[0]})",
                         message="The process ran out of Metal buffers (a count the GPU allows, about 499,000, not "
                                 "bytes), and the report tells of a leak: buffers are made and not released as the "
                                 "server works, until the count is reached. Memory settings only delay it; a release "
                                 "that does not hold on to buffers (or a restart before the count) avoids it. To see "
                                 "it, sample the process's buffer count or memory over time under the same load "
                                 "(`vramdoctor probe` reads memory before, during and after requests).")
    w = run.numbers.get("weights_bytes")
    weights = weights_bytes or (w if isinstance(w, int) and w > 0 else None)
    maybe = _MAYBE_MEMORY.get(f.code) if f.kind == "not_oom" else None
    if maybe and maybe[2] and f.code not in (knowledge().own_or_wrapped(engine, lambda lw: lw.maybe_memory) or ()):
        f, maybe = replace(f, code=maybe[2]), None  # (an engine that does not know it as memory: its plain code)
    if maybe and f.code == "rank-failed-loading":
        # ... the other rank's own out of memory in the same log (its traceback, or the kernel's OOM kill of it): that
        # settles it, the weights' load ran out (of the GPU's memory, or of the host's)
        k = knowledge()
        lines = [(g.line_no, g.text) for g in run.failures if g is not f] + [*f.after, *run.tail_lines]
        other = next(((ln, t, v) for ln, t in lines if ln != f.line_no and not COMMAND.match(t) and not user_words(t)
                      and not prose_like(t) and not sentence_like(t)
                      and (v := k.line_verdict(t)) is not None and v.kind == "oom"), None)
        if other is not None:
            host = other[2].phase == "HOST"
            return Diagnosis(kind="WEIGHTS", code="weights-exceed-system-memory" if host else "weights-alloc-failed",
                             evidence=[(f.line_no, f.text), other[:2]],
                             phase_source="the engine's barrier after the weights: another rank did not finish loading",
                             message="Another rank ran out of " + ("host memory (the OOM killer)" if host else
                                                                   "GPU memory") + f" while it loaded its weights (line "
                                     f"{other[0]}); this rank finished and waited for it (line {f.line_no}).")
    if maybe:
        place = locate(f, engine, weights, marks)
        # (not a host kill the next line reports: the module's failure is the GPU's)
        cands = [KIND_OF_PHASE[p] for p in (place.candidates if place.phase is None else [place.phase])
                 if p in KIND_OF_PHASE]
        missing, said, _ = maybe
        # (the run shows the program's own out-of-memory as well, the same step's at another try: "earlier the same
        # point gave: RuntimeError: Allocation is out of device memory on current platform", then SYCL's -999 at it:
        # the error code out of memory also gives is that out of memory)
        oom = next((g for g in run.failures if g is not f and g.kind == "oom" and not user_words(g.text)
                    and not sentence_like(g.text) and not TITLE.match(g.text)), None)
        if oom is not None and place.phase in KIND_OF_PHASE and place.phase != "HOST":
            return Diagnosis(kind=KIND_OF_PHASE[place.phase], code=f.code, inferred=True,
                             evidence=[(f.line_no, f.text), (oom.line_no, oom.text)],
                             phase_source=place.source + f"; the out-of-memory the run shows at the same step (line "
                                                         f"{oom.line_no})",
                             message=said + f" Here the run also shows an out-of-memory (line {oom.line_no}), the "
                                            "same step's: memory ran out " + _DURING_PHASE[place.phase] + ".")
        return Diagnosis(kind="UNDETERMINED", code=f.code, evidence=[(f.line_no, f.text)], oom=None, candidates=cands,
                         phase_source=place.source, missing=missing,
                         message=said + (" If it is memory, the phase would be " + " or ".join(cands) + "." if cands
                                         else ""))
    crashed = _crash_after_full_pool(run, f) if f.kind == "not_oom" else None
    crashed = crashed or (_stall_after_full_pool(run, f) if f.code == "watchdog-timeout" else None)
    if crashed:
        return crashed
    if f.kind == "not_oom" and f.code in _ONE_REQUEST:
        later = _answered_after(run, max(f.end_line, f.line_no), engine)
        if later:
            # that request's failure only, and the server answered more after it: no failure of the server
            return Diagnosis(kind="NONE", code=f.code, evidence=[(f.line_no, f.text), (min(later), next(
                (t for ln, t in [*((run.progress[m], run.progress_text.get(m, "")) for m in run.progress),
                                 *run.tail_lines] if ln == min(later)), ""))], oom=False,
                             phase_source="the server answering requests after it",
                             message=f"One request failed (line {f.line_no}): " + _ONE_REQUEST[f.code] + "; the "
                                     f"server went on answering others (line {min(later)}). No failure of the server, "
                                     "and no memory problem.")
    blamed = _memory_blamed(run, f) if f.kind == "not_oom" and f.code == "crash-access-violation" else None
    if blamed:
        # a crash by a bad access that the report's own words put down to memory ("this is a memory allocation failure
        # it seems, ... it just segfaults", "`ctx->mem_buffer` is nullptr which probably means the malloc just failed"):
        # an allocation that returned nothing, then used, crashes so; the log does not show which it was
        return Diagnosis(kind="UNDETERMINED", code="crash-cause-not-shown", evidence=[(f.line_no, f.text), blamed],
                         oom=None, candidates=[], phase_source="the crash, and the report's words that blame memory",
                         missing="the allocation that failed, if one did: run it again with the engine's debug "
                                 "output on, or under a debugger, to see what returned nothing",
                         message="The process crashed by a bad memory access, and the report's words put it down to "
                                 "memory running out (an allocation that returned nothing, then used, crashes so), "
                                 "but no line shows an allocation that failed: it may be memory or a bug. Run "
                                 "`vramdoctor estimate` with the same model and settings to see whether it fits.")
    if f.kind == "not_oom":
        code = _fraction_above_free(run) if f.code == "gpu-shared-with-other-process" else f.code
        return Diagnosis(kind="NOT_OOM", code=code, evidence=[(f.line_no, f.text)], oom=False,
                         message="This is not memory running out: " + _not_oom_advice(code, engine))
    if f.kind == "error" and not _cause_shown(f) and not _assertion(f):
        # a wrapper's line that only says it failed ("FATAL ERROR with generation. Attempting to recreate the
        # generator"), the traceback it logs later ending in its cause: that error decides
        later = [g for g in run.failures if g.line_no > f.line_no and g.kind == "error"
                 and not (user_words(g.text) or sentence_like(g.text)) and (_cause_shown(g) or _assertion(g))]
        f = later[0] if later else f
    if f.kind == "error" and (TITLE.match(f.text) or user_words(f.text) or sentence_like(f.text)):
        # the report's title or sentence that restates the error ("[Bug]: KeyError: 'local_attn_masks' on running gemma3
        # with kv-cache quantization"), over the log's own line of it ("KeyError: 'local_attn_masks'"): the log's line
        # decides, without the report's words around it
        f = _own_line_of(run, f) or f
    if f.kind == "error":
        # (a cause only the report's title gives, "Server error: failed to decode", is what the full pool did)
        # (the engine's own leak check only where the error names no cause of its own: "KeyError: 'rid-123'" or an
        # AssertionError after SGLang's leak warning is that bug)
        shown = _cause_shown(f)
        unexplained = not (shown or _assertion(f) or _BUG_CLASS.match(f.text) or (
            stated(f.text) and not _MEMORYISH.search(f.text) and "cuda" not in f.text.lower()))
        checked = any(p.kind == "leak" for p in run.pressure)  # (the engine's own leak check, not the report's words)
        short = shortfall(run) or pool_below_context(run, engine) or (
            leak(run) if unexplained or not checked else None) or (
            _full_while_serving(run) if (not shown or TITLE.match(f.text)) and not _interrupted(run, f) else None)
        if short:
            return short
        asserted = _assertion(f)
        if asserted:
            ln, cond = asserted
            return Diagnosis(kind="NOT_OOM", code="assertion-failed", evidence=[(ln, cond), (f.line_no, f.text)],
                             oom=False, inferred=True, phase_source=f"the assertion that failed (line {ln})",
                             message="This is not memory running out: " + _NOT_OOM["assertion-failed"])
        titled = None if _cause_shown(f) else _titled_cause(run)
        if titled and titled[0].kind == "not_oom":
            v, (ln, text) = titled
            return Diagnosis(kind="NOT_OOM", code=v.code, evidence=[(ln, text), (f.line_no, f.text)], oom=False,
                             inferred=True, phase_source=f"the report's title (line {ln})",
                             message="This is not memory running out: the report's title names the error, which the "
                                     "log's own lines stop short of: " + _not_oom_advice(v.code, engine))
        if titled:  # an out-of-memory named by the title: its words give the cause, the log's lines the place
            # (the place also from the engine's own wrapper where the title names none: TGI's "Error when initializing
            # model" below "# torch.cuda.OutOfMemoryError: CUDA out of memory when deploying TGI")
            v, told = titled
            f = replace(f, kind="oom", code=v.code, phase=v.phase or f.phase, candidates=v.candidates or f.candidates,
                        wrapper=False)
    if f.kind == "error":
        f = _with_panic_message(f)
        f = _with_what_before(f)
        header = f
        f = _with_cause_above(_with_message_before(f))
        # (the exception's message a log record printed above its traceback: whole; not one whose words only say the
        # other side went away, "Remote server 0.0.0.0:41029 closed")
        logged = f is not header and not CAUSE_UNKNOWN.search(f.text)
        stopped = _stopped_by_hand(run, f)
        if stopped:
            return stopped
        if all(g.kind == "error" for g in run.failures) and any(_interrupted(run, g) for g in run.failures):
            # stopped by hand before it served (Ctrl-C on a start-up that did not go on): the traceback is where it
            # was waiting, no failure of its own; what the run shows besides (a hang the report tells of) decides
            # (any process's: the others' tracebacks, interleaved and cut, name no cause of their own either)
            return no_failure(replace(run, failures=[]), engine)
        usage = run.numbers.get("kv_usage_pct") or []
        # (only where the log goes on after the error: a paste that stops at it may have cut the out-of-memory
        # line that would have followed)
        # (not a process that died without a cause, vLLM V1's "Engine core proc EngineCore_0 died unexpectedly": a
        # host OOM kill or a crash leaves the GPU's pool as it was, so its use rules nothing out)
        # (nor an error that only says an allocating call failed, its cause not given: the stable ABI's
        # "torch_call_dispatcher( "aten::new_empty", ...) API call failed at ...": an allocation, which memory fails)
        if (usage and usage[-1] < 50 and "requests" in f.progress and len(f.after) >= 3
                and not any(CAUSE_UNKNOWN.search(t) for _, t in f.before[-20:] + [(f.line_no, f.text)])
                and not _ALLOC_CALL_FAILED.search(f.text)):
            return Diagnosis(kind="NOT_OOM", code="serving-error-kv-mostly-free", evidence=[(f.line_no, f.text)],
                             oom=False, inferred=True,
                             message=f"An error while serving with the KV cache {usage[-1]}% used and no out-of-"
                                     "memory message: memory was not exhausted.")
        if logged or _cause_shown(f):
            crashed = _crash_after_full_pool(run, f, error=True)
            if crashed:
                return crashed
            said = _error_words(f.text)
            # (not a directory's or a file's name in it: "Permission denied: '/.cache'")
            # (nor a setting's or argument's name quoted in it: "got an unexpected keyword argument
            # 'gpu_memory_utilization'")
            words = sorted({m.group(0).lower() for m in _MEMORYISH.finditer(_QUOTED_NAME.sub(" ", without_paths(said)))})
            if not words and _ALLOC_CALL_FAILED.search(f.text):
                words = ["a call that allocates (" + re.search(r"aten::\w+|cudaMalloc\w*", f.text).group(0) + ")"]
            if words and _OF_KIND.search(said) and not _OF_AMOUNT.search(said):
                # memory's words only as the name of what is wrong in kind ("Unsupported kv cache shape", "failed to
                # convert the KV cache specs to one unified type"), none of an amount: a format, not a size
                return Diagnosis(kind="NOT_OOM", code="error-not-memory", evidence=[(f.line_no, f.text)], oom=False,
                                 message="The run failed with an error that names the " + "/".join(words) + " by its "
                                         "kind (a shape, a type, a spec it does not support, a state it needs "
                                         "first), not by its size: no "
                                         "amount, shortfall or allocation is named, so memory is not the cause.")
            if words:  # a stated cause in words about memory that vramdoctor does not know: do not guess
                return Diagnosis(kind="UNDETERMINED", code="failure-unrecognised", evidence=[(f.line_no, f.text)],
                                 oom=None, candidates=[], missing="wording vramdoctor knows for this failure",
                                 message="The run failed with an error vramdoctor does not recognise; it speaks of "
                                         + ", ".join(words) + ", so it may be about memory. Read it, and run "
                                         "`vramdoctor estimate` with the server's settings to see which ledger is tight.")
            if f.code == "code-error":  # (Python's message of a bug without its class: "'dict' object has no attribute")
                return Diagnosis(kind="NOT_OOM", code=f.code, evidence=[(f.line_no, f.text)], oom=False,
                                 message="This is not memory running out: " + _not_oom_advice(f.code, engine))
            return Diagnosis(kind="NOT_OOM", code="error-not-memory", evidence=[(f.line_no, f.text)], oom=False,
                             message="The run failed with an error that names its cause, and the cause is not "
                                     "memory: no out-of-memory words and no shortfall figures in this run.")
        place = locate(f, engine, weights, marks)
        if place.phase == "HOST":
            # (a kill the line after it reports, "exited with code 137": that kill is the failure, read as one)
            f = replace(f, kind="oom")
        else:
            cands = [KIND_OF_PHASE[p] for p in (place.candidates if place.phase is None else [place.phase])]
            over = _kv_over_free(run, f, cands) or _starved_before(run, f, engine)
            if over:
                return over
            return Diagnosis(kind="UNDETERMINED", code="failure-cause-not-shown", evidence=[(f.line_no, f.text)],
                             oom=None, candidates=cands, phase_source=place.source, missing=_missing(f, place),
                             message="The run failed, but the line that says why is not in this log, so whether "
                                     "memory ran out cannot be told. Missing: " + _missing(f, place) + ". If it was "
                                     "memory, the phase would be " + " or ".join(cands) + ".")
    if (not f.progress and run.progress and (user_words(f.text) or TITLE.match(f.text) or _plain_title(run, f)
                                             or (INTRO.match(f.text) or prose_like(f.text))
                                             and not (during_step(f.text, engine) or _HOST_LOADING.search(f.text)
                                                      or phase_words(f.text, engine)))
            and not any(g is not f and g.kind in ("oom", "not_oom", "error") and program_line(g.text)
                        for g in run.failures)):
        # a failure only the report's words name, above the log it pastes (a title, a sentence), where the log shows
        # no failure of its own (the report's other sentences of it are not the log's): the log is what led up to it,
        # so how far it got is where the failure came
        # (a log cut partway through its last line stops before whatever came next: how far it got is a floor)
        f = replace(f, progress=dict(run.progress), lines_before=list(run.tail_lines), after=[],
                    elided=f.elided or run.tail_cut)
        reached = step_reached(replace(f, progress={}), engine)
        if reached and reached[0] == "WEIGHTS" and not reached[2]:
            # ... and where its last lines begin loading a model after the milestones (FastChat's and Xinference's model
            # worker, "Loading the model ['Qwen-14B'] on worker ...", after their HTTP server said "Application startup
            # complete"): that load is where it got; the milestones before it were another process's
            at = reached[1][0]
            f = replace(f, progress={m: ln for m, ln in f.progress.items() if m == "start" and ln < at})
    if not program_line(f.text) or run.heading and f.line_no == run.heading[0]:
        # a failure only the report's words name (its title, a sentence): a backtrace the report ends with, out of
        # reach of the lines kept after that sentence, is the failure they name: its frames place it
        tail = _tail_after(run, f)
        if any(FRAME.search(t) for _, t in tail):
            f = replace(f, after=f.after + tail)
        elif TITLE.match(f.text):  # ... or, below a title, the body's sentences that name the step it came in
            f = replace(f, after=f.after + [(ln, t) for ln, t in tail if not program_line(t) and during_step(t, engine)])
    place = locate(f, engine, weights, marks)
    if (place.phase == "RUNTIME" and (f.wrapper or f.deciding and f.deciding[0] != f.line_no)
            and _loader_proper(f)):
        # (a request's handler that loads a model on demand, "Exception on /load_model [POST]" over from_pretrained's
        # frames: the wrapper says a request was handled, the loader proper says what it was doing)
        place = replace(place, phase="WEIGHTS", candidates=["WEIGHTS"], inferred=True,
                        source="the stack frames: a model loader proper, under a request's handler")
    if not place.source.startswith(("the failure message", "the message after")):
        place = _ledger_by_size(f, run.numbers) or place
    device = _device_setup(run, f, place)
    if device:
        return device
    if run.heading and f.deciding == run.heading and place.deciding == run.heading:
        place = replace(place, source="the engine's error the report's title quotes")
    if ((told or user_words(f.text)) and place.phase in STARTUP and not _ends(f) and not _in_torch(f)
            and not (told and f.deciding == told)
            and place.source.startswith(("the stack frames", "the message after"))
            and not _checks_pool(f)
            and not (place.phase == "WEIGHTS" and _loader_proper(f))):
        # (a check raises: it is the step; a loader only loads)
        # a user's words of the failure over a traceback cut before its last frames: the innermost frame shown is a
        # floor, not the step that failed (text-generation-webui's load_model allocates exllamav2's cache after its
        # weights)
        later = list(STARTUP[STARTUP.index(place.phase):])
        reached = step_reached(f, engine, place.phase)
        under_way = reached[:2] if reached and not reached[2] else None
        if under_way and under_way[0] in later:
            # ... unless the engine's own line just before the traceback names the step under way ("Starting profile
            # run for multi-modal models." over vLLM's _initialize_kv_caches, which profiles before it sizes the pool)
            place = replace(place, phase=under_way[0], candidates=[under_way[0]], deciding=under_way[1], inferred=True,
                            source=place.source + ", cut before its innermost frames, and the step under way before them")
        else:
            # (a step before lines left out, "[...]": the run got at least that far, so the phases before it are out)
            reached = reached if reached and reached[0] in STARTUP else None
            later = [p for p in later if not reached or STARTUP.index(p) >= STARTUP.index(reached[0])] or later
            if len(later) == 1 and reached:
                place = replace(place, phase=later[0], candidates=later, deciding=reached[1], inferred=True,
                                source=place.source + ", cut before its innermost frames, and a step the run reached "
                                                      "before lines left out")
            else:
                place = replace(place, phase=None, candidates=later,
                                source=place.source + ", cut before its innermost frames")
    # (not a load the failure's own words say failed, "error loading llama server", "model requires more system
    # memory": Ollama and the proxies load a model when a request names it, after serving others)
    new_load = place.phase == "WEIGHTS" and (f.code == "weights-exceed-system-memory" or bool(_LOAD_FAILED.search(f.text)))
    if place.phase in STARTUP and _serving_before(run, f, engine) and not _engine_says(place) and not new_load:
        # a start-up step's words after the server's own lines showed it serving (llama-server's compute buffer
        # re-reserved for a longer prompt, ggml_gallocr_reserve_n, on task 12): the phase never goes back
        place = replace(place, phase="RUNTIME", candidates=["RUNTIME"],
                        source=place.source + ", after the server was serving")
        f = replace(f, code=f.code if f.code in _ANY_PHASE else "")
    if place.phase == "WARMUP" and not _engine_says(place) and _told_on_a_request(run, f):
        # a warm-up step's words in a person's sentence that says, in the same breath, that it came on a request ("it
        # passes /health ... but the first real completion request crashes ...: failed to allocate compute pp
        # buffers"): a compute buffer or a graph made again for that request
        place = replace(place, phase="RUNTIME", candidates=["RUNTIME"], inferred=True,
                        source=place.source + ", in the report's sentence that it came on a request")
        f = replace(f, code="")
    if place.phase == "RUNTIME":  # (its request is the warm-up's own, which an access line may show)
        warm = _warmup_wrapper(f)
        if warm:  # the failure ends the traceback of the engine's own warm-up failure above it (SGLang's
            # "Initialization failed. warmup error: Traceback ..." ending in the warm-up request's 500 and its
            # out-of-memory text): its warm-up request, not serving
            place = replace(place, phase="WARMUP", candidates=["WARMUP"], deciding=warm,
                            source="the engine's own words that its warm-up failed, above the failure")
    if f.code == "nccl-buffers-oom" and place.phase == "WARMUP" and _serving_frames(run, f, engine):
        # NCCL's buffers are made when a pair of ranks first talks, not only at start: one made while serving (an
        # expert rebalance's transfers, execute_model -> eplb_step) ran out there
        place = replace(place, phase="RUNTIME", candidates=["RUNTIME"],
                        source="the failure message, and stack frames that show it serving")
    tail = step_under_way(run, engine) if place.phase is None and f.kind == "oom" else None
    if (tail and tail[2] in STARTUP and tail[2] in place.candidates and tail[0] > f.line_no
            and (any(bar_under_way(t) for ln, t in run.tail_lines if ln > f.line_no)
                 or any(DEATH_BEGINS.match(t) for ln, t in run.tail_lines if ln > tail[0]))
            and (f.pasted or user_words(f.text) or sentence_like(f.text) or _plain_title(run, f)
                 or f.line_no == run.first_line and not program_line(f.text))):
        # the report's words of an out of memory (or the error pasted above the start-up) over a log that ends while
        # a start-up step is under way, a bar short of its end among its last lines ("about 10% into the loading
        # process the Pod dies" over the loader's lines): that step
        place = replace(place, phase=tail[2], candidates=[tail[2]], deciding=tail[:2], inferred=True,
                        source="the report's words of the failure, and the step under way where the log ends")
    over = _weights_over_working_set(run) if f.code == "metal-command-buffer-oom" and place.phase in (
        "WARMUP", None) else None
    if over:
        # the Metal buffers of the weights alone past the GPU's working-set limit: ggml-metal wraps the mapped file
        # without copying it, so the buffers "succeed" and the first graph that must make them resident fails
        place = replace(place, phase="WEIGHTS", candidates=["WEIGHTS"], inferred=True, source=over)
        f = replace(f, code="weights-exceed-working-set")
    recovered = _recovered(run, f, place, engine)
    if recovered:
        return recovered
    said_grew = run.number_lines.get("_growth_stated") == f.line_no and not program_line(f.text)
    # (or the failure is only the report's words, its title or a sentence, and the report states growth: "Out of GPU
    # memory when creating multiple sessions" over "Looks like the GPU memory is not freed": the growth is the cause,
    # wherever the start-up pasted under the words got to)
    told_only = isinstance(run.numbers.get("_growth_stated"), str) and not program_line(f.text) and bool(
        TITLE.match(f.text) or user_words(f.text) or sentence_like(f.text) or persons_line(f.text)
        or not STRONG_PREFIX.match(f.text) and not FRAME.search(f.text) and f.pasted)
    if (place.phase in (None, "RUNTIME") or said_grew or told_only) and f.kind == "oom":
        # (or the failure's own sentence says memory grew until it ran out: "VRAM leak ...: Draft KV cache grows ~10MB
        # per cycle until OOM" names the cache that grew, not a pool too small at start)
        # memory that kept growing while serving, then ran out: the growth is the cause, the failure its end
        grown = _grew_until(run, f, f" Here it grew until memory ran out (line {f.line_no}).")
        if grown:
            return grown
    if place.phase == "HOST":  # the kernel's OOM killer, or the CPU allocator: host RAM, not the GPU
        grown = _grew_until(run, f, " Here it grew until the host's (or the container's) memory limit ended the "
                                    "process: host RAM, not the GPU.")
        if grown:  # the host ran out because memory kept growing
            return grown
        alloc = f.code == "host-alloc-failed"
        # a SIGKILL whose sender the log does not name (exit 137, a shell's "killed"): most often the OOM killer
        # (the shell's own "Killed" too: it reports a SIGKILL, and names no sender)
        bare = not alloc and bool(SIGKILL_RX.search(f.text) or _SHELL_KILLED.match(f.text)) and \
            not _OOM_KILLER.search(f.text)
        what = ("Host RAM ran out (the CPU allocator failed)" if alloc else
                "Ray's memory monitor killed a worker for lack of the node's RAM (not the kernel: dmesg will not show "
                "it; its threshold is RAY_memory_usage_threshold)" if _RAY_KILL.search(f.text) else
                "The process was killed (SIGKILL), most likely by the OOM killer for lack of host RAM; the log does "
                "not name the killer" if bare else
                "The operating system killed the process for lack of host RAM")
        failed_load = bool(_LOAD_FAILED.search(f.text))  # reported as a failed load ("error loading llama server")
        loaded = not failed_load and any(m in f.progress for m in ("ready", "requests"))  # serving
        # the report's lines around the kill and the step each names in words (`during_step`), read once
        told_steps = [(ln, t, during_step(t, engine)) for ln, t in [(f.line_no, f.text), *f.before[-16:], *f.after]
                      if not program_line(t)]
        loading = failed_load or any(step == "WEIGHTS" or _HOST_LOADING.search(t) for _, t, step in told_steps) or any(
            # (the kill's own line too, where the shell printed it after the step's: "Loading model... Killed")
            phase_words(t, engine) in ("WEIGHTS", "STARTUP") and not step_done(t) and not _persons_sentence(t)
            for _, t in [*f.before[-12:], (f.line_no, f.text)]) or _load_announced(f) or (
            alloc and any(phase_words(t, engine) == "WEIGHTS" for _, t in f.before + f.after))
        # (or the last step the engine's lines show under way, however far above the kill the pod's state or the
        # kernel's lines pasted under them go: a weights' load or conversion bar short of its end)
        last_step = not loading and "weights_done" not in f.progress and not loaded and \
            _last_step(f, engine) == "WEIGHTS"
        # (or a start line of the server's own and no step after it: LocalAI's "BackendLoader starting backend=..."
        # for the request that named the model, then the kill: the load under way)
        # (a kill by the OOM killer: not a bare SIGKILL, whose sender the log does not name, a user's kill after Ctrl-C
        # too; nor the CPU allocator failing, whose own frames say what asked, a fork)
        started = not loading and not loaded and not bare and not alloc and set(f.progress) == {"start"} and program_line(
            run.progress_text.get("start", "")) and f.progress["start"] < f.line_no
        # (or a program that does nothing but convert weights, its command or its own line above the kill: TensorRT-
        # LLM's convert_checkpoint.py, "Total time of reading and converting 52.1 s" before it writes the checkpoint;
        # llama.cpp's convert_hf_to_gguf.py and llama-quantize): no KV cache, no serving, only the weights in host RAM
        converting = not loading and not loaded and any(_CONVERTING.search(t) for _, t in f.before[-40:])
        loading = loading or last_step or started or converting
        source = ("a program that only converts weights" if converting else
                  "the last step the engine's lines show under way: the weights' load" if last_step else
                  "the server's start line, no step after it: the load under way" if started else place.source)
        if f.pasted and not loaded:
            source = "the start-up pasted after it"
            # pasted above the start-up it ended (a pod's state, dmesg, then the container's log): that start-up's
            # progress, with no weights loaded yet, is the weights loading
            loading = loading or "weights_done" not in f.progress
        if not loaded and not loading and not any(program_line(t) and not _POD_FIELD.match(t) and not COMMAND.match(t)
                                                   for _, t in f.before):
            # no server line before it, the server's lines after it (dmesg or a pod's state pasted first): read
            # against those
            source = "the server's lines after it"
            later = {m: ln for m, ln in run.progress.items() if ln > f.line_no and m not in marks}
            loaded = any(m in later for m in ("ready", "requests"))
            loading = not loaded and ("weights_done" not in later and (
                "start" in later or any(phase_words(t, engine) in ("WEIGHTS", "STARTUP") for _, t in f.after[:12])))
        # (on the kill's own line, or the kernel's just under a report's line of it)
        compiler = next((m for t in [f.text, *(t for _, t in f.after[:6])] for m in [_KILLED_COMPILER.search(t)] if m),
                        None)
        cname = next((g for g in compiler.groups() if g), "") if compiler else ""
        started_at = min(f.progress.values(), default=0)
        # (the build's own lines, looked for only where a compiler was killed; the last is the latest)
        built = [(ln, t) for ln, t in f.before[-40:] if _BUILDING.search(t)] if compiler else []
        if built and (not started_at or built[-1][0] > started_at):
            # ... a package built from source (pip building a wheel, cmake, a docker build), after any server start:
            # the build's compilers took the host's RAM, no server's ledger
            return Diagnosis(kind="NOT_OOM", code="kernel-build-failed", oom=False, inferred=True,
                             evidence=[built[-1], (f.line_no, f.text)],
                             phase_source=f"the build's own line (line {built[-1][0]}) and the process the OOM killer "
                                          f"chose, {cname}",
                             message=f"A build from source ran out of host RAM: the OOM killer chose its compiler "
                                     f"({cname}), each of its parallel jobs holding gigabytes. Build with "
                                     "fewer jobs at once (MAX_JOBS=1 or 2, `cmake --build -j 2`), add swap, or install a "
                                     "prebuilt wheel or image; no server ran, so no GPU ledger is involved.")
        if compiler and (started_at or engine not in ("unknown", "generic", "")) and not loaded and not failed_load:
            # the OOM killer's victim is a compiler (cicc, ptxas, cc1plus): kernels compiled just in time as the server
            # starts (FlashInfer's and DeepGEMM's JIT, torch.compile's C++ wrappers, MAX_JOBS of them at once), after
            # the weights, before serving; not a package built from source after the start, whose own lines say so
            return Diagnosis(kind="WARMUP", code="host-oom-kill", evidence=[(f.line_no, f.text)], inferred=True,
                             phase_source=f"the process the OOM killer chose, {cname}: a compiler, so "
                                          "kernels were being compiled just in time at start-up",
                             message=what + f": it chose a compiler ({cname}), so kernels were being "
                                     "compiled just in time at start-up, after the weights: the compiler's processes "
                                     "took the host's RAM beside the model. Fewer compile jobs at once (MAX_JOBS=1) or "
                                     "a prebuilt kernel cache avoids it; the GPU is not the ledger here.")
        # (the report's words of serving: its requests, or a step only serving runs, "OOM-kills the scheduler on
        # chunked prefill")
        said = None if loaded or failed_load else (_serving_told(run, f, engine) or next(
            ((ln, t) for ln, t, step in told_steps if step == "RUNTIME"), None))
        if said and "weights_done" in f.progress:  # the weights loaded, and the report says it was serving
            return Diagnosis(kind="RUNTIME", code="host-oom-kill", evidence=[(f.line_no, f.text), said],
                             phase_source=f"the report's words (line {said[0]}), inferred, after the weights loaded",
                             message=what + " while serving, as the report says; the server's own lines of the "
                                            "serving are not in the log.")
        # (the report's words of a warm-up step, where they name no load and no serving: "OOM killer during JIT
        # compilation", the weights loaded and torch.compile done before it)
        warm = None if loaded or failed_load else next(((ln, t) for ln, t, step in told_steps if step == "WARMUP"),
                                                        None)
        if warm is None and not loaded and not failed_load and phase_words(f.text, engine) == "WARMUP" \
                and not step_done(f.text):
            # (or the kill printed after the bar of a warm-up step the program left open: "Capturing CUDA graph
            # shapes:  60%|██████    | 40/67 [00:10<00:07]Killed")
            warm = (f.line_no, f.text)
        if warm and not any(step == "WEIGHTS" for _, _, step in told_steps):
            return Diagnosis(kind="WARMUP", code="host-oom-kill", evidence=[(f.line_no, f.text), warm], inferred=True,
                             phase_source=f"the report's words (line {warm[0]}), inferred: a warm-up step",
                             message=what + " during a warm-up step the report names (compiling kernels, the profile "
                                            "run, graph capture): host RAM, taken by the compiler's processes or the "
                                            "step's host buffers; the server's own lines of that step are not in the "
                                            "log.")
        done = f.progress.get("weights_done", 0)
        # (the last line of a load's step among those before it, where it is not a finished one; looked for only where
        # the weights' milestone came and the run neither served nor reported its load failed)
        load_bar = next(((ln, t) for ln, t in reversed(f.before[-12:]) if ln > done
                         and phase_words(t, engine) == "WEIGHTS" and not _persons_sentence(t)),
                        None) if done and not loaded and not failed_load else None
        if load_bar and not step_done(load_bar[1]):
            # a load under way after the weights' milestone: another worker's (Ray's "(WorkerDict pid=1513946) Loading
            # checkpoint shards:  75%| 3/4" under one whose shards were all read), or a second model's: that load
            return Diagnosis(kind="WEIGHTS", code="weights-exceed-system-memory", inferred=True,
                             evidence=[(f.line_no, f.text), load_bar],
                             phase_source=f"the last step the lines show under way (line {load_bar[0]}): a load, after "
                                          "another's weights were done",
                             message=what + " while it loaded the weights (a load under way, after another worker's "
                                            "or another model's weights were read): they pass through CPU memory.")
        # (the engine's lines of setting up its context once the weights are read, or the engine's it wraps)
        context = knowledge().own_or_wrapped(engine, lambda w: w.context_setup)
        if (not loaded and not failed_load and done and context and "kv_done" not in f.progress
                and not any(ln > done and context.search(t) for ln, t in f.before)):
            # an engine that prints its weights' buffer sizes before it reads the data into them (llama.cpp:
            # llama-model.cpp load_tensors, then load_all_data): a kill before its context is set up is the weights
            # being read in
            return Diagnosis(kind="WEIGHTS", code="weights-exceed-system-memory", inferred=True,
                             evidence=[(f.line_no, f.text), (done, run.progress_text.get("weights_done", ""))],
                             phase_source="the start-up progress: the weights' buffers made, no context set up yet",
                             message=what + " while it read the weights into their buffers (llama.cpp prints the "
                                            "buffers' sizes before it reads the data; its context comes after).")
        sized = [m for m in ("warmup_done", "kv_done", "kv_sized") if m in f.progress]
        if not loaded and not failed_load and sized:
            # ... after the KV cache was sized (vLLM V0's "# GPU blocks: N, # CPU blocks: M", then its CPU swap space
            # pinned in host RAM, then the graphs): the weights had been read; the pool's host buffers or the warm-up
            left = AFTER_MILESTONE[sized[0]]
            cands = [KIND_OF_PHASE[p] for p in left if p != "RUNTIME"] or ["WARMUP"]
            return Diagnosis(kind="UNDETERMINED", code="host-oom-kill" if not alloc else "host-alloc-failed",
                             evidence=[(f.line_no, f.text), (f.progress[sized[0]],
                                                            run.progress_text.get(sized[0], ""))],
                             candidates=cands, phase_source=f"the start-up progress ({sized[0]}), before serving",
                             missing="the line of the step under way when host memory ran out",
                             message=what + " after the KV cache was sized and before the server was serving: "
                                     "the weights had been read; the cache's host buffers (CPU swap space, pinned "
                                     "memory, a cache in RAM on a unified-memory machine) or the warm-up after them.")
        step = _last_step_line(f, engine) if not loaded and not failed_load and "weights_done" in f.progress else None
        if step and step[2] == "KV" and alloc:
            # the CPU allocator failed with the KV cache's making the step under way (llama.cpp's llama_context makes
            # its memory module right after its output buffer's line: the cache's cells, one per token of n_ctx, and
            # its buffers, in host RAM for the layers it keeps there; a std::bad_alloc for a context of a million)
            ln, t, _ = step
            return Diagnosis(kind="KV_CAPACITY", code="kv-cache-alloc-failed", inferred=True,
                             evidence=[(f.line_no, f.text), (ln, t)],
                             phase_source=f"the last step the engine's lines show under way (line {ln}): the KV "
                                          "cache made next",
                             message=what + " as the KV cache was made (its step's line above): its cells and its "
                                     "buffers in host RAM, sized by the context; a smaller context (or fewer "
                                     "sequences) fits, or KV on the GPU where it has room.")
        if step and step[2] == "WARMUP":
            # after the weights, the engine's lines show a warm-up step under way (vLLM's torch.compile: "Compiling a
            # graph for dynamic shape ...", Inductor's compile workers in host RAM): that step
            ln, t, _ = step
            return Diagnosis(kind="WARMUP", code="host-oom-kill" if not alloc else "host-alloc-failed", inferred=True,
                             evidence=[(f.line_no, f.text), (ln, t)],
                             phase_source=f"the last step the engine's lines show under way (line {ln})",
                             message=what + " after the weights loaded, during a warm-up step (its line above: "
                                     "compiling the model's graphs or the profile run), which used the host's RAM: "
                                     "the compiler's workers and its caches, not the GPU.")
        if not loaded and not failed_load and "weights_done" in f.progress:
            # after the weights' buffers, before serving: the weights still paging in (mmap), or the host buffers
            # the engine makes next (CPU swap space, pinned memory, a KV cache or compute buffer in RAM)
            return Diagnosis(kind="UNDETERMINED", code="host-oom-kill" if not alloc else "host-alloc-failed",
                             evidence=[(f.line_no, f.text), (f.progress["weights_done"],
                                                            run.progress_text.get("weights_done", ""))],
                             candidates=["WEIGHTS", "KV_CAPACITY", "WARMUP"],
                             phase_source="the start-up progress (weights_done), before serving",
                             missing="the line of the step under way when host memory ran out",
                             message=what + " after the weights' buffers were made and before the server was "
                                     "serving: the weights still being read in, or the host buffers made next (CPU "
                                     "swap space, pinned memory, a KV cache or compute buffer in RAM).")
        kv = None if loaded else next(((ln, t) for ln, t in [*f.before[-16:], (f.line_no, f.text), *f.after,
                                                             *run.tail_lines]
                                       if not program_line(t) and during_step(t, engine) == "KV"), None)
        if kv:  # the report's words name the KV cache as what did not fit: a cache in host RAM (a CPU build, a
            # unified-memory machine, a KV cache kept off the GPU)
            return Diagnosis(kind="KV_CAPACITY", code="kv-cache-alloc-failed", inferred=True,
                             evidence=[(f.line_no, f.text), kv],
                             phase_source=f"the report's words (line {kv[0]}), which name the KV cache as what did not fit",
                             message=what + ": the report's words name the KV cache as what did not fit (a KV cache "
                                            "in host RAM: a CPU build, a unified-memory machine, or one kept off the "
                                            "GPU); a shorter context shrinks it.")
        told = None if loading else said  # (failed_load is loading: `said` holds for the rest)
        if told:  # the report says it was serving ("killed on the first request"): the server's lines do not
            return Diagnosis(kind="RUNTIME", code="host-oom-kill", evidence=[(f.line_no, f.text), told],
                             phase_source=f"the report's words (line {told[0]}), inferred",
                             message=what + " while serving, as the report says; the server's own lines of the "
                                            "serving are not in the log.")
        if not loaded and not loading:  # one kernel line, nothing of the run: loading or serving cannot be told
            return Diagnosis(kind="UNDETERMINED", code="host-oom-kill" if not alloc else "host-alloc-failed",
                             evidence=[(f.line_no, f.text)], candidates=["WEIGHTS", "RUNTIME"],
                             phase_source="the failure line alone",
                             missing="the server's own lines before it failed",
                             message=what + "; the log does not show whether it was loading the weights (they pass "
                                     "through CPU memory) or serving.")
        return Diagnosis(kind="RUNTIME" if loaded else "WEIGHTS", code="host-oom-kill" if loaded else
                         "weights-exceed-system-memory", evidence=[(f.line_no, f.text)], phase_source=source,
                         inferred=bare or not program_line(f.text),  # (a kill the report's words tell: inferred)
                         message=what + (" while serving." if loaded else " while it loaded the weights (they pass "
                                         "through CPU memory on the way to the GPU)."))
    phase, where = place.phase, place.source
    every = _every_context_failed(run) if phase is None or place.inferred or where == STEP_BEFORE else None
    if every and f.kind == "oom":
        # (over a launcher's step whose name is its own, kaiwu's "[5/6] Warmup benchmark..." of whole starts at each
        # context: the tries at each context say more than the step's name)
        ln = run.number_lines.get("_context_sweep", f.line_no)
        return Diagnosis(kind="UNDETERMINED", code=f.code or "oom-phase-not-shown", evidence=[(f.line_no, f.text)],
                         oom=True, candidates=["WEIGHTS", "WARMUP"],
                         phase_source=f"the tries at each context (line {ln}): every one ran out of memory",
                         missing="the engine's own lines of what it was allocating when it failed",
                         message=f"Every context tried ran out of memory, from {every[1]:,} tokens down to {every[0]:,}: "
                                 "the KV cache, which shrinks with the context, is not what broke. What does not "
                                 "shrink with it did not fit: the weights (too large for the GPU with this "
                                 "quantization and offload) or the fixed buffers beside them (compute, graphs). The "
                                 "log does not show which; run `vramdoctor estimate` on the model for its weights.")
    n = run.numbers
    need, whole = n.get("required_pages"), n.get("total_pages")
    if isinstance(need, int) and isinstance(whole, int) and need > whole:  # more than the whole pool: its size
        phase, where = "KV", f"the engine's own figures: {need} pages needed, {whole} in the whole pool"
        f.code = "max-model-len-exceeds-kv-cache"
    got, wanted = n.get("kv_available_bytes"), n.get("kv_required_bytes")
    if (f.code == "no-memory-for-kv-cache" and isinstance(got, int) and isinstance(wanted, int)
            and 0 < got < wanted):  # a pool smaller than the context needs, not no pool at all
        phase, where = "KV", (f"the engine's own figures: {got / 2**30:.2f} GiB for the KV cache, "
                              f"{wanted / 2**30:.2f} GiB needed")
        f.code = "max-model-len-exceeds-kv-cache"
    weights, avail = n.get("weights_bytes"), n.get("available_memory_bytes")
    # an engine whose own message sums weights and buffers (MLC): the weights ledger broke only if they alone exceed
    temp = n.get("temporary_buffer_bytes")
    if (phase == "WEIGHTS" and "temporary buffer" in f.text.lower() and isinstance(weights, int)
            and isinstance(avail, int) and weights < avail):
        if isinstance(temp, int) and weights + temp < avail:
            return Diagnosis(kind="UNDETERMINED", code="figures-contradict-message", evidence=[(f.line_no, f.text)],
                             oom=None, candidates=[], phase_source="the engine's own figures",
                             missing="why the engine's check failed with memory to spare",
                             message=f"The engine says GPU memory is insufficient, but its own figures show "
                                     f"{(weights + temp) / 2**20:,.0f} MiB needed and {avail / 2**20:,.0f} MiB "
                                     "available: the check failed for another reason (a wrong reading of the device's "
                                     "memory: the driver, MIG or sharing, or another GPU than the one meant).")
        phase, where = "WARMUP", "the figures printed: the weights fit, what comes beside them does not"
        f.code = "temporary-buffer-exceeds-memory"
    refused = _refusal_ledger(n) if phase == "WEIGHTS" and f.code == "weights-exceed-system-memory" else None
    if refused:
        phase, where = "KV", refused
        f.code = "context-exceeds-system-memory"
    if phase is None and "RUNTIME" in place.candidates and f.kind == "oom":
        told = _serving_told(run, f, engine)
        if told:
            phase, where = "RUNTIME", f"the report's words: it failed while serving (line {told[0]})"
            place = replace(place, deciding=told, inferred=True)
    if phase is None:
        said = [t for t in ((told or (0, ""))[1], f.text) if t and not program_line(t)]
        left = _narrowed(place.candidates, said)
        if _LOAD_FAILED.search(f.text):  # the failure reported as a load that failed: a start-up step, not serving
            left = [p for p in left if p in STARTUP] or left
        if len(left) == 1:  # every other phase ruled out (by the frames' floor, the report's words): the one left
            phase, where = left[0], where + "; the only phase left"
            place = replace(place, inferred=True)
    if phase is None and "KV" in left:
        # (the engine's own figures that its pool got less than nothing, "Available KV cache memory: -0.87 GiB": the
        # cache is what did not fit)
        short = shortfall(run)
        if short and short.kind == "KV_CAPACITY":
            return replace(short, evidence=sorted({(f.line_no, f.text), *short.evidence}))
        swept = _context_swept(run)
        if swept:
            phase, where = "KV", swept
            place = replace(place, inferred=True)
    if phase is None:
        planned = _planned_ledger(run, left)
        if planned:
            phase, where = planned
            place = replace(place, inferred=True)
    if phase is None and "WEIGHTS" in left:
        # (the least the model's name and settings let its weights weigh is more than its GPUs hold: the weights could
        # not have loaded, whatever step the log leaves out)
        named = weights_exceed_gpus(run.numbers, engine)
        if named:
            phase, where = "WEIGHTS", named.reason
            place = replace(place, inferred=True)
            f.code = f.code or "weights-exceed-gpu-memory"
    if phase is None and "WARMUP" in left and not any(m in f.progress for m in ("ready", "requests")):
        fixed = run.numbers.get("_fixed_outside_pool")
        if isinstance(fixed, str):
            phase, where = "WARMUP", (f"the report's words of the fix that worked (line "
                                      f"{run.number_lines.get('_fixed_outside_pool', 0)}): more memory outside the KV "
                                      "pool, for the warm-up")
            place = replace(place, inferred=True)
    if phase is None:
        cands = [KIND_OF_PHASE[p] for p in left]
        missing = _missing(f, place)
        what = ("One buffer was larger than the device allows in a single allocation (a driver's cap, such as "
                "Vulkan's maxMemoryAllocationSize, not free memory running out), but this log does not show which "
                "buffer" if f.code == "buffer-exceeds-allocation-limit" else
                "Memory ran out, but this log does not show in which phase")
        return Diagnosis(kind="UNDETERMINED", code=f.code or "oom-phase-not-shown", evidence=[(f.line_no, f.text)],
                         candidates=cands, phase_source=where, missing=missing,
                         message=what + ": it could be " + " or ".join(cands) + ". Missing: " + missing + ".")
    kind = KIND_OF_PHASE[phase]
    pinned = _pinned_host(run, f, engine) if kind == "WEIGHTS" else None
    if pinned:
        return pinned
    evidence = sorted({(f.line_no, f.text), place.deciding} | ({told} if told else set()))
    stack = " ".join(t for _, _, t in frames(f)) if kind in ("WARMUP", "RUNTIME", "KV_CAPACITY") else ""
    code = _code(kind, f, place.deciding[1] + " " + where + " " + stack)
    if place.source == SECOND_MODEL and not f.code:  # the first model loaded; the one after it did not fit beside it
        code = "projector-weights-oom" if PROJECTOR.search(place.deciding[1]) else "draft-model-weights-oom"
    elif kind == "WEIGHTS" and not f.code and _PROJECTOR_LOADER.search(" ".join(t for _, _, t in frames(f))):
        code = "projector-weights-oom"  # (its own loader in the backtrace: mtmd loads it after the model and context)
    # (a failure only a person's words state, placed by the engine's lines elsewhere in the paste: where the log stops
    # or what it shows is not where the words say memory ran out, so the place is a reading, not the engine's word)
    told_only = told is not None or (user_words(f.text) or TITLE.match(f.text) or prose_like(f.text)) and \
        place.deciding[0] != f.line_no
    message = _CODE_MESSAGES.get(code, _MESSAGES[kind])
    if code == "weights-exceed-system-memory" and run.numbers.get("system_memory_required_bytes") is not None:
        message = _REFUSED_LOAD  # (the engine's sum for the load it refused: the KV cache is in it)
    return Diagnosis(kind=kind, code=code, evidence=evidence, phase_source=where,
                     inferred=place.inferred or bool(told_only), message=message)


#: the message of a load an engine refused for the sum of its ledgers (Ollama's "model requires more system memory
#: (45.3 GiB) than is available (17.7 GiB)"), where its figures do not show the KV cache outweighing the weights
_REFUSED_LOAD = ("The engine refused to load the model: the memory it needs, the weights with the KV cache for the "
                 "context asked for and its compute buffers, is more than the machine has free. Smaller weights fit "
                 "best; a shorter context lowers the sum too. Restarting will not help.")


#: the multimodal projector's own loader in a backtrace (llama.cpp's tools/mtmd: clip_model_loader::load_tensors under
#: clip_init under mtmd_init_from_file, also as glibc prints them mangled, "_ZN17clip_model_loader12load_tensors...")
_PROJECTOR_LOADER = re.compile(r"(?:\b|\d)(?:clip_model_loader|clip_init|mtmd_init_from_file)")


#: a CUDA or HIP runtime's out of memory, in ggml's words ("CUDA error 2 at ggml-cuda.cu:359: out of memory",
#: "cudaMalloc failed: out of memory")
_GPU_OOM_WORDS = re.compile(r"\b(?:CUDA|HIP|ROCm) error\b|\bcuda\w*Malloc\w*\b|\bcudaMallocHost\b|\bhipMalloc", re.I)


def _pinned_host(run: RunFacts, f: Failure, engine: str) -> Diagnosis | None:
    """UNDETERMINED where a ggml engine's CUDA allocation failed while it loaded with mmap off and no layer on the GPU
    (-ngl 0, none offloaded, no GPU weights buffer): the buffer was host memory that CUDA pins (llama.cpp copies the
    model into a pinned buffer on CUDA builds without mmap: ggml_cuda_host_malloc) or a cuBLAS workspace, not the
    weights on the GPU; pinned memory has its own caps (WSL's, `ulimit -l`). None otherwise."""
    n = run.numbers
    settle = knowledge().own_or_wrapped(engine, lambda w: w.pinned_host_load)
    if not settle or not _GPU_OOM_WORDS.search(f.text):
        return None
    ngl, offl = n.get("n_gpu_layers"), n.get("layers_offloaded")
    offl = max(offl) if isinstance(offl, list) and offl else offl
    if (isinstance(ngl, int) and ngl > 0) or (isinstance(offl, int) and offl > 0) or n.get("gpu_model_buffer_bytes") \
            or n.get("_gpu_alloc_bytes") or "offloading" in " ".join(t for _, t in f.before).lower():
        return None
    # (and only where the log says no layer went there: -ngl 0, "offloaded 0/N layers", or a build that kept every layer
    # on the CPU unless -ngl said otherwise, the engine's `_cpu_layers_unless_told`; a log that only does not show its
    # offload is no such evidence)
    if not (ngl == 0 or offl == 0 or ngl is None and n.get("_cpu_layers_unless_told") is True):
        return None
    if n.get("mmap_in_use") is not False:
        return None  # (with mmap the weights are mapped from the file, not copied into a pinned buffer)
    return Diagnosis(kind="UNDETERMINED", code="pinned-host-alloc-failed", evidence=[(f.line_no, f.text)],
                     candidates=["WEIGHTS"], oom=None, inferred=True,
                     phase_source="the start-up progress: the model loading, with no layer on the GPU",
                     missing="which memory the failed CUDA call asked for: pinned host memory or the GPU's",
                     message="A CUDA allocation failed while the model loaded, but no layer was placed on the GPU: the "
                             "buffer was most likely host memory that CUDA pins (llama.cpp pins the model's buffers "
                             "on CUDA builds when mmap is off) or a cuBLAS workspace, not the weights on the GPU. "
                             "Pinned memory is capped on its own (WSL, `ulimit -l`). " + settle)


#: the message of a code that says more than its kind's (`_MESSAGES`)
_CODE_MESSAGES = {
    "training-step-oom": "The model loaded, and memory ran out in a training step (its frames: the trainer's loop, "
                         "the backward pass or the optimizer's step): the activations, the gradients and the "
                         "optimizer's state (AdamW keeps two values per parameter, made at its first step) on top of "
                         "the weights, not a server's KV cache.",
    "draft-model-weights-oom": "The first model's weights loaded; a second model loaded after them, a draft model for "
                               "speculative decoding, ran out of memory: the draft does not fit beside the target.",
    "projector-weights-oom": "The model's weights loaded; its multimodal projector (mmproj, the vision encoder) loaded "
                             "after them and ran out of memory: it does not fit beside the model.",
    "hicache-host-memory-short": "The weights and the GPU's KV pool were made, but the host-memory tier of the "
                                 "hierarchical KV cache asked for more host memory than was free: the host's memory, "
                                 "not the GPU's, is short.",
    "context-exceeds-system-memory": "The engine refused to load the model: what it needs for the context asked "
                                     "for (its KV cache and compute buffers, more than the weights) is more memory "
                                     "than the machine has, while the weights alone would fit. A shorter context is "
                                     "the change that counts; smaller weights alone would not.",
    "max-num-seqs-exceeds-state-pool": "The weights loaded, but the pool of this hybrid model's recurrent state "
                                       "(Mamba or linear-attention layers, one block per running sequence) holds fewer "
                                       "blocks than the configured number of concurrent sequences.",
}

#: where memory ran out, by phase, in a message's words
_DURING_PHASE = {"WEIGHTS": "while the weights were loading", "KV": "while the KV cache was being made",
                 "WARMUP": "while warming up", "RUNTIME": "while serving requests"}

_MESSAGES = {
    "WEIGHTS": "Memory ran out while loading or placing the weights, before that model served a request. Restarting "
               "will not help; a shorter context will not either.",
    "KV_CAPACITY": "The weights loaded, but the KV cache pool cannot hold the configured context (or got no memory at all).",
    "WARMUP": "Memory ran out after the weights were loaded, while profiling, warming up, capturing CUDA graphs or "
              "reserving compute buffers.",
    "RUNTIME": "Memory ran out while serving requests: long prompts or concurrency pushed it over.",
}
