"""vLLM and the memory other processes already hold on its GPUs (`--gpu-used`), by release. Pure; `vllm.VllmRules`
uses it.

Each worker measures its own GPU; the engine takes the fewest blocks over its workers (`get_kv_cache_configs`, V0
`determine_num_available_blocks` through the executor's minimum), so the rank with the least room decides the pool.
What a worker counts of the others' memory changed four times (read in the upstream history, mirror
jinhuang12/vllm, by the commits named):

- up to 0.3.0, V0 `worker/worker.py` `profile_num_available_blocks`: peak = total - free after the profile, so
  everything in use on the GPU, the others' memory too, comes out of `total x gpu_memory_utilization` ("charged").
- 0.3.1 (PR #2863, 7e45107f5, 2024-02-13, "Fix memory profiling when GPU is used by multiple processes"): peak =
  free at `init_device` - free after the profile: the others' memory is neither charged nor checked ("unchecked").
- 0.6.4 (PR #9352 de4008e2a and #9516 380e18639, 2024-10-17/18; 0.6.4.post1 logs print their "Memory profiling
  results: ... initial_memory_usage" line, vllm#10360): non-torch memory = total - free - torch's, the others'
  memory in it: charged again.
- 0.6.5 (PR #10511 551603fef, 2024-12-16, "overhaul memory profiling", the fix for vllm#10451 that maintainers asked
  0.6.4 users to retry with 0.6.5 for): `memory_profiling` subtracts a baseline of total - free at `init_device`:
  unchecked, to the end of V0.
- V1 from 0.8.0 (`v1/worker/gpu_worker.py` `determine_available_memory`, introduced by PR #10528): non-torch =
  total - free - torch's allocated: charged ("V1's memory profiling incorrectly counts memory used by other
  processes", PR #19312's description).
- V1 from 0.9.1 (PR #18974 2d8476e46, 2025-06-07; vllm#20305 shows its error from v0.9.1) and 0.9.2 on (PR #19312
  cc867be19, `memory_profiling` with the `init_snapshot` baseline): the pool is `requested_memory = total x
  gpu_memory_utilization` less vLLM's own use, whatever the others hold, and `init_device` raises "Free memory on
  device (F/T GiB) on startup is less than desired GPU memory utilization (u, R GiB)" when the free memory it reads
  is below the request ("checked"). It reads it after its own CUDA context exists and, from 0.11.0 (f1fc2107a3,
  "Initialize the distributed environment BEFORE taking memory snapshot"), after NCCL and the custom all-reduce are
  set up: that memory is not modelled, so a free memory within it of the request is undetermined.

"Unchecked" releases allocate the pool sized as if the GPU were theirs: it fits beside the others' memory or the
allocation fails (CUDA out of memory while the cache is allocated, or graphs captured after it).
"""

from __future__ import annotations

from ..units import compact_gib
from .base import GIB, Refusal, Settings

CHARGED, CHECKED, UNCHECKED = "charged", "checked", "unchecked"

#: vLLM's own memory in use when it reads the free memory (not modelled: the bound of its range). One GPU: its CUDA
#: context with cuBLAS, 0.35 GiB on an RTX 3090 where vLLM 0.6 printed it as non-torch memory (R01), 0.50 under TP
#: (`vllm_profile.OLD_NON_TORCH`). From 0.11.0 under TP also NCCL and the custom all-reduce: 1.25 GiB in use after
#: distributed init in a public 8 x H100 log (the R08 note in the README's pool table).
OWN_CONTEXT = {"tp1": int(0.35 * GIB), "tp": int(0.50 * GIB)}
OWN_WITH_NCCL = int(1.25 * GIB)
NCCL_BEFORE_SNAPSHOT = (0, 11, 0)


def release_of(version: str | None) -> tuple[int, int, int]:
    from .vllm import NEWEST, modelled

    return modelled(version, NEWEST)


def rule(v: tuple[int, int, int]) -> str:
    """How release `v` treats the others' memory (see the module docstring)."""
    if v >= (0, 9, 1):
        return CHECKED
    if v >= (0, 8, 0):
        return CHARGED
    if v >= (0, 6, 5):
        return UNCHECKED
    if v >= (0, 6, 4):
        return CHARGED
    if v >= (0, 3, 1):
        return UNCHECKED
    return CHARGED


