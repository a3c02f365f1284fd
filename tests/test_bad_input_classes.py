"""Issue 8's classes of bad input, a test per example: outside text printed as markup, files that are not
regular files or are larger than their format allows, and values that once gave exit 3 instead of exit 2."""

from __future__ import annotations

import json
import os

import pytest
from clirun import CliRunner

from test_sources import TINY_CFG, folder
from vramdoctor.cli import run as app
from vramdoctor.safe import printable, visible

runner = CliRunner()
QWEN_MOE = "tests/data/configs/Qwen__Qwen3-30B-A3B.config.json"


def run(*args):
    return runner.invoke(app, list(args))


def config(tmp_path, raw: str | None = None, **changes) -> str:
    p = tmp_path / "config.json"
    p.write_text(raw if raw is not None else json.dumps({**TINY_CFG, **changes}))
    return str(p)


def is_clean_error(r) -> bool:
    return r.exit_code == 2 and "Traceback" not in r.output and "internal error" not in r.output


# -- outside text printed as markup ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["[bold]24GiB", "[link=file:]x", "[red]", "a]b["])
def test_a_folder_name_is_printed_as_written(tmp_path, name):
    d = tmp_path / name
    d.mkdir()
    (d / "config.json").write_text(json.dumps(TINY_CFG))
    r = run("estimate", str(d), "--gpu-memory", "24GiB")
    assert r.exit_code == 0, r.output
    assert name in r.stdout.replace("\n", "")


@pytest.mark.parametrize("command", ["estimate", "logs"])
def test_a_path_holding_a_closing_tag_is_printed_as_written(tmp_path, command):
    """`a[` then `x]`: the path holds `[/x]`, which rich would read as a closing tag and raise on."""
    d = tmp_path / "a[" / "x]"
    d.mkdir(parents=True)
    r = run(command, str(d / "missing.json"))
    assert is_clean_error(r), r.output
    assert "a[/x]/missing.json" in r.stderr.replace("\n", "")


@pytest.mark.parametrize("value", ["[/x]", "[bold]24GiB", "[link=file:///etc/passwd]x"])
@pytest.mark.parametrize("option", ["--gpu", "--gpu-memory", "--engine", "--kv-cache-dtype", "--max-model-len",
                                    "--grid", "--weights", "--engine-version", "--quantization"])
def test_an_option_value_is_printed_as_written(value, option):
    r = run("estimate", "Qwen/Qwen2.5-7B-Instruct", option, value)
    assert is_clean_error(r), r.output
    assert value in r.stderr.replace("\n", ""), r.stderr


@pytest.mark.parametrize("value", ["[/x]", "[bold]llama", "\x1b]8;;file:///etc/passwd\x1b\\x\x1b]8;;\x1b\\"])
def test_a_config_value_is_printed_as_written(tmp_path, value):
    r = run("estimate", config(tmp_path, model_type=value, architectures=None, num_attention_heads=None,
                               hidden_size=None))
    assert is_clean_error(r), r.output
    assert "\x1b" not in r.stderr
    assert visible(value) in r.stderr.replace("\n", "")


def test_a_log_file_name_is_printed_as_written(tmp_path):
    d = tmp_path / "a[" / "x][bold]"
    d.mkdir(parents=True)
    p = d / "server.log"
    p.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    r = run("logs", str(p))
    assert r.exit_code == 0, r.output
    assert "a[/x][bold]/server.log" in r.stdout.replace("\n", "")


def test_control_characters_become_visible():
    assert visible("a\x1b[31mb\x07\x9b") == "a\\x1b[31mb\\x07\\x9b"
    assert printable("[red]x\x1b") == "\\[red]x\\x1b"


@pytest.mark.parametrize("char", ["\u202e", "\u202d", "\u2066", "\u2069", "\u200f", "\u061c", "\u2028", "\ufeff"])
def test_unicode_format_characters_that_reorder_a_line_become_visible(char):
    assert visible(f"a{char}b") == f"a\\u{ord(char):04x}b"


