"""What every known engine prints, compiled once into one searchable whole.

The engines (`vramdoctor.engines`, one module each) declare their words; this module gathers them,
derives each pattern's required words (`prefilter.required`) and answers, for one line: which
patterns could match it, whether it starts a run, which milestones and figures it holds, and what
kind of failure it reports. Any log line may come from any engine (wrappers embed their base
engine's lines), so every engine's words are tried on every line that holds one of them. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from ..engines import all_engines
from ..engines.generic import SIGKILL
from ..engines.interface import Engine, Figure, LogWords, Message
from ..engines.words import PATH_ALONE, lazy, told_fixed
from . import pattern_cache
from .prefilter import ALTERNATION_MIN, Words, alternatives, flags_of, necessary, prefix, required
from .prose import clause_at, crash_not_stated, past_fixed, supposed

I = re.IGNORECASE

#: a logged request: its prompt is the user's text, never the server's failure
#: a logged request, one pattern per engine's form (each tried only on lines holding its words): vLLM's
#: "Received request ... prompt: '...'", SGLang's --log-requests "Receive: obj=GenerateReqInput(" / "Finish: ...
#: out={'text'", Ollama's debug "chat request ... prompt=", JSON request bodies
ECHOES = tuple(re.compile(p) for p in (
    # (vLLM's "Received request chatcmpl-5f2...: prompt: '...'", its id before the colon; not whisper-server's
    # "Received request: jfk.wav", a file's name)
    r"Received request [\w.:-]+", r"\bprompt: ['\"]", r"prompt_token_ids", r"\bparams: SamplingParams", r"\"messages\": ?\[",
    # (also compact, as llama-server's verbose log of a request's body prints it, tools/server log_server_request:
    # "srv  log_server_r: request:  {\"messages\":[...]}")
    r"Receive: obj=\w*ReqInput\(", r"Finish: obj=\w*ReqInput\(", r"\bout=\{'text'", r"msg=\"?chat request",
    r"msg=\"?generate request", r"msg=\"?completion request", r"\bprompt=\"", r"\"prompt\": ?\"", r"\binput_text=",
    r"\bgenerated_text="))


def is_echo(text: str, which=None) -> bool:
    """The line logs a request (its prompt or output is the user's text)."""
    return any(ECHOES[i].search(text) for i in (range(len(ECHOES)) if which is None else which))
#: a line that says lines were left out of an excerpt: what came between is unknown (not IPython's "   (...)", indented
#: under a traceback's frame, where it skips lines of the frame's source)
ELISION = re.compile(r"^(?!\s{2,}\(\.\.\.\)\s*$)\s*(?:\[\s*(?:\.\.\.|…|snip|truncated|omitted)\s*\]|\.\.\.|…|--|<snip>|\(\.\.\.\)|"
                     r"\.\.\. ?\(?\d+ (?:more )?lines? (?:omitted|skipped|truncated)\)?|"
                     # (a gap the paste describes in brackets: "[... several hundred llama_model_loader lines cut ...]",
                     # "[... model load output snipped ...]", "(... 300 lines omitted ...)")
                     r"[\[(]\s*(?:\.\.\.|…)?[^\])\n]{0,120}?\b(?:(?:lines?|output|logs?)\b[^\])\n]{0,40}?\b(?:cut|snipped|"
                     r"omitted|skipped|trimmed|removed|elided|truncated)|(?:cut|snipped|omitted|skipped|trimmed|removed|"
                     r"elided|truncated)\b[^\])\n]{0,60}?\b(?:lines?|output|logs?))\b[^\])\n]{0,40}[\])])\s*$", I)
#: a log level near the start of a line
#: (not a level compared with a number, exo's "Error processing prompt (see logs with DEBUG>=2): ...")
LEVEL = re.compile(r"^.{0,80}?(?:\b|\[|level=)(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b(?!\s*[<>]=?\s*\d)|"
                   r"\[TRT-LLM\] (?:\[RANK \d+\] )?\[([IWEFDV])\]")
#: docker compose's prefix of a service's line ("tabbyapi-1  | ")
COMPOSE_PREFIX = r"[A-Za-z][\w.-]*\s+\|\s?"
#: IPython's and Jupyter's own form of a frame, ultratb's: "File ~/envs/x/lib/python3.10/site-packages/vllm/v1/worker/
#: gpu_model_runner.py:2874, in GPUModelRunner._dummy_sampler_run(self, hidden_states)" (its path unquoted, spaces and
#: all: "File ~/CS271 Topics in ML/.venv/lib/...")
#: (and IPython 7's and older, its path then the function with its arguments: "/usr/local/lib/python3.10/dist-packages/
#: accelerate/hooks.py in new_forward(module, *args, **kwargs)")
_IPYTHON_FRAME = (r'(?:^|\s)File (?:[~/.\w][^"\n]{0,300}?\.py|<string>):\d+, in [\w<>.]+|'
                  r'^(?:/|~/|[A-Za-z]:\\)[^\s"]{1,300}?\.py in [\w<>.]+\(|'
                  # (and faulthandler's, after "Fatal Python error: Aborted", its line and function with no comma
                  # between: '  File "/x/mlx_vlm/utils.py", line 888 in generate_step')
                  r'File "[^"]+", line \d+ in [\w<>.]+\s*$|'
                  # (and the notebook cell's own frame, IPython 8's "Cell In[9], line 15", 7's "<ipython-input-5-0a1b>
                  # in <module>")
                  r'^\s*Cell In\s?\[\d+\], line \d+|^<ipython-input-[\w-]+> in <?\w+>?')
#: a Python frame, also one a console or docker compose wrapped: its second half after "File" (under compose's prefix,
#: its function name on the next line: '"/x/linear.py", line 129,'), or its first half ('File "/x/runner.py",');
#: several on one line are a flattened traceback; a paste cut inside its first frame's "File" keeps 'ile "/x/a.py", line 3'
#: ... or hard-wrapped at a width inside the path: its first half 'File "/usr/lib/python3.12/dist-packages/ray/exp' (an
#: opened quote that runs to the line's end) or 'File "/x/executor.py", lin' ('..., line 103, in'), its second half 'nel.py", line 762, in
#: _init_communicator'
PY_FRAME = re.compile(r'File "[^"]+", line \d+, in [\w<>.]+|^(?:' + COMPOSE_PREFIX + r')?(?:ile|le|e)?\W*"[^"]+\.py", line \d+,?'
                      r'(?:\s+in\b|\s*$)|File "[^"]+\.py",(?: line \d+,?)?\s*$|File "/[^"\s]{8,}$|File "/[^"]+\.py",[ \w,]*$|'
                      r'^[\w./-]*\.py", line \d+, in [\w<>.]+\s*$|'
                      + _IPYTHON_FRAME)
#: a frame of any language: Python, a C++ backtrace entry, Go, CUDA source
FRAME = re.compile(r'File "[^"]+", line \d+, in [\w<>.]+|' + _IPYTHON_FRAME + r'|^(?:' + COMPOSE_PREFIX + r')?(?:ile|le|e)?\W*"[^"]+\.py", line \d+,?(?:\s+in\b|\s*$)|'
                   r'File "[^"]+\.py",(?: line \d+,?)?\s*$|'
                   r'^#\d+\s+0x[0-9a-f]+ in \S|'  # gdb's backtrace (ggml_print_backtrace: "#5  0x00007efc... in f () from x.so")
                   r'^\s*(?:\\n)?\d+\s+(?:0x[0-9a-f]+\s|\S+\s+0x[0-9a-f]+ )|'
                   # glibc's backtrace_symbols, which ggml_print_backtrace prints where gdb is absent
                   # ("/root/llama.cpp/build/bin/libmtmd.so.0(_ZN17clip_model_loader12load_tensorsER8clip_ctx+0x9b86)
                   # [0x76e040035586]", "/lib/x86_64-linux-gnu/libc.so.6(+0x29ca8) [0x76e040506ca8]")
                   r'^\s*\S+\((?:[A-Za-z_]\w*)?\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]\s*$|'
                   # (a Go frame's file line, "\t/go/src/.../llama.go:143 +0x1a5", or a Go source a line names,
                   # "source=ggml.go:220 msg=..."; not the prefix of Go's standard log, "routes.go:1230: INFO ...")
                   r'\.go:\d+(?![\d:])|\b\w+\.cu:\d+|^\s+at \S+\(|'
                   # a Rust backtrace's frame ("   4: candle_nn::var_builder::VarBuilderArgs<B>::get_with_hints", "   2:
                   # <candle_core::cuda_backend::CudaStorage as ...>::to_dtype"), also under compose's prefix, and the
                   # source line under it ("             at /src/var_builder.rs:254:9")
                   r'^(?:' + COMPOSE_PREFIX + r')?\s*\d{1,3}: <?[A-Za-z_]\w*::[\w:<>, ]|^\s+at \S+\.rs:\d+|'
                   # a C++ frame left alone on its line, as a paste keeps a backtrace's deepest frames after "...":
                   # only a qualified name ("common_speculative_state_mtp::draft", "llama_context::decode(...)")
                   r'^\s*(?:[A-Za-z_]\w*::)+~?[A-Za-z_]\w*(?:\([^()]*\))?(?: const)?\s*$|'
                   r'^\s*(?:[\w.-]+/)+[\w.-]+\.(?:\(\*?\w+\)\.)?\w+\((?:0x|\{|\))', I)  # a Go frame's function line

#: what gdb prints around a backtrace besides its frames (ggml_print_backtrace attaches gdb): new threads, its
#: thread library, the source lines it cannot find, the frame it stopped in; not counted among a failure's lines after
GDB_CHATTER = re.compile(r"^\[(?:New (?:LWP|Thread) [^\]]*|Thread debugging using libthread_db enabled|"
                         r"Inferior \d+ \(process \d+\) detached)\]\s*$|^Using host libthread_db library |"
                         r"^\d+\t(?:in )?\S+(?:: No such file or directory\.)?\s*$|^0x[0-9a-f]+ in \S+ \(.*\) at \S+:\d+\s*$")

#: precedence of what a line says (the highest wins the kind; phases and codes come from the most specific)
RANK = {("explicit", "not_oom"): 100, ("explicit", "leak"): 95, ("explicit", "oom"): 90, ("explicit", "pressure"): 85,
        ("explicit", "request"): 86,
        ("explicit", "retry"): 84, ("explicit", "note"): 75,
        ("generic", "not_oom"): 80, ("generic", "oom"): 70, ("explicit", "wrapper"): 20,
        ("generic", "wrapper"): 20, ("explicit", "error"): 10, ("generic", "error"): 10}


@dataclass(frozen=True)
class Verdict:
    """What one line says. kind: oom / not_oom / pressure / wrapper / error; phase: where the words
    place it (None: they do not say); code: the pattern's stable code ('' if none); engine: whose
    words these are."""

    kind: str
    phase: str | None
    code: str
    engine: str
    candidates: tuple[str, ...] = ()


_ZEROS = bytes.maketrans(b"123456789", b"000000000")
SHAPES = 4096  # line shapes whose candidates are kept
LIVE_SETS = 4096  # shapes' candidate message sets whose live messages are kept (`Knowledge._live_messages`)


#: a program's words that what follows is a list of possible causes, not the cause (Ray: "There are some potential root
#: causes.")
_LISTED_CAUSES = re.compile(r"\b(?:There are some|Some|Possible|Potential) (?:potential |possible )?root causes?\b|"
                            r"\bpossible (?:root )?causes (?:are|include)\b|"
                            # (or what happens as a rule: "This typically happens when the GPU runs out of memory or
                            # some processes are hanging")
                            r"\b(?:This|It|That) (?:typically|usually|often|normally|generally|commonly) (?:happens|"
                            r"occurs|means)\b", re.I)
#: words just before a failure's own that say it is not there ("no nccl error", "without any illegal memory access")
#: words that name a failure the reader may meet, in a document's advice ("If you encounter a connection error ...",
#: "if you see `CUDA out of memory`, lower ..."): what follows them on the line did not happen
_IF_YOU = re.compile(r"\b(?:[Ii]f|[Ii]n case) you (?:ever )?(?:encounter|see|get|hit|run into|are seeing|receive|experience|face|"
                     r"meet)\b|"
                     # (or a condition on an error, a program's note of what it would do then: "If a CUDA memory
                     # allocation error is detected, the request will be retried with a smaller batch")
                     r"\b(?:[Ii]f|[Ii]n case|[Ww]henever|[Ss]hould) (?:an?|the|any) (?=[^,;.\n]{0,80}?\b(?:is detected|is raised|"
                     r"occurs|happens|is thrown|is hit)\b)")
_NAMED_AS_ABSENT = re.compile(r"\b(?:no|without(?: an?| any)?|never an?)\s+$", re.I)
#: crashes that follow an allocation that failed, where the same words name both (the crash is the consequence)
_CRASH_AFTER_OOM = ("crash-access-violation",)


def _either(patterns) -> re.Pattern | None:
    """One pattern that matches where any of `patterns` does (None among them skipped; None where none is left), each
    alternative under its own flags (case, multi-line) as a scoped group."""
    parts = []
    for p in patterns:
        if p is not None:
            scoped = "".join(c for c, f in (("i", re.I), ("m", re.M), ("s", re.S)) if p.flags & f)
            parts.append(f"(?{scoped}:{p.pattern})")
    return re.compile("|".join(parts)) if parts else None


class Knowledge:
    """All engines' words with their required words, indexed for the scanner."""

    def __init__(self, engines: tuple[Engine, ...], memo: dict | None = None) -> None:
        """`memo`: what `prefilter` read from patterns before (`pattern_cache`), by pattern; `self.memo_used` is what
        this one read, to keep for the next."""
        self.engines = engines
        self._memo, self.memo_used = memo or {}, {}
        required, prefix, alternatives = self._remembered()
        self.fingerprints = [(e.name, e.log.fingerprint) for e in engines if e.log.fingerprint is not None]
        self.run_start = [p for e in engines for p in e.log.run_start]
        #: every engine's server command (`LogWords.launch`), typed at a shell prompt or by its path, with arguments
        self.launch = [re.compile(r"^\s*(?:[$#]\s*)?(?:\S*/)?(?:" + e.log.launch.pattern + r")(?=\s+\S)", e.log.launch.flags)
                       for e in engines if e.log.launch is not None]
        #: every engine's line of a request answered, and of a program's end of its work (`LogWords.answered`,
        #: `LogWords.work_done`), each as one pattern (None where no engine has one)
        self.answered = _either(e.log.answered for e in engines)
        self.work_done = _either(e.log.work_done for e in engines)
        #: every engine's line that it stopped a child of its own by a kill (`LogWords.stops_own`)
        self.stops_own = _either(e.log.stops_own for e in engines)
        #: every engine's bare lines of a request's work (`LogWords.bare_requests`)
        self.bare_requests = [e.log.bare_requests for e in engines if e.log.bare_requests is not None]
        self.messages: list[tuple[Message, str]] = [(m, e.name) for e in engines for m in e.log.messages]
        # (a long alternation, a user's wordings for requests, as one pattern per alternative: see `alternatives`)
        self.milestones = [(marker, q) for e in engines for marker, p in e.log.milestones for q in alternatives(p)]
        self.figures: list[Figure] = [f for e in engines for f in e.log.figures]
        #: the engine whose module holds each figure (by the figure's id): its words are that engine's
        self.figure_owner: dict[int, str] = {id(f): e.name for e in engines for f in e.log.figures}
        self.frames: dict[str, list[re.Pattern]] = {}
        for e in engines:
            for phase, p in e.log.frames.items():
                self.frames.setdefault(phase, []).append(p)
        self.engine = {e.name: e for e in engines}
        #: every engine's steps that settle a failure's code, and its model loader's frames (a traceback may run
        #: through another engine's library: SGLang calls vLLM's layers)
        self.step_codes = [s for e in engines for s in e.log.step_codes]
        self.loaders = [e.log.loader for e in engines if e.log.loader is not None]
        #: every engine's interactive prompt with a question typed at it (`LogWords.chat`)
        self.chat = [e.log.chat for e in engines if e.log.chat is not None]
        #: every engine's line after which it prints the model's answer bare (`LogWords.answer_begins`), as one pattern
        #: matched at a line's start
        begins = [e.log.answer_begins.pattern for e in engines if e.log.answer_begins is not None]
        self.answer_begins = re.compile(r"\s*(?:" + "|".join(begins) + ")") if begins else None
        #: every engine's line after which it replays a child's output (`LogWords.replay_begins`), as substrings
        self.replay_begins = tuple(e.log.replay_begins for e in engines if e.log.replay_begins)
        #: every engine's memory sentences in full (a line cut partway into one is cut before its cause)
        self.sentences = tuple(x for e in engines for x in e.log.sentences)
        self.passive = [f for f in self.figures if f.passive]
        #: figures whose every value is kept as a series ("list"), read from a program's line (no command line's
        #: setting, no person's words): what a periodic statistics line is read into (`scan.Scanner._sampled_out`);
        #: not the sizes of failed allocations, each of which is evidence
        self.series_figures = frozenset(i for i, f in enumerate(self.figures) if f.mode == "list" and not f.command
                                        and not f.prose and f.key != "failed_alloc_bytes")
        #: figures read only from a person's words (never from a line a program wrote)
        self.prose_figures = frozenset(i for i, f in enumerate(self.figures) if f.prose)
        # tried only on some lines (the first lines, a failure's neighbours): fingerprints and passive figures,
        # behind their own word search (kept out of `words`, which decides which lines are read at all)
        sampled = [p for _, p in self.fingerprints] + [f.pattern for f in self.passive]
        self.sample_always: set[int] = set()
        sample_by_word: dict[str, list[int]] = {}
        for i, p in enumerate(sampled):
            words = required(p)
            if words is None:
                self.sample_always.add(i)
            for w in words or ():
                sample_by_word.setdefault(w, []).append(i)
        self.sample_words = Words(sample_by_word)
        self.sample_by_id = [sample_by_word[w] for w in self.sample_words.words]
        #: figure index -> the words its matches start with (a search may begin at the first of them), as a tuple
        #: (in a fixed order), or None
        self.figure_prefix = [None if (w := prefix(f.pattern)) is None else tuple(sorted(w)) for f in self.figures]
        # every pattern the scanner tries, with the words one of which it needs (None: try always)
        items: list[tuple[str, int, re.Pattern]] = (
            [("start", i, p) for i, p in enumerate(self.run_start)]
            + [("launch", i, p) for i, p in enumerate(self.launch)]
            + [("msg", i, m.pattern) for i, (m, _) in enumerate(self.messages)]
            + [("ms", i, p) for i, (_, p) in enumerate(self.milestones)]
            + [("fig", i, f.pattern) for i, f in enumerate(self.figures) if not f.passive]
            + [("echo", i, p) for i, p in enumerate(ECHOES)]
            + [("elision", 0, ELISION), ("frame", 0, PY_FRAME)])
        self.always: dict[str, list[int]] = {}
        by_word: dict[str, list[tuple[str, int]]] = {}
        self.words_of: dict[tuple[str, int], frozenset[str]] = {}
        for cat, i, p in items:
            words = required(p)
            if words is None:
                self.always.setdefault(cat, []).append(i)
                continue
            self.words_of[(cat, i)] = words
            for w in words:
                by_word.setdefault(w, []).append((cat, i))
        self.words = Words(by_word)
        self.by_id = [by_word[w] for w in self.words.words]
        self.milestone_only = {w for w, uses in by_word.items() if all(c == "ms" for c, _ in uses)}
        # lines that differ only in their digits (periodic statistics, access lines) hold the same words, unless a
        # word has digits of its own: the candidates of a line are kept by its shape with digits made 0
        self._shape: dict[bytes, dict[str, set[int]]] = {}
        # message -> its word sets (`necessary`) without a digit and with one, when first used
        self._needs: dict[int, tuple[tuple[frozenset[str], ...], tuple[frozenset[str], ...]]] = {}
        self._live: dict = {}  # a shape's candidate messages -> those its lines may match (`_live_messages`)
        self._explicit: dict[int, tuple[set[int], bool]] = {}  # id(a line's message candidates) -> (them, explicit)
        digit_words = [w.translate(_ZEROS) for w in (x if isinstance(x, bytes) else x.encode()
                                                      for x in self.words.words) if any(48 <= ch <= 57 for ch in w)]
        self._digit_words = Words([w.decode() for w in digit_words])

    def _remembered(self):
        """`prefilter.required`, `prefix` and `alternatives`, each answered from `self._memo` where it holds the
        pattern's text and flags, and recorded in `self.memo_used`."""
        memo, used = self._memo, self.memo_used

        def key(tag: str, p) -> str:
            return f"{tag}\x00{flags_of(p)}\x00{p.pattern}"

        def words(tag: str, fn):
            def read(p):
                k = key(tag, p)
                got = memo.get(k, _MISSING)
                if got is _MISSING:
                    got = fn(p)
                    got = None if got is None else sorted(got)
                used[k] = got
                return None if got is None else frozenset(got)
            return read

        def pieces(p):
            if not isinstance(p.pattern, str) or len(p.pattern) < ALTERNATION_MIN:
                return alternatives(p)  # (short: one piece, at once)
            k = key("a", p)
            got = memo.get(k, _MISSING)
            if got is _MISSING or got is not None and "|".join(got) != p.pattern:
                out = alternatives(p)
                got = None if len(out) == 1 else [q.pattern for q in out]
            used[k] = got
            return [p] if got is None else [lazy(q, flags_of(p)) for q in got]

        return words("r", required), words("p", prefix), pieces

    def candidates(self, low: bytes) -> dict[str, set[int]]:
        """Category -> indexes of the patterns a lowercased line could match (only categories with some).
        The result is shared between lines of one shape: callers must not change it."""
        shape = low.translate(_ZEROS)
        hit = self._shape.get(shape)
        if hit is None:
            # (a shape is kept only where it holds no word with a digit, whose lines may differ in it; the check is one
            # of the shape alone, so a shape found kept passed it)
            if self._digit_words.ids(shape):
                return self._candidates(low)
            if len(self._shape) >= SHAPES:
                self._shape.clear()
            hit = self._shape[shape] = self._candidates(low)
        return hit

    def _candidates(self, low: bytes) -> dict[str, set[int]]:
        out: dict[str, set[int]] = {cat: set(ix) for cat, ix in self.always.items()} if self.always else {}
        by_id = self.by_id
        for wid in self.words.ids(low):
            for cat, i in by_id[wid]:
                if cat in out:
                    out[cat].add(i)
                else:
                    out[cat] = {i}
        return out

    def sampled(self, low: bytes) -> tuple[list[int], list[int]]:
        """The fingerprints (indexes into `fingerprints`) and passive figures (into `passive`) a lowercased
        line could match."""
        ix = set(self.sample_always)
        for wid in self.sample_words.ids(low):
            ix.update(self.sample_by_id[wid])
        n = len(self.fingerprints)
        return sorted(i for i in ix if i < n), sorted(i - n for i in ix if i >= n)

    def verdict(self, text: str, msg_ix: set[int], low: str | None = None) -> Verdict | None:
        """What a line says about a failure, from the messages whose words it holds (`msg_ix`: the line's own
        candidates, `candidates(...)["msg"]`, a set lines of one shape share; `low`: the line lowercased, where the
        caller has it)."""
        hits = []
        low = text.lower() if low is None else low
        live = by_identity(self._live, msg_ix, lambda ix: self._live_messages(ix, low), LIVE_SETS) if msg_ix else ()
        for i, digit_needs in live:
            if digit_needs and not _holds(low, digit_needs):
                continue  # (a line without one word of each set the pattern needs: no search; see prefilter.necessary)
            m, eng = self.messages[i]
            found = m.pattern.search(text)
            if found and m.kind in ("not_oom", "error") and _NAMED_AS_ABSENT.search(text, 0, found.start()):
                continue  # (a failure named as absent: "tensor_parallel_size = 1  no nccl error", "without an NCCL error")
            if found:
                origin = "generic" if eng == "generic" and not (m.phase or m.code) else "explicit"
                if eng == "generic" and m.kind == "not_oom" and m.code not in _OVER_OOM_WORDS:
                    origin = "generic"
                hits.append((RANK[(origin, m.kind)], m, eng, origin, i, found.start()))
        if hits and "://" in text:
            # (words inside a web address, "https://docs.vllm.ai/.../troubleshooting.html#out-of-memory", are its name,
            # not the line's own: a page named, no failure)
            urls = [u.span() for u in _URL.finditer(text)]
            hits = [h for h in hits if not any(a <= h[5] < b for a, b in urls)]
        if hits and _SAID_NORMAL.search(text):
            # (the program's own words that this error is expected and goes on: llama.cpp's "failed to initialize the
            # context: ... (this warning is normal during memory fitting)"): no failure
            return Verdict(kind="note", phase=None, code="said-normal", engine="generic")
        advised = _IF_YOU.search(text) if hits else None
        if advised:
            # a failure a document names as one the reader may meet ("If you encounter a connection error with Hugging
            # Face (e.g., `We couldn't connect to 'https://huggingface.co' ...`), try ..."): none happened
            hits = [h for h in hits if h[5] < advised.start()]
        listed = _LISTED_CAUSES.search(text) if hits else None
        if listed and any(h[5] > listed.start() for h in hits):
            # causes a program lists as possible ("There are some potential root causes. (1) The process is killed by
            # SIGKILL by OOM killer ... (3) ... SIGSEGV", Ray's worker exit): none of them is stated; the line says
            # only that the process died
            hits = [h for h in hits if h[5] < listed.start()]
            if not hits:
                return Verdict(kind="wrapper", phase=None, code="", engine="generic")
        if not hits:
            return None
        if told_fixed(text) and not FRAME.search(text):
            # (a person's line that tells of the failure as past and fixed, its error quoted: "Before, vLLM refused to
            # start with \"ValueError: ...\". I set --max-model-len 16384 and now it starts and answers fine")
            return None
        # the strongest kind first; among equals the words that name a code, then the order engines list them in
        # (specific before general)
        hits.sort(key=lambda h: (-h[0], not h[1].code, h[4]))
        # (a crash a line only says could come, "This could lead to a segmentation fault at exit": none came)
        hits = [h for h in hits if h[1].kind not in ("not_oom", "error")
                or not _MAY_LEAD.search(text, max(0, h[5] - 80), h[5])]
        hint = _KILL_IF.search(text) if any(h[1].phase == "HOST" for h in hits) else None
        if hint:  # (the kill's words after "If exit code is -9": the case it did not report)
            hits = [h for h in hits if h[5] < hint.start() or not (h[1].phase == "HOST" or h[3] == "generic"
                                                                   and h[1].kind == "oom")]
        if any(h[1].phase == "HOST" for h in hits) and _KILL_DENIED.search(text):
            # a kill the same line says was not the OOM killer's ("exit code 137 (OOMKilled=false)", "It was not
            # killed by the OOM killer", "dmesg shows no oom-killer"); a SIGKILL it names is one of unknown cause
            # (and the bare "OOM" of the denial's own words)
            hits = [h for h in hits if h[1].phase != "HOST" and not (h[3] == "generic" and h[1].kind == "oom")]
            if SIGKILL_RX.search(text) and not any(h[1].kind in ("oom", "not_oom") for h in hits):
                return Verdict(kind="error", phase=None, code="process-killed", engine="generic")
        sup: list[bool] = []  # (`supposed`, read once: a long line's clauses are many searches)

        def supposes() -> bool:
            if not sup:
                sup.append(supposed(text))
            return sup[0]
        if hits and hits[0][3] == "generic" and hits[0][1].kind == "oom" and _advisory(text, supposes):
            hits = [h for h in hits if not (h[3] == "generic" and h[1].kind == "oom")]
            if past_fixed(text):  # (a failure told as past and fixed: its quoted error is no failure either)
                hits = [h for h in hits if h[3] != "generic"]
        elif hits and hits[0][2] == "generic" and hits[0][1].kind == "oom" and supposes() and not SIGKILL_RX.search(
                text):
            # (and the general words that name a step or a kill, where the line only supposes them: "My strong
            # suspicion is the process is being killed under memory pressure (OOM)"; not a kill the line states with
            # a guess at its cause, gunicorn's "Worker (pid:25134) was sent SIGKILL! Perhaps out of memory?")
            hits = [h for h in hits if not (h[2] == "generic" and h[1].kind == "oom")]
        if hits and any(h[1].code in _CRASH_CODES and h[2] == "generic" for h in hits) and not _LOGGED.match(
                text) and not FRAME.search(text) and crash_not_stated(text):
            # (a crash a person's line names without stating it: "Could this crash with SIGSEGV if I raise the
            # context?", "It did not crash with SIGSEGV this time", "不再段错误退出了")
            hits = [h for h in hits if not (h[1].code in _CRASH_CODES and h[2] == "generic")]
        if hits and hits[0][3] == "generic" and hits[0][1].kind == "error" and _level(text) in _QUIET:
            # an INFO line that mentions an error ("retrying after error: ...") is not a failure; the other words it
            # holds still count (RAGFlow's "INFO ... set_progress(...), progress: -1, progress_msg: ... [ERROR]
            # [Exception]: [ONNXRuntimeError] ... Available memory of 0 is smaller than requested bytes of 5505024")
            hits = [h for h in hits if not (h[3] == "generic" and h[1].kind == "error")]
        if not hits:
            return None
        top = hits[0]
        if top[1].kind == "not_oom" and top[1].code in _CRASH_AFTER_OOM:
            # a bad access named with memory running out ("CUDA error: out of memory and SIGSEGV: segmentation
            # violation"): the NULL a failed allocation gave back was used; memory ran out first
            top = next((h for h in hits if h[1].kind == "oom"), top)
        # (a wrapper's phase only from the failure's own clause: "0.01 is too low (resulting in `RuntimeError: Not
        # enough memory`), while 0.05 will result in `Exception: Capture cuda graph failed`" tells two runs apart)
        phase = next((h[1].phase for h in hits if h[1].phase and (h[1].kind == top[1].kind or h[1].kind == "wrapper"
                                                                  and clause_at(text, h[5]) == clause_at(text, top[5]))),
                     None)
        code = top[1].code or next((h[1].code for h in hits if h[1].code and h[1].kind == top[1].kind), "")
        return Verdict(kind=top[1].kind, phase=phase, code=code, engine=top[2], candidates=top[1].candidates)

    def loads_on_request(self, engine: str) -> bool:
        """The engine's front server loads a model for the request it is sent (`LogWords.loads_on_request`: Ollama),
        so a request's line or a failed answer may be that load's."""
        e = self.engine.get(engine)
        return e is not None and e.log.loads_on_request is not None

    def own_or_wrapped(self, engine: str, get: Callable[[LogWords], object]) -> object:
        """What `get` reads from the engine's log words, or, where it gives nothing there, from those of the engine
        it wraps (Ollama, KoboldCpp, LM Studio, llama-cpp-python print llama.cpp's lines); None where neither has it."""
        e = self.engine.get(engine)
        for name in (engine, e.wraps if e else None):
            value = get(self.engine[name].log) if name in self.engine else None
            if value:
                return value
        return None

    def _live_messages(self, msg_ix: set[int], low: str) -> list[tuple[int, tuple[frozenset[str], ...]]]:
        """The messages of `msg_ix` that a line (`low`, lowercased) of its shape may match, each with the word sets it
        needs that hold a digit: a set of words without one is held by every line of the shape alike (lines of one
        shape differ in their digits only, `candidates`), so it is checked once per shape; one with a digit ("100%
        cache") is checked for each line. In `msg_ix`'s order."""
        out = []
        for i in msg_ix:
            split = self._needs.get(i)
            if split is None:
                needs = necessary(self.messages[i][0].pattern)
                digits = tuple(s for s in needs if any(c.isdigit() for w in s for c in w))
                split = self._needs[i] = (tuple(s for s in needs if s not in digits), digits)
            plain, digits = split
            if plain and not _holds(low, plain):
                continue
            out.append((i, digits))
        return out

    def line_verdict(self, text: str) -> Verdict | None:
        """What one line says (`verdict`), from the messages whose words it holds (its own prefilter candidates):
        for a line read on its own, outside the scan."""
        return self.verdict(text, self.candidates(text.lower().encode("utf-8", "replace")).get("msg", set()))

    def without_wrappers(self, text: str) -> str:
        """`text` with the words of every wrapper message it holds blanked out ("Got fatal signal from worker
        processes, shutting down"): what else the line says."""
        for i in self.candidates(text.lower().encode("utf-8", "replace")).get("msg", ()):
            m, _ = self.messages[i]
            if m.kind == "wrapper":
                text = m.pattern.sub(" ", text)
        return text

    def explicit_words(self, msg_ix: set[int]) -> bool:
        """The line holds words of an engine's own message (not only PyTorch's or CUDA's). Kept by the identity of
        the candidates' set, which lines of one shape share (`candidates`)."""
        return by_identity(self._explicit, msg_ix, lambda ix: any(self.messages[i][1] != "generic" for i in ix), SHAPES)


_QUIET = ("INFO", "DEBUG", "I", "D", "V")

#: not-memory codes of the generic words that outrank the out-of-memory words on their own line: a size asked for that
#: no machine has is a size computed wrong, whatever the allocator calls its refusal
_OVER_OOM_WORDS = frozenset({"allocation-size-overflow", "pod-unschedulable"})

#: a Python exception by its class and the start of its message ("RuntimeError: batch_size must be ...")
_EXCEPTION = re.compile(r"(?<![A-Za-z0-9_])[A-Z]\w*(?:Error|Exception)\s*:\s*[\w`'\x22]")  # (an ASCII word's start:
# also glued to Chinese words before it, which are \w to Python, "vllm部署报错ValueError: ...")
#: words that may speak of memory, a cache or an allocation: an exception naming one is not told apart from them
_MEMORY_WORDS = re.compile(r"memory|\bmem\b|alloc|\bOOM|\bVRAM\b|\bRAM\b|cache|\bKV\b|\bblocks?\b|buffer|pool|"
                           r"\bCUDA error\b|\bkilled\b", re.I)


#: an exception's words that a value broke a rule of form, whatever it names ("Block size must be a multiple of 16",
#: "kv_cache_dtype must be one of ...", "head_size 80 is not supported"): a setting or a model refused, not memory
#: used up (not "must be positive" or "greater than", which a pool that got nothing breaks too)
_VALIDATION = re.compile(r"\b(?:must|should) be (?:a multiple of|divisible by|one of|a power of (?:two|2))\b|"
                         # (and the rule told as broken: "Weight input_size_per_partition = 7392 is not divisible by
                         # min_thread_k = 128." from vLLM's Marlin check)
                         r"\b(?:is|are) not (?:evenly )?(?:divisible by|a multiple of)\b|"
                         r"\b(?:is|are) not (?:yet )?supported\b|"
                         # (a call's arguments Python refuses, whatever they are named: "TypeError:
                         # VLLMModelConfig.__init__() got an unexpected keyword argument 'gpu_memory_utilization'")
                         r"\bgot an unexpected keyword argument\b|\bmissing \d+ required (?:positional|keyword-only) "
                         r"arguments?\b|\btakes \d+ positional arguments? but \d+ (?:was|were) given\b", re.I)


#: an exception's words that its cause is not known or not given ("RuntimeError: server crashed for some reason, unable
#: to proceed", DeepSpeed-MII's wait for its server; "died unexpectedly", "Unknown error"): no cause is named
CAUSE_UNKNOWN = re.compile(r"\bfor (?:some|an? unknown|unknown|no (?:apparent|obvious))\s+reasons?\b|\bunknown (?:error|"
                           r"reason|cause|failure)\b|\b(?:crashed|died|exited|terminated|stopped|quit)\s+unexpectedly\b|"
                           # (the adverb first: Ollama's llm/server.go "model runner has unexpectedly stopped, this may
                           # be due to resource limitations or an internal error, check ollama server logs for details")
                           r"\bunexpectedly\s+(?:crashed|died|exited|terminated|stopped|quit)\b|"
                           r"\bwithout (?:a |any )?(?:reason|cause)\b|\b(?:crashed|died)\s*(?:[.,;:!]|$)|"
                           # (a front end's own words that its server went away: Jan's "Error: Model appears to have
                           # crashed!", "the model seems to have stopped")
                           r"\b(?:appears|seems|appear|seem) to have (?:crashed|died|stopped|exited|quit)\b|"
                           # (a notebook's kernel that died: Jupyter's "The kernel appears to have died. It will restart
                           # automatically.", nbclient's "Kernel died while waiting for execute reply" / "DeadKernelError:
                           # Kernel died", Colab's "Your session crashed after using all available RAM" names its own)
                           r"\bKernel died\b|\bDeadKernelError\b|"
                           # (a client's words that its server went away, ggml-rpc.cpp's "Remote RPC server crashed or
                           # returned malformed response")
                           r"\bcrashed or (?:returned|sent|gave)\b|"
                           # (a loader's words that name only the file it failed on, Ollama's client: "Error: error
                           # loading model /Users/me/.ollama/models/blobs/sha256-8934...")
                           r"\berror loading model:? " + PATH_ALONE + r"|"
                           # (a gRPC status with an empty description: LocalAI's "rpc error: code = Canceled desc = ")
                           r"\brpc error: code = \w+ desc =\s*$|"
                           # (Go's formatting of a nil error, "llama runner process has terminated: %!w(<nil>)", Ollama
                           # relaying an exit with no error; JSON may escape it, "%!w(\u003cnil\u003e)")
                           r"%!\w\((?:<nil>|\\u003cnil\\u003e)\)|"
                           # (Ollama's client relaying that its runner went away mid-answer: "Error: an error was
                           # encountered while running the model: unexpected EOF"; the runner's own lines say why)
                           r"\bwhile running the model: (?:unexpected )?EOF\b|"
                           # (... or its server's own relay of the runner on localhost gone: 'POST predict: Post
                           # "http://127.0.0.1:54043/completion": read tcp ...: wsarecv: An existing connection was
                           # forcibly closed by the remote host.', '...: EOF', '...: connection refused')
                           r"\bPOST predict: Post \\?\x22http://127\.0\.0\.1:\d+/completion\\?\x22: (?:(?:unexpected )?EOF|"
                           r"read tcp [^\n]{0,200}?(?:forcibly closed|connection reset|EOF)|dial tcp [^\n]{0,120}?"
                           r"connection refused)|"
                           # (a client or a supervisor relaying that the server went away, its cause elsewhere:
                           # Xinference's "{'detail': 'Remote server 0.0.0.0:36281 closed'}", aiohttp's "Server
                           # disconnected", httpx's "RemoteProtocolError: Server disconnected without sending a response")
                           r"\bRemote server [\w.:-]+ closed\b|\bServer disconnected(?: without sending a response)?\b|"
                           # (xoscar's exception for it, as Xinference relays it: "xoscar.errors.ServerClosed")
                           r"\bServerClosed\b|"
                           # (a server's 5xx answer relayed with only its status's name or the server's generic words
                           # for a failed step: '{"error":{"message":"Internal Server Error","code":500}}', llama-server's
                           # '{"error":{"code":500,"message":"Compute error.","type":"server_error"}}' for a decode that
                           # failed, a client's "HTTP 502 Bad Gateway from http://...", Envoy's "upstream connect error
                           # or disconnect/reset before headers": the server's own log says why)
                           r"[\x22']message[\x22']\s*:\s*[\x22'](?:Internal Server Error|Compute error\.?|Bad Gateway|"
                           r"Service Unavailable|Gateway Time-?out|Internal error)[\x22']|"
                           r"\b(?:HTTP(?:/\d(?:\.\d)?)? )?5\d\d (?:Bad Gateway|Service Unavailable|Gateway Time-?out|"
                           r"Internal Server Error)(?:\s+(?:from|for url:?)\s+\S+)?\s*\W?\s*$|"
                           r"\bupstream connect error or disconnect/reset before headers\b|"
                           # (httpx's own words for it, "Server error '504 Gateway Time-out' for url '...'", and a
                           # proxy's HTML page for it, nginx's "<title>502 Bad Gateway</title>", "<h1>504 Gateway
                           # Time-out</h1>")
                           r"\bServer error '5\d\d [A-Z][\w -]{2,40}' for url\b|<(?:title|h1)>5\d\d [A-Z][\w -]{2,40}</(?:title|h1)>|"
                           # (ggml-sycl's CHECK_TRY_ERROR, which catches a sycl::exception and names only the call:
                           # "error:CHECK_TRY_ERROR((*stream).memcpy(...)): Exception caught in this line of code.",
                           # "Exception caught at file:ggml-sycl.cpp, line:432")
                           r"\bException caught (?:in this line of code|at file\b)|"
                           # (or an exception whose message only says that a step failed: "RuntimeError: Initialization
                           # failed", "RuntimeError: Engine core initialization failed.")
                           r"(?:Error|Exception)\s*:\s*(?:[\w-]+\s+){0,3}(?:failed|failure|aborted)\W*$|"
                           # (vLLM V1's multiproc executor relaying a worker's failure, its quoted error cut off or not
                           # printed: "RuntimeError: Worker failed with error" / "... with error '', please check the
                           # stack trace above for the root cause")
                           r"(?:Error|Exception)\s*:\s*(?:[\w-]+\s+){0,3}failed with error\s*(?:''|\x22\x22)?\W*"
                           r"(?:please check the stack trace above for the root cause\W*)?$", re.I)


#: a file path in an error's words ("/.cache", "~/.cache/huggingface/hub", "C:\\models\\kv_cache.gguf"): its names
#: are a directory's or a file's, not memory's
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:[\\/][\w.@+-]+)+[\\/]?")


