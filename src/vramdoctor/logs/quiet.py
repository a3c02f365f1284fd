"""Runs with no failure line: what their figures, the engine's own warnings and the log's last line still say.
A leak check or KV usage creeping up, a pool full under load, a shortfall in the engine's own figures (a
negative budget, 0 blocks, a concurrency below one request), layers left on the CPU, a log that ends while a
start-up step is under way; else no memory problem, with how far the run got."""

from __future__ import annotations

import re
from dataclasses import replace

from ..engines.generic import CRASH_CLASS, PROBE_PATH
from ..engines.llamacpp import DECODE_FULL
from ..errors import UsageError
from .facts import COMPLAINTS, PROSE_HIT, Failure, RunFacts, latest
from .knowledge import FRAME, LEVEL, PY_FRAME, knowledge, phase_words
from .lines import LOG_PREFIX, STRONG_PREFIX, bare_prefix, cut_mid_line, message
from .phase import STATS, is_progress, last_marker, steps_named
from .authorship import TASK_ITEM, persons_line, program_line, prose_like, sentence_like, user_words
from .prose import crash_not_stated, supposed, written_by_user
from .verdict import KIND_OF_PHASE, Diagnosis


#: llama-server's words when llama_decode finds no free KV cell for a one-token batch (`engines.llamacpp.DECODE_FULL`)
_DECODE_FULL = re.compile(DECODE_FULL, re.I)
#: a client's error that relays the server's answer to a request (OpenAI's and LiteLLM's exceptions, an HTTP 400)



#: a hang a person's words put in the model's load ("加载卡住", "stuck while loading the model", "loading hangs")
#: (not a load that finished first, "hangs after the model loads", 加载完成后卡住; nor a failure to load, "unable to
#: load models and hangs")
#: (not a load that finished: "After loading, one GPU gets stuck at 100% utilization")
_LOAD_STALLED = re.compile(r"加载(?!完|后|成功|好)|载入(?!完|后|成功)|(?<!after )(?<!finished )(?<!done )\bloading\b|"
                           r"\bwhile (?:it |the model )?loads\b", re.I)

def leak(run: RunFacts) -> Diagnosis | None:
    said = [p for p in run.pressure if p.kind == "leak"]
    if said:  # the engine's own leak check
        return _leak_check(run, [(p.line_no, p.text) for p in said[:3]])
    grown = _reported_growth(run)
    if grown:
        return grown
    # (the engine's own stats lines showing the pool creep come before the report's words: the words say growth, the
    # lines show which ledger grew)
    return _usage_creep(run) or _stated_growth(run)


def growth(run: RunFacts) -> Diagnosis | None:
    """Memory growth the log's readings show or the report's words state (`memory-growth-*`), None without it."""
    return _reported_growth(run) or _stated_growth(run)


#: the share of the KV pool an idle leak check must find lost before a later shortage of the pool is put down to it:
#: a few slots lost (SGLang 0.1's warning at 12 of 75,833) shrink the pool by nothing a long prompt would notice
LOST_SHARE = 0.1


def slots_lost(run: RunFacts) -> Diagnosis | None:
    """The engine's own idle leak check (SGLang 0.1-0.2 warned and went on: `Warning: available_size=20113,
    max_total_num_token=75833`) finding at least LOST_SHARE of the pool neither free nor cached: the pool the server
    went on with had shrunk by that much, so its later shortage is the leak's end. None otherwise (no check, a check
    that does not give its counts, or slots given back twice)."""
    said = [p for p in run.pressure if p.kind == "leak"]
    free, counts, total = _leak_counts(run.numbers)
    if not said or not isinstance(free, int) or not isinstance(total, int) or total - sum(counts) < LOST_SHARE * total:
        return None
    d = _leak_check(run, [(p.line_no, p.text) for p in said[:3]])
    return d if d.code == "kv-slots-not-returned" else None


def _usage_creep(run: RunFacts) -> Diagnosis | None:
    """The KV pool's usage (the engine's periodic stats line) rising over 3+ readings while the running requests
    stay the same: blocks not coming back as requests finish."""
    usage = [u for u in run.numbers.get("kv_usage_pct", []) if isinstance(u, (int, float))]
    running = run.numbers.get("running_reqs", [])
    if len(usage) >= 3 and usage[-1] - usage[0] >= 10:
        ups = sum(1 for a, b in zip(usage, usage[1:]) if b >= a)
        # (one or no request running: its own sequence grows as it generates, which is no leak)
        steady = bool(running) and max(running) >= 2 and (max(running) - min(running) <= max(2, 0.2 * max(running)))
        # (prompts read in ten times faster than tokens come out: the running sequences are still filling with
        # their prompts, which raises the usage without any block going astray; a server in steady decoding
        # reads prompts at about its decode rate, FILLING below)
        prompt = [v for v in run.numbers.get("prompt_tps", []) if isinstance(v, (int, float))]
        gen = [v for v in run.numbers.get("generation_tps", []) if isinstance(v, (int, float))]
        # (both read from every stats line, or the pair is not trusted: a wrapped line can lose one of them)
        filling = bool(prompt) and len(prompt) == len(gen) == len(usage) and sum(prompt) >= FILLING * max(sum(gen), 1e-9)
        # (no prompt read after the first reading: the same sequences are decoding, each longer by what it generates,
        # and none has finished to give its blocks back: growth, no leak)
        same = bool(prompt) and len(prompt) == len(usage) and not any(v > 0 for v in prompt[1:])
        if ups >= 0.75 * (len(usage) - 1) and steady and not filling and not same:
            return Diagnosis(kind="LEAK", code="kv-cache-usage-creep", oom=None,
                             message=f"KV cache usage rose from {usage[0]}% to {max(usage)}% while the running "
                                     f"requests stayed at {min(running) if running else '?'}-"
                                     f"{max(running) if running else '?'}: blocks are not coming back as "
                                     "requests finish.",
                             evidence=[(run.number_lines.get("kv_usage_pct", 0), f"GPU KV cache usage {usage}")])
    return None


def _leak_counts(n: dict) -> tuple[object, list[int], object]:
    """The counts of the engine's own leak check in figures `n`: (its free slots, every count it gave of free, cached
    and held slots, the pool's slots: the check's own total, else the pool's size the log printed); None or a non-int
    where a figure is missing."""
    free = n.get("leak_check_available_tokens")
    counts = [c for c in (free, n.get("leak_check_evictable_tokens"), n.get("leak_check_protected_tokens"))
              if isinstance(c, int)]
    total = n.get("leak_check_total_tokens")
    return free, counts, total if isinstance(total, int) else n.get("kv_pool_tokens")


def _leak_check(run: RunFacts, evidence: list[tuple[int, str]]) -> Diagnosis:
    """SGLang's idle check of its KV pool (scheduler check_memory: free + cached + held-by-the-cache slots against the
    pool, which it stops on when they differ), read from its own counts: fewer counted than the pool holds is slots
    no request holds and none gave back, a leak of the pool's slots (LEAK); more, or a negative count, is slots given
    back twice (NOT_OOM, its bookkeeping); where the line does not give every count, its bookkeeping is off, which
    way not shown (NOT_OOM)."""
    free, counts, total = _leak_counts(run.numbers)
    cached = run.numbers.get("leak_check_evictable_tokens")
    if isinstance(free, int) and isinstance(total, int):
        counted = sum(counts)
        if counted > total or any(c < 0 for c in counts):
            return Diagnosis(kind="NOT_OOM", code="kv-accounting-error", oom=False, evidence=evidence,
                             phase_source="the engine's own leak check",
                             message=f"The engine's own check counted {counted:,} KV cache slots (free, cached and held "
                                     f"by its cache{', one count negative' if any(c < 0 for c in counts) else ''}) "
                                     f"in a pool of {total:,}: more than the pool holds, so slots were given back "
                                     "twice. That is a bug in the engine's accounting, not memory running out or "
                                     "leaking; upgrade SGLang, or report it with the settings in use (page size, "
                                     "chunked prefill, radix cache).")
        if counted < total and isinstance(cached, int):
            lost = total - counted
            return Diagnosis(kind="LEAK", code="kv-slots-not-returned", oom=None, evidence=evidence,
                             phase_source="the engine's own leak check, run when idle",
                             message=f"The engine's own check, run when no request was running, found {lost:,} of "
                                     f"the KV pool's {total:,} slots neither free nor cached: slots that finished "
                                     "requests did not give back. Each such loss shrinks the pool for the rest of the "
                                     "server's life until it runs short under load. Memory settings only delay it: "
                                     "upgrade SGLang (these are engine bugs, often in abort, chunked-prefill or "
                                     "speculative paths), restart before the pool runs short, and report it with the "
                                     "settings in use.")
    # (SGLang's scheduler check_memory, run when idle, raises on any mismatch of free + cached slots against the pool
    # and so stops the server: its bookkeeping is off, a bug of the engine's (a radix cache that counts a page twice,
    # an allocator path that skips a free); the counts to tell which way are not all in the log)
    return Diagnosis(kind="NOT_OOM", code="kv-accounting-error", oom=False, evidence=evidence,
                     phase_source="the engine's own leak check",
                     message="The engine's own check (SGLang's, run when the scheduler is idle) found that its KV "
                             "pool's free and cached slots do not add up to the pool, and stopped: its bookkeeping "
                             "is off, a bug in the engine (the radix cache or the allocator), not memory running out. "
                             "Memory settings will not help: upgrade SGLang, or report it with the settings in use "
                             "(page size, chunked prefill, radix cache, speculative decoding). The line does not give "
                             "every count (free, cached, held by the cache, the pool), so whether slots were lost or "
                             "given back twice is not shown.")


#: prompt throughput over generation throughput at which the running batch is taken to be still filling
FILLING = 10


#: growth in readings a user pasted that counts as memory not given back: a fifth more, over 3+ readings, or
#: GROWTH_BYTES more (a GPU an engine fills to nine tenths at start has no fifth left to grow by: 71 to 81 GiB is a leak)
GROWTH = 1.2
GROWTH_BYTES = 2 << 30
#: a difference a user states between two readings ("Delta: +32.9 GiB") that counts as growth: page-size noise and
#: allocator rounding are below it
DELTA_BYTES = 1 << 30


def _reported_growth(run: RunFacts) -> Diagnosis | None:
    """Memory readings pasted beside the log (ps, top, /proc VmRSS, a user's notes) that keep rising: memory that
    is not given back, as the user measured it."""
    n = run.numbers
    before, after = n.get("reported_memory_before_bytes"), n.get("reported_memory_after_bytes")
    if isinstance(before, int) and isinstance(after, int) and before > 0 and after >= GROWTH * before:
        line = run.number_lines.get("reported_memory_after_bytes", 0)
        return Diagnosis(kind="LEAK", code="memory-growth-reported", oom=None, inferred=True,
                         evidence=[(line, f"memory {before / 2**30:.2f} GiB -> {after / 2**30:.2f} GiB")],
                         phase_source="the memory readings in the log",
                         message=f"The readings in the log show memory rising from {before / 2**30:.2f} GiB to "
                                 f"{after / 2**30:.2f} GiB: memory that is not given back (a leak, or a cache that "
                                 "grows without bound) until something runs out.")
    grown = _process_growth(run)
    if grown:
        return grown
    series = _readings(n)
    chain = n.get("_reading_chain")
    if not _rising(series) and isinstance(chain, tuple) and _rising(list(chain)):
        # (readings a person wrote as a chain, "2.1 GB -> 6.8 GB -> 13.6 GB", where the log's own do not rise)
        return _readings_rise(list(chain), run.number_lines.get("_reading_chain", 0), "the report gives",
                              "the memory readings the report gives, one after another")
    deltas = [v for v in n.get("reported_memory_delta_bytes", []) if isinstance(v, int) and v >= DELTA_BYTES]
    if deltas and series:  # readings pasted with the growth between them stated: the user measured it rise
        line = run.number_lines.get("reported_memory_delta_bytes", 0)
        return Diagnosis(kind="LEAK", code="memory-growth-reported", oom=None, inferred=True,
                         evidence=[(line, "memory readings " + ", ".join(f"{v / 2**30:.2f} GiB" for v in series[:8])
                                    + "; growth stated " + ", ".join(f"+{v / 2**30:.2f} GiB" for v in deltas[:4]))],
                         phase_source="the memory readings in the log and the growth stated between them",
                         message=f"The readings in the log rise by {max(deltas) / 2**30:.2f} GiB between one and "
                                 "the next, as stated beside them: memory that is not given back (a leak, or a cache "
                                 "that grows to a bound not yet reached). Two readings cannot tell the two apart: "
                                 "take more under the same load over a longer time (`vramdoctor probe` reads the "
                                 "server before, during and after requests and says whether memory creeps).")
    if _rising(series):
        return _readings_rise(series, run.number_lines.get("reported_memory_bytes", 0), "in the log",
                              "the memory readings in the log")
    return None


