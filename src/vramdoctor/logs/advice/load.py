"""Steps for the weights and the warm-up: fewer-bit weights, more GPUs, CPU offload, fewer GPU layers sized
from the memory free; graph capture, sampler and profiling headroom, compute buffers, Metal."""

from __future__ import annotations

import math

from .steps import GGML, GIB, _more_gpus, _tp_now


class LoadSteps:
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
        host = code == "weights-exceed-system-memory"  # host RAM ran out: nothing may move to the CPU
        if host:
            s.say("more host memory", "the weights pass through CPU RAM on the way to the GPU: add RAM or swap, or "
                  "load with mmap / safetensors so they are not copied")
        offl = n.get("layers_offloaded")
        offl = offl[-1] if isinstance(offl, list) and offl else offl
        rep = n.get("repeating_layers_offloaded")
        if offl is None and isinstance(rep, int):  # a load that failed before "offloaded N/M layers"
            offl = rep + (1 if n.get("_output_layer_offloaded") else 0)
        if host and (s.name in GGML or s.engine is None and n.get("layers_total")):
            s.add("more layers on the GPU", "gpu_layers", "layers on the GPU do not stay in host RAM, if the GPU has "
                  "room", "up", None, offl if isinstance(offl, int) else None)
        elif (s.name in GGML or s.engine is None and n.get("layers_total")) and n.get("_host_alloc_failed"):
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
        if s.name not in GGML and s.has("cpu_offload") and not host:
            cur = c.cpu_offload_gb
            gb = s.name in ("vllm", "sglang", "aphrodite")  # a GiB count to raise until the load succeeds
            value = math.ceil((cur or 0) + 8) if gb else None
            s.add("offload part of the weights", "cpu_offload", "keeps part of the weights in CPU memory (slower)"
                  + ("; raise it until the load succeeds" if gb else ""), "up" if gb else None, value,
                  cur if gb else None)
        self.free_gpu()

