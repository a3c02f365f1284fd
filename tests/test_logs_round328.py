"""`vramdoctor logs` on the kinds of fault the held-out rounds 328 and later (issue 6, stop 39) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import re

import pytest

from logcase import diag, run_of


def said(run) -> str:
    """All of a run's advice, every field, joined."""
    return " | ".join(" ".join(str(v) for v in a.values()) for a in run.advice)


# --- Ray's tag for a worker on another node, "(RayWorkerWrapper pid=206994, ip=192.168.10.25)", is a log prefix: the
# traceback's lines under it are its own lines, not one frame wrapped onto the next -----------------------------------

def _ray(tag: str, lines: list[str]) -> list[str]:
    return [f"({tag}) ERROR 03-27 10:29:13 [worker_base.py:620] {t}" for t in lines]


_V0_CAPTURE = ["Error executing method 'initialize_cache'. This might cause deadlock in distributed execution.",
               "Traceback (most recent call last):",
               '  File "/usr/lib/python3.12/site-packages/vllm/worker/worker_base.py", line 612, in execute_method',
               "    return run_method(self, method, args, kwargs)",
               '  File "/usr/lib/python3.12/site-packages/vllm/worker/worker.py", line 308, in initialize_cache',
               "    self._warm_up_model()",
               '  File "/usr/lib/python3.12/site-packages/vllm/worker/worker.py", line 338, in _warm_up_model',
               "    self.model_runner.capture_model(self.gpu_cache)",
               '  File "/usr/lib/python3.12/site-packages/vllm/worker/model_runner.py", line 1562, in capture_model',
               "    graph_runner.capture(**capture_inputs)",
               '  File "/usr/lib/python3.12/site-packages/vllm/model_executor/layers/fused_moe/fused_moe.py", line 1255, '
               "in fused_experts_impl",
               "    intermediate_cache1 = torch.empty((M, topk_ids.shape[1], N),",
               "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 6 has a total capacity of "
               "44.53 GiB of which 448.00 KiB is free."]
_V0_START = ["INFO 03-27 10:28:57 [model_runner.py:1146] Model loading took 20.6367 GB and 281.44 seconds",
             "INFO 03-27 10:29:02 [executor_base.py:111] # cuda blocks: 38104, # CPU blocks: 7281"]


@pytest.mark.parametrize("tag", ["RayWorkerWrapper pid=206994, ip=192.168.10.25", "pid=4012, ip=10.0.0.7",
                                 "RayWorkerVllm pid=88, ip=gpu-node-3.cluster.local"])
def test_a_ray_workers_tag_with_its_node_is_a_log_prefix(tag):
    run = run_of(diag("\n".join(_V0_START + _ray(tag, _V0_CAPTURE))))
    assert (run.kind, run.code) == ("WARMUP", "cuda-graph-capture-oom"), (run.kind, run.code)


def test_a_ray_workers_weights_traceback_under_its_node_tag():
    frames = ["Error executing method 'load_model'. This might cause deadlock in distributed execution.",
              "Traceback (most recent call last):",
              '  File "/opt/vllm/vllm/worker/worker.py", line 183, in load_model',
              "    self.model_runner.load_model()",
              '  File "/opt/vllm/vllm/model_executor/model_loader/loader.py", line 364, in load_model',
              "    model = _initialize_model(vllm_config=vllm_config)",
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 896.00 MiB. GPU 0 has a total capacity of "
              "23.64 GiB of which 512.00 MiB is free."]
    start = "INFO 02-11 08:00:00 [llm_engine.py:237] Initializing an LLM engine (v0.7.3) with config: model='x'"
    run = run_of(diag("\n".join([start] + _ray("RayWorkerWrapper pid=51, ip=10.2.0.14", frames))))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


# --- an issue title whose tracker tag has its colon and no space, "[Bug]:torch.OutOfMemoryError: ...", is the report's
# title: the log's own line of the error decides ---------------------------------------------------------------------

@pytest.mark.parametrize("title", [
    "[Bug]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 6 has a total capacity of "
    "44.53 GiB of which 448.00 KiB is free.",
    "[Usage]:CUDA out of memory when capturing graphs on 4 nodes",
    "[Bug]:  OOM with DeepSeek-R1 on L40S",
])
def test_a_title_tag_with_its_colon_and_no_space_is_the_title(title):
    run = run_of(diag("\n".join([title, ""] + _V0_START + _ray("RayWorkerWrapper pid=7, ip=10.0.0.2", _V0_CAPTURE))))
    assert (run.kind, run.code) == ("WARMUP", "cuda-graph-capture-oom"), (run.kind, run.code)


