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


def test_free_memory_below_a_reserve_after_graph_capture_is_the_warm_up():
    lines = ["INFO 07-25 10:00:01 [gpu_model_runner.py:2000] Model loading took 70.1 GiB and 30.2 seconds",
             "INFO 07-25 10:01:00 [gpu_worker.py:300] Available KV cache memory: 28.22 GiB",
             "INFO 07-25 10:01:01 [kv_cache_utils.py:1000] GPU KV cache size: 400,000 tokens",
             "INFO 07-25 10:02:00 [gpu_model_runner.py:3000] Graph capturing finished in 30 secs, took 1.2 GiB",
             "ERROR 07-25 10:02:05 [multiproc_executor.py:700] WorkerProc hit an exception.",
             "Traceback (most recent call last):",
             '  File "/vllm/v1/worker/gpu_worker.py", line 400, in compile_or_warm_up_model',
             "RuntimeError: Tiered MoE observed free HBM is below the runtime reserve: 13330546688 bytes available, "
             "15000000000 required"]
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

_VLLM_UP = ["INFO 07-25 10:00:01 [gpu_model_runner.py:2000] Model loading took 70.1 GiB and 30.2 seconds",
            "INFO 07-25 10:01:00 [gpu_worker.py:300] Available KV cache memory: 28.22 GiB",
            "INFO 07-25 10:01:01 [kv_cache_utils.py:1000] GPU KV cache size: 400,000 tokens",
            "INFO 07-25 10:02:00 [gpu_model_runner.py:3000] Graph capturing finished in 30 secs, took 1.2 GiB",
            "ERROR 07-25 10:02:05 [multiproc_executor.py:700] WorkerProc hit an exception.",
            "Traceback (most recent call last):",
            '  File "/vllm/v1/worker/gpu_worker.py", line 400, in compile_or_warm_up_model',
            "    check_reserve(self.model_runner)"]


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
