"""``wirelab reservoir run`` (tasks vs nulls) and ``wirelab connectome paths`` (diagnostics)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from wirelab.cli_options import FINITE_FLOAT, SEED, finite_float, out_option
from wirelab.data.connectomes import CONNECTOME
from wirelab.errors import UsageError
from wirelab.parallel.options import executor_options
from wirelab.registry import RegistryChoice
from wirelab.reservoir import diagnostics, experiment
from wirelab.reservoir.nulls import NULLS
from wirelab.reservoir.tasks import TASKS
from wirelab.reservoir.units import parse_bias
from wirelab.reservoir.weights import NORMALIZATIONS, parse_alphas

DEFAULTS = experiment.ExperimentConfig(tasks=[], alphas=[])  # the documented defaults


class _TaskChoice(RegistryChoice):
    """A registered task or ``all``."""

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join([*TASKS.names(), "all"]) + "]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return value if value == "all" else super().convert(value, param, ctx)


class _Parsed(click.ParamType):
    """A value read by one of the library's parsers; its `UsageError` becomes a click error."""

    def __init__(self, name: str, parse: Any, metavar: str) -> None:
        self.name, self._parse, self._metavar = name, parse, metavar

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return self._metavar

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return self._parse(value)
        except UsageError as exc:
            self.fail(str(exc), param, ctx)


ALPHAS = _Parsed("alphas", lambda v: [float(a) for a in parse_alphas(v)], "START:STOP:N|a,b,c")
BIAS = _Parsed("bias", lambda v: str(parse_bias(v)), "NUMBER|random[:SCALE]")


def _split(text: str | None) -> list[str] | None:
    return [t.strip() for t in text.split(",") if t.strip()] if text else None


@click.group(name="reservoir")
def group() -> None:
    """Connectome reservoir computing: tasks, null models, statistics."""


CONNECTOME_OPTION = click.option(
    "--connectome",
    type=CONNECTOME,
    default="larva",
    show_default=True,
    help="A registered connectome or the path of an edge list / matrix file.",
)


