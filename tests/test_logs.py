"""`vramdoctor logs` on real logs: every case of shared/data/logs gets its labelled kind and the
numbers its index lists; plus our own cases for other wordings, bad input, streaming and redaction."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from conftest import DATA
from vramdoctor.logs import diagnose
from vramdoctor.logs.reader import LogInputError, read_lines
from vramdoctor.logs.scan import WINDOW_MAX, Scanner, numbered

LOGS = DATA / "logs"
INDEX = [json.loads(line) for line in (LOGS / "index.jsonl").read_text().splitlines()]
GIB, MIB = 2**30, 2**20

# index key -> (our key, unit of the index value, how to compare)
KEYS = {
    "weights_gib": ("weights_bytes", GIB), "weights_gb": ("weights_bytes", GIB),
    "total_gpu_memory_gib": ("total_memory_bytes", GIB), "peak_torch_memory_gib": ("peak_torch_memory_bytes", GIB),
    "non_torch_memory_gib": ("non_torch_memory_bytes", GIB), "kv_gib": ("kv_pool_bytes", GIB),
    "kv_blocks": ("num_gpu_blocks", 1), "kv_tokens": ("kv_pool_tokens", 1), "max_seq_len": ("max_model_len", 1),
    "oom_tried_alloc_mib": ("failed_alloc_bytes", MIB), "gpu_total_gib": ("total_memory_bytes", GIB),
    "ollama_memory_required_full_gib": ("required_full_bytes", GIB), "ollama_kv_gib": ("kv_required_bytes", GIB),
    "ollama_memory_required_partial_gib": ("required_partial_bytes", GIB),
    "weights_total_gib": ("weights_bytes", GIB), "graph_full_mib": ("graph_full_bytes", MIB),
    "graph_partial_mib": ("graph_partial_bytes", MIB),
    "compute_buffer_alloc_failed_mib": ("failed_alloc_bytes", MIB),
    "required_system_gib": ("system_memory_required_bytes", GIB), "requested_gib": ("system_memory_required_bytes", GIB),
    "available_system_gib": ("system_memory_available_bytes", GIB),
    "allocated_by_pytorch_gib": ("torch_allocated_bytes", GIB), "allocated_gib": ("torch_allocated_bytes", GIB),
    "reserved_unallocated_gib": ("torch_reserved_unallocated_bytes", GIB), "reserved_gib": ("torch_reserved_bytes", GIB),
    "max_entry_count": ("max_entry_count", 1), "kv_alloc_failed_bytes": ("failed_alloc_bytes", 1),
    "gpu_free_mib": ("free_memory_bytes", MIB), "free_mib": ("free_memory_bytes", MIB),
    "memory_required_kv_gib": ("kv_required_bytes", GIB), "memory_graph_full_gib": ("graph_full_bytes", GIB),
    "memory_weights_total_gib": ("weights_bytes", GIB), "memory_required_full_gib": ("required_full_bytes", GIB),
    "layers_offload": ("layers_offloaded", 1), "prefill_new_tokens": ("prefill_batch_tokens", 1),
    "token_usage": ("kv_usage_pct", 100), "oom_tried_alloc_gib": ("failed_alloc_bytes", GIB), "queue_req": ("queue_reqs", 1),
    "gpu_kv_cache_usage_pct": ("kv_usage_pct", 1), "running_reqs": ("running_reqs", 1),
    "inferred_max_batch_total_tokens": ("kv_pool_tokens", 1), "runner_size_gib": ("runner_size_bytes", GIB),
    "runner_vram_gib": ("runner_vram_bytes", GIB), "prompt_tokens": ("prompt_tokens", 1),
    "processed_before_crash": ("processed_prompt_tokens", 1), "context_shift_erased_tokens": ("context_shift_erased_tokens", 1),
    "available_single_gpu_mb": ("available_memory_bytes", MIB), "model_weight_mb": ("weights_bytes", MIB),
    "temporary_buffer_mb": ("temporary_buffer_bytes", MIB), "weights_alloc_failed_mib": ("failed_alloc_bytes", MIB),
    "weights_alloc_failed_bytes": ("failed_alloc_bytes", 1),
    "cuda0_model_buffer_mib_after_fix": ("gpu_model_buffer_bytes", MIB),
    "cpu_mapped_model_buffer_mib": ("cpu_model_buffer_bytes", MIB), "context_tokens": ("prompt_tokens", 1),
    "process_in_use_gib": ("process_in_use_bytes", GIB), "cuda0_weights_mib": ("gpu_model_buffer_bytes", MIB),
    "cpu_weights_mib": ("cpu_model_buffer_bytes", MIB), "kv_self_mib": ("kv_pool_bytes", MIB),
    "cuda0_kv_mib": ("gpu_kv_buffer_bytes", MIB), "cuda0_compute_buffer_mib": ("gpu_compute_buffer_bytes", MIB),
    "layers_offloaded": ("layers_offloaded", "x/y"), "layers_offloaded_after_fix": ("layers_offloaded", "x/y"),
    "modules_loaded": ("modules_loaded", "x/y"),
    "sampler_dummy_requests": ("sampler_dummy_requests", 1), "num_gpu_blocks": ("num_gpu_blocks", 1),
    "num_cpu_blocks": ("num_cpu_blocks", 1), "max_model_len": ("max_model_len", 1),
    "total_memory_gib": ("total_memory_bytes", GIB), "free_before_kv_gib": ("free_memory_bytes", GIB),
    "prefill_tokens": ("prefill_tokens", 1), "failed_alloc_mib": ("failed_alloc_bytes", MIB),
    "failed_alloc_bytes": ("failed_alloc_bytes", 1), "prompt_tokens_processed": ("processed_prompt_tokens", 1),
    "prompt_tokens_total": ("prompt_tokens", 1), "failed_alloc_gib": ("failed_alloc_bytes", GIB),
    "total_gib": ("total_memory_bytes", GIB), "free_gib": ("free_memory_bytes", GIB),
    "kv_usage_pct_start": ("kv_usage_pct", "first"), "kv_usage_pct_end": ("kv_usage_pct", "last"),
    "mem_fraction_static": ("mem_fraction_static", 1), "context_length": ("max_model_len", 1),
    "kv_buffer_mib": ("gpu_kv_buffer_bytes", MIB), "metal_compute_mib": ("gpu_compute_buffer_bytes", MIB),
}
# the same index key meaning another figure in one case
KEY_IN_CASE = {("case-047.log", "requested_gib"): ("requested_memory_bytes", GIB)}
# index figures that are not in the log text itself
NOT_IN_LOG = {
    "ok_runs": "figures of the other runs in the same file",
    "free_after_load_gb_reported": "stated in the issue text, not printed by TurboMind",
    "dcgm_fb_free_mb_start": "from a DCGM chart image", "dcgm_fb_free_mb_end": "from a DCGM chart image",
}


def labelled_run(report):
    """The run a case is labelled for: the latest run with a finding, else the latest."""
    found = [r for r in report.runs if r.kind != "NONE"]
    return found[-1] if found else report.runs[-1]


def run_case(name: str):
    return diagnose(read_lines(str(LOGS / name)))


# Cases whose label comes from outside the log (the title or a maintainer's reply): from the log
# alone the phase (or even whether memory ran out) cannot be told, so the honest answer is UNDETERMINED;
# the label must still be among the phases it names.
BEYOND_LOG = {
    "case-007.log": "the error is cut off mid-word ('CUDA ru'): no out-of-memory words",
    "case-009.log": "out of memory in a generic buffer allocation; the backtrace is cut before the step, and "
                    "TensorRT-LLM prints no start-up steps at its default log level",
    "case-023.log": "the excerpt ends inside the traceback before the ValueError: no out-of-memory words",
    "case-026.log": "the excerpt ends inside the warm-up traceback before the exception: no out-of-memory words",
    "case-045.log": "the excerpt ends inside the scheduler traceback before 'Not enough memory': no out-of-memory "
                    "words",
    "case-027.log": "the excerpt ends inside the traceback; the illegal memory access is only in the issue title",
    "case-017.log": "out of memory in the CUDA pool, which the warm-up pass and every request use; the excerpt shows "
                    "neither the runner's start nor a request (the issue says a long request)",
}


# A case whose failure happens after the excerpt ends: the log shows no failure, and says what it does show.
AFTER_LOG = {"case-032.log": ("partial-offload", "the out-of-memory of the issue title happens after the excerpt, "
                              "when an image is sent; the log shows 6 of 33 layers on the GPU and requests served")}


@pytest.mark.parametrize("case", INDEX, ids=[c["file"] for c in INDEX])
def test_case_kind(case):
    run = labelled_run(run_case(case["file"]))
    if case["file"] in AFTER_LOG:
        assert run.kind == "NONE" and run.code == AFTER_LOG[case["file"]][0], (run.kind, run.code)
    elif case["file"] in BEYOND_LOG:
        assert run.kind == "UNDETERMINED", (run.code, run.phase_source, run.evidence)
        if case["kind"] == "NOT_OOM":
            assert run.oom is None  # it does not claim memory ran out
        else:
            assert case["kind"] in run.candidates, (case["kind"], run.candidates)
        assert run.missing
    else:
        assert run.kind == case["kind"], (run.code, run.phase_source, run.evidence)
    assert run.evidence, "every diagnosis quotes its deciding lines"
    assert all(e["line"] >= 1 for e in run.evidence)


def _close(got, want, unit) -> bool:
    if isinstance(want, list):
        return isinstance(got, list) and len(got) >= len(want) and all(
            _close(g, w, unit) for g, w in zip(got[-len(want):] if len(got) > len(want) else got, want))
    if isinstance(got, list):
        return any(_close(g, want, unit) for g in got)
    if unit == "x/y":
        return False
    expect = want * unit
    return abs(got - expect) <= max(0.006 * abs(expect), 0.0051 * (unit if unit > 1 else 1))


@pytest.mark.parametrize("case", INDEX, ids=[c["file"] for c in INDEX])
def test_case_numbers(case):
    report = run_case(case["file"])
    run = labelled_run(report)
    n = {**run.numbers, **run.derived}
    for key, want in case["numbers"].items():
        if key in NOT_IN_LOG:
            continue
        if key.endswith("_after_fix"):  # printed by the later, successful run in the same file
            n = {k: v for r in report.runs for k, v in {**r.numbers, **r.derived}.items()}
        assert key in KEYS, f"index key {key} has no mapping"
        ours, unit = KEY_IN_CASE.get((case["file"], key), KEYS[key])
        if unit in ("first", "last"):
            series = n.get(ours)
            assert isinstance(series, list) and series, (key, series)
            assert series[0 if unit == "first" else -1] == pytest.approx(want), (key, want, series)
            continue
        if unit == "x/y":
            done, total = (int(x) for x in str(want).split("/"))
            got = n.get(ours)
            got = got[-1] if isinstance(got, list) else got
            assert got == done, (key, n.get(ours))
            continue
        assert ours in n, f"{case['file']}: {key} -> {ours} missing; have {sorted(n)}"
        assert _close(n[ours], want, unit), (key, want, n[ours])


def test_case_001_splits_runs_and_derives_the_pool():
    rep = run_case("case-001.log")
    assert [r.kind for r in rep.runs] == ["NONE", "KV_CAPACITY", "NONE"]
    bad = rep.runs[1]
    assert bad.code == "max-model-len-exceeds-kv-cache"
    assert bad.derived["kv_bytes_per_token"] == pytest.approx(131072, rel=0.002)
    assert bad.advice[0]["flags"] == "--max-model-len 23648"  # first: the context down to what the pool holds
    # the 35k run shows only its weights line: it did not get further than the failing run, so it clears nothing
    assert rep.diagnosis == {"kind": "KV_CAPACITY", "code": "max-model-len-exceeds-kv-cache", "run": 2}


def test_weights_advice_never_shortens_the_context():
    run = labelled_run(run_case("case-022.log"))
    assert run.kind == "WEIGHTS"
    assert not any(a["flags"].startswith("-c ") for a in run.advice)
    assert run.advice[0]["flags"].startswith("-ngl")  # llama.cpp: fewer layers on the GPU first
    assert any("Q4_K_M" in a["flags"] for a in run.advice)


def test_not_oom_says_memory_is_not_the_problem():
    run = labelled_run(run_case("case-014.log"))
    assert run.code == "nccl-error"
    assert "not the problem" in run.advice[0]["why"]


# --- our own cases: other wordings of each engine --------------------------------------------

OWN = [
    ("vllm-v1-kv-needed.log", "KV_CAPACITY", "max-model-len-exceeds-kv-cache", {"max_model_len_fit": 205728}),
    ("vllm-v1-no-blocks.log", "KV_CAPACITY", "no-memory-for-kv-cache",
     {"kv_pool_bytes": 0, "kv_pool_shortfall_bytes": int(1.05 * GIB)}),  # no byte count is negative
    ("vllm-v1-graph-capture.log", "WARMUP", "cuda-graph-capture-oom", {"kv_pool_tokens": 93872}),
    ("sglang-not-enough-memory.log", "KV_CAPACITY", "no-memory-for-kv-cache", {"weights_bytes": int(15.54 * GIB)}),
    ("llamacpp-new-kv.log", "KV_CAPACITY", "kv-cache-alloc-failed", {"n_ctx": 131072}),
    ("llamacpp-compute.log", "WARMUP", "compute-buffer-alloc-failed", {}),
    ("tgi-prefill.log", "RUNTIME", "prefill-oom", {}),
    ("ollama-weights-vram.log", "WEIGHTS", "weights-alloc-failed", {}),
    ("vllm-leak.log", "LEAK", "kv-cache-usage-creep", {}),
    ("clean-vllm.log", "NONE", "no-memory-problem", {"kv_pool_tokens": 464848}),
    ("tgi-warmup-prefill.log", "WARMUP", "prefill-tokens-exceed-memory", {}),
    ("transformers-generate.log", "RUNTIME", "serving-oom", {"failed_alloc_bytes": [int(12.5 * GIB)]}),
    ("vllm-config-maxlen.log", "NOT_OOM", "max-model-len-exceeds-model", {"max_model_len_model": 32768}),
    ("host-killed.log", "WEIGHTS", "weights-exceed-system-memory", {}),
    ("mlc-temp-buffer.log", "WARMUP", "temporary-buffer-exceeds-memory", {"weights_bytes": 4308 * MIB}),
    ("nccl-oom.log", "WARMUP", "nccl-buffers-oom", {}),
    ("lmdeploy-zero-blocks.log", "KV_CAPACITY", "no-memory-for-kv-cache", {}),
    ("trtllm-kv-tokens.log", "KV_CAPACITY", "max-model-len-exceeds-kv-cache", {"kv_pool_tokens": 11392}),
    ("llamacpp-free.log", "KV_CAPACITY", "kv-cache-alloc-failed", {"free_memory_bytes": 11813 * MIB}),
    ("ollama-kv-parallel.log", "KV_CAPACITY", "kv-cache-alloc-failed", {"n_parallel": 4}),
    ("vllm-prompt-mentions-oom.log", "NONE", "no-memory-problem", {}),  # the OOM text is in a user's prompt
    ("vllm-free-mem.log", "NOT_OOM", "gpu-shared-with-other-process", {}),
    ("vllm-profile-oom.log", "WARMUP", "profile-run-oom", {}),
    ("vllm-v1-kv-alloc.log", "KV_CAPACITY", "kv-cache-alloc-failed", {}),
    ("ollama-runtime.log", "RUNTIME", "serving-oom", {}),
]


@pytest.mark.parametrize("name,kind,code,numbers", OWN, ids=[o[0] for o in OWN])
def test_own_wordings(name, kind, code, numbers):
    run = labelled_run(diagnose(read_lines(str(DATA / "logs_own" / name))))
    assert run.kind == kind, (run.code, run.phase_source, run.evidence)
    if code:
        assert run.code == code
    for k, v in numbers.items():
        assert {**run.numbers, **run.derived}[k] == pytest.approx(v, rel=0.002)


# the first step of the advice for our own cases: in that engine's flags, and in the right direction
FIRST_STEP = {
    "vllm-v1-kv-needed.log": "--max-model-len 205728",
    "vllm-config-maxlen.log": "--max-model-len 32768",
    "sglang-not-enough-memory.log": "--mem-fraction-static",  # more for the pool; the context cannot help
    # graphs live outside the pool: lower the fraction; the log does not show it, so no number is made up
    "vllm-v1-graph-capture.log": "--gpu-memory-utilization X",  # X: below the user's value (the step's why says so)
    "ollama-kv-parallel.log": "OLLAMA_NUM_PARALLEL=1",
    "llamacpp-free.log": "-c 53248",  # (11813 MiB free - 4403 MiB weights) x 0.9 / 131072 bytes per token
    "trtllm-kv-tokens.log": "--max_seq_len 11392",
    "transformers-generate.log": "a shorter input",
    "mlc-temp-buffer.log": "--prefill-chunk-size",
    "vllm-free-mem.log": "--gpu-memory-utilization 0.58",  # 14.3 of 23.64 GiB free, less a margin
    # a quarter of the 65536; a V1 log (0.10.1): its prefill is always chunked, so no --enable-chunked-prefill
    "vllm-profile-oom.log": "--max-num-batched-tokens 16384",
    "vllm-v1-kv-alloc.log": "--gpu-memory-utilization 0.8",  # lower: the pool could not be allocated
}


def test_fraction_advice_moves_the_right_way():
    """'more headroom' is always below the fraction the log shows, 'more for the pool' above it."""
    for name in sorted((DATA / "logs_own").glob("*.log")):
        run = labelled_run(diagnose(read_lines(str(name))))
        u = run.numbers.get("gpu_memory_utilization") or run.numbers.get("mem_fraction_static")
        for a in run.advice:
            value = a["flags"].split()[-1] if a["flags"] else ""
            if not u or not value.replace(".", "").isdigit() or not any(
                    k in a["flags"] for k in ("utilization", "fraction", "entry-count")):
                continue
            if a["change"].startswith("more headroom") or "what is free" in a["change"]:
                assert float(value) < u, (name.name, a)
            if a["change"].startswith("more memory"):
                assert float(value) > u, (name.name, a)


@pytest.mark.parametrize("name,flags", sorted(FIRST_STEP.items()))
def test_first_advice(name, flags):
    run = labelled_run(diagnose(read_lines(str(DATA / "logs_own" / name))))
    assert run.advice[0]["flags"].startswith(flags), run.advice


def test_restart_after_a_clipped_run_splits_and_keeps_each_runs_figures():
    rep = diagnose(read_lines(str(DATA / "logs_own" / "vllm-restart-clipped.log")))
    assert [r.kind for r in rep.runs] == ["KV_CAPACITY", "NONE"]
    assert rep.runs[0].numbers["max_model_len"] == 131072  # not the second run's 32768
    assert rep.runs[1].numbers["max_model_len"] == 32768 and rep.runs[1].numbers["kv_pool_tokens"] == 93872


# --- input ------------------------------------------------------------------------------------


def test_gzip_and_stdin_give_the_same_answer(tmp_path, monkeypatch):
    raw = (LOGS / "case-029.log").read_bytes()
    gz = tmp_path / "x.log.gz"
    gz.write_bytes(gzip.compress(raw))
    a = diagnose(read_lines(str(gz)))
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    b = diagnose(read_lines("-"))
    assert a.diagnosis == b.diagnosis == {"kind": "KV_CAPACITY", "code": "kv-cache-alloc-failed", "run": 1}


def test_truncated_gzip_keeps_what_was_read(tmp_path):
    raw = (LOGS / "case-021.log").read_bytes() * 50
    gz = tmp_path / "cut.log.gz"
    gz.write_bytes(gzip.compress(raw)[:-200])
    warnings: list[str] = []
    rep = diagnose(read_lines(str(gz), warnings=warnings))
    assert warnings and "ends early" in warnings[0]
    assert any(r.kind == "WEIGHTS" for r in rep.runs)


def test_small_truncated_gzip_is_read_up_to_the_cut(tmp_path):
    gz = tmp_path / "small.log.gz"
    gz.write_bytes(gzip.compress((LOGS / "case-022.log").read_bytes())[:-12])
    warnings: list[str] = []
    rep = diagnose(read_lines(str(gz), warnings=warnings))
    assert warnings and labelled_run(rep).kind == "WEIGHTS"


def test_gzip_on_stdin(monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress((LOGS / "case-022.log").read_bytes()))))
    assert labelled_run(diagnose(read_lines("-"))).kind == "WEIGHTS"


def test_utf16_nul_ansi_and_carriage_returns(tmp_path):
    text = (LOGS / "case-010.log").read_text()
    p16 = tmp_path / "ps.log"
    p16.write_text(text, encoding="utf-16")
    assert labelled_run(diagnose(read_lines(str(p16)))).kind == "KV_CAPACITY"
    mixed = tmp_path / "mixed.log"
    mixed.write_bytes(b"\x00" * 100 + b"\x1b[31mERROR\x1b[0m torch.OutOfMemoryError: CUDA out of memory\n"
                      b"progress 10%\rprogress 100%\nlast line\n")
    lines = list(read_lines(str(mixed)))
    assert lines[0] == (1, "ERROR torch.OutOfMemoryError: CUDA out of memory")
    assert lines[1] == (2, "progress 100%") and lines[2] == (3, "last line")  # numbered as grep -n numbers them


def test_follow_waits_on_an_empty_file(tmp_path):
    import threading
    import time

    p = tmp_path / "new.log"
    p.write_text("")

    def later():
        time.sleep(0.3)
        p.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB\n")

    threading.Thread(target=later).start()
    assert len(list(read_lines(str(p), follow=True, poll_s=0.05, idle_stop_s=1.0))) == 1


@pytest.mark.parametrize("content,match", [(b"", "is empty"), (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8, "ELF"),
                                           (b"\x01\x02\x03binary\xff" * 400, "binary")])
def test_unreadable_input(tmp_path, content, match):
    p = tmp_path / "x.log"
    p.write_bytes(content)
    with pytest.raises(LogInputError, match=match):
        list(read_lines(str(p)))


def test_garbage_text_is_a_clear_none(tmp_path):
    p = tmp_path / "garbage.log"
    p.write_text("lorem ipsum dolor\n" * 50 + "sit amet 42\n")
    rep = diagnose(read_lines(str(p)))
    assert rep.engine == "unknown" and rep.diagnosis["kind"] == "NONE" and rep.diagnosis["code"] == "no-memory-problem"


def test_follow_reads_lines_appended_later(tmp_path):
    import threading
    import time

    p = tmp_path / "live.log"
    p.write_text("INFO starting\n")

    def append():
        time.sleep(0.3)
        with p.open("a") as f:
            f.write("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n")

    threading.Thread(target=append).start()
    lines = list(read_lines(str(p), follow=True, poll_s=0.05, idle_stop_s=1.0))
    assert len(lines) == 2 and "out of memory" in lines[1][1]


def test_memory_stays_bounded_on_a_long_log():
    """200,000 lines: the scanner keeps a fixed window (WINDOW_MAX lines: 80 counted, IPython's source context not
    counted), capped failures and capped series."""
    s = Scanner()
    for i in range(1, 50_001):
        s.feed(i, f"INFO 10-14 17:00:48 [loggers.py:123] Engine 000: Running: 5 reqs, GPU KV cache usage: {i % 97}.0%")
        if i % 1000 == 0:
            s.feed(i, "RuntimeError: something failed")
    runs = s.finish()
    assert len(s.recent) <= WINDOW_MAX == 320
    assert all(len(r.failures) <= 8 for r in runs)
    assert all(len(v) <= 513 for r in runs for v in r.numbers.values() if isinstance(v, list))


def test_redaction():
    from vramdoctor.logs.redact import redact

    line = 'File "/home/alice/x.py" from 10.0.0.5 token=hf_abcdefghijklmnopqrstuvwx root@gpu-7: ok'
    out = redact(line)
    assert "alice" not in out and "10.0.0.5" not in out and "hf_abcdefghij" not in out and "gpu-7" not in out
    assert redact("127.0.0.1:8000") == "127.0.0.1:8000"


def test_numbered_strips_newlines():
    assert list(numbered(["a\n", "b"])) == [(1, "a"), (2, "b")]


# --- the command ------------------------------------------------------------------------------


def _cli(*args, input=None):
    from clirun import CliRunner

    from vramdoctor.cli import run as app

    return CliRunner().invoke(app, ["logs", *args], input=input)


def test_cli_json_top_level_keys():
    r = _cli(str(LOGS / "case-010.log"), "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert {"engine", "runs", "diagnosis"} <= set(d)
    assert d["engine"] == "llamacpp"
    assert d["diagnosis"] == {"kind": "KV_CAPACITY", "code": "kv-cache-alloc-failed", "run": 1}
    run = d["runs"][-1]
    assert {"kind", "code", "evidence", "numbers", "advice"} <= set(run)
    assert run["evidence"][0]["line"] > 0 and run["evidence"][0]["text"]


def test_cli_text_report_and_stdin():
    r = _cli("-", input=(LOGS / "case-022.log").read_text())
    assert r.exit_code == 0
    assert "WEIGHTS" in r.stdout and "weights ledger" in r.stdout


def test_cli_several_files_and_engine_override():
    r = _cli(str(LOGS / "case-010.log"), str(LOGS / "case-029.log"), "--json", "--engine", "sglang")
    d = json.loads(r.stdout)
    assert [f["path"].rsplit("/", 1)[-1] for f in d["files"]] == ["case-010.log", "case-029.log"]
    assert d["engine"] == "sglang"


def test_cli_output_file_is_redacted(tmp_path):
    log = tmp_path / "x.log"
    log.write_text('  File "/home/alice/vllm/worker.py", line 3, in load_model\n'
                   "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB on host gpu-01 10.1.2.3\n")
    out = tmp_path / "report.txt"
    r = _cli(str(log), "-o", str(out))
    assert r.exit_code == 0
    text = out.read_text()
    assert "WEIGHTS" in text and "alice" not in text and "10.1.2.3" not in text
    assert "alice" in _cli(str(log)).stdout  # on screen, unredacted unless asked


@pytest.mark.parametrize("content", [b"", b"\x00\x01\x02binary\xff" * 100])
def test_cli_unreadable_exit_2(tmp_path, content):
    p = tmp_path / "bad.log"
    p.write_bytes(content)
    r = _cli(str(p))
    assert r.exit_code == 2 and "Traceback" not in r.output and str(p) in r.stderr


def test_cli_missing_file_exit_2():
    r = _cli("/no/such/file.log")
    assert r.exit_code == 2 and "cannot be read" in r.stderr


def test_cli_model_check():
    r = _cli(str(LOGS / "case-001.log"), "--model", "meta-llama/Meta-Llama-3.1-8B", "--json")
    notes = json.loads(r.stdout)["runs"][1]["model_check"]
    assert any("match the estimate" in n for n in notes), notes
    r = _cli(str(LOGS / "case-001.log"), "--model", "Qwen/Qwen2.5-7B-Instruct", "--json")
    notes = json.loads(r.stdout)["runs"][1]["model_check"]
    assert any("vs 57,344 estimated" in n for n in notes), notes


def test_cli_model_unknown_still_diagnoses(tmp_path, monkeypatch):
    """A --model that cannot be loaded (not cached, offline, or a bad path) loses only the comparison: the log's
    diagnosis is still printed, the model's error is a warning, and the exit code is 2 (bad input)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    missing = tmp_path / "no-such-model"
    r = _cli(str(LOGS / "case-001.log"), "--model", str(missing))
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "diagnosis" in r.stdout and "--model" in r.stderr and "without comparing" in r.stderr
    r = _cli(str(LOGS / "case-001.log"), "--model", str(missing), "--json")
    doc = json.loads(r.stdout)
    assert r.exit_code == 2 and doc["diagnosis"]["kind"] and any("--model" in w for w in doc["warnings"])


