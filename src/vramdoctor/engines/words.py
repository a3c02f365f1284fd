"""Small builders for the words of engine logs: numbers and sizes as printed, and constructors for
`Message` and `Figure`. Every engine here prints "GB"/"MB" meaning GiB/MiB (vLLM `GiB_bytes`,
SGLang `/ (1 << 30)`, llama.cpp `/1024.0/1024.0`, TurboMind `>> 20`, TRT-LLM `bytesToString`),
so both spellings are read as powers of 2 unless a figure says otherwise.
"""

from __future__ import annotations

import re
from typing import Callable

from .interface import Figure, Message

I = re.IGNORECASE
UNIT = {"": 1, "b": 1, "bytes": 1, "kb": 2**10, "kib": 2**10, "mb": 2**20, "mib": 2**20, "gb": 2**30, "gib": 2**30,
        "tb": 2**40, "tib": 2**40}
#: a number as engines print it: 1,234 / 12.5 / -3 (a negative pool is a real figure)
NUM = r"(-?\d[\d,]*(?:\.\d+)?)"
#: a size: number and unit
SIZE = NUM + r"\s*([KMGT]i?B|bytes)\b"
#: after an OpenAI-style path's "/v1/": not a server's model management or listing (GET /v1/models, tabbyAPI's POST
#: /v1/model/load and /unload, LoRA and token admin): those are no inference requests
NOT_ADMIN = r"(?!models?\b|model/|lora/|token/|auth/|internal/)"
#: the model loading, in a Chinese report's words (在加载模型时, 加载权重的时候, 模型加载过程中), a Korean one's (모델을 로드할 때,
#: 한 번에 로드하려고 할 때, 모델 로딩 중, 적재하면) or a Japanese one's (モデルの読み込み中, モデルをロードする際, 読み込み時)
LOADING_CJK = (r"加载(?:模型|权重)(?:时|的时候|过程中|期间|阶段)|模型(?:加载|载入)(?:时|的时候|过程中|期间|阶段)|"
              # (or another model loaded beside the first: 再加载第二个模型时, 加载另一个模型的时候)
              r"加载(?:第[二三四2-4]个|另一个|新的?)模型(?:时|的时候)|"
              # (or how far the load got when it failed: 加载到40层左右时, 加载到2/3(blk.40 一共有blk.60)时)
              r"(?:加载|载入)到[^，。,;；!！?？]{0,30}?(?:时|的时候)|"
              # (or the load said to fail itself: "load_8bit = True 时加载会报以下错误", 加载就报错, 加载模型直接OOM)
              r"(?:加载|载入)(?:模型|权重)?(?:会|就|直接)?(?=报错|报以下|报如下|报了|出现|出错|失败|OOM|爆显存)|"
              r"(?:로드|로딩|적재)(?:하려고 할 때|할 때|하는 중|하면|시에?|중에?)|모델 (?:로드|로딩|적재) ?(?:중|시)|"
              r"불러오(?:는 ?중|는 동안|려고 할 때|면서)|"
              r"(?:モデル|重み)(?:の|を)?(?:読み込み|ロード)(?:中|時|の際|する際|しようとすると|すると)|"
              r"(?:読み込み|ロード)(?:中|時)に")
#: a cache tensor made with a negative block count, the first of its 4 or 5 dimensions (PyTorch's "Trying to create
#: tensor with negative dimension -83: [-83, 64, 4, 128]"): the engine sized its KV pool from the memory left after the
#: weights and found less than nothing (vLLM 0.1-0.2.1 cache_engine.py, LMDeploy 0.2 PyTorch engine cache_engine.py)
NEGATIVE_BLOCKS = r"\bTrying to create tensor with negative dimension (-\d+): \[\1(?:, \d+){3,4}\]"
#: the most a figure may be: 2**60 bytes / tokens (no GPU holds more; longer numbers are garbage)
MAX_FIGURE = 2**60


def to_bytes(value: str, unit: str) -> int:
    """'1,234.5', 'MiB' -> bytes (MB and GB as powers of 2). Raises ValueError for an absurd size."""
    n = round(float(value.replace(",", "")) * UNIT[unit.lower()])
    if abs(n) > MAX_FIGURE:
        raise ValueError(f"size out of range: {value} {unit}")
    return n


