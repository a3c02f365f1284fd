"""`vramdoctor logs` on the kinds of fault the held-out rounds 150 and later (issue 6, stop 29) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, flags, kind_of, run_of

# --- SGLang's hierarchical cache whose host tier finds too little free host memory: the KV ledger's host tier, told
# by its own sizes, never the GPU's fraction -------------------------------------------------------------------------

_HICACHE = [
    # the scheduler's traceback, ratio from the ServerArgs dump
    (["[2025-09-10 08:12:01] server_args=ServerArgs(model_path='Qwen/Qwen3-32B', mem_fraction_static=0.85, "
      "enable_hierarchical_cache=True, hicache_ratio=2.0, hicache_size=0)",
      "[2025-09-10 08:12:30 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=17.21 GB, "
      "mem usage=61.12 GB.",
      "[2025-09-10 08:12:31 TP0] KV Cache is allocated. #tokens: 290000, K size: 5.70 GB, V size: 5.70 GB",
      "[2025-09-10 08:12:31 TP0] Scheduler hit an exception: Traceback (most recent call last):",
      '  File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/memory_pool_host.py", line 120, in __init__',
      "    raise ValueError(",
      "ValueError: Not enough host memory available. Requesting 45.60 GB but only have 30.12 GB free. Please "
      "reduce the size of the hierarchical cache."], "--hicache-ratio 1.1"),
    # a fixed size per rank on a pasted command line, a fork's wording
    (["$ python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --enable-hierarchical-cache "
      "--hicache-size 64",
      "[2025-11-02 10:00:01 TP3] Load weight end. type=DeepseekV3ForCausalLM, avail mem=20.11 GB, mem usage=78.40 GB.",
      "[2025-11-02 10:00:05 TP3] ValueError: Not enough host memory available. Requesting 64.00 GB but only have "
      "41.50 GB free. Please reduce the size of the KVStore."], "--hicache-size 37"),
    # a front end's log line (Dynamo) with a negative free figure: the direction only
    (["2025-11-02T10:00:01.123Z ERROR dynamo_sglang::worker: engine failed: ValueError: Not enough host memory "
      "available. Requesting 120.30 GB but only have -4.20 GB free. Please reduce the size of the hierarchical "
      "cache."], "--hicache-ratio X"),
]


@pytest.mark.parametrize("lines,step", _HICACHE)
def test_a_host_tier_too_large_for_host_memory_is_the_kv_ledger_on_the_host(lines, step):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("KV_CAPACITY", "hicache-host-memory-short")
    advised = flags(run)
    assert step in advised, advised
    assert "--mem-fraction-static" not in advised and "--context-length" not in advised, advised
    assert "host" in run.message


def test_the_host_tiers_sizes_are_decimal_gb():
    rep = diag("\n".join(_HICACHE[0][0]))
    n = run_of(rep).numbers
    assert n["hicache_requested_bytes"] == 45_600_000_000 and n["hicache_host_free_bytes"] == 30_120_000_000


# --- a GPU's out of memory named beside a pod or container is no host kill; a crash's exit code 139 is a segfault,
# not SIGKILL -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["the pod crashed frequently with exit code 139 due to a CUDA OOM during MTP drafting:"],
    ["Our container restarts every few hours after a GPU out of memory error in the vLLM worker."],
    ["The cgroup is fine; the pods die with HIP out of memory on the MI300."],
])
def test_a_gpus_out_of_memory_beside_a_pod_is_not_the_hosts(lines):
    kind, code = kind_of(lines)
    assert code != "host-oom-kill" and "host" not in code, (kind, code)


@pytest.mark.parametrize("lines", [
    ["my container keeps getting OOM killed after an hour"],
    ["The pod exceeded its memory limit and was restarted (reason: OOMKilled)."],
])
def test_a_pod_past_its_own_memory_limit_stays_the_hosts(lines):
    assert kind_of(lines)[1] == "host-oom-kill"


# --- a C++ frame left alone on its line after a paste's "...": its function names the step --------------------------

@pytest.mark.parametrize("lines,kind", [
    # llama.cpp: a speculative draft runs while serving
    (["Qwen3 27B + MTP CUDA OOM at 262K context on 24GB",
      "/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:97: CUDA error",
      "  CUDA error: out of memory",
      "  current device: 0, in function ggml_cuda_graph_evaluate_and_capture at /src/ggml-cuda.cu:3520",
      "...",
      "common_speculative_state_mtp::draft"], "RUNTIME"),
    # llama-server's slot loop, the frame with its arguments
    (["It runs for a while, then: CUDA OOM",
      "ggml/src/ggml-cuda/ggml-cuda.cu:75: CUDA error",
      "  CUDA error: out of memory",
      "  current device: 1, in function ggml_cuda_graph_evaluate_and_capture at ggml-cuda.cu:2811",
      "[...]",
      "  server_context::update_slots()"], "RUNTIME"),
    # ... and its KV cache being made at start
    (["llama.cpp b5200 crashed with an OOM:",
      "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on device 0: cudaMalloc failed: out of "
      "memory",
      "...",
      "llama_kv_cache_unified::llama_kv_cache_unified(llama_model const&, ggml_type, ggml_type, bool, bool, unsigned int)"],
     "KV_CAPACITY"),
])
def test_a_cpp_frame_alone_on_its_line_names_the_step(lines, kind):
    assert kind_of(lines)[0] == kind


# --- a warm-up step's words in a person's sentence that says, in the same breath, that it came on a request: the
# buffer was made again for that request (llama.cpp re-reserves its compute buffers) -------------------------------

@pytest.mark.parametrize("lines", [
    ["On b9426 llama-server loads the model and passes /health, but the first real completion request crashes the "
     "process: cudaMalloc failed: out of memory -> failed to allocate compute pp buffers"],
    ["The server starts fine; the second chat request then dies with `ggml_gallocr_reserve_n: failed to allocate "
     "CUDA0 buffer of size 1030750208`."],
    ["With --spec-type draft-mtp the first API call aborts: failed to allocate compute pp buffers (CUDA out of memory)."],
])
def test_a_compute_buffer_failing_on_a_request_in_the_reports_words_is_serving(lines):
    assert kind_of(lines)[0] == "RUNTIME"


@pytest.mark.parametrize("lines", [
    ["Before the first request is even sent it fails with: failed to allocate compute pp buffers (out of memory)"],
    ["llama_init_from_model: failed to allocate compute pp buffers"],
])
def test_a_compute_buffer_failing_before_any_request_stays_warmup(lines):
    assert kind_of(lines)[0] == "WARMUP"


# --- an exception whose own words say its cause is unknown names no cause: not NOT_OOM -----------------------------

@pytest.mark.parametrize("lines", [
    ["RuntimeError: the inference server crashed for an unknown reason, giving up"],
    ["  File \"/mii/backend/server.py\", line 62, in _wait_until_server_is_live",
     "RuntimeError: server crashed for some reason, unable to proceed"],
    ["Exception: model worker died unexpectedly (pid 4121)"],
])
def test_an_exception_that_says_its_cause_is_unknown_is_not_a_named_cause(lines):
    kind, code = kind_of(lines)
    assert (kind, code) == ("UNDETERMINED", "failure-cause-not-shown")


def test_an_exception_that_names_its_cause_stays_not_memory():
    assert kind_of(["ValueError: Model architectures ['FooForCausalLM'] are not recognised by this version"])[0] == \
        "NOT_OOM"


# --- growth in more words: memory named first and then "leaked", memory allocated over and over, memory that soars
# until it fills the machine (also in Chinese) ------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["# Bug: 15 GiB of CPU RAM permanently leaked on each llama-cli invocation"],
    ["After the benchmark about 3 GB of VRAM gets leaked per run of the script."],
    ["it seems the model keeping allocat memory when handling a request so it crashed after a few request"],
    ["The tokenizer worker keeps allocating more host memory while the server is idle."],
    ["现象是能够正常地启动sglang并正常运行bench，但sglang::scheduler进程的内存占用会飙升，直到吃满整个机器。"],
    ["During the run the scheduler's memory soars until it eats the whole machine."],
])
def test_growth_in_more_words_is_a_leak(lines):
    assert kind_of(lines) == ("LEAK", "memory-growth-stated")


@pytest.mark.parametrize("lines", [
    ["Is 15 GiB of RAM leaked here, or is it just the page cache?"],
    ["The model keeps allocating memory? No, it allocates once at start."],
])
def test_growth_words_asked_are_no_leak(lines):
    assert kind_of(lines)[0] != "LEAK"


# --- named causes that are settings or files, not memory: a command line not accepted, a tensor the file lacks, a
# LoRA rank above its cap -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["usage: api_server.py [-h] [--host HOST] [--port PORT]", "api_server.py: error: unrecognized arguments: --api-key"],
    ["vllm: error: argument --max-model-len: invalid int value: '32k'"],
    ["launch_server.py: error: the following arguments are required: --model-path"],
    ["error: invalid argument: --n-gpu-layer"],
    ["Error: No such option: --gpu-memory-util Did you mean --gpu-memory-utilization?"],
])
def test_a_command_line_the_program_does_not_accept_is_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "bad-argument")


@pytest.mark.parametrize("lines", [
    ["llama_model_load: error loading model: missing tensor 'blk.0.attn_q_norm.weight'",
     "llama_load_model_from_file: failed to load model"],
    ["Loading model: /models/glm.gguf", "llama_model_loader: tensor 'output.weight' not found",
     "error: failed to load model '/models/glm.gguf'"],
])
def test_a_tensor_the_model_file_lacks_is_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "model-file-error")


@pytest.mark.parametrize("lines", [
    ["(EngineCore_DP0 pid=86) ERROR 06-01 13:18:12 [core.py:1341]     peft_helper.validate_legal(self.lora_config)",
     "(EngineCore_DP0 pid=86) ERROR 06-01 13:18:12 [core.py:1341] ValueError: LoRA rank 128 is greater than "
     "max_lora_rank 64."],
    ["# LoRA rank 64 is greater than max_lora_rank 16", "",
     "(EngineCore pid=86) ERROR 06-01 13:18:12 [core.py:1341]   File \"/vllm/lora/worker_manager.py\", line 122, in "
     "_load_adapter"],
])
def test_a_lora_rank_above_its_cap_is_a_setting(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "lora-rank-over-cap")
    assert "--max-lora-rank" in run.message


# --- an NPU kernel's own assertion (an index past a tensor's end) is a kernel fault, also under a title that guesses
# out of memory; an Ascend log's rerun switch is ASCEND_LAUNCH_BLOCKING ----------------------------------------------

@pytest.mark.parametrize("lines", [
    ["# [Bug]: DeepSeek-R1 NPU out of memory on 2x8 910B with long inputs", "",
     "INFO 06-11 13:31:07 [async_llm_engine.py:211] Added request chatcmpl-d1db7d16d695441ab0c47ec9662e226c.",
     "(RayWorkerWrapper pid=1954) [ASSERT] [CANN_VERSION : 8.1.RC1][TimeStamp : 0] /usr/local/Ascend/opp/impl/"
     "gather_v3_base.h:137: Assertion `(0 <= val && val < this->gxSize_)' Index 8192 out of range[0 8192)!"],
    ["[ASSERT] /opp/built-in/op_impl/ascendc/rope/rope_base.h:88: Assertion `pos < maxSeqLen_' position out of bound",
     "EZ9999: Inner Error!"],
    ["kernel gather failed: Index 12 out of range [0, 8)"],
])
def test_an_npu_kernels_index_assertion_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "device-side-assert")
    if "EZ9999" in "".join(lines) or "CANN" in "".join(lines):
        assert "ASCEND_LAUNCH_BLOCKING" in " ".join(a["why"] for a in run.advice)


# --- the name of a watch for out of memory ("OOM detection", "the OOM score") is no out of memory; a division by zero
# named in words is an arithmetic fault ----------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["The crash turned out to be a divide-by-zero in FlashInfer's prefill attention kernel, invisible to dmesg OOM "
     "detection.", "Worker proc VllmWorker-7 died unexpectedly, shutting down executor."],
    ["CUDA error: integer divide by zero in the sampler kernel under load"],
])
def test_a_division_by_zero_named_in_words_is_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "floating-point-exception")


@pytest.mark.parametrize("lines", [
    ["We raised the OOM score of the container and enabled OOM protection; the server still stops after an hour."],
    ["Our OOM monitoring saw nothing, yet the worker exited."],
])
def test_a_watch_for_out_of_memory_is_no_out_of_memory(lines):
    kind, code = kind_of(lines)
    assert kind not in ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME") and code != "oom-phase-not-shown", (kind, code)


# --- a GPU's memory in Chinese as 内存 with the device named is out of memory; the report's words of where it failed,
# a few lines on (a list of what the log shows), and a model compiled at start (torch.compile) as a warm-up step ----

@pytest.mark.parametrize("lines", [
    ["当尝试在8张A100 GPU上运行70B模型时,系统报出CUDA内存不足错误。从日志中可以观察到几个关键现象:", "",
     "  1. 每个GPU上已有约23.42GB内存被占用", "  2. 仅剩余2MB空闲内存", "  3. 错误发生在模型编译阶段,特别是torch.compile过程中"],
    ["Starting the 70B model on 4x A10 fails with CUDA out of memory. What the log shows:", "",
     "- 23.4 GB in use on every GPU", "- 2 MB free", "- PYTORCH_CUDA_ALLOC_CONF suggested",
     "- the error happens during torch.compile of the model"],
])
def test_the_reports_words_of_where_it_failed_a_few_lines_on(lines):
    assert kind_of(lines)[0] == "WARMUP"


def test_a_gpus_memory_named_in_chinese_as_neicun_is_out_of_memory():
    kind, code = kind_of(["启动后推理时报错：GPU内存不足，进程退出"])
    assert kind in ("RUNTIME", "UNDETERMINED") and code != "failure-cause-not-shown", (kind, code)


@pytest.mark.parametrize("lines", [
    ["And each request increases memory usage by about ~300MB until Ubuntu terminates it."],
    ["Every generation raises the RSS by roughly 40 MB."],
    ["VRAM usage grows per each request and never comes down."],
])
def test_each_step_raising_memory_is_a_leak(lines):
    assert kind_of(lines) == ("LEAK", "memory-growth-stated")


def test_a_projector_of_a_kind_the_build_does_not_know_is_a_model_file_error():
    assert kind_of(["clip_model_loader: has vision encoder",
                    "clip_init: failed to load model '/m/mmproj.gguf': load_hparams: unknown projector type: qwen3vl_merger",
                    "mtmd_init_from_file: error: Failed to load CLIP model from /m/mmproj.gguf"]) == \
        ("NOT_OOM", "model-file-error")


# --- vLLM V0's dump of a failed execution's inputs is a failure while serving, its cause after it; a full pool before
# it is the evidence there is, and the message never says that no process crashed --------------------------------

_FAILED_EXECUTION = ("INFO 10-11 06:51:31 model_runner_base.py:120] Writing input of failed execution to "
                     "/tmp/err_execute_model_input_20241011-065131.pkl...")
_ADDED = "INFO 10-11 06:51:30 engine.py:292] Added request chat-29ccd21f37fb4a8ea96c1c8c189a6a49."


def test_a_failed_execution_after_a_full_pool_is_no_crash_free_pool_pressure():
    run = run_of(diag("\n".join([
        _ADDED,
        "WARNING 10-11 06:51:31 scheduler.py:1493] Sequence group chat-55b8 is preempted by PreemptionMode.RECOMPUTE "
        "mode because there is not enough KV cache space. This can affect the end-to-end performance.",
        _FAILED_EXECUTION])))
    assert run.kind == "RUNTIME" and run.inferred
    assert "no process crashed" not in run.message and "failure follows" in run.message


@pytest.mark.parametrize("last,kind", [
    ("ERROR 10-11 06:51:31 engine.py:160] RuntimeError: CUDA error: an illegal memory access was encountered",
     ("NOT_OOM", "illegal-memory-access")),
    ("ERROR 10-11 06:51:31 engine.py:160] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
     ("RUNTIME", "serving-oom")),
])
def test_a_failed_execution_is_read_by_the_error_after_it(last, kind):
    assert kind_of([_ADDED, _FAILED_EXECUTION, last]) == kind


def test_a_failed_execution_alone_does_not_show_its_cause():
    run = run_of(diag("\n".join([_ADDED, _FAILED_EXECUTION])))
    assert (run.kind, run.code) == ("UNDETERMINED", "failure-cause-not-shown")


# --- vLLM V1's block pool asked for more blocks than are free (a shared or elastic pool that shrank under the
# scheduler): the pool ran out while serving -----------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["(EngineCore_DP0 pid=88) ERROR 01-12 10:00:02 [core.py:938] EngineCore encountered a fatal error.",
     "(EngineCore_DP0 pid=88) ERROR 01-12 10:00:02 [core.py:938]   File \"/vllm/v1/core/block_pool.py\", line 301, in "
     "get_new_blocks",
     "(EngineCore_DP0 pid=88) ERROR 01-12 10:00:02 [core.py:938] ValueError: Cannot get 12 free blocks from the pool"],
    ["[kvcached][WARNING] kv_cache_manager.py:174 available_size()=71 < need_size=76",
     "ERROR core.py:938 EngineCore encountered a fatal error."],
])
def test_a_block_pool_out_of_free_blocks_while_serving_is_runtime(lines):
    assert kind_of(lines) == ("RUNTIME", "kv-blocks-exhausted")


# --- a server's memory guard refusing to load a model beside what it holds: the weights ledger; a 4-bit name in
# lower case (MLX's community models) is fewer-bit weights already ---------------------------------------------------

@pytest.mark.parametrize("lines", [
    ['Error: {"detail":"Cannot load Qwen3.5-122B-A10B-Text-mxfp4-mlx: projected memory 127.68GB would exceed process '
     'limit 88.00GB (current: 64.22GB, model: 63.46GB)"}'],
    ["ERROR: Unable to load model llama-3.1-70b-instruct-4bit: estimated memory 40.2 GB exceeds the memory limit "
     "(32.0 GB)"],
    ["Failed to load gemma-3-27b-it-qat-4bit because it would exceed the configured memory budget"],
])
def test_a_memory_guard_refusing_a_load_is_the_weights_ledger(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-memory-limit")
    assert "fewer-bit" not in flags(run) and all(a["change"] != "fewer-bit weights" for a in run.advice)


# --- llama.cpp prints "KV buffer size" after each buffer of a cache; the cache is made only at its summary line
# ("llama_kv_cache: size = ..."): a failure between them is the KV cache's next buffer ----------------------------

_MODEL_LOADED = ["load_tensors: offloading 48 repeating layers to GPU",
                 "load_tensors:        CUDA0 model buffer size =  4800.00 MiB",
                 "load_tensors:        CUDA1 model buffer size =  9120.00 MiB"]


@pytest.mark.parametrize("lines", [
    # an iSWA model's SWA cache, pasted from its creation: its CPU buffer made, its GPU buffer fails
    _MODEL_LOADED + [
        "llama_kv_cache_unified_iswa: creating     SWA KV cache, size = 4096 cells",
        "llama_kv_cache_unified:        CPU KV buffer size =   160.00 MiB",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 480.00 MiB on device 0: cudaMalloc failed: out of memory",
        "alloc_tensor_range: failed to allocate CUDA0 buffer of size 503316480",
        "llama_init_from_model: failed to init"],
    # one cache over two GPUs: its first buffer made, the second fails
    _MODEL_LOADED + [
        "llama_kv_cache:      CUDA0 KV buffer size =  2048.00 MiB",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 6144.00 MiB on device 1: cudaMalloc failed: out of memory",
        "alloc_tensor_range: failed to allocate CUDA1 buffer of size 6442450944",
        "llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache"],
])
def test_a_failure_between_a_caches_buffers_is_the_kv_cache(lines):
    assert kind_of(lines)[0] == "KV_CAPACITY"


def test_a_failure_after_the_caches_summary_is_past_it():
    lines = _MODEL_LOADED + [
        "llama_kv_cache:      CUDA0 KV buffer size =  2048.00 MiB",
        "llama_kv_cache: size = 2048.00 MiB ( 16384 cells,  48 layers,  1/1 seqs), K (f16): 1024.00 MiB, V (f16): 1024.00 MiB",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1500.00 MiB on device 0: cudaMalloc failed: out of memory",
        "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 1572864000",
        "llama_init_from_model: failed to allocate compute pp buffers"]
    assert kind_of(lines)[0] == "WARMUP"


# --- a request's refusal the report quotes whole, above a log cut partway through the same line: the refusal, not a
# cut error; HCCL's connection failures are communication, not memory ------------------------------------------------

_REFUSAL = ("10.21.400.100 E srv    send_error: task id = 812, error: request (40123 tokens) exceeds the available "
            "context size (32768 tokens), try increasing it")


@pytest.mark.parametrize("said,kind", [
    ("The server fails on long prompts from the agent with:", "NOT_OOM"),
    ("Long prompts from the agent give:", "NOT_OOM"),
])
def test_a_refusal_quoted_whole_above_its_cut_copy_is_the_refusal(said, kind):
    lines = [said, "", _REFUSAL, "", "```console",
             "10.21.390.001 I srv  update_slots: all slots are idle",
             "10.21.399.902 I slot launch_slot_: id  0 | task 812 | processing task",
             _REFUSAL[:_REFUSAL.index("exceeds") + 6]]
    assert kind_of(lines) == (kind, "requests-refused-too-long")


@pytest.mark.parametrize("lines", [
    ["[ERROR] HCCL(80812,):2026-06-17-02:21:43.853.333 [transport_manager.cc:954] [86231][InitChannelStage][RunFailed]"
     "Transport init error! createLink para:rank[7]-localUserrank[7]-remoteRank[15]"],
    ["[ERROR] HCCL(4411,python):2026-01-02-10:00:00.000.001 [detect_connect_anomalies.cc:126] [4411]----CONNECT TIMEOUT "
     "DETECT RESULT----"],
    ["RuntimeError: HCCL function error: HcclCommInitRootInfo, error code is 9 (HCCL_E_TCP_CONNECT)"],
])
def test_hccl_connection_failures_are_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "communication-error")


# --- an OpenCL call's status names its cause (memory only for its memory statuses); ggml-opencl's hint after any of
# them, "You may be out of VRAM", is a guess ---------------------------------------------------------------------

@pytest.mark.parametrize("lines,kind", [
    (["Processing Prompt [BLAS] (2130 / 2130 tokens)ggml_opencl: ggml_cl_h2d_tensor_2d(queue, d_Q, 0, src0, i03, i02, "
      "events.data() + ev_idx++) error -30 at ggml-opencl.cpp:1708", "You may be out of VRAM. Please check if you have "
      "enough."], ("NOT_OOM", "opencl-error")),
    (["clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE"], ("NOT_OOM", "opencl-error")),
    (["ggml_opencl: clCreateBuffer(context, CL_MEM_READ_WRITE, size, NULL, &err) error -4 at ggml-opencl.cpp:1210",
      "You may be out of VRAM. Please check if you have enough."], None),
])
def test_an_opencl_status_names_its_cause(lines, kind):
    got = kind_of(lines)
    if kind:
        assert got == kind
    else:
        assert got[0] in ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME", "UNDETERMINED") and got[1] != \
            "failure-cause-not-shown", got


def test_a_hint_that_memory_may_be_out_is_no_failure_by_itself():
    assert kind_of(["main: server is listening on 127.0.0.1:8080",
                    "If generation stops, you may be out of VRAM."])[0] == "NONE"


@pytest.mark.parametrize("after,kind", [
    ("OOMs at **75 MiB** on the 2nd request.", "RUNTIME"),
    ("It runs out of memory on the third request only.", "RUNTIME"),
    ("It OOMs right at start, before the first request.", "WARMUP"),
])
def test_the_reports_words_after_a_pasted_compute_failure_that_tell_its_request(after, kind):
    lines = ["```",
             "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 75.63 MiB on device 0: cudaMalloc failed: out of "
             "memory",
             "ggml_gallocr_reserve_n_impl: failed to allocate CUDA0 buffer of size 79299072",
             "```", "", after]
    assert kind_of(lines)[0] == kind


# --- a cut line inside an identifier ("ggml_cud") is no error's first words begun ("cudaMalloc failed") -------------

@pytest.mark.parametrize("last", ["ggml_cud", "llama_model_load_from_fi", "ggml_backend_cuda_buffer_type_alloc_buf"])
def test_a_cut_inside_an_identifier_is_a_cut_line_not_a_cut_error(last):
    lines = ["ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no", "ggml_cuda_init: found 1 ROCm devices:",
             "  Device 0: AMD Radeon(TM) 8060S Graphics, gfx1151 (0x1151), VMM: no, Wave Size: 32",
             "llama_model_load_from_file_impl: using device ROCm0 (AMD Radeon(TM) 8060S Graphics) - 98000 MiB free",
             last]
    # (the log ends in start-up, cut partway through a line or while its step was under way: not an error's words)
    assert kind_of(lines)[1] in ("log-cut-off", "log-ends-during-step")


# --- SGLang's watchdog found a step stuck and killed its own server: a hang, and the "Killed" after it is the engine's
# own kill, not the OOM killer's ------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["[2025-03-09 00:57:15 TP0] Watchdog timeout (self.watchdog_timeout=300)",
     "[2025-03-09 00:57:15 TP1] Watchdog timeout (self.watchdog_timeout=300)",
     "[2025-03-09 00:57:20] Received sigquit from a child proces. It usually means the child failed.", "Killed"],
    ["[2025-11-02 10:00:00 TP0] Scheduler watchdog timeout (self.watchdog_timeout=600, self.soft=False)",
     "[2025-11-02 10:00:05] Received sigquit from a child process. It usually means the child failed."],
])
def test_sglangs_watchdog_killing_its_own_server_is_a_hang(lines):
    assert kind_of(lines) == ("NOT_OOM", "watchdog-timeout")


# --- a gRPC error with an empty description names no cause; a cache budget its smallest plan does not fit is the KV
# ledger; a request a memory guard aborted is serving; a line at error level cut partway is a failure begun ---------

def test_an_rpc_error_with_an_empty_description_names_no_cause():
    assert kind_of(["9:01PM ERR [llama-cpp] Failed loading model, error: failed to load model with internal loader: "
                    "could not load model: rpc error: code = Canceled desc = "]) == \
        ("UNDETERMINED", "failure-cause-not-shown")


@pytest.mark.parametrize("lines", [
    ["AssertionError: cache budget too small: minimum plan (moe=576 slots, kv=128 pages) needs 8261206016 B > budget "
     "6734265712 B (raise memory_ratio, lower kv_reserve_tokens, or free GPU memory)"],
    ["RuntimeError: KV cache budget is too small for max_seq_len=32768 (needs 9.1 GiB, have 6.3 GiB)"],
])
def test_a_cache_budget_too_small_for_its_plan_is_the_kv_ledger(lines):
    assert kind_of(lines)[0] == "KV_CAPACITY"


def test_a_request_a_memory_guard_aborted_is_serving():
    assert kind_of(["INFO: 127.0.0.1:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
                    "Error: Request aborted: process memory limit exceeded. Increase --max-process-memory or reduce "
                    "context size."])[0] == "RUNTIME"


@pytest.mark.parametrize("last", ["[57831] 4.01.799.347 E ggml_backend_cuda_buffer_type",
                                  "[57831] 4.01.799.347 E ggml_backend_cuda_buffer_type_alloc_buf"])
def test_a_line_at_error_level_cut_partway_is_a_failure_begun(last):
    lines = ["[57831] 3.54.282.865 I slot print_timing: id  0 | task 0 | prompt processing, n_tokens = 103031, "
             "progress = 0.85, t = 215.00 s / 479.21 tokens per second",
             "[57831] 4.00.283.948 I slot print_timing: id  0 | task 0 | prompt processing, n_tokens = 105079, "
             "progress = 0.87, t = 221.00 s / 475.48 tokens per second",
             "[57831] 4.01.799.111 E ggml_backend_cuda_buffer_type_alloc_buffer: allocating 512.00 MiB on device 0",
             last]
    assert kind_of(lines)[0] != "NONE"


def test_an_oom_check_that_fails_is_an_out_of_memory_found():
    lines = ["This is what it looks like when the OOM check fails:", "```",
             "INFO 03-14 02:45:05 [gpu_model_runner.py:1434] Graph capturing finished in 22 secs, took 0.64 GiB",
             "ERROR 03-14 02:45:06 [core.py:337] EngineCore hit an exception: Traceback (most recent call last):",
             "ERROR 03-14 02:45:06 [core.py:337]   File \"/vllm/v1/worker/gpu_model_runner.py\", line 1292, in "
             "_dummy_sampler_run",
             "ERROR 03-14 02:45:06 [core.py:337]     sampler_output = self.model.sample("]
    assert kind_of(lines)[0] == "WARMUP"


# --- lines of one width that begin alike are a run of the same line (a health check's access lines, a `ps` table),
# not a log hard-wrapped at that width --------------------------------------------------------------------------------

@pytest.mark.parametrize("line", ["srv  log_server_r: request: GET /health 127.0.0.1 200",
                                  "time=2025-01-02T10:00:00 level=INFO msg=\"health ok\" 200",
                                  "12345 root      20   0  125.2g   4.1g   1.4g R 300.7  0.2 sglang::sched"])
def test_lines_of_one_width_that_begin_alike_are_no_wrap(line):
    from vramdoctor.logs.unwrap import wrap_width
    text = "# Potential memory allocation leak\n\n```shell\n" + (line + "\n") * 20 + line[:30] + "\n"
    assert wrap_width(text.encode()) is None


def test_a_log_hard_wrapped_at_a_width_is_still_found():
    from vramdoctor.logs.unwrap import wrap_width
    msg = ("ERROR 09-27 06:46:46 engine.py:157] ValueError: The model's max seq len (32768) is larger than the maximum "
           "number of tokens that can be stored in KV cache (20112). Try increasing `gpu_memory_utilization` or "
           "decreasing `max_model_len` when initializing the engine.")
    lines = [msg[i:i + 60] for i in range(0, len(msg), 60)] * 3
    assert wrap_width(("\n".join(lines) + "\n").encode()) == 60


# --- words that say the paste below is the log of an out of memory place it by how far that log got, not by its first
# step line ------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("intro", ["Here is the complete log for an OOM on v0.1.20 using mixtral:8x7b-instruct-q3_K_S",
                                   "Below is the output when it OOMs with n_ctx 28000",
                                   "This is the log of the CUDA out of memory we hit"])
def test_the_log_an_intro_names_an_oom_for_is_placed_by_how_far_it_got(intro):
    j = "Jan 12 05:57:12 cognicore ollama[161484]: "  # (journald's prefix, as `journalctl -u ollama` prints it)
    lines = ["# Mixtral OOM", "", intro, "", "```",
             j + "llm_load_tensors: offloaded 26/33 layers to GPU",
             j + "llm_load_tensors: VRAM used: 15595.94 MiB",
             j + "llama_new_context_with_model: n_ctx      = 28000",
             j + "llama_new_context_with_model: KV self size  = 3500.00 MiB, K (f16): 1750.00 MiB, V (f16): 1750.00 MiB",
             j + "llama_new_context_with_model: compute buffer total size = 1859.91 MiB", "```"]
    assert kind_of(lines)[0] not in ("WEIGHTS", "KV_CAPACITY")


# --- an exception whose message only says a step failed ("RuntimeError: Initialization failed") names no cause, also
# as a report's title ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["# [Question] RuntimeError: Initialization failed", "",
     "[2024-11-26 14:25:58] Initialization failed. warmup error: Traceback (most recent call last):",
     '  File "/sglang/srt/server.py", line 570, in _wait_and_warmup',
     '    assert res.status_code == 200, f"'],
    ["RuntimeError: Engine core initialization failed."],
    ["Exception: model loading failed"],
])
def test_an_exception_that_only_says_a_step_failed_names_no_cause(lines):
    assert kind_of(lines)[0] != "NOT_OOM"


# --- a model worker that begins loading after its HTTP server said it was ready (FastChat, Xinference): a failure the
# report names is at that load; the report's Chinese words of a model's load that failed ---------------------------

def test_a_load_begun_after_a_front_ends_ready_line_is_where_it_got():
    lines = ["启动startup.py，依然显示报错：torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 134.00 MiB", "",
             "2024-06-05 09:56:33 | ERROR | stderr | INFO:     Application startup complete.",
             "2024-06-05 09:56:33 | ERROR | stderr | INFO:     Uvicorn running on http://0.0.0.0:20000 (Press CTRL+C to quit)",
             "2024-06-05 09:56:34 | INFO | model_worker | Register to controller",
             "2024-06-05 09:56:34 | INFO | model_worker | Loading the model ['Qwen-14B'] on worker 07c851a3 ...",
             "2024-06-05 09:56:34 | WARNING | transformers_modules.Qwen-14B.modeling_qwen | Try importing flash-attention"]
    assert kind_of(lines)[0] == "WEIGHTS"


@pytest.mark.parametrize("line", ["启动app, 加载Qwen-72B-chat LLM model 出现OOM",
                                  "按照教程运行，模型加载报错，cuda out of memory",
                                  "加载 glm-4-9b 模型时出现显存不足"])
def test_the_reports_chinese_words_of_a_load_that_failed_are_the_weights(line):
    assert kind_of([line])[0] == "WEIGHTS"


# --- more engines' words: OpenVINO's one allocation past the device's cap, oMLX's prefill refused past its cap, MLX's
# RDMA collectives, exo's placement, nn.Module.to moving the weights, Chinese growth words ----------------------------

def test_openvinos_allocation_past_the_devices_cap_is_one_buffer_too_large():
    kind, code = kind_of(["[GPU] Exceeded max size of memory object allocation: requested 4831838208 bytes, but max "
                          "alloc size supported by device is 1073741824 bytes.Please try to reduce batch size"])
    assert code == "buffer-exceeds-allocation-limit"


@pytest.mark.parametrize("line", [
    "Error: Prefill would require ~70.27 GB peak (current 67.54 GB + KV+SDPA 2.73 GB) but metal_cap ceiling is 69.86 GB.",
    "ERROR - Prefill would require ~41.0 GB, above the process memory limit of 40 GB; request rejected",
])
def test_a_prefill_refused_past_a_memory_cap_is_serving(line):
    assert kind_of([line])[0] == "RUNTIME"


@pytest.mark.parametrize("lines,kind", [
    (["[jaccl] Couldn't allocate protection domain", "[jaccl] Recv failed with errno=2"], ("NOT_OOM", "communication-error")),
    (["ValueError: No cycles found with sufficient memory."], ("WEIGHTS", "weights-exceed-memory-limit")),
])
def test_distributed_mlx_words(lines, kind):
    assert kind_of(lines) == kind


def test_nn_modules_to_moving_the_weights_is_the_weights():
    lines = ['  File "/usr/local/lib/python3.11/dist-packages/torch/nn/modules/module.py", line 1158, in convert',
             "    return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)",
             "RuntimeError: XPU out of memory. Tried to allocate 1.02 GiB (GPU 0; 15.56 GiB total capacity; 0 bytes "
             "already allocated)"]
    assert kind_of(lines)[0] == "WEIGHTS"


@pytest.mark.parametrize("line", ["随着调用次数增加，显存不停地增加，且无法释放",
                                  "服务运行一天后内存无法释放，越来越卡"])
def test_more_chinese_growth_words_are_a_leak(line):
    assert kind_of([line])[0] == "LEAK"


# --- the word sets a message's pattern needs (prefilter.necessary): a line without one of each set cannot match --------

@pytest.mark.parametrize("pattern,line,needed", [
    (r"(?:Waiting|Pending): [1-9]\d* reqs,\s*GPU KV cache usage: (?:99\.\d|100\.0)%",
     "Running: 3 reqs, Waiting: 2 reqs, GPU KV cache usage: 99.7%", True),
    (r"(?:Waiting|Pending): [1-9]\d* reqs,\s*GPU KV cache usage: (?:99\.\d|100\.0)%",
     "Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 37%", False),
    (r"^(?=[^\n]*?100\s?%)[^\n]*?\bKV[- ]?cache usage\b", "the KV cache usage hits 100 %", True),
    (r"^(?=[^\n]*?100\s?%)[^\n]*?\bKV[- ]?cache usage\b", "the KV cache usage is 37%", False),
    (r"foo|bar", "a bar", True),
])
def test_a_patterns_needed_words_never_reject_a_line_it_matches(pattern, line, needed):
    import re

    from vramdoctor.logs.knowledge import _holds
    from vramdoctor.logs.prefilter import necessary
    p = re.compile(pattern, re.I)
    assert bool(p.search(line)) == needed
    assert _holds(line.lower(), necessary(p)) or not needed  # (a match always holds them)


def test_no_engine_message_is_rejected_by_its_needed_words_on_a_line_it_matches():
    from vramdoctor.logs.knowledge import _holds, knowledge
    from vramdoctor.logs.prefilter import necessary
    k = knowledge()
    samples = [l for p in __import__("pathlib").Path(__file__).parent.glob("data/logs*/**/*.log")
               for l in p.read_text(errors="replace").splitlines()[:400]]
    for m, _ in k.messages:
        needs = necessary(m.pattern)
        for line in samples:
            if m.pattern.search(line):
                assert _holds(line.lower(), needs), (m.pattern.pattern[:80], line[:120])


# --- a new user's review of this stop: Go's cobra flags, OpenCL errors with their source's path, llama.cpp's rule for
# the engines that wrap it, SGLang's floor on the host tier's ratio ------------------------------------------------

def test_cobras_unknown_flag_is_a_bad_argument():
    assert kind_of(["$ ollama run llama3 --num-gpu 20", "Error: unknown flag: --num-gpu"]) == ("NOT_OOM", "bad-argument")


@pytest.mark.parametrize("line,kind", [
    ("ggml_opencl: clEnqueueNDRangeKernel error -30 at /data/llama.cpp/ggml/src/ggml-opencl/ggml-opencl.cpp:3812",
     "NOT_OOM"),
    ("ggml_opencl: clCreateBuffer error -4 at /src/llama.cpp/ggml/src/ggml-opencl/ggml-opencl.cpp:1764", None),
])
def test_an_opencl_status_with_its_sources_path(line, kind):
    got = kind_of(["llm_load_tensors: offloaded 33/33 layers to GPU", line])
    assert got[0] == kind if kind else got[0] not in ("NONE", "NOT_OOM"), got


def test_llamacpps_per_buffer_kv_rule_holds_for_the_engines_that_wrap_it():
    lines = ['time=2025-06-01T10:00:00.000Z level=INFO source=server.go:405 msg="starting llama server" cmd="/usr/bin/'
             'ollama runner --model /root/.ollama/models/blobs/sha256-abc --ctx-size 65536 --n-gpu-layers 49"',
             "load_tensors: offloaded 49/49 layers to GPU",
             "load_tensors:        CUDA0 model buffer size = 14000.00 MiB",
             "llama_kv_cache_unified:      CUDA0 KV buffer size =  6144.00 MiB",
             "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 6144.00 MiB on device 1: cudaMalloc failed: out of "
             "memory"]
    assert kind_of(lines)[0] == "KV_CAPACITY"


def test_the_host_tiers_ratio_is_never_advised_at_or_below_one():
    lines = ["[2025-09-10 08:12:01] server_args=ServerArgs(model_path='Qwen/Qwen3-32B', mem_fraction_static=0.85, "
             "enable_hierarchical_cache=True, hicache_ratio=2.0, hicache_size=0)",
             "[2025-09-10 08:12:31 TP0] KV Cache is allocated. #tokens: 50688, K size: 6.18 GB, V size: 6.18 GB",
             "ValueError: Not enough host memory available. Requesting 24.72 GB but only have 9.50 GB free. Please "
             "reduce the size of the hierarchical cache."]
    run = run_of(diag("\n".join(lines)))
    advised = flags(run)
    assert "--hicache-ratio" not in advised and "--mem-fraction-static" in advised, advised


def test_a_pool_the_engine_found_almost_no_memory_for_is_the_evidence_before_a_cut_failure():
    lines = ["[TensorRT-LLM][INFO] Loaded engine size: 73512 MiB",
             "[TensorRT-LLM][INFO] Memory usage when calculating max tokens in paged kv cache: total: 79.11 GiB, "
             "available: 1.02 GiB",
             "[TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: 0",
             "[TensorRT-LLM][ERROR] tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] Assertion failed: "
             "(/src/tensorrt_llm/cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp:612)"]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("KV_CAPACITY", "kv-pool-starved") and run.inferred


# --- a server that stops without a word ("just stops", "stops working", "an infinite loop", 卡住) is a hang; a report
# that states a hang or a failure over a serving log cut partway is no clean bill ---------------------------------

@pytest.mark.parametrize("said", ["Without any errors, it just stops after a few requests.",
                                  "The server stops responding after about ten minutes; GPU utilization stays at 100%.",
                                  "Seems like it falls into an infinite loop once the batch is full."])
def test_a_server_that_stops_without_a_word_is_a_hang(said):
    lines = ["# [Bug] SGLang stops working under load", "",
             "[2025-02-01 10:00:00] The server is fired up and ready to roll!",
             "[2025-02-01 10:00:05 TP0] Decode batch. #running-req: 96, #token: 40211, token usage: 0.41, #queue-req: 0",
             said]
    assert kind_of(lines) == ("UNDETERMINED", "hang-no-error")


def test_a_stated_hang_over_a_serving_log_cut_partway_is_no_clean_bill():
    lines = ["# [Bug]: 128K上下文压测90K输入1K输出请求卡住", "",
             "(APIServer pid=1) INFO 07-31 10:00:00 [api_server.py:1800] Starting vLLM API server 0 on http://0.0.0.0:8000",
             "(APIServer pid=1) INFO:     Application startup complete.",
             "(APIServer pid=1) INFO 07-31 10:01:00 [loggers.py:123] Engine 000: Avg prompt throughput: 9000.0 tokens/s, "
             "Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 81.2%",
             "(APIServer pid=1) INFO 07-31 10:01:10 [loggers.py:123] Engine 000: Avg prompt throu"]
    assert kind_of(lines)[0] != "NONE"
