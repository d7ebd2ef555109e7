"""Each example in examples/ run at its CI size (--small)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_example(script: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python SCRIPT ARGS`` from the repository root, as a user runs it: one thread, no screen
    (Agg, OSMesa), and the offline data directory beside the checkout unless one is set."""
    env = {
        **os.environ,
        "MPLBACKEND": "Agg",
        "MUJOCO_GL": "osmesa",
        "OMP_NUM_THREADS": "1",
        "NUMBA_NUM_THREADS": "1",
    }
    env.setdefault("WIRELAB_DATA_DIR", str(REPO.parent / "shared" / "data"))
    return subprocess.run(
        [sys.executable, script, *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
