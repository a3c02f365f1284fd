"""Several nodes (`--nnodes N`): the buffers NCCL keeps on each GPU for the traffic between nodes, as an uncertain
charge bounded from NCCL's default buffer sizes and channel limit (the bound computed here by hand from NCCL's
constants), and where the server's groups cross nodes."""

from __future__ import annotations

import pytest

from clirun import CliRunner
from vramdoctor.cli import run
from vramdoctor.engines import Settings
from vramdoctor.errors import UsageError
from vramdoctor.estimate import estimate
from vramdoctor.sources.catalog import read_catalog

GIB = 2**30
MIB = 2**20
H100 = int(79.19 * GIB)
#: NCCL defaults (src/init.cc, src/include/device.h): LL128 = NCCL_LL128_ELEMS_PER_THREAD (120) x
#: NCCL_LL128_MAX_NTHREADS (640) x NCCL_STEPS (8) x 8 bytes; Simple = NCCL_BUFFSIZE, 4 MiB; 32 channels at most
LL128, SIMPLE, CHANNELS = 120 * 640 * 8 * 8, 4 * MIB, 32
P2P = 128 * 1024 * 8  # NCCL_P2P_NET_CHUNKSIZE x NCCL_STEPS, per channel


def qwen():
    return read_catalog("Qwen/Qwen2.5-72B-Instruct")


def est(engine="vllm", **kw):
    kw.setdefault("max_model_len", 8192)
    return estimate(qwen(), engine=engine, settings=Settings(**kw), gpu_bytes=H100)


def charge(e):
    return next((o for o in e.uncertain if o.name == "inter-node NCCL buffers"), None)


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_tensor_parallel_group_across_nodes_may_hold_ring_and_tree_buffers(engine):
    one = est(engine, tensor_parallel_size=16)
    two = est(engine, tensor_parallel_size=16, nnodes=2)
    c = charge(two)
    # ring (a send and a receive) and tree (a parent and two children, both ways): 8 connection sides a channel,
    # each with its LL128 and Simple buffers on the GPU under GPUDirect RDMA
    assert c.bytes == CHANNELS * 8 * (LL128 + SIMPLE)
    assert two.kv_pool_bytes == one.kv_pool_bytes  # nothing modelled: the low end is 0 (buffers in host memory)
    assert two.kv_pool_bytes_low == one.kv_pool_bytes_low - c.bytes
    assert "NCCL_DEBUG=INFO" in c.assumption and "2 nodes of 8 GPUs" in c.assumption
    assert charge(one) is None


def test_pipeline_stages_on_other_nodes_hold_p2p_buffers_only():
    e = est(tensor_parallel_size=8, pipeline_parallel_size=2, nnodes=2)  # a stage per node: TP stays in a node
    assert charge(e).bytes == CHANNELS * P2P  # one neighbour stage across the nodes: send or receive
    e = est(tensor_parallel_size=4, pipeline_parallel_size=4, nnodes=4)  # middle stages: both neighbours away
    assert charge(e).bytes == 2 * CHANNELS * P2P


def test_a_group_that_straddles_a_node_boundary_counts():
    """-tp 4 over nodes of 2 GPUs: each tensor-parallel group spans two nodes."""
    assert charge(est(tensor_parallel_size=4, nnodes=2)).bytes == CHANNELS * 8 * (LL128 + SIMPLE)


def test_the_charge_can_make_the_start_undetermined():
    base = est(tensor_parallel_size=8, nnodes=2, max_model_len=32768)
    c = charge(base)
    one_seq = base.kv_cache_bytes  # (concurrency 1)
    tight = int((base.kv_pool_bytes - one_seq - c.bytes / 2) / base.engine_kv_bytes_per_token)
    e = est(tensor_parallel_size=8, nnodes=2, max_model_len=32768 + tight)
    assert e.starts is None and e.answer.startswith("Undetermined")


@pytest.mark.parametrize("args,why", [
    (["-tp", "4", "--nnodes", "3"], "divide"), (["-tp", "4", "--nnodes", "8"], "more nodes"),
    (["-tp", "4", "--nnodes", "0"], "at least 1"), (["--engine", "llamacpp", "-tp", "2", "--nnodes", "2"], "llama.cpp"),
])
def test_bad_nnodes_is_refused(args, why):
    r = CliRunner().invoke(run, ["estimate", "Qwen/Qwen2.5-7B-Instruct", *args])
    assert r.exit_code == 2 and "--nnodes" in r.stderr and why in r.stderr, r.output


def test_generic_ignores_it_with_a_warning():
    r = CliRunner().invoke(run, ["estimate", "Qwen/Qwen2.5-7B-Instruct", "--engine", "generic", "-tp", "2",
                                 "--nnodes", "2"])
    assert r.exit_code == 0 and "--nnodes is ignored" in r.stderr


def test_library_refuses_nodes_that_do_not_divide_the_gpus():
    with pytest.raises(UsageError, match="--nnodes"):
        est(tensor_parallel_size=4, nnodes=3)
