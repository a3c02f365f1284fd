"""Meta's reference Llama code (meta-llama/llama, codellama, llama3: `torchrun example_chat_completion.py ...`), an
offline script, not a server: it builds the model, then generates for the prompts in the example.

Sources (meta-llama/llama, llama/generation.py and llama/model.py; codellama the same): `Llama.build` sets up
fairscale's model parallelism (its "> initializing model parallel with size N", "> initializing ddp with size 1"),
loads the checkpoint and makes `model = Transformer(model_args)`, whose layers allocate their weights
(fairscale's `_initialize_affine_weight`) and whose `Attention.__init__` allocates the whole KV cache up front
(`self.cache_k = torch.zeros((args.max_batch_size, args.max_seq_len, n_local_kv_heads, head_dim)).cuda()`: one
max_seq_len for every one of max_batch_size sequences), then prints "Loaded in X seconds"; after it the example calls
`text_completion` / `chat_completion`, which run `generate`. The script's options: --max_seq_len, --max_batch_size;
the model-parallel size is the checkpoint's shard count (torchrun --nproc_per_node), not a setting to choose.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import rx

LOG = LogWords(
    fingerprint=rx(r"^> initializing model parallel with size \d+|\bexample_(?:chat|text)_completion\.py\b|"
                   r"\bllama/generation\.py\b"),
    frames={
        # the KV cache, allocated whole as the attention layers are built
        "KV": rx(r"\bself\.cache_[kv] = torch\.zeros\("),
        # (Llama.build, its Transformer(model_args), a layer's parameters made as it is built: fairscale's
        # "self.weight = Parameter(torch.Tensor(...))"; code lines are read without what they assign to)
        "WEIGHTS": rx(r"\bTransformer\(model_args\)|\bLlama\.build\(|\bload_state_dict\(checkpoint|"
                      r"llama/generation\.py\W+line \d+, in build\b|\bParameter\(torch\.(?:Tensor|empty)\("),
        "RUNTIME": rx(r"\bin (?:text_completion|chat_completion)\b|\bgenerator\.(?:text_completion|chat_completion)\(|"
                      r"llama/generation\.py\W+line \d+, in generate\b"),
    },
    milestones=(
        # the model built and its KV cache allocated: what runs next is generation
        ("ready", rx(r"^Loaded in \d+(?:\.\d+)? seconds\s*$", 0)),
    ),
)

ENGINE = Engine(
    name="llama_reference", label="Meta's reference Llama code", log=LOG,
    aliases=("llama-reference", "reference-llama", "meta-llama"),
    flags={"max_model_len": "--max_seq_len {n}", "max_num_seqs": "--max_batch_size {n}"},
)
