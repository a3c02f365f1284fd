"""probe's pure parts and its sources through fakes at their one module (NVML, amdsmi, nvidia-smi's output):
the analysis rules at their boundaries, prompts of an exact length, each engine's endpoints read from replies
shaped as ENGINES.md documents them (per version), the sampler's peak and bounded timeline."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from vramdoctor.engines import get
from vramdoctor.errors import SourceUnavailable
from vramdoctor.measure.reading import DeviceReading, Reading, SourceInfo
from vramdoctor.measure.sampler import Sampler
from vramdoctor.probing import analysis
from vramdoctor.probing.prompts import build

DATA = Path(__file__).parent / "data" / "probe"
MIB, GIB = 2**20, 2**30


def text(name: str) -> str:
    return (DATA / name).read_text()


# --- analysis ---------------------------------------------------------------------------------------------

def test_tolerance_is_16_mib_or_one_percent():
    assert analysis.tolerance(None) == 16 * MIB
    assert analysis.tolerance(1 * GIB) == 16 * MIB
    assert analysis.tolerance(10 * GIB) == int(0.01 * 10 * GIB)


def test_fit_needs_two_token_counts_and_a_rise_beyond_the_noise():
    assert analysis.fit_increments([(100, 5 * MIB)], 16 * MIB) is None
    assert analysis.fit_increments([(100, 5 * MIB), (100, 6 * MIB)], 16 * MIB) is None
    flat = analysis.fit_increments([(128, 8 * MIB), (2048, 9 * MIB), (8192, 8 * MIB)], 16 * MIB)
    assert flat is not None and not flat.grows
    grows = analysis.fit_increments([(128, 8 * MIB), (2048, 128 * MIB), (8192, 512 * MIB)], 16 * MIB)
    assert grows.grows and grows.r2 > 0.99
    assert grows.slope_bytes_per_token == pytest.approx(64 * 1024, rel=0.01)
    # a rise of exactly the tolerance is noise; one byte more per span is growth
    span = 1000
    at = analysis.fit_increments([(0, 0), (span, 16 * MIB)], 16 * MIB)
    over = analysis.fit_increments([(0, 0), (span, 16 * MIB + 1)], 16 * MIB)
    assert not at.grows and over.grows


def test_creeping_needs_a_rise_while_idle():
    flat = [(i * 0.1, 100 * MIB) for i in range(30)]
    assert analysis.creeping(flat, 100 * MIB, 100 * MIB, 16 * MIB)[0] is False
    rising = [(i * 0.1, 100 * MIB + i * 2 * MIB) for i in range(30)]
    leak, why = analysis.creeping(rising, 100 * MIB, rising[-1][1], 16 * MIB)
    assert leak and "rose" in why
    held = [(i * 0.1, 160 * MIB) for i in range(30)]  # memory kept after the request, but flat: no leak
    assert analysis.creeping(held, 160 * MIB, 160 * MIB, 16 * MIB)[0] is False
    assert analysis.creeping(rising[:5], 100 * MIB, 110 * MIB, 16 * MIB)[0] is False  # too few readings


def _verdict(**kw):
    base = dict(baseline_bytes=70 * GIB, peak_bytes=72 * GIB, limit_bytes=80 * GIB, pool_bytes=None,
                pre_reserves=True, fit=None, context_tokens=None, max_increment_bytes=2 * GIB)
    base.update(kw)
    return analysis.bottleneck(**base)


def test_bottleneck_with_a_known_pool_is_the_larger_ledger_near_the_limit():
    assert _verdict(pool_bytes=10 * GIB).bottleneck == "weights"  # 60 GiB of weights, 10 of pool
    assert _verdict(pool_bytes=50 * GIB).bottleneck == "kv_cache"
    far = _verdict(baseline_bytes=30 * GIB, peak_bytes=31 * GIB, pool_bytes=10 * GIB)
    assert far.bottleneck == "undetermined" and "neither" in far.reason
    # the boundary: 90% of the limit is near, one byte less is not
    assert _verdict(peak_bytes=int(0.9 * 80 * GIB), pool_bytes=10 * GIB).bottleneck == "weights"
    assert _verdict(peak_bytes=int(0.9 * 80 * GIB) - 1, pool_bytes=10 * GIB).bottleneck == "undetermined"


def test_bottleneck_without_a_pool():
    grows = analysis.Fit(slope_bytes_per_token=128 * 1024, intercept_bytes=0, r2=0.99, grows=True)
    v = _verdict(baseline_bytes=20 * GIB, peak_bytes=22 * GIB, pre_reserves=False, fit=grows, context_tokens=500_000)
    assert v.bottleneck == "kv_cache" and "projects" in v.reason
    small = _verdict(baseline_bytes=20 * GIB, peak_bytes=22 * GIB, pre_reserves=False, fit=grows, context_tokens=1000)
    assert small.bottleneck == "undetermined"
    flat = analysis.Fit(slope_bytes_per_token=1, intercept_bytes=0, r2=0.1, grows=False)
    assert _verdict(pre_reserves=False, fit=flat).bottleneck == "weights"  # small increments, baseline near
    assert _verdict(pre_reserves=True, fit=flat).bottleneck == "undetermined"  # the pool may be what fills B
    assert _verdict(limit_bytes=None).bottleneck == "undetermined"
    assert _verdict(baseline_bytes=None).bottleneck == "undetermined"


# --- prompts ----------------------------------------------------------------------------------------------

def test_prompts_have_the_exact_token_count_the_tokenizer_gives():
    def count(t: str) -> int:  # a tokenizer of about 3.5 characters a token
        return len(t.split()) + sum(len(w) // 4 for w in t.split())

    for n in (1, 7, 128, 2048):
        p = build(n, count, salt=1)
        assert p.exact and p.counted_tokens == count(p.text) and n - 1 <= p.counted_tokens <= n
    assert build(500, count, salt=0).text != build(500, count, salt=1).text  # no tier is another's prefix
    approx = build(100, None)
    assert not approx.exact and approx.counted_tokens is None and len(approx.text) == 400
    with pytest.raises(ValueError):
        build(0, count)


def test_prompts_grow_the_text_for_a_tokenizer_with_long_tokens():
    p = build(50, lambda t: len(t) // 40)  # 40 characters a token: the text must be repeated further
    assert p.exact and p.counted_tokens == 50


def test_a_tokenizer_whose_counts_are_not_credible_gives_an_approximate_prompt():
    under = build(50, lambda t: len(t) // 1000)  # a token per 1,000 characters: no tokenizer; no endless doubling
    assert not under.exact and len(under.text) == 200
    over = build(50, lambda t: len(t) * 10)  # ten tokens a character: the prefix would be empty
    assert not over.exact and over.text


# --- engines' endpoints -----------------------------------------------------------------------------------

def test_vllm_cache_config_info_by_version():
    e = get("vllm").endpoints
    v011 = e.kv_view({"/metrics": (200, text("vllm_metrics_0.11.txt"))})
    assert v011.tokens == 29052 * 16 and v011.figures["cache_dtype"] == "auto"
    assert "num_gpu_blocks x block_size" in v011.source and v011.figures["kv_cache_usage"] == 0.0
    v033 = e.kv_view({"/metrics": (200, text("vllm_metrics_0.33.txt"))})
    assert v033.tokens == 243200 and "kv_cache_size_tokens" in v033.source  # group-aware, not 9120 x 16
    v090 = e.kv_view({"/metrics": (200, text("vllm_metrics_0.9.0.txt"))})
    assert v090.tokens == 2048 * 16 and v090.figures["kv_cache_usage"] == 0.5  # the old gauge's name
    none = e.kv_view({"/metrics": (200, "# no engine series: --disable-log-stats\n")})
    assert none.tokens is None and "disable-log-stats" in none.note
    assert e.kv_view({}).tokens is None


def test_engines_recognise_their_own_replies_only():
    answers = {
        "vllm": {"/version": (200, '{"version": "0.11.0"}'),
                 "/v1/models": (200, '{"data": [{"id": "m", "owned_by": "vllm", "max_model_len": 8192}]}')},
        "sglang": {"/get_server_info": (200, text("sglang_server_info.json"))},
        "llamacpp": {"/props": (200, text("llamacpp_props.json"))},
        "tgi": {"/info": (200, text("tgi_info.json"))},
        "ollama": {"/api/version": (200, '{"version": "0.12.6"}')},
        "llama-cpp-python": {"/openapi.json": (200, json.dumps({"info": {"title": "\U0001F999 llama.cpp Python API",
                                                                         "version": "0.3.16"}}))},
    }
    versions = {"vllm": "0.11.0", "sglang": "0.5.4", "llamacpp": "b6895-9f0af3e7", "tgi": "3.3.4", "ollama": "0.12.6",
                "llama-cpp-python": "0.3.16"}
    for name, a in answers.items():
        assert get(name).endpoints.recognise(a) == versions[name], name
        for other, b in answers.items():
            if other != name:
                assert get(name).endpoints.recognise(b) is None, (name, other)
    html = {p: (200, "<html>hello</html>") for p in ("/version", "/v1/models", "/props", "/info", "/api/version")}
    assert all(get(n).endpoints.recognise(html) is None for n in answers)


def test_sglang_llamacpp_tgi_ollama_pools():
    sg = get("sglang").endpoints.kv_view({"/server_info": (404, ""), "/get_server_info": (200,
                                                                                          text("sglang_server_info.json"))})
    assert sg.tokens == 1064912 and sg.figures["mem_fraction_static"] == 0.871 and "get_server_info" in sg.source
    one = get("llamacpp").endpoints.kv_view({"/props": (200, text("llamacpp_props.json"))})
    assert one.tokens == 4096 and one.figures["model_path"] == "/models/tiny.gguf"
    props = json.loads(text("llamacpp_props.json"))
    props["total_slots"] = 4
    four = get("llamacpp").endpoints.kv_view({"/props": (200, json.dumps(props))})
    assert four.tokens is None and four.candidates == (16384, 4096)  # unified or not: /props does not say
    tgi = get("tgi").endpoints.kv_view({"/metrics": (200, text("tgi_metrics.txt")), "/info": (200, text("tgi_info.json"))})
    assert tgi.tokens == 131072
    ol = get("ollama").endpoints.kv_view({"/api/ps": (200, text("ollama_ps.json"))})
    assert ol.tokens is None and ol.figures["context_length"] == 4096 and ol.figures["size_vram_bytes"] == 3550451712


def test_the_log_settles_llama_cpp_cells_only_among_the_candidates():
    from vramdoctor.engines.interface import KvView
    from vramdoctor.probing.engine_view import pool

    view = KvView(candidates=(16384, 4096), figures={"slots": 4})
    p = pool(get("llamacpp"), view, {"kv_cells": 4096, "kv_buffer_bytes_by_device": {"CPU": 32 * MIB}}, {}, None)
    assert p.tokens == 4096 and p.bytes_ == 32 * MIB
    odd = pool(get("llamacpp"), view, {"kv_cells": 1000}, {}, None)  # a log of another run: not taken
    assert odd.tokens is None and odd.bytes_ is None and "no log" not in odd.reason
    estimated = pool(get("vllm"), KvView(tokens=1000, source="GET /metrics"), None, None, 131072)
    assert estimated.bytes_ == 1000 * 131072 and "estimate" in estimated.source


# --- sources through fakes at their one module --------------------------------------------------------------

class _NVMLError(Exception):
    pass


def fake_nvml(*, v2: bool = True, procs=None, total=80 * GIB, used=20 * GIB, fail_init=False):
    """A pynvml stand-in with nvidia-ml-py's documented shapes: c_nvmlMemory_v2_t {version, total, reserved,
    free, used}; process infos {pid, usedGpuMemory} (None where NVML says N/A)."""
    procs = procs if procs is not None else {0: [(4242, 18 * GIB), (7, 1 * GIB)]}

    def mem(h, version=None):
        if version is not None and not v2:
            raise _NVMLError("Function Not Found")
        return SimpleNamespace(total=total, reserved=512 * MIB, free=total - used, used=used)

    def init():
        if fail_init:
            raise _NVMLError("Driver Not Loaded")

    return SimpleNamespace(
        NVMLError=_NVMLError, nvmlMemory_v2=0x02000028, nvmlInit=init, nvmlShutdown=lambda: None,
        nvmlDeviceGetCount=lambda: len(procs), nvmlDeviceGetHandleByIndex=lambda i: i,
        nvmlDeviceGetName=lambda h: b"NVIDIA H100 80GB HBM3", nvmlDeviceGetMemoryInfo=mem,
        nvmlDeviceGetComputeRunningProcesses=lambda h: [SimpleNamespace(pid=p, usedGpuMemory=b) for p, b in procs[h]],
        nvmlDeviceGetGraphicsRunningProcesses=lambda h: [],
    )


def test_nvml_process_share_and_device_use(monkeypatch):
    from vramdoctor.measure import nvml

    monkeypatch.setattr(nvml, "_load", lambda: fake_nvml(procs={0: [(4242, 18 * GIB), (7, GIB)], 1: [(4243, 5 * GIB)]}))
    src = nvml.NvmlSource(lambda: {4242, 4243})
    r = src.read()
    assert r.basis == "process" and r.bytes == 23 * GIB
    assert r.measured("device") == 40 * GIB and r.devices[0].name == "NVIDIA H100 80GB HBM3"
    assert r.total_bytes == 160 * GIB


def test_nvml_wddm_and_host_pids_fall_back_with_a_reason(monkeypatch):
    from vramdoctor.measure import nvml

    monkeypatch.setattr(nvml, "_load", lambda: fake_nvml(procs={0: [(4242, None)]}))
    r = nvml.NvmlSource(lambda: {4242}).read()
    assert r.bytes is None and "WDDM" in r.devices[0].process_note and r.measured("device") == 20 * GIB
    monkeypatch.setattr(nvml, "_load", lambda: fake_nvml(procs={0: [(99999, 18 * GIB)]}))  # host PIDs in a container
    r = nvml.NvmlSource(lambda: {4242}).read()
    assert r.bytes == 0 and "namespace" in r.devices[0].process_note


def test_nvml_v1_only_driver_and_no_driver(monkeypatch):
    from vramdoctor.measure import nvml

    monkeypatch.setattr(nvml, "_load", lambda: fake_nvml(v2=False))
    src = nvml.NvmlSource(lambda: None)
    assert src.read().bytes == 20 * GIB and any("v1" in n for n in src.info.notes)
    monkeypatch.setattr(nvml, "_load", lambda: fake_nvml(fail_init=True))
    with pytest.raises(SourceUnavailable, match="Driver Not Loaded"):
        nvml.NvmlSource(lambda: None)


def test_nvidia_smi_csv(monkeypatch):
    from vramdoctor.measure import nvidia_smi

    outputs = {"gpu": text("nvidia_smi_gpus.csv"), "app": text("nvidia_smi_apps.csv")}
    monkeypatch.setattr(nvidia_smi, "_run", lambda b, args: outputs["gpu" if "gpu=" in args[0] else "app"])
    src = nvidia_smi.NvidiaSmiSource(lambda: {4242, 4250}, binary="/x/nvidia-smi")
    r = src.read()
    assert r.bytes == (21904 + 512) * MIB and r.measured("device") == (22817 + 412) * MIB
    assert r.devices[0].total_bytes == 24564 * MIB and r.devices[0].name == "NVIDIA GeForce RTX 4090"
    outputs["app"] = text("nvidia_smi_apps_wddm.csv")
    r = src.read()
    assert r.bytes is None and "[N/A]" in r.devices[0].process_note
    with pytest.raises(SourceUnavailable):
        nvidia_smi.parse_gpus("Failed to initialize NVML: Driver/library version mismatch")


def fake_amdsmi(vram_used=30 * GIB):
    class AmdSmiException(Exception):
        pass

    return SimpleNamespace(
        AmdSmiException=AmdSmiException, AmdSmiMemoryType=SimpleNamespace(VRAM=0),
        amdsmi_init=lambda: None, amdsmi_shut_down=lambda: None, amdsmi_get_processor_handles=lambda: ["h0"],
        amdsmi_get_gpu_asic_info=lambda h: {"market_name": "AMD Instinct MI300X"},
        amdsmi_get_gpu_memory_total=lambda h, t: 192 * GIB, amdsmi_get_gpu_memory_usage=lambda h, t: vram_used,
        # amdsmi 7.0.2: a list of dicts; memory_usage in bytes; `mem` sums every memory type (not VRAM alone)
        amdsmi_get_gpu_process_list=lambda h: [
            {"name": "python3", "pid": 51, "mem": 29 * GIB, "memory_usage": {"gtt_mem": GIB, "cpu_mem": 0,
                                                                           "vram_mem": 28 * GIB}},
            {"name": "other", "pid": 52, "mem": GIB, "memory_usage": {"gtt_mem": 0, "cpu_mem": 0, "vram_mem": GIB}}],
    )


def test_amdsmi_reads_bytes_and_vram_only(monkeypatch):
    from vramdoctor.measure import amd

    monkeypatch.setattr(amd, "_load", lambda: fake_amdsmi())
    r = amd.AmdSource(lambda: {51}).read()
    assert r.bytes == 28 * GIB and r.measured("device") == 30 * GIB
    assert r.devices[0].name == "AMD Instinct MI300X" and r.total_bytes == 192 * GIB


def test_dcgm_page_parse():
    from vramdoctor.measure.dcgm import parse

    devs = parse(text("dcgm_metrics.txt"))
    assert [d.index for d in devs] == [0, 1] and devs[0].used_bytes == 79813 * MIB
    assert devs[0].total_bytes == (79813 + 1234 + 512) * MIB and devs[0].host == "node-1"
    assert parse(text("dcgm_metrics.txt"), hostname="node-1")[1].used_bytes == 1047 * MIB
    with pytest.raises(SourceUnavailable, match="no DCGM_FI_DEV_FB_USED"):
        parse("# nothing here\nup 1\n")
    with pytest.raises(SourceUnavailable):
        parse(text("dcgm_metrics.txt"), hostname="node-9")


# --- the sampler ------------------------------------------------------------------------------------------

class ListSource:
    """Readings from a list (the sampler's interface, not a device); then the last one forever."""

    def __init__(self, values, fail_at=()):
        self.values, self.i, self.fail_at = list(values), 0, set(fail_at)
        self.info = SourceInfo(name="list", basis="process")

    def read(self) -> Reading:
        i = min(self.i, len(self.values) - 1)
        self.i += 1
        if i in self.fail_at:
            raise SourceUnavailable("list", "a failing reading")
        dev = DeviceReading(index=0, name="d", total_bytes=GIB, used_bytes=self.values[i] + 1,
                            process_bytes=self.values[i])
        return Reading(t_s=float(self.i), devices=(dev,), basis="process")

    def close(self) -> None:
        pass


def test_sampler_keeps_the_exact_peak_in_a_bounded_timeline():
    values = [10] * 500 + [999] + [10] * 500
    src = ListSource(values)
    s = Sampler(src, max_points=32)
    for _ in values:
        s.read_now()
    s.stop()
    assert s.peak("process") == 999 and s.peak("device") == 1000
    assert len(s.points) <= 32 and max(b for _, b in s.timeline("process")) == 999  # merged, never lost


def test_sampler_windows_and_failures():
    src = ListSource([5, 6, 50, 7, 8], fail_at={3})
    s = Sampler(src)
    s.read_now()
    with s.window("request") as w:  # reads 6 on entry
        s.read_now()  # 50
        with pytest.raises(SourceUnavailable):
            s.read_now()  # the failing one: counted, no point
    assert w.peak["process"] == 50 and w.samples == 3  # 6, 50, and 8 on exit
    assert s.failures == 1 and s.last_failure == "a failing reading"
    assert all(v is not None for _, v in s.timeline("process"))
    assert ("request" in [label for _, label in s.marks])


def test_sampler_thread_runs_and_stops():
    s = Sampler(ListSource([1, 2, 3]), interval_s=0.005)
    with s:
        import time

        time.sleep(0.1)
    assert s.readings >= 5 and s.cpu_s >= 0 and s.achieved_interval_s is not None
    with pytest.raises(ValueError):
        Sampler(ListSource([1]), interval_s=0)


def fake_torch():
    """torch.cuda's counters as PyTorch documents them (bytes): memory_allocated, memory_reserved,
    max_memory_allocated since reset_peak_memory_stats."""
    state = {"alloc": 3 * GIB, "reserved": 4 * GIB, "peak": 3 * GIB}

    def reset(d):
        state["peak"] = state["alloc"]

    cuda = SimpleNamespace(
        is_available=lambda: True, device_count=lambda: 1, memory_allocated=lambda d: state["alloc"],
        memory_reserved=lambda d: state["reserved"], max_memory_allocated=lambda d: state["peak"],
        reset_peak_memory_stats=reset, get_device_name=lambda d: "NVIDIA H100 80GB HBM3",
        get_device_properties=lambda d: SimpleNamespace(total_memory=80 * GIB))
    return SimpleNamespace(cuda=cuda), state


def test_torch_allocator_counters(monkeypatch):
    from vramdoctor.measure import torch_alloc

    torch, state = fake_torch()
    monkeypatch.setattr(torch_alloc, "_load", lambda: torch)
    src = torch_alloc.TorchSource()
    state["peak"] = 7 * GIB
    (c,) = src.counters()
    assert (c.allocated_bytes, c.reserved_bytes, c.peak_allocated_bytes, c.cached_bytes) == (3 * GIB, 4 * GIB,
                                                                                             7 * GIB, GIB)
    src.reset_peak()
    assert src.counters()[0].peak_allocated_bytes == 3 * GIB
    assert src.read().bytes == 4 * GIB and src.read().total_bytes == 80 * GIB


def test_auto_source_says_what_it_passed_over(monkeypatch):
    from vramdoctor.measure import amd, nvml, open_source

    monkeypatch.setattr(nvml, "_load", lambda: fake_nvml(fail_init=True))
    monkeypatch.setattr(amd, "_load", lambda: (_ for _ in ()).throw(SourceUnavailable("amdsmi", "not installed")))
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SourceUnavailable) as e:
        open_source("auto", tree=None)
    assert "Driver Not Loaded" in e.value.reason and "nvidia-smi is not on PATH" in e.value.reason
    assert "psutil" in e.value.reason  # no process to watch either


