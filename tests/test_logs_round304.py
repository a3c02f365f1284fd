"""`vramdoctor logs` on the kinds of fault the held-out rounds 304 and later (issue 6, stop 37) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, run_of
from vramdoctor.logs import streams


def said(run) -> str:
    """All of a run's advice, every field, joined."""
    return " | ".join(" ".join(str(v) for v in a.values()) for a in run.advice)


# --- several programs' lines interleaved in one paste (docker compose services, kubectl --prefix pods): each is a
# log of its own; one's serving clears nothing of another's failure, one's progress is no step of another's ---------

VLLM_TWO_SERVICES = """
    Second vLLM container dies on start when both come up together, first one is fine
    $ docker compose up
    chat-1    | INFO 05-12 10:01:02 [api_server.py:1043] vLLM API server version 0.9.1
    embed-1   | INFO 05-12 10:01:02 [api_server.py:1043] vLLM API server version 0.9.1
    chat-1    | INFO 05-12 10:01:20 [gpu_model_runner.py:1595] Model loading took 14.99 GiB and 6.1 seconds
    embed-1   | INFO 05-12 10:01:21 [gpu_model_runner.py:1595] Model loading took 14.25 GiB and 6.4 seconds
    chat-1    | INFO 05-12 10:01:30 [kv_cache_utils.py:716] GPU KV cache size: 301,184 tokens
    chat-1    | INFO 05-12 10:01:30 [kv_cache_utils.py:720] Maximum concurrency for 32,768 tokens per request: 9.19x
    embed-1   | ERROR 05-12 10:01:31 [core.py:515] EngineCore failed to start.
    embed-1   | ERROR 05-12 10:01:31 [core.py:515] ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (2.47 GiB). Based on the available memory, the estimated maximum model length is 20224. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
    chat-1    | INFO 05-12 10:01:41 [gpu_model_runner.py:2017] Graph capturing finished in 9 secs, took 0.53 GiB
    chat-1    | INFO:     Application startup complete.
    embed-1 exited with code 1
    chat-1    | INFO:     172.18.0.1:40312 - "POST /v1/chat/completions HTTP/1.1" 200 OK
    chat-1    | INFO 05-12 10:02:05 [loggers.py:118] Engine 000: Avg prompt throughput: 12.3 tokens/s, Avg generation throughput: 40.1 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.4%, Prefix cache hit rate: 0.0%
"""


def test_a_compose_services_failure_is_not_cleared_by_its_neighbour_that_served():
    rep = diag(VLLM_TWO_SERVICES)
    run = run_of(rep)
    assert (run.kind, run.program) == ("KV_CAPACITY", "embed-1"), (run.kind, run.code, run.program)
    assert {r.program for r in rep.runs} >= {"chat-1", "embed-1"}
    assert any("interleaves 2 programs" in n for n in rep.notes)


def test_a_compose_v1_service_whose_weights_did_not_fit_beside_a_proxy():
    # (compose v1 names its containers "project_service_1"; llama-server's lines as in b4500's llama.cpp/src)
    rep = diag("""
        llama-server OOM in compose, nginx in front is fine
        llm_1    | build: 4500 (1a2b3c4d) with cc (Ubuntu 11.4.0) 11.4.0 for x86_64-linux-gnu
        proxy_1  | /docker-entrypoint.sh: Configuration complete; ready for start up
        llm_1    | main: loading model
        proxy_1  | 2025/01/20 10:00:01 [notice] 1#1: start worker processes
        llm_1    | llama_model_loader: loaded meta data with 33 key-value pairs and 292 tensors from /models/llama-3.1-70b-q4_k_m.gguf (version GGUF V3 (latest))
        proxy_1  | 2025/01/20 10:00:01 [notice] 1#1: start worker process 29
        llm_1    | llm_load_tensors: offloading 80 repeating layers to GPU
        proxy_1  | 2025/01/20 10:00:02 [notice] 1#1: start worker process 30
        llm_1    | ggml_backend_cuda_buffer_type_alloc_buffer: allocating 39979.45 MiB on device 0: cudaMalloc failed: out of memory
        proxy_1  | 172.20.0.1 - - [20/Jan/2025:10:00:09 +0000] "GET /health HTTP/1.1" 502 157 "-" "curl/8.5.0"
        llm_1    | llama_model_load: error loading model: unable to allocate CUDA0 buffer
        proxy_1  | 172.20.0.1 - - [20/Jan/2025:10:00:19 +0000] "GET /health HTTP/1.1" 502 157 "-" "curl/8.5.0"
        llm_1    | llama_load_model_from_file: failed to load model
        llm_1    | common_init_from_params: failed to load model '/models/llama-3.1-70b-q4_k_m.gguf'
        llm_1    | main: exiting due to model loading error
        llm_1 exited with code 1
    """)
    run = run_of(rep)
    assert (run.kind, run.program) == ("WEIGHTS", "llm_1"), (run.kind, run.code, run.program)


def test_kubectl_prefixed_pods_each_read_on_their_own():
    # (`kubectl logs -l app=sglang --prefix`: "[pod/NAME/CONTAINER] "; SGLang 0.4.6's model_runner lines)
    rep = diag("""
        [pod/sglang-0/server] [2025-06-02 08:00:01] Load weight begin. avail mem=78.55 GB
        [pod/sglang-1/server] [2025-06-02 08:00:01] Load weight begin. avail mem=78.49 GB
        [pod/sglang-0/server] [2025-06-02 08:00:09] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=63.31 GB, mem usage=15.24 GB.
        [pod/sglang-1/server] [2025-06-02 08:00:09] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=17.02 GB, mem usage=15.24 GB.
        [pod/sglang-0/server] [2025-06-02 08:00:10] KV Cache is allocated. #tokens: 961000, K size: 25.66 GB, V size: 25.66 GB
        [pod/sglang-1/server] [2025-06-02 08:00:10] Scheduler hit an exception: Traceback (most recent call last):
        [pod/sglang-1/server]   File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 1017, in init_memory_pool
        [pod/sglang-1/server]     raise RuntimeError(
        [pod/sglang-1/server] RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.
        [pod/sglang-0/server] [2025-06-02 08:00:20] INFO:     Application startup complete.
        [pod/sglang-0/server] [2025-06-02 08:00:21] The server is fired up and ready to roll!
        [pod/sglang-0/server] [2025-06-02 08:00:30] Prefill batch. #new-seq: 1, #new-token: 12, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0,
    """)
    run = run_of(rep)
    assert (run.kind, run.program) == ("KV_CAPACITY", "pod/sglang-1/server"), (run.kind, run.code, run.program)


def test_a_markdown_table_is_no_set_of_programs():
    # (a user's results table: its rows' first cells repeat and alternate, but their bars stand in no one column)
    rows = [f"{a} | {c} | {ctx} | {r}" for ctx in (8192, 65536, 131072) for a, c, r in
            (("flash", "X", "ok"), ("mla", "", "FAIL"), ("standard", "X", "ok"))]
    assert streams.interleaved(rows) is None
    assert streams.interleaved(["svc-1  | a", "db-1   | b"] * 6) == 7


def test_one_compose_service_alone_is_read_as_before():
    rep = diag("""
        vllm-1  | INFO 05-12 10:01:20 [gpu_model_runner.py:1595] Model loading took 14.99 GiB and 6.1 seconds
        vllm-1  | ERROR 05-12 10:01:31 [core.py:515] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.
    """)
    assert all(r.program == "" for r in rep.runs)
    assert run_of(rep).kind == "KV_CAPACITY"


# --- a GPU the engine found and would not use, so the model then loads and serves on the CPU: the refusal decides,
# not the CPU run after it (Ollama's discover/*.go at each version) ----------------------------------------------------

OLLAMA_CPU_AFTER = """
    time=2025-03-02T10:00:05.101Z level=INFO source=server.go:405 msg="starting llama server" cmd="/usr/bin/ollama runner --model /root/.ollama/models/blobs/sha256-6a0746a1ec1a --ctx-size 8192 --batch-size 512 --threads 6 --no-mmap --parallel 4 --port 40193"
    time=2025-03-02T10:00:05.300Z level=INFO source=server.go:585 msg="waiting for llama runner to start responding"
    time=2025-03-02T10:00:05.301Z level=INFO source=memory.go:356 msg="offload to cpu" layers.requested=-1 layers.model=29 layers.offload=0 layers.split="" memory.available="[28.3 GiB]" memory.gpu_overhead="0 B" memory.required.full="2.8 GiB" memory.required.partial="0 B" memory.required.kv="896.0 MiB" memory.required.allocations="[2.8 GiB]" memory.weights.total="1.9 GiB" memory.weights.repeating="1.6 GiB" memory.weights.nonrepeating="308.2 MiB" memory.graph.full="424.0 MiB" memory.graph.partial="570.7 MiB"
    time=2025-03-02T10:00:07.712Z level=INFO source=server.go:624 msg="llama runner started in 2.41 seconds"
    [GIN] 2025/03/02 - 10:00:19 | 200 | 14.21s | 127.0.0.1 | POST "/api/generate"
"""


