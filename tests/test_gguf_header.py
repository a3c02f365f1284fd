"""gguf_header, our GGUF parser: against gguf-py's GGUFReader (the reference) on every GGUF the tests write
and on files holding every value type, big string arrays and nested arrays; then on malformed input
(every prefix of a file, absurd counts and lengths, unknown types, a FIFO or a folder given as the file),
which must give a ModelSourceError naming the file, the key or tensor and the offset, never a hang."""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from gguf import GGMLQuantizationType, GGUFEndian, GGUFReader, GGUFValueType, GGUFWriter, LlamaFileType
from clirun import CliRunner

from test_gguf_formats import _write as write_planned
from tinygguf import write_model
from vramdoctor.cli import run as app
from vramdoctor.errors import GGUFFormatError, ModelSourceError
from vramdoctor.gguf_formats import GGML_TYPES, decoder_tensors, tensor_types_for_ftype
from vramdoctor.sources import load_model
from vramdoctor.sources.gguf_file import _file_type_name, read_header
from vramdoctor.sources.gguf_header import MAX_ARRAY_DEPTH, MAX_ARRAY_ITEMS, SkippedArray, parse_header

V = GGUFValueType
CAP = MAX_ARRAY_ITEMS


# --- files written with gguf's GGUFWriter ---------------------------------------------------------

def _finish(w: GGUFWriter) -> None:
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


NUMERIC = {V.UINT8: [0, 255], V.INT8: [-128, 127], V.UINT16: [0, 65535], V.INT16: [-32768, 32767],
           V.UINT32: [0, 2**32 - 1], V.INT32: [-2**31, 2**31 - 1], V.FLOAT32: [1.5, -0.25, 3e38],
           V.UINT64: [0, 2**64 - 1], V.INT64: [-2**63, 2**63 - 1], V.FLOAT64: [-0.1, 1e300], V.BOOL: [True, False]}


def write_every_value_type(path: Path, *, big_endian: bool = False, alignment: int | None = None,
                           long_arrays: bool = True) -> Path:
    """Every GGUF value type as a scalar and an array, strings (empty, non-ASCII), arrays at and above the read
    cap, nested arrays, and a tensor of every ggml type gguf-py knows (but Q8_1, whose size gguf-py has wrong)."""
    w = GGUFWriter(str(path), "llama", endianess=GGUFEndian.BIG if big_endian else GGUFEndian.LITTLE)
    if alignment:
        w.add_custom_alignment(alignment)
    for vt, values in NUMERIC.items():
        w.add_key_value(f"s.{vt.name.lower()}", values[-1], vt)
        w.add_key_value(f"a.{vt.name.lower()}", values, V.ARRAY, sub_type=vt)
    w.add_string("s.string", "h\u00e9llo \u2603")
    w.add_key_value("s.empty", "", V.STRING)  # add_string drops empty strings
    w.add_array("a.string", ["a", "", "\u00fcn\u00ef", "x" * 1000])
    w.add_array("n.ints", [[1, 2, 3], [4], [5, 6]])
    w.add_array("n.strings", [["a", "b"], ["c"]])
    w.add_array("n.deep", [[[1], [2, 3]], [[4.5]]])
    if long_arrays:
        w.add_key_value("a.cap", list(range(CAP)), V.ARRAY, sub_type=V.INT32)  # read: N
        w.add_key_value("a.cap_plus_one", [float(i) for i in range(CAP + 1)], V.ARRAY, sub_type=V.FLOAT32)
        w.add_array("n.big", [[i] * 100 for i in range(200)])  # 200 x 101 > CAP: stepped over
        w.add_array("a.strings", [f"tok{i}" * (i % 5) for i in range(5000)])
    w.add_uint32("llama.block_count", 1)
    for q in GGMLQuantizationType:
        if q.name == "Q8_1":
            continue
        t = GGML_TYPES[q.name]
        w.add_tensor(f"t.{q.name.lower()}", np.full((2, 2 * t.block_bytes), 7, np.uint8), raw_dtype=q)
    w.add_tensor("t.3d", np.zeros((2, 3, 4), np.float32))
    w.add_tensor("t.4d", np.zeros((1, 2, 3, 4), np.float16))
    _finish(w)
    return path


