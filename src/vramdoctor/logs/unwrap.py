"""Logs hard-wrapped at a terminal's width (a console window copied as text, `fold -w`, a pager's capture).

Every line the wrap cut is exactly as wide as the window, and its continuation has no log prefix of its own.
A log where many of its widest lines are followed by such a line is read with each of those lines joined to
the lines that continue it; the continuation lines become empty, so line numbers stay as `grep -n` counts
them. Word wraps (`fold -s`, editors) leave lines of uneven width and are left to the scanner, which joins a
message cut short over the lines after it.
"""

from __future__ import annotations

import itertools
import re
from typing import Callable, Iterable, Iterator

from .lines import LOG_PREFIX, STRONG_PREFIX, unbox

SAMPLE = 256 * 1024  # bytes read before deciding (the first block only, when following a live log)
MIN_WIDTH = 50  # narrower "widths" are short logs, not a terminal
MIN_WRAPPED = 3  # lines at that width, at the least (two of equal length are too common by chance)
CONTINUED = 0.6  # of the lines at that width, the share followed by a line with no log prefix
LONGER = 0.25  # lines wider than the wrap's width, as a share of the lines at it (a report's own sentences above it)
SAME_START = 12  # characters two lines begin with alike that make the second a line of its own, not a continuation
MAX_JOINED = 64 * 1024  # bytes a wrapped message is joined up to (a message is far shorter; lines past it are left)


#: a line of a table drawn in text: a border ("+-----+", "|=====|") or a row between bars ("| 0  Tesla V100 ... |")
_TABLE_LINE = re.compile(rb"^\s*[+|][^\n]*[+|]\s*$")


def _width(raw: bytes) -> int:
    return len(raw.rstrip(b"\r").decode("utf-8", "replace"))


def continues(prev: bytes, raw: bytes) -> bool:
    """`raw` continues a line the wrap cut (`prev`): it has no log prefix of its own, or only one a cut word can
    look like ("al_tokens: 8192" after "...max_tot") and the cut falls inside a word."""
    text = unbox(raw.decode("utf-8", "replace"))  # (a pane's borders pad every line to one width: not a wrap)
    if not text.strip() or STRONG_PREFIX.match(text):
        return False
    if len(raw) >= SAME_START and raw[:SAME_START] == prev[:SAME_START]:
        return False  # a line that begins as the one before it does is the next line of the same kind (a repeated
        # access line, "srv  log_server_r: request: GET /health ..."), not the rest of it
    if not LOG_PREFIX.match(text):
        return True
    return bool(prev) and (prev[-1:].isalnum() or prev[-1:] == b"_") and (raw[:1].isalnum() or raw[:1] == b"_")


def wrap_width(sample: bytes) -> int | None:
    """The width (characters) a log was hard-wrapped at, from its whole lines in `sample`; None if it was not."""
    lines = sample.split(b"\n")[:-1]
    widths = [_width(raw) for raw in lines]
    filled = [w for w in widths if w]
    if len(filled) < MIN_WRAPPED + 1:
        return None
    # (the widest lines; or, where a few lines are wider still, the report's own sentences or an environment listing
    # pasted above a console's wrapped log, the width most lines stop at: no more than LONGER of them go past it)
    # (not a table's own rows and borders, which a program pads to one width: nvidia-smi's are 91 characters, "+----+",
    # "| NVIDIA-SMI 550.54 ... |", and the row after one is the table's next, no continuation)
    counts: dict[int, int] = {}
    for i, w in enumerate(widths):
        if w >= MIN_WIDTH and not _TABLE_LINE.match(lines[i].rstrip(b"\r")):
            counts[w] = counts.get(w, 0) + 1
    tried = [max(counts)] + sorted(counts, key=lambda w: (-counts[w], -w))[:2] if counts else []
    for width in dict.fromkeys(tried):
        at = [i for i, w in enumerate(widths) if w == width and not _TABLE_LINE.match(lines[i].rstrip(b"\r"))]
        wider = sum(1 for w in filled if w > width)
        if len(at) < MIN_WRAPPED or len(at) < 0.02 * len(filled) or wider > LONGER * len(at):
            continue
        if len({lines[i] for i in at}) < MIN_WRAPPED:
            continue  # (one line repeated at the widest, a frame of a deep traceback nested once per round: no wrap)
        # (below the widest line, not lines a pane pads with blanks to its width: a wrap cuts inside the text)
        padded = sum(1 for i in at if lines[i].rstrip(b"\r")[-1:] in (b" ", b"\t"))
        if wider and padded > LONGER * len(at):
            continue
        if len(at) == len(filled):  # every line as wide as the widest: one line repeated, not a wrap (whose last
            return None  # piece of each message is shorter)
        continued = sum(1 for i in at if i + 1 < len(lines) and continues(lines[i].rstrip(b"\r"), lines[i + 1]))
        if continued >= CONTINUED * len(at):
            return width
    return None