def test_ollama_05_radeon_its_rocm_build_lacks_then_the_cpu():
    rep = diag("""
        ollama uses cpu only with my 6600 XT
        time=2025-03-02T10:00:01.001Z level=INFO source=routes.go:1238 msg="Listening on [::]:11434 (version 0.5.12)"
        time=2025-03-02T10:00:01.002Z level=INFO source=gpu.go:217 msg="looking for compatible GPUs"
        time=2025-03-02T10:00:01.010Z level=WARN source=amd_linux.go:378 msg="amdgpu is not supported (supported types:[gfx1010 gfx1012 gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942])" gpu_type=gfx1032 gpu=0 library=/usr/lib/ollama
        time=2025-03-02T10:00:01.010Z level=WARN source=amd_linux.go:385 msg="See https://github.com/ollama/ollama/blob/main/docs/gpu.md#overrides for HSA_OVERRIDE_GFX_VERSION usage"
        time=2025-03-02T10:00:01.011Z level=INFO source=amd_linux.go:404 msg="no compatible amdgpu devices detected"
        time=2025-03-02T10:00:01.011Z level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"
        time=2025-03-02T10:00:01.011Z level=INFO source=types.go:130 msg="inference compute" id=0 library=cpu variant="" compute="" driver=0.0 name="" total="31.2 GiB" available="28.3 GiB"
    """ + OLLAMA_CPU_AFTER)
    run = run_of(rep)
    assert (run.kind, run.code) == ("NOT_OOM", "gpu-unsupported"), (run.kind, run.code)
    assert "HSA_OVERRIDE_GFX_VERSION" in run.message


def test_ollama_01_key_value_refusal_and_an_old_nvidia_card():
    # (0.1.3x printed the supported types as a field: msg="amdgpu is not supported" ... supported_types=...)
    for refusal in (
            'time=2024-05-20T09:00:01.010+02:00 level=WARN source=amd_linux.go:340 msg="amdgpu is not supported" '
            'gpu=0 gpu_type=gfx1032 library=/usr/lib64 supported_types="[gfx1030 gfx1100 gfx1101 gfx1102]"',
            'time=2024-05-20T09:00:01.010+02:00 level=INFO source=gpu.go:260 msg="[0] CUDA GPU is too old. Compute '
            'Capability detected: 3.5"'):
        rep = diag('time=2024-05-20T09:00:01.001+02:00 level=INFO source=routes.go:1074 msg="Listening on '
                   '127.0.0.1:11434 (version 0.1.38)"\n' + refusal + "\n" + OLLAMA_CPU_AFTER)
        run = run_of(rep)
        assert (run.kind, run.code) == ("NOT_OOM", "gpu-unsupported"), (refusal, run.kind, run.code)


