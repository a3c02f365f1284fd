"""`vramdoctor logs`: which ledger broke, from a server's own log.

`diagnose(source)` scans a log (blocks of bytes from `reader.read_blocks`, the fast path, or
(line number, text) pairs), splits server starts into runs and diagnoses each; the result is data
(`LogReport`) that one renderer prints as text or JSON. No I/O here: `reader` gets the bytes.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from itertools import chain
from typing import Iterable, Union

from ..engines import all_engines
from . import streams
from .advice import advise
from .authorship import TITLE, program_line, sentence_like, user_words
from .blocks import scan_blocks
from .diagnose import detect_engine, diagnose_run, later_by_clock, seconds_of_day
from .facts import PROSE_HIT, RunFacts
from .knowledge import FRAME, knowledge
from .lines import STRONG_PREFIX, TB_HEADER
from .prose import same_again
from .quiet import DEATH_BEGINS, pool_below_cap
from .reader import Blocks, clean, lines_of
from .scan import LineScan, scan
from .verdict import OOM_KINDS

KINDS = ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME", "UNDETERMINED", "LEAK", "NOT_OOM", "NONE")
SERVING = ("ready", "requests")


@dataclass
class RunReport:
    """One server start. numbers: bytes / tokens / counts as printed; derived: what follows from them;
    oom: True / False / None (cannot tell); candidates: the kinds an UNDETERMINED run could be."""

    index: int
    first_line: int
    last_line: int
    engine: str
    kind: str
    code: str
    message: str
    inferred: bool
    phase_source: str
    evidence: list[dict]
    numbers: dict
    derived: dict
    advice: list[dict]
    oom: bool | None = True
    candidates: list[str] = field(default_factory=list)
    missing: str = ""
    progress: dict = field(default_factory=dict)
    told: list[str] = field(default_factory=list)  # the milestones in `progress` only the report's words gave
    model_check: list[str] = field(default_factory=list)
    program: str = ""


@dataclass
class LogReport:
    """The whole log: `runs` in order; `diagnosis` is the run that decides (see `decide`)."""

    engine: str
    runs: list[RunReport]
    diagnosis: dict
    lines: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def derive(n: dict, kind: str = "", block_tokens: int | None = None) -> dict:
    """KV bytes per token from a pool's bytes and its tokens or blocks; the largest context it holds.
    For a KV cache that failed to allocate for n_ctx (llama.cpp), the bytes per token it asked for."""
    out: dict = {}
    failed = n.get("failed_alloc_bytes")
    if not n.get("n_ctx") and (n.get("kv_size_cells") or n.get("n_ctx_seq")):
        # llama.cpp's context where it printed no "n_ctx = N": the cells its cache was created with, else n_ctx_seq,
        # which is n_ctx itself for one sequence or a unified cache (n_ctx / n_seq_max otherwise)
        par, unified = n.get("n_parallel"), n.get("kv_unified")
        seq = n.get("n_ctx_seq")
        if isinstance(n.get("kv_size_cells"), int) and (not isinstance(par, int) or par <= 1 or unified):
            out["n_ctx"] = n["kv_size_cells"]
        elif isinstance(seq, int) and (not isinstance(par, int) or par <= 1 or unified):
            out["n_ctx"] = seq
        elif isinstance(seq, int) and isinstance(par, int) and unified is False:
            out["n_ctx"] = seq * par
        if out.get("n_ctx"):
            n = {**n, "n_ctx": out["n_ctx"]}
    if kind == "KV_CAPACITY" and n.get("n_ctx") and failed and not n.get("kv_pool_bytes"):
        out["kv_bytes_per_token"] = round(max(failed) / n["n_ctx"])
        out["kv_cache_requested_bytes"] = max(failed)
    pool = n.get("kv_pool_bytes")
    if isinstance(pool, list):
        pool = sum(pool) if pool else None
    if not pool and n.get("kv_k_bytes") and n.get("kv_v_bytes"):  # SGLang prints K and V apart
        pool = n["kv_k_bytes"] + n["kv_v_bytes"]
        out["kv_pool_bytes"] = pool
    tokens = n.get("kv_pool_tokens")
    block = n.get("block_size") or block_tokens  # printed, or the engine's default
    if not tokens and n.get("num_gpu_blocks") and block:
        tokens = n["num_gpu_blocks"] * block
        out["kv_pool_tokens"] = tokens
    capped = pool_below_cap(n)
    if not tokens and capped:
        tokens = out["kv_pool_tokens"] = capped
    if pool and tokens and pool > 0 and tokens > 0:
        out["kv_bytes_per_token"] = round(pool / tokens)
    elif n.get("block_bytes") and block:  # LMDeploy prints one block's bytes
        out["kv_bytes_per_token"] = round(n["block_bytes"] / block)
    if tokens and tokens > 0:
        out["largest_context_in_pool"] = tokens
    by_dev = n.get("kv_buffer_bytes_by_device")
    if isinstance(by_dev, dict) and by_dev:
        out["kv_buffer_total_bytes"] = sum(by_dev.values())
    return out


def _flatten(n: dict) -> dict:
    """Single-valued lists become their value (llama.cpp prints one KV line per cache, summed)."""
    out = {}
    for k, v in n.items():
        if isinstance(v, list) and k in ("kv_pool_bytes", "kv_cells"):
            out[k] = sum(v)
        elif isinstance(v, list) and len(v) == 1 and k not in (
                "kv_usage_pct", "running_reqs", "failed_alloc_bytes", "listed_process_in_use_bytes", "gpu_process_pids",
                "server_pids", "worker_ranks", "preemptions", "queue_reqs", "retracted_reqs"):
            out[k] = v[0]
        else:
            out[k] = v
    return out


def _own_figures(r: RunFacts, eng: str) -> None:
    """Leave out of run `r` the figures read only in another engine's words (a vLLM line pasted for comparison under
    an SGLang run, a llama-server command line beside an Ollama one): not this run's settings or sizes. The generic
    words and those of the engine `eng` wraps (llama.cpp's lines in Ollama's log) are its own."""
    e = knowledge().engine.get(eng)
    if e is None:
        return
    own = {eng, "generic"} | ({e.wraps} if e.wraps else set())
    for key, owners in r.figure_owners.items():
        if owners and not owners & own:
            r.numbers.pop(key, None)
            r.number_lines.pop(key, None)
        elif owners - own and key in r.owned_values:  # (a setting both gave: this run's own words' value)
            mine = [v for o, v in r.owned_values[key].items() if o in own]
            if mine:
                line, value, mode = (max if mine[0][2] == "last" else min)(mine, key=lambda v: v[0])
                r.numbers[key], r.number_lines[key] = value, line


def _attach_orphans(runs: list[RunFacts]) -> tuple[list[RunFacts], list[str]]:
    """An error pasted above the start-up it belongs to: a run with failures and no start line, followed by
    a run without failures, is one run; the failure is judged against how far that start-up got."""
    out: list[RunFacts] = []
    notes: list[str] = []
    i = 0
    while i < len(runs):
        r = runs[i]
        nxt = runs[i + 1] if i + 1 < len(runs) else None
        if nxt and "start" in nxt.progress and _words_only(r):
            _tell(r, nxt)  # the user's words above the log they paste are about it
            i += 1
            continue
        # (not a run whose own restart command follows its failure: "$ vllm serve ... 0,9", argparse's error, then "$ vllm
        # serve ... 0.9" and the start-up it begins, which is that second try's)
        # (nor one whose report's words after its failure say it is gone, "EDIT: Now working with 0.1.48": the start-up
        # under them is the run that works)
        fixed = isinstance(r.numbers.get("_fixed_stated"), str) and bool(r.failures) and (
            r.number_lines.get("_fixed_stated", 0) > r.failures[0].line_no)
        pasted = (r.failures and not r.progress and all(not f.progress for f in r.failures)
                  and not r.command_after_failure and not fixed)
        # (or an error block with the requests before it, stamped later than the whole start-up pasted under it: "The
        # error:", then "Start-up log from the same run:", the clock going back between them)
        spliced = bool(r.failures and nxt and "start" in nxt.progress and not nxt.failures
                       and not r.command_after_failure and not fixed and _after_by_clock(r, nxt))
        # (nor where the start-up's only failure is the first line of a death cut right after it, "Traceback (most
        # recent call last):", "Process SpawnProcess-1:": the pasted error is what followed it)
        if spliced or pasted and nxt and "start" in nxt.progress and (
                not nxt.failures or _same_error(r, nxt) or all(DEATH_BEGINS.match(g.text) for g in nxt.failures)):
            what = "a failure without a start line" if pasted else "stamped later than the start-up under them"
            nxt.failures = []  # the start-up's own copy of the pasted error (cut after its first lines)
            for f in r.failures + r.pressure:
                f.pasted = True
                f.progress = {**nxt.progress, **f.progress}
            _take_figures(r, nxt)
            r.notes = r.notes + nxt.notes  # (the warnings it went on from: a title that quotes one is known for it)
            r.progress = {**nxt.progress, **r.progress}
            r.last_line = max(r.last_line, nxt.last_line)
            if nxt.tail_lines:  # (the log's last lines are the start-up's: a step under way where it ends)
                r.tail, r.tail_cut, r.tail_lines = nxt.tail, nxt.tail_cut, nxt.tail_lines
            for k, v in nxt.engine_hits.items():
                r.engine_hits[k] = r.engine_hits.get(k, 0) + v
            r.command_hits += nxt.command_hits
            notes.append(f"lines {r.first_line}-{nxt.first_line - 1} ({what}) were read with the start-up pasted "
                         f"after them (lines {nxt.first_line}-{nxt.last_line}): how far that start-up got is where the "
                         "failure happened.")
            out.append(r)
            i += 2
            continue
        out.append(r)
        i += 1
    return out, notes


def _after_by_clock(r: RunFacts, nxt: RunFacts) -> bool:
    """Run `r`'s first failure is stamped later than every stamped step of the start-up `nxt` pasted under it (within
    half a day): the error pasted above the start-up it came after."""
    f = r.failures[0]
    # (the failure's own stamp, else the nearest line above it with one: a traceback's last line has none)
    stamped = next((t for t in [f.text, *(x for _, x in reversed(f.before))] if seconds_of_day(t) is not None), "")
    steps = [t for t in nxt.progress_text.values() if t and seconds_of_day(t) is not None]
    return bool(steps and stamped) and all(later_by_clock(stamped, t) for t in steps)


#: the most lines a report's own words above its log may take (a title and a few paragraphs)
WORDS_LINES = 40


def _words_only(r: RunFacts) -> bool:
    """A run that is only the report's own words (a title, sentences: no start line, no program's failure and no
    engine named by a program's line), short enough to be what a user writes above the log they paste."""
    # (an engine's own message quoted in the words, "Title: ValueError: The model's max seq len (4096) is larger than
    # ...", counts as evidence of that engine once per failure that quotes it: it is still the report's words)
    # (a command the user pasted, "$ python -m aphrodite.endpoints...", is the report's too: the engine's output is not)
    own = sum(v for k, v in r.engine_hits.items() if not k.startswith(PROSE_HIT)) - r.command_hits
    quoted = sum(1 for f in r.failures + r.pressure if f.engine and f.engine != "generic")
    return ("start" not in r.progress and r.lines <= WORDS_LINES and r.last_line - r.first_line < WORDS_LINES
            and own <= quoted
            and all(user_words(f.text) or sentence_like(f.text) for f in r.failures + r.pressure))


