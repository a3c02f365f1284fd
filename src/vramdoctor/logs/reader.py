"""Where log bytes come from: files, gzip files (also on standard input), standard input, and a file
still being written (`follow`). The only module of `logs` that does I/O.

`read_blocks` yields the log as blocks of UTF-8 bytes (UTF-16 logs, PowerShell's `>`, are transcoded);
the scanner splits lines itself, on '\\n' alone as `grep -n` counts them. Model files and other
binaries are refused by their first bytes before anything is read as text. The stream is read in
bounded memory whatever its size.
"""

from __future__ import annotations

import io
import os
import re
import signal
import stat
import sys
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import IO, Iterator

from ..errors import VramdoctorError
from .sniff import ARCHIVES, is_binary, text_encoding, what_binary, what_json

SNIFF = 8192
BLOCK = 1 << 22  # 4 MiB
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
#: ... and the colour codes whose escape a paste lost, left around a process's tag or at a line's start (vLLM's
#: "[1;36m(VllmWorker rank=1 pid=12436)[0;0m INFO ...", "[0;36m(APIServer pid=21)[0;0m Traceback ..."), or whose escape
#: it wrote out (syslog's "#033[1;36m", a terminal's "^[[0m", a string's "\033[", "\x1b[", "\u001b[", "\e[")
BARE_SGR = re.compile(r"(?:#033|\^\[|\\033|\\x1b|\\u001b|\\e)\[(?:\d{1,3};)*\d{0,3}m|^(?:\[(?:\d{1,3};)*\d{1,3}m)+|"
                      r"\[(?:\d{1,3};)*\d{1,3}m(?=\()|(?<=\))\[(?:\d{1,3};)*\d{1,3}m")


#: an HTML link around a line number or a path in a notebook viewer's traceback, its target quoted
_LINK = re.compile(r"<a href=(?:'[^'\n]{0,2000}'|\x22[^\x22\n]{0,2000}\x22)>([^<\n]{0,300})</a>")


def unpaint(text: str) -> str:
    """`text` without the colour codes a paste left without their escape (`BARE_SGR`), and with the links a notebook
    viewer puts into a traceback replaced by their text (VS Code's `---> <a href='vscode-notebook-cell:...'>10</a>
    trainer.train()`: IPython's `---> 10 trainer.train()`). (Plain substring checks first: the regex on every line costs
    the scan a tenth of its time.)"""
    if "<a href=" in text:
        text = _LINK.sub(r"\1", text)
    if ("m(" in text or ")[" in text or "033[" in text or "^[[" in text or "1b[" in text or "\\e[" in text
            or text[:1] == "[" and text[1:2].isdigit()):
        return BARE_SGR.sub("", text)
    return text


class LogInputError(VramdoctorError, OSError):
    """A log that cannot be read (missing, binary, empty, a model file). `path` names it."""

    def __init__(self, message: str, *, path: str, hint: str | None = None) -> None:
        super().__init__(f"{path}: {message}", hint=hint)
        self.path = path


