"""The pool table: every shared ground-truth record that prints a KV pool, predicted from the
model's config and the record's settings only (no figure the engine printed goes in), and the
error against what the engine printed. Used by tests/test_pool_table.py and bench/pool_table.

Each case in data/ground_truth/pool_table.json names the config, the engine and its version, the
GPU (catalog name, or its memory in GiB), the settings, and one printed figure: capacity in tokens
("GPU KV cache size", "#tokens", blocks x block_size), the pool in GiB ("Available KV cache
memory", negative where the engine printed so), or llama.cpp's KV buffers in MiB. `quantization`
is vramdoctor's `--quantization` where the record served a quantized variant of the config's model. `not_modelled` gives the reason a record is outside
the model; `no_prediction` marks one that cannot be predicted at all.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from vramdoctor.engines import Settings
from vramdoctor.estimate import estimate
from vramdoctor.gpus import find_gpu
from vramdoctor.quantize import with_quantization
from vramdoctor.sources.hf_config import spec_from_config

GIB, MIB = 2**30, 2**20
DATA = Path(__file__).parent / "data"
CASES = DATA / "ground_truth" / "pool_table.json"


def load_config(name: str) -> dict:
    """A config from tests/data/configs or tests/data/ground_truth/configs (no pytest needed: bench runs this)."""
    for base in (DATA / "configs", DATA / "ground_truth" / "configs"):
        if (base / name).exists():
            return json.loads((base / name).read_text())
    raise FileNotFoundError(name)


@dataclass(frozen=True)
class Row:
    rid: str
    engine: str
    rules: str
    unit: str
    printed: float | None
    predicted: float | None
    not_modelled: str | None

    @property
    def error(self) -> float | None:
        if self.printed is None or self.predicted is None:
            return None
        return (self.predicted - self.printed) / abs(self.printed)


def cases() -> list[dict]:
    return json.loads(CASES.read_text())


def row(c: dict) -> Row:
    if c.get("no_prediction"):
        return Row(c["id"], "-", "-", "-", None, None, c["not_modelled"])
    model = with_quantization(spec_from_config(load_config(c["config"]), name=c["config"]), c.get("quantization"))
    if "gpu" in c:
        g = find_gpu(c["gpu"])
        gpu_bytes, name = g.memory_bytes, g.name
    else:
        gpu_bytes, name = int(c["gpu_memory_gib"] * GIB), ""
    s = Settings(engine_version=c.get("engine_version"), device_name=name).with_(**c["settings"])
    e = estimate(model, engine=c["engine"], settings=s, gpu_bytes=gpu_bytes)
    if "printed_tokens" in c:
        unit, printed, got = "tokens", c["printed_tokens"], e.kv_pool_tokens
    elif "printed_pool_gib" in c:
        unit, printed, got = "pool GiB", c["printed_pool_gib"], (e.kv_pool_bytes - e.kv_pool_shortfall_bytes) / GIB
    else:
        unit, printed, got = "KV MiB", c["printed_kv_mib"], e.kv_pool_bytes / MIB
    return Row(c["id"], c["engine"], e.engine_rules.split(",")[0], unit, printed, got, c.get("not_modelled"))


def table() -> list[Row]:
    return [row(c) for c in cases()]


def median_abs_error(rows: list[Row], modelled_only: bool) -> float:
    errs = [abs(r.error) for r in rows if r.error is not None and (not modelled_only or not r.not_modelled)]
    return statistics.median(errs)


def markdown(rows: list[Row]) -> str:
    lines = ["| record | engine | printed | predicted | error | modelled |", "|---|---|---|---|---|---|"]
    for r in rows:
        if r.printed is None:
            lines.append(f"| {r.rid} | - | - | - | - | no: {r.not_modelled} |")
            continue
        fmt = (lambda x: f"{x:,.0f}") if r.unit != "pool GiB" else (lambda x: f"{x:,.2f}")
        lines.append(f"| {r.rid} | {r.engine} | {fmt(r.printed)} {r.unit} | {fmt(r.predicted)} | {r.error:+.1%} | "
                     + ("yes" if not r.not_modelled else f"no: {r.not_modelled}") + " |")
    lines.append("")
    lines.append(f"Median |error|: {median_abs_error(rows, True):.1%} over the modelled records, "
                 f"{median_abs_error(rows, False):.1%} over every record with a prediction.")
    return "\n".join(lines)
