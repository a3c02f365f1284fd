"""exo (exo-explore/exo): a model split into shards over the machines of a cluster, each node running its shard with
tinygrad, MLX or PyTorch, behind a ChatGPT-compatible API.

A node loads its shard when a request first reaches it (each inference engine's `ensure_shard`, called from
`infer_prompt` / `infer_tensor`, downloads and builds the shard's layers: tinygrad prints "ram used: N GB, <weight>"
as it places each weight, then "loaded weights in N ms, N GB loaded at N GB/s"), so a request is no sign the weights
were in place: an out of memory on the first prompt may be the load.

Sources (exo-explore/exo): `exo/inference/tinygrad/inference.py` (`ensure_shard`), `exo/orchestration/standard_node.py`
("Error processing tensor for shard {shard}: {e}", DEBUG>=2 "[{request_id}] result size: ..."),
`exo/api/chatgpt_api.py` (the 500 answer's "Error processing prompt (see logs with DEBUG>=2): {e}"),
`exo/inference/tinygrad/models/llama.py` / `exo/inference/shard.py` ("Excluded model param keys for shard=Shard(...)").
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import rx

#: a node's own line that a request's result came back from its shard (standard_node.py at DEBUG>=2: "[3f2c...]
#: result size: 1, is finished: False, buffered tokens: 12"): the shard was loaded and served it
_RESULT = r"^\[[0-9a-f-]{8,}\] result size: \d+, is finished: (?:True|False)"

LOG = LogWords(
    fingerprint=rx(r"\bexo[/\\](?:orchestration|inference|api|networking|download|topology)[/\\]|"
                   r"\bError processing prompt \(see logs with DEBUG>=2\)|\bError processing tensor for shard\b|"
                   r"\bExcluded model param keys for shard=Shard\(|" + _RESULT),
    # (its shard loaded for the request that reached it: only a result its shard gave is serving)
    loads_on_request=rx(_RESULT, 0),
    # the shard's load, its inference engine's `ensure_shard` (downloading and building the layers) and tinygrad's
    # line per weight as it places it ("ram used: 11.98 GB, layers.27.feed_forward.w2.weight : 85%")
    frames={"WEIGHTS": rx(r"\bin ensure_shard\b|^ram used:\s+[\d.]+ GB, [\w.]+\s*:")},
    # (after its shard's weights, the request that had it loaded goes through it, the KV cache made in its first
    # pass: tinygrad's llama Attention zeroes `cache_kv` for max_context on its first call; no pool made at start)
    after={"weights_done": ("RUNTIME",)},
    milestones=(("weights_done", rx(r"\bloaded weights in [\d.]+ ?ms, [\d.]+ GB loaded at\b")),
                ("requests", rx(_RESULT, 0))),
)

ENGINE = Engine(
    name="exo", label="exo", log=LOG, aliases=("exo-explore",),
    flags={"max_model_len": "a shorter prompt or max_tokens ({n})",
           "tensor_parallel_size": "more nodes, or nodes with more memory, so each shard is smaller",
           "quantization": "a quantized model (an MLX or GGUF 4-bit build where the node's engine takes one)",
           "quantization_4bit": "a 4-bit build of the model"},
)