def without_paths(text: str) -> str:
    """`text` with the file paths in it blanked (`_PATH`): what is left are its own words."""
    return _PATH.sub(" ", text)


#: a program's own words, beside an error on the same line, that it is expected ("(this warning is normal during memory
#: fitting)", "this error is expected and can be ignored")
_SAID_NORMAL = re.compile(r"\(?this (?:warning|error|message) is (?:normal|expected|harmless)\b|"
                          r"\bthis (?:warning|error|message) (?:can|may) (?:safely )?be ignored\b|"
                          # (a proxy's poll of the server it started, which answers 503 or refuses the connection until
                          # its model is loaded: llama-swap's proxy/process.go, "<m> Health check error on http://...,
                          # status code: 503 (normal during startup)", "<m> Connection refused on ..., giving up in 118s
                          # (normal during startup)", and its early builds' bare "!!! Health check error: status code:
                          # 503"; its give-up is another line, "health check timed out after 120s")
                          r"\(normal during startup\)|\bHealth check error(?: on \S+,|:) (?:status code: 503\b|[^\n]{0,120}"
                          r"\bconnection refused\b)|"
                          # (JAX probing each back end it was built for, at INFO, and going on with the next: xla_bridge's
                          # "Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: ...", then "Falling
                          # back to cpu"; under absl's prefix, "xla_bridge.py:689]", or Python logging's,
                          # "INFO:...:jax._src.xla_bridge:895:")
                          r"\bxla_bridge(?:\.py:\d+\]|:\d+:) Unable to initialize backend '\w+'", re.I)


