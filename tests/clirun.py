"""Runs the `vramdoctor` command in this process, with its standard streams captured: what a user sees, with
its exit code. (click's CliRunner did this while the CLI was built on click; the CLI is argparse now.)"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None = None

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


class CliRunner:
    def invoke(self, app, args, input: str | bytes | None = None) -> Result:
        """`app(args)` (vramdoctor.cli.run) with stdin holding `input`; an exception escaping it is exit code 1."""
        raw_in = input.encode() if isinstance(input, str) else (input or b"")
        out, err = io.BytesIO(), io.BytesIO()
        streams = (io.TextIOWrapper(io.BytesIO(raw_in), encoding="utf-8"),
                   io.TextIOWrapper(out, encoding="utf-8", write_through=True),
                   io.TextIOWrapper(err, encoding="utf-8", write_through=True))
        saved = sys.stdin, sys.stdout, sys.stderr
        sys.stdin, sys.stdout, sys.stderr = streams
        exc = None
        try:
            code = app([str(a) for a in args])
        except Exception as e:  # noqa: BLE001 - reported in the result, as click's runner did
            code, exc = 1, e
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            sys.stdin, sys.stdout, sys.stderr = saved
        return Result(code, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace"), exc)
