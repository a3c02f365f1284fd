"""`vramdoctor logs` on the kinds of fault left open by the held-out rounds 38-45 (issue 6's note of stop 20), each
with logs of our own in other engines, versions and wordings (none of the held-out logs' own lines). The engines' lines
follow their sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, flags, run_in, run_of

# --- Ollama's new engine (v0.11+): the load request's layout, and the sizes it prints after the request -----------------
# llm/server.go: Fit, then Alloc (weights, cache and graph allocated together), then Commit; a layout that does not fit
# is retried with a backoff ("model layout did not fit, applying backoff") and given up past 1.0 ("memory layout cannot
# be allocated"); ml/device.go prints each ledger's size per device after every request, the failed one included.

OLLAMA_WEIGHTS = """
    time=2025-12-11T20:40:03.100-05:00 level=INFO source=routes.go:1600 msg="Listening on 127.0.0.1:11434 (version 0.13.2)"
    time=2025-12-11T20:41:10.000-05:00 level=INFO source=server.go:792 msg="loading model" "model layers"=81 requested=81
    time=2025-12-11T20:41:10.012-05:00 level=INFO source=runner.go:1297 msg=load request="{Operation:alloc LoraPath:[] Parallel:1 BatchSize:512 FlashAttention:true KvSize:4096 KvCacheType:q8_0 NumThreads:12 GPULayers:81[ID:GPU-77aa Layers:81(0..80)] MultiUserCache:false ProjectorPath: MainGPU:0 UseMmap:false}"
    ggml_backend_cuda_buffer_type_alloc_buffer: allocating 39936.00 MiB on device 0: cudaMalloc failed: out of memory
    alloc_tensor_range: failed to allocate CUDA0 buffer of size 41875931136
    time=2025-12-11T20:41:10.500-05:00 level=INFO source=device.go:245 msg="model weights" device=CUDA0 size="39.0 GiB"
    time=2025-12-11T20:41:10.500-05:00 level=INFO source=device.go:256 msg="kv cache" device=CUDA0 size="680.0 MiB"
    time=2025-12-11T20:41:10.500-05:00 level=INFO source=device.go:267 msg="compute graph" device=CUDA0 size="1.0 GiB"
    Error: 500 Internal Server Error: memory layout cannot be allocated with num_gpu = 81
"""
OLLAMA_GRAPH = """
    time=2025-10-30T08:00:00.000Z level=INFO source=routes.go:1511 msg="Listening on [::]:11434 (version 0.12.7)"
    time=2025-10-30T08:00:10.000Z level=INFO source=server.go:792 msg="loading model" "model layers"=37 requested=-1
    time=2025-10-30T08:00:10.100Z level=INFO source=runner.go:1297 msg=load request="{Operation:alloc LoraPath:[] Parallel:2 BatchSize:2048 FlashAttention:false KvSize:16384 KvCacheType: NumThreads:6 GPULayers:37[ID:0 Layers:37(0..36)] MultiUserCache:false ProjectorPath: MainGPU:0 UseMmap:false}"
    ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2150.50 MiB on device 0: cudaMalloc failed: out of memory
    ggml_gallocr_reserve_n: failed to allocate ROCm0 buffer of size 2254963712
    time=2025-10-30T08:00:10.900Z level=INFO source=device.go:245 msg="model weights" device=ROCm0 size="4.3 GiB"
    time=2025-10-30T08:00:10.900Z level=INFO source=device.go:256 msg="kv cache" device=ROCm0 size="2.2 GiB"
    time=2025-10-30T08:00:10.900Z level=INFO source=device.go:267 msg="compute graph" device=ROCm0 size="2.1 GiB"
    time=2025-10-30T08:00:10.900Z level=INFO source=device.go:272 msg="total memory" size="8.6 GiB"
"""
OLLAMA_KV_LAYER = """
    time=2025-10-30T08:00:00.000Z level=INFO source=routes.go:1511 msg="Listening on [::]:11434 (version 0.12.7)"
    time=2025-10-30T08:00:10.000Z level=INFO source=server.go:792 msg="loading model" "model layers"=37 requested=-1
    time=2025-10-30T08:00:10.100Z level=INFO source=runner.go:1297 msg=load request="{Operation:alloc LoraPath:[] Parallel:1 BatchSize:512 FlashAttention:false KvSize:65536 KvCacheType: NumThreads:6 GPULayers:37[ID:0 Layers:37(0..36)] MultiUserCache:false ProjectorPath: MainGPU:0 UseMmap:false}"
    ggml_backend_cuda_buffer_type_alloc_buffer: allocating 256.00 MiB on device 0: cudaMalloc failed: out of memory
    time=2025-10-30T08:00:10.900Z level=INFO source=device.go:245 msg="model weights" device=CUDA0 size="4.3 GiB"
    time=2025-10-30T08:00:10.900Z level=INFO source=device.go:256 msg="kv cache" device=CUDA0 size="9.0 GiB"
    time=2025-10-30T08:00:10.900Z level=INFO source=device.go:267 msg="compute graph" device=CUDA0 size="300.0 MiB"
    time=2025-10-30T08:00:11.000Z level=INFO source=server.go:914 msg="model layout did not fit, applying backoff" backoff=0.10
    time=2025-10-30T08:00:19.000Z level=WARN source=server.go:908 msg="memory layout cannot be allocated" memory.InputWeights=55050240
    time=2025-10-30T08:00:19.010Z level=INFO source=sched.go:511 msg="Load failed" model=/root/.ollama/models/blobs/sha256-1c2d error="memory layout cannot be allocated"
"""
OLLAMA_LAYOUT_KV = """
    time=2025-10-21T14:02:10.001Z level=INFO source=routes.go:1511 msg="Listening on [::]:11434 (version 0.12.6)"
    time=2025-10-21T14:03:02.417Z level=INFO source=server.go:433 msg="starting runner" cmd="/usr/bin/ollama runner --ollama-engine --model /models/blobs/sha256-aa01 --port 36011"
    time=2025-10-21T14:03:02.700Z level=INFO source=server.go:792 msg="loading model" "model layers"=63 requested=-1
    time=2025-10-21T14:03:02.731Z level=INFO source=runner.go:1297 msg=load request="{Operation:alloc LoraPath:[] Parallel:4 BatchSize:512 FlashAttention:false KvSize:131072 KvCacheType: NumThreads:16 GPULayers:63[ID:GPU-0a9c Layers:63(0..62)] MultiUserCache:false ProjectorPath: MainGPU:0 UseMmap:false}"
    ggml_backend_cuda_buffer_type_alloc_buffer: allocating 20480.00 MiB on device 0: cudaMalloc failed: out of memory
    time=2025-10-21T14:03:03.020Z level=INFO source=device.go:245 msg="model weights" device=CUDA0 size="15.6 GiB"
    time=2025-10-21T14:03:03.020Z level=INFO source=device.go:256 msg="kv cache" device=CUDA0 size="20.0 GiB"
    time=2025-10-21T14:03:03.020Z level=INFO source=device.go:267 msg="compute graph" device=CUDA0 size="2.1 GiB"
    time=2025-10-21T14:03:03.020Z level=INFO source=device.go:272 msg="total memory" size="37.7 GiB"
    time=2025-10-21T14:03:03.030Z level=INFO source=server.go:914 msg="model layout did not fit, applying backoff" backoff=0.10
    time=2025-10-21T14:03:04.500Z level=INFO source=server.go:914 msg="model layout did not fit, applying backoff" backoff=0.20
    time=2025-10-21T14:03:09.900Z level=WARN source=server.go:908 msg="memory layout cannot be allocated" memory.InputWeights=1101004800 memory.CPU.Name=CPU memory.CUDA0.Name=CUDA0
    time=2025-10-21T14:03:09.910Z level=INFO source=sched.go:511 msg="Load failed" model=/models/blobs/sha256-aa01 error="memory layout cannot be allocated"
    [GIN] 2025/10/21 - 14:03:09 | 500 |  7.512s |       10.0.0.7 | POST     "/api/generate"