def _readings(n: dict) -> list[int]:
    """The memory readings the log shows (`reported_memory_bytes`), bytes, in order, positive ones only."""
    return [v for v in n.get("reported_memory_bytes", []) if isinstance(v, int) and v > 0]


def _readings_rise(series: list[int], line: int, whose: str, source: str) -> Diagnosis:
    """LEAK from `series` (bytes, in order, rising: `_rising`), read from line `line`; `whose`: where the readings are
    ("in the log", "the report gives"), `source`: the phase source's words."""
    return Diagnosis(kind="LEAK", code="memory-growth-reported", oom=None, inferred=True,
                     evidence=[(line, "memory readings " + ", ".join(f"{v / 2**30:.2f} GiB" for v in series[:8]))],
                     phase_source=source,
                     message=f"{len(series)} memory readings {whose} rise from {series[0] / 2**30:.2f} GiB to "
                             f"{series[-1] / 2**30:.2f} GiB: memory that is not given back (a leak, or a cache that "
                             "grows without bound) until something runs out.")


def _stated_growth(run: RunFacts) -> Diagnosis | None:
    """Growth the report's words state ("memory keeps growing", "KV cache not released after request completes"), where
    no readings of the log show it by themselves."""
    n = run.numbers
    series = _readings(n)
    stated = n.get("_growth_stated")
    # (not where the report's words deny the leak, nor where its leak is a leak detector's report at exit: bytes not
    # freed when the program ended, "Detected memory leaks!", not growth while it runs)
    if isinstance(stated, str) and not n.get("_leak_denied") and not n.get("_leak_detector"):
        line = run.number_lines.get("_growth_stated", 0)
        if _grows_while_loading(run, stated):
            return Diagnosis(kind="UNDETERMINED", code="log-ends-during-step", oom=None, candidates=["WEIGHTS"],
                             evidence=[(run.progress["start"], run.progress_text.get("start", "")),
                                       (line, stated)],
                             phase_source="the report's own words, of a start-up that had not loaded its weights",
                             missing="the rest of the load: whether it finished or failed",
                             message="The report says memory kept rising while the model loaded, and the log ends "
                                     "before the weights were loaded: that is the load filling memory as it reads the "
                                     "weights (a loader that converts or dequantizes a checkpoint in host RAM first "
                                     "can take far more than the file's size), not a leak. Whether it ran out is not "
                                     "shown; if it did, the phase would be WEIGHTS. `vramdoctor estimate` gives the "
                                     "weights' size to hold against the host's and the GPU's memory.")
        return Diagnosis(kind="LEAK", code="memory-growth-stated", oom=None, inferred=True,
                         evidence=[(line, stated)], phase_source="the report's own words",
                         message="The report states in words that memory keeps growing ("
                                 + ("no series of readings vramdoctor could read is in the log" if not series else
                                    f"the {len(series)} readings in the log, {series[0] / 2**30:.2f} to "
                                    f"{series[-1] / 2**30:.2f} GiB, do not show it by themselves")
                                 + "): memory that is not given back, a leak or a cache without bound, until "
                                 "something runs out. Confirm it with readings over time under the same load "
                                 "(`vramdoctor probe` says whether memory creeps after requests, and by how much).")
    return None


#: a report's words of growth that speak of serving or of time in use, not of a start-up ("with each request", "after
#: a few hours", "每次推理后", "对话越多")
_GROWTH_IN_USE = re.compile(r"\b(?:request|inference|generat|chat|conversation|prompt|serv|hours?\b|days?\b|over time\b|"
                            r"each\b|every|after (?:a|some|several|many|\d))|请求|推理|对话|生成|每次|小时|天", re.I)


def _grows_while_loading(run: RunFacts, said: str) -> bool:
    """The report's growth (`said`) is told of a start-up that got no further than its first step, whose last lines
    show the weights' load begun (`_LOAD_BEGUN`, within `_STEP_DETAIL_LINES` of the program's last lines: "Loading the
    model ... on worker", then "然后内存不断增加，等了十分钟"), in words of no serving or time in use: the load filling
    memory as it reads the weights, not a leak."""
    if "start" not in run.progress or set(run.progress) - {"start"} or _GROWTH_IN_USE.search(said):
        return False
    own = [t for _, t in run.tail_lines if program_line(t)][-_STEP_DETAIL_LINES:]
    return any(_LOAD_BEGUN.search(t) for t in own)


#: a program's line that it begins to load a model's weights ("Loading the model ['Yi-34B'] on worker ...", "Starting
#: to load model ...", "Loading checkpoint shards:   0%", "loading model from ...")
_LOAD_BEGUN = re.compile(r"\bLoading (?:the )?(?:model|checkpoint|weights)\b|\bStarting to load model\b|"
                         r"\bloading model (?:from|tensors)\b", re.I)


def _rising(series: list[int]) -> bool:
    """3+ readings, the last a fifth or GROWTH_BYTES or more above the first, mostly rising from one to the next; not
    4+ whose last two level off at the highest (a rise that stopped)."""
    if len(series) < 3 or series[0] <= 0 or (series[-1] < GROWTH * series[0] and series[-1] - series[0] < GROWTH_BYTES):
        return False
    if len(series) >= 4 and abs(series[-1] - series[-2]) <= series[-1] // 100 and series[-1] >= max(series) * 99 // 100:
        # (a rise that stopped: the last readings level at the highest, as a start-up's load and its pool preallocated
        # are, nvidia-smi's "1 MiB, 512 MiB, 15880 MiB, 38204 MiB, 41420 MiB, 41420 MiB")
        return False
    return sum(1 for a, b in zip(series, series[1:]) if b >= a) >= 0.75 * (len(series) - 1)


def _process_growth(run: RunFacts) -> Diagnosis | None:
    """The same process in 3+ snapshots of a pasted listing (ps, top) or a monitor's rows (nvidia-smi's per-process
    query, docker stats), its memory rising: the process that grew most names the run. One snapshot of many processes gives each one reading, which is no series."""
    grown = []
    for key, readings in run.process_series.items():
        sizes = [b for _, b, _, _ in readings]
        if _rising(sizes):
            grown.append((sizes[-1] - sizes[0], key, readings))
    if not grown:
        return None
    _, key, readings = max(grown)
    sizes = [b for _, b, _, _ in readings]
    name = run.process_names.get(key, "")
    who = f"process {key}" + (f" ({name})" if name else "")
    steady = len(run.process_series) - len(grown)
    return Diagnosis(kind="LEAK", code="memory-growth-reported", oom=None, inferred=True,
                     evidence=[(ln, text) for _, _, ln, text in readings[:8]],
                     phase_source="the process listings pasted in the log, one snapshot after another",
                     message=f"{len(sizes)} snapshots of the same {who} show its memory (as the listing or monitor "
                             f"reads it: resident, GPU or the container's) rising from "
                             f"{sizes[0] / 2**30:.2f} GiB to {sizes[-1] / 2**30:.2f} GiB"
                             + (f", while {steady} other process(es) listed beside it did not" if steady else "")
                             + ": memory that is not given back (a leak, or a cache that grows without bound) until "
                               "something runs out.")


def pressure(run: RunFacts, failed_after: bool = False) -> Diagnosis | None:
    """The engine's own warnings that its KV pool was full and it coped (preempted, retracted, queued, failed a
    request): RUNTIME while serving, KV_CAPACITY at start; None without such warnings. `failed_after`: a failure
    follows them (the message then does not say that no process crashed).
    A pool full while serving that the engine coped with by its scheduling alone (`COPED`: requests preempted,
    retracted, recomputed or kept waiting, none failed) is NONE, its code kept: nothing failed, where neither a failure
    follows nor the report's words tell of a problem (`COMPLAINTS`: a failure, a hang, growth or slowness the user saw:
    RUNTIME, the full pool its answer)."""
    run = _without_wishes(run)
    pressure = [p for p in run.pressure if p.kind == "pressure" and not wished(run, p)]
    # (llama_decode's own warning that a batch found no room, "decode: failed to find a memory slot for batch of size
    # 2048", where the server's retry with a smaller batch follows it: that retry is what happened)
    retried = [p.line_no for p in pressure if p.code == "kv-pool-full-smaller-batch"]
    pressure = [p for p in pressure if not (p.code == "kv-cache-full" and any(0 < ln - p.line_no <= 3 for ln in retried))]
    answered = knowledge().answered
    if retried and not any(ln > max(retried) and answered is not None and answered.search(t) for ln, t in run.tail_lines):
        # (a retry the log shows no answer after, the log ending on it or on a request's error: the retries may have
        # ended in the batch failing, as they do at a batch of one; only a request answered after them shows it coped)
        pressure = [replace(p, code="kv-cache-full") if p.code == "kv-pool-full-smaller-batch" else p for p in pressure]
    if not pressure:
        return None
    # the engine's strongest act names the run (a request failed beats any way of coping; requests retracted beats
    # requests waiting), then the first
    p = min(pressure, key=lambda x: (x.code in COPED, not x.code.endswith("request-failed"),
                                     x.code == "kv-pool-full-queueing", pressure.index(x)))
    kind = KIND_OF_PHASE.get(p.phase or "RUNTIME", "RUNTIME")
    same = [x for x in pressure if x.code == p.code]
    pressure = same + [x for x in pressure if x.code != p.code]
    n = len(same)
    count = f"{n}{'+' if n >= 8 else ''} warning{'s' if n > 1 else ''}"
    if (kind == "KV_CAPACITY" and isinstance(run.numbers.get("_failure_stated"), str)
            and p.code != "request-exceeds-kv-pool"):
        # (a warning the engine went on past at start is no answer to a failure the report states; a request it
        # refused as longer than its whole pool is: the client got that error)
        return None
    if (kind == "KV_CAPACITY" and p.code == "max-model-len-exceeds-kv-cache" and run.numbers.get("_context_defaulted")
            and not run.failures and not run.refused):  # (not where a request was then refused or failed)
        # the context cut to the pool was the model's own, which the user did not ask for: the engine sized it to the
        # GPU and went on
        return Diagnosis(kind="NONE", code="context-fit-to-pool", oom=False,
                         evidence=[(x.line_no, x.text) for x in pressure[:2]],
                         phase_source="the engine's own warning, over a context the user did not set",
                         message=f"No failure: no context was set, and the engine cut the model's own to what its KV "
                                 f"pool holds ({count}) and went on. A request longer than that is refused; to serve "
                                 "longer ones, give the pool more memory or the weights less.")
    # (the report's words of a problem; not the engine's own warning read as words: DeepSpeed's "Deadlock detected.")
    told = [(run.number_lines.get(k, 0), run.numbers[k]) for k in COMPLAINTS if isinstance(run.numbers.get(k), str)
            and run.number_lines.get(k) not in {x.line_no for x in pressure}]
    evidence = [(x.line_no, x.text) for x in pressure[:3]]
    if kind == "KV_CAPACITY":  # at start: the pool came out smaller than the settings ask for
        message = (f"At start the KV cache pool came out smaller than the settings ask for ({count}): the engine "
                   f"{COPES.get(p.code, 'coped')} and went on. Longer requests than it holds will fail or wait.")
    elif p.code in COPED and not failed_after and all(tracker_noise(g) for g in run.failures) and not told:
        return Diagnosis(kind="NONE", code=p.code, oom=False, evidence=evidence,
                         phase_source="the engine's own warning",
                         message=f"No failure: the KV cache pool was full while serving ({count}), and the engine "
                                 f"{COPES[p.code]}, as its scheduler does under load; no request failed and no process "
                                 "crashed. Requests waited or were recomputed, which costs latency: a larger pool (or "
                                 "fewer sequences at once) lets them run without waiting.")
    else:
        effect = ("Requests fail or run in smaller batches: the context's KV cells are too few for this load."
                  if p.code.startswith("kv-cache-full") else
                  "Requests wait or are recomputed: the pool is too small for this load.")
        message = (f"The KV cache pool was full while serving ({count}): the engine {COPES.get(p.code, 'coped')}"
                   + (". " if failed_after else ", and no process crashed. ") + effect)
    source = "the engine's own warning"
    if told and kind == "RUNTIME" and p.code in COPED:  # (what made it a problem: the report's words, shown)
        evidence = sorted(evidence + [min(told)])
        source += f", and the report's words of the problem it answers (line {min(told)[0]})"
    return Diagnosis(kind=kind, code=p.code or "kv-pool-full", evidence=evidence, phase_source=source, message=message)


