"""Kinds of fault found on held-out rounds 421-428 (logs vramdoctor had not seen), each in several wordings of our own,
with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, kind_of, run_of

_VLLM_UP = ["INFO 10-23 18:20:00 [api_server.py:1000] vLLM API server version 0.11.0",
            "INFO:     Application startup complete."]

# --- a hang with no error line: why it stopped cannot be told, so UNDETERMINED, advised to find where it waits
# --- (h422/07, h422/11, h427/15, h377/03, h383/03 all labelled so; it was NOT_OOM)


@pytest.mark.parametrize("lines", [
    ["All five nodes get stuck after NCCL init, nothing more is printed.",
     "[2025-06-01 10:00:00 TP0] Init torch distributed begin."],
    ["The server freezes silently at start-up; no error logged.", _VLLM_UP[0]],
    ["Prefill server hangs after 'sglang is using nccl==2.21.5' on TP0 only.",
     "[2025-06-01 10:00:00 TP0] Init torch distributed begin."],
])
def test_a_hang_with_no_error_is_undetermined_and_advised_to_find_where_it_waits(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "hang-no-error"), (run.kind, run.code)
    assert run.advice and run.advice[0]["change"] == "find where it waits", run.advice


# --- "an infinite loop" the user runs the program in is no hang; one the program falls into is (h423/11)

@pytest.mark.parametrize("text, hang", [
    ("Then run the q4_0 model in an infinite loop with `yes | ./main -m m.gguf -i`.", False),
    ("I call the endpoint in an infinite loop to stress it.", False),
    ("Seems like it falls into an infinite loop once the batch is full.", True),
    ("The scheduler gets into an infinite loop after the first request.", True),
])
def test_an_infinite_loop_is_a_hang_only_where_the_program_falls_into_it(text, hang):
    run = run_of(diag("\n".join([text, *_VLLM_UP[:1]])))
    assert (run.code == "hang-no-error") == hang, (run.kind, run.code)


# --- growth told in more wordings: a rate per second, the rise before its noun, memory filled over a day, and a
# --- denial in another clause of the same sentence (h423/11, h425/08, h425/12)

@pytest.mark.parametrize("text", [
    "I use top to monitor it. The memory is increasing rapidly by round 2MB/second and there is no sign of stopping.",
    "RSS keeps growing at about 5 MB/s while it idles between prompts.",
    "Some issue causing the KV cache to be not freed and I'm getting steadily increasing memory usage and eventually OOM.",
    "We see ever-growing RSS on the server over the week.",
    "It takes 20958MiB / 81920MiB when healthy, and as it takes requests it fills up the GPU memory after a day.",
    "VRAM fills up after a few hours of serving.",
])
def test_growth_told_in_more_wordings_is_a_leak(text):
    assert kind_of([text]) == ("LEAK", "memory-growth-stated")


@pytest.mark.parametrize("text", [
    # an expectation's heading is no denial
    "# Expected Behavior\n\nNo memory leak while running the example.\n\n"
    "The memory is increasing rapidly by round 2MB/second and there is no sign of stopping.",
])
def test_an_expectation_of_no_leak_does_not_deny_the_growth_told(text):
    assert kind_of(text.split("\n")) == ("LEAK", "memory-growth-stated")


@pytest.mark.parametrize("text", [
    "We checked: there is no memory leak, and the memory is increasing by 2MB/second only while it loads.",
    "I don't think memory is steadily increasing here.",
    "Memory fills up quickly while loading the model.",
])
def test_growth_denied_or_without_a_span_is_no_leak(text):
    assert kind_of([text])[0] != "LEAK", kind_of([text])


# --- vLLM V1's front end finding its engine core process gone (core_client.py): a failure whose cause is not shown
# --- (h421/02)

@pytest.mark.parametrize("lines, cands", [
    (["ERROR 10-23 18:21:12 [core_client.py:597] Engine core proc EngineCore_DP0 died unexpectedly, shutting down "
      "client."], None),
    ([*_VLLM_UP, "(APIServer pid=1) ERROR 10-23 18:21:12 [core_client.py:564] Engine core proc EngineCore_0 died "
      "unexpectedly, shutting down client."], ["RUNTIME"]),
])
def test_an_engine_core_that_died_unexpectedly_is_a_failure_whose_cause_is_not_shown(lines, cands):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "failure-cause-not-shown"), (run.kind, run.code)
    if cands:
        assert run.candidates == cands, run.candidates


# --- a build with no kernels for this GPU, in PyTorch's and SYCL's words (h421/04, h423/13)

@pytest.mark.parametrize("line", [
    "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
    "RuntimeError: NVIDIA B200 with CUDA capability sm_100 is not compatible with the current PyTorch installation.",
    "No kernel named _ZTSZZL17rms_norm_f32_syclPKfPfiiiilllfPN4sycl3_V15queueEiENKU was found",
])
def test_no_kernels_for_this_gpu_in_more_words(line):
    assert kind_of([line]) == ("NOT_OOM", "cuda-no-kernel-image")


# --- llama.cpp's own check of a batch before it runs (llama-batch.cpp): the program's input, not memory (h423/14)

@pytest.mark.parametrize("lines", [
    ["init: the tokens of sequence 3 in the input batch have inconsistent sequence positions:",
     " - the last position stored in the memory module of the context (i.e. the KV cache) for sequence 3 is X = 13974"],
    ["init: invalid token[0] = 151700", "decode: failed to initialize batch",
     "llama_decode: failed to decode, ret = -1"],
    ["init: invalid seq_id[0][0] = 5 > 4", "decode: failed to initialize batch"],
])
def test_a_batch_the_context_refuses_is_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "batch-invalid")


def test_a_batch_that_finds_no_kv_slot_is_still_the_cache_full():
    lines = ["llama_decode: failed to decode, ret = 1"]
    assert kind_of(lines)[0] != "NOT_OOM"


# --- more command lines a program refuses; a launcher whose server's output ended before it was ready (h410/07, h427/02)

@pytest.mark.parametrize("lines", [
    ["flag provided but not defined: -enable-runtime-sidecar", "Usage of /manager:"],
    ["flag provided but not defined: -kv-cache-size"],
])
def test_gos_flag_package_refusing_a_flag_is_a_bad_argument(lines):
    assert kind_of(lines) == ("NOT_OOM", "bad-argument")


@pytest.mark.parametrize("line", [
    "Stdout stream ended before readiness message detected.",
    "RuntimeError: vLLM server process exited before it became ready",
])
def test_a_server_gone_before_it_was_ready_is_a_failure_whose_cause_is_not_shown(line):
    lines = ["vLLM STDOUT: INFO 06-03 03:57:22 [__init__.py:243] Automatically detected platform cuda.", line]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


# --- an engine's check that what it allocated stays under what the device has: memory, not a bug (h426/05)

@pytest.mark.parametrize("line", [
    "GGML_ASSERT: llama.cpp:3107: vram_allocated_bytes < vram_capacity",
    "main: llama.cpp:3107: void llm_load_gpu_split(): Assertion `vram_allocated_bytes < vram_capacity' failed.",
    "Check failed: used_bytes <= budget_bytes",
    "llama.cpp:3107: vram_allocated_bytes < vram_capacity",
])
def test_a_check_of_allocated_against_capacity_is_memory(line):
    # (memory certain, its step not shown: not "the cause is not shown", nor a bug)
    assert kind_of([line]) == ("UNDETERMINED", "oom-phase-not-shown")


def test_a_check_of_other_sizes_stays_an_assertion():
    assert kind_of(["llama-sampler.cpp:2686: void f(): Assertion `count > 0' failed."])[0] == "NOT_OOM"


# --- ggml-sycl's device allocation that failed (h423/15)

def test_sycls_allocation_that_failed_is_memory_and_its_step_decides():
    line = "ggml_backend_sycl_buffer_type_alloc_buffer: can't allocate 12745011200 Bytes of memory on device"
    assert kind_of([line]) == ("UNDETERMINED", "oom-phase-not-shown")
    assert kind_of([line, "llama_model_load: error loading model: unable to allocate SYCL0 buffer"])[0] == "WEIGHTS"


# --- transformers' from_pretrained is a loader proper: a traceback cut inside it, under a user's words of an out of
# --- memory, is the weights (h425/05)

_FROM_PRETRAINED = [
    "Traceback (most recent call last):",
    '  File "/TensorRT-LLM/examples/llama/convert_checkpoint.py", line 316, in preload_model',
    "    model = AutoModelForCausalLM.from_pretrained(",
    '  File "/usr/local/lib/python3.10/dist-packages/transformers/models/auto/auto_factory.py", line 561, in '
    "from_pretrained",
    "    return model_class.from_pretrained(",
    '  File "/usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py", line 3434, in from_pretrained',
]


@pytest.mark.parametrize("said", [
    "I am suddenly getting cuda out of memory for this command now.",
    "It fails with CUDA out of memory:",
])
def test_a_cut_traceback_inside_from_pretrained_is_the_weights(said):
    assert kind_of([said, *_FROM_PRETRAINED])[0] == "WEIGHTS"


def test_a_cut_traceback_in_an_apps_load_model_is_still_a_floor():
    # (an app's load_model may make the cache after the weights: text-generation-webui's loaders)
    lines = ["I am suddenly getting cuda out of memory for this command now.", "Traceback (most recent call last):",
             '  File "/srv/app/webui.py", line 316, in load_model', "    model = loader(path)",
             '  File "/srv/app/modules/loaders.py", line 90, in loader', "    cache = Cache(model)"]
    assert kind_of(lines) == ("UNDETERMINED", "oom-phase-not-shown")


# --- a report's words that place the model on a device as it loads (h427/03)

@pytest.mark.parametrize("said", [
    "However, it loads the llama 65B model directly into one GPU and return CUDA OOM.",
    "It is loading the whole model onto a single GPU and then OOMs.",
])
def test_a_model_loaded_onto_one_gpu_is_the_weights(said):
    lines = [said, "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB. GPU 0 has a total "
                   "capacity of 79.35 GiB of which 23.19 MiB is free."]
    assert kind_of(lines)[0] == "WEIGHTS"


# --- SGLang caps a request's input to its pool (scheduler's max_req_input_len): a pool shorter than the context, the
# --- server ready, and no failure told, is a limit to tell, not a failure (h422/09)

_SGL_SHORT_POOL = [
    "[2026-04-11 14:34:10] max_total_num_tokens=12079, chunked_prefill_size=4096, max_prefill_tokens=16384, "
    "max_running_requests=1, context_len=40960, available_gpu_mem=0.58 GB",
    "[2026-04-11 14:34:13] INFO:     127.0.0.1:47728 - \"GET /model_info HTTP/1.1\" 200 OK",
    "[2026-04-11 14:34:21] The server is fired up and ready to roll!",
]


def test_a_ready_server_with_a_pool_shorter_than_the_context_is_no_failure():
    run = run_of(diag("\n".join(_SGL_SHORT_POOL)))
    assert run.kind == "NONE" and "12,079" in run.message, (run.kind, run.message)


def test_a_pool_shorter_than_the_context_with_a_hang_told_is_not_called_healthy():
    run = run_of(diag("\n".join(["Long prompts hang forever.", *_SGL_SHORT_POOL])))
    assert run.kind != "NONE", (run.kind, run.code)


# --- Ollama's words that its runner stopped, with no cause (llm/server.go) (h424/11)

@pytest.mark.parametrize("line", [
    "Error: 500 Internal Server Error: model runner has unexpectedly stopped, this may be due to resource limitations "
    "or an internal error, check ollama server logs for details",
    "Error: the worker unexpectedly exited",
])
def test_a_runner_that_unexpectedly_stopped_names_no_cause(line):
    assert kind_of([line]) == ("UNDETERMINED", "failure-cause-not-shown")


# --- a client that went away explains the failed response above it; a stream the user stopped is no failure (h424/01)

_OLLAMA_SERVING = [
    'time=2026-02-21T12:10:07.278-06:00 level=INFO source=server.go:1388 msg="llama runner started in 132.84 seconds"',
    "[GIN] 2026/02/21 - 12:10:32 | 200 |         2m38s |       127.0.0.1 | POST     \"/v1/chat/completions\"",
]
_ABORT = ('time=2026-02-21T12:42:13.304-06:00 level=INFO source=runner.go:922 msg="aborting completion request due to '
          'client closing the connection"')


def test_a_500_after_the_client_closed_the_connection_is_the_clients_timeout():
    lines = [*_OLLAMA_SERVING, "[GIN] 2026/02/21 - 12:42:13 | 500 |         10m0s |       127.0.0.1 | POST     "
                               "\"/v1/chat/completions\"", _ABORT]
    assert kind_of(lines) == ("NOT_OOM", "client-closed-connection")


@pytest.mark.parametrize("after", [[], ["[GIN] 2026/02/21 - 12:43:13 | 200 |  16.2s |       127.0.0.1 | POST     "
                                        "\"/api/chat\""]])
def test_a_stream_the_user_stopped_is_no_failure(after):
    assert kind_of([*_OLLAMA_SERVING, _ABORT, *after])[0] == "NONE"


# --- TensorRT-LLM checks that state a feature only some builds have (h425/02, h425/10)

@pytest.mark.parametrize("line", [
    "what():  [TensorRT-LLM][ERROR] Assertion failed: KV-cache-less is only supported for context "
    "(/app/tensorrt_llm/cpp/tensorrt_llm/plugins/gptAttentionPlugin/gptAttentionPlugin.cpp:1019)",
    "ERROR: Failed to create instance: unexpected error when creating modelInstanceState: TrtGptModelInflightBatching "
    "requires GPT attention plugin with packed input and paged KV cache.",
])
def test_a_build_feature_required_is_not_memory(line):
    assert kind_of(["[TensorRT-LLM] TensorRT-LLM version: 0.12.0", line])[0] == "NOT_OOM"


def test_a_kv_cache_check_of_an_amount_is_still_not_called_a_build_feature():
    line = ("[TensorRT-LLM][ERROR] Assertion failed: the KV cache needs 12 GiB, only 3 GiB is free "
            "(/app/tensorrt_llm/cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp:100)")
    assert kind_of(["[TensorRT-LLM] TensorRT-LLM version: 0.12.0", line])[0] != "NOT_OOM"


# --- a program that only converts weights, killed: the weights' host memory (h425/04)

@pytest.mark.parametrize("lines", [
    ["python3 convert_checkpoint.py --model_dir ./llama-70b --output_dir ./ckpt --dtype float16",
     "[TensorRT-LLM] TensorRT-LLM version: 0.12.0.dev2024080600", "286it [00:50, 5.63it/s]",
     "Total time of reading and converting 52.12702465057373 s", "Killed"],
    ["$ python convert_hf_to_gguf.py ./Qwen2.5-72B --outtype f16", "INFO:hf-to-gguf:Loading model: Qwen2.5-72B",
     "Killed"],
])
def test_a_weight_conversion_killed_is_the_weights(lines):
    assert kind_of(lines)[0] == "WEIGHTS"


# --- a report's words of serving in more forms: an answer being made, a training run partway (h426/08, h421/05)

@pytest.mark.parametrize("said", [
    "OOM on gtx 1650. Load the model fine, but OOM when generate the first message",
    "It runs out of memory when it generates the answer.",
    "Midway through training it crashes with CUDA out of memory.",
    "训练到中途，出现了下面的报错 RuntimeError: CUDA Error: out of memory",
])
def test_words_of_serving_in_more_forms(said):
    assert kind_of([said])[0] == "RUNTIME"


def test_generating_an_engine_is_not_serving():
    assert kind_of(["The build fails with OOM when I generate the engine."])[0] != "RUNTIME"


# --- a report that names a memory-fault (ROCm's memory access fault) in its own words (h421/10)

def test_a_memory_fault_in_a_reports_words_is_a_bad_access():
    lines = ["Running DeepSeek-OCR crashes with memory-fault while initializing:",
             "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):   8%|| 4/51 [00:00<00:03, 15.32it/s]"]
    assert kind_of(lines) == ("NOT_OOM", "illegal-memory-access")


# --- IPython's traceback header names the exception's class: a missing file's or a bug's is the cause (h427/07)

@pytest.mark.parametrize("head, kind", [
    ("FileNotFoundError                         Traceback (most recent call last)", "NOT_OOM"),
    ("KeyError                                  Traceback (most recent call last)", "NOT_OOM"),
    ("RuntimeError                              Traceback (most recent call last)", "UNDETERMINED"),
    ("OutOfMemoryError                          Traceback (most recent call last)", "UNDETERMINED"),
])
def test_an_ipython_header_names_the_class(head, kind):
    lines = [head, "Cell In[1], line 3", "----> 3 llm = LLM(model='m')"]
    assert kind_of(lines)[0] == kind, kind_of(lines)


# --- Python's warnings module is a program's line, whatever person its message speaks in (h428/10)

def test_a_python_warning_is_no_report_of_a_failure():
    lines = ["/usr/local/lib/python3.12/dist-packages/torchvision/io/image.py:14: UserWarning: Failed to load image "
             "Python extension: 'Could not load this library'If you don't plan on using image functionality from "
             "`torchvision.io`, you can ignore this warning.", *_VLLM_UP]
    assert kind_of(lines)[0] == "NONE", kind_of(lines)
