"""What vramdoctor knows about one inference engine, behind one interface.

Every engine module (`engines/vllm.py`, `engines/ollama.py`, ...) defines one `Engine`: its
names, the words of its log (fingerprints, start lines, failure and pressure messages, the
functions that place a failure in a phase, start-up milestones, figures and the settings it
prints), its flags and which way each moves memory, and, where `estimate` supports it, its memory
rules. `estimate`, `logs` (and later `probe` and `sweep`) ask the engine object instead of keeping
tables of their own, so a new engine or a new version's wording is one file and its tests.

Pure data: compiled patterns and small frozen dataclasses. No I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

I = re.IGNORECASE

#: phases of a server's life, in order. HOST: the operating system killed it for host RAM.
PHASES = ("WEIGHTS", "KV", "WARMUP", "RUNTIME")

#: start-up milestones in order; each says a step has been passed. `kv_sized`: the pool's size was
#: computed (allocating it may still fail); `kv_done`: the pool (and any buffers sized with it) is
#: allocated; `warmup_done`: graphs captured / warm-up run done; `ready`: the server accepts requests.
MILESTONES = ("start", "weights_done", "kv_sized", "kv_done", "warmup_done", "ready", "requests")

#: the phases a failure can be in once a milestone has been passed and nothing later is shown
#: (engines override `weights_done` when a profiling pass comes before the pool is sized)
AFTER_MILESTONE: dict[str, tuple[str, ...]] = {
    "start": ("WEIGHTS",),
    "weights_done": ("KV",),
    "kv_sized": ("KV", "WARMUP"),
    "kv_done": ("WARMUP",),
    "warmup_done": ("WARMUP", "RUNTIME"),
    "ready": ("RUNTIME",),
    "requests": ("RUNTIME",),
}

#: the lowest phase a failure can be in once a milestone has been passed
FLOOR: dict[str, str] = {"start": "WEIGHTS", "weights_done": "KV", "kv_sized": "KV", "kv_done": "WARMUP",
                         "warmup_done": "WARMUP", "ready": "RUNTIME", "requests": "RUNTIME"}


@dataclass(frozen=True)
class Message:
    """An engine's own words for a failure, a warning of pressure, or a wrapper of one.

    kind: "oom" (memory ran out), "not_oom" (a failure often taken for one), "pressure" (the pool
    is full and the engine copes: preempts, retracts, queues; no crash), "wrapper" (an error that
    only reports that something failed elsewhere: its cause is in other lines).
    phase: WEIGHTS / KV / WARMUP / RUNTIME / HOST when the words alone place the failure, else None.
    code: the stable code these words name ("" to let the diagnosis choose one).
    candidates: the phases the words leave open when they name several at once ("for model and cache"):
    no frame or milestone then narrows them.
    kind "retry": the engine retries what just failed (a failure a line or two before it may not be fatal).
    """

    pattern: re.Pattern
    kind: str
    phase: str | None = None
    code: str = ""
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepCode:
    """A step an engine names in a failure's stack frames or the lines before it that settles the failure's code
    within its kind (vLLM's `capture_model` a graph capture, its `check_enough_kv_cache_memory` a pool too small for
    the context). kind: the diagnosis kind it refines (WARMUP, RUNTIME, KV_CAPACITY); code: the code it gives;
    pattern: searched in the lower-cased words of the failure's place and its frames. Which of several codes wins
    is the diagnosis's order (`logs.diagnose.CODE_ORDER`), not the engines'."""

    kind: str
    code: str
    pattern: re.Pattern


@dataclass(frozen=True)
class Figure:
    """A figure or setting the engine prints. key: the report's name (`_bytes`, `_tokens`, or the
    setting's own name); read: match -> value; mode: "last", "first" or "list" (every value)."""

    key: str
    pattern: re.Pattern
    read: Callable[[re.Match], object]
    mode: str = "last"
    passive: bool = False  # read only from lines that matter for another reason (its words are on every line)
    command: bool = False  # a setting from a pasted command line (never read from a line saying a value was tried)
    prose: bool = False  # a user's words: never read from a line a program wrote (a time, a level, a process tag)


