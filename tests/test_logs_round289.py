"""`vramdoctor logs` on the kinds of fault the held-out rounds 289 and later (issue 6, stop 36) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import re

import pytest

from logcase import diag, flags, kind_of, run_of
from vramdoctor.engines import all_engines
from vramdoctor.engines.generic import _FAILS
from vramdoctor.logs.knowledge import _either, knowledge


def said(run) -> str:
    """All of a run's advice, every field, joined."""
    return " | ".join(" ".join(str(v) for v in a.values()) for a in run.advice)


# --- one place per engine: a request answered and a program's end of its work are each engine's own words
# (`LogWords.answered`, `LogWords.work_done`), joined for the reader under each one's own flags ------------------------

def test_either_keeps_each_patterns_own_case():
    joined = _either([re.compile(r"Done\b"), re.compile(r"served", re.I), None])
    assert joined.search("SERVED") and joined.search("Done") and not joined.search("DONE")
    assert _either([None]) is None


@pytest.mark.parametrize("line", [
    "llama_perf_context_print:        total time =    2345.12 ms /   130 tokens",
    "request: POST /v1/chat/completions 127.0.0.1 200",
    "[GIN] 2025/04/03 - 19:22:31 | 200 |    6.82s |       127.0.0.1 | POST     \"/api/chat\"",
    "INFO:     127.0.0.1:40312 - \"POST /v1/completions HTTP/1.1\" 200 OK",
])
def test_every_engines_answered_line_is_read_as_answered(line):
    assert knowledge().answered.search(line)


def test_answered_words_live_in_the_engines_modules():
    owners = {e.name for e in all_engines() if e.log.answered is not None}
    assert {"llamacpp", "ollama", "generic"} <= owners


_OLLAMA_COMPLAINT = ["ollama keeps failing after a while, not working as expected",
                     "time=2025-04-03T19:20:01.000Z level=INFO source=server.go:619 msg=\"llama runner started in 3.01 seconds\"",
                     "[GIN] 2025/04/03 - 19:22:31 | 204 |    6.82s |       127.0.0.1 | POST     \"/api/chat\""]


def test_a_204_answer_in_ollama_ends_serving():
    # (Gin's 2xx, not only 200: a request answered with no content is answered all the same)
    assert kind_of(_OLLAMA_COMPLAINT) == ("NONE", "no-memory-problem")


# --- one batch larger than the whole KV cache (llama-kv-cache.cpp find_slot "n_tokens = N > size = M"): the context is
# smaller than the batch the program sends, which no load explains and nothing ran out of (h273/02) ------------------

_EMBED_CTX = ["llama_context: n_ctx         = 512", "llama_context: n_batch       = 2048",
              "llama_kv_cache_unified:        CPU KV buffer size =    48.00 MiB"]


@pytest.mark.parametrize("lines", [
    _EMBED_CTX + ["batch_decode: n_tokens = 2043, n_seq = 118", "find_slot: n_tokens = 2043 > size = 512",
                  "decode: failed to find KV cache slot for ubatch of size 2043",
                  "llama_decode: failed to decode, ret = 1"],
    ["time=2025-06-01T10:00:00Z level=INFO source=server.go:619 msg=\"llama runner started in 2.0 seconds\"",
     "find_slot: n_tokens = 4096 > size = 2048", "decode: failed to find KV cache slot for ubatch of size 4096",
     "time=2025-06-01T10:00:05Z level=ERROR source=runner.go:300 msg=\"failed to decode batch\""],
    ["llama-embedding -m nomic-embed-text-v1.5.f16.gguf -c 256 -b 1024 -ub 1024 -f docs.txt",
     "E find_slot: n_tokens = 1000 > size = 256", "E decode: failed to find a memory slot for batch of size 1000",
     "E batch_decode : failed to process"],
])
def test_a_batch_larger_than_the_whole_cache_is_a_context_setting_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "batch-larger-than-context")
    assert "-c" in run.message


def test_a_cache_full_under_load_without_find_slots_size_line_stays_runtime():
    lines = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
             "slot launch_slot_: id  0 | task 5 | processing task",
             "decode: failed to find KV cache slot for ubatch of size 512",
             "srv  update_slots: failed to find free space in the KV cache, retrying with smaller batch size, i = 0, n_batch = 512, ret = 1"]
    assert kind_of(lines)[0] == "RUNTIME"


# --- a refusal of a prompt longer than the context, raised by a program that calls the engine itself (vLLM's LLM
# class, llama-cpp-python's Llama): the program stopped on it, not memory; a server that logs the same traceback and
# goes on is still serving ---------------------------------------------------------------------------------------------

_RAISED = [
    ["from llama_cpp import Llama", "llm = Llama(model_path=\"qwen2.5-7b-instruct-q4_k_m.gguf\", n_ctx=512)",
     "Traceback (most recent call last):", "  File \"/home/u/rag.py\", line 31, in <module>",
     "  File \"/home/u/.venv/lib/python3.11/site-packages/llama_cpp/llama.py\", line 1047, in _create_completion",
     "    raise ValueError(", "ValueError: Requested tokens (2043) exceed context window of 512"],
    ["INFO 05-01 10:00:00 llm_engine.py:100] Initializing an LLM engine (v0.6.3) with config: max_seq_len=8192",
     "Traceback (most recent call last):", "  File \"/x/run.py\", line 10, in <module>", "    outputs = llm.generate(prompts)",
     "  File \"/x/vllm/engine/llm_engine.py\", line 600, in _validate_model_input", "    raise ValueError(",
     "ValueError: Input prompt (9000 tokens) is too long and exceeds limit of 8192"],
    ["[2025-03-01 10:00:00] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=60.1 GB",
     "Traceback (most recent call last):", "  File \"/w/bench.py\", line 44, in <module>",
     "    out = engine.generate(prompt, sampling_params)",
     "  File \"/w/sglang/srt/managers/tokenizer_manager.py\", line 402, in _validate_one_request", "    raise ValueError(",
     "ValueError: The input (40000 tokens) is longer than the model's context length (32768 tokens)."],
]


@pytest.mark.parametrize("lines", _RAISED)
def test_a_refusal_raised_where_no_server_ran_stops_the_program(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "requests-refused-too-long")


def test_a_server_that_logs_the_refusals_traceback_goes_on_serving():
    lines = ["INFO:     Application startup complete.",
             "ERROR 05-01 10:01:00 serving_chat.py:200] Error in preprocessing prompt inputs",
             "Traceback (most recent call last):", "  File \"/x/vllm/entrypoints/openai/serving_chat.py\", line 180, in create_chat_completion",
             "    raise ValueError(", "ValueError: This model's maximum context length is 8192 tokens. However, you requested 9000 tokens."]
    assert kind_of(lines) == ("NOT_OOM", "requests-refused-too-long")


@pytest.mark.parametrize("code", ["    raise RuntimeError(", "    raise TypeError(", "        raise EngineDeadError("])
def test_a_tracebacks_line_of_code_is_not_the_reports_words_of_a_failure(code):
    # (the class called in a line of code under its frame; the report's own "dies with EngineDeadError" still is one)
    fails = re.compile(_FAILS, re.I)
    assert not fails.search(code)
    assert fails.search("the server dies with EngineDeadError after a few requests")


# --- a crash told in the report's words ("I get a segfault", "it segfaults") and a later paste whose only failure is
# told as the same again ("Crashed as well with a very similar backtrace"): the earlier run's crash decides (h273/08) --

_GDB = ["(gdb) bt", "#0  amd::KernelParameters::set (this=0x1d9cb10, index=11, size=4, value=0x100000020)",
        "#1  0x00007fffb9822b7c in ihipLaunchKernel_validate (f=0x3281e20) at hip_module.cpp:301"]
_SECOND_LOAD = ["llm_load_print_meta: model size       = 12.88 GiB (8.50 BPW)",
                "llm_load_tensors: offloaded 41/41 layers to GPU",
                "llm_load_tensors:      ROCm0 buffer size = 13023.85 MiB"]