# --- a person's sentence after the log that quotes the load's own figures ("should be larger than ROCm0 model buffer
# size = 17827.35 MiB + ...") is no restart of the server: the failure the log shows decides -------------------------

_LLAMA_COMPUTE = [
    "load_tensors: offloaded 81/81 layers to GPU",
    "load_tensors:        ROCm0 model buffer size = 17827.35 MiB",
    "llama_context: n_ctx         = 20480",
    "llama_kv_cache:      ROCm0 KV buffer size =  3280.00 MiB",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 14136.04 MiB on device 0: cudaMalloc failed: out of memory",
    "ggml_gallocr_reserve_n: failed to allocate ROCm0 buffer of size 14822711296",
    "graph_reserve: failed to allocate compute buffers",
    "llama_init_from_model: failed to initialize the context: failed to allocate compute pp buffers",
    "srv    load_model: failed to load model, 'models/Apertus-70B-IQ4_XS.gguf'",
    "main: exiting due to model loading error",
    "",
]


@pytest.mark.parametrize("words", [
    "Loading fails despite that the reported VRAM (eg for ROCm0) is 24524 MiB, which should be larger than ROCm0 model "
    "buffer size = 17827.35 MiB + ROCm0 KV buffer size = 3280.00 MiB. Unless I'm missing something?",
    "Why does it fail? ROCm0 model buffer size = 17827.35 MiB and the KV buffer size = 3280.00 MiB fit in 24 GB.",
    "I do not understand: CUDA0 model buffer size = 17827.35 MiB is far below what the card has",
])
def test_a_sentence_quoting_the_loads_figures_is_no_restart(words):
    rep = diag("\n".join(_LLAMA_COMPUTE + [words]))
    run = run_of(rep)
    assert (run.kind, run.code) == ("WARMUP", "compute-buffer-alloc-failed"), (run.kind, run.code)
    assert len(rep.runs) == 1, [r.kind for r in rep.runs]


def test_the_servers_own_load_line_after_a_failure_is_still_a_restart():
    again = ["load_tensors:        ROCm0 model buffer size = 17827.35 MiB",
             "llama_kv_cache:      ROCm0 KV buffer size =  1640.00 MiB",
             "main: server is listening on http://0.0.0.0:8080 - starting the main loop"]
    rep = diag("\n".join(_LLAMA_COMPUTE + again))
    assert len(rep.runs) == 2, [r.kind for r in rep.runs]


# --- SGLang's own words for a pool it could not size, as each version wrote them ------------------------------------

@pytest.mark.parametrize("error", [
    "RuntimeError: Not enought memory. Please try to increase --mem-fraction-static.",
    "RuntimeError: Not enough memory to allocate KV cache.",
    "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
])
def test_sglangs_pool_refusal_in_each_versions_words(error):
    lines = ["server_args=ServerArgs(model_path='mistralai/Mistral-7B-Instruct-v0.2', mem_fraction_static=0.9)",
             "Rank 0: load weight end.",
             "Traceback (most recent call last):",
             '  File "/venv/lib/python3.11/site-packages/sglang/srt/managers/router/model_runner.py", line 272, in '
             "__init__",
             "    self.init_memory_pool(total_gpu_memory)",
             '  File "/venv/lib/python3.11/site-packages/sglang/srt/managers/router/model_runner.py", line 331, in '
             "init_memory_pool",
             "    raise RuntimeError(",
             error]
    rep = diag("\n".join(lines))
    run = run_of(rep)
    assert rep.engine == "sglang", rep.engine
    assert (run.kind, run.code) == ("KV_CAPACITY", "no-memory-for-kv-cache"), (run.kind, run.code)


# --- a milestone the report's words give first ("I can send some messages at first", above the log), then a program's
# own line of it (text-generation-webui's bare "Output generated in ..."): the program's line shows it, and the failure
# cannot go back before it (a prefill's frames, `preprocess_only=True`, are no warm-up once requests were answered) ---

