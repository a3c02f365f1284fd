"""`vramdoctor logs` on the kinds of fault the held-out rounds 236 and later (issue 6, stop 33) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, flags, kind_of, run_of

# --- vLLM V1's KV-capacity check (v1/core/kv_cache_utils.py) named by its own opening words, where a paste or a terminal
# cut the line before "KV cache is needed": the pool cannot hold max_model_len, never "an error that is not memory" ----


@pytest.mark.parametrize("lines", [
    # 0.12 (the typo fixed), wrapped by the report, its second line cut partway
    ["Repro: vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --kv-cache-dtype fp8", "",
     "  ValueError: To serve at least one request with the model's max seq len (1048576),",
     "  23.32 GiB KV cache is needed, which is larger t"],
    # 0.9 in a V1 engine core's error log, cut at the end of its first line's width
    ["(EngineCore_0 pid=312) ERROR 07-02 10:11:12 [core.py:586] EngineCore failed to start.",
     "(EngineCore_0 pid=312) ERROR 07-02 10:11:12 [core.py:586] ValueError: To serve at least one request with the "
     "models's max seq len (131072), (16.0"],
    # a report quoting only the sentence's start
    ["Qwen3-32B on one L40S with --max-model-len 40960 fails at start with", "",
     "`ValueError: To serve at least one request with the model's max seq len (40960), ...`"],
])
def test_vllms_kv_check_cut_after_its_opening_words_is_the_kv_pool(lines):
    assert kind_of(lines) == ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")


def test_vllms_first_v1_form_with_no_space_before_needed_is_the_kv_pool():
    """0.7's check printed "... GB KV cache is" and "needed, ..." with no space between, and "KV Cache memory"."""
    assert kind_of([
        "INFO 02-10 08:00:00 [gpu_model_runner.py:1100] Loading model weights took 14.99 GB",
        "ERROR 02-10 08:00:09 [core.py:210] ValueError: To serve at least one request with the models's max seq len "
        "(32768), (4.0 GB KV cache isneeded, which is larger than the available KV Cache memory (2.1 GB). Try "
        "increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."]) == (
        "KV_CAPACITY", "max-model-len-exceeds-kv-cache")


# --- memory said to be short with a word between ("insufficient free memory", "not enough available memory"): an
# out of memory in the report's words, never a failure that names another cause --------------------------------------


@pytest.mark.parametrize("lines,kind", [
    (["## Task", "The current configuration fails during CUDA graph capture due to insufficient free memory.",
      "- Error: CUDA graph capture fails during profiling"], "WARMUP"),
    (["TGI shard 0 dies at warmup: not enough available memory for the prefill tokens", "Error: Warmup failed"],
     "WARMUP"),
    (["llama-server stops while it loads the weights: insufficient VRAM memory on the device",
      "error: failed to load model"], "WEIGHTS"),
])
def test_memory_said_short_with_a_word_between_is_memory(lines, kind):
    assert kind_of(lines)[0] == kind


# --- the weights' loading as the subject of the out of memory ("weight loading itself OOMs"): the weights -------------


@pytest.mark.parametrize("lines", [
    ["**Attempt 1** - conservative settings, weight loading itself OOMs:", "```",
     "LLM_GPU_UTIL=0.35 docker compose up -d vllm", "```", "```", "Faile"],
    ["On 2x 3090 with TP=2 the checkpoint loading runs out of memory on rank 1.",
     "(VllmWorker rank=1 pid=22) INFO 05-02 01:02:03 [gpu_model_runner.py:1600] Starting to load model Qwen/Qwen3-32B..."],
    ["Shard loading OOMs with the fp16 model; the AWQ one starts.",
     "2024-05-01T10:00:00Z INFO text_generation_launcher: Starting shard rank=0"],
])
def test_the_weights_loading_said_to_run_out_is_the_weights(lines):
    assert kind_of(lines)[0] == "WEIGHTS"


# --- a kill or an out of memory a person only guesses at ("My strong suspicion is the process is being killed under
# memory pressure (OOM)", "my hunch is", "our theory"): no kill is shown, so no host-memory kill is told as fact;
# a kill the line states with a guess at its cause stays a kill of undetermined cause ----------------------------------


@pytest.mark.parametrize("lines", [
    ["# Server crashes after a few queries", "",
     "Thanks! My strong suspicion is the process is being killed under memory pressure (OOM), which fits what you see.",
     "\u26a0\ufe0f  Server request failed, falling back to direct execution..."],
    ["my hunch is that the runner gets OOM-killed by the kernel once the context grows",
     "Error: llama runner process no longer running: -1"],
    ["Our working theory: the container is killed by the OOM killer when two requests overlap.",
     "[ERROR] api: upstream closed the connection"],
])
def test_a_kill_only_guessed_at_is_not_a_host_memory_kill(lines):
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


def test_a_kill_stated_with_a_guess_at_its_cause_is_still_a_kill():
    assert kind_of(["[2024-03-01 10:00:00 +0000] [7] [ERROR] Worker (pid:99) was sent SIGKILL! Perhaps out of "
                    "memory?"]) == ("UNDETERMINED", "host-oom-kill")


