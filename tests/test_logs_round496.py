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
                                  "<<< process dies here", "← died here, no error", "(the process exited here)",
                                  "(dies here)", "# <- crashes here", "^^^ that's the last line, the process is gone",
                                  "the server is dead after this"])
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


# --- an application's marker before the error it relays (h501/03, /12: RAGFlow's "Fail to access model(...).
# **ERROR**: <cause>" read as a failure without its cause) ---------------------------------------------------------

@pytest.mark.parametrize("line", [
    'Fail to access model(qwen2:0.5b).**ERROR**:invalid format: expected "json" or a JSON schema',
    '**ERROR**: Error code: 400 - {"error": "max_tokens is too large"}'])
def test_an_apps_error_marker_carries_the_cause(line):
    assert kind_of(["adding a chat model will prompt: 102.", line]) == ("NOT_OOM", "error-not-memory")


@pytest.mark.parametrize("line", [
    "hint : 102 Fail to access model(VLLM/qwen3-30b).**ERROR**: CONNECTION_ERROR - Connection error.",
    "Fail to access model(qwen2:0.5b).**ERROR**: Request timed out.", "openai.APIConnectionError: Connection error."])
def test_a_client_that_could_not_reach_the_server_names_no_cause(line):
    # (as the README's conventions say of a client's "Connection refused": the server failed or never started)
    assert kind_of(["adding a chat model will prompt: 102.", line]) == ("UNDETERMINED", "failure-cause-not-shown")


def test_an_apps_error_marker_around_an_out_of_memory_stays_memory():
    line = "Fail to access model(qwen2:0.5b).**ERROR**: CUDA out of memory. Tried to allocate 2.00 GiB"
    assert kind_of([line])[0] == "UNDETERMINED"


# --- an error level line that names what FAILED (h497/07: llm-compressor's "ERROR - FAILED: Recovery thresholds not
# met" after a clean run read NONE) ----------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "2026-01-29T05:51:50.616588+0000 | compare_with_baseline | ERROR - FAILED: Recovery thresholds not met",
    "ERROR: FAILED: accuracy below threshold on gsm8k",
    'time=2026-01-29T05:51:50Z level=ERROR msg="FAILED: checksum mismatch for model file"'])
def test_an_error_line_of_what_failed_is_a_failure_not_memory(line):
    assert kind_of(['INFO:     127.0.0.1:1 - "POST /v1/completions HTTP/1.1" 200 OK', line]) == (
        "NOT_OOM", "error-not-memory")


def test_an_error_line_that_failed_for_memory_stays_memory():
    line = "2026-01-29T05:51:50Z | x | ERROR - FAILED: CUDA out of memory. Tried to allocate 2.00 GiB"
    assert kind_of([line])[0] == "UNDETERMINED"


# --- an embedding model's decode error that the engine answers anyway (h501/10: Ollama's /api/embed 200 after each
# "decode: cannot decode batches with this context (use llama_encode() instead)" read NOT_OOM) ---------------------

_DECODE = "decode: cannot decode batches with this context (use llama_encode() instead)"
_EMBED_OK = '[GIN] 2025/06/10 - 21:14:55 | 200 | 3.442s | 127.0.0.1 | POST "/api/embed"'


@pytest.mark.parametrize("after", [[_EMBED_OK], [_EMBED_OK, "", "why there is so much " + _DECODE],
                                   ["srv  log_server_r: request: POST /embedding 127.0.0.1 200"]])
def test_a_decode_error_answered_anyway_is_no_failure(after):
    assert kind_of([_EMBED_OK, _DECODE, _DECODE, *after])[0] == "NONE"


@pytest.mark.parametrize("after", [[], ["srv  send_error: task id = 3, error: Failed to decode the batch"],
                                   ['[GIN] 2025/06/10 - 21:14:58 | 500 | 3.442s | 127.0.0.1 | POST "/api/chat"']])
def test_a_decode_error_with_no_answer_after_it_stays_not_memory(after):
    assert kind_of([_EMBED_OK, _DECODE, *after]) == ("NOT_OOM", "decode-on-encoder-model")


# --- the multiprocessing resource tracker's own error at exit (h497/12: "KeyError: '/mp-h1ustgxb'" in
# resource_tracker.py after a server stopped by its harness read NOT_OOM) ------------------------------------------

_TRACKER = ["(EngineCore_DP0 pid=14297) /usr/lib/python3.12/multiprocessing/resource_tracker.py:123: UserWarning: "
            "resource_tracker: process died unexpectedly, relaunching.  Some resources might leak.",
            "Traceback (most recent call last):",
            '  File "/usr/lib/python3.12/multiprocessing/resource_tracker.py", line 239, in main',
            "    cache[rtype].remove(name)",
            "KeyError: '/mp-h1ustgxb'"]
_V1_SERVED = ["(APIServer pid=1) INFO:     Application startup complete.",
              '(APIServer pid=1) INFO:     127.0.0.1:35822 - "POST /v1/completions HTTP/1.1" 200 OK']


