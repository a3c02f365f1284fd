"""`vramdoctor logs` on the kinds of fault the held-out rounds 304 and later (issue 6, stop 37) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

from logcase import diag, run_of
from vramdoctor.logs import streams


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
