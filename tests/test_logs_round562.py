"""Kinds of fault found in stop 56: held-out round 562's misses and the rounds after it, each in several wordings of
our own, with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, kind_of, run_of


def _run(lines: list[str]):
    return run_of(diag("\n".join(lines)))


# --- a setting changed by the program "to avoid" a failure (h562/10: llama-server's "main: setting n_batch = n_ubatch
# = 512 to avoid assertion failure" at the top of a clean CPU run, read as a failure whose cause is not shown) --------

_CLEAN_LLAMA = [
    "main: loading model",
    "srv    load_model: loading model '/models/deepseek-coder-1.3b-instruct.Q4_K_M.gguf'",
    "llama_kv_cache:        CPU KV buffer size =  3072.00 MiB",
    "main: model loaded",
    "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
    "srv  update_slots: all slots are idle",
    "srv  log_server_r: request: POST /completion 127.0.0.1 200",
    "srv  update_slots: all slots are idle",
]


@pytest.mark.parametrize("line", [
    "main: setting n_batch = n_ubatch = 512 to avoid assertion failure",
    "WARNING: disabling CUDA graphs to prevent a crash in the custom all-reduce",
    "INFO: forcing eager mode in order to avoid a segmentation fault on this driver",
    "note: clamping n_ubatch to 256 so as to avoid an assertion error in the flash-attention kernel",
])
def test_a_setting_changed_to_avoid_a_failure_is_no_failure(line):
    assert kind_of([line] + _CLEAN_LLAMA)[0] == "NONE"


@pytest.mark.parametrize("line", [
    "RuntimeError: failed to avoid deadlock: assertion failure in scheduler",
    "GGML_ASSERT(n_batch >= n_ubatch) failed: setting n_batch = n_ubatch to avoid this; assertion failure",
    "Segmentation fault (core dumped)",
])
def test_a_failure_not_behind_avoid_is_still_one(line):
    assert kind_of(_CLEAN_LLAMA + [line])[0] != "NONE"


# --- a model's own inference method in remote code (h562/05: moondream2's "moondream.py in query(...)" ->
# "encode_image" -> "vision.py in vision_encoder" under a CUDA OOM, read as no phase) ----------------------------------

_OOM = ("OutOfMemoryError: CUDA out of memory. Tried to allocate 82.00 MiB. GPU 0 has a total capacity of 14.74 GiB of "
        "which 48.12 MiB is free. Of the allocated memory 14.44 GiB is allocated by PyTorch, and 131.21 MiB is reserved "
        "by PyTorch but unallocated.")


@pytest.mark.parametrize("frames", [
    ["OutOfMemoryError                          Traceback (most recent call last)",
     "---> 37             people = moondream.query(pil, \"How many people are there?\")",
     "~/.cache/huggingface/modules/transformers_modules/vikhyatk/moondream2/9a7d40/moondream.py in query(self, image, "
     "question, reasoning, spatial_refs, stream, settings)",
     "--> 561             image = self.encode_image(image, settings)",
     "~/.cache/huggingface/modules/transformers_modules/vikhyatk/moondream2/9a7d40/vision.py in vision_encoder(input_BCHW, "
     "w, config)"],
    ["Traceback (most recent call last):",
     '  File "/app/run.py", line 40, in <module>',
     "    response, history = model.chat(tokenizer, query=query, history=None)",
     '  File "/root/.cache/huggingface/modules/transformers_modules/Qwen-VL-Chat/modeling_qwen.py", line 947, in chat',
     "    outputs = self.generate(",
     '  File "/root/.cache/huggingface/modules/transformers_modules/Qwen-VL-Chat/visual.py", line 420, in encode',
     "    x = self.transformer(x)"],
    ["Cell In[4], line 3",
     "----> 3 responses = model.batch_chat(tokenizer, pixel_values, questions=questions)",
     "File ~/.cache/huggingface/modules/transformers_modules/InternVL2-8B/modeling_internvl_chat.py:285, in "
     "InternVLChatModel.batch_chat(self, tokenizer, pixel_values, questions)",
     "File ~/.cache/huggingface/modules/transformers_modules/InternVL2-8B/modeling_internvl_chat.py:330, in "
     "InternVLChatModel.extract_feature(self, pixel_values)"],
])
def test_a_remote_code_models_inference_method_is_serving(frames):
    assert kind_of(["Loading checkpoint shards: 100%|██████████| 4/4 [00:05<00:00,  1.3s/it]"] + frames + [_OOM]) == (
        "RUNTIME", kind_of(["Loading checkpoint shards: 100%|██████████| 4/4"] + frames + [_OOM])[1])
    assert kind_of(frames + [_OOM])[0] == "RUNTIME"


def test_a_remote_code_models_load_stays_the_weights():
    frames = ["Traceback (most recent call last):",
              '  File "/app/run.py", line 12, in <module>',
              "    model = AutoModel.from_pretrained(path, trust_remote_code=True).cuda()",
              '  File "/root/.cache/huggingface/modules/transformers_modules/InternVL2-8B/modeling_internvl_chat.py", '
              "line 51, in __init__",
              "    self.vision_model = InternVisionModel(config.vision_config)"]
    assert kind_of(frames + [_OOM])[0] != "RUNTIME"


# --- LoRA merged into the base weights (h562/11: peft's merge_and_unload -> onload_layer -> AlignDevicesHook.pre_forward
# -> set_module_tensor_to_device under a CUDA OOM, read as no phase) ---------------------------------------------------

@pytest.mark.parametrize("frames", [
    ["----> 7 model = model.merge_and_unload()",
     "File /opt/conda/lib/python3.10/site-packages/peft/tuners/lora/model.py:784, in LoraModel.merge_and_unload(self, "
     "progressbar, safe_merge, adapter_names)",
     "File /opt/conda/lib/python3.10/site-packages/peft/tuners/lora/model.py:435, in "
     "LoraModel._unload_and_optionally_merge(self, merge, progressbar, safe_merge, adapter_names)",
     "File /opt/conda/lib/python3.10/site-packages/peft/tuners/tuners_utils.py:60, in onload_layer(layer)",
     "File /opt/conda/lib/python3.10/site-packages/accelerate/hooks.py:347, in AlignDevicesHook.pre_forward(self, "
     "module, *args, **kwargs)",
     "File /opt/conda/lib/python3.10/site-packages/accelerate/utils/modeling.py:399, in set_module_tensor_to_device("
     "module, tensor_name, device, value)"],
    ["Traceback (most recent call last):",
     '  File "merge.py", line 22, in <module>',
     "    merged = peft_model.merge_and_unload(safe_merge=True)",
     '  File "/usr/lib/python3/site-packages/peft/tuners/lora/model.py", line 700, in merge_and_unload',
     '  File "/usr/lib/python3/site-packages/peft/tuners/lora/layer.py", line 470, in merge',
     "    orig_weights = base_layer.weight.data.clone()"],
    ["Traceback (most recent call last):",
     '  File "/workspace/export.py", line 30, in <module>',
     '    model.save_pretrained_merged("out", tokenizer, save_method="merged_16bit")',
     '  File "/usr/local/lib/python3.11/site-packages/unsloth/save.py", line 1200, in unsloth_save_pretrained_merged',
     '  File "/usr/local/lib/python3.11/site-packages/unsloth/save.py", line 600, in unsloth_save_model',
     '  File "/usr/local/lib/python3.11/site-packages/unsloth/save.py", line 180, in _merge_lora',
     "    W = fast_dequantize(W, quant_state)"],
])
def test_lora_merged_into_the_weights_is_the_weights(frames):
    assert kind_of(frames + [_OOM])[0] == "WEIGHTS"


def test_an_offloaded_models_onload_during_generate_stays_serving():
    frames = ["Traceback (most recent call last):",
              '  File "gen.py", line 9, in <module>',
              "    out = model.generate(**inputs, max_new_tokens=64)",
              '  File "/usr/lib/python3/site-packages/transformers/generation/utils.py", line 2015, in generate',
              '  File "/usr/lib/python3/site-packages/accelerate/hooks.py", line 165, in new_forward',
              '  File "/usr/lib/python3/site-packages/accelerate/hooks.py", line 347, in pre_forward',
              '  File "/usr/lib/python3/site-packages/accelerate/utils/modeling.py", line 399, in '
              'set_module_tensor_to_device']
    assert kind_of(frames + [_OOM])[0] == "RUNTIME"


# --- free memory said to be below what is required (h562/06: a vLLM fork's "Tiered MoE observed free HBM is below the
# runtime reserve: 13330546688 bytes available, 15000000000 required" in compile_or_warm_up_model, read as an error not
# about memory) ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "RuntimeError: Tiered MoE observed free HBM is below the runtime reserve: 13330546688 bytes available, "
    "15000000000 required",
    "ValueError: free memory 1.5 GiB is below the required 4 GiB reserve",
    "RuntimeError: available GPU memory (3.1 GiB) is less than the minimum required for the draft model",
    "error: free VRAM is lower than the configured headroom (512 MiB < 1024 MiB)",
])
def test_free_memory_said_below_what_is_required_is_memory(line):
    assert kind_of([line])[0] == "UNDETERMINED"
    assert kind_of([line])[1] == "oom-phase-not-shown"


_VLLM_UP = ["INFO 07-25 10:00:01 [gpu_model_runner.py:2000] Model loading took 70.1 GiB and 30.2 seconds",
            "INFO 07-25 10:01:00 [gpu_worker.py:300] Available KV cache memory: 28.22 GiB",
            "INFO 07-25 10:01:01 [kv_cache_utils.py:1000] GPU KV cache size: 400,000 tokens",
            "INFO 07-25 10:02:00 [gpu_model_runner.py:3000] Graph capturing finished in 30 secs, took 1.2 GiB",
            "ERROR 07-25 10:02:05 [multiproc_executor.py:700] WorkerProc hit an exception.",
            "Traceback (most recent call last):",
            '  File "/vllm/v1/worker/gpu_worker.py", line 400, in compile_or_warm_up_model',
            "    check_reserve(self.model_runner)"]


def test_free_memory_below_a_reserve_after_graph_capture_is_the_warm_up():
    lines = _VLLM_UP[:7] + ["RuntimeError: Tiered MoE observed free HBM is below the runtime reserve: 13330546688 bytes "
                            "available, 15000000000 required"]
    assert kind_of(lines)[0] == "WARMUP"


@pytest.mark.parametrize("line, kind", [
    ("INFO: free memory (20.1 GiB) is above the required reserve (4 GiB), continuing", ("NONE", "no-memory-problem")),
    ("ValueError: Free memory on device (13.5/79.1 GiB) on startup is less than desired GPU memory utilization "
     "(0.9, 71.2 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
     ("NOT_OOM", "gpu-shared-with-other-process")),
])
def test_other_free_memory_comparisons_keep_their_reading(line, kind):
    assert kind_of([line]) == kind


# --- a request refused, quoted on the report's own line (h565/06: "报错：The decoder prompt contains a(n) audio item
# with 29537 embedding tokens, which exceeds the pre-allocated encoder cache size 2048", read as a failure whose cause
# is not shown) ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "报错：The decoder prompt contains a(n) audio item with 29537 embedding tokens, which exceeds the pre-allocated "
    "encoder cache size 2048",
    "出现错误：ValueError: The decoder prompt (length 9000) is longer than the maximum model length of 4096.",
    "The error I get: This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",
])
def test_a_refusal_quoted_on_the_reports_line_is_the_refusal(line):
    assert kind_of(["vllm部署会限制输入音频长度", "", line]) == ("NOT_OOM", "requests-refused-too-long")



# --- an exception that says its input could not be parsed (h565/02: onnxruntime-genai's "OrtException: Failed to parse
# the cuda graph annotation id: -1", read as a failure whose cause is not shown) -------------------------------------

_TB = ["Traceback (most recent call last):", '  File "model-qa.py", line 47, in main', "    generator.compute_logits()"]


@pytest.mark.parametrize("line", [
    "onnxruntime_genai.onnxruntime_genai.OrtException: Failed to parse the cuda graph annotation id: -1",
    "ValueError: Failed to parse the config file: missing key",
    "RuntimeError: Unable to parse the chat template: unexpected '}'",
    "serde.DeserializeError: could not deserialize the tokenizer: eof",
])
def test_an_exception_that_could_not_parse_its_input_is_not_memory(line):
    assert kind_of(_TB + [line])[0] == "NOT_OOM"


@pytest.mark.parametrize("line", [
    "RuntimeError: Failed to parse the response: CUDA out of memory",
    "RuntimeError: Failed to parse the KV cache block table: 3 blocks",
])
def test_a_parse_failure_that_speaks_of_memory_is_not_ruled_out(line):
    assert kind_of(_TB + [line])[0] != "NOT_OOM"


# --- a start-up frame the progress is past, innermost (h562/06: the warm-up's check in vLLM's model_loader package,
# "model_loader/tiered_moe_physical.py", under "gpu_worker.py ... in compile_or_warm_up_model" after "Graph capturing
# finished": the loader's frame, a weights step, was the innermost, and no phase was read) ----------------------------




@pytest.mark.parametrize("inner", [
    '  File "/vllm/model_executor/model_loader/tiered_moe_physical.py", line 124, in validate_hbm_reserve',
    '  File "/vllm/model_executor/model_loader/utils.py", line 50, in process_weights_after_loading',
])
def test_a_loader_helper_under_the_warm_up_is_the_warm_up(inner):
    lines = _VLLM_UP + [inner, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    assert kind_of(lines)[0] == "WARMUP"


def test_a_loader_frame_alone_after_the_warm_up_stays_open():
    lines = _VLLM_UP[:5] + ["Traceback (most recent call last):",
                            '  File "/vllm/model_executor/model_loader/utils.py", line 50, in process_weights_after_loading',
                            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    assert kind_of(lines)[0] != "WEIGHTS"


# --- the engine's "still waiting" line, minute after minute, after the start-up's last step (h564/06: vLLM 0.31 TP=2
# captured its graphs with memory to spare, then printed "No available shared memory broadcast block found in 60
# seconds" 58 times and nothing else, read as a log that ends before the server was ready) ----------------------------

_WAIT = ("(EngineCore pid=1445363) INFO 10-09 12:{:02d}:50 [shm_broadcast.py:812] No available shared memory broadcast "
         "block found in 60 seconds. This typically happens when some processes are hanging or doing some "
         "time-consuming work (e.g. compilation, weight/kv cache quantization).")
_CAPTURED = ["(Worker_TP0 pid=1445492) INFO 10-09 11:05:00 [gpu_model_runner.py:3000] Model loading took 12.1 GiB",
             "(Worker_TP0 pid=1445492) INFO 10-09 11:09:00 [gpu_worker.py:300] Available KV cache memory: 8.2 GiB",
             "(EngineCore pid=1445363) INFO 10-09 11:09:01 [kv_cache_utils.py:1000] GPU KV cache size: 120,000 tokens",
             "(Worker_TP0 pid=1445492) INFO 10-09 11:10:39 [gpu_model_runner.py:6854] Graph capturing finished in 12 "
             "secs, took 0.92 GiB"]


@pytest.mark.parametrize("waits", [
    [_WAIT.format(m) for m in range(11, 20)],
    # (the older worker form, "60 second", and its file tag only)
    [f"(VllmWorker rank=1 pid=2231) INFO 10-09 12:{m:02d}:02 [shm_broadcast.py:466] No available shared memory "
     "broadcast block found in 60 second." for m in range(11, 17)],
    # (the engine's init timed after the capture, then the waits)
    ["(EngineCore pid=1445363) INFO 10-09 11:10:40 [core.py:200] init engine (profile, create kv cache, warmup "
     "model) took 95.2 seconds"] + [_WAIT.format(m) for m in range(11, 18)],
])
def test_waiting_minute_after_minute_after_the_start_ups_last_step_is_a_stall(waits):
    assert kind_of(_CAPTURED + waits) == ("NOT_OOM", "process-stalled")


def test_a_few_waits_after_the_capture_are_no_stall_yet():
    assert kind_of(_CAPTURED + [_WAIT.format(m) for m in range(11, 14)])[1] != "process-stalled"


def test_waits_while_compiling_are_no_stall():
    lines = _CAPTURED[:1] + ["(Worker_TP0 pid=1445492) INFO 10-09 11:05:40 [backends.py:530] Dynamo bytecode "
                             "transform time: 10.38 s"] + [_WAIT.format(m) for m in range(11, 20)]
    assert kind_of(lines)[1] != "process-stalled"


# --- llama-server answering bodies it cannot read as JSON with a 500 (h564/13: every request "got exception:
# {"error":{"code":500,"message":"[json.exception.parse_error.101] parse error at line 1, column 1: attempting to parse
# an empty input ..."}}", read as no failure) ----------------------------------------------------------------------------

_LOADED = ["0.02.173.522 I srv    load_model: loading model 'unsloth/Qwen3.6-35B-A3B-GGUF:UD-Q4_K_XL'",
           "0.36.355.081 I srv    load_model: initializing, n_slots = 4, n_ctx_slot = 8192, kv_unified = 'true'",
           "0.36.376.854 I srv  llama_server: model loaded",
           "0.36.376.858 I srv  llama_server: listening on http://127.0.0.1:8080"]
_BAD_BODY = ('0.38.0{:02d}.688 W srv    operator(): got exception: {{"error":{{"code":500,"message":"[json.exception.'
             '{}] {}","type":"server_error"}}}}')


@pytest.mark.parametrize("which, words", [
    ("parse_error.101", "parse error at line 1, column 1: attempting to parse an empty input; check that your input "
                        "string or stream contains the expected JSON"),
    ("type_error.302", "type must be string, but is null"),
    ("parse_error.101", "parse error at line 1, column 12: syntax error while parsing object - unexpected '}'"),
])
def test_every_request_answered_that_its_body_is_not_json_is_the_clients_error(which, words):
    lines = _LOADED + [_BAD_BODY.format(i, which, words) for i in range(5)] + [
        "0.38.116.609 I srv    operator(): operator(): cleaning up before exit..."]
    assert kind_of(lines) == ("NOT_OOM", "requests-answered-with-client-error")


def test_one_bad_body_among_answered_requests_is_no_failure():
    lines = _LOADED + [_BAD_BODY.format(1, "parse_error.101", "parse error at line 1, column 1: attempting to parse "
                                        "an empty input"),
                       "srv  log_server_r: request: POST /completion 127.0.0.1 200",
                       "srv  log_server_r: request: POST /completion 127.0.0.1 200"]
    assert kind_of(lines)[0] == "NONE"


# --- one Metal buffer larger than the device allows, while generating (h566/09: MLX Swift's "Attempting to allocate
# 9948865536 bytes which is greater than the maximum allowed buffer size" under the report's "long prompts that fit in
# the context window can still exceed ..."; h558/05: mlx_vlm's "Error during stream generation: [metal::malloc] ...";
# both read as no phase) ---------------------------------------------------------------------------------------------

_METAL = ("libc++abi: terminating due to uncaught exception of type std::runtime_error: Attempting to allocate "
          "9948865536 bytes which is greater than the maximum allowed buffer size of 8589934592 bytes.")


@pytest.mark.parametrize("words", [
    "I check the prompt against the context window, but long prompts that fit in the context window can still exceed "
    "the maximum allowed buffer size:",
    "With a 64K-token prompt the app aborts:",
    "It works for short chats; sending a long prompt crashes it like this:",
])
def test_a_metal_buffer_too_large_for_a_long_prompt_is_serving(words):
    assert kind_of(["Avoid exceeding maximum allowed buffer size", "", words, "", "```", _METAL, "```"])[0] == "RUNTIME"


@pytest.mark.parametrize("line", [
    "Error during stream generation: [metal::malloc] Attempting to allocate 524492820000 bytes which is greater than "
    "the maximum allowed buffer size of 86586540032 bytes.",
    "ERROR: Error in generation: [metal::malloc] Attempting to allocate 131043329568 bytes which is greater than the "
    "maximum allowed buffer size of 86586540032 bytes.",
])
def test_a_metal_buffer_too_large_while_generating_is_serving(line):
    assert kind_of(["If you pass a context of 64K or more you get this error:", line])[0] == "RUNTIME"


def test_a_metal_buffer_too_large_while_loading_is_not_serving():
    lines = ["Loading the model takes a while and then fails; long prompts are not the problem here:",
             "Error during model loading: [metal::malloc] Attempting to allocate 9948865536 bytes which is greater "
             "than the maximum allowed buffer size of 8589934592 bytes."]
    assert kind_of(lines)[0] != "RUNTIME"


# --- memory kept after what held it went away (h566/02: "VRAM use ... jumps by a couple GB, and stays at just over 3 GB
# even after the model is unloaded", read as no memory problem) -------------------------------------------------------

_WEBUI = ["2023-06-12 00:23:43 INFO:Loading TheBloke_guanaco-65B-GGML...",
          "2023-06-12 00:24:10 INFO:Loaded the model in 27.10 seconds.",
          "Output generated in 12.03 seconds (9.23 tokens/s, 111 tokens, context 52, seed 12345)"]


@pytest.mark.parametrize("words", [
    "When inference starts, VRAM use in the GPU it designates as the main device immediately jumps by a couple GB, "
    "and stays at just over 3 GB even after the model is unloaded.",
    "GPU memory remains occupied after the instance is stopped, so the next start runs out.",
    "RAM usage is still at 20 GB after I unload the model in the UI.",
])
def test_memory_kept_after_its_holder_went_away_is_a_leak(words):
    assert kind_of(["VRAM not freed", "", words, "", "```"] + _WEBUI + ["```"])[0] == "LEAK"


@pytest.mark.parametrize("words", [
    "GPU memory is still free after the model is unloaded, as expected.",
    "VRAM goes back to normal after I unload the model.",
    "The memory stays at 3 GB while the model is loaded, which is what I expect.",
])
def test_memory_freed_or_held_while_in_use_is_no_leak(words):
    assert kind_of(["Question about VRAM", "", words, "", "```"] + _WEBUI + ["```"])[0] != "LEAK"


# --- KoboldCpp's summary of a generation answered (h566/11: "CtxLimit: 3768/4096, Process:0.44s ..., Total:0.45s" under
# a report that the output goes empty, read as a failure whose cause is not shown) -------------------------------------

@pytest.mark.parametrize("summary", [
    "CtxLimit: 3768/4096, Process:0.44s (442.0ms/T = 2.26T/s), Generate:0.00s (3.0ms/T = 333.33T/s), Total:0.45s "
    "(2.25T/s)",
    "CtxLimit:2048/8192, Amt:120/120, Init:0.01s, Process:1.20s (5.0ms/T = 200.00T/s), Generate:4.10s (34.2ms/T = "
    "29.27T/s), Total:5.30s (22.64T/s)",
    "ContextLimit: 1800/2048, Processing:0.50s (2.0ms/T), Generation:3.20s (26.7ms/T), Total:3.70s (32.4T/s)",
])
def test_a_kobold_answer_at_the_logs_end_is_the_server_answering(summary):
    lines = ["Output stops abruptly after ~20 messages", "", "```", "Processing Prompt (1 / 1 tokens)",
             "Generating (1 / 242 tokens)", "(EOS token triggered! ID:2)", summary, "Output:", "```"]
    assert kind_of(lines)[0] == "NONE"


# --- llama.cpp's KV cache failing in host RAM before its buffer (CI's real-server run: under an address-space limit the
# cache's cells, made right after llama_context's "output buffer size" line, failed with "failed to initialize the
# context: std::bad_alloc", read as host RAM at an undetermined step) ------------------------------------------------

_CTX = ["0.00.010.145 I load_tensors:          CPU model buffer size =     9.13 MiB",
        "0.00.018.922 I llama_context: constructing llama_context",
        "0.00.018.937 I llama_context: n_ctx                 = 1000192",
        "0.00.018.951 W llama_context: n_ctx_seq (1000192) > n_ctx_train (4096) -- possible training context overflow",
        "0.00.019.006 I llama_context:        CPU  output buffer size =     0.00 MiB"]
_BAD_ALLOC = ["0.00.059.151 E llama_init_from_model: failed to initialize the context: std::bad_alloc",
              "0.00.059.436 E cmn  common_init_: failed to create context with model '/models/tiny-llama.gguf'",
              "0.00.061.826 E srv  llama_server: exiting due to model loading error"]


def test_a_bad_alloc_as_llama_context_makes_its_kv_cache_is_the_kv_cache_in_host_ram():
    run = _run(_CTX + _BAD_ALLOC)
    assert (run.kind, run.code) == ("KV_CAPACITY", "kv-cache-alloc-failed")
    changes = [a["change"] for a in run.advice]
    assert "shorter context" in changes and "more host memory" in changes
    assert not any(a["flags"].startswith("-nkvo") for a in run.advice)  # (already in host RAM: not off the GPU)


def test_a_bad_alloc_after_the_2024_output_buffer_is_not_the_kv_cache():
    """(2024 builds printed the output buffer under llama_new_context_with_model after the KV cache, before the
    compute buffers)"""
    old = ["llama_new_context_with_model: n_ctx      = 1000192",
           "llama_kv_cache_init:        CPU KV buffer size =   976.75 MiB",
           "llama_new_context_with_model: KV self size  =  976.75 MiB, K (f16):  488.38 MiB, V (f16):  488.38 MiB",
           "llama_new_context_with_model:        CPU  output buffer size =     0.12 MiB",
           "llama_init_from_gpt_params: error: failed to create context with model 'x.gguf': std::bad_alloc"]
    assert kind_of(old)[0] != "KV_CAPACITY"


# --- a failure told as past and fixed, its error quoted (review 56: "Before, vLLM refused to start with \"ValueError:
# The model's max seq len (32768) is larger than ...\". I set --max-model-len 16384 and now it starts and answers
# fine" above the working run's log, read as that error) -------------------------------------------------------------

_WORKING = ["INFO 01-22 10:14:41 [api_server.py:912] vLLM API server version 0.7.0",
            "INFO 01-22 10:15:20 [worker.py:267] Memory profiling takes 4.1 seconds",
            "INFO 01-22 10:15:21 [executor_base.py:110] # CUDA blocks: 1105, # CPU blocks: 512",
            "INFO:     Application startup complete.",
            'INFO:     127.0.0.1:40120 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("words", [
    'Previously the engine died with "ValueError: No available memory for the cache blocks. Try increasing '
    '`gpu_memory_utilization` when initializing the engine." After lowering max_num_seqs it runs fine.',
    'At first I hit `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.2 GiB.` on every start, but that '
    'went away with --enforce-eager.',
    "Resolved: the “max seq len (65536) is larger than the maximum number of tokens that can be stored in KV cache” "
    "error is gone with max-model-len 32768.",
    "原来一直报 “CUDA out of memory”，换成 AWQ 模型后现在可以正常推理了。",
    "以前は「ValueError: No available memory for the cache blocks」で起動できませんでしたが、設定を変えたら正常に動作しています。",
])
def test_a_failure_told_as_past_and_fixed_is_none_of_the_working_run(words):
    assert kind_of([words, ""] + _WORKING)[0] == "NONE"


@pytest.mark.parametrize("words", [
    'It used to run fine, but since 0.7.0 it fails with "ValueError: No available memory for the cache blocks."',
    'Before the upgrade it worked. Now every start ends with "torch.OutOfMemoryError: CUDA out of memory. Tried to '
    'allocate 2.00 GiB."',
])
def test_a_failure_that_came_after_it_worked_is_still_one(words):
    assert kind_of(_WORKING[:2] + [words])[0] != "NONE"


# --- a start-up's rise read as growth (review 56: nvidia-smi readings 1 MiB -> 41420 MiB over the first 40 s, then
# flat; "VRAM climbs from 1 GB to 40 GB in the first minute after starting the server, then stays flat for hours";
# "Memory keeps increasing during startup (0.5 GB -> 15 GB -> 38 GB -> 41 GB) and then stops": read as LEAK) --------

_UP = ["INFO 05-12 09:00:04 [api_server.py:1043] vLLM API server version 0.8.5",
       "INFO 05-12 09:00:21 [gpu_model_runner.py:1347] Model loading took 14.9889 GiB and 6.82 seconds",
       "INFO:     Application startup complete.",
       'INFO:     127.0.0.1:40120 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("words", [
    ["GPU memory goes up from 2 GB to 44 GB while the server starts and then levels off at 44 GB."],
    ["RAM rises 1.1 GB -> 9.8 GB -> 17.5 GB -> 17.6 GB in the first minute, then stays steady all day."],
    ["Right after launch: 0.4 GB -> 12 GB -> 30 GB -> 31 GB, then it plateaus."],
    ["timestamp, memory.used [MiB]", "2025/05/12 09:00:00.112, 1 MiB", "2025/05/12 09:00:10.118, 2048 MiB",
     "2025/05/12 09:00:20.121, 20480 MiB", "2025/05/12 09:00:30.125, 30720 MiB", "2025/05/12 09:00:40.130, 30720 MiB"],
])
def test_a_rise_that_stops_is_no_leak(words):
    assert kind_of(words + [""] + _UP)[0] != "LEAK"


@pytest.mark.parametrize("words", [
    ["Memory keeps growing 10 GB -> 14 GB -> 19 GB -> 25 GB over two days of serving."],
    ["timestamp, memory.used [MiB]", "2025/05/12 09:00:00.112, 30720 MiB", "2025/05/12 12:00:00.118, 33000 MiB",
     "2025/05/12 15:00:00.121, 36000 MiB", "2025/05/12 18:00:00.125, 39500 MiB", "2025/05/12 21:00:00.130, 43000 MiB"],
])
def test_a_rise_that_goes_on_is_still_growth(words):
    assert kind_of(words + [""] + _UP)[0] == "LEAK"


# --- vLLM's wait line from an engine with nothing to do (review 56: an idle 0.8 server whose last statistics say
# "Running: 0 reqs, Waiting: 0 reqs", then six waits; an offline batch finished, "Processed prompts: 100%", and the
# script scoring its answers on the CPU: read as a stuck process) ----------------------------------------------------

_W = "INFO 04-02 10:{:02d}:51 [shm_broadcast.py:439] No available shared memory broadcast block found in 60 second."


@pytest.mark.parametrize("before", [
    ["INFO 04-02 10:05:51 [loggers.py:111] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: "
     "0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 12.1%"],
    ["INFO 04-02 10:05:51 metrics.py:351] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 "
     "tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.0%, CPU KV cache usage: 0.0%."],
    ["Processed prompts: 100%|██████████| 500/500 [03:10<00:00,  2.62it/s, est. speed input: 900.1 toks/s]",
     "Writing answers and grading them on the CPU...",
     "grading:  40%|████      | 200/500 [01:00<01:30,  3.33it/s]"],
])
def test_waits_of_an_engine_with_nothing_to_do_are_no_stall(before):
    lines = ["INFO:     Application startup complete.",
             'INFO:     10.0.3.14:41138 - "POST /v1/chat/completions HTTP/1.1" 200 OK'] + before + [
        _W.format(m) for m in range(6, 12)]
    assert kind_of(lines)[1] != "process-stalled"


def test_waits_while_requests_wait_are_a_stall():
    lines = ["INFO:     Application startup complete.",
             'INFO:     10.0.3.14:41138 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             "INFO 04-02 10:05:51 [loggers.py:111] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
             "throughput: 0.0 tokens/s, Running: 3 reqs, Waiting: 5 reqs, GPU KV cache usage: 7.0%"] + [
        _W.format(m) for m in range(6, 9)]
    assert kind_of(lines) == ("NOT_OOM", "process-stalled")


def test_llama_servers_bare_exception_line_among_answered_requests_is_no_report():
    """(review 56: 2024-25 llama-server logs 'got exception: {...}' with no prefix; read as the report's own words that
    the run failed)"""
    lines = ["main: server is listening on http://0.0.0.0:8080 - starting the main loop",
             "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
             'got exception: {"code":500,"message":"[json.exception.parse_error.101] parse error at line 1, column 1: '
             'attempting to parse an empty input","type":"server_error"}',
             "srv  log_server_r: request: POST /completion 192.168.1.20 500",
             "slot print_timing: id  0 | task 3 | ",
             "prompt eval time =     201.40 ms /   311 tokens (    0.65 ms per token,  1544.19 tokens per second)",
             "srv  log_server_r: request: POST /v1/chat/completions 192.168.1.20 200"]
    assert kind_of(lines)[0] == "NONE"


# --- a host OOM kill while one worker still loads after another finished (h567/02: Ray's "(WorkerDict pid=1513946)
# Loading checkpoint shards:  75%| 3/4 [repeated 5x across cluster]" under another worker's 100%, then slurmstepd's
# "Detected 1 oom_kill event", read as after the weights) -----------------------------------------------------------

_RAY = ["(WorkerDict pid=1515660) Loading checkpoint shards:   0%|          | 0/4 [00:00<?, ?it/s]",
        "(WorkerDict pid=1515660) Loading checkpoint shards: 100%|██████████| 4/4 [00:04<00:00,  1.08s/it]",
        "(WorkerDict pid=1513946) Loading checkpoint shards:   0%|          | 0/4 [00:00<?, ?it/s]"]


@pytest.mark.parametrize("bar, kill", [
    ("(WorkerDict pid=1513946) Loading checkpoint shards:  75%|███████▌  | 3/4 [00:03<00:01,  1.23s/it] [repeated 5x "
     "across cluster]", "slurmstepd: error: Detected 1 oom_kill event in StepId=3274479.batch. Some of the step tasks "
                        "have been OOM Killed."),
    ("(WorkerDict pid=1513946) Loading checkpoint shards:  50%|█████     | 2/4 [00:02<00:02,  1.10s/it]",
     "[12345.678] Out of memory: Killed process 1513946 (ray::WorkerDict) total-vm:98765432kB, anon-rss:61234567kB"),
])
def test_a_host_kill_while_a_worker_still_loads_is_the_weights(bar, kill):
    assert kind_of(_RAY + [bar, kill])[0] == "WEIGHTS"


def test_a_host_kill_after_every_worker_loaded_stays_open():
    lines = _RAY + ["(WorkerDict pid=1513946) Loading checkpoint shards: 100%|██████████| 4/4 [00:04<00:00,  1.1s/it]",
                    "slurmstepd: error: Detected 1 oom_kill event in StepId=3274479.batch. Some of the step tasks "
                    "have been OOM Killed."]
    assert kind_of(lines)[0] != "WEIGHTS"


# --- an engine's message re-wrapped under a hanging indent (h568/11: "[rank0] ValueError: Free memory on device cuda:0
# (19.5/22.03 GiB) on startup is less" / "        than desired GPU memory utilization (0.9, 19.83 GiB).", read as a
# line cut partway) ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("head, rest, kind", [
    ("[rank0] ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less",
     "        than desired GPU memory utilization (0.9, 19.83 GiB).", ("NOT_OOM", "gpu-shared-with-other-process")),
    ("ValueError: The model's max seq len (32768) is larger than the maximum",
     "    number of tokens that can be stored in KV cache (17680). Try increasing `gpu_memory_utilization` or "
     "decreasing `max_model_len` when initializing the engine.", ("KV_CAPACITY", "max-model-len-exceeds-kv-cache")),
])
def test_a_message_rewrapped_under_a_hanging_indent_is_read_whole(head, rest, kind):
    lines = ['[rank0] File ".../vllm/v1/worker/gpu_worker.py", line 283, in init_device', head, rest]
    assert kind_of(lines) == kind


# --- FlexGen's own steps (h559/02: "warmup - init weights" and then a copy worker's pinned buffer, "RuntimeError: CUDA
# error: out of memory", read as the warm-up from the word "warmup") ---------------------------------------------------

_FLEX = ["model size: 12.386 GB, cache size: 1.062 GB, hidden size (prefill): 0.017 GB"]
_FLEX_OOM = ["Traceback (most recent call last):",
             '  File "/home/user/FlexGen/flexgen/pytorch_backend.py", line 881, in copy_worker_func',
             "    cpu_buf = torch.empty((1 * GB,), dtype=torch.float16, pin_memory=True)",
             "RuntimeError: CUDA error: out of memory"]


@pytest.mark.parametrize("steps, kind", [
    (["warmup - init weights"], "WEIGHTS"),
    (["warmup - init weights", "warmup - generate"], "WARMUP"),
    (["warmup - init weights", "warmup - generate", "benchmark - generate"], "RUNTIME"),
])
def test_flexgens_steps_place_the_failure(steps, kind):
    run = _run(_FLEX + steps + _FLEX_OOM)
    assert run.engine == "flexgen" and run.kind == kind


# --- a log that is not from a run of the report's own (review 56b: an Ollama error "pasted from a blog post ... I
# haven't tried it myself yet", read as WEIGHTS; the vLLM troubleshooting page's OOM quoted, "I haven't run anything
# yet") --------------------------------------------------------------------------------------------------------------

_QUOTED_OOM = ["    CUDA error: out of memory",
               "      current device: 0, in function ggml_backend_cuda_buffer_type_alloc_buffer at ggml-cuda.cu:10913",
               "    llama_model_load: error loading model: unable to allocate backend buffer"]


@pytest.mark.parametrize("words", [
    "A friend copied this from a tutorial, it is what you get with a 70B model on one 3090. I have not run it yet:",
    "The docs show this error for a too-large model. I haven't tried anything myself.",
    "Before buying a GPU: a blog post shows the following error for Mixtral on 24 GB. I haven't tested it yet.",
])
def test_a_log_quoted_from_elsewhere_is_no_run_to_diagnose(words):
    assert kind_of([words, ""] + _QUOTED_OOM) == ("NONE", "log-not-from-a-run")


@pytest.mark.parametrize("words", [
    "I haven't tried it with vLLM yet, but with Ollama I get this:",
    "I ran it on my 3090 and got this:",
])
def test_a_log_of_the_reports_own_run_is_still_read(words):
    assert kind_of([words, ""] + _QUOTED_OOM)[0] == "WEIGHTS"


# --- a script run again at a shell's prompt after its first try failed (review 56b: a gated repo's 403, then `huggingface-
# cli login`, then the rerun that loads and runs out of memory in generate, read as one run that the 403 decides) ------

@pytest.mark.parametrize("prompt", ["(venv) PS C:\\dev\\rag> python .\\ask.py", "me@box:~/rag$ python ask.py",
                                    "$ python3 ask.py --batch 8"])
def test_a_rerun_at_the_prompt_is_a_run_of_its_own(prompt):
    lines = [prompt, "Traceback (most recent call last):",
             '  File "ask.py", line 12, in <module>',
             "huggingface_hub.errors.GatedRepoError: 403 Client Error.",
             "(venv) PS C:\\dev\\rag> huggingface-cli login --token $env:HF_TOKEN", "Login successful",
             prompt, "Loading checkpoint shards: 100%|██████████| 2/2", "Traceback (most recent call last):",
             '  File "ask.py", line 31, in <module>', "    out = model.generate(**batch, max_new_tokens=1024)",
             '  File "/venv/transformers/generation/utils.py", line 2465, in generate',
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.12 GiB."]
    assert kind_of(lines)[0] == "RUNTIME"


@pytest.mark.parametrize("words", [
    "it's been sitting here for 40 minutes, GPU util 100% on all 4 cards, no error. tried twice. any idea?",
    "It has been sitting at this step for an hour now and nothing else is printed.",
    "I left it running over lunch, 90 minutes later still the same, nothing else is printed.",
])
def test_a_start_up_said_to_sit_for_a_long_time_is_a_hang(words):
    lines = ["(VllmWorker rank=0 pid=712) INFO 05-28 19:20:10 [gpu_model_runner.py:1329] Model loading took 14.9 GiB",
             "Capturing CUDA graphs: 100%|██████████| 67/67 [00:31<00:00,  2.13it/s]",
             "(VllmWorker rank=0 pid=712) INFO 05-28 19:22:27 [custom_all_reduce.py:195] Registering 8643 cuda graph "
             "addresses", "", words]
    assert kind_of(lines) == ("UNDETERMINED", "hang-no-error")