@pytest.mark.parametrize("said, again", [
    ("Shortly after I get a segfault, sometimes a few seconds into the response:", "Crashed as well with a very similar backtrace."),
    ("When I send the first prompt it segfaults:", "Same crash with the smaller model."),
    ("llama-cli then segfaulted with this backtrace", "It fails the same way."),
])
def test_a_segfault_in_the_reports_words_then_the_same_again_is_the_crash(said, again):
    lines = ["main: build = 2408 (8030da7a)", "llama_new_context_with_model: n_ctx      = 2048",
             "llama_kv_cache_init:      ROCm0 KV buffer size =   128.00 MiB",
             "llama_new_context_with_model:      ROCm0 compute buffer size =   324.00 MiB", "", said] + _GDB + [
             "", "I also tried a smaller model that fits the GPU whole:", ""] + _SECOND_LOAD + ["", again]
    assert kind_of(lines) == ("NOT_OOM", "crash-access-violation")


def test_the_same_again_after_a_run_that_showed_no_failure_stays_undetermined():
    lines = ["main: build = 2408 (8030da7a)", "llama_new_context_with_model: n_ctx      = 2048",
             "main: server is listening on 127.0.0.1:8080"] + _SECOND_LOAD + ["", "Crashed again."]
    assert kind_of(lines)[0] == "UNDETERMINED"


@pytest.mark.parametrize("text", ["# debug segfaults with gdb -ex run", "no segfault this time",
                                  "segfault handler installed"])
def test_segfault_named_without_a_crash_told_is_none(text):
    lines = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop", text,
             "request: POST /v1/chat/completions 127.0.0.1 200"]
    assert kind_of(lines)[0] == "NONE"


# --- a C++ exception's what() whose message runs over many lines (a model's answer quoted in it), the abort far below
# it: that message is the abort's cause (h277/18) ------------------------------------------------------------------------

_SERVING = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
            "slot launch_slot_: id  0 | task 0 | processing task"]
_ANSWER = ["The error you're seeing comes from the shell, not from the server.", "",
           "In zsh the ampersand is a command separator,", "so the shell expects another command after it.", "", "",
           "curl -XPOST http://host:80/route?a=1", "", "(Replace the host with your own.)'"]


@pytest.mark.parametrize("what", [
    "  what():  Invalid diff: '{\"name\": \"bash\"' not found at start of 'The answer:",
    "  what():  [json.exception.parse_error.101] parse error at line 3, column 1: syntax error while parsing value - "
    "invalid literal; last read: 'The answer:",
    "  what():  Failed to parse tool call arguments as JSON: 'The answer:",
])
def test_an_aborts_cause_is_the_what_of_many_lines_above_it(what):
    # (std::terminate's own line glued to the slot's line before it, as a terminal's two writers left it)
    lines = _SERVING + ["slot launch_slot_: id  0 | task 0 | processing task00=0minate called after throwing an "
                        "instance of 'std::runtime_error'", what] + _ANSWER + [
        "Aborted (core dumped)"]
    assert kind_of(lines)[0] == "NOT_OOM"


def test_a_what_behind_the_programs_own_lines_is_not_the_aborts_cause():
    # (lines under a log's level prefix: the server went on after that message)
    lines = _SERVING + ["  what():  Invalid diff: 'x' not found at start of 'y'"] + [
        f"INFO [            update_slots] kv cache rm [p0, end) | tid=\"1\" id_slot=0 id_task={i} p0=0"
        for i in range(8)] + ["Aborted (core dumped)"]
    assert kind_of(lines)[0] == "UNDETERMINED"


# --- a traceback hard-wrapped at a console's width under the report's longer sentences, and Ray's task error whose
# remote traceback follows it: the traceback is read to its last line, the exception that says what failed (h276/17) --

_P = "ERROR 05-09 03:01:59 [core.py:402] "
_RAY_TB = [
    "INFO 05-09 03:00:00 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000",
    "INFO:     Application startup complete.",
    _P + "EngineCore encountered a fatal error.", _P + "Traceback (most recent call last):",
    _P + '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 393, in run_engine_core',
    _P + "    engine_core.run_busy_loop()",
    _P + '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/ray_distributed_executor.py", line 51, in execute_model',
    _P + "    self.forward_dag = self._compiled_ray_dag(enable_asyncio=False)",
    _P + "                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    _P + '  File "/usr/local/lib/python3.12/dist-packages/ray/dag/compiled_dag_node.py", line 1357, in _init_communicators',
    _P + "    p2p_communicator_id = _init_communicator(",
    _P + "                          ^^^^^^^^^^^^^^^^^^^",
] + [x for i in range(8) for x in (
    _P + f'  File "/usr/local/lib/python3.12/dist-packages/ray/dag/compiled_dag_node.py", line {1300 + i}, in _step_{i}',
    _P + f"    self._step_{i + 1}()",
    _P + "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^")] + [
    _P + '  File "/usr/local/lib/python3.12/dist-packages/ray/_private/worker.py", line 929, in get_objects',
    _P + "    raise value.as_instanceof_cause()",
    _P + "ray.exceptions.RayTaskError(ModuleNotFoundError): ray::RayWorkerWrapper.__ray_call__() (pid=324, ip=192.168.195.154, actor_id=72876ece9f2cadebbf85ef1301000000)",
    _P + "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    _P + "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    _P + '  File "/usr/local/lib/python3.12/dist-packages/ray/actor.py", line 1732, in __ray_call__',
    _P + "    return fn(self, *args, **kwargs)",
    _P + '  File "/usr/local/lib/python3.12/dist-packages/ray/experimental/channel/torch_tensor_nccl_channel.py", line 683, in _do_get_unique_nccl_id',
    _P + "    from cupy.cuda import nccl",
]
_PROSE = ["When running V1 on the AMD MI300A (this is an example with Ray, running distributed APUs), vLLM complains that "
          "cupy is missing, which I do not understand at all on ROCm.",
          "Setting enforce_eager=True in an attempt to disable anything having to do with CUDA whatsoever still results "
          "in vllm failing on no module cupy found, same as before.", ""]


def _fold(lines: list[str], width: int) -> list[str]:
    out = []
    for line in lines:
        while len(line) > width:
            out.append(line[:width])
            line = line[width:]
        out.append(line)
    return out


@pytest.mark.parametrize("width", [None, 130, 100, 88])
@pytest.mark.parametrize("last, kind", [
    ("ModuleNotFoundError: No module named 'cupy'", "NOT_OOM"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 63.98 GiB "
     "of which 1.02 GiB is free.", "RUNTIME"),
])
def test_a_wrapped_traceback_under_longer_sentences_is_read_to_its_exception(width, last, kind):
    log = _RAY_TB + [_P + last]
    lines = _PROSE + (_fold(log, width) if width else log)
    assert kind_of(lines)[0] == kind


def test_a_stated_error_is_kept_behind_many_bare_frames():
    # (frames eight lines apart, each a failure of its own: the exception at their end still counts)
    frames = []
    for i in range(12):
        frames += [f'  File "/srv/app/step{i}.py", line {i + 10}, in step{i}', f"    step{i + 1}()", "", "", "", "", ""]
    lines = ["INFO:     Application startup complete.", "Traceback (most recent call last):"] + frames + [
        "ValueError: tokenizer config names an unknown chat template 'chatml-x'"]
    assert kind_of(lines)[0] == "NOT_OOM"


# --- LMDeploy's "No enough gpu memory for runtime.": its KV sizing (the logits buffer leaves no room for 16 blocks of
# the free memory times cache_max_entry_count), raised after the weights, not a warm-up (h293/02) --------------------