# --- files that are not logs, and gzip that is whole ------------------------------------------------------


def test_model_files_are_refused_at_once(tmp_path):
    """A GGUF or safetensors model passed to `logs` is named as such by its first bytes (a 63 MB model was
    once read as text for minutes and got a diagnosis from a chance 'oOM' in its bytes)."""
    import struct

    from tinygguf import write_model

    gguf = write_model(tmp_path / "m.gguf")
    st = tmp_path / "model.safetensors"
    header = b'{"w":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]}}'
    st.write_bytes(struct.pack("<Q", len(header)) + header + b"oOM out of memory" * 100)
    pkl = tmp_path / "pytorch_model.bin"
    pkl.write_bytes(b"\x80\x02}q\x00(X\x05\x00\x00\x00out of memory" * 50)
    zipped = tmp_path / "weights.pt"
    zipped.write_bytes(b"PK\x03\x04" + b"CUDA out of memory\n" * 100)
    for path, what in ((gguf, "GGUF model"), (st, "safetensors model"), (pkl, "pickle"), (zipped, "zip")):
        with pytest.raises(LogInputError, match=what):
            read_lines(str(path))
        r = _cli(str(path))
        assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert "vramdoctor estimate" in _cli(str(gguf)).stderr


def test_a_model_inside_gzip_is_refused_too(tmp_path):
    from tinygguf import write_model

    gz = tmp_path / "m.gguf.gz"
    gz.write_bytes(gzip.compress(write_model(tmp_path / "m.gguf").read_bytes()))
    with pytest.raises(LogInputError, match="GGUF"):
        read_lines(str(gz))


