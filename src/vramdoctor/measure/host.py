"""The host's processes through psutil: the only module that imports it.

`ProcessTree` follows a server's process and its descendants (vLLM's EngineCore and TP workers, SGLang's
scheduler and detokenizer, Ollama's runner are children of the process you start); `HostSource` measures the
tree's resident memory (the sum of each process's RSS, `psutil.Process.memory_info().rss`, what `ps -o rss`
shows), which is the memory of a server that runs on the CPU or on unified memory (Apple silicon,
integrated GPUs); `listening_pid(port)` finds the process that listens on a local port.
"""

from __future__ import annotations

import time

from ..errors import SourceUnavailable
from .reading import DeviceReading, PidsFn, Reading, SourceInfo

#: how often the tree's membership is looked up again (children(recursive=True) walks /proc: ~1 ms a process)
TREE_REFRESH_S = 0.5


def _psutil():
    try:
        import psutil
    except ImportError as e:  # a dependency of vramdoctor: only a broken install lacks it
        raise SourceUnavailable("psutil", f"the psutil package cannot be imported ({e})",
                                hint="Reinstall vramdoctor: pip install vramdoctor") from None
    return psutil


class ProcessTree:
    """A process and its descendants, looked up again at most every TREE_REFRESH_S seconds.

    Raises SourceUnavailable when `pid` does not exist at the start. `alive()` is False once the root has
    exited (the tree's last members are still reported until then)."""

    def __init__(self, pid: int) -> None:
        psutil = _psutil()
        self.pid = pid
        try:
            self._root = psutil.Process(pid)
            self._root.memory_info()
        except psutil.NoSuchProcess:
            raise SourceUnavailable("psutil", f"no process has PID {pid}",
                                    hint="Give the PID of the running server (--pid), or let vramdoctor start "
                                         "it (--serve).") from None
        except psutil.AccessDenied:
            raise SourceUnavailable("psutil", f"the process with PID {pid} cannot be read by this user",
                                    hint="Run vramdoctor as the server's user.") from None
        self._procs: dict[int, object] = {pid: self._root}
        self._at = 0.0

    def alive(self) -> bool:
        psutil = _psutil()
        try:
            return self._root.is_running() and self._root.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    def processes(self) -> list:
        """The psutil.Process objects of the tree (the root first)."""
        psutil = _psutil()
        now = time.monotonic()
        if now - self._at >= TREE_REFRESH_S:
            self._at = now
            try:
                kids = self._root.children(recursive=True)
            except psutil.Error:
                kids = []
            procs = {self.pid: self._root}
            for k in kids:
                procs[k.pid] = self._procs.get(k.pid, k)  # keep the object: psutil caches per object
            self._procs = procs
        return list(self._procs.values())

    def pids(self) -> set[int]:
        return {p.pid for p in self.processes()}


def tree_rss_bytes(tree: ProcessTree) -> int:
    """The sum of the RSS of every process of the tree still running (bytes). Shared pages (a forked worker's,
    a memory-mapped model file read by two processes) count once per process, as `ps` counts them. Raises
    SourceUnavailable once every process of the tree has exited (never a reading of 0)."""
    psutil = _psutil()
    if not tree.alive():  # a dead or zombie server holds nothing: that is no reading, not a 0
        raise SourceUnavailable("psutil", f"the process {tree.pid} has exited")
    total, seen = 0, 0
    for p in tree.processes():
        try:
            if p.status() == psutil.STATUS_ZOMBIE:
                continue
            rss = p.memory_info().rss
            if rss == 0:  # a process that is exiting has handed its pages back: no reading, not a 0
                continue
            total += rss
            seen += 1
        except psutil.Error:  # exited between the lookup and the reading
            continue
    if not seen:
        raise SourceUnavailable("psutil", f"the process {tree.pid} and its children have exited")
    return total


def host_memory_total_bytes() -> int:
    """The host's physical memory (psutil.virtual_memory().total)."""
    return int(_psutil().virtual_memory().total)


class HostSource:
    """Resident memory of a process tree (the server's memory when it runs on the CPU or on unified memory).

    `tree` is the watched ProcessTree; readings have one device, "host", whose total is the host's RAM and
    whose process_bytes is the tree's RSS. Raises SourceUnavailable when there is no process to watch."""

    def __init__(self, tree: ProcessTree | None) -> None:
        if tree is None:
            raise SourceUnavailable("psutil", "it measures a process tree and no process is known",
                                    hint="Give --pid, or a local --url whose listening process vramdoctor can "
                                         "find, or start the server with --serve.")
        self.tree = tree
        self.info = SourceInfo(name="psutil", basis="process",
                               notes=("resident memory (RSS) of the server's process tree, summed over its "
                                      "processes",))
        self._total = host_memory_total_bytes()

    def read(self) -> Reading:
        rss = tree_rss_bytes(self.tree)
        dev = DeviceReading(index=0, name="host", total_bytes=self._total, used_bytes=None, process_bytes=rss)
        return Reading(t_s=time.monotonic(), devices=(dev,), basis="process")

    def close(self) -> None:
        return None


