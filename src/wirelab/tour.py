"""``wirelab tour``: a small, real run of every system, then one summary table.

Each step lives in its own package as ``wirelab.<package>.tour:run(out: Path, quick: bool) -> dict``
and writes a result directory under ``out`` through the package's own experiment ``run(config,
out)``. A step whose data or tool is missing (it raises `SkipStep`) is skipped with one line saying
why; a step that fails makes the tour exit non-zero after the others have run.
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
    Step("fly", "the connectome drives a fly: left vs right stimulation", "wirelab.fly.tour"),
    Step("logic", "logic gate network: MNIST 0 vs 1 -> C, Verilog, iCE40", "wirelab.logic.tour"),
    Step("attention", "attention: pooling, translation, complexity", "wirelab.attention.tour"),
)


def run_tour(out: Path, quick: bool, console: Console | None = None) -> int:
    console = console or Console()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create --out {out}: {exc.strerror or exc}") from None
    rows: list[tuple[str, str, str, str]] = []
    failed = 0
    for i, step in enumerate(STEPS, 1):
        console.rule(f"[bold]{i}/{len(STEPS)} {step.title}")
        t0 = time.perf_counter()
        try:
            module = importlib.import_module(step.module)
            summary = module.run(out / step.name, quick=quick)
            status, detail = "ok", "; ".join(f"{k}={v}" for k, v in summary.items())
        except SkipStep as exc:
            status, detail = "skipped", str(exc)
            console.print(f"skipped: {exc}")
        except WirelabError as exc:
            status, detail = "FAILED", str(exc)
            failed += 1
            console.print(f"[red]failed: {exc}")
        except Exception as exc:
            status, detail = "FAILED", f"{type(exc).__name__}: {exc}"
            failed += 1
            console.print(f"[red]{traceback.format_exc()}")
        rows.append((step.name, status, f"{time.perf_counter() - t0:.1f}", detail))
    table = Table("step", "status", "seconds", "result", title="wirelab tour")
    for row in rows:
        table.add_row(*row)
    console.print(table)
    from wirelab.report.html import write_report

    # the whole tour directory: a step that died shows as failed or in progress
    page = write_report([out], out / "report.html")
    console.print(f"report: {page}")
    console.print(f"results: {out}")
    return 1 if failed else 0


@click.command("tour")
@click.option(
    "--out",
    type=OUT_DIR,  # '' (the current directory) is a usage error
    default=Path("runs/tour"),
    show_default=True,
    help="Directory for the result directories and the report.",
)
@click.option("--quick", is_flag=True, help="Smaller runs (under 5 minutes on 2 cores).")
def command(out: Path, quick: bool) -> None:
    """Run a small, real version of every system and print a summary table."""
    code = run_tour(out, quick)
    if code:
        raise click.exceptions.Exit(code)
