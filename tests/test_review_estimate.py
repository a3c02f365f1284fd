"""A new user's review of `estimate` (round 7), one section per defect kind, each with several inputs of that kind:
vLLM's own max_num_seqs, not the user's concurrency, in the profile."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

GIB = 2**30


def run(*args):
    """`vramdoctor estimate ARGS` in this process (tests/clirun.py: its streams captured, as a user sees them)."""
    from clirun import CliRunner

    from vramdoctor.cli import run as cli

    saved = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "COLUMNS")}
    os.environ.update(HF_HUB_OFFLINE="1", COLUMNS="200")
    try:
        r = CliRunner().invoke(cli, ["estimate", *map(str, args)])
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    return subprocess.CompletedProcess(args, r.exit_code, r.stdout, r.stderr)


def j(*args):
    r = run(*args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


# --- 1. --concurrency is the user's requests; vLLM profiles its own max_num_seqs --------------------------------

R21 = ("openai/gpt-oss-120b", "--gpu", "H100-80GB", "--gpu-memory-utilization", "0.95",
       "--max-num-batched-tokens", "1024", "--max-model-len", "131072")


def test_a_serve_command_without_max_num_seqs_is_profiled_at_vllms_default():
    """R21's settings failed for real (1.71 GiB pool): with no --max-num-seqs vLLM 0.11 on an H100 profiles 1024
    sequences, whatever --concurrency says; the answer must not be a confident start."""
    for extra in ((), ("--concurrency", "1"), ("--concurrency", "4")):
        d = j(*R21, *extra)
        assert d["settings"]["max_num_seqs"] == 1024
        assert "1024 sequences profiled" in d["engine_rules"]
        assert not d["answer"].startswith("Starts")


@pytest.mark.parametrize("gpu,version,seqs", [("RTX-4090", None, 256), ("H100-80GB", None, 1024),
                                              ("A100-80GB", "0.10.1.1", 256), ("RTX-4090", "0.8.3", 1024),
                                              ("RTX-4090", "0.6.4", 256)])
def test_the_default_max_num_seqs_is_the_releases_for_the_gpu(gpu, version, seqs):
    d = j("Qwen/Qwen2.5-7B-Instruct", "--gpu", gpu, "--concurrency", "8",
          *(("--engine-version", version) if version else ()))
    assert d["settings"]["max_num_seqs"] == seqs and d["settings"]["concurrency"] == 8
    assert f"--max-num-seqs {seqs}" in d["cell_flags"]


def test_max_num_seqs_given_is_profiled_and_caps_what_runs_at_once():
    d = j("Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100-80GB", "--max-num-seqs", "8", "--concurrency", "64")
    assert d["settings"]["max_num_seqs"] == 8 and "8 sequences profiled" in d["engine_rules"]
    assert "8 of 64 at once" in d["answer"]
    small = j("Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100-80GB", "--max-num-seqs", "8")
    big = j("Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100-80GB", "--max-num-seqs", "1024")
    assert small["kv_pool_bytes"] >= big["kv_pool_bytes"]  # fewer sampler rows profiled, never a smaller pool


@pytest.mark.parametrize("args,says", [
    (("--gpu", "H100-80GB", "--max-num-batched-tokens", "512"), "max_num_seqs 1024 (vLLM's default"),
    (("--gpu", "RTX-4090", "--max-num-batched-tokens", "100"), "max_num_seqs 256 (vLLM's default"),
    (("--gpu", "RTX-4090", "--max-num-batched-tokens", "100", "--max-num-seqs", "200"), "--max-num-seqs 200"),
])
def test_a_step_smaller_than_max_num_seqs_is_refused_as_vllm_refuses_it(args, says):
    r = run("Qwen/Qwen2.5-7B-Instruct", *args)
    assert r.returncode == 2 and "--max-num-batched-tokens" in r.stderr and says in r.stderr
    assert "Traceback" not in r.stderr


# --- 2. a refused tensor-parallel size suggests only sizes the engine accepts ------------------------------------

@pytest.mark.parametrize("model,tp,accepted", [
    ("microsoft/phi-4", 4, [2, 5, 10, 20, 40]),  # 40 heads, 10 KV heads
    ("meta-llama/Llama-3.1-8B-Instruct", 5, [2, 4, 8, 16, 32]),  # 32 heads, 8 KV heads (16, 32: KV heads replicated)
    ("Qwen/Qwen2.5-7B-Instruct", 3, [2, 4, 28]),  # 28 heads, 4 KV heads: 7 and 14 split neither way
])
@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_refused_tp_lists_only_sizes_that_are_accepted(model, tp, accepted, engine):
    r = run(model, "--engine", engine, "-tp", tp)
    assert r.returncode == 2 and "--tensor-parallel-size" in r.stderr
    listed = r.stderr.split("Use one of: ")[1].split(".")[0]
    assert [int(x) for x in listed.split(", ")] == accepted
    for n in accepted:
        assert run(model, "--engine", engine, "-tp", n, "--json").returncode == 0, n


def test_tp_5_is_accepted_where_vllm_accepts_it_and_refused_where_it_refuses_it():
    assert run("microsoft/phi-4", "-tp", 5).returncode == 0  # 40 % 5 == 0 and 10 % 5 == 0
    assert run("meta-llama/Llama-3.1-8B-Instruct", "-tp", 5).returncode == 2  # 32 % 5 != 0


@pytest.mark.parametrize("model", ["microsoft/phi-4", "Qwen/Qwen2.5-7B-Instruct"])
def test_more_gpus_are_advised_only_in_sizes_the_engine_accepts(model):
    d = j(model, "--gpu", "RTX-4060")
    for a in d["advice"]:
        if "GPUs of this size" in a["change"]:
            n = int(a["flags"].split()[-1])
            assert run(model, "--gpu", "RTX-4060", "-tp", n, "--json").returncode == 0


# --- 3. llama.cpp splits whole layers across GPUs (--split-mode layer), the smallest count that fits ---------------

from conftest import load_config  # noqa: E402
from vramdoctor.engines import Settings, get_engine  # noqa: E402
from vramdoctor.engines.llamacpp_split import device_layers  # noqa: E402
from vramdoctor.estimate import estimate  # noqa: E402
from vramdoctor.sources.hf_config import spec_from_config  # noqa: E402


@pytest.mark.parametrize("n_layer,gpus,ngl,counts", [
    (32, 1, None, [33]),
    (32, 2, None, [17, 16]),  # splits 0.5, 1.0: layers 0-16 (x < 0.5) on the first
    (32, 4, None, [9, 8, 8, 8]),
    (32, 5, None, [7, 7, 6, 7, 6]),  # the last holds 5 layers and the output layer
    (39, 5, None, [8, 8, 8, 8, 8]),  # x = 8/40 = 0.2 is not below the first split: upper_bound
    (32, 4, 9, [3, 2, 2, 2]),  # -ngl 9: layers 24-31 and the output layer, split among the GPUs
])
def test_layers_go_to_gpus_by_llama_cpps_split_points(n_layer, gpus, ngl, counts):
    devices = device_layers(n_layer, gpus, ngl)
    assert [len(d) for d in devices] == counts
    assert devices[-1][-1] == n_layer  # the output layer is on the last GPU
    flat = [i for d in devices for i in d]
    assert flat == sorted(flat) and len(set(flat)) == len(flat)


def llama8b():
    return spec_from_config(load_config("meta-llama__Llama-3.1-8B-Instruct.json"), name="Llama-3.1-8B-Instruct")


@pytest.mark.parametrize("gpu_gib,n,c", [(8.0, 32768, 4), (8.0, 8192, 1), (12.0, 65536, 2), (6.0, 4096, 1)])
def test_the_advised_gpu_count_is_the_smallest_that_fits(gpu_gib, n, c):
    """The count llama.cpp's layer split needs is any integer: the advice names the smallest that fits, and one
    GPU fewer does not."""
    gpu = int(gpu_gib * GIB)
    s = Settings(max_model_len=n, concurrency=c)
    e = estimate(llama8b(), engine="llamacpp", settings=s, gpu_bytes=gpu)
    advice = [a for a in e.advice if "GPUs of this size" in a.change]
    assert advice, e.advice
    k = int(advice[0].change.split()[0])
    assert "whole layers" in advice[0].detail and "heads" not in advice[0].detail
    fits = lambda m: estimate(llama8b(), engine="llamacpp", settings=s.with_(tensor_parallel_size=m),  # noqa: E731
                              gpu_bytes=gpu).verdict == "fits"
    assert fits(k) and not fits(k - 1)


def test_the_review_case_advises_five_gpus_not_eight():
    d = j("meta-llama/Llama-3.1-8B-Instruct", "--engine", "llamacpp", "--gpu", "RTX-4060", "--max-model-len", "32K",
          "--concurrency", "4")
    split = [a for a in d["advice"] if "GPUs of this size" in a["change"]]
    assert split[0]["change"].startswith("5 GPUs") and "--split-mode layer" in split[0]["flags"]


def test_the_gpu_with_the_most_layers_decides():
    """Llama-3.1-8B over 5 GPUs: the first holds 7 layers and their cache, the last 6 with the output layer; the
    figures per GPU are the fullest one's, not a fifth of the model."""
    rules = get_engine("llamacpp")
    s = Settings(max_model_len=32768, concurrency=4, tensor_parallel_size=5)
    m = llama8b()
    e = estimate(m, engine="llamacpp", settings=s, gpu_bytes=8 * GIB)
    every = sum(rules.layer_bytes(m, s.with_(tensor_parallel_size=1), 32768 * 4, 4).values())
    assert e.kv_cache_bytes == every * 7 // 32
    assert e.weights_bytes + e.kv_cache_bytes > (m.weights.total_bytes + every) // 5


