"""Where a failure happened: its phase from the evidence around it, in a fixed order (see `diagnose`).
Pure: a Failure (its lines, the lines around it, the milestones passed) in, a Place out."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..engines.interface import AFTER_MILESTONE, FLOOR, MILESTONES, PHASES
from ..engines.words import ISSUE_TAGS, LOADING_CJK, SIZE, to_bytes
from .facts import Failure
from .authorship import TITLE, program_line, prose_like, sentence_like, title_case, user_words
from .knowledge import ELISION, FRAME, PY_FRAME, knowledge, phase_words
from .prose import OOM_ANY, clauses, denied_at
from .lines import LOG_PREFIX, TB_HEADER, bare_prefix

GIB = 2**30
STARTUP = ("WEIGHTS", "KV", "WARMUP")
#: a request line with a server-error status (Gin's "| 500 |", an access log's '" 500', "status_code=500")
FAILED_REQUEST = re.compile(r"\|\s*5\d\d\s*\||\" 5\d\d\b|\bstatus(?:_code)?\s*[=:]\s*5\d\d\b")
#: periodic statistics: progress, never a phase
STATS = re.compile(r"Avg prompt throughput|#running-req|token usage:|KV cache usage:|Running: \d+ reqs|"
                   r"Decode batch[.,]|Prefill batch[.,]|print_timing|prompt eval time", re.I)


#: a leak check's report ("KV cache pool leak detected!"): memory counted, no step under way
_LEAK = re.compile(r"\bleak(?:s|ed|age)? (?:detected|found)\b", re.I)

def last_marker(progress: dict[str, int]) -> str | None:
    passed = [m for m in MILESTONES if m in progress]
    return passed[-1] if passed else None


def _at_least(phases, floor: str | None) -> list[str]:
    if floor is None:
        return list(phases)
    lo = PHASES.index(floor)
    return [p for p in phases if PHASES.index(p) >= lo]


#: a structured line that reports a ledger's size (Ollama's ml/device.go BackendMemory.Log: `source=device.go:256
#: msg="kv cache" device=CUDA0 size="20.0 GiB"`): the source it names printed a summary, it is no step under way
SIZE_REPORT = re.compile(r'\bmsg="?[\w ]{2,40}"? (?:\w+=\S+ )*size="?' + SIZE)


def _inside_wrapper(f: Failure, engine: str) -> Place | None:
    """Where failure `f`'s phase is a wrapper's, the engine's coarse step that joined it (TGI's "Method Warmup
    encountered an error", whose warm-up makes the KV cache first), the start-up step its stack frames name inside that
    step, innermost first, where it is an earlier one (the KV cache inside the warm-up); None otherwise."""
    v = knowledge().line_verdict(f.deciding[1]) if f.deciding else None
    if v is None or v.kind != "wrapper" or f.phase not in STARTUP:
        return None
    # (the traceback that ends at it, not one after it)
    found = _first_phases([x for x in sorted(frames(f)) if x[1] <= f.line_no], engine)
    starting = [p for p in STARTUP if p in found]
    if not starting:
        return None
    p = min(starting, key=lambda x: found[x][0])
    if STARTUP.index(p) >= STARTUP.index(f.phase):
        return None
    return Place(p, "the stack frames, inside the engine's step that failed", found[p][1:], [p])


def _first_phases(listed: list[tuple[tuple, int, str]], engine: str) -> dict[str, tuple[tuple, int, str]]:
    """Each phase the frames `listed` (sorted, innermost first: `frames`) name, with the first frame that names it."""
    found: dict[str, tuple[tuple, int, str]] = {}
    for order, ln, text in listed:
        p = phase_words(_callee(text), engine) or ("RUNTIME" if _ON_MODEL_OUTPUT.match(text) else None)
        if p and p not in found:
            found[p] = (order, ln, text)
    return found


#: a notebook's own line, as IPython's arrow marks it, that works on a model's output ("---> 29 c, l = pplu_loss(inputs,
#: mask, outputs.logits)", "----> 7 emb = pool(model(**batch).last_hidden_state)"): the model's forward ran, its weights
#: in place, so the step is the script's work with the model (the names a call passes are not its callee's words)
_ON_MODEL_OUTPUT = re.compile(r"^\s*-*>\s*\d+\s[^\n]*?(?:\w|\))\.(?:logits|hidden_states|last_hidden_state|scores|sequences)\b")


def frames(f: Failure) -> list[tuple[tuple, int, str]]:
    """(order, line, text) of the failure's stack frames and the code line under each, innermost first:
    a C/C++/CUDA backtrace prints its innermost frame first, a Python traceback last."""
    out: list[tuple[tuple, int, str]] = []
    lines = _unwrapped(f.before + [(f.line_no, f.text)] + f.after)
    for i, (ln, text) in enumerate(lines):
        if not FRAME.search(text) or SIZE_REPORT.search(text):
            continue
        python = bool(PY_FRAME.search(text))
        # (the piece's place breaks ties on one line: a traceback flattened onto one line, its frames pieces of it)
        order = (1, -ln, -i, 1) if python else (0, ln, i, 0)
        out.append((order, ln, text))
        if python and i + 1 < len(lines) and not FRAME.search(lines[i + 1][1]):
            code = _arrow_line(lines, i + 1)  # (IPython's excerpt: the line its arrow marks, "---> 15 x = f(")
            out.append(((1, -ln, -i, 0), lines[code][0], lines[code][1]))  # the code line: inside its frame
    return out


#: a line of IPython's excerpt under a frame, numbered, its arrow on the line that ran ("---> 15     generated = ...")
_EXCERPT = re.compile(r"^\s*(?:-*>\s*)?\d+\s")
_ARROW = re.compile(r"^\s*-*>\s*\d+\s")


def _arrow_line(lines: list[tuple[int, str]], at: int) -> int:
    """The index of the code line under the frame before `lines[at]`: where IPython's numbered excerpt begins there, its
    line with the arrow (within 12 lines); otherwise `at` itself."""
    for j in range(at, min(len(lines), at + 12)):
        text = lines[j][1]
        if not _EXCERPT.match(text):
            break
        if _ARROW.match(text):
            return j
    return at


_ASSIGN = re.compile(r"^\s*[\w.,*\[\]() ]+?(?<![=!<>])=(?!=)")
_ALLOC = re.compile(r"^\s*torch\.(?:empty|zeros)")
#: a call whose arguments are names only (no string, no nested call): group 1 ends at its open parenthesis
_CALL_ARGS = re.compile(r"^((?:await\s+|return\s+)?[\w.]+\()[\w.\s,=*]*\)?,?\s*$")


def _callee(text: str) -> str:
    """A code line under a frame without the names it assigns to: `kv_caches, h = self.runner.model_fn(` names
    the call, not the variables it fills (an allocation `k_cache = torch.empty(...)` keeps them)."""
    if FRAME.search(text):
        return text
    cut = max((m.end() for m in re.finditer(r"\s{2,}(?=\S)", text)), default=0)  # the code after its indent
    code = text[cut:]
    m = _ASSIGN.match(code)
    if m and _ALLOC.match(code[m.end():]):
        return text
    call = code[m.end():].lstrip() if m else code
    # (nor the names it passes: `model_output = self.model(input_ids, positions, kv_caches,` in every V0 model's
    # forward is the model called, not the KV cache made; an argument's words in a string are kept)
    args = _CALL_ARGS.match(call) if cut else None
    if args:
        return call[:args.end(1)]
    return call if m else text


_OPEN_FRAME = re.compile(r'\bFile\s*$|File "[^"]*$|File "[^"]*",?\s*$|File "[^"]*", line \d*$|'
                         r'File "[^"]*", line \d+, i?n?$')
#: an exception's class at a line's start, its message after it (a frame's next line that is no code of the frame)
_EXCEPTION_START = re.compile(r"^(?:\w+\.)*\w*(?:Error|Exception|Interrupt|Exit)\b")


def _unwrapped(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """A Python frame a terminal wrapped (`File "/usr/lib/python3/dist-packag` / `es/vllm/...py", line 9, in f`)
    joined back to one line: the next line has no log prefix of its own, and either the frame is open (its
    file or line not closed) or the next line starts at column 0 (a code line under a frame is indented) and is
    not the exception."""
    # a hard wrap (a terminal, `fold -w`) leaves every wrapped line exactly as long as the widest
    widths = [len(t) for _, t in lines]
    width = max(widths, default=0)
    hard = width >= 40 and widths.count(width) >= 3
    out: list[tuple[int, str]] = []
    last, last_len = 0, 0  # the last line joined into out[-1], and its length
    for ln, text in lines:
        prev = out[-1][1] if out else ""
        if out and ln == last + 1 and text and not LOG_PREFIX.match(text) and (
                hard and last_len == width or _OPEN_FRAME.search(prev)
                or PY_FRAME.search(prev) and not text[0].isspace() and not _EXCEPTION_START.match(text)
                and not _ARROW.match(text)):  # (IPython's arrow at column 0 under its frame, "---> 29 x = f(")
            # (a frame cut after its file's comma, `File ".../memory_pool.py",` / `line 499, in _init_mamba_pool`, a
            # paste's own line break: the space the break took is put back)
            gap = " " if prev.endswith(",") and not (hard and last_len == width) else ""
            out[-1] = (out[-1][0], prev + gap + text)
        else:
            out.append((ln, text))
        last, last_len = ln, len(text)
    return out


#: a line saying a step finished, in any engine's words (a time taken, "loaded", "prepared", "done")
_FINISHED = re.compile(r"\b(?:took|finished|done|loaded|prepared|succeeded)\b|\bin [\d.]+ ?(?:s|ms|sec|seconds)\b",
                       re.I)  # (not "Completed": progress bars say "40% Completed")
#: a setting and its value as a dump prints them, `name=value` (`n_ctx = 4096` in llama.cpp's) or a dict's `'name': `:
#: three of one form make a dump (not a message that quotes a small dict and a sum: "(max_num_batched_tokens /
#: max_num_seqs = 20000) ... {'image': 81920, 'video': 16384}")
#: (a name from its first letter only: one tried from each letter of a long word is quadratic in it)
_SETTING = re.compile(r"\b\w+\s*=\s*['\"\w]")
_DICT_SETTING = re.compile(r"'\w+': ")
#: a line of code (a traceback's source line), whose keyword arguments are not a dump of settings
_CODE = re.compile(r"^\s*(?:self\.)?\w+(?:\[\w+\])?\s*=\s*\[?\s*(?:torch|np|self)\.\w+")


def step_done(text: str) -> bool:
    """A line that says a step finished ("Loading weights took 3.07 seconds") or reports progress: no step under way."""
    return bool(_FINISHED.search(text)) or is_progress(text)


def is_progress(text: str) -> bool:
    """A line that reports rather than does: a finished step, periodic statistics, a start line, or a dump of
    settings (`kv_cache_dtype='auto'` names a setting, not a step under way)."""
    k = knowledge()
    return (bool(STATS.search(text)) or any(p.search(text) for _, p in k.milestones)
            or any(p.search(text) for p in k.run_start)
            or (len(_SETTING.findall(text)) >= 3 or len(_DICT_SETTING.findall(text)) >= 3) and not _CODE.search(text))


#: the source of a phase read from the words of a step under way before the failure (`step_reached`)
STEP_BEFORE = "the lines before the failure"


@dataclass
class Place:
    """Where a failure happened: phase (None if undetermined), the candidates, the source, the line."""

    phase: str | None
    source: str
    deciding: tuple[int, str]
    candidates: list[str]
    inferred: bool = False


_HELD = re.compile(r"(?:Of the allocated memory |; )" + SIZE + r" (?:is allocated by PyTorch|already allocated)|"
                   r"this process has " + SIZE + r" memory in use", re.I)
_TRIED = re.compile(r"Tried to allocate " + SIZE, re.I)


def _held(text: str) -> tuple[int | None, int]:
    """(bytes PyTorch / this process held when it ran out, bytes it tried to add) from an OOM message."""
    held, tried = None, 0
    for m in _HELD.finditer(text):
        g = m.groups()
        try:
            value = to_bytes(g[0], g[1]) if g[0] else to_bytes(g[2], g[3])
        except ValueError:
            continue  # a size no GPU holds (PyTorch's "Process 60 has 17179869184.00 GiB memory in use"): garbage
        held = max(held or 0, value)
    t = _TRIED.search(text)
    if t:
        try:
            tried = to_bytes(t.group(1), t.group(2))
        except ValueError:
            tried = 0
    return held, tried


#: llama-server's time and level before a line ("0.26.675.720 W ")
_STAMP = r"^(?:\d+\.\d+\.\d+\.\d+ [IWEDT] )?"
#: llama-server's prefix naming the function that printed a line ("0.26.675.720 W srv load_model: ", "slot update_slots: ")
_FUNCTION_TAG = re.compile(_STAMP + r"(?:srv|slot|cmn|que|res|log)\s+\w+:\s")
#: a line of a start-up still under way, in llama-server's own prefix (tools/server: load_model does the whole start-up)
_STARTING = re.compile(_STAMP + r"srv\s+load_model: ")


#: a user's words that the failure came while starting ("when starting the model", "the server fails to start")
_STARTING_TOLD = re.compile(
    r"\b(?:when|while|during|on|at)\s+(?:starting|launching|booting|initiali[sz]ing|bringing up|spinning up|"
    r"start[- ]?up|startup|launch)\b|\b(?:fails?|failed|failing) to (?:start|launch|boot|come up)\b|"
    r"\b(?:won't|doesn't|does not|can't|cannot|couldn't|could not) (?:start|launch|boot|come up)\b|"
    # (or the server being started, told by what it was used for: "When using vllm to start the internvl2-8b model
    # service at A10 card, an error occurs")
    r"\b(?:using|use|trying|attempting|tried|try)\s+(?:[\w.-]+\s+)?to\s+(?:start|launch|boot|bring up|spin up|deploy)\b|"
    # (in Chinese: 启动时, 服务启动的时候, 部署过程中, 初始化阶段)
    r"(?:启动|部署|初始化)(?:时|的时候|过程中|阶段|期间)", re.I)
#: a report's words of where the failure was raised ("Error occurs in `prealloc_symmetric_memory_pool` at
#: `model_runner.py:3420` during FlashInfer FP4 kernel autotuning", "it fails inside capture_model")
_TOLD_WHERE = re.compile(r"\b(?:occurs?|occurred|happens?|happened|is raised|was raised|is thrown|fails|failed) (?:in|inside|"
                         r"at|during|while) (?:the )?[`'\x22]?(\w)|"
                         # (in Chinese: 错误发生在模型编译阶段, 报错出现在加载权重时)
                         r"(?:错误|报错|问题|异常|OOM)(?:发生|出现)(?:在|于)\s*(\S)", re.I)


_ISSUE_TAG = re.compile(r"\s*(?:#+\s*)?(?:" + ISSUE_TAGS + ")")


def told_start(text: str) -> bool:
    """A person's line (no log prefix, no frame) that says the failure came while starting, not denied ("it is not at
    startup")."""
    if LOG_PREFIX.match(text) and not _ISSUE_TAG.match(text) or FRAME.search(text):
        return False  # (an issue's title after its tracker's tag, "[Usage]: When using vllm to start ...", is the user's)
    # (also while the model loaded, in words that do not name its weights: a start-up step, whichever)
    return any(not re.search(r"\b(?:not|never|no)\W+(?:\w+\W+)?$|n't\W+(?:\w+\W+)?$", text[max(0, m.start() - 16):m.start()])
               for rx in (_STARTING_TOLD, MODEL_LOADING_TOLD) for m in rx.finditer(text))


