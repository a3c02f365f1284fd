"""`vramdoctor logs` on the kinds of fault the held-out rounds 316 and later (issue 6, stop 38) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import textwrap

import pytest

from logcase import diag, run_of


def said(run) -> str:
    """All of a run's advice, every field, joined."""
    return " | ".join(" ".join(str(v) for v in a.values()) for a in run.advice)


# --- a second model's load after the first's weights milestone (a speculative-decoding draft, a multimodal
# projector): a failure while it loads is that model's weights, however far the first got; its advice is about it ----

VLLM_V0_DRAFT = """
    spec decode with 8B draft OOM on 2xA100 40GB, target alone works
    INFO 09-02 11:20:01 llm_engine.py:237] Initializing an LLM engine (v0.6.1) with config: model='Qwen/Qwen2-57B-A14B-Instruct-GPTQ-Int4', speculative_config=SpeculativeConfig(draft_model='Qwen/Qwen2-7B-Instruct', num_spec_tokens=4), tensor_parallel_size=2
    INFO 09-02 11:20:09 model_runner.py:997] Starting to load model Qwen/Qwen2-57B-A14B-Instruct-GPTQ-Int4...
    (VllmWorkerProcess pid=4410) INFO 09-02 11:20:09 model_runner.py:997] Starting to load model Qwen/Qwen2-57B-A14B-Instruct-GPTQ-Int4...
    INFO 09-02 11:21:40 model_runner.py:1008] Loading model weights took 15.2203 GB
    (VllmWorkerProcess pid=4410) INFO 09-02 11:21:41 model_runner.py:1008] Loading model weights took 15.2203 GB
    INFO 09-02 11:21:41 model_runner.py:997] Starting to load model Qwen/Qwen2-7B-Instruct...
    [rank0]: Traceback (most recent call last):
    [rank0]:   File "/opt/vllm/vllm/spec_decode/spec_decode_worker.py", line 335, in init_device
    [rank0]:     self.proposer_worker.load_model()
    [rank0]:   File "/opt/vllm/vllm/worker/model_runner.py", line 999, in load_model
    [rank0]:     self.model = get_model(model_config=self.model_config,
    [rank0]:   File "/opt/vllm/vllm/model_executor/model_loader/loader.py", line 162, in _initialize_model
    [rank0]:     return build_model(
    [rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 0 has a total capacity of 39.39 GiB of which 612.31 MiB is free. Including non-PyTorch memory, this process has 38.78 GiB memory in use.
"""

SGLANG_EAGLE_DRAFT = """
    [2025-03-04 08:01:02 TP0] Load weight begin. avail mem=78.68 GB
    [2025-03-04 08:01:40 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.51 GB, mem usage=15.17 GB.
    [2025-03-04 08:01:41 TP0] KV Cache is allocated. #tokens: 437590, K size: 26.71 GB, V size: 26.71 GB
    [2025-03-04 08:01:41 TP0] Memory pool end. avail mem=9.87 GB
    [2025-03-04 08:01:42 TP0] Load weight begin. avail mem=9.87 GB
    [2025-03-04 08:01:43 TP0] Scheduler hit an exception: Traceback (most recent call last):
      File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1748, in run_scheduler_process
        scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)
      File "/sgl-workspace/sglang/python/sglang/srt/speculative/eagle_worker.py", line 62, in __init__
        super().__init__(
      File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 198, in initialize
        self.load_model()
    torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 896.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which 512.00 MiB is free.
"""


@pytest.mark.parametrize("text,code,words", [
    (VLLM_V0_DRAFT, "draft-model-weights-oom", "--speculative-config"),
    (SGLANG_EAGLE_DRAFT, "draft-model-weights-oom", "--speculative-draft-model-path"),
])
def test_a_draft_models_load_after_the_targets_weights_is_the_drafts_weights(text, code, words):
    run = run_of(diag(text))
    assert (run.kind, run.code) == ("WEIGHTS", code), (run.kind, run.code)
    assert words in said(run).split(" | ")[0], said(run)


_LLAMA_LOADED = ["load_tensors: offloading 28 repeating layers to GPU",
                 "load_tensors: offloaded 29/29 layers to GPU",
                 "load_tensors:        CUDA0 model buffer size =  7605.33 MiB",
                 "llama_context: n_ctx         = 16384",
                 "llama_kv_cache_unified:      CUDA0 KV cache size =   896.00 MiB",
                 "llama_context:      CUDA0 compute buffer size =   304.75 MiB"]
_LLAMA_OOM = ["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1288.31 MiB on device 0: cudaMalloc failed: out of "
              "memory",
              "alloc_tensor_range: failed to allocate CUDA0 buffer of size 1350897664"]


@pytest.mark.parametrize("load,code,words", [
    (["srv    load_model: loading multimodal model 'mmproj-model-f16.gguf'", "clip_ctx: CLIP using CUDA0 backend"],
     "projector-weights-oom", "--no-mmproj-offload"),
    (["clip_model_loader: model name:   Qwen2.5-VL-7B-Instruct", "load_hparams: projector:          qwen2.5vl_merger"],
     "projector-weights-oom", "--no-mmproj-offload"),
    (["srv    load_model: loading draft model 'Qwen2.5-0.5B-Instruct-Q8_0.gguf'"], "draft-model-weights-oom", "-ngld"),
])
def test_llama_servers_second_model_is_named_in_its_code_and_advice(load, code, words):
    run = run_of(diag("\n".join([*_LLAMA_LOADED, *load, *_LLAMA_OOM])))
    assert (run.kind, run.code) == ("WEIGHTS", code), (run.kind, run.code)
    assert words in said(run), said(run)