def test_a_right_to_left_override_in_a_logs_line_is_printed_visible(tmp_path):
    p = tmp_path / "server.log"
    p.write_text("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4096.00 MiB on device 0: cudaMalloc failed: "
                 "out of memory \u202e RTL\n", encoding="utf-8")
    r = run("logs", str(p))
    assert r.exit_code == 0, r.output
    assert "\u202e" not in r.stdout and "\\u202e" in r.stdout, r.stdout


# -- files that are not regular files --------------------------------------------------------------------------

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


@needs_fifo
@pytest.mark.parametrize("name", ["config.json", "model.safetensors.index.json", "hf_quant_config.json"])
def test_a_pipe_in_a_model_folder_is_refused_at_once(tmp_path, name):
    d = folder(tmp_path)
    (d / name).unlink(missing_ok=True)
    os.mkfifo(d / name)
    r = run("estimate", str(d))
    assert is_clean_error(r) and "pipe" in r.stderr and name in r.stderr, r.output


@needs_fifo
def test_a_pipe_as_a_shard_the_index_names_is_refused(tmp_path):
    d = folder(tmp_path, shards=1)
    shard = next(d.glob("*.safetensors"))
    (d / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"w0": shard.name}}))
    shard.unlink()
    os.mkfifo(shard)
    r = run("estimate", str(d))
    assert is_clean_error(r) and "pipe" in r.stderr, r.output


@needs_fifo
def test_a_pipe_given_as_the_model_is_named(tmp_path):
    p = tmp_path / "config.json"
    os.mkfifo(p)
    r = run("estimate", str(p))
    assert is_clean_error(r) and "pipe" in r.stderr, r.output


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("name,device", [("config.json", "/dev/zero"), ("config.json", "/dev/urandom"),
                                         ("model.safetensors.index.json", "/dev/zero"),
                                         ("model-00000-of-00002.safetensors", "/dev/zero")])
def test_a_link_to_a_device_is_refused(tmp_path, name, device):
    d = folder(tmp_path)
    (d / name).unlink(missing_ok=True)
    os.symlink(device, d / name)
    r = run("estimate", str(d))
    assert is_clean_error(r) and "device" in r.stderr, r.output


def test_a_config_larger_than_any_config_is_refused_with_its_size(tmp_path):
    p = tmp_path / "config.json"
    p.write_text(json.dumps({**TINY_CFG, "padding": "x" * (9 << 20)}))
    r = run("estimate", str(p))
    assert is_clean_error(r) and "bytes" in r.stderr, r.output


# -- values that gave exit 3 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("raw,says", [
    ('{"num_hidden_layers": ' + "9" * 5000 + "}", "digits"),
    ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested"),
    ('{"hidden_size": NaN}', "NaN"),
    ('{"hidden_size": 1e400, "num_hidden_layers": 2}', "hidden_size"),
])
def test_json_that_python_cannot_take_is_the_files_fault(tmp_path, raw, says):
    r = run("estimate", config(tmp_path, raw=raw))
    assert is_clean_error(r) and says in r.stderr, r.output


@pytest.mark.parametrize("key,value", [
    ("quantization_config", [1, 2]), ("quantization_config", "awq"), ("seq_length", "abc"),
    ("attention_chunk_size", -5), ("attn_layer_indices", [1, "a"]), ("layers_block_type", "attention"),
    ("hidden_act", 7), ("model_type", ["llama"]), ("num_kv_shared_layers", "x"),
])
def test_a_mistyped_field_is_named(tmp_path, key, value):
    r = run("estimate", config(tmp_path, **{key: value}))
    assert is_clean_error(r) and key in r.stderr, r.output


@pytest.mark.parametrize("value", ["qwen2\x1b[31m[link=http://x]", "llama x", "", "qwen2\n"])
def test_a_model_type_that_is_no_plain_name_is_refused_with_the_field(tmp_path, value):
    """Review 3, 9: a model_type holding an escape code or markup was read as qwen2 with no word said."""
    r = run("estimate", config(tmp_path, model_type=value))
    assert is_clean_error(r) and "model_type" in r.stderr and "plain name" in r.stderr, r.output
    assert "\x1b" not in r.stderr


