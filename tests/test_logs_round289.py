"""`vramdoctor logs` on the kinds of fault the held-out rounds 289 and later (issue 6, stop 36) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import re

import pytest

from logcase import diag, flags, kind_of, run_of
from vramdoctor.engines import all_engines
from vramdoctor.logs.knowledge import _either, knowledge


def said(run) -> str:
    """All of a run's advice, every field, joined."""
    return " | ".join(" ".join(str(v) for v in a.values()) for a in run.advice)


# --- one place per engine: a request answered and a program's end of its work are each engine's own words
# (`LogWords.answered`, `LogWords.work_done`), joined for the reader under each one's own flags ------------------------

def test_either_keeps_each_patterns_own_case():
    joined = _either([re.compile(r"Done\b"), re.compile(r"served", re.I), None])
    assert joined.search("SERVED") and joined.search("Done") and not joined.search("DONE")
    assert _either([None]) is None


@pytest.mark.parametrize("line", [
    "llama_perf_context_print:        total time =    2345.12 ms /   130 tokens",
    "request: POST /v1/chat/completions 127.0.0.1 200",
    "[GIN] 2025/04/03 - 19:22:31 | 200 |    6.82s |       127.0.0.1 | POST     \"/api/chat\"",
    "INFO:     127.0.0.1:40312 - \"POST /v1/completions HTTP/1.1\" 200 OK",
])
def test_every_engines_answered_line_is_read_as_answered(line):
    assert knowledge().answered.search(line)


def test_answered_words_live_in_the_engines_modules():
    owners = {e.name for e in all_engines() if e.log.answered is not None}
    assert {"llamacpp", "ollama", "generic"} <= owners


_OLLAMA_COMPLAINT = ["ollama keeps failing after a while, not working as expected",
                     "time=2025-04-03T19:20:01.000Z level=INFO source=server.go:619 msg=\"llama runner started in 3.01 seconds\"",
                     "[GIN] 2025/04/03 - 19:22:31 | 204 |    6.82s |       127.0.0.1 | POST     \"/api/chat\""]


def test_a_204_answer_in_ollama_ends_serving():
    # (Gin's 2xx, not only 200: a request answered with no content is answered all the same)
    assert kind_of(_OLLAMA_COMPLAINT) == ("NONE", "no-memory-problem")