# --- an error chain whose root cause says only that the process ended (LM Studio's "Error in RPC handler: Error:
# Rehydrated error" ... "- Caused By: Error: The model has crashed without additional information. (Exit code: N)"):
# no cause is shown, so memory is not ruled out; a root cause that names one still decides --------------------------

_LMS_CHAIN = ["[2025-06-01 09:00:00.000] [error] [LMSInternal][Client=LM Studio][Endpoint=sendMessage] Error in RPC "
              "handler: Error: Rehydrated error",
              "    at _0x1.fromSerializedError (C:\\LM Studio\\resources\\app\\.webpack\\main\\index.js:1:2)",
              "- Caused By: Error: Channel Error",
              "    at handle (C:\\LM Studio\\resources\\app\\.webpack\\main\\index.js:3:4)"]


@pytest.mark.parametrize("root,expected", [
    ("- Caused By: Error: The model has crashed without additional information. (Exit code: 18446744072635812000)",
     ("UNDETERMINED", "failure-cause-not-shown")),
    ("- Caused By: Error: The model process exited unexpectedly.", ("UNDETERMINED", "failure-cause-not-shown")),
    ("- Caused By: Error: error loading model architecture: unknown model architecture: 'qwen3next'",
     ("NOT_OOM", "model-file-error")),
])
def test_an_error_chains_root_cause_decides_whether_a_cause_is_shown(root, expected):
    assert kind_of(_LMS_CHAIN + [root]) == expected


# --- memory a model's unload does not give back, in a person's words ("it leaves the mmproj portion of the model still
# loaded in VRAM", "VRAM is not released after unloading"): memory kept with no load to hold it, a leak; not memory
# kept after an out of memory (the failure's), nor an unload that frees it ------------------------------------------


@pytest.mark.parametrize("lines", [
    ["# VRAM not freed after unloading model", "",
     "VRAM is not released after unloading the model with keep_alive=0; nvidia-smi still shows 4.1 GiB used by ollama."],
    ["After `POST /api/generate` with keep_alive 0 the model unloads, but about 2 GB of memory stays allocated until I "
     "restart the service."],
    ["Calling /slots/0?action=erase and unloading the model: the VRAM still in use is 3 GB, it never gets freed."],
    ["Even after deleting the object and invoking the garbage collection, the VRAM is still not freed. The VRAM only "
     "gets cleared after I kill the app."],
    ["1 - llama_free_model(llm) raises:", "```", "Traceback (most recent call last):",
     '  File "app.py", line 48, in <module>', "    llama_free_model(llm)", "ctypes.ArgumentError: argument 1: TypeError: "
     "wrong type", "```", "2 - After del llm and gc.collect() the memory is still not released."],
])
def test_memory_an_unload_does_not_give_back_is_a_leak(lines):
    assert kind_of(lines) == ("LEAK", "memory-growth-stated")


@pytest.mark.parametrize("line", ["The server did not release the memory after encountering OOM.",
                                  "Unloading the model frees the VRAM as expected."])
def test_memory_kept_after_a_failure_or_freed_by_an_unload_is_no_leak(line):
    assert kind_of([line])[0] != "LEAK"


# --- a report whose title or words say the server went down ("the service shutdown", "the workers go down", "shuts
# down"): a failure stated, its cause not shown; never "no memory problem" ---------------------------------------------


@pytest.mark.parametrize("said", [
    "# [Bug] When request threads is greater than 2, the service shutdown",
    "# [Bug] the server shuts down with 3 concurrent requests",
    "At the first request the Ray workers go down while the API server stays up.",
])
def test_a_server_said_to_go_down_is_a_failure_of_unshown_cause(said):
    lines = [said, "", "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-VL-3B-Instruct --port 8000"]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


# --- llama.cpp that could not pin the weights it keeps on the CPU (ggml_cuda_host_malloc "failed to allocate N MiB of
# pinned memory") and no device buffer failed: host RAM is the short one, so "fewer layers on the GPU" would push more
# of the model there; with a device buffer that failed too, fewer layers stay the step ------------------------------

_PINNED_LOAD = [
    "llama_model_loader: - type q4_K:  441 tensors",
    "ggml_cuda_host_malloc: failed to allocate 28123.50 MiB of pinned memory: out of memory",
    "load_tensors: offloading 20 repeating layers to GPU",
    "load_tensors: offloaded 20/81 layers to GPU",
    "load_tensors:          CPU model buffer size = 28123.50 MiB",
    "load_tensors:        CUDA0 model buffer size =  9912.63 MiB",
]


def test_weights_that_could_not_be_pinned_get_no_fewer_gpu_layers():
    run = run_of(diag("\n".join(["# 70B on a 12 GB card and 32 GB of RAM: the model does not fit in VRAM and the PC "
                                 "freezes for hours", "```", *_PINNED_LOAD])))
    assert run.kind == "WEIGHTS"
    assert "gpu_layers" not in flags(run) and "-ngl" not in flags(run)
    assert any("pinned" in a["why"] for a in run.advice)


def test_a_device_buffer_that_failed_beside_a_pinned_one_still_gets_fewer_gpu_layers():
    run = run_of(diag("\n".join([*_PINNED_LOAD[:2], "load_tensors: offloading 20 repeating layers to GPU",
                                 "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9912.63 MiB on device 0: "
                                 "cudaMalloc failed: out of memory",
                                 "alloc_tensor_range: failed to allocate CUDA0 buffer of size 10394142208",
                                 "llama_model_load: error loading model: unable to allocate CUDA0 buffer"])))
    assert run.kind == "WEIGHTS" and "-ngl" in flags(run)