def release(version: object) -> tuple[int, int, int] | None:
    """An engine's version as numbers to compare: '0.4.0.post1' -> (0, 4, 0), '0.6' -> (0, 6, 0), 'v0.10.1' (a git
    tag) -> (0, 10, 1); None when it does not start with numbers."""
    m = re.match(r"[vV]?(\d+)\.(\d+)(?:\.(\d+))?", str(version or ""))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None


def build_number(version: object) -> int | None:
    """A llama.cpp build as llama.cpp prints it: 'b7812' (its release tags), '7812', 'build: 7812 (a5eaa1d6)' or
    'build = 7812' (its log's first lines); None for anything else. The number is `git rev-list --count HEAD` of
    the commit built (`cmake/build-info.cmake`), so a fork or a shallow clone prints another."""
    m = re.fullmatch(r"\s*(?:build\s*[:=]\s*|b)?(\d{1,7})(?:\s*\([0-9a-f]{4,40}\))?\s*", str(version or ""), re.I)
    return int(m.group(1)) if m else None


def modelled(version: object, newest: str, parse: Callable = release):
    """The release whose rules apply: `version`, or `newest` when it is not given or is newer than that. parse:
    how a version reads (`release` for x.y.z, `build_number` for llama.cpp's builds)."""
    top = parse(newest)
    return min(parse(version) or top, top)


def rules_note(version: object, applied, parse: Callable = release) -> str:
    """How `applied` was chosen, for the output's rules line: '' when it is the version given."""
    if not version:
        return " (the newest modelled; --engine-version selects another)"
    asked = parse(version)
    return f" (the newest modelled: {version} is newer)" if asked and asked > applied else ""


def count(m: re.Match, i: int = 1) -> int:
    """An integer figure from group i ('1,234' -> 1234)."""
    n = int(float(m.group(i).replace(",", "")))
    if abs(n) > MAX_FIGURE:
        raise ValueError("count out of range")
    return n


def count_outside(*blocks: str) -> Callable[[re.Match], int]:
    """`count`, but not for a match inside one of `blocks`: a key of a nested config (`cuda_graph_config:` /
    `  max_batch_size: 64`, which the scanner reads as `cuda_graph_config.max_batch_size: 64`, or
    `cuda_graph_config: {max_batch_size: 64}`) is that block's setting, not the top-level one of the same name."""
    def read(m: re.Match) -> int:
        before = m.string[:m.start()]
        for b in blocks:
            at = before.rfind(b)
            if at >= 0:
                rest = before[at + len(b):]
                if rest == "." or sum(rest.count(c) for c in "({[") > sum(rest.count(c) for c in ")}]"):
                    raise ValueError(f"inside {b}")
        return count(m)
    return read


def size(m: re.Match, i: int = 1) -> int:
    """Bytes from groups i (number) and i+1 (unit)."""
    return to_bytes(m.group(i), m.group(i + 1))


def fraction(m: re.Match, i: int = 1) -> float:
    v = float(m.group(i))
    if not 0 <= v <= 1e6:
        raise ValueError("fraction out of range")
    return v


def gib(m: re.Match, i: int = 1) -> int:
    """Bytes from a bare number printed in GiB (a table whose header names the unit)."""
    return to_bytes(m.group(i), "GiB")


def mib(m: re.Match, i: int = 1) -> int:
    return to_bytes(m.group(i), "MiB")


#: an issue's title as its tracker's form tags it ("[Bug] ...", "[Usage]: ...", llama.cpp's "Bug: ...", "Misc. bug:
#: ..."): the report's words, not a program's line (logs' TITLE and the prose figures' `_WRITTEN` both read it)
ISSUE_TAGS = (r"\[(?:Bug|BUG|bug|Usage|Feature|Question|Performance|Misc|RFC|Doc|Docs|Installation|New Model|Hardware|"
              r"Help|Issue|"
              # (the other trackers' own templates and labels: vLLM's "[CI Failure]: ...", "[Tracking Issue]", SGLang's
              # "[Roadmap]", "[Regression]"; in any case, "[CI failure]")
              r"(?i:CI Failure|Tracking Issue|Tracker|Roadmap|Regression|Feature Request|Enhancement|Discussion))"
              r"\](?::\s*|\s+|(?=\[))(?:\[[^\]\n]{1,30}\]:?\s*){0,3}[^\W_]|(?:Bug|Misc\. bug|Eval bug|Compile bug|Feature Request):\s+\S|"
              # (a title that names the product first, "Ollama: Crash on Intel Iris Xe due to ...": no engine prints its
              # own name so; not "llama.cpp: loading model from", a 2023 build's own line, nor a lower-case word after)
              r"(?:Ollama|vLLM|SGLang|LM Studio|LMDeploy|TGI|KoboldCpp|LocalAI|TensorRT-LLM|ExLlamaV2|MLX):\s+[A-Z][a-z]|"
              # (a Chinese forum's or tracker's tag in full-width brackets: "【求助】", "【BUG】", "【问题】")
              r"【(?:求助|问题|提问|BUG|Bug|bug|报错|错误|讨论|疑问|咨询)】\s*\S")


