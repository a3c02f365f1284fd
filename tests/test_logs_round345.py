"""`vramdoctor logs` on the kinds of fault held-out rounds 345-350 (issue 6, stop 40, sources no earlier round used)
found, each with logs of our own in other engines, versions and wordings than the example. The engines' lines follow
their sources (named in `vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, kind_of, run_of


def said(run) -> str:
    """All of a run's advice, every field, joined."""
    return " | ".join(" ".join(str(v) for v in a.values()) for a in run.advice)


BARE_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of "
            "23.55 GiB of which 5.58 GiB is free. Including non-PyTorch memory, this process has 17.96 GiB memory in use.")


# --- a mode of use named against another ("batch inference mode causes OOM, while serving mode does not") is no step
# the run was in: "while serving" there is "whereas", not a request under way (h345/07) ---------------------------------

@pytest.mark.parametrize("title", [
    "[Bug]: local batch inference mode causes OOM error, while serving mode does not cause error",
    "Offline LLM.generate OOMs when serving mode is fine on the same GPU",
    "OOM in the python API, during serving mode everything works",
])
def test_a_mode_named_against_another_is_no_request_under_way(title):
    run = run_of(diag("\n".join([title, "", "vllm version: 0.5.4, gpu 24GB memory", BARE_OOM])))
    assert run.kind == "UNDETERMINED", (run.kind, run.code, run.phase_source)


def test_serving_requests_in_words_still_places_the_failure():
    run = run_of(diag("\n".join(["It OOMs while serving requests from two clients.", BARE_OOM])))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- an out-of-memory the report says it worked around with a setting now in use ("the defaults OOM, so we changed to
# GMU 0.93"): the run shown is the one that works; not where the change did not help (h345/08) --------------------------

_VLLM_SERVING = ["INFO 06-15 14:10:01 api_server.py:177] vLLM API server version 0.9.1",
                 "INFO 06-15 14:11:10 [kv_cache_utils.py:716] GPU KV cache size: 120,112 tokens",
                 "INFO:     Application startup complete.",
                 'INFO:     127.0.0.1:50312 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("words", [
    "- 官方那组 GMU 0.96 + 256K + 默认 CUDA graph 在我们这边会 OOM，所以改成了 GMU 0.93、max-num-seqs 2",
    "- The README's settings (0.96, 256K) OOM on our box, so we changed to 0.93 and max-num-seqs 2.",
    "- 默认参数显存不足，于是我们调到 --max-model-len 32768",
])
def test_an_oom_worked_around_by_the_settings_in_use_is_no_failure(words):
    lines = ["[Performance]: decode slower than the README on 4x4090", "", words, "", *_VLLM_SERVING]
    assert kind_of(lines)[0] == "NONE", kind_of(lines)


@pytest.mark.parametrize("words", [
    "- The defaults OOM on our box, so we changed to 0.93 but it still OOMs at start.",
    "- 默认参数会 OOM，所以改成了 GMU 0.9，还是 OOM",
])
def test_a_workaround_that_did_not_help_keeps_the_failure(words):
    lines = ["[Bug]: OOM at start", "", words, "", *_VLLM_SERVING[:2]]
    assert kind_of(lines)[0] != "NONE", kind_of(lines)


# --- Chinese: the error came while a named model loaded (加载Baichuan2-13B-Chat时出异常) -----------------------------------

@pytest.mark.parametrize("title", [
    "加载Baichuan2-13B-Chat时出异常，torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 50.00 MiB. GPU",
    "载入 Qwen2-72B-Instruct 的时候报错 CUDA out of memory",
    "加载glm-4-9b-chat过程中出现了OOM，显卡是4090",
])
def test_chinese_words_of_a_named_models_load_place_the_weights(title):
    run = run_of(diag("\n".join([title, "", "Collecting environment information...", "PyTorch version: 2.3.0+cu121"])))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


# --- causes that are not memory: a kernel the compiler could not build, Ascend's invalid argument (EE1001), a GPU with
# uncorrectable ECC errors, ggml's graph allocator finding a tensor without a buffer --------------------------------------

@pytest.mark.parametrize("lines, code", [
    (["(Worker_TP2 pid=131) ERROR 03-30 05:12:55 [multiproc_executor.py:880] triton.compiler.errors.MLIRCompilationError:",
      "(Worker_TP2 pid=131) ERROR 03-30 05:12:55 [multiproc_executor.py:880] loc(\"kernel.ttadapter.mlir\":2:1): error: "
      "Failed to run BiShengHIR pipeline"], "kernel-compile-error"),
    (["[2025-02-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
      '  File "/usr/local/lib/python3.10/dist-packages/triton/compiler/compiler.py", line 280, in compile',
      "triton.compiler.errors.CompilationError: at 32:12: def _fwd_kernel("], "kernel-compile-error"),
    (["ERROR 05-29 20:52:26 worker_base.py:581] [ERROR] 2025-05-29-20:52:26 (PID:1059, Device:0, RankID:-1) ERR00100 "
      "PTA call acl api failed.",
      "ERROR 05-29 20:52:26 worker_base.py:581] EE1001: [PID: 1059] 2025-05-29-20:52:24.655.114 The argument is "
      "invalid.Reason: Memory async failed, src loc type=1, dst loc type=1, kind=1 is invalid!"], "npu-invalid-argument"),
    (["The server stops answering after two days; a hardware problem: GPU 3's Volatile Uncorr. ECC shows 2"],
     "gpu-ecc-error"),
    (["有一张卡的Volatile Uncorr. ECC 报1了"], "gpu-ecc-error"),
    (['time=2025-04-25T15:57:38.186Z level=INFO source=server.go:619 msg="llama runner started in 6.32 seconds"',
      "ggml-alloc.c:819: GGML_ASSERT(talloc->buffer_id >= 0) failed", "SIGABRT: abort"], "ggml-assert"),
])
def test_causes_that_are_not_memory(lines, code):
    assert kind_of(lines) == ("NOT_OOM", code)


def test_no_ecc_errors_counted_is_no_failure():
    lines = ["nvidia-smi shows Volatile Uncorr. ECC: 0 on every GPU", *_VLLM_SERVING]
    assert kind_of(lines)[0] == "NONE", kind_of(lines)