def exception_not_memory(text: str) -> bool:
    """`text` quotes a Python exception, its class and message, with no word of memory in it ("[Bug] pp>1 report
    RuntimeError: batch_size must be equal to batch_size_k"): a named error that is not memory running out; not one
    whose words say its cause is unknown (`CAUSE_UNKNOWN`)."""
    m = _EXCEPTION.search(text)
    if not m or CAUSE_UNKNOWN.search(text, m.start()) or _MAY_LEAD.search(text, max(0, m.start() - 80), m.start()):
        return False  # (nor one a warning names as what could follow: "This can cause fd limit errors like `OSError:")
    return not _MEMORY_WORDS.search(without_paths(text)) or bool(_VALIDATION.search(text, m.start()))
SIGKILL_RX = re.compile(SIGKILL, re.I)  # (see engines.generic.SIGKILL)
#: an OOM kill denied: by the container's flag, or in words ("not killed by the OOM killer", "wasn't OOM-killed",
#: "was not OOMKilled", "no oom-killer", "nothing gets killed")
_KILL_DENIED = re.compile(
    # (also a kill the user says was theirs: "after I ran docker stop", "I ran kill -9 myself", "(no OOM, ...)")
    r"\bdocker (?:stop|kill)\b|\bkill -(?:9|KILL)\b|\bkill(?:ed)? it myself\b|\bI killed\b|\((?:no|not an?) OOM\b|"
    r"OOMKilled[\x22':= ]*(?:false|0)\b|\bno (?:sign of (?:the |an? )?)?oom[- ]?kill|"
    r"\b(?:not|never|wasn['\u2019]?t|isn['\u2019]?t|weren['\u2019]?t|didn['\u2019]?t get)\s+(?:\w+\s+){0,3}?"
    r"(?:oom[- ]?kill\w*|killed)|\bnothing (?:gets|got|was|is) killed|\bno (?:process|one) (?:gets|got|was) killed",
    re.I)

