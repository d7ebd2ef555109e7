"""Where data live: an offline data directory searched first, then a user cache.

- ``WIRELAB_DATA_DIR``: a directory holding copies of the datasets laid out as in the registry
  (``mnist/…``, ``connectome/…``). Read-only use: wirelab never writes or deletes there.
- ``WIRELAB_CACHE``: the cache for downloads and derived files; default ``~/.cache/wirelab``.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The download cache (``$WIRELAB_CACHE`` or ``~/.cache/wirelab``); created on demand."""
    env = os.environ.get("WIRELAB_CACHE")
    path = Path(env).expanduser() if env else Path.home() / ".cache" / "wirelab"
    return path


def data_dir() -> Path | None:
    """The offline data directory from ``$WIRELAB_DATA_DIR``, or None when unset."""
    env = os.environ.get("WIRELAB_DATA_DIR")
    return Path(env).expanduser().resolve() if env else None
