"""No engine in particular: the memory rules `estimate --engine generic` uses, and the words every
engine's log can hold because they come from PyTorch, CUDA/HIP, NCCL, Python or the operating
system (torch `OutOfMemoryError` text in `c10/cuda/CUDACachingAllocator.cpp`, NCCL's `WARN Cuda
failure`, the kernel's OOM killer)."""

from __future__ import annotations

import re

from ..spec import ModelSpec
from .base import (
    Budget,
    Overhead,
    RulesBase,
    Settings,
    activation_estimate,
    kv_dtype,
    state_bytes_per_seq,
    step_tokens,
)
from .interface import Engine, LogWords, StepCode
from .words import FUNCTION_TAG, ISSUE_TAGS, pasted_source, told_fixed, LOADING_CJK, NUM, PATH_ALONE, SIZE, TRIED, TRIED_TO, TRIED_TO_ZH, count, fig, msg, rx, to_bytes, tried, tried_zh

GIB = 2**30


class GenericRules(RulesBase):
    """No engine in particular: every token of every full layer, sliding layers up to their window,
    recurrent state per sequence; an activation estimate and 0.5 GiB of CUDA context besides."""

    name = "generic"

    def flags(self) -> dict[str, str]:
        return {"max_model_len": "max_model_len", "concurrency": "concurrency", "kv_cache_dtype": "kv_cache_dtype",
                "fp8": "fp8", "utilization": "gpu_memory_utilization", "tp": "tensor_parallel_size",
                "quantization": "quantization"}

    def cell_flags(self, s: Settings) -> str:
        return (f"max_model_len={s.max_model_len} concurrency={s.concurrency} kv_cache_dtype={s.kv_cache_dtype} "
                f"tensor_parallel_size={s.tensor_parallel_size}")

    def kv_cache_bytes(self, model: ModelSpec, s: Settings, max_model_len: int, seqs: int) -> int:
        kv, tp = kv_dtype(model, s), s.tensor_parallel_size
        per_seq = 0
        for layer in model.layers:
            if layer.kind == "sliding":
                per_seq += min(layer.window, max_model_len) * layer.bytes_per_token(kv, tp)
            elif layer.kind != "state":
                per_seq += max_model_len * layer.bytes_per_token(kv, tp)
        return seqs * (per_seq + state_bytes_per_seq(model, s))

    def engine_bytes_per_token(self, model: ModelSpec, s: Settings) -> int:
        kv, tp = kv_dtype(model, s), s.tensor_parallel_size
        return sum(layer.bytes_per_token(kv, tp) for layer in model.layers if layer.kind in ("full", "mla"))

    def pool_tokens(self, model: ModelSpec, s: Settings, pool_bytes: int) -> int:
        per = self.engine_bytes_per_token(model, s)
        return max(0, pool_bytes // per) if per else 0

    def budget(self, model: ModelSpec, s: Settings, gpu_bytes: int) -> Budget:
        act = s.activation_bytes if s.activation_bytes is not None else activation_estimate(
            model, step_tokens(s), s.tensor_parallel_size)
        ctx = s.non_torch_bytes if s.non_torch_bytes is not None else GIB // 2
        others = (Overhead(name=f"other processes (GPU {s.rank})", bytes=s.used_on(s.rank), estimated=False,
                           assumption="given (--gpu-used): what the GPU holds beside this server"),) \
            if s.used_on(s.rank) else ()
        return Budget(budget_bytes=gpu_bytes, kv_pool_bytes=None, overheads=(
            Overhead(name="activation peak", bytes=act, estimated=s.activation_bytes is None,
                     assumption=f"one forward pass of {step_tokens(s)} tokens"),
            Overhead(name="CUDA context", bytes=ctx, estimated=s.non_torch_bytes is None,
                     assumption="driver context and library workspaces"),
        ) + others)


#: Python's exceptions that are never memory running out: a path the code does not have (NotImplementedError), an
#: attribute, key or index it does not find, a wrong type, an import that failed, a value that did not parse
#: a POSIX shell's message about the command it was to run, at a line's start or after a compose service's or a pod's
#: prefix ("bash: vllm: ", "/bin/sh: 1: sglang: ", "sglang-1  | /bin/bash: line 1: vllm: "), the message after it
_SHELL_SAYS = r"(?:^|[|\]]\s+)(?:-?bash|sh|dash|/bin/(?:ba|da)?sh)(?:: line \d+)?:\s+(?:\d+:\s+)?[\w./+-]{1,200}: "


CODE_ERRORS = (r"NotImplementedError|AttributeError|KeyError|TypeError|IndexError|NameError|ImportError|"
               r"ModuleNotFoundError|ZeroDivisionError|UnboundLocalError|JSONDecodeError|UnicodeDecodeError|"
               r"RecursionError")
#: Python's own message of such an error, its class left out by whoever printed it (mlx_vlm.server's "Error loading
#: model mlx-community/DeepSeek-OCR-8bit: 'dict' object has no attribute 'model_type'"); not under its class,
#: "AttributeError: 'X' object has no attribute 'model'", which the exception's own rules read
PY_CODE_MESSAGE = (r"(?<!Error: )(?<!Error:)(?:'[\w.]+' object (?:has no attribute '\w+'|is not (?:subscriptable|"
                   r"callable|iterable))|\bmodule '[\w.]+' has no attribute '\w+'|\bunsupported operand type\(s\) for\b)")


#: out-of-memory in the words of PyTorch, CUDA, HIP, Vulkan, Metal and allocators in general
#: after "OOM": a count of them that is zero ("CUDA OOMs: 0", "OOM events: 0", "oom_kills=0")
_NONE_COUNTED = r"(?!(?:\s+(?:events?|kills?|counts?|errors?|failures?|crashes))?\s*[:=]\s*0(?![\d.]))"
OOM_WORDS = (
             # (not a warning that it may: torch's "UserWarning: You may run out of memory with expandable_segments
             # disabled")
             r"(?<!may run )(?<!might run )(?<!could run )(?<!can run )out of memory", r"\bout-of-memory\b",
             # (a report's words that split the phrase: "it tries to allocate more memory and runs out")
             r"\bmemory and (?:then |eventually |finally |quickly )?(?:runs?|ran) out\b(?! of (?!memory))", r"\bInsufficientMemoryError\b", r"显存(?:不足|不够|溢出|爆了?|炸了?|爆炸)|[爆炸]显存|内存溢出",
             # (or more than there is: "传一个大一点的图片会超显存", "显存超了")
             r"超(?:出|过)?显存|显存超(?:了|出|限)",
             # (host RAM blowing up in the same words: "加载到40层左右时会爆内存", "内存爆了")
             r"爆内存|内存(?:爆了|炸了|爆掉)",
             # (Intel Gaudi's device memory, habana_frameworks' allocator: "FATAL ERROR :: MODULE:PT_DEVMEM Allocation
             # failed for size::3288334336 (3136)MB", "MODULE:DEVMEM Allocation failed" in older releases, and its torch
             # exception "HPU out of memory")
             r"\b(?:PT_)?DEVMEM Allocation failed\b", r"\bHPU out of memory\b",
             # (a GPU's memory in Chinese as 内存 with the device named: "系统报出CUDA内存不足错误")
             r"(?:CUDA|GPU|NPU|显卡|设备)\s*(?:的)?内存(?:不足|不够)",
             # (and 内存 alone, as "not enough memory" is in English: the GPU's or the host's, the words around it tell
             # which; "提示内存不足，然后进程退出了")
             r"(?<![显])内存(?:不足|不够)", r"\bout of (?:GPU|CUDA|device|video|graphics|VRAM) memory\b", r"\[malloc_or_wait\] Unable to allocate", r"Exceeded max size of memory allocation", r"the resource allocation failed", r"VK_ERROR_OUT_OF_DEVICE_MEMORY",
             # (Vulkan's VkResult by its number, as TVM's Vulkan runtime in MLC LLM prints it before the name, which a
             # paste may cut: "Vulkan Error, code=-2: VK_ERROR_OUT_OF_DEVICE_MEMORY"; -1 is VK_ERROR_OUT_OF_HOST_MEMORY)
             r"\bVulkan Error, code=-[12]\b", r"VK_ERROR_OUT_OF_HOST_MEMORY",
             r"\[metal::malloc\]", r"greater than the maximum allowed buffer size", r"alloc_?\w*mem\w* failed", r"OutOfMemoryError", r"(?<![A-Za-z0-9_])OutOfMemory(?![A-Za-z0-9_])", r"CUBLAS_STATUS_ALLOC_FAILED",
             # (not the name of a watch for one: "invisible to dmesg OOM detection", "the OOM score", "OOM protection")
             # (not "OOM check": "when the OOM check fails" is one found)
             # (nor a count of them that is zero: torch.cuda.memory_summary()'s "CUDA OOMs: 0", "OOM events: 0")
             r"memory is insufficient", r"(?<![A-Za-z0-9_])OOM(?![A-Za-z0-9_])(?![\s-]+(?:detection|detector|monitor|"
             r"monitoring|protection|prevention|handler|handling|guard|score|score_adj|heuristics?)\b)" + _NONE_COUNTED,
             r"\binsufficient [vV][rR][aA][mM]\b",
             # ("OOM" as a verb: "OOMing unpredictably", "it OOMed", "OOMs at 4", "OOM'd", "OOM-ing")
             r"(?<![A-Za-z0-9_])OOM(?:s|ed|ing|'d|-ing)(?![A-Za-z0-9_])" + _NONE_COUNTED, r"cudaErrorMemoryAllocation", r"hipErrorOutOfMemory", r"\bNV_ERR_NO_MEMORY\b",
             r"ErrorOutOfDeviceMemory", r"CUDA_ERROR_OUT_OF_MEMORY", r"cudaMalloc failed", r"memory allocation failed",
             # (the driver API's CUresult by its number, 2 being CUDA_ERROR_OUT_OF_MEMORY (cuda.h), as torch_memory_saver
             # prints it: "[torch_memory_saver.cpp] CUresult error  result=2 file=... func=cu_mem_create"; and the
             # runtime's cudaError 2, cudaErrorMemoryAllocation, as old ggml-cuda printed it: "CUDA error 2 at
             # ggml-cuda.cu:6045: out of memory")
             r"\bCUresult\b[^\n]{0,30}?\bresult\s*[=:]\s*2\b(?![\d.])", r"\bCUDA error 2 (?:at|in)\b",
             # (a front end's own words for the engine's out-of-memory: Tabby's "CUDA memory allocation error detected:")
             r"\b(?:CUDA|GPU|device|VRAM|Metal|host|Host) memory allocation error\b",
             # (a pool's block allocator that gave none: "KV block allocation failed for request cmpl-12", TGI's "Block
             # allocation failed: allocator returned None."; a watchdog of the GPU's memory: "gpu-memory guard tripped")
             r"\b(?:KV )?[Bb]lock allocation failed\b", r"\b(?:gpu|GPU|device|VRAM)[- ]memory (?:guard|watchdog) (?:tripped|triggered)\b",
             r"CUDA out of\b", r"\bfail(?:ed|ing|s)? to allocate", r"unable to allocate .*buffer",
             # (an allocation of a size refused, in any words: OpenVINO's GPU plugin, "[CL ext] Can not allocate
             # 16049884928 bytes for USM Device"; "unable to allocate 8589934592 bytes")
             r"\b(?:[Cc]an ?not|[Cc]an't|[Cc]ould ?n[o']t|[Uu]nable to) allocate \d[\d,]*\s*[Bb]ytes\b",
             r"Insufficient (?:GPU |device |free |available |CUDA |VRAM |video )*memory", r"not enough memory", r"kIOGPUCommandBufferCallbackErrorOutOfMemory",
             r"\bno enough memory", r"\b(?:UR|ZE)_RESULT_ERROR_OUT_OF_(?:DEVICE|HOST)_MEMORY\b", r"too large for (?:the )?available memory", r"not enough (?:GPU |device |free |available |KV cache |cache |CUDA |VRAM |video )+memory",
             r"\b(?:memory|VRAM) (?:ran|runs|running) out\b",
             # ... exhausted ("Long prefill (>40k tokens) exhausts unified memory and silently kills the worker rank",
             # "the GPU memory is exhausted"): placed by the words around it
             r"\bexhaust(?:s|ed|ing)? (?:the |all (?:the )?)?(?:unified|GPU|device|VRAM|video) memory\b",
             r"\b(?:unified|GPU|device|video) memory (?:is |was |gets |got |being )?exhausted\b",
             # ... and the card out of it in a person's words ("fails to load the model as it's run out of vRAM")
             r"\bout of (?:GPU |video |graphics )?[vV][rR][aA][mM]\b",
             # ... as overflowing ("VRAM usage grows until eventually it overflows", "GPU memory overflow"; not a
             # buffer, stack, integer or heap overflow, nor memory that overflows into system RAM, which goes on)
             r"\b(?:VRAM|GPU memory|video memory|memory usage|memory use)\b[^.;!?\n]{0,60}?"
             r"(?<!buffer )(?<!stack )(?<!integer )(?<!heap )(?<!arithmetic )\boverflow(?:s|ed|ing)?\b"
             r"(?!\s+(?:in)?to\b|\s+(?:the\s+)?(?:shared|system|host|CPU)\b|"
             # (nor a guard against it: LM Studio's "Not using full context length for VRAM overflow calculations")
             r"\s+(?:calculation|estimat|check|protect|guard|prevent|detect|risk|warning)\w*)",
             # a server's own memory guard refusing to go on (oMLX's scheduler: "Memory limit exceeded during
             # prefill", "memory 42.8GB exceeds ceiling 42.0GB")
             r"\b[Mm]emory limit exceeded\b", r"\bexceeds (?:the )?(?:memory )?ceiling\b",
             # ... or the free memory it found said to be short of what it needs (a vLLM fork's fail-closed audit,
             # "Tiered MoE observed free HBM is below the runtime reserve: 13330546688 bytes available, 15000000000
             # required"; "available GPU memory (3.1 GiB) is less than the minimum required"): not vLLM's "Free memory
             # on device ... is less than desired GPU memory utilization", a share another process holds
             r"\b(?:free|available)\s+(?:GPU\s+|device\s+|CUDA\s+|video\s+)?(?:memory|HBM|VRAM)\b(?:[^.;\n]|\.(?=\d)){0,40}?"
             r"\s(?:is\s+|was\s+)?(?:below|less than|lower than|smaller than|short of|under)\s+(?:the\s+)?(?:\w+\s+){0,2}?"
             r"(?:reserve|required|requirement|minimum|needed|threshold|headroom|budget)\b")

#: CUDA and HIP runtime error strings (cudaGetErrorString, hipGetErrorString) that are not out-of-memory
CUDA_ERRORS = (r"invalid argument|invalid device ordinal|invalid device function|invalid configuration argument|"
               r"invalid resource handle|invalid device pointer|initialization error|operation not supported|"
               r"operation not permitted|too many resources requested|the launch timed out|an illegal instruction|"
               r"peer access is not supported|peer access is already enabled|devices are busy or unavailable|"
               r"named symbol not found|unsupported toolchain|cudaError(?!MemoryAllocation)[A-Z]\w+|"
               r"API call is not supported in the installed CUDA driver|driver version is insufficient|"
               r"no CUDA-capable device|CUDA driver is a stub library|system not yet initialized|\bunknown error\b|"
               r"PTX JIT compilation failed|device kernel image is invalid|uncorrectable ECC error|"
               r"uncorrectable NVLink error|context is destroyed|invalid program counter|"
               # (cuBLAS's CUBLAS_STATUS_INVALID_VALUE in its words, as ggml's CUDA_CHECK prints it: "CUDA error:
               # unsupported value or parameter in cublasSgemm_v2")
               r"unsupported value or parameter|"
               r"hipError(?!OutOfMemory)[A-Z]\w+|CUDA_ERROR_(?!OUT_OF_MEMORY)[A-Z_]+")
#: words in an assertion's condition that may be about memory (a buffer not allocated, a pool too small)
#: (not a pooling type, "seq_id cannot be larger than n_tokens with pooling_type == MEAN": an embedding's setting)
MEMORY_TERMS = r"mem_buffer|\bbuf\b|buffer|alloc|pool(?!ing)|memory|not enough space|CUDA error"

#: words a pasted memory reading is named by (ps, top, /proc, nvidia-smi, a user's own notes)
_MEMWORD = (r"\b(?:VmRSS|RSS|RES|[Rr]esident(?: memory| set)?|VRAM(?: used| usage)?|(?:GPU |[Hh]ost |[Ss]ystem )?"
            r"[Mm]emory (?:used|usage)|[Uu]sed memory|"
            # (a script's own print of torch.cuda.memory_allocated(), "alloc=14.21GB", "allocated: 14.2 GiB"; not a
            # high-water mark, mlx_lm.server's "Peak memory: 9.841 GB", mx.get_peak_memory() never reset: any larger
            # request raises it for good)
            r"(?:memory_)?alloc(?:ated)?(?=\s*[=:])|"
            # (MLX's mx.get_active_memory() as a server prints it after each load and unload, oMLX's engine_pool:
            # "Unloaded model: X, freed=6.04GB (expected>=22.41GB), active_memory: 41.88GB")
            r"active_memory(?=\s*[=:])|"
            # (... and a script's own short print of it after each request, "request 5   active=25.41 GB  peak=26.18 GB")
            r"active(?=\s*=\s*\d))\b")
#: a size as people write it: "1123 MiB", "20.5G", "5.74 GB"
_USIZE = r"(\d[\d,]*(?:\.\d+)?)\+?\s*([kKMGT])(?:i?B)?\b\+?"  # (a size with its "or more" sign: "42+GB", "42GB+")
_ARROW = r"\s*(?:->|→|=>|\bto\b)\s*"
#: a layer built with its parameters on the device, the model's weights made in place before any input (a loader's
#: frame and a WEIGHTS frame): Megatron's build_module from a layer's spec (megatron/core/transformer/spec_utils.py)
#: and a TransformerEngine module's constructor ("transformer_engine/pytorch/module/grouped_linear.py", line 696, in
#: __init__ / "torch.empty(")
_LAYER_BUILT = (r"\bspec_utils\.py\x22?, line \d+, in build_module\b|"
                r"\btransformer_engine/pytorch/module/\w+\.py\x22?, line \d+, in __init__\b")


def _usize(m, i: int = 1) -> int:
    return to_bytes(m.group(i), m.group(i + 1).upper() + "iB")


#: readings a person writes as a chain of three or more sizes joined by arrows, in the order they came ("footprint after
#: each swap: 2.1 GB -> 6.8 GB -> 13.6 GB -> 13.8 GB")
#: (after the word for what they measure: not GPUs tried one after another, "16 GB -> 24 GB -> 48 GB cards")
_CHAIN_ONE = r"\d[\d,]*(?:\.\d+)?\s*[kKMGT]i?B?"
_CHAIN = (r"\b(?:footprint|memory|VRAM|RSS|resident)\b[^\n]*?"
          r"(" + _CHAIN_ONE + r"\s*(?:->|→|=>)\s*~?" + _CHAIN_ONE + r"(?:\s*(?:->|→|=>)\s*~?" + _CHAIN_ONE + r"\b)+)")
_CHAIN_SIZE = re.compile(_USIZE)


def _chain(m: re.Match) -> tuple[int, ...]:
    """The sizes of an arrow chain (`_CHAIN`), in bytes, in order; ValueError where the line gives the rise as the
    start-up's own or says it then stopped ("Memory keeps increasing during startup (0.5 GB -> 15 GB -> 41 GB) and
    then stops")."""
    if _AT_START.search(m.string) or LEVELS_OFF.search(m.string, m.end()):
        raise ValueError("the start-up's own rise, or one that stopped")
    return tuple(_usize(x) for x in _CHAIN_SIZE.finditer(m.group(1)))


#: a rise said to stop after it ("then stays flat for hours", "and then stops", "then levels off", "plateaus at 41 GB");
#: not one kept ("climbs and stays there" on each call: not given back)
LEVELS_OFF = re.compile(r"\b(?:then|and|but|before it)\s+(?:it\s+|memory\s+|usage\s+)?(?:(?:stays?|stayed|remains?|remained|"
                        r"holds?|held|sits?)\s+(?:flat|steady|stable|constant|level|the same)|stops?|stopped|"
                        r"levels?\s+off|level(?:l)?ed\s+off|plateaus?|plateaued|flattens?\s+out|flattened\s+out)\b", re.I)


#: a rise a line gives as the start-up's own ("right after startup because vLLM preallocates the KV cache")
_AT_START = re.compile(r"\bpre-?allocat\w*|\b(?:right |just )?(?:after|at|during|on) (?:start-?up|launch|loading|load)\b|"
                       r"\b(?:after|while|when) (?:starting|launching) (?:the |my )?(?:server|engine|container|model)\b|"
                       r"\bwhen (?:it )?(?:starts|loads|launches)\b", re.I)


def _reading(m, i: int) -> int:
    """A reading of memory a user gives with the one it rose to (`RSS: 5.7 GB -> 14 GB`); ValueError where the line
    gives the rise as the start-up's own (a pool preallocated, the model loading), or where the rise is told in words
    ("VRAM from 6 GB to 9 GB") without a span of work or time it came over: a setting's or one step's cost ("-c 8192
    took VRAM from 6 GB to 9 GB"), not memory that is kept."""
    if _AT_START.search(m.string):
        raise ValueError("the start-up's own rise")
    if re.search(r"\bto\b", m.string[m.end(2):m.start(3)]):
        _growth(m)  # (stated, not asked or supposed)
        # the rise's own clause, up to the comma after it: a span past it is another's ("..., then it served fine
        # for two days")
        text = m.string
        begin = _sentence_start(text, m.start())
        comma = text.find(",", m.end())
        if not _SPAN.search(text, begin, comma if comma >= 0 else len(text)):
            raise ValueError("a rise told in words over no span")
    return _usize(m, i)


#: memory growth a user states in words: "RSS memory usage grows continuously with each request", "memory usage
#: continuously increases until it reaches the allocated 64 GiB limit", "VRAM keeps climbing", "a memory leak in
#: the scheduler", "it leaks host memory"
#: one step of a server's work that memory may be left behind by ("after every request", "per completion")
_STEP = (r"(?:iteration|loop|request|call|run|generation|inference|load|reload|cycle|restart|unload|completion|prompt|"
         r"chat|query|message|conversation|swap)s?\b")
#: words of a run's end by memory or a crash ("OOMs", "ran out of memory", "died"), a count of hundreds or more
#: ("thousands", "2000", "2k") and what it counts ("prompts", "of requests"), and a use over time ("usage", "uptime"): the
#: parts of growth told by the long use an out of memory needed (`_GROWTH`)
_DIED = r"(?:OOMs?|OOM-?ed|out[- ]of[- ]memory|crash(?:es|ed)?|runs? out of memory|ran out of memory|dies|died)\b"
_MANY = r"(?:hundreds?|thousands?|[1-9]\d{2,}|[1-9][\d.]*[kK])"
_OF_REQUESTS = r"(?:of\s+)?(?:prompts|requests|queries|calls|messages|conversations|generations|completions)\b"
_USE = r"(?:time|usage|use|running|uptime|serving)"
#: the path of a readiness or liveness probe, the server's own state asked ("/health", "/v1/health", "/readyz"): servers
#: answer it 503 while they start; an access line of one is no user's request (here, and logs/quiet.py's step under way)
PROBE_PATH = r"(?:v1/)?(?:health|healthz|ready|readyz|readiness|live|livez|liveness|ping)\b"

_GROWTH = (r"\b(?:memory|RSS|VRAM|resident|footprint|(?:the|CPU|host|system|its|server's) RAM|RAM (?:usage|use|"
           r"consumption))\b[^.;!?\n]{0,60}?\b(?:(?:keeps?|kept|continu\w*|steadily|"
           r"gradually|constantly|slowly)\s+(?:to\s+|on\s+)?(?:grow|increas|ris|climb|go(?:es|ing)? up|creep)\w*|"
           r"(?:grow|grew|increas|ris|climb|creep|ratchet)\w*\s+(?:up\s+)?(?:continuously|steadily|constantly|gradually|linearly|slowly|"
           # ("VRAM usage creeps up day after day")
           r"(?:day|hour|week) after (?:day|hour|week)|every (?:day|hour)|each (?:day|hour)|"
           # ("Memory creeps up between requests")
           r"between (?:requests|calls|runs|generations|batches|prompts)\b|"
           r"monotonically|across (?:requests|calls|runs|generations|batches)|"
           r"over time|over (?:the )?(?:\w+ ){0,2}?(?:lifetime|uptime)\b|without (?:bound|limit)|unbounded(?:ly)?\b|indefinitely|(?:with|after|on|per) (?:each|every) (?:request|call|batch|"
           r"iteration|step|inference)|until\b|"
           # ... to a point ("ram usage is growing to the point it's oomkilled")
           r"to the point (?:where|that|it)\b))|\b(?:memory|VRAM|RAM|GPU memory|host memory)[- ]leak(?:s|ing|age|y)?\b|"
           # ... the KV cache's own units leaked ("llama-server leaks KV cells at a fixed per-request rate", "KV blocks
           # are leaked on aborted requests", "leaking cache pages")
           r"\bleak(?:s|ing|ed)?\s+(?:\w+\s+){0,2}?(?:KV|cache)\s+(?:cache\s+)?(?:cells|blocks|pages)\b|"
           r"\b(?:(?:KV|cache)\s+(?:cache\s+)?)?(?:cells|blocks|pages)\s+(?:are\s+|were\s+|get\s+|got\s+|keep\s+)?"
           r"(?:being\s+)?leak(?:s|ed|ing)\b|"
           # ... or a size more at each reload or each request ("Every time a model is unloaded and loaded again,
           # nvidia-smi shows about 350 MiB more used than before")
           r"\b(?:every|each) time\b[^.;!?\n]{0,100}?\b\d[\d.,]*\s*[KMGT]i?B\s+more\s+(?:used|in use|allocated|taken|"
           r"than before)\b|"
           # ... RAM by its bare name, kept rising ("RAM keeps climbing between and during generations"), or taken
           # slowly ("watch it slowly take up way more ram than it should", "VRAM gradually fills up over the session")
           # (the memory word in a lookbehind: the block search then looks for the verbs, not for "ram")
           r"(?:(?<=\bRAM )|(?<=\bVRAM ))(?:keeps?|kept|continu\w*)\s+(?:to\s+|on\s+)?(?:grow|increas|ris|climb|"
           r"go(?:es|ing)? up|creep)\w*|"
           r"\b(?:slowly|gradually|steadily)\s+(?:take|eat|use|consume|fill|gobble)\w*\s+(?:up\s+)?(?:\w+\s+){0,3}?"
           r"(?:RAM|VRAM|memory)\b|(?:(?<=\bRAM )|(?<=\bVRAM )|(?<=\bmemory ))(?:slowly|gradually|steadily)\s+fills?\s+up\b|"
           # ... an increase of a size over a span of time ("increase 60G cpu memory in 2h", "grew 8 GB of RAM in 3 hours")
           # (the memory word in a lookahead: the block search then looks for the verbs, not for "ram")
           r"\b(?:increas|grow|grew|gain|climb)\w*\s+(?:by\s+)?(?:about\s+|~)?\d[\d.]*\s*[KMGT]i?B?\s+(?=(?:of\s+)?(?:\w+\s+)?"
           r"(?:memory|RAM|VRAM|RSS)\s+(?:in|within|over|after)\s+(?:about\s+|~)?\d+\s*(?:h|hrs?|hours?|min|minutes|days?)\b)|"
           # ... to a size, over a long span of work the same line names ("Ran this overnight ... llava-server grew to
           # +16GB memory ... About 1750 images processed"; not while it loaded)
           r"^(?![^\n]*\b(?:while|when|during) (?:the model )?(?:load|start|init)\w*)"
           r"(?=[^\n]*\b(?:hours|days|weeks|overnight|over night|\d+ (?:images|requests|prompts|documents|files|"
           r"conversations|calls|iterations|queries))\b)[^\n]*?\b(?:grew|grows|rose|climbed|ballooned|swelled)\s+to\s+"
           # (the memory word in a lookahead: the block search then looks for the verbs, not for "ram")
           r"\+?\d[\d.,]*\s*[KMGT]i?B(?=\s+(?:of\s+)?(?:memory|RAM|VRAM|RSS)\b)|"
           # ... a cache that grows past any bound ("The prompt cache grows unbounded by accumulating checkpoints"; not a KV
           # cache growing with the context, which is what it is for)
           r"\b(?:(?:prompt|KV|slot|radix|prefix|host|CPU) ?cache|(?:memory|KV|block|cache|buffer) pool|the pool)\b[^.;!?\n]{0,30}?"
           r"\b(?:grow|grew|increas|ris|rose|climb)\w*\s+"
           r"(?:unbounded(?:ly)?|without (?:bound|limit)|indefinitely|over time|until (?:it |the )?(?:OOM|runs out|is killed))\b|"
           # ... by a size per step, without "by" ("Draft KV cache grows ~10MB per PP+TG cycle until OOM")
           # (or per a span of time written with a slash, "RSS grows ~9 GB/day")
           # (or "is increasing rapidly by round 2MB/second": a verb's -ing form, how fast, "by" and a rate per second)
           r"\b(?:memory|VRAM|RAM|RSS|KV ?cache|usage)\b[^.;!?\n]{0,30}?\b(?:grows|increases|rises|climbs|leaks|"
           r"(?:is |are |keeps )(?:growing|increasing|rising|climbing|leaking))\s+(?:(?:rapidly|quickly|fast|steadily|slowly|"
           r"constantly|linearly)\s+)?(?:(?:by|at)\s+)?"
           r"(?:about |around |round |roughly |~)?\d[\d.,]*\s*[KMG]i?B(?:\s+(?:per|each|every|a|an)\s+\S+|\s*/\s*(?:day|d|hour|h|hr|"
           r"min|minute|week|second|sec|s)\b)|"
           # ... a rise at a rate in time, whatever the sentence calls what rises ("Then the number only goes up, ~2-3 GB
           # per day, never back down")
           r"\b(?:goes|went|grows|grew|climbs|climbed|rises|rose|increases|increased|creeps|crept)(?: up)?,?\s+(?:by\s+)?"
           r"(?:about |around |roughly |~)?\d[\d.]*(?:\s*-\s*\d[\d.]*)?\s*[KMGT]i?B\s*(?:/\s*|per |a |an |every )"
           r"(?:day|hour|hr|minute|min|week)\b|"
           r"\bleak(?:s|ing|ed)? (?:(?:about |around |roughly |~)?\d[\d.,]*\s*[KMG]i?B (?:of )?)?(?:host |CPU |GPU |system |"
           r"device )?memory\b|"
           # ... growth by its rate, the noun first ("growth scaling with request volume (100–1000+ MB/h during bursts, ~2
           # MB/h idle)")
           r"\bgrowth\b[^.;!?\n]{0,60}?\d[\d.,]*\+?\s*[KMGT]i?B\s*/\s*(?:day|d|hour|h|hr|min|minute|week)\b|"
           # ... a leak met, found or reproduced ("We hit this exact leak in production", "we reproduced the leak"; not a
           # leak checker, "the leak detector")
           r"\b(?:hit|hitting|see|seeing|saw|observe[ds]?|observing|found|find|reproduced?|reproducing|confirm(?:ed)?)\s+"
           r"(?:this|the|that|a)\s+(?:exact\s+|same\s+|slow\s+)?leak\b(?![- ](?:detector|sanitizer|checker|check)\b)|"
           # (... host RAM by its name: "the first PP rank leaks host RAM proportional to the requests", "Host RAM leak")
           r"\bleak(?:s|ing|ed)? (?:(?:about |around |roughly |~)?\d[\d.,]*\s*[KMG]i?B (?:of )?)?(?:host|CPU|system|GPU) (?:RAM|VRAM)\b|"
           r"\b(?:host|CPU|system) RAM leak(?:s|ing|age)?\b|"
           # ... the memory word first, the leak past ("15 GiB of CPU RAM permanently leaked on each invocation", "VRAM
           # gets leaked")
           r"\b(?:memory|RAM|VRAM|RSS)\b[^.;!?\n]{0,20}?\b(?:(?:is|are|was|were|gets?|got|being|been)\s+)?"
           r"(?:permanently\s+|silently\s+)?leaked\b|"
           # ... each step raising it by a size, the step first ("each request increases memory usage by about ~300MB")
           r"\b(?:each|every)\s+(?:\w+\s+){0,2}?" + _STEP + r"\s+(?:increases|raises|grows|bumps|adds to)\s+(?:the\s+)?"
           r"(?:\w+\s+)?(?:memory|RAM|VRAM|RSS)\b(?:\s+(?:usage|use|consumption|footprint))?\s+by\b|"
           # ... the rise first, then what rises ("I'm getting steadily increasing memory usage and eventually OOM",
           # "ever-growing RSS")
           r"\b(?:steadily|constantly|continuously|gradually|ever[- ]?)\s*(?:increasing|growing|rising|climbing)\s+"
           r"(?:[\w-]+\s+)?(?:memory|RAM|VRAM|RSS)\b|"
           # ... memory filled up over a long span of serving ("it fills up the memory usage on the gpu after a day",
           # "VRAM fills up after a few hours")
           r"\bfill(?:s|ed)? up (?:the )?(?:[\w-]+ ){0,3}?(?:memory|VRAM|RAM)\b[^.;!?\n]{0,40}?\bafter (?:a|an|one|two|three|"
           r"several|a few|\d+) (?:days?|hours?|weeks?|nights?)\b|"
           r"(?:(?<=\bRAM )|(?<=\bVRAM )|(?<=\bmemory ))fill(?:s|ed)? up\b[^.;!?\n]{0,20}?\bafter (?:a|an|one|two|three|several|"
           r"a few|\d+) (?:days?|hours?|weeks?|nights?)\b|"
           # ... memory allocated over and over ("the model keeping allocat memory when handling a request", "it keeps
           # allocating more VRAM")
           r"\bkeep(?:s|ing)?\s+(?:on\s+)?allocat\w*\s+(?:more\s+)?(?:\w+\s+)?(?:memory|RAM|VRAM)\b|"
           # ... or taking more of it with each step ("Llama keeps consuming system RAM and SWAP with each prompt", "it
           # eats more and more VRAM after every request")
           r"(?:\bkeep(?:s|ing)?\s+(?:on\s+)?(?:consum|eat|us|tak|grabb|hogg)\w*|\b(?:consum|eat|us|tak)\w*\s+more(?:\s+and\s+"
           r"more)?)\s+(?:\w+\s+){0,2}?(?:memory|RAM|VRAM|swap)\b[^.;!?\n]{0,40}?\b(?:with|after|on|per|for)\s+(?:each|every)"
           r"\s+(?:\w+\s+)?" + _STEP + "|"
           # ... a cache or memory never let go ("the attention mask cache is never released", "allocated tensors are
           # never freed"), or growing until it runs out ("the cache will keep increasing and finally cause OOM")
           r"\b(?:cache|memory|VRAM|RAM|buffers?|tensors?|blocks?)\b[^.;!?\n]{0,50}?\b(?:is|are|gets?|get)\s+never\s+"
           r"(?:released|freed|cleared|evicted|reclaimed)\b|"
           # ... or kept after what held it went away ("VRAM use ... stays at just over 3 GB even after the model is
           # unloaded", "GPU memory remains occupied after the instance is stopped")
           r"\b(?:memory|VRAM|RAM)\b[^.;!?\n]{0,120}?\b(?:stays?|stayed|remains?|remained|is still|still)\b"
           # (not memory said to be free then: "GPU memory is still free after the model is unloaded")
           r"(?![^.;!?\n]{0,30}?\b(?:free|freed|available|released|back|normal|low|zero|empty|drops?|goes down)\b)[^.;!?\n]{0,60}?"
           r"\bafter\s+(?:the\s+|an?\s+|my\s+)?(?:(?:model|instance|process|session|server|worker)\s+(?:is|was|has been|"
           r"gets?|got)\s+|I\s+|we\s+)?(?:unload(?:ed|ing)?|stopp(?:ed|ing)|clos(?:ed|ing)|delet(?:ed|ing)|exit(?:ed|ing)?|"
           r"kill(?:ed|ing))\b|"
           r"\bkeeps?\s+(?:on\s+)?(?:increasing|growing|rising|climbing)\b[^.;!?\n]{0,40}?\b(?:OOM|out of memory)\b|"
           # ... soaring until it fills the machine ("the scheduler's memory soars until it eats the whole machine")
           r"\b(?:memory|RAM|VRAM|usage)\b[^.;!?\n]{0,30}?\b(?:soar|skyrocket|balloon)\w*\s+until\s+(?:it\s+)?"
           r"(?:eats|fills|consumes|uses|takes)\s+(?:up\s+)?(?:all|the (?:whole|entire))\b|"
           # ... with the memory word after its verb or size, the size maybe called fixed ("grows RSS by a fixed ~126
           # MiB on every request", "leaks a fixed ~64 MiB of RSS per request", "adds ~50 MiB to the resident memory
           # with each request")
           # (the verbs written as few stems: the block search then looks for them, not for "ram", in "parameters")
           r"\b(?:grow|grew|increase|leak)\w*\s+(?:the\s+)?(?:memory|RAM|VRAM|RSS|resident memory)\s+"
           r"by\s+(?:a\s+)?(?:fixed\s+|constant\s+|steady\s+)?(?:about |around |roughly |~)?\d[\d.,]*\s*[KMG]i?B\s+"
           r"(?:per|on|with|after|for)?\s*(?:each|every|per|a|an)\s+(?:\w+\s+){0,2}?" + _STEP + r"\b|"
           r"\bleak\w*\s+(?:a\s+)?(?:fixed\s+|constant\s+|steady\s+)?(?:about |around |roughly |~)?\d[\d.,]*\s*"
           r"[KMG]i?B\s+(?:of\s+)?(?:host |CPU |GPU |system |device )?(?:memory|RAM|VRAM|RSS)\s+"
           r"(?:per|on|with|after|for)?\s*(?:each|every|per|a|an)\s+(?:\w+\s+){0,2}?" + _STEP + r"\b|"
           # ... each step making memory go up by a size, also in words ("Each generation is making llama-server's RAM
           # consumption bump by several gigabytes")
           r"\b(?:each|every)\s+(?:\w+\s+){0,2}?" + _STEP + r"\s+(?:is\s+)?(?:mak|caus)\w*\s+(?:\S+\s+){0,3}?"
           r"(?:memory|RAM|VRAM|RSS)\b(?:\s+(?:usage|use|consumption|footprint))?\s+(?:to\s+)?(?:bump|jump|grow|increase|"
           r"go up|rise|climb)\w*\s+(?:up\s+)?by\b|"
           # ... in chunks of a size ("I can observe the memory grow in about 90 MB chunks")
           r"\b(?:memory|RAM|VRAM|RSS|usage)\b[^.;!?\n]{0,30}?\b(?:grow|grew|increas|ris|rose|climb|go(?:es)? up)\w*\s+in\s+"
           r"(?:about |around |roughly |~)?\d[\d.,]*\s*[KMG]i?B\s+(?:chunks|steps|increments|jumps)\b|"
           # ... as "increasing amounts" of it ("enormous (and increasing) amounts of RAM")
           r"(?:\((?:and\s+)?|\bever-?)(?:increasing|growing|rising)\)?\s+amounts?\s+of\s+(?:\w+\s+)?(?:memory|RAM|VRAM)\b|"
           # ... as memory not given back after each request ("as if they were not freeing it after generation",
           # "VRAM isn't released between requests"), or not freed until it runs out ("not freeing and eventually
           # running out of memory")
           r"(?:\bnot|n't|\bnever)\s+(?:be(?:ing)?\s+)?(?:freeing|frees|releasing|releases|freed|released|given back)\b"
           r"(?:\s+(?:it|them|the\s+memory|memory|VRAM|RAM))?\s+(?:after|between)\s+(?:each\s+|every\s+|the\s+)?"
           r"(?:generation|request|inference|call|completion|response|chat|prompt)s?\b|"
           r"(?:\bnot|\bnever)\s+(?:freeing|releasing)\b(?:\s+(?:it|memory|VRAM|RAM))?\s+and\s+(?:\w+\s+)?"
           r"(?:running|runs|ran|run)\s+out\s+of\s+(?:\w+\s+)?memory\b|"
           # ... or a size that goes up each time the same thing is done ("Everytime I executed the prompt, the size of
           # the model increase (ollama ps gave me a bigger number)", "each time I run the query, VRAM usage goes up")
           # (not one step's own rise, told as a size it reaches each time: "Every time the first request comes in,
           # memory usage climbs to 120GB and then the process gets killed")
           r"\b(?:every ?time|each time)\b(?!\s+(?:the|a)\s+first\b)[^.;!?\n]{0,60}?\b(?:size|memory|usage|VRAM|RAM|"
           r"footprint)\b[^.;!?\n]{0,30}?\b(?:increase[sd]?|grows?|grew|goes up|went up|rises?|rose|climbs?|climbed)\b"
           r"(?!\s+(?:up\s+)?to\s+~?\d)|"
           # ... or memory not given back when a model is unloaded, put to sleep or idle ("doesn't become free when the
           # model is unloaded", "doesn't seem to release memory as the models are forgotten", "VRAM not freed with
           # --sleep-idle-seconds")
           r"\b(?:memory|VRAM|RAM)\b[^.;!?\n]{0,60}?(?:\bnot|\bnever|n't)\s+(?:seem\s+to\s+)?(?:be(?:ing)?\s+|become\s+|get\s+)?"
           # (its last words all of five letters or more: the block search looks for them, not for "ram" in "params")
           r"(?:released?|freed|free|returned|given back)\b[^.;!?\n]{0,60}?(?:\bunload\w*|\bsleep\w*|"
           r"\bforgotten\b|\bevict\w*|\bkeep_alive\b)|"
           r"(?:\bnot|\bnever|n't)\s+(?:seem\s+to\s+)?(?:release|free|give back)\s+(?:the\s+|its\s+|their\s+)?(?:memory|VRAM|"
           r"RAM)\b[^.;!?\n]{0,60}?(?:\bunload\w*|\bsleep\w*|\bforgotten\b|\bevict\w*)|"
           # ... and an out of memory that came "over time" (a title: "llama-server OOM Over Time")
           r"\b(?:OOMs?|OOM-?kill\w*|out of memory)\s+over\s+time\b|"
           r"\b(?:each|every)\s+(?:\w+\s+){0,2}?" + _STEP + r"\s+(?:adds|leaves)\s+(?:a\s+)?(?:fixed\s+|constant\s+)?"
           r"(?:about |around |roughly |~)?\d[\d.,]*\s*[KMG]i?B\s+(?:to|on|in)\s+(?:the\s+)?(?:\w+\s+){0,2}?"
           r"(?:memory|RAM|VRAM|RSS)\b|"
           # growth named as a noun ("slow progressive memory usage increase", "a gradual RAM growth"), memory still
           # "continuing to rise", or growing past what it should hold over time ("memory grows well beyond the
           # model's own footprint ..., over the course of normal use")
           # ... and the noun before what grows ("a slow increase in GPU memory usage", "gradual growth of RSS")
           r"\b(?:slow|gradual|steady|continuous|constant|linear|progressive)\w*\s+(?:increase|growth|rise|creep)\s+"
           r"(?:in|of)\s+(?:the\s+)?(?:\w+\s+){0,2}?(?:memory|RAM|VRAM|RSS)\b|"
           r"\b(?:progressive|gradual|steady|continuous|constant|linear)\w*\s+(?:\w+\s+){0,2}?"
           r"(?:memory|RAM|VRAM|RSS)\b(?:\s+(?:usage|use|consumption|footprint))?\s+(?:increase|growth|rise|creep|leak)\w*|"
           r"\b(?:memory|RAM|VRAM|RSS|usage|it)\b[^.;!?\n]{0,30}?\b(?:is |keeps? |kept )?continu(?:es|ing|ed) to "
           r"(?:rise|grow|increase|climb)\b|"
           r"\b(?:memory|RAM|VRAM|RSS)\b[^.;!?\n]{0,30}?\b(?:grow|grew|increas|ris|climb|creep)\w*\s+(?:well\s+|far\s+)?"
           r"(?:beyond|past|above)\b[^.;!?\n]{0,100}?\bover (?:the course of|time\b|hours|days)|"
           # usage or a count creeping up ("the #token count steadily increasing", "KV cache usage keeps rising")
           r"\b(?:usage|token count|count of tokens)\b[^.;!?\n]{0,20}?\b(?:keeps?|kept|steadily|continuously|"
           r"constantly|gradually)\s+(?:to\s+)?(?:grow|increas|ris|climb|creep)\w*|"
           # ... memory by another name, the allocator's heap or a backend's allocations, growing with the work done
           # ("the CPU-side malloc heap grows with the number of requests served", "RSS grows with request volume")
           # (the work done so far, not the load at once: "with the number of concurrent requests" is use under load)
           r"\b(?:memory|RSS|VRAM|RAM|heap|footprint|allocations|buffers)\b[^.;!?\n]{0,40}?\b(?:grow|grew|increas|climb|"
           r"ris)\w*\s+with\s+(?:the\s+)?(?:(?:(?:total|cumulative)\s+)?(?:number|count)\s+of\s+(?:requests|calls|"
           r"generations|completions|conversations)\s+(?:served|handled|processed|completed|made|sent|so far)|"
           r"request\s+volume)\b|"
           # ... or not given back ("Metal allocations not cleared after stream failure", "a successful completion left
           # Metal allocations behind", "the heap is not released when the workload stops")
           r"\b(?:heap|allocations|buffers)\b[^.;!?\n]{0,30}?\b(?:(?:is|are|was|were)\s+)?(?:not|never)\s+(?:being\s+)?"
           r"(?:cleared|released|freed|reclaimed|given back)\b|"
           r"\bleft\s+(?:\w+\s+){0,3}?(?:allocations|buffers|memory)\s+behind\b|"
           # ... or held past an unload ("allocations survived unloading every model", "state surviving unload",
           # "active_memory stuck at 163.84GB after unloading")
           r"\bsurviv(?:e|es|ed|ing)\s+(?:the\s+)?(?:model\s+)?unload(?:ing|s)?\b|"
           # ... or still there after the model is deleted or unloaded ("After deleting the model and tokenizer, the
           # memory usage remains at 11GB", "VRAM stays at 14 GB after unloading the model", "does not fully unload
           # them from the GPUs", "Memory is left used on the GPUs ... until TabbyAPI is restarted")
           r"\bafter\s+(?:deleting|unloading|removing|freeing|releasing|offloading|evicting)\b(?:[^.;!?\n]|\.(?=\S)){0,60}?"
           r"\b(?:memory|VRAM|RAM|usage)\b[^.;!?\n]{0,30}?\b(?:still\s+)?(?:remains?|stays?|stuck|is still (?:at|used|"
           r"allocated|occupied|held))\b(?!\s+(?:the\s+)?(?:same|unchanged\s+while))|"
           r"\b(?:memory|VRAM|usage)\b[^.;!?\n]{0,30}?\b(?:remains?|stays?|is still|still)\s+(?:at\s+|used\s+|allocated\s+|"
           r"occupied\s+|held\s+)?[^.;!?\n]{0,30}?\bafter\s+(?:deleting|unloading|removing|evicting|the model (?:is|was|"
           r"has been) (?:unloaded|deleted|removed|evicted))\b|"
           r"(?:\b(?:does|did)\s+not|\b(?:does|did)n['\u2019]t|\bnever)\s+(?:fully\s+|completely\s+|properly\s+)?unload\w*\s+"
           r"(?:\w+\s+){0,3}?from\s+(?:the\s+)?(?:GPUs?|CUDA|VRAM|memory)\b|"
           r"\b(?:memory|VRAM)\s+(?:is|was|stays|remains)\s+(?:left\s+)?(?:used|occupied|allocated|in use|reserved)\b"
           r"[^.;!?\n]{0,80}?\buntil\b[^.;!?\n]{0,40}?\brestart\w*|"
           r"\b(?:active_memory|active memory|memory|VRAM)\s+(?:is\s+|was\s+|stays\s+|remains\s+)?stuck\b"
           r"(?!\s+(?:at\s+\d+\s*%|in\s+(?:loading|start)|on\s+(?:loading|start)))|"
           # memory not given back ("CPU memory does not return", "memory is not released", "do not properly release
           # KV cache memory", "RSS stays high")
           r"\b(?:memory|RSS|VRAM|KV ?cache)\b[^.;!?\n]{0,30}?(?:\b(?:is|was|are|were|does|do|did|gets?)\s*(?:not|n['\u2019]?t|never)|"
           r"\bnever)"
           r"\s+(?:being\s+|getting\s+)?(?:properly\s+|fully\s+)?(?:returned|released|freed|reclaimed|given back|return|"
           r"free|go(?:es)? (?:back )?down|come(?:s)? back)\b|"
           r"\b(?:don't|doesn't|didn't|don\u2019t|doesn\u2019t|didn\u2019t|do not|does not|did not|dont|doesnt|didnt)\s+"
           r"(?:properly\s+|fully\s+)?"
           r"(?:release|free|return|give back)\s+"
           r"(?:\w+\s+){0,3}?(?:memory|KV ?cache|blocks|RSS|V?RAM)\b|"
           r"\b(?:RSS|resident memory|(?:host|CPU|system) (?:memory|RAM))\s+(?:stays|remains|stayed|remained)\s+"
           r"(?:high|elevated|at (?:its )?peak)\b|"
           # growth by a size left by each step ("each iteration of the loop starts with about 300MB more GPU memory",
           # "VRAM goes up by ~200 MB with every request", "400 MB more memory left after each reload"; not what one
           # request uses: "each request uses 2 GB more")
           r"\b(?:each|every)\s+(?:\w+\s+){0,3}?(?:iteration|loop|request|call|run|generation|inference|load|reload|"
           r"cycle|restart|unload)s?\b(?:\s+\w+){0,3}?\s+(?:starts?|begins?|leaves?|ends?)(?:\s+with)?\s+(?:about |around |"
           r"roughly |~)?\d[\d.,]*\s*[KMG]i?B\s+more\b|"
           r"\d[\d.,]*\s*[KMG]i?B\s+more\s+(?:\w+\s+){0,2}?(?:memory|VRAM)\b[^.;!?\n]{0,30}?\b(?:left |remaining |held )?"
           r"(?:after|following)\s+(?:each|every)\s+(?:\w+\s+){0,3}?(?:iteration|loop|request|call|run|generation|"
           r"inference|load|reload|cycle|restart|unload)s?\b|"
           r"\b(?:memory|VRAM)\b[^.;!?\n]{0,30}?\b(?:grows?|grew|goes up|went up|increases?|increased|rises|"
           r"rose|climbs?|climbed)\s+by\s+(?:about |around |roughly |~)?\d[\d.,]*\s*[KMG]i?B\s+(?:with |after |on |for )?"
           r"(?:each|every)\s+(?:\w+\s+){0,3}?(?:iteration|loop|request|call|run|generation|inference|load|reload|"
           r"cycle|restart|unload)s?\b|"
           # a size that stays after each step ("after every request, about 150MB stays allocated", "80 MB remains
           # in use after each completion"), or growth by a size per time or step ("RSS grows by ~1 GB per hour")
           r"\b(?:after|following)\s+(?:each|every)\s+(?:\w+\s+){0,2}?" + _STEP + r",?\s+(?:about |around |roughly |~)?"
           r"\d[\d.,]*\s*[KMG]i?B\s+(?:stays?|remains?|is (?:left|kept|still (?:allocated|in use|held)))\b|"
           r"\d[\d.,]*\s*[KMG]i?B\s+(?:stays?|remains?|is left|is kept)\s+(?:allocated |in use |held |reserved |resident )?"
           r"(?:after|following)\s+(?:each|every)\s+(?:\w+\s+){0,2}?" + _STEP + "|"
           r"\b(?:memory|RAM|VRAM|RSS|usage)\b[^.;!?\n]{0,30}?\b(?:grows?|grew|goes up|went up|increases?|increased|"
           r"rises|rose|climbs?|climbed|creeps? up|crept up)\s+by\s+(?:about |around |roughly |~)?\d[\d.,]*\s*[KMG]i?B\s+"
           r"(?:per|an?|each|every)"
           r"\s+(?:hour|minute|day|" + _STEP[3:] + r"\b|"
           # growth after each step, the step first ("at each request, the RAM usage increases", "on each call,
           # memory climbs")
           r"\b(?:at|with|on|after|for|in) (?:each|every) (?:new |single )?" + _STEP + r",?\s+(?:the\s+)?(?:\w+\s+){0,2}?"
           r"(?:memory|RAM|VRAM|RSS)\b(?:\s+(?:usage|use|consumption|footprint))?\s+(?:increases|grows|goes up|rises|"
           r"climbs|creeps up)\b|"
           # ... another size taken with each step, the step first or last ("With each successive prompt, another
           # 200-400MB of VRAM is used", "an additional 300 MB of RAM gets used after every message")
           r"\b(?:with|after|on|for|at)\s+(?:each|every)\s+(?:successive\s+|new\s+|subsequent\s+|further\s+)?" + _STEP +
           r",?\s+(?:another|an (?:additional|extra)|a further)\s+(?:about |around |roughly |~)?\d[\d.,]*(?:\s*-\s*\d[\d.,]*)?"
           r"\s*[KMG]i?B\s+(?:of\s+)?(?:\w+\s+)?(?:memory|RAM|VRAM|RSS)\b|"
           r"\b(?:another|an (?:additional|extra)|a further)\s+(?:about |around |roughly |~)?\d[\d.,]*(?:\s*-\s*\d[\d.,]*)?"
           r"\s*[KMG]i?B\s+(?:of\s+)?(?:\w+\s+)?(?:memory|RAM|VRAM|RSS)\b[^.;!?\n]{0,40}?\b(?:with|after|on|for|per)\s+"
           r"(?:each|every)\s+(?:successive\s+|new\s+|subsequent\s+)?" + _STEP + "|"
           # doubling over time ("RAM usage doubles every few hours")
           r"\b(?:memory|RAM|VRAM|RSS|usage)\b[^.;!?\n]{0,30}?\b(?:doubles|doubled|triples|tripled)\s+(?:every|each|over|"
           r"after|within|in)\b|"
           # growth said twice ("the RAM grows and grows", "VRAM climbs and climbs", "goes up and up")
           r"\b(?:memory|RAM|VRAM|RSS|usage)\b[^.;!?\n]{0,30}?\b(?:grows|climbs|rises|increases|goes up|keeps going up)\s+"
           r"and\s+(?:grows|climbs|rises|increases|up)\b|"
           r"\b(?:memory|RAM|VRAM|RSS|usage)\b[^.;!?\n]{0,30}?\b(?:growing and growing|climbing and climbing|rising and "
           r"rising|increasing and increasing)\b|"
           # memory that only goes one way, or is kept from the OS ("RSS only goes up", "buffers never returned to
           # the OS"), or "more and more" of it ("strands more and more wired memory", "memory use gets more and more")
           r"\b(?:memory|RAM|VRAM|RSS|usage)\b[^.;!?\n]{0,20}?\b(?:only|ever) (?:goes up|grows|increases|rises|climbs)\b|"
           r"\b(?:never|not)\s+(?:being\s+)?(?:returned|released|given back)\s+to\s+(?:the\s+)?(?:OS|system|operating "
           r"system|kernel)\b|"
           r"\bmore and more\s+(?:\w+\s+){0,2}?(?:memory|RAM|VRAM)\b|"
           # ... or a step that does not give it back ("After running for a period of time, it fails to release VRAM")
           r"\b(?:fails?|failed|failing|unable) to (?:release|free|reclaim) (?:the |its |GPU |host )?(?:VRAM|memory|RAM)\b|"
           # memory accumulating ("GPU memory slowly accumulating"), allocations never given back ("small
           # allocations which do not get deallocated ever")
           r"\b(?:memory|RAM|VRAM)\b[^.;!?\n]{0,20}?\b(?:slowly |gradually |steadily )?accumulat(?:es|ing|ed)\b|"
           r"\baccumulat(?:es|ing|ed) (?:\w+ )?(?:GPU |host |CPU )?(?:memory|RAM|VRAM)\b|"
           r"\ballocations?\b[^.;!?\n]{0,60}?(?:\b(?:never|not)|n['\u2019]t)\s+(?:get\s+|being\s+)?(?:de-?allocated|freed|"
           r"released|returned)\b|"
           r"\b(?:memory|RAM|VRAM|RSS)\b[^.;!?\n]{0,20}?\bmore and more\b|"
           # an onset over time or requests ("after some time the runner starts swapping", "after ~50 prompts it
           # begins to swap")
           r"\b(?:after|over)\b(?:(?!\b(?:not|never)\b|n't\b)[^.;!?\n]){0,60}?\b(?:starts?|begins?|started|began)\s+(?:\w+ly\s+)?(?:swapping|"
           r"to swap|to grow|growing|leaking|to leak)\b|"
           # an out of memory that comes only after long use: hundreds of requests or more ("We encounter OOM after a
           # few hundred (maybe a thousand) prompts", "it crashes after ~2000 requests"), or extended periods ("out of
           # memory problems over extended periods of usage"): what each request left behind, added up
           r"\b" + _DIED + r"[^.;!?\n]{0,40}?\b(?:after (?:a few |several |some |many |about |around |~)?" + _MANY
           + r"\s+(?:\([^)\n]{0,40}\)\s+)?" + _OF_REQUESTS + r"|over (?:extended|long|prolonged) (?:periods?|stretches)"
           r"(?: of " + _USE + r")?\b|after (?:long|extended|prolonged) (?:periods?|stretches) of " + _USE + r"\b)|"
           # ... the count first ("After a couple of thousand requests the server always OOMs")
           r"\bafter (?:a few |a couple of |several |some |many |about |around |~)?" + _MANY + r"\s+" + _OF_REQUESTS
           + r"[^.;!?\n]{0,40}?\b" + _DIED)
#: ... in Chinese: memory that keeps rising (显存一直缓慢增长, 内存持续上涨), memory not given back (显存不释放), a leak
#: (内存泄漏)
_GROWTH_ZH = (r"(?:显存|内存|占用|RSS|VRAM|nvidia-smi)[^，。,.；;！？]{0,12}?"
              # (or the metric read between them: 内存container_memory_working_set_bytes持续增加)
              r"(?:[A-Za-z_][\w.:{}=\"-]{0,120}\s*)?"
              r"(?:一直|持续|不断|不停地?|缓慢|逐渐|慢慢|越来越|逐步|累积|累计)"
              # (递增, "increasing step by step": 显存会一直递增(每次推理递增200M左右))
              r"[^，。,.；;！？]{0,6}?(?:增长|增加|增大|上涨|上升|变大|升高|递增|涨|多)|"
              # (or a reading at the start, then a higher one later: 刚开始启动只有大概17g显存的占用，访问了大概100次，显存就大概
              # 跑到23g了)
              r"(?:刚开始|一开始|最开始|起初|开始时|启动时|初始)[^。！？]{0,30}?\d+(?:\.\d+)?\s*[GgMm][^。！？]{0,60}?"
              r"(?:显存|内存)[^。！？，,]{0,8}?(?:跑到|涨到|升到|增加到|增长到|上升到|飙升到|变成|变为)了?\s*\d+(?:\.\d+)?\s*[GgMm]|"
              r"(?:显存|内存)[^，。,.；;！？]{0,8}?(?:不|没有?|未|无法)(?:会|能)?(?:自动)?(?:被)?(?:释放|回收)|"
              # (the clause told after the memory's state: 显存会一直处于被占状态，不会自动释放)
              r"(?:显存|内存)[^。.；;！？]{0,16}?(?:一直|始终|持续|长期)[^。.；;！？]{0,12}?[，,]\s*(?:也|都|仍|还)?"
              r"(?:不|没有?|未|无法)(?:会|能)?(?:自动)?(?:被)?(?:释放|回收)|"
              # ... or added up at each request (每一次搜索调用模型后，显存就会累加一次): a size each step leaves
              r"每一?次[^。！？；;]{0,24}?(?:显存|内存)[^。！？；;，,]{0,8}?(?:累加|累积|叠加)|"
              # ... or grown, and not given back after the work (内存占用变大，对话完成也不会回收), or built up until
              # full (显存累积顶满)
              r"(?:显存|内存)(?:占用)?(?:变大|增大|增加)[^。！？]{0,24}?(?:不|没有?|未|无法)(?:会|能)?(?:被)?(?:释放|回收)|"
              r"(?:显存|内存)[^，。,.；;！？]{0,8}?(?:累积|累计|逐渐|慢慢)(?:顶满|占满|打满|吃满|用满|耗尽)|"
              # ... or not going down once a request is over (每次问题结束后显存不降)
              r"(?:结束|完成|之后|以后|后)[^，。,.；;！？]{0,4}?(?:显存|内存)(?:占用)?(?:也|都|仍|还)?(?:不|没有?)(?:会)?(?:下降|降|回落|减少)|"
              # ... or a reading hours on that is another than before (1个多小时之后，vllm显存占用变成了18G)
              r"\d+\s*个?多?(?:小时|天)(?:之?后|以后)[^。！？；;]{0,16}?(?:显存|内存)(?:占用)?(?:变成|变为|成了|涨到|增长到)了?\s*"
              r"\d+(?:\.\d+)?\s*[GM]|"
              r"(?:显存|内存)[^，。,.；;！？]{0,8}?泄[漏露]|"
              # ... or filled after a long time of use (长时间调用模型做生成后，在V100上显存还是被占满了): what a time of
              # work left behind, not one request's peak
              r"长时间(?:地)?(?:调用|运行|使用|推理|生成|跑|服务|对话)[^。！？]{0,30}?(?:显存|内存)[^。！？，,]{0,12}?(?:被)?"
              r"(?:占满|满了|爆了|打满|吃满|耗尽|用完|用光)|"
              # ... or only ever rising (主机内存（RAM）只涨不跌; RSS 从约 13GB 一路增长到 47.8GB)
              r"(?:显存|内存|RSS|占用)[^。！？；;]{0,30}?(?:只涨不跌|只增不减|只升不降|只涨不降|"
              r"一路(?:增长|上涨|飙升|攀升|走高|涨))|"
              # ... or piling up (会出现累积的显存，然后到上限后报错; 显存不断堆积; not 累计, a total: 累计显存占用 20G)
              # (显存会一点点累积)
              r"(?:累积|堆积)的?(?:显存|内存)|(?:显存|内存)(?:占用)?[^，。,.；;！？\d]{0,6}?(?:累积|堆积)(?![^，。,.；;！？]{0,4}\d)|"
              # soaring until it fills the machine (内存占用会飙升，直到吃满整个机器)
              r"(?:显存|内存)(?:占用)?[^。！？]{0,8}?(?:飙升|暴涨|猛涨|狂涨)[^。！？]{0,6}?直到|"
              # "the more it is used, the more it takes" (显存越占越多, 内存越用越大)
              r"(?:显存|内存|占用)[^，。,.；;！？]{0,6}?越[占用吃涨来]越(?:多|大|高)|"
              # rising from a reading (显存从最开始的30G一直上涨, 内存从 20GB 开始增长): its start, then the rise
              r"(?:显存|内存)(?:占用)?从[^，。,.；;！？]{0,10}?\d+(?:\.\d+)?\s*[GM]i?B?[^，。,.；;！？\d]{0,8}?"
              r"(?:上涨|增长|增加|上升|升高|涨)|"
              # rising to a size (显存会长到78G, 内存涨到了30GB): a verb of rising, not a reading (达到, "reaches")
              r"(?:显存|内存)[^。.！？;；]{0,40}?(?:长到|涨到|增长到|增加到|升到|上升到)了?\s*\d+(?:\.\d+)?\s*[GM]")


#: a reading a user states with the one it rose from after it, over a span of work or time ("RSS reaches ~9 GB after
#: 2,000 generated tokens, from a ~1.5 GB base", "VRAM climbed to 22 GiB after 500 requests, from 16 GiB at start"):
#: checked by _growth_to_from (a memory word, a span, a fifth more)
#: memory a model's unload (or its process's end of work) does not give back, in a person's words ("it leaves the
#: `mmproj-model-f16` portion of the model still loaded in VRAM", "VRAM is not released after unloading the model",
#: "after the model is unloaded 3 GB stay allocated"): memory kept with no load to hold it, as a leak
_NOT_FREED = r"(?:isn't|aren't|wasn't|weren't|(?:is|are|was|were|does|do|did|gets?|got) (?:not|never)|never)\s+(?:get\s+|be\s+|being\s+|been\s+)?"
_KEPT = (r"(?:\bunload\w*\b|\b(?:even )?after (?:\w+ ){0,2}?(?:delet\w*|del|freeing|closing|releasing|stopping|garbage[- ]"
         r"collect\w*|gc\.collect|empty_cache)\b)(?=[^.;!?\n]{0,200}?\b(?:VRAM|memory|RAM)\b)[^.;!?\n]{0,160}?\b(?:still (?:loaded|allocated|resident|"
         r"held|occupied|in use)\b|stays? (?:allocated|loaded|resident|occupied|in use)\b|remains? (?:allocated|loaded|"
         r"resident|occupied|in use|higher)\b|" + _NOT_FREED + r"(?:freed|released|reclaimed|returned|given back)\b)|"
         r"\b(?:VRAM|memory|RAM)\b[^.;!?\n]{0,40}?" + _NOT_FREED + r"(?:freed|released|reclaimed|returned|given back)\b"
         r"[^.;!?\n]{0,40}?\b(?:after|when|once|on)\b[^.;!?\n]{0,30}?\bunload|"
         # ... or risen and not come back down ("Then you can see the ram memory increased but not get down to normal
         # size", "VRAM goes up after each chat and never drops back")
         r"\b(?:VRAM|memory)\b[^.;!?\n]{0,30}?\b(?:increase[sd]?|grows?|grew|rises|rose|goes up|went up|climbs?|"
         r"climbed)\b(?=[^.;!?\n]{0,30}?\b(?:but|and)\s+(?:it\s+|then\s+)?(?:does not|doesn't|did not|didn't|never|not|"
         r"won't|will not)\s+(?:(?:get|go|come)s?\s+(?:back\s+)?down\b|(?:drop|fall)s?\b|(?:get|go|come)s?\s+back\b))|"
         # (in German, Korean, Chinese: "steigt mit jeder Anfrage um 500 MB, geht nie wieder zurück", "계속 증가하고
         # 줄어들지 않습니다", "每次请求都会涨一点，请求结束后也不降下来")
         r"\b(?:steigt|wächst|waechst)\b[^.;!?\n]{0,60}?\b(?:geht|fällt|faellt|sinkt)\s+(?:nie|nicht)\b|"
         r"증가(?:하고|하며|하는데)[^.。\n]{0,20}?(?:줄어들지|내려가지|감소하지)\s*않|"
         r"(?:涨|增加|上升|增长)[^。；\n]{0,20}?(?:不降|降不下来|不会降|不下降|不回落|不释放)|"
         # ... or still not freed, the "still" saying something should have freed it ("the VRAM is still not freed. The
         # VRAM only gets cleared after I kill the app")
         r"\b(?:VRAM|memory|RAM)\b[^.;!?\n]{0,30}?\b(?:is|was|are|were|gets?|got) still not (?:being )?(?:freed|released|"
         r"cleared|reclaimed)\b|"
         # ... or not freed when what held it was closed, the closing told in the sentence before ("recover memory when
         # we create a new session and close them again. Looks like the GPU memory is not freed.")
         r"\bclos(?:e|es|ed|ing)\s+(?:the\s+|a\s+|each\s+|every\s+)?(?:\w+\s+)?(?:sessions?|conversations?|chats?|"
         r"contexts?|instances?|them|it)\b[^!?\n]{0,120}?\b(?:VRAM|memory|RAM)\b[^.;!?\n]{0,30}?(?:\b(?:is|was|are|were|gets?|"
         r"got)\s+not|\b(?:isn't|wasn't|aren't|never(?: gets?)?))\s+(?:being\s+)?(?:freed|released|reclaimed|cleared)\b")
_TO_FROM = (r"\b(?:reach(?:es|ed)?|(?:climb(?:s|ed)?|grows?|grew|rises|rose|goes up|went up) to|ends? (?:up )?at)\s+"
            r"(?:~|about |around |over )?" + _USIZE + r"[^.;!?\n]{0,80}?\bfrom (?:a |the )?(?:~|about |around )?" + _USIZE)
_SPAN = re.compile(r"\b(?:after|over|within|for)\s+(?:\S+\s+){0,3}?(?:tokens|requests|hours?|minutes|days?|weeks?|rounds|"
                   r"iterations|prompts|generations|calls|runs|chats|completions|nights?|weekends?)\b|\bovernight\b|"
                   # ... or the same work done many times ("After calling '/rerank' request many times", "400,000 times")
                   r"\b(?:many|several|multiple|countless|\d[\d,]*|hundreds of|thousands of)\s+times\b|"
                   # ... or a count of steps of work, as the subject ("40 consecutive requests took RSS from ..."; not
                   # of tokens, which is one request's size: "8192 tokens take VRAM from 6 GB to 9 GB")
                   r"\b\d[\d,]*\s+(?:consecutive\s+|more\s+|further\s+)?(?:requests|rounds|iterations|prompts|generations|"
                   r"calls|runs|chats|completions|hours|days|weeks)\b", re.I)
#: growth by a size a user states, checked by _growth_over_span for a span of work or time in its clause ("GPU memory
#: increases by 20GB ... when left running for 7 days", "VRAM usage increased by 12 GB over three days")
_BY_SIZE = (r"\b(?:memory|RAM|VRAM|RSS|usage)\b[^.;!?\n]{0,30}?\b(?:increases?|increased|grows?|grew|goes up|went up|"
            r"rises|rose|climbs?|climbed)\s+by\s+(?:about |around |roughly |~|over |almost |nearly )?" + _USIZE)
_MEM_IN = re.compile(r"\b(?:RSS|RAM|VRAM|memory|resident)\b", re.I)


#: ... the other way round ("Memory went from 18 GB to 23 GB over 6 hours", "RAM climbs from 10 GB to 40 GB over
#: two days"), and as where it is now and where it started ("after 1000 requests the process is at 30 GB, it started
#: at 12 GB"), checked by _growth_from_to and _growth_now_then
_FROM_TO = (r"(?:\b(?:memory|RAM|VRAM|RSS|usage|it)\b[^.;!?\n]{0,30}?\b(?:went|goes|rose|rises|climbs?|climbed|grew|grows|"
            r"increased|increases|jumped|jumps|crept|creeps)\s+(?:up\s+)?"
            # (an adverb of how much between, maybe opening a bracket: "RAM memory usage increases significantly(from
            # 6GB to 42+GB)")
            r"(?:(?:significantly|considerably|substantially|massively|sharply|rapidly|quickly|dramatically|hugely|a lot)"
            r"\s*\(?\s*)?|"
            # ... or what took it there, memory after the verb ("40 requests took RSS from 1.3 GiB to 6.4 GiB")
            r"\b(?:took|takes?|pushed|push(?:es)?|brought|brings?|drove|drives?)\s+(?:the\s+)?(?:\w+\s+)?"
            r"(?:memory|RAM|VRAM|RSS|usage)\s+(?:up\s+)?|"
            # ... or a gradual change said with the sizes, memory named before them ("Gradually Out of memory from 14G
            # to 24G", "slowly, memory use from 9 GB to 15 GB")
            r"\b(?:gradual(?:ly)?|slowly|steadily|progressively)\b(?=[^.;!?\n]{0,40}?\b(?:memory|RAM|VRAM|RSS|usage)\b)"
            r"[^.;!?\n]{0,40}?\s)"
            # (sizes qualified as people write them: "from under ~100 GB used to ~220 GB+")
            r"from\s+(?:under |below |less than |over |above |about |around |roughly )?~?" + _USIZE +
            r"(?:\s+(?:used|in use|RSS|resident))?\s+to\s+(?:~|about |around |over |above |more than )?~?" + _USIZE)
_NOW_THEN = (r"\b(?:is|sits|stands) (?:now )?at (?:~|about |around |over )?" + _USIZE + r"[^.;!?\n]{0,40}?\b(?:it |and )?"
             r"(?:started|began|was) at (?:~|about |around )?" + _USIZE)


#: the adverbs of `_FROM_TO` that say the change was gradual: a span of time in themselves
_GRADUAL = re.compile(r"(?:gradual(?:ly)?|slowly|steadily|progressively)\b", re.I)
#: the verbs of `_FROM_TO` that name what took memory up, with memory after them
_TOOK = re.compile(r"(?:took|takes?|pushed|push(?:es)?|brought|brings?|drove|drives?)\b", re.I)


def _growth_from_to(m: re.Match) -> str:
    """`_FROM_TO`'s clause; where what took memory up is its subject ("40 requests took RSS from ..."), that subject
    must be a span of work or time: "Loading took memory from 1 GB to 14 GB, then it served for two days" is the
    load's own rise."""
    if _GRADUAL.match(m.group(0)):  # (the adverb is the span: "gradually ... from 14G to 24G")
        clause = _growth(m)
        to, start = _usize(m, 3), _usize(m, 1)
        if start <= 0 or to < 1.2 * start:
            raise ValueError("no growth")
        return clause
    clause = _growth_to_from(m, start=1, to=3)
    if _TOOK.match(m.group(0)):
        text = m.string
        begin = _sentence_start(text, m.start())
        if not _SPAN.search(text, begin, m.start()):
            raise ValueError("no span took it there")
    return clause


def _growth_now_then(m: re.Match) -> str:
    # (its subject may be the process itself: "the process is at 30 GB", a size that is its memory)
    return _growth_to_from(m, start=3, to=1, word=False)


def _growth_to_from(m: re.Match, start: int = 3, to: int = 1, word: bool = True) -> str:
    """The clause of a reading stated with the one it rose from (`_TO_FROM`: the sizes' groups `to` and `start`);
    ValueError where it is no growth: no memory word or span of work or time in the clause, or less than a fifth
    more."""
    clause = _growth(m)
    to, start = _usize(m, to), _usize(m, start)
    if not ((_MEM_IN.search(clause) or not word) and _SPAN.search(clause)) or start <= 0 or to < 1.2 * start:
        raise ValueError("no growth")
    return clause


def _growth_over_span(m: re.Match) -> str:
    """The clause of growth by a size (`_BY_SIZE`) over a span of work or time; ValueError where the clause names no
    span ("increases by 2 GB when I raise max_model_len": a setting, not time)."""
    clause = _growth(m)
    if not _SPAN.search(clause):
        raise ValueError("no span")
    return clause


#: a reading at the start, then a higher one after a span of work or time, in the next sentences ("Right after loading
#: the runner uses 11.3 GiB of VRAM. After about two days of steady traffic ... the process at 22.9 GiB"; Spanish "Al
#: arrancar ... 9,6 GB ... Después de 3 horas ... 10,8 GB"; German "Nach dem Start ... 9,6 GB ... nach 5 Stunden 12 GB"),
#: checked by _growth_start_then (a fifth more at least, a memory word in it)
#: (a size with a decimal point or comma, "9,6 GB"; its value and unit's letter, read by _SIZE_IN)
_START_SIZE = r"(\d+(?:[.,]\d+)?)\s*([KMGT])i?B\b"
_START_THEN = (r"(?:\b(?:right after (?:loading|start(?:ing|up|-up)?|launch(?:ing)?|boot)|after (?:loading|start-?up|launch)|"
               r"at (?:start|start-?up|launch|boot)|on start(?:-?up)?|initially|at first|at the (?:beginning|start))\b"
               r"[^.;!?\n]{0,80}?" + _START_SIZE + r"[^!?\n]{0,240}?\b(?:after|by)\s+(?:about\s+|roughly\s+|~|some\s+)?"
               r"(?:\S+\s+){0,3}?(?:hours?|days?|weeks?|requests|conversations|chats|calls)\b|"
               r"\b(?:al (?:arrancar|iniciar|empezar|cargar)|al principio|recién (?:arrancado|iniciado))\b[^.;!?\n]{0,80}?"
               + _START_SIZE + r"[^!?\n]{0,240}?\b(?:después de|tras|a las|al cabo de)\s+(?:\S+\s+){0,2}?(?:horas?|días?|"
               r"peticiones|solicitudes|conversaciones)\b|"
               r"\b(?:nach dem (?:Start|Laden)|beim Start|anfangs|zu Beginn)\b[^.;!?\n]{0,80}?" + _START_SIZE +
               r"[^!?\n]{0,240}?\bnach\s+(?:\S+\s+){0,2}?(?:Stunden?|Tagen?|Anfragen)\b)[^.;!?\n]{0,120}?" + _START_SIZE)
_MEM_WORDS_ANY = re.compile(r"\b(?:RSS|RAM|VRAM|memory|resident|memoria|Speicher\w*|nvidia-smi)\b", re.I)
_SIZE_IN = re.compile(_START_SIZE, re.I)


def _growth_start_then(m: re.Match) -> str:
    """The words of a reading at start and a later one (`_START_THEN`), with the readings after it in the same sentence
    ("... 10,8 GB, a las 5 horas 11,5 GB"); ValueError where the last is not a fifth more than the first (a tenth, where
    three readings or more rise in order), no memory word is in them, or they ask."""
    stop = _SENTENCE_END.search(m.string, m.end())
    said = m.string[m.start():stop.start() if stop else len(m.string)]
    sizes = [to_bytes(v.replace(",", "."), u + "B") for v, u in _SIZE_IN.findall(said)]
    rising = len(sizes) >= 3 and all(b > a for a, b in zip(sizes, sizes[1:]))
    if (len(sizes) < 2 or sizes[0] <= 0 or sizes[-1] < (1.1 if rising else 1.2) * sizes[0]
            or not _MEM_WORDS_ANY.search(said)):
        raise ValueError("no growth")
    end = m.string.find("?", m.end(), m.end() + 80)
    if end != -1 and "." not in m.string[m.end():end]:
        raise ValueError("asked")
    return said[:300]


#: growth in a report's other languages: German ("der GPU-Speicher steigt kontinuierlich an, etwa 300 MB pro Stunde",
#: "Speicherleck"), Russian ("память растёт с каждым запросом", "утечка памяти"), Spanish, French, Portuguese ("la
#: memoria sigue creciendo", "la mémoire augmente à chaque requête"), Japanese ("VRAMが増え続け", "メモリリーク") and Korean
#: ("메모리가 계속 증가", "메모리 누수"): a rise said to go on, with each request or over time, or a leak named
_GROWTH_OTHER = (r"\b(?:Speicher|VRAM|RAM|Arbeitsspeicher|GPU-Speicher|Grafikspeicher|Speicherverbrauch|Speicherbedarf)"
                 r"[-\w]*\b[^.;!?\n]{0,60}?\b(?:steigt|wächst|nimmt)\s+(?:\w+\s+){0,2}?(?:kontinuierlich|stetig|ständig|"
                 r"immer weiter|langsam|mit jeder|pro Stunde|mit der Zeit|über die Zeit|linear)\b|"
                 r"\bSpeicherleck\w*|"
                 r"(?:память|видеопамять|VRAM|ОЗУ|RAM|потребление памяти)[^.;!?\n]{0,40}?(?:постоянно |медленно |неуклонно |всё время )?"
                 r"(?:растёт|растет|увеличивается|утекает|прибавляется)[^.;!?\n]{0,20}?(?:с каждым|постоянно|со временем|"
                 r"каждый час|в час|медленно|пока не|до тех пор)|"
                 r"(?:память|видеопамять|VRAM|ОЗУ)[^.;!?\n]{0,20}?(?:постоянно|медленно|неуклонно|всё время) "
                 r"(?:растёт|растет|увеличивается)|утечк[аиу] (?:видео)?памяти|"
                 r"\b(?:memoria|memória|VRAM|RAM)\b[^.;!?\n]{0,40}?\b(?:sigue|continúa|continua) (?:creciendo|aumentando|subiendo)|"
                 r"\b(?:memoria|memória|mémoire|VRAM|RAM)\b[^.;!?\n]{0,40}?\b(?:crece|aumenta|sube|cresce|augmente|grimpe|"
                 r"croît|monte)\b[^.;!?\n]{0,30}?\b(?:constantemente|continuamente|con cada|cada hora|por hora|con el tiempo|"
                 r"sin parar|poco a poco|a cada|com o tempo|constamment|continuellement|à chaque|par heure|avec le temps|"
                 r"sans cesse|progressivement)\b|"
                 r"\b(?:fuga|vazamento) de (?:memoria|memória)\b|\bfuite (?:de )?mémoire\b|"
                 r"(?:メモリ|VRAM)[^。\n]{0,20}?(?:増え続け|増加し続け|徐々に増|どんどん増|リクエストごとに増)|メモリリーク|"
                 r"(?:메모리|VRAM)[^.。\n]{0,20}?(?:계속|점점|꾸준히|요청마다)\s*(?:증가|늘어|올라)|메모리\s*누수")
#: a negation in those languages within the clause before the growth words ("steigt nicht", "не растёт", "no crece")
_DENIED_GROWTH_OTHER = re.compile(r"\b(?:nicht|kein\w*|no|não|pas|ne)\b|\bне\b|ない|않", re.I)
#: ... and a fall after the rise, in the rest of the sentence ("sube a 20 GB con cada petición y luego vuelve a bajar a 8
#: GB", "steigt ... und sinkt danach wieder", "растёт ... а потом освобождается"): a request's peak, given back
_COMES_BACK_OTHER = re.compile(r"vuelve a bajar|baja de nuevo|vuelve a \d|se libera|volta a (?:baixar|\d)|é liberad|"
                               r"redescend|rebaisse|revient à|est libérée|sinkt (?:\w+ )?wieder|wieder frei|geht (?:\w+ )?wieder "
                               r"(?:runter|zurück)|освобожда|снова (?:падает|снижается|уменьшается)|возвращается|"
                               r"(?:元に|下が)(?:戻|り)|解放され|다시 (?:내려|줄어|감소)|해제", re.I)


def _growth_other(m: re.Match) -> str:
    """The clause of a user's line that states growth in a language of `_GROWTH_OTHER`; ValueError where it is
    denied or asked."""
    text = m.string
    begin = max(text.rfind(".", 0, m.start()), text.rfind("\n", 0, m.start())) + 1
    end = m.end()
    while end < len(text) and text[end] not in ".!?\n":
        end += 1
    if _DENIED_GROWTH_OTHER.search(m.group(0)) or text[end:end + 1] == "?":
        raise ValueError("denied or asked")
    if _COMES_BACK_OTHER.search(text, m.end(), end):
        raise ValueError("given back")
    return text[begin:end + 1].strip()[:300]


def _growth_zh(m: re.Match) -> str:
    """The Chinese clause of a user's line that states growth; ValueError where it supposes, asks or denies the
    growth (显存没有一直增长: "did not keep growing"; not 不释放, "not released", which is the report)."""
    clause = _failure_stated_zh(m)
    if _DENIED_GROWTH_ZH.search(clause):
        raise ValueError("denied")
    if _LOADING_ZH.search(m.string):
        raise ValueError("a rise within the load")  # (加载模型的时候内存一直上涨: the weights coming in, no leak)
    if _HELD_AFTER_CRASH_ZH.search(m.string[:m.end()]) and re.search(r"释放|回收", m.group(0)):
        # (memory not given back after the process crashed, 崩溃，且内存不释放: what the dead process held, or its
        # stuck workers, not memory growing as it served)
        raise ValueError("held after a crash")
    return clause


#: a crash told before memory said not to be given back, in the same line
_HELD_AFTER_CRASH_ZH = re.compile(r"(?:崩溃|崩了|挂了|挂掉|宕机|退出|被杀|被kill|crash\w*|coredump|core dump)[^。！？]{0,12}?"
                                  r"(?:显存|内存)", re.I)


_LOADING_ZH = re.compile(LOADING_CJK)


#: a negation right before the Chinese growth words
_DENIED_GROWTH_ZH = re.compile(r"(?:没有?|不|未|无|并没有?)(?:再|会|是|在)?(?:越|一直|持续|不断|缓慢|逐渐|慢慢|越来越|逐步|增长|"
                               r"增加|上涨|上升|变大|升高|涨)")


#: a denial or doubt in the words' own clause ("no memory leak", "memory does not keep growing")
#: (also a contraction without its apostrophe or with a typographic one: "it wouldnt run into OOM", "didn\u2019t")
_DENIED = re.compile(r"\b(?:no|not|never|nothing|without|nor|rule[sd]? out|ruled out|instead of)\b|n['\u2019]t\b|"
                     r"\b(?:do|does|did|would|could|should|is|was|are|were|wo|ca|has|have|had|need)nt\b", re.I)
#: growth past any bound ("grows without bound", "without limit", "with no limit"): its "without" denies the bound,
#: not the growth
_UNBOUNDED = re.compile(r"\b(?:without|with no) (?:any )?(?:upper )?(?:bound|limit)s?\b", re.I)
#: growth stated by saying memory is not given back: its negation is the report itself ("is never released")
_NOT_GIVEN_BACK = re.compile(r"(?:\b(?:not|never)|n['\u2019]?t)\s+(?:seem\s+to\s+)?(?:being\s+|getting\s+|gets?\s+|become\s+|be\s+)?"
                             r"(?:properly\s+|fully\s+)?"
                             r"(?:returned|released?|releasing|releases|freed|freeing|frees|free|de-?allocated|reclaimed|given back|return|give back|unload\w*|go(?:es)? "
                             r"(?:back )?down|come(?:s)? back)\b", re.I)
#: a clause that supposes rather than reports ("memory would keep growing", "to check whether RSS increases", "I
#: expect memory to grow")
#: (not "could not" and "couldn't", a past failure: "the server could not start", "the image could not be generated")
_SUPPOSED_GROWTH = re.compile(r"\b(?:would|could(?!\s*not\b|n['\u2019]?t\b)|should|to see|to check|expect\w*|hop\w*|wonder\w*|suspect\w*|"
                              # (a worry of what may come: "I am afraid it will crash when more users come")
                              r"afraid|worr(?:y|ied|ies|ying)|fear(?:s|ed|ful)?|concerned|"
                              r"maybe|perhaps|possibly|probably|it(?:'s| is) possible|possible for|"
                              # another's word for it ("someone on the forum said", "my colleague thinks")
                              r"thinks|believes|claims|(?:someone|somebody|people|others|colleague|a user)\b[^.;!?]{0,40}?"
                              r"\b(?:said|says|reported|thinks?|believes?|claims?))\b", re.I)
#: a hedge that supposes, unless a condition stated before it says when it happens ("if the client aborts, RSS may
#: keep growing" describes a reproduction; "memory may be leaking" supposes)
_HEDGE = re.compile(r"\b(?:may|might)\b", re.I)
#: a condition: the words inside it are supposed ("if memory keeps growing, restart"); once its comma closes it, the
#: clause after it says what happens then
_CONDITION = re.compile(r"\b(?:if|whether|in case|unless)\b", re.I)


#: a question of why, which takes what follows as so ("Not sure why the memory usage is gradually increasing", "no idea
#: why", "I wonder why", "can't figure out why")
_WHY = re.compile(r"\b(?:not sure|unsure|no idea|(?:(?:do|does|did)(?: not|n['\u2019]?t)|can['\u2019]?t|cannot|could(?: not|n['\u2019]?t))"
                  r" (?:know|understand|tell|figure out|see)|unclear|wonder(?:ing)?|curious)\s+(?:why|how come)\b", re.I)


#: a conjunction that begins a clause with its own subject ("... and I'm getting", "..., but it keeps"): the words
#: before it are another clause's
_NEW_SUBJECT = re.compile(r"\b(?:and|but|so)\s+(?=(?:I|I['\u2019]m|we|we['\u2019]re|it|it['\u2019]s|memory|RAM|VRAM)\b)", re.I)


#: "no matter what (I do)": every try fails alike, the "no" denies nothing
_NO_MATTER = re.compile(r"\bno matter (?:what|how|which|where|when|whether)\b[^,;]*", re.I)


def _supposed(text: str, begin: int, at: int, end: int, inside: bool = True) -> bool:
    """Whether the words at `text[at:end]`, in the sentence that starts at `begin`, are denied, doubted, asked about or
    supposed rather than stated: judged in their own clause (after the sentence's last comma before them), so a
    condition before them ("if the client does not close the stream, RSS keeps growing") states what happens then.
    inside: the words themselves may deny ("RSS doesn't keep growing"); False where they are a failure's own words,
    whose negation is the report ("can't even run")."""
    head = _WHY.sub(" ", text[begin:at])  # ("not sure why memory keeps growing" asks why, not whether)
    own = head[max(head.rfind(","), head.rfind(":")) + 1:]  # the words' own clause, up to them
    # (a dash begins a clause of its own: "the first request never returns - it just hangs" states the hang; a pair of
    # dashes sets words aside, "it does not - as far as I can tell - hang" keeps its denial)
    parts = _DASH_CLAUSE.split(own)
    own = parts[-1] if len(parts) % 2 == 0 else " ".join(parts[0::2])
    # (a clause of its own begins at a conjunction with its own subject: "causing KV cache to be not freed and I'm
    # getting steadily increasing memory usage": the denial is the earlier clause's)
    joined = list(_NEW_SUBJECT.finditer(own))
    own = own[joined[-1].end():] if joined else own
    own = _NO_MATTER.sub(" ", own)  # ("no matter what I do, I cannot start a LLM": said of every try, no denial)
    words = text[at:end]
    inside = "" if not inside or _NOT_GIVEN_BACK.search(words) else _UNBOUNDED.sub(" ", words)
    if _DENIED.search(own) or _DENIED.search(inside) or _SUPPOSED_GROWTH.search(head) or _SUPPOSED_GROWTH.search(words):
        return True
    condition = [m for m in _CONDITION.finditer(head)]
    if condition and not re.search(r",|\bthen\b", head[condition[-1].end():]) and not _DASH_CLAUSE.search(
            head, condition[-1].end()):
        return True  # inside the condition itself (a dash closes it too: "Not sure if related - the server hangs")
    return not condition and bool(_HEDGE.search(own) or _HEDGE.search(words))


#: the turn from what was expected to what happened, inside growth's words (", but", "; however")
_BUT = re.compile(r"[,;]\s*(?:but|however|yet)\b,?\s*", re.I)


#: a question's first word: an auxiliary that asks yes or no, a question word, "any": what follows is asked
_QUESTION_WORD = re.compile(r"\W*(?:does|do|did|is|are|was|were|can|could|should|would|will|has|have|had|might|may|must|"
                            r"why|how|what|when|where|whether|which|any|anyone|anybody)\b", re.I)
#: growth's words that end in the failure it leads to ("increases until the oom", "grows until it crashes")
_TO_FAILURE = re.compile(r"\buntil\b[^.;!?\n]{0,30}?\b(?:OOMs?|OOM-?ed|out[- ]of[- ]memory|crash(?:es|ed)?|killed|dies)\b",
                         re.I)


def _growth(m: re.Match, inside: bool = True, rise: bool = True) -> str:
    """The clause of the line that states the growth; ValueError where it is denied, doubted or asked. rise: the words
    state a rise, so one within a single step ("rises 3.4, 3.5 GB ... after a minute") is no growth; a failure stated
    by the same reading ("the server dies after a few minutes") passes False."""
    text, at = m.string, m.start()
    begin = _sentence_start(text, at)
    after = _SENTENCE_END.search(text, m.end())
    end = after.start() if after else len(text)
    turn = _BUT.search(m.group(0))
    if turn:
        # (an expectation, then what happened: "I expected RSS to stay flat between requests, but it keeps growing":
        # the words after "but" are what the report states)
        begin = at = m.start() + turn.end()
    # (a question after a dash is a clause of its own: "stuck forever after torch.compile, GPU 100% — out of memory??";
    # not where the words are a quote the question is about: '"failed to allocate pinned memory" - is my setup broken?')
    own = text.count("\x22", 0, m.start()) % 2 == 0
    asked = text[end:end + 1] == "?" and not (own and _DASH_CLAUSE.search(text, m.end(), end))
    if asked and not _QUESTION_WORD.match(text, begin) and _TO_FAILURE.search(text, m.start(), end):
        # (a statement a writer ends with a question mark, its subject first and the failure it leads to named: "During
        # the gptq quantization process, the gpu memory usage increases until the oom?": what happens, asked why)
        asked = False
    if asked or _supposed(text, begin, at, m.end(), inside) or (
            inside and (_EXPECTED.search(text, m.end(), end + 1) or _COMES_BACK.search(text, m.end(), end + 1)
                        or LEVELS_OFF.search(text, m.end(), end + 1)
                        or _WITH_LOAD.search(text, begin, end + 1))):
        raise ValueError("not stated")
    sentence = text[begin:end + 1]
    if inside and _WHILE_LOADING.search(sentence) and not _LOAD_CYCLES.search(sentence):
        raise ValueError("memory rising while a model loads")  # ("When loading X, memory usage keeps growing"): the load
    if (inside and _LEAK_NAMED.search(m.group(0)) and _WHILE_LOADING.search(text, 0, begin)
            and not _LOAD_CYCLES.search(text)):
        # (a leak named after the same paragraph put the rise in the load: "During the GPU load attempt, system memory
        # usage climbs until it fills the entire 96GB of RAM ... but the memory leak/exhaustion persists": the load's)
        raise ValueError("a leak named for a rise while a model loads")
    if _AFTER_FAILURE.search(text, m.end(), end + 1):
        raise ValueError("memory held after a failure")  # ("did not release the memory after encountering OOM")
    if _FIXED_SINCE.search(text, m.end(), end + 1):
        raise ValueError("a leak told as fixed")  # ("all of the memory leak issues ... have been solved in 0.6.6")
    if _OTHERS_TOLD.search(text, begin, at):
        raise ValueError("others' reports")  # ("I have seen some other talk of memory leaks (#390), but I'm ...")
    if rise and (_SHORT_SPAN.search(sentence) or _WITHIN_STEP.search(sentence)) and not _LONG_SPAN.search(sentence):
        raise ValueError("a rise within one step")  # ("rises (3.4, 3.5GB etc.) and after about a minute it throws")
    return text[begin:end + 1].strip()[:300]



#: growth named as what other reports tell, just before its words ("I have seen some other talk of memory leaks (#390),
#: but I'm having a more sporadic issue", "unlike the memory leak in #1234", "there are existing issues about RAM
#: usage growing"): not the writer's own run
_OTHERS_TOLD = re.compile(r"(?:\b(?:other|others['\u2019]?|some|previous|earlier|existing|similar|related)\s+(?:\w+\s+){0,2}?"
                          r"(?:talk|reports?|issues?|discussions?|threads?|mentions?|complaints?|tickets?)\s+"
                          r"(?:of|about|on|regarding|mentioning)|\bunlike (?:the|those|that|other))\s+(?:\w+\s+){0,2}$|"
                          r"\b(?:similar to|same as|like|see|cf\.?|duplicate of)\s+(?:issue\s+)?#\d+\s*[(:,-]?\s*$|"
                          # (or a clause that tells what another issue reports: "However accordingly to #8198 prompt
                          # logs causes vllm to crash when using multi-step.")
                          r"\b(?:according(?:ly)?|as reported)\s+(?:to|in)\s+(?:issue\s+)?#\d+\b[^.;!?\n]{0,80}$",
                          re.I)
#: a leak told as fixed, after its words in the same sentence ("I believe that all of the memory leak issues of the
#: traditional type have been solved in 0.6.6", "the RAM leak was fixed in b4500")
_FIXED_SINCE = re.compile(r"\b(?:has|have|had) been (?:fixed|solved|resolved|addressed|patched)\b|"
                          r"\b(?:was|were|is|are|got) (?:fixed|solved|resolved|patched)\b", re.I)


#: a rise within one step of work ("OOM occurs as the memory continues to increase as it passes forward", "during the
#: forward pass", "layer by layer"): the step's own activations, not memory kept
_WITHIN_STEP = re.compile(r"\b(?:passes forward|forward pass(?:es)?|during (?:the )?(?:prefill|forward|profil\w*|warm-?up)|"
                          # (one long prompt read in: "Prefilling a long prompt makes VRAM usage grow until ...")
                          r"prefill(?:ing)? (?:a |the |one )?(?:very )?(?:long|large|big|huge) (?:prompt|context|input)|"
                          # (the load: "grows in 2 GB chunks while the model loads")
                          r"while (?:the )?(?:model|weights|it) (?:loads|is loading)|while loading|"
                          r"during (?:the )?(?:model |weights? )?load(?:ing)?|"
                          r"layer by layer|(?:with )?each layer|per layer)\b", re.I)
#: a rise over seconds or minutes, the span of one request's work ("the GPU ram usage slowly rises (3.4, 3.5GB etc.)
#: and after about a minute it throws the error"): that request's own use, not memory kept; a leak shows over hours,
#: days or many requests (a rate, "every minute", is not a span)
_SHORT_SPAN = re.compile(r"\b(?:after|within|in|for) (?:about |around |roughly |~|only |just )?(?:a|one|\d+|a few|few|several|"
                         r"some) (?:seconds?|secs?|minutes?|mins?)\b", re.I)
_LONG_SPAN = re.compile(r"\b(?:hours?|days?|weeks?|overnight|requests|prompts|conversations|calls|iterations)\b", re.I)


#: memory not given back after a failure, in the same sentence ("the worker did not release the occupied memory after
#: encountering OOM", "VRAM is not freed after the crash"): what a failure left behind, not growth that led to one
_AFTER_FAILURE = re.compile(r"\b(?:after|following|once)\s+(?:it\s+)?(?:encounter(?:ing|ed|s)?\s+|hitting\s+|hits?\s+|"
                            r"getting\s+|an?\s+|the\s+|that\s+)*(?:OOM|out of memory|CUDA OOM|error|exception|crash|"
                            r"failure|failed request)s?\b", re.I)


#: growth that follows the load in the same sentence ("token usage keeps increasing as more users join"): no leak
_WITH_LOAD = re.compile(r"\bas (?:more |the )?(?:users?|requests?|clients?|load|traffic|concurren\w*|sessions?|"
                        r"conversations?|contexts?|prompts?)\b(?: \w+){0,3}? (?:join|arrive|come|grow|increase|rise|"
                        r"get longer)\w*|\bwith (?:more|the number of) (?:users|requests|concurrent)"
                        r"(?!\w* (?:served|handled|processed|completed|so far)\b)", re.I)
#: a sentence that puts the rise while a model loads or the server starts ("When loading Gemma 4 31B in LM Studio, memory
#: usage keeps growing"): the load filling memory, not memory kept after work is done
#: a leak by its name ("memory leak", "leaks host RAM")
_LEAK_NAMED = re.compile(r"\bleak", re.I)
_WHILE_LOADING = re.compile(r"\b(?:when|while|during)\s+(?:the\s+|it\s+is\s+)?(?:model\s+)?(?:load(?:ing)?(?![ -]test)|"
                            r"start(?:ing|up)?|initiali[sz]\w*)\b|"
                            # (the load named with what loads or where: "During the GPU load attempt", "while the 70B
                            # model loads"; not a load test)
                            r"\b(?:when|while|during)\s+(?:the\s+)?(?!I\b|we\b|you\b|under\b|heavy\b|high\b)(?:[\w.-]+\s+){1,2}?"
                            r"load(?:s|ing)?\b(?![ -](?:test|balanc|generator|run\b))|"
                            # (or the model's load begun, its rise beside it: "3. Model starts loading, Shared GPU memory
                            # usage slowly increases")
                            r"\b(?:model|weights?|checkpoint|shards?)\s+(?:starts?|started|begins?|began|is|was|are|were)\s+"
                            r"(?:being\s+)?(?:loading|loaded|to\s+load)\b", re.I)
#: ... unless it is over loads repeated (a model loaded and unloaded again and again)
_LOAD_CYCLES = re.compile(r"\bunload|\breload|\b(?:each|every|repeated(?:ly)?)\s+(?:model\s+)?loads?\b|\bcycles?\b|"
                          r"\bswap(?:ping|s)?\s+models?\b", re.I)
#: the rest of the sentence says the memory comes back ("goes up by 2 GB per request, then drops back", "and is freed
#: again"): use while a step runs, not growth
_COMES_BACK = re.compile(r"\b(?:then|and|but)\s+(?:it\s+)?(?:drops?|dropped|goes|went|comes?|came|falls?|fell|returns?|"
                         r"returned)\s+(?:back|down)\b|"
                         r"\b(?:then|and)\s+(?:is\s+|gets\s+)?(?:freed|released)\s+(?:again|afterwards|after)\b|"
                         # (or all of it given back when the work ends: "and it is all released when the chat ends")
                         r"\b(?:and|but|then)\s+(?:it|memory|everything|all of it)\s+(?:is|was|gets|got)\s+(?:all\s+)?"
                         r"(?:released|freed|given back|returned)\b", re.I)
#: the rest of the sentence calls what it describes expected ("it doesn't free the VRAM, which is expected since vLLM
#: preallocates"): the engine's design, not growth
_EXPECTED = re.compile(r"\b(?:which|that|this) (?:is|was|'s) (?:\w+ )?expected\b|\bas (?:is )?expected\b|"
                       r"\bexpected behaviou?r\b|\bby design\b", re.I)


#: a failure a user states in words, that no rule places ("the server crashes when the second client connects",
#: "since 0.4 it fails to load this model", "it can't even run the 7B")
# (not what a reproduction waits for, in the present: "Run the koboldcpp.exe file until it fails")
_FAILS = (r"\b(?!(?<=until it )(?:fails|crashes|dies|hangs|freezes)\b)(?:fails?|failed|failing|crash(?:es|ed|ing)?|hangs|"
          r"hung|freez(?:es|ing)|froze|dies|died|"
          r"(?:can'?t|cannot|could ?n[o']t|unable to|won'?t|will not) (?:even )?(?:run|start|load|serve)"
          r"(?! out\b)|"
          # (or in the passive, of what it makes: "the image cannot be generated", "the model could not be loaded")
          r"(?:can'?t|cannot|can not|could ?n[o']t|won'?t|will not) be (?:generated|created|produced|processed|loaded|"
          r"served|started|run|transcribed)\b|"
          # ("the model didn't start", "the server does not start", "it never came up")
          # (the negations written out: each a word the prefilter can search for, not "launch", which every
          # llama-server request line holds)
          r"(?:did not|does not|do not|didn't|doesn't|don't|didn\u2019t|doesn\u2019t|don\u2019t|didnt|doesnt|dont)"
          r"(?: even)? (?:start|load|launch|boot|come up)\b(?! (?:with|from|until|at|in|by)\b)|"
          r"never (?:started|loaded|came up|launched|booted)\b|"
          # ("Since the upgrade my gemma3:27b no longer loads")
          r"\bno longer (?:loads|starts|runs|works|launches|boots|comes up)\b|"
          # (a fix that "did not work" states the failure went on; not one that "did not work to reduce the memory
          # taken": the purpose it failed, not a failure of the run)
          r"(?:does|did|do)(?: not|n['\u2019]?t)(?: even)? work(?! to \w)|stop(?:s|ped)? responding|not working|"
          r"errors? out|"
          # (a server that restarts of itself: "Vllm restarts randomly while running requests", "restarted
          # unexpectedly", "keeps restarting")
          r"restart(?:s|ed|ing)? (?:randomly|unexpectedly|by itself|itself|on its own|all the time|every \w+)|"
          r"(?:keeps|kept) restarting|"
          # ... or the server, named, goes down ("When request threads is greater than 2, the service shutdown", "the
          # Ray workers go down", "the server shuts down with 3 requests")
          r"\b(?:service|server|process|engine|backend|runner|workers?|instance) (?:(?:just|then|suddenly|immediately|"
          r"also) )?(?:shut(?:s|ting)? ?down|shutdown|go(?:es)? down|went down)\b|"
          # ... or it ends on its own ("in the middle of the generation, it just terminates itself", "the server exits
          # unexpectedly", "quits abruptly")
          r"(?:terminat|exit|quit|clos|shut)(?:es|ed|ing|s)?(?: down)? (?:itself|unexpectedly|abruptly|on its own|"
          r"without (?:an? |any )?(?:error|warning|message))|"
          # ... or a note set at the line where it ended ("[FINAL LINE — server exits here]", "<-- dies here")
          # (each phrase whole: "here" alone is a word of every other line)
          r"\b(?:exits|exited|quits|dies|died|crashes|crashed|terminates|terminated) here\b|"
          # ("the server is dead", "the process is gone after this")
          r"\b(?:server|process|engine|worker|runner|container|pod) (?:is|was) (?:dead|gone)\b|"
          # ... or Kubernetes' state for a container that keeps dying ("the router pod goes into crashLoopBack",
          # "CrashLoopBackOff")
          r"\bcrash ?loop ?back(?: ?off)?\b|"
          # ... or an error announced for the lines below ("the instance show the error as follow:", "I get the
          # following error:", "it gives error as below")
          r"(?:get|gets|got|getting|show|shows|showed|showing|give|gives|gave|giving|receive|received|receiving)\s+"
          r"(?:(?:the|this|these|an?|same)\s+)?(?:errors?\s+(?:(?:as\s+)?(?:follows?|below)|shown below)\b|following\s+errors?\b)|"
          # ... or it ends with no error told ("The server exits after ~10 minutes with no error message at all")
          # ... or it aborts with an error ("The model loading aborts with an RPC Internal Error stating that ...")
          r"abort(?:s|ed)? with (?:an? |the )?(?:[\w.-]+ ){0,3}?(?:error|exception)|"
          # ... or errors with a message ("It errors with \"tokenizer.model not found\" when loading the model")
          r"\berror(?:s|ed) with (?:an? |the )?[`'\x22\u201c]|"
          r"(?:terminat|exit|quit|die|crash)\w*\b[^.;!?\n]{0,40}?\b(?:with no |without (?:an? |any )?)(?:error|warning)s?"
          r"(?: messages?)?\b|"
          # ("Shortly after starting the server, the process stops abruptly without showing any error")
          r"stop(?:s|ped|ping)? (?:abruptly|unexpectedly|suddenly|by itself|on its own)\b|"
          # an exception named by its class, in the report's words ("启动后反复kill进程：vllm.v1.engine exceptions
          # enginedeaderror", "the server dies with EngineDeadError", "RuntimeError on the first request"; not a memory
          # error's class, which the out-of-memory words read with their own rules: told as past and fixed, supposed)
          # (not the class called in a line of code, a traceback's "    raise ValueError(" under its frame)
          r"(?![a-z]*(?:memory|oom|alloc)[a-z]*(?:error|exception))[a-z]{3,}(?:error|exception)(?!\()"
          r"(?=\W*(?:$|[\s:;,.!?)]))|"
          # an error named by the source line that raised it ("kv cache quantization error LlamaBatch.cc:1153")
          r"error(?: at| in)? [\w/.-]{0,80}?\.(?:cc|cpp|cu|cuh|c|h|hpp|py|rs|go):\d+|"
          # restarted by its supervisor, over and over ("keeps restarting every few minutes", "restarts in a loop",
          # "the pod gets restarted", CrashLoopBackOff)
          r"keeps? (?:on )?restarting|restart(?:s|ed|ing)? (?:in a loop|over and over|repeatedly|constantly|every)\b|"
          r"(?:gets?|got|is|was|keeps? getting|being) restarted|CrashLoopBackOff|crash[- ]?loop(?:ing)?|"
          r"(?:gets?|got|is|was|stays?|remains?) stuck|(?:gets?|got|is|was|being) killed|"
          # ... or the word the shell printed for it, in the report's words ("It print killed", "it just says Killed")
          # (not a word it qualifies: "It shows killed nodes in the graph view")
          r"(?:print(?:s|ed)?|says?|said|shows?|showed|outputs?) (?:only |just )?['\x22`]?killed\b"
          r"(?![ \t]+(?!and\b|then\b|after\b|when\b|while\b)[a-z])|"
          # an error met ("came back and met with an error", "I get this error", "it throws an exception"; not a purpose,
          # "To get the error output, open cmd")
          r"(?<![Tt]o )(?:met with|got|get|gets|getting|hit|hits|throws?|threw|raises?|raised) (?:an |the |this |that |a )?"
          r"(?:error|exception)s?|"
          # a paste the user calls the log or output of an error or crash ("Here is the error log:", "crash output
          # below")
          r"(?:the|my|this|an?|here(?:'s| is)) (?:full )?(?:error|crash) (?:log|output|messages?|trace)s?|"
          # ... or heads it ("Error log:", "## Error logs", "Full error output:", "error log below", "Stack trace / error:")
          r"(?:^|(?<=#\s)|(?<=\*\*))(?:full |complete )?(?:error|crash) (?:logs?|output|messages?|trace)\b|"
          r"\b(?:error|crash) logs? below|(?:^|(?<=#\s))stack ?trace\s*/\s*error)\b")
#: ... in Chinese, the language of many reports to vLLM, SGLang, LMDeploy and Qwen: an error reported or met (报错,
#: 出错, 出现了这个错误), a crash (崩溃, 崩了, 挂了), a failure (失败), a model that cannot load or run (无法加载,
#: 跑不起来); not denied just before (不/没/没有/未/无)
#: an error's message quoted in a report's words, six to 200 characters (`_raised_named`), and the exception's class
#: that may come before it ("threw `ValueError: unknown model`", "raised RuntimeError('...')")
_QUOTED_MESSAGE = r"[`'\x22\u201c]([^`'\x22\u201d\n]{6,200}?)[`'\x22\u201d]"
_CLASS_THEN = r"(?:[\w.]+(?:Error|Exception)\s*)?[(:]?\s*"


def _error_message(m: re.Match) -> str | None:
    """`_raised_named`'s message where it reads as an error's (an exception's class in it, or three words or more, or
    two with a capital first: "No valid structured output parameter found", "unknown model architecture"); None for a
    flag, a setting's name, an issue or a plain noun phrase ("--max-model-len", "max_num_batched_tokens",
    "vllm-project/vllm#18211", "bigger instances")."""
    text = next((g for g in m.groups() if g), "").strip()
    words = text.split()
    if not text or text[0] in "-#" or re.search(r"#\d", text):
        return None
    if (re.search(r"\w(?:Error|Exception)\b|[\u3000-\u9fff]", text) or len(words) >= 3
            or text[0].isupper() and len(words) == 2):
        return text[:120]
    return None


#: a report's words that the server is slow or slows down under load ("vLLM gets slow when 30 people use it", "it
#: slows down after 20 users", "latency spikes"): the question a pool full under load answers, the engine waiting or
#: recomputing requests for want of KV cache (`quiet.pressure`)
_SLOW = (r"\b(?:gets?|got|getting|is|was|are|were|becomes?|became|runs?|ran|very|too|so|extremely|really|painfully)"
         r" (?:very |really |extremely |so |much |quite |a lot |way )?slow(?:er)?\b|\bslow(?:s|ed|ing)? down\b|"
         r"\bslowdowns?\b|\b(?:latency|TTFT|response times?|first tokens?) (?:spikes?|increases?|goes up|went up|"
         r"jumps?|takes? \d|took \d|(?:is|are|gets?|becomes?) (?:high|huge|bad|terrible|long))|"
         # ... in other words of the same ("High latency under load", "Responses are really sluggish", "Throughput
         # drops to a crawl", "Generation speed drops from 60 tok/s to 5", "takes forever to answer", "some requests
         # never finish", "clients start getting read timeouts", "Requests time out under load", "504 Gateway Time-out")
         r"\b(?:high|huge|long|terrible|bad) (?:latency|TTFT|response times?)\b|\bsluggish\b|\bto a crawl\b|"
         r"\b(?:throughput|speed) (?:drops|dropped|falls|fell|decreases|decreased|degrades|degraded)\b|"
         r"\b(?:takes|take|took) forever\b|\bnever (?:finish|complete|return)(?:es|s|ed)?\b|"
         r"\btimeouts?\b|\btimed out\b|\btimes out\b|\btime out\b|\bGateway Time-?out\b")


#: a report's words that the server hangs: waits forever with no error ("EngineCore hangs in cuEventSynchronize",
#: "the server was stucked", "wedges with no diagnosable cause", "hangs indefinitely during fitting params"); not the
#: whole machine freezing (a host out of memory thrashing its swap looks like that), nor a request waiting in a queue
_HANGS = (r"(?<!machine )(?<!system )(?<!computer )(?<!desktop )(?<!laptop )(?<!screen )(?<!PC )(?<!OS )"
          r"(?<!Android )(?<!phone )(?<!Windows )(?<!macOS )"
          r"\b(?:hangs|hung|hanging|hang (?:during|at|in|on|when|while|forever|indefinitely|with|after|before)|"
          # (not huggingface/tokenizers' "Disabling parallelism to avoid deadlocks...")
          r"stuck(?:ed)?(?! in an? (?:infinite |endless )?loop of\b)|wedge[sd]|wedging|(?<!avoid )(?<!prevent )deadlock(?:s|ed)?|"
          # (a start-up or a server that stalls or freezes: "stalls after this:", "stalling on startup", "the server
          # freezes after the first request", "times out while trying to instantiate"; the machine's own freeze is
          # excluded above)
          r"stall(?:s|ed|ing)?|freez(?:es|ing)|froze|times? out while trying to|"
          # (or stopped by hand after waiting long: "the function call above was interrupted after more than 5 minutes",
          # "I killed it after an hour")
          r"(?:interrupted|killed|stopped|aborted) (?:it |the \w+ )?after (?:more than |over |about |nearly |almost )?"
          r"(?:\d+|an?|one|two|three|five|ten|fifteen|twenty|thirty)\s*(?:min(?:ute)?s?|hours?|h)\b|"
          # (or blocked where the paste ends: "tried similar config ..., but always blocked here:", "it stays blocked")
          r"blocked (?:here|forever|indefinitely)\b|(?:always|stays?|remains?|gets?|got|keeps? (?:being|getting)) "
          r"blocked\b|"
          # (a server that stops without a word: "SGLang stops working after a few requests", "Without any errors, it
          # just stops", "Seems like falling in an infinite loop", "stops responding"; in Chinese 卡住, stuck)
          r"stops? (?:working|responding)|stopped (?:working|responding)|just stops|(?:becomes?|became) unresponsive|"
          # (not a loop the user runs it in: "Then run the model in an infinite loop", `yes | ./main ...`)
          # (nor output that repeats, "answers with an infinite loop of \"the the the\"", "an infinite loop of tool
          # calls": the model's text, not a stuck process)
          r"(?<!\bin )(?<!\binto )an? infinite loop(?! of\b)|(?:fall\w*|fell|caught|stuck|go(?:es)?|went|enter\w*|get\w*|"
          r"got|end\w* up|trapped) (?:in|into) an? infinite loop(?! of\b)|"
          # (a command that goes no further: "Even after waiting for a long time, the command does not proceed
          # further", "it never proceeds past this line", "nothing happens after that", "waits forever")
          r"does(?: not|n['\u2019]?t) (?:proceed|progress|go|get|move) (?:any )?further|never (?:proceeds|progresses|gets "
          r"past|moves on)|nothing (?:else )?happens (?:after|afterwards|from there|any ?more|for (?:a (?:very |really )?"
          r"long time|ages|hours|\d+ (?:min(?:ute)?s?|hours?)))|waits? forever|waiting forever|"
          # (or a start-up that never ends, waited on: "The start-up never finishes", "It sat on this line for more
          # than 40 minutes", "I waited 40 minutes and then pressed Ctrl-C")
          r"never (?:finishes|completes|ends)|\bsat (?:on|at) (?:this|that|the) (?:line|step|point)|"
          # ("it's been sitting here for 40 minutes", "has been sitting at this step for an hour", "90 minutes later still
          # the same")
          r"\b(?:been |is |was )?sitting (?:here|there|on (?:this|that|the) (?:line|step)|at (?:this|that|the) (?:line|step|point))"
          r"\s+for (?:more than |over |about |nearly |almost )?(?:\d+|an?|one|two|ten|twenty|thirty|forty)\s*"
          r"(?:min(?:ute)?s?|hours?)|\b\d+\s*(?:min(?:ute)?s?|hours?) later (?:it is |it's )?still the same|"
          r"\bwaited (?:for )?(?:more than |over |about |nearly |almost )?(?:\d+|an?|one|two|ten|twenty|thirty|forty)\s*"
          r"(?:min(?:ute)?s?|hours?)\b)\b"
          r"(?! (?:in|on) (?:the )?(?:queue|waiting))|卡住|卡着不动|卡在那里?不动|一直不动|没有反应了?|"
          # (卡在这里 "stuck right here", 没有动静 "nothing moves", 等了半个多小时 "waited over half an hour"; in Japanese
          # 固まります / 応答が返ってこなく, in Portuguese trava, in Korean 멈춥니다 / 응답이 없)
          r"卡在(?:这里|这儿|这|那里|那儿|此处)|没有?(?:任何)?动静|等了[^，。,;；]{0,8}?(?:小时|分钟)|"
          r"固まり(?:ます|ました)|固まって|フリーズ(?:します|しました)|応答が(?:返ってこなく|止まり|なくなり)|"
          r"\btrava(?:m|ndo|do|va)?\b|\bcongela(?:m|ndo|do)?\b|멈춥니다|멈췄습니다|멈춰(?:요|서)|응답이 없|"
          # (German "hängt sich auf", "bleibt hängen"; Spanish "se cuelga", "se queda colgado"; Korean "응답하지 않습니다")
          r"\bh(?:ä|ae)ngt\b|\bbleibt\b[^.;!?\n]{0,20}?\bh(?:ä|ae)ngen\b|\bse cuelga\b|\bse queda (?:colgad[oa]|"
          r"congelad[oa]|bloquead[oa])\b|응답하지 않|"
          # (a start-up waited on for long, in German, Japanese, Spanish, Korean: "nach 40 Minuten", "40分待って",
          # "esperé 40 minutos", "40분을 기다렸")
          r"\b(?:nach|über|mehr als) \d+ (?:Minuten|Stunden)\b|\b\d+ (?:Minuten|Stunden) gewartet\b|\bpassiert nichts mehr\b|"
          r"(?:분|시간)\s*동안\s*아무\s*(?:진행|반응|응답|변화)(?:이|도)?\s*없|\d+\s*(?:分|時間)(?:以上)?(?:待って|待ちました|待っても)|"
          r"\besper(?:é|e|amos|ando) (?:m[aá]s de |unos |casi )?\d+ (?:minutos|horas)\b|\d+\s*(?:분|시간)(?:\s*이상)?\s*(?:을|를)?\s*"
          r"기다")
_FAILS_ZH = (r"(?<![不没未无])(?<!没有)"
             # (nor an error denied by what the user sees: 日志里看不到报错, 没看到错误, 没有任何报错)
             r"(?<!看不到)(?<!看不见)(?<!没看到)(?<!没看见)(?<!找不到)(?<!没发现)(?<!未发现)(?<!没有任何)(?<!没有什么)"
             # (... with "what"/"any" between the denial and the word: 也没发现什么报错, 没看到任何报错, 没啥报错)
             r"(?<!什么)(?<!任何)(?<!啥)"
             r"(?:报错|出错|崩溃|崩了|挂了|挂掉|挂死|宕机|卡死|失败|出现了?"
             # (not a usage that is abnormal, "出现了显存占用双倍异常的问题": memory used, not a failure)
             r"(?:(?!占用|使用|用量|消耗)[^，。,.！？!?]){0,6}?(?:错误|报错|异常))|"
             # cannot load, start or run it (无法加载, 加载不了, 跑不起来, 启动不了; 无法成功启动, 无法正常运行)
             r"(?<![不没])(?<!不是)(?<!并非)(?<!没有)无法(?:成功|正常|正确)?(?:加载|启动|运行|推理|部署)|(?<!不是)(?:加载|启动|运行)不了|"
             r"(?<!不是)(?:跑|起)不起来|"
             # (the process gone, an error announced: 进程就没了, 发送请求后报如下错误)
             r"进程(?:就|突然|直接|莫名)?(?:没了|消失了?|不见了)|报(?:如下|以下|下面的?)(?:错误|错)|"
             # (it ended of itself, or broke off partway: 自己就结束了, 直接退出了, 闪退, 进度到62%中断了; not one the user
             # stopped, 我手动中断了)
             r"(?:自己|自动|突然|直接|莫名其妙地?)(?:就)?(?:结束|退出|关闭|停止|终止)了|闪退|(?<!手动)(?<!我)中断了|"
             # (an error reported by its message, 报`Cannot connect to host 127.0.0.1:8877 ssl:default`错误)
             r"(?<![汇预警情简日周月年举通])报了?\s*[*`'\x22\u201c\u300c]+(?=[^\n]{6,200}?[*`'\x22\u201d\u300d]+\s*的?(?:异常|错误|报错|错))|"
             r"(?<![不没未无会要能])崩(?!溃)")
#: a Chinese clause that supposes, predicts, asks or conditions: if (如果/要是), maybe (可能/也许), should (应该),
#: will surely (肯定/一定会), whether (是否), a question (吗, ？)
_HEDGE_ZH = re.compile(r"如果|要是|假如|可能|也许|应该|肯定|一定会|是否|会不会|吗|？|\?")
#: the end of a Chinese clause
#: (not a dot or a comma inside a number or a version: "lmdeploy 0.6.2 服务运行几天后", "1,024")
_CLAUSE_ZH = re.compile(r"[，。！？；!?;]|(?<!\d)[,.]|[,.](?!\d)")


#: a failure stated in Japanese: it crashes (落ちます, クラッシュします), will not start or load (起動しません, 読み込めない),
#: an error comes out (エラーが出ます, エラーで止まる), it fails (失敗します); not denied (落ちません, エラーは出ない) nor asked
#: (落ちますか, the clause's question mark: `_HEDGE_ZH`)
_FAILS_JA = (r"落ち(?:ます|る|た|てしまう|てしまいます|てしまった|ました)(?!か)|クラッシュ(?:します|する|した|しました|して)(?!か)|"
             r"(?:起動|ロード|読み込み)(?:でき|し)(?:ません|ない|なかった)|読み込めない|読み込めません|"
             r"エラー(?:が|に)(?:出|な)(?!ない|ません|なかった|ていない)|エラーで(?:止ま|落ち|終了)|"
             r"止まって(?:しまい|しまう|しまった)|動き(?:ません|ませんでした)|動かない|失敗(?:します|する|した|しました)(?!か)")


#: a crash named by its class in a person's words: a bad access (a segfault, SIGSEGV, a core dumped), an illegal
#: memory access on the GPU, an illegal instruction, a bus error; in English and Chinese (段错误, 非法内存访问)
CRASH_CLASS = (r"\bseg(?:mentation)?[ -]?faults?(?:ed|ing|s)?\b|\bsegfault(?:s|ed|ing)?\b|\bSIGSEGV\b|\bcore dumped\b|"
               r"\billegal memory access\b|\billegal (?:instruction|address)\b|\bSIGILL\b|\bbus error\b|\bSIGBUS\b|"
               r"段错误|非法内存访问|セグメンテーション違反|セグフォ|不正な命令|バスエラー")
#: ... stated as what happened: the verb ("consistently segfaults", "workers segfault during the warm-up"), a verb of
#: a failure with it ("dies with a segmentation fault", "crashes with SIGSEGV", "I get a segfault"), it occurring, or
#: in Chinese with its verb ("段错误退出", "出现段错误"); not the word named alone ("segfault handler installed", "debug
#: segfaults with gdb", "no segfault this time")
_CRASH_NOUN = (r"(?:segmentation fault|seg ?fault|segfault|SIGSEGV|illegal memory access|illegal instruction|bus error|"
               r"SIGILL|SIGBUS)")
_CRASH_STATED = (r"(?<!debug )(?<!debugging )(?<!fix )(?<!catch )(?<!handle )(?<!no )(?<!any )(?<!the )(?<!of )"
                 r"(?<!for )(?<!about )\b(?:seg-?faults|segfaulted|segfaulting)\b|\bsegfault (?:during|when|on|at|after|"
                 r"while|in|immediately|randomly|right|every|each|whenever|if|as soon)\b|"
                 r"\b(?:crash(?:es|ed|ing)?|die[sd]?|dying|fail(?:s|ed|ing)?|abort(?:s|ed|ing)?|exit(?:s|ed|ing)?|"
                 r"terminat(?:es|ed|ing)|errors? out|errored out|get|gets|got|getting|hit|hits|hitting|throws?|threw|"
                 r"raises?|raised|causes?|caused|results? in|resulted in|leads? to|led to|see|saw|seeing|produces?|"
                 r"produced|ends? (?:in|with)|ended (?:in|with)|stops? with|stopped with|with)\s+(?:with\s+|in\s+)?"
                 r"(?:an?\s+|the\s+|this\s+)?(?:\w+\s+)?" + _CRASH_NOUN + r"\b(?![ -](?:handler|handling|hook|catcher|trap)s?\b)|"
                 r"\b" + _CRASH_NOUN + r"(?: error)? (?:occurs|occurred|happens|happened|again|every time)\b|"
                 r"段错误(?:退出|崩溃|了)|(?:出现|报|发生|导致)了?段错误|非法内存访问(?:错误)?(?:退出|崩溃)|(?:出现|报|发生)了?非法内存访问|"
                 # (in Japanese, with the verb of its crash: "セグメンテーション違反で落ちます", "「不正な命令 (コアダンプ)」と出て
                 # 落ちます", "segfault で落ちます")
                 r"(?:セグメンテーション違反|セグフォ|segfault|SIGSEGV|不正な命令|バスエラー)[^。\n]{0,24}?(?:で|と出て|が出て|"
                 r"になって|を出して)[^。\n]{0,6}?(?:落ち|終了|止ま|クラッシュ|死)")


def _failure_stated_zh(m: re.Match) -> str:
    """The Chinese clause of a user's line that states a failure; ValueError where the line is a program's, or the
    clause supposes, predicts or asks (`_HEDGE_ZH`)."""
    text = m.string
    if _WRITTEN.match(text):
        raise ValueError("a program's line")
    if told_fixed(text):
        raise ValueError("told as past and fixed")  # (之前报错 "...", ... 之后已经可以正常对话了)
    begin = max((b.end() for b in _CLAUSE_ZH.finditer(text, 0, m.start())), default=0)
    after = _CLAUSE_ZH.search(text, m.end())
    clause = text[begin:after.end() if after else len(text)]
    if _HEDGE_ZH.search(clause):
        raise ValueError("supposed")
    return clause.strip()[:300]


#: a person's note set into the log they paste, at the line it is about: a whole line in brackets with words of
#: running text in it ("[FINAL LINE — server exits here]", "(server crashes here)"), or after an arrow that points at
#: a line ("<-- crashes here", "<<< process dies here", "← hangs here")
ANNOTATION = (r"[\[(](?=[^\])\n]*?[a-z]{2,} [a-z]{2,})[^\[\]()\n]{3,200}[\])]\s*$|"
              # (also after a comment's mark, "# <- crashes here", or carets that point up at the line, "^^^ that's the
              # last line, the process is gone after this"; not Python's carets alone under a code line)
              r"#?\s*(?:<-+|<=+|<{2,}|\u2190|\^{3,})\s*(?=[A-Za-z])")


#: the start of a line a program wrote, not a user ("llama_model_load: ", "[...]", a time, a level; a markdown heading,
#: "#### Timeline before the crash", "# 用了一段时间 显存越占越多", "# [Bug]: 128K上下文...请求卡住" (a title may begin with a
#: figure), is the user's, as is an issue's title pasted as
#: "Title: ...")
_WRITTEN = re.compile(r"^\s*(?!#{1,6} +(?:\[[^\]\n]{1,30}\]:? *){0,3}[^\W_]|Title:\s|"
                      # (an issue's title pasted with its tracker's tag, "[Bug] gpt-oss ... error LlamaBatch.cc:1153")
                      + ISSUE_TAGS + "|" + ANNOTATION + r")(?:[\w.-]+:\s|[\[(<{|#>$]|"
                      # (a digit, but not a title that begins with a count of the setup: "2-node DeepSeek-R1 (tp 16)
                      # hangs", "4x A100 ...", "70B model ...", "8 GPUs ...")
                      # (nor an item of the report's numbered list: "1.每一次搜索调用模型后", "2、显存会一直...", "3) tried")
                      # (nor a count in CJK words: "200件ほど処理すると", "3次请求后", "10번 요청하면")
                      r"\d(?!\d{0,3}(?:\.\d)?(?:x|-?nodes?|\s?GPUs?|B|-bit)\b(?!:))(?!\d?[.、)）]\s*[^\W\d_])"
                      r"(?!\d{0,5}\s?(?:件|個|回|人|つ|个|次|条|轮|번|개|회|분|시간))|"
                      r"(?:INFO|WARN\w*|ERROR|DEBUG|CRITICAL|FATAL|time=|level=)|"
                      # (llama-server's handler logging an exception with its JSON, no prefix in 2024-25 builds:
                      # 'got exception: {"code":500,"message":"[json.exception.parse_error.101] ...'"
                      r"got exception: \{)")


#: a dash between clauses of one sentence (an em or en dash, or a hyphen with spaces around it)
_DASH_CLAUSE = re.compile(r"\s[\u2014\u2013-]\s|[\u2014\u2013]")


#: a report's words that the server's answers are wrong, not that it failed ("outputs generate irrelevant content",
#: "giberish output", "it returns random symbols", "the answer is garbled"): a fault of correctness (the model file, a
#: backend's kernel, a split across GPUs), not of memory (not denied: "no gibberish")
_BAD_OUTPUT = (r"(?<!\bno )(?<!\bnot )\b(?:gib+erish|garbled|garbage|nonsense|nonsensical|incoherent|meaningless|irrelevant|"
               r"corrupted)\s+(?:\w+\s+){0,2}?(?:output|text|answers?|responses?|replies|content|tokens?|characters|"
               r"results?)\b|\b(?:outputs?|answers?|responses?|replies|generates?|produces?|returns?|prints?|spits? out)\s+"
               r"(?:\w+\s+){0,3}?(?:gib+erish|garbage|nonsense|random (?:unrelated )?(?:text|symbols|characters|tokens|words))\b|"
               r"\b(?:output|answers?|responses?|text) (?:is|are|was|were) (?:all |just |complete |total )?(?:gib+erish|garbled|"
               r"garbage|nonsense)\b")
#: ... in Chinese (输出乱码, 回答是乱码, 胡言乱语, 输出内容不相关)
_BAD_OUTPUT_ZH = r"(?<!没有)(?<!不是)乱码|胡言乱语|答非所问|输出(?:内容)?(?:不相关|无关|错乱)"


#: a fix the writer tells as done ("it works now", "now it works", "everything works fine now")
WORKS_NOW = (r"\b(?:(?:it |this |everything )?works?(?: fine| again)? now|now (?:it )?works|"
             # ("I fixed the tag and now it's Running", "now it is up")
             r"now (?:it['\u2019]?s|it is|the (?:pod|server|container) is) (?:running|up|healthy|fine|ok|working)|"
             r"now (?:it )?runs (?:fine|again|ok))\b")
#: ... then what it did before ("This works now, where before it crashed"); not a step "before the first request", nor
#: a failure "still" there (logs.prose reads the same words as an out of memory told as fixed)
WORKS_NOW_BEFORE = WORKS_NOW + r"[^.!?]{0,40}?\bbefore\b(?!\s+(?:the|a|an|any|each|every|my)\s)(?![^.!?]*\bstill\b)"
#: a line that tells a failure as past and fixed, the fix first or last ("Before the update it crashed, now it works")
_WORKS_NOW = re.compile(WORKS_NOW_BEFORE + r"|\b(?:before|previously|yesterday|earlier|at first|initially|(?:I|we) "
                        r"fixed)\b(?![^.!?]*\bstill\b)[^.!?]{0,120}?" + WORKS_NOW, re.I)
#: ... or said fixed in a later version after the failure it tells ("With 0.8.4 it crashed with SIGSEGV; on 0.8.5 it is
#: fixed", "升级后已修复")
_FIXED_IN_VERSION = re.compile(r"[;,]\s*(?:but\s+)?(?:on|in|with|since|after)\s+[\w.\- ]{1,30}?,?\s+(?:it|this|that)(?:['\u2019]s| is|"
                          r" was| has been) (?:fixed|solved|resolved|gone)\b|(?:升级|更新)[^。]{0,10}?(?:后|之后)[^。]{0,6}?"
                          r"(?:已修复|解决了|修好了|好了)", re.I)
#: a count of zero under the word ("Failed requests:   0", "failed: 0"): a tally, no failure
_ZERO_COUNT = re.compile(r"[\w ]{0,30}?\s*[:=]\s*0(?![\d.])\s*$")


#: a line of a program's source with a call on a string (Python's warnings print the line that warned: "  warnings.warn(
#: 'resource_tracker: process died unexpectedly, '"; "    raise RuntimeError(\"Engine core initialization failed\")")
_SOURCE_CALL = re.compile(r"^\s*(?:raise\s+)?[A-Za-z_][\w.]*\(\s*[fbr]?['\x22]")


#: a report's words that the log it shows is not from a run of theirs: they have not run it yet ("I haven't tried it
#: myself yet", "I haven't run anything yet", "before I rent hardware"), or it is quoted from elsewhere ("pasted this from
#: a blog post", "the troubleshooting page shows this error")
_NOT_RUN = (r"\bI (?:haven['\u2019]?t|have not|did not|didn['\u2019]?t) (?:yet )?(?:tried|run|tested|started|launched|"
            r"deployed) (?:it|this|that|anything|the model|the server)(?: myself)?(?: yet)?\b|"
            r"\b(?:pasted|copied|quoted|took) (?:this|that|it) from (?:a|an|the|some) (?:blog|article|post|blog post|"
            r"video|tutorial|forum|thread|docs?|documentation|page)\b|"
            r"\b(?:blog|article|tutorial|video|docs?|documentation|troubleshooting page|FAQ) (?:post )?(?:shows|says|"
            r"lists|mentions|has) (?:this|that|the following) (?:error|output|log)\b")


def _not_run(m: re.Match) -> str:
    """The sentence of a person's line that says the log is not from a run of theirs (`_NOT_RUN`); ValueError where the
    line is a program's, or the sentence turns ("I haven't tried it with vLLM yet, but with llama.cpp I get: ...")."""
    text = m.string
    if _WRITTEN.match(text):
        raise ValueError("a program's line")
    end = _SENTENCE_END.search(text, m.end())
    rest = text[m.end():end.start() if end else len(text)]
    if re.search(r"\b(?:but|however|though|except)\b|\bwith\b", rest, re.I):
        raise ValueError("the sentence turns: a run of another setting may be theirs")
    return text[_sentence_start(text, m.start()):m.end()].strip()[:300]


def _failure_stated(m: re.Match) -> str:
    """The clause of a user's line that states a failure; ValueError where the line is a program's, the words are a
    program's quoted in it ("Is this expected? WARNING: failed to allocate 17088.03 MB of pinned memory"), or the failure
    is denied, doubted, asked about or supposed."""
    text = m.string
    if _WRITTEN.match(text) or _SOURCE_CALL.match(text) or pasted_source(text):
        raise ValueError("a program's line")  # (or its source, a call quoted under a warning: "  warnings.warn('...")
    if _PERFORMANCE_TITLE.match(text):
        raise ValueError("a question of speed")  # (vLLM's "[Performance]: ... will not run until ...")
    clause = text[_sentence_start(text, m.start()):m.start()]
    if _QUOTED_LEVEL.search(clause) or _QUOTED_SOURCE.search(clause):
        raise ValueError("a program's words, quoted")
    if _PURPOSE.match(clause):
        raise ValueError("an instruction's purpose")  # ("To get the error output, open cmd and run it")
    if _PREVENTED.search(clause):
        raise ValueError("a failure to prevent")
    if _DEPRECATION.search(text):
        raise ValueError("a deprecation's forecast")  # ("Calling `get_max_cache()` will raise error from v4.48")  # ("... para evitar problemas de deadlock", "# to prevent hangs")
    opened = text.rfind("(", 0, m.start())
    if opened >= 0 and ")" not in text[opened:m.start()] and _WARNED.match(text, opened):
        raise ValueError("a warning of what would happen")  # ("Device=0 (If invalid, program will crash)")
    if _AS_A_RULE.search(clause):
        raise ValueError("what happens as a rule")  # ("This typically happens when some processes are hanging")
    if _RUNS_ANOTHER_WAY.match(text, m.end()):
        raise ValueError("it runs another way")  # ("cannot run X with turbomind, although it can still run with PyTorch")
    if _WORKS_NOW.search(text) or _FIXED_IN_VERSION.search(text, m.end()) or told_fixed(text):
        raise ValueError("told as past and fixed")  # ("This works now, where before it crashed with OOM")
    if _ZERO_COUNT.match(text, m.end()):
        raise ValueError("a count of none")  # (a benchmark's summary, "Failed requests:   0")
    return _growth(m, inside=False, rise=False)


def _stated_plainly(m: re.Match) -> str:
    """The sentence of a user's line that states something plainly (memory looked normal, it works); ValueError where
    the line is a program's, the sentence asks, or it turns after the words ("RAM is fine but VRAM fills up", "works
    fine until the third request")."""
    text = m.string
    if _WRITTEN.match(text):
        raise ValueError("a program's line")
    start = _sentence_start(text, m.start())
    end = _SENTENCE_END.search(text, m.end())
    sentence = text[start:end.end() if end else len(text)]
    if "?" in sentence or _FINE_UNTIL.search(sentence, m.end() - start):
        raise ValueError("asked, or not fine after all")
    return sentence.strip()[:300]


#: what makes memory that looked fine not fine after all ("... is fine until the third request", "but VRAM fills up")
_FINE_UNTIL = re.compile(r"\b(?:until|till|but|however|except|then|yet)\b|(?:但|可是|然后|直到)")


#: a library's notice that something will fail in a later version ("`get_max_cache()` is deprecated ... Calling
#: `get_max_cache()` will raise error from v4.48", "will throw an error in v5.0"): no failure met
_DEPRECATION = re.compile(r"\bdeprecat\w*\b[^\n]*\bwill (?:raise|throw|fail|error|crash|break|stop working)\b|"
                          r"\bwill (?:raise|throw|fail)\b[^.;!?\n]{0,40}?\b(?:from|in|since|starting|after|as of) "
                          r"v?\d+(?:\.\d+)+", re.I)


#: words just before a failure that it is what a setting is for keeping away ("Disables parallelism in tokenizers to
#: avoid deadlock problems", a notebook's comment in Portuguese "para evitar problemas de deadlock", "# to prevent
#: hangs", "以避免死锁"): no failure met
_PREVENTED = re.compile(r"(?:\b(?:to avoid|avoid(?:s|ed|ing)?|to prevent|prevent(?:s|ed|ing)?|para evitar|evitar|"
                        r"pour (?:é|e)viter|per evitare)\b(?:(?!\b(?:but|however|yet|still|though|although|mas|pero)\b)[^.;!?,\n]){0,40}|"
                        r"(?:避免|防止|以免|以防)[^。；！？，,\n]{0,20})$", re.I)


#: words that tell what happens as a rule, before the failure they name ("This typically happens when some processes
#: are hanging", vLLM's shm_broadcast.py; "this usually means the process crashed"): a program's or a guide's
#: explanation, no failure met
_AS_A_RULE = re.compile(r"\b(?:typically|usually|often|normally|generally|commonly|can|may|might) (?:happens?|occurs?|"
                        r"means?|indicates?|is caused|be caused)\b[^.;!?\n]{0,40}?\b(?:when|if|that|because|by)\b", re.I)


#: the rest of a sentence that says it runs all the same, another way ("we still cannot run Qwen3-VL with turbomind
#: engine, although it can still run with PyTorch engine, but it is very slow"): a path missing, no failure of the run
_RUNS_ANOTHER_WAY = re.compile(r"[^.;!?\n]{0,120}?\b(?:although|though|but|however)\b,?\s+(?:it|the model|they|this)\s+"
                               r"(?:can |could |does |do )?still\s+(?:runs?|works?|loads?|serves?)\b", re.I)


#: an aside in brackets that warns what would happen ("Attempting to use: Platform=0, Device=0 (If invalid, program
#: will crash)", KoboldCpp's CLBlast; "(otherwise it fails)"): no failure met
_WARNED = re.compile(r"\(\s*(?:if|otherwise|else|unless|or else)\b", re.I)


#: a report filed as a question of speed (vLLM's issue template "[Performance]: ..."): what it says does not work is
#: how fast, not a failure
_PERFORMANCE_TITLE = re.compile(r"^\W{0,4}\[Performance\]", re.I)
#: a sentence that opens with what an instruction is for ("To get the error output, ...", "To see the crash log, run
#: it from a terminal"): the error is what to capture, not one met
_PURPOSE = re.compile(r"\W*(?:\d+\.\s*)?(?:in order )?to (?:get|see|capture|collect|show|view|find|read|print|log|"
                      r"reproduce|trigger)\b", re.I)


#: the end of a sentence: a stop, then a space or the end of the line (the stop is kept in the match)
_SENTENCE_END = re.compile(r"[.;!?](?=\s|$)")


def _sentence_start(text: str, at: int) -> int:
    """Where the sentence that holds `text[at]` begins: after the last stop before it that a space or the line's end
    follows (not inside "17088.03 MB" or "v0.6.3")."""
    return max((b.end() for b in _SENTENCE_END.finditer(text, 0, at)), default=0)
#: a log level before the words in their clause: a program's line quoted in the user's sentence
_QUOTED_LEVEL = re.compile(r"\b(?:WARNING|WARN|ERROR|INFO|DEBUG|FATAL|CRITICAL)\b:?|\[[IWE]\]")


#: a program's function named just before the words ("Title: Bug: ggml_cuda_host_malloc: failed to allocate ..."): its
#: message, quoted
_QUOTED_SOURCE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+:\s*$")


#: (a character of the clause that neither supposes nor asks: not 如果 "if", 会不会 "would it", 可能 "maybe", 是否
#: "whether", 吗, 不会 "will not")
_PLAIN_ZH = r"(?:(?!如果|要是|会不会|可能|是否|吗|不会|没有)[^。！？!?])"
_ROSE_TO_KILL_ZH = (r"(?<!如果)内存" + _PLAIN_ZH + r"{0,24}?(?:过高|太高|爆满|满了|耗尽|"
                    r"用完|用光|升高|上涨|涨满|增长)" + _PLAIN_ZH + r"{0,24}?(?:卡掉|卡死|挂掉|挂了|崩溃|崩了|被杀|被kill|killed|"
                    r"被系统杀|进程(?:退出|没了|被杀)|直接退出)(?![^。！？!?]{0,6}[吗？?])")


#: one line of a user's table of context sizes: the size (as "22k context", "-c 16384", "num_ctx=8192",
#: "max_model_len 32768", "ctx 32k"), a separator, and what happened
_CTX_ITEM = (r"^\s*(?:[-*\u2022]\s*|\|\s*)?"
             # (a launcher's numbered try of each: "Probe 1: ctx=128K ... OOM", "Attempt 2 - context 8192: failed")
             r"(?:(?:probe|attempt|try|trial|test)\s*#?\d+\s*[:.)-]\s*)?(?:(?:--ctx-size|n_ctx|num_ctx|max_model_len|--max-model-len|ctx|context"
             r"(?: length| size)?)\s*[:=]?\s*(\d[\d,.]*)\s*([kK])?|(\d[\d,.]*)\s*([kK])?\s*(?:tokens? )?(?:context|\bctx)"
             # ("\bctx": Python's parser would otherwise take "c" out of "context|ctx" as a common prefix, and the block
             # search could find no word the pattern needs)
             r"(?: length| size)?)\s*(?:[:=|]|->|\u2192|-|\.{2,}|\u2026)\s*(.{1,60})$")
#: ... llama.cpp's short flag ("-c 16384 -> CUDA out of memory"), with what happened in words the block search can find
_CTX_ITEM_C = (r"^\s*(?:[-*\u2022]\s*)?-c\s+(\d+)()()()\s*(?:[:=|]|->|\u2192|-)\s*(.{0,60}?\b(?:OOM|out of memory|works|"
               r"fine|runs|loads)\b.{0,40})$")
_CTX_OOM = re.compile(r"\bOOM\b|out of memory|fails?\b|failed|crash", re.I)


def _ctx_item(m: re.Match) -> tuple[int, bool]:
    """(tokens, ran out) of one line of a context-size table (`_CTX_ITEM`)."""
    number, k = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    tokens = int(float(number.replace(",", "")) * (1000 if k else 1))
    return tokens, bool(_CTX_OOM.search(m.group(5)))


#: a character of a user's clause that neither denies nor supposes (no "not", "never", "n't", "if", "would")
_PLAIN = r"(?:(?!\b(?:not|never|no|if|would|could|might|without)\b|n['\u2019]?t\b)[^.;!?])"
_KILL = r"\b(?:killed|crash(?:es|ed)?|dies|died|froze|freezes|hangs|hung)\b"
#: a kill or crash in a user's words, with the memory rising to a size before it ("memory usage climbs to 120GB and
#: then the process gets killed", "RAM goes up to 62 GB before it is killed", "killed once RAM hits 60 GB"): the
#: memory is the cause, the kind of memory not said (host RAM, or the unified memory of a Mac)
_ROSE_TO_KILL = (r"(?<!\bif )\b(?:memory|RAM|consumption|usage)\b" + _PLAIN + r"{0,30}?\b(?:climbs?|climbed|goes|went|rises|"
                 r"rose|grows|grew|hits|reach(?:es|ed)|spikes?|spiked|balloons?|ballooned|jumps?|jumped)\b(?: up)?"
                 r"(?: all the way)?(?: to)?\s*(?:~|about |around |over |almost |nearly )?(?:\d[\d.,]*\s*[GT]i?B\b|"
                 r"(?:9\d|100)\s?%)" + _PLAIN + r"{0,60}?" + _KILL + "|" + _KILL + _PLAIN + r"{0,40}?\b(?:when|once|after|as)\b" + _PLAIN +
                 r"{0,20}?\b(?:memory|RAM|usage)\b" + _PLAIN + r"{0,20}?\b(?:hits|reach(?:es|ed)|climbs? to|goes up to|"
                 r"went up to)\s*(?:~|about |around |over )?\d[\d.,]*\s*[GT]i?B\b")


def ended_by(n: str) -> str:
    """A process's end with status `n` as its parent reports it: a signal as minus its number (Python's subprocess
    returncode: text-generation-webui's "terminated unexpectedly with exit code: -4", "returncode=-11", "returned
    -9"), or Windows' NTSTATUS read as a signed 32-bit number ("Process finished with exit code -1073741819", which is
    0xC0000005)."""
    return (r"\b(?:exit(?:s|ed)?(?: with)?(?: ?(?:status|code))?|return ?code|returned)[\x22' :=]*"
            + n + r"(?![\d.])")


#: a SIGKILL as its parent reports it (what the shell prints as "Killed"): Go's os/exec "signal: killed" (Ollama's "llama
#: runner process has terminated: signal: killed"), macOS's "Killed: 9" (memory pressure ends it), Python's
#: "<Signals.SIGKILL: 9>", a container's exit code 137 (128 + 9: docker compose's "exited with code 137", kubectl's
#: "Exit Code:    137", docker inspect's "ExitCode": 137). The OOM killer sends most of them, not all: a failed
#: liveness probe, a stop timeout or a `kill -9` end a process the same way
SIGKILL = (r"process has terminated: signal: killed|\bKilled: 9\b|<Signals\.SIGKILL: 9>|"
           # (Go's exec.ExitError of a child killed, as a message of its own: Ollama 0.1's "llama.go:385: signal: killed")
           r"(?:^|\.go:\d+:\s+)signal: killed\s*$|"
           r"exit(?:s|ed)?(?: with)? (?:status|code)[ :]*137\b|\bExitCode\W{0,3}137\b|"
           # a shell's job report ("[1]    83712 killed     ./llama-server ...", "zsh: killed     ./llama-server",
           # "bash: line 1:  4242 Killed   python serve.py", "[1]+  Killed   python serve.py"), systemd's
           # "code=killed, status=9/KILL", TGI's launcher ("Shard process was signaled to shutdown with signal 9")
           r"^\s*(?:zsh: |bash: (?:line \d+:\s+)?|\[\d+\][+-]?\s+)(?:\d+\s+)?[Kk]illed\s+\S|"
           # (... or a script's, the shell naming the script and its line: "cli_demo.sh: line 5: 12989 Killed", the
           # command after it maybe cut)
           # (Slurm's batch script is named slurm_script in its spool: "/var/spool/slurmd/job81121/slurm_script: line 23:
           # 119822 Killed   python serve_hf.py")
           r"^\s*[\w./-]+(?:\.sh|/slurm_script): line \d+:\s+\d+\s+Killed\b|"
           # (... also glued to the progress bar the kill cut short, no newline between: "Loading checkpoint shards:
           # 0%|          | 0/2 [00:00<?, ?it/s][1]    78030 killed     python run.py")
           r"(?:(?<=it/s\])|(?<=s/it\]))\[\d+\][+-]?\s+(?:\d+\s+)?[Kk]illed\s+\S|"
           r"\bstatus=9/KILL\b|\bsignaled to shutdown with signal 9\b|"
           # (vLLM V1's front end listing its engine core's exit code, v1/engine/utils.py: "Failed core proc(s):
           # {'EngineCore_0': -9}": a SIGKILL, its sender not named)
           r"\bFailed core proc\(s\): \{[^}]{0,200}?: -9\b|"
           # a front end's own words for its server process killed ("Restart failed: Process was killed (SIGKILL) —
           # likely out of memory", "worker killed by SIGKILL", "the server was killed (signal 9)")
           r"\b(?:process|server|worker|runner|backend)\s+(?:was\s+|got\s+)?killed\s+(?:\(SIGKILL\)|by SIGKILL\b|"
           r"\(signal 9\)|by signal 9\b)|"
           # (a report's title or words: "Killed while loading weight", "the process gets killed during model loading")
           r"\b[Kk]illed (?:while|during|when) (?:loading|reading|mapping) (?:the )?(?:model|weights?|checkpoint|shards?)\b|"
           # (or a load's progress, then the kill: "Loading checkpoint shards:  62%, then progress be killed")
           r"\b[Ll]oading (?:checkpoint )?(?:shards|weights|model)\b[^\n]{0,60}?\b(?:then|and)\s+(?:the\s+)?(?:\w+\s+)?"
           r"(?:be|was|got|gets|get|is)\s+killed\b|"
           # (... in Chinese: a load killed partway, "模型加载到87%被kill了", "加载模型到87%时进程被杀掉了")
           r"(?:加载|载入)[^，。,;；!！?？\n]{0,30}?被(?:kill|KILL|Kill|杀掉?|系统杀掉?|干掉|终止)|"
           # (Open MPI's mpirun for a rank, as TensorRT-LLM's multi-GPU runs print it: "mpirun noticed that process rank
           # 6 with PID 0 on node n1 exited on signal 9 (Killed).")
           r"\bexited on signal 9\b|"
           # (gunicorn's arbiter reaping a worker the signal ended, arbiter.py reap_workers: "Worker (pid:25134) was sent
           # SIGKILL! Perhaps out of memory?", 20.x "Worker with pid 25134 was terminated due to signal 9"; it sends one
           # itself to a worker past --timeout, after "WORKER TIMEOUT")
           r"\bWorker \(pid:\d+\) was sent SIGKILL\b|\bWorker with pid \d+ was terminated due to signal 9\b|"
           # (minus 9: Python's returncode of a child the signal ended)
           + ended_by("-9") + "|"
           # ... and the shell's word as a user quotes it ("python server.py --cpu results in \"Killed\"", "it keeps
           # saying `Killed`")
           r"[\x22\u201c`]Killed[\x22\u201d`]")


#: a user sending a request, as subject and verb ("I send", "we submitted", "users asked", "I can give"; written out,
#: without `s?`, so that every one is a word the prefilter can search for)
_SENDS = "|".join(f"{who} {how}{verb}" for who in ("I", "we", "user", "users", "client", "clients", "app", "frontend")
                  for how in ("", "then ", "just ", "can ", "tried to ")
                  for verb in ("send", "sent", "sending", "submit", "submits", "submitted", "give", "gave", "ask",
                               "asks", "asked", "feed", "fed", "execute", "executed", "run", "ran", "paste",
                               "pasted", "post", "posts", "posted", "make", "makes", "made", "call", "calls", "called",
                               "sends", "type", "typed", "enter", "entered", "input", "inputs"))
#: a conversation or chat growing ("once the conversation reaches 8K tokens")
_GROWS = (r"(?:reaches|reached|passes|passed|grows|grew|gets to|got to|exceeds|exceeded|hits|"
          r"(?:gets|got|becomes|became|grows) (?:too |very |quite |a bit )?long(?:er)?)\b")


LOG = LogWords(
    # a shell's prompt that runs a Python script (PowerShell's "(venv) PS C:\\dev\\rag> python .\\ask.py", bash's
    # "user@host:~/x$ python train.py", "$ torchrun ..."): a run of its own, the next one where the run before it got
    # anywhere or failed (a script run again after its first try failed: the second try's lines are its own); not a
    # server's command, whose own start lines begin its run and take the command's settings with them)
    run_start=(rx(r"^\s*(?:\(\w[\w.-]*\)\s+)?(?:[\w.-]+@[\w.-]+:\S*\s*[$#]|\$|PS [A-Za-z]:\\[^>\n]{0,120}>)\s*"
                  r"(?:python[\d.]*(?:\.exe)?|torchrun|accelerate\s+launch|deepspeed|mlx_lm\.\w+)(?=\s)", 0),),
    # (a request answered, in the words of no engine in particular: an HTTP access line of a 200, uvicorn's
    # "\x22POST /v1/chat/completions HTTP/1.1\x22 200 OK" that every Python server prints; the answer's JSON itself,
    # "finish_reason": "stop", "object": "chat.completion")
    answered=rx(r"\bHTTP/[\d.]+\x22? 200\b|\x22finish_reason\x22\s*:\s*\x22(?:stop|length)\x22|"
                r"\x22object\x22\s*:\s*\x22(?:chat\.completion|text_completion)\x22", 0),
    not_oom_advice={
        "client-disconnected": "a client hung up before its answer was written (a Stop pressed in a chat UI, a timeout "
                               "on the client's side, a proxy closing the connection): that request only. If clients "
                               "hang up before answers come, raise their timeout or stream the answer.",
    },
    messages=(
        # the kernel's OOM killer: host RAM, not the GPU (phase from progress: loading or serving)
        # (and the shell's "Killed" in its locale's words, bash's translations: 已杀死 (zh_CN), 已終止 (zh_TW), 強制終了
        # (ja), 죽었음 (ko), Getötet (de), Processus arrêté (fr), Убито (ru))
        # (also printed after a progress line the program left open: "Loading model... Killed", a tqdm bar,
        # "Loading checkpoint shards:  38%|██▊    | 3/8 [00:02<00:03,  1.28it/s]Killed")
        msg(r"^\s*(?:Killed|已杀死|已終止|強制終了|죽었음|Getötet|Processus arrêté|Убито)\s*$|(?:\.\.\.|…)\s*Killed\s*$|"
            # (or as a report quotes that line, its quotes closed after it: 'It stopped at "Loading checkpoint shards:
            # 38%|...| 3/8 [00:08<00:14,  2.91s/it]Killed"')
            r"\d%[^\n]*?[\]|]\s*Killed\s*$|\d%[^\n]*?[\]|]\s*Killed[\x22\u201d'`](?![\w])|\d/\d+\s*Killed\s*$|"
            r"Out of memory: Killed process|"
            r"OOMKilled(?![\x22':= ]*(?:false|0)\b)|oom-kill|"
            # (a batch scheduler's kill for the job's host memory limit: Slurm's slurmstepd "Detected 1 oom_kill event in
            # StepId=81121.batch. Some of the step tasks have been OOM Killed." (task/cgroup), PBS's "=>> PBS: job
            # killed: mem 134217728kb exceeded limit 125829120kb" (also vmem, pmem), LSF's "TERM_MEMLIMIT: job killed
            # after reaching LSF memory usage limit.")
            r"\bDetected \d+ oom[_-]kill events?\b|\bhave been OOM Killed\b|=>> PBS: job killed: [pv]?mem \d+\w* exceeded "
            r"limit\b|\bTERM_MEMLIMIT: job killed after reaching LSF memory usage limit\b", "oom", "HOST"),
        # the same SIGKILL as its parent reports it (SIGKILL above): the OOM killer's unless the log says it was not
        # (`Reason: Error`, `OOMKilled: false`, a failed liveness probe: diagnose's `process-killed`)
        msg(SIGKILL, "oom", "HOST"),
        # the Kubernetes scheduler finding no node with the pod's requests free (pkg/scheduler's FailedScheduling event,
        # "0/3 nodes are available: 1 Insufficient memory, 3 Insufficient nvidia.com/gpu. preemption: ..."): the pod
        # never started, nothing ran or ran out; its requests (host memory, GPUs) against what the nodes have left
        msg(r"\b\d+/\d+ nodes are available:[^\n]{0,300}?\bInsufficient (?:memory|cpu|ephemeral-storage|[\w.-]+/gpu)\b",
            "not_oom", code="pod-unschedulable"),
        # the kubelet evicting a pod for the node's memory pressure (its event, "Evicted ... The node was low on
        # resource: memory. Container vllm was using 61Gi, request is 32Gi"): host memory; it stops the pod with
        # SIGTERM, so the server's shutdown lines after it are this eviction's
        msg(r"\bThe node was low on resource: memory\b", "oom", "HOST"),
        # Google Colab's notice that the runtime was restarted for its RAM ("Your session crashed after using all
        # available RAM."): the host's memory, the cell's step under way its phase
        msg(r"\b[Yy]our session crashed after using all available RAM\b", "oom", "HOST"),
        # a watchdog of the host's free memory stopping the process ("watchdog host-memory guard tripped:
        # MemAvailable=10.6GiB < 16GiB; terminating pid=1223238"): host memory, the step under way its phase (not
        # earlyoom, which names the process it kills, often another)
        msg(r"\b(?:host|system)[- ]memory (?:guard|watchdog|limit) (?:tripped|triggered|exceeded)\b|"
            r"\bMemAvailable=[\d.]+ ?[KMG]i?B < [\d.]+ ?[KMG]i?B\b[^\n]{0,40}?\bterminat|"
            # (earlyoom's kill where the process it names is a server's: "earlyoom: sending SIGTERM to process 4412 uid
            # 1000 \"python3\": badness 900, VmRSS 50000 MiB", a Python or an engine's binary; not a browser's)
            r"\bsending SIG(?:TERM|KILL) to process \d+ (?:uid \d+ )?\x22(?:python[\d.]*|llama-server|llama-cli|ollama\w*|"
            r"vllm|sglang\w*|text-generation-\w+|lmdeploy|koboldcpp\w*|tritonserver|trtllm-serve)\x22", "oom", "HOST"),
        # the same in a user's words: a pod or container past its memory limit, the OS's OOM killer
        msg(r"\bkilled by the (?:OS|kernel|system|OOM[- ]killer)\b|\bOOM[- ]killer\b|\bOOM event\b|"
            r"\bkilled by (?:Kubernetes|k8s|the kubelet|Docker)\b[^.;]{0,80}?\b(?:memory|limit)|"
            # (not a GPU's out of memory the same words name: "the pod crashed ... due to a CUDA OOM")
            r"\b(?:pod|container|cgroup)s?\b(?:(?!CUDA|GPU|VRAM|HIP\b|ROCm|Metal)[^.;]){0,60}?\b(?:OOM|out of memory|"
            r"memory limits?)\b|"
            r"\bexceed\w* (?:the |its |their )?(?:pod'?s? |container'?s? |cgroup'?s? |host'?s? )memory limits?|"
            # ... host memory exhausted in so many words ("exhausts host RAM", "OOMs host RAM", "runs out of system
            # memory")
            # (macOS's own dialog for it, "Your system has run out of application memory")
            r"\b(?:has |have )?(?:run|ran|running) out of application memory\b|"
            # (... and its memory-pressure killer, jetsam: a crash report's "JetsamEvent", the kernel's "memorystatus:
            # killing_specific_process pid 812 [ollama] (per-process-limit)", "killed by macOS jetsam", a process
            # "killed under memory pressure")
            r"\bjetsam\b|\bJetsamEvent\b|\bmemorystatus\w*:? (?:kill|killing)\w*|"
            r"\bkill(?:ed|s)?\b[^.;\n]{0,60}?\bunder memory pressure\b|"
            r"\b(?:exhaust(?:s|ed|ing)?|OOMs?|OOMed|OOM'd|run(?:s|ning)? out of|ran out of) (?:the |all )?(?:host RAM|"
            r"host memory|system RAM|system memory|CPU RAM|CPU memory|host's RAM|host's memory)\b",
            "oom", "HOST"),
        # a kill or crash in a user's words, with the memory rising to a size before it ("memory usage climbs to 120GB
        # and then the process gets killed", "RAM goes up to 62 GB before it is killed", "killed once RAM hits 60 GB"):
        # the memory is the cause, the kind of memory not said (a host RAM or unified-memory kill)
        msg(_ROSE_TO_KILL, "oom", "HOST"),
        # ... in Chinese: host memory (内存) rising or too high, then the process died or froze ("内存占用过高，直接卡掉",
        # "内存一直上涨，然后进程被杀")
        msg(_ROSE_TO_KILL_ZH, "oom", "HOST", flags=0),
        # PyTorch's allocators refusing an allocation past what the device or the process's fraction allows
        # (CUDACachingAllocator.cpp "Allocation on device 0 would exceed allowed memory. (out of memory)",
        # CUDAMallocAsyncAllocator.cpp "allocation on device 0 would exceed allowed memory"), also cut after its first
        # words where a UI shows the exception's start (ComfyUI's "Error loading model: Allocation on device")
        msg(r"\b[Aa]llocation on device(?: \d+)? would exceed allowed memory\b|"
            r"(?i:\w*(?:error|exception))\b[^\n]{0,60}?:\s*[Aa]llocation on device(?: \d+)?\W*$", "oom"),
        # Ray's memory monitor (python/ray/_private/memory_monitor.py, the raylet's worker killing policy): a task or
        # actor killed because the node's host RAM ran low ("ray.exceptions.OutOfMemoryError: Task was killed due to
        # the node running low on memory.", the raylet's "Workers ... killed due to memory pressure (OOM)")
        msg(r"ray\.exceptions\.OutOfMemoryError|killed due to the node running low on memory|"
            r"killed due to memory pressure \(OOM\)|"
            # (Ray's memory monitor, python/ray/_private/memory_monitor: "Memory on the node (IP: ..., ID: ...) where the
            # task (actor ID: ..., name=RayWorkerVllm.__init__, pid=308, memory used=11.15GB) was running was ... which
            # exceeds the memory usage threshold"; its advice's link to ray-oom-prevention)
            r"\bMemory on the node \(IP: [^)]{1,120}\) where the (?:task|actor)\b|\bray-oom-prevention\b", "oom", "HOST"),
        # the kubelet's event for a process the node's kernel OOM killer ended (pkg/kubelet/oom: "Warning SystemOOM ...
        # System OOM encountered, victim process: llama-server, pid: 4121")
        msg(r"\bSystem OOM encountered\b|\bSystemOOM\b", "oom", "HOST"),
        # C++'s operator new failing (std::bad_alloc, "terminate called after throwing an instance of
        # 'std::bad_alloc'"), Python's MemoryError, NumPy's "Unable to allocate 30.5 GiB for an array with shape":
        # host memory, not the GPU (CUDA's allocators do not throw bad_alloc)
        msg(r"\bstd::bad_alloc\b|^\s*MemoryError\b|\bUnable to allocate [\d.]+ [KMGT]i?B for an array with shape",
            "oom", "HOST", "host-alloc-failed"),
        # PyTorch's CPU allocator (c10/core/impl/alloc_cpu.cpp): host RAM, not the GPU
        msg(r"DefaultCPUAllocator: (?:not enough memory|can't allocate memory)", "oom", "HOST", "host-alloc-failed"),
        # Ascend's CANN runtime could not get device memory (vllm-ascend, torch_npu: "[Error]: Failed to apply for
        # memory."; its detail, an EE9999 line, may name another cause: Alloc sq cq fail, above)
        msg(r"\[Error\]: Failed to apply for memory\b", "oom", code="npu-alloc-failed"),
        # PyTorch's caching allocator that ran out of memory and then failed to ask NVML who holds it, for the message
        # it was writing (CUDACachingAllocator.cpp reportProcessMemoryInfo: "NVML_SUCCESS == r INTERNAL ASSERT FAILED
        # at .../CUDACachingAllocator.cpp:830", pytorch#112377, #185240; in a container or on Jetson without NVML's
        # process queries): its assertion hides an out-of-memory, in whatever step was under way
        # TensorRT's GPU allocator (its IGpuAllocator / defaultAllocator, as a trtllm-build, Triton's TensorRT back end or
        # Torch-TensorRT print it: "Requested amount of GPU memory (1024 bytes) could not be allocated. There may not be
        # enough free memory for allocation to succeed.")
        msg(r"\bRequested amount of GPU memory \(\d+ bytes\) could not be allocated\b", "oom"),
        msg(r"\bNVML_SUCCESS == [^\n]{0,120}?INTERNAL ASSERT FAILED at \S*CUDACachingAllocator\.cpp|"
            r"\bException raised from reportProcessMemoryInfo\b", "oom"),
        # ggml's own context could not get its host memory (ggml.c ggml_init: the buffer it mallocs for a context is
        # NULL, "GGML_ASSERT: ggml.c:4412: ctx->mem_buffer != NULL"): an allocation that failed, placed by its frames
        # (a compute graph's context, the KV cache's, the weights') or the step under way
        msg(r"GGML_ASSERT[:(][^\n]{0,80}?ctx->mem_buffer != NULL", "oom"),
        # ... or a host buffer it could not get (ggml-metal.m ggml_metal_host_malloc, ggml's aligned malloc:
        # "ggml_metal_host_malloc: error: posix_memalign failed"; on Apple silicon that memory is the GPU's too), the
        # assertion on its NULL after it ("GGML_ASSERT: llama.cpp:491: data") the consequence: placed by the step
        msg(r"\bposix_memalign failed\b", "oom"),
        # ENOMEM from sigaltstack(), the alternate signal stack smaller than this CPU's signal frame needs (Linux 5.14+
        # checks it against AMX-era frames; CPython's faulthandler before bpo-46968 sized it from the static SIGSTKSZ):
        # "sigaltstack: Cannot allocate memory", or Python's "faulthandler.enable()" frame over "OSError: [Errno 12]
        # Cannot allocate memory" (read with its frame in logs.diagnose): a build too old for the CPU, not memory
        msg(r"\bsigaltstack(?:\(\))?: Cannot allocate memory\b", "not_oom", code="signal-stack-too-small"),
        # the kernel's ENOMEM (errno 12, strerror "Cannot allocate memory"): an mmap of a weights file (PyTorch's
        # MapAllocator "unable to mmap N bytes from file <...>: Cannot allocate memory (12)"), a fork, a host buffer;
        # host memory or the address space (overcommit, ulimit -v), not the GPU
        msg(r"Cannot allocate memory \(12\)|\[Errno 12\] Cannot allocate memory|\bENOMEM\b|"
            # (not llama.cpp's loader going on without the mmap: "mmap failed: Cannot allocate memory, falling back
            # to reading the file")
            r"\bmmap failed: Cannot allocate memory(?![^\n]{0,20}\bfalling back\b)", "oom", "HOST",
            "host-alloc-failed"),
        # NCCL's own buffers (not the KV pool): NCCL WARN Cuda failure 'out of memory'
        # (and only that: "NCCL WARN Cuda failure 'operation not supported'" is a CUDA call NCCL made that the device or
        # driver refused, a set-up fault, not memory; NCCL's init.cc / CUDACHECK print the CUDA error's own string)
        # (also cut short, "Cuda failure 2 'out of me": 2 is cudaErrorMemoryAllocation)
        msg(r"NCCL.*(?:out of memory|\bCuda failure (?:2\b|(?:\d+ )?'out\b))", "oom", "WARMUP", "nccl-buffers-oom"),
        # (NCCL's own allocator, under its "ncclUnhandledCudaError: Call to CUDA function failed. Last error:": alloc.h
        # "Failed to CUDA malloc %ld bytes", "Failed to CUDA calloc", cuMem "Failed to CUDA host alloc")
        msg(r"\bFailed to CUDA (?:malloc|calloc|host alloc|(?:cuMem)?Create) \d+ bytes\b", "oom", "WARMUP", "nccl-buffers-oom"),
        msg(r"NCCL.*\bCuda failure(?: \d+)? '(?!out of memory')[^'\n]{3,80}'", "not_oom", code="nccl-error"),
        # a GPU-sharing layer's own limit check with a usage past 2**63 bytes, a counter that went below zero and wrapped
        # (HAMi-core's allocator.c "Device 0 OOM 18446744073707737660 / 24146608128", nvidia-smi showing 17 TB used in
        # the container): its accounting is wrong, nothing ran out
        msg(r"\bDevice \d+ OOM (?:\d{20}|9[3-9]\d{17}|92[3-9]\d{16}) / \d+", "not_oom", code="memory-accounting-wrapped"),
        # the operating system's kernel itself stopped (macOS's "panic(cpu 0 caller 0x...): \"IOGPUGroupMemory::
        # remove_memory_object() memory object not found\"", Linux's "Kernel panic - not syncing"): a driver's or the
        # kernel's fault that takes the machine down; what it names is the driver's bookkeeping, not memory used up
        # (not Linux's own panic for memory: "Kernel panic - not syncing: Out of memory: system-wide panic_on_oom")
        msg(r"\bpanic\(cpu \d+\b|\bKernel panic - not syncing\b(?!:?\s*(?:Out of memory|System is deadlocked on memory))",
            "not_oom", code="kernel-panic"),
        # (also as people write it: "an illegal CUDA memory access", cudaErrorIllegalAddress)
        # (and shorter, in a report's words: "请求测试的时候出现illegal memory 错误", a title ending "出现 illegal memory",
        # "fails with an illegal memory error")
        msg(r"illegal (?:CUDA |GPU |device )?memory access|illegal address|cudaErrorIllegalAddress|"
            r"\billegal memory(?=\s*(?:(?:errors?|exceptions?|issues?|crash\w*)\b|\s*$))|illegal memory\s*(?:错误|报错|问题|异常)|"
            r"CUDA_ERROR_ILLEGAL_ADDRESS|"
            # (by its number, 700, as a driver call's result is printed: "Failed to encode tensor map: 700", "CUDA
            # error 700", "CUresult 700")
            r"\bFailed to encode tensor map: 700\b|\b(?:CUDA|CUresult|cuda) ?(?:error|Error)?:? 700\b", "not_oom",
            code="illegal-memory-access"),
        # CUDA writing a core dump of the GPU (CUDA_ENABLE_COREDUMP_ON_EXCEPTION: "Starting GPU coredump generation"),
        # which it does when a kernel raises an exception (a bad address, an assert, a bad instruction), not when
        # memory runs out
        msg(r"\bStarting GPU coredump generation\b", "not_oom", code="cuda-kernel-error"),
        # the amdgpu driver's GPU page fault (dmesg: "amdgpu: [gfxhub0] retry page fault ...", "VM_L2_PROTECTION_FAULT
        # _STATUS"): a kernel touched memory it does not own, AMD's illegal memory access
        msg(r"amdgpu: \[gfxhub\d*\] (?:retry |no-retry )?page fault|VM_L2_PROTECTION_FAULT", "not_oom",
            code="illegal-memory-access"),
        # ... and as ROCm's HSA runtime reports it to the process ("Memory access fault by GPU node-1 (Agent handle:
        # ...) on address ... Reason: Page not present", also cut after "node-1 (A"; rocdevice.cpp's
        # HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION / _MEMORY_FAULT), or as a user names it ("a memory access fault")
        # (... also as the queue's hardware exception with the aperture violation's code, "HSA_STATUS_ERROR_EXCEPTION: An
        # HSAIL operation resulted in a hardware exception. code: 0x1016", and in words, "memory aperture violation")
        # (or shorter, "crashes with memory-fault while initializing")
        msg(r"\bmemory access fault\b|\bmemory-fault\b|\bHSA_STATUS_ERROR_MEMORY_(?:APERTURE_VIOLATION|FAULT)\b|"
            r"\bHSA_STATUS_ERROR_EXCEPTION\b[^\n]{0,120}?\bcode: 0x1016\b|\bmemory aperture violation\b", "not_oom",
            code="illegal-memory-access"),
        # ... and as Ascend's runtime reports it (an AI core's exception: "errorStr: The DDR address of the MTE
        # instruction is out of range"): a kernel read or wrote outside its memory
        # (and in a report's shorter words: "error code 507015 (MTE DDR address out of range)")
        msg(r"\bThe DDR address of the MTE instruction is out\b|\bMTE instruction is out of range\b|"
            r"\bMTE (?:DDR )?address (?:is )?out of range\b", "not_oom",
            code="illegal-memory-access"),
        # ... and Ascend's stream queues (CANN's runtime "[SqCqManage]Alloc sq cq fail"): a count of hardware
        # submission queues, not memory; the "Failed to apply for memory." before it is its symptom
        # (and its streams for graph capture, ACL graph mode: "New capture stream failed", "Create capture stream
        # failed", "rtStreamWaitEvent execution failed, reason=driver error:resource alloc fail", "runtime result =
        # 207005", CANN's ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, a stream or event, where device memory is 207001)
        # (vllm-ascend's own words for it: "ACLgraph has insufficient available streams to capture the configured
        # number of sizes")
        msg(r"\bAlloc sq cq fail\b|\b(?:New|Create) capture stream failed\b|\bruntime result = 207005\b|"
            r"\brtStreamWaitEvent execution failed, reason=driver error:resource alloc fail\b|"
            r"\bACLgraph has insufficient available streams\b", "not_oom",
            code="device-resource-exhausted"),
        # ggml's GGML_ABORT("fatal error") (an unsupported case in a kernel, "ggml-cuda/fattn.cu:574: fatal error"):
        # an abort by a check, not memory running out
        # (in a header too: "ggml-cuda/template-instances/../mmq.cuh:4254: fatal error")
        msg(r"\.(?:cu|cuh|cpp|hpp|c|h|m|mm):\d+: fatal error\s*$", "not_oom", code="ggml-assert"),
        # numbers that went NaN or inf in a computation: ik_llama.cpp's check on a graph op's output ("Oops(ggml_compute_
        # forward_sum_rows_f32, ffn_moe_weights_sum-60): found nan for i1 = 0, ...", then its abort), llama-perplexity's
        # chunks all NaN ("[1]nan,[2]nan,[3]nan", "[1]-nan,[2]-nan"), its "Unexpected negative standard deviation of
        # log(prob)": the model's numbers (a type that overflows, a kernel, a quantisation), not memory
        msg(r"\bOops\(ggml_\w+, [^)]{1,120}\): found -?(?:nan|inf)\b|^\s*\[1\]-?nan,\[2\]-?nan,|"
            r"\bUnexpected negative standard deviation of log\(prob\)", "not_oom", code="nan-in-logits"),
        # Metal's API validation (an Objective-C method, then "failed assertion `...'": "-[_MTLCommandBuffer
        # addCompletedHandler:]:1011: failed assertion `Completed handler provided after commit call'"): a command
        # buffer or encoder used out of order, a bug; not where its words speak of memory or a size past a limit
        msg(r"-\[\w+ [\w:]+\]:\s*\d+: failed assertion `(?!Buffer Validation)(?![^`']{0,200}?(?:[Mm]emory|OutOfMemory|[Ee]xceed|too large|"
            r"\blength\b|\bsize\b))", "not_oom", code="metal-api-assertion"),
        # ... also as a report quotes it without the method before it ("llama-box crashes: failed assertion `A command
        # encoder is already encoding to this command buffer'"), where its words name a command buffer or encoder
        msg(r"\bfailed assertion [`'\x22\u2018](?=[^`'\x22\u2019]{0,200}?\b(?:[Cc]ommand ?(?:[Ee]ncoder|[Bb]uffer)|"
            r"[Ee]ncoder|MTL\w+|commit call|[Cc]ompleted handler|endEncoding)\b)(?![^`'\x22\u2019]{0,200}?(?:[Mm]emory|OutOfMemory|[Ee]xceed|too large|\blength\b|"
            r"\bsize\b))", "not_oom", code="metal-api-assertion"),
        # ... but its buffer validation, one buffer past the device's largest ("failed assertion `Buffer Validation" /
        # "newBufferWith*:length 0x86004000 must not exceed 2048 MB."): one allocation above the cap, whatever is free
        msg(r"\bnewBufferWith\S*:length 0x[0-9a-fA-F]+ must not exceed \d+ ?[MG]B\b", "oom",
            code="buffer-exceeds-allocation-limit"),
        # ... and OpenVINO's GPU plugin (the llama.cpp OpenVINO back end, OpenVINO GenAI): "[GPU] Exceeded max size of
        # memory object allocation: requested N bytes, but max alloc size supported by device is M bytes"
        msg(r"\bExceeded max size of memory object allocation\b", "oom", code="buffer-exceeds-allocation-limit"),
        # a program's own words that the state it found is a bug of its own ("ID not found in entries. This is a bug.",
        # TGI's router): not memory (not where the line speaks of memory)
        msg(r"^(?![^\n]*(?:" + MEMORY_TERMS + r"|out of|\bOOM\b|\bKV\b|\bblocks?\b|\bcache\b|\bfree\b|\bslots?\b|"
            r"\bpages?\b))[^\n]*\bThis is a bug\b", "not_oom", code="engine-bug"),
        # a size asked for that no machine has, a petabyte or more in any allocator's words (OpenVINO's "requested
        # 2305843008391495680 bytes", DefaultCPUAllocator's "you tried to allocate 18446744073709551612 bytes",
        # TensorRT's "Requested size was 1152921504606846976 bytes" and "Requested amount of GPU memory (... bytes)",
        # PyTorch's "Tried to allocate 8589934592.00 GiB", ggml's "allocating 17592186044416.00 MiB", "allocation of size
        # 18446744073709551615"), or a negative one ("allocating -2048.00 MiB"): a size computed wrong (an overflow, a
        # negative count read as unsigned), a bug in the code, not memory running out
        msg(r"\b(?:tried to allocate|[Rr]equested size was|[Rr]equested amount of [\w ]{0,20}\(|[Rr]equested)\s*\d{16,} ?bytes\b|"
            r"\ballocat\w* -\d[\d.]* ?(?:[KMGT]i?B|bytes)\b|"
            r"\bTried to allocate \d{7,}(?:\.\d+)? ?GiB\b|\bTried to allocate \d{4,}(?:\.\d+)? ?"
            r"(?:TiB|PiB|EiB)\b|\ballocating \d{10,}(?:\.\d+)? MiB\b|\b(?:allocation|buffer) of size \d{16,}\b",
            "not_oom", code="allocation-size-overflow"),
        # ... and PyTorch's XPU allocator on Intel GPUs (IPEX, torch-xpu: "Current platform can NOT allocate memory
        # block with size larger than 4GB! Tried to allocate 40.00 GiB"): one block past the device's single-allocation
        # cap, whatever is free
        msg(r"\bCurrent platform can NOT allocate memory block with size larger than \d+ ?[GM]B\b", "oom",
            code="buffer-exceeds-allocation-limit"),
        # a server's memory guard refusing a prefill that would pass its cap (oMLX: "Prefill would require ~70.27 GB
        # peak (current 67.54 GB + KV+SDPA 2.73 GB) but metal_cap ceiling is 69.86 GB"): a request, while serving
        msg(r"\bPrefill would require ~?[\d.]+ ?[GM]i?B\b[^\n]{0,120}?\b(?:ceiling|cap|limit)\b", "oom", "RUNTIME"),
        # Apple's distributed back ends, MLX's RDMA collectives ("[jaccl] Couldn't allocate protection domain", "[jaccl]
        # Recv failed with errno=2"): the machines failed to talk, not memory
        msg(r"\[jaccl\] (?:Couldn't|Could not|Recv failed|Send failed|Failed)", "not_oom", code="communication-error"),
        # exo's placement of a model over its devices (master/placement.py: "No cycles found with sufficient memory"):
        # no set of devices holds the weights, before any load
        msg(r"\bNo cycles found with sufficient memory\b", "oom", "WEIGHTS", "weights-exceed-memory-limit"),
        # (NCCL's result codes by their C names, nccl.h ncclResult_t, and as CuPy's NcclError spells them, which Ray's
        # collectives raise: "NCCL_ERROR_SYSTEM_ERROR: unhandled system error")
        # (and NCCL's own strings for them, ncclGetErrorString: "unhandled system error", "unhandled cuda error")
        msg(r"NCCL error|ncclUnhandledCudaError|NCCL watchdog|ncclSystemError|ncclInternalError|ncclRemoteError|"
            r"\bunhandled (?:system|cuda) error\b|"
            # (its warning that a peer could not be reached over the network, misc/socket.cc, transport/net*.cc:
            # "NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No route to host)")
            r"NCCL WARN (?:socket\w*|NET/\w+|bootstrap\w*|Call to connect)\b|"
            r"ncclInvalidUsage|ncclInvalidArgument|\bNCCL_ERROR_(?:UNHANDLED_CUDA_ERROR|SYSTEM_ERROR|INTERNAL_ERROR|"
            r"INVALID_ARGUMENT|INVALID_USAGE|REMOTE_ERROR)\b|"
            r"Watchdog caught collective operation timeout|NCCL operations have failed or timed out|"
            # (as a user names it: "the final error is nccl timeout", "an NCCL timed out error")
            r"\bNCCL (?:timeout|timed out)\b|"
            # (NCCL refusing a CUDA graph capture, its enqueue.cc: "NCCL cannot be captured in a graph if either it wasn't
            # built with CUDA runtime >= 11.3 or if the installed CUDA driver < R465": an old driver or build)
            r"\bNCCL cannot be captured in a graph\b", "not_oom", code="nccl-error"),
        # PyTorch's NCCL watchdog (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp): a collective that timed out or
        # failed, or a CUDA error it caught (the c10 exception's "Exception raised from ncclCommWatchdog / checkTimeout
        # at .../ProcessGroupNCCL.cpp:N", its "Process group watchdog thread terminated with exception: <cause>", a
        # hung watchdog); not memory unless its own cause says so. (Its shutdown warning "process group has NOT been
        # destroyed before we destruct ProcessGroupNCCL" is none of these.)
        msg(r"Exception raised from (?:ncclCommWatchdog|checkTimeout|watchdogHandler|workCleanupLoop|heartbeatMonitor)"
            r" at \S*ProcessGroupNCCL\.cpp|watchdog thread terminated with exception: (?!.*out of memory)|"
            r"ProcessGroupNCCL's watchdog got stuck|Heartbeat monitor timed out", "not_oom", code="nccl-error"),
        # (not the advice PyTorch appends to every CUDA or HIP error, "Compile with `TORCH_USE_CUDA_DSA` to enable
        # device-side assertions": c10/cuda/CUDAException.cpp; the error above it is the cause)
        msg(r"device-side assert(?!ions\b)|"
            # (the kernel's own assert as the device prints it, CUDA's and Triton's kernels alike: "IndexKernel.cu:92:
            # operator(): block: [0,0,0], thread: [32,0,0] Assertion `index out of bounds` failed.")
            r"\bblock: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion\b", "not_oom", code="device-side-assert"),
        # an OpenCL call's status (ggml-opencl / CLBlast: "ggml_opencl: ggml_cl_h2d_tensor_2d(...) error -30 at
        # ggml-opencl.cpp:1708"; CL/cl.h): memory where it is CL_MEM_OBJECT_ALLOCATION_FAILURE (-4), CL_OUT_OF_RESOURCES
        # (-5), CL_OUT_OF_HOST_MEMORY (-6) or CL_INVALID_BUFFER_SIZE (-61); another cause otherwise (-30
        # CL_INVALID_VALUE, -38 CL_INVALID_MEM_OBJECT, -54 CL_INVALID_WORK_GROUP_SIZE, ...)
        # (and CLBlast's own wording, 2023 llama.cpp and whisper.cpp: "CLBlast: OpenCL error: clEnqueueNDRangeKernel: -4")
        msg(r"\berror -(?:4|5|6) at \S*ggml-opencl\.cpp:\d+|\bCL_(?:MEM_OBJECT_ALLOCATION_FAILURE|OUT_OF_RESOURCES|"
            r"OUT_OF_HOST_MEMORY)\b|\bOpenCL error: \w+: -(?:4|5|6)\b", "oom"),
        msg(r"\berror -61 at \S*ggml-opencl\.cpp:\d+|\bCL_INVALID_BUFFER_SIZE\b|\bOpenCL error: \w+: -61\b", "oom",
            code="buffer-exceeds-allocation-limit"),
        msg(r"\berror -(?!(?:4|5|6|61)\b)\d+ at \S*ggml-opencl\.cpp:\d+|\bCL_INVALID_(?!BUFFER_SIZE\b)[A-Z_]+\b|"
            r"\bOpenCL error: \w+: -(?!(?:4|5|6|61)\b)\d+\b", "not_oom", code="opencl-error"),
        # ... an NPU kernel's own assertion (Ascend C's "[ASSERT] [CANN_VERSION : ...] .../gather_v3_base.h:137: Assertion
        # `(0 <= val && val < this->gxSize_)' Index 4096 out of range[0 4096)!"): an index past a tensor's end, a bug or
        # an input longer than a size it was built for, not memory
        msg(r"\[ASSERT\][^\n]{0,400}?\bAssertion [`'][^`'\n]{1,300}['\u2019]|\bIndex -?\d+ out of range\s*\[-?\d+,? -?\d+\)",
            "not_oom", code="device-side-assert"),
        # a thread that could not be created (pthread_create's EAGAIN, "Resource temporarily unavailable"): the address
        # space had no room for its stack (ulimit -v), or the threads limit was reached (ulimit -u, a pids cgroup).
        # libgomp (team.c "Thread creation failed: %s"), libstdc++'s std::thread (std::system_error), OpenBLAS
        # (blas_server.c "pthread_create failed for thread %d of %d: %s"), Go's runtime/cgo, CPython, Rust's std
        # (its diagnosis is undetermined: see diagnose.diagnose_run)
        msg(r"Thread creation failed: |\bpthread_create failed\b|can't start new thread|failed to spawn thread|"
            r"what\(\):\s+Resource temporarily unavailable\s*$", "not_oom", code="thread-creation-failed"),
        # glibc's heap checks: memory corrupted by a bug, not memory running out
        # (and macOS's libmalloc: "BUG IN CLIENT OF LIBMALLOC: memory corruption of free block", "Heap memory
        # corruption", a SIGTRAP its checks raise)
        # (glibc 2.29+'s tcache check, "free(): double free detected in tcache 2"; "free(): invalid size", "free():
        # invalid next size (fast)", "munmap_chunk(): invalid pointer", "realloc(): invalid pointer", "malloc():
        # unaligned tcache chunk detected", "corrupted double-linked list")
        msg(r"double free or corruption|free\(\): (?:invalid (?:pointer|size|next size)|double free detected)|"
            r"(?:munmap_chunk|realloc)\(\): invalid pointer|malloc\(\): (?:corrupted|unaligned)|"
            r"corrupted double-linked list|corrupted size vs\. prev_size|"
            r"malloc_consolidate\(\): invalid|BUG IN CLIENT OF LIBMALLOC|\bheap (?:memory )?corruption\b|"
            # (glibc's checks of its bins and its top chunk: "free(): corrupted unsorted chunks", "malloc(): corrupted
            # top size", "corrupted size vs. prev_size in fastbins")
            # (a progress bar's output may run on into it: "free(): corrupted unsorted chunks2l<00: 00,1.62s/it]")
            # (and Windows' STATUS_HEAP_CORRUPTION, 0xc0000374, as Go's runtime prints the exception, "Exception
            # 0xc0000374 0x0 0x0 0x7ffd3e0f93a9", or a parent reports the end: 3221226356, -1073740940)
            r"\b(?:Exception|exit status|exception code:?|exit code:?)\s+0xc0000374\b|\bSTATUS_HEAP_CORRUPTION\b|"
            r"\b(?:exit status|exit code:?|no longer running:)\s+(?:3221226356|-1073740940)\b|"
            r"\bcorrupted unsorted chunks|\bcorrupted top size\b|"
            # (glibc's own asserts inside its allocator, malloc.c's consistency checks of its chunks: "llama-box:
            # malloc.c:2617: sysmalloc: Assertion `(old_top == initial_top (av) && old_size == 0) || ...' failed.";
            # memory running out makes malloc return NULL, never fail these; and the stack's canary, "*** stack
            # smashing detected ***: terminated": a write past a buffer on the stack)
            r"\bmalloc\.c:\d+: \w+: Assertion [`'\u2018]|\*\*\* stack smashing detected \*\*\*", "not_oom",
            code="heap-corruption"),
        # (and FlashInfer's check of a launch's status, with CUDA's error string after it: "Check failed: (status ==
        # cudaSuccess) is false: BatchPrefillWithPagedKVCache failed with error invalid argument")
        msg(r"(?:CUDA|HIP|ROCm)\w*[ _](?:runtime )?error\b.{0,300}?invalid argument|invalid argument .*\.cu:\d+|"
            r"\(status == (?:cuda|hip)Success\) is false: [^\n]{0,200}?\bfailed with error invalid argument\b", "not_oom",
            code="cuda-invalid-argument"),
        msg(r"misaligned address|CUBLAS_STATUS_(?!ALLOC|NOT_INITIALIZED)\w+|cuDNN error|unspecified launch failure|"
            # (a CUTLASS kernel that could not run this problem, vLLM's and sgl-kernel's TORCH_CHECK on its status:
            # "Expected status == cutlass::Status::kSuccess to be true, but got false."; not its own allocation status)
            r"\bExpected status == cutlass::Status::kSuccess\b|\bcutlass::Status::kError(?!MemoryAllocation)\w+",
            "not_oom", code="cuda-kernel-error"),
        # cuBLAS could not make its handle (cublasCreate): its workspace is device memory, so a full GPU gives this as
        # well as a broken install (diagnose._MAYBE_MEMORY)
        msg(r"CUBLAS_STATUS_NOT_INITIALIZED", "not_oom", code="cublas-not-initialized"),
        # an operation CUDA refuses during stream capture (cudaErrorStreamCaptureUnsupported, 900: "operation not
        # permitted when stream is capturing"), an allocation among them ("cudaMalloc(20480 bytes) failed: operation
        # not permitted when stream is capturing"): the capture's bug, not memory (not cudaErrorStreamCaptureInvalidated,
        # 901, "operation failed due to a previous error during capture": that previous error, maybe memory, is the cause)
        msg(r"\boperation not permitted when stream is capturing\b|\bcudaErrorStreamCaptureUnsupported\b", "not_oom",
            code="graph-capture-illegal-op"),
        # ... a cuBLAS call named with the status it returned in words ("cublasSgemm_v2 invalid parameter", "cublasGemmEx
        # failed: invalid value"), as a report or ggml's error line quotes it; not its allocation failure
        msg(r"\bcublas\w+\b[^\n]{0,40}?\b(?:invalid (?:parameter|value)|not supported|execution failed|architecture "
            r"mismatch)\b", "not_oom", code="cuda-kernel-error"),
        # a BLAS library's own check of a call's arguments (its xerbla: Intel MKL's "Intel MKL ERROR: Parameter 13 was
        # incorrect on entry to SGEMM .", OpenBLAS's and the reference BLAS's " ** On entry to SGEMM  parameter number
        # 8 had an illegal value"): a matrix size or stride the caller got wrong, a build's bug, not memory
        msg(r"\bMKL ERROR: Parameter \d+ was incorrect on entry to\b|\bOn entry to \w+\s+parameter number\s+\d+ had an "
            r"illegal value\b", "not_oom", code="blas-bad-argument"),
        # a back end with no kernels for the data type asked (text-embeddings-inference's ORT and candle back ends:
        # "Could not start backend: DType float16 is not supported"), not a warning that goes on with another type
        # ("bfloat16 is not supported on CPU, using float32 instead")
        msg(r"\bD[Tt]ype:? [\w.]+ is not supported\b(?![^\n]*\b(?:using|falling back|falls? back|fallback|instead|"
            r"casting to|converting to)\b)", "not_oom", code="dtype-unsupported"),
        # JSON that a Go program could not read (encoding/json's SyntaxError and UnmarshalTypeError: one-api's "error
        # unmarshalling stream response: invalid character '}' after top-level value", Ollama's client's "invalid
        # character '<' looking for beginning of value" from an HTML page, "unexpected end of JSON input"): a format
        # two programs disagree on, not memory
        msg(r"\binvalid character '.{1,4}' (?:after top-level value|looking for beginning of (?:value|object key string)|"
            r"after object key(?::value pair)?|after array element|in string literal)|\bunexpected end of JSON input\b|"
            r"\bjson: cannot unmarshal \w+ into Go (?:struct field|value)\b", "not_oom", code="malformed-json"),
        # a client that hung up while its request was answered: the server's write failed ("BrokenPipeError: [Errno 32]
        # Broken pipe" in Python's socketserver, which reports it under "Exception occurred during processing of request
        # from ('192.168.10.41', 60412)"; uvicorn/starlette's ClientDisconnect): that request only, not memory
        msg(r"\bBrokenPipeError\b|\[Errno 32\] Broken pipe|"
            r"\bstarlette\.requests\.ClientDisconnect\b|\bClientDisconnect(?:ed)?(?:Error)?\b",
            "not_oom", code="client-disconnected"),
        # (socketserver's header itself comes before any exception a request's handler raised, a Metal allocation's as
        # well as a client's hang-up: a request's failure, its cause in the traceback under it)
        msg(r"\bException occurred during processing of request from\b", "wrapper", "RUNTIME"),
        # ... or a web framework's log of a request's handler that raised (Flask's app.logger "Exception on /predict
        # [POST]", BentoML's api_server "[ERROR] [api_server:3] Exception on /minilm_l_2_v2_sim"): serving
        msg(r"\bException on /[\w/.{}-]*(?: \[(?:GET|POST|PUT|PATCH|DELETE)\])?", "wrapper", "RUNTIME"),
        # the processes failed to talk to each other (gloo, TCP): a distributed set-up fault, not memory
        # (not its success, torch 2.5's "[Gloo] Rank 0 is connected to 1 peer ranks. Expected number of connected peer
        # ranks is : 1", nor "the barrier via GLOO connects both nodes")
        msg(r"\bgloo\b.*(?:Connection (?:closed|reset|refused|timed? ?out)|connect\w* (?:failed|error|timed? ?out|refused)|"
            # (not curl's own, "curl: (56) Recv failure: Connection reset by peer": a client whose server went away)
            r"(?:failed|unable) to connect|timed? ?out|reset|closed|\bcl$)|(?<!Recv failure: )Connection (?:closed|reset|"
            r"refused) by peer|"
            r"ConnectionResetError|ConnectionRefusedError|"
            # ... or torch.distributed's store (c10d's TCPStore, which ranks meet at: "[c10d] waitForInput: socket
            # SocketImpl(...) timed out after 600000ms", "torch.distributed.DistStoreError: wait timeout after 600000ms")
            r"\[c10d\][^\n]{0,300}?\btimed out after \d+ ?ms\b|\bDistStoreError\b|"
            # ... or NIXL, which moves KV caches between servers (disaggregated prefill: TensorRT-LLM, vLLM's
            # NixlConnector, Dynamo), failed a transfer with one of its status codes (nixl_types.h: NIXL_ERR_BACKEND,
            # NIXL_ERR_REMOTE_DISCONNECT, ...; none of them is memory)
            r"\bNIXL_ERR_[A-Z_]+\b|"
            # ... or MPI, which TensorRT-LLM's ranks talk over (common/mpiUtils.cpp: "Assertion failed: Failed: MPI
            # error ... mpiUtils.cpp:211"), MPI's own codes and Open MPI's words
            r"\bFailed: MPI error\b|\bMPI_ERR_[A-Z_]+\b|\bmpiUtils\.cpp:\d+|"
            # ... or HCCL, Ascend's collectives ("[ERROR] HCCL(...) ... [InitChannelStage][RunFailed]Transport init
            # error! createLink ...", its "CONNECT TIMEOUT DETECT RESULT", HcclResult codes by name)
            r"\bTransport init error!|\bCONNECT TIMEOUT DETECT RESULT\b|\bHCCL_E_(?:TIMEOUT|TCP_CONNECT|TCP_TRANSFER|NETWORK|"
            r"REMOTE|ROCE_CONNECT|UNAVAIL)\b|"
            # ... or UCX, the RDMA transport under NIXL and Dynamo (ucs/ucp: "UCX  ERROR ibv_reg_mr(address=...) failed:
            # Bad address", "failed to register address ... (cuda) ... on md[6]=mlx5_0: Input/output error", NIXL's
            # "Failed to ucp_mem_map"): a GPU buffer the network card could not register, not a disk and not memory
            # used up (its EIO is the card's; an ENOMEM there is the locked-memory limit, `ulimit -l`)
            r"\bUCX\s+ERROR\b|\bFailed to ucp_mem_map\b|\bibv_reg_mr\([^\n]{0,200}?\bfailed\b|"
            # (Mooncake's transfer engine, under SGLang's and vLLM's disaggregated prefill, registering a buffer with the
            # RDMA card: rdma_transport.cpp "RdmaTransport: Failed to register memory: addr 0x7fd3e7048000 length 294912")
            r"\bRdmaTransport: Failed to register memory\b|"
            # ... or in a report's Chinese: the GPUs' communication failing (卡间通信报错, 多卡通信失败, 节点间通信超时)
            r"(?:卡间|多卡|跨卡|节点间|机间|GPU间|显卡间)通信(?:报错|错误|失败|超时|异常|出错)",
            "not_oom", code="communication-error"),
        # a Vulkan call that failed for another reason than memory (Vulkan-Hpp's exception, "vk::Device::
        # createComputePipeline: ErrorUnknown", "vk::Queue::submit: ErrorInitializationFailed"; a driver that could not
        # build a shader, Adreno's "Failed to link shaders"): the driver or the back end, not memory (its
        # ErrorOutOfDeviceMemory / ErrorOutOfHostMemory are, and ErrorDeviceLost is gpu-device-lost below)
        msg(r"\bvk::\w+::\w+: Error(?!OutOf(?:Device|Host|Pool)Memory|DeviceLost|FragmentedPool)\w+|\bFailed to link "
            r"shaders\b", "not_oom", code="gpu-driver-error"),
        # the GPU stopped answering (a hang, a driver reset, a reset by the OS watchdog): a named cause, not memory
        # (Vulkan VK_ERROR_DEVICE_LOST and its C++ name, D3D12's device removal, NVIDIA's Xid 79 text)
        # (and Mesa's radv on amdgpu: "The CS has been cancelled because the context is lost"; NVIDIA's driver faults by
        # their Xid, which the kernel log prints "NVRM: Xid (PCI:0000:01:00): 43, pid=...": 8 a timeout, 13 a graphics
        # engine exception, 43 a channel stopped, 48 a double-bit ECC error, 62 and 154 a
        # micro-controller halt and the reset it asks for, 79 off the bus, 109/119/120 GSP; not 45, the clean-up after a
        # process was killed, the OOM killer's too)
        msg(r"ErrorDeviceLost|DeviceLostError|VK_ERROR_DEVICE_LOST|\bDevice lost\b|DXGI_ERROR_DEVICE_(?:REMOVED|HUNG|RESET)|"
            r"GPU has fallen off the bus|\bthe context is lost\b|"
            r"\bXid\W{0,3}(?:\(PCI:[\w:.]+\)\W{1,3})?(?:8|13|32|43|48|56|57|61|62|63|64|68|69|74|79|92|94|95|109|119|"
            r"120|121|140|143|150|154|155)(?!\d)", "not_oom", code="gpu-device-lost"),
        # a GPU whose memory has uncorrectable ECC errors, as nvidia-smi counts them (its table's "Volatile Uncorr.
        # ECC" column, `nvidia-smi -q`'s "Volatile ... Double Bit ... Total : 2", "DRAM Uncorrectable : 1") and a
        # report gives it in words ("有一张卡的Volatile Uncorr. ECC 报1了", "Volatile Uncorr. ECC shows 3 on GPU 2"): the
        # hardware, not memory running out; a count of 0, N/A or Off is no error
        # (and CUDA's own error for it, cudaErrorECCUncorrectable: "CUDA error: uncorrectable ECC error encountered",
        # and a count of them in words: "GPU 2 has 4 uncorrectable ECC errors according to nvidia-smi")
        msg(r"\bUncorr(?:\.|ectable)? ECC\b[^\n|]{0,30}?(?:报|为|是|=|:|\bis\b|\bshows?\b|\breports?\b|\bof\b|\bat\b)\s*了?\s*"
            r"[1-9]\d*(?![\d.%])|\bDRAM Uncorrectable\s*:\s*[1-9]|\buncorrectable ECC error encountered\b|"
            r"\bcudaErrorECCUncorrectable\b|\b[1-9]\d* uncorrectable ECC errors?\b", "not_oom", code="gpu-ecc-error"),
        # (Xid 31, an MMU fault: a kernel touched an address it does not own, the driver's side of an illegal memory
        # access)
        msg(r"\bXid\W{0,3}(?:\(PCI:[\w:.]+\)\W{1,3})?31(?!\d)", "not_oom", code="illegal-memory-access"),
        # a pool that got no memory at all, in other engines' words (vllm-metal "Paged attention: not enough Metal
        # memory for KV cache ... kv_budget=-14.63GB", "insufficient GPU memory for the KV cache")
        msg(r"(?:not enough|insufficient) (?:\w+ )?memory (?:for|to allocate) (?:the )?KV ?cache|\bkv_budget=-",
            "oom", "KV", "no-memory-for-kv-cache"),
        # a library the server needs could not be loaded (the CUDA driver library missing in a container, a native
        # runtime that failed to load): a named cause, not memory
        # (Jan/cortex "Could not load engine: Could not load library \"...engine.dll\"", the loader's "error while
        # loading shared libraries", "Failed to load shared library")
        # (not NCCL's probe for its network plugin, at INFO, which goes on without it: "NCCL INFO NET/Plugin :
        # dlerror=libnccl-net.so: cannot open shared object file ... No plugin found (libnccl-net.so), using internal
        # implementation")
        msg(r"^(?![^\n]*(?:using internal implementation|[A-Z]+/Plugin\s*:))[^\n]*?cannot open shared object file|"
            r"\bLoadLibrary\w* failed|\bdlopen\b.{0,120}\bfailed|Library not loaded:|"
            # (a check that a library is in the process, SGLang's custom all-reduce on a ROCm machine without CUDA's
            # runtime: "AssertionError: libcudart is not loaded in the current process")
            r"\blib\w+(?:\.so[\d.]*)? is not loaded in the current process\b|"
            r"(?:[Cc]ould not|[Cc]ouldn't|[Ff]ailed to|[Uu]nable to) load (?:the )?(?:shared |dynamic |native )?library\b|"
            r"error while loading shared libraries|"
            # (Triton's backend manager, the backend's .so not where the model's config says: "failed to load
            # 'tensorrt_llm' version 1: Invalid argument: unable to find backend library for backend 'tensorrtllm'")
            r"\bunable to find backend library\b|"
            # (Windows' ERROR_MOD_NOT_FOUND, 126, as LoadLibrary, Python's ctypes ("[WinError 126]") and Node's dlopen
            # print it; LM Studio loads its engines as Node modules: "Failed to load LLM engine from path: ...node")
            r"The specified module could not be found|\[WinError 126\]|Failed to load LLM engine\b|"
            # (Windows' STATUS_DLL_NOT_FOUND as a process's end reports it: "exit status 0xc0000135")
            r"\bexit status 0xc0000135\b|\bSTATUS_DLL_NOT_FOUND\b|"
            # (... and STATUS_ENTRYPOINT_NOT_FOUND, 0xc0000139: a DLL without a function the program needs; either as
            # a parent reports the process's end in decimal, Ollama's "llama runner process no longer running:
            # 3221225785")
            r"\bexit status 0xc0000139\b|\bSTATUS_ENTRYPOINT_NOT_FOUND\b|"
            # (127: the dynamic loader could not find a shared library the program needs, or the program itself, as a
            # parent reports the end of a process it ran directly: Ollama's "llama runner process has terminated: exit
            # status 127"; the loader's own words, "error while loading shared libraries")
            r"\bexit status 127\b|\berror while loading shared libraries\b|"
            # (the dynamic linker resolving a function at run time that the library it loaded lacks, a library from
            # another build: "llama-server: symbol lookup error: .../libggml.so: undefined symbol: _Z26ggml_...")
            r"\bsymbol lookup error: [^\n]{0,300}?undefined symbol\b|"
            # (ggml's back ends loaded as libraries at run time, GGML_BACKEND_DL: none of the CPU's found, "make_cpu_buft_list:
            # no CPU backend found", "no backends are loaded. hint: use ggml_backend_load() or ggml_backend_load_all()")
            r"\bno CPU backend found\b|\bno backends are loaded\b|"
            # (an SDK's own words that a back end's plugin would not load: Nexa's "SDKError(Plugin loading failed)")
            r"\b(?:Plugin|Backend|backend plugin) (?:loading|load) failed\b(?![^\n]{0,40}(?:allocate|memory))|"
            r"\bfailed to load (?:the )?(?:\w+ )?plugin\b(?![^\n]{0,40}(?:allocate|memory))|"
            r"\bno longer running: (?:3221225781|3221225785|-1073741515|-1073741511)\b|" + ended_by("3221225781") + "|"
            + ended_by("3221225785") + "|" + ended_by("-1073741515") + "|" + ended_by("-1073741511"),
            "not_oom", code="library-load-failed"),
        # Windows' STATUS_ACCESS_DENIED as a process's end reports it ("llama runner process has terminated: exit
        # status 0xc0000022", in decimal 3221225506 or -1073741790)
        # (and a POSIX exec the system refused: Go's os/exec "fork/exec /tmp/ollama312/runners/cpu_avx2/
        # ollama_llama_server: permission denied", a temporary directory mounted noexec)
        msg(r"\bexit status 0xc0000022\b|\bSTATUS_ACCESS_DENIED\b|" + ended_by("3221225506") + "|"
            + ended_by("-1073741790") + r"|\bfork/exec [^:\n]{1,400}: permission denied\b|\bmay have noexec set\b",
            "not_oom", code="access-denied"),
        # rocBLAS without kernels for this GPU's architecture (a ROCm build that left out gfx906 and the like: "rocBLAS
        # error: Cannot read .../TensileLibrary.dat: No such file or directory for GPU arch : gfx906"): as CUDA's
        # "no kernel image", a build for another GPU
        msg(r"rocBLAS error: Cannot read \S*TensileLibrary|No such file or directory for GPU arch\b|"
            r"rocBLAS error: Could not initialize Tensile host|"
            # (... and HIP's runtime without a kernel's code object for this GPU, hipamd's hip_global.cpp: "Cannot find
            # Symbol with name: _ZN7ck_tile...", hipErrorNoBinaryForGpu's cousin, before the abort it causes)
            r"\bhip_global\.cpp:\d+ [^\n]{0,60}Cannot find Symbol with name\b", "not_oom", code="cuda-no-kernel-image"),
        # a kernel launch this device cannot run (SYCL's exception on a work-group past the device's limits, printed
        # just above ggml-sycl's "Exception caught at file:...": "The number of work-items in each dimension of a
        # work-group cannot exceed {512, 512, 512} for this device"): a kernel's configuration, not memory
        msg(r"\bwork-items in each dimension of a work-group cannot exceed\b|\bTotal number of work-items in a "
            r"work-group cannot exceed\b", "not_oom", code="kernel-config-unsupported"),
        # a supervisor (Ray Serve, KServe, Kubernetes) gave up on a replica that stopped answering its health
        # check: the server hung or was too busy to answer, which by itself is not memory running out
        msg(r"Didn't receive health check response|marking it unhealthy|[Ll]iveness probe failed|"
            r"health check (?:failed|timed out)", "not_oom", code="health-check-failed"),
        # ... or a platform that stops a container still starting past its limit (Modal's "Runner has been
        # initializing for too long: 300 seconds"): the load took longer than allowed, not memory
        msg(r"\bRunner has been initializing for too long\b", "not_oom", code="load-timeout"),
        # a batch scheduler ending the job: at its wall-clock limit (Slurm's slurmstepd req.c/step_terminate_monitor
        # "*** JOB 4412 ON node12 CANCELLED AT 2025-05-30T11:00:01 DUE TO TIME LIMIT ***", "*** STEP 4412.0 CANCELLED
        # AT ... DUE TO TIME LIMIT ***"; PBS's "=>> PBS: job killed: walltime 7213 exceeded limit 7200"; LSF's
        # "TERM_RUNLIMIT: job killed after reaching LSF run time limit."), or at a cancel or a preemption (scancel's
        # "*** JOB 4412 ON node12 CANCELLED AT ... ***", "... DUE TO PREEMPTION ***"; LSF's "TERM_OWNER: job killed by
        # owner.", "TERM_PREEMPT: job killed after preemption."): the scheduler's stop, not the program's failure
        msg(r"\*\*\* (?:JOB|STEP) [\w.+-]+ (?:ON \S+ )?CANCELLED AT \S+ DUE TO TIME LIMIT\b|=>> PBS: job killed: walltime "
            r"\d+ exceeded limit\b|\bTERM_RUNLIMIT: job killed after reaching LSF run time limit\b", "not_oom",
            code="job-time-limit", flags=0),
        msg(r"\*\*\* (?:JOB|STEP) [\w.+-]+ (?:ON \S+ )?CANCELLED AT \S+(?: DUE TO PREEMPTION)? \*\*\*|"
            r"\bTERM_(?:OWNER: job killed by owner|PREEMPT: job killed after preemption)\b", "not_oom",
            code="job-cancelled", flags=0),
        # ... or a node that failed under it (Slurm's "*** JOB 4412 ON node12 CANCELLED AT ... DUE TO NODE FAILURE, SEE
        # SLURMCTLD LOG FOR DETAILS ***"): the machine or its daemon failed, not memory
        msg(r"\*\*\* (?:JOB|STEP) [\w.+-]+ (?:ON \S+ )?CANCELLED AT \S+ DUE TO NODE FAILURE\b", "not_oom",
            code="node-failure", flags=0),
        # Ray ending an actor that nothing refers to any more (src/ray/core_worker: "The actor is dead because all
        # references to the actor were removed", as its RayActorError and its core worker's "Force kill actor request"
        # print it): the handle went out of scope or its owner was torn down, not memory (Ray's memory monitor says
        # "killed due to the node running low on memory")
        msg(r"\bThe actor is dead because all references to the actor were removed\b", "not_oom",
            code="ray-actor-released"),
        # LightLLM's model worker whose model could not be built (server/router/model_infer/model_rpc.py init_model:
        # "load model error: {e}" around the model's constructor, which loads the weights and then makes the KV pool
        # of --max_total_token_num tokens, mem_manager): an out-of-memory there is either ledger
        msg(r"\bload model error: (?=[^\n]{0,80}?(?:out of memory|OutOfMemoryError|\bOOM\b))", "oom",
            candidates=("WEIGHTS", "KV")),
        # PyTorch's sampler given probabilities that are not numbers (torch.multinomial: "probability tensor contains
        # either `inf`, `nan` or element < 0"): the model's logits went wrong (fp16 overflow, a kernel, a quantisation)
        msg(r"probability tensor contains either [`'\x22]?inf[`'\x22]?, [`'\x22]?nan[`'\x22]? or element < 0", "not_oom",
            code="nan-in-logits"),
        # ggml's check that a back end's buffer has memory behind it (ggml-backend.c ggml_backend_buffer_get_base:
        # GGML_ASSERT(base != NULL && "backend buffer base cannot be NULL")): the buffer's allocation came back empty,
        # memory that ran out in the step under way (older SYCL and Vulkan back ends returned NULL rather than failing)
        msg(r"\bbackend buffer base cannot be NULL\b", "oom"),
        # a test harness's comparison of numbers (PyTorch's assert_close in a pytest run: "AssertionError: Scalars are
        # not close!", "Tensor-likes are not close!"): a result that differs, not memory
        msg(r"\b(?:Scalars|Tensor-likes) are not (?:close|equal)!", "not_oom", code="assertion-failed"),
        # Ray placing a worker where no GPU is ("Ray does not allocate any GPUs on the driver node. Consider adjusting
        # the Ray placement group ..."): a cluster's placement, not memory
        msg(r"\bRay does not allocate any GPUs on the driver node\b", "not_oom", code="error-not-memory"),
        # a client that went through a proxy it could not reach (urllib3's "Max retries exceeded with url: ... (Caused by
        # ProxyError('Unable to connect to proxy', ...))"): a proxy set in the environment (http_proxy) in the way of a
        # local server, the cause named; not the server
        msg(r"\bCaused by ProxyError\('(?:Unable to connect to proxy|Cannot connect to proxy)", "not_oom",
            code="communication-error"),
        # Ray retrying a task whose actor was restarted ("Task ServeController.listen_for_change failed. There are
        # infinite retries remaining, so the task will be retried. Error: The actor is temporarily unavailable"): Ray
        # goes on, no failure of its own (nor a retry of the failure above it: another task's); what ended the actor
        # (an OOM kill above it) decides
        msg(r"\bretries remaining, so the task will be retried\b", "note", code="task-retried"),
        # a program's own words that it goes on past the error it prints (huggingface_hub's file_download.py: "Could
        # not cache non-existence of file. Will ignore error and continue. Error: [Errno 30] Read-only file system")
        msg(r"\b[Ww]ill ignore (?:the |this )?error and continue\b|\b[Ii]gnoring (?:the |this )?error and continuing\b",
            "note", code="error-ignored"),
        # CUDA touched in a process forked after CUDA started (torch/cuda/__init__.py _lazy_init: "Cannot re-initialize
        # CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method"): a
        # process start method, not memory
        msg(r"\bCannot re-initialize CUDA in forked subprocess\b", "not_oom", code="error-not-memory"),
        # an out of memory the report calls false, the memory free ("any attempt to allocate a tensor on XPU fails with
        # a false `OutOfMemoryError` — even though the GPU reports 11.33 GiB free", "spurious OOM errors"): the
        # runtime's or the accounting's fault, not memory running out
        # (not denied, "This is not a false OOM", nor asked, "Is this a false OOM?")
        msg(r"(?<!\bnot a )(?<!n't a )(?<!\bno )(?<!\bnot )\b(?:false|spurious|bogus|phantom)\s+[`'\x22*]{0,2}(?:CUDA\s+|GPU\s+|"
            r"torch\.)?(?:OOMs?\b|OutOfMemoryError\b|out[- ]of[- ]memory\b)(?![^.!\n]*\?)", "not_oom",
            code="error-not-memory"),
        # a C++ exception nobody caught, as Windows reports it (its code 0xE06D7363, "Windows Error 0xe06d7363", or the
        # same as a signed number, "[WinError -529697949]", under llama-cpp-python's ctypes call): it failed, and the
        # exception's own type and message are not shown (a failed allocation, std::bad_alloc, among them)
        msg(r"\b0xe06d7363\b|\[WinError -529697949\]", "wrapper"),
        # ... nor where the cluster has fewer GPUs free than the engine's ranks ask (vLLM's data-parallel start over
        # Ray, v1/engine/utils.py: "Not enough resources to allocate 2 placement groups, only created 1 placement
        # groups";
        # its Ray executor's "The number of required GPUs exceeds the total number of available GPUs in the placement
        # group"): GPUs counted, not memory (a node with none at all is cuda-driver-error)
        msg(r"\bNot enough resources to allocate \d+ placement groups?\b|"
            r"\bThe number of required GPUs exceeds the total number of available GPUs in the placement group\b|"
            # (Ray Serve's controller that cannot place a replica, deployment_state.py: "Deployment 'VLLMDeployment:x'
            # in application 'ray-llm' 1 replicas that have taken more than 30s to be scheduled. ... Resources required
            # for each replica: [...], total resources available: {}."; not "... to initialize", a slow start)
            r"\breplicas? that (?:have|has) taken more than \d+s to be scheduled\b",
            "not_oom", code="error-not-memory"),
        # a client's view of a server that stopped answering mid-response (aiohttp's "ClientPayloadError: Response
        # payload is not completed", "ServerDisconnectedError: Server disconnected", httpx's "RemoteProtocolError: peer
        # closed connection without sending complete message body"): the server failed; its cause is in its own log
        # (and http.client's, under requests: "('Connection aborted.', RemoteDisconnected('Remote end closed connection
        # without response'))", the server gone before it answered)
        msg(r"\bResponse payload is not completed\b|\bServerDisconnectedError\b|\bpeer closed connection without "
            r"sending complete message body\b|\bRemoteDisconnected\(\W{0,2}Remote end closed connection without response\b",
            "wrapper"),
        # a desktop app's dialog for its server process that died (Jan's "LLAMA_CPP_PROCESS_ERROR" / "The model process
        # encountered an unexpected error."): it failed; the cause is in the server's own lines, if the details show
        # them
        msg(r"\bLLAMA_CPP_PROCESS_ERROR\b|\bThe model process encountered an unexpected error\b", "wrapper"),
        # ... or a program's error with its message empty, alone on its line (click's and many CLIs' "Error: " where the
        # exception's text was empty: `llm -m l2c 'Tell me a joke'` printing only "Error: "): it failed, and why is not
        # shown
        msg(r"^\s*(?:Error|ERROR):\s*$", "wrapper"),
        # ... or a client that gave up waiting (openai's APITimeoutError "Request timed out.", httpx's and requests'
        # ReadTimeout): a server too slow for the client's timeout, its own lines say why (a full KV pool retracting,
        # a queue), not a failure of its own
        msg(r"\b(?:openai\.)?APITimeoutError\b|\bhttpx\.(?:ReadTimeout|ConnectTimeout|PoolTimeout)\b|"
            r"\brequests\.exceptions\.(?:ReadTimeout|ConnectTimeout)\b|\bServerTimeoutError\b", "wrapper"),
        # ... or a client that could not reach a server on this machine at all (requests' "HTTPConnectionPool(host=
        # '0.0.0.0', port=8000): Max retries exceeded with url: /health/ (Caused by NewConnectionError(... Connection
        # refused", httpx's "ConnectError: [Errno 111] Connection refused", Node's "connect ECONNREFUSED 127.0.0.1:8000"):
        # that server failed or never started; its own lines say why
        # (not one a proxy in the way refused, "(Caused by ProxyError('Unable to connect to proxy'))": that is its cause)
        msg(r"\bHTTPS?ConnectionPool\(host='(?:localhost|127\.[\d.]+|0\.0\.0\.0|\[?::1\]?)', port=\d+\): Max retries exceeded"
            r"(?![^\n]*\bProxyError\b)|"
            r"\bconnect ECONNREFUSED (?:127\.[\d.]+|0\.0\.0\.0|::1|localhost):\d+|"
            # (aiohttp's ClientConnectorError: "Cannot connect to host 127.0.0.1:8877 ssl:default [Connect call
            # failed ...]")
            r"\bCannot connect to host (?:127\.[\d.]+|0\.0\.0\.0|localhost|\[?::1\]?):\d+ ssl:|"
            r"\b(?:httpx\.)?ConnectError: (?:\[Errno 111\] )?(?:Connection refused|All connection attempts failed)|"
            # (curl's own: "curl: (7) Failed to connect to localhost port 8000 after 0 ms: Connection refused", "curl: (7)
            # Failed connect to 127.0.0.1:8080; Connection refused", "curl: (56) Recv failure: Connection reset by peer")
            # (and the rest of curl's for a server that failed or went away mid-answer, its exit codes 18, 22 (with
            # --fail, a 5xx), 28 and 56: "curl: (18) transfer closed with outstanding read data remaining", "curl: (22)
            # The requested URL returned error: 500", "curl: (28) Operation timed out after 300001 ms with 0 bytes
            # received", "curl: (56) Recv failure: Connection reset by peer")
            r"\bcurl: \((?:7|52|56)\) (?:Failed to connect to|Failed connect to|Empty reply from server|Recv failure: "
            r"Connection reset by peer)|\bcurl: \(18\) transfer closed with (?:outstanding read data remaining|\d+ bytes? "
            r"remaining to read)|\bcurl: \(22\) The requested URL returned error: 5\d\d\b|\bcurl: \(28\) (?:Operation|"
            r"Connection) timed out after \d+ milliseconds?|\bcurl: \(28\) Operation timed out after \d+ ms\b|"
            # (openai's client, "APIConnectionError: Connection error.", and as an application relays it, RAGFlow's
            # "**ERROR**: CONNECTION_ERROR - Connection error." or its timeout, "**ERROR**: Request timed out.")
            r"\bAPIConnectionError: Connection error\b|\bCONNECTION_ERROR - Connection error\b|"
            r"\*\*ERROR\*\*:\s*(?:Request timed out|Connection error)\b", "wrapper"),
        # (a FastChat model worker registering with its controller at start, fastchat/serve/model_worker.py
        # register_to_controller: "HTTPConnectionPool(host='localhost', port=21001): Max retries exceeded with url:
        # /register_worker": the controller, a process of its own, is not running or not at that address; the worker
        # loads its model only after it registers)
        msg(r"\bMax retries exceeded with url: /(?:register_worker|"
            r"receive_heart_beat|list_models|get_worker_address|refresh_all_workers)\b", "not_oom",
            code="communication-error"),
        # a launcher's words that its workers failed, their own log elsewhere (FastDeploy's engine.py: "Failed to
        # launch worker processes, check log/workerlog.* for more details."); and a process signalled after it had
        # already gone, as the launcher cleans up ("ProcessLookupError: [Errno 3] No such process"): no cause
        msg(r"\bFailed to launch worker processes?\b|\bProcessLookupError: \[Errno 3\] No such process\b", "wrapper"),
        # ... or a launcher whose server's output ended before the server said it was ready (Unsloth's vLLM
        # launcher: "Stdout stream ended before readiness message detected."; "the server process exited before it
        # became ready"): the server died starting, its own lines above say why, if any do
        msg(r"\bstream ended before (?:the )?(?:readiness|ready) message\b|\b(?:server )?process (?:exited|died|"
            r"terminated) before (?:it )?(?:became|becoming|was|being) ready\b", "wrapper"),
        # torch.distributed.elastic's agent (torchrun) stopping the other workers because one failed
        # (multiprocessing/api.py _close: "Sending process 148594 closing signal SIGTERM"; "failed (exitcode: 1)
        # local_rank: 0 (pid: 123) of binary: ..."): the failed worker's own lines say why
        msg(r"\bSending process \d+ closing signal SIG(?:TERM|INT)\b|\bfailed \(exitcode: (?:[1-9]\d*|-(?!9\b)\d+)\) "
            r"local_rank: \d+", "wrapper"),
        # the server's port is taken by another process: a named cause, not memory
        msg(r"address already in use|\bEADDRINUSE\b|Only one usage of each socket address|port is already allocated|"
            # (Windows' WSAEADDRINUSE in Chinese: "bind：通常每个套接字地址(协议/网络地址/端口)只允许使用一次。")
            r"每个套接字地址[^。\n]{0,24}?(?:只允许)?使用一次",
            "not_oom", code="port-in-use"),
        # oneAPI's Unified Runtime (SYCL on Intel GPUs: llama.cpp's ggml-sycl, IPEX) names its results ur_result_t
        # (unified-runtime include/ur_api.h): only UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY and ..._OUT_OF_HOST_MEMORY are
        # memory running out (OOM_WORDS); the others (..._OUT_OF_RESOURCES, ..._INVALID_*, ..._DEVICE_LOST, ...) name a
        # cause that is not
        # (and its predecessor, the Plugin Interface of DPC++ before 2024: pi_result, "PI_ERROR_INVALID_VALUE", the
        # unknown result -999 printed "-999 (Unknown PI error)"; again only ..._OUT_OF_*_MEMORY is memory)
        # (..._OUT_OF_RESOURCES has a code of its own: an engine may know it as maybe memory, LogWords.maybe_memory)
        msg(r"\b(?:UR_RESULT_ERROR|PI_ERROR)_OUT_OF_RESOURCES\b", "not_oom", code="sycl-out-of-resources", flags=0),
        # (but the unknown result, -999 "Unknown PI error", UR_RESULT_ERROR_UNKNOWN, names nothing: Level Zero's
        # catch-all, which on Intel GPUs an allocation past the device's memory or its 4 GiB single-allocation limit
        # gives as well as a lost device: maybe memory, `logs.diagnose._MAYBE_MEMORY`)
        msg(r"\bUR_RESULT_ERROR_UNKNOWN\b|\bUnknown PI error\b", "not_oom", code="sycl-unknown-error", flags=0),
        msg(r"\bUR_RESULT_ERROR_(?!OUT_OF_(?:DEVICE|HOST)_MEMORY\b|OUT_OF_RESOURCES\b|UNKNOWN\b)[A-Z_]+|"
            r"\bPI_ERROR_(?!OUT_OF_(?:DEVICE|HOST)_MEMORY\b|OUT_OF_RESOURCES\b)[A-Z_]+", "not_oom",
            code="sycl-runtime-error", flags=0),
        # a kernel asked for more on-chip shared memory than the GPU has (Triton): a kernel limit, not GPU memory
        # (... and TensorRT-LLM's masked multi-head attention kernel for a sequence longer than its shared memory holds:
        # decoderMaskedMultiheadAttentionLaunch.h, "Sequence Length is too long for the MMHA kernel (not enough shared
        # memory)")
        # (and TVM's / MLC LLM's kernel launch that asks for more shared memory than the GPU allows a block:
        # "Failed to set the allowed dynamic shared memory size to 73728", cudaFuncSetAttribute)
        msg(r"OutOfResources|out of resource: shared memory|\btoo long for the MMHA kernel\b|"
            r"\(not enough shared memory\)|\bFailed to set the allowed dynamic shared memory size\b", "not_oom",
            code="kernel-shared-memory"),
        # a kernel that could not be compiled (Triton's compiler/errors.py: CompilationError, MLIRCompilationError from a
        # backend's pipeline, "triton.compiler.errors.MLIRCompilationError: ... Failed to run BiShengHIR pipeline" on
        # Ascend; TorchInductor's "torch._inductor.exc.InductorError: ... CompilationError"): the compiler failed on
        # this shape, not memory running out (a larger batch token budget can change the kernels compiled)
        # (and MLIR's own words for a pass pipeline that failed, as Triton's compile_ir raises them: "RuntimeError:
        # PassManager::run failed")
        msg(r"\btriton\.compiler\.errors\.(?:MLIR)?CompilationError\b|^\s*(?:\w+\.)*MLIRCompilationError\b|"
            r"\bFailed to run BiShengHIR pipeline\b|\bPassManager::run failed\b", "not_oom", code="kernel-compile-error"),
        # Ascend's CANN runtime refusing a call's argument (its error code EE1001, "The argument is invalid.Reason: Memory
        # async failed, src loc type=1, dst loc type=1, kind=1 is invalid!"): a bad call, whatever the words "Memory"
        # in its reason; the CANN error code table: EE1001 is an invalid argument, not an allocation
        msg(r"\bEE1001\b|\bThe argument is invalid\.\s?Reason:", "not_oom", code="npu-invalid-argument", flags=0),
        # an Ascend Transformer Boost operator that refused its inputs at setup (torch_npu's ATB ops:
        # "ReshapeAndCacheOperation setup failed!", "PagedAttentionOperation setup failed!"): a data type or shape it
        # does not take on this NPU (an fp8 KV cache on a 310P), before any memory is asked for
        msg(r"\b[A-Z]\w*Operation setup failed\b", "not_oom", code="npu-operator-setup-failed", flags=0),
        # the driver, not memory: "unsupported display driver / cuda driver combination", "driver version is
        # insufficient", "no CUDA-capable device"
        msg(r"unsupported display driver|cuda driver combination|driver version is insufficient|"
            # (not the reason a pinned host buffer was refused, "ggml_cuda_host_malloc: failed to allocate 2.00 MiB of
            # pinned memory: no CUDA-capable device is detected": llama.cpp warns and goes on with pageable memory)
            r"(?<!of pinned memory: )no CUDA-capable device|forward compatibility was attempted|"
            r"Driver/library version mismatch|"
            r"Failed to initialize NVML|"
            # (a container started with `--gpus` where no runtime gives GPUs: docker's "could not select device driver
            # \"\" with capabilities: [[gpu]]", the NVIDIA Container Toolkit missing)
            r"\bcould not select device driver \S* with capabilities: \[\[gpu\]\]|"
            # (ROCm's: hipErrorNoDevice, "no ROCm-capable device is detected")
            r"no ROCm-capable device|\bhipErrorNoDevice\b|"
            # ggml's CUDA back end that could not start the runtime (ggml-cuda.cu ggml_cuda_init: "failed to initialize
            # CUDA: unknown error", a missing nvidia_uvm module; llama.cpp then runs on the CPU)
            r"\bggml_cuda_init: failed to initialize CUDA\b|"
            # ... or no GPU visible to the process at all (PyTorch's torch/cuda/__init__.py "No CUDA GPUs are
            # available", "Found no NVIDIA driver on your system"; vLLM's platform detection "Failed to infer device
            # type"; vLLM's Ray executor "Current node has no GPU available. current_node_resource={...}"): a container
            # started without its GPUs, CUDA_VISIBLE_DEVICES, a Ray node without GPU resources
            r"\bNo CUDA GPUs are available\b|\bFound no NVIDIA driver on your system\b|\bFailed to infer device type\b|"
            r"\bCurrent node has no GPU available\b|"
            # (vLLM's platform detection finding none, at INFO, before whatever fails for it: "No platform detected,
            # vLLM is running on UnspecifiedPlatform", vllm/platforms/__init__.py)
            r"\bNo platform detected, vLLM is running on UnspecifiedPlatform\b|"
            # (ipex-llm's llama.cpp on SYCL finding no Level Zero GPU: "llama_model_load: can not find preferred GPU
            # platform")
            r"\bcan ?not find preferred GPU platform\b|"
            # (a Jetson's Tegra memory manager the process may not open, /dev/nvmap without the video group or a
            # container's device: "NvRmMemInitNvmap failed with Permission denied", "****NvRmMemInit failed****": CUDA
            # sees no GPU, and Ollama or llama.cpp then runs on the CPU)
            r"\bNvRmMemInit(?:Nvmap)? failed\b", "not_oom", code="cuda-driver-error"),
        # the build has no code for this GPU's architecture (CUDA's cudaErrorNoKernelImageForDevice, HIP's
        # hipErrorNoBinaryForGpu)
        msg(r"no kernel image is available|hipErrorNoBinaryForGpu|Unable to find code object for all current devices|"
            r"has no device code compatible with CUDA arch|"
            # (PyTorch's own check of the GPU against the architectures its wheel was built for, torch/cuda/__init__.py
            # _check_capability: "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current
            # PyTorch installation."; SYCL's runtime finding no kernel built for the device, "No kernel named
            # _ZTSZZL17rms_norm_f32_sycl... was found")
            r"^(?![^\n]*\bUserWarning: )[^\n]*?\bwith CUDA capability sm_\d+ is not compatible with the current PyTorch "
            r"installation\b|"
            r"\bNo kernel named \w{6,}",
            "not_oom", code="cuda-no-kernel-image"),
        # CUDA could not load a kernel's module (cudaErrorSharedObjectInitFailed, "shared object initialization
        # failed"): with lazy module loading (CUDA_MODULE_LOADING=LAZY, CUDA 11.7+, the default from 12.2) a module is
        # loaded at its kernel's first launch and takes device memory, so a full GPU fails this way; read apart by
        # logs.diagnose, which says so rather than "not memory"
        msg(r"\bshared object initialization failed\b|\bcudaErrorSharedObjectInitFailed\b|"
            r"\bCUDA_ERROR_SHARED_OBJECT_INIT_FAILED\b", "not_oom", code="cuda-module-load-failed"),
        # PyTorch's dispatcher found no kernel of an operator for this device (c10/core/dispatch/Dispatcher.cpp
        # reportError: "Could not run 'sgl_kernel::rmsnorm' with arguments from the 'CUDA' backend."): a kernel
        # package built for another PyTorch, CUDA or GPU, or an operator never registered for it
        msg(r"\bCould not run '[\w:.]{1,120}' with arguments from the '\w{1,40}' backend", "not_oom",
            code="operator-not-available"),
        # a device index past the GPUs this process can see (cudaErrorInvalidDevice, "invalid device ordinal"; HIP's
        # hipErrorInvalidDevice): more ranks than visible GPUs (tensor x pipeline parallel x nodes), or a
        # CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES / container that shows fewer; a set-up, not memory
        msg(r"\binvalid device ordinal\b|\bhipErrorInvalidDevice\b|\bcudaErrorInvalidDevice\b|"
            r"\bCUDA_ERROR_INVALID_DEVICE\b", "not_oom", code="invalid-device-ordinal"),
        # any other CUDA/HIP runtime error string (cudaGetErrorString) that is not out-of-memory, under whatever
        # prefix prints it ("CUDA error: ...", "Failed: Cuda error FILE:LINE '...'", "CUDA runtime error in ...")
        # (and MUSA's, Moore Threads' CUDA-compatible runtime, as ggml's CUDA back end built for it prints it: "MUSA
        # error: operation not supported")
        msg(r"(?:CUDA|HIP|ROCm|MUSA)\w*[ _](?:runtime |driver )?(?:error|failure)\b.{0,300}?(?:" + CUDA_ERRORS + ")",
            "not_oom", code="cuda-error"),
        # the same strings after a source location: vLLM's CUDACHECK "Failed: Cuda error FILE:LINE 'STRING'", also
        # re-logged by a wrapper without its prefix ("VLLM: Failed: /workspace/csrc/custom_all_reduce.cuh:368
        # 'invalid argument'")
        # (also with a space for the colon, as TensorRT-LLM's kernels print it: "tinygemm2_cuda.cu 64 - invalid argument")
        # (in the runtime's own lower case: not a status of another library's after its source location, Triton's
        # "model_repository_manager.cc:703] \"Invalid argument: ensemble ... depends on ...")
        msg(r"\.(?:cuh?|cpp|cc|hpp?)(?::|\s+)\d+\W{1,3}(?-i:" + CUDA_ERRORS + ")", "not_oom", code="cuda-error"),
        # ... and a CUDA error's whole text, distinctive without a prefix ("\"peer access is not supported between
        # these two devices\" when using multiple GPUs", a report's title over a bare stack)
        msg(r"\bpeer access is not supported between these two devices\b", "not_oom", code="cuda-error"),
        # an assertion in ggml's code (a shape or type it does not support): a bug or an unsupported model; one
        # about a buffer or a memory pool may be memory, so it is left to the words around it
        # ... and ggml-alloc's own fixed list of free blocks overflowing (2023's ggml-alloc.c "GGML_ASSERT: ...: alloc->
        # n_free_blocks < MAX_FREE_BLOCKS && \"out of free blocks\""): a limit of its bookkeeping, not memory
        # (and the scheduler's own fixed limit of inputs to one split of the graph, ggml-backend.c "GGML_ASSERT(n_inputs <
        # GGML_SCHED_MAX_SPLIT_INPUTS)", named by a report's title alone: "Gemma 4 edge models fail to load, n_inputs <
        # GGML_SCHED_MAX_SPLIT_INPUTS")
        # (and the graph allocator finding a tensor with no buffer assigned, ggml-alloc.c ggml_gallocr_init_tensor /
        # ggml_gallocr_allocate_node: "GGML_ASSERT(talloc->buffer_id >= 0) failed": the graph run is not the graph it
        # reserved for, a bug of the caller's (Ollama 0.6's gemma3), not a buffer that could not be made, which fails
        # earlier with "failed to allocate ... buffer")
        # (and a tensor given a buffer that already has one, ggml-backend.cpp ggml_backend_tensor_alloc: "GGML_ASSERT(
        # tensor->buffer == NULL) failed": allocated twice, a bug; the opposite check, "!= NULL", is the one a failed
        # allocation breaks)
        msg(r"n_free_blocks < MAX_FREE_BLOCKS|\x22out of free blocks\x22|\bn_inputs < GGML_SCHED_MAX_SPLIT_INPUTS\b|"
            r"GGML_ASSERT\(talloc->buffer_id >= 0\)|GGML_ASSERT\([\w>.-]{0,60}\bbuffer == (?:NULL|nullptr)\)", "not_oom",
            code="ggml-assert"),
        # (its older form names the source file by its path, which may hold spaces on Windows: "GGML_ASSERT:
        # C:\\Users\\me\\Random projects\\llama.cpp\\ggml-opencl.cpp:1726: to_fp32_cl != nullptr")
        msg(r"GGML_ASSERT\((?!.*(?:" + MEMORY_TERMS + r")).*\) failed|GGML_ASSERT: [^\n]{1,300}?:\d+: (?!.*(?:"
            + MEMORY_TERMS + r"))\S|"
            # ... as a report names the assert that failed, by its source line ("crash on failed assert
            # GGML_ASSERT(max_blocks_per_sm > 0);")
            # (or "... failing to load with assert GGML_ASSERT(kv_size % n_pad == 0)")
            r"\b(?:(?:failed|failing)|(?:fail(?:s|ed|ing)?|crash(?:es|ed|ing)?|abort(?:s|ed|ing)?)\b[^\n]{0,40}?\bwith)"
            r" (?:an? |the )?assert(?:ion)?\W{1,8}GGML_ASSERT\((?!.*(?:" + MEMORY_TERMS + r")).*\)|"
            # ... or as a report's title names it, the assert and when it comes ("Eval bug: GGML_ASSERT(id >= 0 && id
            # < n_expert) when running GPT-OSS 20B")
            r"^[^\n]{0,40}?\bGGML_ASSERT\((?![^\n]*(?:" + MEMORY_TERMS + r"))[^\n]{1,200}?\)\s+(?:when|while|with|on|in|after|"
            r"during)\s|"
            # (a check of a tensor's layout, whatever its name holds: "GGML_ASSERT(ggml_is_contiguously_allocated(K))
            # failed", fattn-common.cuh: a kernel given a view it does not take, not memory used up)
            r"GGML_ASSERT\(!?ggml_(?:is_contiguous\w*|are_same_shape|is_transposed|is_permuted)\(\w+\)\) failed",
            "not_oom", code="ggml-assert"),
        # an engine's own check that what it allocated or needs stays under what the device has (PowerInfer's
        # llama.cpp: "GGML_ASSERT: llama.cpp:3107: vram_allocated_bytes < vram_capacity"; "Check failed: used_bytes <=
        # budget_bytes"): the check failing is memory running out, in whichever step made it
        msg(r"(?:GGML_ASSERT\(|GGML_ASSERT: [^\n]{1,300}?:\d+: |Assertion [`'\u2018]|Check failed: \(?|\bassert\s*\(?|"
            r"^[\w./\\-]+\.(?:c|cc|cpp|cu|h|hpp):\d+: )\s*\w*(?:allocated|used|required|needed|requested)\w*\s*<=?\s*"
            r"\w*(?:capacity|limit|budget|free|avail\w*|total)\w*\b", "oom"),
        # C's assert() (glibc's "file.cpp:2686: void f(...): Assertion `count > 0' failed."), on a condition that
        # speaks of nothing memory is made of
        msg(r"^(?![^\n]*(?:malloc|_alloc|alloc_|ggml-alloc))[^\n]*?\bAssertion [`'\u2018](?![^`'\u2019\n]*(?:" + MEMORY_TERMS + r")|"
            r"(?:data|ptr|p|buf|ctx)['\u2019])[^`'\u2019\n]{1,300}['\u2019] failed|"
            # (the Microsoft C runtime's "Assertion failed: found, file F:\src\llama-sampler.cpp, line 1094", musl's
            # "Assertion failed: n > 0 (src/x.c: f: 12)")
            r"\bAssertion failed: (?![^\n]*(?:" + MEMORY_TERMS + r"|\bKV\b|kv_|\bcache\b|\bblocks?\b|_free|\bfree\b|"
            r"\bslots?\b|malloc|\bptr\b|nullptr|NULL|Assertion failed: (?:data|p|buf|ctx)\b))[^\n]{1,300}?"
            r"(?:, file [^\n]{1,400}?, line \d+|\s\([^():\n]{1,300}: \w+: \d+\))",
            "not_oom", code="assertion-failed"),
        # a crash by a bad pointer (Windows "exception: access violation", POSIX SIGSEGV): not memory running out
        # (the shell's and a container's exit status 139 is 128 + SIGSEGV's 11)
        # (also the shell's and libc's words in other locales: zh_CN "段错误 (核心已转储)", de "Speicherzugriffsfehler",
        # fr "Erreur de segmentation", es "Violación de segmento", ja "セグメンテーション違反", ru "Ошибка сегментирования")
        # (and in a report's words, "I get a segfault", "it segfaults", "crashes with a segfault")
        msg(r"exception: access violation|Segmentation fault|\bSIGSEGV\b|segfault at |段错误|Speicherzugriffsfehler|"
            r"\b(?:an?|with|get|got|gets|getting|hit|hits) segfault\b(?![ -](?:handler|handling|hook|catcher|trap)s?\b)|"
            r"\b(?:it|that|which|then|and|still|also|just|always|sometimes|randomly) segfault(?:s|ed)\b|"
            r"Erreur de segmentation|Violaci[oó]n de segmento|セグメンテーション違反|Ошибка сегментирования|"
            r"\bexit(?:s|ed)?(?: with)?(?: ?(?:status|code))?[\x22' :=]*139\b|\bExited \(139\)|\bstatus code:? 139\b|"
            r"\bstatus=11/SEGV\b|\bsignaled to shutdown with signal 11\b|"
            # (systemd-coredump's and coredumpctl info's record of the dump: "Signal: 11 (SEGV)")
            r"^\s*Signal: 11 \(SEGV\)|"
            # (Triton Inference Server's own signal handler: "Signal (11) received.", then its backtrace)
            r"^\s*Signal \(11\) received\.?\s*$|"
            # (Windows' NTSTATUS for it, as Go's os/exec prints a process's end: "exit status 0xc0000005")
            r"\bexit status 0xc0000005\b|\bSTATUS_ACCESS_VIOLATION\b|" + ended_by("-11") + "|" + ended_by("-1073741819") + "|"
            + ended_by("3221225477") + r"|\(0xC0000005\)|"
            # (in a report's words: "crash (Exception 0xc0000005)", "crashes with an access violation")
            r"\bException 0xC0000005\b|\b(?:crash(?:es|ed)?|fails?|failed|dies|died|aborts?) with an? access violation\b|"
            # (a Windows crash handler's own line, as Lemonade prints its llama-server's end: "Exception Code:
            # 0xC0000005")
            r"\bException Code: 0x[Cc]0000005\b|"
            # (Go's runtime, Ollama's runner: "invalid memory address or nil pointer dereference", "[signal
            # 0xc0000005 code=0x0 addr=0x0 pc=...]" on Windows, "[signal SIGSEGV: segmentation violation ...]")
            r"\binvalid memory address or nil pointer dereference\b|\[signal 0xc0000005\b|"
            # (.NET's, a C# host of llama.cpp such as LLamaSharp: "Fatal error: System.AccessViolationException:
            # Attempted to read or write protected memory. This is often an indication that other memory is corrupt.")
            r"\bSystem\.AccessViolationException\b|\bAttempted to read or write protected memory\b",
            "not_oom",
            code="crash-access-violation"),
        # the back end could not read the device's memory size (llama.cpp's SYCL "[ggml_backend_sycl_device_get_memory]
        # failed to get device memory size", a driver's query that fails): the driver or the build, not memory used up
        # (not a warning that goes on without it: "Failed to query device memory info, falling back")
        msg(r"\bfailed to (?:get|query|read) (?:the )?device(?:'s)? (?:free |total )?memory(?: size| info)?\b"
            r"(?![^\n]*\bfall(?:ing|s)? ?back\b)|"
            # (MLC LLM's: "Cannot read total GPU global memory from device", the device's query through TVM)
            r"\bCannot read total GPU global memory from device\b|"
            # (ROCm's runtime at AMD_LOG_LEVEL 1-3: "HSA_AMD_AGENT_INFO_MEMORY_AVAIL query failed.", then
            # "hipMemGetInfo: Returned hipErrorInvalidValue": the free-memory query itself failed, an old kernel driver
            # or a container without the KFD's memory info; torch.cuda.mem_get_info then raises)
            r"\bHSA_AMD_AGENT_INFO_MEMORY_AVAIL query failed\b|\bhipMemGetInfo: Returned hipError(?!Success\b)\w+|"
            # (PyTorch's XPU back end on an Intel GPU whose driver has no free-memory query, torch/xpu/memory.py
            # mem_get_info: "The device (Intel(R) Graphics [0x7d51]) doesn't support querying the available free
            # memory"; vLLM's xpu_worker sizes its pool from it)
            r"\bdoes(?:n't| not) support querying the available free memory\b",
            "not_oom", code="device-memory-query-failed"),
        # a crash's register dump (Go's runtime after a fatal signal in C code, "rax    0x90d000" ... "rip ..."; gdb's
        # "rip            0x7f..."): the process died by a signal, which the lines before it name if the log has them
        # (or Android's tombstone of a native crash in logcat, debuggerd's backtrace under its "F DEBUG" tag: "F DEBUG   :
        # #00 pc 000000000019000c  /data/app/.../librnllama.so", the signal line above it maybe not pasted)
        msg(r"(?:^|:\s)rip\s+0x[0-9a-f]+(?:\s+0x[0-9a-f]+)?(?:\s+<[^>\n]*>)?\s*$|(?:^|:\s)rax\s+0x[0-9a-f]+\s*$|"
            r"\bF DEBUG\s*:\s+#\d\d pc [0-9a-f]{8,16}\b",
            "error", code="native-crash", flags=0),
        # Windows' 0xc0000409 (STATUS_STACK_BUFFER_OVERRUN), also what the C runtime's abort() ends a process with by
        # __fastfail: an abort whose cause (an assertion, an uncaught exception) is in lines before it, not named here
        # (and SIGABRT, 6, as a parent reports it: "exit code -6")
        msg(r"\bexit status 0xc0000409\b|\bSTATUS_STACK_BUFFER_OVERRUN\b|" + ended_by("-6") + "|"
            + ended_by("-1073740791") + "|" + ended_by("3221226505") + "|" + ended_by("134")
            + r"|\binterrupted by signal 6\b|"
            # (Go's os/exec for a child ended by SIGABRT, as Ollama reports its runner's end: "llama runner process has
            # terminated: signal: aborted (core dumped)")
            r"\bsignal: aborted\b|^\s*Signal: 6 \(ABRT\)|"
            # (the shell's report of it: macOS's "Abort trap: 6", zsh's job line "zsh: abort      ./llama-server ...",
            # "[1]    4242 abort      ./main ...")
            r"\bAbort trap: 6\b|^\s*(?:zsh: |\[\d+\][+-]?\s+(?:\d+\s+)?)abort\s+\S", "wrapper"),
        # an instruction the CPU does not have (a build for AVX2 / AVX-512 on a CPU or a VM without it): SIGILL, 4, as
        # the shell ("Illegal instruction (core dumped)"), systemd ("status=4/ILL"), TGI's launcher ("signaled to
        # shutdown with signal 4") and an exit status of 132 (128 + 4) report it
        msg(r"\bIllegal instruction\b|\bSIGILL\b|\bstatus=4/ILL\b|^\s*Signal: 4 \(ILL\)|\bsignaled to shutdown with signal 4\b|"
            r"\bexit(?:s|ed)?(?: with)?(?: ?(?:status|code))?[\x22' :=]*132\b|\bExited \(132\)|"
            # (Windows: STATUS_ILLEGAL_INSTRUCTION, "exit status 0xc000001d")
            r"\bexit status 0xc000001d\b|\bSTATUS_ILLEGAL_INSTRUCTION\b|" + ended_by("-4") + "|"
            + ended_by("-1073741795"), "not_oom", code="illegal-instruction"),
        # llama.cpp's K-shift (a slot's context is full and its cache is shifted to go on) on a cache that cannot be
        # shifted: GGML_ABORT in llama-kv-cache.cpp ("Deepseek2 does not support K-shift" in b3500, "The current
        # context does not support K-shift", "The current KV cache / model configuration does not support K-shift"):
        # an unsupported operation, not memory
        msg(r"\bdoes not support K-shift\b|\bK-shift (?:is )?not supported\b", "not_oom", code="k-shift-unsupported"),
        # a kernel's check on tensor shapes (sgl-kernel's and FlashInfer's TORCH_CHECK / CHECK_EQ: "CHECK_EQ(input.size(0),
        # residual.size(0)) failed. 8 vs 32"; PyTorch's "shape mismatch: value tensor of shape [...] cannot be
        # broadcast"): a shape the code does not handle, not memory (a check on a buffer or a pool is left to the words
        # around it)
        msg(r"\bCHECK_(?:EQ|NE|LT|LE|GT|GE)\((?![^\n]*(?:" + MEMORY_TERMS + r"|workspace))[^\n]*?\b(?:size|shape|dim|"
            r"numel|stride)\w*\([^\n]*\) failed|\bshape mismatch: value tensor of shape\b", "not_oom", code="shape-mismatch"),
        # ... in MLX's, NumPy's and PyTorch's words for two shapes that do not fit together ("[broadcast_shapes] Shapes
        # (1,1,N,N) and (1,16,N,N+1024) cannot be broadcast.", "operands could not be broadcast together with shapes
        # (3,) (4,)", "The size of tensor a (1026) must match the size of tensor b (1027) at non-singleton dimension 3")
        msg(r"\bShapes? \([^()\n]{0,80}\) and \([^()\n]{0,80}\) cannot be broadcast\b|\bcould not be broadcast together "
            r"with shapes\b|\bThe size of tensor a \(\d+\) must match the size of tensor b \(\d+\)", "not_oom",
            code="shape-mismatch"),
        # ... in glog's and TurboMind's words ("[TM][FATAL] kernels/apply_token_bitmask_inplace_cuda.cu(212): Check
        # failed: logits_shape.first == bitmask_shape.first logits and bitmask must have the same batch size")
        # ... or TVM's check of a condition it states, then its message ("Check failed: (args.size() == 22 ||
        # args.size() == 23) is false: Invalid number of KV cache constructor args.", a runtime and a compiled model
        # of two versions): not one on a status a call returned (VK_SUCCESS), a pointer, or a size of memory
        msg(r"\bCheck failed: \((?![^\n]*?(?:SUCCESS|[Ss]uccess|nullptr|NULL|\bnull\b|\bptr\b|" + MEMORY_TERMS + r"|\bfree|avail|"
            r"bytes|capacity|page|block|workspace|(?<!\.)size(?!\(\))|status|[Ee]rror|\berr))[^\n]{1,200}?\) is false: (?![^\n]*(?:out of|exceed|insufficient|not enough|"
            r"memory|[Oo]ut[Oo]f[Mm]emory|OOM))", "not_oom", code="assertion-failed"),
        # glog's and TVM's check that compares two values and prints both (MLC's paged KV cache "Check failed: n <=
        # it->second.seq_length (304 vs. 202) : The sequence only has length 202, while the length of pop is 304"): an
        # assertion on lengths or indices, not memory (not one on sizes, bytes, pages or a status a call returned)
        msg(r"\bCheck failed: (?![^\n]*(?:" + MEMORY_TERMS + r"|workspace|bytes|size|capacity|avail|free|page|"
            r"block|SUCCESS|[Ss]uccess|status|\berr|shape|dims?\b|ndim|batch_size|nullptr|NULL|\bnull\b|\bptr\b))\(?[\w.\->\[\]()]{1,80} ?(?:<=|>=|<|>|==|!=) ?[\w.\->\[\]()]{1,80}"
            r"\)? \(-?\d+ vs\. ?-?\d+\)", "not_oom", code="assertion-failed"),
        msg(r"\bCheck failed: (?![^\n]*(?:" + MEMORY_TERMS + r"|workspace))[^\n]*?\b\w*(?:shape|dims?|ndim|batch_size)\w*\b"
            r"[^\n]*?(?:==|!=)|\bmust have the same (?:batch size|shape|dtype|number of (?:tokens|dims|dimensions))\b",
            "not_oom", code="shape-mismatch"),
        # the code took a path this model or these settings do not have: Python's NotImplementedError, AttributeError,
        # KeyError, TypeError, ... as a traceback's last line alone ("raise NotImplementedError" then
        # "NotImplementedError"), or as the cause a report's words give its crash ("the server crashes with
        # `NotImplementedError` from `KVCache.get_cpu_copy()`", "fails to start due to missing methods", "crashes
        # because `Qwen2ForCausalLM` does not implement `set_embed`"); not in a sentence that also names an
        # out-of-memory, nor in a warning that goes on ("WARNING ... Failed to import Ray with ModuleNotFoundError")
        msg(r"^\s*(?:[\w.]+\.)?(?:" + CODE_ERRORS + r")\s*$", "not_oom", code="code-error", flags=0),
        # ... or as the cause Ray names in its own exception's class when a remote task or actor raised it
        # ("ray.exceptions.RayTaskError(KeyError): ray::RayWorkerWrapper.execute_method() (pid=..., ...)": the worker's
        # KeyError, its own line maybe cut from the log)
        msg(r"\bRay(?:Task|Actor)Error\((?:" + CODE_ERRORS + r")\)", "not_oom", code="code-error", flags=0),
        # (... or a time-out it wraps: "ray.exceptions.RayTaskError(TimeoutError): ray::RolloutManager.generate()": the
        # remote call waited past its limit, a rollout's long generations or a stuck worker; memory raises its own)
        msg(r"\bRayTaskError\((?:asyncio\.)?(?:TimeoutError|GetTimeoutError)\)", "not_oom", code="remote-task-timeout",
            flags=0),
        # ... or a supervisor's line that names the class it caught and where (olmOCR's pipeline around its SGLang
        # server: "ERROR - IndexError in model, restarting server"; "KeyError while processing request")
        msg(r"\b(?:" + CODE_ERRORS + r") (?:in|while|during|when|from) (?:the |a )?(?:model|engine|server|worker|"
            r"forward(?: pass)?|request|generation|processing|handling|decod(?:e|ing)|inference)\b", "not_oom",
            code="code-error", flags=0),
        # ... or Python's own message of such an error without its class (PY_CODE_MESSAGE): an error whose cause it
        # names, as its words decide (a warning that falls back, "INT8 load failed ('X' object has no attribute
        # 'set_submodule') ? falling back to bfloat16", is the program going on; an out of memory after it, the run's)
        msg(PY_CODE_MESSAGE, "error", code="code-error", flags=0),
        # a server's own memory guard refusing to load a model beside what it holds (oMLX: "Cannot load X: projected
        # memory 127.68GB would exceed process limit 88.00GB (current: 64.22GB, model: 63.46GB)"): the weights ledger,
        # before any of them moved
        msg(r"\b(?:Cannot|Can't|Unable to|Failed to|Could not) load\b[^\n]{0,300}?\b(?:would exceed|exceeds?) (?:the )?"
            r"(?:process |memory |system |server |configured )?(?:memory )?(?:limit|ceiling|budget)\b", "oom", "WEIGHTS",
            "weights-exceed-memory-limit"),
        # a cache's budget that its smallest plan does not fit (FreeToken: "AssertionError: cache budget too small:
        # minimum plan (moe=576 slots, kv=128 pages) needs 8261206016 B > budget 6734265712 B (raise memory_ratio, ...)"):
        # the KV cache's share of the memory, at start
        msg(r"\b(?:KV |kv )?cache budget (?:is )?too small\b", "oom", "KV", "kv-cache-too-small"),
        # a server's memory guard aborting a request (oMLX: "Request aborted: process memory limit exceeded. Increase
        # --max-process-memory or reduce context size."): serving
        msg(r"\bRequest aborted: [^\n]{0,40}?\bmemory limit exceeded\b", "oom", "RUNTIME"),
        # a program's own words that generating failed, with the out-of-memory it caught ("ERROR    Generation failed:
        # CUDA out of memory. Tried to allocate 1.02 GiB", "Error during inference: ...", "生成失败：CUDA out of
        # memory"): the step is generating, the model in place (not where the same words name a load)
        # (or the out of memory said to come while generating: "ERROR gateway: CUDA out of memory while generating,
        # dropping request 42")
        msg(r"(?:CUDA out of memory|OutOfMemoryError|\bout of memory)\b[^\n]{0,20}?\b(?:while|during) (?:generating|"
            r"generation|decoding)\b(?![^\n]*(?:\b[Ll]oad(?:ing|ed)?\b|加载|読み込))", "oom", "RUNTIME",
            "serving-oom"),
        msg(r"(?:\b(?:[Gg]eneration|GENERATION|[Ii]nference|INFERENCE|[Dd]ecoding) (?:failed|FAILED|error|ERROR)|"
            r"\b[Ee]rror (?:during|in|while) (?:stream(?:ing)? )?(?:generation|generating|inference|decoding)|"
            r"\b[Ff]ailed to generate|生成失败|推理失败|推理出错)[^\n]{0,12}?[:：][^\n]{0,60}?"
            # (also Metal's refusal of one buffer larger than the device allows, mlx_vlm's "Error during stream
            # generation: [metal::malloc] Attempting to allocate 524492820000 bytes which is greater than the maximum
            # allowed buffer size of 86586540032 bytes.")
            r"(?:CUDA out of memory|OutOfMemoryError|out of memory\b|\[metal::malloc\])(?![^\n]*(?:\b(?:[Ll]oad(?:ing|ed)?|LOAD(?:ING)?)\b|"
            r"加载|読み込))", "oom", "RUNTIME", "serving-oom"),
        # a command line the program does not accept: Python argparse's "prog: error: unrecognized arguments: ...",
        # "error: argument --x: invalid int value", "the following arguments are required"; click's "Error: No such
        # option: --x"; llama.cpp's common/arg.cpp "error: invalid argument: --x"
        msg(r"\berror: (?:unrecognized arguments:|argument -{1,2}[\w-]+(?:/-{1,2}[\w-]+)*: (?:invalid|expected|not "
            r"allowed|ambiguous|conflicting)|the following arguments are required:|ambiguous option:|invalid argument: "
            r"-{1,2}[\w-]|unknown argument: -{1,2}[\w-])|\bError: (?:No such option: -|Invalid value for '-)|"
            # (Go's cobra, Ollama's CLI: "Error: unknown flag: --num-gpu", "unknown shorthand flag: 'x' in -x")
            r"\b[Ee]rror: unknown (?:shorthand )?flag: ['-]|"
            # (Go's standard flag package, a Kubernetes controller's or an operator's binary: "flag provided but not
            # defined: -enable-runtime-sidecar", then "Usage of /manager:")
            r"\bflag provided but not defined: -",
            "not_oom", code="bad-argument"),
        # the shell or a launcher could not find the program to run: bash's and dash's "bash: vllm: command not found",
        # "/bin/sh: 1: sglang: not found", "/bin/bash: line 1: vllm: command not found" (in Chinese "bash: vllm: 未找到命
        # 令"), zsh's "zsh: command not found: llama-server" and "zsh: no such file or directory: ./llama-server",
        # fish's "fish: Unknown command: llama-server", env's "/usr/bin/env: 'python': No such file or directory",
        # coreutils' nohup "nohup: failed to run command 'vllm': No such file or directory" (busybox: "can't execute"),
        # cmd.exe's "'ollama' is not recognized as an internal or external command" (in Chinese "'llama-server' 不是内部
        # 或外部命令"), PowerShell's "The term 'vllm' is not recognized as the name of a cmdlet" (7: "as a name of"),
        # an OCI runtime's 'exec: "vllm": executable file not found in $PATH', supervisord's "spawnerr: can't find
        # command 'vllm'", systemd's "Failed at step EXEC spawning /usr/local/bin/ollama: No such file or directory"
        # (status=203/EXEC); under a compose service's or a pod's prefix too ("sglang-1  | /bin/sh: 1: sglang: not
        # found", "[pod/vllm-0/vllm] bash: ..."): nothing started
        msg(_SHELL_SAYS + r"(?:(?:command )?not found|未找到命令|コマンドが見つかりません)\s*$|"
            r"(?:^|[|\]]\s+)zsh: (?:command not found|no such file or directory): \S|(?:^|[|\]]\s+)fish: Unknown command:? \S|"
            r"(?:^|[|\]]\s+)/usr/bin/env: '?[\w./+-]{1,200}'?: No such file or directory\b|"
            r"\bnohup: (?:failed to run command|can't execute) '[^'\n]{1,200}': No such file or directory\b|"
            r"'[^'\n]{1,200}' (?:is not recognized as an internal or external command\b|不是内部或外部命令)|"
            r"\bThe term '[^'\n]{1,200}' is not recognized as (?:the |a )?name of a cmdlet\b|"
            r"\bexec: \x22[^\x22\n]{1,200}\x22: executable file not found in \$PATH\b|\bspawnerr: can't find command\b|"
            r"\bFailed (?:at step EXEC spawning|to locate executable) \S{1,300}: No such file or directory\b|"
            r"\bstatus=203/EXEC\b|"
            # (Python's own words that the module or the script it was told to run is not there: "/home/u/.openllm/venv/
            # 60848/bin/python: No module named bentoml" for `python -m bentoml`, "/usr/bin/python3: Error while
            # finding module specification for 'vllm.entrypoints.openai.api_server' (ModuleNotFoundError: ...)",
            # "python: can't open file '/app/server.py': [Errno 2] No such file or directory")
            r"(?:^|[|\]]\s+)\S{0,300}?\bpython[\d.]*(?:\.exe)?: (?:No module named [\w.]+\s*$|Error while finding module "
            r"specification for '[\w.]+'|can't open file '[^'\n]{1,300}': \[Errno 2\] No such file or directory)",
            "not_oom", code="command-not-found"),
        # ... or found it and was refused running it ("-bash: ./build/bin/llama-server: Permission denied", "zsh:
        # permission denied: ./llama-server"): not executable, or on a disk mounted noexec
        msg(_SHELL_SAYS + r"Permission denied\s*$|(?:^|[|\]]\s+)zsh: permission denied: \S", "not_oom", code="access-denied"),
        # torch.compile's compiler failing (Inductor's lowering or a graph pass: "torch._inductor.exc.InductorError:
        # AssertionError: auto_functionalized was not removed", dynamo's "BackendCompilerFailed: backend='inductor'
        # raised: ..."): the model's compilation, a bug or an unsupported GPU; not where the error it wraps is memory
        # (nor where its line ends at "raised:", the error it wraps on the next line: that one decides, a wrapper's)
        msg(r"\b(?:torch\._inductor\.exc\.InductorError|BackendCompilerFailed)\b(?![^\n]{0,300}?(?:out of memory|"
            # (nor where it wraps a type this GPU lacks: gpu-unsupported, below)
            r"OutOfMemory|OOM\b|out of resource|not supported in this architecture|compute capability))"
            r"(?![^\n]*\braised:\s*$)", "not_oom", code="compiler-error"),
        msg(r"\bBackendCompilerFailed: backend='?\w+'? raised:\s*$", "wrapper"),
        # ... or C++'s length_error of a container asked for an impossible size (libstdc++'s "vector::_M_default_append",
        # "vector::_M_realloc_insert", "basic_string::_M_create", "cannot create std::vector larger than max_size()"):
        # a wrong size computed, not memory exhausted (that is std::bad_alloc); by its type's name too, as libc++ (clang,
        # macOS) prints it: "libc++abi: terminating due to uncaught exception of type std::length_error: vector"
        msg(r"\bvector::_M_(?:default_append|realloc_insert|fill_insert|range_check)\b|\bbasic_string::_M_create\b|"
            r"\bstd::length_error\b|\bvector::reserve\b|"
            # (... and its kin, an index or an argument out of its range: "terminate called after throwing an instance
            # of 'std::out_of_range'", MSVC's "std::_Xout_of_range", "std::invalid_argument")
            r"\bstd::(?:_X)?out_of_range\b|\bstd::invalid_argument\b|"
            r"\bcannot create std::vector larger than max_size|"
            # ... or PyTorch's: a size no device has, from an overflowed computation ("CUDA out of memory. Tried to
            # allocate more than 1EB memory", c10's "Storage size calculation overflowed with sizes=[...]")
            r"\bTried to allocate more than 1EB memory\b|\bStorage size calculation overflowed\b|"
            # ... or a gRPC back end without the method called (LocalAI's "rpc error: code = Unknown desc =
            # unimplemented", gRPC's own status "code = Unimplemented"): a path that back end does not have
            r"\brpc error: code = \w+ desc = (?:unimplemented|method \w+ not implemented)\b|\bcode = Unimplemented\b|"
            # ... or JSON that did not parse, its decoder's message without its class ("Parsing failed: Expecting value:
            # line 1 column 1 (char 0)"): a reply or a file that was not JSON
            r"\bExpecting (?:value|property name enclosed in double quotes|',' delimiter|':' delimiter): line \d+ column "
            r"\d+ \(char \d+\)",
            "not_oom", code="code-error"),
        msg(r"^(?!.*(?:out of memory|\bOOM|OutOfMemory|\b(?:WARNING|WARN|INFO|DEBUG)\b))(?:.*?\b(?:crash(?:es|ed|ing)?|"
            r"fail(?:s|ed|ing)?|dies|died|"
            r"errors? out|abort(?:s|ed)?)\b(?:[^.;!?\n]|\.(?=\S)){0,100}?\b(?:with|because|since|due to|as|from)\b"
            r"(?:[^.;!?\n]|\.(?=\S)){0,100}?|.*?\b(?:raises?|raised|throws?|threw|getting|got|hits?)\s+(?:an?\s+|the\s+)?`?|"
            # (or after a colon, as a title puts it: "Qwen3-Embedding model crashed: KeyError: None")
            r".*?\b(?:crash(?:es|ed)?|fail(?:s|ed)?|died|aborted)\s*:\s*`?)"
            r"(?:\b(?:" + CODE_ERRORS + r")\b|\bdo(?:es)?(?: not|n['\u2019]t) (?:implement|define)\b|"
            r"\bhas no (?:attribute|method)\b|\bmissing (?:the )?(?:methods?|attributes?)\b|"
            r"\b(?:is|are) not (?:yet )?implemented\b|\bhas no `)", "not_oom", code="code-error"),
        # a data type or kernel this GPU does not have (Triton's "type fp8e4nv not supported in this architecture",
        # vLLM's "Bfloat16 is only supported on GPUs with compute capability of at least 8.0" and "Minimum
        # capability: 80. Current capability: 75.", flash-attn's "FlashAttention only supports Ampere GPUs or newer")
        msg(r"\bnot supported (?:in|on|by|for) (?:this|the current|your) (?:GPU|architecture|device|hardware)\b|"
            r"\bonly supported on GPUs with compute capability\b|\bMinimum capability: \d+\.?\s+Current capability: \d+|"
            # (a model or feature only one kind of device runs, TEI's "Qwen3 is only supported on Cuda devices in fp16
            # with flash attention enabled", "FP8 Marlin is only supported on Hopper GPUs"; or one refused on this
            # device, "... is not supported on Metal")
            # (not a warning that goes on without it, "bfloat16 is not supported on CPU, using float32 instead",
            # Ollama's "flash attention is only supported on CUDA devices ..., disabling")
            r"\b(?:is|are) (?:only supported on (?:Cuda|CUDA|NVIDIA|ROCm|Hopper|Ampere|Blackwell|Ada|TPU|XPU)|"
            r"not supported on (?:CPU|Metal|MPS|ROCm|XPU|Apple))\b"
            r"(?![^\n]*\b(?:using|falling back|falls? back|fallback|disabling|instead|casting to|converting to)\b)|"
            r"\bonly supports? (?:Ampere|Hopper|Turing|Ada|Blackwell|sm_?\d+)\b|"
            r"\brequires? (?:a GPU with )?compute capability (?:of )?(?:at least |>= ?)?\d|"
            # ... or a build that has no kernels for it (Ollama's discover "skipping CUDA device — compute capability not
            # in compiled architectures", which then runs on the CPU)
            r"\bcompute capability not in (?:the )?compiled architectures\b|"
            # (a GPU architecture a library's kernels refuse, AMD's aiter: "One of GPU archs of ['gfx1151'] is invalid
            # or not supported with VLLM_ROCM_USE_AITER: 1"; "Unsupported GPU architecture: gfx906")
            r"\bGPU archs? (?:of )?\[?[^\n]{0,40}?\]? (?:is|are) (?:invalid or )?not supported\b|"
            r"\b[Uu]nsupported (?:GPU|gfx|CUDA) arch(?:itecture)?s?\b\W{0,3}(?:gfx\d|sm_?\d)|"
            # (TEI's candle build for another GPU: "Could not start backend: Runtime compute cap 70 is not compatible with
            # compile time compute cap 80")
            r"\bRuntime compute cap \d+ is not compatible with compile time compute cap\b|"
            # ... in a report's words ("fail: 2080 Ti does not support bfloat16", "the V100 doesn't support FP8"), not in
            # a line that states an out of memory too
            r"^(?![^\n]*(?:out of memory|OutOfMemory|\bOOM))[^\n]*?\b(?:GPU|card|\d{3,4}\s?Ti|[TVAPHL]\d{1,3}|sm_?\d+|Turing|Volta|Pascal)\S*\s+does(?: not|n['\u2019]?t) "
            r"support (?:bf(?:loat)?16|fp8|FP8|flash[- ]?attention|FlashAttention)\b", "not_oom",
            code="gpu-unsupported"),
        # a kernel with no build for this shape or setting (FlashInfer's dispatch macros: "failed to dispatch head_dim
        # 96", "... failed to dispatch group_size 3", "Unsupported head_dim: 72"): a model the kernel does not support
        msg(r"\bfailed to dispatch (?:head_dim|group_size|page_size|pos_encoding_mode|mask_mode|num_qo_heads|"
            r"num_kv_heads|dtype|data type)\b|\bUnsupported (?:head_dim|group_size|page_size)\b", "not_oom",
            code="kernel-config-unsupported"),
        # a kernel compiled at start-up that did not build (FlashInfer's and torch's JIT: "CalledProcessError: Command
        # '['ninja', '-v', ...]' returned non-zero exit status 1", "Error building extension", "ninja: build stopped"):
        # a toolchain or kernel source problem, not memory
        # (and AWS Neuron's compiler, run for each graph at start: "CalledProcessError: Command '['neuronx-cc',
        # 'compile', '--framework=XLA', ...", not one killed, "returned non-zero exit status -9")
        msg(r"CalledProcessError: Command '\[?'(?:ninja|nvcc|cmake|make|c\+\+|g\+\+|gcc|hipcc|neuronx-cc)'"
            r"(?![^\n]*exit status -9\b)|\bError building extension\b|"
            r"\bninja: build stopped\b|"
            # (a compiler's own error for a header the kernel's source needs: "fatal error: cuda_fp8.h: No such file or
            # directory", clang's "fatal error: 'cuda_fp8.h' file not found")
            r"\bfatal error: '?[\w./-]+\.(?:h|hpp|cuh)'?(?:: No such file or directory| file not found)",
            "not_oom", code="kernel-build-failed"),
        # ... or Metal's shader library that did not compile for this GPU (ggml-metal's "ggml_metal_library_init: error:
        # Error Domain=MTLLibraryErrorDomain Code=3", "failed to initialize the Metal library"): the context it then
        # "failed to allocate" never reached memory
        msg(r"\bMTLLibraryErrorDomain\b|\bfailed to initialize the Metal library\b|"
            # (MLX's: "RuntimeError: [metal::Device] Unable to build metal library from source", a macOS whose Metal
            # compiler lacks the standard its kernels need, "invalid value 'metal3.1' in '-std=metal3.1'")
            r"\bUnable to build metal library\b|\bggml_metal\w*: error: failed to "
            r"(?:compile|create|load) (?:the )?(?:Metal )?(?:library|pipeline|shader)", "not_oom", code="kernel-build-failed"),
        # a crash the same words say followed an allocation that failed for lack of memory ("SIGSEGV in
        # ggml_gallocr_alloc_graph when CLIP warmup reserve silently fails under VRAM pressure"; the NULL it got back
        # was used): memory ran out first, the crash is its consequence (a code of its own: over the crash's NOT_OOM)
        msg(r"\b(?:alloc\w*|reserve|malloc|cudaMalloc)\b[^.;\n]{0,40}?\bfail\w*\b[^.;\n]{0,40}?\b(?:under|due to|because of|"
            r"from) (?:VRAM|GPU memory|memory|RAM) pressure\b",
            "oom", code="crash-after-alloc-failed"),
        # a report's words that the model did not fit in the GPU's memory ("when it is not able to fully load a model
        # in the GPU VRAM", "the 70B does not fit into my VRAM, so loading fails", "the model is too big for my card"):
        # the weights; not supposed, hoped or asked ("it should fit in VRAM", "will a 13B fit in 12 GB?")
        msg(r"^(?![^\n]*\b(?:should(?:n't)?|would|might|may|if|whether|expect(?:ed)?|hope)\b)(?![^\n]*\?\s*$)[^\n]*?"
            r"(?:\b(?:does(?: not|n['\u2019]t)|do(?: not|n['\u2019]t)|won['\u2019]t|can['\u2019]?t|cannot|could(?: not|n['\u2019]t)|"
            r"(?:not|never) able to|unable to)\s+(?:fully\s+|entirely\s+)?(?:fit|load)\b(?:\s+(?:the|a|my|this|it|its)"
            r"(?:\s+[\w.-]+){0,3}?)?\s+(?:in|into|on)\s+(?:the\s+|my\s+|a\s+|one\s+)?(?:GPU(?:['\u2019]s)?\s+|card(?:['\u2019]s)?\s+)?"
            r"(?:VRAM|GPU memory|video memory|GPU)\b|"
            r"\b(?:model|it|weights)\s+(?:is|are)\s+too\s+(?:big|large)\s+(?:for|to fit in(?:to)?)\s+(?:the\s+|my\s+|a\s+)?"
            r"(?:GPU|VRAM|card|graphics card)\b)", "oom", "WEIGHTS"),
        # a report's words that the KV cache (llama.cpp's context, which holds it) could not be allocated ("model A cannot
        # allocate memory for the kvcache", "it crashes when it tries to allocate the context when doing the first
        # inference"): the KV ledger, whatever the same line says of the weights fitting only in part
        # (not LMCache's own words, "LMCache WARNING: Failed to allocate memory for the KV cache.": its offload buffer,
        # the `lmcache-store-full` note below)
        msg(r"^(?![^\n]*\bLMCache\b)[^\n]*?(?:"
            r"\b(?:cannot|can['\u2019]?t|could(?: not|n['\u2019]t)|unable to|not able to|fail(?:s|ed)? to)\s+allocate\s+"
            r"(?:(?:enough\s+)?(?:memory|space|VRAM)\s+for\s+)?(?:the\s+|its\s+)?(?:kv[ -]?cache|context)\b(?![ -]blocks?\b)|"
            r"\b(?:crash(?:es|ed)?|fails|failed|dies|died|OOMs?)\s+when\s+(?:it\s+)?(?:tries|trying|tried)\s+to\s+allocate\s+"
            r"(?:the\s+|its\s+)?(?:kv[ -]?cache|context)\b|"
            # (... "runs out of VRAM allocating the context buffer at -c 65536")
            r"\b(?:runs?|ran|running) out of (?:VRAM|memory|GPU memory)\s+(?:when\s+|while\s+)?allocating\s+(?:the\s+|its\s+)?"
            r"(?:kv[ -]?cache|context)\b)", "oom", "KV", "kv-cache-alloc-failed"),
        # ... or an engine's own error that making its KV cache failed, in words of no engine vramdoctor has a module
        # for ("failed to reserve the host KV cache: cudaMallocHost failed to pin 8192 MiB", "Failed to create KV
        # cache"), not one that names a cause of form ("failed to initialize the KV cache: unsupported dtype")
        msg(r"\b(?:fail(?:s|ed)? to|unable to|could not|cannot|can['\u2019]t)\s+(?:reserve|pin|create|initiali[sz]e)"
            r"\s+(?:the\s+|its\s+|a\s+)?(?:(?:host|CPU|pinned|GPU|device|paged)\s+)?(?:kv[ -]?cache|key[- ]value "
            r"cache)\b(?![ -]blocks?\b)(?![^\n]*\b(?:unsupported|not supported|invalid|mismatch\w*|dtype|not implemented|"
            r"driver|device is detected|no CUDA|[Pp]ermission|director(?:y|ies)|No such file|not found|version)\b)", "oom", "KV",
            "kv-cache-alloc-failed"),
        # ... or a pool too small for the context told in a report's words ("reserves 20.88 GiB per GPU for graphs,
        # leaving too little KV memory", "Startup then fails the KV admission check")
        msg(r"^(?![^\n]*\b(?:don['\u2019]?t|do not|doesn['\u2019]?t|does not|not) (?:think|believe)\b)[^\n]*?"
            r"\b(?:leav\w+|left)\s+(?:too little|not enough|insufficient)\s+KV[ -]?(?:cache\s+)?(?:memory|space|"
            r"capacity|blocks)\b|\bfail(?:s|ed)?\s+(?:the\s+)?KV[ -]?(?:cache\s+)?(?:admission|capacity|size)\s+check\b",
            "oom", "KV", "kv-cache-too-small"),
        # a loader's own estimate refusing a context before allocating it (node-llama-cpp's InsufficientMemoryError: "A
        # context size of 4096 with 4 sequences is too large for the available VRAM"): the KV cache for that context
        msg(r"\bcontext size of \d+ (?:with \d+ sequences? )?is too large for the available (?:VRAM|RAM|memory)\b", "oom", "KV",
            "kv-cache-alloc-failed"),
        # the network failed a download or a hub's API (DNS, a network that is down, TLS: Rust's reqwest "error
        # sending request for url (https://...)" as TGI's and NIM's hub clients print it, requests' "HTTPSConnectionPool(
        # host='huggingface.co', port=443): Max retries exceeded", transformers' "We couldn't connect to
        # 'https://huggingface.co'", Go's "dial tcp: lookup registry.ollama.ai"): not memory. A client that cannot
        # reach a server on this machine (localhost, 127.x) is that server's failure told again, not this cause
        msg(r"\berror sending request for url \((?!https?://(?:localhost|127\.|0\.0\.0\.0|\[::1\]))|"
            r"\bHTTPSConnectionPool\(host='(?!localhost|127\.|0\.0\.0\.0)[^']{1,200}', port=\d+\): (?:Max retries "
            r"exceeded|Read timed out)|\bWe couldn't connect to '?https?://|\bTemporary failure in name resolution\b|"
            r"\bfailed to lookup address information\b|\bdial tcp: lookup [\w.-]+|\bgetaddrinfo failed\b|"
            r"\bNetwork is unreachable\b|\bCERTIFICATE_VERIFY_FAILED\b|"
            # (huggingface_hub's LocalEntryNotFoundError: the file is not in the local cache and the hub could not be
            # reached, or offline mode forbade it)
            r"\bLocalEntryNotFoundError\b|"
            # (NVIDIA NIM's hub client downloading a profile: "nim_sdk::hub::repo ... One or more errors fetching
            # files:")
            r"\bnim_sdk::hub\b[^\n]*\bOne or more errors fetching files\b", "not_oom", code="network-error"),
        # a setting's value the engine's own configuration refused before anything was allocated: pydantic's check on
        # a config class (vLLM 0.10+ "pydantic_core._pydantic_core.ValidationError: 1 validation error for CacheConfig",
        # then the field and "Input should be less than or equal to 1 [... input_value=90.0"), an assert in a config
        # dataclass's __post_init__ naming the field (LMDeploy messages.py "AssertionError: invalid
        # cache_max_entry_count"), vLLM's older check ("GPU memory utilization must be less than 1.0. Got 90.0.")
        # (not a request's own, vLLM's SamplingParams: request-rejected)
        msg(r"\bValidationError: \d+ validation errors? for (?!SamplingParams\b)\w*(?:Config|Args|Arguments|Params|Parameters|Settings)\b|"
            r"\bAssertionError: invalid [a-z][a-z0-9_]{2,60}\s*$|"
            r"\bGPU memory utilization must be (?:less than|within|between)\b|"
            # (and the error's own line under that title, pydantic v2's "  Value error, Total number of attention heads
            # (64) must be divisible by tensor parallel size (3). [type=value_error, ...": a check of the settings,
            # pasted without its title; not one that speaks of memory, which the rules for memory read)
            r"^\s*Value error, (?![^\n]*(?:" + MEMORY_TERMS + r"|out of|exceed|insufficient|not enough|\bKV\b|"
            r"\bcache\b))[A-Z][^\n]{8,}", "not_oom", code="setting-rejected"),
        # ... or a request's body its server refused by pydantic's check ("Error processing chat completion request: 2
        # validation errors for Message", mlx-openai-server; "1 validation error for ChatCompletionRequest"): that
        # request's shape, not memory
        # (not langchain's or llama-index's wrapper of a model's load, "1 validation error for LlamaCpp ... Could not load
        # Llama model from path": that load failed, for a reason not shown)
        msg(r"\b[1-9]\d* validation errors? for (?:\w+\.)*(?!LlamaCpp\b|LlamaCPP\b|Llama\b|CTransformers\b|GPT4All\b)"
            r"[A-Z]\w*\b", "not_oom", code="request-rejected"),
        # a model hub that answered and refused the download (huggingface_hub's GatedRepoError / "Cannot access gated
        # repo", requests' "401 Client Error: Unauthorized for url: https://huggingface.co/...", "Access to model X is
        # restricted"): a gated or private model without a token, not memory
        msg(r"\bGatedRepoError\b|\bCannot access gated repo\b|\b40[13] Client Error: (?:Unauthorized|Forbidden) for "
            r"url: https?://|\bAccess to model \S{1,200} is restricted\b", "not_oom", code="download-refused"),
        # a CUDA launch refused for a reason that is not memory, as TVM's check prints it (FreeToken: "Check failed: (err ==
        # cudaSuccess) is false: Failed to launch kernel: invalid argument"): a kernel's launch settings, not memory
        msg(r"\bFailed to launch kernel: (?!out of memory)(?:invalid (?:argument|configuration|device function|value)|"
            r"too many resources requested|no kernel image)", "not_oom", code="cuda-kernel-error"),
        # a tunnel that exposes the server, started beside it, refused by its service (ngrok's "ERR_NGROK_105",
        # "authentication failed: The authtoken you specified does not look like a proper ngrok tunnel authtoken";
        # cloudflared's "failed to ... tunnel ... Unauthorized"): the tunnel failed, not the server, not memory
        msg(r"\bERR_NGROK_\d{2,4}\b|\bauthentication failed: The authtoken you specified\b|"
            r"\bcloudflared\b[^\n]{0,200}?\b(?:Unauthorized|Invalid tunnel (?:credentials|token))\b", "not_oom",
            code="tunnel-failed"),
        # gunicorn's arbiter killing a worker that sent no heartbeat within --timeout (arbiter.py murder_workers:
        # "[CRITICAL] WORKER TIMEOUT (pid:25134)", then SIGABRT, then SIGKILL): a request or a load that took too long,
        # not memory; its "was sent SIGKILL! Perhaps out of memory?" after it is this kill
        msg(r"\bWORKER TIMEOUT \(pid:\d+\)", "not_oom", code="watchdog-timeout", flags=0),
        # a cluster scheduler refusing to place a model its estimate says fits no worker (GPUStack: "No suitable
        # workers." / "No workers meet the resource requirements. Consider adjusting parameters such as
        # --gpu-memory-utilization (default: 0.9), --max-model-len, ..."): nothing was allocated; its estimate counts
        # the weights and the KV cache for the context, so either ledger
        msg(r"\bNo workers meet the resource requirements\b", "oom", code="guardrail-refused-load",
            candidates=("WEIGHTS", "KV")),
        # ... or a container's own pick of a build for the GPUs it finds (NVIDIA NIM's profile selection, ngc_profile.py
        # "Detected additional 1 compatible profile(s) that are currently not runnable due to low free GPU memory",
        # then utils.py "Could not find a profile that is currently runnable with the detected hardware"): a refusal
        # before anything loads, the profile's need against the GPU's free memory (NIM wraps its lines: the first
        # half alone, "... currently not", at the line's end)
        msg(r"\bcompatible profile\(s\) that are currently not(?:\s+runnable due to low free GPU memory\b|\s*$)", "oom",
            code="guardrail-refused-load", candidates=("WEIGHTS", "KV")),
        # ONNX Runtime's arena refusing a buffer (bfc_arena.cc "Failed to allocate memory for requested buffer of size
        # N", the CUDA execution provider's allocator): in a session's Run ("Non-zero status code returned while running
        # Clip node"), a forward pass, the warm-up's or a request's (RAGFlow's OCR, an embedding server); in the
        # session's creation ("Exception during initialization"), its initializers placed on the device: the weights
        # (or its arena at the memory limit it was given, gpu_mem_limit: bfc_arena.cc AllocateRawInternal "Available
        # memory of 0 is smaller than requested bytes of 5505024")
        msg(r"\bNon-zero status code returned while running \w+ node\b.{0,600}?\b(?:Failed to allocate memory|Available "
            r"memory of \d+ is smaller than requested bytes of \d+)", "oom", candidates=("WARMUP", "RUNTIME")),
        msg(r"\bException during initialization: .{0,400}?\bFailed to allocate memory\b", "oom", "WEIGHTS",
            "weights-alloc-failed"),
        # (the selection's own failure alone: too few GPUs, an unsupported GPU, or too little free memory for every
        # profile; were it memory, nothing had loaded, so the weights or the KV cache the profile counts)
        msg(r"\bCould not find a profile that is currently runnable\b", "wrapper", candidates=("WEIGHTS", "KV")),
        # a server's own refusal in plain words that the KV cache for the context asked does not fit (MoE4All's infr:
        # "Error: this model cannot be served on this device: no usable KV cache fits." with "requested context :
        # 262144 tokens"; "the KV cache for 131072 tokens won't fit on this device"): the KV ledger; not a question
        msg(r"^(?![^\n]*\?\s*$)[^\n]*?(?:\bno (?:usable )?KV[- ]cache fits\b|\bKV[- ]cache (?:for [\d,]+ tokens )?"
            r"(?:does not|doesn['\u2019]t|won['\u2019]t|will not|cannot|can['\u2019]t|could not|couldn['\u2019]t) fit\b)",
            "oom", "KV", "kv-cache-alloc-failed"),
        # a model the engine (this version) has no implementation of: vLLM's and SGLang's registry ("Model
        # architectures ['DeepseekV3ForCausalLM'] are not supported for now. Supported architectures: ..."), also
        # quoted as a report's title without its "ValueError: "; transformers' "... has model type `qwen3_next` but
        # Transformers does not recognize this architecture": not memory
        # (and exllamav2/v3's architecture table, "the architecture in the model, \"Gemma3ForConditionalGeneration\", is
        # not found in the ARCHITECTURES list"; exllamav2's "Unknown architecture ... in config.json")
        msg(r"\bModel architectures? \[[^\]\n]{1,300}\] (?:are|is) not supported\b|\bdoes not recognize this architecture\b|"
            r"\bnot (?:found |present )?in (?:the )?ARCHITECTURES list\b|\bUnknown architecture\b[^\n]{0,80}?\bin config\.json\b",
            "not_oom", code="model-unsupported"),
        # a program built for another CPU (macOS's EBADARCH, "fork/exec .../ollama-runner: bad CPU type in executable",
        # an arm64 runner on an Intel Mac; Linux's ENOEXEC, "exec format error", "cannot execute binary file: Exec format
        # error", an image for another architecture): not memory
        msg(r"\bbad CPU type in executable\b|\bexec format error\b|\bcannot execute binary file\b", "not_oom",
            code="binary-wrong-architecture"),
        # the disk or file system failed a read (EIO, 5: "read error: Input/output error", Python's "[Errno 5]
        # Input/output error"): a failing disk, a network mount that dropped, not memory
        msg(r"\bInput/output error\b|\[Errno 5\]|\bEIO\b", "not_oom", code="io-error"),
        # ... or a read whose target the kernel could not write (EFAULT, 14: llama.cpp's "read error: Bad address" when
        # reading weights straight into a buffer a GPU driver mapped, Python's "[Errno 14] Bad address"): a driver or
        # runtime bug, not memory running out
        msg(r"\bread error: Bad address\b|\[Errno 14\] Bad address|\bEFAULT\b", "not_oom", code="read-into-buffer-failed"),
        # a disk that is full (ENOSPC, errno 28: a download or a compile cache under ~/.cache, a log, a checkpoint
        # written): the disk, not memory, whatever path it names; not /dev/shm, which is memory (its own figure)
        msg(r"^(?![^\n]*(?:/dev/shm|shared memory segment))[^\n]*?(?:\[Errno 28\]|\bOSError: \[Errno 28\]|\bENOSPC\b|"
            r"\bNo space left on device\b)",
            "not_oom", code="disk-full"),
        # ... and /dev/shm that is full (a container's 64 MiB default): NCCL's shared-memory transport
        # (misc/shmutils.cc: "Error while creating shared memory segment /dev/shm/nccl-X (size N), error: No space left
        # on device (28)", "failed to extend /dev/shm/nccl-X to N bytes"), PyTorch's worker processes ("unable to write
        # to file </torch_...>: No space left on device (28)" under /dev/shm): host shared memory, not the GPU's
        # (and PyTorch's DataLoader naming it for its workers' bus error, torch/utils/data/_utils/signal_handling.py and
        # dataloader.py: "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared
        # memory (shm).", "... is killed by signal: Bus error. It is possible that dataloader's workers are out of shared
        # memory. Please try to raise your shared memory limit.")
        msg(r"\bfailed to extend /dev/shm/|/dev/shm/\S+[^\n]{0,200}?No space left on device|No space left on device"
            r"[^\n]{0,200}?/dev/shm/|\bError while creating shared memory segment\b|\bThis might be caused by insufficient "
            r"shared memory \(shm\)|\bdataloader's workers are out of shared memory\b", "not_oom", code="shm-exhausted"),
        # Windows' STATUS_NO_MEMORY (0xC0000017, as a signed or unsigned decimal too): the process's commit charge
        # (RAM and page file) ran out, host memory
        msg(r"\b0xC0000017\b|\bSTATUS_NO_MEMORY\b|(?<![\d-])(?:-1073741801|3221225495)(?!\d)", "oom", "HOST",
            "host-alloc-failed"),
        # a stack that overflowed (STATUS_STACK_OVERFLOW, 0xC00000FD): deep recursion, a bug, not memory running out
        msg(r"\b0xC00000FD\b|\bSTATUS_STACK_OVERFLOW\b|(?<![\d-])(?:-1073741571|3221225725)(?!\d)", "not_oom",
            code="stack-overflow"),
        # an arithmetic fault (SIGFPE, 8: an integer division by zero, as in a kernel's launch arithmetic past a chunk
        # or batch size it does not handle): the shell ("Floating point exception (core dumped)"), systemd
        # ("status=8/FPE"), TGI's launcher ("signal 8") and an exit status of 136 (128 + 8); not memory
        msg(r"\bFloating point exception\b|\bSIGFPE\b|\bstatus=8/FPE\b|^\s*Signal: 8 \(FPE\)|\bsignaled to shutdown with signal 8\b|"
            r"\bexit(?:s|ed)?(?: with)?(?: ?(?:status|code))?[\x22' :=]*136\b|\bExited \(136\)|"
            # (Windows: STATUS_INTEGER_DIVIDE_BY_ZERO, "exit status 0xc0000094")
            r"\bexit status 0xc0000094\b|\bSTATUS_INTEGER_DIVIDE_BY_ZERO\b|" + ended_by("-8") + "|"
            # (a kernel's division by zero named in words: "turned out to be a divide-by-zero in FlashInfer's prefill
            # kernel", CUDA's "integer divide by zero")
            r"\b(?:integer )?divi(?:de|sion)[- ]by[- ]zero\b|"
            + ended_by("-1073741676"), "not_oom",
            code="floating-point-exception"),
        # a bus error (SIGBUS: the shell's "Bus error (core dumped)", systemd's "status=7/BUS", TGI's launcher's
        # "signaled to shutdown with signal 7", an exit status of 135, 128 + 7): a mapped page that could not be had,
        # in a container most often /dev/shm full (PyTorch's and NCCL's shared memory past docker's 64 MiB), or a
        # model file cut short or changed while it was mapped; not the GPU's memory
        msg(r"\bBus error\b|\bSIGBUS\b|\bstatus=7/BUS\b|^\s*Signal: 7 \(BUS\)|\bsignaled to shutdown with signal 7\b|"
            r"\bexit(?:s|ed)?(?: with)?(?: ?(?:status|code))?[\x22' :=]*135\b|\bExited \(135\)|" + ended_by("-7"),
            "not_oom", code="bus-error"),
        # DeepSpeed-MII / FastGen: its KV blocks ran out mid-generation; it frees them all and recomputes
        # Apple's Metal error string: any Metal program's (llama.cpp, MLX, PyTorch MPS), so no engine's evidence
        # Ascend's runtime (CANN, as vllm-ascend and MindIE print it): a task on the NPU that did not finish in time
        # ("The execution of the internal task times out", rtStreamSynchronizeWithTimeout's "fftsplus timeout"): a hang
        # or a kernel's fault, not memory (CUDA's own kernel watchdog, cudaErrorLaunchTimeout, is a cuda-error)
        msg(r"The execution of the internal task times out|reason=\[fftsplus timeout\]|"
            r"rtStreamSynchronizeWithTimeout execute failed", "not_oom",
            code="device-task-timeout"),
        msg(r"kIOGPUCommandBufferCallbackErrorOutOfMemory", "oom", code="metal-command-buffer-oom"),
        # ... and its other command-buffer errors (a GPU timeout, a hang, an address fault, a buffer discarded when another
        # program's work reset the GPU, the system stopping work that froze the screen): not memory
        msg(r"kIO(?:Accel|GPU)CommandBufferCallbackError(?:Timeout|Hang|PageFault|InnocentVictim|ImpactingInteractivity)|"
            r"Caused GPU (?:Timeout|Hang|Address Fault) Error", "not_oom",
            code="metal-command-buffer-error"),
        # ... but a command buffer ignored "for causing prior/excessive GPU errors" (SubmissionsIgnored) names no cause
        # of its own: the first error, before it, is the cause (memory among them)
        msg(r"kIO(?:Accel|GPU)CommandBufferCallbackErrorSubmissionsIgnored|Ignored \(for causing prior/excessive GPU "
            r"errors\)", "wrapper"),
        # a KV pool that is full while serving, in plain words (servers without an engine module: atlas, ...)
        # (written so that "exhausted" is the word the prefilter looks for: "KV cache" is on every stats line)
        msg(r"(?:(?<=KV cache )|(?<=KV cache is ))exhausted", "oom", "RUNTIME", "kv-blocks-exhausted"),
        # ... named as the pool's exhaustion or its slots that could not be had ("Scheduler crashes on transient prefill
        # KV-pool exhaustion", "the prefill stage cannot allocate KV-pool slots for an admitted request")
        msg(r"\bKV[- ]?(?:cache[- ])?pool[- ]exhaust(?:ion|ed)\b|\bexhaust(?:ed|ion of|s|ing)? (?:the )?KV[- ]?(?:cache[- ])?pool\b|"
            r"\b(?:cannot|can't|could not|couldn't|unable to|fail(?:s|ed)? to) allocate (?:\w+ )?KV[- ]?(?:cache[- ])?pool[- ]"
            r"(?:slots|blocks|pages)\b", "oom", "RUNTIME", "kv-blocks-exhausted"),
        msg(r"no free (?:KV )?blocks", "oom", "RUNTIME", "kv-blocks-exhausted"),
        # ... or an engine's own assertion that it could not take a slot of its cache pool (SGLang's hybrid models:
        # "AssertionError: Can not alloc mamba cache", its state pool out of slots): the pool ran out; where, the frames
        # or the progress say (serving, most often)
        msg(r"\bAssertionError: (?:Can ?not|Cannot|Could not|Couldn't|Failed to|Unable to) alloc(?:ate)?\b[^\n]{0,40}?"
            r"\b(?:cache|pool|slots?|blocks?|pages?)\b", "oom", code="kv-blocks-exhausted"),
        # ... every sequence waiting on a pool with none free (JetEngine's scheduler "Deadlock detected: ... all
        # sequences are waiting for KV cache blocks, but no blocks are free"; other engines' "no blocks left/available")
        msg(r"waiting for (?:free )?KV[- ]cache blocks|\bno (?:KV[- ]cache )?blocks (?:are |were )?(?:free|left|available)\b",
            "oom", "RUNTIME", "kv-blocks-exhausted"),
        # a paged KV pool that cannot give a request its pages (shortfin's PagePool "Failed to allocate 6 pages")
        msg(r"CacheAllocationFailure|Failed to allocate \d+ pages from", "oom", "RUNTIME", "kv-blocks-exhausted"),
        # XLA (TPU, JAX, PyTorch/XLA): device memory, not gRPC's quota of the same name
        msg(r"RESOURCE_EXHAUSTED\W.{0,200}?(?:Attempting to (?:reserve|allocate)|[Aa]llocat|\bHBM\b|out of memory)", "oom"),
        # the KV pool full under load in a user's words ("the GPU KV cache usage keeps increasing and reaches 100%, then
        # the model generates nothing"): pressure while serving (not where supposed or asked: prose's rules)
        # (anchored, with a look for its "100%" first: the statistics line every engine prints holds "KV cache usage",
        # and a search from every position of it is slow)
        msg(r"^(?=[^\n]*?100\s?%)[^\n]*?\bKV[- ]?cache usage\b[^.;!?\n]{0,60}?\b(?:reach(?:es|ed|ing)?|hits?|is at|goes to|went to|stays at|"
            r"stuck at|gets to|got to)\s+100\s?%(?!\?)", "pressure", "RUNTIME", "kv-cache-full"),
        # ... or the pool named after its share ("Hitting close to 100% cache causes spike in waiting", "at ~100% KV
        # cache, requests pile up"; each form's whole words the block search looks for, not a bare "100", which the
        # digits of every dated line take the shape of)
        msg(r"\b(?:hit(?:s|ting)?|reach(?:es|ed|ing)?|at|near(?:ly)?|close to|almost)\s+(?:close to\s+|near\s+|nearly\s+|"
            r"almost\s+|~)?100% cache\b(?![^\n]*\?\s*$)", "pressure", "RUNTIME", "kv-cache-full"),
        msg(r"\b(?:hit(?:s|ting)?|reach(?:es|ed|ing)?|at|near(?:ly)?|close to|almost)\s+(?:close to\s+|near\s+|nearly\s+|"
            r"almost\s+|~)?100% KV cache\b(?![^\n]*\?\s*$)", "pressure", "RUNTIME", "kv-cache-full"),
        # a request refused for want of KV room (vllm.rs "Remaining N kvcache tokens, but your prompt requires M")
        msg(r"Remaining \d+ kv ?cache tokens, but (?:your )?prompt requires", "pressure", "RUNTIME",
            "request-exceeds-kv-pool"),
        # ... or refused at once where its own words name the KV cache as the limit (FreeToken's "prompt is too long:
        # 16535 tokens > 8221 maximum (prompt + generation); shorten the prompt or increase the KV cache budget"; "input
        # of N tokens exceeds the KV cache capacity", "does not fit in the KV cache"): the pool made at start is smaller
        # than one request, not a context setting alone
        msg(r"(?<!\ba )(?<!\bany )(?<!\bif )(?<!\bwhen )(?<!\bif the )(?<!\bwhen the )(?<!\bif a )(?<!\bwhen a )"
            r"\b(?:prompt|input|request)\b[^\n]{0,60}?(?:\btoo long\b[^\n]{0,160}?\b(?:increase|raise|enlarge|grow)\b"
            r"[^\n]{0,20}?\b[Kk][Vv][- ]?cache\b|\b(?:exceeds?|(?:does not|doesn't|do not|don't|cannot|can't) fit in)\b[^\n]{0,12}?\b"
            r"(?:the |your )?[Kk][Vv][- ]?cache(?:'s)?(?: size| capacity| budget| pool)?\b)(?![^\n]*\?)|"
            # (in Chinese: "请求 id=19 被拒绝: 输入 12000 tokens 超出 KV cache 容量 (8192 tokens)")
            r"\b\d+ tokens? exceeds? (?:the )?[Kk][Vv][- ]?cache(?:'s)?(?: size| capacity| budget)?\b(?![^\n]*\?)|"
            r"(?:超出|超过)\s*(?:了\s*)?(?:[Kk][Vv]\s*[Cc]ache|KV\s*缓存)\s*(?:的\s*)?(?:容量|大小|上限)(?![^\n]*[?？])|"
            # (Japanese "KV キャッシュの容量を超えています", Spanish "no cabe en la caché KV")
            r"KV\s*キャッシュ(?:の)?(?:容量|サイズ|上限)(?:（[^）\n]{0,30}）|\([^)\n]{0,30}\))?を超え|\bno cabe en la cach[ée] (?:KV|de KV)\b", "pressure", "KV",
            "request-exceeds-kv-pool"),
        # a request refused as longer than the engine allows, in the form "prompt is too long: N tokens > M maximum"
        msg(r"\bprompt (?:is )?too long\b[:(]?\s*\d+ tokens\s*>\s*\d+(?![^\n]*\b[Kk][Vv][- ]?cache\b)", "request", code="requests-refused-too-long"),
        # TVM's paged KV cache with no free page left for a sequence that grows (relax_vm/paged_kv_cache.cc GetFreePage,
        # as MLC LLM and WebLLM run it: "Check failed: (!free_page_ids_.empty()) is false: The KV cache is full. No
        # page can be allocated."): a request, or the requests at once, longer than the pool made at start
        msg(r"\bThe KV cache is full\. No page can be allocated\b", "oom", "RUNTIME", "request-exceeds-kv-pool"),
        # LMCache (a KV offload layer under vLLM/SGLang): its own buffer is full, the engine's pool is not ("Failed to
        # allocate memory for the KV cache ... will not be stored"); the engine goes on
        msg(r"^(?![^\n]*(?:CUDA out of memory|OutOfMemoryError))[^\n]*?(?:LMCache\b.{0,200}(?:Failed to allocate memory|"
            r"will not be stored)|will not be stored)", "note",
            code="lmcache-store-full"),
        # an out of memory the program caught and went on from another way (FlashInfer's autotuner: "[Autotuner]: OOM
        # detected, falling back to default tactic"; "out of memory, falling back to CPU"): a warning, no failure
        # (not one that cannot: "... Cannot fallback to the eager mode.", "fallback ... disabled")
        msg(r"(?:\bOOM\b|out of memory)[^\n]{0,60}?(?<!cannot )(?<!can't )(?<!could not )(?<!unable to )\b(?:falling back|"
            r"fall(?:s|ing)? back|fallback) to\b(?![^\n]{0,60}\b(?:disabled|also failed|failed)\b)", "note",
            code="oom-fallback"),
        # ... or PyTorch's warning that CUDA could not start when it counted the devices (torch/cuda/__init__.py
        # _is_compiled/is_available: "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). ...
        # Error 2: out of memory"): the program goes on without CUDA (an environment report's torch.cuda probe, a WSL
        # or MIG set-up); the failure, if any, is what comes of it later
        msg(r"CUDA initialization: Unexpected error from cudaGetDeviceCount\(\)", "note", code="cuda-init-warning"),
        # ... or an exception Python ignored and went on from (sys.unraisablehook's default: "Exception ignored in:
        # <function Llama.__del__ at 0x7f...>" at exit, "Exception ignored on calling ctypes callback function:
        # <function llama_log_callback ...>", "Exception ignored in atexit callback", 3.13's "Exception ignored while
        # ..."): its traceback, which follows, is no failure (logs.scan passes it over; an out of memory in it is still
        # read)
        msg(r"^\s*Exception ignored (?:in\b|on\b|while\b|when\b)", "note", code="exception-ignored", flags=0),
        # ... or TensorFlow's and XLA's plugins registered twice when both are imported in one process (a notebook, a
        # server that imports TensorFlow through a dependency: cuda_dnn.cc, cuda_fft.cc, cuda_blas.cc "Unable to
        # register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been
        # registered", at absl's E level), and its "computation placer already registered": noise, nothing fails
        msg(r"\bUnable to register cu(?:DNN|FFT|BLAS) factory: Attempting to register factory for plugin \w+ when one has "
            r"already been registered\b|\bcomputation placer already registered\b", "note", code="plugin-registered-twice"),
        # ... or a library's lookup of the code's git repository that failed (wandb's "git root error: Cmd('git') failed
        # due to: exit code(128)" with GitPython's "cmdline: git rev-parse --show-toplevel" and git's "fatal: detected
        # dubious ownership in repository", a version string read by `git describe`): the program goes on without it
        msg(r"\bgit root error:|\bCmd\('git'\) failed due to: exit code\(\d+\)|^\W*(?:stderr: \W*)?fatal: (?:detected "
            r"dubious ownership in repository|not a git repository)\b", "note", code="git-lookup-failed"),
        # ... or skipped the case it was trying (TensorRT-LLM's benchmarks/python/benchmark.py: "Exception <e> caught
        # while allocating memory; skipping <config>"; a sweep's "OOM, skipping batch size 64"), or a driver's list of
        # the cases it will not run and why ("  SKIP  openai/gpt-oss-20b  tp=2 ...: gpt-oss-20b + tp<4
        # (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY — model too large for 2 GPUs)", "[SKIPPED] bs=64: OOM on A10"): none ran
        msg(r"(?:\bOOM\b|out of memory)[^\n]*?(?:\bcaught while allocating memory; skipping\b|"
            r"[,;:]\s*skipping (?:this |the )?(?:config|configuration|batch size|case|shape|test|run)\b)|"
            r"^\s*(?:\[SKIP(?:PED)?\]|SKIP(?:PED)?\b(?!\s*[:=]\s*\d)|Skipping\s+(?:config|configuration|case|run|model)\b)"
            r"[^\n]{0,300}?(?:\bOOM\b|(?i:out[ _]of[ _](?:device[ _])?memory))", "note", code="oom-fallback", flags=0),
        # the advice PyTorch appends to a CUDA or HIP error (c10/cuda/CUDAException.cpp, c10_cuda_check_implementation):
        # a CUDA error was raised; the line with its cause comes before it and may be lost from a paste
        msg(r"\b(?:CUDA|HIP) kernel errors might be asynchronously reported at some other API call|"
            r"\bCompile with `?TORCH_USE_(?:CUDA|HIP)_DSA`? to enable device-side assertions", "wrapper"),
        # a backend process that died under its front end (LocalAI's gRPC backends): why is in the backend's log
        msg(r"rpc error: code = \w+ desc = (?:error reading from server: EOF|connection error|transport is closing)",
            "wrapper"),
        # FlashInfer's workspace (flashinfer/allocator.h AlignedAllocator): a fixed buffer (VLLM_FLASHINFER_WORKSPACE
        # _BUFFER_SIZE, SGLang's flashinfer_workspace_size) too small for a batch's temporaries, not the GPU full
        msg(r"(?:Buffer overflow|Failed to allocate memory) (?:when allocating memory )?for \w+ with size \d+ and "
            r"alignment \d+|in AlignedAll?oc?at?or\b|Increase the workspace buffer size|"
            # (FlashInfer 0.1's words, its own misspelling: "Out of workspace memory in AlignedAlloactor")
            r"\bOut of workspace memory\b", "not_oom",
            code="workspace-buffer-too-small"),
        # data larger than a buffer the engine sized from its settings (TensorRT-LLM auto-deploy's "Data too large for
        # buffer 'cu_seqlen': 114 > 5", max_batch_size + 1 entries asked for a CUDA graph batch of 113): the settings
        # disagree, or a bug; not the GPU full
        msg(r"\b(?:[Dd]ata|[Ii]nputs?|[Tt]ensors?) (?:is |are )?too (?:large|big|long) for (?:the )?buffer\b",
            "not_oom", code="fixed-buffer-too-small"),
        # FlashInfer's own check on a batch's plan (FLASHINFER_CHECK: "Error in function 'MLAPlan' at
        # .../flashinfer/attention/scheduler.cuh:1072: qo_indptr[2]14740 - qo_indptr[1]14741 should be non-negative"):
        # indices or shapes it does not accept, a bug or an unsupported input; not one about its workspace
        msg(r"\bError in function '\w+' at \S+\.(?:cuh|cu|h|hpp|cc|cpp):\d+:\s+(?![^\n]*(?:" + MEMORY_TERMS
            + r"|workspace|AlignedAll))", "not_oom", code="kernel-check-failed"),
        # an error in C or C++ style, a source location then the failure, with no error word of its own
        msg(r"\.(?:h|hh|hpp|c|cc|cpp|cxx|cu|cuh):\d+:(?:\d+:)?\s+(?:[Ee]rror\b|[Ff]atal\b|.{0,120}\b(?:[Ff]ailed|"
            r"[Oo]verflow|[Cc]annot|[Uu]nable to|[Aa]bort(?:ed|ing)?)\b)", "error", flags=0),
        # ... and ggml's abort, GGML_ABORT's "file:line: message" alone on its line before the backtrace it prints
        # (ggml.c ggml_abort: "clip.cpp:4391: Unknown projector type"); no column, unlike a compiler's diagnostics
        # (one pattern per source suffix: each has a word of its own for the prefilter)
        *(msg(r"^\s*(?:[A-Za-z]:)?[^\s:]*\." + suffix + r":\d+: (?!warning\b|note\b|In function\b)[A-Za-z][^\n]{2,200}$",
              "error", flags=0) for suffix in ("c", "cc", "cpp", "cxx", "cu", "m", "mm")),
        # a request whose prompt would need more memory than is free (oMLX "Prefill context too large for available
        # memory"): refused while serving
        msg(r"(?:[Pp]refill|[Pp]rompt|[Rr]equest)\b.{0,40}\btoo large for (?:the )?available memory", "oom", "RUNTIME",
            "request-exceeds-memory"),
        # ... or stopped by its memory guard partway through one (oMLX's scheduler "Memory limit exceeded during
        # prefill"): a request, while serving
        msg(r"\b[Mm]emory limit exceeded (?:during|while|in) (?:the )?(?:prefill|decode|decoding|generation|request)",
            "oom", "RUNTIME", "request-exceeds-memory"),
        # a model refused before it loads because its weights' size is over a memory cap or what is free (oMLX
        # "Model 'X' (218.08GB) exceeds max-model-memory (25.00GB)", "model size (41.2 GiB) exceeds available VRAM")
        msg(r"\b[Mm]odel\b[^\n]{0,160}?\(\s*\d[\d.,]*\s*[KMGT]i?B\)\s+exceeds\s+(?:the\s+)?(?:max[-_ ]model[-_ ]memory|"
            r"(?:\w+ )?(?:memory|VRAM|RAM) (?:limit|budget|cap)|(?:available|free|total) (?:GPU |device |system )?"
            r"(?:memory|VRAM|RAM))\b|\b[Mm]odel (?:size|weights)\b[^\n]{0,40}?\bexceeds?\b[^\n]{0,30}?\b(?:available|free|"
            r"total) (?:GPU |device |system )?(?:memory|VRAM|RAM)\b", "oom", "WEIGHTS", "weights-exceed-memory-limit",
            flags=0),
        # a traceback's `raise` statement as an error-level log line prints it ("ERROR 01-22 09:42:00 [core.py:58]
        # raise ValueError(...)"): an exception under way, its class and message on a line after it
        msg(r"\bERROR\b[^\n]{0,200}?\]\s{3,}raise [A-Za-z_]", "error", flags=0),
        # a hybrid model's recurrent-state pool out of blocks under load (TensorRT-LLM's MambaCacheManager "run out of
        # mamba cache blocks"): its own pool beside the KV cache, full while serving
        msg(r"\bout of mamba cache (?:blocks|slots)\b", "oom", "RUNTIME", "mamba-pool-exhausted"),
        msg(r"Deadlock detected\. Resetting KV cache and recomputing requests", "pressure", "RUNTIME",
            "kv-pool-full-recomputing"),
        # one pattern per wording: a line is tried only against the wordings whose words it holds (one
        # alternation of them all costs ~100 us a line with re.I)
        *(msg(w, "oom") for w in OOM_WORDS),
        # a fatal error whose cause these words do not say (one pattern each: a line is tried only against
        # the patterns whose words it holds)
        msg(r"\w(?:Error:|Exception:)", "error"),
        msg(r"^\W{0,3}(?:Exception|Error): \S", "error"),  # Python's base classes: "Exception: <message>"
        msg(r"CUDA (?:runtime )?error", "error"),
        # a benchmark's or a client's own word that the server it drives went away ("Server appears down, stopping
        # context sweep", "the server seems to have crashed"): a failure, its cause in the server's own log
        msg(r"\b(?:[Ss]erver|[Ee]ngine|[Bb]ackend) (?:appears|seems) (?:to (?:be|have) )?(?:down|dead|unresponsive|died|"
            r"crashed|gone)\b(?![^\n]*\?)", "error"),
        msg(r"Traceback \(most recent call last\)", "error"),
        # a launcher's word that a worker or service it started did not come up, its cause in a log of its own ("[Worker
        # 0] FAILED to start! Check tmp/worker_0.log", "backend failed to start, see /var/log/llm/backend.log"): a
        # failure, its cause in that file
        msg(r"\b(?:FAILED|[Ff]ailed) to start\b[^\n]{0,40}?[!.,:;]?\s*(?:[Cc]heck|[Ss]ee|[Ll]ook at|[Dd]etails in)\s+(?:the\s+)?"
            r"[\w./~${}*-]+\.(?:log|txt|err|out)\b", "error", flags=0),
        msg(r"\bpanic:|\bpanic serving [^\s:]+:\d+: |Check failed|terminate called|core dumped|FATAL EXCEPTION|GGML_ASSERT|GGML_ABORT|"
            r"fatal error|Assertion fail", "error"),
        # (not a count a script prints under the label, "parse error: 116", "errors: 0")
        msg(r"\berror: (?![\d.,]+\s*%?\s*$)\S", "error"),
        # (an application's own marker before the error it relays, RAGFlow's "Fail to access model(qwen2:0.5b).
        # **ERROR**:invalid format: expected \"json\" ...", "**ERROR**: CONNECTION_ERROR - Connection error.")
        msg(r"\*\*ERROR\*\*:\s*\S", "error"),
        # (a server's JSON error body for a 5xx, pasted alone: '{"error":{"code":503,"message":"Service
        # Unavailable","type":"server_error"}}'; its message is the cause, where it names one)
        msg(r"^\s*\{\s*\x22error\x22\s*:\s*\{[^\n]{0,200}?\x22code\x22\s*:\s*5\d\d\b", "error"),
        # a line at ERROR or FATAL level (Python logging, glog's "E0131", tracing, JSON, logfmt) saying something
        # failed: a failure whose cause is what follows ("Failed to start model server: <cause>")
        msg(r"(?:\b(?:ERROR|FATAL|CRITICAL)\b|\"level\":\s*\"(?:ERROR|error|FATAL|fatal)\"|level=(?:ERROR|error|FATAL|"
            r"fatal)\b|^\s*[EF]\d{4}(?:\d{4})? \d\d:)"
            r".{0,300}?\b(?:[Ff]ailed|FAILED|[Uu]nable) to \w", "error", flags=0),
        # ... or naming what failed after it ("compare_with_baseline | ERROR - FAILED: Recovery thresholds not met",
        # "ERROR: FAILED: accuracy check")
        msg(r"(?:\b(?:ERROR|FATAL|CRITICAL)\b|level=(?:ERROR|error|FATAL|fatal)\b(?:\s+msg=)?)\W{0,5}"
            r"(?:FAILED|Failed|failed):\s+\S",
            "error", flags=0),
        msg(r"\berror loading [\w ]{1,40}: \S", "error"),
        # ... or with no level, a program's own line that a step failed and why, at the line's start ("Failed to
        # create new snapshot: Expected GGUF version '3', but got '2'", RamaLama's model store)
        msg(r"^\s*Failed to [a-z][\w -]{1,60}: (?!//)\S", "error", flags=0),
        # an exception a server logs and names (LMDeploy's engine loop "exception happened: <class 'IndexError'> ...")
        msg(r"\bexception (?:happened|occurred|occured|raised|caught)\b", "error"),
        # a server's own words for a failed request or graph run, whose cause is elsewhere (OVMS, Triton)
        msg(r"\b(?:[Ee]xecution|[Rr]equest processing|[Ii]nference) failed\b", "error", flags=0),
        # a Rust panic (mistral.rs, TGI's router, candle): the cause is its message, on the same or next line
        # (Rust 1.88+ names the thread's id too: "thread 'main' (75) panicked at src/utils/kvcache_allocator.rs:539:13:")
        msg(r"thread '[^']*'(?: \(\d+\))? panicked at|\bfailed with error `|called `Result::(?:unwrap|expect)\(\)` on an `Err` "
            r"value: ", "error", flags=0),
        # a request answered with a server error (an access log: uvicorn's `"POST /v1/... HTTP/1.1" 500`): a
        # request failed while serving, its cause elsewhere (Gin's `| 500 |` is Ollama's, whose requests load the
        # model first: engines/ollama.py)
        # (not a probe of the server's own state, "GET /health HTTP/1.1" 503 Service Unavailable: servers answer it 503
        # until their warm-up is done, SGLang until its first /generate; no request of a user's failed)
        # (nor 501 Not Implemented: a request for what the server does not do, refused; logs.quiet reads it as such)
        msg(r"\x22(?:POST|GET) /(?!" + PROBE_PATH + r")[^\x22]*\x22 50[023]\b", "error", "RUNTIME"),
        # the loader's exception named with a cause of no memory (src/llama.cpp llama_model_load's catch, "error loading
        # model: %s": "borrow_shared_tensor: this model is a draft head without its own 'token_embd.weight'", "failed
        # to open x.gguf: No such file or directory", "invalid split file idx: 3"): the file or the settings; not a
        # buffer it could not allocate or map, nor its own words that it failed with no cause; last of all, so
        # the causes named above (a read error, a lost device, a back end not loaded) keep their own codes
        msg(r"\berror loading model: (?!error loading model\b)(?!\s*$)"
            # (nor one that names only the file, "error loading model: '/models/x.gguf'": no cause)
            r"(?!" + PATH_ALONE + r")(?![^\n]*(?:alloc|memory|buffer|mmap|\boom\b|"
            r"\bout of\b|OutOf|insufficient|not enough|too large|too big|too small|exceed|resource|failed to load model|"
            r"paging file|\bcommit|VRAM|\bRAM\b|"
            r"\bNULL\b|nullptr|"
            # (nor a front end relaying the server's status, "Error loading model: Request failed: 500": no cause)
            r"\bRequest failed\b|\bstatus(?: code)?\s*[:=]?\s*[45]\d\d\b|\bHTTP\b|Internal Server Error|"
            r":\s*[45]\d\d\s*$))", "not_oom", code="model-load-error"),
    ),
    frames={
        # building the model's layers (their weights allocated in __init__: torch.empty in a layer) or moving it
        # to the GPU (nn.Module.cuda/.to run _apply over every tensor)
        # (and ggml's example programs and the C++ ports built on them, their loader's own lines: starcoder.cpp's
        # "starcoder_model_load: ggml ctx size = 51276.47 MB", gpt-2's "gpt2_model_load: loading model from ...", the
        # weights' context made next)
        # (and a checkpoint read whole into memory, `torch.load(ckpt_path, map_location="cpu")`, Meta's example.py)
        # (and a trainer's copy of the model as its reference, TRL's create_reference_model -> copy.deepcopy(model): a
        # second copy of the weights placed on the device)
        "WEIGHTS": rx(r"from_pretrained|_load_state_dict|load_state_dict|load_model|load_weights|weight_loader|"
                      r"\bcreate_reference_model\b|"
                      r"\btorch\.load\(|"
                      # (a model's own class built, its layers' weights allocated in its constructor: Meta's llama
                      # reference "llama/model.py", line 211, in __init__ under example.py's `load`, a modeling_*.py)
                      r"[/\\](?:model|modeling_\w+)\.py\W+line \d+, in __init__|"
                      r"^(?![^\n]*\bvocab only\b)[a-z][a-z0-9]*(?:_[a-z0-9]+)*_model_load: |"
                      r"(?:layers|models)/(?:\w+/){0,3}\w+\.py\W+line \d+, in __init__|self\._apply\(|\bin _apply\b|"
                      # (PyTorch's own layers made on the device, `with torch.device("cuda")`: nn.Linear's __init__,
                      # "torch.empty((out_features, in_features), **factory_kwargs)")
                      r"torch/nn/modules/\w+\.py\W+line \d+, in __init__|"
                      r"Parameter\(torch\.empty|_load_pretrained_model|dispatch_model|loading model tensors|"
                      # (LLaVA's builder, copied into most vision-language repositories, llava/model/builder.py
                      # `load_pretrained_model`, and its resize of the embeddings to the tokenizer after the load,
                      # transformers' modeling_utils.py `resize_token_embeddings`)
                      r"\bin load_pretrained_model\b|\bin (?:_?resize_token_embeddings|_get_resized_embeddings)\b|"
                      # (a model-parallel layer allocating its weights as it is built: fairscale's and Megatron's
                      # _initialize_affine_weight, under the reference Llama's "model = Transformer(model_args)")
                      r"\b_initialize_affine_weight\b|"
                      # (... and a layer built on the device, Megatron's and TransformerEngine's: `_LAYER_BUILT`)
                      + _LAYER_BUILT + r"|"
                      r"(?:checkpoint|[Mm]ulti-thread loading) shards:|Loading weights|loading weights|Loading model weights|load_bmodel|"
                      r"Loading bmodel|error (?:while )?loading (?:the )?model\b|"
                      # (a tool's own catch of the load's exception, the out of memory in the same line: rkllm-toolkit's
                      # "ERROR: Catch exception when loading model: CUDA out of memory. Tried to allocate 260.00 MiB")
                      r"\b(?:exception|error)s? (?:caught |occurred |raised )?(?:when|while|during) loading (?:the )?model\b"
                      r"(?=[^\n]{0,40}\b(?:out of memory|OOM)\b)|"
                      # (candle's examples and servers: "loading the model weights from ...", "building the model")
                      r"\bloading the model weights\b|"
                      # (a server's own line that its model's load has begun, an ellipsis after it: PowerServe's
                      # "[INFO ] Load model qwen2 ...", "Loading model llama-3-8b..."; no such line once it finished)
                      # (also with the shell's "Killed" printed after it on the same line: "Loading model... Killed")
                      r"^\W{0,3}(?:\[?(?:INFO|I)\s*\]?\s*:?\s*)?Load(?:ing)? model\b[^\n]{0,80}?(?:\.\.\.|…)\s*(?:Killed)?\s*$|"
                      # (a loader's line per tensor as it places it, ktransformers' custom GGUF loader: "loading
                      # blk.39.attn_q_a.weight to cuda:0", "loading token_embd.weight to cpu")
                      r"^loading (?:blk\.\d+\.)?[\w.]+\.(?:weight|bias|scales?) to (?:cuda(?::\d+)?|cpu|npu(?::\d+)?)\b|"
                      # (nn.Module.to's convert, moving each weight to the device: "return t.to(device, dtype if ...";
                      # a whole model moved, transformers' Trainer._move_model_to_device "model = model.to(device)")
                      r"\breturn t\.to\(\s*device\b|\b_move_model_to_device\b|\bmodel\.(?:cuda|to)\(|"
                      # (FastChat's model worker, as Langchain-Chatchat runs it: "Loading the model ['Qwen-14B'] on
                      # worker 07c851a3 ...")
                      r"\bLoading the model \[[^\]]{1,200}\] on worker\b|"
                      # (a wrapper's verdict of a load in the same line as its error: LocalAI's "could not load model
                      # (no success): Unexpected err=OutOfMemoryError(...)")
                      r"\bcould not load (?:the )?model\b|"
                      # (... or its own line that the model failed to load, with the out-of-memory it gives as the cause:
                      # vox-box's "Faild to load model, CUDA failed with error out of memory"; not llama-server's bare
                      # "failed to load model", which it also prints when the context failed)
                      r"\bfai?le?d to load (?:the )?model\b(?=[^\n]{0,80}\b(?:out of memory|OOM)\b)|"
                      # (and a Rust server's "Model load failed: cannot find tensor blk.21...: DriverError(
                      # CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")", inferrs; its tensor's name first)
                      r"\bmodel load(?:ing)? failed\b(?=[^\n]{0,240}(?:\bout of memory\b|\bOOM\b|_OUT_OF_MEMORY\b))|"
                      # (candle's in-situ quantization of a weight as it is loaded, mistral.rs's ISQ: "QTensor::quantize")
                      r"\bQTensor::quantize\b|"
                      r"\bcreated tensor\b|"
                      # (a Rust backtrace's frame of candle's weight reader, which mistral.rs and vllm.rs build their
                      # layers from: candle_nn::var_builder's VarBuilder get / ShardedSafeTensors, MmapedSafetensors)
                      r"\bcandle_nn::var_builder::|\bVarBuilder(?:Args)?(?:<[^>]{0,40}>)?::get|\bShardedSafeTensors\b|"
                      r"\bMmapedSafetensors::load\b"),
        # (not a setting of the cache named, TensorRT-LLM's config check 'KV cache quantization set to "auto"')
        # (and gpt-fast's static cache, as fish-speech and torchchat make it: "model.setup_caches(", "b.attention.kv_cache
        # = KVCache(", 'self.register_buffer("k_cache", torch.zeros(cache_shape, ...))')
        "KV": rx(r"\bsetup_caches\b|\bKVCache\(|\bregister_buffer\(\s*[\x22'](?:k|v|kv)_cache[\x22']|"
                 r"kv_cache_init|allocate_kv|kv cache(?! (?:quantization|dtype|data ?type|type|config)\b)|"
                 r"(?<!_initialize_)kv_cache(?!_dtype|_config)|cache blocks|\b(?:kv|key|value|k|v)_(?:buffer|cache)s?"
                 r"\s*=\s*\[?\s*torch\.(?:empty|zeros)"),
        # (ahead-of-time compilation of the model's programs at start: XLA/JAX on TPUs, torch.compile)
        # (and kernels tuned at start: FlashInfer's and Triton's autotuners run each kernel's variants once, before serving)
        "WARMUP": rx(r"\bcaptur|cuda_graph|CudaGraph|CUDA graphs can take|graph_runner|warm(?:ing)?[ _-]?up|"
                     # (not a profile as a noun, NIM's "a profile that is currently runnable", "compatible profile(s)"; nor
                     # a profiler's decorator around a call, TRL's "trl/extras/profiling.py", line 98, in wrapper": the
                     # call it wraps is the step; nor torch's optimizer step wrapper, "Optimizer.profile_hook_step.<locals>
                     # .wrapper" in torch/optim/optimizer.py, around every optimizer.step() of a training loop)
                     r"\bprofil(?!\w* verbosity)(?!es?\b(?![ _]run))(?!ing\.py\W+line \d+, in (?:wrapper|profiling_\w+)\b)"
                     r"(?!e_hook_step\b)|"
                     r"\bautotun(?:e|es|ed|ing)\b|"
                     r"torch_compile_cache|_run_compilation|compilation_manager|precompil|compile_or_warm|"
                     r"XLA:\w+ compile\b|\bcompile permanent error|"
                     # the custom all-reduce registering the buffers a capture used, as the capture ends (vLLM's and
                     # SGLang's custom_all_reduce.py register_graph_buffers): the capture is still under way
                     r"Registering \d+ cuda graph addresses"),
        # (also a web UI's handler of a user's request, Gradio's queue: gradio/queueing.py call_prediction,
        # route_utils.py call_process_api: a request served; the app loads its model before launch())
        # (and an engine woken from sleep mode to generate again, vLLM's LLM.wake_up: it takes back the memory of its
        # weights and KV cache while a trainer that shares the GPU holds memory of its own)
        # (and a training loop's step, the model loaded and in use: transformers' Trainer "in _inner_training_loop",
        # "in training_step", the optimizer's step and the backward pass: activations, gradients and the optimizer's
        # state, as a request's work is for a server)
        "RUNTIME": rx(r"gradio[/\\]queueing\.py|\bin call_prediction\b|\bin call_process_api\b|\bin wake_up\b|"
                      # (IPython names the class too, "in Trainer.training_step(self, model, inputs)"; unsloth's own
                      # loop is "_fast_inner_training_loop")
                      r"\bin (?:\w+\.)?_?\w*inner_training_loop\b|\bin (?:\w+\.)?_?\w*training_step\b|\boptimizer\.step\(|"
                      # (a notebook's own training function, "Cell In[48], line 128, in train_with_grpo(model, ...)")
                      r"\bin (?:\w+\.)?train_(?:with|step|epoch|loop|one|model|grpo|ppo|dpo|sft)\w*\b|"
                      r"\bin (?:\w+\.)?_init_group\b|"
                      r"\.backward\(|\bin (?:\w+\.)?backward\b|"
                      r"\bin generate\b|\.generate\(|generate_step|greedy_search|beam_search|\bin _sample\b|"
                      r"\bprompt_step\b|\bstream_generate\b|batch_generator\.py|"
                      # (a handler's name, not a script's file named after it: "example_chat_completion.py", the
                      # reference Llama's example, loads the model before any request)
                      r"in _prefill|/v1/(?:chat/)?completions|chat_completion(?!\w*\.py\b)|\bchatcmpl-|\brequest_id\b|"
                      # (an OpenAI-style server's request handler: Xinference's restful_api "in create_embedding",
                      # llama-cpp-python's create_completion, a rerank endpoint)
                      r"\bcreate_(?:embeddings?|completion|rerank)\b|"
                      r"\bschedule (?:a |the )?(?:single )?(?:sequence|request)|\bPrefill failed for\b|"
                      # (a server's own line that a request failed, any server's words: "request 17 failed:",
                      # "error processing request", "failed to handle request abc12")
                      r"\brequest (?:#|no\.? ?)?\d+ failed\b|\b(?:error|exception) (?:while )?(?:processing|handling|"
                      r"serving) (?:the |a |this )?request\b|\bfailed to (?:process|handle|serve) (?:the |a |this )?request\b|"
                      r"Error during (?:chat )?streaming|"
                      # (an application's own words that its work on an input failed, the error after them: MonkeyOCR's
                      # "Parsing failed: CUDA out of memory", "Processing failed: ...", docstrange's "Nanonets OCR
                      # extraction failed:")
                      r"\b(?:[Pp]arsing|[Pp]rocessing|[Ee]xtraction|OCR|[Tt]ranscription|[Cc]onversion|[Rr]ecognition|"
                      r"[Tt]ranslation|[Ss]ummari[sz]ation|[Ii]ndexing) failed:|"
                      # a request's prefill by its progress ("during chunked prefill at 51072/53418 tokens", "Prefill
                      # force-stopped at 1441 tokens")
                      r"\bduring (?:chunked )?prefill at \d+/\d+ tokens\b|\bPrefill force-stopped at \d+ tokens\b"),
        # a graph evaluation, the warm-up's or a request's: cuBLAS makes its handle and workspace at the first matrix
        # product (CUBLAS_STATUS_ALLOC_FAILED there), never while the weights or the KV cache are allocated
        "COMPUTE": rx(r"CUBLAS_STATUS_ALLOC_FAILED"),
    },
    milestones=(
        # (transformers' shard bar; not SGLang's multithreaded loader's, "Multi-thread loading shards: 100%", after which
        # its load_model goes on, the weights processed, until "Load weight end")
        ("weights_done", rx(r"Loading checkpoint shards: 100%")),
        # (and a health check answered 200, in any server's access line or a user's words: "GET /health HTTP/1.1" 200,
        # "`/health` still returned 200"; servers answer it 200 only once the model is loaded, 503 before)
        ("ready", rx(r"Application startup complete|Uvicorn running on|"
                     # (a Gradio app launched: "Running on local URL:  http://127.0.0.1:7860", "To create a public
                     # link, set `share=True` in `launch()`.")
                     r"Running on local URL:|To create a public link, set `share=True`|"
                     # (Tabby's server listening, crates/tabby/src/serve.rs: "INFO tabby::serve: ... Listening at
                     # 0.0.0.0:8080")
                     r"\btabby::serve\b[^\n]*\bListening at\b|"
                     # (a server's own line that its model is ready, in any server's words: "model ready", "server is
                     # ready to serve", "ready to accept requests"; not a question of it)
                     r"(?<!\bis )(?<!\bwhen )(?<!\bonce )(?<!\bbefore )(?<!\bif )(?<!\buntil )(?<!\bis the )"
                     r"(?<!\bwhen the )(?<!\bonce the )(?<!\bbefore the )(?<!\bif the )(?<!\buntil the )"
                     r"\b(?:model|server|service)s? (?:is |are )?ready\b(?![^\n]{0,40}\?)|"
                     r"\bready to (?:serve|accept (?:requests|connections))\b(?![^\n]{0,40}\?)|"
                     r"/health\b[^\n]{0,60}?(?<![\d.])200\b(?! ?(?:ms|s\b|sec|bytes|tokens))")),
        # a request's own id, in any engine: OpenAI-style ids, "request_id=...", "Request <uuid>"
        # (an id holds a digit: not a name in a line of code, "infer_tensor(request_id, shard, tensor," under a frame)
        # (or a program's own line that it is generating an answer: "Generating summary with MLX model...",
        # "Generating response...")
        # (or a script's own line of the input it took, by its length: "Prompt tokens: 8", "Number of input tokens =
        # 1532": the model was loaded and an input is going through it)
        ("requests", rx(r"^\s*Generating (?:a |the )?(?:summary|response|answer|reply|completion|output|text)\b(?![^\n]*\?)|"
                        r"^\s*(?:Number of |Total )?(?:prompt|input) tokens\s*[:=]\s*\d[\d,]*\s*$|"
                        r"\b(?:chat)?cmpl-[0-9a-f]{8}|\bchatcmpl-[\w-]{4,}|\brequest[_ ]id\b\W{1,3}(?=[\w-]*\d)[\w-]{4,}|"
                        r"\bRequest:? [\w.-]*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-|"
                        # servers without a module: vllm.rs "Received completion request with 21 messages",
                        # mistral.rs "Throughput (T/s) 320.60, ... 1 running, 0 waiting"
                        r"\bReceived (?:a )?(?:chat )?completions? request|\b[1-9]\d* running, \d+ waiting|"
                        # a request being served, in a user's words ("while a request is in flight", "while
                        # processing a request"), or an inference request's access line answered (not with a 5xx)
                        r"\brequests? (?:is |was |were |are )?(?:still )?(?:in flight|in progress|being (?:served|"
                        r"processed|generated))|\bin[- ]flight requests?\b|"
                        # ... or served for a while ("serves for days, then dies", "after serving fine for 3 hours")
                        r"\bserv(?:es|ed|ing) (?:fine |well |normally |happily )?for (?:an? |a few |several |many |\d+ )?"
                        r"(?:minutes?|hours?|days?|weeks?)\b|"
                        # (or the time it served first: "It OOMs after about 2 hours of serving")
                        r"\bafter (?:about |around |roughly |~)?(?:an?|a few|several|many|\d+(?:\.\d+)?) (?:minutes?|hours?|days?|"
                        r"weeks?) of (?:serving|inference|use|usage|uptime|running|traffic|requests)\b|\b(?:while|when) (?:[\w.-]+ (?:is|was) )?(?:serving|processing|generating|handling|reading|evaluating|ingesting) (?:a |the |\d+ )?"
                        # (or a long input by its length: "when processing a 256k long sequence")
                        r"(?:[\w-]+ ){0,3}?(?:requests?|prompts?|completions?|(?:long |\d+[kK]? )sequences?)\b|"
                        # inference or a load of requests named ("OOM while inference", "with 30 concurrent requests")
                        # (not a warning's hypothesis: vLLM's profiler "may cause certain multi-modal inputs to fail
                        # during inference")
                        # (nor a step named to be told apart: "so that OOM happens during profiling instead of
                        # during inference")
                        # (nor a profiling pass's figure, TensorRT-LLM's "Memory dynamically allocated during inference
                        # (inside torch) in memory usage profiling: 3.12 GiB")
                        # (... of one kind of input: "Crash occurs during vision inference")
                        r"(?<!fail )(?<!instead of )(?<!rather than )\b(?:during|while|at) (?:doing |running )?"
                        # (or of one mode, by its name: "OOM During QDQ Inference", "during FP8 inference", "during
                        # batched inference")
                        r"(?:(?:vision|image|multimodal|multi-modal|VLM|long[- ]context|streaming|quantized|batch(?:ed)?|"
                        r"offline|(?-i:[A-Z][A-Z0-9-]{1,9})) )?"
                        r"inferr?ence\b(?! (?:engine|server)\b)(?![^.\n]{0,60}\bprofiling\b)|"
                        # ... "when inference", as many write it ("When inference，batch size = 4 ... oom occurs")
                        r"\bwhen (?:doing |running )?inferr?enc(?:e|ing)\b|"
                        # ... or requests served ("after the cluster serves requests for a period of time", "during
                        # continuous inference requests")
                        r"\bserv(?:es|ed|ing) (?:user |client |inference |\d+ )?requests\b|"
                        # ... or answered ("The app loads the model fine and answers requests, then ..."), or some of
                        # them failing ("I'm getting this error on certain requests", "then on some request it blows
                        # up"; not before any, "before it answers requests", "never handles requests")
                        r"(?<!before it )(?<!before )(?<!never )(?<!not )(?<!n't )\b(?:answer|handl|process)(?:s|es|ed|ing)? "
                        r"(?:(?:user|client|chat|API|inference|the|some|a few|many|several|\d+) ){0,2}requests\b|"
                        r"\bon (?:some|certain|a few|random|specific|particular|one) requests?\b|"
                        # (or one of the prompts named as the cause: "one of the prompts I'm using causes a CUDA OOM
                        # error", "certain prompts trigger an OOM")
                        r"\b(?:one of (?:the|my) prompts|(?:some|certain|a few|specific|particular|long|longer) prompts?)"
                        r"(?: (?:I'm|I am|we're|I) (?:using|sending|use|send))? (?:causes?|triggers?|leads? to|results? in)"
                        r" (?:an? |the )?(?:CUDA )?(?:OOM|out[- ]of[- ]memory)\b|"
                        # ... or a load by its concurrency ("input 128 / output 128 at 256 concurrency -> oom", "with
                        # 64 concurrent users"), or the server said to be up and serving ("Server is up and serving
                        # DeepSeek-R1-awq; benchmark ...")
                        r"\b(?:at|under|with) \d+ concurren(?:cy|t requests|t users)\b|\bwith \d+ concurrent (?:clients|"
                        r"sessions)\b|\b(?:is|was) up and (?:running and )?serving\b|\bserving traffic\b|"
                        # ... or a number of parallel requests ("when serving 32 parallel requests"; "under load",
                        # bare, is the alternative below, "under (a|the) ... load")
                        r"\b(?:serving|handling|processing|sending|with) \d+ "
                        r"(?:parallel|concurrent|simultaneous) (?:requests|prompts|chats|users)\b|"
                        # ... or asked a number of times ("when I query it more than 4 or so times it ... runs out",
                        # "after I ask it a few times")
                        r"\b(?:query|queried|querying|ask|asked|asking|prompt|prompted|prompting) (?:it|the model|the "
                        r"LLM|the bot) (?:more than |over |about |around )?(?:\d+|a few|several|many|two|three|four|five)"
                        r"(?: or so)? times\b|"
                        # ... or chats or messages handled or answered before it failed ("handles a few chats, then
                        # crashes", "It works for the first few messages, then:")
                        r"\b(?:handles?|handled|answers?|answered|serves|served) (?:a few|some|several|many|two|three|"
                        r"\d+) (?:chats|messages|prompts|conversations|questions)\b|\bworks? (?:fine )?for the first "
                        r"(?:few |couple of |\d+ )?(?:messages|requests|prompts|chats|questions|turns)\b|"
                        # ... in Chinese: requests handled, or running hours before it failed (处理了很多请求后报错,
                        # 服务正常运行了几个小时)
                        r"处理了[^，。,.]{0,10}请求|(?:正常)?运行了(?:几|[0-9一二三四五六七八九十]+)个?(?:小时|天)|"
                        # (or one input run through the model: 预测一个五分钟的音频, 识别一段录音, 推理一张图)
                        r"(?:预测|识别|转写|推理)了?(?:一个|一段|一张|一条|一篇)|"
                        # (or a count of runs it got through: 连续执行 44 次后，出现 OOM, 推理了几十次之后)
                        r"(?:执行|运行|推理|调用|请求|生成)了?\s*(?:\d+|几十|几百|上百|上千|多)\s*次(?:之?后|以后)|"
                        # ... or an input sent to the model that was up (传一个稍微大一点的图片会超显存, 输入提示词，提交后又报
                        # 显存不足, 发送了一段长文本)
                        # (what came of it told after it: 后, 时, 会; not a program's prompt, "请输入您的问题：")
                        r"(?:传|上传|发送|输入|提交)了?(?:一个|一张|一段|一份|一篇)?[^，。,.\n]{0,10}?(?:图片|图像|照片|视频|"
                        r"音频|PDF|pdf|文档|提示词|问题|长文本)(?:后|时|的时候|就|会|又)|提交后|"
                        # ... or the input it failed with, named ("CUDA-ooM with large PDFs", "it's still failing for a 5
                        # page pdf", "crashes on long images")
                        r"\b(?:fail(?:s|ed|ing)?|crash(?:es|ed|ing)?|OOMs?|OOM-?ed|out of memory|dies|died)\s+(?:with|for|on)"
                        r"\s+(?:a |an |the |some |large |long |big |larger |longer |bigger |high-res(?:olution)? |"
                        r"\d+[- ]pages? )+(?:PDFs?|images?|pictures?|photos?|documents?|videos?|audio files?)\b|"
                        # (or the requests, by their length: "it will throw Cuda OOM on longer context questions")
                        r"\b(?:OOMs?|OOM-?ed|out of memory|crash(?:es|ed)?|fails?)\s+(?:with|for|on)\s+(?:the\s+|some\s+)?"
                        r"(?:long|longer|large|larger|big|bigger)\s+(?:context\s+)?(?:questions|prompts|requests|inputs|"
                        r"conversations|queries|documents)\b|"
                        # (or an input sent, by what it holds: "runs out of GPU memory when users upload PDFs bigger
                        # than ~40 pages", "Sending a request with 6 images in one message crashes the server")
                        r"\b(?:send(?:s|ing)?|sent|submit(?:s|ted|ting)?|upload(?:s|ed|ing)?)\s+(?:(?:a|an|one|the|my)\s+)?"
                        r"(?:requests?|prompts?|PDFs?|images?|documents?|videos?|audio(?: files?)?)\s+(?:with|of|bigger|larger|"
                        r"longer|over|containing)\b|"
                        # ... in Chinese: an input too large or long (识别超过10分钟的音频就会爆显存, 图片分辨率一大就显存不足),
                        # or sent from a page (页面上输入问题，点提交之后就报显存不足了)
                        r"(?:超过|大于|长于)[^，。,.\n]{1,12}?的(?:音频|图片|图像|视频|文档|PDF|pdf|文本)|"
                        # (or the text, the prompt, the context: 短文本没事，文本一长就报CUDA error: out of memory)
                        r"(?:音频|图片|图像|视频|文档|PDF|pdf|分辨率|输入|文本|提示词|上下文|问题|内容|对话|prompt)[^，。,.\n]{0,6}?"
                        r"(?:一大|一长|过大|过长|太大|太长)(?:就|时|的时候)|"
                        # (or a large file or document processed: 在初始化比较大文件的时候会爆显存, 处理较长的文档时)
                        r"(?:处理|初始化|导入|上传|解析|向量化)(?:比较|较|很|非常|特别|一个|一些)?(?:大|长)(?:一点|一些)?的?"
                        r"(?:文件|文档|PDF|pdf|文本|数据)|"
                        # ... in English ("crashes while embedding a large document", "when processing a big PDF")
                        r"\b(?:while|when) (?:processing|embedding|indexing|ingesting|uploading|vectori[sz]ing|chunking|"
                        r"parsing|translating|summari[sz]ing) (?:a |the |some |my )?(?:large|big|long|huge|larger|bigger|"
                        r"longer) (?:files?|documents?|PDFs?|texts?|inputs?)\b|"
                        # (or documents of any size, named as such: "when processing PDF files", "when converting a small
                        # PDF file (801KB, 17 pages)"; not the model's own files, "while parsing the model file")
                        r"\b(?:while|when) (?:processing|parsing|converting|extracting|OCR(?:ing)?|embedding|indexing|"
                        r"transcribing|translating|summari[sz]ing) (?:a |the |some |my |these |those |\d+ )?"
                        r"(?:(?!model|gguf|safetensors|weights?\b|checkpoint|config|tokenizer)[\w.-]+ ){0,3}?"
                        r"(?:PDFs?|documents?|pages|images|scans|(?:PDF|image|audio|video) files?)\b|"
                        r"点(?:击)?提交(?:之后|后|以后)|"
                        # (or one request's arrival told: "A long TTS request arrived while other processes held most
                        # of the card"; not one before the load, "The request arrived before the model was loaded")
                        r"\b(?:an?|the)\s+(?:[\w-]+\s+){0,2}?requests?\s+(?:arrived|came in|comes in|arrives)\b"
                        r"(?!\s+(?:before|while (?:the )?model (?:was |is )?load))|"
                        # (not a setting's name: "max concurrent requests to 8")
                        r"(?<!max )(?<!maximum )(?<!number of )(?<!limit of )(?<!limit on )"
                        r"\b(?:continuous|sustained|concurrent|steady) (?:inference |chat |completion )?requests\b"
                        r"(?!\s+(?:to|=|of|limit|setting)\b)|"
                        # ... or a load of them ("the scheduler crashes under heavy eviction/load-back traffic", "under
                        # high concurrency"; not a load test's plan, "will be tested under load")
                        r"(?<!tested )(?<!test )\bunder (?:heavy|high|sustained|peak|production)\s+(?:[\w/-]+\s+)?"
                        r"(?:load|traffic|concurrency)\b|"
                        # ... or a test that sends them ("OOM in high-concurrency precision test", "during the load
                        # test", "in a stress test", "running the throughput benchmark")
                        r"\b(?:high[- ]concurrency|concurrency|load|stress|pressure|throughput|accuracy|precision)"
                        r"(?:\s+precision)?\s+(?:test(?:s|ing)?|benchmark(?:s|ing)?|eval(?:uation)?s?)\b|"
                        # ... or a greeting sent as the prompt ("even saying \"Hello\" will lead to the OOM", "typing hi")
                        r"\b(?:saying|sending|typing|asking|say|send|type)\s+(?:it\s+)?(?:a\s+)?[\x22'`\u201c]?(?:hello|hi|hey)\b|"
                        # ... or an answer being made ("gets OOM when generating a first message"), or a crash after the
                        # server had run a while ("crashes after some time")
                        # (also as a non-native writer puts it, "OOM when generate the first message", or with its
                        # subject, "when it generates the answer")
                        r"\b(?:when|while) (?:(?:it|I|we|the model) )?(?:generating|generates?|generated) (?:a |the |its |my |an )?"
                        r"(?:first |next )?(?:message|response|reply|answer|tokens?|text|output)\b|\b(?:crash(?:es|ed)?|dies|died|fails|OOMs?|hangs)\s+after\s+(?:some\s+time|"
                        r"a\s+while|a\s+few\s+(?:minutes|hours))\b|"
                        # ... or a prompt sent ("when prompting for inference, ollama crashed", "when I prompt it")
                        r"\bwhen (?:I |we )?prompt(?:ing|ed)?\b(?! (?:it |the model )?to (?:load|start))|"
                        # ... or an RL or training run that got partway, its engine serving the rollouts until then
                        # ("midway through training", "训练到中途出现了下面的报错", "训练到一半就OOM了")
                        r"\b(?:midway|halfway|partway|part way|half way|mid-way) (?:through|into) (?:the |my |our )?"
                        r"(?:RL |GRPO |PPO )?training\b|训练到(?:一半|中途)|训练中途|"
                        # (or a count of steps it got through: "I encounter a CUDA OOM error after 50-60 steps", "after
                        # a few iterations it runs out of memory")
                        # (or the error by its class, "it has torch.OutOfMemoryError after several epochs")
                        r"(?:\b(?:OOMs?|OOM-?ed|out of memory|crash(?:es|ed)?|fails?|failed|dies|died|errors?)\b|"
                        r"OutOfMemoryError\b)[^.\n]{0,40}?"
                        r"\bafter (?:about |around |roughly |~)?(?:\d+(?:\s*[-~\u2013]\s*\d+)?|a few|several|some|many) "
                        r"(?:training |RL |PPO |GRPO |rollout )?(?:steps|iterations|epochs|rollouts|episodes|batches)\b|"
                        r"\bafter (?:about |around |roughly |~)?(?:\d+(?:\s*[-~\u2013]\s*\d+)?|a few|several|some|many) "
                        r"(?:training |RL |PPO |GRPO |rollout )?(?:steps|iterations|epochs|rollouts|episodes|batches)\b"
                        r"[^.\n]{0,40}?\b(?:OOM|out of memory|crash|fails|failed|dies|died|errors? out)|"
                        # ... or a request counted by its turn ("It crashes on the second chat message", "fails at the
                        # third request")
                        r"\b(?:on|at|with|after)\s+(?:the\s+|my\s+)?(?:first|second|third|fourth|fifth|next|\d+(?:st|nd|rd|th))\s+"
                        r"(?:chat\s+|user\s+)?(?:message|request|prompt|turn|reply|question|query)\b|"
                        # ... or the out of memory called a runtime one ("Its possible to get a runtime OOM from the MLA
                        # attention workspace", "OOM at inference time")
                        r"\bruntime (?:OOMs?|out[- ]of[- ]memory)\b|\b(?:OOMs?|out of memory) at (?:run[- ]?time|inference "
                        r"time)\b|"
                        # ... or prediction, or serving itself ("OOMing unpredictably on prediction", "OOMed at
                        # prediction-time", "it OOMs while serving"; not "while serving the model", a start)
                        r"\b(?:during|while|at|on) prediction(?:[- ]time)?\b|"
                        # ... a conversation under way ("CUDA out of memory - during a conversation", "in the middle of a
                        # chat")
                        r"\b(?:during|in the middle of|midway through) (?:a |the |my |our )?(?:long )?(?:conversation|chat)\b|"
                        # ... or a failure once requests come ("the service will be up, but it will be OOM when
                        # requested", "it crashes when a request arrives")
                        r"\b(?:OOMs?|OOM-?ed|out of memory|crash(?:es|ed)?|fails?|failed|dies|died)\s+when\s+"
                        r"(?:it(?:'s| is| was)\s+)?requested\b|\bwhen (?:a |the )?(?:first )?requests? (?:comes? in|came in|"
                        r"arrives?|arrived|is sent|are sent|was sent|were sent)\b|"
                        # ... or requests by the length past which they fail ("Requests beyond ~4K context fail with
                        # CUDA_ERROR_OUT_OF_MEMORY", "prompts over 32k tokens crash it")
                        r"\b(?:requests?|prompts?|inputs?|queries|conversations?)\s+(?:beyond|over|above|longer than|past|"
                        r"with more than|exceeding)\s+(?:~|about |around |roughly )?\d[\d,.]*\s?[kK]?\s*(?:tokens?\b|"
                        r"(?:of\s+)?context\b)|"
                        # ... or how far a conversation's context got before it failed ("SYCL can handle ~9200 tokens
                        # before crashing with OOM", "it crashes after about 6k tokens of output")
                        r"\b(?:handles?|process(?:es)?|generates?|gets? through|gets? to|reach(?:es)?)\s+(?:~|about |"
                        r"around |roughly |up to )?\d[\d,.]*\s?[kK]?\s+tokens\s+before\b|"
                        r"\b(?:crash(?:es|ed)?|dies|died|fails|failed|OOMs|OOMed)\b[^.\n]{0,30}?\bafter (?:~|about |"
                        r"around |roughly )?\d[\d,.]*\s?[kK]? (?:generated |output |context )?tokens\b|"
                        # ... or a generation's prompt the program prints as it begins, in the model's chat template
                        # (mlx_vlm's and mlx_lm's generate with verbose on: "Prompt: <|im_start|>system")
                        r"^\s*Prompt:\s*(?:<\|im_start\|>|<\|begin_of_text\|>|<start_of_turn>|<bos>|<s>\s*\[INST\]|\[INST\]|"
                        r"<\|user\|>|<\|system\|>)|"
                        # ... or the length a conversation's context reached when it failed ("when tokens reach 6k",
                        # "once the context exceeds 8000 tokens", 当token达到6k时)
                        r"\b(?:when|once|after|as soon as) (?:the )?(?:tokens?|token count|context(?: length)?|"
                        r"conversation(?: length)?|(?:prompt|input) length) (?:reach(?:es|ed)?|exceed(?:s|ed)?|gets? (?:to|"
                        r"past|over)|grows? (?:past|beyond|over)|goes (?:past|over|above)) (?:~|about |around |roughly )?"
                        r"\d[\d,.]*\s?[kK]?\b|(?:token|上下文|输入|对话)[^，。,.\n]{0,6}?(?:达到|超过|到达)\s*\d|"
                        # ... a request by its size in tokens ("if I put an input of 17,000 tokens into generate")
                        r"\b(?:an?|the|my) (?:input|prompt|request) of (?:~|about |around |over )?\d[\d,.]*[kK]? tokens\b|"
                        # ... or several ("prompts of ~4000 tokens were fine and ~6000 tokens killed the engine")
                        r"\b(?:inputs|prompts|requests|queries) of (?:~|about |around |over |up to )?\d[\d,.]*[kK]? tokens\b|"
                        # ... one request by its prompt ("a single chat-completion request whose tokenized prompt
                        # exceeds ~185K tokens"), or a long prompt's prefill ("OOM during long-context prefill")
                        # ... or a prefill by its size ("hard-resets during a 131K-token DeepSeek V4 prefill")
                        r"\b(?:during|in|on|at) (?:a |the )?(?:first |next )?~?\d[\d,.]*[kKmM]?[- ]tokens? (?:[\w.-]+ ){0,3}?"
                        r"prefill\b|\bthe first (?:~?\d[\d,.]*[kKmM]?(?:[- ]tokens?)? )?(?:large |long )?prefill\b|"
                        # ... a prefill that failed ("prefill dies with CUDA OOM", "the first 8k prefill OOMs", "prefill
                        # OOM when growing --num-tokens")
                        r"\bprefills? (?:OOMs?|OOM-?ed|dies|died|crash(?:es|ed)?|runs? out of memory)\b|"
                        # ... or the out of memory named by its stage, the stage first ("Decode OOM due to wrong new page
                        # estimation", "decoding OOM with 64 concurrent requests")
                        r"\b(?:decode|decoding)[ -](?:OOMs?|out[ -]of[ -]memory)\b"
                        r"(?![^\n]{0,60}\b(?:graphs?|cudagraphs?|captur\w*|warm\w*|profil\w*|dummy)\b)|"
                        # ... or the out of memory at a request's prefill or decode ("single-request OOM at prefill",
                        # "vLLM OOMs during prefill", "runs out of memory in the decode"), or a request submitted
                        # (not a graph named by its batch's kind: "OOMs at decode-graph capture" is the warm-up's)
                        r"\b(?:OOMs?|OOM-?ed|out of memory)\s+(?:at|during|in|on)\s+(?:the\s+|its\s+)?(?:prefill|decode|"
                        r"decoding)\b(?![- ]?(?:cuda[- ]?)?(?:graphs?|cudagraphs?|capture))|\bwhen submitting (?:a |the |one )?(?:single )?(?:[\w-]+ ){0,2}?requests?\b|"
                        # ... or inference begun or a prompt sent, in the report's words ("when I went to inference,
                        # GPU0 went OOM", "when sending large prompt (about 20k+ tokens)", "prompted with 20k+ tokens")
                        r"\bwhen (?:I |we )?(?:went|go|tried|try|started|start) to (?:do |run )?inferr?enc(?:e|ing)\b|"
                        r"\bwhen (?:I |we )?(?:send|sending|sent|submit|submitting|submitted) (?:a |the |my |an? )?"
                        r"(?:large |long |big |longer |bigger )?(?:prompts?|requests?|inputs?|queries)\b|"
                        r"\bprompted with (?:~|about |around |over )?\d[\d,.]*[kK]?\+? tokens\b|"
                        # ... or a request by its prompt's size ("the first generate with a ~33k-token prompt throws",
                        # "sending a 20k token prompt"; not a context set at start, "with a 32k-token context")
                        r"\b(?:with|on|for|sending|send|sent|given|feeding|pastes?|pasted|pasting|submits?|"
                        r"submitted|submitting|uploads?|uploaded|uploading) (?:it |in )?(?:a |an |the |my |one )?"
                        r"(?:~|about |around |over |roughly )?\d[\d,.]*\s*[kK]?\+?[- ]tokens? (?:long )?"
                        r"(?:prompt|input|request|query|document)s?\b|"
                        # ... or the first batch of work after start ("The server starts up normally but crashes during
                        # the first inference batch"; not a decode or prefill step, which a warm-up runs too)
                        r"\b(?:during|on|at|in|with) the first (?:inference|generation|serving) (?:batch|step|pass|"
                        r"iteration)\b|"
                        # ... or an image sent to it ("hitting the server with an image causes a CUDA OOM crash", "when I
                        # send an image", "an image request makes the runner fail")
                        r"\b(?:hitting|hit|sending|send|sent|giving|feeding|passing) (?:the server |it |the model )?"
                        r"(?:with )?(?:an? |the )?(?:image|picture|photo|screenshot)s?\b(?! (?:encoder|model|tower))|"
                        r"\b(?:an? |the )?(?:image|vision) (?:request|prompt|input)s? (?:makes?|causes?|crash\w*|fails?|"
                        r"OOMs?|triggers?)\b|"
                        r"\b(?:a single|one|each|every) (?:[\w-]+ ){0,2}?request (?:whose|with an?) (?:[\w-]+ ){0,3}?"
                        r"(?:prompt|input|context)\b|\b(?:at|during|in|on) (?:a |the )?long[- ]context prefill\b|"
                        r"(?<!instead of )(?<!rather than )\b(?:while|when|during) serving\b"
                        # (nor a mode of use named against another: "batch inference mode causes OOM, while serving
                        # mode does not")
                        r"(?! (?:the |a |my |this |our )?(?:model|weights|mode)\b|"
                        # (nor a model by its name: "when serving Qwen3.8-27B", "while serving meta-llama/Llama-3.3-70B")
                        r" (?:the |a |my |this |our )?(?:[A-Za-z][\w.-]*?\d|[\w.-]+/[\w.-]))|"
                        # ... or after a number of them ("after handling only 6 conversations", "after ~200 requests")
                        # ... or after a few of them, named by kind ("After a single code completion, the memory usage
                        # increases", "Following a few more code completions")
                        r"\b(?:after|following) (?:a single|one|a few|a couple of|several|some) (?:more )?(?:code |chat |"
                        r"text )?(?:completions?|requests?|prompts?|queries|generations?|chats?)\b|"
                        # ... or the tool calls an agent makes of it ("Frequent tool-calls during a reasoning phase
                        # trigger the panic", "it crashes on the third tool call"), or a client connected to it ("while
                        # trying to connect to the server from a client")
                        r"\b(?:frequent|multiple|several|many|repeated|parallel|during|on|after|with|the (?:first|"
                        r"second|third|\d+(?:st|nd|rd|th))) (?:\w+ )?tool[- ]calls?\b(?![- ](?:parser|parsing|format))|"
                        r"\bconnect(?:s|ed|ing)? to the server from (?:a|an|my|the|another) (?:[\w-]+ ){0,3}?client\b|"
                        r"\bafter (?:handling |serving |processing |answering )?(?:only |just |about |around |~)?"
                        r"(?:\d+(?:\s*(?:-|–|to)\s*\d+)?|two|three|four|five|six|seven|eight|nine|ten|a dozen|twenty|"
                        r"thirty|forty|fifty|a hundred|hundreds of) (?:responses/)?(?:(?:LLM|API|chat|inference|"
                        r"successful|user|client|HTTP|completion)\s+)?"
                        r"(?:conversations?|requests?|prompts?|queries|chats?|messages?|completions?)\b|"
                        # (... the noun said before: "on queries to vLLM after running around 400 successfully")
                        r"\bafter (?:running|serving|handling|processing|answering) (?:about |around |roughly |~)?\d+ "
                        r"(?:of them )?(?:successfully|fine|ok|without (?:issue|problem|error)s?)\b|"
                        # ... or a benchmark client driving the server (TGI's text-generation-benchmark, vLLM's
                        # benchmark_serving.py / `vllm bench serve`, SGLang's bench_serving, NVIDIA's genai-perf)
                        # in the report's words ("run BM command: `text-generation-benchmark ...`"; not the command
                        # pasted alone, whose output may be the client's own)
                        r"\b(?:run|ran|running|runs|runing|using|with|via|start(?:ed|ing)?)\b[^\n]{0,40}?(?:\btext-"
                        r"generation-benchmark\b|\bbenchmark_serving(?:\.py)?\b|\bvllm bench serve\b|\bbench_serving\b|"
                        r"\bgenai-perf\b)|"
                        # ... or an evaluation harness or load tester driving it ("after OpenCompass batch 8 test", "while
                        # running lm-eval against the endpoint", "during the locust load test")
                        # (named in words that say it ran: not its command line, its own log's prefix or a frame of
                        # its script, "$ lm_eval --model vllm ...", "OpenCompass - INFO - Partitioned into 13 tasks",
                        # which load the model in-process before any request)
                        r"\b(?:after|while|during|when|running|ran|run|runs|with|using|via|from|in)\s+(?:\w+\s+){0,2}?"
                        r"(?:OpenCompass|opencompass|lm-eval|lm_eval|lm-evaluation-harness|evalscope|lighteval|locust|"
                        r"llmperf|guidellm)\b(?!\s+-{1,2}\w)|\b(?:load|stress|concurrency|pressure) test(?:s|ing)?\b|"
                        # (lm-evaluation-harness's own bar over the requests it runs, in-process or not: "Running
                        # generate_until requests:   3%| 40/1319", "Running loglikelihood requests")
                        r"\bRunning (?:generate_until|loglikelihood(?:_rolling)?) requests\b|"
                        # ... several requests at once, or one being processed by its size ("when server running multi
                        # requests", "processing actual ~128k request crashes")
                        r"\b(?:running|serving|handling|processing) (?:multi|multiple|several|many|concurrent|parallel) "
                        r"requests\b|\bprocessing (?:(?:an?|the|one|actual|single) ){0,2}~?\d+(?:\.\d+)?[kK]? (?:tokens? )?"
                        r"(?:request|prompt)s?\b|"
                        # ... or a number of them not counted ("after a certain number of requests", "after a few
                        # dozen prompts", "after a while of requests")
                        r"\bafter (?:a |some )?(?:certain |large |small |given )?(?:number|bunch|couple|few|handful|lot|"
                        r"dozen|while) (?:of |dozen )?(?:\w+ )?(?:conversations|requests|prompts|queries|chats|messages|"
                        r"completions|calls)\b|"
                        # ... as a verb ("when inferencing DeepSeekV3 with a large batch size", "while inferring")
                        r"\b(?:when|while|during) (?:inferencing|inferring)\b|"
                        # ... or the model answering ("when it tries to answer", "while answering the first question")
                        r"\b(?:when|while|as soon as|once|each time|every time) (?:it|the model|the bot|the assistant) "
                        r"(?:tries|starts|begins|attempts) to (?:answer|respond|reply)\b|"
                        r"\b(?:when|while) (?:answering|responding to|replying to) (?:a |the |my |any |each )?(?:\w+ )?"
                        r"(?:questions?|prompts?|requests?|messages?|queries|query)\b|"
                        r"\b(?:when|while) it(?:'s|\u2019s| is) (?:answering|responding|replying|generating (?:an? |the )?"
                        r"(?:answer|response|reply))\b|"
                        # ... or a chat begun ("as soon as I start chatting", "when I begin a conversation")
                        r"(?<!\bbefore I )(?<!\bbefore we )(?<!\bbefore you )(?<!\buntil I )"
                        r"\b(?:start|begin)(?:s|ed|ing)? (?:chatting|a (?:new )?(?:chat|conversation))\b|"
                        r"\b\d+ (?:concurrent|parallel|simultaneous) (?:requests|users|clients|streams)\b|"
                        # ... or a load named without a number ("after many concurrent requests", "under high
                        # concurrency", "with hundreds of users")
                        r"\b(?:many|several|multiple|lots of|hundreds of|thousands of|dozens of) (?:concurrent |parallel |"
                        r"simultaneous )?(?:requests|users|clients)\b|\bhigh (?:concurrency|load|traffic)\b|"
                        r"\bheavy (?:concurrency|load|traffic)\b|"
                        # ... under a load ("under sustained load", "under production traffic"), concurrent requests
                        # named without a count ("under a small number of concurrent requests"; not a setting's name,
                        # "max concurrent requests")
                        # (not a size, whose "load" is the verb: "models under 8GB load fine")
                        r"\bunder (?!~?\d[\d.,]*\s*[KMGT]i?B\b)(?:a |an |the )?(?:\w+ ){0,2}?(?:load|traffic)\b"
                        r"(?! balanc| fine\b| ok\b| correctly\b| properly\b| well\b)|"
                        # (nor a setting's description, "# Number of concurrent requests" beside a flag)
                        r"(?<!max )(?<!maximum )(?<!number of )(?<!num of )(?<!# of )(?<!limit of )(?<!limit on )"
                        r"\bconcurrent (?:long(?:[- ]context)? |large |big )?(?:requests|users|"
                        r"clients|calls|sessions)\b|"
                        # ... after a time serving ("after running the API server for a few minutes", "after using it
                        # for two days")
                        r"\bafter (?:running|serving|using) (?:it |the (?:\w+ )?(?:server|service|model|endpoint) )?for "
                        r"(?:a |an |a few |several |some |about |around |~)?(?:\d+ |\w+ )?(?:minutes?|hours?|days?|mins?)\b|"
                        # ... prompts by their size ("works fine for small prompts. For bigger prompts, it throws OOM",
                        # "with longer inputs")
                        r"\b(?:for|with|on) (?:the |my |our )?(?:bigger|larger|longer|big|large|long|huge) (?:prompts|inputs|"
                        r"requests|questions|queries|documents|conversations)\b|"
                        # ... a prompt that fills the context to a size, or leaves a share of it for the answer
                        # ("filling 31k (leaving 1k for output)", "when I fill the context to 30k")
                        r"\bfill(?:ing|s|ed)? (?:up )?(?:the )?(?:context |window )?(?:with |to |up to )?(?:~|about )?\d+(?:\.\d+)?k\b|"
                        r"\bleaving (?:~|about )?\d+(?:\.\d+)?k? (?:tokens? )?for (?:the )?(?:output|generation|completion|"
                        r"answer|response)\b|"
                        # ... a request's own length past a size ("when the real context is larger than 10k")
                        r"\b(?:real|actual) (?:context|prompt|input)(?: length| size)? (?:is |gets |goes |becomes )?"
                        r"(?:larger|longer|bigger|more|over|above|beyond|past|exceeds)\b|"
                        # serving stated as past ("it had been serving requests for hours", "was handling traffic")
                        r"\b(?:was|were|had been|has been|have been) (?:serving|handling|processing|answering) "
                        r"(?:\w+ )?(?:requests|traffic|users|clients|prompts)\b|"
                        # a request arriving, in a user's words ("when the first request is received", "as soon as
                        # a prompt is sent", "each time a message comes in")
                        r"\b(?:when(?:ever)?|once|as soon as|after|each time|every time)\s+(?:the |a |an |my |our |"
                        r"any |one )?(?:\w+ ){0,2}?(?:request|prompt|question|query|message|image|input)s? "
                        r"(?:is |are |was |were |gets? |got |has been |have been )?(?:received|sent|submitted|arrives?|"
                        r"arrived|comes? in|came in|processed|given)\b|"
                        # a user sending one ("I send it a longer prompt", "we submitted 3 images", "when I give
                        # some relatively complex questions"; not before any is sent: "before I send a request, it
                        # already runs out of memory"); the subject and verb written out, so that the words searched
                        # for are these pairs, not the nouns every serving line holds
                        r"(?<!before )(?<!without )\b(?:" + _SENDS + r") (?:it |the model |the server |him )?"
                        r"(?:a |an |the |some |my |this |that |these |\d+ |two |three |several |multiple |many |more |"
                        r"another |second |first |same |new |few |long |longer |large |larger |big |bigger |complex |"
                        r"relatively |simple |short )*(?:[\w-]+ )?(?:requests?|prompts?|questions?|query|queries|"
                        r"messages?|images?|conversations?|chats?|calls?|completions?)\b|"
                        # a client calling the model ("the client calls the model through the gateway", "our app
                        # queries the endpoint")
                        r"\b(?:I|we|users?|clients?|(?:the |our |my )?app)\s+(?:calls?|called|quer(?:y|ies|ied)|hits?)\s+"
                        r"(?:the |our |my )?(?:model|server|API|endpoint)\b|"
                        # a request named by its order or as the API's ("exclusively the first request after
                        # starting", "with the same API request", "on the second prompt"; not "before the first")
                        r"(?<!before )(?<!until )(?<!without )\b(?:the|your|my|our) (?:very )?(?:first|second|third|fourth|"
                        r"fifth|next|same|"
                        r"\d+(?:st|nd|rd|th)|nth|Nth) (?:real |actual |single )?(?:API |HTTP |"
                        r"chat |(?:chat )?completions? |inference |RAG |search |embedding |user )?(?:request|prompt|query|"
                        r"call)s?\b"
                        # (not code's words: "at the same call site", "the first call stack"; nor one that never came,
                        # "The first RAG query never arrives", "the request was never sent")
                        r"(?![\s-]+(?:sites?|stacks?|paths?|chains?|graphs?|backs?)\b)"
                        r"(?!\s+(?:never|(?:is|was|were) never|did not|didn't|does not|doesn't|(?:is|was) not)\b)|"
                        r"\b(?:an?|the|same|every|each) API (?:request|call)s?\b|"
                        # through the server's API or chat ("accessing the models through api", "in the chat tab",
                        # "once the conversation reaches 8K tokens")
                        r"\bthrough (?:the |its |an? |their )?(?:API|OpenAI[- ]compatible (?:API|endpoint)|endpoint)\b|"
                        r"\bin the chat (?:tab|window|UI|interface)\b|"
                        r"\b(?:conversation|chat|dialog(?:ue)?|chat history|context) " + _GROWS + r"|"
                        # ... in Chinese: while inferring, generating, chatting, or when a request or input is sent
                        # (推理时, 当我们输入三张图像时, 发送请求的时候), or under concurrency (并发)
                        # (or the model called, 调用的时候)
                        # (not past another clause's own "在...时" or load: "做推理 在load模型时 ... 报oom" is the load's)
                        r"(?:推理|生成|对话|请求|输入|发送|调用)(?:(?!在|加载|load|启动)[^，。,.！？]){0,16}?(?:时|的时候|过程中|以后|之后)|高?并发|"
                        # ... in Japanese and Korean: while inferring or generating, or when a request is sent
                        # (推論中に, 生成時に, リクエストを送ると; 추론 중, 생성할 때, 요청을 보내면)
                        r"(?:推論|生成)(?:中|時)に?|リクエストを送(?:ると|った時|信すると)|"
                        r"リクエストを投げ(?:ると|たら|た時)|推論を(?:実行|開始)(?:すると|したら|する時|した時)|"
                        r"質問を(?:入力|送信|送)(?:すると|したら|ると|った時)|"
                        r"(?:추론|생성) ?(?:중|시|할 때|하는 중)|요청을 (?:보내|날리)(?:면|니까|자)|"
                        r"질문을 (?:입력하|하)(?:면|니까|자)|대화를 시작하(?:면|니까|자)|"
                        # ... and a request sent or the model asked in a Chinese report's shortest words (一发请求就崩溃,
                        # 推理一会儿就挂, 一提问就报错)
                        r"一发(?:请求|消息|问题)就|推理一会儿?就|(?:一|刚)(?:提问|问问题|发消息)就|"
                        # ... or as soon as inference runs (模型加载成功后，一进行推理就报OOM)
                        r"(?:一|刚)(?:进行|开始|做|跑)(?:推理|生成|对话)就|"
                        # ... or a long document or text worked on (对于一些篇幅较长的文档进行分析时, 处理长文本时,
                        # 总结长文档的时候)
                        r"(?:较长|很长|长)的?(?:文档|文本|输入|提示词?|上下文)[^，。,.！？]{0,16}?(?:时|的时候|过程中)|"
                        # ... or "when" before the inference (当我使用4090和sglang进行推理会报错OOM)
                        r"当[^，。,.！？]{0,24}?(?:进行|做|跑|开始)(?:推理|生成|对话)|"
                        # ... or the inference under way, then the error in the next clause (我在3090上，进行视频推理，有如下
                        # 报错; 做图像推理，出现OOM)
                        r"(?:进行|做|跑)[^，。,.！？]{0,8}?推理[，,]\s*(?:有|出现|遇到|发生|报)|"
                        # ... and in English, the inference the writer was running ("I was running video inference on a
                        # 3090 and got this error")
                        r"\b(?:was|were|am|are|I'm|we're) (?:running|doing|performing) (?:[\w-]+ ){0,2}?inferr?ence\b"
                        r"(?! (?:engine|server|framework)s?\b)|"
                        # ... also in traditional characters (推理時, 對話), or an image a request sent being too big
                        # (圖片尺寸太大, 图片太大: "the image is too large, causing OOM")
                        r"(?:推理|對話|請求|輸入|發送)[^，。,.！？]{0,16}?(?:時|的時候|過程中|以後|之後)|"
                        r"(?:圖片|图片|圖像|图像)(?:尺寸|分辨率|解析度)?(?:太大|过大|過大)|"
                        # ... or requests sent, several at once ("when I doing mutiple requests", "sending 20 parallel
                        # requests", "firing many concurrent requests")
                        r"\b(?:doing|do|sen(?:d|ding)|mak(?:e|ing)|runn?(?:ing)?|fir(?:e|ing)|issu(?:e|ing))\s+(?:multiple|mutiple|"
                        r"multi|muti|many|several|concurrent|parallel|simultaneous|lots of|a lot of|\d+)\s+(?:concurrent\s+|"
                        r"parallel\s+|simultaneous\s+)?requests?\b|"
                        # ... or a request by its size (请求了一个4461 tokens 的query)
                        r"请求了?(?:一个|一条)?\s*\d[\d,]*\s*个?\s*tokens?|"
                        # transformers' warning from inside generate() (generation/utils.py): a generation under way
                        r"\bthe current text generation call will exceed the model's predefined maximum length\b|"
                        # ... or under a load or requests too large (负载过高, 请求过大)
                        r"负载过[高大重]|请求(?:量)?(?:过|太)[大多]|"
                        # a client's call to the server ("client.chat.completions.create(", a base URL given to a
                        # client, curl to the completions endpoint)
                        r"\bclient\.(?:chat\.)?completions\.create\(|\bbase_url\s*=\s*[\x22']https?://|"
                        # ... Python's requests or httpx posting to a server's generate or completions endpoint
                        # ("requests.post(\"http://localhost:30000/generate\", json=...)")
                        r"\b(?:requests|httpx|session|client)\.post\(\s*[\x22']https?://[^\x22'\s]{1,200}/(?:generate|"
                        r"v1/(?:chat/)?completions|completions)\b|"
                        # (... its URL on a line of its own, the call split over lines: `requests.post(` / `"http://
                        # localhost:30000/generate",`)
                        r"^\s*[\x22']https?://[^\x22'\s]{1,200}/(?:generate|v1/(?:chat/)?completions)[\x22'],?\s*$|"
                        r"--base-url\s+https?://|\bcurl\b[^\n]{0,200}?/v1/(?:chat/)?completions\b|"
                        r"\b(?:POST|GET) /(?:v1/(?:chat/)?completions|generate|completions?|api/(?:chat|generate))\b"
                        r"[^\n]{0,40}?\x22? [1-4]\d\d\b|"
                        # a generation that finished (llama.cpp's examples and their forks)
                        r"\bdecoded \d+ tokens in\b|llama_perf_context_print:|llama_print_timings:")),
    ),
    figures=(
        # a weights file mapped (PyTorch's MapAllocator names the mmap it failed): mmap is in use
        fig("mmap_in_use", r"unable to mmap \d+ bytes from file|\bmmap failed\b", lambda m: True),
        # the OOM killer acting on a container's own limit (the kernel's oom-kill line `constraint=CONSTRAINT_MEMCG`,
        # mm/memcontrol.c "Memory cgroup out of memory", kubectl's `Reason: OOMKilled`, docker inspect's
        # `"OOMKilled": true`), not on the machine's RAM
        fig("container_limit", r"\bCONSTRAINT_MEMCG\b|\bMemory cgroup out of memory\b|\bReason:\s+OOMKilled\b|"
            r"\"OOMKilled\":\s*true\b", lambda m: True),
        # ... whose cgroup is a systemd unit's (the oom-kill line's "oom_memcg=/system.slice/ollama.service"): the
        # unit's MemoryMax= (or MemoryLimit=), not a container's
        fig("_unit_memory_limit", r"\boom_memcg=/(?:system|user)\.slice/(?:[\w@.-]+/)*([\w@.-]+\.service)\b",
            lambda m: m.group(1)),
        # the model in Hugging Face's cache path ("models--Qwen--Qwen3-30B-A3B-GPTQ-Int4/snapshots/"): its name, and so
        # its quantization, where the log prints no model name of its own
        fig("model_name", r"\bmodels--([\w.-]{1,100})--([\w.-]{1,200})/snapshots/",
            lambda m: f"{m.group(1)}/{m.group(2)}"),
        # an error's own message a report's words say was raised, quoted or set off ("导致了抛出**No valid structured
        # output parameter found**异常", "it raised 'Invalid prompt template'", "threw `ValueError: unknown model`"): read
        # by logs.quiet, where no line of the log shows the failure the report states
        # (also reported, 报: "evalscope速度基准测试报`Cannot connect to host 127.0.0.1:8877 ssl:default`错误")
        fig("_raised_named", r"(?:抛出了?|引发了?|报出了?|(?<![汇预警情简日周月年举通])报了?)\s*[*`'\x22\u201c\u300c]+([^*`'\x22\u201d\u300d\n]{6,200}?)"
            r"[*`'\x22\u201d\u300d]+\s*的?(?:异常|错误|报错|错)|"
            # ... or in English, the run failing with it or the report getting it ("fails with `Cannot connect to
            # host` error", "I get the error 'unknown model architecture: gemma3'", "aborts with an RPC Internal Error
            # stating that the key `gemma3.attention.layer_norm_rms_epsilon` is not found"): the program's error, not
            # a setting the writer changed
            r"\b(?:fails?|failed|failing|crash(?:es|ed)?|aborts?|aborted|errors?(?: out)?|errored(?: out)?|dies|died|exits?|exited)\s+with\s+"
            r"(?:an?\s+|the\s+|this\s+)?" + _CLASS_THEN + _QUOTED_MESSAGE + "|"
            # (or with an operating system's error by its number and message, unquoted: LiteLLM's "`ollama serve`
            # failed with Exception[WinError 2] The system cannot find the file specified.", "failed with [Errno 13]
            # Permission denied: '/models'")
            r"\b(?:fails?|failed|failing|crash(?:es|ed)?|aborts?|aborted|errored(?: out)?|died|exited)\s+with\s+"
            r"(?:an?\s+)?(?:[\w.]*(?:Exception|Error)\s*)?(\[(?:WinError|Errno) -?\d+\]\s*[^\n]{4,200}?)\s*[.。]*\s*$|"
            r"\b(?:get|gets|got|getting|see|saw|seeing|hit|hits|hitting|receive[sd]?|receiving)\s+(?:an?|the|this)\s+"
            r"(?:[\w.]+\s+)?(?:error|exception)(?:\s+(?:message|saying|that says))?\s*[(:]?\s*" + _QUOTED_MESSAGE + "|"
            r"\b(?:error|exception|Error|Exception) (?:stating|saying|which says|that says|telling me)(?: that)? "
            r"((?:[^.\n]|\.(?!\s|$)){6,200}?)(?:\.(?:\s|$)|$)|"
            # (the program raised it, not the writer: "I raised `max_num_batched_tokens` to 16384", "we tried throwing
            # \"bigger instances\" at it", "I already raised \"vllm#18211\"" are a setting, a remedy, an issue)
            r"(?<!\bI )(?<!\bwe )(?<!\bWe )(?<!\byou )(?<!\bYou )(?<!\bthey )(?<!\balready )(?<!\btried )(?<!\balso )"
            r"\b(?:raised|raises|raising|threw|throws|thrown|throwing)\s+(?:an?\s+|the\s+)?(?:exception\s+|error\s+)?"
            + _CLASS_THEN + _QUOTED_MESSAGE,
            _error_message, mode="first", prose=True),
        # the model a pasted script loads ("AutoModelForCausalLM.from_pretrained(\"THUDM/glm-4-9b-chat\"", "model_id =
        # 'Qwen/Qwen1.5-14B-Chat'"), the 16- or 32-bit dtype it or an engine's config gives the weights, and what puts
        # them elsewhere than whole on one GPU: read by logs.named_size for the least the weights weigh
        # (not a line commented out, "# model_id = ...": the last one set is the one that loads)
        fig("_pretrained_name", r"^[^#\n]*?\bfrom_pretrained\(\s*(?:pretrained_model_name_or_path\s*=\s*)?['\"]([^'\"\s]{1,200})['\"]",
            lambda m: m.group(1)),
        # (each name its own pattern: the words the scan searches for are then "model_id" and "model_name", not the
        # "model_" of every engine's module names)
        fig("_pretrained_name", r"^[^#\n]*?\bmodel_id\s*=\s*['\"]([^'\"\s]{1,200})['\"]", lambda m: m.group(1)),
        fig("_pretrained_name", r"^[^#\n]*?\bmodel_name(?:_or_path)?\s*=\s*['\"]([^'\"\s]{1,200})['\"]",
            lambda m: m.group(1)),
        fig("_weights_dtype", r"(?:(?<![\w.])(?:torch_)?dtype['\"]?\s*[=:]\s*|(?<![\w-])--dtype(?:=|\s+))['\"]?(?:torch\.)?(bfloat16|float16|half|float32|bf16|fp16|"
            r"fp32)\b", lambda m: m.group(1).lower()),
        fig("_quant_said", r"\bload_in_(?:4|8)bit\s*=\s*True|\bBitsAndBytesConfig\(|\bquantization_config\s*=|\bbnb_4bit_|"
            r"--quantize\b|\bquantize\s*=\s*['\"]?\w|--load-in-(?:4|8)bit|\bload_in_low_bit\b", lambda m: m.group(0),
            mode="first"),
        fig("_weights_spread", r"\bdevice_map\s*=\s*(?!['\"]?(?:cuda(?::0)?|0)['\"]?\s*[,)])|\bmax_memory\s*=|"
            r"\b(?:cpu|disk)_offload|\boffload_folder\b|--cpu-offload|--sharded\b|\bexpert[_-]parallel|\bep[_-]size\b|"
            r"\benable_ep_moe\b|\brank[= ]?[1-9]\b|\bcuda:[1-9]\b|\bCUDA_VISIBLE_DEVICES=\S*,|"
            # (or processes that each hold a share, or the weights kept in host memory: transformers' tensor
            # parallel plan, torchrun or accelerate with several processes, DeepSpeed's ZeRO, FSDP, KTransformers'
            # experts on the CPU)
            r"\btp_plan\s*=|--nproc[_-]per[_-]node(?:=|\s+)(?:[2-9]|\d\d)|--num[_-]processes(?:=|\s+)(?:[2-9]|\d\d)|"
            r"\bdeepspeed\b|\bzero[_-]?(?:stage|3|optimization)|\boffload_param\b|\bFSDP\b|\bfully_shard|"
            r"\bktransformers\b|--cpu[_-]infer\b|--optimize[_-]config", lambda m: m.group(0), mode="first"),
        fig("pipeline_parallel_size", r"\b(?:pipeline_parallel_size|pp_size)['\"]?\s*[=:]\s*(\d+)", count),
        # (an engine's config line that says nothing quantizes the weights, vLLM's and SGLang's "quantization=None":
        # a value figures drop as unset, kept here as the fact it is)
        fig("_quant_none", r"\bquantization['\"]?\s*[=:]\s*['\"]?(?:None|null)\b", lambda m: True),
        # a quantized checkpoint the report names by its suffix, in a title or a sentence ("Vicuna-7B-v1.5-GPTQ fails
        # with ...", "TheBloke/Llama-2-70B-AWQ"): its weights are already fewer-bit (read by logs.settings)
        # (the suffix in either case: MLX's community names are lower case, "Qwen3.5-122B-A10B-Text-mxfp4-mlx")
        # (not a loader's switch that names a bit width, FastChat's "load_8bit=False", transformers' load_in_4bit)
        fig("_quantized_name", r"\b(?!(?:load|use|enable)_(?:in_)?[2348]bit\b)[\w.-]{2,80}[-_](?:GPTQ|AWQ|EXL2|GGUF|FP8|FP4|"
            r"INT4|INT8|W4A16|W8A8|bnb-4bit|4bit|NF4|"
            r"MXFP4|NVFP4|(?i:mxfp4|nvfp4|awq|gptq|[2348]bit))(?:[-_][\w.-]{1,40})?\b", lambda m: m.group(0), mode="first",
            flags=0),
        # ... or a GGUF file named with its quant type ("Loading `Qwen3-8B-Q4_K_M.gguf` locally", "-m
        # Kimi-K2-Instruct-IQ4_XS.gguf"): the type in its name (mistral.rs, llama.cpp, Ollama, LM Studio all load them)
        fig("_quantized_name", r"[\w.+-]{0,200}?[-_.](?i:I?Q[1-8]_[A-Z0-9_]{1,6}|TQ[12]_0|F16|BF16|F32)\.gguf\b",
            lambda m: m.group(0), mode="last", flags=0),
        # a quantized checkpoint the loader detected (vLLM's quantization/fp8.py and modelopt.py "Detected fp8
        # checkpoint. Please note that the format is experimental ...", "Detected ModelOpt fp8 checkpoint", copied by
        # SGLang and KTransformers): fewer-bit weights are in use
        fig("quantization", r"\bDetected (?:ModelOpt |NVIDIA ModelOpt )?(fp8|nvfp4|fp4|mxfp4|int4|int8) checkpoint\b",
            lambda m: m.group(1).lower()),
        # a KV cache that got less memory than the configured context needs, in the engine's words (vllm.rs
        # kvcache_allocator "Available: 29353.63 MB, Required: 131072.00 MB"; "(need 2.0 GiB, have 0.5 GiB)")
        fig("kv_available_bytes", r"\bAvailable: " + SIZE + r", Required: "),
        fig("kv_required_bytes", r"\bAvailable: [-\d.,]+\s*[KMGT]i?B, Required: " + SIZE),
        fig("kv_required_bytes", r"\(need " + SIZE + r", have "),
        fig("kv_available_bytes", r"\(need [-\d.,]+\s*[KMGT]i?B, have " + SIZE),
        # torch's OutOfMemoryError (CUDACachingAllocator.cpp): what it tried, what the GPU has, who holds it
        fig("failed_alloc_bytes", r"Tried to allocate " + SIZE, mode="list"),
        # the same on a GPU, and the GPU's index (PyTorch's caching allocator: "GPU 1 has a total capacity of ...")
        fig("_gpu_alloc_bytes", r"(?:CUDA|HIP|XPU) out of memory\. Tried to allocate " + SIZE, mode="list"),
        fig("_gpu_index", r"\bGPU (\d+) has a total capacity", count, mode="list"),
        fig("failed_alloc_bytes", r"attempted to allocate " + SIZE, mode="list"),
        fig("total_memory_bytes", r"total capac\w* of " + NUM + r"(?:\s*([KMGT]i?B))?",
            lambda m: to_bytes(m.group(1), m.group(2) or "GiB")),  # torch prints GiB; excerpts cut the unit
        fig("total_memory_bytes", SIZE + r" total capacity"),
        fig("free_memory_bytes", r"of which " + SIZE + r" is free"),
        fig("free_memory_bytes", SIZE + r" free;"),
        fig("torch_allocated_bytes", r"(?:Of the allocated memory |; )" + SIZE + r" (?:is a|already a)"),
        fig("torch_reserved_unallocated_bytes", r"and " + SIZE + r" is reserved by PyTorch but unallocated"),
        fig("torch_reserved_bytes", SIZE + r" reserved in total by PyTorch"),
        fig("process_in_use_bytes", r"this process has " + SIZE + r" memory in use"),
        # a cap, not the device, may have been hit: torch's per-process fraction ("X GiB allowed"); with a fraction set,
        # its caching allocator's "Allocation on device N would exceed allowed memory" (CUDACachingAllocator.cpp, as TGI
        # prints it) gives the device's total ("Device limit"), what CUDA had free, what was asked, and the cap itself
        # ("PyTorch limit (set by user-supplied memory fraction)\n : X", on one line where a log kept the "\n")
        fig("allowed_bytes", SIZE + r" allowed;"),
        fig("total_memory_bytes", r"Device limit\s*:\s*" + SIZE),
        fig("free_memory_bytes", r"Free \(according to CUDA\)\s*:\s*" + SIZE),
        fig("failed_alloc_bytes", r"would exceed allowed memory.*?Requested\s*:\s*" + SIZE, mode="list"),
        fig("failed_alloc_bytes", r"^\s*Requested\s*:\s*" + SIZE, mode="list"),
        fig("allowed_bytes", r"set by user-supplied memory fraction\)?(?:\\n|\s)*:\s*" + SIZE),
        fig("_exceeds_allowed", r"would exceed allowed memory", lambda m: True),
        # every process PyTorch's error lists on the GPU: often the server itself (in a container, under its host pid)
        fig("listed_process_in_use_bytes", r"Process \d+ has " + SIZE + r" memory in use", mode="list"),
        fig("gpu_process_pids", r"Process (\d+) has " + SIZE + r" memory in use", count, mode="list"),
        # the server's own process ids, as log prefixes print them: "(EngineCore_DP0 pid=2)", "(Worker pid=148)"
        fig("server_pids", r"\((?:[\w=]+ ){0,3}pid=(\d+)\)", count, mode="set", passive=True),
        # worker ranks in line prefixes ("VllmWorker rank=3", "Worker_TP1", "TP3]", "[RANK 3]"): at least that many GPUs
        fig("worker_ranks", r"\brank=(\d+)|Worker_TP(\d+)\b|Worker TP(\d+)\b| TP(\d+)\]|\[TP(\d+)\]|\[RANK (\d+)\]",
            lambda m: int(next(g for g in m.groups() if g)), mode="set", passive=True),
        # a failure inside the custom all-reduce kernels (vLLM/SGLang csrc/custom_all_reduce.cuh)
        # memory a user measured and pasted (ps/top/nvidia-smi readings, /proc VmRSS): "req 5 VmRSS=1123 MiB",
        # "RSS: 5.74 GB -> 14.05 GB after 6,000 requests" (case-sensitive words: "res" alone is too common)
        # a flag's value the user says was tried and still failed: advice goes past it, never back to it
        fig("_tried", TRIED, tried, mode="map"),
        fig("_tried", TRIED_TO, tried, mode="map", prose=True),
        fig("_tried", TRIED_TO_ZH, tried_zh, mode="map", prose=True),
        # the user's words that it failed the same way with memory to spare ("including pure CPU with 36 GB RAM free",
        # "same error even with 40 GB of VRAM free", "still fails with plenty of free memory")
        fig("_failed_with_memory_free", r"\b(?:identical|same|including|even|still)\b[^\n]{0,120}?(?:\b\d+(?:\.\d+)?\s*"
            r"[GT]i?B\s+(?:of\s+)?(?:RAM\s+|VRAM\s+|(?:system\s+|GPU\s+)?memory\s+)?free\b|\b(?:plenty|lots) of "
            r"(?:free )?(?:RAM|VRAM|memory)\b)", lambda m: True, prose=True),
        # a KV cache dtype the user's own words say is in use ("with kv-cache-dtype fp8", "using an fp8 KV cache",
        # "KV cache in q8_0"): an 8-bit cache is then never proposed again
        fig("kv_cache_dtype", r"\b(?:with|using|use|set|setting|enabled?|turned on)\s+(?:the\s+)?`?(?:--)?"
            r"kv[-_ ]cache[-_ ]dtype`?(?:\s*(?:=|to|as|:)\s*|\s+)`?(fp8(?:_e4m3|_e5m2)?|int8|int4|q8_0|q4_0|fp16|bf16|"
            r"auto)\b", lambda m: m.group(1).lower(), prose=True),
        fig("kv_cache_dtype", r"\b(?:with|using|enabled?)\s+(?:an?\s+|the\s+)?`?(fp8(?:_e4m3|_e5m2)?|int8|8-bit|"
            r"q8_0|q4_0)`?\s+(?:quantized\s+)?KV[- ]?cache\b", lambda m: m.group(1).lower().replace("8-bit", "int8"),
            prose=True),
        fig("kv_cache_dtype", r"\bKV[- ]?cache (?:in|as|at|quantized to)\s+`?(fp8(?:_e4m3|_e5m2)?|int8|8-bit|q8_0|q4_0)\b",
            lambda m: m.group(1).lower().replace("8-bit", "int8"), prose=True),
        # (not a program's own summary of what it allocated, under a C function's tag: llama.cpp's "llm_load_tensors:
        # VRAM used = 1456.19 MiB", "llama_new_context_with_model: total VRAM used: 1726.19 MiB": several quantities
        # printed once at load, not one reading over time)
        fig("reported_memory_bytes", r"^(?![ \t]*" + FUNCTION_TAG + r"\s)[^\n]*?" + _MEMWORD + r"\s*(?:~=|≈|~|[=:])?\s*~?"
            + _USIZE, _usize, mode="list", flags=0),
        # ... and nvidia-smi's own readings over time (`--query-gpu=timestamp,memory.used --format=csv -l N`: a row
        # "2025/03/01 10:00:00.000, 20512 MiB" with one size after its time; or memory.used then memory.total,
        # "2025/09/01 08:00:02.114, 71240 MiB, 81920 MiB": the first, the query's order)
        fig("reported_memory_bytes", r"^\s*\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)?,\s*(\d+)\s*MiB(?:,\s*\d+\s*MiB)?\s*$",
            lambda m: int(m.group(1)) * 2**20, mode="list", flags=0),
        # ... and a script's own metric with its unit in its name, the first on its line ("torch_reserved_gb=22.1",
        # structlog's "gpu_mem_allocated_gb": 14.5, "rss_mb=5120"): GB and MB as engines mean them, GiB and MiB
        fig("reported_memory_bytes", r"^[^\n]*?\b(?:\w+_)?(?:mem|memory|reserved|allocated|used|rss|vram)(?:_\w+)?_(gb|gib|mb|mib)"
            r"[\x22']?\s*[=:]\s*(\d+(?:\.\d+)?)\b",
            lambda m: int(float(m.group(2)) * (2**30 if m.group(1).lower().startswith("g") else 2**20)), mode="list"),
        # growth a user measured and states as a difference: "Delta: +32.911 GiB", "increase: +4 GB"
        fig("reported_memory_delta_bytes", r"\b(?:delta|diff|difference|growth|increase|grew(?: by)?)\s*[:=]?\s*\+\s?"
            + _USIZE, _usize, mode="list"),
        # GPUs that cannot reach each other's memory directly (CUDA error 217, cudaErrorPeerAccessUnsupported, as NCCL's
        # "NCCL WARN Cuda failure 217 'peer access is not supported between these two devices'" reports it): NCCL's
        # peer-to-peer transport fails where NCCL_P2P_DISABLE=1 would send the traffic through host memory
        fig("_p2p_unsupported", r"peer access is not supported|\bCuda failure 217\b|cudaErrorPeerAccessUnsupported",
            lambda m: True),
        # NCCL's own debug output already on: NCCL_DEBUG=INFO (or TRACE) set in a command or an environment listing,
        # or the lines it prints under it ("gpu-0:123:123 [0] NCCL INFO Init COMPLETE")
        fig("_nccl_debug", r"\bNCCL_DEBUG\s*[=:]\s*['\x22]?(?:INFO|TRACE)\b|\bNCCL INFO\b", lambda m: True),
        fig("_reading_chain", _CHAIN, _chain, mode="first", prose=True),
        fig("_growth_stated", _GROWTH, _growth, mode="first", prose=True),
        fig("_growth_stated", _GROWTH_ZH, _growth_zh, mode="first", prose=True, flags=0),
        fig("_growth_stated", _GROWTH_OTHER, _growth_other, mode="first", prose=True),
        fig("_growth_stated", _START_THEN, _growth_start_then, mode="first", prose=True),
        # a batch scheduler's job, whose host memory limit is its own setting: Slurm's (slurmstepd's lines, an
        # "#SBATCH" directive, its --mem with the size as written: "#SBATCH --gres=gpu:a100:1 --mem=32G"), PBS's, LSF's
        fig("_batch_scheduler", r"\bslurmstepd\b|^#SBATCH\b|\bsrun: error\b", lambda m: "slurm", mode="first"),
        fig("_batch_scheduler", r"=>> PBS:|^#PBS\b", lambda m: "pbs", mode="first"),
        fig("_batch_scheduler", r"\bTERM_MEMLIMIT\b|^#BSUB\b", lambda m: "lsf", mode="first"),
        fig("_job_mem", r"^#SBATCH\b[^\n]*?\s--mem(?:-per-cpu|-per-gpu)?[= ]([\d.]+[KMGT]?)\b", lambda m: m.group(1),
            mode="last"),
        fig("_growth_stated", _TO_FROM, _growth_to_from, mode="first", prose=True),
        fig("_growth_stated", _KEPT, lambda m: _growth(m, rise=False), mode="first", prose=True),
        fig("_growth_stated", _FROM_TO, _growth_from_to, mode="first", prose=True),
        fig("_growth_stated", _NOW_THEN, _growth_now_then, mode="first", prose=True),
        fig("_growth_stated", _BY_SIZE, _growth_over_span, mode="first", prose=True),
        fig("_failure_stated", _FAILS, _failure_stated, mode="first", prose=True),
        fig("_failure_stated", _FAILS_ZH, _failure_stated_zh, mode="first", prose=True, flags=0),
        fig("_failure_stated", _FAILS_JA, _failure_stated_zh, mode="first", prose=True, flags=0),
        fig("_hang_stated", _HANGS, _failure_stated, mode="first", prose=True),
        fig("_not_run_stated", _NOT_RUN, _not_run, mode="first", prose=True),
        # a report's words that name the crash by its class ("workers segfault during KV-cache warmup", "it dies with a
        # segmentation fault", "进程段错误退出"): read by logs.quiet, where no line of the log shows it
        fig("_crash_stated", _CRASH_STATED, _failure_stated, mode="first", prose=True),
        # the report's words that a kernel or the engine did not compile ("CUTLASS FP4 MoE kernels fail to compile for
        # Nemotron-H on GB10", "the FlashInfer JIT build fails", "compilation failed for sm_120"): a build's failure, by
        # the words alone (logs.quiet reads it where the log is cut before the compiler's own error)
        fig("_build_failed_stated", r"\b(?:kernels?|\.cu\b|\.ptx\b|extension|module|JIT|nvcc|ptxas|CUTLASS|shaders?|library|"
            r"op|ops)\b[^.;!?\n]{0,80}?\b(?:fails?|failed|failing) to (?:JIT[- ])?(?:compile|build)\b|"
            r"\b(?:JIT[- ])?(?:compilation|compile|build) (?:of [^.;!?\n]{1,60}? )?(?:fails|failed|errors? out|errored)\b"
            r"(?! (?:with|due to|because of) (?:an? )?(?:OOM|out of memory))",
            _failure_stated, mode="first", prose=True),
        fig("_slow_stated", _SLOW, _failure_stated, mode="first", prose=True),
        fig("_slow_stated", r"(?:变|很|非常|特别|越来越|太)慢|(?:很|非常|特别|越来越|太|就|变得?)卡|延迟(?:很|非常|特别|太)?"
            r"(?:高|大|长)|首字延迟|超时", _failure_stated_zh, mode="first", prose=True, flags=0),
        # a report's words that the program goes on after the error it shows ("但是还是能正常往下运行", "不影响使用",
        # "but it still runs fine"): that error was not fatal (not taken back: "still runs, but then crashes")
        # (服务能正常用, 程序还能继续正常推理)
        fig("_goes_on_stated", r"(?:还是|还|仍然|依然|照样|也|服务|程序)(?:可以|能够?)(?:继续)?(?:正常)?(?:往下|继续)?"
            r"(?:运行|使用|用|工作|推理)"
            r"(?![^。！？\n]{0,12}(?:但|不过|直到|然后|之后))|不影响(?:正常)?(?:使用|运行|推理)",
            lambda m: m.group(0), mode="first", prose=True, flags=0),
        fig("_goes_on_stated", r"\b(?:it|the model|the server|the program|everything) (?:still|then) (?:runs|works|"
            r"loads|serves|starts)(?: fine| normally| OK)?\b(?![^.;!?\n]{0,60}\b(?:until|but|before|then (?:crash|fail|"
            r"die)|after (?:a|some|that)))", lambda m: m.group(0), mode="first", prose=True),
        # a report's later note that the failure above it is gone ("EDIT: Now working with 0.1.48", "Update: fixed",
        # "it works now"): the log pasted under it is the run that works, not the failure's own start-up
        fig("_fixed_stated", r"\b(?:EDIT|UPDATE)\s*\d*\s*[:：\-]\s*(?:it(?:'s| is)\s+)?(?:now\s+)?(?:working|works|fixed|"
            r"solved|resolved)\b|^\W*(?:it(?:'s| is)\s+)?now (?:working|works)\b|(?<!not )(?<!n't )\b(?:it )?works now\b|"
            r"^\W*(?:已解决|解决了|现在(?:可以|正常)了)", lambda m: m.group(0), mode="first", prose=True),
        fig("_bad_output_stated", _BAD_OUTPUT, _failure_stated, mode="first", prose=True),
        fig("_bad_output_stated", _BAD_OUTPUT_ZH, _failure_stated, mode="first", prose=True, flags=0),
        # a person's words that the error the log shows is not the one the report began with ("I increased the GPUs and
        # it works! ... then I got different errors"): the title's failure is no cause of the log's
        fig("_other_error_said", r"\b(?:got|get|getting|see|seeing|hit|hitting|have|ran into|run into|now)\s+(?:a\s+|an\s+|"
            r"some\s+)?(?:different|another|new|other)\s+(?:errors?|exceptions?|failures?|issues?|problems?|crash(?:es)?)\b",
            lambda m: True, mode="first", prose=True),
        # the report's words of long requests or prompts ("Prompts longer than about 12k tokens are rejected", "long
        # requests never return"): what a KV pool shorter than the context fails, read by logs.quiet
        fig("_long_requests_told", r"\b(?:long(?:er)?|large|big)\s+(?:prompts?|requests?|inputs?|contexts?)\b|"
            r"\b(?:prompts?|requests?|inputs?)\s+(?:longer than|above|beyond)\s+(?:about\s+|~)?\d", lambda m: True,
            mode="first", prose=True),
        # a leak denied in the report's words, a maintainer's reply pasted with it ("doesn't look like a real memory leak
        # ... then stays pretty steady", "this is not a memory leak"): the growth a title claims is contested
        fig("_leak_denied", r"\b(?:(?:does|did|do)(?: not|n['\u2019]t) (?:look|seem|appear)(?: to be)?(?: like)?|"
            # ("no leak" said of what is seen: "there is no memory leak", "I see no leak"; not an expectation's
            # heading, "Expected Behavior: No memory leak while running the example")
            r"(?:is|was|it['\u2019]s|that['\u2019]s)(?: not|n['\u2019]t)|not|(?:there(?:['\u2019]s| is| was| are)|see|saw|"
            r"found|find|shows?|showed)\s+no) (?:a |an )?(?:real |true |actual |genuine )?"
            r"(?:memory |VRAM |RAM |GPU memory )?leak\b", lambda m: True, prose=True),
        # a leak detector's report of what was not freed when the program ended (MSVC's CRT "Detected memory leaks!",
        # "Dumping objects ->", Visual Leak Detector's "Leak Hash: 0x..., Count: 1, Total 16 bytes", LeakSanitizer's
        # "detected memory leaks", valgrind's "definitely lost: 16 bytes in 1 blocks"): bytes held at exit, not memory
        # growing while the server runs
        fig("_leak_detector", r"\bDetected memory leaks!|\bLeak Hash: 0x[0-9A-F]+, Count: \d+|\bLeakSanitizer: detected "
            r"memory leaks\b|\bdefinitely lost: [\d,]+ bytes in [\d,]+ blocks\b|^\s*Dumping objects ->\s*$",
            lambda m: True),
        # the whole machine frozen, not only the server ("the entire macOS system freezes", "my PC locks up", "Ollama
        # freezes macOS"): what a host out of memory and paging looks like, so a hang beside it may be memory
        fig("_machine_frozen", r"\b(?:entire|whole)\s+(?:\w+\s+)?(?:system|machine|computer|mac|pc|desktop|os)\s+"
            r"(?:\w+\s+)?(?:freez|froze|hang|hung|lock|becomes? unresponsive|became unresponsive)|"
            r"\b(?:system|computer|machine|mac|pc|laptop|desktop|screen|os|android|phone|windows|macos)\s+"
            r"(?:completely\s+|totally\s+)?(?:freez|froze|hangs|hung|locks? up|locked up)|"
            # (or the machine restarting under it: "Android hangs and reboots", "the PC reboots")
            r"\b(?:hangs|hung|freezes|froze)\s+and\s+(?:then\s+)?(?:reboots|rebooted|restarts|restarted)\b|\bfreez(?:e|es|ing)\s+(?:the\s+|my\s+)?(?:whole\s+|entire\s+)?"
            r"(?:macOS|Windows|Linux|system|computer|machine|PC|Mac|desktop)\b", _failure_stated, mode="first",
            prose=True),
        # the whole machine said to power off or restart on its own, without a freeze before it ("usage is shutting down
        # system", "then the system shut down again", "the PC just turns off under load"): power delivery or hardware
        # (a supply's transients under a GPU's load), which memory running out does not do: a host out of memory kills
        # a process and the machine goes on
        fig("_machine_off", r"\b(?:shut(?:s|ting)?\s+down|powers?\s+off|powering\s+off|turns?\s+off|turning\s+off)\s+(?:the\s+|my\s+)?"
            r"(?:whole\s+|entire\s+)?(?:system|machine|computer|PC|workstation|rig)\b|"
            r"\b(?:the\s+|my\s+|whole\s+|entire\s+)(?:system|machine|computer|PC|workstation|rig)\s+(?:just\s+|then\s+|"
            r"suddenly\s+|immediately\s+)?(?:shut\s+down|shuts\s+down|powers\s+off|powered\s+off|turns\s+off|turned\s+off|"
            r"reboots|rebooted|restarts|restarted)\b", _failure_stated, mode="first", prose=True),
        # the report's words that memory looked normal while it failed or hung ("EXO.app main process + fork worker
        # alive on every node with normal memory footprint (24-26% of 256GB)", "VRAM usage stays flat at 60%",
        # "plenty of free memory", "显存占用正常"): memory watched and ruled out (a hang beside them is no memory's)
        fig("_memory_fine", r"\bnormal\s+(?:GPU\s+|host\s+)?(?:memory|VRAM|RAM)(?:\s+(?:footprint|usage|use))?\b|"
            r"\b(?:memory|VRAM)(?:\s+(?:footprint|usage|use))?\s+(?:is|was|looks|looked|seems|seemed|stays|stayed|"
            r"remains|remained)\s+(?:\w+\s+)?(?:normal|fine|flat|stable|unchanged|constant)\b|"
            # ("GPU memory sat at 71.2 GB and did not move", "显存一直稳定在 70G 左右，没有变化", "VRAM使用量は正常")
            r"\b(?:memory|VRAM)\b(?:[^.;!?\n]|\.(?=\d)){0,40}?\b(?:did not|didn't|does not|doesn't|never) (?:move|change|grow|"
            r"rise|budge)\b|"
            r"(?:内存|显存)(?:占用)?[^。，,;；]{0,6}?(?:稳定|平稳|没有变化|没变化|不变)|(?:VRAM|メモリ)(?:使用量)?(?:は|も)?正常|"
            # (German "Der VRAM-Verbrauch bleibt dabei konstant", Spanish "la memoria se mantiene constante", Japanese
            # "VRAMは変わらず", Korean "VRAM 사용량은 일정하게 유지")
            r"\b(?:VRAM|Speicher|GPU-Speicher)[-\w]*\s+bleibt\b[^.;!?\n]{0,30}?\b(?:konstant|stabil|gleich|normal)\b|"
            r"\b(?:memoria|memória|VRAM)(?:[^.;!?\n]|\.(?=\d)){0,30}?(?:constante|estable|estável|normal)\b|"
            r"(?:VRAM|メモリ)[^。\n]{0,12}?変わらず|"
            r"(?:VRAM|메모리)[^.。\n]{0,16}?(?:일정하게|그대로)\s*유지|(?:VRAM|메모리)(?:\s*사용량)?(?:은|는|이|가)?\s*정상|"
            r"\b(?:plenty|lots) of (?:free )?(?:GPU )?(?:memory|VRAM|RAM)\b|(?:内存|显存)(?:占用)?(?:正常|充足|充裕|够用)",
            _stated_plainly, mode="first", prose=True),
        # the report's words that what it runs works ("But the Chat is working fine, without any Problems.", "everything
        # works fine", "可以正常对话", "一切正常"; not asked, nor working only until something, "works fine until the
        # third request"): a log cut during its start-up is then no step that failed
        # (or that they got it to work: "I've got it working:", "finally got it running", "managed to get it to work",
        # "it works now")
        fig("_works_stated", WORKS_NOW + r"|\b(?:I(?:['\u2019]ve| have)|we(?:['\u2019]ve| have)|finally|managed to|able to) "
            r"(?:got|get|gotten) (?:it|this|the (?:server|model)) (?:working|to work|running|to run)\b(?!\s+(?:until|"
            r"but|only|for a (?:while|bit|few))\b)|"
            r"\b(?:chat|server|model|it|everything|inference|generation|serving)\s+(?:is\s+|was\s+)?"
            # (its words to search for are the ending's: "running" is in every statistics line an engine prints)
            r"(?:working|works|runs|running|worked|ran)\s+(?:just\s+)?(?:fine|well|normally|perfectly|correctly)\b|"
            r"\bwithout any problems?\b|一切正常|运行正常|可以正常(?:对话|使用|运行|推理|聊天)|正常に動(?:作|き|いて)|"
            # (German, Japanese, Spanish, Korean: "funktioniert einwandfrei", "問題なく動いています", "funciona bien",
            # "정상적으로 작동합니다")
            r"\bfunktioniert\s+(?:einwandfrei|gut|problemlos|normal|tadellos)\b|問題なく(?:動|使え|会話)|"
            r"\bfunciona\s+(?:bien|correctamente|sin problemas|perfectamente)\b|(?:잘|정상적으로|문제없이)\s*(?:작동|동작|돌아)",
            _stated_plainly, mode="first", prose=True),
        # a user's table of context sizes and what each did ("- 21k context: 23194MiB used", "- 22k context: OOM",
        # "-c 16384 -> OOM"): (tokens, whether it ran out of memory), read by logs.diagnose._context_swept
        fig("_context_sweep", _CTX_ITEM, _ctx_item, mode="list", prose=True),
        fig("_context_sweep", _CTX_ITEM_C, _ctx_item, mode="list", prose=True),
        fig("reported_memory_before_bytes", _MEMWORD + r"[^\d\n]{0,20}" + _USIZE + _ARROW + _USIZE,
            lambda m: _reading(m, 1), flags=0),
        fig("reported_memory_after_bytes", _MEMWORD + r"[^\d\n]{0,20}" + _USIZE + _ARROW + _USIZE,
            lambda m: _reading(m, 3), flags=0),
        # NCCL's shared-memory transport could not grow a file in /dev/shm (a container's small default)
        fig("failed_alloc_bytes", r"you tried to allocate (\d+) bytes", count, mode="list"),
        fig("required_pages", r"Required pages: (\d+)", count),
        fig("total_pages", r"Total pages: (\d+)", count),
        fig("_shm_exhausted", r"failed to extend /dev/shm/|/dev/shm/\S+ .*No space left on device|"
            r"Error while creating shared memory segment", lambda m: True),
        # (a traceback's frame in it, or its CUDA source in an error; not a log line's own prefix, vLLM's INFO
        # "[custom_all_reduce_utils.py:242] reading GPU P2P access cache", printed whenever TP > 1)
        fig("_custom_all_reduce_failed", r"File \x22[^\x22]*custom_all_reduce\w*\.py\x22|custom_all_reduce\w*\.cuh?:\d+",
            lambda m: True),
        # an AMD GPU under ROCm/HIP: its debugging switches are HIP's, not CUDA's
        # (not vLLM's collect_env on an NVIDIA machine, which names ROCm to say it is absent: "ROCM used to build
        # PyTorch: N/A", "ROCM Version: Could not collect", "ROCm: Disabled")
        fig("_rocm", r"\bhip(?:Error\w+|Malloc\w*|Memcpy\w*)|\bHIP error\b|"
            r"\bROCm\d?\b(?!(?: version| used to build PyTorch)?\s*:\s*(?:Disabled|N/A|None|False|No|Could not "
            r"collect)\b)|\bRCCL\b|/opt/rocm\b|"
            r"\bgfx9[0-9a-f]{2}\b|\bgfx1[01]\d\d\b", lambda m: True),
        # ... its architecture as the runtime names it (rocBLAS "for GPU arch : gfx1031", Ollama's "compute=gfx1031",
        # llama.cpp's "Device 0: AMD Radeon RX 6700 XT, gfx1031 (0x1031)"), and the override the environment sets
        # (HSA_OVERRIDE_GFX_VERSION=10.3.0: the runtime then loads that architecture's kernels)
        fig("gfx_arch", r"(?:GPU arch\s*:\s*|\bcompute=|, )(gfx(?:9[0-9a-f]{2}|1[01]\d\d))\b", lambda m: m.group(1),
            flags=0),
        fig("hsa_override", r"\bHSA_OVERRIDE_GFX_VERSION\s*[=:]\s*[\x22']?(\d{1,2}\.\d\.\d)\b", lambda m: m.group(1),
            flags=0),
        # ... an Ascend NPU under CANN: its switch is ASCEND_LAUNCH_BLOCKING, its collectives HCCL's
        fig("_ascend", r"\bCANN_VERSION\b|\bvllm[-_]ascend\b|\btorch_npu\b|\bAscend\b|\bEZ9999\b|\bHCCL\b", lambda m: True),
        # generic key=value settings in argument dumps (Namespace, dicts, config lines)
        fig("max_model_len", r"\b(?:max_model_len|context_len|max_seq_len)['\"]?\s*[=:]\s*" + NUM, count),
        fig("tensor_parallel_size", r"\b(?:tensor_parallel_size|tp_size|num_shard)['\"]?\s*[=:]\s*(?:Some\()?(\d+)",
            count),
        fig("block_size", r"\bblock_size['\"]?\s*[=:]\s*(\d+)\b(?![.,\d]|\s*[KMGT]?i?B\b)", count),  # tokens
        # (the model a size cap refused, by its name: oMLX "Model 'Qwen3.5-397B-A17B-nvfp4' (218.08GB) exceeds ...")
        fig("model_name", r"\b[Mm]odel '([^'\s]{1,200})' \(\s*\d[\d.,]*\s*[KMGT]i?B\) exceeds\b", lambda m: m.group(1)),
    ),
    step_codes=(
        StepCode("WARMUP", "cuda-graph-capture-oom", rx(r"\bcaptur|cuda_graph|cudagraph")),
        StepCode("WARMUP", "sampler-warmup-oom", rx(r"sampler")),
        StepCode("WARMUP", "profile-run-oom", rx(r"profil")),
        StepCode("RUNTIME", "prefill-oom", rx(r"prefill|prompt")),
        # (a training loop's step: the optimizer's state made at its first step, the backward pass's gradients)
        StepCode("RUNTIME", "training-step-oom", rx(r"inner_training_loop|training_step|optimizer\.step|_init_group|"
                                                    r"\bin (?:\w+\.)?train_(?:with|step|epoch|loop|one|model|grpo|ppo|dpo|"
                                                    r"sft)\w*\b|"
                                                    r"\.backward\(|\bin (?:\w+\.)?backward\b")),
    ),
    # a loader's own steps in any engine: a layer's load_weights / weight_loader, a quantization method making its
    # weights (create_weights, a Parameter of torch.empty) and processing them after they are read
    # (process_weights_after_loading), a model moved to the GPU whole (model.cuda(), nn.Module._apply)
    loader=rx(r"\bload_weights\b|\bweight_loader\b|\b_?create_weights?\b|Parameter\(torch\.(?:empty|zeros)|"
              r"\bprocess_weights?(?:_after_loading)?\b|\bin _apply\b|\bself\._apply\(|"
              r"\bmodel\s*=\s*model\.(?:cuda|to)\(|"
              # (LLaVA's builder, llava/model/builder.py `load_pretrained_model`, which the vision-language repositories
              # copy: it builds the model, reads its weights and its vision tower's, and resizes its embeddings to the
              # tokenizer; it returns before any input)
              r"\bin load_pretrained_model\b|"
              # (a layer built on the device: `_LAYER_BUILT`)
              + _LAYER_BUILT),
    # a process setting up its device before any weights, in any engine: PyTorch's CUDA context
    # (torch.cuda.set_device -> torch._C._cuda_setDevice) and NCCL's communicator (ncclCommInitRank)
    device_setup=rx(r"\bin (?:set_device|_cuda_setDevice)\b|\bncclCommInitRank\b"),
)

ENGINE = Engine(
    name="generic", label="an unrecognised engine", log=LOG, rules=GenericRules,
    flags={},  # advice for an engine not recognised is given in plain words, never another engine's flags
)
