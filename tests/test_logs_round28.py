"""`vramdoctor logs` on the kinds of fault left open by the held-out rounds 25-27 (listed in issue 6's note), each
with logs of our own in other engines, versions and wordings (none of the held-out logs' own lines). The engines'
lines follow their sources (named in `vramdoctor/engines/<engine>.py` and beside each case)."""

from __future__ import annotations

import pytest

from logcase import diag, run_of

# --- a log that ends while the engine says its start-up is still under way, in its own polling words ----------------

OLLAMA_START = ('time=2024-11-20T07:02:10.004Z level=INFO source=server.go:376 msg="starting llama server" '
                'cmd="/usr/local/lib/ollama/runners/cuda_v12_avx/ollama_llama_server runner --model '
                '/data/models/blobs/sha256-9a1c --ctx-size 16384 --batch-size 512 --n-gpu-layers 29 --parallel 2 '
                '--port 33111"')
POLL = ('time=2024-11-20T07:{mm}:10.250Z level=INFO source=server.go:{line} msg="waiting for server to become '
        'available" status="{status}"')


@pytest.mark.parametrize("middle,weights", [
    ([], True),  # the runner's own lines not shown (Ollama 0.5: they go to the runner's log level)
    (["llm_load_tensors: offloaded 29/29 layers to GPU", "llm_load_tensors:        CUDA0 buffer size =  8761.03 MiB"],
     False),  # the weights' buffers allocated: a later step
    (["load_tensors: loading model tensors, this can take a while... (mmap = true)"], True),
])
def test_ollama_still_loading_at_the_end_is_a_step_under_way(middle, weights):
    """llm/server.go WaitUntilRunning polls the runner and logs ServerStatusLoadingModel as "llm server loading
    model" while it loads the weights, sizes its cache and reserves its graph: a log that ends there ends inside
    that load, which step not said, never "no memory problem"."""
    lines = [OLLAMA_START, POLL.format(mm="02", line=583, status="llm server error"), *middle,
             POLL.format(mm="07", line=583, status="llm server loading model")]
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "log-ends-during-step")
    assert ("WEIGHTS" in run.candidates) == weights


def test_ollama_loading_then_started_is_no_step_under_way():
    lines = [OLLAMA_START, POLL.format(mm="02", line=583, status="llm server loading model"),
             'time=2024-11-20T07:02:19.881Z level=INFO source=server.go:626 msg="llama runner started in 9.88 seconds"']
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "NONE"


def test_a_user_quoting_the_loading_status_is_not_a_step():
    text = OLLAMA_START + '\nIt just sits on status="llm server loading model" forever, I waited 20 minutes.'
    run = run_of(diag(text))
    assert run.code != "log-ends-during-step" or run.evidence[0]["text"].startswith("time=")


@pytest.mark.parametrize("lines", [
    # TGI's launcher polling a shard still starting (launcher/src/main.rs)
    ['2024-08-14T10:02:11.512017Z  INFO text_generation_launcher: Args { model_id: "mistralai/Mixtral-8x7B-v0.1", '
     'num_shard: Some(2), max_total_tokens: Some(8192) }',
     "2024-08-14T10:02:15.100900Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0",
     "2024-08-14T10:02:25.120000Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... "
     "rank=0",
     "2024-08-14T10:02:35.130000Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... "
     "rank=1"],
    # vLLM's shard bar short of its end: "45% Completed" is the bar's label, not the step's end
    ["INFO 05-20 11:02:06 [api_server.py:1043] vLLM API server version 0.8.5",
     "INFO 05-20 11:02:17 [gpu_model_runner.py:1329] Starting to load model Qwen/Qwen2.5-72B-Instruct-AWQ...",
     "Loading safetensors checkpoint shards:  45% Completed | 5/11 [00:21<00:26,  4.35s/it]"],
    # llama-server reading the device's free memory as its load begins (llama.cpp src/llama.cpp
    # llama_model_load_from_file_impl): a reading, not a step's result
    ["main: HTTP server is listening, hostname: 0.0.0.0, port: 8080, http threads: 31",
     "srv    load_model: loading model '/models/Qwen2.5-32B-Instruct-Q4_K_M.gguf'",
     "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 4090) - 23200 MiB free"],
])
def test_other_engines_still_loading_at_the_end_is_a_step_under_way(lines):
    run = run_of(diag("\n".join(lines)))
    assert (run.kind, run.code) == ("UNDETERMINED", "log-ends-during-step")
    assert "WEIGHTS" in run.candidates


