"""``python -m wirelab`` is the ``wirelab`` command (a real interpreter, not the CLI module)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.clirun import REPO


def test_python_dash_m_wirelab_help() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "wirelab", "--help"],
        capture_output=True, text=True, timeout=120, cwd=REPO, env=dict(os.environ),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "Usage:" in r.stdout and "reservoir" in r.stdout and "Traceback" not in r.stderr