def own_memory_at_snapshot_bytes(v: tuple[int, int, int], tp: int) -> int:
    """The most vLLM's own memory may be when it reads the free memory for its check (see OWN_CONTEXT)."""
    if tp > 1 and v >= NCCL_BEFORE_SNAPSHOT:
        return OWN_WITH_NCCL
    return OWN_CONTEXT["tp1" if tp == 1 else "tp"]


def _gib(n: int) -> str:
    return compact_gib(n, 1)


def gpu(rank: int | None) -> str:
    return f"GPU {rank}" if rank is not None else "the GPU"


def refusal(v: tuple[int, int, int], s: Settings, gpu_bytes: int, activation_bytes: int) -> Refusal | None:
    """The start check rank `s.rank` fails under release `v`, or None. checked: free < requested refuses; free less
    vLLM's own memory below it is undetermined. unchecked: where another process holds memory, the pool sized as if
    the GPU were free does not fit beside it (requested - the activations freed before the cache is allocated >
    free: certain; requested + vLLM's own memory > free: undetermined)."""
    how, r = rule(v), s.rank
    used = s.used_on(r)
    free = gpu_bytes - used
    requested = int(gpu_bytes * s.gpu_memory_utilization)
    own = own_memory_at_snapshot_bytes(v, s.tensor_parallel_size)
    u = s.gpu_memory_utilization
    if how == CHECKED:
        if free >= requested + own:
            return None
        certain = free < requested
        g = gpu(r)
        answer = (f"Does not start: {g} has {_gib(free)} free, vLLM asks {u:g} x {_gib(gpu_bytes)}." if certain
                  else f"Undetermined: {g} has {_gib(free)} free; vLLM asks {u:g} x {_gib(gpu_bytes)}.")
        why = (f"vLLM {'.'.join(map(str, v))} requests total x gpu_memory_utilization = {_gib(requested)} on every "
               f"GPU and refuses to start when the free memory it reads is below it (v1/worker/gpu_worker.py "
               f"init_device: 'Free memory on device ... is less than desired GPU memory utilization'); {g} has "
               f"{_gib(free)} free" + (f" beside the {_gib(used)} other processes hold" if used else "")
               + ("" if certain else f", and vLLM's own CUDA context{' and NCCL' if own == OWN_WITH_NCCL else ''} "
                  f"(up to {_gib(own)}, not modelled) is in use when it reads it"))
        return Refusal(certain=certain, rank=r, answer=answer, why=why,
                       short=f"{g}'s free memory is below vLLM's request")
    if how == UNCHECKED and used:
        if requested + own <= free:
            return None
        certain = requested - activation_bytes > free
        g = gpu(r)
        answer = (f"Does not start: {g} has {_gib(free)} free; vLLM sizes for {_gib(requested)}." if certain
                  else f"Undetermined: {g} has {_gib(free)} free; vLLM sizes for {_gib(requested)}.")
        why = (f"vLLM {'.'.join(map(str, v))} sizes its pool from total x gpu_memory_utilization = {_gib(requested)} "
               f"without counting the {_gib(used)} other processes hold on {g} and without checking its free "
               f"memory ({_gib(free)}), so allocating the pool "
               + ("fails (CUDA out of memory)" if certain else
                  f"may fail: its own CUDA context (up to {_gib(own)}) and the CUDA graphs captured after it need "
                  "room too"))
        return Refusal(certain=certain, rank=r, answer=answer, why=why,
                       short=f"vLLM's pool does not fit beside the other processes on {g}")
    return None


def start_utilization(v: tuple[int, int, int], s: Settings, gpu_bytes: int) -> float:
    """The largest gpu_memory_utilization (to 0.01, rounded down) whose request every GPU's free memory covers with
    vLLM's own memory at its snapshot beside it: what starts for certain under a checked release."""
    import math

    own = own_memory_at_snapshot_bytes(v, s.tensor_parallel_size)
    free = gpu_bytes - s.used_most
    return math.floor(max(0, free - own) / gpu_bytes * 100) / 100


def charged_bytes(v: tuple[int, int, int], s: Settings) -> int:
    """The others' memory release `v` takes out of rank `s.rank`'s pool (charged releases only)."""
    return s.used_on(s.rank) if rule(v) == CHARGED else 0
