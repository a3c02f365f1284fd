"""`vramdoctor logs` on the kinds of fault the held-out rounds 86-88 (issue 6, stop 25) found, each with logs of our
own in other engines, versions and wordings (none of the held-out logs' own lines). The engines' lines follow their
sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, run_of

# --- a traceback that begins at the failure ("Scheduler hit an exception: Traceback", "EngineCore failed to start")
# and is cut before its error line, many frames down: its frames are read to its end, not only the first 12 lines,
# and a call into the model runner's load_model (vLLM, SGLang: the weights only; the KV pool is made later) is the
# weights loading --------------------------------------------------------------------------------------------------

_SGL = "/sgl-workspace/sglang/python/sglang/srt"
SGLANG_FRAMES = [
    f'  File "{_SGL}/managers/scheduler.py", line 2890, in run_scheduler_process',
    "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)",
    f'  File "{_SGL}/managers/scheduler.py", line 331, in __init__',
    "    self.tp_worker = TpWorkerClass(",
    f'  File "{_SGL}/managers/tp_worker_overlap_thread.py", line 66, in __init__',
    "    self.worker = TpModelWorker(",
    f'  File "{_SGL}/managers/tp_worker.py", line 84, in __init__',
    "    self.model_runner = ModelRunner(",
    f'  File "{_SGL}/model_executor/model_runner.py", line 244, in __init__',
    "    self.initialize(min_per_gpu_memory)",
    f'  File "{_SGL}/model_executor/model_runner.py", line 287, in initialize',
    "    self.load_model()",
    f'  File "{_SGL}/model_executor/model_r',
]
_V1 = "/usr/local/lib/python3.12/site-packages/vllm"
VLLM_FRAMES = [
    f'  File "{_V1}/v1/engine/core.py", line 691, in run_engine_core',
    "    engine_core = EngineCoreProc(*args, **kwargs)",
    f'  File "{_V1}/v1/engine/core.py", line 492, in __init__',
    "    super().__init__(vllm_config, executor_class, log_stats,",
    f'  File "{_V1}/v1/engine/core.py", line 80, in __init__',
    "    self.model_executor = executor_class(vllm_config)",
    f'  File "{_V1}/executor/executor_base.py", line 54, in __init__',
    "    self._init_executor()",
    f'  File "{_V1}/executor/uniproc_executor.py", line 49, in _init_executor',
    '    self.collective_rpc("load_model")',
    f'  File "{_V1}/executor/uniproc_executor.py", line 58, in collective_rpc',
    "    answer = run_method(self.driver_worker, method, args, kwargs)",
    f'  File "{_V1}/utils/__init__.py", line 2985, in run_method',
    "    return func(*args, **kwargs)",
    f'  File "{_V1}/v1/worker/gpu_worker.py", line 211, in load_model',
    "    self.model_runner.load_model(eep_scale_up=eep_scale_up)",
]


@pytest.mark.parametrize("head,frames", [
    (["# v0.5.1 fails to launch Qwen3-235B with CUDA out of memory", "",
      "[2025-09-12 08:01:44] Received sigquit from a child process. It usually means the child failed.",
      "[2025-09-12 08:01:44 TP5] Scheduler hit an exception: Traceback (most recent call last):"], SGLANG_FRAMES),
    (["Launching fails with CUDA out of memory on every rank:",
      "[2025-09-12 08:01:44 TP5] Scheduler hit an exception: Traceback (most recent call last):"], SGLANG_FRAMES),
    (["[Bug]: OOM when starting Llama-3.3-70B-Instruct on 2x L40S (CUDA out of memory)", "",
      "(EngineCore_0 pid=812) ERROR 08-14 03:12:55 [core.py:700] EngineCore failed to start.",
      "(EngineCore_0 pid=812) ERROR 08-14 03:12:55 [core.py:700] Traceback (most recent call last):"],
     ["(EngineCore_0 pid=812) ERROR 08-14 03:12:55 [core.py:700] " + x for x in VLLM_FRAMES]),
])
def test_a_traceback_cut_in_the_model_runners_load_model_is_the_weights(head, frames):
    run = run_of(diag("\n".join(head + frames)))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


def test_frames_past_the_first_lines_after_a_failure_still_place_it():
    """The same SGLang traceback cut inside the KV pool's allocation, 14 frames down: not the weights."""
    frames = SGLANG_FRAMES[:-3] + [
        f'  File "{_SGL}/model_executor/model_runner.py", line 301, in initialize',
        "    self.init_memory_pool(",
        f'  File "{_SGL}/model_executor/model_runner.py", line 1190, in init_memory_pool',
        "    self.token_to_kv_pool = MHATokenToKVPool(",
        f'  File "{_SGL}/mem_cache/memory_pool.py", line 420, in __init__',
        "    self._create_buffers()",
        f'  File "{_SGL}/mem_cache/memory_pool.py", line 442, in _create_buffers',
        "    torch.zeros(",
    ]
    run = run_of(diag("\n".join(["# sglang: CUDA out of memory at startup with --context-length 131072", "",
                                 "[2025-09-12 08:01:44 TP0] Scheduler hit an exception: Traceback (most recent call "
                                 "last):"] + frames)))
    assert run.kind != "WEIGHTS", (run.kind, run.code, run.phase_source)


# --- a person's account of the failure ("X crashes during warmup with OOM error") is a summary written after the run:
# the log pasted below it, served requests and all, is not "after" it, so the run did not recover from it -----------


@pytest.mark.parametrize("lines,kinds", [
    (["### Describe the bug", "",
      "When launched on a single L4, Qwen2.5-7B-Instruct crashes during warmup with an OOM error", "",
      "```",
      'INFO:     127.0.0.1:51022 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
      "INFO 03-11 09:12:40 [engine.py:310] Added request chatcmpl-5be1d0.",
      "ERROR 03-11 09:12:41 [engine.py:160] RuntimeError: device allocation failed", "```"],
     ("WARMUP", "UNDETERMINED")),
    (["sglang 0.4.9 crashes during the warmup request with OOM on 4xA10G:",
      '[2025-07-02 10:00:31] INFO:     127.0.0.1:40112 - "GET /get_model_info HTTP/1.1" 200 OK',
      "[2025-07-02 10:00:31 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, "
      "#running-req: 0, #queue-req: 0"],
     ("WARMUP", "UNDETERMINED")),
    (["ollama died while loading the model with out of memory (0.6.2, two 3090s)",
      '[GIN] 2025/04/02 - 10:11:12 | 200 |  4.21s |  127.0.0.1 | POST     "/api/generate"'],
     ("WEIGHTS", "UNDETERMINED")),
])
def test_a_persons_account_of_the_failure_is_no_point_the_run_recovered_from(lines, kinds):
    run = run_of(diag("\n".join(lines)))
    assert run.kind in kinds and run.code != "recovered-at-start", (run.kind, run.code)


