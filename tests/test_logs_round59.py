"""`vramdoctor logs` on the kinds of fault left open by the held-out rounds 46-58 (issue 6's note of stop 21), each
with logs of our own in other engines, versions and wordings (none of the held-out logs' own lines). The engines' lines
follow their sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, run_of

# --- SIGFPE: an arithmetic fault (an integer division by zero in a kernel's launch arithmetic), not memory ----------
# signal 8: the shell prints "Floating point exception (core dumped)", systemd "status=8/FPE", docker an exit code of
# 136 (128 + 8), TGI's launcher "signaled to shutdown with signal 8"


@pytest.mark.parametrize("lines", [
    ["main: build = 3120 (b1c2d3e4)", "llama_new_context_with_model: n_ctx      = 8192",
     "Floating point exception (core dumped)"],
    ["2024-05-01T10:00:00.100000Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0",
     "2024-05-01T10:00:04.200000Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to "
     "shutdown with signal 8 rank=0", "Error: ShardCannotStart"],
    ["May 01 10:00:00 box systemd[1]: Started tabby.service - TabbyAPI.",
     "May 01 10:00:09 box systemd[1]: tabby.service: Main process exited, code=dumped, status=8/FPE"],
    ["vllm-1  | INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
     "vllm-1 exited with code 136"],
    ["Title: Floating point exception when the prompt is longer than 2048 tokens", "",
     "INFO:     ExllamaV2 version: 0.1.5", "INFO:     Loading model: /models/command-r-exl2",
     "INFO:     Model successfully loaded."],
    ["Title: SIGFPE in llama-server with -c 16384 after a few turns", "",
     "main: build = 3120 (b1c2d3e4)", "llama_new_context_with_model: n_ctx      = 16384"],
])
def test_a_floating_point_exception_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "floating-point-exception"), (run.kind, run.code)


def test_a_floating_point_exception_asked_about_is_no_verdict():
    run = run_of(diag("\n".join(["Could this be a floating point exception rather than OOM?", "",
                                 "main: build = 3120 (b1c2d3e4)", "CUDA error: out of memory"])))
    assert run.code != "floating-point-exception", run.code


# --- a runtime library that could not be loaded: Windows' ERROR_MOD_NOT_FOUND as LoadLibrary, Node's dlopen (LM
# Studio's engine .node files) and Python's ctypes print it ------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["Failed to load the model",
     r"Failed to load LLM engine from path: D:\lms\extensions\backends\llama.cpp-win-x86_64-nvidia-cuda12-avx2-1.50.2"
     r"\llm_engine_cuda12.node. The specified module could not be found."],
    ["llama_cpp\\_ctypes_extensions.py\", line 67, in load_shared_library",
     r"OSError: [WinError 126] The specified module could not be found. Error loading "
     r"'C:\venv\Lib\site-packages\llama_cpp\lib\llama.dll' or one of its dependencies."],
    ["Title: LM Studio 0.3.20: Failed to load LLM engine with Vulkan runtime", "",
     "Error loading model.", "(Exit code: null). Please check settings and try loading the model again."],
])
def test_a_runtime_library_that_could_not_be_loaded_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "library-load-failed"), (run.kind, run.code)


# --- llama.cpp's K-shift abort: a slot's context filled and the cache of this model cannot be shifted (GGML_ABORT in
# llama-kv-cache.cpp, worded by version: "Deepseek2 does not support K-shift" (b3500), "The current context does not
# support K-shift", "The current KV cache / model configuration does not support K-shift") ---------------------------


@pytest.mark.parametrize("lines", [
    ["main: server is listening on http://0.0.0.0:8080 - starting the main loop",
     "slot launch_slot_: id  1 | task 811 | processing task",
     "slot update_slots: id  1 | task 811 | slot context shift, n_keep = 0, n_left = 4094, n_discard = 2047",
     "/app/src/llama-kv-cache.cpp:1016: The current KV cache / model configuration does not support K-shift",
     "Aborted (core dumped)"],
    ["time=2024-11-02T10:00:00.000Z level=INFO source=server.go:626 msg=\"llama runner started in 4.51 seconds\"",
     "[GIN] 2024/11/02 - 10:00:07 | 200 |  5.1s |       127.0.0.1 | POST     \"/api/chat\"",
     "/go/src/ollama/llama/llama.cpp:18012: The current context does not support K-shift",
     "SIGABRT: abort"],
    ["Title: llama-server aborts with 'Deepseek2 does not support K-shift' under load", "",
     "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
     "srv  update_slots: all slots are idle"],
])
def test_a_k_shift_the_cache_cannot_do_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "k-shift-unsupported"), (run.kind, run.code)


# --- growth per request in other wordings: the subject between the verb and its size, a size called fixed, growth by
# what each request adds, and a count of requests that took memory from one size to another ---------------------------

LLAMA_SERVING = ["main: server is listening on http://0.0.0.0:8080 - starting the main loop",
                 "srv  update_slots: all slots are idle"]


@pytest.mark.parametrize("said", [
    "The server grows RSS by a constant 90 MiB on each request and keeps it.",
    "Title: llama-server leaks a fixed ~64 MiB of RSS per request with hybrid models",
    "Title: Mamba models leak about 40 MB host memory with every request",
    "Each request adds a fixed ~50 MiB to the resident memory of the server.",
    "In my test 30 requests took RSS from 2.1 GiB to 5.9 GiB.",
    "Running the benchmark, 500 requests pushed VRAM from 18 GB to 23 GB.",
])
def test_growth_per_request_in_other_wordings_is_a_leak(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_SERVING])))
    assert run.kind == "LEAK", (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "Each request adds about 50 MiB of KV cache while it runs, which is expected.",
    "Setting -c 8192 took VRAM from 6 GB to 9 GB.",
    "Would 30 requests take RSS from 2 GiB to 6 GiB?",
])
def test_what_one_request_or_one_setting_uses_is_no_leak(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_SERVING])))
    assert run.kind != "LEAK", (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "Memory increases by 2 GB with 8192 tokens of context.",
    "A 30000 tokens prompt took VRAM from 20 GB to 23 GB.",
])
def test_a_count_of_tokens_is_one_requests_size_not_a_span_of_work(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_SERVING])))
    assert run.kind != "LEAK", (run.kind, run.code)


@pytest.mark.parametrize("said, leak", [
    ("Loading took VRAM from 1 GB to 14 GB, then it served fine for two days.", False),
    ("Start-up pushed RSS from 1 GB to 9 GB, and it stayed there for a week.", False),
    ("VRAM usage went from 14 GB to 22 GB over three days of the same traffic.", True),
    ("RSS 2.1G to 7.9G overnight, same traffic.", True),
])
def test_a_rise_in_words_needs_its_own_span_of_work_or_time(said, leak):
    run = run_of(diag("\n".join([said, "", *LLAMA_SERVING])))
    assert (run.kind == "LEAK") == leak, (run.kind, run.code)


# --- ROCm's GPU page fault as the HSA runtime prints it ("Memory access fault by GPU node-N (Agent handle: ...) on
# address ...", HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION): AMD's illegal memory access, also cut and in words ------


@pytest.mark.parametrize("lines", [
    [*LLAMA_SERVING, "slot update_slots: id  1 | task 220 | prompt processing progress, n_past = 4096",
     "Memory access fault by GPU node-2 (Agent handle: 0x55d1c0a0) on address 0x7ef100000. Reason: Page not present "
     "or supervisor privilege.", "Aborted (core dumped)"],
    [*LLAMA_SERVING, "slot update_slots: id  0 | task 12 | new prompt, n_ctx_slot = 32768",
     "Memory access fault by GPU node-1 (Ag"],
    ["time=2025-03-01T10:00:00.000Z level=INFO source=server.go:626 msg=\"llama runner started in 6.02 seconds\"",
     ":0:rocdevice.cpp            :3006: 1234567890 us: Callback: Queue 0x7f00 aborting with error : "
     "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal "
     "address. code: 0x29"],
    ["Title: vLLM on MI210 crashes with a memory access fault after a few prompts", "",
     "INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
     "INFO:     Application startup complete."],
])
def test_rocms_memory_access_fault_is_not_memory_running_out(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "illegal-memory-access"), (run.kind, run.code)


# --- growth in yet other wordings: each step "making" memory bump by a size in words, memory growing "in ~200 MB
# chunks", "enormous (and increasing) amounts of RAM", an out of memory "over time" ---------------------------------


@pytest.mark.parametrize("said", [
    "Every request makes the server's VRAM usage bump up by a few hundred megabytes.",
    "Each completion is making RSS jump by 2 GB.",
    "I can watch the VRAM grow in ~200 MB steps while the benchmark runs.",
    "The runner uses enormous (and growing) amounts of host memory with prompt caching on.",
    "Title: vLLM OOM over time with prefix caching",
    "Title: Out of memory over time on llama-server with -np 4",
])
def test_growth_in_yet_other_wordings_is_a_leak(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_SERVING])))
    assert run.kind == "LEAK", (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "Memory grows in 2 GB chunks while the model loads, then stays flat.",
    "Would VRAM grow in chunks like this with paged attention?",
    "It does not OOM over time, only with one long prompt.",
])
def test_growth_at_start_asked_or_denied_is_no_leak(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_SERVING])))
    assert run.kind != "LEAK", (run.kind, run.code)


# --- a report in Chinese above the log it pastes: its sentences (the first person, clauses with full-width marks) are
# the user's, and join the log; a traceback cut inside TurboMind's weight creation is the weights -------------------

TM_CUT = [
    "Traceback (most recent call last):",
    '  File "/usr/local/bin/lmdeploy", line 8, in <module>',
    "    sys.exit(run())",
    '  File "/usr/local/lib/python3.10/site-packages/lmdeploy/serve/async_engine.py", line 210, in _build_turbomind',
    "    self.engine = tm.TurboMind.from_pretrained(",
    '  File "/usr/local/lib/python3.10/site-packages/lmdeploy/turbomind/turbomind.py", line 118, in __init__',
    "    self.model_comm = self._from_hf(model_source=model_source,",
    '  File "/usr/local/lib/python3.10/site-packages/lmdeploy/turbomind/turbomind.py", line 240, in _from_hf',
    "    self._create_weight(model_comm)",
    '  File "/usr/local/lib/python3.10/site-packages/lmdeploy/turbomind/turbomind.py", line 160, in _create_weight',
]


@pytest.mark.parametrize("words", [
    ["Title: 用lmdeploy部署Qwen2-72B，两张A100会出现CUDA out of memory，换成四张卡就正常", "",
     "我用下面的命令启动服务，加载到一半就报错了。", "",
     "lmdeploy serve api_server /models/Qwen2-72B-Instruct --backend turbomind --tp 2"],
    ["Title: OOM with TurboMind on two GPUs for a 70B model", "",
     "lmdeploy serve api_server /models/Llama-3-70B --backend turbomind --tp 2"],
])
def test_a_report_out_of_memory_over_a_traceback_cut_in_turbominds_weights_is_the_weights(words):
    rep = diag("\n".join([*words, "", *TM_CUT, "    future.result()"]))
    run = run_of(rep)
    assert len(rep.runs) == 1, [(r.first_line, r.last_line) for r in rep.runs]
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.candidates)


@pytest.mark.parametrize("line, user", [
    ("我用两张卡部署70B模型，启动的时候报显存不足。", True),
    ("部署Qwen2-72B时，服务启动后，一发请求就挂了。", True),
    ("2024-07-01 10:00:00,123 - lmdeploy - ERROR - 模型加载失败，请检查路径。", False),
    ("[TM][INFO] 加载权重完成", False),
])
def test_chinese_sentences_are_the_users_words(line, user):
    from vramdoctor.logs.authorship import user_words
    assert user_words(line) == user


# --- "OOM" as a verb: OOMing, OOMed, OOMs, OOM'd, OOM-ing, and "OOMs at batch size 4" ------------------------------


@pytest.mark.parametrize("said", [
    "Title: [Bug]: server OOMing randomly under load",
    "It OOMed at the third request with a 16k prompt.",
    "With batch size 8 it OOMs while serving, 4 is fine.",
    "The server OOM'd after about twenty requests.",
])
def test_oom_as_a_verb_is_out_of_memory(said):
    run = run_of(diag("\n".join([said, "", "INFO:     Application startup complete."])))
    assert run.kind not in ("NONE", "NOT_OOM"), (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "How do I avoid OOMs when serving with a long context?",
    "It never OOMed with 0.5.3.",
])
def test_oom_as_a_verb_supposed_or_denied_is_no_failure(said):
    run = run_of(diag("\n".join([said, "", "INFO:     Application startup complete."])))
    assert run.kind == "NONE", (run.kind, run.code)


def test_serving_the_model_is_no_request():
    lines = ["It runs out of memory while serving the model with vllm serve.", "",
             "INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
             "INFO 05-01 10:00:09 [gpu_model_runner.py:1500] Loading model weights took 14.2 GiB"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind != "RUNTIME", (run.kind, run.code, run.phase_source)


# --- TensorRT-LLM's KV pool below one sequence, its assertion cut short (in a title, or a line cut by the paste) ----

TRT_POOL = ["[TensorRT-LLM][INFO] Loaded engine size: 7683 MiB",
            "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 120.00 MiB for execution context memory.",
            "[TensorRT-LLM][INFO] Max tokens in paged KV cache: 256. Allocating 33554432 bytes."]


@pytest.mark.parametrize("lines", [
    ["Title: 500 on loadmodel: maxTokensInPagedKvCache (256) must be large enough", "", *TRT_POOL,
     "ERROR Unhandled exception in /inferences/server/loadmodel, what(): [TensorRT-LLM][ERROR] Assertion failed: maxTo"],
    [*TRT_POOL, "[TensorRT-LLM][ERROR] Assertion failed: maxTokensInPagedKvCache (256) must be large enough"],
])
def test_trtllms_pool_below_one_sequence_cut_short_is_the_kv_cache(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)


# --- a kernel's check on tensor shapes, and a kernel with no build for a shape (FlashInfer's dispatch): not memory ---

SGLANG_CAPTURE = ["[2025-06-01 10:00:00 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, "
                  "avail mem=60.11 GB, mem usage=15.27 GB.",
                  "[2025-06-01 10:00:02 TP0] Capture cuda graph begin. This can take up to several minutes."]


@pytest.mark.parametrize("lines, code", [
    (["Title: [Bug] Capture cuda graph failed: CHECK_EQ(x.size(1), w.size(0)) failed. 4096 vs 5120", "",
      *SGLANG_CAPTURE], "shape-mismatch"),
    ([*SGLANG_CAPTURE, "[2025-06-01 10:00:03 TP0] Scheduler hit an exception: Traceback (most recent call last):",
      "RuntimeError: CHECK_EQ(q.size(2), k.size(2)) failed. 128 vs 96"], "shape-mismatch"),
    (["Title: failed to dispatch head_dim 80", "", *SGLANG_CAPTURE], "kernel-config-unsupported"),
    ([*SGLANG_CAPTURE, "RuntimeError: BatchPrefillWithPagedKVCache failed to dispatch group_size 3"],
     "kernel-config-unsupported"),
    ([*SGLANG_CAPTURE, "RuntimeError: Unsupported head_dim: 72"], "kernel-config-unsupported"),
])
def test_a_shape_check_or_a_kernel_without_the_shape_is_not_memory(lines, code):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", code), (run.kind, run.code)


def test_a_check_on_memory_is_left_to_the_words_around_it():
    lines = [*SGLANG_CAPTURE, "RuntimeError: CHECK_EQ(workspace.size(0), pool_bytes) failed. 0 vs 1048576"]
    run = run_of(diag("\n".join(lines)))
    assert run.code not in ("shape-mismatch", "kernel-config-unsupported"), (run.kind, run.code)


# --- a person's paragraph: the step is read from the sentence that holds the out of memory, not from another sentence
# of it; and one request by its prompt, or a long-context prefill, is serving ---------------------------------------

VLLM_UP = ["INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.11.0"]


@pytest.mark.parametrize("said", [
    "A single chat request whose prompt exceeds ~150K tokens brings down the whole engine (CUDA OOM in the attention "
    "path). That is far below the max-model-len the KV cache reports as provisioned.",
    "Title: CUDA OOM during long-context prefill with Qwen3-235B, TP=8",
    "One completion request with a 200k-token input kills the server with out of memory. The KV cache was sized at "
    "600,000 tokens at startup.",
])
def test_one_long_request_or_its_prefill_is_serving_whatever_another_sentence_names(said):
    run = run_of(diag("\n".join([said, "", *VLLM_UP])))
    assert run.kind in ("RUNTIME", "UNDETERMINED"), (run.kind, run.code)
    assert run.kind == "RUNTIME" or "RUNTIME" in run.candidates, (run.kind, run.candidates)


def test_another_sentence_of_the_paragraph_names_no_step():
    said = ("The engine dies with CUDA out of memory after a while. Loading the weights takes 40 GB and the KV cache "
            "gets the rest.")
    run = run_of(diag("\n".join([said, "", *VLLM_UP])))
    assert run.kind not in ("KV_CAPACITY", "WEIGHTS"), (run.kind, run.code)


def test_an_exceptions_own_sentences_stay_one_message():
    line = ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
            "initializing the engine.")
    run = run_of(diag("\n".join([*VLLM_UP, line])))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)


def test_a_programs_message_of_several_sentences_stays_one():
    line = ("thread 'main' panicked at 'Unable to warmup model: Generation(\"Allocation on device 0 would exceed allowed "
            "memory. (out of memory)\\nCurrently allocated     : 20.1 GiB\\nRequested               : 3.2 GiB\")'")
    run = run_of(diag("\n".join(["2024-01-01T10:00:00.000000Z  INFO text_generation_launcher: Starting shard rank=0",
                                 line])))
    assert run.kind == "WARMUP", (run.kind, run.code)


# --- pinned host memory llama.cpp could not get is optional (it goes on with pageable memory), also with a comma for
# the decimal mark as a user types it, and where only the title names it -------------------------------------------

LLAMA_LOAD = ["build: 4100 (a1b2c3d4) with cc (GCC) 13.2.0 for x86_64-linux-gnu",
              "llm_load_tensors: offloaded 20/41 layers to GPU",
              "llm_load_tensors:        CUDA0 buffer size =  6120.00 MiB",
              "main: server is listening on 127.0.0.1:8080 - starting the main loop"]


@pytest.mark.parametrize("title", [
    "Title: Bug: ggml_cuda_host_malloc: failed to allocate 2048,00 MiB of pinned memory: invalid argument",
    "Title: WARNING: failed to allocate 512,50 MB of pinned memory: out of memory on every start",
])
def test_pinned_memory_llama_cpp_could_not_get_is_no_failure(title):
    run = run_of(diag("\n".join([title, "", *LLAMA_LOAD])))
    assert run.kind == "NONE", (run.kind, run.code)


def test_a_titles_quote_of_a_warning_the_engine_goes_on_from_states_no_failure():
    title = "Title: Bug: ggml_cuda_host_malloc: failed to allocate 1024,00 MiB of pinned memory: invalid argument"
    said = "It says this on every start, but the server keeps working fine."
    run = run_of(diag("\n".join([title, "", said, "", *LLAMA_LOAD])))
    assert run.kind == "NONE", (run.kind, run.code)


# --- a read the disk or file system failed (EIO) is no memory running out -------------------------------------------


@pytest.mark.parametrize("lines", [
    [LLAMA_LOAD[0], "llama_model_load: error loading model: read error: Input/output error",
     "llama_load_model_from_file: failed to load model"],
    ["INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
     "OSError: [Errno 5] Input/output error: '/mnt/nfs/models/model-00003-of-00008.safetensors'"],
    ["time=2025-01-01T10:00:00.000Z level=INFO source=server.go:626 msg=\"loading model\"",
     "Error: llama runner process has terminated: error loading model: read error: Input/output error"],
])
def test_a_read_the_disk_failed_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "io-error"), (run.kind, run.code)


# --- a server's own memory guard stopping a request ("Memory limit exceeded during prefill", "memory 30.1GB exceeds
# ceiling 30.0GB"): memory ran out for that request, while serving ---------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["> Error: Memory limit exceeded during chunked prefill at 30720/41000 tokens: 30.2GB exceeds ceiling 30.0GB"],
    ["mlxserve.scheduler - WARNING - Prefill force-stopped at 9000 tokens: memory 61.0GB exceeds ceiling 60.0GB",
     "mlxserve.server - ERROR - Error during chat streaming: Memory limit exceeded during prefill"],
])
def test_a_memory_guard_stopping_a_requests_prefill_is_serving(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- a wrapper's verdict of a load in the line of its error ("could not load model (no success): ...OutOfMemoryError")


@pytest.mark.parametrize("line", [
    '{"error":{"code":500,"message":"could not load model (no success): Unexpected err=OutOfMemoryError(\'CUDA out of '
    'memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of 7.79 GiB of which 12.50 MiB is free.\')"}}',
    "ERR could not load model: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB.",
])
def test_a_wrappers_could_not_load_model_with_its_out_of_memory_is_the_weights(line):
    run = run_of(diag(line))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


# --- running text a person wrote, in any case and ending, is no failure the engine got past at start ---------------


@pytest.mark.parametrize("said", [
    "while sending it a long document to summarise it results in an OOM and the whole server goes down:",
    "sending the second batch of prompts ends in out of memory on both of the gpus every time",
])
def test_a_persons_running_text_of_an_out_of_memory_above_serving_lines_is_no_recovery(said):
    lines = [said, "", "2025-06-29T05:16:59.546744Z  INFO mistralrs_core::engine::logger: Throughput (T/s) 1007.00, "
                       "Prefix cache hitrate 90.00%, 1 running, 0 waiting",
             "2025-06-29T05:17:04.546821Z  INFO mistralrs_core::engine::logger: Throughput (T/s) 8.40, Prefix cache "
             "hitrate 90.00%, 1 running, 0 waiting"]
    run = run_of(diag("\n".join(lines)))
    assert run.code != "recovered-at-start", (run.kind, run.code)


@pytest.mark.parametrize("line, prose", [
    ("while submitting a web search result for processing results in an OOM with high prefix cache hit rates:", True),
    ("Memory access fault by GPU node-1 (Agent handle: 0x5a6b) on address 0x7f00. Reason: Page not present.", False),
    ("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.1 GiB already allocated)",
     False),
    ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1024.00 MiB on device 0: cudaMalloc failed: out of memory",
     False),
])
def test_running_text_is_told_from_a_programs_message(line, prose):
    from vramdoctor.logs.authorship import prose_like
    assert prose_like(line) == prose


# --- SGLang's recurrent-state (Mamba) pool with no slot for an admitted request: a pool full under load, with its own
# knob; and a kernel that did not build at start-up: not memory ------------------------------------------------------


@pytest.mark.parametrize("err", [
    "AssertionError: Not enough space for mamba ping pong idx, try to increase --mamba-full-memory-ratio.",
    "RuntimeError: Not enough space for mamba cache, try to increase --max-mamba-cache-size.",
])
def test_sglangs_mamba_pool_without_a_slot_is_serving_with_its_own_knob(err):
    lines = ["[2026-01-01 10:00:00 TP0] Prefill batch, #new-seq: 2, #running-req: 3, #queue-req: 1, mamba usage: 0.91",
             "[2026-01-01 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):", err]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("RUNTIME", "mamba-pool-exhausted"), (run.kind, run.code)
    assert "mamba" in " ".join(a["why"] for a in run.advice)


@pytest.mark.parametrize("err", [
    "(EngineCore_0 pid=1) ERROR 01-01 10:00:00 [core.py:700] subprocess.CalledProcessError: Command '['ninja', '-v', "
    "'-C', '/root/.cache/flashinfer/90/cached_ops']' returned non-zero exit status 1.",
    "RuntimeError: Error building extension 'sampling_ops'",
    "ninja: build stopped: subcommand failed.",
])
def test_a_kernel_that_did_not_build_is_not_memory(err):
    run = run_of(diag("\n".join(["INFO 01-01 10:00:00 [api_server.py:1043] vLLM API server version 0.10.1", err])))
    assert (run.kind, run.code) == ("NOT_OOM", "kernel-build-failed"), (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "Wired memory rises from under ~60 GB used to ~120 GB+ over a few hours of chat traffic.",
    "RSS went from about 3 GB resident to over 11 GB after 2,000 requests.",
])
def test_a_rise_between_qualified_sizes_over_a_span_is_a_leak(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_SERVING])))
    assert run.kind == "LEAK", (run.kind, run.code)


@pytest.mark.parametrize("line", [
    "(Worker_TP3_EP3 pid=4411) ERROR 07-31 12:11:49 [multiproc_executor.py:1018] torch.OutOfMemoryError: CUDA out of "
    "memory. Tried to allocate 12.00 GiB.",
    "(Worker_DP1_TP0 pid=991) INFO 07-31 12:10:02 [gpu_model_runner.py:2100] Model loading took 40.1 GiB",
])
def test_vllms_workers_named_by_their_parallel_ranks_are_vllm(line):
    assert diag(line).engine == "vllm"


# --- host memory that rose until the process died, in Chinese, while the model loaded: the weights in host RAM -------

HF_LOADING = ["loading model.layers.30.mlp.experts.weight to cuda:1", "loading model.layers.31.mlp.experts.weight to cuda:1"]


@pytest.mark.parametrize("said", [
    "加载模型的时候内存一直上涨，到第31层时进程被杀了。",
    "模型加载过程中内存占用过高，直接崩溃退出。",
])
def test_host_memory_that_rose_until_death_while_loading_in_chinese_is_the_weights(said):
    run = run_of(diag("\n".join([*HF_LOADING, said])))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "如果内存占用过高会不会直接崩溃？",
    "内存占用过高的话，进程会被杀吗？",
])
def test_host_memory_death_asked_about_in_chinese_is_no_failure(said):
    run = run_of(diag("\n".join([*HF_LOADING, said])))
    assert run.kind not in ("WEIGHTS", "RUNTIME"), (run.kind, run.code)


# --- out of memory and an illegal memory access as people write them: hyphenated, with a word between, as CUDA's enum


@pytest.mark.parametrize("said", [
    "Loading the 14B with a 32k context ends in an out-of-memory error.",
    "Title: Out-of-memory on the second request with -np 2",
])
def test_a_hyphenated_out_of_memory_is_out_of_memory(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_LOAD])))
    assert run.kind not in ("NONE", "NOT_OOM"), (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "Title: Illegal CUDA memory access with an FP8 MoE model under load",
    "It crashes with cudaErrorIllegalAddress on the first real request after graph capture.",
    "The engine dies with an illegal GPU memory access in the MoE forward.",
])
def test_an_illegal_memory_access_as_people_write_it_is_not_memory(said):
    run = run_of(diag("\n".join([said, "", *VLLM_UP])))
    assert (run.kind, run.code) == ("NOT_OOM", "illegal-memory-access"), (run.kind, run.code)


# --- more of the report's words: NCCL timed out, a step the failure came after quoted above the engine's line, a
# request range, a conversation, a request by its tokens; node-llama-cpp's refusal of a context -------------------


@pytest.mark.parametrize("said", [
    "Requests come in but never return, GPU utilisation sits at 100%, and in the end it is an NCCL timeout.",
    "Title: Decode hangs, then NCCL timed out on rank 3",
])
def test_an_nccl_timeout_in_words_is_not_memory(said):
    run = run_of(diag("\n".join([said, "", "[2025-01-01 10:00:00 TP0] Decode batch. #running-req: 4, #token: 900, "
                                               "token usage: 0.01, gen throughput (token/s): 0.00, #queue-req: 0"])))
    assert (run.kind, run.code) == ("NOT_OOM", "nccl-error"), (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "What happened, about a minute after `API server is ready to serve`, on the first long prompt:",
    "This comes some seconds after 'Application startup complete' with one user:",
])
def test_a_step_the_words_above_the_engines_line_say_it_came_after_is_a_floor(said):
    lines = [said, "", 'File "engine/kernels/scan.py", line 88, in chunk_fwd', "    y = torch.empty_like(x)",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 180.00 MiB."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("said", [
    "After 10 - 12 responses/prompts in the chat I get CUDA out of memory.",
    "Title: CUDA out of memory - during a conversation",
    "With an input of 17,000 tokens into generate() I get this Metal error.",
])
def test_serving_in_yet_other_words_places_an_out_of_memory(said):
    lines = [said, "", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("line", [
    "Error: InsufficientMemoryError: A context size of 8192 with 2 sequences is too large for the available VRAM",
    "Failed to load model: A context size of 32768 is too large for the available VRAM",
])
def test_node_llama_cpps_refusal_of_a_context_is_the_kv_cache(line):
    run = run_of(diag(line))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)


@pytest.mark.parametrize("heading, value", [("**Ollama version**", "0.3.0"), ("**Which version of LM Studio?**", "0.3.13"),
                                            ("**llama.cpp build**:", "b4500")])
def test_a_bold_template_fields_value_as_the_last_line_is_no_cut_log(heading, value):
    lines = ["Title: The model runs on both CPU and GPU", "", "**What is the issue?**",
             "I see that only 42/81 layers are offloaded and the replies are slow.", "", "**OS**", "Windows11", "",
             heading, value]
    run = run_of(diag("\n".join(lines)))
    assert run.code != "log-cut-off", (run.kind, run.code)


# --- the shell's "Killed" after an engine shut itself down is no OOM killer; a bare AssertionError on a condition that
# is not about memory is no memory running out ------------------------------------------------------------------------

V1_ASSERT = ["ERROR 02-17 20:51:49 [core.py:210]   File \"/x/vllm/v1/attention/backends/flash_attn.py\", line 156, in "
             "__init__",
             "ERROR 02-17 20:51:49 [core.py:210]     assert is_fa_version_supported(self.fa_version)",
             "ERROR 02-17 20:51:49 [core.py:210] AssertionError",
             "CRITICAL 02-17 20:51:49 [core_client.py:158] Got fatal signal from worker processes, shutting down. See "
             "stack trace above for root cause issue.", "Killed"]
SGLANG_ASSERT = ['  File "/x/sglang/srt/layers/attention/sparse_mla.py", line 262, in build_metadata',
                 "    assert active_topk_width >= cm.max_seq_len // self.compress_ratio", "AssertionError",
                 "[2025-01-01 10:00:05] Received sigquit from a child process. It usually means the child failed.",
                 "Killed"]


@pytest.mark.parametrize("lines", [V1_ASSERT, SGLANG_ASSERT])
def test_a_bare_assertion_on_a_condition_not_about_memory_then_the_engines_own_kill_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "assertion-failed"), (run.kind, run.code)


def test_an_assertion_on_the_pools_blocks_is_left_to_the_evidence():
    lines = ['  File "/x/vllm/worker/worker.py", line 300, in raise_if_cache_size_invalid',
             "    assert num_gpu_blocks > 0", "AssertionError"]
    run = run_of(diag("\n".join(lines)))
    assert run.code != "assertion-failed", (run.kind, run.code)


def test_a_kill_the_log_does_not_tie_to_the_engines_shutdown_is_still_a_kill():
    lines = ["INFO 02-17 20:51:00 [gpu_model_runner.py:1500] Starting to load model /m/Qwen2-72B...", "Killed"]
    run = run_of(diag("\n".join(lines)))
    assert run.code in ("host-oom-kill", "weights-exceed-system-memory"), (run.kind, run.code)


@pytest.mark.parametrize("said, leak", [
    ("Title: [BUG] Server does not release the GPU memory after encountering OOM", False),
    ("VRAM is not freed after the crash of a request, so the next one fails too.", False),
    ("VRAM is not freed after each request and keeps growing for days.", True),
])
def test_memory_held_after_a_failure_is_no_leak(said, leak):
    lines = [said, "", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind == "LEAK") == leak, (run.kind, run.code)


# --- a code line under a traceback's frame is the frame's (not "the message after the failure"); a closing markdown
# fence is no line cut partway; growth as "a slow increase in GPU memory usage" ------------------------------------


def test_the_code_line_under_a_frame_is_read_with_the_frames():
    lines = ["Title: [V1] OOM in the sampler warm-up", "",
             "INFO 03-14 02:45:05 [gpu_model_runner.py:1434] Graph capturing finished in 22 secs, took 0.64 GiB",
             "ERROR 03-14 02:45:06 [core.py:337] EngineCore hit an exception: Traceback (most recent call last):",
             'ERROR 03-14 02:45:06 [core.py:337]   File "/x/vllm/v1/worker/gpu_model_runner.py", line 1292, in '
             "_dummy_sampler_run",
             "ERROR 03-14 02:45:06 [core.py:337]     sampler_output = self.model.sample("]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WARMUP", (run.kind, run.code, run.phase_source)


def test_a_closing_code_fence_is_no_line_cut_partway():
    lines = ["Is 19 GB left for the KV cache enough for 128 concurrent requests?", "", "```bash",
             "python -m sglang.launch_server --model-path /m \\", "    --mem-fraction-static 0.7 \\",
             "    --cuda-graph-max-bs 128", "```"]
    run = run_of(diag("\n".join(lines)))
    assert run.code != "log-cut-off", (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "The service is experiencing a slow increase in GPU memory usage under steady traffic.",
    "We see a gradual growth of RSS over the week.",
])
def test_growth_named_as_a_noun_before_what_grows_is_a_leak(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_SERVING])))
    assert run.kind == "LEAK", (run.kind, run.code)


# --- a command the user pasted above the engine's output is the report's words: the title and sentences above it join
# the run it starts ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command, start", [
    ("$ python -m aphrodite.endpoints.openai.api_server --model TheBloke/Llama-2-70B-AWQ -q awq",
     "INFO 10-06 19:25:44 aphrodite_engine.py:72] Initializing an LLM engine with config: model='TheBloke/Llama-2-70B-AWQ'"),
    ("$ vllm serve Qwen/Qwen2.5-72B-Instruct-AWQ --max-model-len 32768",
     "INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5"),
])
def test_the_title_and_a_pasted_command_join_the_engines_run(command, start):
    lines = ["Title: CUDA illegal memory access when loading a 70B AWQ model with RoPE scaling", "",
             "It works for the 13B, not for the 70B.", "```", command, start, "Traceback (most recent call last):",
             '  File "/x/engine/worker.py", line 120, in load_model']
    rep = diag("\n".join(lines))
    assert len(rep.runs) == 1, [(r.first_line, r.last_line) for r in rep.runs]
    assert (run_of(rep).kind, run_of(rep).code) == ("NOT_OOM", "illegal-memory-access")


def test_a_traceback_cut_in_turbominds_process_weight_under_an_out_of_memory_title_is_the_weights():
    lines = ["Title: [Bug] Qwen2-VL-7B on 2 x 3090, CUDA OOM error", "", *TM_CUT[:8],
             "[rank0]:     for _ in e.map(self.model_comm.process_weight,"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


# --- a sentence that begins with a program's name is no pasted command ------------------------------------------------


@pytest.mark.parametrize("line, command", [
    ("llama-server just hangs when the draft model's KV cache allocation fails (OOM).", False),
    ("vllm crashes when the KV cache allocation fails with OOM on the second GPU.", False),
    ("llama-server -m /m/qwen.gguf -c 50000 -ngl 99", True),
    ("vllm serve Qwen/Qwen2.5-7B --max-model-len 8192", True),
])
def test_a_sentence_that_begins_with_a_programs_name_is_no_command(line, command):
    from vramdoctor.logs.knowledge import COMMAND
    assert bool(COMMAND.match(line)) == command


def test_the_kv_cache_a_users_sentence_names_with_the_oom_places_it():
    line = "llama-server just won't answer and hangs when the draft model's KV cache allocation fails (OOM)."
    run = run_of(diag(line))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)


# --- a user's table of context sizes that ran below some size and ran out of memory from it up: the KV cache ----------


@pytest.mark.parametrize("title, rows", [
    ("Title: Insufficient VRAM in split for model and cache (exllamav3)",
     ["- 12k context: 21342MiB used", "- 21k context: 23194MiB used", "- 22k context: OOM"]),
    ("Title: llama-server runs out of memory with a larger -c",
     ["-c 8192 -> fine, 7.1 GB used", "-c 16384 -> CUDA out of memory"]),
    ("Title: vLLM OOM depending on max_model_len",
     ["max_model_len 16384: ok", "max_model_len 32768: fails with out of memory"]),
])
def test_a_context_table_that_runs_out_only_from_some_size_up_is_the_kv_cache(title, rows):
    run = run_of(diag("\n".join([title, "", *rows])))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code, run.phase_source)


def test_a_context_table_that_runs_out_at_every_size_is_not_the_kv_cache():
    rows = ["- 2k context: OOM", "- 4k context: OOM"]
    run = run_of(diag("\n".join(["Title: Insufficient VRAM in split for model and cache", "", *rows])))
    assert run.kind != "KV_CAPACITY", (run.kind, run.code)


# --- a start-up that stops partway into an engine's memory sentence is cut before its cause, not a run that did fine --

LLAMA_CTX = ["build: 4404 (0827b2c1) with cc (GCC) 13.2.0 for x86_64-linux-gnu",
             "llm_load_tensors: offloaded 33/33 layers to GPU",
             "llm_load_tensors:        CUDA0 model buffer size =  7605.33 MiB",
             "llama_new_context_with_model: n_ctx         = 131072",
             "llama_new_context_with_model: flash_attn    = 0"]


@pytest.mark.parametrize("last", [
    "ggml_backend_cuda_buffer_type_",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on devi",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on device 0: cudaMalloc fai",
])
def test_a_start_up_cut_partway_into_an_allocation_message_is_no_all_clear(last):
    run = run_of(diag("\n".join([*LLAMA_CTX, last])))
    assert run.kind != "NONE", (run.kind, run.code)


# --- llama.cpp prints "offloaded N/M layers to GPU" before it allocates the weights' buffers: an out of memory right
# after it is the weights ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["build: 5600 (a1b2c3d4) with cc (GCC) 13.2.0 for x86_64-linux-gnu",
     "load_tensors: loading model tensors, this can take a while... (mmap = true)",
     "load_tensors: offloading 80 repeating layers to GPU", "load_tensors: offloaded 81/81 layers to GPU",
     "CUDA error: out of memory", "  current device: 0, in function ggml_backend_cuda_buffer_set_tensor at "
     "/app/ggml/src/ggml-cuda/ggml-cuda.cu:612"],
    ["Welcome to KoboldCpp - Version 1.60", "llm_load_tensors: offloading 40 repeating layers to GPU",
     "llm_load_tensors: offloaded 40/41 layers to GPU", "CUDA error 2 at ggml-cuda.cu:9120: out of memory",
     "current device: 0"],
])
def test_an_out_of_memory_right_after_the_offload_count_is_the_weights(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


# --- llama-server refusing a prompt too big for the KV size is a refusal; "Nothing crashes" states no failure ----------


def test_llama_servers_prompt_too_big_for_the_kv_size_is_a_refused_request_not_an_unknown_error():
    lines = [*LLAMA_SERVING, "decode: failed to find a memory slot for batch of size 512",
             "srv    send_error: task id = 77, error: Input prompt is too big compared to KV size. Please try increasing "
             "KV size."]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("RUNTIME", "kv-cache-full"), (run.kind, run.code)


@pytest.mark.parametrize("said", ["Is it normal that it takes almost all VRAM while idle? Nothing crashes.",
                                  "Memory use is high, but nothing fails and nothing hangs."])
def test_nothing_failing_states_no_failure(said):
    lines = [said, "", *VLLM_UP, "INFO:     Application startup complete."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "NONE", (run.kind, run.code)


# --- the cache that failed, where the memory the log shows would have held it: the context is still what to lower ----


@pytest.mark.parametrize("lines, flag", [
    (["build: 4404 (0827b2c1) with cc (GCC) 13.2.0 for x86_64-linux-gnu",
      "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 4090) - 23800 MiB free",
      "llm_load_tensors: offloaded 33/33 layers to GPU", "llm_load_tensors:        CUDA0 model buffer size =  4403.49 MiB",
      "llama_new_context_with_model: n_ctx         = 65536",
      "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of memory",
      "llama_kv_cache_init: failed to allocate buffer for kv cache"], "-c"),
    (['time=2024-11-02T08:00:10.001Z level=INFO source=memory.go:343 msg="offload to cuda" layers.requested=-1 '
      'layers.model=33 layers.offload=33 memory.available="[23.5 GiB]" memory.required.full="20.1 GiB"',
      'time=2024-11-02T08:00:10.010Z level=INFO source=server.go:388 msg="starting llama server" cmd="/usr/lib/ollama/'
      'runners/cuda_v12/ollama_llama_server --model /m/blob --ctx-size 65536 --batch-size 512 --n-gpu-layers 33"',
      "llm_load_tensors:        CUDA0 buffer size =  4403.49 MiB", "llama_new_context_with_model: n_ctx      = 65536",
      "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of memory",
      "llama_kv_cache_init: failed to allocate buffer for kv cache"], "num_ctx"),
])
def test_a_cache_the_memory_shown_would_hold_that_failed_still_gets_a_shorter_context(lines, flag):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)
    assert any(a["flags"].startswith(flag) for a in run.advice), [a["flags"] for a in run.advice]


# --- TGI's router span of a batch it serves is a request, whatever line the PyTorch error came on -------------------


@pytest.mark.parametrize("span", ["batch{batch_size=4}:decode:decode{size=4}",
                                  "batch{batch_size=1}:prefill:prefill{id=12 size=1}:prefill{id=12 size=1}"])
def test_tgis_router_batch_span_out_of_memory_is_serving(span):
    lines = ["torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB.", "",
             f"2024-03-01T10:00:00.000000Z ERROR {span}: text_generation_client: router/client/src/lib.rs:33: Server "
             "error: CUDA out of memory. Tried to allocate 64.00 MiB."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


# --- a request's own lines before a compute buffer that failed: a request's image or prompt, not the warm-up ---------


@pytest.mark.parametrize("lines", [
    [*LLAMA_SERVING, "srv  process_chun: processing image...",
     "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4514.05 MiB on device 0: cudaMalloc failed: out of memory",
     "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 4733337600"],
    ['time=2025-05-18T08:36:00.000Z level=INFO source=server.go:630 msg="llama runner started in 6.52 seconds"',
     'time=2025-05-18T08:36:01.003Z level=DEBUG source=cache.go:136 msg="loading cache slot" id=0 cache=57 prompt=1227 '
     "used=20 remaining=1207",
     "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1953.40 MiB on device 1: cudaMalloc failed: out of memory",
     "ggml_gallocr_reserve_n: failed to allocate CUDA1 buffer of size 2048295936"],
])
def test_a_compute_buffer_that_failed_after_a_requests_own_lines_is_serving(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


def test_llama_servers_own_tagged_line_of_a_request_just_before_the_failure_is_serving():
    lines = ["srv  process_chun: processing image...",
             "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4514.05 MiB on device 0: cudaMalloc failed: out of memory",
             "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 4733337600"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("line", ["srv  update_slots: all slots are idle", "slot launch_slot_: id  0 | task 12 | processing task",
                                  "que    start_loop: processing new tasks"])
def test_llama_servers_tagged_lines_are_a_programs(line):
    from vramdoctor.logs.authorship import program_line
    assert program_line(line)


# --- a quantized checkpoint the report names by its suffix is no reason to advise fewer-bit weights -----------------


@pytest.mark.parametrize("title", ["Title: Vicuna-13B-v1.5-GPTQ fails with Warmup Not enough memory",
                                   "Title: OOM at warm-up serving TheBloke/Llama-2-70B-AWQ on 2 x A10G"])
def test_a_checkpoint_named_quantized_gets_no_fewer_bit_weights(title):
    lines = [title, "", "2024-01-01T10:00:00.000000Z  INFO text_generation_launcher: Starting shard rank=0",
             "Error: Warmup(Generation(\"Not enough memory to handle 4096 prefill tokens. You need to decrease "
             "`--max-batch-prefill-tokens`\"))"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WARMUP", (run.kind, run.code)
    assert not any("quantize" in a["flags"] for a in run.advice), [a["flags"] for a in run.advice]


# --- LMDeploy cutting or refusing a request longer than its session: a refusal, the server goes on --------------------


def test_lmdeploys_request_past_session_len_is_a_refusal():
    lines = ["2025-01-01 10:00:00,000 - lmdeploy - INFO - async_engine.py:600 - input backend=turbomind, "
             "backend_config=TurbomindEngineConfig(session_len=32768)",
             "[TM][WARNING] [ProcessInferRequests] [7] total sequence length (31000 + 4096) exceeds session_len (32768), "
             "max_new_tokens is truncated to 1768",
             "2025-01-01 10:05:00,000 - lmdeploy - ERROR - async_engine.py:806 - run out of tokens. session=7."]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "requests-refused-too-long"), (run.kind, run.code)


# --- a size past what any device holds in PyTorch's message (a driver's garbage figure) is left unread, not a crash ---


@pytest.mark.parametrize("line", [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 44.00 MiB. GPU 1 has a total capacity of 24.00 GiB "
    "of which 15.41 GiB is free. Process 60 has 17179869184.00 GiB memory in use. Of the allocated memory 7.18 GiB is "
    "allocated by PyTorch",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 99999999999999.00 GiB. Of the allocated memory "
    "99999999999999999.00 GiB is allocated by PyTorch",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 99999999999999999999.00 MiB on device 0: cudaMalloc "
    "failed: out of memory",
])
def test_a_size_past_any_device_in_an_error_is_left_unread(line):
    run = run_of(diag("\n".join(["INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5", line])))
    assert run.kind != "NONE", (run.kind, run.code)


def test_an_environment_named_after_another_engine_does_not_name_the_engine():
    prefix = "(Worker_TP3 pid=150714) ERROR 09-14 07:53:16 [multiproc_executor.py:674] "
    lines = [prefix + '  File "/home/u/miniforge3/envs/sglang/lib/python3.12/site-packages/torch/cuda/graphs.py", '
                      "line 88, in capture_end", prefix + "    super().capture_end()",
             prefix + "torch.AcceleratorError: CUDA error: out of memory"]
    assert diag("\n".join(lines)).engine == "vllm"


@pytest.mark.parametrize("said, kind", [
    ("Our shipped compose OOM'd in vLLM's **`profile_run`** on his rig:", "WARMUP"),
    ("It runs out of memory inside `capture_model` on the 4090:", "WARMUP"),
])
def test_the_function_a_reports_words_say_it_ran_out_in_places_it(said, kind):
    lines = [said, "", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    run = run_of(diag("\n".join(lines), engine="vllm"))
    assert run.kind == kind, (run.kind, run.code, run.phase_source)


# --- a title that asks why an out of memory happens says it happens; vLLM's worker load_model only loads the model ----

V1_CAPTURE_CUT = ["(Worker_TP0 pid=9) INFO 09-24 17:49:00 [gpu_model_runner.py:3000] Model loading took 60.1 GiB",
                  "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  14%|#4        | 9/67",
                  "(Worker_TP0 pid=9) ERROR 09-24 17:49:13 [multiproc_executor.py:585] WorkerProc hit an exception."]


@pytest.mark.parametrize("title", [
    "Title: [Bug]: Why does the deployment run into OOM errors when I switch from TP4 to TP2 x PP2?",
    "Title: Why do I get CUDA out of memory while capturing graphs with TP=8?",
])
def test_a_title_that_asks_why_an_oom_happens_states_it(title):
    run = run_of(diag("\n".join([title, "", *V1_CAPTURE_CUT])))
    assert run.kind == "WARMUP", (run.kind, run.code, run.phase_source)


def test_a_title_that_asks_whether_an_oom_would_happen_states_nothing():
    run = run_of(diag("\n".join(["Title: Would TP2 x PP2 run into OOM errors with a 72B model?", "",
                                 "INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
                                 "INFO:     Application startup complete."])))
    assert run.kind == "NONE", (run.kind, run.code)


def test_a_traceback_cut_in_vllms_worker_load_model_under_an_oom_title_is_the_weights():
    prefix = "(Worker_TP6 pid=395) ERROR 09-24 17:49:13 [multiproc_executor.py:585] "
    lines = ["Title: 8 x A100 deploy Qwen3-VL-235B cuda OOM", "",
             prefix + "Traceback (most recent call last):",
             prefix + '  File "/x/vllm/v1/executor/multiproc_executor.py", line 560, in worker_main',
             prefix + "    self.worker.load_model()",
             prefix + '  File "/x/vllm/v1/worker/gpu_worker.py", line 213, in load_model',
             prefix + "    self.model_runner.load_model(eep_scale_up=eep_scale_up)"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)
