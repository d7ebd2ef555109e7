"""Derived ``.npz`` files in the cache: read back safely, written atomically.

`read_npz` returns the arrays of a file (loaded with ``allow_pickle=False``), or ``None`` when it
is absent, unreadable or not an npz; `write_npz` writes to a temporary file beside the target and
renames it, so a reader never sees half a file, and a cache that cannot be written is skipped
(the caller keeps its arrays in memory).
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np


def read_npz(path: Path) -> dict[str, np.ndarray] | None:
    """The arrays in ``path`` by name, or None when absent or unreadable."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {k: npz[k] for k in npz.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return None


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` compressed and atomically; a failure to write is ignored."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez_compressed(fh, **arrays)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
