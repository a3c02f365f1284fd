"""What `prefilter` reads from each log pattern's syntax, kept on disk between runs.

Reading the words of about 2,000 patterns (`prefilter.required`, `prefix`, `alternatives`: each parses the
pattern with `re`'s own parser) costs every `vramdoctor logs` run 0.3-0.4 s, as much as reading a 30 MiB log. The
results depend only on the patterns, `prefilter`'s code and Python's regex parser, so they are kept in one JSON file
under `$XDG_CACHE_HOME/vramdoctor` (`~/.cache/vramdoctor`): each result under its pattern's own text and flags, in a
file named by a digest of the other two, so a changed pattern is read anew and a change to the code starts a new file
(older ones are removed when it is written). The file carries a checksum of what it holds, and one whose
content does not match it is not read. A run writes the file only where it read a pattern the file did not hold,
or the file held patterns no longer in use: it then holds this run's patterns only. The file only saves time: one that
cannot be read, written, or that does not hold what it should is ignored, and the words are read from the patterns.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

from . import prefilter

PREFIX = "patterns-"
MAX_BYTES = 16 << 20  # a cache file larger than this is not read (today's is about 200 KiB)

Memo = dict[str, "list[str] | None"]


def folder() -> Path:
    """Where the file is kept: $XDG_CACHE_HOME/vramdoctor, else ~/.cache/vramdoctor."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "vramdoctor"


def digest() -> str | None:
    """A digest of `prefilter`'s own source and the Python version (None where the source cannot be read: no cache)."""
    try:
        source = Path(prefilter.__file__).read_bytes()
    except OSError:
        return None
    return hashlib.sha256(sys.version.encode() + b"\x00" + source).hexdigest()[:24]


def load(name: str) -> Memo:
    """The memo kept under `name` (a `digest`), or an empty one where there is none or it cannot be read."""
    path = folder() / f"{PREFIX}{name}.json"
    try:
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("memo"), dict):
        return {}
    memo = data["memo"]
    if data.get("sha256") != _checksum(memo):  # (a file changed after it was written, still valid JSON)
        return {}
    return {k: v for k, v in memo.items() if isinstance(k, str)
            and (v is None or isinstance(v, list) and all(isinstance(w, str) for w in v))}


def _checksum(memo: dict) -> str:
    return hashlib.sha256(json.dumps(memo, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def save(name: str, memo: Memo) -> None:
    """Write `memo` under `name` (atomically: another run reads the old file or the new one, never half of one) and
    remove the files of other digests; any failure is ignored."""
    where = folder()
    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".patterns-", dir=where)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"sha256": _checksum(memo), "memo": memo}, f, separators=(",", ":"))
            os.replace(tmp, where / f"{PREFIX}{name}.json")
        except BaseException:
            os.unlink(tmp)
            raise
        for old in where.glob(f"{PREFIX}*.json"):
            if old.name != f"{PREFIX}{name}.json":
                old.unlink(missing_ok=True)
    except OSError:
        pass