# --- Ascend's AI-core exception in a report's shorter words ("MTE DDR address out of range"): a kernel that touched
# memory it does not own, not memory running out --------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["# [Bug]: ACL graph capture on 910B fails with error code 507015 (MTE DDR address out of range)", "", "```",
     "| NPU     Chip | Process id | Process memory(MB) |", "| 0       0    | 1207319    | 17792"],
    ["vllm-ascend crashes at the first request with aicore error 507015, MTE address is out of range."],
])
def test_ascends_mte_address_out_of_range_is_an_illegal_access(lines):
    assert kind_of(lines) == ("NOT_OOM", "illegal-memory-access")


# --- an assertion whose message names a rule a setting's value breaks ("max_chunk_size must be multiple of 256,
# received None"): not memory; one whose words are memory's ("block_size must be a multiple of 16") stays open -------

_TB = ["Traceback (most recent call last):", '  File "/app/backends/exllamav2/model.py", line 212, in create',
       "    self.generator = ExLlamaV2DynamicGeneratorAsync("]


@pytest.mark.parametrize("error", [
    "AssertionError: max_chunk_size must be multiple of 256, received None",
    "AssertionError: tensor_parallel_size must be divisible by the number of attention heads (40)",
    "AssertionError: temperature must be positive",
])
def test_an_assertion_naming_a_settings_rule_is_not_memory(error):
    assert kind_of(_TB + [error]) == ("NOT_OOM", "assertion-failed")


def test_an_assertion_whose_rule_is_about_memory_stays_open():
    assert kind_of(_TB + ["AssertionError: block_size must be a multiple of 16 for the KV cache pool"])[0] != "NOT_OOM"


# --- Gloo's own words that it connected ("[Gloo] Rank 0 is connected to 1 peer ranks. Expected number of connected peer
# ranks is : 1", torch 2.5+) are no communication failure; its failures still are -----------------------------------


def test_gloos_connected_line_is_no_failure_under_a_stated_oom():
    lines = ["# [Bug]: DeepSeek V3.2 CUDA OUT OF MEMORY", "```",
             "[Gloo] Rank 0 is connected to 1 peer ranks. Expected number of connected peer ranks is : 1",
             "[Gloo] Rank 0 is connected to 0 peer ranks. Expected number of connected peer ranks is : 0",
             "[2025-12-01 10:00:00 TP0] Load weight begin. avail mem=78.51 GB"]
    assert kind_of(lines)[0] != "NOT_OOM"
    assert kind_of(lines[2:4]) == ("NONE", "no-memory-problem")


@pytest.mark.parametrize("line", [
    "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.2]:4312",
    "RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",
    "[E ProcessGroupGloo.cpp:138] gloo: failed to connect to 10.0.0.3:29500 after 30 s",
])
def test_gloos_failures_stay_communication_errors(line):
    assert kind_of([line]) == ("NOT_OOM", "communication-error")


# --- an assertion that only compares two values for equality (`assert new_spec.page_size_bytes == max_page_size`):
# a consistency check, which memory running out does not fail, whatever sizes they are; not one of what is free
# ("len(free_blocks) == num_required_blocks", test_logs_round127) -----------------------------------------------------


@pytest.mark.parametrize("code", ["    assert new_spec.page_size_bytes == max_page_size",
                                  "    assert len(kv_cache_groups) == num_cache_blocks_per_rank",
                                  "    assert kv_cache_spec.block_size == 16, 'one block size'"])
def test_an_equality_assertion_is_not_memory_whatever_it_compares(code):
    lines = ["(EngineCore_DP0 pid=9) ERROR 11-02 10:00:00 [core.py:1229] Traceback (most recent call last):",
             '(EngineCore_DP0 pid=9) ERROR 11-02 10:00:00 [core.py:1229]   File "/vllm/v1/core/kv_cache_utils.py", '
             'line 880, in unify_kv_cache_spec_page_size',
             f"(EngineCore_DP0 pid=9) ERROR 11-02 10:00:00 [core.py:1229] {code}",
             "(EngineCore_DP0 pid=9) ERROR 11-02 10:00:00 [core.py:1229] AssertionError"]
    assert kind_of(lines) == ("NOT_OOM", "assertion-failed")


def test_an_order_assertion_about_memory_stays_open():
    lines = ["Traceback (most recent call last):", '  File "/sglang/srt/mem_cache/memory_pool.py", line 120, in init',
             "    assert self.free_bytes >= needed_bytes", "AssertionError"]
    assert kind_of(lines)[0] != "NOT_OOM"


# --- NCCL's own allocator failing under its "unhandled cuda error" ("Last error: Failed to CUDA malloc 512 bytes",
# alloc.h), on the lines after it or later on the same line of a JSON string: NCCL's buffers ran out of memory ----------

_NCCL = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
         "2395, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5")


