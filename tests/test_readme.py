"""The README's examples are real output: each `$ vramdoctor ...` block must match what the command prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```\n\$ (vramdoctor (?:estimate|logs) [^\n]+)\n(.*?)```", re.S)
# the README's example logs ship in examples/; each is a copy of a golden case
FILES = {"examples/vllm-29k.log": "tests/data/logs/case-001.log", "examples/sglang-cut.log": "tests/data/logs/case-045.log"}


def examples():
    return BLOCK.findall((ROOT / "README.md").read_text())


def test_readme_has_examples():
    assert len(examples()) >= 2


@pytest.mark.parametrize("command,shown", examples(), ids=[c for c, _ in examples()])
def test_readme_example_is_real_output(command, shown):
    args = command.split()[1:]
    r = subprocess.run([sys.executable, "-m", "vramdoctor", *args], capture_output=True, text=True, timeout=120,
                       cwd=ROOT, env={**os.environ, "COLUMNS": "100", "HF_HUB_OFFLINE": "1"})
    out = "\n".join(line.rstrip() for line in r.stdout.splitlines())
    assert out.strip() == shown.strip()


@pytest.mark.parametrize("example,case", FILES.items())
def test_example_logs_are_the_golden_cases(example, case):
    assert (ROOT / example).read_bytes() == (ROOT / case).read_bytes()