_TEXTGEN_SERVED = [
    "16:38:19-311502 INFO     Loaded \"Meta-Llama-3.1-70B-Instruct-6.0bpw-h6-exl2\" in 98.52 seconds.",
    "16:38:19-312644 INFO     LOADER: \"ExLlamav2_HF\"",
    "Output generated in 21.47 seconds (9.22 tokens/s, 198 tokens, context 2871, seed 1204817350)",
    "Output generated in 27.63 seconds (8.83 tokens/s, 244 tokens, context 5893, seed 1519920378)",
    "Traceback (most recent call last):",
    '  File "/home/u/text-generation-webui/modules/text_generation.py", line 398, in generate_with_callback',
    "    shared.model.generate(**kwargs)",
    '  File "/home/u/text-generation-webui/modules/exllamav2_hf.py", line 140, in __call__',
    "    self.ex_model.forward(seq_tensor[longest_prefix:-1].view(1, -1), ex_cache, preprocess_only=True, loras=self.loras)",
    '  File "/home/u/env/lib/python3.11/site-packages/exllamav2/attn.py", line 902, in _attn_torch',
    "    attn_weights = torch.matmul(q_states, k_states)",
    "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 6.26 GiB. GPU 1 has a total capacity of 23.98 GiB of "
    "which 5.07 GiB is free.",
]


@pytest.mark.parametrize("words", [
    "I can send some messages to the AI in the chat tab at first, but as soon as the context passes 6 - 7K, it gives "
    "me an OOM error.",
    "The first few requests work, then it runs out of memory once the chat gets long.",
])
def test_the_programs_own_serving_line_after_the_reports_words_is_a_floor(words):
    run = run_of(diag("\n".join([words, ""] + _TEXTGEN_SERVED)))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- a report in Chinese: an error denied by what the user sees (日志里看不到报错) states no failure; its numbered list
# ("1.每一次...") is the user's words; memory added up at each request or never given back is a leak -------------------

_XINFERENCE = [
    "2024-06-29 09:12:47,512 xinference.api.restful_api 1 INFO     Starting Xinference at endpoint: http://0.0.0.0:9997",
    "2024-06-29 09:12:47,690 uvicorn.error 1 INFO     Uvicorn running on http://0.0.0.0:9997 (Press CTRL+C to quit)",
    "2024-06-29 09:14:09,866 xinference.core.worker 45 INFO     [request 6a1e] Leave launch_builtin_model, elapsed "
    "time: 7 s",
]


@pytest.mark.parametrize("denied", ["加载 bge-reranker-v2-m3，调用正常。日志里看不到报错：", "日志里没有任何报错。",
                                    "服务一直在跑，没看到错误。"])
def test_an_error_denied_in_chinese_states_no_failure(denied):
    run = run_of(diag("\n".join([denied, *_XINFERENCE])))
    assert run.kind == "NONE", (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "1.每一次搜索调用模型后，显存就会累加一次（大概 5G），4，5次24G显存就已占满",
    "2.显存会一直处于被占状态，不会自动释放，需要手动关闭对应模型才会释放显存",
    "3、每次请求之后内存都会叠加一点",
])
def test_a_numbered_chinese_item_of_memory_kept_is_a_leak(said):
    run = run_of(diag("\n".join([*_XINFERENCE, "", "主要问题现象：", said])))
    assert (run.kind, run.code) == ("LEAK", "memory-growth-stated"), (run.kind, run.code)


# --- a request logged with its prompt whole, longer than the line window (16 KiB), whose out-of-memory words come far
# into the prompt: the window keeps the line's start, which says it is a prompt, so the words are the user's text -----

_VLLM_SERVING = ["INFO 06-01 09:00:00 [gpu_model_runner.py:1595] Model loading took 15.27 GiB and 6.1 seconds",
                 "INFO 06-01 09:00:20 [kv_cache_utils.py:716] GPU KV cache size: 301,184 tokens",
                 "INFO 06-01 09:00:30 [api_server.py:1043] Starting vLLM API server on http://0.0.0.0:8000"]


