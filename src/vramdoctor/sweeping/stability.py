"""The stability recheck: one fixed long input (the bundled text: paragraphs, a table, code, numbers) asked to be
copied out, at temperature 0 with a fixed max_tokens, on every configuration that loads; each answer is held
against the first configuration's. Pure: answers in, flags out.

Flags (each with its numbers):
- `error`: the request failed, or the server's log has error lines it did not have before the request;
- `exited`: the server was not running after the request;
- `cut_off`: the answer ended without a finish reason, or with one other than "stop" and "length";
- `shorter`: under half the reference's tokens (SHORTER);
- `repeating`: the share of repeated word 4-grams is above REPEAT_MAX and above the reference's by REPEAT_MARGIN
  (the reference itself is not flagged for it: a model that loops at its first configuration loops at every one,
  and what is measured is what a configuration changes);
- `numbers_altered`: numbers of the input that the reference reproduced are missing, or numbers that are in
  neither the input nor the reference appear;
- `code_altered`: code lines of the input that the reference reproduced are missing.
A configuration with any flag is not recommended.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SHORTER = 0.5
REPEAT_MAX = 0.5
REPEAT_MARGIN = 0.2
NGRAM = 4

_NUM = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")

INSTRUCTION = "Copy the following text exactly, from its first line to its last, and nothing else.\n\n"


@dataclass(frozen=True, kw_only=True)
class Answer:
    """One configuration's answer to the fixed input: text, tokens the server counted, finish reason, error,
    whether the server was still running after it, and error lines its log gained during it."""

    text: str
    completion_tokens: int | None
    finish_reason: str | None
    error: str | None = None
    alive_after: bool = True
    new_error_lines: tuple[str, ...] = ()


@dataclass(kw_only=True)
class Stability:
    """The recheck's result: ok when no flag is raised; flags: name -> what was seen."""

    ok: bool
    flags: dict[str, str] = field(default_factory=dict)
    completion_tokens: int | None = None
    finish_reason: str | None = None
    repetition: float = 0.0
    reference: bool = False


def repetition(text: str, n: int = NGRAM) -> float:
    """The share of word n-grams of `text` that repeat an earlier one (0: none; near 1: a loop)."""
    words = text.split()
    grams = [tuple(words[i:i + n]) for i in range(len(words) - n + 1)]
    if not grams:
        return 0.0
    return 1.0 - len(set(grams)) / len(grams)


def numbers(text: str) -> set[str]:
    return {m.group().replace(",", "") for m in _NUM.finditer(text)}


def code_lines(text: str) -> list[str]:
    """The non-blank lines of the fenced code blocks of `text`, stripped."""
    out, inside = [], False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            inside = not inside
            continue
        if inside and line.strip():
            out.append(line.strip())
    return out


def check(answer: Answer, reference: Answer | None, source_text: str) -> Stability:
    """`answer` held against the first loaded configuration's (`reference`; None: this is the first)."""
    flags: dict[str, str] = {}
    rep = repetition(answer.text)
    if answer.error:
        flags["error"] = answer.error
    if answer.new_error_lines:
        flags["error"] = (flags.get("error", "") + "; " if "error" in flags else "") + \
            f"new error lines in the log: {answer.new_error_lines[0][:160]}"
    if not answer.alive_after:
        flags["exited"] = "the server was not running after the request"
    if not answer.error and answer.finish_reason not in ("stop", "length", "eos"):
        flags["cut_off"] = f"finish reason {answer.finish_reason!r}"
    if reference is not None and rep > REPEAT_MAX and rep > repetition(reference.text) + REPEAT_MARGIN:
        flags["repeating"] = f"{rep:.0%} of its {NGRAM}-word sequences repeat an earlier one"
    if reference is not None:
        ref_n, got_n = reference.completion_tokens, answer.completion_tokens
        if ref_n and got_n is not None and got_n < SHORTER * ref_n:
            flags["shorter"] = f"{got_n} tokens against the first configuration's {ref_n}"
        src_nums = numbers(source_text)
        kept = numbers(reference.text) & src_nums
        missing = sorted(kept - numbers(answer.text))
        invented = sorted(numbers(answer.text) - src_nums - numbers(reference.text))
        if missing or invented:
            what = []
            if missing:
                what.append("missing " + ", ".join(missing[:5]))
            if invented:
                what.append("new " + ", ".join(invented[:5]))
            flags["numbers_altered"] = "; ".join(what)
        ref_code = [c for c in code_lines(source_text) if c in reference.text]
        lost = [c for c in ref_code if c not in answer.text]
        if lost:
            flags["code_altered"] = f"{len(lost)} code line(s) of the input missing, e.g. {lost[0][:80]!r}"
    return Stability(ok=not flags, flags=flags, completion_tokens=answer.completion_tokens,
                     finish_reason=answer.finish_reason, repetition=round(rep, 3), reference=reference is None)
