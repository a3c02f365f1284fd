"""vLLM's rules by release (`--engine-version`): the serving defaults for tokens per step and sequences by
release and GPU, V0's profile length, and where recurrent state lives. Each expectation is a rule from
vLLM's `engine/arg_utils.py` per tag, cited in vramdoctor.engines.vllm."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import load_config
from vramdoctor.engines import Settings, get_engine
from vramdoctor.errors import UsageError
from vramdoctor.estimate import estimate
from vramdoctor.sources.hf_config import spec_from_config

GIB = 2**30
H100, A100, RTX4090 = (int(79.15 * GIB), "NVIDIA H100 80GB HBM3"), (int(79.15 * GIB), "NVIDIA A100-SXM4-80GB"), \
    (int(23.64 * GIB), "NVIDIA GeForce RTX 4090")
LLAMA = "meta-llama__Llama-3.1-8B-Instruct.json"


def resolved(version, gpu, name=LLAMA, **changes):
    model = spec_from_config(load_config(name), name=name)
    s = Settings(engine_version=version, device_name=gpu[1]).with_(**changes)
    r = get_engine("vllm").resolve(model, s, gpu[0])
    return r.max_num_batched_tokens, r.max_num_seqs


@pytest.mark.parametrize("version,gpu,expected", [
    ("0.10.1.1", H100, (8192, 1024)),
    ("0.10.1.1", A100, (2048, 256)),      # A100 excluded from 0.9.0 (PR #17885)
    ("0.8.5", A100, (8192, 1024)),        # by memory alone in 0.8.5 (PR #17073)
    ("0.8.4", A100, (2048, 256)),         # by name before 0.8.5 (PR #12369), 256 from 0.8.4 (PR #16158)
    ("0.8.3", A100, (2048, 1024)),        # V1 took 1024 sequences on every GPU before 0.8.4
    ("0.8.3", H100, (8192, 1024)),
    ("0.10.1.1", RTX4090, (2048, 256)),
    (None, H100, (8192, 1024)),           # the newest modelled release
])
def test_v1_serving_defaults_by_release_and_gpu(version, gpu, expected):
    assert resolved(version, gpu, max_model_len=16384) == expected


@pytest.mark.parametrize("version,max_model_len,name,step", [
    ("0.6.4", 20000, LLAMA, 20000),       # chunked prefill off: one step of max_model_len
    ("0.6.4", 1024, LLAMA, 2048),         # at least 2048
    ("0.6.4", 40000, LLAMA, 512),         # > 32000: chunked prefill on by default, 512 before 0.6.5
    ("0.6.5", 40000, LLAMA, 2048),        # 2048 from 0.6.5 (PR #10544)
    ("0.4.3", 40000, LLAMA, 40000),       # before 0.5.1 chunked prefill was never on by default
    ("0.6.4", 40000, "google__gemma-3-27b-it.json", 40000),  # not with sliding windows
])
def test_v0_profile_step(version, max_model_len, name, step):
    assert resolved(version, RTX4090, name, max_model_len=max_model_len) == (step, 256)


def test_given_settings_are_kept():
    assert resolved("0.10.1.1", H100, max_num_batched_tokens=1024, max_num_seqs=64) == (1024, 64)


def test_v0_keeps_recurrent_state_outside_the_pool_and_profiles_its_cache():
    """R04's Bamba under V0: the pool pages only the 3 attention layers; the Mamba cache of 256
    sequences is part of the profile's peak. Under V1 the state is paged in the pool per sequence."""
    model = spec_from_config(load_config("reconstructed__Bamba-9B.json"), name="bamba")
    rules = get_engine("vllm")
    state = 62287360  # 29 Mamba2 layers of conv + SSM state, bf16
    v0 = rules.resolve(model, Settings(engine_version="0.6.5", max_model_len=1024), H100[0])
    v1 = rules.resolve(model, Settings(engine_version="0.10.1", max_model_len=1024), H100[0])
    assert rules.kv_cache_bytes(model, v1, 1024, 1) - rules.kv_cache_bytes(model, v0, 1024, 1) == state
    peak_v0 = rules.budget(model, v0, H100[0]).overheads[0]
    peak_v1 = rules.budget(model, v1, H100[0]).overheads[0]
    assert peak_v0.bytes - peak_v1.bytes >= 256 * state - 2 * GIB
    assert "Mamba cache for 256 sequences" in peak_v0.assumption


def test_the_rules_used_are_named():
    model = spec_from_config(load_config(LLAMA), name="l")
    e = estimate(model, engine="vllm", settings=Settings(engine_version="0.6.4", max_model_len=20000),
                 gpu_bytes=RTX4090[0])
    assert e.engine_rules.startswith("vLLM 0.6.4 rules, V0 engine: 20000 tokens per step")
    newest = estimate(model, engine="vllm", settings=Settings(), gpu_bytes=RTX4090[0])
    assert "the newest modelled" in newest.engine_rules


def test_an_unreadable_version_is_refused():
    model = spec_from_config(load_config(LLAMA), name="l")
    with pytest.raises(UsageError, match="engine-version"):
        estimate(model, engine="vllm", settings=Settings(engine_version="latest"), gpu_bytes=RTX4090[0])


