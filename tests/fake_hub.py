"""A local stand-in for huggingface.co on 127.0.0.1: serves files of one folder under
/{repo_id}/resolve/{revision}/{filename} with the headers huggingface_hub reads (ETag,
X-Repo-Commit, Content-Length) and HTTP Range requests, so `HF_ENDPOINT` can point at it.
The real Hub cannot be reached from the test machines."""

from __future__ import annotations

import hashlib
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def serve(repo_id: str, folder: Path) -> tuple[ThreadingHTTPServer, str]:
    """Start the server in a thread; returns it and its endpoint URL. Call .shutdown() when done."""
    prefix = f"/{repo_id}/resolve/"
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def _file(self) -> Path | None:
            path = self.path.split("?")[0]
            if not path.startswith(prefix):
                return None
            name = path[len(prefix):].split("/", 1)[-1]
            f = folder / name
            return f if f.is_file() else None

        def _headers(self, f: Path, length: int, status: int = 200) -> None:
            self.send_response(status)
            self.send_header("ETag", '"' + hashlib.sha1(f.read_bytes()).hexdigest() + '"')
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("Content-Length", str(length))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()

        def _missing(self) -> None:
            self.send_response(404)
            self.send_header("X-Error-Code", "EntryNotFound")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_HEAD(self):  # noqa: N802
            f = self._file()
            hits.append(f"HEAD {self.path}")
            if f is None:
                return self._missing()
            self._headers(f, f.stat().st_size)

        def do_GET(self):  # noqa: N802
            f = self._file()
            hits.append(f"GET {self.path} {self.headers.get('Range', '')}")
            if f is None:
                return self._missing()
            data = f.read_bytes()
            m = re.match(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
            if m:
                start = int(m.group(1))
                end = min(int(m.group(2)) if m.group(2) else len(data) - 1, len(data) - 1)
                body = data[start:end + 1]
                self._headers(f, len(body), 206)
            else:
                body = data
                self._headers(f, len(body))
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.hits = hits  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
