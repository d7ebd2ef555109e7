"""The classifier as a memory-mapped PicoSoC peripheral: ``wl_periph`` on PicoSoC's iomem bus.

Register map (byte offsets from the peripheral's base, 32-bit words)::

    0x000 + 4k   write   input word k            (k < num_words)
    0x200 + 4j   read    result word j           (j < num_results)

What the input words hold depends on the **input stage**:

- ``"bits"``: the used input bits, 32 per word, into an input register (one flip-flop per used
  input bit, which sits in a logic cell of its own: nothing drives it but the bus);
- ``"level1"``: the *operands of the first logic level*. Every gate whose operands are all
  inputs gets its operand bits side by side in one word (a bit read by several gates is sent
  several times), and the gate is evaluated as the word is written, its value stored in a
  flip-flop in the same logic cell as the gate's LUT; inputs that later levels or the outputs
  read directly take one slot each. The first level costs no extra cells for its register.

What the result words hold depends on the **head**:

- ``"hw"``: the GroupSum adder trees and the argmax in logic: ``{counts[C-1], ..., counts[0],
  cls}`` (class in the low bits, each count ``NB`` bits above it) over as many words as needed;
- ``"firmware"``: the network's output bits ``y``, each class group starting on a word boundary
  (``words_per_class`` words per class); the soft core counts and takes the argmax.

`Layout` is the host's side of the map: `Layout.pack` turns ``(B, I)`` input bits into the
``(B, num_words)`` words the firmware writes, `Layout.decode` turns result words into classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from wirelab.errors import UsageError
from wirelab.logic.circuit import truth_tables as tt
from wirelab.logic.circuit.backends.verilog import V_EXPR, adder_tree, argmax_chain, class_bits
from wirelab.logic.circuit.groupsum import count_bits
from wirelab.logic.circuit.ir import CONST0, CONST1, Circuit

INPUT_STAGES = ("bits", "level1")
HEADS = ("hw", "firmware")
RESULT_OFFSET = 0x200


@dataclass(frozen=True)
class Layout:
    """Which input bit goes to which bit of which input word; how results are read back.

    ``slots``: ``(num_words * 32,)`` input-bit index per slot (-1: unused, sent as 0);
    ``stage``: node id -> ``(kind, word, bit)`` of its register, ``kind`` "in" (an input bit
    held as it is) or "gate" (a level-1 gate evaluated on its operand slots ``bit``, ``bit+1``).
    """

    input_stage: str
    head: str
    num_words: int
    slots: np.ndarray
    stage: dict[int, tuple[str, int, int]] = field(repr=False)
    num_results: int
    num_classes: int
    count_bits: int
    class_bits: int
    group_size: int
    words_per_class: int

    def pack(self, bits: np.ndarray) -> np.ndarray:
        """``(B, I)`` bool input bits -> ``(B, num_words)`` uint32 words to write."""
        bits = np.asarray(bits, dtype=bool)
        vals = np.where(self.slots >= 0, bits[:, np.maximum(self.slots, 0)], False)  # (B, 32W)
        weights = (np.uint64(1) << np.arange(32, dtype=np.uint64)).astype(np.uint64)
        words = (vals.reshape(len(bits), self.num_words, 32) * weights).sum(-1)
        return words.astype(np.uint32)

    def decode(self, results: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(B, num_results)`` result words -> ``(B,)`` class and ``(B, C)`` counts."""
        r = np.asarray(results, dtype=np.uint64)
        bits = ((r[:, :, None] >> np.arange(32, dtype=np.uint64)) & 1).astype(np.int64)
        bits = bits.reshape(len(r), -1)  # (B, 32 * num_results)
        if self.head == "hw":
            cls = (bits[:, : self.class_bits] << np.arange(self.class_bits)).sum(-1)
            nb, cb = self.count_bits, self.class_bits
            counts = np.stack(
                [
                    (bits[:, cb + k * nb : cb + (k + 1) * nb] << np.arange(nb)).sum(-1)
                    for k in range(self.num_classes)
                ],
                axis=1,
            )
            return cls.astype(np.int64), counts.astype(np.int64)
        w = self.words_per_class * 32
        groups = bits[:, : self.num_classes * w].reshape(len(r), self.num_classes, w)
        counts = groups[:, :, : self.group_size].sum(-1).astype(np.int64)
        return np.argmax(counts, axis=1), counts


