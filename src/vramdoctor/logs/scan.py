"""A streaming pass over log lines: splits server starts into runs and gathers, per run, the facts a
diagnosis needs: milestones passed (and where), failure lines with the lines around them, pressure
warnings, lines that say an excerpt left something out, and figures.

Memory is bounded whatever the log's length: a fixed window of recent lines, capped lists of
failures and warnings, and figures kept as latest values or capped series. `Scanner.feed` takes one
line; `blocks.scan_blocks` feeds it only the lines that can matter.
"""

from __future__ import annotations

import copy

import re
from collections import deque
from typing import Callable, Iterable, Iterator

from ..engines.words import _WORKED as _WORKED_WORDS, FUNCTION_TAG, TRIED, pasted_source
from .facts import COMPLAINTS, NAMED_HIT, PROSE_HIT, RELAYED, Failure, RunFacts, unset
from .knowledge import (CLIENT_CALL, COMMAND, ELISION, FRAME, GDB_CHATTER, PY_FRAME, Knowledge, by_identity,
                        exception_not_memory, is_echo, knowledge)
from .lines import (
    CUT_LOOKBACK,
    ECHO_CLOSED,
    ECHO_END,
    ECHO_LINES,
    ended,
    LOG_PREFIX,
    MAX_LINE,
    RAISED,
    STRONG_PREFIX,
    TB_HEADER,
    WRAP_LINES,
    cut_error,
    in_warning_body,
    error_level,
    pieces,
    prompt_closes,
    stated,
    tail_cut,
    unbox,
    window,
)
from . import processes
from .reader import unpaint
from .authorship import ASKING_TITLE, HEADING, RESULTS_HEADING, INTRO, TITLE, cjk_words, persons_line, program_line, prose_like, sentence_like, told_in_a_sentence, user_words
from .phase import FAILED_REQUEST, told_start
from .prose import could_be_at, denied_at, elsewhen, possible_only
from .table import header_column, row_value

WINDOW = 80  # lines kept before a failure: the traceback that leads to it (IPython's source context not counted)
_IGNORED_SPAN = 60  # lines under Python's "Exception ignored in: ..." within which its traceback ends
WINDOW_MAX = 4 * WINDOW  # lines kept before a failure at most, with IPython's source context
#: a line of source IPython and Jupyter print under each frame of a traceback (ultratb: "    113 @functools.wraps(func)",
#: "--> 116     return func(*args, **kwargs)", and "   (...)" where it skips some): five to eleven a frame, which would
#: push the outer frames (a `generate` that places the failure) out of the window
_IPY_CONTEXT = re.compile(r"^(?:-*>|\s)\s*\d+\s|^\s{2,}\(\.\.\.\)\s*$")
#: ... one that raises: the source of the raise, whose exception (named there, "raise TypeError(") is printed below
_IPY_RAISE = re.compile(r"^(?:-*>|\s)\s*\d+\s+raise\s")


#: IPython's and Jupyter's header of a traceback, the exception's class first ("OutOfMemoryError
#: Traceback (most recent call last)"): its frames follow, each with source context, and the exception's own line last
_IPY_HEADER = re.compile(r"^\s*((?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Interrupt|Exit))\s{2,}Traceback \(most recent call last\)")


def before_window(lines: Iterable[tuple[int, str]]) -> list[tuple[int, str]]:
    """The last WINDOW of `lines` (numbered, oldest first), IPython's source context lines not counted, nor the code
    line under a Python frame and its carets, and at most WINDOW_MAX in all: the lines kept before a failure, the same
    by both reading paths. (A traceback of sixty frames, accelerate's wrappers nested once per round of a training
    loop, keeps its outer frames, `training_step`, that place it.)"""
    out = list(lines)[-WINDOW_MAX:]
    counted, i = 0, len(out)
    frames = True  # still inside the traceback that ends at the failure (its frames and their code lines)
    while i > 0 and counted < WINDOW:
        i -= 1
        text = out[i][1]
        ipython = _IPY_CONTEXT.match(text)
        # (a code line under a frame, its carets, or the blank line IPython leaves between its frames)
        code = frames and (_PY_CODE.match(text) and (_CARETS.match(text) or i > 0 and _PY_FILE.search(out[i - 1][1]))
                           or not text.strip())
        frames = bool(code or ipython or frames and PY_FRAME.search(text))
        counted += not (ipython or code)
    return out[i:]


#: a Python traceback's code line under its frame, indented ("    return forward_call(*args, **kwargs)"), and the
#: carets under it (Python 3.11+: "           ^^^^^^^^^^^^^^^^^^^^")
_PY_CODE = re.compile(r"^\s{4,}\S")
_CARETS = re.compile(r"^\s+[\^~]+\s*$")
_PY_FILE = re.compile(r'^\s*File "[^"]+", line \d+, in ')
#: a logged request's prompt (vLLM's "Received request chat-3f2c: prompt: '...', params: ..."): the user's text, left
#: out where the line is quoted as the request that shows the server serving
_ELIDED_PROMPT = re.compile(r"(\bprompt: )(['\x22])(?:.*?\2(?=, (?:params|sampling_params|prompt_token_ids)\b)|.*$)")
#: lines a command line read after a failed run may come before the start line of the run it begins
RESTART_GAP = 8
#: command lines (a command continued over lines) held for the run they begin
MAX_DEFERRED = 64
#: lines of one shape of periodic statistics (an engine's throughput and KV usage line every few seconds) read whole in
#: a run; past them, each further doubling of their count is read at half the rate before (the series keep their
#: shape, and the latest line is always read: `Scanner._sampled_out`)
SERIES_WHOLE = 256
MAX_SERIES_SHAPES = 256  # shapes of candidate figures remembered (`_sampled_out`)
AFTER = 12  # lines kept after a failure: C++ backtraces and follow-up messages
AFTER_TRACEBACK = 400  # ... and while a Python traceback that began in them goes on: its frames, up to this many lines
MAX_FAILURES = 8
REPLAY_LINES = 200  # lines of a child's output a launcher replays (`LogWords.replay_begins`) at most
JOIN_FRAME = 5  # lines from a failure's last line within which a Python frame continues its traceback
#: a metric's description or type line in Prometheus's text exposition format
_METRIC_HELP = re.compile(r"^\s*# (?:HELP|TYPE) [a-zA-Z_:][\w:]* ")
#: the writer's note after a setting on its line (a shell's or a config's comment: '"--max-model-len", "16384",  #
#: Prefill out of memory above this')
_SETTING_NOTE = re.compile(r"(?<=\s)#\s|(?<=[,\x22'])\s*#\s")
MAX_NOTES = 16  # an engine's warnings it goes on from, kept per run
MAX_NOTE_CHARS = 500  # ... each up to this many characters
MAX_PRESSURE = 8
ENGINE_SAMPLE_LINES = 2000
#: llama.cpp's issue template's heading for the version it asks to paste ("### Name and Version": the output of
#: `llama-cli --version`, run bare its "error: --model is required"): the first block of lines under it (up to a
#: blank line) is no line of the failing run
#: (not the environment headings of other templates, "### System Info", "### Your current environment": reports
#: paste their logs there too)
_VERSION_SECTION = re.compile(r"^\s{0,3}#{1,6}\s+Name and Version\s*:?\s*$", re.I)
#: any markdown heading, whatever its first character (an emoji: "### 🐛 Describe the bug")
_ANY_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")
RUN_SAMPLE_LINES = 200  # fed lines of a later failing run tried against the engines' fingerprints
MAX_RUNS = 200  # runs kept whole: the first KEEP_FIRST_RUNS and the latest (a crash loop restarts thousands of times)
KEEP_FIRST_RUNS = 20
TAIL_LINES = 16  # the log's last lines kept with its last run: a step under way is looked for among them


_UNKNOWN = object()  # a verdict not yet read
#: a time of day near a line's start (vLLM's "08-12 10:01:05", SGLang's "[2025-06-01 10:00:00", ISO "T10:00:00")
_CLOCK = re.compile(r"(?<![\d:])([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?![\d:])")
#: a YAML key that opens a block (nothing after its colon), and a key with a value
_YAML_KEY = re.compile(r"^(\s*)([A-Za-z_][\w.-]*):\s*$")
_YAML_CHILD = re.compile(r"^(\s*)([A-Za-z_][\w-]*):\s+(\S.{0,200})$")
_TRIED = re.compile(TRIED, re.I)
#: a flag a user's sentence gives with an attempt that worked ("then with --max-model-len 16384 it works:", above the run
#: that did, "works fine with --max-num-seqs 256"): that run's setting, not the failing one's; a pasted command's flags
#: on such a line are all skipped
#: (nor a failure told between them: "hangs forever with -tp 4 (no error" is the failing setting)
_WORKS = (r"(?:works|worked|runs fine|ran fine|loads fine|loaded fine|starts fine|started fine|is fine|succeeds|succeeded|"
          r"no (?:problems?|issues?|errors?))\b")
_BETWEEN = r"(?:(?!hang|stuck|crash|fail|freez|froze|OOM|die)[^\n]){0,60}?\b(?:it |that |this )?"
_FLAG_SET = r"`?--?[a-z][\w-]*`?(?:\s*=\s*|\s+)`?\d+(?:\.\d+)?\b`?"
#: ... or the setting that fixed it ("--mem-fraction-static 0.7 fixed it")
_FIXED_BY = r"(?:(?!\bnot\b|n't\b)[^\n.;]){0,20}?\b(?:fixed|fixes|solved|solves|resolved|resolves)\b"
_WORKED_WITH = re.compile(r"\bwith\s+" + _FLAG_SET + _BETWEEN + _WORKS + r"|\b" + _WORKS + r"(?:\s+fine)?\s+with\s+" +
                          _FLAG_SET + r"|" + _FLAG_SET + _FIXED_BY, re.I)
#: ... and a setting by its name ("with N_CTX = 8192 it prints \"model ready\" and works", "works with n_ctx=8192"):
#: the figures inside those words only are skipped, the rest of the line is read (a bare name takes "=": "with GPU 0 it
#: works" names no setting)
_NAME_SET = r"`?[A-Za-z_]\w*`?\s*=\s*`?\d+(?:\.\d+)?\b`?"
_WORKED_WITH_NAME = re.compile(r"\bwith\s+(?:" + _FLAG_SET + "|" + _NAME_SET + ")" + _BETWEEN + _WORKS + r"|\b" + _WORKS +
                               r"(?:\s+fine)?\s+with\s+(?:" + _FLAG_SET + "|" + _NAME_SET + ")|(?:" + _FLAG_SET + "|"
                               + _NAME_SET + ")" + _FIXED_BY, re.I)
