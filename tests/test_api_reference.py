"""Every public name of the API is documented, and every public package has an API page.

The rule, for each package in `PACKAGES` (its public names are its ``__all__``):

- ``__all__`` exists, is not empty, and every name in it exists in the package;
- a class or a function (anything `inspect.isclass` or `inspect.isroutine`) has a non-empty
  docstring of its own: not inherited from a base class, and not the signature a dataclass writes
  when it has none;
- any other public object (a constant, a registry, a table, ``__version__``) is documented in the
  package's module docstring, which names it in backticks (`` `DATASETS` ``);
- the package is rendered by an API page: a line ``::: PACKAGE`` in a file under docs/api/;
- the site builds with ``mkdocs build --strict`` (when mkdocs is installed: the ``docs`` extra),
  and its API pages hold an entry (an anchor ``id="PACKAGE.NAME"``) for every public class and
  function; the Examples page shows every ``examples/NN_*.py``.

`test_undocumented_public_names` fails with the whole list of undocumented names, so it reads as
the to-do list.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
API_DOCS = REPO / "docs" / "api"
PACKAGES = [
    "wirelab",
    "wirelab.data",
    "wirelab.reservoir",
    "wirelab.logic",
    "wirelab.logic.circuit",
    "wirelab.attention",
    "wirelab.fly",
    "wirelab.sweep",
    "wirelab.report",
    "wirelab.parallel",
]


def own_docstring(obj: Any) -> str:
    """The object's own docstring ('' when it has none, inherits one, or is a dataclass's
    generated signature)."""
    if inspect.isclass(obj):
        doc = obj.__dict__.get("__doc__") or ""
        if re.fullmatch(rf"{re.escape(obj.__name__)}\(.*\)", doc.strip(), re.S):
            return ""  # dataclasses write ``Name(field: type, ...)`` when there is no docstring
        return doc.strip()
    return (getattr(obj, "__doc__", None) or "").strip()


def undocumented(name: str) -> list[str]:
    """The package's problems, one line each (no ``__all__``, a missing or undocumented name)."""
    module = importlib.import_module(name)
    names = getattr(module, "__all__", None)
    if not names:
        return [f"{name}: no __all__"]
    mod_doc = module.__doc__ or ""
    out = []
    for public in names:
        if not hasattr(module, public):
            out.append(f"{name}.{public}: in __all__ but missing")
            continue
        obj = getattr(module, public)
        if inspect.isclass(obj) or inspect.isroutine(obj):
            if not own_docstring(obj):
                out.append(f"{name}.{public}: no docstring of its own")
        elif f"`{public}`" not in mod_doc:
            out.append(f"{name}.{public}: not named in the module docstring (`{public}`)")
    return out


def api_pages() -> dict[str, list[str]]:
    """Package -> the API pages that render it (``::: package`` lines under docs/api)."""
    pages: dict[str, list[str]] = {}
    for md in sorted(API_DOCS.glob("*.md")):
        for m in re.finditer(r"^:::\s*([\w.]+)\s*$", md.read_text(), re.M):
            pages.setdefault(m[1], []).append(md.name)
    return pages


def test_undocumented_public_names() -> None:
    problems = [line for name in PACKAGES for line in undocumented(name)]
    assert problems == [], "undocumented public names:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", PACKAGES)
def test_package_is_rendered_by_an_api_page(name: str) -> None:
    assert name in api_pages(), f"no docs/api/*.md has a line '::: {name}'"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs not installed (the docs extra)")
    out = tmp_path_factory.mktemp("site")
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, "mkdocs build --strict failed:\n" + r.stderr[-4000:]
    return out


def test_site_builds_in_strict_mode(site: Path) -> None:
    examples = (site / "examples.html").read_text()
    for script in sorted((REPO / "examples").glob("[0-9][0-9]_*.py")):
        assert f"examples/{script.name}" in examples


def test_site_renders_every_public_class_and_function(site: Path) -> None:
    html = "\n".join(p.read_text() for p in (site / "api").glob("*.html"))
    missing = []
    for name in PACKAGES:
        module = importlib.import_module(name)
        for public in getattr(module, "__all__", []):
            obj = getattr(module, public, None)
            documented = inspect.isclass(obj) or inspect.isroutine(obj)
            if documented and f'id="{name}.{public}"' not in html:
                missing.append(f"{name}.{public}")
    assert missing == [], "public names without an entry in the API pages:\n" + "\n".join(missing)


def test_rule_catches_what_it_is_for() -> None:
    from dataclasses import dataclass

    @dataclass
    class Bare:
        x: int

    @dataclass
    class Documented:
        """A point."""

        x: int

    class Child(Documented):
        pass

    def f() -> None:
        """Does f."""

    def g() -> None:
        pass

    assert own_docstring(Bare) == "" and own_docstring(Child) == ""
    assert own_docstring(Documented) == "A point." and own_docstring(f) == "Does f."
    assert own_docstring(g) == ""
