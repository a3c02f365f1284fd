"""Kinds of fault found in stop 54: held-out rounds 531 and later, each in several wordings of our own, with guards
that the fix does not overreach."""

from __future__ import annotations

import pytest
from logcase import kind_of

# --- a batch scheduler's own stop of the job (h531/06: Slurm's "*** JOB ... CANCELLED AT ... ***" after a vLLM server
# had served, read as an error while serving) ----------------------------------------------------------------------

_VLLM_SERVED = ["INFO 05-30 09:00:00 [api_server.py:1287] vLLM API server version 0.9.0.1",
                "INFO 05-30 09:00:25 [gpu_model_runner.py:1560] Model loading took 7.6254 GiB and 5.91 seconds",
                "INFO 05-30 09:00:40 [kv_cache_utils.py:716] GPU KV cache size: 381,040 tokens",
                "INFO:     Application startup complete.",
                'INFO:     127.0.0.1:60350 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
_SGLANG_SERVED = ["[2025-06-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B-Instruct', tp_size=1)",
                  "[2025-06-01 10:00:30] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, "
                  "avail mem=62.11 GB, mem usage=14.27 GB.",
                  "[2025-06-01 10:00:31] KV Cache is allocated. #tokens: 1012345, K size: 27.03 GB, V size: 27.03 GB",
                  "[2025-06-01 10:00:50] The server is fired up and ready to roll!",
                  '[2025-06-01 10:01:00] INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
_LLAMA_SERVED = ["llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from /m/q.gguf",
                 "load_tensors: offloaded 29/29 layers to GPU",
                 "llama_kv_cache: size = 448.00 MiB (  4096 cells,  28 layers,  1/1 seqs), K (f16): 224.00 MiB",
                 "main: server is listening on http://0.0.0.0:8080 - starting the main loop",
                 "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200"]

_SLURM_LIMIT = ["slurmstepd: error: *** STEP 4412345.0 ON gpu-node-12 CANCELLED AT 2025-05-30T11:00:01 DUE TO TIME "
                "LIMIT ***",
                "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
                "slurmstepd: error: *** JOB 4412345 ON gpu-node-12 CANCELLED AT 2025-05-30T11:00:01 DUE TO TIME "
                "LIMIT ***"]
_STOPS = [
    _SLURM_LIMIT,
    ["slurmstepd: error: *** JOB 98812 ON a100-3 CANCELLED AT 2025-06-01T12:00:00 ***"],
    ["slurmstepd: error: *** JOB 98812 ON a100-3 CANCELLED AT 2025-06-01T12:00:00 DUE TO PREEMPTION ***"],
    ["=>> PBS: job killed: walltime 7213 exceeded limit 7200"],
    ["TERM_RUNLIMIT: job killed after reaching LSF run time limit.", "Exited with exit code 140."],
    ["TERM_OWNER: job killed by owner."],
]


@pytest.mark.parametrize("served", [_VLLM_SERVED, _SGLANG_SERVED, _LLAMA_SERVED])
@pytest.mark.parametrize("stop", _STOPS)
def test_a_scheduler_that_ends_a_job_that_served_is_no_failure(served, stop):
    assert kind_of([*served, *stop]) == ("NONE", "stopped-by-scheduler")


def test_the_servers_shutdown_after_the_schedulers_stop_is_its_end():
    lines = [*_VLLM_SERVED, *_SLURM_LIMIT, "INFO:     Shutting down", "INFO:     Waiting for application shutdown.",
             "INFO:     Application shutdown complete.", "INFO:     Finished server process [77]"]
    assert kind_of(lines) == ("NONE", "stopped-by-scheduler")


_LOADING = ["INFO 05-30 09:00:00 [api_server.py:1287] vLLM API server version 0.9.0.1",
            "INFO 05-30 09:00:05 [gpu_model_runner.py:1530] Starting to load model meta-llama/Llama-3.1-405B...",
            "Loading safetensors checkpoint shards:  12% Completed | 23/191 [55:10<6:43:00, 143.7s/it]"]


def test_a_time_limit_before_the_server_was_ready_is_a_start_up_too_slow_not_memory():
    assert kind_of([*_LOADING, *_SLURM_LIMIT]) == ("NOT_OOM", "job-time-limit")


@pytest.mark.parametrize("cancel", ["slurmstepd: error: *** JOB 98812 ON a100-3 CANCELLED AT 2025-06-01T12:00:00 ***",
                                    "TERM_PREEMPT: job killed after preemption."])
def test_a_cancel_before_the_server_was_ready_is_no_failure_as_ctrl_c_is(cancel):
    assert kind_of([*_LOADING, cancel]) == ("NONE", "stopped-by-scheduler")


def test_a_node_that_failed_under_the_job_is_not_memory():
    lines = [*_LOADING, "slurmstepd: error: *** JOB 77 ON gpu-7 CANCELLED AT 2025-06-01T12:00:00 DUE TO NODE "
                        "FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***"]
    assert kind_of(lines) == ("NOT_OOM", "node-failure")


def test_an_out_of_memory_before_the_schedulers_stop_decides():
    lines = [*_LOADING, "Traceback (most recent call last):",
             '  File "/v/model_executor/model_loader/default_loader.py", line 262, in load_weights',
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB. GPU 0 has a total capacity of "
             "79.19 GiB of which 1.02 GiB is free.", *_SLURM_LIMIT]
    assert kind_of(lines)[0] == "WEIGHTS"


def test_a_persons_words_of_a_cancelled_job_are_no_schedulers_stop():
    lines = [*_VLLM_SERVED, "My job was CANCELLED AT some point and I do not know why, the memory looked full."]
    assert kind_of(lines)[1] != "stopped-by-scheduler"
