"""Synthetic result directories, written through `wirelab.results` like real runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wirelab.results import IN_PROGRESS, ResultDir, experiment


def _plot(rd: ResultDir, name: str, seed: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(seed)
    fig, ax = plt.subplots(figsize=(4, 2.6))
    ax.plot(np.cumsum(rng.normal(size=200)))
    ax.set_title(name)
    rd.save_figure(fig, name, dpi=60)


def make_runs(root: Path) -> dict[str, Path]:
    """Five runs of three systems: two complete, one in progress (still marked, in this very
    process), one failed (``failed.json`` with its reason) and one finished with a malformed
    metrics.json."""
    dirs = {}
    rd = ResultDir.create(
        root / "reservoir" / "mc",
        command="wirelab reservoir memory-capacity",
        config={"seed": 0, "alpha": [0.5, 0.9, 0.99], "nulls": 3, "graph": {"name": "larva"}},
    )
    _plot(rd, "memory_capacity", 0)
    _plot(rd, "spectrum", 1)
    rows = [{"alpha": a / 100, "mc": 3.0 + a / 50, "null": i % 3} for i, a in enumerate(range(90))]
    rd.write_metrics(
        {
            "memory_capacity": 4.25,
            "spectral_radius": 0.9,
            "n_neurons": 2952,
            "ok": True,
            "nested": {"z": {"mean": 1.5, "std": 0.25}},
            "results": rows,
            "trace": list(np.linspace(0, 1, 500)),
            "matrix": [[1, 2, 3], [4, 5, 6]],
            "label": "<script>alert(1)</script>",
        }
    )
    dirs["mc"] = rd.path
    rd = ResultDir.create(
        root / "logic" / "train", command="wirelab logic train", config={"width": 64, "seed": 1}
    )
    _plot(rd, "accuracy", 2)
    (rd.path / "net.v").write_text("module net(); endmodule\n")
    rd.write_metrics({"test_accuracy": 0.9952, "gates": 640})
    dirs["logic"] = rd.path
    rd = ResultDir.create(
        root / "logic" / "unfinished", command="wirelab logic train", config={"width": 8}
    )
    dirs["unfinished"] = rd.path
    rd = ResultDir.create(
        root / "attention" / "broken", command="wirelab attention pool", config={"seed": 2}
    )
    (rd.path / "metrics.json").write_text('{"accuracy": 0.5,,}')
    (rd.path / IN_PROGRESS).unlink()  # finished, then its metrics.json was damaged
    dirs["broken"] = rd.path
    try:
        with experiment(
            root / "attention" / "failed", command="wirelab attention translate", config={}
        ):
            raise ValueError("--test-size 50000 is larger than\nthe data")
    except ValueError:
        pass
    dirs["failed"] = root / "attention" / "failed"
    return dirs


@pytest.fixture
def runs_root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    make_runs(root)
    return root
