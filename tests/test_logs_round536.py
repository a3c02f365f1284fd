"""Kinds of fault found in stop 54: held-out rounds 531 and later, each in several wordings of our own, with guards
that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, kind_of, run_of


def _run(lines: list[str]):
    return run_of(diag("\n".join(lines)))

# --- a batch scheduler's own stop of the job (h531/06: Slurm's "*** JOB ... CANCELLED AT ... ***" after a vLLM server
# had served, read as an error while serving) ----------------------------------------------------------------------

_VLLM_SERVED = ["INFO 05-30 09:00:00 [api_server.py:1287] vLLM API server version 0.9.0.1",
                "INFO 05-30 09:00:25 [gpu_model_runner.py:1560] Model loading took 7.6254 GiB and 5.91 seconds",
                "INFO 05-30 09:00:40 [kv_cache_utils.py:716] GPU KV cache size: 381,040 tokens",
                "INFO:     Application startup complete.",
                'INFO:     127.0.0.1:60350 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
_SGLANG_SERVED = ["[2025-06-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B-Instruct', tp_size=1)",
                  "[2025-06-01 10:00:30] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, "
                  "avail mem=62.11 GB, mem usage=14.27 GB.",
                  "[2025-06-01 10:00:31] KV Cache is allocated. #tokens: 1012345, K size: 27.03 GB, V size: 27.03 GB",
                  "[2025-06-01 10:00:50] The server is fired up and ready to roll!",
                  '[2025-06-01 10:01:00] INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
_LLAMA_SERVED = ["llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from /m/q.gguf",
                 "load_tensors: offloaded 29/29 layers to GPU",
                 "llama_kv_cache: size = 448.00 MiB (  4096 cells,  28 layers,  1/1 seqs), K (f16): 224.00 MiB",
                 "main: server is listening on http://0.0.0.0:8080 - starting the main loop",
                 "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]

_SLURM_LIMIT = ["slurmstepd: error: *** STEP 4412345.0 ON gpu-node-12 CANCELLED AT 2025-05-30T11:00:01 DUE TO TIME "
                "LIMIT ***",
                "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
                "slurmstepd: error: *** JOB 4412345 ON gpu-node-12 CANCELLED AT 2025-05-30T11:00:01 DUE TO TIME "
                "LIMIT ***"]
_STOPS = [
    _SLURM_LIMIT,
    ["slurmstepd: error: *** JOB 98812 ON a100-3 CANCELLED AT 2025-06-01T12:00:00 ***"],
    ["slurmstepd: error: *** JOB 98812 ON a100-3 CANCELLED AT 2025-06-01T12:00:00 DUE TO PREEMPTION ***"],
    ["=>> PBS: job killed: walltime 7213 exceeded limit 7200"],
    ["TERM_RUNLIMIT: job killed after reaching LSF run time limit.", "Exited with exit code 140."],
    ["TERM_OWNER: job killed by owner."],
]


@pytest.mark.parametrize("served", [_VLLM_SERVED, _SGLANG_SERVED, _LLAMA_SERVED])
@pytest.mark.parametrize("stop", _STOPS)
def test_a_scheduler_that_ends_a_job_that_served_is_no_failure(served, stop):
    assert kind_of([*served, *stop]) == ("NONE", "stopped-by-scheduler")


def test_the_servers_shutdown_after_the_schedulers_stop_is_its_end():
    lines = [*_VLLM_SERVED, *_SLURM_LIMIT, "INFO:     Shutting down", "INFO:     Waiting for application shutdown.",
             "INFO:     Application shutdown complete.", "INFO:     Finished server process [77]"]
    assert kind_of(lines) == ("NONE", "stopped-by-scheduler")


_LOADING = ["INFO 05-30 09:00:00 [api_server.py:1287] vLLM API server version 0.9.0.1",
            "INFO 05-30 09:00:05 [gpu_model_runner.py:1530] Starting to load model meta-llama/Llama-3.1-405B...",
            "Loading safetensors checkpoint shards:  12% Completed | 23/191 [55:10<6:43:00, 143.7s/it]"]


def test_a_time_limit_before_the_server_was_ready_is_a_start_up_too_slow_not_memory():
    assert kind_of([*_LOADING, *_SLURM_LIMIT]) == ("NOT_OOM", "job-time-limit")


@pytest.mark.parametrize("cancel", ["slurmstepd: error: *** JOB 98812 ON a100-3 CANCELLED AT 2025-06-01T12:00:00 ***",
                                    "TERM_PREEMPT: job killed after preemption."])
def test_a_cancel_before_the_server_was_ready_is_a_start_up_that_did_not_come_up_not_memory(cancel):
    """(held-out labels, h546/04 and h564/11, both accept NOT_OOM for a cancel during a slow load; a time limit then is
    NOT_OOM too)"""
    assert kind_of([*_LOADING, cancel]) == ("NOT_OOM", "job-cancelled")


def test_a_node_that_failed_under_the_job_is_not_memory():
    lines = [*_LOADING, "slurmstepd: error: *** JOB 77 ON gpu-7 CANCELLED AT 2025-06-01T12:00:00 DUE TO NODE "
                        "FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***"]
    assert kind_of(lines) == ("NOT_OOM", "node-failure")


def test_an_out_of_memory_before_the_schedulers_stop_decides():
    lines = [*_LOADING, "Traceback (most recent call last):",
             '  File "/v/model_executor/model_loader/default_loader.py", line 262, in load_weights',
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB. GPU 0 has a total capacity of "
             "79.19 GiB of which 1.02 GiB is free.", *_SLURM_LIMIT]
    assert kind_of(lines)[0] == "WEIGHTS"


def test_a_persons_words_of_a_cancelled_job_are_no_schedulers_stop():
    lines = [*_VLLM_SERVED, "My job was CANCELLED AT some point and I do not know why, the memory looked full."]
    assert kind_of(lines)[1] != "stopped-by-scheduler"


# --- a proxy's poll of the server it started, refused or answered 503 while the model loads (h536/06: llama-swap's
# early "!!! Health check error: status code: 503" read as the run's error) ----------------------------------------

_SWAP_START = ["llama-swap listening on :9999",
               "main: HTTP server is listening, hostname: 127.0.0.1, port: 9999, http threads: 23",
               "main: loading model",
               "srv    load_model: loading model '/models/Qwen2.5-Coder-32B-Instruct-Q4_K_S.gguf'"]
_SWAP_READY = ["load_tensors: offloaded 65/65 layers to GPU",
               "llama_kv_cache: size = 2048.00 MiB (  8192 cells,  64 layers,  1/1 seqs)",
               "main: model loaded",
               "[INFO] <qwen-coder> Health check passed on http://127.0.0.1:9503/health",
               "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]


@pytest.mark.parametrize("poll", [
    "!!! Health check error: status code: 503",
    "[DEBUG] <qwen-coder> Health check error on http://127.0.0.1:9503/health, status code: 503 (normal during startup)",
    "[DEBUG] <qwen-coder> Connection refused on http://127.0.0.1:9503/health, giving up in 118s (normal during "
    "startup)",
    "!!! Health check error: Get \"http://127.0.0.1:9503/health\": dial tcp 127.0.0.1:9503: connect: connection refused",
])
def test_a_proxys_health_poll_while_the_model_loads_is_no_failure(poll):
    assert kind_of([*_SWAP_START, poll, *_SWAP_READY]) == ("NONE", "no-memory-problem")


def test_a_health_poll_answered_with_a_servers_own_error_is_still_read():
    lines = [*_SWAP_START, "!!! Health check error: status code: 500", "srv    load_model: failed to load model"]
    assert kind_of(lines)[0] != "NONE"


def test_a_proxy_that_gave_up_on_its_poll_is_still_a_failure():
    lines = [*_SWAP_START, "!!! Health check error: status code: 503",
             "[ERROR] <qwen-coder> health check timed out after 120s"]
    assert kind_of(lines) == ("NOT_OOM", "health-check-failed")


# --- the report's words that name the crash by its class, no line of the log showing it (h538/05: "Gemma 4 31B
# consistently segfaults using the current Dynamo main vLLM runtime", read as a failure whose cause is not shown) ------

_VLLM_CMD = ["### Reproduction", "```bash", "vllm serve google/gemma-4-31B-it --tensor-parallel-size 4 --max-model-len 8192",
             "```", ""]


@pytest.mark.parametrize("words, code", [
    ("Gemma 4 31B consistently segfaults using the current vLLM runtime.", "crash-access-violation"),
    ("The model loads, but the workers die with a segmentation fault during the warm-up.", "crash-access-violation"),
    ("Every time I send the second request the server crashes with SIGSEGV.", "crash-access-violation"),
    ("加载完成后第一次推理就段错误退出了", "crash-access-violation"),
    ("After the update the decode step fails with an illegal memory access on H20.", "illegal-memory-access"),
    ("The prebuilt binary dies with Illegal instruction on my old Xeon.", "illegal-instruction"),
])
def test_a_crash_the_report_names_by_its_class_is_not_memory(words, code):
    assert kind_of([words, "", *_VLLM_CMD, "The crash reproduces after a restart."]) == ("NOT_OOM", code)


@pytest.mark.parametrize("words", [
    "It segfaults once it runs out of memory with 8 concurrent requests.",
    "The server runs out of GPU memory and then segfaults.",
])
def test_a_crash_the_report_puts_down_to_memory_is_not_called_not_memory(words):
    assert kind_of([words, "", *_VLLM_CMD])[0] != "NOT_OOM"


# --- a Rust panic's header above its message, after the report's words of an out of memory with another setting
# (h538/08: "`--isq 8` ... OOMs pretty fast. At 4 or 5, ... produces:" then the panic with CUDA_ERROR_ILLEGAL_ADDRESS)

_PANIC = ["```rust", "thread '<unnamed>' panicked at /root/.cargo/registry/src/cudarc-0.13.9/src/driver/safe/core.rs:257:76:",
          "called `Result::unwrap()` on an `Err` value: DriverError({}, \"{}\")",
          "stack backtrace:",
          "   0:     0x56408882f732 - std::panicking::begin_panic_handler::h80250efed2acf42d", "```"]


def _panic(err: str, says: str) -> list[str]:
    return [t.format(err, says) if "{}" in t else t for t in _PANIC]


@pytest.mark.parametrize("words", [
    "`--isq 8` works fine but OOMs pretty fast on a 16G laptop GPU. At 4 or 5, the first test run produces:",
    "With the full cache it runs out of memory, as expected. With --isq 4 instead I get this:",
])
def test_a_panic_that_names_its_cause_below_the_reports_oom_of_another_setting_decides(words):
    lines = [words, *_panic("CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered")]
    assert kind_of(lines) == ("NOT_OOM", "illegal-memory-access")


def test_a_panic_whose_message_is_memory_is_still_memory():
    lines = ["With --isq 4 it OOMs on the first request:",
             *_panic("CUDA_ERROR_OUT_OF_MEMORY", "out of memory")]
    assert kind_of(lines)[0] not in ("NOT_OOM", "NONE")


# --- a C++ check the report quotes whole (h538/10: "throws the panic 'Assertion failed: emplaceDone'") ---------------

@pytest.mark.parametrize("words", [
    "In a PD disaggregated deployment, the decode worker sporadically crashes and throws the panic 'Assertion failed: "
    "emplaceDone'.",
    "The executor aborts with `Check failed: idx < num_heads` as soon as the second request arrives.",
    "Crashes under load with \u201cAssertion failed: beamWidth == 1\u201d.",
])
def test_a_cpp_check_the_report_quotes_whole_on_no_memory_condition_is_an_assertion(words):
    assert kind_of([words, "", "python3 -m dynamo.trtllm --model-path /Qwen3-32B-FP8"]) == ("NOT_OOM",
                                                                                           "assertion-failed")


@pytest.mark.parametrize("words", [
    "It crashes with 'Assertion failed: buf != NULL' while loading.",
    "The worker dies with 'Assertion failed: freeBlockIterator.has_value()' under load.",
    "It aborts with 'Assertion failed: numFreeBlocks >= neededBlocks' at BS 64.",
])
def test_a_quoted_check_on_a_pointer_or_the_pools_blocks_is_not_called_not_memory(words):
    assert kind_of([words, "", "python3 -m dynamo.trtllm --model-path /Qwen3-32B-FP8"])[1] != "assertion-failed"


@pytest.mark.parametrize("words", ["I will debug segfaults with gdb next.", "A segfault handler is installed.",
                                   "There was no segfault this time.", "It runs with a segfault handler from faulthandler."])
def test_a_crash_class_only_named_is_no_crash_stated(words):
    assert kind_of(["It fails to start after the update.", words, "", *_VLLM_CMD])[1] != "crash-access-violation"


# --- held-out rounds 541-543 ----------------------------------------------------------------------------------------

# a word of memory inside a module's or an attribute's dotted name (h542/01: "No module named
# 'llama_toolchain.memory.common'" read as an error that speaks of memory)
@pytest.mark.parametrize("line", [
    "ModuleNotFoundError: No module named 'llama_toolchain.memory.common'",
    "AttributeError: module 'torch.cuda.memory' has no attribute '_set_allocator_settings'",
    "ImportError: cannot import name 'MemoryProfiler' from vllm.utils.memory.profiling",
])
def test_memory_inside_a_dotted_name_is_no_word_of_memory(line):
    assert kind_of([line]) == ("NOT_OOM", "error-not-memory")


def test_memory_words_beside_a_dotted_name_still_count():
    assert kind_of(["RuntimeError: could not allocate 2 GiB of memory for vllm.worker.cache_engine.gpu_cache"])[0] \
        != "NOT_OOM"


# the shell's "Killed" after a progress bar, as a report quotes that line (h542/13)
@pytest.mark.parametrize("line", [
    'It stopped at "Loading checkpoint shards:  38%|█████     | 3/8 [00:08<00:14,  2.91s/it]Killed"',
    "The load ends with `Loading checkpoint shards:  50%|█████     | 2/4 [00:31<00:31, 15.7s/it]Killed`",
    "卡在 \u201cLoading checkpoint shards:  25%|██▌       | 1/4 [00:05<00:15,  5.02s/it]Killed\u201d",
])
def test_a_kill_glued_to_a_quoted_progress_bar_is_the_weights_load(line):
    assert kind_of([line]) == ("WEIGHTS", "weights-exceed-system-memory")


# a question of how to fix an error it names states that error (h542/14: "How to fix error like this:
# torch.cuda.OutOfMemoryError: CUDA out of memory ?" above a traceback cut in `.cuda()`)
_CUDA_MOVE = ["Loading checkpoint shards: 100%|██████████| 8/8 [00:09<00:00,  1.15s/it]",
              "Traceback (most recent call last):",
              '  File "/home/u/ChatGLM-6B/cli_demo.py", line 6, in <module>',
              '    model = AutoModel.from_pretrained("THUDM/chatglm-6b", trust_remote_code=True).half().cuda()',
              '  File "/env/lib/python3.9/site-packages/torch/nn/modules/module.py", line 749, in cuda',
              "    return self._apply(lambda t: t.cuda(device))",
              '  File "/env/lib/python3.9/site-packages/torch/nn/modules/module.py", line 641, in _apply',
              "    module._apply(fn)"]


@pytest.mark.parametrize("title", [
    "How to fix error like this: torch.cuda.OutOfMemoryError: CUDA out of memory ?",
    "How can I solve torch.cuda.OutOfMemoryError: CUDA out of memory?",
    "How do I fix this CUDA out of memory error?",
])
def test_a_question_how_to_fix_an_out_of_memory_states_it(title):
    assert kind_of([title, "", *_CUDA_MOVE])[0] == "WEIGHTS"


@pytest.mark.parametrize("title", ["How to avoid OOM with a 128K context?", "Will a 128K context run out of memory?"])
def test_a_question_of_an_out_of_memory_ahead_states_none(title):
    assert kind_of([title, "", "INFO:     Application startup complete."])[0] == "NONE"


# a report's words that nothing happens for a long time: a hang (h542/08)
@pytest.mark.parametrize("words", ["And nothing happens for a very long time.", "Then nothing happens for 20 minutes.",
                                   "After these lines nothing happens anymore."])
def test_nothing_happening_for_a_long_time_is_a_hang(words):
    lines = ["> initializing model parallel with size 1", "> initializing ddp with size 1",
             "> initializing pipeline with size 1", "", words]
    assert kind_of(lines) == ("UNDETERMINED", "hang-no-error")


# an exception's class glued to the Chinese words before it (h542/05: "vllm部署报错ValueError: ...")
@pytest.mark.parametrize("line", [
    "Qwen-14B-Chat-Int4 vllm部署报错ValueError: The input size is not aligned with the quantized weight shape. This can "
    "be caused by too large tensor parallel size。",
    "启动时报错RuntimeError: Expected all tensors to be on the same device, but found at least two devices。",
])
def test_an_exception_glued_to_chinese_words_names_its_cause(line):
    assert kind_of([line])[0] == "NOT_OOM"


def test_an_out_of_memory_glued_to_chinese_words_is_still_memory():
    assert kind_of(["推理时报错torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB。"])[0] not in (
        "NOT_OOM", "NONE")


# memory told rising while the model loads, the log ending before its weights were loaded (h542/02: FastChat's
# "Loading the model ... on worker", then "然后内存不断增加，等了十分钟")
_LOADING_WORKER = ["2023-11-25 09:56:03 | INFO | model_worker | args: Namespace(host='0.0.0.0', port=21002)",
                   "2023-11-25 09:56:03 | INFO | model_worker | Loading the model ['Yi-34B-Chat-4bits'] on worker "
                   "c5b518c4 ..."]


@pytest.mark.parametrize("words", ["然后内存不断增加，等了十分钟，gpu没有负载，内存憋到了40G+",
                                   "Then the RAM keeps growing for ten minutes until it reaches 40G, GPU idle."])
def test_memory_rising_while_the_model_loads_is_the_load_not_a_leak(words):
    run = _run([*_LOADING_WORKER, "", words])
    assert (run.kind, run.code, run.candidates) == ("UNDETERMINED", "log-ends-during-step", ["WEIGHTS"])


def test_memory_rising_with_each_request_after_a_start_is_still_a_leak():
    assert kind_of([*_LOADING_WORKER, "", "每次推理后显存不断增加，不释放"])[0] == "LEAK"


# "no matter what I do" denies nothing (h541/07), and RKLLM's failed platform query is not memory
@pytest.mark.parametrize("words", ["no matter what i do i cannot start a LLM",
                                   "No matter how I set the context, it cannot load the model."])
def test_no_matter_what_states_the_failure(words):
    assert kind_of(["RKLLM starting, please wait...", "rkllm-runtime version: 1.0.1", "", words])[0] == "UNDETERMINED"


def test_rkllms_failed_platform_query_is_not_memory():
    lines = ["`rkllm ~/gemma/gemma-2b-it-rk3588.rkllm`", "RKLLM starting, please wait...", "rkllm-runtime version: 1.0.1",
             "", "Query platform error!", "", "no matter what i do i cannot start a LLM"]
    assert kind_of(lines) == ("NOT_OOM", "gpu-driver-error")


# TVM's paged KV cache with no page left (MLC LLM, WebLLM: h541/10)
@pytest.mark.parametrize("line", [
    "Check failed: (!free_page_ids_.empty()) is false: The KV cache is full. No page can be allocated.",
    "[19:22:10] /workspace/tvm/src/runtime/relax_vm/paged_kv_cache.cc:1043: Check failed: (!free_page_ids_.empty()) "
    "is false: The KV cache is full. No page can be allocated.",
    "Uncaught (in promise) Error: Check failed: (!free_page_ids_.empty()) is false: The KV cache is full. No page can "
    "be allocated.",
])
def test_tvms_paged_kv_cache_without_a_free_page_is_the_pool_full_while_serving(line):
    assert kind_of([line, "", "when prompting to summarize long article"]) == ("RUNTIME", "request-exceeds-kv-pool")


# growth told with 递增 (h541/12)
def test_memory_told_increasing_step_by_step_is_growth():
    assert kind_of(["加载chatglm2-6B-int8.flm模型，每次进行推理时，显存会一直递增(每次推理递增200M左右)，没有释放掉"])[0] == "LEAK"


# an assertion that a thing, named by one identifier, must be there (h541/13)
@pytest.mark.parametrize("line", ["  what():  AssertionError: kv_cache is required for decode",
                                  "AssertionError: attn_metadata must not be None"])
def test_an_assertion_that_a_named_thing_must_be_there_is_no_memory(line):
    assert kind_of([line]) == ("NOT_OOM", "assertion-failed")


def test_an_assertion_of_an_amount_required_is_not_called_not_memory():
    assert kind_of(["AssertionError: 4 free blocks are required for this request"])[1] != "assertion-failed"


# log lines a paste joined with spaces, each with its own prefix (h543/04)
_JOINED = ("(EngineCore pid=146) ERROR 03-28 10:55:03 [core.py:1101] File \"/usr/local/lib/python3.12/dist-packages/vllm/"
           "v1/worker/gpu_model_runner.py\", line 3213, in _bookkeeping_sync (EngineCore pid=146) ERROR 03-28 10:55:03 "
           "[core.py:1101] assert end_idx <= self.max_model_len, ( (EngineCore pid=146) ERROR 03-28 10:55:03 "
           "[core.py:1101] {}")


def test_joined_log_lines_are_read_one_by_one():
    line = _JOINED.format("AssertionError: Sampled token IDs exceed the max model length. Total number of tokens: "
                          "4097 > max_model_len: 4096")
    assert kind_of(["INFO:     Application startup complete.", line]) == ("NOT_OOM", "assertion-failed")


def test_joined_log_lines_with_an_out_of_memory_are_memory():
    line = _JOINED.format("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                          "capacity of 79.19 GiB of which 1.02 GiB is free.")
    assert kind_of(["INFO:     Application startup complete.",
                    'INFO:     127.0.0.1:60350 - "POST /v1/chat/completions HTTP/1.1" 200 OK', line])[0] == "RUNTIME"


# an error denied with "what"/"any" between the denial and its word (h541/04: "也没发现什么报错")
@pytest.mark.parametrize("words", ["好奇怪，为啥我没有使用很多内存，也没发现什么报错", "日志里没看到任何报错"])
def test_no_error_seen_is_no_failure_stated(words):
    assert kind_of(["eval rate:            4.564611445460661 tokens/s", words])[0] == "NONE"


# --- review 54 and round 540 ------------------------------------------------------------------------------------------

_SHARDS = ["Loading checkpoint shards:  47%|████▋     | 9/19 [01:40<01:51, 11.14s/it]"]


@pytest.mark.parametrize("kill", [
    "=>> PBS: job killed: mem 134217728kb exceeded limit 125829120kb",
    "=>> PBS: job killed: vmem 201326592kb exceeded limit 188743680kb",
    "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.",
    "slurmstepd: error: Detected 1 oom_kill event in StepId=81121.batch. Some of the step tasks have been OOM Killed.",
    "/var/spool/slurmd/job81121/slurm_script: line 23: 119822 Killed                  python serve_hf.py",
])
def test_a_schedulers_kill_for_host_memory_while_the_weights_load(kill):
    assert kind_of([*_SHARDS, kill]) == ("WEIGHTS", "weights-exceed-system-memory")


@pytest.mark.parametrize("line", [
    "curl: (7) Failed to connect to localhost port 8000 after 0 ms: Couldn't connect to server",
    "curl: (56) Recv failure: Connection reset by peer",
    "curl: (22) The requested URL returned error: 500",
    "curl: (28) Operation timed out after 300001 ms with 0 bytes received",
    "curl: (18) transfer closed with outstanding read data remaining",
])
def test_curls_errors_of_a_server_gone_show_no_cause(line):
    assert kind_of(["INFO:     Application startup complete.", line]) == ("UNDETERMINED", "failure-cause-not-shown")


def test_kubectls_prefix_is_a_programs_line():
    tag = "[pod/vllm-7d9f8b6c4-xk2lp/vllm] "
    lines = [tag + "INFO 07-07 03:00:12 [api_server.py:1043] vLLM API server version 0.9.2",
             tag + "INFO 07-07 03:00:33 [gpu_model_runner.py:1770] Starting to load model google/gemma-3-27b-it...",
             tag + "INFO 07-07 03:00:33 [gpu_model_runner.py:1775] Loading model from scratch...",
             tag + "INFO 07-07 03:00:34 [cuda.py:284] Using Flash Attention backend on V1 engine."]
    assert kind_of(lines) == ("UNDETERMINED", "log-ends-during-step")


@pytest.mark.parametrize("words", ["It dies with 'Assertion failed: tokensPerBlock % 64 == 0' at start.",
                                   "发图片请求就报 `Assertion failed: Tokens per block must be a power of 2` 错误"])
def test_a_quoted_check_on_a_blocks_size_is_an_assertion(words):
    assert kind_of([words]) == ("NOT_OOM", "assertion-failed")


def test_an_assert_under_the_engines_own_prefix_is_read():
    p = "ERROR 04-02 10:00:00 [core.py:396] "
    lines = [p + "Traceback (most recent call last):",
             p + '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen2_vl.py", line 1021, in '
                 "_validate_and_reshape_mm_tensor",
             p + '    assert mm_input.ndim == 2, f"expected 2D tensor, got {mm_input.ndim}D"']
    assert kind_of(lines) == ("NOT_OOM", "assertion-failed")


@pytest.mark.parametrize("line", ["Error loading model X: 'dict' object has no attribute 'model_type'",
                                  "'NoneType' object is not subscriptable"])
def test_pythons_message_of_a_bug_without_its_class_is_a_code_error(line):
    assert kind_of([line]) == ("NOT_OOM", "code-error")


_TRAINING_FRAMES = [
    '  File "/env/lib/python3.12/site-packages/transformers/trainer.py", line 2341, in _inner_training_loop',
    "    self.optimizer.step()",
    '  File "/env/lib/python3.12/site-packages/torch/optim/optimizer.py", line 484, in wrapper',
    '  File "/env/lib/python3.12/site-packages/torch/optim/adamw.py", line 155, in _init_group',
    '    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)']
_IPY_TRAINING = ["File ~/env/lib/python3.12/site-packages/transformers/trainer.py:3318, in Trainer.training_step(self, "
                 "model, inputs)",
                 "File ~/env/lib/python3.12/site-packages/torch/optim/optimizer.py:484, in Optimizer.profile_hook_step."
                 "<locals>.wrapper(*args, **kwargs)"]


@pytest.mark.parametrize("frames", [_TRAINING_FRAMES, _IPY_TRAINING])
def test_an_out_of_memory_in_a_training_step_is_runtime_not_a_profile_run(frames):
    lines = ["Loading checkpoint shards: 100%|██████████| 4/4 [00:09<00:00,  2.31s/it]",
             "Traceback (most recent call last):", *frames,
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB. GPU 0 has a total capacity of "
             "79.10 GiB of which 85.88 MiB is free."]
    assert kind_of(lines) == ("RUNTIME", "training-step-oom")


# --- Japanese: a failure stated, a crash named with its verb, and the report's words above a log cut before it -------

_LLAMA_READY = ["build: 5123 (a4e8d5b2) with cc (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0 for x86_64-linux-gnu",
                "load_tensors: offloaded 29/29 layers to GPU",
                "llama_context:      CUDA0 compute buffer size =   304.00 MiB",
                "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
                "srv  update_slots: all slots are idle"]


@pytest.mark.parametrize("words, code", [
    ("llama-server を起動して最初のリクエストを投げるとセグメンテーション違反で落ちます。ログは以下です。", "crash-access-violation"),
    ("古いCPUで動かすと「不正な命令 (コアダンプ)」と出て落ちます。", "illegal-instruction"),
    ("リクエストを送ると segfault で落ちます。", "crash-access-violation"),
])
def test_a_crash_named_in_japanese_above_a_log_cut_before_it_decides(words, code):
    assert kind_of([words, *_LLAMA_READY]) == ("NOT_OOM", code)


@pytest.mark.parametrize("words", ["モデルを読み込むと落ちます。", "起動しません。ログは以下の通りです。",
                                   "エラーが出て止まってしまいます。"])
def test_a_failure_stated_in_japanese_is_no_clean_run(words):
    assert kind_of([words, "", "main: llama backend init", "main: load the model and apply lora adapter, if any"])[0] \
        != "NONE"


@pytest.mark.parametrize("words", ["落ちませんでした。ログは以下です。", "エラーは出ないのですが、遅いです。", "落ちますか？"])
def test_japanese_words_that_deny_or_ask_state_no_failure(words):
    assert kind_of([words, *_LLAMA_READY])[0] == "NONE"



# --- round 547: Chinese words of a process that ended of itself, and a reading at the start then a higher one -----------

_SHARDS_ZERO = ["Loading checkpoint shards:   0%|          | 0/7 [00:00<?, ?it/s]",
                "PS D:\\ChatGLM3\\composite_demo> "]


@pytest.mark.parametrize("words", ["自己就结束了 是什么问题", "运行后直接退出了", "每次都在加载模型文件时，进度到62%中断了。",
                                   "一加载模型就闪退"])
def test_a_process_that_ended_of_itself_is_a_failure_stated(words):
    assert kind_of([*_SHARDS_ZERO, words])[0] == "UNDETERMINED"


def test_a_load_the_user_broke_off_is_no_failure_stated():
    assert kind_of([*_SHARDS_ZERO, "等得太久，我手动中断了"])[0] == "NONE"


@pytest.mark.parametrize("words", ["刚开始启动只有大概17g显存的占用，访问了大概100次，显存就大概跑到23g了",
                                   "一开始占用 8G，跑了一晚上以后显存涨到了 15G"])
def test_a_reading_at_the_start_then_a_higher_one_is_growth(words):
    assert kind_of([words])[0] == "LEAK"


def test_a_reading_at_the_start_that_stays_is_no_growth():
    assert kind_of(["刚开始启动只有大概17g显存的占用，访问了100次以后还是17g"])[0] != "LEAK"


# --- round 546: a side thread's traceback, a bare line printed again as the server goes on, an allocating call -------

_THREAD_TB = ["Exception in thread Thread-1 (start_wsgi_server):", "Traceback (most recent call last):",
              '  File "/usr/lib/python3.12/threading.py", line 1073, in _bootstrap_inner',
              '  File "/venv/lib/python3.12/site-packages/prometheus_client/exposition.py", line 233, in start_wsgi_server',
              '  File "/usr/lib/python3.12/socketserver.py", line 473, in server_bind',
              "OSError: [Errno 98] Address already in use"]
_MOVE_OOM = ["INFO     NVFP4: moving model to cuda:0 (1.2 GiB free)",
             "ERROR    Model load failed: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
             "15.47 GiB of which 10.00 MiB is free."]


def test_a_side_threads_death_before_the_runs_own_failure_is_not_it():
    lines = ["INFO     Loading model: Qwen/Qwen2.5-7B-Instruct", *_THREAD_TB,
             "INFO     Chargement modèle HuggingFace: Qwen/Qwen2.5-7B-Instruct", *_MOVE_OOM]
    assert kind_of(lines)[0] == "WEIGHTS"


def test_a_side_threads_death_alone_is_still_the_failure():
    assert kind_of(["INFO     Loading model: Qwen/Qwen2.5-7B-Instruct", *_THREAD_TB]) == ("NOT_OOM", "port-in-use")


_CAPABILITY = "Failed to get device capability: nvcc not found and PyTorch is not built with CUDA support."
_SGLANG_UP = ["[2026-05-25 17:23:23] server_args=ServerArgs(model_path='/m/gemma-4-26B-AWQ', tp_size=2)",
              _CAPABILITY, _CAPABILITY,
              "[2026-05-25 17:24:00 TP0] Load weight end. type=Gemma4ForCausalLM, avail mem=7.36 GB, mem usage=12.07 GB.",
              "[2026-05-25 17:24:19] The server is fired up and ready to roll!"]


def test_a_bare_line_printed_again_as_the_server_goes_on_to_serve_is_no_failure():
    assert kind_of(_SGLANG_UP) == ("NONE", "no-memory-problem")


def test_a_bare_error_line_once_then_nothing_is_still_read():
    assert kind_of(_SGLANG_UP[:2])[0] != "NONE"


@pytest.mark.parametrize("line", [
    "(Worker_TP1 pid=143673) ERROR 07-16 19:47:26 [multiproc_executor.py:1007] RuntimeError: torch_call_dispatcher( "
    "\"aten::new_empty\", \"\", stack.data(), TORCH_ABI_VERSION) API call failed at /venv/torch/csrc/stable/ops.h:88",
    "ERROR 07-16 19:47:26 [core.py:1332] RuntimeError: cudaMallocAsync failed at /src/allocator.cpp:210",
])
def test_an_allocating_call_that_failed_without_a_cause_is_not_called_not_memory(line):
    lines = ["INFO:     Application startup complete.",
             'INFO:     127.0.0.1:60350 - "POST /v1/completions HTTP/1.1" 200 OK',
             "INFO 07-16 19:47:20 [loggers.py:116] Engine 000: Avg prompt throughput: 120.3 tokens/s, Running: 1 reqs, "
             "Waiting: 0 reqs, GPU KV cache usage: 3.1%, Prefix cache hit rate: 0.0%",
             line, "ERROR 07-16 19:47:26 [core.py:1332] EngineCore encountered a fatal error.",
             "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.", "INFO:     Shutting down"]
    assert kind_of(lines)[0] != "NOT_OOM"


# --- round 544: vLLM's offline LLM built ("Supported tasks"), and notes that a step is not taken ---------------------

_V1_OFFLINE = ["(EngineCore_DP0 pid=8012) INFO 03-02 01:17:55 [gpu_model_runner.py:4221] Model loading took 2.05 GiB memory "
               "and 2.900910 seconds",
               "(EngineCore_DP0 pid=8012) INFO 03-02 01:17:57 [kv_cache_utils.py:1307] GPU KV cache size: 2,755,216 tokens",
               "(EngineCore_DP0 pid=8012) INFO 03-02 01:17:57 [core.py:278] init engine (profile, create kv cache, warmup "
               "model) took 2.02 seconds",
               "(EngineCore_DP0 pid=8012) INFO 03-02 01:17:58 [vllm.py:689] Asynchronous scheduling is enabled.",
               "(EngineCore_DP0 pid=8012) INFO 03-02 01:17:58 [vllm.py:845] Cudagraph is disabled under eager mode"]


@pytest.mark.parametrize("end", [["INFO 03-02 01:17:58 [llm.py:355] Supported tasks: ['generate']"], []])
def test_an_offline_engine_built_with_its_graphs_off_is_no_step_under_way(end):
    assert kind_of([*_V1_OFFLINE, *end]) == ("NONE", "no-memory-problem")


@pytest.mark.parametrize("note", ["Skipping FlashInfer autotune because it is disabled.",
                                  "CUDA graphs are disabled (--enforce-eager)."])
def test_a_note_that_a_step_is_skipped_is_no_step_under_way(note):
    lines = ["INFO 03-02 01:17:55 [gpu_model_runner.py:4221] Model loading took 2.05 GiB memory and 2.9 seconds",
             "INFO 03-02 01:17:57 [kv_cache_utils.py:1307] GPU KV cache size: 2,755,216 tokens",
             f"INFO 03-02 01:17:57 [kernel_warmup.py:44] {note}"]
    assert kind_of(lines)[1] != "log-ends-during-step"


# --- review 54b: crash words asked, denied or told as fixed; a quoted bar with words after it; TensorRT-LLM's own check
# on a block's size; RKLLM's platform query under RKNN's prefix -------------------------------------------------------

_LLAMA_SERVED_END = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
                     "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]


@pytest.mark.parametrize("words", [
    "Could this crash with SIGSEGV if I raise the context to 131072?",
    "如果把上下文改成131072，会段错误退出吗？",
    "セグメンテーション違反では落ちませんでした。ログを貼ります。",
    "It did not crash with SIGSEGV this time, it just works.",
    "With 0.8.4 it crashed with SIGSEGV; on 0.8.5 it is fixed:",
    "升级后不再段错误退出了，日志如下",
    "Does it die with Illegal instruction on AVX-less CPUs? Mine has AVX2 and works:",
    "このまま 131072 にするとセグメンテーション違反で落ちますか？",
    "Will it fail with an illegal memory access if I use fp8 kv cache?",
])
def test_a_crash_named_but_asked_denied_or_fixed_is_no_crash(words):
    assert kind_of([words, *_LLAMA_SERVED_END]) == ("NONE", "no-memory-problem")


def test_a_crash_stated_above_a_served_log_is_still_the_crash():
    assert kind_of(["It crashes with SIGSEGV on the first request.", *_LLAMA_SERVED_END])[0] == "NOT_OOM"


@pytest.mark.parametrize("tail", ['" and nothing else is printed. What can I do?', '".', '" - any idea?'])
def test_a_kill_after_a_quoted_bar_with_words_after_the_quote(tail):
    line = 'It stopped at "Loading checkpoint shards:  38%|███▊      | 3/8 [00:08<00:14,  2.91s/it]Killed' + tail
    assert kind_of([line]) == ("WEIGHTS", "weights-exceed-system-memory")


@pytest.mark.parametrize("cond", ["tokensPerBlock % 64 == 0", "emplaceDone"])
def test_tensorrt_llms_own_check_on_no_memory_condition_under_a_kv_files_name(cond):
    line = f"[TensorRT-LLM][ERROR] Assertion failed: {cond} (/src/cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp:350)"
    assert kind_of([line]) == ("NOT_OOM", "assertion-failed")


def test_tensorrt_llms_own_check_on_the_pools_free_blocks_is_not_called_not_memory():
    line = "[TensorRT-LLM][ERROR] Assertion failed: numFreeBlocks >= neededBlocks (kvCacheManager.cpp:880)"
    assert kind_of([line])[0] != "NOT_OOM"


def test_rkllms_platform_query_under_rknns_prefix():
    assert kind_of(["E RKNN: Query platform error!", "load model file error!"]) == ("NOT_OOM", "gpu-driver-error")


@pytest.mark.parametrize("words", ["服务起来之后发第一个请求就直接段错误退出了，没有任何报错信息。",
                                   "It crashes with SIGSEGV on the first request, and there is no error message."])
def test_a_denial_in_another_clause_leaves_the_crash_stated(words):
    assert kind_of([words, *_LLAMA_SERVED_END[:1]])[0] == "NOT_OOM"


# --- round 550: a notebook's own training function, and CUDA named in a hint's code -----------------------------------

def test_a_notebooks_own_training_function_in_the_frames_is_a_training_step():
    lines = ["OutOfMemoryError                          Traceback (most recent call last)",
             "Cell In[48], line 128, in train_with_grpo(model, tokenizer, train_data)",
             "--> 128     rollout_data = generate_rollout_data(",
             "Cell In[48], line 2, in selective_log_softmax(logits, input_ids)",
             "----> 2     log_probs = nn.functional.log_softmax(logits, dim=-1)",
             "OutOfMemoryError: CUDA out of memory. Tried to allocate 41.73 GiB. GPU 0 has a total capacity of 79.14 GiB "
             "of which 33.40 GiB is free."]
    assert kind_of(lines) == ("RUNTIME", "training-step-oom")


def test_cuda_named_in_a_hints_code_is_no_cuda_call():
    line = ("ValueError: You can't train a model that has been loaded in 8-bit or 4-bit precision on a different device "
            "than the one you're training on. Make sure you loaded the model on the correct device using for example "
            "`device_map={'':torch.cuda.current_device()}` or `device_map={'':torch.xpu.current_device()}`")
    assert kind_of(["Traceback (most recent call last):", '  File "/x/trainer.py", line 1441, in __init__', line]) == (
        "NOT_OOM", "error-not-memory")
