"""Which engine serves a URL, and its own view of its KV pool (endpoints first, else its log), through the
engine modules' `Endpoints` (one home per engine). The HTTP is the client's; the reading is the engines'."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engines import all_engines, get
from ..engines.interface import Engine, KvView

#: engines whose answers are the most specific first: Ollama and llama-server also answer /v1/models,
#: SGLang and TGI before vLLM (whose /version alone proves little)
ORDER = ("ollama", "llamacpp", "llama-cpp-python", "sglang", "tgi", "vllm")


def identify(client, override: str | None = None) -> tuple[Engine | None, str | None]:
    """(engine, version) of the server behind `client` (server.client.Client); (None, None) when no engine's
    endpoints answer as its own. override: an engine name (--engine) taken as given, its version still read."""
    if override:
        e = get(override)
        if e.endpoints is None:
            return e, None
        v = e.endpoints.recognise(client.answers(e.endpoints.identify))
        return e, (v or None)
    engines = {e.name: e for e in all_engines() if e.endpoints is not None}
    ordered = [engines[n] for n in ORDER if n in engines] + [e for n, e in engines.items() if n not in ORDER]
    paths = tuple(dict.fromkeys(p for e in ordered for p in e.endpoints.identify))
    answers = client.answers(paths)
    for e in ordered:
        v = e.endpoints.recognise(answers)
        if v is not None:
            return e, (v or None)
    return None, None


@dataclass(kw_only=True)
class Pool:
    """The KV pool as the engine states it: bytes and tokens (None: not stated, `reason` says what would settle
    it), where each came from, and every figure read."""

    bytes_: int | None = None
    tokens: int | None = None
    source: str = ""
    reason: str = ""
    figures: dict = field(default_factory=dict)


def _log_pool(numbers: dict, derived: dict) -> tuple[int | None, int | None, str]:
    """The pool in a log's figures (logs.diagnose): llama.cpp's KV buffers (summed over devices), vLLM's
    'Available KV cache memory' and 'GPU KV cache size', SGLang's K + V sizes and #tokens."""
    by_dev = numbers.get("kv_buffer_bytes_by_device")
    bytes_ = None
    source = ""
    if isinstance(by_dev, dict) and by_dev:
        bytes_, source = sum(by_dev.values()), "the log's KV buffer lines"
    elif derived.get("kv_pool_bytes") or numbers.get("kv_pool_bytes"):
        v = derived.get("kv_pool_bytes") or numbers.get("kv_pool_bytes")
        bytes_ = sum(v) if isinstance(v, list) else v
        source = "the log's KV cache size line"
    tokens = (numbers.get("kv_cells_in_all") or numbers.get("kv_pool_tokens") or derived.get("kv_pool_tokens")
              or numbers.get("kv_cells"))
    if isinstance(tokens, list):
        tokens = sum(tokens)
    return (int(bytes_) if isinstance(bytes_, (int, float)) and bytes_ >= 0 else None,
            int(tokens) if isinstance(tokens, (int, float)) and tokens >= 0 else None, source)


def pool(engine: Engine | None, view: KvView | None, log_numbers: dict | None, log_derived: dict | None,
         bytes_per_token: int | None, *, dtype_known: bool = True) -> Pool:
    """The pool from the engine's endpoint view, the log's figures, and (for bytes) the estimate's bytes per
    token of the engine's pool, in that order of trust. A log whose pool is not the live server's size is another
    run's and is not used. dtype_known: the KV cache's type is shown (the log, the endpoint, the command the
    probe started): else tokens x bytes per token would be a guess at the type, and no bytes are given."""
    p = Pool()
    if view is not None:
        p.figures = dict(view.figures)
        p.tokens = view.tokens
        p.bytes_ = view.bytes_
        p.source = view.source
    lb, lt, lsource = _log_pool(log_numbers or {}, log_derived or {})
    if lt is not None and view is not None and (view.tokens is not None or view.candidates) \
            and lt != view.tokens and lt not in view.candidates:
        # the log's pool is another size than the live server's: another run's log (a restart, another -c)
        p.reason = (f"the log's KV pool ({lt:,} tokens) is not the live server's "
                    f"({view.tokens or ' or '.join(f'{c:,}' for c in view.candidates)} tokens): it is another run's log")
        lb = lt = None
        log_numbers = {}
        stale = True
    else:
        stale = False
    unified = (log_numbers or {}).get("kv_unified")
    if p.tokens is None and view is not None and len(view.candidates) == 2 and isinstance(unified, bool):
        p.tokens = view.candidates[1] if unified else view.candidates[0]  # (cells x slots, cells): llama.cpp's
        p.source = (p.source + "; " if p.source else "") + f"kv_unified = {str(unified).lower()} in the log"
    if p.tokens is None and lt is not None:
        if view is None or not view.candidates or lt in view.candidates:
            p.tokens = lt
            p.source = (p.source + "; " if p.source else "") + "tokens from the log"
    if p.bytes_ is None and lb is not None:
        p.bytes_ = lb
        p.source = (p.source + "; " if p.source else "") + f"bytes from {lsource}"
    if p.bytes_ is None and p.tokens is not None and bytes_per_token and not dtype_known:
        p.reason = ("the KV cache's type is not shown (an 8-bit cache is half the bytes): give the server's log "
                    "(--log) of a run that prints its KV lines, or let the probe start it (--serve)")
    if p.bytes_ is None and p.tokens is not None and bytes_per_token and dtype_known:
        p.bytes_ = p.tokens * bytes_per_token
        p.source = (p.source + "; " if p.source else "") + "bytes = the engine's tokens x the estimate's bytes per token"
    if p.bytes_ is None:
        why = [p.reason] if p.reason else []
        if view is not None and view.note and (p.tokens is None or not view.candidates):
            why.append(view.note)
        if engine is None:
            why.append("the engine is not recognised")
        if log_numbers is None:
            why.append("no log was given (--log FILE)")
        elif lb is None and not stale:
            why.append("the log has no KV pool line")
        if p.tokens is not None and not bytes_per_token:
            why.append("its bytes per token are not known (give --model)")
        p.reason = "; ".join(why) or "the engine does not state its pool"
    return p


def setting_from_args(engine: Engine, key: str, args: list[str]) -> str | None:
    """A setting (`kv_cache_dtype`, ...) from the command line that started the server, read with the engine's own
    log figures for pasted command lines (one home per engine); None when the command does not set it."""
    from ..engines import get

    line = " " + " ".join(args)
    engines = [engine] + ([get(engine.wraps)] if engine.wraps else [])
    for e in engines:
        for f in e.log.figures:
            if f.key == key:
                m = f.pattern.search(line)
                if m:
                    try:
                        v = f.read(m)
                    except (ValueError, IndexError):
                        continue
                    if isinstance(v, str) and v:
                        return v
    return None
