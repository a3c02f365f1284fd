"""Moves several diagnoses share: the memory fraction, an 8-bit cache, fewer-bit weights, fewer sequences, the
KV cache off the GPU, other processes on the GPU, a cap that was hit."""

from __future__ import annotations

from ..facts import latest
from ..settings import current
from .steps import _KV8, GGML, GIB, Step, _down, _Steps, _up


#: engines whose KV pool is what their memory fraction leaves after the weights and the profiled peak (vLLM's
#: gpu_memory_utilization, SGLang's mem_fraction_static): lowering the fraction takes from the pool
_POOL_IN_FRACTION = ("vllm", "aphrodite", "sglang")


class Base:
    def __init__(self, kind: str, code: str, engine: str, n: dict) -> None:
        self.kind, self.code, self.n = kind, code, n
        self.s = _Steps(engine, n)
        self.capped = False
        self.c = current(n, self.s.engine)

    # --- moves shared by several diagnoses ---------------------------------------------------------------
    def fraction_up(self, why: str, at_least: float | None = None) -> None:
        c = self.c
        if c.fraction is not None and c.fraction >= 0.98:
            return
        w, total = self.n.get("weights_bytes"), self.n.get("total_memory_bytes")
        if isinstance(w, int) and isinstance(total, int) and total > 0 and w >= 0.98 * total:
            return  # (the weights the log shows fill the GPU past any fraction: no fraction leaves a pool)
        value = _up(c.fraction)
        if value is not None and at_least is not None and at_least > value:
            if at_least > 0.98:  # no fraction leaves the pool it needs: weights or GPUs must change instead
                return
            value = round(at_least, 2)
        graphs, total = self.n.get("graph_memory_bytes"), self.n.get("total_memory_bytes")
        if value is not None and isinstance(graphs, int) and isinstance(total, int) and total > 0:
            # what the log shows outside the pool (CUDA graphs) and half a GiB for the rest must stay outside it
            room = int((1 - (graphs + 2**29) / total) * 100) / 100
            if room <= (c.fraction or 0):
                return  # no higher fraction leaves the graphs their memory
            value = min(value, room)
        elif value is not None and isinstance(graphs, int):
            why += f"; leave room outside it for the {graphs / 2**30:.2f} GiB of CUDA graphs the log shows"
        self.s.add("more memory for the pool", "memory_fraction", why, "up", value, c.fraction)

    def _fraction_for_a_pool(self) -> float | None:
        """The fraction at which the weights the log shows leave a quarter of what was free for a pool
        (SGLang prints the memory free before the weights load and what they took)."""
        free, w = self.n.get("free_memory_bytes"), self.n.get("weights_bytes")
        before = free[0] if isinstance(free, list) and free else free
        if isinstance(before, int) and isinstance(w, int) and 0 < w < before:
            return (w + 0.25 * (before - w)) / before
        return None

    def fraction_down(self, why: str, to: float | None = None) -> None:
        if self.capped:  # the cap itself was hit: lowering it would make it worse
            return
        value = _down(self.c.fraction, to)
        pool, total = self.n.get("kv_pool_bytes"), self.n.get("total_memory_bytes")
        if (value is not None and self.c.fraction and self.s.name in _POOL_IN_FRACTION and isinstance(pool, int)
                and isinstance(total, int) and 0 < pool and 0 < total):
            # (the engine carves its KV pool from what the fraction leaves after the weights and the profiled peak:
            # a lower fraction takes its difference from the pool, and a pool smaller than that is gone, the server
            # refusing to start, "No available memory for the cache blocks")
            taken = (self.c.fraction - value) * total
            if taken >= pool:
                self.s.say("no headroom to take from the pool", f"the KV pool is {pool / GIB:.2f} GiB, less than "
                           f"the {taken / GIB:.2f} GiB a fraction of {value:g} (from {self.c.fraction:g}) would take "
                           "from it: the server would not start; smaller weights (fewer bits) or more GPUs make the "
                           "room instead")
                return
        self.s.add("more headroom outside the pool", "memory_fraction", why, "down", value, self.c.fraction)

    def flash_on(self, why: str) -> None:
        """Flash attention on, unless the log shows it on already ("auto" may have left it off: said so)."""
        now = str(self.n.get("flash_attn", "")).lower()
        if now in ("1", "true", "on", "enabled"):
            return
        self.s.add("flash attention", "flash_attn", ("auto may have left it off: " if now == "auto" else "") + why, "on",
                   current=self.n.get("flash_attn"))

    def kv8(self, change: str = "8-bit KV cache", why: str = "halves the bytes per token") -> None:
        if self.c.kv_dtype and _KV8.search(self.c.kv_dtype):
            return
        self.s.add(change, "kv_cache_dtype", why, "on", current=self.c.kv_dtype)

    def quant(self, why: str, change: str = "fewer-bit weights") -> None:
        if self.c.low_bit:
            return
        if self.c.quantized and self.s.engine is not None and self.s.name not in GGML:
            # 8-bit already (fp8, int8): only 4-bit is fewer
            self.s.out.append(Step(change=change, flags=self.s.flags.get("quantization_4bit",
                                                                          "a 4-bit checkpoint (AWQ, GPTQ)"),
                                   why=why + " (the weights are 8-bit already)", setting="quantization",
                                   direction="down"))
            return
        self.s.add(change, "quantization", why + (" (the weights are already quantized: a lower-bit "
                                                  "quant)" if self.c.quantized else ""), "down")

    def images(self, when: str) -> None:
        """Smaller or fewer images for a multimodal encoder that ran out of memory (`when`: while serving, or profiled
        at start with the largest image the limits allow). vLLM's and Aphrodite's flags; SGLang sizes images in its
        processor only; others in plain words."""
        if self.s.name in ("vllm", "aphrodite"):
            # (not a cap on images per prompt the args show at 1 already)
            fewer = ("" if self.n.get("limit_mm_images") == 1 else
                     " and the images per prompt (--limit-mm-per-prompt '{\"image\": 1}')")
            self.s.say("smaller or fewer images", f"the vision encoder ran out of memory {when}: its activations grow "
                       "with the image's pixels; cap them (--mm-processor-kwargs '{\"max_pixels\": N}' for Qwen-VL "
                       f"models){fewer}, or resize images before sending them")
        else:
            self.s.say("smaller or fewer images", f"the vision encoder ran out of memory {when}: its activations grow "
                       "with the image's pixels; send smaller images (resize them before sending) or fewer per request")

    def seqs_down(self, why: str, to: int | None = None) -> None:
        cur = self.c.max_num_seqs
        # (SGLang's prefill batch: its new sequences join the running ones, `prefill_concurrency`)
        seen = [self.n.get(key) for key in ("running_reqs", "prefill_concurrency")]
        running = [v for x in seen for v in (x if isinstance(x, list) else [x]) if isinstance(v, int)]
        peak = max(running) if running else None
        if to is None and peak is not None and peak <= 1:
            return  # (never more than one sequence ran: a lower cap changes nothing)
        if to is None and isinstance(peak, int) and peak > 1 and (cur is None or peak < cur // 2):
            to = max(1, peak * 3 // 4)  # the cap was never reached: below what ran is what changes anything
            why += f" (at most {peak} were running: a cap above that changes nothing)"
        value = to if to is not None else (max(1, cur // 2) if cur and cur > 1 else None)
        if cur is not None and value is not None and value >= cur:
            return
        if cur == 1:
            return
        self.s.add("fewer concurrent sequences", "max_num_seqs", why, "down", value, cur)

    def kv_off(self) -> None:
        if self.c.kv_on_host:
            return
        self.s.add("KV cache off the GPU", "kv_offload", "the KV cache lives beside the offloaded layers; keeping it "
                   "(or some layers) in system memory frees the GPU at some speed", "off")

    def free_gpu(self) -> None:
        """Other processes the error names as holding memory on this GPU (the server's own pids left out)."""
        sizes, pids = self.n.get("listed_process_in_use_bytes") or [], self.n.get("gpu_process_pids") or []
        if not isinstance(sizes, list) or not sizes:
            self._held_elsewhere()
            return
        own = set(self.n.get("server_pids") or [])
        pairs = list(zip(pids, sizes)) if len(pids) == len(sizes) else [(None, b) for b in sizes]
        if all(p is not None for p, _ in pairs):  # several ranks' errors list the same processes again
            pairs = list(dict(pairs).items())
        torch_held = self.n.get("torch_allocated_bytes")
        if isinstance(torch_held, int) and torch_held > 0 and all(
                torch_held <= b <= torch_held * 1.05 + GIB for _, b in pairs):
            # (each process listed holds what PyTorch had allocated in the failing process, and a little more for its
            # context: the failing ranks themselves, one per GPU, as each rank's error lists its own pid, "GPU 2 ...
            # Process 314 has 22.04 GiB memory in use. Of the allocated memory 21.61 GiB is allocated by PyTorch")
            return
        ranks = self.n.get("worker_ranks") or []
        if isinstance(ranks, list) and len(set(ranks)) >= 2:  # the processes may be this server's other ranks
            listed = ", ".join(f"pid {p}: {b / GIB:.2f} GiB" if p else f"{b / GIB:.2f} GiB" for p, b in pairs)
            self.s.say("check the other processes", f"the errors of {len(set(ranks))} ranks list {len(pairs)} "
                       f"process(es) on the GPU ({listed}); any that is not one of this server's ranks takes "
                       "memory from it")
            return
        held = self.n.get("process_in_use_bytes") or self.n.get("torch_allocated_bytes")
        if isinstance(held, int):  # the process whose usage matches what this one holds is this one
            own |= {p for p, b in pairs if p is not None and abs(b - held) <= 0.05 * b or (p and held <= b and
                                                                                            len(pairs) == 1)}
        others = [(p, b) for p, b in pairs if p is None or p not in own]
        if own and others:
            listed = ", ".join(f"pid {p}: {b / GIB:.2f} GiB" if p else f"{b / GIB:.2f} GiB" for p, b in others)
            self.s.say("free the GPU", f"other processes hold memory on this GPU ({listed}); stop them or give this "
                       "server its own GPU")
        elif len(pairs) >= 2 and not own:
            listed = ", ".join(f"pid {p}: {b / GIB:.2f} GiB" if p else f"{b / GIB:.2f} GiB" for p, b in pairs)
            self.s.say("check the other processes", f"the error lists {len(pairs)} process(es) on this GPU ({listed}); "
                       "any that is not this server takes memory from it")

    def _held_elsewhere(self) -> None:
        """PyTorch's error without its list of processes (in a container, whose other processes it cannot see):
        the GPU's total, less what was free and what this process held ("GPU 0 has a total capacity of 23.55 GiB of
        which 100.00 MiB is free. Including non-PyTorch memory, this process has 14.90 GiB memory in use"), is
        memory held outside this process; said where it is a GiB or a twentieth of the GPU, or more."""
        total, free, mine = (self.n.get(k) for k in ("total_memory_bytes", "free_memory_bytes", "process_in_use_bytes"))
        if not (isinstance(total, int) and isinstance(free, int) and isinstance(mine, int) and total > 0):
            return  # (one value each: figures of several errors, one per GPU, are not one GPU's)
        other = total - free - mine
        if other >= max(GIB, total // 20):
            self.s.say("free the GPU", f"the error says this process held {mine / GIB:.2f} GiB of the GPU's "
                       f"{total / GIB:.2f} GiB and {free / GIB:.2f} GiB was free: about {other / GIB:.2f} GiB is held "
                       "outside this process (another process, or another container's, which the error cannot list); "
                       "`nvidia-smi` on the host shows whose: stop it or give this server its own GPU")

    # --- by diagnosis ---------------------------------------------------------------------------------------
    def cap(self) -> bool:
        """The error says a cap was hit ("X GiB allowed", "Device limit"), not the device: raise the cap."""
        allowed = self.n.get("allowed_bytes")
        if not isinstance(allowed, int) and not self.n.get("_exceeds_allowed"):
            return False
        total, free, asked = self.n.get("total_memory_bytes"), latest(self.n, "free_memory_bytes"), \
            self.n.get("failed_alloc_bytes")
        asked = max(asked) if isinstance(asked, list) and asked else asked
        if isinstance(free, int) and isinstance(asked, int) and free < asked or \
                isinstance(total, int) and isinstance(allowed, int) and allowed >= 0.98 * total:
            # the device itself was full (CUDA had less free than was asked), or the cap is the whole device: a higher
            # fraction finds no more memory
            return False
        limit = f" ({allowed / GIB:.2f} GiB)" if isinstance(allowed, int) else ""
        room = (f" ({free / GIB:.2f} GiB free)" if isinstance(free, int) else "")
        self.s.add("a higher memory cap", "memory_fraction", f"the error says the engine's own limit{limit} was hit, "
                   f"not the device's: raise the fraction if the GPU has room{room}",
                   "up", _up(self.c.fraction), self.c.fraction)
        self.capped = True
        return True

