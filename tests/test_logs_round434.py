"""Kinds of fault found on held-out rounds 434-445 (logs vramdoctor had not seen), each in several wordings of our own,
with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import kind_of

_BARE_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.66 GiB. GPU 0 has a total capacity of "
             "79.25 GiB of which 1.57 GiB is free.")
_VLLM_UP = ["INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.1",
            "INFO 05-01 10:00:05 [gpu_model_runner.py:1000] Model loading took 14.99 GiB and 5.1 seconds",
            "INFO:     Application startup complete."]


# --- the shell could not find the program: nothing started (h435/12)

@pytest.mark.parametrize("line", [
    "nohup: failed to run command 'vllm': No such file or directory",
    "bash: vllm: command not found",
    "zsh: command not found: llama-server",
    "/bin/sh: 1: sglang: not found",
    "'ollama' is not recognized as an internal or external command,",
    "The term 'vllm' is not recognized as the name of a cmdlet, function, script file, or operable program.",
    'docker: Error response from daemon: failed to create task for container: OCI runtime create failed: runc create '
    'failed: unable to start container process: exec: "vllm": executable file not found in $PATH: unknown.',
])
def test_a_command_not_found_is_not_memory(line):
    assert kind_of(["$ vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192", line]) == (
        "NOT_OOM", "command-not-found")


@pytest.mark.parametrize("missing", ["/entrypoint.sh: line 3: nvidia-smi: command not found", "sh: 1: lsof: not found"])
def test_a_helper_not_found_before_or_beside_a_server_that_runs_is_no_failure(missing):
    lines = [missing, *_VLLM_UP, 'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    assert kind_of(lines)[0] == "NONE"
    lines = [*_VLLM_UP[:2], missing, _VLLM_UP[2], 'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    assert kind_of(lines)[0] == "NONE"


# --- vLLM's context check as a user retypes it (h435/02)

@pytest.mark.parametrize("line", [
    "ValueError : the model's max seq len (32768) is larger than the maxinum number of tokens that can be stored in KV "
    "cache, Try increasing 'gpu_memory_utilization' or decreasing 'max_model_len' when initializing the engine",
    "ValueError: The model's max seq len (8192) is larger than the maxinum number of tokens that can be stored in KV "
    "cache (5000).",
])
def test_the_context_check_retyped_is_the_kv_cache(line):
    assert kind_of(["GPTQ-int4 vllm部署出错", line]) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")


# --- vLLM's tool-call parser failing on a model's answer: that request's, not memory (h435/05)

@pytest.mark.parametrize("line", [
    "(APIServer pid=85343) ERROR 10-09 09:39:54 [hermes_tool_parser.py:157] Error in extracting tool call from response.",
    "ERROR 03-02 11:02:10 [mistral_tool_parser.py:201] Error trying to handle streaming tool call.",
])
def test_a_tool_call_the_parser_could_not_read_is_not_memory(line):
    lines = [*_VLLM_UP, 'INFO:     127.0.0.1:50001 - "POST /v1/chat/completions HTTP/1.1" 200 OK', line,
             "Traceback (most recent call last):", '  File "/x/hermes_tool_parser.py", line 135, in <listcomp>',
             "    json.loads(match[0] if match[0] else match[1])"]
    assert kind_of(lines) == ("NOT_OOM", "tool-call-parse-error")


# --- JAX probing its back ends at INFO is no library missing (h436/02)

_JAX = ["I0224 16:15:11.469793 140378916851712 checkpointer.py:164] Restoring item from /home/d/gemma/2b-it.",
        "I0224 16:15:27.563766 140378916851712 xla_bridge.py:689] Unable to initialize backend 'rocm': module "
        "'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'",
        "I0224 16:15:27.568676 140378916851712 xla_bridge.py:689] Unable to initialize backend 'tpu': INTERNAL: Failed "
        "to open libtpu.so: libtpu.so: cannot open shared object file: No such file or directory",
        "W0224 16:15:27.568863 140378916851712 xla_bridge.py:727] An NVIDIA GPU may be present on this machine, but a "
        "CUDA-enabled jaxlib is not installed. Falling back to cpu."]


def test_jax_probing_its_back_ends_is_no_failure():
    assert kind_of([*_JAX, "Parameters loaded."])[0] == "NONE"
    assert kind_of([*_JAX, "Parameters loaded.", "Killed"])[1] != "library-load-failed"


def test_a_library_that_will_not_load_is_still_read():
    line = "python3: error while loading shared libraries: libcudart.so.12: cannot open shared object file"
    assert kind_of([line]) == ("NOT_OOM", "library-load-failed")


# --- a supervisor's line naming the bug class it caught (h436/03)

@pytest.mark.parametrize("line", [
    "2025-04-03 11:13:48,716 - __main__ - ERROR - IndexError in model, restarting server",
    "2025-04-03 11:13:48,716 - worker - ERROR - KeyError while processing request 17",
    "ERROR: AttributeError during generation, see above",
])
def test_a_bug_class_named_by_a_supervisor_is_not_memory(line):
    lines = ["2025-04-03 11:13:46,686 - __main__ - INFO - The server is fired up and ready to roll!", line]
    assert kind_of(lines) == ("NOT_OOM", "code-error")


def test_a_bug_class_named_in_a_persons_words_is_not_read():
    assert kind_of(["I think there is a KeyError in my config somewhere.", _BARE_OOM])[0] != "NOT_OOM"


# --- TensorRT-LLM's GEMM profiler finding no kernel that runs here (h436/06)

@pytest.mark.parametrize("line", [
    "  what():  [TensorRT-LLM][ERROR] Assertion failed: No valid weight only groupwise GEMM tactic(It is usually caused "
    "by the failure to execute all candidate configurations of the CUTLASS kernel, please pay attention to the warning "
    "information when building the engine.) (/src/weightOnlyGroupwiseQuantMatmulPlugin.cpp:511)",
    "[TensorRT-LLM][ERROR] Assertion failed: No valid weight only per-channel GEMM tactic",
])
def test_no_valid_gemm_tactic_is_not_memory(line):
    lines = ["terminate called after throwing an instance of 'tensorrt_llm::common::TllmException'", line]
    assert kind_of(lines) == ("NOT_OOM", "kernel-no-valid-tactic")


# --- Ollama's load timeout, its runner now llama.cpp's own server (h436/07)

@pytest.mark.parametrize("line", [
    'time=2026-06-02T07:22:05.634Z level=ERROR source=sched.go:455 msg="error loading llama server" '
    'error="timed out waiting for llama-server to start - progress 0.45 - "',
    'time=2026-06-02T07:22:05.634Z level=ERROR source=sched.go:455 msg="error loading llama server" '
    'error="timed out waiting for llama runner to start - progress 0.00 - "',
])
def test_ollamas_load_timeout_in_both_wordings(line):
    lines = ['time=2026-06-02T07:17:05.634Z level=INFO source=server.go:100 msg="starting llama server"', line]
    assert kind_of(lines) == ("NOT_OOM", "load-timeout")


# --- an out of memory answered right after as a failed request: that request's (h437/06)

_AWQ_TB = ['  File "/usr/local/lib/python3.10/site-packages/vllm/model_executor/layers/quantization/awq.py", line 169, '
           'in apply',
           "    out = ops.awq_dequantize(qweight, scales, qzeros, 0, 0, 0)",
           "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 416.00 MiB. GPU "]


@pytest.mark.parametrize("answer", [
    'INFO:     10.96.202.56:41576 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
    'INFO:     127.0.0.1:40000 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error',
    'INFO:     127.0.0.1:40000 - "POST /generate HTTP/1.1" 500 Internal Server Error',
])
def test_an_out_of_memory_then_a_failed_request_is_serving(answer):
    assert kind_of([*_AWQ_TB, answer, "ERROR:    Exception in ASGI application"])[0] == "RUNTIME"


def test_a_500_from_a_server_that_loads_on_request_places_nothing():
    # (Ollama loads the model for the request: its 500 may be that load's)
    lines = ['time=2025-01-01T10:00:00.000Z level=INFO source=server.go:100 msg="starting llama server"',
             "CUDA error: out of memory",
             "[GIN] 2025/01/01 - 10:00:05 | 500 |  5.1s |       127.0.0.1 | POST     \"/api/chat\""]
    assert kind_of(lines)[0] != "RUNTIME"


# --- the input a failure came with, named: serving (h436/12, h440/11, h435/01)

@pytest.mark.parametrize("said", [
    "CUDA-ooM with large PDFs",
    "it's still failing for a 5 page pdf with the following error:",
    "The server crashes on large images with this error:",
    "我在xinference中部署了Qwen2.5-VL-7b，可以正常使用，但是通过dify接入的时候传一个稍微大一点的图片会超显存",
    "单加载完模型后，UI上传图片，输入提示词，提交后又报显存不足的错误。",
])
def test_the_input_it_failed_with_is_serving(said):
    assert kind_of([said, _BARE_OOM])[0] == "RUNTIME"


def test_a_programs_prompt_for_input_is_no_request():
    lines = [_BARE_OOM, "程序：", "while True:", "    prompt = input(\"请输入您的问题（输入'退出'来结束对话）: \")"]
    assert kind_of(lines)[0] != "RUNTIME"


@pytest.mark.parametrize("said, oom", [
    ("传一个稍微大一点的图片会超显存", True),
    ("显存超了，模型加载不了", True),
    ("这个配置不会超显存", False),
])
def test_more_than_there_is_in_chinese_is_out_of_memory(said, oom):
    kind = kind_of([said])[0]
    assert (kind not in ("NONE", "NOT_OOM")) == oom, kind


# --- accelerate's loader, a model built empty and then loaded (h434/04)

def test_a_traceback_cut_in_accelerates_loader_is_the_weights():
    lines = ["Loading checkpoint shards: 100%|██████████| 8/8 [00:01<00:00,  7.85it/s]",
             "Traceback (most recent call last):",
             '  File "/x/cli_demo_multi_gpus.py", line 51, in <module>',
             "    model = load_checkpoint_and_dispatch(model, MODEL_PATH, device_map=device_map, dtype=TORCH_TYPE)",
             '  File "/x/site-packages/accelerate/big_modeling.py", line 607, in load_checkpoint_and_dispatch',
             "    load_checkpoint_in_model(",
             '  File "/x/site-packages/accelerate/utils/modeling.py", line 1736, in load_checkpoint_in_model',
             "    set_module_tensor_to_device(",
             "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 112.00 MiB."]
    assert kind_of(lines)[0] == "WEIGHTS"


# --- a program pasted above the error: its code is no step the run reached (h434/11)

def test_a_pasted_programs_generate_call_is_no_request():
    lines = ["import torch", "from transformers import AutoModelForCausalLM, AutoTokenizer", "",
             "model = AutoModelForCausalLM.from_pretrained(", '    "THUDM/glm-4-9b-chat",', ").to(device).eval()", "",
             "with torch.no_grad():", "    outputs = model.generate(**inputs, **gen_kwargs)",
             "    print(tokenizer.decode(outputs[0], skip_special_tokens=True))", "",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.16 GiB. GPU 0 has a total capacity of "
             "11.00 GiB of which 0 bytes is free."]
    assert kind_of(lines)[0] != "RUNTIME"


def test_a_generate_frame_in_a_traceback_is_still_serving():
    lines = ["Loading checkpoint shards: 100%|██████████| 4/4", "Traceback (most recent call last):",
             '  File "/x/chat.py", line 30, in <module>', "    outputs = model.generate(**inputs, **gen_kwargs)",
             '  File "/x/site-packages/transformers/generation/utils.py", line 2024, in generate',
             "    result = self._sample(", _BARE_OOM]
    assert kind_of(lines)[0] == "RUNTIME"


# --- growth in more Chinese words (h434/01)

@pytest.mark.parametrize("said", [
    "加载多模态选项后，后台nvidia-smi会持续增长到32G后，报错",
    "加载多模态时，会出现累积的显存，然后到上限后报错",
    "每次对话之后显存不断堆积，最后OOM",
])
def test_growth_in_more_chinese_words(said):
    assert kind_of([said, _BARE_OOM]) == ("LEAK", "memory-growth-stated")


def test_a_total_is_no_growth():
    assert kind_of(["累计显存占用 20G，加载模型时报错", _BARE_OOM])[0] != "LEAK"


# --- the report's words that the program went on past the error it shows (h434/13)

_COMPILED = ["No compiled kernel found.", "Compiling kernels : /home/d/.cache/quantization_kernels_parallel.c",
             "Load kernel : /home/d/.cache/quantization_kernels_parallel.so", "Applying quantization to glm layers"]


@pytest.mark.parametrize("said", ["但是还是能正常往下运行", "不过不影响使用", "But it still runs fine afterwards."])
def test_an_error_the_report_says_it_goes_on_past_is_no_failure(said):
    assert kind_of(["每次运行都会出现如下报错", *_COMPILED, said])[0] == "NONE"


@pytest.mark.parametrize("said", ["但是还是能正常运行，但是推理时报错", "It still runs, but then crashes after a minute."])
def test_going_on_taken_back_is_still_a_failure(said):
    assert kind_of(["每次运行都会出现如下报错", *_COMPILED, said])[0] != "NONE"


# --- a worker that cannot reach its controller; a launcher's workers that failed elsewhere (h438/04, h440/04)

def test_a_fastchat_worker_without_its_controller_is_not_memory():
    lines = ["2023-05-30 17:19:25 | ERROR | stderr | ConnectionError: HTTPConnectionPool(host='localhost', port=21001): "
             "Max retries exceeded with url: /register_worker",
             "2023-05-30 17:19:25 | ERROR | stderr | (Caused by NewConnectionError('<urllib3.connection.HTTPConnection "
             "object at 0x7fed5f8683a0>: Failed to establish a new connection: [Errno 111] Connection refused'))"]
    assert kind_of(lines) == ("NOT_OOM", "communication-error")


def test_workers_that_failed_elsewhere_then_a_cleanup_error_show_no_cause():
    lines = ["Loading Weights:   0%|          | 0/100 [00:05<?, ?it/s]",
             "ERROR    2026-04-19 19:22:38,720 4358  engine.py[line:160] Failed to launch worker processes, check "
             "log/workerlog.* for more details.",
             "ERROR    2026-04-19 19:22:46,347 4358  engine.py[line:447] Error extracting sub services: [Errno 3] No "
             "such process, Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.10/dist-packages/fastdeploy/engine/engine.py", line 444, in '
             "_exit_sub_services",
             "    pgid = os.getpgid(self.worker_proc.pid)",
             "ProcessLookupError: [Errno 3] No such process"]
    assert kind_of(lines)[0] == "UNDETERMINED"


# --- inference of one mode, by its name; a model loaded again or beside another (h437/07, h438/07)

@pytest.mark.parametrize("said, kind", [
    ("OOM During QDQ Inference with Over 20 GB Free Memory", "RUNTIME"),
    ("CUDA OOM during FP8 inference on the H100", "RUNTIME"),
    ("When I load a second model it fails:", "WEIGHTS"),
    ("when reloading the model it runs out of memory", "WEIGHTS"),
    ("Switching to the 13B model fails with OOM.", "WEIGHTS"),
    ("选择ChatGLM-6B-int8 重新加载模型后，报错，此时显卡使用如下:", "WEIGHTS"),
])
def test_more_words_that_place_the_failure(said, kind):
    assert kind_of([said, _BARE_OOM])[0] == kind


def test_an_inference_engines_start_is_not_serving():
    assert kind_of(["OOM during vLLM inference engine start", _BARE_OOM])[0] != "RUNTIME"


# --- growth told by the long use it needs, or stated with a question mark (h438/12, h437/05)

@pytest.mark.parametrize("said", [
    "we're running into out of memory problems over extended periods of usage.",
    "We encounter OOM after a few hundred prompts.",
    "The server crashes with out of memory after ~2000 requests.",
    "During the gptq quantization process, the gpu memory usage increases until the oom?",
])
def test_growth_told_by_long_use(said):
    assert kind_of([said, _BARE_OOM]) == ("LEAK", "memory-growth-stated")


@pytest.mark.parametrize("said", [
    "Does the gpu memory usage increase until the oom?",
    "It crashes after the second request.",
    "It crashes after 2 requests with long prompts.",
])
def test_a_question_or_a_few_requests_is_no_growth(said):
    assert kind_of([said, _BARE_OOM])[0] != "LEAK"


# --- gpt-fast's static KV cache (fish-speech, torchchat) (h444/04)

def test_a_static_cache_made_by_setup_caches_is_the_kv_cache():
    lines = ['  File "M:\\x\\fish_speech\\models\\text2semantic\\inference.py", line 762, in worker',
             "    model.setup_caches(",
             '  File "M:\\x\\fish_speech\\models\\text2semantic\\llama.py", line 395, in setup_caches',
             "    b.attention.kv_cache = KVCache(",
             '  File "M:\\x\\fish_speech\\models\\text2semantic\\llama.py", line 279, in __init__',
             '    self.register_buffer("k_cache", torch.zeros(cache_shape, dtype=dtype))',
             "torch.OutOfMemoryError: Allocation on device"]
    assert kind_of(lines)[0] == "KV_CAPACITY"


# --- vLLM refusing an image longer than its encoder cache: a request refused (h443/05)

def test_an_image_over_the_encoder_cache_is_a_request_refused():
    line = ("openai.BadRequestError: Error code: 400 - {'error': {'message': 'The decoder prompt contains a(n) image item "
            "with length 4200, which exceeds the pre-allocated encoder cache size 3721. Please reduce the input size or "
            "increase the encoder cache size by setting --limit-mm-per-prompt at startup.'}}")
    assert kind_of([*_VLLM_UP, line]) == ("NOT_OOM", "requests-refused-too-long")


# --- glibc's heap checks in more words, a progress bar run on into them (h443/09)

@pytest.mark.parametrize("line", [
    "mineru-client | free(): corrupted unsorted chunks2l<00: 00,1.62s/it]",
    "malloc(): corrupted top size",
])
def test_more_of_glibcs_heap_checks_are_corruption(line):
    assert kind_of(["Two Step Extraction: 100%|██████████| 244/244", line, "Aborted (core dumped)"]) == (
        "NOT_OOM", "heap-corruption")


# --- ggml's check that a tensor has no buffer yet: allocated twice, a bug (h444/09)

def test_a_tensor_given_a_second_buffer_is_a_bug():
    line = "/x/external/ggml/src/ggml-backend.cpp:1982: GGML_ASSERT(tensor->buffer == NULL) failed"
    assert kind_of(["load_backend: loaded CPU backend from libggml-cpu.so", line]) == ("NOT_OOM", "ggml-assert")


def test_a_buffer_that_is_null_may_be_memory():
    line = "/x/ggml/src/ggml-backend.cpp:1982: GGML_ASSERT(buffer != NULL) failed"
    assert kind_of(["load_backend: loaded CPU backend from libggml-cpu.so", line])[0] != "NOT_OOM"


# --- TensorRT's engine plan refused, its line ending there (h444/07)

def test_an_engine_plan_refused_in_few_words_is_not_memory():
    lines = ["I0408 20:10:00.000000 1 pinned_memory_manager.cc:275] Pinned memory pool is created at '0x7f' with size "
             "268435456", "[04/08/2024-20:10:01] [TRT] [E] 6: The engine plan file is not compatible"]
    assert kind_of(lines) == ("NOT_OOM", "engine-plan-incompatible")


# --- the report's words of a stop or an error the paste does not show (h442/09, h439/10)

_BOX = ["[2025-07-12 01:25:26.526801] I version    : v0.0.136 (b376289)",
        "[2025-07-12 01:25:27.527114] I ggml_cuda_init: found 1 CUDA devices:"]


@pytest.mark.parametrize("said", [
    "Shortly after starting the server, the process stops abruptly without showing any error.",
    "The server stopped unexpectedly after this:",
    "the instance show the error as follow:",
    "I get the following error:",
    "it gives error as below",
])
def test_a_failure_told_and_not_shown_is_undetermined(said):
    assert kind_of([said, *_BOX]) == ("UNDETERMINED", "failure-cause-not-shown")


def test_an_error_no_longer_had_is_no_failure():
    assert kind_of(["I no longer get the following error:", *_BOX])[0] == "NONE"


# --- the requests by their length, in a person's words (h442/12)

@pytest.mark.parametrize("said", [
    "OOM on longer context questions, because those push it over 48GB VRAM.",
    "It crashes on long prompts.",
    "The server fails with large inputs every time.",
])
def test_long_requests_named_are_serving(said):
    assert kind_of(["Yes, it will load and you can ask short questions.", said, _BARE_OOM])[0] == "RUNTIME"


# --- vLLM's sleep-mode allocator failing a CUDA call for another cause, then PyTorch's out of memory (h441/07)

_CUMEM_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 7 has a total capacity of "
              "79.11 GiB of which 66.43 GiB is free. Including non-PyTorch memory, this process has 0 bytes memory in use.")


@pytest.mark.parametrize("line", [
    "CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:119",
    "(EngineCore_DP0 pid=2231) CUDA Error: operation not supported at /opt/vllm/csrc/cumem_allocator.cpp:73",
])
def test_the_sleep_mode_allocators_cuda_error_is_not_memory(line):
    lines = ["INFO 03-01 10:00:00 [gpu_worker.py:100] Sleep mode enabled", line, "",
             '  File "/x/torch/cuda/memory.py", line 700, in _alloc', "    return func(*args, **kwargs)", _CUMEM_OOM]
    assert kind_of(lines) == ("NOT_OOM", "allocator-cuda-error")


def test_the_sleep_mode_allocator_out_of_memory_is_memory():
    lines = ["INFO 03-01 10:00:00 [gpu_worker.py:100] Sleep mode enabled",
             "CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62", _BARE_OOM]
    assert kind_of(lines)[0] not in ("NOT_OOM", "NONE")


# --- one request's arrival told (h444/08)

@pytest.mark.parametrize("said", [
    "A long TTS request arrived while other processes held most of the card (~2.5 GiB free).",
    "Then the first request came in and it died:",
])
def test_a_requests_arrival_told_is_serving(said):
    assert kind_of([said, _BARE_OOM])[0] == "RUNTIME"


def test_a_request_before_the_load_is_not_serving():
    assert kind_of(["The request arrived before the model was loaded.", _BARE_OOM])[0] != "RUNTIME"


# --- from the new-user review of stop 46 ---------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["llm-1  | /bin/sh: 1: vllm: not found", "llm-1 exited with code 127"],
    ["[pod/sglang-7c9f/sglang] /bin/bash: line 1: sglang: command not found"],
    ["server-1  | /usr/bin/env: 'python3': No such file or directory", "server-1 exited with code 127"],
    ["2025-03-01 10:00:00,001 INFO spawnerr: can't find command 'llama-server'",
     "2025-03-01 10:00:04,006 INFO gave up: llama entered FATAL state, too many start retries too quickly"],
    ["Mar 02 11:20:01 box (vllm)[2041]: vllm.service: Failed at step EXEC spawning /opt/venv/bin/vllm: No such file or "
     "directory", "Mar 02 11:20:01 box systemd[1]: vllm.service: Main process exited, code=exited, status=203/EXEC"],
    ["(base) root@gpu01:~# vllm serve /data/Qwen2.5-7B", "bash: vllm: 未找到命令"],
    ["C:\\Users\\li>ollama serve", "'ollama' 不是内部或外部命令，也不是可运行的程序"],
    ["PS C:\\> vllm serve x", "vllm: The term 'vllm' is not recognized as a name of a cmdlet, function, script file, or "
     "executable program."],
    ["~> llama-server -m m.gguf", "fish: Unknown command: llama-server"],
    ["% ./build/bin/llama-server -m m.gguf", "zsh: no such file or directory: ./build/bin/llama-server"],
])
def test_command_not_found_in_more_shells_and_under_prefixes(lines):
    assert kind_of(lines) == ("NOT_OOM", "command-not-found")


def test_a_program_the_shell_may_not_run_is_access_denied():
    assert kind_of(["$ ./llama-server -m m.gguf", "-bash: ./llama-server: Permission denied"]) == (
        "NOT_OOM", "access-denied")


def test_a_helper_not_found_while_the_server_serves_is_no_failure():
    lines = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
             "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
             "bash: nvtop: command not found",
             "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]
    assert kind_of(lines)[0] == "NONE"


def test_a_tool_call_error_the_server_went_on_from_gives_way_to_a_later_out_of_memory():
    lines = [*_VLLM_UP, 'INFO:     172.17.0.1:50412 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             "ERROR 05-14 09:20:41 [hermes_tool_parser.py:115] Error in extracting tool call from response.",
             'INFO:     172.17.0.1:50420 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             "ERROR 05-14 10:02:11 [core.py:390] EngineCore encountered a fatal error.",
             "ERROR 05-14 10:02:11 [core.py:390] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.64 GiB."]
    assert kind_of(lines)[0] == "RUNTIME"


@pytest.mark.parametrize("said", [
    "Update: after upgrading I no longer get the following error: `torch.OutOfMemoryError: CUDA out of memory`. Log:",
    "With 0.9 I don't get this OOM anymore, log of the working run:",
])
def test_an_error_no_longer_had_in_one_line_is_no_failure(said):
    assert kind_of([said, *_VLLM_UP, 'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK'])[0] \
        == "NONE"


@pytest.mark.parametrize("lines, code", [
    (["INFO:2025-07-20 10:00:00,000:jax._src.xla_bridge:895: Unable to initialize backend 'tpu': INTERNAL: Failed to "
      "open libtpu.so: libtpu.so: cannot open shared object file: No such file or directory", "Using CPU backend."],
     None),
    (["[TensorRT-LLM] TensorRT-LLM version: 0.17.0", "[02/10/2025-08:00:01] [TRT] [E] IRuntime::deserializeCudaEngine: "
      "Error Code 1: Serialization (Serialization assertion stdVersionRead == kSERIALIZATION_VERSION failed.Version tag "
      "does not match. Note: Current Version: 239, Serialized Engine Version: 238)"], "engine-plan-incompatible"),
    (["slot launch_slot_: id  0 | task 0 | processing task", "Exception 0xc0000374 0x0 0x0 0x7ffd3e0f93a9",
      "signal arrived during external code execution"], "heap-corruption"),
    (["2024-01-09 14:30:05 | ERROR | stderr | requests.exceptions.ConnectionError: HTTPConnectionPool(host='localhost', "
      "port=21001): Max retries exceeded with url: /list_models (Caused by NewConnectionError('...: Failed to establish "
      "a new connection: [Errno 111] Connection refused'))"], "communication-error"),
])
def test_more_wordings_from_the_review(lines, code):
    kind, got = kind_of(lines)
    assert (kind, got) == ("NOT_OOM", code) if code else kind == "NONE", (kind, got)


def test_the_context_check_with_another_typo():
    line = ("ValueError: The model's max seq len (32768) is larger than the maximun number of tokens that can be stored "
            "in KV cache (12000).")
    assert kind_of([line]) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")


@pytest.mark.parametrize("said, kind", [
    ("Every time I reload the model after changing the adapter it goes OOM; a fresh start loads fine.", "WEIGHTS"),
    ("Switching from the 8B to the 70B model in the UI fails with:", "WEIGHTS"),
    ("同一张卡上再加载第二个模型时报错：", "WEIGHTS"),
    ("The service runs out of GPU memory when users upload PDFs bigger than 40 pages.", "RUNTIME"),
    ("Sending a request with 6 images in one message crashes the server with OOM.", "RUNTIME"),
    ("识别超过10分钟的音频就会爆显存：", "RUNTIME"),
    ("图片分辨率一大就显存不足：", "RUNTIME"),
    ("页面上输入问题，点提交之后就报显存不足了：", "RUNTIME"),
])
def test_paraphrases_that_place_the_failure(said, kind):
    assert kind_of([said, _BARE_OOM])[0] == kind


@pytest.mark.parametrize("said", [
    "After a couple of thousand requests the server always OOMs; right after a restart it's fine.",
    "VRAM usage creeps up day after day until it dies with OOM.",
    "We get out of memory after long periods of use.",
    "长时间运行后显存会一点点累积，两三天就 OOM 一次：",
])
def test_paraphrases_of_growth(said):
    assert kind_of([said, _BARE_OOM]) == ("LEAK", "memory-growth-stated")


_LLAMA_OK = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
             "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]


@pytest.mark.parametrize("said", [
    "The server exits after ~10 minutes with no error message at all. Last lines:",
    "服务跑着跑着进程就没了，没有任何报错信息：",
    "When I send a request the server gives the error shown below:",
    "发送请求后报如下错误：",
])
def test_paraphrases_of_a_failure_not_shown(said):
    assert kind_of([said, *_LLAMA_OK]) == ("UNDETERMINED", "failure-cause-not-shown")


@pytest.mark.parametrize("said", ["容器启动日志如下，服务能正常用，只是想问这个报错要不要紧：",
                                  "下面这个报错出现后程序还能继续正常推理，只是想知道原因："])
def test_an_error_the_report_says_it_goes_on_past_in_the_same_line(said):
    assert kind_of([said, *_LLAMA_OK])[0] == "NONE"


@pytest.mark.parametrize("said", ["With --max-model-len 16384 I no longer get the following error:",
                                  "After the upgrade we don't get this error anymore:"])
def test_an_error_quoted_under_words_that_it_is_gone_is_no_failure(said):
    lines = [said, "", "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that "
             "can be stored in KV cache (20480).", "", "New run for reference:", *_VLLM_UP]
    assert kind_of(lines)[0] == "NONE"


def test_an_error_quoted_under_words_that_it_is_still_there_is_the_failure():
    lines = ["With --max-model-len 16384 I still get the following error:", "",
             "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be "
             "stored in KV cache (20480)."]
    assert kind_of(lines)[0] == "KV_CAPACITY"
