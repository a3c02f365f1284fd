"""`vramdoctor logs` on the kinds of fault the held-out rounds 194 and later (issue 6, stop 31) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, kind_of, run_of

# --- a download or a hub the server could not reach (DNS, a network that is down, TLS, a proxy): a named cause that
# is not memory; a client that cannot reach the server on this machine is the server's failure told again ----------

_NETWORK = [
    # NVIDIA NIM's Rust hub client, its line inside a JSON log record
    ['{"level": "None", "message": "[09-25 19:03:45.989 ERROR  nim_sdk::hub::repo  rust/nim-sdk/src/hub/repo.rs:119] '
     'error sending request for url (https://api.ngc.nvidia.com/v2/org/nim/team/meta/models/llama-3_1-70b/files)"}',
     '{"level": "ERROR", "message": "", "exc_info": "Traceback (most recent call last):"}'],
    # TGI's launcher: the hf-hub crate's download, DNS failing
    ["2024-06-01T10:00:00.000000Z  INFO text_generation_launcher: Starting download process.",
     "2024-06-01T10:00:05.000000Z ERROR download: text_generation_launcher: Download encountered an error:",
     "Error: request error: error sending request for url (https://huggingface.co/api/models/meta-llama/Llama-3.1-8B): "
     "error trying to connect: dns error: failed to lookup address information: Temporary failure in name resolution"],
    # vLLM: transformers could not reach the hub and has no cached copy
    ["INFO 05-02 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
     "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files "
     "and it looks like Qwen/Qwen2.5-7B-Instruct is not the path to a directory containing a file named config.json."],
    # SGLang: requests' connection pool, the network unreachable
    ["[2025-03-01 09:00:00] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B-Instruct', tp_size=1)",
     "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded "
     "with url: /api/models/meta-llama/Llama-3.1-8B-Instruct/revision/main (Caused by NewConnectionError('<urllib3."
     "connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno 101] Network is "
     "unreachable'))"],
    # Ollama pulling a model: Go's resolver
    ["pulling manifest",
     'Error: pull model manifest: Get "https://registry.ollama.ai/v2/library/llama3.1/manifests/latest": dial tcp: '
     "lookup registry.ollama.ai on 127.0.0.53:53: server misbehaving"],
    # a proxy that re-signs TLS: the certificate check
    ["INFO 01-10 08:00:00 [api_server.py:1043] vLLM API server version 0.9.2",
     "requests.exceptions.SSLError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with "
     "url: /api/models/x (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] "
     "certificate verify failed: self-signed certificate in certificate chain (_ssl.c:1006)')))"],
]


_NETWORK += [
    # huggingface_hub: not in the local cache, the hub not reached (a report's title over a cut log, TGI's launcher)
    ["# LocalEntryNotFoundError", "", "2025-03-01T10:00:00.000000Z  INFO text_generation_launcher: Starting download "
     "process."],
    ["huggingface_hub.errors.LocalEntryNotFoundError: An error happened while trying to locate the file on the Hub and "
     "we cannot find the requested files in the local cache."],
]


@pytest.mark.parametrize("lines", _NETWORK)
def test_a_network_that_failed_is_named_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "network-error")


def test_a_client_that_cannot_reach_the_server_here_is_no_network_cause():
    # the server ran out of memory; the benchmark client's connection to it is refused after (localhost)
    kind, code = kind_of([
        "INFO 05-02 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
        "INFO:     Application startup complete.",
        'INFO:     127.0.0.1:40000 - "POST /v1/completions HTTP/1.1" 200 OK',
        "ERROR 05-02 10:05:00 [core.py:400] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
        "GPU 0 has a total capacity of 79.15 GiB of which 1.10 GiB is free.",
        "requests.exceptions.ConnectionError: HTTPConnectionPool(host='localhost', port=8000): Max retries exceeded "
        "with url: /v1/completions (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at "
        "0x7f>: Failed to establish a new connection: [Errno 111] Connection refused'))",
        "error sending request for url (http://127.0.0.1:8000/health)"])
    assert kind == "RUNTIME", (kind, code)


# --- an abort with the place it happened ("Fatal Python error: Aborted from _do_external_prefill") names no cause:
# abort() was called by something else, whose words are not in the log --------------------------------------------


@pytest.mark.parametrize("lines", [
    ["5. Eventually the server terminates; the UI reports \u201cServer exited with code 6\u201d, and crash.log shows "
     "Fatal Python error: Aborted from _do_external_prefill."],
    ["INFO 05-02 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
     "INFO:     Application startup complete.",
     "Fatal Python error: Aborted in execute_model"],
    ["llama_new_context_with_model: n_ctx = 8192", "Abort trap: 6 during llama_decode()"],
    # the shell's own reports of an abort (macOS, zsh's job line), with no cause above them
    ["llama_new_context_with_model: n_ctx = 8192", "Abort trap: 6"],
    ["llama_new_context_with_model: n_ctx = 8192", "zsh: abort      ./llama-server -m model.gguf -c 8192"],
    ["llama_new_context_with_model: n_ctx = 8192", "[1]    4242 abort      ./main -m model.gguf"],
])
def test_an_abort_with_its_place_names_no_cause(lines):
    kind, code = kind_of(lines)
    assert kind == "UNDETERMINED" and code == "failure-cause-not-shown", (kind, code)


def test_the_shells_abort_after_a_named_cause_keeps_the_cause():
    kind, code = kind_of(["llama_kv_cache_init: CUDA0 KV buffer size = 4096.00 MiB",
                          "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: "
                          "cudaMalloc failed: out of memory",
                          "llama_init_from_model: failed to allocate compute buffers",
                          "zsh: abort      ./llama-server -m model.gguf -c 131072"])
    assert kind in ("WARMUP", "KV_CAPACITY"), (kind, code)


# --- ggml-alloc's check of one tensor against the back end's largest buffer: past a real limit it is one allocation
# too big (whatever is free); against a limit of 0 the back end failed to read its limit, not memory ----------------

_LOAD = ["llm_load_tensors: ggml ctx size =    0.22 MiB"]
_FAILED = "llama_model_load: error loading model: failed to allocate buffer"


@pytest.mark.parametrize("line", [
    "ggml_backend_alloc_ctx_tensors_from_buft: tensor blk.27.attn_norm.weight is too large to fit in a Vulkan buffer "
    "(tensor size: 16384, max buffer size: 0)",
    "ggml_backend_alloc_ctx_tensors_from_buft: tensor token_embd.weight is too large to fit in a SYCL0 buffer (tensor "
    "size: 262144000, max buffer size: 0)",
    # a terminal wrapped it mid-word
    "ggml_backend_alloc_ctx_tensors_from_buft: tensor blk.27.attn_norm.weight is too large to f\nit in a Vulkan "
    "buffer (tensor size: 16384, max buffer size: 0)",
])
def test_a_largest_buffer_of_zero_is_a_limit_not_read(line):
    assert kind_of([*_LOAD, *line.split("\n"), _FAILED]) == ("NOT_OOM", "device-memory-query-failed")


@pytest.mark.parametrize("line", [
    "ggml_backend_alloc_ctx_tensors_from_buft: tensor token_embd.weight is too large to fit in a Vulkan0 buffer "
    "(tensor size: 5368709120, max buffer size: 4294967296)",
    "ggml_backend_alloc_ctx_tensors_from_buft: tensor output.weight is too large to fit in an OpenCL buffer (tensor "
    "size: 1245184000, max buffer size: 1073741824)",
])
def test_a_tensor_past_the_largest_buffer_is_one_allocation_too_big(line):
    assert kind_of([*_LOAD, line, _FAILED]) == ("WEIGHTS", "buffer-exceeds-allocation-limit")


# --- llama_decode evaluates a batch for the warm-up's empty run (common_init_from_params: "warming up the model with
# an empty run") as well as for a request: before the server listens it is the warm-up, after it a request ----------

_CTX = ["llama_kv_cache_unified:      CUDA0 KV buffer size =  1024.00 MiB",
        "llama_context:      CUDA0 compute buffer size =   300.00 MiB"]
_ALLOC = ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2048.00 MiB on device 0: cudaMalloc failed: out of "
          "memory")


@pytest.mark.parametrize("lines", [
    [*_CTX, _ALLOC, "llama_decode: failed to decode, ret = -3"],
    [*_CTX, "common_init_from_params: warming up the model with an empty run - please wait ... (--no-warmup to "
     "disable)", _ALLOC, "llama_decode: failed to decode, ret = -3"],
    # SYCL's words for it, a warm-up decode in llama-cli
    [*_CTX, "Exception caught at file:ggml-sycl.cpp, line:3170, func:operator() in llama_decode",
     "UR error: 38 (UR_RESULT_ERROR_OUT_OF_HOST_MEMORY)"],
])
def test_a_decode_before_the_server_listens_is_the_warm_up(lines):
    assert kind_of(lines)[0] == "WARMUP"


def test_a_decode_once_the_server_listens_is_a_request():
    kind, code = kind_of([*_CTX, "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
                          _ALLOC, "llama_decode: failed to decode, ret = -3"])
    assert kind == "RUNTIME", (kind, code)


def test_a_decode_named_alone_is_warm_up_or_request():
    kind, code = kind_of(["aborts during the first llama_decode with UR error: 38 (UR_RESULT_ERROR_OUT_OF_HOST_MEMORY)."])
    assert kind == "UNDETERMINED", (kind, code)


# --- a server's own words that the KV cache for the context asked does not fit: the KV ledger, whatever the engine --


@pytest.mark.parametrize("lines", [
    ["2026-09-05T11:32:04.266094Z  INFO infr_vulkan: [infr] vulkan device Vulkan0: AMD Radeon RX 6650 XT (discrete, "
     "7.98 GiB)", "Error: this model cannot be served on this device: no usable KV cache fits.",
     "  requested context   : 262144 tokens"],
    ["loading model weights: done", "error: the KV cache for 131072 tokens won't fit on this device (4.5 GiB free)"],
    ["[server] weights resident: 14.2 GiB", "fatal: KV cache does not fit in the remaining device memory; lower the "
     "context length"],
])
def test_a_kv_cache_that_does_not_fit_in_plain_words(lines):
    assert kind_of(lines) == ("KV_CAPACITY", "kv-cache-alloc-failed")


def test_a_question_whether_the_kv_cache_fits_is_no_failure():
    kind, _ = kind_of(["Does the KV cache for 131072 tokens not fit on a 24 GB card?"])
    assert kind not in ("KV_CAPACITY",), kind


# --- an operation a ggml back end cannot run (its scheduler, Vulkan, SYCL, Metal): a build without that op ---------


@pytest.mark.parametrize("line", [
    "error msg: pre-allocated tensor (cache_k_l3 (view)) in a buffer (Vulkan0) that cannot run the operation (SET_ROWS)",
    "ggml_vulkan: Error: Missing op: ROPE_BACK",
    "ggml_sycl_compute_forward: error: op not supported GATED_LINEAR_ATTN (f32)",
    "ggml_metal_graph_compute_block_invoke: error: node  12, op =  SSM_SCAN not implemented",
])
def test_an_op_the_back_end_cannot_run_is_not_memory(line):
    kind, code = kind_of(["llama_kv_cache_unified:    Vulkan0 KV buffer size =  1024.00 MiB", line])
    assert (kind, code) == ("NOT_OOM", "backend-op-unsupported"), (kind, code)


# --- /dev/shm that is full is host shared memory (a container's small default), not a full disk, wherever the path
# stands on the line ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["aa30811e22aa:1:114 [2] misc/shmutils.cc:128 NCCL WARN Error while creating shared memory segment "
     "/dev/shm/nccl-97p6hH (size 9637888), error: No space left on device (28)",
     "aa30811e22aa:1:114 [2] NCCL INFO transport/shm.cc:547 -> 2"],
    ["vllm-1  | misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-Abc123 to 9637892 bytes"],
    ["RuntimeError: unable to write to file </torch_123_456>: No space left on device (28) /dev/shm/torch_1"],
])
def test_a_full_dev_shm_is_shared_memory_not_the_disk(lines):
    kind, code = kind_of(lines)
    assert (kind, code) == ("NOT_OOM", "shm-exhausted"), (kind, code)


def test_a_full_disk_elsewhere_is_still_the_disk():
    assert kind_of(["OSError: [Errno 28] No space left on device: '/root/.cache/huggingface/hub/models--x'"]) == (
        "NOT_OOM", "disk-full")


# --- a cluster scheduler refusing to place a model its estimate says fits no worker: weights or KV, nothing ran out -


def test_a_scheduler_that_refused_to_place_the_model_is_weights_or_kv():
    run = run_of(diag("\n".join([
        "Error content\uff1aNo suitable workers.", "Details:",
        "- No workers meet the resource requirements. Consider adjusting parameters such as --gpu-memory-utilization "
        "(default: 0.9), --max-model-len, or --enforce-eager to lower the resource demands."])))
    assert (run.kind, run.code) == ("UNDETERMINED", "guardrail-refused-load"), (run.kind, run.code)
    assert set(run.candidates) == {"WEIGHTS", "KV_CAPACITY"}, run.candidates
    said = " ".join(a["why"] for a in run.advice)
    assert "LM Studio" not in said and "max-model-len" in said, said


# --- Python's logger.exception(e) prints str(e), then the traceback, under the record's one prefix: where the
# traceback is cut before its exception, the message above its header is the cause ---------------------------------

_V0 = "ERROR 08-16 18:12:26 [engine.py:458] "
_FRAMES = ['  File "/usr/lib/python3.12/site-packages/vllm/engine/multiprocessing/engine.py", line 446, in '
           "run_mp_engine", "    engine = MQLLMEngine.from_vllm_config("]


@pytest.mark.parametrize("lines", [
    ["INFO 08-16 18:12:26 [model_runner.py:1513] Capturing cudagraphs for decoding.",
     _V0 + "size_k must divisible by BLOCK_SIZE_K", _V0 + "Traceback (most recent call last):",
     *(_V0 + t for t in _FRAMES)],
    # the stdlib's own format, a worker of another server
    ["2025-01-02 10:00:00,123 - worker - ERROR - Unsupported quantization method awq_marlin on this GPU",
     "2025-01-02 10:00:00,123 - worker - ERROR - Traceback (most recent call last):",
     '2025-01-02 10:00:00,123 - worker - ERROR -   File "/app/worker.py", line 88, in load'],
])
def test_the_message_logged_above_a_cut_traceback_is_its_cause(lines):
    assert kind_of(lines) == ("NOT_OOM", "error-not-memory")


def test_another_records_line_above_a_cut_traceback_is_not_its_cause():
    kind, code = kind_of(["ERROR 08-16 18:12:20 [worker.py:100] Worker heartbeat missed once, retrying soon",
                          _V0 + "Traceback (most recent call last):", *(_V0 + t for t in _FRAMES)])
    assert (kind, code) == ("UNDETERMINED", "failure-cause-not-shown"), (kind, code)


@pytest.mark.parametrize("said", [
    "AsyncLLM output_handler failed.",
    "Error executing method 'load_model'. This might cause deadlock in distributed execution.",
    "Exception in worker VllmWorkerProcess while processing method load_model.",
])
def test_a_records_own_words_that_something_failed_are_no_cause(said):
    prefix = "(APIServer pid=5750) ERROR 01-30 12:21:32 [async_llm.py:480] "
    kind, code = kind_of([prefix + said, prefix + "Traceback (most recent call last):", *(prefix + t for t in _FRAMES)])
    assert kind == "UNDETERMINED", (kind, code)


# --- torch.distributed's store timing out (ranks that never met) is a communication failure, not memory ------------


@pytest.mark.parametrize("lines", [
    ["[rank1]:[W324 12:06:11.712424651 socket.cpp:497] [c10d] waitForInput: socket SocketImpl(fd=149, addr=[head-0]:"
     "45532, remote=[head-0]:6379) timed out after 600000ms",
     "[2026-03-24 12:06:11 DP1 TP1 EP1] Scheduler hit an exception: Traceback (most recent call last):",
     '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2900, in run_scheduler_process'],
    ["(VllmWorker rank=1 pid=300) ERROR 05-02 10:00:00 [multiproc_executor.py:500] torch.distributed.DistStoreError: "
     "wait timeout after 600000ms, keys: /default_pg/0//cuda//0"],
])
def test_a_distributed_store_that_timed_out_is_communication(lines):
    assert kind_of(lines) == ("NOT_OOM", "communication-error")


# --- vLLM's `_initialize_kv_caches` runs the profile, then the cache, then the warm-up: the frame under it names the
# step, and a traceback cut at it leaves the cache or the warm-up -------------------------------------------------

_ENGINE = ['  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", line 276, in __init__',
           "    self._initialize_kv_caches()",
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", line 421, in '
           "_initialize_kv_caches"]
_V0_LOADED = ["INFO 01-10 08:00:00 llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: model='x'",
              "INFO 01-10 08:00:40 model_runner.py:1067] Loading model weights took 15.9524 GB"]
_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 "
        "GiB of which 1.10 GiB is free.")


def test_a_traceback_cut_at_initialize_kv_caches_leaves_the_cache_or_the_warm_up():
    run = run_of(diag("\n".join([*_V0_LOADED, "Traceback (most recent call last):", *_ENGINE, _OOM])))
    assert run.kind == "UNDETERMINED" and set(run.candidates) >= {"KV_CAPACITY", "WARMUP"}, (run.kind, run.candidates)


@pytest.mark.parametrize("frame,kind", [
    ('  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 229, in '
     "determine_num_available_blocks", "WARMUP"),
    ('  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 264, in initialize_cache',
     "KV_CAPACITY"),
])
def test_the_frame_under_initialize_kv_caches_names_the_step(frame, kind):
    run = run_of(diag("\n".join([*_V0_LOADED, "Traceback (most recent call last):", *_ENGINE, frame, _OOM])))
    assert run.kind == kind, (run.kind, run.code)


# --- Ollama's client seeing its runner die ("Error: error reading llm response: unexpected EOF") names no cause, in a
# report's sentence too: the report's title may; the server's log would -------------------------------------------


@pytest.mark.parametrize("lines,kind", [
    (["Error: error reading llm response: unexpected EOF"], "UNDETERMINED"),
    (["# CUDA out of memory", "", "when I run it with the prompt I get `Error: error reading llm response: unexpected "
      "EOF` and overall I can't get it to work. This error is caused by almost any command"], "UNDETERMINED"),
    (["ollama run llama2", ">>> hi", "Error: error reading llm response: EOF"], "UNDETERMINED"),
])
def test_the_client_seeing_the_runner_die_names_no_cause(lines, kind):
    got, code = kind_of(lines)
    assert got == kind and code != "error-not-memory", (got, code)


# --- gunicorn's arbiter reporting a worker the signal ended is a kill (the OOM killer's, most often); one it killed
# itself past --timeout ("WORKER TIMEOUT") is the timeout -----------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["[2024-05-01 10:00:01 +0000] [1] [ERROR] Worker (pid:25134) was sent SIGKILL! Perhaps out of memory?"],
    ["[2023-02-01 10:00:01 +0000] [7] [WARNING] Worker with pid 311 was terminated due to signal 9"],
])
def test_gunicorn_reporting_a_worker_killed_is_a_kill(lines):
    assert kind_of(lines) == ("UNDETERMINED", "host-oom-kill")


def test_gunicorn_killing_a_worker_past_its_timeout_is_the_timeout():
    kind, code = kind_of(["[2024-05-01 10:00:00 +0000] [1] [CRITICAL] WORKER TIMEOUT (pid:25134)",
                          "[2024-05-01 10:00:01 +0000] [1] [ERROR] Worker (pid:25134) was sent SIGKILL! Perhaps out of "
                          "memory?"])
    assert (kind, code) == ("NOT_OOM", "watchdog-timeout"), (kind, code)


# --- an out of memory told as a consequence that could come ("potentially resulting in an OOM", "would lead to an
# OOM") is none that came ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    "At that point, the GPU may no longer have enough free memory to accommodate both workloads, potentially "
    "resulting in an out-of-memory (OOM) error.",
    "Serving two of these models on one card would lead to an OOM once both caches fill.",
    "A larger batch can result in CUDA out of memory on smaller GPUs, so we keep it at 8.",
])
def test_an_oom_told_as_possible_is_none(line):
    kind, code = kind_of(["INFO 05-02 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
                          "INFO:     Application startup complete.",
                          'INFO:     127.0.0.1:40000 - "POST /v1/completions HTTP/1.1" 200 OK', line])
    assert kind == "NONE", (kind, code)


# --- KV usage rising while the same running requests decode (no prompt read since) is their sequences growing, no
# leak; while requests turn over (prompts read) it is blocks not coming back ----------------------------------------


def _stats(prompt_tps, running, usage):
    return ("INFO 08-06 09:37:16 [loggers.py:118] Engine 000: Avg prompt throughput: {p} tokens/s, Avg generation "
            "throughput: 450.0 tokens/s, Running: {r} reqs, Waiting: 0 reqs, GPU KV cache usage: {u}%, Prefix cache hit "
            "rate: 89.7%").format(p=prompt_tps, r=running, u=usage)


def test_kv_usage_rising_while_the_same_requests_decode_is_no_leak():
    lines = [_stats(6992.7, 50, 21.9), *(_stats(0.0, 50, u) for u in (21.9, 31.7, 41.5, 41.5, 51.2))]
    kind, code = kind_of(lines)
    assert kind != "LEAK", (kind, code)


def test_kv_usage_rising_while_requests_turn_over_is_a_leak():
    lines = [_stats(p, 50, u) for p, u in ((900.0, 21.9), (850.0, 31.7), (910.0, 41.5), (880.0, 51.2), (905.0, 61.0))]
    assert kind_of(lines) == ("LEAK", "kv-cache-usage-creep")


# --- a wrapper that quotes its cause after "failed with error:" names it (LMDeploy's engine loop) -------------------


@pytest.mark.parametrize("line,kind", [
    ("2024-06-13 07:19:06,357 - lmdeploy - ERROR - Engine loop failed with error: MiniCPMV.forward() missing 1 required "
     "positional argument: 'data'", "NOT_OOM"),
    ("2024-06-13 07:19:06,357 - lmdeploy - ERROR - Engine loop failed with error: Unsupported model architecture "
     "Qwen3NextForCausalLM in this engine", "NOT_OOM"),
    # (its cause an out of memory: that decides)
    ("2024-06-13 07:19:06,357 - lmdeploy - ERROR - Engine loop failed with error: CUDA out of memory. Tried to "
     "allocate 2.00 GiB", "RUNTIME"),
])
def test_a_wrapper_quoting_its_cause_after_failed_with_error(line, kind):
    assert kind_of([line])[0] == kind


# --- vLLM refusing a --swap-space over 70% of the host's RAM is a setting refused, not memory running out ----------


@pytest.mark.parametrize("lines", [
    ["INFO 01-10 08:00:00 [api_server.py:1043] vLLM API server version 0.6.3",
     "ValueError: Too large swap space. 4.00 GiB out of the 4.30 GiB total CPU memory is allocated for the swap space."],
    ["(EngineCore pid=9) ERROR 01-10 08:00:01 [core.py:700] ValueError: Too large swap space. 64.00 GiB out of the "
     "62.71 GiB total CPU memory is allocated for the swap space."],
])
def test_a_swap_space_over_the_hosts_ram_is_a_setting_refused(lines):
    assert kind_of(lines) == ("NOT_OOM", "swap-space-too-large")
    advice = run_of(diag("\n".join(lines))).advice
    assert "--swap-space" in advice[0]["change"] and "leave memory" not in " ".join(a["change"] for a in advice), advice


def test_a_possibly_too_large_swap_space_is_a_warning():
    kind, _ = kind_of(["WARNING 01-10 08:00:00 config.py:1300] Possibly too large swap space. 16.00 GiB out of the "
                       "31.26 GiB total CPU memory is allocated for the swap space.",
                       "INFO:     Application startup complete."])
    assert kind == "NONE", kind


# --- a program built for another CPU architecture cannot start: not memory ----------------------------------------


@pytest.mark.parametrize("lines", [
    ['time=2024-03-01T10:00:00.000+01:00 level=INFO source=server.go:300 msg="starting llama server"',
     "Error: llama runner process has terminated: fork/exec /var/folders/x/T/ollama123/runners/metal/ollama_llama_server: "
     "bad CPU type in executable"],
    ["exec /usr/bin/python3: exec format error"],
    ["bash: ./llama-server: cannot execute binary file: Exec format error"],
])
def test_a_program_for_another_cpu_is_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "binary-wrong-architecture")


# --- cuBLAS's CUBLAS_STATUS_ALLOC_FAILED comes at the first matrix product (its handle and workspace): the warm-up
# or a request, never the KV cache's allocation -----------------------------------------------------------------

_OLLAMA_LOADED = ["llm_load_tensors: offloaded 15/53 layers to GPU", "llm_load_tensors:        ROCm0 model buffer size "
                  "=  6841.82 MiB", "llama_context: constructing llama_context"]


@pytest.mark.parametrize("lines,kind", [
    ([*_OLLAMA_LOADED, "However, it fails with `CUBLAS_STATUS_ALLOC_FAILED` error."], "UNDETERMINED"),
    ([*_OLLAMA_LOADED, "llama_context:      ROCm0 compute buffer size =   300.00 MiB",
      "rocBLAS error: CUBLAS_STATUS_ALLOC_FAILED"], "WARMUP"),
    ([*_OLLAMA_LOADED, "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
      "srv  update_slots: all slots are idle", "CUDA error: CUBLAS_STATUS_ALLOC_FAILED"], "RUNTIME"),
])
def test_cublas_alloc_failed_is_a_graph_evaluation(lines, kind):
    got, code = kind_of(lines)
    assert got == kind and got != "KV_CAPACITY", (got, code)


# --- a hang with the whole machine frozen (what a host paging out of memory looks like) is not "no memory problem" -


@pytest.mark.parametrize("said", [
    "Generation hangs indefinitely. The entire macOS system freezes and becomes unresponsive.",
    "The server hangs after the first prompt and my PC locks up until I hold the power button.",
    "llama-server hangs while loading, and it freezes the whole Windows desktop.",
])
def test_a_hang_with_the_machine_frozen_is_undetermined(said):
    kind, code = kind_of(["llm_load_tensors: offloaded 33/33 layers to GPU", said])
    assert kind == "UNDETERMINED", (kind, code)


def test_a_hang_of_the_server_alone_names_no_memory():
    kind, code = kind_of(["llm_load_tensors: offloaded 33/33 layers to GPU",
                          "The server hangs after the first prompt; the machine itself stays responsive."])
    assert (kind, code) == ("UNDETERMINED", "hang-no-error"), (kind, code)


# --- a server's own line that loading the model failed, with an out of memory as its cause, is the weights ---------


@pytest.mark.parametrize("lines", [
    ['ERROR inferrs::server: Model load failed: cannot find tensor blk.21.ffn_gate_up_exps.weight: DriverError('
     'CUDA_ERROR_OUT_OF_MEMORY, "out of memory")'],
    ["2026-01-02T10:00:00Z ERROR server: model loading failed: CUDA out of memory while placing layer 40"],
    ["thread 'main' panicked at src/main.rs:90: DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")",
     "stack backtrace:", "   3: candle_core::quantized::QTensor::quantize"],
])
def test_a_model_load_that_failed_for_memory_is_the_weights(lines):
    assert kind_of(lines)[0] == "WEIGHTS"


def test_a_model_load_that_failed_for_another_cause_is_not_the_weights_ledger():
    kind, _ = kind_of(["ERROR inferrs::server: Model load failed: unsupported architecture gemma5"])
    assert kind != "WEIGHTS", kind


# --- a report's first line tagged as a commit message would be ("bug: ...", "fix(server): ...") is its title, not a
# program's "name: " line: the engine's own failure line below it decides ---------------------------------------


@pytest.mark.parametrize("title", [
    "bug: GGUF Q4K + CUDA OOMs on 24 GB GPUs due to dequantized weight fallback",
    "Bug: OOM on a 24 GB card with the MoE model",
    "fix(loader): model OOMs while loading on 24 GB GPUs",
])
def test_a_tagged_title_gives_way_to_the_engines_line(title):
    kind, code = kind_of([title, "", "Loading the model with `--device cuda` OOMs on 24 GB GPUs around layer 21:", "",
                          "```", "ERROR inferrs::server: Model load failed: cannot find tensor blk.21.ffn_gate_up_exps."
                          "weight: DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")", "```"])
    assert (kind, code) == ("WEIGHTS", "weights-alloc-failed"), (kind, code)


# --- a gRPC status with an empty description says nothing of why (LocalAI's backends) ------------------------------


@pytest.mark.parametrize("line", [
    '10:31AM ERR Failed to load model llama-3.3-70b-instruct with backend llama-cpp error="failed to load model with '
    'internal loader: could not load model: rpc error: code = Canceled desc = " modelID=llama-3.3-70b-instruct',
    'Failed to load model llama-3.3-70b-instruct with backend llama-cpp: rpc error: code = Canceled desc = ""',
    "could not load model: rpc error: code = Unknown desc = ",
])
def test_a_grpc_status_with_no_description_names_no_cause(line):
    kind, code = kind_of([line])
    assert kind == "UNDETERMINED" and code == "failure-cause-not-shown", (kind, code)


def test_a_grpc_status_with_a_description_names_it():
    kind, _ = kind_of(["could not load model: rpc error: code = Unknown desc = unsupported model architecture "
                       "'gemma5' in this backend build"])
    assert kind == "NOT_OOM", kind


# --- TensorRT refusing an engine built by another version or for another GPU: rebuild, not memory ------------------


@pytest.mark.parametrize("line", [
    "The engine plan file is not compatible with this version of TensorRT, expecting library version 9.2.0.4 got "
    "9.2.0.5, please rebuild",
    "[TensorRT-LLM][ERROR] 1: [stdArchiveReader.cpp::StdArchiveReader::42] Error Code 1: Serialization (Serialization "
    "assertion stdVersionRead == kSERIALIZATION_VERSION failed.Version tag does not match. Note: Current Version: 236, "
    "Serialized Engine Version: 228) The engine plan file is not compatible with this version of TensorRT",
    "E0101 10:00:00.000 1 model_lifecycle.cc:621] failed to load 'tensorrt_llm': The engine plan file is generated on "
    "an incompatible device, expecting compute 8.6 got compute 8.9, please rebuild.",
])
def test_an_engine_built_for_another_tensorrt_or_gpu_is_not_memory(line):
    assert kind_of([line]) == ("NOT_OOM", "engine-plan-incompatible")


# --- a report that says the server did not start ("the model didn't start", "it never came up") states a failure:
# a log that stops during start-up is not a clean run -----------------------------------------------------------

_SGL_START = ["2025-07-02 16:41:31 | ERROR | stderr | Loading safetensors checkpoint shards: 100% Completed | 2/2",
              "2025-07-02 16:41:31 | INFO | stdout | Capture cuda graph bs [1, 2, 4, 8]",
              "2025-07-02 16:41:31 | ERROR | stderr | ", "  0%|"]


@pytest.mark.parametrize("said", [
    "Tried using it with Qwen/Qwen2-VL-2B-Instruct but the model didn't start.",
    "The server does not start; here is the log:",
    "It never came up, the last lines are:",
])
def test_a_report_that_it_did_not_start_states_a_failure(said):
    kind, code = kind_of([said, *_SGL_START])
    assert kind == "UNDETERMINED", (kind, code)


def test_a_problem_that_does_not_start_until_later_is_no_failure_to_start():
    kind, code = kind_of(["The slowdown does not start until the third request.", *_SGL_START,
                          "2025-07-02 16:41:40 | INFO | stdout | The server is fired up and ready to roll!"])
    assert kind == "NONE", (kind, code)


# --- a CUTLASS kernel that could not run the problem (its status checked) is a kernel's fault, not memory ----------


@pytest.mark.parametrize("line", [
    "RuntimeError: Expected status == cutlass::Status::kSuccess to be true, but got false.  (Could this error message "
    "be improved?  If so, please report an enhancement request to PyTorch.)",
    "(VllmWorker rank=0 pid=77) ERROR 05-02 10:00:00 [multiproc_executor.py:500] RuntimeError: cutlass_scaled_mm "
    "failed: cutlass::Status::kErrorInvalidProblem",
])
def test_a_cutlass_kernel_that_could_not_run_is_not_memory(line):
    assert kind_of([line]) == ("NOT_OOM", "cuda-kernel-error")


# --- a step another rank printed is not the failing rank's: each rank is at its own step ---------------------------


def test_another_ranks_step_does_not_place_this_ranks_failure():
    kind, code = kind_of([
        "OOM when launching deepseek-v3 with a lora adapter on H200", "",
        "@maintainer I tried it, it's useless. It still raises the error below:", "```shell",
        "[2026-04-16 01:43:26 DP0 TP0] Using KV cache dtype: torch.bfloat16",
        "[2026-04-16 01:43:26 DP1 TP1] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 3712, in run_scheduler_process',
        "    scheduler = Scheduler("])
    assert kind == "UNDETERMINED", (kind, code)


def test_the_same_ranks_step_places_its_failure():
    kind, code = kind_of([
        "[2026-04-16 01:43:26 DP1 TP1] Using KV cache dtype: torch.bfloat16",
        "[2026-04-16 01:43:27 DP1 TP1] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory. Tried "
        "to allocate 20.00 GiB. GPU 1 has a total capacity of 139.81 GiB of which 10.00 GiB is free."])
    assert kind == "KV_CAPACITY", (kind, code)


# --- an out of memory raised is a failure at whatever level the program that relays it logs it (NVIDIA Dynamo
# re-logs vLLM's workers at INFO); a mention at INFO is still advisory ---------------------------------------------


@pytest.mark.parametrize("line", [
    "2025-03-31T03:33:02.720454Z  INFO dynamo_llm::engines::vllm::worker: VLLM: (VllmWorkerProcess 03-31 03:33:02 "
    "multiproc_worker_utils.py:242] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 2 "
    "has a total capacity of 79.19 GiB of which 15.06 MiB is free.",
    "I0101 10:00:00.000 123 python_be.cc:2000] model_1 | stdout | RuntimeError: CUDA error: out of memory",
    "2024-01-01 10:00:00 | INFO | stdout | torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
])
def test_an_out_of_memory_raised_and_relayed_at_info_is_a_failure(line):
    kind, code = kind_of([line])
    assert kind not in ("NONE", "NOT_OOM"), (kind, code)


def test_an_out_of_memory_mentioned_at_info_is_advisory():
    kind, _ = kind_of(["INFO 05-02 10:00:00 [gpu_model_runner.py:2000] Graph capturing may use extra memory; lower "
                       "gpu_memory_utilization if you see CUDA out of memory errors.",
                       "INFO:     Application startup complete."])
    assert kind == "NONE", kind


# --- an error that only says the load failed ("Error: Error loading model.") names no cause ------------------------


@pytest.mark.parametrize("line", [
    "[2025-02-08 01:29:29.905] [error] [LMSInternal][Client=LM Studio][Endpoint=loadModel] Error in channel handler: "
    "Error: Error loading model.",
    "ERROR: failed to load model",
    "Error: error while loading the model.",
])
def test_an_error_that_only_says_the_load_failed_names_no_cause(line):
    kind, code = kind_of([line])
    assert kind == "UNDETERMINED", (kind, code)


def test_the_cause_under_an_error_that_only_says_the_load_failed_decides():
    kind, code = kind_of(["[2026-03-10 16:48:39.731] [error] [LMSInternal][Client=LM Studio][Endpoint=loadModel] Error in "
                          "channel handler: Error: Error loading model.", "",
                          "- Caused By: Error: Error in iterating prediction stream: RuntimeError: [metal::Device] Unable "
                          "to build metal library from source",
                          "error: invalid value 'metal3.1' in '-std=metal3.1'"])
    assert (kind, code) == ("NOT_OOM", "kernel-build-failed"), (kind, code)


# --- CUDA's "peer access is not supported between these two devices", whole, even without a prefix (a title over a
# bare stack) ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ['# "peer access is not supported between these two devices" when using multiple GPUs', "",
     "1       0x7f1ddb698e13 tensorrt_llm::runtime::GptSession::GptSession(...) + 147"],
    ["RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in cudaDeviceEnablePeerAccess(peer, 0): peer access is "
     "not supported between these two devices"],
])
def test_peer_access_not_supported_is_a_cuda_error(lines):
    assert kind_of(lines) == ("NOT_OOM", "cuda-error")


# --- a leak told as fixed ("the memory leak issues ... have been solved in 0.6.6"), or denied ("this is not a memory
# leak"), is no growth stated ------------------------------------------------------------------------------------


@pytest.mark.parametrize("said", [
    "As Rick mentioned, this looks the same as #10127, which is not a memory leak in the sense that it causes Ollama to "
    "consume additional RAM or VRAM over time. I believe that all of the memory leak issues of the traditional type have "
    "been solved in 0.6.6.",
    "The RAM leak was fixed in b4500, so this is something else.",
    "Those VRAM leaks have been patched since v0.9.2; please update.",
])
def test_a_leak_told_as_fixed_is_no_growth(said):
    kind, code = kind_of(['time=2025-04-20T10:00:00.000Z level=INFO source=server.go:405 msg="starting llama server"',
                          said])
    assert kind != "LEAK", (kind, code)


def test_a_leak_told_as_going_on_is_growth():
    kind, code = kind_of(['time=2025-04-20T10:00:00.000Z level=INFO source=server.go:405 msg="starting llama server"',
                          "There is still a memory leak: RAM keeps growing with every request until the runner is "
                          "killed."])
    assert kind == "LEAK", (kind, code)


def test_a_growth_the_report_then_denies_is_no_leak():
    kind, code = kind_of(["# Memory leak with the vLLM container: memory keeps growing over time", "",
                          "INFO 01-10 08:00:00 [api_server.py:1043] vLLM API server version 0.11.0",
                          "INFO:     Application startup complete.",
                          "Maintainer: this doesn't look like a real memory leak - it grows during warm-up and then "
                          "stays pretty steady."])
    assert kind != "LEAK", (kind, code)


# --- a report's words that the failure came while the server read or processed a prompt ("when Ollama is reading
# prompt tokens") place it on a request ----------------------------------------------------------------------------


@pytest.mark.parametrize("said", [
    "The OOM error seems to occur when Ollama is reading prompt tokens.",
    "CUDA out of memory when llama-server is processing the prompt of a long chat.",
    "It runs out of memory while evaluating a 30k-token prompt.",
])
def test_an_oom_told_while_a_prompt_is_read_is_on_a_request(said):
    kind, code = kind_of([said])
    assert kind == "RUNTIME", (kind, code)


# --- a model the engine has no implementation of (its registry, transformers): not memory ------------------------


@pytest.mark.parametrize("lines", [
    ["# [Bug] Model architectures ['DeepseekV3ForCausalLM'] are not supported", "",
     "[2025-03-01 10:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8)"],
    ["(EngineCore pid=9) ERROR 01-10 08:00:01 [core.py:700] ValueError: Model architectures ['Glm4MoeLiteForCausalLM'] "
     "are not supported for now. Supported architectures: dict_keys(['AquilaModel', 'LlamaForCausalLM'])"],
    ["ValueError: The checkpoint you are trying to load has model type `qwen3_next` but Transformers does not recognize "
     "this architecture. This could be because of an issue with the checkpoint, or because your version of "
     "Transformers is out of date."],
])
def test_a_model_the_engine_does_not_implement_is_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "model-unsupported")


# --- an engine's assertion that it could not take a slot of its cache pool is the pool run out; the frames (SGLang's
# batch-result handling) or the report's words ("under heavy traffic") place it while serving --------------------


def test_a_cache_pool_slot_that_could_not_be_had_while_serving():
    kind, code = kind_of(["[2025-10-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
                          '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2100, in '
                          "process_batch_result_prefill", "AssertionError: Can not alloc mamba cache"])
    assert (kind, code) == ("RUNTIME", "kv-blocks-exhausted"), (kind, code)


@pytest.mark.parametrize("said", [
    "Running a hybrid model with hierarchical cache, the scheduler crashes under heavy eviction/load-back traffic:",
    "It only happens under high concurrency, after a few hundred requests:",
])
def test_a_cache_pool_slot_that_could_not_be_had_under_load_told_in_words(said):
    kind, code = kind_of([said, "AssertionError: Cannot allocate KV cache blocks"])
    assert (kind, code) == ("RUNTIME", "kv-blocks-exhausted"), (kind, code)


def test_a_cache_pool_slot_that_could_not_be_had_alone_is_undetermined():
    kind, code = kind_of(["AssertionError: Can not alloc mamba cache"])
    assert (kind, code) == ("UNDETERMINED", "kv-blocks-exhausted"), (kind, code)


# --- LMDeploy TurboMind's request status 6 (kTooLong: history + prompt > session_len) is a request refused for its
# length; a session that ended in "error" with no cause is a failure whose cause is not shown ---------------------

_TM = ["2025-05-17 17:09:51,335 - lmdeploy - INFO - async_engine.py:677 - session=3, history_tokens=0, "
       "input_tokens=38581, max_new_tokens=4000, seq_start=True, seq_end=True, step=0, prep=True",
       "[TM][INFO] [ProcessInferRequests] Request for 3 received."]


@pytest.mark.parametrize("line", [
    "[TM][WARNING] [RejectInvalidRequests] Skipping invalid infer request for id 3, code = 6",
    "[TM][WARNING] [forward] Request failed for 3, code 6",
])
def test_turbominds_status_6_is_a_request_refused_for_its_length(line):
    assert kind_of([*_TM, line, 'INFO:     192.168.1.207:63341 - "POST /v1/chat/completions HTTP/1.1" 200 OK']) == (
        "NOT_OOM", "requests-refused-too-long")


def test_a_session_that_ended_in_error_is_a_failure_whose_cause_is_not_shown():
    kind, code = kind_of([*_TM, '2025-05-17 17:09:51,337 - lmdeploy - ERROR - async_engine.py:791 - session 3 finished, '
                          'reason "error"', 'INFO:     192.168.1.207:63341 - "POST /v1/chat/completions HTTP/1.1" 200 OK'])
    assert (kind, code) == ("UNDETERMINED", "failure-cause-not-shown"), (kind, code)


# --- a kernel's own assert as the device prints it ("block: [..], thread: [..] Assertion `...` failed."), CUDA's and
# Triton's kernels alike, is a device-side assert: not memory ------------------------------------------------------


@pytest.mark.parametrize("line", [
    "/workspace/venv/lib64/python3.12/site-packages/torch/_inductor/runtime/compile_tasks.py:45: <module>: block: "
    "[337,0,0], thread: [112,0,0] Assertion `index out of bounds: 0 <= tl.broadcast_to(tmp10, [XBLOCK]) < 4096` failed.",
    "../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [32,0,0] Assertion `-sizes[i] "
    "<= index && index < sizes[i] && \"index out of bounds\"` failed.",
])
def test_a_kernels_assert_as_the_device_prints_it_is_not_memory(line):
    assert kind_of([line, line]) == ("NOT_OOM", "device-side-assert")


# --- a ggml assert named in a report's title with when it comes; a SYCL build that finds no GPU platform ----------


def test_a_ggml_assert_named_in_a_title_is_the_assert():
    assert kind_of(["Eval bug: GGML_ASSERT(id >= 0 && id < n_expert) when running GPT-OSS 20B at any quantization",
                    "", "### Name and Version", "version: 7713 (4150da9a9)"]) == ("NOT_OOM", "ggml-assert")


def test_a_ggml_assert_on_a_buffer_named_in_a_title_is_left_to_the_evidence():
    kind, code = kind_of(["Eval bug: GGML_ASSERT(buf != NULL && \"failed to allocate buffer\") when loading a 70B",
                          "", "version: 7713 (4150da9a9)"])
    assert code != "ggml-assert", (kind, code)


def test_a_sycl_build_that_finds_no_gpu_platform_is_no_gpu():
    assert kind_of(["[SYCL] call ggml_init_sycl", "llama_model_load: can not find preferred GPU platform"]) == (
        "NOT_OOM", "cuda-driver-error")


# --- a flag in a user's sentence about an attempt that worked ("then with --max-model-len 16384 it works:") is that
# attempt's setting, not the failing run's; one said with the failure is the failing run's -----------------------

_V05 = ["INFO 08-20 14:02:33 api_server.py:219] vLLM API server version 0.5.4",
        "INFO 08-20 14:02:35 llm_engine.py:174] Initializing an LLM engine (v0.5.4) with config: model='m', "
        "max_seq_len=32768, tensor_parallel_size=1",
        "INFO 08-20 14:02:41 model_runner.py:732] Loading model weights took 14.9888 GB",
        "INFO 08-20 14:02:43 gpu_executor.py:102] # GPU blocks: 1213, # CPU blocks: 2048",
        "[rank0]: ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be "
        "stored in KV cache (19408). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
        "initializing the engine."]


@pytest.mark.parametrize("said", [
    "then with --max-model-len 16384 it works:",
    "With `--max-model-len=8192` it starts fine, so the weights fit.",
])
def test_a_flag_of_an_attempt_that_worked_is_not_the_failing_runs(said):
    run = run_of(diag("\n".join([*_V05, "", said])))
    assert run.numbers.get("max_model_len") == 32768, run.numbers.get("max_model_len")


def test_a_flag_said_with_the_failure_is_the_failing_runs():
    run = run_of(diag("\n".join(["With --max-model-len 24576 it still fails:", _V05[0]])))
    assert run.numbers.get("max_model_len") == 24576, run.numbers.get("max_model_len")


def test_the_logprobs_advice_covers_the_samplers_logprobs_too():
    run = run_of(diag("\n".join([
        "INFO 10-14 22:00:00 [api_server.py:1043] vLLM API server version 0.10.1",
        "INFO:     Application startup complete.",
        'INFO:     127.0.0.1:40000 - "POST /v1/completions HTTP/1.1" 200 OK',
        "ERROR 10-14 22:03:41 [core.py:710] Traceback (most recent call last):",
        'ERROR 10-14 22:03:41 [core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/sample/sampler.py", '
        "line 141, in compute_logprobs",
        "ERROR 10-14 22:03:41 [core.py:710] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.64 GiB. GPU 0 "
        "has a total capacity of 79.19 GiB of which 1.20 GiB is free."])))
    assert run.code == "logprobs-oom", run.code
    said = " ".join(a["change"] + " " + a["why"] for a in run.advice)
    assert "prompt logprobs" not in said and "`logprobs`" in said, said


# --- a value tried of a flag named without its dashes ("试过把 gpu-memory-utilization 调到 0.95 还是不行", "lowered
# gpu-memory-utilization to 0.92, same error") bounds the advice as the flag with its dashes does ----------------

_V04_POOL = ["INFO 05-15 10:22:03 llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='m'",
             "INFO 05-15 10:22:15 model_runner.py:175] Loading model weights took 26.4506 GB",
             "INFO 05-15 10:22:18 gpu_executor.py:114] # GPU blocks: 571, # CPU blocks: 327",
             "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored "
             "in KV cache (9136). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
             "initializing the engine."]


@pytest.mark.parametrize("said,tried", [
    ("试过把 gpu-memory-utilization 调到 0.95 还是不行，谢谢！", 0.95),
    ("I lowered gpu-memory-utilization to 0.92, same error.", 0.92),
])
def test_a_value_tried_of_a_flag_named_without_dashes_bounds_the_advice(said, tried):
    run = run_of(diag("\n".join([*_V04_POOL, "", said])))
    proposed = [a for a in run.advice if "gpu-memory-utilization" in a["flags"]]
    assert proposed and f"{tried:g} was tried" in proposed[0]["why"], run.advice


# --- a model's own image path in vLLM's frames (V0 and V1 alike: _process_image_input, get_image_features) is the
# vision encoder ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("frame", [
    '[rank0]:   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen2_vl.py", line 1082, in '
    "_process_image_input",
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/models/llava.py", line 540, in '
    "get_image_features",
])
def test_a_models_image_path_under_the_profile_run_is_the_vision_encoder(frame):
    kind, code = kind_of([
        "INFO 09-01 10:00:00 llm_engine.py:232] Initializing an LLM engine (v0.6.3) with config: model='m'",
        "INFO 09-01 10:00:20 model_runner.py:1067] Loading model weights took 16.2 GB",
        "[rank0]: Traceback (most recent call last):",
        '[rank0]:   File "/usr/local/lib/python3.12/dist-packages/vllm/worker/model_runner.py", line 1296, in profile_run',
        frame,
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 6.25 GiB. GPU 0 has a total capacity "
        "of 23.64 GiB of which 2.91 GiB is free."])
    assert (kind, code) == ("WARMUP", "multimodal-encoder-oom"), (kind, code)