#: words that a failure could follow, just before its words ("This could lead to a segmentation fault at exit", arrow's
#: warning at exit): a possibility, not a failure
# (also with the kind of error and an example after it: vLLM's ulimit warning, "This can cause fd limit errors like
# `OSError: [Errno 24] Too many open files`")
# (or what a setting the program changed is meant to keep away: llama-server's "main: setting n_batch = n_ubatch = 512
# to avoid assertion failure", "forcing eager mode in order to avoid a segmentation fault")
_MAY_LEAD = re.compile(r"(?:\b(?:could|may|might|can|would)\s+(?:\w+\s+)?(?:lead to|cause|result in|trigger)|"
                       r"\b(?:to|in order to|so as to)\s+(?:avoid|prevent)(?:ing)?)\s+(?:an?\s+|the\s+|any\s+)?"
                       r"(?:[\w-]+\s+){0,4}?(?:(?:errors?|failures?|crash(?:es)?|issues?|problems?)\s+)?"
                       r"(?:(?:like|such as|e\.g\.,?)\s*)?[`'\x22(]*[\w.]*$", re.I)
#: an OOM kill an engine's message names only as the cause of another exit code than the one it reports (SGLang's
#: "Rank 0 scheduler died during initialization (exit code: -3). If exit code is -9 (SIGKILL), a common cause is the
#: OS OOM killer."): a hint for a case that did not happen
_KILL_IF = re.compile(r"\bif (?:the )?(?:exit code|exit status|return code|status|signal) (?:is|was|==?) -?(?:9|137)\b",
                      re.I)