def test_another_workers_load_line_between_weights_and_a_profile_oom_is_no_second_model():
    # (each V0 worker prints its own "Starting to load model"; one printed after another's weights milestone, then its
    # own milestone, is the same model: the failure after both is the profiling run's)
    run = run_of(diag("""
        INFO 09-02 11:20:09 model_runner.py:997] Starting to load model meta-llama/Llama-3.1-70B-Instruct...
        INFO 09-02 11:21:40 model_runner.py:1008] Loading model weights took 32.8814 GB
        (VllmWorkerProcess pid=4410) INFO 09-02 11:21:40 model_runner.py:997] Starting to load model meta-llama/Llama-3.1-70B-Instruct...
        (VllmWorkerProcess pid=4410) INFO 09-02 11:21:52 model_runner.py:1008] Loading model weights took 32.8814 GB
        [rank0]: Traceback (most recent call last):
        [rank0]:   File "/opt/vllm/vllm/worker/worker.py", line 223, in determine_num_available_blocks
        [rank0]:     self.model_runner.profile_run()
        [rank0]:   File "/opt/vllm/vllm/worker/model_runner.py", line 1215, in profile_run
        [rank0]:     self.execute_model(model_input, kv_caches, intermediate_tensors)
        [rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 0 has a total capacity of 39.39 GiB of which 1.12 GiB is free.
    """))
    assert run.kind == "WARMUP", (run.kind, run.code)


# --- a worker's traceback that ends in its own tagged KeyboardInterrupt (the user's Ctrl-C on a start-up that hung),
# interleaved with another process's traceback: that process was stopped by hand, where it waited; no failure of its
# own, so the hang the report tells of decides ------------------------------------------------------------------------

VLLM_TP_HANG = """
    vllm 0.6.4 -tp 2 stuck forever at NCCL init, had to ctrl-c
    $ vllm serve Qwen/Qwen2.5-14B-Instruct -tp 2
    INFO 11-20 09:14:02 api_server.py:585] vLLM API server version 0.6.4
    INFO 11-20 09:14:09 llm_engine.py:249] Initializing an LLM engine (v0.6.4) with config: model='Qwen/Qwen2.5-14B-Instruct', tensor_parallel_size=2
    (VllmWorkerProcess pid=8812) INFO 11-20 09:14:15 multiproc_worker_utils.py:215] Worker ready; awaiting tasks
    INFO 11-20 09:14:16 utils.py:960] Found nccl from library libnccl.so.2
    INFO 11-20 09:14:16 pynccl.py:69] vLLM is using nccl==2.21.5
    ^C
    (VllmWorkerProcess pid=8812) Traceback (most recent call last):
    Traceback (most recent call last):
    (VllmWorkerProcess pid=8812)   File "/usr/local/lib/python3.10/dist-packages/vllm/executor/multiproc_worker_utils.py", line 223, in _run_worker_process
      File "/usr/local/lib/python3.10/dist-packages/vllm/distributed/device_communicators/pynccl.py", line 99, in __init__
    (VllmWorkerProcess pid=8812)     output = executor(*args, **kwargs)
        self.comm: ncclComm_t = self.nccl.ncclCommInitRank(
    (VllmWorkerProcess pid=8812)   File "/usr/local/lib/python3.10/dist-packages/vllm/distributed/parallel_state.py", line 1024, in init_distributed_environment
    (VllmWorkerProcess pid=8812)     torch.distributed.barrier()
    (VllmWorkerProcess pid=8812) KeyboardInterrupt
      File "/usr/local/lib/python3.10/dist-packages/vllm/distributed/device_communicators/pynccl_wrapper.py", line 277, in ncclCommInitRank
"""

V1_RANK_HANG = """
    [rank1]: Traceback (most recent call last):
    [rank0]: Traceback (most recent call last):
    [rank1]:   File "/opt/venv/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py", line 4551, in barrier
    [rank0]:   File "/opt/venv/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py", line 4551, in barrier
    [rank1]:     work.wait()
    [rank0]:     work.wait()
    [rank1]: KeyboardInterrupt
    [rank0]:   File "/opt/venv/lib/python3.12/site-packages/torch/_ops.py", line 1158, in __call__
    [rank0]:     return self._op(*args, **(kwargs or {}))
    [rank0]: KeyboardInterrupt
"""


@pytest.mark.parametrize("text", [
    VLLM_TP_HANG,
    "sglang tp=2 launch never finishes, it just hangs after loading config, I pressed Ctrl-C after 20 minutes\n"
    + textwrap.dedent(V1_RANK_HANG),
])
def test_a_workers_tagged_keyboard_interrupt_is_the_user_stopping_a_hang(text):
    run = run_of(diag(text))
    assert (run.kind, run.code) == ("UNDETERMINED", "hang-no-error"), (run.kind, run.code)


def test_a_workers_tagged_error_beside_the_main_processs_interrupt_is_still_its_error():
    run = run_of(diag("""
        vllm -tp 2 dies at start, I pressed ctrl-c when it hung
        (VllmWorkerProcess pid=8812) Traceback (most recent call last):
        Traceback (most recent call last):
        (VllmWorkerProcess pid=8812)   File "/usr/local/lib/python3.10/dist-packages/vllm/distributed/device_communicators/pynccl.py", line 99, in __init__
          File "/usr/local/lib/python3.10/dist-packages/vllm/executor/multiproc_gpu_executor.py", line 192, in _run_workers
        (VllmWorkerProcess pid=8812)     self.comm: ncclComm_t = self.nccl.ncclCommInitRank(
            driver_worker_output = driver_worker_method(*args, **kwargs)
        (VllmWorkerProcess pid=8812) RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)
        KeyboardInterrupt
    """))
    assert (run.kind, run.code) != ("UNDETERMINED", "hang-no-error"), (run.kind, run.code)
    assert run.kind == "NOT_OOM", (run.kind, run.code)