def wished(run: RunFacts, g: Failure) -> bool:
    """`g` is what a report that asks for something wants done, not a failure met, under a title whose tag asks
    (`RunFacts.asking`): the title itself ("[RFC]: Clearer error message when the KV cache does not fit (instead of a
    bare OOM)"), an item of its task list, also one that quotes an engine's line ("- [ ] Reduce CUDA graph memory (OOM
    during capture)"), and, where it pastes no log of a run, a person's words in its body, its motivation ("We often OOM
    in production", an engine's line quoted as code); or a pull request's words of the fault it fixes, above the
    heading of its test output (`RunFacts.results_heading`). A program's line pasted under it is still the run's own."""
    if 0 < g.line_no < run.results_heading and not program_line(g.text):
        return True  # (a pull request's words of the fault it fixes, above the output of its test)
    if not run.asking:
        return False
    if g.line_no == run.asking or TASK_ITEM.match(g.text):
        return True
    # (a person's words in its body, its motivation, where the report pastes no program's log: one that does, "tried
    # similar config ..., but always blocked here:" over TensorRT-LLM's lines, reports a run of its own)
    return _persons(g.text) and not asking_with_log(run)


def asking_with_log(run: RunFacts) -> bool:
    """A report that asks for something (`RunFacts.asking`) and pastes a program's log: a step the run passed, a
    failure or a warning, on a line that is no person's words (an engine's line quoted in a sentence is theirs)."""
    # (or three hits or more of an engine's words outside a person's words: a log, not one line quoted, which its
    # fingerprint and its message count twice)
    return (any(not _persons(t) for t in run.progress_text.values())
            or any(not _persons(g.text) for g in [*run.failures, *run.pressure] if g.line_no != run.asking)
            or sum(n for key, n in run.engine_hits.items() if not key.startswith(PROSE_HIT)) >= 3)


def _persons(text: str) -> bool:
    """A person's words: no program's line, or one that quotes an engine's line set off as code ("saves users from
    crashes when `llama_kv_cache_init: failed to allocate buffer for kv cache` happens"; a program's own line has no
    backticks where no time or level begins it)."""
    if text[:1].isspace():
        return False  # (a traceback's code line, "    raise NotImplementedError(f\"{quant} is not supported\")")
    if FRAME.search(text):
        return False
    if "`" in text and not STRONG_PREFIX.match(text):
        return True
    # (any line of no program's prefix that is no exception's: "Saves users from OOM crashes on 8 GB cards.")
    return (user_words(text) or sentence_like(text) or prose_like(text) or persons_line(text)
            or not program_line(text) and not _EXCEPTION_LINE.match(text))


#: an exception's own line or a traceback's header, which a program prints without a prefix
_EXCEPTION_LINE = re.compile(r"^[\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b|^Traceback \(most recent call last\)")


#: the frame of Python's multiprocessing resource tracker, whose own errors at exit ("KeyError: '/mp-h1ustgxb'" after
#: "resource_tracker: process died unexpectedly, relaunching") follow a process that was stopped: noise of its shutdown
_TRACKER_FRAME = re.compile(r'File "[^"]*multiprocessing[/\\]resource_tracker\.py", line \d+')


def tracker_noise(f: Failure) -> bool:
    """Failure `f` is an error the multiprocessing resource tracker raised in its own frames at exit (every frame of
    its traceback, above it or, for the traceback's header, below it, is the tracker's): what stopped the process is
    not in it."""
    block = [t for _, t in [*f.before[-6:], (f.line_no, f.text), *f.after[:8]]]
    frames = [t for t in block if FRAME.search(t)]
    return f.kind in ("error", "not_oom") and bool(frames) and all(_TRACKER_FRAME.search(t) for t in frames)



#: the engine's acts on a full pool that fail no request: its scheduler's own ways of coping under load
COPED = frozenset({"kv-pool-full-retracting", "kv-pool-full-preempting", "kv-pool-full-recomputing",
                   "kv-pool-full-queueing", "kv-pool-full-smaller-batch"})

#: what the engine did on each of its pool-full warnings, in words (also what a crash right after one follows)
COPES = {"kv-pool-full-retracting": "retracted running requests and queued them again",
         "kv-pool-full-preempting": "preempted running sequences (recomputed or swapped later)",
         "kv-cache-full": "retried with a smaller batch or failed the request",
         "kv-pool-full-smaller-batch": "ran the batch again in smaller pieces until one fitted",
         "kv-cache-full-request-failed": "failed the request", "kv-pool-full-queueing": "kept requests waiting",
         "request-exceeds-kv-pool": "refused a request longer than its whole pool",
         "request-exceeds-context": "refused a request longer than a slot's context",
         "session-len-truncated": "cut session_len to what the pool holds",
         "kv-pool-full-recomputing": "dropped the whole KV cache and recomputed the running requests",
         "cuda-graph-warmup-skipped": "went on without the CUDA graphs it could not capture"}


def shortfall(run: RunFacts) -> Diagnosis | None:
    """Memory evidence without a failure line: the engine's own figures show a shortfall."""
    n = run.numbers
    conc = n.get("max_concurrency")
    # (not where the server went on to be ready or serve after the figure: the engine's own check at start passed, its
    # pool enough for one request by its own count, sliding-window layers holding only their window; a pool shorter
    # than the context is then told as a note, `pool_below_context`)
    said_at = run.number_lines.get("max_concurrency", 0)
    went_on = any(run.progress.get(m, 0) > said_at for m in ("ready", "requests"))
    if isinstance(conc, float) and conc < 1 and not went_on:
        return Diagnosis(kind="KV_CAPACITY", code="max-model-len-exceeds-kv-cache", inferred=True,
                         evidence=[(run.number_lines["max_concurrency"], f"Maximum concurrency {conc}x")],
                         message=f"The KV pool holds {conc:.2f} of one full-length request: the server cannot serve "
                                 "one sequence at max_model_len (the engine refuses to start, or the log stops here).")
    short = n.get("kv_pool_shortfall_bytes")
    if isinstance(short, int) and short > 0:
        return Diagnosis(kind="KV_CAPACITY", code="no-memory-for-kv-cache", inferred=True,
                         evidence=[(run.number_lines["kv_pool_shortfall_bytes"],
                                    f"KV cache memory {-short / 2**30:.2f} GiB")],
                         message=f"The memory profile left {short / 2**30:.2f} GiB less than nothing for the KV "
                                 "cache: the weights and the activation peak already exceed the memory fraction.")
    if n.get("kv_pool_bytes") == 0 and "kv_pool_bytes" in run.number_lines:
        # (an engine that prints what is left for the pool, clamped at 0: vllm-ascend's "Available memory: 0")
        return Diagnosis(kind="KV_CAPACITY", code="no-memory-for-kv-cache", inferred=True,
                         evidence=[(run.number_lines["kv_pool_bytes"], "memory left for the KV cache: 0")],
                         message="The engine found no memory left for its KV pool after the weights and the profiled "
                                 "peak: nothing was left for the cache.")
    blocks = n.get("num_gpu_blocks")
    if blocks == 0:
        return Diagnosis(kind="KV_CAPACITY", code="no-memory-for-kv-cache", inferred=True,
                         evidence=[(run.number_lines["num_gpu_blocks"], "# GPU blocks: 0")],
                         message="The engine sized its KV pool at 0 blocks: nothing was left for the cache.")
    return None


def pool_below_cap(n: dict) -> int | None:
    """The KV pool's tokens where the engine's longest input shows it (SGLang's "exceeds the maximum allowed length":
    one more than that is the smaller of the context and the pool, `_pool_capped_request_tokens`) and it is below the
    context, so the pool's; None otherwise."""
    capped, ctx = n.get("_pool_capped_request_tokens"), n.get("max_model_len")
    return capped if isinstance(capped, int) and isinstance(ctx, int) and 0 < capped < ctx else None


def pool_below_context(run: RunFacts, engine: str) -> Diagnosis | None:
    """An engine that sizes its KV pool from free memory (vLLM, SGLang, TGI...) made one that holds fewer tokens than one
    sequence of max_model_len: a request longer than the pool cannot be served (vLLM before 0.2.6 did not check it at
    start, later releases refuse to start: "max seq len ... is larger than the maximum number of tokens that can be
    stored in KV cache"). Tokens: the pool's own count, or `# GPU blocks` x the block size (printed, or the engine's
    default)."""
    n = run.numbers
    ctx = n.get("max_model_len")
    e = knowledge().engine.get(engine)
    if e is None or e.fraction_key is None or not isinstance(ctx, int) or ctx <= 0:
        return None
    conc = n.get("max_concurrency")
    if isinstance(conc, (int, float)) and conc >= 1:  # the engine's own count of full-length requests the pool holds
        return None
    tokens = n.get("kv_pool_tokens")
    capped = pool_below_cap(n)
    if not isinstance(tokens, int) and capped:
        tokens = capped
    blocks, block = n.get("num_gpu_blocks"), n.get("block_size")
    # (a block size the log does not print is the engine's default, which platforms and attention backends change:
    # 16 on CUDA, 64 for FlashMLA, 128 on Ascend; the pool then must fall short by more than that can explain)
    margin = 1 if isinstance(tokens, int) or isinstance(block, int) else 8
    block = block or e.kv_block_tokens
    if not isinstance(tokens, int) and isinstance(blocks, int) and blocks > 0 and isinstance(block, int):
        tokens = blocks * block
    if not isinstance(tokens, int) or not 0 < tokens * margin < ctx:
        return None
    key = "kv_pool_tokens" if "kv_pool_tokens" in n else "_pool_capped_request_tokens" if tokens == capped \
        else "num_gpu_blocks"
    return Diagnosis(kind="KV_CAPACITY", code="max-model-len-exceeds-kv-cache", inferred=True,
                     evidence=[(run.number_lines.get(key, 0), f"KV pool {tokens:,} tokens, max_model_len {ctx:,}")],
                     phase_source="the engine's own figures: the pool it made against the context it was given",
                     message=f"The KV pool the engine made holds {tokens:,} tokens, fewer than one sequence of "
                             f"max_model_len {ctx:,}: a request longer than the pool cannot be served (it fails or "
                             "waits forever), whatever memory is left outside the pool.")


