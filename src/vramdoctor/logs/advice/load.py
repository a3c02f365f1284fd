"""Steps for the weights and the warm-up: fewer-bit weights, more GPUs, CPU offload, fewer GPU layers sized
from the memory free; graph capture, sampler and profiling headroom, compute buffers, Metal."""

from __future__ import annotations

import math

from ..facts import latest, summed
from .sizes import (
    AT_4_BITS,
    AT_8_BITS,
    FRACTION_UNSHOWN,
    device_bytes,
    for_weights,
    gpus_needed,
    loaded_when_it_failed,
    tp_sizes_allowed,
    weights_in_all,
)
from .kv import FRACTION_OF_FREE
from .steps import GGML, GIB, _more_gpus, _tp_now


#: turning mmap on, and leaving it on, in each GGML engine's own terms (llama.cpp common/arg.cpp --no-mmap; Ollama's
#: use_mmap option; llama-cpp-python's use_mmap, its server's --use_mmap; KoboldCpp's --nommap)
_MMAP_ON = {"": ("drop --no-mmap", "no --no-mmap"),
            "ollama": ("set its use_mmap option to true", "its use_mmap option left on"),
            "llama-cpp-python": ("use_mmap=True; its server: --use_mmap true", "use_mmap left True"),
            "koboldcpp": ("drop --nommap (releases that map only when asked: --usemmap)", "no --nommap")}


def _metal_room(n: dict) -> tuple[int, int] | None:
    """(the weights' Metal buffers, the bytes the working-set limit leaves them beside the KV cache and compute buffers
    the log shows), from llama.cpp's figures (gpu_model_buffer_bytes, working_set_bytes, gpu_kv_buffer_bytes,
    gpu_compute_buffer_bytes); None where a figure is missing or nothing is left."""
    ws, gpu = n.get("working_set_bytes"), summed(n, "gpu_model_buffer_bytes") or 0
    if not isinstance(ws, int) or gpu <= 0:
        return None
    left = ws - (summed(n, "gpu_kv_buffer_bytes") or 0) - (summed(n, "gpu_compute_buffer_bytes") or 0)
    return (gpu, left) if left > 0 else None


