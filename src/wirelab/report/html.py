"""One self-contained HTML page from result directories.

``write_report(paths, out)`` reads result directories only (``config.json``, ``metrics.json``,
plots, videos; see `wirelab.report.runs`) and writes one page: the answers (one line per question
a run answers), a summary of every run, then one section per system (data, reservoir, fly, logic,
attention, ...). In a section each run with a headline is told answer first (its question, answer
with uncertainty, computed verdict, the published figures beside it, the evidence, then its raw
metrics folded; see `wirelab.report.story`); any other run is an article with its status, command
line and config, its metrics as tables, its plots embedded as base64 ``data:`` URIs and its videos
embedded (or linked, above ``max_embed_bytes``; a poster frame once the page's videos pass
``max_page_bytes``; see `wirelab.report.files`).

The page loads nothing from anywhere else and runs no JavaScript, and says so to the browser with
a Content-Security-Policy (`CSP`) that allows exactly that: ``data:`` images and media and the one
inline stylesheet (by its SHA-256 hash), nothing else. A run that is in progress, failed or whose
files are malformed is shown as such, with the reason.
"""

from __future__ import annotations

import base64
import hashlib
import os
import time
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path

from wirelab import __version__
from wirelab.errors import UsageError, WirelabError
from wirelab.report.article import MAX_EMBED_BYTES, PageContext, badge, render_run
from wirelab.report.headlines.base import Headline
from wirelab.report.media import MAX_PAGE_BYTES, EmbedBudget
from wirelab.report.runs import SYSTEMS, Run, load_runs
from wirelab.report.story import (
    Story,
    inline,
    plan_stories,
    render_overview,
    render_story,
    verdict_html,
)
from wirelab.report.style import CSS
from wirelab.report.tables import MAX_ROWS, fmt, headline
from wirelab.results import atomic_write_bytes

SYSTEM_TITLES = {
    "data": "Data: the larval connectome and MNIST",
    "reservoir": "Connectome reservoir",
    "fly": "The connectome drives a fly",
    "logic": "Logic gate networks and circuits",
    "attention": "Attention",
    "sweep": "Sweeps",
    "other": "Other runs",
}
STATUSES = ("complete", "in progress", "failed", "incomplete", "broken")
_STYLE_HASH = base64.b64encode(hashlib.sha256(CSS.encode("utf-8")).digest()).decode("ascii")
CSP = (
    "default-src 'none'; img-src data:; media-src data:; "
    f"style-src 'sha256-{_STYLE_HASH}'; base-uri 'none'; form-action 'none'"
)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _summary_row(run: Run, nested: bool, answers: dict[int, Headline]) -> str:
    h = answers.get(id(run))
    if run.status != "complete" and run.reason:
        heads = f'<span class="dim">{escape(run.reason)}</span>'
    elif h is not None:
        heads = f"<b>{inline(h.answer)}</b>{verdict_html(h)}"
    elif run.metrics:
        heads = escape("; ".join(f"{k} = {fmt(v)}" for k, v in headline(run.metrics)))
    else:
        heads = ""
    return (
        f"<tr><td>{escape(run.system)}</td>"
        f'<td class=mono><a href="#{run.anchor}">{escape(run.name)}</a></td>'
        f"<td>{badge(run)}</td>"
        f'<td class="mono cmd">{escape(run.command)}</td><td>{heads}</td>'
        f"<td class=num>{len(run.images) + len(run.videos)}</td>"
        + (f"<td class=num>{len(run.children) or ''}</td>" if nested else "")
        + "</tr>"
    )


def render_summary(runs: Sequence[Run], stories: Sequence[Story] = ()) -> str:
    """Counts over all runs (by status), then one table row per top-level run: its answer where
    it has a headline, else its first metrics (or why it is not complete)."""
    counts = [(s, sum(r.status == s for r in runs)) for s in STATUSES]
    cards = [("runs", len(runs)), *((s, n) for s, n in counts if n or s == "complete")]
    cards += [("plots", sum(len(r.images) for r in runs))]
    cards += [("videos", sum(len(r.videos) for r in runs))]
    html = '<div class="cards">' + "".join(
        f"<div class=card><b>{n}</b><span>{escape(k)}</span></div>" for k, n in cards
    )
    html += "</div>"
    answers = {id(r): s.headline for s in stories for r in s.runs}
    nested = any(r.children for r in runs)
    rows = "".join(_summary_row(r, nested, answers) for r in runs if r.parent is None)
    head = (
        "<tr><th>system</th><th>run</th><th>status</th><th>command</th>"
        "<th>answer or headline metrics, or why not complete</th><th>plots</th>"
        + ("<th>inner runs</th>" if nested else "")
        + "</tr>"
    )
    return html + (
        f'<div class="scroll"><table class="summary"><thead>{head}</thead>'
        f"<tbody>{rows}</tbody></table></div>"
    )


