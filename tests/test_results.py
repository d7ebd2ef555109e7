from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

from wirelab import __version__
from wirelab.errors import UsageError
from wirelab.results import ResultDir, write_json


def test_result_dir_roundtrip(tmp_path: Path) -> None:
    rd = ResultDir.create(tmp_path / "run", command="wirelab test", config={"seed": 3})
    cfg = json.loads((tmp_path / "run" / "config.json").read_text())
    assert cfg["config"]["seed"] == 3 and cfg["environment"]["wirelab"] == __version__
    assert not rd.complete
    rd.write_metrics({"acc": np.float32(0.5), "n": np.int64(3), "v": np.arange(2)})
    assert rd.complete and rd.metrics == {"acc": 0.5, "n": 3, "v": [0, 1]}
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    assert rd.save_figure(fig, "line").stat().st_size > 0
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "config.json",
        "line.png",
        "metrics.json",
    ]


def test_failed_write_leaves_old_file(tmp_path: Path) -> None:
    p = write_json(tmp_path / "m.json", {"a": 1})
    with pytest.raises(ValueError):
        write_json(p, {"a": float("nan")})
    assert json.loads(p.read_text()) == {"a": 1}
    assert [q.name for q in tmp_path.iterdir()] == ["m.json"]


def test_refuses_file_as_dir(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(UsageError):
        ResultDir.create(tmp_path / "f", command="x", config={})
    with pytest.raises(UsageError):
        ResultDir.open(tmp_path)
