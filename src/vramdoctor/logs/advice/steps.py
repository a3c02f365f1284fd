"""The primitives advice is made of: a step, the list of steps for one engine (its flags, or plain words), and
the fractions and counts a step moves to."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Iterator

from ...engines import all_engines, get
from ...engines.interface import Engine
from ...errors import UsageError
from ..facts import latest

GIB, MIB = 2**30, 2**20
#: llama.cpp and the engines that run it (their weights are layers placed on the GPU, their buffers ggml's)
GGML = tuple(["llamacpp"] + sorted(e.name for e in all_engines() if e.wraps == "llamacpp"))
#: settings in plain words, for an engine vramdoctor does not recognise
PLAIN = {"max_model_len": "the context length per request", "max_num_seqs": "the number of concurrent requests",
         "memory_fraction": "the fraction of GPU memory the engine reserves", "kv_cache_dtype": "an 8-bit KV cache",
         "max_num_batched_tokens": "the tokens processed per step (prefill chunk)",
         "cuda_graphs": "CUDA graph capture (fewer batch sizes or none)", "tensor_parallel_size": "more GPUs",
         "quantization": "fewer-bit weights (a 4-bit or 8-bit checkpoint)", "cpu_offload": "part of the weights in "
         "CPU memory", "gpu_layers": "fewer layers on the GPU", "kv_offload": "the KV cache in system memory",
         "n_ubatch": "a smaller batch", "flash_attn": "flash attention", "prefill_tokens": "the prefill batch size",
         "nccl": "fewer communication buffers", "overhead": "memory kept free outside the engine's estimate",
         "lora_slots": "fewer LoRA adapters held at once", "lora_rank": "a lower LoRA rank cap",
         "hicache_size": "a smaller host tier of the KV cache", "hicache_ratio": "a smaller host tier of the KV cache"}
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
        except UsageError:  # an engine name we cannot resolve gets plain words
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

    def term(self, setting: str, default: str) -> str:
        """The engine's own name of `setting` for a sentence (its flag without a value or a note: "-c", "num_ctx",
        "n_ctx", "--contextsize", "OLLAMA_FLASH_ATTENTION=1"); `default`, in plain words, where it has none."""
        text = self.flags.get(setting) if self.engine is not None else None
        if not text:
            return default
        text = text.split(" (", 1)[0]
        return text.split("{n}", 1)[0].rstrip(" =:") if "{n}" in text else text

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
        index = self.n.get("_gpu_index")
        index = max(index) if isinstance(index, list) and index else index
        if setting == "tensor_parallel_size" and "{n}" not in text and isinstance(index, int) and index > 0:
            return  # the error is on a GPU after the first: a split across GPUs is probably in use already
        if setting == "cuda_graphs" and (self.n.get("cuda_graphs_off") is True or self.n.get("enforce_eager") is True):
            return  # CUDA graphs are off already (--enforce-eager, --disable-cuda-graph, --cuda-graphs 0)
        if setting == "tensor_parallel_size" and self.n.get("_metal"):
            return  # an Apple GPU: a Mac has one, whose memory is the machine's own, so there is nothing to split over
        if current is None and direction in ("down", "up"):
            current = _shown(setting, self.n)
        if setting in _NEGATIVE_IS_ALL and current is None and any(v < 0 for v in _shown_counts(setting, self.n)):
            # (a negative layer count is every layer on the GPU, llama-cpp-python's n_gpu_layers=-1, not the
            # feature off: the current value is the model's layers, where the log shows them)
            layers = self.n.get("layers_total") or self.n.get("model_layers")
            current = layers if isinstance(layers, int) and layers > 0 else None
            why += "; -1 in this log puts every layer there"
        # (a size the log shows negative is the feature off, SGLang's --chunked-prefill-size -1: "below" it is no value;
        # the step turns it on)
        off = _off(setting, self.n) if current is None and direction == "down" else None
        if text and direction in ("down", "up"):
            past = self._past_tried(change, setting, text, direction, value)
            if past is False:
                return
            if past is not None:
                value, why = past
        if value is not None and current is not None and value == current:
            return  # never propose what is in use
        if direction == "down" and isinstance(current, (int, float)) and not isinstance(current, bool) and current == 0:
            return  # a count already at none (-ngl 0): it cannot go lower
        if direction == "down" and setting in AT_LEAST_ONE and current == 1:
            return  # a count already at one (--max-num-seqs 1): it cannot go lower
        if text:
            text = self._without_spent_alternatives(text)
        if (isinstance(value, (int, float)) and isinstance(current, (int, float)) and not isinstance(value, bool)
                and (direction == "up" and value < current or direction == "down" and value > current)):
            return  # a value on the wrong side of the one in use: the step would move the setting the wrong way
        if off is not None:
            change += " (it is off)"
        if text:
            text, why = _filled(text, why, direction, value, current, fill, off)
        self.out.append(Step(change=change, flags=text, why=why, setting=setting, direction=direction, value=value,
                             current=current))

    def _without_spent_alternatives(self, text: str) -> str:
        """A step's flags without an alternative it offers that the log shows spent: "(or a lower --max-num-seqs:
        ...)" where --max-num-seqs is 1 already."""
        for m in list(_LOWER_ALTERNATIVE.finditer(text)):
            setting = next((k for k, v in self.flags.items() if v.split(" ", 1)[0] == m.group(1)), None)
            if setting in AT_LEAST_ONE and _shown(setting, self.n) == 1:
                text = text.replace(m.group(0), "")
        return text

    def _past_tried(self, change: str, setting: str, text: str, direction: str, value: object):
        """A value the log says was tried and still failed (`_tried`: flag -> value) bounds the step: it goes past it.
        None: no such value, or the step's value is past it already; (value, why) to propose instead; False when the
        setting cannot go past it (then a step says so)."""
        m = _BOUND.search(text)
        tried = self.n.get("_tried")
        flag = m.group(1) if m else None
        t = tried.get(flag) if flag and isinstance(tried, dict) else None
        if t is None and isinstance(tried, dict):  # the same setting in the spelling of the engine a front end runs
            flag = next((f for f in TRIED_ALIASES.get(setting, ()) if f in tried), None)
            t = tried.get(flag) if flag else None
        down = direction == "down"
        if isinstance(t, list):  # several values tried: the step goes past the furthest of them
            t = (min(t) if down else max(t)) if t else None
        if not isinstance(t, (int, float)) or flag is None:
            return None
        if isinstance(value, (int, float)) and (value < t if down else value > t):
            return None
        past = _past(t, down)
        said = f"{flag} {t:g} was tried and still failed (the log says)"
        if past is None:
            self.say(change + ": tried already", f"{said}, and it cannot go {'lower' if down else 'higher'}: "
                     f"{PLAIN.get(setting, setting)} is not what limits this run")
            return False
        return past, f"{said}: past it"

    def say(self, change: str, why: str) -> None:
        self.out.append(Step(change=change, flags="", why=why))


