"""What a scan keeps of one server start: its failures and warnings with the lines around them, the milestones
it passed, and every figure it printed, each capped (a series keeps its shape in 512 samples)."""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Callable

MAX_SERIES = 512
MAX_MAP = 64


#: the mark on an engine's fingerprint hits from a user's words ("I run it in Ollama", "4. model: Ollama GGUF blob"):
#: they name the engine only where no line a program wrote does
PROSE_HIT = "~"
#: ... and the mark on those that name the engine as the one the report is about (its title, or with its version:
#: "KoboldCpp 1.93"), counted beside the PROSE_HIT ones
NAMED_HIT = PROSE_HIT * 2


#: a refusal as a client received it: an OpenAI-style client's exception ("litellm.BadRequestError", "Error code: 400 -
#: ..."), an HTTP status 4xx, or the JSON error body a server sent back ({"error":{"code":400,"message":"the request
#: exceeds the available context size ...","type":"exceed_context_size_error"}}), which no server prints in its own log
RELAYED = re.compile(r"\bBadRequestError\b|\bOpenAIException\b|\bError code: 4\d\d\b|\bstatus(?: code)?:? 4\d\d\b|"
                     # (Python requests' HTTPError, as huggingface_hub raises it: "422 Client Error: Unprocessable
                     # Entity for url: http://tgi:8080/generate")
                     r"\b4\d\d Client Error\b|"
                     r"\bHTTP(?:/\d(?:\.\d)?)? 4\d\d\b|\b4\d\d Bad Request\b|^\s*\{?\s*\x22error\x22\s*:\s*\{|"
                     # (the body with its message as a string, inside a client's own error: the Vercel AI SDK's "Type
                     # validation failed: Value: {\x22error\x22:\x22[address=..., pid=...] request (33430 tokens) exceeds
                     # the available context size ...\x22}", relayed from Xinference's worker)
                     r"\{\s*\x22error\x22\s*:\s*\x22|"
                     r"\x22type\x22\s*:\s*\x22(?:exceed_context_size_error|invalid_request_error|BadRequestError)\x22|"
                     r"^\s*\x22code\x22\s*:\s*4\d\d\b")

@dataclass
class Failure:
    """One failure (or pressure warning) with the lines around it.

    kind: 'oom', 'not_oom', 'error' (its cause not in these words) or 'pressure'; wrapper: the
    words only report a failure elsewhere; phase/code: what the engine's own words say (None/'');
    deciding: the line those came from; progress: milestones passed before it (marker -> line);
    elided: an excerpt gap lies between the last milestone and this line."""

    line_no: int
    text: str
    kind: str
    code: str = ""
    phase: str | None = None
    engine: str = ""
    wrapper: bool = False
    candidates: tuple[str, ...] = ()  # phases the failure's own words leave open
    retried: tuple[int, str] | None = None  # the engine's line saying it retries what failed
    pasted: bool = False  # pasted above the start-up it belongs to (see logs._attach_orphans)
    deciding: tuple[int, str] | None = None
    after: list[tuple[int, str]] = field(default_factory=list)
    progress: dict[str, int] = field(default_factory=dict)
    elided: bool = False
    end_line: int = 0  # the last line of the same traceback or message
    cut: bool = False  # the log ends partway into this line's first error words ("CUDA e")
    lines_before: list[tuple[int, str]] | Callable[[], list[tuple[int, str]]] = field(default_factory=list,
                                                                                     repr=False)

    @property
    def before(self) -> list[tuple[int, str]]:
        """The lines before the failure (up to WINDOW), decoded when first read."""
        if callable(self.lines_before):
            self.lines_before = self.lines_before()
        return self.lines_before


def unset(value: object) -> bool:
    """A value an argument dump prints for a setting not set ("quantization=None", "null", "")."""
    return isinstance(value, str) and value.strip("'\"").lower() in ("none", "null", "")


def latest(numbers: dict, key: str) -> object:
    """A figure's latest value: a list figure's last entry (the last reading of it the log shows), a single one as it
    is (an empty list and an absent figure as they are: [] and None)."""
    v = numbers.get(key)
    return v[-1] if isinstance(v, list) and v else v