@pytest.mark.parametrize("lines", [
    [_NCCL, "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", "Failed to CUDA malloc 512 bytes"],
    ["> " + _NCCL + "\\nncclUnhandledCudaError: Call to CUDA function failed.\\nLast error:\\nFailed to CUDA malloc "
     "2097152 bytes"],
    ["[2025-03-01 10:00:00 TP3] Scheduler hit an exception: " + _NCCL.replace("2.20.5", "2.21.5"),
     "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", "Failed to CUDA calloc 64 bytes"],
])
def test_nccls_own_allocation_failing_is_its_buffers_out_of_memory(lines):
    assert kind_of(lines) == ("WARMUP", "nccl-buffers-oom")


# --- TGI's router that lost its shard ("text_generation_client: router/client/src/lib.rs:33: Server error: transport
# error", "error trying to connect: Connection refused (os error 111)"): the shard died, its cause in its own lines,
# never "not memory" -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    "2023-08-27T20:45:03.167347Z ERROR batch{batch_size=6}:decode:decode{size=6}:decode{size=6}: text_generation_client:"
    " router/client/src/lib.rs:33: Server error: transport error",
    "2024-08-30T02:09:48.065252Z ERROR batch{batch_size=1}:prefill:prefill{id=121 size=1}:prefill{id=121 size=1}: "
    "text_generation_client: router/client/src/lib.rs:33: Server error: error trying to connect: Connection refused (os "
    "error 111)",
    "2024-08-30T02:09:48.063951Z ERROR generate_stream{parameters=GenerateParameters { best_of: None }}:async_stream:"
    "generate_stream:infer:send_error: text_generation_router::infer: router/src/infer.rs:876: Request failed during "
    "generation: Server error: error trying to connect: Connection refused (os error 111)",
])
def test_tgis_router_that_lost_its_shard_is_a_failure_of_unshown_cause(line):
    assert kind_of(["# concurrent 2k prompts crash the TGI service", "```", line]) == (
        "UNDETERMINED", "failure-cause-not-shown")


# --- a GPU-sharing layer's limit check with a usage past 2**63 bytes (HAMi-core's "Device 0 OOM 18446744073707737660 /
# 24146608128": a counter that went below zero and wrapped), and out-of-memory errors a report calls false: an
# accounting's error, not memory running out; a usage that can exist stays an out of memory -------------------------

_HAMI = "[HAMI-core ERROR (pid:1 thread=140160828682240 allocator.c:53)]: Device 0 OOM {} / 24146608128"


def test_a_wrapped_usage_counter_is_an_accounting_error():
    assert kind_of([_HAMI.format("18446744073707737660")]) == ("NOT_OOM", "memory-accounting-wrapped")


def test_a_usage_that_can_exist_stays_an_out_of_memory():
    assert kind_of([_HAMI.format("25769803776")])[0] not in ("NOT_OOM", "NONE")


@pytest.mark.parametrize("line", [
    "HAMi displays unrealistic GPU memory usage in containers, leading to false OOM errors and application failures.",
    "Since the driver update the vGPU layer reports a spurious CUDA out of memory in every pod.",
])
def test_out_of_memory_errors_called_false_are_none(line):
    # (stop 52 changed this convention from NONE: an error the report calls a false out of memory still failed the
    # application, and the labelling guide's NOT_OOM is "something failed, and it was not memory"; h518/09)
    assert kind_of([line]) == ("NOT_OOM", "error-not-memory")


# --- a runner that ended with status 127 (the dynamic loader could not find a library, or the program), and a model
# whose architecture the engine's table lacks (exllamav2/v3's ARCHITECTURES list): not memory --------------------------


@pytest.mark.parametrize("lines", [
    ["# ollama runner process has terminated: exit status 127", "", "Ollama reports this error for any model."],
    ['time=2025-01-02T10:00:00.000Z level=ERROR source=sched.go:455 msg="error loading llama server" error="llama runner '
     'process has terminated: exit status 127"'],
    ["/usr/lib/ollama/runners/cuda_v12/ollama_llama_server: error while loading shared libraries: libcudart.so.12: "
     "cannot open shared object file: No such file or directory"],
])
def test_a_runner_ended_by_status_127_is_a_library_not_found(lines):
    assert kind_of(lines) == ("NOT_OOM", "library-load-failed")


@pytest.mark.parametrize("line", [
    'the architecture in the model, "Gemma3ForConditionalGeneration", is not found in the ARCHITECTURES list in '
    "architectures.py.",
    "ValueError: Unknown architecture Qwen3MoeForCausalLM in config.json",
])
def test_an_architecture_the_engines_table_lacks_is_unsupported(line):
    assert kind_of([line]) == ("NOT_OOM", "model-unsupported")


# --- a frame a paste broke after its file's comma (`File ".../memory_pool.py",` / `line 499, in _init_mamba_pool`):
# joined back with its space, it is a frame, and its place decides ---------------------------------------------------

_OOM = ["torch.OutOfMemoryError: CUDA out of memory.", "Tried to allocate 18.56 GiB."]


@pytest.mark.parametrize("frame,kind", [
    (['File "/env/lib/python3.10/site-packages/sglang/srt/mem_cache/memory_pool.py",',
      "line 499, in _init_mamba_pool"], "KV_CAPACITY"),
    (['File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py",',
      "line 2700, in capture_model"], "WARMUP"),
    (['File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py",',
      "line 1342, in warmup"], "WARMUP"),
])
def test_a_frame_broken_after_its_files_comma_is_read(frame, kind):
    assert kind_of(["## Error", *frame, *_OOM])[0] == kind