"""
OLLAMA_BACKOFF_SERVED = """
    time=2025-11-03T09:12:01.101+01:00 level=INFO source=routes.go:1524 msg="Listening on 127.0.0.1:11434 (version 0.12.9)"
    time=2025-11-03T09:12:44.210+01:00 level=INFO source=server.go:433 msg="starting runner" cmd="/usr/local/bin/ollama runner --ollama-engine --model /root/.ollama/models/blobs/sha256-7c1d --port 40211"
    time=2025-11-03T09:12:44.512+01:00 level=INFO source=server.go:792 msg="loading model" "model layers"=49 requested=-1
    time=2025-11-03T09:12:44.530+01:00 level=INFO source=runner.go:1297 msg=load request="{Operation:fit LoraPath:[] Parallel:1 BatchSize:512 FlashAttention:true KvSize:32768 KvCacheType: NumThreads:8 GPULayers:49[ID:GPU-5e1f Layers:49(0..48)] MultiUserCache:false ProjectorPath: MainGPU:0 UseMmap:false}"
    time=2025-11-03T09:12:44.901+01:00 level=INFO source=runner.go:1297 msg=load request="{Operation:alloc LoraPath:[] Parallel:1 BatchSize:512 FlashAttention:true KvSize:32768 KvCacheType: NumThreads:8 GPULayers:49[ID:GPU-5e1f Layers:49(0..48)] MultiUserCache:false ProjectorPath: MainGPU:0 UseMmap:false}"
    ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8624.00 MiB on device 0: cudaMalloc failed: out of memory
    alloc_tensor_range: failed to allocate CUDA0 buffer of size 9042919424
    time=2025-11-03T09:12:45.100+01:00 level=INFO source=server.go:914 msg="model layout did not fit, applying backoff" backoff=0.10
    time=2025-11-03T09:12:45.140+01:00 level=INFO source=runner.go:1297 msg=load request="{Operation:alloc LoraPath:[] Parallel:1 BatchSize:512 FlashAttention:true KvSize:32768 KvCacheType: NumThreads:8 GPULayers:41[ID:GPU-5e1f Layers:41(8..48)] MultiUserCache:false ProjectorPath: MainGPU:0 UseMmap:false}"
    time=2025-11-03T09:12:46.222+01:00 level=INFO source=runner.go:1297 msg=load request="{Operation:commit LoraPath:[] Parallel:1 BatchSize:512 FlashAttention:true KvSize:32768 KvCacheType: NumThreads:8 GPULayers:41[ID:GPU-5e1f Layers:41(8..48)] MultiUserCache:false ProjectorPath: MainGPU:0 UseMmap:false}"
    time=2025-11-03T09:12:46.230+01:00 level=INFO source=device.go:245 msg="model weights" device=CUDA0 size="7.9 GiB"
    time=2025-11-03T09:12:46.230+01:00 level=INFO source=device.go:256 msg="kv cache" device=CUDA0 size="2.6 GiB"
    time=2025-11-03T09:12:46.230+01:00 level=INFO source=device.go:267 msg="compute graph" device=CUDA0 size="312.0 MiB"
    time=2025-11-03T09:12:46.230+01:00 level=INFO source=device.go:272 msg="total memory" size="10.8 GiB"
    time=2025-11-03T09:12:51.881+01:00 level=INFO source=server.go:1432 msg="llama runner started in 7.37 seconds"
    [GIN] 2025/11/03 - 09:12:58 | 200 |  14.21284s |       127.0.0.1 | POST     "/api/chat"
