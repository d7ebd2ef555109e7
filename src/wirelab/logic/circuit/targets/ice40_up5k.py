"""``ice40-up5k``: ``synth_ice40`` for the Lattice iCE40 UltraPlus UP5K (4-input LUTs plus carry
chains). The UP5K has 5,280 logic cells, each one LUT4 and one flip-flop (Lattice iCE40
UltraPlus family data sheet, FPGA-DS-02008); ``--pnr`` places and routes it with nextpnr-ice40.
"""

from __future__ import annotations

from wirelab.logic.circuit.targets.base import SynthTarget


def figures(cells: dict[str, int]) -> tuple[int, dict[str, int]]:
    """LUT4 cells, and the carry cells and flip-flops (every ``SB_DFF*`` kind)."""
    ffs = sum(v for k, v in cells.items() if k.startswith("SB_DFF"))
    return cells.get("SB_LUT4", 0), {"carry_cells": cells.get("SB_CARRY", 0), "flip_flops": ffs}


def commands(top: str) -> str:
    return f"synth_ice40 -top {top}\n"


TARGET = SynthTarget(
    device="iCE40 UltraPlus UP5K",
    lut_inputs=4,
    device_luts=5280,
    commands=commands,
    figures=figures,
    place_and_route=True,
)