def _tell(words: RunFacts, run: RunFacts) -> None:
    """Read the report's words `words` with the run pasted under them: its failures, figures and title join the run;
    the milestones its words name are what the report tells (`titled`), not steps the run passed."""
    run.first_line = words.first_line
    run.failures = words.failures + run.failures
    run.pressure = words.pressure + run.pressure
    _take_figures(run, words)
    run.heading = run.heading or words.heading
    run.titled = {**{m: (ln, words.progress_text.get(m, "")) for m, ln in words.progress.items()}, **words.titled,
                  **run.titled}
    for k, v in words.engine_hits.items():
        run.engine_hits[k] = run.engine_hits.get(k, 0) + v
    run.command_hits += words.command_hits
    run.lines += words.lines


def _take_figures(run: RunFacts, other: RunFacts) -> None:
    """Add the figures `other` read to `run`'s (with the engines whose words gave them); `run`'s own win."""
    run.numbers = {**other.numbers, **run.numbers}
    run.number_lines = {**other.number_lines, **run.number_lines}
    for key, owners in other.figure_owners.items():
        run.figure_owners.setdefault(key, set()).update(owners)
    for key, values in other.owned_values.items():
        run.owned_values[key] = {**values, **run.owned_values.get(key, {})}


def _same_error(pasted: RunFacts, startup: RunFacts) -> bool:
    """The start-up ends in the first lines of the error pasted above it: its failures state no cause and each
    line of them is a line of the pasted error's (`EngineCore failed to start.`, `Traceback ...`)."""
    seen = {t.strip() for f in pasted.failures for _, t in f.before + [(f.line_no, f.text)] + f.after}
    return all(f.kind == "error" and f.text.strip() in seen for f in startup.failures)


