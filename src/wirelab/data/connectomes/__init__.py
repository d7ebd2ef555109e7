"""The connectomes wirelab knows: name -> loader returning a `Connectome`, and a user's own files.

`CONNECTOMES` is the one list (the CLIs' ``--connectome`` choices, ``wirelab data info``, the
validation and the docs read it). One module per connectome source: `larva` (Winding et al.
2023), `celegans` (Cook et al. 2019 and Witvliet et al. 2021 through ``cect``, one entry per
row of its `celegans.WORM_DATASETS`) and `user` (a user's edge list or matrix); `base` holds the
`Connectome` type. Adding a connectome is one new module with a loader (any callable returning a
`Connectome` with ``celltype``/``side``/``partner`` annotations) plus one registry line here::

    CONNECTOMES.add("adult", "wirelab.data.connectomes.adult:load_adult", "adult fly (FlyWire)")

Entries given as ``"module:attribute"`` are imported on first use.

Besides the registered names, `load_connectome` and the click type `CONNECTOME` accept the path of
a user's file (an edge list ``.csv``/``.parquet`` or a scipy sparse ``.npz``, see `user`), so every
``--connectome`` option takes either.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from wirelab.data.connectomes.base import (
    SIDE_CHOICES,
    SIDES,
    Connectome,
    check_connectome,
    check_edge_types,
)
from wirelab.data.connectomes.celegans import WORM_DATASETS, WormLoader
from wirelab.data.connectomes.user import SUFFIXES, is_connectome_file, load_user_connectome
from wirelab.errors import UsageError
from wirelab.registry import Registry

__all__ = [
    "CONNECTOME",
    "CONNECTOMES",
    "SIDES",
    "SIDE_CHOICES",
    "Connectome",
    "check_connectome",
    "check_connectome_source",
    "check_edge_types",
    "connectome_edge_types",
    "is_connectome_file",
    "load_connectome",
    "load_user_connectome",
]

CONNECTOMES = Registry[Callable[..., Connectome]]("connectome")
"""The connectomes wirelab knows, by name: ``larva`` (Winding et al. 2023), ``esn-1000`` (a random
echo state network), the *C. elegans* datasets (``celegans-cook2019-herm``,
``celegans-witvliet2021-1`` .. ``-8``; the ``celegans`` extra); each entry a loader returning a
`Connectome`. `load_connectome` loads by name (or from a file); ``CONNECTOMES.names()`` lists
them, ``CONNECTOMES.describe()`` with a line each."""
CONNECTOMES.add(
    "larva",
    "wirelab.data.connectomes.larva:load_larva",
    "larval Drosophila whole brain (Winding et al. 2023): 2,952 neurons",
)
CONNECTOMES.add(
    "esn-1000",
    "wirelab.reservoir.esn:load_esn_1000",
    "a standard random echo state network: 1,000 units, 1% density, signed Gaussian weights "
    "(Jaeger & Haas 2004's size), every unit celltype 'unit'",
)
for _worm in WORM_DATASETS:  # needs the celegans extra (cect); converted once, then cached
    CONNECTOMES.add(_worm.key, WormLoader(_worm.key), _worm.description)

_FILES = f"or the path of an edge list or matrix ({', '.join(SUFFIXES)})"


def check_connectome_source(value: str) -> str:
    """``value`` if it is a registered name or an existing connectome file, else a one-line
    `UsageError` naming the choices (nothing is loaded)."""
    if value in CONNECTOMES:
        return value
    if is_connectome_file(value):
        if not Path(value).is_file():
            raise UsageError(f"connectome file {value} does not exist")
        return value
    raise UsageError(
        f"unknown connectome {value!r}; choose one of: {', '.join(CONNECTOMES.names())}, {_FILES}"
    )


def load_connectome(name: str | Path) -> Connectome:
    """The connectome registered as ``name``, or read from the file ``name`` (a one-line
    `UsageError` naming the choices if it is neither)."""
    value = str(name)
    if value in CONNECTOMES:
        return CONNECTOMES.get(value)()
    check_connectome_source(value)
    return load_user_connectome(value)


def connectome_edge_types(name: str | Path) -> tuple[str, ...]:
    """The valid edge types of a registered connectome or file (``("aa", "ad", "da", "dd")`` for
    the larva, ``("chemical", "gap")`` for *C. elegans*); loads it (from the cache)."""
    return load_connectome(name).edge_type_names


class ConnectomeParam(click.ParamType):
    """A click type for ``--connectome``: a registered name (read at parse time, so entries added
    later are accepted) or the path of an existing connectome file."""

    name = "connectome"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join(CONNECTOMES.names()) + "|PATH]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return check_connectome_source(str(value))
        except UsageError as exc:
            self.fail(str(exc), param, ctx)


CONNECTOME = ConnectomeParam()