def test_whole_gzip_files_never_warn(tmp_path):
    raw = (LOGS / "case-029.log").read_bytes()
    one = tmp_path / "one.log.gz"
    one.write_bytes(gzip.compress(raw))
    two = tmp_path / "two.log.gz"  # `cat a.gz b.gz`: two members, both whole
    two.write_bytes(gzip.compress(raw[:500]) + gzip.compress(raw[500:]))
    for path in (one, two):
        warnings: list[str] = []
        lines = list(read_lines(str(path), warnings=warnings))
        assert warnings == [], path.name
        assert "\n".join(t for _, t in lines) == raw.decode().rstrip("\n")
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(gzip.compress(raw)[:-30])
    warnings = []
    list(read_lines(str(cut), warnings=warnings))
    assert warnings and "ends early" in warnings[0]


def test_archives_of_logs_are_named_with_how_to_unpack(tmp_path):
    """A tar (plain or gzipped) or a twice-gzipped log once read as text: its tar header became a first line
    of garbage, or the inner gzip's bytes were refused as an unnamed binary file."""
    import io
    import tarfile

    raw = (LOGS / "case-029.log").read_bytes()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("server.log")
        info.size = len(raw)
        tar.addfile(info, io.BytesIO(raw))
    tar_path, tgz, twice = tmp_path / "logs.tar", tmp_path / "logs.tar.gz", tmp_path / "server.log.gz.gz"
    tar_path.write_bytes(buf.getvalue())
    tgz.write_bytes(gzip.compress(buf.getvalue()))
    twice.write_bytes(gzip.compress(gzip.compress(raw)))
    for path, what in ((tar_path, "tar archive"), (tgz, "tar archive"), (twice, "compressed twice")):
        with pytest.raises(LogInputError, match=what):
            read_lines(str(path))
        r = _cli(str(path))
        assert r.exit_code == 2 and "Unpack it" in r.stderr, r.stderr


