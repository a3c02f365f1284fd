"""vLLM's profile run by sampler backend and MoE kernel (engines/vllm_profile.py, research/vllm_moe.md): the sampler
warm-up at 14 bytes per logit with FlashInfer and 38 on the PyTorch sort path, undetermined between them where the
install decides; mxfp4 experts in Marlin's padded layout where that kernel is the only one."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import load_config
from pool_table import cases, row
from vramdoctor.engines import Settings
from vramdoctor.engines.base import moe_activation_estimate
from vramdoctor.estimate import estimate
from vramdoctor.gpus import find_gpu
from vramdoctor.sources.hf_config import spec_from_config

GIB = 2**30
A100 = find_gpu("A100-80GB")


def qwen2():
    return spec_from_config(load_config("Qwen__Qwen2-7B-Instruct.json"), name="Qwen2-7B")


def gpt_oss():
    return spec_from_config(load_config("openai__gpt-oss-120b.config.json"), name="gpt-oss-120b")


def on(gpu: str, **changes):
    g = find_gpu(gpu)
    return Settings(device_name=g.name, **changes), g.memory_bytes


def peak(e):
    return next(o for o in e.overheads if o.name == "activation peak")


def unsure(e):
    return {o.name: o for o in e.uncertain}


def test_the_sampler_peak_is_its_backends_bytes_per_logit_beside_the_hidden_states():
    """Qwen2-7B on an A100 with 0.10.1.1's defaults: 256 requests of 152,064 logits after a 2048-token step; the
    sampler outweighs the forward pass, so the peak is b x R x V + 2 x hidden x (T + 2R)."""
    got = {}
    for backend in ("flashinfer", "pytorch"):
        s, gpu = on("A100-80GB", engine_version="0.10.1.1", max_model_len=16384, sampler=backend)
        e = estimate(qwen2(), settings=s, gpu_bytes=gpu)
        got[backend] = peak(e).bytes
        assert "sampler profile" not in unsure(e)
        assert backend in peak(e).assumption
    hidden = 2 * 3584 * (2048 + 2 * 256)
    assert got["flashinfer"] == 14 * 256 * 152064 + hidden
    assert got["pytorch"] == 38 * 256 * 152064 + hidden


@pytest.mark.parametrize("gpu,version,seqs", [("A100-80GB", "0.10.1.1", 256), ("H100-80GB", "0.11.0", 1024),
                                              ("RTX-4090", "0.9.2", 256)])
def test_an_unknown_install_is_undetermined_between_the_two_and_says_what_settles_it(gpu, version, seqs):
    s, mem = on(gpu, engine_version=version, max_model_len=8192)
    e = estimate(qwen2(), settings=s, gpu_bytes=mem)
    u = unsure(e)["sampler profile"]
    assert u.bytes == 24 * seqs * 152064  # the sort path's 38 B against FlashInfer's 14, both above the forward pass
    for words in ("14 B/logit", "38 B/logit", "Using FlashInfer for top-p & top-k sampling", "--sampler"):
        assert words in u.assumption
    assert "sampler undetermined" in e.engine_rules


def test_off_cuda_the_pytorch_path_is_the_only_one():
    s, mem = on("MI300X", max_model_len=8192)
    e = estimate(qwen2(), settings=s, gpu_bytes=mem)
    assert "sampler profile" not in unsure(e) and "sampler PyTorch" in e.engine_rules
    assert peak(e).bytes >= 38 * 1024 * 152064


def test_a_forward_pass_larger_than_either_sampler_leaves_nothing_undetermined():
    s, mem = on("H100-80GB", max_model_len=32768, max_num_seqs=1, max_num_batched_tokens=32768)
    e = estimate(qwen2(), settings=s, gpu_bytes=mem)
    assert "sampler profile" not in unsure(e)
    assert "forward pass" in peak(e).assumption


def test_releases_before_0_9_2_keep_the_older_estimate():
    """Their accounting (V1 before PR #19312, V0) was not read: the fp32 logits modelled, the sort path uncertain."""
    s, mem = on("A100-80GB", engine_version="0.8.5", max_model_len=8192)
    e = estimate(qwen2(), settings=s, gpu_bytes=mem)
    reqs = e.settings.max_num_seqs
    assert unsure(e)["sampler profile"].bytes == reqs * 152064 * 32
    assert "sampler" not in e.engine_rules.split("profiled")[-1]


def test_the_cli_takes_the_backend():
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    args = [sys.executable, "-m", "vramdoctor", "estimate", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100-80GB", "--json"]
    fi = json.loads(subprocess.run(args + ["--sampler", "flashinfer"], capture_output=True, text=True, env=env).stdout)
    pt = json.loads(subprocess.run(args + ["--sampler", "pytorch"], capture_output=True, text=True, env=env).stdout)
    assert "sampler FlashInfer" in fi["engine_rules"] and "sampler PyTorch" in pt["engine_rules"]
    assert pt["overhead_bytes"] - fi["overhead_bytes"] == 24 * 1024 * 152064
    bad = subprocess.run(args + ["--sampler", "triton"], capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "--sampler" in bad.stderr and "Traceback" not in bad.stderr


# --- mxfp4 experts: Marlin's padding where Marlin is the only kernel ----------------------------------------

def marlin_padding(tp):
    per = 2880 // tp
    padded = -(-per // 128) * 128 * 3072
    return int(36 * 128 * 3 * per * 2880 * (0.5 + 1 / 32) * (padded / (per * 2880) - 1))


def test_below_hopper_marlin_pads_the_experts_and_the_weights_say_so():
    """R18: gpt-oss-120b under TP 4 on A100s printed 'Model loading took 17.2217 GiB'."""
    s, mem = on("A100-80GB", engine_version="0.10.1.1", tensor_parallel_size=4, max_model_len=16384)
    e = estimate(gpt_oss(), settings=s, gpu_bytes=mem)
    assert "mxfp4 expert padding" not in unsure(e)
    assert e.weights_bytes == gpt_oss().weights.total_bytes // 4 + marlin_padding(4)
    assert e.weights_bytes / GIB == pytest.approx(17.2217, rel=0.01)
    assert "Marlin's layout" in e.weights_source


@pytest.mark.parametrize("gpu,version", [("H100-80GB", "0.11.0"), ("B200", "0.11.0"), ("A100-80GB", "0.9.2")])
def test_where_the_install_or_release_decides_the_padding_stays_undetermined(gpu, version):
    s, mem = on(gpu, engine_version=version, max_model_len=16384)
    e = estimate(gpt_oss(), settings=s, gpu_bytes=mem)
    assert unsure(e)["mxfp4 expert padding"].bytes == marlin_padding(1)
    assert "Using Marlin backend" in unsure(e)["mxfp4 expert padding"].assumption
    assert e.weights_bytes == gpt_oss().weights.total_bytes
    given = estimate(gpt_oss(), settings=s.with_(mxfp4_backend="marlin"), gpu_bytes=mem)
    assert given.weights_bytes == e.weights_bytes + marlin_padding(1) and not given.uncertain[1:]


# --- the records --------------------------------------------------------------------------------------------

def _row(rid):
    return row(next(c for c in cases() if c["id"] == rid))


@pytest.mark.parametrize("rid", ["R13", "R14", "R15", "R18"])
def test_the_flashinfer_records_stay_within_one_percent(rid):
    r = _row(rid)
    assert not r.not_modelled and abs(r.error) <= 0.011, r


def test_r21_weights_and_profile_within_half_a_percent_its_small_pool_not():
    """R21 (pip 0.11.0: PyTorch sampler, Marlin): what the weights and the profile took is predicted within 0.5%, but
    the 1.71 GiB pool left over is +19%: named, not modelled."""
    c = next(c for c in cases() if c["id"] == "R21")
    g = find_gpu(c["gpu"])
    m = spec_from_config(load_config(c["config"]), name="gpt-oss-120b")
    e = estimate(m, settings=Settings(engine_version=c["engine_version"], device_name=g.name).with_(**c["settings"]),
                 gpu_bytes=g.memory_bytes)
    taken = e.weights_bytes + e.overhead_bytes
    assert taken / (e.budget_bytes - 1.71 * GIB) == pytest.approx(1, abs=0.005)
    r = _row("R21")
    assert r.not_modelled and "+19%" in r.not_modelled and 0.15 < r.error < 0.25


def test_r07_names_what_stays_unexplained_and_the_run_that_would_settle_it():
    c = next(c for c in cases() if c["id"] == "R07")
    for words in ("2.5 GiB", "LMCache", "TP 4", "profiling run", "--max-num-seqs 256", "sampler"):
        assert words in c["not_modelled"]


def qwen3_moe():
    return spec_from_config(load_config("Qwen__Qwen3-235B-A22B.config.json"), name="Qwen3-235B-A22B")


def test_the_fused_moe_buffers_are_the_forward_peak_where_they_outweigh_the_sampler():
    """Qwen3-235B-A22B at TP 4 (top-k 8, expert I 1536, H 4096): the fused-MoE caches of a 32,768-token step are
    32768 x 8 x (max(768, 4096) + 384) x 2 bytes beside the 3 x H residual stream (fused_experts_impl); with one
    sequence the sampler is tiny, so they are the profile's peak; with 8,192 tokens they are 0.50 + 0.05 GiB."""
    m = qwen3_moe()
    assert m.num_experts_per_tok == 8
    s, gpu = on("H100-80GB", engine_version="0.10.1.1", tensor_parallel_size=4, max_model_len=32768,
                max_num_batched_tokens=32768, max_num_seqs=1, sampler="flashinfer")
    e = estimate(m, settings=s, gpu_bytes=gpu)
    moe = 32768 * 8 * (4096 + 384) * 2 + 32768 * 3 * 4096 * 2
    assert peak(e).bytes == moe
    small = moe_activation_estimate(m, 8192, 4) - 8192 * 3 * 4096 * 2
    assert round(8192 * 8 * 4096 * 2 / GIB, 2) == 0.5 and small == 8192 * 8 * (4096 + 384) * 2
    # a dense model has no such term, and a step past the chunk size is taken in chunks
    assert moe_activation_estimate(qwen2(), 8192, 1) == 0
    assert moe_activation_estimate(m, 65536, 4) == 32768 * 8 * (4096 + 384) * 2 + 65536 * 3 * 4096 * 2