def test_ollama_012_device_filtered_then_the_cpu_in_journald():
    lines = [
        'ollama[3342]: time=2025-11-28T18:02:11.520+01:00 level=INFO source=routes.go:1597 msg="Listening on 127.0.0.1:11434 (version 0.12.11)"',
        'ollama[3342]: time=2025-11-28T18:02:12.318+01:00 level=DEBUG source=runner.go:128 msg="verifying device is supported" library=/usr/local/lib/ollama/rocm description="AMD Radeon RX 7600" compute=gfx1102 id=0 pci_id=0000:0b:00.0',
        'ollama[3342]: time=2025-11-28T18:02:13.466+01:00 level=DEBUG source=runner.go:135 msg="filtering device which didn\'t fully initialize" id=0 libdir=/usr/local/lib/ollama/rocm pci_id=0000:0b:00.0 library=ROCm',
        'ollama[3342]: time=2025-11-28T18:02:13.470+01:00 level=INFO source=types.go:60 msg="inference compute" id=cpu library=cpu compute="" name=cpu description=cpu libdirs=ollama driver="" pci_id="" type="" total="31.2 GiB" available="28.3 GiB"',
        'ollama[3342]: time=2025-11-28T18:03:40.180+01:00 level=INFO source=ggml.go:494 msg="offloaded 0/29 layers to GPU"',
        'ollama[3342]: time=2025-11-28T18:03:41.436+01:00 level=INFO source=server.go:1332 msg="llama runner started in 1.33 seconds"',
        'ollama[3342]: [GIN] 2025/11/28 - 18:03:52 | 200 | 12.1s | 127.0.0.1 | POST "/api/chat"',
    ]
    run = run_of(diag("\n".join("Nov 28 18:02:11 ryzen " + x for x in lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "gpu-unsupported"), (run.kind, run.code)


def test_a_device_filtered_while_another_gpu_takes_the_layers_is_no_failure():
    # (two GPUs, one filtered; the model went to the other: the refusal did not put the model on the CPU)
    rep = diag("""
        time=2025-11-28T18:02:11.520Z level=INFO source=routes.go:1597 msg="Listening on 127.0.0.1:11434 (version 0.12.11)"
        time=2025-11-28T18:02:13.466Z level=DEBUG source=runner.go:135 msg="filtering device which didn't fully initialize" id=1 libdir=/usr/lib/ollama/cuda_v12 pci_id=0000:65:00.0 library=CUDA
        time=2025-11-28T18:02:13.470Z level=INFO source=types.go:42 msg="inference compute" id=GPU-7c1f3a02 library=CUDA compute=8.6 name=CUDA0 description="NVIDIA GeForce RTX 3090" libdirs=ollama,cuda_v12 driver=12.8 pci_id=0000:01:00.0 type=discrete total="24.0 GiB" available="23.3 GiB"
        time=2025-11-28T18:03:40.180Z level=INFO source=ggml.go:494 msg="offloaded 29/29 layers to GPU"
        time=2025-11-28T18:03:41.436Z level=INFO source=server.go:1332 msg="llama runner started in 1.33 seconds"
        [GIN] 2025/11/28 - 18:03:52 | 200 | 1.1s | 127.0.0.1 | POST "/api/chat"
    """)
    assert run_of(rep).kind == "NONE", (run_of(rep).kind, run_of(rep).code)


def test_another_engines_words_for_a_shared_code_stay_its_own():
    # (gpu-unsupported is every engine's code: Ollama's ROCm words are not vLLM's advice)
    run = run_of(diag("""
        INFO 07-25 08:12:40 api_server.py:585] vLLM API server version 0.6.3.post1
        ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has compute capability 7.5. You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: --dtype=half.
    """))
    assert run.code == "gpu-unsupported" and "HSA_OVERRIDE" not in run.message and "Ollama" not in run.message


# --- Ollama's new engine (0.11+): the layout it prints after a load request that failed (ml/device.go, "allocated or
# not") tells how far the allocation got: a kv cache and no compute graph is a cache tensor that failed ---------------

def _ollama_new_engine(fail: str, layout: list[str], kv: int = 40960) -> str:
    req = ("time=2025-11-14T09:41:52.745Z level=INFO source=runner.go:1222 msg=load request=\"{{Operation:{op} LoraPath:[] "
           "Parallel:{par} BatchSize:{b} FlashAttention:true KvSize:{kv} KvCacheType: NumThreads:12 GPULayers:65[ID:GPU-91e2 "
           "Layers:65(0..64)] MultiUserCache:false ProjectorPath: MainGPU:0 UseMmap:false}}\"")
    return "\n".join([
        'time=2025-11-14T09:41:52.332Z level=INFO source=server.go:400 msg="starting runner" cmd="/usr/bin/ollama runner --ollama-engine --model /root/.ollama/models/blobs/sha256-3291abe7 --port 39977"',
        'time=2025-11-14T09:41:52.359Z level=INFO source=server.go:653 msg="loading model" "model layers"=65 requested=65',
        req.format(op="fit", par=2, b=512, kv=kv), req.format(op="alloc", par=2, b=512, kv=kv), fail,
        req.format(op="close", par=0, b=0, kv=0), *layout,
        'time=2025-11-14T09:41:55.921Z level=INFO source=sched.go:453 msg="Load failed" model=/root/.ollama/models/blobs/sha256-3291abe7 error="memory layout cannot be allocated with num_gpu = 65"',
    ])


def _layout(*ledgers: tuple[str, str]) -> list[str]:
    return [f'time=2025-11-14T09:41:55.921Z level=INFO source=device.go:212 msg="{name}" device=CUDA0 size="{size}"'
            for name, size in ledgers] + ['time=2025-11-14T09:41:55.921Z level=INFO source=device.go:244 msg="total memory" size="30.0 GiB"']


def test_ollama_new_engine_cache_tensor_that_failed_is_the_kv_cache():
    for fail in ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 80.00 MiB on device 0: cudaMalloc failed: out of memory",
                 "ggml_vulkan: Device memory allocation of size 83886080 failed."):
        run = run_of(diag(_ollama_new_engine(fail, _layout(("model weights", "18.4 GiB"), ("kv cache", "4.8 GiB")))))
        assert (run.kind, run.code) == ("KV_CAPACITY", "kv-cache-alloc-failed"), (fail, run.kind, run.code)
        # (the figures are the load's own, not the zeros of the request that closed it)
        assert (run.numbers["max_model_len"], run.numbers["n_parallel"], run.numbers["n_ubatch"]) == (40960, 2, 512)


def test_ollama_new_engine_with_a_graph_in_its_layout_is_not_read_as_the_cache():
    # (the graph was tried, so the cache was made: a small failure then is no cache tensor's; and the weights' own
    # buffer that failed is the weights, by its size)
    fail = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 80.00 MiB on device 0: cudaMalloc failed: out of memory"
    run = run_of(diag(_ollama_new_engine(fail, _layout(("model weights", "18.4 GiB"), ("kv cache", "10.0 GiB"),
                                                       ("compute graph", "1.2 GiB")))))
    assert run.kind != "KV_CAPACITY", (run.kind, run.code)
    fail = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 18841.60 MiB on device 0: cudaMalloc failed: out of memory"
    run = run_of(diag(_ollama_new_engine(fail, _layout(("model weights", "18.4 GiB")))))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


# --- an error pasted above the start-up it came after, the clock stepping back once between them: the start-up going
# on to serve is no recovery from it, nor a later run that clears it -----------------------------------------------

def test_vllm_v1_error_block_above_its_own_start_up_is_the_serving_oom():
    rep = diag("""
        server died after ~20 min under load. error first, then the beginning of the same log
        INFO 06-03 14:02:10 [loggers.py:118] Engine 000: Avg prompt throughput: 3120.4 tokens/s, Avg generation throughput: 210.2 tokens/s, Running: 31 reqs, Waiting: 12 reqs, GPU KV cache usage: 97.1%, Prefix cache hit rate: 12.0%
        ERROR 06-03 14:02:14 [core.py:588] EngineCore encountered a fatal error.
        ERROR 06-03 14:02:14 [core.py:588] Traceback (most recent call last):
        ERROR 06-03 14:02:14 [core.py:588]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 579, in run_engine_core
        ERROR 06-03 14:02:14 [core.py:588]     engine_core.run_busy_loop()
        ERROR 06-03 14:02:14 [core.py:588]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1264, in execute_model
        ERROR 06-03 14:02:14 [core.py:588]     hidden_states = self.model(
        ERROR 06-03 14:02:14 [core.py:588] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.10 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.16 GiB memory in use.
        INFO:     10.0.0.7:51522 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error

        INFO 06-03 13:41:02 [api_server.py:1043] vLLM API server version 0.9.1
        INFO 06-03 13:41:02 [cli_args.py:325] non-default args: {'model': 'Qwen/Qwen2.5-32B-Instruct', 'max_model_len': 32768, 'gpu_memory_utilization': 0.95}
        INFO 06-03 13:41:40 [gpu_model_runner.py:1595] Model loading took 61.04 GiB and 30.1 seconds
        INFO 06-03 13:42:01 [kv_cache_utils.py:716] GPU KV cache size: 49,152 tokens
        INFO 06-03 13:42:20 [gpu_model_runner.py:2017] Graph capturing finished in 19 secs, took 0.88 GiB
        INFO:     Application startup complete.
        INFO:     10.0.0.7:40312 - "POST /v1/chat/completions HTTP/1.1" 200 OK
    """)
    run = run_of(rep)
    assert run.kind == "RUNTIME", (run.kind, run.code)
    assert run.numbers.get("gpu_memory_utilization") == 0.95  # (the start-up's settings, for the advice)
    assert any("stamped later than the start-up" in n for n in rep.notes)


def test_sglang_decode_oom_pasted_above_the_start_up():
    rep = diag("""
        [2025-05-01 10:20:00] Decode batch. #running-req: 61, #token: 401230, token usage: 0.99, gen throughput (token/s): 2210.01, #queue-req: 40,
        [2025-05-01 10:20:03] Scheduler hit an exception: Traceback (most recent call last):
          File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1936, in run_scheduler_process
            scheduler.event_loop_overlap()
          File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 1082, in forward_decode
            return self.model.forward(
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.11 GiB of which 812.00 MiB is free.
        -- beginning of the same container log --
        [2025-05-01 10:05:11] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-70B-Instruct', tp_size=1, mem_fraction_static=0.9, context_length=None)
        [2025-05-01 10:05:30] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=38.12 GB, mem usage=40.10 GB.
        [2025-05-01 10:05:31] KV Cache is allocated. #tokens: 405000, K size: 15.45 GB, V size: 15.45 GB
        [2025-05-01 10:05:40] INFO:     Application startup complete.
        [2025-05-01 10:05:41] The server is fired up and ready to roll!
    """)
    run = run_of(rep)
    assert run.kind == "RUNTIME", (run.kind, run.code)


def test_ollama_runner_crash_pasted_above_the_start_up_is_no_recovery():
    # (one run: the runner's crash at 10:47, then the server's start-up at 09:02 pasted under it)
    rep = diag("""
        time=2025-03-02T22:47:13.101+01:00 level=ERROR source=server.go:421 msg="llama runner terminated" error="exit status 2"
        CUDA error: out of memory
          current device: 0, in function alloc at /go/src/github.com/ollama/ollama/ml/backend/ggml/ggml/src/ggml-cuda/ggml-cuda.cu:380
          cuMemCreate(&handle, reserve_size, &prop, 0)
        time=2025-03-02T21:02:01.001+01:00 level=INFO source=routes.go:1238 msg="Listening on 127.0.0.1:11434 (version 0.5.12)"
        time=2025-03-02T21:02:05.300+01:00 level=INFO source=server.go:585 msg="waiting for llama runner to start responding"
        time=2025-03-02T21:02:07.712+01:00 level=INFO source=server.go:624 msg="llama runner started in 2.41 seconds"
        [GIN] 2025/03/02 - 21:02:19 | 200 | 14.21s | 127.0.0.1 | POST "/api/generate"
    """)
    run = run_of(rep)
    assert run.code != "recovered-at-start" and run.kind != "NONE", (run.kind, run.code)


def test_a_failure_the_start_up_went_on_from_in_time_is_still_recovered():
    # (the same lines in the order written: an allocation failed at 21:02:04, the runner then started and served)
    rep = diag("""
        time=2025-03-02T21:02:01.001+01:00 level=INFO source=routes.go:1238 msg="Listening on 127.0.0.1:11434 (version 0.5.12)"
        time=2025-03-02T21:02:04.101+01:00 level=INFO source=server.go:421 msg="runner" msg="ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2048.00 MiB on device 0: cudaMalloc failed: out of memory"
        time=2025-03-02T21:02:05.300+01:00 level=INFO source=server.go:585 msg="waiting for llama runner to start responding"
        time=2025-03-02T21:02:07.712+01:00 level=INFO source=server.go:624 msg="llama runner started in 2.41 seconds"
        [GIN] 2025/03/02 - 21:02:19 | 200 | 14.21s | 127.0.0.1 | POST "/api/generate"
    """)
    run = run_of(rep)
    assert run.kind == "NONE", (run.kind, run.code)


# --- a run that failed while serving, then a retry that served: serving is as far as a run gets, so the retry got no
# further than the failure, which decides (a start-up failure is still cleared by a retry that reached serving) ------

VLLM_SERVING_OOM = """
    INFO 06-03 13:41:02 [api_server.py:1043] vLLM API server version 0.9.1
    INFO 06-03 13:41:40 [gpu_model_runner.py:1595] Model loading took 61.04 GiB and 30.1 seconds
    INFO:     Application startup complete.
    INFO:     10.0.0.7:40312 - "POST /v1/chat/completions HTTP/1.1" 200 OK
    ERROR 06-03 14:02:14 [core.py:588] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.10 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.16 GiB memory in use.
"""
VLLM_RETRY_SERVED = """
    INFO 06-03 14:10:02 [api_server.py:1043] vLLM API server version 0.9.1
    INFO 06-03 14:10:40 [gpu_model_runner.py:1595] Model loading took 61.04 GiB and 30.1 seconds
    INFO:     Application startup complete.
    INFO:     10.0.0.7:40990 - "POST /v1/chat/completions HTTP/1.1" 200 OK
"""


def test_a_serving_oom_is_not_cleared_by_a_retry_that_served():
    run = run_of(diag(VLLM_SERVING_OOM + "\n" + VLLM_RETRY_SERVED))
    assert run.kind == "RUNTIME", (run.kind, run.code)


def test_llama_server_crash_under_a_request_then_a_restart_that_served():
    rep = diag("""
        main: server is listening on http://0.0.0.0:8080 - starting the main loop
        srv  update_slots: all slots are idle
        slot launch_slot_: id  0 | task 0 | processing task
        slot update_slots: id  0 | task 0 | prompt processing progress, n_past = 6873, n_tokens = 2048, progress = 0.298
        CUDA error: out of memory
          current device: 0, in function alloc at /app/ggml/src/ggml-cuda/ggml-cuda.cu:406
          cuMemCreate(&handle, reserve_size, &prop, 0)
        /app/ggml/src/ggml-cuda/ggml-cuda.cu:84: CUDA error
        $ ./llama-server -m qwen2.5-14b-q4_k_m.gguf -c 8192 -ngl 40
        build: 4500 (1a2b3c4d) with cc (Ubuntu 11.4.0) 11.4.0 for x86_64-linux-gnu
        main: server is listening on http://0.0.0.0:8080 - starting the main loop
        srv  update_slots: all slots are idle
        slot      release: id  0 | task 0 | stop processing: n_past = 7012, truncated = 0
        srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200
    """)
    assert run_of(rep).kind == "RUNTIME", (run_of(rep).kind, run_of(rep).code)


def test_a_start_up_failure_is_still_cleared_by_a_retry_that_served():
    run = run_of(diag("""
        INFO 06-03 13:41:02 [api_server.py:1043] vLLM API server version 0.9.1
        ERROR 06-03 13:41:31 [core.py:515] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.
    """ + "\n" + VLLM_RETRY_SERVED))
    assert run.kind == "NONE", (run.kind, run.code)


# --- ExLlamaV3 behind tabbyAPI: its autosplit's words, and its modules' bar as the load under way ----------------------

def test_exllamav3_autosplit_is_weights_or_cache_never_a_forward_pass():
    rep = diag("""
        INFO:     Using backend exllamav3
        INFO:     Loading model: /models/Qwen3-32B-exl3-6.0bpw
        Loading model modules ━━━━━━━━━━━━━━━━━━━━━━━━━━━╸━━━━━━━━━━━━━  61% 40/66 0:00:12
        Traceback (most recent call last):
          File "/opt/venv/lib/python3.12/site-packages/exllamav3/models/model.py", line 373, in load_gen
            yield from self._load_autosplit(
          File "/opt/venv/lib/python3.12/site-packages/exllamav3/models/model.py", line 231, in _load_autosplit
            raise RuntimeError("Insufficient VRAM in split for model and cache")
        RuntimeError: Insufficient VRAM in split for model and cache
    """)
    run = run_of(rep)
    assert (run.kind, run.code) == ("UNDETERMINED", "autosplit-insufficient-vram"), (run.kind, run.code)
    assert set(run.candidates) == {"WEIGHTS", "KV_CAPACITY"} and "start" in run.progress
    assert "EXL3" in " ".join(a["flags"] for a in run.advice)


# --- start-ups that end before any model: llama-server's argument parser and its HTTP socket; a model the hub
# refused or the network broke off (each engine's own words) -----------------------------------------------------------

def test_llama_server_refuses_an_arguments_value():
    for line in ('error while handling argument "--cache-type-k": Unsupported cache type: q8',
                 'error while handling argument "--split-mode": invalid value'):
        run = run_of(diag(f"""
            llama-server -m /models/qwen2.5-7b-q4_k_m.gguf -c 32768 -ngl 99 -fa -ctk q8 -ctv q8
            {line}

            usage:
            -ctk,  --cache-type-k TYPE              KV cache data type for K
                                                    allowed values: f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1
                                                    (default: f16)

            to show complete usage, run with -h
        """))
        assert (run.kind, run.code) == ("NOT_OOM", "bad-argument"), (line, run.kind, run.code)


def test_llama_server_that_could_not_listen_is_no_memory_problem():
    run = run_of(diag("""
        build: 4600 (a1b2c3d4) with cc (Ubuntu 11.4.0) 11.4.0 for x86_64-linux-gnu
        system info: n_threads = 8, n_threads_batch = 8, total_threads = 16
        main: HTTP server is listening, hostname: 0.0.0.0, port: 80, http threads: 15
        main: couldn't bind HTTP server socket, hostname: 0.0.0.0, port: 80
        srv    operator(): operator(): cleaning up before exit...
    """))
    assert (run.kind, run.code) == ("NOT_OOM", "port-in-use"), (run.kind, run.code)
    assert "--port" in run.message


def test_a_model_the_hub_refused_or_the_network_broke_off():
    cases = {
        # LocalAI's preload of a gated model
        '3:12PM ERR error downloading model error="failed to download url \\"https://huggingface.co/google/gemma-2-2b-it-GGUF/resolve/main/2b_it_v2.gguf\\", invalid status code 401" filepath=/build/models/2b_it_v2.gguf':
            "download-refused",
        # huggingface_hub under vLLM
        "huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-66)": "download-refused",
        "requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/resolve/main/config.json":
            "download-refused",
        # Ollama's pull, the client's last words
        'Error: max retries exceeded: Get "https://dd20bb89.r2.cloudflarestorage.com/ollama/docker/registry/v2/blobs/sha256/b1/data": dial tcp 172.64.145.17:443: i/o timeout':
            "network-error",
        "Error: pull model manifest: Get \"https://registry.ollama.ai/v2/library/qwen3/manifests/32b\": dial tcp: lookup registry.ollama.ai on 127.0.0.53:53: no such host":
            "network-error",
    }
    for line, code in cases.items():
        run = run_of(diag(line))
        assert (run.kind, run.code) == ("NOT_OOM", code), (line, run.kind, run.code)


def test_ollama_runner_it_could_not_reach_on_this_machine_is_no_network_problem():
    # (a local address: the runner that died, told again by the client)
    run = run_of(diag('Error: max retries exceeded: Get "http://127.0.0.1:39977/health": dial tcp 127.0.0.1:39977: '
                      'connect: connection refused'))
    assert run.code != "network-error", (run.kind, run.code)


# --- a report's statement followed by its own guess as a question after a dash ("stuck forever ... — out of memory??",
# "keeps growing all day — leak?"): the statement stands; the question neither denies it nor ties it to memory -------

VLLM_TP2_START = """
    (APIServer pid=1) INFO 10-14 16:20:41 [api_server.py:1839] vLLM API server version 0.11.0
    (APIServer pid=1) INFO 10-14 16:20:41 [utils.py:233] non-default args: {'model': 'Qwen/Qwen2.5-72B-Instruct-AWQ', 'max_model_len': 32768, 'tensor_parallel_size': 2}
    (Worker_TP0 pid=2911804) INFO 10-14 16:22:10 [gpu_model_runner.py:2653] Model loading took 19.2467 GiB and 71.2 seconds
    (Worker_TP0 pid=2911804) INFO 10-14 16:22:50 [backends.py:548] Using cache directory: /root/.cache/vllm/torch_compile_cache/6a0e/rank_0_0/backbone for vLLM's torch.compile
    (EngineCore_DP0 pid=2911701) INFO 10-14 16:24:02 [shm_broadcast.py:466] No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).
    (EngineCore_DP0 pid=2911701) INFO 10-14 16:25:02 [shm_broadcast.py:466] No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).
"""


def test_a_hang_told_with_a_guess_of_memory_as_a_question_is_a_hang():
    for title in ("[Bug] TP=2 on two A6000 stuck forever after torch.compile, GPU 100% — out of memory??",
                  "vllm 0.11 start-up hangs with tp 2 (no error) - OOM?"):
        run = run_of(diag(title + "\n" + VLLM_TP2_START))
        assert (run.kind, run.code) == ("UNDETERMINED", "hang-no-error"), (title, run.kind, run.code)


def test_growth_told_with_a_guess_as_a_question_is_growth():
    run = run_of(diag("""
        llama-server memory keeps growing all day with --cache-reuse — leak?
        main: server is listening on http://0.0.0.0:8080 - starting the main loop
        srv  update_slots: all slots are idle
        srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200
    """))
    assert run.kind == "LEAK", (run.kind, run.code)


def test_a_quoted_warning_asked_about_after_a_dash_is_no_failure_told():
    run = run_of(diag("""
        KoboldCpp: "failed to allocate 2706.50 MiB of pinned memory: out of memory" - is my setup broken?
        ggml_cuda_host_malloc: failed to allocate 2706.50 MiB of pinned memory: out of memory
        llm_load_tensors: offloaded 25/33 layers to GPU
        Load Text Model OK: True
        Please connect to custom endpoint at http://localhost:5001
        Processing Prompt (12 / 12 tokens)
        Generating (100 / 100 tokens)
    """))
    assert run.kind == "NONE", (run.kind, run.code)


# --- a monitor's rows over time pasted beside the log (docker stats, nvidia-smi's per-process query): each process's
# or container's own series, read as readings --------------------------------------------------------------------------

def test_docker_stats_rows_rising_until_the_kill_are_growth():
    rows = [("10:05", "13.92GiB"), ("12:05", "19.40GiB"), ("14:05", "24.87GiB"), ("18:05", "35.13GiB"),
            ("22:05", "44.98GiB"), ("06:05", "61.02GiB")]
    stats = "\n".join(f"[05-13 {t}] 7c2e9d41b0af   vl-ocr   214.3%    {m} / 64GiB   21.75%    1.21GB / 96.4MB   "
                      "0B / 0B          182" for t, m in rows)
    run = run_of(diag(VLLM_RETRY_SERVED + "\nCONTAINER ID   NAME     CPU %     MEM USAGE / LIMIT   MEM %     NET I/O"
                      "          BLOCK I/O        PIDS\n" + stats + "\n"
                      "[Tue May 14 06:09:11 2025] Memory cgroup out of memory: Killed process 4121 (python3) "
                      "total-vm:98123456kB, anon-rss:61840212kB, file-rss:0kB"))
    assert (run.kind, run.code) == ("LEAK", "memory-growth-reported"), (run.kind, run.code)


def test_nvidia_smi_apps_rows_of_two_processes_are_two_series():
    # (the runner grows, the other process stays: the series are per process, not one mixed series)
    rows = []
    for i, (t, grow) in enumerate([("09:00", 5610), ("13:00", 5991), ("17:00", 6373), ("21:00", 6801)]):
        rows.append(f"2025/02/03 {t}:00.000, 4127, /usr/lib/ollama/runners/cuda_v12/ollama_llama_server, {grow} MiB")
        rows.append(f"2025/02/03 {t}:00.000, 4311, /usr/bin/python3, 1080 MiB")
    run = run_of(diag("ollama runner VRAM creeping up\n" + "\n".join(rows)))
    assert (run.kind, run.code) == ("LEAK", "memory-growth-reported"), (run.kind, run.code)
    assert "4127" in run.message and "1 other process" in run.message


def test_steady_docker_stats_rows_are_no_growth():
    stats = "\n".join(f"7c2e9d41b0af   vllm   108.4%    {m} / 32GiB   19.10%    1.02MB / 871kB    1.21GB / 0B       63"
                      for m in ("6.113GiB", "6.120GiB", "6.118GiB", "6.121GiB"))
    run = run_of(diag(VLLM_RETRY_SERVED + "\n" + stats))
    assert run.kind == "NONE", (run.kind, run.code)


# --- an out of memory raised again in an engine's own words (`raise RuntimeError(...) from e`): the cause's frames,
# printed first, decide where its words cover more than one step (TGI 3's warm-up: the KV cache, then a prefill) -------

def _tgi_warmup(cause_frames: str) -> str:
    return f"""
        2025-01-14T16:22:31.346981Z  INFO shard-manager: text_generation_launcher: Shard ready in 21.505818419s rank=0
        2025-01-14T16:22:31.525110Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:125: Warming up model
        2025-01-14T16:22:32.118702Z ERROR text_generation_launcher: Method Warmup encountered an error.
        Traceback (most recent call last):
{cause_frames}
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 has a total capacity of 22.03 GiB of which 119.06 MiB is free.

        The above exception was the direct cause of the following exception:

        Traceback (most recent call last):
          File "/opt/conda/lib/python3.11/site-packages/text_generation_server/server.py", line 144, in Warmup
            self.model.warmup(batch, max_input_tokens, max_total_tokens)
          File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py", line 1579, in warmup
            raise RuntimeError(
        RuntimeError: Not enough memory to handle 8049 prefill tokens. You need to decrease `--max-batch-prefill-tokens`
    """


KV_FRAMES = """          File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py", line 1553, in warmup
            self.init_kv_cache(
          File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py", line 1386, in init_kv_cache
            self.kv_cache = [
          File "/opt/conda/lib/python3.11/site-packages/text_generation_server/layers/attention/kv_cache.py", line 71, in __init__
            torch.empty("""
PREFILL_FRAMES = """          File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py", line 1561, in warmup
            _, _batch, _ = self.generate_token(batch)
          File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py", line 1810, in generate_token
            out, speculative_logits = self.forward(batch, adapter_data)"""


def test_tgi3_warmup_whose_cause_was_the_kv_cache():
    run = run_of(diag(_tgi_warmup(KV_FRAMES)))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)


