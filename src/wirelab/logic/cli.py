"""``wirelab logic ...``: train logic gate networks; compile, verify, synthesise their circuits.

``train`` only parses: a recipe (or a run's ``config.json``) and the options given become a
`TrainConfig`, and `wirelab.logic.api.train` (what a Python user calls) does the rest. The
options' defaults are the fields of `TrainConfig`, `ModelSpec` and `ConvBlock` (one set of
defaults); an option left at its default does not override the recipe.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from wirelab.cli_options import out_option
from wirelab.errors import UsageError
from wirelab.logic.circuit.cli import register
from wirelab.logic.train_options import config_of, given_options, train_options
from wirelab.parallel.options import executor_options


@click.group(name="logic")
def group() -> None:
    """Differentiable logic gate networks and their circuits."""


@group.command()
@train_options
@out_option()
@click.option(
    "--resume",
    is_flag=True,
    help="Continue the killed run in --out from its checkpoint (with --seeds: every seed's).",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--seeds",
    default=None,
    help="Train once per seed, one job each: a count (3: seeds 0,1,2) or a list (0,4,7); "
    "--out then holds seeds/seed-<s>/ and their mean and sd.",
)
@executor_options
def train(**kw: Any) -> None:
    """Train a logic gate network; writes a result directory with discrete.json and metrics.json."""
    from wirelab.logic.api import train as train_model

    config = config_of(kw, given_options(kw))
    out: Path = kw["out"]
    if kw["seeds"] is not None:
        _train_seeds(config, kw)
        return
    if kw["workers"] or kw["backend"] != "local" or kw["address"]:
        raise UsageError("--workers, --backend and --address apply to --seeds runs")
    flags = {k: kw[k] for k in ("overwrite", "resume", "quiet")}
    m = train_model(config, out, **flags).metrics
    click.echo(
        f"test accuracy: soft {m['accuracy_soft']:.4f}, discrete "
        f"{m['accuracy_discrete']:.4f} ({m['gates']} gates, "
        f"{m['train_seconds']:.0f} s training) -> {out}"
    )
    if m.get("gap_warning"):
        click.echo(f"warning: {m['gap_warning']}", err=True)


@group.command()
def recipes() -> None:
    """List the packaged recipes, the names --recipe accepts (wirelab.logic.RECIPES)."""
    from wirelab.logic.recipe_registry import RECIPES, summary

    width = max(len(name) for name in RECIPES)
    for name in RECIPES:
        click.echo(f"{name:<{width}}  {summary(name)}")


def _train_seeds(config: Any, kw: dict[str, Any]) -> None:
    from wirelab.logic.seeds import parse_seeds, run
    from wirelab.parallel import ExecOptions

    seeds = parse_seeds(kw["seeds"])
    options = ExecOptions(kw["backend"], kw["workers"], kw["address"])
    flags = {k: kw[k] for k in ("overwrite", "resume", "quiet")}
    m = run(config, seeds, kw["out"], options=options, **flags)
    for r in m["runs"]:
        hit = r.get("val_97")
        when = f"after {hit['train_seconds']:.0f} s" if hit else "never"
        click.echo(
            f"seed {r['seed']}: soft {r['accuracy_soft']:.4f}, discrete "
            f"{r['accuracy_discrete']:.4f}; 97% validation {when}"
        )
    click.echo(
        f"discrete accuracy {m['accuracy_discrete_mean']:.4f} +- {m['accuracy_discrete_sd']:.4f} "
        f"(sd over {len(seeds)} seeds) -> {kw['out']}"
    )


register(group)