#: a step a user's words say was passed: "even after warmup phase succeeded", "once the model has loaded", "after
#: start-up completed"; (step words, the phase after it)
_STEP_WORDS = (
    (r"(?:the )?(?:model|weights?)(?: (?:loading|load))?|loading(?: the)? (?:model|weights?)", "KV"),
    (r"(?:the )?(?:kv[- ]cache|cache)(?: (?:allocation|init\w*|profil\w*))?", "WARMUP"),
    (r"(?:the )?(?:warm[- ]?up|warming up|profil(?:e|ing)(?: run)?|(?:cuda )?graph capture|capturing(?: cuda)? graphs?)"
     r"(?: (?:phase|step|stage|pass))?", "RUNTIME"),
    (r"(?:the )?(?:start[- ]?up|initiali[sz]ation|server start)(?: (?:phase|step|stage))?", "RUNTIME"),
    (r"(?:the |my |our )?(?:API )?(?:server|service|engine|endpoint) (?:is |was |has been |had been |gets |got )?(?:launched|"
     r"started|up|running|ready)(?: to serve)?", "RUNTIME"),
    # (the server's own ready line, quoted: "~20 s after `API server is ready to serve`", "after Application startup
    # complete")
    (r"(?:Application startup complete|Uvicorn running on|starting the main loop)", "RUNTIME"),
)
_DONE_WORDS = r"(?:has |had |was |is |were )?(?:succeeded|succeeds|finished|finishes|completed?|done|passed|over|loaded)"
#: (a quote of the engine's line that a step is starting, "after `warming up the model with an empty run`", is that
#: step under way, not passed)
_PASSED = [(re.compile(r"\b(?:(?:even )?after|once|since)\s+(?:[`'\x22\u201c](?!(?:warming|capturing|profiling|loading)\b))?(?:" + w + r")\b(?:\s+" + _DONE_WORDS + r")?|\b(?:" + w +
                       r")\s+" + _DONE_WORDS + r"\b", re.I), nxt) for w, nxt in _STEP_WORDS]
#: ... in Chinese: the model loaded (模型加载成功后, 加载完成之后), the server started (启动成功后, 服务启动完成以后, 服务
#: 起来之后); not denied or hoped (没有启动成功, 未加载完成, 无法启动成功, 能启动成功吗)
_PASSED += [(re.compile(r"(?<![没未不无])(?<!无法)(?<!没有)(?:模型|权重)?加载(?:成功|完成)|模型(?:已经)?加载(?:好|完)了?", 0), "KV"),
            (re.compile(r"(?<![没未不无能])(?<!无法)(?<!没有)(?:服务)?启动(?:成功|完成)(?:了)?(?:后|之后|以后)|服务(?:已经)?(?:起来|跑起来)"
                        r"(?:了)?(?:后|之后|以后)", 0), "RUNTIME")]
#: ... and told as done well, the step then the manner ("The model loads fine, but ...", "the server starts up
#: normally", "it passes startup and serves short prompts"); not asked or hoped ("does it start fine?": a question
#: is no account)
_FINE = (r"(?:fine|ok(?:ay)?|normally|successfully|correctly|without (?:any )?(?:errors?|issues?|problems?))\b"
         r"(?![^.!\n]{0,40}\?)")
#: (the model, not its weights: "the model weights load successfully, but the post-load swizzle OOMs" is still their step)
_PASSED += [(re.compile(r"\b(?:the |my |our )?model\s+(?:loads?|loaded)\s+(?:up\s+)?" + _FINE,
                        re.I), "KV"),
            (re.compile(r"\b(?:the |my |our )?(?:server|engine|service|instance|container|it)\s+(?:starts?|started|boots?|"
                        r"booted|comes? up|came up|launch(?:es|ed)|initiali[sz]es|initiali[sz]ed)\s+(?:up\s+)?" + _FINE + r"|"
                        r"\b(?:pass(?:es|ed)?|gets? through|got through|survives?|survived|clears?|cleared) (?:the )?"
                        r"(?:start-?up|initiali[sz]ation|engine init\w*|warm-?up)\b", re.I), "RUNTIME")]


#: words before a step that say it had not passed ("before warm-up finished", "never loaded", "during warmup")
#: (the words that deny a step happened at all; "while" and "during" add that it had not yet passed)
_DENY_STEP = r"before|until|till|without|never|not|no|n't|instead of|rather than"
_NOT_YET = re.compile(r"\b(?:while|during|" + _DENY_STEP + r")\W+(?:\w+\W+){0,2}$", re.I)