@group.command("run")
@click.option(
    "--task",
    "tasks",
    multiple=True,
    required=True,
    type=_TaskChoice(TASKS),
    help="Task (repeat for several, or 'all').",
)
@CONNECTOME_OPTION
@click.option(
    "--inputs",
    default="sensory",
    show_default=True,
    help="Input population: celltype[:side], annotation=TOKEN, index=0-9, all.",
)
@click.option(
    "--outputs",
    default=DEFAULTS.outputs,
    show_default=True,
    help="Readout population, as --inputs; cell types join with + (DN-VNC+sensory).",
)
@click.option(
    "--normalize",
    "norm",
    type=click.Choice(NORMALIZATIONS),
    default=DEFAULTS.normalize,
    show_default=True,
    help="auto: row for synapse counts, spectral for signed weights.",
)
@click.option("--edge-types", default=None, help="Comma list of the connectome's edge types.")
@click.option(
    "--alpha",
    "alphas",
    type=ALPHAS,
    default="0.2:1.6:8",
    show_default=True,
    help="Global gains: START:STOP:N, a,b,c or one value (finite).",
)
@click.option(
    "--nulls", type=click.IntRange(min=0), default=20, show_default=True, help="Nulls per model."
)
@click.option(
    "--null-model",
    "null_models",
    default=",".join(DEFAULTS.null_models),
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
@click.option("--leak", type=finite_float(0.0, 1.0, min_open=True), default=1.0, show_default=True)
@click.option(
    "--input-scaling", type=FINITE_FLOAT, default=DEFAULTS.input_scaling, show_default=True
)
@click.option(
    "--bias",
    type=BIAS,
    default=str(DEFAULTS.bias),
    show_default=True,
    help="A constant, or random[:SCALE]: b_i ~ U[-SCALE, SCALE] per neuron, seeded.",
)
@click.option("--seed", type=SEED, default=0, show_default=True)
@executor_options
@click.option("--quick", is_flag=True, help="Shorter task sequences (for tours and tests).")
@out_option()
def run_cmd(
    tasks: tuple[str, ...],
    connectome: str,
    inputs: str,
    outputs: str,
    norm: str,
    edge_types: str | None,
    alphas: list[float],
    nulls: int,
    null_models: str,
    activation: str,
    leak: float,
    input_scaling: float,
    bias: str,
    seed: int,
    workers: int | None,
    backend: str,
    address: str | None,
    quick: bool,
    out: Path,
    overwrite: bool,
) -> None:
    """Score the connectome and its nulls on tasks over a range of gains; p-values and z."""
    cfg = experiment.ExperimentConfig(
        tasks=list(TASKS) if "all" in tasks else list(dict.fromkeys(tasks)),
        alphas=alphas,
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
        backend=backend,
        address=address,
        quick=quick,
    )
    metrics = experiment.run(cfg, out, overwrite=overwrite)
    _print_summary(metrics, Console())
    for line in metrics.get("warnings", []):
        click.echo(f"warning: {line}", err=True)
    click.echo(f"results: {out}")


def _num(v: float | None, spec: str) -> str:
    """``v`` formatted with ``spec``; ``-`` for a non-finite number (written as null)."""
    return "-" if v is None else format(v, spec)


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
    for task, s in metrics["summary"].items():
        if s.get("z_note"):
            console.print(f"{task}: z {_fmt(s['z'])}: {s['z_note']}")


@click.group(name="connectome")
def connectome_group() -> None:
    """Connectome diagnostics: hops, reachability, midline crossings, gain and latency."""


@connectome_group.command("paths")
@CONNECTOME_OPTION
@click.option("--from", "source", default="sensory", show_default=True)
@click.option("--to", "target", default="DN-VNC", show_default=True)
@click.option(
    "--normalize", "norm", type=click.Choice(NORMALIZATIONS), default="row", show_default=True
)
@click.option(
    "--edge-types", default=None, help="Comma list of the connectome's edge types (default: all)."
)
@click.option("--alpha", type=FINITE_FLOAT, default=1.0, show_default=True)
@click.option(
    "--populations",
    default="sensory:left,sensory:right,DN-VNC:left,DN-VNC:right",
    show_default=True,
    help="Comma list for the gain/latency matrix.",
)
@click.option("--steps", type=click.IntRange(min=1), default=40, show_default=True)
@out_option(default=None, help="Result directory to write (default: print only).")
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
    overwrite: bool,
) -> None:
    """Hop distance, reachability and midline crossings from one population to another."""
    cfg = diagnostics.PathsConfig(
        connectome=connectome,
        source=source,
        target=target,
        normalize=norm,
        edge_types=_split(edge_types),
        alpha=alpha,
        populations=_split(populations) or [],
        steps=steps,
    )
    result = diagnostics.run(cfg, out, overwrite=overwrite)
    console = Console()
    r, m = result["reachability"], result["midline"]
    console.print(
        f"{source} -> {target} ({norm}, alpha={alpha}): spectral radius "
        f"{_num(result['spectral_radius'], '.4g')}; reachable {_num(r['reachable'], '.1%')} of "
        f"{r['targets']}; hops min/median/max {_num(r['hops_min'], '.0f')}/"
        f"{_num(r['hops_median'], '.0f')}/{_num(r['hops_max'], '.0f')}"
    )
    console.print(
        f"shortest paths crossing the midline: {_num(m['crossing_fraction'], '.1%')} "
        f"(ipsilateral pairs {_num(m['crossing_fraction_ipsilateral'], '.1%')}, contralateral "
        f"{_num(m['crossing_fraction_contralateral'], '.1%')})"
    )
    table = Table("source \\ target", *result["response"], title="response gain (latency, steps)")
    for src, row in result["response"].items():
        table.add_row(
            src, *[f"{_num(v['gain'], '.3g')} ({_num(v['latency'], '.0f')})" for v in row.values()]
        )
    console.print(table)
    if out is not None:
        click.echo(f"results: {out}")