@pytest.mark.parametrize("value", ["llama", "gpt_oss", "xlm-roberta", "gemma3_text"])
def test_a_model_type_of_transformers_spelling_is_taken(tmp_path, value):
    r = run("estimate", config(tmp_path, model_type=value), "--json")
    assert r.exit_code == 0, r.output


def test_a_config_json_in_a_folder_is_named_by_the_folder(tmp_path):
    """Review 3, 9: `estimate models/<name>/config.json` was labelled 'config'; another file keeps its own name."""
    d = tmp_path / "Tiny-Model-7B"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(TINY_CFG))
    (d / "other.json").write_text(json.dumps(TINY_CFG))
    assert json.loads(run("estimate", str(d / "config.json"), "--json").stdout)["model"] == "Tiny-Model-7B"
    assert json.loads(run("estimate", str(d / "other.json"), "--json").stdout)["model"] == "other"


@pytest.mark.parametrize("value", ["x", -5, True, 2.5, [1, "a"], [10**9]])
def test_mlp_only_layers_of_the_wrong_type_is_named(tmp_path, value):
    cfg = json.loads(open(QWEN_MOE).read())
    r = run("estimate", config(tmp_path, raw=json.dumps({**cfg, "mlp_only_layers": value})))
    assert is_clean_error(r) and "mlp_only_layers" in r.stderr, r.output


@pytest.mark.parametrize("index,field", [
    ({"weight_map": ["a", "b"]}, "weight_map"), ({"weight_map": {"w0": 5}}, "weight_map"),
    ({"weight_map": {"w0": "../../etc/passwd"}}, "weight_map"),
    ({"weight_map": {"w0": "gone.safetensors"}, "metadata": [1]}, "metadata"),
    ({"weight_map": {"w0": "gone.safetensors"}, "metadata": {"total_size": "12"}}, "total_size"),
    ({"weight_map": {"w0": "gone.safetensors"}, "metadata": {"total_size": -1}}, "total_size"),
])
def test_an_index_of_the_wrong_shape_is_named(tmp_path, index, field):
    d = folder(tmp_path)
    (d / "model.safetensors.index.json").write_text(json.dumps(index))
    r = run("estimate", str(d))
    assert is_clean_error(r) and field in r.stderr, r.output


@pytest.mark.parametrize("hq,field", [({"quantization": [1]}, "quantization"),
                                      ({"quantization": {"quant_algo": 8}}, "quant_algo")])
def test_an_hf_quant_config_of_the_wrong_shape_is_named(tmp_path, hq, field):
    d = folder(tmp_path)
    (d / "hf_quant_config.json").write_text(json.dumps(hq))
    r = run("estimate", str(d))
    assert is_clean_error(r) and field in r.stderr, r.output


@pytest.mark.parametrize("header", [
    {"w": {"dtype": "F16", "shape": [2], "data_offsets": [0, 1e400]}},
    {"w": {"dtype": "F16", "shape": [2], "data_offsets": [0, int("9" * 40)]}},
    {"w": {"dtype": "F16", "shape": [2], "data_offsets": "0,4"}},
    {"w": {"dtype": "F16", "shape": [2], "data_offsets": [True, 4]}},
    {"w": [1, 2]},
])
def test_a_safetensors_header_of_the_wrong_shape_is_named(tmp_path, header):
    d = folder(tmp_path, shards=1)
    shard = next(d.glob("*.safetensors"))
    raw = json.dumps(header).replace("Infinity", "1e400").encode()
    shard.write_bytes(len(raw).to_bytes(8, "little") + raw + b"\0" * 8)
    r = run("estimate", str(d))
    assert is_clean_error(r) and shard.name in r.stderr.replace("\n", ""), r.output


@pytest.mark.parametrize("args,option", [
    (["--gpu-memory", "99999999999999999999999999999999TiB"], "--gpu-memory"),
    (["--concurrency", "99999999999999999999999"], "--concurrency"),
    (["--grid", "4096x99999999999999"], "--grid"),
    (["--gpu-memory-utilization", "1e400"], "--gpu-memory-utilization"),
])
def test_cli_numbers_beyond_any_device_or_server_are_refused(args, option):
    r = run("estimate", "Qwen/Qwen2.5-7B-Instruct", *args)
    assert is_clean_error(r) and option in r.stderr, r.output


