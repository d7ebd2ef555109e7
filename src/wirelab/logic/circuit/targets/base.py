"""What a synthesis target is: the `SynthTarget` entry of `wirelab.logic.circuit.targets.TARGETS`.

A target says how yosys maps the generated Verilog module to LUTs and how the mapped cells are
counted; `wirelab.logic.circuit.synth.synthesize` runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SynthTarget:
    """A synthesis target: how yosys maps the module and how its cells are counted.

    ``commands(top)``: the yosys commands after ``read_verilog`` that map module ``top`` to
    LUTs; ``figures(cells)``: ``(LUTs, extra figures)`` from the cell counts by type (the
    extras include ``flip_flops``); ``device_luts``: the LUTs on the device (``None``: a generic
    fabric, no fit is reported); ``place_and_route``: ``wirelab logic synth --pnr`` can place and
    route it on the device (`wirelab.logic.circuit.pnr`: nextpnr-ice40 for the iCE40 UP5K).
    """

    device: str
    lut_inputs: int
    device_luts: int | None
    commands: Callable[[str], str]
    figures: Callable[[dict[str, int]], tuple[int, dict[str, int]]]
    place_and_route: bool = False