# --- the command line: bad options are refused before anything runs --------------------------------------

@pytest.mark.parametrize("argv,words", [
    (["--url", "localhost:8000"], "not an http(s) URL"),
    (["--url", "http://127.0.0.1:1", "--tiers", "0,128"], "out of range"),
    (["--url", "http://127.0.0.1:1", "--tiers", "abc"], "--tiers"),
    (["--url", "http://127.0.0.1:1", "--rest", "-1"], "--rest"),
    (["--url", "http://127.0.0.1:1", "--plot", "/nonexistent-dir/x.png"], "does not exist"),
    (["--url", "http://127.0.0.1:1", "--source", "dcgm"], "--dcgm-url"),
    (["--url", "http://127.0.0.1:1", "--limit", "24"], "has no unit"),
    (["--url", "http://127.0.0.1:1", "--serve", "'unbalanced"], "quotes"),
    (["--url", "http://127.0.0.1:1", "--serve", "/nonexistent/llama-server -m x --port {port}"], "not a program"),
    (["--url", "http://127.0.0.1:1", "--serve", "llama-server -m x"], "does not listen on the URL's port"),
    (["--url", "http://127.0.0.1:1", "--output-tiers", "0"], "--output-tiers"),
    (["--url", "http://127.0.0.1:1", "--pid", "-5"], "not a process ID"),
    (["--url", "http://127.0.0.1:1", "--devices", "a"], "--devices"),
    (["--url", "http://127.0.0.1:1", "--log", "/nonexistent.log"], "--log"),
    (["--url", "http://127.0.0.1:1", "--plot", "/tmp"], "a folder"),
])
def test_probe_usage_errors(argv, words, tmp_path):
    from clirun import CliRunner
    from vramdoctor.cli import run

    res = CliRunner().invoke(run, ["probe", *argv, "--results-dir", str(tmp_path)])
    assert res.exception is None and res.exit_code == 2, (res.stdout, res.stderr)
    assert words in res.stdout + res.stderr and "Traceback" not in res.stderr
    assert not list(tmp_path.iterdir())  # no empty log of a server that never started


def test_nothing_measured_writes_no_plot_and_no_python_warning(tmp_path):
    """A server that is not there: the error paragraph, and no empty picture with matplotlib's legend warning."""
    pytest.importorskip("matplotlib")
    from clirun import CliRunner
    from vramdoctor.cli import run

    png = tmp_path / "x.png"
    res = CliRunner().invoke(run, ["probe", "--url", "http://127.0.0.1:1", "--source", "psutil", "--pid",
                                   str(os.getpid()), "--plot", str(png), "--ready-timeout", "0.5", "--results-dir", str(tmp_path)])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert not png.exists() and "no plot written: nothing was measured" in res.stderr
    assert "Warning" not in res.stderr and "Traceback" not in res.stderr


def test_an_error_and_its_hint_are_two_sentences():
    from vramdoctor.errors import VramdoctorError

    assert str(VramdoctorError("no process has PID 9", hint="Give --pid.")) == "no process has PID 9. Give --pid."
    assert str(VramdoctorError("needs matplotlib.", hint="pip install x")) == "needs matplotlib. pip install x"
    assert str(VramdoctorError("bad:", hint="x")) == "bad: x"
