"""The benchmarks in benchmarks/ at a tiny size: their JSON names every peer configuration."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}


def run_benchmark(
    script: str, *args: str, python: str | Path = sys.executable, timeout: int = 300
) -> dict[str, Any]:
    """Run ``benchmarks/SCRIPT ARGS`` on one thread from the repository root; its one JSON line
    (a failure or any other output fails the test with the end of stderr)."""
    env = {**os.environ, **ONE_THREAD, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "osmesa")}
    proc = subprocess.run(
        [str(python), f"benchmarks/{script}", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0])