def write_tokenizer(path: Path, n_tokens: int, n_merges: int) -> Path:
    """A BPE tokenizer (tokens, scores, token types, merges) beside a one-tensor model."""
    w = GGUFWriter(str(path), "llama")
    w.add_block_count(1)
    w.add_head_count(1)
    w.add_tokenizer_model("gpt2")
    w.add_token_list([f"\u0120tok{i}" for i in range(n_tokens)])
    w.add_token_scores([float(-i) for i in range(n_tokens)])
    w.add_token_types([1] * n_tokens)
    w.add_token_merges([f"\u0120t ok{i}" for i in range(n_merges)])
    w.add_tensor("token_embd.weight", np.zeros((n_tokens, 8), np.float16))
    _finish(w)
    return path


def write_absurd_block_count(path: Path) -> Path:  # as test_bad_input.test_gguf_with_absurd_block_count
    w = GGUFWriter(str(path), "llama")
    w.add_block_count(10**9)
    w.add_head_count(4)
    w.add_tensor("x", np.zeros(4, dtype=np.float32))
    _finish(w)
    return path


def _planned(path: Path, ftype: str) -> Path:  # as test_gguf_formats.test_tiny_gguf_round_trip
    inter = 384 if ftype == "Q1_0" else 288
    t = decoder_tensors(n_layers=2, hidden=256, n_heads=2, n_kv_heads=1, intermediate=inter, vocab=384)
    return write_planned(path, tensor_types_for_ftype(t, ftype))


WRITERS = {
    "tiny-llama": lambda p: write_model(p),
    "tiny-llama-f32": lambda p: write_model(p, dtype=np.float32),
    "tiny-gemma2": lambda p: write_model(p, arch="gemma2", n_layer=4, sliding_window=64),
    "offload": lambda p: write_model(p, n_layer=8, n_embd=256, n_head=4, n_head_kv=2, n_ff=512, extra_vocab=2000),
    "split-part": lambda p: write_model(p, extra_kv={"split.count": 2, "split.no": 1}),
    "absurd-block-count": write_absurd_block_count,
    **{f"planned-{f}": (lambda f: lambda p: _planned(p, f))(f)
       for f in ["Q4_K_M", "Q8_0", "IQ4_XS", "Q3_K_L", "IQ2_M", "TQ1_0", "Q1_0", "MXFP4_MOE"]},
    "every-value-type": write_every_value_type,
    "every-value-type-big-endian": lambda p: write_every_value_type(p, big_endian=True),
    "alignment-64": lambda p: write_every_value_type(p, alignment=64, long_arrays=False),
    "tokenizer": lambda p: write_tokenizer(p, 20000, 20000),
}

_PSEUDO = {"GGUF.version", "GGUF.tensor_count", "GGUF.kv_count"}


def _flat(value):
    return [x for v in value for x in _flat(v)] if isinstance(value, list) else [value]


def _typed(values):
    return [(type(v), v) for v in values]


