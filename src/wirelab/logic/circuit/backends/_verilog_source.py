"""The Verilog writer of the ``verilog`` back end: a combinational (optionally pipelined) module,
and a reference netlist.

`generate_verilog` writes module ``wl_circuit``::

    input  [I-1:0]   x        binarised inputs (bit f*T+t = feature f > threshold t)
    output [O-1:0]   y        the network's output bits
    output [C*NB-1:0] counts  class k's popcount at counts[k*NB +: NB] (an adder tree)
    output [CW-1:0]  cls      argmax class, ties to the lowest index
    input            clk      only with ``pipeline=K > 0``

Each gate is one ``wire``. With ``pipeline=K`` a register rank is placed after every K logic
levels: gate at level L is in stage ``(L - 1) // K`` and an operand from an earlier stage is read
through as many registers as stages it crosses, so every path has the same latency
(``latency`` registers; the adder tree and argmax follow the last rank combinationally).

`generate_reference_verilog` writes module ``wl_ref`` with the same ports from a circuit *as
built from the network* (no passes): each gate is a 2-input look-up of its truth table
(``lut2(table, a, b)``) and each count a plain sum of its group, a deliberately different
formulation for the formal equivalence check.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wirelab.logic.circuit import truth_tables as tt
from wirelab.logic.circuit.groupsum import count_bits
from wirelab.logic.circuit.ir import CONST0, CONST1, Circuit

# Verilog expression of each gate on 1-bit operands a, b.
V_EXPR = tt.expressions("1'b0", "1'b1")


@dataclass(frozen=True)
class VerilogModule:
    text: str
    module: str
    num_inputs: int
    num_outputs: int
    num_classes: int
    count_bits: int
    class_bits: int
    latency: int  # clock cycles from x to y (0: combinational)
    heads: bool = True  # has the counts and cls ports
    y_latency: int | None = None  # cycles from x to y when less than ``latency`` (heads pipelined)


def class_bits(num_classes: int) -> int:
    return max(1, (num_classes - 1).bit_length())


def _ports(c: Circuit, clocked: bool, heads: bool = True) -> tuple[list[str], int, int]:
    nb = count_bits(c.group_size)
    cw = class_bits(c.num_classes)
    ports = [
        f"    input  wire [{max(c.num_inputs, 1) - 1}:0] x,",
        f"    output wire [{max(c.num_outputs, 1) - 1}:0] y,",
        f"    output wire [{c.num_classes * nb - 1}:0] counts,",
        f"    output wire [{cw - 1}:0] cls",
    ]
    if not heads:
        ports = [ports[0], ports[1].rstrip(",")]
    if clocked:
        ports.insert(0, "    input  wire clk,")
    return ports, nb, cw


def adder_tree(
    lines: list[str], regs: list[str], k: int, leaves: list[str], every: int = 0
) -> tuple[str, int]:
    """Pairwise adder tree over 1-bit ``leaves``; widths fit the number of leaves summed.

    ``every > 0``: a register rank after every ``every`` tree levels (``regs`` collects the
    non-blocking assignments). Returns the sum's signal and the number of ranks it went
    through (the same for every class: the groups have equal sizes)."""
    level = [(leaf, 1) for leaf in leaves]  # (signal, leaves summed)
    depth = ranks = 0
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level) - 1, 2):
            (sa, na), (sb, nb_) = level[i], level[i + 1]
            n = na + nb_
            name = f"s{k}_{depth}_{i // 2}"
            lines.append(f"  wire [{n.bit_length() - 1}:0] {name} = {sa} + {sb};")
            nxt.append((name, n))
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
        depth += 1
        if every and depth % every == 0:
            ranks += 1
            level = [
                (_register(lines, regs, f"r{k}_{depth}_{i}", sig, n.bit_length()), n)
                for i, (sig, n) in enumerate(level)
            ]
    return (level[0][0] if level else "1'b0"), ranks  # zero-extended to NB bits


def _register(lines: list[str], regs: list[str], name: str, src: str, width: int) -> str:
    lines.append(f"  reg [{width - 1}:0] {name} = {width}'d0;")
    regs.append(f"    {name} <= {src};")
    return name


def argmax_chain(lines: list[str], c: Circuit, nb: int, cw: int) -> None:
    lines.append(f"  wire [{nb - 1}:0] best0 = counts[{nb - 1}:0];")
    lines.append(f"  wire [{cw - 1}:0] arg0 = {cw}'d0;")
    for k in range(1, c.num_classes):
        cnt = f"counts[{k * nb + nb - 1}:{k * nb}]"
        lines.append(f"  wire gt{k} = {cnt} > best{k - 1};")
        lines.append(f"  wire [{nb - 1}:0] best{k} = gt{k} ? {cnt} : best{k - 1};")
        lines.append(f"  wire [{cw - 1}:0] arg{k} = gt{k} ? {cw}'d{k} : arg{k - 1};")
    lines.append(f"  assign cls = arg{c.num_classes - 1};")


def generate_verilog(
    c: Circuit,
    *,
    module: str = "wl_circuit",
    pipeline: int = 0,
    heads: bool = True,
    head_pipeline: int = 0,
) -> VerilogModule:
    """Verilog for ``c`` (normally the simplified circuit); see the module docstring.
    ``heads=False`` leaves out the GroupSum adder trees and the argmax (ports x, y only);
    ``head_pipeline=H > 0`` also puts a register rank after every H levels of the adder trees
    (``counts`` and ``cls`` come ``latency`` cycles after ``x``, ``y`` already after
    ``y_latency``; the argmax stays combinational).

    The steps: the stage of every node (`_Stages`), the header and ports, one wire per gate
    (`_gate_wires`), the delay registers between stages (`_delay_registers`), then the heads
    (`_heads`: adder trees, ``y``, ``counts`` and the argmax)."""
    st = _Stages.of(c, pipeline)
    ports, nb, cw = _ports(c, clocked=pipeline > 0 or (heads and head_pipeline > 0), heads=heads)
    lines = [
        f"// Generated by wirelab.logic.circuit.backends.verilog: {c.num_gates} gates, "
        f"depth {c.depth}, pipeline {pipeline or 'none'}, latency {st.last}.",
        f"module {module} (",
        *ports,
        ");",
    ]
    _gate_wires(lines, c, st)
    if pipeline > 0:
        _delay_registers(lines, c, st)
    outs = [st.sig(o, st.last) for o in c.outputs.tolist()]
    ranks = _heads(lines, c, outs, nb, cw, heads, head_pipeline)
    lines.append("endmodule")
    return VerilogModule(
        "\n".join(lines) + "\n",
        module,
        c.num_inputs,
        c.num_outputs,
        c.num_classes,
        nb,
        cw,
        st.last + ranks,
        heads,
        st.last if ranks else None,
    )


@dataclass(frozen=True)
class _Stages:
    """The pipeline stage of every node, ``stage`` ``(N,)`` (all 0 without a pipeline): a gate at
    level L is in stage ``(L - 1) // K``; ``last``: the outputs' last stage (the latency)."""

    c: Circuit
    stage: np.ndarray
    last: int

    @classmethod
    def of(cls, c: Circuit, pipeline: int) -> _Stages:
        first = c.first_gate
        stage = np.zeros(c.num_nodes, dtype=np.int64)
        if pipeline > 0:
            stage[first:] = np.maximum(c.levels()[first:] - 1, 0) // pipeline
        last = int(stage[c.outputs].max()) if c.num_outputs and pipeline > 0 else 0
        return cls(c, stage, last)

    def base(self, node: int) -> str:
        """The node's own signal: a constant, an input bit ``x[i]`` or a gate wire ``n<node>``."""
        if node == CONST0:
            return "1'b0"
        if node == CONST1:
            return "1'b1"
        return f"x[{node - 2}]" if node < self.c.first_gate else f"n{node}"

    def delayed(self, node: int, d: int) -> str:
        """``node`` delayed by ``d >= 1`` registers: ``d<d>_x<i>`` or ``d<d>_n<node>``."""
        first = self.c.first_gate
        return f"d{d}_{'x' + str(node - 2) if node < first else 'n' + str(node)}"

    def sig(self, node: int, at_stage: int) -> str:
        """The signal that carries ``node`` into stage ``at_stage``."""
        d = at_stage - int(self.stage[node]) if node > CONST1 else 0
        return self.base(node) if d <= 0 else self.delayed(node, d)

    def delays(self) -> np.ndarray:
        """``(N,)`` register delays each node needs: max over its readers (and the outputs, read
        at the last stage) of the stage difference; 0 for the constants."""
        c, stage, first = self.c, self.stage, self.c.first_gate
        need = np.zeros(c.num_nodes, dtype=np.int64)
        for i, (g, a, b) in enumerate(zip(c.op.tolist(), c.a.tolist(), c.b.tolist(), strict=True)):
            s = stage[first + i]
            if tt.DEPENDS_A[g]:
                need[a] = max(need[a], s - stage[a])
            if tt.DEPENDS_B[g]:
                need[b] = max(need[b], s - stage[b])
        for o in c.outputs.tolist():
            need[o] = max(need[o], self.last - stage[o])
        need[[CONST0, CONST1]] = 0
        return need