# --- a KV pool sized to a negative block count before the engines checked for it: the cache's first tensor made with
# it, "Trying to create tensor with negative dimension -83: [-83, 64, 4, 128]" (LMDeploy 0.2's PyTorch engine, vLLM
# 0.1-0.2.1) -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["Loading checkpoint shards: 100%|██████████| 21/21 [00:41<00:00,  1.98s/it]",
     "2024-03-27 08:52:03,117 - lmdeploy - INFO - distribute model parameters.",
     "2024-03-27 08:52:31,904 - lmdeploy - ERROR - rank[1] failed with error: Trying to create tensor with negative "
     "dimension -83: [-83, 64, 4, 128]"],
    ["INFO 11-02 10:00:00 llm_engine.py:72] Initializing an LLM engine with config: model='lmsys/vicuna-13b-v1.5'",
    "INFO 11-02 10:01:40 llm_engine.py:207] # GPU blocks: -412, # CPU blocks: 327",
    "RuntimeError: Trying to create tensor with negative dimension -412: [-412, 40, 16, 16, 8]"],
])
def test_a_negative_block_count_is_the_kv_pool_without_memory(lines):
    assert kind_of(lines) == ("KV_CAPACITY", "no-memory-for-kv-cache")


def test_a_negative_dimension_of_another_shape_is_not_the_pool():
    lines = ["INFO 11-02 10:00:00 llm_engine.py:72] Initializing an LLM engine with config: model='x'",
             "RuntimeError: Trying to create tensor with negative dimension -1: [-1]"]
    assert kind_of(lines)[0] != "KV_CAPACITY"


# --- growth a report states in other words: RAM by its bare name, kept rising; memory taken slowly ------------------

_TEXTGEN_SERVING = ["Running on local URL:  http://127.0.0.1:7860",
                    "Output generated in 187.44 seconds (0.53 tokens/s, 100 tokens, context 43)",
                    "Output generated in 203.91 seconds (0.49 tokens/s, 100 tokens, context 149)"]


@pytest.mark.parametrize("words", [
    "(RAM keeps climbing in the system monitor between and during generations until the whole 64GB is used)",
    "3. Watch it slowly take up way more ram than it should.",
    "VRAM keeps going up after every chat and never comes back down.",
])
def test_growth_in_other_words_is_a_leak(words):
    assert kind_of([*_TEXTGEN_SERVING, words]) == ("LEAK", "memory-growth-stated")


def test_ram_in_a_name_is_no_growth_word():
    assert kind_of(["The param count keeps climbing in our dashboards.", *_TEXTGEN_SERVING])[0] == "NONE"


# --- requests in a report's words: answered ("loads the model fine and answers requests"), or some failing ("on
# certain requests"); and such words above a log whose own lines then show a start-up step failing do not place it --------

_CUDA_ERR = "CUDA error 2 at D:\\a\\LLamaSharp\\LLamaSharp\\ggml-cuda.cu:6016: out of memory"


@pytest.mark.parametrize("words", [
    "The app loads the model fine and answers requests, then on some request it just blows up.",
    "I'm getting this error now on certain requests using several different models.",
    "It handles chat requests for a while, then dies.",
])
def test_requests_answered_or_failing_in_words_place_the_failure(words):
    assert kind_of([words, "", _CUDA_ERR, "current device: 0"])[0] == "RUNTIME"


_VLLM_LOAD_OOM = [
    "INFO 06-02 10:00:40 [gpu_model_runner.py:1595] Starting to load model Qwen/Qwen2.5-72B-Instruct...",
    "ERROR 06-02 10:01:10 [core.py:700] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 0 "
    "has a total capacity of 79.19 GiB of which 512.00 MiB is free."]


@pytest.mark.parametrize("words", [
    "After the upgrade, the model fails with OOM on certain requests.",
    "After the upgrade, the server fails with OOM when serving requests from the UI.",
    "The app loads the model fine and answers requests, then it blows up.",
])
def test_words_of_serving_above_a_log_failing_its_load_do_not_place_it(words):
    run = run_of(diag("\n".join([words, "", "```", *_VLLM_LOAD_OOM, "```"])))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


# --- llama.cpp's interactive session (main.cpp "== Running in interactive mode. =="): each input typed is a request ---

def test_an_arena_overflow_after_an_interactive_answer_is_serving():
    lines = ["main: build = 622 (f4c55d3)", "llama.cpp: loading model from zh-models/7B/ggml-model-q4_0.bin",
             "llama_init_from_file: kv self size  = 1024.00 MB", "", "== Running in interactive mode. ==",
             " - Press Ctrl+C to interject at any time.", "> 用一句话介绍一下北京", "北京是中国的首都。",
             "> 生成一个pytorch的随机向量,维度是2,5",
             "ggml_new_tensor_impl: not enough space in the context's memory pool (needed 819402384, available "
             "805306368)", "zsh: segmentation fault  ./main -m zh-models/7B/ggml-model-q4_0.bin -ins"]
    assert kind_of(lines) == ("RUNTIME", "ggml-arena-too-small")


# --- answers the report calls wrong (gibberish, unrelated text) over a log with no failure: a fault of correctness ------

_OLLAMA_ANSWERED = ['time=2025-03-01T10:00:05.000Z level=INFO source=server.go:619 msg="llama runner started in 4.02 '
                    'seconds"', '[GIN] 2025/03/01 - 10:00:09 | 200 |  3.1s |       127.0.0.1 | POST     "/api/chat"']


@pytest.mark.parametrize("words", [
    "ROCM setup with two 7900 XTX outputs generate irrelevant content.",
    "Rocm docker container giberish output",
    "The answer is garbled since 0.6.2",
    "升级之后模型输出乱码",
])
def test_wrong_answers_told_are_not_memory(words):
    run = run_of(diag("\n".join([words, "", *_OLLAMA_ANSWERED])))
    assert (run.kind, run.code) == ("NOT_OOM", "wrong-output"), (run.kind, run.code)
    assert "Memory settings will not help" in run.message


@pytest.mark.parametrize("words", ["There is no gibberish output anymore, thanks.", "The output is not garbled now."])
def test_wrong_answers_denied_are_no_failure(words):
    assert kind_of([words, "", *_OLLAMA_ANSWERED])[0] == "NONE", kind_of([words, "", *_OLLAMA_ANSWERED])


# --- Ollama's new engine placing no layer on a GPU because the context's KV cache or compute graph alone is larger than
# any GPU's free memory (its layout lines, device=CPU, beside discovery's available=) ------------------------------------

