"""Hugging Face Hub ids: config.json plus safetensors metadata, never the weights.

The only module that talks to the Hub, through `huggingface_hub` (which honours HF_HOME, the
cache, HF_TOKEN, HF_ENDPOINT and HF_HUB_OFFLINE). Safetensors headers come from
`get_safetensors_metadata` (HTTP range requests of the header only). Before asking, one TCP
connection (3 s timeout) tells whether the Hub is reachable at all; if not, only the cache is
used, so an unreachable Hub costs seconds, not huggingface_hub's minute of retries.
"""

from __future__ import annotations

import logging
import socket
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import urlparse

from ..errors import HubError
from ..spec import ModelSpec, WeightsInfo
from .hf_config import load_json, spec_from_config

CONNECT_TIMEOUT_S = 3.0


def reachable(endpoint: str) -> bool:
    """True when a TCP connection to the Hub endpoint's host opens within CONNECT_TIMEOUT_S."""
    u = urlparse(endpoint)
    port = u.port or (443 if u.scheme == "https" else 80)
    try:
        with socket.create_connection((u.hostname or "", port), timeout=CONNECT_TIMEOUT_S):
            return True
    except OSError:
        return False


@contextmanager
def _quiet() -> Iterator[None]:
    """huggingface_hub logs every retry as a warning; the error paragraph says what matters."""
    log = logging.getLogger("huggingface_hub")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def _weights(repo_id: str, revision: str | None) -> WeightsInfo | None:
    from huggingface_hub import get_safetensors_metadata

    try:
        meta = get_safetensors_metadata(repo_id, revision=revision)
    except Exception:  # noqa: BLE001 - no safetensors, gated: fall back to an estimate
        return None
    total = sum(end - begin for f in meta.files_metadata.values() for begin, end in
                (t.data_offsets for t in f.tensors.values()))
    return WeightsInfo(total_bytes=total, exact=True,
                       source=f"safetensors headers of {len(meta.files_metadata)} file(s) on the Hub")


def read_hub(repo_id: str, revision: str | None = None, *, local_parent_exists: bool = False) -> ModelSpec:
    """Fetch `config.json` (from the cache when there) and the safetensors headers of `repo_id`.

    Raises HubError when the repo is unknown, gated, or not cached while the Hub is unreachable.
    """
    from huggingface_hub import constants, hf_hub_download

    from .catalog import did_you_mean

    online = not constants.HF_HUB_OFFLINE and reachable(constants.ENDPOINT)
    also = f" There is no local folder or file named '{repo_id}' either." if local_parent_exists else ""
    also += did_you_mean(repo_id)
    try:
        with _quiet():
            cfg_path = hf_hub_download(repo_id, "config.json", revision=revision, local_files_only=not online)
    except Exception as e:  # noqa: BLE001 - huggingface_hub raises many kinds; name the cause
        kind = type(e).__name__
        if not online:
            why = "HF_HUB_OFFLINE is set" if constants.HF_HUB_OFFLINE else f"{constants.ENDPOINT} cannot be reached"
            raise HubError(
                f"'{repo_id}' is not in the Hugging Face cache and {why}.{also}", repo_id=repo_id,
                hint="Fetch it once with network access, or pass a local folder, config.json or .gguf file. "
                "`vramdoctor estimate --list-models` lists the models that work offline.") from None
        if "RepositoryNotFound" in kind or "RevisionNotFound" in kind or "EntryNotFound" in kind:
            raise HubError(f"'{repo_id}' has no config.json on the Hub ({kind}).{also}", repo_id=repo_id,
                           hint="Check the spelling of the repo id, or log in with `hf auth login` for private repos.") from None
        if "Gated" in kind:
            raise HubError(f"'{repo_id}' is gated ({kind}).", repo_id=repo_id,
                           hint="Accept its licence on huggingface.co and log in with `hf auth login`.") from None
        raise HubError(f"'{repo_id}' could not be fetched from the Hub ({kind}: {e}).{also}", repo_id=repo_id,
                       hint="Check the network, or pass a local folder instead.") from None
    cfg = load_json(Path(cfg_path))
    with _quiet():
        weights = _weights(repo_id, revision) if online else None
    return spec_from_config(cfg, name=repo_id, path=f"hf://{repo_id}/config.json", weights=weights)
