"""A small OpenAI-compatible server for the probe's tests, run as a real process (`python openai_server.py`).

It holds `--weights-mib` of memory from the start (its "weights"), answers /health, /v1/models, /tokenize
(one token per byte, llama-server's shape) and /v1/completions (streamed, one chunk per token, usage in the
last chunk), and misbehaves on purpose by `--mode`:
  normal   as above; each request holds `--per-token-kib` KiB per prompt token while it runs, then frees it
  leak     as normal, and after each request keeps allocating `--leak-mib` MiB a second, never freed
  hang     accepts connections and never answers
  die      exits in the middle of a completion
  die-slowly  drops the connection of its first completion unanswered, then takes 1.5 s to exit (an abort that
           prints its backtrace through gdb first, as ggml does)
  garbage  answers /v1/models with text that is not JSON
  error    answers every completion with HTTP 500
  loading  answers 503 "Loading model" for `--load-s` seconds first (llama-server's way)
  trickle  streams its completion one byte a second, with no newline, for ever
  trickle-health  answers /health one byte a second, for ever
  undercount  its /tokenize counts one token per 1,000 bytes (a tokenizer whose counts cannot be true)
  notopenai  answers 404 to everything (a web server that is not an inference server)
  chatty   writes a line to its output every millisecond
  stubborn ignores SIGTERM (only SIGKILL stops it)
  setsid-child  starts a child in a session of its own that holds `--weights-mib` too
  keep     as normal, and keeps `--leak-mib` MiB after each request, for good
  copy     answers a prompt by copying what follows its first blank line (the sweep's recheck asks for a copy),
           a word a chunk, up to max_tokens words; with --corrupt-above N, a server whose --n-ctx is above N
           changes every digit it copies (a configuration that loads but answers wrong)
--strict-ctx: a completion whose prompt has --n-ctx tokens or more is answered HTTP 400, as llama-server does.
--die-counting-above N: a server whose --n-ctx is above N exits when asked to count the tokens of a text that
starts as the sweep's stability recheck does ("Copy the following"): a server that dies during that count.
--model-id sets the id /v1/models gives (any text: long, with newlines).
Standard library only, so that it starts in a fraction of a second.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = 4096
held: list[bytearray] = []


def touch(n: int) -> bytearray:
    """n bytes, every page written (so that they are resident)."""
    b = bytearray(n)
    for i in range(0, n, PAGE):
        b[i] = 1
    return b


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--mode", default="normal")
    ap.add_argument("--weights-mib", type=int, default=64)
    ap.add_argument("--per-token-kib", type=int, default=0)
    ap.add_argument("--leak-mib", type=int, default=8)
    ap.add_argument("--load-s", type=float, default=1.0)
    ap.add_argument("--n-ctx", type=int, default=32768)
    ap.add_argument("--model-id", default="tiny-test")
    ap.add_argument("--corrupt-above", type=int, default=None)
    ap.add_argument("--strict-ctx", action="store_true")
    ap.add_argument("--die-counting-above", type=int, default=None)
    a = ap.parse_args()
    started = time.monotonic()
    held.append(touch(a.weights_mib * 2**20))
    if a.mode == "stubborn":
        import signal

        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if a.mode == "setsid-child":
        import subprocess

        subprocess.Popen([sys.executable, "-c", f"import time; b = bytearray({a.weights_mib} * 2**20); "
                          "[b.__setitem__(i, 1) for i in range(0, len(b), 4096)]; time.sleep(3600)"],
                         start_new_session=True)
    if a.mode == "chatty":
        def chat() -> None:
            i = 0
            while True:
                print(f"INFO request log line {i} " + "x" * 200, flush=True)
                i += 1
                time.sleep(0.001)

        threading.Thread(target=chat, daemon=True).start()

    def leak_forever() -> None:
        while True:
            held.append(touch(a.leak_mib * 2**20))
            time.sleep(1.0)

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, obj) -> None:
            self._send(status, json.dumps(obj).encode())

        def _loading(self) -> bool:
            if a.mode == "loading" and time.monotonic() - started < a.load_s:
                self._json(503, {"error": {"message": "Loading model", "type": "unavailable_error", "code": 503}})
                return True
            return False

        def _trickle(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            while True:
                self.wfile.write(b"d")
                self.wfile.flush()
                time.sleep(1.0)

        def do_GET(self) -> None:
            if a.mode == "hang":
                time.sleep(3600)
            if self._loading():
                return
            if a.mode == "notopenai":
                self._send(404, b"<html>Not Found</html>", "text/html")
                return
            if a.mode == "trickle-health" and self.path == "/health":
                self._trickle()
            if self.path == "/health":
                self._json(200, {"status": "ok"})
            elif self.path == "/v1/models":
                if a.mode == "garbage":
                    self._send(200, b"<html>not a model list</html>", "text/html")
                else:
                    self._json(200, {"object": "list", "data": [{"id": a.model_id, "object": "model",
                                                                 "owned_by": "tests", "max_model_len": a.n_ctx}]})
            else:
                self._json(404, {"error": "not found"})

        def do_POST(self) -> None:
            if a.mode == "hang":
                time.sleep(3600)
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path == "/tokenize":
                data = body.get("content", "").encode()
                if a.die_counting_above is not None and a.n_ctx > a.die_counting_above \
                        and data.startswith(b"Copy the following"):
                    os._exit(3)
                self._json(200, {"tokens": list(data[::1000] if a.mode == "undercount" else data)})
                return
            if a.mode == "notopenai":
                self._send(404, b"<html>Not Found</html>", "text/html")
                return
            if a.mode == "die-slowly" and self.path.endswith("completions"):
                self.connection.shutdown(socket.SHUT_RDWR)
                print("terminate called after throwing an instance of 'std::system_error'", flush=True)
                time.sleep(1.5)
                os._exit(134)
            if self.path != "/v1/completions":
                self._json(404, {"error": "not found"})
                return
            if a.mode == "error":
                self._json(500, {"error": {"message": "internal failure on purpose", "code": 500}})
                return
            prompt = body.get("prompt", "")
            n_prompt = len(prompt.encode())
            n_out = int(body.get("max_tokens", 16))
            if a.strict_ctx and n_prompt >= a.n_ctx:
                self._json(400, {"error": {"code": 400, "type": "exceed_context_size_error",
                                           "message": f"the request exceeds the available context size, try "
                                                      f"increasing it ({n_prompt} tokens, {a.n_ctx} available)"}})
                return
            work = touch(n_prompt * a.per_token_kib * 1024) if a.per_token_kib else None
            if a.mode == "trickle":
                self._trickle()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            time.sleep(0.3)  # the prefill: the request's memory is held meanwhile
            if a.mode == "copy":
                text = prompt.split("\n\n", 1)[-1]
                if a.corrupt_above is not None and a.n_ctx > a.corrupt_above:
                    text = "".join(str((int(c) + 1) % 10) if c.isdigit() else c for c in text)
                words = text.split(" ")[:n_out]
                for i, w in enumerate(words):
                    chunk = {"choices": [{"index": 0, "text": (" " if i else "") + w, "finish_reason": None}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                last = {"choices": [{"index": 0, "text": "", "finish_reason": "length" if len(words) == n_out
                                     else "stop"}],
                        "usage": {"prompt_tokens": n_prompt, "completion_tokens": len(words)}}
                self.wfile.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())
                self.wfile.flush()
                self.close_connection = True
                return
            for i in range(n_out):
                if a.mode == "die" and i == n_out // 2:
                    os._exit(3)
                chunk = {"choices": [{"index": 0, "text": " w", "finish_reason": None}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
                time.sleep(0.002)
            last = {"choices": [{"index": 0, "text": "", "finish_reason": "length"}],
                    "usage": {"prompt_tokens": n_prompt, "completion_tokens": n_out, "total_tokens": n_prompt + n_out}}
            self.wfile.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())
            self.wfile.flush()
            del work
            if a.mode == "keep":
                held.append(touch(a.leak_mib * 2**20))
            if a.mode == "leak":
                threading.Thread(target=leak_forever, daemon=True).start()
            self.close_connection = True

    server = ThreadingHTTPServer(("127.0.0.1", a.port), H)
    print(f"listening on {a.port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
