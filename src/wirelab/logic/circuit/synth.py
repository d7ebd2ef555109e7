"""FPGA synthesis with yosys: LUT count, logic depth, and whether the design fits the device.

Targets (the registry `TARGETS`, read by ``wirelab logic synth --target``; a new one is a
`SynthTarget` and one ``TARGETS.add`` line):

- ``ice40-up5k``: ``synth_ice40`` (Lattice iCE40 UltraPlus, 4-input LUTs plus carry chains); the
  UP5K has 5,280 logic cells, each one LUT4 and one flip-flop (Lattice iCE40 UltraPlus family
  data sheet, FPGA-DS-02008).
- ``lut6``: generic ``synth`` then ``abc -lut 6`` (6-input LUTs, as in Xilinx 7-series and later).

The synthesised module is the generated Verilog with its GroupSum adder trees and argmax: input
``x`` (the binarised pixels), output ``cls``. Depth is yosys's ``ltp -noff``: the longest
topological path in cells (LUTs and carry cells) of the combinational design. The input
comparators (thresholds) are not part of the module: the binarised bits are its inputs.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wirelab.logic.circuit.tools import require, run_tool, write_text
from wirelab.logic.circuit.verilog_backend import VerilogModule
from wirelab.registry import Registry
from wirelab.results import write_json


@dataclass(frozen=True)
class SynthTarget:
    """A synthesis target: how yosys maps the module and how its cells are counted.

    ``commands(top)``: the yosys commands after ``read_verilog`` that map module ``top`` to
    LUTs; ``figures(cells)``: ``(LUTs, extra figures)`` from the cell counts by type (the
    extras include ``flip_flops``); ``device_luts``: the LUTs on the device (``None``: a generic
    fabric, no fit is reported).
    """

    device: str
    lut_inputs: int
    device_luts: int | None
    commands: Callable[[str], str]
    figures: Callable[[dict[str, int]], tuple[int, dict[str, int]]]


def _ice40_figures(cells: dict[str, int]) -> tuple[int, dict[str, int]]:
    ffs = sum(v for k, v in cells.items() if k.startswith("SB_DFF"))
    return cells.get("SB_LUT4", 0), {"carry_cells": cells.get("SB_CARRY", 0), "flip_flops": ffs}


def _lut6_figures(cells: dict[str, int]) -> tuple[int, dict[str, int]]:
    ffs = sum(v for k, v in cells.items() if "dff" in k.lower())
    return cells.get("$lut", 0), {"flip_flops": ffs}


TARGETS = Registry[SynthTarget]("synthesis target")
TARGETS.add(
    "ice40-up5k",
    SynthTarget(
        device="iCE40 UltraPlus UP5K",
        lut_inputs=4,
        device_luts=5280,
        commands=lambda top: f"synth_ice40 -top {top}\n",
        figures=_ice40_figures,
    ),
    "Lattice iCE40 UltraPlus UP5K (synth_ice40; 5,280 LUT4 cells)",
)
TARGETS.add(
    "lut6",
    SynthTarget(
        device="generic 6-input LUT fabric",
        lut_inputs=6,
        device_luts=None,
        commands=lambda top: f"synth -top {top} -flatten\nabc -lut 6\nopt_clean\n",
        figures=_lut6_figures,
    ),
    "generic 6-input LUTs (synth; abc -lut 6)",
)

# After the mapping: cell counts as JSON, and the longest topological path in cells.
_REPORTS = "tee -q -o stat.json stat -json\ntee -o ltp.txt ltp -noff\n"


def _script(target: SynthTarget, module: str) -> str:
    return f"read_verilog {module}.v\n" + target.commands(module) + _REPORTS


def _cells(stat: dict[str, Any], module: str) -> dict[str, int]:
    mods = stat.get("modules", {})
    m: dict[str, Any] = mods.get(f"\\{module}") or mods.get(module) or next(iter(mods.values()), {})
    return {str(k): int(v) for k, v in m.get("num_cells_by_type", {}).items()}


def synthesize(
    vm: VerilogModule, target: str, work: Path, *, timeout: float = 3600
) -> dict[str, Any]:
    """Run yosys for ``target``; return (and write to ``work/synth.json``, last) the figures."""
    spec = TARGETS.get(target)
    yosys = require("yosys")
    write_text(work / f"{vm.module}.v", vm.text)
    write_text(work / "synth.ys", _script(spec, vm.module))
    t0 = time.perf_counter()
    run_tool([yosys, "-q", "-l", "synth.log", "synth.ys"], work, f"yosys {target}", timeout=timeout)
    seconds = time.perf_counter() - t0
    cells = _cells(json.loads((work / "stat.json").read_text()), vm.module)
    ltp = (work / "ltp.txt").read_text()
    m = re.search(r"length=(\d+)", ltp)
    depth = int(m.group(1)) if m else None
    luts, extra = spec.figures(cells)
    result: dict[str, Any] = {
        "target": target,
        "device": spec.device,
        "luts": luts,
        "lut_inputs": spec.lut_inputs,
        "depth_cells": depth,
        **extra,
        "cells": cells,
        "yosys_seconds": round(seconds, 2),
        "inputs": vm.num_inputs,
        "pipeline_latency": vm.latency,
    }
    if spec.device_luts is not None:
        result["device_luts"] = spec.device_luts
        result["fits"] = bool(luts <= spec.device_luts and extra["flip_flops"] <= spec.device_luts)
        result["utilisation"] = round(luts / spec.device_luts, 4)
    write_json(work / "synth.json", result)
    return result
