"""What users type: token counts with suffixes as vLLM reads them, a GB size that is probably meant as GiB,
and the nearest names for a mistyped model id or GPU."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from vramdoctor.errors import UsageError
from vramdoctor.gpus import find_gpu
from vramdoctor.sources.catalog import nearest
from vramdoctor.units import gb_meant_as_gib, parse_tokens


@pytest.mark.parametrize("text,value", [("32768", 32768), ("32K", 32768), ("128K", 131072), ("32k", 32000),
                                         ("25.6k", 25600), ("1M", 2**20), ("1m", 10**6), (" 4096 ", 4096)])
def test_token_counts_as_vllm_reads_them(text, value):
    assert parse_tokens(text, option="--max-model-len") == value


@pytest.mark.parametrize("text", ["3.5K", "32 tokens", "", "1e5", "-4096", "99999999999999K"])
def test_unreadable_token_counts(text):
    with pytest.raises(UsageError, match="--max-model-len"):
        parse_tokens(text, option="--max-model-len")


@pytest.mark.parametrize("text,warns", [("24GB", True), ("80gb", True), ("24G", True), ("22GB", False),
                                         ("24GiB", False), ("24000MB", False), ("24.5GB", False)])
def test_gb_probably_meant_as_gib(text, warns):
    assert (gb_meant_as_gib(text) is not None) == warns


def test_nearest_gpu_names():
    with pytest.raises(UsageError, match="Did you mean RTX-4090"):
        find_gpu("RTX-4900")
    with pytest.raises(UsageError, match="Did you mean H100-80GB"):
        find_gpu("H100-80G8")


def test_nearest_model_ids():
    assert nearest("Qwen/Qwen2.5-7b-instruc")[0] == "Qwen/Qwen2.5-7B-Instruct"
    assert nearest("qwen2.5-7b-instruct")[0] == "Qwen/Qwen2.5-7B-Instruct"
    assert nearest("zzzz/nothing-like-it") == []


@pytest.mark.parametrize("asked, first", [("Qwen/Qwen2.5-14B-Instruct", "Qwen/Qwen2.5-14B"),
                                          ("Qwen/Qwen2.5-7B-Instruc", "Qwen/Qwen2.5-7B-Instruct")])
def test_a_mistyped_id_finds_the_catalogs_model_of_its_size_first(asked, first):
    near = nearest(asked)
    assert near[0] == first, near


def run(*args):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "vramdoctor", "estimate", *args], capture_output=True, text=True,
                          env=env)


def test_cli_takes_suffixes_and_warns_on_gb():
    import json

    r = run("Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "32K", "--grid", "4Kx1,32kx8", "--gpu-memory", "24GB",
            "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["settings"]["max_model_len"] == 32768
    assert [(c["max_model_len"], c["concurrency"]) for c in j["grid"]] == [(4096, 1), (32000, 8)]
    assert "write 24GiB" in r.stderr


def test_cli_suggests_a_catalog_id_offline():
    r = run("Qwen/Qwen2.5-7b-instruc")
    assert r.returncode == 2 and "Did you mean Qwen/Qwen2.5-7B-Instruct" in r.stderr and "Traceback" not in r.stderr
