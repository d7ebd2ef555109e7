"""Derived ``.npz`` files in the cache: read back safely, written atomically.

`read_npz` returns the arrays of a file (loaded with ``allow_pickle=False``), or ``None`` when it
is absent, unreadable or not an npz; `save_npz` writes to a hidden temporary file beside the
target (``.NAME.*.tmp``, so a ``*.npz`` glob never sees it) and renames it, so a reader never
sees half a file, and raises when it cannot write (result files); `write_npz` is the cache's
version, where a file that cannot be written is skipped (the caller keeps its arrays in memory).
Files get mode ``0666 & ~umask`` like every other file wirelab writes (`wirelab.results.file_mode`;
the temporary file itself is created 0600).
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from wirelab.results import file_mode


def read_npz(path: Path) -> dict[str, np.ndarray] | None:
    """The arrays in ``path`` by name, or None when absent or unreadable."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {k: npz[k] for k in npz.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return None


def save_npz(path: Path, arrays: dict[str, np.ndarray], *, compress: bool = True) -> None:
    """Write ``arrays`` to ``path`` atomically; an `OSError` leaves nothing behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            (np.savez_compressed if compress else np.savez)(fh, **arrays)
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` compressed and atomically; a failure to write is ignored."""
    try:
        save_npz(path, arrays)
    except OSError:
        return
