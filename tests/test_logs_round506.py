"""Kinds of fault found in stop 52: the leftovers of stop 51's review and held-out rounds 506 and later, each in
several wordings of our own, with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, kind_of, run_of

# --- a title whose tag asks for something (review 51's c25, c26, c28: an "[RFC]", a "[Roadmap]" to-do item, a "[Doc]"
# title that names an out of memory, over a healthy log or none, read as the failure) --------------------------------

_HEALTHY = ["```",
            "INFO 10-15 09:12:01 api_server.py:526] vLLM API server version 0.6.3.post1",
            "INFO 10-15 09:12:17 model_runner.py:1067] Loading model weights took 14.9888 GB",
            "INFO 10-15 09:12:19 gpu_executor.py:122] # GPU blocks: 2893, # CPU blocks: 2048",
            "INFO 10-15 09:12:35 model_runner.py:1523] Graph capturing finished in 14 secs.",
            "INFO:     Application startup complete.",
            'INFO:     10.0.0.5:51200 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
            "```"]


@pytest.mark.parametrize("title", [
    "[RFC]: Clearer error message when the KV cache does not fit (instead of a bare OOM)",
    "[Doc]: explain what to do about OOM when loading weights",
    "[Docs] Document how to avoid CUDA out of memory during CUDA graph capture",
    "## [Feature]: fall back to CPU offload instead of crashing with OOM at start-up",
    "Feature Request: lower -c automatically when the KV cache fails to allocate",
    "[Feature Request] Retry with a smaller batch on out of memory"])
def test_a_title_that_asks_for_something_is_no_failure(title):
    assert kind_of([title, "", "For reference, a normal start:", "", *_HEALTHY])[0] == "NONE"


@pytest.mark.parametrize("item", ["- [ ] Reduce CUDA graph memory usage (OOM during capture on small GPUs)",
                                  "* [x] Fix the KV cache OOM at 128k context",
                                  "1. [ ] out of memory while loading the weights of MoE models on 2 GPUs"])
def test_a_roadmaps_task_item_is_no_failure(item):
    assert kind_of(["[Roadmap] Q3 2025 Roadmap", "", "This issue tracks the main items for Q3.", "", item,
                    "- [ ] Faster startup"])[0] == "NONE"


def test_a_programs_out_of_memory_under_an_asking_title_is_still_the_runs():
    # (a feature request that pastes the failure it was written for: the program's line is the run's own)
    lines = ["[Feature]: offload the KV cache when it does not fit", "", "Today it crashes:", "", "```",
             "INFO 10-15 09:12:17 model_runner.py:1067] Loading model weights took 14.9888 GB",
             "ERROR 10-15 09:12:19 engine.py:366] ValueError: No available memory for the cache blocks. Try increasing "
             "`gpu_memory_utilization` when initializing the engine.", "```"]
    assert kind_of(lines)[0] == "KV_CAPACITY"


@pytest.mark.parametrize("title", ["[Bug]: OOM when loading weights", "[Usage]: out of memory when loading weights",
                                   "[Tracking Issue] CUDA out of memory when loading weights"])
def test_a_reports_title_still_tells_its_failure(title):
    # (a report of a run: its title's out of memory over a log cut before any step stays a failure)
    assert kind_of([title, "", "```", "INFO 10-15 09:12:01 api_server.py:526] vLLM API server version 0.6.3.post1",
                    "```"])[0] not in ("NONE", "NOT_OOM")


def test_a_task_item_in_a_bug_report_still_tells_its_failure():
    lines = ["[Bug]: crash at start-up", "", "- [x] lowered gpu_memory_utilization, still CUDA out of memory while "
             "loading the weights"]
    assert kind_of(lines)[0] not in ("NONE", "NOT_OOM")


# --- a client's error that carries the server's 5xx answer with an out of memory in it (review 51's c41: all four
# phases; the server answered a request, so it was serving) -------------------------------------------------------

@pytest.mark.parametrize("line", [
    "openai.InternalServerError: Error code: 500 - {'object': 'error', 'message': 'CUDA out of memory. Tried to "
    "allocate 1.95 GiB. GPU 0 has a total capacity of 22.06 GiB of which 1.12 GiB is free.', 'code': 500}",
    "requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: http://gpu:8000/generate "
    "(torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB)",
    '{"error":{"code":500,"message":"CUDA out of memory. Tried to allocate 2.00 GiB","type":"server_error"}}'])
def test_a_relayed_5xx_with_an_out_of_memory_is_a_request_that_failed_while_serving(line):
    assert kind_of(["My client got this from the vLLM server:", "", line])[0] == "RUNTIME"


@pytest.mark.parametrize("line", [
    # (a server that loads its model for the request: the 500 may be that load)
    "Error: 500 Internal Server Error: llama runner process has terminated: cudaMalloc failed: out of memory",
    # (a request that was itself a load: Xinference's launch, a LoRA adapter's load)
    "RuntimeError: Error code: 500 - Failed to launch model, detail: CUDA out of memory. Tried to allocate 2.00 GiB"])
def test_a_relayed_5xx_of_a_load_is_not_read_as_serving(line):
    assert kind_of(["ollama run qwen2.5:32b" if "llama runner" in line else "xinference launch -n qwen2.5", line])[0] \
        != "RUNTIME"


# --- a relayed error body that names no cause (review 51's c46, c4e, c4f read NOT_OOM): the server's log says why --

@pytest.mark.parametrize("line", [
    'Error: 500 {"error":{"code":500,"message":"Compute error.","type":"server_error"}}',
    'openai.APIError: {"error":{"message":"Internal Server Error","code":500}}',
    "Error: HTTP 502 Bad Gateway from http://gpu-box:8080/v1/chat/completions",
    '{"error":{"code":503,"message":"Service Unavailable","type":"server_error"}}'])
def test_a_relayed_body_that_names_no_cause_is_undetermined(line):
    assert kind_of(["My app shows this error when the prompt is long:", "", line])[0] == "UNDETERMINED"


def test_a_relayed_body_that_names_a_cause_stays_that_cause():
    line = 'Error: 400 {"error":{"code":400,"message":"the request exceeds the available context size","type":' \
           '"exceed_context_size_error"}}'
    assert kind_of(["My app shows this error:", "", line])[0] == "NOT_OOM"


# --- Python's own words that the module or script it was told to run is not there (h511/02: "python: No module named
# bentoml" under "Model loading..." read as no failure) --------------------------------------------------------------

@pytest.mark.parametrize("line", ["/home/u/.openllm/venv/6084/bin/python: No module named bentoml",
                                  "/usr/bin/python3: Error while finding module specification for "
                                  "'vllm.entrypoints.openai.api_server' (ModuleNotFoundError: No module named 'vllm')",
                                  "python: can't open file '/app/server.py': [Errno 2] No such file or directory"])
def test_python_not_finding_what_to_run_is_a_command_not_found(line):
    assert kind_of(["$ python -m bentoml serve gemma:2b --port 33009", "Model server started 2459797",
                    "Model loading...", line]) == ("NOT_OOM", "command-not-found")


# --- a report's words that the KV cache's own units leak (h509/04: "llama-server leaks KV cells at a fixed per-request
# rate until the pool is exhausted" read NONE) -----------------------------------------------------------------------

@pytest.mark.parametrize("words", ["llama-server leaks KV cells at a fixed per-request rate until the pool is exhausted.",
                                   "KV blocks are leaked on every aborted request, so the pool shrinks.",
                                   "The scheduler keeps leaking cache pages under sustained load.",
                                   "长时间运行后，主机内存（RAM）只涨不跌。",
                                   "server 进程 RSS 从约 13GB 一路增长到 47.8GB。"])
def test_a_reports_words_of_leaked_kv_units_or_memory_only_rising_is_a_leak(words):
    assert kind_of(["### Summary", "", words])[0] == "LEAK"


@pytest.mark.parametrize("words", ["The pool has 2048 KV blocks and 16 cells per block.",
                                   "KV cells are freed when a request ends."])
def test_kv_units_without_a_leak_are_no_leak(words):
    assert kind_of(["### Summary", "", words])[0] != "LEAK"


# --- vLLM's KV capacity check by its last sentence or the report's name for it (h509/07, h509/11) -------------------

@pytest.mark.parametrize("words", [
    '| `MAX_LEN=256000` | `ValueError`: needs 5.67 GiB of KV, 4.55 GiB available; "estimated maximum model length is '
    '185840" |',
    "Based on the available memory, the estimated maximum model length is 185840.",
    "`--attention-backend FLASHINFER` fails the startup KV-cache-memory check at a `--max-model-len` that FLASH_ATTN "
    "serves fine.",
    "With fp8 the KV cache memory check failed at 128k."])
def test_vllms_kv_capacity_check_in_short_is_kv_capacity(words):
    assert kind_of(["vLLM 0.11.0", "", words])[0] == "KV_CAPACITY"


def test_a_kv_check_that_no_longer_fails_is_no_kv_capacity_failure():
    assert kind_of(["vLLM 0.11.0", "", "With 0.95 it no longer fails the KV cache memory check and works now."])[0] \
        != "KV_CAPACITY"


# --- an assertion on a choice among named options (h506/02: SGLang's "KV4 MHA expects attention_backend to be one of
# [...], but got flashinfer" read as a cut traceback, its "KV" as memory) -------------------------------------------

@pytest.mark.parametrize("line", [
    "AssertionError: KV4 MHA expects attention_backend to be one of ['triton', 'torch_native', 'flex_attention'], but "
    "got flashinfer",
    "AssertionError: expects kv_cache_dtype to be one of ['auto', 'fp8_e4m3'], but got int4"])
def test_an_assertion_on_a_choice_of_setting_is_not_memory(line):
    lines = ["Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/server_args.py", line 2837, in _handle_kv4',
             "    self.attention_backend in KV4_ATTENTION_MHA_BACKEND_CHOICES", line]
    assert kind_of(lines)[0] == "NOT_OOM"


def test_an_assertion_on_free_blocks_is_not_read_as_a_choice():
    lines = ["Traceback (most recent call last):", '  File "/x/block_manager.py", line 12, in allocate',
             "    assert num_free_blocks >= num_required", "AssertionError"]
    assert kind_of(lines)[0] != "NOT_OOM"


# --- an operating system's error by its number in a program's "failed with" (h511/03: LiteLLM's "`ollama serve`
# failed with Exception[WinError 2] ..." read as a failure without its cause) ----------------------------------------

@pytest.mark.parametrize("line", ["`ollama serve` failed with Exception[WinError 2] 系统找不到指定的文件。.",
                                  "`ollama serve` failed with Exception[WinError 2] The system cannot find the file "
                                  "specified.",
                                  "The worker failed with [Errno 13] Permission denied: '/models'"])
def test_failed_with_an_os_error_names_its_cause(line):
    assert kind_of(["LiteLLM Warning: proxy started with `ollama` model", line])[0] == "NOT_OOM"


def test_failed_with_an_os_error_of_memory_is_not_read_as_another_cause():
    assert kind_of(["The worker failed with [Errno 12] Cannot allocate memory"])[0] != "NOT_OOM"


# --- a program's "Failed to <step>: <cause>" at a line's start, no level word (h511/05: RamaLama's "Failed to create
# new snapshot: Expected GGUF version '3', but got '2'" over a cut traceback read UNDETERMINED) ---------------------

@pytest.mark.parametrize("line", ["Failed to create new snapshot: Expected GGUF version '3', but got '2'",
                                  "Failed to parse chat template: unexpected token '{%' at line 3"])
def test_a_programs_failed_to_with_its_cause_over_a_cut_traceback_is_that_cause(line):
    lines = [line, "Removing snapshot...", "Traceback (most recent call last):",
             '  File "/sbin/ramalama", line 8, in <module>', "    sys.exit(main())", "[...]",
             '  File "/usr/lib/python3.13/site-packages/ramalama/model_store.py", line 485, in _ensure_chat_template']
    assert kind_of(lines)[0] == "NOT_OOM"


def test_a_programs_failed_to_allocate_stays_memory():
    assert kind_of(["Failed to allocate buffer: cudaMalloc failed: out of memory"])[0] not in ("NOT_OOM", "NONE")


# --- Ray Serve's replica that cannot be scheduled (h511/06: read as a hang) -----------------------------------------

def test_a_replica_ray_cannot_schedule_is_not_memory():
    line = ('{"levelname": "WARNING", "message": "deployment_state.py:2152 - Deployment \'VLLMDeployment:x\' in '
            "application 'ray-llm' 1 replicas that have taken more than 30s to be scheduled. This may be due to waiting "
            "for the cluster to auto-scale. Resources required for each replica: [{\\\"CPU\\\": 1.0, \\\"GPU\\\": 1.0}], "
            'total resources available: {}. Use `ray status` for more details."}')
    assert kind_of(["The serving is stuck at the replica:", line])[0] == "NOT_OOM"


# --- llama.cpp's 2024 key=value server log, kept by forks (h508/03: ik_llama.cpp's "Got exception ... code=500
# message=..." for a chat template that does not render read NONE, the engine unknown) -----------------------------

_KV_LOG = 'INFO [      log_server_request] request | tid="5832" timestamp=1757425277 remote_addr="127.0.0.1" ' \
          'remote_port=59900 status=200 method="POST" path="/v1/chat/completions" params={}'


@pytest.mark.parametrize("message", ["split method must have between 1 and 1 positional arguments at row 3",
                                     "Unknown method: startswith at row 1, column 50"])
def test_a_request_exception_in_the_key_value_log_is_its_cause(message):
    line = (f'VERB [              operator()] Got exception | tid="140045" timestamp=1758970570 code=500 '
            f'message="{message}"')
    assert kind_of([_KV_LOG, line]) == ("NOT_OOM", "error-not-memory")


def test_a_request_exception_of_memory_in_the_key_value_log_stays_memory():
    line = ('VERB [              operator()] Got exception | tid="1" timestamp=1 code=500 message="failed to allocate '
            'compute buffer: out of memory"')
    assert kind_of([_KV_LOG, line])[0] != "NOT_OOM"


def test_the_key_value_log_is_llama_cpps():
    assert diag("\n".join([_KV_LOG] * 3)).engine == "llamacpp"


# --- a count a script prints under an error label (h507/07: "parse error: 116" read as a failure) -------------------

@pytest.mark.parametrize("line", ["parse error: 116", "errors: 0", "validation error: 12.5%"])
def test_a_count_under_an_error_label_is_no_failure(line):
    assert kind_of(["INFO 04-01 10:00:00 llm_engine.py:100] Initializing an LLM engine (v0.4.0.post1)", "correct: 51",
                    line])[0] == "NONE"


# --- a note after a request begun after the last answered one (review 51's c3b, c37: the run read as ending on the
# answer, the request under way after it not seen) -------------------------------------------------------------------

_SLOTS = ["srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
          "srv  update_slots: all slots are idle"]
_BEGUN = ["slot launch_slot_: id  0 | task 912 | processing task",
          "slot update_slots: id  0 | task 912 | new prompt, n_ctx_slot = 16384, n_keep = 0, n_prompt_tokens = 5120",
          "slot update_slots: id  0 | task 912 | prompt processing progress, n_past = 2048, n_tokens = 2048, progress "
          "= 0.400000"]
_VLLM_BEGUN = ['INFO:     10.0.0.5:51200 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
               "INFO 10-15 09:13:05 engine.py:267] Added request chat-5f1c2d.",
               "INFO 10-15 09:13:05 metrics.py:349] Avg prompt throughput: 0.0 tokens/s, Running: 1 reqs, Pending: 0 "
               "reqs, GPU KV cache usage: 40.0%"]


@pytest.mark.parametrize("note", ["[no output after this; the server is dead]",
                                  "^^^ that's the last line, the process is gone after this",
                                  "<-- the server crashes here"])
@pytest.mark.parametrize("log", [_SLOTS + _BEGUN, _VLLM_BEGUN])
def test_a_note_after_a_request_begun_after_the_last_answer_is_a_failure(log, note):
    assert kind_of([*log, note])[0] == "UNDETERMINED"


def test_a_note_right_after_the_last_answer_still_reads_it_as_served():
    assert kind_of([*_SLOTS, *_BEGUN, *_SLOTS, "It doesn't work as expected."])[0] == "NONE"


# --- llama-server's retry with a smaller batch when the cells are full (review 51's c15: read as a failure, where the
# requests were then answered): it coped, as vLLM's preemption does ------------------------------------------------

_LLAMA_START = ["main: build = 6123 (a1b2c3d)", "llama_kv_cache: size = 2560.00 MiB ( 16384 cells,  40 layers,  4/4 seqs)",
                "main: server is listening on http://0.0.0.0:8080 - starting the main loop",
                "slot launch_slot_: id  0 | task 0 | processing task"]
_RETRY = ["decode: failed to find a memory slot for batch of size 2048",
          "srv  update_slots: failed to find free space in the KV cache, retrying with smaller batch size, i = 0, "
          "n_batch = 2048, ret = 1"]
_OLD_RETRY = ["update_slots: failed to find free space in the KV cache, retrying with smaller n_batch = 256"]
_ANSWERED = ["srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
             "srv  update_slots: all slots are idle"]


@pytest.mark.parametrize("retry", [_RETRY, _OLD_RETRY])
def test_a_retry_with_a_smaller_batch_then_answers_is_no_failure(retry):
    assert kind_of([*_LLAMA_START, *retry, *_ANSWERED]) == ("NONE", "kv-pool-full-smaller-batch")


def test_retries_that_end_in_the_batch_failing_are_a_failure():
    failed = ["srv  update_slots: failed to decode the batch: KV cache is full - try increasing it via the context "
              "size, i = 0, n_batch = 1, ret = 1"]
    assert kind_of([*_LLAMA_START, *_RETRY, *failed, *_ANSWERED])[0] == "RUNTIME"


def test_a_retry_under_the_reports_words_of_slowness_is_the_answer():
    assert kind_of(["It gets very slow with 4 users.", "", *_LLAMA_START, *_RETRY, *_ANSWERED])[0] == "RUNTIME"


# --- huggingface_hub's error it says it goes on from (h515/06: "Could not cache non-existence of file. Will ignore
# error and continue. Error: [Errno 30] Read-only file system" read as an unrecognised failure) ---------------------

@pytest.mark.parametrize("line", [
    "Could not cache non-existence of file. Will ignore error and continue. Error: [Errno 30] Read-only file system: "
    "'/root/.cache/huggingface/hub/models--Qwen--Qwen2.5-1.5B-Instruct/.no_exist/x/generation_config.json'",
    "WARNING: failed to write the prompt cache: disk full. Ignoring the error and continuing."])
def test_an_error_the_program_says_it_goes_on_from_is_no_failure(line):
    assert kind_of(["[2026-06-08 04:09:10] server_args=ServerArgs(model_path='Qwen/Qwen2.5-1.5B-Instruct')", line,
                    "[2026-06-08 04:09:30] The server is fired up and ready to roll!"])[0] == "NONE"


def test_every_message_has_a_rank():
    # (a message of the generic words with neither phase nor code is ranked as "generic": its kind must have a rank
    # there, or every line it matches ends in an internal error)
    from vramdoctor.logs.knowledge import RANK, knowledge
    for e in knowledge().engines:
        for m in e.log.messages:
            origin = "generic" if e.name == "generic" and not (m.phase or m.code) else "explicit"
            assert (origin, m.kind) in RANK, (e.name, m.kind, m.pattern.pattern[:80])


# --- Python's warning source line at the log's end is whole (h515/11: "  warnings.warn(" under the resource tracker's
# warning read as a line cut partway, after a Ctrl-C) ---------------------------------------------------------------

@pytest.mark.parametrize("warning", [
    "/opt/conda/lib/python3.13/multiprocessing/resource_tracker.py:400: UserWarning: resource_tracker: There appear "
    "to be 1 leaked semaphore objects to clean up at shutdown: {'/mp-dn3dtsb8'}",
    "/usr/lib/python3/dist-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: The NVIDIA driver "
    "on your system is too old"])
def test_a_warnings_source_line_at_the_end_is_no_cut_line(warning):
    lines = ["INFO 06-02 11:46:37 [api_server.py:1000] vLLM API server version 0.22.0",
             "INFO 06-02 11:46:50 [launcher.py:44] Route: /v1/chat/completions, Methods: POST",
             "INFO:     Application startup complete.", warning, "  warnings.warn("]
    assert kind_of(lines)[1] != "log-cut-off"


def test_a_line_cut_at_an_open_bracket_is_still_cut():
    lines = ["INFO 06-02 11:46:37 [api_server.py:1000] vLLM API server version 0.22.0",
             "INFO 06-02 11:46:38 [model_runner.py:1000] Starting to load model x...", "INFO 06-02 11:46:39 [gpu_model_"
             "runner.py:2000] Loading weights took 10.0 GiB (", ]
    assert kind_of(lines)[1] == "log-cut-off"


# --- the report's own words: Kubernetes' CrashLoopBackOff (h512/01), memory that "runs out" (h513/08), a model asked a
# number of times (h513/08), a checkpoint read with torch.load (h513/09) --------------------------------------------

@pytest.mark.parametrize("words", ["The router pod goes into crashLoopBack on deployment.",
                                   "The vllm pod is in CrashLoopBackOff after the upgrade."])
def test_a_pod_in_crash_loop_back_off_is_a_failure_stated(words):
    lines = [words, "", "[2026-01-14 18:54:21,503] DEBUG: a default silent WAV file has been stored in memory"]
    assert kind_of(lines)[0] == "UNDETERMINED"


@pytest.mark.parametrize("words", [
    "When I query it more than 4 or so times it tries to allocate more memory and runs out.",
    "After I ask it a few times, memory and then runs out... CUDA out of memory.",
    "If I prompt the model 3 times it runs out of memory."])
def test_a_model_asked_a_number_of_times_then_out_of_memory_is_serving(words):
    assert kind_of([words])[0] == "RUNTIME"


def test_memory_that_runs_out_of_another_thing_is_not_out_of_memory():
    assert kind_of(["The pool of free memory and runs out of slots quickly; requests wait."])[0] not in (
        "WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME")


@pytest.mark.parametrize("code", ['torch.load(ckpt_path, map_location="cpu")',
                                  "checkpoint = torch.load(os.path.join(ckpt_dir, 'consolidated.00.pth'))"])
def test_running_out_of_ram_on_a_torch_load_line_is_the_weights(code):
    lines = ["In Google Colab, when I run the example.py script, I run out of System RAM on the following line:",
             "```python", code, "```"]
    assert kind_of(lines)[0] == "WEIGHTS"


# --- the sampler's own token (h505/11: Ollama-MUSA's "panic: failed to sample token: sample: logits sum to NaN" read
# as an unrecognised error of memory, "token" taken for an amount) ---------------------------------------------------

@pytest.mark.parametrize("line", ["panic: failed to sample token: sample: logits sum to NaN",
                                  "RuntimeError: failed to sample token: probability tensor contains inf or nan",
                                  "Failed to parse chat template: unexpected token '{%' at line 3, column 5."])
def test_one_token_in_an_error_is_no_amount_of_memory(line):
    assert kind_of(["time=2025-05-01T10:00:00.000+08:00 level=INFO source=server.go:619 msg=\"llama runner started in "
                    "3.52 seconds\"", line, "", "goroutine 23 [running]:"])[0] == "NOT_OOM"


def test_tokens_counted_in_an_error_may_still_be_memory():
    assert kind_of(["ValueError: the request needs 9000 tokens but the cache holds 8192"])[0] != "NOT_OOM"


# --- a failure the report states over access lines of client errors (h508/04: a server answering remote requests
# with 404, "the failed remote request", read UNDETERMINED) ----------------------------------------------------------

@pytest.mark.parametrize("access", [
    ['INFO [      log_server_request] request | tid="11080" timestamp=1757425238 remote_addr="192.168.0.101" '
     'remote_port=61851 status=404 method="GET" path="http://192.168.0.110:8080/" params={}'],
    ['INFO:     10.0.0.7:51200 - "POST /v1/chat/completion HTTP/1.1" 404 Not Found'],
    ["[GIN] 2025/05/01 - 10:00:05 | 401 |     1.2ms |  10.0.0.7 | POST     \"/api/chat\""]])
def test_a_stated_failure_over_client_errors_is_the_request_refused(access):
    lines = ["When I call the server from another machine it fails.", "", "The server log for this failed request:",
             "", "```", *access, *access, "```"]
    assert kind_of(lines) == ("NOT_OOM", "requests-answered-with-client-error")


def test_a_stated_failure_over_server_errors_is_not_read_as_refused():
    lines = ["When I call the server it fails.", "", "```",
             'INFO:     10.0.0.7:51200 - "POST /v1/chat/completions HTTP/1.1" 404 Not Found',
             'INFO:     10.0.0.7:51202 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error', "```"]
    assert kind_of(lines)[1] != "requests-answered-with-client-error"


# --- a pull request's words of the fault it fixes, above the output of its test (h505/07: "我刚刚用的时候爆显存了" over
# "## 测试结果" and a clean start read RUNTIME) -------------------------------------------------------------------

_CLEAN = ["```", "INFO 10-15 09:12:01 api_server.py:526] vLLM API server version 0.6.3.post1",
          "INFO 10-15 09:12:17 model_runner.py:1067] Loading model weights took 14.9888 GB",
          "INFO 10-15 09:12:35 model_runner.py:1523] Graph capturing finished in 14 secs.",
          "INFO:     Application startup complete.", "```"]


@pytest.mark.parametrize("words,heading", [
    (["## Purpose", "", "Fix the CUDA out of memory during CUDA graph capture on 24 GB GPUs (FIX #12345)."],
     "## Test Result"),
    (["## 概述", "小小的优化一下，我刚刚用的时候爆显存了。", "应该可以解决小显存用户报`RuntimeError: CUDA out of memory`的问题"],
     "## 测试结果"),
    (["This PR lowers the default max_num_seqs: the server crashed with OOM at start-up on L4s."],
     "### Results after the fix")])
def test_a_pull_requests_fault_above_its_clean_test_output_is_no_failure(words, heading):
    assert kind_of([*words, "", heading, *_CLEAN])[0] == "NONE"


def test_a_pull_requests_test_output_that_still_fails_is_that_failure():
    lines = ["## Purpose", "", "Fix the OOM at start-up.", "", "## Test Result", "```",
             "INFO 10-15 09:12:17 model_runner.py:1067] Loading model weights took 14.9888 GB",
             "ERROR 10-15 09:12:19 engine.py:366] ValueError: No available memory for the cache blocks. Try increasing "
             "`gpu_memory_utilization` when initializing the engine.", "```"]
    assert kind_of(lines)[0] == "KV_CAPACITY"


def test_a_test_plan_is_no_test_output():
    lines = ["The server crashes with CUDA out of memory when loading the weights.", "", "## Test Plan",
             "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 2"]
    assert kind_of(lines)[0] not in ("NONE", "NOT_OOM")


# --- a launcher's next numbered step ends the one before it (h516/02: "[5/6] Warmup benchmark..." read as the step
# under way past "[6/6] Starting server...") -------------------------------------------------------------------------

@pytest.mark.parametrize("steps", [["[4/6] Loading model weights...", "[5/6] Warming up...", "[6/6] Starting server..."],
                                   ["(2/3) Warmup pass", "(3/3) Launching the API server"],
                                   ["Step 2/3: warm-up run", "Step 3/3: serving on port 8080"]])
def test_a_later_numbered_step_ends_the_warm_up_before_it(steps):
    assert kind_of([*steps, "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"])[0] != "WARMUP"


def test_the_last_numbered_step_is_still_the_step_under_way():
    lines = ["[4/6] Loading model weights...", "[5/6] Warming up the model...",
             "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"]
    assert kind_of(lines)[0] == "WARMUP"


# --- the report's words of an error above the program's own line of it (h518/02: "vllm-metal errors out with an
# assertion failure" over served requests and "EngineCore encountered a fatal error." read with no progress at all) --

@pytest.mark.parametrize("words", ["When running bench serve, vllm-metal errors out with an assertion failure.",
                                   "The engine errors out after a few requests.",
                                   "With three prompts it fails with an error."])
def test_the_programs_own_error_with_its_progress_decides_over_the_reports_words(words):
    lines = [words, "", "(APIServer pid=1) INFO:     Application startup complete.",
             '(APIServer pid=1) INFO:     127.0.0.1:50894 - "POST /v1/completions HTTP/1.1" 200 OK',
             "(EngineCore_DP0 pid=2) ERROR 03-17 12:30:26 [core.py:938] EngineCore encountered a fatal error.",
             "(EngineCore_DP0 pid=2) ERROR 03-17 12:30:26 [core.py:938] Traceback (most recent call last):"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "UNDETERMINED" and run.candidates == ["RUNTIME"], (run.kind, run.candidates)


# --- llama-server's 503 "Loading model" as a client relays it (h517/07: litellm's "ServiceUnavailableError:
# OpenAIException - Loading model." read as a traceback cut short) --------------------------------------------------

@pytest.mark.parametrize("line", [
    "litellm.ServiceUnavailableError: ServiceUnavailableError: OpenAIException - Loading model. Traceback: Traceback "
    "(most recent call last):",
    '{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}',
    "Error: 503 Service Unavailable: Loading model"])
def test_a_request_answered_loading_model_is_not_memory(line):
    assert kind_of(["The agent fails right after I start the server:", "", line]) == ("NOT_OOM", "server-still-loading")


def test_a_load_that_failed_is_not_read_as_still_loading():
    assert kind_of(["llama_model_load: error loading model: unable to allocate CUDA0 buffer",
                    '{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}'])[0] != "NOT_OOM"


# --- a GPU architecture a library refuses (h518/03: aiter's "One of GPU archs of ['gfx1151'] is invalid or not
# supported" as the title over a cut traceback), and an out of memory the report calls false (h518/09) -------------

@pytest.mark.parametrize("line", ["One of GPU archs of ['gfx1151'] is invalid or not supported with VLLM_ROCM_USE_AITER: 1",
                                  "RuntimeError: Unsupported GPU architecture: gfx906",
                                  "ValueError: GPU arch ['sm_61'] is not supported by this build"])
def test_a_gpu_architecture_refused_is_not_memory(line):
    assert kind_of([line, "", "```", "RuntimeError: Engine core initialization failed. See root cause above.",
                    "```"]) == ("NOT_OOM", "gpu-unsupported")


@pytest.mark.parametrize("words", [
    "Any attempt to allocate a tensor on XPU fails with a false `OutOfMemoryError` — even though the GPU reports 11.33 "
    "GiB free.",
    "It crashes with a spurious OOM even though 20 GB are free.",
    "We get bogus out-of-memory errors on the first allocation since 1.4."])
def test_an_out_of_memory_the_report_calls_false_is_not_memory(words):
    assert kind_of([words])[0] == "NOT_OOM"


@pytest.mark.parametrize("words", ["Is this a false OOM?", "This is not a false OOM, the cache really is full."])
def test_an_out_of_memory_asked_or_denied_false_is_not_read_as_false(words):
    assert kind_of([words])[0] != "NOT_OOM"


# --- review 52 (helper-538): the retries answered through the 2024 key=value access line; a batch that failed after
# retries keeps its code; a feature request's motivation; a roadmap item quoting an engine's line; a second question
# after a why-question; counts of none; growth at each reload; leaked blocks; a fix told with "now it's Running"; a
# proxy's HTML error page; a message naming what was not found; the 2024 server's POST line; a title above a bare
# traceback; "no longer loads" -----------------------------------------------------------------------------------------

_KV_POST = ('INFO [      log_server_request] request | tid="2" timestamp=1716000010 remote_addr="10.0.0.2" '
            'remote_port=40000 status=200 method="POST" path="/completion" params={}')


def test_a_retry_answered_through_the_key_value_access_line_is_no_failure():
    assert kind_of([*_LLAMA_START, *_OLD_RETRY, _KV_POST]) == ("NONE", "kv-pool-full-smaller-batch")


def test_a_batch_that_failed_after_its_retries_keeps_the_failed_code():
    failed = ["srv  update_slots: failed to decode the batch: KV cache is full - try increasing it via the context "
              "size, i = 0, n_batch = 1, ret = 1"]
    assert kind_of([*_LLAMA_START, *_RETRY, *_RETRY, *failed]) == ("RUNTIME", "kv-cache-full-request-failed")


@pytest.mark.parametrize("words", [
    "When the KV cache does not fit, vLLM just dies with `torch.OutOfMemoryError` instead of lowering the context.",
    "We often OOM in production when long prompts arrive.",
    "Motivation: saves users from crashes when `llama_kv_cache_init: failed to allocate buffer for kv cache` happens."])
@pytest.mark.parametrize("title", ["[Feature Request] Fall back to a smaller context", "Feature Request: auto-fit -c",
                                   "[Enhancement] graceful degradation"])
def test_a_feature_requests_motivation_is_no_failure(title, words):
    assert kind_of([title, "", words])[0] == "NONE"


def test_a_roadmap_item_quoting_an_engines_line_is_no_failure():
    lines = ["# [Roadmap] SGLang Q4", "", '- [ ] Lower fragmentation so decode does not hit "Decode out of memory happened'
             '. #retracted_reqs: 3"', "- [ ] Faster start-up"]
    assert kind_of(lines)[0] == "NONE"


@pytest.mark.parametrize("words", ["Why does vLLM reserve 90% of VRAM, will it OOM if I start a second model?",
                                   "Why is the KV cache so large, could it run out of memory at 128k?"])
def test_a_second_question_after_a_why_question_states_no_out_of_memory(words):
    assert kind_of([words, "", "Nothing crashes, I just want to understand."])[0] == "NONE"


def test_a_why_question_of_an_out_of_memory_still_states_it():
    assert kind_of(["Why does vLLM OOM when I start a second model?"])[0] not in ("NONE", "NOT_OOM")


@pytest.mark.parametrize("line", ["OOM errors:                              0", "Failed requests:                         0",
                                  "OOM failures = 0"])
def test_a_count_of_none_is_no_failure(line):
    assert kind_of(["============ Serving Benchmark Result ============", "Successful requests: 200", line])[0] == "NONE"


@pytest.mark.parametrize("words", [
    "Every time a model is unloaded and loaded again, nvidia-smi shows about 350 MiB more used than before.",
    "It looks like blocks are leaked for every aborted request and never freed."])
def test_growth_at_each_reload_and_blocks_leaked_are_growth_stated(words):
    assert kind_of([words])[0] == "LEAK"


@pytest.mark.parametrize("words", [
    "It was in CrashLoopBackOff yesterday because of a wrong image tag; I fixed the tag and now it's Running.",
    "At first it crashed on start, but now it is up."])
def test_a_failure_told_as_fixed_now_running_is_no_failure(words):
    assert kind_of([words, "", "INFO:     Application startup complete.",
                    'INFO:     10.1.0.4:50014 - "POST /v1/chat/completions HTTP/1.1" 200 OK'])[0] == "NONE"


@pytest.mark.parametrize("lines", [
    ["httpx.HTTPStatusError: Server error '504 Gateway Time-out' for url 'https://llm.example.com/v1/chat/completions'",
     "<html>", "<head><title>504 Gateway Time-out</title></head>", "</html>"],
    ["openai.InternalServerError: <html><body><h1>502 Bad Gateway</h1>The server returned an invalid or incomplete "
     "response.</body></html>"]])
def test_a_proxys_error_page_names_no_cause(lines):
    assert kind_of(lines)[:2] == ("UNDETERMINED", "failure-cause-not-shown")


@pytest.mark.parametrize("line", ["Failed to pull model: manifest for granite3.1-dense:8b not found: manifest unknown",
                                  "Failed to load adapter: file /loras/a.safetensors does not exist: abort"])
def test_a_message_naming_what_was_not_there_states_its_cause(line):
    assert kind_of(["$ ramalama serve ollama://granite3.1-dense:8b", line])[0] == "NOT_OOM"


def test_the_2024_servers_post_line_is_serving():
    oom = ('ERR [      log_server_request] Got exception | tid="2" timestamp=1716000020 code=500 message="ggml_backend_'
           'cuda_buffer_type_alloc_buffer: allocating 1024.00 MiB on device 0: cudaMalloc failed: out of memory"')
    assert kind_of([_KV_POST, oom])[0] == "RUNTIME"


def test_a_title_above_a_bare_traceback_is_no_progress():
    lines = ["OOM when sending long prompts to Qwen2-VL", "", "Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 183, in load_model',
             "    self.model_runner.load_model()",
             '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/model_loader/loader.py", line 375, in '
             "load_model", "    model.load_weights(self._get_all_weights(model_config, model))",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 270.00 MiB."]
    assert kind_of(lines)[0] == "WEIGHTS"


@pytest.mark.parametrize("words", ["Since the upgrade my gemma3:27b no longer loads. It worked before.",
                                   "After 0.6 the server no longer starts."])
def test_no_longer_loads_is_a_failure_stated(words):
    assert kind_of([words])[:2] == ("UNDETERMINED", "failure-cause-not-shown")


def test_no_longer_crashes_is_no_failure():
    assert kind_of(["It no longer crashes since I set -c 4096."])[0] == "NONE"



def test_an_asking_title_over_a_pasted_log_of_its_own_run_still_reads_the_complaint():
    # (h504/02: a "[Doc]:" question whose body pastes its own run, "but always blocked here:", over TensorRT-LLM's
    # lines: a run of its own, not a wish)
    lines = ["[Doc]: is there a long context sample config for trtllm-serve", "",
             "I tried a similar config, but always blocked here:", "", "```",
             "[10/11/2025-03:47:19] [TRT-LLM] [RANK 0] [I] Creating CUDA graph instances for 7 batch sizes.",
             "[10/11/2025-03:47:19] [TRT-LLM] [RANK 0] [I] Run generation only CUDA graph warmup for batch size=32",
             "[TensorRT-LLM][WARNING] Attention workspace size is not enough, increase the size from 0 bytes to 46310656",
             "```"]
    assert kind_of(lines)[0] != "NONE"


# --- a launcher waiting on the server's health URL with its count of tries (review 52's o02: read as no failure) ----

@pytest.mark.parametrize("waiting", ["[start.sh] waiting for http://localhost:8000/health ... (attempt 43/120)",
                                     "Waiting for http://127.0.0.1:8080/v1/models... (12)",
                                     "still waiting on vllm to be ready ... (try 7/60)"])
def test_a_launcher_waiting_on_the_health_url_is_the_step_before_it(waiting):
    lines = ["INFO 06-03 08:00:00 [api_server.py:1043] vLLM API server version 0.8.3",
             "INFO 06-03 08:00:11 [gpu_model_runner.py:1276] Starting to load model meta-llama/Llama-3.3-70B-Instruct...",
             "Loading safetensors checkpoint shards:  67% Completed | 20/30 [02:40<01:20,  8.01s/it]", waiting, waiting]
    assert kind_of(lines) == ("UNDETERMINED", "log-ends-during-step")


# --- rounds 519-520: TurboMind's kernel missing for this GPU (h520/01), a proxy in the client's way (h519/03),
# generate's input longer than max_length in a script's loop (h519/07), a client's log of every request refused
# (h519/02) -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", ["not implemented: dtype=e2m1, is_fused_moe=1, sm=70",
                                  "not implemented: dtype=fp8_e4m3, is_fused_moe=0, sm=75"])
def test_turbomind_without_a_kernel_for_this_gpu_is_not_memory(line):
    lines = ["[TM][INFO] TM_FUSE_SILU_ACT=1",
             "2025-09-04 18:37:49,126 - lmdeploy - WARNING - turbomind.py:280 - get 14165 model params", line,
             "not implemented: dtype=e2m1Aborted"]
    assert kind_of(lines) == ("NOT_OOM", "gpu-unsupported")


@pytest.mark.parametrize("line", [
    "Error calling vllm model: HTTPConnectionPool(host='127.0.0.1', port=25888): Max retries exceeded with url: "
    "http://localhost:8888/v1/chat/completions (Caused by ProxyError('Unable to connect to proxy', "
    "NewConnectionError('<urllib3.connection.HTTPConnection object>: Failed to establish a new connection')))",
    "requests.exceptions.ProxyError: HTTPSConnectionPool(host='hf-mirror.com', port=443): Max retries exceeded with "
    "url: /api/models (Caused by ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed')))"])
def test_a_proxy_in_the_clients_way_is_not_memory(line):
    assert kind_of([line, line])[0] == "NOT_OOM"


@pytest.mark.parametrize("prefix", ["Error processing index 1: ", "ValueError: "])
def test_generates_input_longer_than_max_length_is_a_request_too_long(prefix):
    line = (prefix + "Input length of input_ids is 8223, but `max_length` is set to 8024. This can lead to unexpected "
            "behavior. You should consider increasing `max_length` or, better yet, setting `max_new_tokens`.")
    lines = ["Loading checkpoint shards: 100%|##########| 8/8 [00:12<00:00,  1.50s/it]", line, line.replace("8223", "8478")]
    assert kind_of(lines) == ("NOT_OOM", "requests-refused-too-long")


def test_a_clients_log_of_every_request_refused_is_not_memory():
    line = '[2025-08-07 13:35:12,538][httpx][INFO] - HTTP Request: POST http://localhost:8000/v1/chat/completions ' \
           '"HTTP/1.1 404 Not Found"'
    assert kind_of([line] * 4) == ("NOT_OOM", "requests-answered-with-client-error")


def test_a_clients_log_with_some_requests_answered_is_no_refusal():
    bad = '[2025-08-07 13:35:12,538][httpx][INFO] - HTTP Request: POST http://localhost:8000/v1/chat/completions ' \
          '"HTTP/1.1 404 Not Found"'
    good = bad.replace("404 Not Found", "200 OK")
    assert kind_of([bad, bad, bad, good])[0] == "NONE"


# --- round 522: one input run through the model in a report's Chinese (h522/08: "我用V100预测一个五分钟的音频报
# OutOfMemoryError" read with no phase), and a model's own class built in its constructor -----------------------

@pytest.mark.parametrize("words", ["我用V100预测一个五分钟的音频报OutOfMemoryError，32G显存爆了",
                                   "识别一段十分钟的录音时显存不足", "推理一张4K图片的时候报CUDA out of memory"])
def test_one_input_run_through_the_model_in_chinese_is_serving(words):
    assert kind_of([words, "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 506.00 MiB."])[0] == \
        "RUNTIME"


def test_a_models_constructor_in_model_py_is_the_weights():
    lines = ["Loading", "Traceback (most recent call last):", '  File "example.py", line 57, in load',
             "    model = Transformer(model_args)", '  File "/work/llama/llama/model.py", line 211, in __init__',
             "    self.layers.append(TransformerBlock(layer_id, params))",
             "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 86.00 MiB"]
    assert kind_of(lines)[0] == "WEIGHTS"
