"""Every file or module a document names exists.

Documents: README.md, CHANGELOG.md and every Markdown file under docs/. What they name:

- repository paths in backticks or in link targets, starting with one of `ROOTS`
  (`` `src/wirelab/logic/train.py` ``, `` `python benchmarks/scale.py` ``,
  `` `recipes/logic/x.toml` ``):
  the file or folder must exist; ``{a,b}`` alternatives are expanded and ``*`` globs must match;
  a path with a placeholder in capitals (``recipes/logic/NAME.toml``, ``examples/NN_name.py``)
  or an ellipsis is a pattern, not a name, and is not checked;
- relative link targets (``[x](docs/fly.md)``, ``[x](../figures/a.png)``): resolved from the
  document's folder, they must exist (a link to a URL or an anchor in the page is not checked
  here);
- a bare Python file name in backticks (`` `rundir.py` ``, `` `fly/bodies/hybrid.py` ``): some
  file of the repository's `ROOTS` folders must end with it;
- dotted module names in backticks (`` `wirelab.logic.circuit.passes` ``, `` `wirelab.fly.Body` ``):
  the longest prefix that is a module of src/ must exist, and the rest must be names defined at
  the top level of that module (or inside a class it defines), read from its source (nothing is
  imported, so a module that needs flygym is checked too).
"""

from __future__ import annotations

import ast
import glob
import itertools
import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
ROOTS = ("src", "tests", "benchmarks", "recipes", "examples", "docs", "scripts", "grids")
CODE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"(?<!\\)\]\((?P<target>[^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
PATH = re.compile(rf"(?<![\w./-])(?:{'|'.join(ROOTS)})/[\w./*{{}},+-]*")
MODULE = re.compile(r"(?<![\w./-])wirelab(?:\.[A-Za-z_]\w*)+")
PYFILE = re.compile(r"(?<![\w./{}*-])\w[\w/]*\.py\b")
PLACEHOLDER = re.compile(
    r"(?<![A-Za-z])(?!README|LICENSE|CHANGELOG|CITATION)[A-Z][A-Z0-9]+(?![a-z])"
)


def documents() -> list[Path]:
    docs = sorted((REPO / "docs").rglob("*.md"))
    return [REPO / "README.md", REPO / "CHANGELOG.md", *docs]


def expand_braces(path: str) -> list[str]:
    parts = re.split(r"\{([^{}]*)\}", path)
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


def path_exists(rel: str, base: Path = REPO) -> bool:
    rel = rel.rstrip(".,;:")
    for one in expand_braces(rel):
        if "*" in one or "?" in one:
            if not glob.glob(str(base / one)):
                return False
        elif not (base / one).exists():
            return False
    return True


def named_paths(text: str) -> set[str]:
    """Repository paths named in backticks or fenced blocks (commands) of a document."""
    spans = CODE.findall(FENCE.sub("", text)) + FENCE.findall(text)
    found = {m.rstrip(".,;:") for s in spans for m in PATH.findall(s)}
    return {p for p in found if "..." not in p and not PLACEHOLDER.search(p) and p.count("/")}


def python_files() -> set[str]:
    """Every tracked-looking .py file of the repository's `ROOTS` folders, repository-relative."""
    return {
        p.relative_to(REPO).as_posix()
        for root in ROOTS
        for p in (REPO / root).rglob("*.py")
        if "__pycache__" not in p.parts
    }


def named_py_files(text: str) -> set[str]:
    """Bare Python file names in backticks (not starting with one of `ROOTS`)."""
    spans = CODE.findall(FENCE.sub("", text))
    found = {m for s in spans for m in PYFILE.findall(s)}
    return {f for f in found if not f.startswith(tuple(r + "/" for r in ROOTS))}


def py_file_exists(name: str, files: set[str]) -> bool:
    return any(f == name or f.endswith("/" + name) for f in files)


