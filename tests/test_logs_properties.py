"""Properties that hold on every log we have (the shared cases, our own wordings, the fault-kind texts):
no out-of-memory kind without memory evidence; every advice step moves its setting the way the diagnosis
needs, from the value the log shows, and never proposes what is in use; the block prefilter gives the same
report as reading every line; every engine's words can be prefiltered."""

from __future__ import annotations

import re
import textwrap

import pytest

import test_logs_faults as faults
import test_logs_heldout20 as heldout20
from conftest import DATA
from vramdoctor.engines import all_engines, get
from vramdoctor.engines.interface import SETTINGS
from vramdoctor.errors import UsageError
from vramdoctor.logs import KINDS, diagnose
from vramdoctor.engines.words import lazy
from vramdoctor.logs.lines import ended
from vramdoctor.logs.prefilter import Words, alternatives, hyperscan, necessary, prefix, required
from vramdoctor.logs.reader import read_blocks, read_lines
from vramdoctor.logs.scan import numbered

OOM_KINDS = ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME")
FILES = sorted((DATA / "logs").glob("*.log")) + sorted((DATA / "logs_own").glob("*.log"))


def _texts() -> dict[str, str]:
    out = {p.name: p.read_text(errors="replace") for p in FILES}
    for group in ("NO_OOM_WORDS", "STATED_NOT_MEMORY", "SERVING_OOM", "FLAT"):
        for name, value in getattr(faults, group).items():
            out[f"{group}:{name}"] = value[1] if isinstance(value, tuple) else value
    for name, *_, text in faults.ENGINE_WORDS:
        out[f"ENGINE_WORDS:{name}"] = text
    out["ADVISORY"], out["GRAPHS_078"] = faults.ADVISORY, faults.GRAPHS_078
    for group in ("SETTINGS_SHOWN", "STEP_UNDER_WAY"):  # (text, what it shows)
        for name, (text, _) in getattr(faults, group).items():
            out[f"{group}:{name}"] = text.replace(faults.BLANK, "")
    for group in ("SNAPSHOTS", "STUB_AT_END", "DEAD_ENGINE", "COMPOSE_TRACEBACKS", "SERVING_SHOWN", "GDB_BACKTRACES",
                  "THREAD_FAILED", "TRIED", "KOBOLD", "SAMPLER_SHOWN", "PAGED", "FA_BY_WORDING"):  # (held-out round 20)
        for name, value in getattr(heldout20, group).items():
            out[f"{group}:{name}"] = value[0] if isinstance(value, tuple) else value
    return {k: textwrap.dedent(v).strip("\n") + "\n" for k, v in out.items()}


TEXTS = _texts()
REPORTS = {name: diagnose(numbered(text.splitlines())) for name, text in TEXTS.items()}

# memory evidence, as broad as a reader would take it: out-of-memory words, or figures of a shortfall
EVIDENCE = re.compile(
    r"out of memory|outofmemory|\boom\b|insufficient|not enough memory|failed to allocate|unable to allocate|"
    r"no available memory|kv cache is needed|stored in kv cache|kv cache can hold|no free blocks|no enough|"
    r"max_block_count = 0|blocks: 0\b|cudamalloc failed|memory allocation|^\s*killed\s*$|layers\.offload=\d|"
    r"offloaded \d+/\d+ layers|per request: 0\.\d+x|profiled value -|cache pool is full|preempted by|"
    r"failed to find free space|kv cache is full|exceeds the available context|could not be created|"
    r"requires more system memory|memory slot|cuda out of\b|max batch total tokens|command buffer \d+ failed with status 5", re.I)


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_no_memory_evidence_no_memory_kind(name):
    lines = TEXTS[name].splitlines()
    for run in REPORTS[name].runs:
        text = "\n".join(lines[run.first_line - 1:run.last_line])
        if not any(EVIDENCE.search(line) for line in text.splitlines()):
            assert run.kind not in OOM_KINDS, (run.index, run.kind, run.code)
            assert run.oom is not True
        assert run.kind in KINDS


_UP = {"KV_CAPACITY"}
_UP_CODES = {"temporary-buffer-exceeds-memory", "kv-pool-full-retracting", "kv-pool-full-preempting",
             "kv-pool-full-queueing", "kv-blocks-exhausted", "kv-cache-entries-exhausted", "request-slots-exhausted"}
_DOWN_CODES = {"kv-cache-alloc-failed", "gpu-shared-with-other-process"}
_8BIT = re.compile(r"fp8|int8|int4|q8|q4|q5|e4m3|e5m2", re.I)
_LOW_BIT = re.compile(r"awq|gptq|int4|4bit|nf4|w4a16|\bq[234]_|iq[1-4]|mxfp4", re.I)