def test_the_resource_trackers_error_at_exit_is_no_failure():
    assert kind_of([*_V1_SERVED, *_TRACKER])[0] == "NONE"


def test_a_key_error_in_the_servers_own_frames_stays_a_failure():
    lines = [*_V1_SERVED, "Traceback (most recent call last):",
             '  File "/usr/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 239, in run_busy_loop',
             "    self.requests.pop(req_id)", "KeyError: 'cmpl-1'"]
    assert kind_of(lines)[0] == "NOT_OOM"


# --- ONNX Runtime's arena refusing a buffer (h501/06: RAGFlow's OCR, "Non-zero status code returned while running Clip
# node ... BFCArena::AllocateRawInternal ... Failed to allocate memory for requested buffer of size 44433408" read with
# all four ledgers open) ----------------------------------------------------------------------------------------------

_ARENA = ("/onnxruntime_src/onnxruntime/core/framework/bfc_arena.cc:376 void* onnxruntime::BFCArena::AllocateRawInternal"
          "(size_t, bool, onnxruntime::Stream*, bool, onnxruntime::WaitNotificationFn) Failed to allocate memory for "
          "requested buffer of size 44433408")
_RUN = ("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running Clip node. "
        "Name:'p2o.Clip.6' Status Message: " + _ARENA)
_INIT = ("onnxruntime.capi.onnxruntime_pybind11_state.RuntimeException: [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : "
         "Exception during initialization: " + _ARENA)


def test_onnx_runtimes_run_out_of_memory_is_a_forward_pass():
    run = run_of(diag(_RUN))
    assert (run.kind, run.candidates) == ("UNDETERMINED", ["WARMUP", "RUNTIME"]), (run.kind, run.candidates)


@pytest.mark.parametrize("served", ['INFO:     127.0.0.1:5000 - "POST /v1/embeddings HTTP/1.1" 200 OK',
                                    "INFO:     Application startup complete."])
def test_onnx_runtimes_run_out_of_memory_after_serving_began_is_runtime(served):
    assert kind_of([served, _RUN])[0] == "RUNTIME"


def test_onnx_runtimes_session_creation_out_of_memory_is_the_weights():
    assert kind_of([_INIT]) == ("WEIGHTS", "weights-alloc-failed")


def test_onnx_runtimes_run_failing_for_another_cause_is_not_memory():
    line = ("[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running Reshape node. "
            "Name:'Reshape_1' Status Message: shape mismatch")
    assert kind_of([line])[0] != "UNDETERMINED"


# --- several ledgers named by a message, narrowed by the run's own progress past all but one (the same rule for
# every message that names several: a load's refusal before serving keeps them all) ------------------------------

def test_a_message_naming_several_ledgers_before_any_progress_keeps_them():
    run = run_of(diag("No workers meet the resource requirements. Consider adjusting parameters such as "
                      "--gpu-memory-utilization (default: 0.9), --max-model-len"))
    assert run.kind == "UNDETERMINED" and len(run.candidates) == 2, (run.kind, run.candidates)


# --- the report's shorter words for what the log does not show (h504/06: "请求测试的时候出现illegal memory 错误";
# h504/10: "It print killed"; h504/02: "always blocked here" above a warm-up's last lines; all read NONE) -----------

@pytest.mark.parametrize("words", ["但是用请求测试的时候出现illegal memory 错误",
                                   "[Bug] v0.12.2-cu12.8部署qwen3.5的时候请，求任何内容出现 illegal memory",
                                   "Every request fails with an illegal memory error."])
def test_an_illegal_memory_error_in_the_reports_words_is_not_memory(words):
    assert kind_of([words]) == ("NOT_OOM", "illegal-memory-access")


def test_no_illegal_memory_error_is_no_failure():
    assert kind_of(["No illegal memory error this time, it works."])[0] == "NONE"


@pytest.mark.parametrize("words", ["When I used convert_checkpoint.py to convert Gemma hf format, It print killed",
                                   "it just says Killed and exits", "The terminal shows 'Killed' after a minute."])
def test_the_shells_killed_in_the_reports_words_is_a_failure_without_its_cause(words):
    assert kind_of([words]) == ("UNDETERMINED", "failure-cause-not-shown")


def test_killed_qualifying_a_noun_is_no_failure():
    assert kind_of(["It shows killed nodes in the graph view."])[0] == "NONE"


@pytest.mark.parametrize("words", ["tried similar config, but always blocked here:", "It stays blocked after this."])
def test_blocked_where_the_paste_ends_is_a_hang(words):
    lines = [words, "[10/11/2025-03:47:19] [TRT-LLM] [RANK 0] [I] Run generation only CUDA graph warmup for batch "
                    "size=32, draft_len=0"]
    assert kind_of(lines) == ("UNDETERMINED", "hang-no-error")


def test_blocked_by_a_firewall_is_no_hang():
    assert kind_of(["The port is blocked by the firewall, so I opened it."])[0] == "NONE"