@pytest.mark.parametrize("line", [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 22.05 GiB "
    "of which 3.12 MiB is free.",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1024.00 MiB on device 0: cudaMalloc failed: out of memory",
])
def test_a_programs_out_of_memory_at_start_that_the_server_got_past_is_still_recovered(line):
    run = run_of(diag("\n".join([line, 'INFO:     127.0.0.1:51022 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                                 "main: server is listening on http://127.0.0.1:8080 - starting the main loop"])))
    assert run.kind == "NONE", (run.kind, run.code)


@pytest.mark.parametrize("said,kind", [
    ("It never OOM-ed on 0.5.3.", "NONE"),
    ("We have not OOMed once since the upgrade.", "NONE"),
    ("It OOMed with 0.5.4 during warmup.", "WARMUP"),
])
def test_oomed_as_a_verb_is_read_as_the_words_it_is(said, kind):
    """"OOMed" is the out-of-memory as a verb in the past: denied ("never OOM-ed") it is no failure, stated it is one."""
    run = run_of(diag("\n".join([said, "", "INFO:     Application startup complete."])))
    assert run.kind == kind, (run.kind, run.code)


# --- "when serving <a model>" is running the server with that model, as "serving the model" is: no request named -----


@pytest.mark.parametrize("lines", [
    ["# Out of memory when serving Llama-3.3-70B-Instruct-AWQ on 2x RTX 4090",
     "INFO 05-02 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
     "INFO 05-02 10:00:31 [default_loader.py:272] Loading weights took 28.91 seconds",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 23.55 GiB "
     "of which 1.02 GiB is free."],
    ["CUDA OOM while serving meta-llama/Llama-3.1-8B-Instruct with sglang on a T4",
     "[2025-06-01 10:00:02 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.float16, avail mem=0.61 GB",
     "RuntimeError: CUDA error: out of memory"],
    ["llama-server runs out of memory during serving Qwen2.5-Coder-32B with -c 65536",
     "load_tensors: offloaded 65/65 layers to GPU",
     "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on device 0: cudaMalloc failed: out of memory"],
])
def test_serving_a_model_by_its_name_is_no_request(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind != "RUNTIME", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("said", ["It runs out of memory while serving 8k-token prompts.",
                                  "It runs out of memory when serving requests from 20 users."])
def test_serving_requests_is_still_serving(said):
    run = run_of(diag("\n".join(["INFO 05-02 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1", said])))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- growth stated as going on "to the point" of a kill, or said twice in the progressive ("is growing and growing"):
# the growth is the cause, the host's kill its end -------------------------------------------------------------------


@pytest.mark.parametrize("said", [
    "- Since the last update, ram usage is growing to the point it's oomkilled.",
    "Memory use of llama-server is climbing and climbing, then the OOM killer ends it.",
    "RSS keeps rising to the point where the container gets OOMKilled after a day.",
])
def test_growth_stated_up_to_a_kill_is_the_leak(said):
    run = run_of(diag("\n".join(["main: server is listening on http://127.0.0.1:8080 - starting the main loop", said])))
    assert run.kind == "LEAK", (run.kind, run.code)


@pytest.mark.parametrize("said", ["RAM usage grows to the point of 12 GB right after the model loads, then stays flat.",
                                  "Does memory keep growing and growing with every request?"])
def test_growth_words_that_state_no_growth_over_time_are_no_leak(said):
    run = run_of(diag("\n".join(["main: server is listening on http://127.0.0.1:8080 - starting the main loop", said])))
    assert run.kind != "LEAK", (run.kind, run.code)


# --- LM Studio's server listens before any model is loaded (by hand, or just in time for a request): its "HTTP server
# listening" line is no sign the model was serving, so a load that fails after it is a load --------------------------

_LMS_LISTEN = "2025-06-01 09:00:00  [INFO] [LM STUDIO SERVER] Success! HTTP server listening on port 1234"
_LMS_LOAD = ["llama_model_loader: loaded meta data with 40 key-value pairs and 579 tensors from "
             "C:\\Users\\u\\.lmstudio\\models\\Qwen\\Qwen2.5-32B-Instruct-GGUF\\qwen2.5-32b-instruct-q5_k_m.gguf",
             "load_tensors: offloaded 65/65 layers to GPU"]


@pytest.mark.parametrize("tail,kind", [
    (["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 21845.50 MiB on device 0: cudaMalloc failed: out of "
      "memory", "llama_model_load: error loading model: unable to allocate CUDA0 buffer"], "WEIGHTS"),
    (["load_tensors:        CUDA0 model buffer size = 21845.50 MiB",
      "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of memory",
      "llama_kv_cache_init: failed to allocate buffer for kv cache"], "KV_CAPACITY"),
    (["load_tensors:        CUDA0 model buffer size = 21845.50 MiB",
      "2025-06-01 09:01:10  [INFO] [LM STUDIO SERVER] Running chat completion on conversation with 4 messages.",
      "CUDA error: out of memory"], "RUNTIME"),
])
def test_lm_studios_listening_server_is_not_a_model_serving(tail, kind):
    run = run_of(diag("\n".join([_LMS_LISTEN] + _LMS_LOAD + tail)))
    assert run.kind == kind, (run.kind, run.code, run.phase_source)


# --- a log that breaks off: a logfmt value opened and never closed (Ollama's `cmd="/usr/lib/ollama/...` cut), or a
# gzip stream that ends early (its last line is no end the server wrote): the start-up stops there, it did not pass -----

_OLLAMA_HEAD = [
    'time=2025-05-01T10:00:00.000Z level=INFO source=routes.go:1205 msg="server config" env="map[OLLAMA_DEBUG:false]"',
    'time=2025-05-01T10:00:00.100Z level=INFO source=routes.go:1258 msg="Listening on [::]:11434 (version 0.6.8)"',
    'time=2025-05-01T10:00:05.000Z level=INFO source=server.go:105 msg="system memory" total="62.5 GiB" free="58.1 GiB"',
]


@pytest.mark.parametrize("last", [
    'time=2025-05-01T10:00:05.200Z level=INFO source=server.go:405 msg="starting llama server" cmd="/usr/lib/ollama/'
    'runners/cuda_v12/ollama_llama_server runner --model /root/.ollama/models/blobs/sha256-6e9f ',
    'time=2025-05-01T10:00:05.100Z level=INFO source=server.go:138 msg="offload" library=cuda layers.requested=-1 '
    'memory.required.full="9.8 G',
    'time=2025-05-01T10:00:05.150Z level=INFO source=memory.go:326 msg="offload to cuda" projector.weights="0 B" '
    'memory.weights.total="7.6 GiB" memory.weights.repeating="7.1 Gi',
])
def test_a_logfmt_value_opened_and_never_closed_is_a_cut_log(last):
    run = run_of(diag("\n".join(_OLLAMA_HEAD + [last])))
    assert (run.kind, run.code) == ("UNDETERMINED", "log-cut-off"), (run.kind, run.code)


def test_a_logfmt_line_that_closes_its_values_is_whole():
    run = run_of(diag("\n".join(_OLLAMA_HEAD + ['time=2025-05-01T10:00:05.150Z level=INFO source=memory.go:326 '
                                                'msg="offload to cuda" memory.weights.total="7.6 GiB"'])))
    assert run.code != "log-cut-off", (run.kind, run.code)


def test_a_gzip_stream_that_ends_early_leaves_the_start_up_cut(tmp_path):
    import gzip
    import zlib

    from vramdoctor.logs import diagnose
    from vramdoctor.logs.reader import read_blocks

    lines = ["INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
             "INFO 06-01 10:00:31 [default_loader.py:272] Loading weights took 28.91 seconds"]
    lines += [f"INFO 06-01 10:00:32 [loader.py:1] filler line {i} with padding to make the stream long" for i in
              range(3000)]
    whole = gzip.compress(("\n".join(lines) + "\n").encode())
    (tmp_path / "whole.log.gz").write_bytes(whole)
    # (the stream stops after a full flush at a line's end: the text read is whole lines, the gzip is cut)
    z = zlib.compressobj(6, zlib.DEFLATED, 31)
    cut = z.compress(("\n".join(lines[:1500]) + "\n").encode()) + z.flush(zlib.Z_FULL_FLUSH)
    (tmp_path / "cut.log.gz").write_bytes(cut)
    assert diagnose(read_blocks(str(tmp_path / "whole.log.gz"))).diagnosis["code"] != "log-cut-off"
    rep = diagnose(read_blocks(str(tmp_path / "cut.log.gz")))
    assert (rep.diagnosis["kind"], rep.diagnosis["code"]) == ("UNDETERMINED", "log-cut-off"), rep.diagnosis


# --- input that says nothing (only NUL bytes, as a zero-filled file is) is empty input: exit 2, also from a pipe that
# would never end --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("data,stdin", [(b"\x00" * 100_000, False), (b"\x00\n \x00\t\n" * 10_000, False),
                                        (b"\x00" * (65 << 20), True)])
def test_input_of_only_nul_bytes_is_refused(tmp_path, data, stdin):
    import subprocess
    import sys

    path = tmp_path / "zeros.log"
    path.write_bytes(data)
    args = [sys.executable, "-m", "vramdoctor", "logs", "-" if stdin else str(path)]
    res = subprocess.run(args, input=data if stdin else None, capture_output=True, timeout=120)
    assert res.returncode == 2 and b"nothing to diagnose" in res.stderr, (res.returncode, res.stderr[-300:])
    assert b"Traceback" not in res.stderr


# --- TensorRT-LLM's PyTorch backend prints its pool's fraction in its profiling summary ("fraction is set 0.95"):
# the advice moves from it; and the CUDA graphs' key is the one the release reads (flat cuda_graph_max_batch_size in
# 0.19-0.20, cuda_graph_config.max_batch_size from 1.0) ----------------------------------------------------------------

_TRT_PROFILE = {
    "0.20": "[06/02/2025-13:41:37] [TRT-LLM] [RANK 0] [I] Peak memory during memory usage profiling (torch + non-torch): "
            "12.76 GiB, available KV cache memory when calculating max tokens: 9.11 GiB, fraction is set 0.95, kv size "
            "is 131072. device total memory 23.53 GiB, , tmp kv_mem 0.00 GiB",
    "0.19": "[04/10/2025-09:00:01] [TRT-LLM] [I] Peak memory during memory usage profiling (torch + non-torch): 30.02 "
            "GiB, available KV cache memory when calculating max tokens: 40.11 GiB, fraction is set 0.92, kv size is "
            "65536",
    "1.1": "[10/02/2025-10:00:01] [TRT-LLM] [RANK 0] [I] Peak memory during memory usage profiling (torch + non-torch): "
           "40.00 GiB, available KV cache memory when calculating max tokens: 30.00 GiB, fraction is set 0.88, kv size "
           "per token is 98304. device total memory 79.11 GiB, temporary kv cache memory during profiling 2.00 GiB",
}
_TRT_OOM = ("[TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: CUDA out of memory. Tried to allocate 1.56 "
            "GiB. GPU 0 has a total capacity of 23.53 GiB of which 1.11 GiB is free.")


@pytest.mark.parametrize("version,fraction", [("0.20", 0.95), ("0.19", 0.92), ("1.1", 0.88)])
def test_tensorrt_llms_profiled_fraction_is_the_value_advice_moves_from(version, fraction):
    run = run_of(diag("\n".join(["[TensorRT-LLM] TensorRT-LLM version: " + version, _TRT_PROFILE[version],
                                 _TRT_OOM])))
    moved = [a for a in run.advice if a["setting"] == "memory_fraction"]
    assert run.numbers.get("free_gpu_memory_fraction") == fraction, run.numbers
    assert all(a["current"] == fraction and (a["value"] is None or a["value"] != fraction) for a in moved), moved


@pytest.mark.parametrize("shown,key", [
    ("PyTorchConfig(use_cuda_graph=True, cuda_graph_batch_sizes=None, cuda_graph_max_batch_size=128)",
     "cuda_graph_max_batch_size:"),
    ("cuda_graph_config: {max_batch_size: 128, enable_padding: true}", "cuda_graph_config.max_batch_size:"),
])
def test_tensorrt_llms_cuda_graph_key_is_the_one_its_release_reads(shown, key):
    run = run_of(diag("\n".join(["[TensorRT-LLM] TensorRT-LLM version: 0.20.0", shown, _TRT_PROFILE["0.20"], _TRT_OOM,
                                 '  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/'
                                 'model_engine.py", line 712, in warmup'])))
    graphs = [a["flags"] for a in run.advice if a["setting"] == "cuda_graphs"]
    assert graphs and graphs[0].startswith(key), graphs


# --- TGI's warm-up runs one prefill of --max-batch-prefill-tokens before it sizes the KV cache and captures graphs
# (flash_causal_lm.py warmup -> generate_token): an out of memory there is that prefill, whose own message newer
# releases print ("Not enough memory to handle N prefill tokens"); a lower --cuda-memory-fraction does not help it ----

_TGI = "/opt/conda/lib/python3.11/site-packages/text_generation_server"


@pytest.mark.parametrize("frames,code", [
    ([f'  File "{_TGI}/models/flash_causal_lm.py", line 1470, in warmup', "    _, _batch, _ = self.generate_token(batch)",
      f'  File "{_TGI}/models/flash_causal_lm.py", line 1958, in generate_token',
      "    out, speculative_logits = self.forward(batch, adapter_data)"], "prefill-tokens-exceed-memory"),
    ([f'  File "{_TGI}/models/flash_causal_lm.py", line 790, in warmup', "    _, batch, _ = self.generate_token(batch)",
      f'  File "{_TGI}/models/flash_causal_lm.py", line 902, in generate_token',
      "    out = self.forward(batch)"], "prefill-tokens-exceed-memory"),
    ([f'  File "{_TGI}/models/flash_causal_lm.py", line 1540, in warmup',
      "    self.cuda_graph_warmup(bs, max_total_tokens, max_total_tokens)",
      f'  File "{_TGI}/models/flash_causal_lm.py", line 1302, in cuda_graph_warmup',
      "    self.model.forward("], "cuda-graph-capture-oom"),
])
def test_tgis_warm_up_prefill_is_told_from_its_graph_capture(frames, code):
    run = run_of(diag("\n".join([
        "2025-01-09T10:12:31.581235Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:125: Warming up model",
        "2025-01-09T10:12:33.990102Z ERROR text_generation_launcher: Method Warmup encountered an error.",
        "Traceback (most recent call last):"] + frames + [
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.66 GiB. GPU 0 has a total capacity of 44.34 "
        "GiB of which 5.87 GiB is free.",
        "2025-01-09T10:12:34.101567Z ERROR warmup{max_input_length=Some(30000) max_prefill_tokens=30050 "
        "max_total_tokens=Some(32000) max_batch_size=None}:warmup: text_generation_router_v3::client: "
        "backends/v3/src/client/mod.rs:45: Server error: CUDA out of memory."])))
    assert (run.kind, run.code) == ("WARMUP", code), (run.kind, run.code)
    settings = [a["setting"] for a in run.advice]
    if code == "prefill-tokens-exceed-memory":
        assert settings[0] in ("max_model_len", "prefill_tokens") and "memory_fraction" not in settings, settings
    else:
        assert "cuda_graphs" in settings, settings


# --- LMDeploy's TurboMind cuts session_len to what its blocks hold ("`session_len` truncated to 9088"): that is the
# context in force, the value advice moves from ------------------------------------------------------------------------


@pytest.mark.parametrize("asked,cut", [(32768, 9088), (131072, 40960)])
def test_lmdeploys_truncated_session_len_is_the_context_in_force(asked, cut):
    run = run_of(diag("\n".join([
        "2025-02-01 10:00:00,000 - lmdeploy - INFO - turbomind.py:231 - turbomind model config:",
        f"session_len = {asked}",
        f"[TM][WARNING] No enough blocks for `session_len` ({asked}), `session_len` truncated to {cut}.",
        "2025-02-01 10:05:00,000 - lmdeploy - INFO - async_engine.py:675 - session=3, adapter_name=None, "
        "input_tokens=8000, gen_config=GenerationConfig(max_new_tokens=1024)",
        "CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/allocator.h:231"])))
    assert run.numbers.get("max_model_len") == cut, run.numbers.get("max_model_len")
    ctx = [a for a in run.advice if a["setting"] == "max_model_len"]
    assert all(a["current"] == cut for a in ctx), ctx


# --- Metal's API validation failing an assertion ("-[_MTLCommandBuffer addCompletedHandler:]:1011: failed assertion
# `...'") is a command buffer used out of order, a bug, not memory; unless its words speak of memory ------------------


@pytest.mark.parametrize("line", [
    "-[_MTLCommandBuffer addCompletedHandler:]:1011: failed assertion `Completed handler provided after commit call'",
    "-[IOGPUMetalCommandBuffer validate]:214: failed assertion `commit an already committed command buffer'",
    "-[MTLDebugComputeCommandEncoder dispatchThreadgroups:threadsPerThreadgroup:]:1370: failed assertion "
    "`encoder has already been ended'",
])
def test_a_metal_api_assertion_is_not_memory(line):
    run = run_of(diag("\n".join(["INFO:mlx_lm.server:Starting httpd at 127.0.0.1 on port 8080...",
                                 "127.0.0.1 - - [01/Jun/2025 10:00:00] \"POST /v1/chat/completions HTTP/1.1\" 200 -",
                                 line, "zsh: abort      mlx_lm.server --model mlx-community/Qwen3-30B-A3B-4bit"])))
    assert (run.kind, run.code) == ("NOT_OOM", "metal-api-assertion"), (run.kind, run.code)


def test_a_metal_assertion_that_speaks_of_memory_is_no_verdict_of_not_memory():
    run = run_of(diag("-[MTLDebugDevice newBufferWithLength:options:]:670: failed assertion `Buffer Validation: "
                      "requested length exceeds the device's maximum buffer length'"))
    assert run.code != "metal-api-assertion", (run.kind, run.code)


# --- "Fatal Python error: Aborted" names the signal, not the cause: abort() was called by an assertion or an uncaught
# C++ exception whose words are not in the log ---------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["[LM STUDIO SERVER] First token generated. Continuing to stream response..", "Fatal Python error: Aborted", "",
     "Current thread 0x00000072c2367000 (most recent call first):",
     '  File "/Users/u/.lmstudio/extensions/backends/vendor/mlx/nn/layers/linear.py", line 47 in __call__'],
    ["INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
     "INFO:     Application startup complete.", "Fatal Python error: Aborted", "",
     "Thread 0x00007f1c2e7fc640 (most recent call first):",
     '  File "/usr/lib/python3.12/threading.py", line 355 in wait'],
    ["mlx_lm.server --model mlx-community/Llama-3.3-70B-Instruct-4bit", "Abort trap: 6"],
])
def test_a_fatal_abort_names_no_cause(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind != "NOT_OOM", (run.kind, run.code)


def test_an_abort_after_the_exception_that_caused_it_is_that_exception():
    run = run_of(diag("\n".join([
        "libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer "
        "execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
        "Fatal Python error: Aborted"])))
    assert run.oom and run.kind != "NOT_OOM", (run.kind, run.code)


# --- mistral.rs: its engine's failed forward pass ("prompt step - Model failed with error: ...") is a model execution,
# its own warm-up request ("Beginning dummy run.") or a served one, told by the progress before it -------------------

_MRS_OOM = ('2025-06-01T10:00:12.000000Z ERROR mistralrs_core::engine: {step} step - Model failed with error: '
            'WithBacktrace {{ inner: Cuda(Cuda(DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"))), backtrace: '
            'Backtrace [{{ fn: "candle_core::error::Error::bt" }}] }}')


@pytest.mark.parametrize("before,step,kind", [
    (["2025-06-01T10:00:11.900000Z  INFO mistralrs_core: Beginning dummy run."], "prompt", "WARMUP"),
    (["2025-06-01T10:00:11.000000Z  INFO mistralrs_core: Beginning dummy run.",
      "2025-06-01T10:00:11.500000Z  INFO mistralrs_core: Dummy run completed in 0.5s."], "completion", "RUNTIME"),
    ([], "prompt", "UNDETERMINED"),
])
def test_mistralrs_failed_step_is_placed_by_its_warm_up(before, step, kind):
    rep = diag("\n".join(["2025-06-01T10:00:00.000000Z  INFO mistralrs_server: Model kind is: gguf quantized"] + before
                         + [_MRS_OOM.format(step=step)]))
    run = run_of(rep)
    assert rep.engine == "mistralrs" and run.kind == kind, (rep.engine, run.kind, run.code)
    if kind == "UNDETERMINED":
        assert run.candidates == ["WARMUP", "RUNTIME"], run.candidates
    if kind == "RUNTIME":
        assert any(a["flags"].startswith("--max-seqs") for a in run.advice), run.advice


# --- a logged request (the prompt echoed) quoted as the furthest step reached: the line, its prompt left out ----------


@pytest.mark.parametrize("line", [
    "INFO 11-02 15:24:10 logger.py:37] Received request chat-3f2c: prompt: '<|begin_of_text|>Summarize my secret "
    "notes', params: SamplingParams(n=1, max_tokens=1024), prompt_token_ids: [128000, 128006], lora_request: None.",
    "(APIServer pid=1) INFO 06-01 10:00:00 [logger.py:43] Received request chatcmpl-9a1b: prompt: \"<|im_start|>user\\n"
    "Summarize my secret notes\", params: SamplingParams(n=1, temperature=0.7), prompt_token_ids: None.",
])
def test_a_logged_request_is_quoted_without_its_prompt(line):
    run = run_of(diag("\n".join(["INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.6.3",
                                 "INFO:     Application startup complete.", line])))
    quoted = [e["text"] for e in run.evidence if "Received request" in e["text"]]
    assert quoted and "secret" not in quoted[0] and "params" in quoted[0], run.evidence


# --- a person's sentence after the failure (a maintainer's explanation of how the engine works) is no message of the
# engine placing it: "The KV cache is preallocated for the full context" names no phase this failure came in ---------


@pytest.mark.parametrize("after", [
    "@someone Note that the KV cache is preallocated for the full context in both engines, so that part is fixed.",
    "For context, the weights are loaded into unified memory before anything else happens on this machine.",
    "This is expected because the CUDA graphs are captured for every batch size up to the maximum by default.",
])
def test_a_persons_explanation_after_the_failure_places_nothing(after):
    run = run_of(diag("\n".join(["Out of memory errors when running gemma3 on my 3090", "", after])))
    assert run.kind == "UNDETERMINED", (run.kind, run.code, run.phase_source)


# --- llama-server's "Context size has been exceeded." is llama_decode finding no free KV cell for a one-token batch:
# with several slots sharing one cache (kv_unified), each told the whole n_ctx, that is the shared cache full under
# load (RUNTIME), not one request longer than its slot's context ---------------------------------------------------


@pytest.mark.parametrize("slots,unified,kind", [(4, "true", "RUNTIME"), (4, "false", "NOT_OOM"), (1, "true", "NOT_OOM")])
def test_context_exceeded_on_a_shared_kv_cache_is_the_cache_full(slots, unified, kind):
    run = run_of(diag("\n".join([
        "main: build = 6500 (a1b2c3d4)",
        f"srv    load_model: initializing, n_slots = {slots}, n_ctx_slot = 32768, kv_unified = '{unified}'",
        "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
        "slot launch_slot_: id  0 | task 57 | processing task",
        "srv    send_error: task id = 57, error: Context size has been exceeded.",
        "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 500"])))
    assert run.kind == kind, (run.kind, run.code)


# --- a setting's name in a config or environment dump (OLLAMA_KV_CACHE_TYPE in Ollama's "server config" line, whose
# source=routes.go makes it read like a frame; VLLM_USE_V1; SGLANG_DISABLE_CUDA_GRAPH) names no step ------------------

_OLLAMA_CUDA_OOM = ["time=2025-05-27T12:33:30.000+08:00 level=INFO source=server.go:405 msg=\"starting llama server\" "
                    "cmd=\"ollama runner --model blob --ctx-size 8192 --n-gpu-layers 41 --parallel 2\"",
                    "CUDA error: out of memory",
                    "goroutine 7 [running]:",
                    "github.com/ollama/ollama/runner/llamarunner.(*Server).loadModel(0xc0000f6360, {0x29, 0x0})",
                    "\tC:/a/ollama/ollama/runner/llamarunner/runner.go:757 +0x389"]


@pytest.mark.parametrize("config", [
    'time=2025-05-27T12:32:43.205+08:00 level=INFO source=routes.go:1205 msg="server config" env="map[OLLAMA_DEBUG:true '
    'OLLAMA_KV_CACHE_TYPE: OLLAMA_NUM_PARALLEL:0]"',
    'time=2025-05-27T12:32:43.205+08:00 level=INFO source=routes.go:1205 msg="server config" env="map[OLLAMA_DEBUG:true '
    'OLLAMA_FLASH_ATTENTION:false OLLAMA_SCHED_SPREAD:false OLLAMA_KV_CACHE_TYPE:q8_0]"',
])
def test_a_settings_name_in_a_config_dump_names_no_step(config):
    run = run_of(diag("\n".join([config] + _OLLAMA_CUDA_OOM)))
    assert not (run.kind == "KV_CAPACITY" and "server config" in run.evidence[-1]["text"]), (run.kind, run.evidence)
    assert run.kind in ("UNDETERMINED", "WEIGHTS") or run.inferred, (run.kind, run.code)


# --- torch.compile's compiler failing (Inductor, a graph pass, dynamo's backend) is no memory failure, unless the error
# it wraps is -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("line,kind", [
    ("(Worker_TP0 pid=409) ERROR 04-24 10:50:25 [multiproc_executor.py:971] torch._inductor.exc.InductorError: "
     "AssertionError: auto_functionalized was not removed", "NOT_OOM"),
    ("[2025-08-01 10:00:00 TP0] Scheduler hit an exception: torch._dynamo.exc.BackendCompilerFailed: "
     "backend='inductor' raised: LoweringException: NotImplementedError: fp8 on sm_75", "NOT_OOM"),
    ("ERROR 04-24 10:50:25 [core.py:700] torch._inductor.exc.InductorError: RuntimeError: CUDA out of memory. Tried "
     "to allocate 2.00 GiB.", None),
])
def test_a_compiler_failure_is_not_memory(line, kind):
    run = run_of(diag("\n".join(["INFO 04-24 10:49:00 [api_server.py:1043] vLLM API server version 0.11.0", line])))
    if kind:
        assert (run.kind, run.code) == (kind, "compiler-error"), (run.kind, run.code)
    else:
        assert run.kind != "NOT_OOM", (run.kind, run.code)