# --- the weights' making named as the step ("during the weight creation phase", "in the weights initialization
# stage", "at the `create weights` step"): the weights -----------------------------------------------------------------


@pytest.mark.parametrize("line", [
    "# [Bug]: An OOM issue occurs during the weight creation phase when deploying HunyuanImage-3.0.",
    "CUDA out of memory in the weights initialization stage with TP=1",
    "OOM at the `create weights` step for the MoE experts",
])
def test_the_weights_making_named_as_the_step_is_the_weights(line):
    assert kind_of([line]) == ("WEIGHTS", "weights-alloc-failed")


# --- memory said to go gradually from one size to another ("Gradually Out of memory from 14G to 24G"): growth over
# time, the adverb its span; not a model's weights coming in while it loads -------------------------------------------


@pytest.mark.parametrize("line", ["# Gradually Out of memory from 14G to 24G",
                                  "GPU memory goes gradually from 14G to 24G and then out of memory",
                                  "Host memory use steadily went from 9 GB to 15 GB over the day"])
def test_memory_said_to_go_gradually_from_one_size_to_another_is_growth(line):
    assert kind_of([line]) == ("LEAK", "memory-growth-stated")


def test_memory_rising_gradually_while_the_model_loads_is_no_leak():
    assert kind_of(["While loading the model, memory usage gradually goes from 2 GB to 14 GB."])[0] != "LEAK"


# --- vLLM's CPU back end whose KV cache space (VLLM_CPU_KVCACHE_SPACE, host RAM) is larger than its NUMA node has free
# (v1/worker/cpu_worker.py): the KV pool, advised in that back end's own setting, never a GPU utilization ------------

_CPU_KV = ("ValueError: Available memory on node 0 (149.11/692.65 GiB) on kv cache allocation is less than requested "
           "memory for kv (206.54/207.8 GiB). Reduce CPU memory used by other processes.")