@pytest.mark.parametrize("head, tail", [
    ("INFO 06-01 09:10:00 [logger.py:43] Received request chatcmpl-9: prompt: 'Please summarise: ",
     "', params: SamplingParams(n=1, max_tokens=512), prompt_token_ids: None, lora_request: None."),
    ("INFO 06-01 09:10:00 logger.py:37] Received request cmpl-4f1e: prompt: '<|user|>\\n",
     "', params: SamplingParams(n=1, temperature=0.0, max_tokens=64), prompt_token_ids: [1, 2, 3], lora_request: None"),
])
@pytest.mark.parametrize("lead", [1500, 3000])
def test_out_of_memory_words_deep_in_a_long_logged_prompt_are_its_text(head, tail, lead):
    prompt = ("lorem ipsum " * lead + "torch.OutOfMemoryError: CUDA out of memory while loading weights "
              + "dolor sit " * 1500)
    lines = _VLLM_SERVING + [head + prompt + tail, 'INFO:     10.0.0.5:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "NONE", (run.kind, run.code)


# --- a server vramdoctor does not know: its own words that the model is ready, or that a request failed, place the
# failure; lines before a failure that name no known step are no "log that begins at the failure" ---------------------

@pytest.mark.parametrize("lines", [
    ["2025-03-01 10:00:00 | INFO | myserver | starting inference worker on cuda:0",
     "2025-03-01 10:00:05 | INFO | myserver | model ready",
     "2025-03-01 10:05:00 | ERROR | myserver | request 17 failed: RuntimeError: CUDA error: out of memory"],
    ["[2025-03-01 10:00:00] llmsrv: loading weights from /models/q.bin",
     "[2025-03-01 10:00:09] llmsrv: server is ready to accept requests",
     "[2025-03-01 10:02:00] llmsrv: error processing request abc12: torch.OutOfMemoryError: CUDA out of memory. "
     "Tried to allocate 1.00 GiB"],
])
def test_an_unknown_servers_own_ready_and_request_lines_place_its_failure(lines):
    rep = diag("\n".join(lines))
    run = run_of(rep)
    assert run.kind == "RUNTIME", (run.kind, run.code, run.missing)


def test_lines_before_a_failure_that_name_no_known_step_are_not_a_log_begun_at_the_failure():
    run = run_of(diag("\n".join(["2025-03-01 10:00:00 | INFO | myserver | starting inference worker on cuda:0",
                                 "2025-03-01 10:00:05 | INFO | myserver | loading shards",
                                 "2025-03-01 10:05:00 | ERROR | myserver | RuntimeError: CUDA error: out of memory"])))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)
    assert "begins at the failure" not in run.missing, run.missing


@pytest.mark.parametrize("line", ["Is the model ready? It never says so.", "Once the model is ready it should serve."])
def test_a_question_or_condition_of_readiness_is_no_milestone(line):
    rep = diag("\n".join([line, "RuntimeError: CUDA error: out of memory"]))
    assert "ready" not in run_of(rep).progress, run_of(rep).progress


# --- the end of the output pasted first, the start-up below it ("Here's the end of the output first, full startup
# below", "报错信息先贴在这里（启动命令和前面的日志在下面）"): the start-up that stops inside its traceback, or whose failure
# only the report's words tell, is the same run; the end's error line decides -----------------------------------------

_TAIL = ['[rank0]:   File "/venv/lib/python3.11/site-packages/aphrodite/modeling/loader.py", line 103, in get_model',
         "[rank0]:     model = _initialize_model(model_config, load_config, lora_config)",
         '[rank0]:   File "/venv/lib/python3.11/site-packages/aphrodite/quantization/exl2.py", line 90, in create_weights',
         "[rank0]:     torch.empty(input_size_per_partition // 32 * self.quant_config.weight_bits,",
         "[rank0]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 216.00 MiB. GPU 0 has a total "
         "capacity of 47.50 GiB of which 139.06 MiB is free."]
_START = ["INFO:     Initializing the Aphrodite Engine (v0.5.3) with the following config:",
          "INFO:     Model = 'Dracones/c4ai-command-r-plus_exl2_5.5bpw'",
          "INFO:     Number of GPUs = 1",
          "INFO:     Using FlashAttention backend."]


@pytest.mark.parametrize("intro, end", [
    ("Here's the end of the output first, full startup below.",
     ["[rank0]: Traceback (most recent call last):", '[rank0]:   File "<frozen runpy>", line 198, in _run_module_as_main']),
    ("报错信息先贴在这里（启动命令和前面的日志在下面）：",
     ["", "启动后一直到这一步就挂了，还是同样的显存报错。"]),
    ("Error first (the log before it is below):",
     ["Traceback (most recent call last):"]),
])
def test_the_outputs_end_pasted_above_its_start_up_decides(intro, end):
    rep = diag("\n".join(["[Bug]: CUDA out of memory with exl2 5.5bpw on 4x RTX 6000 Ada", "", intro, "", *_TAIL, "",
                          *_START, *end]))
    run = run_of(rep)
    assert (run.kind, run.code) == ("WEIGHTS", "weights-alloc-failed"), (run.kind, run.code, len(rep.runs))


