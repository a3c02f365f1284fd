"""Local model folders and bare config.json files."""

from __future__ import annotations

from pathlib import Path

from ..errors import ModelSourceError
from ..spec import ModelSpec, WeightsInfo
from .files import INDEX_MAX_BYTES
from .hf_config import load_json, spec_from_config
from .safetensors_header import read_local


def _shards(folder: Path) -> tuple[list[Path], WeightsInfo | None]:
    """The safetensors files that make up the model: those the index's weight_map names, or, without
    an index, every *.safetensors but a `consolidated.safetensors` beside HF-style shards (Mistral
    ships both layouts in one repo). When the index names shards that are absent, its total_size."""
    index = folder / "model.safetensors.index.json"
    if index.exists():
        data = _index(index)
        files = sorted(set(data["weight_map"].values()))
        missing = [f for f in files if not (folder / f).exists()]
        if missing:
            size = data["total_size"]
            if size:
                return [], WeightsInfo(total_bytes=size, exact=True,
                                       source=f"{index.name} metadata.total_size ({len(missing)} shard(s) not downloaded)")
            raise ModelSourceError(f"names {len(missing)} shard(s) that are not in the folder: {', '.join(missing[:3])}.",
                                   path=str(index), field="weight_map", hint="Finish the download.")
        if files:
            return [folder / f for f in files], None
    shards = sorted(folder.glob("*.safetensors"))
    hf_style = [s for s in shards if not s.name.startswith("consolidated")]
    return (hf_style or shards), None


def _index(path: Path) -> dict:
    """A safetensors/PyTorch index file: `weight_map` (tensor name -> shard file name, names without a folder
    part) and `metadata.total_size` (bytes, or None when absent). Raises ModelSourceError on another shape."""
    data = load_json(path, limit=INDEX_MAX_BYTES, what="index file")
    wm = data.get("weight_map") or {}
    if not isinstance(wm, dict) or not all(isinstance(v, str) for v in wm.values()):
        raise ModelSourceError("expected an object of tensor name -> shard file name.", path=str(path),
                               field="weight_map", hint="Re-download the index file.")
    bad = [v for v in wm.values() if not v or "/" in v or "\\" in v or v in (".", "..")]
    if bad:
        raise ModelSourceError(f"names a shard outside the folder: {bad[0]!r}.", path=str(path), field="weight_map",
                               hint="Re-download the index file.")
    meta = data.get("metadata") or {}
    if not isinstance(meta, dict):
        raise ModelSourceError("expected an object.", path=str(path), field="metadata",
                               hint="Re-download the index file.")
    size = meta.get("total_size")
    if isinstance(size, float) and size.is_integer():
        size = int(size)
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
        raise ModelSourceError(f"expected a byte count, found {size!r}.", path=str(path), field="metadata.total_size",
                               hint="Re-download the index file.")
    return {"weight_map": wm, "total_size": size or None}


def exact_weights_from_folder(folder: Path) -> WeightsInfo | None:
    """Exact weight bytes: the sum of the model's shards' safetensors headers; else an index's
    `metadata.total_size`; None when neither exists. Raises ModelSourceError for a shard with no
    tensors, a truncated one, or an index naming shards that are missing without a total_size."""
    shards, from_index = _shards(folder)
    if from_index:
        return from_index
    if shards:
        total = 0
        for shard in shards:
            sizes = read_local(shard)
            if not sizes:
                raise ModelSourceError("holds no tensors.", path=str(shard), hint="Re-download the shard.")
            total += sum(sizes.values())
        return WeightsInfo(total_bytes=total, exact=True,
                           source=f"safetensors headers of {len(shards)} file(s)")
    for name in ("model.safetensors.index.json", "pytorch_model.bin.index.json"):
        index = folder / name
        if index.exists():
            size = _index(index)["total_size"]
            if size:
                return WeightsInfo(total_bytes=size, exact=True, source=f"{name} metadata.total_size")
    return None


def _hf_quant_config(folder: Path) -> dict | None:
    """ModelOpt checkpoints describe quantization in hf_quant_config.json instead of config.json."""
    p = folder / "hf_quant_config.json"
    if not p.exists():
        return None
    q = load_json(p, what="hf_quant_config.json").get("quantization") or {}
    if not isinstance(q, dict):
        raise ModelSourceError(f"expected an object, found {type(q).__name__}.", path=str(p), field="quantization",
                               hint="Re-download hf_quant_config.json.")
    algo = q.get("quant_algo") or ""
    if not isinstance(algo, str):
        raise ModelSourceError(f"expected a name such as FP8, found {algo!r}.", path=str(p),
                               field="quantization.quant_algo", hint="Re-download hf_quant_config.json.")
    algo = algo.lower()
    return {"quant_method": "modelopt", "quant_algo": algo} if algo else None


def read_folder(folder: Path) -> ModelSpec:
    """A local model folder: config.json plus safetensors headers (or an index)."""
    cfg_path = folder / "config.json"
    if not cfg_path.exists():
        ggufs = sorted(folder.glob("*.gguf"))
        if len(ggufs) == 1:
            from .gguf_file import read_gguf

            return read_gguf(ggufs[0])
        raise ModelSourceError("has no config.json.", path=str(folder),
                               hint="Pass the folder that holds the model's config.json, or a .gguf file.")
    cfg = load_json(cfg_path)
    if "quantization_config" not in cfg:
        q = _hf_quant_config(folder)
        if q:
            cfg = {**cfg, "quantization_config": q}
    return spec_from_config(cfg, name=folder.name, path=str(cfg_path),
                            weights=exact_weights_from_folder(folder))


def read_config_file(path: Path) -> ModelSpec:
    """A bare config.json (weights estimated from parameters), named by its folder where it is called config.json
    (`~/models/Qwen2.5-7B/config.json` is Qwen2.5-7B), else by the file's own name."""
    cfg = load_json(path)
    folder = path.resolve().parent.name
    return spec_from_config(cfg, name=folder if path.stem == "config" and folder else path.stem, path=str(path))
