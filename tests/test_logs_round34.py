"""`vramdoctor logs` on the kinds of fault left open by the held-out rounds 28-33 (listed in issue 6's note), each
with logs of our own in other engines, versions and wordings (none of the held-out logs' own lines). The engines'
lines follow their sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, run_of

# --- a kill stated in a user's words, with the memory rising to a size before it -------------------------------------

MLX_START = ["% mlx_lm.server --model mlx-community/Qwen3-235B-A22B-4bit --port 8080",
             "2025-06-02 10:11:02,101 - INFO - Starting httpd at 127.0.0.1 on port 8080..."]
OLLAMA_STARTED = [
    'time=2025-03-01T10:00:01.000Z level=INFO source=server.go:376 msg="starting llama server" '
    'cmd="/usr/lib/ollama/runners/cpu_avx2/ollama_llama_server runner --model /root/.ollama/models/blobs/sha256-aa '
    '--ctx-size 8192 --batch-size 512 --threads 8 --parallel 4 --port 40001"',
    'time=2025-03-01T10:00:09.000Z level=INFO source=server.go:626 msg="llama runner started in 8.01 seconds"']
LLAMA_SERVING = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
                 "srv  update_slots: all slots are idle"]


@pytest.mark.parametrize("lines", [
    ["Every time the first request comes in, memory usage climbs to 120GB and then the process gets killed.",
     *MLX_START],
    [*OLLAMA_STARTED, "ollama serve is killed as soon as I send a prompt. RAM goes up to 62 GB before it is killed."],
    [*LLAMA_SERVING, "When I send the first chat completion the server dies, the memory reaches 31.5 GiB just before "
                     "it's killed."],
    [*OLLAMA_STARTED, "It gets killed when RAM hits 60 GB."],
])
def test_a_kill_after_memory_rose_to_a_size_is_memory(lines):
    """Memory rising to a size, then the process killed or dead, in the user's words: memory ran out (which memory
    not said), and it was serving."""
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("RUNTIME", "host-oom-kill")


@pytest.mark.parametrize("said", [
    "Memory climbs to 60GB but the process is not killed, it just swaps.",
    "If memory reaches 60 GB it would get killed, so I set a limit.",
    "Memory goes up to 60 GB and never gets killed.",
])
def test_a_kill_denied_or_supposed_is_no_failure(said):
    run = run_of(diag("\n".join([*OLLAMA_STARTED, said])))
    assert run.kind == "NONE"


def test_serving_named_by_the_first_request_places_a_kill_the_servers_lines_do_not():
    """The server's own lines show only its start; the report says the kill came on the first request."""
    lines = ["It's always the first request after starting: the process is killed, memory hits ~300GB before it's "
             "killed.", *MLX_START[:1],
             "Fetching 95 files: 100%|##########| 95/95 [00:00<00:00, 19402.95it/s]"]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("RUNTIME", "host-oom-kill")
    lines[0] = "Before the first request the process is killed: memory hits ~300GB and then it is killed."
    assert run_of(diag("\n".join(lines))).kind != "RUNTIME"


# --- the error a report's title names, over a traceback the log cuts before its error line ---------------------------

LMDEPLOY_CUT = ["Traceback (most recent call last):",
                '  File "/opt/py38/lib/python3.8/site-packages/lmdeploy/serve/async_engine.py", line 590, in generate',
                "    async with self.model_inst(session_id) as inst:",
                '  File "/opt/py38/lib/python3.8/site-packages/lmdeploy/turbomind/turbomind.py", line 712, in '
                "async_stream_infer"]
TGI_CUT = ["2024-05-02T08:11:40.201Z ERROR text_generation_launcher: Error when initializing model",
           "Traceback (most recent call last):",
           '  File "/opt/conda/lib/python3.10/site-packages/text_generation_server/cli.py", line 90, in serve',
           "    server.serve(",
           '  File "/opt/conda/lib/python3.10/site-packages/text_generation_server/utils/dist.py", line 68, in '
           "initialize_torch_distributed"]
VLLM_PROFILE_CUT = [
    "(EngineCore_DP0 pid=311) ERROR 03-02 10:01:02 [core.py:708] EngineCore failed to start.",
    "(EngineCore_DP0 pid=311) ERROR 03-02 10:01:02 [core.py:708] Traceback (most recent call last):",
    '(EngineCore_DP0 pid=311) ERROR 03-02 10:01:02 [core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/'
    'v1/worker/gpu_worker.py", line 263, in determine_available_memory',
    "(EngineCore_DP0 pid=311) ERROR 03-02 10:01:02 [core.py:708]     self.model_runner.profile_run()",
    '(EngineCore_DP0 pid=311) ERROR 03-02 10:01:02 [core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/'
    'v1/worker/gpu_model_runner.py", line 3391, in profile_run']


