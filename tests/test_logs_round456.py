"""Kinds of fault found from stop 48 on (held-out rounds 456 and later), each in several wordings of our own, with
guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import kind_of

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