# --- a traceback cut inside a layer's process_weights_after_loading (the quantized weights reshaped after they are
# read, in the loader's own pass) was loading the weights --------------------------------------------------------------

_PWAL = {
    "vllm-mla": ['  File "/usr/local/lib/python3.12/dist-packages/vllm/attention/backends/mla/utils.py", line 378, in '
                 'process_weights_after_loading', "    W_UV_O, W_UV_O_scales = scaled_quantize(",
                 '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/quantization/utils/'
                 'quant_utils.py", line 1'],
    "vllm-loader": ['  File "/opt/vllm/vllm/model_executor/model_loader/utils.py", line 160, in '
                    'process_weights_after_loading', "    quant_method.process_weights_after_loading(module)",
                    '  File "/opt/vllm/vllm/model_executor/layers/quantization/fp8.py", line 4'],
    "sglang": ['  File "/sgl-workspace/sglang/python/sglang/srt/layers/quantization/fp8.py", line 512, in '
               'process_weights_after_loading', "    layer.weight = Parameter(weight.t(), requires_grad=False)",
               '  File "/sgl-workspace/sglang/python/sglang/srt/layers/quantization/fp8_ut'],
}


@pytest.mark.parametrize("name", sorted(_PWAL))
def test_a_traceback_cut_in_process_weights_after_loading_is_the_weights(name):
    run = run_of(diag("\n".join(["We run DeepSeek-V3 on 16 L40 and it throws CUDA out of memory:", "",
                                 "Traceback (most recent call last):"] + _PWAL[name])))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


