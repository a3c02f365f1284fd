"""Redaction of quoted log lines: home-directory user names, host names, IP addresses, tokens.
Pure: a line in, a line out. Applied to every line a report quotes when --redact is on (the
default when the report is written to a file)."""

from __future__ import annotations

import re

_RULES: list[tuple[re.Pattern, str]] = [
    # secrets first, before their surroundings are rewritten
    (re.compile(r"\bhf_[A-Za-z0-9]{20,}"), "hf_<token>"),
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"), "sk-<token>"),
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._\-]{16,}"), r"\1 <token>"),
    (re.compile(r"(?i)((?:api[_-]?key|token|secret|password)\s*[=:]\s*['\"]?)[^\s'\",]{6,}"), r"\1<token>"),
    (re.compile(r"(?i)(--(?:api-key|hf-token|token)[ =])\S+"), r"\1<token>"),
    # home directories
    (re.compile(r"(/home/|/Users/|/export/home/)[^/\s\"']+"), r"\1<user>"),
    (re.compile(r"(?i)([A-Z]:\\+Users\\+)[^\\\s\"']+"), r"\1<user>"),
    # e-mail addresses, then user@host and shell prompts
    (re.compile(r"\b[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z]{2,}\b"), "<email>"),
    (re.compile(r"\b[a-z_][a-z0-9_.\-]*@([A-Za-z0-9][A-Za-z0-9.\-]*)(?=[:\s])"), "<user>@<host>"),
    # syslog / journal prefix: "Mar 25 09:28:05 HOST proc[pid]:"
    (re.compile(r"^((?:\w{3}|\d+月)\s+\d+\s+\d\d:\d\d:\d\d\s+)[A-Za-z0-9][\w.\-]*(\s+[\w.\-/]+\[\d+\]:)"), r"\1<host>\2"),
    (re.compile(r"(?i)\b(hostname|host|node|node_name|nodename)([\"']?\s*[=:]\s*)([\"']?)[A-Za-z][\w.\-]*\3"),
     r"\1\2\3<host>\3"),
    # NCCL's "host:pid:tid [rank] NCCL ..." prefix
    (re.compile(r"^(\s*)[A-Za-z][\w.\-]*:(\d+:\d+ \[\d+\] NCCL)"), r"\1<host>:\2"),
    # fully qualified host names (a name with two or more dots ending in a letters-only label)
    (re.compile(r"\b(?=[\w\-]*[A-Za-z])[A-Za-z0-9][\w\-]*(?:\.[A-Za-z0-9][\w\-]*){1,}\.(?:com|net|org|io|ai|dev|local|"
                r"internal|corp|lan|intra|cloud|edu|gov|cluster|svc|compute|amazonaws|example)\b"), "<host>"),
    # IP addresses (loopback and unspecified kept: they say nothing about anyone)
    (re.compile(r"\b(?!127\.0\.0\.1\b)(?!0\.0\.0\.0\b)(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b"),
     "<ip>"),
    (re.compile(r"\b(?:[0-9a-fA-F]{1,4}:){4,7}[0-9a-fA-F]{1,4}\b"), "<ip6>"),
    (re.compile(r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){1,6}:(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})*)?(?![\w:])"), "<ip6>"),
]


def redact(line: str) -> str:
    for pattern, repl in _RULES:
        line = pattern.sub(repl, line)
    return line