def test_a_finished_shard_bar_is_a_step_done():
    run = run_of(diag("INFO 05-20 11:02:06 [api_server.py:1043] vLLM API server version 0.8.5\n"
                      "Loading safetensors checkpoint shards: 100% Completed | 11/11 [00:48<00:00,  4.35s/it]"))
    assert run.code != "log-ends-during-step"


# --- serving told by the report, not the server: a user's words, a client's call -------------------------------------

SERVING_TOLD = [
    # a user's sentence that introduces the request lines after it: they are where it failed, not a recovery
    "llama_model_loader: - type q8_0:  281 tensors\n"
    "Both models load without trouble. As soon as the first prompt is sent, it aborts with a CUDA out of memory "
    "error:\nsrv  params_from_: Chat format: Hermes 2 Pro\nslot launch_slot_: id  3 | task 0 | processing task",
    # a user sending prompts, before the engine's line
    "Short questions get answered. When I ask it a longer question it gives:\nCUDA error: out of memory\n"
    "  current device: 0, in function ggml_cuda_pool_malloc at /src/ggml/src/ggml-cuda/ggml-cuda.cu:411",
    # a reproduction script after the failure: the client's call to the server
    "libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution "
    "failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)\n"
    "To reproduce:\nfrom openai import OpenAI\n"
    'client = OpenAI(base_url="http://127.0.0.1:8080/v1", api_key="x")\n'
    'client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x" * 400000}])',
    # a conversation growing, in one sentence with the engine's words
    "Chatting works normally at first, but once the conversation reaches about 8K tokens it throws "
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB.",
    # the server's API in the user's words
    "Calling the model through the API from three users at once crashes it: RuntimeError: CUDA error: out of memory",
    "It is fine until we submit two images, then CUDA out of memory.",
]


@pytest.mark.parametrize("text", SERVING_TOLD)
def test_serving_told_by_the_report_places_an_out_of_memory(text):
    run = run_of(diag(text))
    assert run.kind == "RUNTIME", (run.kind, run.code)


#: serving denied by the report does not place it (UNDETERMINED)
SERVING_DENIED_BY_THE_REPORT_DOES_NOT_PLACE_IT = [
    "Before I send a request, it dies with CUDA out of memory.",
    "I didn't send any prompt yet and it already says CUDA out of memory.",
    "Without a single request being sent, torch.OutOfMemoryError: CUDA out of memory.",
    "The OOM happens before the first request is received.",
]


def test_a_reproduction_after_a_load_failure_is_no_recovery():
    """A client's call placed after the engine's own load failure is the report's, not the server going on."""
    text = ("llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3060) - 11802 MiB free\n"
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 18432.00 MiB on device 0: cudaMalloc failed: "
            "out of memory\n"
            "llama_model_load: error loading model: unable to allocate CUDA0 buffer\n"
            "To reproduce, start the server and run:\n"
            "curl http://localhost:8080/v1/chat/completions -d '{\"messages\": [{\"role\": \"user\", \"content\": "
            "\"hi\"}]}'")
    run = run_of(diag(text))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


@pytest.mark.parametrize("slot", [
    "slot update_slots: id  1 | task 4417 | prompt processing progress, n_past = 6144, n_tokens = 2048, progress = 0.75",
    "slot update_slots: id  0 | task 12 | kv cache rm [1024, end)",
    "slot update_slots: id  2 | task 10391 | promp",  # cut: the slot and its task are enough
])
def test_llama_server_slot_at_work_on_a_task_is_serving(slot):
    """tools/server/server.cpp update_slots logs a slot with its task id only while it works on a request."""
    run = run_of(diag(slot + "\nCUDA error: out of memory\n  current device: 0, in function ggml_backend_cuda_buffer_"
                             "type_alloc_buffer at /src/ggml/src/ggml-cuda/ggml-cuda.cu:622"))
    assert run.kind == "RUNTIME", (run.kind, run.code)


