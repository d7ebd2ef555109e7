"""Every quickstart runs as written: the ```python blocks of README.md and of the module docstrings
of the public packages, each in a fresh interpreter, in a temporary directory, with
``WIRELAB_DATA_DIR`` set (`tests.attention.test_docs.run_snippet`).

- each package in `PACKAGES` has at least one ```python block in its ``__init__`` docstring (its
  quickstart); a package without one fails;
- each package's quickstart appears in README.md as written (the README's Python quickstarts are
  the packages' own), so the two cannot drift apart;
- a README block that is also a package's quickstart runs once.

Docstrings are read from the source (`ast`), so a package that fails to import still shows its
quickstart's own error when the block runs.

``python -m tests.test_quickstarts`` copies each package's quickstart into README.md, in place of
the first ```python block under the package's heading (`README_SECTIONS`).
"""

from __future__ import annotations

import ast
import code
import importlib.util
import re
import textwrap
from pathlib import Path

import pytest

from tests.attention.test_docs import run_snippet

REPO = Path(__file__).resolve().parents[1]
PACKAGES = [
    "wirelab",
    "wirelab.data",
    "wirelab.reservoir",
    "wirelab.logic",
    "wirelab.attention",
    "wirelab.fly",
]
README_SECTIONS = {
    "### Data": "wirelab.data",
    "### Reservoir": "wirelab.reservoir",
    "### Fly": "wirelab.fly",
    "### Logic": "wirelab.logic",
    "### Attention": "wirelab.attention",
}
FENCE = re.compile(r"^(?P<indent>[ \t]*)```python[ \t]*\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of Markdown text, dedented (docstring blocks may be indented)."""
    return [textwrap.dedent(m["body"]) for m in FENCE.finditer(text)]


def package_source(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, f"{name} not found"
    return Path(spec.origin)


def docstring(name: str) -> str:
    return ast.get_docstring(ast.parse(package_source(name).read_text())) or ""


def quickstarts() -> dict[str, list[str]]:
    return {name: python_blocks(docstring(name)) for name in PACKAGES}


def readme_blocks() -> list[str]:
    return python_blocks((REPO / "README.md").read_text())


def normalise(code: str) -> str:
    return "\n".join(ln.rstrip() for ln in code.strip().splitlines())


def snippets() -> list[tuple[str, str]]:
    """(where, code) for every block to run: the packages' blocks, then README blocks not
    already among them."""
    out = [
        (f"{n} docstring block {i}", c) for n, cs in quickstarts().items() for i, c in enumerate(cs)
    ]
    seen = {normalise(c) for _, c in out}
    out += [
        (f"README.md block {i}", c)
        for i, c in enumerate(readme_blocks())
        if normalise(c) not in seen
    ]
    return out


@pytest.mark.parametrize("name", PACKAGES)
def test_every_package_has_a_quickstart(name: str) -> None:
    assert python_blocks(docstring(name)), f"{name}: no ```python quickstart in its docstring"


@pytest.mark.parametrize("name", PACKAGES)
def test_readme_quickstarts_are_the_packages(name: str) -> None:
    """The package's first block (its quickstart) is in README.md as written."""
    blocks = python_blocks(docstring(name))
    if name == "wirelab" or not blocks:
        pytest.skip(f"{name}: the top-level package's blocks need not be in the README")
    readme = {normalise(b) for b in readme_blocks()}
    assert normalise(blocks[0]) in readme, (
        f"README.md lacks {name}'s quickstart as written:\n{blocks[0]}"
    )


@pytest.mark.parametrize(("where", "code"), snippets(), ids=lambda v: str(v)[:40])
def test_quickstart_runs_as_written(where: str, code: str, tmp_path: Path) -> None:
    r = run_snippet(code, tmp_path)
    assert r.returncode == 0, f"{where}:\n{code}\n{r.stderr[-3000:]}"
    assert r.stdout.strip(), (
        f"{where} prints nothing: a quickstart shows what a person wants to see"
    )


class _Shell(code.InteractiveConsole):
    """Python's own shell, reading lines as a person pastes them, compiling without running:
    what it would run (each statement it compiled) and whether any line was a syntax error."""

    def __init__(self) -> None:
        super().__init__()
        self.ran: list[object] = []
        self.errors: list[str] = []

    def runcode(self, code: object) -> None:
        self.ran.append(code)

    def showsyntaxerror(self, filename: str | None = None, **kwargs: object) -> None:
        self.errors.append(filename or "<console>")


def paste(source: str) -> _Shell:
    """``source`` pasted line by line into the interactive shell (a blank line ends it)."""
    shell = _Shell()
    more = False
    for line in source.splitlines():
        more = shell.push(line)
    if more:
        shell.push("")
    return shell


def echoes(source: str) -> list[str]:
    """Top-level expression statements whose value the shell would print (not ``print(...)``)."""
    tree = ast.parse(source)
    return [
        ast.unparse(n)
        for n in tree.body
        if isinstance(n, ast.Expr)
        and not (isinstance(n.value, ast.Call) and ast.unparse(n.value.func) == "print")
    ]


@pytest.mark.parametrize("index", range(len(readme_blocks())))
def test_readme_quickstart_pastes_into_a_python_shell(index: int) -> None:
    """The README's blocks pasted into ``python``'s prompt: no line is a syntax error there (a
    block needs a blank line before the statement after it), and nothing echoes a value."""
    source = readme_blocks()[index]
    shell = paste(source)
    assert not shell.errors, f"pasted into a Python shell, this is a syntax error:\n{source}"
    assert shell.ran, source
    assert not echoes(source), f"the shell would print these values: {echoes(source)}"


def test_paste_catches_what_the_shell_refuses() -> None:
    ok = "for i in range(2):\n    x = i\n\nprint(x)\n"
    assert not paste(ok).errors
    assert paste("for i in range(2):\n    x = i\nprint(x)\n").errors  # no blank line
    assert echoes("len([1])\nprint(1)\n_ = len([])\n") == ["len([1])"]


def test_blocks_are_found_in_docstrings_and_markdown() -> None:
    doc = """Title.

    Example:
        ```python
        import x
        print(x)
        ```

    ```python
    y = 1
    ```
    """
    assert python_blocks(textwrap.dedent(doc)) == ["import x\nprint(x)\n", "y = 1\n"]
    assert python_blocks("```bash\nls\n```\n") == []


def sync_readme(readme: Path = REPO / "README.md") -> list[str]:
    """Copy each package's quickstart into README.md under its heading; what was done, per line."""
    text, done = readme.read_text(), []
    block = re.compile(r"^```python\n.*?^```\n", re.M | re.S)
    for heading, name in README_SECTIONS.items():
        blocks = python_blocks(docstring(name))
        start = re.search(rf"^{re.escape(heading)}", text, re.M)
        m = block.search(text, start.start()) if start and blocks else None
        if m is None:
            done.append(f"{name}: left as it is (no quickstart, heading or block)")
            continue
        text = text[: m.start()] + "```python\n" + blocks[0] + "```\n" + text[m.end() :]
        done.append(f"{name}: {len(blocks[0].splitlines())} lines")
    readme.write_text(text)
    return [*done, f"README.md: {len(text.splitlines())} lines"]


if __name__ == "__main__":
    print("\n".join(sync_readme()))
