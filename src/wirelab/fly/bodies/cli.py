"""``wirelab fly calibrate`` and ``wirelab fly timestep``: the bodies' own commands.

Each command parses its options into the experiment's config and calls its ``run(config, out)``
(`wirelab.fly.bodies.calibration.run`, `wirelab.fly.bodies.timestep.run`), which alone writes
the result directory; then it prints a summary. `wirelab.fly.cli` adds them to the group.
Both measure a NeuroMechFly body (``--body``, default ``flygym``: flygym 2, which runs in the
fly environment, `wirelab.fly.envs`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from wirelab.cli_options import finite_float, out_option
from wirelab.fly.bodies import BODIES
from wirelab.fly.bodies.calibration import DEFAULT_GRID, CalibrateConfig
from wirelab.fly.bodies.timestep import TimestepConfig
from wirelab.fly.options import POSITIVE_SECONDS, defaults_of
from wirelab.parallel.options import executor_options

# the options' defaults: the configs' field defaults (tests/fly/test_defaults.py)
CALIBRATE = defaults_of(CalibrateConfig)
TIMESTEP = defaults_of(TimestepConfig)
F = TypeVar("F", bound=Callable[..., Any])


def body_option(default: str) -> Callable[[F], F]:
    return click.option(
        "--body",
        type=BODIES.choice(),
        default=default,
        show_default=True,
        help="The NeuroMechFly body measured (a body reporting its antennae).",
    )


@click.command("calibrate")
@click.option(
    "--duration",
    type=POSITIVE_SECONDS,
    default=CALIBRATE["duration"],
    show_default=True,
    help="Seconds per run.",
)
@click.option(
    "--settle",
    type=finite_float(0.0),
    default=CALIBRATE["settle"],
    show_default=True,
    help="Seconds dropped.",
)
@click.option(
    "--grid", default=None, help=f"Signals 'L,R;L,R;...' (default: {len(DEFAULT_GRID)} pairs)."
)
@click.option(
    "--write",
    type=click.Path(dir_okay=False, path_type=Path),
    default=CALIBRATE["write"],
    help="Also write the calibration JSON here (the package's calibration.json to update it).",
)
@body_option(CALIBRATE["body"])
@out_option(default="runs/fly/calibrate")
def calibrate_cmd(
    duration: float,
    settle: float,
    grid: str | None,
    write: Path | None,
    body: str,
    out: Path,
    overwrite: bool,
) -> None:
    """Fit the kinematic body's gains to NeuroMechFly runs (slow: seconds to minutes per run)."""
    from wirelab.fly.bodies.calibration import parse_grid, run

    pairs = parse_grid(grid) if grid is not None else CALIBRATE["grid"]  # '' is refused
    result = run(CalibrateConfig(duration, settle, pairs, write, body), out, overwrite=overwrite)
    for r in result["measurement"]["runs"]:
        click.echo(f"L={r['left']} R={r['right']}: {json.dumps(r)}")
    click.echo(json.dumps(result["kinematic"]))


@click.command("timestep")
@click.option(
    "--timestep",
    type=finite_float(1e-5, 1e-3),
    default=TIMESTEP["timestep"],
    show_default=True,
    help="Candidate.",
)
@click.option(
    "--duration", type=finite_float(0.3, 5.0), default=TIMESTEP["duration"], show_default=True
)
@click.option(
    "--settle", type=finite_float(0.0, 1.0), default=TIMESTEP["settle"], show_default=True
)
@click.option(
    "--tol",
    type=finite_float(0.0, 1.0, min_open=True),
    default=TIMESTEP["tol"],
    show_default=True,
)
@executor_options
@body_option(TIMESTEP["body"])
@out_option(default="runs/fly/timestep")
def timestep_cmd(
    timestep: float,
    duration: float,
    settle: float,
    tol: float,
    workers: int | None,
    backend: str,
    address: str | None,
    body: str,
    out: Path,
    overwrite: bool,
) -> None:
    """Compare a flygym physics step with 1e-4 s on calibration drives (speed, yaw rate)."""
    from wirelab.fly.bodies.timestep import run

    cfg = TimestepConfig(
        timestep,
        duration,
        settle,
        tol,
        workers=workers,
        backend=backend,
        address=address,
        body=body,
    )
    r = run(cfg, out, overwrite=overwrite)
    for row in r["rows"]:
        click.echo(
            f"[{row['left']:g}, {row['right']:g}] v {row['v_ref']:.2f} -> {row['v']:.2f} mm/s "
            f"({100 * row['v_rel_error']:.1f}%), omega {row['omega_ref']:+.3f} -> "
            f"{row['omega']:+.3f} rad/s ({100 * row['omega_rel_error']:.1f}%), "
            f"wall {row['wall_s_ref']:.0f} s -> {row['wall_s']:.0f} s"
        )
    click.echo(f"timestep {timestep:g}: {'within' if r['ok'] else 'NOT within'} {tol:.0%}")
    if not r["ok"]:
        raise SystemExit(1)