# --- 4. the first line stays within 80 columns for every legal input ----------------------------------------------

import random  # noqa: E402

from vramdoctor.estimate import MAX_COUNT  # noqa: E402
from vramdoctor.gpus import MAX_DEVICE_BYTES  # noqa: E402
from vramdoctor.sources.catalog import read_catalog  # noqa: E402
from vramdoctor.units import compact, compact_gib  # noqa: E402

MODELS = ("meta-llama/Llama-3.2-1B", "Qwen/Qwen2.5-7B-Instruct", "deepseek-ai/DeepSeek-V3", "openai/gpt-oss-120b",
          "google/gemma-3-27b-it", "derivative/mamba-2.8b-ov")
LENS = (1, 4096, 131072, 1 << 20, 1 << 30, 1 << 40)  # parse_tokens takes up to 2^40
SEQS = (1, 7, 999, 1024, 100000, MAX_COUNT)
GPUS = (1, 2**20, 8 * GIB, int(79.15 * GIB), 256 * GIB, MAX_DEVICE_BYTES)


def _answer(model, engine, n, c, gpu, **more):
    from vramdoctor.errors import UsageError

    try:
        e = estimate(read_catalog(model), engine=engine, gpu_bytes=gpu,
                     settings=Settings(max_model_len=n, concurrency=c, **more))
    except UsageError:
        return None  # a setting the engine refuses: no first line to measure
    return e.answer


