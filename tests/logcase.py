"""Helpers the `logs` tests share: diagnose a log written in a test by both reading paths, and pick its deciding
run and its advice's flags."""

from __future__ import annotations

import textwrap

from vramdoctor.logs import diagnose
from vramdoctor.logs.reader import Blocks
from vramdoctor.logs.scan import numbered


def diag(text: str, engine: str | None = None, strip: bool = True):
    """Diagnose `text` (dedented; `strip`: without its blank first and last lines) by both paths, every line and the
    block prefilter, and check they agree."""
    text = textwrap.dedent(text).strip("\n") + "\n" if strip else textwrap.dedent(text).lstrip("\n")
    by_lines = diagnose(numbered(text.splitlines()), engine=engine)
    by_blocks = diagnose(Blocks(source=iter([text.encode()]), path="t"), engine=engine)
    assert by_lines.to_dict() == by_blocks.to_dict()
    return by_lines


def run_of(rep):
    """The run the report's diagnosis is about."""
    return rep.runs[rep.diagnosis["run"] - 1]


def flags(run) -> str:
    """All of a run's advised flags, joined."""
    return " | ".join(a["flags"] for a in run.advice)


def kind_of(lines: list[str]) -> tuple[str, str]:
    """The deciding run's (kind, code) of a log given as its lines."""
    run = run_of(diag("\n".join(lines)))
    return run.kind, run.code


def run_in(text: str, engine: str):
    """The deciding run of `text`, whose engine must be read as `engine`."""
    rep = diag(text)
    assert rep.engine == engine, rep.engine
    return run_of(rep)