def test_tgi3_warmup_whose_cause_was_the_prefill_stays_the_prefill():
    run = run_of(diag(_tgi_warmup(PREFILL_FRAMES)))
    assert (run.kind, run.code) == ("WARMUP", "prefill-tokens-exceed-memory"), (run.kind, run.code)


# --- a client's call the user pasted (`$ curl .../v1/chat/completions -d '{...}'`) is a request sent, told: no step of
# the server's; to a front server that loads its model for it (LocalAI, Ollama), no evidence it was serving -----------

def test_a_curl_to_a_front_server_then_its_backends_oom_is_undetermined():
    for server_lines in (
            ['2:17PM DBG GRPC(mistral-small-24b-127.0.0.1:34613): stderr CUDA error: out of memory',
             '2:17PM DBG GRPC(mistral-small-24b-127.0.0.1:34613): stderr   current device: 0, in function'],
            ['2:17PM ERR Server error error="failed to load model with internal loader: could not load model: rpc '
             'error: code = Unavailable desc = error reading from server: EOF" ip=172.17.0.1 latency=41.2s method=POST',
             '2:17PM DBG GRPC(mistral-small-24b-127.0.0.1:34613): stderr CUDA error: out of memory'][::-1]):
        text = "\n".join([
            "500 from the server, the container restarts",
            "$ curl -s localhost:8080/v1/chat/completions -H 'Content-Type: application/json' -d "
            "'{\"model\":\"mistral-small-24b\",\"messages\":[{\"role\":\"user\",\"content\":\"summarize the notes\"}]}'",
            '{"error":{"code":500,"message":"rpc error: code = Unavailable desc = error reading from server: EOF"}}',
            *server_lines])
        run = run_of(diag(text))
        assert run.kind == "UNDETERMINED", (server_lines[0], run.kind, run.code)


