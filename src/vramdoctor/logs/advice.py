"""What to change, in the engine's own flags, moved from the user's own settings as the log shows them.
Pure: (diagnosis, engine, figures) in, a list of steps out, in the order a careful engineer tries them.

Each step says which setting it moves (`setting`, one of engines.interface.SETTINGS), which way
(`direction`: down, up, on, off), to what (`value`, None when the log does not show the current value:
then the step names the direction, never an absolute number taken from a default), and from what
(`current`). A step never proposes what the log shows in use (an 8-bit cache to an 8-bit cache, 4-bit
weights to an AWQ model, moving a KV cache off the GPU that is already off it), never moves a setting
the wrong way, and never gives a flag the engine lacks: an engine not recognised gets plain words.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass

from ..engines import get
from ..engines.interface import Engine
from .settings import current

GIB, MIB = 2**30, 2**20
GGML = ("llamacpp", "ollama", "koboldcpp", "llama-cpp-python")
#: settings in plain words, for an engine vramdoctor does not recognise
PLAIN = {"max_model_len": "the context length per request", "max_num_seqs": "the number of concurrent requests",
         "memory_fraction": "the fraction of GPU memory the engine reserves", "kv_cache_dtype": "an 8-bit KV cache",
         "max_num_batched_tokens": "the tokens processed per step (prefill chunk)",
         "cuda_graphs": "CUDA graph capture (fewer batch sizes or none)", "tensor_parallel_size": "more GPUs",
         "quantization": "fewer-bit weights (a 4-bit or 8-bit checkpoint)", "cpu_offload": "part of the weights in "
         "CPU memory", "gpu_layers": "fewer layers on the GPU", "kv_offload": "the KV cache in system memory",
         "n_ubatch": "a smaller batch", "flash_attn": "flash attention", "prefill_tokens": "the prefill batch size",
         "nccl": "fewer communication buffers", "overhead": "memory kept free outside the engine's estimate"}
_KV8 = re.compile(r"fp8|int8|int4|q8|q4|q5|iq4|8bit|q6|e4m3|e5m2", re.I)


@dataclass
class Step:
    """One change. flags: the engine's spelling ('' for a step in plain words)."""

    change: str
    flags: str
    why: str
    setting: str | None = None
    direction: str | None = None
    value: object = None
    current: object = None

    def to_dict(self) -> dict:
        return asdict(self)


class _Steps:
    def __init__(self, engine: str, n: dict) -> None:
        try:
            self.engine: Engine | None = get(engine) if engine not in ("unknown", "generic") else None
        except Exception:  # noqa: BLE001 - an engine name we cannot resolve gets plain words
            self.engine = None
        self.name = self.engine.name if self.engine else "unknown"
        self.flags = self.engine.flags_for(n) if self.engine else {}
        self.n = n
        # an engine not recognised may have no memory fraction: say so only where the log shows one
        self.plain_fraction = any(n.get(k) for k in ("gpu_memory_utilization", "mem_fraction_static",
                                                     "cache_max_entry_count", "free_gpu_memory_fraction"))
        self.out: list[Step] = []

    def has(self, setting: str) -> bool:
        return self.engine is None or setting in self.flags

    def add(self, change: str, setting: str, why: str, direction: str | None = None, value: object = None,
            current: object = None, **fill: object) -> None:
        """A step moving `setting`; skipped where the engine has no such setting."""
        if self.engine is None:
            if setting == "memory_fraction" and not self.plain_fraction:
                return
            text = ""
            why = f"{PLAIN.get(setting, setting)}: {why}"
        elif setting not in self.flags:
            return
        else:
            text = self.flags[setting]
        if current is None and direction in ("down", "up"):
            current = _shown(setting, self.n)
        if value is not None and current is not None and value == current:
            return  # never propose what is in use
        if text:
            words = {"down": "a lower value than now", "up": "a higher value than now"}.get(direction or "", "")
            if current is not None and direction in ("down", "up") and isinstance(current, (int, float)):
                words = f"{'lower' if direction == 'down' else 'higher'} than {current:,}"
            shown = value if value is not None else words or "a lower value"
            for key in ("n", "x", "v"):
                text = text.replace("{" + key + "}", str(fill.get(key, shown)))
            text = text.replace("{m}", str(fill.get("m", shown)))
        self.out.append(Step(change=change, flags=text, why=why, setting=setting, direction=direction, value=value,
                             current=current))

    def say(self, change: str, why: str) -> None:
        self.out.append(Step(change=change, flags="", why=why))