def link_targets(text: str) -> set[str]:
    """Relative link targets of a document (no URLs, no in-page anchors)."""
    targets = {m["target"].split("#")[0] for m in LINK.finditer(FENCE.sub("", text))}
    return {t for t in targets if t and not re.match(r"^[a-z][a-z0-9+.-]*:", t)}


def module_file(dotted: str) -> Path | None:
    base = SRC.joinpath(*dotted.split("."))
    for cand in (base / "__init__.py", base.with_suffix(".py")):
        if cand.is_file():
            return cand
    return None


@cache
def defined_names(path: Path) -> dict[str, set[str]]:
    """Top-level names of a module ('' key) and the names defined in each of its classes."""
    tree = ast.parse(path.read_text())
    out: dict[str, set[str]] = {"": set()}
    for node in tree.body:
        out[""] |= names_of(node)
        if isinstance(node, ast.ClassDef):
            out[node.name] = set().union(set(), *(names_of(n) for n in node.body))
    return out


@cache
def imported_from(path: Path) -> dict[str, str]:
    """Names a module imports from another wirelab module -> that name's dotted origin."""
    out = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("wirelab"):
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def names_of(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    if isinstance(node, ast.If | ast.Try):
        body = node.body + node.orelse + getattr(node, "finalbody", [])
        body += [s for h in getattr(node, "handlers", []) for s in h.body]
        return set().union(set(), *(names_of(n) for n in body))
    return set()


def module_exists(dotted: str) -> bool:
    """The longest prefix of ``dotted`` that is a module of src/ exists, and the rest are names
    defined in it (``module.Name`` or ``module.Class.member``)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        path = module_file(".".join(parts[:i]))
        if path is None:
            continue
        rest = parts[i:]
        if not rest:
            return True
        names = defined_names(path)
        if rest[0] not in names[""]:
            return False
        if len(rest) == 1:
            return True
        if rest[0] in imported_from(path):
            return module_exists(".".join([imported_from(path)[rest[0]], *rest[1:]]))
        return rest[0] in names and rest[1] in names[rest[0]] and len(rest) == 2
    return False


def named_modules(text: str) -> set[str]:
    spans = CODE.findall(FENCE.sub("", text))
    return {m.rstrip(".") for s in spans for m in MODULE.findall(s)}


def missing(doc: Path) -> list[str]:
    text = doc.read_text()
    out = [f"path {p}" for p in sorted(named_paths(text)) if not path_exists(p)]
    out += [f"link {t}" for t in sorted(link_targets(text)) if not path_exists(t, doc.parent)]
    out += [f"module {m}" for m in sorted(named_modules(text)) if not module_exists(m)]
    files = python_files()
    out += [f"file {f}" for f in sorted(named_py_files(text)) if not py_file_exists(f, files)]
    return out


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_named_file_and_module_exists(doc: Path) -> None:
    assert missing(doc) == [], f"{doc.relative_to(REPO)} names what does not exist"


def test_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text(
        "See `src/wirelab/nope.py`, `src/wirelab/{data,reservoir}/__init__.py`, "
        "`python benchmarks/scale.py reservoir|taxis`, `recipes/logic/NAME.toml`, "
        "`docs/figures/reservoir/xspecies/larva-all.*`, `src/wirelab/...`, "
        "`wirelab.logic.circuit.passes`, `wirelab.logic.nope`, `wirelab.data.Connectome.select`, "
        "`wirelab.data.Connectome.nope`, [a](missing.md), [b](https://example.org), [c](#here), "
        "`rundir.py`, `python_backend.py`.\n"
        "```bash\npython benchmarks/nope.py\n```\n"
    )
    assert missing(doc) == [
        "path benchmarks/nope.py",
        "path src/wirelab/nope.py",
        "link missing.md",
        "module wirelab.data.Connectome.nope",
        "module wirelab.logic.nope",
        "file python_backend.py",
    ]
