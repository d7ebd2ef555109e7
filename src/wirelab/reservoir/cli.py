"""``wirelab reservoir run`` (tasks vs nulls) and ``wirelab connectome paths`` (diagnostics)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from wirelab.reservoir.nulls import NULLS
from wirelab.reservoir.tasks import TASKS
from wirelab.reservoir.weights import NORMALIZATIONS, parse_alphas


def finite_or_none(obj: Any) -> Any:
    """JSON-safe copy: NaN/inf floats become None (e.g. an unreachable target's hop count)."""
    if isinstance(obj, dict):
        return {str(k): finite_or_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_or_none(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return float(obj) if np.isfinite(obj) else None
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.ndarray):
        return finite_or_none(obj.tolist())
    return obj


def _split(text: str | None) -> list[str] | None:
    return [t.strip() for t in text.split(",") if t.strip()] if text else None


@click.group(name="reservoir")
def group() -> None:
    """Connectome reservoir computing: tasks, null models, statistics."""


@group.command("run")
@click.option(
    "--task",
    "tasks",
    multiple=True,
    required=True,
    type=click.Choice([*TASKS, "all"]),
    help="Task (repeat for several, or 'all').",
)
@click.option("--connectome", default="larva", show_default=True)
@click.option(
    "--inputs",
    default="sensory",
    show_default=True,
    help="Input population: celltype[:side], annotation=TOKEN, index=0-9, all.",
)
@click.option("--outputs", default="DN-VNC", show_default=True, help="Readout population.")
@click.option(
    "--normalize", "norm", type=click.Choice(NORMALIZATIONS), default="row", show_default=True
)
@click.option("--edge-types", default=None, help="Comma list of aa,ad,da,dd (default: all).")
@click.option(
    "--alpha",
    "alpha",
    default="0.2:1.6:8",
    show_default=True,
    help="Global gains: START:STOP:N, a,b,c or one value.",
)
@click.option("--nulls", default=20, show_default=True, help="Nulls per null model.")
@click.option(
    "--null-model",
    "null_models",
    default="degree",
    show_default=True,
    help=f"Comma list of {', '.join(NULLS.names())}.",
)
@click.option(
    "--activation",
    type=click.Choice(["tanh", "linear", "sigmoid", "lif"]),
    default="tanh",
    show_default=True,
    help="Rate units, or 'lif': leaky integrate-and-fire units read out by their rate trace.",
)
@click.option("--leak", default=1.0, show_default=True)
@click.option("--input-scaling", default=1.0, show_default=True)
@click.option("--bias", default=0.0, show_default=True)
@click.option("--seed", default=0, show_default=True)
@click.option("--workers", default=2, show_default=True, help="Processes (one per core).")
@click.option("--quick", is_flag=True, help="Shorter task sequences (for tours and tests).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
def run_cmd(
    tasks: tuple[str, ...],
    connectome: str,
    inputs: str,
    outputs: str,
    norm: str,
    edge_types: str | None,
    alpha: str,
    nulls: int,
    null_models: str,
    activation: str,
    leak: float,
    input_scaling: float,
    bias: float,
    seed: int,
    workers: int,
    quick: bool,
    out: Path,
) -> None:
    """Score the connectome and its nulls on tasks over a range of gains; p-values and z."""
    from wirelab.reservoir.experiment import ExperimentConfig, plot_scores, run_experiment
    from wirelab.results import ResultDir

    cfg = ExperimentConfig(
        tasks=list(TASKS) if "all" in tasks else list(dict.fromkeys(tasks)),
        alphas=[float(a) for a in parse_alphas(alpha)],
        connectome=connectome,
        inputs=inputs,
        outputs=outputs,
        normalize=norm,
        edge_types=_split(edge_types),
        nulls=nulls,
        null_models=_split(null_models) or [],
        activation=activation,
        leak=leak,
        input_scaling=input_scaling,
        bias=bias,
        seed=seed,
        workers=workers,
        quick=quick,
    )
    cfg.validate()
    from dataclasses import asdict

    from wirelab.reservoir.experiment import check_populations

    sizes = check_populations(cfg)

    rd = ResultDir.create(out, command="wirelab reservoir run", config=asdict(cfg))
    console = Console(stderr=True)
    t0 = time.perf_counter()
    with Progress(
        TextColumn("[bold]networks"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=False,
    ) as bar:
        job = bar.add_task("", total=None)

        def progress(done: int, total: int, what: str) -> None:
            bar.update(job, completed=done, total=total, description=f"done: {what}")
            if not console.is_terminal:  # a log file gets one line per network
                console.print(f"[{done}/{total}] {what} ({time.perf_counter() - t0:.0f} s)")

        metrics = run_experiment(cfg, progress)
    metrics["wall_seconds"] = time.perf_counter() - t0
    metrics["population_sizes"] = sizes
    rd.save_figure(plot_scores(metrics), "score_vs_alpha")
    rd.write_metrics(finite_or_none(metrics))
    _print_summary(metrics, Console())
    click.echo(f"results: {rd.path}")


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _print_summary(metrics: dict[str, Any], console: Console) -> None:
    for task, definition in metrics["definitions"].items():
        console.print(f"[bold]{task}[/]: {definition}")
    table = Table(
        "task",
        "metric",
        "best alpha",
        "connectome",
        "null mean",
        "null std",
        "p",
        "z",
        "p (own best alpha)",
        title="connectome vs nulls",
    )
    for task, s in metrics["summary"].items():
        table.add_row(
            task,
            s["metric"],
            _fmt(s["best_alpha"]),
            _fmt(s["connectome"]),
            _fmt(s["null_mean"]),
            _fmt(s["null_std"]),
            _fmt(s["p_value"]),
            _fmt(s["z"]),
            _fmt(s["p_value_own_best_alpha"]),
        )
    console.print(table)


@click.group(name="connectome")
def connectome_group() -> None:
    """Connectome diagnostics: hops, reachability, midline crossings, gain and latency."""


@connectome_group.command("paths")
@click.option("--connectome", default="larva", show_default=True)
@click.option("--from", "source", default="sensory", show_default=True)
@click.option("--to", "target", default="DN-VNC", show_default=True)
@click.option(
    "--normalize", "norm", type=click.Choice(NORMALIZATIONS), default="row", show_default=True
)
@click.option("--edge-types", default=None, help="Comma list of aa,ad,da,dd (default: all).")
@click.option("--alpha", default=1.0, show_default=True)
@click.option(
    "--populations",
    default="sensory:left,sensory:right,DN-VNC:left,DN-VNC:right",
    show_default=True,
    help="Comma list for the gain/latency matrix.",
)
@click.option("--steps", default=40, show_default=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None)
def paths_cmd(
    connectome: str,
    source: str,
    target: str,
    norm: str,
    edge_types: str | None,
    alpha: float,
    populations: str,
    steps: int,
    out: Path | None,
) -> None:
    """Hop distance, reachability and midline crossings from one population to another."""
    from wirelab.reservoir.diagnostics import diagnose, population_table
    from wirelab.reservoir.experiment import load_connectome
    from wirelab.reservoir.populations import parse_population
    from wirelab.reservoir.weights import as_csr, normalize

    con = load_connectome(connectome)
    w = normalize(as_csr(con, edge_types=_split(edge_types)), norm)
    pops = population_table(con, _split(populations) or [])
    result = diagnose(
        w,
        con.side,
        parse_population(con, source),
        parse_population(con, target),
        pops,
        alpha=alpha,
        steps=steps,
    )
    result.update(source=source, target=target, normalize=norm, alpha=alpha)
    console = Console()
    r, m = result["reachability"], result["midline"]
    console.print(
        f"{source} -> {target} ({norm}, alpha={alpha}): spectral radius "
        f"{result['spectral_radius']:.4g}; reachable {r['reachable']:.1%} of "
        f"{r['targets']}; hops min/median/max {r['hops_min']:.0f}/"
        f"{r['hops_median']:.0f}/{r['hops_max']:.0f}"
    )
    console.print(
        f"shortest paths crossing the midline: {m['crossing_fraction']:.1%} "
        f"(ipsilateral pairs {m['crossing_fraction_ipsilateral']:.1%}, contralateral "
        f"{m['crossing_fraction_contralateral']:.1%})"
    )
    table = Table("source \\ target", *pops, title="response gain (latency, steps)")
    for src, row in result["response"].items():
        table.add_row(src, *[f"{v['gain']:.3g} ({v['latency']:.0f})" for v in row.values()])
    console.print(table)
    if out is not None:
        from wirelab.results import ResultDir

        rd = ResultDir.create(
            out,
            command="wirelab connectome paths",
            config={
                "connectome": connectome,
                "from": source,
                "to": target,
                "normalize": norm,
                "edge_types": edge_types,
                "alpha": alpha,
                "populations": populations,
                "steps": steps,
            },
        )
        rd.write_metrics(finite_or_none(result))
        click.echo(f"results: {rd.path}")