@pytest.mark.parametrize("title,lines,code", [
    ("## [Bug] RuntimeError: CUDA error: an illegal memory access was encountered when serving InternVL2",
     LMDEPLOY_CUT, "illegal-memory-access"),
    ("# Shard 1 failed to start: NCCL error: unhandled cuda error", TGI_CUT, "nccl-error"),
    ("# [Bug]: ncclInternalError on 2 nodes with pipeline parallel", VLLM_PROFILE_CUT, "nccl-error"),
])
def test_a_titles_error_gives_the_cause_of_a_cut_traceback(title, lines, code):
    """The log's own error line is cut off; the title copies it: its words are the cause."""
    run = run_of(diag("\n".join([title, "", "The error:", *lines])))
    assert (run.kind, run.code) == ("NOT_OOM", code)
    assert run.evidence[0]["line"] == 1


def test_a_titles_out_of_memory_is_placed_by_the_logs_frames():
    run = run_of(diag("\n".join(["# [Bug]: torch.OutOfMemoryError: CUDA out of memory with Qwen3-32B on one L40S", "",
                                 *VLLM_PROFILE_CUT])))
    assert run.kind == "WARMUP"


@pytest.mark.parametrize("title", ["# Is this an NCCL error: unhandled cuda error?",
                                   "# Crash when serving InternVL2 with tp 2"])
def test_a_title_that_asks_or_names_no_error_leaves_the_cause_unshown(title):
    run = run_of(diag("\n".join([title, "", *TGI_CUT])))
    assert (run.kind, run.code) == ("UNDETERMINED", "failure-cause-not-shown")


def test_the_logs_own_error_line_outranks_the_titles():
    run = run_of(diag("\n".join(["# NCCL error: unhandled cuda error", "", *TGI_CUT[:-1],
                                 "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"])))
    assert run.kind != "NOT_OOM"


# --- a container's own words that deny an OOM kill, and a crash's exit status ----------------------------------------

@pytest.mark.parametrize("lines", [
    [*LLAMA_SERVING, 'docker inspect says "OOMKilled": false, "ExitCode": 139 after the long prompt.'],
    [*OLLAMA_STARTED, "    Last State:     Terminated", "      Reason:       Error", "      Exit Code:    139"],
    ["INFO 05-20 11:02:06 [api_server.py:1043] vLLM API server version 0.9.1",
     "The container exited with code 139, OOMKilled=false, restart count 0 -> 1"],
])
def test_a_segfaults_exit_status_with_no_oom_kill_is_no_memory(lines):
    """139 is 128 + SIGSEGV (11): a crash by a bad pointer; `OOMKilled=false` denies the kernel's kill."""
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "crash-access-violation")


@pytest.mark.parametrize("line", ['State: {"OOMKilled": true, "ExitCode": 137}', "Reason: OOMKilled"])
def test_an_oom_kill_the_container_states_is_still_one(line):
    run = run_of(diag("\n".join([*OLLAMA_STARTED, line])))
    assert run.code == "host-oom-kill"


# --- a GPU held by another process: a fraction of what is free only where something is free ---------------------------

@pytest.mark.parametrize("free,total,step", [
    ("0.49", "79.32", False), ("0.30", "23.52", False), ("1.10", "44.42", False),  # (all but a sliver held)
    ("30.11", "79.32", True), ("12.00", "23.52", True)])
def test_a_fraction_of_what_is_free_only_where_enough_is_free(free, total, step):
    """vLLM's worker refuses to start (v1/worker/utils.py request_memory): a fraction below a few hundredths of the
    GPU (or a negative one) is no setting; only freeing the GPU helps."""
    line = (f"ValueError: Free memory on device cuda:0 ({free}/{total} GiB) on startup is less than desired GPU memory "
            f"utilization (0.9, {float(total) * 0.9:.2f} GiB). Decrease GPU memory utilization or reduce GPU memory "
            "used by other processes.")
    run = run_of(diag("\n".join(["INFO 05-20 11:02:06 [api_server.py:1043] vLLM API server version 0.11.0", line])))
    assert run.code == "gpu-shared-with-other-process"
    fractions = [a for a in run.advice if a["setting"] == "memory_fraction"]
    assert bool(fractions) == step
    assert all(0 < a["value"] < 0.9 for a in fractions if a["value"] is not None)
    assert any(a["change"] == "free the GPU" for a in run.advice)