def over_working_set(run: RunFacts) -> Diagnosis | None:
    """A Metal buffer took the allocations past the GPU's recommended working set (ggml-metal's own warning,
    `_metal_over_working_set`) and the run never said it was ready: macOS pages the GPU's memory, so the start-up
    crawls ("it takes forever to load") or stops. The buffer named decides the ledger: `kv` the KV cache (the
    context), `data` the weights; a warning without a name, the last start-up step passed."""
    name = run.numbers.get("_metal_over_working_set")
    if not isinstance(name, str) or any(m in run.progress and m not in run.told for m in ("ready", "requests")):
        return None
    marker = last_marker(run.progress)
    kv = name == "kv" or not name and marker in ("kv_sized", "kv_done")
    weights = name == "data" or not name and marker in (None, "start", "weights_done")
    if not (kv or weights):
        return None
    ln = run.number_lines.get("_metal_over_working_set", 0)
    ws = run.numbers.get("working_set_bytes")
    limit = f" ({ws / 2**30:.2f} GiB)" if isinstance(ws, int) else ""
    what = "the KV cache's buffer" if kv else "the weights' buffer"
    return Diagnosis(kind="KV_CAPACITY" if kv else "WEIGHTS",
                     code="kv-exceeds-working-set" if kv else "weights-exceed-working-set", oom=None, inferred=True,
                     evidence=[(ln, f"Metal {name or 'buffer'} past the recommended max working set")],
                     phase_source="the engine's own warning that a buffer went past the GPU's working set",
                     message=f"Metal's allocations went past the GPU's recommended working set{limit} with {what} "
                             "(the engine warned so), and the run never said it was ready: macOS then pages the GPU's "
                             "memory, so loading crawls or stops. "
                             + ("A smaller context (-c / num_ctx) shrinks the KV cache to fit." if kv else
                                "Fewer-bit weights or fewer layers on the GPU fit them."))


#: a pool carved from free memory that got less than this share of the GPU was starved by what came before it
STARVED_SHARE = 0.02


def starved(run: RunFacts, engine: str) -> Diagnosis | None:
    """An engine that sizes its KV pool from the memory left after the weights and buffers (it has a memory
    fraction: vLLM, SGLang, TensorRT-LLM, LMDeploy, TGI) found almost none left: the pool it made holds few
    tokens, so long or concurrent requests fail or wait (TensorRT-LLM "available: 0.11 GiB" of 22.19)."""
    from ..engines import get
    n = run.numbers
    pool = n.get("kv_available_bytes", n.get("kv_pool_bytes"))
    total = n.get("total_memory_bytes")
    if not (isinstance(pool, int) and isinstance(total, int) and total > 0) or pool >= STARVED_SHARE * total:
        return None
    try:
        if get(engine).fraction_key is None:  # llama.cpp and the like size the cache by -c, not by what is free
            return None
    except UsageError:
        return None
    key = "kv_available_bytes" if "kv_available_bytes" in n else "kv_pool_bytes"
    tokens = n.get("kv_pool_tokens")
    held = f" ({tokens:,} tokens)" if isinstance(tokens, int) else ""
    return Diagnosis(kind="KV_CAPACITY", code="kv-pool-starved", inferred=True,
                     evidence=[(run.number_lines.get(key, 0), f"KV cache memory {pool / 2**30:.2f} GiB of "
                                                              f"{total / 2**30:.2f} GiB")],
                     message=f"The engine found {pool / 2**30:.2f} GiB of the GPU's {total / 2**30:.2f} GiB left "
                             f"for the KV cache ({pool / total:.1%}): the pool it made{held} is too small for long "
                             "or concurrent requests, which fail or wait. The weights and buffers take the rest.")


def _offload(run: RunFacts, engine: str) -> Diagnosis | None:
    n = run.numbers
    # (the user's value overridden: not in a run that shows requests answered and no word of memory falling, which
    # is a healthy pool made up front)
    if (engine == "tgi" and "kv_pool_tokens" in n and "_tgi_pool_overrode" in n
            and (isinstance(n.get("_growth_stated"), str) or "requests" not in run.progress)):
        return Diagnosis(kind="LEAK", code="tgi-kv-pool-fills-free-memory", inferred=True, oom=None,
                         message=f"TGI sized its KV pool to {n['kv_pool_tokens']:,} tokens from the memory free at "
                                 "warm-up, in place of --max-batch-total-tokens: the pool fills as traffic grows, so "
                                 "free memory keeps falling without a matching load.",
                         evidence=[(run.number_lines["kv_pool_tokens"], f"max batch total tokens {n['kv_pool_tokens']}")])
    offl, total = n.get("layers_offloaded"), n.get("layers_total")
    if isinstance(offl, list):
        offl = offl[0] if offl else None
    if offl is None or not total or offl >= total:
        return None
    kv, weights = n.get("kv_required_bytes"), n.get("weights_bytes")
    line = (run.number_lines.get("layers_offloaded", 0), f"{offl}/{total} layers offloaded to the GPU")
    if kv and weights and kv >= 0.5 * weights:
        return Diagnosis(kind="KV_CAPACITY", code="kv-cache-forces-cpu-offload", inferred=True, evidence=[line],
                         message=f"Only {offl} of {total} layers went to the GPU: the KV cache for this context "
                                 f"({kv / 2**30:.1f} GiB) does not fit beside the weights ({weights / 2**30:.1f} GiB).")
    asked = latest(n, "n_gpu_layers")
    if isinstance(asked, int) and 0 <= asked <= offl:
        # the layers the command asked for (-ngl N, --n-gpu-layers N, num_gpu) all went: the user's split, not the
        # GPU's limit
        return Diagnosis(kind="NONE", code="offload-as-asked", oom=False, evidence=[line],
                         phase_source="the layers the command asked for",
                         message=f"{offl} of {total} layers went to the GPU, as the command asked ({asked}): the rest "
                                 "run on the CPU because of that setting, not because the GPU is full. Nothing failed "
                                 "in this log.")
    placed = _placed_on_cpu(run, offl, total, line)
    if placed:
        return placed
    free = n.get("free_memory_bytes", n.get("available_memory_bytes"))
    free = free[0] if isinstance(free, list) and free else free
    if offl == 0 and not isinstance(free, int) and not n.get("gpu_total_bytes"):
        # nothing went to a GPU, and the log shows no GPU memory at all: no layers were asked for (llama.cpp's -ngl
        # was 0 by default until 2025), a CPU-only build, or no usable GPU found ("no CUDA devices found")
        return Diagnosis(kind="NONE", code="no-gpu-offload", oom=False, evidence=[line],
                         phase_source="the engine's own offload decision",
                         message=f"None of the {total} layers went to a GPU, and no GPU memory figure is in the log: no "
                                 "layers were asked for (-ngl / --n-gpu-layers, num_gpu), the build has no GPU back "
                                 "end, or no usable GPU was found. GPU memory is not what limits this run.")
    if offl == 0 and isinstance(free, int) and isinstance(weights, int) and free > weights:
        # nothing went to a GPU that had room for the weights: a CPU build, -ngl 0 / num_gpu 0, or no usable GPU
        return Diagnosis(kind="NONE", code="no-gpu-offload", oom=False, evidence=[line],
                         phase_source="the engine's own offload decision",
                         message=f"None of the {total} layers went to a GPU, though it had {free / 2**30:.1f} GiB free "
                                 f"for {weights / 2**30:.1f} GiB of weights (a CPU-only build, -ngl 0 / num_gpu 0, or "
                                 "no usable GPU): GPU memory is not what limits this run.")
    return Diagnosis(kind="NONE", code="partial-offload", oom=False, evidence=[line],
                     phase_source="the engine's own offload decision",
                     message=f"Only {offl} of {total} layers went to the GPU; the rest run on the CPU (slower). "
                             "Nothing failed in this log: the GPU is at its limit, so a longer prompt, more parallel "
                             "requests or an image may run it out of memory.")


def _placed_on_cpu(run: RunFacts, offl: int, total: int, line: tuple[int, str]) -> Diagnosis | None:
    """No layer went to a GPU because the context's KV cache or compute graph alone is larger than any GPU's free
    memory (Ollama's new engine, v0.11+: its layout puts each on the CPU, `msg="kv cache" device=CPU size="14.0 GiB"`,
    beside the GPUs discovery found, `available="5.1 GiB"`): the larger of the two that cannot fit decides (the KV
    cache: KV_CAPACITY; the graph: WARMUP, the compute buffers). None where the log does not show both sides."""
    n = run.numbers
    gpus = [b for b in n.get("gpu_available_bytes", []) if isinstance(b, int) and b > 0]
    kv, graph = n.get("layout_cpu_kv_bytes"), n.get("layout_cpu_graph_bytes")
    if offl != 0 or not gpus:
        return None
    best = max(gpus)
    over = [(b, name) for b, name in ((kv, "kv"), (graph, "graph")) if isinstance(b, int) and b > best]
    if not over:
        return None
    size, name = max(over)
    gpu_line = (run.number_lines.get("gpu_available_bytes", 0), f"largest GPU free: {best / 2**30:.1f} GiB")
    if name == "kv":
        return Diagnosis(kind="KV_CAPACITY", code="kv-cache-forces-cpu-offload", inferred=True, oom=None,
                         evidence=[line, (run.number_lines.get("layout_cpu_kv_bytes", 0), f"KV cache {size / 2**30:.1f} "
                                          "GiB"), gpu_line],
                         phase_source="the engine's own layout of the ledgers",
                         message=f"None of the {total} layers went to a GPU: the KV cache for this context "
                                 f"({size / 2**30:.1f} GiB) alone is larger than any GPU's free memory "
                                 f"({best / 2**30:.1f} GiB), so the engine placed the whole model on the CPU. A "
                                 "shorter context (or a quantized KV cache) lets the layers go to the GPU.")
    return Diagnosis(kind="WARMUP", code="compute-graph-forces-cpu-offload", inferred=True, oom=None,
                     evidence=[line, (run.number_lines.get("layout_cpu_graph_bytes", 0), f"compute graph "
                                      f"{size / 2**30:.1f} GiB"), gpu_line],
                     phase_source="the engine's own layout of the ledgers",
                     message=f"None of the {total} layers went to a GPU: the compute graph (the buffers a forward pass "
                             f"needs for this context and batch, {size / 2**30:.1f} GiB) alone is larger than any GPU's "
                             f"free memory ({best / 2**30:.1f} GiB), so the engine placed the whole model on the CPU. "
                             "Flash attention (which keeps the attention matrix out of the graph), a shorter context "
                             "or a smaller batch shrink it.")


#: how many of the engine's "still waiting" lines in a row, after the start-up's last step, make a stall: vLLM prints one
#: a minute (VLLM_RINGBUFFER_WARNING_INTERVAL), and the steps after the graphs' capture (the sampler's warm-up, the
#: engine's hand-over to its API server) take seconds
_STALLED_AFTER_WARMUP = 5


#: vLLM's periodic statistics of an engine with nothing to do (V1 loggers.py "Running: 0 reqs, Waiting: 0 reqs", V0's
#: "Running: 0 reqs, Swapped: 0 reqs, Pending: 0 reqs")
_IDLE_STATS = re.compile(r"\bRunning: 0 reqs?, (?:Swapped: 0 reqs?, )?(?:Pending|Waiting): 0 reqs?\b")
#: the offline LLM class's progress bar ("Processed prompts: 100%": its batch finished, the program has its answers)
_BATCH = re.compile(r"\bProcessed prompts:(?: (100)|\s+\d{1,2})%")


def _idle_before(run: RunFacts, first: int) -> bool:
    """Before line `first` (the first of the engine's repeated "still waiting" lines) the engine had nothing to do: its
    last statistics say no request ran or waited, or its offline batch had finished. Idle workers of some vLLM
    releases print the wait line every minute, and a script that goes on with its answers on the CPU leaves them
    waiting: no process is stuck."""
    for _, text in reversed([(ln, t) for ln, t in run.tail_lines if ln < first]):
        if STATS.search(text):
            return bool(_IDLE_STATS.search(text))
        batch = _BATCH.search(text)
        if batch:
            return batch.group(1) is not None
    return False


def _stalled(run: RunFacts, engine: str) -> list[tuple[int, str]]:
    """The log's last lines that say anything, where they are the engine's line that a process waits on another
    (`LogWords.stalled`): those lines, oldest first (the run of them at the log's end, blank lines between them
    skipped, and the periodic statistics a server with requests it cannot finish goes on printing between them);
    empty where the last line is something else or the engine has no such line."""
    words = knowledge().own_or_wrapped(engine, lambda w: w.stalled)
    out: list[tuple[int, str]] = []
    if words is None:
        return out
    for ln, text in reversed(run.tail_lines):
        if not text.strip() or (out and STATS.search(text)):
            continue
        if not words.search(text):
            break
        out.append((ln, text))
    return out[::-1]


