"""`vramdoctor logs` on the kinds of fault the held-out rounds 97-99 (issue 6, stop 26) found, each with logs of our
own in other engines, versions and wordings (none of the held-out logs' own lines), and the structure every engine's
step codes share. The engines' lines follow their sources (named in `vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag
from vramdoctor.engines import all_engines
from vramdoctor.logs.diagnose import CODE_ORDER

# --- one place per engine: the steps that settle a failure's code are each engine's own (StepCode), and which of
# several wins is one order for all ------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", [e for e in all_engines() if e.log.step_codes], ids=lambda e: e.name)
def test_every_step_code_is_one_the_order_can_choose(engine):
    for s in engine.log.step_codes:
        assert s.code in CODE_ORDER.get(s.kind, ()), (engine.name, s.kind, s.code)


def test_the_codes_named_by_steps_come_from_more_than_one_engine():
    owners = {s.code: e.name for e in all_engines() for s in e.log.step_codes}
    assert {"prefill-tokens-exceed-memory": "tgi", "kv-cache-too-small": "vllm"}.items() <= owners.items()


_VLLM_CAPTURE = """\
INFO 03-02 10:00:01 [gpu_model_runner.py:2100] Model loading took 14.99 GiB and 6.1 seconds
INFO 03-02 10:00:09 [gpu_worker.py:298] Available KV cache memory: 52.10 GiB
INFO 03-02 10:00:09 [kv_cache_utils.py:1087] GPU KV cache size: 426,800 tokens
ERROR 03-02 10:00:12 [core.py:708] EngineCore failed to start.
ERROR 03-02 10:00:12 [core.py:708] Traceback (most recent call last):
ERROR 03-02 10:00:12 [core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2710, in capture_model
ERROR 03-02 10:00:12 [core.py:708]     self._capture_cudagraphs(
ERROR 03-02 10:00:12 [core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2760, in _capture_cudagraphs
ERROR 03-02 10:00:12 [core.py:708]     self._dummy_run(num_tokens, cudagraph_runtime_mode=mode)
ERROR 03-02 10:00:12 [core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2400, in _dummy_run
ERROR 03-02 10:00:12 [core.py:708]     outputs = self.model(
ERROR 03-02 10:00:12 [core.py:708] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 has a total capacity of 79.19 GiB of which 101.31 MiB is free.
"""


def test_a_graph_capture_over_the_dummy_run_it_calls_is_the_capture():
    d = diag(_VLLM_CAPTURE).diagnosis
    assert (d["kind"], d["code"]) == ("WARMUP", "cuda-graph-capture-oom")


def test_the_dummy_run_alone_is_the_profiling_pass():
    text = "\n".join(ln for ln in _VLLM_CAPTURE.splitlines() if "KV cache" not in ln)
    text = text.replace("in capture_model", "in profile_run").replace("self._capture_cudagraphs(", "hidden_states = (")
    text = text.replace("in _capture_cudagraphs", "in _run_once").replace(
        "self._dummy_run(num_tokens, cudagraph_runtime_mode=mode)", "self._dummy_run(self.max_num_tokens, is_profile=True)")
    d = diag(text).diagnosis
    assert (d["kind"], d["code"]) == ("WARMUP", "profile-run-oom")


def test_the_diagnosis_spells_no_engine_s_function_names():
    """Its code (not its comments, which cite where a rule came from) names no engine's steps."""
    import io
    import sys
    import tokenize

    path = sys.modules["vramdoctor.logs.diagnose"].__file__
    with open(path, encoding="utf-8") as fh:
        code = " ".join(t.string for t in tokenize.generate_tokens(io.StringIO(fh.read()).readline)
                        if t.type != tokenize.COMMENT)
    for name in ("flash_causal_lm", "check_enough_kv_cache_memory", "model_runner", "gallocr", "forward_extend",
                 "profile_run", "ExLlama(", "create_shared_weights"):
        assert name not in code, name


# --- a process's end by a signal as its parent reports it: minus the signal's number (Python's subprocess returncode)
# or Windows' NTSTATUS as a signed number; what the signal says, never "no failure" --------------------------------

_LOADING = """\
12:01:07-118442 INFO     Loading "Qwen3-4B-Q4_K_M.gguf"
llama_model_loader: loaded meta data with 34 key-value pairs and 398 tensors from models/Qwen3-4B-Q4_K_M.gguf
llama_context: n_ctx_per_seq (8192) < n_ctx_train (40960) -- the full capacity of the model will not be utilized
llama_kv_cache: CPU KV buffer size = 1152.00 MiB
"""


@pytest.mark.parametrize("end, kind, code", [
    ("12:01:09-552101 ERROR    Failed to load the model: llama-server returned exit code -4 before it was ready",
     "NOT_OOM", "illegal-instruction"),
    ("RuntimeError: Server process exited with code: -11 (see above)", "NOT_OOM", "crash-access-violation"),
    ("Process finished with exit code -1073741819 (0xC0000005)", "NOT_OOM", "crash-access-violation"),
    ("subprocess ended: returncode=-8", "NOT_OOM", "floating-point-exception"),
    # (a full disk, Windows' STATUS_NO_MEMORY and stack overflow, exit statuses in decimal, an abort as exit 134)
    ("OSError: [Errno 28] No space left on device: '/root/.cache/huggingface/hub/models--x/blobs/abc.incomplete'",
     "NOT_OOM", "disk-full"),
    ("Process finished with exit code -1073741571 (0xC00000FD)", "NOT_OOM", "stack-overflow"),
    ("Error: llama runner process has terminated: exit status 3221225477", "NOT_OOM", "crash-access-violation"),
    ("error: process exited with code 0xC0000017", "UNDETERMINED", "host-alloc-failed"),
    ("Process finished with exit code 134 (interrupted by signal 6:SIGABRT)", "UNDETERMINED", "failure-cause-not-shown"),
])
def test_a_process_s_end_names_its_cause(end, kind, code):
    d = diag(_LOADING + end + "\n").diagnosis
    assert (d["kind"], d["code"]) == (kind, code)


def test_minus_nine_is_a_kill_not_no_failure():
    d = diag(_LOADING + "ERROR: the model server exited with code -9\n").diagnosis
    assert d["kind"] != "NONE" and d["code"] != "no-memory-problem"


def test_a_minus_in_a_figure_is_no_exit_code():
    d = diag(_LOADING + "llama_perf_context_print: exit code of the sampler is unused, returned -40.5 ms\n").diagnosis
    assert d["kind"] == "NONE"


# --- a question typed at `ollama run`'s prompt (">>> ", shown only once the model has loaded) is a request under
# way; Python's REPL (">>> llm = LLM(...)") and the prompt's placeholder are not --------------------------------


@pytest.mark.parametrize("question", ["summarize the attached notes in three bullet points",
                                      "Why is the sky blue?", "hello there, who are you"])
def test_a_question_at_ollama_run_s_prompt_is_a_request(question):
    d = diag(f"""\
        PS C:\\Users\\dev> ollama run gemma3:27b
        >>> {question}
        Error: an error was encountered while running the model: CUDA error: out of memory
          current device: 0, in function ggml_backend_cuda_synchronize at ggml-cuda.cu:2581
        """).diagnosis
    assert d["kind"] == "RUNTIME"


def test_the_prompt_s_placeholder_is_no_request():
    d = diag("""\
        $ ollama run llama3.3:70b
        >>> Send a message (/? for help)
        Error: an error was encountered while running the model: CUDA error: out of memory
        """).diagnosis
    assert d["kind"] != "RUNTIME"


def test_a_python_repl_statement_is_no_request():
    d = diag("""\
        >>> from vllm import LLM
        >>> llm = LLM(model="meta-llama/Llama-3.1-70B-Instruct", max_model_len=8192)
        INFO 01-12 09:41:02 [model_runner.py:1072] Starting to load model meta-llama/Llama-3.1-70B-Instruct...
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which 120.31 MiB is free.
        """).diagnosis
    assert d["kind"] == "WEIGHTS"


def test_a_quoted_log_is_still_unquoted():
    d = diag("""\
        > > INFO 01-12 09:41:02 [model_runner.py:1072] Starting to load model meta-llama/Llama-3.1-70B-Instruct...
        > > torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which 120.31 MiB is free.
        """).diagnosis
    assert d["kind"] == "WEIGHTS"


# --- a step named to be told apart ("so that OOM happens during profiling instead of during inference") or as what
# could happen ("it is possible for users to crash the server at inference time") is no step the run passed --------

_BARE_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
             "79.15 GiB of which 1.02 GiB is free.")


@pytest.mark.parametrize("words", [
    "The engine warms up with the largest batch so that an OOM shows up at start-up rather than during inference.",
    "V1 profiles with the biggest image to make sure that OOM happens during profiling instead of during inference.",
    "It is possible for a client to crash the server at inference time by sending a huge image.",
    "In principle a burst of long prompts could kill it while serving requests, but that is not what I see here.",
])
def test_a_step_told_apart_or_possible_is_not_passed(words):
    d = diag(f"{words}\n\nStill OOM after upgrading, log below:\n{_BARE_OOM}\n").diagnosis
    assert d["kind"] != "RUNTIME"


@pytest.mark.parametrize("words", [
    "It crashes during inference with the error below.",
    "The server OOMs while serving requests from two clients:",
])
def test_a_step_stated_is_still_passed(words):
    d = diag(f"{words}\n{_BARE_OOM}\n").diagnosis
    assert d["kind"] == "RUNTIME"


# --- serving told by how long it served ("serves for days, then dies") or by the requests in flight when it died ---


@pytest.mark.parametrize("words", [
    "The server starts fine, serves for days, then dies with the OOM below; the buffer is not sized by the warmup.",
    "After serving fine for 6 hours the scheduler crashed; all in-flight requests got a 500.",
    "It served happily for several weeks. Then this, and every in-flight request failed:",
])
def test_serving_for_a_while_or_requests_in_flight_is_serving(words):
    d = diag(f"{words}\n{_BARE_OOM}\n").diagnosis
    assert d["kind"] == "RUNTIME"


def test_a_server_that_will_serve_for_hours_is_no_serving_yet():
    d = diag("I want it to be able to serve for hours without a restart, but it fails at start:\n"
             "ERROR 01-12 09:41:02 [model_runner.py:1072] Starting to load model Qwen/Qwen3-32B...\n"
             f"{_BARE_OOM}\n").diagnosis
    assert d["kind"] != "RUNTIME"


# --- a Python exception the title quotes whole, with no word of memory in it, names the error a cut traceback stops
# short of ---------------------------------------------------------------------------------------------------------

_CUT_TRACEBACK = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2710, in capture_model
    self._capture_cudagraphs(
  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2760, in _capture_cudagraphs
    self._dummy_run(num_tokens, cudagraph_runtime_mode=mode)
  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen3_moe.py", line 412, in forward
    hidden_st"""


@pytest.mark.parametrize("title", [
    "# [Bug]: TP=4 ValueError: Head size 80 is not supported by FlashAttention",
    "## KeyError: 'model.layers.0.mlp.experts.w13_weight' when loading with expert parallel",
    "# [Bug] pp>2 AssertionError: num_heads must be divisible by tp_size",
])
def test_a_titled_exception_not_of_memory_names_the_error(title):
    d = diag(f"{title}\n\nThe error:\n{_CUT_TRACEBACK}\n").diagnosis
    assert (d["kind"], d["code"]) == ("NOT_OOM", "error-not-memory")


@pytest.mark.parametrize("title", [
    "# [Bug]: RuntimeError: CUDA error: out of memory at graph capture",
    "# [Bug] RuntimeError: NCCL error: unhandled system error while capturing",  # (a known error: its own code)
    "# [Bug]: RuntimeError: Cannot allocate the workspace buffer",
])
def test_a_titled_exception_of_memory_or_known_words_keeps_its_reading(title):
    d = diag(f"{title}\n\nThe error:\n{_CUT_TRACEBACK}\n").diagnosis
    assert d["code"] != "error-not-memory"


# --- a Rust backtrace's frames (mistral.rs, vllm.rs, candle) are frames, and candle's weight reader in them is the
# weights loading --------------------------------------------------------------------------------------------------

_RUST_LOAD = """\
Error: DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")
   0: candle_core::error::Error::bt
             at /root/.cargo/git/checkouts/candle-0c2b4fa9e5801351/b1a0b3f/candle-core/src/error.rs:262:25
   1: candle_core::cuda_backend::device::CudaDevice::alloc_zeros
   2: candle_core::tensor::Tensor::zeros_impl
   3: candle_nn::var_builder::VarBuilderArgs<B>::get_with_hints_dtype
   4: mistralrs_core::layers::Linear::new
   5: mistralrs_core::models::llama::Llama::new
   6: mistralrs_core::pipeline::normal::NormalLoader::load_model_from_path
"""


@pytest.mark.parametrize("prefix", ["", "mistralrs-1  | ", "llm-gateway-7  | "])
def test_candle_s_weight_reader_in_a_rust_backtrace_is_the_weights(prefix):
    text = "".join(prefix + ln + "\n" for ln in _RUST_LOAD.splitlines())
    d = diag(text).diagnosis
    assert (d["kind"], d["code"]) == ("WEIGHTS", "weights-alloc-failed")


def test_a_rust_backtrace_through_a_forward_pass_is_not_the_weights():
    text = _RUST_LOAD.replace("candle_nn::var_builder::VarBuilderArgs<B>::get_with_hints_dtype",
                              "mistralrs_core::attention::Sdpa::run_attention").replace(
        "mistralrs_core::layers::Linear::new", "mistralrs_core::models::llama::Llama::forward").replace(
        "mistralrs_core::models::llama::Llama::new", "mistralrs_core::pipeline::normal::NormalPipeline::forward_inputs"
    ).replace("mistralrs_core::pipeline::normal::NormalLoader::load_model_from_path",
              "mistralrs_core::engine::Engine::run")
    d = diag(text).diagnosis
    assert d["kind"] != "WEIGHTS"


# --- a model refused before loading because its weights' size is over a memory cap or what is free: WEIGHTS, with
# the cap named in the advice -------------------------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    'HTTP 507: {"error":{"message":"Model \'Llama-3.3-70B-Instruct-8bit\' (74.98GB) exceeds max-model-memory (48.00GB)"}}',
    "ERROR loader: model size (41.2 GiB) exceeds available VRAM (23.6 GiB); refusing to load",
    "[error] Model mistral-large-2411 (68.7 GB) exceeds the total system memory of this machine",
])
def test_a_model_over_a_memory_cap_is_the_weights(line):
    rep = diag(line + "\n")
    assert (rep.diagnosis["kind"], rep.diagnosis["code"]) == ("WEIGHTS", "weights-exceed-memory-limit")
    assert "cap" in rep.runs[0].advice[0]["change"]


@pytest.mark.parametrize("line", [
    "ValueError: The model's max seq len (131072) exceeds the maximum number of tokens in the KV cache",
    "Model context length (32768) exceeds the configured limit",
])
def test_other_limits_exceeded_are_not_a_model_over_a_cap(line):
    assert diag(line + "\n").diagnosis["code"] != "weights-exceed-memory-limit"


# --- a user's sentence about another version or an earlier time ("I successfully loaded big models on ollama < 0.30")
# is no step this run passed ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("words", [
    "I successfully loaded bigger models (qwen3-coder:30b, 19 GiB) on ollama-rocm < 0.30 before.",
    "It previously successfully loaded this model in 40 s on the same GPU.",
    "With older builds the model was successfully loaded, and it served for hours.",
])
def test_a_sentence_about_another_version_or_time_passes_no_step(words):
    rep = diag(f"{words}\nNow on the new version it fails:\n{_BARE_OOM}\n")
    assert rep.runs[0].progress == {}


def test_a_sentence_about_this_run_still_passes_its_step():
    rep = diag(f"The model successfully loaded, and it served for hours before this:\n{_BARE_OOM}\n")
    assert {"weights_done", "requests"} <= set(rep.runs[0].progress)


# --- ggml's abort, GGML_ABORT's "file:line: message" before its backtrace, names its cause -----------------------

_GDB = """\
[New LWP 51234]
[Thread debugging using libthread_db enabled]
0x00007f3a1c2ea42f in __GI___wait4 (pid=51240, stat_loc=0x0, options=0, usage=0x0) at ../sysdeps/unix/sysv/linux/wait4.c:30
#0  0x00007f3a1c2ea42f in __GI___wait4 (pid=51240, stat_loc=0x0, options=0, usage=0x0) at ../sysdeps/unix/sysv/linux/wait4.c:30
"""


@pytest.mark.parametrize("abort", [
    "/opt/llama.cpp/src/llama-vocab.cpp:2170: unknown pre-tokenizer type: 'glm5'",
    "ggml/src/ggml-metal/ggml-metal.m:1912: unsupported op 'CONV_TRANSPOSE_1D'",
    "D:\\a\\llama.cpp\\tools\\mtmd\\clip.cpp:3120: Unsupported projector for this model",
])
def test_ggml_s_abort_names_its_cause(abort):
    d = diag(f"main: loading model\n{abort}\n{_GDB}").diagnosis
    assert (d["kind"], d["code"]) == ("NOT_OOM", "error-not-memory")


def test_ggml_s_abort_on_a_cuda_out_of_memory_is_memory():
    d = diag("llama_kv_cache: CUDA0 KV buffer size = 4096.00 MiB\n"
             "ggml/src/ggml-cuda/ggml-cuda.cu:88: CUDA error\n"
             "CUDA error: out of memory\n"
             "  current device: 0, in function ggml_cuda_op_mul_mat at ggml/src/ggml-cuda/ggml-cuda.cu:1620\n"
             + _GDB).diagnosis
    assert d["kind"] != "NOT_OOM"


def test_a_compiler_s_warning_is_no_abort():
    d = diag("/src/ggml/src/ggml.c:1450:13: warning: unused variable 'n' [-Wunused-variable]\n"
             "/src/ggml/src/ggml.c:88: note this is a build log\n").diagnosis
    assert d["kind"] == "NONE"


# --- NCCL's "Cuda failure '<reason>'" is memory only where the reason is (or code 2, cudaErrorMemoryAllocation) -----

_NCCL_TAIL = ("(VllmWorker rank=0 pid=812) ERROR 05-02 10:45:36 [multiproc_executor.py:511] WorkerProc failed to start.\n"
              "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n")


@pytest.mark.parametrize("reason", ["'operation not supported'", "'invalid device ordinal'",
                                    "801 'operation not supported'", "'peer access is not supported between these two devices'"])
def test_nccl_s_cuda_failure_for_another_reason_is_not_memory(reason):
    d = diag(f"node7:2211:2211 [0] init.cc:416 NCCL WARN Cuda failure {reason}\n{_NCCL_TAIL}").diagnosis
    assert (d["kind"], d["code"]) == ("NOT_OOM", "nccl-error")


@pytest.mark.parametrize("reason", ["'out of memory'", "2 'out of memory'"])
def test_nccl_s_cuda_failure_out_of_memory_is_its_buffers(reason):
    d = diag(f"node7:2211:2230 [1] include/alloc.h:228 NCCL WARN Cuda failure {reason}\n{_NCCL_TAIL}").diagnosis
    assert d["code"] == "nccl-buffers-oom"


@pytest.mark.parametrize("reason", ["2 'out of me", "'out of mem", "2"])
def test_nccl_s_cuda_failure_cut_short_is_still_memory(reason):
    d = diag(f"""\
        node7:2211:2230 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/direct pointer
        node7:2211:2230 [1] include/alloc.h:228 NCCL WARN Cuda failure {reason}
        node7:2211:2229 [0] NCCL INFO Channel 01/04 : 0 1
        node7:2211:2229 [0] NCCL INFO Trees [0] -1/-1/-1->1->0 [1] 0/-1/-1->1->-1
        """).diagnosis
    assert d["code"] == "nccl-buffers-oom"


# --- a person's sentence of two outcomes, each quoting its own error, is not one failure: the step one clause names
# is not where the other clause's memory ran out -------------------------------------------------------------------


@pytest.mark.parametrize("words", [
    "At `--mem-fraction-static 0.6` I get `RuntimeError: Not enough memory`, whereas at 0.8 I get "
    "`Exception: Capture cuda graph failed`.",
    "With 0.01 it is too low (resulting in `RuntimeError: Not enough memory`), while 0.05 or anything above "
    "results in `Exception: Capture cuda graph failed`.",
    "We run out of memory at 32k context, but at 16k the server dies with `Capture cuda graph failed` instead.",
])
def test_two_outcomes_in_one_sentence_are_not_joined(words):
    d = diag(f"[Bug] startup fails with AWQ and torch.compile\n\n{words}\n").diagnosis
    assert d["code"] != "cuda-graph-capture-oom"


def test_one_outcome_that_names_both_is_still_the_capture():
    d = diag("[Bug] startup fails\n\nI get `Exception: Capture cuda graph failed: CUDA out of memory` at 0.9.\n").diagnosis
    assert (d["kind"], d["code"]) == ("WARMUP", "cuda-graph-capture-oom")


# --- a log that ends on a traceback's `raise` statement, printed as an error-level line, ended inside a failure ----

_VLLM_RAISE = ("(EngineCore_DP0 pid=2201) ERROR 01-22 09:42:00 [core.py:708]   File \"/usr/lib/python3.12/site-packages/"
               "vllm/v1/core/kv_cache_utils.py\", line 690, in check_enough_kv_cache_memory\n"
               "(EngineCore_DP0 pid=2201) ERROR 01-22 09:42:00 [core.py:708]     raise ValueErro")


@pytest.mark.parametrize("last", [
    "ERROR 03-11 14:02:19 [engine.py:160]     raise ValueErro",
    "(APIServer pid=1) (EngineCore_DP0 pid=3) ERROR 01-22 09:42:00 [patch_core.py:58]     raise ValueError(msg)",
    "[2025-11-02 08:00:01] ERROR [scheduler.py:2210]      raise SchedulerError",
])
def test_a_log_ending_on_a_logged_raise_is_no_clean_run(last):
    d = diag(f"INFO 03-11 14:02:10 [api_server.py:1034] vLLM API server version 0.9.1\n{last}\n").diagnosis
    assert d["kind"] == "UNDETERMINED"


def test_a_logged_raise_before_its_error_line_leaves_the_error_line_to_decide():
    text = _VLLM_RAISE.replace("raise ValueErro", "raise ValueError(") + (
        "\n(EngineCore_DP0 pid=2201) ERROR 01-22 09:42:00 [core.py:708] ValueError: To serve at least one request "
        "with the models's max seq len (131072), (24.0 GiB KV cache is needed, which is larger than the available KV "
        "cache memory (9.81 GiB). Based on the available memory, the estimated maximum model length is 53568. Try "
        "increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n")
    d = diag(text).diagnosis
    assert d["kind"] == "KV_CAPACITY"


# --- a request's KV slots found freed twice is the engine's bookkeeping, not memory -------------------------------


@pytest.mark.parametrize("line", [
    "[2026-03-02 10:11:12 TP3] AssertionError: Committed KV cache already freed (self.kv_committed_len=12)",
    "RuntimeError: KV cache already freed for request 7f3ac1d2 (double release in abort path)",
])
def test_kv_slots_freed_twice_is_an_accounting_bug(line):
    d = diag(f"""\
        [2026-03-02 10:11:11 TP3] Decode batch. #running-req: 14, #token: 20480, token usage: 0.31, gen throughput (token/s): 820.11
        [2026-03-02 10:11:12 TP3] Scheduler hit an exception: Traceback (most recent call last):
          File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1024, in event_loop_overlap
            batch = self.get_next_batch_to_run()
        {line}
        """).diagnosis
    assert (d["kind"], d["code"]) == ("NOT_OOM", "kv-accounting-error")


def test_kv_blocks_freed_as_a_count_is_no_failure():
    d = diag("INFO 03-02 10:11:12 [scheduler.py:88] Freed KV cache blocks: 120 (request done)\n").diagnosis
    assert d["kind"] == "NONE"


def test_ggml_s_pool_alloc_named_without_at_is_still_a_graph_evaluation():
    rep = diag("""\
        ROCm error: out of memory
          current device: 0, in function alloc /build/ollama/ml/backend/ggml/ggml/src/ggml-cuda/ggml-cuda.cu:420
          ggml_cuda_device_malloc(&ptr, look_ahead_size, device)
        """)
    assert rep.diagnosis["kind"] == "UNDETERMINED"
    assert set(rep.runs[0].candidates) == {"WARMUP", "RUNTIME"}


# --- how far a conversation got before it failed ("can handle ~9200 tokens before crashing") is serving ----------


@pytest.mark.parametrize("words", [
    "With SYCL it can handle ~9200 tokens before crashing with the OOM below, Vulkan gets the full 12288.",
    "On ROCm the chat gets to about 20k tokens before it dies:",
    "The server crashes after roughly 6k tokens of output with this error:",
])
def test_a_context_filled_before_the_failure_is_serving(words):
    d = diag(f"{words}\nggml_backend_sycl_buffer_type_alloc_buffer: can't allocate 512.00 MiB: out of memory\n").diagnosis
    assert d["kind"] == "RUNTIME"


def test_a_setting_of_tokens_is_no_serving():
    d = diag("I set a context of 12288 tokens before starting it, and the load crashes after loading 24 of 48 layers:\n"
             "ggml_backend_sycl_buffer_type_alloc_buffer: can't allocate 512.00 MiB: out of memory\n").diagnosis
    assert d["kind"] != "RUNTIME"


# --- an `ollama run` chat pasted whole: the model's answers (up to the next prompt, a fence, a command) are not the
# server's lines, whatever errors they quote; the CLI's own "Error: ..." under a question is ------------------------

_CHAT = """\
$ ollama run qwen3:8b
>>> why would llama-server print "cudaMalloc failed: out of memory" at start?
It means the weights or the KV cache did not fit. For example:

    ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9216.00 MiB on device 0: cudaMalloc failed: out of memory
    llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache

Lower -c or offload fewer layers.

>>> and what is CUDA error: out of memory during a request?
That one comes while serving: a long prompt needed more activations than were free.

>>> /bye
"""


def test_a_chat_whose_answers_quote_errors_is_no_failure():
    assert diag(_CHAT).diagnosis["kind"] == "NONE"


def test_a_chat_question_quoting_an_error_is_no_failure():
    text = "\n".join(_CHAT.splitlines()[:2]) + "\nIt is the weights not fitting.\n>>> /bye\n"
    assert diag(text).diagnosis["kind"] == "NONE"


def test_a_server_log_after_the_chat_s_fence_is_read():
    text = ("```\n" + _CHAT + "```\n\nserver.log:\n```\n"
            "time=2026-03-01T10:00:01.000Z level=INFO source=server.go:637 msg=\"llama runner started in 3.02 seconds\"\n"
            "CUDA error: out of memory\n"
            "  current device: 0, in function ggml_backend_cuda_synchronize at ggml/src/ggml-cuda/ggml-cuda.cu:2581\n"
            "```\n")
    assert diag(text).diagnosis["kind"] == "RUNTIME"


# --- a prompt logged with its newlines, holding a log the user pasted (lines with a log prefix of their own), is all
# the prompt's text once its close comes; a prompt that never closes leaves the lines after it to be read ---------

_OPEN = ("INFO 05-12 10:02:36 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000\n"
         "INFO 05-12 10:03:10 [logger.py:39] Received request chatcmpl-9f: prompt: '<|im_start|>user\n"
         "My other box crashed like this, why?\n"
         "ERROR 05-11 22:10:01 [core.py:396] EngineCore failed to start.\n"
         "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 0 has a total capacity of "
         "79.19 GiB of which 310.62 MiB is free.\n")


def test_a_pasted_log_inside_a_closed_prompt_is_the_prompt():
    text = _OPEN + ("<|im_end|>\n<|im_start|>assistant\n', params: SamplingParams(n=1, temperature=0.7, "
                    "max_tokens=512), prompt_token_ids: None, lora_request: None.\n"
                    'INFO:     127.0.0.1:51240 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n')
    assert diag(text).diagnosis["kind"] == "NONE"


def test_a_prompt_that_never_closes_leaves_the_failure_after_it():
    text = _OPEN + "".join(f"INFO 05-12 10:03:{i:02d} [loggers.py:111] Engine 000: Running: 1 reqs\n" for i in range(70))
    text += ("ERROR 05-12 10:05:00 [core.py:708] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 "
             "GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free.\n")
    assert diag(text).diagnosis["kind"] == "RUNTIME"


# --- never more than one sequence running: a lower concurrency cap changes nothing, so it is not advised ----------

_SGL_ONE = """\
[2026-02-01 09:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-14B', mem_fraction_static=0.85, max_running_requests=512, chunked_prefill_size=4096)
[2026-02-01 09:00:40 TP0] The server is fired up and ready to roll!
[2026-02-01 09:01:10 TP0] Prefill batch. #new-seq: {new}, #new-token: 4096, #cached-token: 0, token usage: 0.00, #running-req: {running}, #queue-req: 0
[2026-02-01 09:01:11 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2210, in run_batch
    batch_result = self.model_worker.forward_batch_generation(model_worker_batch)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.16 GiB. GPU 0 has a total capacity of 23.54 GiB of which 988.81 MiB is free.
"""


def test_one_sequence_running_gets_no_concurrency_cap():
    rep = diag(_SGL_ONE.format(new=1, running=0))
    assert rep.diagnosis["kind"] == "RUNTIME"
    assert not [a for a in rep.runs[0].advice if a["setting"] == "max_num_seqs"]


def test_several_sequences_running_still_get_a_cap_below_them():
    rep = diag(_SGL_ONE.format(new=2, running=6))
    caps = [a for a in rep.runs[0].advice if a["setting"] == "max_num_seqs"]
    assert caps and caps[0]["value"] < 8


# --- vLLM's list of failed engine-core processes with their exit codes: minus the signal that ended them ----------

_CORE_DIED = """\
INFO 02-10 08:00:05 [api_server.py:1043] vLLM API server version 0.9.2
INFO 02-10 08:00:21 [gpu_model_runner.py:1329] Starting to load model Qwen/Qwen3-8B...
ERROR 02-10 08:00:23 [core_client.py:400] Engine core proc EngineCore_0 died unexpectedly, shutting down client.
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{'EngineCore_0': {code}}}
"""


@pytest.mark.parametrize("code, want", [("-4", "illegal-instruction"), ("-11", "crash-access-violation"),
                                        ("-8", "floating-point-exception")])
def test_a_failed_core_proc_s_signal_names_its_cause(code, want):
    d = diag(_CORE_DIED.format(code=code)).diagnosis
    assert (d["kind"], d["code"]) == ("NOT_OOM", want)


def test_a_failed_core_proc_killed_is_read_as_a_kill():
    """Killed while it loaded the weights: host memory, as an exit status of 137 there is."""
    d = diag(_CORE_DIED.format(code="-9")).diagnosis
    assert d == diag(_CORE_DIED.replace("Failed core proc(s): {{'EngineCore_0': {code}}}", "") +
                     "Engine core proc exited with code 137\n").diagnosis


def test_a_failed_core_proc_with_exit_code_one_names_no_cause():
    d = diag(_CORE_DIED.format(code="1")).diagnosis
    assert d["code"] not in ("illegal-instruction", "crash-access-violation")


# --- the vision encoder out of memory, on a request's images or profiled with the largest image: its own code, and
# advice on image size and count in the engine's flags ---------------------------------------------------------------

_V = "/usr/local/lib/python3.12/dist-packages/vllm"
_VLLM_MM = f"""\
INFO 04-02 09:00:00 [api_server.py:1043] vLLM API server version 0.10.2
INFO 04-02 09:00:40 [gpu_model_runner.py:2007] Model loading took 15.6 GiB and 8.1 seconds
INFO 04-02 09:01:10 [api_server.py:1818] Starting vLLM API server 0 on http://0.0.0.0:8000
INFO:     10.0.0.7:51002 - "POST /v1/chat/completions HTTP/1.1" 200 OK
ERROR 04-02 09:03:00 [core.py:710] EngineCore encountered a fatal error.
ERROR 04-02 09:03:00 [core.py:710] Traceback (most recent call last):
ERROR 04-02 09:03:00 [core.py:710]   File "{_V}/v1/worker/gpu_model_runner.py", line 2210, in execute_model
ERROR 04-02 09:03:00 [core.py:710]     self._execute_mm_encoder(scheduler_output)
ERROR 04-02 09:03:00 [core.py:710]   File "{_V}/v1/worker/gpu_model_runner.py", line 1320, in _execute_mm_encoder
ERROR 04-02 09:03:00 [core.py:710]     curr_group_outputs = self.model.get_multimodal_embeddings(**mm_kwargs_group)
ERROR 04-02 09:03:00 [core.py:710]   File "{_V}/model_executor/models/qwen2_5_vl.py", line 1180, in get_multimodal_embeddings
ERROR 04-02 09:03:00 [core.py:710]     vision_embeddings = self._process_image_input(image_input)
ERROR 04-02 09:03:00 [core.py:710] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.20 GiB. GPU 0 has a total capacity of 23.55 GiB of which 1.02 GiB is free.
"""


def test_the_vision_encoder_serving_an_image_is_its_own_code():
    rep = diag(_VLLM_MM)
    assert (rep.diagnosis["kind"], rep.diagnosis["code"]) == ("RUNTIME", "multimodal-encoder-oom")
    assert "--limit-mm-per-prompt" in rep.runs[0].advice[0]["why"]


def test_the_vision_encoder_profiled_at_start_is_warm_up():
    text = "\n".join(ln for ln in _VLLM_MM.splitlines() if "Starting vLLM" not in ln and "POST" not in ln)
    text = text.replace("in execute_model", "in profile_run").replace(
        "self._execute_mm_encoder(scheduler_output)",
        "dummy_encoder_outputs = self.model.get_multimodal_embeddings(**batched_dummy_mm_inputs)")
    text = text.replace('line 1320, in _execute_mm_encoder', 'line 2901, in _dummy_mm_pass')
    rep = diag(text)
    assert (rep.diagnosis["kind"], rep.diagnosis["code"]) == ("WARMUP", "multimodal-encoder-oom")


def test_sglang_s_vision_encoder_gets_plain_words_not_vllm_flags():
    rep = diag("""\
        [2026-01-05 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-VL-7B-Instruct', mem_fraction_static=0.8)
        [2026-01-05 10:00:50 TP0] The server is fired up and ready to roll!
        [2026-01-05 10:01:10 TP0] Prefill batch. #new-seq: 1, #new-token: 9000, #cached-token: 0, token usage: 0.01, #running-req: 2, #queue-req: 0
        [2026-01-05 10:01:11 TP0] Scheduler hit an exception: Traceback (most recent call last):
          File "/sgl-workspace/sglang/python/sglang/srt/managers/mm_utils.py", line 640, in general_mm_embed_routine
            inputs_embeds = embed_mm_inputs(
          File "/sgl-workspace/sglang/python/sglang/srt/models/qwen2_5_vl.py", line 480, in get_image_feature
            image_embeds = self.visual(pixel_values, grid_thw=image_grid_thw)
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which 0.99 GiB is free.
        """)
    assert (rep.diagnosis["kind"], rep.diagnosis["code"]) == ("RUNTIME", "multimodal-encoder-oom")
    assert not any("--limit-mm-per-prompt" in a["why"] for a in rep.runs[0].advice)


# --- a host-memory kill after the KV cache was sized: the weights had been read, so they are no candidate ---------


@pytest.mark.parametrize("sized", [
    "INFO 01-23 07:34:26 gpu_executor.py:122] # GPU blocks: 11836, # CPU blocks: 4681",
    "INFO 01-23 07:34:26 [kv_cache_utils.py:849] GPU KV cache size: 93,872 tokens",
])
def test_a_kill_after_the_pool_was_sized_leaves_the_weights_out(sized):
    rep = diag(f"""\
        INFO 01-23 07:32:01 model_runner.py:1060] Starting to load model Qwen/Qwen2-7B-Instruct...
        INFO 01-23 07:32:42 model_runner.py:1071] Loading model weights took 4.3752 GB
        {sized}
        Killed
        """)
    assert rep.diagnosis["kind"] == "UNDETERMINED"
    assert "WEIGHTS" not in rep.runs[0].candidates and "KV_CAPACITY" in rep.runs[0].candidates


def test_a_kill_after_the_weights_only_still_names_them():
    rep = diag("""\
        INFO 01-23 07:32:01 model_runner.py:1060] Starting to load model Qwen/Qwen2-7B-Instruct...
        INFO 01-23 07:32:42 model_runner.py:1071] Loading model weights took 4.3752 GB
        Killed
        """)
    assert "WEIGHTS" in rep.runs[0].candidates


# --- an engine's message wrapped at a space whose trailing blank the paste dropped is joined with the space back;
# and an issue's tagged title naming one error does not decide over the engine's own line of another ---------------

_FREE_WRAPPED = ("ValueError: Free memory on device cuda:0 (109.53/121.69 GiB) on startup is\n"
                 "less than desired GPU memory utilization (0.91, 110.74 GiB). Decrease GPU memory utilization or "
                 "reduce GPU memory used by other processes.\n")


@pytest.mark.parametrize("prefix", ["", "(EngineCore_DP0 pid=412) ERROR 06-01 10:00:02 [core.py:708] "])
def test_a_message_wrapped_at_a_space_is_joined_with_it(prefix):
    d = diag(prefix + _FREE_WRAPPED).diagnosis
    assert d["code"] == "gpu-shared-with-other-process"


def test_a_message_cut_mid_word_is_still_joined_without_a_space():
    d = diag("ValueError: Free memory on device (109.53/121.69 GiB) on startup is less than desired GPU memo\n"
             "ry utilization (0.91, 110.74 GiB).\n").diagnosis
    assert d["code"] == "gpu-shared-with-other-process"


def test_a_tagged_title_s_error_does_not_decide_over_the_engine_s_own_line():
    d = diag("[Bug]: every rank fails with an NCCL error after a restart\n\n### Log\n\n" + _FREE_WRAPPED).diagnosis
    assert d["code"] == "gpu-shared-with-other-process"


# --- Metal's API assertion quoted without the method before it (a title, a user's sentence) -----------------------


@pytest.mark.parametrize("title", [
    "# llama-box crashes: failed assertion `A command encoder is already encoding to this command buffer'",
    "# [Bug] mlx_lm.server aborts with failed assertion `Completed handler provided after commit call'",
    "# Ollama 0.9 on M2: failed assertion 'MTLCommandEncoder used after endEncoding'",
])
def test_metal_s_assertion_quoted_in_a_title_is_not_memory(title):
    d = diag(f"{title}\n\n0.02.208.203 I loaded  36% model tensors into buffer\n"
             "0.02.209.436 I loaded  37% model tensors into buffer\n").diagnosis
    assert (d["kind"], d["code"]) == ("NOT_OOM", "metal-api-assertion")


def test_metal_s_assertion_about_a_buffer_s_size_is_not_called_not_memory():
    d = diag("# crash: failed assertion `Command buffer: buffer size exceeds the device's maximum'\n\n"
             "0.02.208.203 I loaded  36% model tensors into buffer\n").diagnosis
    assert d["code"] != "metal-api-assertion"


# --- growth told with memory by another name (the allocator's heap, a backend's allocations) growing with the work
# done, or not given back -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("words", [
    "After a day of batch jobs I see the llama-server malloc heap grow with the number of requests served.",
    "The pinned host buffers are not released after an aborted stream, so the box swaps after a few hundred of them.",
    "Each failed request left CUDA allocations behind; after about 200 of them the server dies.",
    "Our RSS grows with request volume even though the KV cache stays the same size.",
])
def test_growth_of_memory_by_another_name_is_a_leak(words):
    d = diag(f"# llama-server question\n\n{words}\n").diagnosis
    assert d["kind"] == "LEAK"


def test_memory_growing_with_the_context_is_no_leak():
    d = diag("# question\n\nThe KV buffers grow with the context length, as expected, and the heap stays flat.\n").diagnosis
    assert d["kind"] != "LEAK"


def test_memory_growing_with_concurrent_requests_is_use_under_load():
    d = diag("# question\n\nOur RSS grows with the number of concurrent requests, and drops back when they finish.\n").diagnosis
    assert d["kind"] != "LEAK"


# --- MLC LLM reading its params/ directory (or a shard of it) is the weights loading -----------------------------


@pytest.mark.parametrize("line", [
    "-- loading /data/models/mlc/dist/Llama-3-70B-q4f16_1/params/",
    "[2026-01-02 10:00:01] INFO model_metadata.py:96: Loading params_shard_12.bin from /models/mlc/Qwen2.5-32B-q4f16_1-MLC",
])
def test_mlc_reading_its_params_then_killed_is_the_weights(line):
    d = diag(f"$ python3 -m mlc_llm serve /models/mlc/Qwen2.5-32B-q4f16_1-MLC\n{line}\nKilled\n").diagnosis
    assert (d["kind"], d["code"]) == ("WEIGHTS", "weights-exceed-system-memory")


# --- "failing to allocate" / "fails to allocate" are out-of-memory words too, as a title or a sentence says them -----


@pytest.mark.parametrize("title", ["# Bug: Unable to load a 3B model, failing to allocate buffer size",
                                   "# Vulkan fails to allocate the context on a 6 GB card"])
def test_a_title_failing_to_allocate_with_a_log_cut_in_the_context_is_the_kv_cache(title):
    d = diag(f"""\
        {title}

        llm_load_tensors:        CPU buffer size =  1820.90 MiB
        ..........................................................................
        llama_new_context_with_model: n_ctx      = 131072
        llama_new_contex""").diagnosis
    assert d["kind"] == "KV_CAPACITY"


# --- memory released and resumed (torch_memory_saver in RL frameworks): the ledger resumed is the one named ---------

_SAVER = ("[torch_memory_saver.cpp] cuMemCreate CUDA_ERROR_OUT_OF_MEMORY (may not be an issue e.g. torch allocator "
          "will free cache and retry)\n"
          "[torch_memory_saver.cpp] cudaError error: 2 (out of memory)  file=csrc/core.cpp func=resume line=172\n")


@pytest.mark.parametrize("title, kind", [
    ("# [Bug] OOM while resuming the KV cache after a weight update (verl + sglang)", "KV_CAPACITY"),
    ("# CUDA OOM when we resume the model weights between rollout steps", "WEIGHTS"),
])
def test_the_ledger_resumed_is_the_one_named(title, kind):
    assert diag(f"{title}\n\n{_SAVER}").diagnosis["kind"] == kind


def test_a_resume_that_names_no_ledger_stays_undetermined():
    assert diag(f"# OOM after resume\n\n{_SAVER}").diagnosis["kind"] == "UNDETERMINED"


# --- the weights repacked for a kernel after they are read (Marlin, AWQ) are part of loading them ------------------


@pytest.mark.parametrize("words", ["The model loads but the Marlin repack fails with the error below.",
                                   "We hit an OOM during the AWQ repack on the second GPU:",
                                   "It dies while repacking the quantized weights:"])
def test_a_repack_of_the_weights_is_the_weights(words):
    assert diag(f"{words}\n{_BARE_OOM}\n").diagnosis["kind"] == "WEIGHTS"


def test_a_repackaged_model_is_no_repack_step():
    assert diag(f"I repackaged the weights into one file last week; now serving fails:\n{_BARE_OOM}\n"
                ).diagnosis["kind"] != "WEIGHTS"


# --- mistral.rs: in-situ quantization runs on the weights as they load; its device map's fit check is the weights ---

_MRS = "2026-01-02T10:00:0{s}.000000Z  INFO mistralrs_core::pipeline::{what}"


def test_mistralrs_in_situ_quantization_is_the_weights():
    d = diag("\n".join([
        _MRS.format(s=1, what="normal: Loading model `Qwen/Qwen3-14B` on cuda[0]."),
        _MRS.format(s=2, what="isq: Applying in-situ quantization into Some(Q8_0) to 281 tensors."),
        "thread '<unnamed>' panicked at mistralrs-core/src/pipeline/isq.rs:590:30:",
        "called `Result::unwrap()` on an `Err` value: Cuda(DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\"))",
    ]) + "\n").diagnosis
    assert d["kind"] == "WEIGHTS"


@pytest.mark.parametrize("devices", ['["cuda[0]", "cpu"]', '["metal[4294969630]"]'])
def test_mistralrs_device_map_that_does_not_fit_is_the_weights(devices):
    d = diag(_MRS.format(s=1, what="normal: Loading model `Qwen/Qwen2.5-14B-Instruct` on metal.") + "\n"
             "called `Result::unwrap()` on an `Err` value: This model does not fit on the devices "
             f"{devices}, and exceeds total capacity by 7530MB. Auto device mapping params: (max_seq_len: 4096)\n"
             ).diagnosis
    assert (d["kind"], d["code"]) == ("WEIGHTS", "weights-exceed-gpu-memory")


# --- a traceback cut before its innermost frames, under the engine's own line of the step under way, is that step --

_V0 = "/opt/venv/lib/python3.11/site-packages/vllm"
_CUT_V0 = f"""\
# CUDA out of memory while loading the model
INFO 03-07 10:42:35 model_runner.py:1115] Loading model weights took 7.4855 GB
{{step}}[rank0]: Traceback (most recent call last):
[rank0]:   File "{_V0}/entrypoints/llm.py", line 242, in __init__
[rank0]:     self.llm_engine = self.engine_class.from_engine_args(
[rank0]:   File "{_V0}/engine/llm_engine.py", line 276, in __init__
[rank0]:     self._initialize_kv_caches()
[rank0]:   File "{_V0}/engine/llm_engine.py", line 421, in _initialize_kv_caches
[rank0]:     self.mod"""


def test_a_cut_traceback_under_a_profile_run_line_is_the_profile_run():
    step = "INFO 03-07 10:42:36 enc_dec_model_runner.py:280] Starting profile run for multi-modal models.\n"
    d = diag(_CUT_V0.format(step=step)).diagnosis
    assert (d["kind"], d["code"]) == ("WARMUP", "profile-run-oom")


def test_a_cut_traceback_with_no_step_line_stays_open():
    rep = diag(_CUT_V0.format(step=""))
    assert rep.diagnosis["kind"] == "UNDETERMINED" and "WARMUP" in rep.runs[0].candidates


# --- a cuBLAS call named with the status it returned in words is a library call that failed, not memory ----------


@pytest.mark.parametrize("title", ["# Bug: Crash: cublasSgemm_v2 invalid parameter at exactly token 3168",
                                   "# [Bug] cublasGemmEx failed: invalid value with MTP on sm_86",
                                   "# cublasLtMatmul execution failed after upgrading to CUDA 13"])
def test_a_cublas_call_s_status_in_words_is_not_memory(title):
    d = diag(f"{title}\n\nThe server stops on the first long prompt; without MTP it works.\n").diagnosis
    assert (d["kind"], d["code"]) == ("NOT_OOM", "cuda-kernel-error")


def test_a_cublas_allocation_failure_is_still_memory():
    d = diag("# cublasCreate failed: CUBLAS_STATUS_ALLOC_FAILED on the second GPU\n\nIt fails at start.\n").diagnosis
    assert d["kind"] != "NOT_OOM"


# --- a failure only a person's words state, placed by the engine's lines elsewhere, is a reading (inferred) --------


def test_an_oom_only_the_title_states_is_placed_as_a_reading():
    rep = diag("""\
        How to understand OOM and foresee memory usage

        Even with a short context of 16k I get OOM on a 5090.

        (EngineCore pid=258) INFO 04-24 10:21:03 [gpu_model_runner.py:4820] Model loading took 18.47 GiB memory and 10.99 seconds
        (EngineCore pid=258) INFO 04-24 10:22:26 [monitor.py:76] Initial profiling/warmup run took 54.05 s
        (EngineCore pid=258) INFO 04-24 10:22:26 [backends.py:1051] Using cache directory: /root/.cache/vllm/torch_compile_cache/c7557d5774/rank_0_0/eagle_head
        """)
    assert rep.diagnosis["kind"] != "NONE" and rep.runs[0].inferred


def test_the_engine_s_own_error_placed_by_its_frames_is_no_reading():
    rep = diag(_VLLM_CAPTURE)
    assert rep.diagnosis["kind"] == "WARMUP" and not rep.runs[0].inferred


@pytest.mark.parametrize("words", ["It runs out of memory while trying to load the weights, every time.",
                                   "The OOM comes when attempting to load the model's weights onto the second GPU."])
def test_trying_to_load_the_weights_is_the_weights(words):
    assert diag(f"{words}\nCUDA error: out of memory\n").diagnosis["kind"] == "WEIGHTS"


def test_sglang_s_kernel_package_in_a_pip_list_names_no_engine():
    rep = diag("""\
        ## Environment
        - `torch==2.11.0+cu130`, `flashinfer-python==0.6.17`, `sglang-kernel==0.4.5+cu130`, `sgl-kernel==0.3.9`
        Prefill hangs forever on long prompts; GPU at 100%, no error.
        """)
    assert rep.runs[0].engine != "sglang"


@pytest.mark.parametrize("words", ["Requests beyond ~4K context fail with the error below.",
                                   "Prompts over 32k tokens crash it every time:",
                                   "Any conversation longer than 12,000 tokens dies with this:"])
def test_requests_past_a_length_failing_is_serving(words):
    assert diag(f"{words}\n{_BARE_OOM}\n").diagnosis["kind"] == "RUNTIME"


def test_a_model_over_a_size_is_no_request():
    assert diag(f"Models over 30B fail to load on this card:\n{_BARE_OOM}\n").diagnosis["kind"] != "RUNTIME"


@pytest.mark.parametrize("words", ["圖片尺寸太大(約 1mb左右)，導致OOM：", "图片太大，显存不够了：", "多輪推理時報錯如下："])
def test_chinese_words_of_a_request_s_image_or_inference_are_serving(words):
    assert diag(f"{words}\n{_BARE_OOM}\n").diagnosis["kind"] == "RUNTIME"


@pytest.mark.parametrize("title", ["# active_memory stuck after model unload churn; generation degrades until restart",
                                   "# [Bug] KV buffers survive the model unload in the router, VRAM stays taken"])
def test_memory_held_past_an_unload_is_a_leak(title):
    assert diag(f"{title}\n\nAfter several load/unload cycles it only gets slower.\n").diagnosis["kind"] == "LEAK"


def test_a_load_stuck_at_a_percentage_is_no_leak():
    assert diag("# memory stuck at 99% while loading\n\nThe bar never finishes.\n").diagnosis["kind"] != "LEAK"


def test_a_server_log_pasted_right_after_the_chat_without_a_fence_is_read():
    text = _CHAT.replace(">>> /bye\n", "") + (
        "llama_model_load: loaded meta data with 30 key-value pairs\n"
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9216.00 MiB on device 0: cudaMalloc failed: out of memory\n"
        "alloc_tensor_range: failed to allocate CUDA0 buffer of size 9663676416\n")
    assert diag(text).diagnosis["kind"] != "NONE"


# --- a person's sentence wrapped across lines (a docstring, a paragraph wrapped by hand): the hedge on the line before
# supposes the out-of-memory the next line names -------------------------------------------------------------------


@pytest.mark.parametrize("pair", [
    ("            throughput. However, if the value is too high, it may cause out-of-", "            memory (OOM) errors."),
    ("To be safe we keep the fraction low, since a higher one could lead to", "out of memory on long prompts."),
])
def test_a_hedge_on_the_line_before_supposes_the_out_of_memory(pair):
    text = "INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1\n" + "\n".join(pair) + "\n"
    assert diag(text).diagnosis["kind"] == "NONE"


def test_a_stated_out_of_memory_after_an_unended_line_is_still_one():
    text = ("INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1\n"
            "After the third request the server crashed with\nout of memory on GPU 0, every time.\n")
    assert diag(text).diagnosis["kind"] != "NONE"


def test_a_wrapped_hedge_far_into_a_log_reads_alike_on_both_paths():
    filler = "".join(f'INFO:     127.0.0.1:{40000 + i % 999} - "GET /metrics HTTP/1.1" 200 OK\n' for i in range(2300))
    text = ("INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.9.1\n" + filler +
            "To be safe we keep the fraction low, since a higher one could lead to\nout of memory on long prompts.\n")
    assert diag(text).diagnosis["kind"] == "NONE"


@pytest.mark.parametrize("line", ["ERROR: Memory limit exceeded during prefill (47.1GB > 46.0GB ceiling)",
                                  "scheduler: memory limit exceeded while decoding, request aborted"])
def test_a_memory_guard_stopping_a_request_is_serving(line):
    d = diag(line + "\n").diagnosis
    assert (d["kind"], d["code"]) == ("RUNTIME", "request-exceeds-memory")



# --- memory rising while a model loads is the load filling memory, not a leak; over loads repeated it is -----------


def test_memory_rising_while_a_model_loads_is_no_leak():
    d = diag("# question\n\nWhen loading the 70B model in LM Studio, our memory usage keeps growing until the Mac swaps.\n"
             ).diagnosis
    assert d["kind"] != "LEAK"


def test_memory_rising_over_repeated_loads_is_a_leak():
    d = diag("# question\n\nWhile loading and unloading models all day, our memory usage keeps growing.\n").diagnosis
    assert d["kind"] == "LEAK"


def test_ollama_skipping_a_gpu_its_build_has_no_kernels_for_is_not_memory():
    d = diag('time=2026-08-02T10:00:00.000+08:00 level=WARN source=cuda.go:211 msg="skipping CUDA device — compute '
             'capability not in compiled architectures" id=GPU-1 compute=8.6 archs="[750 890 1000 1200]"\n'
             'time=2026-08-02T10:00:00.100+08:00 level=INFO source=types.go:130 msg="inference compute" id=cpu '
             'library=cpu\n').diagnosis
    assert (d["kind"], d["code"]) == ("NOT_OOM", "gpu-unsupported")


# --- a maintainer's instructions to reproduce ("To get the error output ...", "Run it until it fails") state no
# failure; a person saying they get the error does -------------------------------------------------------------------


@pytest.mark.parametrize("words", ["To get the error output, open a terminal first:\n1. Run the server until it fails",
                                   "To see the error, start it from cmd and wait until it crashes."])
def test_instructions_to_reproduce_state_no_failure(words):
    assert diag(f"{words}\nI have no error, it is only slow.\n").diagnosis["kind"] == "NONE"


def test_a_person_who_gets_the_error_states_a_failure():
    assert diag("I get the error every time I start it from cmd.\n").diagnosis["kind"] != "NONE"


def test_a_failure_told_as_probable_is_supposed():
    assert diag("Generation is slow; my GPU is probably not working at full speed.\n").diagnosis["kind"] == "NONE"


@pytest.mark.parametrize("words", ["The service comes up, but it will be OOM when requested.",
                                   "It crashes when a request arrives, every time:",
                                   "Everything starts; when the first request comes in it dies:"])
def test_a_failure_once_requests_come_is_serving(words):
    assert diag(f"{words}\n{_BARE_OOM}\n").diagnosis["kind"] == "RUNTIME"


# --- the prefilter takes words without digits where a pattern allows: a word with digits ("-11") is in the shape of
# every dated line ("09-11" -> "00-00"), which then cannot share the candidates found for its shape ----------------


def test_an_exit_code_s_required_words_have_no_digits():
    import re

    from vramdoctor.engines.generic import ended_by
    from vramdoctor.logs.prefilter import required

    for n in ("-11", "-4", "-1073741819"):
        words = required(re.compile(ended_by(n), re.I))
        assert words and not any(c.isdigit() for w in words for c in w), (n, words)


def test_a_dated_line_shares_its_shape_s_candidates():
    from vramdoctor.logs.knowledge import knowledge

    k = knowledge()
    line = b"info 09-11 13:05:48 [loggers.py:123] engine 000: avg prompt throughput: 1479.5 tokens/s, running: 2 reqs"
    assert not k._digit_words.ids(line.translate(bytes.maketrans(b"123456789", b"000000000")))


@pytest.mark.parametrize("quote", [
    "```\nllama_kv_cache_init: failed to allocate buffer for kv cache\n```",
    "```text\nggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of memory\n```",
    "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`.",
])
def test_an_answer_s_code_block_or_quoted_exception_is_the_answer_s(quote):
    text = f"$ ollama run qwen2.5-coder:7b\n>>> what does this error look like?\nHere is one:\n\n{quote}\n\nLower num_ctx.\n>>> /bye\n"
    assert diag(text).diagnosis["kind"] == "NONE"


# --- a full disk: the disk, not memory, whatever path it names; not /dev/shm (the ends themselves: with the signals
# above) --------------------------------------------------------------------------------------------------------------


def test_shared_memory_full_is_not_the_disk():
    d = diag("RuntimeError: unable to write to file </torch_123_456>: No space left on device (28) /dev/shm/torch_1\n"
             ).diagnosis
    assert d["code"] != "disk-full"


def test_a_crash_told_as_possible_is_no_failure():
    d = diag("It is possible for users to crash it by sending a very long prompt. Not happening right now.\n"
             'INFO:     127.0.0.1:50000 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n').diagnosis
    assert d["kind"] == "NONE"


def test_candle_loading_the_model_weights_is_the_weights():
    d = diag("loading the model weights from meta-llama/Llama-3.1-8B\nbuilding the model\n"
             "Error: DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")\n").diagnosis
    assert d["kind"] == "WEIGHTS"


def test_a_long_prompt_holding_a_pasted_log_is_the_prompt_once_closed():
    body = "".join(f"line {i} of the document I pasted\n" for i in range(80))
    text = _OPEN + body + ("', params: SamplingParams(n=1, temperature=0.7, max_tokens=512), prompt_token_ids: None.\n"
                           'INFO:     127.0.0.1:51240 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n')
    assert diag(text).diagnosis["kind"] == "NONE"


def test_another_request_s_own_line_does_not_take_back_a_real_failure():
    text = (_OPEN.split("My other box")[0] + "cut here\n"
            "ERROR 05-12 10:05:00 [core.py:708] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
            "GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free.\n"
            "INFO 05-12 10:05:01 [logger.py:39] Received request chatcmpl-aa: prompt: 'hi', params: SamplingParams(n=1), "
            "prompt_token_ids: None.\n")
    assert diag(text).diagnosis["kind"] == "RUNTIME"


# --- nvidia-smi's own readings over time (its CSV query) are memory readings ---------------------------------------



def test_nvidia_smi_readings_rising_under_a_steady_load_are_a_leak():
    text = "Readings while the same loop runs:\n\n" + "timestamp, memory.used [MiB]\n" + "".join(
        f"2026/03/01 {10 + i}:00:00.000, {v} MiB\n" for i, v in enumerate((20512, 24100, 28200, 32900, 37400)))
    assert diag(text).diagnosis["kind"] == "LEAK"


def test_nvidia_smi_readings_that_hold_steady_are_no_leak():
    text = "Readings while the same loop runs:\n\n" + "timestamp, memory.used [MiB]\n" + "".join(
        f"2026/03/01 {10 + i}:00:00.000, {v} MiB\n" for i, v in enumerate((20512, 20530, 20498, 20512, 20540)))
    assert diag(text).diagnosis["kind"] != "LEAK"