def test_the_first_line_fits_80_columns_at_the_extremes():
    """The review's case (81) and the larger legal values (86-88): MI325X, fp8, 1M tokens, 1024 and 100,000
    sequences, 64 TiB of GPU memory."""
    cases = [("meta-llama/Llama-3.2-1B", "vllm", 1 << 20, 1024, int(255.98 * GIB), {"kv_cache_dtype": "fp8"}),
             ("meta-llama/Llama-3.2-1B", "vllm", 1 << 20, 100000, MAX_DEVICE_BYTES, {"kv_cache_dtype": "fp8"}),
             ("meta-llama/Llama-3.2-1B", "sglang", 1 << 20, 100000, MAX_DEVICE_BYTES, {}),
             ("meta-llama/Llama-3.2-1B", "llamacpp", 1 << 40, MAX_COUNT, MAX_DEVICE_BYTES, {})]
    for model, engine, n, c, gpu, more in cases:
        a = _answer(model, engine, n, c, gpu, **more)
        assert a is not None and len(a) <= 80, a


def test_the_first_line_fits_80_columns_for_a_seeded_sweep_of_legal_values():
    rng = random.Random(int(os.environ.get("VRAMDOCTOR_FUZZ_SEED", "7")))
    seen = 0
    for _ in range(160):
        model, engine = rng.choice(MODELS), rng.choice(("vllm", "sglang", "llamacpp", "generic"))
        n, c, gpu = rng.choice(LENS), rng.choice(SEQS), rng.choice(GPUS)
        more = {"gpu_memory_utilization": rng.choice((0.01, 0.9, 1.0))} if engine == "vllm" else {}
        a = _answer(model, engine, n, c, gpu, **more)
        if a is not None:
            seen += 1
            assert len(a) <= 80, (model, engine, n, c, gpu, a)
    assert seen > 100