def step_under_way(run: RunFacts, engine: str) -> tuple[int, str, str] | None:
    """The log's last line that says anything (blank lines and a bare log prefix, "[... TP5]", say nothing), when it
    names a start-up step under way ("Capturing the model for CUDA graphs", "llama_kv_cache_init: CUDA0 KV buffe",
    a capture's progress bar short of its end, the capture registering its buffers) rather than one finished or a
    figure: (line, text, phase). Not a person's words under a title that asks for something (`RunFacts.asking`)."""
    lines = run.tail_lines or ([run.tail] if run.tail else [])
    if run.asking and not asking_with_log(run):
        lines = [(ln, t) for ln, t in lines if not _persons(t)]
    for i in range(len(lines) - 1, -1, -1):
        ln, text = lines[i]
        # (nor a markdown fence that closes the paste, "```")
        # (nor a launcher's waiting or a readiness probe's access line, after the log's own prefix as well)
        said = message(text)
        if (text.strip() and not bare_prefix(text) and not DEATH_BEGINS.match(text) and not _WAITING.match(said)
                and not _PROBE.search(said) and not _FENCE_ONLY.match(text)):
            found = _under_way(ln, text, engine) or _stub(ln, text, lines[:i], engine)
            if found:
                return found
            above = _begun_above(lines[:i + 1], engine)
            # (not a start-up step named in a note after the start-up said it was done: vLLM's "init engine (profile,
            # create kv cache, warmup model) took 2.02 seconds", then "Cudagraph is disabled under eager mode")
            done = last_marker(run.progress) in ("warmup_done", "ready", "requests")
            return None if above and done and above[2] in ("WEIGHTS", "KV", "WARMUP") else above
    return None


#: the most lines of an engine's notes that a step begun may print before the log ends (vLLM V1's kernel and back-end
#: choices while it builds the model, after "Starting to load model ...")
_STEP_DETAIL_LINES = 8


def _begun_above(lines: list[tuple[int, str]], engine: str) -> tuple[int, str, str] | None:
    """A step begun a few lines above the log's last (`_STEP_DETAIL_LINES`), where every line after it is the
    program's own note of no step and no figure of a step done ("Starting to load model Qwen3-30B..." then "Using
    MarlinLinearKernel ...", "Using FLASH_ATTN attention backend ...", "... Falling back to UnquantizedLinearMethod"):
    that step was under way. None where a line between is a person's, a progress line, a traceback's frame or a step
    of its own (an error line is a failure, decided before this is asked; a note that names an exception and goes on
    is one more note)."""
    last = len(lines) - 1
    if last < 0 or cut_mid_line(lines[last][1], [t for _, t in lines[:last]]):
        return None  # (a last line cut partway: the log was cut, which says more than a step under way)
    for j in range(last, max(-1, last - _STEP_DETAIL_LINES), -1):
        ln, text = lines[j]
        if not text.strip():
            continue
        found = _under_way(ln, text, engine) if j < last else None  # (the last line: its caller asked already)
        if found:
            return found
        if (not program_line(text) or is_progress(text) or _DONE.search(message(text)) or FRAME.search(text)
                or phase_words(text, engine) or _BAR.search(text)):
            return None
    return None


#: a launcher's line that it is still waiting on the program it started (Lemonade's "Still waiting for
#: llama-server...", a script's "Waiting for the server to start..."): says nothing of its own; the step the program
#: was in is the line before the waiting
# (or on its health URL, with its count of tries: "[start.sh] waiting for http://localhost:8000/health ... (attempt
# 43/120)")
_WAITING = re.compile(r"^\W{0,3}(?:\[[\w.-]{1,40}\]\s*)?(?:Still |still )?[Ww]aiting (?:for|on|until) (?:the )?"
                      r"(?:https?://\S+|[\w.-]+)(?: (?:server|engine|process|model|backend))?(?: to (?:start|be ready|"
                      r"come up|respond|become (?:ready|available)|load))?(?:\s*\.{3}|…)?\s*"
                      r"(?:\((?:attempt |try )?\d+(?:/\d+)?\s*s?\))?\s*(?:`{3})?\s*$")
_FENCE_ONLY = re.compile(r"^\s*`{3,}\w*\s*$")
#: a readiness probe's access line ("GET /health HTTP/1.1" 503): a server answers it while it starts, and it says
#: nothing of the step under way
_PROBE = re.compile(r"\x22(?:GET|HEAD) /" + PROBE_PATH + r"[^\x22]*\x22 \d{3}\b|\bGET /(?:v1/)?(?:health|healthz|ready|ping)\b[^\n]{0,40}\b\d{3}\b")


#: the first line of a process's death, cut right after it: Python multiprocessing's header of a child's traceback
#: ("Process SpawnProcess-1:", "Process EngineCore_0:"), a traceback's header: the step before it was under way
DEATH_BEGINS = re.compile(r"^\s*(?:Process [\w-]+:|Traceback \(most recent call last\):)\s*$|"
                          # (or Python's warning at the exit of processes that were stopped, multiprocessing's
                          # resource tracker finding what they left: "UserWarning: resource_tracker: There appear to be
                          # 1 leaked semaphore objects to clean up at shutdown", and the source line warnings print
                          # under it, "  warnings.warn('resource_tracker: There appear to be %d '")
                          r"^\s*(?:\S+\.py:\d+: )?UserWarning: resource_tracker: There appear to be\b|^\s*warnings\.warn\(")


#: a progress bar (tqdm, or vLLM's own "45% Completed | 5/11"): its percentage and its count done of all
_BAR = re.compile(r"(\d{1,3})%(?:\|[^|]*| Completed )\|\s*(\d+)/(\d+)\b")
#: ... at its end, whatever follows cut ("Capturing CUDA graphs (decode, FULL): 100%|████████", a paste cut inside it)
_BAR_FULL = re.compile(r"(?<![\d.])100%(?:\||\s+Completed\b)")
#: a bar's label of its percentage (vLLM's "Loading safetensors checkpoint shards:  45% Completed | 5/11")
_BAR_DONE = re.compile(r"\d{1,3}% Completed\b")
#: figures that read the device as a step begins, not a step's result ("using device CUDA0 (...) - 23200 MiB free")
_READINGS = frozenset({"free_memory_bytes", "total_memory_bytes", "host_free_memory_bytes", "model_name"})


def bar_under_way(text: str) -> bool:
    """The line is a progress bar short of its end ("Loading safetensors checkpoint shards:  45% Completed | 5/11",
    "Capturing CUDA graphs ...:  30%|███       | 20/67"): a step the program was doing, not a setting or a sentence."""
    bar = _BAR.search(text)
    return bool(bar) and int(bar.group(1)) < 100 and bar.group(2) != bar.group(3)


#: how much of a line names a step under way: its first characters (a 1 MB line of a prompt names none past them)
STEP_CHARS = 4096


def _under_way(ln: int, text: str, engine: str) -> tuple[int, str, str] | None:
    text = text[:STEP_CHARS]
    if _BAR.search(text) and not bar_under_way(text) or _BAR_FULL.search(text):
        return None  # a bar at its end: that step finished (also one cut after its 100%, its count not shown)
    if supposed(text) and not LEVEL.match(text):
        return None  # a user's sentence (no log level) that supposes or denies an out-of-memory: no engine's step
    if written_by_user(text, bool(LOG_PREFIX.match(text))):
        return None  # a user's sentence (or one cut at the excerpt's end) about a step: the report's words, not a step
    p = phase_words(text, engine)
    if p is None and _loading(text, engine):
        return ln, text, None  # the engine's word that its start-up is under way, which step not said
    said = _BAR_DONE.sub("", text)  # a bar's own label ("45% Completed") says nothing of the step's end
    if (p not in ("WEIGHTS", "KV", "WARMUP") or is_progress(text) or FRAME.search(text) or _DONE.search(said)
            or _SKIPPED.search(said)):
        return None
    if not _BEGINS.search(text) and any(f.pattern.search(text) for f in knowledge().figures
                                        if not f.passive and not f.key.startswith("_") and f.key not in _READINGS):
        return None  # it reports a figure, and no step beginning: a step done
    return ln, text, p


#: a note that a step is not taken ("Cudagraph is disabled under eager mode", "Skipping FlashInfer autotune because it
#: is disabled"): no step under way
_SKIPPED = re.compile(r"\b(?:is|are|was|were) disabled\b|\bskipp(?:ing|ed)\b|\bnot (?:enabled|used|supported)\b", re.I)


def _loading(text: str, engine: str) -> bool:
    """A line the run's engine prints while some start-up step is under way, which one not said (its `STARTUP`
    steps: Ollama's server polling a runner still loading, `status="llm server loading model"`)."""
    engines = knowledge().engine
    e = engines.get(engine)
    steps = [engines[n].log.frames.get("STARTUP") for n in (engine, e.wraps if e else None) if n in engines]
    return not PY_FRAME.search(text) and any(p is not None and p.search(text) for p in steps)


#: a line that is only the first words of a step's line: the step's word alone ("Loading", "Capturing", "Warming"),
#: or with the words of a progress bar's title and no bar ("Loading safetensors checkpoint shards:")
_STUB = re.compile(r"^(loading|capturing|warming(?: up)?|compiling|profiling|reserving|allocating)\b"
                   r"(?:[^.!?%|=]{0,80}:)?\s*$", re.I)
#: the phase such a word begins, where the line it starts is not in the log (None: any from the milestone reached on)
_STUB_PHASE = {"loading": "WEIGHTS", "capturing": "WARMUP", "warming": "WARMUP", "compiling": "WARMUP",
               "profiling": "WARMUP", "reserving": "WARMUP"}


def _stub(ln: int, text: str, before: list[tuple[int, str]], engine: str) -> tuple[int, str, str | None] | None:
    """The log's last line is only the first words of a step's line (its line cut as the step began): (line, text,
    phase), the phase from the line before it that it is the start of ("Loading" after "Loading safetensors
    checkpoint shards: 100%"), else from its word."""
    said = message(text).strip()
    m = _STUB.match(said)
    if not m:
        return None
    for _, b in reversed(before):
        if message(b).startswith(said) and len(message(b)) > len(said):
            p = phase_words(b, engine)
            if p in ("WEIGHTS", "KV", "WARMUP"):
                return ln, text, p
    p = phase_words(said, engine)
    return ln, text, p if p in ("WEIGHTS", "KV", "WARMUP") else _STUB_PHASE.get(m.group(1).split()[0].lower())


#: words of a step beginning ("Capture cuda graph begin. ... avail mem=9.31 GB")
_BEGINS = re.compile(r"\b(?:begins?|beginning|start(?:s|ing)?|capturing|loading|allocating|initiali[sz]ing|"
                     r"compiling|profiling)\b", re.I)
#: words of a step finished ("torch.compile takes 11.2 s in total", "Loading weights took 3.70 seconds")
_DONE = re.compile(r"\b(?:took|takes|taken|finished|completed?|done|loaded|allocated|captured|succeeded|passed|"
                   r"ready)\b", re.I)


def _without_wishes(run: RunFacts) -> RunFacts:
    """`run` without the report's words of a problem (`COMPLAINTS`) where the report asks for something and pastes no
    program's log (its motivation: "Saves users from OOM crashes on 8 GB cards"), as `wished` reads its failures."""
    if not run.asking or asking_with_log(run) or not any(k in run.numbers for k in COMPLAINTS):
        return run
    return replace(run, numbers={k: v for k, v in run.numbers.items() if k not in COMPLAINTS})


#: what a hang's diagnosis says is missing, what waits forever, and how to find it (`hang-no-error`, both kinds)
_STUCK_MISSING = "what the stuck process waits on: its threads' stacks (py-spy dump --pid PID)"
_WAITS_FOREVER = ("waits forever (a collective that never completes across GPUs or nodes, a kernel that does not return, "
                  "a lock)")
_DUMP_THREADS = ("Dump the stuck process's threads (py-spy dump --pid PID; gdb for a native server), and on several GPUs "
                 "or nodes run with NCCL_DEBUG=INFO to see which collective waits.")


