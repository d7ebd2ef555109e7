"""The tour step falls back to the kinematic body, says so, and writes two result dirs (a rerun
replaces them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import requires_larva


@requires_larva
def test_tour_quick_on_the_kinematic_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, larva: object
) -> None:
    from wirelab.fly import tour

    monkeypatch.setattr(tour, "flygym_available", lambda: "flygym missing (test)")
    summary = tour.run(tmp_path, quick=True)
    assert summary["body"].startswith("kinematic (flygym missing")
    for side in ("left", "right"):
        assert (tmp_path / f"stimulate-{side}" / "metrics.json").is_file()
        assert f"LI_{side}" in summary and f"turn_{side}_deg" not in summary
        assert f"turns_{side}_deg" in summary  # the turn over seeds, against the control
    assert tour.run(tmp_path, quick=True) == summary  # a tour is meant to be rerun