# settings as a reader would find them in a pasted command line or config, by setting (one value in the text: the
# current value a step on that setting must move from)
SHOWN = {
    "memory_fraction": re.compile(r"(?:--gpu-memory-utilization|--mem-fraction-static|--cache-max-entry-count|"
                                  r"--kv_cache_free_gpu_memory_fraction|cache_max_entry_count\s*=|"
                                  r"^\s+free_gpu_memory_fraction:)\s*(\d*\.?\d+)", re.M),
    "cuda_graphs": re.compile(r"(?:--cuda-graph-max-bs|cuda_graph_max_batch_size:|"
                              r"cuda_graph_config:\s*\n(?:\s+\w+: .*\n)*?\s+max_batch_size:)\s*(\d+)"),
    "max_num_batched_tokens": re.compile(r"(?:--max-num-batched-tokens|--max_num_tokens|--max-prefill-token-num)"
                                         r"[ =](\d+)"),
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_a_setting_the_log_shows_is_the_value_advice_moves_from(name):
    for setting, pattern in SHOWN.items():
        values = {float(v) for v in pattern.findall(TEXTS[name])}
        if len(values) != 1:
            continue
        (shown,) = values
        for run in REPORTS[name].runs:
            for a in run.advice:
                if a["setting"] == setting and a["direction"] in ("up", "down"):
                    assert a["current"] == shown, (setting, shown, a)


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_every_advice_step_moves_the_right_way_from_what_is_in_use(name):
    for run in REPORTS[name].runs:
        n = run.numbers
        for a in run.advice:
            assert a["setting"] in SETTINGS or a["setting"] is None, a
            value, cur, direction = a["value"], a["current"], a["direction"]
            if value is not None and cur is not None and isinstance(value, (int, float)):
                assert value != cur, (run.code, a)
                if direction == "down":
                    assert value < cur, (run.code, a)
                if direction == "up":
                    assert value > cur, (run.code, a)
            if a["setting"] == "memory_fraction":
                assert value is None or 0 < value <= 1, ("a fraction no engine takes", a)
                shown = _fraction_shown(run)
                if shown is not None:  # the fraction the log shows is the one the step moves from
                    assert cur == shown, ("the fraction in use not read", shown, a)
                if run.code in _DOWN_CODES or run.kind in ("WARMUP", "RUNTIME") and run.code not in _UP_CODES:
                    assert direction == "down", (run.kind, run.code, a)
                elif run.kind in _UP or run.code in _UP_CODES:
                    assert direction == "up", (run.kind, run.code, a)
                if cur is None and not n.get("args_listing"):
                    assert value is None, ("a fraction made up from a default", a)
            if a["setting"] == "kv_cache_dtype":
                assert not _8BIT.search(str(n.get("kv_cache_dtype") or "")), a
            if a["setting"] == "quantization":
                assert not _LOW_BIT.search(str(n.get("model_name") or "") + str(n.get("quantization") or "") +
                                           str(n.get("file_type") or "")), a
            if a["setting"] == "kv_offload":
                assert not (n.get("host_kv_buffer_bytes") and not n.get("gpu_kv_buffer_bytes")), a
            if run.kind in ("WEIGHTS",):
                assert a["setting"] != "max_model_len", ("a shorter context never helps the weights", a)


def _fraction_shown(run) -> float | None:
    """The memory fraction the log printed, in the run's engine's own setting (None: not shown)."""
    try:
        key = get(run.engine).fraction_key
    except UsageError:
        return None
    v = run.numbers.get(key) if key else None
    v = v[-1] if isinstance(v, list) and v else v
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= 1 else None


#: the block searches this machine has (Hyperscan where its package is installed; the automaton everywhere)
BACKENDS = ["ahocorasick"] + (["hyperscan"] if hyperscan is not None else [])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_block_prefilter_reports_what_every_line_reports(path, backend, monkeypatch):
    monkeypatch.setattr(Words, "backend", backend)
    by_lines = diagnose(read_lines(str(path)))
    by_blocks = diagnose(read_blocks(str(path)))
    assert by_lines.to_dict() == by_blocks.to_dict()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_block_search_finds_every_line_holding_a_word(backend, monkeypatch):
    """Each backend finds a hit in every line that holds a word (in any case, at the block's edges, a CJK word),
    in order, and none in a line that holds none; a search that stops early has paid for no more."""
    monkeypatch.setattr(Words, "backend", backend)
    w = Words(["out of memory", "oom", "显存"])
    block = ("CUDA OUT OF MEMORY here\nnothing\nan oom and an Out Of Memory\n"
             "plain\n显存不足\nroom\nOOM").encode() + b"\n"
    low = Words.prepare(block)
    lines = {block.count(b"\n", 0, h) for h in w.hits(low, 0, len(low))}
    assert lines == {0, 2, 4, 5, 6}  # ("room" holds "oom")
    hits = list(w.hits(low, 0, len(low)))
    assert hits == sorted(hits)
    later = block.index(b"plain")
    assert {block.count(b"\n", 0, h) for h in w.hits(low, later, len(low))} == {4, 5, 6}
    assert list(w.hits(low, 0, block.index(b"\n"))) and not list(w.hits(low, block.index(b"nothing"),
                                                                            block.index(b"an oom")))
    assert list(Words([]).hits(low, 0, len(low))) == []


def test_small_blocks_split_lines_anywhere(tmp_path):
    """Blocks that end mid-line (a few bytes each) give the same report."""
    for path in FILES[:12]:
        whole = diagnose(read_blocks(str(path))).to_dict()
        assert diagnose(read_blocks(str(path), block=7)).to_dict() == whole, path.name


def test_every_engine_pattern_can_be_prefiltered():
    """The block scanner finds a line only by the words its patterns need: a pattern without such words
    (in a new engine file, say) would never be seen past the first lines."""
    for e in all_engines():
        patterns = list(e.log.run_start) + [m.pattern for m in e.log.messages] + \
            [p for _, p in e.log.milestones] + [f.pattern for f in e.log.figures if not f.passive]
        for p in patterns:
            assert required(p), (e.name, p.pattern)
        assert set(e.flags) <= set(SETTINGS), (e.name, set(e.flags) - set(SETTINGS))
        assert e.log.fingerprint is not None or e.name in ("generic",), e.name


def test_every_engine_pattern_compiles():
    """Patterns are compiled on first use (`engines.words.lazy`), and start-up reads their words without compiling
    them: one that does not compile (a variable-width look-behind) would fail only on the first line holding its
    words. Each is compiled here."""
    for e in all_engines():
        log = e.log
        patterns = [*log.run_start, *(m.pattern for m in log.messages), *(p for _, p in log.milestones),
                    *(f.pattern for f in log.figures), *log.frames.values(), *(s.pattern for s in log.step_codes),
                    *(p for p in (log.fingerprint, log.loader, log.chat) if p is not None)]
        for p in patterns:
            p.search("")  # (compiles it: re.error if it cannot be)


def test_a_long_alternation_split_into_its_alternatives_matches_the_same_lines():
    """The scanner tries a long alternation (a user's wordings for requests) one alternative at a time, each behind
    its own words: every line of every log here matches some piece exactly where it matches the whole."""
    split = [(p, alternatives(p)) for e in all_engines() for _, p in e.log.milestones]
    split = [(p, pieces) for p, pieces in split if len(pieces) > 1]
    assert split  # (the requests wordings are long enough to be split; otherwise this test checks nothing)
    lines = [line for t in TEXTS.values() for line in t.splitlines()]
    for whole, pieces in split:
        for line in lines:
            assert bool(whole.search(line)) == any(p.search(line) for p in pieces), (whole.pattern[:60], line)


@pytest.mark.parametrize("text,pieces", [
    (r"a\|bcd|e[|)]fg|(?:h|i)jk|(?<!x\))lm|[]|]no|[^]|]pq", [r"a\|bcd", r"e[|)]fg", r"(?:h|i)jk", r"(?<!x\))lm",
                                                           r"[]|]no", r"[^]|]pq"]),
    (r"(?:ab|cd)ef", [r"(?:ab|cd)ef"]),  # no alternation at the top: one piece
    (r"(a)x|\1y", [r"(a)x|\1y"]),  # a backreference cannot stand alone: kept whole
])
def test_alternatives_split_only_at_the_top_level(text, pieces):
    assert [p.pattern for p in alternatives(re.compile(text), min_chars=0)] == pieces


def test_reading_a_patterns_words_compiles_none_of_them():
    """Start-up reads the words of every engine pattern (most of which a log never gets to): a pattern compiled on
    first use stays uncompiled through `required`, `prefix`, `necessary` and `alternatives` (2,000 of them compiled
    at start cost a third of a second on every run); the pieces `alternatives` gives are compiled on first use too."""
    long = "|".join(f"{chr(97 + i % 26)}word{i} (?:alpha|beta) gamma" for i in range(200))
    for p in (lazy(r"CUDA out of memory\. Tried to allocate ([\d.]+) (GiB|MiB)"), lazy(long, 0)):
        assert required(p) and (prefix(p) or True) and necessary(p) is not None
        pieces = alternatives(p)
        assert "search" not in vars(p), p.pattern[:40]
        assert all("search" not in vars(q) for q in pieces if q is not p)
    pieces = alternatives(lazy(long, 0))
    assert len(pieces) == 200 and pieces[3].search("a dword3 beta gamma") and not pieces[3].search("dword3 delta gamma")


@pytest.mark.parametrize("text", ["done.", "done. ", "done.\n", "(x)", "50%", "'a'", "\"a\"", "ok:", "key: [1]", "",
                                  "   ", "no end", "ends in space ", "ends!\t\u3000", "why?", "a\u00a0", "stop.\x0c"])
def test_ended_reads_a_lines_last_character_as_the_pattern_did(text):
    """`lines.ended` (a string check, run on every line an engine's words were found in) says what the regex it
    replaced, `[.!?)\\]'\":%]\\s*$`, said."""
    assert ended(text) == bool(re.search(r"[.!?)\]'\":%]\s*$", text)), repr(text)


def _hard_wrap(text: str, width: int) -> str:
    """`fold -w width`: every line cut into pieces exactly `width` characters wide (a console copied as text)."""
    out = []
    for line in text.splitlines():
        out += [line[i:i + width] for i in range(0, len(line), width)] or [""]
    return "\n".join(out) + "\n"


WRAPPED = [(n, t) for n, t in TEXTS.items()
           if sum(len(line) > 100 for line in t.splitlines()) >= 3 and not n.startswith("FLAT")]


@pytest.mark.parametrize("name,width", [(n, w) for n, t in WRAPPED for w in (80, 120)
                                        if sum(len(line) > w for line in t.splitlines()) >= 3])
def test_a_log_hard_wrapped_at_a_console_width_reads_the_same(tmp_path, name, width):
    """At least three lines wrapped (fewer cannot be told from lines of equal length by chance)."""
    text = TEXTS[name]
    path = tmp_path / "wrapped.log"
    path.write_text(_hard_wrap(text, width))
    whole = REPORTS[name].diagnosis
    wrapped = diagnose(read_blocks(str(path)))
    assert (wrapped.diagnosis["kind"], wrapped.diagnosis["code"]) == (whole["kind"], whole["code"]), name


_PLACEHOLDER = re.compile(r"(?<![\w-])[NXVM](?![\w-])")
_WORDS_IN_FLAGS = re.compile(r"value than now|\ba (?:lower|higher) value\b")


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_a_flag_whose_value_the_log_does_not_show_has_a_placeholder(name):
    """Flags can be pasted: where neither the value to set nor the one in use is shown, the flag holds a placeholder
    (`--max-num-batched-tokens N`) and `why` says which way it goes from the user's value."""
    for run in REPORTS[name].runs:
        for a in run.advice:
            assert not _WORDS_IN_FLAGS.search(a["flags"]), a
            if a["value"] is None and a["current"] is None and a["direction"] in ("up", "down") \
                    and _PLACEHOLDER.search(a["flags"]):
                way = "below" if a["direction"] == "down" else "above"
                assert f"{way} your current value" in a["why"], a


# the lines a serving log prints per request or per second: once the server is serving, the block search must not
# stop on them (a word every such line holds, "server" in "APIServer", "serve", "info", "engine", made the scan read
# every line: 250x slower than grep). The statistics lines that carry figures (kv usage, running requests) are read.
PER_REQUEST = [
    '(APIServer pid=1) INFO:     127.0.0.1:40034 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    'INFO:     10.0.0.5:51234 - "GET /health HTTP/1.1" 200 OK',
    'INFO:     10.0.0.5:51234 - "GET /metrics HTTP/1.1" 200 OK',
    '[2025-03-01 10:00:00] INFO:     127.0.0.1:33322 - "POST /generate HTTP/1.1" 200 OK',
    "INFO 09-01 13:01:48 [async_llm.py:200] Added request chatcmpl-abc123.",
    "INFO 09-01 13:01:49 [async_llm.py:300] Finished request chatcmpl-abc123.",
    "srv  log_server_r: request: POST /completion 127.0.0.1 200",
    "slot launch_slot_: id  0 | task 1234 | processing task",
    "slot      release: id  0 | task 1234 | stop processing: n_past = 700, truncated = 0",
    "srv  update_slots: all slots are idle",
    "2024-06-01T10:00:00.123456Z  INFO generate_stream{parameters=GenerateParameters { best_of: None }}: "
    "text_generation_router::server: router/src/server.rs:500: Success",
]


@pytest.mark.parametrize("line", PER_REQUEST)
def test_a_serving_logs_per_request_lines_are_skipped_by_the_block_search(line):
    from vramdoctor.logs.blocks import _Search
    from vramdoctor.logs.knowledge import knowledge
    k = knowledge()
    words = _Search(k).words({"start", "weights_done", "kv_sized", "kv_done", "warmup_done", "ready", "requests"})
    hits = [words.words[i] for i in words.ids(line.lower().encode())]
    assert not hits, hits