def _down(u: float | None, to: float | None = None) -> float | None:
    """A fraction strictly below `u` (to `to` when the log says how much is free); None if unknown."""
    if not u:
        return None
    target = to if to is not None and to < u else u - 0.05
    return round(max(target, u / 2), 2)


def _up(u: float | None) -> float | None:
    """A fraction strictly above `u`, at most 0.98; None when unknown or it cannot grow (then: 'higher')."""
    if not u:
        return None
    return round(min(0.98, u + 0.05), 2) if u < 0.98 else None


#: setting -> the figures that hold its value in some engine's log, in order of preference
_SHOWN = {"max_model_len": ("ollama_num_ctx", "max_model_len", "n_ctx", "kv_cells"),
          "max_num_seqs": ("max_num_seqs", "n_parallel"),
          "max_num_batched_tokens": ("max_num_batched_tokens", "chunked_prefill_size", "max_batch_prefill_tokens"),
          "gpu_layers": ("layers_offloaded",), "n_ubatch": ("n_ubatch", "blas_batch_size"),
          "cuda_graphs": ("cuda_graph_max_bs",), "prefill_tokens": ("max_batch_prefill_tokens",)}


def _shown(setting: str, n: dict) -> int | None:
    """The value of `setting` the log shows (a count), None if it shows none."""
    for key in _SHOWN.get(setting, ()):
        v = n.get(key)
        v = v[-1] if isinstance(v, list) and v else v
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return None


def _tp_now(n: dict) -> int | None:
    tp = n.get("tensor_parallel_size")
    return tp if isinstance(tp, int) and tp >= 1 else (1 if n.get("args_listing") else None)


def _more_gpus(n: dict) -> int | None:
    """Twice the tensor-parallel size the log shows (the default 1 where it prints its full arguments); None
    otherwise: worker ranks count data- and expert-parallel workers too, so the step says 'more than now'."""
    tp = _tp_now(n)
    return 2 * tp if tp else None