def _by_line(*evidence: tuple[int, str]) -> list[tuple[int, str]]:
    """Evidence lines in the log's order, one per line (the later text of a line given twice kept)."""
    return sorted(dict(evidence).items())


def no_failure(run: RunFacts, engine: str) -> Diagnosis:
    run = _without_wishes(run)
    for rule in (leak, pressure, shortfall):
        d = rule(run)
        if d and d.code == "memory-growth-stated":
            # (growth only in the report's words, over a pool the engine shows full under load and coping, preempting
            # or retracting: the pool it sized at start holds its memory whether busy or idle; the full pool is what
            # the log shows)
            full = pressure(run)
            d = full if full and full.code.startswith("kv-pool-full") else d
        if d:
            return d
    marker = last_marker(run.progress)
    step = step_under_way(run, engine) if marker not in ("ready", "requests") else None  # (the step under way at the end)
    pool = pool_below_context(run, engine)
    # (the report's words that it failed or hung)
    told = any(isinstance(run.numbers.get(k), str) for k in ("_failure_stated", "_hang_stated"))
    aside = ""
    if pool and step:
        # (the log ends while a start-up step is under way: the run never served, so a pool shorter than the context,
        # which fails only a request longer than the pool, is not what stopped it; told beside the step)
        aside, pool = " Besides, " + pool.message[0].lower() + pool.message[1:], None
    elif pool and marker in ("ready", "requests") and not run.refused and not told and not run.numbers.get(
            "_long_requests_told"):
        # (the server said it was ready, or served, and neither the log nor the report's words tell of a failure, nor
        # of long requests: a pool shorter than the context fails only a request longer than the pool, which SGLang
        # refuses by itself, its longest input being the smaller of the two (scheduler's max_req_input_len): a limit
        # to tell, no failure)
        aside, pool = " Note: " + pool.message[0].lower() + pool.message[1:], None
    d = pool or over_working_set(run)
    if d:
        return d
    d = starved(run, engine) or _offload(run, engine)
    # (a clean bill from the offload decision waits for the start-up to end: one cut partway through a line is cut)
    # (nor one the report's words contradict, saying the run failed: "Cannot load model on the GPU (Error: llama
    # runner process has terminated: exit status 2)" over an offload of 0 layers)
    if d and not (d.kind == "NONE" and (run.tail_cut and run.tail and marker not in ("ready", "requests")
                                         or isinstance(run.numbers.get("_failure_stated"), str))):
        return d
    reached = [(run.progress[marker], run.progress_text.get(marker, ""))] if marker else []
    if run.refused and run.refused_first:
        ln, text = run.refused_first
        slots = run.numbers.get("n_slots")
        if (_DECODE_FULL.search(text) and run.numbers.get("kv_unified") is True and isinstance(slots, int)
                and slots > 1):
            # llama-server sends "Context size has been exceeded." to every processing slot when llama_decode finds no
            # free cell for even a one-token batch (tools/server update_slots): with the slots sharing one cache
            # (kv_unified, each told the whole n_ctx) that is the shared cache full under load, not one request too long
            return Diagnosis(kind="RUNTIME", code="kv-cache-full-request-failed", oom=None, inferred=True,
                             evidence=[(ln, text), (run.number_lines.get("kv_unified", 0),
                                                    f"n_slots = {slots}, kv_unified = true")],
                             phase_source="the server's refusal, with its slots sharing one KV cache",
                             message=f"{run.refused} request(s) failed with \"Context size has been exceeded.\" while "
                                     f"{slots} slots share one KV cache (kv_unified), each allowed the whole context: "
                                     "llama-server says so when no cell of the shared cache is free for even one "
                                     "token, so concurrent requests filled it. Fewer slots, a larger context in all, "
                                     "or a context per slot (no unified cache) keeps them apart.")
        said = (f"{run.refused} request(s) were refused as longer than the context the server allows (the first at "
                f"line {ln})")
        raised = run.refused_raised
        if raised and "ready" not in run.progress and not any(t.strip() for n, t in run.tail_lines if n > raised):
            # the refusal ended a traceback and the log ends there, no server said it was ready: a program that calls
            # the engine itself (vLLM's LLM class, llama-cpp-python's Llama) raised it and stopped
            return Diagnosis(kind="NOT_OOM", code="requests-refused-too-long", oom=False,
                             evidence=[(raised, next((t for n, t in run.tail_lines if n == raised), text))],
                             phase_source="the engine's own refusal, raised",
                             message=f"The program stopped on the engine's refusal of a prompt longer than the "
                                     f"context (line {raised}), raised as an exception: not memory. Shorten the "
                                     "prompt, or allow a longer context (if memory allows: a longer context needs "
                                     "more KV cache).")
        # (a report's words of a failure on the refusal's own line, "报错：The decoder prompt contains a(n) audio item
        # with 29537 embedding tokens, which exceeds the pre-allocated encoder cache size 2048": the failure it states
        # is that refusal)
        quoted = run.number_lines.get("_failure_stated") == ln
        if (quoted or not isinstance(run.numbers.get("_failure_stated"), str)) and not run.refused_relayed:
            # (NOT_OOM, not NONE: the client got an error for each, a failure of its own, though the server went on)
            return Diagnosis(kind="NOT_OOM", code="requests-refused-too-long", oom=False, evidence=[(ln, text)],
                             phase_source="the server's own refusal",
                             message=said + "; it went on serving. Each client got an error, and memory is not the "
                                            "cause: a shorter prompt fits, or a longer context does (it needs more KV "
                                            "cache, if memory allows).")
        if (marker in ("ready", "requests") or run.refused_relayed) and not run.tail_cut:
            # the report says it failed, and what the log shows of a failure is requests refused as too long while
            # the server went on: that refusal is the failure it means (a client sees an error), not memory (where the
            # server had not started, or the log is cut, the failure stated decides below)
            # (a refusal a client relays, "litellm.BadRequestError: ... OpenAIException - This model's maximum context
            # length is 13500 tokens", was the server's answer to a request: it was serving, whatever lines of its own
            # the log lacks)
            return Diagnosis(kind="NOT_OOM", code="requests-refused-too-long", oom=False, evidence=[(ln, text)],
                             phase_source="the server's own refusal",
                             message=said + ", and the server went on: the failure the report states is that "
                                            "refusal, not memory. A larger context per request (or fewer slots sharing "
                                            "it) lets them in, if memory allows.")
    stuck = _stalled(run, engine) if marker in ("ready", "requests", "warmup_done") and not run.tail_cut else []
    starting = marker == "warmup_done"
    if stuck and (len(stuck) >= _STALLED_AFTER_WARMUP if starting else
                  len(stuck) >= 2 and not _idle_before(run, stuck[0][0])):
        # its log ends on the engine's own "still waiting" line, again and again: one of its processes waits on another
        # that does not answer (a collective or a kernel that never returns), which is no memory running out: that
        # fails with an error. Where the server was serving (not where its last statistics show it idle); or where the
        # start-up's last step finished (the graphs captured, the engine's init timed) and the waits go on for many
        # minutes: no compilation is left to wait on (before that step the same line is a long compilation)
        said, who = ((f"The start-up finished its last step ({_REACHED['warmup_done']}), and then its log ends on the "
                      f"engine's line that one of its processes still waits on another, {len(stuck)} times in a row, "
                      "with no error and the server never ready: a process stuck (a collective, the API server's "
                      "hand-over)", "processes'") if starting else
                     (f"The server was serving, and its log ends on the engine's line that one of its processes still "
                      f"waits on another, {len(stuck)} times in a row, with no error: a worker stuck in a collective or a "
                      "kernel that never returns", "workers'"))
        return Diagnosis(kind="NOT_OOM", code="process-stalled", oom=False, inferred=True,
                         evidence=reached + stuck[-2:],
                         phase_source="the engine's own repeated line that a process waits on another"
                                      + (", after its last start-up step" if starting else ""),
                         message=said + f", not memory running out, which fails with an error. Dump the stuck {who} "
                                        "threads (py-spy dump --pid PID), and run with NCCL_DEBUG=INFO to see which "
                                        "collective waits.")
    hang = run.numbers.get("_hang_stated")
    if (isinstance(hang, str) and not _ties_to_memory(hang) and not run.tail_cut and marker != "ready"
            and not run.numbers.get("_machine_frozen")  # (the whole machine frozen: a host paging may be it)
            # (nor a log that ends on a program finishing its work, llama.cpp's timings or the user's interrupt: what
            # the report calls stuck is the output, "gets stuck in a loop", not the process; a server's answer to one
            # request is no such end, it may hang on the next)
            and not _work_done(run)):
        # the report tells of a hang and no line of the log shows a failure: memory that runs out fails with an error
        # (not a hang its words tie to memory, the KV blocks or the cache: a pool too small for one request makes a
        # scheduler wait forever; nor a log cut short, whose next lines are not shown; nor a server whose log says it
        # is ready and shows nothing after, which waits for requests)
        ln = run.number_lines.get("_hang_stated", 0)
        if _LOAD_STALLED.search(hang):
            # (a load that stalls, "ERNIE-4.5-VL-424B 加载卡住不动", "loading hangs at 60%": a model read into host memory
            # that is short pages instead of failing, so it is not ruled out)
            return Diagnosis(kind="UNDETERMINED", code="load-stalled", oom=None, inferred=True,
                             evidence=_by_line(*reached, (ln, hang)), candidates=["WEIGHTS"],
                             phase_source="the report's own words: the load stalls, and the log shows no error",
                             missing="the host's free memory and swap while it loads (free -g, vmstat 1)",
                             message="The report tells of the model's load stalling, and no line of the log shows an "
                                     "error: a model read into host memory that is short pages instead of failing "
                                     "(watch free memory and swap while it loads: `free -g`, `vmstat 1`); a collective "
                                     "or a lock that never returns looks the same (`py-spy dump --pid PID`).")
        fine = run.numbers.get("_memory_fine")
        if isinstance(fine, str):
            # (the report's words that memory looked normal while it hung, "alive on every node with normal memory
            # footprint": one who watched it rules memory out, so the hang is something else's)
            return Diagnosis(kind="NOT_OOM", code="hang-no-error", oom=False, inferred=True, candidates=[],
                             evidence=_by_line(*reached, (ln, hang), (run.number_lines.get("_memory_fine", 0), fine)),
                             phase_source="the report's own words: it hangs, no line shows an error, and memory "
                                          "looked normal",
                             missing=_STUCK_MISSING,
                             message="The report tells of a hang, no line of the log shows an error, and its words say "
                                     f"memory looked normal while it hung: not memory. A process that {_WAITS_FOREVER} "
                                     f"is the likely cause. {_DUMP_THREADS}")
        # (UNDETERMINED, not NOT_OOM: no line says why it stopped, so nothing rules memory out, though memory that
        # runs out most often fails with an error; what the stuck threads wait on settles it)
        return Diagnosis(kind="UNDETERMINED", code="hang-no-error", oom=None, inferred=True, candidates=[],
                         evidence=_by_line(*reached, (ln, hang)),
                         phase_source="the report's own words: it hangs, and the log shows no error",
                         missing=_STUCK_MISSING,
                         message="The report tells of a hang, and no line of the log shows an error, so why it stopped "
                                 "cannot be told from the log. Memory that runs out most often fails with an error; a "
                                 f"process that {_WAITS_FOREVER} is the likelier cause. {_DUMP_THREADS}")
    unfinished = marker is not None and marker not in ("ready", "requests")
    cause = _named_cause(run, engine)  # (the error the report names, read below)
    # (the report's words that it works, over a paste that ends during its start-up, "But the Chat is working fine,
    # without any Problems." above an Ollama runner's first lines, or stops partway through a line of it, "I've got it
    # working:" above a llama-server start-up cut at its KV cache: the start-up finished, the log shows less)
    # (a log that ends in a step, where the report names the error that ended it: that error, below)
    cut = bool(run.tail_cut and run.tail) and not _others_line(run.tail[1], engine)
    works = run.numbers.get("_works_stated")
    if ((step or cut and marker not in ("ready", "requests")) and not cause and isinstance(works, str)
            and not any(isinstance(run.numbers.get(k), str) for k in COMPLAINTS)):
        ln = run.number_lines.get("_works_stated", 0)
        return Diagnosis(kind="NONE", code="no-memory-problem", oom=False, evidence=_by_line(*reached, (ln, works)),
                         phase_source="the report's own words that it works; the log ends during its start-up",
                         message="No memory failure: the report says it works, and the log " + (
                             "is cut" if step else "stops partway through a line") + " while the server was still "
                         "starting, before any line that would show a failure." + aside)
    if step and not cause:
        ln, text, phase = step
        order = list(KIND_OF_PHASE)  # the step under way, or a later one the log did not reach
        if phase is None:  # a step's first word that names no phase: from the milestone reached on
            phase = {"start": "WEIGHTS", "weights_done": "KV", "kv_sized": "KV", "kv_done": "WARMUP",
                     "warmup_done": "WARMUP"}.get(marker or "start", "WEIGHTS")
        cands = [KIND_OF_PHASE[p] for p in order[order.index(phase):]]
        return Diagnosis(kind="UNDETERMINED", code="log-ends-during-step", oom=None, evidence=[(ln, text)],
                         candidates=cands, phase_source="the log's last line that says anything, a step under way",
                         missing="the lines after this step: whether it finished, and how",
                         message="The log ends while a start-up step was under way, with nothing after it: whether "
                                 "that step ran out of memory cannot be told from this log. If it did, the phase "
                                 "would be " + " or ".join(cands) + "." + aside)
    wrong = run.numbers.get("_bad_output_stated")
    if isinstance(wrong, str) and not run.failures:
        # the report says the answers are wrong (gibberish, unrelated text) and the log shows no failure: a fault of
        # correctness, which memory settings do not touch
        ln = run.number_lines.get("_bad_output_stated", 0)
        return Diagnosis(kind="NOT_OOM", code="wrong-output", oom=False, evidence=reached + [(ln, wrong)],
                         phase_source="the report's own words",
                         message="This is not memory running out: the report says the server's answers are wrong "
                                 f"(line {ln}), and the log shows no failure. Wrong output comes from the model file "
                                 "(a broken or mismatched quantization, a wrong chat template), a backend's kernels (a "
                                 "GPU architecture or driver the build does not handle, a split across GPUs) or "
                                 "sampling settings; try one GPU, another backend or build, or another file of the "
                                 "model. Memory settings will not help.")
    # (not where the cut line is another program's, pasted last: "for comparison, vLLM prints: ..."; `cut`, above)
    # (the report's words that it failed or hung, `told`: a cut log of a serving run is then no clean bill, "请求卡住")
    if cut and marker in ("ready", "requests") and not told:
        # serving, then the paste stops partway through a line: every log of a healthy server ends somewhere
        ln, text = run.tail
        return Diagnosis(kind="NONE", code="log-cut-off", oom=None, evidence=reached + [(ln, text)],
                         phase_source=f"the furthest step reached ({marker})",
                         message=f"No memory failure in the lines shown; the run got as far as {_REACHED[marker]}, "
                                 f"and the log stops partway through line {ln}: if the server failed after this, the "
                                 "lines that show it are not here." + aside)
    if cut:  # the start-up stops partway through a line: what came next is not here
        ln, text = run.tail
        order = list(KIND_OF_PHASE)
        at = {"start": "WEIGHTS", "weights_done": "KV", "kv_sized": "KV", "kv_done": "WARMUP",
              "warmup_done": "WARMUP"}.get(marker or "start", "RUNTIME")
        cands = [KIND_OF_PHASE[p] for p in order[order.index(at):]]
        return Diagnosis(kind="UNDETERMINED", code="log-cut-off", oom=None, evidence=reached + [(ln, text)],
                         candidates=cands, phase_source="the log's last line, cut partway",
                         missing="the rest of the log: it stops in the middle of a line",
                         message="No failure in the lines shown" + (f" (the run got as far as {_REACHED[marker]})"
                                                                    if marker else "")
                         + f", but the log stops partway through line {ln}: whatever the server printed next is "
                           "not here. If it failed, pass the log to its end.")
    said, said_ln = run.numbers.get("_failure_stated"), run.number_lines.get("_failure_stated", 0)
    if said_ln < run.results_heading:
        said = None  # (a pull request's words of the fault it fixes, above its test's output)
    answered = _answered_last(run) if isinstance(said, str) and not _CRASH_WORDS.search(said) else None
    if answered:
        # the report's words of a failure say no more than that something does not work ("does not work as expected",
        # "fails", "failing to load"), and the log ends on the server answering a request (its timings, a 200, the
        # answer itself): what does not work is not a failure the log shows (an answer's quality, a client's side)
        return Diagnosis(kind="NONE", code="no-memory-problem", oom=False, evidence=reached + [answered],
                         phase_source="the log's end: the server answering a request",
                         message=f"The report says something does not work (line {said_ln}), but the log ends on the "
                                 f"server answering a request (line {answered[0]}) and shows no failure: what it "
                                 "means (the answers' content, a client's side) is not a failure of the server, and "
                                 "no memory problem is shown.")
    goes_on = run.numbers.get("_goes_on_stated")
    if isinstance(said, str) and isinstance(goes_on, str) and run.number_lines.get("_goes_on_stated", 0) >= said_ln:
        # the report shows an error and then says the program went on past it ("每次都会出现如下报错 ... 但是还是能正常往下
        # 运行"): the lines it shows are that error's, not a failure
        ln = run.number_lines.get("_goes_on_stated", 0)
        return Diagnosis(kind="NONE", code="no-memory-problem", oom=False, evidence=reached + [(ln, goes_on)],
                         phase_source=f"the report's words that it goes on (line {ln})",
                         message=f"The report shows an error (line {said_ln}) and then says the program goes on past it "
                                 f"(line {ln}): not a failure, and no memory problem is shown.")
    crash = cause and _CRASH.search(cause[1])
    if crash:
        named_ln, named = cause
        code = next((c for rx_, c in _CRASH_CODES if rx_.search(crash.group(0))), "crash-access-violation")
        return Diagnosis(kind="NOT_OOM", code=code, oom=False, inferred=True, evidence=reached + [(named_ln, named)],
                         phase_source="the report's own words: the crash it names",
                         message=f"The report names the crash that ended the run ({named!r}, line {named_ln}): "
                                 f"{crash.group(0)!r} is a program touching memory it does not own, or an instruction "
                                 "it cannot run (a bug in a kernel, the engine or a library, or a build for another "
                                 "machine), not memory running out. The server's own lines of it are not in the log; "
                                 "its backtrace (or the core dump) says where.")
    if cause:
        named_ln, named = cause
        # the report's words name the error that ended the run by its own message, on the line that states the
        # failure or a few lines from it, its title above the cause ("导致了抛出**No valid structured output parameter found**异常", "it raised 'Invalid prompt
        # template'"), words of no memory: that error
        return Diagnosis(kind="NOT_OOM", code="error-not-memory", oom=False, inferred=True,
                         evidence=reached + [(named_ln, named)], phase_source="the report's own words: the error it names",
                         message=f"The report names the error that ended the run ({named!r}, line {named_ln}), "
                                 "and its words are not memory running out: fix that error rather than memory "
                                 "settings. The server's own lines of it are not in the log.")
    off = run.numbers.get("_machine_off")
    if (isinstance(off, str) and not run.failures and not isinstance(run.numbers.get("_machine_frozen"), str)
            and not (isinstance(said, str) and _RAN_OUT_SAID.search(said)) and not _RAN_OUT_SAID.search(off)):
        # the report says the whole machine powered off or restarted on its own, the log shows no failure, and no
        # words say memory ran out or the machine froze first: power or hardware
        return _told_not_memory(run, reached, "_machine_off", "machine-powered-off", "the machine went off",
                                "The report says the whole machine shut down or restarted (line {ln}), and the log "
                                "shows no failure before it: memory running out kills a process, it does not power a "
                                "machine off. Power delivery (a supply's transients under the GPUs' load spikes), heat "
                                "or a hardware fault is the likely cause: check the system's own log of the shutdown "
                                "(`journalctl -b -1`, the BMC's event log), or cap the GPUs' power (`nvidia-smi -pl`) "
                                "and try again.")
    built = run.numbers.get("_build_failed_stated")
    if (isinstance(built, str) and not _RAN_OUT_SAID.search(built) and not _MEMORY_SAID.search(built)
            and not (isinstance(said, str) and _RAN_OUT_SAID.search(said))):
        # the report says a kernel or the engine did not compile (its compiler's own error cut from the paste, or not
        # pasted), and names no memory running out: a build's failure
        return _told_not_memory(run, reached, "_build_failed_stated", "kernel-build-failed", "a build that failed",
                                "The report says a build failed (line {ln}), and no words of it are memory running "
                                "out: a kernel compiled at start-up or the engine's build did not compile (a "
                                "toolchain, CUDA version or GPU architecture the build does not handle), not memory. "
                                "Read the compiler's first error (the paste may have cut it), or use a prebuilt kernel "
                                "package or a build that supports this GPU.")
    refused = _client_errors(run) if isinstance(said, str) else _client_errors(run, only=True)
    if refused:
        # the report says it failed, and the server's own access lines show it answering those requests with a
        # client's error (404, 400, 401): it was up, and refused what was sent
        return Diagnosis(kind="NOT_OOM", code="requests-answered-with-client-error", oom=False, inferred=True,
                         evidence=reached + ([(said_ln, said)] if isinstance(said, str) else []) + [refused[-1]],
                         phase_source="the server's access lines: requests answered with a client error",
                         message=(f"The report says it failed (line {said_ln}), and the" if isinstance(said, str) else
                                  "Every request at the log's end was refused: the") + " server answered "
                                 f"with a client error (line {refused[-1][0]}): it was up and refused what was sent "
                                 "(a wrong path or model name, a missing key, a feature the model or the server's "
                                 "settings do not have, a proxy that rewrote the request), which is no memory problem.")
    if isinstance(said, str):  # the text says it failed, and nothing in the log places or names that failure
        order = list(KIND_OF_PHASE)
        at = {"weights_done": "KV", "kv_sized": "KV", "kv_done": "WARMUP", "warmup_done": "WARMUP", "ready": "RUNTIME",
              "requests": "RUNTIME"}.get(marker or "start", "WEIGHTS")
        left = order[order.index(at):]
        # (the function the words say it failed in names its step: "Crash due to unhandled exception from
        # ggml_vk_allocate in llama_kv_cache_init")
        named = steps_named(said, engine) & set(left)
        cands = [KIND_OF_PHASE[p] for p in (sorted(named, key=order.index) if len(named) == 1 else left)]
        return Diagnosis(kind="UNDETERMINED", code="failure-cause-not-shown", oom=None,
                         evidence=reached + [(said_ln, said)], candidates=cands, phase_source="the report's own words",
                         missing="the server's own lines of the failure the report states",
                         message="The report says the run failed (line " + str(said_ln) + "), but no line of the log "
                                 "shows the failure, so whether memory ran out cannot be told. If it was memory, the "
                                 "phase would be " + " or ".join(cands) + ".")
    return Diagnosis(kind="NONE", code="no-memory-problem", oom=False, evidence=reached,
                     phase_source=f"the furthest step reached ({marker})" if marker else "",
                     message="No memory failure found in this run" + (f"; it got as far as {_REACHED[marker]}."
                                                                       if marker else ".")
                     + (" The run ends there, before the server said it was ready: if it failed after this, the "
                        "lines that show it are not in this log." if unfinished else "") + aside)