@pytest.mark.parametrize("lines", [
    ["2024-12-10 08:01:02,114 - lmdeploy - INFO - model_agent.py:234 - loading weights.",
     "2024-12-10 08:01:40,010 - lmdeploy - DEBUG - model_agent.py:62 - device<0> free gpu memory: 61 mb",
     "Traceback (most recent call last):",
     '  File "/opt/py3/lib/python3.10/site-packages/lmdeploy/pytorch/engine/model_agent.py", line 96, in _update_cache_config',
     "    gpu_mem = __get_free_gpu_mem_size(cache_block_size)",
     "RuntimeError: No enough gpu memory for runtime."],
    ["2025-04-02 10:11:12,000 - lmdeploy - INFO - base.py:160 - Updating configs.",
     "2025-04-02 10:11:12,300 - lmdeploy - ERROR - async_engine.py:270 - No enough gpu memory for runtime."],
    ["lmdeploy serve api_server Qwen/Qwen2.5-14B-Instruct --backend pytorch --cache-max-entry-count 0.5",
     "RuntimeError: No enough gpu memory for runtime."],
])
def test_lmdeploys_no_memory_for_runtime_is_the_kv_sizing(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("KV_CAPACITY", "no-memory-for-kv-cache")
    assert "--cache-max-entry-count 0." not in said(run) or "above" in said(run)


# --- a host OOM kill pasted under the pod's state or the kernel's lines, far below the engine's last line, a weights'
# load or conversion bar short of its end: the weights, not undetermined (h293/04) ---------------------------------------

_POD_STATE = ["```", "", "$ kubectl describe pod llm-0 | sed -n '/Containers:/,/Conditions:/p'", "Containers:",
              "  server:", "    Container ID:  containerd://7b1e0f3d6a2c", "    Image:         registry.local/llm:2025.03",
              "    Image ID:      registry.local/llm@sha256:9f1c", "    Port:          8000/TCP",
              "    Host Port:     0/TCP", "    Command:", "      /bin/sh", "      -c", "    Args:",
              "      exec /srv/start.sh",
              "    State:          Waiting", "      Reason:       CrashLoopBackOff", "    Last State:     Terminated",
              "      Reason:       OOMKilled", "      Exit Code:    137", "    Ready:          False",
              "    Restart Count:  5", "    Limits:", "      memory:          48Gi"]


@pytest.mark.parametrize("bar", [
    "Convert to turbomind format:  41%|████▏     | 33/80 [02:36<03:41,  4.71s/it]",
    "Loading safetensors checkpoint shards:  40% Completed | 12/30 [01:10<01:45,  5.83s/it]",
    "Loading checkpoint shards:  55%|█████▌    | 11/20 [00:40<00:33,  3.70s/it]",
])
def test_a_host_kill_far_below_a_weights_bar_under_way_is_the_weights(bar):
    lines = ["INFO 03-18 06:41:00 [api_server.py:1043] vLLM API server version 0.8.5" if "safetensors" in bar else
             "2025-03-18 06:41:31,772 - lmdeploy - WARNING - turbomind.py:214 - get 883 model params", bar] + _POD_STATE
    assert kind_of(lines)[0] == "WEIGHTS"


def test_a_host_kill_below_a_graph_capture_under_way_is_not_the_weights():
    lines = ["INFO 03-18 06:41:00 [api_server.py:1043] vLLM API server version 0.8.5",
             "Loading safetensors checkpoint shards: 100% Completed | 30/30 [02:50<00:00,  5.83s/it]",
             "INFO 03-18 06:44:00 [gpu_model_runner.py:1500] Model loading took 60.2 GiB and 171 seconds",
             "Capturing CUDA graph shapes:  40%|████      | 27/67 [00:10<00:15,  2.61it/s]"] + _POD_STATE
    assert kind_of(lines)[0] != "WEIGHTS"


# --- TensorRT-LLM's PyTorch backend: its profiling figure "during inference ... in memory usage profiling" is no request
# served; its KV cache config check is no KV step; its cut of the attention window to the pool is the KV ledger
# (h293/07, h293/08, h293/10) ---------------------------------------------------------------------------------------------

_TRT = "[11/05/2025-09:33:21] [TRT-LLM] [I] "


def test_trtllms_profiling_figure_is_not_a_request_and_a_graph_warmup_oom_is_warmup():
    lines = ["[TensorRT-LLM] TensorRT-LLM version: 1.1.0rc3", _TRT + "Using LLM with PyTorch backend",
             _TRT + "Memory dynamically allocated during inference (inside torch) in memory usage profiling: 3.12 GiB",
             _TRT + "Memory used outside torch (e.g., NCCL and CUDA graphs) in memory usage profiling: 3.05 GiB",
             "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 13.30 GiB for max tokens in paged KV cache (54496).",
             _TRT + "Creating CUDA graph instances for 35 batch sizes.",
             _TRT + "Run generation only CUDA graph warmup for batch size=240, draft_len=0",
             "[11/05/2025-09:33:26] [TRT-LLM] [E] Failed to initialize executor on rank 0: CUDA out of memory. Tried to "
             "allocate 148.00 MiB. GPU 0 has a total capacity of 79.19 GiB of which 97.00 MiB is free."]
    assert kind_of(lines)[0] == "WARMUP"


@pytest.mark.parametrize("config", ['KV cache quantization set to "auto". Using checkpoint KV quantization.',
                                    'Validating KV Cache config against kv_cache_dtype="auto"',
                                    "kv_cache_dtype is set to fp8 for this model"])
def test_a_kv_cache_setting_named_is_no_kv_step(config):
    lines = ["[TensorRT-LLM] TensorRT-LLM version: 1.0.0", _TRT + "Using LLM with PyTorch backend", _TRT + config,
             "[09/29/2025-17:20:27] [TRT-LLM] [E] Failed to initialize executor on rank 0: CUDA out of memory. Tried "
             "to allocate 270.00 MiB. GPU 0 has a total capacity of 47.53 GiB of which 118.06 MiB is free."]
    assert kind_of(lines)[0] != "KV_CAPACITY"


@pytest.mark.parametrize("cut", [
    ["[TRT-LLM] [W] Attention window size 131072 exceeds upper bound 38048 for available blocks. Reducing to 38048.",
     "[TRT-LLM] [W] Adjusted max_seq_len to 38048"],
    ["[TensorRT-LLM][WARNING] maxSequenceLen (32768) and maxAttentionWindow are too large for at least one sequence "
     "to fit in kvCache. they are reduced to 5376"],
])
def test_trtllm_cutting_the_context_to_the_pool_is_the_kv_ledger(cut):
    lines = ["[TensorRT-LLM] TensorRT-LLM version: 1.1.0rc3", _TRT + "Using LLM with PyTorch backend"] + [
        _TRT[:23] + c if c.startswith("[TRT-LLM]") else c for c in cut] + [
        "INFO:     Application startup complete.",
        'INFO:     10.0.0.5:40112 - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request']
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")


# --- TGI's warm-up: the router's "Invalid hostname" (v2+: main.rs, before server::run warms up) is no ready line; the
# warm-up makes the KV cache first (init_kv_cache, KVCache), so an OOM in those frames is the KV ledger though the
# wrapper says Warmup; a handler's source line f"Not enough memory to handle {num_tokens} ..." is no such message
# (h291/09, h291/10) -----------------------------------------------------------------------------------------------------

_TGI_UP = ["2025-01-14T10:21:38.552019Z  INFO text_generation_launcher: Server started at unix:///tmp/text-generation-server-0",
           "2025-01-14T10:21:38.647288Z  INFO shard-manager: text_generation_launcher: Shard ready in 27.6s rank=0",
           "2025-01-14T10:21:38.741516Z  INFO text_generation_launcher: Starting Webserver",
           "2025-01-14T10:21:39.311762Z  WARN text_generation_router::server: router/src/server.rs:2015: Invalid hostname, defaulting to 0.0.0.0",
           "2025-01-14T10:21:39.402877Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:125: Warming up model",
           "2025-01-14T10:21:41.225914Z ERROR text_generation_launcher: Method Warmup encountered an error.",
           "Traceback (most recent call last):"]
_TGI_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB. GPU 0 has a total capacity of "
            "22.16 GiB of which 85.19 MiB is free.")


