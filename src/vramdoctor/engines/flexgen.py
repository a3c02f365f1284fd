"""FlexGen / FlexLLMGen (FMInference/FlexLLMGen): throughput-oriented generation that offloads weights, the KV cache
and activations across the GPU, CPU RAM and disk by a policy (`--percent`), for one batch job per run.

A run prints its sizes, then its steps by name (flexgen/flex_opt.py `run_flexgen`): "model size: 12.386 GB, cache
size: 1.062 GB, hidden size (prefill): 0.017 GB", then "warmup - init weights" while `OptLM` makes the weights on
each device (copy workers pin host buffers, `torch.empty(..., pin_memory=True)`, in `pytorch_backend.py`
`copy_worker_func`), then "warmup - generate" (a one-token warm-up generation), then "benchmark - generate" (the
job). Its flags: `--percent` (weights, cache and activations on GPU / CPU, the rest on disk), `--gpu-batch-size`,
`--num-gpu-batches`, `--pin-weight`, `--compress-weight`, `--compress-cache`.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import rx

LOG = LogWords(
    fingerprint=rx(r"\bflex(?:llm)?gen[/\\.](?:flex_opt|flex_llama|pytorch_backend|opt_config)\b|"
                   r"\bmodel size: [\d.]+ GB, cache size: [\d.]+ GB, hidden size \(prefill\): [\d.]+ GB|"
                   r"^(?:warmup - (?:init weights|generate)|benchmark - generate)\s*$"),
    # its steps by name: the weights made on their devices, the warm-up generation, the job
    frames={"WEIGHTS": rx(r"^(?:warmup - )?init weights\s*$|\bin (?:init_all_weights|init_weight|load_weight)\b"),
            "WARMUP": rx(r"^warmup - generate\s*$"),
            "RUNTIME": rx(r"^benchmark - generate\s*$|\bin generation_loop\w*\b")},
    milestones=(("weights_done", rx(r"^warmup - generate\s*$")),
                ("warmup_done", rx(r"^benchmark - generate\s*$"))),
    after={"weights_done": ("WARMUP",), "warmup_done": ("RUNTIME",)},
)

ENGINE = Engine(
    name="flexgen", label="FlexGen", log=LOG, aliases=("flexllmgen",),
    flags={"max_num_seqs": "--gpu-batch-size {n}", "kv_cache_dtype": "--compress-cache",
           "quantization": "--compress-weight", "quantization_4bit": "--compress-weight",
           "max_model_len": "a shorter --prompt-len or --gen-len ({n})"},
)
