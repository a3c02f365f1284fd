"""`vramdoctor logs` on the kinds of fault left open by round 22 and found by the held-out rounds 23 and 24
(../heldout23/REPORT.md, ../heldout24/REPORT.md), each with logs of our own in other engines, versions and
wordings (none of the held-out logs' own lines). The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, run_of

# --- a condition that says when the growth happens is a reproduction, not a supposition ---------------------------

READY = {
    "llama-server": "main: server is listening on http://0.0.0.0:8080 - starting the main loop",
    "vllm": "INFO:     Application startup complete.",
    "ollama": 'time=2025-03-02T10:11:12.000Z level=INFO source=server.go:619 msg="llama runner started in 4.02 seconds"',
}

GROWTH = {
    # a hedged main clause after a closed condition
    ("vllm", "If the client aborts mid-stream, RSS may keep growing until the pod is killed."): "LEAK",
    # a negation inside the condition, not the growth
    ("llama-server", "If the client does not close the stream, RSS keeps growing with every request."): "LEAK",
    # "never comes back down" without an auxiliary before it
    ("ollama", "Whenever a request is aborted, the process memory goes up and never comes back down."): "LEAK",
    # an answer's "No," before the clause that states it
    ("vllm", "No, memory keeps growing after every request, even at one request a minute."): "LEAK",
    # the denial inside the words themselves
    ("llama-server", "RSS doesn't keep growing, it stays flat at 6 GB."): "NONE",
    # the growth inside the condition: advice, not a report
    ("vllm", "If memory keeps growing, restart the server every night."): "NONE",
    ("ollama", "I want to check whether RSS keeps growing over a day."): "NONE",
    # a hypothetical main clause
    ("llama-server", "Memory would keep growing if we never restarted, I guess."): "NONE",
    ("vllm", "I suspect memory might be leaking somewhere in the tokenizer."): "NONE",
}


@pytest.mark.parametrize("engine,sentence", sorted(GROWTH))
def test_growth_under_a_stated_condition_is_reported(engine, sentence):
    run = run_of(diag(READY[engine] + "\n" + sentence))
    assert run.kind == GROWTH[(engine, sentence)], (run.kind, run.code)


@pytest.mark.parametrize("sentence,kind", [
    ("If I send two requests at once, the server crashes and restarts.", "UNDETERMINED"),
    ("When the second client connects, the whole thing dies.", "UNDETERMINED"),
    ("If it fails to load, lower the context and try again.", "NONE"),
    ("It does not crash, it just gets slow.", "NONE"),
])
def test_a_failure_under_a_stated_condition_is_reported(sentence, kind):
    run = run_of(diag(READY["vllm"] + "\n" + sentence))
    assert run.kind == kind, (run.kind, run.code)