def make_layout(c: Circuit, input_stage: str = "level1", head: str = "firmware") -> Layout:
    """The register map of ``c`` for an input stage and a head (see the module docstring)."""
    if input_stage not in INPUT_STAGES or head not in HEADS:
        raise UsageError(f"input stage must be one of {INPUT_STAGES} and head one of {HEADS}")
    first, lev = c.first_gate, c.levels()
    stage_nodes: list[int] = []
    if input_stage == "bits":
        stage_nodes = [int(i) + 2 for i in c.used_inputs()]
    else:
        ops, as_, bs = c.op.tolist(), c.a.tolist(), c.b.tolist()
        direct: set[int] = {int(o) for o in c.outputs.tolist() if 2 <= o < first}
        level1 = [first + i for i in range(c.num_gates) if lev[first + i] == 1]
        for i, (g, a, b) in enumerate(zip(ops, as_, bs, strict=True)):
            if lev[first + i] >= 2:
                direct |= {
                    x
                    for x, dep in ((a, tt.DEPENDS_A[g]), (b, tt.DEPENDS_B[g]))
                    if dep and 2 <= x < first
                }
        stage_nodes = level1 + sorted(direct)
    slots: list[int] = []
    stage: dict[int, tuple[str, int, int]] = {}
    pairs = [n for n in stage_nodes if n >= first]
    singles = [n for n in stage_nodes if n < first]
    for n in pairs:  # two slots each, never split across words (32 is even)
        stage[n] = ("gate", len(slots) // 32, len(slots) % 32)
        slots += [_input_of(c, c.a[n - first]), _input_of(c, c.b[n - first])]
    for n in singles:
        stage[n] = ("in", len(slots) // 32, len(slots) % 32)
        slots.append(n - 2)
    num_words = max(1, -(-len(slots) // 32))
    slot_arr = np.full(num_words * 32, -1, dtype=np.int64)
    slot_arr[: len(slots)] = slots
    nb, cw, g = count_bits(c.group_size), class_bits(c.num_classes), c.group_size
    wpc = max(1, -(-g // 32))
    n_res = -(-(cw + c.num_classes * nb) // 32) if head == "hw" else c.num_classes * wpc
    return Layout(
        input_stage, head, num_words, slot_arr, stage, n_res, c.num_classes, nb, cw, g, wpc
    )


def _input_of(c: Circuit, node: int) -> int:
    """Input-bit index of an operand (-1 for a constant: its slot is sent as 0 and the gate's
    expression uses the constant itself)."""
    return int(node) - 2 if 2 <= node < c.first_gate else -1


def peripheral_verilog(c: Circuit, lay: Layout, module: str = "wl_periph") -> str:
    """Verilog of the peripheral: PicoSoC iomem handshake (``valid``/``ready``, one wait
    cycle), the input stage, the remaining gates, and the result words."""
    first = c.first_gate
    awidth = max(1, (max(lay.num_words, lay.num_results) - 1).bit_length())
    L = [
        f"// Generated by wirelab.logic.fpga.peripheral: {c.num_gates} gates, input stage "
        f"{lay.input_stage}, head {lay.head}, {lay.num_words} input words.",
        f"module {module} (",
        "  input wire clk, input wire resetn, input wire sel, input wire [3:0] wstrb,",
        "  input wire [11:0] addr, input wire [31:0] wdata,",
        "  output reg ready = 1'b0, output reg [31:0] rdata = 32'd0",
        ");",
        "  wire go = sel && !ready;",
        f"  wire [{awidth - 1}:0] idx = addr[{awidth + 1}:2];",
        "  wire wr = go && wstrb == 4'hf && addr[9] == 1'b0;",
    ]
    regs: list[str] = []
    for n, (kind, word, bit) in lay.stage.items():
        L.append(f"  reg q{n} = 1'b0;")
        if kind == "in":
            expr = f"wdata[{bit}]"
        else:
            g, a, b = int(c.op[n - first]), int(c.a[n - first]), int(c.b[n - first])
            expr = V_EXPR[g].format(a=_opnd(a, f"wdata[{bit}]"), b=_opnd(b, f"wdata[{bit + 1}]"))
        regs.append(f"    if (wr && idx == {word}) q{n} <= {expr};")

    def ref(node: int) -> str:
        if node == CONST0:
            return "1'b0"
        if node == CONST1:
            return "1'b1"
        return f"q{node}" if node in lay.stage else f"n{node}"

    for i, (g, a, b) in enumerate(zip(c.op.tolist(), c.a.tolist(), c.b.tolist(), strict=True)):
        if first + i not in lay.stage:
            L.append(f"  wire n{first + i} = {V_EXPR[g].format(a=ref(a), b=ref(b))};")
    outs = [ref(int(o)) for o in c.outputs.tolist()]
    L.append("  always @(posedge clk) begin")
    L.extend(regs)
    L.append("  end")
    if lay.head == "hw":
        nb, cw = lay.count_bits, lay.class_bits
        L.append(f"  wire [{c.num_classes * nb - 1}:0] counts;")
        L.append(f"  wire [{cw - 1}:0] cls;")
        g_sz = c.group_size
        for k in range(c.num_classes):
            total, _ = adder_tree(L, [], k, outs[k * g_sz : (k + 1) * g_sz])
            L.append(f"  assign counts[{k * nb + nb - 1}:{k * nb}] = {total};")
        argmax_chain(L, c, nb, cw)
        result_bits = ["cls", "counts"]
        width = cw + c.num_classes * nb
    else:
        w = lay.words_per_class * 32
        bits_ = ["1'b0"] * (c.num_classes * w)
        for j, o in enumerate(outs):
            bits_[(j // c.group_size) * w + j % c.group_size] = o
        result_bits = list(reversed(bits_))
        width = len(bits_)
    padded = lay.num_results * 32
    if lay.head == "hw":
        pad = f"{padded - width}'d0, " if padded > width else ""
        L.append(f"  wire [{padded - 1}:0] res = {{{pad}counts, cls}};")
    else:
        L.append(f"  wire [{padded - 1}:0] res = {{{', '.join(result_bits)}}};")
    L += [
        "  always @(posedge clk) begin",
        "    ready <= go;",
        "    if (go) rdata <= addr[9] ? res[idx * 32 +: 32] : 32'd0;",
        "  end",
        "endmodule",
    ]
    return "\n".join(L) + "\n"


def _opnd(node: int, slot: str) -> str:
    return "1'b0" if node == CONST0 else "1'b1" if node == CONST1 else slot
