"""A run's files on the page: plots and videos embedded, CSV tables shown, other files linked.

Plots (PNG/JPEG/GIF/SVG) and videos (MP4/WebM) up to ``max_bytes`` are embedded as base64
``data:`` URIs, so the page needs nothing beside it; larger ones, and every other file, are
linked; videos past the page's budget show their first frame (`wirelab.report.media`). A link
is the file's path relative to the page, its own bytes URL-quoted (`urllib.parse.quote`, so a
byte that is not UTF-8 is ``%FF``, and
``:``, ``?``, ``#``, spaces and ``&`` are percent-encoded) and starting with ``./`` or ``../``:
a browser can only read it as a path beside the page, never as a ``javascript:`` or other scheme.

Only regular files inside the run's folder are read (`wirelab.report.reading`): a file that has
become a symbolic link since it was listed is refused like one that cannot be read (permissions,
removed while the page is built) or a ``.png`` that is not a PNG: skipped with a note in its
place; it never stops the page. CSV rows longer than their header are left out with a note.
"""

from __future__ import annotations

import base64
import csv
import io
import os
import struct
from collections.abc import Collection
from html import escape
from pathlib import Path
from urllib.parse import quote

from wirelab.report.media import EmbedBudget, poster_figure
from wirelab.report.reading import Refused, file_size, href_bytes, read_bytes, read_text, shown
from wirelab.report.runs import IMAGE_SUFFIXES, VIDEO_SUFFIXES, Run
from wirelab.report.tables import Records, records_table

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_CSV_BYTES = 2 * 1024 * 1024  # larger CSV files are listed, not shown


def href(path: Path, page_dir: Path) -> str:
    """A link from a page in ``page_dir`` to ``path``: relative, URL-quoted, ``./``-prefixed.

    >>> href(Path("/r/x/javascript:alert(5)"), Path("/r"))
    './x/javascript%3Aalert%285%29'
    """
    rel = quote(href_bytes(Path(os.path.relpath(path, page_dir)).as_posix()), safe="/")
    return rel if rel.startswith("../") else f"./{rel}"


