"""The buffers NCCL keeps on each GPU for traffic between nodes (`--nnodes`), as a bound: NCCL sizes them by
defaults, but how many it makes, and whether they sit on the GPU, depend on the topology it finds at start. Pure.

From NCCL's source (NVIDIA/nccl, 2.x):
- `src/init.cc` `computeBuffSizes`: per connection and protocol, LL = NCCL_LL_LINES_PER_THREAD (8) x
  NCCL_LL_MAX_NTHREADS (512) x NCCL_STEPS (8) x 16 bytes = 512 KiB, LL128 = NCCL_LL128_ELEMS_PER_THREAD (120) x
  NCCL_LL128_MAX_NTHREADS (640) x NCCL_STEPS x 8 bytes = 4.69 MiB, Simple = NCCL_BUFFSIZE, 4 MiB
  (`DEFAULT_BUFFSIZE`); each can be set (NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE, NCCL_BUFFSIZE).
- `src/transport/net.cc` (the network transport, between nodes), send and receive sides alike: a ring or tree
  connection's own buffers go to GPU memory for every protocol but LL when GPUDirect RDMA is used (`p !=
  NCCL_PROTO_LL && resources->useGdr`), to host memory otherwise; point-to-point (pipeline send/recv) uses shared
  buffers of NCCL_P2P_NET_CHUNKSIZE (128 KiB) x NCCL_STEPS per channel, on the GPU under GPUDirect RDMA.
- `src/include/device.h` (devcomm.h in older releases) MAXCHANNELS 32: a communicator's channels, each with a ring (one peer to send to, one to
  receive from) and a tree (a parent and up to two children, both ways).

So on one GPU: a tensor-parallel group across nodes holds up to 32 channels x 8 connection sides x (LL128 + Simple)
= 2.17 GiB, and at least nothing (no GPUDirect RDMA: host memory; or the rings and trees cross nodes at other
GPUs); a pipeline stage whose neighbour is on another node up to 32 x 1 MiB each way. Intra-node buffers (P2P over
NVLink, NVLS on NVLink Switch systems, vLLM's custom all-reduce, which it turns off for a group that spans nodes:
`custom_all_reduce.py` "Custom allreduce is disabled because this process group spans across nodes") are what the
engines' non-torch terms already hold; CollNet (SHARP, NCCL_COLLNET_ENABLE=1) and multi-node NVLink (MNNVL) are not
modelled. Evidence on the low side: R18, gpt-oss-120b under TP 4 across nodes, is predicted within 0.1% with no
such charge.

The GPUs are taken to split evenly over the nodes in rank order (world / N per node), as vLLM's and SGLang's
`--nnodes` launches number them (assumed, not read).
"""

from __future__ import annotations

from .engines.base import GIB, Overhead, Settings
from .errors import UsageError

MIB = 2**20
LL128_BYTES = 120 * 640 * 8 * 8
SIMPLE_BYTES = 4 * MIB
MAX_CHANNELS = 32
SIDES_PER_CHANNEL = 8  # ring: send + receive; tree: parent and two children, each both ways
P2P_BYTES_PER_CHANNEL = 128 * 1024 * 8


def check_nnodes(s: Settings, engine: str) -> None:
    """--nnodes divides the server's GPUs, at most one node per GPU; llama.cpp serves on one machine."""
    n, world = s.nnodes, s.world_size
    if n == 1:
        return
    if n < 1:
        raise UsageError(f"must be at least 1, got {n}.", option="--nnodes")
    if engine == "llamacpp":
        raise UsageError("llama.cpp's llama-server runs on one machine (its RPC backend is not modelled).",
                         option="--nnodes")
    if n > world:
        raise UsageError(f"{n} nodes for {world} GPUs: more nodes than GPUs.", option="--nnodes",
                         hint="Each node runs at least one of the -tp x -pp GPUs.")
    if world % n:
        raise UsageError(f"{n} nodes do not divide the {world} GPUs (-tp {s.tensor_parallel_size} x -pp "
                         f"{s.pipeline_parallel_size}) evenly.", option="--nnodes",
                         hint="Give a node count that divides the GPUs: " +
                              ", ".join(str(d) for d in range(2, min(world, 64) + 1) if not world % d) + ".")


def crossings(s: Settings) -> tuple[bool, int]:
    """(whether a tensor-parallel group spans nodes, the most pipeline neighbours a GPU has on other nodes)."""
    n, tp, pp = s.nnodes, s.tensor_parallel_size, s.pipeline_parallel_size
    per = s.world_size // max(1, n)

    def node(r: int) -> int:
        return r // per

    tp_spans = any(node(k * tp) != node(k * tp + tp - 1) for k in range(pp))
    most = 0
    for k in range(pp):  # a stage's GPUs are consecutive: compare its first and last with the neighbours'
        for r in (k * tp, k * tp + tp - 1):
            away = (k > 0 and node(r - tp) != node(r)) + (k < pp - 1 and node(r + tp) != node(r))
            most = max(most, away)
    return tp_spans, most


def internode_charge(s: Settings) -> Overhead | None:
    """The bound of what NCCL may keep on one GPU for traffic between nodes (see the module docstring), None on one
    node or where nothing crosses nodes."""
    if s.nnodes <= 1:
        return None
    tp_spans, pp_away = crossings(s)
    coll = MAX_CHANNELS * SIDES_PER_CHANNEL * (LL128_BYTES + SIMPLE_BYTES) if tp_spans else 0
    p2p = MAX_CHANNELS * P2P_BYTES_PER_CHANNEL * pp_away
    if not coll and not p2p:
        return None
    per = s.world_size // s.nnodes
    what = []
    if coll:
        what.append(f"the tensor-parallel group spans nodes: up to {MAX_CHANNELS} channels x {SIDES_PER_CHANNEL} "
                    f"ring and tree connection sides x the LL128 and Simple buffers (4.69 + 4.00 MiB at NCCL's "
                    f"defaults) = {coll / GIB:.2f} GiB")
    if p2p:
        what.append(f"{pp_away} pipeline neighbour{'s' if pp_away > 1 else ''} on another node: up to "
                    f"{MAX_CHANNELS} channels x 1 MiB each way = {p2p / MIB:.0f} MiB")
    return Overhead(
        name="inter-node NCCL buffers", bytes=coll + p2p, estimated=True,
        assumption=f"{s.nnodes} nodes of {per} GPUs; " + "; ".join(what) + ". On the GPU only with GPUDirect RDMA "
                   "(else in host memory: 0), and only where the rings and trees cross nodes at this GPU. "
                   "NCCL_DEBUG=INFO settles it: its '... coll channels, ... p2p channels' line gives the channels, "
                   "its 'Channel NN/NN : a[b] -> c[d] ... via NET/...' lines which connections cross nodes at this "
                   "GPU (GDRDMA when their buffers are on it), NCCL_DEBUG_SUBSYS=ALLOC the allocations; the pool "
                   "the engine prints with and without the second node measures it")