class LoadSteps:
    def warmup(self) -> None:
        s, n, c, code = self.s, self.n, self.c, self.code
        self.cap()
        if code == "multimodal-encoder-oom":
            # (profiled with the largest image the limits allow: smaller limits shrink the pass, no fraction does)
            self.images("while it was profiled with the largest image the limits allow")
            self.quant("leaves more memory beside the weights for the encoder's pass")
        elif code == "profile-run-oom":
            tokens = n.get("max_num_batched_tokens")
            s.add("fewer tokens per step", "max_num_batched_tokens", "the profiling pass runs one batch of "
                  "max_num_batched_tokens tokens; its activations must fit beside the weights", "down",
                  max(512, tokens // 4) if isinstance(tokens, int) else None, tokens)
            # (no lower fraction: the profiling pass runs before the pool exists, on all the GPU's free memory; the
            # fraction only sizes the pool after it)
            self.quant("leaves more memory beside the weights for the profiling pass")
        elif code == "execution-context-oom":
            # (TensorRT-LLM's execution context, made before the KV pool: its buffers are the build's limits; no
            # fraction bounds it, as the pool is sized after it from what is left)
            tokens = n.get("max_num_batched_tokens")
            s.add("fewer tokens per step", "max_num_batched_tokens", "the execution context's activation buffers are "
                  "sized for this many tokens at once, before the KV pool exists", "down",
                  max(512, tokens // 2) if isinstance(tokens, int) else None, tokens)
            cur = c.max_num_seqs
            self.seqs_down("the buffers are also sized for the build's largest batch",
                           max(1, cur // 2) if cur and cur > 1 else None)
            self.quant("leaves more memory beside the weights for the execution context")
        elif code == "sampler-warmup-oom":
            cur = c.max_num_seqs
            self.seqs_down("the sampler warm-up allocates logits for max_num_seqs sequences at once",
                           max(1, cur // 4) if cur and cur > 1 else None)
            progress = n.get("_progress", ())
            if "kv_sized" in progress:  # the warm-up after the pool was made: the pool crowds it
                self.fraction_down("the warm-up after the pool was allocated runs in what the fraction leaves")
            elif "weights_done" not in progress:  # (loaded, pool not sized: the profiling pass, which no fraction bounds)
                self.fraction_down("if the warm-up came after the pool was allocated (the log does not show which: the "
                                   "profiling pass before it runs the sampler too), it runs in what the fraction leaves")
        elif code == "compute-buffer-alloc-failed":
            self._compute_buffer()
        elif code == "buffer-exceeds-allocation-limit":
            self._allocation_limit()
        elif code == "prefill-tokens-exceed-memory":
            self._prefill_limits()
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
            if s.name == "tgi":  # its warm-up is one prefill of --max-batch-prefill-tokens, bound to the input limit:
                self._prefill_limits()  # the limits that size it come first (router/src/main.rs warmup)
            self.fraction_down("graph capture and warm-up run in what the pool leaves")
            bs = n.get("cuda_graph_max_bs")
            s.add("smaller CUDA graphs", "cuda_graphs", "graph capture keeps memory for every captured batch size",
                  "down", max(1, bs // 2) if isinstance(bs, int) and bs > 1 else None, bs if isinstance(bs, int) else None)
            if s.name != "tgi" and code != "cuda-graph-capture-oom":
                # (not for the graphs' capture: fewer tokens per step lower the profiled peak, which only makes the pool
                # larger; the room the capture has outside the pool stays what the fraction leaves, and SGLang's pool
                # does not follow the chunk size at all)
                s.add("smaller batches", "max_num_batched_tokens", "the profiled activation peak scales with tokens "
                      "per step", "down")
            if s.name in GGML:
                self._compute_buffer()

    def _prefill_limits(self) -> None:
        """TGI: a smaller warm-up prefill (--max-batch-prefill-tokens), with the input and total limits where the
        prefill would go below the input limit."""
        s, n = self.s, self.n
        tokens = n.get("prefill_tokens") or n.get("max_batch_prefill_tokens")
        longest = n.get("max_input_tokens")
        half = tokens // 2 if isinstance(tokens, int) and tokens > 1 else None
        if half and isinstance(longest, int) and half < longest and not n.get("_tgi_chunking"):
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
                  "--max-batch-prefill-tokens; it must fit beside the weights" + (
                      f" (its v3 router splits a longer input over several prefill batches where the model supports "
                      f"chunking, TGI 3's default, so --max-input-tokens {longest:,} may stay; where it refuses a "
                      f"prefill batch below the input limit, TGI 2.x or PREFILL_CHUNKING=0, lower --max-input-tokens "
                      f"to it too)" if n.get("_tgi_chunking") and isinstance(longest, int) and half and half < longest
                      else ""),
                  "down", half, tokens)

    def _compute_buffer(self) -> None:
        """llama.cpp family: advice follows the buffer that dominates, KV cache or compute."""
        s, n = self.s, self.n
        kv = n.get("gpu_kv_buffer_bytes") or n.get("kv_pool_bytes")
        comp = n.get("gpu_compute_buffer_bytes") or n.get("compute_buffer_bytes")
        kv = sum(kv) if isinstance(kv, list) else kv
        comp = sum(comp) if isinstance(comp, list) else comp
        if isinstance(kv, int) and isinstance(comp, int) and kv > comp:
            ctx = n.get("n_ctx") or n.get("kv_cells")
            user = n.get("max_model_len") if s.name != "ollama" else None  # (the -c the user set, before padding)
            ctx = user if isinstance(user, int) and isinstance(ctx, int) and 0 < user <= ctx else ctx
            s.add("shorter context", "max_model_len", f"the KV cache ({kv / GIB:.2f} GiB) dominates the compute buffer "
                  f"({comp / GIB:.2f} GiB): a shorter context frees the most", "down", None,
                  ctx if isinstance(ctx, int) else None)
            self.kv8()
            self._smaller_batch()
        else:
            self._smaller_compute_buffer()
        copies = n.get("sched_copies")
        if isinstance(copies, int) and copies > 1:
            s.say("one copy of the compute buffers", f"pipeline parallelism over the GPUs keeps {copies} copies of each "
                  "compute buffer (ggml's scheduler, GGML_SCHED_MAX_COPIES): a build with -DGGML_SCHED_MAX_COPIES=1 "
                  "keeps one, and so does a run without pipeline parallelism (--split-mode row, or one layer fewer on "
                  "the GPUs than the model has)")
        if n.get("_host_alloc_failed"):  # (host RAM failed: layers moved off the GPU would need more of it)
            s.say("more host memory", "the allocation that failed was in system RAM (ggml's host allocator, a CPU "
                  "buffer): free RAM, raise the process's memory limits (`ulimit -v`, a container's), or add RAM")
            return
        s.add("fewer layers on the GPU", "gpu_layers", "frees room for the buffers", "down")

    def _smaller_batch(self) -> None:
        ub = self.n.get("n_ubatch")
        self.s.add("smaller physical batch", "n_ubatch", "the compute buffer grows with the batch", "down",
                   max(64, ub // 2) if isinstance(ub, int) and ub > 64 else None, ub)

    def _smaller_compute_buffer(self) -> None:
        """The steps that shrink llama.cpp's compute buffer: a smaller physical batch, flash attention (unless on),
        a shorter context."""
        s = self.s
        self._smaller_batch()
        self.flash_on("without it the compute buffer holds an n_ctx x n_ubatch attention matrix")
        s.add("shorter context", "max_model_len", "the compute buffer grows with the context too", "down")

    def _allocation_limit(self) -> None:
        """One buffer (the compute buffer, most often) larger than the device allows in a single allocation (Vulkan's
        maxMemoryAllocationSize or maxBufferSize): only a smaller buffer helps. Fewer layers on the GPU or more free
        memory do not shrink it."""
        self._the_limit("buffer", ": make the buffer smaller; fewer layers on the GPU do not")
        self._smaller_compute_buffer()

    def _the_limit(self, what: str, then: str) -> None:
        """Says which buffer (`what`) went past the device's single-allocation limit, with its size where shown."""
        failed = self.n.get("failed_alloc_bytes")
        failed = max(failed) if isinstance(failed, list) and failed else failed
        size = f" ({failed / GIB:.2f} GiB)" if isinstance(failed, int) else ""
        self.s.say("a buffer within the device's single-allocation limit", f"the {what}{size} is larger than this "
                   "GPU's driver allows in one allocation (Vulkan's maxMemoryAllocationSize or maxBufferSize, about 4 "
                   f"GiB on many drivers), however much memory is free{then}")

    def _weights_past_the_limit(self) -> None:
        """The weights' buffer on the GPU larger than one allocation may be (ggml-vulkan's maxMemoryAllocationSize):
        the GPU may have the memory; the buffer must be smaller, so fewer layers in it, or a build that splits the
        weights over several buffers. More GPUs or fewer-bit weights are not what this says."""
        s = self.s
        self._the_limit("weights' buffer", "")
        s.add("fewer layers on the GPU", "gpu_layers", "the layers on the GPU share that one buffer: fewer make it "
              "smaller than the limit", "down")
        s.say("a newer build", "newer llama.cpp builds split the weights over several buffers, each within the "
              "device's limit")

    def _metal(self) -> None:
        self._metal_limit()
        self._compute_buffer()

    def _metal_limit(self) -> None:
        ws = self.n.get("working_set_bytes")
        limit = f" (Metal allows this GPU {ws / GIB:.1f} GiB now)" if isinstance(ws, int) else ""
        self.s.say("a higher Metal working-set limit", "Apple GPUs may wire only part of the unified memory" + limit +
                   "; raise it with `sudo sysctl iogpu.wired_limit_mb=N` (macOS 14+, until reboot), leaving the "
                   "system some memory")

    def _metal_weights(self) -> None:
        """Weights that failed in an Apple GPU's buffer, held against the Metal limit the log shows: its working-set
        limit (recommendedMaxWorkingSetSize; `sudo sysctl iogpu.wired_limit_mb` raises it), and in 2023 builds the
        largest single buffer, maxBufferLength ("buffer 'data' size N is larger than buffer maximum of M",
        metal-buffer-exceeds-max), under which a buffer within the working set can still fail."""
        n = self.n
        ws, failed = n.get("working_set_bytes"), n.get("failed_alloc_bytes")
        failed = max(failed) if isinstance(failed, list) and failed else failed
        if not isinstance(ws, int):
            return
        if self.code == "metal-buffer-exceeds-max":
            self.s.say("a buffer within Metal's maximum", "the buffer is larger than the largest one this Apple GPU "
                       "allocates (maxBufferLength, below its working set): fewer layers on the GPU or a smaller "
                       "quant; newer llama.cpp builds split the weights over several buffers")
        elif isinstance(failed, int) and failed > ws:
            self._metal_limit()
        elif isinstance(failed, int):
            self.s.say("the Metal limits", f"the buffer that failed ({failed / GIB:.1f} GiB) is within the working-set "
                       f"limit the log shows ({ws / GIB:.1f} GiB, recommendedMaxWorkingSetSize): what refused it is the "
                       "memory other programs hold, or the largest single buffer the GPU allows (maxBufferLength; 2023 "
                       "builds say `buffer 'data' size N is larger than buffer maximum`, metal-buffer-exceeds-max); "
                       "raising `iogpu.wired_limit_mb` alone may not help")

    def weights(self) -> None:
        s, n, c, code = self.s, self.n, self.c, self.code
        if code == "buffer-exceeds-allocation-limit":
            self._weights_past_the_limit()
            return
        if code in ("draft-model-weights-oom", "projector-weights-oom"):
            self._second_model()
        host = code == "weights-exceed-system-memory"  # host RAM ran out: nothing may move to the CPU
        no_gpu = n.get("gpu_absent") is True  # (the engine found no GPU: nothing moves there)
        if host:
            s.say("more host memory", ("the engine found no GPU, so the weights live in CPU RAM" if no_gpu else
                                       "the weights pass through CPU RAM on the way to the GPU") + ": add RAM or swap" + (
                  "" if n.get("mmap_in_use") is True else
                  # (a GGUF is mapped unless mmap is turned off: llama.cpp's --no-mmap, Ollama's use_mmap false; the
                  # log's own "(mmap = false)" says it was off for this load: Ollama turns it off by itself where free
                  # RAM is below its estimate, so it must be asked for)
                  (", or load it memory-mapped so it is not copied (it was not: " + _MMAP_ON.get(s.name, _MMAP_ON[""])[0]
                   + ")" if n.get("mmap_in_use") is False else
                   ", or keep the model memory-mapped (" + _MMAP_ON.get(s.name, _MMAP_ON[""])[1] + ") so it is not "
                   "copied")
                  if s.name in GGML else ", or load with mmap / safetensors so they are not copied"))
        offl = latest(n, "layers_offloaded")
        rep = n.get("repeating_layers_offloaded")
        if offl is None and isinstance(rep, int):  # a load that failed before "offloaded N/M layers"
            offl = rep + (1 if n.get("_output_layer_offloaded") else 0)
        ngl = n.get("n_gpu_layers")
        if offl is None and isinstance(ngl, int) and not isinstance(ngl, bool) and ngl >= 0:
            offl = ngl  # the layers the user asked for (-ngl, n_gpu_layers), where the log prints none offloaded
            layers = n.get("layers_total") or n.get("model_layers")
            if isinstance(layers, int) and layers > 0:
                # (no more than the model has: -ngl 99 on 80 layers puts the 80 and the output layer there)
                offl = min(offl, layers + (1 if n.get("layers_total") is None else 0))
        every = _all_layers(offl, n)  # (-ngl 99 or more, or every layer the model has: none left to move)
        if host and (s.name in GGML or s.engine is None and n.get("layers_total")):
            if not no_gpu and not _gpu_full(n) and not every:
                s.add("more layers on the GPU", "gpu_layers", "layers on the GPU do not stay in host RAM, if the GPU "
                      "has room", "up", None, offl if isinstance(offl, int) else None)
        elif (s.name in GGML or s.engine is None and n.get("layers_total")) and n.get("_host_alloc_failed"):
            # the buffer that failed was in host RAM (the layers kept on the CPU): more on the GPU, or more RAM
            if n.get("_repack_failed"):
                # ggml-cpu repacks weights for its kernels into a buffer of its own: a copy in RAM, mmap or not
                s.say("no weight repacking", "the CPU's repacked copy of the weights (CPU_REPACK) did not fit in RAM; "
                      "it is made even from memory-mapped weights: turn repacking off (llama.cpp `--no-repack`), or "
                      "add RAM")
            elif n.get("mmap_in_use") is True:
                s.say("more host memory", "the weights that stay on the CPU did not fit in RAM, memory-mapped already: "
                      "add RAM, or keep fewer layers on the CPU")
            else:
                s.say("more host memory", "the weights that stay on the CPU did not fit in RAM: add RAM, or load with "
                      "mmap")
            if not no_gpu and not every:
                s.add("more layers on the GPU", "gpu_layers", "moves weights from host RAM to the GPU, if it has room",
                      "up", None, offl if isinstance(offl, int) else None)
        elif (s.name in GGML and isinstance(n.get("_host_pinned_failed_bytes"), int)
              and not n.get("failed_alloc_bytes") and not no_gpu):
            # no device buffer failed, and the layers kept on the CPU could not even be pinned: host RAM is the short
            # one, so fewer layers on the GPU would put more of the weights where memory is already short
            pinned = n["_host_pinned_failed_bytes"]
            s.say("more host memory", f"the {pinned / GIB:.2f} GiB of weights kept on the CPU could not be pinned "
                  "(ggml_cuda_host_malloc): host RAM, or the pinning limit (`ulimit -l`, WSL), is short already; fewer "
                  "layers on the GPU would put more of the model there. Add RAM, or use fewer-bit weights")
        elif s.name in GGML or s.engine is None and n.get("layers_total"):
            # the layers whose share of the buffer that failed fits in the memory free, less a tenth for the KV
            # cache and compute buffers that come after the weights
            failed, free = n.get("failed_alloc_bytes"), n.get("free_memory_bytes")
            failed = max(failed) if isinstance(failed, list) and failed else failed
            value, why = None, "keeps part of the model in CPU memory (slower); the weights do not fit whole"
            if n.get("_alloc_chunked") is True:
                # (the device allocates in pieces of at most its largest allocation: the piece that failed is one of
                # the weights' buffers, the others made before it, so their total is not in these figures)
                why += (f"; the {failed / GIB:.2f} GiB that failed is one piece of the weights (a Vulkan device takes "
                        "them in pieces no larger than its largest single allocation), not their whole size"
                        if isinstance(failed, int) else "")
            elif (isinstance(offl, int) and offl > 0 and isinstance(failed, int) and isinstance(free, int) and
                    0 < failed <= 0.9 * free):
                # (by the log's own figures the buffer fit: the memory was taken between the reading and the
                # allocation, by another process or a model still loaded, so no count follows from them)
                why = (f"by the log's own figures the {offl} layers' {failed / GIB:.2f} GiB fit in the "
                       f"{free / GIB:.2f} GiB free: something else held the memory when it was allocated (another "
                       "process, a model still loaded: nvidia-smi); fewer layers (slower) only if the GPU is this "
                       "server's alone")
            elif isinstance(offl, int) and offl > 0 and isinstance(failed, int) and isinstance(free, int) and failed > 0:
                value = min(offl - 1, int(offl * free * 0.9 / failed))
                why += (f"; {offl} layers asked for {failed / GIB:.2f} GiB with {free / GIB:.2f} GiB free: about "
                        f"{value} fit, leaving a tenth for the KV cache and compute buffers")
            room = _metal_room(n) if code == "weights-exceed-working-set" else None
            if room and isinstance(offl, int) and offl > 0:
                # (the weights' Metal buffers past the working-set limit: the layers whose share fits in the limit,
                # less the KV cache and compute buffers the log shows beside them)
                gpu, left = room
                value = min(offl - 1, int(offl * left / gpu))
                why += (f"; the {offl} layers' {gpu / GIB:.2f} GiB of Metal buffers against the "
                        f"{left / GIB:.2f} GiB the working-set limit leaves beside the KV cache and compute buffers: "
                        f"about {value} fit")
            if offl == 1:  # below one layer there is only none: the CPU alone
                value, why = 0, "one layer was on the GPU and still the load failed: below 1 the only step is 0, " \
                                "the model on the CPU alone (slower)"
            if offl == 0:
                s.say("the GPU holds no layers already", "no layer was asked for on the GPU: what failed is not a "
                      "layer's weights (a buffer the backend maps whole, or host RAM)")
            else:
                s.add("fewer layers on the GPU", "gpu_layers", why, "down",
                      max(0, value) if value is not None else None, offl if isinstance(offl, int) else None)
            self._metal_weights()
        if host:
            # the weights never reached the GPUs: more GPUs (more workers, each loading its shard through RAM), a
            # device_map or what is free on a GPU do not lower the host's peak; fewer-bit weights do, and so does
            # offloading less of them to the CPU, where they stay in RAM
            if c.cpu_offload_gb and s.has("cpu_offload"):
                s.add("less CPU offload", "cpu_offload", "the offloaded weights are held in host RAM", "down", None,
                      c.cpu_offload_gb)
            if n.get("system_memory_required_bytes") is not None:
                # (an engine's refusal that sums every ledger for the context asked for, Ollama's "model requires more
                # system memory (45.3 GiB)": the KV cache is in that sum, so the context counts too)
                self.quant("fewer bytes of weights to pass through host RAM; the sum refused also holds the KV cache "
                           "for the context asked for, so a shorter context lowers it as well")
                return
            self.quant("fewer bytes of weights to pass through host RAM; context length does not matter here")
            return
        if s.name in GGML and (n.get("_host_alloc_failed") or no_gpu):
            # (host RAM ran out for the layers kept on the CPU, or there is no GPU: more GPUs or a freer one do not
            # lower what stays in RAM)
            self.quant("fewer bytes of weights in host RAM; context length does not matter here")
            return
        if s.name in GGML:  # (their GPUs are layers' homes, sized above by -ngl, not a tensor-parallel size)
            self.quant("the weights alone do not fit; context length does not matter here")
            s.add("more GPUs", "tensor_parallel_size", "splits the weights across GPUs", "up", _more_gpus(n),
                  _tp_now(n))
            self.free_gpu()
            return
        tp = _tp_now(n)
        # what one GPU holds for weights (the fraction of LMDeploy and TensorRT-LLM is the KV cache's share of what the
        # weights leave: not a bound on them)
        whole = c.fraction if s.name not in FRACTION_OF_FREE else None
        per_gpu = for_weights(n, whole)
        weights, source = weights_in_all(n, tp)
        self._fewer_bits(weights, per_gpu, tp)
        self._gpus_for_weights(weights, source, per_gpu, tp)
        if s.has("cpu_offload"):
            self._offload(weights, per_gpu, tp)
        self.free_gpu()

    def _second_model(self) -> None:
        """The second model loaded after the first (a speculative decoding draft, a multimodal projector) is the one
        that did not fit: that model smaller, elsewhere, or not loaded, in the engine's own flags where it has them
        (vLLM engine/arg_utils.py --speculative-config / --speculative-model; SGLang server_args.py
        --speculative-draft-model-path, its draft worker built after the target's pool; llama.cpp common/arg.cpp
        -md / -ngld / --no-mmproj-offload; KoboldCpp --draftmodel / --draftgpulayers / --mmprojcpu)."""
        s = self.s
        if self.code == "projector-weights-oom":
            how = {"llamacpp": "keep it on the CPU (--no-mmproj-offload; slower image reading), or a smaller "
                               "projector file (an f16 or q8_0 mmproj instead of f32)",
                   "koboldcpp": "keep it on the CPU (--mmprojcpu), or a smaller projector file",
                   "ollama": "a text-only variant of the model (no projector), or fewer layers on the GPU (num_gpu) to "
                             "leave it room"}.get(s.name, "keep it on the CPU if the engine allows it, a smaller "
                                                           "projector file, or a text-only model")
            s.say("a smaller projector, or none on the GPU", "the model's own weights fit; the multimodal projector "
                  "loaded after them did not: " + how)
            return
        how = {"vllm": "a smaller or quantized draft model (\"model\" in --speculative-config; --speculative-model "
                       "in older releases), or no speculative decoding",
               "sglang": "a smaller draft model (--speculative-draft-model-path), or no speculative decoding; the "
                         "draft loads after the target's KV pool is made, so a lower --mem-fraction-static leaves it "
                         "room",
               "llamacpp": "a smaller draft model (-md), fewer of its layers on the GPU (-ngld), or no draft",
               "koboldcpp": "a smaller draft model (--draftmodel), fewer of its layers on the GPU (--draftgpulayers), "
                            "or no draft"}.get(s.name, "a smaller or quantized draft model, or no speculative decoding")
        s.say("a smaller draft model, or none", "the target model's weights fit; the draft model loaded after them "
              "did not: " + how)

    def _room(self, per_gpu: int) -> str:
        """What one GPU holds for weights, and how that follows from the log."""
        total, frac = device_bytes(self.n), self.c.fraction if self.s.name not in FRACTION_OF_FREE else None
        return (f"about {per_gpu / GIB:.1f} GiB ({total / GIB:.2f} GiB x "
                + (f"the fraction {frac:g}" if frac else f"{FRACTION_UNSHOWN:g}, no fraction shown")
                + ", less a tenth for the KV cache and activations)")

    def _fewer_bits(self, weights: int | None, per_gpu: int | None, tp: int | None) -> None:
        """Fewer-bit weights, said to be too few where even 4 bits leave them larger than a GPU holds."""
        why, change = "the weights alone do not fit; context length does not matter here", "fewer-bit weights"
        if weights and per_gpu and not self.c.quantized:
            per = weights / (tp or 1)
            at4, at8 = per * AT_4_BITS, per * AT_8_BITS
            if at4 > per_gpu:
                change = "fewer-bit weights, with more GPUs"
                why += (f"; at 4 bits they would still be about {at4 / GIB:.1f} GiB per GPU, more than the "
                        f"{self._room(per_gpu)} one holds: only together with more GPUs")
            elif at8 > per_gpu:
                why += (f"; at 4 bits about {at4 / GIB:.1f} GiB per GPU fits in the {self._room(per_gpu)} one "
                        f"holds; fp8's {at8 / GIB:.1f} GiB does not")
        self.quant(why, change)

    def _gpus_for_weights(self, weights: int | None, source: str, per_gpu: int | None, tp: int | None) -> None:
        """More GPUs, as many as hold the weights (their size over what one GPU holds for them), at a size the model's
        heads allow; with their size not shown, the least count the log allows, said to be a least."""
        s, n = self.s, self.n
        heads = n.get("_model_heads")
        above = (tp or 1) + 1
        if weights and per_gpu:
            need = gpus_needed(weights, per_gpu)
            size = tp_sizes_allowed(max(need, above), heads)
            if size is None:
                s.say("more GPUs than the model splits across", f"{weights / GIB:.1f} GiB of weights ({source}) need "
                      f"{need} GPUs of this size, more than its {heads[0]} attention heads split across: fewer-bit "
                      "weights, or GPUs with more memory")
                return
            why = (f"splits the weights: {weights / GIB:.1f} GiB of them ({source}) need {need} GPU"
                   f"{'s' if need > 1 else ''} of this size, each holding {self._room(per_gpu)}")
            if need <= (tp or 1):
                why += f"; they did not fit on {tp or 1} all the same (see what else holds memory)"
            if size != max(need, above):
                why += (f"; {size}, the next size its {heads[0]} attention heads allow" if heads else
                        f"; {size}, the next power of two (the sizes a model's heads allow)")
            s.add("more GPUs", "tensor_parallel_size", why, "up", size, tp)
            return
        if tp is None:
            s.add("more GPUs", "tensor_parallel_size", "splits the weights across GPUs", "up", None, None)
            return
        held = loaded_when_it_failed(n)
        least = above
        if held and per_gpu:
            least = max(above, gpus_needed(held * tp, per_gpu))
        size = tp_sizes_allowed(least, heads)
        why = (f"splits the weights across GPUs: at least {size}, since they did not fit on {tp}"
               + (f" (they are more than the {held * tp / GIB:.1f} GiB loaded when it failed)" if held else "")
               + "; how many they need is their size over what one GPU holds for them: pass --model to size it")
        s.add("more GPUs", "tensor_parallel_size", why, "up", size, tp)

    def _offload(self, weights: int | None, per_gpu: int | None, tp: int | None) -> None:
        """The part of each GPU's weights that does not fit, kept in CPU memory (a GiB count in vLLM and SGLang)."""
        s, cur = self.s, self.c.cpu_offload_gb
        if s.name not in ("vllm", "sglang", "aphrodite"):
            s.add("offload part of the weights", "cpu_offload", "keeps part of the weights in CPU memory (slower)")
            return
        why, value = "keeps part of each GPU's weights in CPU memory (slower: they cross PCIe at every step)", None
        if weights and per_gpu and weights / (tp or 1) > per_gpu:
            per = weights / (tp or 1)
            rest = per - per_gpu
            value = math.ceil((cur or 0) + rest / GIB)
            why += (f": {per / GIB:.1f} GiB of weights per GPU, of which one holds {self._room(per_gpu)}; the host "
                    "needs that much free RAM" + ("; it is most of the model, much slower than more GPUs or fewer-bit "
                                                  "weights" if rest > per / 2 else ""))
        else:
            held = loaded_when_it_failed(self.n)
            why += "; raise it until the load succeeds"
            if held and per_gpu and held > per_gpu:
                why += (f" (at least {math.ceil((held - per_gpu) / GIB)} GiB: {held / GIB:.1f} GiB had loaded when it "
                        f"failed, and one GPU holds {self._room(per_gpu)}; --model sizes it)")
        s.add("offload part of the weights", "cpu_offload", why, "up", value, cur)


def _gpu_full(n: dict) -> bool:
    """The engine's own estimate says the GPU holds no more layers: Ollama's `memory.required.partial` (what the layers
    it placed need, with their cache and graph) within one layer's weights of `memory.available` (llm/memory.go)."""
    need, free = latest(n, "required_partial_bytes"), summed(n, "available_memory_bytes")
    weights, layers = n.get("weights_bytes"), n.get("layers_total") or n.get("model_layers")
    if not (isinstance(need, int) and isinstance(free, int) and isinstance(weights, int) and isinstance(layers, int)
            and layers > 0):
        return False
    return free - need < weights // layers


#: the layer count users pass for "every layer on the GPU" (llama.cpp's -ngl 99, 999): more than most models have
ALL_LAYERS = 99


def _all_layers(offl, n: dict) -> bool:
    """Every layer is on the GPU already: `offl` (the layers offloaded or asked for) is at least the model's layer count
    where the log gives it, or at least ALL_LAYERS where it does not; nothing is left to move there."""
    if not isinstance(offl, int) or isinstance(offl, bool):
        return False
    layers = n.get("layers_total") or n.get("model_layers")
    return offl >= layers if isinstance(layers, int) and layers > 0 else offl >= ALL_LAYERS
