"""The errors vramdoctor raises: one base class, a few topical subclasses.

Each error carries what the user needs to fix the input (the path, the field)
and a `hint`. The CLI turns them into a one-paragraph message and exit code 2;
nothing here prints.
"""

from __future__ import annotations


class VramdoctorError(Exception):
    """Base class. `message` says what is wrong, `hint` what to do about it."""

    exit_code = 2

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if not self.hint:
            return self.message
        stop = "" if self.message.rstrip().endswith((".", "!", "?", ":")) else "."
        return f"{self.message.rstrip()}{stop} {self.hint}"


class ModelSourceError(VramdoctorError, ValueError):
    """A model description (config.json, safetensors header, GGUF) is unusable.

    `path` names the file, `field` the key that is missing or malformed.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        field: str | None = None,
        hint: str | None = None,
    ) -> None:
        where = f"{path}: " if path else ""
        what = f"field '{field}': " if field else ""
        super().__init__(f"{where}{what}{message}", hint=hint)
        self.path = path
        self.field = field


class GGUFFormatError(ModelSourceError):
    """A GGUF file breaks its format (ggml docs/gguf.md) or is cut short.

    `field` names the key or tensor being read, `offset` the byte of the file where reading stopped.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None,
        offset: int,
        field: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, path=path, field=field, hint=hint)
        self.offset = offset


class UnknownArchitectureError(ModelSourceError):
    """The layer layout cannot be determined; `missing` lists the fields needed."""

    def __init__(self, message: str, *, path: str | None, missing: list[str]) -> None:
        super().__init__(
            f"{message} Missing: {', '.join(missing)}.",
            path=path,
            hint="Add these fields to config.json, or pass a GGUF file or a Hub id instead.",
        )
        self.missing = missing


class HubError(VramdoctorError, OSError):
    """The Hugging Face Hub could not be reached or does not have the repo."""

    def __init__(self, message: str, *, repo_id: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.repo_id = repo_id


class UsageError(VramdoctorError, ValueError):
    """A command-line value is out of range or malformed (`option` names it)."""

    def __init__(self, message: str, *, option: str, hint: str | None = None) -> None:
        super().__init__(f"{option}: {message}", hint=hint)
        self.option = option


class SourceUnavailable(VramdoctorError, OSError):
    """A memory source cannot be read at all (`source` names it: nvml, nvidia-smi, amdsmi, psutil, dcgm,
    torch); `reason` says why, in the words of the library or tool that failed."""

    def __init__(self, source: str, reason: str, *, hint: str | None = None) -> None:
        super().__init__(f"memory source '{source}' is unavailable: {reason}", hint=hint)
        self.source = source
        self.reason = reason


class ServerError(VramdoctorError, OSError):
    """An inference server could not be reached, did not become ready, died, or answered something unusable.
    `url` is the server's base URL; `phase` what vramdoctor was doing (waiting, request, reading)."""

    def __init__(self, message: str, *, url: str, phase: str = "", hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.url = url
        self.phase = phase


class LaunchError(VramdoctorError, OSError):
    """A server command could not be started (`command` is its argument list)."""

    def __init__(self, message: str, *, command: list[str], hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.command = command
