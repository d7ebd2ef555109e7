"""``wirelab fly taxis``: closed-loop odor taxis (`wirelab.fly.taxis.study`).

The command parses its options into `TaxisStudyConfig` and calls
`wirelab.fly.taxis.study.run`, which alone writes the result directory; then it prints one line
per condition. `wirelab.fly.cli` adds it to the group.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from wirelab.cli_options import FINITE_FLOAT, finite_float, out_option
from wirelab.fly.bodies import BODIES
from wirelab.fly.limits import MAX_COUNT, MAX_MAGNITUDE
from wirelab.fly.options import (
    NORMALIZE,
    POSITIVE_SECONDS,
    connectome_option,
    defaults_of,
    nulls_option,
    readout_option,
    seed_option,
    timestep_option,
    update_steps_option,
)
from wirelab.fly.taxis.study import TaxisStudyConfig
from wirelab.fly.taxis.task import TaxisConfig
from wirelab.parallel.options import executor_options

# the options' defaults: the study's and its task's field defaults (tests/fly/test_defaults.py)
STUDY = defaults_of(TaxisStudyConfig)
TASK = defaults_of(TaxisConfig)
CONTROLLER = STUDY["controller"]


@click.command("taxis")
@click.option(
    "--trials",
    type=click.IntRange(min=1, max=MAX_COUNT),
    default=TASK["trials"],
    show_default=True,
    help="Test trials.",
)
@click.option(
    "--train-trials",
    type=click.IntRange(min=2, max=MAX_COUNT),
    default=TASK["train_trials"],
    show_default=True,
)
@click.option(
    "--body",
    type=BODIES.choice(),
    default=STUDY["body"],
    show_default=True,
    help="Test body (training always runs on the kinematic one).",
)
@click.option(
    "--time-limit",
    type=POSITIVE_SECONDS,
    default=TASK["time_limit"],
    show_default=True,
    help="Seconds.",
)
@click.option(
    "--arena-radius",
    type=finite_float(0.0, MAX_MAGNITUDE, min_open=True),
    default=TASK["arena_radius"],
    show_default=True,
    help="mm from the source; a fly beyond it has left the arena: the trial ends, failed.",
)
@nulls_option(STUDY["nulls"], "Degree-preserving null reservoirs trained and tested the same way.")
@click.option(
    "--mirror/--no-mirror",
    default=STUDY["mirror"],
    show_default=True,
    help="Also test the left-right mirrored connectome.",
)
@click.option("--normalize", type=NORMALIZE, default=CONTROLLER.normalize, show_default=True)
@click.option(
    "--encoding",
    type=click.Choice(["adapted", "log"]),
    default=TASK["encoding"],
    show_default=True,
    help="Antenna intensity -> sensory input (see wirelab.fly.taxis.task).",
)
@click.option("--input-gain", type=FINITE_FLOAT, default=TASK["input_gain"], show_default=True)
@readout_option(CONTROLLER.readout)
@update_steps_option(CONTROLLER.update_steps)
@seed_option(TASK["seed"])
@click.option(
    "--video",
    type=click.Path(dir_okay=False, path_type=Path),
    default=STUDY["video"],
    help="MP4 of the first flygym test trial.",
)
@timestep_option(STUDY["timestep"])
@executor_options
@click.option(
    "--baseline-trials",
    type=click.IntRange(min=1, max=MAX_COUNT),
    default=STUDY["baseline_trials"],
    help="flygym: trials of the constant and random baselines (default: --trials).",
)
@connectome_option(STUDY["connectome"])
@click.option(
    "--resume", is_flag=True, help="Continue the killed study in --out from its saved trials."
)
@out_option()
def taxis_cmd(
    trials: int,
    train_trials: int,
    body: str,
    time_limit: float,
    arena_radius: float,
    n_nulls: int,
    mirror: bool,
    normalize: str,
    encoding: str,
    input_gain: float,
    readout: str,
    update_steps: int,
    seed: int,
    video: Path | None,
    timestep: float,
    workers: int | None,
    backend: str,
    address: str | None,
    baseline_trials: int | None,
    connectome: str,
    resume: bool,
    out: Path,
    overwrite: bool,
) -> None:
    """Closed-loop odor taxis with a ridge readout trained to imitate a teacher."""
    from wirelab.fly.taxis.study import run

    config = TaxisStudyConfig(
        taxis=TaxisConfig(
            trials=trials,
            train_trials=train_trials,
            time_limit=time_limit,
            arena_radius=arena_radius,
            encoding=encoding,
            input_gain=input_gain,
            seed=seed,
        ),
        controller=replace(
            CONTROLLER, normalize=normalize, readout=readout, update_steps=update_steps
        ),
        body=body,
        nulls=n_nulls,
        mirror=mirror,
        video=video,
        connectome=connectome,
        timestep=timestep,
        workers=workers,
        backend=backend,
        address=address,
        baseline_trials=baseline_trials,
    )
    if resume and overwrite:
        raise click.UsageError("--resume and --overwrite exclude each other")
    m = run(config, out, overwrite=overwrite, resume=resume)
    for r in m["conditions"]:
        eff = r["path_efficiency"]
        tts = r["time_to_source_s"]
        click.echo(
            f"{r['condition']:14s} success={r['success_rate']:.2f} "
            f"[{r['success_ci'][0]:.2f}, {r['success_ci'][1]:.2f}] "
            f"efficiency={'-' if eff is None else f'{eff:.2f}'} "
            f"time={'-' if tts is None else f'{tts:.1f}s'} left-arena={r['arena_exits']}"
        )
