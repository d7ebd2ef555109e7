"""``wirelab fly ...``: calibrate, stimulate, lateralization, taxis.

Each command parses its options into the experiment's config and calls the experiment's
``run(config, out)``, which alone writes the result directory; then it prints a summary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from wirelab.cli_options import FINITE_FLOAT, finite_float, out_option
from wirelab.errors import UsageError
from wirelab.fly.bodies import BODIES
from wirelab.fly.cli_turns import timestep_cmd, turns_cmd
from wirelab.fly.options import (
    connectome_option,
    controller_options,
    make_mapping,
    mapping_options,
    nulls_option,
    readout_option,
    seed_option,
    timestep_option,
    update_steps_option,
)

NORMALIZE = click.Choice(["row", "spectral"])
POSITIVE_SECONDS = finite_float(0.0, min_open=True)


def _num(x: Any, spec: str) -> str:
    """``x`` formatted with ``spec``; ``nan`` for a missing (non-finite) number."""
    return format(float("nan") if x is None else x, spec)


@click.group("fly")
def group() -> None:
    """The connectome drives a simulated fly (flygym NeuroMechFly or a fast kinematic body)."""


group.add_command(turns_cmd)
group.add_command(timestep_cmd)


@group.command("calibrate")
@click.option(
    "--duration", type=POSITIVE_SECONDS, default=0.8, show_default=True, help="Seconds per run."
)
@click.option(
    "--settle", type=finite_float(0.0), default=0.2, show_default=True, help="Seconds dropped."
)
@click.option("--grid", default=None, help="Signals 'L,R;L,R;...' (default: 6 pairs).")
@click.option(
    "--write",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the calibration JSON here (the package's calibration.json to update it).",
)
@out_option(default="runs/fly/calibrate")
def calibrate_cmd(
    duration: float, settle: float, grid: str | None, write: Path | None, out: Path, overwrite: bool
) -> None:
    """Fit the kinematic body's gains to flygym runs (slow: minutes per run on 2 cores)."""
    from wirelab.fly.calibration import DEFAULT_GRID, CalibrateConfig, parse_grid, run

    pairs = parse_grid(grid) if grid else DEFAULT_GRID
    result = run(CalibrateConfig(duration, settle, pairs, write), out, overwrite=overwrite)
    for r in result["measurement"]["runs"]:
        click.echo(f"L={r['left']} R={r['right']}: {json.dumps(r)}")
    click.echo(json.dumps(result["kinematic"]))


@group.command("stimulate")
@click.option("--side", type=click.Choice(["left", "right", "both"]), required=True)
@click.option(
    "--normalize",
    type=NORMALIZE,
    default="row",
    show_default=True,
    help="Primary normalisation (the other one is run too).",
)
@click.option(
    "--duration", type=POSITIVE_SECONDS, default=1.0, show_default=True, help="Simulated s."
)
@click.option("--body", type=BODIES.choice(), default="kinematic", show_default=True)
@click.option(
    "--video",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="MP4 of the primary run (flygym; default OUT/video.mp4).",
)
@click.option("--viewer", is_flag=True, help="Live MuJoCo viewer (flygym; needs a display).")
@mapping_options
@timestep_option
@click.option(
    "--compare/--no-compare",
    default=True,
    show_default=True,
    help="Also run the other normalisation.",
)
@controller_options
@connectome_option
@out_option()
def stimulate_cmd(
    side: str,
    normalize: str,
    duration: float,
    body: str,
    video: Path | None,
    viewer: bool,
    mapping: str,
    sides: str,
    baseline: str,
    gain: float | None,
    offset: float,
    timestep: float,
    compare: bool,
    modality: str,
    alpha: float,
    leak: float,
    input_gain: float,
    readout: str,
    update_steps: int,
    seed: int,
    connectome: str,
    out: Path,
    overwrite: bool,
) -> None:
    """Stimulate sensory neurons on one side; walk the fly with the DN-VNC output."""
    from wirelab.fly.controller import ControllerConfig
    from wirelab.fly.stimulate import StimulateConfig, run

    config = StimulateConfig(
        side=side,
        controller=ControllerConfig(
            modality, normalize, alpha, leak, input_gain, readout, update_steps
        ),
        mapping=make_mapping(mapping, sides, baseline, gain, offset),
        body=body,
        duration=duration,
        video=video,
        viewer=viewer,
        compare=compare,
        seed=seed,
        connectome=connectome,
        timestep=timestep,
    )
    m = run(config, out, overwrite=overwrite)
    click.echo(
        f"{out}: evoked=[{_num(m['evoked_left'], '+.4f')}, {_num(m['evoked_right'], '+.4f')}] "
        f"dn_left={_num(m['dn_left'], '.4g')} dn_right={_num(m['dn_right'], '.4g')} "
        f"LI={_num(m['lateralization_index'], '+.3f')} "
        f"heading={_num(m['heading_change_deg'], '+.1f')} deg "
        f"displacement={_num(m['displacement_mm'], '.2f')} mm"
    )


