"""Shared fixtures: the offline data directory and an isolated cache.

``WIRELAB_DATA_DIR`` defaults to ``../shared/data`` beside the repository (as in CI); the cache is
``$WIRELAB_CACHE`` or ``.cache/wirelab-tests`` in the repository, never ``~/.cache/wirelab``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from wirelab.data import Connectome

REPO = Path(__file__).resolve().parents[1]
_SHARED = REPO.parent / "shared" / "data"

if "WIRELAB_DATA_DIR" not in os.environ and _SHARED.is_dir():
    os.environ["WIRELAB_DATA_DIR"] = str(_SHARED)


# The cache holds downloads and derived files (the parsed connectome, ~10 s to rebuild). Tests use
# $WIRELAB_CACHE when set (CI sets one inside the clone), else a cache inside the repository, never
# the user's ~/.cache/wirelab. Tests that corrupt or delete cache files use their own tmp caches.
if "WIRELAB_CACHE" not in os.environ:
    os.environ["WIRELAB_CACHE"] = str(REPO / ".cache" / "wirelab-tests")


def _have_data(*rel: str) -> bool:
    root = os.environ.get("WIRELAB_DATA_DIR")
    return root is not None and all((Path(root) / r).is_file() for r in rel)


requires_mnist = pytest.mark.skipif(
    not _have_data("mnist/train-images-idx3-ubyte.gz"),
    reason="MNIST not found: set WIRELAB_DATA_DIR to a directory holding mnist/*.gz",
)
requires_larva = pytest.mark.skipif(
    not _have_data("connectome/winding2023-Supplementary-Data-S1.zip"),
    reason="larval connectome not found: set WIRELAB_DATA_DIR (connectome/…zip)",
)


@pytest.fixture(scope="session")
def larva() -> Connectome:
    if not _have_data("connectome/winding2023-Supplementary-Data-S1.zip"):
        pytest.skip("larval connectome not found: set WIRELAB_DATA_DIR")
    from wirelab.data import load_larva

    return load_larva(allow_download=False)