#: markdown or quotes around a step's name, and the noun after it ("_Load weight_ phase")
_MARK = r"[_*`'\x22]{0,2}"
_STAGE = r"\s+(?:phase|stage|step|pass)\b"
#: a step the report's words say the failure came during, named so that only one ledger fits ("exhausts host RAM
#: during weight load", "OOM while loading the weights", "during CUDA graph capture"); not "model loading", which
#: llama.cpp's users say of the whole start-up
_DURING = ((re.compile(r"\b(?:during|while|when|in) (?:the )?(?:[\w.-]+ ){0,2}?(?:weights?|checkpoint) (?:load(?:ing)?|is loading)\b|"
                       r"\b(?:during|while|when|midway through|partway through|halfway through) (?:(?:it|I|we|the "
                       r"(?:server|engine|runner|worker)) )?(?:(?:trying|attempting|"
                       r"tries|try) to load|loading|loads?) (?:the )?(?:model(?:'s)? )?"
                       r"(?:weights|checkpoint|safetensors|shards)\b|"
                       # ... or the loading itself said to run out ("weight loading itself OOMs", "checkpoint loading
                       # runs out of memory")
                       r"\b(?:weights?|checkpoint|safetensors|shards?) load(?:ing)? (?:itself |alone |already )?"
                       r"(?:OOM(?:s|ed|'d)?|r[au]ns? out of (?:GPU |device |CUDA )?memory)\b|"
                       # ... or before the load ended ("led to cuda OOM error before the model loaded"; "loading the
                       # model makes this jump to 14GB, then I think it OOMs")
                       r"\bbefore (?:the )?model (?:was |had |has |could )?(?:fully |finished |be )?load(?:ed|ing)?\b|"
                       r"\bloading the model makes? (?:it|this|memory|RAM|VRAM)\b|"
                       # ... or the model placed on a device as it loads ("it loads the llama 65B model directly into
                       # one GPU and return CUDA OOM", "loading the whole model onto a single GPU"): the weights' place
                       r"\bload(?:s|ed|ing)?\s+(?:the\s+|a\s+|my\s+|this\s+)?(?:(?:whole|entire|full)\s+)?(?:[\w.-]+\s+){0,3}?"
                       r"model\s+(?:(?:directly|entirely|fully|all|whole)\s+)?(?:in|on)?to\s+(?:(?:one|a single|a|the|each|"
                       r"every|single)\s+(?:GPU|device|card)\b|(?:two|three|four|eight|both|all|several|multiple|\d+)\s+"
                       r"(?:GPUs|devices|cards)\b)|"
                       # ... or a model loaded again, or another loaded beside the first (a web UI's "Reload" or its
                       # model switch: "when reloading the model it runs out of memory", "when I load a second model",
                       # "switching to the int8 model fails", "选择ChatGLM-6B-int8 重新加载模型后，报错", "切换模型时报错")
                       r"\b(?:when|while|on)\s+(?:(?:I|we|it)\s+)?(?:re-?load(?:ing)?|load(?:ing)?\s+(?:a\s+)?(?:second|another|"
                       r"new|different|2nd)|switch(?:ing)?\s+to)\s+(?:the\s+|a\s+|another\s+|my\s+)?(?:[\w.-]+\s+){0,2}?"
                       r"models?\b|"
                       # ("Every time I reload the model after changing the LoRA it goes OOM", "Switching from the 8B to
                       # the 70B model in the UI fails")
                       r"\b(?:every time|each time|whenever)\s+(?:I|we|it)\s+re-?loads?\s+(?:the\s+|a\s+|my\s+)?(?:[\w.-]+\s+){0,2}?"
                       r"model\b|\bswitch(?:ing|es|ed)?\s+from\s+(?:the\s+|a\s+)?[\w.-]{1,40}(?:\s+model)?\s+to\s+(?:the\s+|a\s+)?"
                       r"(?:[\w.-]+\s+){0,2}?models?\b|"
                       r"\b(?:re-?loading|switching\s+to)\s+(?:the\s+|a\s+|another\s+)?(?:[\w.-]+\s+){0,2}?model\s+"
                       r"(?:fails|failed|OOMs|OOMed|crashes|crashed|runs out|ran out)\b|"
                       r"重新加载(?:模型)?(?:后|时)?[，,]?\s*(?:就|又)?(?:报错|出错|显存不足|爆显存|OOM)|"
                       r"切换(?:到)?[^，。,.\n]{0,20}?模型(?:后|时)[，,]?\s*(?:就|又)?(?:报错|出错|显存不足|爆显存|OOM)|"
                       # ... or the load's own progress where it failed, a count of shards or a share of the model
                       # ("在load模型时总是在17/19左右报oom", "load到模型的80%左右时", "it always dies at 17/19 checkpoint
                       # shards", "fails at about 80% of loading the weights"): the weights' read itself, in any engine
                       r"(?:load|加载|載入)(?:模型)?(?:时|的时候)?[^，。！？\n]{0,12}?[在到至]\s*(?:第\s*)?\d+\s*/\s*\d+|"
                       r"(?:load|加载|載入)(?:到|至)(?:模型的)?\s*(?:约|大约|大概)?\s*\d{1,3}\s*%|"
                       r"\b(?:at|around|about|after)\s+(?:shard\s+)?\d+\s*/\s*\d+\s+(?:of\s+the\s+)?(?:checkpoint\s+)?"
                       r"(?:safetensors\s+)?shards\b|\b(?:at|around|about)\s+\d{1,2}\s*%\s+(?:of\s+)?(?:loading\s+)?"
                       r"(?:the\s+)?(?:weights|checkpoint|shards)\b", re.I),
            "WEIGHTS"),
           # ... the buffers of expert or tensor parallel communication, made after the weights ("CUDA OOM during
           # UCCL-EP buffer allocation", "while allocating the DeepEP buffers", "NCCL buffer allocation fails")
           (re.compile(r"\b(?:EP|DeepEP|UCCL-EP|MoRI|pplx|all2all|all-to-all|NCCL|communication|comm) (?:communication )?"
                       r"buffers? (?:allocation|allocat\w*)\b|\ballocat\w* (?:the )?(?:EP|DeepEP|UCCL-EP|all2all|"
                       r"all-to-all|NCCL|communication) (?:communication )?buffers?\b", re.I), "WARMUP"),
           (re.compile(r"\b(?:during|while|when|in) (?:the )?" + _MARK + r"(?:cuda )?graph captur\w*|\b(?:during|while|when) "
                       r"capturing (?:the )?(?:cuda )?graphs?\b|"
                       # ... or the graphs turned on, where the failure comes only then ("When enable cuda graph got OOM
                       # error", "OOM only with CUDA graphs enabled", "as soon as I turn on cudagraphs")
                       r"\b(?:when|once|if|after|as soon as) (?:I |we )?(?:enabl\w*|turn\w* on|switch\w* on) (?:the )?"
                       r"(?:cuda[ _-]?graphs?|cudagraphs?)\b|\bonly (?:with|when) (?:the )?(?:cuda[ _-]?graphs?|cudagraphs?) "
                       r"(?:are |is )?(?:on|enabled)\b", re.I), "WARMUP"),
           # ... the weights' (or a multimodal projector's) buffers being allocated ("fails its first projector
           # allocation", "while allocating the model weights")
           (re.compile(r"\b(?:projector|mmproj|vision (?:encoder|tower)|model weights?|weights?) (?:buffer )?allocations?\b|"
                       r"\ballocat\w* (?:of )?(?:the )?(?:model |projector |mmproj )?weights?(?: buffers?)?\b|"
                       # ... or the buffer named with its size ("cudaMalloc fails OOM on the 929 MB weight buffer")
                       r"\b(?:on|for|of|in) (?:the |a )?(?:~?\d[\d.,]*\s?[KMG]i?B )?(?:model )?weights? buffers?\b",
                       re.I), "WEIGHTS"),
           # ... the KV cache being allocated, or named as what did not fit ("out of memory with the kv buffer size
           # allocating about 43G with a 160K context", "at 128K the KV cache alone exceeds the 4Gi pod limit")
           # ... the weights repacked for a kernel after they are read, part of loading them (vLLM's
           # process_weights_after_loading: "Model loads but Marlin repack fails", "the AWQ repack OOMs")
           # (or swizzled into a kernel's layout, or processed once read: "the post-load mxfp4 swizzle step OOMs", "the
           # weight swizzle fails", "OOM in process_weights_after_loading")
           (re.compile(r"\b(?:marlin|machete|awq|gptq|exllama|weights?)\s+repack(?:ing|s|ed)?\b|"
                       r"\brepack(?:ing|s|ed)?\s+(?:of\s+)?(?:the\s+)?(?:marlin\s+|quantized\s+)?weights\b|"
                       r"\b(?:post-load\s+(?:[\w.-]+\s+){0,2}?|weights?\s+|mxfp4\s+|nvfp4\s+|fp4\s+)swizzl\w*|"
                       r"\bpost-load\s+(?:weight|quantization|quant)\s+(?:processing|conversion|step)\b|"
                       r"\bprocess_weights_after_loading\b", re.I),
            "WEIGHTS"),
           # ... or resumed after a release (torch_memory_saver's resume in RL frameworks, SGLang's
           # resume_memory_occupation(tags=["kv_cache"]): "OOM when resume kv cache")
           (re.compile(r"\bresum\w*\s+(?:the\s+)?(?:kv|key[- ]value)\s+cache\b", re.I), "KV"),
           (re.compile(r"\bresum\w*\s+(?:the\s+)?(?:model\s+)?weights\b", re.I), "WEIGHTS"),
           (re.compile(r"\b(?:tries|trying|tried|attempts?|attempting)\s+to\s+(?:create|initiali[sz]e|build|set up|make)\s+"
                       r"(?:the\s+|a\s+|its\s+)?(?:kv|key[- ]value)\s+(?:buffer|cache)\b|"
                       r"\b(?:kv|key[- ]value) (?:buffer|cache)(?: size)? allocat\w*|\ballocat\w* (?:the |a )?(?:kv|key[- ]value) "
                       r"(?:buffer|cache)\b|\b(?:kv|key[- ]value) cache (?:alone |by itself |itself )?(?:\S+ ){0,5}?(?:exceeds|"
                       r"would exceed|is (?:larger|bigger) than|needs more than|does(?: not|n't) fit)\b", re.I), "KV"),
           # ... a phase, stage or step named by its step, maybe in markdown or quotes ("OOM when sglang init reaches
           # _Load weight_ phase", "at the weight loading stage", "during the `cuda graph capture` phase", "during the
           # post-load warmup pass")
           (re.compile(r"\b(?:reach(?:es|ed|ing)?|at|in|during|into)\s+(?:the\s+)?" + _MARK + r"(?:load(?:ing)?[ _]"
                       r"(?:the\s+)?(?:model[ _])?weights?|weights?[ _]load(?:ing)?|"
                       # (or made: "during the weight creation phase", "in the weights initialization stage")
                       r"(?:model[ _])?weights?[ _](?:creation|initiali[sz]ation|init|allocation)|"
                       r"creat(?:e|ing)[ _](?:the\s+)?(?:model[ _])?weights?)" + _MARK + _STAGE, re.I), "WEIGHTS"),
           (re.compile(r"\b(?:reach(?:es|ed|ing)?|at|in|during|into)\s+(?:the\s+)?(?:post-load\s+|initial\s+|first\s+)?" + _MARK + r"(?:(?:cuda[ _])?graph[ _]"
                       r"captur\w*|warm[ _-]?up|(?:memory[ _])?profil(?:e|ing)(?:[ _]run)?)" + _MARK + _STAGE, re.I),
            "WARMUP"),
           # ... the warm-up named plainly, with no stage word ("resulting in OOM in warmup", "the server OOMs during
           # warmup", "CUDA out of memory while warming up the model", "dies during the sampler warm-up"): the step the
           # failure came in, whatever else the sentence names (the KV cache it had sized before)
           # (or a time into it, "~15 min into warmup"; and a precompilation named, "during backbone precompilation": the
           # programs compiled ahead of serving, XLA's or torch.compile's)
           (re.compile(r"\b(?:during|while|in|at|into)\s+(?:the\s+)?(?:(?:initial|first|model(?:'s)?|sampler|engine|"
                       r"post-load)\s+)?(?:warm[ -]?up|warming(?:\s+up)?)\b(?![ _-](?:done|finished|complete))|"
                       r"\b(?:during|while|in|at)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?pre-?compil(?:ation|ing)\b", re.I), "WARMUP"),
           # ... the memory profiling named without a stage word, maybe in markdown ("it will cause OOM _**during memory
           # profiling**_", "OOMs while profiling memory")
           # ... llama.cpp's reservation of its compute graph's buffers, after the KV cache ("a fatal cudaMalloc
           # out-of-memory error during the graph reservation step", "OOM while reserving the compute buffers")
           (re.compile(r"\b(?:during|while|when|in|at)\s+(?:the\s+)?(?:compute\s+)?graph\s+reserv\w*|\b(?:during|while|when)\s+"
                       r"reserving\s+(?:the\s+)?(?:compute\s+)?(?:graph|buffers?)\b|\bcompute\s+buffers?\s+reservation\b", re.I),
            "WARMUP"),
           (re.compile(r"\b(?:during|while|when|in)\s+(?:the\s+)?[_*`'\x22]{0,4}(?:memory\s+profil(?:e|ing)|profil(?:e|ing)\s+"
                       r"(?:the\s+)?memory|(?:the\s+)?profil(?:e|ing)\s+run)\b", re.I), "WARMUP"),
           # ... a request's prefill or decode, which only serving runs ("OOM-kills the scheduler on chunked prefill",
           # "crashes during decoding"; not the graphs or the profile run of one, "during prefill graph capture")
           (re.compile(r"\b(?:on|during|in|at|while)\s+(?:a\s+|the\s+)?(?:chunked\s+|long\s+|large\s+)?(?:prefill(?:s|ing)?|"
                       r"decod(?:e|ing))\b(?![\s_-]+(?:warm|graph|cuda|captur|profil|dummy))|"
                       # (or in the middle of one: "kills llama-server mid-prefill", "dies mid-generation")
                       r"\bmid-(?:prefill|decode|generation|request|stream|response)\b|"
                       # (or a long prompt said to bring it, a request's own length: "long prompts that fit in the
                       # context window can still exceed the maximum allowed buffer size", "a long prompt crashes it"; not
                       # a context set at start-up, "with a 64K context", nor a title's "OOM when sending long prompts"
                       # over frames of the load)
                       # (or a long document pasted as the prompt: "when I paste a long document (~28k tokens) it dies")
                       r"\b(?:long(?:er)?|large|huge)\s+(?:user\s+)?(?:prompts?|inputs?|documents?)\b[^.;\n]{0,80}?\b(?:exceed|"
                       r"cause|trigger|crash|fail|OOM|run out|blow up|dies\b|died\b|abort)\w*", re.I), "RUNTIME"),
           # ... a benchmark or load test run against the server ("OOM occurs while running the benchmark", "it OOMs under
           # the load test"): requests, which only serving takes
           (re.compile(r"\b(?:while|when|during|in)\s+(?:running|executing|doing)\s+(?:the\s+|a\s+|my\s+|our\s+)?"
                       r"(?:[\w-]+\s+)?(?:benchmarks?|load[ -]tests?|stress[ -]tests?)\b|"
                       r"\bunder\s+(?:the\s+|a\s+)?(?:benchmark|load[ -]test|stress[ -]test)\b|"
                       # ... or requests sent, many or without a pause ("OOM issues occurred during continuous request
                       # sending", "crashes while sending concurrent requests", "OOMs under heavy load"; not a request
                       # sent, "when sending requests through the API", which a title may say of a start-up's failure)
                       r"\b(?:during|while|when|in)\s+(?:the\s+)?(?:continuous|concurrent|sustained|repeated|parallel|"
                       r"heavy|high)\s+(?:request|requests|query|queries)\s+(?:sending|submission|traffic|load|bursts?)\b|"
                       r"\b(?:while|when|during)\s+(?:continuously\s+|concurrently\s+|repeatedly\s+)?(?:sending|submitting|"
                       r"firing|issuing)\s+(?:many|multiple|lots of|a (?:burst|flood|stream) of|concurrent|parallel|"
                       r"continuous|simultaneous|\d+)\s+(?:\w+\s+)?(?:requests|queries|prompts)\b|"
                       r"\bunder\s+(?:heavy|high|sustained|concurrent|production)\s+(?:load|traffic)\b", re.I), "RUNTIME"),
           # ... or a request's input said to reach a length where it fails ("it OOMs once the input length reaches
           # 15872", "crashes when the prompt hits 30k tokens"), and the same in Chinese: a long text it cannot answer, or
           # a length where it runs out (无法回答长文本, 长文本推理时爆显存, 每次在length=15872的时候就OOM了)
           (re.compile(r"\b(?:once|when|whenever|as soon as|after)\s+(?:the\s+|my\s+)?(?:input|prompt|sequence|request)(?:'s)?"
                       r"(?:\s+length)?\s+(?:reaches|hits|exceeds|gets\s+(?:to|past|over)|goes\s+(?:over|past|above))\s+"
                       r"(?:about\s+|~)?\d[\d,.]*\s*[kK]?\b|"
                       r"(?:无法|不能|没法)(?:回答|处理|推理|生成)长(?:文本|输入|上下文|序列|prompt)|"
                       r"长(?:文本|输入|上下文|序列|prompt|提示词?)(?:推理|生成|回答|输入)?(?:时|的时候|过程中)[^。！？]{0,10}?"
                       r"(?:OOM|显存不足|内存不足|爆显存|显存溢出|崩溃|报错)|"
                       r"(?:length|长度|len)\s*[=为到:：]?\s*\d+\s*(?:的时候|时)[^。！？，,]{0,6}?(?:OOM|显存不足|爆显存|显存溢出)",
                       re.I), "RUNTIME"),
           # ... in Chinese: the model's loading reported the error (模型加载报错, 模型加载失败), or loading a named model
           # brought the out of memory (加载Qwen-72B-chat LLM model 出现OOM), or the error came while a named model loaded
           # (加载Baichuan2-13B-Chat时出异常, 载入 Qwen2-72B 的时候报错)
           (re.compile(r"(?:模型|权重)(?:加载|载入)(?:报错|失败|出错)|(?<!不是)无法(?:加载|载入)(?:模型|权重)|"
                       r"(?:加载|载入)(?:模型|权重)(?:失败|报错|出错)|(?:加载|载入)\s*[A-Za-z][\w.\-]{1,60}(?:\s*LLM)?(?:\s*(?:model|模型))?\s*"
                       r"(?:(?:时|的时候|过程中)?\s*(?:出现|报)\s*(?:OOM|显存不足|CUDA out of memory)|"
                       r"(?:时|的时候|过程中|期间)\s*(?:出现|出|报|发生)?(?:了)?(?:异常|错误|报错|错|OOM|显存不足|内存不足|显存溢出|"
                       r"内存溢出|爆显存|爆内存))|"
                       # (or the model's load itself named, then the failure: 模型加载时显存不足, 权重加载的时候爆显存)
                       r"(?:模型|权重)\s*(?:加载|载入)(?:时|的时候|过程中|期间)\s*(?:出现|出|报|发生)?(?:了)?(?:异常|错误|报错|"
                       r"OOM|显存不足|内存不足|显存溢出|内存溢出|爆显存|爆内存)|"
                       # (or how far the load got when it failed: 加载到40层左右时会爆内存, 加载到2/3(blk.40)时就已经用掉400多GB内存了)
                       # (or killed there: 模型加载到87%被kill了, 加载到一半就被杀掉)
                       r"(?:加载|载入)(?:模型|权重)?到[^，。,;；!！?？]{0,30}?(?:时|的时候|就?被(?:kill|杀|终止|干掉)|就?(?:崩溃|挂了|退出|"
                       r"OOM))",
                       re.I), "WEIGHTS"),
           # ... the model compiled at start (torch.compile, run within the engine's profiling or graph capture: "OOM
           # during torch.compile", "while compiling the model", 错误发生在模型编译阶段, torch.compile过程中)
           (re.compile(r"\b(?:during|while|when|in)\s+(?:the\s+)?[`'\x22]?torch\.compile\b|\b(?:during|while|when)\s+"
                       r"compiling\s+(?:the\s+)?(?:model|graph)\b|"
                       # (or its kernels compiled just in time, FlashInfer's or Triton's, nvcc and cicc: "OOM killer
                       # during JIT compilation", "while JIT-compiling the kernels")
                       r"\b(?:during|while|when|in)\s+(?:the\s+)?(?:JIT|kernel|CUDA|Triton|FlashInfer)[ -]?compil\w*|"
                       r"\b(?:during|while|when)\s+(?:JIT[ -])?compiling\s+(?:the\s+)?(?:CUDA\s+|Triton\s+|FlashInfer\s+)?"
                       r"kernels?\b|"
                       # (or the compile said to run out itself: "JIT compile of SM120 CUTLASS FP4 kernels OOMs on first
                       # forward pass", "the FlashInfer kernel compilation gets OOM-killed")
                       r"\b(?:JIT|kernel)[ -]?compil\w*\b[^.;\n]{0,80}?\b(?:OOMs?\b|OOM-kill\w*|runs? out of (?:host |system )?"
                       r"(?:memory|RAM)\b)|\b(?:in|during|at)\s+(?:the\s+)?(?:model\s+)?"
                       r"compil(?:e|ation)\s+(?:stage|phase|step)\b|(?:模型)?编译(?:阶段|过程中?|期间)|torch\.compile\s*(?:过程|阶段|期间|时)",
                       re.I), "WARMUP"))


