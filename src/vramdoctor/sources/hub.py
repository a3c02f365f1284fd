"""Hugging Face Hub ids: config.json plus safetensors metadata, never the weights.

The only module that talks to the Hub, through `huggingface_hub` (which honours
HF_HOME, the cache and HF_HUB_OFFLINE). Safetensors headers come from
`get_safetensors_metadata` (HTTP range requests of the header only).
"""

from __future__ import annotations

from ..errors import HubError
from ..spec import ModelSpec, WeightsInfo
from .hf_config import load_json, spec_from_config


def _weights(repo_id: str, revision: str | None) -> WeightsInfo | None:
    from huggingface_hub import get_safetensors_metadata

    try:
        meta = get_safetensors_metadata(repo_id, revision=revision)
    except Exception:  # noqa: BLE001 - no safetensors, offline, gated: fall back to an estimate
        return None
    total = 0
    for fmeta in meta.files_metadata.values():
        for t in fmeta.tensors.values():
            begin, end = t.data_offsets
            total += end - begin
    return WeightsInfo(total_bytes=total, exact=True,
                       source=f"safetensors headers of {len(meta.files_metadata)} file(s) on the Hub")


def read_hub(repo_id: str, revision: str | None = None) -> ModelSpec:
    """Fetch `config.json` (from the cache when there) and the safetensors headers of `repo_id`.

    Raises HubError when the repo is unknown, gated, or not cached while offline.
    """
    from huggingface_hub import constants, hf_hub_download

    try:
        cfg_path = hf_hub_download(repo_id, "config.json", revision=revision)
    except Exception as e:  # noqa: BLE001 - huggingface_hub raises many kinds; name the cause
        kind = type(e).__name__
        if constants.HF_HUB_OFFLINE or "Offline" in kind or "LocalEntryNotFound" in kind:
            raise HubError(
                f"'{repo_id}' is not in the Hugging Face cache and the Hub cannot be reached ({kind}).",
                repo_id=repo_id,
                hint="Go online once (unset HF_HUB_OFFLINE) to cache its config.json, or pass a local folder, "
                "config.json or .gguf file. `vramdoctor estimate --list-models` shows the models that work offline.",
            ) from None
        if "RepositoryNotFound" in kind or "RevisionNotFound" in kind or "EntryNotFound" in kind:
            raise HubError(f"'{repo_id}' has no config.json on the Hub ({kind}).", repo_id=repo_id,
                           hint="Check the spelling of the repo id, or log in with `hf auth login` for private repos.") from None
        if "Gated" in kind:
            raise HubError(f"'{repo_id}' is gated ({kind}).", repo_id=repo_id,
                           hint="Accept its licence on huggingface.co and log in with `hf auth login`.") from None
        raise HubError(f"'{repo_id}' could not be fetched from the Hub ({kind}: {e}).", repo_id=repo_id,
                       hint="Check the network, or pass a local folder instead.") from None
    from pathlib import Path

    cfg = load_json(Path(cfg_path))
    weights = None if constants.HF_HUB_OFFLINE else _weights(repo_id, revision)
    return spec_from_config(cfg, name=repo_id, path=f"hf://{repo_id}/config.json", weights=weights)
