"""What one line says about itself: whether the log wrote it (a prefix of its own), whether it states a cause,
the lines a flattened traceback or a JSON-escaped paste holds, the part of an over-long line that matters, and
whether a log's last line ends partway into an error's first words. Pure: text in, text or a verdict out."""

from __future__ import annotations

import re

from .knowledge import COMPOSE_PREFIX, FRAME, PY_FRAME, is_echo

MAX_LINE = 16384  # longer lines (a prompt logged whole, a minified dump) are cut around their failure words

QUOTE = re.compile(r"^(?:> ?)+")
#: an interactive prompt, not a quote: Python's REPL and `ollama run` print ">>> " before what the user types
_PROMPT = re.compile(r">>> \S")
WRAP_LINES = 8  # lines one message wrapped at a terminal's width may span
CUT_LOOKBACK = 64  # lines before a log's unfinished last line searched for one it is the start of
ECHO_LINES = 64  # lines a prompt logged with its newlines may span
#: a logged request whose prompt closes on the same line (vLLM's "..., params: SamplingParams(...)", a JSON line)
ECHO_CLOSED = re.compile(r"params: SamplingParams|sampling_params|lora_request|['\"\)\}\]],?\s*$")
#: a prompt's quoted string as a request line opens it (vLLM's "prompt: '", a JSON body's '"prompt": "')
_PROMPT_OPENS = re.compile(r"(?:\bprompt: |\bprompt=|\x22prompt\x22: ?|\binput_text=|\bgenerated_text=)(['\x22])")


def prompt_closes(text: str) -> bool:
    """The prompt string a request line opens ends on the same line (an unescaped closing quote after it: a curl
    command's JSON body, `-d '{"prompt":"Say hi.","n_predict":8}' -o /dev/null`): its text does not run on into the
    next lines."""
    m = _PROMPT_OPENS.search(text)
    if not m:
        return False
    i = m.end()
    while (j := text.find(m.group(1), i)) >= 0:
        if (j - len(text[:j].rstrip("\\"))) % 2 == 0:  # (an even run of backslashes before it: not escaped)
            return True
        i = j + 1
    return False


ECHO_END = re.compile(r"['\"],\s*(?:params: SamplingParams|sampling_params|lora_request|prompt_token_ids)")
#: the line Python's warnings module writes: the path and line that warned (`_PY_WARNED`: from its ".py"), the category,
#: the message
_PY_WARNED = r"\.py:\d+: \w*Warning: "
_PY_WARNING = r"(?:[A-Za-z]:)?[\w./\\~-]+" + _PY_WARNED
#: the start of a line a log writes itself: a timestamp, a level, a process tag, a bracketed source
_STRONG = (r"^\s*(?:\((?:\w+[\w =]*)?pid=\d+(?:,\s*ip=[\w.:-]+)?\)|\[?\d{4}-\d\d-\d\d|\d\d-\d\d \d\d:|time=|level=|"
           # trantor's "20250430 21:55:01.443740 UTC" (Jan's cortex), glog's "E0306 16:40:07.708802" (Triton)
           r"\d{8} \d\d:\d\d:\d\d\.\d+ |[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ |"
           r"(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)\b|\[[\w.: -]+\]|[A-Z][a-z]{2} +\d+ \d\d:|"
           # kubectl logs --prefix's "[pod/vllm-7d9f8b6c4-xk2lp/vllm] "
           r"\[pod/[\w.-]+(?:/[\w.-]+)?\] |"
           # syslog's and journald's month in the machine's own language ("jun 18 13:23:19", "déc. 03 10:11:12")
           r"[^\W\d_]{3,5}\.? {1,2}\d{1,2} \d\d:\d\d:\d\d |"
           r"\d+\.\d+\.\d+\.\d+ [IWE] |\d{1,2}:\d\d(?::\d\d)?[AP]M [A-Z]{3} |[A-Za-z][\w.-]*\s+\| |"
           # NCCL's debug lines (debug.cc: "host:pid:tid [dev] NCCL INFO ...", "gpu01:2341:2390 [0] NCCL WARN ...")
           r"[\w.-]+:\d+:\d+ \[\d+\] |"
           # a service's line as journalctl prints it without the time ("ollama[8017]: CUDA error 2 at ...")
           r"[\w.-]+\[\d+\]: |"
           # Python's warnings module ("/usr/lib/python3.12/site-packages/torchvision/io/image.py:14: UserWarning:
           # Failed to load image Python extension ... If you don't plan on using image functionality ...")
           + _PY_WARNING)