def _gate_wires(lines: list[str], c: Circuit, st: _Stages) -> None:
    """One ``wire n<node> = <expr>;`` per gate, its operands read at the gate's stage."""
    first = c.first_gate
    for i, (g, a, b) in enumerate(zip(c.op.tolist(), c.a.tolist(), c.b.tolist(), strict=True)):
        s = int(st.stage[first + i])
        expr = V_EXPR[g].format(a=st.sig(a, s), b=st.sig(b, s))
        lines.append(f"  wire n{first + i} = {expr};")


def _delay_registers(lines: list[str], c: Circuit, st: _Stages) -> None:
    """The chains of delay registers ``d1_<name> .. d<k>_<name>`` and their ``always`` block."""
    need = st.delays()
    regs = []
    for node in np.flatnonzero(need).tolist():
        for d in range(1, int(need[node]) + 1):
            name = st.delayed(node, d)
            lines.append(f"  reg {name} = 1'b0;")
            prev = st.base(node) if d == 1 else st.delayed(node, d - 1)
            regs.append(f"    {name} <= {prev};")
    if regs:
        lines.append("  always @(posedge clk) begin")
        lines.extend(regs)
        lines.append("  end")


def _heads(
    lines: list[str],
    c: Circuit,
    outs: list[str],
    nb: int,
    cw: int,
    heads: bool,
    head_pipeline: int,
) -> int:
    """The adder tree of each class over its output signals ``outs`` (with ``heads``), the
    ``assign`` of ``y`` and ``counts`` and the argmax; returns the adder trees' register ranks."""
    g_sz = c.group_size
    head_regs: list[str] = []
    sums, ranks = [], 0
    if heads:
        for k in range(c.num_classes):
            # Leaves are the output signals themselves, not bits of the wide vector y: a
            # simulator re-evaluates every reader of y when any bit of it changes.
            leaves = outs[k * g_sz : (k + 1) * g_sz]
            total, ranks = adder_tree(lines, head_regs, k, leaves, head_pipeline)
            sums.append(total)
    # y leaves the last gate stage: ``ranks`` cycles before counts and cls
    if head_regs:
        lines.append("  always @(posedge clk) begin")
        lines.extend(head_regs)
        lines.append("  end")
    if outs:
        lines.append(f"  assign y = {{{', '.join(reversed(outs))}}};")
    else:
        lines.append("  assign y = 1'b0;")
    if heads:
        for k, total in enumerate(sums):
            lines.append(f"  assign counts[{k * nb + nb - 1}:{k * nb}] = {total};")
        argmax_chain(lines, c, nb, cw)
    return ranks


