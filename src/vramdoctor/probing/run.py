"""The probe's protocol: reading A before the server starts (when vramdoctor starts it), B once it answers and
before any request, one request per tier with the peak during it and a reading after it, D after a rest; the
engine's own pool; then the analysis and the estimate beside it.

Whatever fails (the server is not running, never answers, dies, answers garbage or an HTTP error; the memory
source fails), what was measured up to then is kept in the result, with `error` saying what failed.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from ..errors import LaunchError, ServerError, SourceUnavailable, UsageError, VramdoctorError
from . import analysis
from .result import DeviceSummary, ProbeResult, Tier

DEFAULT_TIERS = (128, 2048, 8192)
DEFAULT_OUTPUT_TIERS = (64, 256, 1024)
#: the most of a server's log read for its pool and settings (its start-up is at its head)
LOG_HEAD_BYTES = 16 * 2**20
#: the most points of the timeline kept in the result (the plot's resolution)
TIMELINE_POINTS = 2000


@dataclass(kw_only=True)
class ProbeOptions:
    """What to probe and how. url: the server's base URL. tiers: prompt lengths (tokens), each sent with
    output_tiers[0] as max_tokens; output_tiers: max_tokens values, each sent with the shortest prompt.
    rest_s: seconds idle before reading D. interval_s: the sampler's interval. source: a measure.SOURCES name.
    serve: a command to start the server (vramdoctor stops it after); pid: the server's PID (else the process
    listening on the URL's port, when the URL is local). log: the server's log (the engine's pool and settings).
    model: the model to estimate (anything `estimate` takes; default: the one the server names, where it is a
    local file or folder). limit_bytes: the memory to hold the readings against (default: the devices').
    settle_s: seconds the baseline is read over once the server answers."""

    url: str
    tiers: tuple[int, ...] = DEFAULT_TIERS
    output_tiers: tuple[int, ...] = DEFAULT_OUTPUT_TIERS
    rest_s: float = 30.0
    interval_s: float = 0.02
    source: str = "auto"
    serve: str | list[str] | None = None
    pid: int | None = None
    log: str | None = None
    model: str | None = None
    served_model: str | None = None
    engine: str | None = None
    api_key: str | None = None
    ready_timeout_s: float = 600.0
    request_timeout_s: float = 600.0
    settle_s: float = 2.0
    devices: list[int] | None = None
    dcgm_urls: list[str] = field(default_factory=list)
    limit_bytes: int | None = None
    results_dir: str | None = None
    memory_limit_bytes: int | None = None


def _check(o: ProbeOptions) -> list[str]:
    """Refuse bad options before anything starts (UsageError); return notes on what was adjusted."""
    notes = []
    try:
        parts = urlsplit(o.url)
        port = parts.port
    except ValueError:
        raise UsageError(f"'{o.url}' is not an http(s) URL.", option="--url", hint="Give e.g. http://127.0.0.1:8000.") \
            from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"'{o.url}' is not an http(s) URL.", option="--url", hint="Give e.g. http://127.0.0.1:8000.")
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):  # an OpenAI base_url: the server's own paths are below the part before /v1
        o.url = o.url.split("?")[0].rstrip("/")[: -len("/v1")]
        notes.append("--url ended in /v1 (an OpenAI client's base_url): the server's base URL is the part before it")
    for name, tiers in (("--tiers", o.tiers), ("--output-tiers", o.output_tiers)):
        if not tiers:
            raise UsageError("at least one value is needed.", option=name)
        for t in tiers:
            if not 1 <= t <= 1 << 21:
                raise UsageError(f"{t} tokens is out of range (1 to 2,097,152).", option=name)
    if o.pid is not None and o.pid <= 0:
        raise UsageError(f"{o.pid} is not a process ID.", option="--pid")
    if o.devices is not None and any(d < 0 for d in o.devices):
        raise UsageError("device indices are 0 or more.", option="--devices")
    if o.serve is not None:
        from ..server.launch import split_command

        if not str(o.serve).strip():
            raise UsageError("the server command is empty.", option="--serve", hint="Give the server's command line.")
        args = split_command(o.serve)
        if not any("{port}" in a for a in args) and not any(str(port or "") and str(port) in a for a in args):
            raise UsageError("the server command does not listen on the URL's port.", option="--serve",
                             hint="Put {port} where the server's port goes (it becomes the URL's port).")
    if o.log:
        from ..errors import ModelSourceError
        from ..sources.files import open_regular

        try:
            f, _size = open_regular(Path(o.log), what="log")
            f.close()
        except ModelSourceError as e:
            raise UsageError(f"cannot read the log: {e.message}", option="--log",
                             hint="Give the server's log file.") from None
    if not 0 <= o.rest_s <= 86400:
        raise UsageError("must be between 0 and 86400 seconds.", option="--rest")
    if not 0.001 <= o.interval_s <= 60:
        raise UsageError("must be between 0.001 and 60 seconds.", option="--interval")
    if o.source == "dcgm" and not o.dcgm_urls:
        raise UsageError("the dcgm source needs the exporter's URL.", option="--dcgm-url",
                         hint="Give --dcgm-url http://HOST:9400/metrics.")
    from ..measure import SOURCES

    if o.source not in SOURCES:
        raise UsageError(f"unknown source '{o.source}'.", option="--source", hint="Use one of: " + ", ".join(SOURCES))
    if o.source in ("nvml", "nvidia-smi", "amdsmi"):  # a named GPU source: known to work before a server starts
        from ..measure import open_source

        src, _ = open_source(o.source, tree=None, devices=o.devices)
        src.close()
    if o.model:
        from ..sources import load_model

        try:
            load_model(o.model)
        except VramdoctorError as e:
            raise UsageError(f"cannot read the model: {e}", option="--model") from None
    return notes


def _shown_url(url: str) -> str:
    """The URL without a password in it (`http://user:secret@host` is shown as `http://user:***@host`)."""
    parts = urlsplit(url.rstrip("/"))
    if parts.password:
        netloc = parts.netloc.replace(":" + parts.password + "@", ":***@")
        return parts._replace(netloc=netloc).geturl()
    return url.rstrip("/")


def _local(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host in ("localhost", "127.0.0.1", "::1", "0.0.0.0") or host.startswith("127.")


def _port(url: str) -> int:
    p = urlsplit(url)
    return p.port or (443 if p.scheme == "https" else 80)


def _requests(o: ProbeOptions) -> list[tuple[int, int]]:
    """(prompt tokens, max_tokens) of each request: every prompt tier at the first output tier, then every
    further output tier at the shortest prompt."""
    out0 = o.output_tiers[0]
    reqs = [(p, out0) for p in o.tiers]
    reqs += [(min(o.tiers), m) for m in o.output_tiers[1:] if (min(o.tiers), m) not in reqs]
    return reqs


class Progress:
    """What the probe is doing, for a live line (the CLI's) or nothing."""

    def __init__(self, fn: Callable[[str], None] | None = None) -> None:
        self.fn = fn

    def __call__(self, text: str) -> None:
        if self.fn:
            self.fn(text)


def probe(options: ProbeOptions, *, progress: Callable[[str], None] | None = None) -> ProbeResult:
    """Run the probe. Returns the result; `result.error` says what failed if something did (the readings taken
    up to then are kept). Raises UsageError for bad options, KeyboardInterrupt after stopping everything (the
    partial result is on the exception's `result` attribute)."""
    notes = _check(options)
    say = Progress(progress)
    r = ProbeResult(url=_shown_url(options.url), interval_s=options.interval_s, notes=notes)
    from ..server.client import Client

    client = Client(options.url, api_key=options.api_key, request_timeout_s=options.request_timeout_s)
    state = _State(options, r, client, say)
    try:
        state.run()
    except KeyboardInterrupt as e:
        r.error = "interrupted (Ctrl-C or a signal): the readings so far are kept"
        state.finish()
        e.result = r  # type: ignore[attr-defined]
        raise
    except (ServerError, SourceUnavailable, LaunchError) as e:
        r.error = str(e)
    except VramdoctorError as e:
        r.error = str(e)
    except (OSError, ValueError, RuntimeError) as e:  # the last line of defence: the readings are kept
        r.error = f"internal error ({type(e).__name__}: {e}); the readings so far are kept. Re-run with --debug."
    finally:
        state.finish()
        client.close()
    if r.error is None:
        failed = [t for t in r.tiers if t.error]
        if failed:
            r.error = (f"{len(failed)} of {len([t for t in r.tiers if not t.skipped])} requests failed; the first: "
                       f"{failed[0].error}")
    return r


class _State:
    """One probe's moving parts (launched server, process tree, source, sampler) and its steps in order."""

    def __init__(self, o: ProbeOptions, r: ProbeResult, client, say: Progress) -> None:
        self.o, self.r, self.client, self.say = o, r, client, say
        self.launched = None
        self.tree = None
        self.source = None
        self.sampler = None
        self.engine = None
        self.rest_points: list[tuple[float, int]] = []
        self.after_last: int | None = None
        self.log_numbers: dict | None = None
        self.log_derived: dict | None = None
        self.finished = False

    # -- steps ----------------------------------------------------------------------------------------
    def run(self) -> None:
        o, r = self.o, self.r
        if o.serve is not None:
            self._reading_a()
            self._launch()
        self._wait()
        self._watch()
        self._identify()
        self._baseline()
        self._engine_pool()
        self._tiers()
        self._rest()
        r.complete = True

    def _reading_a(self) -> None:
        """Reading A: the devices before the server starts (device basis: nothing of the server exists yet)."""
        from ..measure import open_source

        try:
            src, _ = open_source(self.o.source if self.o.source != "psutil" else "auto", tree=None,
                                 devices=self.o.devices, dcgm_urls=self.o.dcgm_urls or None, http_get=self._get)
        except SourceUnavailable:
            return  # no device source (a CPU machine): A is the absence of the server, 0 of its own memory
        try:
            self.r.reading_a_bytes = src.read().measured("device")
        except SourceUnavailable:
            pass
        finally:
            src.close()

    def _launch(self) -> None:
        from ..server.launch import launch, split_command

        args = [a.replace("{port}", str(_port(self.o.url))) for a in split_command(self.o.serve)]
        folder = Path(self.o.results_dir or ".")
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"'{folder}' is not a folder.", option="--results-dir")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"cannot create the folder '{folder}' ({e.strerror}).", option="--results-dir") from None
        # one name per probe, never reused: two probes started in the same second must not share a log
        log_path = folder / f"probe-server-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{_port(self.o.url)}.log"
        n = 1
        while log_path.exists():
            n += 1
            log_path = log_path.with_name(f"{log_path.stem.rsplit('.', 1)[0]}.{n}.log")
        self.say(f"starting the server: {' '.join(args)[:120]}")
        self.launched = launch(args, log_path, memory_limit_bytes=self.o.memory_limit_bytes)
        self.r.log_path = str(log_path)
        self.r.pid = self.launched.pid

    def _wait(self) -> None:
        alive = None
        if self.launched is not None:
            alive = self.launched.alive
        elif self.o.pid is not None:
            from ..measure.host import ProcessTree

            self.tree = ProcessTree(self.o.pid)
            self.r.pid = self.o.pid
            alive = self.tree.alive
        ready = None
        if self.o.engine:
            from ..engines import get

            e = get(self.o.engine)
            ready = e.endpoints.ready if e.endpoints else None
        start = time.monotonic()

        def waiting(status: str, elapsed: float) -> None:
            self.say(f"waiting for the server ({elapsed:.0f} s): {status}")

        self.client.wait_ready(timeout_s=self.o.ready_timeout_s, ready_path=ready or "/health", alive=alive,
                               on_wait=waiting, refused_grace_s=1.0)
        self.r.notes.append(f"the server answered after {time.monotonic() - start:.1f} s")
        if self.launched is not None:
            time.sleep(0.2)
            if not self.launched.alive():  # another process answered at the URL while ours died
                raise ServerError(f"the server vramdoctor started exited ({self.launched.returncode}), yet something "
                                  f"answers at {self.r.url}: another server holds the port.", url=self.r.url,
                                  phase="waiting", hint="Stop the other server, or probe another port.")

    def _watch(self) -> None:
        """The process tree (launched, --pid, or the listener of a local port), the source, and the sampler."""
        from ..measure import open_source
        from ..measure.host import ProcessTree, listening_pid
        from ..measure.sampler import Sampler

        from ..measure.host import describe, in_tree, is_proxy

        listener = None
        if _local(self.o.url):
            listener, why = listening_pid(_port(self.o.url))
        if self.tree is None:
            pid = self.launched.pid if self.launched is not None else listener
            if pid is None and _local(self.o.url):
                self.r.notes.append(f"the server's process is not known: {why}")
            if pid is not None:
                try:
                    self.tree = ProcessTree(pid)
                    self.r.pid = pid
                except SourceUnavailable as e:
                    self.r.notes.append(e.reason)
        elif not _local(self.o.url):
            self.r.notes.append("--pid names a process on this machine but --url is remote: is it the same server?")
        if self.r.pid is not None:
            self.r.process = describe(self.r.pid)
            proxy = is_proxy(self.r.pid)
            if proxy:
                self.r.notes.append(f"the process listening on the port is {proxy}, a proxy: its memory is not the "
                                    "server's; give --pid of the server itself, or a device source (--source nvml)")
            if listener is not None and not in_tree(self.r.pid, listener):
                if self.launched is not None:
                    raise ServerError(f"another process ({describe(listener)}) listens on the URL's port, not the "
                                      "server vramdoctor started.", url=self.r.url, phase="waiting",
                                      hint="Stop the other server, or probe another port.")
                self.r.notes.append(f"PID {self.r.pid} is not the process listening on the URL's port (that is "
                                    f"{describe(listener)}): the memory measured may be another server's")
        self.source, notes = open_source(self.o.source, tree=self.tree, devices=self.o.devices,
                                         dcgm_urls=self.o.dcgm_urls or None, http_get=self._get)
        self.r.source = self.source.info.name
        self.r.source_notes = list(self.source.info.notes) + notes
        self.sampler = Sampler(self.source, interval_s=self.o.interval_s).start()
        self.torch = None
        if self.r.pid == os.getpid():  # the server runs in this process: PyTorch's own counters are there
            from ..measure.torch_alloc import TorchSource

            try:
                self.torch = TorchSource(self.o.devices)
                self.r.notes.append("PyTorch's allocator counters in this process give each request's exact peak")
            except SourceUnavailable:
                self.torch = None

    def _get(self, url: str):
        return self.client.http.get(url)

    def _identify(self) -> None:
        from .engine_view import identify

        self.engine, version = identify(self.client, self.o.engine)
        self.r.engine = self.engine.name if self.engine else None
        if version and re.match(r"b?0-unknown$|0\.0\.0", version):  # a build made without its git history
            self.r.notes.append(f"the server's build carries no version ({version})")
            version = None
        self.r.engine_version = version
        models = self.client.models()
        chosen = models[0]
        if self.o.served_model:
            named = [m for m in models if m.id == self.o.served_model]
            if not named:
                raise ServerError(f"the server does not serve '{self.o.served_model}' (it serves "
                                  f"{', '.join(m.id for m in models[:5])}).", url=self.r.url, phase="reading")
            chosen = named[0]
        elif len(models) > 1:
            self.r.notes.append(f"the server lists {len(models)} models; probing the first, {chosen.id}")
        self.r.served_model = chosen.id
        self.r.max_model_len = chosen.max_model_len

    def _baseline(self) -> None:
        """Reading B: the last reading after `settle_s` of readings, once memory stops moving (bounded)."""
        self.say("reading the baseline")
        s = self.sampler
        deadline = time.monotonic() + max(self.o.settle_s, 0.2) * 5
        while self.o.interval_s < self.o.settle_s:  # (readings slower than the settling time: no settling to see)
            time.sleep(max(self.o.settle_s, 0.2))
            tl = [(t, b) for t, b in s.timeline(self._basis()) if t >= time.monotonic() - self.o.settle_s]
            if len(tl) >= 2 and max(b for _, b in tl) - min(b for _, b in tl) <= analysis.tolerance(tl[-1][1]):
                break
            if time.monotonic() >= deadline:
                self.r.notes.append("memory was still moving when the baseline was read")
                break
        reading = s.read_now()
        s.mark("B")
        self._decide_basis(reading)
        self.r.baseline_bytes = reading.measured(self.r.basis, self._devices())
        self.baseline_reading = reading

    def _basis(self) -> str:
        return self.r.basis or self.source.info.basis

    def _decide_basis(self, reading) -> None:
        """The process tree's own memory where the source gives it and the tree holds some; else the devices'."""
        basis = self.source.info.basis
        if basis == "process":
            own = reading.measured("process")
            notes = sorted({d.process_note for d in reading.devices if d.process_note})
            if own is None or (own == 0 and self.r.source != "psutil"):
                if reading.measured("device") is not None:
                    basis = "device"
                    self.r.notes.append("the server's own share is not available"
                                        + (f" ({notes[0]})" if notes else " (it holds no memory on the devices read)")
                                        + ": each device's whole use is measured, other processes' included")
        self.r.basis = basis
        if basis == "process":
            used = {d.index for d in reading.devices if (d.process_bytes or 0) > 0}
            self.used_devices = used or None
        else:
            self.used_devices = None

    def _devices(self) -> set[int] | None:
        return getattr(self, "used_devices", None)

    def _engine_pool(self) -> None:
        from .engine_view import pool

        view = None
        e = self.engine
        if e is not None and e.endpoints is not None and e.endpoints.kv_view is not None:
            view = e.endpoints.kv_view(self.client.answers(e.endpoints.kv_paths))
        self._read_log()
        dtype = self._kv_dtype(view)
        self.estimate = self._estimate(view, dtype)
        per_token = self.estimate.engine_kv_bytes_per_token if self.estimate is not None else None
        p = pool(e, view, self.log_numbers, self.log_derived, per_token, dtype_known=dtype is not None)
        self.cells_settled = not (view is not None and view.candidates and p.tokens is None)
        self.pool_measured = "estimate" not in p.source
        self.r.engine_kv_pool_bytes = p.bytes_
        self.r.engine_kv_pool_tokens = p.tokens
        self.r.engine_kv_pool_source = p.source
        self.r.engine_kv_pool_bytes_reason = p.reason
        self.r.engine_kv_figures = p.figures
        if p.bytes_ is not None and self.r.baseline_bytes is not None:
            if p.bytes_ <= self.r.baseline_bytes:
                self.r.weights_plus_overhead_bytes = self.r.baseline_bytes - p.bytes_
            else:
                self.r.notes.append("the engine's pool is larger than the baseline measured: the source does not "
                                    "see all of the server's memory (another device, or a basis that leaves it out)")

    def _kv_dtype(self, view) -> str | None:
        """The KV cache's type as shown: the log, the engine's endpoint, the command the probe started (where a
        flag it does not carry means the engine's default); None when nothing shows it."""
        n = self.log_numbers or {}
        for v in (n.get("kv_cache_dtype"), n.get("cache_type_k"), (view.figures if view else {}).get("cache_dtype"),
                  (view.figures if view else {}).get("kv_cache_dtype")):
            if isinstance(v, str) and v:
                return v.lower()
        if self.launched is not None and self.engine is not None:
            from .engine_view import setting_from_args

            return (setting_from_args(self.engine, "kv_cache_dtype", self.launched.args) or "auto").lower()
        return None

    def _read_log(self) -> None:
        path = self.o.log or self.r.log_path
        if not path:
            return
        from ..logs import diagnose
        from ..logs.scan import numbered

        try:  # the start-up lines are at its head: a server that logs every request must not stall the probe
            with open(path, "rb") as f:
                head = f.read(LOG_HEAD_BYTES)
            cut = len(head) == LOG_HEAD_BYTES
            lines = head.decode("utf-8", errors="replace").splitlines()
            if cut and lines:
                lines.pop()  # a line cut by the limit
                self.r.notes.append(f"the log's first {LOG_HEAD_BYTES // 2**20} MiB were read for the pool and settings")
            rep = diagnose(numbered(lines))
        except (OSError, VramdoctorError) as e:
            self.r.notes.append(f"the log could not be read: {e}")
            return
        if not rep.runs:
            return
        run = rep.runs[-1]
        self.log_numbers, self.log_derived = dict(run.numbers), dict(run.derived)
        if self.engine is None and rep.engine not in ("unknown", "generic", ""):
            from ..engines import get

            try:
                self.engine = get(rep.engine)
                self.r.engine = self.engine.name
                self.r.notes.append(f"the engine was told by its log ({rep.engine})")
            except VramdoctorError:
                pass
        if not self.r.engine_version and self.log_numbers.get("engine_version"):
            self.r.engine_version = str(self.log_numbers["engine_version"])

    def _estimate(self, view, dtype: str | None):
        """The estimate for the server's settings, or None with `estimate_reason`."""
        from .against import settings_for

        ref = self.o.model
        figures = dict(view.figures) if view is not None else {}
        if ref is None:
            ref = self._server_model_file(figures.get("model_path") or self.r.served_model)
        if ref is None:
            self.r.estimate_reason = ("the model is not known here: give --model (a folder, config.json, .gguf "
                                      "or Hub id)")
            return None
        try:
            from ..estimate import estimate
            from ..sources import load_model

            spec = load_model(ref)
            numbers = dict(self.log_numbers or {})
            if dtype and dtype != "auto":
                numbers.setdefault("kv_cache_dtype", dtype)
            s, rules = settings_for(self.r.engine or "generic", max_model_len=self.r.max_model_len, figures=figures,
                                    log_numbers=numbers)
            total = self.baseline_reading.total_bytes or (80 * 2**30)
            n_dev = max(1, len(self.baseline_reading.devices))
            est = estimate(spec, engine=rules, settings=s, gpu_bytes=max(1, total // n_dev), gpu_name=self.r.source)
        except VramdoctorError as e:
            self.r.estimate_reason = f"the estimate could not be made: {e}"
            return None
        self.r.estimate = est.to_dict()
        return est

    def _server_model_file(self, named) -> str | None:
        """The model file the server names, where it is on this machine: a relative path is the server's, so it
        is resolved in the server's own folder (its cwd), never in vramdoctor's."""
        if not isinstance(named, str) or not named or len(named) > 4096:
            return None
        path = Path(named)
        if not path.is_absolute():
            from ..measure.host import process_cwd

            cwd = process_cwd(self.r.pid) if self.r.pid is not None and _local(self.o.url) else None
            if cwd is None:
                return None
            path = Path(cwd) / path
        try:
            return str(path) if path.exists() else None
        except (OSError, ValueError):  # a name too long for a path, a NUL in it
            return None

    def _tiers(self) -> None:
        from .prompts import build

        model = self.r.served_model or ""
        extras = dict(self.engine.endpoints.completion_extras) if self.engine and self.engine.endpoints else {}
        eps = self.engine.endpoints if self.engine else None
        tok_cache: dict[str, int | None] = {}
        tokenizer = [None]

        def count(text: str) -> int | None:
            if text in tok_cache:
                return tok_cache[text]
            got = self.client.tokenize(text, model, eps)
            tok_cache[text] = None if got is None else len(got[0])
            return tok_cache[text]

        if self.client.tokenize("probe", model, eps) is None:
            tokenizer[0] = None
            self.r.notes.append("the server has no tokenize endpoint that answers in a known shape: prompt lengths "
                                "are approximate (4 characters a token); the counts shown are the server's own")
            counter = None
        else:
            counter = count
        ctx = self.r.max_model_len
        for i, (n, max_tokens) in enumerate(_requests(self.o)):
            tier = Tier(target_prompt_tokens=n, max_tokens=max_tokens)
            self.r.tiers.append(tier)
            if ctx and n + max_tokens > ctx:
                tier.skipped = f"{n} + {max_tokens} tokens exceed the server's context of {ctx}"
                continue
            self.say(f"request {i + 1}: {n} prompt tokens, {max_tokens} max_tokens")
            prompt = build(n, counter, salt=i)
            tier.prompt_exact = prompt.exact
            try:
                tier.before_bytes = self.sampler.read_now().measured(self.r.basis, self._devices())
            except SourceUnavailable:
                tier.before_bytes = None
            before = None
            if self.torch is not None:
                before = self.torch.counters()
                self.torch.reset_peak()
            with self.sampler.window(f"request {i + 1}") as w:
                c = self.client.complete(model, prompt.text, max_tokens, extras=extras)
                time.sleep(0.5)  # what the request leaves in its wake belongs to it (a cache written at its end)
            basis = self.r.basis
            counted_peak = None
            if self.torch is not None and before is not None:
                after = self.torch.counters()
                rise = sum(max(0, a.peak_allocated_bytes - b.allocated_bytes) for a, b in zip(after, before))
                counted_peak = (self.r.baseline_bytes or 0) + rise
                self.r.allocator += [{"request": i + 1, "device": a.device, "allocated_bytes": a.allocated_bytes,
                                      "reserved_bytes": a.reserved_bytes,
                                      "peak_allocated_bytes": a.peak_allocated_bytes, "cached_bytes": a.cached_bytes}
                                     for a in after]
            tier.prompt_tokens, tier.completion_tokens = c.prompt_tokens or prompt.counted_tokens, c.completion_tokens
            tier.ttft_s, tier.total_s, tier.finish_reason = c.ttft_s, c.total_s, c.finish_reason
            tier.usage_source, tier.error = c.usage_source, c.error
            tier.peak_bytes = w.peak[basis] if self._devices() is None else _sum(w.device_peak[basis], self._devices())
            if counted_peak is not None and (tier.peak_bytes is None or counted_peak > tier.peak_bytes):
                tier.peak_bytes = counted_peak  # a peak counter beats any sampling
            start = tier.before_bytes if tier.before_bytes is not None else self.r.baseline_bytes
            if tier.peak_bytes is not None and start is not None:
                tier.increment_bytes = max(0, tier.peak_bytes - start)
            if tier.peak_bytes is not None and self.r.baseline_bytes is not None:
                tier.above_baseline_bytes = max(0, tier.peak_bytes - self.r.baseline_bytes)
            if c.error is None and tier.completion_tokens is not None and tier.completion_tokens < max_tokens:
                self.r.notes.append(f"request {i + 1} stopped at {tier.completion_tokens} of {max_tokens} tokens "
                                    f"({c.finish_reason or 'no reason given'}): "
                                    + ("the engine does not take ignore_eos, so" if not extras.get("ignore_eos") else
                                       "so") + " its output tier is shorter than asked")
            try:
                tier.after_bytes = self.sampler.read_now().measured(basis, self._devices())
            except SourceUnavailable as e:
                tier.error = (tier.error + "; " if tier.error else "") + f"no reading after it: {e.reason}"
            self.after_last = tier.after_bytes
            if c.error and not self._server_alive(grace=True):
                raise ServerError(f"the server died during request {i + 1} ({c.error}).", url=self.r.url,
                                  phase="request", hint="Its log says why: `vramdoctor logs "
                                  + (self.r.log_path or "SERVER.log") + "`.")

    def _server_alive(self, grace: bool = False) -> bool:
        """grace: after a failed request, give a server vramdoctor launched a few seconds to finish exiting."""
        if self.launched is not None:
            return self.launched.alive_after() if grace else self.launched.alive()
        if self.tree is not None:
            return self.tree.alive()
        try:
            self.client.get("/v1/models", timeout_s=3.0)
            return True
        except ServerError:
            return False

    def _rest(self) -> None:
        o = self.o
        start = time.monotonic()
        self.sampler.mark("rest")
        while time.monotonic() - start < o.rest_s:
            left = o.rest_s - (time.monotonic() - start)
            self.say(f"resting {left:.0f} s before the last reading")
            time.sleep(min(1.0, max(0.0, left)))
            if not self._server_alive():
                raise ServerError("the server exited during the rest.", url=self.r.url, phase="rest")
        d = self.sampler.read_now()
        self.sampler.mark("D")
        self.r.rest_s = o.rest_s
        self.r.rest_bytes = d.measured(self.r.basis, self._devices())
        self.rest_points = [(t, b) for t, b in self.sampler.timeline(self.r.basis) if t >= start]

    # -- the end, whatever happened ----------------------------------------------------------------------
    def finish(self) -> None:
        if self.finished:
            return
        self.finished = True
        r = self.r
        try:
            if self.sampler is not None:
                self.sampler.stop()
        finally:
            if self.launched is not None:
                self.say("stopping the server")
                rc = self.launched.stop()
                if rc not in (None, 0, -15, -9):
                    r.notes.append(f"the server exited with {rc}")
            if self.source is not None:
                self.source.close()
        if self.sampler is not None:
            self._summarise()

    def _summarise(self) -> None:
        r, s = self.r, self.sampler
        basis = r.basis or (self.source.info.basis if self.source else "process")
        r.basis = basis
        r.samples = s.readings
        r.achieved_interval_s = s.achieved_interval_s
        r.sampler_cpu_s = s.cpu_s
        if s.failures:
            r.notes.append(f"{s.failures} readings failed (last: {s.last_failure})")
        devs = self._devices()
        r.peak_bytes = s.peak(basis) if devs is None else _sum(s.whole.device_peak[basis], devs)
        b = getattr(self, "baseline_reading", None)
        last = s.last
        for d in (b or last).devices if (b or last) else ():
            if devs is not None and d.index not in devs:
                continue
            r.devices.append(DeviceSummary(
                index=d.index, name=d.name, total_bytes=d.total_bytes,
                baseline_bytes=(d.process_bytes if basis == "process" else d.used_bytes) if b else None,
                peak_bytes=s.whole.device_peak[basis].get(d.index),
                device_used_baseline_bytes=d.used_bytes if b else None,
                device_used_peak_bytes=s.whole.device_peak["device"].get(d.index), host=d.host))
        totals = [d.total_bytes for d in r.devices]
        r.limit_bytes = self.o.limit_bytes or (sum(t for t in totals if t) if totals and all(totals) else None)
        tl = s.timeline(basis)
        step = max(1, len(tl) // TIMELINE_POINTS)
        r.timeline = [(round(t - s.whole.start_s, 4), v) for t, v in tl[::step]]
        r.marks = [(round(t - s.whole.start_s, 4), label) for t, label in s.marks]
        self._conclude()

    def _conclude(self) -> None:
        r = self.r
        tol = analysis.tolerance(r.baseline_bytes)
        done = [t for t in r.tiers if t.increment_bytes is not None and not t.error]
        points = [((t.prompt_tokens or t.target_prompt_tokens) + (t.completion_tokens or 0), t.increment_bytes)
                  for t in done]
        fit = analysis.fit_increments(points, tol)
        if fit is not None:
            r.increment_slope_bytes_per_token = round(fit.slope_bytes_per_token, 2)
            r.increment_r2 = round(fit.r2, 4)
            r.increments_grow = fit.grows
        if r.rest_bytes is not None and r.baseline_bytes is not None:
            r.returns_to_baseline = r.rest_bytes - r.baseline_bytes <= tol
            kept = self.engine.endpoints.kept_after_request if self.engine and self.engine.endpoints else ""
            if not r.returns_to_baseline and kept:
                r.notes.append(kept)
            leak, why = analysis.creeping(self.rest_points, self.after_last, r.rest_bytes, tol)
            kept, kept_why = analysis.kept_per_request([t.after_bytes for t in r.tiers if t.after_bytes is not None
                                                        and not t.error], r.baseline_bytes, r.rest_bytes, tol)
            by_design = bool(self.engine and self.engine.endpoints and self.engine.endpoints.kept_after_request)
            if kept and not leak:
                leak, why = (False, kept_why + " (what the engine keeps by design: see the note)") if by_design \
                    else (True, kept_why)
            r.leak_suspected, r.leak_reason = leak, why
        pre = bool(self.engine and self.engine.endpoints and self.engine.endpoints.pre_reserves)
        context = None
        if r.max_model_len:
            context = r.max_model_len
        v = analysis.bottleneck(baseline_bytes=r.baseline_bytes, peak_bytes=r.peak_bytes, limit_bytes=r.limit_bytes,
                                pool_bytes=r.engine_kv_pool_bytes, pre_reserves=pre, fit=fit, context_tokens=context,
                                max_increment_bytes=max((t.increment_bytes for t in done), default=None))
        r.bottleneck, r.bottleneck_reason, r.first_step = v.bottleneck, v.reason, v.first_step
        r.advice = _advice(self.engine, v.first_step, r)
        est = getattr(self, "estimate", None)
        if est is not None:
            from .against import compare

            settled = getattr(self, "cells_settled", True)
            if not settled:
                r.notes.append("the estimate's pool is not compared: the server's cache may be unified or not, and "
                               "nothing shown says which (give --log of a run that prints it, or --serve)")
            r.comparison = compare(est, basis=r.basis, baseline_bytes=r.baseline_bytes,
                                   pool_bytes=r.engine_kv_pool_bytes, pre_reserves=pre, tiers=r.tiers,
                                   on_gpu=r.source not in ("psutil", ""), pool_settled=settled,
                                   pool_measured=getattr(self, "pool_measured", True))


def _sum(by_device: dict[int, int], devices: set[int]) -> int | None:
    vals = [by_device.get(i) for i in devices]
    return None if not vals or any(v is None for v in vals) else sum(v for v in vals if v is not None)


def _advice(engine, first_step: str, r: ProbeResult) -> list[str]:
    """What to try first, in the engine's own flags (plain words for an engine not recognised)."""
    if not first_step:
        return []
    flags = engine.flags if engine is not None else {}
    shared = engine is not None and (engine.name == "llamacpp" or engine.wraps == "llamacpp")
    if first_step == "max_model_len":
        steps = [("max_model_len", "a shorter context" + (" (the cache is sized to -c, whatever the slots)"
                                                          if shared else " per sequence")),
                 ("kv_cache_dtype", "an 8-bit KV cache")]
        if not shared:  # llama.cpp's slots share the -c cells: fewer of them shrink nothing
            steps.insert(1, ("max_num_seqs", "fewer sequences at once"))
    else:
        steps = [("quantization", "fewer-bit weights"), ("tensor_parallel_size", "more GPUs"),
                 ("cpu_offload", "part of the weights in CPU memory")]
    out = []
    for key, words in steps:
        flag = flags.get(key)
        if flag:
            flag = flag.replace("{n}", "N").replace("{x}", "X").replace("{v}", "V").replace("{m}", "M")
            out.append(f"{words}: {flag}")
        else:
            out.append(words)
    return out