class _Gunzip(io.RawIOBase):
    """Decompresses gzip members one after another (`cat a.gz b.gz`) and stops quietly where the data
    breaks off, saying so in `broken`; a complete file never warns."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw, self.z, self.buf, self.broken, self.done = raw, zlib.decompressobj(31), b"", "", False
        self.member_started = False  # the current decompressor has been given data
        self.padding = False  # zeros after the last member

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while not self.buf and not self.done:
            chunk = self.raw.read(1 << 16)
            try:
                if not chunk:
                    self.buf, self.done = self.z.flush(), True
                    if self.member_started and not self.z.eof:
                        self.broken = "the gzip stream ends early"
                    break
                if self.padding and not chunk.strip(b"\x00"):
                    continue  # more zero padding
                self.member_started = True
                self.buf = self.z.decompress(chunk)
                while self.z.eof:  # a next gzip member may follow (or zero padding, which gzip -t accepts)
                    rest = self.z.unused_data
                    self.z = zlib.decompressobj(31)
                    if not rest.strip(b"\x00"):
                        self.member_started = False
                        self.padding = True
                        break
                    self.member_started = True
                    self.buf += self.z.decompress(rest)
            except zlib.error as e:
                self.broken, self.done = f"the gzip data is corrupt ({e})", True
        n = min(len(b), len(self.buf))
        b[:n] = self.buf[:n]
        self.buf = self.buf[n:]
        return n


def _open(path: str) -> tuple[io.BufferedReader, _Gunzip | None]:
    if path == "-":
        if sys.stdin is None or sys.stdin.closed:
            raise LogInputError("standard input is closed.", path="-",
                                hint="Pipe the log in (`... 2>&1 | vramdoctor logs -`) or pass its path.")
        raw: IO[bytes] = sys.stdin.buffer
    else:
        try:
            mode = os.stat(path).st_mode
        except OSError as e:
            raise LogInputError(f"cannot be read ({e.strerror}).", path=path, hint="Check the path.") from None
        if stat.S_ISDIR(mode):
            raise LogInputError("is a directory.", path=path, hint="Pass the log file inside it.")
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            raise LogInputError("is not a regular file or a pipe.", path=path,
                                hint="Pass the log file the server wrote, or pipe the log in with `-`.")
        try:
            raw = open(path, "rb")  # noqa: SIM115 - closed with the stream
        except OSError as e:
            raise LogInputError(f"cannot be read ({e.strerror}).", path=path, hint="Check the path.") from None
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[arg-type]
    if buffered.peek(2)[:2] == b"\x1f\x8b":
        gz = _Gunzip(buffered)
        return io.BufferedReader(gz, 1 << 16), gz
    return buffered, None


def clean(raw: bytes) -> str:
    """One line's bytes as text: decoded (bad bytes replaced), without its newline, ANSI codes or NULs;
    a '\\r' inside (a progress bar redrawn in place) keeps what a terminal shows, the text after the last."""
    text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
    if "\r" in text:
        text = text.rsplit("\r", 1)[-1] or text.replace("\r", " ")
    if "\x1b" in text:
        text = ANSI.sub("", text)
    text = unpaint(text)
    return text.replace("\x00", "") if "\x00" in text else text


class _Interrupt:
    """In --follow, Ctrl-C ends the reading (and only that): what was read is still diagnosed."""

    def __init__(self) -> None:
        self.hit = False
        self.previous = None
        self.previous_term = None

    def __enter__(self) -> "_Interrupt":
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)
            self.previous_term = signal.signal(signal.SIGTERM, self._handle)  # `kill`, `timeout`: keep what was read
        return self

    def _handle(self, *_: object) -> None:
        self.hit = True

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            signal.signal(signal.SIGTERM, self.previous_term)


@dataclass
class Blocks:
    """A log as blocks of UTF-8 bytes (iterate once). warnings: notes for the user (a gzip that broke
    off), filled as the blocks are read; broken: set (to the reason) once read, where the data broke off before its
    end (a gzip stream cut short or corrupt): the log's last line is then no end the server wrote."""

    source: Iterator[bytes]
    path: str
    warnings: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[bytes]:
        return self.source