# --- a GPU that lacks a data type or kernel, in a report's words ("2080 Ti does not support bfloat16"): not memory;
# not where the same line states an out of memory -------------------------------------------------------------------


@pytest.mark.parametrize("said,kind", [
    ("[Bug]: 4*2080ti 22g deploy Qwen3.5-35B-A3B fail:2080 Ti does not support bfloat16", "NOT_OOM"),
    ("The V100 doesn't support FP8, so the engine fails to start with kv-cache-dtype fp8.", "NOT_OOM"),
    ("# T4 does not support FlashAttention: sglang crashes at start", "NOT_OOM"),
    ("My GPU does not support flash attention and then I get CUDA out of memory during warmup.", "WARMUP"),
])
def test_a_gpu_that_lacks_a_type_in_the_reports_words_is_not_memory(said, kind):
    run = run_of(diag(said))
    assert run.kind == kind, (run.kind, run.code)


# --- a client's view of a server failure (an HTTP 500, "Internal Server Error") names no cause: the server's own lines
# would --------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("said", [
    "After it hangs, completion requests receive `openai.error.APIError: Invalid response object from API: 'Internal "
    "Server Error' (HTTP response code was 500).` and there were no error messages from the server.",
    "requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: http://localhost:8000/v1/completions",
    "httpx.HTTPStatusError: Server error '500 Internal Server Error' for url 'http://127.0.0.1:8000/v1/chat/completions'",
])
def test_a_clients_http_500_names_no_cause(said):
    run = run_of(diag("\n".join(["INFO 10-27 20:30:00 api_server.py:100] vLLM API server version 0.2.1",
                                 "INFO:     Application startup complete.", said])))
    assert run.kind != "NOT_OOM", (run.kind, run.code)


