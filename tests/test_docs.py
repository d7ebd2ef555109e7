"""Docs as tests for docs/reservoir.md, logic.md, report.md, fly.md, architecture.md,
logic-circuits.md and scale.md (docs/attention.md and docs/sweep.md have their own modules).

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

import re
from pathlib import Path

import pytest

from tests.attention.test_docs import run_snippet

REPO = Path(__file__).resolve().parents[1]
DOCS = ["reservoir", "logic", "report", "fly", "architecture", "logic-circuits", "scale"]
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


@pytest.mark.parametrize("name", DOCS)
def test_documented_commands_have_no_machine_paths(name: str) -> None:
    assert machine_paths(doc(name)) == []


@pytest.mark.parametrize("name", DOCS)
def test_no_identical_claims_for_measured_figures(name: str) -> None:
    assert identical_claims(doc(name)) == []


def test_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_text(
        "```bash\nWIRELAB_DATA_DIR=../shared/data .venv/bin/python x.py\n```\n"
        "```bash\n# setup\npython -m venv .venv && .venv/bin/pip install -e .\n```\n"
        "Run `wirelab tour --out /tmp/tour`, `.venv/bin/python f.py`. "
        "Reruns give identical accuracies; "
        "bit-identical states.\n"
        "```python\n# doc-test: skip (needs flygym, minutes)\nimport flygym\n```\n"
    )
    assert machine_paths(bad) == [
        "WIRELAB_DATA_DIR=../shared/data .venv/bin/python x.py",
        "wirelab tour --out /tmp/tour",
        ".venv/bin/python f.py",
    ]
    assert len(identical_claims(bad)) == 1
    assert SKIP.search(fenced(bad, ("python",))[0])