def test_an_earlier_run_with_a_start_up_of_its_own_does_not_stand_for_a_later_cut_one():
    again = [t.replace("5.5bpw", "4.0bpw").replace("v0.5.3", "v0.5.4") for t in _START]  # (a restart, upgraded)
    rep = diag("\n".join([*_START, *_TAIL, "", *again, "[rank0]: Traceback (most recent call last):"]))
    assert run_of(rep).kind == "UNDETERMINED", (run_of(rep).kind, run_of(rep).code)


# --- a title with two tracker tags, "[Bug] [ROCm] Memory access fault ...", is the report's title: the failure the log's
# own lines show decides, not the one the title names ----------------------------------------------------------------

_SGLANG_POOL = [
    "[2025-07-02 07:41:58 DP0 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=21.73 "
    "GB, mem usage=166.59 GB.",
    "[2025-07-02 07:41:59 DP0 TP0] max_total_tokens=131072 is larger than the profiled value -561981. Use the profiled "
    "value instead.",
    "[2025-07-02 07:41:59 DP0 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 1081, in init_memory_pool',
    "    raise RuntimeError(",
    "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
]


@pytest.mark.parametrize("title", ["[Bug] [ROCm] Memory access fault on GSM8K benchmark when using DeepSeek R1 + DP",
                                   "[Bug][AMD] illegal memory access with dp attention",
                                   "[Usage]: [V1] NCCL error: unhandled system error on 8 GPUs"])
def test_a_title_with_two_tags_yields_to_the_logs_own_failure(title):
    run = run_of(diag("\n".join([title, "", *_SGLANG_POOL])))
    assert (run.kind, run.code) == ("KV_CAPACITY", "no-memory-for-kv-cache"), (run.kind, run.code)


# --- tabbyAPI loading another model while it serves (inline model loading, a model switch): that load is a run of its
# own, and an out-of-memory in its frames is that model's weights, also under docker compose's prefix -----------------

def _tabby(prefix: str) -> list[str]:
    lines = ["2025-03-14 11:04:40.100 INFO:     Loading model: /app/models/Qwen2.5-32B-Instruct-exl2-6.0bpw",
             "2025-03-14 11:04:58.100 INFO:     Model successfully loaded.",
             '2025-03-14 11:04:59.018 INFO:     172.18.0.1:51642 - "POST /v1/chat/completions HTTP/1.1" 200',
             "2025-03-14 11:04:59.112 INFO:     Unloading existing model.",
             "2025-03-14 11:05:03.020 INFO:     Loading model: /app/models/Mistral-Small-24B-Instruct-2501-exl2-8.0bpw",
             "2025-03-14 11:05:29.634 ERROR:    Traceback (most recent call last):",
             '2025-03-14 11:05:29.634 ERROR:      File "/usr/local/lib/python3.10/dist-packages/exllamav2/model.py", '
             "line 446, in load_gen",
             "2025-03-14 11:05:29.634 ERROR:        module.load()",
             '2025-03-14 11:05:29.634 ERROR:      File "/usr/local/lib/python3.10/dist-packages/exllamav2/device.py", '
             "line 81, in prepare",
             "2025-03-14 11:05:29.634 ERROR:    torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 260.00 MiB. "
             "GPU 1 has a total capacity of 23.53 GiB of which 190.50 MiB is free.",
             '2025-03-14 11:05:29.642 INFO:     172.18.0.1:51650 - "POST /v1/chat/completions HTTP/1.1" 500']
    return [prefix + t for t in lines]


@pytest.mark.parametrize("prefix", ["", "tabbyapi-1  | "])
def test_tabbys_model_loaded_while_serving_is_a_load_of_its_own(prefix):
    rep = diag("\n".join(_tabby(prefix)))
    run = run_of(rep)
    assert run.kind == "WEIGHTS", (run.kind, run.code, [r.kind for r in rep.runs])
    # the server answered a request before this load: the message must not say "before any request"
    assert "before any request" not in run.message and "before that model served" in run.message, run.message