def _said(rx: re.Pattern, text: str, not_yet: re.Pattern = _NOT_YET) -> bool:
    """`rx` names a step in `text` that the words just before it do not say had not passed ("before warm-up")."""
    return any(not not_yet.search(text[max(0, m.start() - 24):m.start()]) for m in rx.finditer(text))


#: words before a step that say it did not happen ("before allocating the KV cache", "never reached the loading
#: stage"); not "while" or "during", which say it was under way
_NOT_DURING = re.compile(r"\b(?:" + _DENY_STEP + r")\W+(?:\w+\W+){0,2}$", re.I)


#: a person's words that the failure came while the model loaded, not naming its weights ("加载模型时", "模型加载过程中",
#: "モデルの読み込み中", "when loading the model", "during model loading", "at load time"): the weights' step only where the
#: engine's start-up is its weights' load (`LogWords.load_is_weights`); vLLM's, llama.cpp's and Ollama's users say it of
#: a start-up that sizes the KV cache and warms up as well
MODEL_LOADING_TOLD = re.compile(
    r"\b(?:when|while|during|on)\s+(?:(?:I|we|it)\s+(?:was\s+|am\s+|is\s+|are\s+)?)?(?:trying to\s+)?(?:loading|load)\s+"
    r"(?:the\s+|a\s+|my\s+|this\s+)?(?:[\w.-]+\s+){0,2}?model\b(?!\s+(?:weights|checkpoint|shards))|"
    r"\b(?:during|while|in)\s+(?:the\s+)?model\s+load(?:ing)?\b|\b(?:at|during)\s+load(?:ing)?\s+time\b|"
    r"\bOOMs?\s+(?:at|on|while|during)\s+load(?:ing)?\b|" + LOADING_CJK, re.I)
