"""``wirelab tour``: a real run of every system, each sized to answer its question, then the page.

Each step lives in its own package as ``wirelab.<package>.tour:run(out: Path, quick: bool) -> dict``
and writes its result directories under ``out/<step>`` through the package's own experiments
(``run(config, out)``, each with its progress bar: a line at least every 15 s in a log, with the
time left). A step whose data or tool is missing (it raises `SkipStep`) is skipped with one line
saying why; a step that fails makes the tour exit non-zero after the others have run.

Then one summary table (step, status, seconds, result), the report page of the result
directories this tour wrote (`wirelab.report.html.write_runs`; older ones left in ``out`` by
an earlier tour are not on it) with the committed runs that answer what a tour has no time
for (`wirelab.report.committed`: the ten-class classifier placed and routed on one iCE40 UP5K,
read from its committed ``metrics.json``), and each answer card's verdict. The budgets (2 idle
cores, after the install): ``--quick`` 3 minutes, the default tour 10; docs/results/benchmarks.md
("The tour, timed") lists the measured times.
"""

from __future__ import annotations

import importlib
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from wirelab.cli_options import OUT_DIR
from wirelab.errors import SkipStep, UsageError, WirelabError


@dataclass(frozen=True)
class Step:
    name: str
    title: str
    module: str


STEPS = (
    Step("data", "datasets: the larval connectome and MNIST, checksummed", "wirelab.data.tour"),
    Step(
        "reservoir",
        "connectome reservoir: memory capacity vs null models",
        "wirelab.reservoir.tour",
    ),
    Step(
        "fly",
        "the connectome turns a fly: left, right and control; against rewirings",
        "wirelab.fly.tour",
    ),
    Step(
        "logic",
        "logic gate network: MNIST 0 vs 1 -> C, Verilog, placed and routed on an iCE40 UP5K",
        "wirelab.logic.tour",
    ),
    Step("attention", "attention: pooling, translation, complexity", "wirelab.attention.tour"),
)


def run_step(step: Step, out: Path, quick: bool, console: Console) -> tuple[str, str]:
    """Run one step; (status, detail): ``ok`` and its summary, ``skipped`` or ``FAILED`` and why."""
    try:
        module = importlib.import_module(step.module)
        summary = module.run(out / step.name, quick=quick)
        return "ok", "; ".join(f"{k}={v}" for k, v in summary.items())
    except SkipStep as exc:
        console.print(f"skipped: {exc}")
        return "skipped", str(exc)
    except WirelabError as exc:
        console.print(f"[red]failed: {exc}")
        return "FAILED", str(exc)
    except Exception as exc:
        console.print(f"[red]{traceback.format_exc()}")
        return "FAILED", f"{type(exc).__name__}: {exc}"


def run_tour(out: Path, quick: bool, console: Console | None = None) -> int:
    console = console or Console()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create --out {out}: {exc.strerror or exc}") from None
    started = time.time()
    t_tour = time.perf_counter()
    rows: list[tuple[str, str, str, str]] = []
    for i, step in enumerate(STEPS, 1):
        console.rule(f"[bold]{i}/{len(STEPS)} {step.title}")
        t0 = time.perf_counter()
        status, detail = run_step(step, out, quick, console)
        rows.append((step.name, status, f"{time.perf_counter() - t0:.1f}", detail))
        console.print(f"{step.name}: {status} in {rows[-1][2]} s")
    table = Table("step", "status", "seconds", "result", title="wirelab tour")
    for row in rows:
        table.add_row(*row)
    table.add_row("total", "", f"{time.perf_counter() - t_tour:.1f}", "")
    console.print(table)
    page = write_page(out, started, console)
    console.print(f"report: {page}")
    console.print(f"results: {out}")
    return 1 if any(r[1] == "FAILED" for r in rows) else 0


def written_since(out: Path, started: float) -> list[Path]:
    """The result directories under ``out`` whose config.json was written at or after
    ``started`` (a ``time.time()``): this tour's, failed and unfinished ones included."""
    from wirelab.report.runs import find_result_dirs

    try:
        dirs = find_result_dirs([out])
    except WirelabError:  # none at all
        return []
    config = [d / "config.json" for d in dirs]
    return [
        d
        for d, c in zip(dirs, config, strict=True)
        if c.is_file() and c.stat().st_mtime >= started - 1
    ]


def write_page(out: Path, started: float, console: Console) -> Path:
    """The report page of this tour's result directories and of the committed runs that answer
    what a tour has no time for (`wirelab.report.committed`), and each answer card's verdict."""
    from wirelab.report.committed import committed_runs
    from wirelab.report.headlines import committed as committed_entries
    from wirelab.report.html import write_runs
    from wirelab.report.runs import SYSTEMS, load_runs
    from wirelab.report.story import OUTCOME_LABELS, plan_stories

    dirs = written_since(out, started)
    committed, missing = committed_runs(committed_entries())
    for line in missing:
        console.print(f"not on the page: {line}", markup=False, highlight=False)
    runs = [*(load_runs(dirs) if dirs else []), *committed]
    runs.sort(key=lambda r: SYSTEMS.index(r.system))  # stable: the committed runs last in theirs
    page = write_runs(runs, out / "report.html")
    stories, _ = plan_stories([r for r in runs if r.parent is None])
    for s in stories:
        h = s.headline
        console.print(f"{s.system}: {h.question}", markup=False, highlight=False)
        console.print(f"  ({OUTCOME_LABELS[h.outcome]}) {h.verdict}", markup=False)
    return page


@click.command("tour")
@click.option(
    "--out",
    type=OUT_DIR,  # '' (the current directory) is a usage error
    default=Path("runs/tour"),
    show_default=True,
    help="Directory for the result directories and the report.",
)
@click.option(
    "--quick",
    is_flag=True,
    help="Smaller runs, each still sized to answer its question (3 minutes on 2 idle cores).",
)
def command(out: Path, quick: bool) -> None:
    """Run a small, real version of every system and print a summary table."""
    code = run_tour(out, quick)
    if code:
        raise click.exceptions.Exit(code)
