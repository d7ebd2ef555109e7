"""``wirelab reservoir run``: tasks vs nulls; a thin layer over `experiment.run` (what
`wirelab.reservoir.compare` runs, without the result directory). Every option's default is the
field of `config.DEFAULTS` of the same name (tests/reservoir/test_api.py checks them)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from wirelab.cli_options import FINITE_FLOAT, SEED, comma_list, count, finite_float, out_option
from wirelab.data.connectomes import CONNECTOME
from wirelab.errors import UsageError
from wirelab.parallel.options import executor_options
from wirelab.registry import RegistryChoice
from wirelab.reservoir import experiment
from wirelab.reservoir.config import ALPHAS as ALPHA_SPEC
from wirelab.reservoir.config import DEFAULTS
from wirelab.reservoir.nulls import NULLS
from wirelab.reservoir.ridge.solvers import SOLVERS
from wirelab.reservoir.tasks import TASKS, task_names
from wirelab.reservoir.units import ACTIVATIONS, parse_bias
from wirelab.reservoir.weights import NORMALIZATIONS, parse_alphas


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


@click.group(name="reservoir")
def group() -> None:
    """Connectome reservoir computing: tasks, null models, statistics."""


@group.command("run")
@click.option(
    "--task",
    "tasks",
    multiple=True,
    required=True,
    type=_TaskChoice(TASKS),
    help="Task (repeat for several, or 'all').",
)
@click.option(
    "--connectome",
    type=CONNECTOME,
    default=DEFAULTS.connectome,
    show_default=True,
    help="A registered connectome or the path of an edge list / matrix file.",
)
@click.option(
    "--inputs",
    default=DEFAULTS.inputs,
    show_default=True,
    help="Input population: celltype[:side], annotation=TOKEN[+TOKEN][:side], index=0-9, "
    "all (cell types and annotations from the connectome's neuron table).",
)
@click.option(
    "--outputs",
    default=DEFAULTS.outputs,
    show_default=True,
    help="Readout population, as --inputs; cell types join with + (DN-VNC+sensory); the "
    "readout sees these neurons only.",
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
    default=ALPHA_SPEC,
    show_default=True,
    help="Global gains: START:STOP:N, a,b,c or one value (finite).",
)
@click.option(
    "--nulls",
    type=count(min=0),
    default=DEFAULTS.nulls,
    show_default=True,
    help="Nulls per model (null i is built with seed + 1 + i; checked against the memory "
    "available before any work).",
)
@click.option(
    "--null-model",
    "null_models",
    default=",".join(DEFAULTS.null_models),
    show_default=True,
    help=f"Comma list of {', '.join(NULLS.names())}. The default leaves degree-boundary out "
    "(with a note) on a connectome without cell classes.",
)
@click.option(
    "--activation",
    type=click.Choice([*ACTIVATIONS, "lif"]),
    default=DEFAULTS.activation,
    show_default=True,
    help="Rate units, or 'lif': leaky integrate-and-fire units read out by their rate trace.",
)
@click.option(
    "--leak",
    type=finite_float(0.0, 1.0, min_open=True),
    default=DEFAULTS.leak,
    show_default=True,
)
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
@click.option("--seed", type=SEED, default=DEFAULTS.seed, show_default=True)
@executor_options
@click.option(
    "--quick",
    is_flag=True,
    default=DEFAULTS.quick,
    help="Shorter task sequences (for tours and tests).",
)
@click.option(
    "--readout-solver",
    type=SOLVERS.choice(),
    default=DEFAULTS.readout_solver,
    show_default=True,
    help="How the ridge readouts are solved: fast (pivoted Cholesky of X^T X, eigh per fold) "
    "or exact (SVD per fold, exact down to lambda 1e-12, 1.9-6.3x slower).",
)
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
    readout_solver: str,
    out: Path,
    overwrite: bool,
) -> None:
    """Score the connectome and its nulls on tasks over a range of gains; p-values and z."""
    cfg = replace(
        DEFAULTS,
        tasks=task_names(tasks),
        alphas=alphas,
        connectome=connectome,
        inputs=inputs,
        outputs=outputs,
        normalize=norm,
        edge_types=comma_list(edge_types),
        nulls=nulls,
        null_models=comma_list(null_models) or [],
        activation=activation,
        leak=leak,
        input_scaling=input_scaling,
        bias=bias,
        seed=seed,
        workers=workers,
        backend=backend,
        address=address,
        quick=quick,
        readout_solver=readout_solver,
    )
    metrics = experiment.run(cfg, out, overwrite=overwrite)
    _print_summary(metrics, Console())
    for line in metrics.get("warnings", []):
        click.echo(f"warning: {line}", err=True)
    click.echo(f"results: {out}")


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _print_summary(metrics: dict[str, Any], console: Console) -> None:
    """The task definitions, one table per null family that ran (``summary_by_null_model``; a
    run without nulls: ``summary`` alone), each task's z note, and the default families left out."""
    for task, definition in metrics["definitions"].items():
        console.print(f"[bold]{task}[/]: {definition}")
    ran = {network.get("model") for network in metrics.get("networks", [])}
    by_family = metrics.get("summary_by_null_model", {})
    families = {kind: s for kind, s in by_family.items() if kind in ran} or {"": metrics["summary"]}
    for kind, summary in families.items():
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
            title=f"connectome vs {kind} nulls" if kind else "connectome vs nulls",
        )
        for task, s in summary.items():
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
        for task, s in summary.items():
            if s.get("z_note"):
                where = f"{task} vs {kind}" if kind else task
                console.print(f"{where}: z {_fmt(s['z'])}: {s['z_note']}")
    for kind, why in metrics.get("null_models_left_out", {}).items():
        console.print(f"{kind} nulls left out: {why}")
