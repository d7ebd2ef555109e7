"""The tour's logic step trains the committed 0-vs-1 recipe, and says which tools it lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirelab.logic import tour
from wirelab.logic.config import from_dict, load_recipe
from wirelab.logic.recipe_registry import RECIPES

RECIPE = Path(__file__).resolve().parents[2] / "recipes" / "logic" / "mnist01.toml"


def test_the_tour_trains_the_committed_recipe() -> None:
    assert RECIPES.get(tour.RECIPE).read_text() == RECIPE.read_text()
    cfg = from_dict(load_recipe(tour.RECIPE))
    assert (cfg.classes, cfg.steps, cfg.model["dense"]) == ("0,1", 3000, [250, 250])


def test_missing_tools_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tour.shutil, "which", lambda name: None)
    assert tour._missing(tour.PNR_TOOLS) == ["nextpnr-ice40", "icepack", "a C compiler"]
    monkeypatch.setattr(tour.shutil, "which", lambda name: f"/usr/bin/{name}")
    assert tour._missing(tour.CIRCUIT_TOOLS + tour.PNR_TOOLS) == []