def test_a_curl_to_vllm_then_an_oom_in_its_forward_pass_is_still_serving():
    run = run_of(diag("""
        $ curl -s localhost:8000/v1/completions -H 'Content-Type: application/json' -d '{"model":"m","prompt":"hello"}'
        ERROR 06-03 14:02:14 [core.py:588] EngineCore encountered a fatal error.
        ERROR 06-03 14:02:14 [core.py:588]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1264, in execute_model
        ERROR 06-03 14:02:14 [core.py:588]     hidden_states = self.model(
        ERROR 06-03 14:02:14 [core.py:588] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.10 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free.
    """))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- a front server's API listening is not its model ready (LocalAI loads a model for the request that names it): a
# host OOM kill after its load began and before "Loads OK" is the load; after it, serving ------------------------------

LOCALAI_UP = """
    Mar 03 10:39:51 nuc local-ai[1187]: 10:39AM INF LocalAI version: v2.26.0 (09941c0bfb9119bb01a04b2a0a16897ecf2cd087)
    Mar 03 10:39:52 nuc local-ai[1187]: 10:39AM INF LocalAI API is listening! Please connect to the endpoint for API documentation. endpoint=http://0.0.0.0:8080
"""
KERNEL_KILL = ("Mar 03 10:42:51 nuc kernel: Out of memory: Killed process 48213 (llama-cpp-avx2) total-vm:21563148kB, "
               "anon-rss:14893220kB, file-rss:1152kB, shmem-rss:0kB, UID:998 pgtables:29844kB oom_score_adj:0")


def test_localai_killed_while_it_loads_the_model_for_a_request():
    for load in ("Mar 03 10:41:55 nuc local-ai[1187]: 10:41AM INF BackendLoader starting backend=llama-cpp "
                 "modelID=qwen2.5-32b-instruct o.model=Qwen2.5-32B-Instruct-Q4_K_M.gguf",
                 "Mar 03 10:41:55 nuc local-ai[1187]: 10:41AM INF Loading model 'Qwen2.5-32B-Instruct-Q4_K_M.gguf' "
                 "with backend llama-cpp"):
        run = run_of(diag(LOCALAI_UP + "\n" + load + "\n" + KERNEL_KILL))
        assert run.kind == "WEIGHTS", (load, run.kind, run.code)


def test_localai_killed_after_its_model_loaded_is_serving():
    run = run_of(diag(LOCALAI_UP + """
        Mar 03 10:41:55 nuc local-ai[1187]: 10:41AM INF BackendLoader starting backend=llama-cpp modelID=qwen2.5-32b-instruct o.model=Qwen2.5-32B-Instruct-Q4_K_M.gguf
        Mar 03 10:42:20 nuc local-ai[1187]: 10:42AM INF [llama-cpp] Loads OK
        Mar 03 10:42:21 nuc local-ai[1187]: 10:42AM DBG GRPC(qwen2.5-32b-127.0.0.1:34613): stderr slot launch_slot_: id  0 | task 0 | processing task
    """ + KERNEL_KILL))
    assert run.kind == "RUNTIME", (run.kind, run.code)


def test_a_bare_kill_after_a_start_line_is_not_read_as_the_weights():
    run = run_of(diag("""
        [2025-07-02 19:20:03] server_args=ServerArgs(model_path='Qwen/Qwen2.5-32B-Instruct-AWQ', tp_size=2)
        [2025-07-02 19:20:10 TP0] Init torch distributed begin.
        ^CTraceback (most recent call last):
          File "/usr/lib/python3.10/multiprocessing/connection.py", line 379, in _recv
            chunk = read(handle, remaining)
        KeyboardInterrupt
        Killed
    """))
    assert run.kind != "WEIGHTS", (run.kind, run.code)


# --- a setting's value the engine's own configuration refused before anything was allocated: no memory problem, and
# the advice is that setting in its range (not "leave memory settings alone") --------------------------------------

@pytest.mark.parametrize("lines", [
    ["(APIServer pid=52817) INFO 12-09 15:30:02 [api_server.py:1772] vLLM API server version 0.12.0",
     "(APIServer pid=52817) pydantic_core._pydantic_core.ValidationError: 1 validation error for CacheConfig",
     "(APIServer pid=52817) gpu_memory_utilization",
     "(APIServer pid=52817)   Input should be less than or equal to 1 [type=less_than_equal, input_value=90.0, input_type=float]"],
    ['  File "C:\\\\lmd\\\\lib\\\\site-packages\\\\lmdeploy\\\\messages.py", line 263, in __post_init__',
     "    assert 0 < self.cache_max_entry_count < 1, 'invalid cache_max_entry_count'",
     "AssertionError: invalid cache_max_entry_count"],
    ["INFO 05-01 10:00:01 api_server.py:212] vLLM API server version 0.5.2",
     "ValueError: GPU memory utilization must be less than 1.0. Got 90.0."],
])
def test_a_setting_the_engine_refused_is_that_setting_in_its_range(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "setting-rejected"), (run.kind, run.code)
    assert "0.9, not 90" in said(run) and "leave memory settings alone" not in said(run)


def test_an_assertion_on_memory_state_is_no_refused_setting():
    # (an assert whose message names no setting stays what it was)
    run = run_of(diag("""
        [2025-05-19 08:01:20] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1)
        AssertionError: invalid block table for request 7 at step 512, please report
    """))
    assert run.code != "setting-rejected", (run.kind, run.code)


# --- the report's belief in a leak above a pool that was full under load (preemption, retraction): the pool the engine
# sized at start holds its memory whether idle or not; the coping engine is what the log shows, not growth ----------

