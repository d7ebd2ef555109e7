"""One self-contained HTML page from result directories.

``write_report(paths, out)`` reads result directories only (``config.json``, ``metrics.json``,
plots, videos; see `wirelab.report.runs`) and writes one page: a summary of every run at the top,
then one section per system (data, reservoir, fly, logic, attention, ...) with one article per run:
its command line and config, its metrics as tables, its plots embedded as base64 ``data:`` URIs and
its videos embedded (or linked, above ``max_embed_bytes``). The page loads nothing from anywhere
else and runs no JavaScript; a run whose files are malformed is shown as *broken* with the reason.
"""

from __future__ import annotations

import base64
import csv
import os
import shlex
import struct
import time
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path

from wirelab import __version__
from wirelab.errors import UsageError
from wirelab.report.runs import IMAGE_SUFFIXES, SYSTEMS, VIDEO_SUFFIXES, Run, load_runs
from wirelab.report.style import CSS
from wirelab.report.tables import (
    MAX_ROWS,
    Records,
    fmt,
    headline,
    kv_table,
    metrics_parts,
    records_table,
    split_metrics,
)
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
MAX_EMBED_BYTES = 25 * 1024 * 1024  # larger images/videos are linked, not embedded
MAX_CSV_BYTES = 2 * 1024 * 1024  # larger CSV files are listed, not shown