@dataclass(frozen=True)
class LogWords:
    """The words of an engine's log (all versions it has printed, each pattern naming its source).

    fingerprint: lines that only this engine (or its wrappers) prints.
    run_start: lines a fresh server start prints (case-sensitive where a failure line is similar).
    messages: failures, pressure warnings and wrappers in the engine's words.
    frames: phase (or COMPUTE: a graph evaluation, warm-up or serving; STARTUP: some start-up step, which
    one not said) -> function names / steps that place a failure in that phase when they appear
    in its stack frames or in the lines just before it (only steps in progress, never a line that
    says a step finished).
    milestones: (milestone, pattern) pairs; a line matching marks the milestone passed.
    figures: figures and settings read from any line.
    after: milestone -> the phases that can follow it in this engine's start-up, where they are not
    `AFTER_MILESTONE`'s (vLLM's profiling pass before its pool is sized: `weights_done` -> WARMUP or KV).
    quiet: the engine's start-up milestones are not printed at its default log level, so their absence
    says nothing about how far it got.
    step_codes: the steps that settle a failure's code within its kind (`StepCode`).
    chat: a question typed at the engine's interactive prompt (`ollama run`'s ">>> "): a request, and the lines after
    it, up to the next prompt, are the model's answer, not the engine's log.
    loader: the frames of the engine's model loader proper, which reads or makes the weights and nothing else (a
    traceback cut inside one was loading the weights, however it was cut); searched in the failure's frames joined by
    newlines, so that a pattern may span a frame and the code line under it.
    device_setup: the frames of a worker setting up its device before any weights (the CUDA context, the
    distributed environment and its communicators): memory that ran out there was taken before the engine began.
    context_setup: lines the engine prints once the weights are read, as it sets up its context (llama.cpp's
    llama_context): where an engine has them, its weights milestone marks the weights' buffers made, not their data
    read, so a host kill after that milestone and before any of these was the weights being read.
    more_weights: lines of a second model's load after the first one's weights (llama-server's multimodal projector,
    clip.cpp "load_hparams: model size: ..."; a draft model): weights again, after the milestones of the first, so a
    failure while it is under way is the weights ledger however far the first model got.
    warmup_goes_on: (`warmup_done` lines after which the engine's start-up still runs a warm-up step, that step's
    name): vLLM V1's graphs captured, then its sampler warmed up; a failure that directly follows them, nothing of
    serving between, is still the warm-up, in that step.
    maybe_memory: not-memory failure codes that, in this engine, a device out of memory gives too (vLLM on Intel GPUs:
    Level Zero's OUT_OF_RESOURCES): undetermined there, with what would settle it, not "not memory".
    not_oom_advice: failure code -> what to change, in this engine's own settings, where they differ from the
    engine it wraps or from every engine's (Ollama's num_ctx for llama.cpp's -c).
    pinned_host_load: where the engine copies the model into host memory that CUDA pins when it loads without mmap
    (llama.cpp's ggml_cuda_host_malloc), the run that tells that pinned memory from the GPU's, in its own settings:
    a CUDA allocation that fails while it loads with no layer on the GPU may be that pinned buffer. Empty otherwise.
    stalled: a line the engine prints again and again while one of its processes waits on another that does not
    answer (vLLM's shm_broadcast.py "No available shared memory broadcast block found in 60 seconds"): a log of a
    server that was serving and ends on two or more of them, with no failure, shows a process stuck (at start-up the
    same line is a long compilation, and benign).
    answer_begins: a line of the engine's own after which it prints the model's answer as bare text, with no log prefix
    (llama-cli's "generate: n_ctx = 4096, n_batch = 2048, n_predict = -1, n_keep = 1", its "== Running in interactive
    mode. =="): those lines, up to the engine's next line with a log prefix (its timings), are the answer (as `chat`'s),
    not the engine's log.
    replay_begins: the words of the engine's own line after which it replays a child process's output (TGI's shard
    manager, "Shard complete standard error output:", then the dead shard's stderr, its "Loading safetensors..." too):
    those lines, up to the engine's next line with a log prefix, are the same run's again, where no run starts. Matched
    as a substring (every line read is tested).
    launch: the engine's server command as a person types it (the binary or its Python entry point, without the
    shell prompt or path before it: vLLM's "vllm serve"): that command pasted again after a run that served starts the
    next run (a report's second try under its first).
    answered: a line of the engine's own that shows a request answered (llama-server's access line "request: POST
    /v1/chat/completions 127.0.0.1 200", Gin's "| 200 |" in Ollama, uvicorn's "HTTP/1.1" 200 OK"): a log that ends on
    one, with no failure after it, ends serving.
    stops_own: a line the engine prints once it has stopped a child process of its own by a kill (Ollama 0.1's Close:
    "llama runner stopped successfully" after Go's "signal: killed" for the runner it killed itself): that SIGKILL,
    just before it, is the engine's, not the OOM killer's.
    work_done: a line a program prints when it has finished its work (llama.cpp's timings at a run's end,
    llama-cli's "Interrupted by user"): a log that ends on one ended a piece of work, not in a hang.
    loads_on_request: where the engine's front server loads its model for a request (Ollama), the engine's own line of
    a request its loaded model took (Ollama's runner, "loading cache slot"): only that, or an answered request after
    the engine said it was ready, shows serving; a request line alone does not.
    load_is_weights: the engine's start-up is its weights' load alone (transformers' `from_pretrained`, whisper's
    model load: no KV pool sized, no warm-up or graphs), so a person's words that it failed while the model loaded
    ("加载模型时显存不足", "OOM when loading the model") name the weights; elsewhere (vLLM, llama.cpp, Ollama: what their
    users call loading the model includes the KV cache and the warm-up) those words name a start-up step, whichever.
    bare_requests: lines of a request's work that the engine prints bare, with no log prefix (llama.cpp's
    mtmd-helper "encoding image or slice..."), so that they do not look like a program's line: the server's own
    lines of serving all the same.
    sentences: memory messages in full, as the engine's source formats them (`{}` where it puts a value without
    spaces, `{*}` where it puts free text), for
    those whose first words do not yet speak of memory ("To serve at least one request with the models's max seq
    len (...), (... GiB KV cache is needed, ..."): a line that stops partway into one was cut before it named its
    cause, and is never read as a cause that is not memory.
    """

    fingerprint: re.Pattern | None = None
    run_start: tuple[re.Pattern, ...] = ()
    messages: tuple[Message, ...] = ()
    frames: dict[str, re.Pattern] = field(default_factory=dict)
    milestones: tuple[tuple[str, re.Pattern], ...] = ()
    figures: tuple[Figure, ...] = ()
    after: dict[str, tuple[str, ...]] = field(default_factory=dict)
    quiet: bool = False
    step_codes: tuple[StepCode, ...] = ()
    loader: re.Pattern | None = None
    chat: re.Pattern | None = None
    device_setup: re.Pattern | None = None
    context_setup: re.Pattern | None = None
    more_weights: re.Pattern | None = None
    warmup_goes_on: tuple[re.Pattern, str] | None = None
    maybe_memory: tuple[str, ...] = ()
    not_oom_advice: dict[str, str] = field(default_factory=dict)
    pinned_host_load: str = ""
    sentences: tuple[str, ...] = ()
    stalled: re.Pattern | None = None
    launch: re.Pattern | None = None
    answer_begins: re.Pattern | None = None
    replay_begins: str = ""
    bare_requests: re.Pattern | None = None
    answered: re.Pattern | None = None
    stops_own: re.Pattern | None = None
    work_done: re.Pattern | None = None
    loads_on_request: re.Pattern | None = None
    load_is_weights: bool = False


