"""``wirelab attention``: each command parses its options into the experiment's config and calls
its ``run(config, out, overwrite=...)``, which writes the result directory (`wirelab.results`).

Option names are the config's field names (``--test-size`` -> ``test_size``), so a command passes
its options through as they are, converting only ``--quiet`` (and pooling's ``--seeds`` count).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from wirelab.cli_options import SEED, finite_float, out_option
from wirelab.cli_options import THREADS as THREAD_COUNT

OUT = out_option(help="Result directory to write (config.json, metrics.json, plots).")
THREADS = click.option(
    "--threads", type=THREAD_COUNT, default=1, show_default=True, help="torch threads."
)
QUIET = click.option("--quiet", is_flag=True, help="No progress bar.")


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
@click.option("--distractors", default="4,16,64", show_default=True, callback=_int_list)
@click.option("--seeds", type=click.IntRange(1, 1000), default=2, show_default=True)
@click.option("--steps", type=click.IntRange(min=1), default=1000, show_default=True)
@click.option("--batch", type=click.IntRange(min=1), default=64, show_default=True)
@click.option("--test-bags", type=click.IntRange(min=1), default=2000, show_default=True)
@click.option("--train-images", type=click.IntRange(min=100, max=60000), default=60000)
@THREADS
@QUIET
def pooling_cmd(out: Path, overwrite: bool, seeds: int, quiet: bool, **opts: Any) -> None:
    """Mean vs single- and multi-head attention pooling on bags of MNIST digits."""
    from wirelab.attention.experiments.pooling import PoolingConfig, run

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
@click.option("--steps", type=click.IntRange(min=1), default=1000, show_default=True)
@click.option("--batch", type=click.IntRange(min=1), default=128, show_default=True)
@click.option("--dim", type=click.IntRange(min=8), default=64, show_default=True)
@click.option("--heads", type=click.IntRange(min=1), default=4, show_default=True)
@click.option("--layers", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--test-size", type=click.IntRange(min=1), default=2000, show_default=True)
@click.option("--eval-every", type=click.IntRange(min=1), default=250, show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True)
@THREADS
@QUIET
def translate_cmd(out: Path, overwrite: bool, quiet: bool, **opts: Any) -> None:
    """Dates in words -> ISO dates with an encoder-decoder; cross-attention maps and alignment."""
    from wirelab.attention.experiments.translate import TranslateConfig, run

    cfg = TranslateConfig(progress=not quiet, **opts)
    m = run(cfg, out, overwrite=overwrite)
    keys = ("exact_match", "alignment_score", "best_head", "train_seconds", "cpu_seconds")
    _summary(f"translate -> {out}", {k: m[k] for k in keys if k in m})


@group.command("complexity")
@OUT
@click.option("--ns", default="64,128,256,512,1024,2048", show_default=True, callback=_int_list)
@click.option("--ds", default="32,64,128,256,512,1024", show_default=True, callback=_int_list)
@click.option("--d", "d_fixed", type=click.IntRange(min=2), default=256, show_default=True)
@click.option("--n", "n_fixed", type=click.IntRange(min=2), default=512, show_default=True)
@click.option("--k", type=click.IntRange(min=3), default=3, show_default=True)
@click.option("--r", type=click.IntRange(min=2), default=16, show_default=True)
@click.option("--path-ns", default="16,32,64,128", show_default=True, callback=_int_list)
@click.option("--repeats", type=click.IntRange(min=1), default=7, show_default=True)
@THREADS
@QUIET
def complexity_cmd(out: Path, overwrite: bool, quiet: bool, **opts: Any) -> None:
    """'Why self-attention': FLOPs, wall time, sequential depth and path length per layer type."""
    from wirelab.attention.experiments.complexity import ComplexityConfig, run

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
@click.option("--length", type=click.IntRange(min=16), default=1024, show_default=True)
@click.option("--dim", type=click.IntRange(min=2), default=128, show_default=True)
@click.option("--base", type=finite_float(min=1.0, min_open=True), default=10000.0)
@click.option(
    "--encodings",
    default=None,
    callback=_names,
    help="Comma-separated positional encodings (registry names) to score; default: all.",
)
def positional_cmd(out: Path, overwrite: bool, length: int, **opts: Any) -> None:
    """Sinusoidal heatmap, similarity vs offset, relative-shift residuals (sinusoidal and RoPE),
    and the position-by-position scores of every registered encoding."""
    from wirelab.attention.experiments.positional import PositionalConfig, run

    offsets = tuple(k for k in (1, 7, 50, 300) if k < length)
    cfg = PositionalConfig(length=length, offsets=offsets, **opts)
    m = run(cfg, out, overwrite=overwrite)
    rows = {
        "sinusoidal shift residual (float64)": m["sinusoidal_shift_residual_float64"],
        "RoPE relative residual": m["rope_relative_residual"],
    }
    for name, e in m["encodings"].items():
        rows[f"{name} ({e['kind']}) score shift residual"] = f"{e['shift_residual']:.3g}"
    _summary(f"positional -> {out}", rows)
