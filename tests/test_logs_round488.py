"""Kinds of fault found in stop 50's held-out rounds (488 and later), each in several wordings of our own, with
guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import kind_of

_KILL = "2024-09-29T02:10:58.798995Z ERROR download: text_generation_launcher: Download process was signaled to shutdown with signal 9:"
_CONVERT = ("2024-09-29T02:10:45.234250Z  WARN text_generation_launcher: No safetensors weights found for model "
            "Intel/neural-chat-7b-v3-3 at revision None. Converting PyTorch weights to safetensors.")


# --- TGI's launcher exit names the step that failed, not the cause (h488/03, /04: was NOT_OOM) ---------------------

@pytest.mark.parametrize("order", ["kill-first", "exit-first"])  # (two streams interleaved: either comes first)
@pytest.mark.parametrize("prefix", ["", "tgi: ", "    tgi-1  | "])
def test_the_launchers_download_error_over_a_kill_is_the_weights_out_of_host_memory(order, prefix):
    tail = [_KILL, "Error: DownloadError"] if order == "kill-first" else ["Error: DownloadError", _KILL]
    assert kind_of([prefix + t for t in [_CONVERT, *tail]]) == ("WEIGHTS", "weights-exceed-system-memory")


def test_the_download_error_alone_names_no_cause():
    assert kind_of([_CONVERT, "Error: DownloadError"]) == ("UNDETERMINED", "failure-cause-not-shown")


def test_a_download_that_failed_on_the_network_stays_not_memory():
    lines = ["2024-09-29T02:10:58Z ERROR download: text_generation_launcher: Download encountered an error:",
             "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries "
             "exceeded with url: /api/models/x (Caused by NewConnectionError: [Errno 111] Connection refused)",
             "Error: DownloadError"]
    assert kind_of(lines)[0] == "NOT_OOM"


@pytest.mark.parametrize("line", ["Error: ShardFailed", "Error: WebserverFailed"])
def test_the_launchers_other_exits_are_wrappers(line):
    assert kind_of(["2025-01-01T00:00:00Z  INFO text_generation_launcher: Args { model_id: \"x\" }", line])[0] == (
        "UNDETERMINED")


# --- a run's survived failures fill the list and crowd out the one that ended it (h490/08: was UNDETERMINED) -------

def _survived(n: int) -> list[str]:
    return [f"[2026-02-26 16:30:42 TP{i}] Failed to import amdsmi with ModuleNotFoundError(\"No module named 'amdsmi'\")"
            for i in range(n)]


@pytest.mark.parametrize("error", ["TypeError: cannot unpack non-iterable ForwardMetadata object",
                                   "ValueError: head_dim 576 is not divisible by 64",
                                   "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"])
def test_the_failure_that_ends_the_run_is_kept_after_many_it_went_past(error):
    lines = [*_survived(8), "[2026-02-26 16:35:00 TP0] Load weight end. type=DeepseekV3ForCausalLM, avail mem=100.00 GB",
             "[2026-02-26 16:41:24 TP6] Scheduler hit an exception: Traceback (most recent call last):",
             '  File "/sgl/python/sglang/srt/model_executor/cuda_graph_runner.py", line 400, in capture',
             "    out = run_once()", error]
    kind = kind_of(lines)[0]
    assert kind == ("WARMUP" if "OutOfMemory" in error else "NOT_OOM")


def test_failures_not_gone_past_are_still_kept_first():
    # (no milestone after them: the run did not survive them, and the first eight stand)
    lines = [f"RuntimeError: CUDA error: device-side assert triggered (rank {i})" for i in range(8)]
    assert kind_of([*lines, "ValueError: something else"])[0] == "NOT_OOM"


# --- errors named in words of their own, not memory ----------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "text-embeddings-inference-1  | Intel MKL ERROR: Parameter 13 was incorrect on entry to SGEMM .",
    "Intel MKL ERROR: Parameter 8 was incorrect on entry to DGEMM.",
    " ** On entry to SGEMM  parameter number  8 had an illegal value",
])
def test_a_blas_librarys_argument_check(line):
    assert kind_of(["INFO text_embeddings_backend_candle: backends/candle/src/lib.rs:279: Starting Qwen3 model on Cpu",
                    line]) == ("NOT_OOM", "blas-bad-argument")


@pytest.mark.parametrize("line", [
    "Error: Could not create backend: Could not start ORT backend: Could not start backend: DType float16 is not supported",
    "Could not start backend: DType bfloat16 is not supported",
    "RuntimeError: dtype torch.float8_e4m3fn is not supported",
])
def test_a_back_end_without_the_data_type(line):
    assert kind_of([line]) == ("NOT_OOM", "dtype-unsupported")


def test_a_data_type_it_goes_on_without_is_no_failure():
    assert kind_of(["WARNING: DType bfloat16 is not supported, using float32 instead",
                    "INFO: Application startup complete."])[0] == "NONE"


@pytest.mark.parametrize("line", [
    "[rank0]:[E623 13:46:28.176383770 compiler_depend.ts:429] ReshapeAndCacheOperation setup failed!",
    "[E1001 10:00:00.1 compiler_depend.ts:429] PagedAttentionOperation setup failed!",
])
def test_an_ascend_operators_setup(line):
    assert kind_of(["INFO 06-23 13:44:08 [importing.py:53] Triton not installed; vllm-ascend platform plugin", line,
                    "RuntimeError: The Inner error is reported as above."]) == ("NOT_OOM", "npu-operator-setup-failed")


@pytest.mark.parametrize("line", [
    "ValueError: Not enough resources to allocate 2 placement groups, only created 1 placement groups. Available "
    "resources: {'node': {'CPU': 8.0, 'GPU': 1.0, 'memory': 22000000000.0}}",
    "ValueError: The number of required GPUs exceeds the total number of available GPUs in the placement group.",
    "ValueError: Not enough resources to allocate 4 placement groups, only created 2 placement groups.",
])
def test_too_few_gpus_for_the_ranks_is_not_memory(line):
    assert kind_of(["INFO 01-12 05:53:00 [api_server.py:1800] vLLM API server version 0.11.0", line])[0] == "NOT_OOM"


# --- failures named without their cause: UNDETERMINED, never NONE (h488/02, h489/12) --------------------------------

@pytest.mark.parametrize("lines", [
    ["Error", "Something went wrong", "LLAMA_CPP_PROCESS_ERROR", "The model process encountered an unexpected error.",
     "Details", "ggml_cuda_init: found 1 CUDA devices: Device 0: NVIDIA GeForce GTX 1060 6GB, compute capability 6.1"],
    ["[jan] Error: LLAMA_CPP_PROCESS_ERROR"],
])
def test_a_desktop_apps_dialog_for_its_dead_server(lines):
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


@pytest.mark.parametrize("line", [
    "2025-03-12T09:36:06.501161Z ERROR compat_generate{}:generate{}:generate: text_generation_router::infer: "
    "router/src/infer/mod.rs:246: Incomplete generation",
    "2024-05-01T10:00:00Z ERROR generate_stream{}:infer: text_generation_router::infer: router/src/infer/mod.rs:120: "
    "Incomplete generation stream",
])
def test_tgis_incomplete_generation_is_a_request_that_failed(line):
    assert kind_of([line]) == ("UNDETERMINED", "failure-cause-not-shown")


# --- NIM's profile selection: a refusal before anything loads (h491/04: was NONE, then WARMUP from "profile") ------

_NIM = ["INFO 07-26 09:44:00.18 ngc_profile.py:222] Running NIM without LoRA.",
        "INFO 07-26 09:44:00.18 ngc_profile.py:224]", "  Detected 0 compatible profile(s).",
        "INFO 07-26 09:44:00.18 ngc_profile.py:226]"]


@pytest.mark.parametrize("said", [
    ["  Detected additional 1 compatible profile(s) that are currently not", "    runnable due to low free GPU memory."],
    ["  Detected additional 2 compatible profile(s) that are currently not runnable due to low free GPU memory."],
])
def test_nims_profiles_not_runnable_for_free_memory(said):
    lines = [*_NIM, *said, "ERROR 07-26 09:44:00.18 utils.py:21]", "  Could not find a profile that is currently runnable",
             "    with the detected hardware."]
    kind, code = kind_of(lines)
    assert kind == "UNDETERMINED"
    if len(said) == 2:  # (NIM's own form, wrapped at its width; whole, the line reads as a sentence and the wrapper
        assert code == "guardrail-refused-load"  # below it stands alone: its code is the oom's phase not shown)


@pytest.mark.parametrize("line", ["a profile that is runnable", "profile(s) found: 3", "the profiles listed"])
def test_a_profile_as_a_noun_is_no_warm_up(line):
    assert kind_of([line, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"])[0] != "WARMUP"


def test_the_profile_run_is_still_the_warm_up():
    lines = ['  File "/vllm/worker/model_runner.py", line 1200, in profile_run', "    self.execute_model(",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"]
    assert kind_of(lines)[0] == "WARMUP"


# --- vllm-omni's warm-up failure in its own words, its cause cut by the paste (h495/06: the failure was not seen) ---

_DUMMY = ["[Stage-0] INFO 01-23 01:16:41 [diffusion_engine.py:309] dummy run to warm up the model",
          "[Stage-0] ERROR 01-23 01:16:57 [diffusion_engine.py:52] Dummy run failed: CUD"]


def test_the_dummy_runs_failure_cut_short_is_a_failure_not_none():
    assert kind_of([*_DUMMY, "```", "", "Any idea what is wrong?"]) == ("UNDETERMINED", "failure-cause-not-shown")


def test_the_dummy_runs_failure_under_a_title_of_oom_is_the_warm_up():
    assert kind_of(["OOM at start-up", "", *_DUMMY, "```"])[0] == "WARMUP"


def test_the_dummy_runs_out_of_memory_in_full_is_the_warm_up():
    assert kind_of([_DUMMY[0], _DUMMY[1] + "A out of memory. Tried to allocate 2.00 GiB"])[0] == "WARMUP"


# --- pydantic's ValidationError carrying a validator's own exception (h493/10: LangChain's VLLM, was NOT_OOM) -----

_VLLM_V04 = ["INFO 01-31 14:57:40 llm_engine.py:79] Initializing an LLM engine with config: "
             "model='mistralai/Mistral-7B-Instruct-v0.2', max_seq_len=32768",
             "INFO 01-31 14:57:56 llm_engine.py:275] # GPU blocks: 0, # CPU blocks: 2048"]


@pytest.mark.parametrize("field", [
    ["ValidationError: 1 validation error for VLLM", "__root__",
     "  No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine. "
     "(type=value_error)"],
    ["pydantic_core._pydantic_core.ValidationError: 1 validation error for VLLM",
     "  Value error, No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
     "initializing the engine. [type=value_error, input_value={'model': 'x'}, input_type=dict]"],
])
def test_a_validation_error_around_the_engines_own_error_is_that_error(field):
    assert kind_of([*_VLLM_V04, *field]) == ("KV_CAPACITY", "no-memory-for-kv-cache")


def test_a_validation_error_of_a_request_stays_not_memory():
    lines = ["ValidationError: 2 validation errors for Message", "content", "  field required (type=value_error.missing)"]
    assert kind_of(lines)[0] == "NOT_OOM"


# --- IPython's frame header lists the function's parameters: their names are no step (h493/07: was KV_CAPACITY) ---

_IPY_OOM = "OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 has a total capacity of 79.15 GiB"


@pytest.mark.parametrize("header", [
    "File /x/transformer_lens/components.py:583, in AbstractAttention.forward(self, query_input, key_input, value_input, "
    "past_kv_cache_entry, additive_attention_mask, attention_mask)",
    "File ~/lib/model.py:41, in Block.forward(self, x, kv_cache=None, mask=None)",
])
def test_a_parameter_named_for_the_cache_is_no_kv_step(header):
    lines = ["OutOfMemoryError                          Traceback (most recent call last)", header,
             "    581 attn_scores = self.hook_attn_scores(attn_scores)",
             "--> 583 pattern = torch.where(torch.isnan(pattern), 0, pattern)", "", _IPY_OOM]
    assert kind_of(lines)[0] != "KV_CAPACITY"


def test_a_function_named_for_the_cache_is_still_the_kv_step():
    lines = ["OutOfMemoryError                          Traceback (most recent call last)",
             "File /x/vllm/worker/cache_engine.py:88, in CacheEngine._allocate_kv_cache(self, num_blocks, device)",
             "---> 88 kv_cache.append(torch.zeros(kv_cache_shape, dtype=self.dtype, device=device))", "", _IPY_OOM]
    assert kind_of(lines)[0] == "KV_CAPACITY"


# --- Megatron and TransformerEngine building a layer's parameters on the GPU: the weights (h493/11) ---------------

_MEGATRON = ['[rank97]:   File "/usr/local/lib/python3.12/site-packages/megatron/core/transformer/spec_utils.py", line '
             '119, in build_module', "[rank97]:     return module(",
             '[rank97]:   File "/usr/local/lib/python3.12/site-packages/transformer_engine/pytorch/module/grouped_linear.py"'
             ', line 696, in __init__', "[rank97]:     torch.empty("]
_RANK_OOM = ("[rank97]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 48.00 MiB. GPU 1 has a total "
             "capacity of 139.81 GiB of which 22.44 MiB is free.")


@pytest.mark.parametrize("frames", [_MEGATRON, _MEGATRON[:2], _MEGATRON[2:]])
def test_a_layer_built_on_the_gpu_is_the_weights(frames):
    assert kind_of(["[rank97]: Traceback (most recent call last):", *frames, _RANK_OOM])[0] == "WEIGHTS"


def test_a_transformer_engine_modules_forward_is_not_the_weights():
    lines = ["[rank97]: Traceback (most recent call last):",
             '[rank97]:   File "/usr/local/lib/python3.12/site-packages/transformer_engine/pytorch/module/linear.py", '
             "line 1300, in forward", "[rank97]:     out = linear_fn(*args)", _RANK_OOM]
    assert kind_of(lines)[0] != "WEIGHTS"


def test_ipython_7s_frame_header_with_parameters_is_read_by_its_function():
    # (h494/03: vLLM 0.5's profile run under a notebook; the model's forward takes `kv_cache` as a parameter)
    lines = ["OutOfMemoryError                          Traceback (most recent call last)",
             "/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py in profile_run(self)",
             "--> 874         self.execute_model(model_input, kv_caches, intermediate_tensors)",
             "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/models/qwen2.py in forward(self, positions, "
             "hidden_states, kv_cache, attn_metadata, residual)",
             "--> 170         hidden_states = self.mlp(hidden_states)", "",
             "OutOfMemoryError: CUDA out of memory. Tried to allocate 74.00 MiB. GPU "]
    assert kind_of(lines)[0] == "WARMUP"


# --- Ray retrying a task is no failure of its own (h491/07: it had read NOT_OOM over the raylet's OOM kill) --------

_RAY_RETRY = ("(raylet) Task ServeController.listen_for_change failed. There are infinite retries remaining, so the task "
              "will be retried. Error: The actor is temporarily unavailable: IOError: The actor was restarted")


def test_a_ray_task_retried_after_an_oom_kill_leaves_the_kill_to_decide():
    lines = ["(raylet) [2025-10-20 02:33:52,521 E 380145 380145] (raylet) node_manager.cc:3099: 5 Workers (tasks / "
             "actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node",
             "(raylet) Refer to the documentation on how to address the out of memory issue.",
             "(ServeController pid=563547) WARNING 2025-10-20 02:33:52,741 controller -- Deployment 'x' has 1 replicas "
             "that have taken more than 30s to initialize.", "(ServeController pid=563547) This may be caused by a slow "
             "__init__ or reconfigure method.", "(raylet) ", _RAY_RETRY]
    assert kind_of(lines)[1] == "host-oom-kill"


def test_a_ray_task_retried_alone_is_no_failure():
    assert kind_of(["INFO 2025-10-20 02:33:37 controller -- Starting", _RAY_RETRY])[0] == "NONE"


# --- the new-user review of stop 50 ----------------------------------------------------------------------------------

_TGI_LOAD_OOM = ["2024-05-02T10:11:12.123456Z  INFO text_generation_launcher: Args { model_id: \"m\", num_shard: Some(2) }",
                 "2024-05-02T10:11:15.923456Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0",
                 "2024-05-02T10:11:33.102345Z ERROR text_generation_launcher: Error when initializing model",
                 "Traceback (most recent call last):",
                 '  File "/opt/conda/lib/python3.10/site-packages/text_generation_server/utils/weights.py", line 111, '
                 "in get_sharded", "    tensor = tensor.to(device=self.device)",
                 "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB."]


@pytest.mark.parametrize("replayed", [["Loading safetensors..."], ["Loading checkpoint shards: 100%|##########| 4/4"]])
def test_a_launchers_replay_of_the_shards_output_is_no_restart(replayed):
    lines = [*_TGI_LOAD_OOM,
             "2024-05-02T10:11:34.501234Z ERROR shard-manager: text_generation_launcher: Shard complete standard error "
             "output:", *replayed, " rank=0",
             "2024-05-02T10:11:34.600234Z ERROR text_generation_launcher: Shard 0 failed to start", "Error: ShardCannotStart"]
    assert kind_of(lines)[0] == "WEIGHTS"


_V1_WORKER = ["INFO 05-20 14:00:01 [core.py:58] Initializing a V1 LLM engine (v0.8.5) with config: model='q', "
              "tensor_parallel_size=2",
              "Loading safetensors checkpoint shards:  41% Completed | 7/17 [00:40<00:58,  5.80s/it]",
              "ERROR 05-20 14:01:12 [core.py:396] EngineCore failed to start.",
              "Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace "
              "for root cause."]


def test_vllms_worker_start_failure_names_no_cause():
    assert kind_of(_V1_WORKER) == ("UNDETERMINED", "failure-cause-not-shown")


@pytest.mark.parametrize("kill", ["dmesg: [123456.7] Out of memory: Killed process 442 (VllmWorker rank) "
                                  "total-vm:90123456kB, anon-rss:46012340kB", "Killed"])
def test_vllms_worker_start_failure_with_the_kernels_kill_is_the_weights(kill):
    assert kind_of([*_V1_WORKER, kill])[0] == "WEIGHTS"


@pytest.mark.parametrize("line", ["OSError: [WinError -529697949] Windows Error 0xe06d7363",
                                  "Exception code: 0xE06D7363 (unhandled C++ exception)"])
def test_an_unhandled_cpp_exception_on_windows_names_no_cause(line):
    lines = ['  File "D:\\\\proj\\\\.venv\\\\Lib\\\\site-packages\\\\llama_cpp\\\\llama.py", line 962, in __init__',
             "    self._ctx = _LlamaContext(", line]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


@pytest.mark.parametrize("line", [
    "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the "
    "'spawn' start method",
    "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].",
])
def test_start_up_errors_that_are_not_memory(line):
    assert kind_of(["INFO 02-14 08:00:00 api_server.py:585] vLLM API server version 0.6.4.post1", line])[0] == "NOT_OOM"


def test_both_reading_paths_see_the_replays_end(tmp_path):
    # (the block path feeds every line of a replay, so that the launcher's next line, which may hold no word any
    # pattern needs, ends it there as it does on the line-by-line path)
    from vramdoctor.logs import diagnose
    from vramdoctor.logs.reader import read_blocks, read_lines

    lines = [*_TGI_LOAD_OOM,
             "2024-05-02T10:11:34.501234Z ERROR shard-manager: text_generation_launcher: Shard complete standard error "
             "output:", "Loading safetensors...", " rank=0",
             "2024-05-02T10:11:34.600234Z  INFO text_generation_launcher: Shutting down shards",
             "text-generation-launcher --model-id m --num-shard 1",
             "2024-05-02T10:12:12.123456Z  INFO text_generation_launcher: Args { model_id: \"m\", num_shard: Some(1) }",
             "2024-05-02T10:12:40.123456Z  INFO text_generation_router: router/src/main.rs:320: Connected"]
    path = tmp_path / "tgi.log"
    path.write_text("\n".join(lines) + "\n")
    assert diagnose(read_lines(str(path))).to_dict() == diagnose(read_blocks(str(path))).to_dict()