@pytest.mark.parametrize("words, pool", [
    ("nvidia-smi says 36GB used even when idle, we think memory is not freed after requests.",
     "WARNING 11-14 10:02:11 scheduler.py:1483] Sequence group chat-91fe is preempted by PreemptionMode.RECOMPUTE mode "
     "because there is not enough KV cache space. This can affect the end-to-end performance. Increase "
     "gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption=51"),
    ("GPU memory keeps growing through the day, looks like a leak to me.",
     "[2025-05-01 10:20:00] Decode out of memory happened. #retracted_reqs: 3, #new_token_ratio: 0.5432 -> 0.8012"),
])
def test_a_leak_believed_over_a_pool_full_under_load_is_the_full_pool(words, pool):
    run = run_of(diag(f"""
        slow after 30 users
        {words}

        INFO 11-14 09:00:41 api_server.py:528] vLLM API server version 0.6.3.post1
        INFO:     Application startup complete.
        INFO:     10.0.0.7:40312 - "POST /v1/chat/completions HTTP/1.1" 200 OK
        {pool}
        INFO:     10.0.0.7:40313 - "POST /v1/chat/completions HTTP/1.1" 200 OK
    """))
    assert run.kind == "RUNTIME" and run.code.startswith("kv-pool-full"), (run.kind, run.code)


def test_a_crash_of_another_cause_while_serving_is_not_cleared_by_a_retry_that_served():
    crash = """
        INFO 06-03 13:41:02 [api_server.py:1043] vLLM API server version 0.9.1
        INFO:     Application startup complete.
        INFO:     10.0.0.7:40312 - "POST /v1/chat/completions HTTP/1.1" 200 OK
        ERROR 06-03 14:02:14 [core.py:588] RuntimeError: CUDA error: an illegal memory access was encountered
    """
    run = run_of(diag(crash + "\n" + VLLM_RETRY_SERVED))
    assert (run.kind, run.code) == ("NOT_OOM", "illegal-memory-access"), (run.kind, run.code)
    # (a refusal at start-up, then a retry that served, is still cleared: the retry got further)
    run = run_of(diag("""
        INFO 06-03 13:41:02 [api_server.py:1043] vLLM API server version 0.9.1
        vllm: error: unrecognized arguments: --max-num-seq 8
    """ + "\n" + VLLM_RETRY_SERVED))
    assert run.kind == "NONE", (run.kind, run.code)


# --- advice in the engine's own words: Ollama's num_ctx is a slot's share (the runner's KvSize is it x the slots);
# wrappers of llama.cpp get their own names in the reasons, not -c / -np / -fa; a build that prints flash_attn as 0/1
# takes a bare -fa ---------------------------------------------------------------------------------------------------

def test_ollama_kv_full_advice_is_per_slot_num_ctx_in_its_own_words():
    run = run_of(diag("""
        time=2025-10-23T14:02:11.512Z level=INFO source=runner.go:893 msg="starting go runner"
        time=2025-10-23T14:02:11.702Z level=INFO source=runner.go:828 msg=load request="{Operation:commit LoraPath:[] Parallel:4 BatchSize:512 FlashAttention:false KvSize:32768 KvCacheType: NumThreads:32 GPULayers:49[ID:GPU-61d0 Layers:49(0..48)] MultiUserCache:false ProjectorPath: MainGPU:0 UseMmap:false}"
        time=2025-10-23T14:02:14.960Z level=INFO source=server.go:1310 msg="llama runner started in 3.48 seconds"
        [GIN] 2025/10/23 - 14:05:01 | 200 |  2.1s |  127.0.0.1 | POST     "/api/chat"
        panic: failed to decode batch: could not find a kv cache slot
    """))
    assert run.kind == "RUNTIME", (run.kind, run.code)
    text = said(run)
    assert "num_ctx higher than 8,192" in text and "32,768" not in text
    assert " -c " not in text and "-np" not in text and "-fa" not in text


def test_llama_cpp_python_reasons_name_its_own_settings():
    run = run_of(diag("""
        llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3060) - 11247 MiB free
        llama_model_loader: loaded meta data with 29 key-value pairs and 292 tensors from /models/llama-3.1-8b-q6_k.gguf (version GGUF V3 (latest))
        llm_load_print_meta: n_head           = 32
        llm_load_tensors: offloaded 33/33 layers to GPU
        llm_load_tensors:      CUDA0 buffer size =  6282.24 MiB
        llama_new_context_with_model: n_ctx      = 131072
        llama_new_context_with_model: n_ubatch   = 512
        llama_new_context_with_model: flash_attn = 0
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on device 0: cudaMalloc failed: out of memory
        llama_kv_cache_init: failed to allocate buffer for kv cache
        llama_new_context_with_model: llama_kv_cache_init() failed for self-attention cache
        Traceback (most recent call last):
          File "/opt/venv/lib/python3.11/site-packages/llama_cpp/llama.py", line 393, in __init__
            self._ctx = _LlamaContext(
        ValueError: Failed to create llama_context
    """))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)
    assert "-fa" not in said(run) and " -c " not in said(run), said(run)


def test_a_build_printing_flash_attn_as_a_number_takes_a_bare_fa():
    base = """
        llama_context: n_ctx         = 131072
        llama_context: flash_attn    = {fa}
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on device 0: cudaMalloc failed: out of memory
        llama_kv_cache_unified: failed to allocate buffer for kv cache
    """
    old = run_of(diag(base.format(fa="0")))
    new = run_of(diag(base.format(fa="disabled")))
    assert "-fa on" not in said(old) and "-fa" in said(old), said(old)
    assert "-fa on" in said(new), said(new)


@pytest.mark.parametrize("guess", ["so I think it is running out of VRAM or leaking.",
                                   "I'm pretty sure it's running out of VRAM when the team is online."])
def test_a_guess_of_running_out_of_vram_over_a_full_pool_is_the_full_pool(guess):
    run = run_of(diag(f"""
        vLLM gets slow when 30 people use it
        GPU memory is at 21.9 of 23 GB according to nvidia-smi, {guess}
        INFO 03-12 09:02:51 model_runner.py:1115] Loading model weights took 13.5083 GB
        INFO:     Application startup complete.
        INFO:     10.0.0.7:40312 - "POST /v1/chat/completions HTTP/1.1" 200 OK
        WARNING 03-12 14:17:11 scheduler.py:1754] Sequence group chatcmpl-f4220c is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption=1
    """))
    assert (run.kind, run.code) == ("RUNTIME", "kv-pool-full-preempting"), (run.kind, run.code)


def test_a_build_for_another_gpu_is_advised_in_its_build_systems_terms():
    ggml = run_of(diag("""
        ggml_cuda_init: found 1 CUDA devices:
          Device 0: NVIDIA GeForce GTX 1080 Ti, compute capability 6.1, VMM: yes
        CUDA error: no kernel image is available for execution on the device
          current device: 0, in function ggml_cuda_compute_forward at ggml/src/ggml-cuda/ggml-cuda.cu:2313
    """))
    assert ggml.code == "cuda-no-kernel-image", (ggml.kind, ggml.code)
    assert "CMAKE_CUDA_ARCHITECTURES" in said(ggml) and "TORCH_CUDA_ARCH_LIST" not in said(ggml)


def test_tgi3_splits_a_long_input_over_prefill_batches_so_the_input_limit_may_stay():
    base = """
        2025-01-14T16:22:30.001Z  INFO text_generation_launcher: Args {{ max_input_tokens: Some(30000), max_total_tokens: Some(32000), max_batch_prefill_tokens: Some(30000) }}
        2025-01-14T16:22:31.525Z  INFO {router}: Warming up model
        2025-01-14T16:22:32.118Z ERROR text_generation_launcher: Method Warmup encountered an error.
        RuntimeError: Not enough memory to handle 30000 prefill tokens. You need to decrease `--max-batch-prefill-tokens`
    """
    v3 = run_of(diag(base.format(router="text_generation_router_v3: backends/v3/src/lib.rs:125")))
    v2 = run_of(diag(base.format(router="text_generation_router: router/src/main.rs:380")))
    assert v3.code == v2.code == "prefill-tokens-exceed-memory", (v3.code, v2.code)
    # (v3: the prefill batch alone, with the input limit lowered only where the router refuses it; v2: all three)
    assert [a["setting"] for a in v3.advice][0] == "prefill_tokens" and "may stay" in said(v3), said(v3)
    assert [a["setting"] for a in v2.advice][0] == "max_model_len" and "--max-input-tokens" in said(v2), said(v2)


def test_vllm_hint_how_to_turn_chunked_prefill_off_is_not_it_off():
    run = run_of(diag("""
        INFO 10-29 08:41:12 api_server.py:528] vLLM API server version 0.6.3.post1
        WARNING 10-29 08:41:12 arg_utils.py:957] Chunked prefill is enabled by default for models with max_model_len > 32K. Currently, chunked prefill might not work with some features or models. If you encounter any issues, please disable chunked prefill by setting --enable-chunked-prefill=False.
        INFO 10-29 08:41:12 config.py:1021] Chunked prefill is enabled with max_num_batched_tokens=512.
        INFO 10-29 08:41:40 model_runner.py:1067] Loading model weights took 14.9888 GB
        ValueError: The model's max seq len (60000) is larger than the maximum number of tokens that can be stored in KV cache (46784). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
    """))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)
    assert "is off here" not in said(run) and "--enable-chunked-prefill" not in said(run), said(run)


