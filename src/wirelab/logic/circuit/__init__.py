"""Logic gate networks as circuits: IR, simplification passes, back ends, synthesis.

- `ir.Circuit`: the DAG of 2-input gates between input binarisation and GroupSum heads;
  `truth_tables`: the algebra of gate ids (swap, negate, restrict) and their bitwise expressions;
- `passes`: constant folding, pass-through / double-negation removal, structural hashing,
  dead-gate elimination (`simplify` runs them and reports gate counts);
- `backends`: the registry `BACKENDS` of back ends, one module each (`backends.python`: numpy on
  packed words, the reference; `backends.c`: C through ctypes; `backends.verilog`: Verilog,
  Icarus simulation and the yosys proof), their entry type in `backends.base`;
- `synth` (yosys) with the registry of synthesis targets `targets.TARGETS`; `pnr` (nextpnr);
- `rundir` (the ``wirelab logic compile | verify | synth`` commands on a training run).
"""

from wirelab.logic.circuit.backends.python import PyEvaluator
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.passes import simplify

__all__ = ["Circuit", "PyEvaluator", "simplify"]
