"""PyTorch's CUDA caching allocator, as far as it decides what a model's weights hold on the GPU. Pure.

vLLM and SGLang create every parameter on the GPU one tensor at a time (`torch.empty` under the
target device), so what the weights take is not the sum of their bytes but the blocks and segments
the caching allocator hands out for them. Source: PyTorch `c10/cuda/CUDACachingAllocator.cpp` (the
same constants are in `c10/core/AllocatorConfig.h` in newer releases), default configuration (no
`expandable_segments`, no `max_split_size_mb`, no `roundup_power2_divisions`):

- `round_size`: a request is rounded up to a multiple of kMinBlockSize (512 B);
- `get_pool`: requests of at most kSmallSize (1 MiB) come from the small pool, larger ones from
  the large pool;
- `get_allocation_size`: a new segment is kSmallBuffer (2 MiB) for a small request, kLargeBuffer
  (20 MiB) for a request under kMinLargeAlloc (10 MiB), else the request rounded up to kRoundLarge
  (2 MiB);
- `get_free_block`: the smallest free block of the request's pool that holds it (best fit);
- `should_split`: the rest of a block is split off as a free block when it is at least 512 B (small
  pool) or more than kSmallSize (large pool); otherwise the request keeps the whole block;
- `free_block`: a freed block merges with free neighbours of its segment;
- `empty_cache` (`release_cached_blocks`): segments that are wholly free go back to the driver.

What the engines print is one of two statistics after loading: `allocated` (the blocks handed out,
each at its size after the split, so an unsplit tail counts; `torch.cuda.memory_allocated`) or
`reserved` (whole segments, what `torch.cuda.mem_get_info` sees as used after `empty_cache`).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable
from dataclasses import dataclass

KIB, MIB = 2**10, 2**20
K_MIN_BLOCK_SIZE = 512  #: kMinBlockSize: every request is rounded up to a multiple of this
K_SMALL_SIZE = 1 * MIB  #: kSmallSize: the largest request the small pool serves
K_SMALL_BUFFER = 2 * MIB  #: kSmallBuffer: the segment the small pool allocates
K_MIN_LARGE_ALLOC = 10 * MIB  #: kMinLargeAlloc: requests under this share kLargeBuffer segments
K_LARGE_BUFFER = 20 * MIB  #: kLargeBuffer: the segment for large-pool requests under kMinLargeAlloc
K_ROUND_LARGE = 2 * MIB  #: kRoundLarge: larger requests get a segment of their own, rounded up to this


@dataclass(frozen=True, kw_only=True)
class Alloc:
    """`torch.empty` of `nbytes` bytes, known as `name` until it is freed."""

    name: str
    nbytes: int


@dataclass(frozen=True, kw_only=True)
class Free:
    """The tensor `name` going out of scope (its block returns to the cache, not to the driver)."""

    name: str


@dataclass(frozen=True, kw_only=True)
class AllocatorTotals:
    """The allocator's statistics after the events and an `empty_cache`, bytes.

    requested_bytes: what the live tensors asked for. allocated_bytes: the blocks they hold
    (`memory_allocated`). reserved_bytes: the segments left with the driver (`memory_reserved`).
    """

    requested_bytes: int
    allocated_bytes: int
    reserved_bytes: int


def round_size(nbytes: int) -> int:
    """`round_size`: up to a multiple of 512 bytes, at least 512."""
    return max(K_MIN_BLOCK_SIZE, -(-nbytes // K_MIN_BLOCK_SIZE) * K_MIN_BLOCK_SIZE)


def allocation_size(nbytes: int) -> int:
    """`get_allocation_size`: the segment a request of `nbytes` (already rounded) opens when no free block
    holds it."""
    if nbytes <= K_SMALL_SIZE:
        return K_SMALL_BUFFER
    if nbytes < K_MIN_LARGE_ALLOC:
        return K_LARGE_BUFFER
    return -(-nbytes // K_ROUND_LARGE) * K_ROUND_LARGE


def should_split(nbytes: int, block_bytes: int) -> bool:
    """`should_split`: whether the rest of a block of `block_bytes` after a request of `nbytes` becomes a free
    block of its own."""
    remaining = block_bytes - nbytes
    if nbytes <= K_SMALL_SIZE:
        return remaining >= K_MIN_BLOCK_SIZE
    return remaining > K_SMALL_SIZE


def caching_allocator(events: Iterable[Alloc | Free]) -> AllocatorTotals:
    """Replay `events` (tensors created and freed, in order) through the caching allocator and return its
    statistics after `empty_cache`. Ties between free blocks of one size go to the older segment, then the lower
    offset (PyTorch orders them by address). Raises ValueError for a tensor freed that is not live, or a name
    created twice while live."""
    sizes: list[int] = []  # segment id -> its size
    small_seg: list[bool] = []  # segment id -> whether it is a small-pool segment
    blocks: list[list[list]] = []  # segment id -> its blocks in offset order, each [offset, size, live name or None]
    free = {True: [], False: []}  # pool (small?) -> free blocks as sorted (size, segment id, offset)
    live: dict[str, tuple[int, int, int]] = {}  # name -> (segment id, block offset, bytes asked for)
    for ev in events:
        if isinstance(ev, Free):
            if ev.name not in live:
                raise ValueError(f"tensor {ev.name!r} freed but not live")
            sid, offset, _ = live.pop(ev.name)
            seg = blocks[sid]
            i = next(k for k, b in enumerate(seg) if b[0] == offset)
            pool = free[small_seg[sid]]
            seg[i][2] = None
            for j in (i + 1, i):  # merge with the next free block, then this one into the one before
                if 0 < j < len(seg) and seg[j][2] is None and seg[j - 1][2] is None:
                    for b in (seg[j - 1], seg[j]):
                        key = (b[1], sid, b[0])
                        k = bisect_left(pool, key)
                        if k < len(pool) and pool[k] == key:
                            pool.pop(k)
                    seg[j - 1][1] += seg[j][1]
                    del seg[j]
            b = next(b for b in seg if b[0] <= offset < b[0] + b[1])
            key = (b[1], sid, b[0])
            if key not in pool:
                insort(pool, key)
            continue
        if ev.name in live:
            raise ValueError(f"tensor {ev.name!r} created twice")
        n = round_size(ev.nbytes)
        small = n <= K_SMALL_SIZE
        pool = free[small]
        k = bisect_left(pool, (n, -1, -1))
        if k < len(pool):
            size, sid, offset = pool.pop(k)
        else:
            sid, size, offset = len(sizes), allocation_size(n), 0
            sizes.append(size)
            small_seg.append(small)
            blocks.append([[0, size, None]])
        seg = blocks[sid]
        i = next(j for j, b in enumerate(seg) if b[0] == offset)
        if should_split(n, size):
            seg[i:i + 1] = [[offset, n, ev.name], [offset + n, size - n, None]]
            insort(pool, (size - n, sid, offset + n))
        else:
            seg[i][2] = ev.name
        live[ev.name] = (sid, offset, ev.nbytes)
    kept = [sid for sid in range(len(sizes)) if any(b[2] is not None for b in blocks[sid])]
    return AllocatorTotals(
        requested_bytes=sum(r for _, _, r in live.values()),
        allocated_bytes=sum(b[1] for sid in kept for b in blocks[sid] if b[2] is not None),
        reserved_bytes=sum(sizes[sid] for sid in kept),
    )