# --- an error whose message is only a number (an exit or status code, "Error: 18446744072635810000") names no cause:
# not "an error that is not memory" ------------------------------------------------------------------------------------

_LMSTUDIO_FAILED = ["2025-08-07 16:46:07 [ERROR]", " Error loading model.", "",
                    "(Exit code: 18446744072635810000). Unknown error. Try a different model and/or config."]


@pytest.mark.parametrize("said", ["Unable to run any model. All models end with Error: 18446744072635810000",
                                  "Every load ends with error: -1073740791",
                                  "Loading fails: Error: (0xC0000005)"])
def test_an_error_that_is_only_a_code_names_no_cause(said):
    run = run_of(diag("\n".join([said, "", *_LMSTUDIO_FAILED])))
    assert run.code != "error-not-memory", (run.kind, run.code)


def test_a_windows_status_code_with_its_own_meaning_keeps_it():
    run = run_of(diag("llama runner process has terminated: exit status 0xc00000fd"))
    assert run.code == "stack-overflow", (run.kind, run.code)


# --- a client that hung up (BrokenPipeError) while the server went on answering is no end of the run: the failure
# that ended it after (Metal's out-of-memory abort) decides, with or without a title above ----------------------------

_BROKEN_PIPE = ["----------------------------------------",
                "Exception occurred during processing of request from ('127.0.0.1', 51822)",
                "Traceback (most recent call last):",
                '  File "/opt/homebrew/lib/python3.12/site-packages/mlx_lm/server.py", line 1204, in handle_completion',
                "    self.wfile.flush()",
                "BrokenPipeError: [Errno 32] Broken pipe",
                "----------------------------------------"]
_OK = '127.0.0.1 - - [10/Jun/2026 09:15:02] "POST /v1/chat/completions HTTP/1.1" 200 -'


@pytest.mark.parametrize("title", ["", "`mlx_lm.server` aborts with Metal OOM after a while"])
def test_a_client_that_hung_up_is_no_end_of_the_run(title):
    lines = ([title, ""] if title else []) + [
        "2026-06-10 09:12:03,114 - INFO - Starting httpd at 127.0.0.1 on port 8080...", _OK, *_BROKEN_PIPE, _OK,
        *_BROKEN_PIPE, _OK, _OK,
        "libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution "
        "failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)"]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("RUNTIME", "metal-command-buffer-oom"), (run.kind, run.code)


# --- an error whose words say only that a call into the system failed ("A call to an OS function failed.", "The
# operation failed.") names no cause: undetermined, not "an error that is not memory" --------------------------------

@pytest.mark.parametrize("error", ["Error: [Model_Load] A call to an OS function failed.",
                                   "RuntimeError: A call to an OS function failed",
                                   "Error: [Context] The operation failed."])
def test_a_system_call_that_failed_names_no_cause(error):
    run = run_of(diag("\n".join(['Loading model "Meta-Llama-3-8B-Instruct-64k.Q4_K_M"...', error])))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


# --- a Jetson's Tegra memory manager the process may not open (NvRmMemInit): CUDA sees no GPU and the server runs on
# the CPU; not "no memory problem" -----------------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["Nov 27 16:54:51 jetson ollama[7008]: 2023/11/27 16:54:51 routes.go:777: Listening on 127.0.0.1:11434 (version "
     "0.1.11)",
     "Nov 27 16:54:54 jetson ollama[7008]: NvRmMemInitNvmap failed with Permission denied",
     "Nov 27 16:54:54 jetson ollama[7008]: ****NvRmMemInit failed**** error type: 196626",
     "Nov 27 16:54:54 jetson ollama[7008]: 2023/11/27 16:54:54 llama.go:300: no GPU detected",
     'Nov 27 16:55:31 jetson ollama[7008]: [GIN] 2023/11/27 - 16:55:31 | 200 | 36.4s | 127.0.0.1 | POST "/api/generate"'],
    ["NvRmMemInitNvmap failed with Permission denied",
     "****NvRmMemInit failed**** error type: 196626",
     "ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected",
     "main: server is listening on http://127.0.0.1:8080 - starting the main loop"],
])
def test_a_jetsons_memory_manager_refused_is_no_gpu(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "cuda-driver-error"), (run.kind, run.code)


# --- a Metal buffer that took the allocations past the GPU's recommended working set (ggml-metal's own warning) in a
# run that never got ready: macOS pages the GPU's memory and the start-up crawls; the buffer names the ledger ---------