def size_text(n: int) -> str:
    """A byte count for people: ``512 B``, ``1.5 KB``, ``2.0 MB``."""
    value = float(n)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def png_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) from the first 24 bytes of a PNG (its IHDR chunk), or None."""
    if len(head) < 24 or head[:8] != PNG_SIGNATURE or head[12:16] != b"IHDR":
        return None
    w, h = struct.unpack(">II", head[16:24])
    return int(w), int(h)


def _skipped(caption: str, why: str) -> str:
    return f'<figure><p class="problems">{caption}: {escape(why)}; skipped</p></figure>'


def _why(exc: OSError) -> str:
    if isinstance(exc, Refused):
        return str(exc.strerror)
    return f"could not be read ({exc.strerror or type(exc).__name__})"


def _link(caption: str, path: Path, page_dir: Path, note: str) -> str:
    return (
        f'<figure><p><a href="{escape(href(path, page_dir))}">{caption}</a> ({note})</p></figure>'
    )


def figure(run: Run, img: Path, page_dir: Path, max_bytes: int) -> str:
    """One plot: embedded as a ``data:`` URI, linked when larger than ``max_bytes``, or skipped."""
    caption = escape(shown(img.relative_to(run.path).as_posix()))
    try:
        size = file_size(img, run.path)
        if size == 0:
            return f'<figure><p class="dim">{caption} is empty</p></figure>'
        if size > max_bytes:
            return _link(caption, img, page_dir, f"{size_text(size)}, linked")
        data = read_bytes(img, run.path)
    except OSError as exc:
        return _skipped(caption, _why(exc))
    wh = ""
    if img.suffix.lower() == ".png":
        dims = png_size(data[:24])
        if dims is None:
            return _skipped(caption, "is not a PNG image")
        wh = f' width="{dims[0]}" height="{dims[1]}"'
    uri = f"data:{IMAGE_SUFFIXES[img.suffix.lower()]};base64,{base64.b64encode(data).decode()}"
    return (
        f'<figure><img src="{uri}" alt="{escape(run.name)}/{caption}"{wh}>'
        f"<figcaption>{caption}</figcaption></figure>"
    )


def video(
    run: Run, vid: Path, page_dir: Path, max_bytes: int, budget: EmbedBudget | None = None
) -> str:
    """One video: embedded (with a link to the file) up to ``max_bytes`` while ``budget`` lasts;
    past the budget its poster frame and a link (`wirelab.report.media`); else only linked."""
    caption = escape(shown(vid.relative_to(run.path).as_posix()))
    try:
        size = file_size(vid, run.path)
        if size == 0 or size > max_bytes:
            why = "empty" if size == 0 else f"{size_text(size)}, not embedded"
            return _link(caption, vid, page_dir, why)
        if budget is not None and not budget.take(size):
            why = f"{size_text(size)}; the page's {size_text(budget.limit)} for videos is used"
            return poster_figure(caption, vid, href(vid, page_dir), why)
        data = read_bytes(vid, run.path)
    except OSError as exc:
        return _skipped(caption, _why(exc))
    uri = f"data:{VIDEO_SUFFIXES[vid.suffix.lower()]};base64,{base64.b64encode(data).decode()}"
    link = escape(href(vid, page_dir))
    return (
        f'<figure><video src="{uri}" controls muted loop playsinline preload="auto" '
        f'title="{escape(run.name)}/{caption}"></video>'
        f'<figcaption>{caption} ({size_text(size)}) · <a href="{link}">file</a></figcaption>'
        "</figure>"
    )


def figures(
    run: Run,
    page_dir: Path,
    max_bytes: int,
    budget: EmbedBudget | None = None,
    shown: Collection[Path] = (),
) -> str:
    """The run's videos, then its plots, in one grid, leaving out those already ``shown`` on the
    page (empty when none are left)."""
    vids = [v for v in run.videos if v not in shown]
    imgs = [i for i in run.images if i not in shown]
    if not (vids or imgs):
        return ""
    figs = [video(run, v, page_dir, max_bytes, budget) for v in vids]
    figs += [figure(run, i, page_dir, max_bytes) for i in imgs]
    label = "plots and videos" if vids else "plots"
    if shown:
        label = "other " + label
    return f'<h4>{label}</h4><div class="figures">{"".join(figs)}</div>'


def _number(text: str | None) -> object:
    if text is None:
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read_csv(path: Path, root: Path) -> tuple[list[dict[str, str]], int]:
    """The rows of a CSV file inside ``root`` (read as `read_text` does), leaving out rows longer
    than the header; returns (rows, number left out). Raises `OSError`, `UnicodeDecodeError` or
    `csv.Error` when the file cannot be read."""
    rows = list(csv.DictReader(io.StringIO(read_text(path, root), newline="")))
    good = [r for r in rows if None not in r]  # DictReader keys a long row's extra cells None
    return good, len(rows) - len(good)


def csv_table(run: Run, path: Path, max_rows: int) -> str:
    """A CSV table of the run (e.g. a sweep's results.csv), cut to ``max_rows`` rows; rows longer
    than the header are left out with a note."""
    name = shown(path.relative_to(run.path).as_posix())
    try:
        size = file_size(path, run.path)
        if size > MAX_CSV_BYTES:
            return f'<p class="dim">{escape(name)}: {size_text(size)}, not shown</p>'
        rows, bad = read_csv(path, run.path)
    except Refused as exc:
        return f'<ul class="problems"><li>{escape(f"{name} {exc.strerror}")}</li></ul>'
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        why = escape(f"{name} could not be read: {exc}")
        return f'<ul class="problems"><li>{why}</li></ul>'
    note = ""
    if bad:
        what = "row is" if bad == 1 else "rows are"
        note = f"{name}: {bad} {what} longer than the header; left out"
        note = f'<ul class="problems"><li>{escape(note)}</li></ul>'
    if not rows:
        return note
    typed = [{k: _number(v) for k, v in r.items()} for r in rows]
    rec = Records(name, [str(c) for c in rows[0]], typed[:max_rows], len(rows))
    return f"<h4>{escape(name)}</h4>" + note + records_table(rec)


def file_list(run: Run, page_dir: Path) -> str:
    """The run's other files, folded, each linked with its size."""
    if not run.files:
        return ""
    items = []
    for f in run.files:
        try:
            size = size_text(file_size(f, run.path))
        except OSError as exc:
            size = _why(exc)
        items.append(
            f'<li><a href="{escape(href(f, page_dir))}">'
            f"{escape(shown(f.relative_to(run.path).as_posix()))}</a> "
            f'<span class="dim">{escape(size)}</span></li>'
        )
    return (
        f'<details><summary>{len(run.files)} other files</summary><ul class="files">'
        f"{''.join(items)}</ul></details>"
    )
