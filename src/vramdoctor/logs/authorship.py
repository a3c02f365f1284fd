"""Who wrote a line: the user (a sentence, a list item, a markdown heading) or a program (a line with a log prefix of
its own). A user's words name no step the engine was in and are the report's, not the log's. Pure."""

from __future__ import annotations

import re

from ..engines.words import ISSUE_TAGS
from .knowledge import COMMAND, FRAME
from .lines import LOG_PREFIX
from .prose import OOM_ANY, written_by_user

#: a character of Chinese, Japanese (kana) or Korean running words
CJK = r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]"

#: a markdown heading (not gdb's "#0  0x..." frames)
HEADING = re.compile(r"^\s{0,3}#{1,6} +(?:\[[^\]\n]{1,30}\]:? *){0,3}[`*_\"']*[^\W\d]")  # (also "# [Bug] Insufficient ...")
#: an item of a list the user wrote ("- tried -c 4096", "4. model: ...")
_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+\S")

#: an issue's title whose tracker tag asks for something rather than reporting a run: a proposal ("[RFC]: Clearer error
#: message when the KV cache does not fit"), a plan ("[Roadmap] vLLM Q3 2025 Roadmap"), the docs ("[Doc]: explain what
#: to do about OOM when loading weights"), a feature ("[Feature]: ...", llama.cpp's "Feature Request: ..."). An
#: out of memory it names is what it wants handled, not a failure it met; a report ("[Bug]", "[Usage]", "[Tracking
#: Issue]", which tracks a fault) is not one of these
ASKING_TITLE = re.compile(r"^\s*(?:#{1,6}\s+)?(?:\[(?i:RFC|Roadmap|Docs?|Documentation|Feature|Feature Request|"
                          r"Enhancement|Proposal)\]|Feature Request:\s)")
#: a pull request's heading over the output of its test, the fixed run ("## Test Result", vLLM's template; "## 测试结果"):
#: an out of memory the report's words name above it is the fault the change fixes, not one this output shows
RESULTS_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(?:\*\*)?(?:Test(?:ing)? (?:Results?|Outputs?|Logs?)|Results? after (?:the )?"
                             r"(?:fix|change|patch)|After (?:the )?(?:fix|change|patch)|测试结果|测试输出|修复后(?:的)?(?:结果|输出|日志)?|"
                             r"テスト結果)\b", re.I)
#: an item of a markdown task list ("- [ ] Reduce CUDA graph memory usage (OOM during capture)"): a thing to do
TASK_ITEM = re.compile(r"^\s*(?:[-*]|\d+[.)])\s+\[[ xX]\]\s")


#: an issue's title pasted without its markdown: its tracker's tag ("[Bug] CUDA OOM during inference", "[Usage]: ..."),
#: or labelled ("Title: GPU OOM during inference")
TITLE = re.compile(r"^\s*(?:" + ISSUE_TAGS + r"|Title:\s+\S)")


#: running words in Chinese, Japanese or Korean: six characters of them in a row
_CJK_RUN = re.compile(CJK + "{6}")


def cjk_words(text: str) -> bool:
    """A line of running Chinese, Japanese or Korean words no program wrote (no log prefix, no command, no stack
    frame): an engine named there ("之前用ollama从没遇到提示GPU资源不足") is named by the writer, as in English words."""
    return bool(_CJK_RUN.search(text)) and not (LOG_PREFIX.match(text) or COMMAND.match(text) or FRAME.search(text))


def user_words(text: str) -> bool:
    """The line is a user's words, not a program's: no log prefix, and in the first person, quoting, a list item or a
    markdown heading; or an issue's title pasted without its markdown (`TITLE`)."""
    if LOG_PREFIX.match(text) and not HEADING.match(text) and not TITLE.match(text):
        return False
    if COMMAND.match(text):
        return False  # a pasted command ("./run.sh python -m aphrodite... --host \"0.0.0.0\" ..."), quotes and all
    return bool(HEADING.match(text) or TITLE.match(text) or _LIST_ITEM.match(text) or written_by_user(text, False))


def program_line(text: str) -> bool:
    """The line is a program's own: it has a log prefix, and is not a user's words (a heading) beside it."""
    return bool(LOG_PREFIX.match(text)) and not user_words(text)