#: the settings advice moves, in vramdoctor's names; each engine spells the ones it has
SETTINGS = (
    "max_model_len",  # context per sequence (vLLM --max-model-len, llama.cpp -c)
    "max_num_seqs",  # concurrent sequences
    "memory_fraction",  # the fraction the pool is carved from (up: bigger pool; down: more headroom)
    "kv_cache_dtype",  # an 8-bit KV cache
    "max_num_batched_tokens",  # tokens per step / chunked prefill
    "cuda_graphs",  # fewer or no captured graphs
    "tensor_parallel_size",  # more GPUs
    "quantization",  # fewer-bit weights
    "quantization_4bit",  # 4-bit weights, for weights that are 8-bit already (fp8, int8, an 8-bit conversion)
    "cpu_offload",  # weights kept in CPU memory
    "gpu_layers",  # llama.cpp family: layers on the GPU
    "kv_offload",  # llama.cpp family: KV cache in system memory
    "kv_defrag",  # llama.cpp: KV cache defragmentation (-dt), packing free cells that are scattered
    "n_ubatch",  # llama.cpp family: physical batch (compute buffer)
    "flash_attn",
    "prefill_tokens",  # TGI: --max-batch-prefill-tokens
    "nccl",  # fewer communication buffers
    "overhead",  # memory an engine keeps free outside its estimate (Ollama OLLAMA_GPU_OVERHEAD)
    "page_size",  # tokens per KV page where a request takes whole pages (SGLang --page-size)
    "lora_slots",  # LoRA adapters held on the GPU at once (vLLM --max-loras, SGLang --max-loras-per-batch)
    "lora_rank",  # the largest LoRA rank the adapter slots are sized for (--max-lora-rank)
    "hicache_size",  # a hierarchical KV cache's host tier, in GB per rank (SGLang --hicache-size)
    "hicache_ratio",  # ... as a ratio of the GPU pool (SGLang --hicache-ratio)
)


#: a reply as the engine modules see it: (HTTP status, body text); None where the path did not answer
Answer = tuple[int, str]