def render_page(
    runs: Sequence[Run],
    page_dir: Path,
    *,
    title: str = "wirelab report",
    max_rows: int = MAX_ROWS,
    max_bytes: int = MAX_EMBED_BYTES,
    max_page_bytes: int = MAX_PAGE_BYTES,
) -> str:
    """The whole page as a string: the answers, the summary, then one section per system with
    its stories (`wirelab.report.story`) and the runs without a headline."""
    ctx = PageContext(page_dir, max_rows, max_bytes, EmbedBudget(max_page_bytes))
    top = [r for r in runs if r.parent is None]
    stories, generic = plan_stories(top)
    systems = [s for s in SYSTEMS if any(r.system == s for r in top)]
    nav = "".join(
        f'<a href="#system-{s}">{escape(s)} ({sum(r.system == s for r in top)})</a>'
        for s in systems
    )
    stamp = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    body = [
        f'<header class="page"><div class="inner"><h1>{escape(title)}</h1>'
        f'<p class="dim">{_plural(len(runs), "run")} from {_plural(len(systems), "system")}'
        f" · generated {stamp} "
        f"by wirelab {__version__} from result directories only</p>"
        f'<nav class="systems">{nav}</nav></div></header><main>',
    ]
    if stories:
        body.append(f'<section id="answers"><h2>Answers</h2>{render_overview(stories)}</section>')
    body.append(f'<section id="summary"><h2>Summary</h2>{render_summary(runs, stories)}</section>')
    if not runs:
        body.append('<p class="dim">No result directories were given.</p>')
    for s in systems:
        parts = [render_story(st, ctx) for st in stories if st.system == s]
        parts += [render_run(r, ctx) for r in generic if r.system == s]
        body.append(
            f'<section id="system-{s}" class="system"><h2>{escape(SYSTEM_TITLES[s])}</h2>'
            f"{''.join(parts)}</section>"
        )
    body.append(
        "</main><footer>Self-contained page: plots and videos are embedded as data URIs; "
        "no scripts, no external resources. Verdicts are computed from each run's metrics; "
        "published figures come from <code>wirelab.anchors</code>. Rebuild it with "
        "<code>wirelab report DIR... --out PAGE.html</code>.</footer>"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def check_out(out: Path, option: str = "--out") -> None:
    """Refuse, before any work, a page path that cannot be written; never create folders.

    Raises `UsageError` when ``out`` is a directory or its folder does not exist, is not a
    directory or is not writable.
    """
    if out.is_dir():
        raise UsageError(f"{option} {out} is a directory; give a file name such as report.html")
    folder = out.absolute().parent
    if not folder.is_dir():
        what = "is not a directory" if folder.exists() else "does not exist"
        raise UsageError(f"{option} {out}: the folder {folder} {what}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {out}: cannot write to {folder} (permission denied)")


def write_runs(
    runs: Sequence[Run],
    out: str | Path,
    *,
    title: str = "wirelab report",
    max_rows: int = MAX_ROWS,
    max_embed_bytes: int = MAX_EMBED_BYTES,
    max_page_bytes: int = MAX_PAGE_BYTES,
) -> Path:
    """Write the page for already loaded runs (see `wirelab.report.runs.load_runs`).

    The page is written atomically with mode ``0666 & ~umask``; see `check_out` for what is
    refused.
    """
    out = Path(out)
    check_out(out)
    page_dir = out.resolve().parent
    html = render_page(
        runs,
        page_dir,
        title=title,
        max_rows=max_rows,
        max_bytes=max_embed_bytes,
        max_page_bytes=max_page_bytes,
    )
    try:
        # backslashreplace: a lone surrogate from a run's JSON text never stops the page
        atomic_write_bytes(out, html.encode("utf-8", "backslashreplace"))
    except OSError as exc:
        raise WirelabError(f"cannot write {out}: {exc.strerror or exc}") from None
    return out


def write_report(
    paths: Iterable[str | Path],
    out: str | Path,
    *,
    title: str = "wirelab report",
    max_rows: int = MAX_ROWS,
    max_embed_bytes: int = MAX_EMBED_BYTES,
    max_page_bytes: int = MAX_PAGE_BYTES,
) -> Path:
    """Write the page for the result directories in ``paths`` to ``out``; return its path.

    ``paths`` may name result directories, their ``metrics.json``/``config.json`` files, or
    parent directories (searched recursively); an empty ``paths`` gives a page that says so.
    Raises `UsageError` if ``out`` cannot be written (see `check_out`), a path does not exist or
    names no result directory; malformed, failed and unfinished runs are shown, never raised.
    """
    check_out(Path(out))
    paths = list(paths)
    runs = load_runs(paths) if paths else []  # an empty list (a tour with no runs): empty page
    return write_runs(
        runs,
        out,
        title=title,
        max_rows=max_rows,
        max_embed_bytes=max_embed_bytes,
        max_page_bytes=max_page_bytes,
    )
