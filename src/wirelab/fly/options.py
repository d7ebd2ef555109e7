"""Click options shared by the ``wirelab fly`` commands (the connectome controller's settings).

One set of defaults: each option's default is a field default of the experiment's config
dataclass (`defaults_of`), passed in by the command (``tests/fly/test_defaults.py`` compares
every command's option defaults with its config's fields).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import MISSING, fields
from typing import Any, TypeVar

import click

from wirelab.cli_options import FINITE_FLOAT, SEED, finite_float
from wirelab.data.connectomes import CONNECTOME
from wirelab.fly.controller import ControllerConfig
from wirelab.fly.limits import MAX_COUNT, MAX_STEPS
from wirelab.fly.mapping import BASELINES, RESPONSES, SIDEDNESS, FixedMapping, default_mapping
from wirelab.fly.populations import READOUTS

F = TypeVar("F", bound=Callable[..., Any])

MODALITY_HELP = (
    "Sensory modality (annotation of the sensory neurons): all, olfactory, gustatory-external, "
    "gustatory-pharyngeal, gut, respiratory, thermo-cold, thermo-warm, visual."
)
UPDATE_STEPS_HELP = "K: reservoir update every K flygym physics steps (1e-4 s each)."
NORMALIZE = click.Choice(["row", "spectral"])
POSITIVE_SECONDS = finite_float(0.0, min_open=True)
# --gain left out: the gain of each --mapping (direct: FixedMapping's own, evoked: the default
# mapping's, `wirelab.fly.mapping.EVOKED_GAIN`)
MAPPING_GAINS = {"direct": FixedMapping.gain, "evoked": default_mapping().gain}


def defaults_of(config: type) -> dict[str, Any]:
    """The field defaults of the dataclass ``config`` (default factories called; a required
    field has none and is left out): what its command's options default to."""
    out = {}
    for f in fields(config):
        if f.default is not MISSING:
            out[f.name] = f.default
        elif f.default_factory is not MISSING:
            out[f.name] = f.default_factory()
    return out


def readout_option(default: str) -> Callable[[F], F]:
    return click.option(
        "--readout", type=click.Choice(READOUTS), default=default, show_default=True
    )


def update_steps_option(default: int) -> Callable[[F], F]:
    return click.option(
        "--update-steps",
        type=click.IntRange(min=1, max=MAX_STEPS),
        default=default,
        show_default=True,
        help=UPDATE_STEPS_HELP,
    )


def nulls_option(default: int, help: str) -> Callable[[F], F]:
    """``--nulls``: how many degree-preserving null models (``n_nulls``)."""
    return click.option(
        "--nulls",
        "n_nulls",
        type=click.IntRange(min=0, max=MAX_COUNT),
        default=default,
        show_default=True,
        help=help,
    )


def connectome_option(default: str) -> Callable[[F], F]:
    """``--connectome``: a name from `wirelab.data.connectomes.CONNECTOMES`, or a file."""
    return click.option(
        "--connectome",
        type=CONNECTOME,
        default=default,
        show_default=True,
        help="The connectome that drives the fly.",
    )


def seed_option(default: int) -> Callable[[F], F]:
    return click.option("--seed", type=SEED, default=default, show_default=True)


def _stack(opts: Sequence[Callable[[Any], Any]]) -> Callable[[F], F]:
    """One decorator adding ``opts`` in order (the first one first in ``--help``)."""

    def apply(f: F) -> F:
        for opt in reversed(opts):
            f = opt(f)
        return f

    return apply


def controller_options(defaults: ControllerConfig) -> Callable[[F], F]:
    """``--modality --alpha --leak --input-gain --readout --update-steps``, defaulting to the
    fields of ``defaults`` (the experiment config's ``controller``)."""
    opts: list[Callable[[Any], Any]] = [
        click.option(
            "--modality", default=defaults.modality, show_default=True, help=MODALITY_HELP
        ),
        click.option(
            "--alpha",
            type=FINITE_FLOAT,
            default=defaults.alpha,
            show_default=True,
            help="Recurrent gain on the normalised connectome.",
        ),
        click.option(
            "--leak",
            type=finite_float(0.0, 1.0, min_open=True),
            default=defaults.leak,
            show_default=True,
            help="Leak rate a.",
        ),
        click.option(
            "--input-gain", type=FINITE_FLOAT, default=defaults.input_gain, show_default=True
        ),
        readout_option(defaults.readout),
        update_steps_option(defaults.update_steps),
    ]
    return _stack(opts)


def mapping_options(defaults: FixedMapping) -> Callable[[F], F]:
    """``--mapping --sides --baseline --gain --offset`` (see `wirelab.fly.mapping`), defaulting
    to the fields of ``defaults`` (the experiment config's ``mapping``); ``--gain`` left out is
    the gain of the chosen ``--mapping`` (`MAPPING_GAINS`)."""
    opts: list[Callable[[Any], Any]] = [
        click.option(
            "--mapping",
            type=click.Choice(RESPONSES),
            default=defaults.response,
            show_default=True,
            help="direct: drive = offset + gain * dn; evoked: offset + gain * (dn(u) - dn(u0)), "
            "what the stimulus changes per side (the network's fixed bias removed).",
        ),
        click.option(
            "--sides",
            type=click.Choice(SIDEDNESS),
            default=defaults.kind,
            show_default=True,
            help="DN side -> leg side.",
        ),
        click.option(
            "--baseline",
            type=click.Choice(BASELINES),
            default=defaults.baseline,
            show_default=True,
            help="Evoked mapping: u0 = the input with its sides swapped, its bilateral mean on "
            "both sides, or no input.",
        ),
        click.option(
            "--gain",
            type=FINITE_FLOAT,
            default=None,
            help="Drive per DN activity [default: "
            + ", ".join(f"{v:g} {k}" for k, v in MAPPING_GAINS.items())
            + "].",
        ),
        click.option(
            "--offset",
            type=FINITE_FLOAT,
            default=defaults.offset,
            show_default=True,
            help="Drive at rest.",
        ),
    ]
    return _stack(opts)


def make_mapping(
    mapping: str, sides: str, baseline: str, gain: float | None, offset: float
) -> FixedMapping:
    """The `FixedMapping` of `mapping_options` (the gain's default depends on ``mapping``)."""
    if gain is None:
        gain = MAPPING_GAINS[mapping]
    return FixedMapping(sides, gain, offset, response=mapping, baseline=baseline)


def timestep_option(default: float) -> Callable[[F], F]:
    return click.option(
        "--timestep",
        type=finite_float(1e-5, 5e-4),
        default=default,
        show_default=True,
        help="flygym physics step (s); check a step with `wirelab fly timestep` (docs/fly.md).",
    )
