"""llama-swap (mostlygeek/llama-swap): a proxy that starts an upstream server per model (most often llama-server) from
the `cmd:` of its config.yaml, waits on the upstream's health check, and stops it on a swap or its `ttl`. Its own lines
say what became of the upstream process; the upstream's output, mixed into the same log, says why.

Sources (mostlygeek/llama-swap, proxy/process.go): `[INFO] <model> Health check passed on http://...`, `swapState()
State transitioned from starting to ready`, the upstream's end as Go's os/exec reports it, `ExitError >> exit status 1,
exit code: 1` and `cmd.Wait() returned error: signal: terminated` (or `killed`: llama-swap's own stop sends SIGTERM, then
SIGKILL once its graceful timeout, cmd.WaitDelay, has passed), and `process exited but not StateStopping, current state:
starting` (it ended while llama-swap had not asked it to stop).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .llamacpp import ENGINE as _LLAMACPP
from .words import msg, rx

LOG = LogWords(
    fingerprint=rx(r"swapState\(\) State transitioned|process exited but not StateStopping|\bllama-swap\b|"
                   r"<[\w.:/-]{1,80}> (?:Health check (?:passed|error)|cmd\.Wait\(\) returned|ExitError >>)"),
    # (the upstream's end by a signal, "cmd.Wait() returned error: signal: terminated" or "signal: killed", is no
    # failure by itself: llama-swap stops it so on every swap and ttl, SIGTERM then SIGKILL after its graceful timeout
    # (cmd.WaitDelay); what says it ended on its own is the state llama-swap was in, not stopping)
    messages=(
        # the upstream ended with an exit status of its own, or while llama-swap had not asked it to stop (starting or
        # ready): its cause in the upstream's own lines, the OOM killer's among them
        msg(r"\bExitError >> exit status (?!0\b)\d+|process exited but not StateStopping, current state: (?:starting|ready)",
            "wrapper"),
    ),
    milestones=(("ready", rx(r"Health check passed on https?://|State transitioned from starting to ready")),),
)

ENGINE = Engine(name="llama-swap", label="llama-swap", log=LOG, wraps="llamacpp", aliases=("llamaswap",),
                flags=dict(_LLAMACPP.flags))
