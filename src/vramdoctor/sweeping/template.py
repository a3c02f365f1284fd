"""Server command templates: `{name}` placeholders filled per run into an argument list (never a shell string).

A template is a user's `--command "llama-server -m {model} -c {n_ctx} --port {port}"` (split as a POSIX shell
splits it) or an engine's `Preset`. Every placeholder must have a value: an unknown one is refused before any
server starts, naming it. Pure.
"""

from __future__ import annotations

import re
import shlex

from ..engines.interface import Preset
from ..errors import UsageError

_PH = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

#: placeholders vramdoctor fills itself
BUILTIN = ("model", "port", "max_model_len", "n_ctx", "max_num_seqs", "server_bin", "server_python", "device")


def placeholders(args: list[str] | tuple[str, ...]) -> set[str]:
    """The names of every {placeholder} in `args`."""
    return {m.group(1) for a in args for m in _PH.finditer(a)}


def split(template: str) -> list[str]:
    """A user's command template as an argument list. Raises UsageError for unbalanced quotes or an empty one."""
    try:
        args = shlex.split(template)
    except ValueError as e:
        raise UsageError(f"cannot split the command ({e}).", option="--command",
                         hint="Check its quotes: it is split as a POSIX shell splits it, never run through one.") from None
    if not args:
        raise UsageError("the command is empty.", option="--command")
    return args


def fill(args: list[str] | tuple[str, ...], values: dict[str, str]) -> list[str]:
    """`args` with every {name} replaced by values[name]. Raises UsageError naming a placeholder without a value."""
    missing = sorted(placeholders(args) - {k for k, v in values.items() if v is not None})
    if missing:
        raise UsageError(f"the command has placeholders with no value: {', '.join('{' + m + '}' for m in missing)}.",
                         option="--command",
                         hint="Give each a value with --set NAME=VALUE, or remove it from the command.")
    return [_PH.sub(lambda m: str(values[m.group(1)]), a) for a in args]


def from_preset(preset: Preset, settings: dict[str, str], help_text: str = "") -> list[str]:
    """The argument template of `preset` for these settings: its command, the optional arguments of each setting
    that has a value, and the flags its server's --help lists (`needs_help`)."""
    args = list(preset.command)
    for key, extra in preset.optional.items():
        if settings.get(key) not in (None, ""):
            args += list(extra)
    for flag in preset.needs_help:
        if help_text and re.search(r"(?<![\w-])" + re.escape(flag[0]) + r"(?![\w-])", help_text):
            args += list(flag)
    return args


def quoted(args: list[str]) -> str:
    """The argument list as one line a shell runs as the same arguments."""
    return shlex.join(args)