class _Advisor:
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
        value = _up(c.fraction)
        if value is not None and at_least is not None and at_least > value:
            value = round(min(0.95, at_least), 2)
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
        self.s.add("more headroom outside the pool", "memory_fraction", why, "down", _down(self.c.fraction, to),
                   self.c.fraction)

    def kv8(self) -> None:
        if self.c.kv_dtype and _KV8.search(self.c.kv_dtype):
            return
        self.s.add("8-bit KV cache", "kv_cache_dtype", "halves the bytes per token", "on", current=self.c.kv_dtype)

    def quant(self, why: str) -> None:
        if self.c.low_bit:
            return
        if self.c.quantized and self.s.engine is not None and self.s.name not in GGML:
            # 8-bit already (fp8, int8): only 4-bit is fewer
            self.s.out.append(Step(change="fewer-bit weights", flags="a 4-bit checkpoint (AWQ, GPTQ)",
                                   why=why + " (the weights are 8-bit already)", setting="quantization",
                                   direction="down"))
            return
        self.s.add("fewer-bit weights", "quantization", why + (" (the weights are already quantized: a lower-bit "
                                                               "quant)" if self.c.quantized else ""), "down")

    def seqs_down(self, why: str, to: int | None = None) -> None:
        cur = self.c.max_num_seqs
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
        sizes, pids = self.n.get("other_process_in_use_bytes") or [], self.n.get("gpu_process_pids") or []
        if not isinstance(sizes, list) or not sizes:
            return
        own = set(self.n.get("server_pids") or [])
        pairs = list(zip(pids, sizes)) if len(pids) == len(sizes) else [(None, b) for b in sizes]
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

    # --- by diagnosis ---------------------------------------------------------------------------------------
    def kv(self) -> None:
        s, n, c, code = self.s, self.n, self.c, self.code
        if code == "no-memory-for-kv-cache":
            # the weights alone fill this fraction: a small step rarely leaves a pool, so at least half the rest
            u = c.fraction
            self.fraction_up("the weights leave no room for a KV pool in this fraction; no context length helps",
                             max(self._fraction_for_a_pool() or 0, u + (1 - u) / 2 if u else 0) or None)
            self.quant("smaller weights leave room for the pool")
            s.add("more GPUs", "tensor_parallel_size", "splits the weights, leaving each GPU room for a pool", "up",
                  _more_gpus(n))
            self.free_gpu()
            return
        sized_by_fraction = s.engine is not None and "memory_fraction" in s.flags
        if code == "kv-cache-alloc-failed" and s.name not in GGML and sized_by_fraction:
            # the pool is sized from the fraction, not from the context: allocating it failed because the
            # fraction counted memory that was not free
            tried, free, total = n.get("failed_alloc_bytes"), n.get("free_memory_bytes"), n.get("total_memory_bytes")
            tried = max(tried) if isinstance(tried, list) and tried else tried
            free = free[-1] if isinstance(free, list) and free else free
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
            self.seqs_down("each sequence in the batch has its own cache")
            self.free_gpu()
            return
        fit, asked = n.get("max_model_len_fit") or n.get("kv_pool_tokens"), n.get("max_model_len")
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
            s.add("shorter context", "max_model_len", f"the pool holds {fit:,} tokens; {asked:,} were asked for",
                  "down", fit, asked, m=max(1, fit - 512))
        else:
            s.add("shorter context", "max_model_len", "the context is what the pool must hold per sequence", "down")
        if code not in ("max-model-len-exceeds-kv-cache", "request-exceeds-kv-pool", "request-exceeds-context"):
            conc = n.get("max_concurrency")
            self.seqs_down("each running sequence holds its own KV cache",
                           max(1, int(conc)) if isinstance(conc, float) and conc >= 1 else None)
        self.fraction_up("the pool is what is left of this fraction after the weights")
        self.kv8()
        if s.name in ("vllm", "aphrodite"):
            cur = n.get("max_num_batched_tokens")
            s.add("chunked prefill", "max_num_batched_tokens", "a smaller step shrinks the activation peak profiled "
                  "at start, leaving more for the KV pool", "down",
                  max(512, cur // 4) if isinstance(cur, int) and cur > 512 else None, cur)

    def _ggml_kv(self) -> None:
        """llama.cpp and its wrappers size the cache to -c: the -c that fits the memory the log shows."""
        s, n = self.s, self.n
        per, ctx = n.get("kv_bytes_per_token"), n.get("n_ctx") or n.get("max_model_len")
        parallel = n.get("n_parallel")
        if s.name == "ollama" and isinstance(parallel, int) and parallel > 1:
            # Ollama asks the runner for num_ctx x OLLAMA_NUM_PARALLEL cells (llama-server's slots share -c instead)
            s.add("one sequence at a time", "max_num_seqs", f"the KV cache is sized for {parallel} parallel slots "
                  "of num_ctx each", "down", 1, parallel)
        free, weights = n.get("free_memory_bytes"), n.get("gpu_model_buffer_bytes")
        if not isinstance(free, int) and isinstance(n.get("available_memory_bytes"), int):
            free = n["available_memory_bytes"]  # Ollama's memory.available
        weights = sum(weights) if isinstance(weights, list) else weights
        if isinstance(per, int) and per > 0 and isinstance(ctx, int):
            need = n.get("kv_cache_requested_bytes") or per * ctx
            why = f"the KV cache for {ctx:,} tokens needs {need / GIB:.2f} GiB ({per:,} bytes per token)"
            if isinstance(free, int) and isinstance(weights, int) and free > weights:
                target = max(256, int((free - weights) * 0.9 / per) // 256 * 256)
                why += f"; {free / GIB:.1f} GiB free minus {weights / GIB:.1f} GiB of weights, with a 10% margin"
                slot = n.get("ollama_num_ctx")
                if isinstance(slot, int):  # with one slot (the step above), num_ctx may be as large as what fits
                    if target < slot:
                        s.add("shorter context", "max_model_len", why + f"; with one slot, num_ctx {target} fits",
                              "down", target, slot)
                    elif s.out and s.out[-1].setting == "max_num_seqs":
                        s.out[-1].why += (f"; with one slot your num_ctx of {slot:,} needs {slot * per / GIB:.2f} "
                                          f"GiB, which fits ({target:,} tokens would)")
                elif target < ctx:
                    s.add("shorter context", "max_model_len", why, "down", target, ctx, m=max(1, target - 512))
            else:
                examples = ", ".join(f"{x:,} tokens need {x * per / GIB:.2f} GiB" for x in (4096, 16384, 32768) if x < ctx)
                s.add("shorter context", "max_model_len", why + "; the log does not show the memory free, so choose "
                      "the context whose cache fits it" + (f" ({examples})" if examples else ""), "down", None, ctx)
        else:
            s.add("shorter context", "max_model_len", "the KV cache grows in proportion to the context", "down")
        self.kv_off()
        self.kv8()
        ub = n.get("n_ubatch")
        if not (isinstance(ub, int) and ub <= 256):
            s.add("smaller batches", "n_ubatch", "a smaller batch shrinks the compute buffer reserved beside the KV "
                  "cache", "down", 256, ub)

    def cap(self) -> bool:
        """The error says a cap was hit ("X GiB allowed", "Device limit"), not the device: raise the cap."""
        allowed = self.n.get("allowed_bytes")
        if not isinstance(allowed, int):
            return False
        self.s.add("a higher memory cap", "memory_fraction", f"the error says the engine's own limit "
                   f"({allowed / GIB:.2f} GiB) was hit, not the device's: raise the fraction if the GPU has room",
                   "up", _up(self.c.fraction), self.c.fraction)
        self.capped = True
        return True

    def warmup(self) -> None:
        s, n, c, code = self.s, self.n, self.c, self.code
        self.cap()
        if code == "profile-run-oom":
            tokens = n.get("max_num_batched_tokens")
            s.add("fewer tokens per step", "max_num_batched_tokens", "the profiling pass runs one batch of "
                  "max_num_batched_tokens tokens; its activations must fit beside the weights", "down",
                  max(512, tokens // 4) if isinstance(tokens, int) else None, tokens)
            self.fraction_down("the profiling pass runs in what the fraction leaves")
        elif code == "sampler-warmup-oom":
            cur = c.max_num_seqs
            self.seqs_down("the sampler warm-up allocates logits for max_num_seqs sequences at once",
                           max(1, cur // 4) if cur and cur > 1 else None)
            if "kv_sized" in n.get("_progress", ()):  # the warm-up after the pool was made: the pool crowds it
                self.fraction_down("the warm-up after the pool was allocated runs in what the fraction leaves")
        elif code == "compute-buffer-alloc-failed":
            self._compute_buffer()
        elif code == "prefill-tokens-exceed-memory":
            tokens = n.get("prefill_tokens") or n.get("max_batch_prefill_tokens")
            longest = n.get("max_input_tokens")
            half = tokens // 2 if isinstance(tokens, int) and tokens > 1 else None
            if half and isinstance(longest, int) and half < longest:
                # TGI refuses to start unless max_input_tokens < max_total_tokens and max_batch_prefill_tokens >=
                # max_input_tokens (launcher/src/main.rs): all three go down together, keeping the room for output
                total = n.get("max_model_len")
                room = total - longest if isinstance(total, int) and total > longest else 1
                s.add("shorter inputs and prefill batches", "max_model_len", f"the warm-up prefill ({tokens:,} tokens) "
                      f"must hold the longest input ({longest:,}): the three limits go down together (TGI refuses a "
                      f"prefill batch below the input limit), keeping {room:,} tokens for the output", "down",
                      half + room, total if isinstance(total, int) else None, m=half)
                if s.out and s.out[-1].setting == "max_model_len" and s.out[-1].flags:
                    s.out[-1].flags += f" --max-batch-prefill-tokens {half}"
            else:
                s.add("smaller prefill batches", "prefill_tokens", "TGI's warm-up runs one prefill of "
                      "--max-batch-prefill-tokens; it must fit beside the weights", "down", half, tokens)
            self.quant("leaves more memory for the warm-up")
        elif code == "temporary-buffer-exceeds-memory":
            s.add("smaller prefill chunks", "max_num_batched_tokens", "the temporary buffer is sized for one prefill "
                  "chunk", "down")
            s.add("shorter context window", "max_model_len", "the buffers grow with the context window", "down")
            self.fraction_up("the weights fit; what comes beside them does not")
        elif code == "nccl-buffers-oom":
            self.fraction_down("NCCL allocates its buffers outside the KV pool")
            s.add("no custom all-reduce buffers", "nccl", "one fewer set of communication buffers", "off")
            s.say("smaller NCCL buffers", "set NCCL_BUFFSIZE=4194304 (4 MiB) in the environment")
        elif code == "metal-command-buffer-oom":
            self._metal()
        else:
            self.fraction_down("graph capture and warm-up run in what the pool leaves")
            bs = n.get("cuda_graph_max_bs")
            s.add("smaller CUDA graphs", "cuda_graphs", "graph capture keeps memory for every captured batch size",
                  "down", max(1, bs // 2) if isinstance(bs, int) and bs > 1 else None, bs if isinstance(bs, int) else None)
            s.add("smaller batches", "max_num_batched_tokens", "the profiled activation peak scales with tokens per "
                  "step", "down")
            if s.name in GGML:
                self._compute_buffer()

    def _compute_buffer(self) -> None:
        """llama.cpp family: advice follows the buffer that dominates, KV cache or compute."""
        s, n = self.s, self.n
        kv = n.get("gpu_kv_buffer_bytes") or n.get("kv_pool_bytes")
        comp = n.get("gpu_compute_buffer_bytes") or n.get("compute_buffer_bytes")
        kv = sum(kv) if isinstance(kv, list) else kv
        comp = sum(comp) if isinstance(comp, list) else comp
        ub = n.get("n_ubatch")
        shrink_batch = lambda: s.add("smaller physical batch", "n_ubatch", "the compute buffer grows with the batch",
                                     "down", max(64, ub // 2) if isinstance(ub, int) and ub > 64 else None, ub)
        if isinstance(kv, int) and isinstance(comp, int) and kv > comp:
            ctx = n.get("n_ctx") or n.get("kv_cells")
            s.add("shorter context", "max_model_len", f"the KV cache ({kv / GIB:.2f} GiB) dominates the compute buffer "
                  f"({comp / GIB:.2f} GiB): a shorter context frees the most", "down", None,
                  ctx if isinstance(ctx, int) else None)
            self.kv8()
            shrink_batch()
        else:
            shrink_batch()
            if str(n.get("flash_attn", "")).lower() not in ("1", "true", "on", "enabled"):
                s.add("flash attention", "flash_attn", "without it the compute buffer holds an n_ctx x n_ubatch "
                      "attention matrix", "on", current=n.get("flash_attn"))
            s.add("shorter context", "max_model_len", "the compute buffer grows with the context too", "down")
        s.add("fewer layers on the GPU", "gpu_layers", "frees room for the buffers", "down")

    def _metal(self) -> None:
        self._metal_limit()
        self._compute_buffer()

    def _metal_limit(self) -> None:
        ws = self.n.get("working_set_bytes")
        limit = f" (Metal allows this GPU {ws / GIB:.1f} GiB now)" if isinstance(ws, int) else ""
        self.s.say("a higher Metal working-set limit", "Apple GPUs may wire only part of the unified memory" + limit +
                   "; raise it with `sudo sysctl iogpu.wired_limit_mb=N` (macOS 14+, until reboot), leaving the "
                   "system some memory")

    def weights(self) -> None:
        s, n, c, code = self.s, self.n, self.c, self.code
        if code == "weights-exceed-system-memory":
            s.say("more host memory", "the weights pass through CPU RAM on the way to the GPU: add RAM or swap, or "
                  "load with mmap / safetensors so they are not copied")
        offl = n.get("layers_offloaded")
        offl = offl[-1] if isinstance(offl, list) and offl else offl
        if (s.name in GGML or s.engine is None and n.get("layers_total")) and n.get("_host_alloc_failed"):
            # the buffer that failed was in host RAM (the layers kept on the CPU): more on the GPU, or more RAM
            s.say("more host memory", "the weights that stay on the CPU did not fit in RAM: add RAM, or load with mmap")
            s.add("more layers on the GPU", "gpu_layers", "moves weights from host RAM to the GPU, if it has room",
                  "up", None, offl if isinstance(offl, int) else None)
        elif s.name in GGML or s.engine is None and n.get("layers_total"):
            # the layers whose share of the buffer that failed fits in the memory free, less a tenth for the KV
            # cache and compute buffers that come after the weights
            failed, free = n.get("failed_alloc_bytes"), n.get("free_memory_bytes")
            failed = max(failed) if isinstance(failed, list) and failed else failed
            value, why = None, "keeps part of the model in CPU memory (slower); the weights do not fit whole"
            if isinstance(offl, int) and offl > 0 and isinstance(failed, int) and isinstance(free, int) and failed > 0:
                value = min(offl - 1, int(offl * free * 0.9 / failed))
                why += (f"; {offl} layers asked for {failed / GIB:.2f} GiB with {free / GIB:.2f} GiB free: about "
                        f"{value} fit, leaving a tenth for the KV cache and compute buffers")
            s.add("fewer layers on the GPU", "gpu_layers", why, "down", max(0, value) if value is not None else None,
                  offl if isinstance(offl, int) else None)
        self.quant("the weights alone do not fit; context length does not matter here")
        s.add("more GPUs", "tensor_parallel_size", "splits the weights across GPUs", "up", _more_gpus(n),
              _tp_now(n))
        if s.name not in GGML and s.has("cpu_offload"):
            cur = c.cpu_offload_gb
            gb = s.name in ("vllm", "sglang", "aphrodite")  # a GiB count to raise until the load succeeds
            value = math.ceil((cur or 0) + 8) if gb else None
            s.add("offload part of the weights", "cpu_offload", "keeps part of the weights in CPU memory (slower)"
                  + ("; raise it until the load succeeds" if gb else ""), "up" if gb else None, value,
                  cur if gb else None)
        self.free_gpu()

    def runtime(self) -> None:
        s, n, code = self.s, self.n, self.code
        self.cap()
        self.free_gpu()
        if code == "host-oom-kill":
            s.say("more host memory", "the operating system killed the server for lack of RAM (CPU offload, "
                  "swap-space, or pinned buffers): add RAM or offload less")
            return
        if code == "request-slots-exhausted":  # the request-slot pool, not the KV token pool
            self.seqs_down("the request slots ran out (the engine's own advice); the KV pool itself may be nearly empty")
            return
        if code in ("kv-pool-full-retracting", "kv-pool-full-preempting", "kv-pool-full-queueing", "kv-blocks-exhausted",
                    "kv-cache-entries-exhausted", "kv-cache-full"):
            self._pool_full()
            return
        if code == "metal-command-buffer-oom":
            self._metal_limit()
        if code == "logprobs-oom":
            s.say("fewer prompt logprobs", "prompt_logprobs materialise a prompt-length x vocabulary float32 matrix; "
                  "ask for them on shorter prompts, or not at all")
        prompt = n.get("prompt_tokens")
        s.add("shorter requests first", "max_model_len", "one long prompt's prefill is the usual peak; cap "
              "per-request length", "down", prompt // 2 if isinstance(prompt, int) and prompt > 1 else None,
              prompt, m="a lower value than now")
        s.add("smaller prefill chunks", "max_num_batched_tokens", "spreads a long prompt over several steps", "down")
        if s.name == "koboldcpp":
            s.add("smaller BLAS batches", "n_ubatch", "each prompt batch's compute buffer grows with it", "down", 256)
        self.seqs_down("concurrency multiplies the KV cache and activations")
        self.fraction_down("long prompts' activations live outside the KV pool")

    def _pool_full(self) -> None:
        """The pool was full under load: more pool, or less asked of it."""
        s = self.s
        if s.name in GGML:
            parallel = self.n.get("n_parallel")
            if isinstance(parallel, int) and parallel > 1:
                s.add("fewer parallel slots", "max_num_seqs", "the slots share the cells of -c", "down", parallel // 2,
                      parallel)
            s.add("more cells", "max_model_len", "a larger -c holds more tokens at once (if memory allows)", "up",
                  None, self.n.get("n_ctx"))
            self.kv8()
            return
        running = self.n.get("running_reqs")
        peak = max(running) if isinstance(running, list) and running else None
        cur = self.c.max_num_seqs
        if isinstance(peak, int) and peak > 1 and (cur is None or peak < cur):
            # the pool filled at `peak` running: a cap below it helps, a cap above it does nothing
            self.seqs_down(f"the pool filled with {peak} requests running; a cap below that keeps them in the pool",
                           max(1, peak * 3 // 4))
        else:
            self.seqs_down("fewer sequences at once need fewer blocks")
        self.fraction_up("a larger pool holds more sequences at once")
        self.kv8()
        s.add("shorter requests", "max_model_len", "long requests take the most blocks", "down")
        s.add("more GPUs", "tensor_parallel_size", "splits the KV cache across GPUs: more pool per sequence", "up",
              _more_gpus(self.n))

    def undetermined(self, candidates: list[str]) -> None:
        s = self.s
        if self.code == "autosplit-insufficient-vram":  # weights, cache and a forward pass did not fit together
            s.add("shorter context", "max_model_len", "the cache is sized for max_seq_len (the model's own, often "
                  "32k-128k, unless set): the usual fix", "down", None, self.n.get("max_model_len"))
            self.kv8()
            self.quant("a smaller model leaves more room for the cache")
            return
        try:
            from ..engines import get_engine

            rules = get_engine(s.name).name if s.engine else "generic"
        except Exception:  # noqa: BLE001 - an engine estimate does not model: its generic rules
            rules = "generic"
        pull = ("a KV cache too large for -c wants a smaller -c, a compute buffer a smaller batch" if s.name in GGML
                else "a KV shortfall wants a larger pool, a warm-up one more headroom outside it")
        s.say("find the phase first", f"the ledgers pull opposite ways ({pull}): pass the server's whole log from its "
              f"start line to the end of the error, or run `vramdoctor estimate MODEL --engine {rules}` with the "
              "server's settings to see which ledger is tight")
        if self.code == "failure-cause-not-shown":
            s.say("find the cause", "the line that says why the run failed is missing; memory may not be the cause")


def advise(kind: str, engine: str, n: dict, code: str = "", candidates: list[str] | None = None) -> list[dict]:
    """Steps for `kind` (and its `code`), in the order to try them, each a dict: change, flags, why,
    setting, direction, value, current."""
    par, ctx = n.get("n_parallel"), n.get("n_ctx")
    if engine == "ollama" and isinstance(par, int) and par > 1 and isinstance(ctx, int):
        # Ollama's runner gets --ctx-size num_ctx x OLLAMA_NUM_PARALLEL: the user's num_ctx is a slot's share
        n = {**n, "ollama_num_ctx": ctx // par}
    a = _Advisor(kind, code, engine, n)
    s = a.s
    if kind == "KV_CAPACITY":
        a.runtime() if code.startswith("kv-pool-full") else a.kv()
    elif kind == "WEIGHTS":
        a.weights()
    elif kind == "WARMUP":
        a.warmup()
    elif kind == "RUNTIME":
        a.runtime()
    elif kind == "UNDETERMINED":
        a.undetermined(candidates or [])
    elif kind == "NONE" and code == "requests-refused-too-long":
        ctx = _shown("max_model_len", n)
        if s.name in GGML:
            par = n.get("n_parallel")
            s.add("more context per slot", "max_model_len", "each of the -np slots gets -c / -np tokens; a larger -c "
                  "(if memory allows)", "up", None, ctx)
            if isinstance(par, int) and par > 1:
                s.add("fewer parallel slots", "max_num_seqs", "fewer slots give each a larger share of -c", "down",
                      max(1, par // 2), par)
        else:
            s.add("a longer context", "max_model_len", "if memory allows (`vramdoctor estimate` tells); otherwise "
                  "the client must send shorter requests", "up", None, ctx)
    elif kind == "LEAK":
        s.say("watch, then restart", "usage that keeps rising with steady load points at memory not being freed: "
              "track the engine's KV usage or free memory against load, report it with this log, and restart")
    elif kind == "NOT_OOM":
        if code == "gpu-shared-with-other-process":
            free, total = n.get("free_memory_bytes"), n.get("total_memory_bytes")
            x = round(free / total - 0.02, 2) if isinstance(free, int) and isinstance(total, int) and total else None
            if x is not None and a.c.fraction is not None and x >= a.c.fraction:
                x = None
            w = n.get("weights_bytes")
            tight = (isinstance(w, int) and isinstance(total, int) and x is not None and x * total < w * 1.1)
            s.add("a fraction of what is free", "memory_fraction", "the engine takes its fraction of the whole GPU, "
                  "and another process holds part of it" + ("; at that fraction the weights alone would not fit, so "
                                                             "freeing the GPU is the real fix" if tight else ""),
                  "down", x, a.c.fraction)
            s.say("free the GPU", "stop the other process (nvidia-smi lists it) or give this server its own GPU")
        elif code == "max-model-len-exceeds-model":
            m = n.get("max_model_len_model")
            s.add("the model's own context", "max_model_len", "the requested max_model_len exceeds what the model "
                  "was trained for; use its max_position_embeddings, or rope scaling on purpose", "down", m,
                  n.get("max_model_len"))
        elif n.get("_custom_all_reduce_failed") and s.has("nccl"):
            s.add("no custom all-reduce", "nccl", "the failure is inside the custom all-reduce kernels (peer-to-"
                  "peer between GPUs); NCCL's all-reduce does the same work without them", "off")
        elif code == "cuda-no-kernel-image":
            s.say("a build for this GPU", "memory is not the problem: install a build or wheel compiled for this GPU's "
                  "compute capability (`nvidia-smi --query-gpu=compute_cap --format=csv`; for a source build set "
                  "CMAKE_CUDA_ARCHITECTURES or TORCH_CUDA_ARCH_LIST to it)")
        elif code in ("illegal-memory-access", "device-side-assert", "cuda-kernel-error", "cuda-invalid-argument",
                      "nccl-error", "cuda-error"):
            s.say("leave memory settings alone", "memory is not the problem: a shorter context or lower utilization "
                  "will not fix it; re-run with CUDA_LAUNCH_BLOCKING=1 (NCCL_DEBUG=INFO for NCCL) and report it")
        else:
            s.say("leave memory settings alone", "memory is not the problem: the error names its cause; fix that "
                  "(the model, the install, the set-up) rather than memory settings")
    return [step.to_dict() for step in s.out]
