"""Where log lines come from: files, gzip files, standard input, and a file still being written
(`follow`). The only module of `logs` that does I/O. Lines are decoded as UTF-8 with
replacement and read as a stream, so a log of any size takes bounded memory."""

from __future__ import annotations

import gzip
import io
import sys
import time
from pathlib import Path
from typing import IO, Iterator

from ..errors import VramdoctorError

SNIFF = 8192


class LogInputError(VramdoctorError, OSError):
    """A log that cannot be read (missing, binary, empty). `path` names it."""

    def __init__(self, message: str, *, path: str, hint: str | None = None) -> None:
        super().__init__(f"{path}: {message}", hint=hint)
        self.path = path


def _check_text(head: bytes, path: str) -> None:
    if not head:
        raise LogInputError("is empty: there is nothing to diagnose.", path=path,
                            hint="Pass the server's log file, or pipe it in with `... 2>&1 | vramdoctor logs -`.")
    if b"\x00" in head or sum(b < 9 or 13 < b < 32 for b in head) > len(head) // 10:
        raise LogInputError("is a binary file, not a text log.", path=path,
                            hint="Pass the text log the server printed (stdout/stderr), not a model or core file.")


def _open(path: str) -> IO[bytes]:
    if path == "-":
        return sys.stdin.buffer
    p = Path(path)
    try:
        f: IO[bytes] = p.open("rb")
    except OSError as e:
        raise LogInputError(f"cannot be read ({e.strerror}).", path=path, hint="Check the path.") from None
    magic = f.read(2)
    f.seek(0)
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=f)  # type: ignore[return-value]
    return f


def read_lines(path: str, *, follow: bool = False, poll_s: float = 0.5, idle_stop_s: float | None = None,
               warnings: list[str] | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line of `path` ('-' for stdin). follow: keep reading as the file
    grows, like `tail -f`, until interrupted (or `idle_stop_s` without new lines). A file that breaks
    off (a truncated gzip) ends the stream with a note in `warnings`: the lines before still count."""
    raw = _open(path)
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[arg-type]
    try:
        head = buffered.peek(SNIFF)[:SNIFF]
    except (OSError, EOFError) as e:
        raise LogInputError(f"is not a readable log ({e}).", path=path) from None
    _check_text(head, path)
    text = io.TextIOWrapper(buffered, encoding="utf-8", errors="replace", newline=None)
    n = 0
    try:
        while True:
            line = text.readline()
            if line:
                n += 1
                yield n, line.rstrip("\r\n")
                continue
            if not follow:
                return
            idle = 0.0
            try:
                while not line:
                    time.sleep(poll_s)
                    idle += poll_s
                    if idle_stop_s is not None and idle >= idle_stop_s:
                        return
                    line = text.readline()
            except KeyboardInterrupt:  # Ctrl-C ends --follow; what was read is still diagnosed
                return
            n += 1
            yield n, line.rstrip("\r\n")
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        if warnings is not None:
            warnings.append(f"{path}: could not be read past line {n} ({e}); the lines before were diagnosed.")
