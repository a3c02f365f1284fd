"""Kinds of fault found from stop 48 on (held-out rounds 456 and later), each in several wordings of our own, with
guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, kind_of, run_of

_OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB"
_VLLM_SERVING = ["INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.1",
                 "INFO 05-01 10:00:05 [gpu_model_runner.py:1000] Model loading took 14.99 GiB and 5.1 seconds",
                 "INFO:     Application startup complete.",
                 'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


# --- the error a report names by its message, in more wordings: reported (报`...`错误), failed or aborted with, got

@pytest.mark.parametrize("said", [
    "使用Qwen2.5-0.5B模型，evalscope速度基准测试报`Cannot open tokenizer file tokenizer.json`错误",
    "启动之后报了“unknown model architecture: qwen3_moe”的错误",
    "The server fails with `Invalid prompt template for this model` error.",
    "When I run it I get the error \"unknown model architecture: gemma3\".",
    "The model loading aborts with an RPC Internal Error stating that the key `gemma3.attention.layer_norm_rms_epsilon` "
    "is not found in the model hyperparameters.",
    "It crashed with an exception saying the tokenizer.json file is missing a merges section.",
])
def test_an_error_the_report_names_by_its_message_is_that_error(said):
    assert kind_of([said, "```", "INFO starting the server"]) == ("NOT_OOM", "error-not-memory")


@pytest.mark.parametrize("said", [
    "运行后报`CUDA out of memory. Tried to allocate 2 GiB`错误",  # memory's words
    "It fails with an error saying the model is too large to fit on the GPU.",  # a model that does not fit
    "SGLang dies with the \"Capture cuda graph failed\" error every time",  # a step that failed, not why
    "It fails with `Engine core initialization failed` error.",  # ... in another wording
    "I raised `max_num_batched_tokens` to 16384 and it still crashes.",  # a setting the writer changed
])
def test_a_named_error_of_memory_or_of_a_step_is_not_a_cause_of_another_kind(said):
    assert kind_of([said, "```", "INFO starting the server"])[0] != "NOT_OOM"


def test_words_that_report_something_else_name_no_error():
    # (汇报 / 简报 / 日报: a report, not "reported an error")
    assert kind_of(["周报`日志系统调试信息`错误的情况请看下面", "INFO starting the server"])[0] == "NONE"


# --- a bare AssertionError as IPython prints it ("AssertionError: " with nothing after) under its `assert` statement,
# the excerpt's arrow before it: the condition is read

_IPY_ASSERT = [
    "File ~/lib/python3.12/site-packages/vllm/model_executor/layers/linear.py:1228, in RowParallelLinear.weight_loader("
    "self, param, loaded_weight)",
    "   1225 if len(loaded_weight.shape) == 0:",
    "   1226     loaded_weight = loaded_weight.reshape(1)",
]


@pytest.mark.parametrize("statement, end", [
    ("-> 1228 assert param_data.shape == loaded_weight.shape", "AssertionError: "),
    ("--> 1228     assert param_data.shape == loaded_weight.shape", "AssertionError:"),
    ("-> 1228 assert isinstance(layer, RowParallelLinear)", "AssertionError: "),
])
def test_an_ipython_bare_assertion_on_a_condition_not_of_memory_is_no_memory(statement, end):
    assert kind_of([*_IPY_ASSERT, statement, "   1229 param_data.copy_(loaded_weight)", "", end]) == (
        "NOT_OOM", "assertion-failed")


def test_an_ipython_bare_assertion_on_free_blocks_is_not_ruled_out():
    lines = [*_IPY_ASSERT, "-> 1228 assert len(self.free_blocks) >= num_required_blocks", "", "AssertionError: "]
    assert kind_of(lines)[0] != "NOT_OOM"


# --- a transformers model's own forward pass is an input going through it: the weights are in place

_FWD = "OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB. GPU 0 has a total capacity of 23.64 GiB"


@pytest.mark.parametrize("frames", [
    ["File ~/lib/python3.12/site-packages/transformers/models/gemma3/modeling_gemma3.py:754, in "
     "Gemma3TextModel.forward(self, input_ids, attention_mask)", "--> 754     layer_outputs = decoder_layer("],
    ['  File "/usr/lib/python3/dist-packages/transformers/models/llama/modeling_llama.py", line 310, in forward',
     "    attn_weights = torch.matmul(query_states, key_states.transpose(2, 3))"],
    ["/usr/local/lib/python3.10/dist-packages/accelerate/hooks.py in new_forward(module, *args, **kwargs)",
     "--> 164             output = module._old_forward(*args, **kwargs)"],
])
def test_a_transformers_forward_pass_is_runtime(frames):
    assert kind_of(["Traceback (most recent call last):", *frames, _FWD])[0] == "RUNTIME"


def test_a_profiling_run_around_a_transformers_forward_stays_the_warm_up():
    lines = ["INFO 05-01 10:00:05 [gpu_model_runner.py:1000] Model loading took 14.99 GiB and 5.1 seconds",
             "Traceback (most recent call last):",
             '  File "/usr/lib/python3/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2100, in profile_run',
             "    hidden_states = self._dummy_run(self.max_num_tokens)",
             '  File "/usr/lib/python3/dist-packages/transformers/models/llama/modeling_llama.py", line 310, in forward',
             "    attn_weights = torch.matmul(query_states, key_states.transpose(2, 3))", _FWD]
    assert kind_of(lines)[0] == "WARMUP"


@pytest.mark.parametrize("said", [
    "Setting `pad_token_id` to `eos_token_id`:2 for open-end generation.",
    "Both `max_new_tokens` (=200) and `max_length`(=200) seem to have been set. `max_new_tokens` will take precedence.",
    "2023-10-10 15:56:27,604 >> Your input_length: 1024 is bigger than 0.9 * max_length: 200. You might consider "
    "increasing your max_length manually",
])
def test_generates_own_warnings_are_a_generation_under_way(said):
    assert kind_of([said, _OOM])[0] == "RUNTIME"


# --- a name in a line of code is no request id; a real id still is

def test_a_request_id_argument_in_a_code_line_is_no_request():
    lines = ["RuntimeError: CUDA Error 2, out of memory", "", "Traceback (most recent call last):",
             '  File "/home/u/exo/orchestration/node.py", line 211, in _process_tensor',
             "    result = await self.engine.infer_tensor(request_id, shard, tensor, state=state)"]
    assert kind_of(lines)[0] != "RUNTIME"


def test_a_request_id_with_its_value_is_a_request():
    assert kind_of(["INFO 05-01 10:00:09 [logger.py:39] Received request_id=cmpl-7f3a91c2e0, prompt: 'hi'", _OOM])[0] == (
        "RUNTIME")


# --- exo loads a node's shard for the request that reaches it: a request is no sign the weights were in place

_EXO_ANSWER = ('{"detail": "Error processing prompt (see logs with DEBUG>=2): <AioRpcError of RPC that terminated with:'
               '\\n\\tstatus = StatusCode.UNKNOWN\\n\\tdetails = \\"Unexpected <class \'RuntimeError\'>: CUDA Error 2, out '
               'of memory\\""}')


@pytest.mark.parametrize("call", [
    ["curl http://edgenode2:8000/v1/chat/completions \\", "  -H \"Content-Type: application/json\" \\",
     "  -d '{", '     "model": "llama-3.1-70b",', '     "messages": [{"role": "user", "content": "hello"}]', "   }'"],
    ["/usr/bin/curl --max-time 1800 http://localhost:52415/v1/chat/completions \\",
     "  -d '{\"model\": \"llama-3.1-8b\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}'"],
])
def test_exos_first_prompt_that_ran_out_is_not_placed(call):
    assert kind_of([*call, "", _EXO_ANSWER]) == ("UNDETERMINED", "oom-phase-not-shown")


def test_exos_shard_that_gave_a_result_was_serving():
    lines = ["Excluded model param keys for shard=Shard(model_id='llama-3.1-8b', start_layer=0, end_layer=31, "
             "n_layers=32): set()",
             "[3f2c9a1e-77b0-4c1d-9d2e-0a1b2c3d4e5f] result size: 1, is finished: False, buffered tokens: 12",
             "Error processing tensor for shard Shard(model_id='llama-3.1-8b', start_layer=0, end_layer=31, n_layers=32): "
             "CUDA Error 2, out of memory"]
    assert kind_of(lines)[0] == "RUNTIME"


def test_a_weight_in_a_model_name_is_no_generator_step():
    # (exllamav2's generator `iterate` inside "abliterated": no request under way)
    lines = ["Error processing tensor for shard Shard(model_id='mlabonne/Meta-Llama-3.1-8B-Instruct-abliterated', "
             "start_layer=0, end_layer=31, n_layers=32): CUDA Error 2, out of memory"]
    assert kind_of(lines)[0] != "RUNTIME"


# --- a client's call the report pastes, its continued lines and JSON body included, is a request sent, not taken:
# Ollama loads its model for it

_OLLAMA_CLIENT_ERROR = '{"error":"llama runner process has terminated: CUDA error: out of memory"}'


@pytest.mark.parametrize("call", [
    ["/usr/bin/curl http://localhost:11434/v1/chat/completions \\", "  -H 'Content-Type: application/json' \\",
     "  -d '{", '    "model": "llama3.1:70b",', '    "messages": [{"role": "user", "content": "hello"}]', "  }'"],
    ["curl http://localhost:11434/api/chat -d '{", '  "model": "llama3.1:70b",',
     '  "messages": [{"role": "user", "content": "why is the sky blue?"}]', "}'"],
])
def test_a_pasted_client_call_with_its_body_is_no_request_ollama_took(call):
    assert kind_of(["ollama version is 0.6.0", *call, _OLLAMA_CLIENT_ERROR])[0] == "UNDETERMINED"


def test_koboldcpps_prompt_line_is_its_own_with_its_count():
    assert kind_of(["Processing Prompt [BLAS] (512 / 2048 tokens)", _OOM])[0] == "RUNTIME"
    assert kind_of(['{"detail": "Error processing prompt: CUDA error: out of memory"}'])[0] != "RUNTIME"


# --- a tool's catch of the load's exception, the out of memory in its line

@pytest.mark.parametrize("line", [
    "ERROR: Catch exception when loading model: CUDA out of memory. Tried to allocate 260.00 MiB.",
    "Exception occurred while loading model: CUDA out of memory. Tried to allocate 1.02 GiB",
    "[E] error during loading the model - out of memory (OOM) on device 0",
])
def test_an_exception_caught_while_loading_the_model_is_the_weights(line):
    assert kind_of([line])[0] == "WEIGHTS"


def test_an_exception_while_loading_without_memory_words_is_not_the_weights():
    assert kind_of(["ERROR: Catch exception when loading model: unsupported architecture Qwen3MoE"])[0] != "WEIGHTS"


# --- Windows' crash handler naming an access violation; a client whose server went away; an empty error

@pytest.mark.parametrize("line", ["2026-03-17 22:57:10.978 [Info] (Process) Exception Code: 0xC0000005",
                                  "Exception Code: 0xc0000005"])
def test_a_crash_handlers_access_violation_is_no_memory(line):
    assert kind_of(["srv  update_slots: all slots are idle", line]) == ("NOT_OOM", "crash-access-violation")


@pytest.mark.parametrize("line", [
    "core.model_runtime.errors.invoke.InvokeServerUnavailableError: [models] Server Unavailable Error, ('Connection "
    "aborted.', RemoteDisconnected('Remote end closed connection without response'))",
    "requests.exceptions.ConnectionError: ('Connection aborted.', RemoteDisconnected('Remote end closed connection "
    "without response'))",
    "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host 127.0.0.1:8877 ssl:default [Connect call "
    "failed ('127.0.0.1', 8877)]",
])
def test_a_client_whose_server_went_away_does_not_say_why(line):
    assert kind_of(["ERROR [indexing_runner.py:96] - consume document failed", line]) == (
        "UNDETERMINED", "failure-cause-not-shown")


@pytest.mark.parametrize("line", ["Error: ", "Error:", "ERROR:"])
def test_an_error_with_an_empty_message_does_not_say_why(line):
    assert kind_of(["$ llm -m l2c 'Tell me a joke about a llama'", line]) == (
        "UNDETERMINED", "failure-cause-not-shown")


def test_an_empty_error_heading_over_an_out_of_memory_is_memory():
    assert kind_of(["Error:", _OOM])[0] != "NOT_OOM"
    assert kind_of(["Error:", _OOM])[0] != "NONE"


# --- a request's body refused by a server's own check

@pytest.mark.parametrize("line", [
    "2025-11-09 08:24:31 | ERROR | app.api.endpoints:chat_completions:99 | Error processing chat completion request: 2 "
    "validation errors for Message",
    "ERROR:    1 validation error for ChatCompletionRequest",
    "pydantic_core._pydantic_core.ValidationError: 3 validation errors for openai.types.ToolCall",
])
def test_a_request_refused_by_its_validation_is_no_memory(line):
    assert kind_of([*_VLLM_SERVING, line]) == ("NOT_OOM", "request-rejected")


def test_a_config_refused_by_its_validation_stays_a_setting():
    line = "pydantic_core._pydantic_core.ValidationError: 1 validation error for CacheConfig"
    assert kind_of([line]) == ("NOT_OOM", "setting-rejected")


# --- an out of memory after a count of steps, or on a longer input, in a report's words: past the start-up

@pytest.mark.parametrize("said", [
    "When training with verl using vLLM 0.8.2, I encounter a CUDA OOM error after 50-60 steps.",
    "After a few iterations it runs out of memory.",
    "GRPO crashes with OOM after about 120 training steps every time.",
    "一块V100的卡，跑13b的启动脚本。短文本没事，文本一长就报错。",
    "更换了更大的向量化模型，在初始化比较大文件的时候会爆显存",
    "It crashes while embedding a large document.",
])
def test_an_out_of_memory_after_work_was_done_is_runtime(said):
    assert kind_of([said, _OOM])[0] == "RUNTIME"


@pytest.mark.parametrize("said", [
    "It fails after 3 retries.",
    "I waited 10 minutes after loading and then it crashed",
    "while reading the model file it crashes",
])
def test_counts_of_other_things_say_no_serving(said):
    assert kind_of([said, _OOM])[0] != "RUNTIME"


# --- an application's words that its work on an input failed, the out of memory after them; documents processed

@pytest.mark.parametrize("line", [
    "Parsing failed: CUDA out of memory. Tried to allocate 86.00 MiB. GPU 0 has a total capacity of 7.62 GiB",
    "\u274c Processing failed: CUDA out of memory. Tried to allocate 86.00 MiB.",
    "ERROR:docstrange.pipeline.nanonets_processor:Nanonets OCR extraction failed: CUDA out of memory. Tried to allocate "
    "122.64 GiB.",
    "Transcription failed: CUDA failed with error out of memory",
])
def test_an_inputs_processing_that_failed_for_memory_is_runtime(line):
    assert kind_of([line])[0] == "RUNTIME"


def test_a_models_load_that_failed_for_memory_stays_the_weights():
    assert kind_of(["Model loading failed: CUDA out of memory. Tried to allocate 86.00 MiB."])[0] == "WEIGHTS"


@pytest.mark.parametrize("said", [
    "I am facing CUDA Out-of-Memory errors when processing PDF files on our Linux box.",
    "Getting CUDA out of memory error when converting a small PDF file (801KB, 17 pages).",
    "It runs out of memory while OCRing scanned pages.",
    "one of the prompts I'm using causes a CUDA OOM error",
    "Certain prompts trigger an out-of-memory on the second GPU.",
])
def test_documents_or_prompts_that_cause_it_are_runtime(said):
    assert kind_of([said, _OOM])[0] == "RUNTIME"


@pytest.mark.parametrize("said", [
    "It crashes while parsing the model file.",
    "when converting the GGUF file it runs out of memory",
    "Loading the model causes an OOM.",
])
def test_the_models_own_files_are_not_an_input(said):
    assert kind_of([said, _OOM])[0] != "RUNTIME"


# --- ggml's example programs and the ports built on them: their loader's lines are the weights

@pytest.mark.parametrize("loader", [
    ["starcoder_model_load: loading model from 'models/bigcode/starcoder-ggml.bin'",
     "starcoder_model_load: ggml ctx size = 51276.47 MB"],
    ["gpt2_model_load: loading model from 'models/gpt-2-1558M/ggml-model.bin'", "gpt2_model_load: ggml ctx size = 6743.80 MB"],
    ["gptj_model_load: n_ctx   = 2048", "gptj_model_load: ggml ctx size = 13334.86 MB"],
])
def test_a_ggml_example_loaders_lines_are_the_weights(loader):
    assert kind_of([*loader, "GGML_ASSERT: ggml.c:3874: ctx->mem_buffer != NULL", "Aborted (core dumped)"])[0] == "WEIGHTS"


# --- the eager attention's own line under a frame is a forward pass

def test_the_eager_attentions_scores_are_a_forward_pass():
    lines = ["Traceback (most recent call last):", '  File "/x/modeling_qwen2_vl.py", line 410, in attn',
             "    attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)", _FWD]
    assert kind_of(lines)[0] == "RUNTIME"


# --- an exception's class after a colon in a report's title; memory held after a crash is no leak

@pytest.mark.parametrize("title", ["Qwen3-Embedding model crashed: KeyError: None",
                                   "Server failed: `AttributeError: 'NoneType' object has no attribute 'shape'`"])
def test_a_title_naming_a_code_error_after_a_colon_is_that_error(title):
    lines = [title, "", "(APIServer pid=1) INFO:     Application startup complete.",
             "(EngineCore_0 pid=7) ERROR 08-22 15:18:41 [dump_input.py:69] Dumping input data for V1 LLM engine"]
    assert kind_of(lines) == ("NOT_OOM", "code-error")


def test_a_title_naming_memory_after_a_colon_is_not_a_code_error():
    assert kind_of(["Server crashed: CUDA out of memory, then KeyError: None"])[0] != "NOT_OOM"


@pytest.mark.parametrize("said", ["Qwen3.5-122B-A10B on 4xB70 崩溃，且内存不释放。", "vllm 挂了以后显存不释放"])
def test_memory_held_after_a_crash_is_no_leak(said):
    assert kind_of([said, "(APIServer pid=1) INFO:     Application startup complete."])[0] != "LEAK"


@pytest.mark.parametrize("said", ["每次请求结束后显存不释放", "服务运行几天后，显存不释放，越来越多"])
def test_memory_not_given_back_between_requests_is_a_leak(said):
    assert kind_of([said, "(APIServer pid=1) INFO:     Application startup complete."])[0] == "LEAK"


# --- stable-diffusion.cpp: a model's params buffer is its weights, a graph's compute buffer an image's work

_SD_LOAD = ["[INFO ] stable-diffusion.cpp:274  - VAE weight type:             f32",
            "[DEBUG] ggml_extend.hpp:1075 - clip params backend buffer size =  235.06 MB(RAM) (196 tensors)"]


def test_sd_cpps_params_buffer_that_failed_is_the_weights():
    lines = [*_SD_LOAD, "ggml_vulkan: Device memory allocation of size 4280791040 failed.",
             "ggml_vulkan: No suitable memory type found: ErrorOutOfDeviceMemory",
             "[ERROR] ggml_extend.hpp:1067 - flux alloc params backend buffer failed, num_tensors = 780"]
    assert kind_of(lines)[0] == "WEIGHTS"


@pytest.mark.parametrize("work", [
    ["[INFO ] stable-diffusion.cpp:4512 - sampling completed, taking 131.77s",
     "[INFO ] stable-diffusion.cpp:4197 - decoding 1 latents",
     "[DEBUG] ggml_extend.hpp:2061 - vae compute buffer size: 14978.25 MB(VRAM)",
     "[ERROR] ggml_extend.hpp:70   - ROCm error: out of memory"],
    ["[INFO ] stable-diffusion.cpp:4405 - generating image: 1/1 - seed 42",
     "ggml_vulkan: Device memory allocation of size 26722162176 failed.",
     "ggml_vulkan: No suitable memory type found: ErrorOutOfDeviceMemory"],
])
def test_sd_cpps_image_work_that_ran_out_is_runtime(work):
    assert kind_of([*_SD_LOAD, "[INFO ] model_loader.cpp:1224 - loading tensors completed, taking 0.20s", *work])[0] == (
        "RUNTIME")


@pytest.mark.parametrize("said", ["For C1, the image cannot be generated.", "The model cannot be loaded at all."])
def test_a_failure_told_in_the_passive_is_a_failure(said):
    assert kind_of([said, "[DEBUG] ggml_extend.hpp - vae compute buffer size: 2560.25 MB (VRAM)"])[0] == "UNDETERMINED"


# --- "could not" is a failure that happened, not a supposition

@pytest.mark.parametrize("said", ["The server could not start.", "The model could not be loaded.",
                                  "vLLM couldn't start after the update."])
def test_could_not_states_a_failure(said):
    lines = [said, "INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.1"]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


@pytest.mark.parametrize("said", ["It could crash if memory is low.", "It could not be memory, I think, but it is slow."])
def test_could_still_supposes(said):
    assert kind_of([said, "INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.1"])[0] == "NONE"


# --- a person's words that it failed while the model loaded, not naming its weights: the weights where the engine's
# start-up is their load alone (transformers), a start-up step, whichever, elsewhere (vLLM, llama.cpp, Ollama size the
# KV cache and warm up as part of what their users call loading) and where no engine is recognised (stop 48: the same
# reading in every language; h469/11 read WEIGHTS for a vLLM start-up)

_LOADING_WORDS = ["模型加载阶段直接爆显存：", "加载模型时显存不足", "모델 로딩 중 메모리 부족", "モデルの読み込み中にメモリ不足になります",
                  "모델을 불러오는 중에 메모리 부족", "CUDA out of memory during model loading",
                  "When loading the model I get out of memory."]


@pytest.mark.parametrize("said", _LOADING_WORDS)
def test_words_of_the_models_load_are_the_weights_for_a_script(said):
    lines = ['model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-7B-Instruct", torch_dtype="auto")', said, _OOM]
    assert kind_of(lines)[0] == "WEIGHTS"


@pytest.mark.parametrize("engine_line", [
    "INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.1",
    "llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from /models/q.gguf",
    None,
])
@pytest.mark.parametrize("said", _LOADING_WORDS)
def test_words_of_the_models_load_are_a_start_up_step_elsewhere(said, engine_line):
    run = run_of(diag("\n".join([*([engine_line] if engine_line else []), said, _OOM])))
    assert run.kind == "UNDETERMINED" and "WEIGHTS" in run.candidates and "RUNTIME" not in run.candidates, (
        run.kind, run.candidates)


@pytest.mark.parametrize("said", ["同一张卡上再加载第二个模型时报错：", "여러 개의 LLM 모델을 한 번에 로드하려고 할 때 CUDA out of memory 발생",
                                  "vllm参数中tensor_parallel_size=1，再加载另一个模型的时候报错："])
def test_a_second_model_loaded_is_the_weights_whatever_the_engine(said):
    assert kind_of(["INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.1", said, _OOM])[0] == "WEIGHTS"


# --- stop 48's new-user review: what it found after the readings above

@pytest.mark.parametrize("line", [
    "Error processing prompt (see logs with DEBUG>=2): CUDA out of memory. Tried to allocate 2.00 GiB",
    "Error processing request (see logs with INFO>=2): CUDA out of memory. Tried to allocate 2.00 GiB",
    '{"detail": "Error processing prompt (see logs with DEBUG>=2): CUDA Error 2, out of memory"}',
])
def test_a_level_compared_with_a_number_is_no_lines_level(line):
    assert kind_of([line])[0] not in ("NONE", "NOT_OOM")


def test_exos_pass_after_its_shard_loaded_is_runtime():
    lines = ["ram used: 16.06 GB, layers.31.feed_forward.w3.weight: 100%| loaded weights in 5123.45 ms, 16.06 GB loaded "
             "at 3.13 GB/s",
             "Error processing prompt (see logs with DEBUG>=2): CUDA Error 2, out of memory"]
    assert kind_of(lines)[0] == "RUNTIME"


def test_an_error_named_in_chinese_ends_a_log_cut_in_a_step():
    lines = ['启动之后报了"unknown model architecture"的错误',
             "llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from /models/q.gguf",
             "llama_model_loader: - kv   0: general.architecture str = qwen3moe"]
    assert kind_of(lines) == ("NOT_OOM", "error-not-memory")


@pytest.mark.parametrize("said", ['llama-server fails with "Cannot connect to host 127.0.0.1:8877" error from my client',
                                  '调用接口报"Connection refused by 127.0.0.1:11434"错误'])
def test_a_named_error_that_the_server_is_gone_names_no_cause(said):
    assert kind_of([said, "INFO starting the server"]) == ("UNDETERMINED", "failure-cause-not-shown")


def test_an_error_the_run_errors_with_is_that_error():
    assert kind_of(['It errors with "tokenizer.model not found" when loading the model.']) == (
        "NOT_OOM", "error-not-memory")


def test_json_that_did_not_parse_is_no_memory():
    assert kind_of(["2025-01-01 12:00:00 - app - ERROR - Parsing failed: Expecting value: line 1 column 1 (char 0)"]) == (
        "NOT_OOM", "code-error")


_LC = ["pydantic.v1.error_wrappers.ValidationError: 1 validation error for LlamaCpp", "__root__"]


def test_langchains_llamacpp_that_failed_to_load_does_not_say_why():
    lines = [*_LC, "  Could not load Llama model from path: /models/x.gguf. Received error Failed to load model from file: "
             "/models/x.gguf (type=value_error)"]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


def test_langchains_llamacpp_without_its_file_is_the_file():
    lines = [*_LC, "  Could not load Llama model from path: /models/x.gguf. Received error Model path does not exist: "
             "/models/x.gguf (type=value_error)"]
    assert kind_of(lines) == ("NOT_OOM", "model-file-error")


def test_a_requests_sampling_params_refused_is_the_request():
    lines = [*_VLLM_SERVING, "pydantic_core._pydantic_core.ValidationError: 1 validation error for SamplingParams"]
    assert kind_of(lines) == ("NOT_OOM", "request-rejected")


@pytest.mark.parametrize("line", ["[ERROR] ggml_extend.hpp:1148 - clip: failed to allocate the compute buffer",
                                  "[ERROR] ggml_extend.hpp:1148 - vae: failed to allocate the compute buffer"])
def test_sd_cpps_compute_buffer_is_the_images_work(line):
    assert kind_of(["[INFO ] stable-diffusion.cpp:274  - VAE weight type:             f32", line])[0] == "RUNTIME"


@pytest.mark.parametrize("said", ["It OOMs after about 2 hours of serving:", "It dies after a few days of uptime."])
def test_a_time_of_serving_before_it_is_serving(said):
    assert kind_of([said, _OOM])[0] == "RUNTIME"


def test_sd_cpps_image_asked_for_then_a_buffer_that_failed_is_runtime():
    lines = ["[INFO ] stable-diffusion.cpp:564  - loading model from 'sd3.5_large.safetensors' completed, taking 12.01s",
             "[INFO ] stable-diffusion.cpp:1851 - txt2img 1536x1536",
             "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1200.00 MiB on device 0: cudaMalloc failed: out of memory",
             "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 1258291200",
             "[ERROR] ggml_extend.hpp:1148 - clip: failed to allocate the compute buffer"]
    assert kind_of(lines)[0] == "RUNTIME"


# --- held-out rounds 469-473

@pytest.mark.parametrize("said", ["This works now, where before it ran out of memory.  Thanks for fixing.",
                                  "Thanks, that fixed the OOM.", "Everything works now, while before it crashed with OOM."])
def test_an_out_of_memory_told_as_fixed_in_either_order_is_none(said):
    assert kind_of([said, "python -m mlx_vlm generate --model mlx-community/Qwen3-VL-2B-Thinking-bf16"])[0] == "NONE"


@pytest.mark.parametrize("said", ["It works now, but before the first request it still runs out of memory.",
                                  "It works now, but before it still runs out of memory sometimes."])
def test_before_a_step_or_still_is_no_fix(said):
    assert kind_of([said, "INFO starting"])[0] != "NONE"


def test_faulthandlers_frames_are_frames():
    lines = ["libc++abi: terminating due to uncaught exception of type std::runtime_error: Attempting to allocate "
             "51619840000 bytes which is greater than the maximum allowed buffer size of 21743271936 bytes.",
             "Fatal Python error: Aborted", "", "Thread 0x00000001e136dc40 (most recent call first):",
             '  File "/Users/m/mlx-vlm/mlx_vlm/models/qwen2_vl/qwen2_vl.py", line 81 in _merge_input_ids_with_image_features',
             '  File "/Users/m/mlx-vlm/mlx_vlm/utils.py", line 888 in generate_step',
             '  File "/Users/m/mlx-vlm/mlx_vlm/generate.py", line 84 in main']
    assert kind_of(lines)[0] == "RUNTIME"


@pytest.mark.parametrize("work", [["Generating summary with MLX model..."], ["Generating response..."],
                                  ["Iter 10: Train loss 2.586, Learning Rate 1.000e-05, It/sec 1.426, Peak mem 31.753 GB"],
                                  ["Loading datasets", "Training"]])
def test_a_programs_words_that_its_work_is_under_way_are_runtime(work):
    oom = ("libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution "
           "failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)")
    assert kind_of([*work, oom])[0] == "RUNTIME"


def test_a_question_of_generating_is_no_work_under_way():
    assert kind_of(["Generating text? It fails before that.", _OOM])[0] != "RUNTIME"


def test_a_step_that_can_be_done_elsewhere_is_not_this_runs():
    said = ("I got CUDA OOM error when loading model `facebook/opt-30b`, however the model can be successfully loaded onto "
            "GPUs with huggingface transformers.")
    assert kind_of([said, _OOM])[0] != "KV_CAPACITY"


@pytest.mark.parametrize("said", ["参照推理的 tutorial，连续执行 44 次后，出现 OOM：", "推理了几十次之后显存不足"])
def test_a_count_of_runs_before_it_is_runtime_in_chinese(said):
    assert kind_of([said, _OOM])[0] == "RUNTIME"


_EXEC = ("torch.OutOfMemoryError: Error in model execution (input dumped to /tmp/err_execute_model_input.pkl): CUDA out "
         "of memory. Tried to allocate 1.93 GiB.")


@pytest.mark.parametrize("said", [
    "[Usage]: When using vllm to start the internvl2-8b model service at A10 card(24GB), an error occurs.",
    "I'm trying to launch Qwen2-VL-7B with vllm and it fails:",
])
def test_a_model_execution_while_the_server_was_started_is_the_warm_up(said):
    assert kind_of([said, _EXEC])[0] == "WARMUP"


def test_a_model_execution_after_serving_stays_runtime():
    assert kind_of(["I'm trying to launch Qwen2-VL-7B with vllm:", *_VLLM_SERVING, _EXEC])[0] == "RUNTIME"


@pytest.mark.parametrize("said", ["3. Model starts loading, Shared GPU memory usage slowly increases",
                                  "The weights are being loaded and VRAM keeps increasing until it crashes."])
def test_memory_rising_while_the_model_loads_is_no_leak(said):
    assert kind_of([said, _OOM])[0] != "LEAK"


# --- held-out rounds 474-476

@pytest.mark.parametrize("said", ["[BUG] 利用VLLM进行推理时，加载模型时OOM",
                                  "When running inference with vLLM, it OOMs while loading the model.",
                                  "推理服务启动时显存不足"])
def test_inference_as_the_purpose_does_not_outweigh_the_load_named_as_the_step(said):
    lines = [said, "vllm serve baichuan2-13b --gpu-memory-utilization 0.9", _OOM]
    assert kind_of(lines)[0] != "RUNTIME"


def test_a_request_in_one_sentence_and_startup_in_another_is_still_the_request():
    said = ("One completion request with a 200k-token input kills the server with out of memory. The KV cache was sized "
            "at 600,000 tokens at startup.")
    assert kind_of([said, "INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.1", _OOM])[0] == "RUNTIME"


@pytest.mark.parametrize("cell", [
    ["Cell In[9], line 15", "     12 n_input_tokens = batch['input_ids'].shape[-1]", "     14 t1 = time.perf_counter()",
     "---> 15 generated = model.generate(batch['input_ids'].to('cuda'), max_length=n_input_tokens+25)",
     "     16 t2 = time.perf_counter()"],
    ["<ipython-input-5-0a1b2c3d> in <module>", "      3 inputs = tok(prompt, return_tensors='pt').to(0)",
     "----> 4 out = model.generate(**inputs, max_new_tokens=200)"],
])
def test_a_notebook_cells_line_that_ran_is_read(cell):
    lines = ["OutOfMemoryError                          Traceback (most recent call last)", *cell, "",
             "OutOfMemoryError: CUDA out of memory. Tried to allocate 86.00 MiB (GPU 0; 3.94 GiB total capacity)"]
    assert kind_of(lines)[0] == "RUNTIME"


def test_a_notebook_cell_that_loads_is_the_weights():
    lines = ["OutOfMemoryError                          Traceback (most recent call last)", "Cell In[3], line 4",
             "      2 from transformers import AutoModelForCausalLM", "      3 name = 'Qwen/Qwen2-7B'",
             "----> 4 model = AutoModelForCausalLM.from_pretrained(name, device_map='cuda')", "",
             "OutOfMemoryError: CUDA out of memory. Tried to allocate 260.00 MiB (GPU 0; 14.75 GiB total capacity)"]
    assert kind_of(lines)[0] == "WEIGHTS"