def _ollama_layout(kv: str, graph: str, avail: str, gpus: int = 1) -> list[str]:
    found = [f'time=2025-09-16T10:02:41.614+02:00 level=INFO source=types.go:131 msg="inference compute" id=GPU-{i} '
             f'library=cuda variant=v12 compute=8.6 driver=12.8 name="NVIDIA RTX" total="{avail}" available="{avail}"'
             for i in range(gpus)]
    return [*found,
            'time=2025-09-16T10:03:05.443+02:00 level=INFO source=server.go:545 msg="loading model" "model layers"=29 '
            'requested=-1',
            'time=2025-09-16T10:03:09.303+02:00 level=INFO source=ggml.go:498 msg="offloaded 0/29 layers to GPU"',
            'time=2025-09-16T10:03:09.304+02:00 level=INFO source=backend.go:310 msg="model weights" device=CPU '
            'size="1.9 GiB"',
            f'time=2025-09-16T10:03:09.304+02:00 level=INFO source=backend.go:321 msg="kv cache" device=CPU size="{kv}"',
            'time=2025-09-16T10:03:09.304+02:00 level=INFO source=backend.go:332 msg="compute graph" device=CPU '
            f'size="{graph}"',
            'time=2025-09-16T10:03:12.660+02:00 level=INFO source=server.go:1326 msg="llama runner started in 7.22 '
            'seconds"']


@pytest.mark.parametrize("kv, graph, avail, gpus, want", [
    ("14.0 GiB", "8.1 GiB", "5.1 GiB", 1, ("KV_CAPACITY", "kv-cache-forces-cpu-offload")),
    ("62.0 GiB", "124.0 GiB", "95.0 GiB", 8, ("WARMUP", "compute-graph-forces-cpu-offload")),
    ("30.0 GiB", "2.0 GiB", "23.5 GiB", 2, ("KV_CAPACITY", "kv-cache-forces-cpu-offload")),
])
def test_ollama_placing_nothing_on_a_gpu_for_a_ledger_larger_than_any(kv, graph, avail, gpus, want):
    run = run_of(diag("\n".join(_ollama_layout(kv, graph, avail, gpus))))
    assert (run.kind, run.code) == want
    assert "kv_offload" not in [a["setting"] for a in run.advice], said(run)  # the KV cache is on the CPU already


def test_ollama_placing_nothing_on_a_gpu_with_room_is_not_a_ledger():
    run = run_of(diag("\n".join(_ollama_layout("1.0 GiB", "0.5 GiB", "23.5 GiB"))))
    assert run.kind == "NONE", (run.kind, run.code)


# --- MLX's active memory printed after each load and unload (oMLX's engine_pool), rising: growth measured ----------------

def test_mlx_active_memory_rising_is_growth():
    lines = [f"2026-06-09 {h:02d}:00:00,000 - omlx.engine_pool - INFO - [-] - Unloaded model: Qwen3.5-4B-8bit, "
             f"freed={f}GB (expected>=4.62GB), active_memory: {a}GB (settled)"
             for h, f, a in ((10, "4.58", "36.20"), (13, "1.12", "41.88"), (16, "0.40", "58.70"), (19, "-51.56",
                                                                                               "115.90"))]
    assert kind_of(lines) == ("LEAK", "memory-growth-reported")


# --- a failure the report says is gone ("EDIT: Now working with 0.1.48"), over the log of the run that works: the
# failure is no error pasted above that start-up ---------------------------------------------------------------------------

_OLLAMA_STARTUP = ['ollama  | time=2024-07-01T19:42:10.612Z level=INFO source=routes.go:1110 msg="Listening on '
                   '[::]:11434 (version 0.1.48)"',
                   "ollama  | llm_load_tensors: offloaded 33/33 layers to GPU",
                   'ollama  | time=2024-07-01T19:42:34.871Z level=INFO source=server.go:599 msg="llama runner started '
                   'in 2.77 seconds"',
                   'ollama  | [GIN] 2024/07/01 - 19:42:34 | 200 |  2.870193544s |       127.0.0.1 | POST     "/api/chat"']


@pytest.mark.parametrize("fixed", ["EDIT: Now working with 0.1.48 :smiley:", "Update: fixed after upgrading.",
                                   "It works now with the new image."])
def test_a_failure_said_to_be_gone_over_the_log_that_works(fixed):
    lines = ["$ docker exec -it ollama ollama run codellama:7b-python",
             "Error: llama runner process has terminated: signal: segmentation fault (core dumped)", "", fixed, "",
             *_OLLAMA_STARTUP]
    assert kind_of(lines)[0] == "NONE", kind_of(lines)


def test_a_failure_pasted_above_its_start_up_still_decides():
    lines = ["Error: llama runner process has terminated: signal: segmentation fault (core dumped)", "",
             _OLLAMA_STARTUP[0], _OLLAMA_STARTUP[1]]
    assert kind_of(lines)[0] == "NOT_OOM", kind_of(lines)


# --- 内存不足 ("not enough memory") alone, as a report says it: an out-of-memory, its ledger and phase not shown ----------

@pytest.mark.parametrize("words", ["运行openai_api_server.py 显示内存不足", "(后面的报错见截图，就是提示内存不足，然后进程退出了)"])
def test_chinese_not_enough_memory_alone_is_an_out_of_memory(words):
    lines = ["INFO 06-14 10:55:15 llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='x'", words]
    assert kind_of(lines)[0] == "UNDETERMINED", kind_of(lines)


def test_chinese_memory_denied_is_no_failure():
    lines = ["INFO 06-14 10:55:15 llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='x'",
             "INFO:     Application startup complete.", "不是内存不足的问题，服务正常"]
    assert kind_of(lines)[0] != "UNDETERMINED" or kind_of(lines)[1] != "oom-phase-not-shown", kind_of(lines)


# --- the host's OOM killer during vLLM's torch.compile (its lines "Compiling a graph for dynamic shape ..."): WARMUP, a
# step that uses the host's RAM, with host-memory advice -----------------------------------------------------------------

@pytest.mark.parametrize("step", [
    "(EngineCore_DP0 pid=274) INFO 02-18 09:16:14 [backends.py:287] Compiling a graph for dynamic shape ...",
    "(EngineCore_DP0 pid=274) INFO 02-18 09:16:09 [backends.py:703] Dynamo bytecode transform time: 12.87 s",
])
def test_a_host_oom_kill_during_torch_compile_is_the_warm_up(step):
    lines = ["(APIServer pid=1) INFO 02-18 09:14:02 [api_server.py:1351] vLLM API server version 0.15.2",
             "(EngineCore_DP0 pid=274) INFO 02-18 09:15:56 [gpu_model_runner.py:3568] Model loading took 75.43 GiB "
             "memory and 93.870812 seconds", step,
             "[ 6214.907336] Out of memory: Killed process 274 (VLLM::EngineCor) total-vm:221876540kB, "
             "anon-rss:5148228kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:160200kB oom_score_adj:0"]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("WARMUP", "host-oom-kill"), (run.kind, run.code)
    assert "host" in said(run) and "gpu_memory_utilization" not in [a["setting"] for a in run.advice]


