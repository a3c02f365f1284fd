"""`vramdoctor logs` on the kinds of fault the held-out rounds 236 and later (issue 6, stop 33) found, each with logs
of our own in other engines, versions and wordings. The engines' lines follow their sources (named in
`vramdoctor/engines/<engine>.py`)."""

from __future__ import annotations

import pytest

from logcase import kind_of

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