@group.command("lateralization")
@click.option(
    "--modalities",
    default="all-known",
    show_default=True,
    help="Comma list, or 'all-known' for every modality plus 'all'.",
)
@click.option("--gains", default="0.5,1,2", show_default=True, help="Input gains.")
@click.option(
    "--normalize", type=click.Choice(["row", "spectral", "both"]), default="both", show_default=True
)
@nulls_option(5, "Degree-preserving null connectomes.")
@click.option(
    "--boot",
    type=click.IntRange(min=0),
    default=100,
    show_default=True,
    help="Bootstrap resamples of the input neurons.",
)
@click.option(
    "--steps", type=click.IntRange(min=1), default=20, show_default=True, help="Reservoir updates."
)
@seed_option
@connectome_option
@out_option()
def lateralization_cmd(
    modalities: str,
    gains: str,
    normalize: str,
    n_nulls: int,
    boot: int,
    steps: int,
    seed: int,
    connectome: str,
    out: Path,
    overwrite: bool,
) -> None:
    """Ipsi- or contralateral DN-VNC response per modality and gain, with nulls and mirror."""
    from wirelab.fly.lateralization import LateralizationConfig, run

    try:
        gain_list = tuple(float(g) for g in gains.split(",") if g.strip())
    except ValueError:
        raise UsageError(f"--gains must be a comma list of numbers, got {gains!r}") from None
    config = LateralizationConfig(
        modalities=("all-known",)
        if modalities == "all-known"
        else tuple(m.strip() for m in modalities.split(",") if m.strip()),
        gains=gain_list,
        normalizations=("row", "spectral") if normalize == "both" else (normalize,),
        nulls=n_nulls,
        boot=boot,
        steps=steps,
        seed=seed,
        connectome=connectome,
    )
    m = run(config, out, overwrite=overwrite)
    for r in m["summary"]:
        click.echo(
            f"{r['normalize']:8s} {r['modality']:22s} gain={r['gain']:<4g} "
            f"C={_num(r['contrast'], '+.4f')} "
            f"[{_num(r['ci_low'], '+.4f')}, {_num(r['ci_high'], '+.4f')}] "
            f"{r['verdict']:13s} nulls={_num(r.get('null_mean'), '+.4f')}"
            f"±{_num(r.get('null_std'), '.4f')} p={_num(r.get('p_null'), '.3f')}"
        )


@group.command("taxis")
@click.option(
    "--trials", type=click.IntRange(min=1), default=100, show_default=True, help="Test trials."
)
@click.option("--train-trials", type=click.IntRange(min=2), default=40, show_default=True)
@click.option(
    "--body",
    type=BODIES.choice(),
    default="kinematic",
    show_default=True,
    help="Test body (training always runs on the kinematic one).",
)
@click.option(
    "--time-limit", type=POSITIVE_SECONDS, default=10.0, show_default=True, help="Seconds."
)
@nulls_option(3, "Degree-preserving null reservoirs trained and tested the same way.")
@click.option(
    "--mirror/--no-mirror",
    default=True,
    show_default=True,
    help="Also test the left-right mirrored connectome.",
)
@click.option("--normalize", type=NORMALIZE, default="row", show_default=True)
@click.option(
    "--encoding",
    type=click.Choice(["adapted", "log"]),
    default="log",
    show_default=True,
    help="Antenna intensity -> sensory input (see wirelab.fly.taxis).",
)
@click.option("--input-gain", type=FINITE_FLOAT, default=0.3, show_default=True)
@readout_option
@update_steps_option(50)
@seed_option
@click.option(
    "--video",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="MP4 of the first flygym test trial.",
)
@timestep_option
@click.option(
    "--workers", type=click.IntRange(1, 2), default=2, show_default=True, help="flygym processes."
)
@click.option(
    "--baseline-trials",
    type=click.IntRange(min=1),
    default=None,
    help="flygym: trials of the constant and random baselines (default: --trials).",
)
@connectome_option
@click.option(
    "--resume", is_flag=True, help="Continue the killed study in --out from its saved trials."
)
@out_option()
def taxis_cmd(
    trials: int,
    train_trials: int,
    body: str,
    time_limit: float,
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
    workers: int,
    baseline_trials: int | None,
    connectome: str,
    resume: bool,
    out: Path,
    overwrite: bool,
) -> None:
    """Closed-loop odor taxis with a ridge readout trained to imitate a teacher."""
    from wirelab.fly.controller import ControllerConfig
    from wirelab.fly.taxis import TaxisConfig
    from wirelab.fly.taxis_study import TaxisStudyConfig, run

    config = TaxisStudyConfig(
        taxis=TaxisConfig(
            trials=trials,
            train_trials=train_trials,
            time_limit=time_limit,
            encoding=encoding,
            input_gain=input_gain,
            seed=seed,
        ),
        controller=ControllerConfig(
            modality="olfactory", normalize=normalize, readout=readout, update_steps=update_steps
        ),
        body=body,
        nulls=n_nulls,
        mirror=mirror,
        video=video,
        connectome=connectome,
        timestep=timestep,
        workers=workers,
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
            f"time={'-' if tts is None else f'{tts:.1f}s'}"
        )