# --- advice in the flags of the program the log shows: mlx_lm.server has no --max-kv-size (generate's and chat's), and
# its concurrency (0.30.6) and prefill-step (0.31.0) flags only from the releases that added them ----------------------

_METAL_OOM = ("libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer "
              "execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)")


def _mlx_server(version_line: str) -> str:
    return "\n".join([
        "mlx_lm.server crashes on a long prompt, M2 Pro 32GB",
        "$ mlx_lm.server --model mlx-community/Qwen2.5-14B-Instruct-4bit --port 8080",
        *([version_line] if version_line else []),
        "2025-06-01 10:00:01,120 - INFO - Starting httpd at 127.0.0.1 on port 8080...",
        '127.0.0.1 - - [01/Jun/2025 10:02:11] "POST /v1/chat/completions HTTP/1.1" 200 -',
        _METAL_OOM])


@pytest.mark.parametrize("version_line,present,absent", [
    ("$ pip show mlx-lm | head -2\nName: mlx-lm\nVersion: 0.26.3\nmlx-lm 0.26.3", [],
     ["--max-kv-size N", "--decode-concurrency", "--prefill-step-size"]),
    ("(mlx-lm==0.31.1)", ["--decode-concurrency", "--prefill-step-size"], ["--max-kv-size N", "0.31 and later"]),
    ("", ["--decode-concurrency", "0.30.6 and later", "--prefill-step-size"], ["--max-kv-size N"]),
])
def test_mlx_servers_advice_has_only_the_servers_flags_of_its_release(version_line, present, absent):
    run = run_of(diag(_mlx_server(version_line)))
    assert run.code == "metal-command-buffer-oom", (run.kind, run.code)
    text = said(run)
    assert all(p in text for p in present), text
    assert not any(a in text for a in absent), text


def test_mlx_generate_keeps_its_rotating_kv_cache():
    from vramdoctor.engines.mlx import ENGINE
    flags = ENGINE.flags_for({"_mlx_generate": True, "_mlx_server": True})
    assert "--max-kv-size" in flags["max_model_len"], flags
    assert "--max-kv-size" not in ENGINE.flags_for({"_mlx_server": True})["max_model_len"].split(":")[0]


# --- fewer-bit weights for a model that is 8-bit already: the engine's own 4-bit form (an MLX 4-bit conversion, an
# AWQ/GPTQ checkpoint in that engine's flag), never its fp8 that is in use, nor another engine's checkpoint kind --------

MLX_8BIT_LOAD = """
    $ mlx_lm.server --model mlx-community/Qwen2.5-72B-Instruct-8bit
    Traceback (most recent call last):
      File "/opt/homebrew/lib/python3.12/site-packages/mlx_lm/utils.py", line 179, in load_model
        mx.eval(model.parameters())
    RuntimeError: [malloc] Unable to allocate 234881024 bytes.
"""

VLLM_FP8_LOAD = """
    INFO 10-02 09:00:01 api_server.py:528] vLLM API server version 0.6.2
    INFO 10-02 09:00:07 llm_engine.py:226] Initializing an LLM engine (v0.6.2) with config: model='neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8', quantization=fp8, tensor_parallel_size=1
    INFO 10-02 09:00:09 model_runner.py:1014] Starting to load model neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8...
    [rank0]:   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/quantization/fp8.py", line 171, in create_weights
    [rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 0 has a total capacity of 44.34 GiB of which 201.81 MiB is free.
"""


@pytest.mark.parametrize("text,words,not_words", [
    (MLX_8BIT_LOAD, "mlx_lm.convert -q --q-bits 4", "AWQ"),
    (VLLM_FP8_LOAD, "--quantization awq|gptq)", "fp8)"),
])
def test_weights_8_bit_already_get_the_engines_own_4_bit_form(text, words, not_words):
    run = run_of(diag(text))
    assert run.kind == "WEIGHTS", (run.kind, run.code)
    step = next(a for a in run.advice if a["setting"] == "quantization")
    assert words in step["flags"] and not_words not in step["flags"], step


# --- tabbyAPI makes one ExLlamaV2 cache of cache_size tokens (batch_size=1) that its dynamic generator's jobs share:
# fewer jobs at once (max_batch_size) do not shrink it; a script's own ExLlamaV2Cache(batch_size=N) does grow with N ----

_EXL2_CACHE_OOM = """
      File "/opt/exl2/lib/python3.11/site-packages/exllamav2/cache.py", line 253, in __init__
        self.create_state_tensors(copy_from, lazy)
      File "/opt/exl2/lib/python3.11/site-packages/exllamav2/cache.py", line 91, in create_state_tensors
        p_key_states = torch.zeros(self.batch_size, self.max_seq_len, num_key_value_heads, head_dim, dtype = self.dtype, device = device)
    torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which 2.61 GiB is free.
"""