@pytest.mark.parametrize("lines", [
    ["(EngineCore_DP0 pid=41) ERROR 10-02 08:00:00 [core.py:708] " + _CPU_KV],
    ["# vLLM CPU image in a pod fails at start", "", "`" + _CPU_KV + "`"],
])
def test_vllms_cpu_kv_space_past_the_nodes_free_memory_is_the_kv_pool(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("KV_CAPACITY", "cpu-kv-space-exceeds-memory")
    assert "VLLM_CPU_KVCACHE_SPACE" in run.advice[0]["why"] and "gpu-memory-utilization" not in flags(run)


# --- a request's prefill or decode named as where memory ran out ("OOM-kills the scheduler on chunked prefill",
# "during decoding"): serving, also for a kill by the OOM killer; not the graphs or the profile run of one ------------


@pytest.mark.parametrize("line,expected", [
    ("# [Bug] skip_radix_cache_insert livelocks and OOM-kills the scheduler on chunked prefill",
     ("RUNTIME", "host-oom-kill")),
    ("CUDA out of memory during decoding with 64 concurrent requests", ("RUNTIME", "serving-oom")),
    ("OOM during prefill graph capture", ("WARMUP", "cuda-graph-capture-oom")),
    ("mem-fraction OOMs at decode-graph capture (~5GB)", ("WARMUP", "cuda-graph-capture-oom")),
    ("Shipping an image kills llama-server mid-prefill with CUDA out of memory.", ("RUNTIME", "prefill-oom")),
    ("The runner dies mid-generation: CUDA error: out of memory.", ("RUNTIME", "serving-oom")),
    ("OOM during the profile run's dummy prefill", ("WARMUP", "profile-run-oom")),
])
def test_a_requests_prefill_or_decode_named_is_serving(line, expected):
    assert kind_of([line]) == expected


# --- a traceback under a report's out-of-memory, cut where its innermost frame shown is PyTorch's own (nn.Linear's
# __init__, torch/utils/_device.py): the frames left out are PyTorch's too, so the frames shown place it ---------------

_TITLE_OOM = ("# [Installation]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 72.00 MiB. GPU 0 has a "
              "total capacity of 44.52 GiB of which 43.88 MiB is free.")
_SP = '  File "/usr/local/lib/python3.12/dist-packages/'


@pytest.mark.parametrize("frames", [
    [_SP + 'vllm_omni/diffusion/models/qwen_image/qwen_image_transformer.py", line 491, in __init__',
     "    self.img_mlp = FeedForward(dim=dim, dim_out=dim)",
     _SP + 'torch/nn/modules/linear.py", line 109, in __init__',
     "    torch.empty((out_features, in_features), **factory_kwargs)",
     _SP + 'torch/utils/_device.py", line 103, in __torch_function__', "    return func(*args, **kwargs)"],
    [_SP + 'vllm/model_executor/models/llama.py", line 300, in __init__',
     "    self.mlp = LlamaMLP(", _SP + 'torch/nn/modules/linear.py", line 106, in __init__',
     "    self.weight = Parameter("],
])
def test_a_traceback_cut_inside_pytorch_is_placed_by_its_frames(frames):
    assert kind_of([_TITLE_OOM, "", *frames])[0] == "WEIGHTS"


# --- the memory profiling named without a stage word, maybe in markdown ("it will cause OOM _**during memory
# profiling**_"), beside words that the requests run fine ("But it's actually ok during inference"): the warm-up ----


@pytest.mark.parametrize("line", [
    "This value blocks me from using multiple images as it will cause OOM _**during memory profiling**_. But it's "
    "actually ok during inference since I can resize my images.",
    "The server OOMs while profiling memory at start; it works fine when serving requests with small images.",
    "CUDA out of memory in the profile run of Qwen2.5-VL, no problem for requests once it starts with fewer images.",
])
def test_the_profiling_named_beside_requests_that_run_fine_is_the_warmup(line):
    assert kind_of([line])[0] == "WARMUP"


# --- a report's sentence of an out of memory whose step the report's next sentences name ("... cannot load with the
# current load_weights()" / "Reduces peak memory from ~157 GB to ~81.6 GB during weight loading"): that step, not a
# request the report makes later to test a fix ------------------------------------------------------------------------


_PR_FIX = [
    '# [Model] Fix Glm4Moe OOM on unified-mem systems: stream weights',
    '',
    'a contributor, 2026-03-14',
    '## Motivation',
    '',
    'On unified-memory systems like Jetson Thor (128 GB shared CPU+GPU pool), the GLM-4.6-FP8 model (90 GB on disk) cannot load with the current Glm4MoeForCausalLM.load_weights() implementation. The method buffers the entire weight generator into a Python list before processing, causing a peak memory usage of ~170 GB (95 GB model skeleton + 75 GB weight buffer), which exceeds the  119 GB physical limit and triggers OOM.',
    '',
    '## Modifications',
    '',
    '  **`python/sglang/srt/models/glm4_moe.py`**',
    '  - Remove the `updated_weights = []` buffer list in `load_weights()`',
    '  - Move `expert_params_mapping` and `params_dict` computation before the loop',
    '  - Iterate the `weights` generator directly, applying `replace_prefix`/`replace_substrings` inline',
    '  - Reduces peak memory from ~170 GB to ~95 GB during weight loading',
    '',
    'So now the keeps peak at ~95 GB.',
    '',
    '  Tested end-to-end on Jetson Thor with zai-org/GLM-4.6-FP8 using modelopt_mixed quantization:',
    '```',
    '  python3 -m sglang.launch_server \\',
    '    --model-path zai-org/GLM-4.6-FP8 \\',
    '    --disable-radix-cache --disable-cuda-graph \\',
    '    --max-total-tokens 8192 --context-length 4096 \\',
    '    --mamba-ssm-dtype bfloat16',
    '```',
    '',
    'then',
    '',
    '```',
    '  curl -s http://localhost:8000/v1/chat/completions \\',
    '    -H "Content-Type: ap',
]


def test_the_step_the_reports_next_sentences_name_places_its_oom():
    assert kind_of(_PR_FIX)[0] == "WEIGHTS"


# --- vLLM's profiling check with the free memory the same before and after ("Initial free memory 30.3 GiB, current
# free memory 30.3 GiB"): the platform's memory query did not see the profile run, not another process; with more free
# after, another process let memory go --------------------------------------------------------------------------------

_PROFILING = ("(EngineCore_DP0 pid=418) ERROR 01-29 15:38:21 [core.py:946] AssertionError: Error in memory profiling. "
              "Initial free memory {}, current free memory {}. This happens when {}")


@pytest.mark.parametrize("before,after,why,code", [
    ("30.3 GiB", "30.3 GiB", "other processes sharing the same container release GPU memory while vLLM is profiling "
     "during initialization.", "free-memory-unchanged"),
    ("22.12 GiB", "22.12 GiB", "the GPU memory was not properly cleaned up before initializing the vLLM instance.",
     "free-memory-unchanged"),
    ("30.3 GiB", "31.8 GiB", "other processes sharing the same container release GPU memory while vLLM is profiling "
     "during initialization.", "gpu-shared-with-other-process"),
])
def test_vllms_profiling_check_tells_unchanged_free_memory_from_another_process(before, after, why, code):
    assert kind_of([_PROFILING.format(before, after, why)]) == ("NOT_OOM", code)


# --- an engine's settings printed one per line ("INFO:     KV Cache Data Type = fp8"), maybe its last entry cut ("INFO:
# KV Cache Dat"): settings, no step the run reached; a step's own line after the list still is one -------------------

_ECHO = ["I get an out-of-memory error when I start it, with ~18GB of VRAM free:", "", "```",
         "INFO:     Initializing the Aphrodite Engine (v0.5.0) with the following config:",
         "INFO:     Model = 'EleutherAI/pythia-70m-deduped'", "INFO:     Context Length = 2048",
         "INFO:     Enforce Eager Mode = False"]


@pytest.mark.parametrize("last,kind", [
    ("INFO:     KV Cache Dat", "UNDETERMINED"),
    ("INFO:     KV Cache Data Type = fp8_e5m2", "UNDETERMINED"),
    ("INFO:     Downloading model weights ['*.bin']", "WEIGHTS"),
])
def test_settings_printed_one_per_line_are_no_step(last, kind):
    assert kind_of(_ECHO + [last])[0] == kind


# --- failures that are not memory in other engines' and systems' words: MLC LLM's device query ("Cannot read total GPU
# global memory from device"), TVM's kernel asking for more shared memory than a block may have ("Failed to set the
# allowed dynamic shared memory size to 73728"), macOS's libmalloc ("BUG IN CLIENT OF LIBMALLOC: memory corruption of
# free block") ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lines,code", [
    (["# [Bug] Cannot read total GPU global memory from device.", "", "mlc_llm serve crashed with the above error."],
     "device-memory-query-failed"),
    (["When applying ChatModule -> [Bug] Failed to set the allowed dynamic shared memory size to 73728"],
     "kernel-shared-memory"),
    (["- **Detection**: `libsystem_malloc.dylib` - \"BUG IN CLIENT OF LIBMALLOC: memory corruption of free block\""],
     "heap-corruption"),
    (["# Heap memory corruption (EXC_BREAKPOINT/SIGTRAP) in json_string on macOS ARM64"], "heap-corruption"),
])
def test_more_failures_that_are_not_memory(lines, code):
    assert kind_of(lines) == ("NOT_OOM", code)