def test_a_host_oom_kill_after_the_weights_with_no_step_stays_undetermined():
    lines = ["(EngineCore_DP0 pid=274) INFO 02-18 09:15:56 [gpu_model_runner.py:3568] Model loading took 75.43 GiB "
             "memory and 93.870812 seconds",
             "[ 6214.907336] Out of memory: Killed process 274 (VLLM::EngineCor) total-vm:221876540kB, "
             "anon-rss:5148228kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:160200kB oom_score_adj:0"]
    assert kind_of(lines) == ("UNDETERMINED", "host-oom-kill")


# --- the engine's watchdog after its stats showed the KV pool full with requests queued: the stall came in the path that
# copes with a full pool (h341/12); with room in the pool, the watchdog is no memory's ------------------------------------

def _sglang_stall(usage: str, queued: int, stats: str) -> list[str]:
    row = {"new": f"Decode batch, #running-req: 61, #full token: 1937408, full token usage: {usage}, #swa token: 188160, "
                  f"swa token usage: 0.97, cuda graph: True, gen throughput (token/s): 1822.40, #queue-req: {queued},",
           "old": f"Decode batch. #running-req: 40, #token: 310000, token usage: {usage}, gen throughput (token/s): "
                  f"900.10, #queue-req: {queued}"}[stats]
    return ["[2026-07-08 03:10:00] INFO:     Application startup complete.",
            f"[2026-07-08 03:14:55 TP0] {row}", f"[2026-07-08 03:14:57 TP0] {row}",
            "[2026-07-08 03:19:58 TP0] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)",
            "[2026-07-08 03:20:03] SIGQUIT received. signum=None, frame=None. It usually means one child failed."]


@pytest.mark.parametrize("usage, stats", [("1.00", "new"), ("0.99", "old")])
def test_a_watchdog_after_a_full_pool_is_the_pool(usage, stats):
    run = run_of(diag("\n".join(_sglang_stall(usage, 151, stats))))
    assert (run.kind, run.code) == ("RUNTIME", "stall-after-kv-pool-full"), (run.kind, run.code)
    assert any(a["setting"] == "max_num_seqs" and a["direction"] == "down" for a in run.advice), said(run)


@pytest.mark.parametrize("usage, queued", [("0.31", 151), ("1.00", 0)])
def test_a_watchdog_with_room_or_nothing_waiting_is_not_the_pool(usage, queued):
    assert kind_of(_sglang_stall(usage, queued, "new")) == ("NOT_OOM", "watchdog-timeout")


# --- memory the report says was not freed when what held it was closed, then a later load of the model runs out: the
# growth is the cause (h342/10) --------------------------------------------------------------------------------------------

_LCPP_LOAD = ["llama.cpp: loading model from E:\\models\\llama2_7b_chat.ggmlv3.q4_0.bin",
              "llama_model_load_internal: offloaded 35/35 layers to GPU",
              "llama_model_load_internal: total VRAM used: 4212 MB",
              "llama_new_context_with_model: kv self size  =  256.00 MB"]
_LCPP_RELOAD_OOM = ["llama.cpp: loading model from E:\\models\\llama2_7b_chat.ggmlv3.q4_0.bin",
                    "llama_model_load_internal: offloading 32 repeating layers to GPU",
                    "CUDA error 2 at C:\\LLamaSharp\\llama.cpp\\ggml-cuda.cu:5031: out of memory"]


@pytest.mark.parametrize("title, words", [
    ("Out of GPU memory when creating multiple sessions",
     "I tested recovering memory when we create a new session and close them again. Looks like the GPU memory is not "
     "freed."),
    ("OOM after reopening the chat a few times",
     "Every time I close the chat and start a new one, the VRAM isn't released."),
])
def test_memory_not_freed_on_close_then_a_reload_oom_is_a_leak(title, words):
    lines = [title, words, "", *_LCPP_LOAD, "[session 1 closed] [session 2 created]", *_LCPP_RELOAD_OOM]
    assert kind_of(lines) == ("LEAK", "memory-growth-stated")


def test_a_reload_oom_without_words_of_growth_is_the_weights():
    lines = ["Out of GPU memory on the second load", "", *_LCPP_LOAD, *_LCPP_RELOAD_OOM]
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


# --- mlx_lm.server's prompt cache readings after each request ("Prompt Cache: 8 sequences, 19.81 GB"), rising until a
# Metal out-of-memory: growth measured, with the cache's own caps as advice (h337/06) -----------------------------------

def _mlx_cache(sizes: list[str], end: list[str]) -> list[str]:
    out = ["$ mlx_lm.server --model mlx-community/Qwen3.5-4B-MLX-8bit",
           "2026-06-10 09:12:03,114 - INFO - Starting httpd at 127.0.0.1 on port 8080..."]
    for i, size in enumerate(sizes, 1):
        out += [f'127.0.0.1 - - [10/Jun/2026 09:{14 + i:02d}:27] "POST /v1/chat/completions HTTP/1.1" 200 -',
                f"2026-06-10 09:{14 + i:02d}:41,502 - INFO - Prompt Cache: {i} sequences, {size} GB"]
    return out + end


_METAL_OOM = ["libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer "
              "execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)"]


@pytest.mark.parametrize("sizes, end", [
    (["0.74", "1.61", "3.02", "5.87", "8.93", "12.40", "15.66", "19.81", "23.35"], _METAL_OOM),
    (["2.10", "4.40", "6.90", "9.80"], []),
])
def test_a_prompt_cache_growing_is_growth_with_its_caps_advised(sizes, end):
    run = run_of(diag("\n".join(_mlx_cache(sizes, end))))
    assert (run.kind, run.code) == ("LEAK", "memory-growth-reported"), (run.kind, run.code)
    assert "--prompt-cache-bytes" in said(run)


def test_a_steady_prompt_cache_is_no_growth():
    run = run_of(diag("\n".join(_mlx_cache(["3.02", "3.05", "3.01", "3.04"], []))))
    assert run.kind == "NONE", (run.kind, run.code)


# === rounds 351-356 (new sources: pages, non-English reports, model repos, rollout frameworks, platforms) ===============

# --- an evaluation harness named by its command line, its own log's prefix or its script's frame loads the model
# in-process: no request under way (only words that say it ran against the server are) ---------------------------------