#: a user's line that says every (or each, all) way they tried failed, and lists them below it ("Every load path fails
#: with `...`:"), and the list's items: each `-flag value` in them (values after a "/" go with the flag before them) was
#: tried and failed, as TRIED's are
_FAILS_LIST = re.compile(r"\b(?:every|all|each|none of)\b[^.]*?\b(?:fail(?:s|ed)?|crash(?:es|ed)?|OOMs?|"
                         r"(?:does not|doesn'?t|did not|didn'?t) (?:work|help))\b[^\n]*:\s*$", re.I)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")
_LISTED = re.compile(r"`?(?<![\w-])(--?[a-z][\w-]*)`?(?:=|\s+)`?(\d+(?:\.\d+)?)\b`?((?:\s*/\s*`?\d+(?:\.\d+)?\b`?)*)",
                     re.I)
#: the most lines of a model's answer printed bare after the engine's line that begins it (`LogWords.answer_begins`)
ANSWER_LINES = 256
#: lines a client's call the report pastes may span (`curl` with its options and a JSON body, `Scanner._client_call`)
CALL_LINES = 64
#: a C function's tag at a line's start, as llama.cpp's lines carry it ("llama_perf_context_print: ...")
_FUNCTION_TAG = re.compile(FUNCTION_TAG + " ")
#: a line of a script the report pastes that prints a message (shell's echo/printf, Python's print, with its string
#: literal): its words are what the script would print, not what the server did
_SCRIPT_PRINT = re.compile(r"^\s*(?:(?:echo|printf)(?:\s+-[a-zA-Z]+)*\s+[\x22']|(?:print|console\.log|puts)\s*\(\s*f?[\x22'])")
#: a line that is only a value for the label on the line before it (": 18.00 GiB")
_VALUE_ONLY = re.compile(r"^\s*:\s*[-\d.,]+\s*[KMGT]i?B\s*$")
#: the value alone on its line under Rust's "key: Some(" (TGI's Args printed with {:#?}: "        30000,")
_SOME_VALUE = re.compile(r"^\s*[\w.\x22'-]+,?\s*$")
_TABLE_WORDS = ("rss", "res", "vram", "mem", "used")  # ("resident" holds "res")


def _table_word(lowered: str) -> bool:
    """The line holds a word a memory table's header has (a plain loop: this runs for every line read)."""
    for w in _TABLE_WORDS:
        if w in lowered:
            return True
    return False


def _step_key(step: str) -> tuple[float, ...]:
    """A row's step or time as numbers to compare ("09:30" -> (9, 30), "10" -> (10,))."""
    return tuple(float(x) for x in re.findall(r"\d+(?:\.\d+)?", step)) or (0.0,)


#: a line's "source: " prefix (llama.cpp's "ggml_vulkan: ", "load_tensors: ")
_SOURCE = re.compile(r"^\s*[A-Za-z_]\w*: ")
#: an exception's bare text, a call and its error code ("vk::Device::allocateMemory: ErrorOutOfDeviceMemory")
_DETAIL = re.compile(r"^\s*(?:\w+::)+\w+: \w+\s*$|^\s*Requested buffer size exceeds device [\w ]{1,40} limit: \w+\s*$")


def shown_progress(r: RunFacts) -> list[str]:
    """The milestones of run `r` a program's own line showed (not only the report's words: `RunFacts.told`)."""
    return [m for m in r.progress if m not in r.told]


def _sentence_of(text: str, at: int) -> str:
    """The sentence of `text` around character `at` (up to the stops around it; a stop between digits, "0.9", is none)."""
    stops = [m.end() for m in _STOP.finditer(text, 0, at)]
    end = _STOP.search(text, at)
    return text[stops[-1] if stops else 0:end.start() if end else len(text)]


#: a sentence's stop (not a decimal point)
_STOP = re.compile(r"[.!?](?!\d)(?:\s|$)|[。！？]")


