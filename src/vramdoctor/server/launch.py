"""Launching a server: the only module that starts processes.

A command is an argument list (a string is split with shlex, never given to a shell). The server runs in a
session of its own, so its whole process group (vLLM's EngineCore and workers, SGLang's scheduler, Ollama's
runner) is stopped together: SIGTERM to the group, then SIGKILL to what remains after a grace period. Every
server started here is stopped when vramdoctor exits, also after Ctrl-C, SIGTERM or an error of its own.
`memory_limit_bytes` caps the server's address space (RLIMIT_AS, as `ulimit -v` does), so that an
allocation fails on a CPU machine as it would on a full GPU. On Linux the server is also killed when the thread
that started it ends (PR_SET_PDEATHSIG): a vramdoctor killed with SIGKILL takes its server with it; its
workers (vLLM's, SGLang's) end with it as they do when their parent dies. Start servers from a thread that
lives as long as they do.
"""

from __future__ import annotations

import atexit
import os
import shlex
import signal
import subprocess
import threading
import time
from pathlib import Path

from ..errors import LaunchError

#: the environment a server gets under an address-space limit, unless the user's own environment sets it: glibc's
#: malloc gives threads that contend for it arenas of their own, each reserving 64 MiB of address space (its
#: HEAP_MAX_SIZE on 64-bit, twice DEFAULT_MMAP_THRESHOLD_MAX) that is never touched; how many it makes depends on the
#: threads' timing, so the same server at the same settings could fit the limit once and fail it the next time. One
#: arena makes the limit count what is allocated.
LIMITED_ENV = {"MALLOC_ARENA_MAX": "1"}
#: seconds between SIGTERM and SIGKILL
DEFAULT_GRACE_S = 10.0
#: a server's log keeps its first LOG_HEAD_BYTES and its last LOG_TAIL_BYTES of output
LOG_HEAD_BYTES = 64 * 2**20
LOG_TAIL_BYTES = 16 * 2**20

_live: set["Launched"] = set()
_lock = threading.Lock()


def split_command(command: str | list[str]) -> list[str]:
    """The argument list of `command` (shlex rules for a string). Raises LaunchError for an empty or unbalanced
    command."""
    if isinstance(command, list):
        args = [str(a) for a in command]
    else:
        try:
            args = shlex.split(command)
        except ValueError as e:
            raise LaunchError(f"cannot split the command ({e}).", command=[command],
                              hint="Check its quotes: the command is split as a POSIX shell would, but never run "
                                   "through one.") from None
    if not args:
        raise LaunchError("the command is empty.", command=[], hint="Give the server's command line.")
    return args


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when the thread that started it ends (prctl PR_SET_PDEATHSIG), so that a
    vramdoctor killed with SIGKILL (no atexit, no finally) leaves no server behind. Elsewhere: nothing."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass


def _preexec(memory_limit_bytes: int | None, die_with_parent: bool = True):
    parent = os.getpid()

    def apply() -> None:
        os.setsid()
        if die_with_parent:
            _die_with_parent()
            if os.getppid() != parent:
                # (vramdoctor died between the fork and the prctl, so the death signal will never come: end now,
                # before the server is even run; a SIGKILL in a loaded machine's launch lands in that window)
                os.kill(os.getpid(), signal.SIGKILL)
        if memory_limit_bytes is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory_limit_bytes, memory_limit_bytes))
            # a server that fails under the limit may abort and dump core (ggml attaches gdb, which can crash
            # too): no core files of an experiment in the user's folder
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def server_env(env: dict | None, memory_limit_bytes: int | None) -> dict:
    """The server's environment: vramdoctor's, with LIMITED_ENV's defaults under a memory limit (where neither the
    environment nor `env` sets them), then `env`."""
    # (a variable set empty, `MALLOC_ARENA_MAX=`, is glibc's default: set as if absent)
    limited = {k: v for k, v in LIMITED_ENV.items() if not os.environ.get(k)} if memory_limit_bytes is not None else {}
    return {**os.environ, **limited, **(env or {})}