@pytest.mark.parametrize("head,batch_step", [
    ("""
    INFO:     Using backend exllamav2
    INFO:     Loading model: /srv/tabbyAPI/models/Mistral-Small-24B-exl2-5.0bpw
    Traceback (most recent call last):
      File "/srv/tabbyAPI/backends/exllamav2/model.py", line 731, in create_cache
        return ExLlamaV2Cache(self.model, max_seq_len=cache_size, lazy=autosplit, batch_size=1)
    """, False),
    ("""
    C:\\srv\\tabby> start.bat
    Traceback (most recent call last):
      File "C:\\srv\\tabby\\common\\model.py", line 112, in load_model
      File "C:\\srv\\tabby\\backends\\exllamav2\\model.py", line 731, in create_cache
    """, False),
    ("""
    $ python my_batch.py --model /models/Mistral-Small-24B-exl2-5.0bpw
    Traceback (most recent call last):
      File "/home/u/my_batch.py", line 40, in <module>
        cache = ExLlamaV2Cache(model, batch_size = 8, max_seq_len = 32768)
    """, True),
])
def test_tabbys_shared_cache_gets_no_fewer_sequences_step(head, batch_step):
    text = textwrap.dedent(head).strip("\n") + "\n" + textwrap.dedent(_EXL2_CACHE_OOM).strip("\n")
    rep = diag(text)
    run = run_of(rep)
    assert (rep.engine, run.kind) == ("exllamav2", "KV_CAPACITY"), (rep.engine, run.kind, run.code)
    assert ("max_batch_size" in said(run)) is batch_step, said(run)


# --- llama.cpp's own hint that the cache's free cells were too scattered for a batch ("... or enable
# defragmentation"): KV defragmentation (-dt) where the log shows it off or does not show it; not where it is on -------

_NO_SLOT_SPACE = ("srv  update_slots: failed to find free space in the KV cache, retrying with smaller batch size - try "
                  "increasing it via the context size or enable defragmentation, i = -512, n_batch = 512, ret = 1")
_SERVING = ["main: server is listening on http://0.0.0.0:8080 - starting the main loop",
            "slot launch_slot_: id  3 | task 812 | processing task"]


@pytest.mark.parametrize("command,advised", [
    ("llama-server -m /m/Mistral-Nemo-Q5_K_M.gguf -c 32768 -np 8 -ngl 99 -dt -1", True),
    ("llama-server -m /m/Mistral-Nemo-Q5_K_M.gguf -c 32768 -np 8 -ngl 99", True),
    ("llama-server -m /m/Mistral-Nemo-Q5_K_M.gguf -c 32768 -np 8 -ngl 99 --defrag-thold 0.1", False),
])
def test_llama_servers_defragmentation_hint_is_advised_only_where_it_is_off(command, advised):
    run = run_of(diag("\n".join([f"$ {command}", *_SERVING, _NO_SLOT_SPACE, _NO_SLOT_SPACE])))
    assert run.kind == "RUNTIME", (run.kind, run.code)
    assert ("-dt 0.1" in said(run)) is advised, said(run)


def test_no_defragmentation_without_the_engines_hint():
    run = run_of(diag("\n".join(["$ llama-server -m /m/q.gguf -c 8192 -np 4 -dt -1", *_SERVING,
                                 "srv  update_slots: context shift is disabled and the KV cache is full"])))
    assert "-dt" not in " ".join(a["flags"] for a in run.advice), said(run)


# --- a setting the report gives with an attempt that worked ("with N_CTX = 8192 it ... works", "works fine with
# --max-num-seqs 256") is that attempt's, not the failing run's: the engine's own value stands ----------------------------

LCPP_PY_CTX = """
    ValueError: Failed to create llama_context (Qwen2.5-14B Q4_K_M, RTX 3060 12GB)
    llm = Llama(model_path=MODEL, n_gpu_layers=-1, n_ctx=N_CTX, verbose=True)
    llama_new_context_with_model: n_ctx      = 16384
    llama_new_context_with_model: n_batch    = 512
    llama_kv_cache_init:      CUDA0 KV buffer size =  3072.00 MiB
    ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1356.02 MiB on device 0: cudaMalloc failed: out of memory
    ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 1421890560
    llama_new_context_with_model: failed to allocate compute buffers
    ValueError: Failed to create llama_context
    with N_CTX = 8192 it prints "model ready" and works. Do I need flash attention?
"""

VLLM_SEQS = """
    INFO 07-15 13:02:15 [cli_args.py:325] non-default args: {'model': 'Qwen/Qwen2.5-14B-Instruct', 'max_num_seqs': 1024}
    INFO 07-15 13:03:40 [gpu_model_runner.py:1892] Model loading took 27.57 GiB and 7.9 seconds
    INFO 07-15 13:03:58 [kv_cache_utils.py:716] GPU KV cache size: 61,488 tokens
    ERROR 07-15 13:04:08 [core.py:586] RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.
    it works fine with --max-num-seqs 256, is 1024 too much for 40GB?
"""


@pytest.mark.parametrize("text,key,value", [
    (LCPP_PY_CTX, "n_ctx", 16384),
    (VLLM_SEQS, "max_num_seqs", 1024),
])
def test_a_setting_given_with_an_attempt_that_worked_is_not_the_failing_runs(text, key, value):
    run = run_of(diag(text))
    assert run.numbers.get(key) == value, run.numbers


def test_a_hang_told_with_its_setting_keeps_the_hang():
    run = run_of(diag("""
        Hangs forever at startup with -tp 4 on 4x 4090 (no error, GPUs at 100%)
        INFO 11-20 09:14:02 api_server.py:585] vLLM API server version 0.6.4
        INFO 11-20 09:14:16 pynccl.py:69] vLLM is using nccl==2.21.5
    """))
    assert (run.kind, run.code) == ("UNDETERMINED", "hang-no-error"), (run.kind, run.code)
    assert any("-tp 4 on 4x 4090 (no error" in e["text"] for e in run.evidence), run.evidence


# --- a not-memory finding the program printed at warning level and went on from, to serve: a warning, no failure;
# vLLM raising the same words (not allowed) stays the failure; a GPU refused before the CPU served stays NOT_OOM ------