def test_tgis_prefill_warmup_message_after_invalid_hostname_is_warmup():
    lines = _TGI_UP + ['  File "/opt/conda/lib/python3.10/site-packages/text_generation_server/models/flash_causal_lm.py", line 1103, in warmup',
                       "    raise RuntimeError(",
                       "RuntimeError: Not enough memory to handle 16384 prefill tokens. You need to decrease `--max-batch-prefill-tokens`"]
    assert kind_of(lines) == ("WARMUP", "prefill-tokens-exceed-memory")


@pytest.mark.parametrize("inner", [
    ['  File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py", line 1386, in init_kv_cache',
     "    KVCache(",
     '  File "/opt/conda/lib/python3.11/site-packages/text_generation_server/layers/attention/kv_cache.py", line 71, in __init__',
     "    torch.empty("],
    ['  File "/opt/conda/lib/python3.10/site-packages/text_generation_server/models/flash_causal_lm.py", line 800, in warmup',
     "    _, batch, _ = self.generate_token(batch)",
     '  File "/opt/conda/lib/python3.10/site-packages/text_generation_server/models/cache_manager.py", line 40, in __init__',
     "    torch.empty("],
])
def test_tgis_warmup_oom_inside_the_kv_caches_frames_is_the_kv_ledger(inner):
    lines = _TGI_UP + ['  File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py", line 1553, in warmup',
                       "    self.init_kv_cache("] + inner + [_TGI_OOM]
    assert kind_of(lines)[0] == "KV_CAPACITY"


def test_a_handlers_source_line_is_not_the_prefill_message():
    lines = _TGI_UP + ['  File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py", line 1580, in warmup',
                       '    f"Not enough memory to handle {num_tokens} prefill tokens. "',
                       "UnboundLocalError: cannot access local variable 'num_tokens' where it is not associated with a value"]
    assert kind_of(lines)[1] != "prefill-tokens-exceed-memory"


# --- growth the log shows before the failure that ends it: nvidia-smi's CSV of memory.used then memory.total, a cron
# job's table led by ISO times, or a rate in the report's words ("~9 GB/day", "goes up, ~2-3 GB per day"): the last
# failure is how the growth ended, LEAK (h290/08, h292/17) ---------------------------------------------------------------

_SERVE_OOM = ["INFO:     Application startup complete.",
              "INFO 09-05 03:10:01 [loggers.py:123] Engine 000: Avg prompt throughput: 900.1 tokens/s, Running: 3 reqs, "
              "Waiting: 0 reqs, GPU KV cache usage: 5.1%, Prefix cache hit rate: 0.0%",
              "ERROR 09-05 03:12:44 [core.py:702] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 184.00 "
              "MiB. GPU 0 has a total capacity of 79.25 GiB of which 21.75 MiB is free."]


def _csv(used: list[int]) -> list[str]:
    return ["timestamp, memory.used [MiB], memory.total [MiB]"] + [
        f"2025/09/0{1 + i // 2} {'08' if i % 2 == 0 else '20'}:00:02.114, {u} MiB, 81920 MiB" for i, u in enumerate(used)]


def test_nvidia_smis_csv_of_used_and_total_rising_is_growth():
    assert kind_of(_csv([71240, 71988, 73432, 74876, 76530, 77702, 79364, 80610]) + _SERVE_OOM)[0] == "LEAK"


def test_nvidia_smis_csv_flat_is_no_growth():
    assert kind_of(_csv([71240, 71250, 71238, 71244, 71240, 71251, 71239, 71245]) + _SERVE_OOM)[0] == "RUNTIME"


def test_a_cron_jobs_rss_table_led_by_iso_times_is_growth():
    rows = [f"2025-06-0{2 + i // 4}T{(i % 4) * 6:02d}:00Z     2231  {2214532 + i * 2300000}   {41236320 + i * 2300000}"
            for i in range(10)]
    lines = ["srv  log_server_r: request: POST /v1/embeddings 10.0.0.7 200", "memory over time:", "",
             "date                  PID    RSS(KB)   VSZ(KB)"] + rows + [
        "", "[277421.118509] Out of memory: Killed process 2231 (llama-server) total-vm:67490212kB, "
            "anon-rss:28901644kB, file-rss:88064kB, shmem-rss:0kB, UID:0 pgtables:57156kB oom_score_adj:0"]
    assert kind_of(lines)[0] == "LEAK"


@pytest.mark.parametrize("told", ["Then the number only goes up, ~2-3 GB per day, never back down.",
                                  "RSS grows ~9 GB/day until the OOM killer kills it.",
                                  "VRAM climbs 1.5 GB per hour while we serve the same traffic."])
def test_a_rate_of_growth_in_the_reports_words_is_growth(told):
    assert kind_of([told, ""] + _SERVE_OOM)[0] == "LEAK"


# --- a pool that holds less than the context, where the engine cut the context to it and went on serving (Aphrodite's
# "Forcing max_model_len to N." after vLLM's words): the KV ledger, not a recovery (h294/10) ------------------------------

@pytest.mark.parametrize("prefix", ["aphrodite-1  | ", "", "2024-11-02 10:00:01 | "])
def test_a_context_forced_down_to_the_pool_then_serving_is_kv_capacity(prefix):
    lines = [prefix + x for x in [
        "INFO:     # GPU blocks: 774, # CPU blocks: 1024",
        "INFO:     Maximum sequence length allowed in the cache: 12384",
        "ERROR:    The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in "
        "KV cache (12384). Try increasing `gpu_memory_utilization`, setting `--enable-chunked-prefill`, or reducing "
        "`max_model_len` when initializing the engine.",
        "ERROR:    Forcing max_model_len to 12384.",
        "INFO:     Started server process [1]", "INFO:     Application startup complete."]]
    lines.insert(0, prefix + "INFO:     Aphrodite Engine version 0.6.2")
    assert kind_of(lines) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")


# --- LocalAI loads a model for the first request that names it: "Request received" before the load is no serving; only
# the backend's own lines of a request the loaded model took are (h294/04) ------------------------------------------------

_LAI = "local-ai-1  | 9:14PM DBG "
_LAI_GRPC = _LAI + "GRPC(qwen.gguf-127.0.0.1:38141): stderr "
_LAI_LOAD = [_LAI + 'Request received: {"model":"qwen2.5-7b-instruct","temperature":null,"max_tokens":null,'
                    '"messages":[{"role":"user","content":"Summarise this invoice."}],"stream":false}',
             "local-ai-1  | 9:14PM INF Loading model 'qwen.gguf' with backend llama-cpp",
             _LAI_GRPC + "llm_load_tensors: offloaded 29/29 layers to GPU",
             _LAI_GRPC + "llm_load_tensors:      CUDA0 buffer size =  7165.44 MiB",
             _LAI_GRPC + "llama_kv_cache_init:      CUDA0 KV buffer size =  7168.00 MiB"]


def test_localais_request_before_its_lazy_load_is_not_serving():
    lines = _LAI_LOAD + [_LAI_GRPC + "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 7861195264",
                         _LAI_GRPC + "llama_new_context_with_model: failed to allocate compute buffers"]
    assert kind_of(lines)[0] == "WARMUP"


def test_localai_after_its_model_loaded_and_took_a_request_is_serving():
    lines = _LAI_LOAD + [_LAI_GRPC + "llama_new_context_with_model:      CUDA0 compute buffer size =   304.00 MiB",
                         "local-ai-1  | 9:15PM INF [llama-cpp] Loads OK",
                         _LAI_GRPC + "slot launch_slot_: id  0 | task 0 | processing task",
                         _LAI_GRPC + "CUDA error: out of memory",
                         _LAI_GRPC + "  current device: 0, in function alloc at ggml-cuda.cu:380"]
    assert kind_of(lines)[0] == "RUNTIME"


