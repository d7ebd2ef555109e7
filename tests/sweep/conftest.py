"""Grids over the toy experiment (`tests.sweep.toy`), written into tmp directories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def write_grid(path: Path, body: str) -> Path:
    path.write_text(body)
    return path


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    """Points run ``python -m tests.sweep.toy``, importable from the repository root."""
    monkeypatch.chdir(REPO)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    )


def toy_grid(tmp_path: Path, extra_fixed: str = "", vary: str | None = None) -> Path:
    vary = vary or "n = [30, 300]\nnoise = [0.1, 1.0]\nseed = { range = [0, 2] }\n"
    return write_grid(
        tmp_path / "grid.toml",
        '[sweep]\ncommand = "python -m tests.sweep.toy"\nmetric = "test_r2"\n\n'
        f'[fixed]\ndim = 6\nlog = "{tmp_path / "calls.log"}"\n{extra_fixed}\n[vary]\n{vary}',
    )