#: the placeholder a flag holds where neither the value to set nor the one in use is shown ({n} a count, {x} a
#: fraction, {v} a value, {m} a second count)
PLACEHOLDERS = {"n": "N", "x": "X", "v": "V", "m": "M"}


#: counts whose least value is one (one sequence, one GPU, one graph size)
AT_LEAST_ONE = ("max_num_seqs", "tensor_parallel_size", "cuda_graph_max_bs", "n_parallel")
#: an alternative a step's flags offer, to lower another setting ("(or a lower --max-num-seqs: fewer graph sizes)")
_LOWER_ALTERNATIVE = re.compile(r"\s*\(or a lower (--[\w-]+)[^)]*\)")


def _filled(text: str, why: str, direction: str | None, value: object, current: object,
            fill: dict, off: int | None = None) -> tuple[str, str]:
    """The flag with its value in, and `why`. Where neither the value nor the one in use is known, the flag holds a
    placeholder the user replaces (`--max-num-batched-tokens N`) and `why` says which way it goes from theirs; `off`:
    the negative value the log shows for it, the feature off (the step turns it on with a positive size)."""
    said = None
    if value is not None:
        said = value
    elif current and direction in ("down", "up") and isinstance(current, (int, float)):  # ("higher than 0" says nothing)
        said = f"{'lower' if direction == 'down' else 'higher'} than {current:,}"
    used = []
    for key, letter in PLACEHOLDERS.items():
        if "{" + key + "}" not in text:
            continue
        given = fill.get(key)
        if given is None and (said is None or key == "m"):  # ({m} is a second setting: never the first one's value)
            used.append(letter)
            given = letter
        text = text.replace("{" + key + "}", str(given if given is not None else said))
    if used:
        way = {"down": "below your current value", "up": "above your current value"}.get(direction or "",
                                                                                             "the value to set")
        if off is not None:
            return text, why + f" ({', '.join(used)}: a positive size, well below your longest prompt; {off} in this " \
                                "log turns it off)"
        # (the value shown is the first setting's: never said of {m}, a second one, "--max-input-tokens M")
        shown = isinstance(current, (int, float)) and not isinstance(current, bool) and "M" not in used
        # (a value the log shows but that names no step, 0: said as the log's, not as one it does not show)
        why += f" ({', '.join(used)}: {way}, {current:g} in this log)" if shown else \
            f" ({', '.join(used)}: {way})" if "M" in used else f" ({', '.join(used)}: {way}, which the log does not show)"
    return text, why


