"""`vramdoctor logs` on the kinds of fault the held-out rounds 174 and later (issue 6, stop 30) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, flags, kind_of, run_of

# --- the advice PyTorch appends to every CUDA or HIP error ("Compile with `TORCH_USE_CUDA_DSA` to enable device-side
# assertions") is no cause: the error line above it is, and where the paste lost it the cause is not shown ------------

_DSA_ONLY = [
    # vLLM V1, the worker's error lines cut to the boilerplate, then the engine core's wrapper
    ["(VllmWorker pid=168) ERROR 08-12 14:37:42 [multiproc_executor.py:559] CUDA kernel errors might be asynchronously "
     "reported at some other API call, so the stacktrace below might be incorrect.",
     "(VllmWorker pid=168) ERROR 08-12 14:37:42 [multiproc_executor.py:559] For debugging consider passing "
     "CUDA_LAUNCH_BLOCKING=1",
     "(VllmWorker pid=168) ERROR 08-12 14:37:42 [multiproc_executor.py:559] Compile with `TORCH_USE_CUDA_DSA` to "
     "enable device-side assertions.",
     "(EngineCore_0 pid=114) ERROR 08-12 14:37:44 [core.py:718] EngineCore failed to start."],
    # ROCm's build of PyTorch words it for HIP; SGLang's scheduler
    ["[2025-06-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
     '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2300, in run_scheduler_process',
     "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
     "incorrect.",
     "For debugging consider passing AMD_SERIALIZE_KERNEL=3",
     "Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions."],
    # a plain PyTorch script's stderr, the suffix alone
    ["Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.30s/it]",
     "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
     "incorrect.",
     "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."],
]


@pytest.mark.parametrize("lines", _DSA_ONLY)
def test_pytorchs_advice_after_a_cuda_error_is_no_device_side_assert(lines):
    kind, code = kind_of(lines)
    assert code != "device-side-assert", (kind, code)
    assert kind == "UNDETERMINED", (kind, code)


@pytest.mark.parametrize("error,expected", [
    ("RuntimeError: CUDA error: device-side assert triggered", ("NOT_OOM", "device-side-assert")),
    ("torch.AcceleratorError: CUDA error: out of memory", None),
])
def test_the_error_above_pytorchs_advice_decides(error, expected):
    lines = ["Traceback (most recent call last):",
             '  File "/app/server.py", line 88, in generate',
             error,
             "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
             "might be incorrect.",
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]
    kind, code = kind_of(lines)
    if expected:
        assert (kind, code) == expected
    else:
        assert kind not in ("NOT_OOM", "NONE") and code != "device-side-assert", (kind, code)


# --- the report's own words above a pasted log and the engine's line inside the paste are two accounts of one
# failure: the engine's line, past the fence, is not joined into the words above it -----------------------------------

_FENCED_BELOW_WORDS = [
    # Ollama: the title, then the scheduler's load error and the reply to the request that started the load
    (["DeepSeek-Coder-V2-Lite-Instruct out of memory",
      "",
      "```",
      'jun 18 13:23:19 ollama[22256]: time=2024-06-18T13:23:19.008+02:00 level=ERROR source=sched.go:388 msg="error '
      'loading llama server" error="llama runner process has terminated: signal: aborted (core dumped) cudaMalloc '
      'failed: out of memory"',
      'jun 18 13:23:19 ollama[22256]: [GIN] 2024/06/18 - 13:23:19 | 500 |  3.168403177s |       127.0.0.1 | POST     '
      '"/api/chat"',
      "```"], {"UNDETERMINED", "WEIGHTS", "KV_CAPACITY"}, 4),
    # llama.cpp: a one-line summary, then the loader's buffer that failed
    (["llama-server dies with out of memory on a 12 GB card",
      "",
      "```",
      "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9216.00 MiB on device 0: cudaMalloc failed: out of "
      "memory",
      "alloc_tensor_range: failed to allocate CUDA0 buffer of size 9663676416",
      "llama_model_load: error loading model: unable to allocate CUDA0 buffer",
      "```"], {"WEIGHTS"}, 4),
    # vLLM: the title, a tilde fence, the loader's traceback's last lines
    (["Llama-3.3-70B CUDA out of memory with tp 2",
      "",
      "~~~",
      "ERROR 03-02 10:11:12 [engine.py:400]   File \"/vllm/model_executor/model_loader/loader.py\", line 420, in "
      "load_model",
      "ERROR 03-02 10:11:12 [engine.py:400] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 "
      "MiB. GPU 0 has a total capacity of 79.15 GiB of which 301.44 MiB is free.",
      "~~~"], {"WEIGHTS"}, 4),
]


@pytest.mark.parametrize("lines,kinds,line", _FENCED_BELOW_WORDS)
def test_an_engines_failure_inside_a_fence_is_not_joined_into_the_words_above_it(lines, kinds, line):
    run = run_of(diag("\n".join(lines)))
    assert run.kind in kinds, (run.kind, run.code)
    assert any(e["line"] >= line for e in run.evidence), run.evidence


# --- an article's section heading after the failure ("Why the Default KV Cache Allocation Fails") names what the
# article explains, not the step the failure came in --------------------------------------------------------------------

@pytest.mark.parametrize("failure,heading,wrong", [
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB "
     "of which 1.10 GiB is free.", "Why the Default KV Cache Allocation Fails", "KV_CAPACITY"),
    ("RuntimeError: CUDA error: out of memory", "How to Fix CUDA Graph Capture OOM in SGLang", "WARMUP"),
    ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4096.00 MiB on device 0: cudaMalloc failed: out of memory",
     "Understanding Model Weights Offloading", "WEIGHTS"),
])
def test_a_section_heading_after_the_failure_names_no_step(failure, heading, wrong):
    kind, code = kind_of(["Here is the error I got:", failure, heading, "The pool is sized at start-up from the "
                          "fraction of memory you allow it."])
    assert kind != wrong, (kind, code)


def test_an_engines_words_after_the_failure_still_name_the_step():
    # (a guard: an engine's own line after the failure, in sentence case, is still read)
    kind, _ = kind_of(["RuntimeError: CUDA error: out of memory",
                       "ERROR 03-02 10:11:12 [gpu_model_runner.py:1900] Capturing CUDA graph shapes failed"])
    assert kind == "WARMUP"


# --- UCX, the RDMA transport under NIXL and Dynamo, failing to register a GPU buffer: the network card, not the disk
# ("Input/output error") and not memory used up -------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["[1781291420.830118] [decode-worker-0:37   :0]           ib_md.c:307  UCX  ERROR ibv_reg_mr(address=0x7fee9e000000, "
     "length=115343360, access=0x10000f) failed: Bad address",
     "E0612 19:10:20.830158      37 ucx_utils.cpp:577] Failed to ucp_mem_map: Input/output error"],
    ["2025-10-01T08:00:00.123Z ERROR nixl_connector: Failed to ucp_mem_map: Input/output error"],
    ["[1718000000.000001] [node1:4242 :0]       ib_md.c:293  UCX  ERROR ibv_reg_mr(address=0x7f0000000000, "
     "length=2147483648, access=0xf) failed: Cannot allocate memory",
     "RuntimeError: NIXL_ERR_BACKEND"],
])
def test_an_rdma_registration_failure_is_communication_not_a_disk(lines):
    assert kind_of(lines) == ("NOT_OOM", "communication-error")


# --- a bare AssertionError under an `assert` that checks an object's type or presence: a check that names objects,
# no amount, whatever words of memory the objects' names hold ------------------------------------------------------

def _asserting(frame: str, statement: str) -> list[str]:
    return ["Traceback (most recent call last):",
            f'  File "{frame}", line 324, in __init__',
            f"    assert {statement}",
            "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
            "AssertionError"]


@pytest.mark.parametrize("frame,statement", [
    ("/sgl-workspace/sglang/python/sglang/srt/mem_cache/mamba_radix_cache.py",
     "isinstance(params.token_to_kv_pool_allocator, TokenToKVPoolAllocator)"),
    ("/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", "self.kv_cache_config is not None"),
    ("/app/tensorrt_llm/_torch/pyexecutor/model_engine.py", 'hasattr(self.model, "kv_cache_manager")'),
])
def test_an_assertion_of_a_type_or_presence_is_not_memory(frame, statement):
    assert kind_of(_asserting(frame, statement)) == ("NOT_OOM", "assertion-failed")


def test_an_assertion_of_an_amount_of_memory_is_not_called_not_memory():
    # (a guard: a pool's size checked against zero may be memory that ran out)
    kind, _ = kind_of(_asserting("/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", "num_gpu_blocks > 0"))
    assert kind != "NOT_OOM"


# --- a cloud client's relay of the server's HTTP status names no cause: the server's own log has it -------------------

@pytest.mark.parametrize("line", [
    "botocore.errorfactory.ModelError: An error occurred (ModelError) when calling the InvokeEndpoint operation: "
    "Received server error (507) from primary and could not load the entire response body.",
    "ModelError: An error occurred (ModelError) when calling the InvokeEndpoint operation: Received client error (424) "
    "from primary with message \"{\"code\": 424, \"type\": \"InternalServerException\"}\".",
])
def test_a_clients_relay_of_the_servers_status_is_no_cause(line):
    kind, code = kind_of(["Traceback (most recent call last):", '  File "invoke.py", line 12, in <module>', line])
    assert (kind, code) == ("UNDETERMINED", "failure-cause-not-shown")


def test_the_servers_error_above_the_clients_relay_decides():
    kind, _ = kind_of(["[WARN ] PyProcess - W-167-qwen-vl-stderr: torch.cuda.OutOfMemoryError: CUDA out of memory. "
                       "Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 22.20 GiB of which 1.06 MiB is free.",
                       "botocore.errorfactory.ModelError: An error occurred (ModelError) when calling the "
                       "InvokeEndpoint operation: Received server error (507) from primary and could not load the "
                       "entire response body."])
    assert kind not in ("NOT_OOM", "NONE")


# --- no GPU visible to the process (a container started without its GPUs, a Ray node without GPU resources): named,
# not memory, even where a resource listing beside it holds the word "memory" -----------------------------------------

@pytest.mark.parametrize("line", [
    "ValueError: Current node has no GPU available. current_node_resource={'memory': 36000000000.0, 'GPU': 0.05, "
    "'CPU': 8.0}. vLLM engine cannot start without GPU.",
    "RuntimeError: No CUDA GPUs are available",
    "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
    "driver from http://www.nvidia.com/Download/index.aspx",
    "(APIServer pid=1) RuntimeError: Failed to infer device type",
])
def test_no_gpu_visible_is_named_and_not_memory(line):
    assert kind_of(["Traceback (most recent call last):", '  File "/app/start.py", line 20, in <module>', line]) == (
        "NOT_OOM", "cuda-driver-error")


# --- PyTorch's caching allocator that ran out of memory, then failed to ask NVML who holds it: its NVML assertion
# hides an out-of-memory (pytorch#112377) -----------------------------------------------------------------------------

@pytest.mark.parametrize("lines,kind", [
    (["INFO 09-03 19:31:50 [gpu_model_runner.py:2200] Model loading took 14.2 GiB and 9.1 seconds",
      "INFO 09-03 19:31:53 [gpu_worker.py:276] Available KV cache memory: 51.2 GiB",
      "Capturing CUDA graphs (PIECEWISE):  20%|##        | 10/51 [00:00<00:02, 15.63it/s][rank0]:[E903 19:31:55.312 "
      "shim_common.cpp:523] Exception in aoti_torch: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "
      '"/pytorch/c10/cuda/CUDACachingAllocator.cpp":1165, please report a bug to PyTorch.',
      "Exception raised from reportProcessMemoryInfo at /pytorch/c10/cuda/CUDACachingAllocator.cpp:1165 (most recent "
      "call first):"], "WARMUP"),
    (["INFO:     Application startup complete.",
      'INFO:     127.0.0.1:50312 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
      'RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":830, please '
      "report a bug to PyTorch."], "RUNTIME"),
    (["Loading safetensors checkpoint shards:  40% Completed | 2/5 [00:03<00:04,  1.52s/it]",
      "RuntimeError: NVML_SUCCESS == DriverAPI::get()->nvmlDeviceGetHandleByPciBusId_v2_( pci_id, &nvml_device) "
      'INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":815, please report a bug to PyTorch.'],
     "WEIGHTS"),
])
def test_the_allocators_nvml_assertion_is_an_out_of_memory(lines, kind):
    assert kind_of(lines)[0] == kind


# --- TensorRT-LLM's MMHA kernel for a sequence longer than its shared memory holds: a kernel's limit, not the GPU's
# memory (with guards: a C++ assertion's condition on its line, its frames after it, is read as a named check, which
# held already) ------------------------------------------------------------------------------------------------------

_CPP_FRAMES = ["1       0x7f64891c8e0b /usr/local/lib/python3.10/dist-packages/tensorrt_llm/libs/libtensorrt_llm.so(+0x35e0b) "
               "[0x7f64891c8e0b]",
               "2       0x7f6489444b0f /usr/local/lib/python3.10/dist-packages/tensorrt_llm/libs/libtensorrt_llm.so(+0x2b1b0f) "
               "[0x7f6489444b0f]"]


@pytest.mark.parametrize("line", [
    "[TensorRT-LLM][ERROR] Encountered an error in forwardAsync function: [TensorRT-LLM][ERROR] Assertion failed: "
    "Unsupported data type (/src/cpp/tensorrt_llm/kernels/samplingTopKKernels.cu:88)",
    " what():  [TensorRT-LLM][ERROR] Assertion failed: beamWidth == 1 (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/"
    "gptDecoder.cpp:301)",
    "llama-server: /src/llama.cpp/src/llama-vocab.cpp:1700: const token_data &llama_vocab::token_get_attr(id) const: "
    "Assertion `id < n_tokens' failed.",
])
def test_a_cpp_assertion_without_memory_words_is_an_assertion_that_failed(line):
    assert kind_of([line, *_CPP_FRAMES]) == ("NOT_OOM", "assertion-failed")


def test_a_cpp_assertion_of_an_amount_is_not_called_not_memory():
    kind, _ = kind_of(["[TensorRT-LLM][ERROR] Assertion failed: freeMem >= requiredMem (/app/tensorrt_llm/cpp/"
                       "tensorrt_llm/runtime/bufferManager.cpp:120)", *_CPP_FRAMES])
    assert kind != "NOT_OOM"


def test_the_mmha_kernels_shared_memory_is_a_kernel_limit():
    assert kind_of([" what():  [TensorRT-LLM][ERROR] Assertion failed: Sequence Length is too long for the MMHA kernel "
                    "(not enough shared memory). (/src/cpp/tensorrt_llm/kernels/decoderMaskedMultiheadAttention/"
                    "decoderMaskedMultiheadAttentionLaunch.h:205)", *_CPP_FRAMES]) == ("NOT_OOM", "kernel-shared-memory")


# --- TensorRT's own allocator out of GPU memory (a trtllm-build, Triton's TensorRT back end, Torch-TensorRT) ----------

@pytest.mark.parametrize("lines", [
    ["[TensorRT-LLM] [I] Build TensorRT engine Unnamed Network 0",
     "Requested amount of GPU memory (1024 bytes) could not be allocated. There may not be enough free"],
    ["E0105 09:12:33.123456 1 model_lifecycle.cc:630] failed to load 'llama_trt' version 1: Internal: unable to create "
     "TensorRT engine: Requested amount of GPU memory (8589934592 bytes) could not be allocated. There may not be enough "
     "free memory for allocation to succeed."],
    ["ERROR: [Torch-TensorRT TorchScript Conversion Context] - 2: [executionContext.cpp::ExecutionContext::410] "
     "Requested amount of GPU memory (268435456 bytes) could not be allocated. There may not be enough free memory for "
     "allocation to succeed."],
])
def test_tensorrts_allocator_out_of_gpu_memory_is_memory(lines):
    kind, code = kind_of(lines)
    assert kind not in ("NONE", "NOT_OOM") and code != "failure-cause-not-shown", (kind, code)


# --- Ollama's scheduler that gave up waiting for its runner to load (a stalled load, or the client gone): a named cause,
# not memory, unless the runner's last error it quotes says memory -----------------------------------------------------

@pytest.mark.parametrize("line", [
    'time=2025-02-28T17:05:26.794+08:00 level=ERROR source=sched.go:456 msg="error loading llama server" '
    'error="timed out waiting for llama runner to start - progress 0.00 - "',
    "time=2024-05-10T08:00:00.000Z level=ERROR source=sched.go:344 msg=\"error loading llama server\" "
    "error=\"timed out waiting for llama runner to start: \"",
    'time=2026-01-08T10:00:00.000Z level=ERROR source=sched.go:575 msg="error loading llama server" '
    'error="timed out waiting for llama runner to start: context canceled"',
])
def test_ollamas_load_timeout_is_named(line):
    assert kind_of(['time=2025-02-28T17:00:10.000+08:00 level=INFO source=server.go:580 msg="waiting for llama runner '
                    'to start responding"', line]) == ("NOT_OOM", "load-timeout")


def test_ollamas_load_timeout_that_quotes_an_out_of_memory_is_memory():
    kind, code = kind_of(['time=2025-02-28T17:05:26.794+08:00 level=ERROR source=sched.go:456 msg="error loading llama '
                          'server" error="timed out waiting for llama runner to start - progress 0.41 - cudaMalloc '
                          'failed: out of memory"'])
    assert kind != "NOT_OOM" and code != "load-timeout", (kind, code)


# --- an out-of-memory inside a layer's constructor (the model made on the device, its weights allocated as each layer
# is built) is the weights, whatever the folder depth of the model's file ------------------------------------------------

def _made(*frames: str) -> list[str]:
    return ["Traceback (most recent call last):", *frames,
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 108.00 MiB. GPU 3 has a total capacity of "
            "31.36 GiB of which 108.75 MiB is free."]


@pytest.mark.parametrize("frames", [
    ['  File "/usr/local/lib/python3.12/dist-packages/vllm_omni/diffusion/models/qwen_image/qwen_image_transformer.py", '
     "line 638, in __init__",
     "    nn.Linear(dim, 6 * dim, bias=True),",
     '  File "/usr/local/lib/python3.12/dist-packages/torch/nn/modules/linear.py", line 109, in __init__',
     "    torch.empty((out_features, in_features), **factory_kwargs)"],
    ['  File "/opt/conda/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py", line 300, in __init__',
     "    self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size, self.padding_idx)",
     '  File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/sparse.py", line 167, in __init__',
     "    torch.empty((num_embeddings, embedding_dim), **factory_kwargs),"],
    ['  File "/app/server/model.py", line 41, in build',
     "    head = nn.Linear(4096, 152064, bias=False, device=\"cuda\")",
     '  File "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py", line 106, in __init__',
     "    self.weight = Parameter("],
])
def test_an_out_of_memory_in_a_layers_constructor_is_the_weights(frames):
    assert kind_of(_made(*frames))[0] == "WEIGHTS"


def test_an_out_of_memory_in_a_layers_forward_is_not_the_weights():
    kind, _ = kind_of(_made('  File "/usr/local/lib/python3.12/dist-packages/torch/nn/modules/linear.py", line 125, in '
                            "forward",
                            "    return F.linear(input, self.weight, self.bias)"))
    assert kind != "WEIGHTS"


# --- an out-of-memory only the report's title names, over an engine's wrapper that names its step and a traceback cut
# before its cause: the title gives the cause, the wrapper the step ------------------------------------------------------

_TRACEBACK_CUT = ["Traceback (most recent call last):",
                  '  File "/opt/conda/bin/text-generation-server", line 8, in <module>',
                  "    sys.exit(app())"]


@pytest.mark.parametrize("title,wrapper,kind", [
    ('# "torch.cuda.OutOfMemoryError: CUDA out of memory" when deploying TGI in Kubernetes',
     "2024-03-31T18:31:04.932785Z ERROR text_generation_launcher: Error when initializing model", "WEIGHTS"),
    ("# CUDA out of memory with TGI 2.0.4 on an L4",
     "2024-06-01T10:00:00.000000Z ERROR warmup{max_input_length=4095 max_prefill_tokens=4096}:warmup: "
     "text_generation_client: router/client/src/lib.rs:46: Server error: Method Warmup encountered an error.",
     "WARMUP"),
    ("# [Bug] OOM on two A10G with TGI",
     "2024-02-01T10:00:00.000000Z ERROR text_generation_launcher: Shard 1 failed to start", "WEIGHTS"),
])
def test_the_titles_out_of_memory_is_placed_by_the_engines_wrapper(title, wrapper, kind):
    run = run_of(diag("\n".join([title, "", "2024-02-01T09:59:50.000000Z  INFO shard-manager: text_generation_launcher: "
                                 "Waiting for shard to be ready... rank=0", wrapper, *_TRACEBACK_CUT])))
    assert run.kind == kind, (run.kind, run.code)


# --- a native backtrace pasted under the report's title, cut before its innermost frames, inside llama.cpp's loader
# proper (llama_model::load_tensors): the weights, however it was cut ---------------------------------------------------

def _titled_backtrace(title: str, frames: list[str]) -> list[str]:
    return [title, "", "```", *frames, "[Inferior 1 (process 525569) detached]", "```", "", "server logs:", "```",
            *[f"0.00.000.{450 + i} I line {i} of the start-up" for i in range(14)], "```"]


@pytest.mark.parametrize("title,frames", [
    ("# RPC server OOM when claimed resources are sufficient",
     ["#3  0x0000000000dd823a in alloc_tensor_range ()",
      "#4  0x0000000000dd9b67 in ggml_backend_alloc_ctx_tensors_from_buft ()",
      "#5  0x000000000068086b in llama_model::load_tensors(llama_model_loader&) ()",
      "#6  0x000000000061da66 in llama_model_load_from_file_impl(std::string const&, llama_model_params) ()",
      "#7  0x00000000004f51fb in server_context::load_model(common_params const&) ()"]),
    ("llama-server runs out of memory on a 3090",
     ["#2  0x00007f3a1c2b5e10 in ggml_backend_cuda_buffer_type_alloc_buffer () from libggml-cuda.so",
      "#3  0x00007f3a1c0a1d22 in ggml_backend_alloc_ctx_tensors_from_buft () from libggml-base.so",
      "#4  0x00007f3a1d11e0a5 in llama_model::load_tensors(llama_model_loader&) () from libllama.so",
      "#5  0x00007f3a1d0f9c13 in llama_model_load_from_file () from libllama.so"]),
    ("# [Bug] cudaMalloc failed: out of memory with an old build",
     ["#4  0x000055d2c1a3b9e2 in llm_load_tensors(llama_model_loader&, llama_model&, int, llama_split_mode, int, "
      "float const*, bool, void (*)(float, void*), void*) ()",
      "#5  0x000055d2c1a4f0b7 in llama_model_load(std::string const&, llama_model&, llama_model_params&) ()"]),
])
def test_a_backtrace_cut_inside_llamacpps_loader_under_the_title_is_the_weights(title, frames):
    assert kind_of(_titled_backtrace(title, frames))[0] == "WEIGHTS"


def test_a_backtrace_cut_inside_the_context_set_up_under_the_title_is_not_the_weights():
    kind, _ = kind_of(_titled_backtrace("# RPC server OOM after loading", [
        "#3  0x0000000000dd823a in ggml_backend_buft_alloc_buffer ()",
        "#4  0x0000000000a1b2c3 in llama_kv_cache::llama_kv_cache(llama_model const&, ggml_type, ggml_type) ()",
        "#5  0x0000000000a2b3c4 in llama_context::llama_context(llama_model const&, llama_context_params) ()",
        "#6  0x0000000000a3c4d5 in llama_init_from_model ()"]))
    assert kind != "WEIGHTS"


# --- llama-server's prompt cache saving a request's state (server_prompt_cache) is serving: a host kill after it is
# the serving ledger, not the weights' ------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["saving prompt with length 146764, total state size = 5332.813 MiB (draft: 307.363 MiB)",
     "oom-kill: constraint=CONSTRAINT_NONE,task=llama-server,pid=92787",
     "Out of memory: Killed process 92787 (llama-server) total-vm:98765432kB"],
    ["srv  prompt_save:  - saving prompt with length 31337, total state size = 1200.000 MiB",
     "Killed"],
    ["single state (2721.372 MiB) exceeds cache limit (360.000 MiB), skipping cache",
     "[Fri Mar  6 10:00:00 2026] Out of memory: Killed process 4242 (llama-server) total-vm:81234567kB"],
])
def test_a_host_kill_after_the_prompt_cache_saved_a_request_is_serving(lines):
    assert kind_of(lines)[0] == "RUNTIME"


# --- a second model's weights loaded after the first model's milestones (llama-server's multimodal projector, a draft
# model): a failure while it loads is the weights ledger, however far the first model got -------------------------------

_MAIN_LOADED = ["load_tensors: offloading 29 repeating layers to GPU",
                "load_tensors: offloaded 31/31 layers to GPU",
                "load_tensors:        CUDA0 model buffer size = 16001.49 MiB",
                "llama_context: n_ctx         = 8192",
                "llama_kv_cache:      CUDA0 KV buffer size =   512.00 MiB",
                "llama_context:      CUDA0 compute buffer size =   300.25 MiB"]
_CUDA_OOM = ["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1139.46 MiB on device 0: cudaMalloc failed: out of "
             "memory",
             "alloc_tensor_range: failed to allocate CUDA0 buffer of size 1194811392"]


@pytest.mark.parametrize("load", [
    ["clip_model_loader: model name:   gemma-3-27b-it",
     "load_hparams: projector:          gemma3",
     "load_hparams: model size:         818.46 MiB"],
    ["srv    load_model: loading multimodal model 'mmproj-Qwen2.5-VL-7B-f16.gguf'",
     "clip_ctx: CLIP using CUDA0 backend"],
    ["clip_model_load: model name:   openai/clip-vit-large-patch14-336",
     "clip_model_load: description:  image encoder for LLaVA"],
    ["srv    load_model: loading draft model 'Qwen2.5-0.5B-Instruct-Q8_0.gguf'"],
])
def test_a_second_models_load_after_the_first_is_the_weights(load):
    assert kind_of([*_MAIN_LOADED, *load, *_CUDA_OOM])[0] == "WEIGHTS"


def test_the_projectors_compute_buffer_after_its_load_is_not_the_weights():
    kind, _ = kind_of([*_MAIN_LOADED, "clip_ctx: CLIP using CUDA0 backend", "load_hparams: model size:  818.46 MiB",
                       "alloc_compute_meta:      CUDA0 compute buffer size =  1139.46 MiB", *_CUDA_OOM])
    assert kind != "WEIGHTS"


# --- a line of one character repeated (a markdown rule of underscores, a row of dashes) before a cut traceback: every
# pattern runs in time linear in the line, never one that backtracks without end (the log prefix's `\w+(?:_\w+)*`
# did on 40 underscores) ---------------------------------------------------------------------------------------------

def test_lines_of_one_character_repeated_do_not_hang_the_scan(tmp_path):
    import subprocess
    import sys
    text = "".join(f"{ch * 4000}\nTraceback (most recent call last):\n  File \"C:\\Users\n"
                   for ch in ("_", "-", "=", ".", " ", "a", "0", "#", "|", "\\"))
    path = tmp_path / "rules.log"
    path.write_text(text)
    r = subprocess.run([sys.executable, "-m", "vramdoctor", "logs", str(path), "--json"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-500:]


# --- a script's `llm = LLM(model=...)` in its `<module>` frame is vLLM's offline engine being built: start-up, whatever
# the report's words say of inference ("我在尝试vllm推理时") --------------------------------------------------------------

_V0_START = ["INFO 08-25 08:17:00 llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='/m/MiniCPM'",
             "INFO 08-25 08:17:11 model_runner.py:175] Loading model weights took 5.1039 GB",
             "INFO 08-25 08:17:12 gpu_executor.py:114] # GPU blocks: 11749, # CPU blocks: 728"]


@pytest.mark.parametrize("words,frames", [
    ("你好，我在尝试vllm推理时，运行你们给的inference_vllm.py，但是50g显存都会报错out of memory",
     ["[rank0]: Traceback (most recent call last):",
      '[rank0]:   File "/data/MiniCPM/inference/inference_vllm.py", line 46, in <module>',
      "[rank0]:     llm = LLM(model=arg"]),
    ("When I run inference with the offline example it fails with CUDA out of memory on a 24 GB card.",
     ["Traceback (most recent call last):",
      '  File "/home/me/offline.py", line 12, in <module>',
      "    llm = LLM(model=\"Qwen/Qwen2-7B\", gpu_memory_utilization=0.95)"]),
    ("推理的时候显存不足 OOM",
     ["Traceback (most recent call last):",
      '  File "run.py", line 8, in <module>',
      "    engine = LLM(**vars(args))"]),
])
def test_a_script_building_vllms_offline_engine_is_starting(words, frames):
    kind, _ = kind_of([words, *_V0_START, *frames])
    assert kind != "RUNTIME", kind


def test_a_script_calling_generate_after_the_engine_is_built_is_a_request():
    # (a guard: generate() is a request, whatever the frame it is called from)
    kind, _ = kind_of([*_V0_START, "INFO 08-25 08:17:30 model_runner.py:900] Graph capturing finished in 8 secs.",
                       "Processed prompts:   3%|3         | 30/1000 [00:05<02:45,  5.86it/s]",
                       "Traceback (most recent call last):",
                       '  File "/home/me/offline.py", line 20, in <module>',
                       "    outputs = llm.generate(prompts, sampling_params)",
                       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."])
    assert kind == "RUNTIME", kind


# --- the reason llama.cpp gives for a pinned host buffer it could not get ("... of pinned memory: no CUDA-capable device
# is detected") is part of a warning it goes on from, not the run's failure ------------------------------------------

@pytest.mark.parametrize("warning", [
    "ggml_cuda_host_malloc: failed to allocate 2.00 MiB of pinned memory: no CUDA-capable device is detected",
    "WARNING: failed to allocate 424.01 MB of pinned memory: no CUDA-capable device is detected",
    "ollama      | ggml_cuda_host_malloc: failed to allocate 424.01 MiB of pinned memory: no CUDA-capable device is "
    "detected",
])
def test_a_pinned_memory_warnings_reason_is_not_the_runs_failure(warning):
    kind, code = kind_of([warning, "llama_kv_cache_init:        CPU KV buffer size =   896.00 MiB",
                          "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
                          "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"])
    assert code != "cuda-driver-error" and kind == "NONE", (kind, code)


def test_no_cuda_device_as_a_cuda_error_is_still_the_driver():
    assert kind_of(["CUDA error: no CUDA-capable device is detected",
                    "  current device: 0, in function ggml_cuda_init at ggml-cuda.cu:220"]) == (
        "NOT_OOM", "cuda-driver-error")


# --- a front end's relay that the engine's process ended, with no cause: the cause is not shown (not "an error that is
# not memory") -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "Error: Ollama call failed with status code 500: llama runner process has terminated",
    "web_1        | Error: llama runner process has terminated",
    "[2026-07-23 10:26:37.544] [error] [LMSInternal][Endpoint=multiplexedLoadModel] Error in channel handler: Error: "
    "Engine protocol runtime llama-server for FIsmjZhi7TVojf6FQidUtbrq exited before becoming healthy. exitCode=1, "
    "signal=null",
])
def test_a_relay_that_the_engine_process_ended_shows_no_cause(line):
    kind, code = kind_of([line, "    at OllamaClient.chat (/app/node_modules/ollama/dist/index.js:120:11)"])
    assert (kind, code) == ("UNDETERMINED", "failure-cause-not-shown")


# --- llama.cpp's warning that it could not lock the mapped model in RAM (--mlock) is one it loads on from, whatever
# reason it quotes ("Out of memory (win32 error 1453)", "Cannot allocate memory") ------------------------------------

@pytest.mark.parametrize("warning", [
    "warning: failed to mlock 43745280-byte buffer (after previously locking 0 bytes): Out of memory (win32 error 1453)",
    "warning: failed to mlock 3083141120-byte buffer (after previously locking 0 bytes): Cannot allocate memory",
    "llama_model_loader: warning: failed to mlock 139264-byte buffer (after previously locking 0 bytes): Resource "
    "temporarily unavailable",
])
def test_a_failed_mlock_is_a_warning_the_load_goes_on_from(warning):
    kind, code = kind_of([warning, "Try increasing RLIMIT_MEMLOCK ('ulimit -l' as root).",
                          "llm_load_tensors: system memory used = 2939.68 MiB"])
    assert kind == "NONE", (kind, code)


# --- ggml's GGUF reader that finds a file it cannot follow (2026's gguf_init_from_reader, the offset check of older
# builds) before a load error cut short: the file, not memory -------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["[Server] [54634] 0.00.174.591 E gguf_init_from_reader: tensor 'output_norm.weight' has offset 337715200, "
     "expected 357580800",
     "[Server] [54634] 0.00.174.596 E gguf_init_from_reader: failed to read tensor data",
     "[Server] [54634] 0.00.179.940 E llama_model_load: error loading model: llama_model_loader:"],
    ["gguf_init_from_file: tensor 'blk.0.attn_k.weight' has offset 4423680, expected 4424704",
     "llama_model_load: error loading model: llama_model_loader: failed to load model from /models/x.gguf"],
    ['time=2026-02-01T10:00:00.000Z level=INFO source=server.go:400 msg="gguf_init_from_reader: failed to read tensor '
     'data"',
     'time=2026-02-01T10:00:00.100Z level=ERROR source=sched.go:456 msg="error loading llama server" error="llama '
     'runner process has terminated: error loading model: llama_model_loader: failed to load model"'],
])
def test_a_gguf_the_reader_cannot_follow_is_the_file(lines):
    assert kind_of(lines) == ("NOT_OOM", "model-file-error")


# --- an AssertionError's message that states a state in words (three or more, none of memory), also quoted inside a
# wrapper's line: a named check, not memory ----------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "(EngineCore pid=405815) ERROR 05-04 17:54:34 [core.py:1136] RuntimeError: Worker failed with error "
    "'AssertionError: auto_functionalized was not removed', please check the stack trace above for the root cause",
    "AssertionError: Torch not compiled with CUDA enabled",
    "[2025-06-01 10:00:00 TP0] Scheduler hit an exception: AssertionError: The attention backend does not support "
    "sliding window attention.",
])
def test_an_assertion_message_without_memory_words_is_an_assertion_that_failed(line):
    assert kind_of([line]) == ("NOT_OOM", "assertion-failed")


def test_an_assertion_message_of_memory_is_not_called_not_memory():
    kind, _ = kind_of(["RuntimeError: Worker failed with error 'AssertionError: not enough free blocks in the pool', "
                       "please check the stack trace above for the root cause"])
    assert kind != "NOT_OOM"


# --- a refusal for length that a client relays (an OpenAI or LiteLLM exception, an HTTP 400) under a report that says
# it failed: the server answered the request, so it was serving; the refusal is the failure the report means ----------

@pytest.mark.parametrize("line", [
    "backend-1  | ERROR:app.llm:Stream error: litellm.ContextWindowExceededError: litellm.BadRequestError: "
    "ContextWindowExceededError: OpenAIException - This model's maximum context length is 13500 tokens. However, you "
    "requested 14032 tokens (9936 in the messages, 4096 in the completion).",
    "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's maximum context length is "
    "8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion).\"}",
    "requests.exceptions.HTTPError: HTTP 400: This model's maximum context length is 32768 tokens. However, you "
    "requested 40000 tokens in the messages.",
])
def test_a_relayed_refusal_under_a_stated_failure_is_the_refusal(line):
    assert kind_of(["My agent fails with an error when the document is long", "", line]) == (
        "NOT_OOM", "requests-refused-too-long")


# --- NCCL refusing a CUDA graph capture (an old driver or build): the GPUs' communication, not memory ------------------

@pytest.mark.parametrize("lines", [
    ["NCCL WARN NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if the "
     "installed CUDA driver < R465."],
    ["(RayWorkerVllm pid=5123) node1:5123:5123 [1] NCCL INFO cudaDriverVersion 11040",
     "(RayWorkerVllm pid=5123) node1:5123:5123 [1] enqueue.cc:1234 NCCL WARN NCCL cannot be captured in a graph if "
     "either it wasn't built with CUDA runtime >= 11.3 or if the installed CUDA driver < R465.",
     "RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)"],
    ["[2024-03-01 10:00:00 TP1] Capture cuda graph failed: NCCL cannot be captured in a graph if either it wasn't "
     "built with CUDA runtime >= 11.3"],
])
def test_nccl_refusing_a_graph_capture_is_nccl(lines):
    assert kind_of(lines) == ("NOT_OOM", "nccl-error")


# --- memory growth told in Chinese: accumulating (累积增长), not going down after each request (结束后显存不降), a
# reading hours on that differs (1个多小时之后显存占用变成了18G) -------------------------------------------------------------

@pytest.mark.parametrize("words", [
    "在3090单卡上测试，模型拉起后显存占用12200MiB，但在问答过程中显存累积增长，怎么处理？",
    "每次问题结束后显存不降，最后OOM。",
    "一段时间内显存占用固定为差不多14G；然而在1个多小时之后，vllm显存占用变成了18G，2个小时后占用变成了20G",
])
def test_growth_told_in_chinese_is_a_leak(words):
    kind, code = kind_of([words, "INFO:     Application startup complete.",
                          'INFO:     127.0.0.1:50312 - "POST /v1/chat/completions HTTP/1.1" 200 OK'])
    assert (kind, code) == ("LEAK", "memory-growth-stated")


def test_memory_said_not_to_grow_in_chinese_is_no_leak():
    kind, _ = kind_of(["显存没有一直增长，占用固定为14G。", "INFO:     Application startup complete."])
    assert kind != "LEAK"


# --- a request named with "your", "my" or "our" ("Then you send your first request and the whole thing crashes") is a
# request, as "the first request" is ----------------------------------------------------------------------------------

@pytest.mark.parametrize("words", [
    "The server starts, healthcheck passes. Then you send your first request and the whole thing crashes:",
    "Everything loads, but my first prompt kills it:",
    "Startup is clean; our second request after a restart always dies with:",
])
def test_a_request_named_with_a_possessive_is_serving(words):
    assert kind_of([words, "", "RuntimeError: Triton Error [CUDA]: out of memory"])[0] == "RUNTIME"


def test_before_your_first_request_is_not_serving():
    kind, _ = kind_of(["It crashes before your first request can even be sent:", "",
                       "RuntimeError: Triton Error [CUDA]: out of memory"])
    assert kind != "RUNTIME"


# --- Ray ending an actor nothing refers to any more: a lifecycle fault, named, not memory --------------------------------

@pytest.mark.parametrize("lines", [
    ["ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
     "    class_name: RayWorker",
     "The actor is dead because all references to the actor were removed"],
    ["[2023-10-27 15:56:14,963 I 2203 2281] core_worker.cc:3737: Force kill actor request has received. exiting "
     "immediately... The actor is dead because all references to the actor were removed."],
    ["(ServeReplica:default:VLLMDeployment pid=812) ERROR 2025-01-01 10:00:00,000 replica.py:300 -- "
     "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task. The actor is dead "
     "because all references to the actor were removed."],
])
def test_ray_ending_an_actor_nothing_refers_to_is_not_memory(lines):
    assert kind_of(lines) == ("NOT_OOM", "ray-actor-released")


# --- an OOM kill named only as the cause of an exit code other than the one reported ("If exit code is -9 (SIGKILL), a
# common cause is the OS OOM killer", after exit code -3): a hint for a case that did not happen ----------------------

@pytest.mark.parametrize("line", [
    "RuntimeError: Rank 0 scheduler died during initialization (exit code: -3). If exit code is -9 (SIGKILL), a common "
    "cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check.",
    "ERROR: the server process exited with code 1. If the exit code is 137, the container was likely OOM killed.",
    "worker 3 exited (status -6); if status is -9 it may have been killed by the OOM killer",
])
def test_a_kill_named_for_another_exit_code_is_no_kill(line):
    kind, code = kind_of([line])
    assert code != "host-oom-kill" and kind not in ("WEIGHTS", "RUNTIME"), (kind, code)


def test_a_kill_hint_for_the_exit_code_reported_is_still_a_kill():
    kind, code = kind_of(["RuntimeError: Rank 0 scheduler died during initialization (exit code: -9). If exit code is "
                          "-9 (SIGKILL), a common cause is the OS OOM killer."])
    assert code == "host-oom-kill" or kind in ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME"), (kind, code)


# --- a crash a line only says could come ("This could lead to a segmentation fault at exit") is none: the out-of-memory
# beside it decides -------------------------------------------------------------------------------------------------------

_CUDA_OOM_LINE = "CUDA error 2 at /tmp/vendor/llama.cpp/ggml-cuda.cu:2067: out of memory"


@pytest.mark.parametrize("warning", [
    "/arrow/cpp/src/arrow/filesystem/s3fs.cc:2598:  arrow::fs::FinalizeS3 was not called even though S3 was "
    "initialized.  This could lead to a segmentation fault at exit",
    "WARNING: mixing these builds may cause an illegal memory access in the attention kernel",
    "UserWarning: Running with this driver might result in a segmentation fault on exit.",
])
def test_a_crash_only_said_to_be_possible_does_not_hide_the_out_of_memory(warning):
    kind, code = kind_of([warning, _CUDA_OOM_LINE])
    assert kind != "NOT_OOM", (kind, code)


# --- a log that ends inside ggml's abort line, its path to a source cut before the file's extension
# ("/llama.cpp/ggml/src/ggml-cuda/ggml-cuda."): a failure begun, its words cut; never "no failure" ----------------------

_SERVING = ["0.10.929.937 I srv  llama_server: listening on http://127.0.0.1:8080",
            "1.19.078.143 I slot launch_slot_: id  0 | task 0 | processing task, is_child = 0"]


@pytest.mark.parametrize("last", [
    "/media/hero/Apps/AI_STACK/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.",
    "D:\\a\\llama.cpp\\llama.cpp\\ggml\\src\\ggml-cuda\\ggml-cuda.",
    "/home/user/llama.cpp/ggml/src/ggml-vulkan/ggml-vulkan.",
])
def test_a_log_ending_inside_ggmls_abort_path_is_a_failure_begun(last):
    kind, code = kind_of([*_SERVING, last])
    assert kind == "UNDETERMINED", (kind, code)


def test_a_sentence_ending_in_a_path_and_a_stop_is_not_cut():
    assert kind_of([*_SERVING, "The model is in /models/qwen."]) == ("NONE", "no-memory-problem")


# --- LightLLM's "load model error: ..." wraps its model's constructor, which loads the weights and then makes the KV
# pool of --max_total_token_num tokens (its mem_manager): an out-of-memory there is either ledger, not the weights for
# sure (938 MiB is one layer's K buffer of a 120,000-token pool for llama-7b) --------------------------------------------

@pytest.mark.parametrize("line", [
    "load model error: CUDA out of memory. Tried to allocate 938.00 MiB (GPU 0; 31.75 GiB total capacity; 30.87 GiB "
    "already allocated; 97.94 MiB free; 30.87 GiB reserved in total by PyTorch)",
    "ERROR 03-01 10:00:00 [model_rpc.py:150] load model error: torch.OutOfMemoryError: CUDA out of memory. Tried to "
    "allocate 2.00 GiB",
    "[TP0] load model error: OOM while allocating k/v buffers",
])
def test_lightllms_load_model_error_is_either_ledger(line):
    run = run_of(diag(line))
    assert run.kind == "UNDETERMINED" and set(run.candidates) == {"WEIGHTS", "KV_CAPACITY"}, (run.kind, run.candidates)


# --- a model read into host memory, then moved to the GPU whole (transformers' Trainer `model = model.to(device)`,
# `model.cuda()`): the weights placed again after the checkpoint's shards were loaded ------------------------------------

_SHARDS = "Loading checkpoint shards: 100%|##########| 2/2 [00:04<00:00,  2.20s/it]"
_TORCH_OOM = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 172.00 MiB (GPU 0; 23.65 GiB total capacity)"


@pytest.mark.parametrize("frames", [
    ['  File "/venv/lib/python3.8/site-packages/transformers/trainer.py", line 499, in __init__',
     "    self._move_model_to_device(model, args.device)",
     '  File "/venv/lib/python3.8/site-packages/transformers/trainer.py", line 741, in _move_model_to_device',
     "    model = model.to(device)"],
    ['  File "serve.py", line 30, in <module>',
     "    model = model.cuda()"],
    ['  File "app.py", line 12, in load',
     '    model = model.to("cuda:0")'],
])
def test_a_model_moved_to_the_gpu_after_its_shards_loaded_is_the_weights(frames):
    assert kind_of([_SHARDS, "Traceback (most recent call last):", *frames, _TORCH_OOM])[0] == "WEIGHTS"


# --- the engine's own wrapper that names its step, a few lines under an out-of-memory and its memory table (TGI's
# "Shard 0 failed to start"), is its verdict on that failure ------------------------------------------------------------

_TABLE = ["torch.cuda.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)",
          "Currently allocated     : 8.73 GiB",
          "Requested               : 157.53 MiB",
          "Device limit            : 9.78 GiB",
          "Free (according to CUDA): 17.31 MiB",
          "PyTorch limit (set by user-supplied memory fraction)",
          "                        : 17179869184.00 GiB",
          " rank=0"]


@pytest.mark.parametrize("verdict,kind", [
    (["2023-07-09T15:32:01.279858Z  INFO text_generation_launcher: Waiting for shard 0 to be ready...",
      "Error: ShardCannotStart",
      "2023-07-09T15:32:02.979796Z ERROR text_generation_launcher: Shard 0 failed to start"], "WEIGHTS"),
    (["2024-06-01T10:00:00.000000Z ERROR warmup{max_input_length=4095 max_prefill_tokens=4096}:warmup: "
      "text_generation_client: router/client/src/lib.rs:46: Server error: Method Warmup encountered an error."],
     "WARMUP"),
    (["[2024-12-13 01:47:34] Initialization failed. warmup error: Traceback (most recent call last):"], "WARMUP"),
])
def test_the_engines_wrapper_a_few_lines_under_the_failure_names_its_step(verdict, kind):
    assert kind_of([*_TABLE, *verdict])[0] == kind


# --- Ollama: a request answered ("| 200 |") after the runner said it had started is serving, so a compute buffer
# re-reserved after it failed while serving (its runner loads a model for a request, so only an answer after the start
# says the load was over) -------------------------------------------------------------------------------------------------

_OLLAMA_START = ['time=2025-04-03T19:22:10.114+02:00 level=INFO source=server.go:405 msg="starting llama server" '
                 'cmd="/usr/local/bin/ollama runner --model /m/blob --ctx-size 8192 --batch-size 512 --n-gpu-layers 49"',
                 "load_tensors:        CUDA0 model buffer size =  8148.38 MiB",
                 "llama_kv_cache_unified:      CUDA0 KV buffer size =  1536.00 MiB",
                 "llama_context:      CUDA0 compute buffer size =   696.00 MiB"]
_STARTED = 'time=2025-04-03T19:22:14.902+02:00 level=INFO source=server.go:619 msg="llama runner started in 4.74 seconds"'


@pytest.mark.parametrize("answered,oom", [
    ('[GIN] 2025/04/03 - 19:22:31 | 200 |  6.820163203s |       127.0.0.1 | POST     "/api/chat"',
     ["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1044.00 MiB on device 0: cudaMalloc failed: out of memory",
      "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 1094713344"]),
    ('[GIN] 2026/01/10 - 08:00:01 | 200 |  2.1s |  172.17.0.1 | POST     "/v1/chat/completions"',
     ["CUDA error: out of memory",
      "  current device: 0, in function alloc at //ml/backend/ggml/ggml/src/ggml-cuda/ggml-cuda.cu:442"]),
    ('[GIN] 2024/11/02 - 12:00:00 | 200 |    12.5s |       127.0.0.1 | POST     "/api/generate"',
     ["ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 2147483648"]),
])
def test_ollama_answering_after_its_runner_started_is_serving(answered, oom):
    assert kind_of([*_OLLAMA_START, _STARTED, answered, *oom])[0] == "RUNTIME"


def test_ollamas_load_that_fails_before_its_runner_started_is_not_serving():
    kind, _ = kind_of([*_OLLAMA_START, "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 2147483648",
                       '[GIN] 2025/04/03 - 19:22:31 | 500 |  6.8s |       127.0.0.1 | POST     "/api/chat"'])
    assert kind != "RUNTIME"


# --- LMDeploy's pool is cache_max_entry_count of the memory the weights left, less its runtime's own cache: where that
# share is small and no block came of it, the step is a larger share (review: 13) --------------------------------------


@pytest.mark.parametrize("setting", [
    "2025-01-21 16:30:02,882 - lmdeploy - INFO - async_engine.py:260 - input backend=pytorch, backend_config="
    "PytorchEngineConfig(dtype='auto', tp=1, session_len=32768, max_batch_size=128, cache_max_entry_count=0.05)",
    "$ lmdeploy serve api_server internlm/internlm2_5-7b-chat --backend pytorch --cache-max-entry-count 0.1",
    "2024-06-01 10:00:00,000 - lmdeploy - INFO - async_engine.py:200 - input backend=pytorch, backend_config="
    "PytorchEngineConfig(model_name='', tp=2, session_len=None, max_batch_size=128, cache_max_entry_count=0.2)",
])
def test_a_small_share_of_free_memory_for_lmdeploys_pool_is_raised(setting):
    run = run_of(diag("\n".join([setting,
                                 "2025-01-21 16:30:41,220 - lmdeploy - INFO - model_agent.py:117 - free_gpu_mem=2.91 "
                                 "GiB, cache_block_size=12.00 MiB",
                                 "RuntimeError: No enough gpu memory for kv cache."])))
    assert (run.kind, run.code) == ("KV_CAPACITY", "no-memory-for-kv-cache")
    assert "--cache-max-entry-count" in flags(run), flags(run)


def test_a_large_share_for_lmdeploys_pool_is_not_raised():
    run = run_of(diag("\n".join(["$ lmdeploy serve api_server m --backend pytorch --cache-max-entry-count 0.8",
                                 "RuntimeError: No enough gpu memory for kv cache."])))
    assert "--cache-max-entry-count" not in flags(run), flags(run)


# --- a Vulkan device takes the weights in pieces no larger than its largest single allocation: the piece that failed
# is not the weights' size, so no "they fit in the memory free, another process took it" (review: 16) ------------------

@pytest.mark.parametrize("size,free", [(4187242496, 16112), (2147483648, 7900), (4294967296, 23800)])
def test_a_vulkan_piece_that_failed_is_not_the_weights_size(size, free):
    run = run_of(diag("\n".join([
        f"llama_model_load_from_file_impl: using device Vulkan0 (AMD Radeon RX 7800 XT) - {free} MiB free",
        "load_tensors: offloaded 63/63 layers to GPU",
        f"ggml_vulkan: Device memory allocation of size {size} failed.",
        "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory",
        "llama_model_load: error loading model: unable to allocate Vulkan0 buffer"])))
    said = " ".join(a["why"] for a in run.advice)
    assert run.kind == "WEIGHTS" and "something else held the memory" not in said, said
    assert "one piece of the weights" in said, said


# --- a Chinese report's title with its tag in full-width brackets ("【求助】") is the report's, not a failure of a run of
# its own above the pasted log (review: 27) -------------------------------------------------------------------------------

@pytest.mark.parametrize("title", [
    "【求助】4090 上启动 Qwen2.5-32B 报显存不足",
    "【BUG】vllm 0.8.4 加载模型时 CUDA out of memory",
    "【问题】模型加载一半就 OOM 了",
])
def test_a_chinese_tagged_title_is_the_reports(title):
    rep = diag("\n".join([
        title, "", "启动命令：vllm serve /mnt/d/模型/Qwen2.5-32B-Instruct --max-model-len 4096", "",
        "INFO 04-22 20:15:10 [core.py:58] Initializing a V1 LLM engine (v0.8.4) with config: model='/m', "
        "max_seq_len=4096",
        "Loading safetensors checkpoint shards:  41% Completed | 7/17 [00:30<00:44,  4.41s/it]",
        "ERROR 04-22 20:15:44 [core.py:387]   File \"/v/vllm/model_executor/model_loader/loader.py\", line 455, in "
        "load_model",
        "ERROR 04-22 20:15:44 [core.py:387] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 270.00 MiB. "
        "GPU 0 has a total capacity of 23.99 GiB of which 0 bytes is free."]))
    assert len(rep.runs) == 1 and run_of(rep).kind == "WEIGHTS", [(r.kind, r.code) for r in rep.runs]


# --- ggml's assertion on a tensor's layout ("GGML_ASSERT(ggml_is_contiguously_allocated(K)) failed") is a named check,
# whatever words of allocation the function's name holds (review: 23) -----------------------------------------------------

@pytest.mark.parametrize("line", [
    "/src/llama.cpp/ggml/src/ggml-cuda/fattn-common.cuh:745: GGML_ASSERT(ggml_is_contiguously_allocated(K)) failed",
    "ggml/src/ggml-cuda/cpy.cu:310: GGML_ASSERT(ggml_is_contiguous(src0)) failed",
    "D:\\a\\llama.cpp\\ggml\\src\\ggml.c:2844: GGML_ASSERT(ggml_are_same_shape(a, b)) failed",
])
def test_ggmls_assertion_on_a_layout_is_not_memory(line):
    assert kind_of(["slot launch_slot_: id  0 | task 0 | processing task", line, "Aborted (core dumped)"]) == (
        "NOT_OOM", "ggml-assert")


# --- PyTorch's XPU allocator on Intel GPUs refusing one block past the device's single-allocation cap: memory, a
# buffer over the limit, even where its line is cut after the cap -----------------------------------------------------

@pytest.mark.parametrize("line", [
    "RuntimeError: Current platform can NOT allocate memory block with size larger than 4GB! Tried to allocate 40.00 "
    "GiB (GPU 0; 15.11 GiB total capacity; 10.03 GiB al",
    "RuntimeError: Current platform can NOT allocate memory block with size larger than 4GB! Tried to allocate 6.00 GiB "
    "(GPU 0; 15.11 GiB total capacity; 2.10 GiB already allocated)",
    "[rank0]: RuntimeError: Current platform can NOT allocate memory block with size larger than 4GB!",
])
def test_the_xpu_allocators_single_block_cap_is_a_buffer_over_the_limit(line):
    kind, code = kind_of(["Traceback (most recent call last):",
                          '  File "/ipex_llm/transformers/models/common.py", line 120, in forward', line])
    assert code == "buffer-exceeds-allocation-limit", (kind, code)


# --- ROCm's runtime that could not read the device's free memory (its debug lines before a traceback cut short): the
# query failed, not memory used up ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    [":1:rocdevice.cpp            :1824: 3852921762 us: [pid:9     tid:0x7fcd5fa0c4c0] HSA_AMD_AGENT_INFO_MEMORY_AVAIL "
     "query failed.",
     ":3:hip_memory.cpp           :777 : 3852921767 us: [pid:9     tid:0x7fcd5fa0c4c0] hipMemGetInfo: Returned "
     "hipErrorInvalidValue :"],
    [":3:hip_memory.cpp           :777 : 12 us: [pid:42    tid:0x7f00] hipMemGetInfo: Returned hipErrorNotInitialized :"],
    [":1:rocdevice.cpp            :1900: 77 us: [pid:7     tid:0x7e] HSA_AMD_AGENT_INFO_MEMORY_AVAIL query failed."],
])
def test_rocms_free_memory_query_that_failed_is_not_memory(lines):
    kind, code = kind_of([*lines, "Traceback (most recent call last):",
                          '  File "/app/vllm_example.py", line 11, in <module>',
                          '    llm = LLM(model="facebook/opt-125m")'])
    assert (kind, code) == ("NOT_OOM", "device-memory-query-failed")


# --- MUSA (Moore Threads' CUDA-compatible runtime) errors as ggml's CUDA back end built for it prints them: read as
# CUDA's, not memory unless they say so ---------------------------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["# Eval bug: MUSA error: operation not supported", "", "ggml_cuda_init: found 8 MUSA devices:",
     "  Device 0: MTT S4000, compute ca"],
    ["MUSA error: invalid device function", "  current device: 0, in function ggml_cuda_op_mul_mat at "
     "/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:1530"],
    ["ggml_cuda_compute_forward: ADD failed", "MUSA error: invalid argument"],
])
def test_musa_errors_are_read_as_cudas(lines):
    assert kind_of(lines) == ("NOT_OOM", "cuda-error")


def test_musa_out_of_memory_is_memory():
    kind, _ = kind_of(["MUSA error: out of memory", "  current device: 0, in function alloc at ggml-cuda.cu:442"])
    assert kind != "NOT_OOM"


# --- cuBLAS's "unsupported value or parameter" (CUBLAS_STATUS_INVALID_VALUE in words) under ggml's "CUDA error:": a
# call given a bad argument, not memory; also as the report's title over a log cut before it ------------------------------

@pytest.mark.parametrize("lines", [
    ["# Eval bug: CUDA error: unsupported value or parameter in cublasSgemm_v2 during large context processing", "",
     "0.41.093.122 I slot launch_slot_: id  0 | task 0 | processing task", "0.41."],
    ["CUDA error: unsupported value or parameter in cublasGemmBatchedEx",
     "  current device: 0, in function ggml_cuda_mul_mat_batched_cublas at ggml-cuda.cu:1922"],
    ["/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:88: CUDA error: unsupported value or parameter in cublasSgemm_v2"],
])
def test_cublas_unsupported_value_is_a_cuda_error(lines):
    assert kind_of(lines) == ("NOT_OOM", "cuda-error")


# --- Windows' STATUS_ACCESS_DENIED as a process's exit status: a named cause (access refused), not memory; and a library
# that could not be loaded says so in words -------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    'time=2024-06-12T10:00:00.000+08:00 level=ERROR source=sched.go:344 msg="error loading llama server" '
    'error="llama runner process has terminated: exit status 0xc0000022 "',
    "Error: llama runner process has terminated: exit status 0xc0000022",
    "koboldcpp exited with return code -1073741790",
])
def test_windows_access_denied_is_named(line):
    assert kind_of([line]) == ("NOT_OOM", "access-denied")


def test_a_library_that_could_not_be_loaded_says_so():
    run = run_of(diag("Error: llama runner process has terminated: exit status 0xc0000135"))
    assert run.code == "library-load-failed" and "library" in run.message, run.message