#: a report's words of a failure that say more than "it does not work": a crash, a hang, an exit, an error named


#: how far (lines) from the report's words of a failure an error it names by its message is that failure's
_NEAR = 10
#: words of memory in an error the report names (`_raised_named`): then it is no error of another kind
#: (and a model that does not fit, in the words of one: "too large", "not enough", "insufficient")
_MEMORY_SAID = re.compile(r"memory|\bOOM|alloc|显存|内存|cache blocks|\bKV\b|too (?:large|big)|not enough|insufficient|"
                          r"\bfit\b|\bresources?\b", re.I)

#: an error's words that name a step that failed, not why ("Capture cuda graph failed", "Engine core initialization
#: failed", "model load error")
_STEP_FAILED = re.compile(r"\b(?:failed|failure|error|crashed|aborted)\W*$", re.I)


def _names_a_cause(named: str, engine: str) -> bool:
    """The error a report names by its message (`_raised_named`) says why the run failed: not a step of the start-up
    or serving that failed (`phase_words`: "Capture cuda graph failed", whose cause is under it, memory among them), nor
    words that only say a step failed (`_STEP_FAILED`), nor a line an engine's rules read as a wrapper around another
    failure or as memory (a client's "Cannot connect to host 127.0.0.1:8877": the server it called failed or never
    started, for a reason its own log gives)."""
    v = knowledge().line_verdict(named)
    return (not (v and v.kind in ("wrapper", "oom", "pressure")) and not _STEP_FAILED.search(named)
            and not _SERVER_GONE.search(named) and phase_words(named, engine) is None)