@pytest.mark.parametrize("x,width", [(0, 5), (9999, 5), (10000, 5), (999499, 5), (999500, 5), (1 << 40, 5),
                                     (3.6934, 6), (999.99, 6), (1000.0, 6), (123456.7, 6), (10**30, 7)])
def test_compact_numbers_never_pass_their_width(x, width):
    assert len(compact(x, width)) <= width


@pytest.mark.parametrize("n", [0, 1, GIB // 3, 999 * GIB, 1000 * GIB, 2**50, 2**60, 2**80, 2**90, 2**200])
def test_compact_gib_is_at_most_ten_characters(n):
    assert len(compact_gib(n)) <= 10


# --- 9. the answer's wording: one request, a pool short of one sequence --------------------------------------------

@pytest.mark.parametrize("args", [("Qwen/Qwen2.5-7B-Instruct",), ("Qwen/Qwen2.5-7B-Instruct", "--engine", "sglang"),
                                  ("meta-llama/Llama-3.2-1B", "--gpu", "RTX-4090", "--max-model-len", "8192")])
def test_one_request_is_not_all_1(args):
    a = j(*args)["answer"]
    assert a.startswith("Starts") and "all 1 " not in a and " of 1 " not in a


def test_a_pool_short_of_one_sequence_is_not_zero_of_n_at_once():
    """SGLang starts on a pool of any size: 0.29 sequences of 32,768 tokens is not '0 of 8 run at once'."""
    hits = 0
    for gpu, n in (("RTX-4090", "131072"), ("RTX-4060", "32768"), ("L4", "131072")):
        d = j("Qwen/Qwen2.5-7B-Instruct", "--engine", "sglang", "--gpu", gpu, "--max-model-len", n,
              "--concurrency", "8")
        if d["starts"] and d["max_concurrency"] < 1:
            hits += 1
            assert d["answer"].startswith("Starts, but its pool holds only") and " 0 of " not in d["answer"]
    assert hits >= 2


# --- 5. config keys missing or impossible: transformers' class default with a note, else refused -------------------

import copy  # noqa: E402

from vramdoctor.errors import ModelSourceError  # noqa: E402


def cfg_without(name, *keys, **changes):
    c = copy.deepcopy(load_config(name))
    for k in keys:
        c.pop(k)
    c.update(changes)
    return c


def spec_of(cfg):
    return spec_from_config(cfg, name="m", path="config.json")


@pytest.mark.parametrize("name,key,default,cls", [
    ("deepseek-ai__DeepSeek-V3.config.json", "kv_lora_rank", 512, "DeepseekV3Config"),
    ("deepseek-ai__DeepSeek-V3.config.json", "qk_rope_head_dim", 64, "DeepseekV3Config"),
    ("deepseek-ai__DeepSeek-V2-Lite.config.json", "kv_lora_rank", 512, "DeepseekV2Config"),
    ("mistralai__Mixtral-8x7B-v0.1.config.json", "num_local_experts", 8, "MixtralConfig"),
    ("meta-llama__Meta-Llama-3.1-8B.config.json", "vocab_size", 32000, "LlamaConfig"),
    ("meta-llama__Meta-Llama-3.1-8B.config.json", "intermediate_size", 11008, "LlamaConfig"),
    ("Qwen__Qwen3-Next-80B-A3B-Thinking.config.json", "full_attention_interval", 4, "Qwen3NextConfig"),
])
def test_a_missing_key_takes_transformers_class_default_and_says_so(name, key, default, cls):
    full, cut = spec_of(load_config(name)), spec_of(cfg_without(name, key))
    note = " ".join(cut.notes)
    assert key in note and str(default) in note and cls in note
    if load_config(name)[key] == default:  # the real value is the default: the same model
        assert cut.layers == full.layers and cut.weights.total_bytes == full.weights.total_bytes
    assert not full.notes or key not in " ".join(full.notes)


def test_deepseek_v3_without_kv_lora_rank_is_latent_attention():
    cut = spec_of(cfg_without("deepseek-ai__DeepSeek-V3.config.json", "kv_lora_rank"))
    assert {layer.kind for layer in cut.layers} == {"mla"}


def test_gpt_oss_without_layer_types_alternates_as_its_config_class_does():
    for name in ("openai__gpt-oss-20b.config.json", "openai__gpt-oss-120b.config.json"):
        full, cut = spec_of(load_config(name)), spec_of(cfg_without(name, "layer_types"))
        assert [layer.kind for layer in cut.layers] == [layer.kind for layer in full.layers]
        assert "layer_types" in " ".join(cut.notes) and "GptOssConfig" in " ".join(cut.notes)


def test_qwen3_next_without_its_interval_is_hybrid():
    cut = spec_of(cfg_without("Qwen__Qwen3-Next-80B-A3B-Thinking.config.json", "full_attention_interval"))
    assert cut.count("full") == 12 and cut.count("state") == 36


def test_mixtral_without_experts_is_not_dense():
    full = spec_of(load_config("mistralai__Mixtral-8x7B-v0.1.config.json"))
    cut = spec_of(cfg_without("mistralai__Mixtral-8x7B-v0.1.config.json", "num_local_experts"))
    assert cut.num_experts == 8 and cut.weights.total_bytes == full.weights.total_bytes


@pytest.mark.parametrize("name,keys,field", [
    ("microsoft__phi-4.config.json", ("vocab_size",), "vocab_size"),  # phi3: no class default read
    ("microsoft__phi-4.config.json", ("intermediate_size",), "intermediate_size"),
    ("meta-llama__Meta-Llama-3.1-8B.config.json", ("vocab_size", "model_type"), "vocab_size"),
    ("Qwen__Qwen2.5-7B.config.json", ("hidden_size",), "hidden_size"),
])
def test_a_missing_key_with_no_class_default_is_refused_with_the_field(name, keys, field):
    with pytest.raises(ModelSourceError) as e:
        spec_of(cfg_without(name, *keys))
    assert field in str(e.value)


@pytest.mark.parametrize("name,changes,field", [
    ("deepseek-ai__DeepSeek-V3.config.json", {"kv_lora_rank": None}, "kv_lora_rank"),
    ("deepseek-ai__DeepSeek-V3.config.json", {"qk_rope_head_dim": None}, "qk_rope_head_dim"),
    ("meta-llama__Meta-Llama-3.1-8B.config.json", {"torch_dtype": "int4"}, "torch_dtype"),
    ("meta-llama__Meta-Llama-3.1-8B.config.json", {"torch_dtype": "uint8"}, "torch_dtype"),
    ("meta-llama__Meta-Llama-3.1-8B.config.json", {"num_key_value_heads": 3}, "num_key_value_heads"),
    ("meta-llama__Meta-Llama-3.1-8B.config.json", {"num_key_value_heads": 64}, "num_key_value_heads"),
    ("Qwen__Qwen2.5-7B.config.json", {"num_key_value_heads": 5}, "num_key_value_heads"),
    ("meta-llama__Meta-Llama-3.1-8B.config.json", {"vocab_size": None}, "vocab_size"),
])
def test_an_impossible_value_is_refused_with_the_field(name, changes, field):
    with pytest.raises(ModelSourceError) as e:
        spec_of(cfg_without(name, **changes))
    assert field in str(e.value)


def test_the_cli_refuses_with_the_field_and_exit_2(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(cfg_without("meta-llama__Meta-Llama-3.1-8B.config.json",
                                                                 torch_dtype="int4")))
    r = run(tmp_path / "config.json")
    assert r.returncode == 2 and "torch_dtype" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("dtype,width", [("float16", 2), ("bfloat16", 2), ("float32", 4), ("float8_e4m3fn", 2)])
def test_dtypes_a_model_computes_in_are_read(dtype, width):
    from vramdoctor.dtypes import dtype_bytes

    m = spec_of(cfg_without("meta-llama__Meta-Llama-3.1-8B.config.json", torch_dtype=dtype))
    assert dtype_bytes(m.dtype) == width


# --- 6. past the model's trained context: each engine's own rule, and advice that never passes the limit -------------

from tinygguf import write_model  # noqa: E402


@pytest.mark.parametrize("engine,says,not_says", [
    ("vllm", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", "only warns"),
    ("sglang", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1", "only warns"),
    ("llamacpp", "only warns", "refuse"),
])
def test_past_max_position_embeddings_each_engine_says_what_it_does(engine, says, not_says):
    d = j("Qwen/Qwen2.5-7B-Instruct", "--engine", engine, "--max-model-len", "64K", "--gpu-memory", "512GiB")
    note = [n for n in d["notes"] if "max_position_embeddings" in n]
    assert note and says in note[0] and not_says not in note[0]


def test_a_gguf_past_its_training_context_under_llamacpp_is_a_warning(tmp_path):
    gguf = write_model(tmp_path / "t.gguf")
    d = j(gguf, "--engine", "llamacpp", "--max-model-len", "1M")
    note = [n for n in d["notes"] if "context" in n]
    assert note and "only warns" in note[0] and "refuse" not in note[0]


@pytest.mark.parametrize("engine", ["vllm", "sglang", "llamacpp"])
@pytest.mark.parametrize("model,gpu,n", [("Qwen/Qwen2.5-7B-Instruct", "RTX-4090", "128K"),
                                         ("meta-llama/Llama-3.1-8B-Instruct", "RTX-4090", "1M"),
                                         ("Qwen/Qwen2.5-7B-Instruct", "H100-80GB", "256K")])
def test_advice_never_passes_the_models_limit_without_naming_the_override(engine, model, gpu, n):
    d = j(model, "--engine", engine, "--gpu", gpu, "--max-model-len", n, "--concurrency", "2")
    limit = {"Qwen/Qwen2.5-7B-Instruct": 32768, "meta-llama/Llama-3.1-8B-Instruct": 131072}[model]
    for a in d["advice"]:
        if a["change"] == "shorter context":
            words = a["flags"].split()
            per_seq = int(words[1]) // (int(words[3]) if words[0] == "-c" else 1)
            assert per_seq <= limit, a


# --- 7. Ollama, KoboldCpp and llama-cpp-python answer in their own settings ---------------------------------------

LLAMA_FLAGS = ("-c ", "-np ", "-ngl ", "-ctk", "-ub ", "--split-mode")
FRONT = {"ollama": ("num_ctx 32768 OLLAMA_NUM_PARALLEL=4", "num_gpu ", "OLLAMA_KV_CACHE_TYPE"),
         "koboldcpp": ("--contextsize 131072", "--gpulayers ", "--quantkv"),
         "llama-cpp-python": ("n_ctx=131072", "n_gpu_layers=", "type_k=")}


@pytest.mark.parametrize("front", sorted(FRONT))
@pytest.mark.parametrize("gpu", ["RTX-4060", "RTX-4090"])
def test_a_front_end_gets_its_own_flags_not_llama_cpps(front, gpu):
    ctx, layers, kv = FRONT[front]
    d = j("meta-llama/Llama-3.1-8B-Instruct", "--engine", front, "--gpu", gpu, "--weights", "q4_k_m",
          "--max-model-len", "32K", "--concurrency", "4")
    assert d["front_end"] == front and d["engine"] == "llamacpp"
    assert d["cell_flags"].startswith(ctx)
    for a in d["advice"]:
        assert not any(f in a["flags"] for f in LLAMA_FLAGS), a
        if a["change"] == "partial offload":
            assert a["flags"].startswith(layers)
        if a["change"] == "8-bit KV cache":
            assert kv in a["flags"]
    text = run("meta-llama/Llama-3.1-8B-Instruct", "--engine", front, "--gpu", gpu, "--weights", "q4_k_m",
               "--max-model-len", "32K", "--concurrency", "4").stdout
    assert f"engine {front} (llama.cpp's rules)" in text and "-ngl" not in text


def test_ollama_with_num_gpu_unset_starts_with_the_layers_that_fit():
    """Review 3, defect 5: Ollama's default num_gpu (-1) offloads the layers its estimate fits and runs the rest on the
    CPU (llm/server.go `s.options.NumGPU = s.estimate.Layers`): it starts where llama-server with every layer does
    not. num_gpu set by hand (-ngl here) is llama.cpp's case again."""
    args = ("meta-llama/Llama-3.1-8B-Instruct", "--gpu", "RTX-4060", "--weights", "q4_k_m", "--max-model-len", "8K",
            "--concurrency", "4", "--grid", "4096x1,32768x8")
    llama, d = j(*args, "--engine", "llamacpp"), j(*args, "--engine", "ollama")
    assert llama["starts"] is False and llama["auto_gpu_layers"] is None
    assert d["starts"] is True and d["verdict"] == llama["verdict"] == "kv_exceeds"
    assert 0 < d["auto_gpu_layers"] == d["max_n_gpu_layers_fit"] < d["num_decoder_layers"] + 1
    assert d["answer"].startswith("Starts") and len(d["answer"]) <= 80
    assert d["grid"][0]["auto_gpu_layers"] is None and d["grid"][0]["verdict"] == "fits"
    assert d["grid"][1]["starts"] and d["grid"][1]["auto_gpu_layers"] < d["auto_gpu_layers"]
    text = " ".join(run(*args, "--engine", "ollama").stdout.split())
    assert "Does not start" not in text and "does not start" not in text.split("note:")[0]
    assert f"starts with {d['auto_gpu_layers']} of 33 layers on the GPU" in text
    forced = j(*args, "--engine", "ollama", "-ngl", "33")
    assert forced["starts"] is False and forced["auto_gpu_layers"] is None
    fits = j("meta-llama/Llama-3.1-8B-Instruct", "--engine", "ollama", "--gpu", "RTX-4090", "--weights", "q4_k_m")
    assert fits["starts"] is True and fits["auto_gpu_layers"] is None


def test_llamacpp_keeps_its_own_flags():
    d = j("meta-llama/Llama-3.1-8B-Instruct", "--engine", "llamacpp", "--gpu", "RTX-4060", "--max-model-len", "32K",
          "--concurrency", "4")
    assert d["cell_flags"].startswith("-c 131072 -np 4") and any(a["flags"].startswith("-ngl") for a in d["advice"])


@pytest.mark.parametrize("front,dtype", [("ollama", "q5_0"), ("ollama", "bf16"), ("koboldcpp", "iq4_nl")])
def test_a_kv_type_the_front_end_has_no_setting_for_is_refused(front, dtype):
    r = run("meta-llama/Llama-3.1-8B-Instruct", "--engine", front, "--kv-cache-dtype", dtype)
    assert r.returncode == 2 and "--kv-cache-dtype" in r.stderr and "takes: f16, q8_0" in r.stderr


# --- 8. options the chosen engine does not read: a warning on stderr, or refused where the engine cannot -----------

@pytest.mark.parametrize("engine,args,says", [
    ("sglang", ("--block-size", "7"), "--block-size"),
    ("llamacpp", ("--block-size", "32"), "--block-size"),
    ("llamacpp", ("--max-num-batched-tokens", "1"), "--max-num-batched-tokens"),
    ("ollama", ("--max-num-seqs", "8"), "--max-num-seqs"),
    ("sglang", ("--max-num-seqs", "8"), "--max-num-seqs"),
    ("vllm", ("--n-ubatch", "1024"), "--n-ubatch"),
    ("sglang", ("--no-kv-unified",), "--kv-unified"),
    ("llamacpp", ("--sampler", "pytorch"), "--sampler"),
    ("vllm@0.8.5", ("--sampler", "pytorch"), "--sampler"),
])
def test_an_option_the_engine_does_not_read_is_warned_about_and_ignored(engine, args, says):
    engine, _, version = engine.partition("@")
    base = ("Qwen/Qwen2.5-7B-Instruct", "--engine", engine, "--json", *(("--engine-version", version) if version else ()))
    r, plain = run(*base, *args), run(*base)
    assert r.returncode == 0 and "warning:" in r.stderr and says in r.stderr, r.stderr
    assert json.loads(r.stdout)["kv_pool_bytes"] == json.loads(plain.stdout)["kv_pool_bytes"]
    assert "warning:" not in plain.stderr


@pytest.mark.parametrize("engine,args,option", [
    ("sglang", ("--gpu-memory-utilization", "0.01"), "--gpu-memory-utilization"),
    ("llamacpp", ("--gpu-memory-utilization", "0.5"), "--gpu-memory-utilization"),
    ("vllm", ("--mem-fraction-static", "0.8"), "--mem-fraction-static"),
    ("llamacpp", ("--engine-version", "0.1.0"), "--engine-version"),
    ("ollama", ("--engine-version", "0.5.7"), "--engine-version"),
    ("vllm", ("--weights", "tq1_0"), "--weights"),
])
def test_an_option_the_engine_cannot_take_is_refused(engine, args, option):
    r = run("Qwen/Qwen2.5-7B-Instruct", "--engine", engine, *args)
    assert r.returncode == 2 and option in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize("engine,fmt", [("vllm", "iq2_xxs"), ("vllm", "q4_k_m"), ("sglang", "q4_k_m")])
def test_a_gguf_file_type_with_a_safetensors_engine_says_what_the_figures_are(engine, fmt):
    r = run("Qwen/Qwen2.5-7B-Instruct", "--engine", engine, "--weights", fmt, "--json")
    assert r.returncode == 0 and "warning:" in r.stderr and "GGUF" in r.stderr


def test_the_options_that_apply_are_not_warned_about():
    for args in (("--engine", "vllm", "--block-size", "32", "--max-num-seqs", "8", "--sampler", "flashinfer"),
                 ("--engine", "sglang", "--mem-fraction-static", "0.8", "--max-num-batched-tokens", "4096"),
                 ("--engine", "llamacpp", "--n-ubatch", "1024", "--no-kv-unified", "--engine-version", "b7000"),
                 ("--engine", "vllm", "--weights", "awq")):
        r = run("Qwen/Qwen2.5-7B-Instruct", *args, "--json")
        assert r.returncode == 0 and "warning:" not in r.stderr, (args, r.stderr)


# --- 9. advice flags can be pasted: flags only, the prose in the detail -------------------------------------------

import re  # noqa: E402

PROSE = re.compile(r"\b(a|an|of|over|the|than|now|checkpoint|GPUs)\b|\(")


@pytest.mark.parametrize("args", [
    ("Qwen/Qwen2.5-72B-Instruct", "--gpu", "RTX-4090"),
    ("Qwen/Qwen3-32B-FP8", "--gpu", "RTX-4090"),
    ("meta-llama/Llama-3.1-8B-Instruct", "--engine", "llamacpp", "--gpu", "RTX-4060", "--max-model-len", "32K"),
    ("meta-llama/Llama-3.1-8B-Instruct", "--engine", "koboldcpp", "--gpu", "RTX-4060", "--max-model-len", "32K"),
    ("meta-llama/Llama-3.1-8B-Instruct", "--engine", "ollama", "--gpu", "RTX-4060", "--max-model-len", "32K"),
    ("deepseek-ai/DeepSeek-V3", "--gpu", "RTX-4060"),
    ("Qwen/Qwen2.5-7B-Instruct", "--engine", "sglang", "--gpu-memory", "0.5GB"),
])
def test_every_advised_flag_string_can_be_pasted(args):
    d = j(*args)
    assert d["advice"]
    for a in d["advice"]:
        assert not PROSE.search(a["flags"]), a