# --- a title that quotes the error in other words than the output below that ends in it ("Error:
# DriverError(CUDA_ERROR_OUT_OF_MEMORY) al cargar ..." over "Error: DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of
# memory\")"): the output's line, with the steps before it, decides (h294/07) --------------------------------------------

@pytest.mark.parametrize("title, last", [
    ("Error: DriverError(CUDA_ERROR_OUT_OF_MEMORY) al cargar Qwen2.5-7B-Instruct en RTX 3060",
     'Error: DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")'),
    ("torch.OutOfMemoryError: CUDA out of memory when loading the 32B model",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 270.00 MiB. GPU 0 has a total capacity of 23.5 GiB"),
])
def test_a_title_quoting_the_error_yields_to_the_outputs_line(title, last):
    lines = [title, "", "Hola, compilé mistral.rs 0.3.1 con `--features cuda` y se para en la capa 23 de 28:", "",
             "$ ./target/release/mistralrs-server -i plain -m Qwen/Qwen2.5-7B-Instruct -a qwen2",
             "2024-10-06T09:14:02.993427Z  INFO mistralrs_core::pipeline::normal: Loading model `Qwen/Qwen2.5-7B-Instruct` on cuda[0].",
             "Loading repeating layers: [00:00:07] [################################>-------] 23/28 (2s)", last, "",
             "nvidia-smi al mismo tiempo mostraba 11.9 GB / 12 GB."]
    assert kind_of(lines)[0] == "WEIGHTS"


# --- a runner the system refused to execute (Go's "fork/exec ...: permission denied", a temp dir mounted noexec) and an
# option value a back end refuses before anything loads (llama.cpp's SYCL "... is not supported by llama.cpp with
# SYCL. It's developing." / "Exit!"): not memory (h289/02, h292/04) ------------------------------------------------------

@pytest.mark.parametrize("line", [
    'time=2024-05-23T08:03:40.773Z level=ERROR source=server.go:361 msg="unable to load any llama server" error="unable '
    'to start server fork/exec /tmp/ollama3127845512/runners/cpu_avx2/ollama_llama_server: permission denied.  '
    '/tmp/ollama3127845512/runners/cpu_avx2 may have noexec set.  Set OLLAMA_TMPDIR for server to a writable executable '
    'directory"',
    'time=2024-09-02T11:00:00.000Z level=WARN source=sched.go:646 msg="error loading llama server" error="fork/exec '
    '/usr/lib/ollama/runners/cuda_v12/ollama_llama_server: permission denied"',
    "Error: llama runner process has terminated: fork/exec /home/u/.ollama/runners/ollama_llama_server: permission denied",
])
def test_a_runner_the_system_refused_to_execute_is_not_memory(line):
    run = run_of(diag("\n".join(["time=2024-05-23T08:03:39.000Z level=INFO source=server.go:320 msg=\"starting llama server\"", line])))
    assert (run.kind, run.code) == ("NOT_OOM", "access-denied")
    assert "OLLAMA_TMPDIR" in run.message


@pytest.mark.parametrize("backend", ["SYCL", "Vulkan"])
def test_an_option_value_the_back_end_refuses_is_a_bad_argument(backend):
    lines = ["./build/bin/llama-cli -m models/llama-2-13b.Q4_0.gguf -ngl 99 -sm row -p hello",
             f"warning: The split mode value:[row] is not supported by llama.cpp with {backend}. It's developing.",
             "Exit!"]
    assert kind_of(lines) == ("NOT_OOM", "bad-argument")


# --- a client that hung up while its answer was written (BrokenPipeError, socketserver's "Exception occurred during
# processing of request from", starlette's ClientDisconnect): that request only; where the server answers more after
# it, no failure of the server (h293/14) ---------------------------------------------------------------------------------

_ACCESS = '192.168.10.23 - - [22/Sep/2025 09:31:58] "POST /v1/chat/completions HTTP/1.1" 200 -'


@pytest.mark.parametrize("hangup", [
    ["---------------------------------------- Exception occurred during processing of request from ('192.168.10.41', "
     "60412) Traceback (most recent call last):   File \"/usr/lib/python3.12/socketserver.py\", line 840, in write     "
     "self._sock.sendall(b) BrokenPipeError: [Errno 32] Broken pipe"],
    ["ERROR:    Exception in ASGI application", "Traceback (most recent call last):",
     '  File "/srv/.venv/lib/python3.11/site-packages/starlette/responses.py", line 250, in stream_response',
     "    await send({\"type\": \"http.response.body\", \"body\": chunk, \"more_body\": True})",
     "BrokenPipeError: [Errno 32] Broken pipe"],
])
def test_a_client_hang_up_then_more_answers_is_no_failure(hangup):
    lines = ["2025-09-22 09:14:02,311 - INFO - Starting httpd at 0.0.0.0 on port 8081...", _ACCESS] + hangup + [
        _ACCESS.replace("09:31:58", "09:40:17"), _ACCESS.replace("09:31:58", "09:44:09")]
    assert kind_of(lines) == ("NONE", "client-disconnected")


def test_a_client_hang_up_that_ends_the_log_is_not_memory():
    lines = ["2025-09-22 09:14:02,311 - INFO - Starting httpd at 0.0.0.0 on port 8081...", _ACCESS,
             "BrokenPipeError: [Errno 32] Broken pipe"]
    assert kind_of(lines) == ("NOT_OOM", "client-disconnected")


# --- a start-up stopped by hand (a traceback that ends in a bare KeyboardInterrupt, whatever was pasted under it) is no
# failure of its own: the hang the report tells of decides; hang advice does not propose NCCL_DEBUG=INFO where it is
# already on (h291/14, h290/15) ------------------------------------------------------------------------------------------

_CTRL_C = ["^CTraceback (most recent call last):",
           '  File "/srv/.venv/lib/python3.10/site-packages/sglang/srt/entrypoints/engine.py", line 449, in _launch_subprocesses',
           "    data = scheduler_pipe_readers[i].recv()",
           '  File "/usr/lib/python3.10/multiprocessing/connection.py", line 379, in _recv',
           "    chunk = read(handle, remaining)", "KeyboardInterrupt"]
_SMI = ["", "$ nvidia-smi   (while it was stuck)",
        "|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0 Off |                  Off |",
        "| 30%   52C    P2            112W /  450W |     891MiB /  24564MiB |    100%      Default |"]


@pytest.mark.parametrize("after", [[], _SMI])
def test_a_start_up_stopped_by_hand_after_a_hang_is_the_hang(after):
    lines = ["Server stuck forever at \"sglang is using nccl\" with --tp 2", "",
             "NCCL_DEBUG=INFO python -m sglang.launch_server --model-path Qwen/Qwen2.5-14B-Instruct-AWQ --tp 2",
             "[2025-03-02 22:10:49 TP0] Init torch distributed begin.",
             "gpu-0:4211:4211 [0] NCCL INFO Init COMPLETE",
             "[2025-03-02 22:10:51 TP0] sglang is using nccl==2.21.5"] + _CTRL_C + after
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "hang-no-error")
    assert "re-run with NCCL_DEBUG=INFO" not in said(run)