def test_host_ram_out_while_loading_with_mmap_off_and_the_gpu_full():
    # (Ollama 0.6 turned mmap off itself and placed as many layers as its estimate fit: no more layers can go to the
    # GPU, and memory-mapping must be asked for, not "left on")
    run = run_of(diag("""
        time=2025-04-11T14:21:03.410+02:00 level=INFO source=server.go:105 msg="system memory" total="31.2 GiB" free="16.4 GiB" free_swap="0 B"
        time=2025-04-11T14:21:03.412+02:00 level=INFO source=server.go:138 msg=offload library=cuda layers.requested=-1 layers.model=81 layers.offload=42 layers.split="" memory.available="[23.2 GiB]" memory.gpu_overhead="0 B" memory.required.full="44.5 GiB" memory.required.partial="22.9 GiB" memory.required.kv="2.5 GiB" memory.required.allocations="[22.9 GiB]" memory.weights.total="39.6 GiB" memory.weights.repeating="38.8 GiB" memory.weights.nonrepeating="822.0 MiB" memory.graph.full="1.1 GiB" memory.graph.partial="1.1 GiB"
        time=2025-04-11T14:21:03.517+02:00 level=INFO source=server.go:405 msg="starting llama server" cmd="/usr/local/bin/ollama runner --model /m --ctx-size 8192 --batch-size 512 --n-gpu-layers 42 --threads 8 --no-mmap --parallel 1 --port 40213"
        load_tensors: loading model tensors, this can take a while... (mmap = false)
        Apr 11 14:21:31 tower kernel: Out of memory: Killed process 2290 (ollama) total-vm:48219136kB, anon-rss:15840212kB, file-rss:0kB
    """))
    assert run.kind == "WEIGHTS", (run.kind, run.code)
    assert "use_mmap option to true" in said(run) and "left on" not in said(run), said(run)
    assert not any(a["setting"] == "gpu_layers" for a in run.advice), said(run)


def test_a_kill_at_a_systemd_units_memory_limit_names_the_unit():
    run = run_of(diag("""
        Jun 02 10:00:01 box ollama[1187]: time=2025-06-02T10:00:01.000Z level=INFO source=server.go:405 msg="starting llama server" cmd="/usr/local/bin/ollama runner --model /m --ctx-size 8192 --n-gpu-layers 0 --no-mmap --port 40213"
        Jun 02 10:00:40 box kernel: oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/system.slice/ollama.service,task_memcg=/system.slice/ollama.service,task=ollama,pid=1290,uid=998
        Jun 02 10:00:40 box kernel: Memory cgroup out of memory: Killed process 1290 (ollama) total-vm:20219136kB, anon-rss:16740212kB, file-rss:0kB
    """))
    assert run.kind == "WEIGHTS", (run.kind, run.code)
    assert "MemoryMax" in said(run) and "ollama.service" in said(run) and "docker --memory" not in said(run)


@pytest.mark.parametrize("client", [
    "client side (python openai): `openai.APITimeoutError: Request timed out.` for about half of the requests.",
    "httpx.ReadTimeout: timed out",
    "requests.exceptions.ReadTimeout: HTTPConnectionPool(host='localhost', port=30000): Read timed out. (read timeout=60)",
])
def test_a_client_that_gave_up_waiting_is_the_servers_slowness_not_a_failure(client):
    run = run_of(diag(f"""
        [2025-09-18 14:00:01] INFO:     Application startup complete.
        [2025-09-18 14:01:10 TP0] Decode batch. #running-req: 22, #token: 90512, token usage: 0.98, gen throughput (token/s): 410.21, #queue-req: 9,
        [2025-09-18 14:02:24 TP0] Decode out of memory happened. #retracted_reqs: 2, #new_token_ratio: 0.3148 -> 0.6711
        [2025-09-18 14:02:31 TP0] Decode out of memory happened. #retracted_reqs: 3, #new_token_ratio: 0.6512 -> 0.9308
        {client}
    """))
    assert (run.kind, run.code) == ("RUNTIME", "kv-pool-full-retracting"), (run.kind, run.code)


def test_an_rpc_worker_that_could_not_be_reached_is_no_memory_problem():
    run = run_of(diag("""
        $ ./llama-server -m Llama-3.3-70B-Instruct-Q4_K_M.gguf --rpc 192.168.1.42:50052,192.168.1.43:50052 -c 16384
        build: 7847 (1a2b3c4d) with cc (Ubuntu 13.2.0) 13.2.0 for x86_64-linux-gnu
        Failed to connect to 192.168.1.43:50052
        load_tensors: offloaded 60/81 layers to GPU
        load_tensors:         RPC0 model buffer size =  9299.21 MiB
        main: server is listening on http://0.0.0.0:8080 - starting the main loop
        srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200
    """))
    assert (run.kind, run.code) == ("NOT_OOM", "rpc-worker-unreachable"), (run.kind, run.code)
    assert "rpc-server" in run.message


def test_mlx_allocator_refusing_a_buffer_while_the_weights_load():
    run = run_of(diag("""
        $ mlx_lm.generate --model mlx-community/Meta-Llama-3.1-70B-Instruct-8bit --prompt hi
        Traceback (most recent call last):
          File "/Users/k/venvs/mlx/lib/python3.12/site-packages/mlx_lm/utils.py", line 222, in load_model
            mx.eval(model.parameters())
        RuntimeError: [malloc] Unable to allocate 234881024 bytes.
    """))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-alloc-failed"), (run.kind, run.code)


def test_tabbyapi_ports_taken_is_no_memory_problem():
    run = run_of(diag("""
        2025-02-11 23:12:40.501 INFO:     Loading model: /models/Qwen2.5-32B-exl2
        2025-02-11 23:12:40.603 ERROR:    Ports 5000 and 5001 are in use by different services.
        2025-02-11 23:12:40.603 ERROR:    Please free up those ports or specify a different one.
        2025-02-11 23:12:40.603 ERROR:    Exiting.
    """))
    assert (run.kind, run.code) == ("NOT_OOM", "port-in-use"), (run.kind, run.code)


def test_triton_loading_its_other_models_is_one_start_and_its_status_no_cuda_error():
    run = run_of(diag("""
        I0912 08:14:02.101 1 model_lifecycle.cc:472] "loading: tensorrt_llm:1"
        [TensorRT-LLM][INFO] Loaded engine size: 15345 MiB
        [TensorRT-LLM][INFO] Memory usage when calculating max tokens in paged kv cache: total: 22.49 GiB, available: 0.02 GiB
        [TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: 3
        E0912 08:14:19.661824 1 backend_model.cc:692] "ERROR: Failed to create instance: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] Assertion failed: Impossibe to fit in any sequence in kvCache (/tmp/tritonbuild/tensorrtllm/tensorrt_llm/cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp:1129)"
        I0912 08:14:19.662052 1 model_lifecycle.cc:839] "successfully loaded 'postprocessing'"
        I0912 08:14:19.662118 1 model_lifecycle.cc:839] "successfully loaded 'preprocessing'"
        E0912 08:14:19.662517 1 model_repository_manager.cc:703] "Invalid argument: ensemble 'ensemble' depends on 'tensorrt_llm' which has no loaded version. Model 'tensorrt_llm' loading failed with error"
        error: creating server: Internal - failed to load all models
    """))
    assert (run.kind, run.code) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache"), (run.kind, run.code)


def test_tgi_download_step_killed_while_converting_is_the_weights():
    run = run_of(diag("""
        2024-01-09T13:20:01.000Z  INFO text_generation_launcher: Starting check and download process
        2024-01-09T13:20:09.000Z  WARN text_generation_launcher: No safetensors weights found for model org/llama2-70b-ft at revision None. Converting PyTorch weights to safetensors.
        2024-01-09T13:26:41.000Z  INFO text_generation_launcher: Convert: [3/15] -- Took: 0:01:32.684108
        2024-01-09T13:31:48.520Z ERROR download: text_generation_launcher: Download process was signaled to shutdown with signal 9:
        Error: DownloadError
    """))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


def test_a_healthy_tgi_whose_pool_replaced_the_users_batch_budget_is_no_growth():
    run = run_of(diag("""
        2025-06-01T10:00:01Z  WARN text_generation_router_v3: backends/v3/src/lib.rs:90: `--max-batch-total-tokens` is deprecated for Flash Attention models.
        2025-06-01T10:00:01Z  WARN text_generation_router_v3: backends/v3/src/lib.rs:94: Inferred max batch total tokens: 90651
        2025-06-01T10:00:01Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:137: Setting max batch total tokens to 90651
        2025-06-01T10:00:02Z  INFO text_generation_router::server: router/src/server.rs:2298: Connected
        2025-06-01T10:01:12Z  INFO chat_completions{total_time="1.2s"}: text_generation_router::server: router/src/server.rs:432: Success
    """))
    assert run.kind == "NONE", (run.kind, run.code)


def test_old_llama_server_bind_wording_and_sycls_device_allocation():
    bind = run_of(diag("""
        {"tid":"1","timestamp":1718000000,"level":"INFO","function":"main","line":2500,"msg":"build info","build":3150}
        couldn't bind to server socket: hostname=0.0.0.0 port=80
    """))
    assert (bind.kind, bind.code) == ("NOT_OOM", "port-in-use"), (bind.kind, bind.code)
    sycl = run_of(diag("alloc: can't malloc 2415914188 Bytes memory on deviceSegmentation fault (core dumped)"))
    assert sycl.kind == "UNDETERMINED" and sycl.oom is True, (sycl.kind, sycl.code)