def read_blocks(path: str, *, follow: bool = False, poll_s: float = 0.5, idle_stop_s: float | None = None,
                warnings: list[str] | None = None, block: int = BLOCK) -> Blocks:
    """The log at `path` ('-' for stdin) as UTF-8 byte blocks. follow: keep reading as the file grows,
    like `tail -f`, until Ctrl-C (or `idle_stop_s` without new bytes); an empty file is waited on.
    Raises LogInputError at once for a missing, empty or binary file or a model file."""
    stream, gz = _open(path)
    head = stream.peek(SNIFF)[:SNIFF]
    if not head and not follow:
        if gz is not None and gz.broken:  # (a gzip header and no data: a file cut short, not an empty log)
            raise LogInputError(f"is a gzip file that ends before any of its data ({gz.broken}): it was cut short.",
                                path=path, hint="Copy the whole file again, or pass the uncompressed log.")
        raise LogInputError("is empty: there is nothing to diagnose.", path=path, hint=_EMPTY_HINT)
    # (a file or pipe of only blank lines is told at its end, in _blocks: a peek returns what the buffer holds, 4 KiB
    # of a file or what a pipe has delivered so far, so blank lines before the log would be taken for the whole)
    kind = what_binary(head) or (what_json(head) if gz is None else None)
    if kind:
        if "config.json" in kind:
            hint = f"To size the model, run `vramdoctor estimate {path}`."
        elif any(a in kind for a in ARCHIVES) and "checkpoint" not in kind:
            hint = "Unpack it (`tar xf`, `unzip`, `xz -d`, `zstd -d`, `bunzip2`, `gunzip`) and pass the log inside."
        elif gz is not None:
            hint = "It is compressed: to size the model, decompress it and run `vramdoctor estimate` on it."
        elif "GGUF" in kind:
            hint = f"To size the model, run `vramdoctor estimate {path}`."
        elif "model" in kind or "checkpoint" in kind:
            hint = "To size the model, run `vramdoctor estimate` on its folder (with its config.json)."
        else:
            hint = "Pass the text log the server printed (its stdout/stderr)."
        raise LogInputError(f"is {kind}, not a text log.", path=path, hint=hint)
    encoding = text_encoding(head) or "utf-8"
    if encoding == "utf-8" and is_binary(head):
        raise LogInputError("is a binary file, not a text log.", path=path,
                            hint="Pass the text log the server printed (stdout/stderr), not a model or core file.")
    out = warnings if warnings is not None else []
    from .dockerjson import unjson
    from .unwrap import unwrap

    broken: list[str] = []
    source = _blocks(stream, gz, encoding, follow, poll_s, idle_stop_s, out, path, block, broken)
    return Blocks(source=unwrap(unjson(source, out, path, follow), out, path, follow), path=path, warnings=out,
                  broken=broken)


class _NoInterrupt:
    hit = False

    def __enter__(self) -> "_NoInterrupt":
        return self

    def __exit__(self, *exc: object) -> None:
        return None


#: bytes that say nothing: whitespace, and NULs (a file preallocated or zero-filled after a crash; reading strips them)
_BLANK = b" \t\r\n\x0b\x0c\x00"
#: UTF-8's byte-order mark, which some editors write at a file's start
_BOM = b"\xef\xbb\xbf"
#: blank bytes read before a log that has said nothing is refused
BLANK_LIMIT = 64 << 20
_EMPTY_HINT = "Pass the server's log file, or pipe it in with `... 2>&1 | vramdoctor logs -`."