#: ... of which a second model's load beside the first, or several at once, is the weights whatever the engine
#: (再加载第二个模型时, 加载另一个模型的时候, 여러 개의 LLM 모델을 한 번에 로드하려고 할 때)
_SECOND_MODEL_CJK = re.compile(r"加载(?:第[二三四2-4]个|另一个|新的?|多个)模型(?:时|的时候)|여러\s*개의[^.。\n]{0,20}?모델|"
                               r"複数の(?:LLM)?モデル")


#: the lines below a program's error line where the report's sentence of the step it came in is read
_TOLD_BELOW = 8


def during_step(text: str, engine: str = "") -> str | None:
    """The phase a report's words say the failure came during, where they name one ledger's step; None otherwise.
    Words of the model's load without its weights (`MODEL_LOADING_TOLD`) are the weights' step only for an engine whose
    start-up is its weights' load (`LogWords.load_is_weights`, `engine` its name)."""
    found = {ph for rx, ph in _DURING if _said(rx, text, _NOT_DURING)}
    if not found and _said(MODEL_LOADING_TOLD, text, _NOT_DURING) and (
            load_is_weights(engine) or _SECOND_MODEL_CJK.search(text)):
        found = {"WEIGHTS"}
    return found.pop() if len(found) == 1 else None


def load_is_weights(engine: str) -> bool:
    """The engine `engine` (its name) starts by loading its weights and nothing more (`LogWords.load_is_weights`); not
    where no engine is recognised: the words then name a start-up step, whichever."""
    e = knowledge().engine.get(engine or "")
    return bool(e and e.log.load_is_weights)


def passed_step(text: str) -> str | None:
    """The lowest phase a user's sentence puts a failure in by naming a step it came after ("CUDA OutOfMemory even
    after warmup phase succeeded": RUNTIME), None where it names none."""
    found = [nxt for rx, nxt in _PASSED if _said(rx, text)]
    step = max(found, key=PHASES.index) if found else None
    if step == "RUNTIME" and _AT_STARTUP.search(text):
        # (the same sentence puts it in the start-up: "aborted at engine init ... right after CUDA graph capture",
        # "startup OOMed": the step after the one named, within the start-up, the warm-up)
        return "WARMUP"
    return step


#: a person's words that a failure came while the server was starting ("at engine init", "startup OOMed", "during
#: initialization", "fails to start")
_AT_STARTUP = re.compile(r"\b(?:at|during|in) (?:the )?(?:engine )?(?:init(?:ialization)?|start-?up)\b|\bstart-?up "
                         r"(?:OOM\w*|fail\w*|crash\w*|abort\w*)|\b(?:fails?|failed) to start\b", re.I)


#: a function a person's words name as where something happened ("exception from ggml_vk_allocate in
#: llama_kv_cache_init", "OOM'd in vLLM's **`profile_run`**", "crash inside `capture_model`"): a name with an
#: underscore, a function's (group 1)
_NAMED_FUNCTION = (r"\b(?:in|from|inside|during|within)\s+(?:[\w.-]+'s\s+)?[*_`'\x22]*([A-Za-z_][\w:.]*_\w+)")
_FUNCTION_NAMED = re.compile(_NAMED_FUNCTION)
#: ... the one memory ran out in: after the out-of-memory's words, or before an arrow to them ("workspace allocated
#: inside `profile_run` → OOM on 16 GB", "in capture_model -> CUDA OOM")
_RAISED_IN = re.compile(r"\b(?:OOM(?:'d|ed|s)?|ran out of memory|runs out of memory|out of memory)\s+" + _NAMED_FUNCTION[2:]
                        + r"|" + _NAMED_FUNCTION + r"[*_`'\x22]*\s*(?:→|->|=>)\s*(?:CUDA\s+)?(?:OOM|out of memory)\b", re.I)


def steps_named(text: str, engine: str) -> set[str | None]:
    """The phases of the functions a person's words name as where something happened (`_FUNCTION_NAMED`), None for
    one that names no phase."""
    return {phase_words(m.group(1), engine) for m in _FUNCTION_NAMED.finditer(text)}


def _raised_in(text: str, engine: str) -> str | None:
    """The phase of the function a report's words say memory ran out in (`_RAISED_IN`), None where they name none or
    one that names no phase."""
    m = _RAISED_IN.search(text)
    p = phase_words(m.group(1) or m.group(2), engine) if m else None
    return p if p in PHASES else None


def _code_of_frame(f: Failure, ln: int) -> bool:
    """Line `ln` after failure `f` is the code line a traceback prints under a frame: the line before it is a frame."""
    before = dict([(f.line_no, f.text), *f.after]).get(ln - 1, "")
    return bool(FRAME.search(before))


#: where a person's paragraph splits into sentences
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z][a-z])")
#: a program's message: an exception's line ("ValueError: ...", "torch.OutOfMemoryError: ..."), a panic, a call
#: quoting a string (TGI's `Generation("Allocation on device 0 would exceed ...`), escaped newlines: its sentences are
#: one message
_EXCEPTION = re.compile(r"^\s*[\w.]*(?:Error|Exception)\b|\bpanicked at\b|\w\(\x22|\\n")


#: what a person's sentence names as there already, beside what did not fit ("the EP buffers cannot fit alongside the
#: model weights and KV cache"): not what ran out
_RESIDENT = re.compile(r"(?<!\w)(?:alongside|besides|next to|on top of|in addition to)\b[^.;,()\n]*", re.I)


def _oom_sentence(text: str) -> str:
    """The sentence of a person's paragraph (no log prefix, no exception's class) that holds its out-of-memory words:
    a step another sentence names is not where memory ran out ("... kills the engine (CUDA OOM in the prefill path).
    This is well below the max-model-len ... the KV cache reports as provisioned."). The whole text otherwise."""
    if LOG_PREFIX.match(text):
        return text
    if user_words(text):
        # (a person's sentence of two outcomes, each quoting its own error: "0.01 is too low (resulting in
        # `RuntimeError: Not enough memory`), while 0.05 will result in `Exception: Capture cuda graph failed`": the
        # clauses that hold the out-of-memory words)
        held = [c for c in clauses(text) if OOM_ANY.search(c)]
        return " ".join(held) if held else text
    if _EXCEPTION.search(text):
        return text
    parts = _SENTENCES.split(text)
    if len(parts) < 2:
        return text
    held = [t for t in parts if OOM_ANY.search(t)]
    return " ".join(held) if held else text



#: ranks' lines read for a worker's steps, interleaved with its own
_RANKS_READ = 4


def _before_traceback(f: Failure, n: int = 6) -> list[tuple[int, str]]:
    """The `n` lines just before failure `f`, or, where a Python traceback leads up to it, the `n` lines before that
    traceback's header (its frames are the failure's, read apart; a header joined to the line before it, a progress
    bar's "... | 1/58 [00:00<00:56]Traceback (most recent call last):", keeps that line's own words)."""
    before = f.before
    at = next((i for i in range(len(before) - 1, -1, -1) if TB_HEADER in before[i][1]), None)
    if at is None:
        return before[-n:]
    ln, text = before[at]
    head = text[:text.index(TB_HEADER)].rstrip()
    return before[max(0, at - n):at] + ([(ln, head)] if head and not bare_prefix(head) else [])


#: one setting of an engine's settings printed one per line ("INFO:     Initializing the Aphrodite Engine (v0.5.0) with the
#: following config:" then "INFO:     Context Length = 2048"): its prefix (group 1), the setting's name, " = "
_CONFIG_ENTRY = re.compile(r"^(\W{0,3}(?:\S+\s+)?)[A-Z][\w()/-]*(?: [\w()/-]+){0,5} = \S")


#: one key of a YAML config the report pastes, its value a number, a flag, a quoted string or JSON
#: ("compilation-config: '{\"cudagraph_mode\":\"FULL_DECODE_ONLY\",\"cudagraph_capture_sizes\":[1,2,4,8]}'",
#: "max-num-seqs: 8"): a setting's name, no step (not a program's function tag and its words, "load_tensors: loading
#: model tensors")
_YAML_SETTING = re.compile(r"^\s*(?:-\s+)?[a-z][\w.-]*:\s+(?:'[^'\n]*'|\x22[^\x22\n]*\x22|\{.*\}|\[.*\]|-?\d[\d.,_]*"
                           r"|true|false|True|False|null|None)\s*$")


def _config_entry(text: str, before: str | None) -> bool:
    """`text` is one entry of a settings list printed one per line, or of a YAML config pasted (`_YAML_SETTING`), or,
    where `before` is given (the line before a paste's last line), the list's next entry cut short: the entry before
    it, with the same prefix, is one ("INFO: KV Cache Dat" after "INFO:     Enforce Eager Mode = False")."""
    if _CONFIG_ENTRY.match(text) or _YAML_SETTING.match(text):
        return True
    m = _CONFIG_ENTRY.match(before or "")
    # (a name in the list's own Title Case, cut: not a step's line after the list, "Downloading model weights")
    return bool(m) and text.startswith(m.group(1)) and bool(_TITLE_CASE.match(text[len(m.group(1)):]))


#: words each capitalised, as a settings list names its entries ("KV Cache Dat")
_TITLE_CASE = re.compile(r"[A-Z][\w()/-]*(?: [A-Z][\w()/-]*){0,5}\s*$")


#: a program's line that announces the load it begins, ending in an ellipsis (text-generation-webui's "Loading
#: pygmalion-6b...", "Loading model...", "Loading checkpoint /models/x.gguf ..."): not of a tokenizer, data or settings
LOAD_ANNOUNCED = re.compile(r"^\s*(?:\S+\s+){0,3}?(?:[A-Za-z]+:\s*)?Loading\s+(?!(?:the\s+)?(?:tokenizer|dataset|data|config\w*|settings|"
                             r"extensions?|plugins?|vocab\w*|index|prompts?|conversations?|history|characters?|sessions?|"
                             r"LoRAs?|adapters?|images?|requests?)\b)\S[^\n]{0,120}?(?:\.\.\.|…)\s*$", re.I)