def _metal(buffer: str, size: str, total: str) -> list[str]:
    return ["llama_new_context_with_model: n_ctx      = 200000",
            "ggml_metal_init: recommendedMaxWorkingSetSize  = 10922.67 MB",
            f"ggml_metal_add_buffer: allocated '{buffer:<16}' buffer, size = {size} MB, ({total} / 10922.67), warning: "
            "current allocated size is greater than the recommended max working set size"]


@pytest.mark.parametrize("head", [[], ["2023/11/16 21:14:20 llama.go:400: starting llama runner"]])
def test_the_kv_buffer_past_the_working_set_in_a_start_that_never_got_ready(head):
    lines = [*head, "ggml_metal_add_buffer: allocated 'data            ' buffer, size =  3316.00 MB, ( 3316.56 / "
             "10922.67)", *_metal("kv", "12500.03", "15816.59")]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("KV_CAPACITY", "kv-exceeds-working-set"), (run.kind, run.code)


def test_the_weights_buffer_past_the_working_set_is_the_weights():
    run = run_of(diag("\n".join(_metal("data", "40543.11", "40543.66"))))
    assert (run.kind, run.code) == ("WEIGHTS", "weights-exceed-working-set"), (run.kind, run.code)


def test_the_warning_in_a_run_that_served_is_no_such_finding():
    lines = [*_metal("kv", "12500.03", "15816.59"),
             "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
             "srv  log_server_r: request: POST /completion 127.0.0.1 200"]
    run = run_of(diag("\n".join(lines)))
    assert run.code != "kv-exceeds-working-set", (run.kind, run.code)


# --- vLLM's offline LLM.generate answered its prompts (its "Processed prompts: 100%" bar, the example scripts' "Prompt:
# ..., Generated text: ..." prints): a report that something "is not working" over it shows no failure --------------

_VLLM_OFFLINE = ["INFO 04-02 12:34:38 [gpu_model_runner.py:1273] Model loading took 17.5283 GiB and 37.628151 seconds",
                 "INFO 04-02 12:34:46 [kv_cache_utils.py:578] GPU KV cache size: 89,744 tokens",
                 "Processed prompts: 100%|##########| 4/4 [00:21<00:00,  5.31s/it, est. speed input: 1.98 toks/s, "
                 "output: 12.06 toks/s]",
                 "Prompt: 'Hello, my name is', Generated text: \" Sarah and I'm a 3rd year student ...\"",
                 "Prompt: 'The capital of France is', Generated text: ' Paris. It is located in ...'"]


@pytest.mark.parametrize("title", ["[Bug]: CPU offload not working for DeepSeek-V2-Lite-Chat",
                                   "cpu_offload_gb does not work as expected"])
def test_not_working_over_offline_outputs_is_no_failure(title):
    run = run_of(diag("\n".join([title, "", *_VLLM_OFFLINE])))
    assert run.kind == "NONE", (run.kind, run.code)


def test_a_crash_told_over_offline_outputs_is_not_cleared():
    run = run_of(diag("\n".join(["[Bug]: vLLM crashes after generating with cpu offload", "", *_VLLM_OFFLINE])))
    assert run.kind != "NONE", (run.kind, run.code)


@pytest.mark.parametrize("error", [
    "RuntimeError: The device (Intel(R) Graphics [0x7d51]) doesn't support querying the available free memory. You "
    "can file an issue at https://github.com/pytorch/pytorch",
    "RuntimeError: The device (Intel(R) Arc(TM) A770 Graphics) does not support querying the available free memory",
])
def test_an_xpu_without_a_free_memory_query_is_no_memory_shortage(error):
    lines = ["ERROR 07-10 08:43:05 [core.py:586]   File \"/workspace/vllm/vllm/v1/worker/xpu_worker.py\", line 98, in "
             "determine_available_memory",
             "ERROR 07-10 08:43:05 [core.py:586]     free_gpu_memory, total_gpu_memory = torch.xpu.mem_get_info()",
             f"ERROR 07-10 08:43:05 [core.py:586] {error}"]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "device-memory-query-failed"), (run.kind, run.code)


# --- TurboMind's BlockManager prints its sizes, then allocates its first chunk of blocks: an out-of-memory in
# create_model_instance right after them is the KV pool being made, not a later step ---------------------------------

