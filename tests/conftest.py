"""Shared fixtures: the offline data directory and an isolated cache.

``WIRELAB_DATA_DIR`` defaults to ``../shared/data`` beside the repository (as in CI); the cache is a
per-session temporary directory so tests never touch ``~/.cache/wirelab``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_SHARED = REPO.parent / "shared" / "data"

if "WIRELAB_DATA_DIR" not in os.environ and _SHARED.is_dir():
    os.environ["WIRELAB_DATA_DIR"] = str(_SHARED)


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["WIRELAB_CACHE"] = str(tmp_path_factory.mktemp("wirelab-cache"))


def _have_data(*rel: str) -> bool:
    root = os.environ.get("WIRELAB_DATA_DIR")
    return bool(root) and all((Path(root) / r).is_file() for r in rel)


requires_mnist = pytest.mark.skipif(
    not _have_data("mnist/train-images-idx3-ubyte.gz"),
    reason="MNIST not found: set WIRELAB_DATA_DIR to a directory holding mnist/*.gz",
)
requires_larva = pytest.mark.skipif(
    not _have_data("connectome/winding2023-Supplementary-Data-S1.zip"),
    reason="larval connectome not found: set WIRELAB_DATA_DIR (connectome/…zip)",
)


@pytest.fixture(scope="session")
def larva():  # type: ignore[no-untyped-def]
    if not _have_data("connectome/winding2023-Supplementary-Data-S1.zip"):
        pytest.skip("larval connectome not found: set WIRELAB_DATA_DIR")
    from wirelab.data import load_larva

    return load_larva(allow_download=False)