class Scanner:
    """Feed (line_no, text) with `feed`, then `finish`: one RunFacts per server start.

    `before_source(line_no)`, when set, returns a function giving the lines before `line_no` (the block reader, which
    feeds only the lines that matter, recovers a failure's preceding traceback from its buffer);
    `wants_every_line_until` is the last line a pending failure still wants to see whole."""

    def __init__(self, k: Knowledge | None = None) -> None:
        self.k = k or knowledge()
        self.runs: list[RunFacts] = []
        self.run = RunFacts(first_line=1)
        self.asking = 0  # the line of a title that asks for something (`RunFacts.asking`), for every run after it
        self.recent: deque[tuple[int, str]] = deque(maxlen=WINDOW_MAX)
        self.pending: list[Failure] = []
        self.before_source: Callable[[int], Callable[[], list[tuple[int, str]]]] | None = None
        self.wants_every_line_until = 0
        # a line with an engine's words cut short by a wrap: (its line, the text so far, the last line joined,
        # lines joined)
        self.partial: tuple[int, str, int, int] | None = None
        self.echo_until = 0  # the last line a multi-line logged prompt may reach
        self.prompt_open = 0  # the line a multi-line logged prompt opened on, until its close is seen
        #: the run's figures as they were before the first figure read from that prompt's lines (None: none read)
        self.prompt_figures: tuple | None = None
        self.prompt_run: RunFacts | None = None  # the run that prompt opened in
        self.answer_from = 0  # the line of a question typed at an interactive prompt whose answer follows
        self.answer_fenced = False  # inside a code block the answer opened
        self.chat_fenced = False  # the chat session was pasted inside a fence of the report's (its next fence ends it)
        self.dropped = 0  # runs left out in the middle of a long crash loop
        self.dropped_lines: tuple[int, int] | None = None
        self._restart = {i for i, (marker, _) in enumerate(self.k.milestones) if marker == "weights_done"}
        self.table: tuple[int, str | None, str | None] | None = None  # a memory table: column, unit, last step
        # a process listing (ps, top): its header (None for `ps aux` rows without one), the snapshot being read and
        # the processes read in it
        self.listing: tuple[processes.Header | None, set[str]] | None = None
        self.snapshots = 0
        self.yaml_block: tuple[int, str] | None = None  # a YAML block pasted with the log: its key's indent, its key
        # times of day in the log's first lines: (seconds of the last, the earliest, the latest, steps back, seconds
        # gone back in all, the last line counted); a paste whose lines are out of order goes back again and again
        self.clock: tuple = (None, None, None, 0, 0, 0)
        self.head: list[tuple[int, str]] = []  # the log's first lines, whole (both paths read them all)
        self.shape_clock: dict[str, int] = {}  # the last time read after each prefix shape (see _tick)
        self.steps = [0, 0]  # times that step back, and on, against the last time after the same prefix shape
        self.failing_list = (0, 0)  # (the line that says the items below it all failed, the last line seen)
        self.note = (0, "")  # the last warning the engine goes on from: (its line, its "source: " prefix)
        self.aborted: tuple | None = None  # a client's close that no failed answer followed yet: (line, text, verdict)
        self.ignored = 0  # the line of Python's "Exception ignored in: ..." whose traceback is under way, else 0
        # command lines read after a run failed: (line, text, the forms it is read in) each, waiting for the run they
        # start
        self.deferred: list[tuple[int, str, list]] = []
        # under an issue template's version heading (see `_VERSION_SECTION`): 1 before its first line, 2 in its lines
        self.version_section = 0
        self.answer_text = 0  # the line after which the engine prints the model's answer bare (`LogWords.answer_begins`)
        # under a launcher's replay of a child's output (`LogWords.replay_begins`), up to the launcher's next line: no
        # run starts there
        # (the last line it may reach, else 0)
        self.replaying = 0
        # a client's call the report pastes (`curl ... \`): (its first line and that line's text, its last line so far,
        # whether it goes on to the next line, whether a single quote is open in it: `-d '{` ... `}'`)
        self.call: tuple[int, str, int, bool, bool] = (0, "", 0, False, False)
        # periodic statistics lines (`_sampled_out`): their shape (the figures they hold) -> (the run, lines of that
        # shape seen in it); the latest line of each shape not read yet, (run, line, text, texts)
        self.series_seen: dict[frozenset[int], tuple[RunFacts, int]] = {}
        self.series_held: dict[frozenset[int], tuple[RunFacts, int, str, list]] = {}
        # kept by the identity of a shape's candidates (`by_identity`): its figures' series shape (`_series_of`), its
        # milestones in order with their markers (`_milestones_of`)
        self._series_shape: dict[int, tuple] = {}
        self._ms_order: dict[int, tuple] = {}

    def _read_figures(self, r: RunFacts, line_no: int, text: str, texts: list) -> None:
        """The figures of one line (`texts`: the line, and the forms it is also read in) into run `r`; first those of
        the statistics lines held back before it (`_sampled_out`), so every series is read in the log's order."""
        if self.series_held and any(fig_c.get("fig") for _, _, fig_c in texts):
            self._read_held()
        self._read_now(r, line_no, text, texts)

    def _read_held(self) -> None:
        """Read the statistics lines held back (the latest of each shape), in the log's order."""
        held = sorted(self.series_held.values(), key=lambda h: h[1])
        self.series_held = {}
        for r, line_no, text, texts in held:
            self._read_now(r, line_no, text, texts)

    def _sampled_out(self, r: RunFacts, line_no: int, text: str, lowered: str, texts: list) -> bool:
        """True if this line's figures are left unread: a periodic statistics line (every figure it can hold is a
        series read from a program's line, `Knowledge.series_figures`; prose figures only where a program wrote the
        line, so they are not read from it) past the first SERIES_WHOLE of its shape in run `r`, and not one of the
        sample kept: between n = SERIES_WHOLE * 2**(j-1) and SERIES_WHOLE * 2**j lines of the shape, every (2**j + 1)-th
        (odd, so that two data-parallel engines' lines taking turns are both read).
        A line left out waits as its shape's latest (`series_held`): the next line of any other figures reads it
        first, a new run or the log's end reads it, and a later line of the same shape replaces it unread. A week of
        a server's stats lines (hundreds of thousands) is read as a few thousand; what the series are read for (the
        first and latest reading, rises over time, lengths alike across a line's figures) is kept."""
        if len(texts) != 1 or self.prompt_open or "with " in lowered:
            return False
        c = texts[0][2]
        ix = c.get("fig")
        if not ix:
            return False
        shape, with_prose = by_identity(self._series_shape, ix, self._series_of, MAX_SERIES_SHAPES)
        if shape is None:
            return False
        if with_prose and not (STRONG_PREFIX.match(text) and not TITLE.match(text)):
            return False  # (a person's words that may hold a figure of theirs: read as always)
        seen = self.series_seen.get(shape)
        n = seen[1] if seen is not None and seen[0] is r else 0
        self.series_seen[shape] = (r, n + 1)
        j = (n // SERIES_WHOLE).bit_length()
        if n % ((1 << j) + 1 if j else 1) == 0:  # (an odd step: lines of two engines taking turns are both sampled)
            self.series_held.pop(shape, None)  # (an older line of the shape, not in the sample: left out)
            return False
        self.series_held[shape] = (r, line_no, text, texts)
        return True

    def _series_of(self, ix: set[int]) -> tuple[frozenset[int] | None, bool]:
        """(the shape of a line whose figure candidates are `ix`, None where it is no statistics line's; whether it may
        hold a person's figure)"""
        series = ix & self.k.series_figures
        shape = frozenset(ix) if series and ix <= series | self.k.prose_figures else None
        return shape, len(series) < len(ix)

    def _read_now(self, r: RunFacts, line_no: int, text: str, texts: list) -> None:
        k = self.k
        figures, prefixes = k.figures, k.figure_prefix
        done: set[int] | None = set() if len(texts) > 1 else None  # (a figure read from one form is not read again)
        tried_here = None  # the line says a value was tried: its flags are not the settings in use
        written = None  # the line has a program's own prefix: a user's words are not read from it
        for fig_text, fig_low, fig_c in texts:
            ix = fig_c.get("fig")
            if not ix:
                continue
            ascii_text = fig_text.isascii()
            for i in sorted(ix) if len(ix) > 1 else ix:
                if done is not None and i in done:
                    continue
                f = figures[i]
                begin = 0
                words = prefixes[i]
                if words and ascii_text:  # begin where the word that starts every match is (str = bytes)
                    if len(words) == 1:
                        begin = fig_low.find(words[0])
                    else:
                        begin = min((x for x in map(fig_low.find, words) if x >= 0), default=-1)
                    if begin < 0:
                        continue  # (before the checks below, each a search of the whole line)
                if f.prose:
                    if self.answer_text and line_no > self.answer_text:
                        continue  # (the model's answer, not the report's words: "the waves crashed against the rocks")
                    if line_no == r.asking and f.key in COMPLAINTS:
                        continue  # (a title that asks for something: "Feature Request: ... when the KV cache fails")
                    if written is None:
                        written = bool(STRONG_PREFIX.match(text)) and not TITLE.match(text)  # (a "[Bug] ..." title)
                        # (or a Python exception's own line, "asyncio.exceptions.CancelledError"; or a line of a Python
                        # warning's message that goes on below its line: the library's words)
                        written = written or bool(RAISED.match(text)) or in_warning_body(
                            self._lines_before(line_no))
                    if written:
                        continue
                if f.command:
                    if not f.pattern.search(fig_text, begin):
                        continue  # (no flag of its own here: the line's words are not searched for an attempt)
                    if tried_here is None:
                        tried_here = bool(_TRIED.search(text) or _WORKED_WITH.search(text))
                    if tried_here:
                        continue
                read_text = fig_text
                if not f.prose and not f.command and "with " in fig_low:
                    # (a setting a sentence gives with an attempt that worked: not the failing run's; the words are
                    # blanked, in place, so the line's other figures are read where they stand)
                    read_text = _WORKED_WITH_NAME.sub(lambda m: " " * len(m.group(0)), fig_text)
                if self._figure(r, f, read_text, line_no, begin) and done is not None:
                    done.add(i)

    def _new_run(self, line_no: int) -> None:
        if self.series_held:
            self._read_held()
        self.series_seen = {}
        self.pending = []
        self.runs.append(self.run)
        if len(self.runs) > MAX_RUNS:  # a server restarting over and over: keep the first and the latest runs
            gone = self.runs.pop(KEEP_FIRST_RUNS)
            self.dropped += 1
            self.dropped_lines = (min(self.dropped_lines[0], gone.first_line) if self.dropped_lines else gone.first_line,
                                  gone.last_line)
        before = self.run
        self.run = RunFacts(first_line=line_no, asking=self.asking)
        self.recent.clear()
        if self.deferred:
            # the command line that started it, and its continued lines; or, further back than that, the failed run's
            # own (both reading paths: the block search may feed no line between them and this start)
            near = line_no - self.deferred[-1][0] <= RESTART_GAP
            for held in self.deferred:
                self._read_figures(self.run if near else before, *held)
            self.deferred = []

    def _is_new_start(self, text: str, start: bool, ms: tuple[int, ...]) -> bool:
        r = self.run
        # (not where only a person's words got it there: a report's text above its log, in any language, "...
        # 显存一直缓慢增长 ... 最后 OOM 退出", or its title, "[Bug]: about NCCL error：unhandled system error", is
        # about the run its log shows)
        # (or its line that introduces the paste below it: "OOM under 64 concurrency with 4k prompts:")
        said = lambda t: (user_words(t) or sentence_like(t)  # noqa: E731
                          or bool(TITLE.match(t) or HEADING.match(t) or INTRO.match(t)))
        if start:  # a start line after the run got anywhere (or failed) opens the next run
            return any(k in r.progress and not said(r.progress_text.get(k, ""))
                       for k in ("weights_done", "kv_sized", "kv_done", "warmup_done", "ready", "requests")) or any(
                not said(f.text) for f in r.failures)
        # the server's own milestone after this run, which had its own start, failed and had its command pasted again
        # after the failure (a report's second try with other settings, its start line not pasted: "vllm serve ...
        # --gpu-memory-utilization 0.6", then "GPU KV cache size: 73,728 tokens"): that command's run
        if (ms and r.command_after_failure and "start" in r.progress and r.progress["start"] < r.command_after_failure
                and any(f.line_no < r.command_after_failure and not said(f.text) for f in r.failures)
                and any(self.k.milestones[i][1].search(text) for i in ms) and not said(text)):
            return True
        # a weights-loaded line after this run already sized its cache, or failed once its weights were loaded: the
        # server restarted (a failure before the weights were done, then more of them loading, is the same load
        # going on past it)
        done = r.progress.get("weights_done")
        # (nor a person's sentence that quotes the load's figures: "Loading fails despite ... 24524 MiB, which should
        # be larger than ROCm0 model buffer size = 17827.35 MiB + ...")
        if done is not None and ("kv_sized" in r.progress or "kv_done" in r.progress
                                 or any(f.line_no > done for f in r.failures)):
            return not self._restart.isdisjoint(ms) and any(
                i in self._restart and self.k.milestones[i][1].search(text) for i in ms) and not said(text)
        return False

    def _tick(self, line_no: int, text: str) -> None:
        """Count the log's steps back in time (in its first lines, which both paths read whole)."""
        last, low, high, back, gone, seen = self.clock
        if line_no == seen or line_no > ENGINE_SAMPLE_LINES:
            if line_no > ENGINE_SAMPLE_LINES:
                self.head = []  # (a long log: no newest-first reading)
            return
        if not self.head or self.head[-1][0] < line_no:
            self.head.append((line_no, text))
        m = _CLOCK.search(text[:80])
        if not m:
            self.clock = (last, low, high, back, gone, line_no)
            return
        now = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
        # (against the last time after a prefix of the same shape: a console's own stamp and the engine's, in another
        # time zone, on the lines between, are two clocks)
        shape = re.sub(r"\d", "0", text[:m.start()])[-24:]
        before = self.shape_clock.get(shape)
        if before is not None and 0 < before - now < 12 * 3600:
            self.steps[0] += 1
        elif before is not None and now > before:
            self.steps[1] += 1
        self.shape_clock[shape] = now
        if last is not None and 0 < last - now < 12 * 3600:  # (not midnight: a day's rollover)
            back, gone = back + 1, gone + last - now
        low, high = min(now, low if low is not None else now), max(now, high if high is not None else now)
        self.clock = (now, low, high, back, gone, line_no)

    def out_of_order(self) -> int:
        """Steps back in time, where the log goes back by a third of the time it spans or more (processes writing
        one log interleave by a second or two, a tiny part of it); 0 otherwise. One step back is a splice, not a
        shuffle."""
        _, low, high, back, gone, _ = self.clock
        span = (high - low) if low is not None else 0
        return back if back >= 2 and span >= 3 and gone >= span / 3 else 0

    def _failing_items(self, line_no: int, text: str) -> None:
        """The values a user's list of failed attempts names (in the log's first lines, which both paths read whole)."""
        head, seen = self.failing_list
        if line_no == seen or line_no > ENGINE_SAMPLE_LINES:
            return
        if _FAILS_LIST.search(text):
            self.failing_list = (line_no, line_no)
            return
        if not head or not _BULLET.match(text):
            self.failing_list = (0, line_no) if text.strip() else (head, line_no)
            return
        self.failing_list = (head, line_no)
        if _WORKED_WORDS.search(text):  # an item the user says worked ("-c 4096 works"): not a failed attempt
            return
        for m in _LISTED.finditer(text):
            for v in [m.group(2)] + re.findall(r"\d+(?:\.\d+)?", m.group(3) or ""):
                self.run.note("_tried", (m.group(1), float(v) if "." in v else int(v)), "map", line_no)

    def _lines_before(self, line_no: int) -> list[tuple[int, str]]:
        """The lines before `line_no` as the block reader has them (it may not have fed them here), else the lines
        kept: both reading paths see the same ones."""
        return self.before_source(line_no)() if self.before_source else before_window(self.recent)

    def _hedged_before(self, line_no: int, text: str) -> bool:
        """Line `line_no` goes on a person's sentence from the line before (no log prefix on either, the one before
        not ended, this one beginning in lower case), and the sentence joined across them supposes its out-of-memory
        rather than reports one ("However, if the value is too high, it may cause out-of-" / "memory (OOM) errors.",
        a docstring or a paragraph wrapped by hand)."""
        before = self._lines_before(line_no)
        if not before or before[-1][0] != line_no - 1:
            return False
        prev = before[-1][1].rstrip()
        if (not prev or LOG_PREFIX.match(text) or LOG_PREFIX.match(prev) or ended(prev)
                or not text.lstrip()[:1].islower()):
            return False
        joined = prev + ("" if prev.endswith("-") else " ") + text.strip()
        return self.k.line_verdict(joined) is None

    def _resume(self, start: int) -> RunFacts:
        """The run line `start` was read in, made the current run again with the runs started after it dropped
        (their starts, failures and figures were a logged prompt's text: a log pasted into a request); the current
        run where none started since."""
        if self.run.first_line <= start:
            return self.run
        at = next((i for i in range(len(self.runs) - 1, -1, -1) if self.runs[i].first_line <= start), None)
        if at is None:
            return self.run  # (that run was dropped as one of too many: nothing to go back to)
        back = self.runs[at]
        later = self.runs[at + 1:] + [self.run]
        del self.runs[at:]
        back.lines += sum(x.lines for x in later)
        back.last_line = max(back.last_line, self.run.last_line)
        self.run = back
        self.pending = []
        return back

    def _unsay(self, r: RunFacts, start: int, end: int) -> None:
        """Forget the failures, pressure and milestones read from lines start+1 .. end of run `r` (a logged prompt's
        text, found to be one only when its closing quote came)."""
        inside = lambda ln: start < ln <= end  # noqa: E731
        r.failures = [f for f in r.failures if not inside(f.line_no)]
        r.pressure = [p for p in r.pressure if not inside(p.line_no)]
        self.pending = [f for f in self.pending if not inside(f.line_no)]
        for marker in [m for m, ln in r.progress.items() if inside(ln) and m != "requests"]:
            del r.progress[marker]
            r.progress_text.pop(marker, None)
            r.told.discard(marker)

    def _answering(self, line_no: int, text: str) -> bool:
        """Whether line `line_no` is the model's answer to the question typed at an interactive prompt on line
        `answer_from`: every line up to the next prompt, a markdown fence, a command line or a line with a log prefix
        that is not indented (ECHO_LINES at most); not the CLI's own error right under the question ("Error: llama
        runner process has terminated: ...")."""
        fence = _FENCE.match(text)
        if fence and (fence.group(1) or self.answer_fenced or not self.chat_fenced):
            # a code block the answer opens ("```bash") or closes again: the answer's own, its quotes the model's
            self.answer_fenced = not self.answer_fenced
            return True
        if self.answer_fenced and line_no - self.answer_from <= ECHO_LINES:
            return True
        if (line_no - self.answer_from > ECHO_LINES or fence or text.lstrip().startswith(">>>")
                or STRONG_PREFIX.match(text) or COMMAND.match(text)
                # (a log's own line not indented, llama.cpp's "llama_model_load: ..."; not an exception the answer
                # quotes, "ValueError: No available memory ...", nor an answer's indented quote)
                or LOG_PREFIX.match(text) and not text[:1].isspace() and not _QUOTED_EXCEPTION.match(text)
                or line_no == self.answer_from + 1 and text.startswith("Error: ")):
            self.answer_from = 0
            self.answer_fenced = False
            return False
        return True

    def _title_above(self) -> None:
        """The paste's first line is the report's title (a short line, a blank line, then the report's words or a
        section's heading: an issue as a tracker shows it, "torch.OutOfMemoryError: CUDA out of memory occurred when
        inferring an image or a video" / "" / "Hi, I tried to infer ..."): the milestones it names are what the report
        tells (`RunFacts.titled`), not steps the run passed, as under a markdown heading. Called at line 3, which every
        path feeds (as lines 1 and 2)."""
        first = next((t for ln, t in self.recent if ln == 1), None)
        second = next((t for ln, t in self.recent if ln == 2), None)
        r = self.run
        if first is None or second is None or second.strip() or r.first_line != 1 or not _short_title(first):
            return
        for marker in [m for m, ln in r.progress.items() if ln == 1 and m != "start"]:
            r.titled.setdefault(marker, (1, r.progress_text.get(marker, first)[:500]))
            del r.progress[marker]
            r.progress_text.pop(marker, None)
            r.told.discard(marker)
            for f in r.failures + r.pressure:  # (the title itself a failure: its words are not a step it came after)
                if f.progress.get(marker) == 1:
                    del f.progress[marker]

    def feed(self, line_no: int, text: str) -> None:
        if len(text) > MAX_LINE:
            text = window(text)
        if line_no > ENGINE_SAMPLE_LINES:
            self.version_section = 0
        elif _ANY_HEADING.match(text):  # (in the first lines, which both paths read whole)
            self.version_section = 1 if _VERSION_SECTION.match(text) else 0
        elif self.version_section and text.strip() not in ("", "```", "```shell", "```console", "```bash", "```text"):
            self.version_section = 2  # the version's output, up to the first blank line after it
        elif self.version_section == 2:
            self.version_section = 0  # (a report goes on under the heading: "Sometimes, llama-server produces ...")
        if line_no <= ENGINE_SAMPLE_LINES:  # (both read the first lines only)
            self._tick(line_no, text)
            self._failing_items(line_no, text)
        elif self.head:
            self.head = []  # (a long log: no newest-first reading, as `_tick` says)
        if line_no == 3 and (HEADING.match(text) or persons_line(text) or prose_like(text)
                             or text.startswith(TB_HEADER)):
            self._title_above()  # (or the traceback it is the title of: "OOM when sending long prompts" / "" / ...)
        if line_no <= 3 and not self.asking and ASKING_TITLE.match(text):
            self.asking = self.run.asking = line_no
        if line_no <= ENGINE_SAMPLE_LINES and not self.run.results_heading and RESULTS_HEADING.match(text):
            self.run.results_heading = line_no
        ascii_text = text.isascii()
        lowered = text.lower()
        k = self.k
        low = lowered.encode() if ascii_text else lowered.encode("utf-8", "replace")
        c = k.candidates(low)
        sampled: tuple[list[int], list[int]] | None = None
        r = self.run
        if self.prompt_open and line_no > self.prompt_open:
            if line_no - self.prompt_open > PROMPT_LINES:
                self.prompt_open = 0
            elif _PROMPT_CLOSE.match(text) or not LOG_PREFIX.match(text) and _PROMPT_CLOSE_AFTER.search(text):
                # the prompt's close: every line since it opened was its text, also lines with a log prefix of their
                # own (a log the user pasted into the prompt), never the server's: no run started there either
                r = self._resume(self.prompt_open)
                self._unsay(r, self.prompt_open, line_no)
                if self.prompt_figures is not None and r is self.prompt_run:  # (the prompt's figures: not the server's)
                    r.numbers, r.number_lines, r.figure_owners, r.owned_values = self.prompt_figures
                self.prompt_open = 0
        in_call = self._client_call(line_no, text)
        if in_call and not self.call[3] and self.echo_until > line_no:
            # (a prompt in a client's call the report pastes, curl's `--data '{ ... "messages": [ ... }'`: it ends where
            # the call's quoted body closes, and the lines after it are no prompt's text)
            self.echo_until = line_no
        echo = "echo" in c and is_echo(text, c["echo"])
        if echo and not ECHO_CLOSED.search(text) and not prompt_closes(text):
            # a prompt logged with its newlines: the next lines are its text
            self.echo_until = line_no + ECHO_LINES
            self.prompt_open = line_no
            self.prompt_figures, self.prompt_run = None, self.run
            self.wants_every_line_until = max(self.wants_every_line_until, self.echo_until)
        elif not echo and line_no <= self.echo_until and not LOG_PREFIX.match(text):
            echo = True  # a line of that prompt (it has no log prefix of its own; a pasted traceback is text too)
            if ECHO_END.search(text):  # the prompt's closing quote and the engine's own fields after it
                self.echo_until = line_no
        elif not echo:
            self.echo_until = 0
        if self.answer_from and not echo:
            echo = self._answering(line_no, text)
        if not echo and ">>> " in text and any(p.search(text) for p in k.chat):
            # a question typed at an interactive prompt (`ollama run`'s ">>> "): a request; its answer follows
            if not self.answer_from:  # (the session pasted inside a fence of the report's, or bare: whose fences)
                self.chat_fenced = sum(1 for _, t in self._lines_before(line_no) if _FENCE.match(t)) % 2 == 1
            self.answer_from = line_no
            self.wants_every_line_until = max(self.wants_every_line_until, line_no + ECHO_LINES)
            echo = True
        if k.answer_begins is not None and k.answer_begins.match(text):
            # the engine's own line after which it prints the model's answer bare (llama-cli's "generate: n_ctx = ..."):
            # the lines after it, up to its next line under a function's tag or a strong prefix, are the answer's:
            # no words of the report are read from them (its errors are still read, as the program prints them bare)
            # (every line of it read, by both paths, so that its end is seen wherever it is)
            self.answer_text = line_no
            self.wants_every_line_until = max(self.wants_every_line_until, line_no + ANSWER_LINES)
        elif self.answer_text and (_FUNCTION_TAG.match(text) or STRONG_PREFIX.match(text)
                                   or line_no > self.answer_text + ANSWER_LINES):
            self.answer_text = 0
        if echo:  # a logged request: the prompt is the user's text
            r.lines += 1
            r.last_line = line_no
            if in_call:  # (the user's own call with its prompt: a request sent, told, where the call begins)
                r.titled.setdefault("requests", self.call[:2])
            elif "requests" not in r.progress:
                r.progress["requests"] = line_no
                r.progress_text["requests"] = _ELIDED_PROMPT.sub(r"\1\2...\2", text, count=1)[:200]
            self.recent.append((line_no, text))
            return
        ms, ms_markers = self._milestones_of(c)
        if self.replaying and (line_no > self.replaying or LOG_PREFIX.match(text)):
            self.replaying = 0  # (the launcher's own next line: the replay is over)
        started = "start" in c and not self.replaying and any(k.run_start[i].search(text) for i in c["start"])
        if (not started and not r.failures and "launch" in c and any(k.launch[i].match(text) for i in c["launch"])
                and any(m in r.progress and program_line(r.progress_text.get(m, "")) for m in ("ready", "requests"))):
            # the server's own command again after its run served (a report's second try, pasted under the first):
            # the start of the next run, whose lines follow it
            started = True
        if any(w in text for w in k.replay_begins):  # (substring tests: this runs for every line read)
            # (every line of it read, by both paths, so that its end is seen wherever it is)
            self.replaying = line_no + REPLAY_LINES
            self.wants_every_line_until = max(self.wants_every_line_until, self.replaying)
        if self._is_new_start(text, started, ms):
            self._new_run(line_no)
            r = self.run
        r.lines += 1
        r.last_line = line_no
        if started and "start" not in r.progress:
            r.progress["start"] = line_no
            r.progress_text["start"] = text[:500]
            if persons_line(text):
                r.told.add("start")
        if line_no <= ENGINE_SAMPLE_LINES or (r.failures and r.sampled < RUN_SAMPLE_LINES
                                               and sum(r.engine_hits.values()) < 3):
            r.sampled += 1
            sampled = k.sampled(low)
            prosey = None
            # (a process listing's row, nvidia-smi's "| 0 N/A N/A 41877 C /usr/local/bin/ollama 3804MiB |" or a
            # `ps aux` row, names a process that runs, the server or one beside it: as the user's words, it counts
            # only where no program's line names an engine)
            listed = bool(sampled[0]) and (text.lstrip().startswith("|") and processes.monitor_row(text) is not None
                                           or processes.aux_row(text) is not None)
            if listed:
                prosey = True
            for i in sampled[0]:
                name, pattern = k.fingerprints[i]
                if pattern.search(text):
                    if prosey is None:  # (also a plain sentence: "The same model runs fine in Ollama."; or running
                        # text in lower case, "why it fails? ollama is also running on this box (open-webui uses it)")
                        prosey = user_words(text) or bool(_SENTENCE.match(text) and not LOG_PREFIX.match(text)) or \
                            _named_in_words(pattern, text) or cjk_words(text)
                    # (an engine named in the user's words counts only where no line of a program names one)
                    key = PROSE_HIT + name if prosey else name
                    r.engine_hits[key] = r.engine_hits.get(key, 0) + 1
                    if not prosey and COMMAND.match(text):
                        r.command_hits += 1
                    if prosey and not listed and (HEADING.match(text) or TITLE.match(text) or _versioned(pattern, text)
                                                  or line_no == 1 and _short_title(text)):
                        # ... and named as the one the report is about: in its title (a heading, a tracker's tag, or
                        # the paste's short first line), or with its version
                        # ("KoboldCpp 1.93", "I'm on Ollama v0.5.7"), not as a model's source ("an Ollama GGUF blob")
                        r.engine_hits[NAMED_HIT + name] = r.engine_hits.get(NAMED_HIT + name, 0) + 1
        if "elision" in c and ELISION.match(text):
            r.elisions.append(line_no)
        # (a report's title tells: it is no step the run passed; nor is a client's call the user pasted, `$ curl
        # .../v1/chat/completions`: a request sent, which the server may not have taken)
        titled = bool(HEADING.match(text) or in_call)
        milestones = k.milestones
        if titled:
            live = [i for i in ms if milestones[i][0] not in r.titled]
        elif ms and r.progress.keys() >= ms_markers and r.told.isdisjoint(ms_markers):
            live = ()  # (every one passed, none only told: a serving log's stats lines)
        else:
            progress, told = r.progress, r.told
            live = [i for i in ms if milestones[i][0] not in progress or milestones[i][0] in told]
        for i in live:
            marker, pattern = k.milestones[i]
            if titled and marker not in r.titled and pattern.search(text):
                r.titled[marker] = self.call[:2] if in_call else (line_no, text[:500])
            elif not titled and (marker not in r.progress or marker in r.told) and (
                    m := pattern.search(text)) and not (
                    marker == "requests" and (possible_only(text, m.start()) or told_start(_sentence_of(text, m.start())))
                    or (user_words(text) or sentence_like(text)) and (elsewhen(text, m.start())
                                                                      or denied_at(text, m.start())
                                                                      or could_be_at(text, m.start()))):
                person = persons_line(text)
                if marker in r.progress and person:
                    continue  # (the report's words again: the first of them stands)
                # (a program's own line of a milestone the report's words gave first, "I can send some messages at
                # first" above the log, then its "Output generated in 21.47 seconds": the program's line shows it)
                r.progress[marker] = line_no
                r.progress_text[marker] = text[:500]
                (r.told.add if person else r.told.discard)(marker)
        # a key of a YAML block pasted with the log is read as "parent.key: value" (a figure that does not match that
        # is read from the line as it is); only in the first lines, every one of which both paths feed
        nested = self._nested(text) if line_no <= ENGINE_SAMPLE_LINES else None
        texts = [(text, lowered, c)]
        # (the line before, or the piece before in the same line: a JSON string's lines)
        prev = self.recent[-1][1].rstrip() if self.recent and self.recent[-1][0] in (line_no - 1, line_no) else None
        if prev is not None and (_VALUE_ONLY.match(text) or prev.endswith("Some(") and _SOME_VALUE.match(text)):
            # a value printed under its label ("PyTorch limit (set by user-supplied memory fraction)" / "   : 18.00
            # GiB", torch's allowed-memory error; Rust's pretty Debug of TGI's Args, "max_input_tokens: Some(" /
            # "    30000,"): read with the label before it
            joined = prev + ("" if prev.endswith("(") else " ") + text.strip()
            texts.append((joined, joined.lower(), k.candidates(joined.lower().encode("utf-8", "replace"))))
        if text.rstrip().endswith("Some("):  # (its value is on the next line: read it whole on both paths)
            self.wants_every_line_until = max(self.wants_every_line_until, line_no + 1)
        if nested is not None:
            texts.insert(0, (nested, nested.lower(), k.candidates(nested.lower().encode("utf-8", "replace"))))
        # (after a program's failure: not the report's title or words, above the commands it pastes)
        if ("fig" in c and r.failures and not started and (COMMAND.match(text) and not _VIEWS.match(text)
                                                           or _CHANGED_FLAGS.search(text) and not program_line(text))
                and any(not TITLE.match(f.text) and not user_words(f.text) and not f.line_no == r.first_line == 1
                        for f in r.failures)):
            # a command line after this run failed: the restart it begins, whose settings they are (read into the run
            # that starts within RESTART_GAP lines, else into this one)
            r.command_after_failure = r.command_after_failure or line_no
            if len(self.deferred) < MAX_DEFERRED:  # (past that many, no command's continued lines: read in place)
                self.deferred.append((line_no, text, texts))
            else:
                self._read_figures(r, line_no, text, texts)
        elif not self._sampled_out(r, line_no, text, lowered, texts):
            self._read_figures(r, line_no, text, texts)
        if self.deferred and line_no > self.deferred[-1][0] + RESTART_GAP:
            for held in self.deferred:
                self._read_figures(r, *held)
            self.deferred = []
        if self.pending and GDB_CHATTER.match(text):
            # (gdb's chatter before a backtrace: the frames after it are kept, and read whole on both paths)
            self.wants_every_line_until = max(self.wants_every_line_until,
                                              line_no + max(AFTER - len(f.after) for f in self.pending))
        elif self.pending:
            frame = bool(PY_FRAME.search(text))
            for f in self.pending:
                f.after.append((line_no, text))
            self.pending = [f for f in self.pending if _keeps_after(f)]
            if frame and self.pending:  # (the code line under a frame, and the carets under it, are read whole)
                self.wants_every_line_until = max(self.wants_every_line_until, line_no + 2)
        joined = self._wrapped(r, line_no, text)
        # a markdown heading is the user's summary ("# llama-box error: \"Server error: failed to decode\"", an issue's
        # title): its words may state a failure (read in prose, `_failure_stated`), but it is no line of the log
        heading = "msg" in c and bool(HEADING.match(text))
        if heading and r.heading is None:
            hv = k.verdict(text, c["msg"])
            if hv is not None and (hv.kind in ("oom", "not_oom", "pressure")
                                   or hv.kind == "error" and exception_not_memory(text)
                                   # (an engine's own error line the title quotes, "KoboldCpp 1.108.2 Error: Could not
                                   # load text model: ...", not a title's own words, "ROCm unable to load models")
                                   or hv.kind == "wrapper" and stated(text)):
                r.heading = (line_no, text)  # read as the failure only where no line of the log shows one
        v = k.verdict(text, c["msg"], lowered) if "msg" in c and not joined and not heading else None
        if v is not None and (_IPY_RAISE.match(text) or pasted_source(text)):
            v = None  # (IPython's excerpt of a library's source, "    152     raise TypeError(": code, not its error)
        if v is not None and v.kind == "oom" and v.engine == "generic" and self._hedged_before(line_no, text):
            v = None  # (the line ends a sentence the line before began with a hedge: "it may cause out-of-" / "memory")
        failed = (not joined and not heading and (v is not None or "frame" in c)
                  and self._failure(r, line_no, text, c, v))
        if "msg" in c and not joined and not (self.partial and self.partial[2] == line_no):
            # an engine's words that did not match, or an error line cut short: a terminal may have wrapped it
            if ((v is None and k.explicit_words(c["msg"]) or v is not None and v.engine == "generic")
                    and not ended(text) and not PY_FRAME.search(text)):
                self.partial = (line_no, text, line_no, 0)
                self.wants_every_line_until = max(self.wants_every_line_until, line_no + 1)
        if failed or self.wants_every_line_until >= line_no:
            for i in (sampled or k.sampled(low))[1]:  # process ids: only on failures and the lines around them
                self._figure(r, k.passive[i], text, line_no)
        self._table(r, line_no, text, lowered)
        self._processes(r, line_no, text)
        self.recent.append((line_no, text))

    def _milestones_of(self, c: dict[str, set[int]]) -> tuple[tuple[int, ...], frozenset[str]]:
        """The milestones candidates `c` holds, in order, and their markers (kept by the identity of the shared set)."""
        ms = c.get("ms")
        if not ms:
            return (), frozenset()
        markers = self.k.milestones
        return by_identity(self._ms_order, ms, lambda x: (tuple(sorted(x)), frozenset(markers[i][0] for i in x)),
                           MAX_SERIES_SHAPES)

    def _client_call(self, line_no: int, text: str) -> bool:
        """Line `line_no` is a client's call the report pastes (`CLIENT_CALL`: `curl http://host:8000/v1/chat/completions
        \\`), or a line of one that goes on: after a line that ends in a backslash, or inside the quoted body it opened
        (`-d '{` ... `"messages": [{"role": "user", "content": "hello"}]` ... `}'`), for at most `CALL_LINES` lines. Its
        words are a request sent, not one the server took."""
        first, first_text, last, goes_on, quoted = self.call
        if CLIENT_CALL.match(text):
            first, first_text, quoted = line_no, text[:500], text.count("'") % 2 == 1
        elif goes_on and line_no == last + 1 and line_no - first <= CALL_LINES:
            quoted ^= text.count("'") % 2 == 1
        else:
            return False
        goes_on = quoted or text.rstrip().endswith("\\")
        self.call = (first, first_text, line_no, goes_on, quoted)
        if goes_on:  # (its next line is read whole on both paths)
            self.wants_every_line_until = max(self.wants_every_line_until, line_no + 1)
        return True

    def _nested(self, text: str) -> str | None:
        """A config pasted as YAML: a key that opens a block (`cuda_graph_config:`) is remembered, and a key indented
        under it (`  max_batch_size: 64`) is read as `cuda_graph_config.max_batch_size: 64`; None for other lines."""
        m = _YAML_KEY.match(text)
        if m:
            self.yaml_block = (len(m.group(1)), m.group(2))
            return None
        if self.yaml_block is None or not text.strip():
            return None
        indent, parent = self.yaml_block
        child = _YAML_CHILD.match(text)
        if child and len(child.group(1)) > indent:
            return f"{child.group(1)}{parent}.{child.group(2)}: {child.group(3)}"
        if not child or len(child.group(1)) <= indent:
            self.yaml_block = None  # a line at the block's level or left of it ends the block
        return None

    def _table(self, r: RunFacts, line_no: int, text: str, lowered: str) -> None:
        """Memory readings pasted as a table (see `table`): the header's column, then each row's bytes."""
        if self.table is not None:
            col, unit, last = self.table
            row = row_value(text, col, unit)
            if row is not None and (last is None or _step_key(row[0]) >= _step_key(last)):
                r.note("reported_memory_bytes", row[1], "list", line_no)
                self.table = (col, unit, row[0])
                self.wants_every_line_until = max(self.wants_every_line_until, line_no + 1)
                return
            self.table = None
        if _table_word(lowered):
            head = header_column(text)
            if head is not None:
                self.table = (head[0], head[1], None)
                self.wants_every_line_until = max(self.wants_every_line_until, line_no + 1)

    def _processes(self, r: RunFacts, line_no: int, text: str) -> None:
        """A process listing (see `processes`): each header opens a snapshot, each row is one process's memory in it;
        `ps aux` rows without a header are read in the log's first lines only (which both paths read whole), a new
        snapshot starting where a process comes again."""
        h = processes.header(text) if "PID" in text else None
        if h is not None:
            self.snapshots += 1
            self.listing = (h, set())
            self.wants_every_line_until = max(self.wants_every_line_until, line_no + 1)
            return
        listing = self.listing
        watched = processes.monitor_row(text) if not listing or not listing[0] else None
        if watched is not None:  # (a monitor's row: each one a reading of its own, over time)
            self.snapshots += 1
            key, size, command = watched
            r.note_process(key, self.snapshots, size, line_no, command, text)
            return
        got = processes.row(text, listing[0]) if listing and listing[0] else None
        if got is None and (listing is None or listing[0] is None) and line_no <= ENGINE_SAMPLE_LINES:
            got = processes.aux_row(text)
            if got is not None and (listing is None or got[0] in listing[1]):
                self.snapshots += 1  # rows without a header: a process seen again starts the next snapshot
                listing = self.listing = (None, set())
        if got is None:
            self.listing = None
            return
        key, size, command = got
        assert listing is not None
        if key in listing[1] and listing[0] is not None:
            # (the same process again under one header: a listing logged over time, `ps -o pid,rss,etime` every 12 h
            # appended under its first header; each row the next snapshot)
            self.snapshots += 1
            listing[1].clear()
        listing[1].add(key)
        r.note_process(key, self.snapshots, size, line_no, command, text)
        self.wants_every_line_until = max(self.wants_every_line_until, line_no + 1)

    def _figure(self, r: RunFacts, f, text: str, line_no: int, start: int = 0) -> bool:
        """Read figure `f` from `text`; True if its pattern matched (whether or not a value was taken)."""
        matched = False
        owner = None
        key, mode, read = f.key, f.mode, f.read
        for m in f.pattern.finditer(text, start):
            matched = True
            try:
                value = read(m)
            except (ValueError, KeyError, IndexError, OverflowError):
                continue
            if self.prompt_open and line_no > self.prompt_open and self.prompt_figures is None and r is self.prompt_run:
                self.prompt_figures = _figures_of(r)  # (the figures as they were, should the prompt's close come)
            r.note(key, value, mode, line_no)
            if owner is None:
                owner = self.k.figure_owner.get(id(f), "generic")
                owners = r.figure_owners.get(key)
                if owners is None:
                    r.figure_owners[key] = {owner}
                elif owner not in owners:
                    owners.add(owner)
            if mode == "list":
                continue
            if (mode == "last" or mode == "first") and not unset(value):  # (each engine's own value, `_own_figures`)
                values = r.owned_values.setdefault(key, {})
                if mode == "last" or owner not in values:
                    values[owner] = (line_no, value, mode)
            if mode != "set" and mode != "map":
                break
        return matched

    def _wrapped(self, r: RunFacts, line_no: int, text: str) -> bool:
        """A message a terminal (or `fold`) wrapped onto this line and the ones after ("... GiB" / ") on startup
        is less than desired ..."): joined to the line it began on, up to WRAP_LINES lines without a log prefix of
        their own, it may be an engine's own message; if so the failure is upgraded."""
        if not self.partial or self.partial[2] != line_no - 1 or LOG_PREFIX.match(text) or not text.strip():
            # (a wrap leaves no empty line: a blank line ends the message)
            self.partial = None
            return False
        first, head, _, count = self.partial
        self.partial = None
        alone = self.k.verdict(text, self.k.candidates(text.lower().encode("utf-8", "replace")).get("msg", set()))
        if (alone is not None and alone.engine != "generic" and alone.kind not in ("error", "wrapper", "retry")
                and not _MID_CLAUSE.search(head)):
            return False  # (a line that is an engine's message by itself begins one: LM Studio's dialog title, then
            # its cause "Model loading was stopped due to insufficient system resources..."; not where the line before
            # stops on a word that needs more, "... is false: The" / "KV cache is full. No page can be")
        # (cut at a width, mid-word, or at a space whose trailing blank the paste dropped: "... on startup is" /
        # "less than desired ...")
        # (or set under it with a hanging indent, as a report re-wraps a long line: "... on startup is less" / "        than
        # desired GPU memory utilization (0.9, 19.83 GiB).")
        head_v: list = []  # (the line it began on, its verdict read only where a general message needs it)

        def found(v) -> bool:
            # an engine's own message; or the general rules' message by its words with its code or step, found only by
            # the join (MLC's "The KV cache is full. No page can be allocated" wrapped over four lines on a phone's
            # screen), where the line it began on named no cause of its own, and not one the last line says by itself
            # ("BrokenPipeError: ..." above the next error's line)
            if v is None or v.kind in ("error", "wrapper", "retry"):
                return False
            if v.engine != "generic":
                return True
            if not (v.code or v.phase) or alone is not None and (alone.kind, alone.code) == (v.kind, v.code):
                return False
            if not head_v:
                head_v.append(self.k.verdict(head, self.k.candidates(head.lower().encode("utf-8", "replace"))
                                             .get("msg", set())))
            return head_v[0] is None or head_v[0].kind in ("error", "wrapper", "retry") and not head_v[0].code
        hung = text.lstrip() if text[:1].isspace() and head[-1:].isalnum() else ""
        for whole in ((head + " " + hung,) if hung else (head + text, head + " " + text)
                      if head[-1:].isalnum() and text[:1].isalnum() else (head + text,)):
            c = self.k.candidates(whole.lower().encode("utf-8", "replace"))
            v = self.k.verdict(whole, c.get("msg", set()))
            if found(v):
                break
        else:
            # (no message yet: carried on cut mid-word, or at a space where the line before stops on a word that needs
            # more, or this one begins a capital's word: "... is false: The" / "KV cache is full. No page can be" /
            # "allocated", a message word-wrapped on a phone's screen)
            spaced = head[-1:].isalnum() and text[:1].isalnum() and (_MID_CLAUSE.search(head) or text[:1].isupper())
            whole = head + " " + text if spaced else head + text
        if not found(v):
            if count + 1 < WRAP_LINES and len(whole) < MAX_LINE:  # the message may go on over the next line
                self.partial = (first, whole, line_no, count + 1)
                self.wants_every_line_until = max(self.wants_every_line_until, line_no + 1)
            return False
        for i in c.get("fig", ()):
            if self.k.figures[i].mode not in ("list", "set", "map"):
                self._figure(r, self.k.figures[i], whole, first)
        f = next((f for f in reversed(r.failures) if f.line_no == first), None)
        if f is None:
            return self._failure(r, first, whole, c)
        f.kind, f.code, f.phase, f.text, f.wrapper = v.kind, v.code, v.phase, whole, False
        f.engine, f.candidates = v.engine, v.candidates
        f.deciding = (first, whole) if v.phase else f.deciding
        return True

    def _code_under_frame(self, line_no: int) -> bool:
        """The line at `line_no` is a traceback's code line, indented under its frame ("  File \"x.py\", line 41, in
        <module>" / "    resp = client.chat.completions.create(...)"): a milestone's words there are the code the
        traceback went through, and the traceback goes on past it."""
        lines = dict(list(self.recent)[-8:])
        text, above = lines.get(line_no), lines.get(line_no - 1)
        return bool(text and above and text[:1].isspace() and PY_FRAME.search(above))

    def _drop_traceback_before(self, r: RunFacts, line_no: int) -> bool:
        """Forget the run's last failure where it is a traceback that the line at `line_no` ends (a header, frames, a
        wrapper, no stated cause, within three lines): the line is that traceback's exception. True if it was one."""
        last = r.failures[-1] if r.failures else None
        if last and last.kind == "error" and not stated(last.text) and line_no - max(last.end_line, last.line_no) <= 3:
            r.failures.remove(last)
            if last in self.pending:
                self.pending.remove(last)
            return True
        return False

    def _failure(self, r: RunFacts, line_no: int, text: str, c: dict[str, set[int]], v=_UNKNOWN,
                 replay: bool = False) -> bool:
        """Record a failure or pressure line (`v`: its verdict, None for none, if already known); True if the
        line is one. replay: a line held back until a later one showed it to be a failure's (a client's close)."""
        if self.version_section:
            return False  # (the output of the version command llama.cpp's template asks for: not the run)
        if _SCRIPT_PRINT.match(text):
            return False  # (a pasted script's own message, never printed here: echo "ERROR: Server failed to start")
        if v is _UNKNOWN:
            v = self.k.verdict(text, c.get("msg", set()))
        if v is None and c.get("frame") and PY_FRAME.search(text):
            kind, wrapper = "error", False  # a traceback pasted without its header or exception line
        elif v is None:
            return False
        elif _METRIC_HELP.match(text):
            return False  # (a metric's description in Prometheus's text format: "# HELP vllm:kv_block_allocation_failed_total
            # KV block allocation failed count", a counter's name, no event)
        elif _setting_note(text, self.k):
            # (a setting's line with the writer's note after it: '"--max_num_seqs=1",  # OOM at 4 concurrent requests'
            # is a setting and a note on it, no failure of this run)
            return False
        else:
            kind, wrapper = ("error", True) if v.kind == "wrapper" else (v.kind, False)
        if not replay and kind in ("error", "oom", "not_oom") and in_warning_body(self._lines_before(line_no)):
            return True  # (a line of a Python warning's message that goes on below its line: a warning, no failure)
        if v and v.engine != "generic" and not self.k.engine[v.engine].wraps:
            # an engine's own words are evidence of that engine (a wrapper is known by its own fingerprints)
            r.engine_hits[v.engine] = r.engine_hits.get(v.engine, 0) + 1
        if self.ignored and 0 < line_no - self.ignored <= _IGNORED_SPAN and kind != "oom":
            # (the traceback Python printed for an exception it ignored: its header, its frames, and its own line,
            # which ends it)
            if not (TB_HEADER in text or FRAME.search(text) or text[:1].isspace()):
                self.ignored = 0
            return True
        if kind == "retry":  # the engine retries what failed a line or two before: that one need not be fatal
            last = r.failures[-1] if r.failures else None
            if last and line_no - max(last.end_line, last.line_no) <= 3:
                last.retried, last.end_line = (line_no, text), line_no
            return True
        if kind == "note":  # a warning the engine goes on from (pinned host memory): no failure
            self.note = (line_no, _SOURCE.match(text).group(0) if _SOURCE.match(text) else "")
            if v.code == "exception-ignored":
                self.ignored = line_no
            for key in ("_failure_stated", "_hang_stated"):  # (its words are no report's: llamafile's "failed to
                if r.number_lines.get(key) == line_no:  # open http://... in a browser tab")
                    r.numbers.pop(key, None)
                    r.number_lines.pop(key, None)
            if len(r.notes) < MAX_NOTES:  # (kept so a report's title that quotes it is known for it)
                r.notes.append((line_no, text[:MAX_NOTE_CHARS]))
            return True
        if line_no == self.note[0] + 1 and _DETAIL.match(text[len(self.note[1]):]) and text.startswith(self.note[1]):
            # the warning's own detail on the next line, under its prefix (ggml-vulkan's "Failed to allocate pinned
            # memory." then the exception's what(): "vk::Device::allocateMemory: ErrorOutOfDeviceMemory")
            self.note = (line_no, self.note[1])
            return True
        if kind == "request":  # a request refused (longer than the context): the server goes on serving
            # (the traceback it ends, a wrapper's "Error in preprocessing prompt inputs" and its frames, is its own)
            if self._drop_traceback_before(r, line_no):
                r.refused_raised = line_no
            r.refused += 1
            if r.refused == 1:
                r.refused_first = (line_no, text)
                # (the body of the client's error, pasted over lines: its first lines hold the status)
                r.refused_relayed = any(RELAYED.search(t) for n, t in [*list(self.recent)[-4:], (line_no, text)]
                                        if line_no - n <= 4)
            return True
        if kind in ("pressure", "leak"):
            self._drop_traceback_before(r, line_no)  # a traceback (header, frames) that this warning ends: its exception
            if len(r.pressure) < MAX_PRESSURE:
                r.pressure.append(Failure(line_no=line_no, text=text, kind=kind, code=v.code, phase=v.phase,
                                          engine=v.engine, progress=dict(r.progress)))
            return True
        if v and v.code == "client-closed-connection" and not replay:
            # (a client that went away explains the failed response just above it, a 500 after exactly 10m0s, its
            # timeout; a stream the user stopped is no failure: its response had begun, a 200)
            last = r.failures[-1] if r.failures else None
            if not (last and last.kind == "error" and line_no - max(last.end_line, last.line_no) <= 3):
                self.aborted = (line_no, text, v)  # (or the one just below: Ollama's runner aborts, then GIN logs the 500)
                return True
        if kind == "error" and self.aborted and 0 < line_no - self.aborted[0] <= 3 and FAILED_REQUEST.search(text):
            held, self.aborted = self.aborted, None
            self._failure(r, held[0], held[1], c, held[2], replay=True)  # the close, then its 500 joins it
        if len(r.failures) >= MAX_FAILURES:
            # keep room for a fatal failure: a later out-of-memory must not be lost behind earlier errors; nor an error
            # that states its cause behind bare frames and headers that state none
            weak = [f for f in r.failures if f.kind == "error"]
            if kind == "error" and stated(text):
                weak = [f for f in weak if not stated(f.text)]
            elif kind not in ("oom", "not_oom"):
                weak = []
            gone = weak[-1] if weak else None
            if gone is None:
                # ... nor behind failures the run went past, a milestone after each (eight ranks' "Failed to import
                # amdsmi" at start-up, then the weights loaded, then a rank's traceback): the oldest of them goes
                gone = next((f for f in r.failures
                             if any(ln > max(f.end_line, f.line_no) for ln in r.progress.values())), None)
            if gone is None:
                return True
            r.failures.remove(gone)
            if gone in self.pending:
                self.pending.remove(gone)
        last = r.failures[-1] if r.failures else None
        # (not across a milestone passed since: the run went on after it, and this is a failure of its own)
        # (nor across a markdown fence: the report's words above a pasted log, "DeepSeek-Coder-V2-Lite out of memory" /
        # "```" / the engine's error, are two accounts; the engine's line is its own failure)
        # (a frame up to JOIN_FRAME lines on: a traceback's next frame, after a code line, its carets and the rest of
        # a frame a console wrapped)
        gap = JOIN_FRAME if kind == "error" and PY_FRAME.search(text) else 3
        # (nor a program's traceback under a person's account of the failure in a line of several sentences, "The same
        # model also causes an OOM error on a single GPU": the program's error is a failure of its own)
        since = max(last.end_line, last.line_no) if last else 0
        # (under IPython's header, "OutOfMemoryError    Traceback (most recent call last)", its source context lines
        # between frames do not count: ultratb prints five to eleven of them under each)
        close = bool(last) and (line_no - since <= gap or bool(_IPY_HEADER.match(last.text)) and sum(
            1 for ln, t in self._lines_before(line_no) if ln > since and t.strip() and not _IPY_CONTEXT.match(t)) <= gap)
        joined = bool(last and not last.retried and close
                      and not (kind == "error" and last.kind == "oom"
                               and (told_in_a_sentence(last.text) or sentence_like(last.text))
                               and not (told_in_a_sentence(text) or sentence_like(text)))
                      and all(ln <= max(last.end_line, last.line_no) or self._code_under_frame(ln)
                              for ln in r.progress.values())
                      and not (line_no - max(last.end_line, last.line_no) > 1  # (a fence needs a line between)
                               and any(ln > max(last.end_line, last.line_no) and _FENCE.match(t)
                                       for ln, t in self._lines_before(line_no)[-3:])))
        if last and joined:  # one failure, many lines: lines that continue the same traceback or message join it
            last.end_line = line_no
            head = _IPY_HEADER.match(last.text)
            if head and kind in ("oom", "not_oom", "error") and text.lstrip().startswith(head.group(1) + ":"):
                # IPython's header named the exception; its own line at the traceback's end says what failed, under
                # the frames that place it: that line is the failure (its class alone stays, where a paste cuts it)
                return self._anchor(last, kind, text, line_no, v, wrapper)
            if (v and v.phase and last.phase is None and kind in ("oom", "error") and last.kind in ("oom", "error")
                    and not (v.phase == "HOST" and last.kind == "oom")):  # "Killed" after a GPU OOM: its aftermath
                last.phase, last.deciding = v.phase, (line_no, text)  # the engine's verdict a line or two later
                last.code = last.code or v.code
            if kind == "error" and last.kind in ("oom", "error", "not_oom"):
                if last.kind == "error" and not stated(last.text) and stated(text):
                    # a header, a frame or a wrapper, then the exception that says what failed: that is the cause
                    last.text, last.line_no, last.wrapper, last.after = text, line_no, wrapper, []
                    last.lines_before = self.before_source(line_no) if self.before_source else before_window(self.recent)
                    if last not in self.pending:
                        self.pending.append(last)
                    self.wants_every_line_until = line_no + AFTER
                return True
            if (kind == "oom" and last.kind == "not_oom" and last.code == "request-rejected"
                    and _VALIDATOR_SAYS.search(text)):
                # pydantic lists each validator's own exception under the field it checked (LangChain's VLLM wrapper:
                # "1 validation error for VLLM" / "__root__" / "  No available memory for the cache blocks. ...
                # (type=value_error)"): that exception is the cause, the ValidationError only carries it
                return self._anchor(last, kind, text, line_no, v, False)
            if kind in ("oom", "not_oom") and user_words(last.text) and not user_words(text):
                # a user's sentence that named the failure, then the engine's own line of it: the engine's decides
                return self._anchor(last, kind, text, line_no, v, False)
            if kind == last.kind == "not_oom" and v and v.code == "code-error" and last.code not in ("", "code-error"):
                # (a Python exception in the traceback under an engine's own words for what failed, vLLM's "Error in
                # extracting tool call from response." then its JSONDecodeError: those words name it more closely)
                return True
            if kind == last.kind == "oom":
                if v and v.code and not last.code:
                    last.code = v.code
                return True
            if (kind == "oom" and last.kind == "error" and v and v.phase == "HOST" and stated(last.text)
                    and not last.wrapper):
                # a kill after an error that states its cause (SGLang ends its process tree after a warm-up error:
                # "AssertionError: res=<Response [502]>" then "Killed"): the engine ending itself, its aftermath (not
                # after a wrapper, whose cause is elsewhere: TGI's "Error: DownloadError" printed above the download
                # step's "signaled to shutdown with signal 9" where two streams interleave)
                return True
            if kind == "oom" and last.kind == "error":  # the cause arrives a line later
                was_wrapper = last.wrapper
                last.kind, last.text, last.line_no, last.wrapper = "oom", text, line_no, False
                last.code = last.code or (v.code if v else "")
                if v:
                    last.candidates = last.candidates or v.candidates
                    # (the host's memory, the OOM killer's, over the step a wrapper above it named: the kill says what
                    # ran out; its own words or the progress place it)
                    if v.phase and (not last.phase or v.phase == "HOST" and was_wrapper):
                        last.phase, last.deciding = v.phase, (line_no, text)
                last.lines_before = self.before_source(line_no) if self.before_source else before_window(self.recent)
                last.after = []
                self.wants_every_line_until = line_no + AFTER
                return True
        f = Failure(line_no=line_no, text=text, kind=kind, code=v.code if v else "", phase=v.phase if v else None,
                    engine=v.engine if v else "", wrapper=wrapper, progress=dict(r.progress),
                    candidates=v.candidates if v else (),
                    lines_before=self.before_source(line_no) if self.before_source else before_window(self.recent))
        last_marker = max(r.progress.values(), default=r.first_line)
        f.elided = any(last_marker <= e < line_no for e in r.elisions)
        if v and v.phase:
            f.deciding = (line_no, text)
        r.failures.append(f)
        self.pending.append(f)
        self.wants_every_line_until = line_no + AFTER
        return True

    def _anchor(self, f: Failure, kind: str, text: str, line_no: int, v, wrapper: bool) -> bool:
        """Move failure `f` onto a later line that says what failed (`kind`, its verdict `v`): its words, code, phase
        and the lines before it are that line's; True (the line is taken)."""
        f.kind, f.text, f.line_no, f.wrapper = kind, text, line_no, wrapper
        f.code = v.code if v else ""
        f.phase, f.candidates = (v.phase, v.candidates) if v else (None, ())
        f.deciding = (line_no, text) if v and v.phase else None
        f.lines_before = self.before_source(line_no) if self.before_source else before_window(self.recent)
        f.after = []
        if f not in self.pending:
            self.pending.append(f)
        self.wants_every_line_until = line_no + AFTER
        return True

    def finish(self, last: tuple[int, str] | None = None, cut_mid_line: bool = False,
               tail: list[tuple[int, str]] | None = None) -> list[RunFacts]:
        """The runs. last: the log's last line (number, text), checked for an error cut partway ("CUDA e").
        cut_mid_line: that line is cut partway (`lines.tail_cut`: the start of a line like those before it, or partway
        into an engine's memory message). tail: the log's
        last lines (number, text), oldest first, ending with `last`'s line."""
        if self.series_held:
            self._read_held()
        for held in self.deferred:  # (no run began after them: the failed run's own command lines after all)
            self._read_figures(self.run, *held)
        self.deferred = []
        r = self.run
        # (or a line at error level cut partway, "[57831] 4.01.799.347 E ggml_backend_cuda_buffer_type": its failure
        # begun, its words cut)
        if last and (cut_error(last[1]) or cut_mid_line and error_level(last[1])) and last[0] > self.echo_until and not any(
                last[0] in (f.line_no, f.end_line) for f in r.failures) and not any(
                last[1].strip() and last[1].strip() in p.text for p in r.pressure):  # the warning before, again
            r.failures.append(Failure(line_no=last[0], text=last[1], kind="error", progress=dict(r.progress),
                                      lines_before=before_window(self.recent), cut=True))
            r.lines, r.last_line = max(r.lines, 1), max(r.last_line, last[0])
        if last and r.lines:
            # (a line past MAX_LINE as the scanner read it, its window: the rules that read the log's end read no more)
            last = (last[0], window(last[1]))
            r.tail, r.tail_cut = last, cut_mid_line
            lines = [(ln, window(unbox(t))) for ln, t in (tail or []) if r.first_line <= ln < last[0] and ln > self.echo_until]
            r.tail_lines = lines[-TAIL_LINES:] + [last]
        self.runs.append(self.run)
        for run in self.runs:  # a heading that names a failure, where the log's own lines show none or any pressure
            if run.heading and not run.failures and not run.pressure:
                ln, text = run.heading
                self._failure(run, ln, text, self.k.candidates(text.lower().encode("utf-8", "replace")))
                # (a title has no lines before it: the scanner's last lines are the log's end; the stack frames below
                # it are among the log's first lines, which both paths keep whole while the log is short: a backtrace
                # pasted under the title, "#3 ... in alloc_tensor_range ()", each Python frame with its code line;
                # not the other lines, which are the report's and the log's, no verdict on the title's failure)
                head = [(n, t) for n, t in self.head if n > ln]
                below = [(n, t) for i, (n, t) in enumerate(head) if FRAME.search(t)
                         or i and PY_FRAME.search(head[i - 1][1])][:AFTER_TRACEBACK]
                for f in run.failures:
                    if f.line_no == ln:
                        f.lines_before, f.after = [], below
        runs = [r for r in self.runs if r.lines]
        if self.dropped and runs:
            runs[0].dropped_after = (self.dropped, self.dropped_lines)
        if runs:
            runs[0].out_of_order = self.out_of_order()
            back, on = self.steps
            if self.head and back >= 3 and on * 10 <= back:
                runs[0].newest_first = self.head
        return runs


#: a sentence: a capitalised word, four or more words with no program's marks in them (no "=", brackets, paths,
#: pipes), ended by a stop
#: the most words of a paste's first line read as its title
_TITLE_WORDS = 16
#: a list item's or a sentence's mark: a line that is no title
_NOT_TITLE = re.compile(r"^\s*(?:\d+[.)]|[-*\u2022])\s|[.:]\s*$")


def _short_title(text: str) -> bool:
    """A paste's first line that reads as its title: `_TITLE_WORDS` words or fewer, no list item, not a sentence
    ended by a stop or a line that introduces what follows."""
    return len(text.split()) <= _TITLE_WORDS and not _NOT_TITLE.search(text)


#: a name standing as a word of its own (not in a path, a file's or a module's name)
_BARE_NAME = re.compile(r"(?<![\w/.\\-])[A-Za-z][\w.-]*[A-Za-z0-9](?![\w/\\-]|\.\w)")
#: running words around it: six or more
_WORDS = re.compile(r"(?:[A-Za-z'\u2019]+\W+){6}")


def _named_in_words(pattern: re.Pattern, text: str) -> bool:
    """An engine's fingerprint matched only as its bare name among running words of a line no program wrote (no log
    prefix, no command, no stack frame): "why it fails? ollama is also running on this box (open-webui uses it ...)"
    names a neighbour, not the log's engine; a process listing's row is passed over before this."""
    if LOG_PREFIX.match(text) or COMMAND.match(text) or FRAME.search(text) or not _WORDS.search(text):
        return False
    hits = [m for m in pattern.finditer(text)]
    return bool(hits) and all(_BARE_NAME.fullmatch(m.group(0)) and _BARE_NAME.match(text, m.start()) for m in hits)


_SENTENCE = re.compile(r"^\s*[A-Z][\w'\u2019-]*,?(?: +[\w'\u2019,.-]+){3,60}[.!?:]\s*$")


def _setting_note(text: str, k: Knowledge) -> bool:
    """The line is a setting (a flag in a command or an args list) whose words of a failure are only in the writer's
    note after it (`_SETTING_NOTE`): the part before the note says nothing."""
    note = _SETTING_NOTE.search(text)
    return bool(note) and bool(COMMAND.match(text)) and k.line_verdict(text[:note.start()]) is None


def _versioned(pattern, text: str) -> bool:
    """An engine's name (its fingerprint `pattern`) followed by a version ("KoboldCpp 1.93", "Ollama v0.5.7")."""
    return any(_VERSION.match(text, m.end()) for m in pattern.finditer(text))


_VERSION = re.compile(r"[\s:-]{0,3}(?:to\s+)?(?:v|version\s*)?\d+\.\d+", re.I)


#: the lines a logged prompt left open may take back as its text once its close comes (a document or a log pasted into
#: a prompt runs long), and that close: a line that begins with it (the prompt's closing quote and the engine's own
#: fields after it, "', params: SamplingParams(...)"), never another request's line that holds its own whole prompt
PROMPT_LINES = 2000
#: ... or after the prompt's last words on a line of its own text ("<|assistant|>', params: SamplingParams(...)"; not
#: on a line with a log prefix, which is another request's whole line)
_PROMPT_CLOSE_AFTER = re.compile(r"['\x22],\s*(?:params: SamplingParams|sampling_params|lora_request|prompt_token_ids)")
_PROMPT_CLOSE = re.compile(r"^\s*" + _PROMPT_CLOSE_AFTER.pattern)


def _figures_of(r: RunFacts) -> tuple:
    """A copy of run `r`'s figures (numbers, their lines, owners, each engine's values), to put back later."""
    return (copy.deepcopy(r.numbers), dict(r.number_lines), {k: set(v) for k, v in r.figure_owners.items()},
            {k: dict(v) for k, v in r.owned_values.items()})


#: a markdown fence, with the language a code block opens with ("```bash") where it has one
_FENCE = re.compile(r"^\s*(?:```|~~~)\s*([\w+-]*)")
#: an exception's line as an answer quotes it ("ValueError: No available memory for the cache blocks")
_QUOTED_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning):\s")


