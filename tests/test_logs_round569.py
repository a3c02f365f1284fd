"""Kinds of fault found in stop 57: held-out rounds 569-574, review 56b's leftovers and review 57, each in several
wordings of our own, with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, kind_of, run_of


# --- Ollama loading a second model: the scheduler's lines for it (sched.go "updated VRAM based on existing loaded
# models", "new model will fit ...", memory.go "offload to cuda") come before its "starting llama server", and were read
# into the first model's run (review 56b/80: "Only 29 of 49 layers went to the GPU", from model A's 29 and B's 49) -----

_OLLAMA_A = [
    'time=2025-02-14T09:02:11.883Z level=INFO source=routes.go:1289 msg="Listening on [::]:11434 (version 0.5.7)"',
    'time=2025-02-14T09:05:40.521Z level=INFO source=memory.go:356 msg="offload to cuda" layers.requested=-1 '
    'layers.model=29 layers.offload=29 layers.split="" memory.available="[23.3 GiB]" memory.required.full="6.2 GiB" '
    'memory.required.kv="896.0 MiB" memory.weights.total="4.2 GiB"',
    'time=2025-02-14T09:05:40.522Z level=INFO source=server.go:376 msg="starting llama server" cmd="ollama_llama_server '
    'runner --model /m/a --ctx-size 8192 --batch-size 512 --n-gpu-layers 29 --parallel 4 --port 40315"',
    "llm_load_tensors: offloaded 29/29 layers to GPU",
    "llm_load_tensors:        CUDA0 model buffer size =  3928.07 MiB",
    "llama_kv_cache_init:      CUDA0 KV buffer size =   448.00 MiB",
    'time=2025-02-14T09:05:42.778Z level=INFO source=server.go:594 msg="llama runner started in 2.26 seconds"',
    '[GIN] 2025/02/14 - 09:05:48 | 200 |  8.012411823s |      172.18.0.4 | POST     "/api/chat"',
]

_B_SCHEDULED = {
    "updated VRAM": [
        'time=2025-02-14T09:07:02.114Z level=INFO source=sched.go:507 msg="updated VRAM based on existing loaded models" '
        'gpu=GPU-5b2e library=cuda total="23.6 GiB" available="17.1 GiB"',
        'time=2025-02-14T09:07:02.120Z level=INFO source=sched.go:714 msg="new model will fit in available VRAM in single '
        'GPU, loading" model=/m/b gpu=GPU-5b2e parallel=4 available=18360147968 required="16.9 GiB"'],
    "will fit only": [
        'time=2025-02-14T09:07:02.120Z level=INFO source=sched.go:714 msg="new model will fit in available VRAM in single '
        'GPU, loading" model=/m/b gpu=GPU-5b2e parallel=4 available=18360147968 required="16.9 GiB"'],
    "estimate only": [],
}

_B_ESTIMATE = ('time=2025-02-14T09:07:02.233Z level=INFO source=memory.go:356 msg="offload to cuda" layers.requested=-1 '
               'layers.model=49 layers.offload=49 layers.split="" memory.available="[17.1 GiB]" memory.required.full='
               '"16.9 GiB" memory.required.kv="6.0 GiB" memory.weights.total="8.9 GiB"')
_B_START = ('time=2025-02-14T09:07:02.234Z level=INFO source=server.go:376 msg="starting llama server" cmd="ollama_llama_'
            'server runner --model /m/b --ctx-size 32768 --batch-size 512 --n-gpu-layers 49 --parallel 4 --port 38691"')


@pytest.mark.parametrize("how", sorted(_B_SCHEDULED))
def test_a_second_models_schedule_lines_begin_its_run(how):
    b_ok = [*_B_SCHEDULED[how], _B_ESTIMATE, _B_START, "llm_load_tensors: offloaded 49/49 layers to GPU",
            "llama_kv_cache_init:      CUDA0 KV buffer size =  6144.00 MiB",
            'time=2025-02-14T09:07:06.911Z level=INFO source=server.go:594 msg="llama runner started in 4.68 seconds"']
    rep = diag("\n".join(_OLLAMA_A + b_ok))
    assert [r.kind for r in rep.runs] == ["NONE", "NONE"]
    assert rep.runs[0].numbers.get("layers_total") == 29  # (model A's own estimate only)
    assert rep.runs[1].numbers.get("layers_total") == 49


def test_a_second_model_that_fails_its_kv_cache_keeps_its_own_figures():
    b_fails = [*_B_SCHEDULED["updated VRAM"], _B_ESTIMATE, _B_START,
               "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 6144.00 MiB on device 0: cudaMalloc failed: out of "
               "memory",
               "llama_kv_cache_init: failed to allocate buffer for kv cache",
               "llama_new_context_with_model: llama_kv_cache_init() failed for self-attention cache",
               "panic: unable to create llama context"]
    rep = diag("\n".join(_OLLAMA_A + b_fails))
    run = run_of(rep)
    assert (run.kind, run.code) == ("KV_CAPACITY", "kv-cache-alloc-failed")
    assert run.first_line == len(_OLLAMA_A) + 1
    assert rep.runs[0].kind == "NONE" and "29 of 49" not in rep.runs[0].message


def test_one_models_estimate_lines_before_its_server_stay_one_run():
    # (the first model's own scheduling lines, before anything ran: one run, not two)
    lines = [_OLLAMA_A[0], *_B_SCHEDULED["updated VRAM"], _B_ESTIMATE, _B_START,
             "llm_load_tensors: offloaded 49/49 layers to GPU",
             'time=2025-02-14T09:07:06.911Z level=INFO source=server.go:594 msg="llama runner started in 4.68 seconds"']
    rep = diag("\n".join(lines))
    assert len(rep.runs) == 1 and rep.runs[0].kind == "NONE"


# --- the report's words that it works, over a paste cut partway through a line of its start-up (h569/09: "I've got it
# working:" above a llama-server start-up cut at "lla") ------------------------------------------------------------------

_CUT_LLAMA = [
    "```",
    "llama_kv_cache_init:      CUDA0 KV buffer size =  2108.01 MiB",
    "llama_kv_cache_init:      CUDA1 KV buffer size =  2040.01 MiB",
    "llama_init_from_model:  CUDA_Host  output buffer size =     0.49 MiB",
    "lla",
]


@pytest.mark.parametrize("said", [
    "I've got it working:",
    "Finally got it running with the RPC devices, here's the log:",
    "We managed to get it to work with --override-tensor:",
    "It works now, log below.",
])
def test_a_report_that_says_it_works_over_a_cut_start_up_is_none(said):
    assert kind_of([said, ""] + _CUT_LLAMA)[0] == "NONE"


@pytest.mark.parametrize("said", [
    "I got it working but only for a while, then it dies:",
    "Here is the log:",
])
def test_a_cut_start_up_without_words_that_it_works_stays_undetermined(said):
    assert kind_of([said, ""] + _CUT_LLAMA) == ("UNDETERMINED", "log-cut-off")


# --- an exception's message logged above its traceback, the traceback cut: a KeyError's message is its key in quotes
# (h569/04: vLLM V0's "ERROR ... [engine.py:448] 'model.layers.1.mlp.shared_experts.down_proj.weight_scale_inv'") ------

@pytest.mark.parametrize("prefix, key, under", [
    ("ERROR 04-07 13:35:48 [engine.py:448] ", "'model.layers.1.mlp.shared_experts.down_proj.weight_scale_inv'", True),
    ("ERROR 11-02 08:01:12 [core.py:700] ", "'lm_head.weight'", True),
    # (Python's logging with its default handler: the record under its prefix, the traceback under none)
    ("2025-03-01 10:00:01,123 worker ERROR ", "'vision_tower.blocks.0.attn.qkv.bias'", False),
])
def test_a_keys_message_above_a_cut_traceback_is_not_memory(prefix, key, under):
    tb = prefix if under else ""
    lines = ["INFO 04-07 13:35:40 [model_runner.py:1110] Starting to load model deepseek-ai/DeepSeek-V2-Lite...",
             prefix + key,
             tb + "Traceback (most recent call last):",
             tb + '  File "/v/engine.py", line 436, in run_mp_engine',
             tb + "    engine = MQLLMEngine.from_vllm_config("]
    assert kind_of(lines) == ("NOT_OOM", "error-not-memory")


def test_a_bare_word_above_a_cut_traceback_names_no_cause():
    lines = ["INFO 04-07 13:35:40 [model_runner.py:1110] Starting to load model deepseek-ai/DeepSeek-V2-Lite...",
             "ERROR 04-07 13:35:48 [engine.py:448] failed",
             "ERROR 04-07 13:35:48 [engine.py:448] Traceback (most recent call last):",
             'ERROR 04-07 13:35:48 [engine.py:448]   File "/v/engine.py", line 436, in run_mp_engine']
    assert kind_of(lines)[0] == "UNDETERMINED"


# --- the direct cause of a cut traceback, printed above it (h569/05: "torch._dynamo.exc.Unsupported: torch.* op
# returned non-Tensor" / "The above exception was the direct cause of the following exception:" / a cut traceback) -----

@pytest.mark.parametrize("cause", [
    ["torch._dynamo.exc.Unsupported: torch.* op returned non-Tensor",
     "  Explanation: torch.* ops that return a non-Tensor cannot be traced into the Dynamo FX graph output", ""],
    ["ValueError: Unsupported head size: 80", ""],
    ["triton.compiler.errors.CompilationError: at 12:4: unsupported dtype"],
])
def test_the_direct_cause_above_a_cut_traceback_names_it(cause):
    lines = ["Process Process-1:", *cause,
             "The above exception was the direct cause of the following exception:", "",
             "Traceback (most recent call last):",
             '  File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap',
             "    self.run()"]
    assert kind_of(lines)[0] == "NOT_OOM"


def test_a_memory_cause_above_a_cut_traceback_is_not_called_not_memory():
    lines = ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", "",
             "The above exception was the direct cause of the following exception:", "",
             "Traceback (most recent call last):",
             '  File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap']
    assert kind_of(lines)[0] != "NOT_OOM"


# --- a request's length said to bring the out of memory, in Chinese and English (h570/08: "每次在length=15872的时候就
# OOM了", "运行代码后还是无法回答长文本") --------------------------------------------------------------------------------------

_TORCH_OOM = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 30.03 GiB (GPU 1; 79.35 GiB total "
              "capacity; 48.80 GiB already allocated; 27.55 GiB free; 50.37 GiB reserved in total by PyTorch)")


@pytest.mark.parametrize("said", [
    "我试了max_split_size_mb，每次在length=15872的时候就OOM了",
    "运行代码后还是无法回答长文本，错误如下",
    "长文本推理时爆显存，错误如下",
    "It OOMs once the input length reaches 15872, every time:",
    "It crashes as soon as the prompt hits 30k tokens:",
])
def test_a_requests_length_said_to_bring_it_is_runtime(said):
    assert kind_of([said, _TORCH_OOM])[0] == "RUNTIME"


def test_a_context_set_at_start_is_no_requests_length():
    assert kind_of(["With --max-model-len 32768 it fails:", _TORCH_OOM])[0] != "RUNTIME"


# --- growth stated in words: after a long time of use (Chinese), in other languages, and as a reading at start and a
# later one (h570/12, review 56b/63 and /66, review 57) ----------------------------------------------------------------

_SERVING_OOM = ["INFO:     10.0.0.12:44130 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
                "ERROR 03-04 06:01:40 engine.py:140] RuntimeError('CUDA error: out of memory')"]


@pytest.mark.parametrize("said", [
    "长度我限制了，但长时间调用模型做生成后，在V100上显存还是被占满了",
    "Der belegte GPU-Speicher steigt kontinuierlich an, etwa 300 MB pro Stunde, bis der Server abstürzt.",
    "Но память растёт с каждым запросом, примерно на 300 МБ, и сервер падает.",
    "La memoria de la GPU sigue creciendo hasta que el servidor se cae.",
    "La mémoire augmente à chaque requête, jusqu'au plantage.",
    "VRAMがリクエストごとに増え続けて、最後にOOMになります。",
    "요청마다 메모리가 계속 증가하다가 OOM이 납니다.",
    "Right after loading the runner uses 11.3 GiB of VRAM. After about two days of traffic nvidia-smi shows it at "
    "22.9 GiB.",
    "Al arrancar marca 9,6 GB de memoria de GPU. Después de 3 horas ya va por 10,8 GB, a las 5 horas 11,5 GB.",
    "Nach dem Start belegt er 9,6 GB Speicher, nach 5 Stunden sind es 14 GB.",
    "GPU usage goes up by roughly 180-220 MB every hour while serving.",
])
def test_growth_stated_in_words_is_a_leak(said):
    assert kind_of([said, ""] + _SERVING_OOM)[0] == "LEAK"


@pytest.mark.parametrize("said", [
    "Der GPU-Speicher steigt nicht kontinuierlich an, er bleibt bei 20 GB.",
    "Память не растёт с каждым запросом, она стабильна.",
    "Right after loading it uses 11.3 GiB of VRAM. After two days it is at 11.5 GiB, so memory is fine.",
    "长度我限制了，调用模型做生成后显存占用正常",
    "La memoria sube a 20 GB con cada petición y luego vuelve a bajar a 8 GB.",
    "Der Speicher steigt mit jeder Anfrage auf 20 GB und sinkt danach wieder auf 8 GB.",
    "Память растёт с каждым запросом, а потом освобождается.",
])
def test_growth_denied_or_too_small_is_no_leak(said):
    assert kind_of([said, ""] + _SERVING_OOM)[0] != "LEAK"


# --- gpustat's rows over time as a series (review 56b/64) ----------------------------------------------------------

def _gpustat(values: list[int]) -> list[str]:
    rows = []
    for i, v in enumerate(values):
        rows.append(f"Thu Apr 10 {9 + 2 * i:02d}:00:01 2025  572.86.10")
        rows.append(f"[0] NVIDIA GeForce RTX 4090 | 41°C,   0 % | {v + 192} / 24564 MB | ollama/2211({v}M)")
    return rows


def test_gpustat_rows_that_rise_are_a_leak():
    lines = ["VRAM went up over the day, gpustat every two hours:"] + _gpustat([11020, 14188, 17419, 20650, 23719]) + [
        "CUDA error: out of memory",
        '[GIN] 2025/04/10 - 17:42:18 | 500 |  2.881012344s |      172.17.0.1 | POST     "/api/chat"']
    assert kind_of(lines)[0] == "LEAK"


def test_gpustat_rows_that_stay_flat_are_no_leak():
    lines = ["gpustat every two hours:"] + _gpustat([11020, 11024, 11020, 11022, 11020]) + [
        '[GIN] 2025/04/10 - 17:42:18 | 200 |  2.881012344s |      172.17.0.1 | POST     "/api/chat"']
    assert kind_of(lines)[0] != "LEAK"


# --- the report's own short sentences (h571/05: "Same OOM behavior as yesterday. Server died mid-prefill." below a
# fenced excerpt whose OOM line names no phase) -------------------------------------------------------------------------

@pytest.mark.parametrize("said", [
    "Same OOM behavior as yesterday. Server died mid-prefill.",
    "Same thing again. It crashed mid-prefill.",
    "Still broken. Dies during decode every time.",
])
def test_short_sentences_of_the_report_place_the_failure(said):
    lines = ["## Result", "", "```", "60K tokens   ERROR: Remote end closed connection without response",
             "post-OOM:    1 GB free", "```", "", said]
    assert kind_of(lines)[0] == "RUNTIME"


# --- a request refused with 501 Not Implemented (h573/07: llama-server's "POST /infill ... 501" for a model without
# fill-in-the-middle tokens) ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "srv  log_server_r: request: POST /infill 127.0.0.1 501",
    'INFO:     127.0.0.1:51234 - "POST /v1/embeddings HTTP/1.1" 501 Not Implemented',
])
def test_a_request_answered_501_is_a_refusal(line):
    assert kind_of(["the infill helper is not working", "", line]) == ("NOT_OOM", "requests-answered-with-client-error")


def test_a_request_answered_500_is_no_refusal():
    assert kind_of(["the infill helper is not working", "",
                    "srv  log_server_r: request: POST /infill 127.0.0.1 500"])[1] != \
        "requests-answered-with-client-error"


# --- ONNX Runtime's arena at its limit, relayed in an INFO line of a task's progress (h573/11) -----------------------

@pytest.mark.parametrize("line", [
    "2025-01-28 13:10:04,421 INFO     21 set_progress(767e), progress: -1, progress_msg: 13:10:04 [ERROR][Exception]: "
    "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running Softmax node. Name:'/m/"
    "Softmax' Status Message: /onnxruntime_src/onnxruntime/core/framework/bfc_arena.cc:376 void* onnxruntime::BFCArena::"
    "AllocateRawInternal(size_t, bool) Available memory of 0 is smaller than requested bytes of 5505024",
    "onnxruntime.capi.onnxruntime_pybind11_state.RuntimeException: [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero "
    "status code returned while running MatMul node. Name:'/l/MatMul' Status Message: bfc_arena.cc:376 Available memory "
    "of 1048576 is smaller than requested bytes of 20971520",
])
def test_onnxruntimes_arena_limit_is_memory(line):
    kind, _ = kind_of(["I get an error on an A100 80G", "", line])
    assert kind in ("UNDETERMINED", "RUNTIME", "WARMUP")
    rep = diag("I get an error on an A100 80G\n\n" + line)
    assert run_of(rep).oom is True


def test_an_info_line_that_only_mentions_an_error_is_still_none():
    lines = ["INFO 03-01 10:00:00 retrying after error: connection reset, attempt 2",
             "INFO:     127.0.0.1:5000 - \"POST /v1/completions HTTP/1.1\" 200 OK"]
    assert kind_of(lines)[0] == "NONE"


# --- the OOM killer's victim a compiler, in the report's words (h574/01: "the Linux kernel OOM-kills nvcc workers") --

@pytest.mark.parametrize("said", [
    "Result: the Linux kernel OOM-kills nvcc workers:",
    "The OOM killer kills cicc over and over:",
    "dmesg shows the OOM killer picked ptxas:",
])
def test_a_compiler_the_report_says_was_oom_killed_is_warmup(said):
    lines = ["INFO 05-02 10:00:00 [gpu_model_runner.py:2000] Model loading took 18.6 GiB and 118.2 seconds",
             said, "```", "ninja: build stopped: subcommand failed.   # exit code 137 (SIGKILL)", "```"]
    assert kind_of(lines) == ("WARMUP", "host-oom-kill")


# --- a build said to have failed, its compiler's error cut (h574/04: "CUTLASS FP4 MoE kernels fail to compile for
# Nemotron-H on GB10") ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("said", [
    "ptxas sm_121 vs sm_121a mismatch: CUTLASS FP4 MoE kernels fail to compile for Nemotron-H on GB10",
    "The FlashInfer JIT build fails on sm_120 with CUDA 12.8",
    "Compilation of the fused MoE extension failed after the weights loaded",
])
def test_a_build_the_report_says_failed_is_not_memory(said):
    lines = [said, "", "INFO 05-02 10:00:00 [gpu_model_runner.py:2000] Model loading took 18.6 GiB and 118.2 seconds",
             "ptxas /tmp/tmpxft_00000033_00000000-7_cutlass.compute_121.ptx, line 214232; e"]
    assert kind_of(lines) == ("NOT_OOM", "kernel-build-failed")


def test_a_build_said_to_run_out_of_memory_is_not_called_a_build_error():
    lines = ["The FlashInfer JIT build fails with OOM, the machine has 32 GB", "",
             "INFO 05-02 10:00:00 [gpu_model_runner.py:2000] Model loading took 18.6 GiB and 118.2 seconds",
             "ptxas /tmp/tmpxft_00000033_00000000-7_cutlass.compute_121.ptx, line 214232; e"]
    assert kind_of(lines)[1] != "kernel-build-failed"


# --- the whole machine said to power off (h574/08: "usage is shutting down system", "then the system shut down
# again") --------------------------------------------------------------------------------------------------------------

_SERVED = ["(EngineCore pid=130) INFO 08-16 06:37:02 [core.py:337] init engine (profile, create kv cache, warmup model) "
           "took 68.81 s",
           "(APIServer pid=1) INFO:     Application startup complete.",
           '(APIServer pid=1) INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("said", [
    "[bug] vllm/qwen38-27b-dual-fast usage is shutting down system",
    "Under load the whole machine just powers off.",
    "After a few requests the PC turned off, no error anywhere.",
])
def test_a_machine_that_powers_off_is_not_memory(said):
    assert kind_of([said, ""] + _SERVED) == ("NOT_OOM", "machine-powered-off")


@pytest.mark.parametrize("said", [
    "The whole system freezes and then reboots after a few requests.",
    "The system shut down after it ran out of memory.",
])
def test_a_freeze_or_memory_before_the_power_off_is_not_called_power(said):
    assert kind_of([said, ""] + _SERVED)[1] != "machine-powered-off"


# --- a launcher's word that a worker did not start, its cause in another file (h570/07: "[Worker 0] FAILED to start!
# Check tmp/worker_0.log" under "无法成功启动") -------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "[Worker 0] FAILED to start! Check tmp/worker_0.log",
    "backend failed to start, see /var/log/llm/backend.log for details",
])
def test_a_worker_that_failed_to_start_elsewhere_is_undetermined(line):
    lines = ["无法成功启动", "", "Waiting for Workers to load models (~30-90s)...", line, "", "  Service is running!"]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


def test_failed_to_start_without_a_file_is_not_read_as_that():
    lines = ["Waiting for Workers to load models (~30-90s)...", "[Worker 0] started on port 22400", "Service is running!"]
    assert kind_of(lines)[0] == "NONE"


# --- Google Colab's notice of a runtime out of RAM (review 57/x11, review 56b/83) ------------------------------------

def test_colabs_ram_notice_is_host_memory():
    lines = ['Colab: "Your session crashed after using all available RAM. If you are interested in access to high-RAM '
             'runtimes, you may want to check out Colab Pro."', "",
             'pipe = pipeline("text-generation", model="Qwen/Qwen2.5-14B-Instruct", device_map="auto")']
    rep = diag("\n".join(lines))
    assert run_of(rep).oom is True and run_of(rep).kind in ("UNDETERMINED", "WEIGHTS")


def test_colabs_ram_notice_during_the_shards_is_weights():
    lines = ["Loading checkpoint shards:  67%|██████▋   | 2/3 [00:41<00:20, 20.8s/it]",
             "Your session crashed after using all available RAM."]
    assert kind_of(lines)[0] == "WEIGHTS"


# --- a person's words between two runs of what the next try changed (review 57/u07: "ok so I added --max-model-len
# 32768 --gpu-memory-utilization 0.99 and now:" read as the first run's settings) -------------------------------------

_V0_START = ["INFO 11-14 09:01:55 api_server.py:585] vLLM API server version 0.6.3.post1",
             "INFO 11-14 09:02:03 llm_engine.py:237] Initializing an LLM engine (v0.6.3.post1) with config: model='m', "
             "dtype=torch.bfloat16, max_seq_len={len}, tensor_parallel_size=1, enforce_eager=False",
             "INFO 11-14 09:02:11 model_runner.py:1067] Loading model weights took 22.8521 GB"]


@pytest.mark.parametrize("said", [
    "ok so I added --max-model-len 32768 --gpu-memory-utilization 0.99 and now:",
    "Then I set --gpu-memory-utilization 0.99 --max-model-len 32768 and tried again:",
    "Retried with --max-model-len 32768 --gpu-memory-utilization 0.99, same story:",
])
def test_flags_said_changed_after_a_failure_are_the_next_runs(said):
    first = [t.replace("{len}", "1024000") for t in _V0_START] + [
        "INFO 11-14 09:02:14 gpu_executor.py:122] # GPU blocks: 9512, # CPU blocks: 1638",
        "ValueError: The model's max seq len (1024000) is larger than the maximum number of tokens that can be stored in "
        "KV cache (152192). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the "
        "engine."]
    second = [t.replace("{len}", "32768") for t in _V0_START] + [
        "INFO 11-14 09:05:59 gpu_executor.py:122] # GPU blocks: 10322, # CPU blocks: 1638",
        "RuntimeError: CUDA error: out of memory"]
    rep = diag("\n".join(first + ["", said, ""] + second))
    assert len(rep.runs) == 2
    assert rep.runs[0].numbers.get("max_model_len") == 1024000
    assert "gpu_memory_utilization" not in rep.runs[0].numbers
    assert rep.runs[1].numbers.get("gpu_memory_utilization") == 0.99


# --- TensorRT-LLM's C++ executor cutting the attention window to its pool (review 56b/08: "maxAttentionWindowVec[0]
# (32768) is larger than the maximum number of tokens that can be stored in the KV cache (14208). It will be clamped to
# 14208", then Triton READY) ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "[TensorRT-LLM][WARNING] maxAttentionWindowVec[0] (32768) is larger than the maximum number of tokens that can be "
    "stored in the KV cache (14208). It will be clamped to 14208",
    "[TensorRT-LLM][WARNING] maxAttentionWindow (32768) is larger than the maximum number of tokens that can be stored "
    "in the KV cache (14208). It will be clamped to 14208.",
])
def test_trtllms_window_clamped_to_the_pool_is_kv_capacity(line):
    lines = ["[TensorRT-LLM][INFO] Engine version 0.12.0 found in the config file, assuming engine(s) built by new "
             "builder API.", line,
             "I0305 10:00:00.000000 1 grpc_server.cc:2463] Started GRPCInferenceService at 0.0.0.0:8001"]
    rep = diag("\n".join(lines))
    run = run_of(rep)
    assert (run.kind, run.code) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")
    assert run.numbers.get("kv_pool_tokens") == 14208 and run.numbers.get("max_model_len") == 32768


# --- the Kubernetes scheduler's FailedScheduling: no node had the requests free, nothing ran (review 56b/59) ---------

@pytest.mark.parametrize("event", [
    "  Warning  FailedScheduling  2m14s (x12 over 57m)  default-scheduler  0/3 nodes are available: 1 Insufficient "
    "memory, 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found.",
    "57m  Warning  FailedScheduling  pod/vllm-0  0/8 nodes are available: 8 Insufficient nvidia.com/gpu.",
    "Warning FailedScheduling default-scheduler 0/2 nodes are available: 2 Insufficient memory.",
])
def test_a_pod_no_node_can_take_is_not_memory_running_out(event):
    lines = ["$ kubectl describe pod vllm-qwen-7d9f8c6b5-x2kqp", "Status:           Pending", "Events:", event]
    assert kind_of(lines) == ("NOT_OOM", "pod-unschedulable")


def test_a_pod_the_kernel_killed_is_still_host_memory():
    lines = ["$ kubectl describe pod vllm-0", "    Last State:     Terminated", "      Reason:       OOMKilled",
             "      Exit Code:    137"]
    assert kind_of(lines)[0] != "NOT_OOM"


# --- a model execution's failure (cuBLAS's handle) under the frames of a request's generation (review 56b/41) -------

_GENERATE_FRAMES = [
    "RuntimeError                              Traceback (most recent call last)",
    "Cell In[7], line 1",
    "----> 1 out = model.generate(**inputs, max_new_tokens=512, do_sample=False)",
    "File ~/envs/llm/lib/python3.11/site-packages/transformers/generation/utils.py:2255, in GenerationMixin.generate("
    "self, inputs, generation_config, **kwargs)",
    "-> 2255     result = self._sample(",
    "File ~/envs/llm/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py:271, in "
    "LlamaAttention.forward(self, hidden_states, **kwargs)",
    "--> 271 query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)",
]


@pytest.mark.parametrize("error", [
    "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
    "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasLtMatmul( ltHandle, computeDesc.descriptor(), "
    "&alpha_val, mat1_ptr, Adesc.descriptor(), mat2_ptr)`",
])
def test_a_model_executions_failure_under_generate_is_runtime(error):
    assert kind_of(_GENERATE_FRAMES + [error])[0] == "RUNTIME"


def test_a_model_executions_failure_under_a_profile_run_is_not_runtime():
    frames = ['  File "/v/vllm/worker/worker.py", line 229, in determine_num_available_blocks',
              "    self.model_runner.profile_run()",
              '  File "/v/vllm/worker/model_runner.py", line 1235, in profile_run',
              "    self.execute_model(model_input, kv_caches, intermediate_tensors)",
              "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"]
    assert kind_of(["Traceback (most recent call last):"] + frames)[0] != "RUNTIME"


# --- a long document pasted as the prompt, said to kill it (review 56b/25: "when I paste a long document (~28k
# tokens) it dies" above mlx_lm's Metal out of memory) ------------------------------------------------------------

@pytest.mark.parametrize("said", [
    "Works fine for short prompts but when I paste a long document (~28k tokens) it dies:",
    "Any large document I give it crashes the server:",
])
def test_a_long_document_said_to_kill_it_is_runtime(said):
    lines = [said, "$ mlx_lm.generate --model mlx-community/Qwen2.5-14B-Instruct-4bit --max-tokens 1024", "==========",
             "libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer "
             "execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)"]
    assert kind_of(lines)[0] == "RUNTIME"


# --- a batch scheduler's job killed at its memory: the job's own request is the setting (review 57/x04: "#SBATCH
# --mem=32G" above slurmstepd's oom_kill, advised as a container's limit) -------------------------------------------

@pytest.mark.parametrize("lines, said", [
    (["#SBATCH --gres=gpu:a100:1 --mem=32G",
      "+ vllm serve /scratch/models/Mixtral-8x7B-Instruct-v0.1 --tensor-parallel-size 1 --port 8811",
      "slurmstepd: error: Detected 1 oom_kill event in StepId=4471823.batch. Some of the step tasks have been OOM Killed.",
      "srun: error: gpu021: task 0: Out Of Memory"], "--mem (now 32G)"),
    (["INFO 05-02 10:00:00 [model_runner.py:1110] Starting to load model m...",
      "slurmstepd: error: Detected 1 oom_kill event in StepId=81121.batch. Some of the step tasks have been OOM Killed."],
     "Slurm's --mem"),
    (["INFO 05-02 10:00:00 [model_runner.py:1110] Starting to load model m...",
      "=>> PBS: job killed: mem 134217728kb exceeded limit 125829120kb"], "PBS's -l mem"),
])
def test_a_jobs_memory_kill_advises_the_jobs_request(lines, said):
    run = run_of(diag("\n".join(lines)))
    assert run.advice[0]["change"] == "raise the job's memory request" and said in run.advice[0]["why"]


def test_a_kill_outside_a_batch_job_names_no_jobs_request():
    run = run_of(diag("INFO 05-02 10:00:00 [model_runner.py:1110] Starting to load model m...\n"
                      "Out of memory: Killed process 4242 (python3) total-vm:98765432kB, anon-rss:65432100kB"))
    assert all(a["change"] != "raise the job's memory request" for a in run.advice)


# --- a progress bar cut after its 100% (h569/01: the excerpt ends at "Capturing CUDA graphs (decode, FULL):
# 100%|████████", its count cut): that step finished, no step under way ----------------------------------------------

_V1_SIZED = ["(EngineCore pid=1) INFO 04-13 19:51:24 [gpu_worker.py:436] Available KV cache memory: 6.9 GiB",
             "(EngineCore pid=1) INFO 04-13 19:51:24 [kv_cache_utils.py:1319] GPU KV cache size: 89,760 tokens"]


@pytest.mark.parametrize("bar", [
    "Capturing CUDA graphs (decode, FULL): 100%|████████",
    "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 51/51 [00:10<00:00,  4.86it/s]",
])
def test_a_bar_at_its_end_is_no_step_under_way(bar):
    assert kind_of(_V1_SIZED + [bar])[1] != "log-ends-during-step"


@pytest.mark.parametrize("bar", [
    "Capturing CUDA graphs (decode, FULL):  45%|████      | 16/35",
    "Capturing CUDA graphs (decode, FULL):  10%|█",
])
def test_a_bar_short_of_its_end_is_a_step_under_way(bar):
    assert kind_of(_V1_SIZED + [bar])[0] == "UNDETERMINED"


# --- a script's own print of MLX's active memory after each request, "active=18.42 GB" (review 57/l09) --------------

_METAL_OOM = ("libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer "
              "execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)")


def test_active_memory_printed_per_request_that_rises_is_a_leak():
    rows = [f"request {i:<3} active={18.42 + 1.75 * i:.2f} GB  peak={19.1 + 1.75 * i:.2f} GB" for i in range(1, 9)]
    assert kind_of(["mlx_lm server patched to print mx.get_active_memory() after each request:"] + rows
                   + [_METAL_OOM])[0] == "LEAK"


def test_active_memory_printed_per_request_that_stays_is_no_leak():
    rows = [f"request {i:<3} active=18.4{i % 2} GB  peak=26.18 GB" for i in range(1, 9)]
    assert kind_of(["mlx_lm server patched to print mx.get_active_memory() after each request:"] + rows
                   + [_METAL_OOM])[0] != "LEAK"


# --- PyTorch's DataLoader naming shared memory for its workers' bus error (review 56/84) ----------------------------

@pytest.mark.parametrize("line", [
    "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
    "RuntimeError: DataLoader worker (pid 3312) is killed by signal: Bus error. It is possible that dataloader's workers "
    "are out of shared memory. Please try to raise your shared memory limit.",
])
def test_a_dataloaders_shared_memory_bus_error_is_shm(line):
    lines = ["Loading checkpoint shards: 100%|██████████| 4/4 [00:12<00:00,  3.02s/it]", "captioning batch 300/1200",
             line]
    assert kind_of(lines) == ("NOT_OOM", "shm-exhausted")


def test_a_bus_error_that_names_no_shared_memory_stays_undetermined():
    lines = ["Loading checkpoint shards: 100%|██████████| 4/4 [00:12<00:00,  3.02s/it]", "captioning batch 300/1200",
             "Bus error (core dumped)"]
    assert kind_of(lines) == ("UNDETERMINED", "bus-error")


# --- a time-out Ray names as the cause of a remote task's failure (h576/05: "ray.exceptions.RayTaskError(TimeoutError):
# ray::RolloutManager.generate() ...", its own line cut) ----------------------------------------------------------

_RAY_GET = ["Rollout generation:  62%|██████▎   | 40/64 [04:51<02:52,  7.19s/it]",
            "Traceback (most recent call last):",
            '  File "/slime/train.py", line 69, in train',
            "    rollout_data_ref = ray.get(rollout_manager.generate.remote(rollout_id))",
            '  File "/env/lib/python3.12/site-packages/ray/_private/worker.py", line 1015, in get_objects',
            "    raise value.as_instanceof_cause()"]


@pytest.mark.parametrize("line", [
    "ray.exceptions.RayTaskError(TimeoutError): ray::RolloutManager.generate() (pid=1694029, ip=134.100.9.210, actor_id=d9",
    "ray.exceptions.RayTaskError(GetTimeoutError): ray::Worker.step() (pid=22, ip=10.0.0.2)",
])
def test_a_remote_tasks_time_out_is_not_memory(line):
    assert kind_of(_RAY_GET + [line]) == ("NOT_OOM", "remote-task-timeout")


def test_a_remote_tasks_runtime_error_is_not_called_a_time_out():
    line = "ray.exceptions.RayTaskError(RuntimeError): ray::RolloutManager.generate() (pid=1694029, ip=134.100.9.210)"
    assert kind_of(_RAY_GET + [line])[1] != "remote-task-timeout"


# --- an error line that says in itself it goes on with a default, the server serving after (h575/06: "Could not
# determine user, using default path. Error: [Errno 13] Permission denied: '/mnt/nfs_test'") -----------------------

_V1_SERVES = ["(APIServer pid=1) INFO:     Application startup complete.",
              '(APIServer pid=1) INFO:     127.0.0.1:50072 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("line", [
    "(EngineCore_DP0 pid=2) Could not determine user, using default path. Error: [Errno 13] Permission denied: '/mnt/x'",
    "(EngineCore_DP0 pid=2) Error: cannot read /etc/gpu.conf (No such file or directory), falling back to defaults",
])
def test_an_error_that_goes_on_with_a_default_before_serving_is_none(line):
    lines = ["(EngineCore_DP0 pid=2) INFO 04-02 20:18:31 [gpu_model_runner.py:4124] Starting to load model m...", line,
             "(EngineCore_DP0 pid=2) INFO 04-02 20:18:40 [gpu_model_runner.py:4200] Model loading took 9.37 GiB"]
    assert kind_of(lines + _V1_SERVES)[0] == "NONE"


def test_an_error_with_a_default_that_nothing_served_after_stays():
    lines = ["(EngineCore_DP0 pid=2) INFO 04-02 20:18:31 [gpu_model_runner.py:4124] Starting to load model m...",
             "(EngineCore_DP0 pid=2) Could not determine user, using default path. Error: [Errno 13] Permission denied: "
             "'/mnt/x'"]
    assert kind_of(lines)[0] != "NONE"


# --- vLLM's platform detection finding no GPU (h575/04: "No platform detected, vLLM is running on UnspecifiedPlatform")

def test_vllm_on_no_platform_is_not_memory():
    lines = ["2025-07-08 14:03:55,524 - INFO - __init__.py:resolve_current_platform_cls_qualname:248 - No platform "
             "detected, vLLM is running on UnspecifiedPlatform",
             "2025-07-08 14:04:00,584 - INFO - config.py:_verify_args:1980 - Disabled the custom all-reduce kernel "
             "because it is not supported on current platform."]
    assert kind_of(lines)[0] == "NOT_OOM"


# --- a message word-wrapped over several lines on a phone's screen, its trailing spaces dropped (h577/06: "TVMError:
# Check failed: (!" / "free_page_ids_.empty()) is false: The" / "KV cache is full. No page can be" / "allocated") ------

@pytest.mark.parametrize("wrapped", [
    ["TVMError: Check failed: (!", "free_page_ids_.empty()) is false: The", "KV cache is full. No page can be",
     "allocated"],
    ["TVMError: Check failed: (!free_page_ids_.empty()) is false: The KV cache is", "full. No page can be",
     "allocated"],
])
def test_a_message_wrapped_at_spaces_over_lines_is_read_whole(wrapped):
    lines = ["Generation fails for long response", "", "```", "MLCChat failed", "", "Stack trace:",
             "org.apache.tvm.Base$TVMError:", *wrapped, "Stack trace:", "```"]
    assert kind_of(lines) == ("RUNTIME", "request-exceeds-kv-pool")


def test_a_width_cut_mid_word_is_still_joined_without_a_space():
    lines = ["INFO 05-02 10:00:00 [model_runner.py:1110] Starting to load model m...",
             "ValueError: Free memory on device (14.2/79.1 GiB) on startup is less than desired GPU memory utiliz",
             "ation (0.9, 71.2 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."]
    assert kind_of(lines)[1] in ("gpu-shared-with-other-process", "fraction-above-free")


# --- MLC's Android app's frames: an image sent or a message generated (h577/07: "at
# com.modelbest.mlcllm.ChatModule.image(ChatModule.java:63)" under "CL_OUT_OF_HOST_MEMORY") -----------------------------

@pytest.mark.parametrize("frame, kind", [
    ("\tat com.modelbest.mlcllm.ChatModule.image(ChatModule.java:63)", "RUNTIME"),
    ("\tat ai.mlc.mlcllm.ChatModule.prefill(ChatModule.java:54)", "RUNTIME"),
    ("\tat ai.mlc.mlcllm.ChatModule.reload(ChatModule.java:46)", "WEIGHTS"),
])
def test_mlc_android_frames_place_the_failure(frame, kind):
    lines = ["MLCChat failed", "", "Stack trace:",
             "org.apache.tvm.Base$TVMError: TVMError: OpenCL build error for device=0x77c655bb58",
             "Error: CL_OUT_OF_HOST_MEMORY", "", "\tat org.apache.tvm.Base.checkCall(Base.java:173)",
             "\tat org.apache.tvm.Function.invoke(Function.java:130)", frame]
    assert kind_of(lines)[0] == kind


# --- Android's tombstone of a native crash (h577/08: logcat's "F DEBUG   :       #00 pc 000000000019000c ...") ------

def test_an_android_tombstone_is_a_crash_whose_cause_is_not_shown():
    lines = ["when I try to load the model, the app just closes.", "```",
             "09-26 23:40:56.685 22955 23001 I RNLLAMA_ANDROID_JNI: [RNLlama] is_model_loaded false",
             "09-26 23:40:57.089 23062 23062 F DEBUG   :       #00 pc 000000000019000c  /data/app/com.pocketpalai/lib/arm64/"
             "librnllama_v8_4_fp16_dotprod.so", "```"]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


# --- vLLM V1's engine core killed by SIGKILL, listed by its front end ("Failed core proc(s): {'EngineCore_0': -9}"),
# in an excerpt with no load step: a kill whose sender is not named, the phase not shown (review 57b/U03 read WEIGHTS) --

def test_an_engine_core_killed_with_no_load_step_shown_is_undetermined():
    lines = ["$ docker logs --tail 25 vllm-qwen",
             "INFO 06-30 12:11:43 [core.py:70] Initializing a V1 LLM engine (v0.9.1) with config: model='Qwen/Qwen3-32B-AWQ', "
             "max_seq_len=32768, tensor_parallel_size=2",
             "Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/utils.py", line 454, in wait_for_engine_startup',
             '    raise RuntimeError("Engine core initialization failed. "',
             "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): "
             "{'EngineCore_0': -9}"]
    assert kind_of(lines) == ("UNDETERMINED", "host-oom-kill")


def test_an_engine_core_killed_while_its_weights_load_is_weights():
    lines = ["INFO 06-30 12:11:50 [gpu_model_runner.py:1595] Starting to load model Qwen/Qwen3-32B-AWQ...",
             "Loading safetensors checkpoint shards:  40% Completed | 2/5 [00:31<00:47, 15.7s/it]",
             "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): "
             "{'EngineCore_0': -9}"]
    assert kind_of(lines)[0] == "WEIGHTS"


# --- a line that names serving only to say it crashed doing so is no recovery (review 57b/L08: "rerank worker crashed
# while serving request id=req_8f31a; restarting" after an out of memory, read NONE recovered-at-start); a script's own
# metric with its unit in its name ("torch_reserved_gb=22.1") is a memory reading ------------------------------------

def test_a_crash_while_serving_after_an_oom_is_no_recovery():
    lines = ["2024-12-03T20:14:00Z reranker error torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 "
             "MiB. GPU 0 has a total capacity of 23.68 GiB of which 188.31 MiB is free.",
             "2024-12-03T20:14:01Z reranker error rerank worker crashed while serving request id=req_8f31a; restarting "
             "(attempt 1/5)"]
    assert kind_of(lines)[0] != "NONE"


def test_a_scripts_own_metrics_that_rise_are_a_leak():
    rows = [f"2024-12-03T{h:02d}:00:00Z reranker info served batch n=32 torch_reserved_gb={10.4 + 1.3 * i:.1f} "
            f"nvml_used_gb={11.3 + 1.3 * i:.1f}" for i, h in enumerate(range(0, 20, 2))]
    lines = rows + ["2024-12-03T20:14:00Z reranker error torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                    "512.00 MiB. GPU 0 has a total capacity of 23.68 GiB of which 188.31 MiB is free."]
    assert kind_of(lines)[0] == "LEAK"


# --- TensorRT-LLM's execution context out of memory, after the engine's weights and before the KV pool (review 57b/A07
# read KV_CAPACITY from "weights allocated", and was advised a lower kv_cache_free_gpu_mem_fraction) -----------------

@pytest.mark.parametrize("oom", [
    "[TensorRT-LLM][ERROR] 2: [executionContext.cpp::ExecutionContext::564] Error Code 2: OutOfMemory (Requested size "
    "was 8858370048 bytes.)",
    "[TensorRT-LLM][ERROR] 1: [executionContext.cpp::ExecutionContext::411] Error Code 1: Cuda Runtime (out of memory)",
])
def test_trtllms_execution_context_oom_is_warmup_advised_by_the_builds_limits(oom):
    lines = ["[TensorRT-LLM][INFO] TRTGptModel maxNumTokens: 16384",
             "[TensorRT-LLM][INFO] Loaded engine size: 15323 MiB",
             "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 15320 MiB for engine weights.",
             "[TensorRT-LLM][ERROR] 1: [defaultAllocator.cpp::allocate::20] Error Code 1: Cuda Runtime (out of memory)",
             oom,
             "[TensorRT-LLM][ERROR] Assertion failed: Unable to create execution context"]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("WARMUP", "execution-context-oom")
    assert run.advice[0]["setting"] == "max_num_batched_tokens" and run.advice[0]["direction"] == "down"
    assert all(a["setting"] != "memory_fraction" for a in run.advice)
