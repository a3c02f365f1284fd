"""A log in Docker's json-file format (one `{"log": ..., "stream": ..., "time": ...}` object a line, as moby's
jsonfilelog writes it, a line over 16 KiB split over several objects) is read as the lines the container printed."""

from __future__ import annotations

import json

import pytest

from vramdoctor.logs import diagnose
from vramdoctor.logs.dockerjson import is_docker_json
from vramdoctor.logs.reader import read_blocks

SGLANG = [
    "[2025-04-02 08:10:05 TP0] Load weight begin. avail mem=23.16 GB",
    "[2025-04-02 08:10:30 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.float16, avail mem=4.87 GB, "
    "mem usage=18.29 GB.",
    "[2025-04-02 08:10:31 TP0] KV Cache is allocated. #tokens: 13824, K size: 0.84 GB, V size: 0.84 GB",
    "[2025-04-02 08:10:32 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=2.90 GB",
    "[2025-04-02 08:10:34 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 310, in capture',
    "    out = self.capture_one_batch_size(bs, forward)",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 0 has a total capacity of 23.55 GiB "
    "of which 897.00 MiB is free.",
]
LLAMA = [
    "llama_kv_cache_init:      CUDA0 KV buffer size =  8192.00 MiB",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4096.00 MiB on device 0: cudaMalloc failed: out of memory",
    "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 4294967296",
    "llama_new_context_with_model: failed to allocate compute buffers",
]


def _docker(lines: list[str], spaced: bool = False, split_at: int | None = None) -> str:
    out = []
    for i, line in enumerate(lines):
        pieces = [line]
        if split_at and len(line) > split_at:
            pieces = [line[j:j + split_at] for j in range(0, len(line), split_at)]
        for k, piece in enumerate(pieces):
            obj = {"log": piece + ("\n" if k == len(pieces) - 1 else ""), "stream": "stderr",
                   "time": f"2025-04-02T08:10:{i:02d}.000000000Z"}
            out.append(json.dumps(obj) if spaced else json.dumps(obj, separators=(",", ":")))
    return "\n".join(out) + "\n"


def _diag(tmp_path, text: str, name: str = "c-json.log"):
    p = tmp_path / name
    p.write_text(text)
    blocks = read_blocks(str(p))
    rep = diagnose(blocks)
    return rep, blocks.warnings


@pytest.mark.parametrize("lines", [SGLANG, LLAMA])
@pytest.mark.parametrize("spaced", [False, True])
def test_a_docker_json_log_reads_as_the_lines_it_holds(tmp_path, lines, spaced):
    plain, _ = _diag(tmp_path, "\n".join(lines) + "\n", "plain.log")
    wrapped, warnings = _diag(tmp_path, _docker(lines, spaced))
    assert wrapped.diagnosis == plain.diagnosis, (wrapped.diagnosis, plain.diagnosis)
    assert plain.diagnosis["kind"] in ("WARMUP", "KV_CAPACITY")
    assert any("json-file" in w for w in warnings), warnings


def test_a_line_docker_split_is_joined_and_line_numbers_are_kept(tmp_path):
    rep, _ = _diag(tmp_path, _docker(SGLANG, split_at=40))
    plain, _ = _diag(tmp_path, "\n".join(SGLANG) + "\n", "plain.log")
    assert rep.diagnosis["kind"] == plain.diagnosis["kind"] == "WARMUP"
    split_lines = sum(-(-len(t) // 40) for t in SGLANG)
    assert rep.lines == split_lines, (rep.lines, split_lines)


@pytest.mark.parametrize("head", [
    b'{"level":"info","msg":"starting"}\n{"level":"error","msg":"CUDA out of memory"}\n',  # structured, not Docker's
    b'INFO 05-01 10:00:00 [core.py:69] starting\n{"log":"x\\n","stream":"stdout"}\nINFO a\nINFO b\nINFO c\n',
])
def test_other_json_or_a_log_quoting_one_object_is_not_docker_json(head):
    assert not is_docker_json(head)
