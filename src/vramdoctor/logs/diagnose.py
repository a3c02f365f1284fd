"""RunFacts -> a diagnosis: which phase failed (kind), the specific pattern (code), the deciding lines
(evidence) and the figures. Pure. The phase comes from where the failure happened: the failure's own
words, then its stack frames (innermost first), then the lines just before it, then how far the
start-up had got; never from the CUDA error text alone, which is the same in every phase."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import signatures as sig
from .scan import Failure, RunFacts

KIND_OF_PHASE = {"WEIGHTS": "WEIGHTS", "KV": "KV_CAPACITY", "WARMUP": "WARMUP", "RUNTIME": "RUNTIME"}
WRAPPERS = ("ollama", "koboldcpp", "text-generation-webui", "exllamav2", "mlc-llm", "lmdeploy", "tensorrt-llm", "tgi")
BASES = ("vllm", "sglang", "llamacpp", "transformers")
# what follows a phase when the failure's own lines do not say (engine start-up order)
NEXT_PHASE = {"start": "WEIGHTS", "weights_done": "KV", "kv_done": "WARMUP", "warmup_done": "RUNTIME", "requests": "RUNTIME"}


@dataclass
class Diagnosis:
    """One run's verdict. evidence: (line number, text) pairs; inferred: True when no failure line
    states the cause and the kind follows from the run's progress and figures."""

    kind: str
    code: str
    message: str
    evidence: list[tuple[int, str]] = field(default_factory=list)
    phase_source: str = ""
    inferred: bool = False


def detect_engine(hits: dict[str, int]) -> str:
    """Wrappers (Ollama, KoboldCpp, ...) embed a base engine's lines, so any wrapper hit wins."""
    for group in (WRAPPERS, BASES):
        found = {k: v for k, v in hits.items() if k in group and v}
        if found:
            return max(found, key=lambda k: (found[k], -group.index(k)))
    return "unknown"


def _phase_in(text: str) -> str | None:
    for pattern, phase in sig.MESSAGE_PHASE:
        if pattern.search(text):
            return phase
    for phase in ("KV", "WARMUP", "WEIGHTS", "RUNTIME"):
        if sig.PHASE_WORDS[phase].search(text):
            return phase
    return None


def locate(f: Failure, engine: str) -> tuple[str, str, tuple[int, str]]:
    """(phase, where it was read, the deciding line) for a failure."""
    p = _phase_in(f.text)
    if p:
        return p, "the failure message", (f.line_no, f.text)
    follow = [(ln, t) for ln, t in f.after[:3] if not sig.FRAME.search(t)]
    for ln, text in follow:  # an engine's own verdict a line or two later ("failed ... for kv cache")
        for pattern, phase in sig.MESSAGE_PHASE:
            if pattern.search(text):
                return phase, "the message after the failure", (ln, text)
    for ln, text in follow:
        if p := _phase_in(text):
            return p, "the message after the failure", (ln, text)
    frames: list[tuple[int, int, str]] = []
    for i, (ln, text) in enumerate(f.before):
        if sig.FRAME.search(text):  # the frame line and, for Python, the code line under it
            frames.append((f.line_no - ln, ln, text))
            if i + 1 < len(f.before):
                nl, nt = f.before[i + 1]
                frames.append((f.line_no - nl, nl, nt))
    for i, (ln, text) in enumerate(f.after):
        if sig.FRAME.search(text):  # C++/CUDA context printed after the error, and the call under it
            frames.append((ln - f.line_no, ln, text))
            if i + 1 < len(f.after):
                nl, nt = f.after[i + 1]
                frames.append((nl - f.line_no, nl, nt))
    for _, ln, text in sorted(frames):
        p = _phase_in(text)
        if p:
            return p, "the stack frames", (ln, text)
    for ln, text in reversed(f.before[-6:]):
        p = _phase_in(text)
        if p and not sig.PROGRESS[0][1].search(text):
            return p, "the lines before the failure", (ln, text)
    reached = [m for m in ("requests", "warmup_done", "kv_done", "weights_done") if m in f.progress]
    phase = NEXT_PHASE[reached[0]] if reached else "WEIGHTS"
    return phase, f"the start-up progress ({reached[0] if reached else 'nothing loaded yet'})", (f.line_no, f.text)


