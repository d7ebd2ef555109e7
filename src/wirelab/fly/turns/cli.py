"""``wirelab fly turns``: left, right and control flies over seeds (`wirelab.fly.turns.study`).

The command parses its options into `TurnsConfig` and calls `wirelab.fly.turns.study.run`, which
alone writes the result directory; then it prints the table. `wirelab.fly.cli` adds it to the
``wirelab fly`` group.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from wirelab.cli_options import comma_list, finite_float, out_option
from wirelab.fly.bodies import BODIES
from wirelab.fly.limits import MAX_COUNT, MAX_STEPS
from wirelab.fly.options import (
    connectome_option,
    controller_options,
    defaults_of,
    make_mapping,
    mapping_options,
    timestep_option,
)
from wirelab.fly.turns.runs import MODEL_HELP
from wirelab.fly.turns.study import TurnsConfig
from wirelab.fly.turns.timing import timing_line
from wirelab.parallel.options import executor_options
from wirelab.reservoir.nulls import NULLS


def _fmt(d: dict[str, object] | None) -> str:
    if not d:
        return "-"
    ci = d["ci"]
    assert isinstance(ci, list)
    return f"{d['mean']:+7.1f} [{ci[0]:+7.1f}, {ci[1]:+7.1f}]"


class OldNameOption(click.Option):
    """An option whose names after the first are old names: accepted, left out of ``--help``."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        opts = self.opts
        self.opts = opts[:1]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = opts


# the options' defaults: `TurnsConfig`'s field defaults (tests/fly/test_defaults.py); the study
# walks seeds 0 .. --seeds - 1, so it has no --seed
TURNS = defaults_of(TurnsConfig)


def _show(m: dict[str, Any]) -> None:
    """The table, the comparison with each null family and the timing, on stdout."""
    w = max(9, *(len(r["model"]) for r in m["table"]))
    click.echo(f"{'model':{w}s} {'condition':10s} {'turn deg [95% CI]':28s} minus control")
    for r in m["table"]:
        click.echo(
            f"{r['model']:{w}s} {r['condition']:10s} {_fmt(r['turn']):28s} "
            f"{_fmt(r.get('minus_control'))}"
        )
    for family, c in m.get("nulls", {}).get("families", {}).items():
        z = "-" if c["z"] is None else f"{c['z']:+.2f}"
        click.echo(
            f"{m['nulls']['model']} vs {c['n_nulls']} {family} nulls: |L-R| {c['observed']:.1f} "
            f"vs {c['null_mean']:.1f} +- {c['null_sd']:.1f} deg, p={c['p']:.3f}, z={z}"
        )
    t = m["timing"]
    click.echo(f"{timing_line(t)}; {t['step_ms_median']:.2f} ms/step")


@click.command("turns")
@click.option(
    "--seeds", type=click.IntRange(min=2, max=MAX_COUNT), default=TURNS["seeds"], show_default=True
)
@click.option(
    "--models",
    default=",".join(TURNS["models"]),
    show_default=True,
    help=f"Comma list of: {MODEL_HELP}.",
)
@click.option(
    "--nulls",
    type=click.IntRange(min=0, max=MAX_COUNT),
    default=TURNS["nulls"],
    show_default=True,
    help="Null networks per --null-family.",
)
@click.option(
    "--null-family",
    default=",".join(TURNS["null_family"]),
    show_default=True,
    help=f"Comma list of null families (wirelab.reservoir.nulls.NULLS: {', '.join(NULLS)}).",
)
@click.option(
    "--null-seed",
    type=click.IntRange(0, 2**31),
    default=TURNS["null_seed"],
    show_default=True,
    help="A seed, not a count: null i of each family is rewired with seed null-seed + i "
    "(how many walk seeds the nulls get: --null-walk-seeds).",
)
@click.option(
    "--null-walk-seeds",
    "--null-seeds",  # the old name, still accepted, left out of --help (next to --null-seed)
    "null_seeds",
    cls=OldNameOption,
    type=click.IntRange(min=2, max=MAX_COUNT),
    default=TURNS["null_seeds"],
    help="A count, not a seed: the nulls walk only the first N fly seeds, 2 .. --seeds "
    "(default: all --seeds; the nulls' rewiring seed: --null-seed).",
)
@click.option(
    "--settle",
    type=finite_float(0.0),
    default=TURNS["settle"],
    show_default=True,
    help="Seconds walked before the stimulus (flygym's start-up transient).",
)
@click.option(
    "--duration",
    type=finite_float(0.0, min_open=True),
    default=TURNS["duration"],
    show_default=True,
    help="Stimulated seconds.",
)
@click.option("--body", type=BODIES.choice(), default=TURNS["body"], show_default=True)
@timestep_option(TURNS["timestep"])
@executor_options
@click.option(
    "--video/--no-video", default=TURNS["video"], show_default=True, help="Side-by-side MP4."
)
@click.option(
    "--frame-every",
    type=click.IntRange(min=1, max=MAX_STEPS),
    default=TURNS["frame_every"],
    show_default=True,
    help="Physics steps per rendered frame.",
)
@click.option(
    "--frame-size",
    type=click.IntRange(32, 1024),
    default=TURNS["frame_size"][0],
    show_default=True,
    help="Pixels (square frames).",
)
@mapping_options(TURNS["mapping"])
@controller_options(TURNS["controller"])
@connectome_option(TURNS["connectome"])
@out_option(default="runs/fly/turns")
@click.option(
    "--resume", is_flag=True, help="Continue the killed study in --out from its saved runs."
)
def turns_cmd(
    seeds: int,
    models: str,
    nulls: int,
    null_family: str,
    null_seed: int,
    null_seeds: int | None,
    settle: float,
    duration: float,
    body: str,
    timestep: float,
    workers: int | None,
    backend: str,
    address: str | None,
    video: bool,
    frame_every: int,
    frame_size: int,
    mapping: str,
    sides: str,
    baseline: str,
    gain: float | None,
    offset: float,
    modality: str,
    alpha: float,
    leak: float,
    input_gain: float,
    readout: str,
    update_steps: int,
    connectome: str,
    out: Path,
    overwrite: bool,
    resume: bool,
) -> None:
    """Turn per condition with 95% CIs and paired differences to a control on the same seeds."""
    from wirelab.fly.controller import ControllerConfig
    from wirelab.fly.turns.study import run

    config = TurnsConfig(
        seeds=seeds,
        models=tuple(m.strip() for m in models.split(",") if m.strip()),
        nulls=nulls,
        null_family=tuple(comma_list(null_family) or ()),
        null_seed=null_seed,
        null_seeds=null_seeds,
        settle=settle,
        duration=duration,
        mapping=make_mapping(mapping, sides, baseline, gain, offset),
        controller=ControllerConfig(
            modality,
            TURNS["controller"].normalize,
            alpha,
            leak,
            input_gain,
            readout,
            update_steps,
        ),
        body=body,
        timestep=timestep,
        workers=workers,
        backend=backend,
        address=address,
        video=video,
        frame_every=frame_every,
        frame_size=(frame_size, frame_size),
        connectome=connectome,
    )
    if resume and overwrite:
        raise click.UsageError("--resume and --overwrite exclude each other")
    _show(run(config, out, overwrite=overwrite, resume=resume))