#: verdicts of a log that stops before its run's end: they clear no earlier run's failure
UNFINISHED = ("log-ends-during-step", "log-cut-off")


def decide(reports: list[RunReport], out_of_order: bool = False, copies: frozenset[int] = frozenset()) -> RunReport | None:
    """The run whose verdict stands: the latest run with a finding, unless a later run got further (reached
    serving) without one. A run that stopped short of serving does not clear an earlier failure, nor does any run
    clear one that failed while serving (serving is as far as a run gets). In a log whose
    lines are out of order the runs are pieces, with no latest: where the engine's own words state one kind of
    failure (not inferred, not undetermined) in them, that piece decides. `copies`: the indices of runs that are
    the same output as an earlier run pasted again (`_pasted_again`), which decide nothing that run decided."""
    if out_of_order:
        stated = [r for r in reports if r.kind not in ("NONE", "UNDETERMINED") and not r.inferred]
        if stated and len({r.kind for r in stated}) == 1:
            return stated[-1]
    for i, r in enumerate(reversed(reports)):
        echo = r.kind == "UNDETERMINED" and r.code == "failure-cause-not-shown" and not r.progress
        cut = r.code in UNFINISHED  # a run the log leaves unfinished clears nothing either
        earlier = reports[:len(reports) - 1 - i]
        # (or the log pasted under the report's words, cut before its error line, where those words, a run of their
        # own that reached no step, name the error: "the service crashes during CUDA graph capture with the following
        # error: ValueError: Invalid type for tensors", then the log that stops inside its traceback)
        # (the report's words, a title or sentences or an error quoted bare: no line of its evidence with a log's own
        # prefix; a restart the log shows is a run of its own)
        told = [x for x in earlier if x.kind == "NOT_OOM" and not set(x.progress) - {"start"}
                and x.evidence and not any(STRONG_PREFIX.match(e["text"]) for e in x.evidence)]
        echo = echo or r.kind == "UNDETERMINED" and r.code == "failure-cause-not-shown" and bool(told)
        # (or the report's words of this run's failure say it was the same as before, "Crashed as well with a very
        # similar backtrace" under a second model's load: the earlier run's failure names it)
        echo = echo or (r.kind == "UNDETERMINED" and r.code == "failure-cause-not-shown" and bool(r.evidence)
                        and same_again(r.evidence[-1]["text"]))
        # (a run that is only its start line, cut: the settings of a server pasted again, "This is my config:
        # args: Namespace(...", after it served)
        settings = cut and r.first_line == r.last_line and set(r.progress) <= {"start"}
        # (or the same output as an earlier run pasted again, its cause cut from this copy: "...(same traceback as
        # above)...", the error block quoted first and the whole output after it)
        echo = echo or r.index in copies and r.kind == "UNDETERMINED"
        # (or the start-up pasted below the end of its own output, "Here's the end of the output first, full startup
        # below", "报错信息先贴在这里（启动命令和前面的日志在下面）": this run stops inside a traceback, its error line not in
        # it, or only the report's words tell its failure, and an earlier run with no start-up step of its own is
        # that output's end, its error line included)
        last = r.evidence[-1]["text"] if r.evidence else ""
        inside = (r.kind == "UNDETERMINED" and r.code == "failure-cause-not-shown"
                  and (TB_HEADER in last or bool(FRAME.search(last)) or r.phase_source == "the report's own words"))
        echo = echo or inside and any(x.kind not in ("NONE", "UNDETERMINED")
                                      and not set(x.progress) - set(x.told) for x in earlier)
        if (echo and any(x.kind not in ("NONE", "UNDETERMINED") for x in earlier)
                or cut and any(x.kind != "NONE" and x.code not in UNFINISHED for x in earlier)
                or settings and any(m in x.progress for x in earlier for m in SERVING)):
            continue  # a wrapper's echo of the earlier run's failure ("error starting llama server: ...")
        # (a run out of memory while serving, under the report's own words of growth that became a run of their own,
        # the title and the sentences above the log: "GPU memory keeps climbing for ~11h then CUDA OOM"; the out of
        # memory is how that growth ended, as within one run)
        grew = [x for x in earlier if x.kind == "LEAK" and x.evidence
                and not any(STRONG_PREFIX.match(e["text"]) and not TITLE.match(e["text"]) for e in x.evidence)
                and "ready" not in x.progress]
        # (not a pool full under load that the engine coped with, preempting or retracting: memory held by the pool
        # it sized at start, "36GB used even when idle", is no growth)
        # (also a load of the model again that runs out, after a run whose memory the report says was not freed:
        # "created and closed the session 4 times", then the next load's out-of-memory; the earlier run loaded too)
        if grew and (r.kind == "RUNTIME" and not r.code.startswith("kv-pool-full")
                     or r.kind == "WEIGHTS" and any("start" in x.progress for x in grew)):
            return grew[-1]
        if r.kind != "NONE":
            return r
        if any(m in r.progress for m in SERVING):
            # (a run that failed while serving, before this one: serving is as far as a run gets, so this one got no
            # further than that failure, and the failure decides)
            # (a crash of another cause while it served too, the program's own line of it after its requests: "CUDA
            # error: an illegal memory access was encountered" in a decode, then a retry with a workaround that served)
            served = [x for x in earlier if "requests" in x.progress and (x.kind in ("RUNTIME", "LEAK") or (
                x.kind == "NOT_OOM" and any(e["line"] > x.progress["requests"] and program_line(e["text"])
                                            for e in x.evidence)))]
            if served:
                return served[-1]
            # (or the report's words above the log, a run of their own, that state the failure which came after the
            # log's end: "llama-server を起動して最初のリクエストを投げるとセグメンテーション違反で落ちます。ログは以下です。" over
            # a start-up that reached serving and answered nothing; the log stops before that request)
            said = [x for x in earlier if x.kind not in ("NONE", "UNDETERMINED") and x.evidence
                    and not any(STRONG_PREFIX.match(e["text"]) or program_line(e["text"]) for e in x.evidence)]
            if said and "requests" not in r.progress:
                return said[-1]
            # (a GPU the engine refused earlier, on which this run served with none: the refusal is why, Ollama's
            # "amdgpu is not supported" at its start, then each model it loads on the CPU)
            # (also where the later run shows no GPU in use at all: the runner Ollama starts for a request, a run of
            # its own, after the server's start that refused the GPU: "CUDA GPU is too old", then cpu_avx2)
            refused = [x for x in earlier if x.code == "gpu-unsupported"]
            if refused and (r.code == "no-gpu-offload" or not _used_a_gpu(r)):
                return refused[-1]
            # (nor a runner Ollama starts again on the CPU alone after the GPU's ran out of memory loading: its own
            # fallback, "llama runner exited with error" then a runner with no layer offloaded; the GPU's failure is
            # the user's problem)
            fell_back = [x for x in earlier if x.kind in ("WEIGHTS", "KV_CAPACITY", "WARMUP") and _used_a_gpu(x)]
            return fell_back[-1] if fell_back and r.engine == "ollama" and not _used_a_gpu(r) else r
    return reports[-1] if reports else None