# (the last: docker compose's "svc-1  | "; before it LocalAI's zerolog "8:02AM DBG "; the first: vLLM's process
# tags "(APIServer pid=1)", "(VllmWorker rank=3 pid=1090)", and Ray's for a worker on another node,
# "(RayWorkerWrapper pid=206994, ip=192.168.10.25)", "(pid=4012, ip=10.0.0.7)")
# (and llama-server's own tags before its function's name, tools/server 2024+: "srv  update_slots: ", "slot launch_slot_: ",
# "que    start_loop: ")
LOG_PREFIX = re.compile(_STRONG + r"|\w+: |(?:srv|slot|que|res|mtmd) {1,4}\w+: )")
#: a prefix no wrapped text starts with by chance (a timestamp, a level, a process tag; not "word: ")
STRONG_PREFIX = re.compile(_STRONG + ")")
#: a Python exception's own line, a traceback's last: its class (dotted or not), bare or with its message after a colon
#: ("asyncio.exceptions.CancelledError", "torch.OutOfMemoryError: CUDA out of memory.")
RAISED = re.compile(r"^\s*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Exit)\b(?::|\s*$)")
#: an error line that says what went wrong: an exception class and its message, "error: ...", a CUDA error text
#: (not a message that is only a number, a status or exit code: "Error: 18446744072635810000", "error: -1073741819")
_ONLY_A_CODE = r"(?!\(?(?:0x[0-9a-fA-F]+|-?\d[\d,.]*)\)?\W*$)"
# (an exception's class also where Chinese words are glued before it, "vllm部署报错ValueError: ...": they are \w to Python)
STATED = re.compile(r"(?:\b|(?<=[^\x00-\x7f]))(?:\w+\.)*(?:[A-Z][A-Za-z0-9_]*)?(?:Error|Exception|Exit|Interrupt):\s+"
                    + _ONLY_A_CODE + r"\S.{6,}|"
                    r"\berror: " + _ONLY_A_CODE + r"\S.{6,}|"
                    # (an application's marker before the error it relays: RAGFlow's "**ERROR**:invalid format: ...")
                    r"\*\*ERROR\*\*:\s*" + _ONLY_A_CODE + r"\S.{6,}|"
                    r"\b(?:CUDA|HIP|ROCm) error(?: \d+ at \S+)?: \S.{6,}|\bCUDA runtime error in .{1,200}?\): \S.{6,}|\b(?:[Ff]ailed|FAILED|[Uu]nable) to [\w -]{1,60}: (?![/~.'\x22]|\w:\\|\S+\.(?:gguf|bin|safetensors|pt)\b)\S.{5,}|\b(?:failed|FAILED|Failed): \S.{6,}|\berror loading [\w ]{1,40}: \S.{6,}|\bfailed with error `\S.{6,}|"
                    r"called `Result::(?:unwrap|expect)\(\)` on an `Err` value: \S.{6,}|"
                    # a Rust panic with its message (before 1.73 quoted on the line: "panicked at 'msg', src/x.rs:2:5";
                    # since, after the location: "panicked at src/x.rs:2:5: msg", the message joined from its own line)
                    r"\bpanicked at (?:'[^']{6,}'|\S+:\d+:\d+:\s+\S.{6,})|"
                    # ... or Go's, its message on the line ("panic: height:27 or width:257 must be larger than
                    # factor:28", net/http's "http: panic serving 127.0.0.1:57511: ..."), where it names no step that
                    # may fail for want of memory (Ollama's runner's "panic: unable to create llama context" does not
                    # say why), nor a bad pointer (that is a crash of its own)
                    r"\bpanic(?: serving [^\s:]+(?::\d+)?)?: (?!runtime error: invalid memory address)(?![^\n]*\b(?:context|"
                    r"models?|load\w*|llama|decod\w*|runner|ggml|CUDA|GPU\d*|device|backend|init\w*|creat\w*|alloc\w*|free|"
                    r"memory|VRAM|RAM|\d+(?:\.\d+)? ?[KMGT]i?B)\b)"
                    r"\S.{6,}|"
                    # ... or C++'s uncaught exception with its what() ("terminate called after throwing an instance of
                    # 'std::runtime_error'  what():  ...", the line after it joined)
                    r"\bterminate called after throwing an instance of '[^']+'\s+what\(\):\s+\S.{6,}|^\s*what\(\):\s+\S.{6,}|"
                    # an exception logged by its class object (LMDeploy's engine.py "exception happened: <class
                    # 'IndexError'> index 17 is out of bounds ...")
                    r"<class '(?:\w+\.)*\w*(?:Error|Exception)'>:?\s+\S.{6,}|"
                    # Intel Gaudi's bridge stating its fatal error (habana_frameworks: "[Rank:0] FATAL ERROR ::
                    # MODULE:PT_LAZY Error, ValidateSyncInputTensors tensor_data is empty."), not its wrapper of a
                    # thread's failure told on the next line ("MODULE:BRIDGE Exception in Launch thread...")
                    r"\bFATAL ERROR :: MODULE:\w+ (?![^\n]{0,40}\bException in \w+ thread\b)\S.{6,}|"
                    # ggml's abort, its source location and its message ("clip.cpp:4391: Unknown projector type")
                    # (alone at its line's start: not GGML_ASSERT's "GGML_ASSERT: ggml.c:4412: ctx->mem_buffer != NULL")
                    r"^\s*(?:[A-Za-z]:)?[^\s:]*\.(?:c|cc|cpp|cxx|cu|m|mm):\d+: (?!warning\b|note\b)[A-Za-z].{6,}")


