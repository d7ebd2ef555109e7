"""``wirelab attention``: each command parses its options into the experiment's config and calls
its ``run(config, out, overwrite=...)``, which writes the result directory (`wirelab.results`).

Option names are the config's field names (``--test-size`` -> ``test_size``), so a command passes
its options through as they are, converting only ``--quiet`` (and pooling's ``--seeds`` count).
Each option's default is its config's field default (one set of defaults, compared by
``tests/attention/test_defaults.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from wirelab.attention.experiments.complexity import ComplexityConfig
from wirelab.attention.experiments.pooling import PoolingConfig
from wirelab.attention.experiments.positional import PositionalConfig
from wirelab.attention.experiments.translate import TranslateConfig
from wirelab.cli_options import SEED, finite_float, out_option
from wirelab.cli_options import THREADS as THREAD_COUNT

OUT = out_option(help="Result directory to write (config.json, metrics.json, plots).")
# --quiet is the configs' ``progress`` turned around: a progress bar unless given
QUIET = click.option("--quiet", is_flag=True, help="No progress bar.")


def threads_option(default: int) -> Any:
    return click.option(
        "--threads", type=THREAD_COUNT, default=default, show_default=True, help="torch threads."
    )


def int_list(values: tuple[int, ...]) -> str:
    """A tuple field's default as its option's text (``(4, 16)`` -> ``"4,16"``)."""
    return ",".join(str(v) for v in values)


def _int_list(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        items = tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {value!r}") from None
    if not items or min(items) < 0:
        raise click.BadParameter(f"expected non-negative integers, got {value!r}")
    return items


def _names(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, ...] | None:
    """A comma-separated list of positional-encoding registry names (read at parse time)."""
    from wirelab.attention.positional import ENCODINGS

    if value is None:
        return None
    names = tuple(v.strip() for v in value.split(",") if v.strip())
    for name in names:
        if name not in ENCODINGS:
            raise click.BadParameter(
                f"unknown positional encoding {name!r}; choose from {', '.join(ENCODINGS.names())}"
            )
    return names


def _summary(title: str, rows: dict[str, Any]) -> None:
    click.echo(title)
    for k, v in rows.items():
        click.echo(f"  {k}: {v}")


@click.group("attention")
def group() -> None:
    """Attention building blocks and experiments."""


@group.command("pooling")
@OUT
@click.option(
    "--distractors",
    default=int_list(PoolingConfig.distractors),
    show_default=True,
    callback=_int_list,
)
@click.option(
    "--seeds",
    type=click.IntRange(1, 1000),
    default=len(PoolingConfig.seeds),
    show_default=True,
    help="Seeds 0 .. N-1.",
)
@click.option("--steps", type=click.IntRange(min=1), default=PoolingConfig.steps, show_default=True)
@click.option("--batch", type=click.IntRange(min=1), default=PoolingConfig.batch, show_default=True)
@click.option(
    "--test-bags", type=click.IntRange(min=1), default=PoolingConfig.test_bags, show_default=True
)
@click.option(
    "--train-images",
    type=click.IntRange(min=100, max=60000),
    default=PoolingConfig.train_images,
    show_default=True,
)
@threads_option(PoolingConfig.threads)
@QUIET
def pooling_cmd(out: Path, overwrite: bool, seeds: int, quiet: bool, **opts: Any) -> None:
    """Mean vs single- and multi-head attention pooling on bags of MNIST digits."""
    from wirelab.attention.experiments.pooling import run

    cfg = PoolingConfig(seeds=tuple(range(seeds)), progress=not quiet, **opts)
    m = run(cfg, out, overwrite=overwrite)
    rows = {
        f"{meth} n={n}": f"acc {v['accuracy_mean']:.3f}, weight on marked "
        f"{v['marked_weight_share_mean']:.3f}"
        for meth, per in m["summary"].items()
        for n, v in per.items()
    }
    _summary(f"pooling -> {out}", rows)


@group.command("translate")
@OUT
@click.option(
    "--steps", type=click.IntRange(min=1), default=TranslateConfig.steps, show_default=True
)
@click.option(
    "--batch", type=click.IntRange(min=1), default=TranslateConfig.batch, show_default=True
)
@click.option("--dim", type=click.IntRange(min=8), default=TranslateConfig.dim, show_default=True)
@click.option(
    "--heads", type=click.IntRange(min=1), default=TranslateConfig.heads, show_default=True
)
@click.option(
    "--layers", type=click.IntRange(min=1), default=TranslateConfig.layers, show_default=True
)
@click.option(
    "--test-size",
    type=click.IntRange(min=1),
    default=TranslateConfig.test_size,
    show_default=True,
)
@click.option(
    "--eval-every",
    type=click.IntRange(min=1),
    default=TranslateConfig.eval_every,
    show_default=True,
)
@click.option("--seed", type=SEED, default=TranslateConfig.seed, show_default=True)
@threads_option(TranslateConfig.threads)
@QUIET
def translate_cmd(out: Path, overwrite: bool, quiet: bool, **opts: Any) -> None:
    """Dates in words -> ISO dates with an encoder-decoder; cross-attention maps and alignment."""
    from wirelab.attention.experiments.translate import run

    cfg = TranslateConfig(progress=not quiet, **opts)
    m = run(cfg, out, overwrite=overwrite)
    keys = ("exact_match", "alignment_score", "best_head", "train_seconds", "cpu_seconds")
    _summary(f"translate -> {out}", {k: m[k] for k in keys if k in m})


@group.command("complexity")
@OUT
@click.option("--ns", default=int_list(ComplexityConfig.ns), show_default=True, callback=_int_list)
@click.option("--ds", default=int_list(ComplexityConfig.ds), show_default=True, callback=_int_list)
@click.option(
    "--d",
    "d_fixed",
    type=click.IntRange(min=2),
    default=ComplexityConfig.d_fixed,
    show_default=True,
)
@click.option(
    "--n",
    "n_fixed",
    type=click.IntRange(min=2),
    default=ComplexityConfig.n_fixed,
    show_default=True,
)
@click.option("--k", type=click.IntRange(min=3), default=ComplexityConfig.k, show_default=True)
@click.option("--r", type=click.IntRange(min=2), default=ComplexityConfig.r, show_default=True)
@click.option(
    "--path-ns",
    default=int_list(ComplexityConfig.path_ns),
    show_default=True,
    callback=_int_list,
)
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=ComplexityConfig.repeats,
    show_default=True,
)
@threads_option(ComplexityConfig.threads)
@QUIET
def complexity_cmd(out: Path, overwrite: bool, quiet: bool, **opts: Any) -> None:
    """'Why self-attention': FLOPs, wall time, sequential depth and path length per layer type."""
    from wirelab.attention.experiments.complexity import run

    cfg = ComplexityConfig(progress=not quiet, **opts)
    m = run(cfg, out, overwrite=overwrite)
    rows = {
        row[
            "layer"
        ]: f"time slope n {row['time_slope_n']:.2f} (pred {row['predicted_slope_n']:.0f})"
        f", d {row['time_slope_d']:.2f} (pred {row['predicted_slope_d']:.0f}), "
        f"max path {row['max_path_length']}, traced depth {row['sequential_depth']}"
        for row in m["table"]
    }
    rows["crossover"] = m["crossover"]
    _summary(f"complexity -> {out}", rows)


@group.command("positional")
@OUT
@click.option(
    "--length",
    type=click.IntRange(min=16),
    default=PositionalConfig.length,
    show_default=True,
    help="Positions; the shift offsets scored are those of the config shorter than it.",
)
@click.option("--dim", type=click.IntRange(min=2), default=PositionalConfig.dim, show_default=True)
@click.option(
    "--base",
    type=finite_float(min=1.0, min_open=True),
    default=PositionalConfig.base,
    show_default=True,
)
@click.option(
    "--encodings",
    default=PositionalConfig.encodings,
    callback=_names,
    help="Comma-separated positional encodings (registry names) to score; default: all.",
)
def positional_cmd(out: Path, overwrite: bool, length: int, **opts: Any) -> None:
    """Sinusoidal heatmap, similarity vs offset, relative-shift residuals (sinusoidal and RoPE),
    and the position-by-position scores of every registered encoding."""
    from wirelab.attention.experiments.positional import run

    offsets = tuple(k for k in PositionalConfig.offsets if k < length)
    cfg = PositionalConfig(length=length, offsets=offsets, **opts)
    m = run(cfg, out, overwrite=overwrite)
    rows = {
        "sinusoidal shift residual (float64)": m["sinusoidal_shift_residual_float64"],
        "RoPE relative residual": m["rope_relative_residual"],
    }
    for name, e in m["encodings"].items():
        rows[f"{name} ({e['kind']}) score shift residual"] = f"{e['shift_residual']:.3g}"
    _summary(f"positional -> {out}", rows)