#: figures that show a run put something on a GPU (llama.cpp's layers offloaded and device buffers, Ollama's layout)
_ON_A_GPU = ("layers_offloaded", "repeating_layers_offloaded", "gpu_model_buffer_bytes", "gpu_kv_buffer_bytes",
             "gpu_compute_buffer_bytes")


def _used_a_gpu(r: RunReport) -> bool:
    """Run `r`'s figures show something placed on a GPU (`_ON_A_GPU`, a positive value)."""
    for key in _ON_A_GPU:
        v = r.numbers.get(key)
        values = v if isinstance(v, list) else [v]
        if any(isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0 for x in values):
            return True
    return False


def _choose(chosen: list[RunReport | None]) -> RunReport | None:
    """Of the runs that decide each program's lines (one per program; one in all for a log of one program), the one
    that decides the log: a failure before no failure; a program's before the untagged lines' (the report's words
    above the log, which may be about any of them: they decide only where no program shows a failure); out of memory
    before another failure; then the latest."""
    found = [r for r in chosen if r is not None]
    return max(found, key=lambda r: (r.kind != "NONE", bool(r.program), r.kind in OOM_KINDS, r.last_line),
               default=None)


def _scan(source: Source) -> list[tuple[str, list[RunFacts]]]:
    """The runs of `source`, per program where its lines are several programs' taken in turn (`streams`): (the
    program's tag, its runs) in the order the programs first show; otherwise one ("", runs)."""
    if isinstance(source, Blocks):
        it = iter(source)
        first = next(it, b"")
        sample = [clean(x) for x in first.split(b"\n", streams.SAMPLE_LINES)[:streams.SAMPLE_LINES]]
        rest = chain([first], it)
        bar = streams.interleaved(sample)
        if bar is None:
            runs = scan_blocks(rest)
            if source.broken and runs and runs[-1].tail:
                runs[-1].tail_cut = True  # (the data broke off: its last line is no end the server wrote)
            return [("", runs)]
        lines = lines_of(rest)
    else:
        bar, lines = streams.peek(source)
        if bar is None:
            return [("", scan(lines))]
    demux = streams.Demux(lambda name: LineScan())
    for name, line_no, text in streams.split(lines, bar):
        demux.feed(name, line_no, text)
    return [(name, ls.finish()) for name, ls in demux.consumers.items()] or [("", [])]


