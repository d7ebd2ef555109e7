"""One self-contained HTML page from result directories.

``write_report(paths, out)`` reads result directories only (``config.json``, ``metrics.json``,
plots, videos; see `wirelab.report.runs`) and writes one page: a summary of every run at the top,
then one section per system (data, reservoir, fly, logic, attention, ...) with one article per run:
its status, command line and config, its metrics as tables, its plots embedded as base64 ``data:``
URIs and its videos embedded (or linked, above ``max_embed_bytes``; see `wirelab.report.files`).

The page loads nothing from anywhere else and runs no JavaScript, and says so to the browser with
a Content-Security-Policy (`CSP`) that allows exactly that: ``data:`` images and media and the one
inline stylesheet (by its SHA-256 hash), nothing else. A run that is in progress, failed or whose
files are malformed is shown as such, with the reason.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shlex
import time
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path

from wirelab import __version__
from wirelab.errors import UsageError, WirelabError
from wirelab.report.files import csv_table, figures, file_list
from wirelab.report.runs import SYSTEMS, Run, load_runs
from wirelab.report.style import CSS
from wirelab.report.tables import MAX_ROWS, fmt, headline, kv_table, metrics_parts, split_metrics
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
MAX_EMBED_BYTES = 25 * 1024 * 1024  # larger images/videos are linked, not embedded
_STYLE_HASH = base64.b64encode(hashlib.sha256(CSS.encode("utf-8")).digest()).decode("ascii")
CSP = (
    "default-src 'none'; img-src data:; media-src data:; "
    f"style-src 'sha256-{_STYLE_HASH}'; base-uri 'none'; form-action 'none'"
)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _badge(run: Run) -> str:
    return f'<span class="badge {run.status_class}">{escape(run.status)}</span>'


def _argv(run: Run) -> str:
    argv = run.config.get("argv")
    if (
        isinstance(argv, list)
        and argv
        and all(isinstance(a, str) for a in argv)
        and not argv[0].startswith("-")  # python -c leaves "-c" as argv[0]
    ):
        first = Path(argv[0]).name
        if first in ("cli.py", "__main__.py"):
            first = "wirelab"
        return shlex.join([first, *argv[1:]])
    return ""


def _run_header(run: Run) -> str:
    """The article's title, status badge and start time, then what is wrong with the run."""
    html = (
        f"<header><h3>{escape(run.name)}</h3>{_badge(run)}"
        f'<span class="dim">{escape(str(run.config.get("started", "")))}</span></header>'
    )
    if run.problems:
        items = "".join(f"<li>{escape(p)}</li>" for p in run.problems)
        cls = "problems" if run.status in ("broken", "failed") else "problems incomplete"
        html += f'<ul class="{cls}">{items}</ul>'
    return html


def _command(run: Run) -> str:
    """The run's command, the exact command line it was started with, and its directory."""
    cmd, argv = run.command, _argv(run)
    html = ""
    if cmd or argv:
        lines = [f"# {cmd}"] if cmd else []
        lines += [f"$ {argv}"] if argv else []
        html = f'<pre class="cmd">{escape(chr(10).join(lines))}</pre>'
    return html + f'<p class="dim mono">{escape(str(run.path))}</p>'


def _metrics_and_config(run: Run, max_rows: int) -> str:
    """Scalar metrics beside the config (and environment), then the wide metric tables."""
    left = wide = ""
    if run.metrics is not None:
        scalars, wide = metrics_parts(run.metrics, max_rows)
        if not (scalars or wide):
            scalars = '<p class="dim">metrics.json is empty.</p>'
        left = "<h4>metrics</h4>" + scalars
    right = ""
    config = run.config.get("config")
    if isinstance(config, dict):
        right = "<h4>config</h4>" + (
            kv_table(split_metrics(config, max_rows).scalars) or '<p class="dim">(empty)</p>'
        )
    elif config is not None:
        right = f"<h4>config</h4><p>{escape(fmt(config))}</p>"
    env = run.config.get("environment")
    if isinstance(env, dict):
        right += "<details><summary>environment</summary>"
        right += kv_table([(str(k), v) for k, v in env.items()]) + "</details>"
    html = f'<div class="cols"><div>{left}</div><div>{right}</div></div>' if left or right else ""
    if wide:  # record tables and series use the article's full width
        html += f'<div class="wide">{wide}</div>'
    return html


