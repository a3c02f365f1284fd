"""`vramdoctor logs` on the kinds of fault held-out rounds 369-375 (issue 6, stop 41, sources no earlier round used)
found, each with logs of our own in other engines, versions and wordings than the example. The engines' lines follow
their sources (named in `vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import kind_of

_CUDA_BUF = ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8000.00 MiB on device 0: cudaMalloc failed: out of "
             "memory")


# --- an RPC worker llama.cpp could not reach, then memory running out: the placement without the worker did not fit,
# and that ended the run; llama-bench's "failed to load model '...'" is the weights (h375/03, h374/05) ----------------

@pytest.mark.parametrize("lines", [
    ["ggml_vulkan: 0 = Radeon 8060S Graphics (AMD open-source driver) | uma: 1 | fp16: 1",
     "Failed to connect to 192.168.100.2:50052",
     "| model                          |       size |     params | backend    | ngl |            test |",
     "ggml_vulkan: Device memory allocation of size 990904320 failed.",
     "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfHostMemory",
     "main: error: failed to load model '/models/MiniMax-M2-UD-Q6_K_XL-00001-of-00004.gguf'"],
    ["Failed to connect to 10.0.0.2:50052", "llm_load_tensors: offloading 80 repeating layers to GPU", _CUDA_BUF,
     "llama_model_load: error loading model: unable to allocate CUDA0 buffer"],
])
def test_an_unreachable_rpc_worker_then_the_weights_not_fitting(lines):
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


def test_an_unreachable_rpc_worker_alone_stays_its_finding():
    lines = ["Failed to connect to 10.0.0.2:50052", "llm_load_tensors: offloaded 33/33 layers to GPU",
             "main: server is listening on http://127.0.0.1:8080 - starting the main loop"]
    assert kind_of(lines) == ("NOT_OOM", "rpc-worker-unreachable"), kind_of(lines)


def test_llama_bench_failing_to_make_a_context_is_no_weights():
    lines = ["llama_kv_cache_init: CUDA0 KV buffer size = 16384.00 MiB", _CUDA_BUF,
             "main: error: failed to create context with model '/models/llama-3-70b.Q4_K_M.gguf'"]
    assert kind_of(lines)[0] != "WEIGHTS", kind_of(lines)


# --- an operation CUDA forbids during stream capture ("cudaMalloc(20480 bytes) failed: operation not permitted when
# stream is capturing"): the capture's bug; the allocator's failures after it follow from it (h372/05) -----------------

@pytest.mark.parametrize("lines", [
    ["fak-cuda: cudaMalloc(20480 bytes) failed: operation not permitted when stream is capturing",
     "inkernel_chat oom-retry ... class=unknown site=dalloc bytes=20480 action=trim-idle-pools",
     "inkernel_chat oom-retry ... class=kv_cache site=kv-key-prealloc layer 0 bytes=33554432"],
    ["INFO 03-01 10:00:00 [gpu_model_runner.py:2000] Capturing CUDA graphs (mixed prefill-decode, PIECEWISE)",
     "RuntimeError: CUDA error: operation not permitted when stream is capturing"],
    ["ERROR: cudaStreamBeginCapture region failed: cudaErrorStreamCaptureUnsupported"],
])
def test_an_operation_forbidden_during_capture_is_no_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "graph-capture-illegal-op"), kind_of(lines)


def test_a_capture_invalidated_by_an_earlier_error_is_not_that_bug():
    # (cudaErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture": the previous error,
    # maybe memory with 0.21 GB left, is the cause; it is not shown)
    lines = ["[2026-01-01 10:00:00 TP0] Memory pool end. avail mem=0.21 GB",
             "[2026-01-01 10:00:02 TP0] Capture cuda graph begin. This can take up to several minutes.",
             "Exception: Capture cuda graph failed: CUDA error: operation failed due to a previous error during capture"]
    assert kind_of(lines)[0] != "NOT_OOM", kind_of(lines)


# --- llama_decode's "no KV slot" as a binding raises it (LLamaSharp's NoKvSlot): the cache full, the app stopped
# (h371/04) -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "LLama.Exceptions.LLamaDecodeError: llama_decode failed: 'NoKvSlot'",
    "Unhandled exception. LLama.Exceptions.LLamaDecodeError: llama_decode failed: NoKvSlot",
])
def test_a_bindings_no_kv_slot_is_the_cache_full(line):
    assert kind_of(["The chat works for a while, then:", line]) == ("RUNTIME", "kv-cache-full")


# --- a person's words of an out-of-memory over a crash dump that names no cause (SIGSEGV in the allocator): the crash
# follows the out-of-memory, it is no finding of its own (h375/05) ----------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["When using tcmalloc the Triton Inference Server instance still comes to an OOM with 10000+ inference request.",
     "The following is the crash log:", "Crash reason:  SIGSEGV /SEGV_MAPERR", "Crash address: 0x0",
     " 0  libtcmalloc.so.4 + 0x26fd3"],
    ["The server runs out of memory after a day of requests and dies:",
     "Fatal Python error: Segmentation fault", "Thread 0x00007f0e98d24e20 (most recent call first):"],
])
def test_an_oom_in_words_over_a_crash_that_names_no_cause(lines):
    assert kind_of(lines)[0] != "NOT_OOM", kind_of(lines)


# --- a failure a document names as one the reader may meet ("If you encounter a connection error with Hugging Face
# (e.g., `We couldn't connect to ...`)"): none happened (h369/06) ----------------------------------------------------

@pytest.mark.parametrize("line", [
    "If you encounter a connection error with Hugging Face (e.g., `We couldn't connect to 'https://huggingface.co' to "
    "load the files`), set the mirror below.",
    "If you see `NCCL error: unhandled system error`, check that the shared memory is large enough.",
])
def test_a_failure_a_document_says_the_reader_may_meet_is_none(line):
    lines = [line, "INFO 05-12 11:35:00 [llm_engine.py:400] init engine took 20.1 seconds",
             "Prompt: 'Hello, my name is', Generated text: ' Lucy and I am an 8 year old'"]
    assert kind_of(lines)[0] == "NONE", kind_of(lines)


# --- a crash by a bad access beside memory running out in the same run: the out-of-memory decides (h369/02) ---------

@pytest.mark.parametrize("lines", [
    ["gfx1150 (Radeon 890M) Segmentation Fault on Linux", "",
     "On Debian 13 with ROCm the same model fails to load with ROCm OOM errors, and sometimes ends with a segfault.",
     "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 31000.00 MiB on device 0: cudaMalloc failed: out of memory",
     "Segmentation fault (core dumped)"],
    ["ggml_vulkan: Device memory allocation of size 4294967296 failed.", "Segmentation fault"],
])
def test_a_crash_beside_an_out_of_memory_is_its_consequence(lines):
    assert kind_of(lines)[0] != "NOT_OOM", kind_of(lines)


# --- Triton Inference Server's own signal handler ("Signal (11) received.", then its backtrace): a crash by a bad
# access, with no memory words (h375/01, h375/12) ----------------------------------------------------------------------

@pytest.mark.parametrize("before", [
    "I0606 10:00:00.000000 1 grpc_server.cc:2519] Started GRPCInferenceService at 0.0.0.0:8001",
    "I0606 10:00:00.000000 1 model_lifecycle.cc:835] successfully loaded 'vllm_model'",
])
def test_tritons_segfault_handler_is_a_crash_not_memory(before):
    lines = [before, "Signal (11) received.", " 0# 0x000055AB1F2C3D4E in /opt/tritonserver/bin/tritonserver",
             " 1# 0x00007F0E98D24E20 in /lib/x86_64-linux-gnu/libc.so.6"]
    assert kind_of(lines) == ("NOT_OOM", "crash-access-violation"), kind_of(lines)


# --- from the new-user review of this stop's readings ------------------------------------------------------------------

_SGL_OK = ["[2025-02-10 14:02:11 TP0] Load weight begin. avail mem=23.21 GB",
           "[2025-02-10 14:02:40 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=8.10 GB",
           "[2025-02-10 14:02:45 TP0] Memory pool end. avail mem=2.05 GB",
           "[2025-02-10 14:02:55 TP0] Capture cuda graph end. Time elapsed: 8.62 s",
           "The server is fired up and ready to roll!"]


@pytest.mark.parametrize("advice", [
    "Troubleshooting (from the docs): In case you run into an out-of-memory error during startup, reduce "
    "--mem-fraction-static.",
    "Docs say: in case you see `CUDA out of memory` while loading, use a smaller model.",
])
def test_a_documents_advice_in_case_of_an_oom_is_no_failure(advice):
    assert kind_of([advice, "My log:", *_SGL_OK])[0] == "NONE", kind_of([advice, *_SGL_OK])


@pytest.mark.parametrize("lines", [
    ["Running DeepSeek-V2-Lite on 4x RTX 3090 with SGLang. The same model also causes an OOM error when trying to run "
     "on a single GPU, so tp=4 is the only viable option, but with tp 4 the server won't start", "",
     "[2025-01-10 14:02:11 TP0] Load weight begin. avail mem=23.21 GB",
     "[2025-01-10 14:02:12 TP0] Scheduler hit an exception: Traceback (most recent call last):",
     '  File "/sgl-workspace/sglang/python/sglang/srt/layers/quantization/fp8.py", line 210, in create_weights',
     "    raise ValueError(",
     "ValueError: Weight output_partition_size = 352 is not divisible by weight quantization block_n = 128."],
    ["The same model also causes an OOM error when trying to run on a single GPU, so tp=2 is the only viable option.", "",
     "INFO 11-04 09:12:20 model_runner.py:1056] Starting to load model deepseek-ai/DeepSeek-V2-Lite...",
     "ERROR 11-04 09:12:40 engine.py:158] Traceback (most recent call last):",
     'ERROR 11-04 09:12:40 engine.py:158]   File "/vllm/model_executor/layers/linear.py", line 403, in weight_loader',
     "ERROR 11-04 09:12:40 engine.py:158] AssertionError: 352 is not divisible by 128"],
])
def test_an_oom_told_of_another_setting_over_a_constraint_error(lines):
    assert kind_of(lines)[0] == "NOT_OOM", kind_of(lines)


def test_running_out_allocating_the_context_in_words_is_the_kv_cache():
    lines = ["Model is only partially offloaded (28/41 layers) but llama-server runs out of VRAM allocating the context "
             "buffer at -c 65536.", "load_tensors:        CUDA0 model buffer size =  7100.00 MiB",
             "llama_context: n_ctx         = 65536", _CUDA_BUF]
    assert kind_of(lines)[0] == "KV_CAPACITY", kind_of(lines)


def test_the_reference_llamas_parameters_made_as_it_is_built_are_the_weights():
    lines = ["> initializing model parallel with size 2", "Traceback (most recent call last):",
             '  File "/home/me/llama/llama/generation.py", line 112, in build', "    model = Transformer(model_args)",
             '  File "/home/me/.local/lib/python3.10/site-packages/fairscale/nn/model_parallel/layers.py", line 290, '
             "in __init__", "    self.weight = Parameter(torch.Tensor(self.output_size_per_partition, self.in_features))",
             "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 100.00 MiB (GPU 0; 23.69 GiB total "
             "capacity; 23.10 GiB already allocated; 12.06 MiB free)"]
    assert kind_of(lines)[0] == "WEIGHTS", kind_of(lines)


def test_a_clients_refusal_at_the_end_of_its_traceback():
    lines = ["Calling my vLLM server from the openai client, long documents fail:", "",
             "Traceback (most recent call last):", '  File "/home/me/rag/summarize.py", line 41, in <module>',
             '    resp = client.chat.completions.create(model="llama", messages=msgs, max_tokens=1024)',
             '  File "/home/me/.venv/lib/python3.11/site-packages/openai/_base_client.py", line 1059, in _request',
             "    raise self._make_status_error_from_response(err.response) from None",
             "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's maximum context "
             "length is 8192 tokens. However, you requested 9216 tokens.\", 'type': 'BadRequestError'}"]
    assert kind_of(lines) == ("NOT_OOM", "requests-refused-too-long"), kind_of(lines)


_VLLM_BOOT = ["INFO 11-04 09:12:01 api_server.py:528] vLLM API server version 0.6.3",
              "INFO 11-04 09:12:40 model_runner.py:1067] Loading model weights took 14.99 GB",
              "INFO 11-04 09:12:50 gpu_executor.py:122] # GPU blocks: 1500, # CPU blocks: 2048",
              "ERROR 11-04 09:13:03 engine.py:158] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 "
              "MiB. GPU 0 has a total capacity of 22.06 GiB of which 7.12 MiB is free."]


@pytest.mark.parametrize("said", [
    "Startup fails as below; adding --enforce-eager makes it start fine.",
    "Startup fails as below; it works when I add --enforce-eager.",
])
def test_more_words_of_eager_mode_fixing_the_start_up(said):
    run = kind_of([said, "", *_VLLM_BOOT])
    assert run[0] == "WARMUP", run


def test_a_fix_that_did_not_help_names_no_ledger():
    from logcase import diag, run_of
    run = run_of(diag("\n".join(["Startup OOM on 24GB. --enforce-eager did not help, lowering max-model-len to 32768 "
                                 "fixed it.", "", *_VLLM_BOOT[:2], _VLLM_BOOT[3]])))
    assert "fix that worked" not in run.phase_source, run.phase_source


def test_a_value_that_fixed_it_is_not_the_failing_runs():
    from logcase import diag, run_of
    run = run_of(diag("\n".join(["SGLang 0.4.3 OOMs at startup on an L4; --mem-fraction-static 0.7 fixed it.", "",
                                 "[2025-02-10 14:02:11 TP0] Load weight begin. avail mem=21.50 GB",
                                 "[2025-02-10 14:02:41 TP0] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out "
                                 "of memory. Tried to allocate 5.80 GiB."])))
    assert run.numbers.get("mem_fraction_static") != 0.7, run.numbers


# --- LLamaSharp as an engine of its own (engines/llamasharp.py): advice in ModelParams' properties, its context read
# from `ContextSize = N`; its LoadWeightsFailedException is a failed load whose cause is above it, not "not memory" -----

def test_llamasharps_advice_is_in_its_own_properties():
    from logcase import diag, flags, run_of
    run = run_of(diag("\n".join(["LLamaSharp 0.19 chat app, ContextSize = 4096. After ~10 messages:", "",
                                 "LLama.Exceptions.LLamaDecodeError: llama_decode failed: 'NoKvSlot'",
                                 "   at LLama.StatefulExecutorBase.InferInternal(IInferenceParams inferenceParams)"])))
    assert run.engine == "llamasharp" and "ModelParams.ContextSize" in flags(run) and " -c " not in f" {flags(run)} "
    assert run.numbers.get("max_model_len") == 4096, run.numbers


def test_llamasharps_failed_load_is_no_finding_of_not_memory():
    lines = ["Loading a 13B Q5_K_M on an 8 GB card:",
             "Unhandled exception. LLama.Exceptions.LoadWeightsFailedException: Failed to load model "
             "'C:\\models\\llama-2-13b.Q5_K_M.gguf'.",
             "   at LLama.LLamaWeights.LoadFromFile(IModelParams params)"]
    assert kind_of(lines)[0] != "NOT_OOM", kind_of(lines)


# --- a long line that introduces the paste below it (over 120 characters, naming the version) is read with the run
# below, not as a run of its own; a client's HTTPError for a request the server refused is that refusal (review) -------

def test_a_long_intro_line_is_read_with_the_run_below():
    from logcase import diag
    rep = diag("\n".join([
        "vLLM 0.6.4, Qwen2-VL-7B-Instruct on a 24GB card. Text prompts work, but it OOMs during image inference with "
        "large screenshots:", "",
        "INFO 12-01 10:00:01 api_server.py:585] vLLM API server version 0.6.4",
        "INFO 12-01 10:00:30 model_runner.py:1072] Loading model weights took 15.55 GB",
        "INFO 12-01 10:00:40 gpu_executor.py:122] # GPU blocks: 1620, # CPU blocks: 4681",
        "ERROR 12-01 10:05:10 engine.py:135] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.02 GiB."]))
    assert len(rep.runs) == 1 and rep.runs[0].kind == "RUNTIME", [(r.kind, r.first_line) for r in rep.runs]


@pytest.mark.parametrize("client", [
    "huggingface_hub.utils._errors.HfHubHTTPError: 422 Client Error: Unprocessable Entity for url: "
    "http://tgi:8080/generate (Request ID: abc)",
    "requests.exceptions.HTTPError: 422 Client Error: Unprocessable Entity for url: http://localhost:8080/generate",
])
def test_a_clients_http_error_for_a_refused_request_is_that_refusal(client):
    lines = ["TGI 2.0.4 with Mistral-7B, my client gets this for long inputs:", "", client, "",
             "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 3900 `inputs` tokens "
             "and 500 `max_new_tokens`"]
    assert kind_of(lines) == ("NOT_OOM", "requests-refused-too-long"), kind_of(lines)
