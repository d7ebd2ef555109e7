"""The tour's fly step: the turn study against rewirings on the kinematic body, then the flygym
confirmation with its video (in the fly environment), or a line saying why it was skipped; a
rerun replaces both. Sizes are shrunk here; the tour's own sizes run in the tour."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import requires_larva
from tests.fly.test_envs import needs_fly_env
from wirelab.fly import tour


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tour, "NULLS", {True: 2, False: 2})
    monkeypatch.setattr(tour, "TIMING", {True: (0.05, 0.2), False: (0.05, 0.2)})
    monkeypatch.setattr(tour, "FLYGYM_SEEDS", {True: 2, False: 2})
    monkeypatch.setattr(tour, "FLYGYM_TIMING", {True: (0.02, 0.05), False: (0.02, 0.05)})


def test_the_tour_is_sized_to_resolve() -> None:
    """19 nulls or more (p can reach 0.05), at least 3 flygym seeds (a t interval's factor of
    4.3, not 12.7), stimulus of a second or more."""
    assert all(n >= 19 for n in tour.NULLS.values())
    assert all(s >= 3 for s in tour.FLYGYM_SEEDS.values())
    assert all(t[1] >= 1.0 for t in (*tour.TIMING.values(), *tour.FLYGYM_TIMING.values()))


@requires_larva
def test_tour_without_the_fly_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small: None, larva: object
) -> None:
    monkeypatch.setattr(tour, "flygym_missing", lambda body: "no fly environment (test)")
    summary = tour.run(tmp_path, quick=True)
    metrics = json.loads((tmp_path / "turns-nulls" / "metrics.json").read_text())
    models = {r["model"] for r in metrics["table"]}
    assert models == {"(all)", "row", "null-0", "null-1"}
    assert summary["kinematic L-R"].startswith(("+", "-"))
    assert summary["flygym"] == "skipped: no fly environment (test)"
    assert not (tmp_path / "turns").exists()
    assert tour.run(tmp_path, quick=True) == summary  # a tour is meant to be rerun


def test_flygym_missing_names_the_set_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tour, "needs_fly_env", lambda body: True)
    monkeypatch.setattr(tour, "fly_python", lambda: None)
    assert "make fly-env" in (tour.flygym_missing("flygym") or "")
    monkeypatch.setattr(tour, "needs_fly_env", lambda body: False)
    assert tour.flygym_missing("flygym") is None


@requires_larva
@needs_fly_env
def test_tour_films_the_flygym_confirmation(tmp_path: Path, small: None, larva: object) -> None:
    summary = tour.run(tmp_path, quick=True)
    assert "flygym L-R" in summary and "flygym left-control" in summary
    config = json.loads((tmp_path / "turns" / "config.json").read_text())
    assert config["config"]["body"] == "flygym" and config["config"]["seeds"] == 2
    assert (tmp_path / "turns" / "video.mp4").stat().st_size > 0
