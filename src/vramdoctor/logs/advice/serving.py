"""Steps while serving: per-request length, concurrency, a larger pool; a pool that is full under load; and what
to do first when the phase is undetermined."""

from __future__ import annotations

from ...engines import get_engine
from ...errors import UsageError
from .steps import GGML, _more_gpus


class ServingSteps:
    def _lora(self) -> None:
        """A LoRA adapter loaded while serving ran out of memory: fewer adapters held at once, a lower rank cap, or
        more room outside the KV pool; the prompts' length is not the matter."""
        s = self.s
        s.add("fewer adapters at once", "lora_slots", "each adapter held on the GPU takes its weights' memory, and "
              "loading one more needs room for its tensors", "down")
        s.add("a lower rank cap", "lora_rank", "adapter slots are sized for the largest rank allowed; a cap that fits "
              "the adapters in use leaves more room", "down")
        self.fraction_down("adapters are loaded outside the KV pool, into what the fraction leaves")

    def runtime(self) -> None:
        s, n, code = self.s, self.n, self.code
        self.cap()
        self.free_gpu()
        if code == "training-step-oom":
            s.say("a smaller step", "a smaller per-device batch (with gradient accumulation to keep the effective "
                  "batch), shorter sequences, or gradient checkpointing: the activations shrink")
            s.say("a lighter optimizer or fewer trained weights", "an 8-bit or paged optimizer, or LoRA in place of a "
                  "full fine-tune: the optimizer's state is two values per trained parameter")
            return
        if code == "host-oom-kill":
            s.say("more host memory", "the server ran out of system RAM (CPU offload, swap-space, pinned buffers or "
                  "the prefix cache kept in RAM): add RAM or offload less")
            return
        if code == "buffer-exceeds-allocation-limit":  # one buffer made for a request (an image's encoder graph)
            self._the_limit("buffer made for the request", ": make that buffer smaller (a smaller image or batch); fewer "
                            "layers on the GPU do not")
            return
        if code == "request-slots-exhausted":  # the request-slot pool, not the KV token pool
            self.seqs_down("the request slots ran out (the engine's own advice); the KV pool itself may be nearly empty")
            return
        if code == "mamba-pool-exhausted":  # the recurrent-state pool, not the KV token pool
            s.say("a larger recurrent-state pool", "the pool of the hybrid model's Mamba / linear-attention state ran "
                  "out of slots for the requests admitted: give it a larger share (SGLang: --mamba-full-memory-ratio "
                  "up, or --max-mamba-cache-size)")
            self.seqs_down("each running request holds its own state slot")
            return
        if code == "nccl-buffers-oom":  # NCCL's buffers made while serving: outside the pool, so headroom first
            self.fraction_down("NCCL makes its buffers outside the KV pool, when a pair of ranks first talks")
            s.add("no custom all-reduce buffers", "nccl", "one fewer set of communication buffers", "off")
            self.seqs_down("fewer requests at once leave more room beside the pool")
            return
        if code == "max-model-len-exceeds-kv-cache":
            # one request needs more than the whole cache holds: it can never run, whatever the load; fewer sequences
            # or smaller prefill chunks do not help it (tabbyAPI's "Job requires 33 pages (only 32 available)")
            if s.name == "exllamav2":  # (its cache_size is set apart from max_seq_len: only the cap goes down)
                s.say("a larger cache", "the request needs more pages than the whole cache holds: cache_size at least "
                      "max_seq_len (a multiple of it for batches or CFG), if memory allows")
                s.say("shorter requests", "or a max_seq_len within the cache, so no request is longer than it can hold")
            else:
                self.fraction_up("a larger pool holds the longest request")
                s.add("shorter requests", "max_model_len", "a request longer than the whole cache can never run", "down")
            self.kv8()
            return
        if code == "kv-swap-space-exhausted":
            s.say("preempt by recompute, or more swap", "preempted sequences are swapped to CPU memory of "
                  "--swap-space GiB per GPU, which ran out: --preemption-mode recompute drops their KV cache and "
                  "recomputes it instead, or a larger --swap-space gives them room")
        if code in ("kv-swap-space-exhausted", "kv-pool-full-retracting", "kv-pool-full-preempting", "kv-pool-full-queueing", "kv-blocks-exhausted",
                    "kv-cache-entries-exhausted", "kv-cache-full", "kv-cache-full-request-failed",
                    "kv-pool-full-smaller-batch",
                    "crash-after-kv-pool-full", "stall-after-kv-pool-full"):
            self._pool_full()
            return
        if code == "lora-load-oom":
            self._lora()
            return
        if code == "metal-command-buffer-oom":
            self._metal_limit()
        if code == "multimodal-encoder-oom":
            self.images("on a request's images")
        if code == "logprobs-oom":
            # (the sampler's logprobs of the sampled tokens, compute_logprobs, or a prompt's, _get_prompt_logprobs_dict:
            # either makes a tokens x vocabulary float32 matrix)
            s.say("fewer logprobs", "log-probabilities (a request's `logprobs`, or `prompt_logprobs`) make a tokens x "
                  "vocabulary float32 matrix (the batch's sampled tokens, or the whole prompt): ask for fewer, on "
                  "shorter prompts or fewer requests at once, or not at all")
        prompt = n.get("prompt_tokens")
        value = prompt // 2 if isinstance(prompt, int) and prompt > 1 else None
        inputs = n.get("max_input_tokens")  # TGI: the input limit moves with the total (it must stay below it)
        m = (min(inputs, value - 1) if value and value > 1 else f"lower than {inputs:,}") if isinstance(inputs, int) \
            else None
        s.add("shorter requests first", "max_model_len", "one long prompt's prefill is the usual peak; cap "
              "per-request length", "down", value, prompt, m=m)
        if s.name != "tgi":  # (TGI refuses --max-batch-prefill-tokens below --max-input-tokens: the step above covers it)
            s.add("smaller prefill chunks", "max_num_batched_tokens", "spreads a long prompt over several steps", "down")
        else:
            # the router batches waiting prefills up to --max-batch-prefill-tokens while serving (a serving knob, as well
            # as the warm-up's); it must stay at or above --max-input-tokens (launcher/src/main.rs)
            tokens, inputs = n.get("max_batch_prefill_tokens"), n.get("max_input_tokens")
            if isinstance(tokens, int) and tokens > 1:
                half = tokens // 2
                floor = f"; it may not go below --max-input-tokens ({inputs:,})" if isinstance(inputs, int) else \
                    "; it may not go below --max-input-tokens, so lower that with it (the step above)"
                if not (isinstance(inputs, int) and half < inputs):
                    s.add("smaller prefill batches", "prefill_tokens", f"the router batches prefills up to "
                          f"{tokens:,} tokens while serving; a smaller budget lowers a prefill batch's peak" + floor,
                          "down", half, tokens)
        if s.name == "koboldcpp":
            s.add("smaller BLAS batches", "n_ubatch", "each prompt batch's compute buffer grows with it", "down", 256)
        if s.name not in GGML or s.name == "ollama":
            # (llama.cpp's slots share the cells of -c: fewer of them free no KV cache; Ollama's runner gets num_ctx
            # times its parallel count, so there fewer do)
            self.seqs_down("concurrency multiplies the KV cache and activations")
        if s.name in GGML:
            # (a request's compute buffer is reserved anew for its batch: without flash attention it holds an
            # n_ctx x n_ubatch attention matrix; layers kept on the CPU leave the GPU room for it)
            self.flash_on("without it each prompt batch's compute buffer holds an n_ctx x n_ubatch attention matrix")
            s.add("fewer layers on the GPU", "gpu_layers", "leaves room for the buffers a request needs", "down")
        self.fraction_down("long prompts' activations live outside the KV pool")

    def _pool_full(self) -> None:
        """The pool was full under load: more pool, or less asked of it."""
        s = self.s
        if self._paged():
            return
        if s.name in GGML:
            parallel = self.n.get("n_parallel")
            ctx = s.term("max_model_len", "the context")
            if isinstance(parallel, int) and parallel > 1:
                share = (f"each slot has its own {ctx}, and the runner's cache is {ctx} x the slots" if s.name == "ollama"
                         else f"the slots share the cells of {ctx}")
                s.add("fewer parallel slots", "max_num_seqs", share, "down", parallel // 2, parallel)
            # (from -c as given where the log shows it: a slot's line prints its own share, "n_ctx = 2048" of -c 8192
            # over 4 slots)
            # (Ollama's num_ctx is a slot's share: the runner's cells are it x the slots)
            slot = self.n.get("ollama_num_ctx")
            cells = [v for v in (self.n.get("n_ctx"), self.n.get("max_model_len")) if isinstance(v, int) and v > 0]
            s.add("more cells", "max_model_len", f"a larger {ctx} holds more tokens at once (if memory allows)", "up",
                  None, slot if isinstance(slot, int) else max(cells) if cells else None)
            dt = self.n.get("defrag_thold")
            if self.n.get("_defrag_hint") and not (isinstance(dt, float) and dt >= 0):
                # (the build's own hint names it: free cells scattered between the slots' sequences fit no batch)
                s.add("KV defragmentation on", "kv_defrag", "the engine's own warning names it: free cells scattered "
                      "between the slots' sequences fit no batch; defragmentation packs them" + (
                          " (off here: a negative -dt)" if isinstance(dt, float) else
                          " (the log does not show -dt: common.h's default is -1, off, in older builds and 0.1 in "
                          "later ones)"), "on",
                      None, dt if isinstance(dt, float) else None)
            # the cache is sized in cells (-c), not bytes: an 8-bit cache alone adds none
            self.kv8(f"8-bit KV cache with a larger {ctx}", f"halves the bytes per token, so about twice the {ctx} "
                     "fits in the same memory; on its own it adds no cells")
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
        inputs = self.n.get("max_input_tokens")  # (TGI: the input limit goes down with the total)
        s.add("shorter requests", "max_model_len", "long requests take the most blocks", "down",
              m=f"lower than {inputs:,}" if isinstance(inputs, int) else None)
        s.add("more GPUs", "tensor_parallel_size", "splits the KV cache across GPUs: more pool per sequence", "up",
              _more_gpus(self.n))

    def _estimate_hint(self, purpose: str = "") -> str:
        """What `estimate` can add, in words for an undetermined step (purpose: "to see whether they fit", ...): its
        command with the rules of the run's engine; for an engine it does not model, said so plainly (on Apple's unified
        memory, where its CUDA rules do not apply, with what to compare instead)."""
        s = self.s
        try:
            rules = get_engine(s.name).name if s.engine else "generic"
        except UsageError:
            rules = None
        more = f" {purpose}" if purpose else ""
        if rules:
            return f"or run `vramdoctor estimate MODEL --engine {rules}` with the server's settings{more}"
        label = s.engine.label if s.engine else s.name
        if s.name == "mlx" or self.code.startswith("metal"):
            return (f"or hold the model's weights and the KV cache its context needs against the Metal working-set limit "
                    f"(`sysctl iogpu.wired_limit_mb`){more}; `vramdoctor estimate` does not model {label}")
        return (f"or run `vramdoctor estimate MODEL --engine generic` with the server's settings{more} (estimate does not "
                f"model {label}: its generic rules give the weights and the KV cache only)")

    def _paged(self) -> bool:
        """SGLang's decode allocation failing with more tokens free than it asked for ("Try to allocate 148 tokens.
        Avaliable tokens: 2048"): the count is the running requests' next tokens, but the paged allocator gives each
        request that crosses a page boundary a whole page of --page-size tokens (schedule_batch.py
        alloc_paged_token_slots_decode: "assume each request needs a new page"), so the pages ran out, not the
        tokens. The page size first, then the requests one pool of pages holds; then the ordinary steps."""
        s, n = self.s, self.n
        asked, free, page = n.get("failed_alloc_tokens"), n.get("available_tokens"), n.get("page_size")
        if s.name != "sglang" or not (isinstance(asked, int) and isinstance(free, int)) or free < asked or asked < 1:
            return False
        if isinstance(page, int) and page > 1:
            why = (f"{asked} running requests asked for a token each, but each that starts a new page takes a whole page "
                   f"of {page} tokens ({asked * page:,} tokens for all of them) and {free:,} were free: smaller pages "
                   "waste less (1 where the attention backend allows it; FlashMLA needs 64)")
            s.add("smaller KV pages", "page_size", why, "down", None, page)
            self.seqs_down(f"{free:,} free tokens hold {free // page} pages of {page}: no more requests than that can "
                           "each start a page at once", max(1, free // page))
        else:
            s.add("smaller KV pages", "page_size", f"{asked} tokens were asked for and {free:,} were free: the "
                  "allocator hands out whole pages (a --page-size above 1), one per request that starts a new page, "
                  "so the pages ran out, not the tokens; smaller pages waste less", "down")
            self.seqs_down("fewer requests at once start fewer pages")
        self.fraction_up("a larger pool holds more pages")
        return True

    def undetermined(self, candidates: list[str]) -> None:
        s = self.s
        if self.code == "thread-creation-failed":  # a process limit, not a ledger: which one is the question
            s.say("check the process limits", "run `ulimit -a` where the server starts: with a virtual-memory limit "
                  "(`ulimit -v`), each thread's stack needs address space under it: raise or remove it, or run fewer "
                  "threads (OMP_NUM_THREADS, llama.cpp -t) or smaller stacks (`ulimit -s`); with the threads limit "
                  "(`ulimit -u`, a container's pids limit) reached, raise it or run fewer threads")
            return
        if self.code == "autosplit-insufficient-vram":  # weights, cache and a forward pass did not fit together
            s.add("shorter context", "max_model_len", "the cache is sized for max_seq_len (the model's own, often "
                  "32k-128k, unless set): the usual fix", "down", None, self.n.get("max_model_len"))
            self.kv8()
            self.quant("a smaller model leaves more room for the cache")
            return
        # (the context setting in the engine's own spelling: Ollama's num_ctx, KoboldCpp's --contextsize, not llama.cpp's -c)
        ctx = (s.flags.get("max_model_len") or "-c {n}").split(" {")[0].split(" (")[0] if s.engine else "the context"
        pull = (f"a KV cache too large for {ctx} wants a smaller {ctx}, a compute buffer a smaller batch" if s.name in GGML
                else "a KV shortfall wants a larger pool, a warm-up one more headroom outside it")
        if set(candidates) == {"WEIGHTS", "KV_CAPACITY"}:  # (a refusal before the load: its need counts both)
            pull = (f"weights that do not fit want a smaller or more quantized model or more GPUs, a KV cache that does "
                    + (f"not fit a smaller {ctx}" if s.engine else "not fit a shorter context"))
        if self.code in ("log-cut-off", "log-ends-during-step"):
            s.say("read the rest of the log", "the log stops before anything failed or finished: pass it to its end "
                  f"(`docker logs`, `journalctl -u ...`, the whole file), {self._estimate_hint('to see whether they fit')}")
        elif len(candidates) == 1:
            s.say("confirm the phase", f"only {candidates[0]} fits what the log shows (its progress or its stack frames), "
                  f"but no line states it: pass the whole log from its start line, {self._estimate_hint()}")
        else:
            s.say("find the phase first", f"the ledgers pull opposite ways ({pull}): pass the server's whole log from "
                  f"its start line to the end of the error, {self._estimate_hint('to see which ledger is tight')}")
        if self.code == "metal-command-buffer-oom":
            self._metal_limit()
        if self.code == "failure-cause-not-shown":
            s.say("find the cause", "the line that says why the run failed is missing; memory may not be the cause" + (
                # (the client prints only the runner's last error; the reason is in the server's own log, where
                # docs/troubleshooting.md says it is kept)
                ": it is in the Ollama server's log, not the client's (Linux: `journalctl -u ollama --no-pager`; "
                "macOS: ~/.ollama/logs/server.log; Windows: %LOCALAPPDATA%\\Ollama\\server.log; docker: `docker logs "
                "CONTAINER`), the lines just above `llama runner process has terminated`" if s.name == "ollama" else ""))