# --- TGI's quantization on a command line, quoted or with `=` ---------------------------------------------------------

TGI_WARMUP = ('2024-07-01T09:00:00.000Z ERROR warmup{max_input_length=4095 max_prefill_tokens=4096 '
              'max_total_tokens=4096}: text_generation_client: router/client/src/lib.rs:33: Server error: Not enough '
              'memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`')


@pytest.mark.parametrize("command", [
    'docker run --gpus all ghcr.io/huggingface/text-generation-inference:2.0 --model-id $model --quantize "gptq"',
    "text-generation-launcher --model-id TheBloke/Llama-2-70B-AWQ --quantize=awq --num-shard 2",
    "text-generation-launcher --model-id m --quantize 'bitsandbytes-nf4'",
])
def test_tgi_quantization_on_a_command_line_is_in_use(command):
    run = run_of(diag("\n".join([command, TGI_WARMUP])))
    assert run.kind == "WARMUP"
    assert all(a["setting"] != "quantization" for a in run.advice), run.advice


# --- a syslog or journald prefix whose month is in the machine's own language ------------------------------------------

@pytest.mark.parametrize("month", ["jun", "déc.", "Mär", "okt"])
def test_a_journald_prefix_in_another_language_is_a_programs_line(month):
    """Ollama's load error quotes its words (msg="..."): with the journald prefix read, the line is the server's, not
    a user's quoting; the 500 its request got is that failure's answer, not serving; the load failed, so not RUNTIME."""
    lines = [f'{month} 18 13:23:19 gpu-box ollama[2256]: time=2024-06-18T13:23:19.008+02:00 level=ERROR '
             'source=sched.go:388 msg="error loading llama server" error="llama runner process has terminated: '
             'signal: aborted (core dumped) cudaMalloc failed: out of memory"',
             f'{month} 18 13:23:19 gpu-box ollama[2256]: [GIN] 2024/06/18 - 13:23:19 | 500 |  3.1684s |       '
             '127.0.0.1 | POST     "/api/chat"']
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "oom-phase-not-shown")
    assert "RUNTIME" not in run.candidates
    assert run.evidence[0]["line"] == 1


@pytest.mark.parametrize("error", ["error loading llama server", "failed to load model"])
def test_a_failure_reported_as_a_failed_load_is_no_serving_failure(error):
    lines = ["time=2025-01-10T08:00:00.000Z level=INFO source=routes.go:1259 msg=\"Listening on 127.0.0.1:11434 "
             "(version 0.5.7)\"",
             f'time=2025-01-10T08:01:00.000Z level=ERROR source=sched.go:455 msg="{error}" error="cudaMalloc '
             'failed: out of memory"']
    run = run_of(diag("\n".join(lines)))
    assert run.kind in ("UNDETERMINED", "WEIGHTS", "KV_CAPACITY", "WARMUP") and "RUNTIME" not in run.candidates


# --- a title with more than one tag is the user's heading, not the failure's place --------------------------------------