def listening_pid(port: int) -> tuple[int | None, str]:
    """The PID of the process listening on local TCP `port`, and a reason when it cannot be told (another
    user's process, a platform where psutil needs root for this, nothing listening)."""
    psutil = _psutil()
    try:
        conns = psutil.net_connections(kind="tcp")
    except (psutil.AccessDenied, PermissionError):
        return None, "listing sockets needs more rights on this platform (run as root, or give --pid)"
    pids = {c.pid for c in conns
            if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port and c.pid}
    if not pids:
        return None, f"no process of this user is seen listening on port {port} (give --pid)"
    if len(pids) > 1:  # a server and its forks share the socket: the oldest is the parent
        ordered = sorted(pids, key=lambda p: _create_time(p))
        return ordered[0], ""
    return pids.pop(), ""


def _create_time(pid: int) -> float:
    psutil = _psutil()
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return float("inf")


def pids_fn(tree: ProcessTree | None) -> PidsFn:
    """A callable giving the tree's PIDs at each reading (None when no tree is watched)."""
    return (lambda: tree.pids()) if tree is not None else (lambda: None)


def is_same_process(pid: int, started_at: float, program: str) -> bool:
    """Whether `pid` is still the process vramdoctor started at `started_at` (time.time()) running `program` (its
    argv[0]'s name): a PID reused since by another process is not."""
    psutil = _psutil()
    import os

    try:
        p = psutil.Process(pid)
        created = p.create_time()
        argv = p.cmdline()
    except psutil.Error:
        return False
    name = os.path.basename(program)
    return abs(created - started_at) < 30 and bool(argv) and (os.path.basename(argv[0]) == name or name in argv[:3])


def descendants(pid: int) -> list[int]:
    """The PIDs of every living descendant of `pid` (also those that left its process group with setsid)."""
    psutil = _psutil()
    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def describe(pid: int) -> str:
    """`PID name (command line)` of a process, cut to 200 characters; `PID` alone when it cannot be read."""
    psutil = _psutil()
    try:
        p = psutil.Process(pid)
        cmd = " ".join(p.cmdline())[:200]
        return f"{pid} {p.name()}" + (f" ({cmd})" if cmd else "")
    except psutil.Error:
        return str(pid)


def process_cwd(pid: int) -> str | None:
    """The working folder of `pid` (to resolve the relative paths it was given), or None."""
    psutil = _psutil()
    try:
        return psutil.Process(pid).cwd()
    except psutil.Error:
        return None


#: programs that listen on a port for another process: what they hold is not the server's memory
PROXIES = ("docker-proxy", "nginx", "haproxy", "envoy", "socat", "sshd", "ssh", "kubectl", "traefik", "caddy",
           "rootlesskit", "slirp4netns", "pasta", "gvproxy", "vpnkit", "conmon", "litellm")


def is_proxy(pid: int) -> str | None:
    """The proxy's name when `pid` is one of PROXIES, else None."""
    psutil = _psutil()
    try:
        name = psutil.Process(pid).name()
    except psutil.Error:
        return None
    return name if any(name == p or name.startswith(p + "-") for p in PROXIES) else None


def in_tree(root: int, pid: int) -> bool:
    """Whether `pid` is `root` or one of its descendants (init, PID 1, is every process's ancestor: only itself)."""
    if root == 1:
        return pid == 1
    return pid == root or pid in descendants(root)


#: how much earlier than time.time() a process's create_time may read: Linux gives it from the boot time in whole
#: seconds (/proc/stat btime, rounded down) plus the start in clock ticks, so it reads up to a second early, and more
#: where the clock was stepped since boot; a process of another group that took a reused PGID this shortly before the
#: start is not a case to guard against
_CREATE_TIME_SLACK = 3.0


def group_members(pgid: int, started_at: float) -> list[int]:
    """The living processes of process group `pgid` started at or after `started_at` (time.time(), less
    `_CREATE_TIME_SLACK`): what is left of a server a killed vramdoctor started, its leader dead or not."""
    import os

    psutil = _psutil()
    out = []
    for p in psutil.process_iter(["create_time"]):
        try:
            if os.getpgid(p.pid) == pgid and p.info["create_time"] >= started_at - _CREATE_TIME_SLACK \
                    and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p.pid)
        except (ProcessLookupError, PermissionError, psutil.Error):
            continue
    return out
