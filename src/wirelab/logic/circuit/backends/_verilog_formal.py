"""Formal equivalence with yosys: a miter of the reference netlist and the generated module.

``miter -equiv`` builds a circuit whose output ``trigger`` is 1 exactly when the two modules'
outputs (``y``, ``counts``, ``cls``) differ for the same input ``x``; ``sat -prove trigger 0``
asks a SAT solver for an input that sets it. UNSAT = the two are equivalent for all ``2**I``
inputs; a model is a counterexample, reported with its input and both modules' outputs.

The reference is written from the circuit IR *before* simplification
(`generate_reference_verilog`: truth-table look-ups and plain sums), the implementation is the
generated module after simplification (adder trees, argmax chain), so the proof covers the
passes and the Verilog back end together.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wirelab.logic.circuit.backends._verilog_source import VerilogModule
from wirelab.logic.circuit.tools import ToolError, require, run_tool, write_text


@dataclass
class ProofResult:
    equivalent: bool
    seconds: float
    method: str
    counterexample: dict[str, Any] | None = None


def _parse_counterexample(log: str) -> dict[str, Any]:
    """Signal values from yosys's ``sat -show-ports`` table (``\\name  <dec>  <hex>  <bin>``)."""
    values: dict[str, Any] = {}
    for m in re.finditer(r"^\s+\\(\S+)\s+(\S+)\s+(\S+)\s+([01xz]+)\s*$", log, re.MULTILINE):
        values[m.group(1)] = m.group(4)
    return values


def prove_equivalent(
    reference: VerilogModule, impl: VerilogModule, work: Path, *, timeout: float = 600
) -> ProofResult:
    """Prove ``impl`` (combinational) equal to ``reference`` with a yosys miter and SAT."""
    yosys = require("yosys")
    if impl.latency:
        raise ToolError("formal equivalence needs the combinational module (pipeline=0)")
    write_text(work / "ref.v", reference.text)
    write_text(work / "impl.v", impl.text)
    script = f"""read_verilog ref.v
read_verilog impl.v
proc
miter -equiv -flatten -make_outputs {reference.module} {impl.module} miter
hierarchy -top miter
opt_clean
sat -verify -prove trigger 0 -show-ports miter
"""
    write_text(work / "prove.ys", script)
    t0 = time.perf_counter()
    try:
        run_tool([yosys, "-q", "-l", "prove.log", "prove.ys"], work, "yosys sat", timeout=timeout)
    except ToolError as exc:
        log = (work / "prove.log").read_text() if (work / "prove.log").is_file() else ""
        if "SAT proof finished - model found" in log or "FAIL" in log:
            cex = _parse_counterexample(log)
            return ProofResult(False, time.perf_counter() - t0, "yosys miter + sat -prove", cex)
        raise exc
    log = (work / "prove.log").read_text()
    if "SAT proof finished - no model found: SUCCESS" not in log and "QED" not in log:
        raise ToolError(f"yosys sat gave no verdict (see {work / 'prove.log'})")
    return ProofResult(True, time.perf_counter() - t0, "yosys miter + sat -prove")
