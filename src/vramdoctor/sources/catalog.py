"""The bundled offline catalog: real config.json files of popular models (src/vramdoctor/catalog/models.json,
built by scripts/build_catalog.py from public mirrors), with exact checkpoint bytes where known."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from ..spec import ModelSpec, WeightsInfo
from .hf_config import spec_from_config


@lru_cache(maxsize=1)
def _entries() -> dict[str, dict[str, Any]]:
    from importlib import resources  # (here: it imports tempfile and shutil, which a local model never needs)

    text = resources.files("vramdoctor").joinpath("catalog/models.json").read_text(encoding="utf-8")
    return json.loads(text)["models"]


def model_ids() -> list[str]:
    """Every model id the catalog holds, sorted."""
    return sorted(_entries())


def find(model_id: str) -> str | None:
    """The catalog's spelling of `model_id` (case-insensitive), or None."""
    low = model_id.strip().lower()
    for key in _entries():
        if key.lower() == low:
            return key
    return None


#: a model's size in its name ("14B", "1.5B", "8x7B", "350M")
_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?(?:x\d+)?[BbMm])(?![a-z])")


def _sizes(name: str) -> set[str]:
    """The sizes a model's name gives (`_SIZE`), lower-cased."""
    return {m.lower() for m in _SIZE.findall(name)}


def nearest(model_id: str, n: int = 3) -> list[str]:
    """Catalog ids close to a mistyped `model_id` (by the whole id, or by the name after the owner), those of the same
    size in their name first ("Qwen/Qwen2.5-14B-Instruct" finds "Qwen/Qwen2.5-14B" before "Qwen/Qwen2.5-1.5B-Instruct")."""
    import difflib

    ids = model_ids()
    low = {k.lower(): k for k in ids}
    hits = difflib.get_close_matches(model_id.strip().lower(), low, n=n, cutoff=0.75)
    by_name = {k.split("/")[-1].lower(): k for k in ids}
    name = model_id.strip().split("/")[-1].lower()
    hits += [by_name[h] if h in by_name else h for h in difflib.get_close_matches(name, by_name, n=n, cutoff=0.8)]
    sizes = _sizes(name)
    if sizes:  # (and the ids of the same size and a close name, which difflib ranks below a one-letter difference)
        hits += [by_name[h] for h in difflib.get_close_matches(name, by_name, n=4 * n, cutoff=0.6)
                 if _sizes(h) == sizes]
    out: list[str] = []
    for h in hits:
        k = low.get(h, h)
        if k in ids and k not in out:
            out.append(k)
    same = [k for k in out if sizes and _sizes(k.split("/")[-1]) == sizes]
    return (same + [k for k in out if k not in same])[:n]


def did_you_mean(model_id: str) -> str:
    """' Did you mean A or B (in the offline catalog)?' for a mistyped id, or ''."""
    near = nearest(model_id)
    return f" Did you mean {' or '.join(near)} (in the offline catalog)?" if near else ""


def read_catalog(model_id: str) -> ModelSpec:
    """The ModelSpec of a catalog model. `model_id` must be a key `find` returned."""
    entry = _entries()[model_id]
    cfg = dict(entry["config"])
    hq = entry.get("hf_quant_config") or {}
    algo = str((hq.get("quantization") or {}).get("quant_algo", "")).lower()
    if algo and "quantization_config" not in cfg:
        cfg["quantization_config"] = {"quant_method": "modelopt", "quant_algo": algo}
    weights = None
    if entry.get("total_size_bytes"):
        weights = WeightsInfo(total_bytes=int(entry["total_size_bytes"]), exact=True,
                              source=f"catalog: {entry.get('total_size_source') or 'checkpoint size'}")
    return spec_from_config(cfg, name=model_id, path=f"catalog:{model_id}", weights=weights)
