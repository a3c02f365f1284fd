"""Where log lines come from: files, gzip files (also on standard input), standard input, and a
file still being written (`follow`). The only module of `logs` that does I/O.

Lines are split on '\\n' alone, as `grep -n` counts them; a '\\r' inside a line (a progress bar
redrawn in place) keeps what a terminal would show, the text after the last '\\r'. ANSI colour
codes and NUL bytes are removed; bytes that are not UTF-8 are replaced. UTF-16 logs (Windows
PowerShell's `>`) are decoded as such. The stream is read in bounded memory whatever its size.
"""

from __future__ import annotations

import codecs
import io
import re
import signal
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import IO, Iterator

from ..errors import VramdoctorError

SNIFF = 8192
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")


class LogInputError(VramdoctorError, OSError):
    """A log that cannot be read (missing, binary, empty). `path` names it."""

    def __init__(self, message: str, *, path: str, hint: str | None = None) -> None:
        super().__init__(f"{path}: {message}", hint=hint)
        self.path = path


class _Gunzip(io.RawIOBase):
    """Decompresses a gzip stream and stops quietly where it breaks off, noting it in `broken`."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw, self.z, self.buf, self.broken, self.done = raw, zlib.decompressobj(31), b"", "", False

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while not self.buf and not self.done:
            chunk = self.raw.read(1 << 16)
            try:
                if not chunk:
                    self.buf, self.done = self.z.flush(), True
                    if not self.z.eof:
                        self.broken = "the gzip stream ends early"
                    break
                self.buf = self.z.decompress(chunk)
                if self.z.eof:  # a second gzip member may follow (`cat a.gz b.gz`)
                    rest = self.z.unused_data
                    self.z = zlib.decompressobj(31)
                    if rest:
                        self.buf += self.z.decompress(rest)
            except zlib.error as e:
                self.broken, self.done = f"the gzip data is corrupt ({e})", True
        n = min(len(b), len(self.buf))
        b[:n] = self.buf[:n]
        self.buf = self.buf[n:]
        return n


def _binary(head: bytes) -> bool:
    """An executable, an image, a model file: many control bytes, or bytes that are not UTF-8.
    NUL bytes alone do not count (a logrotate copytruncate hole is NULs in a text log), unless
    there is nothing else."""
    text = head.replace(b"\x00", b"")
    if not text:
        return bool(head)
    control = sum(1 for c in text if c < 9 or 13 < c < 32 or c == 127)
    bad = text.decode("utf-8", errors="replace").count("\ufffd")
    return control > len(text) * 0.2 or bad > len(text) * 0.1


def _utf16(head: bytes) -> str | None:
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    even, odd = head[0::2][:512], head[1::2][:512]
    if len(odd) > 16 and odd.count(0) > 0.9 * len(odd) and even.count(0) < 0.1 * len(even):
        return "utf-16-le"
    return None


def _open(path: str) -> tuple[io.BufferedReader, _Gunzip | None]:
    if path == "-":
        raw: IO[bytes] = sys.stdin.buffer
    else:
        p = Path(path)
        if p.is_dir():
            raise LogInputError("is a directory.", path=path, hint="Pass the log file inside it.")
        try:
            raw = p.open("rb")
        except OSError as e:
            raise LogInputError(f"cannot be read ({e.strerror}).", path=path, hint="Check the path.") from None
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[arg-type]
    if buffered.peek(2)[:2] == b"\x1f\x8b":
        gz = _Gunzip(buffered)
        return io.BufferedReader(gz, 1 << 16), gz
    return buffered, None


def _clean(raw: bytes, encoding: str) -> str:
    text = raw.decode(encoding, errors="replace").rstrip("\r\n")
    if "\r" in text:
        text = text.rsplit("\r", 1)[-1] or text.replace("\r", " ")
    if "\x1b" in text:
        text = ANSI.sub("", text)
    return text.replace("\x00", "")


class _Interrupt:
    """In --follow, Ctrl-C ends the reading (and only that): what was read is still diagnosed."""

    def __init__(self) -> None:
        self.hit = False
        self.previous = None

    def __enter__(self) -> "_Interrupt":
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, *_: object) -> None:
        self.hit = True

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def read_lines(path: str, *, follow: bool = False, poll_s: float = 0.5, idle_stop_s: float | None = None,
               warnings: list[str] | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line of `path` ('-' for stdin). follow: keep reading as the file
    grows, like `tail -f`, until Ctrl-C (or `idle_stop_s` without new lines); an empty file is
    waited on. A stream that breaks off (a truncated gzip) ends with a note in `warnings`: the
    lines before still count. Raises LogInputError for a missing, empty or binary file."""
    stream, gz = _open(path)
    head = stream.peek(SNIFF)[:SNIFF]
    if not head and not follow:
        raise LogInputError("is empty: there is nothing to diagnose.", path=path,
                            hint="Pass the server's log file, or pipe it in with `... 2>&1 | vramdoctor logs -`.")
    encoding = _utf16(head) or "utf-8"
    if encoding == "utf-8" and _binary(head):
        raise LogInputError("is a binary file, not a text log.", path=path,
                            hint="Pass the text log the server printed (stdout/stderr), not a model or core file.")
    lines: Iterator[bytes]
    if encoding != "utf-8":
        text = io.TextIOWrapper(stream, encoding=encoding, errors="replace", newline="\n")
        lines = (line.encode("utf-8") for line in text)
        encoding = "utf-8"
    else:
        lines = iter(stream)
    n = 0
    with _Interrupt() as stop:
        while True:
            for raw in lines:
                n += 1
                yield n, _clean(raw, encoding)
                if stop.hit:
                    return
            if not follow or stop.hit:
                break
            idle = 0.0
            while not stream.peek(1) and not stop.hit:
                time.sleep(poll_s)
                idle += poll_s
                if idle_stop_s is not None and idle >= idle_stop_s:
                    stop.hit = True
            if stop.hit:
                break
    if gz and gz.broken and warnings is not None:
        warnings.append(f"{path}: {gz.broken} after line {n}; the lines before were diagnosed, "
                        "and a failure past the cut cannot be seen.")
