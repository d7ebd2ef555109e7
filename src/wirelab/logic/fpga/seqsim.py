"""Icarus Verilog check of the sequential head against the combinational one.

`simulate_heads` puts ``wl_seq`` (`wirelab.logic.fpga.seqhead`) and the combinational module
``wl_comb`` (`wirelab.logic.circuit.backends.verilog.generate_verilog`, adder trees and argmax
chain) side by side on the same input vectors: per vector the testbench sets ``x``, pulses
``start``, waits for ``done`` and prints ``V <i> <seq class> <comb class> <cycles>`` (cycles
from the start edge to the done edge). `HeadSim` holds both classes per vector.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wirelab.errors import UsageError
from wirelab.logic.circuit.backends._verilog_sim import _hex_lines
from wirelab.logic.circuit.backends.verilog import generate_verilog
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.tools import ToolError, require, run_tool, write_text
from wirelab.logic.fpga.seqhead import HeadSpec, SeqModule, generate_sequential


@dataclass(frozen=True)
class HeadSim:
    seq: np.ndarray  # (N,) class of wl_seq
    comb: np.ndarray  # (N,) class of the combinational head
    cycles: np.ndarray  # (N,) start edge -> done edge

    @property
    def equal(self) -> bool:
        return bool(np.array_equal(self.seq, self.comb))


def testbench(sm: SeqModule, n: int, max_cycles: int) -> str:
    """Drive both modules with ``in.hex`` (``n`` vectors); ``max_cycles`` bounds each wait."""
    i_w, cw = max(sm.num_inputs, 1), sm.class_bits
    return f"""`timescale 1ns/1ps
module tb;
  reg [{i_w - 1}:0] mem [0:{n - 1}];
  reg [{i_w - 1}:0] x = 0;
  reg clk = 0, start = 0;
  wire busy, done;
  wire [{cw - 1}:0] cls, cls_comb;
  integer i, c;
  always #5 clk = ~clk;
  {sm.module} dut(.clk(clk), .start(start), .x(x), .busy(busy), .done(done), .cls(cls));
  wl_comb ref(.x(x), .y(), .counts(), .cls(cls_comb));
  initial begin
    $readmemh("in.hex", mem);
    for (i = 0; i < {n}; i = i + 1) begin
      @(negedge clk); x = mem[i]; start = 1;
      @(negedge clk); start = 0; c = 1;
      while (!done && c < {max_cycles}) begin @(negedge clk); c = c + 1; end
      $display("V %0d %0d %0d %0d", i, cls, cls_comb, done ? c : -1);
    end
    $finish;
  end
endmodule
"""


def simulate_heads(c: Circuit, spec: HeadSpec, bits: np.ndarray, work: Path) -> HeadSim:
    """Both heads on the ``(N, I)`` input bits ``bits`` (see the module docstring)."""
    bits = np.asarray(bits, dtype=bool)
    if not len(bits):
        raise UsageError("no vectors to simulate")
    iverilog, vvp = require("iverilog"), require("vvp")
    sm = generate_sequential(c, spec)
    comb = generate_verilog(c, module="wl_comb")
    x = bits if c.num_inputs else np.zeros((len(bits), 1), bool)
    write_text(work / "in.hex", "\n".join(_hex_lines(x)) + "\n")
    write_text(work / "wl_seq.v", sm.text)
    write_text(work / "wl_comb.v", comb.text)
    write_text(work / "tb.v", testbench(sm, len(bits), 4 * sm.cycles + 8))
    run_tool(
        [iverilog, "-g2005", "-o", "sim.vvp", "tb.v", "wl_seq.v", "wl_comb.v"], work, "iverilog"
    )
    log = run_tool([vvp, "-n", "sim.vvp"], work, "vvp simulation")
    rows = np.array([[int(v) for v in ln.split()[2:]] for ln in log.splitlines() if ln[:2] == "V "])
    if len(rows) != len(bits) or (rows[:, 2] < 0).any():
        raise ToolError(f"the sequential head did not finish every vector (see {work / 'vvp.log'})")
    return HeadSim(rows[:, 0], rows[:, 1], rows[:, 2])