"""


def test_ollama_size_reports_are_no_stack_frames_and_the_failed_size_names_the_weights():
    run = run_in(OLLAMA_WEIGHTS, "ollama")
    assert (run.kind, run.code) == ("WEIGHTS", "weights-alloc-failed"), (run.kind, run.code, run.phase_source)
    assert "model weights" in run.phase_source
    assert "num_gpu lower than 81" in flags(run)  # the layers it asked for (`requested=81`, `num_gpu = 81`)


def test_ollama_failed_size_equal_to_the_compute_graph_is_warm_up():
    run = run_in(OLLAMA_GRAPH, "ollama")
    assert run.kind == "WARMUP", (run.kind, run.phase_source)


def test_ollama_failed_size_equal_to_the_kv_cache_is_the_cache():
    run = run_in(OLLAMA_LAYOUT_KV, "ollama")
    assert run.kind == "KV_CAPACITY", (run.kind, run.phase_source)
    assert "kv cache" in run.phase_source  # from the size, not from the summary line read as a stack frame
    assert "num_ctx lower than 32,768" in flags(run)  # KvSize 131072 over Parallel:4
    assert "OLLAMA_NUM_PARALLEL=1" in flags(run)


def test_ollama_size_matching_no_ledger_leaves_the_start_up_steps_open():
    """One cache tensor (a layer's) failed: it matches no ledger's size; the load request says it was starting."""
    run = run_in(OLLAMA_KV_LAYER, "ollama")
    assert run.kind == "UNDETERMINED", (run.kind, run.phase_source)
    assert "RUNTIME" not in run.candidates and "WEIGHTS" in run.candidates


def test_ollama_layout_backoff_that_then_served_is_no_failure():
    run = run_in(OLLAMA_BACKOFF_SERVED, "ollama")
    assert run.kind == "NONE"


def test_a_size_report_in_another_wording_is_no_frame_either():
    """The same summary as a generic structured line: still a report, not the step that failed."""
    text = OLLAMA_WEIGHTS.replace('msg="kv cache" device=CUDA0 size="680.0 MiB"',
                                  'msg="kv cache" device=CUDA0 size="39.0 GiB"')
    run = run_in(text, "ollama")  # two ledgers of the failed size: the size decides nothing
    assert run.kind == "UNDETERMINED" and set(run.candidates) == {"WEIGHTS", "KV_CAPACITY", "WARMUP"}


# --- a context that could not be made: after the weights, in the KV cache or the compute buffers -------------------------
# (llama.cpp common.cpp: the model loads, then llama_init_from_model; "failed to create context with model" is the
# wrapper; llama-cpp-python: "Failed to create llama_context" after its LlamaModel)

OLLAMA_CONTEXT = """
    time=2025-03-02T18:20:11.412+08:00 level=INFO source=routes.go:1238 msg="Listening on 127.0.0.1:11434 (version 0.5.12)"
    time=2025-03-02T18:21:40.001+08:00 level=INFO source=memory.go:356 msg="offload to cuda" layers.requested=-1 layers.model=29 layers.offload=6 layers.split="" memory.available="[5.1 GiB]" memory.gpu_overhead="0 B" memory.required.full="19.8 GiB" memory.required.partial="4.9 GiB" memory.required.kv="14.0 GiB" memory.required.allocations="[4.9 GiB]" memory.weights.total="4.2 GiB" memory.weights.repeating="3.8 GiB" memory.weights.nonrepeating="426.4 MiB" memory.graph.full="1.3 GiB" memory.graph.partial="1.3 GiB"
    time=2025-03-02T18:21:40.010+08:00 level=INFO source=server.go:376 msg="starting llama server" cmd="/usr/local/bin/ollama runner --model /root/.ollama/models/blobs/sha256-96c4 --ctx-size 131072 --batch-size 512 --n-gpu-layers 6 --threads 8 --parallel 1 --port 39117"
    time=2025-03-02T18:21:40.300+08:00 level=INFO source=server.go:555 msg="waiting for llama runner to start responding"
    time=2025-03-02T18:21:40.301+08:00 level=INFO source=server.go:589 msg="waiting for server to become available" status="llm server loading model"
    time=2025-03-02T18:21:52.870+08:00 level=ERROR source=sched.go:455 msg="error loading llama server" error="llama runner process has terminated: error:failed to create context with model '/root/.ollama/models/blobs/sha256-96c4'"
    [GIN] 2025/03/02 - 18:21:52 | 500 | 12.89s | 127.0.0.1 | POST "/api/chat"
"""


def test_a_context_that_could_not_be_made_with_the_kv_estimate_over_free_memory_is_the_cache():
    run = run_in(OLLAMA_CONTEXT, "ollama")
    assert (run.kind, run.inferred) == ("KV_CAPACITY", True), (run.kind, run.phase_source)
    assert "14.00 GiB" in run.message and "5.10 GiB" in run.message
    assert "num_ctx lower than 131,072" in flags(run)


def test_a_context_that_could_not_be_made_with_the_estimate_fitting_stays_open():
    text = OLLAMA_CONTEXT.replace('memory.required.kv="14.0 GiB"', 'memory.required.kv="1.0 GiB"')
    run = run_in(text, "ollama")
    assert run.kind == "UNDETERMINED" and set(run.candidates) == {"KV_CAPACITY", "WARMUP"}, (run.kind, run.candidates)


@pytest.mark.parametrize("text", [
    """
    llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from /m/qwen2.5-7b-q4_k_m.gguf (version GGUF V3 (latest))
    load_tensors: offloaded 29/29 layers to GPU
    load_tensors:        CUDA0 model buffer size =  4168.09 MiB
    common_init_from_params: failed to create context with model '/m/qwen2.5-7b-q4_k_m.gguf'
    main: error: unable to load model
    """,
    """
    >>> llm = Llama(model_path="/models/mistral-7b-instruct.Q5_K_M.gguf", n_ctx=65536, n_gpu_layers=-1)
    llm_load_tensors: offloaded 33/33 layers to GPU
    llm_load_tensors:      CUDA0 buffer size =  4893.00 MiB
    ValueError: Failed to create llama_context
    """,
])
def test_a_context_that_could_not_be_made_is_never_the_weights(text):
    run = run_of(diag(text))
    assert run.kind == "UNDETERMINED" and "WEIGHTS" not in run.candidates, (run.kind, run.candidates)
    assert "KV_CAPACITY" in run.candidates


# --- host memory that ran out at a container's own limit: raise the limit ----------------------------------------------

MEMCG = ["[Mon May 12 09:01:10 2025] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-3f2a."
         "scope,mems_allowed=0-1,oom_memcg=/kubepods/burstable/pod7c1e,task_memcg=/kubepods/burstable/pod7c1e/3f2a,"
         "task=python3,pid=41822,uid=0",
         "[Mon May 12 09:01:10 2025] Memory cgroup out of memory: Killed process 41822 (python3) total-vm:98123456kB, "
         "anon-rss:31457280kB, file-rss:102400kB, shmem-rss:0kB, UID:0 pgtables:65000kB oom_score_adj:984"]
GLOBAL = ["[Mon May 12 09:01:10 2025] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,"
          "global_oom,task_memcg=/user.slice,task=python3,pid=41822,uid=1000",
          "[Mon May 12 09:01:10 2025] Out of memory: Killed process 41822 (python3) total-vm:98123456kB, "
          "anon-rss:31457280kB, file-rss:102400kB, shmem-rss:0kB, UID:1000 pgtables:65000kB oom_score_adj:0"]
KUBECTL_OOM = ["    Last State:     Terminated", "      Reason:       OOMKilled", "      Exit Code:    137"]
DOCKER_OOM = ['        "State": {', '            "Status": "exited",', '            "OOMKilled": true,',
              '            "ExitCode": 137,']


@pytest.mark.parametrize("lines", [
    ["INFO 05-12 09:00:01 [api_server.py:1043] vLLM API server version 0.8.5",
     "INFO 05-12 09:00:30 [gpu_model_runner.py:1329] Starting to load model Qwen/Qwen2.5-32B-Instruct...", *MEMCG],
    [*KUBECTL_OOM, "[2025-05-12 09:00:01] server_args=ServerArgs(model_path='m', mem_fraction_static=0.85)",
     "[2025-05-12 09:03:00] The server is fired up and ready to roll!",
     '[2025-05-12 09:04:00] INFO:     10.0.0.9:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK'],
    ["llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from /m/q.gguf (version GGUF V3 "
     "(latest))", "load_tensors:          CPU model buffer size = 40103.00 MiB", *DOCKER_OOM],
])
def test_a_kill_at_the_containers_limit_says_raise_the_limit(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.advice and run.advice[0]["change"] == "raise the container's memory limit", run.advice
    assert "resources.limits.memory" in run.advice[0]["why"]


def test_a_kill_for_the_machines_ram_says_nothing_of_a_container():
    run = run_of(diag("\n".join(["INFO 05-12 09:00:01 [api_server.py:1043] vLLM API server version 0.8.5",
                                 "INFO 05-12 09:00:30 [gpu_model_runner.py:1329] Starting to load model m...", *GLOBAL])))
    assert run.kind == "WEIGHTS" and not any("container" in a["change"] for a in run.advice), run.advice


# --- the answer under an issue template's last heading is a field, not a log line cut partway ------------------------


@pytest.mark.parametrize("text", [
    "INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.8.5\n"
    "INFO 06-02 10:00:40 [gpu_model_runner.py:1595] Starting to load model m...\n"
    "INFO 06-02 10:01:40 [gpu_model_runner.py:1600] Model loading took 14.99 GiB and 60.1 seconds\n\n"
    "### vLLM version\n\n0.8.5",
    "load_tensors: offloaded 20/33 layers to GPU\nload_tensors:        CUDA0 model buffer size =  2168.09 MiB\n\n"
    "## Ollama version\n\n0.6.2",
    "time=2025-03-01T10:00:00.000Z level=INFO source=server.go:376 msg=\"starting llama server\" cmd=\"ollama runner\"\n"
    "time=2025-03-01T10:00:01.000Z level=INFO source=server.go:555 msg=\"waiting for llama runner to start responding\"\n"
    "\n### OS\n\nLinux-6.8.0-45",
])
def test_a_template_field_last_is_no_cut_log(text):
    run = run_of(diag(text))
    assert run.code != "log-cut-off", (run.kind, run.code)


# --- a failure only the report's words name, with a backtrace at the report's end: the frames place it -----------------

FILLER = ["", "### Environment", "", "- GPU: 2x RTX 3090", "- driver 550.54", "", "### Steps", "",
          "1. start the server", "2. send the requests below", "3. wait", "", "### Backtrace", ""]


@pytest.mark.parametrize("title, frames, kind", [
    ("Title: llama-server crashes with out of memory on long chats",
     ["#12 0x00005581a2c1d3f0 in llama_decode (ctx=0x55d1, batch=...) at src/llama-context.cpp:1012",
      "#13 0x00005581a2b0c111 in server_context::update_slots (this=0x7ffd) at tools/server/server.cpp:3550",
      "#14 0x00005581a2b01a2e in server_queue::start_loop (this=0x7ffd) at tools/server/server.cpp:1822"], "RUNTIME"),
    ("# CUDA out of memory when starting Llama-3-70B",
     ['  File "/opt/venv/lib/python3.11/site-packages/vllm/worker/worker.py", line 183, in load_model',
      "    self.model_runner.load_model()",
      '  File "/opt/venv/lib/python3.11/site-packages/vllm/model_executor/model_loader/loader.py", line 398, in load_model',
      "    model = _initialize_model(vllm_config=vllm_config)"], "WEIGHTS"),
])
def test_frames_at_the_reports_end_place_a_failure_only_its_words_name(title, frames, kind):
    run = run_of(diag("\n".join([title, *FILLER, *frames])))
    assert run.kind == kind, (run.kind, run.phase_source)


def test_a_traceback_cut_inside_the_model_loader_is_the_weights():
    """The loader proper (get_model, model_loader) reads weights only: cut inside it, the weights were loading; a front
    end's load_model, which goes on to make the cache, stays open (test_logs_heldout: text-generation-webui)."""
    frames = ['[rank0]:   File "/srv/venv/lib/python3.10/site-packages/vllm/worker/worker.py", line 183, in load_model',
              "[rank0]:     self.model_runner.load_model()",
              '[rank0]:   File "/srv/venv/lib/python3.10/site-packages/vllm/worker/model_runner.py", line 1112, in '
              "load_model", "[rank0]:     self.model = get_model(vllm_config=self.vllm_config)"]
    run = run_of(diag("\n".join(["Title: [Bug]: OOM with Mixtral-8x22B on 4x A100 40GB", "", *frames])))
    assert run.kind == "WEIGHTS", (run.kind, run.phase_source)
    front = ['  File "/home/u/text-generation-webui/modules/models.py", line 90, in load_model',
             "    output = load_func_map[loader](model_name)"]
    run = run_of(diag("\n".join(["I get CUDA out of memory when I load the model with 32k context.", "", *front])))
    assert run.kind != "WEIGHTS", (run.kind, run.phase_source)


# --- a title quoting the engine's own error that names its step, above a traceback cut before that error --------------

VLLM_CUT = ["INFO 05-02 11:00:10 [monitor.py:33] torch.compile takes 9.10 s in total",
            "ERROR 05-02 11:00:12 [core.py:396] EngineCore failed to start.",
            "ERROR 05-02 11:00:12 [core.py:396] Traceback (most recent call last):",
            'ERROR 05-02 11:00:12 [core.py:396]   File "/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", '
            "line 387, in run_engine_core",
            "ERROR 05-02 11:00:12 [core.py:396]     engine_core = EngineCoreProc(*args, **kwargs)"]
SGLANG_CUT = ["[2025-03-01 10:00:00 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=10.2 GB",
              "[2025-03-01 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):",
              '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 1800, in run_scheduler_process',
              "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)"]


@pytest.mark.parametrize("title, lines", [
    ("Title: [Bug]: H20 V1 engine ValueError: The model's max seq len (32768) is larger than the maximum number of "
     "tokens that can be stored in KV cache (12000)", VLLM_CUT),
    ("[Bug] RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", SGLANG_CUT),
])
def test_a_titles_engine_error_with_its_step_places_a_cut_traceback(title, lines):
    run = run_of(diag("\n".join([title, "", "### error log", *lines])))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code, run.phase_source)


def test_a_titles_bare_out_of_memory_does_not_place_a_cut_traceback():
    run = run_of(diag("\n".join(["Title: [Bug]: CUDA out of memory on start with V1", "", *VLLM_CUT])))
    assert run.kind != "KV_CAPACITY" or run.inferred, (run.kind, run.phase_source)


# --- signals other than SIGKILL: an illegal instruction or a segfault is no memory running out --------------------------


@pytest.mark.parametrize("lines, code", [
    (["2024-05-01T10:00:00.100000Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0",
      "2024-05-01T10:00:04.200000Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to "
      "shutdown with signal 4 rank=0", "Error: ShardCannotStart"], "illegal-instruction"),
    (["main: build = 4501 (a1b2c3d4)", "llama_model_loader: loaded meta data with 26 key-value pairs and 291 tensors "
      "from /m/llama-3-8b-q4_k_m.gguf (version GGUF V3 (latest))", "Illegal instruction (core dumped)"],
     "illegal-instruction"),
    (["May 01 10:00:00 box systemd[1]: Started llama.service - llama-server.",
      "May 01 10:00:02 box systemd[1]: llama.service: Main process exited, code=dumped, status=4/ILL"],
     "illegal-instruction"),
    (["vllm-1  | INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
      "vllm-1 exited with code 132"], "illegal-instruction"),
    (["2024-05-01T10:00:00.100000Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0",
      "2024-05-01T10:00:09.200000Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to "
      "shutdown with signal 11 rank=0"], "crash-access-violation"),
])
def test_an_illegal_instruction_or_a_segfault_is_not_memory(lines, code):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", code), (run.kind, run.code)