def test_hang_advice_proposes_nccl_debug_where_it_is_off():
    lines = ["vLLM hangs forever at startup with tensor parallel 4",
             "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4",
             "INFO 05-02 10:00:00 [parallel_state.py:948] rank 0 in world size 4 is assigned as DP rank 0, PP rank 0, TP rank 0"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "UNDETERMINED" and "re-run with NCCL_DEBUG=INFO" in said(run)


# --- SGLang's barrier after the weights ("TP rank 0 could finish the model loading, but there are other ranks that
# didn't finish loading. It is likely due to unexpected failures (e.g., OOM) or a slow node."): another rank failed
# while loading; undetermined on its own, the weights where the other rank's out of memory is in the log (h291/06) -------

_BARRIER = ["[2025-09-22 11:03:30 TP0] Load weight begin. avail mem=78.11 GB",
            "[2025-09-22 11:03:30 TP1] Load weight begin. avail mem=78.11 GB",
            "[2025-09-22 11:06:28 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.float16, avail mem=47.60 GB, "
            "mem usage=30.51 GB.",
            "[2025-09-22 11:08:28 TP0] Scheduler hit an exception: Traceback (most recent call last):",
            '  File "/sgl/python/sglang/srt/model_executor/model_runner.py", line 798, in load_model',
            "    raise ValueError(",
            "ValueError: TP rank 0 could finish the model loading, but there are other ranks that didn't finish "
            "loading. It is likely due to unexpected failures (e.g., OOM) or a slow node."]


def test_sglangs_barrier_alone_is_undetermined_in_the_weights():
    run = run_of(diag("\n".join(_BARRIER)))
    assert (run.kind, run.code) == ("UNDETERMINED", "rank-failed-loading")
    assert run.candidates == ["WEIGHTS"]


@pytest.mark.parametrize("other, code", [
    (["", "$ sudo dmesg -T | grep -i killed", "[Mon Sep 22 11:04:39 2025] Memory cgroup out of memory: Killed process "
      "2210417 (sglang::schedul) total-vm:63412288kB, anon-rss:17102344kB, file-rss:512020kB"], "weights-exceed-system-memory"),
    (["[2025-09-22 11:05:02 TP1] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory. Tried to "
      "allocate 1.02 GiB. GPU 1 has a total capacity of 79.11 GiB of which 312.00 MiB is free."], "weights-alloc-failed"),
])
def test_sglangs_barrier_with_the_other_ranks_out_of_memory_is_the_weights(other, code):
    assert kind_of(_BARRIER + other) == ("WEIGHTS", code)


# --- a worker's own step among other ranks' lines (vLLM 0.11's "(Worker_TP0_EP0 pid=N)", SGLang's "[... TP1]"): read
# back past the others' lines, and no other rank's milestone ends the walk (h295/12) ---------------------------------------

@pytest.mark.parametrize("tag0, tag1", [("(Worker_TP0_EP0 pid=90801) ", "(Worker_TP1_EP1 pid=90802) "),
                                        ("(Worker_TP0 pid=701) ", "(Worker_TP1 pid=702) "),
                                        ("(Worker_DP0_TP0 pid=11) ", "(Worker_DP0_TP1 pid=12) ")])
def test_a_workers_own_step_among_interleaved_ranks_places_its_failure(tag0, tag1):
    steps = ["INFO 11-02 20:14:31 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen3-30B-A3B-Instruct-2507...",
             "INFO 11-02 20:14:31 [gpu_model_runner.py:2634] Loading model from scratch...",
             "INFO 11-02 20:14:31 [cuda.py:366] Using Flash Attention backend on V1 engine."]
    lines = ["(APIServer pid=90412) INFO 11-02 20:13:58 [api_server.py:1839] vLLM API server version 0.11.0"]
    for s in steps:
        lines += [tag0 + s, tag1 + s]
    lines += [tag0 + "ERROR 11-02 20:14:37 [multiproc_executor.py:597] WorkerProc failed to start.",
              tag0 + "ERROR 11-02 20:14:37 [multiproc_executor.py:597] Traceback (most recent call last):",
              tag0 + "ERROR 11-02 20:14:37 [multiproc_executor.py:597] ...(same traceback as above)...",
              tag0 + "ERROR 11-02 20:14:37 [multiproc_executor.py:597] torch.OutOfMemoryError: CUDA out of memory. "
                     "Tried to allocate 384.00 MiB. GPU 0 has a total capacity of 23.65 GiB of which 281.56 MiB is free."]
    assert kind_of(lines)[0] == "WEIGHTS"


# --- a directory's or a file's name in an error is no word of memory ("Permission denied: '/.cache'",
# "~/.cache/huggingface") (h295/18) --------------------------------------------------------------------------------------

@pytest.mark.parametrize("error", ["PermissionError: [Errno 13] Permission denied: '/.cache'",
                                   "OSError: [Errno 30] Read-only file system: '/root/.cache/huggingface/hub'",
                                   "FileNotFoundError: [Errno 2] No such file or directory: '/models/kv_cache_buffers/config.json'"])
def test_a_path_in_an_error_is_no_word_of_memory(error):
    lines = ["(APIServer pid=1) INFO 10-03 08:00:00 [api_server.py:1839] vLLM API server version 0.20.0",
             "(APIServer pid=1) Traceback (most recent call last):",
             '(APIServer pid=1)   File "/usr/local/lib/python3.12/site-packages/vllm/transformers_utils/config.py", line 598, in get_config',
             "(APIServer pid=1) " + error]
    assert kind_of(lines)[0] == "NOT_OOM"


# --- torch.compile's "BackendCompilerFailed: backend='inductor' raised:" with the error it wraps on the next line: that
# error decides, an out of memory in SGLang's graph capture too (h296/03) ------------------------------------------------

_CAPTURE = ["[2025-09-20 10:00:01] Memory pool end. avail mem=0.41 GB",
            "[2025-09-20 10:00:02] Capture cuda graph begin. This can take up to several minutes. avail mem=0.29 GB",
            "Traceback (most recent call last):",
            '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 391, in __init__',
            "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:"]


def test_a_compiler_failure_that_wraps_an_out_of_memory_is_the_out_of_memory():
    lines = _CAPTURE + ["OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB. GPU 0 has a total "
                        "capacity of 23.69 GiB of which 131.44 MiB is free."]
    assert kind_of(lines)[0] == "WARMUP"


def test_a_compiler_failure_that_wraps_another_error_is_not_memory():
    lines = _CAPTURE + ["AssertionError: auto_functionalized was not removed"]
    assert kind_of(lines)[0] == "NOT_OOM"


# --- an out of memory the report only worries about ("I just worry it will OOM as soon as more users come", "担心以后
# OOM"): no failure, over a log that serves (h296/18, h298/05) ----------------------------------------------------------

_SERVES = ["INFO:     Application startup complete.",
           'INFO:     127.0.0.1:40312 - "POST /v1/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("worry", ["Requests do work and answer fine, I just worry it will OOM as soon as more users come.",
                                   "显存占用很高，担心以后 OOM",
                                   "We are afraid it might run out of memory once the context grows."])
def test_an_out_of_memory_only_worried_about_is_no_failure(worry):
    assert kind_of([_SERVES[0], worry, _SERVES[1]])[0] == "NONE"


def test_a_worry_then_the_out_of_memory_itself_is_a_failure():
    said = "I worried about OOM, and then it crashed with CUDA out of memory."
    assert kind_of([_SERVES[0], said, _SERVES[1]])[0] == "RUNTIME"


# --- the same output pasted twice, the error block first and the whole log after it with its traceback elided ("...
# (same as above)"): the copy that shows the cause decides, whatever stamps a collector put before the second copy's
# lines (h298/17, h300/03) -----------------------------------------------------------------------------------------------

_EC = "(EngineCore_0 pid=87) "
_BLOCK = [_EC + "ERROR 09-03 08:16:13 [core.py:700] EngineCore failed to start.",
          _EC + "ERROR 09-03 08:16:13 [core.py:700] Traceback (most recent call last):",
          _EC + 'ERROR 09-03 08:16:13 [core.py:700]   File "/opt/venv/lib/python3.11/site-packages/vllm/v1/worker/gpu_model_runner.py", line 2464, in _dummy_sampler_run',
          _EC + "ERROR 09-03 08:16:13 [core.py:700] RuntimeError: CUDA out of memory occurred when warming up sampler "
                "with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when "
                "initializing the engine."]