def positive(numbers: dict, key: str) -> list[int]:
    """A figure's whole values above zero, whether it was read once or as a list (one per device or reading); []
    where it is absent."""
    v = numbers.get(key)
    return [x for x in (v if isinstance(v, list) else [v]) if isinstance(x, int) and x > 0]


def summed(numbers: dict, key: str) -> int | None:
    """A figure in all: a list figure's whole numbers summed (one per device or buffer, llama.cpp's "CUDA0 buffer size"
    and "CUDA1 buffer size"), a single one as it is; None where the figure is absent or not a whole number."""
    v = numbers.get(key)
    if isinstance(v, list):
        return sum(x for x in v if isinstance(x, int))
    return v if isinstance(v, int) else None


#: the keys of the report's words of a problem (the prose figures): a failure, a hang, growth, slowness; what a pool full
#: under load answers (`quiet.pressure`), and what a title that asks for something does not state (`scan`)
COMPLAINTS = ("_failure_stated", "_hang_stated", "_growth_stated", "_slow_stated", "_crash_stated")


@dataclass
class RunFacts:
    """What one server start left in the log."""

    first_line: int
    last_line: int = 0
    tail: tuple[int, str] | None = None  # the log's last line, in the log's last run
    tail_cut: bool = False  # that line is cut partway (no newline, the start of a line like those before it)
    tail_lines: list[tuple[int, str]] = field(default_factory=list)  # the log's last lines in this run, `tail` last
    progress: dict[str, int] = field(default_factory=dict)  # marker -> first line number
    progress_text: dict[str, str] = field(default_factory=dict)  # marker -> that line
    told: set[str] = field(default_factory=set)  # the markers of `progress` whose line is a person's (persons_line)
    #: the milestones a report's title names (marker -> its line): what the report tells, no step the run passed
    titled: dict[str, tuple[int, str]] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    pressure: list[Failure] = field(default_factory=list)
    elisions: list[int] = field(default_factory=list)
    numbers: dict[str, object] = field(default_factory=dict)
    number_lines: dict[str, int] = field(default_factory=dict)
    #: the engines whose words each figure was read in (`Knowledge.figure_owner`): another engine's are not this run's
    figure_owners: dict[str, set[str]] = field(default_factory=dict)
    #: a single-valued figure's value as each engine's words gave it: key -> owner -> (line, value, mode)
    owned_values: dict[str, dict[str, tuple[int, object, str]]] = field(default_factory=dict)
    engine_hits: dict[str, int] = field(default_factory=dict)
    command_hits: int = 0  # of engine_hits, those in a command the user pasted ("$ python -m aphrodite...")
    # the line of a command pasted after this run's failure (the restart it begins: "$ vllm serve ... 0.9" after an
    # argparse error for "0,9"), 0 where none
    command_after_failure: int = 0
    lines: int = 0
    dropped_after: tuple[int, tuple[int, int] | None] | None = None  # (runs left out, their lines), see MAX_RUNS
    out_of_order: int = 0  # (the first run) the log's steps back in time: its lines are out of order, see Scanner
    #: (the first run) the whole log, where it is short and written newest first (its times step back and never on,
    #: as web consoles and log explorers list a log): read again from its last line up, see logs.diagnose
    newest_first: list[tuple[int, str]] = field(default_factory=list)
    sampled: int = 0  # lines tried against the engines' fingerprints
    refused: int = 0  # requests the server refused (longer than its context): not failures of the server
    heading: tuple[int, str] | None = None  # a markdown heading that names a failure in an engine's words (a fallback)
    #: the line of the report's title where its tag asks for something (`authorship.ASKING_TITLE`: an RFC, a roadmap, a
    #: feature, the docs), 0 where none: its words and its task list's items are wishes, not failures met
    asking: int = 0
    #: the line of a pull request's heading over its test output (`authorship.RESULTS_HEADING`), 0 where none: the
    #: report's words of a failure above it are the fault fixed
    results_heading: int = 0
    refused_first: tuple[int, str] | None = None
    #: the last refusal that ended a traceback (the program raised it: an offline script stops there), its line
    refused_raised: int = 0
    #: the first refusal came as a client received it (`RELAYED`): the user's own request failed
    refused_relayed: bool = False
    #: the engine's warnings it goes on from (a verdict of kind "note"), the first few: (line, text)
    notes: list[tuple[int, str]] = field(default_factory=list)
    #: process listings pasted beside the log (`processes`): process key -> (snapshot, resident bytes, line, its text)
    #: in the order read, and its command; one snapshot of many processes gives each one reading
    process_series: dict[str, list[tuple[int, int, int, str]]] = field(default_factory=dict)
    process_names: dict[str, str] = field(default_factory=dict)

    def note_process(self, key: str, snapshot: int, size: int, line_no: int, command: str, text: str) -> None:
        """One process's memory in one snapshot of a listing (capped like the other series)."""
        series = self.process_series.get(key)
        if series is None:
            if len(self.process_series) >= MAX_MAP:
                return
            series = self.process_series[key] = []
            self.process_names[key] = command
        if series and series[-1][0] == snapshot:
            return  # (a process listed twice in one snapshot: its first reading stands)
        if len(series) >= MAX_SERIES:
            del series[1::2]
        series.append((snapshot, size, line_no, text[:300]))

    def note(self, key: str, value: object, mode: str, line_no: int) -> None:
        if mode == "list" and key != "failed_alloc_bytes" and type(value) in (int, float) and (
                value >= 0 or not key.endswith("_bytes")):  # type: ignore[operator]
            series = self.numbers.get(key)
            if type(series) is list:  # (the common case, a series going on: what the general path below does)
                if len(series) >= MAX_SERIES:
                    del series[::2]
                series.append(value)
                self.number_lines[key] = line_no
                return
        if unset(value):
            return  # an argument dump's "quantization=None": the setting is not set, not a value named None
        if key.endswith("_bytes") and isinstance(value, int) and value < 0:
            # an engine's negative budget ("Available KV cache memory: -2.77 GiB"): no byte count is negative, so
            # the budget is 0 and what it lacks is its own figure
            self.note(key[:-len("_bytes")] + "_shortfall_bytes", -value, mode, line_no)
            value = 0
        held = self.numbers.get(key)
        if held is not None and (mode in ("list", "set")) != isinstance(held, list) and mode != "map":
            # one engine's words give this figure as one value, another's as a series (a generic "145.19 MiB free"
            # and SGLang's "avail mem=" readings): a series of them all
            held = self.numbers[key] = held if isinstance(held, list) else [held]
            mode = "set" if mode == "set" else "list"
        if mode == "map" and held is not None and not isinstance(held, dict):
            return  # (a map's key given as a plain value by another engine's words: the map is not started over)
        if mode == "list":
            series = self.numbers.setdefault(key, [])
            assert isinstance(series, list)
            if key == "failed_alloc_bytes" and series and abs(series[-1] - value) <= 0.001 * max(abs(series[-1]), 1):
                series[-1] = value  # the same buffer, in MiB then in exact bytes: keep the exact one
                return
            if len(series) < MAX_SERIES:
                series.append(value)
            else:  # keep the shape of a long series: every other sample, then append
                del series[::2]
                series.append(value)
        elif mode == "set":
            series = self.numbers.setdefault(key, [])
            assert isinstance(series, list)
            if value not in series and len(series) < MAX_MAP:
                series.append(value)
        elif mode == "map":
            name, v = value  # type: ignore[misc]
            table = self.numbers.setdefault(key, {})
            assert isinstance(table, dict)
            if key == "_tried" and name in table:  # every value tried of one flag: a step goes past them all
                was = table[name]
                table[name] = sorted({*(was if isinstance(was, list) else [was]), v})[:MAX_MAP]
            elif name in table or len(table) < MAX_MAP:
                table[name] = table.get(name, 0) + v if key.endswith("_bytes_by_device") and name in table else v
        elif mode == "first" and key in self.numbers:
            return
        else:
            self.numbers[key] = value
        self.number_lines[key] = line_no