def _children(run: Run, page_dir: Path, max_rows: int, max_bytes: int) -> str:
    """The runs inside this run's directory (a sweep's points), folded."""
    if not run.children:
        return ""
    inner = "".join(render_run(c, page_dir, max_rows, max_bytes) for c in run.children)
    bad = sum(c.status != "complete" for c in run.children)
    note = f", {bad} not complete" if bad else ""
    return (
        f'<details class="children"><summary>{len(run.children)} runs inside this one'
        f"{note}</summary>{inner}</details>"
    )


def render_run(run: Run, page_dir: Path, max_rows: int, max_bytes: int) -> str:
    """One ``<article>`` for one run."""
    tables = [
        csv_table(run, f, max_rows)
        for f in run.files
        if f.suffix.lower() == ".csv" and f.parent == run.path
    ]
    return (
        f'<article class="run" id="{run.anchor}">'
        + _run_header(run)
        + _command(run)
        + _metrics_and_config(run, max_rows)
        + figures(run, page_dir, max_bytes)
        + "".join(tables)
        + file_list(run, page_dir)
        + _children(run, page_dir, max_rows, max_bytes)
        + "</article>"
    )


def _summary_row(run: Run, nested: bool) -> str:
    if run.status != "complete" and run.reason:
        heads = f'<span class="dim">{escape(run.reason)}</span>'
    elif run.metrics:
        heads = escape("; ".join(f"{k} = {fmt(v)}" for k, v in headline(run.metrics)))
    else:
        heads = ""
    return (
        f"<tr><td>{escape(run.system)}</td>"
        f'<td class=mono><a href="#{run.anchor}">{escape(run.name)}</a></td>'
        f"<td>{_badge(run)}</td>"
        f'<td class="mono cmd">{escape(run.command)}</td><td>{heads}</td>'
        f"<td class=num>{len(run.images) + len(run.videos)}</td>"
        + (f"<td class=num>{len(run.children) or ''}</td>" if nested else "")
        + "</tr>"
    )


def render_summary(runs: Sequence[Run]) -> str:
    """Counts over all runs (by status), then one table row per top-level run."""
    counts = [(s, sum(r.status == s for r in runs)) for s in STATUSES]
    cards = [("runs", len(runs)), *((s, n) for s, n in counts if n or s == "complete")]
    cards += [("plots", sum(len(r.images) for r in runs))]
    cards += [("videos", sum(len(r.videos) for r in runs))]
    html = '<div class="cards">' + "".join(
        f"<div class=card><b>{n}</b><span>{escape(k)}</span></div>" for k, n in cards
    )
    html += "</div>"
    nested = any(r.children for r in runs)
    rows = "".join(_summary_row(r, nested) for r in runs if r.parent is None)
    head = (
        "<tr><th>system</th><th>run</th><th>status</th><th>command</th>"
        "<th>headline metrics, or why not complete</th><th>plots</th>"
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
) -> str:
    """The whole page as a string."""
    top = [r for r in runs if r.parent is None]
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
        f'<section id="summary"><h2>Summary</h2>{render_summary(runs)}</section>',
    ]
    if not runs:
        body.append('<p class="dim">No result directories were given.</p>')
    for s in systems:
        arts = "".join(render_run(r, page_dir, max_rows, max_bytes) for r in top if r.system == s)
        body.append(
            f'<section id="system-{s}" class="system"><h2>{escape(SYSTEM_TITLES[s])}</h2>'
            f"{arts}</section>"
        )
    body.append(
        "</main><footer>Self-contained page: plots and videos are embedded as data URIs; "
        "no scripts, no external resources. Rebuild it with "
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
) -> Path:
    """Write the page for already loaded runs (see `wirelab.report.runs.load_runs`).

    The page is written atomically with mode ``0666 & ~umask``; see `check_out` for what is
    refused.
    """
    out = Path(out)
    check_out(out)
    page_dir = out.resolve().parent
    html = render_page(runs, page_dir, title=title, max_rows=max_rows, max_bytes=max_embed_bytes)
    try:
        atomic_write_bytes(out, html.encode("utf-8"))
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
    return write_runs(runs, out, title=title, max_rows=max_rows, max_embed_bytes=max_embed_bytes)
