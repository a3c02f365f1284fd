"""Pipeline parallelism: which layers each stage holds, and the stage that decides the KV pool.
Pure: a ModelSpec in, one ModelSpec per stage out.

Sources: vLLM `distributed/utils.py` `get_pp_indices` (n // pp layers each; the remainder goes one
each to the stages before the last, from the second-last backwards, since the last holds the norm and
LM head), SGLang `srt/distributed/utils.py` `get_pp_indices` (the remainder to the last stages); the
first stage holds the input embedding and the last the LM head (`is_first_rank` / `is_last_rank` in
the model files; a tied head loads the embedding again on the last stage). The engine sizes one pool
for all stages from the smallest (vLLM `get_kv_cache_configs`: the minimum number of blocks over the
workers; SGLang: the minimum over ranks).
"""

from __future__ import annotations

from dataclasses import replace

from .spec import LayerSpec, ModelSpec


def decoder_layers(model: ModelSpec) -> list[tuple[LayerSpec, ...]]:
    """The model's entries grouped by decoder layer: a parallel state (Falcon-H1) joins the attention entry
    before it, so a split never separates them."""
    groups: list[list[LayerSpec]] = []
    for layer in model.layers:
        if getattr(layer, "parallel", False) and groups:
            groups[-1].append(layer)
        else:
            groups.append([layer])
    return [tuple(g) for g in groups]


def with_layers(model: ModelSpec, groups: list[tuple[LayerSpec, ...]]) -> ModelSpec:
    """`model` holding only the decoder layers in `groups`."""
    return replace(model, layers=tuple(entry for g in groups for entry in g))


def partitions(n_layers: int, pp: int, engine: str) -> list[int]:
    """Layers per stage, in order."""
    base, rem = divmod(n_layers, pp)
    parts = [base] * pp
    if engine == "sglang":
        for i in range(1, rem + 1):
            parts[-i] += 1
    else:
        for i in range(2, rem + 2):
            parts[-i] += 1
    return parts


def tied_head(model: ModelSpec) -> bool:
    """Whether the LM head is the input embedding itself: a GGUF without `output.weight`, or a config whose
    embedding parameters are one table."""
    w = model.weights
    if w.tensors:
        return not any(t[0] == "output.weight" for t in w.tensors)
    single = (model.vocab_size or 0) * (model.hidden_size or 0)
    return bool(single) and w.embedding_params == single


def weight_split(model: ModelSpec) -> tuple[list[int], int, int]:
    """(bytes per layer, input embedding bytes, LM head bytes): from the source's placement where known
    (GGUF tensor infos), else the embedding tables at the weights' mean width per parameter and the rest
    spread evenly over the layers. A tied head is counted again as the head (engines load it on the
    device of the output layer)."""
    w, n = model.weights, model.num_decoder_layers
    if len(w.layer_bytes) == n and w.input_bytes is not None and w.output_bytes is not None:
        return list(w.layer_bytes), w.input_bytes, w.output_bytes
    per_param = w.total_bytes / w.num_params if w.num_params else 2.0
    single_params = (model.vocab_size or 0) * (model.hidden_size or 0)
    tables = min(w.embedding_params if w.embedding_params is not None else 2 * single_params, 2 * single_params)
    single = int(single_params * per_param)
    rest = max(0, w.total_bytes - int(tables * per_param))
    return [rest // n] * n, single, single


def stages(model: ModelSpec, pp: int, engine: str) -> list[ModelSpec]:
    """One ModelSpec per pipeline stage: its layers, and its weights (its layers, plus the input embedding
    on the first stage and the LM head on the last)."""
    if pp <= 1:
        return [model]
    layers, inp, out = weight_split(model)
    groups = decoder_layers(model)
    parts = partitions(len(groups), pp, engine)
    result, start = [], 0
    for k, count in enumerate(parts):
        end = start + count
        total = sum(layers[start:end]) + (inp if k == 0 else 0) + (out if k == pp - 1 else 0)
        w = replace(model.weights, total_bytes=total, layer_bytes=(), input_bytes=None, output_bytes=None,
                    source=f"{model.weights.source}; pipeline stage {k + 1} of {pp}: layers {start}-{end - 1}"
                    + (" and the input embedding" if k == 0 else "") + (" and the LM head" if k == pp - 1 else ""))
        layout = model.layout and model.layout.stage(start, end, embed=k == 0, head=k == pp - 1)
        result.append(replace(with_layers(model, groups[start:end]), weights=w, layout=layout))
        start = end
    return result