#: a Python traceback's header, without its colon
TB_HEADER = "Traceback (most recent call last)"


def stated(text: str) -> bool:
    """The line states a cause (not a traceback header, a frame, or a log level word)."""
    return bool(STATED.search(text)) and TB_HEADER not in text


#: the last characters of a line that ends a sentence or a message
_ENDS = frozenset(".!?)]'\":%")


def ended(text: str) -> bool:
    """The line ends a sentence or a message: its last character other than white space is one of `_ENDS` (not an
    opening bracket's negation, C's "(!" that a check's condition begins with: "Check failed: (!")."""
    end = text.rstrip()
    return end[-1:] in _ENDS and not end.endswith("(!")


#: a log line's own prefix in the middle of a line, where a paste joined lines (vLLM's "(EngineCore pid=146) ERROR
#: 03-28 10:55:03 [core.py:1101] ", "INFO 05-30 09:00:25 [gpu_model_runner.py:1560] "); the shortest line checked for it
_JOINED_PREFIX = re.compile(r"(?<=\s)(?:\(\w+(?:_\w+)?(?: pid=\d+)?\) )?(?:ERROR|INFO|WARNING|DEBUG|CRITICAL) "
                            r"\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[\w.]+:\d+\] ")
_JOINED_MIN = 160
_SPLIT_FRAME = re.compile(r'(?=\bFile "[^"]+", line \d+, in )|(?<=\S)\s+(?=(?:\w+\.)*\w+(?:Error|Exception): )')
_FRAME_HEAD = re.compile(r'^(File "[^"]+", line \d+, in [\w<>.]+)\s+(\S.*)$')
_CARETS = re.compile(r"\s*[\^~]{3,}\s*")


