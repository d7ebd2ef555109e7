"""The one way tests run the ``wirelab`` command.

`wirelab` runs it in-process through `wirelab.cli.main` (fast: no interpreter start-up, no
re-import of torch), capturing stdout and stderr; `wirelab_process` runs a real subprocess, for the
tests that need one (signals, a killed run, a fresh interpreter). Both return a
`subprocess.CompletedProcess` with ``returncode``, ``stdout`` and ``stderr``.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def wirelab(
    *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``wirelab ARGS`` in this process; ``env`` entries are set for the call only."""
    from wirelab.cli import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    code: int | str | None = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(argv)
    except SystemExit as exc:
        code = exc.code
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    rc = code if isinstance(code, int) else (0 if code is None else 1)
    return subprocess.CompletedProcess(["wirelab", *argv], rc, out.getvalue(), err.getvalue())


def wirelab_process(
    *args: str | Path, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m wirelab.cli ARGS`` as a real subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "wirelab.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=REPO,
    )


def one_line_error(r: subprocess.CompletedProcess[str]) -> bool:
    """True when a failed command printed exactly one line on stderr and no traceback."""
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    return r.returncode in (1, 2) and len(lines) == 1 and "Traceback" not in r.stderr
