"""Docs as tests for docs/reservoir.md, logic.md, report.md, fly.md, architecture.md,
logic-circuits.md and scale.md (docs/attention.md and docs/sweep.md have their own modules), the
README, the guide pages and the site.

- every ```python block runs as written in a fresh interpreter, in a temporary directory, with
  ``WIRELAB_DATA_DIR`` set; a block whose first line is ``# doc-test: skip (REASON)`` (flygym,
  minutes of training) is reported as skipped with that reason instead;
- documented commands (```bash / ```sh / unlabelled blocks, and inline `wirelab ...` /
  `python ...`) name no path of one machine (``/work/``, ``/tmp/``, ``../shared``, ``.venv/``);
  ``.venv/`` is allowed only in a block marked ``# setup``;
- "identical" is used only for bit-exact equalities ("bit-identical", "identical inputs" as test
  cases, "identical gates" as a rule), never for a measured figure that depends on the machine.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from tests.attention.test_docs import run_snippet

REPO = Path(__file__).resolve().parents[1]
DOCS = ["reservoir", "logic", "report", "fly", "architecture", "logic-circuits", "scale"]
GUIDE = ["index", "getting-started", "data", "design", "connectomes", "examples"]
RESULTS = ["results/index", "results/reservoir", "results/fly", "results/logic"]
RESULTS += ["results/attention", "results/benchmarks"]
README = REPO / "README.md"
NOTEBOOK = re.compile(r"\bload (average|~|\d)|beside (another|one other) job|recipe before", re.I)
SCREENSHOT = "](docs/figures/report/report.png)"
SKIP = re.compile(r"^\s*#\s*doc-test:\s*skip\s*\((?P<why>[^)]*)\)", re.M)
FENCE = re.compile(r"^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.M | re.S)
MACHINE = re.compile(r"(?<![\w.])(/work/|/home/|/Users/|/tmp/|\.\./shared)")
INLINE = re.compile(r"`((?:[A-Z_]+=\S+ )*(?:\S*/)?(?:wirelab|python)\b[^`]*)`")
VENV = re.compile(r"(?<![\w.])\.venv/")
ALLOWED_IDENTICAL = re.compile(
    r"bit-identical(ly)?|identical (inputs|gates)|repeated and identical inputs", re.I
)


def doc(name: str) -> Path:
    return REPO / "docs" / f"{name}.md"


def fenced(path: Path, langs: tuple[str, ...]) -> list[str]:
    return [m["body"] for m in FENCE.finditer(path.read_text()) if m["lang"] in langs]


def snippets() -> list[tuple[str, int, str]]:
    return [(n, i, b) for n in DOCS for i, b in enumerate(fenced(doc(n), ("python",)))]


def commands(path: Path) -> list[tuple[str, bool]]:
    """(command line, whether it sits in a setup block) for every documented command."""
    out: list[tuple[str, bool]] = []
    for body in fenced(path, ("bash", "sh", "shell", "console", "")):
        setup = body.lstrip().startswith("# setup")
        out += [(ln, setup) for ln in body.splitlines() if ln.strip()]
    text = FENCE.sub("", path.read_text())
    out += [(c, False) for c in INLINE.findall(text)]
    return out


def machine_paths(path: Path) -> list[str]:
    return [c for c, setup in commands(path) if MACHINE.search(c) or (VENV.search(c) and not setup)]


def identical_claims(path: Path) -> list[str]:
    text = ALLOWED_IDENTICAL.sub("", path.read_text())
    return [ln.strip() for ln in text.splitlines() if re.search(r"identical", ln, re.I)]


@pytest.mark.parametrize(("name", "index", "code"), snippets(), ids=lambda v: str(v)[:20])
def test_python_snippet_runs_as_written(name: str, index: int, code: str, tmp_path: Path) -> None:
    if m := SKIP.search(code):
        pytest.skip(f"docs/{name}.md block {index}: {m['why']}")
    r = run_snippet(code, tmp_path)
    assert r.returncode == 0, f"docs/{name}.md python block {index}:\n{r.stderr[-2000:]}"


@pytest.mark.parametrize("name", DOCS + GUIDE + RESULTS)
def test_documented_commands_have_no_machine_paths(name: str) -> None:
    assert machine_paths(doc(name)) == []


def test_readme_commands_have_no_machine_paths() -> None:
    assert machine_paths(README) == []


@pytest.mark.parametrize("name", DOCS + GUIDE)
def test_no_identical_claims_for_measured_figures(name: str) -> None:
    assert identical_claims(doc(name)) == []


def test_readme_is_a_users_guide() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    assert [ln for ln in text.splitlines() if NOTEBOOK.search(ln)] == []
    assert SCREENSHOT in text
    assert identical_claims(README) == []


def test_readme_results_table_is_one_table_of_at_most_15_rows() -> None:
    section = README.read_text().split("\n## Results", 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in section.splitlines() if ln.startswith("|")]
    assert rows[0].startswith("| system | result | command | evidence |")
    assert 3 <= len(rows) - 2 <= 15
    for row in rows[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[2].startswith("`") or cells[2] == "the same", row  # its command
        assert "](docs/" in cells[3], row  # a link to its evidence


def test_hook_links_to_repository_files() -> None:
    spec = importlib.util.spec_from_file_location("wirelab_docs_hooks", REPO / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    rewrite_outside_links = hooks.rewrite_outside_links
    md = (
        "[errors](../src/wirelab/errors.py), [gone](../src/wirelab/nope.py), "
        "[page](logic.md), [web](https://example.org), [runs](figures/fpga/)\n"
        "```\n[in code](../src/wirelab/errors.py)\n```\n"
    )
    out = rewrite_outside_links(md, "index.md")
    assert "errors (`src/wirelab/errors.py`)" in out  # an existing repository file: its path
    assert "[gone](../src/wirelab/nope.py)" in out  # a missing one: left for strict mode
    assert "[page](logic.md)" in out and "[web](https://example.org)" in out
    assert "[runs](figures/fpga/README.md)" in out  # a folder: its README
    assert "[in code](../src/wirelab/errors.py)" in out  # code blocks are left alone
