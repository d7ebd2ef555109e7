"""``wirelab report DIR... --out PAGE.html``: one HTML page from result directories.

An empty DIR (which would take the current directory) is a usage error; symbolic links inside
the runs are never followed and hard-linked files never read, and the command names them in one
line on stderr; every name is printed safely whatever its bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from wirelab.cli_options import finite_float
from wirelab.errors import UsageError


class RunsPath(click.Path):
    """A DIR argument: a path, never the empty one (``''`` would be the current directory)."""

    def __init__(self) -> None:
        super().__init__(path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value == "":
            self.fail("'' is empty (name the folder, '.' for the current one)", param, ctx)
        return super().convert(value, param, ctx)


@click.command("report")
@click.argument("dirs", nargs=-1, required=True, type=RunsPath())
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("report.html"),
    show_default=True,
    help="The HTML page to write.",
)
@click.option("--title", default="wirelab report", show_default=True, help="Page title.")
@click.option(
    "--max-rows",
    type=click.IntRange(1),
    default=25,
    show_default=True,
    help="Rows shown per metrics table; longer tables are cut with a note.",
)
@click.option(
    "--max-embed-mb",
    type=finite_float(0, min_open=True),
    default=25.0,
    show_default=True,
    help="Plots and videos larger than this are linked instead of embedded.",
)
@click.option(
    "--max-page-mb",
    type=finite_float(0, min_open=True),
    default=50.0,
    show_default=True,
    help="Videos are embedded while their total stays under this; past it a video shows its "
    "first frame and a link.",
)
@click.option(
    "--screenshot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also open the page in headless Chromium, save a PNG of its top and fail (exit 1) "
    "on console errors or images that do not load.",
)
@click.option(
    "--screenshot-size",
    default="1280x900",
    show_default=True,
    help="Viewport of the screenshot, WIDTHxHEIGHT pixels (the top of the page).",
)
def command(
    dirs: tuple[Path, ...],
    out: Path,
    title: str,
    max_rows: int,
    max_embed_mb: float,
    max_page_mb: float,
    screenshot: Path | None,
    screenshot_size: str,
) -> None:
    """Build one self-contained HTML page from result directories.

    Each DIR is a result directory (holding config.json / metrics.json) or a directory searched
    recursively for them. A run whose type has a headline (reservoir, fly, logic, attention
    pooling, sweeps) is shown answer first: its question, the answer with its uncertainty, a
    verdict computed from its metrics and the published figures beside it, then its key plots
    and videos, with its raw metrics folded below. Other runs: plots embedded, videos embedded or
    linked, metrics as tables, with the command and config; runs in progress, failed or broken
    are shown as such, with the reason.
    """
    from wirelab.report.html import check_out, write_runs
    from wirelab.report.reading import shown
    from wirelab.report.runs import load_runs

    size = _viewport(screenshot_size)
    check_out(out)
    if screenshot is not None:
        check_out(screenshot, "--screenshot")
    links: list[Path] = []
    runs = load_runs(dirs, links)  # raises UsageError when nothing is found
    page = write_runs(
        runs,
        out,
        title=title,
        max_rows=max_rows,
        max_embed_bytes=int(max_embed_mb * 2**20),
        max_page_bytes=int(max_page_mb * 2**20),
    )
    click.echo(f"{len(runs)} runs -> {shown(page)} ({page.stat().st_size / 2**20:.1f} MB)")
    not_complete = [f"{r.name} ({r.status})" for r in runs if r.status != "complete"]
    if not_complete:
        click.echo(f"not complete (shown with the reason): {', '.join(not_complete)}", err=True)
    _note_links([*links, *(f for r in runs for f in r.links)])
    if screenshot is not None:
        _screenshot(page, screenshot, size)


def _note_links(links: list[Path], shown: int = 5) -> None:
    """One line on stderr naming the links left out, symbolic or hard (the first ``shown``)."""
    if not links:
        return
    from wirelab.report.reading import shown as safe

    names = ", ".join(safe(f) for f in links[:shown]) + (", ..." if len(links) > shown else "")
    click.echo(
        f"not read: {len(links)} link{'s' if len(links) > 1 else ''}, symbolic or hard "
        f"(only regular files inside the runs, with no other name, are read): {names}",
        err=True,
    )


def _viewport(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` as two integers within the range Chromium renders."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--screenshot-size must be WIDTHxHEIGHT, got {text!r}") from None
    if not (100 <= width <= 8000 and 100 <= height <= 20000):
        raise UsageError(f"--screenshot-size {text} is out of range")
    return width, height


def _screenshot(page: Path, screenshot: Path, size: tuple[int, int]) -> None:
    """Open the page in Chromium, save the screenshot; exit 1 on problems the browser saw."""
    from wirelab.report.browser import BrowserError, check_page

    check = check_page(page, screenshot=screenshot, width=size[0], height=size[1])
    click.echo(f"screenshot -> {screenshot}")
    if not check.ok:
        problems = " ".join("; ".join(check.problems()).split())  # one line
        raise BrowserError(f"the page has problems in Chromium: {problems}")