# --- a step a user's words say the failure came after is passed, not the step that failed -----------------------------

TGI_START = ["2024-08-01T08:00:00.000000Z  INFO text_generation_launcher: Args { model_id: \"meta-llama/Llama-3.1-70B\", "
             "num_shard: Some(2) }", "2024-08-01T08:00:01.000000Z  INFO shard-manager: text_generation_launcher: "
                                     "Starting shard rank=0"]


@pytest.mark.parametrize("said, kinds", [
    ("Title: Server dies with CUDA out of memory even after the warm-up phase succeeded", {"RUNTIME"}),
    ("Our server crashes with CUDA OOM once start-up completed and the users began chatting.", {"RUNTIME"}),
    ("We hit out of memory after the model has loaded", {"KV_CAPACITY", "WARMUP", "RUNTIME", "UNDETERMINED"}),
    ("OOM before the warm-up finished", {"WEIGHTS", "KV_CAPACITY", "WARMUP", "UNDETERMINED"}),
    ("I get out of memory during warmup", {"WARMUP"}),
])
def test_a_step_named_as_passed_is_a_floor(said, kinds):
    run = run_of(diag("\n".join([said, "", *TGI_START])))
    assert run.kind in kinds, (run.kind, run.phase_source)
    if "after the model" in said:
        assert run.kind != "WEIGHTS" and "WEIGHTS" not in run.candidates


# --- serving in the report's words: a load, concurrent requests, a time serving, a request's own length ---------------

VLLM_OOM_ONLY = ["INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1",
                 "ERROR 06-02 13:00:00 [core.py:500] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                 "2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.10 GiB is free."]


@pytest.mark.parametrize("said", [
    "I set max concurrent requests to 8 in the config and it fails at start.",
    "The pod sits behind a load balancer; it fails at start.",
])
def test_settings_and_a_load_balancer_are_not_serving(said):
    run = run_of(diag("\n".join([said, "", *VLLM_OOM_ONLY])))
    assert run.kind != "RUNTIME", (run.kind, run.phase_source)


# --- Chinese growth: rising to a size, and an issue's title pasted as "Title: ..." -----------------------------------

VLLM_STARTED = ["INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1", "INFO:     Application startup complete."]


@pytest.mark.parametrize("said", [
    "Title: 服务运行几天后，内存会逐渐增加",
    "启动后显存占用60G，跑了两天以后显存涨到了75G，重启才能恢复",
    "刚开始内存只有12GB，用了一个周末内存增长到40GB",
])
def test_chinese_growth_to_a_size_and_in_a_title(said):
    run = run_of(diag("\n".join([said, "", *VLLM_STARTED])))
    assert run.kind == "LEAK", (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "启动后显存占用达到75G，这是正常的吗",  # a reading that reaches a size: no rise
    "Title: 显存没有逐渐增加，但是启动失败",  # denied
])
def test_chinese_readings_and_denials_are_no_growth(said):
    run = run_of(diag("\n".join([said, "", *VLLM_STARTED])))
    assert run.kind != "LEAK", (run.kind, run.code)


# --- the model's own forward pass in vLLM's frames: warm-up at start-up, serving after; the report's words of starting --

FORWARD = ['(VllmWorker rank=0 pid=311) ERROR 04-01 09:00:05 [multiproc_executor.py:470]   File "/venv/lib/python3.12/'
           'site-packages/vllm/compilation/decorators.py", line 245, in __call__',
           "(VllmWorker rank=0 pid=311) ERROR 04-01 09:00:05 [multiproc_executor.py:470]     output = self.compiled_callable"
           "(*args, **kwargs)",
           '(VllmWorker rank=0 pid=311) ERROR 04-01 09:00:05 [multiproc_executor.py:470]   File "/venv/lib/python3.12/'
           'site-packages/vllm/model_executor/models/qwen2.py", line 358, in forward',
           "(VllmWorker rank=0 pid=311) ERROR 04-01 09:00:05 [multiproc_executor.py:470]     hidden_states, residual = "
           "layer(positions, hidden_states, residual)"]


@pytest.mark.parametrize("said, kinds", [
    ("The server fails to start with the error below.", {"WARMUP"}),
    ("When launching the model with the command above I get this:", {"WARMUP"}),
    ("It is not at startup: this comes after a few requests.", {"RUNTIME", "UNDETERMINED"}),
    ("", {"UNDETERMINED"}),
])
def test_a_forward_pass_in_vllms_frames_with_the_reports_words(said, kinds):
    title = "Title: [Bug]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB"
    run = run_of(diag("\n".join([title, "", said, "", *FORWARD])))
    assert run.kind in kinds, (run.kind, run.candidates, run.phase_source)
    if run.kind == "UNDETERMINED":
        assert set(run.candidates) <= {"WARMUP", "RUNTIME"}, run.candidates


# --- a KV pool the engine made that holds fewer tokens than one sequence of max_model_len ------------------------------

ARGS_V02 = ("INFO 01-10 10:00:00 llm_engine.py:72] Initializing an LLM engine with config: model='codellama/CodeLlama-13b', "
            "tokenizer='codellama/CodeLlama-13b', max_seq_len=16384, tensor_parallel_size=2, seed=0)")


@pytest.mark.parametrize("lines, kind", [
    ([ARGS_V02, "INFO 01-10 10:01:00 llm_engine.py:207] # GPU blocks: 96, # CPU blocks: 1310",
      "Requests over about 1500 tokens fail."], "KV_CAPACITY"),
    (["[2025-02-01 10:00:00] server_args=ServerArgs(model_path='m', context_length=32768, mem_fraction_static=0.88)",
      "[2025-02-01 10:00:30 TP0] KV Cache is allocated. #tokens: 3000, K size: 0.17 GB, V size: 0.17 GB",
      "Long prompts never finish."], "KV_CAPACITY"),
    # the engine's own count of full-length requests the pool holds: at least one
    ([ARGS_V02, "INFO 01-10 10:01:00 gpu_executor.py:122] # GPU blocks: 96, # CPU blocks: 1310",
      "INFO 01-10 10:01:00 gpu_executor.py:126] Maximum concurrency for 16384 tokens per request: 1.20x"], None),
    # no block size printed and a shortfall a larger block could explain (64 x 400 = 25,600): not claimed
    ([ARGS_V02, "INFO 01-10 10:01:00 llm_engine.py:207] # GPU blocks: 400, # CPU blocks: 1310"], None),
])
def test_a_pool_below_one_full_length_sequence(lines, kind):
    run = run_of(diag("\n".join(lines)))
    if kind:
        assert (run.kind, run.code) == (kind, "max-model-len-exceeds-kv-cache"), (run.kind, run.code)
    else:
        assert run.code != "max-model-len-exceeds-kv-cache", (run.kind, run.code)


# --- growth asked about with "why" is stated; serving after a number of requests not counted ---------------------------


def test_growth_denied_is_still_denied():
    run = run_of(diag("\n".join(["Memory does not keep growing; it is flat at 70 GB.", "", *VLLM_STARTED])))
    assert run.kind != "LEAK", (run.kind, run.code)


def test_a_traceback_cut_at_a_layer_making_its_weights_is_the_weights():
    frames = ['  File "/opt/conda/lib/python3.11/site-packages/sglang/srt/models/qwen2.py", line 88, in __init__',
              "    self.qkv_proj = QKVParallelLinear(",
              '  File "/opt/conda/lib/python3.11/site-packages/sglang/srt/layers/linear.py", line 410, in __init__',
              "    self.quant_method.create_weights(",
              '  File "/opt/conda/lib/python3.11/site-packages/sglang/srt/layers/linear.py", line 120, in create_weights',
              "    weight = Parameter(torch.empty(sum(output_partition_sizes), input_size_per_partition,"]
    run = run_of(diag("\n".join(["Title: torch.OutOfMemoryError: CUDA out of memory on launch_server", "", *frames])))
    assert run.kind == "WEIGHTS", (run.kind, run.phase_source)


@pytest.mark.parametrize("said, serving", [
    ("Title: CUDA out of memory error once chat gets too long", True),
    ("After the dialogue gets longer than a few pages, it fails with the error below.", True),
    ("When the chat history grows past 6k tokens the server dies.", True),
    ("The context is too long for my GPU, so the server fails at start.", False),
])
def test_a_conversation_that_gets_long_is_serving(said, serving):
    run = run_of(diag("\n".join([said, "", *VLLM_OOM_ONLY])))
    assert (run.kind == "RUNTIME") == serving, (run.kind, run.phase_source)


# --- a failure the report calls not fatal: the engine went on ------------------------------------------------------

LLAMA_GRAPH_FAIL = ["load_tensors: offloaded 61/61 layers to GPU",
                    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 3076.72 MiB on device 2: cudaMalloc failed: "
                    "out of memory", "graph_reserve: failed to allocate compute buffers"]