_V0_CAPTURE_OOM = [
    "INFO 06-20 14:02:19 model_runner.py:146] Loading model weights took 13.4966 GB",
    "INFO 06-20 14:02:21 gpu_executor.py:83] # GPU blocks: 3127, # CPU blocks: 512",
    "INFO 06-20 14:02:23 model_runner.py:854] Capturing the model for CUDA graphs. This may lead to unexpected "
    "consequences if the model is not static.",
    "Traceback (most recent call last):",
    '  File "/opt/conda/lib/python3.10/site-packages/vllm/worker/model_runner.py", line 935, in capture_model',
    "    graph_runner.capture(",
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU "]


@pytest.mark.parametrize("head", [
    ["$ lm_eval --model vllm --model_args pretrained=/data/models/my-7b,gpu_memory_utilization=0.9 --tasks mmlu"],
    ["08/23 10:32:48 - OpenCompass - INFO - Partitioned into 13 tasks.",
     '  File "/opt/conda/bin/lm_eval", line 8, in <module>'],
])
def test_a_harness_named_by_its_command_or_prefix_is_no_request(head):
    assert kind_of([*head, *_V0_CAPTURE_OOM]) == ("WARMUP", "cuda-graph-capture-oom")


def test_a_harness_said_to_run_against_the_server_is_requests():
    lines = ["It OOMs while running lm-eval against the endpoint.", "", BARE_OOM]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


# --- a model's load killed by the host: the shell's "Killed" in its locale's words, a loader's per-tensor lines, and
# Chinese words of how far the load got (加载到40层左右时会爆内存) -------------------------------------------------------------

_KT_LOADING = ["using custom modeling_xxx.py.", "loading token_embd.weight to cpu",
               "loading blk.0.attn_q_a_norm.weight to cuda:0", "...", "loading blk.39.attn_q_a.weight to cuda:0",
               "loading blk.39.attn_q_a_norm.weight to cuda:0"]


@pytest.mark.parametrize("killed", ["已杀死", "Killed", "Getötet"])
def test_a_load_killed_in_any_locale_is_the_weights_in_host_memory(killed):
    lines = ["[Bug] ktransformers 0.2.4 运行 deepseek_q4_km", "", "$ python -m ktransformers.local_chat --cpu_infer 70",
             *_KT_LOADING, killed]
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


@pytest.mark.parametrize("title", [
    "【OOM问题】 跑DeepSeek-R1-Q4_K_M，加载到2/3(blk.40 一共有blk.60)时就已经用掉400多GB内存了。",
    "[Bug] 加载到40层左右时会爆内存",
])
def test_chinese_words_of_how_far_the_load_got_place_the_weights(title):
    assert kind_of([title, "", "硬件：A800 80GB"])[0] == "WEIGHTS", kind_of([title, "", "硬件：A800 80GB"])


# --- Ascend's graph capture out of streams (not memory), and a server that went away, its cause elsewhere -------------

@pytest.mark.parametrize("line", [
    "New capture stream failed, stream_id=1987, event_id=[-1->70037].[FUNC:GetCaptureStream][FILE:capture_model_utils.cc]",
    "rtStreamWaitEvent execution failed, reason=driver error:resource alloc fail[FUNC:FuncErrorReason]",
    "stream wait event failed, runtime result = 207005[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:148]",
])
def test_ascend_streams_for_graph_capture_are_no_memory(line):
    lines = ["(Worker_TP3 pid=78100) ERROR 04-20 21:27:00 [multiproc_executor.py:932]         TraceBack (most recent "
             "call last):", f"(Worker_TP3 pid=78100) ERROR 04-20 21:27:00 [multiproc_executor.py:932]        {line}"]
    assert kind_of(lines) == ("NOT_OOM", "device-resource-exhausted")


@pytest.mark.parametrize("line", ["ERROR:utils:Failed to create chat completion: {'detail': 'Remote server "
                                  "0.0.0.0:36281 closed'}",
                                  "aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected"])
def test_a_server_gone_away_names_no_cause(line):
    lines = ["benchmark当并发数超过一定值，系统会报错", "python benchmark/benchmark_long.py --concurrency 12", line]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


# --- a load by its concurrency, or the server said to be up and serving, in words: requests ----------------------------

@pytest.mark.parametrize("words", [
    "Server is up and serving DeepSeek-R1-awq; input 128 / output 128 at 256 concurrency -> oom and the engine dies.",
    "The engine dies with 64 concurrent users, fine with 8.",
])
def test_a_load_by_its_concurrency_is_serving(words):
    assert kind_of([words, "", "vllm 0.8.4, 8x A100", "torch.OutOfMemoryError: CUDA out of memory."])[0] == "RUNTIME"


# --- LMDeploy's vision encoder taking a request's image after TurboMind started: serving, not the pool it sized --------

def test_lmdeploy_image_request_oom_is_serving():
    lines = ["[TM][INFO] [BlockManager] block_size = 16 MB", "[TM][INFO] [BlockManager] max_block_count = 160",
             "[TM][INFO] LlamaBatch<T>::Start()",
             "2024-12-11 15:03:52,276 - lmdeploy - INFO - vl/engine.py:88 - ImageEncoder received 1 images, left 1 "
             "images.",
             "Exception in thread Thread-3 (_forward_loop):", "Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.10/dist-packages/lmdeploy/vl/engine.py", line 100, in _forward_loop',
             "    outputs = self.model.forward(**inputs)",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 410.00 MiB. GPU 0 has a total capacity of "
             "79.11 GiB of which 197.88 MiB is free."]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


# --- llama.cpp asked for logits the batch did not request: a bug, not memory ------------------------------------------

def test_invalid_logits_id_is_not_memory():
    lines = ["7:23PM INF [llama-cpp] Loads OK",
             "7:23PM DBG GRPC(m-127.0.0.1:44125): stderr llama_get_logits_ith: invalid logits id 14, reason: no logits",
             '7:23PM ERR Server error error="rpc error: code = Unavailable desc = error reading from server: EOF"']
    assert kind_of(lines) == ("NOT_OOM", "ggml-assert")


# --- `kubectl top pod` rows of one pod over time, rising to its OOMKilled: growth measured -----------------------------

def test_kubectl_top_rows_rising_are_growth():
    rows = [f"vllm-deployment-router-7d9f8c6b6d-hq2lp   2{i}0m   {1184 + 1150 * i}Mi" for i in range(7)]
    lines = ["$ kubectl describe pod vllm-deployment-router-7d9f8c6b6d-hq2lp | grep -A3 'Last State'",
             "    Last State:     Terminated", "      Reason:       OOMKilled", "      Exit Code:    137", "",
             "$ kubectl top pod -n vllm -l app.kubernetes.io/component=router --no-headers", *rows]
    assert kind_of(lines) == ("LEAK", "memory-growth-reported")


def test_kubectl_top_rows_steady_are_no_growth():
    rows = [f"vllm-deployment-router-7d9f8c6b6d-hq2lp   2{i}0m   {1184 + i}Mi" for i in range(5)]
    assert kind_of(["$ kubectl top pod --no-headers", *rows])[0] == "NONE"


# --- a script's code pasted above the run's own start line is no step the run passed (`llm.generate(...)`) ------------

def test_script_code_above_the_start_line_places_nothing():
    lines = ["llm = LLM(model=\"allenai/OLMo-1B-hf\", device='cuda:3')",
             "outputs = llm.generate(prompts, sampling_params)", "", "$ python test.py",
             "INFO 05-05 14:02:11 llm_engine.py:98] Initializing an LLM engine (v0.4.1) with config: model='x'", "...",
             "OutOfMemoryError: CUDA out of memory. Tried to allocate 4.43 GiB. GPU "]
    assert kind_of(lines)[0] == "UNDETERMINED", kind_of(lines)


# --- Ollama's runner started again on the CPU alone after the GPU's ran out loading: the GPU's failure decides --------

_OLLAMA_GPU_OOM = ["2023/09/26 21:40:42 llama.go:310: starting llama runner",
                   "llama.cpp: loading model from /home/user/.ollama/models/blobs/sha256:476d7ab8",
                   "llama_model_load_internal: offloaded 83/83 layers to GPU",
                   "CUDA error 2 at /go/src/github.com/jmorganca/ollama/llm/llama.cpp/ggml/ggml-cuda.cu:5031: out of "
                   "memory",
                   "2023/09/26 21:40:49 llama.go:320: llama runner exited with error: exit status 1"]
_OLLAMA_CPU_RUN = ["2023/09/26 21:40:49 llama.go:310: starting llama runner",
                   "llama.cpp: loading model from /home/user/.ollama/models/blobs/sha256:476d7ab8",
                   "llama_new_context_with_model: kv self size  =  640.00 MB",
                   "2023/09/26 21:41:11 llama.go:360: llama runner started in 22.4 seconds"]


def test_ollamas_fallback_to_the_cpu_clears_no_gpu_failure():
    assert kind_of([*_OLLAMA_GPU_OOM, *_OLLAMA_CPU_RUN])[0] == "WEIGHTS", kind_of([*_OLLAMA_GPU_OOM, *_OLLAMA_CPU_RUN])


def test_a_later_run_on_the_gpu_that_serves_clears_the_failure():
    gpu_run = [*_OLLAMA_CPU_RUN[:2], "llama_model_load_internal: offloaded 60/83 layers to GPU", *_OLLAMA_CPU_RUN[2:]]
    assert kind_of([*_OLLAMA_GPU_OOM, *gpu_run])[0] == "NONE", kind_of([*_OLLAMA_GPU_OOM, *gpu_run])


# --- a gap the paste describes in brackets ("[... several hundred llama_model_loader lines cut ...]"): what came just
# before the failure is not shown, so the step it names is no step under way --------------------------------------------

@pytest.mark.parametrize("gap", ["[... several hundred llama_model_loader lines cut ...]",
                                 "(... 300 lines of load output omitted ...)"])
def test_a_described_gap_is_no_step_under_way(gap):
    lines = ["Dec 11 18:31:37 x99 ollama[25964]: 2023/12/11 18:31:37 llama.go:421: starting llama runner", gap,
             "Dec 11 18:31:58 x99 ollama[25964]: CUDA error 2 at /go/src/ollama/llm/llama.cpp/gguf/ggml-cuda.cu:8571: "
             "out of memory"]
    assert kind_of(lines)[0] == "UNDETERMINED", kind_of(lines)


# === rounds 357-359 (new sources: other accelerators, the newest threads, forks) and the new-user review ===============

# --- a restart the log shows only by its proxy's start (llama-swap) or by the report's command again, after a failure ---

def test_llama_swap_restarted_after_a_health_check_failure_serves():
    lines = ["$ ./llama-swap --config config.yaml --listen :8080", "llama-swap listening on :8080",
             "srv    load_model: loading model '/models/Qwen2.5-32B-Instruct-Q4_K_M.gguf'",
             "unable to start process: health check failed after 15s", "",
             "It takes longer than 15 seconds to load the model; I raised healthCheckTimeout and restarted:", "",
             "$ ./llama-swap --config config.yaml --listen :8080", "llama-swap listening on :8080",
             "main: server is listening on http://127.0.0.1:9503 - starting the main loop",
             "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]
    assert kind_of(lines)[0] == "NONE", kind_of(lines)


def test_the_command_again_after_a_failure_then_its_milestones_is_a_new_run():
    lines = ["(APIServer pid=1) INFO 12-17 09:12:44 [api_server.py:1839] vLLM API server version 0.12.0rc1",
             "(Worker_TP0 pid=412) ERROR 12-17 09:17:25 [multiproc_executor.py:822] RuntimeError: NPU out of memory. "
             "Tried to allocate 2.00 GiB (NPU 0; 60.96 GiB total capacity; 55.91 GiB already allocated)",
             "(EngineCore_DP0 pid=274) ERROR 12-17 09:17:25 [core.py:866] EngineCore failed to start.", "",
             "vllm serve /data/models/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4 --gpu-memory-utilization 0.6",
             "",
             "(EngineCore_DP0 pid=1391) INFO 12-24 10:03:32 [kv_cache_utils.py:1286] GPU KV cache size: 73,728 tokens",
             "(APIServer pid=1) INFO:     Application startup complete.",
             '(APIServer pid=1) INFO:     10.20.3.17:51822 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    assert kind_of(lines)[0] == "NONE", kind_of(lines)


# --- a load on other accelerators or programs: Gaudi's PT_DEVMEM, a load line with its ellipsis, ExLlama v1's
# constructor, words of a failure before the load ended ---------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ['  File "run_generation.py", line 186, in main', "    model = model.eval().to(args.device)",
     '  File "/usr/local/lib/python3.8/dist-packages/torch/nn/modules/module.py", line 1145, in to',
     "    return self._apply(convert)",
     "RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for size::3288334336 (3136)MB"],
    ["TinyChatEngine by MIT HAN Lab", "Using model: LLaMA2_7B_chat", "Loading model... Killed"],
    ["/data/local/tmp/proj $ bin/powerserve-run -m qwen14B", "[INFO ] Load model qwen2 ...",
     "[INFO ] QNN backend API version: 5.31.0", "Killed"],
    ['  File "/home/fm/exllama/test_benchmark_inference.py", line 111, in <lambda>',
     '    model = timer("Load model", lambda: ExLlama(config))',
     '  File "/home/fm/exllama/model.py", line 569, in __init__', "    tensor = tensor.to(device, non_blocking = True)",
     "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 170.00 MiB (GPU 0; 11.76 GiB total capacity)"],
])
def test_loads_on_other_accelerators_and_programs_are_the_weights(lines):
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


