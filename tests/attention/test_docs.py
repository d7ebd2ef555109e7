"""Docs as tests: every ```python block of docs/attention.md runs as written, each in a fresh
interpreter in a temporary directory with ``WIRELAB_DATA_DIR`` set; every documented command is
free of machine-specific paths."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "attention.md"


def blocks(doc: Path, lang: str) -> list[str]:
    """The fenced ```lang blocks of ``doc``, in order."""
    return re.findall(rf"^```{lang}\n(.*?)^```", doc.read_text(), flags=re.M | re.S)


def run_snippet(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
    env.setdefault("WIRELAB_DATA_DIR", str(REPO.parent / "shared" / "data"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def machine_paths(doc: Path) -> list[str]:
    """Documented command lines naming a path of one machine (absolute, ../shared, .venv)."""
    bad = re.compile(r"(?<![\w.])(/work/|/home/|/Users/|/tmp/|\.\./shared|\.venv/)")
    commands = [ln for b in blocks(doc, "bash") for ln in b.splitlines()]
    commands += re.findall(r"`((?:wirelab|python) [^`]*)`", doc.read_text())
    return [c for c in commands if bad.search(c)]


@pytest.mark.parametrize("index", range(len(blocks(DOC, "python"))))
def test_python_snippet_runs_as_written(index: int, tmp_path: Path) -> None:
    r = run_snippet(blocks(DOC, "python")[index], tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]


def test_documented_commands_have_no_machine_paths() -> None:
    assert blocks(DOC, "python") and blocks(DOC, "bash")
    assert machine_paths(DOC) == []


def test_no_identical_claims_for_measured_figures() -> None:
    assert "identical" not in DOC.read_text()
