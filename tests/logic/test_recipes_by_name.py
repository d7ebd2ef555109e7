"""The project's logic recipes by name (`wirelab.logic.RECIPES`): shipped in the package,
resolved to the same configuration as their paths, by the Python API and by the CLI; an
existing path wins over a name, and an unknown name is a one-line error listing the recipes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import wirelab.logic as logic_package
from tests.clirun import REPO, wirelab
from wirelab.errors import UsageError
from wirelab.logic import RECIPES, build_model, make_config
from wirelab.logic.config import resolve
from wirelab.logic.recipe_registry import RECIPE_DIR, is_name, recipe_path

CHECKOUT = REPO / "recipes" / "logic"


def test_the_recipes_live_in_the_package_and_the_checkout_links_to_them() -> None:
    assert RECIPE_DIR.parent == Path(logic_package.__file__).resolve().parent
    assert CHECKOUT.is_symlink() and CHECKOUT.resolve() == RECIPE_DIR
    assert set(RECIPES) == {p.stem for p in CHECKOUT.glob("*.toml")}
    assert {"mnist01", "mnist10-8k-learned", "mnist10-up5k"} <= set(RECIPES)
    assert all(RECIPES.help(name) for name in RECIPES)  # each recipe's description


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_a_name_is_the_same_config_as_its_path(name: str) -> None:
    by_path = make_config(CHECKOUT / f"{name}.toml")
    by_name = make_config(name)
    assert by_name == by_path
    assert resolve(by_name) == resolve(by_path)


def test_options_apply_on_top_of_a_named_recipe() -> None:
    cfg = make_config("mnist10-8k-learned", steps=20, dense=[64, 64])
    assert (cfg.steps, cfg.model["dense"], cfg.model["connections"]) == (20, [64, 64], "learned")


def test_build_model_by_name() -> None:
    model = build_model("mnist01", dense=[20, 20])
    assert (model.spec["dense"], model.spec["classes"]) == ([20, 20], 2)
    assert model.discretize().gates == 40


def test_an_unknown_name_is_one_line_listing_the_recipes() -> None:
    with pytest.raises(UsageError) as info:
        make_config("mnist99")
    message = str(info.value)
    assert "\n" not in message and "'mnist99'" in message
    assert all(name in message for name in RECIPES)


def test_a_path_that_does_not_exist_is_reported_as_a_path() -> None:
    assert not is_name("nosuch.toml") and not is_name("dir/mnist01") and is_name("mnist01")
    with pytest.raises(UsageError, match=r"nosuch\.toml does not exist"):
        make_config("nosuch.toml")


def test_an_existing_path_wins_over_a_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mnist01").write_text('[train]\ndataset = "digits"\n[model]\ndense = [30, 30]\n')
    monkeypatch.chdir(tmp_path)
    assert recipe_path("mnist01") == Path("mnist01")
    cfg = make_config("mnist01")
    assert (cfg.dataset, cfg.model["dense"]) == ("digits", [30, 30])
    monkeypatch.chdir(REPO)  # no such file here: the packaged recipe
    assert recipe_path("mnist01") == RECIPE_DIR / "mnist01.toml"


def test_the_cli_lists_the_recipes() -> None:
    r = wirelab("logic", "recipes")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(RECIPES)
    assert "mnist classes 0,1: dense 250 + 250, unique wiring, 3000 steps" in lines[0]


def test_the_cli_rejects_an_unknown_name_in_one_line(tmp_path: Path) -> None:
    r = wirelab("logic", "train", "--recipe", "mnist99", "--out", tmp_path / "run")
    assert r.returncode != 0
    assert len(r.stderr.strip().splitlines()) == 1 and "mnist01" in r.stderr
    assert not (tmp_path / "run").exists()


def test_the_cli_trains_a_name_as_its_path(tmp_path: Path) -> None:
    """``--recipe mnist01`` and ``--recipe recipes/logic/mnist01.toml`` on a tiny run (MNIST 0
    vs 1, 4 steps of 2 x 20 gates): the same configuration and the same accuracy."""
    tiny = ("--steps", "4", "--eval-every", "2", "--dense", "20,20", "--threads", "1")
    runs = {}
    for label, recipe in (("name", "mnist01"), ("path", CHECKOUT / "mnist01.toml")):
        out = tmp_path / label
        r = wirelab("logic", "train", "--recipe", recipe, *tiny, "--out", out, "--quiet")
        assert r.returncode == 0, r.stderr
        config = json.loads((out / "config.json").read_text())["config"]
        metrics = json.loads((out / "metrics.json").read_text())
        runs[label] = (config, metrics["accuracy_discrete"], metrics["gates"])
    assert runs["name"] == runs["path"]
    assert runs["name"][0]["classes"] == "0,1" and runs["name"][2] == 40


def test_a_registered_recipe_is_a_name_too(tmp_path: Path) -> None:
    """`RECIPES` is a registry: a recipe of one's own, added, trains by its name."""
    toml = tmp_path / "toy.toml"
    toml.write_text('[train]\ndataset = "digits"\nepochs = 2\n[model]\ndense = [16, 16]\n')
    RECIPES.add("toy-recipe", toml, "digits, 2 x 16 gates")
    try:
        cfg = make_config("toy-recipe")
        assert (cfg.dataset, cfg.epochs, cfg.model["dense"]) == ("digits", 2, [16, 16])
    finally:
        RECIPES.remove("toy-recipe")