@pytest.mark.parametrize("words", ["Attempting to load a 33b model led to cuda OOM error before the model loaded.",
                                   "Loading the model makes this jump to 14GB, then I think it OOMs."])
def test_words_of_a_failure_before_the_load_ended_are_the_weights(words):
    assert kind_of([words, "", "torch.cuda.OutOfMemoryError: CUDA out of memory."])[0] == "WEIGHTS"


# --- readings a report writes as an arrow chain ("2.1 GB -> 6.8 GB -> 13.6 GB"), rising: growth measured ----------

def test_an_arrow_chain_of_readings_rising_is_growth():
    lines = ["2026-08-18 10:02:11,604 - INFO - Starting httpd at 127.0.0.1 on port 8080...",
             '127.0.0.1 - - [18/Aug/2026 10:02:44] "POST /v1/chat/completions HTTP/1.1" 200 -', "",
             "footprint of the server process after each swap: 2.1 GB -> 6.8 GB -> 13.6 GB -> 13.8 GB"]
    assert kind_of(lines) == ("LEAK", "memory-growth-reported")


def test_an_arrow_chain_of_cards_is_no_reading():
    lines = ["2026-08-18 10:02:11,604 - INFO - Starting httpd at 127.0.0.1 on port 8080...",
             '127.0.0.1 - - [18/Aug/2026 10:02:44] "POST /v1/chat/completions HTTP/1.1" 200 -', "",
             "I tried cards of 16 GB -> 24 GB -> 48 GB over the years."]
    assert kind_of(lines)[0] == "NONE", kind_of(lines)