def _level(text: str) -> str:
    m = LEVEL.match(text)
    return (m.group(1) or m.group(2) or "").upper() if m else ""


#: an out of memory raised, as its exception prints it ("torch.OutOfMemoryError: CUDA out of memory. Tried to ...",
#: "RuntimeError: CUDA error: out of memory"): a failure whatever level the program that relays it logs it at (NVIDIA
#: Dynamo's "INFO dynamo_llm::engines::vllm::worker: VLLM: (VllmWorkerProcess ...) torch.OutOfMemoryError: ...")
_RAISED = re.compile(r"\b(?:torch\.(?:cuda\.)?)?OutOfMemoryError: |\b(?:RuntimeError|MemoryError): (?:CUDA |HIP )?"
                     r"(?:error: )?out of memory\b|"
                     # (an error a task's progress message relays with its own level tag or class in brackets: RAGFlow's
                     # "INFO ... progress_msg: 13:10:04 [ERROR][Exception]: [ONNXRuntimeError] : 6 : ...")
                     r"\[(?:ERROR|Exception)\]|\[\w+Error\]\s*:")


#: a program's log prefix at a line's start (a time, a level, a process tag): its line, never a person's words
_LOGGED = re.compile(r"^\s*(?:\[?\d{4}-\d\d-\d\d|\d\d-\d\d \d\d:|time=|level=|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|"
                     r"FATAL)\b|\(\w+(?: \w+=\w+)* pid=\d+\)|\[[\w.: -]+\]|[\w.-]+\[\d+\]: )")