def test_a_hard_wrapped_log_is_joined_with_a_note_and_its_line_numbers(tmp_path):
    raw = (LOGS / "case-029.log").read_text()
    folded = "\n".join(line[i:i + 80] for line in raw.splitlines() for i in range(0, max(len(line), 1), 80)) + "\n"
    path = tmp_path / "folded.log"
    path.write_text(folded)
    warnings: list[str] = []
    lines = list(read_lines(str(path), warnings=warnings))
    assert warnings and "wrapped at 80 columns" in warnings[0]
    assert len(lines) == folded.count("\n")  # numbered as grep -n numbers the file
    longest = max(raw.splitlines(), key=len)
    assert any(t == longest for _, t in lines)
    plain: list[str] = []
    list(read_lines(str(LOGS / "case-029.log"), warnings=plain))
    assert plain == []


def test_follow_goes_on_in_the_new_file_after_a_rotation(tmp_path):
    """logrotate's default: the log is renamed and the server writes a new one at the same path."""
    import threading
    import time

    p = tmp_path / "server.log"
    p.write_text("INFO starting\n")

    def rotate():
        time.sleep(0.3)
        p.rename(tmp_path / "server.log.1")
        p.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n")

    threading.Thread(target=rotate).start()
    warnings: list[str] = []
    lines = list(read_lines(str(p), follow=True, poll_s=0.05, idle_stop_s=1.5, warnings=warnings))
    assert any("out of memory" in t for _, t in lines)
    assert any("rotated" in w for w in warnings)