# --- the report's words of a problem a full pool answers, in more wordings (review 51: timeouts, latency, sluggish,
# throughput drops, "takes forever", "never finish", 卡, 超时 read NONE), shown in the evidence -------------------

@pytest.mark.parametrize("words", [
    "Throughput drops to a crawl, first tokens take 30+ seconds", "clients start getting read timeouts",
    "并发一上来就特别卡，首字延迟十几秒", "Requests time out under load", "Responses are really sluggish",
    "High latency under load, p99 is over a minute", "高并发时请求超时，客户端报 504",
    "Users complain it takes forever to answer", "Some requests never finish"])
def test_more_words_of_slowness_make_the_full_pool_the_answer(words):
    run = run_of(diag("\n".join([words, "", *_SERVED, _PREEMPTED])))
    assert (run.kind, run.code) == ("RUNTIME", "kv-pool-full-preempting"), (run.kind, run.code)
    assert any(e["line"] == 1 for e in run.evidence) and "report's words" in run.phase_source, run.evidence


# --- a pool full under load, then the process stopped: the tracker's error at exit, or Ctrl-C (review 51: read RUNTIME,
# "a failure follows") ------------------------------------------------------------------------------------------------

_V1_FULL = ("(APIServer pid=1) INFO 09-01 13:00:48 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg "
            "generation throughput: 834.0 tokens/s, Running: 7 reqs, Waiting: 3 reqs, GPU KV cache usage: 100.0%, "
            "Prefix cache hit rate: 42.4%")
_WARN_SOURCE = "  warnings.warn('resource_tracker: process died unexpectedly, '"


@pytest.mark.parametrize("tail", [_TRACKER, [*_TRACKER[:1], _WARN_SOURCE, *_TRACKER[1:]],
                                  ["^C", "Traceback (most recent call last):", '  File "/usr/bin/vllm", line 8, in <module>',
                                   "    sys.exit(main())", "KeyboardInterrupt"]])
def test_a_full_pool_then_the_process_stopped_stays_no_failure(tail):
    assert kind_of([*_V1_SERVED, _V1_FULL, *tail])[0] == "NONE"


def test_the_trackers_warning_printed_with_its_source_line_is_no_failure():
    assert kind_of([*_V1_SERVED, _TRACKER[0], _WARN_SOURCE, *_TRACKER[1:]])[0] == "NONE"


# --- a YAML config pasted above the failure names settings, not the step under way (h505/09: "compilation-config:
# '{... \"cudagraph_capture_sizes\":[1,2,4,8]}'" read as graph capture, WARMUP) -----------------------------------

_EL0004 = ("(Worker_DP0_TP0_EP0 pid=1355611) ERROR 10-30 16:22:05 [multiproc_executor.py:703] [PID: 1355611] "
           "2025-10-30-16:22:05.620.760 Memory_Allocation_Failure(EL0004): Failed to allocate memory.")


@pytest.mark.parametrize("setting", [
    "compilation-config: '{\"cudagraph_mode\":\"FULL_DECODE_ONLY\",\"cudagraph_capture_sizes\":[1,2,4,8]}'",
    "  cudagraph_capture_sizes: [1,2,4,8]", "warmup_steps: 3"])
def test_a_yaml_setting_is_no_step(setting):
    assert kind_of(["max-num-seqs: 8", setting, _EL0004])[0] == "UNDETERMINED"


def test_the_engines_own_line_of_graph_capture_is_still_the_step():
    line = ("INFO 10-30 16:22:00 [model_runner.py:1] Capturing cudagraphs for decoding. This may lead to unexpected "
            "consequences")
    assert kind_of([line, _EL0004])[0] == "WARMUP"


# --- IPython's line for an interrupted cell, "KeyboardInterrupt: " with its empty message (h503/06: a notebook's
# generate stopped by hand read UNDETERMINED) -------------------------------------------------------------------------

_PROCESSED = "Processed prompts:  48%|████▊     | 4800/10000 [12:01<13:01,  6.65it/s, est. speed input: 900.00 toks/s]"


@pytest.mark.parametrize("last", ["KeyboardInterrupt: ", "KeyboardInterrupt:", "KeyboardInterrupt"])
def test_a_cell_stopped_by_hand_is_no_failure(last):
    lines = [_PROCESSED, "---------------------------------------------------------------------------",
             "KeyboardInterrupt                         Traceback (most recent call last)",
             "File /usr/local/lib/python3.10/dist-packages/vllm/model_executor/layers/sampler.py:331, in "
             "_greedy_sample(selected_seq_groups, samples)", "--> 331     samples_lst = samples.tolist()", "", last]
    assert kind_of(lines)[0] == "NONE"


def test_an_interrupt_with_a_message_of_its_own_is_not_by_hand():
    lines = [_PROCESSED, "Traceback (most recent call last):", '  File "x.py", line 3, in <module>',
             "KeyboardInterrupt: the watchdog interrupted the main thread after 600 s"]
    assert kind_of(lines)[0] != "NONE"
