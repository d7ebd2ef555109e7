"""``wirelab connectome``: diagnostics of a connectome's wiring (``paths``: hop distance,
reachability, midline crossings, response gain and latency between populations; a thin layer
over `wirelab.reservoir.diagnostics.run`, its option defaults `diagnostics.PathsConfig`'s), and
``generate``: a whole-brain-sized test connectome (`wirelab.data.connectomes.generate`)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from wirelab.cli_options import FINITE_FLOAT, SEED, comma_list, count, out_option
from wirelab.data.connectomes import CONNECTOME, generate
from wirelab.reservoir import diagnostics
from wirelab.reservoir.weights import NORMALIZATIONS
from wirelab.results import experiment

PATHS = diagnostics.PathsConfig()  # the option defaults


def _num(v: float | None, spec: str) -> str:
    """``v`` formatted with ``spec``; ``-`` for a non-finite number (written as null)."""
    return "-" if v is None else format(v, spec)


@click.group(name="connectome")
def group() -> None:
    """Connectome diagnostics: hops, reachability, midline crossings, gain and latency."""


@group.command("paths")
@click.option(
    "--connectome",
    type=CONNECTOME,
    default=PATHS.connectome,
    show_default=True,
    help="A registered connectome or the path of an edge list / matrix file.",
)
@click.option("--from", "source", default=PATHS.source, show_default=True)
@click.option("--to", "target", default=PATHS.target, show_default=True)
@click.option(
    "--normalize",
    "norm",
    type=click.Choice(NORMALIZATIONS),
    default=PATHS.normalize,
    show_default=True,
)
@click.option(
    "--edge-types", default=None, help="Comma list of the connectome's edge types (default: all)."
)
@click.option("--alpha", type=FINITE_FLOAT, default=PATHS.alpha, show_default=True)
@click.option(
    "--populations",
    default=",".join(PATHS.populations),
    show_default=True,
    help="Comma list for the gain/latency matrix.",
)
@click.option("--steps", type=click.IntRange(min=1), default=PATHS.steps, show_default=True)
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
        edge_types=comma_list(edge_types),
        alpha=alpha,
        populations=comma_list(populations) or [],
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


@group.command("generate")
@click.option(
    "--neurons", type=count(min=100), default=140_000, show_default=True, help="Neurons (N)."
)
@click.option(
    "--edges",
    type=count(min=1),
    default=3_000_000,
    show_default=True,
    help="Distinct directed edges (at most 0.1 N (N - 1)).",
)
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(generate.FORMATS),
    default="parquet",
    show_default=True,
    help="parquet needs pyarrow (the parquet extra).",
)
@click.option(
    "--signed", is_flag=True, help="signed_weight: negative from GABA and glutamate neurons."
)
@out_option()
def generate_cmd(
    neurons: int, edges: int, seed: int, fmt: str, signed: bool, out: Path, overwrite: bool
) -> None:
    """A fly-brain-sized connectome with heavy-tailed degrees and annotations (for tests).

    Writes OUT/edges.FORMAT (pre, post, weight) and OUT/edges.neurons.FORMAT (id, celltype,
    side, partner, annotations): `--connectome OUT/edges.FORMAT` reads both.
    """
    config = {"neurons": neurons, "edges": edges, "seed": seed, "format": fmt, "signed": signed}
    generate.check_sizes(neurons, edges)  # one line before --out is made
    with experiment(
        out, command="wirelab connectome generate", config=config, overwrite=overwrite
    ) as rd:
        gen = generate.generate(neurons, edges, seed=seed, signed=signed)
        paths = generate.write(gen, out, fmt)
        summary = gen.summary()
        rd.finish({**summary, "files": [str(p) for p in paths]})
    click.echo(
        f"{summary['neurons']:,} neurons, {summary['edges']:,} edges, "
        f"{summary['synapses']:,} synapses; classes: "
        + ", ".join(f"{k} {v:,}" for k, v in summary["classes"].items())  # type: ignore[attr-defined]
    )
    click.echo(f"edges: {paths[0]}\nneurons: {paths[1]}")
