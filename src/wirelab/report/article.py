"""One run as an ``<article>``: its status, command line, metrics and config as tables, its plots
and videos (see `wirelab.report.files`), its other files, and the runs inside it.

This is the generic view: every run gets one, shown in full for a run without a headline and
folded below the answer for a run with one (`wirelab.report.story`).
"""

from __future__ import annotations

import shlex
from collections.abc import Collection
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from wirelab.report.files import csv_table, figures, file_list
from wirelab.report.media import EmbedBudget
from wirelab.report.reading import shown
from wirelab.report.runs import Run
from wirelab.report.tables import MAX_ROWS, fmt, kv_table, metrics_parts, split_metrics

MAX_EMBED_BYTES = 25 * 1024 * 1024  # larger images/videos are linked, not embedded


@dataclass
class PageContext:
    """What every part of one page shares: where the page is (links are relative to it), rows
    per table, the largest file embedded, and the budget for embedded videos."""

    page_dir: Path
    max_rows: int = MAX_ROWS
    max_bytes: int = MAX_EMBED_BYTES
    budget: EmbedBudget = field(default_factory=EmbedBudget)


def badge(run: Run) -> str:
    return f'<span class="badge {run.status_class}">{escape(run.status)}</span>'


def command_line(run: Run) -> str:
    """The command line ``run`` was started with (``config.json``'s ``argv``, the program as
    ``wirelab``), or ""."""
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
        f"<header><h3>{escape(run.name)}</h3>{badge(run)}"
        f'<span class="dim">{escape(str(run.config.get("started", "")))}</span></header>'
    )
    if run.problems:
        items = "".join(f"<li>{escape(p)}</li>" for p in run.problems)
        cls = "problems" if run.status in ("broken", "failed") else "problems incomplete"
        html += f'<ul class="{cls}">{items}</ul>'
    return html


def _command(run: Run) -> str:
    """The run's command, the exact command line it was started with, and its directory."""
    cmd, argv = run.command, command_line(run)
    html = ""
    if cmd or argv:
        lines = [f"# {cmd}"] if cmd else []
        lines += [f"$ {argv}"] if argv else []
        html = f'<pre class="cmd">{escape(chr(10).join(lines))}</pre>'
    return html + f'<p class="dim mono">{escape(shown(run.path))}</p>'


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


def _children(run: Run, ctx: PageContext) -> str:
    """The runs inside this run's directory (a sweep's points), folded."""
    if not run.children:
        return ""
    inner = "".join(render_run(c, ctx) for c in run.children)
    bad = sum(c.status != "complete" for c in run.children)
    note = f", {bad} not complete" if bad else ""
    return (
        f'<details class="children"><summary>{len(run.children)} runs inside this one'
        f"{note}</summary>{inner}</details>"
    )


def render_run(run: Run, ctx: PageContext, shown: Collection[Path] = ()) -> str:
    """One ``<article>`` for one run: header, command, metrics and config, the plots and videos
    not already ``shown`` above it, CSV tables (those not ``shown``), other files, inner runs."""
    tables = [
        csv_table(run, f, ctx.max_rows)
        for f in run.files
        if f.suffix.lower() == ".csv" and f.parent == run.path and f not in shown
    ]
    return (
        f'<article class="run" id="{run.anchor}">'
        + _run_header(run)
        + _command(run)
        + _metrics_and_config(run, ctx.max_rows)
        + figures(run, ctx.page_dir, ctx.max_bytes, ctx.budget, shown)
        + "".join(tables)
        + file_list(run, ctx.page_dir)
        + _children(run, ctx)
        + "</article>"
    )