@pytest.mark.parametrize("said, recovered", [
    (["I hit a non-fatal compute buffer allocation failure on one GPU:", *LLAMA_GRAPH_FAIL, "The model still runs."], True),
    ([*LLAMA_GRAPH_FAIL, "", "It is only a warning for us, the server keeps working and answers requests."], True),
    ([*LLAMA_GRAPH_FAIL, "", "The server still starts, but then crashes on the first prompt."], False),
    ([*LLAMA_GRAPH_FAIL, "", "It keeps running out of memory whatever I do."], False),
    ([*LLAMA_GRAPH_FAIL, "", "Is this non-fatal?"], False),
])
def test_a_failure_the_report_calls_not_fatal(said, recovered):
    run = run_of(diag("\n".join(said)))
    assert (run.kind == "NONE") == recovered, (run.kind, run.code, run.phase_source)


# --- a program's message that quotes in backticks (Rust) is the program's, not a user's quotation ----------------------


def test_a_rust_servers_error_quoting_in_backticks_is_the_programs():
    lines = ["Title: out of memory with a 7B model on a 24 GB card", "",
             "Loading model on Cuda(CudaDevice(DeviceId(0)))...", "Model loaded.", "Serving on http://0.0.0.0:8080.",
             "thread '<unnamed>' panicked at mistralrs-core/src/pipeline/llama.rs:311:9:",
             'Model failed with error `DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")`. Please raise an issue.']
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.phase_source)


def test_a_users_quotation_in_backticks_is_still_the_users():
    from vramdoctor.logs.prose import written_by_user
    assert written_by_user("When loading it fails with error `CUDA out of memory` after a minute", False)
    assert not written_by_user("Model failed with error `DriverError(CUDA_ERROR_OUT_OF_MEMORY)`. Please raise an issue.",
                               False)


@pytest.mark.parametrize("line", [
    "[Warning] Scheduler stalled: every running sequence is waiting for free KV-cache blocks.",
    "WARN engine: cannot schedule request 17: no KV cache blocks are available",
    "E scheduler.cc:88] no blocks left for decode, batch of 32",
])
def test_a_pool_with_no_blocks_left_in_other_engines_words(line):
    run = run_of(diag("\n".join(["INFO engine started, serving on :8000", line])))
    assert (run.kind, run.code) == ("RUNTIME", "kv-blocks-exhausted"), (run.kind, run.code)