#: a client's words that the server it called was not there or went away ("Cannot connect to host 127.0.0.1:8877",
#: "Connection refused", "Remote end closed connection"): that server failed or never started, for its own reason
_SERVER_GONE = re.compile(r"\bCannot connect to\b|\bConnection (?:refused|reset|aborted|closed)\b|\bECONNREFUSED\b|"
                          r"\bRemote end closed\b|\bServer disconnected\b|\bconnect(?:ion)? timed? ?out\b|拒绝连接|连接被拒绝", re.I)


def _told_not_memory(run: RunFacts, reached: list, key: str, code: str, what: str, message: str) -> Diagnosis:
    """NOT_OOM `code` from the report's words of figure `key` (its line, `{ln}` in `message`): a cause they state
    that is not memory (`what`, the phase source's words)."""
    ln = run.number_lines.get(key, 0)
    return Diagnosis(kind="NOT_OOM", code=code, oom=False, inferred=True, evidence=reached + [(ln, run.numbers[key])],
                     phase_source=f"the report's own words: {what}", message=message.format(ln=ln))


def _named_cause(run: RunFacts, engine: str) -> tuple[int, str] | None:
    """The error the report names by its message (`_raised_named`: line, message), within `_NEAR` lines of its words of
    a failure (`_failure_stated`), where that message is a cause of no memory (`_names_a_cause`); None otherwise."""
    said, said_ln = run.numbers.get("_failure_stated"), run.number_lines.get("_failure_stated", 0)
    named, named_ln = run.numbers.get("_raised_named"), run.number_lines.get("_raised_named", 0)
    if (isinstance(said, str) and isinstance(named, str) and abs(named_ln - said_ln) <= _NEAR
            and not _MEMORY_SAID.search(named) and _names_a_cause(named, engine)):
        return named_ln, named
    # (or the crash named by its class, "workers segfault during KV-cache warmup": the words state the failure and
    # name its kind at once, wherever the report says it; not where they, or its words of the failure, speak of memory
    # running out besides, "segfaults once it runs out of memory")
    crash, crash_ln = run.numbers.get("_crash_stated"), run.number_lines.get("_crash_stated", 0)
    if isinstance(crash, str) and not _RAN_OUT_SAID.search(crash) and not crash_not_stated(crash) and not (
            isinstance(said, str) and _RAN_OUT_SAID.search(said)):
        return crash_ln, crash
    return None


_CRASH = re.compile(CRASH_CLASS, re.I)
#: a person's words that memory ran out, beside a crash they name ("it segfaults once it runs out of memory")
_RAN_OUT_SAID = re.compile(r"out of (?:GPU |device |host |system )?memory|\bOOM|\bruns? out\b|\bran out\b|not enough "
                           r"(?:GPU |V?RAM|memory)|insufficient (?:GPU )?memory|memory (?:is )?(?:full|exhausted)|显存不足|"
                           r"内存不足|显存溢出|爆显存", re.I)
#: the code of a crash the report names by its class (`_CRASH`), by its words; a bad host access where none else
_CRASH_CODES = ((re.compile(r"illegal memory access|illegal address|非法内存访问", re.I), "illegal-memory-access"),
                (re.compile(r"illegal instruction|SIGILL|不正な命令", re.I), "illegal-instruction"),
                (re.compile(r"bus error|SIGBUS|バスエラー", re.I), "bus-error"))


_CRASH_WORDS = re.compile(r"crash|\bdie[sd]?\b|\bdying\b|killed|abort|segfault|segmentation|\bhang|\bhung\b|freez|froze|"
                          r"stuck|exit|shut|terminat|error|exception|\bOOM|out of memory|restart|stops? respond|"
                          r"unresponsive|timed? ?out|refuse|"
                          # (and in Chinese: an error, a crash, a process gone, a hang, a time-out)
                          r"错误|报错|出错|崩|挂了|挂掉|没了|退出|卡死|卡住|超时", re.I)


def _answered_with(status: str, more: str = "") -> re.Pattern:
    """A line of a request answered with a status `status` matches (a regex of its three digits), in the forms servers
    and clients log it: uvicorn's access line ('"GET / HTTP/1.1" 404 Not Found'), llama.cpp's ('status=404
    method="GET"', 'request: GET /x 127.0.0.1 404'), Gin's ('| 404 |'), and a client's own log of it, httpx's ('HTTP
    Request: POST http://.../v1/chat/completions "HTTP/1.1 404 Not Found"'); `more`: alternatives of one use's own."""
    return re.compile(rf"\x22 (?:{status})\b|\bstatus=(?:{status})\b|\|\s*(?:{status})\s*\||"
                      rf"\bHTTP Request: (?:GET|POST|PUT|DELETE) \S+ \x22HTTP/[\d.]+ (?:{status})\b|"
                      rf"\brequest: (?:GET|POST|PUT|DELETE) \S+ \S+ (?:{status})\b" + (f"|{more}" if more else ""))


#: a request answered with a client's error; not 429, a server too busy to take it, nor 408, one that timed out
#: (also llama-server's answer to a body it could not read as JSON, which it sends with a 500: tools/server's handler
#: "got exception: {\"error\":{\"code\":500,\"message\":\"[json.exception.parse_error.101] parse error at line 1,
#: column 1: attempting to parse an empty input ...": nlohmann::json's exceptions on the request's own body)
#: (and 501, Not Implemented: what the server does not do for this model or these settings, llama-server's
#: ERROR_TYPE_NOT_SUPPORTED, "POST /infill ... 501" for a model without fill-in-the-middle tokens, /embeddings without
#: --embeddings, /slots with --no-slots: a request it refused, not one that broke it)
_CLIENT_ERROR = _answered_with(r"4(?!29|08)\d\d|501", more=r"\bgot exception: \{\x22error\x22:\{\x22code\x22:\d+,\x22message"
                                                      r"\x22:\x22\[json\.exception\.(?:parse_error|type_error)\.\d+\]")
#: ... and with a server's error, or too busy: then the client's errors are not all there is (nor where a client's own
#: log shows a request answered at all, httpx's 2xx, by any method)
_SERVER_ERROR = _answered_with(r"5(?!01)\d\d|429|408",
                               more=r"\bHTTP Request: \w+ \S+ \x22HTTP/[\d.]+ (?:2\d\d|5(?!01)\d\d|429|408)\b")


def _client_errors(run: RunFacts, only: bool = False) -> list[tuple[int, str]]:
    """The program's access lines among the run's last lines that answered a request with a client's error
    (`_CLIENT_ERROR`), where none answered with a server's error or too busy; [] otherwise. only: where the report
    states no failure, the log's every request at its end refused (three or more, none answered with a success)."""
    lines = [(ln, t) for ln, t in run.tail_lines if program_line(t)]
    if any(_SERVER_ERROR.search(t) for _, t in lines):
        return []
    refused = [(ln, t) for ln, t in lines if _CLIENT_ERROR.search(t)]
    if only and (len(refused) < 3 or any(_SUCCESS.search(t) for _, t in lines)):
        return []
    return refused


#: a request answered with a success (2xx), also any line's HTTP status of one ("HTTP/1.1 200")
_SUCCESS = _answered_with(r"2\d\d", more=r"\bHTTP/[\d.]+\x22? 2\d\d\b")


def _work_done(run: RunFacts) -> bool:
    """A line among the run's last 15 says a program finished its work (any engine's `LogWords.work_done`)."""
    done = knowledge().work_done
    return done is not None and any(done.search(t) for _, t in run.tail_lines[-15:])


def _answered_last(run: RunFacts) -> tuple[int, str] | None:
    """The line among the run's last 15 that shows a request answered (any engine's `LogWords.answered`), where no
    line after it says anything of a failure, nor begins another request (a slot's "processing task", its prompt
    processing: the run was at work on it when the log ends): the run ends serving. None otherwise."""
    k = knowledge()
    answered = k.answered
    tail = [(ln, t) for ln, t in run.tail_lines if t.strip()][-15:]
    hits = [(ln, t) for ln, t in tail if answered is not None and answered.search(t)]
    if not hits or run.failures or run.tail_cut:
        return None
    began = [p for m, p in k.milestones if m == "requests"]
    if any(ln > hits[-1][0] and not answered.search(t) and any(p.search(t) for p in began) for ln, t in tail):
        return None
    return hits[-1]


#: words that tie a report's sentence to memory, the KV cache or its blocks
#: (not a cache of files: vLLM's "generating GPU P2P access cache", a compile or download cache)
_MEMORY_NAMED = re.compile(r"memory|\bmem\b|alloc|\bOOM|\bVRAM\b|\bRAM\b|"
                           r"(?<!access )(?<!compile )(?<!compilation )(?<!download )(?<!disk )(?<!file )(?<!kernel )"
                           r"(?<!triton )(?<!inductor )(?<!torch )(?<!model )cache|\bKV\b|(?<![A-Za-z])blocks?(?![A-Za-z])|buffer|pool|"
                           r"\bswap", re.I)


#: a question in a report's words ("— out of memory??", "is it the KV cache?"): what it asks is not what it states
_ASKED = re.compile(r"[^,;:.!?\u2014\u2013]*\?+")
#: memory named to be ruled out ("I don't think it is OOM", "not a memory problem", "no OOM in the log")
_RULED_OUT = re.compile(r"\b(?:not|n[o'\u2019]t|never|no)\b[^,;.!?]{0,40}?\b(?:OOM|out of memory|memory)\b", re.I)


def _ties_to_memory(words: str) -> bool:
    """The report's words of a hang tie it to memory (`_MEMORY_NAMED`), where they state it: not in a question they
    ask ("stuck forever after torch.compile — out of memory??") nor where they rule memory out."""
    return bool(_MEMORY_NAMED.search(_RULED_OUT.sub(" ", _ASKED.sub(" ", words))))


#: a process tag at a line's start ("(VllmWorker rank=0 pid=401) ", "(EngineCore_DP0 pid=94) "): the process that
#: printed it, whatever code it ran
_PROCESS_TAG = re.compile(r"^\s*\(\w+[\w =,.]*pid=\d+[\w =,.]*\)")


def _others_line(text: str, engine: str) -> bool:
    """The line is another engine's than the run's (`engine`): its fingerprint is another's and not the run's, nor one
    the run's engine wraps or is wrapped by. An engine whose code the run's imports (SGLang imports vLLM's) prints
    lines in that one's words, so for it only a process tag at the line's start tells (vLLM's processes)."""
    k = knowledge()
    own = k.engine.get(engine)
    if own is None or own.log.fingerprint is None:
        return False
    tag = _PROCESS_TAG.match(text)
    for name, e in k.engine.items():
        if name == engine or name == own.wraps or e.wraps == engine or e.log.fingerprint is None or \
                not e.log.fingerprint.search(text):
            continue
        if name in own.imports and not (tag and e.log.fingerprint.search(tag.group(0))):
            continue
        if not own.log.fingerprint.search(text):
            return True
    return False


_REACHED = {"start": "starting", "weights_done": "loading the weights", "kv_sized": "sizing the KV cache",
            "kv_done": "allocating the KV cache", "warmup_done": "warming up", "ready": "accepting requests",
            "requests": "serving requests"}