#: the codes of a crash by its class, which a person's words may name without one having happened
_CRASH_CODES = frozenset({"crash-access-violation", "illegal-instruction", "illegal-memory-access", "bus-error"})


def _advisory(text: str, supposes: Callable[[], bool]) -> bool:
    """Out-of-memory words at INFO/DEBUG level (not an out of memory raised, which another program relays at its own
    level), or only in clauses that advise, suppose, expect or deny one (`supposes`: `prose.supposed` of the line):
    not a failure."""
    return _level(text) in _QUIET and not _RAISED.search(text) or supposes()


#: a web address, to the first space or quote or bracket that ends it
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\x22<>()\[\]`]+", re.I)


def _holds(low: str, needs: tuple[frozenset[str], ...]) -> bool:
    """`low` holds a word of each set in `needs` (plain loops: this runs for every candidate message of a line)."""
    for words in needs:
        for w in words:
            if w in low:
                break
        else:
            return False
    return True


_MISSING = object()


def by_identity(cache: dict, obj, make: Callable, cap: int):
    """`make(obj)`, kept in `cache` under `obj`'s identity (with `obj` itself, so that the id is not reused while the
    entry stands): for the sets of candidates that lines of one shape share (`Knowledge.candidates`), whose contents do
    not change. The cache is emptied when it holds `cap` entries."""
    known = cache.get(id(obj))
    if known is None or known[0] is not obj:
        if len(cache) >= cap:
            cache.clear()
        known = cache[id(obj)] = (obj, make(obj))
    return known[1]


@lru_cache(maxsize=1)
def knowledge() -> Knowledge:
    """Every engine's words, indexed; what was read from their patterns is kept on disk for the next run
    (`pattern_cache`)."""
    name = pattern_cache.digest()
    memo = pattern_cache.load(name) if name else {}
    k = Knowledge(all_engines(), memo)
    if name and k.memo_used != memo:
        pattern_cache.save(name, k.memo_used)
    return k


#: a command line or shell prompt pasted with the log (`$ vllm serve ...`, `user@host:~$ python bench.py --profile`,
#: `docker run ... \\`, a notebook's `!python ...`, a continued line of options): its words name the user's command,
#: never a step the engine is in ("profile_restful_api.py" is a benchmark, not a memory profile)
#: a request sent from a shell (curl, wget, HTTPie): the user's call, not a line of the server's
#: (also by its path, "/usr/bin/curl --progress-bar ... http://edgenode2:8000/v1/chat/completions")
CLIENT_CALL = re.compile(r"^\s*(?:[$#%>]\s*)?(?:(?:/[\w.-]+)*/(?=curl|wget|xh))?(?:curl|wget|https?|xh)\s+\S")
COMMAND = re.compile(
    r"^\s*(?:\(\w[\w.-]*\)\s+)?(?:[\w.-]+@[\w.-]+:\S*\s*[$#]\s+\S|\$\s+\S|>>>\s|PS [A-Za-z]:\\[^>]{0,120}>\s*\S)|"
    # (also as bash's xtrace prints it, "+ llama-server ...", "++ ...")
    r"^\s*(?:[$#%!]\s*|\++\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:sudo\s+(?:-\S+\s+)*)?(?:nohup\s+|exec\s+|time\s+)?"
    r"(?:python[\d.]*|uv\s+run|pip3?|vllm|docker|podman|nerdctl|kubectl|helm|lmdeploy|trtllm-serve|trtllm-build|"
    r"torchrun|accelerate|deepspeed|text-generation-launcher|llama-server|llama-cli|llama-bench|llama-box|ollama|aphrodite|"
    # (not a docker compose service's prefix of the same name, "vllm  | ERROR ...")
    r"mlx_lm\.\w+|mlc_llm|koboldcpp\S*|srun|bash|sh|\.?/\S+\.(?:py|sh)|\./\S+)(?=[ \t]+\S)(?![ \t]+\|)"
    # (not a sentence that begins with the program's name: "llama-server just won't produce anything and hangs ...",
    # "vllm crashes when ...")
    r"(?![ \t]+(?:just|is|was|does|did|doesn't|didn't|won't|wouldn't|isn't|wasn't|will|would|can|can't|cannot|could|"
    r"should|crashes|crashed|hangs|hung|fails|failed|works|worked|runs|ran|seems|keeps|kept|also|then|now|still|only|"
    r"never|always|gets|got|uses|used|starts|started|loads|loaded|takes|took|returns|shows|showed|prints|printed|says|"
    r"has|had|and|or|but|with|on|in|itself|server|process)\b)|"
    # (also a flag in an args list, quoted, a YAML item, with the writer's comment after it: '  "--kv-cache-dtype=fp8"
    # #dynamic quantization of the KV cache', '  - "--max-model-len=1000",  # context length', one commented out:
    # '  # "--max_num_seqs=1",  # Number of concurrent requests')
    r"^\s*(?:#\s*)?(?:-\s+)?['\x22]?--?[A-Za-z][\w-]*(?:[ =]['\x22]?[^\s\\'\x22,]+['\x22]?)?['\x22]?,?"
    # (its value as the list's next item: '"--max-model-len", "16384",')
    r"(?:[ \t]*['\x22][^\s'\x22]{1,200}['\x22],?)?"
    r"(?:\s+--?[A-Za-z][\w-]*(?:[ =]['\x22]?[^\s\\]+['\x22]?)?)*\s*\\?\s*(?:(?<=\s)#[^\n]*|(?<=[,\x22'])\s*#[^\n]*)?$|"
    # a program by its absolute path, then its options ("/var/lib/gpustack/bin/llama-box_v0.0.114 --host 0.0.0.0 ...")
    r"^\s*(?:\++\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*/[\w./+-]+(?=[ \t]+--?[A-Za-z])")


#: an environment variable's or a macro's name, all capitals joined by underscores (OLLAMA_KV_CACHE_TYPE,
#: VLLM_USE_V1, SGLANG_DISABLE_CUDA_GRAPH): a setting, not the name of a step or a function
_SETTING_NAME = re.compile(r"\b(?!CUBLAS_STATUS_)[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")  # (a status code is no setting)


#: IPython's frame header's parameter list after the function's name (8.x: "File x.py:583, in Cls.forward(self, a, b)";
#: 7.x: "/x/qwen2.py in forward(self, positions, hidden_states, kv_cache, attn_metadata)")
_IPY_SIGNATURE = re.compile(r"((?:,|\.py)\s+in\s+[\w.<>]+)\((?:[^()\n]|\([^()\n]*\))*\)?\s*$")


def phase_words(text: str, engine: str | None = None) -> str | None:
    """The phase a frame or an in-progress line names, None if it names none. The run's engine is asked
    first (then the engine it wraps, then the generic words, then every other engine): the same step
    can mean different phases in different engines (a compute-pool allocation is warm-up or serving in
    llama-server, serving only in Ollama's runner, which runs no warm-up). Within one engine KV comes
    first: allocation frames sit inside the warm-up and load frames that call them."""
    if COMMAND.match(text):
        return None
    text = _SETTING_NAME.sub(" ", text)  # (a setting's name, OLLAMA_KV_CACHE_TYPE in a config dump, is no step)
    # (nor a parameter's, in the list IPython's frame header gives after the function's name: "File x.py:583, in
    # AbstractAttention.forward(self, query_input, past_kv_cache_entry, ...)")
    text = _IPY_SIGNATURE.sub(r"\1", text)
    k = knowledge()
    order: list[str] = []
    e = k.engine.get(engine or "")
    if e:
        order += [e.name] + ([e.wraps] if e.wraps else [])
    order += ["generic"] + [x.name for x in k.engines if x.name not in order]
    for name in order:
        frames = k.engine[name].log.frames if name in k.engine else {}
        for phase in ("KV", "WARMUP", "WEIGHTS", "COMPUTE", "RUNTIME"):
            p = frames.get(phase)
            if p is not None and p.search(text):
                return phase
    return None