# --- MLX's "[metal::malloc] Resource limit (499000) exceeded" is the count of Metal buffers past its ceiling, not bytes
# run out ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["INFO:mlx_lm.server:Starting httpd at 127.0.0.1 on port 8080...",
     "RuntimeError: [metal::malloc] Resource limit (499000) exceeded."],
    ["Resource limit (499000) exceeded with mlx_lm.server distributed.", "", "Traceback (most recent call last):",
     '  File "/Users/u/mlx-lm/mlx_lm/server.py", line 803, in _generate'],
    ["2026-08-05 10:00:00,000 - ERROR - Engine loop error: [metal::malloc] Resource limit (524288) exceeded."],
])
def test_mlx_metal_resource_limit_is_a_count_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "metal-resource-limit"), (run.kind, run.code)


# --- SGLang's prefill batch admits its new sequences into the running batch ("#new-seq: 3, ... #running-req: 5"): 8
# were in flight, and a cap on running requests moves from that -------------------------------------------------------


@pytest.mark.parametrize("new,running,peak", [(3, 5, 8), (1, 30, 31)])
def test_sglang_prefill_batch_counts_its_new_sequences_as_running(new, running, peak):
    run = run_of(diag("\n".join([
        "[2025-06-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-32B-Instruct', max_running_requests=64, "
        "mem_fraction_static=0.88)",
        "[2025-06-01 10:00:40] The server is fired up and ready to roll!",
        f"[2025-06-01 10:01:00 TP0] Prefill batch. #new-seq: {new}, #new-token: 8192, #cached-token: 0, token usage: "
        f"0.41, #running-req: {running}, #queue-req: 2",
        "[2025-06-01 10:01:01 TP0] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory. Tried to "
        "allocate 3.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.20 GiB is free."])))
    seqs = [a for a in run.advice if a["setting"] == "max_num_seqs"]
    assert seqs and f"at most {peak} were running" in seqs[0]["why"], seqs


# --- a smaller prefill chunk frees a step's activations, far less than a pool under half the context is short: the
# step says it helps only with a shorter context ----------------------------------------------------------------------


@pytest.mark.parametrize("fit,asked,alone", [(50624, 131072, False), (30000, 32768, True)])
def test_a_smaller_chunk_is_told_as_no_fix_alone_for_a_pool_far_short(fit, asked, alone):
    run = run_of(diag("\n".join([
        "INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
        f"INFO 06-01 10:00:00 [api_server.py:1044] non-default args: {{'max_model_len': {asked}, "
        "'max_num_batched_tokens': 2048}",
        f"ValueError: To serve at least one request with the models's max seq len ({asked}), (24.00 GiB KV cache is "
        f"needed, which is larger than the available KV cache memory (9.27 GiB). Based on the available memory, the "
        f"estimated maximum model length is {fit}. Try increasing `gpu_memory_utilization` or decreasing "
        "`max_model_len` when initializing the engine."])))
    chunk = [a for a in run.advice if a["setting"] == "max_num_batched_tokens"]
    assert chunk and ("only together with a shorter context" not in chunk[0]["why"]) == alone, chunk


# --- a long quoted line is shown around its out-of-memory words, not around an earlier "ERROR" level field ---------


@pytest.mark.parametrize("prefix", ['{"ts": "2025-05-01T10:00:00Z", "level": "ERROR", "msg": "fatal error. ctx=',
                                    "ERROR 05-01 10:00:00 [core.py:700] EngineCore failed: request dump "])
def test_a_long_line_is_quoted_around_its_out_of_memory_words(prefix):
    from vramdoctor.logs.render import _quote

    line = prefix + "x" * 5000 + " torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    shown = _quote(line)
    assert "CUDA out of memory" in shown and len(shown) <= 230, shown


# --- a llama.cpp-family server out of memory while serving: flash attention where the log shows it off (a request's
# compute buffer holds an n_ctx x n_ubatch matrix without it), and fewer layers on the GPU ----------------------------


@pytest.mark.parametrize("lines,fa", [
    (['time=2025-03-18T19:22:01.120+01:00 level=INFO source=routes.go:1288 msg="Listening on [::]:11434 (version '
      '0.6.2)"', 'time=2025-03-18T19:22:01.120+01:00 level=INFO source=routes.go:1205 msg="server config" '
      'env="map[OLLAMA_FLASH_ATTENTION:false OLLAMA_NUM_PARALLEL:4]"',
      '[GIN] 2025/03/18 - 19:25:00 | 200 |  2.1s |  127.0.0.1 | POST     "/api/chat"',
      "CUDA error: out of memory", "  current device: 0, in function alloc at ggml/src/ggml-cuda/ggml-cuda.cu:472"],
     "OLLAMA_FLASH_ATTENTION=1"),
    (["main: build = 5000 (abcdef12)", "llama_context: flash_attn    = 0",
      "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
      "slot launch_slot_: id  0 | task 3 | processing task", "CUDA error: out of memory",
      "  current device: 0, in function alloc at ggml/src/ggml-cuda/ggml-cuda.cu:472"], "-fa"),
    (["main: build = 5000 (abcdef12)", "llama_context: flash_attn    = 1",
      "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
      "slot launch_slot_: id  0 | task 3 | processing task", "CUDA error: out of memory",
      "  current device: 0, in function alloc at ggml/src/ggml-cuda/ggml-cuda.cu:472"], None),
])
def test_a_ggml_servers_serving_oom_offers_flash_attention_where_off(lines, fa):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code)
    on = [a["flags"] for a in run.advice if a["setting"] == "flash_attn"]
    assert (on[0].startswith(fa) if fa else not on), on
    assert any(a["setting"] == "gpu_layers" for a in run.advice), run.advice


# --- an agent's tool calls, or a client connected to the server, are requests being served ----------------------------


@pytest.mark.parametrize("said,kind", [
    ("Frequent tool-calls during a reasoning phase trigger the crash.", "RUNTIME"),
    ("It dies on the third tool call of every agent session.", "RUNTIME"),
    ("This happens while trying to connect to the server from a client on another box.", "RUNTIME"),
    ("I start it with --enable-auto-tool-choice --tool-call-parser hermes.", "UNDETERMINED"),
])
def test_tool_calls_and_clients_are_serving(said, kind):
    run = run_of(diag("\n".join(["[METAL] Command buffer execution failed: Insufficient Memory "
                                 "(00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)", said])))
    assert run.kind == kind, (run.kind, run.code)