#: setting -> the flags a user may name for it where the step's own flag is another's: a front end over llama.cpp (LM
#: Studio, Ollama, llama-cpp-python, KoboldCpp) whose users try llama.cpp's own flags, or the reverse
TRIED_ALIASES = {"max_model_len": ("-c", "--ctx-size", "--context-length", "--contextsize", "--n_ctx", "--n-ctx"),
                 "gpu_layers": ("-ngl", "--n-gpu-layers", "--gpu-layers", "--gpulayers", "--n_gpu_layers"),
                 "max_num_seqs": ("-np", "--parallel"),
                 "n_ubatch": ("-ub", "--ubatch-size", "-b", "--batch-size", "--blasbatchsize"),
                 # the memory fraction as a config key or another spelling (TensorRT-LLM's kv_cache_config key, a
                 # harness's "kvcache_free_gpu_mem_frac", Triton's parameter)
                 "memory_fraction": ("free_gpu_memory_fraction", "kv_cache_free_gpu_memory_fraction",
                                     "kv_cache_free_gpu_mem_fraction", "kvcache_free_gpu_mem_frac",
                                     "--kv_cache_free_gpu_memory_fraction", "gpu_memory_utilization",
                                     "--gpu-memory-utilization", "mem_fraction_static", "--mem-fraction-static",
                                     "cache_max_entry_count", "--cache-max-entry-count", "cuda_memory_fraction",
                                     "--cuda-memory-fraction")}

#: the flag a step's value goes with ("--max-num-seqs {n}" -> --max-num-seqs, "-c {n}" -> -c)
_BOUND = re.compile(r"(-{1,2}[A-Za-z][\w-]*)[ =]\{[nxv]\}")


def _past(t: float, down: bool) -> float | int | None:
    """A value past one that was tried: half a count (twice, going up), a fraction 0.05 lower (0.02 higher, at most
    0.98); None where there is none (a count of 1 going down)."""
    if isinstance(t, int):
        return (t // 2 if t >= 2 else None) if down else 2 * t
    if down:
        return round(t - 0.05, 2) if t > 0.1 else None
    return round(min(0.98, t + 0.02), 2) if t < 0.98 else None


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
          "gpu_layers": ("layers_offloaded", "n_gpu_layers"), "n_ubatch": ("n_ubatch", "blas_batch_size"),
          "cuda_graphs": ("cuda_graph_max_bs",), "prefill_tokens": ("max_batch_prefill_tokens",),
          "lora_slots": ("max_loras",), "lora_rank": ("max_lora_rank",)}


def _shown_counts(setting: str, n: dict) -> Iterator[int]:
    """The counts the log shows for `setting`, in the order of its figures (`_SHOWN`; a series' latest value)."""
    for key in _SHOWN.get(setting, ()):
        v = latest(n, key)
        if isinstance(v, int) and not isinstance(v, bool):
            yield v


def _shown(setting: str, n: dict) -> int | None:
    """The value of `setting` the log shows (a count), None if it shows none."""
    return next((v for v in _shown_counts(setting, n) if v > 0 or v == 0 and setting in _ZERO_IS_SET), None)


def _off(setting: str, n: dict) -> int | None:
    """The negative value the log shows for a size `setting` (SGLang's --chunked-prefill-size -1: chunked prefill off),
    None where it shows none."""
    if setting in _NEGATIVE_IS_ALL:
        return None  # (a negative layer count is every layer, not none: see _Steps.add)
    return next((v for v in _shown_counts(setting, n) if v < 0), None)


#: settings whose 0 is a value the user set (-ngl 0: no layer on the GPU), not an unset or automatic one
_ZERO_IS_SET = ("gpu_layers",)
#: settings whose negative value is all of it (llama-cpp-python's n_gpu_layers=-1: every layer on the GPU), not the
#: feature off as a negative size is elsewhere (`_off`)
_NEGATIVE_IS_ALL = ("gpu_layers",)


def _tp_now(n: dict) -> int | None:
    tp = n.get("tensor_parallel_size")
    return tp if isinstance(tp, int) and tp >= 1 else (1 if n.get("args_listing") else None)


def _more_gpus(n: dict) -> int | None:
    """Twice the tensor-parallel size the log shows (the default 1 where it prints its full arguments); None
    otherwise: worker ranks count data- and expert-parallel workers too, so the step says 'more than now'."""
    tp = _tp_now(n)
    return 2 * tp if tp else None


