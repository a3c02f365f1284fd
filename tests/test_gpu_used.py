"""GPUs that differ in free memory (`--gpu-used RANK:SIZE`): each engine's rule, by release, for memory other
processes already hold on some of the server's GPUs, and the rank that decides. Expectations are relations the
engines' rules imply (the pool less what another process holds, the check's boundary at one byte either side, a
split computed by hand from llama.cpp's formula), never figures copied from the output."""

from __future__ import annotations

import json
import math

import pytest

from clirun import CliRunner
from conftest import load_config
from vramdoctor.cli import run
from vramdoctor.engines import Settings, get_engine
from vramdoctor.engines import vllm_ranks
from vramdoctor.engines.llamacpp_split import device_layers
from vramdoctor.engines.sglang import CUDA_CONTEXT as SGLANG_CONTEXT
from vramdoctor.errors import UsageError
from vramdoctor.estimate import estimate
from vramdoctor.sources.catalog import read_catalog
from vramdoctor.sources.hf_config import spec_from_config

GIB = 2**30
MIB = 2**20
H100 = int(79.19 * GIB)


def qwen():
    return read_catalog("Qwen/Qwen2.5-7B-Instruct")


def llama8b():
    return spec_from_config(load_config("meta-llama__Llama-3.1-8B-Instruct.json"), name="llama")


def est(engine="vllm", gpu=H100, used=(), **kw):
    kw.setdefault("max_model_len", 8192)
    return estimate(qwen() if engine != "llamacpp" else llama8b(), engine=engine,
                    settings=Settings(gpu_used=tuple(used), **kw), gpu_bytes=gpu)


# --- vLLM: the others' memory in the pool (V1 0.8.0-0.9.0, V0 0.6.4, V0 up to 0.3.0) -----------------------------

@pytest.mark.parametrize("version", ["0.8.5", "0.9.0", "0.6.4", "0.3.0"])
def test_vllm_releases_that_measure_total_minus_free_lose_the_others_memory_from_the_pool(version):
    base = est(engine_version=version, tensor_parallel_size=2)
    e = est(engine_version=version, tensor_parallel_size=2, used=[(1, 2 * GIB)])
    assert e.kv_pool_bytes == base.kv_pool_bytes - 2 * GIB
    assert e.deciding_rank == 1
    rows = {r["rank"]: r for r in e.ranks}
    assert rows[0]["kv_pool_bytes"] == base.kv_pool_bytes and rows[1]["kv_pool_bytes"] == e.kv_pool_bytes
    assert rows[1]["used_bytes"] == 2 * GIB and rows[1]["free_bytes"] == H100 - 2 * GIB
    assert any(o.name.startswith("other processes") and o.bytes == 2 * GIB for o in e.overheads)
    assert "GPU 1" in " ".join(e.notes)


def test_vllm_the_rank_with_the_least_room_decides_over_several():
    e = est(engine_version="0.8.5", tensor_parallel_size=4, used=[(0, 1 * GIB), (3, 3 * GIB), (2, 2 * GIB)])
    assert e.deciding_rank == 3
    assert e.kv_pool_bytes == min(r["kv_pool_bytes"] for r in e.ranks)


def test_vllm_pipeline_stages_and_ranks_decide_together():
    """Rank = stage x tp + tensor rank (vLLM's global rank); a rank of the roomier stage can still decide when
    another process holds enough of its GPU."""
    plain = est(engine_version="0.8.5", tensor_parallel_size=2, pipeline_parallel_size=2)
    stage_pools = [r["kv_pool_bytes"] for r in plain.pipeline_stages]
    roomier = max(range(2), key=lambda k: stage_pools[k])
    rank = roomier * 2 + 1
    extra = abs(stage_pools[0] - stage_pools[1]) + GIB
    e = est(engine_version="0.8.5", tensor_parallel_size=2, pipeline_parallel_size=2, used=[(rank, extra)])
    assert e.deciding_rank == rank
    assert e.kv_pool_bytes == stage_pools[roomier] - extra
    assert {r["rank"]: r["stage"] for r in e.ranks} == {0: 1, 1: 1, 2: 2, 3: 2}


