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


# --- a failure named only by a quoted fragment of the engine's own words (without its figures) ----------------------

QUOTED = {
    # vLLM V0 (core/scheduler.py's check in worker.py raise_if_cache_size_invalid), quoted without "max seq len (N)"
    'vLLM 0.6.3 stops with "...is larger than the maximum number of tokens that can be stored in KV cache" when I '
    'set max-model-len 32768.': ("vllm", "KV_CAPACITY"),
    # the block manager's refusal (core/block_manager.py), quoted without "Input prompt (N tokens)"
    "Every long request gets `is too long and exceeds the capacity of block_manager` back on 0.5.4.":
        ("vllm", "KV_CAPACITY"),
    # TGI's launcher check (router/src/main.rs), quoted without "=N"
    "The router refuses to start: 'Not enough memory to handle max_total_tokens' on one A10G.": ("tgi", "KV_CAPACITY"),
}


@pytest.mark.parametrize("text", sorted(QUOTED))
def test_a_failure_named_by_a_quoted_fragment_is_read(text):
    engine, kind = QUOTED[text]
    rep = diag(text)
    run = run_of(rep)
    assert run.kind == kind, (run.kind, run.code)


# --- a user's sentence about a step, last in the paste, is no step under way ----------------------------------------

V1_SIZED = """
INFO 03-02 10:11:12 [gpu_model_runner.py:1500] Model loading took 14.99 GiB and 9.1 seconds
INFO 03-02 10:11:30 [gpu_worker.py:227] Available KV cache memory: 4.20 GiB
INFO 03-02 10:11:30 [kv_cache_utils.py:716] GPU KV cache size: 34,400 tokens
"""


@pytest.mark.parametrize("tail,kind,code", [
    # the user's words, cut at the excerpt's end: no step line of the engine's
    ("We tried loading it with --enforce-eager and it still stops at the same pla", "UNDETERMINED",
     "failure-cause-not-shown"),
    ('SGLang dies with the "Capture cuda graph failed" error every time', "UNDETERMINED", "failure-cause-not-shown"),
    ("I am capturing the logs with --log-level debug, attached below", "NONE", "no-memory-problem"),
    # the engine's own step lines (a prefix of its own, or a bar) still are
    ("Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  42%|####      | 28/67 [00:03<00:04,  9.10it/s]",
     "UNDETERMINED", "log-ends-during-step"),
    ("INFO 03-02 10:11:31 [gpu_model_runner.py:2000] Capturing CUDA graphs", "UNDETERMINED", "log-ends-during-step"),
])
def test_a_users_sentence_about_a_step_is_no_step_under_way(tail, kind, code):
    run = run_of(diag(V1_SIZED + tail))
    assert (run.kind, run.code) == (kind, code), run
