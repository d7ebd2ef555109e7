"""docs/architecture.md's registry table and "where to add" table, checked against the code.

Every registry in `src/` is a row of the registry table whose entries are exactly the registry's
names, and the row of the "where to add" table for its kind names the entry type that exists and
the file that holds the registry (the one line to add).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from wirelab.registry import Registry

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "architecture.md"
SRC = REPO / "src" / "wirelab"
TICKS = re.compile(r"`([^`]+)`")


def table(heading: str) -> list[list[str]]:
    """The rows (cells) of the first table after ``heading``, header and rule excluded."""
    text = DOC.read_text().split(heading, 1)[1]
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return rows[2:]


def resolve(dotted: str) -> object:
    module, _, attr = dotted.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def registries_in_code() -> dict[str, Path]:
    """``module.NAME`` of every module-level ``NAME = Registry...`` in src/, with its file."""
    found = {}
    pattern = re.compile(r"^([A-Z_]+)(?:: [^=]+)? = Registry", re.M)
    for path in SRC.rglob("*.py"):
        for name in pattern.findall(path.read_text()):
            parts = path.relative_to(SRC.parent).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[f"{module}.{name}"] = path
    return found


REGISTRY_ROWS = table("## Registries")
ADD_ROWS = table("## Where to add")


def test_every_registry_in_the_code_is_a_row() -> None:
    in_doc = {TICKS.findall(row[1])[0] for row in REGISTRY_ROWS}
    assert in_doc == set(registries_in_code())


@pytest.mark.parametrize("row", REGISTRY_ROWS, ids=[r[0] for r in REGISTRY_ROWS])
def test_registry_row_lists_its_entries(row: list[str]) -> None:
    registry = resolve(TICKS.findall(row[1])[0])
    assert isinstance(registry, Registry)
    assert TICKS.findall(row[2]) == list(registry.names())


@pytest.mark.parametrize("row", [r for r in ADD_ROWS if r[2] != "-"], ids=lambda r: r[0])
def test_where_to_add_row_names_a_type_and_the_registry_file(row: list[str]) -> None:
    entry_type = TICKS.findall(row[2])[0]
    assert resolve(entry_type) is not None
    line_file = SRC / TICKS.findall(row[3])[0]
    assert line_file.is_file()
    assert re.search(r"^[A-Z_]+(?:: [^=]+)? = Registry", line_file.read_text(), re.M), line_file
    for folder in TICKS.findall(row[1]):
        if folder.endswith("/"):
            assert (SRC / folder).is_dir(), folder


def test_every_registry_has_a_where_to_add_row() -> None:
    line_files = {SRC / TICKS.findall(r[3])[0] for r in ADD_ROWS if r[2] != "-"}
    assert set(registries_in_code().values()) <= line_files
