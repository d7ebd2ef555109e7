"""Synthesis targets: the one list (`TARGETS`) that ``wirelab logic synth --target``, its
validation and the docs read.

Each target is one module of this package defining ``TARGET = SynthTarget(...)`` (the entry
type: `wirelab.logic.circuit.targets.base`), registered below in one line as a lazy
``"module:TARGET"`` entry. Adding a target is one module plus one ``TARGETS.add`` line.
"""

from __future__ import annotations

from wirelab.logic.circuit.targets.base import SynthTarget
from wirelab.registry import Registry

__all__ = ["DEFAULT_TARGET", "TARGETS", "SynthTarget", "pnr_targets"]

TARGETS = Registry[SynthTarget]("synthesis target")
TARGETS.add(
    "ice40-up5k",
    "wirelab.logic.circuit.targets.ice40_up5k:TARGET",
    "Lattice iCE40 UltraPlus UP5K (synth_ice40; 5,280 LUT4 cells)",
)
TARGETS.add(
    "lut6",
    "wirelab.logic.circuit.targets.lut6:TARGET",
    "generic 6-input LUTs (synth; abc -lut 6)",
)
DEFAULT_TARGET = "ice40-up5k"  # ``wirelab logic synth`` without --target, and the tour


def pnr_targets() -> tuple[str, ...]:
    """The targets ``--pnr`` can place and route, in registry order."""
    return tuple(name for name in TARGETS.names() if TARGETS.get(name).place_and_route)