# --- an error code out of memory also gives (SYCL's -999) at the step where the run shows an out-of-memory too ---------

def test_a_maybe_memory_code_beside_the_runs_own_oom_is_that_oom():
    lines = ["Running on local URL:  http://127.0.0.1:7860",
             "Output generated in 25.66 seconds (10.68 tokens/s, 274 tokens, context 1821, seed 2025931740)",
             "Traceback (most recent call last):",
             '  File "C:\\\\tgw\\\\modules\\\\text_generation.py", line 390, in generate_with_callback',
             "    shared.model.generate(**kwargs)",
             "RuntimeError: Native API failed. Native API returns: -999 (Unknown PI error) -999 (Unknown PI error)", "",
             "earlier the same point gave:", "RuntimeError: Allocation is out of device memory on current platform."]
    assert kind_of(lines) == ("RUNTIME", "sycl-unknown-error")


# --- socketserver's "Exception occurred during processing of request" is a request's failure, its cause below: a Metal
# buffer past the largest allowed is memory, a broken pipe a client's hang-up -----------------------------------------

def _socketserver(error: str) -> list[str]:
    return ["2026-09-03 11:20:07,512 - INFO - Starting httpd at 127.0.0.1 on port 8080...",
            '127.0.0.1 - - [03/Sep/2026 11:26:49] "POST /v1/chat/completions HTTP/1.1" 200 -',
            "----------------------------------------",
            "Exception occurred during processing of request from ('127.0.0.1', 52344)",
            "Traceback (most recent call last):",
            '  File "/x/mlx_lm/generate.py", line 381, in generate_step', "    mx.eval([c.state for c in prompt_cache])",
            error, "----------------------------------------"]


def test_a_request_exception_is_judged_by_its_cause():
    oom = _socketserver("RuntimeError: [metal::malloc] Attempting to allocate 23633057546 bytes which is greater than "
                        "the maximum allowed buffer size of 21582210662 bytes.")
    assert kind_of(oom) == ("RUNTIME", "metal-buffer-exceeds-max")
    pipe = _socketserver("BrokenPipeError: [Errno 32] Broken pipe")
    assert kind_of(pipe)[1] == "client-disconnected"


# --- the new-user review (stop 40) ---------------------------------------------------------------------------------------

_VLLM_KV_OK = ["INFO 06-01 09:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
               "INFO 06-01 09:00:20 [gpu_model_runner.py:1595] Model loading took 14.2488 GiB and 8.211 seconds",
               "INFO 06-01 09:00:40 [gpu_worker.py:227] Available KV cache memory: 4.10 GiB",
               "INFO 06-01 09:00:40 [kv_cache_utils.py:715] GPU KV cache size: 76,768 tokens"]


@pytest.mark.parametrize("words", ["The defaults OOM, so we changed to 0.85, but it still OOMs.",
                                   "会 OOM，所以改成了 GMU 0.85，还是 OOM"])
def test_a_workaround_that_did_not_help_keeps_the_failure_without_a_title(words):
    assert kind_of([words, "", *_VLLM_KV_OK])[0] != "NONE", kind_of([words, "", *_VLLM_KV_OK])