#: a completion or generation endpoint in an access log's line ("POST /v1/chat/completions HTTP/1.1", "POST /generate")
_REQUEST_PATH = re.compile(r"\b(?:POST|GET) /(?:v1/(?:chat/)?completions|v1/embeddings|generate(?:_stream)?|completions?|"
                           r"infer|predict|api/(?:chat|generate))\b")


#: a client's error that carries the server's 5xx answer to its request (openai's "InternalServerError: Error code: 500
#: - {'message': 'CUDA out of memory. ...'}", requests' "500 Server Error", a JSON body's "code": 500)
_ANSWERED_5XX = re.compile(r"\bError code: 5\d\d\b|\bInternalServerError\b|\b5\d\d (?:Server Error|Internal Server Error)\b|"
                           r"\bHTTP(?:/\d(?:\.\d)?)? 5\d\d\b|\bstatus(?: code)?:? 5\d\d\b|[\x22']code[\x22']\s*:\s*5\d\d\b")
#: ... whose body names a load, a launch or a start (Xinference's "Failed to launch model", a LoRA adapter's load): a
#: request that was itself a load, not one the loaded model served
_LOAD_ASKED = re.compile(r"\b(?:load|launch|start|init|spawn|register)", re.I)


def _request_failed_after(f: Failure, engine: str) -> tuple[int, str] | None:
    """The server's access-log line, within the few lines after failure `f`, that answered a completion request with
    a 5xx status (uvicorn's `"POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error`), or the failure's own
    line where it is a client's error that carries that answer (`_ANSWERED_5XX`, no load named in it): the failure was
    that request's. None otherwise, and for a server that loads its model on a request (Ollama's 500 may be its load)."""
    if knowledge().loads_on_request(engine):
        return None
    if _ANSWERED_5XX.search(f.text) and not _LOAD_ASKED.search(f.text) and "rpc error" not in f.text:
        return f.line_no, f.text  # (not a gRPC worker's relay, LocalAI's "rpc error: ...": its backend loads on call)
    for ln, text in f.after[:4]:
        if program_line(text) and FAILED_REQUEST.search(text) and _REQUEST_PATH.search(text):
            return ln, text
    return None


#: the top of a Python program a report pastes: an import, a definition, a markdown fence that names the language
_PY_TOP = re.compile(r"^\s*(?:import [\w.]+|from [\w.]+ import\b|def \w+\(|class \w+\b[(:]|```\s*(?:python|py)\s*$)")
#: a line that reads as Python: blank, indented, a comment, a statement's keyword, an assignment, a call, or a line
#: that a bracket or colon leaves open or closes
_PY_LIKE = re.compile(r"^\s*$|^\s+\S|^#|^(?:if|elif|else|for|while|with|try|except|finally|return|print|import|from|def|"
                      r"class|async|await|raise|assert|@)\b|^[\w.\[\]'\x22, ]+?\s*(?<![=!<>])=(?!=)|^[\w.]+\(|[(\[{,:]\s*$|"
                      r"^[)\]}]")


def _script_lines(before: list[tuple[int, str]]) -> set[int]:
    """The lines of `before` that belong to a Python program the report pastes (from an import, a definition or a
    ```python fence, through the lines that read as Python, up to the first that does not, a log's line or a
    fence): its code names steps (`model.generate(`) that are the program's, not the run's progress."""
    out: set[int] = set()
    inside = False
    for ln, text in before:
        if _PY_TOP.match(text) and not LOG_PREFIX.match(text):
            inside = True
        elif inside and (text.strip().startswith("```") or LOG_PREFIX.match(text) or FRAME.search(text)
                         or not _PY_LIKE.match(text)):
            inside = False
        if inside:
            out.add(ln)
    return out


def step_reached(f: Failure, engine: str, floor: str | None = None) -> tuple[str, tuple[int, str], bool] | None:
    """The phase of the last start-up step the lines before failure `f` name (or before the traceback that leads up
    to it: vLLM's "Starting profile run for multi-modal models."), its line, and whether an excerpt's gap ("[...]")
    lies between it and the failure (then it only says how far the run got: other steps may have begun and ended in
    the lines left out); None where those lines name none at or after `floor`, or a milestone or a finished step
    comes after the step."""
    k = knowledge()
    gap = False
    # (a step another worker printed is not this one's: SGLang's "[DP0 TP0] Using KV cache dtype" above "[DP1 TP1]
    # Scheduler hit an exception", each rank at its own step)
    mine = _worker(f.text)
    # (with ranks interleaved, as many lines again for each other rank's: this one's steps lie among theirs)
    lines = _before_traceback(f, 6 if mine is None else 6 * _RANKS_READ)
    by_line = dict(lines)
    script = _script_lines(f.before)
    start = f.progress.get("start")
    for ln, text in reversed(lines):
        if start is not None and ln < start:
            return None  # (above the run's own start line: a script's code pasted before it, `llm.generate(...)`, a
            # report's words; no step this run passed)
        if ln in script:
            continue  # (a program the report pastes, "outputs = model.generate(**inputs)": its code, not its progress)
        if _config_entry(text, by_line.get(ln - 1) if ln == lines[-1][0] else None):
            continue  # (an engine's settings printed one per line, "INFO:     KV Cache Data Type = fp8": no step)
        if mine is not None and _worker(text) not in (None, mine):
            continue  # (nor is a milestone another worker passed this one's)
        if LOAD_ANNOUNCED.match(text) and (not floor or PHASES.index("WEIGHTS") >= PHASES.index(floor)):
            return "WEIGHTS", (ln, text), gap  # (the load it announces, under way: "Loading pygmalion-6b...")
        if any(p.search(text) for _, p in k.milestones):
            return None  # a milestone passed after it: the steps before it are done ("torch.compile" before V1 sized its pool)
        gap = gap or bool(ELISION.match(text))
        if FRAME.search(text) or is_progress(text) or user_words(text) or _LEAK.search(text):
            continue  # (a user's heading, "## Captured logs:", names no step; nor does a leak check's report)
        if _FINISHED.search(text):
            return None  # a step that finished ("prepared 80.76 GiB ... in 26.8s"): what came before it is not under way
        p = phase_words(text, engine)
        if p in PHASES and (not floor or PHASES.index(p) >= PHASES.index(floor)):
            return p, (ln, text), gap
        if _NUMBERED_STEP.match(text):
            return None  # a launcher's next numbered step ("[6/6] Starting server..."): the steps before it are done
    return None


#: a launcher's or a script's numbered step ("[5/6] Warmup benchmark...", "[6/6] Starting server...", "Step 3/5:"): a
#: step of its own begun, so the one numbered before it is over
_NUMBERED_STEP = re.compile(r"^\s*(?:\[\d+/\d+\]|\(\d+/\d+\)|Step \d+/\d+:?)\s+\S")


#: lines after a failure in which the engine's own wrapper that names its step is its verdict on it
AFTER_VERDICT = 12


#: the source of a place read from a second model's load (`_more_weights`)
SECOND_MODEL = "a second model's load under way (a multimodal projector or a draft model)"
#: a second model's load line that names a multimodal projector (clip.cpp's loader, "loading multimodal model",
#: Ollama's "used as mmproj"), not a draft model
PROJECTOR = re.compile(r"\bclip|\bmmproj\b|\bprojector\b|\bmultimodal\b|\bmtmd_", re.I)


def _more_weights(f: Failure, engine: str) -> tuple[int, str] | None:
    """The line of a second model's load (`LogWords.more_weights`: a multimodal projector, a draft model) that is the
    last step before failure `f` after the run's weights milestone, with no milestone and no other step between them;
    None otherwise."""
    k = knowledge()
    more = k.own_or_wrapped(engine, lambda w: w.more_weights)
    done = f.progress.get("weights_done")
    if more is None or done is None:
        return None
    for ln, text in reversed(_before_traceback(f)):
        if ln <= done or ELISION.match(text) or any(p.search(text) for _, p in k.milestones):
            return None  # (lines left out between them may have held another step)
        if more.search(text):
            return ln, text
        if FRAME.search(text) or is_progress(text) or user_words(text):
            continue
        if phase_words(text, engine) in PHASES:
            return None  # another step under way after the load (the projector's compute buffer)
    return None


def _warmup_goes_on(f: Failure, eng) -> bool:
    """The run's last milestone is a line after which the engine still warms up (`LogWords.warmup_goes_on`), and what
    follows it up to the failure is more of those lines (one per worker) or the failure's own error lines: no line of
    another step, of serving, or of a person."""
    pattern = eng.log.warmup_goes_on[0] if eng and eng.log.warmup_goes_on else None
    at = f.progress.get("warmup_done")
    if pattern is None or at is None or any(m in f.progress for m in ("ready", "requests")):
        return False
    lines = [(ln, t) for ln, t in f.before if ln >= at] + ([(f.line_no, f.text)] if f.line_no > at else [])
    if not lines or not pattern.search(lines[0][1]):
        return False
    return all(pattern.search(t) or _ERROR_LINE.search(t) or FRAME.search(t) for _, t in lines[1:])


#: an engine's line at error level, a traceback's header or an exception (the failure's own lines)
_ERROR_LINE = re.compile(r"\b(?:ERROR|CRITICAL|FATAL)\b|^\S*\s*Traceback \(most recent call last\)|^\s*\w+(?:Error|Exception)\b")


#: a worker's tag on its lines: "[rank0]:", "(VllmWorker rank=3 pid=1090)", "(RayWorkerWrapper pid=812, ip=...)",
#: "[2025-01-01 10:00:00 TP3]"
_WORKER_TAG = re.compile(r"^\s*\[rank(\d+)\]:|\brank=(\d+)\b|\(\w*Worker\w* pid=(\d+)|\bTP(\d+)\]")


def _worker(text: str) -> str | None:
    m = _WORKER_TAG.search(text)
    return next((g for g in m.groups() if g is not None), None) if m else None


def _other_workers(f: Failure, line_no: int) -> bool:
    """The milestone on line `line_no` was printed by another process than failure `f`'s: `f` carries a worker's tag
    and the milestone's line a different one, or none (the driver's)."""
    mine = _worker(f.text) or next((_worker(t) for _, _, t in frames(f) if _worker(t)), None)
    if mine is None:
        return False
    text = next((t for ln, t in f.before if ln == line_no), None)
    return text is not None and _worker(text) != mine


