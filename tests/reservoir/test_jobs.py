"""`wirelab.reservoir.jobs`: a default study compares the connectome with both null families, a
summary per family, and says which default family a connectome without cell classes left out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.reservoir.test_cli import toy  # noqa: F401  (fixture)
from tests.reservoir.test_config import edge_list
from wirelab.reservoir import compare
from wirelab.reservoir.stats import summarize

# the smallest study: one gain, 2 nulls per family, quick sizes; defaults otherwise
TINY: dict[str, Any] = {"alphas": [1.0], "nulls": 2, "quick": True, "workers": 1}


def test_a_default_run_has_a_summary_per_null_family(toy: str) -> None:  # noqa: F811
    cmp = compare(toy, "memory-capacity", **TINY)
    m = cmp.metrics
    assert list(m["summary_by_null_model"]) == ["degree", "degree-boundary"]
    assert m["summary"] == m["summary_by_null_model"]["degree"]  # the first family
    assert "null_models_left_out" not in m
    rows = m["results"]
    for kind in ("degree", "degree-boundary"):
        s = m["summary_by_null_model"][kind]["memory-capacity"]
        assert s["n_nulls"] == 2
        mine = [r for r in rows if r["model"] in ("connectome", kind)]
        assert summarize(mine, {"memory-capacity": True})["memory-capacity"] == s
    plain = sorted(r["value"] for r in rows if r["model"] == "degree")
    boundary = sorted(r["value"] for r in rows if r["model"] == "degree-boundary")
    assert plain != boundary  # two different rewirings, not one family twice


def test_a_default_run_without_cell_classes_says_what_it_left_out(tmp_path: Path) -> None:
    cmp = compare(edge_list(tmp_path), "memory-capacity", inputs="all", **TINY)
    m = cmp.metrics
    assert list(m["summary_by_null_model"]) == ["degree"]
    assert cmp.config.null_models == ["degree"]
    assert "has no cell types" in m["null_models_left_out"]["degree-boundary"]
