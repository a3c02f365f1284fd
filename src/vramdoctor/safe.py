"""Outside text (paths, file contents, settings as typed, server replies) made safe to print.

rich reads `[...]` as markup, so a path holding `[/x]` would crash the printer and a model named
`[link=file:///etc/passwd]x` would become a hyperlink; a terminal acts on control characters, so an
escape sequence in a GGUF's `general.name` would do the same below rich. `printable()` escapes the markup
and writes each control character (C0 but tab and newline, DEL, C1) as a visible `\\xNN`.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: object) -> str:
    """`text` with its control characters written out as `\\xNN` (no markup escaping: for plain output)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


def printable(text: object) -> str:
    """`text` ready to be embedded in rich markup: control characters visible, `[` escaped."""
    from rich.markup import escape  # (here, not at the top: printing is when rich is needed)

    return escape(visible(text))


_CONTROL_ALL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable_line(text: object) -> str:
    """`text` for one line of a report: every control character visible (a newline too, so that a server's
    reply cannot forge a line of the report), rich markup escaped."""
    from rich.markup import escape

    return escape(_CONTROL_ALL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text)))