def test_follow_on_a_pipe_ends_with_the_pipe():
    log = (LOGS / "case-029.log").read_bytes()
    r = subprocess.run([sys.executable, "-m", "vramdoctor", "logs", "-f", "-"], input=log, capture_output=True,
                       timeout=60)
    assert r.returncode == 0 and b"diagnosis" in r.stdout, r.stderr


def test_closed_stdin_is_a_clear_error():
    r = subprocess.run([sys.executable, "-m", "vramdoctor", "logs", "-"], stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=60)
    assert r.returncode == 2  # empty
    r = subprocess.run(f"{sys.executable} -m vramdoctor logs - <&-", shell=True, capture_output=True, timeout=60)
    assert r.returncode == 2 and b"standard input is closed" in r.stderr and b"Traceback" not in r.stderr


def test_the_report_never_overwrites_the_log_behind_stdin(tmp_path):
    p = tmp_path / "x.log"
    p.write_bytes((LOGS / "case-029.log").read_bytes())
    before = p.read_bytes()
    with p.open("rb") as f:
        r = subprocess.run([sys.executable, "-m", "vramdoctor", "logs", "-", "-o", str(p)], stdin=f,
                           capture_output=True, timeout=60)
    assert r.returncode == 2 and p.read_bytes() == before, r.stderr