def _code(kind: str, engine: str, f: Failure, where: str) -> str:
    t = f.text.lower()
    if "max seq len" in t or "kv cache is needed" in t:
        return "max-model-len-exceeds-kv-cache"
    if "no available memory for the cache blocks" in t or "cuda blocks: 0" in t:
        return "no-memory-for-kv-cache"
    if "requires more system memory" in t or "too large for system" in t:
        return "weights-exceed-system-memory"
    if "prefill tokens" in t and kind == "WARMUP":
        return "prefill-tokens-exceed-memory"
    if "insufficient vram" in t:
        return "weights-exceed-gpu-memory"
    if "not enough memory" in t and kind == "KV_CAPACITY":
        return "no-memory-for-kv-cache"  # SGLang: the static fraction minus the weights leaves no pool
    if "max_block_count" in t or "cache_block_num" in t:
        return "no-memory-for-kv-cache"
    if "tokens the kv cache can hold" in t:
        return "max-model-len-exceeds-kv-cache"
    if "nccl" in t:
        return "nccl-buffers-oom"
    if "insufficient gpu memory" in t and kind == "WARMUP":
        return "temporary-buffer-exceeds-memory"
    if "insufficient gpu memory" in t:
        return "weights-exceed-gpu-memory"
    if "no enough cache entries" in t:
        return "kv-cache-entries-exhausted"
    return {
        "WEIGHTS": "weights-alloc-failed",
        "KV_CAPACITY": "kv-cache-alloc-failed",
        "WARMUP": "profile-run-oom" if re.search(r"profile_run|_dummy_run\b|determine_available_memory|profil",
                                                  where, re.I) and "sampler" not in where.lower() else
                  "cuda-graph-capture-oom" if "captur" in where.lower() else
                  "sampler-warmup-oom" if "sampler" in where.lower() else
                  "compute-buffer-alloc-failed" if ("gallocr" in where or "compute buffer" in where.lower()) else
                  "warmup-oom",
        "RUNTIME": "prefill-oom" if ("prefill" in where.lower() or "prompt" in where.lower()) else "serving-oom",
    }[kind]


def _leak(run: RunFacts) -> Diagnosis | None:
    usage = [u for u in run.numbers.get("kv_usage_pct", []) if isinstance(u, (int, float))]
    running = run.numbers.get("running_reqs", [])
    if len(usage) >= 3 and usage[-1] - usage[0] >= 10:
        ups = sum(1 for a, b in zip(usage, usage[1:]) if b >= a)
        steady = not running or (max(running) - min(running) <= max(2, 0.2 * max(running)))
        if ups >= 0.75 * (len(usage) - 1) and steady:
            return Diagnosis(kind="LEAK", code="kv-cache-usage-creep",
                             message=f"KV cache usage rose from {usage[0]}% to {usage[-1]}% while the running "
                                     f"requests stayed at {min(running) if running else '?'}-{max(running) if running else '?'}: "
                                     "blocks are not coming back as requests finish.",
                             evidence=[(run.number_lines.get("kv_usage_pct", 0), f"GPU KV cache usage {usage}")])
    return None


def _no_failure(run: RunFacts, engine: str) -> Diagnosis:
    n = run.numbers
    leak = _leak(run)
    if leak:
        return leak
    conc = n.get("max_concurrency")
    if isinstance(conc, float) and conc < 1:
        return Diagnosis(kind="KV_CAPACITY", code="max-model-len-exceeds-kv-cache", inferred=True,
                         evidence=[(run.number_lines["max_concurrency"], f"Maximum concurrency {conc}x")],
                         message=f"The KV pool holds {conc:.2f} of one full-length request: the server cannot serve "
                                 "one sequence at max_model_len (the engine refuses to start, or the log stops here).")
    if engine == "tgi" and "kv_pool_tokens" in n:
        return Diagnosis(kind="LEAK", code="tgi-kv-pool-fills-free-memory", inferred=True,
                         message=f"TGI sized its KV pool to {n['kv_pool_tokens']:,} tokens from the memory free at "
                                 "warm-up, over --max-batch-total-tokens: the pool fills as traffic grows, so free "
                                 "memory keeps falling without a matching load.",
                         evidence=[(run.number_lines["kv_pool_tokens"], f"max batch total tokens {n['kv_pool_tokens']}")])
    offl, total = n.get("layers_offloaded"), n.get("layers_total")
    if isinstance(offl, list):
        offl = offl[0] if offl else None
    if offl is not None and total and offl < total:
        kv, weights = n.get("kv_required_bytes"), n.get("weights_bytes")
        line = (run.number_lines.get("layers_offloaded", 0), f"{offl}/{total} layers offloaded to the GPU")
        if kv and weights and kv >= 0.5 * weights:
            return Diagnosis(kind="KV_CAPACITY", code="kv-cache-forces-cpu-offload", inferred=True, evidence=[line],
                             message=f"Only {offl} of {total} layers went to the GPU: the KV cache for this context "
                                     f"({kv / 2**30:.1f} GiB) does not fit beside the weights ({weights / 2**30:.1f} GiB).")
        if "requests" in run.progress:
            return Diagnosis(kind="RUNTIME", code="partial-offload-near-full", inferred=True, evidence=[line],
                             message=f"Only {offl} of {total} layers fit on the GPU and the server then took requests: "
                                     "the GPU is at its limit, and a longer prompt or an image runs it out of memory.")
        return Diagnosis(kind="WEIGHTS", code="weights-force-cpu-offload", inferred=True, evidence=[line],
                         message=f"Only {offl} of {total} layers fit on the GPU: the weights do not fit.")
    return Diagnosis(kind="NONE", code="no-memory-problem", message="No memory failure found in this run.")


