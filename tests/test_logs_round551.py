"""Kinds of fault found in stop 55: held-out rounds 551 and later and stop 54's leftovers, each in several wordings of
our own, with guards that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import diag, flags, kind_of, run_of


def _run(lines: list[str]):
    return run_of(diag("\n".join(lines)))


# --- a request refused because the engine's KV cache cannot hold it, in the engine's own words (h547/04: FreeToken's
# "prompt is too long: 16535 tokens > 8221 maximum (prompt + generation); shorten the prompt or increase the KV cache
# budget", read as a failure with no cause) -------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "prompt is too long: 16535 tokens > 8221 maximum (prompt + generation); shorten the prompt or increase the KV "
    "cache budget",
    "ERROR request 7 rejected: input of 12000 tokens exceeds the KV cache capacity (8192 tokens)",
    "error: prompt too long (9000 tokens > 4096); increase the kv cache size with --kv-cache-tokens",
    "[engine] Request abc123 failed: the prompt (20480 tokens) does not fit in the KV cache (16384 tokens)",
])
def test_a_request_refused_for_the_kv_caches_size_is_the_pool(line):
    assert kind_of(["运行失败", line]) == ("KV_CAPACITY", "request-exceeds-kv-pool")
    assert kind_of([line]) == ("KV_CAPACITY", "request-exceeds-kv-pool")


@pytest.mark.parametrize("line", [
    "prompt is too long: 16535 tokens > 8221 maximum (prompt + generation); shorten the prompt",
    "srv  send_error: task id = 0, error: the request exceeds the available context size, try increasing it",
    "ValueError: The decoder prompt (length 9000) is longer than the maximum model length of 4096.",
])
def test_a_request_refused_for_its_length_alone_stays_a_refusal(line):
    assert kind_of([line]) == ("NOT_OOM", "requests-refused-too-long")


def test_an_unknown_engines_pool_too_small_for_a_request_is_advised_in_plain_words():
    run = _run(["运行失败", "prompt is too long: 16535 tokens > 8221 maximum (prompt + generation); shorten the prompt "
                "or increase the KV cache budget"])
    assert "a larger KV cache" in [a["change"] for a in run.advice]
    assert not flags(run).strip(" |")  # (no engine's flags: the engine is not known)


# --- a notebook's own code on a model's output (h548/01: a perplexity loop's "---> 29 ... = pplu_loss(inputs,
# attention_mask, outputs.logits)", whose frames name no step we know, read as no phase) ------------------------------

_OOM_LINE = ("OutOfMemoryError: CUDA out of memory. Tried to allocate 18.54 GiB. GPU 0 has a total capacity of 23.99 GiB "
             "of which 456.21 MiB is free. Of the allocated memory 19.67 GiB is allocated by PyTorch, and 290.91 MiB is "
             "reserved by PyTorch but unallocated.")


@pytest.mark.parametrize("cell", [
    ["Cell In[12], line 29",
     "---> 29 batch_counts, batch_losses = pplu_loss(inputs, attention_mask, outputs.logits)",
     "Cell In[9], line 34, in pplu_loss(input_ids, attention_mask, output_logits)",
     "---> 34     logits = output_logits[:, :-1, :].permute(0, 2, 1).contiguous()"],
    ["Cell In[5], line 7",
     "      5 for batch in tqdm(loader):",
     "----> 7     emb = mean_pool(model(**batch).last_hidden_state, batch['attention_mask'])"],
    ["<ipython-input-14-2f9c81d3e7a1> in <module>",
     "      9 with torch.no_grad():",
     "---> 11     probs = torch.softmax(out.logits[:, -1, :] / temperature, dim=-1)"],
])
def test_a_notebooks_own_line_on_a_models_output_is_after_the_load(cell):
    lines = ["OutOfMemoryError                          Traceback (most recent call last)", *cell, _OOM_LINE]
    assert kind_of(lines)[0] == "RUNTIME"


def test_a_notebooks_load_cell_stays_the_weights():
    lines = ["OutOfMemoryError                          Traceback (most recent call last)",
             "Cell In[3], line 2",
             "      1 tok = AutoTokenizer.from_pretrained(name)",
             "----> 2 model = AutoModelForCausalLM.from_pretrained(name, device_map='cuda', torch_dtype=torch.float16)",
             "File /usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py:4014, in "
             "PreTrainedModel.from_pretrained(cls, *model_args)",
             _OOM_LINE]
    assert kind_of(lines)[0] == "WEIGHTS"


def test_a_notebooks_training_function_is_read_without_its_signature():
    # (h550/06: IPython's frame header with the whole parameter list, which the phase words are read without)
    lines = ["OutOfMemoryError                          Traceback (most recent call last)",
             "Cell In[48], line 128, in train_with_grpo(model, tokenizer, train_data, num_iterations, num_steps, "
             "batch_size, num_generations, max_completion_length, beta, learning_rate, mu, epsilon)",
             "    126 batch_samples = random.sample(train_data, batch_size)",
             "--> 128     rollout = collect(model.module, ref_model, batch_samples)",
             "Cell In[48], line 9, in compute_log_probs(model, input_ids, attention_mask, logits_to_keep)",
             "----> 9 return selective_log_softmax(logits, input_ids)",
             "Cell In[48], line 2, in selective_log_softmax(logits, input_ids)",
             "----> 2     log_probs = nn.functional.log_softmax(logits, dim=-1)",
             "OutOfMemoryError: CUDA out of memory. Tried to allocate 41.73 GiB. GPU 0 has a total capacity of 79.14 GiB "
             "of which 33.40 GiB is free."]
    assert kind_of(lines) == ("RUNTIME", "training-step-oom")


# --- a hang the report says happened with memory looking normal (h554/07: exo's runner-churn deadlock, "alive on every
# node with normal memory footprint (24-26% of 256GB)", read as a hang that memory may explain) ----------------------

_SERVED_THEN = ["INFO 05-30 09:00:00 [api_server.py:1287] vLLM API server version 0.9.0.1",
                "INFO 05-30 09:00:25 [gpu_model_runner.py:1560] Model loading took 7.6254 GiB and 5.91 seconds",
                "INFO:     Application startup complete.",
                'INFO:     127.0.0.1:60350 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("fine", [
    "- main process and workers alive on every node with normal memory footprint (24-26% of 256GB)",
    "VRAM usage stays flat at 60% the whole time.",
    "There is plenty of free GPU memory when it happens.",
    "nvidia-smi shows memory usage is still normal.",
    "显存占用正常，CPU 也不高。",
])
def test_a_hang_with_memory_said_to_look_normal_is_not_memory(fine):
    lines = ["After about 100 requests the server hangs indefinitely with no response and no error.", fine,
             *_SERVED_THEN]
    assert kind_of(lines) == ("NOT_OOM", "hang-no-error")


@pytest.mark.parametrize("words", [
    "Is the memory usage normal for this model?",
    "RAM is fine but VRAM fills up before it stops.",
    "Memory looks normal until the third request, then it climbs.",
])
def test_memory_asked_about_or_not_fine_after_all_leaves_the_hang_open(words):
    lines = ["After about 100 requests the server hangs indefinitely with no response and no error.", words,
             *_SERVED_THEN]
    assert kind_of(lines)[0] != "NOT_OOM"


def test_a_hang_alone_stays_undetermined():
    lines = ["After about 100 requests the server hangs indefinitely with no response and no error.", *_SERVED_THEN]
    assert kind_of(lines) == ("UNDETERMINED", "hang-no-error")


# --- a program's words that generating failed, with the out-of-memory it caught (h552/04: VRAMancer's "ERROR
# Generation failed: CUDA out of memory. Tried to allocate 1.02 GiB", after a generation that worked) ----------------

@pytest.mark.parametrize("line", [
    "[03/31/26 20:09:16] ERROR    Generation failed: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 0 has a total "
    "capacity of 15.47 GiB of which 274.00 MiB is free.",
    "2025-01-02 10:00:00 | ERROR | Error during generation: CUDA out of memory. Tried to allocate 2.00 GiB.",
    "Inference failed: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB.",
    "推理失败：CUDA out of memory. Tried to allocate 2.00 GiB",
])
def test_generation_said_to_fail_with_an_oom_is_serving(line):
    assert kind_of([line]) == ("RUNTIME", "serving-oom")


def test_an_oom_that_names_a_load_is_not_placed_by_the_generation_words():
    assert kind_of(["Inference failed: CUDA out of memory while loading the model"])[0] != "RUNTIME"


# --- a long traceback's outer frames (h552/07: accelerate's wrappers nested once per federated round, sixty frames
# between Trainer's training_step and the error, which pushed training_step out of the lines kept) ------------------

def _nested_traceback(outer: list[str], depth: int = 45) -> list[str]:
    lines = ["Traceback (most recent call last):", *outer]
    for _ in range(depth):
        lines += ['  File "/usr/lib/python3.9/site-packages/accelerate/utils/operations.py", line 819, in forward',
                  "    return model_forward(*args, **kwargs)"]
    return lines + ['  File "/usr/lib/python3.9/site-packages/accelerate/utils/operations.py", line 778, in '
                    "_convert_to_fp32", "    return tensor.float()",
                    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 14.07 GiB. GPU 0 has a total "
                    "capacity of 79.15 GiB of which 3.10 GiB is free."]


@pytest.mark.parametrize("outer", [
    ['  File "/x/transformers/trainer.py", line 1932, in train', "    return inner_training_loop(",
     '  File "<string>", line 356, in _fast_inner_training_loop',
     '  File "/x/transformers/trainer.py", line 3307, in training_step', "    loss = self.compute_loss(model, inputs)"],
    ['  File "/x/trl/trainer/sft_trainer.py", line 450, in train', "    output = super().train(*args, **kwargs)",
     '  File "/x/transformers/trainer.py", line 2279, in _inner_training_loop',
     "    tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"],
])
def test_the_outer_frames_of_a_deep_traceback_place_it(outer):
    assert kind_of(_nested_traceback(outer)) == ("RUNTIME", "training-step-oom")


def test_a_deep_traceback_of_a_load_stays_the_weights():
    outer = ['  File "/x/run.py", line 12, in <module>', "    model = AutoModelForCausalLM.from_pretrained(name)",
             '  File "/x/transformers/modeling_utils.py", line 4014, in from_pretrained',
             "    ) = cls._load_pretrained_model("]
    assert kind_of(_nested_traceback(outer))[0] == "WEIGHTS"


# --- words that a setting is there to keep a failure away (h553/15: a notebook's comment "Desabilita o paralelismo na
# biblioteca tokenizers para evitar problemas de deadlock", read as a hang stated) ----------------------------------

_CLEAN_NOTEBOOK = ["Loading checkpoint shards: 100%|██████████| 2/2 [00:03<00:00,  1.52s/it]",
                   "A resposta do modelo: Olá! Como posso ajudar?"]


@pytest.mark.parametrize("words", [
    "# Desabilita o paralelismo na biblioteca tokenizers para evitar problemas de deadlock",
    "os.environ['TOKENIZERS_PARALLELISM'] = 'false'  # to prevent hangs",
    "# 设置这个环境变量以避免死锁",
    "We pin the threads to avoid the server freezing.",
])
def test_a_failure_named_as_what_to_prevent_is_none(words):
    assert kind_of([words, *_CLEAN_NOTEBOOK])[0] == "NONE"


def test_a_failure_after_what_was_to_prevent_it_is_still_stated():
    assert kind_of(["I set it to avoid OOM, but the server still hangs forever.", *_CLEAN_NOTEBOOK])[0] != "NONE"


# --- a denial in Chinese before OOM (h553/12: "而不会出现OOM", "without OOM coming up", read as an OOM stated) -----

@pytest.mark.parametrize("words", ["- 开启了KV cache量化之后，模型在推理的时候可以开启更大的batch size (bs)。 而不会出现OOM",
                                   "开启之后推理时不会OOM了", "量化以后没有出现OOM，速度也快了"])
def test_oom_denied_in_chinese_is_none(words):
    assert kind_of([words, *_CLEAN_NOTEBOOK])[0] == "NONE"


def test_oom_stated_in_chinese_stays():
    assert kind_of(["推理的时候出现OOM了", *_CLEAN_NOTEBOOK])[0] == "RUNTIME"


# --- an exception handler in pasted source (h551/05: a notebook cell's "        except UnicodeDecodeError:" above an
# SGLang server that came up, read as an error whose cause is not shown) ---------------------------------------------

@pytest.mark.parametrize("handler", ["        except UnicodeDecodeError:", "except (OSError, RuntimeError) as e:",
                                     "    except torch.cuda.OutOfMemoryError:  # retry smaller",
                                     "} catch (const std::runtime_error& e) {"])
def test_a_handler_in_pasted_source_is_no_error(handler):
    lines = ["try:", "    line_str = line.decode('utf-8').rstrip()", handler, "    print('<binary output>')",
             "[2025-06-01 10:00:50] The server is fired up and ready to roll!"]
    assert kind_of(lines)[0] == "NONE"


# --- a bug's exception with an empty message (h551/03: IPython's "NotImplementedError: " under a bare `raise
# NotImplementedError`, read as an error line cut short) ------------------------------------------------------------

@pytest.mark.parametrize("cls", ["NotImplementedError", "AttributeError", "TypeError"])
def test_a_code_error_with_an_empty_message_is_whole(cls):
    lines = ["/usr/local/lib/python3.11/dist-packages/vllm/platforms/interface.py in is_async_output_supported(cls)",
             "    200         \"\"\"", f"--> 201         raise {cls}", "", f"{cls}: "]
    assert kind_of(lines)[0] == "NOT_OOM"


def test_another_exception_with_an_empty_message_stays_open():
    lines = ["Traceback (most recent call last):", '  File "/x/a.py", line 3, in f', "    x = g()", "RuntimeError: "]
    assert kind_of(lines)[0] == "UNDETERMINED"


# --- a start-up the report says was stopped by hand after a long wait (h551/13: "the function call above was
# interrupted after more than 5 minutes" under vLLM's "Initializing an LLM engine", read as no failure) --------------

_VLLM_INIT = ["INFO 12-09 15:14:33 llm_engine.py:73] Initializing an LLM engine with config: model='TheBloke/x-AWQ', "
              "tokenizer='TheBloke/x-AWQ', quantization=awq"]


@pytest.mark.parametrize("words", ["**too slow** the function call above was interrupted after more than 5 minutes",
                                   "I killed it after an hour, nothing more was printed.",
                                   "Stopped it after 20 minutes with no further output."])
def test_a_start_up_stopped_by_hand_after_a_long_wait_is_a_stall(words):
    assert kind_of([*_VLLM_INIT, words])[0] == "UNDETERMINED"


def test_a_run_stopped_after_it_finished_is_no_stall():
    assert kind_of([*_VLLM_INIT, "INFO:     Application startup complete.",
                    "It served fine; I stopped the server after 5 minutes of testing."])[0] == "NONE"


# --- a web UI ready before it loads the model (h551/02: Gradio's "Running on local URL" above text-generation-webui's
# llama.cpp load, whose compute buffers then failed: read as a buffer reserved again while serving) ----------------

#: a 70B GGUF loaded by llama.cpp (2024 builds) up to its compute buffer, which CUDA could not allocate
_LOAD_TO_COMPUTE = [
    "llama_model_loader: loaded meta data with 19 key-value pairs and 723 tensors from models/x.gguf (version GGUF V2)",
    "llm_load_tensors: offloaded 80/81 layers to GPU",
    "llm_load_tensors:      CUDA0 buffer size = 39157.50 MiB",
    "llama_kv_cache_init:      CUDA0 KV buffer size =   640.00 MiB",
    "llama_new_context_with_model: KV self size  =  640.00 MiB, K (f16):  320.00 MiB, V (f16):  320.00 MiB",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 324.00 MiB on device 0: cudaMalloc failed: out of memory"]


def test_a_compute_buffer_after_a_web_uis_ready_is_the_models_start_up():
    lines = ["Running on local URL:  http://127.0.0.1:7860",
             '15:41:22-428684 INFO     Loading "llama-2-70b-chat.Q4_K_M.gguf"', *_LOAD_TO_COMPUTE,
             "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 339740672",
             "llama_new_context_with_model: failed to allocate compute buffers"]
    assert kind_of(lines) == ("WARMUP", "compute-buffer-alloc-failed")


def test_the_window_skips_code_lines_only_inside_the_traceback_that_ends_at_the_failure():
    # (h546/08: the lines kept before a later failure do not reach back through an earlier traceback's code lines)
    from vramdoctor.logs.scan import WINDOW, before_window
    earlier = ["Traceback (most recent call last):"]
    for n in range(40):
        earlier += [f'  File "/x/uvicorn/server.py", line {100 + n}, in serve', "    await self.startup(sockets=sockets)"]
    earlier += ["OSError: [Errno 98] Address already in use"]
    later = [f"INFO step {n} of the quantization" for n in range(WINDOW)]
    kept = before_window(enumerate([*earlier, *later], 1))
    assert len(kept) == WINDOW  # (the plain lines after it fill the window: none of the earlier traceback)
    deep = before_window(enumerate(earlier[:-1], 1))  # (a traceback that ends at the failure: its frames all kept)
    assert deep[0][1] == "Traceback (most recent call last):"


# --- a library's notice that a call will fail in a later version (h553/15: transformers' "Calling `get_max_cache()`
# will raise error from v4.48", read as the report's words of a failure) ---------------------------------------------

@pytest.mark.parametrize("notice", [
    "`get_max_cache()` is deprecated for all Cache classes. Use `get_max_cache_shape()` instead. Calling "
    "`get_max_cache()` will raise error from v4.48",
    "The argument `use_auth_token` is deprecated and will throw an error in v5.0 of Transformers.",
    "This call will fail starting from v2.3.0; pass `dtype` instead.",
])
def test_a_deprecations_forecast_is_no_failure(notice):
    assert kind_of(["output = pipe(prompt, **generation_args)", notice, *_CLEAN_NOTEBOOK])[0] == "NONE"


# --- the report's words that the load itself failed, in FastChat's transformers worker (h556/06: Langchain-Chatchat's
# "load_8bit = True 时加载会报以下错误：" over a bare torch OOM, its engine not recognised and its words not read) ---

_TORCH_OOM = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 108.00 MiB. GPU 0 has a total capacty "
              "of 8.00 GiB of which 4.44 GiB is free.")


@pytest.mark.parametrize("lines", [
    ["load_8bit = False 时可以正常进行LLM对话。", "load_8bit = True  时加载会报以下错误：", f"`{_TORCH_OOM}`"],
    ["2024-01-02 10:00:00 | INFO | fastchat.serve.model_worker | Loading the model ['chatglm3-6b'] on worker 1a2b ...",
     "加载就报错：", _TORCH_OOM],
    ["2024-01-02 10:00:00 | INFO | fastchat.serve.model_worker | Register to controller", "加载模型直接OOM", _TORCH_OOM],
])
def test_the_load_said_to_fail_in_fastchats_transformers_worker_is_the_weights(lines):
    assert kind_of(lines)[0] == "WEIGHTS"


def test_a_failure_said_to_come_after_the_load_is_not_the_weights():
    lines = ["2024-01-02 10:00:00 | INFO | fastchat.serve.model_worker | Register to controller",
             "加载完成后推理时报错：", _TORCH_OOM]
    assert kind_of(lines)[0] == "RUNTIME"


def test_the_load_said_to_fail_under_vllm_is_not_only_the_weights():
    # (vLLM's users say "loading the model" of a start-up that sizes its KV pool and warms up too)
    lines = ["INFO 05-30 09:00:00 [api_server.py:1287] vLLM API server version 0.9.0.1", "加载模型直接OOM", _TORCH_OOM]
    assert kind_of(lines)[0] != "WEIGHTS"


# --- a tunnel beside the server refused by its service (h544/05: ngrok's "authentication failed ... ERR_NGROK_105"
# beside `ollama serve` in a Colab cell, then the cell's CancelledError, read as a failure whose cause is not shown) --

@pytest.mark.parametrize("line", [
    't=2024-05-27T23:18:44+0000 lvl=eror msg="session closing" obj=tunnels.session err="authentication failed: The '
    'authtoken you specified does not look like a proper ngrok tunnel authtoken.\\nYour authtoken: x\\n\\nERR_NGROK_105\\r\\n"',
    "ERROR:  ERR_NGROK_4018",
    "2024-05-27T23:18:44Z ERR cloudflared failed to serve tunnel connection error=\"Unauthorized: Invalid tunnel "
    "secret\"",
])
def test_a_tunnels_refusal_is_not_memory(line):
    lines = ["time=2024-05-27T23:18:40.000Z level=INFO source=routes.go:1074 msg=\"Listening on 127.0.0.1:11434 "
             "(version 0.1.38)\"", line, "CancelledError: "]
    assert kind_of(lines) == ("NOT_OOM", "tunnel-failed")


# --- review 55 (a fresh helper's logs aimed at this stop's readings) --------------------------------------------------

_VLLM_SERVING = ["INFO 05-20 13:01:02 [api_server.py:1043] vLLM API server version 0.8.5",
                 "INFO 05-20 13:02:11 [gpu_model_runner.py:1329] Model loading took 14.99 GiB and 58.2 seconds",
                 "INFO 05-20 13:02:40 [kv_cache_utils.py:634] GPU KV cache size: 412,112 tokens",
                 "INFO 05-20 13:03:05 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000",
                 'INFO:     10.0.0.5:41122 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@pytest.mark.parametrize("code", [
    ["    except torch.cuda.OutOfMemoryError:", '        logger.error("CUDA out of memory, dropping request")',
     "        raise HTTPException(503)"],
    ["} catch (const std::bad_alloc &) {", '    fprintf(stderr, "out of memory while creating context\\n");',
     "    return 1;", "}"],
    ["// Otherwise llama_decode returns 1 (\"no KV slot\") and we would abort on OOM."],
    ['    print(f"CUDA out of memory at batch {i}, halving it")'],
    ['    std::cerr << "OOM: cannot allocate the KV cache" << std::endl;'],
    ["    Raises:", "        torch.cuda.OutOfMemoryError: if the batch does not fit; the caller halves it."],
    ["    # --max-num-seqs baixo para evitar OOM e travamentos"],
    ["# 设置 mem-fraction-static 为 0.8，防止OOM"],
    ["# 关闭自定义 allreduce，以避免OOM"],
])
def test_pasted_code_that_names_an_oom_is_no_failure(code):
    assert kind_of(["My server script, for reference; it works fine:", "```", *code, "```", *_VLLM_SERVING])[0] == "NONE"


def test_a_real_oom_after_pasted_code_is_still_read():
    lines = ["```", '    logger.error("CUDA out of memory, dropping request")', "```", *_VLLM_SERVING,
             "ERROR 05-20 13:10:00 [core.py:700] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
             "GPU 0 has a total capacity of 79.15 GiB of which 1.10 GiB is free."]
    assert kind_of(lines)[0] == "RUNTIME"


def test_a_question_about_kv_refusals_is_no_refusal():
    words = ("Question before I deploy: what happens when a prompt does not fit in the KV cache? Does the server reject "
             "it or crash? So far everything works:")
    assert kind_of([words, *_VLLM_SERVING])[0] == "NONE"


def test_a_kv_refusal_in_an_engines_chinese_words():
    lines = ["长文本请求总是被拒绝，日志如下：",
             "[2025-04-03 09:11:31] INFO  服务已就绪，监听 0.0.0.0:9000",
             "[2025-04-03 09:15:40] ERROR 请求 id=19 被拒绝: 输入 12000 tokens 超出 KV cache 容量 (8192 tokens)",
             "[2025-04-03 09:16:02] INFO  请求 id=20 完成 200"]
    assert kind_of(lines) == ("KV_CAPACITY", "request-exceeds-kv-pool")


@pytest.mark.parametrize("words", ["没有报OOM，但是服务跑着跑着进程就直接退出了，日志最后是这样的：",
                                   "没报OOM，进程就直接退出了。",
                                   "日志里没有 CUDA out of memory，进程直接退出了。",
                                   "OOMは出ていませんが、プロセスが突然終了します。"])
def test_an_oom_denied_leaves_the_exit_open(words):
    assert kind_of([words, *_VLLM_SERVING])[0] != "RUNTIME"


@pytest.mark.parametrize("words", [
    "The start-up never finishes. It sat on this line for more than 40 minutes, then I killed it with Ctrl-C.",
    "I waited 40 minutes and then pressed Ctrl-C.",
    "启动一直卡在这里，等了半个多小时都没有动静，最后我手动 Ctrl+C 了。",
])
def test_a_start_up_waited_on_then_stopped_is_a_stall(words):
    lines = [words, "INFO 05-20 13:01:02 [api_server.py:1043] vLLM API server version 0.8.5",
             "INFO 05-20 13:02:41 [gpu_model_runner.py:1686] Capturing CUDA graphs ...",
             "^CINFO 05-20 13:43:10 [launcher.py:74] Shutting down FastAPI HTTP server.", "KeyboardInterrupt"]
    assert kind_of(lines)[0] == "UNDETERMINED"


@pytest.mark.parametrize("words", [
    "After ~20 minutes the server just stops answering. GPU memory sat at 71.2 GB and did not move.",
    "sglang 跑了一段时间之后请求全部卡住，没有任何报错。显存一直稳定在 70G 左右，没有变化。",
    "しばらく使っていると応答が返ってこなくなり、固まります。エラーは出ません。VRAM使用量は正常です。",
    "The server hangs after a while; VRAM usage is stable the whole time.",
])
def test_a_hang_with_memory_said_flat_in_other_words_is_not_memory(words):
    assert kind_of([words, *_VLLM_SERVING]) == ("NOT_OOM", "hang-no-error")


def test_generation_failed_naming_a_load_is_not_serving():
    line = ("2025-06-03 10:00:02,300 ERROR    Generation failed: CUDA out of memory during model load (checkpoint shard "
            "3/4). Tried to allocate 270.00 MiB.")
    assert kind_of(["2025-06-03 10:00:01,112 INFO     worker ready", line])[0] != "RUNTIME"


def test_a_web_uis_transformers_load_after_its_ready_is_the_weights():
    lines = ["09:00:01-123456 INFO     Starting Text generation web UI", "",
             "Running on local URL:  http://127.0.0.1:7860", "",
             '09:00:30-100000 INFO     Loading "Qwen_Qwen2.5-14B-Instruct"',
             "Loading checkpoint shards:  62%|██████▎   | 5/8 [00:21<00:12,  4.20s/it]",
             "09:00:52-000000 ERROR    Failed to load the model.", "Traceback (most recent call last):",
             '  File "/home/u/text-generation-webui/modules/models.py", line 172, in huggingface_loader',
             "    model = LoaderClass.from_pretrained(path_to_model, **params)",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 270.00 MiB. GPU 0 has a total capacity of "
             "23.65 GiB of which 90.06 MiB is free."]
    assert kind_of(lines)[0] == "WEIGHTS"


def test_a_notebooks_line_on_generates_scores_is_after_the_load():
    lines = ["RuntimeError                              Traceback (most recent call last)",
             "<ipython-input-7-3f2a9c81d0e4> in <module>",
             "      2 gen = model.generate(**inputs, max_new_tokens=256, output_scores=True)",
             "----> 3 seq_scores = score_sequences(gen.scores)",
             "RuntimeError: CUDA out of memory. Tried to allocate 9.77 GiB (GPU 0; 15.78 GiB total capacity; 10.21 GiB "
             "already allocated; 3.50 GiB free; 10.60 GiB reserved in total by PyTorch)"]
    assert kind_of(lines)[0] == "RUNTIME"


def test_a_loaders_bit_switch_is_no_quantized_model_name():
    lines = ["2024-05-01 10:00:00 | INFO | model_worker | args: Namespace(model_path='/data/models/Qwen-7B-Chat', "
             "device='cuda', num_gpus=1, load_8bit=False)", "加载就报错：",
             "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.30 GiB."]
    run = _run(lines)
    assert run.kind == "WEIGHTS"
    assert not any("8-bit already" in a["why"] for a in run.advice)


def test_one_frame_repeated_at_the_widest_is_no_wrap():
    from vramdoctor.logs.unwrap import wrap_width
    frame = '  File "/home/ana/.venv/lib/python3.11/site-packages/accelerate/utils/operations.py", line 819, in forward'
    lines = ["Traceback (most recent call last):"]
    for _ in range(14):
        lines += [frame, "    return model_forward(*args, **kwargs)"]
    assert wrap_width(("\n".join(lines) + "\n").encode()) is None


def test_a_raise_joined_to_its_exception_line_is_still_read():
    # (h556/10: a paste that joined the code line and the exception line: the exception is read)
    line = ('raise ValueError(f"max_new_tokens must be greater than 0, but is {self.max_new_tokens}.") ValueError: '
            'max_new_tokens must be greater than 0, but is -5923.')
    assert kind_of([line])[0] == "NOT_OOM"


# --- IPEX-LLM on Intel GPUs (h558/02: Level Zero's PI_ERROR_OUT_OF_RESOURCES while its low-bit weights were placed on
# the XPU, read as a driver's fault, NOT_OOM) -------------------------------------------------------------------------

@pytest.mark.parametrize("error", ["RuntimeError: Native API failed. Native API returns: -5 (PI_ERROR_OUT_OF_RESOURCES) "
                                   "-5 (PI_ERROR_OUT_OF_RESOURCES)",
                                   "RuntimeError: level_zero backend failed with error: 40 "
                                   "(UR_RESULT_ERROR_OUT_OF_RESOURCES)"])
def test_ipex_llms_out_of_resources_while_placing_weights_is_maybe_memory(error):
    lines = ["Traceback (most recent call last):",
             '  File "/v/lib/python3.11/site-packages/ipex_llm/transformers/low_bit_linear.py", line 492, in to',
             "    new_param = FP4Params(super().to(device=device,", error]
    rep = diag("\n".join(lines))
    assert rep.engine == "ipex-llm"
    run = run_of(rep)
    assert (run.kind, run.code) == ("UNDETERMINED", "sycl-out-of-resources")
    assert run.candidates == ["WEIGHTS"]


def test_out_of_resources_under_an_unknown_engine_stays_a_driver_error():
    lines = ["RuntimeError: Native API failed. Native API returns: -5 (PI_ERROR_OUT_OF_RESOURCES) -5 "
             "(PI_ERROR_OUT_OF_RESOURCES)"]
    assert kind_of(lines) == ("NOT_OOM", "sycl-runtime-error")


# --- a kernel launch refused for a reason that is not memory (h559/11: FreeToken's "Check failed: (err == cudaSuccess)
# is false: Failed to launch kernel: invalid argument", read as a failure whose cause is not shown) ------------------

@pytest.mark.parametrize("reason", ["invalid argument", "too many resources requested", "invalid configuration"])
def test_a_kernel_launch_refused_is_not_memory(reason):
    line = f"RuntimeError: Check failed: (err == cudaSuccess) is false: Failed to launch kernel: {reason}"
    assert kind_of([line, "  __tvm_ffi_gelu_tanh_and_mul -> gelu_tanh_and_mul.cu:44"]) == ("NOT_OOM", "cuda-kernel-error")


# --- memory said to rise and not come back down (h559/12: Xinference's "you can see the ram memory increased but not
# get down to normal size", read as no problem) -----------------------------------------------------------------------

@pytest.mark.parametrize("words", ["Then you can see the ram memory increased but not get down to normal size.",
                                   "VRAM goes up after each chat and never drops back.",
                                   "GPU memory climbs with every request and does not go back down."])
def test_memory_risen_and_not_back_down_is_growth(words):
    assert kind_of([words])[0] == "LEAK"


def test_memory_risen_and_back_down_is_no_growth():
    assert kind_of(["Memory increased a bit during the request but then it came back down to normal."])[0] == "NONE"


# --- llama-server's prompt cache that finds no cells to restore into, and its slots' own choice of a unified cache
# (h557/04: "state_read_meta: failed to find available cells in kv cache" read as an unknown failure; "using n_parallel
# = 4 and kv_unified = true" not read, so the slots' shared cache filling was not seen) ----------------------------

_LLAMA_SERVER_AUTO = ["0.00.079.075 I srv          main: n_parallel is set to auto, using n_parallel = 4 and kv_unified "
                      "= true",
                      "0.00.500.000 I main: server is listening on http://127.0.0.1:8080 - starting the main loop",
                      "0.01.000.000 I srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]


def test_a_prompt_cache_that_cannot_be_restored_is_no_failure():
    lines = [*_LLAMA_SERVER_AUTO,
             "21.41.220.601 E state_read_meta: failed to find available cells in kv cache",
             "21.41.222.111 E state_seq_set_data: error loading state: failed to restore kv cache",
             "21.41.222.115 E srv          load: failed to restore state with size 516191068",
             "21.41.222.115 W slot  prompt_load: id  0 | task -1 | failed to load prompt from cache",
             "21.41.222.116 I slot prompt_clear: id  0 | task -1 | clearing prompt with 0 tokens",
             "21.42.000.000 I srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]
    assert kind_of(lines)[0] == "NONE"


def test_a_shared_cache_chosen_for_auto_slots_filling_is_the_pool_under_load():
    lines = [*_LLAMA_SERVER_AUTO,
             "21.44.814.127 E srv  update_slots: Context size has been exceeded. i = 1329, n_batch = 1, ret = 1",
             "21.44.814.128 E srv    send_error: task id = 13044, error: Context size has been exceeded.",
             "21.44.814.399 E srv    send_error: task id = 13045, error: Context size has been exceeded.",
             "21.44.815.975 I srv  update_slots: all slots are idle"]
    assert kind_of(lines) == ("RUNTIME", "kv-cache-full-request-failed")


# --- the report's words that it works, over a paste cut during its start-up (h558/06: "But the Chat is working fine,
# without any Problems." above an Ollama runner's first lines, read as a log that ends during a step) ---------------

_OLLAMA_CUT = ["time=2024-02-01T10:00:00.000Z level=INFO source=images.go:857 msg=\"total blobs: 5\"",
               "time=2024-02-01T10:00:01.000Z level=INFO source=routes.go:1014 msg=\"Listening on 127.0.0.1:11434 "
               "(version 0.1.22)\"",
               "llama_model_loader: loaded meta data with 24 key-value pairs and 291 tensors from /root/.ollama/models/"
               "blobs/sha256:e8a35b (version GGUF V3 (latest))",
               "llama_model_loader: - kv   0:                       general.architecture str              = llama",
               "llama_model_loader: - kv   1:                               general.name str              = mistral"]


@pytest.mark.parametrize("words", ["But the Chat is working fine, without any Problems.",
                                   "Everything works fine, I only wonder why the GPU stays at 100% after the chat.",
                                   "模型可以正常对话，只是 GPU 占用一直是 100%。"])
def test_a_cut_start_up_under_words_that_it_works_is_no_failure(words):
    assert kind_of([words, *_OLLAMA_CUT])[0] == "NONE"


@pytest.mark.parametrize("words", ["It works fine until the third request, then it crashes.",
                                   "Is it working fine for you?",
                                   "Chat works fine, but after an hour the server hangs."])
def test_words_that_it_works_only_for_a_while_leave_the_cut_open(words):
    assert kind_of([words, *_OLLAMA_CUT])[0] != "NONE"


# --- round 560: notebook tracebacks in VS Code's and Unsloth's forms, a trainer's reference copy of the model, and a
# program's forecast for a setting it then changes ----------------------------------------------------------------

_VSCODE_TRAIN = ["OutOfMemoryError                          Traceback (most recent call last)",
                 "Cell In[12], line 10",
                 "      8 print('start')",
                 "---> <a href='vscode-notebook-cell://ssh-remote%2B1.2.3.4/w/GRPO.ipynb#X23sdnNjb2RlLXJlbW90ZQ%3D%3D?"
                 "line=9'>10</a> trainer.train()",
                 "",
                 "File /w/venv/lib/python3.11/site-packages/transformers/trainer.py:2232, in Trainer.train(self, "
                 "resume_from_checkpoint, trial, ignore_keys_for_eval, **kwargs)",
                 "   2230         hf_hub_utils.enable_progress_bars()",
                 "   2231 else:",
                 "-> 2232     return inner_training_loop(",
                 "",
                 "File <string>:329, in _fast_inner_training_loop(self, batch_size, args, resume_from_checkpoint, trial)",
                 "",
                 "File /w/venv/lib/python3.11/site-packages/accelerate/accelerator.py:2329, in Accelerator.backward(self, "
                 "loss, **kwargs)",
                 "-> 2329     loss.backward(**kwargs)",
                 "",
                 "OutOfMemoryError: CUDA out of memory. Tried to allocate 2.94 GiB. GPU 0 has a total capacity of 23.57 GiB"
                 " of which 2.40 GiB is free."]


def test_a_vscode_notebooks_training_traceback_is_a_training_step():
    assert kind_of(_VSCODE_TRAIN) == ("RUNTIME", "training-step-oom")


def test_a_vscode_link_is_read_as_its_text():
    from vramdoctor.logs.reader import unpaint
    assert unpaint("---> <a href='vscode-notebook-cell:/x.ipynb#W1?line=9'>10</a> trainer.train()") == (
        "---> 10 trainer.train()")


@pytest.mark.parametrize("frame", ["File <string>:73, in _unsloth_training_step(***failed resolving arguments***)",
                                   "File /x/accelerate/accelerator.py:2329, in Accelerator.backward(self, loss)"])
def test_a_training_frame_in_ipythons_form_is_a_training_step(frame):
    lines = ["OutOfMemoryError                          Traceback (most recent call last)", frame, "",
             "OutOfMemoryError: CUDA out of memory. Tried to allocate 2.94 GiB."]
    assert kind_of(lines) == ("RUNTIME", "training-step-oom")


def test_a_trainers_reference_copy_of_the_model_is_the_weights():
    # (h560/04: TRL's GRPOTrainer copies the model as its reference, forty frames of deepcopy in IPython 7's form)
    lines = ["OutOfMemoryError                          Traceback (most recent call last)",
             "<ipython-input-24-023f31f3af3c> in <cell line: 0>()", "----> 3 trainer = GRPOTrainer(", "",
             "/usr/local/lib/python3.11/dist-packages/trl/trainer/grpo_trainer.py in __init__(self, model, reward_funcs)",
             "--> 254             self.ref_model = create_reference_model(model)", "",
             "/usr/local/lib/python3.11/dist-packages/trl/models/modeling_base.py in create_reference_model(model, "
             "num_shared_layers, pattern)", "--> 614         return deepcopy(model).eval()", ""]
    for _ in range(45):
        lines += ["/usr/lib/python3.11/copy.py in deepcopy(x, memo, _nil)", "    161                 y = copier(memo)",
                  ""]
    lines += ["/usr/local/lib/python3.11/dist-packages/torch/storage.py in clone(self)",
              "--> 236         return type(self)(self.nbytes(), device=self.device).copy_(self)", "",
              "OutOfMemoryError: CUDA out of memory. Tried to allocate 28.00 MiB. GPU 0 has a total capacity of 14.74 GiB "
              "of which 14.12 MiB is free."]
    assert kind_of(lines)[0] == "WEIGHTS"


@pytest.mark.parametrize("warning", ["Unsloth: Standby mode is enabled. However your setting of `gpu_memory_utilization` "
                                     "will OOM.",
                                     "Warning: the value for max_seq_length will OOM on this GPU; lowering it to 2048."])
def test_a_programs_forecast_for_a_setting_is_no_oom(warning):
    lines = [warning, "Changing `gpu_memory_utilization` to 0.8.",
             "INFO 07-04 17:56:39 [model_runner.py:1671] Graph capturing finished in 2 secs, took 0.10 GiB",
             "INFO 07-04 17:56:40 [llm_engine.py:428] init engine (profile, create kv cache, warmup model) took 11.31 "
             "seconds",
             "Unsloth 2026.6.9 patched 36 layers with 36 QKV layers, 36 O layers and 36 MLP layers."]
    assert kind_of(lines)[0] == "NONE"


# --- a benchmark's word that the server it drives went away (h561/07: "Server appears down, stopping context sweep"
# after a row of ERR, read as no failure) ----------------------------------------------------------------------------

@pytest.mark.parametrize("line", ["  Server appears down, stopping context sweep",
                                  "[bench] the server seems to have crashed; aborting the remaining requests",
                                  "Backend appears unresponsive after request 37"])
def test_a_benchmarks_word_that_the_server_went_away_is_a_failure_not_shown(line):
    lines = ["[2025-04-13 00:32:00] The server is fired up and ready to roll!", "Warming up (3 requests)...",
             "   32768       171.7       5.8    256596.6", "   65536         ERR         —           —", line]
    assert kind_of(lines) == ("UNDETERMINED", "failure-cause-not-shown")


def test_a_question_whether_the_server_is_down_is_none():
    lines = ["[2025-04-13 00:32:00] The server is fired up and ready to roll!",
             "Does the server appear down to you, or is it just slow?"]
    assert kind_of(lines)[0] == "NONE"


# --- review 55b (a second fresh helper's logs, aimed at this stop's readings in more languages and code) ------------

@pytest.mark.parametrize("words", [
    "Ich habe max-num-seqs auf 8 gesetzt, damit kein OOM auftritt. Es läuft gut.",
    "Pas d'OOM, la mémoire est correcte.",
    "OOMエラーは一度も発生していません。",
    "OOM은 발생하지 않았습니다. CUDA out of memory 오류도 없습니다.",
    "No aparece ningún error de CUDA out of memory.",
    "CUDA out of memory never happened in this run.",
    "OOMを防ぐために max-num-seqs を 8 にしました。",
    "OOM을 방지하기 위해 max-num-seqs를 8로 설정했습니다.",
    "Wir haben den Kontext gekürzt, um OOM zu vermeiden.",
])
def test_oom_denied_or_kept_away_in_more_languages_is_no_failure(words):
    assert kind_of([words, *_VLLM_SERVING])[0] == "NONE"


@pytest.mark.parametrize("code", [
    ['    console.error("Out of memory while generating, retrying");', '    throw new Error("CUDA out of memory");'],
    ['\tlog.Printf("llama-server out of memory: %v", err)', '\tslog.Error("CUDA out of memory", "err", err)'],
    ['    warnings.warn(f"CUDA out of memory likely at batch {bs}")',
     '    assert free > need, "GPU out of memory before loading"'],
    ["    if (err == cudaErrorMemoryAllocation) {  /* out of memory: halve the batch */"],
    ['    if "out of memory" in str(e):', '        return {"error": "CUDA out of memory"}'],
    ['grep -q "out of memory" server.log && echo "CUDA out of memory detected, restarting"'],
    ["    #if it OOMs, decrease the batch"],
    ["        memory: 32Gi   # was 16Gi, pod got OOMKilled while loading"],
])
def test_more_pasted_source_that_names_an_oom_is_no_failure(code):
    assert kind_of(["My code, for reference; the server works:", "```", *code, "```", *_VLLM_SERVING])[0] != "RUNTIME"


def test_an_error_dump_with_an_assignment_is_still_read():
    # (a gRPC error's details printed as `details = "..."`: the error itself, not code)
    lines = ['\tstatus = StatusCode.UNKNOWN', '\tdetails = "Unexpected <class \'RuntimeError\'>: CUDA Error 2, out of memory"']
    assert kind_of(lines)[0] not in ("NONE", "NOT_OOM")


def test_a_documents_rule_about_kv_refusals_is_no_refusal():
    words = "The docs say a request that does not fit in the KV cache is rejected with 400, so I set a budget."
    assert kind_of([words, *_VLLM_SERVING])[0] == "NONE"


@pytest.mark.parametrize("line", [
    "ERROR minisrv: 20480 tokens exceed the KV cache capacity (16384 tokens)",
    "ERROR minisrv: 入力 20480 トークンが KV キャッシュの容量（16384 トークン）を超えています",
    "ERROR minisrv: la solicitud no cabe en la caché KV (20480 > 16384 tokens)",
    "ERROR minisrv: 输入 20480 tokens 超过了 KV 缓存的容量",
])
def test_an_engines_kv_refusal_in_more_wordings(line):
    assert kind_of(["INFO minisrv: listening on 0.0.0.0:7000", line])[0] == "KV_CAPACITY"


@pytest.mark.parametrize("words", [
    "Der Server hängt sich nach etwa 200 Anfragen auf. Der VRAM-Verbrauch bleibt dabei konstant bei 21 GB.",
    "El servidor se queda colgado después de unas horas; la memoria se mantiene constante en 21 GB.",
    "200件ほど処理すると応答が返ってこなくなります。VRAMは変わらず 21GB のままです。",
    "요청이 멈춥니다. VRAM 사용량은 일정하게 유지됩니다.",
])
def test_a_hang_with_memory_flat_in_more_languages_is_not_memory(words):
    assert kind_of([words, *_VLLM_SERVING]) == ("NOT_OOM", "hang-no-error")


@pytest.mark.parametrize("words", ["Der Speicher steigt mit jeder Anfrage um 500 MB und geht nie wieder zurück.",
                                   "VRAM 사용량이 계속 증가하고 줄어들지 않습니다.",
                                   "显存每次请求都会涨一点，请求结束后也不降下来。"])
def test_growth_that_does_not_come_back_in_more_languages_is_a_leak(words):
    assert kind_of([words, *_VLLM_SERVING])[0] == "LEAK"


@pytest.mark.parametrize("words", ["Nach diesem Schritt passiert nichts mehr. Ich habe 40 Minuten gewartet.",
                                   "このステップで止まったまま、40分待っても進みません。",
                                   "Esperé 40 minutos y luego lo detuve con Ctrl+C.",
                                   "이 줄 이후로 40분 동안 아무 진행이 없어서 Ctrl+C로 중단했습니다."])
def test_a_start_up_waited_on_in_more_languages_is_a_stall(words):
    lines = [words, "INFO 05-20 13:01:02 [api_server.py:1043] vLLM API server version 0.8.5",
             "INFO 05-20 13:02:41 [gpu_model_runner.py:1686] Capturing CUDA graphs ...",
             "^CINFO 05-20 13:43:10 [launcher.py:74] Shutting down FastAPI HTTP server.", "KeyboardInterrupt"]
    assert kind_of(lines)[0] == "UNDETERMINED"


@pytest.mark.parametrize("words", ["Der Chat funktioniert einwandfrei, nur die GPU bleibt bei 100 %.",
                                   "チャットは問題なく動いています。GPU 使用率だけが 100% のままです。",
                                   "El chat funciona bien, solo la GPU se queda al 100 %.",
                                   "채팅은 정상적으로 작동합니다. GPU 사용률만 100%입니다."])
def test_words_that_it_works_in_more_languages_over_a_cut_start_up(words):
    assert kind_of([words, *_OLLAMA_CUT])[0] == "NONE"


def test_an_oom_said_to_come_while_generating_is_serving():
    line = "2025-06-03 10:05:00 ERROR gateway: CUDA out of memory while generating, dropping request 42"
    assert kind_of(["2025-06-03 10:00:01 INFO gateway: model ready", line])[0] == "RUNTIME"


def test_ipex_llm_over_transformers_shard_bar_is_ipex_llm():
    lines = ["ipex-llm Version: 2.1.0b20240811",
             "Loading checkpoint shards: 100%|██████████| 2/2 [00:03<00:00,  1.52s/it]",
             "Traceback (most recent call last):",
             '  File "/v/lib/python3.11/site-packages/ipex_llm/transformers/low_bit_linear.py", line 492, in to',
             "    new_param = FP4Params(super().to(device=device,",
             "RuntimeError: Native API failed. Native API returns: -5 (PI_ERROR_OUT_OF_RESOURCES)"]
    rep = diag("\n".join(lines))
    assert rep.engine == "ipex-llm"
    assert run_of(rep).kind == "UNDETERMINED"


@pytest.mark.parametrize("words", [
    "서버가 몇 시간 후에 멈춥니다. 에러 메시지는 없습니다. GPU 메모리 사용량은 정상이고 계속 22GB 정도로 일정합니다.",
    "Depois de algumas horas o servidor trava e para de responder. A memória da GPU parece normal, fica estável em 22 GB.",
])
def test_a_hang_with_memory_normal_in_korean_and_portuguese_is_not_memory(words):
    assert kind_of([words, *_VLLM_SERVING]) == ("NOT_OOM", "hang-no-error")


def test_a_compute_buffer_after_any_gradio_apps_ready_is_the_models_start_up():
    # (an app of one's own, no text-generation-webui line to begin a run: the order of its lines tells the ready came
    # before the load, so the compute buffer is the load's, not one reserved again while serving)
    lines = ["Running on local URL:  http://127.0.0.1:7860", *_LOAD_TO_COMPUTE,
             "llama_new_context_with_model: failed to allocate compute buffers"]
    assert kind_of(lines) == ("WARMUP", "compute-buffer-alloc-failed")