#: the time a collector puts before each line (kubectl --timestamps, docker logs -t): one paste of the output may have
#: it and the other not
_ISO_STAMP = re.compile(r"^\s*\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+")
#: the least length of a line two runs must both hold, word for word, to be one output pasted twice (a time and a
#: process's tag in it make it that moment's)
_SAME_LINE_CHARS = 40


def _pasted_again(runs: list[RunFacts]) -> frozenset[int]:
    """The indices of runs that hold a line of a program's, word for word, that an earlier run holds too (a line with
    a time or a process's tag, `_SAME_LINE_CHARS` or longer: the same output pasted again, not another start)."""
    seen: set[str] = set()
    out = set()
    for i, r in enumerate(runs):
        lines = {_ISO_STAMP.sub("", t).strip() for t in r.progress_text.values()}
        lines |= {_ISO_STAMP.sub("", t).strip() for f in r.failures
                  for t in [f.text, *(x for _, x in f.before), *(x for _, x in f.after)]}
        lines = {t for t in lines if len(t) >= _SAME_LINE_CHARS and STRONG_PREFIX.match(t)}
        if lines & seen:
            out.add(i)
        seen |= lines
    return frozenset(out)


Source = Union[Blocks, Iterable[tuple[int, str]]]


def diagnose(source: Source, *, engine: str | None = None, model_check=None,
             weights_bytes: int | None = None, heads: tuple[int, tuple[int, ...]] | None = None) -> LogReport:
    """Diagnose every run in `source` (a `reader.Blocks`, or (line number, text) pairs). engine: force an
    engine (its canonical name) instead of detecting it. model_check: optional callable(numbers, derived,
    engine) -> list of notes (see `logs.check`). weights_bytes: the model's weights in all (from `--model`'s
    estimate), held per GPU against the memory an out-of-memory error says was in use, and the size advice gives
    GPUs and offload from. heads: the model's attention heads and its KV heads per layer kind (the tensor-parallel
    sizes it allows)."""
    groups = _scan(source)
    flip = 0  # the log's last line number, where it was written newest first and is read from its end
    if len(groups) == 1 and groups[0][1] and groups[0][1][0].newest_first:
        head = groups[0][1][0].newest_first
        flip = head[-1][0]
        groups = [("", scan([(flip + 1 - ln, text) for ln, text in reversed(head)]))]
    notes: list[str] = []
    named = [n for n, _ in groups if n]
    if named:
        notes.append(f"the log interleaves {len(named)} programs' lines ({', '.join(named)}: docker "
                     "compose services or pods, by the tag before each line): each was read as a log of its own, and "
                     "one's start-up or serving clears nothing of another's failure.")
    if flip:
        notes.append("the log is written newest first (its times step back and never on, as a web console or a log "
                     "explorer lists it): it was read from its last line up; the line numbers are the file's.")
    runs: list[RunFacts] = []
    spans: list[tuple[str, int, int, bool]] = []  # each program's runs: its name, first index, end, shuffled
    for name, group in groups:
        group, more = _attach_orphans(group)
        notes += more
        if group and group[0].dropped_after:
            count, span = group[0].dropped_after
            notes.append(f"{count:,} runs (lines {span[0]:,}-{span[1]:,}) were left out: the server restarted over "
                         "and over; the first and the latest runs are shown." if span else f"{count:,} runs were left out.")
        shuffled = bool(group and group[0].out_of_order)
        if shuffled:
            notes.append(f"the log's times step back {group[0].out_of_order} times: its lines are out of order (a "
                         "shuffled, reversed or reassembled paste), so its runs are pieces of it and the steps before a "
                         "failure may not be its own; paste the log in the order it was written (or sort it by time).")
        spans.append((name, len(runs), len(runs) + len(group), shuffled))
        runs += group
    hits: dict[str, int] = {}
    for r in runs:
        for k, v in r.engine_hits.items():
            hits[k] = hits.get(k, 0) + v
    detected = detect_engine(hits)
    overall = engine or detected
    if engine and detected not in ("unknown", engine):
        notes.append(f"--engine {engine} was given, but the log reads like {detected}: the advice uses {engine}'s flags.")
    if detected == "unknown" and not engine:
        notes.append("No inference engine was recognised in this text: is it a server log? The generic PyTorch and "
                     "CUDA rules were applied, and advice is given in plain words.")
    reports = []
    for i, r in enumerate(runs):
        eng = engine or (detect_engine(r.engine_hits) if r.engine_hits else overall)
        if eng == "unknown":
            eng = overall
        _own_figures(r, eng)
        tp = r.numbers.get("tensor_parallel_size")
        per_gpu = weights_bytes // tp if weights_bytes and isinstance(tp, int) and tp > 1 else weights_bytes
        d = diagnose_run(r, eng, per_gpu)
        numbers = _flatten(r.numbers)
        block_tokens = next((e.kv_block_tokens for e in all_engines() if e.name == eng), None)
        derived = derive(numbers, d.kind, block_tokens)
        figures = {**numbers, **derived, "_progress": tuple(r.progress)}
        if weights_bytes:
            figures["_model_weights_bytes"] = weights_bytes
        if heads:
            figures["_model_heads"] = heads
        back = (lambda ln: flip + 1 - ln) if flip else (lambda ln: ln)  # (a line number in the file)
        reports.append(RunReport(
            index=i, program=next((n for n, a, b, _ in spans if a <= i < b), ""), first_line=back(r.last_line if flip else r.first_line),
            last_line=back(r.first_line if flip else r.last_line), engine=eng, kind=d.kind, code=d.code,
            message=d.message, inferred=d.inferred, phase_source=d.phase_source,
            evidence=[{"line": back(ln), "text": t} for ln, t in d.evidence],
            numbers={k: v for k, v in numbers.items() if not k.startswith("_")}, derived=derived,
            advice=advise(d.kind, eng, figures, d.code, d.candidates), oom=d.oom, candidates=d.candidates,
            missing=d.missing, progress=dict(r.progress),
            told=sorted(r.told),
            model_check=model_check(numbers, derived, eng) if model_check else [],
        ))
    chosen = _choose([decide(reports[a:b], shuffled, frozenset(a + i for i in _pasted_again(runs[a:b])))
                      for _, a, b, shuffled in spans])
    total = flip or max((r.last_line for r in runs), default=0)
    diagnosis = ({"kind": chosen.kind, "code": chosen.code, "run": chosen.index + 1} if chosen
                 else {"kind": "NONE", "code": "empty", "run": 0})
    return LogReport(engine=overall, runs=reports, lines=total, notes=notes, diagnosis=diagnosis)


__all__ = ["KINDS", "OOM_KINDS", "LogReport", "RunReport", "decide", "derive", "diagnose"]