BOX = "│┃║"  # the vertical borders of a terminal pane or box
_BOX = re.compile(r"^[│┃║] ?|\s*[│┃║]\s*$")


def unbox(text: str) -> str:
    """A line without the pane's borders around it (and the padding before the right one)."""
    return _BOX.sub("", text) if text[:1] in BOX else text


#: a JSON string's escapes other than the newline it is split on
_JSON_ESCAPE = re.compile(r'\\(["\\/t])')
_UNESCAPED = {"t": "\t"}


def pieces(text: str) -> list[str]:
    """The lines a line holds: a log pasted from JSON (several literal '\\n') is the lines it encodes;
    a flattened traceback (frames, code and carets joined on one line) is split back into frame lines,
    code lines and the exception line."""
    if text.startswith(">") and not _PROMPT.match(text):  # a log quoted in an issue or an e-mail ("> line")
        text = QUOTE.sub("", text)
    if text[:1] in BOX:  # a pane's borders (k9s, tmux, a TUI): "│ INFO ... │"
        text = unbox(text)
    if text.count("\\n") >= 2 and not is_echo(text):
        parts = text.split("\\n")
        if '\\"' in text:  # (a JSON string's other escapes too: `File \"/opt/...\", line 1470` is a frame)
            parts = [_JSON_ESCAPE.sub(lambda m: _UNESCAPED.get(m.group(1), m.group(1)), x) for x in parts]
        return parts
    if len(text) > _JOINED_MIN and (text.count(" ERROR ") + text.count(" INFO ") + text.count(" WARNING ")) >= 2:
        # (log lines a paste joined with spaces, each with its own prefix: "(EngineCore pid=146) ERROR 03-28 10:55:03
        # [core.py:1101] File \"...\" (EngineCore pid=146) ERROR 03-28 10:55:03 [core.py:1101] AssertionError: ...")
        starts = [m.start() for m in _JOINED_PREFIX.finditer(text) if m.start() > 0]
        if len(starts) >= 2:
            bounds = [0, *starts, len(text)]
            return [x for a, b in zip(bounds, bounds[1:]) if text[a:b].strip()
                    for x in pieces(text[a:b].strip())]
    if text.count('File "') < 2 or len(PY_FRAME.findall(text)) < 2:
        return [text]
    out: list[str] = []
    for part in _SPLIT_FRAME.split(_CARETS.sub(" ", text)):
        part = part.strip()
        m = _FRAME_HEAD.match(part)
        out.extend(["  " + m.group(1), "    " + m.group(2)] if m else [part] if part else [])
    return out


#: words of a failure, looked for in a line over MAX_LINE to choose what of it to keep
_FAILURE_WORDS = ("out of memory", "outofmemory", "error", "fail", "alloc")


