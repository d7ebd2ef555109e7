"""The circuit IR: a DAG of 2-input gates between an input binarisation stage and GroupSum heads.

Nodes are numbered in one flat, topologically ordered space::

    0               constant FALSE
    1               constant TRUE
    2 .. 2+I-1      the I binarised input bits (input bit ``f * T + t`` is ``x[f] > thr[f, t]``)
    2+I .. 2+I+G-1  gates; gate ``i`` is node ``2 + I + i``, reads nodes ``a[i], b[i] < 2 + I + i``

A gate computes ``f_op(a, b)`` with ``op`` in `wirelab.logic.gates` numbering (its truth table).
``outputs`` lists the node ids of the network outputs, split into ``num_classes`` consecutive
groups; class score = popcount(group) / tau (the GroupSum head). An output may be any node,
including a constant or an input, once the passes have simplified the circuit.

``depth`` is the logic depth: the longest chain of gates from an input or constant to an output,
counting only the operands a gate actually depends on (a NOT reads one operand, a constant gate
none).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import UsageError
from wirelab.logic.circuit.truth_tables import DEPENDS_A, DEPENDS_B
from wirelab.logic.discrete import DiscreteLogicNet
from wirelab.logic.gates import NAMES, NUM_GATES
from wirelab.results import atomic_write_bytes

FORMAT = "wirelab.circuit/1"
CONST0, CONST1 = 0, 1


@dataclass(frozen=True)
class Circuit:
    """The gate DAG of the module docstring: ``num_inputs`` input bits, gates ``op``, ``a``,
    ``b`` ``(G,)``, ``outputs`` ``(O,)`` split into ``num_classes`` GroupSum groups (scores /
    ``tau``), the input ``thresholds`` ``(F, T)``. ``Circuit.from_net(net)`` builds it from a
    `DiscreteLogicNet`; ``num_gates``, ``depth``, ``summary()`` describe it.

    Example:
        >>> from wirelab.logic.circuit import Circuit, simplify
        >>> circuit, report = simplify(Circuit.from_net(net))  # doctest: +SKIP
    """

    num_inputs: int
    op: np.ndarray  # (G,) uint8 gate ids
    a: np.ndarray  # (G,) int64 node ids
    b: np.ndarray  # (G,) int64 node ids
    outputs: np.ndarray  # (O,) int64 node ids
    num_classes: int
    tau: float = 1.0
    thresholds: np.ndarray = field(default_factory=lambda: np.zeros((0, 1)))  # (F, T)
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        g = self.op.shape[0]
        if not (self.op.shape == self.a.shape == self.b.shape == (g,)):
            raise UsageError("op, a and b must be 1-D arrays of the same length")
        if g and (int(self.op.max()) >= NUM_GATES):
            raise UsageError("gate ids must lie in [0, 16)")
        own = self.first_gate + np.arange(g)
        if g and (
            min(int(self.a.min()), int(self.b.min())) < 0
            or bool(np.any(self.a >= own))
            or bool(np.any(self.b >= own))
        ):
            raise UsageError("a gate reads a node that is not before it (the IR must be a DAG)")
        if self.outputs.ndim != 1 or (
            self.outputs.size
            and (int(self.outputs.min()) < 0 or int(self.outputs.max()) >= self.num_nodes)
        ):
            raise UsageError("outputs must be node ids of this circuit")
        if self.num_classes < 1 or self.outputs.size % self.num_classes:
            raise UsageError(
                f"{self.outputs.size} outputs do not split into {self.num_classes} classes"
            )
        if self.thresholds.size and self.thresholds.shape[0] * self.thresholds.shape[1] != (
            self.num_inputs
        ):
            raise UsageError("thresholds (F, T) must give F * T == num_inputs bits")

    # ---- sizes ---------------------------------------------------------------------------
    @property
    def first_gate(self) -> int:
        return 2 + self.num_inputs

    @property
    def num_gates(self) -> int:
        return int(self.op.shape[0])

    @property
    def num_nodes(self) -> int:
        return self.first_gate + self.num_gates

    @property
    def num_outputs(self) -> int:
        return int(self.outputs.shape[0])

    @property
    def group_size(self) -> int:
        return self.num_outputs // self.num_classes

    def gates_by_type(self) -> dict[str, int]:
        counts = np.bincount(self.op.astype(np.int64), minlength=NUM_GATES)
        return {NAMES[g]: int(n) for g, n in enumerate(counts) if n}

    def levels(self) -> np.ndarray:
        """``(num_nodes,)`` logic level: 0 for constants and inputs, 1 + max over real operands."""
        lev = np.zeros(self.num_nodes, dtype=np.int64)
        ops, a_, b_ = self.op.tolist(), self.a.tolist(), self.b.tolist()
        out = lev.tolist()
        base = self.first_gate
        for i, (g, a, b) in enumerate(zip(ops, a_, b_, strict=True)):
            la = out[a] if DEPENDS_A[g] else -1
            lb = out[b] if DEPENDS_B[g] else -1
            m = max(la, lb)
            out[base + i] = m + 1 if m >= 0 else 0
        return np.asarray(out, dtype=np.int64)

    @property
    def depth(self) -> int:
        if not self.num_outputs:
            return 0
        return int(self.levels()[self.outputs].max())

    def used_inputs(self) -> np.ndarray:
        """Indices (into the I input bits) that some live gate or output reads."""
        live = live_mask(self)
        return np.flatnonzero(live[2 : self.first_gate])

    def summary(self) -> dict[str, Any]:
        return {
            "inputs": self.num_inputs,
            "inputs_used": int(self.used_inputs().size),
            "gates": self.num_gates,
            "depth": self.depth,
            "outputs": self.num_outputs,
            "classes": self.num_classes,
        }

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def from_net(cls, net: DiscreteLogicNet) -> Circuit:
        """The circuit of a discrete logic gate network, one gate per neuron, layer by layer."""
        num_inputs = net.input_bits
        prev = 2 + np.arange(num_inputs, dtype=np.int64)  # node ids of the previous layer
        ops, as_, bs = [], [], []
        next_id = 2 + num_inputs
        for layer in net.layers:
            ops.append(layer.gate.astype(np.uint8))
            as_.append(prev[layer.a])
            bs.append(prev[layer.b])
            prev = next_id + np.arange(layer.size, dtype=np.int64)
            next_id += layer.size
        cat = np.concatenate
        return cls(
            num_inputs=num_inputs,
            op=cat(ops) if ops else np.zeros(0, np.uint8),
            a=cat(as_) if as_ else np.zeros(0, np.int64),
            b=cat(bs) if bs else np.zeros(0, np.int64),
            outputs=prev.copy(),
            num_classes=net.num_classes,
            tau=float(net.tau),
            thresholds=np.asarray(net.thresholds, dtype=np.float64),
            meta={"source": "DiscreteLogicNet", "layers": [lay.size for lay in net.layers]},
        )

    def replace(self, **changes: Any) -> Circuit:
        d: dict[str, Any] = {
            "num_inputs": self.num_inputs,
            "op": self.op,
            "a": self.a,
            "b": self.b,
            "outputs": self.outputs,
            "num_classes": self.num_classes,
            "tau": self.tau,
            "thresholds": self.thresholds,
            "meta": self.meta,
        }
        d.update(changes)
        return Circuit(**d)

    # ---- binarisation and scores ------------------------------------------------------------
    def binarize(self, x: np.ndarray) -> np.ndarray:
        """``(B, F)`` floats -> ``(B, I)`` bool, bit ``f * T + t = x[f] > thresholds[f, t]``."""
        x = np.asarray(x, dtype=np.float64).reshape(len(x), -1)
        if x.shape[1] != self.thresholds.shape[0]:
            raise UsageError(
                f"expected {self.thresholds.shape[0]} input features, got {x.shape[1]}"
            )
        return (x[:, :, None] > self.thresholds[None]).reshape(len(x), -1)

    def counts_from_bits(self, out_bits: np.ndarray) -> np.ndarray:
        """``(B, O)`` output bits -> ``(B, C)`` int popcount per class group."""
        out = np.asarray(out_bits, dtype=np.int64)
        return out.reshape(len(out), self.num_classes, self.group_size).sum(-1)

    # ---- JSON ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "num_inputs": self.num_inputs,
            "op": self.op.tolist(),
            "a": self.a.tolist(),
            "b": self.b.tolist(),
            "outputs": self.outputs.tolist(),
            "num_classes": self.num_classes,
            "tau": self.tau,
            "thresholds": self.thresholds.tolist(),
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Circuit:
        if d.get("format") != FORMAT:
            raise UsageError(f"not a wirelab circuit (format field is not {FORMAT!r})")
        thr = np.asarray(d["thresholds"], dtype=np.float64)
        return cls(
            num_inputs=int(d["num_inputs"]),
            op=np.asarray(d["op"], dtype=np.uint8),
            a=np.asarray(d["a"], dtype=np.int64),
            b=np.asarray(d["b"], dtype=np.int64),
            outputs=np.asarray(d["outputs"], dtype=np.int64),
            num_classes=int(d["num_classes"]),
            tau=float(d["tau"]),
            thresholds=thr.reshape(len(thr), -1) if thr.size else np.zeros((0, 1)),
            meta=dict(d.get("meta", {})),
        )

    def save(self, path: str | Path) -> Path:
        return atomic_write_bytes(Path(path), (json.dumps(self.to_dict()) + "\n").encode())

    @classmethod
    def load(cls, path: str | Path) -> Circuit:
        p = Path(path)
        if not p.is_file():
            raise UsageError(f"no circuit file at {p}")
        return cls.from_dict(json.loads(p.read_text()))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Circuit):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


def live_mask(c: Circuit) -> np.ndarray:
    """``(num_nodes,)`` bool: the node is an output or read by a live gate's real operand."""
    live = np.zeros(c.num_nodes, dtype=bool)
    live[c.outputs] = True
    ops, as_, bs = c.op.tolist(), c.a.tolist(), c.b.tolist()
    lv = live.tolist()
    for i in range(c.num_gates - 1, -1, -1):
        if lv[c.first_gate + i]:
            g = ops[i]
            if DEPENDS_A[g]:
                lv[as_[i]] = True
            if DEPENDS_B[g]:
                lv[bs[i]] = True
    return np.asarray(lv, dtype=bool)
