"""Kinds of fault found from stop 47 on (held-out rounds 449 and later, and the items stop 46 left), each in several
wordings of our own, with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import kind_of

_VLLM_SERVING = ["INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.1",
                 "INFO 05-01 10:00:05 [gpu_model_runner.py:1000] Model loading took 14.99 GiB and 5.1 seconds",
                 "INFO:     Application startup complete.",
                 'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


# --- a dash begins a clause of its own: a denial before it does not deny what follows (stop 46's review)

@pytest.mark.parametrize("said", [
    "The second request never returns - it just hangs forever.",
    "Generation never finishes \u2014 the server simply hangs.",
    "Nothing crashes \u2013 it just hangs after the first request.",
])
def test_a_hang_after_a_dash_is_stated(said):
    assert kind_of([said, *_VLLM_SERVING]) == ("UNDETERMINED", "hang-no-error")


@pytest.mark.parametrize("said", [
    "The server never hangs - it answers every request.",
    "It does not - as far as I can tell - hang on the second request.",
])
def test_a_hang_denied_in_its_own_clause_is_not(said):
    assert kind_of([said, *_VLLM_SERVING])[0] == "NONE"


# --- Ollama's runner aborts an answer, then its router logs the failed response: the client's close explains the 500
# in either order (stop 46's review)

_OLLAMA_UP = [
    'time=2025-03-10T10:00:00.112Z level=INFO source=routes.go:1205 msg="Listening on [::]:11434 (version 0.6.0)"',
    'time=2025-03-10T10:00:05.312Z level=INFO source=server.go:410 msg="starting llama server" cmd="/usr/bin/ollama '
    'runner --model /root/.ollama/models/blobs/sha256-2bada8a74506 --ctx-size 8192 --n-gpu-layers 29 --port 41233"',
    'time=2025-03-10T10:00:08.830Z level=INFO source=server.go:624 msg="llama runner started in 3.52 seconds"',
    '[GIN] 2025/03/10 - 10:00:12 | 200 |  7.210332s |       127.0.0.1 | POST     "/api/chat"']
_ABORT = ('time=2025-03-10T10:30:00.000Z level=INFO source=server.go:850 msg="aborting completion request due to client '
          'closing the connection"')


@pytest.mark.parametrize("answer", [
    '[GIN] 2025/03/10 - 10:30:00 | 500 |        10m0s |       127.0.0.1 | POST     "/api/chat"',
    '[GIN] 2025/03/10 - 10:30:00 | 500 |          5m0s |      172.17.0.1 | POST     "/v1/chat/completions"',
    '[GIN] 2025/03/10 - 10:30:00 | 500 |  2m13.507882s |       127.0.0.1 | POST     "/api/generate"',
])
def test_a_client_that_went_away_explains_the_500_below_it(answer):
    assert kind_of([*_OLLAMA_UP, _ABORT, answer]) == ("NOT_OOM", "client-closed-connection")
    assert kind_of([*_OLLAMA_UP, answer, _ABORT]) == ("NOT_OOM", "client-closed-connection")


def test_a_client_that_stopped_a_stream_is_no_failure():
    answer = '[GIN] 2025/03/10 - 10:30:00 | 200 |  2m13.507882s |       127.0.0.1 | POST     "/api/chat"'
    assert kind_of([*_OLLAMA_UP, _ABORT, answer])[0] == "NONE"
    assert kind_of([*_OLLAMA_UP, _ABORT])[0] == "NONE"


def test_a_500_far_below_a_clients_close_is_not_explained_by_it():
    later = ['[GIN] 2025/03/10 - 10:30:01 | 200 |  1.1s |       127.0.0.1 | POST     "/api/chat"'] * 4 + [
        '[GIN] 2025/03/10 - 10:40:00 | 500 |  1.2s |       127.0.0.1 | POST     "/api/chat"']
    assert kind_of([*_OLLAMA_UP, _ABORT, *later])[1] != "client-closed-connection"


# --- the Python exception in the traceback under an engine's own words for what failed is their detail: vLLM's tool
# parser names the failure more closely than its JSONDecodeError (stop 46's review)

@pytest.mark.parametrize("parser, raised, error", [
    ("hermes_tool_parser.py:115", 'raise JSONDecodeError("Expecting value", s, err.value) from None',
     "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column 87 (char 86)"),
    ("llama_tool_parser.py:120", "raise KeyError(key)", "KeyError: 'name'"),
    ("mistral_tool_parser.py:140", "raise IndexError('list index out of range')", "IndexError: list index out of range"),
])
def test_a_tool_calls_traceback_keeps_its_code(parser, raised, error):
    head = f"ERROR 05-14 09:20:41 [{parser}] "
    lines = [*_VLLM_SERVING, head + "Error in extracting tool call from response.",
             head + "Traceback (most recent call last):",
             head + '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/tool_parsers/x.py", line 95,'
                    " in extract_tool_calls",
             head + "    raw_function_calls = [",
             head + '  File "/usr/lib/python3.12/json/decoder.py", line 355, in raw_decode',
             head + "    " + raised,
             head + error,
             'INFO:     127.0.0.1:5002 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    assert kind_of(lines) == ("NOT_OOM", "tool-call-parse-error")


# --- the least the weights weigh, from the model's name and the log's settings, more than the GPUs hold: the weights
# ledger, though no line places the out of memory (h445/10, h434/11)

_OOM_ON = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 294.00 MiB. GPU 0 has a total capacity of "
           "{cap} GiB of which 46.50 MiB is free.")


@pytest.mark.parametrize("lines, cap", [
    (['from vllm import LLM', 'llm = LLM(model="mosaicml/mpt-30b")'], "22.19"),
    (['import torch', 'from transformers import AutoModelForCausalLM, AutoTokenizer', 'device = "cuda"',
      'tokenizer = AutoTokenizer.from_pretrained("THUDM/glm-4-9b-chat", trust_remote_code=True)',
      'model = AutoModelForCausalLM.from_pretrained(', '    "THUDM/glm-4-9b-chat",', '    torch_dtype=torch.bfloat16,',
      ').to(device).eval()', '', 'Traceback (most recent call last):', '  File "/app/run.py", line 5, in <module>'],
     "11.00"),
    (['$ vllm serve meta-llama/Llama-3.1-70B-Instruct --dtype bfloat16 --max-model-len 8192',
      "INFO 05-01 10:00:00 [core.py:71] Initializing a V1 LLM engine (v0.10.1) with config: "
      "model='meta-llama/Llama-3.1-70B-Instruct', dtype=torch.bfloat16, max_seq_len=8192, quantization=None"], "79.25"),
    (['import torch', 'from transformers import pipeline, AutoTokenizer', 'model_id = "Qwen/Qwen2.5-72B-Instruct"',
      'tokenizer = AutoTokenizer.from_pretrained(model_id)',
      'pipe = pipeline("text-generation", model=model_id, torch_dtype=torch.float16, device=0)', '',
      'Traceback (most recent call last):', '  File "/app/run.py", line 5, in <module>'], "79.25"),
])
def test_weights_that_cannot_fit_by_their_name_are_the_weights(lines, cap):
    assert kind_of([*lines, _OOM_ON.format(cap=cap)]) == ("WEIGHTS", "weights-exceed-gpu-memory")


@pytest.mark.parametrize("lines", [
    ['$ vllm serve meta-llama/Llama-3.1-70B-Instruct --dtype bfloat16 --tensor-parallel-size 2'],  # two GPUs hold it
    ['$ vllm serve hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4'],  # 4-bit: 35 GB
    ['$ vllm serve openai/gpt-oss-120b'],  # published in MXFP4: 63 GB
    ['$ vllm serve Qwen/Qwen2.5-72B-Instruct'],  # no dtype shown: fp8 at the least, 65 GB
    ['$ vllm serve mistralai/Mixtral-8x7B-Instruct-v0.1 --dtype bfloat16'],  # a mixture: its name states no count
    ['model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-70b-hf", device_map="auto", '
     'torch_dtype=torch.float16)'],  # spread over GPUs and the CPU
    ['model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-70b-hf", load_in_4bit=True)'],
    ['$ vllm serve meta-llama/Llama-3.1-70B-Instruct --dtype bfloat16 --cpu-offload-gb 80'],
    ['$ ./llama-server -m Llama-3.1-70B-Instruct-Q8_0.gguf -ngl 40'],  # layers on the CPU by design
    ['INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.1',
     '$ vllm serve meta-llama/Llama-3.1-70B-Instruct --dtype bfloat16',
     'INFO 05-01 10:00:05 [gpu_model_runner.py:1000] Model loading took 64.99 GiB and 5.1 seconds'],  # it loaded
])
def test_weights_that_may_fit_or_went_elsewhere_are_not_placed_by_their_name(lines):
    assert kind_of([*lines, _OOM_ON.format(cap="79.25")]) != ("WEIGHTS", "weights-exceed-gpu-memory")


_405B_CONFIG = ("INFO 05-01 10:00:00 [core.py:71] Initializing a V1 LLM engine (v0.10.1) with config: "
                "model='meta-llama/Llama-3.1-405B-Instruct', dtype=torch.bfloat16, quantization=None")


@pytest.mark.parametrize("lines", [
    # the pipeline's stages given as flags (16 GPUs hold 405B in bf16)
    ['$ vllm serve meta-llama/Llama-3.1-405B-Instruct --tensor-parallel-size 8 --pipeline-parallel-size 2', _405B_CONFIG],
    ['$ vllm serve meta-llama/Llama-3.1-405B-Instruct -tp 8 -pp 2', _405B_CONFIG],
    ['$ python -m sglang.launch_server --model-path meta-llama/Llama-3.1-405B-Instruct --tp-size 8 --pp-size 2 '
     '--dtype bfloat16', "quantization=None"],
    # processes that each hold a share: transformers' tensor parallel plan under torchrun
    ['$ torchrun --nproc-per-node 8 infer.py', 'model = AutoModelForCausalLM.from_pretrained('
     '"meta-llama/Llama-3.1-405B-Instruct", tp_plan="auto", torch_dtype=torch.bfloat16)'],
    # a 4-bit checkpoint named FP4, and vLLM's short -q
    ['$ vllm serve nvidia/Llama-3.1-405B-Instruct-FP4 --tensor-parallel-size 2', _405B_CONFIG],
    ['$ vllm serve meta-llama/Llama-3.1-405B-Instruct -q awq -tp 4',
     _405B_CONFIG.replace("quantization=None", "quantization=None (overridden on the command line)")],
    # a serving engine's --dtype is its activations': a checkpoint published in fp8 stays fp8 (no config line says None)
    ['$ vllm serve deepseek-ai/DeepSeek-Prover-V2-671B --dtype bfloat16 --tensor-parallel-size 8'],
])
def test_weights_spread_or_fewer_bits_than_the_flags_say_are_not_placed_by_their_name(lines):
    assert kind_of([*lines, _OOM_ON.format(cap="79.25")]) != ("WEIGHTS", "weights-exceed-gpu-memory")


def test_a_model_id_commented_out_is_not_the_model():
    lines = ["import torch", "from transformers import AutoModelForCausalLM", '# model_id = "meta-llama/Llama-2-70b-hf"',
             'model_id = "meta-llama/Llama-2-7b-hf"', "model = AutoModelForCausalLM.from_pretrained(model_id, "
             "torch_dtype=torch.float16).to('cuda')", "", "Traceback (most recent call last):",
             '  File "/app/run.py", line 5, in <module>', _OOM_ON.format(cap="23.65")]
    assert kind_of(lines) != ("WEIGHTS", "weights-exceed-gpu-memory")


def test_an_engine_that_keeps_experts_on_the_cpu_is_not_placed_by_its_name():
    lines = ["$ python -m ktransformers.local_chat --model_path deepseek-ai/DeepSeek-V2.5-236B --gguf_path ./gguf "
             "--cpu_infer 32", _OOM_ON.format(cap="23.65")]
    assert kind_of(lines) != ("WEIGHTS", "weights-exceed-gpu-memory")


@pytest.mark.parametrize("name, billions", [
    ("mosaicml/mpt-30b", 30.0), ("Qwen/Qwen2.5-0.5B-Instruct", 0.5), ("Qwen/Qwen3-30B-A3B", 30.0),
    ("meta-llama/Llama-2-13b-chat-hf", 13.0), ("facebook/OPT-1.3b", 1.3), ("/models/DeepSeek-R1-Distill-Llama-70B/", 70.0),
    ("mistralai/Mixtral-8x7B-v0.1", None), ("bigscience/bloom-7b1", None), ("microsoft/phi-2", None),
    ("Qwen/Qwen2-57B-A14B", 57.0), ("org/model-7b-to-13b", None),
])
def test_the_parameters_a_name_states(name, billions):
    from vramdoctor.logs.named_size import params_billion
    assert params_billion(name) == billions


# --- the report's words that it failed as the model answered a question typed at its prompt: serving (h450/12)

_BARE_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.66 GiB. GPU 0 has a total capacity of "
             "79.25 GiB of which 1.57 GiB is free.")


@pytest.mark.parametrize("said", [
    "Now I am able to get until the prompt where I input some question. However, it is not able to process any answer "
    "and the process gets killed due to RAM memory.",
    "It loads fine, but as soon as I type a question it runs out of memory.",
    "It runs out of memory when it tries to answer.",
    "OOM when answering the first question",
    "When I enter a prompt it crashes with OOM.",
])
def test_a_question_typed_or_answered_is_serving(said):
    assert kind_of([said, _BARE_OOM])[0] == "RUNTIME"


@pytest.mark.parametrize("said", [
    "Before I even type a question it already runs out of memory.",
    "It runs out of memory before it tries to answer.",
    "I typed the command and it ran out of memory.",
])
def test_no_question_yet_is_not_serving(said):
    assert kind_of([said, _BARE_OOM])[0] == "UNDETERMINED"


# --- the OOM killer's victim a compiler: kernels compiled just in time at start-up, host RAM in the warm-up (h452/12)

_VLLM_LOADED = ["INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.10.1",
                "INFO 05-01 10:00:05 [gpu_model_runner.py:1000] Model loading took 95.63 GiB and 595.6 seconds"]


@pytest.mark.parametrize("kill", [
    "Aug 01 18:01:30 dgx-spark kernel: Out of memory: Killed process 21394 (cicc) total-vm:10886376kB, "
    "anon-rss:7529332kB, file-rss:0kB, UID:1000",
    "[81234.567890] Out of memory: Killed process 4242 (ptxas) total-vm:3288512kB, anon-rss:2902112kB",
    "[ 9120.001122] Out of memory: Killed process 77120 (cc1plus) total-vm:4128800kB, anon-rss:3900012kB",
])
def test_a_compiler_the_oom_killer_chose_is_the_warm_up(kill):
    assert kind_of([*_VLLM_LOADED, "Aug 01 18:01:30 dgx-spark kernel: systemd invoked oom-killer: "
                    "gfp_mask=0x140dca, order=0, oom_score_adj=0", kill]) == ("WARMUP", "host-oom-kill")


@pytest.mark.parametrize("build", [
    ["$ pip install vllm --no-binary vllm", "Building wheels for collected packages: vllm"],
    ["$ MAX_JOBS=8 pip install flash-attn --no-build-isolation", "  Building wheel for flash-attn (setup.py) ... -"],
    ["$ cmake -B build -DGGML_CUDA=ON && cmake --build build --config Release -j 16",
     "[ 42%] Building CUDA object ggml/src/ggml-cuda/CMakeFiles/ggml-cuda.dir/fattn.cu.o"],
])
def test_a_compiler_killed_in_a_build_from_source_is_the_build(build):
    kill = "[ 9120.001122] Out of memory: Killed process 77120 (cc1plus) total-vm:4128800kB, anon-rss:3900012kB"
    assert kind_of([*build, kill]) == ("NOT_OOM", "kernel-build-failed")


def test_a_prebuilt_install_before_the_server_starts_is_no_build():
    kill = "Aug 01 18:01:30 dgx-spark kernel: Out of memory: Killed process 21394 (cicc) total-vm:10886376kB"
    lines = ["$ pip install vllm==0.10.1.1", "Successfully installed vllm-0.10.1.1", *_VLLM_LOADED, kill]
    assert kind_of(lines) == ("WARMUP", "host-oom-kill")


def test_a_compiler_killed_with_no_server_or_build_shown_is_not_placed():
    kill = "[ 9120.001122] Out of memory: Killed process 77120 (cc1plus) total-vm:4128800kB, anon-rss:3900012kB"
    assert kind_of([kill])[0] == "UNDETERMINED"


def test_the_server_itself_killed_is_not_read_as_a_compiler():
    kill = "[81234.567890] Out of memory: Killed process 4242 (python3) total-vm:93288512kB, anon-rss:82902112kB"
    assert kind_of([*_VLLM_LOADED, kill]) != ("WARMUP", "host-oom-kill")


# --- the report names, by its own message, the error that ended the run, and no line of the log shows it: that error,
# not memory (h449/12)

@pytest.mark.parametrize("said", [
    ["# vllm 崩溃问题排查", "", "vllm在处理请求时,导致了抛出**No valid structured output parameter found**异常,该异常未被 "
     "EngineCore 捕获导致引擎崩溃"],
    ["The engine crashed because it raised 'No valid structured output parameter found'."],
    ["The server crashed after it threw `ValueError: Invalid prompt template`."],
])
def test_an_error_the_report_names_by_its_message_is_that_error(said):
    assert kind_of([*said, *_VLLM_SERVING]) == ("NOT_OOM", "error-not-memory")


@pytest.mark.parametrize("said", [
    "The server crashed after it threw 'failed to allocate KV cache buffer'.",  # memory words: not another error
    "The engine crashed and raised an exception.",  # no message named
])
def test_an_error_named_without_a_message_or_of_memory_is_not_another_error(said):
    assert kind_of([said, *_VLLM_SERVING]) != ("NOT_OOM", "error-not-memory")


# --- the load and the serving in a Korean or Japanese report's words, as in a Chinese one's (h449/09)

@pytest.mark.parametrize("said, kind", [
    ("여러 개의 LLM 모델을 한 번에 로드하려고 할 때 CUDA out of memory 발생", "WEIGHTS"),
    ("推論中にOOMになります", "RUNTIME"),
    ("추론 중 CUDA out of memory 발생", "RUNTIME"),
    ("요청을 보내면 메모리 부족으로 죽습니다", "RUNTIME"),
])
def test_the_phase_in_korean_and_japanese_words(said, kind):
    assert kind_of([said, _BARE_OOM])[0] == kind


# --- a script's line that it moves the loaded model onto the device: the weights still coming in, not the KV cache
# (h451/07)

_SHARDS = ("Loading checkpoint shards: 100%|##########| 4/4 [00:00<00:00, 16.11it/s]")


@pytest.mark.parametrize("moving, oom", [
    ("INFO:app.llm:3 Moving model to mps...", "ERROR:app.llm: Failed to load model: MPS backend out of memory (MPS "
     "allocated: 20.08 GiB, other allocations: 384.00 KiB, max allowed: 20.13 GiB). Tried to allocate 112.00 MiB on "
     "private pool."),
    ("2025-01-01 10:00:00 INFO moving the model to cuda", _BARE_OOM),
    ("[loader] Moving model to the GPU", _BARE_OOM),
])
def test_moving_the_model_to_the_device_is_the_weights(moving, oom):
    lines = ["from transformers import AutoModelForCausalLM", _SHARDS, moving, oom]
    assert kind_of(lines)[0] == "WEIGHTS"


def test_shards_read_then_generate_is_not_the_weights():
    lines = ["from transformers import AutoModelForCausalLM", _SHARDS, "Traceback (most recent call last):",
             '  File "/usr/lib/python3/site-packages/transformers/generation/utils.py", line 2215, in generate',
             _BARE_OOM]
    assert kind_of(lines)[0] == "RUNTIME"


# --- TensorFlow's plugins registered twice (a notebook, a server importing it through a dependency): noise at absl's
# E level, no failure (h451/05)

@pytest.mark.parametrize("noise", [
    "E0000 00:00:1754600272.146783   10516 cuda_dnn.cc:8579] Unable to register cuDNN factory: Attempting to register "
    "factory for plugin cuDNN when one has already been registered",
    "2025-08-07 20:57:52.125111: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:467] Unable to register "
    "cuFFT factory: Attempting to register factory for plugin cuFFT when one has already been registered",
    "E0000 00:00:1754600272.153513   10516 cuda_blas.cc:1407] Unable to register cuBLAS factory: Attempting to register "
    "factory for plugin cuBLAS when one has already been registered",
])
def test_tensorflow_plugins_registered_twice_are_no_failure(noise):
    assert kind_of([noise, *_VLLM_SERVING])[0] == "NONE"


# --- a server shutting down, then its lifespan task cancelled: stopped, no failure (h451/05)

_CANCELLED_TB = ["ERROR:    Traceback (most recent call last):",
                 '  File "/usr/local/lib/python3.11/dist-packages/starlette/routing.py", line 701, in lifespan',
                 "    await receive()",
                 '  File "/usr/lib/python3.11/asyncio/queues.py", line 158, in get',
                 "    await getter",
                 "asyncio.exceptions.CancelledError"]


@pytest.mark.parametrize("shutdown", [
    ["INFO:     Shutting down"],
    ["INFO 08-07 21:00:28 [launcher.py:80] Shutting down FastAPI HTTP server.", "INFO:     Shutting down"],
])
def test_a_task_cancelled_after_the_server_shut_down_is_no_failure(shutdown):
    assert kind_of([*_VLLM_SERVING, *shutdown, *_CANCELLED_TB]) == ("NONE", "cancelled-at-shutdown")


def test_a_failure_before_the_shutdown_still_decides():
    died = "ERROR 08-07 21:00:27 [core.py:700] EngineCore encountered a fatal error: CUDA error: an illegal memory access"
    assert kind_of([*_VLLM_SERVING, died, "INFO:     Shutting down", *_CANCELLED_TB])[0] != "NONE"


# --- IPython's and Jupyter's tracebacks: the exception's class in the header, source context under every frame (five to
# eleven lines each), the exception's own line last: the frames that place it are read, however far above (h451/13)

def _ipython_traceback(outer: str, error: str, frames: int = 14) -> list[str]:
    """An IPython traceback: the header, a notebook cell, `outer` as the outermost library frame, then `frames` more
    with seven lines of source each, then `error`."""
    lines = ["-" * 75, error.split(":")[0] + "                          Traceback (most recent call last)",
             "Cell In[12], line 3", "      1 messages.append(tool_response)", "      2 inputs = tok(messages)",
             "----> 3 out = run(inputs)", "", "Cell In[10], line 15, in run(inputs)",
             *[f"     {9 + i} step_{i}()" for i in range(5)], "---> 15     return model.generate(**inputs)", "",
             "File /opt/venv/lib/python3.10/site-packages/torch/utils/_contextlib.py:116, in decorate_context(*args)",
             "    113 @functools.wraps(func)", "    114 def decorate_context(*args, **kwargs):",
             "    115     with ctx_factory():", "--> 116         return func(*args, **kwargs)", "", outer]
    lines += [f"   {2040 + i}     x = step_{i}(x)" for i in range(6)] + ["-> 2046     return self._inner(x)", ""]
    for n in range(frames):
        lines.append(f"File /opt/venv/lib/python3.10/site-packages/torch/nn/modules/module.py:{1500 + n}, in "
                     "Module._call_impl(self, *args)")
        lines += [f"   {1490 + n + i}     hook_{i}(args)" for i in range(6)] + [f"-> {1500 + n}     return forward_call(*args)", ""]
    return lines + [error]


_IPY_OOM = ("OutOfMemoryError: CUDA out of memory. Tried to allocate 2.68 GiB. GPU 0 has a total capacity of 15.89 GiB "
            "of which 1.79 GiB is free.")


@pytest.mark.parametrize("outer, kind", [
    ("File /opt/venv/lib/python3.10/site-packages/transformers/generation/utils.py:2048, in "
     "GenerationMixin.generate(self, inputs, generation_config)", "RUNTIME"),
    ("File /opt/venv/lib/python3.10/site-packages/transformers/modeling_utils.py:4225, in "
     "PreTrainedModel._load_pretrained_model(cls, model, state_dict)", "WEIGHTS"),
])
def test_an_ipython_traceback_is_read_for_its_outer_frames(outer, kind):
    lines = _ipython_traceback(outer, _IPY_OOM)
    assert len(lines) > 120  # (past the 80 lines kept before a failure, were the source context counted)
    assert kind_of(["from transformers import AutoModelForCausalLM", *lines])[0] == kind


def test_an_ipython_traceback_cut_before_its_last_line_keeps_the_header_s_class():
    lines = _ipython_traceback("File /opt/venv/lib/python3.10/site-packages/transformers/generation/utils.py:2048, in "
                               "GenerationMixin.generate(self)", _IPY_OOM, frames=2)[:-1]
    assert kind_of(["from transformers import AutoModelForCausalLM", *lines])[0] != "NONE"


# --- an exception Python ignored and went on from (sys.unraisablehook's "Exception ignored in: ..."): its traceback is
# no failure (h451/03)

_LLAMA_SERVED = ["llama_new_context_with_model: n_ctx      = 4096",
                 "llama_perf_context_print:       total time =    2953.52 ms /    67 tokens"]


@pytest.mark.parametrize("ignored, where", [
    ("Exception ignored on calling ctypes callback function: <function llama_log_callback at 0x10f10cb80>",
     '  File "/env/lib/python3.11/site-packages/llama_cpp/_logger.py", line 39, in llama_log_callback'),
    ("Exception ignored in: <function Llama.__del__ at 0x7f1c2a3b8e50>",
     '  File "/env/lib/python3.11/site-packages/llama_cpp/llama.py", line 2201, in __del__'),
    ("Exception ignored in atexit callback: <function shutdown at 0x7f0a1c2d3e40>",
     '  File "/usr/lib/python3.12/logging/__init__.py", line 2245, in shutdown'),
])
def test_an_exception_python_ignored_is_no_failure(ignored, where):
    lines = [*_LLAMA_SERVED, ignored, "Traceback (most recent call last):", where, "    h.flush()",
             "TypeError: 'NoneType' object is not callable"]
    assert kind_of(lines)[0] == "NONE"


def test_a_failure_after_an_ignored_exception_still_decides():
    lines = [*_LLAMA_SERVED, "Exception ignored in: <function Llama.__del__ at 0x7f1c2a3b8e50>",
             "Traceback (most recent call last):",
             '  File "/env/lib/python3.11/site-packages/llama_cpp/llama.py", line 2201, in __del__',
             "TypeError: 'NoneType' object is not callable",
             "Traceback (most recent call last):", '  File "/app/run.py", line 4, in <module>',
             "ValueError: Requested tokens (5000) exceed context window of 4096"]
    assert kind_of(lines)[0] == "NOT_OOM"


# --- a GPU Ollama's discovery skipped, beside another it lists for inference: that one computes, no failure (h455/01)

_SKIPPED = ('time=2025-03-17T09:49:31.224+08:00 level=INFO source=amd_windows.go:127 msg="unsupported Radeon iGPU '
            'detected skipping" id=0 total="12.2 GiB"')
_OLLAMA_LISTENING = ('time=2025-03-17T09:49:28.893+08:00 level=INFO source=routes.go:1297 msg="Listening on '
                     '127.0.0.1:11434 (version 0.6.1)"')


@pytest.mark.parametrize("compute", [
    'time=2025-03-17T09:49:31.227+08:00 level=INFO source=types.go:130 msg="inference compute" id=GPU-e8624b08 '
    'library=cuda variant=v12 compute=8.9 driver=12.7 name="NVIDIA GeForce RTX 4060 Laptop GPU" total="8.0 GiB" '
    'available="6.9 GiB"',
    'time=2025-03-17T09:49:31.227+08:00 level=INFO source=types.go:130 msg="inference compute" id=0 library=rocm '
    'variant="" compute=gfx1100 driver=6.2 name="Radeon RX 7900 XTX" total="24.0 GiB" available="23.8 GiB"',
])
def test_a_gpu_skipped_beside_one_that_computes_is_no_failure(compute):
    assert kind_of([_OLLAMA_LISTENING, _SKIPPED, compute])[0] == "NONE"


def test_a_gpu_skipped_with_none_left_is_still_read():
    cpu = ('time=2025-03-17T09:49:31.227+08:00 level=INFO source=types.go:130 msg="inference compute" id=0 library=cpu '
           'variant="" compute="" driver=0.0 name="" total="31.3 GiB" available="20.1 GiB"')
    assert kind_of([_OLLAMA_LISTENING, _SKIPPED, cpu]) == ("NOT_OOM", "gpu-unsupported")


# --- a step named in markdown emphasis ("during the **Graph Capture / Compilation** phase"): still the step (h455/13)

@pytest.mark.parametrize("said", [
    "The server loaded the shards but failed during the **Graph Capture / Compilation** phase.",
    "It ran out of memory while the *graph capture* was running.",
])
def test_a_step_in_markdown_emphasis_is_the_step(said):
    assert kind_of([said, _BARE_OOM])[0] == "WARMUP"


def test_a_step_in_emphasis_denied_is_not_the_step():
    said = "It does not fail during the **Graph Capture** phase but later, when I send a request."
    assert kind_of([said, _BARE_OOM])[0] != "WARMUP"


@pytest.mark.parametrize("said", [
    "I raised `max_num_batched_tokens` to 16384 (was 8192) and since then the server crashes after a few minutes.",
    'Once I raised "--max-model-len" from 8192 to 32768 the container keeps crashing.',
    'I already raised "vllm-project/vllm#18211" about this last month, and the server still crashes every night.',
    'We tried throwing "bigger instances" at it but the container still crashes after an hour.',
])
def test_a_setting_an_issue_or_a_remedy_raised_is_no_error_named(said):
    assert kind_of([said, *_VLLM_SERVING]) != ("NOT_OOM", "error-not-memory")


def test_a_condition_closed_by_a_dash_does_not_suppose_what_follows():
    said = "Not sure if related - the server hangs after the first request."
    assert kind_of([said, *_VLLM_SERVING]) == ("UNDETERMINED", "hang-no-error")


def test_transformers_read_its_shards_then_a_bare_oom_is_not_the_kv_cache():
    lines = ["from transformers import AutoModelForCausalLM", _SHARDS, _BARE_OOM]
    assert kind_of(lines) == ("UNDETERMINED", "oom-phase-not-shown")


@pytest.mark.parametrize("said, kind", [
    ("It runs out of memory while it's answering.", "RUNTIME"),
    ("As soon as I start chatting it dies with CUDA OOM.", "RUNTIME"),
    ("リクエストを投げるとOOMで落ちます", "RUNTIME"),
    ("推論を実行するとメモリ不足になります", "RUNTIME"),
    ("질문을 입력하면 메모리 부족으로 죽습니다", "RUNTIME"),
    ("대화를 시작하면 OOM이 납니다", "RUNTIME"),
    ("一发请求就崩溃，显存不足", "RUNTIME"),
    ("推理一会儿就挂了，显存不够", "RUNTIME"),
])
def test_more_words_of_serving_and_of_the_load(said, kind):
    assert kind_of([said, _BARE_OOM])[0] == kind


@pytest.mark.parametrize("said", [
    "Before I start chatting it already runs out of memory.",
    "The graphs are captured while it's loading, then it runs out of memory.",
])
def test_no_chat_yet_is_not_serving(said):
    assert kind_of([said, _BARE_OOM])[0] != "RUNTIME"


# --- a pool the engine counts below one full-length request, after which it started and served: its own check at
# start passed (sliding-window layers hold only their window), no failure; told as a note (h454/01)

_CONCURRENCY = ["INFO 07-09 14:34:00 [api_server.py:1034] vLLM API server version 0.8.4",
                "INFO 07-09 14:34:15 [core.py:61] Initializing a V1 LLM engine (v0.8.4) with config: "
                "model='google/gemma-3-12b-it', max_seq_len=131072",
                "INFO 07-09 14:35:11 [kv_cache_utils.py:634] GPU KV cache size: 69,920 tokens",
                "INFO 07-09 14:35:11 [kv_cache_utils.py:637] Maximum concurrency for 131,072 tokens per request: 0.53x"]


def test_a_pool_below_one_request_then_serving_is_no_failure():
    lines = [*_CONCURRENCY, "INFO:     Application startup complete.",
             "INFO 07-09 14:36:49 [loggers.py:87] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
             "throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%"]
    assert kind_of(lines)[0] == "NONE"


def test_a_pool_below_one_request_where_the_log_stops_is_the_kv_cache():
    assert kind_of(_CONCURRENCY) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")


# --- colour codes a paste left without their escape, or with it written out: read as the lines without them

@pytest.mark.parametrize("paint, unpaint", [
    ("[1;36m(VllmWorker rank=0 pid=12409)[0;0m ", "(VllmWorker rank=0 pid=12409) "),
    ("#033[1;36m(VllmWorker pid=96)#033[0;0m ", "(VllmWorker pid=96) "),
    ("^[[36m(EngineCore_DP0 pid=7)^[[0m ", "(EngineCore_DP0 pid=7) "),
])
def test_colour_codes_without_their_escape_are_left_out(paint, unpaint):
    from vramdoctor.logs.reader import unpaint as strip
    body = ["INFO 07-09 14:34:31 [gpu_model_runner.py:1276] Starting to load model Qwen/Qwen2.5-7B-Instruct...",
            "ERROR 07-09 14:34:40 [core.py:400] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.66 GiB."]
    assert strip(paint + body[0]) == unpaint + body[0]
    assert kind_of([paint + b for b in body]) == kind_of([unpaint + b for b in body]) == ("WEIGHTS", "weights-alloc-failed")


# --- IPython's frames with spaces in their path, and its "(...)" where it skips source lines: still frames, no
# excerpt mark (h453/03)

def test_an_ipython_traceback_with_spaces_in_its_paths_and_skipped_source_is_read():
    site = "File ~/CS271 Topics in ML/HW2/.venv/lib/python3.9/site-packages/"
    lines = ["from transformers import AutoModelForCausalLM", _SHARDS, "-" * 75,
             "RuntimeError                              Traceback (most recent call last)",
             "Cell In[18], line 1", "----> 1 sequences = pipeline(prompt, max_length=400)", "",
             site + "transformers/generation/utils.py:2465, in GenerationMixin.generate(self, inputs)",
             "   2457     )", "   (...)", "-> 2465     result = self._sample(input_ids)", ""]
    for n in range(12):
        lines += [site + f"torch/nn/modules/module.py:{1751 + n}, in Module._wrapped_call_impl(self, *args)",
                  f"   {1749 + n}     return self._compiled_call_impl(*args)", "   (...)",
                  f"-> {1751 + n}     return self._call_impl(*args)", ""]
    lines.append("RuntimeError: MPS backend out of memory (MPS allocated: 18.13 GB, other allocations: 3.73 MB, max "
                 "allowed: 18.13 GB). Tried to allocate 946.00 KB on private pool.")
    assert kind_of(lines)[0] == "RUNTIME"


# --- transformers' quantizer refusing a device map that spills onto the CPU or the disk: the weights do not fit the GPU
# (h453/05)

@pytest.mark.parametrize("where", [
    '  File "/usr/local/lib/python3.10/dist-packages/transformers/quantizers/quantizer_bnb_4bit.py", line 86, in '
    'validate_environment',
    "File /opt/conda/lib/python3.10/site-packages/transformers/quantizers/quantizer_bnb_8bit.py:90, in "
    "Bnb8BitHfQuantizer.validate_environment(self, *args, **kwargs)",
])
def test_modules_dispatched_to_the_cpu_by_the_quantizer_are_the_weights(where):
    lines = ["model = AutoModelForCausalLM.from_pretrained('meta-llama/Llama-2-13b-hf', load_in_4bit=True)",
             "Traceback (most recent call last):", where,
             "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit "
             "the quantized model. If you want to dispatch the model on the CPU or the disk while keeping these modules "
             "in 32-bit, you need to set `load_in_8bit_fp32_cpu_offload=True` and pass a custom `device_map`."]
    assert kind_of(lines) == ("WEIGHTS", "weights-exceed-gpu-memory")


# --- bitsandbytes' frames: its weights' load to the GPU is the weights, its layers' forward a model's pass (h451/04,
# where a notebook's whole traceback made the forward the innermost frame)

def test_a_4bit_layers_forward_under_generate_is_not_the_weights():
    lines = ["from transformers import AutoModelForCausalLM", "Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.10/dist-packages/transformers/generation/utils.py", line 2465, in generate',
             "    result = self._sample(",
             '  File "/usr/local/lib/python3.10/dist-packages/bitsandbytes/nn/modules.py", line 496, in forward',
             "    out = bnb.matmul_4bit(x, self.weight.t(), bias=bias, quant_state=self.weight.quant_state)",
             _BARE_OOM]
    assert kind_of(lines)[0] == "RUNTIME"


def test_bitsandbytes_moving_a_weight_to_the_gpu_is_the_weights():
    lines = ["from transformers import AutoModelForCausalLM", "Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py", line 3850, in '
             'from_pretrained', "    model = cls(config, *model_args, **model_kwargs)",
             '  File "/usr/local/lib/python3.10/dist-packages/bitsandbytes/nn/modules.py", line 324, in cuda',
             "    return self._quantize(device)", _BARE_OOM]
    assert kind_of(lines)[0] == "WEIGHTS"
