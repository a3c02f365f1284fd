"""Steps for the KV cache ledger: a pool too small for the context, no pool at all, a pool that failed to
allocate; llama.cpp and its wrappers size -c from the memory the log shows."""

from __future__ import annotations

import math

from ..facts import latest
from .sizes import kv_shortfall
from .steps import GGML, GIB, _more_gpus

#: the least --hicache-ratio SGLang takes: it asserts its host tier is larger than the GPU pool (memory_pool_host.py)
_HICACHE_LEAST_RATIO = 1.0

#: engines whose memory fraction is of the memory left after the weights and buffers (LMDeploy's
#: cache_max_entry_count, TensorRT-LLM's free_gpu_memory_fraction), not of the whole GPU
FRACTION_OF_FREE = ("lmdeploy", "tensorrt-llm")

#: the context whose cache the memory the log shows would hold failed all the same: what the engine reserved beside it
#: (compute buffers, another GPU's share, another process) took the difference
_FITS_YET_FAILED = ("; the memory the log shows would hold it, yet its allocation failed: buffers beside it or another "
                    "process took the rest, so lower it below your current value until it loads")


class KvSteps:
    def kv(self) -> None:
        s, n, c, code = self.s, self.n, self.c, self.code
        if code == "hicache-host-memory-short":
            self._host_tier()
            return
        if code == "max-num-seqs-exceeds-state-pool":
            # one state block per running sequence: the cap below the blocks the pool holds, or a pool with more
            blocks = n.get("state_pool_blocks")
            blocks = blocks if isinstance(blocks, int) and blocks > 0 else None
            s.add("fewer concurrent sequences", "max_num_seqs", "each running sequence of this hybrid model holds one "
                  "block of recurrent state" + (f"; the pool has {blocks:,}" if blocks else ""), "down", blocks,
                  c.max_num_seqs)
            self.fraction_up("a larger pool holds more state blocks")
            return
        if code == "no-memory-for-kv-cache":
            # the weights alone fill this fraction: a small step rarely leaves a pool, so at least half the rest
            u = c.fraction
            short = n.get("profiled_max_total_tokens")
            deep = isinstance(short, int) and short < 0 and u is not None and u >= 0.9
            fraction = (lambda: self.fraction_up(
                "the weights leave no room for a KV pool in this fraction; no context length helps" + (
                    f" (the profile came out {-short:,} tokens below none: the little the fraction can still rise may "
                    "not cover that; if it does not, the weights per GPU must shrink)" if deep else ""),
                max(self._fraction_for_a_pool() or 0, u + (1 - u) / 2 if u else 0) or None))
            if s.name not in FRACTION_OF_FREE and not deep:  # (a fraction of what the weights left: of nothing, nothing)
                fraction()
            elif s.name in FRACTION_OF_FREE and u is not None and u < 0.5:
                # ... unless that fraction is small: LMDeploy's pool is cache_max_entry_count of the free memory less
                # its runtime's own cache (pytorch/engine/model_agent.py __get_free_gpu_mem_size), so a small share
                # of what the weights left comes out at no block at all
                self.fraction_up(f"the pool gets {u:g} of the memory the weights left, less the runtime's own cache: "
                                 "too small a share for a single block", u + (1 - u) / 2)
            self.quant("smaller weights leave room for the pool")
            ranks = n.get("_tp_ranks_seen")
            ranks = ranks if isinstance(ranks, list) else [ranks] if isinstance(ranks, int) else []
            seen = max(ranks) + 1 if ranks and _more_gpus(n) is None else None
            s.add("more GPUs", "tensor_parallel_size", "splits the weights, leaving each GPU room for a pool" + (
                f"; ranks TP0-TP{seen - 1} print, so at least {seen} now" if seen and seen > 1 else ""), "up",
                  _more_gpus(n))
            if s.name not in FRACTION_OF_FREE and deep:  # a fraction near its top, far short: the last step
                fraction()
            self.free_gpu()
            return
        sized_by_fraction = s.engine is not None and "memory_fraction" in s.flags
        if code == "kv-cache-alloc-failed" and s.name not in GGML and sized_by_fraction:
            # the pool is sized from the fraction, not from the context: allocating it failed because the
            # fraction counted memory that was not free
            tried, free, total = n.get("failed_alloc_bytes"), latest(n, "free_memory_bytes"), n.get("total_memory_bytes")
            tried = max(tried) if isinstance(tried, list) and tried else tried
            to = None
            if c.fraction and all(isinstance(v, int) and v > 0 for v in (tried, free, total)) and tried > free:
                to = c.fraction - (tried - free) / total - 0.02
            self.fraction_down("allocating the pool itself failed: it was sized from a fraction of memory that was "
                               "not free (another process, NCCL buffers, the engine's own buffers); leave more outside "
                               "it", to)
            self.free_gpu()
            return
        if s.name in GGML or self.s.engine is None and n.get("n_ctx"):
            if code in ("kv-cache-alloc-failed", "kv-cache-forces-cpu-offload"):
                self._ggml_kv()
                return
        if code == "kv-cache-alloc-failed":  # an engine that sizes its cache to the context (ExLlamaV2, transformers)
            s.add("shorter context", "max_model_len", "the cache is allocated for the whole context at once",
                  "down", None, n.get("max_model_len"))
            self.kv8()
            if not n.get("_shared_cache"):  # (tabbyAPI's one cache of cache_size tokens does not grow with the batch)
                self.seqs_down("each sequence in the batch has its own cache")
            self.free_gpu()
            return
        fit, asked = n.get("max_model_len_fit") or n.get("kv_pool_tokens"), n.get("max_model_len")
        need, avail = n.get("kv_needed_bytes"), n.get("kv_available_bytes")
        about = ""
        if fit is None and isinstance(asked, int) and isinstance(need, int) and isinstance(avail, int) and (
                0 < avail < need):
            # vLLM's check (v1/core/kv_cache_utils.py check_enough_kv_cache_memory): `need` is one sequence of
            # max_model_len tokens, linear in it for full attention, so the context that fits is in the same
            # proportion (down to a multiple of 256: a sliding window's layers make the real one a little larger)
            fit = asked * avail // need // 256 * 256 or None
            about = "about "
        if isinstance(fit, int) and isinstance(asked, int) and 0 <= fit < min(2048, asked / 8):
            # a pool of a few blocks: the weights fill the fraction (or the profile measured wrong), and a
            # context that short serves nothing
            s.say("the pool is almost empty", f"it holds {fit:,} tokens of the {asked:,} asked for: what is left "
                  "after the weights and the profiled peak is next to nothing")
            self.fraction_up("the weights leave almost no room for a KV pool in this fraction",
                             (c.fraction + (1 - c.fraction) / 2) if c.fraction else None)
            self.quant("smaller weights leave room for the pool")
            s.add("more GPUs", "tensor_parallel_size", "splits the weights, leaving each GPU room for a pool", "up",
                  _more_gpus(n))
            return
        if isinstance(fit, int) and isinstance(asked, int) and 0 < fit < asked:
            s.add("shorter context", "max_model_len", f"the pool holds {about}{fit:,} tokens; {asked:,} were asked for",
                  "down", fit, asked, m=max(1, fit - 512))
        else:
            s.add("shorter context", "max_model_len", "the context is what the pool must hold per sequence", "down")
        if code not in ("max-model-len-exceeds-kv-cache", "request-exceeds-kv-pool", "request-exceeds-context",
                        "kv-cache-too-small"):
            conc = n.get("max_concurrency")
            self.seqs_down("each running sequence holds its own KV cache",
                           max(1, int(conc)) if isinstance(conc, float) and conc >= 1 else None)
        self._fraction_for_the_shortfall()
        if s.engine is None and code in ("request-exceeds-kv-pool", "max-model-len-exceeds-kv-cache"):
            # (an engine we do not know, FreeToken's "increase the KV cache budget": its own setting, in plain words)
            s.say("a larger KV cache", "the engine's own setting for the KV cache's size (a token budget, or a share "
                  "of memory): the pool is smaller than one request needs")
        if isinstance(fit, int) and isinstance(asked, int) and 0 < fit < asked / 2:
            # half the bytes per token doubles the pool's tokens: still short of what was asked for
            self.kv8("8-bit KV cache, with a shorter context", f"halves the bytes per token: the pool would hold about "
                     f"{2 * fit:,} tokens, still short of {asked:,}, so only together with a shorter context")
        else:
            self.kv8()
        if s.name in ("vllm", "aphrodite"):
            cur = n.get("max_num_batched_tokens")
            # (where chunked prefill is on already, V1 or a V0 log that shows it, the step is only a smaller chunk)
            on = "--enable-chunked-prefill" not in s.flags.get("max_num_batched_tokens", "")
            why = "a smaller step shrinks the activation peak profiled at start, leaving more for the KV pool"
            if isinstance(fit, int) and isinstance(asked, int) and 0 < fit < asked / 2:
                # (a step's activations are a few hundred MiB to a GiB or two; a pool under half the context is
                # short by more than that)
                why += (f", but by far less than the pool is short ({fit:,} of {asked:,} tokens): only together "
                        "with a shorter context")
            s.add("smaller prefill chunks" if on else "chunked prefill", "max_num_batched_tokens", why, "down",
                  max(512, cur // 4) if isinstance(cur, int) and cur > 512 else None, cur)

    def _host_tier(self) -> None:
        """SGLang's hierarchical cache, whose host tier asked for more host memory than was free (its check keeps
        10 GiB of the host's available memory aside, memory_pool_host.py): a smaller host tier, not a GPU setting.
        The tier is --hicache-size GB per rank where that is set (above 0), else --hicache-ratio x the device pool."""
        s, n = self.s, self.n
        asked, free = n.get("hicache_requested_bytes"), n.get("hicache_host_free_bytes")
        ratio, size = n.get("hicache_ratio"), n.get("hicache_size")
        fits = isinstance(asked, int) and isinstance(free, int) and asked > 0
        said = (f"the host tier asked for {asked / 1e9:.2f} GB with {free / 1e9:.2f} GB free beyond what SGLang keeps "
                "aside" if fits else "the host tier asked for more host memory than was free")
        if isinstance(size, int) and size > 0:
            s.add("smaller host KV cache", "hicache_size", said + "; each rank on the host takes its own", "down",
                  int(free * 0.9 / 1e9) if fits and free >= 1e9 else None, size)
        else:
            to = None
            if fits and isinstance(ratio, float) and ratio > 0:
                to = math.floor(ratio * free / asked * 0.9 * 10) / 10 or None
            if to is not None and to <= _HICACHE_LEAST_RATIO:
                # SGLang asserts the host tier is larger than the GPU pool ("The host memory should be larger than the
                # device memory with the current protocol", memory_pool_host.py): no ratio that fits is one it takes
                s.say("the host tier cannot shrink that far", f"{said}: a ratio of {to:g} would fit, but SGLang needs the "
                      f"host tier larger than the GPU pool (a ratio above 1); a smaller GPU pool shrinks the tier with it")
                s.add("a smaller GPU pool", "memory_fraction", "the host tier is a multiple of the GPU pool, which "
                      "this fraction sizes: a smaller pool needs a smaller tier (fewer tokens cached on the GPU)", "down",
                      None, self.c.fraction)
            else:
                s.add("smaller host KV cache", "hicache_ratio", said + " (the tier is this ratio x the GPU pool, and "
                      "SGLang needs it above 1; --hicache-size N sets N GB per rank instead)", "down", to,
                      ratio if isinstance(ratio, float) else None)
        s.say("more free host memory", "other processes or a container's memory limit take host memory the tier needs; "
              "every rank on the host allocates its own tier")
        s.say("the hierarchical cache off", "without --enable-hierarchical-cache the GPU pool serves alone; nothing "
              "on the GPU is short")

    def _fraction_for_the_shortfall(self) -> None:
        """A larger fraction, as large as the pool's shortfall needs; none where no fraction up to 0.98 gives it
        (a shorter context and an 8-bit cache still do)."""
        c = self.c
        why = "the pool is what is left of this fraction after the weights"
        gap, total, printed = kv_shortfall(self.n, c.fraction)
        if not (gap and total and c.fraction) or self.s.name in FRACTION_OF_FREE:
            self.fraction_up(why)
            return
        need = c.fraction + gap / total
        if need > 0.98:
            return  # (0.98 of this GPU adds less than the pool lacks)
        on = f"the GPU's {total / GIB:.2f} GiB" if printed else f"a GPU of at least {total / GIB:.2f} GiB"
        self.fraction_up(f"{why}; it lacks {gap / GIB:.2f} GiB, {gap / total:.3f} of {on}", math.ceil(need * 100) / 100)

    def _ggml_kv(self) -> None:
        """llama.cpp and its wrappers size the cache to -c: the -c that fits the memory the log shows."""
        s, n = self.s, self.n
        per, ctx = n.get("kv_bytes_per_token"), n.get("n_ctx") or n.get("max_model_len")
        # the context the user set (KoboldCpp's --contextsize, llama.cpp's -c), which the engine pads to its cells
        # (65,536 -> n_ctx 65,632): the value a step moves from; the cells it printed are what the cache was sized for
        user = n.get("max_model_len") if s.name != "ollama" else None
        user = user if isinstance(user, int) and user > 0 and isinstance(ctx, int) and user <= ctx else ctx
        parallel = n.get("n_parallel")
        if s.name == "ollama" and isinstance(parallel, int) and parallel > 1:
            # Ollama asks the runner for num_ctx x OLLAMA_NUM_PARALLEL cells (llama-server's slots share -c instead)
            s.add("one sequence at a time", "max_num_seqs", f"the KV cache is sized for {parallel} parallel slots "
                  "of num_ctx each", "down", 1, parallel)
        host = bool(n.get("_host_alloc_failed"))  # the buffer that failed was in host RAM, not on a GPU
        free, weights = n.get("free_memory_bytes"), n.get("gpu_model_buffer_bytes")
        if host:
            free = None  # the GPU's free memory says nothing of the RAM the cache failed in
        if not isinstance(free, int) and isinstance(n.get("available_memory_bytes"), int) and not host:
            free = n["available_memory_bytes"]  # Ollama's memory.available
        weights = sum(weights) if isinstance(weights, list) else weights
        if isinstance(per, int) and per > 0 and isinstance(ctx, int):
            need = n.get("kv_cache_requested_bytes") or per * ctx
            why = f"the KV cache for {ctx:,} tokens needs {need / GIB:.2f} GiB ({per:,} bytes per token)"
            if isinstance(free, int) and isinstance(weights, int) and free > weights:
                # (without flash attention the compute buffer holds the KQ matrix, n_ubatch x n_ctx x n_head in f32,
                # sized for the whole context: each token of -c costs that too; llamacpp.compute_buffer_estimate)
                kq = _kq_bytes_per_token(n)
                target = max(256, int((free - weights) * 0.9 / (per + kq)) // 256 * 256)
                why += f"; {free / GIB:.1f} GiB free minus {weights / GIB:.1f} GiB of weights, with a 10% margin"
                if kq:
                    why += (f"; with flash attention off, the compute buffer adds {kq:,} bytes per token of context "
                            f"(n_ubatch x n_head x 4: {s.term('flash_attn', 'flash attention')} drops it and lets a "
                            f"longer {s.term('max_model_len', 'context')} fit)")
                slot = n.get("ollama_num_ctx")
                if isinstance(slot, int):  # with one slot (the step above), num_ctx may be as large as what fits
                    slots = parallel if s.name == "ollama" and isinstance(parallel, int) and parallel > 1 else 1
                    alone = max(256, target // slots // 256 * 256)  # (the step on its own, at the slots in use)
                    if slots > 1 and alone < slot:
                        s.add("shorter context", "max_model_len", why + f"; at your {slots} slots num_ctx {alone} "
                              f"fits, or {target} with one slot (the step above)", "down", alone, slot)
                    elif target < slot:
                        s.add("shorter context", "max_model_len", why + f"; with one slot, num_ctx {target} fits",
                              "down", target, slot)
                    elif s.out and s.out[-1].setting == "max_num_seqs":
                        s.out[-1].why += (f"; with one slot your num_ctx of {slot:,} needs {slot * per / GIB:.2f} "
                                          f"GiB, which fits ({target:,} tokens would)")
                    else:
                        s.add("shorter context", "max_model_len", why + _FITS_YET_FAILED, "down", None, slot)
                elif target < user:
                    s.add("shorter context", "max_model_len", why, "down", target, user, m=max(1, target - 512))
                else:  # the memory shown would hold it, yet its allocation failed: the context is still what to lower
                    s.add("shorter context", "max_model_len", why + _FITS_YET_FAILED, "down", None, user)
            else:
                examples = ", ".join(f"{x:,} tokens need {x * per / GIB:.2f} GiB" for x in (4096, 16384, 32768) if x < ctx)
                where = "the host RAM it failed in" if host else "it"
                s.add("shorter context", "max_model_len", why + f"; the log does not show the memory free, so choose "
                      f"the context whose cache fits {where}" + (f" ({examples})" if examples else ""), "down", None,
                      user)
        else:
            s.add("shorter context", "max_model_len", "the KV cache grows in proportion to the context", "down")
        if host:  # the cache (or the layers beside it) was already in host RAM: more of it on the GPU, or more RAM
            s.say("more host memory", "the KV cache buffer that failed was in system RAM (a CPU build, -nkvo, or the "
                  "layers left on the CPU): add RAM, or put the cache on a GPU that has room")
        else:
            self.kv_off()
        self.kv8()
        ub = n.get("n_ubatch")
        if not (isinstance(ub, int) and ub <= 256):
            s.add("smaller batches", "n_ubatch", "a smaller batch shrinks the compute buffer reserved beside the KV "
                  "cache", "down", 256, ub)


def _kq_bytes_per_token(n: dict) -> int:
    """Bytes per token of context the compute buffer takes for the KQ matrix where the log shows flash attention off
    (llama.cpp's `flash_attn = 0`, "Flash Attention was auto, set to disabled"): n_ubatch x n_head x 4 (f32); 0 where
    it is on, or the log does not show it, n_ubatch or n_head."""
    fa, ub, heads = n.get("flash_attn"), n.get("n_ubatch"), n.get("n_head")
    off = str(fa).lower() in ("0", "false", "off", "disabled")
    return ub * heads * 4 if off and isinstance(ub, int) and isinstance(heads, int) and ub > 0 and heads > 0 else 0
