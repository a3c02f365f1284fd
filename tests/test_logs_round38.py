"""`vramdoctor logs` on the kinds of fault left open by the held-out rounds 34-37 and the last new-user review (issue
6's note), each with logs of our own in other engines, versions and wordings (none of the held-out logs' own lines).
The engines' lines follow their sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, flags, run_in, run_of

VLLM_LOADING = [
    "INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1",
    "INFO 06-02 10:00:40 [gpu_model_runner.py:1595] Starting to load model meta-llama/Llama-3.1-70B-Instruct...",
]
VLLM_SERVING = [
    "INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1",
    "INFO:     Application startup complete.",
    'INFO:     10.0.0.2:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
]

# --- a SIGKILL whose cause the log shows is not the OOM killer ----------------------------------------------------------

KUBECTL_ERROR_137 = ["Containers:", "  vllm:", "    State:          Waiting", "      Reason:       CrashLoopBackOff",
                     "    Last State:     Terminated", "      Reason:       Error", "      Exit Code:    137",
                     "      Started:      Mon, 01 Dec 2025 10:00:00 +0000",
                     "      Finished:     Mon, 01 Dec 2025 10:05:12 +0000"]
KUBECTL_OOM_137 = [l.replace("Reason:       Error", "Reason:       OOMKilled") for l in KUBECTL_ERROR_137]
DOCKER_INSPECT = ['        "State": {', '            "Status": "exited",', '            "Running": false,',
                  '            "Paused": false,', '            "Restarting": false,',
                  '            "OOMKilled": false,', '            "Dead": false,', '            "Pid": 0,',
                  '            "ExitCode": 137,']


@pytest.mark.parametrize("lines", [
    [*VLLM_LOADING, *KUBECTL_ERROR_137],
    [*KUBECTL_ERROR_137, *VLLM_SERVING],
    [*VLLM_LOADING, *DOCKER_INSPECT],
    [*VLLM_SERVING, "It exits with code 137 but dmesg shows no oom-killer."],
    [*VLLM_SERVING, "sglang-1 exited with code 137, and the container was not OOMKilled"],
])
def test_a_sigkill_not_from_the_oom_killer_is_a_kill_of_unknown_cause(lines):
    """Exit 137 is SIGKILL (128 + 9); Kubernetes says `OOMKilled` (docker `"OOMKilled": true`) when the OOM killer sent
    it. Where the log says it was not (`Reason: Error`, `OOMKilled: false`, the user's words), the kill's cause is not
    shown: a liveness probe, a stop timeout, a `kill -9`."""
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "process-killed"), (run.kind, run.code, run.message)
    assert "liveness" in run.message


def test_a_sigkill_the_oom_killer_sent_is_still_host_memory():
    run = run_of(diag("\n".join([*VLLM_LOADING, *KUBECTL_OOM_137])))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-system-memory"), (run.kind, run.code)


def test_a_sigkill_after_a_failed_liveness_probe_is_the_probe():
    lines = [*VLLM_LOADING, *KUBECTL_ERROR_137, "Events:",
             "  Warning  Unhealthy  3m (x3 over 4m)  kubelet  Liveness probe failed: Get \"http://10.1.2.3:8000/health\":"
             " dial tcp 10.1.2.3:8000: connect: connection refused",
             "  Normal   Killing    3m               kubelet  Container vllm failed liveness probe, will be restarted"]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "health-check-failed"), (run.kind, run.code)


# --- host RAM that ran out at load: the weights never reached the GPUs, so no GPU-side step ----------------------------

@pytest.mark.parametrize("lines", [
    # vLLM, two workers, the kernel killed it while the shards loaded
    ["INFO 06-02 10:00:01 [api_server.py:1043] args: Namespace(model='Qwen/Qwen2.5-72B-Instruct', "
     "tensor_parallel_size=2, swap_space=4)",
     "INFO 06-02 10:00:40 [gpu_model_runner.py:1595] Starting to load model Qwen/Qwen2.5-72B-Instruct...",
     "Loading safetensors checkpoint shards:  35% Completed | 13/37 [01:02<01:55,  4.80s/it]",
     "Killed"],
    # transformers / text-generation-webui, PyTorch's CPU allocator while it loaded
    ["Loading checkpoint shards:  40%|####      | 6/15 [00:31<00:47,  5.3s/it]",
     "RuntimeError: [enforce fail at alloc_cpu.cpp:83] data. DefaultCPUAllocator: not enough memory: you tried to "
     "allocate 1073741824 bytes."],
    # SGLang, killed while it loaded
    ["[2025-06-02 10:00:02 TP0] Load weight begin. avail mem=78.50 GB",
     "Loading safetensors checkpoint shards:  20% Completed | 3/15 [00:21<01:30,  7.51s/it]",
     "dmesg: Out of memory: Killed process 4242 (python3) total-vm:182000000kB, anon-rss:120000000kB"],
])
def test_host_ram_at_load_gets_no_gpu_side_step(lines):
    """The weights pass through host RAM: more GPUs (more workers, each loading its shard) or a device_map do not
    lower it, and what is free on the GPU does not matter."""
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-system-memory"), (run.kind, run.code)
    assert any(a["change"] == "more host memory" for a in run.advice), run.advice
    bad = [a for a in run.advice if a["setting"] in ("tensor_parallel_size", "memory_fraction", "gpu_layers")
           and a["direction"] != "up" or a["setting"] == "tensor_parallel_size"]
    assert not bad, bad


# --- growth stated in words: a size left per step or per time, memory kept from the OS, "more and more" ---------------

LLAMA_SERVING = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
                 "srv  update_slots: all slots are idle"]
OLLAMA_STARTED = [
    'time=2025-03-01T10:00:09.000Z level=INFO source=server.go:626 msg="llama runner started in 8.01 seconds"',
    '[GIN] 2025/03/01 - 10:00:12 | 200 |  2.10s |       127.0.0.1 | POST     "/api/chat"']


@pytest.mark.parametrize("said", [
    "After every request, about 150MB stays allocated.",
    "Roughly 80 MB remains in use after each completion, and it adds up.",
    "RSS grows by ~1 GB per hour under a steady load.",
    "VRAM increases by about 300 MiB an hour even when idle.",
    "The freed buffers are never returned to the OS, so RSS only goes up.",
    "Every model swap strands more and more wired memory.",
    "It eats more and more RAM the longer it runs.",
    "At each request, the RAM usage increases.",
    "With every new chat the VRAM use goes up a little.",
    "On each call, memory climbs and stays there.",
    "RSS reaches ~9 GB after 2,000 generated tokens, from a ~1.5 GB base.",
    "Resident memory went from 1.2 GB to 14 GB over two days of light traffic.",
    "VRAM climbed to 22 GiB after 500 requests, from 16 GiB at start.",
    "VRAM usage increased by 12 GB over three days of traffic.",
    "RAM grew by 8GB after running for 48 hours.",
    "GPU memory is slowly accumulating under a steady load.",
    "The profiler shows many small allocations that never get freed.",
    "In the beginning it works fine, but the RAM grows and grows until it hits the limit.",
    "VRAM climbs and climbs with each prompt.",
    "The host RSS of the decode workers grows over the service lifetime.",
    "Resident memory increases over the uptime of the server, about a day.",
    "Memory went from 18 GB to 23 GB over 6 hours of serving, with the same steady traffic.",
    "RAM climbs from 10 GB to 40 GB over two days.",
    "After 1000 requests the process is at 30 GB, it started at 12 GB.",
    "Each request leaks about 20MB of host memory.",
])
def test_growth_in_other_words_is_a_leak(said):
    for start in (LLAMA_SERVING, OLLAMA_STARTED, VLLM_SERVING):
        run = run_of(diag("\n".join([*start, said])))
        assert run.kind == "LEAK" and run.code in ("memory-growth-stated", "memory-growth-reported"), (
            said, run.kind, run.code)


@pytest.mark.parametrize("said", [
    "Memory goes up by 2 GB per request while it runs, then drops back.",
    "During each request about 150MB is allocated and freed again afterwards.",
    "We send more and more requests per second and latency grows.",
    "Does RSS grow by 1 GB per hour for anyone else?",
    "Loading took memory from 1 GB to 14 GB, then it served fine for two days.",
    "VRAM went from 16 GiB to 15.8 GiB after 500 requests.",
    "Memory increases by 2 GB when I raise max_model_len.",
    "VRAM increased by 10 GB after loading the second model.",
    "显存没有越占越多，一直稳定在40G。",
    "VRAM goes up from 20 GB to 70 GB right after startup because vLLM preallocates the KV cache.",
    "Token usage keeps increasing as more users join, up to 0.9.",
    "Someone on the forum said memory grows and grows with this version, but I have not seen that.",
    "My colleague thinks memory grows and grows but nvidia-smi shows a flat 20GB.",
])
def test_memory_that_comes_back_or_a_question_is_no_growth(said):
    run = run_of(diag("\n".join([*LLAMA_SERVING, said])))
    assert run.kind == "NONE", (said, run.kind, run.code)


# --- a request's prompt that closes on its own line does not swallow the lines after it -----------------------------

@pytest.mark.parametrize("command", [
    """    -d '{"prompt":"Write 200 words about tries.","n_predict":200}' -o /dev/null""",
    """curl localhost:8000/v1/completions -d '{"model": "m", "prompt": "Say hi.", "max_tokens": 8}' | jq .""",
    """python bench.py --body '{"prompt": "Tell me a story.", "stream": false}' --n 100""",
])
def test_a_prompt_closed_on_its_line_is_not_a_multiline_prompt(command):
    said = "Resident memory reaches 9.5 GB after 400 requests, from a 1.5 GB base."
    run = run_of(diag("\n".join([*LLAMA_SERVING, command, "done", said])))
    assert run.kind == "LEAK", (run.kind, run.code)


# --- an engine's leak check names no step under way; early SGLang's serving frames -----------------------------------

SGLANG_OLD_SERVING_TB = [
    "Exception in ModelRpcClient:", "Traceback (most recent call last):",
    '  File "/usr/lib/python3.10/site-packages/sglang/srt/managers/router/model_rpc.py", line 140, in exposed_step',
    "    self.forward_step()",
    '  File "/usr/lib/python3.10/site-packages/sglang/srt/managers/router/model_rpc.py", line 160, in forward_step',
    "    self.forward_fill_batch(new_batch)",
    '  File "/usr/lib/python3.10/site-packages/sglang/srt/managers/router/model_rpc.py", line 344, in '
    "forward_fill_batch"]


@pytest.mark.parametrize("check", [
    "KV cache pool leak detected!",
    "[2025-02-01 10:00:00] ValueError: token_to_kv_pool_allocator memory leak detected! available_size=1000, "
    "max_total_num_tokens=2000",
])
def test_a_leak_check_is_no_kv_step_under_way(check):
    lines = [check, "", "Then with more sequences it runs out of memory:", *SGLANG_OLD_SERVING_TB]
    run = run_of(diag("\n".join(lines)))
    assert run.kind in ("LEAK", "RUNTIME"), (run.kind, run.code, run.phase_source)


def test_early_sglang_frames_of_a_step_are_serving():
    lines = ["Memory ran out with 38 sequences:", *SGLANG_OLD_SERVING_TB]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


# --- a wrapper line that states its cause after the colon ------------------------------------------------------------

TRT_START = ["[07/18/2025-20:27:50] [TRT-LLM] [I] Starting TensorRT-LLM init."]


@pytest.mark.parametrize("line", [
    "[07/18/2025-20:27:59] [TRT-LLM] [E] Failed to initialize executor on rank 1: Unsupported quantization "
    "algorithm W4A8_FOO for this checkpoint",
    "[07/18/2025-20:27:59] [TRT-LLM] [E] Failed to initialize executor on rank 0: The tokenizer config has no "
    "chat template field",
    "[2025-06-02 10:00:05] Scheduler hit an exception: Unsupported architectures FooForCausalLM in the config",
])
def test_a_wrapper_that_states_its_cause_is_that_cause(line):
    run = run_of(diag("\n".join([*TRT_START, line, "Traceback (most recent call last):",
                                 '  File "/code/tensorrt_llm/executor/worker.py", line 738, in worker_main'])))
    assert run.kind == "NOT_OOM", (run.kind, run.code, run.message)


@pytest.mark.parametrize("line", [
    "[07/18/2025-20:27:59] [TRT-LLM] [E] Failed to initialize executor on rank 0: see the traceback above for details",
    "[07/18/2025-20:27:59] [TRT-LLM] [E] Failed to initialize executor on rank 0: CUDA error",
    "[07/18/2025-20:27:59] [TRT-LLM] [E] Failed to initialize executor on rank 0: cannot allocate the cache pool",
])
def test_a_wrapper_whose_words_after_the_colon_point_elsewhere_or_speak_of_memory_is_not_decided(line):
    run = run_of(diag("\n".join([*TRT_START, line, "Traceback (most recent call last):",
                                 '  File "/code/tensorrt_llm/executor/worker.py", line 738, in worker_main'])))
    assert run.kind != "NOT_OOM", (run.kind, run.code, run.message)


# --- a user's sentence in markdown emphasis is the user's; TensorRT-LLM's loader and KV-pool frames --------------------

from vramdoctor.logs.authorship import user_words  # noqa: E402


@pytest.mark.parametrize("text", [
    "When deploying the **qwen2.5-7B** model on a **3090**, VRAM runs out of memory when using **ModelRunnerCpp**.",
    "On the **second** request the server runs out of memory and exits.",
    "Loading the **70B** checkpoint with tensor parallel 2 fails with an out of memory error.",
])
def test_a_sentence_with_markdown_emphasis_is_a_users(text):
    assert user_words(text)


@pytest.mark.parametrize("text", [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    "llama_model_load: error loading model: unable to allocate CUDA0 buffer",
    "**Error**",
    '  File "/usr/lib/python3/site-packages/llama_cpp/llama.py", line 372, in __init__ of the class here',
])
def test_an_engines_line_is_not_a_users(text):
    assert not user_words(text)


TRT_CPP_KV = [
    "RuntimeError: ",
    "[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMalloc(ptr, n): out of memory",
    "(/src/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:92)",
    "1       0x7f00c4fcd438 void tensorrt_llm::common::check<cudaError>(cudaError, char const*, char const*, int) + 88",
    "2       0x7f00c528a6e3 tensorrt_llm::runtime::BufferManager::gpuSync(nvinfer1::Dims64, nvinfer1::DataType) + 339",
    "3       0x7f00c5bae3ab tensorrt_llm::batch_manager::kv_cache_manager::BlockManager::allocatePools(bool) + 635",
    "4       0x7f00c5baf5bd tensorrt_llm::batch_manager::kv_cache_manager::KVCacheManager::allocatePools(bool) + 61"]


def test_a_users_emphasised_sentence_above_the_engines_error_does_not_decide():
    said = ("With the **1.5B** engine on a **4090**, the GPU runs out of memory as soon as "
            "**ModelRunnerCpp** loads it, although **ModelRunner** takes only 6 GB.")
    run = run_of(diag("\n".join([said, "", "the error as follows:", "```", "RuntimeError: ", TRT_CPP_KV[1], "```", "",
                                 "partly logs as follows:", "```", *TRT_CPP_KV[1:], "```"])))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code, run.phase_source)


def test_tensorrt_llms_loader_names_the_module_it_could_not_place():
    line = ("Loading weights concurrently:  31%|###       | 410/1310 [00:02<00:06, 139.82it/s][09/01/2025-10:00:06] "
            "[TRT-LLM] [RANK 0] [E] Error executing load_single_module with args ('model.layers.12.self_attn.qkv_proj', "
            "Linear()): CUDA out of memory. Tried to allocate 96.00 MiB. GPU 0 has a total capacity of 23.55 GiB of "
            "which 40.12 MiB is free.")
    run = run_of(diag("\n".join(["[09/01/2025-10:00:00] [TRT-LLM] [I] Starting TensorRT-LLM init.", line])))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


# --- a user's sentence in the third person, above the engine's own line of the same failure ---------------------------

from vramdoctor.logs.authorship import sentence_like  # noqa: E402

VLLM_WEIGHTS_OOM = [
    "INFO 06-02 10:00:40 [gpu_model_runner.py:1595] Starting to load model Qwen/Qwen2.5-72B-Instruct...",
    "ERROR 06-02 10:01:10 [core.py:700] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 0 "
    "has a total capacity of 79.19 GiB of which 512.00 MiB is free."]
LLAMA_KV_OOM = [
    "llama_kv_cache_unified:      CUDA0 KV buffer size = 32768.00 MiB",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 32768.00 MiB on device 0: cudaMalloc failed: out of memory",
    "llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache"]


@pytest.mark.parametrize("said,log,kind", [
    ("After the upgrade, serving the model with TP=2 fails with OOM errors on every single request.", VLLM_WEIGHTS_OOM,
     "WEIGHTS"),
    ("Since the last release the server runs out of memory when it starts answering requests from the UI.",
     LLAMA_KV_OOM, "KV_CAPACITY"),
    ("The container crashes with an out of memory error while the weights are still being read from disk.",
     VLLM_WEIGHTS_OOM, "WEIGHTS"),
])
def test_a_third_person_sentence_above_the_engines_line_does_not_decide(said, log, kind):
    assert sentence_like(said)
    run = run_of(diag("\n".join([said, "", "```", *log, "```"])))
    assert run.kind == kind, (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("text", [
    "Of the allocated memory 20.50 GiB is allocated by PyTorch, and 1.20 GiB is reserved by PyTorch but unallocated.",
    "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to "
    "avoid fragmentation.",
    "INFO 06-02 10:00:40 [gpu_model_runner.py:1595] Starting to load model Qwen/Qwen2.5-72B-Instruct and more words.",
    "RuntimeError: The server failed to load the model because the GPU has too little memory for it.",
])
def test_a_programs_line_is_not_sentence_like(text):
    assert not sentence_like(text)


# --- a report's title that speaks of serving is no step the run passed: start-up frames place the failure ------------

LMDEPLOY_LOAD_TB = [
    "Traceback (most recent call last):",
    '  File "/opt/lmdeploy/lmdeploy/serve/async_engine.py", line 198, in _build_turbomind',
    "    self.engine = tm.TurboMind.from_pretrained(",
    '  File "/opt/lmdeploy/lmdeploy/turbomind/turbomind.py", line 226, in _from_hf',
    "    self._create_weight(model_comm)",
    '  File "/opt/lmdeploy/lmdeploy/turbomind/turbomind.py", line 152, in _create_weight',
    "    future.result()"]
VLLM_LOAD_TB = [
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1601, in load_model',
    "    self.model = model_loader.load_model(",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/model_loader/base_loader.py", line 41, in '
    "load_model",
    "    model = initialize_model(vllm_config=vllm_config,"]


@pytest.mark.parametrize("title,tb", [
    ("# lmdeploy对70B模型进行api推理时会出现out of memory", LMDEPLOY_LOAD_TB),
    ("# [Bug]: CUDA out of memory when sending requests through the API", VLLM_LOAD_TB),
    ("# OOM while serving chat requests with two GPUs", LMDEPLOY_LOAD_TB),
])
def test_a_title_of_serving_does_not_outrank_start_up_frames(title, tb):
    run = run_of(diag("\n".join([title, "", "```", *tb, "```"])))
    assert run.kind in ("WEIGHTS", "UNDETERMINED"), (run.kind, run.code, run.phase_source)
    assert run.kind != "UNDETERMINED" or "RUNTIME" not in run.candidates


@pytest.mark.parametrize("line", [
    "[TRT-LLM] [E] Exception CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of 44.35 GiB "
    "of which 147.88 MiB is free. caught while allocating memory; skipping (8, 2048, 2048)",
    "[bench] OOM at seq_len=32768, skipping batch size 64",
    "2025-06-02 10:00:00 WARNING torch.OutOfMemoryError: CUDA out of memory; skipping this config",
])
def test_an_oom_a_benchmark_caught_and_skipped_is_no_failure(line):
    run = run_of(diag("\n".join(["[TRT-LLM] [I] Starting TensorRT-LLM init.", line, "[bench] next config (4, 2048, 2048)"])))
    assert run.kind == "NONE", (run.kind, run.code)


# --- a log written newest first (a web console, a log explorer, `journalctl -r`) is read from its end ---------------

VLLM_OLDEST_FIRST = [
    "INFO 02-03 03:43:01 [llm_engine.py:100] Initializing an LLM engine with config: model='m', max_seq_len=32768",
    "INFO 02-03 03:43:24 [model_runner.py:120] Loading model weights took 13.48 GB",
    "INFO 02-03 03:43:48 [llm_engine.py:316] # GPU blocks: 7754, # CPU blocks: 2048",
    "INFO 02-03 03:43:49 [model_runner.py:625] Capturing the model for CUDA graphs.",
    "ERROR 02-03 03:44:03 [engine.py:190] Error initializing vLLM engine: CUDA out of memory. Tried to allocate "
    "112.00 MiB. GPU 0 has a total capacity of 44.35 GiB of which 53.38 MiB is free."]


def _console(lines):
    """A web console's records, newest first: its own stamp (in another time zone), the pod's id, the level, then
    the line."""
    out = []
    for i, line in enumerate(reversed(lines)):
        out += [f"2024-02-02 21:{44 - i:02d}:{(30 - i * 7) % 60:02d}.976", "[b2k2ml81pl56tl]", "[info]", line]
    return out


@pytest.mark.parametrize("lines", [
    _console(VLLM_OLDEST_FIRST),
    [f"2025-06-02 03:4{9 - i}:00.000\t{line}" for i, line in enumerate(reversed(VLLM_OLDEST_FIRST))],
    list(reversed(VLLM_OLDEST_FIRST)),
])
def test_a_log_written_newest_first_is_read_from_its_end(lines):
    rep = diag("\n".join(lines))
    run = run_of(rep)
    assert (run.kind, run.code) == ("WARMUP", "cuda-graph-capture-oom"), (run.kind, run.code, run.phase_source)
    assert any("newest first" in n for n in rep.notes)
    oom = next(e for e in run.evidence if "out of memory" in e["text"])
    assert lines[oom["line"] - 1] == oom["text"]  # (the file's own line number)


def test_journalctl_r_is_read_from_its_end():
    ollama = [
        'Jun 02 10:00:01 box ollama[812]: time=2025-06-02T10:00:01.000Z level=INFO source=server.go:400 '
        'msg="starting llama server" cmd="/usr/bin/ollama runner --model /m --ctx-size 32768 --batch-size 512"',
        "Jun 02 10:00:03 box ollama[812]: llama_kv_cache_unified:      CUDA0 KV buffer size =  4096.00 MiB",
        "Jun 02 10:00:04 box ollama[812]: ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 2147483648",
        "Jun 02 10:00:05 box ollama[812]: llama_init_from_model: failed to initialize the context: failed to allocate "
        "compute buffers",
        'Jun 02 10:00:06 box ollama[812]: time=2025-06-02T10:00:06.000Z level=ERROR source=sched.go:456 '
        'msg="error loading llama server" error="llama runner process has terminated: error:failed to create context"']
    rep = diag("\n".join(reversed(ollama)))
    assert run_of(rep).kind == "WARMUP", (run_of(rep).kind, run_of(rep).code)


def test_a_log_with_one_splice_is_not_read_backwards():
    lines = [*VLLM_OLDEST_FIRST[:2], VLLM_OLDEST_FIRST[0], *VLLM_OLDEST_FIRST[1:]]
    rep = diag("\n".join(lines))
    assert not any("newest first" in n for n in rep.notes)


@pytest.mark.parametrize("line", [
    "RuntimeError: oneCCL: ze_handle_manager.cpp:226 get_ptr: EXCEPTION: unknown memory type 0",
    "ValueError: unsupported memory layout channels_last_3d for the input tensor.",
    "RuntimeError: invalid memory access pattern requested by the kernel launcher config",
])
def test_memory_words_that_name_a_kind_not_an_amount_are_not_memory(line):
    run = run_of(diag("\n".join([*VLLM_SERVING, line])))
    assert run.kind == "NOT_OOM", (run.kind, run.code)


@pytest.mark.parametrize("said", ["启动后 使用一段时间 显存越占越大 最后会崩掉", "内存越用越多，只能重启服务", "# 用了一段时间 显存越占越多",
                                  # memory not released, or leaking with words between
                                  "服务相关进程内存不会释放，最终打爆服务器内存", "存在内存(不是GPU显存)泄漏问题"])
def test_chinese_growth_the_more_it_is_used(said):
    run = run_of(diag("\n".join([*VLLM_SERVING, said])))
    assert run.kind == "LEAK", (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "Whenever I make a call using dify, I always encounter the following error:",
    "When we make completions against it from the app, it dies with this:",
    "Every time the client calls the model through the gateway it crashes:",
])
def test_a_user_who_makes_calls_is_serving(said):
    lines = [said, "2024-01-18 21:27:53,300 xinference.core.model 35043 ERROR    Model actor is out of memory."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


# --- a log the user calls an error or crash log, cut during start-up, is no clean log -------------------------------

KOBOLD_CUT = ["***", "Welcome to KoboldCpp - Version 1.98.1", "***", "Auto Selected CUDA Backend (flag=0)",
              "Detected Available GPU Memory: 12288 MB", "Detected Available RAM: 3100 MB",
              "Initializing dynamic library: koboldcpp_cublas.dll", "=========="]
LLAMA_CUT = ["build: 6500 (abc1234) with cc (GCC) 13.2.0 for x86_64-linux-gnu",
             "main: llama backend init", "main: load the model and apply lora adapter, if any",
             "llama_model_loader: loaded meta data with 40 key-value pairs and 579 tensors from /m/qwen3-32b.gguf"]


@pytest.mark.parametrize("said", ["Here is the error log:", "It crashes right after this:", "The crash log:"])
@pytest.mark.parametrize("log", [KOBOLD_CUT, LLAMA_CUT])
def test_a_log_called_an_error_log_and_cut_in_start_up_is_undetermined(said, log):
    run = run_of(diag("\n".join(["# Tried running it with low RAM", "", said, "", *log])))
    assert run.kind == "UNDETERMINED", (run.kind, run.code, run.message)


@pytest.mark.parametrize("said", ["Here is the startup log, it works fine:", "Log of a good run for comparison:"])
def test_a_log_called_fine_and_cut_in_start_up_is_not_a_failure(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_CUT])))
    assert run.kind == "NONE", (run.kind, run.code)


# --- Ray's memory monitor kills a task for host RAM; an engine named inside another's name ----------------------------

RAY_OOM = [
    "ERROR 03-21 17:27:44 [core.py:340] ray.exceptions.OutOfMemoryError: Task was killed due to the node running low "
    "on memory.",
    "ERROR 03-21 17:27:44 [core.py:340] Memory on the node (IP: 10.0.0.4) where the task was running was 2152.11GB / "
    "2265.36GB (0.95), which exceeds the memory usage threshold of 0.95."]


@pytest.mark.parametrize("before,kind", [
    (["# [Bug]: workers die when inferencing with a large batch size"], "RUNTIME"),
    (VLLM_SERVING, "RUNTIME"),
    (VLLM_LOADING, "WEIGHTS"),
])
def test_rays_memory_monitor_kill_is_host_memory(before, kind):
    run = run_of(diag("\n".join([*before, *RAY_OOM])))
    assert run.kind == kind and run.code in ("host-oom-kill", "weights-exceed-system-memory"), (run.kind, run.code)


def test_an_engine_named_inside_another_engines_name_is_not_it():
    lines = ["vllm-rs-svc0  | 2025-11-02T10:00:00Z INFO Prefilling 1 seq(s): 20000 total tokens",
             "vllm-rs-svc0  | 2025-11-02T10:00:09Z ERROR cuGraphLaunch failed: CUDA_ERROR_OUT_OF_MEMORY"]
    assert diag("\n".join(lines)).engine != "vllm"


# --- the user's words above a log that begins with its start line are about that log ---------------------------------

VLLM_KV_SIZED = ["INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1",
                 "INFO 06-02 10:00:40 [gpu_model_runner.py:1595] Starting to load model m...",
                 "INFO 06-02 10:01:40 [gpu_model_runner.py:1600] Model loading took 14.99 GiB and 60 seconds",
                 "INFO 06-02 10:02:00 [kv_cache_utils.py:849] GPU KV cache size: 93,872 tokens", "Killed"]
OLLAMA_LOADED = [
    'time=2025-03-01T10:00:01.000Z level=INFO source=server.go:376 msg="starting llama server" '
    'cmd="/usr/lib/ollama/ollama runner --model /m --ctx-size 8192 --batch-size 512 --port 40001"',
    "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 4090) - 23000 MiB free",
    "load_tensors: offloaded 33/33 layers to GPU",
    "load_tensors:        CUDA0 model buffer size =  4403.49 MiB",
    "Killed"]


@pytest.mark.parametrize("said", [
    "The process gets killed as soon as I send the first request.",
    "# Server killed on the first chat request\n\nIt dies the moment a prompt comes in; here is the log:",
    "When our app posts a request to the server it is killed by the kernel. Log:",
])
@pytest.mark.parametrize("log", [VLLM_KV_SIZED, OLLAMA_LOADED])
def test_the_users_words_above_a_log_with_its_start_line_are_about_it(said, log):
    rep = diag("\n".join([said, "", *log]))
    assert len(rep.runs) == 1, [(r.first_line, r.kind) for r in rep.runs]
    run = run_of(rep)
    assert (run.kind, run.code) == ("RUNTIME", "host-oom-kill"), (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("where", [
    'cmd="/usr/bin/ollama runner --model /m --ctx-size 32768 --batch-size 512 --n-gpu-layers 33 --port 40001"',
    'cmd="/usr/lib/ollama/runners/cuda_v12/ollama_llama_server --model /m --ctx-size 32768 --batch-size=512 --port 1"',
    'msg=load request="{Operation:commit LoraPath:[] Parallel:1 BatchSize:512 FlashAttention:false KvSize:32768}"',
])
def test_ollamas_num_batch_is_read_from_the_runners_command_or_load_request(where):
    lines = [f'time=2025-06-02T10:00:01.000Z level=INFO source=server.go:400 msg="starting llama server" {where}',
             "llama_kv_cache_unified:      CUDA0 KV buffer size =  4096.00 MiB",
             "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 2147483648",
             "llama_init_from_model: failed to initialize the context: failed to allocate compute buffers"]
    run = run_in("\n".join(lines), "ollama")
    batch = next(a for a in run.advice if a["setting"] == "n_ubatch")
    assert batch["current"] == 512 and "num_batch" in batch["flags"], batch
    assert batch["value"] is None or batch["value"] < 512


# --- a figure read in another engine's words is not this run's -------------------------------------------------------

SGLANG_NO_POOL = [
    "[2025-06-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-32B-Instruct', mem_fraction_static=0.6, "
    "tp_size=1, context_length=32768)",
    "[2025-06-01 10:00:40 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=17.20 GB, "
    "mem usage=61.30 GB.",
    "[2025-06-01 10:00:41 TP0] RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."]


@pytest.mark.parametrize("compare", [
    ["For comparison, vLLM with --gpu-memory-utilization 0.9 starts fine:",
     "INFO 06-01 11:00:00 [kv_cache_utils.py:849] GPU KV cache size: 93,872 tokens",
     "INFO 06-01 11:00:00 [gpu_worker.py:276] Available KV cache memory: 12.50 GiB"],
    ["vllm serve Qwen/Qwen2.5-32B-Instruct --gpu-memory-utilization 0.95 --max-model-len 16384 works on the same box"],
])
def test_another_engines_figures_are_not_the_runs(compare):
    run = run_in("\n".join([*SGLANG_NO_POOL, "", *compare]), "sglang")
    assert "gpu_memory_utilization" not in run.numbers and "kv_pool_tokens" not in run.numbers, run.numbers
    assert run.numbers.get("max_model_len") == 32768, run.numbers


def test_a_llama_server_batch_is_not_ollamas_num_batch():
    lines = ["./llama-server -m /m/qwen.gguf -c 32768 --batch-size 2048 -ngl 99",
             "llama_kv_cache_unified:      CUDA0 KV buffer size =  4096.00 MiB",
             "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 2147483648",
             "llama_init_from_model: failed to initialize the context: failed to allocate compute buffers"]
    run = run_in("\n".join(lines), "llamacpp")
    assert run.numbers.get("n_ubatch") != 2048, run.numbers


@pytest.mark.parametrize("said", ["这个模型在两张4090上无法加载，日志如下：", "模型跑不起来，日志：", "换了新版本以后启动不了："])
def test_chinese_words_of_a_model_that_cannot_load_state_a_failure(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_CUT])))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


@pytest.mark.parametrize("said", ["不是无法加载，只是速度慢，日志如下：", "日志如下："])
def test_chinese_words_without_a_failure_state_none(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_CUT])))
    assert run.kind == "NONE", (run.kind, run.code)


# --- advice never lowers a count that is one already ------------------------------------------------------------------

def test_a_lower_max_num_seqs_is_not_offered_at_one():
    lines = ["vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.98 --max-num-seqs 1",
             "INFO 06-01 10:00:01 [gpu_model_runner.py:2007] Model loading took 14.99 GiB and 15.0 seconds",
             "INFO 06-01 10:00:05 [gpu_worker.py:276] Available KV cache memory: 4.98 GiB",
             "INFO 06-01 10:00:06 [gpu_model_runner.py:2500] Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):"
             "  40%|####      | 4/10 [00:01<00:02, 2.5it/s]",
             "ERROR 06-01 10:00:07 [core.py:700] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."]
    run = run_in("\n".join(lines), "vllm")
    assert run.kind == "WARMUP", (run.kind, run.code)
    assert "max-num-seqs" not in flags(run), flags(run)


def test_a_model_in_text_generation_webuis_folder_run_by_llama_cpp_is_llama_cpp():
    history = [f" {n}  ./main -m /data/text-generation-webui/models/marx-3b.Q4_1.gguf -n {n % 7}" for n in range(900, 906)]
    lines = ["(textgen) [root@box bin]# history | tail", *history, "(textgen) [root@box bin]# ./main -m "
             "/data/text-generation-webui/models/marx-3b.Q4_1.gguf -n 0 -ngl 99",
             "llama_model_loader: loaded meta data with 19 key-value pairs and 291 tensors from "
             "/data/text-generation-webui/models/marx-3b.Q4_1.gguf (version GGUF V2)",
             "ggml_cuda_host_malloc: warning: failed to allocate 2048.00 MB of pinned memory: out of memory"]
    assert diag("\n".join(lines)).engine == "llamacpp"


@pytest.mark.parametrize("off", ["--no-enable-chunked-prefill", "--enable-chunked-prefill false"])
def test_a_smaller_prefill_step_turns_chunked_prefill_back_on_where_it_is_off(off):
    lines = [f"vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 {off}",
             "INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.10.1",
             "INFO:     Application startup complete.",
             'INFO:     10.0.0.2:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             "ERROR 06-01 10:10:07 [core.py:700] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB."]
    run = run_in("\n".join(lines), "vllm")
    assert run.kind == "RUNTIME", (run.kind, run.code)
    step = [a for a in run.advice if a["setting"] == "max_num_batched_tokens"]
    assert step and all("--enable-chunked-prefill" in a["flags"] for a in step), run.advice


# --- a figure one engine gives as one value and another as a series --------------------------------------------------

def _mixed_mode_keys():
    from vramdoctor.logs.knowledge import knowledge

    modes: dict[str, set[str]] = {}
    for f in knowledge().figures:
        modes.setdefault(f.key, set()).add(f.mode)
    return sorted(k for k, m in modes.items() if len(m) > 1)


def test_some_figures_are_given_both_ways():
    assert "free_memory_bytes" in _mixed_mode_keys()


@pytest.mark.parametrize("key", _mixed_mode_keys())
def test_a_figure_given_both_ways_in_one_run_is_kept(key):
    from vramdoctor.logs.facts import RunFacts
    from vramdoctor.logs.knowledge import knowledge

    modes = sorted({f.mode for f in knowledge().figures if f.key == key})
    for first, second in [(a, b) for a in modes for b in modes if a != b]:
        r = RunFacts(first_line=1)
        r.note(key, ("x", 1) if first == "map" else 1, first, 1)
        r.note(key, ("x", 2) if second == "map" else 2, second, 2)
        assert key in r.numbers


@pytest.mark.parametrize("lines", [
    ["torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 160.00 MiB (GPU 0; 79.35 GiB total capacity; "
     "78.58 GiB already allocated; 145.19 MiB free; 78.58 GiB reserved in total by PyTorch)",
     "[2025-05-01 10:00:30 TP0] Load weight begin. avail mem=78.50 GB"],
    ["Old build (works):", "llama_new_context_with_model: n_ctx      = 8192",
     "llama_new_context_with_model: KV self size  = 1024.00 MiB, K (f16):  512.00 MiB, V (f16):  512.00 MiB",
     "New build b6000 (fails):", "llama_context: n_ctx         = 8192",
     "llama_kv_cache:      CUDA0 KV buffer size =  1024.00 MiB",
     "llama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  1/1 seqs), K (f16):  512.00 MiB, V (f16):  "
     "512.00 MiB",
     "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1200.00 MiB on device 0: cudaMalloc failed: out of memory"],
])
def test_pastes_that_give_a_figure_both_ways_are_diagnosed(lines):
    assert diag("\n".join(lines)).runs


def _corpus_lines() -> list[str]:
    from pathlib import Path

    root = Path(__file__).parent / "data"
    out = []
    for p in sorted(list((root / "logs").rglob("*.log")) + list((root / "logs_own").rglob("*.log"))):
        out += [t for t in p.read_text(encoding="utf-8", errors="replace").splitlines() if t.strip()]
    return out


@pytest.mark.parametrize("seed", range(100))
def test_random_mixes_of_engines_lines_never_crash(seed):
    """Lines of every engine's logs pasted together in any order (users paste pieces of several): a report, never
    a traceback of vramdoctor's own. (Seed 78 crashed the code before figures given both ways were kept.)"""
    import random

    lines = _corpus_lines()
    rng = random.Random(seed)
    for _ in range(5):
        assert diag("\n".join(rng.sample(lines, rng.randint(2, 14)))).runs is not None


# --- a user's sentence or a bare title of serving sets no floor over the engine's start-up frames ---------------------

VLLM_LOAD_OOM = [
    "ERROR 06-01 10:00:40 [core.py:515] Traceback (most recent call last):",
    'ERROR 06-01 10:00:40 [core.py:515]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/'
    'gpu_model_runner.py", line 1340, in load_model',
    'ERROR 06-01 10:00:40 [core.py:515]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/'
    'linear.py", line 300, in weight_loader',
    "ERROR 06-01 10:00:40 [core.py:515] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 270.00 MiB."]
LMDEPLOY_LOAD_OOM = [
    "Traceback (most recent call last):",
    '  File "/opt/lmdeploy/lmdeploy/turbomind/turbomind.py", line 300, in _create_weight',
    "RuntimeError: CUDA out of memory"]
SGLANG_LOAD_OOM = [
    "[2025-06-01 10:00:41 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 600, in load_model',
    "    self.model = get_model(",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."]


@pytest.mark.parametrize("said", [
    "We deployed it behind dify and the crash below happens when we send requests.",
    "[Bug] CUDA OOM during inference (Qwen2.5-72B, 4xA10)",
    "Title: GPU OOM during inference on long prompts",
])
@pytest.mark.parametrize("log", [VLLM_LOAD_OOM, LMDEPLOY_LOAD_OOM, SGLANG_LOAD_OOM])
def test_words_of_serving_set_no_floor_over_start_up_frames(said, log):
    run = run_of(diag("\n".join([said, "", *log])))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("tag", ["(ServeReplica:default:VLLMDeployment pid=5555)", "(ServeReplica:app:VLLMDeployment pid=1)"])
def test_ray_serves_vllm_deployment_is_vllm(tag):
    lines = [f"{tag} INFO 06-01 14:00:00 llm_engine.py:100] Initializing an LLM engine (v0.6.3) with config: "
             "model='m', max_seq_len=131072, tensor_parallel_size=4, gpu_memory_utilization=0.9",
             f"{tag} ERROR 06-01 14:02:00 serve.py:10] ValueError: The model's max seq len (131072) is larger than the "
             "maximum number of tokens that can be stored in KV cache (43000). Try increasing `gpu_memory_utilization` "
             "or decreasing `max_model_len` when initializing the engine.",
             f"{tag} Traceback (most recent call last):", f'{tag}   File "/app/serve.py", line 40, in __init__',
             f"{tag}     self.engine = AsyncLLMEngine.from_engine_args(engine_args)",
             f'{tag}   File "/app/serve.py", line 52, in start']
    run = run_in("\n".join(lines), "vllm")
    assert run.kind == "KV_CAPACITY"
    assert "--gpu-memory-utilization" in flags(run) and "--session-len" not in flags(run), flags(run)


# --- SIGKILL as shells, systemd and TGI's launcher report it; a kill the user says was theirs -------------------------

LLAMA_BUFFERS = ["load_tensors: offloading 40 repeating layers to GPU", "load_tensors: offloaded 40/81 layers to GPU",
                 "load_tensors:        CUDA0 model buffer size = 19700.00 MiB",
                 "load_tensors:   CPU_Mapped model buffer size = 20400.00 MiB"]


@pytest.mark.parametrize("kill", [
    "[1]    83712 killed     ./llama-server -m /models/llama-70b.Q4_K_M.gguf -ngl 40 -c 8192 --no-mmap",
    "zsh: killed     ./llama-server -m /models/llama-70b.Q4_K_M.gguf -ngl 40",
    "bash: line 1:  4242 Killed                  ./llama-server -m /models/llama-70b.Q4_K_M.gguf",
    "[1]+  Killed                  ./llama-server -m /models/llama-70b.Q4_K_M.gguf -ngl 40",
])
def test_a_shells_kill_while_llama_cpp_reads_its_weights_is_host_memory(kill):
    run = run_of(diag("\n".join([*LLAMA_BUFFERS, kill])))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-system-memory"), (run.kind, run.code)
    assert run.inferred  # (the shell does not say who killed it)


@pytest.mark.parametrize("kill", [
    "May 02 10:00:00 box systemd[1]: vllm.service: Main process exited, code=killed, status=9/KILL",
    "2024-06-01T10:03:05.000000Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to shutdown "
    "with signal 9 rank=0",
])
def test_systemd_and_tgi_report_a_sigkill(kill):
    run = run_of(diag("\n".join([*VLLM_LOADING, kill])))
    assert run.kind in ("WEIGHTS", "UNDETERMINED") and "host" in run.code or "system-memory" in run.code, (
        run.kind, run.code)


@pytest.mark.parametrize("lines", [
    ["Container got killed with exit code 137 after I ran `docker stop`, it took more than 10s to shut down.", "",
     *VLLM_SERVING, "INFO:     Shutting down", "vllm-1 exited with code 137"],
    [*VLLM_LOADING, "vllm-1 exited with code 137 (no OOM, I ran kill -9 myself)"],
    [*VLLM_LOADING, "error: container exited with status 137 (OOMKilled=false)"],
])
def test_a_kill_the_user_or_container_says_was_not_the_oom_killer(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "process-killed"), (run.kind, run.code)
    assert [a["change"] for a in run.advice] == ["find who killed it"], run.advice


@pytest.mark.parametrize("said", ["Error log:", "Error logs:", "## Error log", "error log below", "Full error output:",
                                  "Stack trace / error:"])
def test_a_heading_that_calls_the_paste_an_error_log_states_a_failure(said):
    run = run_of(diag("\n".join([said, "", *LLAMA_CUT])))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


@pytest.mark.parametrize("line,kind", [
    ("terminate called after throwing an instance of 'std::bad_alloc'", "WEIGHTS"),
    ("[TRT-LLM] [E] Failed to initialize executor on rank 0: std::bad_alloc", "WEIGHTS"),
    ("RuntimeError: Failed to load model: Unable to allocate 30.5 GiB for an array with shape (32000, 250000) and "
     "data type float32", "WEIGHTS"),
])
def test_host_allocation_words_while_loading_are_host_memory(line, kind):
    run = run_of(diag("\n".join([*VLLM_LOADING, line])))
    assert run.kind == kind and run.code == "weights-exceed-system-memory", (run.kind, run.code)


@pytest.mark.parametrize("cause", [
    "Cannot determine model architecture from config",
    "The engine was built for a different GPU (sm_89) than the one in use (sm_90).",
    "Invalid model config: num_attention_heads must be divisible by tp_size.",
    "Permission denied: /models/engine/rank0.engine is not readable by this user",
])
def test_a_wrapper_names_its_cause_as_the_last_line_with_brackets_or_its_own_colon(cause):
    run = run_of(diag("\n".join([*TRT_START, f"[07/18/2025-20:27:59] [TRT-LLM] [E] Failed to initialize executor on "
                                              f"rank 0: {cause}"])))
    assert run.kind == "NOT_OOM", (run.kind, run.code)


# --- a host kill pasted above the server's own lines is read against them ---------------------------------------------

@pytest.mark.parametrize("kill", [
    ["    Last State:     Terminated", "      Reason:       OOMKilled", "      Exit Code:    137"],
    ["dmesg:", "[12345.678] Out of memory: Killed process 4242 (python3) total-vm:98765432kB, anon-rss:62000000kB"],
    ['        "OOMKilled": true,', '        "ExitCode": 137,'],
])
@pytest.mark.parametrize("log,kind", [
    (["INFO 05-12 10:03:20 [gpu_model_runner.py:1329] Starting to load model Qwen/Qwen2.5-72B-Instruct...",
      "Loading safetensors checkpoint shards:  10% Completed | 4/37 [00:40<05:30, 10.0s/it]"], "WEIGHTS"),
    (['[2025-05-01 12:29:50] INFO:     127.0.0.1:5555 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
      "[2025-05-01 12:29:58 TP0] Decode batch. #running-req: 12, #token: 40212, token usage: 0.31, gen throughput "
      "(token/s): 812.33, #queue-req: 0"], "RUNTIME"),
])
def test_a_host_kill_pasted_above_the_servers_lines_is_read_against_them(kill, log, kind):
    run = run_of(diag("\n".join([*kill, "", *log])))
    assert run.kind == kind, (run.kind, run.code, run.phase_source)


def test_aphrodites_short_flags_on_a_command_with_quoted_arguments():
    lines = ["Running Aphrodite as I normally do:",
             './runtime.sh python -m aphrodite.endpoints.openai.api_server --model /m/Miqu-70B -q gptq -tp 2 --host '
             '"192.168.1.6" --max-model-len 16000 -gmu .97 --served-model-name "me/Miqu-70B"',
             "INFO:     # GPU blocks: 6, # CPU blocks: 1638",
             "ValueError: The model's max seq len (16000) is larger than the maximum number of tokens that can be "
             "stored in KV cache (96). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
             "initializing the engine."]
    rep = diag("\n".join(lines))
    run = run_of(rep)
    assert rep.engine == "aphrodite", rep.engine
    n = run.numbers
    assert (n.get("gpu_memory_utilization"), n.get("tensor_parallel_size"), n.get("quantization")) == (0.97, 2, "gptq")
    assert all(a["setting"] != "quantization" for a in run.advice), run.advice


# --- a Go log line's source is no stack frame; a title's failure has no lines before it -------------------------------

@pytest.mark.parametrize("config", [
    '  2025/03/21 19:47:08    routes.go:1230: INFO server config env="map[OLLAMA_FLASH_ATTENTION:true '
    'OLLAMA_KV_CACHE_TYPE:q8_0 OLLAMA_NUM_PARALLEL:0]"',
    "2025/03/21 19:47:08 routes.go:1231: INFO Listening on 127.0.0.1:11434 (version 0.6.2)",
    '2024/11/02 08:00:00 sched.go:155: INFO the KV cache type was given: OLLAMA_KV_CACHE_TYPE=q8_0',
])
def test_a_title_of_an_oom_over_a_config_line_is_undetermined(config):
    run = run_of(diag("\n".join(["# ollama v0.6.2 gemma 3 OOM: Killed process", "", "Relevant log output:", config])))
    assert run.kind == "UNDETERMINED", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("error", [
    ["[2024-12-13 01:47:34] Initialization failed. warmup error: Traceback (most recent call last):",
     '  File "/home/sglang/python/sglang/srt/server.py", line 621, in _wait_and_warmup',
     '    assert res.status_code == 200, f"{res=}, {res.text=}"',
     "AssertionError: res=<Response [502]>, res.text=''"],
    ["[2024-12-13 01:47:34] Initialization failed. warmup error: Traceback (most recent call last):",
     "requests.exceptions.ConnectionError: HTTPConnectionPool(host='127.0.0.1', port=30000): Max retries exceeded "
     "with url: /generate (Caused by ProxyError('Unable to connect to proxy'))"],
])
def test_a_bare_kill_after_the_engines_own_error_is_the_engine_ending_itself(error):
    lines = ["[2024-12-13 01:45:02] INFO:     Application startup complete.", *error, "", "Killed"]
    run = run_of(diag("\n".join(lines)))
    # (an assertion says which check broke, not why: undetermined; a connection error names its cause)
    assert run.kind in ("NOT_OOM", "UNDETERMINED") and run.oom is not True, (run.kind, run.code)
    assert run.kind == "NOT_OOM" or "AssertionError" in error[-1]


@pytest.mark.parametrize("said,kind", [
    ("With long outputs the GPU KV cache usage reaches 100%, then the model doesn't generate anything.", "RUNTIME"),
    ("Under load the KV cache usage hits 100% and new requests just wait.", "RUNTIME"),
    ("What happens when GPU KV cache usage reaching 100%?", "NONE"),
])
def test_a_kv_pool_full_in_the_users_words(said, kind):
    run = run_of(diag("\n".join([*VLLM_SERVING, said])))
    assert run.kind == kind, (run.kind, run.code)


@pytest.mark.parametrize("line,code", [
    ("[Thu Feb 12 20:35:53 2026] amdgpu 0000:65:00.0: amdgpu: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:3)",
     "illegal-memory-access"),
    ("[ 812.1] amdgpu 0000:03:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00301031", "illegal-memory-access"),
    ("/home/u/llama.cpp/ggml/src/ggml-cuda/fattn.cu:574: fatal error", "ggml-assert"),
])
def test_a_gpu_page_fault_or_ggmls_abort_is_not_memory(line, code):
    run = run_of(diag("\n".join([*LLAMA_SERVING, line])))
    assert (run.kind, run.code) == ("NOT_OOM", code), (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "The system RAM (1TB) went all the way to 100% and the whole box froze, then the scheduler died.",
    "RAM usage climbs to 98% while the shards load and then the process is killed.",
])
def test_host_ram_rising_to_a_share_then_a_death_while_loading_is_the_weights(said):
    lines = ["[2025-06-02 10:00:02 TP0] Load weight begin. avail mem=78.50 GB",
             "Loading safetensors checkpoint shards:  30% Completed | 9/30 [01:21<03:10,  9.05s/it]", said]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-system-memory"), (run.kind, run.code)


def test_host_ram_at_load_with_cpu_offload_gets_less_offload():
    lines = ["$ vllm serve meta-llama/Llama-3.1-70B-Instruct --cpu-offload-gb 60 --max-model-len 4096", *VLLM_LOADING,
             "Loading safetensors checkpoint shards:  40% Completed | 12/30 [01:00<01:30, 4.0s/it]", "Killed"]
    run = run_in("\n".join(lines), "vllm")
    step = [a for a in run.advice if a["setting"] == "cpu_offload"]
    assert step and step[0]["direction"] == "down" and step[0]["current"] == 60, run.advice


@pytest.mark.parametrize("cut", ["Traceback (most recent", "terminate called after", "torch.OutOfMemoryError"])
def test_a_log_cut_between_an_errors_first_words_is_cut(cut):
    lines = ["INFO 05-24 22:18:21 weight_utils.py:177] Using model weights format ['*.safetensors']",
             "INFO 05-24 22:18:27 model_runner.py:104] Loading model weights took 15.2075 GB", cut]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


@pytest.mark.parametrize("said,kind", [
    ("随着访问次数的增加，可以看到显存慢慢增大，最终会报OOM错误", "LEAK"),
    ("一旦对显存的请求过大，服务就会hang住。日志信息表示：Out of memory.", "RUNTIME"),
    ("负载过高的时候服务会崩溃，日志里是 CUDA out of memory", "RUNTIME"),
])
def test_chinese_words_of_growth_and_of_load(said, kind):
    run = run_of(diag("\n".join([said])))
    assert run.kind == kind, (run.kind, run.code)


def test_a_wrapper_over_structured_log_lines_says_no_traceback():
    lines = ["Error: llama runner process has terminated: error:failed to create context with model '/m/blob'",
             'time=2024-08-09T14:28:55.092+03:00 level=DEBUG source=gpu.go:359 msg="updating system memory data" '
             'before.total="31.9 GiB" before.free="17.1 GiB"']
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "UNDETERMINED" and "traceback" not in run.missing, (run.kind, run.missing)


@pytest.mark.parametrize("said", ["It ran out of memory after handling only 6 conversations.",
                                  "CUDA out of memory after about 200 requests, every time."])
def test_a_number_of_requests_handled_is_serving(said):
    run = run_of(diag("\n".join(["lmdeploy serve api_server /models/internlm2-chat-20b --server-port 23333", said])))
    assert run.kind in ("RUNTIME", "LEAK"), (run.kind, run.code)


@pytest.mark.parametrize("said", ["按照教程运行，模型加载报错，cuda out of memory,", "モデルの読み込みで cuda out of memory になります",
                                  "모델을 불러올 때 CUDA out of memory 오류가 납니다"])
def test_a_users_words_in_cjk_above_a_served_start_are_no_recovered_failure(said):
    lines = [said, "Init model", "INFO:     Application startup complete.",
             "INFO:     Uvicorn running on http://0.0.0.0:8090 (Press CTRL+C to quit)",
             "(Worker pid=1566571) /venv/lib/python3.9/site-packages/vllm/worker/worker.py:218: UserWarning"]
    run = run_of(diag("\n".join(lines)))
    assert run.code != "recovered-at-start", (run.kind, run.code)
