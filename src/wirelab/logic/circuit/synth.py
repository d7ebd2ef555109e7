"""FPGA synthesis with yosys: LUT count, logic depth, and whether the design fits the device.

Targets:

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
from pathlib import Path
from typing import Any

from wirelab.errors import UsageError
from wirelab.logic.circuit.tools import require, run_tool
from wirelab.logic.circuit.verilog_backend import VerilogModule

TARGETS: dict[str, dict[str, Any]] = {
    "ice40-up5k": {"device": "iCE40 UltraPlus UP5K", "luts": 5280, "lut_inputs": 4},
    "lut6": {"device": "generic 6-input LUT fabric", "luts": None, "lut_inputs": 6},
}


def _script(target: str, module: str) -> str:
    head = f"read_verilog {module}.v\n"
    if target == "ice40-up5k":
        body = f"synth_ice40 -top {module}\n"
    else:
        body = f"synth -top {module} -flatten\nabc -lut 6\nopt_clean\n"
    return head + body + "tee -q -o stat.json stat -json\ntee -o ltp.txt ltp -noff\n"


def _cells(stat: dict[str, Any], module: str) -> dict[str, int]:
    mods = stat.get("modules", {})
    m: dict[str, Any] = mods.get(f"\\{module}") or mods.get(module) or next(iter(mods.values()), {})
    return {str(k): int(v) for k, v in m.get("num_cells_by_type", {}).items()}


def synthesize(
    vm: VerilogModule, target: str, work: Path, *, timeout: float = 3600
) -> dict[str, Any]:
    """Run yosys for ``target``; return (and write to ``work/synth.json``) the figures."""
    if target not in TARGETS:
        raise UsageError(f"unknown synthesis target {target!r}; use one of {', '.join(TARGETS)}")
    yosys = require("yosys")
    work.mkdir(parents=True, exist_ok=True)
    (work / f"{vm.module}.v").write_text(vm.text)
    (work / "synth.ys").write_text(_script(target, vm.module))
    t0 = time.perf_counter()
    run_tool([yosys, "-q", "-l", "synth.log", "synth.ys"], work, f"yosys {target}", timeout=timeout)
    seconds = time.perf_counter() - t0
    cells = _cells(json.loads((work / "stat.json").read_text()), vm.module)
    ltp = (work / "ltp.txt").read_text()
    m = re.search(r"length=(\d+)", ltp)
    depth = int(m.group(1)) if m else None
    spec = TARGETS[target]
    if target == "ice40-up5k":
        luts = cells.get("SB_LUT4", 0)
        ffs = sum(v for k, v in cells.items() if k.startswith("SB_DFF"))
        extra = {"carry_cells": cells.get("SB_CARRY", 0), "flip_flops": ffs}
    else:
        luts = cells.get("$lut", 0)
        extra = {"flip_flops": sum(v for k, v in cells.items() if "dff" in k.lower())}
    result: dict[str, Any] = {
        "target": target,
        "device": spec["device"],
        "luts": luts,
        "lut_inputs": spec["lut_inputs"],
        "depth_cells": depth,
        **extra,
        "cells": cells,
        "yosys_seconds": round(seconds, 2),
        "inputs": vm.num_inputs,
        "pipeline_latency": vm.latency,
    }
    if spec["luts"] is not None:
        result["device_luts"] = spec["luts"]
        result["fits"] = bool(luts <= spec["luts"] and extra["flip_flops"] <= spec["luts"])
        result["utilisation"] = round(luts / spec["luts"], 4)
    (work / "synth.json").write_text(json.dumps(result, indent=2) + "\n")
    return result
