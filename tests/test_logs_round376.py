"""`vramdoctor logs` on the kinds of fault held-out rounds 376-382 (issue 6, stop 42, sources no earlier round used)
found, each with logs of our own in other engines, versions and wordings than the example. The engines' lines follow
their sources (named in `vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, flags, kind_of, run_of

_VLLM_UP = ["INFO 05-01 10:00:00 [api_server.py:1090] Starting vLLM API server 0 on http://0.0.0.0:8000",
            'INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


# --- the warm-up named plainly with the failure ("resulting in OOM in warmup"): that step, whatever else the sentence
# names (the KV cache sized before it) (h376/12: was KV_CAPACITY) --------------------------------------------------

@pytest.mark.parametrize("said", [
    "- Before: `Available KV cache: 52.02 GiB`, peak activation 3.04 GiB -> resulting in OOM in warmup",
    "With --max-num-seqs 512 the server OOMs during warmup, even though the KV cache fits.",
    "SGLang crashed with CUDA out of memory while warming up the model, after the KV cache was allocated.",
])
def test_an_out_of_memory_in_the_warmup_told_in_words(said):
    assert kind_of([said])[0] == "WARMUP", kind_of([said])


def test_a_warmup_denied_is_not_the_step():
    assert kind_of(["OOM before warmup, while allocating the KV cache"])[0] != "WARMUP"


# --- a server asked to stop (SIGTERM, a shutdown triggered) after it served: the errors of its shutdown are no failure
# (h381/08: was NOT_OOM) ---------------------------------------------------------------------------------------------

_DEAD = ["(APIServer pid=1) ERROR 08-01 23:37:28 [async_llm.py:704] AsyncLLM output_handler failed.",
         "(APIServer pid=1) ERROR 08-01 23:37:28 [async_llm.py:704] Traceback (most recent call last):",
         "(APIServer pid=1) ERROR 08-01 23:37:28 [async_llm.py:704] vllm.v1.engine.exceptions.EngineDeadError: "
         "EngineCore encountered an issue. See stack trace (above) for the root cause.",
         "(APIServer pid=1) INFO:     Shutting down", "(APIServer pid=1) INFO:     Application shutdown complete."]


@pytest.mark.parametrize("asked", [
    ["(EngineCore pid=2) INFO 08-01 23:37:28 [core.py:1214] [shutdown] EngineCore: trigger received signal=SIGTERM"],
    ["(APIServer pid=1) INFO 08-01 23:37:28 [launcher.py:100] [shutdown] API server: shutdown triggered"],
    ["INFO 08-01 23:37:28 [api_server.py:99] Received SIGINT, shutting down the server."],
])
def test_errors_after_a_shutdown_asked_are_no_failure(asked):
    lines = [*_VLLM_UP, *asked, *_DEAD]
    assert kind_of(lines) == ("NONE", "stopped-by-hand"), kind_of(lines)


def test_a_failure_before_the_shutdown_stays():
    lines = [*_VLLM_UP, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
             "(EngineCore pid=2) INFO 08-01 23:37:28 [core.py:1214] [shutdown] EngineCore: trigger received "
             "signal=SIGTERM", *_DEAD]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


def test_a_signal_from_a_child_is_no_shutdown_asked():
    lines = [*_VLLM_UP, "[2025-01-01 10:00:00] Received sigquit from a child process. It usually means the child "
             "failed.", *_DEAD]
    assert kind_of(lines)[0] != "NONE", kind_of(lines)


# --- vLLM's settings whose values hold dots and hyphens ("quantization=compressed-tensors", kv_cache_dtype as a torch
# dtype): read whole, so that an 8-bit KV cache already in use is not advised again -----------------------------------

def test_dotted_and_hyphenated_settings_are_read_whole():
    rep = diag("""
        INFO 05-01 10:00:00 [utils.py:253] non-default args: {'model': 'm', 'quantization': 'compressed-tensors', 'kv_cache_dtype': 'fp8_e4m3'}
        INFO 05-01 10:00:01 [core.py:90] Initializing a V1 LLM engine (v0.11.0) with config: model='m', quantization=compressed-tensors, kv_cache_dtype=torch.float8_e4m3fn
        ERROR 05-01 10:00:30 [core.py:700] ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.37 GiB). Based on the available memory, the estimated maximum model length is 76752. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
    """)
    run = run_of(rep)
    assert run.numbers["quantization"] == "compressed-tensors"
    assert "float8" in str(run.numbers["kv_cache_dtype"]) or "fp8" in str(run.numbers["kv_cache_dtype"])
    assert "--kv-cache-dtype" not in flags(run), flags(run)


@pytest.mark.parametrize("cmd,want", [
    ("$ vllm serve m --quantization compressed-tensors --max-model-len 8192", "compressed-tensors"),
    ("$ python -m vllm.entrypoints.openai.api_server --model m --quantization=gptq_marlin", "gptq_marlin"),
])
def test_a_command_lines_hyphenated_value_is_one_value(cmd, want):
    run = run_of(diag(cmd + "\nValueError: No available memory for the cache blocks. Try increasing "
                            "`gpu_memory_utilization` when initializing the engine."))
    assert run.numbers["quantization"] == want, run.numbers


# --- the shell's "Killed" printed after a progress bar the program left open: the load the bar shows (h382/06: was
# NONE) ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "Loading checkpoint shards:  38%|██████▊           | 3/8 [00:02<00:03,  1.28it/s]Killed",
    "Loading checkpoint shards:  60%|██████    | 3/5 [01:10<00:47, 23.6s/it] Killed",
    "Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:30<01:30, 30.0s/it]Killed",
])
def test_killed_after_a_loading_bar(line):
    lines = ["python knowledge_based_chatglm.py", line, "应该是内存不足导致的，先关闭了"]
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


def test_a_bar_that_finished_then_no_kill_is_no_failure():
    lines = ["Loading checkpoint shards: 100%|██████████| 8/8 [00:12<00:00,  1.50s/it]", "Model loaded. Killed 0 jobs."]
    assert kind_of(lines)[0] == "NONE", kind_of(lines)


# --- growth stated with its figures or per step in other words ("RAM memory usage increases significantly(from 6GB
# to 42+GB)" after calling an endpoint many times; "With each successive prompt, another 200-400MB of VRAM is used")
# (h380/09, h378/15: were NONE) ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("said", [
    "After calling '/rerank' request many times (around 400,000 times with 5000 texts each) RAM memory usage increases "
    "significantly(from 6GB to 42+GB).",
    "After hitting /embed 20,000 times, the container's memory usage rose sharply from 3 GB to 11 GB.",
    "With each successive prompt, another 200-400MB of VRAM is used.",
    "An additional 300 MB of RAM gets used after every message, until the machine swaps.",
])
def test_growth_stated_with_figures_or_per_step(said):
    assert kind_of([said])[0] == "LEAK", kind_of([said])


def test_a_rise_by_one_setting_is_no_growth():
    said = "Memory usage increases significantly (from 6GB to 9GB) when I raise max_model_len from 4096 to 8192."
    assert kind_of([said])[0] != "LEAK", kind_of([said])


# --- memory rising while a model loads, the load named with words between ("During the GPU load attempt"): the load,
# not a leak (h382/08) -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("said", [
    "During the GPU load attempt, system memory usage climbs until it fills the entire 96GB of RAM.",
    "While the 70B model loads, RAM keeps growing until the machine starts swapping.",
])
def test_growth_while_a_model_loads_is_no_leak(said):
    assert kind_of([said])[0] != "LEAK", kind_of([said])


def test_growth_during_a_load_test_is_still_growth():
    said = "During the load test, memory keeps growing over 3 hours and never comes back down."
    assert kind_of([said])[0] == "LEAK", kind_of([said])


# --- a crash as systemd-coredump records it ("Signal: 11 (SEGV)") (h378/05: was NONE) -------------------------------

@pytest.mark.parametrize("sig,code", [
    ("11 (SEGV)", "crash-access-violation"), ("4 (ILL)", "illegal-instruction"),
    ("8 (FPE)", "floating-point-exception"),
])
def test_a_core_dumps_signal(sig, code):
    lines = ["           PID: 302990 (python)", f"        Signal: {sig}",
             "     Timestamp: Wed 2024-06-05 00:22:21 +07 (2min 32s ago)",
             "  Command Line: python koboldcpp.py --model m.gguf --usevulkan --gpulayers 22"]
    assert kind_of(lines) == ("NOT_OOM", code), kind_of(lines)


def test_a_core_dumps_bus_error_is_undetermined():
    lines = ["           PID: 4242 (llama-server)", "        Signal: 7 (BUS)"]
    assert kind_of(lines) == ("UNDETERMINED", "bus-error"), kind_of(lines)


# --- a Go panic's own message, where it names no step that may fail for memory (h379/02: was UNDETERMINED) ----------

@pytest.mark.parametrize("line", [
    "`panic: height:27 or width:257 must be larger than factor:28`",
    "http: panic serving 127.0.0.1:57511: height:27 or width:257 must be larger than factor:28",
    "panic: runtime error: index out of range [3] with length 3",
])
def test_a_go_panic_that_states_its_cause(line):
    assert kind_of([line])[0] == "NOT_OOM", kind_of([line])


@pytest.mark.parametrize("line", [
    "panic: unable to create llama context",
    "panic: failed to load model",
])
def test_a_go_panic_of_a_step_memory_may_fail_stays_open(line):
    assert kind_of([line])[0] != "NOT_OOM", kind_of([line])


# --- a model or feature only one kind of device runs ("Qwen3 is only supported on Cuda devices in fp16 with flash
# attention enabled") (h380/13: was NONE) ------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    'Error: Could not create backend: "Qwen3 is only supported on Cuda devices in fp16 with flash attention enabled"',
    "ValueError: FP8 Marlin is only supported on Hopper GPUs",
    "RuntimeError: bitsandbytes 4-bit quantization is not supported on MPS",
])
def test_a_feature_only_one_device_runs(line):
    assert kind_of([line]) == ("NOT_OOM", "gpu-unsupported"), kind_of([line])


# --- Vulkan's out-of-memory by its VkResult number, as TVM's runtime prints it (MLC LLM), after the chat CLI was ready
# (h382/01: was UNDETERMINED) ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("code", ["-2: VK_ERROR_OUT", "-2: VK_ERROR_OUT_OF_DEVICE_MEMORY", "-1: VK_ERROR_OUT_OF_HOST_MEMORY"])
def test_vulkans_numbered_out_of_memory_in_mlc_chat(code):
    lines = ['Use model library: "dist/prebuilt/lib/RedPajama-INCITE-Chat-3B-v1-q4f16_0-vulkan.so"', "Loading model...",
             "You can use the following special commands:", "  /help               print the special commands",
             "<human>: Write a poem for San Francisco",
             "[10:18:16] /tvm/src/runtime/relax_vm/pooled_allocator.h:64: Warning: PooledAllocator got InternalError "
             "during allocation:", f"  Check failed: (__e == VK_SUCCESS) is false: Vulkan Error, code={code}"]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


def test_vulkans_other_numbers_are_no_out_of_memory():
    lines = ["  Check failed: (__e == VK_SUCCESS) is false: Vulkan Error, code=-4: VK_ERROR_DEVICE_LOST"]
    assert kind_of(lines)[0] not in ("RUNTIME", "WEIGHTS", "KV_CAPACITY", "WARMUP"), kind_of(lines)


# --- an assertion whose message says the code has no such path, whatever it names (h376/01: was UNDETERMINED) -------

@pytest.mark.parametrize("message", [
    "AssertionError: SlidingWindowManager does not support fine-grained (partial) cache hits",
    "AssertionError: prefix caching is not supported for the Mamba KV cache spec yet",
    "AssertionError: MLA with fp8 kv cache is not implemented",
])
def test_an_assertion_of_a_missing_path_is_no_memory(message):
    lines = ['  File "vllm/v1/core/kv_cache_coordinator.py", line 771, in find_longest_cache_hit',
             "    assert alignment_tokens % kv_cache_spec.block_size == 0, (", message]
    assert kind_of(lines)[0] == "NOT_OOM", kind_of(lines)


def test_an_assertion_that_the_cache_is_not_available_is_left_open():
    lines = ["AssertionError: KV cache blocks are not available for this request"]
    assert kind_of(lines)[0] != "NOT_OOM", kind_of(lines)


# --- many requests sent, in words ("OOM issues occurred during continuous request sending") (h376/08: was
# UNDETERMINED) -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("said", [
    "OOM (Out-of-Memory) issues occurred during continuous request sending.",
    "The server hits CUDA out of memory while sending concurrent requests from 64 clients.",
    "torch.OutOfMemoryError shows up only under heavy load.",
])
def test_an_out_of_memory_told_under_many_requests(said):
    assert kind_of([said])[0] == "RUNTIME", kind_of([said])


# --- vLLM V1's dump of the batch it was running when it failed (logging_utils/dump_input.py): a request was in it,
# so the engine was serving (h376/09: was UNDETERMINED) --------------------------------------------------------------

@pytest.mark.parametrize("dump", [
    "ERROR 07-30 18:48:01 [dump_input.py:79] Dumping scheduler output for model execution: SchedulerOutput("
    "scheduled_new_reqs=[NewRequestData(req_id=chatcmpl-1, prompt_token_ids_len=812, mm_features=[], ",
    "(EngineCore_DP0 pid=7452) ERROR 07-30 18:48:01 [dump_input.py:79]        dtype=torch.bfloat16)], field="
    "MultiModalBatchedField(keep_on_cpu=False))}, modality='video', identifier='10a76ba0')",
])
def test_vllms_dump_of_a_scheduled_request_is_serving(dump):
    lines = ["# [Bug]: Nightly CI, torch.OutOfMemoryError: CUDA out of memory", dump,
             'ERROR 07-30 18:48:02 [core.py:700]   File "vllm/v1/worker/gpu_model_runner.py", line 1200, in '
             "_execute_mm_encoder"]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


# --- torchrun's agent stopping the other workers after one failed: a failure whose cause is the failed worker's own
# lines (h380/17: was NONE) ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "W0806 20:07:54.552742 148486 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 148594 closing "
    "signal SIGTERM",
    "E0806 20:07:55.100000 148486 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
    "local_rank: 0 (pid: 148593) of binary: /usr/bin/python",
])
def test_torchruns_agent_stopping_the_workers_is_a_failure_not_shown(line):
    lines = ["Loading checkpoint shards:  47%|████▋     | 7/15 [03:24<03:59, 29.9s/it]", line]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown"), kind_of(lines)


def test_torchruns_minus_nine_is_the_oom_killer():
    lines = ["Loading checkpoint shards:  47%|████▋     | 7/15 [03:24<03:59, 29.9s/it]",
             "E0806 20:07:55.100000 148486 api.py:869] failed (exitcode: -9) local_rank: 0 (pid: 148593) of binary: "
             "/usr/bin/python"]
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


# --- an out-of-memory told as the reason for a change the writer made before the run shown ("I had to reduce 1 layer
# on CUDA 2, as now CUDA 2 was getting OOM"): not the shown run's failure (h378/13: was RUNTIME) -----------------------

_SERVED = ["llm_load_tensors: offloaded 62/62 layers to GPU", "llama_new_context_with_model: n_ctx = 16384",
           "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
           "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]


@pytest.mark.parametrize("said", [
    "Here's a complete log. Notably, I had to reduce 1 layer on CUDA 2 (compared to https://github.com/x/y/pull/405#"
    "issuecomment-1), as now CUDA 2 was getting OOM.",
    "We needed to lower -ngl to 40 because the 70B went OOM on the 3090; with that it runs:",
])
def test_an_out_of_memory_that_a_change_avoided_is_not_this_run(said):
    lines = [said, *_SERVED]
    assert kind_of(lines)[0] == "NONE", kind_of(lines)


def test_a_change_that_did_not_help_keeps_the_failure():
    lines = ["I had to lower -ngl to 40 because of OOM, but it still crashes:", *_SERVED[:3],
             "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 900.00 MiB on device 0: cudaMalloc failed: out of "
             "memory"]
    assert kind_of(lines)[0] not in ("NONE",), kind_of(lines)


# --- Infinity (infinity_emb): its batch handler runs only requests; its record of the exception states the cause
# (h380/10, h380/11: were UNDETERMINED) --------------------------------------------------------------------------------

def test_infinitys_batch_handler_out_of_memory_is_serving():
    text = """
        INFO     2024-11-28 13:20:01,001 infinity_emb INFO: model warmed up, between 60.1-301.2 embeddings/sec at batch_size=32
        ERROR    2024-11-28 13:24:44,248 infinity_emb ERROR: CUDA out of memory. Tried to allocate 3.88 GiB. GPU 0 has a total capacity of 44.42 GiB of which 920.81 MiB is free.   batch_handler.py:574
                 Traceback (most recent call last):
    """
    run = run_of(diag(text))
    assert (run.kind, run.engine) == ("RUNTIME", "infinity"), (run.kind, run.engine)
    assert "--batch-size" in flags(run), flags(run)


@pytest.mark.parametrize("message", ["shape '[2, 512]' is invalid for input of size 524288",
                                     "Expected all tensors to be on the same device, but found at least two devices"])
def test_infinitys_record_of_another_error_is_no_memory(message):
    text = f"""
        ERROR    2024-06-02 08:21:46,304 infinity_emb ERROR: {message}   batch_handler.py:434
                 Traceback (most recent call last):
                   File "/x/infinity_emb/inference/batch_handler.py", line 423, in _core_batch
    """
    assert run_of(diag(text)).kind == "NOT_OOM"


# --- a KV cache an engine could not reserve or make, in words of its own ("failed to reserve the host KV cache"); a
# pool too small told in words ("leaving too little KV memory", "fails the KV admission check") (h377/10, h376/10) -----

@pytest.mark.parametrize("line", [
    "failed to reserve the host KV cache: cudaMallocHost failed to pin 8192 MiB of host memory",
    "RuntimeError: Failed to create KV cache for layer 12",
    "error: could not initialize the paged KV cache (requested 24.0 GiB)",
])
def test_a_kv_cache_that_could_not_be_made(line):
    assert kind_of([line])[0] == "KV_CAPACITY", kind_of([line])


def test_a_kv_cache_of_a_bad_type_is_not_capacity():
    line = "RuntimeError: Failed to create KV cache: unsupported dtype fp4"
    assert kind_of([line])[0] != "KV_CAPACITY", kind_of([line])


@pytest.mark.parametrize("said", [
    "Auto resolves to 256 rows and reserves 20.88 GiB per GPU for graphs, leaving too little KV memory.",
    "Startup then fails the KV admission check.",
])
def test_a_pool_too_small_told_in_words(said):
    assert kind_of([said])[0] == "KV_CAPACITY", kind_of([said])


def test_vllm_v0_preemption_for_kv_space_is_still_pressure():
    lines = ["WARNING 08-10 10:10:00 scheduler.py:1091] Sequence group chat-3 is preempted by PreemptionMode.RECOMPUTE "
             "mode because there is not enough KV cache space."]
    assert kind_of(lines)[0] != "KV_CAPACITY", kind_of(lines)


# --- llama-swap: its lines of the upstream server it ran (h378/01, h378/02: were NONE) ------------------------------

def test_llama_swap_upstream_exited_while_starting():
    lines = ["[WARN] <qmd-rerank> ExitError >> exit status 1, exit code: 1",
             "[INFO] <qmd-rerank> process exited but not StateStopping, current state: starting",
             "[WARN] non-200 response, recording partial metrics: status=502, path=/v1/embeddings"]
    rep = diag("\n".join(lines))
    assert rep.engine == "llama-swap" and run_of(rep).kind == "UNDETERMINED", (rep.engine, run_of(rep).kind)


def test_llama_swap_upstream_ended_while_starting_is_a_failure_not_shown():
    lines = ["[DEBUG] <qwen3> Health check error on http://localhost:5805/health, status code: 503 (normal during "
             "startup)", "[DEBUG] <qwen3> cmd.Wait() returned error: signal: terminated",
             "[INFO] <qwen3> process exited but not StateStopping, current state: starting"]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown"), kind_of(lines)


@pytest.mark.parametrize("sig", ["terminated", "killed"])
def test_llama_swaps_own_stop_is_no_failure(sig):
    lines = ["[INFO] <qwen3> Unloading model, TTL of 300s reached",
             "[DEBUG] <qwen3> Stopping process, current state: ready",
             "[DEBUG] <qwen3> swapState() State transitioned from ready to stopping",
             f"[DEBUG] <qwen3> cmd.Wait() returned error: signal: {sig}", "[DEBUG] <qwen3> Process stopped OK"]
    assert kind_of(lines)[0] == "NONE", kind_of(lines)


# --- a command that goes no further, in words ("the command does not proceed further") (h377/03: was NONE) -----------

@pytest.mark.parametrize("said", [
    "Even after waiting for a long time, the command does not proceed further.",
    "It never gets past this line and nothing happens after that.",
    "The launcher just waits forever on the worker.",
])
def test_a_hang_in_other_words(said):
    lines = ["INFO dynamo_llm::engines::sglang::worker: Waiting for sglang0 to signal that it's ready", said]
    assert kind_of(lines) == ("UNDETERMINED", "hang-no-error"), kind_of(lines)


# --- host memory killed during a warm-up step the report names (JIT compilation of kernels) (h381/07: was
# UNDETERMINED) -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("said", [
    "02 vLLM + NVFP4 — OOM killer during JIT compilation 17:36–18:01",
    "The OOM killer fired while JIT-compiling the FlashInfer kernels.",
])
def test_a_host_kill_during_kernel_compilation_is_warmup(said):
    lines = [said, "Aug 01 18:01:30 dgx-spark kernel: Out of memory: Killed process 21394 (cicc)"]
    assert kind_of(lines) == ("WARMUP", "host-oom-kill"), kind_of(lines)


# === rounds 383-387 ===================================================================================================

# --- IPython's and Jupyter's traceback frames ("File ~/x/gpu_model_runner.py:2874, in GPUModelRunner._dummy_sampler_run
# (self, hidden_states)") are frames; a person's words that something brought the out-of-memory on ("triggers an
# immediate CUDA OOM ... at the FastLanguageModel.from_pretrained()") yield to the log's own error (h385/01: was WEIGHTS)

_IPYTHON_OOM = ["---------------------------------------------------------------------------",
                "OutOfMemoryError                          Traceback (most recent call last)",
                "File ~/envs/x/lib/python3.10/site-packages/vllm/v1/worker/gpu_model_runner.py:2874, in "
                "GPUModelRunner._dummy_sampler_run(self, hidden_states)", "   2873 try:",
                "-> 2874     sampler_output = self.sampler(logits=logits, sampling_metadata=dummy_metadata)"]


@pytest.mark.parametrize("said", [
    "Enabling UNSLOTH_VLLM_STANDBY=1 together with fast_inference=True triggers an immediate CUDA OOM on RTX 4090 (24GB) "
    "at the FastLanguageModel.from_pretrained().",
    "Setting gpu_memory_utilization=0.95 in from_pretrained causes an OOM right away.",
])
def test_an_ipython_traceback_places_the_failure_over_a_sentence(said):
    lines = [said, "INFO 11-01 23:47:29 [gpu_model_runner.py:3118] Graph capturing finished in 23 secs, took 2.28 GiB",
             *_IPYTHON_OOM]
    assert kind_of(lines)[0] == "WARMUP", kind_of(lines)


def test_an_ipython_frame_of_a_load_is_the_weights():
    lines = ["OutOfMemoryError                          Traceback (most recent call last)",
             "File ~/venv/lib/python3.11/site-packages/transformers/modeling_utils.py:4500, in "
             "_load_state_dict_into_meta_model(model, state_dict)", "torch.OutOfMemoryError: CUDA out of memory."]
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


# --- a client that could not reach a server on this machine: that server failed, its cause in its own lines (h385/08:
# was NOT_OOM); not one a proxy refused -----------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "requests.exceptions.ConnectionError: HTTPConnectionPool(host='0.0.0.0', port=8000): Max retries exceeded with url: "
    "/health/ (Caused by NewConnectionError('Failed to establish a new connection: [Errno 111] Connection refused'))",
    "Error: connect ECONNREFUSED 127.0.0.1:11434",
    "httpx.ConnectError: [Errno 111] Connection refused",
])
def test_a_client_that_cannot_reach_a_local_server(line):
    assert kind_of([line]) == ("UNDETERMINED", "failure-cause-not-shown"), kind_of([line])


# --- a report's title that names the out-of-memory alone, then the body's sentence that names its step ("run into an
# OOM error as it tries to create the kv cache") (h385/16: was UNDETERMINED) --------------------------------------------

@pytest.mark.parametrize("body", [
    "I am trying to evaluate a fine-tuned llama 3.1 model but run into an OOM error as it tries to create the kv cache "
    "with max sequence length.",
    "It runs out of memory while loading the weights, before anything else happens.",
])
def test_a_bare_title_then_the_body_names_the_step(body):
    lines = ["Eval recipe produces OOM with Llama 3.1", "", "Hi,", "", body]
    kind = kind_of(lines)[0]
    assert kind == ("KV_CAPACITY" if "kv cache" in body else "WEIGHTS"), kind_of(lines)


# --- what vLLM's sleep mode could not free, rising across an RL trainer's steps: memory kept (h385/11) -----------------

def test_sleep_modes_residual_rising_is_growth():
    lines = ["INFO 05-22 10:00:00 [gpu_worker.py:110] Sleep mode freed 43.82 GiB memory, 4.11 GiB memory is still in use.",
             "INFO 05-22 10:20:00 [gpu_worker.py:110] Sleep mode freed 36.40 GiB memory, 11.57 GiB memory is still in use.",
             "INFO 05-22 10:40:00 [gpu_worker.py:110] Sleep mode freed 23.00 GiB memory, 25.00 GiB memory is still in use."]
    assert kind_of(lines)[0] == "LEAK", kind_of(lines)


def test_sleep_modes_residual_steady_is_no_growth():
    lines = [f"INFO 05-22 10:{m}:00 [gpu_worker.py:110] Sleep mode freed 43.82 GiB memory, 4.11 GiB memory is still in use."
             for m in ("00", "20", "40")]
    assert kind_of(lines)[0] != "LEAK", kind_of(lines)


# --- a load's progress, then the kill in words ("Loading checkpoint shards:  62%, then progress be killed") (h385/13) ----

@pytest.mark.parametrize("said", ["Loading checkpoint shards:  62%, then progress be killed",
                                  "Loading checkpoint shards stops at 3/8 and then the process gets killed"])
def test_a_load_then_killed_in_words(said):
    assert kind_of([said])[0] == "WEIGHTS", kind_of([said])


# --- a container stopped for starting too long is no memory (Modal's "Runner has been initializing for too long"); a
# pod's "status code 139" is a crash by a bad access; bitsandbytes quantizing weights as they are placed is the weights;
# Gradio's request handler is serving (h386/06, h386/05, h387/06, h387/14) --------------------------------------------

def test_a_platform_stopping_a_slow_start_is_no_memory():
    lines = ["Loading weights took 5.38 GB", "Runner has been initializing for too long: 300 seconds. Terminating."]
    assert kind_of(lines) == ("NOT_OOM", "load-timeout"), kind_of(lines)


def test_a_status_code_139_is_a_segfault():
    assert kind_of(["The pod dies with status code 139 right after 'Model loading took 1.9 GiB'."]) == (
        "NOT_OOM", "crash-access-violation")


def test_bitsandbytes_placing_weights_is_the_weights():
    lines = ["Traceback (most recent call last):",
             '  File "/h2ogpt/.venv/lib/python3.10/site-packages/transformers/utils/bitsandbytes.py", line 91, in '
             "set_module_quantized_tensor_to_device", "    new_value = bnb.nn.Params4bit(new_value, requires_grad=False, "
             "**kwargs).to(device)", "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 112.00 MiB"]
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


@pytest.mark.parametrize("ready", ["To create a public link, set `share=True` in `launch()`.",
                                   "Running on local URL:  http://127.0.0.1:7860", "(the traceback alone)"])
def test_gradios_request_handler_is_serving(ready):
    lines = [ready, "Traceback (most recent call last):",
             '  File "C:\\venv\\lib\\site-packages\\gradio\\queueing.py", line 489, in call_prediction',
             "    output = await route_utils.call_process_api(",
             "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


@pytest.mark.parametrize("said", ["模型启动后卡着不动，没有任何报错", "日志停在这里以后就一直不动"])
def test_a_hang_in_chinese_words(said):
    lines = ["INFO 01-01 10:00:00 llm_engine.py:70] Initializing an LLM engine with config: model='Qwen-72B'", said]
    assert kind_of(lines)[0] in ("NOT_OOM", "UNDETERMINED"), kind_of(lines)


# --- the weights swizzled or processed for a kernel once read, named in words: loading them (h376/05: was
# UNDETERMINED) --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("said", [
    "The model weights load successfully (15/15 shards) but the post-load mxfp4 swizzle step OOMs at cumem_allocator.cpp.",
    "CUDA out of memory in process_weights_after_loading for the FP8 MoE layers.",
    "The NVFP4 swizzle runs out of memory right after the shards are read.",
])
def test_weights_processed_after_reading_are_the_weights(said):
    assert kind_of([said])[0] == "WEIGHTS", kind_of([said])


# --- vLLM's start-up check with a fraction above what is free, where what is in use is no more than a process's own
# start takes: the fraction's fault, not another process (h386/10) -------------------------------------------------------

@pytest.mark.parametrize("free,total,util,want", [
    ("173.8", "178.35", "0.98, 174.78", "fraction-above-free"),
    ("78.9", "79.19", "0.999, 79.11", "fraction-above-free"),
    ("54.11", "79.18", "0.92, 72.84", "gpu-shared-with-other-process"),
])
def test_a_fraction_above_what_is_free(free, total, util, want):
    line = (f"ValueError: Free memory on device cuda:0 ({free}/{total} GiB) on startup is less than desired GPU memory "
            f"utilization ({util} GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.")
    run = run_of(diag("INFO 07-01 09:41:00 [core.py:70] Initializing a V1 LLM engine (v0.10.1) with config: model='m'\n"
                      + line))
    assert (run.kind, run.code) == ("NOT_OOM", want), (run.kind, run.code)
    assert "--gpu-memory-utilization" in flags(run)
    assert ("free the GPU" in " ".join(a["why"] + a["change"] for a in run.advice)) == (want != "fraction-above-free")


# === from the new-user review of stop 42 ===============================================================================

_LOAD_TB = ['  File "/vllm/model_executor/model_loader/default_loader.py", line 269, in load_weights',
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."]


@pytest.mark.parametrize("intro,log", [
    ("OOM under 64 concurrency:", _LOAD_TB),
    ("The server OOMs during warmup:", ["Loading safetensors checkpoint shards:  50% Completed | 15/30 [00:30<00:30]",
                                       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."]),
])
def test_an_introducing_line_yields_to_the_pastes_own_step(intro, log):
    assert kind_of([intro, *log])[0] == "WEIGHTS", kind_of([intro, *log])


def test_requests_denied_in_words_are_no_serving():
    assert kind_of(["It OOMs when loading the model, not while sending concurrent requests."])[0] != "RUNTIME"


@pytest.mark.parametrize("warning", [
    "WARNING 05-01 10:00:00 [platform.py:100] bfloat16 is not supported on CPU, using float32 instead.",
    'time=2025-05-01T10:00:00Z level=WARN msg="flash attention is only supported on CUDA devices with compute '
    'capability 7.0+, disabling"',
])
def test_a_fallback_warning_is_no_failure(warning):
    lines = [warning, "INFO 05-01 10:00:05 [gpu_model_runner.py:1200] Model loading took 14.99 GiB and 12.3 seconds",
             'INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    assert kind_of(lines)[0] == "NONE", kind_of(lines)


@pytest.mark.parametrize("said", [
    "I had to reduce -ngl to 30 because of OOM, but I still get OOM on long prompts.",
    "I had to reduce -ngl to 30 because of OOM; now it OOMs on the second request.",
])
def test_a_change_that_did_not_stop_the_oom_keeps_it(said):
    assert kind_of([said])[0] != "NONE", kind_of([said])


@pytest.mark.parametrize("line", [
    "RuntimeError: Failed to create KV cache: no CUDA-capable device is detected",
    "ERROR lmcache: Unable to create KV cache directory /mnt/kvcache: Permission denied",
    "failed to initialize the KV cache: CUDA driver version is insufficient for CUDA runtime version",
    "I don't think it's leaving too little KV memory, since the pool shows 40 GiB free.",
])
def test_kv_cache_words_with_another_cause_are_not_capacity(line):
    assert kind_of([line])[0] != "KV_CAPACITY", kind_of([line])


def test_an_assertion_that_blocks_ran_out_is_not_a_missing_feature():
    assert kind_of(["AssertionError: Out of KV cache blocks; swapping is not supported in V1"])[0] != "NOT_OOM"


def test_a_go_panic_about_memory_is_not_no_memory():
    assert kind_of(["panic: requested 24 GiB but only 8 GiB free on GPU0"])[0] != "NOT_OOM"


@pytest.mark.parametrize("said", [
    "During load testing, memory keeps growing over 3 hours and never comes back down.",
    "When under load, VRAM keeps growing over 3 hours and never comes back down.",
    "During the locust load run, RSS keeps growing over 3 hours and never comes back down.",
])
def test_growth_under_load_is_growth(said):
    assert kind_of([said])[0] == "LEAK", kind_of([said])


@pytest.mark.parametrize("said", [
    "I tested it 5 times: memory rose from 6 GB to 20 GB during each long request and dropped back to 6 GB after.",
    "With each successive prompt, another 200-400MB of VRAM is used, and it is all released when the chat ends.",
])
def test_growth_given_back_is_no_leak(said):
    assert kind_of([said])[0] != "LEAK", kind_of([said])


@pytest.mark.parametrize("cmd", ["$ vllm serve m --kv_cache_dtype fp8 --max-model-len 131072",
                                 'args: ["--model", "m", "--kv-cache-dtype", "fp8", "--max-model-len", "131072"]'])
def test_a_kv_dtype_in_use_in_other_spellings_is_not_advised_again(cmd):
    run = run_of(diag(cmd + "\nValueError: To serve at least one request with the models's max seq len (131072), "
                            "(16.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.37 "
                            "GiB). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
                            "initializing the engine."))
    assert run.numbers.get("kv_cache_dtype") == "fp8", run.numbers
    assert "--kv-cache-dtype" not in flags(run), flags(run)


def test_killed_after_a_graph_capture_bar_is_the_warmup():
    lines = ["INFO 05-01 10:00:00 [gpu_model_runner.py:1200] Model loading took 14.99 GiB and 12.3 seconds",
             "INFO 05-01 10:00:10 [gpu_worker.py:200] Available KV cache memory: 40.00 GiB",
             "Capturing CUDA graph shapes:  60%|██████    | 40/67 [00:10<00:07,  3.9it/s]Killed"]
    assert kind_of(lines) == ("WARMUP", "host-oom-kill"), kind_of(lines)


@pytest.mark.parametrize("event", [
    "  Warning  Evicted  2m  kubelet  The node was low on resource: memory. Container vllm was using 61Gi, request is "
    "32Gi, has larger consumption of memory.",
    "Events: Evicted: The node was low on resource: memory. Threshold quantity: 100Mi, available: 92Mi.",
])
def test_a_pods_eviction_for_memory_is_host_memory(event):
    lines = [*_VLLM_UP, event, "INFO 05-01 10:10:00 [api_server.py:99] Received SIGTERM, shutting down the server.",
             "ERROR 05-01 10:10:00 [async_llm.py:704] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered "
             "an issue."]
    assert kind_of(lines) == ("RUNTIME", "host-oom-kill"), kind_of(lines)


# --- in Chinese: the model that could not be loaded (导致应用无法加载模型) is the weights; the model called (调用的时候) is a
# request (h383/10, h383/11: were UNDETERMINED) -------------------------------------------------------------------------

@pytest.mark.parametrize("said", ["显卡只有6G，导致应用无法加载模型，报错如下：", "加载模型失败，提示显存不足："])
def test_a_model_that_could_not_load_in_chinese(said):
    lines = [said, "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB (GPU 0; 5.50 GiB total "
             "capacity; 4.69 GiB already allocated)"]
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


@pytest.mark.parametrize("said", ["使用cuda:1调用合并之后的模型的时候，报上图错误", "调用接口时显存不足"])
def test_the_model_called_in_chinese_is_a_request(said):
    lines = [said, "Error: CUDA error when allocating 8236 kB memory! maybe there's no enough memory left on device."]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


def test_a_model_that_is_not_unloadable_is_no_load_failure():
    lines = ["不是无法加载模型，而是推理时报错：", "torch.cuda.OutOfMemoryError: CUDA out of memory."]
    assert kind_of(lines)[0] != "WEIGHTS", kind_of(lines)
