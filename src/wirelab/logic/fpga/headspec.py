"""What a sequential GroupSum head is asked for (`HeadSpec`) and what it generates (`SeqModule`);
the heads are in `seqhead` (kind ``mux``) and `shifthead` (kind ``shift``)."""

from __future__ import annotations

from dataclasses import dataclass

from wirelab.errors import UsageError
from wirelab.logic.circuit.ir import Circuit


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


def module_ports(module: str, c: Circuit, cw: int, comment: str) -> list[str]:
    """The first lines of a head ``module``: ``comment``, the ports of the module docstring of
    `seqhead` (``cw`` class bits) and the gate network ``{module}_net`` driving ``y``."""
    return [
        f"// {comment}",
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
    ]