#: a file's path and nothing else, maybe quoted ("/models/x.gguf", "'C:\\models\\x.gguf'", "~/.ollama/models/blobs/
#: sha256:8934..."): what a loader's error names where it gives no cause
PATH_ALONE = r"['\x22`]?(?:[A-Za-z]:)?[\\/~.]?[\w.@+-]*(?:[\\/][\w.@+:-]+)+['\x22`]?\s*$"

def fig(key: str, pattern: str, read: Callable[[re.Match], object] = size, mode: str = "last",
        flags: int = I, passive: bool = False, prose: bool = False) -> Figure:
    return Figure(key=key, pattern=lazy(pattern, flags), read=read, mode=mode, passive=passive, prose=prose)


def cli(key: str, flag: str, read: Callable[[re.Match], object], mode: str = "last") -> Figure:
    """A setting from a pasted command line: `--flag VALUE` or `--flag=VALUE` (flag as the engine spells it,
    with its alternatives: "tp-size|tp"); a value joined by hyphens is one value (`--quantization compressed-tensors`)."""
    # (vLLM's argument parser takes a flag's underscores for its hyphens, `--kv_cache_dtype fp8`; a pod spec's args list
    # gives the value as the next item, `"--kv-cache-dtype", "fp8"`)
    spelled = flag.replace("-", "[-_]")
    return Figure(key=key, pattern=lazy(r"(?:^|[\s\x22'\[])--(?:" + spelled + r")(?:=|\s+|[\x22'],\s*)['\"]?([\w.]+(?:-\w[\w.]*)*)", 0),
                  read=read, mode=mode,
                  command=True)


def switch(key: str, flag: str) -> Figure:
    """A flag that takes no value, on a pasted command line (`--enforce-eager`, `--disable-cuda-graph`): True where
    it is given (not `--flag=False` / `--flag 0`, and not where an engine's hint or a user proposes it or says it is
    not in use: "disable CUDA graph by --disable-cuda-graph", "try --enforce-eager", "with --enforce-eager it works",
    "CUDA graphs: enabled (no --enforce-eager)", "--enforce-eager also works but cuts throughput")."""
    return Figure(key=key, pattern=lazy(r"(?:^|(?<!\bby)(?<!\busing)(?<!\buse)(?<!\btry)(?<!\badd)(?<!\bset)"
                                        r"(?<!\bpass)(?<!\bwith)(?<!\bwithout)(?<!\bno)(?<!\bnot)\s)--(?:" + flag +
                                        r")(?![\w-])(?!\s*=?\s*(?:False|false|0)\b)"
                                        r"(?![`'\"]?\s+(?:also\s+|too\s+|does\s+|did\s+)?(?:works?|worked|helps?|helped|"
                                        r"fix(?:es|ed)?|avoids?|avoided|solves?|solved|resolves?|resolved)\b)", 0),
                  read=lambda m: True, mode="last", command=True)


#: a C function's name as the tag at a line's start ("llm_load_tensors:", "llama_perf_context_print:"): a program's own
#: line under that function, as llama.cpp's carry it (what follows the colon, a space, is each caller's to match)
FUNCTION_TAG = r"[a-z][a-z0-9]*_\w*:"

#: the words between a setting and the verb that says it fixed the failure ("--enforce-eager ... Pod boots"), none of
#: which say otherwise: no denial, no turn, no other flag ("--enforce-eager did not help, lowering max-model-len to 32768
#: fixed it")
FIX_GAP = r"(?:(?!\bnot\b|n['\u2019]t\b|\bno\b|\bnever\b|\bdid\b|\bbut\b|\bstill\b|--|max[-_]model[-_]len)[^\n]){0,80}?"

