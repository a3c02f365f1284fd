"""What a new user's review of `estimate` found (one test per defect class): undetermined never shown as
"does not start", state-only models on a pool, advice that fits and that the tool itself accepts, no negative
byte counts, flags refused where the engine has no such thing, nvidia-smi names, -ngl edge values."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tinygguf import write_model

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "200"}


def run(*args):
    return subprocess.run([sys.executable, "-m", "vramdoctor", "estimate", *args], capture_output=True, text=True,
                          env=ENV)


def j(*args):
    r = run(*args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_an_undetermined_start_is_never_shown_as_does_not_start():
    r = run("openai/gpt-oss-120b", "--gpu", "H100-80GB", "--concurrency", "1024")
    assert r.stdout.startswith("Undetermined")
    verdict = [line for line in r.stdout.splitlines() if line.startswith("verdict for")][0]
    assert "does not start" not in verdict and "undetermined" in verdict


def test_a_state_only_model_starts_on_a_pool_engine():
    d = j("derivative/mamba-2.8b-ov", "--engine", "sglang")
    assert d["starts"] is True and d["max_concurrency"] > 1


@pytest.mark.parametrize("args", [("meta-llama/Llama-3.1-8B-Instruct", "--engine", "llamacpp"),
                                  ("Qwen/Qwen2.5-7B-Instruct",), ("Qwen/Qwen2.5-7B-Instruct", "--engine", "sglang")])
def test_no_advice_raises_concurrency_on_a_gpu_too_small_for_anything(args):
    d = j(*args, "--gpu-memory", "0.5GB")
    assert not any("256" in a["flags"] for a in d["advice"])
    assert all(v >= 0 for k, v in d.items() if k.endswith("_bytes") and isinstance(v, int))


def test_a_quantized_checkpoint_is_not_advised_a_flag_vllm_refuses():
    d = j("Qwen/Qwen3-32B-FP8", "--gpu", "RTX-4090")
    assert not any("--quantization" in a["flags"] for a in d["advice"])
    assert any("checkpoint of this model" in a["detail"] and not a["flags"] for a in d["advice"])  # not a flag


@pytest.mark.parametrize("args", [
    ("deepseek-ai/DeepSeek-V3", "-pp", "2", "--engine", "sglang"),
    ("meta-llama/Llama-3.1-8B-Instruct", "--max-num-batched-tokens", "1M"),
    ("Qwen/Qwen2.5-7B-Instruct", "--gpu-memory", "0.5GB", "--engine", "sglang"),
])
def test_no_byte_count_is_negative(args):
    d = j(*args)
    negative = {k: v for k, v in d.items() if k.endswith("_bytes") and isinstance(v, int) and v < 0}
    assert not negative
    for row in d["pipeline_stages"]:
        assert row["kv_pool_bytes"] >= 0
    assert "(-" not in d["answer"]


def test_gpu_advice_under_pipeline_parallelism_counts_every_gpu():
    d = j("deepseek-ai/DeepSeek-V3", "-pp", "2", "--engine", "sglang")
    tp = [a for a in d["advice"] if "GPUs of this size" in a["change"]]
    assert tp and "2 pipeline stages" in tp[0]["detail"]
    n = int(tp[0]["change"].split()[0])
    assert n == 2 * int(tp[0]["flags"].split()[-1])


def test_checkpoint_methods_are_refused_for_gguf_formats(tmp_path):
    gguf = write_model(tmp_path / "t.gguf")
    for args in ((str(gguf), "--weights", "awq"), ("Qwen/Qwen2.5-7B-Instruct", "--engine", "llamacpp", "--weights", "awq"),
                 ("Qwen/Qwen2.5-7B-Instruct", "--weights", "awq", "-q", "gptq")):
        r = run(*args)
        assert r.returncode == 2 and "Traceback" not in r.stderr, args
        assert "vLLM refuses" not in r.stderr, args


@pytest.mark.parametrize("args,ok", [(("--engine", "vllm", "-ngl", "10"), False), (("--engine", "llamacpp", "-ngl", "-5"), False),
                                     (("--engine", "llamacpp", "-ngl", "-1"), True)])
def test_ngl_is_llama_cpps_and_minus_one_is_all(args, ok):
    r = run("Qwen/Qwen2.5-7B-Instruct", *args, "--json")
    assert (r.returncode == 0) == ok, r.stderr
    if ok:
        assert json.loads(r.stdout)["settings"]["n_gpu_layers"] is None


def test_modelopt_fp4_is_the_nvfp4_checkpoints_own_method():
    assert j("nvidia/Qwen3-235B-A22B-NVFP4", "-q", "modelopt_fp4", "-tp", "4")["weights_bytes"] > 0


def test_a_version_newer_than_modelled_says_which_rules_apply():
    assert "the newest modelled: 1.0 is newer" in j("Qwen/Qwen2.5-7B-Instruct", "--engine-version", "1.0")["engine_rules"]


@pytest.mark.parametrize("name,gpu", [("NVIDIA H100 PCIe", "H100-PCIe"), ("Tesla V100-SXM2-16GB", "V100-16GB"),
                                      ("NVIDIA A100 80GB PCIe", "A100-80GB"), ("NVIDIA H100 NVL", "H100-NVL")])
def test_nvidia_smi_names(name, gpu):
    assert j("Qwen/Qwen2.5-7B-Instruct", "--gpu", name)["gpu"] == gpu


def test_ngl_zero_and_no_ngl_fitting_say_so():
    r = run("Qwen/Qwen2.5-7B-Instruct", "--engine", "llamacpp", "-ngl", "0")
    assert "no KV cache on the GPU" in r.stdout and "16,777,216" not in r.stdout
    d = j("Qwen/Qwen2.5-7B-Instruct", "--engine", "llamacpp", "--gpu-memory", "0.3GiB")
    assert d["max_n_gpu_layers_fit"] is None


def test_llama_cpp_quantization_advice_agrees_with_weights():
    d = j("mistralai/Mixtral-8x7B-v0.1", "--engine", "llamacpp", "--gpu", "RTX-4060", "-ngl", "10")
    for a in d["advice"]:
        if "Q4_K_M" in a["flags"]:
            again = j("mistralai/Mixtral-8x7B-v0.1", "--engine", "llamacpp", "--gpu", "RTX-4060", "-ngl", "10",
                      "--weights", "q4_k_m")
            assert again["verdict"] == "fits"


def test_a_step_below_max_num_seqs_is_refused_as_vllm_refuses_it():
    r = run("Qwen/Qwen2.5-7B-Instruct", "--max-num-batched-tokens", "4", "--max-num-seqs", "8")
    assert r.returncode == 2 and "below --max-num-seqs" in r.stderr
