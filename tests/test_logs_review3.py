"""A new user's review (round 3): logs written from the engines' real formats on which a diagnosis or an advice
step went wrong, each kept as a regression test with what it must say. The logs are in data/logs/review3."""

from __future__ import annotations

from pathlib import Path

import pytest

from vramdoctor.logs import diagnose
from vramdoctor.logs.reader import read_blocks

DATA = Path(__file__).parent / "data" / "logs" / "review3"


def run_of(name: str):
    rep = diagnose(read_blocks(str(DATA / name)))
    return rep.runs[rep.diagnosis["run"] - 1]


def said(run) -> str:
    return " | ".join(f"{a['flags']} {a['why']}" for a in run.advice)


@pytest.mark.parametrize("name,kind,code", [
    # a bare "Killed" after a GPU out-of-memory is the engine killing its own processes, not host RAM
    ("k-vllm1-graph.log", "WARMUP", "cuda-graph-capture-oom"),
    ("vllm1-weights-awq.log", "WEIGHTS", "weights-alloc-failed"),
    ("sglang-weights.log", "WEIGHTS", "weights-alloc-failed"),
    # docker compose's "svc-1  | " prefix: frames are not joined as one wrapped message
    ("compose2.log", "WARMUP", "cuda-graph-capture-oom"),
    # the last line stops mid-sentence: its cause is not shown, and the frames above it place it
    ("cut-valueerror.log", "UNDETERMINED", "failure-cause-not-shown"),
    # host RAM: PyTorch's CPU allocator
    ("cpu-alloc2.log", "WEIGHTS", "weights-exceed-system-memory"),
    # TGI's torch OOM, then its own verdict for the warm-up prefill
    ("tgi-warmup.log", "WARMUP", "prefill-tokens-exceed-memory"),
    # SGLang's stats lines with the pool full, then retraction: the stronger act names it
    ("sglang-retract.log", "RUNTIME", "kv-pool-full-retracting"),
    ("nvml-mismatch.log", "NOT_OOM", "cuda-driver-error"),
])
def test_kind_and_code(name, kind, code):
    run = run_of(name)
    assert (run.kind, run.code) == (kind, code), run


def test_the_cut_error_is_placed_by_its_frames():
    run = run_of("cut-valueerror.log")
    assert run.candidates == ["KV_CAPACITY"] and "partway" in run.missing, run


@pytest.mark.parametrize("name", ["vllm0-nokv-097.log", "sglang-notenough-097.log"])
def test_a_fraction_step_up_never_proposes_less_than_in_use(name):
    for a in run_of(name).advice:
        if a["direction"] == "up" and isinstance(a["value"], float) and isinstance(a["current"], float):
            assert a["value"] > a["current"], a


@pytest.mark.parametrize("name", ["cpu-alloc2.log", "ollama-sysmem.log"])
def test_host_ram_failures_move_nothing_to_the_cpu(name):
    run = run_of(name)
    assert not any(a["setting"] == "cpu_offload" or a["setting"] == "gpu_layers" and a["direction"] == "down"
                   for a in run.advice), run.advice
    assert any("host memory" in a["change"] for a in run.advice)


@pytest.mark.parametrize("name", ["llamacpp-cpu-kv.log", "llamacpp-cpuonly.log"])
def test_a_kv_cache_that_failed_in_host_ram_is_not_moved_off_the_gpu(name):
    run = run_of(name)
    assert not any("-nkvo" in a["flags"] for a in run.advice) and "GiB free minus" not in said(run), said(run)


def test_tgi_advice_reads_the_values_its_args_show():
    text = said(run_of("tgi-runtime.log"))
    assert "--max-input-tokens lower than 16,000" in text and "--max-concurrent-requests 64" in text, text


def test_trtllm_and_lmdeploy_advice_read_their_settings_tables():
    assert "--max_batch_size 32" in said(run_of("trtllm-runtime-oom.log"))
    assert "--max-prefill-token-num lower than 8,192" in said(run_of("lmdeploy-pt-oom.log"))


def test_llamacpp_layers_that_fit_come_from_the_offload_lines_before_the_failed_buffer():
    assert "-ngl 49 " in said(run_of("llamacpp-weights.log"))


def test_an_8bit_cache_for_full_cells_comes_with_a_larger_context():
    text = said(run_of("llamacpp-noslot.log"))
    assert "larger -c" in text, text


def test_cli_small_things(tmp_path):
    import subprocess
    import sys
    vd = [sys.executable, "-m", "vramdoctor"]
    blank = tmp_path / "blank.log"
    blank.write_text("\n   \n\t\n")
    r = subprocess.run(vd + ["logs", str(blank)], capture_output=True, text=True)
    assert r.returncode == 2 and "blank lines" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run(vd + ["logs", str(DATA / "nvml-mismatch.log"), "-o", str(tmp_path)], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "is a folder" in r.stderr
    r = subprocess.run(vd + ["--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("vramdoctor ")
    r = subprocess.run(vd + ["estimate", str(DATA / "nvml-mismatch.log")], capture_output=True, text=True)
    assert r.returncode == 2 and "vramdoctor logs" in r.stderr


@pytest.mark.parametrize("served,model,other", [
    ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-7B-Instruct", True),
    ("/models/Llama-3.1-8B-Instruct-Q4_K_M.gguf", "meta-llama/Llama-3.1-8B-Instruct", False),
    ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", False),
])
def test_the_model_check_says_when_the_log_serves_another_model(served, model, other):
    from vramdoctor.logs.check import model_checker
    from vramdoctor.sources import load_model
    import dataclasses
    spec = load_model(str(Path(__file__).parent / "data" / "configs" / "Qwen__Qwen2.5-7B-Instruct.config.json"))
    spec = dataclasses.replace(spec, name=model)
    notes = model_checker(spec)({"model_name": served}, {}, "vllm")
    assert any("serves" in n for n in notes) is other, notes