def assert_same_as_gguf(path: Path) -> None:
    ours, ref = read_header(path), GGUFReader(str(path))
    assert ours.version == ref.fields["GGUF.version"].contents()
    assert list(ours.kv) == [k for k in ref.fields if k not in _PSEUDO]
    for key, value in ours.kv.items():
        f = ref.fields[key]
        if isinstance(value, SkippedArray):
            assert f.types[0] == V.ARRAY, key
            assert value.offset == f.offset + sum(int(p.nbytes) for p in f.parts[:3])
            assert (value.item_type, value.count) == (V(int(f.parts[3][0])).name.lower(), int(f.parts[4][0]))
            assert value.nbytes == sum(int(p.nbytes) for p in f.parts[5:]), key
            assert value.item_type in ("string", "array") or value.count > CAP
        elif isinstance(value, list):
            assert _typed(_flat(value)) == _typed(f.contents()), key
            assert len(value) <= CAP
        else:
            assert _typed([value]) == _typed([f.contents()]), key
    assert (ours.alignment, ours.data_offset, ours.file_bytes) == (ref.alignment, ref.data_offset, len(ref.data))
    assert len(ours.tensors) == len(ref.tensors)
    for t, r in zip(ours.tensors, ref.tensors):
        assert (t.name, t.shape, t.ggml_type.type_id) == (r.name, tuple(int(x) for x in r.shape), r.tensor_type.value)
        assert (ours.data_offset + t.offset, t.nbytes) == (r.data_offset, r.n_bytes), t.name


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_same_as_gguf_reader(tmp_path, kind):
    path = WRITERS[kind](tmp_path / f"{kind}.gguf")
    assert_same_as_gguf(path)


def test_every_value_type_reads_as_written(tmp_path):
    kv = read_header(write_every_value_type(tmp_path / "v.gguf")).kv
    for vt, values in NUMERIC.items():
        name = vt.name.lower()
        if vt == V.FLOAT32:
            values = [float(np.float32(v)) for v in values]
        assert (kv[f"s.{name}"], kv[f"a.{name}"]) == (values[-1], values)
    assert (kv["s.string"], kv["s.empty"]) == ("h\u00e9llo \u2603", "")
    assert kv["n.ints"] == [[1, 2, 3], [4], [5, 6]] and kv["n.deep"] == [[[1], [2, 3]], [[4.5]]]
    assert kv["n.strings"] == SkippedArray(item_type="array", count=2, offset=kv["n.strings"].offset,
                                           nbytes=2 * 12 + 3 * 8 + 3)
    assert kv["a.cap"] == list(range(CAP))                       # N items: read
    assert kv["a.cap_plus_one"].count == CAP + 1                 # N + 1: stepped over
    assert kv["n.big"].item_type == "array" and kv["a.strings"].count == 5000


def test_big_endian_reads_like_little_endian(tmp_path):
    le = read_header(write_every_value_type(tmp_path / "le.gguf"))
    be = read_header(write_every_value_type(tmp_path / "be.gguf", big_endian=True))
    assert be.big_endian and not le.big_endian
    assert [k for k, v in le.kv.items() if not isinstance(v, SkippedArray) and be.kv[k] != v] == []
    assert [(t.name, t.shape, t.ggml_type, t.offset, t.nbytes) for t in le.tensors] == \
           [(t.name, t.shape, t.ggml_type, t.offset, t.nbytes) for t in be.tensors]


def _gs(text: str | bytes) -> bytes:
    b = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(b)) + b