# --- an error that names the KV cache by its kind (an unsupported shape, specs it cannot convert, a layout) and no
# amount is no memory cause; one that names an amount stays undetermined ----------------------------------------------


@pytest.mark.parametrize("line,kind", [
    ("ValueError: Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified type.",
     "NOT_OOM"),
    ("ValueError: Unsupported kv cache shape: (29627, 2, 16, 2, 128)", "NOT_OOM"),
    ("RuntimeError: KV cache layout HND is not supported by the TRTLLM attention backend.", "NOT_OOM"),
    ("RuntimeError: the KV cache blocks needed exceed what the scheduler can hold for this batch", "UNDETERMINED"),
])
def test_an_error_naming_the_kv_cache_by_its_kind_is_not_memory(line, kind):
    run = run_of(diag("\n".join(["INFO 06-15 08:39:00 [api_server.py:1043] vLLM API server version 0.10.0",
                                 "Traceback (most recent call last):",
                                 '  File "/opt/vllm/vllm/v1/core/kv_cache_utils.py", line 900, in get_kv_cache_config',
                                 "    raise ValueError(", line])))
    assert run.kind == kind, (run.kind, run.code)


# --- a step under way before a Python traceback: the lines before its header (the frames are the failure's), also the
# words of a progress bar the header was joined to ("Capturing num tokens (...): 2%|... | 1/58 [...]Traceback ...") ---

_FRAMES10 = [f'  File "/venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line {1700 + i}, in _call_impl'
             for i in range(4)] + ["    return forward_call(*args, **kwargs)"] * 4


@pytest.mark.parametrize("lines,kind", [
    (["[2025-10-01 10:00:00 TP0] Load weight end. type=Olmo2ForCausalLM, avail mem=10.00 GB",
      "Capturing num tokens (num_tokens=3968 avail_mem=0.05 GB):   2%|██▎      | 1/58 [00:00<00:56,  1.01it/s]"
      "Traceback (most recent call last):"] + _FRAMES10 + ["torch.OutOfMemoryError: CUDA out of memory."], "WARMUP"),
    (["INFO 06-01 10:00:20 [gpu_model_runner.py:1800] Model loading took 14.25 GiB and 20.1 seconds",
      "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  12%|█▏  | 8/67 [00:02<00:15,  3.80it/s]",
      "Traceback (most recent call last):"] + _FRAMES10 + ["torch.OutOfMemoryError: CUDA out of memory."], "WARMUP"),
    (["Loading safetensors checkpoint shards:  40% Completed | 4/10 [00:20<00:30,  5.00s/it]",
      "Traceback (most recent call last):"] + _FRAMES10 + ["torch.OutOfMemoryError: CUDA out of memory."], "WEIGHTS"),
])
def test_the_step_under_way_before_a_tracebacks_header_places_it(lines, kind):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == kind, (run.kind, run.code, run.phase_source)


def test_sglangs_multithread_shard_bar_is_weights_loading_under_way():
    run = run_of(diag("\n".join([
        "[2026-04-16 01:01:30] server_args=ServerArgs(model_path='zai-org/GLM-5.1-FP8', tp_size=8)",
        "Multi-thread loading shards:  35% Completed | 50/142 [00:09<00:17,  5.66it/s]",
        "[2026-04-16 01:02:09 TP0] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory. Tried to "
        "allocate 24.00 MiB. GPU 0 has a total capacity of 47.37 GiB of which 4.31 MiB is free."])))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


# --- the driver API's name of an illegal address (CUDA_ERROR_ILLEGAL_ADDRESS, also in a report's words), and ggml's
# kernel with no code for this GPU ("has no device code compatible with CUDA arch 750"): not memory -------------------


@pytest.mark.parametrize("line,code", [
    ("Launching GLM-5-FP8 on TP=8 with piecewise CUDA graphs fails at capture time with `CUDA_ERROR_ILLEGAL_ADDRESS`.",
     "illegal-memory-access"),
    ("RuntimeError: CUDA driver error: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)",
     "illegal-memory-access"),
    ("c:\\a\\koboldcpp\\ggml\\src\\ggml-cuda\\template-instances\\../fattn-mma-f16.cuh:1246: ERROR: CUDA kernel "
     "flash_attn_ext_f16 has no device code compatible with CUDA arch 750. ggml-cuda.cu was compiled for: 800,860",
     "cuda-no-kernel-image"),
])
def test_driver_error_names_that_are_not_memory(line, code):
    run = run_of(diag(line))
    assert (run.kind, run.code) == ("NOT_OOM", code), (run.kind, run.code)


# --- an issue's title with its tracker's tag ("[Bug] ... error LlamaBatch.cc:1153") is the report's words: a failure it
# states is read, and a warning the engine went on past at start is no answer to it -----------------------------------

_TM_TRUNCATED = ["[TM][INFO] [BlockManager] max_block_count = 1740",
                 "[TM][WARNING] No enough blocks for `session_len` (131072), `session_len` truncated to 111360."]


@pytest.mark.parametrize("title,kind", [
    ("[Bug] gpt-oss kv cache quantization --quant-policy 4 error LlamaBatch.cc:1153", "UNDETERMINED"),
    ("[Bug] TurboMind crashes right after start with --quant-policy 8", "UNDETERMINED"),
    ("[Feature] document how session_len is chosen", "KV_CAPACITY"),
])
def test_a_tagged_titles_stated_failure_outranks_a_warning_gone_past(title, kind):
    run = run_of(diag("\n".join([title, ""] + _TM_TRUNCATED)))
    assert run.kind == kind, (run.kind, run.code)


# --- vllm-ascend's worker prints what is left for the KV pool, clamped at 0 ("Available memory: 0, total memory: N",
# bytes): 0 is no memory for the cache --------------------------------------------------------------------------------


@pytest.mark.parametrize("left,kind", [(0, "KV_CAPACITY"), (21474836480, None)])
def test_vllm_ascends_available_memory_zero_is_no_kv_pool(left, kind):
    run = run_of(diag("\n".join([
        "(Worker_TP0 pid=552) INFO 10-28 21:14:20 [model_runner_v1.py:2400] Loading model weights took 37.5 GB",
        f"(Worker_TP0 pid=552) INFO 10-28 21:14:49 [worker_v1.py:259] Available memory: {left}, total memory: "
        "65452113920",
        "(EngineCore_DP0 pid=415) ERROR 10-28 21:14:49 [core.py:708] EngineCore failed to start."])))
    if kind:
        assert (run.kind, run.code) == (kind, "no-memory-for-kv-cache"), (run.kind, run.code)
    else:
        assert run.code != "no-memory-for-kv-cache" and run.kind != "WEIGHTS", (run.kind, run.code)


# --- an issue's title on the paste's first line, with no tag or markdown ("OOM Llama 3.2-11B on RTX 4090"), then a blank
# line: a summary; where the log shows no failure of its own, how far the log got is where the failure came ----------


@pytest.mark.parametrize("title,body,kind", [
    ("OOM Llama 3.2-11B on RTX 4090", ['2024-11-02:13:32:18,977 INFO     [_internal.py:97] 127.0.0.1 - - [02/Nov/2024 '
                                       '13:32:18] "POST /v1/chat/completions HTTP/1.1" 200 -'], "RUNTIME"),
    ("CUDA out of memory with Qwen2.5-72B-AWQ on 2x A6000",
     ["INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
      "INFO 06-01 10:00:31 [default_loader.py:272] Loading weights took 28.91 seconds",
      "INFO 06-01 10:00:40 [gpu_worker.py:276] Available KV cache memory: 5.01 GiB",
      "INFO 06-01 10:00:40 [kv_cache_utils.py:849] GPU KV cache size: 93,872 tokens",
      "INFO:     Application startup complete.", 'INFO:     127.0.0.1:5000 - "POST /v1/completions HTTP/1.1" 200 OK'],
     "RUNTIME"),
])
def test_a_plain_title_above_the_log_is_placed_by_how_far_the_log_got(title, body, kind):
    run = run_of(diag("\n".join([title, ""] + body)))
    assert run.kind == kind, (run.kind, run.code, run.phase_source)


# --- a command line after a run failed is the restart's, whose settings they are: read into the run it starts, not the
# failed one ---------------------------------------------------------------------------------------------------------

_LLAMA_FAIL = ["build: 4879 (f08f4b31) with cc (Debian 12.2.0-14) 12.2.0 for x86_64-linux-gnu",
               "llama_kv_cache_init: kv_size = 131072, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 32",
               "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on device 0: cudaMalloc failed: out "
               "of memory", "llama_kv_cache_init: failed to allocate buffer for kv cache",
               "main: exiting due to model loading error"]
