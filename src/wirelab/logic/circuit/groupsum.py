"""GroupSum heads as bit-sliced adders: the popcount of each class group as 2-input gates.

Bit-sliced counting treats every bit of a machine word as a separate sample, so a popcount over
``K`` output bits must be built from gates too. A Wallace-style carry-save reduction does it:
the ``K`` bits start in column 0 (weight 1); while a column holds three bits, a full adder
replaces them with a sum bit in the same column and a carry in the next::

    s = (a ^ b) ^ c                 2 XOR
    carry = (a & b) | (c & (a ^ b)) 2 AND, 1 OR (a ^ b shared with s)

and two remaining bits go through a half adder (``s = a ^ b``, ``carry = a & b``). Bits are taken
first-in first-out, which gives a tree of depth ``O(log K)``. At the end every column holds one
bit: the binary count, ``bit_length(K)`` bits, least significant first. A full adder costs 5
gates and removes one bit, so the head costs about ``5 K`` gates.

`with_groupsum` appends these gates to a circuit: the result's outputs are the original outputs
followed by ``num_classes * count_bits`` count bits (class-major, LSB first).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from wirelab.logic.circuit import truth_tables as tt
from wirelab.logic.circuit.ir import CONST0, Circuit

AND, XOR, OR = tt.AND, tt.XOR, tt.OR


def count_bits(group_size: int) -> int:
    """Bits needed to hold a count in ``[0, group_size]``."""
    return max(1, int(group_size).bit_length())


def with_groupsum(c: Circuit) -> tuple[Circuit, int]:
    """``(extended circuit, count_bits)``; see the module docstring for the output layout."""
    ops, as_, bs = c.op.tolist(), c.a.tolist(), c.b.tolist()

    def gate(g: int, a: int, b: int) -> int:
        ops.append(g)
        as_.append(a)
        bs.append(b)
        return c.first_gate + len(ops) - 1

    nb = count_bits(c.group_size)
    count_nodes: list[int] = []
    for k in range(c.num_classes):
        group = c.outputs[k * c.group_size : (k + 1) * c.group_size].tolist()
        cols: list[deque[int]] = [deque() for _ in range(nb + 1)]
        cols[0].extend(group)
        for j in range(nb):
            col = cols[j]
            while len(col) >= 3:
                x, y, z = col.popleft(), col.popleft(), col.popleft()
                xy = gate(XOR, x, y)
                col.append(gate(XOR, xy, z))
                cols[j + 1].append(gate(OR, gate(AND, x, y), gate(AND, z, xy)))
            if len(col) == 2:
                x, y = col.popleft(), col.popleft()
                col.append(gate(XOR, x, y))
                cols[j + 1].append(gate(AND, x, y))
        count_nodes.extend(cols[j][0] if cols[j] else CONST0 for j in range(nb))
    ext = c.replace(
        op=np.asarray(ops, dtype=np.uint8),
        a=np.asarray(as_, dtype=np.int64),
        b=np.asarray(bs, dtype=np.int64),
        outputs=np.concatenate([c.outputs, np.asarray(count_nodes, dtype=np.int64)]),
        num_classes=1,
    )
    return ext, nb


def decode_counts(count_bits_bool: np.ndarray, num_classes: int, nb: int) -> np.ndarray:
    """``(B, C * nb)`` count bits (class-major, LSB first) -> ``(B, C)`` int counts."""
    bits = np.asarray(count_bits_bool, dtype=np.int64).reshape(-1, num_classes, nb)
    return (bits << np.arange(nb)).sum(-1)
