"""`wirelab.reservoir.config`: the default null families (both degree rewirings) and how they are
resolved on a connectome with cell classes, one with a single class and one with none."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.reservoir.test_cli import toy  # noqa: F401  (fixture)
from wirelab.data.connectomes import Connectome, load_connectome
from wirelab.errors import UsageError
from wirelab.reservoir.config import DEFAULTS, resolve_experiment
from wirelab.reservoir.nulls import DEFAULT_NULLS

STUDY = replace(DEFAULTS, tasks=["memory-capacity"], alphas=[1.0], nulls=2, inputs="all")


def edge_list(tmp_path: Path) -> str:
    """A 6-neuron edge list without a neuron table: no cell types."""
    path = tmp_path / "edges.csv"
    rows = ["0,1,2", "1,2,1", "2,0,3", "0,2,1", "3,0,1", "1,3,2", "4,5,1", "5,3,2", "2,4,1"]
    path.write_text("pre,post,weight\n" + "\n".join(rows) + "\n")
    return str(path)


def one_class(tmp_path: Path) -> str:
    """The edge list with a neuron table whose cell types all fall in one class (interneuron)."""
    path = edge_list(tmp_path)
    table = "id,celltype\n" + "".join(f"{i},local\n" for i in range(6))
    Path(path).with_suffix(".neurons.csv").write_text(table)
    return path


def test_the_default_config_names_both_null_families() -> None:
    assert DEFAULT_NULLS == ("degree", "degree-boundary")
    assert DEFAULTS.null_models == ["degree", "degree-boundary"]


def test_a_connectome_with_cell_classes_keeps_both_families(toy: str) -> None:  # noqa: F811
    exp = resolve_experiment(replace(STUDY, connectome=toy))
    assert exp.config.null_models == ["degree", "degree-boundary"]
    assert exp.nulls_left_out == {}
    assert [m for m, _ in exp.jobs()] == ["connectome"] + ["degree"] * 2 + ["degree-boundary"] * 2


@pytest.mark.parametrize(
    ("make", "why"),
    [(edge_list, "has no cell types"), (one_class, "is in one cell class (interneuron)")],
)
def test_the_default_leaves_degree_boundary_out_without_classes(
    tmp_path: Path, make: object, why: str
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    exp = resolve_experiment(replace(STUDY, connectome=path))
    assert exp.config.null_models == ["degree"]  # what config.json records: the run repeats
    assert list(exp.nulls_left_out) == ["degree-boundary"]
    assert why in exp.nulls_left_out["degree-boundary"]
    assert [m for m, _ in exp.jobs()] == ["connectome", "degree", "degree"]


def test_naming_degree_boundary_without_classes_is_one_line_error(tmp_path: Path) -> None:
    cfg = replace(STUDY, connectome=edge_list(tmp_path))
    for models in (["degree-boundary"], ["degree-boundary", "degree"]):
        with pytest.raises(UsageError, match="'degree-boundary' is not defined on edges") as exc:
            resolve_experiment(replace(cfg, null_models=models))
        assert "\n" not in str(exc.value)
    resolved = resolve_experiment(replace(cfg, null_models=["degree-boundary"], nulls=0))
    assert resolved.config.null_models == ["degree-boundary"]  # no null built: nothing to check


def test_esn_1000_is_one_class_so_its_default_is_the_degree_family() -> None:
    con = load_connectome("esn-1000")
    assert isinstance(con, Connectome) and np.all(con.celltype == "unit")
    exp = resolve_experiment(replace(STUDY, connectome="esn-1000"))
    assert exp.config.null_models == ["degree"]
    assert "esn-1000 is in one cell class" in exp.nulls_left_out["degree-boundary"]