class LineScan:
    """A scan fed one numbered line at a time, every one of them: `feed(line_no, text)`, then `finish()`."""

    def __init__(self) -> None:
        self.s = Scanner()
        self.last: tuple[int, str] | None = None
        self.recent: deque[tuple[int, str]] = deque(maxlen=CUT_LOOKBACK + 1)

    def feed(self, line_no: int, text: str) -> None:
        if self.last is None and not self.s.runs:
            self.s.run.first_line = line_no  # (a program's first line among others', not the log's first)
        self.recent.append((line_no, text))
        for part in pieces(text):
            self.s.feed(line_no, part)
            self.last = (line_no, part)

    def finish(self) -> list[RunFacts]:
        texts = [t for _, t in self.recent]
        cut = tail_cut(texts[-1], texts[:-1], knowledge().sentences) if texts else False
        return self.s.finish(self.last, cut_mid_line=cut, tail=list(self.recent))


def scan(lines: Iterable[tuple[int, str]]) -> list[RunFacts]:
    """Scan numbered lines, every one of them (see `blocks.scan_blocks` for the fast path)."""
    ls = LineScan()
    for line_no, text in lines:
        ls.feed(line_no, text)
    return ls.finish()


def numbered(texts: Iterable[str]) -> Iterator[tuple[int, str]]:
    """Lines numbered from 1, without their newline or the colour codes a paste left without their escape (as the
    block reader's `reader.clean` does)."""
    for i, t in enumerate(texts, 1):
        yield i, unpaint(t.rstrip("\n"))


