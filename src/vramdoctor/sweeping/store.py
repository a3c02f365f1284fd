"""The sweep's results on disk: one SQLite file (`sweep.sqlite` in the results folder), each run written in its own
transaction the moment it finishes, so that a killed vramdoctor loses at most the run in progress. `--resume`
reads the finished runs back (by their key: the settings tried) and the sweep does not repeat them. Servers in
progress are listed too (their process group), so that a resumed sweep can stop any a killed one left.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT UNIQUE NOT NULL,
    stage TEXT NOT NULL,
    finished_at REAL NOT NULL,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS running (pgid INTEGER PRIMARY KEY, key TEXT NOT NULL, command TEXT NOT NULL,
                                    started_at REAL NOT NULL);
"""


def run_key(settings: dict) -> str:
    """A run's identity: its settings, in a stable order."""
    return json.dumps(settings, sort_keys=True, separators=(",", ":"))


class Store:
    """The results folder's database. Raises OSError (sqlite3.Error as OSError) when it cannot be opened."""

    def __init__(self, folder: Path) -> None:
        if folder.exists() and not folder.is_dir():
            raise OSError(f"{folder}: is a file, not a results folder")
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "sweep.sqlite"
        self.lock = threading.RLock()  # one connection, shared by the runs of several devices
        self._lockfile = None
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
            self.db.executescript(SCHEMA)
        except sqlite3.Error as e:
            raise OSError(f"{self.path}: cannot open the results database ({e})") from None

    def take(self) -> None:
        """Hold the folder for this sweep (an advisory lock on DIR/.lock, released when the process ends, even
        by SIGKILL). Raises OSError when another live sweep holds it."""
        import fcntl

        f = open(self.path.parent / ".lock", "a+")  # noqa: SIM115 - held for the sweep's life
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            who = f.read().strip()[:40]
            f.close()
            raise OSError(f"{self.path.parent}: another sweep is running in this folder"
                          + (f" (process {who})" if who else "") + "; wait for it, or give another --results folder")
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        self._lockfile = f

    def close(self) -> None:
        with self.lock:
            self.db.close()
        if self._lockfile is not None:
            self._lockfile.close()

    def meta(self, key: str) -> str | None:
        with self.lock:
            row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.lock, self.db:
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def drop_meta(self, *keys: str) -> None:
        with self.lock, self.db:
            self.db.executemany("DELETE FROM meta WHERE key = ?", [(k,) for k in keys])

    def finished(self) -> dict[str, dict]:
        """key -> record of every finished run, in the order they finished."""
        with self.lock:
            rows = self.db.execute("SELECT key, record FROM runs ORDER BY n").fetchall()
        return {k: json.loads(r) for k, r in rows}

    def save(self, key: str, stage: str, record: dict) -> None:
        """One finished run, in one transaction."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.execute("INSERT OR REPLACE INTO runs (key, stage, finished_at, record) VALUES (?, ?, ?, ?)",
                                (key, stage, time.time(), json.dumps(record, default=str)))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def running(self, pgid: int, key: str, command: str, started_at: float | None = None) -> None:
        """Record process group `pgid` as a server of run `key` started at `started_at` (time.time(), taken before
        the start: a record taken after it may be later than the members a loaded machine spawned in between)."""
        with self.lock, self.db:
            self.db.execute("INSERT OR REPLACE INTO running (pgid, key, command, started_at) VALUES (?, ?, ?, ?)",
                            (pgid, key, command, time.time() if started_at is None else started_at))

    def stopped(self, pgid: int) -> None:
        with self.lock, self.db:
            self.db.execute("DELETE FROM running WHERE pgid = ?", (pgid,))

    def stop_leftovers(self) -> list[int]:
        """Stop the process groups a killed sweep left running (SIGKILL to each group still alive); returns them."""
        from ..measure.host import group_members

        with self.lock:
            rows = self.db.execute("SELECT pgid, command, started_at FROM running").fetchall()
        stopped = []
        for pgid, _command, started_at in rows:
            # the group's members started since the run began (a wrapper's server outlives its dead leader;
            # a PID reused by another process since is older than nothing of ours, and its group is not ours)
            members = group_members(pgid, started_at)
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    continue
            if members:
                stopped.append(pgid)
            self.stopped(pgid)
        return stopped
