"""Logic gate networks as circuits: IR, simplification passes, back ends, equivalence, synthesis.

- `ir.Circuit`: the DAG of 2-input gates between input binarisation and GroupSum heads;
  `truth_tables`: the algebra of gate ids (swap, negate, restrict) and their bitwise expressions;
- `passes`: constant folding, pass-through / double-negation removal, structural hashing,
  dead-gate elimination (`simplify` runs them and reports gate counts);
- back ends, registered in `backends.BACKENDS`: `python_backend` (numpy, packed words: the
  reference), `c_backend` + `c_build` (C, ctypes), `verilog_backend` (+ `simulate` with Icarus
  Verilog);
- `equivalence` and `formal` (yosys miter + SAT), `synth` (yosys; targets in `synth.TARGETS`),
  `rundir` (the ``wirelab logic compile | verify | synth`` commands on a training run).
"""

from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.passes import simplify
from wirelab.logic.circuit.python_backend import PyEvaluator

__all__ = ["Circuit", "PyEvaluator", "simplify"]
