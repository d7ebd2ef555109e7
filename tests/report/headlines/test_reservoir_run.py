"""The reservoir headline of a default run: both null families (plain and boundary-preserving
degree rewirings) named with their mean ± sd and p, and a family the connectome could not have
named with the reason."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from tests.report.stories import reservoir_metrics
from tests.reservoir.test_cli import toy  # noqa: F401  (fixture)
from wirelab.report.headlines.reservoir_run import reservoir
from wirelab.report.runs import Run
from wirelab.reservoir import compare

COMMAND = "wirelab reservoir run"


def run_of(tmp_path: Path, metrics: dict[str, Any], config: dict[str, Any]) -> Run:
    return Run(
        path=tmp_path, name="r", config={"command": COMMAND, "config": config}, metrics=metrics
    )


def test_a_tiny_default_run_names_both_families(tmp_path: Path, toy: str) -> None:  # noqa: F811
    cmp = compare(toy, "memory-capacity", alphas=[1.0], nulls=2, quick=True, workers=1)
    h = reservoir(run_of(tmp_path, cmp.metrics, asdict(cmp.config)))
    assert h is not None
    assert h.question == (
        f"Does the `{toy}` connectome remember more than its degree-preserving and "
        "boundary-preserving degree nulls?"
    )
    for kind, words in (
        ("degree", "degree-preserving"),
        ("degree-boundary", "boundary-preserving degree"),
    ):
        s = cmp.metrics["summary_by_null_model"][kind]["memory-capacity"]
        spread = f"{s['null_mean']:.3g} ± {s['null_std']:.2g} (mean ± sd), p = {s['p_value']:.2g}"
        assert f"{words} nulls: {spread} (2 nulls" in h.uncertainty
        assert f"Against the {words} nulls:" in h.verdict
        figure = f"{s['null_mean']:.3g} ± {s['null_std']:.2g}"
        assert any(c.who == f"{words} nulls" and c.figure == figure for c in h.comparisons)
    assert "left out" not in h.uncertainty


def test_a_family_left_out_is_named_with_its_reason(tmp_path: Path) -> None:
    metrics = reservoir_metrics(p=0.01, n=99)
    metrics["summary_by_null_model"] = {"degree": metrics["summary"]}
    why = "edges has no cell types: the cell classes need annotations"
    metrics["null_models_left_out"] = {"degree-boundary": why}
    h = reservoir(run_of(tmp_path, metrics, {"connectome": "edges.csv", "null_models": ["degree"]}))
    assert h is not None and h.outcome == "yes"
    assert h.question.endswith("than its degree-preserving nulls?")
    assert h.uncertainty.startswith("7.62 ± 0.16 (mean ± sd), p = 0.01 (99 nulls")
    assert h.uncertainty.endswith(f"; boundary-preserving degree nulls left out: {why}")
