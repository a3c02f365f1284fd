"""`vramdoctor logs` on the kinds of fault held-out rounds 362-368 (issue 6, stop 41, sources no earlier round used)
found, each with logs of our own in other engines, versions and wordings than the example. The engines' lines follow
their sources (named in `vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import kind_of

BARE_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 316.00 MiB. GPU 0 has a total capacity of "
            "23.42 GiB of which 416.38 MiB is free. Including non-PyTorch memory, this process has 23.13 GiB memory in use.")
OOM_KINDS = ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME", "UNDETERMINED")


# --- an out-of-memory named in one sentence of a report's longer line, about another setting ("The same model also
# causes an OOM error when trying to run on a single GPU"), over the log's own error that states a cause that is not
# memory: the log's error decides (h363/02, a confidently wrong WEIGHTS) -------------------------------------------------

@pytest.mark.parametrize("words, lines", [
    ("When trying to run the MoE model with tensor parallelism (--tp-size 2), the server fails to load. It throws a "
     "RuntimeError: start (8) + length (8) exceeds dimension size (8). on the second GPU (TP1). The same model also "
     "causes an OOM error when trying to run on a single GPU, so tp=2 is the only viable option.",
     ["[2026-01-25 01:19:07 TP1] Load weight begin. avail mem=78.77 GB",
      "[2026-01-25 01:19:08 TP1] Scheduler hit an exception: Traceback (most recent call last):",
      '  File "/sglang/srt/layers/moe/fused_moe_triton/layer.py", line 501, in _load_w2',
      "    loaded_weight = loaded_weight.narrow(",
      "RuntimeError: start (8) + length (8) exceeds dimension size (8)."]),
    ("Loading works with --tensor-parallel-size 4, but with --tensor-parallel-size 8 it fails with the error below "
     "(ValueError). On a single GPU the model gives an out of memory error at load, as expected with 70B weights.",
     ["INFO 05-02 10:00:00 [config.py:1400] Defaulting to use mp for distributed inference",
      "Traceback (most recent call last):",
      '  File "/vllm/config.py", line 1410, in verify_with_parallel_config',
      "    raise ValueError(",
      "ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8)."]),
    ("With a larger context the runner OOMs on my 3060, which is expected for this model size. With the default "
     "context it fails at start with the error below (llama_model_load) instead.",
     ["llama_model_load: error loading model: error loading model architecture: unknown model architecture: "
      "'qwen3next'"]),
])
def test_an_oom_told_of_another_setting_yields_to_the_logs_own_error(words, lines):
    kind, code = kind_of([words, "", *lines])
    assert kind == "NOT_OOM", (kind, code)


# --- the KV cache (llama.cpp's context) that could not be allocated, in a report's words, over the same words' "a model
# which does not fully fit into the GPU memory" (partly offloaded: it loaded) (h366/15, a confidently wrong WEIGHTS) ---

@pytest.mark.parametrize("lines", [
    ["I have further investigated the issue and the library crashes even when using only 1 model which does not fully "
     "fit into the GPU memory. The problem is the additional GPU memory allocation because when the GPU memory is full "
     "it crashes when it tries to allocate the context when doing the first inference..."],
    ["With two models kept loaded, the second one cannot allocate memory for the KV cache and the process dies."],
    ["The model loads on the GPU (partly offloaded), then the app fails when it tries to allocate its context."],
])
def test_a_kv_cache_that_could_not_be_allocated_told_in_words(lines):
    assert kind_of(lines)[0] == "KV_CAPACITY", kind_of(lines)


def test_an_engines_own_assertion_of_kv_blocks_is_still_the_pool_run_out():
    assert kind_of(["AssertionError: Can not alloc mamba cache"]) == ("UNDETERMINED", "kv-blocks-exhausted")


# --- Intel Gaudi's bridge stating its own fatal error ("FATAL ERROR :: MODULE:PT_LAZY Error, ...") is the cause, not a
# wrapper; its older device-memory words ("MODULE:DEVMEM Allocation failed") are memory (h362/10) ----------------------

@pytest.mark.parametrize("lines", [
    ["INFO 02-04 12:35:23 hpu_model_runner.py:794] Loading model weights took in total 15.05 GiB of device memory "
     "(15.05 GiB/30.15 GiB used) and 1.134 GiB of host memory (54.29 GiB/748 GiB used)",
     "ERROR 02-04 12:35:23 engine.py:387] [Rank:0] FATAL ERROR :: MODULE:PT_LAZY Error, ValidateSyncInputTensors "
     "tensor_data is empty. Tensorid:3375 QueueStatus:ThreadPool m_tasks size: 0 irValue:id_8791_hpu__input",
     "ERROR 02-04 12:35:23 engine.py:387] Traceback (most recent call last):",
     'ERROR 02-04 12:35:23 engine.py:387]   File "/vllm-fork/vllm/engine/multiprocessing/engine.py", line 378, in '
     "run_mp_engine",
     "[... rest of traceback cut ...]"],
    ['  File "train.py", line 40, in step', "    out = model(x)",
     "RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_BRIDGE Exception in Lowering thread...",
     "[Rank:0] FATAL ERROR :: MODULE:PT_EAGER HabanaLaunchOpPT Run returned exception....",
     "synNodeCreateWithId failed for node: fused_kernel with synStatus 26 [Generic failure]."],
])
def test_gaudis_own_fatal_error_is_its_cause(lines):
    assert kind_of(lines)[0] == "NOT_OOM", kind_of(lines)


def test_gaudis_older_device_memory_words_are_memory():
    kind, _ = kind_of(["RuntimeError: FATAL ERROR :: MODULE:BRIDGE Exception in Launch thread...",
                       "FATAL ERROR :: MODULE:DEVMEM Allocation failed for size::40960000 (39.0625)MB"])
    assert kind in OOM_KINDS, kind


# --- Ray's exception that names its cause's class ("RayTaskError(KeyError)"), the cause's own line cut from the log:
# a code error, not memory; the cause's own line, where the log has it, decides (h368/04) ------------------------------

_RAY = ("(EngineCore pid=89247) ERROR 04-01 11:25:40 [core.py:1099] ray.exceptions.{cls}: "
        "ray::RayWorkerWrapper.execute_method() (pid=165186, ip=172.20.4.201, actor_id=db1ac0b96fcffa0902ee4bcc0200)")


@pytest.mark.parametrize("cls", ["RayTaskError(KeyError)", "RayTaskError(AttributeError)", "RayActorError(TypeError)"])
def test_rays_named_cause_class_is_a_code_error(cls):
    lines = ["(EngineCore pid=89247) (RayWorkerWrapper pid=165186) INFO 04-01 11:25:18 [default_loader.py:384] Loading "
             "weights took 151.79 seconds", _RAY.format(cls=cls),
             '(EngineCore pid=89247) ERROR 04-01 11:25:40 [core.py:1099]   File "/vllm/v1/executor/ray_utils.py", line '
             "65, in execute_method", "[... cut ...]"]
    assert kind_of(lines) == ("NOT_OOM", "code-error"), kind_of(lines)


def test_rays_memory_cause_class_is_no_code_error():
    lines = [_RAY.format(cls="RayTaskError(OutOfMemoryError)"), BARE_OOM]
    assert kind_of(lines)[0] in OOM_KINDS, kind_of(lines)


# --- a request refused as longer than the context, as the client received it (an OpenAI client's "Error code: 400 -
# ...", the JSON error body llama-server sends back): the user's request failed, not memory; the server's own log
# line of a refusal, the server going on, is that failure too (stop 45: six held-out labels, h381-h428, read it so;
# h364/09, h367/05, h367/11 had read it as no failure) ---------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["Error code: 400 - This model's maximum context length is 4096 tokens.",
     "However, you requested 1024 output tokens and your prompt contains at",
     "least 3073 input tokens, for a total of at least 4097 tokens."],
    ["unexpected status 400 Bad Request: {", '"error":{', '"code":400,',
     '"message":"the request exceeds the available context size, try increasing it",',
     '"type":"exceed_context_size_error",', '"n_prompt_tokens":23449,"n_ctx":16384', "}}"],
    ["Sometimes the reply is a 500:",
     '{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}'],
])
def test_a_refusal_the_client_received_is_a_failure_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "requests-refused-too-long"), kind_of(lines)


def test_a_refusal_in_the_servers_own_log_is_a_failure_not_memory():
    lines = ["srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
             "srv  send_error: task id = 12, error: the request exceeds the available context size, try increasing it",
             "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 400",
             "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]
    assert kind_of(lines) == ("NOT_OOM", "requests-refused-too-long"), kind_of(lines)


# --- Ollama refusing a request for what the model cannot do ("this model does not support embeddings", "... does not
# support tools"): not memory (h365/03) -----------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    'time=2025-05-23T04:37:31.431Z level=INFO source=server.go:939 msg="llm embedding error: this model does not support '
    'embeddings"',
    'time=2025-06-01T10:00:00.000Z level=ERROR source=routes.go:120 msg="\\"gemma3:4b\\" does not support tools"',
    'Error: "llama3.2:latest" does not support thinking',
])
def test_ollama_refusing_what_the_model_cannot_do_is_not_memory(line):
    lines = ['time=2025-05-23T04:37:31.411Z level=INFO source=server.go:631 msg="llama runner started in 4.52 seconds"',
             line, '[GIN] 2025/05/23 - 04:37:31 | 500 |  4.626549125s |       127.0.0.1 | POST     "/api/embed"']
    assert kind_of(lines) == ("NOT_OOM", "capability-unsupported"), kind_of(lines)


def test_ollamas_warning_that_it_goes_on_without_the_option_is_no_failure():
    lines = ['time=2026-01-01T10:00:00.000Z level=INFO source=server.go:594 msg="llama runner started in 2.51 seconds"',
             'time=2026-01-01T10:00:05.000Z level=WARN source=routes.go:301 msg="model does not support thinking, ignoring '
             'think option"',
             "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2430.00 MiB on device 0: cudaMalloc failed: out of "
             "memory", "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 2548039680"]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


# --- a load the program announces with an ellipsis ("Loading pygmalion-6b...", "Loading model..."), then the kill or
# the out-of-memory on the next lines: the load under way (h365/06) --------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["Loading pygmalion-6b...", "Killed"],
    ["$ python server.py --load-in-8bit", "Loading pygmalion-6b...",
     "CUDA SETUP: Detected CUDA version 117",
     "CUDA SETUP: Loading binary /envs/textgen/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cuda117.so...",
     "Killed"],
    ["Loading model...", "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB"],
    ["2024-01-01 12:00:00 INFO:Loading TheBloke_Llama-2-13B-GPTQ...", "Killed"],
])
def test_an_announced_load_then_the_failure_is_the_weights(lines):
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


def test_an_announced_tokenizer_load_is_no_weights():
    assert kind_of(["Loading tokenizer...", "Killed"])[0] == "UNDETERMINED", kind_of(["Loading tokenizer...", "Killed"])


# --- words of a request under way in more forms: the context length reached ("当token达到6k时", "once the context
# reaches 8000 tokens"), inference of one kind of input ("during vision inference"), a prompt the program prints in its
# chat template as the generation begins (h366/08, a confidently wrong WEIGHTS; h365/01, h365/07) ----------------------

@pytest.mark.parametrize("lines", [
    ["配置：4090 ，24G显存", "加载方式：",
     'self.model = AutoModelForCausalLM.from_pretrained(model_path,torch_dtype="auto",device_map="auto").eval()',
     "当token达到6k时，出现内存溢出", BARE_OOM],
    ["It works until the context reaches 8000 tokens, then:", BARE_OOM],
    ["2. Crash occurs during vision inference",
     "Error: 500 Internal Server Error: mlx runner failed: panic: mlx: [metal::malloc] Attempting to allocate "
     "133872076800 bytes which is greater than the maximum allowed buffer size of 30150672384 bytes."],
    ["==========", "Prompt: <|im_start|>system", "You are a helpful assistant.<|im_end|>", "<|im_start|>assistant",
     "libc++abi: terminating due to uncaught exception of type std::runtime_error: Attempting to allocate 135383101952 "
     "bytes which is greater than the maximum allowed buffer size of 77309411328 bytes."],
])
def test_more_words_of_a_request_under_way(lines):
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


# --- an out-of-memory with a relative clause of surprise ("..., which theoretically shouldn't happen") is stated; the
# clause does not make it a supposition (h363/10) ---------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    'We are using 16GB V100 GPUs with TP=4, but we are encountering a "CUDA out of memory" error, which theoretically '
    "shouldn't happen.",
    "I get CUDA out of memory, which should not happen with a 3B model.",
])
def test_an_oom_with_a_clause_of_surprise_is_stated(line):
    assert kind_of([line])[0] == "UNDETERMINED", kind_of([line])


def test_an_oom_supposed_is_still_no_failure():
    assert kind_of(["With a 3B model it should not run out of memory on 16GB."])[0] == "NONE"


# --- the fix that worked names the ledger: a start-up failure that went away with CUDA graphs off (--enforce-eager,
# --disable-cuda-graph) or a lower pool budget (--gpu-memory-utilization, --mem-fraction-static) needed memory outside
# the KV pool: the warm-up's (h362/01, h368/08) ---------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["I encountered a RESOURCE_EXHAUSTED error when starting the inference server:",
     "RESOURCE_EXHAUSTED: Error loading program 'jit__multi_slice': Attempting to reserve 6.14G at the bottom of "
     "memory. That was not possible.",
     "I found that reducing the gpu-memory-utilization value from 0.93 to 0.83 allows the server to start as expected."],
    ["vllm serve nvidia/Nemotron-30B-NVFP4 --max-model-len 32768 --gpu-memory-utilization 0.92", "Boot:", BARE_OOM,
     "Workaround: --enforce-eager, CUDA graphs off. Now it boots."],
    ["python -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 2", BARE_OOM,
     "Lowering --mem-fraction-static to 0.8 fixed it."],
])
def test_a_start_up_fixed_by_memory_outside_the_pool_is_the_warm_up(lines):
    assert kind_of(lines)[0] == "WARMUP", kind_of(lines)


def test_a_serving_failure_fixed_by_eager_mode_stays_serving():
    lines = ["It OOMs while serving requests from two clients.", BARE_OOM, "With --enforce-eager it works."]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


# --- a script's file named after a request handler ("example_chat_completion.py", the reference Llama's example) is no
# request under way; a model-parallel layer allocating its weights as it is built (fairscale's
# _initialize_affine_weight) is the weights (h366/10, a confidently wrong RUNTIME) --------------------------------------

_REF_OOM = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 3 has a total capacty of "
            "15.77 GiB of which 289.38 MiB is free.")


def test_the_reference_llamas_weights_built_in_parallel_layers_are_the_weights():
    lines = ["> initializing model parallel with size 8", "Traceback (most recent call last):",
             '  File "/mnt/llama/example_chat_completion.py", line 35, in main', "    generator = Llama.build(",
             '  File "/mnt/llama/llama/generation.py", line 119, in build', "    model = Transformer(model_args)",
             '  File "/usr/local/lib/python3.10/dist-packages/fairscale/nn/model_parallel/layers.py", line 68, in '
             "_initialize_affine_weight", "    master_weight = torch.empty(", _REF_OOM]
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


def test_a_script_named_after_a_handler_is_no_request():
    lines = ["Traceback (most recent call last):", '  File "/work/example_chat_completion.py", line 73, in main',
             "    main()", _REF_OOM]
    assert kind_of(lines)[0] == "UNDETERMINED", kind_of(lines)


def test_the_chat_completion_handler_is_still_a_request():
    lines = ["Traceback (most recent call last):",
             '  File "/venv/lib/python3.11/site-packages/llama_cpp/llama.py", line 1990, in create_chat_completion',
             "    return handler(", _REF_OOM]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)


# --- Meta's reference Llama code (engines/llama_reference.py): its KV cache allocated whole as the attention layers are
# built (`self.cache_k = torch.zeros(...)`), its "Loaded in X seconds" before the example generates -----------------

_REF_HEAD = ["> initializing model parallel with size 1", "> initializing ddp with size 1",
             "> initializing pipeline with size 1"]


def test_the_reference_llamas_kv_cache_built_whole_is_the_kv_cache():
    lines = [*_REF_HEAD, "Traceback (most recent call last):",
             '  File "/work/llama/example_text_completion.py", line 20, in main', "    generator = Llama.build(",
             '  File "/work/llama/llama/model.py", line 160, in __init__',
             "    self.cache_k = torch.zeros(", _REF_OOM]
    assert kind_of(lines)[0] == "KV_CAPACITY", kind_of(lines)


def test_the_reference_llama_generating_after_it_loaded_is_serving():
    lines = [*_REF_HEAD, "Loaded in 7.07 seconds", "Traceback (most recent call last):",
             '  File "/work/codellama/example_instructions.py", line 68, in main',
             "    results = generator.chat_completion(", _REF_OOM]
    assert kind_of(lines)[0] == "RUNTIME", kind_of(lines)