_LLAMA_START = ["build: 4879 (f08f4b31) with cc (Debian 12.2.0-14) 12.2.0 for x86_64-linux-gnu",
                "main: server is listening on http://0.0.0.0:8000 - starting the main loop"]
_VLLM_FAIL = ["INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
              "INFO 05-01 10:00:00 [api_server.py:1044] non-default args: {'max_model_len': 131072}",
              "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be "
              "stored in KV cache (40368). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
              "initializing the engine."]
_VLLM_START = ["INFO 05-01 10:05:00 [api_server.py:1043] vLLM API server version 0.8.5",
               "INFO:     Application startup complete."]


@pytest.mark.parametrize("fail,command,start,key,first,second", [
    (_LLAMA_FAIL, "+ /opt/llama.cpp/build/bin/llama-server -m /srv/m.gguf -c 16384 -ngl 99 --port 8000", _LLAMA_START,
     "max_model_len", None, 16384),
    (_VLLM_FAIL, "$ vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 --gpu-memory-utilization 0.95",
     _VLLM_START, "gpu_memory_utilization", None, 0.95),
    (_VLLM_FAIL, "root@gpu-3:/srv# vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768", _VLLM_START,
     "max_model_len", 131072, 32768),
])
def test_a_restarts_command_line_is_the_settings_of_the_run_it_starts(fail, command, start, key, first, second):
    rep = diag("\n".join(fail + [command] + start))
    assert len(rep.runs) == 2, [(r.first_line, r.kind) for r in rep.runs]
    assert rep.runs[0].numbers.get(key) == first and rep.runs[1].numbers.get(key) == second, (
        rep.runs[0].numbers.get(key), rep.runs[1].numbers.get(key))


def test_a_command_line_after_a_failure_with_no_restart_stays_the_failed_runs():
    rep = diag("\n".join(_VLLM_FAIL + ["$ vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0.97"]))
    assert rep.runs[-1].numbers.get("gpu_memory_utilization") == 0.97, rep.runs[-1].numbers


def test_a_restarts_command_continued_over_lines_is_read_whole_into_the_run_it_starts():
    rep = diag("\n".join(_VLLM_FAIL + ["$ vllm serve meta-llama/Llama-3.1-8B-Instruct \\", "    --max-model-len 32768 \\",
                                       "    --gpu-memory-utilization 0.95"] + _VLLM_START))
    assert rep.runs[1].numbers.get("max_model_len") == 32768, rep.runs[1].numbers
    assert rep.runs[1].numbers.get("gpu_memory_utilization") == 0.95, rep.runs[1].numbers
    assert rep.runs[0].numbers.get("max_model_len") == 131072, rep.runs[0].numbers


# --- TGI's Args printed with Rust's pretty Debug ("max_input_tokens: Some(" / "        30000," / "),"), in a plain log
# and inside a JSON log's message (--json-output, whose traceback's frames are escaped: `File \"...\"`) -----------------

_ARGS_PRETTY = ["Args {", '    model_id: "mistralai/Mistral-Small-24B-Instruct-2501",', "    max_input_tokens: Some(",
                "        30000,", "    ),", "    max_total_tokens: Some(", "        32000,", "    ),",
                "    max_batch_prefill_tokens: Some(", "        30000,", "    ),", "    cuda_memory_fraction: 1.0,", "}"]


def test_tgis_pretty_args_are_read_in_a_plain_log():
    run = run_of(diag("\n".join(
        ["2025-03-02T11:40:01.118242Z  INFO text_generation_launcher: " + _ARGS_PRETTY[0]] + _ARGS_PRETTY[1:] + [
            "2025-03-02T11:45:00.000000Z ERROR batch{batch_size=1}:prefill:prefill{id=7 size=1}: "
            "text_generation_router_v3::client: backends/v3/src/client/mod.rs:54: Server error: Out of available "
            "cache blocks: asked 1024, only 172 free blocks"])))
    n = run.numbers
    assert (n.get("max_input_tokens"), n.get("max_model_len"), n.get("max_batch_prefill_tokens")) == (30000, 32000,
                                                                                                   30000), n


def test_tgis_json_output_is_read_as_its_plain_log():
    import json

    frames = ['Method Warmup encountered an error.', 'Traceback (most recent call last):',
              '  File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py", line '
              '1470, in warmup', "    _, _batch, _ = self.generate_token(batch)",
              '  File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py", line '
              '1958, in generate_token', "    out, speculative_logits = self.forward(batch, adapter_data)",
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.63 GiB. GPU 0 has a total capacity of "
              "79.10 GiB of which 5.12 GiB is free."]
    lines = [json.dumps({"timestamp": "2025-03-02T11:40:01Z", "level": "INFO",
                         "fields": {"message": "\n".join(_ARGS_PRETTY)}, "target": "text_generation_launcher"}),
             json.dumps({"timestamp": "2025-03-02T11:41:02Z", "level": "ERROR", "fields": {"message": "\n".join(frames)},
                         "target": "text_generation_launcher"})]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("WARMUP", "prefill-tokens-exceed-memory"), (run.kind, run.code)
    assert run.numbers.get("max_input_tokens") == 30000, run.numbers
    assert "--max-input-tokens 15000" in " ".join(a["flags"] for a in run.advice), run.advice


# --- "logprobs" as a variable in a code line (mlx_lm's "for n, (token, logprobs, from_draft) in ...") is no step that
# computes log-probabilities; MLX's single buffer past the largest the GPU allocates is named as such -----------------


def test_a_logprobs_variable_is_no_logprobs_step():
    run = run_of(diag("\n".join([
        "INFO:mlx_lm.server:Starting httpd at 127.0.0.1 on port 8080...",
        '127.0.0.1 - - [01/Jun/2025 10:00:00] "POST /v1/chat/completions HTTP/1.1" 200 -',
        '  File "/opt/homebrew/lib/python3.12/site-packages/mlx_lm/generate.py", line 700, in stream_generate',
        "    for n, (token, logprobs, from_draft) in enumerate(token_generator):",
        "RuntimeError: [metal::malloc] Attempting to allocate 39728054272 bytes which is greater than the maximum "
        "allowed buffer size of 28991029248 bytes."])))
    assert run.kind == "RUNTIME" and run.code == "metal-buffer-exceeds-max", (run.kind, run.code)


