"""Several programs' output interleaved in one log, each line tagged with its program: docker compose's
"chat-1   | ..." (compose v1: "chat_1  | ..."), `kubectl logs --prefix`'s "[pod/web-0/vllm] ...". Each program's
lines are a log of their own: one server's progress is no step of another's, and one healthy service does not clear
its neighbour's failure (`decide` is taken per program, see `logs.diagnose`).

Pure text: the lines come from `reader` (bytes, split and cleaned) or from the caller.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import chain
from typing import Iterable, Iterator

#: a program's tag before its line: compose's service ("chat-1   | ", "tools_1  |" on an empty line) or kubectl's
#: "[pod/NAME/CONTAINER] "
TAG = re.compile(r"^([A-Za-z][\w.-]{0,62}?)\s+\|(?: |$)|^\[(pod/[\w.-]{1,253}/[\w.-]{1,63})\] ")
#: compose's own line of a service that stopped, with no tag ("tools-1 exited with code 137")
EXITED = re.compile(r"^([A-Za-z][\w.-]{0,62}) exited with code \d+")
#: the least lines a program must have among the first SAMPLE_LINES, and the least times the tags must switch from one
#: program to another and back, for a log to be read as interleaved programs (not a markdown table's "Model | ...")
MIN_LINES = 3
MIN_SWITCHES = 4
SAMPLE_LINES = 2000
#: the most programs kept apart (kubectl across a deployment's pods); the lines of any more go with the last one
MAX_STREAMS = 16


def _tagged(text: str) -> tuple[str, int] | None:
    """The program `text` is tagged with and the column of its bar (-1 for kubectl's tag, which has none); None for an
    untagged line."""
    m = TAG.match(text)
    if not m:
        return None
    return (m.group(1), text.find("|", m.end(1))) if m.group(1) else (m.group(2), -1)


def _tag(text: str, bar: int | None) -> str | None:
    """The program `text` is tagged with: compose's service where its bar stands at column `bar`, kubectl's pod."""
    tagged = _tagged(text)
    if tagged and (tagged[1] < 0 or tagged[1] == bar):
        return tagged[0]
    m = EXITED.match(text)
    return m.group(1) if m else None


def interleaved(texts: Iterable[str]) -> int | None:
    """Whether `texts` (a log's first lines) are two or more tagged programs' lines taken in turn: each of two
    programs has MIN_LINES lines and the tag changes from one to another MIN_SWITCHES times or more. Compose pads
    its services' names to one width, so their bars stand in one column (a markdown table's "flash | 8192 |" rows
    do not): the column of nine in ten of them. The bar's column (-1 for kubectl's tags); None where not."""
    counts: Counter[str] = Counter()
    bars: Counter[int] = Counter()
    switches, last = 0, None
    for text in texts:
        tagged = _tagged(text)
        if not tagged:
            continue
        name, bar = tagged
        counts[name] += 1
        bars[bar] += 1
        if last is not None and name != last:
            switches += 1
        last = name
    if switches < MIN_SWITCHES or sum(1 for c in counts.values() if c >= MIN_LINES) < 2:
        return None
    bar, n = bars.most_common(1)[0]
    return bar if n * 10 >= 9 * sum(bars.values()) else None


def peek(lines: Iterable[tuple[int, str]]) -> tuple[int | None, Iterator[tuple[int, str]]]:
    """`interleaved` of numbered `lines` (from their first SAMPLE_LINES), and the same lines again."""
    it = iter(lines)
    head = [x for _, x in zip(range(SAMPLE_LINES), it)]
    return interleaved(t for _, t in head), chain(head, it)


def split(lines: Iterable[tuple[int, str]], bar: int) -> Iterator[tuple[str, int, str]]:
    """(program, line number, text) for each line: a line tagged as `interleaved` found (its bar in column `bar`) is
    its program's; compose's "NAME exited with code" is NAME's; an untagged line is nobody's (""): the report's words
    above the log, a note pasted between."""
    for line_no, text in lines:
        yield _tag(text, bar) or "", line_no, text


class Demux:
    """Feed (program, line number, text) triples; each program's lines go to its own consumer, made by `make(name)`
    when the program is first seen (the untagged lines, "", are one more); in `consumers` in the order first seen.
    Past MAX_STREAMS programs, a new one's lines go with the last program's."""

    def __init__(self, make) -> None:
        self.make = make
        self.consumers: dict[str, object] = {}

    def feed(self, name: str, line_no: int, text: str) -> None:
        c = self.consumers.get(name)
        if c is None:
            if len(self.consumers) > MAX_STREAMS:
                c = list(self.consumers.values())[-1]
            else:
                c = self.consumers[name] = self.make(name)
        c.feed(line_no, text)
