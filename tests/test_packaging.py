"""Packaging: one version everywhere, the licence and citation files, what the sdist and wheel
hold, and (slow) the wheel installed in a clean environment and run outside the repository
(scripts/check-wheel.sh, `make dist-check`, which CI runs)."""

from __future__ import annotations

import fnmatch
import importlib.util
import os
import re
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

import wirelab

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
VERSION = PROJECT["version"]
CITED_DOIS = ("10.1126/science.add9330", "10.1038/s41592-024-02497-y")
CITED_TITLES = (
    "The connectome of an insect brain",
    "Deep Differentiable Logic Gate Networks",
    "Attention Is All You Need",
    "NeuroMechFly v2",
)


def citation() -> dict:
    yaml = pytest.importorskip("yaml")
    doc = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert isinstance(doc, dict)
    return doc


def test_version_is_one_number() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)
    assert wirelab.__version__ == VERSION, "reinstall (make install): the metadata is stale"
    assert str(citation()["version"]) == VERSION


def test_license_file_names_year_and_holder() -> None:
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert re.search(r"^Copyright \(c\) 20\d\d \S.+$", text, re.M)
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]


def test_citation_file() -> None:
    doc = citation()
    assert doc["cff-version"] == "1.2.0"
    assert doc["license"] == "MIT"
    assert doc["title"] and doc["authors"] and doc["date-released"]
    titles = [ref["title"] for ref in doc["references"]]
    for title in CITED_TITLES:
        assert any(t.startswith(title) for t in titles), title
    dois = {str(ref.get("doi")) for ref in doc["references"]}
    assert set(CITED_DOIS) <= dois
    for ref in doc["references"]:
        assert ref["authors"] and ref["year"], ref["title"]


def test_metadata_for_an_index() -> None:
    assert PROJECT["readme"] == "README.md"
    assert PROJECT["authors"] and PROJECT["keywords"] and PROJECT["classifiers"]
    assert not any(c.startswith("License ::") for c in PROJECT["classifiers"])  # the SPDX field
    assert PROJECT["scripts"]["wirelab"] == "wirelab.cli:main"
    extras = PROJECT["optional-dependencies"]
    names = {re.split(r"[<>=\[;! ]", r, maxsplit=1)[0] for r in extras["dev"] + extras["docs"]}
    assert {"build", "twine", "mkdocs", "mkdocstrings", "mkdocs-material"} <= names


def test_package_data_patterns_cover_every_data_file() -> None:
    """Every non-Python file under src/wirelab is matched by a package-data pattern, so the wheel
    carries it (scripts/check-wheel.sh checks the built wheel itself)."""
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["wirelab"]
    package = REPO / "src" / "wirelab"
    tracked = subprocess.run(
        ["git", "ls-files", "--", "src/wirelab"], cwd=REPO, capture_output=True, text=True
    ).stdout.split()
    data = [
        Path(f).relative_to("src/wirelab").as_posix()
        for f in tracked
        if not f.endswith(".py") and (REPO / f).is_file()
    ]
    assert "py.typed" in data and (package / "py.typed").is_file()

    def covered(name: str) -> bool:  # setuptools' glob: ** spans directories
        return any(
            fnmatch.fnmatch(name, p) or fnmatch.fnmatch(name, p.removeprefix("**/"))
            for p in patterns
        )

    assert [f for f in data if not covered(f)] == []


@pytest.mark.skipif(importlib.util.find_spec("build") is None, reason="needs the dev extra")
def test_sdist_holds_the_source_release(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", tmp_path, REPO],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (sdist,) = tmp_path.glob("wirelab-*.tar.gz")
    assert sdist.name == f"wirelab-{VERSION}.tar.gz"
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for need in ("pyproject.toml", "README.md", "LICENSE", "CITATION.cff", "MANIFEST.in"):
        assert need in names
    assert "src/wirelab/__init__.py" in names and "src/wirelab/py.typed" in names
    recipes = {
        f"src/wirelab/logic/recipes/{p.name}" for p in (REPO / "recipes" / "logic").glob("*.toml")
    }
    assert recipes and recipes <= names
    assert not any(
        n.startswith("recipes/") for n in names
    )  # one copy of the recipes: the package's
    assert not any(n.startswith(("tests/", ".venv", "docs/figures")) for n in names)


def test_make_and_ci_run_the_docs_and_the_wheel_check() -> None:
    makefile = (REPO / "Makefile").read_text()
    for target in ("docs", "dist-check", "examples"):
        assert re.search(rf"^{target}:", makefile, re.M), target
    assert "mkdocs build --strict" in makefile
    ci = (REPO / ".ci" / "run").read_text()
    for step in ("make docs", "make dist-check", "make test"):
        assert step in ci
    ignored = (REPO / ".gitignore").read_text().split()
    assert {"/site/", "dist/", "/runs/"} <= set(ignored)


@pytest.mark.slow
def test_wheel_installs_and_runs_outside_the_repo() -> None:
    """About a minute: build, twine check, a clean venv with torch and the wheel, the CLI and the
    quickstarts run from a temporary directory."""
    proc = subprocess.run(
        ["bash", str(REPO / "scripts" / "check-wheel.sh")],
        cwd=REPO,
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "PASSED" in out and "check-wheel: [" in out
    assert f"wirelab, version {VERSION}" in out
    assert re.search(r"passed: wirelab-.+\.whl", out)