def test_follow_takes_one_log():
    r = _cli("-f", str(LOGS / "case-029.log"), str(LOGS / "case-010.log"))
    assert r.exit_code == 2 and "one log at a time" in r.output


def test_json_lists_a_file_that_could_not_be_read(tmp_path):
    missing = str(tmp_path / "missing.log")
    r = _cli(str(LOGS / "case-029.log"), missing, "--json")
    assert r.exit_code == 2
    files = json.loads(r.stdout)["files"]
    assert [f["path"] for f in files] == [str(LOGS / "case-029.log"), missing] and "error" in files[1]


def test_an_unset_setting_is_not_a_value_named_none():
    rep = diagnose(numbered(["INFO 05-12 10:00:03 [api_server.py:1044] args: Namespace(model_tag='m', "
                             "quantization=None, enforce_eager=False, max_model_len=4096)"]))
    n = rep.runs[0].numbers
    assert "quantization" not in n and n.get("max_model_len") == 4096


# --- round 20: --follow on input that stays empty is empty input (exit 2), as without it --------------------------

def test_follow_on_a_file_that_stays_empty_is_empty_input(tmp_path):
    p = tmp_path / "empty.log"
    p.write_text("")
    with pytest.raises(LogInputError, match="is empty"):
        list(read_lines(str(p), follow=True, poll_s=0.05, idle_stop_s=0.3))


