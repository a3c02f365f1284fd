"""Kinds of fault found in stop 51's held-out rounds (496 and later) and the leftovers of stop 50, each in several
wordings of our own, with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, kind_of, run_of

# --- a tracker's tag beyond the common ones: the title is the report's words (h495/06: "[CI Failure]: ... OOM occurs
# during instance startup" over an issue template and a warm-up failure cut short read UNDETERMINED) ---------------

_TEMPLATE = ["", "### Your current environment", "", "<details>", "<summary>The output of <code>python collect_env.py"
             "</code></summary>", "", "```text", "CI env", "```", "", "</details>", "", "### 🐛 Describe the bug", "",
             "1.run:", "pytest tests/e2e/test_tp2.py", ""]
_DUMMY = ["[Stage-0] INFO 01-23 01:16:41 [diffusion_engine.py:309] dummy run to warm up the model",
          "[Stage-0] ERROR 01-23 01:16:57 [diffusion_engine.py:52] Dummy run failed: CUD"]


@pytest.mark.parametrize("title", ["[CI Failure]: Z-Image-Turbo, Occasional OOM occurs during instance startup.",
                                   "[CI failure] OOM in the diffusion TP test",
                                   "[Regression]: out of memory at start-up since 0.14",
                                   "[Tracking Issue] CUDA OOM when starting Qwen-Image"])
def test_a_trackers_tag_makes_the_title_the_reports_words(title):
    assert kind_of([title, *_TEMPLATE, "```", *_DUMMY]) == ("WARMUP", "warmup-oom")


@pytest.mark.parametrize("line", ["[ERROR]: CUDA out of memory. Tried to allocate 2.00 GiB",
                                  "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"])
def test_a_programs_bracketed_prefix_is_no_title(line):
    # (a program's own line of the out of memory, not a person's: with no step before it, undetermined, and not
    # joined to a warm-up failure twenty lines on as a title would be)
    assert kind_of([line, *_TEMPLATE, "```", _DUMMY[0]])[0] == "UNDETERMINED"


# --- NIM's profile selection that found nothing runnable, alone (review 028: "find the phase" among four ledgers, the
# warm-up's among them, for a container that loaded nothing) -------------------------------------------------------

_NO_PROFILE = ("ERROR 2025-01-10 12:00:01.000 utils.py:21] Could not find a profile that is currently runnable with "
               "the detected hardware. Please check the system information below and make sure you have enough free "
               "GPUs.")


@pytest.mark.parametrize("above", [[], ["INFO 2025-01-10 12:00:00.123 ngc_profile.py:360] Detected 1 compatible "
                                        "profile(s)."]])
def test_no_runnable_profile_alone_could_be_only_the_weights_or_the_kv_cache(above):
    run = run_of(diag("\n".join([*above, _NO_PROFILE])))
    assert (run.kind, run.code) == ("UNDETERMINED", "failure-cause-not-shown")
    assert run.candidates == ["WEIGHTS", "KV_CAPACITY"]
    said = " ".join(a["why"] for a in run.advice)
    assert "warm-up" not in said and "quantized model" in said


def test_no_runnable_profile_for_low_free_memory_stays_the_guardrail():
    lines = ["INFO 2025-01-10 12:00:00.123 ngc_profile.py:360] Detected additional 1 compatible profile(s) that are "
             "currently not runnable due to low free GPU memory.", _NO_PROFILE]
    assert kind_of(lines) == ("UNDETERMINED", "guardrail-refused-load")


# --- a person's note set into the log at the line where the server ended (h500/09: "[FINAL LINE — server exits
# here]" read as a program's bracketed tag, and the run as served with no failure) ---------------------------------

_SAVED = "3.28.035.873 W srv prompt_save: - saving prompt with length 1783, total state size = 177.914 MiB"


@pytest.mark.parametrize("note", ["[FINAL LINE — server exits here]", "(server exits here)", "<-- server crashes here",
                                  "<<< process dies here", "← died here, no error", "(the process exited here)"])
def test_a_note_at_the_line_where_it_ended_is_a_failure_without_its_cause(note):
    assert kind_of([_SAVED, note]) == ("UNDETERMINED", "failure-cause-not-shown")


@pytest.mark.parametrize("note", ["[end of text]", "(see the full log below)", "<-- this is the prompt I sent",
                                  "[INFO] saving state"])
def test_a_bracketed_line_that_tells_no_end_is_no_failure(note):
    assert kind_of([_SAVED, note])[0] == "NONE"


# --- a client's own error that relays the server's JSON error body with its message as a string (h500/11: the Vercel
# AI SDK's "Type validation failed: Value: {\"error\":\"... exceeds the available context size ...\"}" read as the
# report's words of a failure, UNDETERMINED) --------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    'Type validation failed: Value: {"error":"[address=x.x.x.x:55469, pid=20175] request (33430 tokens) exceeds the '
    'available context size (32768 tokens), try increasing it"}.',
    'AI_APICallError: Request failed: {"error":"the request exceeds the available context size, try increasing it"}',
    'Error: Request failed with status code 500: {"error": "request (9000 tokens) exceeds the available context size '
    '(8192 tokens), try increasing it"}'])
def test_a_clients_error_relaying_the_servers_refusal_is_that_refusal(line):
    assert kind_of(["Got following error when using Qwen. How can we increase the context size?", "", line]) == (
        "NOT_OOM", "requests-refused-too-long")


def test_a_relayed_body_of_an_out_of_memory_stays_memory():
    line = 'Type validation failed: Value: {"error":"CUDA out of memory. Tried to allocate 2.00 GiB"}'
    assert kind_of(["I get this error:", line])[0] == "UNDETERMINED"


# --- a pool full while serving that the engine copes with by its scheduling (preempting, retracting, recomputing,
# keeping requests waiting) is no failure: NONE, its code kept, unless a failure follows or the report tells of a
# problem the full pool answers (h491/13, h499/10, review 066: read RUNTIME over logs where nothing failed) ---------

_PREEMPTED = ("WARNING 03-12 14:17:11 scheduler.py:1754] Sequence group chatcmpl-f4220c is preempted by "
              "PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can affect the end-to-end "
              "performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. "
              "total_num_cumulative_preemption=1")
_RETRACTED = ("[2025-05-10 08:05:02 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 2, "
              "#new_token_ratio: 0.4103 -> 0.7000")
_SERVED = ["INFO:     Application startup complete.",
           'INFO:     10.0.0.7:40312 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("pool", [_PREEMPTED, _RETRACTED])
@pytest.mark.parametrize("words", [[], ["#### 5. 运行报警 (gpu_memory_utilization)", "", "服务端会出现如下的提示信息"],
                                   ["Here is the log of our deployment for reference:"]])
def test_a_pool_full_under_load_that_the_engine_copes_with_is_no_failure(pool, words):
    run = run_of(diag("\n".join([*words, *_SERVED, pool, _SERVED[1]])))
    assert run.kind == "NONE" and run.code.startswith("kv-pool-full"), (run.kind, run.code)
    assert run.oom is False and run.advice  # (the steps that give the pool room are still offered)


@pytest.mark.parametrize("words", ["vLLM gets slow when 30 people use it.", "It slows down a lot after 20 users.",
                                   "Latency spikes when the team is online.", "服务在并发高的时候变慢",
                                   "The server hangs after a few requests.", "The server crashes under load."])
def test_a_full_pool_under_the_reports_words_of_a_problem_is_the_answer(words):
    run = run_of(diag("\n".join([words, "", *_SERVED, _PREEMPTED])))
    assert run.kind == "RUNTIME" and run.code == "kv-pool-full-preempting", (run.kind, run.code)


@pytest.mark.parametrize("words", ["The fix for the slow tokenizer is below.", "Is this slower than expected?"])
def test_words_of_slowness_that_tell_no_problem_leave_it_none(words):
    run = run_of(diag("\n".join([words, "", *_SERVED, _PREEMPTED])))
    assert run.kind == "NONE", (run.kind, run.code)


def test_a_crash_after_the_full_pool_stays_the_crash_after_it():
    lines = [*_SERVED, _RETRACTED, "Fatal Python error: Segmentation fault"]
    assert kind_of(lines) == ("RUNTIME", "crash-after-kv-pool-full")