@dataclass(frozen=True, kw_only=True)
class KvView:
    """The engine's own view of its KV pool, from its live endpoints.

    tokens: tokens the pool holds (vLLM `kv_cache_size_tokens` or `num_gpu_blocks` x `block_size`, SGLang
    `max_total_num_tokens`, llama.cpp's cells where the endpoint settles them, TGI `tgi_batch_max_total_tokens`);
    None where the endpoint does not settle it (`note` says why and what would). bytes_: bytes where the engine
    states them. figures: everything read (num_gpu_blocks, block_size, cache_dtype, slots, n_ctx_per_slot,
    usage, ...). source: the endpoint and field read. candidates: the token counts the endpoint leaves open.
    """

    tokens: int | None = None
    bytes_: int | None = None
    figures: dict = field(default_factory=dict)
    source: str = ""
    note: str = ""
    candidates: tuple[int, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Tokenizer:
    """A tokenize endpoint: POST `path` with `body(text, model)`; `read(json)` -> token ids or None. detok_path /
    detok_body(ids, model) / detok_read(json) -> text or None turn ids back into text."""

    path: str
    body: Callable[[str, str], dict]
    read: Callable[[object], "list[int] | None"]
    detok_path: str = ""
    detok_body: Callable[[list, str], dict] | None = None
    detok_read: Callable[[object], "str | None"] | None = None


@dataclass(frozen=True, kw_only=True)
class Endpoints:
    """How a live server of this engine answers (pure: the probe fetches, these functions read).

    identify: GET paths whose replies tell this engine apart; recognise(answers) -> the engine's version
    ("" when recognised without one) or None when the answers are not this engine's (answers: path -> Answer
    or None). ready: the path that answers 200 once the model is loaded (None: only /v1/models tells).
    kv_paths / kv_view(answers) -> KvView: the engine's own view of its pool. tokenizers: its tokenize
    endpoints, tried in order. completion_extras: fields this engine takes in a completion request beyond
    OpenAI's (`ignore_eos` for an exact output length). pre_reserves: the engine allocates its whole KV pool
    at start (vLLM, SGLang, llama.cpp), so a request's increment holds activations and workspaces, not its
    cache. kept_after_request: memory the engine keeps by design once a request ends (llama-server's prompt cache
    in host RAM), said when memory does not return to the baseline. Sources: ../shared/ENGINES.md and each engine's server code, cited where each is defined.
    """

    identify: tuple[str, ...]
    recognise: Callable[[dict], "str | None"]
    ready: str | None = "/health"
    kv_paths: tuple[str, ...] = ()
    kv_view: Callable[[dict], KvView] | None = None
    tokenizers: tuple[Tokenizer, ...] = ()
    completion_extras: dict = field(default_factory=dict)
    pre_reserves: bool = True
    kept_after_request: str = ""  # what the engine keeps by design once a request ends (a prompt cache), in words


@dataclass(frozen=True, kw_only=True)
class Preset:
    """How `sweep` starts this engine's server for one experiment (one home per engine).

    command: the argument template; `{name}` placeholders are filled per run: {server_bin} / {server_python}
    (the program), {model}, {port}, {max_model_len}, {n_ctx} (max_model_len x max_num_seqs: llama-server's -c,
    shared by its -np slots), {max_num_seqs}, {n_gpu_layers}, and any the user sets. optional: setting ->
    the arguments added only when that setting has a value (a knob the engine would otherwise choose itself).
    defaults: the value each placeholder takes when the sweep does not vary it. env: environment for the server.
    needs_help: flags kept only when the server's --help lists them (llama-server's --fit, from build 7407).
    knobs: the concurrency stage's settings and the values tried by default. context_key: the setting the
    context stage varies. program: the default for the program placeholder (a command on PATH).
    """

    command: tuple[str, ...]
    optional: dict[str, tuple[str, ...]] = field(default_factory=dict)
    defaults: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    needs_help: tuple[tuple[str, ...], ...] = ()
    knobs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    program: str = ""


def answer_json(answers: dict, path: str):
    """The JSON of a 200 answer at `path`, or None (missing, another status, not JSON)."""
    import json

    a = answers.get(path)
    if not a or a[0] != 200:
        return None
    try:
        return json.loads(a[1])
    except (ValueError, RecursionError):
        return None


def token_ids(j) -> list[int] | None:
    """The `tokens` list of a tokenize reply ({"tokens": [1, 2, ...]}: llama-server, vLLM, SGLang, llama-cpp-python),
    or None when the reply is not of that shape."""
    toks = j.get("tokens") if isinstance(j, dict) else None
    return [int(t) for t in toks] if isinstance(toks, list) and all(
        isinstance(t, int) and not isinstance(t, bool) for t in toks) else None


def prom_samples(answers: dict, path: str, names: tuple[str, ...]) -> list[tuple[str, dict, float]]:
    """(name, labels, value) of every sample called one of `names` on a Prometheus text page answered 200 at
    `path` (parsed with prometheus-client's parser); [] when the page is missing or not Prometheus text."""
    a = answers.get(path)
    if not a or a[0] != 200:
        return []
    from prometheus_client.parser import text_string_to_metric_families

    out = []
    try:
        for family in text_string_to_metric_families(a[1]):
            for sample in family.samples:
                if sample.name in names:
                    out.append((sample.name, dict(sample.labels), float(sample.value)))
    except (ValueError, TypeError, IndexError):
        return []
    return out


def as_count(value, cap: int = 1 << 40) -> int | None:
    """A non-negative integer from a JSON or label value ("1024", 1024, 1024.0), or None (absent, "None",
    negative, beyond `cap`, not a number)."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        n = float(value)
    except (TypeError, ValueError):
        return None
    if n != n or n < 0 or n > cap or n != int(n):
        return None
    return int(n)


@dataclass(frozen=True)
class Spelling:
    """How llama.cpp or a front end over it (Ollama, KoboldCpp, llama-cpp-python) spells what `estimate` says, for
    pasting. Templates take {n} (tokens per sequence), {ctx} (tokens in all), {c} (sequences), {t} (a KV cache type
    in this spelling), {u} (the physical batch), {k} (layers on the GPU), {g} (GPUs), {ts} / {tss} / {tsl} (an even
    split over the GPUs, '1,1', '1 1', '1, 1'); '' where the front end has no such setting (Ollama splits the layers
    over the GPUs it sees by itself).

    kv_types: llama.cpp's KV cache type name -> this front end's value; a type it lacks is absent (refused).
    unified: the flag for llama.cpp's unified cache with several slots ('' where the front end has none).
    """

    label: str
    context: str
    kv_cache: str
    kv8: str
    ubatch: str
    gpu_layers: str
    split: str
    kv_types: dict[str, str]
    unified: str = ""

    def gpu_layers_name(self) -> str:
        """The layers setting's name alone ('-ngl', 'num_gpu')."""
        return self.gpu_layers.split("{")[0].strip().rstrip("=").strip()


@dataclass(frozen=True)
class Engine:
    """One engine. name: canonical; label: as its users write it; aliases: other spellings users
    type (`--engine`); wraps: the engine whose log lines this one embeds (Ollama and KoboldCpp
    embed llama.cpp's), so its hits count for the wrapper.

    flags: setting (one of SETTINGS) -> the engine's spelling, with {n} (a count), {x} (a fraction)
    or {v} (a value) to fill; a setting the engine lacks is absent, and advice never gives it in
    another engine's words. fraction_key: the figure holding the user's memory fraction.
    defaults: the engine's documented defaults, used only when its log prints the full argument
    list (so an absent setting is known to be the default). rules: the memory rules `estimate`
    uses (None: estimate does not model this engine).
    """

    name: str
    label: str
    log: LogWords
    flags: dict[str, str] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    wraps: str | None = None
    #: engines whose Python modules this one's code imports, so that their frames show in its tracebacks (SGLang's
    #: layers and patches import vLLM's: `vllm/utils.py`, `vllm/model_executor/...`); seen at all, it wins over them
    imports: tuple[str, ...] = ()
    fraction_key: str | None = None
    defaults: dict[str, object] | Callable[[str | None], dict] = field(default_factory=dict)
    rules: Callable[[], object] | None = None
    adapt_flags: Callable[[dict, dict], dict] | None = None  # (flags, figures) -> the flags this version has
    kv_block_tokens: int | None = None  # tokens per KV block when the log does not print it (None: not known)
    endpoints: Endpoints | None = None  # its live server's endpoints (probe); None: it serves no HTTP we read
    preset: Preset | None = None  # how `sweep` launches it; None: give --command
    spelling: Spelling | None = None  # llama.cpp and its front ends: how `estimate` spells their settings

    def flags_for(self, figures: dict) -> dict[str, str]:
        """The flags of the version the log shows (an older release may lack a flag or spell it otherwise)."""
        return self.adapt_flags(dict(self.flags), figures) if self.adapt_flags else self.flags

    def defaults_for(self, version: str | None) -> dict:
        """The engine's defaults (for its version, where they changed)."""
        return self.defaults(version) if callable(self.defaults) else dict(self.defaults)