def _keeps_after(f: Failure) -> bool:
    """Whether failure `f` keeps the next line after it: the first AFTER lines, and past them a Python traceback still
    going (its last lines hold a frame: the frame, the code line under it, the carets under that; in a paste
    hard-wrapped at a width, the frame's remainder on a line of its own, and a second row of carets), up to
    AFTER_TRACEBACK; a traceback that begins at the failure (SGLang's "Scheduler hit an exception: Traceback") and is
    cut before its error line places the failure by its innermost frame, which may be many frames down."""
    n = len(f.after)
    if n < AFTER:
        return True
    return n < AFTER_TRACEBACK and any(PY_FRAME.search(t) or _REMOTE_TRACEBACK.search(t) or _GO_FRAME.match(t)
                                       for _, t in f.after[-5:])


#: a line that stops on a word a sentence cannot end on (an article, a preposition, an auxiliary): the next line goes on
#: with it
_MID_CLAUSE = re.compile(r"\b(?:the|a|an|of|to|be|can|is|are|was|for|in|on|at|with|by|and|or|no)\s*$", re.I)


#: a person's words that the next try changed its flags ("ok so I added --max-model-len 32768 and now:", "then I set
#: --gpu-memory-utilization 0.95 and tried again"): after a failure, the settings of the run pasted next
_CHANGED_FLAGS = re.compile(r"\b(?:added|add|set|changed|change|tried|switched|lowered|raised|bumped|increased|decreased|"
                            r"reduced|passed|now with|retried with|reran with|re-ran with)\b[^\n]{0,40}?(?<![\w-])--[a-z]", re.I)
