"""Fixed prompts of an exact token count, built from one bundled text (`data/fixed_input.txt`: paragraphs, a
small table, some code, some numbers), the same for every probe and every engine.

`build(n, count)` finds the longest prefix of the repeated text whose token count (`count(text)`, the server's
own tokenizer) is at most n, by bisection over its length in characters: the prompt has n tokens, or n - 1
where one character makes two. Each tier starts at another paragraph (`salt`), so that no tier's prompt is a
prefix of another's and no engine's prefix cache serves one from another. Without a tokenizer the length is
taken at CHARS_PER_TOKEN and marked approximate, as it is where the tokenizer's counts are not credible (more
than MAX_CHARS_PER_TOKEN characters a token, or fewer than one character for MAX_TOKENS_PER_CHAR tokens). Pure:
the tokenizer is passed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Callable

#: characters per token where the server has no tokenize endpoint (English text, BPE tokenizers: ~4)
CHARS_PER_TOKEN = 4
#: no tokenizer packs more characters into a token than this (the longest BPE merges are a few dozen bytes)
MAX_CHARS_PER_TOKEN = 64
#: nor splits a character of this text into more tokens than this (byte-level fallback: 4 bytes a character)
MAX_TOKENS_PER_CHAR = 4
#: the longest prompt built (tokens)
MAX_PROMPT_TOKENS = 1 << 21


@lru_cache(maxsize=1)
def fixed_text() -> str:
    """The bundled text (UTF-8)."""
    return resources.files("vramdoctor").joinpath("data/fixed_input.txt").read_text(encoding="utf-8")


def _paragraphs() -> list[str]:
    return [p for p in fixed_text().split("\n\n") if p.strip()]


def source_text(salt: int, min_chars: int) -> str:
    """The bundled text rotated to start at paragraph `salt`, repeated to at least `min_chars` characters."""
    paras = _paragraphs()
    k = salt % len(paras)
    one = "\n\n".join(paras[k:] + paras[:k])
    head = f"Request {salt + 1}. Read the following and summarise it.\n\n"
    reps = max(1, -(-min_chars // max(1, len(one))))
    return head + "\n\n".join([one] * reps)


@dataclass(frozen=True, kw_only=True)
class Prompt:
    """A prompt for `target_tokens` tokens: text, the count the server's tokenizer gives it (None without a
    tokenizer), and whether that count is exact (from the tokenizer) or approximate (CHARS_PER_TOKEN)."""

    text: str
    target_tokens: int
    counted_tokens: int | None
    exact: bool


def build(n: int, count: Callable[[str], "int | None"] | None, *, salt: int = 0) -> Prompt:
    """A prompt of n tokens (1 <= n <= MAX_PROMPT_TOKENS). count(text) -> tokens, or None where the server
    cannot tokenize (then approximate). Raises ValueError for n out of range."""
    if not 1 <= n <= MAX_PROMPT_TOKENS:
        raise ValueError(f"a prompt of {n} tokens is out of range")
    if count is None:
        return Prompt(text=source_text(salt, n * CHARS_PER_TOKEN)[: n * CHARS_PER_TOKEN], target_tokens=n,
                      counted_tokens=None, exact=False)
    text = source_text(salt, n * CHARS_PER_TOKEN * 2)
    full = count(text)
    if full is None:
        return build(n, None, salt=salt)
    while full < n:  # a tokenizer with many characters per token: more text, up to what any tokenizer needs
        if len(text) > n * MAX_CHARS_PER_TOKEN:
            return build(n, None, salt=salt)  # its counts are not credible
        text = source_text(salt, len(text) * 2)
        full = count(text)
        if full is None:
            return build(n, None, salt=salt)
    cut = longest_prefix(text, n, count)
    if cut is None or cut[1] < n // 2 or len(cut[0]) < n // MAX_TOKENS_PER_CHAR:
        return build(n, None, salt=salt)  # a tokenizer that over-counts: not a prompt of n tokens
    return Prompt(text=cut[0], target_tokens=n, counted_tokens=cut[1], exact=True)


def longest_prefix(text: str, n: int, count: Callable[[str], "int | None"]) -> tuple[str, int] | None:
    """The longest prefix of `text` whose token count is at most n, and that count (bisection over characters);
    None when the tokenizer stops answering."""
    lo, hi, best = 1, len(text), ("", 0)
    while lo <= hi:
        mid = (lo + hi) // 2
        c = count(text[:mid])
        if c is None:
            return None
        if c <= n:
            best = (text[:mid], c)
            lo = mid + 1
        else:
            hi = mid - 1
    return best
