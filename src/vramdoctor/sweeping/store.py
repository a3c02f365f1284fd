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
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "sweep.sqlite"
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
            self.db.executescript(SCHEMA)
        except sqlite3.Error as e:
            raise OSError(f"{self.path}: cannot open the results database ({e})") from None

    def close(self) -> None:
        self.db.close()

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def finished(self) -> dict[str, dict]:
        """key -> record of every finished run, in the order they finished."""
        rows = self.db.execute("SELECT key, record FROM runs ORDER BY n").fetchall()
        return {k: json.loads(r) for k, r in rows}

    def save(self, key: str, stage: str, record: dict) -> None:
        """One finished run, in one transaction."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("INSERT OR REPLACE INTO runs (key, stage, finished_at, record) VALUES (?, ?, ?, ?)",
                            (key, stage, time.time(), json.dumps(record, default=str)))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def running(self, pgid: int, key: str, command: str) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO running (pgid, key, command, started_at) VALUES (?, ?, ?, ?)",
                            (pgid, key, command, time.time()))

    def stopped(self, pgid: int) -> None:
        with self.db:
            self.db.execute("DELETE FROM running WHERE pgid = ?", (pgid,))

    def stop_leftovers(self) -> list[int]:
        """Stop the process groups a killed sweep left running (SIGKILL to each group still alive); returns them."""
        from ..measure.host import is_same_process

        rows = self.db.execute("SELECT pgid, command, started_at FROM running").fetchall()
        stopped = []
        for pgid, command, started_at in rows:
            program = (json.loads(command) or [""])[0]
            if is_same_process(pgid, started_at, program):  # never a PID reused by another process since
                try:
                    os.killpg(pgid, signal.SIGKILL)
                    stopped.append(pgid)
                except (ProcessLookupError, PermissionError):
                    pass
            self.stopped(pgid)
        return stopped
