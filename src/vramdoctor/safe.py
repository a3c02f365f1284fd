"""Outside text (paths, file contents, settings as typed, server replies) made safe to print.

rich reads `[...]` as markup, so a path holding `[/x]` would crash the printer and a model named
`[link=file:///etc/passwd]x` would become a hyperlink; a terminal acts on control characters, so an
escape sequence in a GGUF's `general.name` would do the same below rich. `printable()` escapes the markup
and writes each control character (C0 but tab and newline, DEL, C1) as a visible `\\xNN`, and each of Unicode's
invisible format characters that reorder or split what a terminal shows (the bidirectional embeddings, overrides,
isolates and marks, U+061C, U+200B-U+200F, U+202A-U+202E, U+2066-U+2069; the line and paragraph separators U+2028,
U+2029; the byte-order mark U+FEFF) as `\\uNNNN`: U+202E would show the rest of a line reversed (Trojan Source,
CVE-2021-42574).
"""

from __future__ import annotations

import re

_FORMAT = "\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff"
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + _FORMAT + "]")


def _shown(m: re.Match) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c <= 0xFF else f"\\u{c:04x}"


def visible(text: object) -> str:
    """`text` with its control characters written out as `\\xNN`, and Unicode's invisible format characters as
    `\\uNNNN` (no markup escaping: for plain output)."""
    return _CONTROL.sub(_shown, str(text))


def printable(text: object) -> str:
    """`text` ready to be embedded in rich markup: control characters visible, `[` escaped."""
    from rich.markup import escape  # (here, not at the top: printing is when rich is needed)

    return escape(visible(text))


_CONTROL_ALL = re.compile("[\x00-\x1f\x7f-\x9f" + _FORMAT + "]")


def printable_line(text: object) -> str:
    """`text` for one line of a report: every control character visible (a newline too, so that a server's
    reply cannot forge a line of the report), rich markup escaped."""
    from rich.markup import escape

    return escape(_CONTROL_ALL.sub(_shown, str(text)))