LMDEPLOY_WARNED = """
    2025-07-22 10:04:19,884 - lmdeploy - WARNING - utils.py:328 - User-specified max_model_len (65536) is greater than the derived max_model_len (max_position_embeddings=32768 or model_max_length=None in model's config.json).
    HINT:    Please open http://0.0.0.0:23333 in a browser for detailed api usage!!!
    INFO:     Uvicorn running on http://0.0.0.0:23333 (Press CTRL+C to quit)
    INFO:     127.0.0.1:38616 - "POST /v1/chat/completions HTTP/1.1" 200 OK
"""

VLLM_ALLOWED_LONG = """
    INFO 03-01 10:00:00 [api_server.py:1090] vLLM API server version 0.8.5
    WARNING 03-01 10:00:05 [config.py:3310] User-specified max_model_len (65536) is greater than the derived max_model_len (max_position_embeddings=32768 or model_max_length=None in model's config.json). VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses relative position encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If the model uses absolute position encoding, positions exceeding derived_max_model_len will cause a CUDA array out-of-bounds error.
    INFO 03-01 10:01:10 [gpu_model_runner.py:1347] Model loading took 14.99 GiB and 6.2 seconds
    INFO 03-01 10:01:40 [api_server.py:1037] Starting vLLM API server on http://0.0.0.0:8000
    INFO:     10.0.0.5:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK
"""

VLLM_REFUSED_LONG = """
    INFO 03-01 10:00:00 [api_server.py:1090] vLLM API server version 0.8.5
    ValueError: User-specified max_model_len (65536) is greater than the derived max_model_len (max_position_embeddings=32768 or model_max_length=None in model's config.json). To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
"""


@pytest.mark.parametrize("text,kind", [
    (LMDEPLOY_WARNED, "NONE"),
    (VLLM_ALLOWED_LONG, "NONE"),
    (VLLM_REFUSED_LONG, "NOT_OOM"),
])
def test_a_not_memory_warning_the_server_went_on_from_is_no_failure(text, kind):
    run = run_of(diag(text))
    assert run.kind == kind, (run.kind, run.code)


# --- TurboMind's warm-up (LlamaBatch::Warmup: GEMM tuning, a prefill pass per batch size, after its KV blocks) is a
# step under way; its "Tuning finished" is the warm-up done -------------------------------------------------------------

_TM_START = ["$ lmdeploy serve api_server Qwen/Qwen2.5-14B-Instruct --backend turbomind --session-len 32768",
             "2025-03-02 11:00:40,112 - lmdeploy - WARNING - turbomind.py:231 - get 579 model params",
             "[TM][INFO] [BlockManager] block_size = 6.000 MB",
             "[TM][INFO] [BlockManager] max_block_count = 1203",
             "[TM][INFO] [Gemm2] Tuning sequence: 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192",
             "[TM][INFO] [Gemm2] 8", "[TM][INFO] [Gemm2] 16", "[TM][INFO] [Gemm2] 4096"]
_TM_OOM = ["[TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/allocator.h:246",
           "Aborted (core dumped)"]


@pytest.mark.parametrize("between,kind", [
    ([], "WARMUP"),
    (["[TM][INFO] [Gemm2] 8192"], "WARMUP"),
    (["[TM][INFO] [Gemm2] 8192", "[TM][INFO] [Gemm2] Tuning finished in 14.21 seconds.",
      "HINT:    Please open http://0.0.0.0:23333 in a browser for detailed api usage!!!",
      "INFO:     Uvicorn running on http://0.0.0.0:23333 (Press CTRL+C to quit)",
      "2025-03-02 11:05:00,000 - lmdeploy - INFO - async_engine.py:675 - session=1, adapter_name=None, "
      "input_tokens=30122, gen_config=GenerationConfig(max_new_tokens=2048)"], "RUNTIME"),
])
def test_turbominds_gemm_tuning_is_its_warm_up(between, kind):
    run = run_of(diag("\n".join([*_TM_START, *between, *_TM_OOM])))
    assert run.kind == kind, (run.kind, run.code)


# --- mistral.rs's PagedAttention scheduler finishing a request as ignored: the pool full under load (after evicting a
# running sequence), or one request past the whole pool; --pa-ctxt-len is the pool's tokens, no request's cap ---------

_MRS_START = ["$ ./mistralrs-server --port 1234 --paged-attn --pa-ctxt-len 16384 plain -m Qwen/Qwen3-8B",
              "2025-07-03T09:30:09.911530Z  INFO mistralrs_core::paged_attention: Using PagedAttention with block size "
              "32 and 512 GPU blocks: available context length is 16384 tokens",
              "2025-07-03T09:30:12.001000Z  INFO mistralrs_server: Serving on http://0.0.0.0:1234.",
              "2025-07-03T09:31:00.000000Z  INFO mistralrs_core::engine::logger: Throughput (T/s) 48.20, Prefix cache "
              "hitrate 0.00%, 4 running, 3 waiting"]


@pytest.mark.parametrize("line,kind,code", [
    ("2025-07-03T09:31:02.500000Z  WARN mistralrs_core::paged_attention::scheduler: Sequence 17 with length of 3581 "
     "tokens still exceeds KV cache size even after evicting another sequence.", "RUNTIME", "kv-cache-full-request-failed"),
    ("2025-07-03T09:31:02.500000Z  WARN mistralrs_core::paged_attention::scheduler: Sequence 21 with length of 20112 "
     "tokens is too long and exceeds KV cache size. To fix, increase the maximum sequence length for the KV cache, for "
     "example with `--max-seq-len`/ `max_seq_len` in automatic device mapping parameters.", "KV_CAPACITY",
     "request-exceeds-kv-pool"),
])
def test_mistralrs_scheduler_ignoring_a_request_is_its_pool(line, kind, code):
    run = run_of(diag("\n".join([*_MRS_START, line])))
    assert (run.kind, run.code) == (kind, code), (run.kind, run.code)
    text = said(run)
    assert "--pa-ctxt-len lower" not in text and "--pa-ctxt-len N" not in text, text
    if kind == "RUNTIME":
        assert "--pa-ctxt-len above 16384" in text, text


