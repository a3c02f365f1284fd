#!/usr/bin/env python3
"""Reads `pip install -v` output on stdin, writes all of it to a log file, and prints one short line as each
compile moves on: which package is building, how far (CMake's `[ 42%]` or Ninja's `[120/310]`), the minutes
spent, and a heartbeat every 30 s while a step prints nothing. Usage: pip install -v ... | build_progress.py LOG"""

from __future__ import annotations

import re
import sys
import time

STEP = 10  # percent between progress lines
BEAT = 30.0  # seconds without a progress line before a heartbeat

_PACKAGE = re.compile(r"Building wheels? for ([\w.-]+)|Building editable for ([\w.-]+)|Collecting ([\w.-]+)")
_PERCENT = re.compile(r"^\s*\[\s*(\d+)%\]")
_NINJA = re.compile(r"^\s*\[(\d+)/(\d+)\]")


def main() -> int:
    log = open(sys.argv[1], "w", encoding="utf-8", errors="replace")  # noqa: SIM115
    start = last_print = time.monotonic()
    package, shown = "", -STEP
    for line in sys.stdin:
        log.write(line)
        now = time.monotonic()
        m = _PACKAGE.search(line)
        if m and "Building" in line:
            package, shown = next(g for g in m.groups() if g), -STEP
            print(f"    building {package} ...", flush=True)
            last_print = now
            continue
        pct = None
        if (m := _PERCENT.match(line)):
            pct = int(m.group(1))
        elif (m := _NINJA.match(line)) and int(m.group(2)) > 0:
            pct = 100 * int(m.group(1)) // int(m.group(2))
        if pct is not None and pct >= shown + STEP:
            shown = pct - pct % STEP
            print(f"    {package or 'build'}: {pct:3d}%  ({(now - start) / 60:.1f} min)", flush=True)
            last_print = now
        elif now - last_print >= BEAT:
            print(f"    still working ({(now - start) / 60:.1f} min; full output in {sys.argv[1]})", flush=True)
            last_print = now
    log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
