"""MkDocs hooks for the wirelab site (mkdocs.yml: ``hooks: [docs/hooks.py]``).

1. A link to a folder has no page: it goes to the folder's ``README.md`` or ``metrics.json``
   when there is one, else it becomes the folder's repository path as code.
   Links to repository files outside docs/ (``../src/wirelab/x.py``, ``../README.md``,
   ``../examples/01_x.py``) have no page in the site: a link whose target exists in the
   repository becomes its repository path as code (`` `src/wirelab/x.py` ``); a link whose target
   does not exist is left alone, so that strict mode still fails on it.
2. ``<!-- examples -->`` on a page is replaced by every ``examples/NN_*.py`` (sorted by name):
   a heading, the script's docstring as prose, how to run it and the whole script as code. The
   page follows the examples as they are written; a new example needs no docs change.
3. ``<!-- include: PATH -->`` is replaced by the text of the repository file PATH (the
   changelog), with its top-level heading kept.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]+)\]\((?P<target>[^)\s#]+)(?P<anchor>#[^)\s]*)?\)")
EXAMPLES = re.compile(r"^<!--\s*examples\s*-->\s*$", re.M)
INCLUDE = re.compile(r"^<!--\s*include:\s*(?P<path>\S+)\s*-->\s*$", re.M)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def outside_target(page_src: str, target: str) -> Path | None:
    """The repository file a relative link points to when it lies outside docs/, else None."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
        return None  # a URL or an absolute path: not ours to judge
    path = ((DOCS / page_src).parent / target).resolve()
    try:
        path.relative_to(DOCS)
        return None  # inside docs/: mkdocs checks it
    except ValueError:
        pass
    try:
        path.relative_to(REPO)
    except ValueError:
        return None
    return path


FOLDER_PAGES = ("README.md", "index.md", "metrics.json")


def folder_link(page_src: str, m: re.Match[str]) -> str | None:
    """A link to a folder inside docs/, sent to the folder's page or metrics, else as code."""
    target = m["target"]
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
        return None
    path = ((DOCS / page_src).parent / target).resolve()
    if not path.is_dir() or outside_target(page_src, target) is not None:
        return None
    for name in FOLDER_PAGES:
        if (path / name).is_file():
            return f"[{m['text']}]({target.rstrip('/')}/{name})"
    return f"{m['text']} (`{path.relative_to(REPO).as_posix()}/`)"


def rewrite_outside_links(markdown: str, page_src: str) -> str:
    """Replace links to existing repository files outside docs/ by their repository path, and
    links to folders inside docs/ by their page (`folder_link`)."""

    def one(m: re.Match[str]) -> str:
        if (folder := folder_link(page_src, m)) is not None:
            return folder
        path = outside_target(page_src, m["target"])
        if path is None or not path.exists():
            return m[0]
        rel = path.relative_to(REPO).as_posix() + ("/" if path.is_dir() else "")
        text = m["text"]
        return (
            f"`{rel}`"
            if text.strip("`") == rel or text.strip("`").endswith(rel)
            else (f"{text} (`{rel}`)")
        )

    return apply_outside_fences(markdown, lambda s: LINK.sub(one, s))


def apply_outside_fences(markdown: str, fn: Any) -> str:
    """Apply ``fn`` to the text between fenced code blocks only."""
    out, last = [], 0
    for m in FENCE.finditer(markdown):
        out += [fn(markdown[last : m.start()]), m[0]]
        last = m.end()
    return "".join([*out, fn(markdown[last:])])


def example_section(path: Path) -> str:
    """One example as Markdown: heading, docstring, how to run it, the script."""
    source = path.read_text()
    doc = ast.get_docstring(ast.parse(source)) or ""
    rel = path.relative_to(REPO).as_posix()
    title = path.stem.split("_", 1)[-1].replace("_", " ")
    body = "\n".join(
        [
            f"## {path.stem[:2]}: {title}",
            "",
            doc,
            "",
            f"Run it from the repository root: `python {rel}` (the real result) or "
            f"`python {rel} --small` (the size CI runs); files go under `--out`.",
            "",
            f'???+ example "{rel}"',
            "",
            "    ```python",
            *[f"    {ln}" if ln else "" for ln in source.splitlines()],
            "    ```",
            "",
        ]
    )
    return body


def examples_markdown() -> str:
    paths = sorted((REPO / "examples").glob("[0-9][0-9]_*.py"))
    if not paths:
        return "No examples yet.\n"
    return "\n".join(example_section(p) for p in paths)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    src = page.file.src_uri
    markdown = EXAMPLES.sub(lambda _: examples_markdown(), markdown)
    markdown = INCLUDE.sub(lambda m: (REPO / m["path"]).read_text(), markdown)
    return rewrite_outside_links(markdown, src)
