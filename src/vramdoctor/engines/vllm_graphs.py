"""vLLM's CUDA graphs in the KV budget, by release. Pure; `vllm.VllmRules` uses it.

Before 0.21 the graphs are captured after the pool is sized (`compile_or_warm_up_model`), out of the headroom that
`gpu_memory_utilization` leaves: they cost the pool nothing. PR #30515 (ebb9cc5f2, 2026-03-07, "Account for CUDA
graphs during memory profiling", read in the upstream history, mirror jinhuang12/vllm) added
`GPUModelRunner.profile_cudagraph_memory` and, in `v1/worker/gpu_worker.py` `determine_available_memory`,
`available_kv_cache_memory_bytes = requested_memory - non_kv_cache_memory - cudagraph_memory_estimate_applied`,
applied when VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 (off by default there, "will become the default in v0.19");
vLLM 0.33's log says "CUDA graph memory profiling is enabled (default since v0.21.0) ... To disable, set
VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0" (shared/ENGINES.md §1.2; the same line in public 0.2x logs), so from
0.21 the estimate comes out of the pool unless --enforce-eager (no graphs) or the switch is 0.

What the estimate is (`profile_cudagraph_memory`, main of 2026-04-21): for each runtime mode (PIECEWISE, FULL) the
largest graph and the next are captured against a small dummy KV cache, free memory read around each; the estimate
is the largest first capture over the modes plus, per mode, max(the second capture, 1 MiB) x (graphs - 1). It is a
measurement on the GPU, not a formula of the model: what is source-exact is the count of graphs and the 1 MiB floor.

The graphs (`config/vllm.py` `_set_cudagraph_sizes`, from PR #26016 of 2025-10-24; before it 1, 2, 4 and every
multiple of 8): capture sizes 1, 2, 4, multiples of 8 below 256 and of 16 from 256, up to min(2 x max_num_seqs, 512)
and max_num_batched_tokens; PIECEWISE graphs for each (the default cudagraph_mode FULL_AND_PIECEWISE), FULL decode
graphs for the sizes up to max_num_seqs (`v1/cudagraph_dispatcher.py` `initialize_cudagraph_keys`). An attention
backend without full graphs falls back to PIECEWISE alone ("setting cudagraph_mode=PIECEWISE"), so the FULL graphs
are not certain.

Modelled: the floor, (PIECEWISE graphs - 1) x 1 MiB, the least the estimate can be. Not modelled, named with its
bound: the rest up to every graph (both modes) at the most a graph per decoder layer took in the public captures,
R18's 1.88 GiB for 67 piecewise graphs of gpt-oss-120b's 36 layers (0.80 MiB a graph and layer; R13/R15's Qwen2-7B
took 0.27 and 0.35). The bound assumes the estimate measures what capture takes; vllm#50780 (hybrid GDN models from
0.26) and vllm#53013 report estimates far above the real graphs, which it does not bound.
"""

from __future__ import annotations

from ..spec import ModelSpec
from .base import GIB, Overhead, Settings

MIB = 2**20
PROFILED_FROM = (0, 21, 0)  # VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 by default
NEW_SIZES = (0, 11, 1)  # PR #26016: multiples of 16 from 256 (2025-10-24, after 0.11.0)
#: R18: "Graph capturing finished in 101 secs, took 1.88 GiB" for 67 piecewise graphs of 36 layers (see above)
BYTES_PER_GRAPH_LAYER_HIGH = int(1.88 * GIB / (67 * 36))
SWITCH = "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS"


def capture_sizes(v: tuple[int, int, int], max_num_seqs: int, max_num_batched_tokens: int) -> list[int]:
    """vLLM's default cudagraph_capture_sizes for release `v` (balanced performance mode, no speculative decoding,
    no sequence parallelism)."""
    top = min(min(2 * max_num_seqs, 512), max_num_batched_tokens)
    if top < 1:
        return []
    out = [i for i in (1, 2, 4) if i <= top]
    if v >= NEW_SIZES:
        if top >= 8:
            out += list(range(8, min(top + 1, 256), 8))
        if top >= 256:
            out += list(range(256, top + 1, 16))
    else:
        out += list(range(8, top + 1, 8))
    return sorted(set(out))


def graph_counts(v: tuple[int, int, int], max_num_seqs: int, max_num_batched_tokens: int) -> tuple[int, int]:
    """(PIECEWISE graphs, FULL decode graphs) under the default FULL_AND_PIECEWISE mode."""
    sizes = capture_sizes(v, max_num_seqs, max_num_batched_tokens)
    return len(sizes), len([x for x in sizes if x <= max_num_seqs])


def profiled(asked: tuple[int, int, int] | None, s: Settings) -> bool:
    """Whether the graphs come out of the pool: release `asked` (the one given, not capped at the newest modelled)
    from 0.21, graphs captured (no --enforce-eager), no measured figure given."""
    return asked is not None and asked >= PROFILED_FROM and not s.enforce_eager and s.cuda_graph_bytes is None


def charge(model: ModelSpec, s: Settings) -> tuple[Overhead, Overhead]:
    """(the floor, modelled; the rest up to the bound, not modelled) for the settings' max_num_seqs and
    max_num_batched_tokens (see the module docstring)."""
    seqs, tokens = s.max_num_seqs or 256, s.max_num_batched_tokens or 2048
    pw, full = graph_counts(PROFILED_FROM, seqs, tokens)
    floor = max(0, pw - 1) * MIB
    layers = max(1, model.num_decoder_layers)
    high = max(floor, (pw + full - 1) * layers * BYTES_PER_GRAPH_LAYER_HIGH)
    modelled = Overhead(name="CUDA graphs", bytes=floor, estimated=True,
                        assumption=f"profiled into the budget from 0.21 ({SWITCH}=1 by default): {pw} piecewise + "
                                   f"{full} full graphs for {seqs} sequences and {tokens:,} tokens a step; at least "
                                   "1 MiB a graph beyond the first")
    rest = Overhead(name="CUDA graph estimate", bytes=high - floor, estimated=True,
                    assumption=f"vLLM measures the graphs on the GPU (profile_cudagraph_memory): up to {pw + full} "
                               f"graphs at 0.80 MiB a graph and layer (the most a public capture took, R18), "
                               f"{high / GIB:.2f} GiB in all; its log's 'Estimated CUDA graph memory: X GiB total' "
                               f"settles it; --enforce-eager (no graphs) or {SWITCH}=0 (graphs after the pool, as "
                               "before 0.21) leaves the pool whole")
    return modelled, rest