@pytest.mark.parametrize("doubt", [
    "so I can't tell if it died while serving or while starting up again.",
    "I honestly don't know if it crashed while it was starting up on a new node or while serving traffic.",
])
def test_a_report_that_cannot_tell_whether_it_was_serving_gives_no_step(doubt):
    run = run_of(diag(f"""
        vllm 0.9.2 died overnight with CUDA out of memory (TP=2) — only partial logs
        The pod restarted 3 times during the night, {doubt}
        (VllmWorker rank=0 pid=214) ERROR 06-11 03:12:44 [multiproc_executor.py:522] WorkerProc hit an exception.
        (VllmWorker rank=0 pid=214) ERROR 06-11 03:12:44 [multiproc_executor.py:522] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 0 has a total capacity of 44.39 GiB of which 512.00 MiB is free.
    """))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


def test_nvidia_smi_tables_of_one_process_rising_over_days_are_growth():
    tables = []
    for day, used in enumerate((73204, 74972, 76640, 78496, 80908), 1):
        tables += [f"Tag {day}: nvidia-smi",
                   "| Processes:                                                                              |",
                   "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
                   f"|    0   N/A  N/A      1834      C   /opt/lmdeploy/venv/bin/python3                {used}MiB |",
                   "+-----------------------------------------------------------------------------------------+"]
    run = run_of(diag("\n".join(["lmdeploy serve api_server /models/qwen2.5-72b --server-port 23333"] + tables + [
        "terminate called after throwing an instance of 'std::runtime_error'",
        "  what():  [TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/allocator.h:246"])))
    assert (run.kind, run.code) == ("LEAK", "memory-growth-reported"), (run.kind, run.code)


def test_trtllm_pytorch_profiling_pass_raising_its_forwards_oom_is_the_warmup():
    run = run_of(diag("""
        [06/24/2025-07:41:50] [TRT-LLM] [I] Memory used after loading model weights (inside torch) in memory usage profiling: 15.07 GiB
        [06/24/2025-07:42:04] [TRT-LLM] [E] Encountered an error in forward function: CUDA out of memory. Tried to allocate 1.75 GiB. GPU 0 has a total capacity of 22.05 GiB of which 1.37 GiB is free.
        Traceback (most recent call last):
          File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/py_executor_creator.py", line 359, in create_py_executor
            kv_cache_creator.estimate_max_tokens(py_executor)
          File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/_util.py", line 241, in estimate_max_tokens
            raise RuntimeError(response.error_msg)
        RuntimeError: CUDA out of memory. Tried to allocate 1.75 GiB. GPU 0 has a total capacity of 22.05 GiB of which 1.37 GiB is free.
    """))
    assert run.kind == "WARMUP", (run.kind, run.code)


def test_ollama_new_engine_go_stack_after_a_failed_allocation_places_it():
    run = run_of(diag("""
        time=2025-04-09T20:14:34.233+02:00 level=INFO source=server.go:405 msg="starting llama server" cmd="/usr/local/bin/ollama runner --ollama-engine --model /m --ctx-size 8192 --n-gpu-layers 63 --port 40213"
        time=2025-04-09T20:14:34.236+02:00 level=INFO source=server.go:614 msg="waiting for server to become available" status="llm server loading model"
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 27367.52 MiB on device 0: cudaMalloc failed: out of memory
        SIGSEGV: segmentation violation
        PC=0x7f2b1c4d21a0 m=9 sigcode=1 addr=0x58
        signal arrived during cgo execution

        goroutine 51 gp=0xc000583880 m=9 mp=0xc000600808 [syscall]:
        runtime.cgocall(0x5634f2f1d2a0, 0xc00008fb28)
        \truntime/cgocall.go:167 +0x4b fp=0xc00008fb00 sp=0xc00008fac8 pc=0x5634f2250f2b
        github.com/ollama/ollama/ml/backend/ggml._Cfunc_ggml_backend_buffer_set_usage(0x0, 0x1)
        \t_cgo_gotypes.go:330 +0x3e fp=0xc00008fb28 sp=0xc00008fb00 pc=0x5634f24a9a5e
        github.com/ollama/ollama/ml/backend/ggml.New.func6(...)
        \tgithub.com/ollama/ollama/ml/backend/ggml/ggml.go:284
        github.com/ollama/ollama/ml/backend/ggml.New(0xc0001a2000, {0x5634f33d7a40, 0xc00012e0a8})
        \tgithub.com/ollama/ollama/ml/backend/ggml/ggml.go:284 +0x1be6 fp=0xc00008ff18 sp=0xc00008fb28 pc=0x5634f24b0f46
        github.com/ollama/ollama/model.New({0x5634f33c9b78, 0xc0004a2190}, {0x7ffe1e5a7c2b?, 0x0?})
        \tgithub.com/ollama/ollama/model/model.go:106 +0xd0 fp=0xc00008ffa0 sp=0xc00008ff58 pc=0x5634f24f2a10
    """))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


def test_a_pods_state_pasted_above_its_previous_log_is_that_logs_failure():
    run = run_of(diag("""
        TGI pod OOMKilled on startup, exit 137, GPU has plenty of room
        helm values (excerpt): args ["--model-id", "org/llama2-13b-ft", "--max-total-tokens", "4096"], resources.limits.memory 16Gi
        $ kubectl describe pod tgi-0 -n inference
            Last State:     Terminated
              Reason:       OOMKilled
              Exit Code:    137
        $ kubectl logs tgi-0 -n inference --previous
        2024-11-02T09:00:01.000Z  INFO text_generation_launcher: Args { model_id: "org/llama2-13b-ft", max_total_tokens: Some(4096) }
        2024-11-02T09:00:02.000Z  INFO download: text_generation_launcher: Starting check and download process
        2024-11-02T09:00:09.000Z  WARN text_generation_launcher: No safetensors weights found for model org/llama2-13b-ft at revision None. Converting PyTorch weights to safetensors.
    """))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


def test_localai_backend_that_died_while_loading_shows_no_cause():
    run = run_of(diag("""
        3:40PM INF LocalAI API is listening! Please connect to the endpoint for API documentation. endpoint=http://0.0.0.0:8080
        3:43PM INF BackendLoader starting backend=llama-cpp modelID=qwen2.5-14b o.model=qwen2.5-14b-instruct-q4_k_m.gguf
        3:44PM ERR [llama-cpp] Failed loading model, trying with fallback 'llama-cpp-fallback', error: failed to load model with internal loader: could not load model: rpc error: code = Unavai
    """))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


def test_lm_studio_mlx_engine_loaded_then_a_request_then_metal_oom_is_serving():
    run = run_of(diag("""
        2025-03-10 21:14:55 [DEBUG] [ModelKit][INFO] Loading model from /Users/anna/.lmstudio/models/mlx-community/Qwen2.5-32B-Instruct-4bit...
        2025-03-10 21:15:03 [DEBUG] [ModelKit][INFO] Model loaded successfully
        timestamp: 3/10/2025, 9:15:12 PM
        type: llm.prediction.input
        modelIdentifier: qwen2.5-32b-instruct
        libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)
    """))
    assert run.kind == "RUNTIME", (run.kind, run.code)


def test_llama_cpp_python_all_layers_as_minus_one_is_not_the_feature_off():
    run = run_of(diag("""
        llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 4090) - 23310 MiB free
        llama_model_loader: - kv   3: llama.block_count u32 = 80
        ggml_backend_cuda_buffer_type_alloc_buffer: allocating 39976.00 MiB on device 0: cudaMalloc failed: out of memory
        llama_model_load: error loading model: unable to allocate CUDA0 buffer
        Traceback (most recent call last):
          File "/srv/app.py", line 5, in <module>
            llm = Llama(model_path="/models/llama-3.3-70b-q4_k_m.gguf", n_gpu_layers=-1, n_ctx=8192)
        ValueError: Failed to load model from file: /models/llama-3.3-70b-q4_k_m.gguf
    """))
    assert run.kind == "WEIGHTS", (run.kind, run.code)
    text = said(run)
    assert "turns it off" not in text and "(it is off)" not in text, text


def test_a_title_quoting_a_warning_above_the_command_and_its_output_states_nothing():
    # (the title, the user's words and the pasted command make a run of their own that the output joins: the warnings
    # the output went on from come with it)
    run = run_of(diag("""
        koboldcpp 1.76 says "failed to allocate pinned memory: out of memory" - is it broken or ok?
        The console shows an out of memory message during load, but then it says Load Text Model OK and chats work.

        C:\\AI\\kobold>koboldcpp_cu12.exe --model C:\\AI\\models\\Mistral-Nemo-Instruct-2407-Q4_K_M.gguf --usecublas normal 0 --gpulayers 24 --contextsize 8192
        ***
        Welcome to KoboldCpp - Version 1.76
        ggml_cuda_host_malloc: failed to allocate 3035.93 MiB of pinned memory: out of memory
        llm_load_tensors: offloaded 24/41 layers to GPU
        Load Text Model OK: True
        Please connect to custom endpoint at http://localhost:5001
        Processing Prompt (12 / 12 tokens)
        Generating (100 / 100 tokens)
    """))
    assert run.kind == "NONE", (run.kind, run.code)
