"""llama.cpp's rules by build (`--engine-version b7812`): the cache of multi-head latent attention. Builds b5137 to
b7831 keep a V cache of kv_lora_rank per token and MLA layer beside K (kv_lora_rank + rope), from b7832 (PR #19067)
there is no V cache, and a build before b5137 cannot read a GGUF converted with the MLA keys. Each figure is
hand-computed for a DeepSeek-style GGUF the test writes (2 layers, kv_lora_rank 512, rope 64, f16 cache), as
llama.cpp prints it in `llama_kv_cache: size = ... K (f16): ..., V (f16): ...`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tinygguf import write_deepseek2
from vramdoctor.engines import Settings, get_engine
from vramdoctor.engines.words import build_number
from vramdoctor.errors import UsageError
from vramdoctor.estimate import estimate
from vramdoctor.sources.gguf_file import read_gguf

GIB = 2**30
CELLS = 4096  # -c 4096 -np 1: 4096 cells, one stream
K_MLA = 2 * CELLS * (512 + 64) * 2  # layers x cells x (kv_lora_rank + rope) x f16 = 9,437,184 (9.00 MiB)
V_MLA = 2 * CELLS * 512 * 2  # layers x cells x kv_lora_rank x f16 = 8,388,608 (8.00 MiB)
K_OLD = 2 * CELLS * 4 * (32 + 64) * 2  # every head's K: 4 heads x (nope 32 + rope 64) = 6,291,456
V_OLD = 2 * CELLS * 4 * 32 * 2  # every head's V: 4 heads x 32 = 2,097,152


@pytest.fixture(scope="module")
def ggufs(tmp_path_factory):
    d = tmp_path_factory.mktemp("ds")
    return read_gguf(write_deepseek2(d / "new.gguf")), read_gguf(write_deepseek2(d / "old.gguf", mla_keys=False))


def kv(model, version):
    s = Settings(max_model_len=CELLS, engine_version=version)
    rules = get_engine("llamacpp")
    s = rules.resolve(model, s, 24 * GIB)
    out = rules.layer_bytes(model, s, CELLS, 1)
    return out["k"], out["v"]


@pytest.mark.parametrize("text, number", [
    ("b7812", 7812), ("7812", 7812), ("build: 7812 (a5eaa1d6a)", 7812), ("build = 7812", 7812), ("B5137", 5137),
    ("0.6.4", None), ("b", None), ("7812x", None), ("latest", None),
])
def test_build_numbers_as_llama_cpp_prints_them(text, number):
    assert build_number(text) == number


@pytest.mark.parametrize("version, expected", [
    ("b8000", (K_MLA, 0)),           # after PR #19067: K only
    ("b7832", (K_MLA, 0)),           # its first build
    ("b7831", (K_MLA, V_MLA)),       # the build before: V of kv_lora_rank too
    ("b7000", (K_MLA, V_MLA)),
    ("b5137", (K_MLA, V_MLA)),       # PR #12801's build
    (None, (K_MLA, 0)),              # the newest checked
])
def test_mla_cache_by_build(ggufs, version, expected):
    assert kv(ggufs[0], version) == expected


@pytest.mark.parametrize("version", ["b5000", "b5136"])
def test_a_build_before_the_mla_cache_cannot_read_a_gguf_converted_with_it(ggufs, version):
    with pytest.raises(UsageError, match="b5137"):
        kv(ggufs[0], version)


@pytest.mark.parametrize("version", ["b5000", "b7000", "b8000"])
def test_an_old_conversion_caches_every_head_in_every_build(ggufs, version):
    assert kv(ggufs[1], version) == (K_OLD, V_OLD)


def test_the_estimate_allocates_the_builds_cache_and_says_whose_rules(ggufs):
    s = Settings(max_model_len=CELLS)
    old_build = estimate(ggufs[0], engine="llamacpp", settings=s.with_(engine_version="b7000"), gpu_bytes=24 * GIB)
    new_build = estimate(ggufs[0], engine="llamacpp", settings=s, gpu_bytes=24 * GIB)
    assert old_build.kv_pool_bytes == K_MLA + V_MLA and new_build.kv_pool_bytes == K_MLA
    assert old_build.engine_kv_bytes_per_token == 2 * (1152 + 1024)
    assert old_build.engine_rules.startswith("llama.cpp b7000 rules, MLA layers cache K and a kv_lora_rank-wide V")
    assert new_build.engine_rules.startswith("llama.cpp b10573 rules (the newest modelled; --engine-version")
    newer = estimate(ggufs[0], engine="llamacpp", settings=s.with_(engine_version="b20000"), gpu_bytes=24 * GIB)
    assert "(the newest modelled: b20000 is newer)" in newer.engine_rules and newer.kv_pool_bytes == K_MLA


@pytest.mark.parametrize("version", ["b1", "b5000", "b5136", "b5137", "b7831", "b7832", "b10573"])
def test_the_rules_line_names_the_range_that_holds_the_build(version):
    """Review 3, defect 7: b5000 was said to follow the b5137-b7831 rule. The range the line names (from-to, 'from N'
    or 'before N') holds the build asked for, for a model without MLA layers too."""
    import re

    from conftest import load_config
    from vramdoctor.sources.hf_config import spec_from_config

    llama = spec_from_config(load_config("meta-llama__Llama-3.1-8B-Instruct.json"), name="llama")
    line = estimate(llama, engine="llamacpp", settings=Settings(engine_version=version), gpu_bytes=24 * GIB).engine_rules
    b = build_number(version)
    m = re.search(r"\((?:b(\d+)-b(\d+)|from b(\d+)|before b(\d+))[,:)]", line)
    assert m, line
    lo, hi, since, before = (int(x) if x else None for x in m.groups())
    assert (lo is not None and lo <= b <= hi) or (since is not None and b >= since) or (before is not None
                                                                                       and b < before), line


def test_cli_takes_the_build_as_the_log_prints_it(tmp_path):
    path = write_deepseek2(tmp_path / "ds.gguf")
    run = [sys.executable, "-m", "vramdoctor", "estimate", str(path), "--engine", "llamacpp", "--max-model-len", "4096"]
    r = subprocess.run(run + ["--engine-version", "build: 7000 (0cf6725e9)", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["kv_pool_bytes"] == K_MLA + V_MLA
    bad = subprocess.run(run + ["--engine-version", "0.6.4"], capture_output=True, text=True)
    assert bad.returncode == 2 and "as a llama.cpp build" in bad.stderr
    old = subprocess.run(run + ["--engine-version", "5000"], capture_output=True, text=True)
    assert old.returncode == 2 and "predates its MLA cache" in old.stderr
