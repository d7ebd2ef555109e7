"""FPGA synthesis with yosys: LUT count, logic depth, and whether the design fits the device.

The targets are the registry `wirelab.logic.circuit.targets.TARGETS` (read by ``wirelab logic
synth --target``; a new one is a module with a `SynthTarget` and one ``TARGETS.add`` line).

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

from wirelab.logic.circuit.backends.verilog import VerilogModule
from wirelab.logic.circuit.targets import TARGETS, SynthTarget
from wirelab.logic.circuit.tools import require, run_tool, write_text
from wirelab.results import write_json

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
