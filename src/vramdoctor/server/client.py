"""A client for OpenAI-compatible inference servers: the served model, readiness, one fixed completion
streamed to time its first token, tokenize, and the engine's own endpoints (read by the engine modules).

All HTTP goes through server/http.py. Errors become ServerError (errors.py) naming the URL, what was being
done and what to try; a completion that fails is returned with its `error`, not raised, so that the
readings taken around it are kept.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from ..engines.interface import Endpoints, Tokenizer
from ..errors import ServerError
from .http import Http, Reply, Unreachable

#: the longest model id or error text kept from a reply
MAX_TEXT = 2000
#: the most models a /v1/models list is read for
MAX_MODELS = 1000


@dataclass(frozen=True, kw_only=True)
class ServedModel:
    """One entry of /v1/models: id, max_model_len where the server gives it (vLLM and SGLang `max_model_len`;
    llama-server `meta.n_ctx`, per slot), owned_by, and llama-server's `meta` (n_ctx_train, n_params, size)."""

    id: str
    max_model_len: int | None = None
    owned_by: str = ""
    meta: dict = field(default_factory=dict)


@dataclass(kw_only=True)
class Completion:
    """One completion request and what came back.

    prompt_tokens / completion_tokens: the server's `usage` (usage_source "server"), else the streamed chunks
    that carried text (usage_source "stream chunks": one token each in vLLM, SGLang and llama-server), else None.
    ttft_s: seconds from sending to the first chunk with text; total_s: to the end of the reply.
    finish_reason: as the server gave it ("length", "stop", ...). error: what failed (an HTTP status and the
    server's message, a broken stream), else None. endpoint: the path used.
    """

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    ttft_s: float | None = None
    total_s: float = 0.0
    finish_reason: str | None = None
    text: str = ""
    error: str | None = None
    status: int | None = None
    usage_source: str | None = None
    endpoint: str = ""


