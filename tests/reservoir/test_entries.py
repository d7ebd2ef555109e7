"""Task and null-model entries: a toy of each registered in one line and run through the CLI;
the built-in entries agree with what their plans return; one run loads its connectome once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

from tests.clirun import one_line_error, wirelab
from tests.reservoir.test_cli import toy_connectome
from wirelab.data.connectomes import CONNECTOMES, Connectome
from wirelab.reservoir.engine import Block
from wirelab.reservoir.nulls import NULLS, NullModel, on_matrix
from wirelab.reservoir.tasks import (
    TASKS,
    Metric,
    Setup,
    Task,
    TaskResult,
    input_weights,
    labelled_metrics,
    metric_of,
)
from wirelab.reservoir.weights import as_csr


def toy_plan(setup: Setup, *, steps: int = 40) -> Any:
    """Constant input for ``steps`` steps; scores: the mean and the largest |state|."""
    w_in = input_weights(setup.n, [setup.inputs], setup.seed, True)
    (run,) = yield [Block(w_in, np.ones((steps, 1, 1)), record=setup.outputs)]
    x = np.abs(run.states[:, :, :, 0])  # (T, M, G, P)
    return TaskResult(
        "toy",
        "mean |x|",
        f"mean |x| of the readout over {steps} steps of constant input",
        True,
        x.mean(axis=(0, 3)),
        {"largest": x.max(axis=(0, 3)), "steps": steps},
    )


TOY = Task(
    toy_plan,
    (
        Metric("mean |x|", higher_is_better=True, words="stir more"),
        Metric("max |x|", False, log_scale=True, label="toy-max", detail="largest"),
    ),
    quick={"steps": 12},
    network_detail=("steps",),
    needs_sides=True,
    rate_units_only="is a toy",
)


def transposed(source: Any, seed: int) -> sp.csr_matrix:
    return sp.csr_matrix(as_csr(source).T)


@pytest.fixture
def toys() -> Iterator[None]:
    CONNECTOMES.add("toy", toy_connectome, "a random 48-neuron test connectome")
    TASKS.add("toy", TOY, "a toy task: mean |x| under constant input")
    NULLS.add("toy-null", NullModel(on_matrix(transposed), deterministic=True), "W transposed")
    try:
        yield
    finally:
        CONNECTOMES.remove("toy")
        TASKS.remove("toy")
        NULLS.remove("toy-null")


def test_a_registered_task_and_null_model_run_through_the_cli(toys: None, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["reservoir", "run", "--connectome", "toy", "--task", "toy", "--alpha", "0.5,1.0"]
    args += ["--nulls", "2", "--null-model", "toy-null", "--workers", "1", "--quick"]
    r = wirelab(*args, "--out", out)
    assert r.returncode == 0, r.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    # connectome + 1 null (a deterministic null runs once) x 2 alphas x 2 metrics
    rows = metrics["results"]
    assert len(rows) == 2 * 2 * 2
    assert {(r["task"], r["metric"]) for r in rows} == {("toy", "mean |x|"), ("toy-max", "max |x|")}
    assert [n["model"] for n in metrics["networks"]] == ["connectome", "toy-null"]
    assert metrics["networks"][0]["steps"] == 12  # the quick size, and the network detail
    assert "over 12 steps" in metrics["definitions"]["toy"]
    assert metrics["summary"]["toy"]["higher_is_better"] is True
    assert metrics["summary"]["toy-max"]["higher_is_better"] is False
    assert metrics["population_sizes"]["inputs_left"] == 4  # the entry needs sides
    assert metric_of("toy-max") is TOY.metrics[1] and TOY.words == "stir more"

    r = wirelab(*args, "--activation", "lif", "--out", tmp_path / "lif")
    assert r.returncode == 2 and one_line_error(r) and "toy is a toy: use rate units" in r.stderr
    r = wirelab(*args, "--inputs", "sensory:left", "--out", tmp_path / "left")
    assert r.returncode == 2 and "the toy task needs right neurons" in r.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_run_loads_its_connectome_once(workers: str, tmp_path: Path) -> None:
    loads: list[str] = []

    def counted() -> Connectome:
        loads.append("toy")
        return toy_connectome()

    CONNECTOMES.add("counted", counted, "the toy connectome, its loads counted")
    try:
        args = ["reservoir", "run", "--connectome", "counted", "--task", "all", "--alpha", "0.9"]
        args += ["--nulls", "2", "--null-model", "degree,mirror,random-esn", "--quick"]
        r = wirelab(*args, "--workers", workers, "--out", tmp_path / "run")
    finally:
        CONNECTOMES.remove("counted")
    # worker processes are handed the loaded connectome: they could not load it (no entry)
    assert r.returncode == 0, r.stderr
    assert loads == ["toy"]


SMALL = {
    "memory-capacity": {"k_max": 5, "train": 200, "test": 60, "washout": 20},
    "narma10": {"train": 200, "test": 60, "washout": 20},
    "mackey-glass": {"train": 400, "test": 60, "washout": 20, "segments": 2, "warm": 20},
    "lorenz": {"train": 200, "test": 60, "washout": 20},
    "decision": {"trials": 24},
}


def test_every_entry_states_the_metric_its_plan_returns() -> None:
    n = 30
    rng = np.random.default_rng(0)
    w = sp.random(n, n, density=0.2, random_state=0, data_rvs=rng.standard_normal)
    w = sp.csr_matrix(w * (0.9 / np.max(np.abs(np.linalg.eigvals(w.toarray())))))
    left, right = np.arange(5), np.arange(5, 10)
    setup = Setup([w], np.array([1.0]), np.arange(10), np.arange(n), left=left, right=right)
    assert set(SMALL) == set(TASKS)
    for name in TASKS:
        task = TASKS.get(name)
        res = task(setup, **SMALL[name])
        assert (task.metrics[0].name, task.metrics[0].higher_is_better) == (
            res.metric,
            res.higher_is_better,
        )
        for label, metric in task.labelled(name):
            assert metric.scores(res).shape == (1, 1), label
        assert all(key in res.detail for key in task.network_detail)
    labels = [label for label, _ in labelled_metrics()]
    assert len(labels) == len(set(labels))  # one summary key per metric
