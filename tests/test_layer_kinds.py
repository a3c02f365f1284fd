"""Three layer layouts, each checked by hand from its config's numbers through the public path
(`spec_from_config` and `estimate` with the vllm and generic engines):

- cross-layer KV sharing (Gemma 3n `num_kv_shared_layers`): the last N layers read an earlier layer's cache
  and own none (vLLM `gemma3n.py` kv_sharing_target_layer_name; `gpu_model_runner.get_kv_cache_spec` skips them);
- MiniMax's `attn_type_list` (0 lightning attention, a fixed num_heads x head_dim x head_dim state per sequence,
  vLLM `MambaStateShapeCalculator.linear_attention_state_shape`; 1 softmax attention that grows);
- Falcon-H1's parallel hybrid (every layer holds a KV cache and a Mamba2 state, vLLM `falcon_h1.py`
  `get_mamba_state_shape_from_config` -> `mamba2_state_shape`).

Each kind also has a test that the answer given before these rules (every layer a growing cache, no state)
is no longer given.
"""

from __future__ import annotations

import json

import pytest
from clirun import CliRunner

from conftest import DATA, load_config
from vramdoctor.cli import run as app
from vramdoctor.engines import Settings
from vramdoctor.errors import ModelSourceError
from vramdoctor.estimate import estimate
from vramdoctor.sources.hf_config import spec_from_config
from vramdoctor.sources.layers import layer_kinds
from vramdoctor.spec import FullAttention, RecurrentState, SharedKV, SlidingWindow

GIB = 2**30
BF16 = 2  # bytes; all three configs are bfloat16 and the cache dtype is `auto`
GEMMA = "reconstructed__google__gemma-3n-E4B-it.json"
MINIMAX = "reconstructed__MiniMaxAI__MiniMax-Text-01.json"
FALCON = "reconstructed__tiiuae__Falcon-H1-0.5B-Instruct.json"


def spec(name, cfg=None):
    return spec_from_config(cfg if cfg is not None else load_config(name), name=name, path=name)


def run(model, engine, **settings):
    return estimate(model, engine=engine, settings=Settings(**settings), gpu_bytes=200 * GIB)


