"""A sequential GroupSum head: popcount and argmax over cycles, for a classifier that must fit.

The combinational head of `wirelab.logic.circuit.backends.verilog` adds up every class's ``G``
output bits at once (``C`` adder trees) and compares the ``C`` counts in one chain. Module
``wl_seq`` instead keeps the gate network combinational (module ``wl_net``, ports ``x``, ``y``)
and walks the classes over ``T`` steps, with ``P`` classes per step (lanes) and each class's
group cut into ``K`` slices of ``S = ceil(G / K)`` bits::

    step t = g * K + k           (class group g < ceil(C / P), slice k < K)
    lane q of step t counts      y[c * G + k * S + j], j < S, c = g * P + q  (0 past the group)
    stage A  (cycle of step t):  per lane, an S:1-wide multiplexer of the outputs by t, then an
                                 adder tree of S bits -> registered partial count pa_q
    stage B  (one cycle later):  tot_q = (k == 0 ? 0 : acc_q) + pa_q; on the last slice
                                 (k == K - 1) the running maximum takes lane q in increasing q
                                 when tot_q > best (strictly), else acc_q <- tot_q

``best`` and ``arg`` start at 0 (class 0), so the result is ``argmax`` with ties to the lowest
class, as in the C back end and ``numpy.argmax``: a later class replaces the best only with a
strictly larger count. Lanes past the last class count 0 and never win.

Ports of ``wl_seq``::

    input  clk, start         start: a one-cycle pulse while not busy; x must then stay stable
    input  [I-1:0] x          binarised inputs, read during the T steps
    output busy               from the cycle after start until done
    output reg done           a one-cycle pulse: cls is valid (and stays until the next done)
    output reg [CW-1:0] cls

With ``pipeline=R > 0`` the adder trees get a register rank every R levels (`adder_tree`), and
the step's tags (valid, first and last slice, class group) are delayed to match. A classification
takes ``T + ranks + 2`` cycles from ``start`` to ``done`` (`SeqModule.cycles`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from wirelab.errors import UsageError
from wirelab.logic.circuit.backends.verilog import adder_tree, class_bits, generate_verilog
from wirelab.logic.circuit.groupsum import count_bits
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.fpga.shifthead import generate_shift


@dataclass(frozen=True)
class HeadSpec:
    """Kind ``mux`` (this module): ``classes_per_step`` P lanes, ``slices`` K steps per class
    group, adder-tree register rank every ``pipeline`` levels (0: none). Kind ``shift``
    (`shifthead`): ``bits`` B bits of every class counted per cycle."""

    classes_per_step: int = 1
    slices: int = 1
    pipeline: int = 0
    kind: str = "mux"
    bits: int = 1

    def __post_init__(self) -> None:
        if self.classes_per_step < 1 or self.slices < 1 or self.pipeline < 0:
            raise UsageError("--classes-per-step and --slices must be >= 1, --head-pipeline >= 0")
        if self.kind not in HEAD_KINDS:
            raise UsageError(f"--head-kind must be one of {', '.join(HEAD_KINDS)}")
        if self.bits < 1:
            raise UsageError("--shift-bits must be >= 1")

    @property
    def name(self) -> str:
        if self.kind == "shift":
            return f"shift-b{self.bits}"
        pipe = f"-r{self.pipeline}" if self.pipeline else ""
        return f"seq-p{self.classes_per_step}-k{self.slices}{pipe}"


@dataclass(frozen=True)
class SeqModule:
    text: str  # wl_net and wl_seq
    module: str
    spec: HeadSpec
    num_inputs: int
    num_classes: int
    class_bits: int
    steps: int  # T
    ranks: int  # adder-tree register ranks
    tail: int = 2  # cycles after the steps and ranks (the shift head: its scan, C + 1)

    @property
    def cycles(self) -> int:
        """Cycles from the ``start`` edge to the ``done`` edge."""
        return self.steps + self.ranks + self.tail


def _slice_sources(c: Circuit, spec: HeadSpec) -> tuple[list[list[list[str]]], int, int]:
    """``src[q][j][t]``: the ``y`` bit (or ``1'b0``) lane ``q`` reads at position ``j`` in step
    ``t``; the number of class groups and the slice width."""
    p, k_sl, g_sz = spec.classes_per_step, spec.slices, c.group_size
    groups = -(-c.num_classes // p)
    width = max(1, -(-g_sz // k_sl))
    src = [[["1'b0"] * (groups * k_sl) for _ in range(width)] for _ in range(p)]
    for g in range(groups):
        for k in range(k_sl):
            for q in range(p):
                cls = g * p + q
                for j in range(width):
                    pos = k * width + j
                    if cls < c.num_classes and pos < g_sz:
                        src[q][j][g * k_sl + k] = f"y[{cls * g_sz + pos}]"
    return src, groups, width


def generate_sequential(c: Circuit, spec: HeadSpec, *, module: str = "wl_seq") -> SeqModule:
    """``{module}_net`` (the gate network of ``c``, combinational) and ``module``, the head of
    ``spec.kind`` (`HEAD_KINDS`)."""
    return HEAD_KINDS[spec.kind](c, spec, module)


def generate_mux(c: Circuit, spec: HeadSpec, module: str) -> SeqModule:
    """``{module}_net`` and ``module``: the multiplexed head of the module docstring."""
    net = generate_verilog(c, module=f"{module}_net", heads=False)
    src, groups, width = _slice_sources(c, spec)
    p, k_sl = spec.classes_per_step, spec.slices
    steps = groups * k_sl
    nb, cw = count_bits(c.group_size), class_bits(c.num_classes)
    tw, gw, kw = (max(1, (n - 1).bit_length()) for n in (steps + 1, groups, k_sl))
    lines = [
        f"// Generated by wirelab.logic.fpga.seqhead: {spec.name}, {steps} steps.",
        f"module {module} (",
        "    input  wire clk,",
        "    input  wire start,",
        f"    input  wire [{max(c.num_inputs, 1) - 1}:0] x,",
        "    output wire busy,",
        "    output reg  done = 1'b0,",
        f"    output reg  [{cw - 1}:0] cls = {cw}'d0",
        ");",
        f"  wire [{max(c.num_outputs, 1) - 1}:0] y;",
        f"  {module}_net net(.x(x), .y(y));",
        "  reg run = 1'b0;",
        f"  reg [{tw - 1}:0] t = {tw}'d0;",
        f"  reg [{kw - 1}:0] k = {kw}'d0;",
        f"  reg [{gw - 1}:0] g = {gw}'d0;",
    ]
    regs: list[str] = []
    sums, ranks = [], 0
    for q in range(p):
        leaves = []
        for j in range(width):
            col = ", ".join(reversed(src[q][j]))
            lines.append(f"  wire [{steps - 1}:0] c{q}_{j} = {{{col}}};")
            lines.append(f"  wire m{q}_{j} = c{q}_{j}[t];")
            leaves.append(f"m{q}_{j}")
        total, ranks = adder_tree(lines, regs, q, leaves, spec.pipeline)
        sums.append(total)
    if regs:
        lines += ["  always @(posedge clk) begin", *regs, "  end"]
    tags = _control(lines, steps, k_sl, gw, ranks)
    _stage_b(lines, sums, tags, p, groups, nb, cw, gw)
    busy = ["run", *(f"v{d}" for d in range(ranks)), "vb"]
    lines.append(f"  assign busy = {' | '.join(busy)};")
    lines.append("endmodule")
    text = net.text + "\n" + "\n".join(lines) + "\n"
    return SeqModule(text, module, spec, c.num_inputs, c.num_classes, cw, steps, ranks)


def _control(lines: list[str], steps: int, k_sl: int, gw: int, ranks: int) -> tuple[str, ...]:
    """The step counter, and the tags of the step (valid, first slice, last slice, class group)
    delayed by the adder trees' ``ranks``; returns the four delayed tag signals."""
    last_t, last_k = steps - 1, k_sl - 1
    lines += [
        "  always @(posedge clk) begin",
        "    if (run) begin",
        f"      if (t == {last_t}) run <= 1'b0;",
        "      t <= t + 1'b1;",
        f"      if (k == {last_k}) begin k <= 0; g <= g + 1'b1; end else k <= k + 1'b1;",
        "    end",
        "    if (start && !busy) begin run <= 1'b1; t <= 0; k <= 0; g <= 0; end",
        "  end",
    ]
    tags = [("v", "run", 1), ("k0", "k == 0", 1), ("kl", f"k == {last_k}", 1), ("tg", "g", gw)]
    out = []
    for name, expr, width in tags:
        decl = "" if width == 1 else f"[{width - 1}:0] "
        for d in range(ranks):
            lines.append(f"  reg {decl}{name}{d} = 0;")
        if ranks:
            body = " ".join(
                f"{name}{d} <= {expr if d == 0 else f'{name}{d - 1}'};" for d in range(ranks)
            )
            lines.append(f"  always @(posedge clk) begin {body} end")
        out.append(f"{name}{ranks - 1}" if ranks else f"({expr})")
    return tuple(out)


def _stage_b(
    lines: list[str],
    sums: list[str],
    tags: tuple[str, ...],
    p: int,
    groups: int,
    nb: int,
    cw: int,
    gw: int,
) -> None:
    """Partial-count registers, accumulators and the running maximum (see the module doc)."""
    lines.append(f"  wire va = {tags[0]}, ka0 = {tags[1]}, kal = {tags[2]};")
    lines.append(f"  wire [{gw - 1}:0] ga = {tags[3]};")
    lines.append(f"  reg [{nb - 1}:0] best = {nb}'d0;")
    lines.append(f"  reg [{cw - 1}:0] arg = {cw}'d0;")
    lines.append("  reg vb = 1'b0, kb0 = 1'b0, kbl = 1'b0;")
    lines.append(f"  reg [{gw - 1}:0] gb = {gw}'d0;")
    upd = []
    for q in range(p):
        lines.append(f"  reg [{nb - 1}:0] pa{q} = {nb}'d0, acc{q} = {nb}'d0;")
        lines.append(f"  wire [{nb - 1}:0] tot{q} = (kb0 ? {nb}'d0 : acc{q}) + pa{q};")
        lines.append(f"  wire [{cw - 1}:0] id{q} = gb * {p} + {q};")
        upd.append(f"pa{q} <= {sums[q]}; ")
    lines.append(
        "  always @(posedge clk) begin vb <= va; kb0 <= ka0; kbl <= kal; gb <= ga; "
        + "".join(upd)
        + "end"
    )
    lines.append(f"  wire [{nb - 1}:0] b0 = best;")
    lines.append(f"  wire [{cw - 1}:0] a0 = arg;")
    for q in range(p):
        lines.append(f"  wire gt{q} = tot{q} > b{q};")
        lines.append(f"  wire [{nb - 1}:0] b{q + 1} = gt{q} ? tot{q} : b{q};")
        lines.append(f"  wire [{cw - 1}:0] a{q + 1} = gt{q} ? id{q} : a{q};")
    accs = " ".join(f"acc{q} <= tot{q};" for q in range(p))
    lines += [
        "  always @(posedge clk) begin",
        "    done <= 1'b0;",
        "    if (vb) begin",
        f"      if (kbl) begin best <= b{p}; arg <= a{p}; end else begin {accs} end",
        f"      if (kbl && gb == {groups - 1}) begin done <= 1'b1; cls <= a{p}; end",
        "    end",
        f"    if (start && !busy) begin best <= {nb}'d0; arg <= {cw}'d0; end",
        "  end",
    ]


HEAD_KINDS: dict[str, Callable[[Circuit, HeadSpec, str], SeqModule]] = {
    "mux": generate_mux,
    "shift": generate_shift,
}