# --- vLLM from 0.9.1: the same pool, and a refusal below the request ----------------------------------------------

@pytest.mark.parametrize("version", ["0.9.1", "0.9.2", "0.11.0"])
def test_vllm_checks_each_gpus_free_memory_against_the_request(version):
    plain = est(engine_version=version, tensor_parallel_size=4)
    requested = int(H100 * 0.9)
    band = vllm_ranks.own_memory_at_snapshot_bytes(vllm_ranks.release_of(version), 4)
    # one byte below the request on GPU 3: refused, whatever vLLM's own context takes
    e = est(engine_version=version, tensor_parallel_size=4, used=[(3, H100 - requested + 1), (1, GIB)])
    assert e.starts is False and e.deciding_rank == 3
    assert e.kv_pool_bytes == plain.kv_pool_bytes  # the pool is sized from total x utilization on every rank
    assert "GPU 3" in e.answer and len(e.answer) <= 80
    assert not any(o.name.startswith("other processes") for o in e.overheads)
    # the request exactly: vLLM's own CUDA context (and NCCL, from 0.11) may still push it under: undetermined
    e = est(engine_version=version, tensor_parallel_size=4, used=[(3, H100 - requested)])
    assert e.starts is None and e.deciding_rank == 3 and "GPU 3" in e.answer
    # the request plus all its own memory can take: starts, with the plain pool, no rank deciding
    e = est(engine_version=version, tensor_parallel_size=4, used=[(3, H100 - requested - band)])
    assert e.starts is True and e.deciding_rank is None and e.kv_pool_bytes == plain.kv_pool_bytes
    assert len(e.ranks) == 4


@pytest.mark.parametrize("engine,used", [("vllm", 10 * GIB), ("sglang", 10 * GIB)])
def test_a_start_check_that_refuses_is_a_refused_verdict_with_no_capacity_claimed(engine, used):
    """Review 3, defect 4: vLLM's free-memory check and SGLang's balance check refuse whatever the pool holds, so the
    JSON verdict is 'refused' as the text says "does not start", every grid cell too, and no context or concurrency is
    said to fit; the text says why instead."""
    kw = dict(tensor_parallel_size=2, used=[(0, used)])
    e = estimate(qwen(), engine=engine, settings=Settings(gpu_used=((0, used),), tensor_parallel_size=2,
                                                          max_model_len=8192), gpu_bytes=H100,
                 grid=[(4096, 1), (32768, 8)])
    assert e.starts is False and e.refusal and e.verdict == "refused"
    assert all(c.verdict == "refused" and not c.starts for c in e.grid)
    assert e.max_model_len_fit == 0 and e.max_concurrency_fit == 0
    alone = est(engine, tensor_parallel_size=2)
    assert alone.verdict == "fits" and alone.max_model_len_fit > 0 and est(engine, **kw).verdict == "refused"
    r = cli("--engine", engine, "-tp", "2", "--gpu-used", f"0:{used // GIB}GiB")
    assert r.exit_code == 0 and "does not start" in r.stdout
    assert "largest max_model_len at" not in r.stdout and "most concurrent sequences at" not in r.stdout
    assert "none: the server does not start" in " ".join(r.stdout.split())
    d = json.loads(cli("--engine", engine, "-tp", "2", "--gpu-used", f"0:{used // GIB}GiB", "--json").stdout)
    assert d["verdict"] == "refused" and d["starts"] is False


