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


# --- 3. llama.cpp splits whole layers across GPUs (--split-mode layer), the smallest count that fits ---------------

from conftest import load_config  # noqa: E402
from vramdoctor.engines import Settings, get_engine  # noqa: E402
from vramdoctor.engines.llamacpp_split import device_layers  # noqa: E402
from vramdoctor.estimate import estimate  # noqa: E402
from vramdoctor.sources.hf_config import spec_from_config  # noqa: E402


@pytest.mark.parametrize("n_layer,gpus,ngl,counts", [
    (32, 1, None, [33]),
    (32, 2, None, [17, 16]),  # splits 0.5, 1.0: layers 0-16 (x < 0.5) on the first
    (32, 4, None, [9, 8, 8, 8]),
    (32, 5, None, [7, 7, 6, 7, 6]),  # the last holds 5 layers and the output layer
    (39, 5, None, [8, 8, 8, 8, 8]),  # x = 8/40 = 0.2 is not below the first split: upper_bound
    (32, 4, 9, [3, 2, 2, 2]),  # -ngl 9: layers 24-31 and the output layer, split among the GPUs
])
def test_layers_go_to_gpus_by_llama_cpps_split_points(n_layer, gpus, ngl, counts):
    devices = device_layers(n_layer, gpus, ngl)
    assert [len(d) for d in devices] == counts
    assert devices[-1][-1] == n_layer  # the output layer is on the last GPU
    flat = [i for d in devices for i in d]
    assert flat == sorted(flat) and len(set(flat)) == len(flat)


def llama8b():
    return spec_from_config(load_config("meta-llama__Llama-3.1-8B-Instruct.json"), name="Llama-3.1-8B-Instruct")


@pytest.mark.parametrize("gpu_gib,n,c", [(8.0, 32768, 4), (8.0, 8192, 1), (12.0, 65536, 2), (6.0, 4096, 1)])
def test_the_advised_gpu_count_is_the_smallest_that_fits(gpu_gib, n, c):
    """The count llama.cpp's layer split needs is any integer: the advice names the smallest that fits, and one
    GPU fewer does not."""
    gpu = int(gpu_gib * GIB)
    s = Settings(max_model_len=n, concurrency=c)
    e = estimate(llama8b(), engine="llamacpp", settings=s, gpu_bytes=gpu)
    advice = [a for a in e.advice if "GPUs of this size" in a.change]
    assert advice, e.advice
    k = int(advice[0].change.split()[0])
    assert "whole layers" in advice[0].detail and "heads" not in advice[0].detail
    fits = lambda m: estimate(llama8b(), engine="llamacpp", settings=s.with_(tensor_parallel_size=m),  # noqa: E731
                              gpu_bytes=gpu).verdict == "fits"
    assert fits(k) and not fits(k - 1)


def test_the_review_case_advises_five_gpus_not_eight():
    d = j("meta-llama/Llama-3.1-8B-Instruct", "--engine", "llamacpp", "--gpu", "RTX-4060", "--max-model-len", "32K",
          "--concurrency", "4")
    split = [a for a in d["advice"] if "GPUs of this size" in a["change"]]
    assert split[0]["change"].startswith("5 GPUs") and "--split-mode layer" in split[0]["flags"]


def test_the_gpu_with_the_most_layers_decides():
    """Llama-3.1-8B over 5 GPUs: the first holds 7 layers and their cache, the last 6 with the output layer; the
    figures per GPU are the fullest one's, not a fifth of the model."""
    rules = get_engine("llamacpp")
    s = Settings(max_model_len=32768, concurrency=4, tensor_parallel_size=5)
    m = llama8b()
    e = estimate(m, engine="llamacpp", settings=s, gpu_bytes=8 * GIB)
    every = sum(rules.layer_bytes(m, s.with_(tensor_parallel_size=1), 32768 * 4, 4).values())
    assert e.kv_cache_bytes == every * 7 // 32
    assert e.weights_bytes + e.kv_cache_bytes > (m.weights.total_bytes + every) // 5
