"""A new user's review of `estimate` (round 7), one section per defect kind, each with several inputs of that kind:
vLLM's own max_num_seqs, not the user's concurrency, in the profile."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "200"}
GIB = 2**30


def run(*args):
    return subprocess.run([sys.executable, "-m", "vramdoctor", "estimate", *map(str, args)], capture_output=True,
                          text=True, env=ENV, timeout=120)


def j(*args):
    r = run(*args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


# --- 1. --concurrency is the user's requests; vLLM profiles its own max_num_seqs --------------------------------

R21 = ("openai/gpt-oss-120b", "--gpu", "H100-80GB", "--gpu-memory-utilization", "0.95",
       "--max-num-batched-tokens", "1024", "--max-model-len", "131072")


def test_a_serve_command_without_max_num_seqs_is_profiled_at_vllms_default():
    """R21's settings failed for real (1.71 GiB pool): with no --max-num-seqs vLLM 0.11 on an H100 profiles 1024
    sequences, whatever --concurrency says; the answer must not be a confident start."""
    for extra in ((), ("--concurrency", "1"), ("--concurrency", "4")):
        d = j(*R21, *extra)
        assert d["settings"]["max_num_seqs"] == 1024
        assert "1024 sequences profiled" in d["engine_rules"]
        assert not d["answer"].startswith("Starts")


@pytest.mark.parametrize("gpu,version,seqs", [("RTX-4090", None, 256), ("H100-80GB", None, 1024),
                                              ("A100-80GB", "0.10.1.1", 256), ("RTX-4090", "0.8.3", 1024),
                                              ("RTX-4090", "0.6.4", 256)])
def test_the_default_max_num_seqs_is_the_releases_for_the_gpu(gpu, version, seqs):
    d = j("Qwen/Qwen2.5-7B-Instruct", "--gpu", gpu, "--concurrency", "8",
          *(("--engine-version", version) if version else ()))
    assert d["settings"]["max_num_seqs"] == seqs and d["settings"]["concurrency"] == 8
    assert f"--max-num-seqs {seqs}" in d["cell_flags"]


def test_max_num_seqs_given_is_profiled_and_caps_what_runs_at_once():
    d = j("Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100-80GB", "--max-num-seqs", "8", "--concurrency", "64")
    assert d["settings"]["max_num_seqs"] == 8 and "8 sequences profiled" in d["engine_rules"]
    assert "8 of 64 run at once" in d["answer"]
    small = j("Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100-80GB", "--max-num-seqs", "8")
    big = j("Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100-80GB", "--max-num-seqs", "1024")
    assert small["kv_pool_bytes"] >= big["kv_pool_bytes"]  # fewer sampler rows profiled, never a smaller pool


@pytest.mark.parametrize("args,says", [
    (("--gpu", "H100-80GB", "--max-num-batched-tokens", "512"), "max_num_seqs 1024 (vLLM's default"),
    (("--gpu", "RTX-4090", "--max-num-batched-tokens", "100"), "max_num_seqs 256 (vLLM's default"),
    (("--gpu", "RTX-4090", "--max-num-batched-tokens", "100", "--max-num-seqs", "200"), "--max-num-seqs 200"),
])
def test_a_step_smaller_than_max_num_seqs_is_refused_as_vllm_refuses_it(args, says):
    r = run("Qwen/Qwen2.5-7B-Instruct", *args)
    assert r.returncode == 2 and "--max-num-batched-tokens" in r.stderr and says in r.stderr
    assert "Traceback" not in r.stderr


# --- 2. a refused tensor-parallel size suggests only sizes the engine accepts ------------------------------------

@pytest.mark.parametrize("model,tp,accepted", [
    ("microsoft/phi-4", 4, [2, 5, 10, 20, 40]),  # 40 heads, 10 KV heads
    ("meta-llama/Llama-3.1-8B-Instruct", 5, [2, 4, 8, 16, 32]),  # 32 heads, 8 KV heads (16, 32: KV heads replicated)
    ("Qwen/Qwen2.5-7B-Instruct", 3, [2, 4, 28]),  # 28 heads, 4 KV heads: 7 and 14 split neither way
])
@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_refused_tp_lists_only_sizes_that_are_accepted(model, tp, accepted, engine):
    r = run(model, "--engine", engine, "-tp", tp)
    assert r.returncode == 2 and "--tensor-parallel-size" in r.stderr
    listed = r.stderr.split("Use one of: ")[1].split(".")[0]
    assert [int(x) for x in listed.split(", ")] == accepted
    for n in accepted:
        assert run(model, "--engine", engine, "-tp", n, "--json").returncode == 0, n


def test_tp_5_is_accepted_where_vllm_accepts_it_and_refused_where_it_refuses_it():
    assert run("microsoft/phi-4", "-tp", 5).returncode == 0  # 40 % 5 == 0 and 10 % 5 == 0
    assert run("meta-llama/Llama-3.1-8B-Instruct", "-tp", 5).returncode == 2  # 32 % 5 != 0


@pytest.mark.parametrize("model", ["microsoft/phi-4", "Qwen/Qwen2.5-7B-Instruct"])
def test_more_gpus_are_advised_only_in_sizes_the_engine_accepts(model):
    d = j(model, "--gpu", "RTX-4060")
    for a in d["advice"]:
        if "GPUs of this size" in a["change"]:
            n = int(a["flags"].split()[-1])
            assert run(model, "--gpu", "RTX-4060", "-tp", n, "--json").returncode == 0