#: a user's words that a flag's value was tried and the run still failed ("I have tried setting `--max-running-requests`
#: to 1 but it still fails", "even with --max-model-len 16384 it fails", "also tried -c 4096, same OOM"): the flag, the
#: value; the failure said after it on the same line (not "... and that works")
TRIED = (r"\b(?:(?:I |we )?(?:have |had )?(?:already |also )?(?:tried|tested|attempted)\b(?P<t>[^.;\n]{0,40}?)|even with |"
         # ("Same error with --gpu-memory-utilization 0.95", "the same OOM when using --max-model-len 28000")
         r"same (?:error|OOM|crash|issue|problem|failure|result)s? (?:happens |occurs |appears )?(?:also )?"
         r"(?:with|using|when using|for) )"
         r"`?(?P<flag>--?[a-z][\w-]*)`?(?:\s*(?:=|to|of|at|as)\s*|\s+)`?(?P<value>\d+(?:\.\d+)?)\b`?"
         r"(?P<after>[^\n]{0,120})")
#: a flag (with its dashes or named without them, "gpu-memory-utilization") or a config key, as the words of a value
#: tried name it
FLAG_NAME = r"(?P<flag>--?[a-z][\w-]*|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z][a-z0-9]*(?:-[a-z0-9]+)+)"
#: ... or a setting the user says they moved to a value, and it still failed ("We reduced the
#: kvcache_free_gpu_mem_frac flag in the config file all the way down to .10 and still see this error", "lowered
#: --gpu-memory-utilization to 0.7, same OOM"): a flag or a config key, the value after "to"
TRIED_TO = (r"\b(?:reduced|reducing|lowered|lowering|decreased|decreasing|dropped|raised|raising|increased|increasing|"
            r"bumped|changed|set|setting)\s+(?:the\s+)?`?" + FLAG_NAME + r"`?"
            r"(?:\s+(?:flag|setting|option|parameter|value))?"
            r"(?:\s+in\s+(?:the\s+|our\s+|my\s+)?[\w.-]+(?:\s+file)?)?\s+(?:all\s+the\s+way\s+)?(?:down\s+|up\s+)?"
            r"to\s+`?(?P<value>\d*\.?\d+)\b`?(?P<after>[^\n]{0,120})")
#: ... in Chinese: "已经把 --cache-max-entry-count 降到 0.5 还是一样爆显存" (lowered to 0.5, the same OOM); the flag or key,
#: a verb of moving it (降到, 调到, 改成, 设置为, ...), the value
TRIED_TO_ZH = (r"`?" + FLAG_NAME + r"`?\s*(?:参数|的值)?\s*(?:从\s*[\d.]+\s*)?"
               r"(?:降到|降低到|降为|降至|调到|调成|调整到|调整为|调低到|调小到|改成|改为|改到|设置为|设置成|设为|设成|设到|"
               r"减少到|减小到|提高到|增加到|增大到|调高到)\s*`?(?P<value>\d*\.?\d+)`?(?P<after>[^\n]{0,120})")
_FAILED_ZH = re.compile(r"还是|仍然|依然|照样|一样|同样|报错|崩|爆显存|炸显存|显存不足|不行|没用|无效|(?<![A-Za-z])oom|OOM")
_WORKED_ZH = re.compile(r"可以了|成功|正常了|解决了|就好了|没问题")


def tried_zh(m: re.Match) -> tuple[str, float | int]:
    """(flag, value) from a `TRIED_TO_ZH` match, when the words after it say it still failed and not first that it
    worked."""
    return _still_failed(m, _FAILED_ZH, _WORKED_ZH)


_FAILED = re.compile(r"\b(?:still|same|fail\w*|error|crash\w*|oom|out of memory|doesn'?t|does not|didn'?t|did not|"
                     r"no luck|no effect|no difference|(?:not|no) help\w*|won'?t|hang\w*)\b", re.I)
_WORKED = re.compile(r"\b(?:works?|worked|working|fine|succeed\w*|success\w*|runs|ran|starts|started|okay|ok)\b", re.I)


