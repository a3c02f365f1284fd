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

import re

from ..knowledge import knowledge
from ..quiet import COPED
from .base import Base
from .kv import KvSteps
from .load import LoadSteps
from .serving import ServingSteps
from .steps import GGML, Step, _shown

#: an allocation no machine can satisfy (1 TiB in one piece)
ABSURD_BYTES = 2**40
#: the most memory one GPU holds (NVIDIA B300 and AMD MI355X, 288 GB of HBM3E, 2025): one allocation on a GPU larger
#: than this, or than the GPU the log names, cannot succeed on any card
LARGEST_GPU_BYTES = 288 * 10**9


class _Advisor(KvSteps, LoadSteps, ServingSteps, Base):
    """The steps for one diagnosis: the shared moves (Base) and one group per ledger."""


#: a batch scheduler's own setting of a job's host memory (`_batch_scheduler`), `{now}` its value where the log shows it
_JOB_LIMIT = {"slurm": "raise Slurm's --mem{now} (sbatch/srun; or --mem-per-gpu)",
              "pbs": "raise PBS's -l mem=...",
              "lsf": "raise LSF's -M (and -R \"rusage[mem=...]\")"}


def _several_gpus(n: dict) -> bool:
    """The log shows work over several GPUs (a tensor parallel size above 1, or more than one worker rank, a set of
    them): where a hang's collective may be waiting."""
    tp, ranks = n.get("tensor_parallel_size"), n.get("worker_ranks")
    return (isinstance(tp, int) and tp > 1) or (isinstance(ranks, list) and len(ranks) > 1)


def _where_it_waits(s, n: dict) -> None:
    """The step for a hang with no error (`hang-no-error`) or a process stuck waiting (`process-stalled`,
    `worker-rpc-timeout`): no error to read, so where its threads wait settles it."""
    s.say("find where it waits", "no line shows an error, and memory settings will not unstick it: dump the "
          "stuck process's threads (py-spy dump --pid PID for a Python server; gdb -p PID -batch -ex 'thread "
          "apply all bt' for a native one)" + ("" if not _several_gpus(n) else
                                               "; NCCL_DEBUG=INFO is on: its last NCCL INFO lines name the "
                                               "communicator and the step where the ranks stopped" if
                                               n.get("_nccl_debug") is True else
                                               ", and re-run with NCCL_DEBUG=INFO to see which collective "
                                               "waits"))


def _fraction_of_free(n: dict, current: float | None) -> float | None:
    """A memory fraction 0.02 below the share of the GPU the log shows free at start (`free_memory_bytes` over
    `total_memory_bytes`, vLLM's start-up check), rounded to 0.01; None where the figures are missing or it is not
    below the fraction in use, `current`."""
    free, total = n.get("free_memory_bytes"), n.get("total_memory_bytes")
    x = round(free / total - 0.02, 2) if isinstance(free, int) and isinstance(total, int) and total else None
    return None if x is not None and current is not None and x >= current else x