@pytest.mark.parametrize("key,value", [
    ("llama.attention.head_count", "abc"), ("llama.attention.head_count_kv", "x"),
    ("llama.context_length", "4096"), ("llama.embedding_length", "64"), ("llama.attention.head_count_kv", [2]),
    ("llama.attention.head_count_kv", [2.5, 1.0]), ("llama.attention.sliding_window", "abc"),
    ("llama.attention.key_length", "16"), ("llama.attention.key_length", 16.5), ("llama.feed_forward_length", "128"),
])
def test_a_gguf_key_of_the_wrong_type_or_length_is_named(tmp_path, key, value):
    """A string where a number belongs, a fraction, a per-layer array of another length than block_count (llama.cpp's
    get_key_or_arr refuses it too)."""
    from tinygguf import write_model

    p = write_model(tmp_path / "m.gguf", extra_kv={key: value})
    r = run("estimate", str(p), "--engine", "llamacpp")
    assert is_clean_error(r) and key in r.stderr, r.output


def test_a_gguf_name_is_printed_as_written(tmp_path):
    from tinygguf import write_model

    name = "[link=file:///etc/passwd]x[/link][/x]\x1b]8;;x"
    p = write_model(tmp_path / "m.gguf", extra_kv={"general.name": name})
    r = run("estimate", str(p), "--engine", "llamacpp")
    assert r.exit_code == 0, r.output
    assert "\x1b" not in r.stdout and visible(name) in r.stdout.replace("\n", "")


# -- a model's JSON description with a UTF-8 BOM (Windows editors write one), and given to `logs` -----------------

@pytest.mark.parametrize("variant", ["bom", "bom-crlf", "bom-minified"])
def test_a_config_with_a_bom_is_the_same_config(tmp_path, variant):
    plain = tmp_path / "plain" / "config.json"
    plain.parent.mkdir()
    plain.write_text(json.dumps(TINY_CFG, indent=2))
    text = json.dumps(TINY_CFG, indent=None if variant == "bom-minified" else 2)
    if variant == "bom-crlf":
        text = text.replace("\n", "\r\n")
    marked = tmp_path / "bom" / "config.json"
    marked.parent.mkdir()
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode())
    a, b = run("estimate", str(plain), "--gpu-memory", "24GiB"), run("estimate", str(marked), "--gpu-memory", "24GiB")
    assert b.exit_code == 0 and "server's log" not in b.output, b.output
    # (each is named by its folder: "plain", "bom")
    assert a.stdout.replace(str(plain), "P").replace("plain on", "M on") == \
        b.stdout.replace(str(marked), "P").replace("bom on", "M on")


@pytest.mark.parametrize("name,raw", [
    ("config.json", json.dumps(TINY_CFG, indent=2).encode()),
    ("config.json", b"\xef\xbb\xbf" + json.dumps(TINY_CFG, indent=2).encode()),
    ("config.json", json.dumps(TINY_CFG).encode()),  # minified, one line
    ("model.safetensors.index.json", json.dumps({"metadata": {"total_size": 1000},
                                                 "weight_map": {"lm_head.weight": "model.safetensors"}},
                                                indent=2).encode()),
])
def test_logs_refuses_a_models_json_description(tmp_path, name, raw):
    p = tmp_path / name
    p.write_bytes(raw)
    r = run("logs", str(p))
    assert is_clean_error(r), r.output
    assert "not a text log" in r.stderr and "vramdoctor estimate" in r.stderr, r.stderr


def test_a_json_lines_log_naming_a_model_type_is_still_a_log(tmp_path):
    p = tmp_path / "server.log"
    p.write_text('{"time": "2025-01-01T00:00:00Z", "level": "INFO", "msg": "loading", "model_type": "llama", '
                 '"architectures": ["LlamaForCausalLM"]}\n'
                 '{"time": "2025-01-01T00:00:05Z", "level": "ERROR", "msg": "torch.OutOfMemoryError: CUDA out of '
                 'memory. Tried to allocate 2.00 GiB."}\n')
    r = run("logs", str(p))
    assert r.exit_code == 0, r.output