#: a person's words that the requests themselves run fine ("it's actually ok during inference", "works fine when
#: serving requests"): the requests named there are no step the failure came in
FINE_WHEN_SERVING = re.compile(r"\b(?:ok|okay|fine|works?|working|no (?:problem|issue)s?)\b[^.;!?\n]{0,30}?\b(?:during|"
                               r"when|while|for|in)\s+(?:the\s+)?(?:inference|serving|requests?|generation|decoding)\b", re.I)


def _shown_under_way(f: Failure, engine: str, pasted_below: bool = False) -> set[str]:
    """The phases the log's own lines put failure `f` in: its stack frames', else the last line before it, not a
    person's, that names a step (none where that step says it finished); pasted_below: `f` is a person's line that
    introduces the paste under it, whose lines up to the program's own error are read instead. Empty where they name
    none."""
    framed = {p for p in (phase_words(t, engine) for _, _, t in frames(f)) if p in PHASES}
    if framed:
        return framed
    lines = f.before[-12:]
    if pasted_below:
        lines = []
        for ln, t in f.after[:12]:
            if OOM_ANY.search(t) and program_line(t) or TB_HEADER in t:
                break
            lines.append((ln, t))
    for _, t in reversed(lines):
        if user_words(t) or sentence_like(t) or not t.strip():
            continue
        p = phase_words(t, engine)
        if p in PHASES:
            return set() if step_done(t) else {p}
    return set()


