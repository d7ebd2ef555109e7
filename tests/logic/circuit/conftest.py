"""Random circuits for property tests: arbitrary DAGs of 2-input gates with constants, unused
inputs, outputs that are inputs or constants, and classes of one output."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from wirelab.logic.circuit.ir import Circuit


@st.composite
def circuits(draw: st.DrawFn, max_inputs: int = 6, max_gates: int = 40) -> Circuit:
    n_in = draw(st.integers(0, max_inputs))
    n_gates = draw(st.integers(0, max_gates))
    ops, as_, bs = [], [], []
    for i in range(n_gates):
        limit = 2 + n_in + i  # constants, inputs and earlier gates
        ops.append(draw(st.integers(0, 15)))
        as_.append(draw(st.integers(0, limit - 1)))
        bs.append(draw(st.integers(0, limit - 1)))
    n_classes = draw(st.integers(1, 3))
    group = draw(st.integers(1, 4))
    n_nodes = 2 + n_in + n_gates
    # Favour late nodes as outputs (like a network's last layer) but allow any node.
    outputs = [
        draw(st.one_of(st.integers(max(0, n_nodes - 8), n_nodes - 1), st.integers(0, n_nodes - 1)))
        for _ in range(n_classes * group)
    ]
    return Circuit(
        num_inputs=n_in,
        op=np.asarray(ops, dtype=np.uint8),
        a=np.asarray(as_, dtype=np.int64),
        b=np.asarray(bs, dtype=np.int64),
        outputs=np.asarray(outputs, dtype=np.int64),
        num_classes=n_classes,
        tau=1.0,
        thresholds=np.full((n_in, 1), 0.5) if n_in else np.zeros((0, 1)),
    )


def all_input_bits(n_in: int) -> np.ndarray:
    """``(2**n_in, n_in)`` bool: every input vector (truth-table order)."""
    idx = np.arange(2**n_in)
    return ((idx[:, None] >> np.arange(n_in)) & 1).astype(bool)


def reference_outputs(c: Circuit, bits: np.ndarray) -> np.ndarray:
    """Gate-by-gate evaluation on unpacked bools, independent of the packed back ends."""
    from wirelab.logic.gates import TRUTH

    bits = np.asarray(bits, dtype=np.uint8)
    vals = np.zeros((len(bits), c.num_nodes), dtype=np.uint8)
    vals[:, 1] = 1
    vals[:, 2 : c.first_gate] = bits
    for i, (g, a, b) in enumerate(zip(c.op.tolist(), c.a.tolist(), c.b.tolist(), strict=True)):
        vals[:, c.first_gate + i] = TRUTH[g][2 * vals[:, a] + vals[:, b]]
    return vals[:, c.outputs].astype(bool)