_WHOLE = ["(APIServer pid=1) INFO 09-03 08:14:02 [api_server.py:1805] vLLM API server version 0.10.1.1",
          _EC + "INFO 09-03 08:14:20 [gpu_model_runner.py:1953] Starting to load model Qwen/Qwen2.5-14B-Instruct...",
          _EC + "INFO 09-03 08:14:30 [gpu_model_runner.py:2007] Model loading took 27.5218 GiB and 8.841532 seconds",
          _EC + "INFO 09-03 08:15:52 [gpu_model_runner.py:2708] Graph capturing finished in 29 secs, took 1.84 GiB",
          _BLOCK[0], _BLOCK[1], _EC + "ERROR 09-03 08:16:13 [core.py:700] ... (same as above)",
          "(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"]


@pytest.mark.parametrize("stamp", ["", "2025-09-03T08:16:13.221770628Z "])
def test_the_same_output_pasted_twice_is_decided_by_the_copy_with_the_cause(stamp):
    lines = ["pod crashloop after graph capture:", "```"] + _BLOCK + ["```", "", "full log:", "```"] + [
        stamp + x for x in _WHOLE] + ["```"]
    assert kind_of(lines) == ("WARMUP", "sampler-warmup-oom")


def test_another_run_after_a_failed_one_is_no_copy():
    # (a restart at another time: its own lines, none of the first run's; its failure is its own)
    second = [x.replace("08:1", "09:4").replace("pid=87", "pid=91") for x in _WHOLE]
    lines = _BLOCK + [""] + second
    assert kind_of(lines)[0] == "UNDETERMINED"


# --- the report's words of growth above the log (a run of their own: the title and sentences), the log ending in an out
# of memory while serving: the growth's end, LEAK (h298/04, h298/14) -----------------------------------------------------

_SERVED_OOM = ["```", "vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.9 --max-model-len 32768", "```", "",
               "INFO 09-05 03:00:00 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000",
               "INFO:     Application startup complete.",
               'INFO:     10.0.0.4:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
               "ERROR 09-05 03:12:44 [engine.py:160] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
               "592.00 MiB. GPU 0 has a total capacity of 79.25 GiB of which 21.75 MiB is free."]


@pytest.mark.parametrize("words", [
    ["GPU memory slowly increases over ~20h of serving, then CUDA OOM and engine dies", "",
     "Memory after restart 35.9 GB, then it slowly goes up while serving requests: 36.8, 37.9, 39.1 and 39.6 GB."],
    ["VRAM keeps climbing outside the KV pool for ~11h while serving requests, then CUDA OOM", ""],
    # (a title tagged as a tracker's, "[Bug]: ...", is the report's words too)
    ["[Bug]: APIServer memory grows ~1.5 GB/hour while serving requests, then OOM", ""],
])
def test_growth_told_above_a_log_that_ends_in_a_serving_oom_is_a_leak(words):
    assert kind_of(words + _SERVED_OOM)[0] == "LEAK"


def test_growth_told_above_an_lmdeploy_log_that_ends_in_a_serving_oom_is_a_leak():
    words = ["pytorch engine: GPU memory slowly increases over ~20h of serving, then CUDA OOM and engine dead", "",
             "After start nvidia-smi shows about 35.9 GB. Then it slowly goes up while serving: ~36.8 GB after 4h, 37.9 "
             "GB after 10h, and around 20h it is at 39.6 GB and the engine crashes with CUDA OOM.", ""]
    log = ["```", "lmdeploy serve api_server Qwen/Qwen2.5-7B-Instruct --backend pytorch --server-port 23333", "```", "",
           "2025-06-02 08:00:01,002 - lmdeploy - INFO - builder.py:64 - matching vision model: None",
           "HINT:    Please open http://0.0.0.0:23333 in a browser for detailed api usage!!!",
           "INFO:     Uvicorn running on http://0.0.0.0:23333 (Press CTRL+C to quit)",
           'INFO:     10.0.0.7:40112 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
           "2025-06-03 04:11:09,551 - lmdeploy - ERROR - model_agent.py:705 - Task <ModelAgentLoop> failed",
           "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 592.00 MiB. GPU 0 has a total capacity of "
           "39.38 GiB of which 101.06 MiB is free."]
    assert kind_of(words + log)[0] == "LEAK"


def test_a_serving_oom_under_words_of_no_growth_stays_runtime():
    assert kind_of(["CUDA OOM after a few long prompts", ""] + _SERVED_OOM)[0] == "RUNTIME"


# --- TGI's "`max_total_tokens` must be <= `max_batch_total_tokens`": the launcher's check of two limits the user passed,
# before any shard started, is an argument error; the router's same words after its warm-up measured the pool are the
# KV ledger (h291/13, h300/14) ------------------------------------------------------------------------------------------

_TGI_ARGS = ["2025-03-01T10:00:00.000000Z  INFO text_generation_launcher: Args {",
             "    model_id: \"meta-llama/Llama-3.1-8B-Instruct\",", "    max_total_tokens: Some(", "        32768,", "    ),",
             "}"]
_TGI_REFUSED = 'Error: ArgumentValidation("`max_total_tokens` must be <= `max_batch_total_tokens`. Given: 32768 and 16000")'


def test_tgis_launcher_refusing_two_limits_is_a_bad_argument():
    assert kind_of(_TGI_ARGS + [_TGI_REFUSED]) == ("NOT_OOM", "bad-argument")


def test_tgis_router_after_its_warmup_is_the_kv_ledger():
    warmed = ["2025-03-01T10:00:30.000000Z  INFO shard-manager: text_generation_launcher: Shard ready in 28.1s rank=0",
              "2025-03-01T10:00:31.000000Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:125: Warming up model",
              "2025-03-01T10:00:35.000000Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:137: Setting max "
              "batch total tokens to 16000"]
    assert kind_of(_TGI_ARGS + warmed + [_TGI_REFUSED])[0] == "KV_CAPACITY"


# --- vLLM's ulimit warning names an error that could follow ("This can cause fd limit errors like `OSError: [Errno 24]
# Too many open files`"): the start-up goes on, no failure; SGLang's check that the GPUs have memory alike ("The memory
# capacity is unbalanced") is another process on one of them (review 37 #1, #3) -----------------------------------------

_ULIMIT = ("WARNING 08-30 11:20:01 utils.py:1234] Found ulimit of 1024 and failed to automatically increase with error "
           "current limit exceeds maximum limit. This can cause fd limit errors like `OSError: [Errno 24] Too many "
           "open files`. Consider increasing with ulimit -n")


def test_vllms_ulimit_warning_is_no_failure():
    lines = ["INFO 08-30 11:20:01 api_server.py:459] vLLM API server version 0.5.5", _ULIMIT,
             "INFO 08-30 11:20:14 model_runner.py:890] Loading model weights took 13.5083 GB",
             "INFO:     Application startup complete.", 'INFO:     10.4.0.2:55104 - "POST /v1/completions HTTP/1.1" 200 OK']
    assert kind_of(lines)[0] == "NONE"


@pytest.mark.parametrize("line", ["WARNING 05-01 10:00:00 [x.py:1] This may cause errors like `RuntimeError: stream "
                                  "capture invalidated` on older drivers.",
                                  "WARNING: disabling it could lead to crashes such as 'ValueError: bad block table'."])
def test_an_error_a_warning_says_could_follow_is_no_failure(line):
    lines = ["INFO:     Application startup complete.", line,
             'INFO:     10.4.0.2:55104 - "POST /v1/completions HTTP/1.1" 200 OK']
    assert kind_of(lines)[0] == "NONE"


