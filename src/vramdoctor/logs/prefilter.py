"""The words a pattern cannot match without, and one multi-word search that finds them all.

`required(pattern)` reads a compiled regex's syntax tree and returns lowercase literals one of which
every match must contain (None when no such set of 3+ character words exists). The log scanner
searches a whole block of bytes for all of them at once and decodes and regex-matches only the lines
that hold one: most lines of a long log (access lines, progress bars) hold none. The block search is
Intel's Hyperscan (the `hyperscan` package, case-insensitive on the raw bytes) where it is installed
(x86-64 Linux), else an Aho-Corasick automaton (the `ahocorasick-rs` package) over the lower-cased
bytes; both find the same lines. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator, Sequence

import ahocorasick_rs

from ..engines.words import lazy

try:  # Hyperscan: 3-4x faster on a block than the automaton (bench/logs_scan); wheels for x86-64 Linux only
    import hyperscan
except ImportError:  # pragma: no cover - other platforms
    hyperscan = None

try:  # Python 3.11+
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as P  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as P  # type: ignore[no-redef]

MIN_WORD = 3  # bytes (UTF-8): the automaton searches bytes, so one CJK character (3 bytes) is as selective as "abc"
Req = "frozenset[str] | None"  # one of these words is in every match; None: no such set


#: words that most lines of a serving log hold ("APIServer", "Running: 31 reqs", "GET /metrics", "Loading", vLLM's
#: "Engine 000: ... GPU KV cache usage", llama-server's "slot release: ... stop processing"): a
#: requirement with one of them is taken only where no other is
COMMON = frozenset({"serve", "server", "run", "runn", "running", "load", "loading", "start", "get", "post", "info",
                    "log", "main", "request", "http", "model", "token", "tokens", "engine", "cache", "usage", "stop", "release", "gpu"})


def _best(options: list[frozenset[str]]) -> frozenset[str] | None:
    """The most selective requirement: none of the words most log lines hold (COMMON), then words of 5+ characters
    (" to " or "ing" is in most lines), then fewest words, then the shortest word longest."""
    good = [o for o in options if o and all(len(w.encode()) >= MIN_WORD for w in o)]
    if not good:
        return None
    # (then words without digits: a word with digits, "-11", is in the shape of every line whose digits sit the same
    # way, "09-11" -> "00-00", and such lines cannot share the candidates found for their shape; see Knowledge)
    return min(good, key=lambda o: (any(w.strip() in COMMON for w in o), any(c.isdigit() for w in o for c in w),
                                    min(len(w) for w in o) < 5, len(o), -min(len(w) for w in o)))


def _options(items: Sequence, icase: bool, lookarounds: bool = False) -> list[frozenset[str]]:
    """The word sets of a sequence's parts, one of each of which every match holds: its literal runs, and the best
    set (`_seq`) of each group, alternation and repeat taken at least once; with `lookarounds`, of each positive
    lookahead and lookbehind too."""
    options: list[frozenset[str]] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            options.append(frozenset({"".join(run)}))
            run.clear()

    for op, av in items:
        if op is C.LITERAL:
            ch = chr(av)
            run.append(ch.lower())
            continue
        flush()
        r = None
        if op is C.SUBPATTERN:
            sub = av[-1]
            flags = av[1] if len(av) > 1 and isinstance(av[1], int) else 0
            r = _seq(sub, icase or bool(flags & re.IGNORECASE))
        elif op is C.BRANCH:
            r = _branch(av[1], icase)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            lo, _hi, sub = av
            if lo >= 1:
                r = _seq(sub, icase)
        elif op is C.ASSERT and lookarounds:  # (a positive lookahead or lookbehind: its text is in the line too)
            r = _seq(av[1], icase)
        # IN, ANY, AT, GROUPREF, ASSERT_NOT...: no literal of their own; they end a literal run
        if r:
            options.append(r)
    flush()
    return options


def _seq(items: Sequence, icase: bool) -> frozenset[str] | None:
    return _best(_options(items, icase))


def _branch(alternatives, icase: bool) -> frozenset[str] | None:
    words: set[str] = set()
    for alt in alternatives:
        r = _seq(alt, icase)
        if r is None:
            return None
        words |= r
    return frozenset(words)


def flags_of(pattern: re.Pattern) -> int:
    """A pattern's flags, without compiling one that is compiled on first use (`engines.words.lazy`): reading the
    words of every pattern at start-up compiles none of them."""
    flags = getattr(pattern, "source_flags", None)
    return pattern.flags if flags is None else flags


def required(pattern: re.Pattern) -> frozenset[str] | None:
    """Lowercase words one of which every match of `pattern` contains, or None if no set of words of
    three or more characters is required (such a pattern cannot be prefiltered)."""
    flags = flags_of(pattern)
    items = list(P.parse(pattern.pattern, flags))
    if len(items) == 1 and items[0][0] is C.BRANCH:
        return _branch(items[0][1][1], bool(flags & re.IGNORECASE))
    return _seq(items, bool(flags & re.IGNORECASE))


def necessary(pattern: re.Pattern) -> tuple[frozenset[str], ...]:
    """Sets of lowercase words, each of which has one word in every match of `pattern`: the word sets of its
    top-level parts (`_options`), positive lookarounds included (a `(?=...100%)` lookahead's "100" too), of three or
    more characters. A line that lacks every word of one set cannot match: a check before the regex, far cheaper than a
    search that fails (`()`: no such set)."""
    flags = flags_of(pattern)
    tree = list(P.parse(pattern.pattern, flags))
    icase = bool(flags & re.IGNORECASE)
    if len(tree) == 1 and tree[0][0] is C.BRANCH:
        one = _branch(tree[0][1][1], icase)
        return (one,) if one else ()
    return tuple(o for o in _options(tree, icase, lookarounds=True) if all(len(w.encode()) >= MIN_WORD for w in o))


#: the length from which a pattern that is one alternation at the top is split into its alternatives (`alternatives`)
ALTERNATION_MIN = 2000


def alternatives(pattern: re.Pattern, *, min_chars: int = ALTERNATION_MIN) -> list[re.Pattern]:
    """`pattern` as one pattern per top-level alternative (`a|b|c` -> `a`, `b`, `c`), where it is a long
    alternation: a line matches some piece exactly where it matches `pattern`, and each piece has its own required
    words, so a line is tried only against the alternatives whose words it holds (one 25,000-character alternation of
    a user's wordings otherwise costs every line that holds any of its words a full search). Returns [pattern] where
    it is short, not one alternation at the top, verbose, or a piece does not compile alone (a backreference)."""
    text, flags = pattern.pattern, flags_of(pattern)
    if not isinstance(text, str) or len(text) < min_chars or flags & re.VERBOSE:
        return [pattern]
    tree = list(P.parse(text, flags))
    if len(tree) != 1 or tree[0][0] is not C.BRANCH:
        return [pattern]
    pieces, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if text[i + 1:i + 2] == "^":
                i += 1
            if text[i + 1:i + 2] == "]":  # a "]" first in a class is a literal
                i += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
        i += 1
    pieces.append(text[start:])
    try:  # (each piece parsed here, compiled on first use)
        out = [_checked(x, flags) for x in pieces]
    except re.error:
        return [pattern]
    return out if len(out) == len(tree[0][1][1]) else [pattern]


def _checked(text: str, flags: int) -> re.Pattern:
    """`text` as a pattern compiled on first use, once it parses (re.error if not)."""
    P.parse(text, flags)
    return lazy(text, flags)


def prefix(pattern: re.Pattern) -> frozenset[str] | None:
    """Lowercase words one of which every match of `pattern` starts with (after any `\\b` or `^`), or None:
    a search can then begin where the word is, instead of scanning the line from its start."""
    items = [it for it in P.parse(pattern.pattern, flags_of(pattern)) if it[0] is not C.AT]
    if not items:
        return None
    op, av = items[0]
    if op is C.LITERAL:
        run = []
        for op2, av2 in items:
            if op2 is not C.LITERAL:
                break
            run.append(chr(av2).lower())
        word = "".join(run)
        return frozenset({word}) if len(word.encode()) >= MIN_WORD else None
    if op is C.BRANCH:
        words = set()
        for alt in av[1]:
            run = []
            for op2, av2 in alt:
                if op2 is not C.LITERAL:
                    break
                run.append(chr(av2).lower())
            if len("".join(run).encode()) < MIN_WORD:
                return None
            words.add("".join(run))
        return frozenset(words)
    return None


class Words:
    """A set of lowercase words searched for at once in bytes. `ids(text)`: the indexes of the words
    a lowercased text holds (overlapping matches counted, so no word hides another). `hits(block, start, stop)`:
    offsets in a block where a word is, at least one in every line that holds one (the block as `prepare` gives it).
    Words never hold a newline, so a hit's line is the line that holds the word."""

    #: the block search in use: "hyperscan" where the package is installed, else "ahocorasick" (tests set it)
    backend = "hyperscan" if hyperscan is not None else "ahocorasick"

    def __init__(self, words: Iterable[str]) -> None:
        self.words: list[str] = sorted(set(words))
        if any("\n" in w or w != w.lower() for w in self.words):
            raise ValueError("search words are lowercase and hold no newline")
        self.index = {w: i for i, w in enumerate(self.words)}
        raw = [w.encode() for w in self.words]
        self._ac = ahocorasick_rs.BytesAhoCorasick(raw) if raw else None
        self._scan = None  # built on first use: a leftmost-first DFA, the fastest automaton to scan blocks with
        self._hs = None  # built on first use: a Hyperscan database of the words, caseless
        self._raw = raw
        self._line_words: list[bytes] | None = None  # the words `hits` needs (`_minimal`), on first use

    def ids(self, low: bytes) -> set[int]:
        if self._ac is None:
            return set()
        return {i for i, _, _ in self._ac.find_matches_as_indexes(low, overlapping=True)}

    @classmethod
    def prepare(cls, block: bytes) -> bytes:
        """The block as `hits` searches it: lower-cased for the automaton, as it is for Hyperscan (caseless). The
        same length and newlines either way (bytes.lower changes ASCII letters only, as Hyperscan's caseless)."""
        return block if cls.backend == "hyperscan" else block.lower()

    def hits(self, block: bytes, start: int, stop: int) -> Iterator[int]:
        """Offsets in `block[start:stop]` (absolute) of words, in order: the automaton gives every non-overlapping
        match, lazily, so a caller that stops early pays for what it took; Hyperscan one per line (the hits after it
        on the same line are passed over), from one scan of the whole span (a scan per hit line cost more than the
        span it may scan for nothing when the caller stops early: the caller's window shrinks then)."""
        if not self._raw:
            return iter(())
        if self._line_words is None:
            self._line_words = self._minimal()
        if Words.backend == "hyperscan":
            return self._hs_hits(block, start, stop)
        if self._scan is None:
            self._scan = ahocorasick_rs.BytesAhoCorasick(self._line_words,
                                                         matchkind=ahocorasick_rs.MatchKind.LeftmostFirst,
                                                         implementation=ahocorasick_rs.Implementation.DFA)
        return (start + s for _, s, _ in self._scan.find_matches_as_indexes(memoryview(block)[start:stop]))

    def _minimal(self) -> list[bytes]:
        """The words that hold no other word: a line that holds a longer word holds the shorter one inside it, so
        `hits` finds the same lines with these alone (a third of them, and fewer matches per line to pass over)."""
        assert self._ac is not None
        return [w for i, w in enumerate(self._raw)
                if all(j == i for j, _, _ in self._ac.find_matches_as_indexes(w, overlapping=True))]

    def _hs_hits(self, block: bytes, start: int, stop: int) -> Iterator[int]:
        if self._hs is None:
            words = self._line_words
            assert words is not None
            db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            # each word as its bytes escaped: a literal, whatever it holds
            db.compile(expressions=[b"".join(b"\\x%02x" % c for c in w) for w in words],
                       ids=list(range(len(words))), elements=len(words),
                       flags=[hyperscan.HS_FLAG_CASELESS] * len(words))
            self._hs = db
        ends: list[int] = []

        def every(_id, _from, to, _flags, _ctx):  # each word's end: one scan of the window, not one per line
            ends.append(to)
            return False

        self._hs.scan(memoryview(block)[start:stop], match_event_handler=every)
        if not ends:
            return
        ends.sort()  # (Hyperscan reports by end offset; sorted all the same)
        pos = start
        for to in ends:
            hit = start + to - 1  # the word's last byte
            if hit < pos:
                continue  # (another word on a line already given)
            yield hit
            pos = block.find(b"\n", hit, stop) + 1
            if pos == 0:
                return
