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
    ("sglang-retract.log", "NONE", "kv-pool-full-retracting"),  # (coped with, no complaint: quiet.pressure)
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
    r = subprocess.run(vd + ["logs", str(blank), "--json"], capture_output=True, text=True)
    import json
    assert r.returncode == 2 and "blank lines" in json.loads(r.stdout)["error"]
    r = subprocess.run(vd + ["--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("vramdoctor ")
    r = subprocess.run(vd + ["estimate", str(DATA / "nvml-mismatch.log")], capture_output=True, text=True)
    assert r.returncode == 2 and "vramdoctor logs" in r.stderr


@pytest.mark.parametrize("served,model,other", [
    ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-7B-Instruct", True),
    ("/models/Llama-3.1-8B-Instruct-Q4_K_M.gguf", "meta-llama/Llama-3.1-8B-Instruct", False),
    ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", False),
    # a quantized file's own name, its tags taken off: the same model, or another one
    ("/models/llama-3.1-8b-Q4_K_M.gguf", "meta-llama/Llama-3.1-8B-Instruct", False),
    ("qwen2.5-7b-instruct-iq4_xs.gguf", "Qwen/Qwen2.5-7B-Instruct", False),
    ("/models/llama-3.1-8b-Q4_K_M.gguf", "Qwen/Qwen2.5-7B-Instruct", True),
    ("Mistral-7B-Instruct-v0.3.Q8_0.gguf", "meta-llama/Llama-3.1-8B-Instruct", True),
])
def test_the_model_check_says_when_the_log_serves_another_model(served, model, other):
    from vramdoctor.logs.check import model_checker
    from vramdoctor.sources import load_model
    import dataclasses
    spec = load_model(str(Path(__file__).parent / "data" / "configs" / "Qwen__Qwen2.5-7B-Instruct.config.json"))
    spec = dataclasses.replace(spec, name=model)
    notes = model_checker(spec)({"model_name": served}, {}, "vllm")
    assert any("serves" in n for n in notes) is other, notes


# --- round 4 of the review ------------------------------------------------------------------------------------

def _flags(text: str) -> tuple:
    import textwrap
    from vramdoctor.logs.scan import numbered
    rep = diagnose(numbered(textwrap.dedent(text).strip("\n").splitlines()))
    run = rep.runs[rep.diagnosis["run"] - 1]
    return run, " | ".join(a["flags"] for a in run.advice)


def test_an_8bit_cache_on_llamacpps_command_line_is_not_proposed_again():
    run, text = _flags("""
        main: build = 6500 (abcdef0)
        system info: n_threads = 16
        llama-server -m /m/Qwen3-32B-Q4_K_M.gguf -c 131072 -ngl 99 -ctk q8_0 -ctv q8_0 -fa on
        llama_kv_cache_init: failed to allocate buffer for kv cache
    """)
    assert "q8_0" not in text, text


def test_ollama_num_ctx_is_the_runners_context_over_its_slots():
    run, text = _flags("""
        time=2025-03-01T10:00:00.000Z level=INFO source=server.go:405 msg="starting llama server" cmd="/usr/bin/ollama runner --model /m --ctx-size 131072 --batch-size 512 --n-gpu-layers 33 --parallel 4 --port 4000"
        time=2025-03-01T10:00:05.000Z level=INFO source=server.go:594 msg="llama runner started in 5.02 seconds"
        [GIN] 2025/03/01 - 10:00:20 | 200 |  2.1s |  127.0.0.1 | POST     "/api/chat"
        CUDA error: out of memory
    """)
    assert "32,768" in text and "131,072" not in text, text


def test_proc_status_readings_in_kb_are_read():
    run, _ = _flags("""
        VmRSS:	18234120 kB
        VmRSS:	31234120 kB
        VmRSS:	52234120 kB
    """)
    assert run.kind == "LEAK", run


def test_a_running_count_below_the_cap_sets_the_cap_advised():
    run, text = _flags("""
        [2025-05-10 08:00:01] server_args=ServerArgs(model_path='m', max_running_requests=4096, mem_fraction_static=0.8)
        [2025-05-10 08:05:00 TP0] Decode batch, #running-req: 40, #token: 97000, token usage: 0.50, cuda graph: True, gen throughput (token/s): 610.44, #queue-req: 0,
        [2025-05-10 08:05:02 TP0] Scheduler hit an exception: Traceback (most recent call last):
          File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1283, in event_loop_overlap
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.
    """)
    assert "--max-running-requests 30" in text, text


def test_fraction_of_free_memory_engines_get_no_fraction_step_when_nothing_is_free():
    run, text = _flags("""
        [TM][INFO] [BlockManager] block_size = 64 MB
        [TM][INFO] [BlockManager] max_block_count = 0
        cache_max_entry_count=0.95
    """)
    assert run.code == "no-memory-for-kv-cache" and "--cache-max-entry-count" not in text, (run.code, text)


def test_trtllm_cutting_max_sequence_len_to_its_pool_is_kv_capacity():
    run, text = _flags("""
        [TensorRT-LLM][INFO] maxSequenceLen: 32768
        [TensorRT-LLM][WARNING] maxAttentionWindow and maxSequenceLen are too large for at least one sequence to fit in kvCache. they are reduced to 5376
    """)
    assert run.kind == "KV_CAPACITY" and "5376" in text, (run, text)


def test_a_periodic_line_cut_partway_after_the_server_got_ready_is_said_to_be_cut():
    run, _ = _flags("""
        INFO:     Application startup complete.
        INFO 06-02 10:00:00 [loggers.py:118] Engine 000: Avg prompt throughput: 2000.0 tokens/s, Avg generation throughput: 300.1 tokens/s, Running: 12 reqs, Waiting: 0 reqs, GPU KV cache usage: 45.1%
        INFO 06-02 10:00:10 [loggers.py:118] Engine 000: Avg prompt throughput: 2000.0 tokens/s, Avg generation thr
    """)
    assert (run.kind, run.code) == ("NONE", "log-cut-off"), run


def test_an_8bit_cache_that_alone_cannot_hold_the_context_says_so():
    steps = [a for a in run_of("vllm1-kv-maxlen-095.log").advice if a["setting"] == "kv_cache_dtype"]
    assert steps and "shorter context" in steps[0]["change"], steps


def test_a_fraction_step_up_leaves_the_cuda_graphs_their_memory():
    base = """
        INFO 06-02 09:15:08 [core.py:70] Initializing a V1 LLM engine (v0.9.1) with config: model='m', gpu_memory_utilization=0.95
        INFO 06-02 09:15:20 [gpu_worker.py:280] Free memory on device (23.2/23.55 GiB) on startup.
        INFO 06-02 09:15:48 [gpu_model_runner.py:2048] Graph capturing finished in 16 secs, took {g} GiB
        WARNING 06-02 09:21:00 [scheduler.py:1754] Sequence group cmpl-1 is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. total_num_cumulative_preemption=1
    """
    for graphs in ("0.52", "1.50"):
        run, _ = _flags(base.replace("{g}", graphs))
        for a in run.advice:
            if a["setting"] == "memory_fraction" and a["direction"] == "up":
                assert (1 - a["value"]) * 23.55 >= float(graphs), a


_LLAMACPP_KV_FAILED = """
    llama_model_loader: loaded meta data with 29 key-value pairs and 292 tensors from /m/qwen2.5-7b-instruct-q4_k_m.gguf (version GGUF V3 (latest))
    load_tensors: offloaded 29/29 layers to GPU
    load_tensors:        CUDA0 model buffer size =  4168.09 MiB
    load_tensors:   CPU_Mapped model buffer size =   292.36 MiB
    llama_context: n_ctx         = 131072
    ggml_backend_cuda_buffer_type_alloc_buffer: allocating 7168.00 MiB on device 0: cudaMalloc failed: out of memory
    llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache
    srv    load_model: failed to load model, '/m/qwen2.5-7b-instruct-q4_k_m.gguf'
"""


def test_llamacpps_model_buffers_are_the_logs_weights_figure(tmp_path):
    """llama.cpp prints its weights as model buffers per device: the model check holds their sum against the
    estimate (never "the log prints no weights figure"), and the log's own figure sizes the advice."""
    import textwrap
    from vramdoctor.logs.check import model_checker
    from vramdoctor.logs.scan import numbered
    from vramdoctor.sources import load_model

    spec = load_model(str(Path(__file__).parent / "data" / "configs" / "Qwen__Qwen2.5-7B-Instruct.config.json"))
    rep = diagnose(numbered(textwrap.dedent(_LLAMACPP_KV_FAILED).strip("\n").splitlines()),
                   model_check=model_checker(spec), weights_bytes=spec.weights.total_bytes)
    run = rep.runs[rep.diagnosis["run"] - 1]
    notes = " ".join(run.model_check)
    assert "prints no weights figure" not in notes and "serves" not in notes, notes
    assert "model buffers) 4.36 GiB" in notes, notes
    from vramdoctor.logs.advice.sizes import weights_in_all
    assert weights_in_all({"gpu_model_buffer_bytes": 4168 << 20, "cpu_model_buffer_bytes": 292 << 20,
                           "_model_weights_bytes": 15 << 30}, 1) == (4460 << 20, "as the log prints them (its "
                                                                                  "model buffers)")