# --- memory readings over time in other forms: a ps listing appended under one header (the same pid again is the next
# snapshot), docker stats rows that start at the name, a script's own `alloc=` prints; not a high-water mark ----------

_KILL = ("[305712.118204] Out of memory: Killed process 51234 (koboldcpp-linu) total-vm:58823412kB, "
         "anon-rss:30114876kB, file-rss:118204kB, shmem-rss:0kB, UID:1000 pgtables:61240kB oom_score_adj:0")


@pytest.mark.parametrize("rows", [
    ["  PID   RSS     ELAPSED CMD",
     "51234 1384212      00:05 ./koboldcpp --model m.gguf",
     "51234 9106552  1-00:01:03 ./koboldcpp --model m.gguf",
     "51234 20412908 2-00:00:52 ./koboldcpp --model m.gguf",
     "51234 29870412 3-00:00:34 ./koboldcpp --model m.gguf"],
    ["11-03 09:00  vllm-vl   187.31%   11.42GiB / 64GiB   17.84%",
     "11-04 09:00  vllm-vl   176.02%   31.08GiB / 64GiB   48.56%",
     "11-05 09:00  vllm-vl   193.45%   44.87GiB / 64GiB   70.11%",
     "11-06 09:00  vllm-vl   188.90%   55.31GiB / 64GiB   86.42%"],
    ["[worker] loaded in 19.8s  alloc=14.21GB reserved=14.53GB",
     "[worker] 09:24:02 job 200 done  prompt=2876 new=400  alloc=14.93GB reserved=15.61GB",
     "[worker] 10:11:40 job 400 done  prompt=3101 new=388  alloc=16.40GB reserved=17.02GB",
     "[worker] 11:02:19 job 600 done  prompt=2950 new=412  alloc=18.58GB reserved=19.20GB"],
])
def test_readings_over_time_in_other_forms_are_a_series(rows):
    run = run_of(diag("\n".join(["server slows down over days, then the kernel kills it", *rows, _KILL])))
    assert (run.kind, run.code) == ("LEAK", "memory-growth-reported"), (run.kind, run.code)
    assert "report it" in said(run) and "measure, then report" not in said(run), said(run)


@pytest.mark.parametrize("rows", [
    ["  PID   RSS     ELAPSED CMD",
     "51234 9106552      00:05 ./koboldcpp --model m.gguf",
     "51234 9106560  1-00:01:03 ./koboldcpp --model m.gguf",
     "51234 9106548  2-00:00:52 ./koboldcpp --model m.gguf"],
    ["2025-07-24 15:21:34,553 - DEBUG - Peak memory: 9.841 GB",
     "2025-07-24 15:28:06,553 - DEBUG - Peak memory: 11.922 GB",
     "2025-07-24 15:34:29,553 - DEBUG - Peak memory: 13.607 GB",
     "2025-07-24 15:40:29,553 - DEBUG - Peak memory: 15.970 GB"],
])
def test_flat_readings_or_a_high_water_mark_are_no_growth(rows):
    run = run_of(diag("\n".join(["$ mlx_lm.server --model mlx-community/Qwen2.5-14B-Instruct-4bit", *rows])))
    assert run.code != "memory-growth-reported", (run.kind, run.code)


# --- a report's title that begins with a count of its setup ("2-node ...", "4x A100 ...", "70B ...") is the report's
# words, not a program's line: the hang it states is read ---------------------------------------------------------------

@pytest.mark.parametrize("title", [
    '2-node DeepSeek-R1 (tp 16) hangs forever after "Init torch distributed begin."',
    "4x A100 start stuck at NCCL init, no error",
    "70B model hangs at startup with tp 8",
])
def test_a_title_that_begins_with_a_count_states_its_hang(title):
    run = run_of(diag("\n".join([
        title, "",
        "node0: [2025-06-05 08:11:40] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-R1', tp_size=16)",
        "node0: [2025-06-05 08:11:58 TP0] Init torch distributed begin."])))
    assert (run.kind, run.code) == ("UNDETERMINED", "hang-no-error"), (run.kind, run.code)


# --- Ollama's client quoting the runner's last error line as status.go kept it: the bare prefix of ggml's abort line
# ("CUDA error", "ROCm error") names no cause: undetermined, with where the server's log is ---------------------------

@pytest.mark.parametrize("line", [
    "Error: llama runner process has terminated: CUDA error",
    "Error: llama runner process has terminated: ROCm error",
])
def test_ollamas_bare_abort_prefix_names_no_cause(line):
    run = run_of(diag("\n".join(["$ ollama run llama3.1", line, "$ ollama run phi3", line])))
    assert (run.kind, run.code) == ("UNDETERMINED", "failure-cause-not-shown"), (run.kind, run.code)
    assert "journalctl -u ollama" in said(run), said(run)


def test_ollamas_abort_with_its_reason_is_read():
    run = run_of(diag("$ ollama run llama3.1\nError: llama runner process has terminated: CUDA error: out of memory"))
    assert run.kind != "NOT_OOM" and run.code != "failure-cause-not-shown", (run.kind, run.code)


# --- a GPU Ollama's server refused at its start, then a runner it started for a request that served with no GPU in
# use: the refusal is why (not the runner's NONE); a later start that put layers on a GPU clears it --------------------

