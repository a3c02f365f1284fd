"""`vramdoctor logs` on the kinds of fault the held-out round 20 found (../heldout20/REPORT.md), each with logs of
our own in other engines, versions and wordings (none of the held-out logs' own lines). The engines' lines follow
their sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import textwrap

import pytest

from logcase import diag, flags, run_in, run_of

OOM = ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME")


# --- 1. process listings pasted over time: the same process in several snapshots is a series ------------------------

SNAPSHOTS = {
    # `ps aux` at three times (vLLM 0.4's Ray workers, vllm/executor/ray_utils.py RayWorkerWrapper), with the user's
    # notes between them
    "ps-aux-ray": ("""
        memory of the workers keeps growing, v0.4.2
        $ ps aux | head -1; ps aux | grep ray::
        USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
        ubuntu      2210  1.1  1.2 41287340 9933120 ?    Sl   09:12   1:02 ray::RayWorkerWrapper.execute_method
        ubuntu      2211  0.2  0.1 17729200 812300 ?     Sl   09:12   0:05 ray::IDLE
        after 90 minutes:
        USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
        ubuntu      2210  1.3  1.5 43021888 11630040 ?   Sl   09:12  58:40 ray::RayWorkerWrapper.execute_method
        ubuntu      2211  0.2  0.1 17729200 812300 ?     Sl   09:12   0:19 ray::IDLE
        after 3 hours:
        USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
        ubuntu      2210  1.3  1.7 44420100 13288812 ?   Sl   09:12 121:03 ray::RayWorkerWrapper.execute_method
        ubuntu      2211  0.2  0.1 17729200 812300 ?     Sl   09:12   0:33 ray::IDLE
    """, True, "vllm"),
    # `top -b -n 1 -p PID` every hour on a llama-server: RES scaled by top itself (g)
    "top-batch-llamacpp": ("""
        top - 10:00:01 up 12 days,  3:01,  1 user,  load average: 3.10, 3.02, 2.98
            PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
          41877 llama     20   0   36.1g   9.8g   8.9g S 310.0   7.8 912:33.02 llama-server
        top - 11:00:01 up 12 days,  4:01,  1 user,  load average: 3.00, 3.01, 2.99
            PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
          41877 llama     20   0   37.4g  11.2g   8.9g S 305.2   8.9  1094:10 llama-server
        top - 12:00:01 up 12 days,  5:01,  1 user,  load average: 3.04, 3.00, 2.99
            PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
          41877 llama     20   0   38.9g  12.9g   8.9g S 299.7  10.3  1275:44 llama-server
    """, True, None),
    # `ps -o pid,rss,vsz,cmd` in a watch loop, and `ps aux | grep` rows without their header
    "ps-o-and-grep-rows": ("""
        $ while sleep 1800; do date; ps -o pid,rss,vsz,cmd -p 7731; done
        Mon Mar  3 14:00:00 UTC 2025
            PID   RSS    VSZ CMD
           7731 2104332 12887340 python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct
        Mon Mar  3 14:30:00 UTC 2025
            PID   RSS    VSZ CMD
           7731 2451960 12990112 python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct
        Mon Mar  3 15:00:00 UTC 2025
            PID   RSS    VSZ CMD
           7731 2789544 13101640 python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct
    """, True, None),
    "grep-rows-no-header": ("""
        ps aux | grep text-generation-server, once an hour:
        root       118  2.0  3.1 31231404 3881020 ?    Sl   Feb02  40:01 /opt/conda/bin/python /opt/conda/bin/text-generation-server serve
        root       118  2.1  3.6 31500100 4470112 ?    Sl   Feb02  88:13 /opt/conda/bin/python /opt/conda/bin/text-generation-server serve
        root       118  2.1  4.2 31900000 5204880 ?    Sl   Feb02 135:51 /opt/conda/bin/python /opt/conda/bin/text-generation-server serve
    """, True, None),
    # one snapshot of many processes, rising from one to the next: a list, not a series
    "one-snapshot-many": ("""
        USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
        root         101  0.4  0.0 28963612 417336 ?     SNl  17:36   0:02 python worker.py
        root         202  6.2  0.5 68235476 5179612 ?    RNl  17:36   0:36 python worker.py
        root         303  3.4  0.6 69346516 6284616 ?    SNl  17:36   4:57 python worker.py
        root         404  3.4  0.6 69987220 9919976 ?    SNl  17:36   7:27 python worker.py
    """, False, None),
    # the same process in three snapshots, steady: no growth
    "steady": ("""
            PID   RSS CMD
           7731 2104332 python3 -m sglang.launch_server
            PID   RSS CMD
           7731 2109960 python3 -m sglang.launch_server
            PID   RSS CMD
           7731 2101544 python3 -m sglang.launch_server
    """, False, None),
    # growth in two snapshots only: not enough readings
    "two-snapshots": ("""
            PID   RSS CMD
           7731 2104332 python3 -m sglang.launch_server
            PID   RSS CMD
           7731 3789544 python3 -m sglang.launch_server
    """, False, None),
}


@pytest.mark.parametrize("name", sorted(SNAPSHOTS))
def test_the_same_process_in_several_snapshots_is_a_series(name):
    text, leak, engine = SNAPSHOTS[name]
    rep = diag(text)
    run = run_of(rep)
    if leak:
        assert (run.kind, run.code) == ("LEAK", "memory-growth-reported"), run
    else:
        assert run.kind != "LEAK", run
    if engine:
        assert rep.engine == engine, rep.engine


# --- 2. a start-up log that stops at a whole word of a step under way: it never got ready -----------------------------

STUB_AT_END = {
    # vLLM 0.6 (V0, worker/model_runner.py capture_model: "Capturing the model for CUDA graphs. This may lead to
    # unexpected consequences ..."), the line cut after its first word
    "vllm-v0-capturing": ("""
        INFO 10-02 12:00:00 api_server.py:527] vLLM API server version 0.6.2
        INFO 10-02 12:00:41 model_runner.py:1025] Loading model weights took 14.9888 GB
        INFO 10-02 12:00:47 gpu_executor.py:122] # GPU blocks: 2891, # CPU blocks: 2048
        INFO 10-02 12:00:49 model_runner.py:1329] Capturing
    """, ("WARMUP",), "vllm"),
    # SGLang with a draft model (speculative decoding): the target's weights loaded, then the draft's shard bar has
    # only its title
    "sglang-draft-shards-title": ("""
        [2025-07-01 08:00:10 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=61.02 GB, mem usage=15.27 GB.
        [2025-07-01 08:00:11 TP0] KV Cache is allocated. #tokens: 402155, K size: 21.48 GB, V size: 21.48 GB
        Loading safetensors checkpoint shards:
    """, ("WEIGHTS", "WARMUP"), "sglang"),
    # vLLM V1 (0.11, DEBUG), a bare word after the shard bar finished (what was loading next is cut)
    "vllm-v1-bare-word": ("""
        (EngineCore_DP0 pid=88) INFO 11-03 02:10:11 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen2-VL-7B-Instruct...
        (EngineCore_DP0 pid=88) DEBUG 11-03 02:10:12 [model_executor/model_loader/base_loader.py:53] Loading weights on cuda ...
        Loading safetensors checkpoint shards:   0% Completed | 0/5 [00:00<?, ?it/s]
        Loading safetensors checkpoint shards: 100% Completed | 5/5 [00:04<00:00,  1.12it/s]
        Loading
    """, ("WEIGHTS",), "vllm"),
    # TGI's shard after its weights: the warm-up's first word, with the shard's prefix
    "tgi-warming": ("""
        2024-06-01T10:00:00.000000Z  INFO text_generation_launcher: Args { model_id: "mistralai/Mistral-7B-v0.1", max_total_tokens: 4096 }
        2024-06-01T10:00:30.000000Z  INFO shard-manager: text_generation_launcher: Shard ready in 30.1s rank=0
        2024-06-01T10:00:31.000000Z  INFO text_generation_launcher: Warming
    """, ("WARMUP",), "tgi"),
}


@pytest.mark.parametrize("name", sorted(STUB_AT_END))
def test_a_startup_log_stopping_at_a_step_word_is_undetermined(name):
    text, phases, engine = STUB_AT_END[name]
    run = run_in(text, engine)
    assert run.kind == "UNDETERMINED" and run.code in ("log-ends-during-step", "log-cut-off"), run
    assert all(p in run.candidates for p in phases), run.candidates


@pytest.mark.parametrize("last", [
    "Loading",  # a bare word once the server was ready: no failure in the lines shown
    "INFO:     Application startup complete.",
])
def test_a_step_word_after_the_server_got_ready_clears_nothing_and_fails_nothing(last):
    run = run_of(diag(f"""
        INFO 10-02 12:00:41 model_runner.py:1025] Loading model weights took 14.9888 GB
        INFO 10-02 12:00:47 gpu_executor.py:122] # GPU blocks: 2891, # CPU blocks: 2048
        INFO 10-02 12:01:03 api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000
        {last}
    """))
    assert run.kind == "NONE", run


# --- 3. vLLM's words for a dead engine, and PyTorch's NCCL watchdog: the run failed; the kind is its cause's ---------

_V0_SERVING = """
    INFO 12-01 12:59:10 metrics.py:449] Avg prompt throughput: 812.3 tokens/s, Avg generation throughput: 301.2 tokens/s, Running: 14 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 31.2%, CPU KV cache usage: 0.0%.
    INFO:     10.42.0.118:60598 - "POST /v1/completions HTTP/1.1" 200 OK
