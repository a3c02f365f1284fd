"""PyTorch's caching allocator (`vramdoctor.caching_allocator`) at its boundaries: N-1, N and N+1 bytes of the small-pool
limit (kSmallSize, 1 MiB), the shared-segment limit (kMinLargeAlloc, 10 MiB) and the large-segment rounding
(kRoundLarge, 2 MiB), checked by hand against CUDACachingAllocator.cpp's rules."""

from __future__ import annotations

import pytest

from vramdoctor.caching_allocator import (
    K_LARGE_BUFFER,
    K_MIN_LARGE_ALLOC,
    K_ROUND_LARGE,
    K_SMALL_BUFFER,
    K_SMALL_SIZE,
    Alloc,
    Free,
    allocation_size,
    caching_allocator,
    round_size,
    should_split,
)

MIB = 2**20


def one(nbytes: int):
    return caching_allocator([Alloc(name="w", nbytes=nbytes)])


def test_the_constants_are_pytorchs():
    assert (K_SMALL_SIZE, K_SMALL_BUFFER, K_MIN_LARGE_ALLOC, K_ROUND_LARGE, K_LARGE_BUFFER) == (
        1 * MIB, 2 * MIB, 10 * MIB, 2 * MIB, 20 * MIB)


@pytest.mark.parametrize("nbytes, rounded", [(1, 512), (511, 512), (512, 512), (513, 1024), (0, 512)])
def test_requests_round_to_512_bytes(nbytes, rounded):
    assert round_size(nbytes) == rounded


@pytest.mark.parametrize("nbytes, segment", [
    (K_SMALL_SIZE - 512, K_SMALL_BUFFER),       # 1 MiB - 1 block: small pool, a 2 MiB segment
    (K_SMALL_SIZE, K_SMALL_BUFFER),             # 1 MiB: still the small pool
    (K_SMALL_SIZE + 512, K_LARGE_BUFFER),       # 1 MiB + 1 block: large pool, a shared 20 MiB segment
    (K_MIN_LARGE_ALLOC - 512, K_LARGE_BUFFER),  # just under 10 MiB: a shared 20 MiB segment
    (K_MIN_LARGE_ALLOC, K_MIN_LARGE_ALLOC),     # 10 MiB: a segment of its own
    (K_MIN_LARGE_ALLOC + 512, 12 * MIB),        # 10 MiB + 1 block: its own, rounded up to 2 MiB
    (20 * MIB - 512, 20 * MIB),                 # 2 MiB rounding: N - 1 ...
    (20 * MIB, 20 * MIB),                       # ... N ...
    (20 * MIB + 512, 22 * MIB),                 # ... N + 1
])
def test_segment_sizes(nbytes, segment):
    assert allocation_size(round_size(nbytes)) == segment
    assert one(nbytes).reserved_bytes == segment


@pytest.mark.parametrize("nbytes, allocated", [
    (K_SMALL_SIZE - 512, K_SMALL_SIZE - 512),  # small pool: the rest (>= 512 B) is split off
    (K_SMALL_SIZE, K_SMALL_SIZE),
    (K_SMALL_SIZE + 512, K_SMALL_SIZE + 512),   # large pool in 20 MiB: the rest (> 1 MiB) is split off
    (19 * MIB - 512, 19 * MIB - 512),           # rest 1 MiB + 512 B > 1 MiB: split
    (19 * MIB, 20 * MIB),                       # rest exactly 1 MiB: not split, the tensor keeps the block
    (19 * MIB + 512, 20 * MIB),                 # rest under 1 MiB: not split
    (21 * MIB - 512, 21 * MIB - 512),           # its own 22 MiB segment, rest 1 MiB + 512 B: split
    (21 * MIB, 22 * MIB),                       # rest exactly 1 MiB: the tensor keeps the 22 MiB
    (21 * MIB + 512, 22 * MIB),
    (20 * MIB + 512, 20 * MIB + 512),           # rest 2 MiB - 512 B: split
])
def test_an_unsplit_tail_counts_as_allocated(nbytes, allocated):
    assert one(nbytes).allocated_bytes == allocated


def test_the_split_rule_at_its_boundary():
    assert should_split(K_SMALL_SIZE - 512, K_SMALL_SIZE) is True  # small pool: 512 B left is enough
    assert should_split(K_SMALL_SIZE, K_SMALL_SIZE) is False
    assert should_split(2 * MIB, 3 * MIB) is False  # large pool: exactly 1 MiB left is not
    assert should_split(2 * MIB, 3 * MIB + 512) is True


def test_requests_of_1_to_10_mib_share_20_mib_segments_and_their_tails_stay_reserved():
    # Qwen3-235B-A22B-FP8's attention under TP 4: qkv 9 MiB and o 8 MiB share a 20 MiB segment, 3 MiB stay unused
    # and the next layer's 9 MiB does not fit there
    events = [Alloc(name=f"{i}.{k}", nbytes=n * MIB) for i in range(3) for k, n in (("qkv", 9), ("o", 8))]
    t = caching_allocator(events)
    assert t.requested_bytes == t.allocated_bytes == 3 * 17 * MIB
    assert t.reserved_bytes == 3 * 20 * MIB


def test_small_tensors_share_2_mib_segments():
    t = caching_allocator([Alloc(name=str(i), nbytes=10 * 1024) for i in range(300)])  # 300 norms of 10 KiB
    assert t.reserved_bytes == 2 * K_SMALL_BUFFER


def test_a_freed_segment_goes_back_to_the_driver_and_a_freed_block_is_reused_best_fit():
    events = [Alloc(name="tmp", nbytes=12 * MIB), Alloc(name="keep", nbytes=30 * MIB), Free(name="tmp")]
    assert caching_allocator(events).reserved_bytes == 30 * MIB  # empty_cache releases the wholly free segment
    # a later 11 MiB tensor takes the freed 12 MiB block (best fit), keeping its 1 MiB rest (not split)
    t = caching_allocator(events + [Alloc(name="w", nbytes=11 * MIB)])
    assert (t.reserved_bytes, t.allocated_bytes) == (42 * MIB, 42 * MIB)


def test_freed_neighbours_merge():
    events = [Alloc(name="a", nbytes=4 * MIB), Alloc(name="b", nbytes=4 * MIB), Alloc(name="c", nbytes=4 * MIB),
              Free(name="a"), Free(name="b"), Alloc(name="d", nbytes=8 * MIB)]
    t = caching_allocator(events)  # a and b merge into one 8 MiB block that d takes: one 20 MiB segment
    assert (t.reserved_bytes, t.allocated_bytes) == (20 * MIB, 12 * MIB)


def test_bad_events_are_refused():
    with pytest.raises(ValueError):
        caching_allocator([Free(name="x")])
    with pytest.raises(ValueError):
        caching_allocator([Alloc(name="x", nbytes=1), Alloc(name="x", nbytes=1)])