def persons_line(text: str) -> bool:
    """The line is a person's words, not a program's: no log prefix (`program_line`), and in the first person, quoting,
    a list item or a heading (`user_words`), or a sentence (`sentence_like`). A program's bare print with neither,
    text-generation-webui's "Output generated in 21.47 seconds (9.22 tokens/s, ...)", is not."""
    return not program_line(text) and (user_words(text) or sentence_like(text))


#: a sentence as people write them: a capital first, 10+ words, a stop last; and none of a program's marks (an
#: exception's class and colon, a level word, `::`, an environment variable set, a table's `|`)
_SENTENCE = re.compile(r"^\s*[A-Z][a-z]+\b(?:\W+\w+){9,}[^\n]*[.!?]['\x22)]?\s*$")
PROGRAM_MARKS = re.compile(r"\w(?:Error|Exception|Warning)\b|\berror:|\b(?:ERROR|WARN\w*|INFO|DEBUG|FATAL)\b|::|"
                            r"\b[A-Z][A-Z0-9_]{3,}=|\||"
                            r"^\s*(?:Error|Exception|Warning|Traceback)\b|\b(?:PyTorch|CUDA|cudaMalloc)\b")


def sentence_like(text: str) -> bool:
    """The line reads as a sentence a person wrote (a capital first, 10+ words, a stop last, no log prefix and none of
    a program's marks: "After upgrading to 1.0, loading the model with TP=2 fails with OOM errors during model
    initialization." is one; "Of the allocated memory 20.5 GiB is allocated by PyTorch, ..." is PyTorch's): where a
    program's line of the same failure follows, that line decides."""
    return (not LOG_PREFIX.match(text) and bool(_SENTENCE.match(text) or _SENTENCES.match(text) and len(text.split()) >= 6)
            and not PROGRAM_MARKS.search(text))


#: ... or two short sentences or more, each a capital word first and a stop last ("Same OOM behavior as yesterday.
#: Server died mid-prefill."): an engine's line is one message
_SENTENCES = re.compile(r"^\s*(?:[A-Z][a-z]+\b[^.!?\n]{2,100}[.!?]\s+){1,4}[A-Z][a-z]+\b[^.!?\n]{2,100}[.!?]\s*$")


#: a word of a title set in title case ("Allocation", "KV", "vLLM's", "70B"), and the short words titles leave in lower
#: case ("the", "of", "a", "vs")
_TITLE_WORD = re.compile(r"^(?:[A-Z0-9][\w'\u2019.-]*|[a-z]{1,3}|[a-z]+[A-Z][\w'-]*)[?!]?$")


def title_case(text: str) -> bool:
    """The line is a heading a person set in title case ("Why the Default KV Cache Allocation Fails", "How to Fix CUDA
    Graph OOM"): no log prefix, 3 to 14 words, every word of four letters or more capitalized (or a name such as
    "vLLM"), none of a program's marks (`:`, `=`, brackets, a path) and no stop at its end. A section of an article or a
    report, never a line an engine printed (engines write their messages in sentence case)."""
    if LOG_PREFIX.match(text) or re.search(r"[:=()\[\]{}/\\_<>|]", text) or text.rstrip().endswith("."):
        return False
    words = text.split()
    return 3 <= len(words) <= 14 and sum(1 for w in words if len(w) >= 4) >= 3 and all(
        _TITLE_WORD.match(w) for w in words)


#: a plain lower-case word of running text ("results", "in", "an", "with,"), as most of a person's sentence is
_PLAIN_WORD = re.compile(r"^[a-z][a-z'\u2019-]*[,.;:]?$")


def prose_like(text: str) -> bool:
    """The line reads as running text a person wrote, whatever its case or stop ("while submitting a web search result
    for processing results in an OOM with high prefix cache hit rates ...:"): no log prefix, 8+ words, three in four
    of them plain lower-case words. A program's message holds its figures, names and marks ("Memory access fault by
    GPU node-1 (Agent handle: 0x5a6b) on address ...": half)."""
    if LOG_PREFIX.match(text):
        return False
    words = text.split()
    return len(words) >= 8 and sum(1 for w in words if _PLAIN_WORD.match(w)) >= 0.75 * len(words)