#: a command that shows a log or the state of what ran (`kubectl logs ... --previous`, `docker inspect`, `journalctl`,
#: `dmesg`): the paste goes on with what it printed, no restart
_VIEWS = re.compile(r"^\s*(?:[\w.-]+@[\w.-]+:\S*\s*)?(?:[$#%>]\s*)?(?:sudo\s+)?(?:kubectl\s+(?:-n\s+\S+\s+)?(?:logs|describe|get|"
                    r"top|events)|(?:docker|podman|nerdctl)\s+(?:compose\s+)?(?:logs|inspect|ps|stats|events)|journalctl|dmesg|"
                    r"nvidia-smi|rocm-smi|cat|tail|less|head|grep|zgrep|free|top|htop|ps|vmstat)\b")
#: a validator's own exception as pydantic lists it under the field it checked: v1's "  <message> (type=value_error)",
#: v2's "  Value error, <message> [type=value_error, input_value=..., input_type=dict]"
_VALIDATOR_SAYS = re.compile(r"\(type=value_error(?:\.\w+)?\)\s*$|\[type=value_error\b|^\s*Value error, ")
#: a Go goroutine's frame after a panic or a signal in cgo (Ollama's runner: "github.com/ollama/ollama/model.New(...)"
#: and its "\tgithub.com/ollama/ollama/model/model.go:106 +0xd0 ..." line): the stack goes on
_GO_FRAME = re.compile(r"^\s*(?:[\w.-]+/)+[\w.-]+\.go:\d+(?: \+0x[0-9a-f]+)?(?:\s|$)|^(?:[\w.-]+/)+[\w.-]+\.\S+\(.*\)\s*$")
#: a line after which a traceback goes on with another process's frames: Ray's task error, whose remote traceback
#: follows it ("ray.exceptions.RayTaskError(ModuleNotFoundError): ray::RayWorkerWrapper.__ray_call__() (pid=324, ...)")
_REMOTE_TRACEBACK = re.compile(r"\bRayTaskError\(\w+\): ray::")

