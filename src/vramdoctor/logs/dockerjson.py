"""Logs in Docker's json-file format (`/var/lib/docker/containers/<id>/<id>-json.log`, the file `docker logs`
reads): one JSON object a line, `{"log":"<the line the container printed>\\n","stream":"stderr","time":"..."}`
(moby's daemon/logger/jsonfilelog); a line longer than 16 KiB is split over several objects, each but the last
without the final newline (daemon/logger/copier.go). Read as the lines the container printed: each object's
`log` value, the pieces of a split line joined, with empty lines in their place so line numbers stay as `grep -n`
counts them. Lines that are not such objects pass unchanged.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Iterable, Iterator

from .unwrap import by_lines, sniffed

SAMPLE = 64 * 1024  # bytes read before deciding
SAMPLE_LINES = 20  # whole lines looked at
SHARE = 0.8  # of those, the share that must be Docker's objects
MAX_JOINED = 1 << 20  # bytes a split line is joined up to (Docker splits at 16 KiB; a line past this is cut there)

_OBJECT = re.compile(rb'^\s*\{\s*"log"\s*:\s*"')


def is_docker_json(head: bytes) -> bool:
    """The first whole lines of `head` are mostly Docker json-file objects (`{"log": "...`)."""
    lines = [raw for raw in head.split(b"\n")[:-1] if raw.strip()][:SAMPLE_LINES]
    return bool(lines) and sum(1 for raw in lines if _OBJECT.match(raw)) >= SHARE * len(lines)


def _value(raw: bytes) -> str | None:
    """The `log` value of one object, or None where the line is not one."""
    if not _OBJECT.match(raw):
        return None
    try:
        obj = json.loads(raw)
    except ValueError:
        return None
    value = obj.get("log") if isinstance(obj, dict) else None
    return value if isinstance(value, str) else None


def unjson(blocks: Iterable[bytes], warnings: list[str], path: str, follow: bool = False) -> Iterator[bytes]:
    """The blocks of a log, each Docker json-file object read as the line it holds (see the module docstring);
    unchanged if the start of the log is not in that format. A note for the user goes to `warnings`."""
    head, it = sniffed(blocks, follow, SAMPLE)
    if not is_docker_json(head):
        if head:
            yield head
        yield from it
        return
    warnings.append(f"{path}: the log is in Docker's json-file format; each line's \"log\" value was read (line "
                    "numbers are unchanged).")
    pending: list[str] = []  # the pieces of a line Docker split, so far

    def joined() -> list[bytes]:
        text = "".join(pending).rstrip("\r").replace("\r\n", " ").replace("\n", " ")
        out = [text.encode("utf-8", "replace")] + [b""] * (len(pending) - 1)
        pending.clear()
        return out

    def take(lines: list[bytes]) -> list[bytes]:
        out: list[bytes] = []
        for raw in lines:
            value = _value(raw.rstrip(b"\r"))
            if value is None:
                out.append(raw)
                continue
            ended = value.endswith("\n")
            pending.append(value[:-1] if ended else value)
            if ended or sum(map(len, pending)) >= MAX_JOINED:
                out.extend(joined())
        return out

    yield from by_lines(itertools.chain([head], it), take, lambda: joined() if pending else [])