@pytest.mark.parametrize("title,said,error", [
    ("# [FT][ERROR] CUDA runtime error: out of memory allocator.h:220", "but when I post a request the server throws:",
     "  what():  [FT][ERROR] CUDA runtime error: out of memory allocator.h:220"),
    ("## [Bug][Model]: torch.OutOfMemoryError: CUDA out of memory", "Then we posted 4 requests and it died:",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB."),
    ("# [Question] [Usage] CUDA out of memory after startup", "Once I made a few requests it crashed with",
     "RuntimeError: CUDA error: out of memory"),
])
def test_a_title_with_several_tags_is_the_users_heading(title, said, error):
    """The title copies the error; the log's own copy, after the server was up and a request was sent, decides."""
    lines = [title, "", "The server starts fine and the health check says ready.", said, error]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME"
    assert all(e["line"] != 1 for e in run.evidence)


# --- growth stated as a size left by each step, or as memory a step does not free --------------------------------------

@pytest.mark.parametrize("said", [
    "Each iteration of the loop starts with about 300MB more GPU memory used than the one before.",
    "VRAM goes up by ~200 MB with every request and never comes down.",
    "I see 400 MB more memory left after each reload of the model.",
    "# Unloading a model doesn't free all GPU memory on ROCm",
    "Stopping the generation doesn\u2019t release the VRAM it took.",
    "Unloading the model doesnt free the memory.",
])
def test_growth_by_a_size_per_step_or_memory_not_freed_is_growth(said):
    run = run_of(diag("\n".join([*OLLAMA_STARTED, said])))
    assert (run.kind, run.code) == ("LEAK", "memory-growth-stated")


@pytest.mark.parametrize("said", [
    "Each request with a 32k context uses 2 GB more memory, as expected.",
    "It doesn't matter how long I wait, memory is freed fine after unloading.",
    "A request leaves 300MB more in the cache, then it is evicted.",
])
def test_what_one_step_uses_is_no_growth(said):
    run = run_of(diag("\n".join([*OLLAMA_STARTED, said])))
    assert run.kind == "NONE"


# --- vLLM V0's profiling result is the pool sized, not a KV step under way ---------------------------------------------

@pytest.mark.parametrize("prefix", ["INFO 02-10 08:00:00 worker.py:267] ",
                                    "(RayWorkerWrapper pid=4411, ip=10.0.0.7) INFO 03-27 10:29:01 [worker.py:267] "])
def test_vllm_v0s_profiling_result_is_the_pool_sized(prefix):
    """worker.py determine_num_available_blocks (0.6.4-0.8) prints what is left for the KV cache: the pool is sized;
    an out-of-memory after it (no step named) is allocating that pool or capturing graphs, not sizing it."""
    lines = ["INFO 02-10 07:59:00 model_runner.py:1115] Loading model weights took 14.9935 GB",
             prefix + "Memory profiling takes 5.10 seconds",
             prefix + "the current vLLM instance can use total_gpu_memory (79.10GiB) x gpu_memory_utilization (0.90) "
                      "= 71.19GiB",
             prefix + "model weights take 14.99GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory "
                      "takes 4.40GiB; the rest of the memory reserved for KV Cache is 51.60GiB.",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of "
             "79.10 GiB of which 1.02 GiB is free."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "UNDETERMINED" and set(run.candidates) == {"KV_CAPACITY", "WARMUP"}
    lines[3] = lines[3].replace("is 51.60GiB", "is -3.20GiB")
    assert "WEIGHTS" not in run_of(diag("\n".join(lines))).candidates


# --- another program's line pasted last is no cut in this run's log ----------------------------------------------------

SGLANG_WARM = ["[2025-07-29 18:14:20 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=40.10 GB",
               "[2025-07-29 18:14:24 TP0] KV Cache is allocated. #tokens: 800000, K size: 11.5 GB, V size: 11.5 GB",
               "[2025-07-29 18:14:43 TP0] Capture cuda graph end. Time elapsed: 19.50 s. mem usage=6.19 GB. "
               "avail mem=5.24 GB."]
TGI_READY = ["2024-08-14T10:02:11.512017Z  INFO text_generation_launcher: Args { model_id: \"m\", num_shard: Some(1) }",
             "2024-08-14T10:02:15.100900Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0",
             "2024-08-14T10:03:35.100900Z  INFO shard-manager: text_generation_launcher: Shard ready in 80.0s rank=0",
             "2024-08-14T10:03:40.100900Z  INFO text_generation_router: router/src/main.rs:300: Connected"]


@pytest.mark.parametrize("lines,other", [
    (SGLANG_WARM, "(VllmWorker rank=0 pid=401) INFO 07-29 11:31:40"),
    (SGLANG_WARM, "(EngineCore_DP0 pid=77) INFO 10-02 09:12:01 [gpu_model_runner.py:34"),
    (TGI_READY, "INFO 07-29 11:31:40 [gpu_model_runner.py:2"),
])
def test_another_engines_line_pasted_last_is_no_cut(lines, other):
    """The report pastes a line of another engine for comparison, cut: this run's own log is not cut there."""
    rep = diag("\n".join([*lines, "", "For comparison, vLLM only takes 1.40GiB:", other]), strip=False)
    run = run_of(rep)
    assert run.code != "log-cut-off"


def test_a_line_in_the_imported_engines_words_without_its_process_tag_is_still_this_runs():
    """SGLang imports vLLM's code, whose lines it prints in vLLM's words: a cut one is this run's cut."""
    rep = diag("\n".join([*SGLANG_WARM, "INFO 07-29 18:14:44 [custom_all_reduce.py:2"]), strip=False)
    assert run_of(rep).code == "log-cut-off"


# --- the settings of a server that served, pasted again and cut, are no new run that decides ---------------------------

VLLM_SERVING = ["INFO 05-11 08:10:00 api_server.py:212] vLLM API server version 0.4.2",
                "INFO 05-11 08:12:00 metrics.py:334] Avg prompt throughput: 102.2 tokens/s, Avg generation throughput: "
                "2.2 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.8%, CPU KV "
                "cache usage: 0.0%"]
SGLANG_SERVING = ["[2025-01-02 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B', mem_fraction_static=0.8)",
                  "[2025-01-02 10:02:00 TP0] Decode batch. #running-req: 3, #token: 2211, token usage: 0.02, "
                  "gen throughput (token/s): 150.1, #queue-req: 0"]


@pytest.mark.parametrize("lines,settings", [
    (VLLM_SERVING, "INFO 05-11 08:10:00 api_server.py:151] args: Namespace(host='0.0.0.0', port=8000, model='/data/m"),
    (SGLANG_SERVING, "[2025-01-02 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B', tokenizer_path='Q"),
])
def test_a_served_servers_settings_pasted_again_and_cut_do_not_decide(lines, settings):
    rep = diag("\n".join([*lines, "", "This is my config:", settings]), strip=False)
    assert rep.diagnosis["kind"] == "NONE"


def test_a_cut_settings_line_alone_is_still_a_cut_log():
    rep = diag(VLLM_SERVING[0] + "\nINFO 05-11 08:10:00 api_server.py:151] args: Namespace(host='0.0.0.0', port=8000, "
               "model='/data/m", strip=False)
    assert rep.diagnosis["kind"] == "UNDETERMINED"


# --- a wrapper the user names, over the wrapped engine's lines only ---------------------------------------------------

LLAMA_COMPUTE_OOM = ["llama_model_loader: loaded meta data with 33 key-value pairs and 292 tensors from /m/q.gguf (version GGUF V3 (latest))",
                     "load_tensors: offloaded 33/33 layers to GPU",
                     "llama_kv_cache: size = 4096.00 MiB ( 32768 cells,  32 layers,  1/1 seqs), K (f16): 2048.00 MiB, "
                     "V (f16): 2048.00 MiB",
                     "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9658.12 MiB on device 0: cudaMalloc "
                     "failed: out of memory",
                     "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 10127212544"]


@pytest.mark.parametrize("said,engine,flag", [
    ("# Since KoboldCpp 1.93 this model no longer starts", "koboldcpp", "--blasbatchsize"),
    ("I updated KoboldCpp to 1.93 and my model no longer starts:", "koboldcpp", "--blasbatchsize"),
    ("My LM Studio 0.3.15 fails to load the model, the developer log shows:", "lmstudio", None),
])
def test_a_wrapper_the_user_names_owns_the_wrapped_engines_lines(said, engine, flag):
    rep = diag("\n".join([said, *LLAMA_COMPUTE_OOM]))
    assert rep.engine == engine
    run = run_of(rep)
    flags = " ".join(a["flags"] for a in run.advice)
    assert "-ub " not in flags and (flag is None or flag in flags)


def test_the_wrapped_engine_named_too_keeps_its_own_lines():
    rep = diag("\n".join(["I tried Ollama too and it works there, but my llama-server fails:", *LLAMA_COMPUTE_OOM]))
    assert rep.engine == "llamacpp"


# --- a traceback cut in the engine's check of the pool's size: too small, not an allocation that failed ----------------

V0_CHECK = ["ERROR 04-28 15:55:45 worker_base.py:157] Error executing method initialize_cache. This might cause deadlock "
            "in distributed execution.",
            "ERROR 04-28 15:55:45 worker_base.py:157] Traceback (most recent call last):",
            'ERROR 04-28 15:55:45 worker_base.py:157]   File "/usr/lib/python3.10/site-packages/vllm/worker/worker.py", '
            "line 171, in initialize_cache",
            "ERROR 04-28 15:55:45 worker_base.py:157]     raise_if_cache_size_invalid(num_gpu_blocks,"]
V1_CHECK = ["(EngineCore_0 pid=212) ERROR 08-01 10:00:00 [core.py:700] EngineCore failed to start.",
            "(EngineCore_0 pid=212) ERROR 08-01 10:00:00 [core.py:700] Traceback (most recent call last):",
            '(EngineCore_0 pid=212) ERROR 08-01 10:00:00 [core.py:700]   File "/usr/lib/python3.12/site-packages/vllm/v1/'
            'core/kv_cache_utils.py", line 1101, in get_kv_cache_config',
            "(EngineCore_0 pid=212) ERROR 08-01 10:00:00 [core.py:700]     check_enough_kv_cache_memory(vllm_config, "
            "kv_cache_spec, available_memory)"]


@pytest.mark.parametrize("said", ["Not enough memory when I start it on two L40 GPUs.",
                                  "# [Usage]: Not enough memory for Qwen2.5-32B on 2 x L40"])
@pytest.mark.parametrize("lines", [V0_CHECK, V1_CHECK])
def test_a_traceback_cut_in_the_pools_size_check_is_a_pool_too_small(said, lines):
    run = run_of(diag("\n".join([said, *lines])))
    assert (run.kind, run.code) == ("KV_CAPACITY", "kv-cache-too-small")
    fractions = [a for a in run.advice if a["setting"] == "memory_fraction"]
    assert fractions and all(a["direction"] == "up" for a in fractions)
    assert all(a["setting"] != "max_num_seqs" for a in run.advice)


# --- the kernel's ENOMEM (errno 12) is host memory, not the GPU --------------------------------------------------------

@pytest.mark.parametrize("lines,mmap", [
    (["INFO 06-02 09:38:00 [gpu_model_runner.py:1329] Starting to load model Qwen/Qwen3-30B-A3B-GPTQ-Int4...",
      "ERROR 06-02 09:39:03 [core.py:396] RuntimeError: unable to mmap 16933256392 bytes from file </root/.cache/"
      "huggingface/hub/models--Qwen--Qwen3-30B-A3B-GPTQ-Int4/snapshots/9b53/model.safetensors>: Cannot allocate "
      "memory (12)"], True),
    (["[2025-03-01 10:00:00 TP0] Load weight begin. avail mem=78.50 GB",
      "OSError: [Errno 12] Cannot allocate memory"], False),
])
def test_the_kernels_enomem_while_loading_is_host_memory(lines, mmap):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-system-memory")
    assert (run.numbers.get("mmap_in_use") is True) == mmap
    assert not any("load with mmap" in a["why"] for a in run.advice) or not mmap
    assert all(a["setting"] != "quantization" for a in run.advice) or not mmap  # (a 4-bit model already)


# --- an NCCL error whose own detail says the CUDA call it made ran out of memory ---------------------------------------

@pytest.mark.parametrize("prefix,detail,oom", [
    ("(VllmWorker rank=3 pid=880) ", "Cuda failure 'out of memory'", True),
    ("[2025-02-01 08:00:00 TP1] ", "Cuda failure 'out of memory'", True),
    ("(VllmWorker rank=3 pid=880) ", "Cuda failure 'invalid device ordinal'", False),
])
def test_an_nccl_errors_own_detail_names_its_cause(prefix, detail, oom):
    lines = [prefix + "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
                      "NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
             prefix + "ncclUnhandledCudaError: Call to CUDA function failed.",
             prefix + "Last error:",
             prefix + detail]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind != "NOT_OOM") == oom, (run.kind, run.code)


# --- a title quoting the engine's error with its step, over a user's words of an out-of-memory with none ---------------

@pytest.mark.parametrize("title,kind", [
    ("# llama_model_load: error loading model: unable to allocate backend buffer", "WEIGHTS"),
    ("# [Bug]: ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`",
     "KV_CAPACITY"),
    ("# [Bug] RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", "KV_CAPACITY"),
])
def test_a_titles_error_with_its_step_places_a_users_out_of_memory(title, kind):
    body = ["", "I get a CUDA out of memory error every time, even on a fresh machine with 128G of RAM.",
            "The model loads fine in transformers."]
    run = run_of(diag("\n".join([title, *body])))
    assert run.kind == kind
    assert run.evidence[0]["line"] == 1


def test_a_title_that_names_no_step_leaves_the_users_out_of_memory_unplaced():
    body = ["", "I get a CUDA out of memory error every time, even on a fresh machine with 128G of RAM."]
    run = run_of(diag("\n".join(["# CUDA out of memory with Qwen2.5-72B", *body])))
    assert run.kind == "UNDETERMINED"


# --- a wrapper named in a plain sentence never takes over another engine's log ----------------------------------------

@pytest.mark.parametrize("lines,said,engine", [
    (VLLM_SERVING, "For what it's worth, the same model runs fine in Ollama.", "vllm"),
    (VLLM_SERVING, "The same model runs fine in LM Studio, but vLLM crashes:", "vllm"),
    (SGLANG_SERVING, "Ollama runs this model fine.", "sglang"),
    (LLAMA_COMPUTE_OOM, "Ollama works fine with this model.", "llamacpp"),
    (LLAMA_COMPUTE_OOM, "KoboldCpp handles it fine on the same card.", "llamacpp"),
])
def test_a_wrapper_named_in_a_sentence_does_not_take_over_the_log(lines, said, engine):
    assert diag("\n".join([said, *lines])).engine == engine
    assert diag("\n".join([*lines, said])).engine == engine


# --- an OOM kill, or an out-of-memory, denied, doubted or asked about -------------------------------------------------

@pytest.mark.parametrize("said", [
    "It was not killed by the OOM killer.", "It wasn't OOM-killed.", "The container was not OOMKilled.",
    "exit status 137 (OOMKilled=false)", "It exits with code 137 but dmesg shows no oom-killer.",
    "# [Bug]: Crash during CUDA graph capture (not OOM)", "## Could a 128k context cause an OOM later?",
    "I don't think it ran out of memory.", "# [Usage]: Will this config run out of memory with 32 users?",
])
def test_a_denied_or_asked_out_of_memory_is_none(said):
    run = run_of(diag("\n".join([*OLLAMA_STARTED, said])))
    assert run.kind not in ("RUNTIME", "WEIGHTS", "KV_CAPACITY", "WARMUP"), (run.kind, run.code)
    assert run.code != "host-oom-kill"


@pytest.mark.parametrize("said", ["It was killed by the OOM killer.", "dmesg: Out of memory: Killed process 4242 (ollama)",
                                  "I'm not sure why, but I get CUDA out of memory on every request."])
def test_a_stated_out_of_memory_beside_a_doubt_is_still_one(said):
    run = run_of(diag("\n".join([*OLLAMA_STARTED, said])))
    assert run.kind == "RUNTIME"


# --- host memory that ran out after the weights' buffers, before serving, is no serving failure -----------------------

def test_a_kill_after_the_weights_before_serving_is_not_serving():
    lines = ["INFO 05-01 10:00:00 api_server.py:586] args: Namespace(model='m', swap_space=64)",
             "INFO 05-01 10:00:10 model_runner.py:1060] Loading model weights took 14.9888 GB",
             "INFO 05-01 10:00:15 gpu_executor.py:122] # GPU blocks: 1952, # CPU blocks: 32768",
             "Killed"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "UNDETERMINED" and "RUNTIME" not in run.candidates


@pytest.mark.parametrize("error", ["llama_model_load: error loading model: mmap failed: Cannot allocate memory (12)",
                                   "llama_model_load: error loading model: mmap failed: Cannot allocate memory"])
def test_a_load_that_failed_for_host_memory_is_the_weights(error):
    lines = ["llm_load_tensors: offloaded 20/81 layers to GPU",
             "llm_load_tensors:   CPU_Mapped model buffer size = 30543.11 MiB", error,
             "llama_load_model_from_file: failed to load model"]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-system-memory")
    assert not any("load with mmap" in a["why"] for a in run.advice)


@pytest.mark.parametrize("line", ["vllm-1   Exited (139) 2 minutes ago",
                                  "ollama.service: Main process exited, code=killed, status=11/SEGV"])
def test_a_segfault_as_docker_and_systemd_print_it_is_no_memory(line):
    run = run_of(diag("\n".join([*OLLAMA_STARTED, line])))
    assert (run.kind, run.code) == ("NOT_OOM", "crash-access-violation")


@pytest.mark.parametrize("said,leak", [
    ("22 GB used even when idle; it doesn't free the VRAM, which is expected since vLLM preallocates the pool.", False),
    ("It doesn't release the VRAM after unloading, as expected for a preallocated pool.", False),
    ("It doesn't free the VRAM after each request, so usage keeps growing.", True),
])
def test_memory_not_freed_that_the_user_calls_expected_is_no_growth(said, leak):
    run = run_of(diag("\n".join([*OLLAMA_STARTED, said])))
    assert (run.kind == "LEAK") == leak
