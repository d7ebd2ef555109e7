"""The codebase's shape, checked: no import cycles (function-level imports included), no module
over 400 lines, and result directories created only by experiments' ``run(config, out)``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "wirelab"
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """Every wirelab module that ``path`` imports, at any depth of the code (functions too).

    ``from pkg import x`` counts as an import of ``pkg.x`` when that is a module, else of ``pkg``.
    """
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base if is_pkg else base[:-1]
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for a in node.names:
                sub = f"{mod}.{a.name}"
                found.add(sub if sub in known else mod)
    return {m for m in found if m in known and m != name}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    graph = {name: imports(path, name, known) for name, path in mods.items()}
    # A package's __init__ re-exporting its own submodules is how Python packages work, not a
    # cycle between concepts: drop edges from a package to its own submodules.
    return {name: {m for m in deps if not m.startswith(name + ".")} for name, deps in graph.items()}


def test_cycle_finder_finds_a_cycle() -> None:
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    assert find_cycles(import_graph()) == []


def test_no_module_over_400_lines() -> None:
    long = {
        str(p.relative_to(SRC)): n
        for p in SRC.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_result_dirs_are_created_by_experiments_only() -> None:
    creating = re.compile(r"ResultDir\.create|experiment\(")
    offenders = [
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if p.name in ("cli.py", "tour.py") and creating.search(p.read_text())
    ]
    assert offenders == []


MAX_FUNCTION_LINES = 80
MAX_FMT_SKIPS = 10


def test_no_function_over_80_lines() -> None:
    long = {
        f"{p.relative_to(SRC)}:{node.name}": n
        for p in SRC.rglob("*.py")
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (n := (node.end_lineno or node.lineno) - node.lineno + 1) > MAX_FUNCTION_LINES
    }
    assert long == {}


def test_few_hand_compressed_lines() -> None:
    """Structure instead of compression: a module that needs ``# fmt: skip`` is two concepts."""
    skips = sum(p.read_text().count("# fmt: skip") for p in SRC.rglob("*.py"))
    assert skips <= MAX_FMT_SKIPS


def registry_names() -> dict[str, str]:
    """``NAME -> module`` of every module-level registry in src/."""
    pattern = re.compile(r"^([A-Z_]+)(?:: [^=]+)? = Registry", re.M)
    return {
        name: module_name(p) for p in SRC.rglob("*.py") for name in pattern.findall(p.read_text())
    }


def test_every_registry_has_a_toy_entry_test() -> None:
    """A test registers a toy entry in one line (``NAME.add(...)``) for every registry."""
    tests = "\n".join(p.read_text() for p in SRC.parents[1].joinpath("tests").rglob("test_*.py"))
    missing = [f"{m}.{n}" for n, m in registry_names().items() if f"{n}.add(" not in tests]
    assert missing == []


# String constants equal to an entry's name that are not that entry: a C compiler's language flag,
# objcopy's output format, the subfolder a compiled library is built in, the sweep command group,
# the Python interpreter (a virtual environment's, a grid command's, a version record's key).
NOT_ENTRIES = {
    ("fly/envs.py", "python"),
    ("results.py", "python"),
    ("sweep/grid.py", "python"),
    ("logic/fpga/firmware.py", "c"),
    ("logic/fpga/firmware.py", "verilog"),
    ("logic/fpga/run.py", "c"),
    ("cli.py", "sweep"),
    ("report/html.py", "sweep"),
    ("report/runs.py", "sweep"),
    ("sweep/cli.py", "sweep"),
    ("sweep/grid.py", "sweep"),
}


def entry_names() -> dict[str, tuple[str, set[str]]]:
    """For each entry name: the package of its entries and the modules allowed to name it (its
    own module, the registry's line)."""
    from wirelab.logic.circuit.backends import BACKENDS
    from wirelab.report.headlines import HEADLINES
    from wirelab.reservoir.tasks import TASKS

    names: dict[str, tuple[str, set[str]]] = {}
    for registry, package in (
        (TASKS, "reservoir/tasks"),
        (BACKENDS, "logic/circuit/backends"),
        (HEADLINES, "report/headlines"),
    ):
        for name in registry.names():
            names[name] = (package, set())
    return names


def test_no_task_back_end_or_headline_is_named_outside_its_package() -> None:
    """Experiments, verification and the report loop over entries: an entry's name appears as a
    string only in its registry subpackage (its module and its registry line)."""
    names = entry_names()
    offenders = []
    for p in SRC.rglob("*.py"):
        rel = str(p.relative_to(SRC))
        for node in ast.walk(ast.parse(p.read_text())):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if node.value in names:
                package, _ = names[node.value]
                if not rel.startswith(package + "/") and (rel, node.value) not in NOT_ENTRIES:
                    offenders.append(f"{rel}:{node.lineno} {node.value!r}")
    assert offenders == []