def test_words_of_the_first_request_over_a_startup_that_only_got_on_place_it():
    lines = ["The server crashes as soon as I send the first request.", *_VLLM_KV_OK[:2],
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


@pytest.mark.parametrize("words", ["OOM under 64 concurrency with 4k prompts:", "The server OOMs under load:",
                                   "OOM when serving 32 parallel requests:"])
def test_an_intro_line_with_serving_words_is_read_with_the_run(words):
    lines = [words, _VLLM_KV_OK[0], "ERROR 06-01 09:30:00 [core.py:586] torch.OutOfMemoryError: CUDA out of memory."]
    rep = diag("\n".join(lines))
    assert len(rep.runs) == 1 and run_of(rep).kind == "RUNTIME", ([r.kind for r in rep.runs], run_of(rep).code)


@pytest.mark.parametrize("words", ["The server starts fine and handles a few chats, then crashes with this:",
                                   "It works for the first few messages, then:", "服务正常运行了几个小时，处理了很多请求后报错："])
def test_more_words_of_serving(words):
    assert kind_of([words, "torch.OutOfMemoryError: CUDA out of memory."])[0] == "RUNTIME"


@pytest.mark.parametrize("title", ["加载chatglm3-6b时内存不足", "加载 chatglm3-6b 的时候内存不足",
                                   "Qwen2.5-72B-Instruct 模型加载时显存不足，怎么办"])
def test_more_chinese_words_of_a_models_load(title):
    assert kind_of([title, "", "PyTorch version: 2.3.0+cu121"])[0] == "WEIGHTS"


@pytest.mark.parametrize("gap", ["(snipped ~200 lines of warmup output)", "(cut the rest of the load output)"])
def test_gaps_in_any_bracket_style(gap):
    lines = ["llama_model_loader: loaded meta data with 26 key-value pairs", gap,
             "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1536.00 MiB on device 0: cudaMalloc failed: out of "
             "memory"]
    assert kind_of(lines)[0] == "UNDETERMINED", kind_of(lines)


@pytest.mark.parametrize("line", ["ERROR 06-01 06:12:55 [core.py:396] RuntimeError: CUDA error: uncorrectable ECC error "
                                  "encountered", "GPU 2 has 4 uncorrectable ECC errors according to nvidia-smi"])
def test_ecc_errors_in_cudas_words_and_a_count(line):
    assert kind_of(["INFO:     Application startup complete.", line]) == ("NOT_OOM", "gpu-ecc-error")


def test_a_fraction_lowered_past_the_whole_pool_is_not_advised():
    lines = ["INFO 06-01 09:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
             "INFO 06-01 09:00:00 [cli_args.py:325] non-default args: {'model': 'Qwen/Qwen2.5-7B-Instruct', "
             "'max_model_len': 8192, 'gpu_memory_utilization': 0.7}",
             "INFO 06-01 09:00:20 [gpu_model_runner.py:1595] Model loading took 14.2488 GiB and 8.211 seconds",
             "INFO 06-01 09:00:40 [gpu_worker.py:227] Available KV cache memory: 0.85 GiB",
             "INFO:     Application startup complete.",
             'INFO:     10.0.0.5:50122 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             "ERROR 06-01 09:05:31 [core.py:586] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB. "
             "GPU 0 has a total capacity of 23.55 GiB of which 1.00 GiB is free."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME"
    assert not any(a["setting"] == "memory_fraction" and a["direction"] == "down" for a in run.advice), said(run)
    assert "no headroom to take from the pool" in said(run)


def test_a_fraction_with_room_in_the_pool_is_still_advised_down():
    lines = ["INFO 06-01 09:00:00 [cli_args.py:325] non-default args: {'gpu_memory_utilization': 0.9}",
             "INFO 06-01 09:00:20 [gpu_model_runner.py:1595] Model loading took 14.2488 GiB and 8.211 seconds",
             "INFO 06-01 09:00:40 [gpu_worker.py:227] Available KV cache memory: 40.00 GiB",
             "INFO:     Application startup complete.",
             'INFO:     10.0.0.5:50122 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             "ERROR 06-01 09:05:31 [core.py:586] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB. "
             "GPU 0 has a total capacity of 79.15 GiB of which 1.00 GiB is free."]
    run = run_of(diag("\n".join(lines)))
    assert any(a["setting"] == "memory_fraction" and a["direction"] == "down" for a in run.advice), said(run)


def test_lm_evals_own_request_bar_is_requests():
    lines = ["Running generate_until requests:   3%|▎         | 40/1319 [00:31<16:50,  1.27it/s]",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


# --- memory held outside this process, from PyTorch's error without its list of processes (a container's): total less
# free less "this process has" -------------------------------------------------------------------------------------------

def _held(free: str, mine: str) -> list[str]:
    return ["INFO 06-01 09:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
            "INFO:     Application startup complete.",
            'INFO:     10.0.0.5:50122 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
            f"ERROR 06-01 09:05:31 [core.py:586] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB. "
            f"GPU 0 has a total capacity of 23.55 GiB of which {free} is free. Including non-PyTorch memory, this process "
            f"has {mine} memory in use."]


def test_memory_held_outside_this_process_is_named():
    run = run_of(diag("\n".join(_held("100.00 MiB", "14.90 GiB"))))
    assert "free the GPU" in said(run) and "8.55 GiB is held outside this process" in said(run), said(run)


def test_no_memory_held_outside_this_process_says_nothing_of_it():
    run = run_of(diag("\n".join(_held("1.00 GiB", "22.50 GiB"))))
    assert "held outside this process" not in said(run), said(run)


# --- llama.cpp's compute buffer reserved again while serving (a larger batch than any before): RUNTIME where the run's
# own lines show it serving; a warm-up where they do not -----------------------------------------------------------------

_GALLOCR = ["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2048.00 MiB on device 0: cudaMalloc failed: out of "
            "memory", "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 2147483648"]


@pytest.mark.parametrize("serving", [
    ["== Running in interactive mode. ==", " - Press Ctrl+C to interject at any time.", "> Summarize this document"],
    ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
     "slot launch_slot_: id  0 | task 0 | processing task"],
])
def test_a_compute_buffer_reserved_again_while_serving_is_runtime(serving):
    assert kind_of([*serving, *_GALLOCR]) == ("RUNTIME", "compute-buffer-alloc-failed")


def test_a_compute_buffer_at_start_is_the_warm_up():
    lines = ["llama_kv_cache_unified:      CUDA0 KV buffer size =  1024.00 MiB", *_GALLOCR]
    assert kind_of(lines) == ("WARMUP", "compute-buffer-alloc-failed")


# --- rounds 360-361: a size before "load" is the verb ("models under 8GB load fine"), and out of memory only in an
# aside that asks ("(out of VRAM?)") states no failure: the program's own error decides ------------------------------

_GPT4ALL_LOAD = ["llama_model_loader: loaded meta data with 19 key-value pairs and 363 tensors from C:/m/x.Q4_0.gguf",
                 "llm_load_tensors: ggml ctx size =    0.12 MiB", "Error allocating memory ErrorOutOfDeviceMemory",
                 "error loading model: Error allocating vulkan memory."]


_GPT4ALL_WORDS = ["The app crashes without a warning with a model that needs more than 16 GB. Choose model -> app",
                  "closes, nothing in the window. Models with RAM requirements under 8GB load fine and also use the GPU.",
                  "", "On the older release the same models load, but on the CPU only; the device",
                  "label in the chat view says \"CPU\" and hovering it shows: GPU loading failed (out of VRAM?)",
                  "Console from the older release when it switches:", ""]


def test_words_that_state_no_serving_or_no_failure_leave_the_programs_error_to_decide():
    assert kind_of([*_GPT4ALL_WORDS, *_GPT4ALL_LOAD])[0] == "WEIGHTS", kind_of([*_GPT4ALL_WORDS, *_GPT4ALL_LOAD])


def test_under_load_still_is_serving():
    assert kind_of(["The server OOMs under sustained load.", "torch.OutOfMemoryError: CUDA out of memory."])[0] == \
        "RUNTIME"


# --- "under load" is the one alternative of the requests words with its exclusions ("under load balancing" is no
# serving); a second, bare one added this stop beside it bypassed them -------------------------------------------------

@pytest.mark.parametrize("words, kind", [("Both replicas sit under load balancing behind nginx.", "UNDETERMINED"),
                                         ("The server OOMs under load.", "RUNTIME")])
def test_under_load_keeps_its_exclusions(words, kind):
    assert kind_of([words, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."])[0] == kind
