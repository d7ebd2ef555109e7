"""The connectomes wirelab knows: name -> loader returning a `Connectome`.

`CONNECTOMES` is the one list (the CLIs' ``--connectome`` choices, ``wirelab data info``, the
validation and the docs read it). Adding a connectome is one new module with a loader (any
callable returning a `Connectome` with ``celltype``/``side``/``partner`` annotations) plus one
registry line here::

    CONNECTOMES.add("adult", "wirelab.data.adult:load_adult", "adult fly (FlyWire)")

Entries given as ``"module:attribute"`` are imported on first use.
"""

from __future__ import annotations

from collections.abc import Callable

from wirelab.data.connectome import Connectome
from wirelab.registry import Registry

CONNECTOMES = Registry[Callable[..., Connectome]]("connectome")
CONNECTOMES.add(
    "larva",
    "wirelab.data.connectome:load_larva",
    "larval Drosophila whole brain (Winding et al. 2023): 2,952 neurons",
)


def load_connectome(name: str) -> Connectome:
    """The connectome registered as ``name`` (a one-line `UsageError` naming the choices if not)."""
    return CONNECTOMES.get(name)()
