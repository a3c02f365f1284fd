"""HTTP to servers (inference servers, DCGM exporters) through httpx: the only module that imports it.

Every call has a timeout, every reply is read up to a cap (a server that streams garbage without end cannot
fill memory), and a failure to connect becomes `Unreachable` with the reason in words (refused, timed out,
name not resolved), never httpx's exception.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Iterator

#: the most bytes read of one reply (a /metrics page of a large vLLM deployment is a few hundred KiB)
MAX_REPLY_BYTES = 16 * 2**20
#: the most bytes of one line of a streamed reply (one SSE event)
MAX_LINE_BYTES = 1 * 2**20
#: the most bytes of a whole streamed reply
MAX_STREAM_BYTES = 64 * 2**20


class Unreachable(Exception):
    """The server did not answer: `reason` in words (`refused`, `timed out`, ...); `kind` one of refused,
    timeout, dns, protocol, other."""

    def __init__(self, reason: str, kind: str = "other") -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


@dataclass(frozen=True)
class Reply:
    """One HTTP reply: status code, the body as text (cut at MAX_REPLY_BYTES: `truncated`), headers lower-cased."""

    status: int
    text: str
    headers: dict[str, str]
    truncated: bool = False

    def json(self):
        """The body as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.text)
        except (ValueError, RecursionError):
            return None


def _httpx():
    import httpx

    return httpx


def _reason(e: Exception) -> Unreachable:
    httpx = _httpx()
    if isinstance(e, httpx.ConnectError):
        text = str(e) or "connection failed"
        low = text.lower()
        if "refused" in low:
            return Unreachable("the connection was refused (nothing listens on that port)", "refused")
        if "name or service" in low or "nodename" in low or "getaddrinfo" in low or "resolve" in low:
            return Unreachable("the host name cannot be resolved", "dns")
        return Unreachable(f"cannot connect ({text})", "refused")
    if isinstance(e, httpx.TimeoutException):
        return Unreachable("it did not answer in time", "timeout")
    if isinstance(e, (httpx.RemoteProtocolError, httpx.DecodingError)):
        return Unreachable(f"it broke the HTTP protocol ({e})", "protocol")
    if isinstance(e, httpx.ReadError):
        return Unreachable(f"the connection broke while reading ({e or 'reset'})", "protocol")
    return Unreachable(f"{type(e).__name__}: {e}", "other")


class Http:
    """A client with a default timeout (seconds) and headers (an API key's `Authorization`)."""

    def __init__(self, *, timeout_s: float = 10.0, headers: dict[str, str] | None = None) -> None:
        httpx = _httpx()
        self.timeout_s = timeout_s
        self._client = httpx.Client(timeout=timeout_s, headers=headers or {}, follow_redirects=False,
                                    trust_env=False)

    def close(self) -> None:
        self._client.close()

    def _read(self, response, deadline: float) -> Reply:
        chunks, size, cut = [], 0, False
        for chunk in response.iter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_REPLY_BYTES:
                cut = True
                break
            if time.monotonic() > deadline:  # a reply that trickles in: each read is quick, the whole is not
                raise Unreachable("it did not finish its reply in time (it trickles)", "timeout")
        body = b"".join(chunks)[:MAX_REPLY_BYTES]
        headers = {k.lower(): v for k, v in response.headers.items()}
        return Reply(status=response.status_code, text=body.decode("utf-8", errors="replace"), headers=headers,
                     truncated=cut)

    def get(self, url: str, *, timeout_s: float | None = None) -> Reply:
        """GET `url`. Raises Unreachable."""
        httpx = _httpx()
        t = timeout_s or self.timeout_s
        try:
            with self._client.stream("GET", url, timeout=t) as r:
                return self._read(r, time.monotonic() + t)
        except httpx.HTTPError as e:
            raise _reason(e) from None

    def post(self, url: str, body: dict, *, timeout_s: float | None = None) -> Reply:
        """POST `body` as JSON. Raises Unreachable."""
        httpx = _httpx()
        t = timeout_s or self.timeout_s
        try:
            with self._client.stream("POST", url, json=body, timeout=t) as r:
                return self._read(r, time.monotonic() + t)
        except httpx.HTTPError as e:
            raise _reason(e) from None

    def stream(self, url: str, body: dict, *, timeout_s: float, first_byte_timeout_s: float | None = None
               ) -> Iterator[tuple[float, int, str]]:
        """POST `body` and yield (time.monotonic() of arrival, HTTP status, line) for each line of the reply
        (the status repeats on every line). `timeout_s` bounds the whole reply. Raises Unreachable, also when
        the whole reply takes longer than timeout_s."""
        httpx = _httpx()
        deadline = time.monotonic() + timeout_s
        per_read = first_byte_timeout_s or timeout_s
        try:
            with self._client.stream("POST", url, json=body, timeout=httpx.Timeout(per_read)) as r:
                size = 0
                pending = b""
                for chunk in r.iter_bytes():  # lines split here: a line without end must not fill memory
                    now = time.monotonic()
                    size += len(chunk)
                    if now > deadline:
                        raise Unreachable(f"the reply took longer than {timeout_s:.0f} s", "timeout")
                    if size > MAX_STREAM_BYTES:
                        raise Unreachable("the reply is longer than a completion can be", "protocol")
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    if len(pending) > MAX_LINE_BYTES:
                        raise Unreachable(f"it sent a line of more than {MAX_LINE_BYTES // 2**20} MiB", "protocol")
                    for line in lines:
                        yield now, r.status_code, line.rstrip(b"\r").decode("utf-8", errors="replace")
                if pending:
                    yield time.monotonic(), r.status_code, pending.decode("utf-8", errors="replace")
        except httpx.HTTPError as e:
            raise _reason(e) from None
