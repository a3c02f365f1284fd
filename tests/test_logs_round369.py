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
    ["ERROR: cudaStreamEndCapture failed: cudaErrorStreamCaptureInvalidated"],
])
def test_an_operation_forbidden_during_capture_is_no_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "graph-capture-illegal-op"), kind_of(lines)


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
