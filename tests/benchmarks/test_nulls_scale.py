"""benchmarks/nulls_scale.py at a small size: one JSON line with both kernels' larval times and the
generated graph's size, times and memory; the generated graph and the old kernel keep degrees."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

from tests.conftest import requires_larva

REPO = Path(__file__).resolve().parents[2]


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("nulls_scale", REPO / "benchmarks/nulls_scale.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_graph_and_the_old_kernel() -> None:
    b = bench()
    con = b.generated(2000, 20_000, seed=1)
    assert con.n == 2000 and con.weights.nnz == 20_000
    assert {"sensory", "DN-VNC", "DN-SEZ", ""} <= set(con.celltype)
    w = con.weights
    old = b.old_degree(w, 1, b.dense_swap)  # plain Python: the peer's definition, small
    assert old.nnz == w.nnz
    for axis in (0, 1):
        np.testing.assert_array_equal(
            np.asarray((old != 0).sum(axis)).ravel(), np.asarray((w != 0).sum(axis)).ravel()
        )


@requires_larva
def test_the_json_line() -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    args = ["--neurons", "3000", "--edges", "30000", "--repeats", "1"]
    proc = subprocess.run(
        [sys.executable, "benchmarks/nulls_scale.py", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    line = json.loads(proc.stdout.strip().splitlines()[-1])
    assert line["big_neurons"] == 3000 and line["big_edges"] == 30_000
    for key in ("larva_old_dense_s", "larva_hash_set_s", "big_degree_s", "big_boundary_s"):
        assert line[key] > 0
    assert line["big_degree_edges_moved"] > 0.5 and len(line["load"]) == 3
