"""The `vramdoctor estimate` command end to end: output, JSON keys, verdicts, errors and exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from clirun import CliRunner

from conftest import DATA
from vramdoctor.cli import run as app

runner = CliRunner()
TOP_KEYS = {"weights_bytes", "kv_bytes_per_token", "kv_cache_bytes", "overhead_bytes", "total_bytes",
            "gpu_memory_bytes", "kv_pool_bytes", "kv_pool_tokens", "verdict", "max_model_len_fit",
            "max_concurrency_fit"}


def run(*args: str):
    return runner.invoke(app, ["estimate", *args])


def js(*args: str) -> dict:
    r = run(*args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_json_top_level_keys():
    d = js("Qwen/Qwen2.5-7B-Instruct", "--gpu", "RTX-4090")
    assert TOP_KEYS <= set(d)
    assert d["kv_bytes_per_token"] == 57344
    assert d["gpu_memory_bytes"] == round(23.64 * 2**30)
    assert d["total_bytes"] == d["weights_bytes"] + d["kv_cache_bytes"] + d["overhead_bytes"]


def test_flags_select_the_cell():
    small = js("Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192")
    big = js("Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192", "--concurrency", "4")
    fp8 = js("Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192", "--kv-cache-dtype", "fp8")
    tp2 = js("Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192", "--tensor-parallel-size", "2")
    assert big["kv_cache_bytes"] == 4 * small["kv_cache_bytes"] == 4 * 8192 * 57344
    assert fp8["kv_bytes_per_token"] == 57344 // 2
    assert tp2["kv_bytes_per_token"] == 57344 // 2 and tp2["weights_bytes"] < small["weights_bytes"]


def test_verdicts():
    assert js("meta-llama/Meta-Llama-3.1-70B", "--gpu", "RTX-4090")["verdict"] == "weights_exceed"
    d = js("Qwen/Qwen2.5-7B-Instruct", "--gpu", "RTX-4090", "--max-model-len", "131072", "--concurrency", "4")
    assert d["verdict"] == "kv_exceeds"
    assert 0 < d["max_model_len_fit"] < 131072
    assert d["max_concurrency_fit"] == 0
    ok = js("Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100-80GB")
    assert ok["verdict"] == "fits" and ok["advice"] == []


def test_max_model_len_fit_is_the_boundary():
    """At max_model_len_fit the cell fits; one token more does not."""
    d = js("Qwen/Qwen2.5-7B-Instruct", "--gpu", "RTX-4090", "--max-model-len", "32768", "--concurrency", "8")
    n = d["max_model_len_fit"]
    assert 0 < n < 32768 and n % 16 == 0  # whole vLLM blocks
    assert js("Qwen/Qwen2.5-7B-Instruct", "--gpu", "RTX-4090", "--max-model-len", str(n), "--concurrency", "8")["verdict"] == "fits"
    over = js("Qwen/Qwen2.5-7B-Instruct", "--gpu", "RTX-4090", "--max-model-len", str(n + 1), "--concurrency", "8")
    assert over["verdict"] == "kv_exceeds"
    # capped at the model's max_position_embeddings when everything fits
    assert js("Qwen/Qwen2.5-7B-Instruct", "--gpu", "H200")["max_model_len_fit"] == 32768


def test_advice_in_engine_flags():
    v = js("Qwen/Qwen2.5-7B-Instruct", "--gpu", "RTX-4090", "--max-model-len", "32768", "--concurrency", "4")
    flags = [a["flags"] for a in v["advice"]]
    assert flags[0].startswith("--max-model-len ") and "--max-num-seqs 3" in flags and "--kv-cache-dtype fp8" in flags
    # an 8-bit cache that would not be enough on its own is not offered
    v = js("Qwen/Qwen2.5-7B-Instruct", "--gpu", "RTX-4090", "--max-model-len", "131072", "--concurrency", "4")
    assert not any("fp8" in a["flags"] for a in v["advice"])
    ll = js("Qwen/Qwen2.5-7B-Instruct", "--engine", "llamacpp", "--gpu", "RTX-4090", "--max-model-len", "131072",
            "--concurrency", "4")
    assert any(a["flags"].startswith("-c ") for a in ll["advice"])
    w = js("meta-llama/Meta-Llama-3.1-70B", "--gpu", "H100-80GB")
    assert w["verdict"] == "weights_exceed"
    assert not any("--max-model-len" in a["flags"] for a in w["advice"])  # a shorter context never fixes weights
    assert any("--tensor-parallel-size 2" in a["flags"] for a in w["advice"])


def test_table_output_labels_gib():
    r = run("Qwen/Qwen2.5-7B-Instruct", "--gpu", "RTX-4090")
    assert r.exit_code == 0
    assert "GiB = 2^30 bytes" in r.stdout and "57,344 B" in r.stdout and "verdict" in r.stdout


@pytest.mark.parametrize("engine", ["vllm", "sglang", "llamacpp", "generic"])
def test_every_engine_on_every_family(engine):
    for model in ("openai/gpt-oss-20b", "deepseek-ai/DeepSeek-V2-Lite", "Qwen/Qwen3-Next-80B-A3B-Thinking",
                  "google/gemma-3-4b-it", "derivative/mamba-2.8b-ov"):
        d = js(model, "--engine", engine, "--gpu", "H200")
        assert d["engine"] == engine and d["verdict"] in ("fits", "kv_exceeds", "weights_exceed")


@pytest.mark.parametrize("args,needle", [
    (["Qwen/Qwen2.5-7B-Instruct", "--gpu", "nonexistent-gpu"], "--gpu"),
    (["Qwen/Qwen2.5-7B-Instruct", "--gpu-memory", "lots"], "--gpu-memory"),
    (["Qwen/Qwen2.5-7B-Instruct", "--kv-cache-dtype", "fp3"], "--kv-cache-dtype"),
    (["Qwen/Qwen2.5-7B-Instruct", "--gpu-memory-utilization", "1.5"], "--gpu-memory-utilization"),
    (["Qwen/Qwen2.5-7B-Instruct", "--engine", "tgi"], "--engine"),
    (["Qwen/Qwen2.5-7B-Instruct", "--grid", "4096by1"], "--grid"),
    ([str(DATA / "README.md")], "not valid JSON"),
])
def test_bad_input_is_one_paragraph_exit_2(args, needle):
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert needle in r.stderr
    assert "Traceback" not in r.output


def test_console_script_exit_code_and_no_traceback(tmp_path):
    exe = shutil.which("vramdoctor") or f"{sys.executable} -m vramdoctor"
    bad = tmp_path / "config.json"
    bad.write_bytes(b"\x00\x01binary")
    r = subprocess.run([*exe.split(), "estimate", str(bad)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and str(bad) in r.stderr
    r = subprocess.run([*exe.split(), "estimate", str(bad), "--debug"], capture_output=True, text=True, timeout=60)
    assert "Traceback" in r.stderr
    # (--debug shows the traceback and keeps the exit code: bad input is 2 either way)
    assert r.returncode == 2, r.returncode
    r = subprocess.run([*exe.split(), "logs", "--debug", str(tmp_path / "missing.log")], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "Traceback" in r.stderr and "missing.log" in r.stderr, (r.returncode, r.stderr[-300:])


def test_list_models_and_gpus():
    assert "Qwen/Qwen2.5-7B-Instruct" in run("--list-models").stdout
    assert "H100-80GB" in run("--list-gpus").stdout