def generate_reference_verilog(
    c: Circuit, *, module: str = "wl_ref", heads: bool = True
) -> VerilogModule:
    """Truth-table netlist of ``c`` with the ports of `generate_verilog` (combinational)."""
    first = c.first_gate
    ports, nb, cw = _ports(c, clocked=False, heads=heads)
    lines = [
        "// Reference netlist written by wirelab from the circuit IR: one truth-table look-up",
        "// per gate, t = f(0,0) f(0,1) f(1,0) f(1,1) (MSB first), f(a, b) = t[3 - 2a - b].",
        f"module {module} (",
        *ports,
        ");",
        "  function lut2(input [3:0] t, input a, input b);",
        "    lut2 = t[{~a, ~b}];",
        "  endfunction",
    ]

    def ref(node: int) -> str:
        if node in (CONST0, CONST1):
            return f"1'b{node}"
        return f"x[{node - 2}]" if node < first else f"g{node}"

    for i, (g, a, b) in enumerate(zip(c.op.tolist(), c.a.tolist(), c.b.tolist(), strict=True)):
        lines.append(f"  wire g{first + i} = lut2(4'd{g}, {ref(a)}, {ref(b)});")
    for j, o in enumerate(c.outputs.tolist()):
        lines.append(f"  wire o{j} = {ref(o)};")
    if c.num_outputs:
        bits = ", ".join(f"o{j}" for j in reversed(range(c.num_outputs)))
        lines.append(f"  assign y = {{{bits}}};")
    else:
        lines.append("  assign y = 1'b0;")
    g_sz = c.group_size
    for k in range(c.num_classes if heads else 0):
        # The sum is evaluated at the NB-bit width of its target (Verilog sizing rules).
        terms = " + ".join(f"o{j}" for j in range(k * g_sz, (k + 1) * g_sz)) or "1'b0"
        lines.append(f"  assign counts[{k * nb + nb - 1}:{k * nb}] = {terms};")
    if heads:
        argmax_chain(lines, c, nb, cw)
    lines.append("endmodule")
    return VerilogModule(
        "\n".join(lines) + "\n",
        module,
        c.num_inputs,
        c.num_outputs,
        c.num_classes,
        nb,
        cw,
        0,
        heads,
    )