def _blocks(stream, gz, encoding, follow, poll_s, idle_stop_s, warnings, path, size,
            broken: list[str] | None = None) -> Iterator[bytes]:
    text = io.TextIOWrapper(stream, encoding=encoding, errors="replace", newline="") if encoding != "utf-8" else None
    read = 0
    ever, said = 0, False  # bytes read in all (a truncation starts `read` again), and whether any was not blank
    regular = _regular(stream)  # a pipe ends at its writer's end; a file may grow, be truncated or be rotated
    gone = False
    with (_Interrupt() if follow else _NoInterrupt()) as stop:  # without --follow, Ctrl-C stops the program
        while True:
            while True:
                chunk = (text.read(size // 2).encode("utf-8") if text else stream.read1(size))  # type: ignore[union-attr]
                if not chunk:
                    break
                read += len(chunk)
                ever += len(chunk)
                # (a byte-order mark says nothing either: a file of only "\ufeff" and a newline is empty)
                said = said or bool(chunk.strip(_BLANK).replace(_BOM, b"").strip(_BLANK))
                if not said and ever > BLANK_LIMIT:  # (`vramdoctor logs - < /dev/zero` would read for ever)
                    raise LogInputError(f"holds only blank lines, spaces or NUL bytes in its first {BLANK_LIMIT >> 20} "
                                        "MiB: there is nothing to diagnose.", path=path, hint=_EMPTY_HINT)
                yield chunk
                if stop.hit:
                    return
            if not follow or stop.hit or not regular:
                break
            idle = 0.0
            while not stream.peek(1) and not stop.hit:
                if _truncated(stream, gz, read):  # logrotate copytruncate, `: > log`: read it again from its start
                    stream.seek(0)
                    read = 0
                    warnings.append(f"{path}: the file was truncated while followed; read again from its start.")
                    yield b"\n"
                    break
                state = _replaced(stream, path) if gz is None and text is None and path != "-" else None
                if state == "replaced":  # logrotate's default (rename, new file): go on in the new file
                    stream = _reopen(stream, path)
                    read = 0
                    warnings.append(f"{path}: the file was replaced (rotated) while followed; the new file was "
                                    "read after the old one.")
                    yield b"\n"
                    break
                if state == "gone" and not gone:
                    gone = True
                    sys.stderr.write(f"vramdoctor: {path} was deleted or moved; waiting for it to come back "
                                     "(Ctrl-C ends and diagnoses what was read)\n")
                    warnings.append(f"{path}: the file was deleted or moved while followed.")
                time.sleep(poll_s)
                idle += poll_s
                if idle_stop_s is not None and idle >= idle_stop_s:
                    stop.hit = True
            if stop.hit:
                break
    if gz and gz.broken:
        if broken is not None:
            broken.append(gz.broken)
        warnings.append(f"{path}: {gz.broken}; the lines before were diagnosed, and a failure past the cut cannot "
                        "be seen.")
    if not follow and not said:
        raise LogInputError("holds only blank lines, spaces or NUL bytes: there is nothing to diagnose.", path=path,
                            hint=_EMPTY_HINT)
    if follow and not said:  # followed and nothing came: empty input, as without --follow
        if not ever:
            raise LogInputError("is empty: nothing was written to it while it was followed, so there is nothing to "
                                "diagnose.", path=path, hint=_EMPTY_HINT)
        raise LogInputError("holds only blank lines or spaces: there is nothing to diagnose.", path=path,
                            hint=_EMPTY_HINT)


def _regular(stream) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


def _replaced(stream, path: str) -> str | None:
    """'replaced' when `path` now names another file than the one open, 'gone' when it names none."""
    try:
        now = os.stat(path)
    except OSError:
        return "gone"
    try:
        mine = os.fstat(stream.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return None
    return "replaced" if (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino) and stat.S_ISREG(now.st_mode) else None


def _reopen(stream, path: str):
    """The rest of the old file is read already (peek found nothing); the new one is read from its start."""
    try:
        new = open(path, "rb")  # noqa: SIM115 - closed with the stream
    except OSError:
        return stream
    stream.close()
    return io.BufferedReader(new) if not isinstance(new, io.BufferedReader) else new


def _truncated(stream, gz, read: int) -> bool:
    try:
        return gz is None and os.fstat(stream.fileno()).st_size < read
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


def lines_of(blocks: Iterator[bytes]) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line in a stream of blocks."""
    from .blocks import bound

    n, carry = 0, b""
    for chunk in blocks:
        data = carry + chunk
        parts = data.split(b"\n")
        carry = bound(parts.pop())
        for raw in parts:
            n += 1
            yield n, clean(raw)
    if carry:
        yield n + 1, clean(carry)


def read_lines(path: str, *, follow: bool = False, poll_s: float = 0.5, idle_stop_s: float | None = None,
               warnings: list[str] | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line of `path`; see `read_blocks`. Raises LogInputError at once."""
    blocks = read_blocks(path, follow=follow, poll_s=poll_s, idle_stop_s=idle_stop_s, warnings=warnings)
    return lines_of(iter(blocks))