# --- ggml's scheduler limit of inputs to one split (ggml-backend.c GGML_ASSERT(n_inputs < GGML_SCHED_MAX_SPLIT_INPUTS)),
# named by a report's title or printed whole: not memory -------------------------------------------------------------


@pytest.mark.parametrize("line", [
    "# Eval bug: Gemma 4 edge models fail to load, n_inputs < GGML_SCHED_MAX_SPLIT_INPUTS",
    "/llama.cpp/ggml/src/ggml-backend.cpp:1095: GGML_ASSERT(n_inputs < GGML_SCHED_MAX_SPLIT_INPUTS) failed",
])
def test_ggmls_split_inputs_limit_is_an_assert_not_memory(line):
    assert kind_of([line]) == ("NOT_OOM", "ggml-assert")


# --- a report whose words say the error its log shows is another than the title's ("it works! ... then I got
# different errors"): the title's out of memory is no cause of the log's cut traceback --------------------------------

_ALPA = ["", "I increased the number of GPUs to 4 and it works!", "Out of curiosity, I tried 8 GPUs, then I got {}.",
         "", "```", "(DeviceMeshGroupManager pid=276) INFO | stdout | Load model bloom-7b1 ...",
         "Traceback (most recent call last):", '  File "start.py", line 49, in <module>', "    ray.get(t)"]


@pytest.mark.parametrize("words", ["different errors", "another error", "a new error"])
def test_a_log_said_to_show_another_error_than_the_titles_is_not_the_titles(words):
    lines = ["# OOM while serving language models"] + [t.format(words) for t in _ALPA]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


def test_a_log_under_the_titles_out_of_memory_keeps_it():
    lines = ["# OOM while serving language models"] + [t.format("the same error") for t in _ALPA]
    assert kind_of(lines)[0] in ("RUNTIME", "WEIGHTS", "UNDETERMINED") and kind_of(lines)[1] != "failure-cause-not-shown"


# --- a step a person's words say the failure came after, in a sentence that puts it in the start-up ("aborted at
# engine init ... right after CUDA graph capture", "fails to start right after"): the start-up's warm-up, never
# serving ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    ["The eagle cases aborted at engine init with HSA_STATUS_ERROR_OUT_OF_RESOURCES right after CUDA graph capture.", "",
     "Root cause: the fixed capture cost exceeded the slack left by the KV cache, so it ran out of memory."],
    ["The server fails to start right after CUDA graph capture.", "",
     "It is an OOM: the capture used the slack the pool left."],
])
def test_a_step_passed_in_a_sentence_of_the_startup_is_the_warmup(lines):
    assert kind_of(lines)[0] == "WARMUP"


def test_a_step_passed_with_requests_after_it_is_serving():
    assert kind_of(["Right after the graphs were captured and the first requests came in, it ran out of memory."])[0] \
        == "RUNTIME"


# --- the operating system's kernel stopped (macOS's "panic(cpu 0): ... IOGPUGroupMemory ...", Linux's "Kernel panic -
# not syncing"): not memory used up; Linux's own panic for memory (panic_on_oom) is memory ---------------------------


@pytest.mark.parametrize("line", [
    'panic(cpu 0): "IOGPUGroupMemory::remove_memory_object() memory object not found"',
    "panic(cpu 4 caller 0xfffffe0012345678): \"AGX firmware crashed\" @IOGPUFamily.cpp:1234",
    "[ 8123.456789] Kernel panic - not syncing: Fatal exception in interrupt",
])
def test_a_kernel_panic_is_not_memory(line):
    assert kind_of([line]) == ("NOT_OOM", "kernel-panic")


def test_linuxs_panic_on_oom_is_memory():
    kind = kind_of(["[ 9001.1] Kernel panic - not syncing: Out of memory: system-wide panic_on_oom is enabled"])[0]
    assert kind not in ("NOT_OOM", "NONE")


# --- CLBlast's own wording of an OpenCL status ("CLBlast: OpenCL error: clEnqueueNDRangeKernel: -4"): -4, -5, -6 are
# memory (above the GGML_ASSERT it brings), -61 a buffer past the device's limit, others not memory ------------------


@pytest.mark.parametrize("status,expected", [("-4", None), ("-5", None), ("-61", "buffer-exceeds-allocation-limit"),
                                             ("-30", "opencl-error")])
