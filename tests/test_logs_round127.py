"""`vramdoctor logs` on the kinds of fault the held-out rounds 127 and later (issue 6, stop 28) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import diag, run_of


def _kind(lines: list[str]) -> tuple[str, str]:
    run = run_of(diag("\n".join(lines)))
    return run.kind, run.code


# --- a failed check that compares two lengths or shapes for equality, or data against a fixed buffer the settings
# sized: a consistency bug, not memory running out (an assertion about a pool or free memory stays open) -----------

@pytest.mark.parametrize("lines", [
    # SGLang, the assertion printed with its condition on the error line (pytest-style or a user's quote)
    ["[2025-10-09 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):",
     '  File "/sgl-workspace/sglang/python/sglang/srt/layers/attention/nsa_backend.py", line 812, in forward_decode',
     "AssertionError: assert logits.shape[0] == len(seq_lens_expanded)"],
    # vLLM, an assertion message that compares two counts
    ["(EngineCore_DP0 pid=7) ERROR 06-01 10:00:00 [core.py:710] Traceback (most recent call last):",
     '(EngineCore_DP0 pid=7) ERROR 06-01 10:00:00 [core.py:710]   File "/vllm/v1/spec_decode/eagle.py", line 301, in propose',
     "(EngineCore_DP0 pid=7) ERROR 06-01 10:00:00 [core.py:710] AssertionError: num_tokens (37) != len(positions) (36)"],
    # a report quoting it in a sentence, with a shape mismatch message
    ["The server crashes on the second request with `AssertionError: hidden_states.shape[-1] == 4096, got 5120 "
     "(shape mismatch)`."],
])
def test_an_assertion_that_two_lengths_agree_is_not_memory(lines):
    assert _kind(lines) == ("NOT_OOM", "assertion-failed")


@pytest.mark.parametrize("lines", [
    # TensorRT-LLM's auto-deploy: a buffer sized from max_batch_size, asked for a larger batch
    ["This caused: AssertionError: Data too large for buffer 'cu_seqlen': 114 > 5"],
    ["[TRT-LLM] [E] AssertionError: Input too large for buffer 'input_ids': 8192 > 4096"],
    ["ValueError: tensor too big for the buffer 'position_ids' (2049 > 2048)"],
])
def test_data_too_large_for_a_fixed_buffer_is_not_memory(lines):
    assert _kind(lines) == ("NOT_OOM", "fixed-buffer-too-small")


@pytest.mark.parametrize("lines", [
    # an assertion about free memory or the pool stays open: memory may be why it failed
    ["[2025-10-09 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):",
     '  File "/sglang/srt/mem_cache/allocator.py", line 120, in alloc',
     "AssertionError: assert self.available_size() >= need_size"],
    ["ERROR 06-01 10:00:00 [core.py:710] AssertionError: len(free_blocks) == num_required_blocks"],
])
def test_an_assertion_about_free_memory_or_the_pool_stays_open(lines):
    kind, code = _kind(lines)
    assert kind != "NOT_OOM", (kind, code)


# --- memory still held after the model was deleted or unloaded: a leak, in the report's words -----------------------

@pytest.mark.parametrize("lines", [
    ["[BUG] exllamav2 does not fully unload memory from CUDA",
     "When unloading models, TabbyAPI does not fully unload them from the GPUs.",
     "INFO:     Model successfully loaded.", "INFO:     Model unloaded.",
     'INFO:     172.22.0.26:37980 - "POST /v1/model/unload HTTP/1.1" 200'],
    ["After deleting the model and calling gc.collect(), the VRAM usage stays at 9.8 GB.",
     "llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from m.gguf"],
    ["GPU memory stays occupied until Ollama is restarted, even after `ollama stop llama3`.",
     'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 msg="llama runner started in 3.02 seconds"'],
    ["VRAM remains at 14 GB after unloading the model in LM Studio."],
])
def test_memory_held_after_the_model_is_unloaded_is_a_leak(lines):
    assert _kind(lines)[0] == "LEAK"


@pytest.mark.parametrize("lines", [
    ["After unloading the model, memory goes back to 0.",
     'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 msg="llama runner started in 3.02 seconds"'],
    ["VRAM usage remains at 14 GB while the model is loaded, as expected.",
     'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:637 msg="llama runner started in 3.02 seconds"'],
])
def test_memory_given_back_or_held_while_loaded_is_no_leak(lines):
    assert _kind(lines)[0] != "LEAK"


# --- two shapes that do not fit together, in MLX's, NumPy's and PyTorch's words: not memory ---------------------------

@pytest.mark.parametrize("lines", [
    ["Cache corruption not recoverable after retries: [broadcast_shapes]",
     "Shapes (1,1,N,N) and (1,16,N,N+1024) cannot be broadcast."],
    ["ValueError: [broadcast_shapes] Shapes (1,8,512,512) and (1,8,512,1536) cannot be broadcast."],
    ["ValueError: operands could not be broadcast together with shapes (3,4) (5,4)"],
    ["RuntimeError: The size of tensor a (1026) must match the size of tensor b (1027) at non-singleton dimension 3"],
])
def test_shapes_that_cannot_be_broadcast_are_not_memory(lines):
    assert _kind(lines) == ("NOT_OOM", "shape-mismatch")


# --- a failure the report names only by its exception's class, with no line of the log to show it: the failure is
# stated, its cause is not (UNDETERMINED, never NONE) --------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    ["# [Bug]: 启动qwen3.5-35B后反复kill进程：vllm.v1.engine exceptions enginedeaderror enginecore encountered an issue",
     "vllm版本为0.17.1", "环境为4卡*80G（A800）"],
    ["# SGLang server dies with RuntimeError on the first request", "Version: 0.5.3, 2x H100"],
    ["The llama-server process exits with an InternalServerException after a few prompts."],
])
def test_a_failure_named_by_its_exception_class_alone_is_undetermined(lines):
    assert _kind(lines) == ("UNDETERMINED", "failure-cause-not-shown")


def test_an_error_word_alone_is_no_failure_stated():
    lines = ["# How do I read the error handling docs for llama-server?",
             "main: server is listening on http://127.0.0.1:8080 - starting the main loop"]
    assert _kind(lines)[0] == "NONE"