def tried(m: re.Match) -> tuple[str, float | int]:
    """(flag, value) from a `TRIED` match, when the same line says it still failed ("even with" says so itself), and
    not that it worked first ("... and that works, but I need 29000")."""
    return _still_failed(m, _FAILED, _WORKED, said=m.group(0).lower().startswith(("even with", "same ")))


def _still_failed(m: re.Match, failed_words: re.Pattern, worked_words: re.Pattern,
                  said: bool = False) -> tuple[str, float | int]:
    """(flag, value) of a value tried, where the words after it (`failed_words`) say it still failed, not first that it
    worked (`worked_words`); `said`: the match's own words say so. ValueError otherwise."""
    after = m.group("after")
    failed, worked = failed_words.search(after), worked_words.search(after)
    if not said and (not failed or worked and worked.start() < failed.start()):
        raise ValueError("a value tried that worked")
    v = m.group("value")
    flag = m.group("flag")
    if "-" in flag and not flag.startswith("-"):  # (a flag named without its dashes: "把 gpu-memory-utilization 调到 0.95")
        flag = "--" + flag
    return flag, float(v) if "." in v else int(v)  # (".10" is 0.1)


def msg(pattern: str, kind: str = "oom", phase: str | None = None, code: str = "", flags: int = I,
        candidates: tuple[str, ...] = ()) -> Message:
    return Message(pattern=lazy(pattern, flags), kind=kind, phase=phase, code=code, candidates=candidates)


def rx(pattern: str, flags: int = I) -> re.Pattern:
    return lazy(pattern, flags)


class _Lazy:
    """A regex compiled on first use. Every engine module holds hundreds of log patterns that `estimate` never
    uses; compiling them at import cost more than the estimate itself. On first use the compiled pattern's
    methods become this object's own attributes, so later calls cost what a compiled pattern's do."""

    _METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "flags", "groups",
                "groupindex")

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        #: the flags it is compiled with (`flags` itself compiles it, as the compiled pattern's own attribute)
        self.source_flags = flags

    def __getattr__(self, name: str):
        compiled = re.compile(self.pattern, self.source_flags)
        for attr in self._METHODS:
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r})"


def lazy(pattern: str, flags: int = I) -> re.Pattern:
    """`re.compile(pattern, flags)`, done when the pattern is first used (see `_Lazy`)."""
    return _Lazy(pattern, flags)  # type: ignore[return-value]


#: a handler's own line in pasted source ("        except UnicodeDecodeError:", "except (OSError, RuntimeError) as e:",
#: "} catch (std::bad_alloc& e) {"): the exception it names is one the code is ready for, none raised
SOURCE_HANDLER = re.compile(r"^\s*(?:except\b[^:\n]{0,200}:\s*(?:#.*)?$|\}?\s*catch\s*\([^)\n]{0,200}\)\s*\{?\s*$)")
#: ... and other lines of pasted source that hold an error's words without any error raised: a logging or printing
#: call on a string (`logger.error("CUDA out of memory, dropping request")`, `fprintf(stderr, "out of memory ...")`,
#: `std::cerr << "OOM"`), a raise or throw of a literal message in code, a comment (`// ... we would abort on OOM`,
#: an indented `# ... to avoid OOM`), and a docstring's list of what a function raises (`Raises:`, an indented
#: `torch.cuda.OutOfMemoryError: if the batch does not fit`); a traceback's own exception line follows its code line
#: (not one a paste joined to that exception line: 'raise ValueError(f"...") ValueError: max_new_tokens must be ...')
SOURCE_LINE = re.compile(r"^(?![^\n]*[\x22')]\s+(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception):\s)\s*(?:(?:self\.)?"
                         r"(?:logger|logging|log|_logger|LOG|LOGGER)\.(?:debug|info|warning|warn|error|exception|critical|"
                         r"fatal)\s*\(\s*[fbr]?['\x22]|(?:print|fprintf|printf|puts|eprintln!|println!|"
                         r"panic!|warnings\.warn)\s*\(\s*(?:stderr\s*,\s*)?[fbrL]?['\x22]|std::cerr\s*<<|"
                         r"(?:raise|throw)\s+(?:new\s+)?[\w.:]+\s*\(\s*[fbr]?['\x22]|//|/\*|\*/|Raises:\s|"
                         # (other languages' logging and exits: console.error(, Go's log.Printf( and slog.Error(,
                         # Streamlit's st.error(, sys.exit(, Rust's log::error!, glog's LOG(ERROR) <<)
                         r"console\.(?:error|warn|log|info)\s*\(|(?:log|slog|logrus)\.(?:Print\w*|Fatal\w*|Error\w*|"
                         r"Warn\w*|Info\w*)\s*\(|st\.(?:error|warning|write|exception)\s*\(|sys\.exit\s*\(|"
                         r"log::(?:error|warn|info)!|LOG\((?:ERROR|WARNING|FATAL|INFO)\)\s*<<|"
                         # (an assert with its message, a condition, a return, a shell's echo or grep: code that names
                         # an error, none raised; not an assignment, `details = "..."`, which error dumps print too)
                         r"assert\b[^\n]*,\s*[fbr]?['\x22]|(?:if|elif|else if|while)\b[^\n]*(?:==|!=|\sin\s)|return\b|"
                         r"(?:grep|echo)\s)|"
                         # (an indented comment, with or without a space after its mark, and a YAML key's trailing
                         # comment: "memory: 32Gi   # was 16Gi, pod got OOMKilled while loading")
                         r"^\s+(?:\*\s|#)|^\s*[a-z_][\w.-]*:\s+[^#\n\x22]*\s#\s|"
                         r"^\s{4,}(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception):\s+(?:if|when|on|in case|raised)\b")