"""

DEAD_ENGINE = {
    # V0's multiprocessing front end (engine/multiprocessing/client.py run_heartbeat_loop, 0.6-0.10): its engine
    # process died; entrypoints/launcher.py then stops the server. Nothing says why.
    "v0-mq-died-no-cause": (_V0_SERVING + """
        ERROR 12-01 13:05:02 client.py:250] RuntimeError('Engine process (pid 76) died.')
        ERROR 12-01 13:05:02 client.py:250] NoneType: None
        CRITICAL 12-01 13:05:02 launcher.py:99] MQLLMEngine is already dead, terminating server process
    """, ("UNDETERMINED", "failure-cause-not-shown")),
    # the same with the NCCL watchdog's c10 frames above it (the watchdog's message itself is above the excerpt)
    "v0-mq-died-after-watchdog": (_V0_SERVING + """
        frame #3: <unknown function> + 0x94ac3 (0x7f1d2c8bdac3 in /usr/lib/x86_64-linux-gnu/libc.so.6)

        Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:632 (most recent call first):
        frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f1d2b06c446 in /usr/local/lib/python3.12/dist-packages/torch/lib/libc10.so)

        ERROR 02-11 04:40:12 client.py:300] RuntimeError('Engine process (pid 812) died.')
        CRITICAL 02-11 04:40:15 launcher.py:116] MQLLMEngine is already dead, terminating server process
    """, ("NOT_OOM", "nccl-error")),
    # V0's async engine (0.5): its background loop died on the watchdog's exception
    "v0-async-watchdog": ("""
        INFO 07-30 10:00:01 metrics.py:295] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 88.1 tokens/s, Running: 3 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 4.1%, CPU KV cache usage: 0.0%.
        [rank1]:[E730 10:10:03.118241 ProcessGroupNCCL.cpp:1414] [PG 2 Rank 1] Process group watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88123, OpType=ALLREDUCE, NumelIn=40960, NumelOut=40960, Timeout(ms)=600000) ran for 600084 milliseconds before timing out.
        ERROR 07-30 10:10:05 async_llm_engine.py:56] Engine background task failed
        vllm.engine.async_llm_engine.AsyncEngineDeadError: Task finished unexpectedly. This should never happen! Please open an issue on Github.
    """, ("NOT_OOM", "nccl-error")),
    # V1 (0.10): the API server's output handler after the engine core died, the cause not in the excerpt
    "v1-engine-dead-no-cause": ("""
        (APIServer pid=1) INFO 09-14 12:00:03 [loggers.py:123] Engine 000: Avg prompt throughput: 410.2 tokens/s, Avg generation throughput: 88.0 tokens/s, Running: 6 reqs, Waiting: 0 reqs, GPU KV cache usage: 12.4%, Prefix cache hit rate: 0.0%
        (APIServer pid=1) ERROR 09-14 12:10:03 [async_llm.py:480] AsyncLLM output_handler failed.
        (APIServer pid=1) ERROR 09-14 12:10:03 [async_llm.py:480] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.
    """, ("UNDETERMINED", "failure-cause-not-shown")),
    # a dead engine whose cause follows it: memory while serving
    "v0-mq-dead-then-oom": (_V0_SERVING + """
        INFO 02-10 18:06:30 engine.py:275] Added request cmpl-30aaf466904d4d148c2e17a584f448e0-0.
        CRITICAL 02-10 18:06:30 launcher.py:101] MQLLMEngine is already dead, terminating server process
        INFO:     10.25.164.34:57224 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error
        ERROR 02-10 18:06:30 engine.py:139] OutOfMemoryError('CUDA out of memory. Tried to allocate 1.27 GiB. GPU 0 has a total capacity of 79.33 GiB of which 109.81 MiB is free.')
    """, ("RUNTIME", None)),
}


@pytest.mark.parametrize("name", sorted(DEAD_ENGINE))
def test_a_dead_engine_is_a_failure_of_its_causes_kind(name):
    text, (kind, code) = DEAD_ENGINE[name]
    rep = diag(text)
    run = run_of(rep)
    assert rep.engine == "vllm", rep.engine
    assert run.kind == kind and (code is None or run.code == code), run


def test_pytorchs_shutdown_warning_about_a_process_group_is_no_failure():
    """PyTorch 2.4+ warns at every exit that did not destroy its process group: not a failure."""
    run = run_of(diag("""
        INFO 05-02 10:00:41 model_runner.py:1025] Loading model weights took 7.1 GB
        INFO 05-02 10:01:03 api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000
        INFO:     127.0.0.1:51210 - "POST /v1/chat/completions HTTP/1.1" 200 OK
        [rank0]:[W502 10:30:00.123456 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process.
    """))
    assert run.kind == "NONE", run


# --- 4. a traceback in docker compose's format, without its header, its frames split over prefixed lines -----------

COMPOSE_TRACEBACKS = {
    # tabbyAPI / ExLlamaV2 (its loguru lines under compose's prefix), a frame's file on the line after "File", the
    # excerpt ending before the exception
    "tabby-split-frames": """
        tabby-1  | 2025-06-11 09:02:44.120 INFO:     Loading model: /app/models/Mistral-Large-Instruct-2411-exl2
        tabby-1  | 2025-06-11 09:02:51.630 ERROR:      File
        tabby-1  | "/opt/venv/lib/python3.12/site-packages/exllamav2/model.py", line 341, in
        tabby-1  | load_autosplit_gen
        tabby-1  | 2025-06-11 09:02:51.630 ERROR:        for item in f:
        tabby-1  | 2025-06-11 09:02:51.630 ERROR:      File
        tabby-1  | "/opt/venv/lib/python3.12/site-packages/exllamav2/attn.py", line 270, in load
        tabby-1  | 2025-06-11 09:02:51.630 ERROR:        self.q_proj.load(device_context =
        tabby-1  | device_context)
    """,
    # vLLM in compose, whole frames, the header and the exception above and below the excerpt
    "vllm-whole-frames": """
        vllm-1  | INFO 06-02 09:15:01 [gpu_model_runner.py:1870] Starting to load model Qwen/Qwen3-8B...
        vllm-1  |   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 77, in __init__
        vllm-1  |     self.model_executor = executor_class(vllm_config)
        vllm-1  |   File "/usr/local/lib/python3.12/dist-packages/vllm/executor/executor_base.py", line 53, in __init__
        vllm-1  |     self._init_executor()
    """,
    # SGLang in compose, a frame wrapped after its line number ("in" on the next line)
    "sglang-wrapped-after-line": """
        sglang-1  | [2025-08-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-72B-Instruct', tp_size=4)
        sglang-1  |   File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py",
        sglang-1  | line 230, in initialize
        sglang-1  |     self.init_memory_pool(
        sglang-1  |   File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 1101,
        sglang-1  | in init_memory_pool
    """,
}


@pytest.mark.parametrize("name", sorted(COMPOSE_TRACEBACKS))
def test_a_compose_traceback_without_its_header_is_a_failure_whose_cause_is_cut(name):
    run = run_of(diag(COMPOSE_TRACEBACKS[name]))
    assert (run.kind, run.code) == ("UNDETERMINED", "failure-cause-not-shown"), run
    assert run.oom is None and run.candidates, run
    assert "traceback" in run.missing, run.missing


# --- 5. serving shown by an access line or in prose is a milestone: a failure after it is serving ------------------

_METAL_OOM = ("libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer "
              "execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)")

SERVING_SHOWN = {
    # mlx_lm.server (http.server's access line): a health check answered, then Metal ran out
    "mlx-health-access-line": ("""
        Fetching 9 files: 100%|██████████| 9/9 [00:00<00:00, 41231.36it/s]
        Batch eval all weights: 2311ms
        127.0.0.1 - - [03/Sep/2025 10:00:01] "GET /health HTTP/1.1" 200 -
    """ + _METAL_OOM, "mlx"),
    # a user's report around a llama.cpp Metal log: a request in flight and a health check that still answered
    "llamacpp-metal-prose": ("""
        load_tensors: offloaded 49/49 layers to GPU
        load_tensors: Metal_Mapped model buffer size = 17845.52 MiB
        The crash happens while a request is in flight (a 30k-token prompt); `/health` returned 200 just before.
        ggml_metal_graph_compute: command buffer 0 failed with status 5
        error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)
    """, "llamacpp"),
    # llama-server's own request line for a health check answered 200 (server.cpp log_server_r)
    "llamacpp-health-request": ("""
        load_tensors: offloaded 33/33 layers to GPU
        load_tensors:        CUDA0 model buffer size =  4403.49 MiB
        llama_kv_cache:      CUDA0 KV buffer size =  1024.00 MiB
        srv  log_server_r: request: GET /health 127.0.0.1 200
        ggml_metal_graph_compute: command buffer 0 failed with status 5
    """, "llamacpp"),
}


@pytest.mark.parametrize("name", sorted(SERVING_SHOWN))
def test_serving_shown_by_an_access_line_or_in_prose_is_a_milestone(name):
    text, engine = SERVING_SHOWN[name]
    run = run_in(text, engine)
    assert run.kind == "RUNTIME", run


def test_a_health_check_answered_503_while_loading_is_not_serving():
    """llama-server answers /health with 503 until the model is loaded: that request line is no milestone."""
    run = run_of(diag("""
        srv  log_server_r: request: GET /health 127.0.0.1 503
        load_tensors: offloaded 33/33 layers to GPU
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4403.49 MiB on device 0: cudaMalloc failed: out of memory
        alloc_tensor_range: failed to allocate CUDA0 buffer of size 4617398272
        llama_model_load: error loading model: unable to allocate CUDA0 buffer
    """))
    assert run.kind == "WEIGHTS", run


# --- 7a. the gdb backtrace ggml prints on abort (ggml.c ggml_print_backtrace): its frames place the failure ------------

_GDB_HEAD = """
        [New LWP 18458]
        [New LWP 18459]
        [New LWP 18460]
        [New LWP 18461]
        [New LWP 18462]
        [New LWP 18463]
        [New LWP 18464]
        [New LWP 18465]
        [Thread debugging using libthread_db enabled]
        Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".
        0x00007f3a9d2f1c17 in __GI___wait4 (pid=18468, stat_loc=0x0, options=0, usage=0x0) at ../sysdeps/unix/sysv/linux/wait4.c:30
        30	../sysdeps/unix/sysv/linux/wait4.c: No such file or directory.
        #0  0x00007f3a9d2f1c17 in __GI___wait4 (pid=18468, stat_loc=0x0, options=0, usage=0x0) at ../sysdeps/unix/sysv/linux/wait4.c:30
        30	in ../sysdeps/unix/sysv/linux/wait4.c
        #1  0x00007f3a9cf416fb in ggml_print_backtrace () from /opt/llama/lib/libggml-base.so
        #2  0x00007f3a9cf4184e in ggml_abort () from /opt/llama/lib/libggml-base.so
    """


def _with_gdb(before: str, frames: str) -> str:
    """A log's lines, then gdb's lines before the backtrace and its first frames, then the rest of its frames."""
    return "\n".join(textwrap.dedent(x).strip("\n") for x in (before, _GDB_HEAD, frames))


GDB_BACKTRACES = {
    # the compute graph's reservation (llama-context.cpp sched_reserve -> graph_reserve): the compute buffer
    "graph-reserve": (_with_gdb("""
        0.00.005.072 I srv    load_model: loading model 'models/qwen3-4b-q4_k_m.gguf'
        /src/llama.cpp/ggml/src/ggml.c:1644: GGML_ASSERT(ctx->mem_buffer != NULL) failed
        0.00.076.658 E ggml_aligned_malloc: insufficient memory (attempted to allocate  24.50 MB)
    """, """
        #3  0x00007f3a9cf43a37 in ggml_init () from /opt/llama/lib/libggml-base.so
        #4  0x00007f3a9cf5b799 in ggml_backend_sched_split_graph () from /opt/llama/lib/libggml-base.so
        #5  0x00007f3a9c7efb67 in llama_context::graph_reserve(unsigned int, unsigned int, unsigned int, llama_memory_context_i const*, bool, unsigned long*) () from /opt/llama/lib/libllama.so
        #6  0x00007f3a9c7f1030 in llama_context::sched_reserve() () from /opt/llama/lib/libllama.so
        #7  0x00007f3a9c7f2d9a in llama_context::llama_context(llama_model const&, llama_context_params) () from /opt/llama/lib/libllama.so
        #8  0x00007f3a9c7f40e4 in llama_init_from_model () from /opt/llama/lib/libllama.so
    """), "WARMUP"),
    # the KV cache's constructor (llama-kv-cache.cpp): the cache
    "kv-cache-constructor": (_with_gdb("""
        llama_context: n_ctx         = 131072
        ggml_aligned_malloc: insufficient memory (attempted to allocate 16384.00 MB)
        /src/llama.cpp/ggml/src/ggml-backend.cpp:1980: GGML_ASSERT(buffer) failed
    """, """
        #3  0x00007f3a9cf61d20 in ggml_backend_alloc_ctx_tensors_from_buft () from /opt/llama/lib/libggml-base.so
        #4  0x00007f3a9c80a1b4 in llama_kv_cache::llama_kv_cache(llama_model const&, ggml_type, ggml_type, bool, bool, bool, unsigned int, unsigned int, unsigned int, unsigned int, llama_swa_type, std::function<bool (int)> const&, std::function<bool (int, llama_model const&)> const&) () from /opt/llama/lib/libllama.so
        #5  0x00007f3a9c7d9a02 in llama_model::create_memory(llama_memory_params const&, llama_cparams const&) const () from /opt/llama/lib/libllama.so
        #6  0x00007f3a9c7f2b11 in llama_context::llama_context(llama_model const&, llama_context_params) () from /opt/llama/lib/libllama.so
    """), "KV_CAPACITY"),
    # the weights (llama-model.cpp load_tensors, llama.cpp llama_model_load)
    "load-tensors": (_with_gdb("""
        llama_model_loader: loaded meta data with 35 key-value pairs and 579 tensors from models/gemma-3-12b-it-Q8_0.gguf (version GGUF V3 (latest))
        ggml_aligned_malloc: insufficient memory (attempted to allocate 12014.77 MB)
        /src/llama.cpp/ggml/src/ggml-backend.cpp:2054: GGML_ASSERT(buf) failed
    """, """
        #3  0x00007f3a9cf5f1e2 in ggml_backend_cpu_buffer_type_alloc_buffer () from /opt/llama/lib/libggml-cpu.so
        #4  0x00007f3a9c79c3f1 in llama_model::load_tensors(llama_model_loader&) () from /opt/llama/lib/libllama.so
        #5  0x00007f3a9c70b8d5 in llama_model_load(std::string const&, std::vector<std::string, std::allocator<std::string> >&, llama_model&, llama_model_params&) () from /opt/llama/lib/libllama.so
    """), "WEIGHTS"),
}


@pytest.mark.parametrize("name", sorted(GDB_BACKTRACES))
def test_the_frames_of_ggmls_gdb_backtrace_place_the_failure(name):
    text, kind = GDB_BACKTRACES[name]
    run = run_of(diag(text))
    assert run.kind == kind, run
    assert run.phase_source == "the stack frames", run.phase_source
    # (ggml_aligned_malloc is ggml's host allocator: no layers move off a GPU to host RAM that ran out)
    assert "-ngl" not in flags(run) or run.kind == "WEIGHTS", flags(run)


# --- 7b. a thread that could not be created (pthread_create's EAGAIN): a failure, its limit not shown ----------------

THREAD_FAILED = {
    # GNU OpenMP (libgomp team.c gomp_fatal "Thread creation failed: %s") under llama-server's threadpool
    "libgomp": """
        main: build = 7520 (a1b2c3d4)
        0.00.003.078 I srv    load_model: loading model 'models/phi-4-mini-Q4_K_M.gguf'
        0.00.094.206 I cmn          init: llama threadpool init, n_threads = 16
        libgomp: Thread creation failed: Resource temporarily unavailable
    """,
    # std::thread in llama-server's queue (server_queue::start_loop): libstdc++'s std::system_error, after serving began
    "std-system-error": """
        0.00.592.297 I srv  llama_server: model loaded
        0.00.595.267 I srv  llama_server: listening on http://127.0.0.1:8080
        terminate called after throwing an instance of 'std::system_error'
          what():  Resource temporarily unavailable
        Aborted (core dumped)
    """,
    # OpenBLAS's thread pool (driver/others/blas_server.c) in a transformers process
    "openblas": """
        Loading checkpoint shards: 100%|██████████| 4/4 [00:03<00:00,  1.21it/s]
        OpenBLAS blas_thread_init: pthread_create failed for thread 31 of 64: Resource temporarily unavailable
        OpenBLAS blas_thread_init: RLIMIT_NPROC 4096 current, 4096 max
    """,
    # CPython's threading module in vLLM's front end
    "python-thread": """
        INFO 05-02 10:00:41 model_runner.py:1025] Loading model weights took 7.1 GB
        ERROR 05-02 10:00:50 engine.py:160] RuntimeError: can't start new thread
    """,
}


@pytest.mark.parametrize("name", sorted(THREAD_FAILED))
def test_a_thread_that_could_not_be_created_is_undetermined_with_its_own_code(name):
    run = run_of(diag(THREAD_FAILED[name]))
    assert (run.kind, run.code) == ("UNDETERMINED", "thread-creation-failed"), run
    assert run.oom is None, run
    said = run.message + " " + " ".join(a["why"] for a in run.advice)
    assert "ulimit -v" in said and "ulimit -u" in said, said


def test_a_non_blocking_call_that_would_block_is_not_a_thread_that_failed():
    run = run_of(diag("""
        INFO 05-02 10:00:41 model_runner.py:1025] Loading model weights took 7.1 GB
        BlockingIOError: [Errno 11] Resource temporarily unavailable
    """))
    assert run.code != "thread-creation-failed", run


# --- 6. advice: nothing already in use, nothing already tried, flags of the engine and build the log shows ------------

_V0_KV_SHORT = ("ERROR 11-02 10:00:10 engine.py:387] ValueError: The model's max seq len (131072) is larger than the "
                "maximum number of tokens that can be stored in KV cache (48512). Try increasing "
                "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.")


@pytest.mark.parametrize("shown", [
    # a Kubernetes manifest's args list
    "        args:\n          - --model=meta-llama/Llama-3.1-8B-Instruct\n          - --enable-chunked-prefill\n"
    "          - --gpu-memory-utilization=0.9",
    # V0's argument dump
    "INFO 11-02 10:00:00 api_server.py:585] args: Namespace(model='meta-llama/Llama-3.1-8B-Instruct', "
    "enable_chunked_prefill=True, max_num_batched_tokens=None, gpu_memory_utilization=0.9)",
    # a docker command with the flag's value form
    "docker run --gpus all vllm/vllm-openai:v0.6.3 --model meta-llama/Llama-3.1-8B-Instruct --enable-chunked-prefill=true",
])
def test_chunked_prefill_is_not_proposed_where_the_log_shows_it_on(shown):
    run = run_of(diag("INFO 11-02 09:59:00 api_server.py:1] vLLM API server version 0.6.3\n" + shown + "\n"
                      + _V0_KV_SHORT, "vllm"))
    assert run.kind == "KV_CAPACITY", run
    said = flags(run)
    assert "--enable-chunked-prefill" not in said, said
    step = next((a for a in run.advice if a["setting"] == "max_num_batched_tokens"), None)
    assert step is None or "chunked prefill" not in step["change"] or "smaller" in step["change"], step


@pytest.mark.parametrize("text,engine", [
    # the model named only on vLLM's command line, 8-bit by its name (llm-compressor's w8a8)
    ("vllm serve RedHatAI/Meta-Llama-3.1-70B-Instruct-quantized.w8a8 --tensor-parallel-size 2 --max-model-len 8192\n"
     "(EngineCore_DP0 pid=71) ERROR 06-01 10:00:01 [core.py:700] ValueError: No available memory for the cache blocks. "
     "Try increasing `gpu_memory_utilization` when initializing the engine.", "vllm"),
    # SGLang's --model-path, an fp8 checkpoint
    ("python3 -m sglang.launch_server --model-path neuralmagic/Qwen2-72B-Instruct-FP8 --tp 2 --mem-fraction-static 0.85\n"
     "[2025-06-01 10:00:40 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=1.02 GB, mem usage=37.10 GB.\n"
     "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", "sglang"),
    # vLLM's --model= form, an INT8 weight-only checkpoint
    ("python -m vllm.entrypoints.openai.api_server --model=/models/Mistral-Large-Instruct-2411-INT8-W8A16 --tensor-parallel-size 4\n"
     "ERROR 03-01 10:00:01 engine.py:387] ValueError: No available memory for the cache blocks. Try increasing "
     "`gpu_memory_utilization` when initializing the engine.", "vllm"),
])
def test_an_8_bit_model_is_offered_only_fewer_bits(text, engine):
    rep = diag(text)
    run = run_of(rep)
    assert rep.engine == engine and run.kind == "KV_CAPACITY", run
    step = next(a for a in run.advice if a["setting"] == "quantization")
    assert "fp8" not in step["flags"].lower() and "4-bit" in step["flags"], step


TRIED = {
    # SGLang's request slots, with 1 already tried (the steps would otherwise propose 3, below the 4 running)
    "sglang-slots-tried-1": ("""
        I have already tried `--max-running-requests 1`, but the scheduler still crashes the same way.
        [2025-09-13 09:09:15 TP0] Decode batch. #running-req: 4, #token: 9071, token usage: 0.01, gen throughput (token/s): 112.41, #queue-req: 0
        RuntimeError: alloc_req_slots runs out of memory. Please set a smaller number for `--max-running-requests`. self.req_to_token_pool.available_size()=1, len(reqs)=2,
    """, "--max-running-requests", 1, "down"),
    # vLLM's context: the pool holds 23,648 tokens, and 16384 was tried and failed the same way
    "vllm-context-tried": ("""
        even with --max-model-len 16384 it fails with the same error:
        INFO 07-03 10:00:00 api_server.py:1] vLLM API server version 0.6.3
        ERROR 07-03 10:00:10 engine.py:387] ValueError: The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in KV cache (23648). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
    """, "--max-model-len", 16384, "down"),
    # vLLM V1's sampler warm-up: 64 sequences were tried too
    "vllm-seqs-tried": ("""
        (APIServer pid=1) INFO 09-14 11:00:00 [utils.py:326] non-default args: {'model': 'Qwen/Qwen3-32B', 'max_num_seqs': 256}
        I also tried --max-num-seqs=64; still OOM.
        (EngineCore_DP0 pid=9) ERROR 09-14 11:02:40 [core.py:710] RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.
    """, "--max-num-seqs", 64, "down"),
}


@pytest.mark.parametrize("name", sorted(TRIED))
def test_a_value_the_log_says_was_tried_and_failed_is_not_proposed(name):
    text, flag, tried, way = TRIED[name]
    run = run_of(diag(text))
    assert run.kind in OOM, run
    for a in run.advice:
        if a["flags"].startswith(flag) or f" {flag}" in a["flags"]:
            assert isinstance(a["value"], (int, float)) and (a["value"] < tried if way == "down" else a["value"] > tried), a
    if tried == 1:  # nothing below 1: the step says so instead
        assert any("tried" in a["why"] for a in run.advice), run.advice


def test_a_value_tried_that_worked_is_no_failed_try():
    run = run_of(diag("""
        I tried --max-model-len 16384 and that works, but I need 29000:
        INFO 07-03 10:00:00 api_server.py:1] vLLM API server version 0.6.3
        ERROR 07-03 10:00:10 engine.py:387] ValueError: The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in KV cache (23648). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
    """))
    step = next(a for a in run.advice if a["setting"] == "max_model_len")
    assert step["value"] == 23648, step


FA_BY_WORDING = {
    # Vulkan, late 2025 (common's common_init_result class, ggml-alloc's ggml_gallocr_reserve_n_impl): -fa on|off|auto
    "vulkan-late-2025": ("""
        ggml_vulkan: Device memory allocation of size 6442450944 failed.
        ggml_gallocr_reserve_n_impl: failed to allocate Vulkan0 buffer of size 6442450944
        graph_reserve: failed to allocate compute buffers
        llama_init_from_model: failed to initialize the context: failed to allocate compute pp buffers
        common_init_result: failed to create context with model 'models/gemma-3-27b-it-Q4_K_M.gguf'
    """, "-fa on"),
    # CUDA, autumn 2025: llama_context's "flash_attn = auto" (the value -fa took from b6343)
    "cuda-fa-auto": ("""
        llama_context: n_ctx         = 65536
        llama_context: flash_attn    = auto
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9216.00 MiB on device 0: cudaMalloc failed: out of memory
        ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 9663676416
        graph_reserve: failed to allocate compute buffers
        llama_init_from_model: failed to initialize the context: failed to allocate compute pp buffers
    """, "-fa on"),
    # early 2025 (b4500-b4900): llama_init_from_model printed the context's settings; -fa took no value
    "early-2025": ("""
        llama_init_from_model: n_ctx         = 32768
        llama_init_from_model: flash_attn    = 0
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9216.00 MiB on device 0: cudaMalloc failed: out of memory
        ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 9663676416
        llama_init_from_model: failed to allocate compute buffers
    """, "-fa"),
    # a 2026 build's own line: "common_params_print_info: build 9592 (ac4cddeb0) with ..."
    "build-2026": ("""
        0.00.314.265 I common_params_print_info: build 9592 (ac4cddeb0) with GNU 13.3.0 for Linux x86_64
        0.03.657.736 I sched_reserve: reserving ...
        0.03.670.001 E ggml_backend_cuda_buffer_type_alloc_buffer: allocating 3072.00 MiB on device 0: cudaMalloc failed: out of memory
        0.03.670.010 E graph_reserve: failed to allocate compute buffers
    """, "-fa on"),
}


@pytest.mark.parametrize("name", sorted(FA_BY_WORDING))
def test_llamacpps_flash_attention_flag_follows_the_wording_that_dates_the_build(name):
    text, fa = FA_BY_WORDING[name]
    run = run_of(diag(text))
    assert run.kind == "WARMUP", run
    step = next(a for a in run.advice if a["setting"] == "flash_attn")
    assert step["flags"] == fa or step["flags"].startswith(fa + " ") and fa == "-fa on", step


KOBOLD = {
    # KoboldCpp on Metal (gpttype_adapter.cpp: "Failed to predict at %d! Check your context buffer sizes!"): a request
    # ran Metal out of memory
    "metal": """
        ggml_metal_graph_compute: command buffer 1 failed with status 5
        error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)
        llama_decode: failed to decode, ret = -3

        Failed to predict at 311! Check your context buffer sizes!
    """,
    # KoboldCpp on CUDA, the compute pool while generating
    "cuda": """
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1536.00 MiB on device 0: cudaMalloc failed: out of memory
        ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 1610612736
        llama_decode: failed to decode, ret = -3
        Failed to predict at 2048! Check your context buffer sizes!
    """,
}


@pytest.mark.parametrize("name", sorted(KOBOLD))
def test_koboldcpps_own_words_make_it_koboldcpp_with_its_own_flags(name):
    rep = diag(KOBOLD[name])
    run = run_of(rep)
    assert rep.engine == "koboldcpp", rep.engine
    said = flags(run)
    assert "-np" not in said and "-c " not in said and "-ub" not in said, said


SAMPLER_SHOWN = {
    # a pasted error wrapped at spaces (its number on one line, "dummy requests" on the next), and the fraction in
    # the = form of a pasted command
    "wrapped-number": ("""
        vllm serve Qwen/Qwen3-14B --tensor-parallel-size 2 --gpu-memory-utilization=0.93
        RuntimeError: CUDA out of memory occurred when warming up sampler with 512
        dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization`
        when initializing the engine.
    """, 0.93, 512),
    # a Helm values file's fraction, the message on one line
    "helm-values": ("""
        vllm:
          gpu_memory_utilization: 0.95
        (EngineCore_DP0 pid=281) RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.
    """, 0.95, 256),
}


@pytest.mark.parametrize("name", sorted(SAMPLER_SHOWN))
def test_the_sampler_warmup_moves_from_the_fraction_and_sequences_the_log_shows(name):
    text, fraction, seqs = SAMPLER_SHOWN[name]
    run = run_of(diag(text))
    assert (run.kind, run.code) == ("WARMUP", "sampler-warmup-oom"), run
    steps = {a["setting"]: a for a in run.advice}
    assert steps["max_num_seqs"]["current"] == seqs and steps["max_num_seqs"]["value"] < seqs, steps
    assert steps["memory_fraction"]["current"] == fraction and steps["memory_fraction"]["value"] < fraction, steps


def test_the_sampler_in_the_profiling_pass_gets_no_fraction_step():
    """Loaded, pool not yet sized: V1's profile_run runs the sampler too, where the fraction does not matter."""
    run = run_of(diag("""
        (EngineCore_DP0 pid=9) INFO 09-14 11:02:10 [gpu_model_runner.py:2007] Model loading took 27.5 GiB and 20.1 seconds
        (EngineCore_DP0 pid=9) ERROR 09-14 11:02:40 [core.py:710] RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.
    """))
    assert run.code == "sampler-warmup-oom" and "memory_fraction" not in {a["setting"] for a in run.advice}, run.advice


PAGED = {
    # SGLang 0.4 (schedule_batch.py alloc_paged_token_slots_decode): "Try to allocate N tokens" counts the running
    # requests, but each may need a whole new page of --page-size tokens (the allocator's own over-estimate)
    "page-size-cli": ("""
        python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-32B-Instruct --tp 4 --page-size 32 --mem-fraction-static 0.88
        [2025-04-01 10:10:00 TP0] Decode batch. #running-req: 96, #token: 70210, token usage: 0.97, gen throughput (token/s): 2200.10, #queue-req: 0
        RuntimeError: Decode out of memory. Try to lower your batch size.
        Try to allocate 96 tokens.
        Avaliable tokens: 1024
    """, 32),
    # the page size from server_args
    "page-size-server-args": ("""
        [2025-05-02 08:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8, page_size=64, mem_fraction_static=0.9)
        RuntimeError: Decode out of memory. Try to lower your batch size.
        Try to allocate 40 tokens.
        Avaliable tokens: 1536
    """, 64),
    # the page size not shown: the figures alone say the allocator works in pages
    "page-size-not-shown": ("""
        [2025-05-02 08:00:00 TP0] Decode batch. #running-req: 40, #token: 90210, token usage: 0.98, gen throughput (token/s): 1200.10, #queue-req: 0
        RuntimeError: Decode out of memory. Try to lower your batch size.
        Try to allocate 40 tokens.
        Avaliable tokens: 1536
    """, None),
}


@pytest.mark.parametrize("name", sorted(PAGED))
def test_more_tokens_free_than_asked_for_points_at_the_page_size(name):
    text, page = PAGED[name]
    rep = diag(text)
    run = run_of(rep)
    assert rep.engine == "sglang" and run.kind == "RUNTIME", run
    first = run.advice[0]
    assert "--page-size" in first["flags"], run.advice
    if page:
        seqs = next(a for a in run.advice if a["setting"] == "max_num_seqs")
        free = run.numbers["available_tokens"]
        assert seqs["value"] is not None and seqs["value"] <= free // page, seqs


def test_fewer_tokens_free_than_asked_for_is_the_pool_itself():
    run = run_of(diag("""
        RuntimeError: Decode out of memory. Try to lower your batch size.
        Try to allocate 96 tokens.
        Avaliable tokens: 12
    """))
    assert run.kind == "RUNTIME" and not any("--page-size" in a["flags"] for a in run.advice), run.advice


@pytest.mark.parametrize("text", [
    # MLX LM: the weights evaluated, then Metal ran out with nothing saying whether a request was running
    """
    Batch eval all weights: 1840ms
    libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)
    """,
    # mlx_lm.generate stopping during its start-up
    """
    Fetching 7 files: 100%|██████████| 7/7 [00:00<00:00, 22310.13it/s]
    Batch eval all weights: 2210ms
    Loading
    """,
])
def test_an_engine_estimate_does_not_model_is_told_so_plainly(text):
    rep = diag(text)
    run = run_of(rep)
    assert rep.engine == "mlx" and run.kind == "UNDETERMINED", run
    said = " ".join(a["why"] for a in run.advice)
    assert "--engine generic" not in said and "does not model" in said, said
