"""Model sources. `load_model` takes anything the CLI accepts and returns one `ModelSpec`."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import ModelSourceError
from ..spec import ModelSpec
from . import catalog

_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")


def _magic(path: Path) -> bytes:
    """The first 4 bytes of a regular file (b"" when it cannot be read)."""
    from .files import open_regular

    try:
        f, _ = open_regular(path)
        with f:
            return f.read(4)
    except (OSError, ModelSourceError):
        return b""


def load_model(arg: str, *, revision: str | None = None) -> ModelSpec:
    """Resolve `arg`, in this order: a local folder, a .gguf file, a .json config, a catalog id,
    a Hugging Face Hub id. Raises ModelSourceError / HubError with the fix."""
    path = Path(arg).expanduser()
    if path.is_dir():
        from .local import read_folder

        return read_folder(path)
    if path.is_file():
        if path.suffix.lower() == ".gguf" or _magic(path) == b"GGUF":  # Ollama blobs have no extension
            from .gguf_file import read_gguf

            return read_gguf(path)
        from .local import read_config_file

        return read_config_file(path)
    if path.exists():  # a pipe, a device or a socket: refused with what it is
        from .files import open_regular

        open_regular(path, what="config.json, folder or .gguf file")
    key = catalog.find(arg)
    if key:
        return catalog.read_catalog(key)
    if _REPO_ID.match(arg) and not arg.endswith((".json", ".gguf")):
        from .hub import read_hub

        return read_hub(arg, revision=revision, local_parent_exists=path.parent.is_dir() and str(path.parent) != ".")
    raise ModelSourceError(
        "is neither an existing file or folder, a catalog model, nor a Hub id (owner/name)."
        + catalog.did_you_mean(arg),
        path=arg,
        hint="Check the path, or run `vramdoctor estimate --list-models` for the models bundled offline.",
    )
