"""The project's logic recipes by name: `RECIPES`, shipped inside the package.

Each recipe is a TOML file in ``wirelab/logic/recipes/`` (in a checkout also reachable as
``recipes/logic/NAME.toml``, a link to that folder), so an installed wheel trains them too:
``train("mnist01")``, ``wirelab logic train --recipe mnist01``. `RECIPES` maps each name (the
file's stem) to its path, with the recipe's ``description`` as its help; `recipe_path` is the
rule every recipe argument follows: an existing path wins, then a bare name (no folder, no
suffix) is looked up here, and an unknown name is a one-line `UsageError` listing the known
ones. Reads no torch.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from wirelab.errors import UsageError
from wirelab.registry import Registry

RECIPE_DIR = Path(__file__).resolve().parent / "recipes"
RECIPES = Registry[Path]("logic recipe")


def _description(path: Path) -> str:
    try:
        text = tomllib.loads(path.read_text()).get("description", "")
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return ""
    return text if isinstance(text, str) else ""


for _path in sorted(RECIPE_DIR.glob("*.toml"), key=lambda p: p.stem):
    RECIPES.add(_path.stem, _path, _description(_path))


def is_name(recipe: str | Path) -> bool:
    """Whether ``recipe`` reads as a bare recipe name (``"mnist01"``), not a path: no folder
    and no suffix."""
    text = str(recipe)
    return bool(text) and Path(text).name == text and not Path(text).suffix


def recipe_path(recipe: str | Path) -> Path:
    """The file (or run directory) of ``recipe``: an existing path as given; else a bare name
    of `RECIPES` (e.g. ``"mnist10-8k-learned"``) as its packaged TOML file; else the path as
    given (whose reader reports it missing).

    Raises:
        UsageError: ``recipe`` is a bare name that is neither a path nor in `RECIPES`.

    Example:
        >>> recipe_path("mnist01").name
        'mnist01.toml'
    """
    path = Path(recipe)
    if path.exists() or not is_name(recipe):
        return path
    if str(recipe) not in RECIPES:
        raise UsageError(
            f"unknown logic recipe {str(recipe)!r} (not a file here either); "
            f"the recipes: {', '.join(RECIPES.names())}"
        )
    return RECIPES.get(str(recipe))


def summary(name: str) -> str:
    """One line on recipe ``name``: what its tables state of the data, layers, wiring and run
    length (``"mnist classes 0,1: dense 250 + 250, unique wiring, 3000 steps"``)."""
    doc = tomllib.loads(RECIPES.get(name).read_text())
    train, model = doc.get("train", {}), doc.get("model", {})
    data = " classes ".join(str(train[k]) for k in ("dataset", "classes") if k in train)
    parts = [f"{len(model['conv'])} conv blocks"] if model.get("conv") else []
    if model.get("dense"):
        parts.append("dense " + " + ".join(str(w) for w in model["dense"]))
    if "connections" in model:
        parts.append(f"{model['connections']} wiring")
    parts += [f"{train[k]} {k}" for k in ("steps", "epochs") if k in train]
    if train.get("init_from"):
        parts.append(f"from {train['init_from']}")
    return f"{data}: {', '.join(parts)}"
