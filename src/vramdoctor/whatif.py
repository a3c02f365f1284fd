"""`--weights FORMAT`: the model's weights in another format, the question llama.cpp and Ollama users ask
("what if I take the Q4_K_M file instead of Q8_0"). Pure: a ModelSpec in, one out.

llama.cpp file types (Q4_K_M, Q8_0, IQ4_XS, F16, ...) give each tensor the type llama-quantize would
(`gguf_formats`, from llama.cpp's `llama-quant.cpp`), over the GGUF file's own tensors when the model
came from one, else over the tensors a plain llama-style decoder of the config's shape has. The
formats of safetensors checkpoints (awq, gptq, fp8, bitsandbytes, nvfp4) go to `quantize`.

A tensor that is already quantized (a Q8_0 file's, gpt-oss's MXFP4 experts) is dequantized and quantized again
only with `--allow-requantize`: without it llama-quantize stops at the first one ("requantizing from type mxfp4
is disabled", `llama-quant.cpp` `llama_model_quantize_impl`: `ggml_is_quantized(type) && !allow_requantize`,
master of 2026 and the gpt-oss commit fd1234cb4). The types planned here take no account of the source type,
so they are the `--allow-requantize` result, and the estimate says so. No rule keeps MXFP4 for a target other
than MXFP4_MOE: the experts stay MXFP4 only with an override (`--tensor-type exps=mxfp4`), not modelled.
"""

from __future__ import annotations

from dataclasses import replace

from .errors import UsageError
from .gguf_formats import decoder_tensors, ftype_names, ggml_type, tensor_types_for_ftype
from .quantize import METHODS, with_quantization
from .sources.gguf_file import place
from .spec import ModelSpec


def format_names() -> list[str]:
    """Every FORMAT `--weights` takes: llama.cpp file types, then checkpoint methods."""
    return [n.lower() for n in ftype_names()] + list(METHODS)


def _config_tensors(model: ModelSpec) -> list[tuple[str, tuple[int, ...]]]:
    kinds = {layer.kind for layer in model.layers}
    if not kinds <= {"full", "sliding"} or not (model.hidden_size and model.num_attention_heads and model.vocab_size):
        raise UsageError("needs the model's GGUF file for this layout (latent attention, recurrent or shared "
                         "layers), or a config with hidden_size, num_attention_heads and vocab_size.",
                         option="--weights", hint="Pass the .gguf file you have; its own tensors are requantized.")
    first = model.layers[0]
    single = model.vocab_size * model.hidden_size
    tied = model.weights.embedding_params == single
    return decoder_tensors(
        n_layers=model.num_decoder_layers, hidden=model.hidden_size, n_heads=model.num_attention_heads,
        n_kv_heads=first.num_kv_heads, head_dim=first.head_dim_k,  # type: ignore[union-attr]
        intermediate=model.intermediate_size or 4 * model.hidden_size, vocab=model.vocab_size, tied=tied,
        n_experts=model.num_experts or 0, expert_intermediate=model.moe_intermediate_size)


def planned_types(model: ModelSpec, fmt: str) -> set[str]:
    """The ggml types llama-quantize would give the model's tensors for the file type `fmt` (see `with_weights_format`);
    empty for a checkpoint method or a format not modelled."""
    key = fmt.strip().lower()
    if key in METHODS or key.upper() not in {n.upper() for n in ftype_names()}:
        return set()
    given = model.weights.tensors
    tensors = list(given) if given else _config_tensors(model)
    return {p.type.name for p in tensor_types_for_ftype(tensors, key, arch=model.architecture.lower() if given else "llama")}


def with_weights_format(model: ModelSpec, fmt: str | None) -> ModelSpec:
    """The model with its weights in `fmt` (None: unchanged). Raises UsageError for an unknown format or a
    model whose tensors cannot be known."""
    if not fmt:
        return model
    key = fmt.strip().lower()
    if key in METHODS:
        return with_quantization(model, key)
    if key.upper() not in {n.upper() for n in ftype_names()}:
        raise UsageError(f"'{fmt}' is not a format modelled here.", option="--weights",
                         hint="llama.cpp: " + ", ".join(n.lower() for n in ftype_names()) + "; checkpoints: "
                              + ", ".join(METHODS) + ".")
    given = model.weights.tensors
    tensors = list(given) if given else _config_tensors(model)
    arch = model.architecture.lower() if given else "llama"
    planned = tensor_types_for_ftype(tensors, key, arch=arch)
    sizes = [(p.name, -(-p.nbytes // 32) * 32) for p in planned]  # padded to GGUF's default alignment
    layers, inp, out = place(sizes)
    n = model.num_decoder_layers
    total = sum(size for _, size in sizes)
    where = "the GGUF file's own tensors" if given else "the tensors of a llama-style decoder of the config's shape"
    w = replace(model.weights, total_bytes=total, exact=False, tensors=(),
                layer_bytes=tuple(layers.get(i, 0) for i in range(n)) if set(layers) <= set(range(n)) else (),
                input_bytes=inp, output_bytes=out,
                source=f"what-if: {key.upper()} by llama.cpp's rules (llama-quant.cpp) over {where}")
    note = _requantize_note(model, given, planned, key)
    return replace(model, weights=w, quantization=key.upper(), layout=None,
                   notes=model.notes + ((note,) if note else ()))


def _requantize_note(model: ModelSpec, given, planned, key: str) -> str | None:
    """What llama-quantize needs for this what-if when tensors are already quantized (see the module docstring):
    those of a GGUF's own (types with blocks), or a config's MXFP4 experts (gpt-oss: convert_hf_to_gguf.py keeps
    them MXFP4 in the GGUF it writes). None when nothing quantized changes type."""
    if given:
        source = {t[0]: ggml_type(t[2]).name for t in given if len(t) > 2 and ggml_type(t[2]).block_elems > 1}
    elif (model.quantization or "").lower() == "mxfp4":
        source = {p.name: "mxfp4" for p in planned if "_exps." in p.name}
    else:
        source = {}
    changed = [p for p in planned if p.name in source and p.type.name != source[p.name]]
    if not changed:
        return None
    froms = sorted({source[p.name] for p in changed})  # (`planned` is in llama-quantize's order)
    tos = sorted({p.type.name for p in changed})
    where = "" if given else " (in the GGUF convert_hf_to_gguf.py writes from this checkpoint)"
    note = (f"{len(changed)} tensors are {' / '.join(froms)} already{where}: llama-quantize {key.upper()} refuses "
            f"to requantize them ('requantizing from type {source[changed[0].name]} is disabled', at the first in its "
            f"order) unless given --allow-requantize; "
            f"these figures are that result ({', '.join(tos)})")
    if "mxfp4" in froms:
        note += "; the experts stay MXFP4 only with an override such as --tensor-type exps=mxfp4 (not modelled)"
    return note
