"""The fast path: scan a log as blocks of bytes, decoding only the lines that can matter.

One multi-word search over each block (4 MiB; `prefilter.Words`) finds every line holding a word some pattern needs
(`Knowledge.words`); only those lines are decoded and fed to the `Scanner`, with every line number
counted as `grep -n` counts it. Whole lines are fed where the scanner needs every line: the first
`ENGINE_SAMPLE_LINES` (to recognise the engine) and the lines just after a failure (its backtrace
and the engine's verdict). The lines before a failure are recovered from the buffer. Words that only
mark a milestone the run has already passed are dropped from the search until the next run starts,
so a week of access lines after "Application startup complete" costs a byte search and no Python.
The result is the same as feeding every line (tests hold the two paths equal on every log we have).
"""

from __future__ import annotations

from typing import Callable, Iterable

from .facts import RunFacts
from .knowledge import Knowledge, knowledge
from .lines import CUT_LOOKBACK, pieces, tail_cut, window as cut_window
from .prefilter import Words
from .reader import clean
from .scan import ENGINE_SAMPLE_LINES, TAIL_LINES, WINDOW, WINDOW_MAX, Scanner, before_window, shown_progress

WINDOW_BYTES = 256 * 1024  # bytes searched at once within a block
MIN_WINDOW = 4 * 1024  # the least, while the state changes every few lines (a crash loop, a partial line)
TAIL = 256 * 1024  # bytes kept from earlier blocks for the lines before a failure
LONG = 1 << 20  # a line longer than this (a prompt or a dump without newlines) keeps its start and its end