def _count(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 40 else None


def _short(text: str, n: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


class Client:
    """One server at `base_url` ("http://127.0.0.1:8000"). api_key: sent as a bearer token. timeout_s: each
    short call (model list, tokenize, metrics); request_timeout_s: a whole completion."""

    def __init__(self, base_url: str, *, api_key: str | None = None, timeout_s: float = 10.0,
                 request_timeout_s: float = 600.0) -> None:
        self.base = base_url.rstrip("/")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.http = Http(timeout_s=timeout_s, headers=headers)
        self.has_key = bool(api_key)
        self.request_timeout_s = request_timeout_s

    def close(self) -> None:
        self.http.close()

    def url(self, path: str) -> str:
        return self.base + path

    # -- plain calls --------------------------------------------------------------------------------------
    def get(self, path: str, *, timeout_s: float | None = None) -> Reply:
        """GET `path`. Raises ServerError when the server does not answer."""
        try:
            return self.http.get(self.url(path), timeout_s=timeout_s)
        except Unreachable as e:
            raise ServerError(f"{self.base} did not answer GET {path}: {e.reason}.", url=self.base, phase="reading",
                              hint=_hint(e)) from None

    def answers(self, paths: tuple[str, ...], *, timeout_s: float = 5.0) -> dict:
        """path -> (status, text) for each path that answered (an engine module's input); missing when not."""
        out: dict = {}
        for p in dict.fromkeys(paths):
            try:
                r = self.http.get(self.url(p), timeout_s=timeout_s)
            except Unreachable:
                continue
            out[p] = (r.status, r.text)
        return out

    def models(self) -> list[ServedModel]:
        """The served models (/v1/models). Raises ServerError when it is missing or not the OpenAI shape."""
        r = self.get("/v1/models")
        if r.status == 401 or r.status == 403:
            raise ServerError(f"{self.base}/v1/models answered HTTP {r.status}: " + self._key_words(), url=self.base,
                              phase="reading", hint=self._key_hint())
        if r.status != 200:
            raise ServerError(f"{self.base}/v1/models answered HTTP {r.status} ({_short(r.text, 160)!r}).",
                              url=self.base, phase="reading",
                              hint="Is this an OpenAI-compatible server? Its base URL is the part before /v1.")
        j = r.json()
        data = j.get("data") if isinstance(j, dict) else None
        if not isinstance(data, list):
            raise ServerError(f"{self.base}/v1/models answered, but not with a model list "
                              f"({_short(r.text, 160)!r}).", url=self.base, phase="reading",
                              hint="Point --url at the inference server itself, not a proxy or a web page.")
        out = []
        for m in data[:MAX_MODELS]:
            if not isinstance(m, dict) or not isinstance(m.get("id"), str):
                continue
            meta = m.get("meta") if isinstance(m.get("meta"), dict) else {}
            mml = _count(m.get("max_model_len")) or _count(meta.get("n_ctx"))
            out.append(ServedModel(id=m["id"][:MAX_TEXT], max_model_len=mml, owned_by=str(m.get("owned_by", ""))[:100],
                                   meta={k: v for k, v in meta.items() if isinstance(v, (int, float, str))}))
        if not out:
            raise ServerError(f"{self.base}/v1/models lists no model.", url=self.base, phase="reading",
                              hint="Wait until the server has loaded its model, or load one (Ollama: ollama run).")
        return out

    # -- readiness ----------------------------------------------------------------------------------------
    def wait_ready(self, *, timeout_s: float, ready_path: str | None = "/health", alive=None, on_wait=None,
                   refused_grace_s: float = 0.0) -> float:
        """Wait until the server answers: `ready_path` 200 (llama.cpp, vLLM and SGLang answer 503 while loading)
        and /v1/models lists a model. `alive()` -> False stops the wait (the launched server exited);
        on_wait(status_text, elapsed_s) is called while waiting. A refused connection is waited on only while a
        process is known (`alive` given) or for `refused_grace_s`. Returns the seconds waited. Raises ServerError."""
        start = time.monotonic()
        deadline = start + timeout_s
        last = "no answer yet"
        paths = [p for p in (ready_path, "/v1/models") if p]
        while True:
            now = time.monotonic()
            if alive is not None and not alive():
                raise ServerError(f"the server exited before it was ready (last: {last}).", url=self.base,
                                  phase="waiting", hint="Its log (kept with the results) says why.")
            try:
                r = self.http.get(self.url(paths[0]), timeout_s=min(5.0, max(0.5, deadline - now)))
                if r.status == 200 and len(paths) > 1:
                    r2 = self.http.get(self.url("/v1/models"), timeout_s=5.0)
                    if r2.status == 200:
                        return time.monotonic() - start
                    last = f"/v1/models answered HTTP {r2.status}"
                elif r.status == 200:
                    return time.monotonic() - start
                elif r.status == 404 and paths[0] != "/v1/models":  # no health route: the model list tells
                    paths = ["/v1/models"]
                    continue
                elif r.status in (401, 403):
                    raise ServerError(f"{self.base}{paths[0]} answered HTTP {r.status}: " + self._key_words(),
                                      url=self.base, phase="waiting", hint=self._key_hint())
                elif r.status in (404, 405) and paths[0] == "/v1/models":  # no model list here: not a loading server
                    raise ServerError(f"{self.base}/v1/models answered HTTP {r.status}: this is not an OpenAI-"
                                      "compatible server's base URL.", url=self.base, phase="waiting",
                                      hint="Give the part before /v1 (http://HOST:PORT), of the inference server "
                                           "itself.")
                else:
                    last = f"HTTP {r.status} {_short(r.text, 80)}".strip()
            except Unreachable as e:
                last = e.reason
                if e.kind in ("refused", "dns") and alive is None and now - start >= refused_grace_s:
                    raise ServerError(f"nothing answers at {self.base}: {e.reason}.", url=self.base, phase="waiting",
                                      hint=_hint(e)) from None
            if now >= deadline:
                raise ServerError(f"{self.base} was not ready after {timeout_s:.0f} s (last: {last}).", url=self.base,
                                  phase="waiting", hint="Raise --ready-timeout if the model takes longer to load.")
            if on_wait:
                on_wait(last, now - start)
            time.sleep(0.25)

    def _key_words(self) -> str:
        return "it refused the API key given." if self.has_key else "the server wants an API key."

    def _key_hint(self) -> str:
        return ("Check the key (--api-key, or VRAMDOCTOR_API_KEY)." if self.has_key else
                "Give it with --api-key (or VRAMDOCTOR_API_KEY).")

    # -- tokens -------------------------------------------------------------------------------------------
    def tokenize(self, text: str, model: str, endpoints: Endpoints | None) -> tuple[list[int], Tokenizer] | None:
        """The token ids of `text` through the first tokenize endpoint that answers (the engine's own, else every
        known shape), with the endpoint used; None when the server has none."""
        for t in _tokenizers(endpoints):
            try:
                r = self.http.post(self.url(t.path), t.body(text, model))
            except Unreachable:
                continue
            if r.status != 200:
                continue
            ids = t.read(r.json())
            if ids is not None:
                return ids, t
        return None

    def detokenize(self, ids: list[int], model: str, t: Tokenizer) -> str | None:
        if not t.detok_path or t.detok_body is None or t.detok_read is None:
            return None
        try:
            r = self.http.post(self.url(t.detok_path), t.detok_body(ids, model))
        except Unreachable:
            return None
        if r.status != 200:
            return None
        text = t.detok_read(r.json())
        return text if isinstance(text, str) else None

    # -- one completion -----------------------------------------------------------------------------------
    def complete(self, model: str, prompt: str, max_tokens: int, *, extras: dict | None = None,
                 chat: bool = False) -> Completion:
        """One streamed completion at temperature 0 (seed 0), `max_tokens` tokens (with the engine's `extras`,
        e.g. ignore_eos). Falls back to /v1/chat/completions when /v1/completions is not served, and to the
        plain request when the server refuses the extra fields. Never raises for the server's answers: a
        failure is the result's `error`."""
        path = "/v1/chat/completions" if chat else "/v1/completions"
        body: dict = {"model": model, "max_tokens": max_tokens, "temperature": 0, "seed": 0, "stream": True,
                      "stream_options": {"include_usage": True}, **(extras or {})}
        if chat:
            body["messages"] = [{"role": "user", "content": prompt}]
        else:
            body["prompt"] = prompt
        c = self._stream(path, body)
        if c.status in (400, 422) and (extras or "stream_options" in body):  # a strict server: the plain request
            plain = {k: v for k, v in body.items() if k not in ("stream_options", "seed", *(extras or {}))}
            c = self._stream(path, plain)
        if c.status in (404, 405) and not chat:
            return self.complete(model, prompt, max_tokens, extras=extras, chat=True)
        return c

    def _stream(self, path: str, body: dict) -> Completion:
        c = Completion(endpoint=path)
        t0 = time.monotonic()
        chunks, pieces, raw = 0, [], []
        done = False
        try:
            for t, status, line in self.http.stream(self.url(path), body, timeout_s=self.request_timeout_s):
                c.status = status
                if status != 200:
                    raw.append(line)
                    continue
                line = line.strip()
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    done = True
                    break
                try:
                    j = json.loads(data)
                except ValueError:
                    c.error = f"the stream held a line that is not JSON: {_short(data, 120)!r}"
                    break
                if not isinstance(j, dict):
                    continue
                if "error" in j:
                    err = j["error"]
                    c.error = _short(str(err.get("message", err) if isinstance(err, dict) else err), MAX_TEXT)
                    break
                usage = j.get("usage")
                if isinstance(usage, dict):
                    c.prompt_tokens = _count(usage.get("prompt_tokens"))
                    c.completion_tokens = _count(usage.get("completion_tokens"))
                    c.usage_source = "server"
                for ch in j.get("choices") or []:
                    if not isinstance(ch, dict):
                        continue
                    piece = ch.get("text")
                    if piece is None and isinstance(ch.get("delta"), dict):
                        piece = ch["delta"].get("content")
                    if isinstance(piece, str) and piece:
                        if c.ttft_s is None:
                            c.ttft_s = t - t0
                        chunks += 1
                        if sum(map(len, pieces)) < 1 << 20:
                            pieces.append(piece)
                    if ch.get("finish_reason"):
                        c.finish_reason = str(ch["finish_reason"])[:40]
        except Unreachable as e:
            c.error = f"the request failed: {e.reason}"
        c.total_s = time.monotonic() - t0
        c.text = "".join(pieces)
        if c.status is not None and c.status != 200:
            c.error = f"HTTP {c.status}: {_short(' '.join(raw), MAX_TEXT) or 'no message'}"
        elif c.status is None and c.error is None:
            c.error = "the server closed the connection without answering"
        elif c.error is None and not done and c.finish_reason is None:
            c.error = "the stream broke off: neither a finish_reason nor [DONE] came (did the server die?)"
        if c.completion_tokens is None and chunks:
            c.completion_tokens, c.usage_source = chunks, "stream chunks"
        return c


def _tokenizers(endpoints: Endpoints | None) -> list[Tokenizer]:
    """The engine's tokenize endpoints, else every engine's (an unrecognised server may still have one)."""
    if endpoints is not None and endpoints.tokenizers:
        return list(endpoints.tokenizers)
    from ..engines import all_engines

    seen, out = set(), []
    for e in all_engines():
        for t in (e.endpoints.tokenizers if e.endpoints else ()):
            if t.path not in seen:
                seen.add(t.path)
                out.append(t)
    return out


def _hint(e: Unreachable) -> str:
    if e.kind == "refused":
        return ("Is the server running, and on this port? While vLLM and llama-cpp-python load the model their port "
                "is closed: give --pid (or start it with --serve) and vramdoctor waits.")
    if e.kind == "dns":
        return "Check the host name in --url."
    if e.kind == "timeout":
        return "The server accepts connections but does not answer: is it stuck, or busy loading?"
    return "Check --url."