def test_vllm_advises_the_utilization_that_starts_and_it_does():
    requested = int(H100 * 0.9)
    used = H100 - requested + 5 * GIB
    e = est(engine_version="0.11.0", tensor_parallel_size=2, used=[(1, used)])
    assert e.starts is False
    step = next(a for a in e.advice if a.flags.startswith("--gpu-memory-utilization"))
    u = float(step.flags.split()[1])
    band = vllm_ranks.own_memory_at_snapshot_bytes((0, 11, 0), 2)
    assert u == math.floor((H100 - used - band) / H100 * 100) / 100
    assert "GPU 1" in step.detail
    again = est(engine_version="0.11.0", tensor_parallel_size=2, used=[(1, used)], gpu_memory_utilization=u)
    assert again.starts is True


def test_vllm_releases_between_check_and_charge_size_the_pool_as_if_alone_and_fail_only_when_it_cannot_fit():
    """V0 0.6.5+ (memory_profiling with a baseline) and 0.3.1-0.6.3 (init_free - free): the others' memory is
    neither charged nor checked; the pool vLLM then allocates either fits beside it or does not."""
    for version in ("0.6.5", "0.5.4"):
        plain = est(engine_version=version)
        small = est(engine_version=version, used=[(0, GIB)])
        assert small.kv_pool_bytes == plain.kv_pool_bytes and small.starts is True and small.deciding_rank is None
        big = est(engine_version=version, used=[(0, H100 // 2)])
        assert big.kv_pool_bytes == plain.kv_pool_bytes and big.starts is False and big.deciding_rank == 0


def test_vllm_without_other_processes_is_unchanged():
    assert est().kv_pool_bytes == est(used=[]).kv_pool_bytes
    assert est().ranks == () and est().deciding_rank is None


# --- SGLang: the least free memory decides for all; very unbalanced GPUs refuse -----------------------------------

def test_sglang_sizes_every_rank_from_the_least_free_memory():
    """`profile_max_num_token` reads the minimum free memory over the ranks (distributed=True): the pool is the one
    a GPU with only that memory would get (the fraction given, so it does not move with the GPU's size)."""
    used = 3 * GIB
    e = est("sglang", tensor_parallel_size=2, mem_fraction_static=0.85, used=[(1, used)])
    smaller = est("sglang", gpu=H100 - used, tensor_parallel_size=2, mem_fraction_static=0.85)
    assert e.kv_pool_bytes == smaller.kv_pool_bytes and e.kv_pool_tokens == smaller.kv_pool_tokens
    assert e.deciding_rank == 1 and e.starts is True
    assert all(r["kv_pool_bytes"] == e.kv_pool_bytes for r in e.ranks)


def test_sglang_refuses_memory_this_unbalanced_at_its_threshold():
    """model_runner.py init_torch_distributed: every rank refuses when the least free memory over the ranks is below
    0.9 of its own (SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK, default on); free as SGLang reads it, after its context."""
    free_max = H100 - SGLANG_CONTEXT
    at = free_max - int(0.9 * free_max)  # used that leaves exactly 0.9 of the fullest free
    ok = est("sglang", tensor_parallel_size=2, used=[(0, at - MIB)])
    assert ok.starts is True
    bad = est("sglang", tensor_parallel_size=2, used=[(0, at + MIB)])
    assert bad.starts is False and bad.deciding_rank == 0 and "GPU 0" in bad.answer and len(bad.answer) <= 80
    assert any("INBALANCE_CHECK" in a.flags + a.detail for a in bad.advice)
    assert est("sglang", pipeline_parallel_size=2, used=[(0, at + MIB)]).starts is True  # the check is for TP > 1


# --- llama.cpp: the split follows free memory; the fullest GPU decides --------------------------------------------

def test_llamacpp_split_by_free_memory_by_hand():
    """load_tensors: splits = cumulative free / total free, layer il to upper_bound(splits, il / (n_layer + 1)).
    Three repeating layers and the output layer over free memory 3:1 -> splits [0.75, 1]: positions 0, .25 and .5
    go to GPU 0, .75 (the output layer) to GPU 1."""
    assert device_layers(3, 2, None, free=[3, 1]) == [[0, 1, 2], [3]]
    assert device_layers(3, 2, None, free=[1, 1]) == device_layers(3, 2, None)


def test_llamacpp_fewer_layers_on_the_gpu_another_process_uses_and_every_gpu_must_fit():
    plain = est("llamacpp", tensor_parallel_size=2, max_model_len=32768)
    e = est("llamacpp", tensor_parallel_size=2, max_model_len=32768, used=[(0, 30 * GIB)])
    rows = {r["rank"]: r for r in e.ranks}
    plain_first = device_layers(32, 2, None)[0]
    assert len(rows[0]["layers"]) < len(plain_first) < len(rows[1]["layers"])
    # the overheads shown hold the deciding GPU's others' memory; every GPU has its own beside the same buffers
    own = e.overhead_bytes - rows[e.deciding_rank]["used_bytes"]
    margins = {k: r["weights_bytes"] + r["kv_cache_bytes"] + own + r["used_bytes"] - H100 for k, r in rows.items()}
    assert e.deciding_rank == max(margins, key=lambda k: (margins[k], -k))
    assert (e.verdict == "fits") == all(m <= 0 for m in margins.values())
    assert plain.deciding_rank is None and plain.ranks == ()


@pytest.mark.parametrize("rank", [0, 1])
def test_llamacpp_kv_per_token_is_the_deciding_gpus_own_layers(rank):
    """Review 3, defect 2: with the split by free memory the KV per token is that of the layers the deciding GPU holds
    (the figure its KV cache row is made of), not of the layers an equal split would give it."""
    rules = get_engine("llamacpp")
    m = llama8b()
    e = est("llamacpp", tensor_parallel_size=2, max_model_len=4096, used=[(rank, 10 * GIB)])
    k = e.deciding_rank
    own = [i for i in e.ranks[k]["layers"] if i < m.num_decoder_layers]
    assert own != [i for i in device_layers(32, 2, None)[k] if i < m.num_decoder_layers]
    one_layer = rules.engine_bytes_per_token(m, Settings()) // m.num_decoder_layers
    assert e.kv_bytes_per_token == len(own) * one_layer
    assert e.kv_bytes_per_token * 4096 == e.kv_cache_bytes == e.ranks[k]["kv_cache_bytes"]


# --- the command line ---------------------------------------------------------------------------------------------

def cli(*args):
    return CliRunner().invoke(run, ["estimate", "Qwen/Qwen2.5-7B-Instruct", *args])


def test_cli_reads_ranks_and_sizes_and_reports_them():
    r = cli("--gpu", "H100-80GB", "-tp", "4", "--engine-version", "0.8.5", "--gpu-used", "0:2GiB,3:1.5GiB", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["settings"]["gpu_used"] == [[0, 2 * GIB], [3, int(1.5 * GIB)]]
    assert d["deciding_rank"] == 0 and [x["rank"] for x in d["ranks"]] == [0, 1, 2, 3]
    text = cli("--gpu", "H100-80GB", "-tp", "4", "--engine-version", "0.8.5", "--gpu-used", "0:2GiB,3:1.5GiB")
    assert "GPU 0" in text.stdout


@pytest.mark.parametrize("value,why", [
    ("0-2GiB", "RANK:SIZE"), ("x:2GiB", "RANK:SIZE"), ("0:2", "no unit"), ("4:1GiB", "ranks 0-3"),
    ("1:1GiB,1:2GiB", "twice"), ("0:80GiB", "at least"), ("", "RANK:SIZE"), ("0:1GiB,", "RANK:SIZE"),
    ("9" * 5000 + ":1GiB", "any server's"), ("0:1GiB:2", "memory size"),
])
def test_cli_refuses_bad_gpu_used(value, why):
    r = cli("--gpu", "H100-80GB", "-tp", "4", "--gpu-used", value)
    assert r.exit_code == 2
    assert "--gpu-used" in r.stderr and why in r.stderr and "Traceback" not in r.output


def test_library_refuses_a_rank_beyond_the_server():
    with pytest.raises(UsageError, match="--gpu-used"):
        est(tensor_parallel_size=2, used=[(2, GIB)])
