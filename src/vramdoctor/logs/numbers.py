"""Memory figures engines print, as bytes and tokens. Pure: a line in, (key, value) pairs out.

Every engine here prints "GB"/"MB" meaning GiB/MiB (vLLM `GiB_bytes`, SGLang `/ (1 << 30)`,
llama.cpp `/1024.0/1024.0`, MLC `/ 1024 / 1024`), so both spellings are read as powers of 2.
Keys end in `_bytes`, `_tokens` or name a count; lists keep every value in order.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator

I = re.IGNORECASE
_UNIT = {"": 1, "b": 1, "bytes": 1, "kb": 2**10, "kib": 2**10, "mb": 2**20, "mib": 2**20, "gb": 2**30, "gib": 2**30,
         "tb": 2**40, "tib": 2**40}
NUM = r"(-?[\d][\d,]*(?:\.\d+)?)"
SIZE = NUM + r"\s*([KMGT]i?B|bytes)\b"


def to_bytes(value: str, unit: str) -> int:
    return round(float(value.replace(",", "")) * _UNIT[unit.lower()])


def _int(value: str) -> int:
    return int(float(value.replace(",", "")))


def _size(m: re.Match, i: int = 1) -> int:
    return to_bytes(m.group(i), m.group(i + 1))


# (key, pattern, how to read the match, mode): mode "last" keeps the latest value, "first" the earliest,
# "list" every value in order.
Rule = tuple[str, re.Pattern, Callable[[re.Match], object], str]
RULES: list[Rule] = [
    # weights
    ("weights_bytes", re.compile(r"(?:Loading model weights|Model loading) took " + SIZE, I), _size, "last"),
    ("weights_bytes", re.compile(r"Load weight end\..*?mem usage=" + SIZE, I), _size, "last"),
    ("weights_bytes", re.compile(r"model weights take " + SIZE, I), _size, "last"),
    ("weights_bytes", re.compile(r"model weight size \(" + SIZE, I), _size, "last"),
    ("weights_bytes", re.compile(r"memory\.weights\.total=\"?" + SIZE, I), _size, "last"),
    ("gpu_model_buffer_bytes", re.compile(r"(?:CUDA|ROCm|Metal|Vulkan|SYCL)\d* (?:model )?buffer size =\s*" + SIZE, I), _size, "list"),
    ("cpu_model_buffer_bytes", re.compile(r"CPU(?:_Mapped)? (?:model )?buffer size =\s*" + SIZE, I), _size, "list"),
    # KV pool
    ("kv_pool_bytes", re.compile(r"kv_cache_size=" + SIZE, I), _size, "last"),
    ("kv_pool_bytes", re.compile(r"Available KV cache memory: " + SIZE, I), _size, "last"),
    ("kv_pool_bytes", re.compile(r"memory reserved for KV Cache is " + SIZE, I), _size, "last"),
    ("kv_pool_bytes", re.compile(r"KV Cache is allocated\..*?KV size: " + SIZE, I), _size, "last"),
    ("kv_pool_bytes", re.compile(r"KV self size\s*=\s*" + SIZE, I), _size, "last"),
    ("kv_pool_bytes", re.compile(r"llama_kv_cache(?:_unified)?: size =\s*" + SIZE, I), _size, "list"),
    ("kv_k_bytes", re.compile(r"K size: " + SIZE, I), _size, "last"),
    ("kv_v_bytes", re.compile(r"V size: " + SIZE, I), _size, "last"),
    ("num_gpu_blocks", re.compile(r"(?:# )?(?:GPU|cuda) blocks: " + NUM, I), lambda m: _int(m.group(1)), "last"),
    ("num_cpu_blocks", re.compile(r"# CPU blocks: " + NUM, I), lambda m: _int(m.group(1)), "last"),
    ("kv_pool_tokens", re.compile(r"GPU KV cache size: " + NUM + r" tokens", I), lambda m: _int(m.group(1)), "last"),
    ("kv_pool_tokens", re.compile(r"#tokens: " + NUM, I), lambda m: _int(m.group(1)), "last"),
    ("kv_pool_tokens", re.compile(r"max_total_num_tokens=" + NUM, I), lambda m: _int(m.group(1)), "last"),
    ("kv_pool_tokens", re.compile(r"can be stored in KV cache \(" + NUM + r"\)", I), lambda m: _int(m.group(1)), "last"),
    ("kv_pool_tokens", re.compile(r"(?:Inferred|Setting) max batch total tokens(?: to)?:? " + NUM, I), lambda m: _int(m.group(1)), "last"),
    ("kv_needed_bytes", re.compile(SIZE + r" KV cache is needed", I), _size, "last"),
    ("kv_available_bytes", re.compile(r"available KV cache memory \(" + SIZE, I), _size, "last"),
    ("kv_pool_bytes", re.compile(r"available KV cache memory \(" + SIZE, I), _size, "last"),
    ("max_model_len_model", re.compile(r"derived max_model_len \((?:max_position_embeddings|\w+)=" + NUM, I),
     lambda m: _int(m.group(1)), "last"),
    ("max_model_len_fit", re.compile(r"estimated maximum model length is " + NUM, I), lambda m: _int(m.group(1)), "last"),
    ("kv_required_bytes", re.compile(r"memory\.required\.kv=\"?" + SIZE, I), _size, "last"),
    ("kv_cells", re.compile(r"llama_kv_cache(?:_unified)?: size =.*?\(\s*" + NUM + r" cells", I), lambda m: _int(m.group(1)), "list"),
    # context and settings
    ("max_model_len", re.compile(r"max seq len \(" + NUM + r"\)", I), lambda m: _int(m.group(1)), "last"),
    ("max_model_len", re.compile(r"Maximum concurrency for " + NUM + r" tokens per request", I), lambda m: _int(m.group(1)), "last"),
    ("max_model_len", re.compile(r"\b(?:max_model_len|context_len|max_seq_len)['\"]?\s*[=:]\s*" + NUM, I), lambda m: _int(m.group(1)), "last"),
    ("max_model_len", re.compile(r"number of tokens requested \(" + NUM + r"\)", I), lambda m: _int(m.group(1)), "last"),
    ("max_model_len", re.compile(r"models's max seq len \(" + NUM + r"\)", I), lambda m: _int(m.group(1)), "last"),
    ("max_concurrency", re.compile(r"Maximum concurrency for [\d,]+ tokens per request: ([\d.]+)x", I), lambda m: float(m.group(1)), "last"),
    ("gpu_memory_utilization", re.compile(r"gpu[_-]memory[_-]utilization['\"]?\s*[=(:]\s*\(?([\d.]+)", I),
     lambda m: float(m.group(1)), "last"),
    ("mem_fraction_static", re.compile(r"mem[_-]fraction[_-]static['\"]?\s*[=:]\s*([\d.]+)", I), lambda m: float(m.group(1)), "last"),
    ("tensor_parallel_size", re.compile(r"\b(?:tensor_parallel_size|tp_size|num_shard)['\"]?\s*[=:]\s*(?:Some\()?(\d+)", I),
     lambda m: _int(m.group(1)), "last"),
    ("max_num_batched_tokens", re.compile(r"\bmax_num_batched_tokens['\"]?\s*[=:]\s*(\d+)", I), lambda m: _int(m.group(1)), "last"),
    ("file_type", re.compile(r"file type\s*=\s*(\S+(?: - \w+)?)", I), lambda m: m.group(1), "last"),
    ("n_ctx", re.compile(r"\bn_ctx\s*=\s*" + NUM, I), lambda m: _int(m.group(1)), "last"),
    ("block_size", re.compile(r"block_size\s*[=:]\s*" + NUM, I), lambda m: _int(m.group(1)), "last"),
    # device memory
    ("total_memory_bytes", re.compile(r"total_gpu_memory\s*[=(]\s*" + SIZE, I), _size, "last"),
    ("total_memory_bytes", re.compile(r"total capac\w* of " + NUM + r"(?:\s*([KMGT]i?B))?", I),
     lambda m: to_bytes(m.group(1), m.group(2) or "GiB"), "last"),  # torch prints GiB; excerpts cut the unit
    ("total_memory_bytes", re.compile(SIZE + r" total capacity", I), _size, "last"),
    ("free_memory_bytes", re.compile(r"of which " + SIZE + r" is free", I), _size, "last"),
    ("free_memory_bytes", re.compile(SIZE + r" free;", I), _size, "last"),
    ("free_memory_bytes", re.compile(r"avail mem=" + SIZE, I), _size, "list"),
    ("free_memory_bytes", re.compile(r"using device \w+ \(.*\) .*?- " + SIZE + r" free", I), _size, "last"),
    # TensorRT-LLM
    ("weights_bytes", re.compile(r"Loaded engine size: " + SIZE, I), _size, "last"),
    ("kv_pool_bytes", re.compile(r"Allocated " + SIZE + r" for max tokens in paged KV cache", I), _size, "last"),
    ("kv_pool_tokens", re.compile(r"for max tokens in paged KV cache \(" + NUM + r"\)", I), lambda m: _int(m.group(1)), "last"),
    ("kv_pool_tokens", re.compile(r"tokens the KV cache can hold \(" + NUM + r"\)", I), lambda m: _int(m.group(1)), "last"),
    ("n_parallel", re.compile(r"(?:--parallel|-np|n_seq_max\s*=)\s*(\d+)", I), lambda m: _int(m.group(1)), "last"),
    ("available_memory_bytes", re.compile(r"memory\.available=\"?\[" + SIZE, I), _size, "last"),
    ("available_memory_bytes", re.compile(r"available single GPU memory is " + SIZE, I), _size, "last"),
    ("temporary_buffer_bytes", re.compile(r"temporary buffer size \(" + SIZE, I), _size, "last"),
    ("system_memory_required_bytes", re.compile(r"requires more system memory \(" + SIZE, I), _size, "last"),
    ("system_memory_available_bytes", re.compile(r"than is available \(" + SIZE, I), _size, "last"),
    ("required_full_bytes", re.compile(r"memory\.required\.full=\"?" + SIZE, I), _size, "list"),
    ("graph_full_bytes", re.compile(r"memory\.graph\.full=\"?" + SIZE, I), _size, "last"),
    ("required_partial_bytes", re.compile(r"memory\.required\.partial=\"?" + SIZE, I), _size, "list"),
    ("graph_partial_bytes", re.compile(r"memory\.graph\.partial=\"?" + SIZE, I), _size, "last"),
    ("modules_loaded", re.compile(r"Modules\s*\|.*\|\s*(\d+)/\d+", I), lambda m: _int(m.group(1)), "last"),
    # the failure
    ("failed_alloc_bytes", re.compile(r"Tried to allocate " + SIZE, I), _size, "list"),
    ("failed_alloc_bytes", re.compile(r"attempted to allocate " + SIZE, I), _size, "list"),
    ("failed_alloc_bytes", re.compile(r"allocating " + SIZE + r" on device \d+: cudaMalloc failed", I), _size, "list"),
    ("failed_alloc_bytes", re.compile(r"failed to allocate (?:\w+ )?buffer of size " + NUM + r"\b", I), lambda m: _int(m.group(1)), "list"),
    ("torch_allocated_bytes", re.compile(r"(?:Of the allocated memory |; )" + SIZE + r" (?:is a|already a)", I), _size, "last"),
    ("torch_reserved_unallocated_bytes", re.compile(r"and " + SIZE + r" is reserved by PyTorch but unallocated", I), _size, "last"),
    ("torch_reserved_bytes", re.compile(SIZE + r" reserved in total by PyTorch", I), _size, "last"),
    ("process_in_use_bytes", re.compile(r"this process has " + SIZE + r" memory in use", I), _size, "last"),
    ("other_process_in_use_bytes", re.compile(r"Process \d+ has " + SIZE + r" memory in use", I), _size, "list"),
    ("free_memory_bytes", re.compile(r"Free memory on device \(" + NUM + r"/", I), lambda m: to_bytes(m.group(1), "GiB"), "last"),
    ("total_memory_bytes", re.compile(r"Free memory on device \([\d.]+/" + NUM + r" GiB\)", I),
     lambda m: to_bytes(m.group(1), "GiB"), "last"),
    ("peak_torch_memory_bytes", re.compile(r"peak_torch_memory=" + SIZE, I), _size, "last"),
    ("activation_peak_bytes", re.compile(r"activation peak memory takes " + SIZE, I), _size, "last"),
    ("non_torch_memory_bytes", re.compile(r"non_torch_memory(?:=| takes )" + SIZE, I), _size, "last"),
    ("compute_buffer_bytes", re.compile(r"compute buffer size =\s*" + SIZE, I), _size, "list"),
    ("gpu_compute_buffer_bytes", re.compile(r"(?:CUDA|ROCm|Metal|Vulkan|SYCL)\d* compute buffer size =\s*" + SIZE, I), _size, "list"),
    ("gpu_kv_buffer_bytes", re.compile(r"(?:CUDA|ROCm|Metal|Vulkan|SYCL)\d* KV buffer size =\s*" + SIZE, I), _size, "list"),
    ("runner_size_bytes", re.compile(r"runner\.size=\"?" + SIZE, I), _size, "last"),
    ("runner_vram_bytes", re.compile(r"runner\.vram=\"?" + SIZE, I), _size, "last"),
    # llama.cpp / Ollama offload and requests
    ("layers_offloaded", re.compile(r"offloaded (\d+)/\d+ layers", I), lambda m: _int(m.group(1)), "last"),
    ("layers_total", re.compile(r"offloaded \d+/(\d+) layers", I), lambda m: _int(m.group(1)), "last"),
    ("layers_offloaded", re.compile(r"layers\.offload=(\d+)", I), lambda m: _int(m.group(1)), "list"),
    ("layers_total", re.compile(r"layers\.model=(\d+)", I), lambda m: _int(m.group(1)), "last"),
    ("prompt_tokens", re.compile(r"Processing Prompt(?: \[BLAS\])? \(\d+ / (\d+) tokens\)", I), lambda m: _int(m.group(1)), "last"),
    ("prompt_tokens", re.compile(r"context (\d+), seed", I), lambda m: _int(m.group(1)), "last"),
    ("processed_prompt_tokens", re.compile(r"Processing Prompt(?: \[BLAS\])? \((\d+) / \d+ tokens\)", I), lambda m: _int(m.group(1)), "last"),
    ("context_shift_erased_tokens", re.compile(r"Context Shifting: Erased (\d+) tokens", I), lambda m: _int(m.group(1)), "last"),
    ("queue_reqs", re.compile(r"#queue-req: (\d+)|Waiting: (\d+) reqs", I), lambda m: _int(m.group(1) or m.group(2)), "list"),
    ("prefill_batch_tokens", re.compile(r"#new-token: " + NUM, I), lambda m: _int(m.group(1)), "last"),
    ("max_entry_count", re.compile(r"\bmax_entry_count = ([\d.]+)", I), lambda m: float(m.group(1)), "last"),
    ("cache_max_entry_count", re.compile(r"cache_max_entry_count = ([\d.]+)", I), lambda m: float(m.group(1)), "list"),
    ("kv_usage_pct", re.compile(r"GPU KV cache usage: ([\d.]+)%", I), lambda m: float(m.group(1)), "list"),
    ("kv_usage_pct", re.compile(r"token usage: ([\d.]+)", I), lambda m: round(float(m.group(1)) * 100, 2), "list"),
    ("running_reqs", re.compile(r"Running: (\d+) reqs|#running-req: (\d+)", I),
     lambda m: _int(m.group(1) or m.group(2)), "list"),
]

def _literal(source: str) -> str:
    """The longest literal text a pattern requires outside its groups, lowercased ('' if none):
    a substring test on it is far cheaper than the regex, and most lines fail it."""
    depth, flat, i = 0, [], 0
    while i < len(source):
        c = source[i]
        if c == "\\" and i + 1 < len(source):
            nxt = source[i + 1]
            if depth == 0:
                flat.append(nxt if nxt in ".()[]{}*+?|^$\\\"/=-:#" else "\0")
            i += 2
            continue
        if c == "(":
            depth += 1
            flat.append("\0")
        elif c == ")":
            depth -= 1
        elif depth == 0:
            if c == "|":
                return ""  # a top-level alternation requires no one literal
            flat.append("\0" if c in "[]{}*+?^$." else c)
        i += 1
    text = "".join(flat)
    # a char followed by a quantifier is optional: the chunks are the literal runs between optionals
    chunks = re.split(r"\0|.(?=\0)", text) if text else []
    best = max(chunks, key=len, default="")
    return best.lower() if len(best) >= 3 else ""


_KEYWORDS = [_literal(rule[1].pattern) for rule in RULES]


def extract(line: str) -> Iterator[tuple[str, object, str]]:
    """(key, value, mode) for every figure in `line`."""
    low = line.lower()
    seen: set[tuple[str, int]] = set()
    for (key, pattern, read, mode), kw in zip(RULES, _KEYWORDS):
        if kw and kw not in low:
            continue
        for m in pattern.finditer(line):
            if (key, m.start()) in seen:
                continue
            seen.add((key, m.start()))
            try:
                yield key, read(m), mode
            except (ValueError, KeyError):
                continue
            if mode != "list":
                break