# --- settings on a pasted command's continued lines, and CUDA graphs already off ------------------------------------

from logcase import flags  # noqa: E402

TGI_WARMUP_FAIL = (
    "2024-05-02T08:11:40.101010Z ERROR text_generation_launcher: Method Warmup encountered an error.\n"
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.10 GiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 1.20 GiB is free.")


def test_tgi_flags_on_a_docker_commands_continued_lines_are_the_settings_in_use():
    """launcher/src/main.rs: --cuda-graphs 0 turns graphs off (never propose capturing some); the fraction, the prefill
    budget and the input limit in use are read, and the three limits go down together."""
    text = ("docker run --gpus all --shm-size 1g -p 8080:80 \\\n  ghcr.io/huggingface/text-generation-inference:2.1 \\\n"
            "  --model-id meta-llama/Meta-Llama-3-70B-Instruct \\\n  --num-shard 4 \\\n"
            "  --max-input-tokens 16000 \\\n  --max-total-tokens 16384 \\\n  --max-batch-prefill-tokens 16000 \\\n"
            "  --cuda-memory-fraction 0.95 \\\n  --cuda-graphs 0\n" + TGI_WARMUP_FAIL)
    run = run_of(diag(text))
    assert run.kind == "WARMUP"
    f = flags(run)
    assert "--cuda-graphs" not in f, f
    assert "--cuda-memory-fraction 0.9" in f  # below the 0.95 in use
    assert "--max-input-tokens 8000" in f and "--max-batch-prefill-tokens 8000" in f, f


def test_tgi_args_dump_with_graphs_off_gets_no_graph_step():
    text = ('2024-05-02T08:10:01.000000Z  INFO text_generation_launcher: Args { model_id: "bigscience/bloom-560m", '
            'max_input_tokens: Some(4000), max_total_tokens: Some(4096), max_batch_prefill_tokens: Some(4096), '
            "cuda_graphs: Some([0]), cuda_memory_fraction: 0.9 }\n" + TGI_WARMUP_FAIL)
    assert "--cuda-graphs" not in flags(run_of(diag(text)))


@pytest.mark.parametrize("command,fail", [
    # vLLM: --enforce-eager (no graphs to capture); its warm-up ran out
    ("vllm serve Qwen/Qwen2.5-32B-Instruct --enforce-eager --gpu-memory-utilization 0.9",
     "INFO 06-01 10:00:00 [gpu_model_runner.py:1344] Model loading took 61.0 GiB and 40.1 seconds\n"
     'ERROR 06-01 10:00:09 [core.py:396]   File "/usr/lib/python3/dist-packages/vllm/v1/worker/gpu_worker.py", '
     "line 300, in compile_or_warm_up_model\n"
     "ERROR 06-01 10:00:09 [core.py:396] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB."),
    # SGLang: --disable-cuda-graph
    ("python -m sglang.launch_server --model-path Qwen/Qwen2.5-32B-Instruct --disable-cuda-graph "
     "--mem-fraction-static 0.9",
     "[2025-02-01 10:00:00 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=17.10 GB\n"
     "[2025-02-01 10:00:05 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
     '  File "/sgl/python/sglang/srt/model_executor/model_runner.py", line 900, in init_cuda_graphs\n'
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."),
])
def test_graphs_already_off_are_never_proposed(command, fail):
    run = run_of(diag(command + "\n" + fail))
    f = flags(run)
    assert "--enforce-eager" not in f and "--disable-cuda-graph" not in f and "cuda-graph-max-bs" not in f, f


@pytest.mark.parametrize("command,off", [("vllm serve m --enforce-eager=False", None),
                                         ("vllm serve m --enforce-eager 0", None),
                                         ("vllm serve m --enforce-eager --max-model-len 8192", True)])
def test_a_switch_set_false_is_not_in_use(command, off):
    # (a vLLM failure under the vLLM command: a vLLM flag is no setting of another engine's run)
    fail = ("ERROR 06-01 10:00:09 [core.py:396] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
            "4.00 GiB.")
    run = run_of(diag(command + "\n" + fail))
    assert run.numbers.get("cuda_graphs_off") is off


# --- weights already at 4 bits or fewer: no fewer-bit step -----------------------------------------------------------

LLAMA_WEIGHTS_OOM = ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 7823.00 MiB on device 0: cudaMalloc failed: "
                     "out of memory\nllama_model_load: error loading model: unable to allocate CUDA0 buffer")


@pytest.mark.parametrize("line,low", [
    ("llm_load_print_meta: model ftype      = Q4_K - Medium", True),  # llama.cpp 2024's wording
    ("print_info: file type   = IQ3_XXS - 3.0625 bpw", True),
    ("llama_model_loader: loaded meta data with 25 key-value pairs and 995 tensors from "
     "/models/Mixtral-8x7B-Instruct-v0.1.IQ2_XS.gguf (version GGUF V3 (latest))", True),
    ("llama.cpp: loading model from models/llama-2-13b-chat.ggmlv3.q3_K_S.bin", True),  # 2023's GGML files
    ("print_info: file type   = Q8_0", False),  # 8-bit: a 4-bit quant is still fewer bits
])
def test_weights_at_four_bits_or_fewer_get_no_fewer_bit_step(line, low):
    run = run_of(diag(line + "\n" + LLAMA_WEIGHTS_OOM))
    assert run.kind == "WEIGHTS"
    assert any(a["setting"] == "quantization" for a in run.advice) is not low, run.advice


# --- contractions written without their apostrophe, or with a typographic one ----------------------------------------

#: contractions without apostrophe deny as with one
CONTRACTIONS_WITHOUT_APOSTROPHE_DENY_AS_WITH_ONE = [
    ("With logprobs off at the same concurrency it wouldnt run into OOM.", "NONE"),
    ("At 0.95 it didn\u2019t run out of memory.", "NONE"),
    ("Since the upgrade I dont get OOM anymore.", "NONE"),
    ("I reduced the fraction from 0.9 to 0.3 and it didnt work.", "UNDETERMINED"),  # the failure goes on
    ("That didn\u2019t work either, same thing.", "UNDETERMINED"),
    ("It doesnt OOM on the 7B, but the 70B gives CUDA out of memory.", "UNDETERMINED"),  # the denial is the 7B's
]


def test_a_fix_that_did_not_achieve_its_purpose_is_no_failure():
    run = run_of(diag("I tried to lower the context window, but it did not work to reduce the memory taken."))
    assert run.kind == "NONE", (run.kind, run.code)


# --- the user's words give the cause, the engine's cut traceback the place ---------------------------------------------

CUT_AFTER_REQUEST = (
    "2024-09-03 10:12:40,101 - lmdeploy - INFO - session_id=7, history_tokens=0, input_tokens=5120, "
    "max_new_tokens=1024, seq_start=True, seq_end=True, step=0, prep=True\n"
    "Traceback (most recent call last):\n"
    '  File "/opt/conda/lib/python3.10/site-packages/lmdeploy/pytorch/engine/engine.py", line 700, in _async_loop\n'
    "    await self._async_step()\n"
    '  File "/opt/conda/lib/python3.10/site-packages/lmdeploy/pytorch/engine/model_agent.py", line 300, in forward\n')


@pytest.mark.parametrize("said", [
    'After a few requests it fails with "out of GPU memory" on our 2x A10.',
    "We keep hitting CUDA out of memory with the 72B model, log below:",
])
def test_a_users_cause_above_a_cut_traceback_is_placed_by_the_engines_lines(said):
    run = run_of(diag(said + "\n" + CUT_AFTER_REQUEST))
    assert (run.kind, run.oom) == ("RUNTIME", True), (run.kind, run.code)
    assert run.evidence[0]["line"] == 1  # the words that give the cause


def test_a_users_cause_is_never_recovered_by_the_engines_later_lines():
    text = ("I now get out of GPU memory with the new release.\n"
            "INFO:     Uvicorn running on http://0.0.0.0:23333 (Press CTRL+C to quit)\n"
            '2024-09-03 10:12:40,101 - lmdeploy - INFO - session_id=1, history_tokens=0, input_tokens=80, '
            "max_new_tokens=512, seq_start=True, seq_end=True, step=0, prep=True")
    run = run_of(diag(text))
    assert run.kind != "NONE", (run.kind, run.code)


def test_a_traceback_cut_inside_the_load_is_a_floor_not_the_step():
    """text-generation-webui's load_model allocates exllamav2's cache after the weights: a traceback cut at
    Exllamav2HF(config) shows the load, not which allocation failed."""
    text = ("When I load the 6.0bpw model with the 8-bit cache at 16384 context it says out of memory.\n"
            "Traceback (most recent call last):\n"
            '  File "/ooba/modules/ui_model_menu.py", line 245, in load_model_wrapper\n'
            "    shared.model, shared.tokenizer = load_model(selected_model, loader)\n"
            '  File "/ooba/modules/models.py", line 87, in load_model\n'
            "    output = load_func_map[loader](model_name)\n"
            '  File "/ooba/modules/exllamav2_hf.py", line 181, in from_pretrained\n'
            "    return Exllamav2HF(config)\n")
    run = run_of(diag(text))
    assert run.kind == "UNDETERMINED" and {"WEIGHTS", "KV_CAPACITY"} <= set(run.candidates), (run.kind, run.candidates)


# --- a failure stated in Chinese --------------------------------------------------------------------------------------

#: a failure stated in chinese
A_FAILURE_STATED_IN_CHINESE = [
    ("我们在A100上启动了服务，发送两张大图片的时候出现了这个错误。", "UNDETERMINED"),  # "when sending ... this error appeared"
    ("把 cache-max-entry-count 调到 0.5 也崩了，很奇怪。", "UNDETERMINED"),  # "also crashed at 0.5"
    ("服务启动后一直报错，截图如下", "UNDETERMINED"),
    ("推理的时候显存不足", "RUNTIME"),  # "insufficient VRAM while inferring"
    ("高并发时报错 torch.OutOfMemoryError: CUDA out of memory.", "RUNTIME"),
    ("数据量再大一点的话肯定崩", "NONE"),  # a prediction ("surely crashes if the data is bigger")
    ("没有报错，运行正常。", "NONE"),  # denied: "no error, runs normally"
    ("如果显存不够会不会崩？", "NONE"),  # a question
]


# --- host RAM for the weights: mmap in use, the CPU's repacked copy, a count a user grouped ----------------------------

HOST_FAIL = ("ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 41231686656\n"
             "llama_model_load: error loading model: unable to allocate CPU buffer")


@pytest.mark.parametrize("line,mmap", [
    ("load_tensors: loading model tensors, this can take a while... (mmap = true)", False),
    ("python koboldcpp.py --model big.gguf --usemmap --gpulayers 10", False),
    ("llama-server -m big.gguf --no-mmap -ngl 10", True),
    ("load_tensors: loading model tensors, this can take a while... (mmap = false)", True),
])
def test_mmap_is_proposed_only_where_it_is_not_in_use(line, mmap):
    run = run_of(diag(line + "\n" + HOST_FAIL))
    said = " ".join(a["why"] for a in run.advice)
    assert ("load with mmap" in said) is mmap, said


def test_the_cpus_repacked_copy_is_turned_off_not_mmapped():
    """ggml-cpu repacks weights for its kernels into a CPU_REPACK buffer of its own, in RAM even with mmap."""
    text = ("load_tensors: loading model tensors, this can take a while... (mmap = true)\n"
            "alloc_tensor_range: failed to allocate CPU_REPACK buffer of size 38654705664\n"
            "llama_model_load: error loading model: unable to allocate CPU_REPACK buffer")
    run = run_of(diag(text))
    said = " ".join(a["why"] + a["flags"] for a in run.advice)
    assert "--no-repack" in said and "load with mmap" not in said, said


def test_a_byte_count_grouped_by_a_user_is_not_read_as_its_first_group():
    text = "alloc_tensor_range: failed to allocate CPU_REPACK buffer of size 108 000 000 000\n" + HOST_FAIL
    run = run_of(diag(text))
    assert all(b > 10**9 for b in run.numbers.get("failed_alloc_bytes", [])), run.numbers.get("failed_alloc_bytes")


def test_a_pool_far_below_none_at_a_high_fraction_puts_the_fraction_last():
    """SGLang (model_runner.py profile_max_num_token): a negative profiled value at --mem-fraction-static 0.93 leaves
    at most 0.05 of the GPU to add, which may not cover it; the TP ranks in the prefix bound the GPUs in use."""
    lines = ["python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --mem-fraction-static 0.93"]
    lines += [f"[2025-03-01 09:00:0{r} TP{r}] max_total_tokens=65536 is larger than the profiled value -90211. "
              "Use the profiled value instead." for r in range(4)]
    lines += ["[2025-03-01 09:00:05 TP0] Scheduler hit an exception: Traceback (most recent call last):",
              "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."]
    run = run_of(diag("\n".join(lines)))
    assert run.kind == "KV_CAPACITY", (run.kind, run.code)
    settings = [a["setting"] for a in run.advice]
    assert settings.index("memory_fraction") > settings.index("tensor_parallel_size"), settings
    gpus = next(a for a in run.advice if a["setting"] == "tensor_parallel_size")
    assert "at least 4" in gpus["why"], gpus


@pytest.mark.parametrize("line", [
    "4. disable CUDA graph by --disable-cuda-graph. (Not recommended. Huge performance loss)",  # SGLang's own hint
    "You can try --enforce-eager to save some memory.",
    "Consider adding the flag, e.g. set --disable-cuda-graph if the capture fails.",
])
def test_a_switch_proposed_by_a_hint_is_not_in_use(line):
    run = run_of(diag(line + "\n" + TGI_WARMUP_FAIL))
    assert run.numbers.get("cuda_graphs_off") is None, line


#: out of memory and growth in other wordings
OUT_OF_MEMORY_AND_GROWTH_IN_OTHER_WORDINGS = [
    ("跑了几个请求以后都炸显存了", "RUNTIME"),  # "after a few requests, VRAM blew up" (炸显存, a variant of 爆显存)
    ("运行一段时间后显存爆炸了，日志如下", "UNDETERMINED"),  # "VRAM exploded after a while"
    ("运行一段时间后OOM退出", "UNDETERMINED"),  # OOM written against Chinese characters
    ("持续运行时显存一直缓慢增长直到oom", "LEAK"),  # "VRAM keeps slowly growing until oom"
    ("显存不释放，跑一晚上就满了", "LEAK"),  # "VRAM is not released; full after a night"
    ("显存没有一直增长，很稳定", "NONE"),  # denied: "VRAM did not keep growing, stable"
    ("如果显存一直增长会不会oom？", "NONE"),  # asked
    ("Metal active memory climbs monotonically across requests and is never reclaimed at idle.", "LEAK"),
    ("RSS grows across requests until the container is OOM-killed.", "LEAK"),
]


def test_a_setting_named_in_a_users_sentence_is_no_step():
    """LMDeploy's `cache_max_entry_count` holds TurboMind's `max_entry_count` (a step in its cache manager's lines),
    but a user naming the setting says which value was used, not which step failed."""
    run = run_of(diag("lmdeploy serve api_server internlm/internlm2-chat-7b --tp 2\n"
                      "Even with cache_max_entry_count=0.05 I still get OOM, so the setting seems to do nothing."))
    assert run.kind == "UNDETERMINED", (run.kind, run.code)


#: the memory words around a quoted error are the users
THE_MEMORY_WORDS_AROUND_A_QUOTED_ERROR_ARE_THE_USERS = [
    # the memory words are the user's, around the error the sentence quotes
    ("vLLM fails at start with a `RuntimeError: CUDA error: invalid argument` in the all-reduce. It happens even with "
     "a low memory fraction.", "NOT_OOM"),
    ("The server dies with `ValueError: Unsupported head size 72` right away, no matter how much memory is free.",
     "NOT_OOM"),
    # the error's own words speak of memory: not cleared
    ("It fails with `RuntimeError: failed to reserve the memory pool` during start-up.", "UNDETERMINED"),
]


@pytest.mark.parametrize("line", [
    "2026-07-06 23:18:23,723 - WARNING - autotuner.py:1315 - flashinfer.jit: [Autotuner]: OOM detected, falling back "
    "to default tactic",
    "WARNING: CUDA out of memory while tuning the kernel, falling back to the reference implementation",
])
def test_an_out_of_memory_the_program_went_on_from_is_no_failure(line):
    text = ("INFO 07-06 23:18:20 [gpu_model_runner.py:1890] Model loading took 14.2 GiB and 9.8 seconds\n"
            + line)
    run = run_of(diag(text))
    assert run.kind == "NONE" and run.oom is not True, (run.kind, run.code)


@pytest.mark.parametrize("text,out,kept", [
    ("When I try to load large models it fails with CUDA out of memory.", "RUNTIME", "WEIGHTS"),
    ("Model initialization fails with torch.OutOfMemoryError: CUDA out of memory.", "RUNTIME", "KV_CAPACITY"),
    ("CUDA out of memory during model loading", "RUNTIME", "WEIGHTS"),
    ("After the model is loaded, I get CUDA out of memory.", "WEIGHTS", "RUNTIME"),
    ("It is not at startup: CUDA out of memory comes hours later.", None, "RUNTIME"),
])
def test_a_reports_words_of_when_narrow_the_candidates(text, out, kept):
    run = run_of(diag(text))
    assert run.kind == "UNDETERMINED" and kept in run.candidates and out not in run.candidates, run.candidates


@pytest.mark.parametrize("title", ["# [Bug] Insufficient memory problem when vLLM starts",
                                   "## [Usage]: CUDA out of memory on startup", "### `OOM` at start"])
def test_an_issue_title_with_a_tag_is_the_users_heading(title):
    """vLLM's issue templates title with a tag ("[Bug]", "[Usage]:"): the title is the user's summary, and the engine's
    own verdict below it decides."""
    text = (title + "\n"
            '  File "/opt/vllm/vllm/v1/worker/gpu_worker.py", line 145, in init_device\n'
            "    raise ValueError(\n"
            "ValueError: Free memory on device (41.10/79.15 GiB) on startup is less than desired GPU memory "
            "utilization (0.9, 71.24 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.")
    run = run_of(diag(text))
    assert (run.kind, run.code) == ("NOT_OOM", "gpu-shared-with-other-process"), (run.kind, run.code)


def test_a_healthy_tgi_run_that_sized_its_pool_is_no_leak():
    """TGI sizes its pool from free memory on every start ("Setting max batch total tokens to N"); only a user's
    --max-batch-total-tokens overridden by it ("Inferred max batch total tokens") is the pool growing past the request."""
    text = ("2025-02-11T09:00:25.140Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:125: Warming up model\n"
            "2025-02-11T09:00:29.870Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:137: Setting max batch "
            "total tokens to 164256\n"
            "2025-02-11T09:00:29.911Z  INFO text_generation_router::server: router/src/server.rs:2220: Connected\n"
            '2025-02-11T09:01:04.551Z  INFO generate{parameters=GenerateParameters { max_new_tokens: Some(512) } '
            'total_time="3.2s"}: text_generation_router::server: router/src/server.rs:402: Success')
    run = run_of(diag(text))
    assert run.kind == "NONE", (run.kind, run.code)


def test_a_start_up_steps_words_after_the_server_served_are_serving():
    """llama-server re-reserves its compute buffer for a longer prompt (ggml_gallocr_reserve_n) while serving: after its
    own lines showed a request, the phase never goes back to the warm-up."""
    text = ("llama_context:      CUDA0 compute buffer size =   307.00 MiB\n"
            "main: server is listening on http://0.0.0.0:8080 - starting the main loop\n"
            "srv  params_from_: Chat format: Content-only\n"
            "slot launch_slot_: id  1 | task 12 | processing task\n"
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1210.50 MiB on device 0: cudaMalloc failed: out of "
            "memory\n"
            "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 1269301760\n"
            "llama_decode: failed to decode, ret = -3")
    run = run_of(diag(text))
    assert run.kind == "RUNTIME", (run.kind, run.code)


def test_a_users_words_of_serving_do_not_move_an_engines_start_up_phase():
    text = ("When I send the first request, Ollama loads the model and fails:\n"
            "llama_model_load: error loading model: unable to allocate CUDA0 buffer\n"
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 18432.00 MiB on device 0: cudaMalloc failed: out of "
            "memory")
    run = run_of(diag(text))
    assert run.kind == "WEIGHTS", (run.kind, run.code)


def test_a_value_tried_in_chinese_is_gone_past():
    text = ("lmdeploy serve api_server Qwen/Qwen2.5-32B-Instruct-AWQ --model-format awq --cache-max-entry-count 0.8\n"
            "服务可以正常启动，但是高并发请求以后显存不足，服务直接崩了。\n"
            "已经把 --cache-max-entry-count 降到 0.5 还是一样爆显存。")  # "lowered to 0.5, the same OOM"
    run = run_of(diag(text))
    step = next(a for a in run.advice if a["setting"] == "memory_fraction")
    assert step["value"] < 0.5, step


#: a load named without a number is serving (RUNTIME)
A_LOAD_NAMED_WITHOUT_A_NUMBER_IS_SERVING = [
    "The server starts fine, but after many concurrent requests it crashes with CUDA out of memory.",
    "Under high concurrency the engine dies: torch.OutOfMemoryError: CUDA out of memory.",
    "With hundreds of users it runs out of memory (CUDA out of memory) within an hour.",
]


def test_tgi_out_of_cache_blocks_while_serving():
    """server/text_generation_server/models/cache_manager.py: the shard had fewer free blocks than the batch the router
    admitted."""
    text = ("2024-03-02T10:11:12.000000Z ERROR batch{batch_size=2}:prefill:prefill{id=12 size=2}: text_generation_client: "
            "router/client/src/lib.rs:33: Server error: Out of available cache blocks: asked 212, only 40 free blocks")
    run = run_of(diag(text))
    assert (run.kind, run.code) == ("RUNTIME", "kv-blocks-exhausted"), (run.kind, run.code)


#: growth named as a noun or still going on
GROWTH_NAMED_AS_A_NOUN_OR_STILL_GOING_ON = [
    ("Slow progressive memory usage increase on the Ollama server.", "LEAK"),
    ("RAM is continuing to rise after every request.", "LEAK"),
    ("Memory grows well beyond the weights plus the cache limit over the course of a day.", "LEAK"),
    ("There is no gradual memory increase, it stays at 30GB.", "NONE"),
    ("I want to check for a slow memory increase over a day.", "NONE"),
]


#: a process killed, stated in a user's words (by whom not said): a failure, never NONE
A_KILL_STATED = [
    ("It was killed all ten times on the first request.", "UNDETERMINED"),
    ("Memory use hits about 300GB and then the server gets killed.", "UNDETERMINED"),
    ("I killed it with Ctrl-C after a minute, no error.", "NONE"),  # the user stopped it
]


#: each kind of fault above, with the kind a report of it gets (one test over all the tables)
KIND_OF_REPORT = [(name, text, kind) for name, table in (
    ("contractions_without_apostrophe_deny_as_with_one", CONTRACTIONS_WITHOUT_APOSTROPHE_DENY_AS_WITH_ONE),
    ("a_failure_stated_in_chinese", A_FAILURE_STATED_IN_CHINESE),
    ("out_of_memory_and_growth_in_other_wordings", OUT_OF_MEMORY_AND_GROWTH_IN_OTHER_WORDINGS),
    ("the_memory_words_around_a_quoted_error_are_the_users", THE_MEMORY_WORDS_AROUND_A_QUOTED_ERROR_ARE_THE_USERS),
    ("growth_named_as_a_noun_or_still_going_on", GROWTH_NAMED_AS_A_NOUN_OR_STILL_GOING_ON),
    ("a_kill_stated", A_KILL_STATED),
) for text, kind in table] + [(name, text, kind) for name, table, kind in (
    ("serving_denied_by_the_report_does_not_place_it", SERVING_DENIED_BY_THE_REPORT_DOES_NOT_PLACE_IT, "UNDETERMINED"),
    ("a_load_named_without_a_number_is_serving", A_LOAD_NAMED_WITHOUT_A_NUMBER_IS_SERVING, "RUNTIME"),
) for text in table]


@pytest.mark.parametrize("fault,text,kind", KIND_OF_REPORT, ids=[f"{f}-{i}" for i, (f, _, _) in
                                                                enumerate(KIND_OF_REPORT)])
def test_the_kind_a_report_gets(fault, text, kind):
    run = run_of(diag(text))
    assert run.kind == kind, (fault, run.kind, run.code)
