"""A generated campaign of malformed and adversarial inputs (issue 8), kept in the suite: configs, safetensors
shards, index files, GGUF files, logs and option values, each mutated by a seeded generator. Every input must
give exit 0 or exit 2 (never a traceback, an internal error or a hang: every read is capped), and an answer that
is given has no negative byte count.

The seed is fixed, so a failure names an input that can be rebuilt; VRAMDOCTOR_FUZZ_SEED runs another campaign.
"""

from __future__ import annotations

import json
import os
import random
import struct
from pathlib import Path

import pytest

from clirun import CliRunner
from test_sources import TINY_CFG, folder
from tinygguf import write_model
from vramdoctor.cli import run as app

SEED = int(os.environ.get("VRAMDOCTOR_FUZZ_SEED", "8"))
DATA = Path(__file__).parent / "data"
CONFIGS = sorted((DATA / "configs").glob("*.config.json"))
LOGS = sorted((DATA / "logs").glob("*.log")) + sorted((DATA / "logs_own").glob("*.log"))
runner = CliRunner()

#: values of the wrong type, size or kind for any field
BAD_VALUES = ["abc", -5, 0, 10**20, 1e300, True, [1, "a"], {"a": 1}, None, [], "[/x]", 2.5, -1e-3, "\x1b[31m",
              [[[]]], "9" * 40, {"quant_method": 7}]
#: option values a user could mistype
BAD_OPTIONS = ["", "-1", "0", "1e400", "nan", "inf", "99999999999999999999999", "[/x]", "[bold]24GiB", "\x1b]8;;x",
               "24", "24GB", "abc", "4096x0", "32Kx-1", ",", "x", "0.0", "1,5", "🙂"]
OPTIONS = ["--gpu", "--gpu-memory", "--max-model-len", "--concurrency", "--kv-cache-dtype", "--gpu-memory-utilization",
           "-tp", "-pp", "--block-size", "--max-num-batched-tokens", "--weights", "--quantization",
           "--engine-version", "--n-ubatch", "-ngl", "--grid", "--engine"]
ENGINES = ["vllm", "sglang", "llamacpp", "generic"]


def negatives(node, path="") -> list[str]:
    """Every `*_bytes` figure below zero in a JSON answer."""
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k.endswith("_bytes") and isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
                out.append(f"{path}.{k}={v}")
            out += negatives(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += negatives(v, f"{path}[{i}]")
    return out


def check(r, what: str) -> None:
    assert r.exit_code in (0, 2), f"{what}: exit {r.exit_code}\n{r.output[-800:]}\n{r.exception!r}"
    # (stderr only: a log's own lines, quoted in the report, may hold a Python traceback)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, f"{what}:\n{r.stderr[-800:]}"
    if r.exit_code == 0 and r.stdout.lstrip().startswith("{"):
        bad = negatives(json.loads(r.stdout))
        assert not bad, f"{what}: negative byte counts {bad}"


def mutated_configs(rng: random.Random, n: int):
    for _ in range(n):
        path = rng.choice(CONFIGS)
        cfg = json.loads(path.read_text())
        target = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) and rng.random() < 0.3 else cfg
        for _ in range(rng.randint(1, 3)):
            target[rng.choice(sorted(target))] = rng.choice(BAD_VALUES)
        yield path.name, cfg


def test_configs_with_bad_fields(tmp_path):
    rng = random.Random(SEED)
    for i, (name, cfg) in enumerate(mutated_configs(rng, 160)):
        p = tmp_path / f"c{i}.json"
        p.write_text(json.dumps(cfg))
        r = runner.invoke(app, ["estimate", str(p), "--engine", rng.choice(ENGINES), "--json"])
        check(r, f"{name} mutated: {json.dumps(cfg)[:400]}")


def test_config_bytes_cut_and_garbled(tmp_path):
    rng = random.Random(SEED + 1)
    for i in range(60):
        raw = bytearray(rng.choice(CONFIGS).read_bytes())
        op = rng.choice(["cut", "flip", "insert"])
        if op == "cut":
            raw = raw[:rng.randrange(len(raw))]
        elif op == "flip":
            for _ in range(rng.randint(1, 8)):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
        else:
            at = rng.randrange(len(raw))
            raw[at:at] = rng.choice([b"[" * 5000, b"9" * 5000, b"\xff\xfe", b"NaN", b"1e999", b"\x00" * 10])
        p = tmp_path / f"c{i}.json"
        p.write_bytes(bytes(raw))
        check(runner.invoke(app, ["estimate", str(p), "--json"]), f"{op} config #{i}")


