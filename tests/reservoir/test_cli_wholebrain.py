"""A whole-brain study at a scaled-down size: a generated FlyWire-like connectome (2,000
neurons) from its edge list through ``wirelab reservoir run``, inputs and readout chosen by the
neuron table's annotations, one degree-preserving null; and the refusal of a study that will not
fit in memory (one line, exit 1, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.clirun import one_line_error, wirelab
from wirelab.data.connectomes import load_connectome
from wirelab.data.connectomes.generate import generate, write
from wirelab.reservoir import memory


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("brain")
    edges, _ = write(generate(2000, 40000, seed=7), out, "csv")
    return edges


def test_annotation_selected_study_with_one_degree_null(brain: Path, tmp_path: Path) -> None:
    args: list[str | Path] = [
        "reservoir",
        "run",
        "--connectome",
        brain,
        "--task",
        "narma10",
        "--quick",
    ]
    args += ["--inputs", "annotation=olfactory+gustatory", "--outputs", "descending"]
    args += ["--alpha", "0.8,1.2", "--nulls", "1", "--null-model", "degree", "--workers", "1"]
    r = wirelab(*args, "--out", tmp_path / "run")
    assert r.returncode == 0, r.stderr
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    con = load_connectome(brain)
    chem = con.select(annotation=["olfactory", "gustatory"])
    dn = con.select(celltype="descending")
    assert metrics["population_sizes"] == {"inputs": chem.size, "outputs": dn.size}
    assert 0 < dn.size < 50  # the readout sees the descending neurons only
    models = {(row["model"], row["alpha"]) for row in metrics["results"]}
    assert models == {("connectome", 0.8), ("connectome", 1.2), ("degree", 0.8), ("degree", 1.2)}
    assert all(np.isfinite(row["value"]) for row in metrics["results"])


def test_an_unknown_annotation_names_the_known_ones(brain: Path, tmp_path: Path) -> None:
    args: list[str | Path] = [
        "reservoir",
        "run",
        "--connectome",
        brain,
        "--task",
        "narma10",
        "--quick",
    ]
    r = wirelab(*args, "--inputs", "annotation=auditory", "--out", tmp_path / "run")
    assert r.returncode == 2 and one_line_error(r), r.stderr
    assert "population is empty" in r.stderr and "olfactory" in r.stderr
    assert not (tmp_path / "run").exists()


def test_a_study_too_large_for_memory_is_refused_before_work(
    brain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every neuron read out needs about 1.3 GB at this size (0.45 GB of recorded states);
    with 0.8 GB available the study stops with one line and exit 1, and --out is never
    created; a readout of the descending neurons fits the same budget."""
    monkeypatch.setattr(memory, "available_memory", lambda: 800_000_000)
    args: list[str | Path] = [
        "reservoir",
        "run",
        "--connectome",
        brain,
        "--task",
        "narma10",
        "--outputs",
        "all",
    ]
    r = wirelab(*args, "--nulls", "1", "--out", tmp_path / "run")
    assert r.returncode == 1 and one_line_error(r), r.stderr
    assert "the study needs about" in r.stderr and "GB is available" in r.stderr
    assert "2,000 readout neurons" in r.stderr
    assert not (tmp_path / "run").exists()
    small = [*args[:-1], "descending", "--quick", "--alpha", "1.0", "--nulls", "0"]
    r = wirelab(*small, "--workers", "1", "--out", tmp_path / "small")
    assert r.returncode == 0, r.stderr  # the same budget fits a readout of the descending neurons
