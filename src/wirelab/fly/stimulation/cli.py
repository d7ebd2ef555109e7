"""``wirelab fly stimulate`` and ``wirelab fly lateralization``.

Each command parses its options into the experiment's config and calls its ``run(config, out)``
(`wirelab.fly.stimulation.stimulate.run`, `wirelab.fly.stimulation.lateralization.run`), which
alone writes the result directory; then it prints a summary. `wirelab.fly.cli` adds them to the
group.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from wirelab.cli_options import out_option
from wirelab.errors import UsageError
from wirelab.fly.bodies import BODIES
from wirelab.fly.limits import MAX_BOOT, MAX_STEPS
from wirelab.fly.options import (
    NORMALIZE,
    POSITIVE_SECONDS,
    connectome_option,
    controller_options,
    defaults_of,
    make_mapping,
    mapping_options,
    nulls_option,
    seed_option,
    timestep_option,
)
from wirelab.fly.stimulation.lateralization import LateralizationConfig
from wirelab.fly.stimulation.stimulate import STIMULI, StimulateConfig
from wirelab.parallel.options import executor_options


def _num(x: Any, spec: str) -> str:
    """``x`` formatted with ``spec``; ``nan`` for a missing (non-finite) number."""
    return format(float("nan") if x is None else x, spec)


# the options' defaults: the configs' field defaults (tests/fly/test_defaults.py)
STIMULATE = defaults_of(StimulateConfig)
LATERALIZATION = defaults_of(LateralizationConfig)
ALL_KNOWN = "all-known"
BOTH = "both"


def _normalizations(normalize: str) -> tuple[str, ...]:
    """``--normalize`` of ``lateralization``: ``both`` is row and spectral."""
    return ("row", "spectral") if normalize == BOTH else (normalize,)


def _modalities(text: str) -> tuple[str, ...]:
    """``--modalities``: a comma list, or ``all-known``."""
    return (
        (ALL_KNOWN,)
        if text == ALL_KNOWN
        else tuple(m.strip() for m in text.split(",") if m.strip())
    )


def _gains(text: str) -> tuple[float, ...]:
    """``--gains``: a comma list of numbers."""
    try:
        return tuple(float(g) for g in text.split(",") if g.strip())
    except ValueError:
        raise UsageError(f"--gains must be a comma list of numbers, got {text!r}") from None


@click.command("stimulate")
@click.option("--side", type=click.Choice(list(STIMULI)), required=True)
@click.option(
    "--normalize",
    type=NORMALIZE,
    default=STIMULATE["controller"].normalize,
    show_default=True,
    help="Primary normalisation (the other one is run too).",
)
@click.option(
    "--duration",
    type=POSITIVE_SECONDS,
    default=STIMULATE["duration"],
    show_default=True,
    help="Simulated s.",
)
@click.option("--body", type=BODIES.choice(), default=STIMULATE["body"], show_default=True)
@click.option(
    "--video",
    type=click.Path(dir_okay=False, path_type=Path),
    default=STIMULATE["video"],
    help="MP4 of the primary run (flygym; default OUT/video.mp4).",
)
@click.option(
    "--viewer",
    is_flag=True,
    default=STIMULATE["viewer"],
    help="Live MuJoCo viewer (flygym; needs a display).",
)
@mapping_options(STIMULATE["mapping"])
@timestep_option(STIMULATE["timestep"])
@click.option(
    "--compare/--no-compare",
    default=STIMULATE["compare"],
    show_default=True,
    help="Also run the other normalisation.",
)
@controller_options(STIMULATE["controller"])
@seed_option(STIMULATE["seed"])
@connectome_option(STIMULATE["connectome"])
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
    from wirelab.fly.stimulation.stimulate import run

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
    config.validate()  # here, before a fly-environment process is started for the run
    m = run(config, out, overwrite=overwrite)
    click.echo(
        f"{out}: evoked=[{_num(m['evoked_left'], '+.4f')}, {_num(m['evoked_right'], '+.4f')}] "
        f"dn_left={_num(m['dn_left'], '.4g')} dn_right={_num(m['dn_right'], '.4g')} "
        f"LI={_num(m['lateralization_index'], '+.3f')} "
        f"heading={_num(m['heading_change_deg'], '+.1f')} deg "
        f"displacement={_num(m['displacement_mm'], '.2f')} mm"
    )


@click.command("lateralization")
@click.option(
    "--modalities",
    default=",".join(LATERALIZATION["modalities"]),
    show_default=True,
    help=f"Comma list, or {ALL_KNOWN!r} for every modality plus 'all'.",
)
@click.option(
    "--gains",
    default=",".join(f"{g:g}" for g in LATERALIZATION["gains"]),
    show_default=True,
    help="Input gains.",
)
@click.option(
    "--normalize",
    type=click.Choice(["row", "spectral", BOTH]),
    default=next(
        n
        for n in ("row", "spectral", BOTH)
        if _normalizations(n) == LATERALIZATION["normalizations"]
    ),
    show_default=True,
)
@nulls_option(LATERALIZATION["nulls"], "Degree-preserving null connectomes.")
@click.option(
    "--boot",
    type=click.IntRange(min=0, max=MAX_BOOT),
    default=LATERALIZATION["boot"],
    show_default=True,
    help="Bootstrap resamples of the input neurons.",
)
@click.option(
    "--steps",
    type=click.IntRange(min=1, max=MAX_STEPS),
    default=LATERALIZATION["steps"],
    show_default=True,
    help="Reservoir updates.",
)
@seed_option(LATERALIZATION["seed"])
@connectome_option(LATERALIZATION["connectome"])
@executor_options
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
    workers: int | None,
    backend: str,
    address: str | None,
    out: Path,
    overwrite: bool,
) -> None:
    """Ipsi- or contralateral DN-VNC response per modality and gain, with nulls and mirror."""
    from wirelab.fly.stimulation.lateralization import run

    config = LateralizationConfig(
        modalities=_modalities(modalities),
        gains=_gains(gains),
        normalizations=_normalizations(normalize),
        nulls=n_nulls,
        boot=boot,
        steps=steps,
        seed=seed,
        connectome=connectome,
        workers=workers,
        backend=backend,
        address=address,
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