_BLOCKS = ["[TM][INFO] [BlockManager] block_size = 16 MB",
           "[TM][INFO] [BlockManager] max_block_count = 753",
           "[TM][INFO] [BlockManager] chunk_size = 753"]


@pytest.mark.parametrize("frame", ["_create_model_instance", "create_model_instance"])
def test_turbominds_first_blocks_failing_is_the_kv_pool(frame):
    lines = [*_BLOCKS, "Traceback (most recent call last):",
             f'  File "/usr/lib/python3.8/site-packages/lmdeploy/turbomind/turbomind.py", line 486, in {frame}',
             "    model_inst = self.tm_model.model_comm.create_model_instance(",
             "RuntimeError: [TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/allocator.h:231"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)


def test_turbominds_blocks_failing_while_serving_is_runtime():
    lines = [*_BLOCKS, "INFO:     Uvicorn running on http://0.0.0.0:23333 (Press CTRL+C to quit)",
             "2024-03-01 10:00:01,000 - lmdeploy - INFO - session_id=1, history_tokens=0, input_tokens=2408, "
             "max_new_tokens=2048",
             "RuntimeError: [TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/allocator.h:231"]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- the engine's own stats lines showing the KV pool creep at a steady number of running requests come before the
# report's words stating growth: with the words alone over a pool shown full, the full pool decided (RUNTIME), though
# the lines show the pool's blocks not coming back (h338/02) -----------------------------------------------------------

def _sglang_creep(title: str) -> list[str]:
    rows = [(34, 110000, 0.11, 0), (35, 380000, 0.38, 0), (33, 640000, 0.64, 0), (36, 880000, 0.88, 3),
            (35, 951000, 0.95, 12), (36, 979000, 0.98, 40)]
    return [title, "",
            "[2025-06-02 08:10:01] max_total_num_tokens=997952, chunked_prefill_size=8192, max_prefill_tokens=16384, "
            "max_running_requests=4097, context_len=32768",
            "[2025-06-02 08:10:04] INFO:     Application startup complete.",
            *[f"[2025-06-02 {9 + i:02d}:00:00 TP0] Decode batch. #running-req: {r}, #token: {t}, token usage: {u:.2f}, "
              f"cuda graph: True, gen throughput (token/s): 1200.00, #queue-req: {q}" for i, (r, t, u, q) in
              enumerate(rows)]]


def _vllm_creep(title: str) -> list[str]:
    rows = [(20, 9.5, 0), (21, 31.0, 0), (20, 55.2, 0), (22, 81.7, 2), (21, 97.9, 14), (21, 99.4, 31)]
    return [title, "",
            "INFO 04-11 09:00:00 api_server.py:219] vLLM API server version 0.5.4",
            "INFO 04-11 09:00:40 gpu_executor.py:102] # GPU blocks: 12000, # CPU blocks: 2048",
            "INFO:     Application startup complete.",
            *[f"INFO 04-11 {10 + i:02d}:00:00 metrics.py:406] Avg prompt throughput: 610.2 tokens/s, Avg generation "
              f"throughput: 540.8 tokens/s, Running: {r} reqs, Swapped: 0 reqs, Pending: {q} reqs, GPU KV cache usage: "
              f"{u}%, CPU KV cache usage: 0.0%." for i, (r, u, q) in enumerate(rows)]]


@pytest.mark.parametrize("lines", [
    _sglang_creep("[Bug] KV cache not released after requests complete, token usage keeps growing until it hangs"),
    _sglang_creep("Memory leak: #token climbs for hours at the same load"),
    _vllm_creep("[Bug]: GPU KV cache usage keeps increasing over time, blocks seem to never be freed"),
])
def test_pool_creep_at_steady_running_is_a_leak_also_under_stated_growth(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("LEAK", "kv-cache-usage-creep"), (run.kind, run.code)


def test_stated_growth_over_a_pool_filled_by_more_requests_stays_the_full_pool():
    """The words state growth, but the running requests rose with the usage: the load filled the pool."""
    lines = _vllm_creep("GPU memory keeps growing over time until requests queue")
    rows = iter([5, 16, 30, 44, 52, 53])
    lines = [re.sub(r"Running: \d+ reqs", lambda m: f"Running: {next(rows)} reqs", ln) for ln in lines]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME" and run.code.startswith("kv-pool-full"), (run.kind, run.code)