@pytest.mark.parametrize("error", [
    "ValueError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes. "
    "min_per_gpu_memory=41.37, local_gpu_memory=78.92, local_gpu_memory * 0.9=71.03",
    "RuntimeError: The memory capacity is unbalanced. min_per_gpu_memory=20.1, pre_model_load_memory=78.9",
])
def test_sglangs_unbalanced_gpus_is_another_process_not_memory(error):
    lines = ["[2025-03-05 10:20:44] server_args=ServerArgs(model_path='meta-llama/Llama-3.3-70B-Instruct', tp_size=4)",
             "[2025-03-05 10:20:53 TP0] Init torch distributed begin.",
             "[2025-03-05 10:20:56 TP3] Scheduler hit an exception: Traceback (most recent call last):",
             '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 304, in init_torch_distributed',
             error]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "gpu-memory-unbalanced")
    assert "CUDA_VISIBLE_DEVICES" in run.message


# --- llama-bench killed between "benchmark i/n: starting" and its warm-up is loading that test's model; its footer's
# "build: <commit> (<number>)" is read for the number (h302/05) --------------------------------------------------------

def test_llama_bench_killed_after_starting_a_test_is_the_weights():
    lines = ["$ ./llama-bench -m llama-3.1-8b.Q4_K_M.gguf,llama-3.1-70b.Q8_0.gguf -mmp 0 -p 512 -n 128",
             "llama-bench: benchmark 1/2: starting", "llama-bench: benchmark 1/2: warmup prompt run",
             "llama-bench: benchmark 1/2: prompt run 1/5",
             "| llama 8B Q4_K - Medium |   4.58 GiB |     8.03 B | CPU        |      16 |         pp512 |     61.20 ± 0.31 |",
             "llama-bench: benchmark 2/2: starting", "Killed"]
    assert kind_of(lines)[0] == "WEIGHTS"


@pytest.mark.parametrize("line, build", [("build: 7eee341b (3906)", 3906), ("build: 3906 (7eee341b)", 3906),
                                         ("main: build = 2408 (8030da7a)", 2408)])
def test_llama_cpps_build_number_in_either_order(line, build):
    assert run_of(diag("\n".join([line, "llama_model_loader: loaded meta data with 21 key-value pairs"]))).numbers.get(
        "llama_build") == build


# --- LMDeploy's environment check ("<CUDA> check failed!", its cause on the next line in red) is not memory (h303/07) -----

@pytest.mark.parametrize("what", ["CUDA", "Transformers", "Model"])
def test_lmdeploys_environment_check_is_not_memory(what):
    lines = ["2025-07-14 16:20:30,001 - lmdeploy - INFO - async_engine.py:260 - input backend=pytorch",
             f"2025-07-14 16:20:31,882 - lmdeploy - ERROR - base.py:54 - <{what}> check failed!",
             "\x1b[31mmodel_format=fp8 requires sm>=9.0.\x1b[0m"]
    assert kind_of(lines) == ("NOT_OOM", "environment-check-failed")


# --- -ngl sized from the model's own layer count, not from the -ngl asked for (99 on an 80-layer model puts its 80 and
# the output layer on the GPU): the share of the buffer that failed per layer (h297/01, h300/08) ----------------------

@pytest.mark.parametrize("count", ["print_info: n_layer          = 80",
                                   "llm_load_print_meta: n_layer          = 80",
                                   "llama_model_loader: - kv   4:                          llama.block_count u32              = 80"])
def test_fewer_layers_are_sized_from_the_models_layer_count(count):
    lines = ["llama-server -m Llama-3.3-70B-Instruct-Q4_K_M.gguf -ngl 99 -c 8192",
             "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 4090) - 23654 MiB free", count,
             "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 39977.00 MiB on device 0: cudaMalloc failed: out of memory",
             "alloc_tensor_range: failed to allocate CUDA0 buffer of size 41918414848",
             "llama_model_load: error loading model: unable to allocate CUDA0 buffer"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS"
    assert "-ngl 43" in flags(run).split(" | ")


# --- systemd's "Main process exited, code=exited, status=0/SUCCESS" after a start-up that died is no request served
# (TGI's router ends a request's line with ": Success", in its case) (h301/01) -------------------------------------------

def test_systemds_success_exit_after_a_failed_start_is_no_serving():
    j = "Sep 12 10:02:12 gpu-node03 vllm-serve[18422]: "
    lines = [j + "INFO 09-12 10:01:40 api_server.py:440] vLLM API server version 0.5.5",
             j + "INFO 09-12 10:01:50 model_runner.py:879] Starting to load model mistralai/Mixtral-8x7B-Instruct-v0.1...",
             j + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 896.00 MiB. GPU 0 has a total capacity of "
                 "79.15 GiB of which 481.31 MiB is free.",
             j + "ERROR 09-12 10:02:20 api_server.py:171] RPCServer process died before responding to readiness probe",
             "Sep 12 10:02:21 gpu-node03 systemd[1]: vllm-serve.service: Main process exited, code=exited, status=0/SUCCESS"]
    assert kind_of(lines)[0] == "WEIGHTS"


# --- a traceback flattened onto one line (literal "\n" between its frames): its frames in the order they stand, the
# innermost last, decide, not their text's alphabetical order (h303/06, a confidently wrong WEIGHTS) ----------------------

def _flat(frames_: list[str], error: str) -> str:
    body = "".join(f'  File "{path}", line {ln}, in {fn}\\n    {code}\\n' for path, ln, fn, code in frames_)
    return "Process mp_engine_proc:\\nTraceback (most recent call last):\\n" + body + error


_LMD = "/opt/conda/lib/python3.10/site-packages/lmdeploy/pytorch"
_OOM6 = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 6.00 MiB. GPU 0 has a total capacity of 22.05 GiB"


@pytest.mark.parametrize("inner, kind", [
    ([(_LMD + "/engine/executor/base.py", 197, "init", "self.warmup()"),
      (_LMD + "/backends/cuda/graph_runner.py", 111, "capture", "output = self.model(**padded_kwargs)")], "WARMUP"),
    ([(_LMD + "/engine/model_agent.py", 300, "build_model", "self._load_weights()"),
      (_LMD + "/weight_loader/model_weight_loader.py", 150, "load_model_weights", "param.copy_(weight)")], "WEIGHTS"),
])
def test_a_flattened_tracebacks_innermost_frame_decides(inner, kind):
    outer = [(_LMD + "/engine/mp_engine/zmq_engine.py", 92, "_mp_proc", "engine = Engine.from_pretrained("),
             (_LMD + "/engine/engine.py", 456, "from_pretrained", "return cls(model_path=pretrained_model_name_or_path,")]
    lines = ["2025-09-03 11:02:07,913 - lmdeploy - INFO - base.py:188 - Building Model.", _flat(outer + inner, _OOM6)]
    assert kind_of(lines)[0] == kind


# --- a report's title that quotes a warning the engine printed and went on from (ggml's pinned-memory fallback): no
# failure of its own over a log that serves (h299/17) ------------------------------------------------------------------

_PINNED = ["ggml_cuda_host_malloc: failed to allocate 2706.50 MiB of pinned memory: out of memory",
           "llm_load_tensors:        CPU buffer size =  2706.50 MiB",
           "llm_load_tensors:      CUDA0 buffer size =  4893.02 MiB",
           "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
           "request: POST /v1/chat/completions 127.0.0.1 200"]


@pytest.mark.parametrize("title", ['KoboldCpp WSL2: "failed to allocate pinned memory: out of memory" - is my setup broken?',
                                   'Is “failed to allocate pinned memory” a problem? It still answers'])
def test_a_title_quoting_a_warning_the_engine_went_on_from_is_no_failure(title):
    assert kind_of([title, ""] + _PINNED)[0] == "NONE"


def test_a_title_quoting_an_error_the_log_does_not_warn_of_is_still_read():
    title = 'Server dies: "CUDA error: out of memory" after a few requests'
    lines = [title, ""] + _PINNED + ["CUDA error: out of memory", "  current device: 0, in function alloc at ggml-cuda.cu:380"]
    assert kind_of(lines)[0] == "RUNTIME"