def test_two_million_strings_are_stepped_over(record_property):
    """A 2,000,000-token vocabulary and 2,000,000 merges, as bytes: stepped over in a tight loop (about
    0.2 s here; bench/gguf_read times whole files). No timing assertion: the time is recorded."""
    n = 2_000_000
    tokens = (_gs("\u0120the") + _gs("a") + _gs("<0x0A>") + _gs("")) * (n // 4)
    merges = (_gs("\u0120 t") + _gs("h e")) * (n // 2)
    kvs = [_gs("tokenizer.ggml.tokens") + struct.pack("<IIQ", V.ARRAY, V.STRING, n) + tokens,
           _gs("tokenizer.ggml.scores") + struct.pack("<IIQ", V.ARRAY, V.FLOAT32, n) + bytes(4 * n),
           _gs("tokenizer.ggml.merges") + struct.pack("<IIQ", V.ARRAY, V.STRING, n) + merges,
           _gs("after") + struct.pack("<IQ", V.STRING, 2) + b"ok"]
    data = b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs)
    released: list[tuple[int, int]] = []
    t0 = time.perf_counter()
    kv = parse_header(memoryview(data), path="big.gguf", release=lambda a, b: released.append((a, b))).kv
    record_property("parse_s", time.perf_counter() - t0)
    assert kv["tokenizer.ggml.tokens"].count == n and kv["tokenizer.ggml.tokens"].nbytes == len(tokens)
    assert kv["tokenizer.ggml.merges"].nbytes == len(merges) and kv["tokenizer.ggml.scores"].count == n
    assert kv["after"] == "ok"
    # the reader may drop from memory exactly the strings stepped over, in stretches of 65,536
    assert len(released) == 2 * -(-n // 65536) and sum(b - a for a, b in released) == len(tokens) + len(merges)
    assert released[0][0] == kv["tokenizer.ggml.tokens"].offset + 12


@pytest.mark.parametrize("member", list(LlamaFileType), ids=lambda m: m.name)
def test_file_type_names_as_gguf_names_them(member):
    assert _file_type_name(member.value) == member.name.removeprefix("MOSTLY_")


def test_file_type_names_of_removed_or_bad_ids():
    assert [_file_type_name(v) for v in (4, -1, "x", None)] == ["file_type 4", "file_type -1", "file_type x", None]


def test_the_gguf_path_does_not_import_gguf_or_numpy(tmp_path):
    path = write_model(tmp_path / "m.gguf")
    code = ("import sys; from vramdoctor.sources import load_model; load_model(sys.argv[1]); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('gguf', 'numpy')))")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


# --- malformed input ------------------------------------------------------------------------------

def _kv(key: str, vtype: int, payload: bytes) -> bytes:
    return _gs(key) + struct.pack("<I", vtype) + payload


def _ti(name: str | bytes, dims, type_id: int = 0, offset: int = 0) -> bytes:
    return _gs(name) + struct.pack(f"<I{len(dims)}QIQ", len(dims), *dims, type_id, offset)


def _file(kvs=(), tensors=(), data=b"", *, version=3, n_kv=None, n_tensors=None, magic=b"GGUF") -> bytes:
    head = magic + struct.pack("<IQQ", version, len(tensors) if n_tensors is None else n_tensors,
                               len(kvs) if n_kv is None else n_kv) + b"".join(kvs) + b"".join(tensors)
    return head + bytes(-len(head) % 32) + data


def _nested(depth: int) -> bytes:
    return struct.pack("<IQ", V.UINT8, 0) if depth == 0 else struct.pack("<IQ", V.ARRAY, 1) + _nested(depth - 1)


BIG = 2**62
MALFORMED = {  # name: (file, message pattern, field)
    "bad magic": (_file(magic=b"GGML"), r"not a GGUF file \(starts with b'GGML'", None),
    "empty": (b"", r"not a GGUF file \(starts with b''", None),
    "version 1": (_file(version=1), "version 1", None),
    "version 4": (_file(version=4), "version 4", None),
    "kv count": (_file(n_kv=BIG), "claims 4,611,686,018,427,387,904 key/values", None),
    "tensor count": (_file(n_tensors=BIG), "4,611,686,018,427,387,904 tensor infos", None),
    "uint32 array count": (_file([_kv("x", V.ARRAY, struct.pack("<IQ", V.UINT32, BIG))]),
                           "array of 4,611,686,018,427,387,904 uint32 values needs 18,446", "x"),
    "string array count": (_file([_kv("x", V.ARRAY, struct.pack("<IQ", V.STRING, BIG))]),
                           "array of 4,611,686,018,427,387,904 strings", "x"),
    "nested array count": (_file([_kv("x", V.ARRAY, struct.pack("<IQ", V.ARRAY, BIG))]),
                           "array of 4,611,686,018,427,387,904 arrays", "x"),
    "string length": (_file([_kv("x", V.STRING, struct.pack("<Q", 2**60))]),
                      r"its value \(a string\) needs 1,152,921,504,606,846,976 bytes, and only 19 remain", "x"),
    "key length": (_file([struct.pack("<Q", 2**60) + b"k"]), r"key 0 \(a string\) needs 1,152,921,504,606,846,976", None),
    "string in array": (_file([_kv("x", V.ARRAY, struct.pack("<IQ", V.STRING, 2) + _gs("a") +
                                   struct.pack("<Q", 2**60))]), "string 1 of its array of 2 needs 1,152,921", "x"),
    "value type": (_file([_kv("x", 13, b"\0" * 8)]), "value type 13 is not a GGUF value type", "x"),
    "item type": (_file([_kv("x", V.ARRAY, struct.pack("<IQ", 2**31, 1))]), "item type 2,147,483,648", "x"),
    "duplicate key": (_file([_kv("x", V.UINT8, b"\1"), _kv("x", V.UINT8, b"\2")]), "key 'x' appears twice", "x"),
    "nesting": (_file([_kv("x", V.ARRAY, _nested(MAX_ARRAY_DEPTH))]), f"nest more than {MAX_ARRAY_DEPTH}", "x"),
    "alignment": (_file([_kv("general.alignment", V.UINT32, struct.pack("<I", 48))]), "power of two",
                  "general.alignment"),
    "alignment type": (_file([_kv("general.alignment", V.UINT64, struct.pack("<Q", 32))]), "the uint64 32",
                       "general.alignment"),
    "tensor name": (_file(tensors=[struct.pack("<Q", 2**60)], data=bytes(32)), r"name of tensor 0 \(a string\) needs", None),
    "n_dims 5": (_file(tensors=[_ti("w", [1] * 5)]), "tensor 'w' has 5 dimensions", "w"),
    "n_dims 2^31": (_file(tensors=[_gs("w") + struct.pack("<I", 2**31) + bytes(20)]), "2,147,483,648 dimensions",
                    "w"),
    "dim above int64": (_file(tensors=[_ti("w", [2**63])]), "more elements than ggml's int64", "w"),
    "elements above int64": (_file(tensors=[_ti("w", [2**32, 2**32])]), "more elements than ggml's int64", "w"),
    "dim 2^40": (_file(tensors=[_ti("w", [2**40])]), r"is truncated: tensor 'w' ends at byte 4,398,046,511,", "w"),
    "ggml type 31": (_file(tensors=[_ti("w", [4], 31)]),
                     r"tensor 'w' has ggml type 31, .* ids 0-3, 6-30, 34-35, 39-41 of ggml.h", "w"),
    "ggml type 2^32-1": (_file(tensors=[_ti("w", [4], 2**32 - 1)]), "ggml type 4,294,967,295", "w"),
    "row not a block": (_file(tensors=[_ti("w", [16, 2], GGML_TYPES["Q4_0"].type_id)]),
                        "rows of 16 values, not a multiple of the q4_0 block", "w"),
    "duplicate tensor": (_file(tensors=[_ti("w", [4]), _ti("w", [4], offset=32)], data=bytes(64)),
                         "tensor 'w' appears twice", "w"),
    "data cut": (_file(tensors=[_ti("w", [4]), _ti("v", [8], offset=32)], data=bytes(40)),
                 r"is truncated: tensor 'v' ends at .* \(1 of 2 tensors cut, 24 bytes missing\)", "v"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_gives_a_clear_error(case):
    data, pattern, field = MALFORMED[case]
    with pytest.raises(GGUFFormatError, match=pattern) as e:
        parse_header(data, path="x.gguf")
    assert (e.value.path, e.value.field) == ("x.gguf", field)
    assert str(e.value).startswith("x.gguf: ") and e.value.hint and 0 <= e.value.offset <= max(len(data), 8)


def test_malformed_files_exit_2_naming_file_field_and_offset(tmp_path):
    path = tmp_path / "evil.gguf"
    path.write_bytes(MALFORMED["uint32 array count"][0])
    r = CliRunner().invoke(app, ["estimate", str(path)])
    assert r.exit_code == 2
    # the count: after the magic, version, counts (24), the key (8 + 1), value type and item type (4 + 4)
    assert str(path) in r.stderr and "field 'x'" in r.stderr and "at byte 41" in r.stderr


def test_a_19kb_file_whose_array_claims_2_62_elements(tmp_path):
    """The issue's file: a real model whose scores array claims 2**62 floats. GGUFReader looped until memory ran
    out; our reader stops at the count."""
    path = write_model(tmp_path / "m.gguf", extra_vocab=10)
    for key in (b"tokenizer.ggml.scores", b"tokenizer.ggml.tokens"):
        data = bytearray(path.read_bytes())
        at = data.index(key) + len(key) + 8  # value type, item type
        data[at:at + 8] = struct.pack("<Q", BIG)
        path.write_bytes(bytes(data))
        with pytest.raises(ModelSourceError, match="truncated or corrupt") as e:
            load_model(str(path))
        assert e.value.field == key.decode()


def _prefixes_give_errors_or_results(data: bytes, lengths) -> int:
    results = 0
    view = memoryview(data)
    for n in lengths:
        try:
            parse_header(view[:n], path="cut.gguf")
            results += 1
        except GGUFFormatError as e:
            assert e.path == "cut.gguf" and 0 <= e.offset <= max(n, 8)
    return results


def test_every_prefix_of_a_small_file(tmp_path):
    path = write_every_value_type(tmp_path / "v.gguf", long_arrays=False)
    data, head = path.read_bytes(), read_header(path)
    last = head.tensors[-1]
    padding = len(data) - (head.data_offset + last.offset + last.nbytes)
    assert padding > 0  # only the whole file and cuts in the padding after the last tensor parse
    assert _prefixes_give_errors_or_results(data, range(len(data) + 1)) == padding + 1


def test_every_prefix_of_a_model_header(tmp_path):
    data = write_model(tmp_path / "m.gguf").read_bytes()
    head = read_header(tmp_path / "m.gguf")
    assert _prefixes_give_errors_or_results(data, range(head.data_offset + 64)) == 0
    assert _prefixes_give_errors_or_results(data, range(head.data_offset, len(data), 997)) == 0


@pytest.mark.parametrize("n", [CAP - 1, CAP, CAP + 1])
def test_per_layer_arrays_too_long_to_read_are_named(tmp_path, n):
    path = tmp_path / "m.gguf"
    w = GGUFWriter(str(path), "llama")
    w.add_block_count(2)
    w.add_head_count(4)
    w.add_key_value("llama.attention.head_count_kv", [2] * n, V.ARRAY, sub_type=V.UINT32)
    w.add_tensor("x", np.zeros(4, dtype=np.float32))
    _finish(w)
    if n <= CAP:  # read, and refused as llama.cpp refuses it (get_key_or_arr: "has wrong array length")
        with pytest.raises(ModelSourceError, match=f"has {n} values; llama.cpp needs one per layer") as e:
            load_model(str(path))
        assert e.value.field == "llama.attention.head_count_kv"
    else:
        with pytest.raises(ModelSourceError, match=f"array of {n:,} uint32 values") as e:
            load_model(str(path))
        assert e.value.field == "llama.attention.head_count_kv"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "m.gguf")

    def hung(*_):
        raise AssertionError("reading a FIFO blocked")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        with pytest.raises(ModelSourceError, match="not a regular file"):
            read_header(tmp_path / "m.gguf")
        with pytest.raises(ModelSourceError, match="not a regular file"):
            load_model(str(tmp_path))  # a folder whose only .gguf is the FIFO
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_a_folder_or_a_missing_file_is_refused(tmp_path):
    (tmp_path / "d.gguf").mkdir()
    with pytest.raises(ModelSourceError, match="not a regular file"):
        read_header(tmp_path / "d.gguf")
    with pytest.raises(ModelSourceError, match="cannot be read"):
        read_header(tmp_path / "missing.gguf")
    (tmp_path / "empty.gguf").write_bytes(b"")
    with pytest.raises(ModelSourceError, match="not a GGUF file"):
        read_header(tmp_path / "empty.gguf")
