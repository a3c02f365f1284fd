"""`vramdoctor logs` on the kinds of fault the held-out rounds 73-74 (issue 6, stop 23) found, each with logs of our
own in other engines, versions and wordings (none of the held-out logs' own lines). The engines' lines follow their
sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, flags, run_of

# --- an assertion on a switch (a setting's name: disable_*, enable_*, use_*) is about a feature, not memory, even
# where the switch's name holds a memory word ("cache") -------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ['  File "/sgl-workspace/sglang/python/sglang/srt/layers/attention/triton_backend.py", line 410, in forward_extend',
     "    assert not self.server_args.enable_hierarchical_cache", "AssertionError"],
    ['  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2210, in _dummy_run',
     "    assert self.use_cuda_graph and not self.model_config.enforce_eager", "AssertionError"],
    ["(EngineCore_DP0 pid=311) ERROR 03-02 10:00:04 [core.py:708]   File \"/opt/vllm/vllm/v1/attention/backends/"
     "mla/common.py\", line 902, in __init__",
     "(EngineCore_DP0 pid=311) ERROR 03-02 10:00:04 [core.py:708]     assert not vllm_config.cache_config."
     "enable_prefix_caching",
     "(EngineCore_DP0 pid=311) ERROR 03-02 10:00:04 [core.py:708] AssertionError"],
])
def test_an_assertion_on_a_switch_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "assertion-failed"), (run.kind, run.code)


@pytest.mark.parametrize("cond", ["self.token_to_kv_pool_allocator.available_size() >= need",
                                  "num_free_blocks > 0 or not self.enable_caching"])
def test_an_assertion_on_memory_beside_a_switch_is_no_verdict_of_not_memory(cond):
    run = run_of(diag("\n".join(['  File "/opt/sglang/srt/managers/scheduler.py", line 1310, in get_new_batch_prefill',
                                 f"    assert {cond}", "AssertionError"])))
    assert run.code != "assertion-failed", run.code


# --- a path the code does not have: Python's NotImplementedError, AttributeError, KeyError ... named by the report's
# words as what the run crashed with, or a traceback's last line alone ------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["INFO 06-02 10:00:00 [api_server.py:1043] vLLM API server version 0.9.2",
     "After upgrading to 0.9.2 the engine crashes with AttributeError as soon as the LoRA adapter is loaded."],
    ["2025-03-01 10:00:00,000 - lmdeploy - INFO - Build <TurboMind> model", "",
     "TurboMind fails to start because `InternLM3ForCausalLM` does not implement `get_input_embeddings`, so the "
     "vision tower cannot be attached."],
    ["Title: mlx_lm.server throws `TypeError` when a request carries tools", "",
     "mlx_lm.server --model mlx-community/Qwen3-8B-4bit --port 8080",
     "2025-05-01 10:00:01,000 - INFO - Starting httpd at 127.0.0.1 on port 8080..."],
    ['  File "/usr/src/server/text_generation_server/models/flash_causal_lm.py", line 1201, in warmup',
     "    raise NotImplementedError", "NotImplementedError"],
    ["[2025-07-01 10:00:00 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=60.11 GB",
     "The scheduler dies with a KeyError from the radix cache when a second request shares the prefix."],
])
def test_a_path_the_code_does_not_have_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "code-error"), (run.kind, run.code)


@pytest.mark.parametrize("said", [
    "It crashes with CUDA out of memory now, not with the AttributeError I had on 0.8.",
    "The class has no attribute `hot_token_id`, which the code checks for, and then it runs out of memory.",
])
def test_a_code_error_beside_an_out_of_memory_is_no_verdict_of_not_memory(said):
    run = run_of(diag("\n".join(["INFO 06-02 10:00:00 [api_server.py:1043] vLLM API server version 0.9.2", said])))
    assert run.code != "code-error", run.code


# --- a data type or kernel this GPU does not have (bfloat16 or fp8 below their compute capability, a kernel built for
# newer GPUs) -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["INFO 01-10 10:00:00 llm_engine.py:161] Initializing an LLM engine (v0.5.4) with config: model='Qwen/Qwen2-7B'",
     "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has "
     "compute capability 7.5. You can use float16 instead by explicitly setting the `dtype` flag in CLI, for example: "
     "--dtype=half."],
    ['  File "/usr/local/lib/python3.10/dist-packages/flash_attn/flash_attn_interface.py", line 90, in _flash_attn_forward',
     "RuntimeError: FlashAttention only supports Ampere GPUs or newer."],
    ["(EngineCore_DP0 pid=77) ERROR 02-01 10:00:03 [core.py:708] ValueError: The quantization method fp8 is not "
     "supported for the current GPU. Minimum capability: 80. Current capability: 75."],
    ["Title: [Bug] SGLang 0.4.6 on V100: type fp8e5 not supported in this architecture", "",
     "[2025-05-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B-FP8', tp_size=1)",
     "[2025-05-01 10:00:31] Rank 0 scheduler is dead. Please check if there are relevant logs."],
])
def test_a_type_or_kernel_this_gpu_lacks_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "gpu-unsupported"), (run.kind, run.code)


# --- a phase, stage or step the report names by its step, in markdown or quotes ------------------------------------

_VLLM_START = ["INFO 06-02 10:00:00 [api_server.py:1043] vLLM API server version 0.9.2",
               "INFO 06-02 10:00:02 [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: model='m'"]


@pytest.mark.parametrize("said, kind", [
    ("OOM right when it gets into the **load weight** step.", "WEIGHTS"),
    ("Dies with OOM at the `weights load` stage.", "WEIGHTS"),
    ("It runs out of memory at the weight loading stage with TP=4.", "WEIGHTS"),
    ("Crash with CUDA OOM during the `cuda graph capture` phase.", "WARMUP"),
    ("The server OOMs in the _warm-up_ step, every time.", "WARMUP"),
])
def test_a_step_named_as_a_phase_places_the_out_of_memory(said, kind):
    run = run_of(diag("\n".join([*_VLLM_START, said])))
    assert run.kind == kind, (run.kind, run.code, run.phase_source)


def test_a_step_before_the_phase_it_names_does_not_place_it():
    run = run_of(diag("\n".join([*_VLLM_START, "OOM before it ever reaches the weight loading stage."])))
    assert run.kind != "WEIGHTS", (run.kind, run.code)


# --- vLLM's speculative decoding loads its drafter's weights after the target's (gpu_model_runner.py load_model logs
# "Loading drafter model..." and then calls drafter.load_model): a failure under way there is the weights -----------


@pytest.mark.parametrize("lines", [
    ["(EngineCore_DP0 pid=88) INFO 09-01 10:00:05 [default_loader.py:267] Loading weights took 5.20 seconds",
     "(EngineCore_DP0 pid=88) INFO 09-01 10:00:05 [gpu_model_runner.py:2338] Loading drafter model...",
     "(EngineCore_DP0 pid=88) ERROR 09-01 10:00:07 [core.py:708] torch.OutOfMemoryError: CUDA out of memory. Tried to "
     "allocate 340.00 MiB. GPU 0 has a total capacity of 23.55 GiB of which 224.00 MiB is free."],
    ["(Worker_TP1 pid=410) INFO 11-20 08:00:01 [gpu_model_runner.py:3011] Loading drafter model...",
     "Nov 20 08:00:04 node2 kernel: NVRM: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) returned from _memdescAllocInternal"],
    ["INFO 05-10 10:00:00 [model_runner_v1.py:2044] Loading drafter model...",
     "ERROR 05-10 10:00:02 [core.py:700] RuntimeError: NPU out of memory. Tried to allocate 1.20 GiB (NPU 0; 60.96 GiB "
     "total capacity; 59.10 GiB already allocated; 0 bytes free)"],
])
def test_an_out_of_memory_loading_vllms_drafter_is_the_weights(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


# --- host memory killed the process while, in the report's words, it loaded ("mid-load", "during loading", the
# checkpoint's progress bar stopped): the weights pass through host RAM on their way to the GPU ----------------------


@pytest.mark.parametrize("lines", [
    ["INFO 10-01 10:00:00 [api_server.py:1043] vLLM API server version 0.11.0",
     "The Ray workers get killed mid-load, somewhere around shard 30 of 64.",
     "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory."],
    ["It happens during loading, never once the server is up.",
     "    Last State:     Terminated", "      Reason:       OOMKilled", "      Exit Code:    137"],
    ["The `Loading safetensors checkpoint shards` bar stalls at 60% and then the process is gone.",
     "[Tue Oct  7 10:00:00 2025] Out of memory: Killed process 4121 (python3) total-vm:190000000kB, "
     "anon-rss:120000000kB"],
])
def test_a_host_kill_the_report_places_while_loading_is_the_weights(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


def test_a_host_kill_while_loading_an_adapter_is_not_the_weights():
    run = run_of(diag("\n".join(["The pod is OOMKilled during loading the LoRA adapter for a request.",
                                 "      Reason:       OOMKilled", "      Exit Code:    137"])))
    assert run.kind != "WEIGHTS", (run.kind, run.code)


# --- a step the report's Chinese words say was passed: the model loaded (模型加载完成之后), the server started
# (启动成功后, 服务起来之后): a floor for the out-of-memory it names --------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["Title: [Bug]: Qwen3-32B 在 A100 上启动成功后 CUDA out of memory"],
    ["INFO 04-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
     "服务起来之后用 8 并发压测，跑了十分钟就 OOM 了"],
    ["Title: [Usage]: sglang 0.4.8 服务启动完成以后 OOM", "", "[2025-06-01 10:00:00] server_args=ServerArgs(tp_size=2)"],
])
def test_chinese_words_that_the_server_had_started_place_the_oom_while_serving(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


def test_chinese_words_that_the_model_had_loaded_rule_out_the_weights():
    run = run_of(diag("\n".join(["INFO 04-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
                                 "模型加载完成之后报 CUDA out of memory，显卡是 4090。"])))
    assert run.kind != "WEIGHTS" and "WEIGHTS" not in run.candidates, (run.kind, run.candidates)


@pytest.mark.parametrize("said", ["服务没有启动成功，直接 OOM 了", "模型无法加载成功，报 CUDA out of memory"])
def test_chinese_words_that_the_step_did_not_pass_are_no_floor(said):
    run = run_of(diag("\n".join(["INFO 04-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5", said])))
    assert run.kind != "RUNTIME", (run.kind, run.code)


# --- a warm-up pass named in the report's words, with a word before it ("during the post-load warmup pass", "in
# the initial warm-up step") ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("said", [
    "Loading the 27B model fails with `ErrorOutOfDeviceMemory` during the initial warmup pass.",
    "When loading a model it dies with `ErrorOutOfDeviceMemory` in the first warm-up pass.",
])
def test_a_warm_up_pass_the_report_names_is_the_warm_up(said):
    estimate = ["Estimate:", "```", "estimatedModelVramUsageBytes:   14.10 GiB",
                "estimatedContextVramUsageBytes: 9.02 GiB", "estimatedUsageBytes (total):    23.12 GiB",
                "Total VRAM heap:                23.98 GiB", "```", "What happens:"]
    run = run_of(diag("\n".join([said, "", *estimate, "```",
                                 "ggml_vulkan: Device memory allocation of size 1073741824 failed.",
                                 "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory", "```"])))
    assert run.kind == "WARMUP", (run.kind, run.code, run.phase_source)


# --- a generation under way: transformers' warning from inside generate(), a request by its size in Chinese ----------


@pytest.mark.parametrize("lines", [
    ["经过测试，日志如下：",
     "This is a friendly reminder - the current text generation call will exceed the model's predefined maximum "
     "length (4096). Depending on the model, you may observe exceptions, performance degradation, or nothing at all.",
     "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB"],
    ["Title: [BUG] 显存溢出", "", "测试发现只要请求了一条 12000 tokens 的输入，显存就满了，然后报 CUDA out of memory"],
])
def test_a_generation_under_way_is_serving(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


# --- advice in the engine's own settings: Ollama's user cannot pass llama-server's --no-context-shift ---------------


def test_a_k_shift_under_ollama_is_told_in_ollamas_settings():
    rep = diag("\n".join([
        'time=2025-03-01T10:00:00.000Z level=INFO source=server.go:405 msg="starting llama server" cmd="/usr/bin/ollama '
        'runner --model /root/.ollama/models/blobs/sha256-6e4c --ctx-size 8192 --batch-size 512 --n-gpu-layers 62"',
        "llama.cpp/src/llama-context.cpp:1067: The current context does not support K-shift"]))
    run = run_of(rep)
    assert (run.kind, run.code) == ("NOT_OOM", "k-shift-unsupported"), (run.kind, run.code)
    assert "--no-context-shift" not in run.message and "num_ctx" in run.message, run.message


def test_a_k_shift_under_llama_server_is_told_in_its_flags():
    run = run_of(diag("\n".join(["main: build = 4735 (73e2ed3c)", "srv  load_model: loading model 'ds-lite.gguf'",
                                 "llama-context.cpp:1067: The current context does not support K-shift"])))
    assert "--no-context-shift" in run.message, run.message


# --- a report's words that the model did not fit in the GPU's memory: the weights -----------------------------------


@pytest.mark.parametrize("lines", [
    ["11:02AM ERR [llama-cpp] Failed loading model, error: could not load model: rpc error: code = Unavailable desc = "
     "error reading from server: EOF", "", "It fails whenever the model cannot fit into the GPU VRAM."],
    ['time=2025-02-01T10:00:00.000Z level=INFO source=server.go:405 msg="starting llama server"',
     "The 70B does not fit into my VRAM, so loading fails every time."],
    ["Loading model: Mistral-Large-Q4_K_M.gguf", "The model is too big for my card and koboldcpp crashes while loading."],
])
def test_words_that_the_model_did_not_fit_in_the_gpus_memory_are_the_weights(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("said", ["The model should fit in VRAM, but requests fail with a 500.",
                                  "Will a 13B model not fit in 12 GB of VRAM?",
                                  "The model loads fine; it does fit in VRAM with room to spare."])
def test_words_that_the_model_fits_or_may_not_are_no_verdict(said):
    run = run_of(diag("\n".join(["Loading model: Mistral-Large-Q4_K_M.gguf", said])))
    assert run.kind != "WEIGHTS", (run.kind, run.code)


# --- a cache that grows past any bound, in the report's words: a leak (not a KV cache growing with its context) ------


@pytest.mark.parametrize("said", ["The radix cache grows without limit until the server is OOM-killed.",
                                  "Memory grows without bound until the pod is killed.",
                                  "Our host cache grows indefinitely when hierarchical caching is on, then it crashes."])
def test_a_cache_growing_past_any_bound_is_a_leak(said):
    run = run_of(diag("\n".join(["[2025-09-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B')", said])))
    assert run.kind == "LEAK", (run.kind, run.code)


def test_a_kv_cache_growing_with_its_context_is_no_leak():
    run = run_of(diag("\n".join(["[2025-09-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B')",
                                 "The KV cache grows with the context, as expected, and nothing fails."])))
    assert run.kind != "LEAK", (run.kind, run.code)


# --- Metal's shader library that did not compile for this GPU: the context it then "failed to allocate" never reached
# memory --------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ['ggml_metal_init: error: Error Domain=MTLLibraryErrorDomain Code=3 "program_source:4021:9: error: use of '
     "undeclared identifier 'simdgroup_bfloat8x8'\"",
     "llama_new_context_with_model: failed to initialize Metal backend",
     "ggml_backend_metal_device_init: error: failed to allocate context"],
    ["ggml_metal_init: error: failed to compile pipeline: name = kernel_mul_mm_bf16_f32",
     "ggml_backend_metal_device_init: error: failed to allocate context",
     "llama_init_from_model: failed to initialize the context: failed to initialize Metal backend"],
])
def test_a_metal_library_that_did_not_build_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "kernel-build-failed"), (run.kind, run.code)


# --- the KV cache named in the report's words as being allocated or as what did not fit -----------------------------


@pytest.mark.parametrize("lines", [
    ["llama_model_loader: loaded meta data with 38 key-value pairs and 377 tensors from qwen.gguf (version GGUF V3)",
     "Out of memory: the kv buffer allocation of 40 GB at the full 160K context fails; with -c 8192 it works."],
    ["[Mon Jun  2 10:00:00 2025] Out of memory: Killed process 311 (llama-server) total-vm:30000000kB",
     "With -c 131072 the KV cache by itself needs more than the 16 GB of RAM this box has."],
    ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB.",
     "It happens while allocating a key-value buffer of 20 GB for the 64K context."],
])
def test_the_kv_cache_named_as_what_did_not_fit_is_the_kv_cache(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code, run.phase_source)


def test_the_kubelets_system_oom_event_is_a_host_kill():
    run = run_of(diag("Warning  SystemOOM  node/gpu-3  System OOM encountered, victim process: llama-server, pid: 4121"))
    assert run.code == "host-oom-kill", (run.kind, run.code)


# --- a read of the model file whose target the kernel could not write (EFAULT, "Bad address"): not memory ----------


@pytest.mark.parametrize("lines", [
    ["load_tensors:      Vulkan0 model buffer size = 30503.16 MiB",
     "llama_model_load: error loading model: read error: Bad address",
     "llama_model_load_from_file_impl: failed to load model"],
    ['time=2026-01-05T10:00:00.000Z level=ERROR source=sched.go:455 msg="error loading llama server" '
     'error="llama runner process has terminated: error loading model: read error: Bad address"'],
    ['  File "/usr/lib/python3.12/site-packages/safetensors/torch.py", line 315, in load_file',
     "OSError: [Errno 14] Bad address"],
])
def test_a_read_into_a_buffer_that_failed_is_not_memory(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("NOT_OOM", "read-into-buffer-failed"), (run.kind, run.code)


# --- requests sent several at once, in the report's words: serving ------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["INFO 11-02 10:00:00 api_server.py:500] vLLM API server version 0.2.1",
     "When making multiple requests the Ray worker dies.",
     "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory."],
    ["After issuing 30 requests at once, the pod gets OOMKilled.",
     "      Reason:       OOMKilled", "      Exit Code:    137"],
    ["Title: CUDA out of memory when doing mutiple requests", "",
     "INFO 11-02 10:00:00 api_server.py:500] vLLM API server version 0.2.1"],
])
def test_requests_sent_several_at_once_are_serving(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


# --- the KV pool's exhaustion named in the report's words: serving -------------------------------------------------


@pytest.mark.parametrize("said", ["Title: Engine crashes on KV cache pool exhaustion under 64 concurrent requests",
                                  "The scheduler fails to allocate KV-pool pages for the new request and dies.",
                                  "It exhausts the KV pool after a burst of long prompts and then raises."])
def test_the_kv_pools_exhaustion_in_words_is_serving(said):
    run = run_of(diag("\n".join([said, "", "[2025-10-01 10:00:00] server_args=ServerArgs(model_path='m', tp_size=2)"])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


# --- a check on shapes in glog's and TurboMind's words ("Check failed: a_shape == b_shape"): not memory -------------


@pytest.mark.parametrize("line", [
    "[TM][FATAL] models/llama/LlamaBatch.cc(512): Check failed: input_shape.size() == 2 input ids must be 2-D",
    "F0312 10:00:00.000000 123 sampler.cc:88] Check failed: probs_dims[0] == batch_size (12 vs. 16)",
    "RuntimeError: logits and bitmask must have the same batch size",
])
def test_a_check_on_shapes_in_glogs_words_is_not_memory(line):
    run = run_of(diag(line))
    assert (run.kind, run.code) == ("NOT_OOM", "shape-mismatch"), (run.kind, run.code)


def test_a_check_on_a_buffers_size_is_left_to_the_words_around_it():
    run = run_of(diag("[TM][FATAL] core/allocator.h(231): Check failed: buffer_shape.first == need not enough space"))
    assert run.code != "shape-mismatch", run.code


# --- the weights' or a projector's buffers being allocated, in the report's words: the weights ---------------------


@pytest.mark.parametrize("said", ["llama-server dies on the mmproj allocation every time.",
                                  "It fails while allocating the model weights on the second GPU."])
def test_the_weights_or_a_projectors_allocation_in_words_is_the_weights(said):
    run = run_of(diag("\n".join([said, "", "Relevant log:", "```",
                                 "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1204.50 MiB on device 0: "
                                 "cudaMalloc failed: out of memory", "```"])))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


def test_a_title_that_is_the_failure_is_placed_by_the_body_below_it():
    filler = [f"- step {i}: open the app and pick a model" for i in range(1, 15)]
    run = run_of(diag("\n".join(["Title: Load returns a generic abort instead of CUDA OOM", "", *filler, "",
                                 "When another process holds most of the VRAM, the engine fails its first projector "
                                 "allocation and aborts.", "", "No log lines are shown by the app."])))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


# --- a quantized checkpoint the loader detected: fewer-bit weights are in use, so advice never proposes fp8 again -----


@pytest.mark.parametrize("lines", [
    ["INFO 03-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5",
     "WARNING 03-01 10:00:05 [fp8.py:65] Detected fp8 checkpoint. Please note that the format is experimental and "
     "subject to change.",
     "ERROR 03-01 10:00:09 [core.py:390] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 "
     "has a total capacity of 79.19 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has "
     "78.16 GiB memory in use.", "Loading safetensors checkpoint shards:  40% Completed | 4/10"],
    ["[2025-08-01 10:00:00] Load weight begin. avail mem=78.20 GB",
     "[2025-08-01 10:00:01] Detected fp8 checkpoint. Please note that the format is experimental and subject to change.",
     "[2025-08-01 10:00:30] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
     "2.00 GiB."],
])
def test_a_detected_fp8_checkpoint_is_not_advised_fp8_again(lines):
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "WEIGHTS", (run.kind, run.code)
    assert "fp8" not in flags(run).lower(), flags(run)


# --- requests by their size, several of them; inference in the words many write ("when inference") ------------------


@pytest.mark.parametrize("said", [
    "Requests of 8k tokens are fine, but requests of 12k tokens crash it with CUDA out of memory.",
    "It hits CUDA out of memory when inference runs on long documents.",
])
def test_requests_by_size_or_when_inference_are_serving(said):
    run = run_of(diag("\n".join(["INFO 08-01 10:00:00 api_server.py:212] vLLM API server version 0.5.4", said])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


# --- a memory use that is abnormal, in Chinese, is no failure (出现了显存占用双倍异常: used, not failed) ---------------


@pytest.mark.parametrize("said, failed", [
    ("部署之后出现了显存使用翻倍异常的情况，想知道原因。", False),
    ("启动时出现了 CUDA 错误，然后进程退出。", True),
])
def test_an_abnormal_memory_use_in_chinese_is_no_failure(said, failed):
    run = run_of(diag("\n".join(["INFO 03-01 10:00:00 api_server.py:212] vLLM API server version 0.3.0", said])))
    assert (run.code == "failure-cause-not-shown") == failed, (run.kind, run.code)


# --- ggml's CUDA back end that could not start the runtime: not memory ---------------------------------------------


@pytest.mark.parametrize("line", [
    "ggml_cuda_init: failed to initialize CUDA: unknown error",
    "ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected",
])
def test_ggmls_cuda_that_could_not_start_is_not_memory(line):
    run = run_of(diag("\n".join(["main: build = 2861 (e5ac1c0b)", line, "llm_load_tensors: CPU buffer size = 4165.37 MiB"])))
    assert (run.kind, run.code) == ("NOT_OOM", "cuda-driver-error"), (run.kind, run.code)


# --- a process that grew to a size over a long span of work the same line names: growth ----------------------------


@pytest.mark.parametrize("said", [
    "Left it running over the weekend; after 4000 requests the server grew to 38 GB RAM and the box started swapping.",
    "Over 3 days the runner grew to 40 GB of memory and was killed.",
])
def test_a_process_grown_to_a_size_over_a_long_span_is_growth(said):
    run = run_of(diag(said))
    assert run.kind == "LEAK", (run.kind, run.code)


@pytest.mark.parametrize("said", ["It grew to 20 GB memory.",
                                  "While loading the model over 2 hours, the process grew to 20 GB RAM, then it served "
                                  "fine."])
def test_a_size_grown_to_without_a_span_or_while_loading_is_no_leak(said):
    run = run_of(diag(said))
    assert run.kind != "LEAK", (run.kind, run.code)


# --- Go's exec error of a child killed ("llama.go:451: signal: killed"): a SIGKILL whose sender is not named ----------


# (Go's "signal: killed" with Ollama 0.1's "llama runner stopped successfully" on the next line is Ollama's own kill of
# its runner, llm/llama.go Close: tests/test_logs_round523.py since stop 53)
@pytest.mark.parametrize("lines", [
    ["2024/01/05 10:00:00 routes.go:85: loading llama server", "signal: killed"],
])
def test_gos_signal_killed_is_a_sigkill(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "host-oom-kill"), (run.kind, run.code)


# --- a crash reported without its cause ("crashed without additional information. (Exit code: 6)"): undetermined ---


@pytest.mark.parametrize("line", [
    "Error: `The model has crashed without additional information. (Exit code: 18446744072635812000)`",
    "[ERROR] llama runner terminated with no error message (exit code: 2)",
])
def test_a_crash_reported_without_its_cause_is_undetermined(line):
    run = run_of(diag("\n".join(["Title: model crashes on the first message", "", line, "",
                                 "Steps: load it, send hi, it crashes. Reproducible on 0.3.23."])))
    assert (run.kind, run.code) == ("UNDETERMINED", "failure-cause-not-shown"), (run.kind, run.code)


# --- a crash the same words say followed an allocation that failed for lack of memory: memory ran out first ----------


@pytest.mark.parametrize("line", [
    "Title: llama-server segfaults when the compute buffer allocation fails under VRAM pressure",
    "Title: Segmentation fault after cudaMalloc fails due to memory pressure with two models loaded",
])
def test_a_crash_after_an_allocation_that_failed_for_memory_is_out_of_memory(line):
    run = run_of(diag("\n".join([line, "", "main: build = 5120 (aa1b2c3d)", "Segmentation fault (core dumped)"])))
    assert run.code == "crash-after-alloc-failed" and run.kind != "NOT_OOM", (run.kind, run.code)


# --- a margin to an out-of-memory is not one ("about 200 MiB from VRAM OOM", "far from OOM") ------------------------


@pytest.mark.parametrize("said", ["max_seq_len: 16384 (about 1.5 GB from OOM on this card, far from it at 4.0bpw)",
                                  "At 8k context we are well away from OOM, yet the server hangs."])
def test_a_margin_to_an_out_of_memory_is_not_one(said):
    run = run_of(diag("\n".join(["INFO:     ExllamaV2 version: 0.2.3", "INFO:     Model successfully loaded.", said])))
    assert run.kind not in ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME") and run.code != "oom-phase-not-shown", \
        (run.kind, run.code)


def test_a_margin_then_an_out_of_memory_is_still_one():
    run = run_of(diag("\n".join(["INFO:     ExllamaV2 version: 0.2.3", "INFO:     Model successfully loaded.",
                                 "It ran 2 GB from OOM for an hour. Then it crashed with CUDA out of memory."])))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- text-generation-webui's advice names each loader's own setting (n_batch is the llama.cpp loaders' only) ---------


def test_text_generation_webuis_advice_names_the_loader_a_setting_belongs_to():
    run = run_of(diag("\n".join([
        "python server.py --model TheBloke_Llama-2-13B-GPTQ --api",
        "INFO:Loading TheBloke_Llama-2-13B-GPTQ...", "INFO:Loaded the model in 12.04 seconds.",
        "Output generated in 4.12 seconds (10.2 tokens/s, 42 tokens, context 812, seed 1)",
        'File "/w/text-generation-webui/modules/text_generation.py", line 352, in generate_reply_HF',
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.10 GiB"])))
    assert run.kind == "RUNTIME", (run.kind, run.code)
    assert "truncation_length" in flags(run) and "llama.cpp loaders" in flags(run), flags(run)


# --- LoRAX, TGI's fork, kept the launcher's --max-input-length -------------------------------------------------------


def test_loraxs_warm_up_advice_uses_its_own_input_flag():
    run = run_of(diag("\n".join([
        "2024-05-02T10:00:00.000000Z  INFO lorax_launcher: Starting download process.",
        "2024-05-02T10:00:40.000000Z ERROR warmup{max_input_length=4096 max_prefill_tokens=4096 max_total_tokens=8192}:"
        "warmup: lorax_client: router/client/src/lib.rs:34: Server error: Not enough memory to handle 4096 prefill "
        "tokens. You need to decrease `--max-batch-prefill-tokens`"])))
    assert run.kind == "WARMUP", (run.kind, run.code)
    assert "--max-input-length" in flags(run) and "--max-input-tokens" not in flags(run), flags(run)


# --- one request larger than the whole cache while serving: a larger cache or a shorter cap, not fewer sequences -----


def test_a_job_larger_than_the_whole_exllamav2_cache_is_told_a_larger_cache():
    run = run_of(diag("\n".join([
        "INFO:     Loading model: /models/Qwen2.5-32B-exl2", "INFO:     Model successfully loaded.",
        "ERROR:    Exception in ASGI application",
        "AssertionError: Job requires 65 pages (only 64 available) and cannot be enqueued. Total cache allocated is "
        "64 * 256 = 16384 tokens"])))
    assert run.code == "max-model-len-exceeds-kv-cache", (run.kind, run.code)
    text = " | ".join(f"{a['change']}: {a['flags']} {a['why']}" for a in run.advice)
    assert "cache_size at least" in text and "max_batch_size" not in text and "chunk_size" not in text, text


# --- llama-server's -c as given, not a slot's share of it, is what "more cells" moves from ---------------------------


def test_more_cells_moves_from_the_whole_c_not_a_slots_share():
    run = run_of(diag("\n".join([
        "./llama-server -m qwen.gguf --ctx-size 16384 --parallel 4 -ngl 99",
        "slot update_slots: id  2 | task 91 | input truncated, n_ctx = 4096, n_keep = 0, n_left = 4096, "
        "n_prompt_tokens = 3900",
        "srv  update_slots: failed to find free space in the KV cache, retrying with smaller batch size - try "
        "increasing it via the context size or enable defragmentation, i = 0, n_batch = 512, ret = 1"])))
    assert "higher than 16,384" in flags(run), flags(run)


# --- the NVIDIA driver's NV_ERR_NO_MEMORY in a user's words; a prefill by its size is serving ----------------------


def test_nv_err_no_memory_in_a_users_words_is_out_of_memory():
    run = run_of(diag("\n".join(["INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.21.0",
                                 "dmesg shows 4 new `NV_ERR_NO_MEMORY` messages, then the box froze."])))
    assert run.oom and run.kind != "NONE", (run.kind, run.code)


@pytest.mark.parametrize("said", ["The head node resets during a 96K-token Qwen3 prefill, with CUDA out of memory.",
                                  "CUDA out of memory in the 200k-token prefill of the second request."])
def test_a_prefill_by_its_size_is_serving(said):
    run = run_of(diag("\n".join(["INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.21.0", said])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


# --- SGLang's idle leak check stopping the scheduler: its bookkeeping, not memory (in other versions' wordings) -------


@pytest.mark.parametrize("lines", [
    ["[2026-02-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
     "  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2210, in check_memory",
     "    raise ValueError(msg)",
     "ValueError: token_to_kv_pool_allocator memory leak detected! self.max_total_num_tokens=500000, "
     "available_size=1200, evictable_size=498600, protected_size=0"],
    ["[2025-11-03 08:12:40 DP0 TP0] Scheduler hit an exception: ValueError: token_to_kv_pool_allocator memory leak "
     "detected! available_size=10, evictable_size=20, max_total_num_tokens=100"],
])
def test_sglangs_leak_check_stopping_the_scheduler_is_not_memory_running_out(lines):
    # (every count given and fewer than the pool: slots lost, a leak of the pool's slots, never an out of memory; the
    # fix is the engine's, stop 28)
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("LEAK", "kv-slots-not-returned"), (run.kind, run.code)
    assert "upgrade" in run.message.lower(), run.message


# --- round 81's kinds: TensorRT-LLM's assertions not on memory; C++'s length_error; a recurrent-state pool out of
# blocks; a pool that grows or ratchets up; a failed model load whose own line says out of memory; a program's absolute
# path with its options is a command ----------------------------------------------------------------------------------


def test_trtllms_assertion_not_on_memory_is_not_memory():
    run = run_of(diag("\n".join([
        "terminate called after throwing an instance of 'tensorrt_llm::common::TllmException'",
        "  what():  [TensorRT-LLM][ERROR] Assertion failed: hidden_size % (tp_size * 8) == 0 "
        "(/src/cpp/tensorrt_llm/kernels/customAllReduceKernels.cu:401)"])))
    assert (run.kind, run.code) == ("NOT_OOM", "assertion-failed"), (run.kind, run.code)


def test_trtllms_assertion_on_its_blocks_is_left_to_memory():
    run = run_of(diag("[TensorRT-LLM][ERROR] Assertion failed: numFreeBlocks >= neededBlocks (kvCacheManager.cpp:880)"))
    assert run.code != "assertion-failed", run.code


@pytest.mark.parametrize("line", ["[E] Error in executor loop: vector::_M_realloc_insert",
                                  "terminate called after throwing an instance of 'std::length_error'\n"
                                  "  what():  cannot create std::vector larger than max_size()"])
def test_a_containers_length_error_is_not_memory(line):
    run = run_of(diag(line))
    assert (run.kind, run.code) == ("NOT_OOM", "code-error"), (run.kind, run.code)


def test_a_recurrent_state_pool_out_of_blocks_is_serving():
    run = run_of(diag("RuntimeError: Executor loop failed: run out of mamba cache slots for request 1422"))
    assert (run.kind, run.code) == ("RUNTIME", "mamba-pool-exhausted"), (run.kind, run.code)


@pytest.mark.parametrize("said", ["The block pool grows without limit while the benchmark runs.",
                                  "Resident memory ratchets up across requests and is never reclaimed."])
def test_a_pool_that_grows_or_ratchets_up_is_growth(said):
    run = run_of(diag(said))
    assert run.kind == "LEAK", (run.kind, run.code)


def test_a_failed_model_load_whose_own_line_says_out_of_memory_is_the_weights():
    run = run_of(diag("\n".join(["2025-10-01 10:00:00 - tts.server - INFO - Starting server",
                                 "2025-10-01 10:00:02 - tts.server - CRITICAL - Failed to load model: CUDA error: out "
                                 "of memory"])))
    assert run.kind == "WEIGHTS", (run.kind, run.code, run.phase_source)


def test_a_programs_absolute_path_with_options_is_a_command_not_a_step():
    run = run_of(diag("\n".join(["It still results in an OOM.", "",
                                 "/opt/bin/llama-box_v0.0.99 --ctx-size 8192 --no-warmup --gpu-layers 40"])))
    assert run.kind != "WARMUP", (run.kind, run.code, run.phase_source)


# --- NCCL's buffers made while serving (a pair of ranks first talking in an expert rebalance): serving, not warm-up ---


def test_an_nccl_out_of_memory_under_serving_frames_is_serving():
    run = run_of(diag("\n".join([
        "node-3:2211:9001 [2] include/alloc.h:228 NCCL WARN Cuda failure 2 'out of memory'",
        "node-3:2211:9001 [2] NCCL INFO transport/p2p.cc:217 -> 1",
        "(EngineCore_DP2 pid=2211) ERROR 10-01 10:00:04 [core.py:710] Traceback (most recent call last):",
        '(EngineCore_DP2 pid=2211)   File "/vllm/v1/engine/core.py", line 701, in run_busy_loop',
        '(EngineCore_DP2 pid=2211)   File "/vllm/v1/worker/gpu_model_runner.py", line 2301, in execute_model',
        '(EngineCore_DP2 pid=2211)   File "/vllm/v1/worker/gpu_model_runner.py", line 1733, in eplb_step',
        "(EngineCore_DP2 pid=2211) torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:3356"])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)
    assert run.advice[0]["setting"] == "memory_fraction" and run.advice[0]["direction"] == "down", run.advice[0]


def test_an_nccl_out_of_memory_under_start_up_frames_stays_the_warm_up():
    run = run_of(diag("\n".join([
        "node-3:2211:9001 [2] include/alloc.h:228 NCCL WARN Cuda failure 2 'out of memory'",
        '  File "/vllm/v1/worker/gpu_model_runner.py", line 2900, in capture_model',
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:3356"])))
    assert run.kind == "WARMUP", (run.kind, run.code, run.phase_source)


# --- a Python client's call to the server's generate or completions endpoint: serving -------------------------------


@pytest.mark.parametrize("call", [
    ['r = httpx.post("http://127.0.0.1:8000/v1/completions", json={"prompt": p, "max_tokens": 64})'],
    ["resp = requests.post(", "    'http://gpu-box:30000/generate',", "    json={'text': long_prompt},", ")"],
])
def test_a_python_clients_call_to_the_server_is_serving(call):
    run = run_of(diag("\n".join(["Title: [Bug] CUDA OOM", "", "Reproduction:", "```py", *call, "```"])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


@pytest.mark.parametrize("said", ["GPU memory keeps on increasing with every chat, until the container restarts.",
                                  "The RSS kept on growing for the whole night."])
def test_memory_that_keeps_on_growing_is_growth(said):
    run = run_of(diag(said))
    assert run.kind == "LEAK", (run.kind, run.code)


@pytest.mark.parametrize("said", ["Following a couple of chat completions it throws CUDA out of memory.",
                                  "It runs out of memory after a few more requests."])
def test_a_few_requests_named_by_kind_are_serving(said):
    run = run_of(diag("\n".join(["2023-10-18T08:50:49Z INFO tabby::serve: Starting server", said])))
    assert run.kind == "RUNTIME", (run.kind, run.code, run.phase_source)


# --- a guess at an out-of-memory above a healthy log is no out-of-memory (a new user's review) ----------------------

_HEALTHY_VLLM = ["INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
                 "INFO 06-01 10:00:20 [gpu_model_runner.py:1595] Model loading took 14.99 GiB and 6.1 seconds",
                 "INFO 06-01 10:00:31 [kv_cache_utils.py:634] GPU KV cache size: 98,304 tokens",
                 "INFO:     Application startup complete."]


@pytest.mark.parametrize("said", ["It's probably an OOM.", "I believe it is running out of memory.",
                                  "We suspect an OOM somewhere.", "I'm fairly sure this is running out of memory."])
def test_a_guess_at_an_out_of_memory_is_none(said):
    run = run_of(diag("\n".join([said, "", *_HEALTHY_VLLM])))
    assert not run.oom and run.kind not in ("RUNTIME", "WEIGHTS", "KV_CAPACITY", "WARMUP"), (run.kind, run.code)


def test_an_out_of_memory_stated_with_a_guess_at_its_cause_is_one():
    run = run_of(diag("\n".join([*_HEALTHY_VLLM, "Then it crashed with CUDA out of memory, probably because of the "
                                                 "long prompt."])))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- the custom all-reduce's own INFO line is no failure inside it; /dev/shm's fix is not replaced by it --------------


def test_the_custom_all_reduces_info_line_does_not_replace_the_shm_advice():
    run = run_of(diag("\n".join([
        "INFO 01-02 10:00:00 custom_all_reduce_utils.py:242] reading GPU P2P access cache from /root/.cache/vllm/"
        "gpu_p2p_access_cache_for_0,1.json",
        "node:77:77 [0] misc/shmutils.cc:72 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Xy12 "
        "(size 9637888)",
        "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"])))
    assert run.kind == "NOT_OOM", (run.kind, run.code)
    assert "/dev/shm" in " ".join(a["why"] for a in run.advice) and "custom-all-reduce" not in flags(run), run.advice


def test_a_failure_inside_the_custom_all_reduce_is_told_to_turn_it_off():
    run = run_of(diag("\n".join([
        "INFO 01-02 10:00:00 [api_server.py:1043] vLLM API server version 0.6.6",
        "RuntimeError: CUDA error: peer access is not supported between these two devices",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/custom_all_reduce.py", '
        "line 221, in __init__"])))
    assert "--disable-custom-all-reduce" in flags(run), flags(run)


def test_ggml_allocs_own_free_block_list_overflowing_is_not_memory():
    run = run_of(diag("\n".join(["Processing Prompt [BLAS] (1024 / 2048 tokens)",
                                 'GGML_ASSERT: /src/ggml-alloc.c:190: alloc->n_free_blocks < MAX_FREE_BLOCKS && '
                                 '"out of free blocks"'])))
    assert (run.kind, run.code) == ("NOT_OOM", "ggml-assert"), (run.kind, run.code)


def test_a_warning_that_names_an_exception_is_no_code_error():
    run = run_of(diag("\n".join([
        "Title: Shard process was signaled to shutdown with signal 4", "",
        "2024-07-22T08:04:17Z DEBUG text_generation_launcher: WARNING 07-22 08:04:17 ray_utils.py:46] Failed to import "
        "Ray with ModuleNotFoundError(\"No module named 'ray'\"). For distributed inference, please install Ray"])))
    assert run.code != "code-error", (run.kind, run.code)


# --- blank lines before a log, from a file or a pipe, are read past (a new user's review) --------------------------


def test_blank_lines_before_a_log_are_read_past(tmp_path):
    import subprocess
    import sys

    log = tmp_path / "blank_first.log"
    log.write_text("\n" * 6000 + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    res = subprocess.run([sys.executable, "-m", "vramdoctor", "logs", str(log)], capture_output=True, text=True)
    assert res.returncode == 0 and "diagnosis" in res.stdout, (res.returncode, res.stderr)
    only = tmp_path / "only_blank.log"
    only.write_text("\n" * 6000 + "   \n")
    res = subprocess.run([sys.executable, "-m", "vramdoctor", "logs", str(only)], capture_output=True, text=True)
    assert res.returncode == 2 and "only blank lines" in res.stderr, (res.returncode, res.stderr)


# --- llama-server's refusals and its full KV cache under a title or a report of failure ----------------------------


def test_llama_servers_context_size_exceeded_after_a_full_cache_is_the_full_cache():
    run = run_of(diag("\n".join([
        "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
        "slot launch_slot_: id  0 | task 40 | processing task",
        "decode: failed to find a memory slot for batch of size 512",
        "srv  update_slots: failed to find free space in the KV cache, retrying with smaller batch size - try "
        "increasing it via the context size or enable defragmentation, i = 0, n_batch = 512, ret = 1",
        "srv    send_error: task id = 40, error: Context size has been exceeded."])))
    assert (run.kind, run.code) == ("RUNTIME", "kv-cache-full"), (run.kind, run.code)


def test_a_reported_failure_that_is_a_refusal_of_long_requests_is_not_memory():
    run = run_of(diag("\n".join([
        "Title: server errors out after a few long prompts", "",
        "main: server is listening on http://0.0.0.0:8080 - starting the main loop",
        "slot update_slots: id  1 | task 90 | new prompt, n_ctx_slot = 4096, n_keep = 0, n_prompt_tokens = 4200",
        "srv    send_error: task id = 90, error: the request exceeds the available context size. try increasing the "
        "context size or enable context shift",
        "srv  update_slots: all slots are idle"])))
    assert (run.kind, run.code) == ("NOT_OOM", "requests-refused-too-long"), (run.kind, run.code)


def test_a_title_error_over_a_full_kv_cache_is_the_full_cache():
    run = run_of(diag("\n".join([
        'Title: llama.cpp error: "Server error: failed to decode"', "",
        "11:02:03.100 W srv update_slots: failed to find free space in the KV cache, retrying with smaller batch size "
        "- try increasing it via the context size or enable defragmentation, i = 0, n_batch = 64, ret = 1",
        "11:02:03.101 E llama_decode: failed to decode, ret = 1"])))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- a report that the server dies after a while, or is restarted over and over, states a failure (never NONE) ------


@pytest.mark.parametrize("said", ["The server dies after a few minutes.", "It keeps restarting every few minutes.",
                                  "The pod gets restarted all the time (CrashLoopBackOff).",
                                  "vLLM restarts in a loop once traffic arrives."])
def test_a_server_that_dies_or_restarts_is_a_stated_failure(said):
    run = run_of(diag("\n".join([said, "", *_HEALTHY_VLLM])))
    assert (run.kind, run.code) == ("UNDETERMINED", "failure-cause-not-shown"), (run.kind, run.code)


def test_a_restart_that_fixed_it_is_no_failure():
    run = run_of(diag("\n".join(["I restarted the server and now it works.", "", *_HEALTHY_VLLM])))
    assert run.kind == "NONE", (run.kind, run.code)


# --- a long log's line count and its run's last line, past the first 2,000 lines the block search reads whole -------


def test_a_long_logs_lines_are_counted_to_its_end_by_both_paths():
    access = '(APIServer pid=1) INFO:     127.0.0.1:{} - "POST /v1/chat/completions HTTP/1.1" 200 OK'
    lines = [*_HEALTHY_VLLM, *(access.format(40000 + i) for i in range(5000))]
    rep = diag("\n".join(lines))  # (diag holds the line-by-line reading and the block search equal)
    run = run_of(rep)
    assert (run.first_line, run.last_line, rep.lines) == (1, len(lines), len(lines)), (run.last_line, rep.lines)


# --- SGLang's own warm-up request failing with out of memory is the warm-up, whatever access line its 500 leaves ------

_SGL_UP = ["[2025-08-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-14B', mem_fraction_static=0.92)",
           "[2025-08-01 10:00:40 TP0] Capture cuda graph end. Time elapsed: 9.80 s. mem usage=0.70 GB. avail mem=1.80 GB.",
           "[2025-08-01 10:00:41] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)"]


def test_sglangs_warm_up_request_failing_with_out_of_memory_is_the_warm_up():
    run = run_of(diag("\n".join([*_SGL_UP,
        '[2025-08-01 10:00:42] INFO:     127.0.0.1:38800 - "POST /generate HTTP/1.1" 500 Internal Server Error',
        "[2025-08-01 10:00:42] Initialization failed. warmup error: Traceback (most recent call last):",
        "AssertionError: res=<Response [500]>, res.text='CUDA out of memory. Tried to allocate 2.10 GiB.'"])))
    assert run.kind == "WARMUP", (run.kind, run.code, run.phase_source)


def test_an_out_of_memory_before_sglangs_warm_up_verdict_is_the_warm_up():
    run = run_of(diag("\n".join([*_SGL_UP,
        "[2025-08-01 10:00:42 TP0] Prefill batch. #new-seq: 1, #new-token: 6, #cached-token: 0, token usage: 0.00",
        "[2025-08-01 10:00:42 TP0] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory. Tried to "
        "allocate 1.50 GiB.",
        "[2025-08-01 10:00:43] Received sigquit from a child process. It usually means the child failed.",
        '[2025-08-01 10:00:43] INFO:     127.0.0.1:38802 - "POST /generate HTTP/1.1" 500 Internal Server Error',
        "[2025-08-01 10:00:43] Initialization failed. warmup error: Traceback (most recent call last):"])))
    assert run.kind == "WARMUP", (run.kind, run.code, run.phase_source)


# --- llama.cpp's slots share the cells of -c: fewer of them free no KV cache (a new user's review) -----------------


def test_llama_servers_serving_advice_does_not_lower_its_slots():
    run = run_of(diag("\n".join([
        "./llama-server -m qwen2.5-14b-q4_k_m.gguf -c 32768 -np 4 -ngl 99",
        "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
        "slot launch_slot_: id  0 | task 12 | processing task",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2048.00 MiB on device 0: cudaMalloc failed: out of memory",
        "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 2147483648"])))
    assert run.kind == "RUNTIME", (run.kind, run.code)
    assert "-np" not in flags(run), flags(run)


def test_figures_printed_show_markup_in_the_logs_text_once_escaped(tmp_path):
    import subprocess
    import sys

    log = tmp_path / "bracket.log"
    log.write_text("llama_model_load_from_file_impl: using device CUDA0\n"
                   "llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from "
                   "/models/[bold]m[/bold].gguf (version GGUF V3 (latest))\n"
                   "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9000.00 MiB on device 0: cudaMalloc failed: "
                   "out of memory\n")
    res = subprocess.run([sys.executable, "-m", "vramdoctor", "logs", str(log)], capture_output=True, text=True)
    line = next(ln for ln in res.stdout.splitlines() if "figures printed" in ln)
    assert "[bold]m[/bold].gguf" in line and "\\[" not in line, line


# --- one line repeated, every copy as wide as the widest, is no terminal's wrap (a new user's review) ----------------


def test_one_line_repeated_is_not_read_as_a_wrapped_log(tmp_path):
    from vramdoctor.logs import diagnose
    from vramdoctor.logs.reader import read_blocks

    log = tmp_path / "repeated.log"
    log.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n" * 500)
    blocks = read_blocks(str(log))
    rep = diagnose(blocks)
    assert not any("wrapped" in w for w in blocks.warnings), blocks.warnings
    ev = " ".join(e["text"] for e in rep.to_dict()["runs"][0]["evidence"])
    assert "GiB.torch" not in ev, ev


def test_logs_help_states_its_exit_codes_and_engines():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "vramdoctor", "logs", "--help"], capture_output=True, text=True).stdout
    flat = " ".join(out.split())
    assert "Exit status: 0" in flat and "2 for input it cannot read" in flat and "3 for an internal error" in flat
    assert "130 when interrupted" in flat and "vllm, sglang, llamacpp" in flat, out


def test_the_shells_bare_killed_names_no_killer():
    run = run_of(diag("\n".join(["Loading safetensors checkpoint shards:  40% Completed | 4/10", "Killed"])))
    assert run.kind == "WEIGHTS" and run.inferred and "does not name the killer" in run.message, (run.kind, run.message)


def test_a_setting_the_log_shows_as_zero_is_not_said_to_be_unshown():
    run = run_of(diag("\n".join([
        "INFO 06-01 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1",
        "INFO 06-01 10:00:00 [api_server.py:1044] args: Namespace(model='m', cpu_offload_gb=0, tensor_parallel_size=1)",
        "INFO 06-01 10:00:05 [default_loader.py:262] Loading weights took 20.00 seconds",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 23.55 GiB "
        "of which 200.00 MiB is free. Including non-PyTorch memory, this process has 23.10 GiB memory in use.",
        "Loading safetensors checkpoint shards:  80% Completed | 8/10"])))
    offload = [a for a in run.advice if a["setting"] == "cpu_offload"]
    assert offload and "does not show" not in offload[0]["why"], run.advice
