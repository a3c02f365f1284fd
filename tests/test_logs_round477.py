"""Kinds of fault found from stop 49 on (held-out rounds 477 and later), each in several wordings of our own, with
guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import kind_of, run_of, diag

_OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB"
_SGLANG_READY = ["[2026-06-07 11:57:02] server_args=ServerArgs(model_path='Qwen/Qwen2.5-1.5B-Instruct', "
                 "mem_fraction_static=0.2, context_length=None)",
                 "[2026-06-07 11:57:43] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, "
                 "avail mem=12.19 GB, mem usage=3.01 GB.",
                 "[2026-06-07 11:57:43] KV Cache is allocated. #tokens: 6827, K size: 0.09 GB, V size: 0.09 GB",
                 "[2026-06-07 11:58:16] max_total_num_tokens=6827, chunked_prefill_size=8192, max_prefill_tokens=16384, "
                 "max_running_requests=2048, context_len=32768, available_gpu_mem=8.34 GB",
                 "[2026-06-07 11:58:16] INFO:     Application startup complete."]


# --- glibc's own allocator asserts and the stack's canary: memory corrupted, not run out (h482/10: was UNDETERMINED)

@pytest.mark.parametrize("line", [
    "llama-box: malloc.c:2617: sysmalloc: Assertion `(old_top == initial_top (av) && old_size == 0) || "
    "((unsigned long) (old_size) >= MINSIZE && prev_inuse (old_top))' failed.",
    "python3: malloc.c:4302: _int_malloc: Assertion `(unsigned long) (size) >= (unsigned long) (nb)' failed.",
    "*** stack smashing detected ***: terminated",
])
def test_the_c_librarys_own_checks_are_corruption(line):
    assert kind_of(["The server crashes when I send this image.", line, "Aborted (core dumped)"]) == (
        "NOT_OOM", "heap-corruption")


def test_an_assertion_of_ggmls_allocator_is_not_called_corruption():
    lines = ["ggml-alloc.c:99: ggml_tallocr_alloc: Assertion `size <= available' failed.", "Aborted (core dumped)"]
    assert kind_of(lines)[1] != "heap-corruption"


# --- LLaVA's builder is a loader (h482/13: was RUNTIME from the title's words) ------------------------------------

_LLAVA_LOAD = ["Traceback (most recent call last):",
               '  File "/x/llava/cli/infer.py", line 125, in main',
               "    model = llava.load(args.model_path, model_base=None)",
               '  File "/x/llava/model/builder.py", line 142, in load_pretrained_model',
               "    model.resize_token_embeddings(len(tokenizer))"]


@pytest.mark.parametrize("end", [[_OOM], []])  # (with its error line, and cut inside the loader)
def test_llavas_load_pretrained_model_is_the_weights(end):
    assert kind_of(["CUDA out of memory occurred when inferring an image", "", "Hi, I tried to infer an image:"]
                   + _LLAVA_LOAD + end)[0] == "WEIGHTS"


def test_a_forward_under_llavas_generate_is_not_the_weights():
    lines = ["Traceback (most recent call last):", '  File "/x/llava/serve/cli.py", line 90, in main',
             "    output_ids = model.generate(input_ids, images=image_tensor)", _OOM]
    assert kind_of(lines)[0] == "RUNTIME"


# --- a report's title as the paste's first line: its words are the report's, not the run's progress (h482/13) -----

@pytest.mark.parametrize("title", [
    "torch.OutOfMemoryError: CUDA out of memory occurred when inferring an image or a video",
    "OOM when inferring an image or a video",
    "CUDA out of memory while serving requests",
])
def test_a_title_line_above_the_report_is_no_progress(title):
    lines = [title, "", "Hi, I tried to infer an image using the following command, but an error occurred.",
             "Traceback (most recent call last):", '  File "/x/infer.py", line 125, in main',
             "    model = AutoModel.from_pretrained(path)",
             '  File "/x/transformers/modeling_utils.py", line 4000, in from_pretrained', "    model.to(device)", _OOM]
    assert kind_of(lines)[0] == "WEIGHTS"


def test_a_first_line_without_a_blank_line_after_it_still_counts():
    # (a log's own first line, the request it served, then more of the log: no title)
    lines = ['INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             "I then sent a longer prompt and it died.", _OOM]
    assert kind_of(lines)[0] == "RUNTIME"


# --- a model's forward in a modeling file outside transformers, and the eager attention's scores (h482/01) --------

@pytest.mark.parametrize("frame", [
    'main/VLMEvalKit/vlmeval/vlm/qwen2_vl/modeling_qwen2_5_vl.py", line 273, in forward',
    '  File "/root/.cache/huggingface/modules/transformers_modules/InternVL2-4B/modeling_internvl_chat.py", line 300, '
    'in forward',
    '  File "/x/models/modeling_llava.py", line 88, in forward',
])
def test_a_modeling_files_forward_is_an_input_going_through(frame):
    lines = ["The model loaded and the first image ran; then:", frame,
             "    attn_weights = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(self.head_dim)", _OOM]
    assert kind_of(lines)[0] == "RUNTIME"


def test_a_modeling_files_init_is_not_a_forward():
    lines = ["Traceback (most recent call last):", '  File "/x/models/modeling_llava.py", line 88, in __init__',
             "    self.vision_tower = build_vision_tower(config)", '  File "/x/torch/nn/modules/linear.py", line 98, in '
             "__init__", "    self.weight = Parameter(torch.empty((out_features, in_features), **factory_kwargs))", _OOM]
    assert kind_of(lines)[0] == "WEIGHTS"


@pytest.mark.parametrize("said", ["When attn_implementation='eager', it has torch.OutOfMemoryError after several epochs",
                                  "It raises OutOfMemoryError after a few iterations."])
def test_the_error_by_its_class_after_a_count_of_steps_is_work_under_way(said):
    assert kind_of(["The model is qwen2_5_vl_7B.", said])[0] == "RUNTIME"


# --- a script's own line of the input it took (h482/03) --------------------------------------------------------------

@pytest.mark.parametrize("line", ["Prompt tokens: 8", "Number of input tokens = 1532", "  prompt tokens: 2,048"])
def test_a_scripts_line_of_its_inputs_length_is_an_input_going_through(line):
    lines = ["Loading Pixtral model: pixtral-12b-nf4", line, "!!! Exception during processing !!! Allocation on device",
             "torch.OutOfMemoryError: Allocation on device"]
    assert kind_of(lines)[0] == "RUNTIME"


@pytest.mark.parametrize("line", ["Prompt tokens: 8 (max 4096)", "Set max prompt tokens: 4096"])
def test_a_line_that_is_more_than_a_count_of_prompt_tokens_is_no_input(line):
    lines = ["Loading Pixtral model: pixtral-12b-nf4", line, "torch.OutOfMemoryError: Allocation on device"]
    assert kind_of(lines)[0] != "RUNTIME"


# --- inference under way in the writer's words, the error in the next clause (h482/06) -------------------------------

@pytest.mark.parametrize("said", ["我在24G显存的3090上，进行视频推理，有如下报错", "在4090上做图像推理，出现OOM",
                                  "I was running video inference on a 3090 and got this error",
                                  "We are doing batch inference on two A100s and it fails"])
def test_inference_the_writer_was_running_is_work_under_way(said):
    assert kind_of([said, _OOM])[0] == "RUNTIME"


@pytest.mark.parametrize("said", ["I am running an inference server with vllm and it fails at startup",
                                  "mistral 7x8b 做推理 在load模型时报oom"])  # (the load's clause, not the inference's)
def test_inference_named_as_the_purpose_is_not_the_step(said):
    assert kind_of([said, _OOM])[0] != "RUNTIME"


# --- a step told as done well: the server started fine, passed start-up (h478/01) --------------------------------------

@pytest.mark.parametrize("said", [
    "The server starts fine, but concurrent prefills kill it.",
    "the server passes startup and serves short-context traffic fine, but long prompts kill it:",
    "The engine came up normally; then:",
])
def test_a_start_told_as_done_well_is_a_floor_past_it(said):
    assert kind_of([said, _OOM])[0] == "RUNTIME"


@pytest.mark.parametrize("said", ["Does the server start fine? It dies with", "The server never starts fine, it dies with",
                                  "The model loads fine, but then it dies."])
def test_a_start_asked_denied_or_only_the_load_passed_is_no_serving(said):
    assert kind_of([said, _OOM])[0] != "RUNTIME"


# --- an error naming the KV cache by a state it needs first, not by its size (h478/05) ------------------------------

@pytest.mark.parametrize("error", [
    "RuntimeError: NVFP4 KV cache global scales must be calibrated before CUDA graph capture. Run an eager prefill "
    "first or provide checkpoint k_scale/v_scale values.",
    "RuntimeError: The KV cache has not been initialized before the first forward.",
    "ValueError: kv cache scales are not calibrated for this checkpoint",
])
def test_a_kv_cache_state_not_reached_is_no_memory(error):
    lines = ["[2026-06-08 01:41:50] Load weight end. type=Qwen2ForCausalLM, avail mem=66.10 GB, mem usage=3.27 GB.",
             "Traceback (most recent call last):",
             '  File "/sglang/srt/model_executor/cuda_graph_runner.py", line 628, in __init__', "    raise Exception(",
             error, "[2026-06-08 01:41:51] Received sigquit from a child process. It usually means the child failed."]
    assert kind_of(lines) == ("NOT_OOM", "error-not-memory")


def test_a_kv_cache_too_small_in_words_is_not_ruled_out():
    lines = ["[2026-06-08 01:41:50] Load weight end. type=Qwen2ForCausalLM, avail mem=66.10 GB, mem usage=3.27 GB.",
             "Traceback (most recent call last):",
             '  File "/sglang/srt/model_executor/model_runner.py", line 628, in init_memory_pool', "    raise Exception(",
             "RuntimeError: the kv cache must be larger than the context: not enough space for 32768 tokens",
             "[2026-06-08 01:41:51] Received sigquit from a child process. It usually means the child failed."]
    assert kind_of(lines)[0] != "NOT_OOM"


# --- a readiness probe answered 503 while the server warms up is no failed request (h478/09) ----------------------

@pytest.mark.parametrize("probe", ['"GET /health HTTP/1.1" 503 Service Unavailable', '"GET /healthz HTTP/1.1" 503',
                                   '"GET /v1/health HTTP/1.1" 503 Service Unavailable'])
def test_a_health_probe_503_before_ready_is_no_failure(probe):
    lines = _SGLANG_READY + [f"[2026-06-07 11:58:20] INFO:     172.17.0.1:53596 - {probe}",
                             '[2026-06-07 11:58:23] INFO:     127.0.0.1:44096 - "POST /generate HTTP/1.1" 200 OK',
                             "[2026-06-07 11:58:23] The server is fired up and ready to roll!",
                             '[2026-06-07 11:58:26] INFO:     172.17.0.1:60610 - "POST /v1/chat/completions HTTP/1.1" '
                             '200 OK']
    rep = diag("\n".join(lines))
    run = run_of(rep)
    assert run.kind == "NONE", (run.kind, run.code)
    assert "6,827 tokens" in run.message  # (the pool below the context, told as a note)


def test_a_users_request_answered_503_is_still_a_failed_request():
    lines = _SGLANG_READY + ['[2026-06-07 11:58:20] INFO:     172.17.0.1:53596 - "POST /v1/chat/completions HTTP/1.1" '
                             '503 Service Unavailable']
    assert kind_of(lines)[0] != "NONE"


# --- the CUDA driver's and runtime's out of memory by number (h478/10) ------------------------------------------------

@pytest.mark.parametrize("line", [
    "[torch_memory_saver.cpp] CUresult error  result=2 file=csrc/torch_memory_saver.cpp func=cu_mem_create line=103",
    "CUresult error: result = 2 in cuMemCreate",
    "CUDA error 2 at /llama.cpp/ggml-cuda.cu:6045: out of memory",
])
def test_the_out_of_memory_by_its_error_number(line):
    assert kind_of(["Someone reported this error:", line]) == ("UNDETERMINED", "oom-phase-not-shown")


@pytest.mark.parametrize("line", ["CUresult error result=20 file=x func=cu_mem_create",
                                  "CUDA error 222 at ggml-cuda.cu:6045: the provided PTX was compiled with an "
                                  "unsupported toolchain"])
def test_other_error_numbers_are_not_out_of_memory(line):
    assert kind_of(["Someone reported this error:", line])[1] != "oom-phase-not-shown"


# --- vLLM's dummy run in words (vllm-omni, h477/03) -------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "RuntimeError: Dummy run failed: Worker failed with error 'CUDA out of memory. Tried to allocate 54.00 MiB.",
    "ERROR 07-20 10:00:00 [worker.py:300] dummy run failed: CUDA out of memory. Tried to allocate 1.00 GiB",
    "RuntimeError: Dummy sampler run failed: CUDA out of memory. Tried to allocate 3.00 GiB",
])
def test_vllms_dummy_run_in_words_is_the_warm_up(line):
    lines = ["INFO 07-20 09:59:00 [api_server.py:1000] vLLM API server version 0.11.0", line]
    assert kind_of(lines)[0] == "WARMUP"


# --- a leak told by its rate or as met, in the report's words (h477/09) -----------------------------------------------

@pytest.mark.parametrize("said", [
    "We hit this exact leak in production: the router container was OOMKilled 14 times over 12 days.",
    "Memory growth scaling with request volume (100-1000+ MB/h during bursts, ~2 MB/h idle).",
    "We reproduced the leak locally: RSS growth is about 50 MB/h.",
])
def test_a_leak_told_by_its_rate_or_as_met(said):
    assert kind_of([said])[0] == "LEAK"


@pytest.mark.parametrize("said", ["We ran the leak detector and it found nothing.",
                                  "During the GPU load attempt, system memory usage climbs until it fills the entire 96GB "
                                  "of RAM. I tried to limit the KV cache, but the memory leak/exhaustion persists."])
def test_a_leak_checker_or_a_rise_while_loading_is_no_leak(said):
    assert kind_of([said, _OOM])[0] != "LEAK"


# --- llama.cpp refusing to decode with an encoder-only model (h479/03) -----------------------------------------------

@pytest.mark.parametrize("said", ["使用 bge-m3 作为 embedding模型,索引和查询时ollama报错", "ollama gives an error when indexing"])
def test_a_decode_refused_by_an_encoder_model_is_no_memory(said):
    lines = [said, '[GIN] 2025/08/01 - 13:40:58 | 200 |   67.380331ms |       127.0.0.1 | POST     "/api/embed"',
             "decode: cannot decode batches with this context (use llama_encode() instead)"]
    assert kind_of(lines) == ("NOT_OOM", "decode-on-encoder-model")


# --- a launcher still waiting at the log's end: the step before it was under way (h479/13) ---------------------------

@pytest.mark.parametrize("waiting", [["Still waiting for llama-server...", "Still waiting for llama-server...```", "```"],
                                     ["Waiting for the server to start...", "Waiting for the server to start..."],
                                     ["[launcher] still waiting for vllm to be ready (30s)"]])
def test_a_launcher_waiting_at_the_end_leaves_the_step_under_way(waiting):
    lines = ["Running model: Gemma-3-4b-it-GGUF", "Loading model Gemma-3-4b-it-GGUF..."] + waiting
    assert kind_of(lines) == ("UNDETERMINED", "log-ends-during-step")


def test_a_launcher_that_waited_then_saw_it_ready_is_no_failure():
    lines = ["Loading model Gemma-3-4b-it-GGUF...", "Still waiting for llama-server...",
             "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
             "srv  update_slots: all slots are idle"]
    assert kind_of(lines)[0] == "NONE"


# --- an allocation of a size refused in OpenVINO's words; a request by its prompt's size (h484/01) -----------------

@pytest.mark.parametrize("line", ["[CL ext] Can not allocate 16049884928 bytes for USM Device. ptr: 0000000000000000",
                                  "Error: unable to allocate 8589934592 bytes on the device",
                                  "could not allocate 1073741824 Bytes for the KV buffer"])
def test_an_allocation_of_a_size_refused_is_out_of_memory(line):
    kind, code = kind_of(["RuntimeError: Exception from src\\inference\\src\\cpp\\infer_request.cpp:224:", line])
    assert kind in ("UNDETERMINED", "KV_CAPACITY", "RUNTIME", "WARMUP", "WEIGHTS") and code != "error-not-memory", code


@pytest.mark.parametrize("said", ["The first generate with a ~33k-token prompt throws:",
                                  "It fails when sending a 20k token prompt:", "On a 120k-token document it dies:"])
def test_a_request_by_its_prompts_size_is_serving(said):
    assert kind_of([said, "[CL ext] Can not allocate 16049884928 bytes for USM Device."])[0] == "RUNTIME"


def test_a_context_set_at_start_is_no_request():
    lines = ["With a 32k-token context the server fails to start:", "[CL ext] Can not allocate 16049884928 bytes."]
    assert kind_of(lines)[0] != "RUNTIME"


# --- the load's own progress where it failed, a count of shards or a share of the model (h484/09) ---------------------

@pytest.mark.parametrize("said", ["mistral 7x8b 做推理 在load模型时总是在17/19左右（load到模型的80%左右时）报oom",
                                  "加载到模型的80%左右时报错", "It always dies at 17/19 checkpoint shards",
                                  "fails at about 80% of loading the weights"])
def test_the_loads_own_progress_where_it_failed_is_the_weights(said):
    assert kind_of([said, _OOM])[0] == "WEIGHTS"


@pytest.mark.parametrize("said", ["用vllm推理时报oom", "After 17/19 requests it dies."])
def test_other_counts_and_inference_are_not_the_load(said):
    assert kind_of([said, _OOM])[0] != "WEIGHTS"


# --- an optional module's import caught and printed, the run going on: no failure of its own (h485/05, 12) ---------

_SGLANG_ROCM = ["[2026-05-25 18:03:30 TP0] Init torch distributed begin.", "{notice}",
                "[2026-05-25 18:03:32 TP0] Init torch distributed ends. elapsed=2.73 s, mem usage=0.30 GB",
                "[2026-05-25 18:03:33 TP0] Load weight begin. avail mem=31.42 GB",
                "[2026-05-25 18:03:34 TP0] Scheduler hit an exception: Traceback (most recent call last):",
                '  File "/sglang/srt/layers/quantization/unquant.py", line 219, in create_weights',
                "    torch.empty(num_experts, w2_weight_n, w2_weight_k, dtype=params_dtype),",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 384.00 MiB. GPU 0 has a total capacity of "
                "31.86 GiB of which 124.00 MiB is free."]


@pytest.mark.parametrize("notice", [
    "[2026-05-25 18:03:30 TP0] Failed to import amdsmi with ModuleNotFoundError(\"No module named 'amdsmi'\")",
    "[2026-05-25 18:03:30 TP0] Failed to import from vllm._C with ImportError('libcudart.so.12: cannot open shared "
    "object file')",
    "[2026-05-25 18:03:30 TP0] Failed to import pynvml with OSError('NVML Shared Library Not Found')",
])
def test_an_optional_import_the_run_went_on_from_is_no_failure(notice):
    lines = [x.format(notice=notice) for x in _SGLANG_ROCM]
    assert kind_of(lines)[0] == "WEIGHTS"


def test_an_import_that_ended_the_run_stays_its_failure():
    lines = ["[2026-05-25 18:03:30 TP0] Init torch distributed begin.",
             "Traceback (most recent call last):", "ModuleNotFoundError: No module named 'sgl_kernel'"]
    assert kind_of(lines)[0] == "NOT_OOM"


# --- the new-user review of stop 49: the same readings after a log's prefix, and two more wordings of serving --------

@pytest.mark.parametrize("waiting", ["INFO:     Still waiting for llama-server...",
                                     "2025-01-01 10:00:00,123 - INFO - Still waiting for llama-server...",
                                     '[2026-06-07 11:58:20] INFO:     172.17.0.1:53596 - "GET /health HTTP/1.1" 503 '
                                     'Service Unavailable'])
def test_prefixed_waiting_and_probe_lines_leave_the_step_under_way(waiting):
    lines = ["[2026-06-07 11:57:43] KV Cache is allocated. #tokens: 6827, K size: 0.09 GB, V size: 0.09 GB",
             "[2026-06-07 11:57:57] Capture cuda graph begin. This can take up to several minutes. avail mem=9.2 GB",
             "Capturing batches (bs=4 avail_mem=9.0 GB):  35%|███▌      | 7/20", waiting, waiting]
    assert kind_of(lines) == ("UNDETERMINED", "log-ends-during-step")


@pytest.mark.parametrize("said", ["模型加载成功后，一进行推理就报OOM", "when someone pastes a 60k token document the request fails",
                                  "It dies as soon as a user uploads a 100k-token document:"])
def test_more_words_of_serving(said):
    assert kind_of([said, _OOM])[0] == "RUNTIME"


def test_sglangs_tensor_parallel_size_alias_is_read():
    rep = diag("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct "
               "--tensor-parallel-size 4 --port 30000\n" + _OOM)
    assert run_of(rep).numbers.get("tensor_parallel_size") == 4, run_of(rep).numbers


# --- IPython's excerpt of a library's source that raises is code, not its error (h486/03: was NOT_OOM code-error) ----

@pytest.mark.parametrize("code", ["    152     raise TypeError(", "--> 152     raise ValueError(f'bad {x}')"])
def test_an_ipython_excerpt_line_that_raises_is_no_error(code):
    lines = ["RuntimeError                              Traceback (most recent call last)",
             "File /x/vllm/utils.py:150, in check(x)", "    150 if not isinstance(x, str):", code,
             "File /x/torch/cuda/__init__.py:300, in _lazy_init()", "--> 300     torch._C._cuda_init()",
             "RuntimeError: CUDA error: out of memory"]
    assert kind_of(lines)[0] != "NOT_OOM"


def test_an_ipython_arrow_line_that_is_not_a_raise_is_read_as_before():
    lines = ["ValueError                              Traceback (most recent call last)",
             "Cell In[3], line 2", "----> 2 llm = LLM(model='x')",
             "ValueError: Model architectures ['FooForCausalLM'] are not supported for now.",
             "Supported architectures: ['LlamaForCausalLM']"]
    assert kind_of(lines)[0] == "NOT_OOM"