_OLLAMA_REFUSED = [
    'time=2024-11-21T08:14:52.204Z level=INFO source=routes.go:1240 msg="Listening on [::]:11434 (version 0.4.2)"',
    'time=2024-11-21T08:14:53.318Z level=INFO source=gpu.go:312 msg="[0] CUDA GPU is too old. Compute Capability '
    'detected: 3.7"',
    'time=2024-11-21T08:14:53.417Z level=INFO source=gpu.go:386 msg="no compatible GPUs were discovered"',
    'time=2024-11-21T08:16:30.563Z level=INFO source=server.go:383 msg="starting llama server" '
    'cmd="/usr/local/lib/ollama/runners/cpu_avx2/ollama_llama_server --model /m/sha256-8eeb --ctx-size 8192"',
    'time=2024-11-21T08:16:34.108Z level=INFO source=server.go:601 msg="llama runner started in 3.54 seconds"',
    '[GIN] 2024/11/21 - 08:17:49 | 200 |         1m18s |       127.0.0.1 | POST     "/api/generate"']


def test_ollamas_refused_gpu_stands_over_the_cpu_runner_that_served():
    run = run_of(diag("\n".join(["ollama uses only CPU on my R730 with two K80", *_OLLAMA_REFUSED])))
    assert (run.kind, run.code) == ("NOT_OOM", "gpu-unsupported"), (run.kind, run.code)


def test_a_later_runner_with_layers_on_a_gpu_clears_the_refusal():
    run = run_of(diag("\n".join([
        *_OLLAMA_REFUSED,
        'time=2024-11-21T09:00:00.000Z level=INFO source=server.go:383 msg="starting llama server" '
        'cmd="/usr/local/lib/ollama/runners/cuda_v11/ollama_llama_server --model /m/sha256-8eeb --ctx-size 8192"',
        "llm_load_tensors: offloading 32 repeating layers to GPU",
        "llm_load_tensors: offloaded 33/33 layers to GPU",
        "llm_load_tensors:      CUDA0 buffer size =  4155.99 MiB",
        'time=2024-11-21T09:00:04.108Z level=INFO source=server.go:601 msg="llama runner started in 4.10 seconds"',
        '[GIN] 2024/11/21 - 09:00:49 | 200 |         4.2s |       127.0.0.1 | POST     "/api/generate"'])))
    assert run.kind == "NONE", (run.kind, run.code)


# --- each rank's out-of-memory error lists its own pid, holding what PyTorch allocated there and a little more: those
# are this server's ranks, no other process to stop; a process that holds more than that is another ---------------------

def _rank_oom(gpu: int, pid: int, in_use: str, allocated: str) -> str:
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB. GPU {gpu} has a total capacity "
            f"of 22.19 GiB of which 145.50 MiB is free. Process {pid} has {in_use} GiB memory in use. Of the allocated "
            f"memory {allocated} GiB is allocated by PyTorch, and 13.21 MiB is reserved by PyTorch but unallocated.")


