"""``lut6``: generic ``synth`` then ``abc -lut 6`` (6-input LUTs, as in Xilinx 7-series and
later); a generic fabric, so no fit is reported."""

from __future__ import annotations

from wirelab.logic.circuit.targets.base import SynthTarget


def figures(cells: dict[str, int]) -> tuple[int, dict[str, int]]:
    """``$lut`` cells, and the flip-flops (every cell type naming a dff)."""
    ffs = sum(v for k, v in cells.items() if "dff" in k.lower())
    return cells.get("$lut", 0), {"flip_flops": ffs}


def commands(top: str) -> str:
    return f"synth -top {top} -flatten\nabc -lut 6\nopt_clean\n"


TARGET = SynthTarget(
    device="generic 6-input LUT fabric",
    lut_inputs=6,
    device_luts=None,
    commands=commands,
    figures=figures,
)