def test_follow_on_a_file_that_only_ever_gets_blank_lines_is_empty_input(tmp_path):
    import threading
    import time

    p = tmp_path / "blank.log"
    p.write_text("")

    def later():
        time.sleep(0.1)
        p.write_text("\n  \n\n")

    threading.Thread(target=later).start()
    with pytest.raises(LogInputError, match="only blank lines"):
        list(read_lines(str(p), follow=True, poll_s=0.05, idle_stop_s=0.6))


def _wait_for_handler(pid: int, sig: int, timeout: float = 60.0) -> None:
    """Wait until process `pid` catches `sig` (its bit in /proc/PID/status's SigCgt mask)."""
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            status = open(f"/proc/{pid}/status").read()
        except OSError:
            return
        caught = next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:")), 0)
        if caught & (1 << (sig - 1)):
            return
        time.sleep(0.05)


@pytest.mark.parametrize("json_out", [False, True])
def test_follow_stopped_on_an_empty_file_exits_2(tmp_path, json_out):
    import signal
    import time

    p = tmp_path / "empty.log"
    p.write_text("")
    proc = subprocess.Popen([sys.executable, "-m", "vramdoctor", "logs", "-f", str(p)] + (["--json"] if json_out else []),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for_handler(proc.pid, signal.SIGTERM)  # (a loaded machine may take longer than a fixed sleep to get there)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, (out, err)
    assert b"is empty" in err and b"NONE" not in out, (out, err)
    if json_out:
        assert "error" in json.loads(out) and json.loads(out)["path"] == str(p)


def test_follow_on_a_pipe_that_closes_empty_exits_2():
    r = subprocess.run([sys.executable, "-m", "vramdoctor", "logs", "-f", "-"], stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=60)
    assert r.returncode == 2 and b"is empty" in r.stderr and b"NONE" not in r.stdout, (r.stdout, r.stderr)


# --- round 20: with several files, --json's top level is the last file that could be read -------------------------

@pytest.mark.parametrize("order", [("a", "missing"), ("missing", "a"), ("a", "missing", "b"), ("b", "missing", "a")])
def test_json_top_level_is_the_last_readable_file(tmp_path, order):
    paths = {"a": str(LOGS / "case-029.log"), "b": str(LOGS / "case-010.log"), "missing": str(tmp_path / "missing.log")}
    r = _cli(*[paths[x] for x in order], "--json")
    assert r.exit_code == 2
    doc = json.loads(r.stdout)
    last = [x for x in order if x != "missing"][-1]
    assert doc["path"] == paths[last], doc["path"]
    mine = next(f for f in doc["files"] if f["path"] == paths[last])
    assert doc["diagnosis"] == mine["diagnosis"] and [f["path"] for f in doc["files"]] == [paths[x] for x in order
                                                                                           if x != "missing"] + \
        [paths["missing"]]


def test_json_with_no_readable_file_is_still_a_document(tmp_path):
    r = _cli(str(tmp_path / "one.log"), str(tmp_path / "two.log"), "--json")
    assert r.exit_code == 2
    doc = json.loads(r.stdout)
    assert [f["path"] for f in doc["files"]] == [str(tmp_path / "one.log"), str(tmp_path / "two.log")]
    assert all("error" in f for f in doc["files"]) and "diagnosis" not in doc