_V1_SERVING = ["INFO 05-01 10:00:00 [gpu_model_runner.py:1595] Model loading took 20.10 GiB and 6.1 seconds",
               "INFO 05-01 10:00:30 [api_server.py:1043] Starting vLLM API server on http://0.0.0.0:8000",
               'INFO:     10.0.0.5:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


def test_each_ranks_own_pid_is_no_other_process():
    run = run_of(diag("\n".join([*_V1_SERVING, *(
        f"(VllmWorker rank={g} pid={p}) ERROR 05-01 10:05:00 [multiproc_executor.py:527] " + _rank_oom(g, p, "22.04",
                                                                                                       "21.61")
        for g, p in ((2, 314), (0, 300), (3, 321)))])))
    assert run.kind == "RUNTIME", (run.kind, run.code)
    assert not any(a["change"] in ("check the other processes", "free the GPU") for a in run.advice), said(run)


def test_a_process_holding_more_than_the_failing_one_allocated_is_still_named():
    run = run_of(diag("\n".join([*_V1_SERVING, "ERROR 05-01 10:05:00 [core.py:527] " + _rank_oom(0, 4410, "12.31", "6.02").replace(
        "Process 4410 has 12.31 GiB memory in use.", "Process 4410 has 12.31 GiB memory in use. Process 5120 has 9.70 "
        "GiB memory in use.")])))
    assert run.kind == "RUNTIME", (run.kind, run.code)
    assert any(a["change"] in ("check the other processes", "free the GPU") for a in run.advice), said(run)


# --- an AMD GPU whose architecture the ROCm libraries lack kernels for: HIP's terms (HSA_OVERRIDE_GFX_VERSION to the
# family's supported architecture, never the card's own one already set), not CUDA's compute capability -----------------

_ROCBLAS = ("rocBLAS error: Cannot read /usr/local/lib/ollama/rocm/rocblas/library/TensileLibrary.dat: No such file or "
            "directory for GPU arch : {arch}")


@pytest.mark.parametrize("env,arch,says,not_says", [
    ('HSA_OVERRIDE_GFX_VERSION=10.3.1', "gfx1031", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "compute_cap"),
    ("", "gfx1032", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "CMAKE_CUDA_ARCHITECTURES"),
    ("", "gfx1101", "HSA_OVERRIDE_GFX_VERSION=11.0.0", "compute_cap"),
    ("HSA_OVERRIDE_GFX_VERSION=10.3.0", "gfx1030", "ROCm build that includes it", "HSA_OVERRIDE_GFX_VERSION=10.3.0 ("),
])
def test_rocm_missing_kernels_get_hips_terms(env, arch, says, not_says):
    run = run_of(diag("\n".join(["$ sudo systemctl edit ollama   # Environment=" + env if env else "$ ollama serve",
                                 f"ggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon RX 6700 XT, {arch} "
                                 f"(0x{arch[3:]}), VMM: no, Wave Size: 32", _ROCBLAS.format(arch=arch)])))
    assert run.code == "cuda-no-kernel-image", (run.kind, run.code)
    assert says in said(run) and not_says not in said(run), said(run)


# --- turning mmap on in each GGML engine's own terms: llama-cpp-python's use_mmap / --use_mmap, KoboldCpp's --nommap -----

@pytest.mark.parametrize("command,says", [
    ("$ python -m llama_cpp.server --model /m/qwen2.5-14b-instruct-q8_0.gguf --n_gpu_layers 0 --use_mmap false",
     "--use_mmap true"),
    ("$ ./koboldcpp --model /m/qwen2.5-14b-instruct-q8_0.gguf --nommap --contextsize 8192", "drop --nommap"),
])
def test_mmap_on_in_the_engines_own_terms(command, says):
    run = run_of(diag("\n".join([
        command,
        "llama_model_loader: loaded meta data with 29 key-value pairs and 579 tensors from /m/qwen2.5-14b-instruct-q8_0.gguf",
        "llm_load_tensors: ggml ctx size =    0.25 MiB",
        "llm_load_tensors:        CPU buffer size = 14970.77 MiB",
        "[612044.118204] Out of memory: Killed process 4121 (python) total-vm:18823412kB, anon-rss:15114876kB, "
        "file-rss:1204kB, shmem-rss:0kB, UID:1000 pgtables:31240kB oom_score_adj:0"])))
    assert run.kind == "WEIGHTS", (run.kind, run.code)
    assert says in said(run) and "--no-mmap" not in said(run), said(run)


# --- the log's engine from its own lines: a neighbour named in a process listing's row or in running words of the
# report ("ollama is also running on this box") is not the engine; a short first line that names it is the title -------

_LLAMA_SERVER = ["$ ./build/bin/llama-server -m /m/Mistral-Small-24B-Q4_K_M.gguf -ngl 99 -c 32768 -ub 1024",
                 "load_tensors: offloaded 41/41 layers to GPU",
                 "load_tensors:        CUDA0 model buffer size = 13153.53 MiB",
                 "llama_context: n_ctx         = 32768",
                 "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2912.02 MiB on device 0: cudaMalloc failed: "
                 "out of memory",
                 "graph_reserve: failed to allocate compute buffers"]


@pytest.mark.parametrize("extra", [
    ["|    0   N/A  N/A           41877      C   /usr/local/bin/ollama                  3804MiB |"],
    ["weights are 13GB, KV for 32k is 5GB, card has 24GB. why it fails? ollama is also running on this box "
     "(open-webui uses it for embeddings) but that is only ~3.5GB"],
    ["ollama    41877  2.1  3.0 5123456 3896000 ?   Ssl  09:12   0:41 /usr/local/bin/ollama serve"],
])
def test_a_neighbour_named_beside_the_log_is_not_its_engine(extra):
    rep = diag("\n".join(["llama-server fails to create context at 32k", *extra, *_LLAMA_SERVER]))
    assert rep.engine == "llamacpp", rep.engine
    assert "-ub" in said(run_of(rep)), said(run_of(rep))


def test_a_short_first_line_naming_a_wrapper_is_the_title():
    rep = diag("\n".join(["CUDA Memory Allocation Failure and mlock Memory Lock Issue in llama-cpp-python",
                          *_LLAMA_SERVER[1:]]))
    assert rep.engine == "llama-cpp-python", rep.engine


# --- a worry, a fear of what may come, or another's word for it (hearsay) states no failure: the log decides ------------

_VLLM_HEALTHY = ["INFO 05-01 10:00:00 [gpu_model_runner.py:1595] Model loading took 15.27 GiB and 6.1 seconds",
                 "INFO 05-01 10:00:20 [kv_cache_utils.py:716] GPU KV cache size: 301,184 tokens",
                 "INFO 05-01 10:00:30 [api_server.py:1043] Starting vLLM API server on http://0.0.0.0:8000",
                 'INFO:     10.0.0.5:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                 'INFO:     10.0.0.5:51240 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("words", [
    "Requests work and are fast, no errors at all. But nvidia-smi says 44 GB used even when idle. I am afraid it will "
    "crash when more users come. Is that normal?",
    "Everything answers fine as far as I can tell, but I'm worried the card is running out of VRAM or so.",
    "Someone in another issue said vLLM goes OOM under load, so I ran a load test before we put it in production.",
    "I read that it runs out of memory after a day of chats; so far all requests are OK.",
])
def test_a_worry_or_hearsay_states_no_failure(words):
    run = run_of(diag("\n".join([words, *_VLLM_HEALTHY])))
    assert run.kind == "NONE", (run.kind, run.code)


@pytest.mark.parametrize("words", [
    "It crashed with CUDA out of memory after the second request, I am afraid the pool is too big.",
    "vLLM goes OOM under load, someone said to lower the utilization but it did not help.",
])
def test_a_failure_stated_beside_a_worry_or_hearsay_stays(words):
    run = run_of(diag("\n".join([*_VLLM_HEALTHY, words])))
    assert run.kind != "NONE", (run.kind, run.code)


@pytest.mark.parametrize("words", [
    "We feared OOM, then the server died with torch.OutOfMemoryError on the third request.",
    "I was worried about running out of memory and then it crashed with CUDA out of memory while serving.",
])
def test_a_worry_followed_by_the_failure_itself_keeps_the_failure(words):
    run = run_of(diag("\n".join([*_VLLM_HEALTHY, words])))
    assert run.kind != "NONE", (run.kind, run.code)