def advise(kind: str, engine: str, n: dict, code: str = "", candidates: list[str] | None = None) -> list[dict]:
    """Steps for `kind` (and its `code`), in the order to try them, each a dict: change, flags, why,
    setting, direction, value, current."""
    par, ctx = n.get("n_parallel"), n.get("n_ctx") or (n.get("max_model_len") if engine == "ollama" else None)
    if engine == "ollama" and isinstance(par, int) and par > 1 and isinstance(ctx, int):
        # Ollama's runner gets --ctx-size num_ctx x OLLAMA_NUM_PARALLEL: the user's num_ctx is a slot's share
        n = {**n, "ollama_num_ctx": ctx // par}
    if kind == "NONE" and code in COPED:
        kind = "RUNTIME"  # (no failure, but the pool was full under load: the same steps give it room)
    a = _Advisor(kind, code, engine, n)
    s = a.s
    tried = n.get("failed_alloc_bytes")
    tried = max(tried) if isinstance(tried, list) and tried else tried
    if kind in ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME", "UNDETERMINED") and isinstance(tried, int) \
            and tried >= ABSURD_BYTES:
        # no machine has this much: a wrong length, shape or setting asked for it, not a shortage of memory
        s.say("check what asked for it", f"the allocation that failed asked for {tried / 2**30:,.0f} GiB, more than "
              "any GPU or host has: a bug, a corrupt file or an absurd setting (a context or batch far too large), "
              "not a shortage; more memory will not fix it")
        return [step.to_dict() for step in s.out]
    tried_all = n.get("_tried")
    if kind in ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME", "UNDETERMINED") and tried_all and \
            n.get("_failed_with_memory_free"):
        # every value the user tried failed, and it failed the same way with memory to spare: smaller settings are not
        # what is missing
        listed = "; ".join(f"{f} " + ", ".join(f"{x:g}" for x in (v if isinstance(v, list) else [v]))
                           for f, v in list(tried_all.items())[:6])
        s.say("look past memory", f"the log says it failed at every value tried ({listed}) and the same way with memory "
              "free: the evidence points away from memory, to the loader (its runtime or build, the model file's "
              "support in it): try another runtime version or the engine's own build, and report it with this log; "
              "lowering the settings further is not the fix")
        return [step.to_dict() for step in s.out]
    on_gpu = n.get("_gpu_alloc_bytes")
    on_gpu = max(on_gpu) if isinstance(on_gpu, list) and on_gpu else on_gpu
    total = n.get("total_memory_bytes")
    device = total if isinstance(total, int) and 0 < total < LARGEST_GPU_BYTES else None
    if kind in ("WEIGHTS", "KV_CAPACITY", "WARMUP", "RUNTIME", "UNDETERMINED") and isinstance(on_gpu, int) \
            and on_gpu > (device or LARGEST_GPU_BYTES):
        held = (f"this GPU's {device / 2**30:,.1f} GiB" if device else
                f"any GPU holds ({LARGEST_GPU_BYTES // 10**9} GB, {LARGEST_GPU_BYTES / 2**30:,.1f} GiB)")
        s.say("check what asked for it", f"one allocation on the GPU asked for {on_gpu / 2**30:,.1f} GiB, more than "
              f"{held}: a setting far too large for this model (a context or batch), a bug or a corrupt file asked for "
              "it, and no memory setting makes it fit; the steps after this one shrink its usual causes")
    if code == "ggml-arena-too-small":
        s.say("a newer build", "a 2023 llama.cpp build (or a program built on it) sizes one ggml arena at start from an "
              "estimate of the model and the settings, and the tensors outgrew it: builds since GGUF (August 2023) "
              "size each buffer from the model; on this build a shorter context (-c) or a smaller batch (-b) shrinks "
              "what the arena must hold")
    if kind == "KV_CAPACITY" and code == "cpu-kv-space-exceeds-memory":
        need, free = n.get("kv_needed_bytes"), n.get("kv_available_bytes")
        sizes = (f" ({need / 2**30:.2f} GiB asked, {free / 2**30:.2f} GiB free on the node)"
                 if isinstance(need, int) and isinstance(free, int) else "")
        s.say("a smaller KV cache space", "vLLM's CPU back end reserves VLLM_CPU_KVCACHE_SPACE GiB of host RAM for the KV "
              f"cache, and the NUMA node had less free{sizes}: set VLLM_CPU_KVCACHE_SPACE below what is free, or free "
              "the host memory other processes hold")
        s.add("shorter context", "max_model_len", "a smaller KV space holds fewer tokens: the context must fit in it",
              "down")
    elif kind == "KV_CAPACITY":
        a.runtime() if code.startswith("kv-pool-full") else a.kv()
    elif kind == "WEIGHTS":
        if code == "weights-exceed-memory-limit":
            s.say("a higher cap, or a smaller model", "the server refused the model before loading it: its weights are "
                  "larger than the memory cap it was given (oMLX's --max-model-memory) or the memory it found free; "
                  "raise the cap where the machine has the memory, else the steps below shrink the weights")
        a.weights()
    elif kind == "WARMUP" and code in ("host-oom-kill", "host-alloc-failed"):
        # host RAM ran out in a warm-up step (vLLM's torch.compile: Inductor's compile workers): the GPU's settings do
        # not touch it
        s.say("more host memory", "host RAM (or the container's memory limit) ran out during the warm-up, not the GPU: "
              "add RAM or raise the container's or pod's limit; fewer compile workers (TORCHINDUCTOR_COMPILE_THREADS=1) "
              "or a warm compile cache (the second start reuses it) need less")
        s.add("no compilation", "cuda_graphs", "skip torch.compile and the graphs: the compiler's workers and caches are "
              "what used the host's RAM", "off")
    elif kind == "WARMUP":
        a.warmup()
    elif kind == "RUNTIME":
        a.runtime()
    elif kind == "UNDETERMINED" and code == "process-killed":
        s.say("find who killed it", "a SIGKILL not from the OOM killer: read the pod's events (`kubectl describe pod`: "
              "a failed liveness probe, an eviction), the supervisor's stop timeout (docker stop, "
              "terminationGracePeriodSeconds) or a `kill -9`; `journalctl -k | grep -i oom` tells whether the kernel "
              "killed anything; memory settings are not the fix until then")
    elif kind == "UNDETERMINED" and code == "device-setup-oom":
        s.say("free the GPU first", "the GPU had no room even for the CUDA context or NCCL's buffers: list what holds it "
              "(`nvidia-smi`, `nvidia-smi --query-compute-apps=pid,used_memory --format=csv`), stop it or a server that "
              "did not exit, or point the server at a free GPU (CUDA_VISIBLE_DEVICES); then start again")
    elif kind == "UNDETERMINED" and code == "pinned-host-alloc-failed":
        settle = knowledge().own_or_wrapped(engine, lambda w: w.pinned_host_load) or ""
        s.say("no pinned memory", settle + " (Pinned host memory is capped on its own: on WSL, and by `ulimit -l` "
              "elsewhere.)")
    elif kind == "UNDETERMINED" and code == "guardrail-refused-load":
        w, kv = n.get("estimate_weights_bytes"), n.get("estimate_kv_bytes")
        if isinstance(w, int) and isinstance(kv, int) and w > 0 and kv > 0:
            # (its own estimate of each ledger, printed in its log: the larger is the one to shrink first)
            est = (f"LM Studio's guardrail refused the load from its own estimate, {w / 2**30:.2f} GiB of weights and "
                   f"{kv / 2**30:.2f} GiB of context (KV cache); nothing ran out yet")
            ctx = ("a shorter context", "the context", "lower the context length in the model's load settings (the "
                   "cache shrinks with it)")
            quant = ("a smaller quant", "the weights", "a smaller quant of the model (the weights shrink with it)")
            for i, (change, part, why) in enumerate((ctx, quant) if kv >= w else (quant, ctx)):
                s.say(change, f"{est}; {part} is the larger part: {why}" if i == 0 else why)
        elif engine != "lmstudio":  # (a cluster scheduler's placement, GPUStack's "No workers meet the resource
            # requirements")
            s.say("a smaller load", "the scheduler refused to place the model from its own estimate of the memory it "
                  "needs (the weights plus the KV cache for the context): nothing ran out yet. Lower the context "
                  "length (vLLM's --max-model-len), pick a smaller quant, or spread the model over more GPUs (tensor "
                  "or pipeline parallel across workers)")
        else:
            s.say("a smaller load", "LM Studio's guardrail refused the load from its own estimate (weights plus the "
                  "context's KV cache): nothing ran out yet. Lower the context length in the model's load settings "
                  "(the cache grows with it), or pick a smaller quant; the guardrail's level (Settings, model loading "
                  "guardrails) only moves the check, not the memory")
    elif kind == "UNDETERMINED" and code in ("host-oom-kill", "host-alloc-failed"):
        s.say("more host memory", "host RAM (or the container's memory limit) ran out, not the GPU: add RAM, raise the "
              "container's or pod's memory limit, or lower what the server keeps in RAM (CPU offload, swap space, "
              "layers kept on the CPU); the log does not show in which phase, so which of these to lower first is not "
              "told")
    elif code == "hang-no-error":  # (NOT_OOM where the report says memory looked normal)
        _where_it_waits(s, n)
    elif kind == "UNDETERMINED":
        a.undetermined(candidates or [])
    elif code == "requests-refused-too-long":
        ctx = _shown("max_model_len", n)
        if s.name in GGML:
            par = n.get("n_parallel")
            slot, asked = n.get("n_ctx_slot"), n.get("_slot_prompt_tokens")
            asked = max(asked) if isinstance(asked, list) and asked else asked  # (one value: flattened to it)
            c, np_ = s.term("max_model_len", "the context"), s.term("max_num_seqs", "")
            # (an engine with no setting for its slots, LM Studio's app: the context is the request's own)
            why = (f"each of the {np_} slots gets {c} / {np_} tokens; a larger {c} (if memory allows)" if np_ else
                   f"a larger {c} (if memory allows), or a shorter prompt")
            if isinstance(slot, int) and isinstance(asked, int) and asked > slot:
                # (the slot's share and the longest prompt it was sent, as the server printed them)
                why += f"; a slot holds {slot:,} tokens and a prompt of {asked:,} came: each slot needs at least that"
            s.add("more context per slot" if np_ else "more context", "max_model_len", why, "up", None, ctx)
            if isinstance(par, int) and par > 1:
                s.add("fewer parallel slots", "max_num_seqs", "fewer slots give each a larger share of -c", "down",
                      max(1, par // 2), par)
        else:
            s.add("a longer context", "max_model_len", "if memory allows (`vramdoctor estimate` tells); otherwise "
                  "the client must send shorter requests", "up", None, ctx)
    elif kind == "LEAK" and code.startswith("memory-growth"):  # readings or words about a process's memory
        if n.get("_mlx_prompt_cache"):
            # (mlx_lm.server's LRU prompt cache keeps up to --prompt-cache-size prompts' KV states, 10 by default,
            # however long each is, and no byte cap unless --prompt-cache-bytes is given: server.py's argparse)
            s.say("cap the prompt cache", "the readings are mlx_lm.server's prompt cache, which keeps up to "
                  "--prompt-cache-size prompts' KV states (10 by default) however long each is, with no byte cap "
                  "unless one is given: set --prompt-cache-bytes below what the machine can spare (the releases that "
                  "have it; `mlx_lm.server --help` lists it), or a lower --prompt-cache-size")
        if code == "memory-growth-reported":  # (readings in the log that rise: measured already)
            s.say("report it", "the log's own readings show the growth: report it to the engine with them and this "
                  "log (the engine's version, the model, the kind of requests: images, long prompts, LoRA, prefix "
                  "caching), and whether the load stayed steady while they rose")
        else:
            s.say("measure, then report", "read the server's memory (host RSS of each of its processes, and the "
                  "GPU's) at the same load several times over hours; steady growth with steady load is memory not "
                  "freed: report it to the engine with those readings and this log")
        s.say("until fixed", "restart the server before it reaches its memory limit; a higher memory limit only "
              "delays the kill")
    elif kind == "LEAK":
        s.say("watch, then restart", "usage that keeps rising with steady load points at memory not being freed: "
              "track the engine's KV usage or free memory against load, report it with this log, and restart")
    elif kind == "NOT_OOM":
        if code == "fraction-above-free":
            x = _fraction_of_free(n, a.c.fraction)
            s.add("a fraction of what is free", "memory_fraction", "the fraction asked is above what the GPU has free "
                  "once the process's own CUDA context is made; leave that room", "down", x, a.c.fraction)
        elif code == "gpu-shared-with-other-process":
            free, total = n.get("free_memory_bytes"), n.get("total_memory_bytes")
            x = _fraction_of_free(n, a.c.fraction)
            w = n.get("weights_bytes") or n.get("_model_weights_bytes")  # (the log's, else --model's estimate)
            tight = (isinstance(w, int) and isinstance(total, int) and x is not None and x * total < w * 1.1)
            if x is not None and x < 0.05:  # (all but a sliver held by others: no fraction of it serves a model)
                s.say("free the GPU", f"only {free / 2**30:.2f} GiB of {total / 2**30:.2f} GiB is free, so no fraction "
                      "fits: stop the other process (nvidia-smi lists it) or give this server its own GPU")
            elif tight:  # (what is free cannot hold the weights: freeing the GPU first; the fraction only names it)
                s.say("free the GPU", f"the {free / 2**30:.2f} GiB free cannot hold the weights ({w / 2**30:.2f} GiB): "
                      "stop the other process (nvidia-smi lists it) or give this server its own GPU")
                s.add("a fraction of what is free", "memory_fraction", "only once the weights fit in what is free: the "
                      "engine takes its fraction of the whole GPU, and another process holds part of it", "down", x,
                      a.c.fraction)
            else:
                s.add("a fraction of what is free", "memory_fraction", "the engine takes its fraction of the whole GPU, "
                      "and another process holds part of it" + ("; at that fraction the weights alone would not fit, "
                                                                 "so freeing the GPU is the real fix" if tight else ""),
                      "down", x, a.c.fraction)
                s.say("free the GPU", "stop the other process (nvidia-smi lists it) or give this server its own GPU")
        elif code == "max-model-len-exceeds-model":
            m = n.get("max_model_len_model")
            s.add("the model's own context", "max_model_len", "the requested max_model_len exceeds what the model "
                  "was trained for; use its max_position_embeddings, or rope scaling on purpose", "down", m,
                  n.get("max_model_len"))
        elif n.get("_custom_all_reduce_failed") and s.has("nccl") and not n.get("_shm_exhausted"):
            s.add("no custom all-reduce", "nccl", "the failure is inside the custom all-reduce kernels (peer-to-"
                  "peer between GPUs); NCCL's all-reduce does the same work without them", "off")
        elif n.get("_shm_exhausted"):
            s.say("a larger /dev/shm", "NCCL could not grow its buffers in /dev/shm (a container's default is 64 MiB): "
                  "run the container with `--ipc=host` or `--shm-size 16g` (Kubernetes: an emptyDir of medium Memory "
                  "at /dev/shm); GPU memory is not the problem")
        elif code == "setting-rejected":
            s.say("the refused setting in its range", "the engine refused a value before it allocated anything: give "
                  "the setting the error names a value it accepts (a memory fraction as 0.9, not 90, and below 1); "
                  "memory itself was not short")
        elif code == "swap-space-too-large":
            s.say("a smaller --swap-space", "vLLM refuses a CPU swap space over 70% of the machine's RAM: lower "
                  "--swap-space (in GiB per GPU; 0 is fine unless many sequences are preempted); the GPU is not the "
                  "problem")
        elif code == "cuda-no-kernel-image" and n.get("_rocm"):
            s.say("a build for this GPU", "memory is not the problem: " + _rocm_arch(n))
        elif code == "cuda-no-kernel-image":
            # (ggml's CUDA back end is built by CMake alone; TORCH_CUDA_ARCH_LIST is PyTorch's extensions')
            arch = ("CMAKE_CUDA_ARCHITECTURES to it (61 for 6.1; `native` builds only for the GPU of the machine that "
                    "builds)" if s.name in GGML else "CMAKE_CUDA_ARCHITECTURES or TORCH_CUDA_ARCH_LIST to it")
            s.say("a build for this GPU", "memory is not the problem: install a build or wheel compiled for this GPU's "
                  "compute capability (`nvidia-smi --query-gpu=compute_cap --format=csv`; for a source build set "
                  + arch + ")")
        elif code == "operator-not-available":
            s.say("a matching kernel build", "memory is not the problem: reinstall the package that registers the "
                  "operator named in the error, built for the PyTorch and CUDA in use (`python -c 'import torch; "
                  "print(torch.__version__, torch.version.cuda)'`)")
        elif code in ("illegal-memory-access", "device-side-assert", "cuda-kernel-error", "cuda-invalid-argument",
                      "nccl-error", "cuda-error"):
            rerun = ("AMD_SERIALIZE_KERNEL=3 (HIP's CUDA_LAUNCH_BLOCKING; NCCL_DEBUG=INFO for RCCL)" if n.get("_rocm")
                     else "ASCEND_LAUNCH_BLOCKING=1 (CANN's CUDA_LAUNCH_BLOCKING; HCCL's own logs for collectives)"
                     if n.get("_ascend") else "CUDA_LAUNCH_BLOCKING=1 (NCCL_DEBUG=INFO for NCCL)")
            if n.get("_p2p_unsupported") is True and code in ("nccl-error", "cuda-error"):
                s.say("no peer-to-peer transport", "these GPUs cannot reach each other's memory directly (CUDA error "
                      "217, peer access not supported: consumer GPUs, a VM, or IOMMU/ACS on the PCIe bridge): set "
                      "NCCL_P2P_DISABLE=1 so NCCL goes through host memory (slower), or enable peer access")
            s.say("leave memory settings alone", "memory is not the problem: a shorter context or a smaller memory "
                  f"share will not fix it; re-run with {rerun} and report it")
        elif code == "invalid-device-ordinal":
            tp = n.get("tensor_parallel_size")
            s.say("match the GPUs it sees", "memory is not the problem: the server asked for a GPU this process "
                  "cannot see. List what it sees (nvidia-smi -L, rocm-smi, and CUDA_VISIBLE_DEVICES / "
                  "HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES, a container's --gpus), then make the parallel sizes "
                  "(tensor x pipeline x nodes" + (f", tensor parallel {tp} here" if isinstance(tp, int) else "")
                  + ") or the device index fit them")
        elif code in ("process-stalled", "worker-rpc-timeout"):
            _where_it_waits(s, n)
        else:
            s.say("leave memory settings alone", "memory is not the problem: the error names its cause; fix that "
                  "(the model, the install, the set-up) rather than memory settings")
    host = [i for i, step in enumerate(s.out) if step.change == "more host memory"]
    job = _JOB_LIMIT.get(n.get("_batch_scheduler", ""))
    if host and job:
        # a batch scheduler's job (Slurm's slurmstepd killing a step at its cgroup's limit): the job's own memory
        # request is the bound, set in the job script
        mem = n.get("_job_mem")
        s.out.insert(host[0], Step(change="raise the job's memory request", flags="", why=(
            "the job was killed at the memory its batch scheduler gave it, not necessarily for lack of the node's RAM: "
            + job.format(now=f" (now {mem})" if isinstance(mem, str) else "") + ", to what the server needs in RAM")))
    elif host and n.get("container_limit"):
        # the kernel's OOM killer acting on the container's own cgroup limit (CONSTRAINT_MEMCG, "Memory cgroup out of
        # memory", a pod's OOMKilled): the limit was reached, the machine may have RAM to spare
        unit = n.get("_unit_memory_limit")
        if isinstance(unit, str):  # (a systemd unit's cgroup: its MemoryMax=)
            s.out.insert(host[0], Step(change="raise the service's memory limit", flags="", why=(
                f"the process was killed at the memory limit of its systemd unit ({unit}'s cgroup: MemoryMax=, or "
                "MemoryLimit= on older systemd), not for lack of the machine's RAM: raise it (`systemctl edit "
                f"{unit}`, [Service] MemoryMax=...) or remove it; the machine's free RAM is not the bound")))
        else:
            s.out.insert(host[0], Step(change="raise the container's memory limit", flags="", why=(
                "the process was killed at its container's memory limit (its cgroup), not for lack of the machine's "
                "RAM: raise the limit (a pod's resources.limits.memory, docker --memory, compose mem_limit) to what the "
                "server needs in RAM; the machine's free RAM is not the bound")))
    return [step.to_dict() for step in s.out]


def _rocm_arch(n: dict) -> str:
    """What to do about an AMD GPU whose architecture the ROCm libraries in use have no kernels for (rocBLAS's
    TensileLibrary for gfx1031, hipErrorNoBinaryForGpu): a build that includes it, or for an RDNA card the override to
    its family's supported member (gfx103N -> 10.3.0, gfx110N -> 11.0.0, as ROCm ships kernels for gfx1030 and
    gfx1100), named against the override the log shows set."""
    arch, override = n.get("gfx_arch"), n.get("hsa_override")
    m = re.fullmatch(r"gfx(10)(3)([0-9a-f])|gfx(11)(0)([0-9a-f])", arch) if isinstance(arch, str) else None
    family = None
    if m:
        major, minor, step = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5), m.group(6))
        family = f"{int(major)}.{int(minor)}.0" if step != "0" else None
    text = (f"the ROCm libraries in use have no kernels for {arch}" if isinstance(arch, str) else
            "the ROCm libraries in use have no kernels for this GPU's architecture") + "; "
    if family and override != family:
        text += (f"set HSA_OVERRIDE_GFX_VERSION={family} (its family's supported architecture) in the server's "
                 "environment" + (f", not {override}, which names an architecture the libraries lack"
                                  if isinstance(override, str) else "") + ", or ")
    return text + "install a ROCm build that includes it (the engine's ROCm image, or rocBLAS built for it)"