def _data_uri(path: Path, mime: str) -> str:
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _png_size(path: Path) -> tuple[int, int] | None:
    """(width, height) from a PNG's IHDR chunk, or None if it is not a PNG."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    w, h = struct.unpack(">II", head[16:24])
    return int(w), int(h)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _rel(path: Path, page_dir: Path) -> str:
    return Path(os.path.relpath(path, page_dir)).as_posix()


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def _figure(run: Run, img: Path, page_dir: Path, max_bytes: int) -> str:
    caption = escape(img.relative_to(run.path).as_posix())
    size = img.stat().st_size
    if size == 0:
        return f'<figure><p class="dim">{caption} is empty</p></figure>'
    if size > max_bytes:
        href = escape(_rel(img, page_dir))
        return f'<figure><p><a href="{href}">{caption}</a> ({_size(size)}, linked)</p></figure>'
    dims = _png_size(img) if img.suffix.lower() == ".png" else None
    wh = f' width="{dims[0]}" height="{dims[1]}"' if dims else ""
    uri = _data_uri(img, IMAGE_SUFFIXES[img.suffix.lower()])
    return (
        f'<figure><img src="{uri}" alt="{escape(run.name)}/{caption}"{wh}>'
        f"<figcaption>{caption}</figcaption></figure>"
    )


def _video(run: Run, vid: Path, page_dir: Path, max_bytes: int) -> str:
    caption = escape(vid.relative_to(run.path).as_posix())
    size = vid.stat().st_size
    href = escape(_rel(vid, page_dir))
    if size == 0 or size > max_bytes:
        why = "empty" if size == 0 else f"{_size(size)}, not embedded"
        return f'<figure><p><a href="{href}">{caption}</a> ({why})</p></figure>'
    uri = _data_uri(vid, VIDEO_SUFFIXES[vid.suffix.lower()])
    return (
        f'<figure><video src="{uri}" controls muted loop playsinline preload="auto" '
        f'title="{escape(run.name)}/{caption}"></video>'
        f'<figcaption>{caption} ({_size(size)}) · <a href="{href}">file</a></figcaption></figure>'
    )


def _csv_table(run: Run, path: Path, max_rows: int) -> str:
    """A CSV table of the run (e.g. a sweep's results.csv), cut to ``max_rows`` rows."""
    name = path.relative_to(run.path).as_posix()
    if path.stat().st_size > MAX_CSV_BYTES:
        return f'<p class="dim">{escape(name)}: {_size(path.stat().st_size)}, not shown</p>'
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        why = escape(f"{name} could not be read: {exc}")
        return f'<ul class="problems"><li>{why}</li></ul>'
    if not rows:
        return ""
    typed = [{k: _number(v) for k, v in r.items()} for r in rows]
    rec = Records(name, [str(c) for c in rows[0]], typed[:max_rows], len(rows))
    return f"<h4>{escape(name)}</h4>" + records_table(rec)


def _number(text: str | None) -> object:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


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


def render_run(run: Run, page_dir: Path, max_rows: int, max_bytes: int) -> str:
    """One ``<article>`` for one run."""
    parts = [
        f'<article class="run" id="{run.anchor}"><header><h3>{escape(run.name)}</h3>'
        f'<span class="badge {run.status}">{run.status}</span>'
        f'<span class="dim">{escape(str(run.config.get("started", "")))}</span></header>'
    ]
    if run.problems:
        items = "".join(f"<li>{escape(p)}</li>" for p in run.problems)
        cls = "problems" if run.status == "broken" else "problems incomplete"
        parts.append(f'<ul class="{cls}">{items}</ul>')
    cmd = run.command
    argv = _argv(run)
    if cmd or argv:
        lines = [f"# {cmd}"] if cmd else []
        lines += [f"$ {argv}"] if argv else []
        parts.append(f'<pre class="cmd">{escape(chr(10).join(lines))}</pre>')
    parts.append(f'<p class="dim mono">{escape(str(run.path))}</p>')
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
    if left or right:
        parts.append(f'<div class="cols"><div>{left}</div><div>{right}</div></div>')
    if wide:  # record tables and series use the article's full width
        parts.append(f'<div class="wide">{wide}</div>')
    if run.images or run.videos:
        figs = [_video(run, v, page_dir, max_bytes) for v in run.videos]
        figs += [_figure(run, i, page_dir, max_bytes) for i in run.images]
        label = "plots and videos" if run.videos else "plots"
        parts.append(f'<h4>{label}</h4><div class="figures">{"".join(figs)}</div>')
    for table in run.files:
        if table.suffix.lower() == ".csv" and table.parent == run.path:
            parts.append(_csv_table(run, table, max_rows))
    if run.files:
        items = "".join(
            f'<li><a href="{escape(_rel(f, page_dir))}">'
            f"{escape(f.relative_to(run.path).as_posix())}</a> "
            f'<span class="dim">{_size(f.stat().st_size)}</span></li>'
            for f in run.files
        )
        parts.append(
            f'<details><summary>{len(run.files)} other files</summary><ul class="files">'
            f"{items}</ul></details>"
        )
    if run.children:
        inner = "".join(render_run(c, page_dir, max_rows, max_bytes) for c in run.children)
        bad = sum(c.status != "complete" for c in run.children)
        note = f", {bad} not complete" if bad else ""
        parts.append(
            f'<details class="children"><summary>{len(run.children)} runs inside this one'
            f"{note}</summary>{inner}</details>"
        )
    parts.append("</article>")
    return "".join(parts)


def render_summary(runs: Sequence[Run]) -> str:
    """Counts over all runs, then one table row per top-level run."""
    counts = {s: sum(r.status == s for r in runs) for s in ("complete", "incomplete", "broken")}
    cards = [("runs", len(runs)), *counts.items()]
    cards += [("plots", sum(len(r.images) for r in runs))]
    cards += [("videos", sum(len(r.videos) for r in runs))]
    html = '<div class="cards">' + "".join(
        f"<div class=card><b>{n}</b><span>{escape(k)}</span></div>" for k, n in cards
    )
    html += "</div>"
    nested = any(r.children for r in runs)
    rows = []
    for r in runs:
        if r.parent is not None:
            continue
        heads = "; ".join(f"{k} = {fmt(v)}" for k, v in headline(r.metrics)) if r.metrics else ""
        rows.append(
            f"<tr><td>{escape(r.system)}</td>"
            f'<td class=mono><a href="#{r.anchor}">{escape(r.name)}</a></td>'
            f'<td><span class="badge {r.status}">{r.status}</span></td>'
            f'<td class="mono cmd">{escape(r.command)}</td><td>{escape(heads)}</td>'
            f"<td class=num>{len(r.images) + len(r.videos)}</td>"
            + (f"<td class=num>{len(r.children) or ''}</td>" if nested else "")
            + "</tr>"
        )
    head = (
        "<tr><th>system</th><th>run</th><th>status</th><th>command</th>"
        "<th>headline metrics</th><th>plots</th>"
        + ("<th>inner runs</th>" if nested else "")
        + "</tr>"
    )
    table = (
        f'<div class="scroll"><table class="summary"><thead>{head}</thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
    return html + table


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
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def write_runs(
    runs: Sequence[Run],
    out: str | Path,
    *,
    title: str = "wirelab report",
    max_rows: int = MAX_ROWS,
    max_embed_bytes: int = MAX_EMBED_BYTES,
) -> Path:
    """Write the page for already loaded runs (see `wirelab.report.runs.load_runs`)."""
    out = Path(out)
    if out.is_dir():
        raise UsageError(f"--out {out} is a directory; give a file name such as report.html")
    page_dir = out.resolve().parent
    html = render_page(runs, page_dir, title=title, max_rows=max_rows, max_bytes=max_embed_bytes)
    atomic_write_bytes(out, html.encode("utf-8"))
    umask = os.umask(0)
    os.umask(umask)
    out.chmod(0o666 & ~umask)  # a page to share: readable like any new file, not 0600
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
    Raises `UsageError` if ``out`` is a directory, a path does not exist or names no result
    directory; malformed runs are shown as broken, never raised.
    """
    paths = list(paths)
    runs = load_runs(paths) if paths else []  # an empty list (a tour with no runs): empty page
    return write_runs(runs, out, title=title, max_rows=max_rows, max_embed_bytes=max_embed_bytes)
