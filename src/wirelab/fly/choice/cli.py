"""``wirelab fly choice``: the two-odor choice study (`wirelab.fly.choice.study`).

The command parses its options into `ChoiceStudyConfig` and calls
`wirelab.fly.choice.study.run`, which alone writes the result directory; then it prints one line
per condition and the comparison against the nulls. `wirelab.fly.cli` adds it to the group.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click

from wirelab.cli_options import FINITE_FLOAT, comma_list, finite_float, out_option
from wirelab.errors import UsageError
from wirelab.fly.choice.network import READOUTS, RESPONSES, NetworkConfig
from wirelab.fly.choice.study import TEST_BODIES, ChoiceStudyConfig
from wirelab.fly.choice.task import ENCODINGS, ChoiceConfig
from wirelab.fly.limits import MAX_COUNT, MAX_MAGNITUDE
from wirelab.fly.options import (
    NORMALIZE,
    POSITIVE_SECONDS,
    connectome_option,
    defaults_of,
    nulls_option,
    seed_option,
    timestep_option,
    update_steps_option,
)
from wirelab.parallel.options import executor_options
from wirelab.reservoir.nulls import NULLS

STUDY = defaults_of(ChoiceStudyConfig)
TASK = defaults_of(ChoiceConfig)
NETWORK = defaults_of(NetworkConfig)


def _gains(text: str) -> tuple[float, ...]:
    try:
        gains = tuple(float(g) for g in comma_list(text) or ())
    except ValueError:
        gains = ()
    if not gains or not all(math.isfinite(g) and 0 < g <= MAX_MAGNITUDE for g in gains):
        raise UsageError(f"--gains must be comma-separated finite numbers > 0, got {text!r}")
    return gains


@click.command("choice")
@click.option(
    "--trials",
    type=click.IntRange(1, MAX_COUNT),
    default=TASK["trials"],
    show_default=True,
    help="Test starts.",
)
@click.option(
    "--train-trials",
    type=click.IntRange(2, MAX_COUNT),
    default=TASK["train_trials"],
    show_default=True,
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
    help="mm from the start; a fly beyond it has left the arena (failure).",
)
@click.option(
    "--attractive-class",
    default=NETWORK["attractive_class"],
    show_default=True,
    help="Sensory class of the attractive cue.",
)
@click.option(
    "--aversive-class",
    default=NETWORK["aversive_class"],
    show_default=True,
    help="Sensory class of the aversive cue.",
)
@click.option(
    "--encoding", type=click.Choice(list(ENCODINGS)), default=TASK["encoding"], show_default=True
)
@click.option("--input-gain", type=FINITE_FLOAT, default=TASK["input_gain"], show_default=True)
@click.option(
    "--readout", type=click.Choice(list(READOUTS)), default=NETWORK["readout"], show_default=True
)
@click.option(
    "--response",
    type=click.Choice(RESPONSES),
    default=NETWORK["response"],
    show_default=True,
    help="evoked: minus the side-swapped cues' response.",
)
@click.option("--normalize", type=NORMALIZE, default=NETWORK["normalize"], show_default=True)
@click.option(
    "--gains",
    default=",".join(f"{g:g}" for g in NETWORK["gains"]),
    show_default=True,
    help="Recurrent gains, every network trained and tested at each.",
)
@click.option(
    "--gain",
    type=FINITE_FLOAT,
    default=STUDY["gain"],
    show_default=True,
    help="The connectome's gain (one of --gains).",
)
@click.option(
    "--null-family",
    type=NULLS.choice(),
    default=STUDY["null_family"],
    show_default=True,
    help="The nulls' family (wirelab.reservoir.nulls.NULLS).",
)
@nulls_option(STUDY["nulls"], "Null networks of --null-family, trained and tested the same way.")
@click.option(
    "--null-seed",
    type=click.IntRange(0, 2**31),
    default=STUDY["null_seed"],
    show_default=True,
    help="The nulls' seeds: null-seed + i.",
)
@click.option(
    "--controls/--no-controls",
    default=STUDY["controls"],
    show_default=True,
    help="Input control and baselines.",
)
@click.option(
    "--body",
    type=click.Choice(TEST_BODIES),
    default=STUDY["body"],
    show_default=True,
    help="Test body; training is always kinematic. flygym: every test start again on "
    "NeuroMechFly at --gain, beside the kinematic outcome.",
)
@timestep_option(STUDY["timestep"])
@click.option(
    "--video",
    type=click.Path(dir_okay=False, path_type=Path),
    default=STUDY["video"],
    help="flygym: MP4 of the connectome's first test trial (and a PNG frame strip beside it).",
)
@update_steps_option(NETWORK["update_steps"])
@seed_option(TASK["seed"])
@executor_options
@connectome_option(STUDY["connectome"])
@out_option()
def choice_cmd(
    trials: int,
    train_trials: int,
    time_limit: float,
    arena_radius: float,
    attractive_class: str,
    aversive_class: str,
    encoding: str,
    input_gain: float,
    readout: str,
    response: str,
    normalize: str,
    gains: str,
    gain: float,
    null_family: str,
    n_nulls: int,
    null_seed: int,
    controls: bool,
    body: str,
    timestep: float,
    video: Path | None,
    update_steps: int,
    seed: int,
    workers: int | None,
    backend: str,
    address: str | None,
    connectome: str,
    out: Path,
    overwrite: bool,
) -> None:
    """Two cues of opposite value, each through its own sensory class: connectome vs nulls."""
    from wirelab.fly.choice.study import run

    config = ChoiceStudyConfig(
        task=ChoiceConfig(
            trials=trials,
            train_trials=train_trials,
            time_limit=time_limit,
            arena_radius=arena_radius,
            encoding=encoding,
            input_gain=input_gain,
            seed=seed,
        ),
        network=NetworkConfig(
            attractive_class=attractive_class,
            aversive_class=aversive_class,
            normalize=normalize,
            gains=_gains(gains),
            readout=readout,
            response=response,
            update_steps=update_steps,
        ),
        gain=gain,
        null_family=null_family,
        nulls=n_nulls,
        null_seed=null_seed,
        controls=controls,
        connectome=connectome,
        workers=workers,
        backend=backend,
        address=address,
        body=body,
        timestep=timestep,
        video=video,
    )
    _report(run(config, out, overwrite=overwrite), config.null_family)


def _report(m: dict[str, Any], family: str) -> None:
    """One line per condition (flygym: and its same outcomes per start), then the nulls."""
    for r in m["conditions"]:
        lo, hi = r["success_ci"]
        click.echo(
            f"{r['condition']:14s} success={r['success_rate']:.2f} [{lo:.2f}, {hi:.2f}] "
            f"contact={r['contact_rate']:.2f} closest={r['closest_aversive_mm']:.1f}mm"
        )
    for name, ps in m.get("per_start", {}).items():
        click.echo(
            f"{name:14s} flygym vs kinematic: same outcome on {ps['same_outcome']}/"
            f"{ps['starts']} starts, same success on {ps['same_success']}"
        )
    for key in ("same_gain", "own_best_gain"):
        c = m["nulls"][key]
        if c["n_nulls"]:
            z = "-" if c["z"] is None else f"{c['z']:+.2f}"
            click.echo(
                f"vs {c['n_nulls']} {family} nulls ({key}): connectome "
                f"{c['observed']:.2f}, nulls {c['null_mean']:.2f} +- {c['null_sd']:.2f}, "
                f"p={c['p']:.3f}, z={z}"
            )
