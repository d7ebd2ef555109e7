"""Click options shared by the ``wirelab fly`` commands (the connectome controller's settings)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from wirelab.cli_options import FINITE_FLOAT, SEED, finite_float
from wirelab.data.connectomes import CONNECTOME
from wirelab.fly.mapping import BASELINES, EVOKED_GAIN, RESPONSES, SIDEDNESS, FixedMapping
from wirelab.fly.populations import READOUTS

F = TypeVar("F", bound=Callable[..., Any])

MODALITY_HELP = (
    "Sensory modality (annotation of the sensory neurons): all, olfactory, gustatory-external, "
    "gustatory-pharyngeal, gut, respiratory, thermo-cold, thermo-warm, visual."
)
UPDATE_STEPS_HELP = "K: reservoir update every K flygym physics steps (1e-4 s each)."
NORMALIZE = click.Choice(["row", "spectral"])
POSITIVE_SECONDS = finite_float(0.0, min_open=True)


def readout_option(f: F) -> F:
    return click.option(
        "--readout", type=click.Choice(READOUTS), default="DN-VNC", show_default=True
    )(f)


def update_steps_option(default: int) -> Callable[[F], F]:
    return click.option(
        "--update-steps",
        type=click.IntRange(min=1),
        default=default,
        show_default=True,
        help=UPDATE_STEPS_HELP,
    )


def nulls_option(default: int, help: str) -> Callable[[F], F]:
    """``--nulls``: how many degree-preserving null models (``n_nulls``)."""
    return click.option(
        "--nulls",
        "n_nulls",
        type=click.IntRange(min=0),
        default=default,
        show_default=True,
        help=help,
    )


def connectome_option(f: F) -> F:
    """``--connectome``: a name from `wirelab.data.connectomes.CONNECTOMES`, or a file."""
    return click.option(
        "--connectome",
        type=CONNECTOME,
        default="larva",
        show_default=True,
        help="The connectome that drives the fly.",
    )(f)


def seed_option(f: F) -> F:
    return click.option("--seed", type=SEED, default=0, show_default=True)(f)


def controller_options(f: F) -> F:
    """``--modality --alpha --leak --input-gain --readout --update-steps --seed``."""
    opts = [
        click.option("--modality", default="olfactory", show_default=True, help=MODALITY_HELP),
        click.option(
            "--alpha",
            type=FINITE_FLOAT,
            default=1.0,
            show_default=True,
            help="Recurrent gain on the normalised connectome.",
        ),
        click.option(
            "--leak",
            type=finite_float(0.0, 1.0, min_open=True),
            default=1.0,
            show_default=True,
            help="Leak rate a.",
        ),
        click.option("--input-gain", type=FINITE_FLOAT, default=1.0, show_default=True),
        readout_option,
        update_steps_option(20),
        seed_option,
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def mapping_options(f: F) -> F:
    """``--mapping --sides --baseline --gain --offset`` (see `wirelab.fly.mapping`)."""
    opts = [
        click.option(
            "--mapping",
            type=click.Choice(RESPONSES),
            default="evoked",
            show_default=True,
            help="direct: drive = offset + gain * dn; evoked: offset + gain * (dn(u) - dn(u0)), "
            "what the stimulus changes per side (the network's fixed bias removed).",
        ),
        click.option(
            "--sides",
            type=click.Choice(SIDEDNESS),
            default="ipsilateral",
            show_default=True,
            help="DN side -> leg side.",
        ),
        click.option(
            "--baseline",
            type=click.Choice(BASELINES),
            default="swapped",
            show_default=True,
            help="Evoked mapping: u0 = the input with its sides swapped, its bilateral mean on "
            "both sides, or no input.",
        ),
        click.option(
            "--gain",
            type=FINITE_FLOAT,
            default=None,
            help=f"Drive per DN activity [default: 1 direct, {EVOKED_GAIN:g} evoked].",
        ),
        click.option(
            "--offset", type=FINITE_FLOAT, default=1.0, show_default=True, help="Drive at rest."
        ),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def make_mapping(
    mapping: str, sides: str, baseline: str, gain: float | None, offset: float
) -> FixedMapping:
    """The `FixedMapping` of `mapping_options` (the gain's default depends on ``mapping``)."""
    if gain is None:
        gain = EVOKED_GAIN if mapping == "evoked" else 1.0
    return FixedMapping(sides, gain, offset, response=mapping, baseline=baseline)


def timestep_option(f: F) -> F:
    return click.option(
        "--timestep",
        type=finite_float(1e-5, 5e-4),
        default=1e-4,
        show_default=True,
        help="flygym physics step (s); check a step with `wirelab fly timestep` (docs/fly.md).",
    )(f)