def test_vllms_prompt_logprobs_step_is_still_logprobs():
    run = run_of(diag("\n".join([
        "INFO:     Application startup complete.",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1300, in '
        "execute_model", "    prompt_logprobs_dict = self._get_prompt_logprobs_dict(",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 9.77 GiB."])))
    assert run.code == "logprobs-oom", (run.kind, run.code)


# --- llama.cpp's own lines of a unified cache: "llama_context: kv_unified    = true", and "(16384 cells, 48 layers, 4/1
# seqs)", four sequences over one stream (whose cells in all are 16384, not four times that) -------------------------

_EXCEEDED = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
             "srv    send_error: task id = 57, error: Context size has been exceeded."]


@pytest.mark.parametrize("lines", [
    ["llama_context: n_seq_max     = 4", "llama_context: kv_unified    = true"],
    ["llama_kv_cache: size = 3072.00 MiB ( 16384 cells,  48 layers,  4/1 seqs), K (f16): 1536.00 MiB, V (f16): "
     "1536.00 MiB"],
])
def test_a_unified_cache_is_read_from_llama_cpps_own_lines(lines):
    run = run_of(diag("\n".join(["main: build = 6710 (a1b2c3d4)"] + lines + ["srv          init: initializing slots, "
                                                                            "n_slots = 4"] + _EXCEEDED)))
    assert (run.kind, run.code) == ("RUNTIME", "kv-cache-full-request-failed"), (run.kind, run.code)


def test_a_unified_caches_cells_in_all_are_its_one_streams():
    run = run_of(diag("\n".join(["llama_kv_cache: size = 3072.00 MiB ( 16384 cells,  48 layers,  4/1 seqs), K (f16): "
                                 "1536.00 MiB, V (f16): 1536.00 MiB", "CUDA error: out of memory"])))
    assert run.numbers.get("kv_cells_in_all") == 16384, run.numbers.get("kv_cells_in_all")


# --- vLLM's profiling pass runs before the KV pool exists, on the GPU's free memory: a lower fraction does not help it --


@pytest.mark.parametrize("frame", ["profile_run", "determine_available_memory"])
def test_a_profiling_pass_oom_is_not_told_a_lower_fraction(frame):
    run = run_of(diag("\n".join([
        "INFO 06-01 10:00:00 [api_server.py:1044] non-default args: {'gpu_memory_utilization': 0.9, "
        "'max_num_batched_tokens': 16384}",
        "INFO 06-01 10:00:20 [gpu_model_runner.py:1800] Model loading took 14.25 GiB and 20.1 seconds",
        f'  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 200, in {frame}',
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB."])))
    assert run.code == "profile-run-oom", (run.kind, run.code)
    assert not any(a["setting"] == "memory_fraction" for a in run.advice), run.advice


def test_a_compiler_failure_over_a_type_the_gpu_lacks_is_the_gpu():
    run = run_of(diag("torch._inductor.exc.InductorError: CompilationError: at 12:4: type fp8e4nv not supported in "
                      "this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')"))
    assert (run.kind, run.code) == ("NOT_OOM", "gpu-unsupported"), (run.kind, run.code)


def test_a_command_line_far_before_the_next_start_stays_the_failed_runs_on_both_paths():
    quiet = [f"note {i}" for i in range(2100)]  # (past the first 2000 lines, which both paths read whole)
    rep = diag("\n".join(quiet + _VLLM_FAIL + quiet[:20] + ["$ vllm serve meta-llama/Llama-3.1-8B-Instruct "
                                                            "--gpu-memory-utilization 0.97"] + quiet[:30] + _VLLM_START))
    assert rep.runs[0].numbers.get("gpu_memory_utilization") == 0.97, rep.runs[0].numbers
    assert rep.runs[-1].numbers.get("gpu_memory_utilization") is None, rep.runs[-1].numbers



# --- Ollama's KV cache is num_ctx x OLLAMA_NUM_PARALLEL: the shorter-context step gives the num_ctx that fits at the
# slots in use (a step on its own), with the one-slot value beside it -------------------------------------------------


def test_ollamas_context_step_fits_at_the_slots_in_use():
    run = run_of(diag("\n".join([
        'time=2025-05-14T08:31:40.112+02:00 level=INFO source=routes.go:1234 msg="server config" '
        'env="map[OLLAMA_CONTEXT_LENGTH:16384 OLLAMA_NUM_PARALLEL:2]"',
        'time=2025-05-14T08:31:40.130+02:00 level=INFO source=routes.go:1287 msg="Listening on [::]:11434 (version '
        '0.7.0)"',
        'time=2025-05-14T08:31:40.520+02:00 level=INFO source=types.go:130 msg="inference compute" id=GPU-1 '
        'library=cuda name="NVIDIA GeForce RTX 4090" total="23.6 GiB" available="22.0 GiB"',
        'time=2025-05-14T08:32:06.002+02:00 level=INFO source=server.go:138 msg=offload library=cuda '
        'layers.requested=99 layers.model=65 layers.offload=65 memory.available="[22.0 GiB]" memory.required.full="21.8 '
        'GiB"',
        'time=2025-05-14T08:32:06.101+02:00 level=INFO source=server.go:405 msg="starting llama server" cmd="/usr/lib/'
        'ollama/bin/ollama runner --model /root/.ollama/models/blobs/sha256-2b --ctx-size 32768 --batch-size 512 '
        '--n-gpu-layers 99 --parallel 2 --port 40000"',
        "load_tensors:        CUDA0 model buffer size = 14000.00 MiB",
        "llama_context: n_seq_max     = 2", "llama_context: n_ctx         = 32768",
        "llama_context: n_ctx_per_seq = 16384",
        "llama_kv_cache_unified: kv_size = 32768, type_k = 'f16', type_v = 'f16', n_layer = 64, can_shift = 1",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of "
        "memory", "llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache"])))
    ctx = [a for a in run.advice if a["setting"] == "max_model_len"]
    assert ctx and "at your 2 slots" in ctx[0]["why"], ctx
    per = 8192 * 2**20 // 32768
    assert ctx[0]["value"] * 2 * per <= 22.0 * 2**30 - 14000 * 2**20, ctx[0]


# --- Windows' exit status 0xc0000409 (a stack buffer overrun, and how the C runtime's abort() ends a process) is a
# failure whose cause is elsewhere, not a healthy run ------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    "The llama-server process has terminated: exit status 0xc0000409: The system detected an overrun of a "
    "stack-based buffer in this application.",
    "Process exited with STATUS_STACK_BUFFER_OVERRUN after the second request.",
])
def test_windows_stack_buffer_overrun_exit_is_a_failure(line):
    run = run_of(diag("\n".join([
        'time=2025-06-01T10:00:00.000+02:00 level=INFO source=routes.go:1287 msg="Listening on 127.0.0.1:11434 '
        '(version 0.9.0)"', line])))
    assert run.kind != "NONE", (run.kind, run.code)


# --- a title that quotes the error ("Bug: ... crashing with `error: Insufficient Memory ...`", llama.cpp's issue form,
# or a plain first line) yields to the log's own line of it, which the log's progress places ------------------------

_METAL_AFTER_CTX = ["load_tensors:      Metal model buffer size =  3685.00 MiB",
                    "llama_kv_cache_init:      Metal KV buffer size = 49152.00 MiB",
                    "llama_new_context_with_model:      Metal compute buffer size =  8489.00 MiB",
                    "ggml_metal_graph_compute: command buffer 0 failed with status 5",
                    "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)"]


@pytest.mark.parametrize("title", [
    "Bug: phi3.5 model crashing with `error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)`",
    "Misc. bug: llama-server dies with Insufficient Memory (kIOGPUCommandBufferCallbackErrorOutOfMemory) on M2",
    "llama-server crashes with Insufficient Memory (kIOGPUCommandBufferCallbackErrorOutOfMemory) on an M2 Mac",
])
def test_a_title_quoting_the_error_yields_to_the_logs_own_line(title):
    run = run_of(diag("\n".join([title, "", "### What happened?", ""] + _METAL_AFTER_CTX)))
    assert run.kind == "WARMUP", (run.kind, run.code, run.phase_source)


# --- figures: mistral.rs's PagedAttention pool ("Allocating 7680 MB ...", "... 640 GPU blocks: available context length
# is 20480 tokens"), and llama.cpp's Metal_Mapped model buffer, the weights on an Apple GPU -------------------------


def test_mistralrs_pool_figures_are_read():
    run = run_of(diag("\n".join([
        "2025-06-02T17:20:21.770318Z  INFO mistralrs_core::paged_attention: Allocating 7680 MB for PagedAttention KV "
        "cache per GPU",
        "2025-06-02T17:20:21.770340Z  INFO mistralrs_core::paged_attention: Using PagedAttention with block size 32 "
        "and 640 GPU blocks: available context length is 20480 tokens",
        _MRS_OOM.format(step="prompt")])))
    n = run.numbers
    assert (n.get("kv_pool_bytes"), n.get("num_gpu_blocks"), n.get("kv_pool_tokens")) == (7680 * 2**20, 640, 20480), n


def test_llama_cpps_metal_mapped_model_buffer_is_gpu_weights():
    run = run_of(diag("\n".join(["load_tensors: Metal_Mapped model buffer size = 21289.00 MiB",
                                 "ggml_metal_graph_compute: command buffer 0 failed with status 5",
                                 "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)"])))
    assert run.numbers.get("gpu_model_buffer_bytes") in ([21289 * 2**20], 21289 * 2**20), run.numbers


# --- a gzip file cut inside its header or first block is cut short, not an empty log; an empty log compressed is empty


@pytest.mark.parametrize("cut,says", [(10, "cut short"), (None, "is empty")])
def test_a_gzip_cut_before_its_data_is_told_from_an_empty_one(tmp_path, cut, says):
    import gzip
    import subprocess
    import sys

    data = gzip.compress(b"INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5\n" * 50
                         if cut else b"")
    path = tmp_path / "x.log.gz"
    path.write_bytes(data[:cut] if cut else data)
    res = subprocess.run([sys.executable, "-m", "vramdoctor", "logs", str(path)], capture_output=True, text=True)
    assert res.returncode == 2 and says in res.stderr and "Traceback" not in res.stderr, res.stderr


# --- a zip archive of a text log is told to be unpacked; a PyTorch checkpoint (a zip whose first member is its pickle's
# archive/data.pkl) is sized with estimate --------------------------------------------------------------------------


@pytest.mark.parametrize("member,says", [("server.log", "Unpack it"), ("archive/data.pkl", "vramdoctor estimate")])
def test_a_zip_is_told_by_its_first_member(tmp_path, member, says):
    import subprocess
    import sys
    import zipfile

    path = tmp_path / "x.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(member, b"INFO hello\n")
    res = subprocess.run([sys.executable, "-m", "vramdoctor", "logs", str(path)], capture_output=True, text=True)
    assert res.returncode == 2 and says in " ".join(res.stderr.split()), res.stderr