@pytest.mark.parametrize("line, kind", [
    ("2025-07-24 07:59:27,625 - lmdeploy - ERROR - engine.py:1135 - exception happened: <class 'IndexError'> index 9 is "
     "out of bounds for axis 0 with size 9", "NOT_OOM"),
    ("2025-07-24 07:59:27,625 - lmdeploy - ERROR - engine.py:1135 - exception happened: <class 'KeyError'> "
     "'model.layers.0.self_attn.q_proj.weight' not found in checkpoint", "NOT_OOM"),
    ("2025-07-24 07:59:27,625 - lmdeploy - ERROR - engine.py:1135 - exception happened: <class "
     "'torch.OutOfMemoryError'> CUDA out of memory. Tried to allocate 2.00 GiB", "RUNTIME"),
])
def test_an_exception_logged_by_its_class_states_its_cause(line, kind):
    start = ["2025-07-24 07:58:00,000 - lmdeploy - INFO - api_server.py:300 - Uvicorn running on http://0.0.0.0:23333",
             '2025-07-24 07:59:27,000 - lmdeploy - INFO - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    run = run_of(diag("\n".join([*start, line])))
    assert run.kind == kind, (run.kind, run.code)


# --- a server's model-management and listing endpoints are no inference requests ---------------------------------------


@pytest.mark.parametrize("access", [
    'INFO:     10.0.0.7:50122 - "GET /v1/models HTTP/1.1" 200 OK',
    'INFO:     127.0.0.1:65376 - "POST /v1/model/load HTTP/1.1" 200',
    'INFO:     127.0.0.1:65376 - "POST /v1/model/unload HTTP/1.1" 200',
])
def test_model_management_endpoints_are_no_requests(access):
    lines = ["INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1", access,
             "INFO 06-02 10:00:40 [gpu_model_runner.py:1595] Starting to load model meta-llama/Llama-3.1-70B...",
             "ERROR 06-02 10:01:00 [core.py:500] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.phase_source)


@pytest.mark.parametrize("said", [
    'Title: "python server.py --model mistral-7b --cpu" results in "Killed"',
    "Every time I load the 13B model the terminal just prints `Killed` and returns.",
    "On my 16 GB laptop the script ends with \u201cKilled\u201d after loading shards.",
])
def test_the_shells_killed_as_a_user_quotes_it(said):
    run = run_of(diag(said))
    assert run.code == "host-oom-kill" or run.code == "weights-exceed-system-memory", (run.kind, run.code)


# --- the report's words of where it failed; kernels tuned at start; engines that borrow TensorRT-LLM's kernel names ------

SGL_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 3 has a total capacity of 184.00 "
           "GiB of which 2.21 GiB is free.")


@pytest.mark.parametrize("where, kind", [
    ("Error occurs in `prealloc_symmetric_memory_pool` during the kernel autotuning at start.", "WARMUP"),
    ("It happens during CUDA graph capture, right after the KV cache is allocated.", "WARMUP"),
    ("The error is raised in `load_weights` of the MoE layer.", "WEIGHTS"),
])
def test_the_reports_words_of_where_it_failed(where, kind):
    run = run_of(diag("\n".join(["Title: decode workers OOM", "", SGL_OOM, "", where])))
    assert run.kind == kind, (run.kind, run.phase_source)


def test_flashinfer_trtllm_back_ends_are_not_tensorrt_llm():
    lines = ["[2025-09-01 10:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-R1', "
             "moe_runner_backend='flashinfer_trtllm', attention_backend='trtllm_mla', mem_fraction_static=0.9)",
             "[2025-09-01 10:01:00 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=40 GB"]
    assert diag("\n".join(lines)).engine == "sglang"


@pytest.mark.parametrize("lines, engine", [
    (["Title: TGI crashes after one OOM", "", "1. Start the server with the Phi-3 model",
      "2. Run the benchmark: `text-generation-benchmark -t microsoft/Phi-3-mini-4k-instruct -s 1024`",
      "3. It runs out of memory on the first batch size."], "tgi"),
    (["We were running `python benchmarks/benchmark_serving.py --backend vllm --request-rate 20` against the server",
      "INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."], "vllm"),
])
def test_a_benchmark_client_run_against_the_server_is_serving(lines, engine):
    run = run_in("\n".join(lines), engine)
    assert run.kind == "RUNTIME", (run.kind, run.phase_source)


# --- LM Studio's load guardrail: a refusal from its estimate, and an estimate of NaN -----------------------------------

GUARD = ("Error: Model loading was stopped due to insufficient system resources. Under the current settings, this model "
         "requires approximately {} of memory, and continuing to load it would likely overload your system and cause it "
         "to freeze.")


@pytest.mark.parametrize("size, kind, code", [
    ("NaN undefined", "NOT_OOM", "guardrail-estimate-invalid"),
    ("NaN GB", "NOT_OOM", "guardrail-estimate-invalid"),
    ("38.20 GB", "UNDETERMINED", "guardrail-refused-load"),
])
def test_lm_studios_guardrail(size, kind, code):
    rep = diag("I load a 32B model in LM Studio 0.3.20 and get:\n" + GUARD.format(size))
    run = run_of(rep)
    assert rep.engine == "lmstudio" and (run.kind, run.code) == (kind, code), (rep.engine, run.kind, run.code)
    if kind == "UNDETERMINED":
        assert set(run.candidates) == {"WEIGHTS", "KV_CAPACITY"} and "context length" in run.advice[0]["why"]


# --- a lower-case "i" is a person's; a model moved to the GPU whole is its weights ------------------------------------

TEXTGEN_CUDA = ["INFO:Loading EleutherAI_gpt-neox-20b...",
                "Loading checkpoint shards: 100%|#####| 5/5 [00:40<00:00,  8.01s/it]",
                "Traceback (most recent call last):",
                '  File "/home/u/text-generation-webui/modules/models.py", line 90, in load_model',
                "    model = model.cuda()",
                '  File "/home/u/env/lib/python3.10/site-packages/torch/nn/modules/module.py", line 905, in cuda',
                "    return self._apply(lambda t: t.cuda(device))"]


@pytest.mark.parametrize("said", [
    "i cant load any 20b model, i run out of memory every time",
    "i tried the one click installer and i get out of memory errors",
])
def test_a_lower_case_i_report_above_a_cut_traceback_moving_the_model(said):
    run = run_of(diag("\n".join(["Title: cuda out of memory on rtx 3090", "", said, "", *TEXTGEN_CUDA])))
    assert run.kind == "WEIGHTS", (run.kind, run.phase_source)


def test_a_loops_i_is_no_person():
    from vramdoctor.logs.prose import written_by_user
    assert not written_by_user("    for i in range(n_layers):", False)
    assert written_by_user("i tried it with 8 GB and it fails", False)


# --- a report's line that introduces the paste ("It crashed with OOM:") yields to the engine's line; a finished step after
# a failure names no step under way -------------------------------------------------------------------------------------

V0_LOADED = ["INFO 10-20 10:00:05 model_runner.py:1060] Loading model weights took 15.5 GB",
             "INFO 10-20 10:00:10 gpu_executor.py:122] # GPU blocks: 2500, # CPU blocks: 4096",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of "
             "23.64 GiB of which 12.00 MiB is free."]


@pytest.mark.parametrize("intro", ["It crashed with OOM:", "Startup dies with an out of memory error:", "启动时爆显存：",
                                   "Here is the OOM I get after the weights load:"])
def test_an_intro_line_yields_to_the_engines_failure(intro):
    run = run_of(diag("\n".join([intro, *V0_LOADED])))
    assert run.kind != "WEIGHTS" and "WEIGHTS" not in run.candidates, (run.kind, run.candidates, run.phase_source)


# --- memory that ran out while a worker set up its device, before any weights ------------------------------------------


@pytest.mark.parametrize("frames, code", [
    (['  File "/venv/lib/python3.10/site-packages/vllm/worker/worker.py", line 167, in init_device',
      "    torch.cuda.set_device(self.device)",
      '  File "/venv/lib/python3.10/site-packages/torch/cuda/__init__.py", line 399, in set_device',
      "    torch._C._cuda_setDevice(device)", "RuntimeError: CUDA error: out of memory"], "device-setup-oom"),
    (['  File "/sgl/python/sglang/srt/model_executor/model_runner.py", line 320, in init_torch_distributed',
      "    init_distributed_environment(",
      '  File "/sgl/python/sglang/srt/distributed/parallel_state.py", line 1100, in init_distributed_environment',
      "    _WORLD = init_world_group(ranks, local_rank, backend)",
      "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
      "Last error:", "Cuda failure 'out of memory'"], "device-setup-oom"),
    (['  File "/venv/lib/python3.10/site-packages/vllm/worker/worker.py", line 183, in load_model',
      "    self.model_runner.load_model()",
      '  File "/venv/lib/python3.10/site-packages/vllm/model_executor/model_loader/loader.py", line 398, in load_model',
      "    model = _initialize_model(vllm_config=vllm_config)",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."], "weights-alloc-failed"),
])
def test_memory_out_while_setting_up_the_device(frames, code):
    run = run_of(diag("\n".join(["Traceback (most recent call last):", *frames])))
    assert run.code == code, (run.kind, run.code, run.phase_source)
    if code == "device-setup-oom":
        assert run.kind == "UNDETERMINED" and "nvidia-smi" in run.advice[0]["why"]


# --- SGLang's own warm-up request after uvicorn is up; LMDeploy's first line starts a run ------------------------------

SGL_UP = ["[2025-06-01 09:00:00] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-70B', tp_size=2, "
          "mem_fraction_static=0.9)",
          "[2025-06-01 09:02:00 TP0] KV Cache is allocated. #tokens: 90000, K size: 10.00 GB, V size: 10.00 GB",
          "[2025-06-01 09:02:30] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
          "[2025-06-01 09:02:31 TP0] Prefill batch. #new-seq: 1, #new-token: 6, #cached-token: 0, token usage: 0.00, "
          "#running-req: 0, #queue-req: 0"]


@pytest.mark.parametrize("oom", [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB.",
    "RuntimeError: CUDA error: out of memory",
])
def test_sglangs_warm_up_request_after_uvicorn_is_up_is_warm_up(oom):
    lines = [*SGL_UP, "[2025-06-01 09:02:32 TP1] Scheduler hit an exception: Traceback (most recent call last):", oom,
             "[2025-06-01 09:02:33] Initialization failed. warmup error: Traceback (most recent call last):",
             "AssertionError: res=<Response [502]>, res.text=''"]
    run = run_in("\n".join(lines), "sglang")
    assert run.kind == "WARMUP", (run.kind, run.phase_source)


@pytest.mark.parametrize("backend", ["pytorch", "turbomind"])
def test_lmdeploys_first_line_starts_a_run(backend):
    cfg = "PytorchEngineConfig" if backend == "pytorch" else "TurbomindEngineConfig"
    lines = [f"2025-01-05 10:00:00,000 - lmdeploy - INFO - async_engine.py:260 - input backend={backend}, "
             f"backend_config={cfg}(tp=1, session_len=8192)",
             "INFO:     Uvicorn running on http://0.0.0.0:23333 (Press CTRL+C to quit)",
             'INFO:     127.0.0.1:50000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             f"2025-01-05 11:00:00,000 - lmdeploy - INFO - async_engine.py:260 - input backend={backend}, "
             f"backend_config={cfg}(tp=1, session_len=32768)",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 260.00 MiB."]
    rep = diag("\n".join(lines))
    assert len(rep.runs) == 2 and run_of(rep).kind != "RUNTIME", (len(rep.runs), run_of(rep).kind)


# --- a request refused as too long ends the traceback before it: no failure of the server --------------------------------


@pytest.mark.parametrize("wrapper, refusal", [
    ("ERROR 06-01 10:05:00 [serving_chat.py:200] Error in preprocessing prompt inputs",
     "ERROR 06-01 10:05:00 [serving_chat.py:200] ValueError: This model's maximum context length is 8192 tokens. "
     "However, you requested 9100 tokens (8100 in the messages, 1000 in the completion)."),
    ("ERROR 06-01 10:05:00 [serving_completion.py:120] Error in preprocessing prompt inputs",
     "ERROR 06-01 10:05:00 [serving_completion.py:120] ValueError: The decoder prompt (length 40000) is longer than the "
     "maximum model length of 32768. Make sure that `max_model_len` is no smaller than the number of text tokens."),
])
def test_a_refused_request_ends_its_traceback(wrapper, refusal):
    lines = ["INFO 06-01 10:00:00 [api_server.py:1287] vLLM API server version 0.9.1", "INFO:     Application startup complete.",
             wrapper, wrapper.split("] ")[0] + "] Traceback (most recent call last):",
             wrapper.split("] ")[0] + '] File "/venv/vllm/entrypoints/openai/serving_engine.py", line 600, in _validate_input',
             refusal, 'INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request']
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "requests-refused-too-long"), (run.kind, run.code)


# --- a failure only the title names, above a log that shows how far the run got ---------------------------------------


@pytest.mark.parametrize("lines, kinds", [
    (["Title: [Bug] Decode out of memory with a large page size", "",
      "[2025-06-18 18:11:03] Decode batch. #running-req: 240, #token: 180000, token usage: 0.97, #queue-req: 30"],
     {"RUNTIME"}),
    (["Title: OOM on Llama-3-70B with 2x A100", "",
      "INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1",
      "INFO 06-02 10:00:40 [gpu_model_runner.py:1595] Starting to load model meta-llama/Llama-3-70B..."],
     {"WEIGHTS", "UNDETERMINED"}),
])
def test_a_title_failure_takes_the_runs_progress(lines, kinds):
    run = run_of(diag("\n".join(lines)))
    assert run.kind in kinds, (run.kind, run.phase_source)
    if run.kind == "UNDETERMINED":
        assert "RUNTIME" not in run.candidates


@pytest.mark.parametrize("line", [
    "2025-01-01 10:00:00 ERROR | app.routes:generator:105 - openai request error: An error occurred during streaming",
    "ERROR: chat failed: Something went wrong, please try again",
    "2025-01-01 10:00:00 ERROR gateway: failed to stream the completion: Internal Server Error",
])
def test_an_error_that_only_says_an_error_happened_states_no_cause(line):
    run = run_of(diag("\n".join(["INFO:     Application startup complete.", line])))
    assert (run.kind, run.code) == ("UNDETERMINED", "failure-cause-not-shown"), (run.kind, run.code)


@pytest.mark.parametrize("line", [
    "rocBLAS error: Cannot read /opt/rocm-6.2.0/lib/rocblas/library/TensileLibrary.dat: No such file or directory for "
    "GPU arch : gfx1031",
    'time=2025-01-01T10:00:00Z level=INFO source=server.go:400 msg="llama runner stderr" line="rocBLAS error: Cannot read '
    '/usr/lib/ollama/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx90c"',
])
def test_rocblas_without_kernels_for_the_gpu_is_a_build_for_another_gpu(line):
    run = run_of(diag(line))
    assert (run.kind, run.code) == ("NOT_OOM", "cuda-no-kernel-image"), (run.kind, run.code)


# --- a step the report's words say the failure came during, where only one ledger fits --------------------------------


@pytest.mark.parametrize("said, kind", [
    ("The server runs out of GPU memory while loading the weights on the second rank.", "WEIGHTS"),
    ("We get CUDA OOM during weight loading with TP=2, every time.", "WEIGHTS"),
    ("It crashes with CUDA OOM during CUDA graph capture.", "WARMUP"),
    ("It crashes with CUDA OOM before weight loading even starts.", None),
])
def test_the_step_the_reports_words_say_it_failed_during(said, kind):
    run = run_of(diag("\n".join([said, "", "INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1"])))
    if kind:
        assert run.kind == kind, (run.kind, run.phase_source)
    else:
        assert run.kind != "WEIGHTS" or "during" not in run.phase_source, (run.kind, run.phase_source)


def test_a_markdown_table_row_is_the_reports_not_the_engines():
    lines = ["The PyTorch backend runs out of GPU memory during weight load on the **whole** node.", "",
             "| backend | loader | peak | result |", "|---|---|---|---|", "| pytorch | eager | 141 GB | OOM |"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.phase_source)


# --- advice never proposes what the log shows in use (new-user review) --------------------------------------------------


def test_flash_attention_auto_resolved_to_enabled_is_not_proposed():
    lines = ["main: build = 6600 (abcdef12)", "load_tensors: offloaded 47/47 layers to GPU",
             "llama_context: n_ctx         = 16384", "llama_context: flash_attn    = auto",
             "llama_context: Flash Attention was auto, set to enabled",
             "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 3000.00 MiB on device 0: cudaMalloc failed: out of "
             "memory", "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 3145728000"]
    run = run_of(diag("\n".join(lines)))
    assert not any(a["setting"] == "flash_attn" for a in run.advice), flags(run)


def test_an_awq_model_named_when_it_starts_loading_is_not_offered_awq():
    lines = ["INFO 04-02 10:00:00 [api_server.py:1043] vLLM API server version 0.8.4",
             "INFO 04-02 10:00:10 [gpu_model_runner.py:1329] Starting to load model /models/Qwen2.5-72B-Instruct-AWQ...",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."]
    run = run_of(diag("\n".join(lines)))
    assert not any(a["setting"] == "quantization" for a in run.advice), flags(run)


def test_llama_cpp_weights_in_a_mapped_buffer_are_not_told_to_use_mmap():
    lines = ["llm_load_tensors: offloading 10 repeating layers to GPU", "llm_load_tensors: offloaded 10/62 layers to GPU",
             "llm_load_tensors:   CPU_Mapped model buffer size = 180000.00 MiB",
             "llm_load_tensors:        CUDA0 model buffer size = 22000.00 MiB", "Killed"]
    run = run_of(diag("\n".join(lines)))
    assert not any("mmap" in a["why"] and "load with" in a["why"] for a in run.advice), run.advice


def test_vllm_v0_above_32k_has_chunked_prefill_on_by_default():
    lines = ["INFO 01-15 10:10:00 api_server.py:585] vLLM API server version 0.6.4",
             "INFO 01-15 10:10:00 api_server.py:586] args: Namespace(model='m', max_model_len=65536, "
             "gpu_memory_utilization=0.9)",
             "INFO 01-15 10:10:28 gpu_executor.py:57] # GPU blocks: 3000, # CPU blocks: 4681",
             "ValueError: The model's max seq len (65536) is larger than the maximum number of tokens that can be stored "
             "in KV cache (48000). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
             "initializing the engine."]
    run = run_of(diag("\n".join(lines)))
    assert "--enable-chunked-prefill" not in flags(run) and "--max-num-batched-tokens" in flags(run), flags(run)


# --- an out-of-memory told as past and fixed, above a log that serves ---------------------------------------------------


@pytest.mark.parametrize("said, fixed", [
    ("Before, I had `torch.OutOfMemoryError: CUDA out of memory` at startup, but with --max-model-len 8192 it works "
     "now. The remaining issue is speed.", True),
    ("It used to OOM on load with the bf16 weights; that was fixed by the AWQ checkpoint.", True),
    ("Previously we got CUDA out of memory, and it still crashes the same way.", False),
])
def test_an_oom_told_as_past_and_fixed(said, fixed):
    lines = [said, "", "INFO 06-01 10:00:00 [api_server.py:1287] vLLM API server version 0.9.1",
             "INFO:     Application startup complete.",
             'INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    run = run_of(diag("\n".join(lines)))
    assert (run.kind == "NONE") == fixed, (run.kind, run.code)


@pytest.mark.parametrize("done", [
    "(VllmWorker rank=0 pid=311) INFO 05-07 19:18:17 [loader.py:458] Loading weights took 3.07 seconds",
    "INFO 05-07 19:18:17 [default_loader.py:262] Loading weights took 12.40 seconds",
])
def test_a_kill_after_a_weights_step_that_finished_is_not_the_weights_loading(done):
    lines = ["INFO 05-07 19:17:00 [api_server.py:1043] vLLM API server version 0.8.5", done,
             "CRITICAL 05-07 19:18:17 [core_client.py:359] Got fatal signal from worker processes, shutting down.",
             "Killed"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind != "WEIGHTS", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("lines, kind", [
    (["When the card is already busy with another model, loading a second GGUF throws an out of memory error.", "",
      "> AttributeError: 'LlamaCppModel' object has no attribute 'model'", "", "```shell",
      "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 33000.00 MiB on device 0: cudaMalloc failed: out of memory",
      "llama_model_load: error loading model:"], "WEIGHTS"),
    (["llama_model_loader: loaded meta data with 40 key-value pairs and 579 tensors from /m/new-arch.gguf",
      "llama_model_load: error loading model: error loading model architecture: unknown model architecture: 'qwen9'"],
     "NOT_OOM"),
])
def test_llama_model_loads_own_error_is_the_weights_step(lines, kind):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == kind, (run.kind, run.code, run.phase_source)


# --- prompts by their size, memory not given back, a container killed while the model loads ---------------------------


@pytest.mark.parametrize("said", [
    "The container is killed by Kubernetes when memory crosses the limit while the model is loading.",
    "Our pod gets killed by k8s for exceeding its memory limit during model loading.",
])
def test_a_container_killed_while_the_model_loads_is_the_weights_in_host_ram(said):
    lines = [said, "", "INFO 06-02 10:00:01 [api_server.py:1043] vLLM API server version 0.9.1"]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-system-memory"), (run.kind, run.code)


# --- an engine's warning that supposes a failure during inference is no request; the profiler's quotient is no setting --

PROFILE_WARN = ("WARNING 08-04 16:54:49 [profiling.py:247] The sequence length used for profiling (max_num_batched_tokens / "
                "max_num_seqs = 4096) is too short to hold the multi-modal embeddings in the worst case. This may cause "
                "certain multi-modal inputs to fail during inference, even when the input text is short.")


def test_a_profilers_warning_is_no_request_and_its_quotient_no_max_num_seqs():
    lines = ["INFO 08-04 16:54:00 [api_server.py:1043] vLLM API server version 0.9.0", PROFILE_WARN,
             "ERROR 08-04 16:54:59 [multiproc_worker_utils.py:238] Exception in worker VllmWorkerProcess while processing "
             "method determine_num_available_blocks.",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WARMUP", (run.kind, run.phase_source)
    assert not any(a["setting"] == "max_num_seqs" and a["current"] == 4096 for a in run.advice), run.advice


# --- V0's "Error in model execution": the profile run executes the model too; a dump's file name is no frame -------------

EXEC_OOM = ("[rank0]: torch.OutOfMemoryError: Error in model execution (input dumped to /tmp/err_execute_model_input_"
            "20250101-101010.pkl): CUDA out of memory. Tried to allocate 2.00 GiB.")


@pytest.mark.parametrize("before, kinds", [
    (["llm = LLM(model='/models/MiniCPM-V-2_6', gpu_memory_utilization=0.9, max_model_len=4096)"], {"UNDETERMINED"}),
    (["INFO 10-10 15:40:00 api_server.py:585] vLLM API server version 0.6.2", "INFO:     Application startup complete.",
      'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK'], {"RUNTIME"}),
])
def test_a_model_execution_error_is_warm_up_or_serving(before, kinds):
    run = run_of(diag("\n".join([*before, EXEC_OOM])))
    assert run.kind in kinds, (run.kind, run.phase_source)
    if run.kind == "UNDETERMINED":
        assert set(run.candidates) == {"WARMUP", "RUNTIME"}, run.candidates


@pytest.mark.parametrize("said", ["Title: 长prompt请求后服务直接挂掉", "Title: 超长输入之后服务挂死了",
                                  "Title: The whole server crashes after an over-long prompt"])
def test_a_refusal_in_a_report_that_says_the_server_died_is_no_all_clear(said):
    lines = [said, "", "INFO:     Application startup complete.",
             "ERROR 06-01 10:05:00 [serving_chat.py:200] ValueError: This model's maximum context length is 8192 tokens. "
             "However, you requested 9100 tokens (8100 in the messages, 1000 in the completion)."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind != "NONE", (run.kind, run.code)


@pytest.mark.parametrize("title", [
    "Title: VRAM leak with speculative decoding: draft KV cache grows ~10MB per request until OOM",
    "Title: GPU memory leak in the scheduler, KV cache usage grows 200 MB per hour until CUDA out of memory",
    "Title: Host RAM leak: RSS increases 50MB each request until the OOM killer fires",
])
def test_a_title_that_says_memory_grew_until_it_ran_out_is_a_leak(title):
    lines = [title, "", "srv  load_model: loading model '/m/model.gguf'", "main: server is listening on http://0.0.0.0:8080"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "LEAK", (run.kind, run.code)


def test_vllms_old_serving_prefix_without_its_bracket_is_serving():
    prefix = "vllm  | ERROR 02-11 08:25:49 serving_completion.py:120] "
    lines = [prefix + '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/activation.py", '
                      "line 81, in forward",
             prefix + "    out = torch.empty(output_shape, dtype=x.dtype, device=x.device)",
             prefix + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.15 GiB."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.phase_source)


@pytest.mark.parametrize("said, leak", [
    ("Then the GPU RAM usage slowly rises (3.4, 3.5 GB) and after about a minute it throws the error.", False),
    ("VRAM keeps growing while it reads the prompt and within a few seconds it fails.", False),
    ("The GPU RAM usage slowly rises over two days of traffic until it fails.", True),
])
def test_a_rise_over_a_minute_is_one_requests_use_not_a_leak(said, leak):
    run = run_of(diag("\n".join([said, "", *VLLM_STARTED])))
    assert (run.kind == "LEAK") == leak, (run.kind, run.code)


@pytest.mark.parametrize("words, kind", [
    (["Title: OOM in Qwen3 weight loading with remote storage", "", "The loader keeps every shard in memory."], "WEIGHTS"),
    (["# Crash during CUDA graph capture on H20", "", "Steps: start the server with the defaults."], "WARMUP"),
    (["Title: OOM in weight loading, and again during CUDA graph capture"], None),  # two steps named: neither decides
])
def test_the_reports_words_above_the_engines_line_name_the_step(words, kind):
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 5 has a total capacity of "
           "95.08 GiB of which 1.12 MiB is free.")
    run = run_of(diag("\n".join([*words, "", "```", oom, "```"])))
    if kind:
        assert run.kind == kind, (run.kind, run.phase_source)
    else:
        assert "step under way" not in run.phase_source, (run.kind, run.phase_source)




# --- the report's words of serving, and of growth, in one list each (each wording written before its fix) -------------

SERVING_SAID = [
    "Title: crashes with concurrent long-context requests",
    # (serving in the reports words)
    "The server falls over under sustained load after a while.",
    "We only see it under production traffic, never in our tests.",
    "It happens with a handful of concurrent requests from our gateway.",
    "After running the server for a few hours it dies with the error below.",
    "After using it for two days we got this crash.",
    "The crash comes when the actual prompt length goes beyond 20k tokens.",
    # (a prompt filling the context is serving)
    "When I fill the context to 30k tokens the server dies with the error below.",
    "It breaks on a prompt filling 28k, leaving 4k for the answer.",
    # (serving after requests not counted)
    "Even after the server is launched, it encounters the OOM after a certain number of requests.",
    "Our server dies with CUDA OOM after a few dozen prompts from the team.",
    "The engine was running fine; after a while of requests it fails.",
    # (prompts by their size are serving)
    "It works fine for small prompts. For bigger prompts, it throws OOM.",
    "Everything is OK until we test with longer documents; then the server dies.",
    # (a benchmark or several requests or one by size)
    "Title: OOM when running `bench_serving` against the server",
    "Title: OutOfMemoryError when the server is handling multiple requests",
    "Processing an actual ~100k request crashes with the error below, on 4 GPUs.",
    # (an evaluation harness or load test is serving)
    "After an OpenCompass batch 16 run against the API it raised the error below.",
    "It happens while running lm-eval against the endpoint with 8 parallel workers.",
    "During our locust load test the server died with this:",
]


@pytest.mark.parametrize("said", SERVING_SAID)
def test_the_reports_words_of_serving(said):
    run = run_of(diag("\n".join([said, "", *VLLM_OOM_ONLY])))
    assert run.kind == "RUNTIME", (run.kind, run.phase_source)


GROWTH_SAID = [
    # (growth asked about with why is stated)
    "Not sure why the memory usage is gradually increasing during serving.",
    "I have no idea why VRAM keeps climbing overnight.",
    "We can't figure out why RSS keeps growing with each request.",
    # (more growth wordings)
    "Our server's memory usage creeps up by about 500 MB every hour, even idle.",
    "The RAM of the worker keeps growing until the node starts swapping.",
    "Host RAM usage doubles every couple of days under the same traffic.",
    "CPU RAM keeps climbing while the model sits there.",
    # (memory not given back is growth)
    "After running for a period of time, the server fails to release VRAM, eventually leading to a crash.",
    "The worker is unable to free memory between batches and keeps more each time.",
]


@pytest.mark.parametrize("said", GROWTH_SAID)
def test_the_reports_words_of_growth(said):
    run = run_of(diag("\n".join([said, "", *VLLM_STARTED])))
    assert run.kind == "LEAK", (run.kind, run.code)


def test_a_traceback_cut_in_exllama_v1_building_its_model_is_the_weights():
    lines = ["Title: CUDA out of memory loading a 65B GPTQ on 2x 3090 with ExLlama", "",
             "Traceback (most recent call last):",
             '  File "/home/u/text-generation-webui/modules/models.py", line 85, in load_model',
             "    output = load_func_map[loader](model_name)",
             '  File "/home/u/text-generation-webui/modules/exllama.py", line 41, in from_pretrained',
             "    model = ExLlama(config)"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.phase_source)


@pytest.mark.parametrize("lines, ctx", [
    (['time=2025-03-01T10:00:00.000Z level=INFO source=server.go:376 msg="starting llama server" cmd="ollama runner"',
      "CUDA error: out of memory"], "num_ctx"),
    (["main: build = 4501 (a1b2c3d4)", "CUDA error: out of memory"], "-c"),
])
def test_the_find_the_phase_step_names_the_engines_own_context_setting(lines, ctx):
    run = run_of(diag("\n".join(lines)))
    step = [a for a in run.advice if a["change"] == "find the phase first"]
    assert step and f"too large for {ctx} wants a smaller {ctx}" in step[0]["why"], run.advice


@pytest.mark.parametrize("status, code", [("0xc000001d", "illegal-instruction"), ("0xc0000005", "crash-access-violation")])
def test_windows_crash_statuses_are_not_memory(status, code):
    lines = ['time=2025-02-01T10:00:05.000+01:00 level=INFO source=server.go:376 msg="starting llama server" '
             'cmd="C:\\\\Ollama\\\\ollama_llama_server.exe --model x"',
             'time=2025-02-01T10:00:06.000+01:00 level=ERROR source=sched.go:455 msg="error loading llama server" '
             f'error="llama runner process has terminated: exit status {status}"']
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", code), (run.kind, run.code)


def test_a_pods_state_above_its_previous_logs_places_the_kill_by_those_logs():
    lines = ["$ kubectl describe pod sglang-0", "    State:          Running", "    Last State:     Terminated",
             "      Reason:       OOMKilled", "      Exit Code:    137", "",
             "$ kubectl logs sglang-0 --previous | tail -2",
             "[2025-08-12 14:01:50 TP0] Decode batch. #running-req: 40, #token: 90000, token usage: 0.61, #queue-req: 0",
             '[2025-08-12 14:01:51] INFO:     10.1.2.3:55012 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("RUNTIME", "host-oom-kill"), (run.kind, run.code)


@pytest.mark.parametrize("title", [
    "Title: ValueError: The model's max seq len (8192) is larger than the maximum number of tokens that can be stored in "
    "KV cache (5120). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
    "Title: RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
])
def test_a_title_quoting_the_engines_error_joins_the_log_pasted_under_it(title):
    lines = [title, "", "I followed the quickstart and got the following error.",
             "INFO 01-11 15:51:02 llm_engine.py:70] Initializing an LLM engine with config: model='/models/alpaca-2'",
             "INFO 01-11 15:51:18 llm_engine.py:275] # GPU blocks: 320, # CPU blocks: 512",
             "Traceback (most recent call last):", '  File "load_llm.py", line 8, in <module>']
    rep = diag("\n".join(lines))
    assert len(rep.runs) == 1 and run_of(rep).kind == "KV_CAPACITY", (len(rep.runs), run_of(rep).kind)


@pytest.mark.parametrize("said", [
    "In this part, OOM occurs as the memory continues to increase as it passes forward.",
    "Memory keeps growing during the forward pass of the vision tower until it fails.",
])
def test_memory_rising_within_one_forward_pass_is_no_leak(said):
    lines = ["INFO 09-20 10:00:00 model_runner.py:1008] Loading model weights took 19.9073 GB",
             "INFO 09-20 10:00:05 enc_dec_model_runner.py:301] Starting profile run for multi-modal models.", said]
    run = run_of(diag("\n".join(lines)))
    assert run.kind != "LEAK", (run.kind, run.code)


def test_a_missing_dll_on_windows_is_no_memory_problem():
    line = ('time=2024-09-14T10:00:06.000+08:00 level=ERROR source=sched.go:455 msg="error loading llama server" '
            'error="llama runner process has terminated: exit status 0xc0000135"')
    run = run_of(diag(line))
    assert (run.kind, run.code) == ("NOT_OOM", "library-load-failed"), (run.kind, run.code)