def diagnose_run(run: RunFacts, engine: str) -> Diagnosis:
    fatal = [f for f in run.failures if f.kind in ("oom", "not_oom")]
    f = fatal[0] if fatal else (run.failures[0] if run.failures else None)
    if f is None:
        return _no_failure(run, engine)
    if f.kind == "not_oom":
        return Diagnosis(kind="NOT_OOM", code=f.code, evidence=[(f.line_no, f.text)],
                         message="This is not memory running out: " + {
                             "illegal-memory-access": "a kernel touched memory it does not own (a bug in a kernel, "
                                                      "the engine or the driver).",
                             "nccl-error": "the GPUs failed to talk to each other (NCCL).",
                             "device-side-assert": "a kernel assertion failed (bad token ids or shapes).",
                             "cuda-invalid-argument": "a CUDA call got an invalid argument.",
                         }.get(f.code, "a CUDA kernel failed."))
    usage = run.numbers.get("kv_usage_pct") or []
    if f.kind == "error" and usage and usage[-1] < 50 and "requests" in f.progress:
        return Diagnosis(kind="NOT_OOM", code="serving-error-kv-mostly-free", evidence=[(f.line_no, f.text)],
                         message=f"An error while serving with the KV cache {usage[-1]}% used and no out-of-memory "
                                 "message: memory was not exhausted.")
    phase, where, deciding = locate(f, engine)
    n = run.numbers
    if phase == "HOST":  # the kernel's OOM killer: host RAM, not the GPU
        loaded = "weights_done" in f.progress
        return Diagnosis(kind="RUNTIME" if loaded else "WEIGHTS", code="host-oom-kill" if loaded else
                         "weights-exceed-system-memory", evidence=[(f.line_no, f.text)], phase_source=where,
                         message="The operating system killed the process for lack of host RAM"
                                 + (" while serving." if loaded else " while it loaded the weights (they pass "
                                    "through CPU memory on the way to the GPU)."))
    weights, avail = n.get("weights_bytes"), n.get("available_memory_bytes")
    # an engine whose own message sums weights and buffers (MLC): the weights ledger broke only if they alone exceed
    if (phase == "WEIGHTS" and "temporary buffer" in f.text.lower() and isinstance(weights, int) and isinstance(avail, int)
            and weights < avail):
        phase, where = "WARMUP", "the figures printed: the weights fit, what comes beside them does not"
    if f.kind == "error" and phase == "RUNTIME":
        return Diagnosis(kind="NOT_OOM", code="serving-error-without-oom", evidence=[(f.line_no, f.text)],
                         phase_source=where,
                         message="A crash while serving with no out-of-memory message anywhere in this run: "
                                 "the error is not memory running out.")
    kind = KIND_OF_PHASE[phase]
    evidence = [(f.line_no, f.text)] + ([deciding] if deciding[0] != f.line_no else [])
    inferred = f.kind == "error" or where.startswith("the start-up progress")
    code = _code(kind, engine, f, deciding[1] + " " + where)
    if f.kind == "error":
        code += "-cause-not-shown"
    return Diagnosis(kind=kind, code=code, evidence=sorted(set(evidence)), phase_source=where, inferred=inferred,
                     message=_MESSAGES[kind])


_MESSAGES = {
    "WEIGHTS": "Memory ran out while loading or placing the weights, before any request. Restarting will not help; "
               "a shorter context will not either.",
    "KV_CAPACITY": "The weights loaded, but the KV cache pool cannot hold the configured context (or got no memory at all).",
    "WARMUP": "Memory ran out after the weights were loaded, while profiling, warming up, capturing CUDA graphs or "
              "reserving compute buffers.",
    "RUNTIME": "Memory ran out while serving requests: long prompts or concurrency pushed it over.",
}