#: a person's account of the failure, not a program's line of it: a verb that tells what the program did, then when or
#: with what ("Llama-3.1-8B crashes during prefill warmup with OOM error", "the server fails at startup with CUDA OOM",
#: "ollama died while loading the model"); programs print what failed ("CUDA out of memory", "failed to allocate"),
#: not that something "crashes during" a step
_NARRATES = re.compile(r"\b(?:crash(?:es|ed)?|fails|died|dies|errors? out|errored(?: out)?|blows? up|blew up|aborts|"
                       r"aborted|goes OOM|went OOM|OOMs|OOMed)\s+(?:(?:right|immediately|again|always|consistently|"
                       r"randomly|badly|hard)\s+)?(?:during|while|when|at|on|in|with|after|before|because|due)\b", re.I)


#: ... or that a setting or an action brought the out-of-memory on ("Enabling UNSLOTH_VLLM_STANDBY=1 ... triggers an
#: immediate CUDA OOM on RTX 4090 at the FastLanguageModel.from_pretrained()", "this config causes an OOM", "it ran into
#: out of memory"): a person's cause and effect, which no program writes of its own failure
_BROUGHT_ON = re.compile(r"\b(?:triggers?|triggered|causes|caused|gives|gave|throws|threw|results in|resulted in|leads to|"
                         r"led to|runs into|ran into)\s+(?:an?\s+|the\s+)?(?:immediate\s+|instant\s+)?(?:CUDA\s+|GPU\s+)?"
                         r"(?:OOM|out[- ]of[- ]memory)\b", re.I)


def brings_on_failure(text: str) -> bool:
    """The line is a person's words that something brought an out-of-memory on (`_BROUGHT_ON`), not a program's line."""
    return not program_line(text) and bool(_BROUGHT_ON.search(text))


def narrates_failure(text: str) -> bool:
    """The line is a person's account of a failure (see `_NARRATES`), not a program's line with a log prefix: a summary
    written after the run, so no line of the log is before or after it in time."""
    return not program_line(text) and bool(_NARRATES.search(text))


#: a report's line that introduces the paste below it ("It crashed with OOM:", "模型加载完以后爆显存："; long ones too,
#: "vLLM 0.6.4, Qwen2-VL-7B-Instruct on a 24GB card. Text prompts work, but it OOMs during image inference with large
#: screenshots:"): words ending in a colon, with no log prefix and no exception's class
INTRO = re.compile(r"^\s*(?![\w.]*(?:Error|Exception)\b)[A-Za-z\u4e00-\u9fff][^:：\n]{2,300}[:：]\s*$|"
                   # ... or words that say the paste below is the log ("Here is the complete log for an OOM on v0.1.20
                   # using mixtral:8x7b-...", "Below is the output when it OOMs")
                   r"^\s*(?:Here(?: is|'s| are)|Below (?:is|are)|Attached (?:is|are)|This is|These are)\s+(?:\w+\s+){0,3}?"
                   r"(?:logs?|output|traceback|trace|stack ?trace)\b", re.I)


#: where one sentence of a person's running text ends and the next begins (". The", "。")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|(?<=[。！？])")


def told_in_a_sentence(text: str) -> bool:
    """The out-of-memory in `text` is named only in one sentence of a person's line of several, and that sentence reads as
    a person's ("When trying to run it with --tp-size 2, the server fails to load. It throws a RuntimeError: ... The
    same model also causes an OOM error when trying to run on a single GPU, so tp=2 is the only viable option."): the
    whole line holds an exception's name, so it is not `sentence_like`, but its words of memory are the report's."""
    if program_line(text):
        return False
    parts = SENTENCE_END.split(text.rstrip())
    if parts and parts[-1][-1:] not in ".!?。！？":  # (a line that ends without its stop: "... but with tp 4 it won't start")
        parts[-1] += "."
    return len(parts) > 1 and any(OOM_ANY.search(p) and sentence_like(p) for p in parts) and not any(
        OOM_ANY.search(p) and not sentence_like(p) for p in parts)
