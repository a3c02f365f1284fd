"""Memory readings a user pasted as a table beside a log: a header naming a memory column (`resident`, `RSS`,
`VRAM`, `mem used`), then rows led by a step or a time that grows ("0 20.5G +0.0G", "10 22.0G +1.5G"). Only a
table whose rows are a series over time is read: a list of processes (`ps aux`, led by a user name) is not.
Pure: text in, a header's column or a row's bytes out."""

from __future__ import annotations

import re

from ..engines.words import to_bytes

_MEMCOL = re.compile(r"^(?:resident|rss|res|vram|vmrss|mem(?:ory)?|used|mem_used|memory_used)(?:\((\w+)\))?$", re.I)
_WORD = re.compile(r"^[A-Za-z%#_()./-]+$")
# 10, 09:00, 1.5h, 2000req; or a date and time in one cell, ISO 8601's "2025-06-02T10:00Z" (a cron job's `date -Is`)
_STEP = re.compile(r"^\d+(?:[:.]\d+)*[a-z]{0,3}$|^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?$",
                   re.I)
_VALUE = re.compile(r"^\+?(\d[\d,]*(?:\.\d+)?)\s*([kKMGT](?:i?B)?)?$")
MAX_COLUMNS = 16


def header_column(text: str) -> tuple[int, str | None] | None:
    """(index of the memory column, its unit if the header names one) for a table header line, else None."""
    cells = text.split()
    if not 2 <= len(cells) <= MAX_COLUMNS or not all(_WORD.match(c) for c in cells):
        return None
    for i, c in enumerate(cells[1:], 1):  # the first column is the step or time
        m = _MEMCOL.match(c)
        if m:
            return i, m.group(1)
    return None


def row_value(text: str, column: int, unit: str | None) -> tuple[str, int] | None:
    """(the row's step, the bytes in the memory column) for a row of the table, else None (the table ended)."""
    cells = text.split()
    if len(cells) <= column or not _STEP.match(cells[0]):
        return None
    m = _VALUE.match(cells[column])
    if not m:
        return None
    u = m.group(2) or unit
    if not u:
        return None  # a bare number: its unit is not known
    try:
        return cells[0], to_bytes(m.group(1), u[0].upper() + "iB")
    except (ValueError, KeyError):
        return None