def window(text: str) -> str:
    """The part of an over-long line that matters: the log's own prefix (a process tag, a time, a level, a source),
    then the text around its first failure word after that prefix and, where that is far from the last one, around
    the last one too (an exception's message after a long value); with no failure word, its start."""
    if len(text) <= MAX_LINE:
        return text
    m = _BARE.match(text)
    head = m.end() if m and _STAMPED.search(m.group(0)) and m.end() <= 300 else 0
    low = text.lower()
    hits = [i for w in _FAILURE_WORDS for i in (low.find(w, head), low.rfind(w)) if i >= head]
    if not hits:
        return text[:MAX_LINE] + " [...]"
    first, last = min(hits), max(hits)
    quarter = MAX_LINE // 4
    # (and the line's own start, a quarter of a window, where the failure words are further on: a request logged with
    # its prompt whole, "Received request chatcmpl-9: prompt: '...", says there what the rest of the line is)
    head = max(head, min(quarter, first - quarter))
    if last - first <= MAX_LINE - 2 * quarter:  # one window holds both
        start = max(head, first - quarter)
        return text[:head] + ("[...] " if start > head else "") + text[start:start + MAX_LINE] + " [...]"
    a = max(head, first - quarter // 2)
    b = max(a + 2 * quarter, last - quarter)
    return (text[:head] + ("[...] " if a > head else "") + text[a:a + 2 * quarter] + " [...] "
            + text[b:b + 2 * quarter] + " [...]")


def stops_inside(text: str, sentences: tuple[str, ...]) -> bool:
    """The line ends partway into one of `sentences` (an engine's message in full: `{}` where it puts a value without
    spaces, `{*}` where it puts free text): it holds the sentence's start, at least 6 characters of it, and nothing
    after the point where it stops ("ValueError: To serve at least one request with the models's max seq len (1310").
    A line that holds a whole sentence, or goes on past one or away from it with other words, does not stop inside
    it."""
    for sentence in sentences:
        parts = re.split(r"(\{\*?\})", sentence)  # literal, value, literal, value, ..., literal
        head = parts[0][:6]
        if len(head) < 6:
            continue
        at = text.find(head)
        while at >= 0:
            if _ends_in(text, at, parts, 0):
                return True
            at = text.find(head, at + 1)
    return False


def _ends_in(text: str, i: int, parts: list[str], k: int) -> bool:
    """text[i:] is the start of parts[k:] (parts[k] a literal), stopping before the whole sentence ends."""
    lit, rest = parts[k], text[i:]
    if len(rest) <= len(lit):
        return lit.startswith(rest) and not (k == len(parts) - 1 and len(rest) == len(lit))
    if not rest.startswith(lit) or k == len(parts) - 1:
        return False  # other words, or the whole sentence with more after it
    start, free = i + len(lit), parts[k + 1] == "{*}"
    j = start
    while j <= len(text) and j - start <= (160 if free else 40):
        if j == len(text):
            return True  # the line stops inside the value
        if _ends_in(text, j, parts, k + 2):
            return True
        if free and text.startswith(parts[k + 2], j):
            return False  # free text ends where the words after it begin
        if not free and text[j].isspace():
            return False  # a value has no spaces
        j += 1
    return False


#: the first words of error lines (an exception, a CUDA error, an abort); a log whose last line ends partway
#: into one of them ("CUDA e", "torch.OutOfMem") was cut inside its error
ERROR_HEADS = ("CUDA error", "CUDA out of memory", "CUDA runtime error", "HIP error", "out of memory",
               "Traceback (most recent call last)", "RuntimeError", "OutOfMemoryError", "torch.OutOfMemoryError",
               "torch.cuda.OutOfMemoryError", "terminate called after throwing", "Segmentation fault", "GGML_ASSERT",
               "GGML_ABORT", "cudaMalloc failed", "failed", "error", "Error", "ERROR", "Exception", "exception",
               "Assertion", "what():", "panic:", "FATAL", "Fatal")


#: a markdown heading of a report (an issue template's "### Ollama version", or its bold form, "**Ollama version**",
#: "**Which version of LM Studio?**")
_HEADING = re.compile(r"#{1,6} +[A-Za-z]|\*\*[A-Za-z][^*\n]{0,80}\*\*:?\s*$")


#: a logfmt line's last value opened by its quote and not closed (`key="...` to the end: Go's slog text handler, Ollama,
#: writes every value with a space or a quote in it quoted, and closes it); one closed, for the lines before it
_OPEN_VALUE = re.compile(r'(?:^|\s)[A-Za-z_][\w.]*="(?:[^"\\]|\\.)*$')
_CLOSED_VALUE = re.compile(r'(?:^|\s)[A-Za-z_][\w.]*="(?:[^"\\]|\\.)*"(?:\s|$)')


def tail_cut(last: str, before: list[str], sentences: tuple[str, ...]) -> bool:
    """The log's last line is cut partway: the start of a line like one before it (`cut_mid_line`), or it stops
    partway into one of an engine's memory `sentences` ("... allocating 16384.00 MiB on devi", `stops_inside`). Both
    reading paths (every line, and the block search) ask this of the same last lines."""
    return bool(before) and (cut_mid_line(last, before) or stops_inside(last, sentences))


#: a line that is one path whose last name ends in a dot ("/src/ggml-cuda/ggml-cuda."; not a sentence that ends with a
#: path, "The model is in /models/qwen.")
_PATH_CUT = re.compile(r"^\s*\S*[/\\][\w.-]*\w\.$")


#: Python's warning line, which the warning's source line follows, indented ("/usr/lib/python3.13/multiprocessing/
#: resource_tracker.py:400: UserWarning: resource_tracker: There appear to be 1 leaked semaphore objects" / "  warnings.warn(")
_WARNED_AT = re.compile(_PY_WARNED)
#: Python's warning line whose message goes on below it: nothing after its category, or a message that ends in a colon
#: ("/.../pyannote/audio/core/io.py:47: UserWarning: " then "torchcodec is not installed correctly ... Solutions are:")
_WARNING_OPENS = re.compile(r"^\s*" + _PY_WARNING[:-1] + r"(?:\s*|\s.*:\s*)$")
#: the source line Python prints under a warning's message, indented by two spaces: a statement ("  warnings.warn(",
#: "  return torch._C._cuda_getDeviceCount() > 0", "  import pynvml  # type: ignore[import]")
_WARNING_SOURCE = re.compile(r"^  (?:(?:return|import|from|raise|yield|assert|with|if|for|del)\b|[A-Za-z_][\w.]*\s*"
                             r"(?:\(|\[|=|\+=))")
#: lines a warning's message may run to below its line
WARNING_BODY_MAX = 40


def in_warning_body(before: list[tuple[int, str]]) -> bool:
    """The line after `before` (numbered lines, oldest first, the last one just above it) is part of a Python warning's
    message that goes on over lines: a warning line that opens one (`_WARNING_OPENS`) is among the last
    WARNING_BODY_MAX lines, and neither the warning's source line (`_WARNING_SOURCE`, which ends it) nor another
    warning's line nor a traceback's header comes after it (a line in brackets may be the message's own: "[start of
    libtorchcodec loading traceback]"). Its words are the library's ("Could not load libtorchcodec. Likely causes:"),
    not the report's."""
    for _, t in reversed(before[-WARNING_BODY_MAX:]):
        if _WARNING_OPENS.match(t):
            return True
        if _WARNING_SOURCE.match(t) or _WARNED_AT.search(t) or TB_HEADER in t:
            return False
    return False


def cut_mid_line(last: str, before: list[str]) -> bool:
    """The log's last line is the start of a line like one just before it, cut where that line goes on
    without a space: the log was cut partway through a line ("de" after "deep-seek-1  | slot ...",
    "2024-11-02:13:33:" after timestamped lines, "... #to" after "... #token: 1920"), so whatever followed
    is missing. A line that ends where another goes on after a space ("web-1  |", "Loading model") is
    whole. before: the lines just before it, oldest first."""
    if last[:1] in BOX:
        last, before = unbox(last), [unbox(b) for b in before]
    t = last.rstrip()
    if len(t.strip()) < 2:
        return False
    above = next((b for b in reversed(before) if b.strip()), "")
    if re.fullmatch(r"`{3,}|~{3,}", t.strip()):
        return False  # a markdown fence that closes a block (not "```bash" that opened one, cut)
    if _HEADING.match(above):
        return False  # the answer under a report's heading ("### Ollama version" / "0.21.0"): a field, not a log line
    if _WARNED_AT.search(above) and t[:1].isspace():
        return False  # the source line Python's warnings print under their own ("  warnings.warn(": a call on lines)
    if t[-1] in "_([{=,-" and not t.lstrip().startswith(("#", "//")) and not _RULE.fullmatch(t.strip()):
        return True  # no whole log line ends so ("... topk -> topp -"), unless it is a rule of dashes
    if _OPEN_VALUE.search(t) and any(_CLOSED_VALUE.search(b) for b in before[-CUT_LOOKBACK:]):
        return True  # a logfmt value opened and never closed (Ollama's `cmd="/usr/lib/ollama/runners/... --model /ro`),
        # where the lines before close theirs: no whole structured line ends inside its quotes
    if _STAMP_ONLY.fullmatch(t) and before:
        return True  # a timestamp (and a level letter) with nothing after it: "0.03.661.696 I"
    if bare_prefix(t):
        # the log's own prefix with nothing after it ("[2025-10-06 20:05:27 DP5 TP5]", "(EngineCore_DP0 pid=1)"): cut
        # where the message begins, unless this log prints such a prefix as a line of its own (llama.cpp's old log.h
        # stamps an empty message: "[1704891429] ")
        prefixed = [b for b in before[-CUT_LOOKBACK:] if STRONG_PREFIX.match(b)]
        return bool(prefixed) and not any(bare_prefix(b.rstrip()) for b in prefixed)
    if len(t) >= 40 and any(t.count(a) > t.count(b) for a, b in ("()", "[]", "{}")):
        return True  # an argument dump or a call whose bracket never closes: "Namespace(admin=False, ... chatcompletio"
    if _PATH_CUT.search(t):
        return True  # a path cut before its file's extension ("/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.": ggml's abort
        # line, "ggml-cuda.cu:88: CUDA error", stops there), not a sentence's stop
    if last[-1:].isspace() or _RULE.fullmatch(t.strip()):
        return False  # (nor a rule of its own, "==================" under a longer "=======...": a report's separator)
    n = len(last)
    if any(len(b) > n and b.startswith(last) and not b[n].isspace() for b in before[-CUT_LOOKBACK:]):
        return True
    # the same with every number made 0: a periodic line cut partway has other times and figures than the last one
    shape = _DIGITS.sub("0", last)
    k = len(shape)
    for b in before[-CUT_LOOKBACK:]:
        other = _DIGITS.sub("0", b)
        if len(other) > k and other.startswith(shape) and not other[k].isspace() and not (
                shape[-1:] == "0" and other[k:k + 1].isdigit()):
            return True
    return False


#: one field of a log's own prefix: a process tag, a bracketed field, a date, a time, a level, a separator
_FIELD = (r"(?:\(\w+[\w =]*pid=\d+\)|\[[^\]\n]{1,80}\]|[\w.]+\.py:\d+\]|\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d)?(?:[.,]\d+)?Z?)?|"
          r"\d\d-\d\d|\d\d:\d\d:\d\d(?:[.,]\d+)?|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL|TRACE)\b:?|"
          r"time=\S+|level=\S+|-)")
_BARE = re.compile(r"\s*" + _FIELD + r"(?:\s*" + _FIELD + r")*\s*")
_BARE_HEAD = re.compile(r"\s*" + _FIELD + r"(?:\s*" + _FIELD + r")*")  # (the same, without the space after it)
#: a field that only a logger writes: a timestamp, a level, a process tag (not a bracketed word, not a docker
#: compose service's "web-1  |", which also prefixes the empty lines of whatever runs in the container)
_STAMPED = re.compile(r"\(\w+[\w =]*pid=\d+\)|\d\d:\d\d|\d{4}-\d\d-\d\d|\b\d{10}\b|"
                      r"\b(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL|TRACE)\b")


def bare_prefix(text: str) -> bool:
    """The line is only a log's own prefix, with no message: "[2025-10-06 20:05:27 DP5 TP5]",
    "INFO 10-06 20:05:27 [gpu_worker.py:1]", "(EngineCore_DP0 pid=1)", "[12/20/2025-04:21:47] [TRT-LLM] [I]"."""
    t = text.strip()
    return bool(t) and len(t) <= 200 and bool(_BARE.fullmatch(t)) and bool(_STAMPED.search(t))


def message(text: str) -> str:
    """The line without the log's own prefix (its time, level, process tag, source, and a logger's or function's
    name before a colon: `text_generation_launcher: `, `llama_context: `): what it says."""
    m = _BARE.match(text)
    said = text[m.end():] if m and _STAMPED.search(m.group(0)) else text.strip()
    return _TARGET.sub("", said, count=1)


def traceback_line(text: str) -> bool:
    """The line is still part of a traceback: a frame, a code line under one (indented, also after the log's or docker
    compose's prefix), carets, a blank, or the rest of a wrapped line (a compose line with no stamp of its own)."""
    if not text.strip() or "^^^" in text or text.startswith((" ", "\t")) or FRAME.search(text):
        return True
    m = _COMPOSE.match(text)
    if not m:
        return False
    body = text[m.end():]
    stamp = _BARE_HEAD.match(body)
    if not stamp or not _STAMPED.search(stamp.group(0)):
        return not STRONG_PREFIX.match(body)  # a wrapped line's rest ("device_context)")
    rest = body[stamp.end():]
    return not rest.strip() or rest[:2].isspace() and len(rest) - len(rest.lstrip()) >= 2


_COMPOSE = re.compile(COMPOSE_PREFIX)
_TARGET = re.compile(r"^[A-Za-z_]\w*(?:(?:::|\.)\w+)*:\s+(?=\S)")


_DIGITS = re.compile(r"\d+")
_RULE = re.compile(r"[\W_]+")
_STAMP_ONLY = re.compile(r"\s*\d[\d.:/T -]*\d(?:\s+[A-Z])?\s*")


#: a line its program wrote at error level: a level word ("ERROR", "level=ERROR", "[E]") or llama.cpp's level letter
#: after its time ("[57831] 4.01.799.347 E ggml_backend_cuda_buffer_type")
_ERROR_LEVEL = re.compile(r"^.{0,80}?(?:\b|\[|level=)(?:ERROR|CRITICAL|FATAL)\b|^\s*(?:\[\d+\]\s+)?\d+\.\d\d\.\d\d\d\.\d\d\d E ")


def error_level(text: str) -> bool:
    """`text` is a line its program wrote at error level (`_ERROR_LEVEL`), or the start of ggml's abort, whose line
    begins with the path of the ggml source that aborted ("/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:88: CUDA
    error", ggml.c ggml_abort) and is here nothing but that path."""
    return bool(_ERROR_LEVEL.match(text) or _GGML_ABORT_PATH.match(text))


#: a line that is only a path into ggml's own sources (".../ggml/src/ggml-cuda/ggml-cuda."): ggml's abort begun
_GGML_ABORT_PATH = re.compile(r"^\s*(?:[A-Za-z]:)?\S*[/\\]ggml[/\\]src[/\\]\S+$")


def cut_error(text: str) -> bool:
    """The line ends partway into an error's first words (at least 3 characters of them, the cut inside a word or,
    10+ characters in, between two of its words; the words starting a word of the line): "CUDA e", "RuntimeErr",
    "... ADD fai", "Traceback (most recent"."""
    t = text.rstrip()
    for head in ERROR_HEADS:
        for k in range(min(len(head) - 1, len(t)), 2, -1):
            part = head[:k]
            # (inside a word; or, for a head of several words, between two of them after 10+ characters:
            # "Traceback (most recent", "terminate called after")
            inside = head[k].isalnum() and part[-1].isalnum()
            between = head[k] == " " and " " in part and len(part) >= 10 and part[-1].isalnum()
            # (the words starting a word of the line: not after a letter, digit or underscore, "ggml_cud" is no
            # "cudaMalloc failed" begun)
            if (inside or between) and t.endswith(part) and (len(t) == k or not (t[-k - 1].isalnum() or t[-k - 1] == "_")):
                return True
    return False