class Launched:
    """A running server started by `launch()`. pid: the group leader's; log_path: its stdout and stderr."""

    def __init__(self, args: list[str], log_path: Path, *, env: dict | None = None,
                 memory_limit_bytes: int | None = None, cwd: str | None = None) -> None:
        self.args = args
        self.log_path = log_path
        self.started_s = time.monotonic()
        self.started_at = time.time()
        log_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._log = open(log_path, "xb")  # noqa: SIM115 - closed by the drain; "x": never another run's log
        except FileExistsError:
            raise LaunchError(f"the log '{log_path}' exists already: it is another run's.", command=args) from None
        except OSError as e:
            raise LaunchError(f"cannot write the server's log '{log_path}' ({e.strerror}).", command=args,
                              hint="Give a folder you can write to.") from None
        try:
            self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, env=server_env(env, memory_limit_bytes), cwd=cwd,
                                         preexec_fn=_preexec(memory_limit_bytes), close_fds=True, bufsize=0)
        except FileNotFoundError:
            self._drop_log()
            raise LaunchError(f"'{args[0]}' is not a program on PATH.", command=args,
                              hint="Give the server's full path, or activate its environment first.") from None
        except PermissionError:
            self._drop_log()
            raise LaunchError(f"'{args[0]}' cannot be executed (permission denied).", command=args) from None
        except OSError as e:
            self._drop_log()
            raise LaunchError(f"'{args[0]}' could not be started ({e.strerror}).", command=args) from None
        self.pid = self.proc.pid
        self.returncode: int | None = None
        self.left_out_bytes = 0
        self._drain = threading.Thread(target=self._copy_output, name=f"vramdoctor-log-{self.pid}", daemon=True)
        self._drain.start()
        with _lock:
            _live.add(self)

    def _copy_output(self) -> None:
        """The server's output into its log: the first LOG_HEAD_BYTES (its start-up), then only the latest
        LOG_TAIL_BYTES (its end), with a line saying how much was left out between: a server that logs every
        request for a week must not fill the disk, and its start and its failure are what a diagnosis reads."""
        import collections

        src, out = self.proc.stdout, self._log
        written, tail, tail_bytes = 0, collections.deque(), 0
        try:
            while True:
                chunk = src.read(1 << 16)
                if not chunk:
                    break
                if written < LOG_HEAD_BYTES:
                    keep = chunk[: LOG_HEAD_BYTES - written]
                    out.write(keep)
                    out.flush()
                    written += len(keep)
                    chunk = chunk[len(keep):]
                if chunk:
                    tail.append(chunk)
                    tail_bytes += len(chunk)
                    while tail_bytes - len(tail[0]) >= LOG_TAIL_BYTES:
                        self.left_out_bytes += len(tail[0])
                        tail_bytes -= len(tail.popleft())
        except (OSError, ValueError):  # the pipe closed under us (stop())
            pass
        finally:
            try:
                if self.left_out_bytes:
                    out.write(f"\n[vramdoctor: {self.left_out_bytes:,} bytes of the server's output left out here]\n"
                              .encode())
                for c in tail:
                    out.write(c)
                out.close()
            except (OSError, ValueError):
                pass

    def _drop_log(self) -> None:
        """The log of a server that never started is empty: close and remove it."""
        self._log.close()
        try:
            self.log_path.unlink()
        except OSError:
            pass

    def alive(self) -> bool:
        if self.returncode is not None:
            return False
        rc = self.proc.poll()
        if rc is not None:
            self.returncode = rc
            return False
        return True

    def alive_after(self, grace_s: float = 5.0) -> bool:
        """Whether the server still runs `grace_s` seconds on (returning as soon as it has exited): asked after a
        request failed, since a server that broke the connection is often on its way down (an abort prints its
        backtrace through gdb before the process ends)."""
        deadline = time.monotonic() + grace_s
        while self.alive():
            if time.monotonic() >= deadline:
                return True
            time.sleep(0.05)
        return False

    def stop(self, grace_s: float = DEFAULT_GRACE_S) -> int | None:
        """Stop the whole process group: SIGTERM, then SIGKILL after `grace_s`. Returns the leader's exit code
        (negative: the signal that ended it). Safe to call twice."""
        strays = _descendants(self.pid)  # also those that left the group (setsid): looked up while they have a parent
        try:
            if self.proc.poll() is None:
                _signal_group(self.pid, signal.SIGTERM)
                try:
                    self.proc.wait(timeout=grace_s)
                except subprocess.TimeoutExpired:
                    pass
                except KeyboardInterrupt:  # a second Ctrl-C while waiting: no grace, but still stop everything
                    pass
            _signal_group(self.pid, signal.SIGKILL)  # whatever of the group is left (workers ignoring SIGTERM)
            for pid in strays:
                _kill(pid)
            try:
                self.proc.wait(timeout=5)
            except (subprocess.TimeoutExpired, KeyboardInterrupt):
                pass
            self.returncode = self.proc.poll()
        finally:
            self._drain.join(timeout=5.0)
            if self._drain.is_alive():  # a stray still holds the pipe open: stop reading it
                try:
                    self.proc.stdout.close()
                except OSError:
                    pass
                self._drain.join(timeout=2.0)
            with _lock:
                _live.discard(self)
        return self.returncode

    def __enter__(self) -> "Launched":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _descendants(pid: int) -> list[int]:
    try:
        from ..measure.host import descendants
    except ImportError:  # pragma: no cover - psutil is a dependency
        return []
    return descendants(pid)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def launch(command: str | list[str], log_path: Path, *, env: dict | None = None,
           memory_limit_bytes: int | None = None, cwd: str | None = None) -> Launched:
    """Start `command` (an argument list, or a string split by shlex) with its output in `log_path`, in a
    process group of its own. Raises LaunchError when it cannot start."""
    return Launched(split_command(command), Path(log_path), env=env, memory_limit_bytes=memory_limit_bytes, cwd=cwd)


def stop_all() -> None:
    """Stop every server this process started and has not stopped (atexit, signal handlers)."""
    with _lock:
        live = list(_live)
    for s in live:
        s.stop(grace_s=5.0)


atexit.register(stop_all)


def terminate_on_signals():
    """Turn SIGTERM and SIGHUP into KeyboardInterrupt in the main thread, so that `finally` blocks stop the
    servers as after Ctrl-C (from the CLI). Returns a function that puts the previous handlers back."""

    def handler(signum, frame):  # noqa: ARG001
        raise KeyboardInterrupt

    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[sig] = signal.signal(sig, handler)
        except (ValueError, OSError):  # not the main thread, or a platform without it
            pass

    def restore() -> None:
        for sig, h in previous.items():
            try:
                signal.signal(sig, h)
            except (ValueError, OSError):
                pass

    return restore