def locate(f: Failure, engine: str, weights_bytes: int | None = None, told: frozenset[str] = frozenset()) -> Place:
    """Where `f` happened, from the evidence in order; see the module docstring. weights_bytes: the
    model's weights (printed by the engine, or estimated), held against what PyTorch held when it failed. told: the
    milestones only a user's words gave ("the crash happens when we send requests"): a floor for the failure's own
    words, not over the engine's stack frames."""
    k = knowledge()
    eng = k.engine.get(engine)
    # (not a milestone only the failure's own sentence gave: "it will cause OOM during memory profiling. But it's ok
    # during inference" names the step that failed, and the requests as what works)
    fine = bool(FINE_WHEN_SERVING.search(f.text))
    # (nor one a person's line that introduces the paste gave, "OOM under 64 concurrency:", where the paste's own
    # frames or lines show a start-up step under way: the words are the report's, the traceback places it)
    person = not program_line(f.text)
    opens = person and f.text.rstrip().endswith((":", "："))
    here = _shown_under_way(f, engine)  # (the step the log's own lines show under way, read once)
    under_way = (_shown_under_way(f, engine, True) if opens else here) & set(STARTUP) if person else set()
    intro = bool(under_way) and opens
    # (nor one the person's own line denies: "It OOMs when loading the model, not while sending concurrent requests")
    denied = {m for m, p in k.milestones if person and f.progress.get(m) == f.line_no and p.search(f.text)
              and all(denied_at(f.text, mm.start()) for mm in p.finditer(f.text))}
    progress = {m: ln for m, ln in f.progress.items() if not (intro and ln == f.line_no) and m not in denied}
    marker = last_marker({m: ln for m, ln in progress.items() if not (fine and m in told and ln == f.line_no)})
    shown_marks = {m: ln for m, ln in progress.items() if m not in told}  # (the program's own milestones)
    if marker in told and (any(ln > f.progress[marker] and program_line(t) and not step_done(t)
                               and phase_words(t, engine) in STARTUP for ln, t in f.before)
                           or here & set(STARTUP)):
        # (a milestone only the report's words gave, above the server's own line of a start-up step under way: "fails
        # with OOM on certain requests" over a log that then says "Starting to load model" and fails: the words are
        # about the report, the start-up below is this run's, and its own lines place the failure; not a start-up that
        # only got on, "Model loading took ...", under "it crashes as soon as I send the first request")
        marker = last_marker(shown_marks)
    floor = FLOOR[marker] if marker else None
    # (an engine whose own phases after this milestone begin lower, transformers' weights moved to the device after the
    # checkpoint is read: the floor is the lowest of them)
    own_after = k.own_or_wrapped(engine, lambda w: w.after.get(marker)) if marker else None
    if own_after and floor and PHASES.index(min(own_after, key=PHASES.index)) < PHASES.index(floor):
        floor = min(own_after, key=PHASES.index)
    # (not a milestone another worker printed: in a distributed start each rank loads its own weights, and the one
    # that failed may still have been loading when another said it was done)
    shown = last_marker({m: ln for m, ln in shown_marks.items() if not _other_workers(f, ln)})
    frame_floor = FLOOR[shown] if shown else None
    passed = passed_step(f.text) if user_words(f.text) or sentence_like(f.text) else None
    if passed is None and not f.phase:
        # ... or the report's words above the engine's own line of it ("**What happened**, ~20 s after `API server is
        # ready to serve`, on the first substantial prompt:")
        told_after = [p for p in (passed_step(t) for _, t in f.before[-6:] if not program_line(t) and not FRAME.search(t))
                      if p]
        passed = max(told_after, key=PHASES.index) if told_after else None
    if passed and (floor is None or PHASES.index(passed) > PHASES.index(floor)):
        floor = passed  # (the user's words: a floor for the failure's own words, not over the engine's frames)
    during = during_step(f.text, engine) if passed is None and (user_words(f.text) or sentence_like(f.text)
                                                         or not LOG_PREFIX.match(f.text)) else None
    if during and intro and during not in under_way:
        during = None  # ("The server OOMs during warmup:" above a load at 50%: the paste's own step places it)
    if passed is None and during is None and not f.phase:
        # ... or the report's words above the engine's own line of it ("Fix OOM in DeepSeek weight loading", "This
        # causes OOM when loading large models"), where they name one step only
        # (and below a title that is itself the failure: the report's body tells of it)
        # (or below a sentence of the report's own that names the failure: the report's sentences just after it, "...
        # cannot load with the current load_weights()" / "Reduces peak memory from ~157 GB to ~81.6 GB during weight
        # loading")
        # (or the report's sentence just below the program's own line of it, the paste closed: "TT_FATAL: Out of Memory:
        # ..." / "```" / "Occurs ~15 min into warmup during backbone precompilation.")
        body = f.after if TITLE.match(f.text) else f.after[:12] if (
            (user_words(f.text) or sentence_like(f.text)) and not program_line(f.text)) else [
            (ln, t) for ln, t in f.after[:_TOLD_BELOW] if user_words(t) or sentence_like(t) or prose_like(t)]
        told_steps = {during_step(t, engine) or _raised_in(t, engine) for _, t in [*f.before, *body]
                      if not program_line(t) and not FRAME.search(t)} - {None}
        during = told_steps.pop() if len(told_steps) == 1 else None
        if during and here and during not in here:
            # (the log's own lines show another step under way, its frames or a step begun and not finished: they
            # place it, not the report's words around the paste, "The server OOMs during warmup:" above a load at 50%)
            during = None
    if during and not f.phase and not f.candidates and (floor is None or PHASES.index(during) >= PHASES.index(floor)):
        return Place(during, "the report's words of the step under way", (f.line_no, f.text), [during], inferred=True)
    if (during is None and passed is None and not f.phase and not f.candidates and (user_words(f.text)
                                                                                    or sentence_like(f.text))
            and not FRAME.search(f.text) and not told_start(f.text)
            and any(not denied_at(f.text, mm.start()) for m, p in k.milestones
                    if m == "requests" for mm in p.finditer(f.text))):
        # (not where the same sentence says it failed as the model loaded or the server started: "利用VLLM进行推理时，
        # 加载模型时OOM", inference the purpose, the load the step)
        # a person's sentence of the failure that says it came on a request ("even saying \"Hello\" will lead to the
        # out of memory error", "it OOMs when a request arrives")
        return Place("RUNTIME", "the report's words: it failed on a request", (f.line_no, f.text), ["RUNTIME"],
                     inferred=True)
    held, tried = _held(f.text)
    if held and weights_bytes and held >= 1.05 * weights_bytes and (floor is None or floor == "WEIGHTS"):
        floor = "KV"  # more than the weights was resident: they had loaded
    if f.candidates and not f.phase:  # the words name several phases at once: the program's own progress narrows them
        left = _at_least(f.candidates, frame_floor)  # (ONNX Runtime's Run, WARMUP or RUNTIME, after served requests)
        if len(left) == 1 and len(f.candidates) > 1:
            return Place(left[0], "the failure message, which names several ledgers, and the run's progress past the "
                                  "others", (f.line_no, f.text), left, inferred=True)
        return Place(None, "the failure message, which names several ledgers at once", (f.line_no, f.text),
                     left or list(f.candidates))
    if (f.phase == "WARMUP" and frame_floor == "RUNTIME" and f.code == "compute-buffer-alloc-failed"
            and max(f.progress.get(m, 0) for m in ("ready", "requests"))
            > max(f.progress.get(m, 0) for m in ("weights_done", "kv_sized", "kv_done"))):
        # (a compute buffer made again while serving: llama.cpp's scheduler reserves the graph anew for a larger batch
        # than any before, ggml_gallocr_reserve_n from llama_decode; the run's own lines show it serving, so the
        # warm-up is past; not the report's words alone; nor a web UI ready before it loads the model, Gradio's
        # "Running on local URL" above text-generation-webui's llama.cpp load: that load's context is being made)
        return Place("RUNTIME", "the failure message (a compute buffer reserved again) and the server already serving",
                     f.deciding or (f.line_no, f.text), ["RUNTIME"], inferred=True)
    if f.phase:  # the failure's own words, or the engine's verdict that joined it
        own = f.deciding is None or f.deciding[0] == f.line_no
        inner = _inside_wrapper(f, engine) if not own else None
        if inner is not None:
            return inner
        return Place(f.phase, "the failure message" if own else "the message after the failure",
                     f.deciding or (f.line_no, f.text), [f.phase])
    more = _more_weights(f, engine)
    if more:  # a second model's weights loading after the first's milestones (a projector, a draft model)
        return Place("WEIGHTS", SECOND_MODEL, more, ["WEIGHTS"], inferred=True)
    # words of a step, not an engine's verdict: never before the progress made (a failure that is itself a stack frame,
    # a traceback pasted without its header or its error, is placed with the other frames: the innermost decides)
    headless = bool(FRAME.search(f.text))
    p = phase_words(_RESIDENT.sub(" ", _oom_sentence(f.text)), engine) if not headless else None
    if intro and p not in under_way:
        p = None  # (an introducing line's step words yield to the paste's own step under way)
    if p in PHASES and (not floor or PHASES.index(p) >= PHASES.index(floor)):
        return Place(p, "the failure message", (f.line_no, f.text), [p])
    if p == "COMPUTE":  # the failure's own words name a graph evaluation (V0's "Error in model execution")
        if floor == "RUNTIME":
            return Place("RUNTIME", "the failure message (a model execution) and the server already serving",
                         (f.line_no, f.text), ["RUNTIME"])
        if marker in ("kv_done", "warmup_done"):
            return Place("WARMUP", "the failure message (a model execution) before the server was ready",
                         (f.line_no, f.text), ["WARMUP"])
        if ("requests" not in f.progress and "ready" not in f.progress
                and any(told_start(t) for _, t in [*f.before, (f.line_no, f.text), *f.after])):
            # (the report's words that it failed as the server started: the profile or warm-up run's model execution)
            return Place("WARMUP", "the failure message (a model execution) and the report's words that it failed "
                         "starting", (f.line_no, f.text), ["WARMUP"], inferred=True)
        # (or the stack frames of a request's generation and of no start-up step: transformers' GenerationMixin.generate
        # over the model's forward, a cuBLAS handle made at its first matmul, "CUBLAS_STATUS_ALLOC_FAILED")
        found = _first_phases(sorted(frames(f)), engine)
        if "RUNTIME" in found and not any(p in found for p in STARTUP):
            return Place("RUNTIME", "the failure message (a model execution) and the stack frames of a request",
                         found["RUNTIME"][1:], ["RUNTIME"])
        return Place(None, "the failure message (a model execution: the profile or warm-up run, or a request)",
                     (f.line_no, f.text), ["WARMUP", "RUNTIME"])
    # an engine's own verdict a line or two later, or the request that failed (the lines after a frame are more of
    # its traceback)
    # (the report's words of where it failed, a few lines on: a list of what the log shows, "3. 错误发生在模型编译阶段")
    for i, (ln, text) in enumerate(f.after[:8] if not headless else ()):
        said = _TOLD_WHERE.search(text) if not LOG_PREFIX.match(text) and not program_line(text) else None
        if said:  # the report's words of where it failed ("Error occurs in `prealloc_symmetric_memory_pool` during
            # FlashInfer FP4 kernel autotuning"): the step they name
            p = phase_words(re.split(r"[,;，；]|\.\s|\s(?:right |just )?(?:after|before|when|once)\s",
                                     text[said.start(said.lastindex or 1):])[0], engine)
            p = p if p in PHASES else during_step(text, engine)  # (or a step in the report's words: "allocating a KV buffer")
            if p in PHASES and (not floor or PHASES.index(p) >= PHASES.index(floor)):
                return Place(p, "the report's words of where it failed", (ln, text), [p], inferred=True)
        if i >= 3:
            continue
        if (FRAME.search(text) or FAILED_REQUEST.search(text) or user_words(text) or _code_of_frame(f, ln)
                or prose_like(text) or sentence_like(text) or title_case(text)):
            # (nor a person's sentence, a maintainer's explanation: "The KV cache is preallocated for the full context
            # in both cases though." names how the engine works, not where this failure came; nor an article's section
            # heading, "Why the Default KV Cache Allocation Fails")
            continue  # (an access line is printed when its request ends: one failed by this failure says no phase;
            # the code line under a frame is the frame's, read with the frames below)
        v = k.line_verdict(text)
        if v and v.phase == "HOST" and f.kind == "oom":
            continue  # the shell's "Killed" after a GPU out-of-memory: the engine killing its own processes
        if v and v.phase and v.kind in ("oom", "error", "wrapper"):
            return Place(v.phase, "the message after the failure", (ln, text), [v.phase])
        # (words of a step, not the function a line's prefix names: llama-server's "srv load_model: the slot context
        # ... capping" is a warning from the function that does the whole start-up)
        # (not a step that finished, "Loading model weights took 15.5 GB", nor a milestone: progress, no step under way)
        p = phase_words(_FUNCTION_TAG.sub("", text), engine) if not step_done(text) else None
        if p in PHASES and (not floor or PHASES.index(p) >= PHASES.index(floor)):
            return Place(p, "the message after the failure", (ln, text), [p])
    # (further on, the engine's own wrapper that names its step: TGI's "Error: ShardCannotStart" / "Shard 0 failed to
    # start" under the shard's out-of-memory and its memory table)
    for ln, text in f.after[3:AFTER_VERDICT] if not headless else ():
        v = k.line_verdict(text) if not user_words(text) else None
        if v is not None and v.kind in ("oom", "not_oom"):
            break  # (another failure's words: the verdicts after it are its)
        if v is not None and v.kind == "wrapper" and v.phase and v.engine != "generic" and (
                not floor or PHASES.index(v.phase) >= PHASES.index(floor)):
            return Place(v.phase, "the engine's verdict a few lines after the failure", (ln, text), [v.phase])
    # the report's own words that it failed starting ("When starting the model using the following command", "the
    # server fails to start"): a start-up step, whichever
    start_told = any(told_start(t) for _, t in [*f.before, (f.line_no, f.text), *f.after]) and "ready" not in f.progress
    # stack frames: a start-up step anywhere beats a serving step (start-up runs the forward pass too);
    # among start-up steps the innermost is the most specific
    listed = sorted(frames(f))
    found = _first_phases(listed, engine)
    startup_frame = any(x.search(text) for _, _, text in listed for x in k.frames.get("STARTUP", ()))
    # (not a step the run's progress is past: a helper the warm-up calls from the loader's package, vLLM's
    # "model_loader/tiered_moe_physical.py ... validate_tiered_moe_observed_hbm_reserve" under compile_or_warm_up_model
    # after "Graph capturing finished": the next step out that the progress allows is the one under way)
    start_phases = [p for p in STARTUP if p in found]
    if start_phases:
        allowed = [p for p in start_phases if not frame_floor or PHASES.index(p) >= PHASES.index(frame_floor)]
        if allowed:
            p = min(allowed, key=lambda x: found[x][0])
            return Place(p, "the stack frames", found[p][1:], [p])
    elif "RUNTIME" in found:
        return Place("RUNTIME", "the stack frames", found["RUNTIME"][1:], ["RUNTIME"])
    elif "COMPUTE" in found:  # a graph evaluation: the warm-up pass before the server is ready, requests after
        where = found["COMPUTE"][1:]
        if floor == "RUNTIME":
            return Place("RUNTIME", "the stack frames and the server already serving", where, ["RUNTIME"])
        if marker in ("kv_done", "warmup_done") and not f.elided:
            return Place("WARMUP", "the stack frames before the server was ready", where, ["WARMUP"])
        served = next(((ln, t) for ln, t in f.after if program_line(t)
                       and any(q.search(t) for m, q in k.milestones if m == "requests")), None)
        if served:  # (the engine's own line after it that requests were running: its dump of the failed batch)
            return Place("RUNTIME", "the stack frames (a graph evaluation) and the engine's line after them that "
                         "requests were running", served, ["RUNTIME"], inferred=True)
        if start_told and "requests" not in f.progress:  # a forward pass while starting: the profile or warm-up run
            return Place("WARMUP", "the stack frames (a forward pass) and the report's words that it failed starting",
                         where, ["WARMUP"], inferred=True)
        return Place(None, "the stack frames (a graph evaluation: warm-up or serving)", where, ["WARMUP", "RUNTIME"])
    failed = _request_failed_after(f, engine)
    if failed:
        return Place("RUNTIME", "the server's answer to a request: the request it failed (a 5xx status)", failed,
                     ["RUNTIME"])
    reached = step_reached(f, engine, floor)
    if reached and not reached[2]:
        p, line, _ = reached
        return Place(p, STEP_BEFORE, line, [p])
    if reached:  # a step, then lines left out, then the failure: the run got at least as far as that step
        floor = reached[0]
    if held is not None and weights_bytes and held + tried < 0.95 * weights_bytes and marker in (None, "start"):
        return Place("WEIGHTS", f"the memory held when it failed ({held / GIB:.2f} GiB, less than the "
                     f"{weights_bytes / GIB:.2f} GiB of weights)", (f.line_no, f.text), ["WEIGHTS"], inferred=True)
    # the milestones passed (and a start-up step printed after the failure, llama-server's "srv load_model: ..." or a
    # start-up milestone: the server was still starting when it failed, so it was not serving)
    starting_after = any(_STARTING.search(t) or any(m not in ("ready", "requests") and p.search(t)
                                                      for m, p in k.milestones) for _, t in f.after)
    scope = STARTUP if startup_frame or starting_after or start_told else PHASES
    if startup_frame and marker in told:
        # (the engine's frames show it still starting: a milestone only the report's words gave, "我在尝试vllm推理时"
        # over a script's `llm = LLM(model=...)`, does not place it; the engine's own lines do)
        marker = last_marker(shown_marks)
        floor = FLOOR[marker] if marker else None
    quiet = bool(eng and eng.log.quiet)
    if marker is None or marker == "start":
        # a start line alone does not say the weights were loading: device set-up, another process, a quiet log
        cands = _at_least(scope, floor)
        if passed and floor == passed:
            where = "the report's own words, which name a step the failure came after"
            return Place(cands[0], where, (f.line_no, f.text), cands, inferred=True) if len(cands) == 1 else \
                Place(None, where, (f.line_no, f.text), cands)
        where = ("nothing: no start-up step before the failure is in the log" if marker is None else
                 "the start line only: " + ("this engine does not print its start-up steps at its default log level"
                                            if quiet else "the lines after it are left out of the excerpt" if f.elided
                                            else "no step after it (loading the weights, or setting up the device?)"))
        if len(cands) == 1:
            return Place(cands[0], where, (f.line_no, f.text), cands, inferred=True)
        return Place(None, where, (f.line_no, f.text), cands)
    if marker == "warmup_done" and not f.elided and _warmup_goes_on(f, eng):
        return Place("WARMUP", f"the start-up progress: the last milestone, then {eng.log.warmup_goes_on[1]} (the step "
                     "the engine runs after it), nothing of serving since", (f.line_no, f.text), ["WARMUP"],
                     inferred=True)
    if f.elided or quiet:  # lines left out (or not printed) after the last milestone: anything may have happened
        cands = _at_least(scope, floor)
    else:
        # (the engine's own phases after this milestone, or those of the engine it wraps: Ollama's runner prints
        # llama.cpp's per-buffer KV lines)
        own = k.own_or_wrapped(engine, lambda w: w.after.get(marker))
        cands = list(own or AFTER_MILESTONE[marker])
        cands = [c for c in cands if c in scope] or cands
        cands = [c for c in cands if not floor or PHASES.index(c) >= PHASES.index(floor)] or _at_least(scope, floor)
    where = f"the start-up progress ({marker})"
    if len(cands) == 1:
        return Place(cands[0], where, (f.line_no, f.text), cands, inferred=True)
    return Place(None, where, (f.line_no, f.text), cands)