def cdiv(a, b):
    return -(-a // b)


# --- cross-layer KV sharing (Gemma 3n) ---------------------------------------------------------------

def gemma_numbers():
    tc = load_config(GEMMA)["text_config"]
    n, shared = tc["num_hidden_layers"], tc["num_kv_shared_layers"]
    owners = tc["layer_types"][: n - shared]
    per_layer = 2 * tc["num_key_value_heads"] * tc["head_dim"] * BF16  # K and V, one token
    return tc, n, shared, owners.count("full_attention"), owners.count("sliding_attention"), per_layer


def test_gemma3n_shared_layers_own_no_cache():
    tc, n, shared, full, sliding, _ = gemma_numbers()
    m = spec(GEMMA)
    assert len(m.layers) == n == 35 and shared == 15
    assert (m.count("full"), m.count("sliding"), m.count("shared")) == (full, sliding, shared) == (4, 16, 15)
    assert m.layers[0] == SlidingWindow(num_kv_heads=2, head_dim_k=256, head_dim_v=256, window=tc["sliding_window"])
    assert m.layers[19] == FullAttention(num_kv_heads=2, head_dim_k=256, head_dim_v=256)
    # each shared layer reads the last owning layer of its own type: 19 (full), 18 (sliding)
    for i in range(n - shared, n):
        layer = m.layers[i]
        assert isinstance(layer, SharedKV)
        want = "full" if tc["layer_types"][i] == "full_attention" else "sliding"
        assert (layer.target_kind, layer.target_layer) == (want, 19 if want == "full" else 18)
        assert layer.bytes_per_token(None, 1) == layer.bytes_per_seq(2, 1) == layer.k_elems(1) == 0


@pytest.mark.parametrize("engine", ["vllm", "generic"])
def test_gemma3n_kv_bytes_by_hand(engine):
    tc, n, shared, full, sliding, per_layer = gemma_numbers()
    window, length = tc["sliding_window"], 32768
    e = run(spec(GEMMA), engine, max_model_len=length, max_num_batched_tokens=2048)
    assert e.kv_bytes_per_token == full * per_layer == 4 * 2048  # only full layers grow with every token
    assert e.kv_window_bytes_per_seq == sliding * min(window, length) * per_layer
    assert e.state_bytes_per_seq == 0
    if engine == "vllm":
        # vLLM divides its pool by every layer that owns pages: 20, not 35
        assert e.engine_kv_bytes_per_token == (full + sliding) * per_layer == 20 * 2048
        # pages of 16 tokens; a sliding layer keeps cdiv(min(window - 1 + 2048, len), 16) + 1 blocks
        sliding_tokens = (cdiv(min(window - 1 + 2048, length), 16) + 1) * 16
        assert e.kv_cache_bytes == full * length * per_layer + sliding * sliding_tokens * per_layer
    else:
        assert e.kv_cache_bytes == full * length * per_layer + sliding * min(window, length) * per_layer


def test_gemma3n_old_answer_not_given():
    """Before: all 35 layers owned a cache (7 full, 28 sliding): 71,680 bytes per pool token."""
    _, n, _, _, _, per_layer = gemma_numbers()
    e = run(spec(GEMMA), "vllm", max_model_len=32768)
    assert e.engine_kv_bytes_per_token != n * per_layer == 71680
    assert e.kv_bytes_per_token != 7 * per_layer


def test_kv_sharing_is_one_rule_not_gemma_only():
    """num_kv_shared_layers on any layout: the last N layers read the last owning layer of their kind."""
    cfg = dict(load_config("meta-llama__Meta-Llama-3.1-8B.config.json"), num_kv_shared_layers=4)
    m = spec("llama-shared", cfg)
    assert m.count("full") == 28 and m.count("shared") == 4
    assert {layer.target_layer for layer in m.layers[28:]} == {27}
    e = run(m, "vllm")
    assert e.engine_kv_bytes_per_token == 28 * 8 * 128 * 2 * BF16


@pytest.mark.parametrize("shared,ok", [(31, True), (32, False), (33, False)])
def test_kv_sharing_bound(shared, ok):
    """At least one layer must own a cache: N-1 shared layers of N are allowed, N and N+1 are not."""
    cfg = dict(load_config("meta-llama__Meta-Llama-3.1-8B.config.json"), num_kv_shared_layers=shared)
    if ok:
        assert spec("x", cfg).count("full") == 1
    else:
        with pytest.raises(ModelSourceError) as err:
            spec("x", cfg)
        assert err.value.field == "num_kv_shared_layers"


def test_kv_sharing_needs_an_owner_of_the_same_kind():
    cfg = load_config(GEMMA)
    tc = dict(cfg["text_config"], layer_types=["sliding_attention"] * 34 + ["full_attention"], num_kv_shared_layers=1)
    with pytest.raises(ModelSourceError) as err:
        spec("x", dict(cfg, text_config=tc))
    assert err.value.field == "num_kv_shared_layers"


# --- MiniMax attn_type_list: lightning attention beside softmax attention ------------------------------

def minimax_numbers():
    c = load_config(MINIMAX)
    atl = c["attn_type_list"]
    per_full = 2 * c["num_key_value_heads"] * c["head_dim"] * BF16
    state = c["num_attention_heads"] * c["head_dim"] * c["head_dim"] * BF16  # one lightning layer, one sequence
    return c, atl.count(1), atl.count(0), per_full, state


def test_minimax_layout_from_attn_type_list():
    c, full, linear, _, _ = minimax_numbers()
    m = spec(MINIMAX)
    assert (m.count("full"), m.count("state")) == (full, linear) == (10, 70)
    assert [i for i, layer in enumerate(m.layers) if layer.kind == "full"] == list(range(7, 80, 8))
    st = m.layers[0]
    assert st == RecurrentState(family="lightning", conv_elems=0, ssm_elems=64 * 128 * 128)
    assert m.layers[7] == FullAttention(num_kv_heads=8, head_dim_k=128, head_dim_v=128)
    assert m.weights.num_params == pytest.approx(456e9, rel=0.005)  # the published 456B


@pytest.mark.parametrize("engine", ["vllm", "generic"])
@pytest.mark.parametrize("tp", [1, 8])
def test_minimax_bytes_by_hand(engine, tp):
    c, full, linear, _, _ = minimax_numbers()
    per_full = 2 * max(1, c["num_key_value_heads"] // tp) * c["head_dim"] * BF16
    state = (c["num_attention_heads"] // tp) * c["head_dim"] * c["head_dim"] * BF16
    e = run(spec(MINIMAX), engine, tensor_parallel_size=tp, max_model_len=4096)
    assert e.kv_bytes_per_token == full * per_full == 10 * 8 * 128 * 2 * 2 // tp
    assert e.state_bytes_per_seq == linear * state
    assert e.kv_cache_bytes == full * 4096 * per_full + linear * state
    if tp == 1:
        assert e.state_bytes_per_seq == 146_800_640  # 70 x 64 x 128 x 128 x 2 = 140 MiB per sequence


def test_minimax_old_answer_not_given():
    """Before: 80 softmax layers (327,680 bytes per token) and no state."""
    _, _, _, per_full, _ = minimax_numbers()
    e = run(spec(MINIMAX), "vllm")
    assert e.kv_bytes_per_token != 80 * per_full == 327680
    assert e.state_bytes_per_seq > 0


def test_minimax_layer_types_form_same_answer():
    """transformers' MiniMaxConfig (`minimax`) names the same layout in layer_types."""
    c = load_config(MINIMAX)
    hf = {k: v for k, v in c.items() if k != "attn_type_list"}
    hf.update(model_type="minimax", architectures=["MiniMaxForCausalLM"],
              layer_types=["full_attention" if t else "linear_attention" for t in c["attn_type_list"]])
    assert spec("hf", hf).layers == spec(MINIMAX).layers


@pytest.mark.parametrize("bad", [[0] * 79, [0] * 79 + [2]])
def test_minimax_bad_attn_type_list(bad):
    with pytest.raises(ModelSourceError) as err:
        spec("x", dict(load_config(MINIMAX), attn_type_list=bad))
    assert err.value.field == "attn_type_list"


# --- Falcon-H1: attention and a Mamba2 state in every layer --------------------------------------------

def falcon_numbers(tp=1):
    c = load_config(FALCON)
    n = c["num_hidden_layers"]
    per_layer = 2 * max(1, c["num_key_value_heads"] // tp) * c["head_dim"] * BF16
    conv_dim = c["mamba_d_ssm"] + 2 * c["mamba_n_groups"] * c["mamba_d_state"]
    conv = conv_dim * (c["mamba_d_conv"] - 1)
    ssm = c["mamba_n_heads"] * c["mamba_d_head"] * c["mamba_d_state"]
    return c, n, per_layer, (conv // tp + ssm // tp) * BF16


def test_falcon_h1_every_layer_has_both():
    c, n, _, _ = falcon_numbers()
    m = spec(FALCON)
    assert len(m.layers) == 2 * n and m.num_decoder_layers == n == 36
    assert (m.count("full"), m.count("state")) == (n, n)
    assert layer_kinds(c, None) == ["parallel"] * n
    assert m.layers[0] == FullAttention(num_kv_heads=2, head_dim_k=64, head_dim_v=64)
    assert m.layers[1] == RecurrentState(family="mamba2", conv_elems=(1536 + 2 * 128) * 3, ssm_elems=24 * 64 * 128,
                                         parallel=True)
    assert [layer.kind for layer in m.layers[:4]] == ["full", "state", "full", "state"]
    assert m.weights.num_params == pytest.approx(0.52e9, rel=0.02)  # Falcon-H1-0.5B


@pytest.mark.parametrize("engine", ["vllm", "generic"])
@pytest.mark.parametrize("tp", [1, 2])
def test_falcon_h1_bytes_by_hand(engine, tp):
    _, n, per_layer, state = falcon_numbers(tp)
    e = run(spec(FALCON), engine, tensor_parallel_size=tp, max_model_len=8192)
    assert e.kv_bytes_per_token == n * per_layer
    assert e.state_bytes_per_seq == n * state
    assert e.kv_cache_bytes == n * 8192 * per_layer + n * state
    if tp == 1:
        assert (e.kv_bytes_per_token, e.state_bytes_per_seq) == (18432, 14_542_848)


def test_falcon_h1_old_answer_not_given():
    """Before: 36 attention layers and no state (the Mamba2 half of every layer was missing)."""
    e = run(spec(FALCON), "vllm", max_model_len=8192)
    assert e.state_bytes_per_seq != 0
    assert e.kv_cache_bytes != 36 * 8192 * 512


def test_falcon_h1_null_d_ssm_is_expand_times_hidden():
    """vLLM: intermediate_size = mamba_expand x hidden_size when mamba_d_ssm is null."""
    c = dict(load_config(FALCON), mamba_d_ssm=None)
    st = spec("x", c).layers[1]
    assert st.conv_elems == (2 * 1024 + 2 * 128) * 3 and st.ssm_elems == 24 * 64 * 128


# --- the command line ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name,state", [(GEMMA, 0), (MINIMAX, 146_800_640), (FALCON, 14_542_848)])
def test_cli_estimate_runs(name, state):
    r = CliRunner().invoke(app, ["estimate", str(DATA / "configs" / name), "--engine", "vllm", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["state_bytes_per_seq"] == state


def test_a_per_layer_intermediate_size_list_is_read():
    """Gemma 3n's config holds `intermediate_size` as one value per layer (transformers Gemma3nTextConfig);
    it is read element by element, not refused, and counts the same as the scalar it repeats."""
    import copy

    cfg = load_config("reconstructed__google__gemma-3n-E4B-it.json")
    scalar = copy.deepcopy(cfg)
    scalar["text_config"]["intermediate_size"] = 16384
    as_list = spec_from_config(cfg, name="g")
    as_int = spec_from_config(scalar, name="g")
    assert isinstance(cfg["text_config"]["intermediate_size"], list)
    assert as_list.weights.total_bytes == as_int.weights.total_bytes
    bad = copy.deepcopy(cfg)
    bad["text_config"]["intermediate_size"] = [16384, "x"]
    from vramdoctor.errors import ModelSourceError

    with pytest.raises(ModelSourceError, match="intermediate_size"):
        spec_from_config(bad, name="g")


def test_gemma_3n_counts_its_per_layer_embeddings():
    """embed_tokens_per_layer: 262144 x (35 x 256) parameters beside the main embedding (transformers
    Gemma3nTextModel), about 2.35B of gemma-3n-E4B's 6.8B."""
    cfg = load_config("reconstructed__google__gemma-3n-E4B-it.json")
    with_table = spec_from_config(cfg, name="g").weights.num_params
    import copy

    without = copy.deepcopy(cfg)
    del without["text_config"]["vocab_size_per_layer_input"]
    assert with_table - spec_from_config(without, name="g").weights.num_params == 262144 * 35 * 256