def pasted_source(text: str) -> bool:
    """The line is pasted source that names an error without raising one (`SOURCE_HANDLER`, `SOURCE_LINE`)."""
    return bool(SOURCE_HANDLER.match(text) or SOURCE_LINE.match(text))


#: the quotes a person sets an error in ("...", `...`, “...”, 「...」): a quoted error's own stops are not the sentence's
_QUOTED = re.compile(r"\x22[^\x22\n]{1,600}\x22|`[^`\n]{1,600}`|\u201c[^\u201d\n]{1,600}\u201d|\u300c[^\u300d\n]{1,600}\u300d")
#: a failure told as before, then as working now ("Before, vLLM refused to start with \"...\". I set --max-model-len
#: 16384 and now it starts and answers fine", "This used to crash with \"CUDA out of memory\" on 0.6.6, but on 0.7.0 it
#: runs fine", "the earlier ... error went away"), in Chinese (之前报错 "...", 把 ... 改成 ... 之后已经可以正常对话了) and
#: Japanese (以前は「...」が出ていましたが、... 問題なく動いています); not what worked before and fails now ("it used to run
#: fine, now it OOMs": the present is the failure)
_BEFORE_NOW = re.compile(r"\b(?:before|previously|earlier|used to|at first|initially|originally)\b[^!?\n]{0,300}?(?:\b(?:it |this "
                         r"|everything |the server |the model )?works?(?: fine| again)? now\b|\bnow (?:it |the server |the "
                         r"model )?(?:works|starts|runs|loads|serves)\b|\b(?:works|runs|starts|loads|serves)(?: and \w+)? "
                         r"(?:fine|normally|again|without (?:errors?|issues?|problems?))\b|\b(?:is|was|got|has been) "
                         r"(?:fixed|solved|resolved|gone)\b|\bwent away\b)|"
                         r"(?:之前|以前|原来|原先|先前)[^。！？\n]{0,200}?(?:已经|现在|就)(?:可以)?(?:正常|没问题|没有问题|解决)|"
                         r"以前は[^。！？\n]{0,200}?(?:問題なく|正常に)(?:動いて|動作して|動きました)",
                         re.I)
#: ... or marked fixed at its head ("UPDATE: solved. The OOM was caused by another process", "Fixed: the earlier ...
#: error went away", "[SOLVED]")
_FIXED_HEAD = re.compile(r"^\W{0,4}(?:(?:update|edit)\s*\W{0,3}\s*)?(?:solved|fixed|resolved)\b\W", re.I)


def told_fixed(text: str) -> bool:
    """A person's line tells of a failure as past and fixed (`_BEFORE_NOW`, `_FIXED_HEAD`), whatever error it quotes
    (an engine's own words, "No available memory for the cache blocks", as well as an out of memory): the line reports
    no failure of the run it sits above."""
    bare = _QUOTED.sub(" QUOTED ", text)
    return bool(_FIXED_HEAD.match(bare) or _BEFORE_NOW.search(bare))