def test_safetensors_shards_and_indexes(tmp_path):
    rng = random.Random(SEED + 2)
    for i in range(60):
        (tmp_path / str(i)).mkdir()
        d = folder(tmp_path / str(i), shards=2)
        shard = sorted(d.glob("*.safetensors"))[rng.randrange(2)]
        raw = bytearray(shard.read_bytes())
        op = rng.choice(["cut", "length", "header", "index"])
        if op == "cut":
            shard.write_bytes(bytes(raw[:rng.randrange(len(raw))]))
        elif op == "length":
            shard.write_bytes(struct.pack("<Q", rng.choice([0, 1, 2**40, 2**63, len(raw)])) + bytes(raw[8:]))
        elif op == "header":
            n = struct.unpack("<Q", raw[:8])[0]
            for _ in range(rng.randint(1, 6)):
                raw[8 + rng.randrange(n)] = rng.randrange(32, 127)
            shard.write_bytes(bytes(raw))
        else:
            index = {"weight_map": rng.choice([{"w0": shard.name}, [shard.name], {"w0": 5}, {"w0": "../x"}, None]),
                     "metadata": rng.choice([{"total_size": rng.choice(BAD_VALUES)}, [1], None, "x"])}
            (d / "model.safetensors.index.json").write_text(json.dumps(index))
        check(runner.invoke(app, ["estimate", str(d), "--json"]), f"{op} shard #{i}")


def test_gguf_files_cut_and_garbled(tmp_path):
    rng = random.Random(SEED + 3)
    base = bytearray(write_model(tmp_path / "base.gguf", extra_vocab=20).read_bytes())
    for i in range(80):
        raw = bytearray(base)
        op = rng.choice(["cut", "flip", "count"])
        if op == "cut":
            raw = raw[:rng.randrange(len(raw))]
        elif op == "flip":
            for _ in range(rng.randint(1, 12)):
                raw[rng.randrange(min(len(raw), 8192))] = rng.randrange(256)
        else:  # a count or length field (8 bytes somewhere in the header) made absurd
            at = rng.randrange(8, min(len(raw), 4096) - 8)
            raw[at:at + 8] = struct.pack("<Q", rng.choice([2**62, 2**32 - 1, 2**40, 0xFFFFFFFFFFFFFFFF]))
        p = tmp_path / f"g{i}.gguf"
        p.write_bytes(bytes(raw))
        engine = rng.choice(["llamacpp", "vllm"])
        check(runner.invoke(app, ["estimate", str(p), "--engine", engine, "--json"]), f"{op} GGUF #{i}")


def test_logs_shuffled_cut_and_garbled(tmp_path):
    rng = random.Random(SEED + 4)
    for i in range(60):
        lines = rng.choice(LOGS).read_bytes().splitlines(keepends=True) or [b"\n"]
        op = rng.choice(["cut", "shuffle", "garble", "join", "huge"])
        if op == "cut":
            data = b"".join(lines)[:rng.randrange(1, sum(map(len, lines)) + 1)]
        elif op == "shuffle":
            rng.shuffle(lines)
            data = b"".join(lines)
        elif op == "garble":
            data = bytearray(b"".join(lines))
            for _ in range(rng.randint(1, 40)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            data = bytes(data)
        elif op == "join":
            data = b" ".join(x.rstrip(b"\n") for x in lines)
        else:
            data = b"".join(lines) + b"CUDA out of memory " * 20000 + b"\n" + b"[/x][bold]\x1b]8;;x\n"
        p = tmp_path / f"l{i}.log"
        p.write_bytes(data)
        args = ["logs", str(p)] + (["--json"] if rng.random() < 0.5 else [])
        check(runner.invoke(app, args), f"{op} log #{i}")


@pytest.mark.parametrize("engine", ENGINES)
def test_option_values(engine):
    rng = random.Random(SEED + 5 + ENGINES.index(engine))
    model = str(DATA / "configs" / "Qwen__Qwen2.5-0.5B.config.json")
    for _ in range(40):
        args = ["estimate", model, "--engine", engine]
        for _ in range(rng.randint(1, 3)):
            args += [rng.choice(OPTIONS), rng.choice(BAD_OPTIONS)]
        check(runner.invoke(app, args + ["--json"]), " ".join(args))


def test_the_tiny_config_is_still_fine(tmp_path):
    """The generator's base inputs are valid: a campaign whose every input is refused would test nothing."""
    p = tmp_path / "config.json"
    p.write_text(json.dumps(TINY_CFG))
    assert runner.invoke(app, ["estimate", str(p), "--json"]).exit_code == 0
    assert runner.invoke(app, ["estimate", str(folder(tmp_path))]).exit_code == 0
