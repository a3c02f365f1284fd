"""llama-swap (mostlygeek/llama-swap): a proxy that starts an upstream server per model (most often llama-server) from
the `cmd:` of its config.yaml, waits on the upstream's health check, and stops it on a swap or its `ttl`. Its own lines
say what became of the upstream process; the upstream's output, mixed into the same log, says why.

Sources (mostlygeek/llama-swap, proxy/process.go): `[INFO] <model> Health check passed on http://...`, `swapState()
State transitioned from starting to ready`, the upstream's end as Go's os/exec reports it, `ExitError >> exit status 1,
exit code: 1` and `cmd.Wait() returned error: signal: terminated`, and `process exited but not StateStopping, current
state: starting` (it ended while llama-swap still waited for it to be ready).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .llamacpp import ENGINE as _LLAMACPP
from .words import msg, rx

LOG = LogWords(
    fingerprint=rx(r"swapState\(\) State transitioned|process exited but not StateStopping|\bllama-swap\b|"
                   r"<[\w.:/-]{1,80}> (?:Health check (?:passed|error)|cmd\.Wait\(\) returned|ExitError >>)"),
    messages=(
        # the upstream ended by SIGKILL: the OOM killer's, as for any process
        msg(r"cmd\.Wait\(\) returned error: signal: killed\b", "oom", "HOST"),
        # ... by SIGTERM: a stop someone asked for (llama-swap itself on a swap or a ttl, a supervisor, a user), not
        # memory, which ends a process with SIGKILL
        msg(r"cmd\.Wait\(\) returned error: signal: terminated\b", "not_oom", code="stopped-by-sigterm"),
        # ... with an exit status of its own, or while llama-swap still waited for it: its cause in the upstream's
        # own lines
        msg(r"\bExitError >> exit status (?!0\b)\d+|process exited but not StateStopping, current state: starting",
            "wrapper"),
    ),
    milestones=(("ready", rx(r"Health check passed on https?://|State transitioned from starting to ready")),),
    not_oom_advice={
        "stopped-by-sigterm": "the upstream server was ended by SIGTERM, a stop asked for (llama-swap on a swap, its "
                              "ttl or a health check it gave up on, or a supervisor), not memory, which ends a "
                              "process by SIGKILL. llama-swap's own lines just before say why; if it stopped a server "
                              "that was still loading, raise its healthCheckTimeout.",
    },
)

ENGINE = Engine(name="llama-swap", label="llama-swap", log=LOG, wraps="llamacpp", aliases=("llamaswap",),
                flags=dict(_LLAMACPP.flags))
