"""`vramdoctor logs` on the kinds of fault the held-out rounds 218 and later (issue 6, stop 32) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, kind_of, run_of

# --- a report's sentence of an out-of-memory above a traceback that goes on to its own cause, and that cause is not
# memory (a feature request's motivation, then the crash of the workaround it tried): the log's failure decides, as
# where a title names the out-of-memory; its frames are never the out-of-memory's place (they made it WEIGHTS) -----

_FRAMES = ['  File "/usr/lib/python3.10/site-packages/sglang/srt/layers/moe/fused_moe_triton/layer.py", line 227, in '
           '__init__']


@pytest.mark.parametrize("said,error", [
    ("Currently, SGLang supports dp+ep. But for A100, when the context is very long, it will result in OOM.",
     ["    assert self.quant_method is not None", "AssertionError"]),
    ("For long prompts on A100 it always results in OOM, so we need AWQ support for DeepSeek V2.",
     ["    self.quant_method = get_quant_method(config)",
      "ValueError: Unknown quantization method: awq_marlin. Must be one of ['fp8', 'gptq']."]),
    ("I get OOM with the fp16 model, and the AWQ one crashes like this:",
     ["    raise NotImplementedError(f\"{quant} is not supported for MoE\")",
      "NotImplementedError: awq is not supported for MoE"]),
])
def test_a_stated_oom_above_a_traceback_ending_in_another_cause_is_that_cause(said, error):
    lines = ["# [Feature] quantized MoE", "", said, "", "```", "Traceback (most recent call last):"] + _FRAMES + error
    assert kind_of(lines + ["```"])[0] == "NOT_OOM"


@pytest.mark.parametrize("error", [
    ["    self.w13_weight = torch.empty(", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."],
    ["    self.w13_weight = torch.empty("],  # (cut before its error: the report's words give the cause)
])
def test_a_stated_oom_above_a_traceback_of_memory_or_cut_is_still_memory(error):
    lines = ["I get OOM when loading the fp16 model on 8x A100:", "", "Traceback (most recent call last):"] + _FRAMES
    assert kind_of(lines + error)[0] in ("WEIGHTS", "UNDETERMINED")


# --- a traceback whose first frame lost the start of its "File" (a paste or an excerpt cut at its left edge), and TGI's
# model build from its weights (`model_class(prefix, config, weights)`, `weights.get_sharded(...)`): the weights -------

_TGI_TB_ESCAPED = ('ile \\"/usr/src/server/text_generation_server/models/flash_causal_lm.py\\", line 1020, in '
                   '__init__\\n    model = model_class(prefix, config, weights)\\n\\n  File \\"/usr/src/server/'
                   'text_generation_server/models/custom_modeling/flash_qwen2_modeling.py\\", li')


@pytest.mark.parametrize("lines", [
    # 1.x, escaped in a JSON record, cut at both ends
    ["With QUANTIZE unset I get CUDA OOMs:", "```",
     'ile \\"/opt/conda/lib/python3.10/site-packages/text_generation_server/models/flash_mistral.py\\", line 333, in '
     '__init__\\n    model = model_cls(config, weights)\\n\\n  File \\"/opt/conda/lib/python3.10/site-packages/'
     'text_generation_server/models/custom_modeling/flash_mixtral_modeling.py\\", li', "```"],
    # 2.x's FlashCausalLM, its layers taking their tensors (the weights module named), escaped and cut
    ["the shard dies with torch.cuda.OutOfMemoryError right after start:", _TGI_TB_ESCAPED],
    # pasted as lines, its first frame cut to "le", the layers' tensors taken, the rest cut
    ["CUDA out of memory on 2x L4 with Mixtral", "",
     'le "/usr/src/server/text_generation_server/models/custom_modeling/flash_mixtral_modeling.py", line 310, in '
     '__init__', '    self.gate = weights.get_multi_weights_col(', '  File "/usr/src/server/text_gen'],
])
def test_a_traceback_cut_inside_its_first_file_word_still_shows_the_weights_loading(lines):
    assert kind_of(lines)[0] == "WEIGHTS"


def test_a_frame_cut_inside_its_file_word_is_a_frame_not_a_line_of_its_own():
    # (in a vLLM traceback, the innermost frame cut so: still the innermost, the graph capture)
    lines = ["INFO 05-02 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
             "INFO 05-02 10:00:30 [gpu_model_runner.py:1329] Model loading took 14.99 GiB and 20.1 seconds",
             "INFO 05-02 10:00:40 [kv_cache_utils.py:634] GPU KV cache size: 60,000 tokens",
             'e "/usr/local/lib/python3.12/site-packages/vllm/v1/worker/gpu_model_runner.py", line 1702, in capture_model',
             "    self._dummy_run(num_tokens)",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB."]
    assert kind_of(lines)[0] == "WARMUP"


# --- a count of out-of-memory events that is zero (torch.cuda.memory_summary()'s "CUDA OOMs: 0", an exporter's "OOM
# events: 0"): no out-of-memory happened; a count above zero is one ----------------------------------------------------

_SUMMARY = ["|===========================================================================|",
            "|                  PyTorch CUDA memory summary, device ID 0                 |",
            "|---------------------------------------------------------------------------|",
            "|            CUDA OOMs: {n}            |        cudaMalloc retries: 0         |",
            "|===========================================================================|",
            "| Allocated memory      |  11986 MiB |  12247 MiB |  15882 MiB |   3895 MiB |"]


@pytest.mark.parametrize("lines", [
    ["After `del llm` nothing is released:"] + [t.replace("{n}", "0") for t in _SUMMARY],
    ["INFO 06-01 10:00:00 [metrics.py:100] gpu0 memory used 70.2 GiB, OOM events: 0, oom_kills=0"],
    ["sglang-exporter | node=a100-3 OOMs=0 restarts=0 uptime=36h"],
])
def test_a_count_of_zero_ooms_is_no_oom(lines):
    assert kind_of(lines)[0] in ("NONE", "LEAK")


def test_a_count_of_ooms_above_zero_is_memory():
    assert kind_of(["Summary after the crash:"] + [t.replace("{n}", "2") for t in _SUMMARY])[0] == "UNDETERMINED"


# --- an out-of-memory named as what something would do, not what happened: things told apart by it ("skip cuda graphs
# that will oom"), a condition or a question with a modal ("warn users if the combination will OOM") -----------------

@pytest.mark.parametrize("said", [
    "# fix: skip cuda graphs that will oom and improve free memory logging",
    "This PR adds a check to warn users if the combination will OOM before the server starts.",
    "[Feature] drop batch sizes which would OOM during capture",
    "We should check whether a batch of 256 could run out of memory before capturing it.",
])
def test_an_oom_a_sentence_only_conditions_on_is_no_failure(said):
    lines = [said, "", "```", "Server started at unix:///tmp/text-generation-server-0",
             "Free memory before the warmup: 6939.06 MB", "Free memory after allocating the cache: 393.06 MB",
             "Total memory used for CUDA graphs: 222.00 MB", "```"]
    assert kind_of(lines)[0] == "NONE"


@pytest.mark.parametrize("said", [
    "# cuda graphs OOM with max_batch_size 256",
    "When I start it with 256 graphs it will OOM every time.",
])
def test_an_oom_stated_beside_those_words_is_still_one(said):
    assert kind_of([said, "", "Server started at unix:///tmp/text-generation-server-0"])[0] != "NONE"


# --- ggml-sycl's CHECK_TRY_ERROR, which catches a sycl::exception and names only the call it was in ("Exception caught
# in this line of code", "Exception caught at file:..., line:..."): a failure whose cause is not shown, never a named
# cause that is not memory (h222/17: an A770 copying fp16 weights, "leave memory settings alone") ---------------------

@pytest.mark.parametrize("lines", [
    ["Error: llama runner process has terminated: error:CHECK_TRY_ERROR((*stream).memcpy((char *) tensor->data + "
     "offset, data, size).wait()): Exception caught in this line of code.",
     "  in function ggml_backend_sycl_buffer_set_tensor at C:\\llm.cpp\\ggml\\src\\ggml-sycl\\ggml-sycl.cpp:432",
     "C:\\llm.cpp\\ggml\\src\\ggml-sycl\\..\\ggml-sycl\\common.hpp:115: SYCL error"],
    ["llama_model_load: loading model from qwen2.5-14b-f16.gguf",
     "Exception caught at file:/llama.cpp/ggml/src/ggml-sycl/ggml-sycl.cpp, line:3812, func:operator()",
     "SYCL error: CHECK_TRY_ERROR(dpct::gemm_batch(*stream, oneapi::mkl::transpose::trans, ...)): "
     "Exception caught in this line of code."],
])
def test_a_caught_sycl_exception_without_its_message_is_a_cause_not_shown(lines):
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


def test_a_sycl_exception_with_its_message_is_read():
    # (the exception's own words printed: out of device memory)
    lines = ["Exception caught at file:/llama.cpp/ggml/src/ggml-sycl/ggml-sycl.cpp, line:432",
             "  in function ggml_backend_sycl_buffer_set_tensor",
             "terminate called after throwing an instance of 'sycl::_V1::exception'",
             "  what():  UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"]
    assert kind_of(lines)[0] in ("WEIGHTS", "UNDETERMINED") and kind_of(lines)[1] != "failure-cause-not-shown"


# --- Triton's backend manager not finding a backend's library (the model's config names a backend whose .so is not
# installed): a library that could not be loaded, not a cause left unshown ------------------------------------------

@pytest.mark.parametrize("backend", ["tensorrtllm", "vllm", "python"])
def test_triton_not_finding_a_backend_library_is_a_library_that_did_not_load(backend):
    lines = [f"I0120 08:28:09.100000 2049 model_lifecycle.cc:469] loading: model_{backend}:1",
             f"E0120 08:28:09.425599 2049 model_lifecycle.cc:654] \"failed to load 'model_{backend}' version 1: Invalid "
             f"argument: unable to find backend library for backend '{backend}', try specifying runtime on the model "
             "configuration.\"",
             "error: creating server: Internal - failed to load all models"]
    assert kind_of(lines) == ("NOT_OOM", "library-load-failed")


# --- a bus error (SIGBUS), in the words of the shell, systemd, docker and TGI's launcher: a mapped page the process
# could not have, whose memory is not said (/dev/shm in a container, a model file cut short, device memory mapped into
# the process on an integrated GPU or SYCL): undetermined, with what tells them apart and how to give /dev/shm more ---

@pytest.mark.parametrize("lines", [
    ["# Error: Download process was signaled to shutdown with signal 7"],
    ["2024-05-01T10:00:00.000000Z ERROR text_generation_launcher: Shard 0 failed to start",
     "2024-05-01T10:00:00.000000Z  INFO text_generation_launcher: Shard process was signaled to shutdown with signal 7"],
    ["main: loading model", "Bus error (core dumped)"],
    ["vllm-server.service: Main process exited, code=killed, status=7/BUS"],
    ["$ docker ps -a", "CONTAINER ID   IMAGE                    STATUS", "3f2a1b0c9d8e   vllm/vllm-openai:v0.6.3  Exited (135) "
     "2 minutes ago"],
])
def test_a_bus_error_is_named_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "bus-error"), (run.kind, run.code)
    assert "/dev/shm" in run.message and "--shm-size" in run.message and "unified memory" in run.message


# --- vLLM's "KV cache is needed, which is larger than the available KV cache memory" as a report shortens it: the pool
# too small for one sequence of the context, with the two sizes read ---------------------------------------------------

@pytest.mark.parametrize("said", [
    "ValueError: 1.75 GiB KV cache is needed, available 0.13 GiB",
    "On the 4090 it stops at start-up: 3.20 GiB KV cache is needed but only 0.90 GiB is available.",
    "vllm 0.9.1 -> ValueError (2.5 GiB KV cache is needed, while 0.4 GiB available)",
])
def test_vllms_kv_needed_as_a_report_shortens_it_is_the_pool(said):
    run = run_of(diag("\n".join(["INFO 07-05 10:00:00 [__init__.py:244] vLLM API server version 0.9.1", said])))
    assert (run.kind, run.code) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache"), (run.kind, run.code)
    assert run.numbers.get("kv_available_bytes") and run.numbers["kv_available_bytes"] < run.numbers["kv_needed_bytes"]


# --- vLLM's multimodal profiler warning that the profile run's dummy sequence is too short (multimodal/profiling.py):
# a step under way, the profile run; a message that quotes a small dict and a sum is no dump of settings -------------

_MM_WARN = ("WARNING 04-27 16:27:59 [profiling.py:245] The sequence length used for profiling (max_num_batched_tokens / "
            "max_num_seqs = {n}) is too short to hold the multi-modal embeddings in the worst case ({t} tokens in total, "
            "out of which {{'image': {i}, 'video': {v}}} are reserved for multi-modal embeddings). This may cause "
            "certain multi-modal inputs to fail during inference, even when the input text is short.")


@pytest.mark.parametrize("n,t,i,v", [(20000, 98304, 81920, 16384), (8192, 16384, 16384, 0), (4096, 32768, 24576, 8192)])
def test_vllms_multimodal_profiling_warning_places_the_oom_in_the_profile_run(n, t, i, v):
    lines = [_MM_WARN.format(n=n, t=t, i=i, v=v),
             "ERROR 04-27 16:28:02 [engine.py:448] CUDA out of memory. Tried to allocate 800.00 MiB. GPU 0 has a total "
             "capacity of 15.56 GiB of which 442.62 MiB is free."]
    assert kind_of(lines) == ("WARMUP", "profile-run-oom")


# --- macOS's memory-pressure killer, jetsam, in a crash report's, the kernel's and a report's words: the host's memory
# (unified memory on Apple silicon), a kill for want of it ------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["# oMLX process killed by macOS jetsam under memory pressure", "", "  - A long-context request in flight"],
    ["main: server is listening on http://127.0.0.1:8080 - starting the main loop",
     "srv  update_slots: all slots are idle",
     "2025-03-01 10:00:00.000 kernel[0]: memorystatus: killing_specific_process pid 812 [llama-server] "
     "(per-process-limit) 24589MB - memorystatus_available_pages: 10240"],
    ['{"bug_type":"298","os_version":"macOS 14.4","name":"JetsamEvent","largestProcess":"ollama"}'],
    ["The server gets killed under memory pressure as soon as two long chats run at once."],
])
def test_macos_jetsam_is_a_host_memory_kill(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind in ("RUNTIME", "UNDETERMINED", "WEIGHTS") and "host" in run.code, (run.kind, run.code)


# --- memory growth stated in words the growth patterns missed: a metric's name between the memory word and the rising
# (内存container_memory_working_set_bytes持续增加), memory taken again with each step ("keeps consuming system RAM
# and SWAP with each prompt") -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("said", [
    "# [Bug]: 0.23.0RC1版本单机拉起deepseek服务容器内使用内存container_memory_working_set_bytes持续增加",
    "# 服务运行一天后显存nvidia_gpu_memory_used_bytes不断上涨",
    "# Llama keeps consuming system RAM and SWAP with each prompt.",
    "The server eats more and more VRAM after every request until it dies.",
    "ollama keeps using more memory for each new conversation",
])
def test_growth_in_these_words_is_stated(said):
    assert kind_of([said, "", "INFO 09-15 10:00:00 [api_server.py:1043] vLLM API server version 0.9.2"]) == (
        "LEAK", "memory-growth-stated")


@pytest.mark.parametrize("said", [
    "It keeps using 20 GB of RAM for each model I load, which is expected for its size.",
    "# 内存container_memory_working_set_bytes达到 30G",
])
def test_use_without_growth_is_not_growth(said):
    assert kind_of([said, "", "INFO 09-15 10:00:00 [api_server.py:1043] vLLM API server version 0.9.2"])[0] != "LEAK"


# --- a failure after a count of requests named with a word before their noun ("after ~400 LLM queries"), or the
# noun said earlier in the sentence ("on queries to vLLM after running around 400 successfully"): while serving -------

@pytest.mark.parametrize("said", [
    "LMCache + vLLM : Failing to allocate memory after ~400 LLM queries",
    "Receiving the error on queries to vLLM after running around 400 successfully.",
    "The runner dies with out of memory after about 120 chat completions.",
])
def test_an_oom_after_a_count_of_requests_is_while_serving(said):
    lines = [said, "", "CUDA out of memory. Tried to allocate 2.00 GiB."]
    assert kind_of(lines)[0] == "RUNTIME"


# --- what llama.cpp's issue template asks to paste under "### Name and Version" (the output of `llama-cli --version`,
# run bare its "error: --model is required") is no line of the failing run: never its named cause; a failure pasted
# there after a blank line and the report's words is the run's -----------------------------------------------------

_LLAMA_CUT = ["### Relevant log output", "", "```",
              "llama_kv_cache:    Vulkan0 KV buffer size =  1536.00 MiB",
              "llama_context: enumerating backends", "l"]


@pytest.mark.parametrize("env", [
    ["### Name and Version", "", "llama-cli.exe", "load_backend: loaded CUDA backend from bin\\ggml-cuda.dll",
     "error: --model is required"],
    ["### Name and Version", "", "```", "$ ./llama-server --version",
     "error: invalid argument: --version", "```"],
    ["## Name and Version", "./build/bin/llama-cli", "ggml_vulkan: Found 1 Vulkan devices:",
     "error: --model is required"],
])
def test_a_templates_version_output_is_not_the_run(env):
    lines = ["# Eval bug: fails to load with -fa off", ""] + env + [
        "", "### Problem description", "", "there's an issue when loading the model if -fa off is used"] + _LLAMA_CUT
    assert kind_of(lines)[0] != "NOT_OOM"


def test_the_same_error_outside_such_a_heading_is_read():
    assert kind_of(["$ llama-cli.exe", "error: --model is required"])[0] == "NOT_OOM"


def test_a_failure_pasted_under_the_version_after_the_reports_words_is_the_runs():
    lines = ["### Name and Version", "", "./llama-cli --version", "version: 5123 (a4837577)", "",
             "Sometimes, llama-server produces the following error.", "",
             "terminate called after throwing an instance of 'std::runtime_error'",
             "  what():  error from HF API, response code: 500", "Aborted (core dumped)"]
    assert kind_of(lines)[0] == "NOT_OOM"


@pytest.mark.parametrize("warning", [
    "16:36:42-092387 WARNING  Failed to load flash-attention due to the following error:",
    "WARNING 10-27 16:36:42 [utils.py:100] Could not import the optional kernel, continuing without it:",
    "[W 2024-10-27 16:36:42] warn: xformers not available, traceback follows",
])
def test_a_traceback_a_warning_shows_does_not_take_over_a_stated_oom(warning):
    # (the program goes on after a warning's traceback: the report's out-of-memory is still the failure)
    lines = ["as soon as the context passes 6 - 7K, it gives me an OOM error despite the free VRAM.", "",
             "```", warning, "", "Traceback (most recent call last):",
             '  File "/home/u/text-generation-webui/modules/exllamav2_hf.py", line 23, in <module>',
             "    import flash_attn", "ModuleNotFoundError: No module named 'flash_attn'", "```"]
    assert kind_of(lines)[0] != "NOT_OOM"


# --- vLLM's check that a hybrid model's state pool holds a block per concurrent sequence (config/compilation.py:
# "max_num_seqs (1024) exceeds available Mamba cache blocks (614)"): KV_CAPACITY, advice a cap below the blocks -------

@pytest.mark.parametrize("asked,blocks", [(1024, 614), (256, 108), (512, 196)])
def test_max_num_seqs_over_the_state_pool_is_the_pools_capacity(asked, blocks):
    lines = ["INFO 11-02 10:00:00 [gpu_model_runner.py:2800] Model loading took 17.66 GiB and 8.7 seconds",
             "(EngineCore_DP0 pid=2) ERROR 11-02 10:00:40 [core.py:708] ValueError: max_num_seqs "
             f"({asked}) exceeds available Mamba cache blocks ({blocks}). Each decode sequence requires one Mamba "
             "cache block, so CUDA graph capture cannot proceed."]
    d = diag("\n".join(lines))
    run = run_of(d)
    assert (run.kind, run.code) == ("KV_CAPACITY", "max-num-seqs-exceeds-state-pool")
    steps = [a for a in d.to_dict()["runs"][0]["advice"] if a["setting"] == "max_num_seqs"]
    assert steps and steps[0]["direction"] == "down" and steps[0]["value"] <= blocks


# --- growth as an increase of a size over a span of time ("increase 60G cpu memory in 2h"), and a leak called "leaky"

@pytest.mark.parametrize("said", [
    "Exists memory leaky (increase 60G cpu memory in 2h)",
    "The server grew 8 GB of RAM in 3 hours with a single client.",
    "RSS increased by ~12GiB host memory over 10 hours of idle chat traffic",
])
def test_growth_over_a_span_of_time_is_stated(said):
    assert kind_of(["# [CANN] memory", "", said])[0] == "LEAK"


# --- an OpenAI-style server's request handler in the frames (Xinference's restful_api create_embedding,
# llama-cpp-python's create_completion): the failure came on a request ---------------------------------------------

@pytest.mark.parametrize("handler", [
    ('xinference/api/restful_api.py", line 1189, in create_embedding',
     "    embedding = await model.create_embedding(body.input, **kwargs)"),
    ('llama_cpp/llama.py", line 1700, in create_completion', "    completion = next(completion_or_chunks)"),
    ('xinference/api/restful_api.py", line 1301, in rerank', "    scores = await model.create_rerank(documents)"),
])
def test_a_request_handlers_frames_place_the_oom_while_serving(handler):
    frame, code = handler
    lines = ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.22 GiB. GPU 0 has a total capacity of "
             "21.98 GiB of which 6.02 GiB is free.", "", "Traceback (most recent call last):",
             f'  File "/usr/local/lib/python3.10/dist-packages/{frame}', code]
    assert kind_of(lines)[0] == "RUNTIME"


# --- Python's logging with its default handler: the record's message under its prefix, then a traceback under none:
# the message is the exception's, above a traceback the paste cut ----------------------------------------------------

@pytest.mark.parametrize("record", [
    "2024-10-25 12:21:14,974 xinference.api.restful_api 37502 ERROR    [address=1.2.3.4:45585, pid=43525] Timed out "
    "after 601 seconds waiting for clients. 1/2 clients joined.",
    "2025-02-01 09:00:00,001 - fastchat.serve.model_worker - ERROR - Model path /models/qwen does not exist",
    "2025-03-01 10:00:00.123 ERROR root: Unsupported quantization method gguf for this model",
])
def test_a_records_message_above_a_bare_traceback_is_its_cause(record):
    lines = [record, "Traceback (most recent call last):",
             '  File "/opt/app/server.py", line 977, in launch_model', "    model_uid = await self.launch(",
             '  File "/opt/app/pool.py", line 659, in send']
    assert kind_of(lines)[0] == "NOT_OOM"


def test_a_records_memory_message_above_a_bare_traceback_is_memory():
    lines = ["2025-03-01 10:00:00,123 worker 77 ERROR    CUDA out of memory. Tried to allocate 2.00 GiB",
             "Traceback (most recent call last):", '  File "/opt/app/worker.py", line 9, in load_model']
    assert kind_of(lines)[0] != "NOT_OOM"


# --- ROCm's queue exception with the aperture violation's code, and the words for it: AMD's illegal memory access ---

@pytest.mark.parametrize("line", [
    ":0:rocdevice.cpp:3586: Callback: Queue 0x7f78cb400000 aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL "
    "operation resulted in a hardware exception. code: 0x1016",
    "GPU queues intermittently crash with HSA_STATUS_ERROR_EXCEPTION (memory aperture violation) under TP8",
])
def test_rocms_aperture_violation_is_an_illegal_access(line):
    assert kind_of([line]) == ("NOT_OOM", "illegal-memory-access")


# --- growth in Chinese: grown and not given back after the work, built up until full ------------------------------

@pytest.mark.parametrize("said", [
    "启动模型推理一段时间后，内存占用变大，对话完成也不会回收，直到占满后模型停止输出响应",
    "服务跑约 37 分钟后，Device 0 显存累积顶满 → OOM",
    "跑了一晚上显存逐渐占满，重启后恢复",
])
def test_growth_in_these_chinese_words_is_stated(said):
    assert kind_of(["# 推理服务内存问题", "", said])[0] == "LEAK"


# --- vLLM V1's multiproc executor relaying a worker's failure without its error ("RuntimeError: Worker failed with
# error", its quote empty or cut): no named cause; the worker's own error (above, or in another process's output) is
# what would say -------------------------------------------------------------------------------------------------

_DAM = ["(EngineCore_DP0 pid=185173)   File \"/x/vllm/v1/engine/core.py\", line 190, in _initialize_kv_caches",
        "(EngineCore_DP0 pid=185173)     available_gpu_memory = self.model_executor.determine_available_memory()",
        "(EngineCore_DP0 pid=185173)   File \"/x/vllm/v1/executor/multiproc_executor.py\", line 344, in get_response",
        "(EngineCore_DP0 pid=185173)     raise RuntimeError("]


@pytest.mark.parametrize("last", [
    "(EngineCore_DP0 pid=185173) RuntimeError: Worker failed with error",
    "(EngineCore_DP0 pid=185173) RuntimeError: Worker failed with error '', please check the stack trace above for the "
    "root cause",
])
def test_a_worker_failure_relayed_without_its_error_names_no_cause(last):
    assert kind_of(_DAM + [last]) == ("UNDETERMINED", "failure-cause-not-shown")


def test_a_worker_failure_relayed_with_its_error_is_read():
    last = ("(EngineCore_DP0 pid=185173) RuntimeError: Worker failed with error 'CUDA out of memory. Tried to allocate "
            "2.00 GiB', please check the stack trace above for the root cause")
    assert kind_of(_DAM + [last])[0] in ("WARMUP", "UNDETERMINED") and kind_of(_DAM + [last])[1] != \
        "failure-cause-not-shown"


# --- the first batch of work after a start the report calls normal ("crashes during the first inference batch"):
# while serving; a decode or prefill step alone is not said (a warm-up runs those too) ------------------------------

@pytest.mark.parametrize("said", [
    "The server starts up normally but crashes during the first inference batch with:",
    "It OOMs on the first generation step after the model is up.",
    "vllm dies at the first inference pass, right after the health check passes",
])
def test_the_first_inference_batch_is_serving(said):
    assert kind_of([said, "", "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB."])[0] == "RUNTIME"


# --- the GPUs' communication failing, in a report's Chinese (卡间通信报错, 多卡通信失败, 节点间通信超时): not memory ----

@pytest.mark.parametrize("title", ["# 使用vllm批量推理时卡间通信报错", "# 两台机器部署 sglang 节点间通信超时", "# 8卡推理多卡通信失败"])
def test_gpu_communication_failing_in_chinese_is_not_memory(title):
    lines = [title, "", "INFO 05-01 10:00:00 llm_engine.py:100] # cuda blocks: 91424, # CPU blocks: 4096",
             "Capturing CUDA graph shapes:   0%|          | 0/35 [00:00<?, ?it/s]"]
    assert kind_of(lines) == ("NOT_OOM", "communication-error")


# --- a gRPC back end without the method called (LocalAI's "rpc error: code = Unknown desc = unimplemented"): a path the
# back end does not have, not memory ------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    '# "error":{"code":500,"message":"rpc error: code = Unknown desc = unimplemented","type":""}}',
    "11:02AM ERR Server error error=\"rpc error: code = Unimplemented desc = method Embedding not implemented\"",
    "failed to load model: rpc error: code = Unknown desc = method TokenizeString not implemented",
])
def test_a_backend_without_the_method_called_is_a_code_path_not_memory(line):
    assert kind_of([line]) == ("NOT_OOM", "code-error")


# --- PyTorch asked for a size no device has, from an overflowed computation ("Tried to allocate more than 1EB memory",
# "Storage size calculation overflowed"): a wrong size computed, not memory used up -------------------------------

@pytest.mark.parametrize("line", [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate more than 1EB memory.",
    "RuntimeError: Storage size calculation overflowed with sizes=[4703721924520770560]",
    "# [BUG] webui.py运行报错，Error: CUDA out of memory. Tried to allocate more than 1EB memory",
])
def test_an_impossible_allocation_size_is_not_memory_used_up(line):
    assert kind_of([line]) == ("NOT_OOM", "code-error")


# --- a code line that passes the KV cache as an argument (every V0 model's forward: `model_output =
# self.model(input_ids, positions, kv_caches,`) is the model called, not the cache made: the innermost start-up frame
# decides (review 32/06 was KV_CAPACITY for a V0 profile run) -------------------------------------------------------

@pytest.mark.parametrize("call", [
    "        model_output = self.model(input_ids, positions, kv_caches,",
    "        hidden_states = self.model(input_ids, positions, kv_caches, attn_metadata)",
    "        return self.model_runner.execute_model(seq_group_metadata_list, kv_caches)",
])
def test_a_kv_cache_passed_as_an_argument_is_not_its_allocation(call):
    lines = ["INFO 08-10 10:00:00 model_runner.py:720] Loading model weights took 14.9595 GB",
             "Traceback (most recent call last):",
             '  File "/usr/lib/python3.10/site-packages/vllm/worker/worker.py", line 179, in determine_num_available_blocks',
             "    self.model_runner.profile_run()",
             '  File "/usr/lib/python3.10/site-packages/vllm/worker/model_runner.py", line 1233, in profile_run',
             "    self.execute_model(model_input, kv_caches, intermediate_tensors)",
             '  File "/usr/lib/python3.10/site-packages/vllm/worker/model_runner.py", line 1450, in execute_model', call,
             '  File "/usr/lib/python3.10/site-packages/torch/nn/functional.py", line 200, in linear',
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB."]
    assert kind_of(lines) == ("WARMUP", "profile-run-oom")


def test_the_context_that_fits_follows_from_the_kv_needed_and_available():
    # (vLLM's check prints the sizes for one sequence of max_model_len tokens: the context that fits is in proportion)
    lines = ["INFO 05-02 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
             "ValueError: To serve at least one request with the models's max seq len (65536), (8.00 GiB KV cache is "
             "needed, which is larger than the available KV cache memory (4.51 GiB). Based on the available memory, "
             "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."]
    d = diag("\n".join(lines)).to_dict()["runs"][0]
    step = next(a for a in d["advice"] if a["setting"] == "max_model_len")
    assert step["value"] == 36864 and "about" in step["why"]


@pytest.mark.parametrize("lines,words", [
    (['time=2025-02-03T21:15:50.000+01:00 level=INFO source=server.go:104 msg="system memory" total="31.2 GiB" '
      'free="20.1 GiB"',
      'time=2025-02-03T21:16:02.118+01:00 level=ERROR source=sched.go:455 msg="error loading llama server" '
      'error="llama runner process has terminated: signal: killed"'], "use_mmap"),
    (["./llama-server -m llama-70b-q4.gguf --no-mmap -ngl 10",
      "llama_model_loader: loaded meta data with 30 key-value pairs and 724 tensors from llama-70b-q4.gguf",
      "load_tensors: loading model tensors, this can take a while... (mmap = false)",
      "load_tensors: offloading 10 repeating layers to GPU", "Killed"], "--no-mmap"),
])
def test_host_memory_advice_names_the_engines_own_mmap_setting(lines, words):
    d = diag("\n".join(lines)).to_dict()["runs"][-1]
    text = " ".join(a["why"] for a in d["advice"])
    assert words in text and "safetensors" not in text, (d["kind"], d["code"], text)


# --- NCCL's own warning that the GPUs cannot reach each other's memory (CUDA error 217) under an NCCL error: the
# advice names NCCL_P2P_DISABLE=1 (review 32/24 only said to re-run with NCCL_DEBUG=INFO, whose output it was) ------

@pytest.mark.parametrize("warn", [
    "box:4411:4529 [0] include/alloc.h:125 NCCL WARN Cuda failure 217 'peer access is not supported between these two "
    "devices'",
    "(VllmWorkerProcess pid=812) node1:812:812 [1] transport/p2p.cc:272 NCCL WARN Cuda failure "
    "'cudaErrorPeerAccessUnsupported'",
])
def test_nccl_with_peer_access_unsupported_advises_p2p_off(warn):
    lines = [warn, "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)"]
    d = diag("\n".join(lines)).to_dict()["runs"][-1]
    assert d["code"] == "nccl-error" and any("NCCL_P2P_DISABLE=1" in a["why"] for a in d["advice"])


def test_an_nccl_error_without_it_does_not():
    d = diag("RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)").to_dict()
    assert not any("NCCL_P2P_DISABLE" in a["why"] for a in d["runs"][-1]["advice"])
