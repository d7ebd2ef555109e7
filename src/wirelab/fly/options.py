"""Click options shared by the ``wirelab fly`` commands (the connectome controller's settings)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from wirelab.cli_options import FINITE_FLOAT, SEED, finite_float
from wirelab.data.connectomes import CONNECTOMES
from wirelab.fly.populations import READOUTS

F = TypeVar("F", bound=Callable[..., Any])

MODALITY_HELP = (
    "Sensory modality (annotation of the sensory neurons): all, olfactory, gustatory-external, "
    "gustatory-pharyngeal, gut, respiratory, thermo-cold, thermo-warm, visual."
)
UPDATE_STEPS_HELP = "K: reservoir update every K flygym physics steps (1e-4 s each)."


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
    """``--connectome``: a name from `wirelab.data.connectomes.CONNECTOMES`."""
    return click.option(
        "--connectome",
        type=CONNECTOMES.choice(),
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