@pytest.mark.parametrize("version", ["0.1.0", "0.2.7", "v0.2.7"])
def test_a_release_older_than_the_oldest_modelled_is_refused_naming_it(version):
    """Review 3, defect 7: vLLM 0.1.0 got '0.1.0 rules' it has none of; the oldest release whose rules are modelled is
    named instead."""
    from vramdoctor.engines.vllm import OLDEST

    model = spec_from_config(load_config(LLAMA), name="l")
    with pytest.raises(UsageError, match=f"oldest release whose memory rules are modelled \\({OLDEST}\\)"):
        estimate(model, engine="vllm", settings=Settings(engine_version=version), gpu_bytes=RTX4090[0])
    assert estimate(model, engine="vllm", settings=Settings(engine_version=OLDEST), gpu_bytes=RTX4090[0]).starts


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_git_tag_with_its_v_is_the_release(engine):
    """Review 3, defect 9: vLLM's and SGLang's git tags carry a 'v' (v0.10.1): the same release as without it."""
    model = spec_from_config(load_config(LLAMA), name="l")
    tagged = estimate(model, engine=engine, settings=Settings(engine_version="v0.4.6"), gpu_bytes=RTX4090[0])
    plain = estimate(model, engine=engine, settings=Settings(engine_version="0.4.6"), gpu_bytes=RTX4090[0])
    assert tagged.engine_rules == plain.engine_rules and tagged.kv_pool_bytes == plain.kv_pool_bytes
    assert tagged.settings.engine_version == "0.4.6"


def test_cli_engine_version_changes_the_pool():
    """R02 from the config alone: 0.6.4 profiles the 29,000-token step, the newest release 2048 tokens."""
    config = Path(__file__).parent / "data" / "ground_truth" / "configs" / LLAMA
    base = [sys.executable, "-m", "vramdoctor", "estimate", str(config),
            "--gpu", "RTX-3090", "--max-model-len", "29000", "--json"]
    import json

    old = json.loads(subprocess.run(base + ["--engine-version", "0.6.4"], capture_output=True, text=True,
                                    check=True).stdout)
    new = json.loads(subprocess.run(base, capture_output=True, text=True, check=True).stdout)
    assert old["kv_pool_tokens"] == pytest.approx(23648, rel=0.02)  # what 0.6.4 printed (R02)
    assert new["kv_pool_tokens"] > old["kv_pool_tokens"] * 1.5
    assert old["engine_rules"].startswith("vLLM 0.6.4 rules")


# --- SGLang's default mem_fraction_static ------------------------------------------------------------

MIB = 2**20


@pytest.mark.parametrize("gpu_mib,tp,expected", [
    (24564, 1, 0.847),   # RTX 4090: 512 + 1.5 x 2048 + 2 x 24 + 128 = 3760 MiB reserved
    (81559, 1, 0.835),   # H100: 512 + 1.5 x 8192 + 2 x 256 + 128 = 13440
    (81559, 8, 0.818),   # H100, TP 8: cuda_graph_max_bs 512, 1024 for the parallel size
    (15360, 1, 0.757),   # T4: 512 + 3072 + 16 + 128
    (183359, 8, 0.852),  # B200: 512 + 1.5 x 16384 + 2 x 512 + 1024 = 27136
])
def test_sglang_default_fraction_from_reserved_memory(gpu_mib, tp, expected):
    from vramdoctor.engines.sglang import default_mem_fraction_static

    assert default_mem_fraction_static(gpu_mib * MIB, tp, (0, 5, 3)) == expected


def test_sglang_reserve_is_at_least_10_gib_on_large_gpus():
    from vramdoctor.engines.sglang import default_mem_fraction_static

    # a 2048-token chunked prefill reserves 4224 MiB on an H100; the floor makes it 10240
    assert default_mem_fraction_static(81559 * MIB, 1, (0, 5, 3), chunked_prefill_size=2048) == \
        round((81559 - 10240) / 81559, 3)


def test_sglang_fraction_before_0_5_3_is_the_table():
    from vramdoctor.engines.sglang import default_mem_fraction_static

    assert default_mem_fraction_static(81559 * MIB, 1, (0, 4, 9)) == 0.85
    assert default_mem_fraction_static(81559 * MIB, 4, (0, 4, 9)) == 0.87


def test_sglang_estimate_uses_the_versions_fraction():
    model = spec_from_config(load_config(LLAMA), name="l")
    new = estimate(model, engine="sglang", settings=Settings(), gpu_bytes=81559 * MIB)
    old = estimate(model, engine="sglang", settings=Settings(engine_version="0.4.9"), gpu_bytes=81559 * MIB)
    assert new.kv_pool_bytes < old.kv_pool_bytes
    assert "reserves" in new.engine_rules and "by GPU size" in old.engine_rules
    given = estimate(model, engine="sglang", settings=Settings(mem_fraction_static=0.9), gpu_bytes=81559 * MIB)
    assert "given" in given.engine_rules