def sniffed(blocks: Iterable[bytes], follow: bool = False, sample: int = SAMPLE) -> tuple[bytes, Iterator[bytes]]:
    """The first `sample` bytes of `blocks` (whole blocks; the first block only when following a live log), and an
    iterator over the rest."""
    it = iter(blocks)
    head = b""
    for chunk in it:
        head += chunk
        if follow or len(head) >= sample:
            break
    return head, it


def by_lines(blocks: Iterable[bytes], take: Callable[[list[bytes]], list[bytes]],
             rest: Callable[[], list[bytes]]) -> Iterator[bytes]:
    """`blocks` with their lines passed through `take` (a list of lines, each without its newline, in; the lines to
    write out), block by block; `rest()` gives the lines `take` still holds at the end."""
    carry = b""
    for chunk in blocks:
        parts = (carry + chunk).split(b"\n")
        carry = parts.pop()
        out = take(parts)
        if out:
            yield b"\n".join(out) + b"\n"
    out = take([carry]) if carry else []
    out += rest()
    if out:
        yield b"\n".join(out) + (b"" if carry else b"\n")


def unwrap(blocks: Iterable[bytes], warnings: list[str], path: str, follow: bool = False) -> Iterator[bytes]:
    """The blocks of a log, with hard-wrapped lines joined (see the module docstring); unchanged if the start
    of the log shows no wrap. A note for the user goes to `warnings`."""
    head, it = sniffed(blocks, follow)
    width = wrap_width(head)
    if width is None:
        if head:
            yield head
        yield from it
        return
    warnings.append(f"{path}: the log is wrapped at {width} columns; each line exactly {width} characters wide was "
                    "read joined to the lines that continue it (line numbers are unchanged).")
    yield from _joined(itertools.chain([head], it), width)


def _joined(blocks: Iterable[bytes], width: int) -> Iterator[bytes]:
    state: list = [None, 0]  # a wrapped line and its continuations so far; continuation lines taken into it

    def take(lines: list[bytes]) -> list[bytes]:
        out: list[bytes] = []
        for raw in lines:
            acc, empties = state
            if acc is not None:
                state[0] = None
                if continues(acc, raw):
                    acc += raw.rstrip(b"\r")
                    if len(raw) >= width and _width(raw) == width and len(acc) < MAX_JOINED:
                        state[:] = [acc, empties + 1]  # wrapped again
                    else:
                        out.append(acc)
                        out.extend([b""] * (empties + 1))
                    continue
                out.append(acc)
                out.extend([b""] * empties)
            if len(raw) >= width and _width(raw) == width:
                state[:] = [raw.rstrip(b"\r"), 0]
            else:
                out.append(raw)
        return out

    def rest() -> list[bytes]:
        return [state[0]] + [b""] * state[1] if state[0] is not None else []

    yield from by_lines(blocks, take, rest)
