"""The sweep's headline (any ``wirelab sweep ...`` command): how does the swept metric change with
the varied parameters?

Reads the grid from ``config.json``, the point counts from ``metrics.json`` and the metric of each
completed point from ``results.csv``; answers with the metric's range and where its extremes are.
"""

from __future__ import annotations

import csv
import io

from wirelab.report.headlines.base import Headline, HeadlineEntry
from wirelab.report.headlines.values import dig, number, plural
from wirelab.report.reading import file_size, read_text
from wirelab.report.runs import Run
from wirelab.report.words import code

MAX_CSV_BYTES = 2 * 1024 * 1024


def _read_csv(run: Run, name: str) -> list[dict[str, str]]:
    """The rows of the run's CSV file ``name`` (a regular file, never a link), or none."""
    path = run.path / name
    try:
        if file_size(path, run.path) > MAX_CSV_BYTES:
            return []
        return list(csv.DictReader(io.StringIO(read_text(path, run.path), newline="")))
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def _float(text: str | None) -> float | None:
    try:
        return number(float(text)) if text not in (None, "") else None
    except ValueError:
        return None


def sweep(run: Run) -> Headline | None:
    """The swept metric's range over the completed points, and where its extremes are."""
    grid = dig(run.config, "config", "grid") or {}
    vary = [str(k) for k in dig(grid, "vary") or {}]
    points, ok = number(dig(run.metrics, "points")), number(dig(run.metrics, "ok"))
    if points is None or ok is None:
        return None
    metric = dig(run.metrics, "metric") or dig(grid, "metric")
    params = ", ".join(code(v) for v in vary) or "its parameters"
    question = f"How does {code(metric) if metric else 'the result'} change with {params}?"
    failed = int(points - ok)
    uncertainty = f"{int(ok)} of {plural(int(points), 'point')} complete"
    if "seed" in vary:
        uncertainty += f", {len(dig(grid, 'vary', 'seed') or [])} seeds per setting"
    rows = [r for r in _read_csv(run, "results.csv") if r.get("status") == "ok"]
    vals = [(v, r) for r in rows if (v := _float(r.get(str(metric)))) is not None]
    if not metric or not vals:
        command = dig(grid, "command")
        answer = f"{plural(int(points), 'point')} of {code(command) if command else 'a command'}"
        verdict = f"{int(ok)} complete, {failed} failed; no numeric metric to compare."
        outcome = "info" if not failed else "unresolved"
    else:
        (lo, rlo), (hi, rhi) = min(vals, key=lambda t: t[0]), max(vals, key=lambda t: t[0])

        def where(r: dict[str, str]) -> str:
            at = ", ".join(code(f"{k}={r.get(k)}") for k in vary if k != "seed")
            return at or f"point {r.get('index')}"

        answer = f"{code(metric)} from {lo:.4g} to {hi:.4g} over {plural(len(vals), 'point')}"
        verdict = f"Highest at {where(rhi)} ({hi:.4g}), lowest at {where(rlo)} ({lo:.4g})"
        verdict += f"; {failed} points failed." if failed else "."
        outcome = "unresolved" if failed else "info"
    return Headline(
        question, answer, uncertainty, verdict, outcome, plots=("summary",), tables=("results.csv",)
    )


SWEEP = HeadlineEntry("wirelab sweep", sweep, prefix=True)