def bound(partial: bytes) -> bytes:
    """A line still without its newline, in bounded memory: its first and last 256 KiB (the scanner then cuts
    it to 16 KiB around its failure words)."""
    if len(partial) <= LONG:
        return partial
    return partial[:LONG // 4] + b" [...] " + partial[-(LONG // 4):]
# milestones whose words keep mattering after they are passed: a weights line again means a restart
_KEEP = {"weights_done", "start"}


class _Search:
    """The words to search for in the current state, one automaton per set of milestones passed."""

    def __init__(self, k: Knowledge) -> None:
        self.k = k
        self.cache: dict[frozenset[str], Words] = {}
        self.drop_by_marker: dict[str, set[str]] = {}
        for w in k.milestone_only:
            for cat, i in k.by_id[k.words.index[w]]:
                marker = k.milestones[i][0]
                if marker not in _KEEP:
                    self.drop_by_marker.setdefault(marker, set()).add(w)

    def words(self, passed: Iterable[str]) -> Words:
        key = frozenset(m for m in passed if m in self.drop_by_marker)
        if key not in self.cache:
            drop = set().union(*(self.drop_by_marker[m] for m in key)) if key else set()
            # a word is dropped only if every pattern using it is a passed milestone's
            keep = [w for w in self.k.words.words if w not in drop or not self._only(w, key)]
            self.cache[key] = Words(keep)
        return self.cache[key]

    def _only(self, w: str, passed: frozenset[str]) -> bool:
        return all(cat == "ms" and self.k.milestones[i][0] in passed for cat, i in self.k.by_id[self.k.words.index[w]])


def _marks(s: Scanner) -> tuple[int, int, int]:
    """What changes the words the search needs: the runs, the milestones passed, and the lines that showed them (a
    milestone the report's words gave, then a program's own line of it)."""
    return len(s.runs), len(s.run.progress), sum(s.run.progress.values())


def scan_blocks(blocks: Iterable[bytes], k: Knowledge | None = None) -> list[RunFacts]:
    """Scan a log given as blocks of bytes; the same facts as `scan.scan` over its lines."""
    k = k or knowledge()
    s = Scanner(k)
    search = _Search(k)
    state: dict = {"buf": b"", "prev": b"", "prev_last_line": 0, "buf_first_line": 1, "offset": 0, "cur": [], "read": 0}

    def before(line_no: int) -> Callable[[], list[tuple[int, str]]]:
        """The lines before `line_no` (`scan.before_window`: up to WINDOW, IPython's source context not counted), which starts at state['offset'] of the buffer: their bytes
        are cut out now (a few `rfind`s) and decoded only if the failure is ever read (a crash loop has
        thousands of failures, most of them in runs that are dropped)."""
        buf, end = state["buf"], state["offset"]
        # (no further back than the run's first line: the lines before it are another run's, which `decode` drops)
        need = min(WINDOW_MAX, max(0, line_no - max(1, s.run.first_line)))
        start, n = end, 0
        while n < need and start > 0:
            start = buf.rfind(b"\n", 0, start - 1) + 1
            n += 1
        raw, first = buf[start:end], line_no - n
        head, head_first = b"", first
        if n < need and state["prev"]:  # the tail of the previous block
            prev = state["prev"]
            pstart, m = len(prev), 0
            while n + m < need and pstart > 0 and state["prev_last_line"] - m >= 1:
                pstart = prev.rfind(b"\n", 0, pstart - 1) + 1
                m += 1
            head, head_first = prev[pstart:], state["prev_last_line"] - m + 1
        cur = list(state["cur"])  # the pieces of the current line fed before this one
        run_first = s.run.first_line  # (a run's lines only, as the line-by-line scanner keeps them)

        def decode() -> list[tuple[int, str]]:
            # (the run's lines only, picked before they are decoded: a crash loop's runs are a dozen lines each)
            low = max(1, run_first)
            raws: list[tuple[int, bytes]] = []
            for chunk, ln in ((head, head_first), (raw, first)):
                for line in chunk.split(b"\n")[:-1] if chunk else ():
                    if ln >= low:
                        raws.append((ln, line))
                    ln += 1
            mine = [(ln, t) for ln, t in cur if ln >= low]

            def lines(part: list[tuple[int, bytes]]) -> list[tuple[int, str]]:
                # (a line past MAX_LINE cut to its window, as the scanner reads it: a 1 MB prompt line among a
                # failure's neighbours is otherwise read whole by every rule that looks at them)
                return [(ln, cut_window(t)) for ln, line in part for t in pieces(clean(line))] + mine
            if len(raws) > 2 * WINDOW:
                # the last lines first: where the window closes inside them (it keeps fewer than they are), the lines
                # before them cannot change it (`before_window` walks back from the end and looks one line further)
                tail = lines(raws[-2 * WINDOW:])
                kept = before_window(tail)
                if len(kept) < len(tail) - 1:
                    return kept
            return before_window(lines(raws))
        return decode

    s.before_source = before

    def feed(line_no: int, raw: bytes) -> None:
        state["cur"] = []
        for part in pieces(clean(raw)):
            s.feed(line_no, part)
            state["cur"].append((line_no, cut_window(part)))

    line_no = 0  # lines consumed so far
    carry = b""
    last_raw: tuple[int, bytes] | None = None  # the log's last line, checked for an error cut partway
    for chunk in blocks:
        data = carry + chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = bound(data)
            continue
        buf, carry = data[:cut + 1], data[cut + 1:]
        state["buf"], state["buf_first_line"] = buf, line_no + 1
        line_no = _scan_buffer(buf, line_no, s, search, state, feed)
        last_raw = (line_no, buf[buf.rfind(b"\n", 0, len(buf) - 1) + 1:])
        # the bytes before the next buffer, for a failure's preceding lines (however small the blocks)
        state["prev"], state["prev_last_line"] = (state["prev"] + buf)[-TAIL:], line_no
        state["read"] += len(buf)
    if carry:
        state["buf"], state["offset"] = carry, 0
        feed(line_no + 1, carry)
        last_raw = (line_no + 1, carry)
    data = state["prev"][-CUT_LOOKBACK * 1024:] + carry
    tail = data.rstrip(b"\n").split(b"\n")[-CUT_LOOKBACK - 1:]
    cut = tail_cut(clean(tail[-1]), [clean(b) for b in tail[:-1]], knowledge().sentences)
    parts = pieces(clean(last_raw[1])) if last_raw else []
    # the last lines, numbered back from the last one (the first piece is left out where the bytes kept begin
    # partway into a line)
    kept = state["prev"] + carry
    raw = (kept if carry else kept[:-1]).split(b"\n") if last_raw else []
    if state["read"] > len(state["prev"]):
        raw = raw[1:]
    raw = raw[-TAIL_LINES - 1:]
    numbered_tail = [(last_raw[0] - len(raw) + 1 + i, clean(b)) for i, b in enumerate(raw)] if last_raw else []
    return s.finish((last_raw[0], parts[-1]) if parts else None, cut_mid_line=cut, tail=numbered_tail)


def _skip(s: Scanner, n: int, count: int) -> int:
    """`count` lines after line `n` that the search passed over: they are the current run's lines all the same (its
    line count and last line, as reading every line counts them). The new last line number."""
    if count:
        s.run.lines += count
        s.run.last_line = n + count
    return n + count


def _scan_buffer(buf: bytes, line_no: int, s: Scanner, search: _Search, state: dict, feed) -> int:
    """Feed the lines of `buf` (whole lines, ending in '\\n') that matter; return the last line number."""
    low = Words.prepare(buf)  # (the same length and newlines as `buf`)
    pos, n = 0, line_no
    size = len(buf)
    window = state.get("window", WINDOW_BYTES)  # shrinks while searches are cut short, grows back when not
    while pos < size:
        if n + 1 <= ENGINE_SAMPLE_LINES or s.wants_every_line_until > n:
            end = buf.index(b"\n", pos)
            n += 1
            state["offset"] = pos
            feed(n, buf[pos:end])
            pos = end + 1
            continue
        words = search.words(shown_progress(s.run))
        marks = _marks(s)
        base = pos
        # a window at a time: where the state changes often (a crash loop) the rest of the block is searched
        # again with other words, so each search stays short
        stop = min(size, base + window)
        if stop < size:
            stop = low.index(b"\n", stop - 1) + 1
        for hit in words.hits(low, base, stop):
            start = low.rfind(b"\n", 0, hit) + 1
            if start < pos:
                continue  # a second hit on a line already fed
            end = low.index(b"\n", hit)
            n = _skip(s, n, low.count(b"\n", pos, start))
            n += 1
            state["offset"] = start
            feed(n, buf[start:end])
            pos = end + 1
            if _marks(s) != marks or s.wants_every_line_until > n:
                window = max(MIN_WINDOW, window // 2)  # the rest of this window was searched for nothing
                break  # the state changed: search the rest with the words it now needs
        else:
            n = _skip(s, n, low.count(b"\n", pos, stop))
            pos = stop
            window = min(WINDOW_BYTES, window * 2)
    state["window"] = window
    return n