def test_clblasts_opencl_status_is_read(status, expected):
    kind, code = kind_of([f"CLBlast: OpenCL error: clEnqueueNDRangeKernel: {status}",
                          "GGML_ASSERT: ./ggml-opencl.cpp:1775: false"])
    if expected == "opencl-error":
        assert (kind, code) == ("NOT_OOM", "opencl-error")
    elif expected:
        assert code == expected
    else:
        assert kind not in ("NOT_OOM", "NONE")


# --- a hang a person's words put in the model's load ("加载卡住不动", "hangs while loading the model"): a model read into
# host memory that is short pages instead of failing, so memory is not ruled out; a hang elsewhere still is no memory ---


@pytest.mark.parametrize("lines", [
    ["# ERNIE-4.5-VL-424B-A47B-Paddle加载卡住不动", "", "```sh",
     "$python -m fastdeploy.entrypoints.openai.api_server --model ERNIE-4.5-VL-424B-A47B-Paddle --port 8180", "```"],
    ["The server hangs while loading the model, always at 60% of the shards."],
])
def test_a_load_said_to_stall_leaves_memory_open(lines):
    assert kind_of(lines) == ("UNDETERMINED", "load-stalled")


def test_a_hang_after_a_request_is_still_no_memory():
    assert kind_of(["The server hangs after the first request."]) == ("UNDETERMINED", "hang-no-error")


@pytest.mark.parametrize("line", [
    "# Could not start backend: Runtime compute cap 70 is not compatible with compile time compute cap 80",
    "2024-01-01T00:00:00Z ERROR text_embeddings_router: router/src/main.rs:300: Could not start backend: Runtime compute "
    "cap 75 is not compatible with compile time compute cap 80",
])
def test_teis_build_for_another_compute_capability_is_gpu_unsupported(line):
    """TEI's candle back end built for another GPU: no kernels for this one, not memory."""
    assert kind_of([line]) == ("NOT_OOM", "gpu-unsupported")


# --- vLLM's collect_env on an NVIDIA machine ("ROCM used to build PyTorch: N/A", "ROCm: Disabled") is no AMD GPU: a
# kernel fault's advice stays CUDA's; NCCL's probe for its network plugin at INFO ("dlerror=libnccl-net.so: cannot open
# shared object file ... using internal implementation") is no library that failed to load ---------------------------

_IMA = "RuntimeError: CUDA error: an illegal memory access was encountered"


@pytest.mark.parametrize("env", [["ROCM used to build PyTorch: N/A"], ["CUDA Archs: Not Set; ROCm: Disabled; Neuron: "
                                                                      "Disabled"]])
def test_collect_envs_rocm_not_in_use_keeps_cudas_advice(env):
    run = run_of(diag("\n".join(["Collecting environment information...", *env, "", _IMA])))
    assert run.kind == "NOT_OOM" and "CUDA_LAUNCH_BLOCKING" in " ".join(a["why"] for a in run.advice)
    assert "AMD_SERIALIZE_KERNEL" not in " ".join(a["why"] for a in run.advice)


_PLUGIN = ("c3b1a9f0d2e4:1:1 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No "
           "such file or directory No plugin found (libnccl-net.so), using internal implementation")


def test_nccls_plugin_probe_is_no_library_failure():
    assert kind_of([_PLUGIN]) == ("NONE", "no-memory-problem")
    assert kind_of([_PLUGIN, "c3b1a9f0d2e4:1:1 [0] NCCL WARN Error: failed to extend /dev/shm/nccl-abc to 9637892 "
                    "bytes"]) == ("NOT_OOM", "shm-exhausted")


# --- a failure whose own restart command follows it ("$ vllm serve ... 0,9", argparse's error, then "$ vllm serve ...
# 0.9" and a start-up that serves): two runs, the later one decides; not an error pasted above its start-up ----------

_SECOND_TRY = ["INFO 02-20 09:41:05 api_server.py:912] vLLM API server version 0.7.3",
               "INFO 02-20 09:41:23 model_runner.py:1115] Loading model weights took 17.2181 GB",
               "INFO 02-20 09:41:27 executor_base.py:111] # cuda blocks: 540, # CPU blocks: 780",
               "INFO:     Application startup complete.",
               'INFO:     127.0.0.1:48832 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("first", [
    ["$ vllm serve google/gemma-2-9b-it --max-model-len 8192 --gpu-memory-utilization 0,9",
     "usage: vllm serve <model_tag> [options]",
     "vllm serve: error: argument --gpu-memory-utilization: invalid float value: '0,9'", "", "second try:", "",
     "$ vllm serve google/gemma-2-9b-it --max-model-len 8192 --gpu-memory-utilization 0.9"],
    ["$ vllm serve google/gemma-2-9b-it --max-model-len 8192 --max-num-seq 16",
     "vllm serve: error: unrecognized arguments: --max-num-seq 16", "",
     "$ vllm serve google/gemma-2-9b-it --max-model-len 8192 --max-num-seqs 16"],
])
def test_a_failure_followed_by_its_own_restart_command_is_its_own_run(first):
    rep = diag("\n".join(first + _SECOND_TRY))
    assert len(rep.runs) == 2 and rep.runs[0].kind == "NOT_OOM" and run_of(rep).kind == "NONE"
