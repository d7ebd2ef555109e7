"""Simplification passes: each maps a `Circuit` to a smaller circuit computing the same outputs.

Every pass is one forward sweep over the gates in topological order through a `_Builder`, which
keeps ``remap[old node] = new node``; a gate is either re-emitted (with remapped operands,
possibly rewritten) or *aliased* to an existing node of the new circuit (a constant, an input,
or an earlier gate). Outputs are remapped at the end. Only `eliminate_dead` removes gates that are
no longer read; the others leave them for it.

- `fold_constants`: gates FALSE/TRUE become constants; a gate with a constant operand becomes a
  function of the other operand: a constant, the operand itself, or its NOT.
- `remove_passthrough`: one-variable gates (A, B, NOT_A, NOT_B) and gates reading the same node
  twice become the operand itself or a canonical NOT ``NOT_A(x, x)``; NOT(NOT(x)) becomes x; an
  inverter feeding a 2-input gate is absorbed into that gate's truth table (``g(~x, y)`` is again
  one of the 16 gates), which leaves the inverter dead when nothing else reads it.
- `push_inverters`: an inverter that is the only reader of a gate is merged into that gate
  (``NOT(g(a, b)) = (~g)(a, b)``, gate ``15 - g``).
- `structural_hash`: two gates with the same function of the same operands become one
  (operands put in a canonical order first: ``g(a, b) = swap(g)(b, a)``).
- `eliminate_dead`: gates that no output depends on are removed and the rest renumbered.

`simplify` runs them to a fixed point and reports the gate count before and after each pass.
(`live_mask`, the liveness analysis of `eliminate_dead`, is in `ir`, beside
`Circuit.used_inputs`.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from wirelab.logic.circuit import truth_tables as tt
from wirelab.logic.circuit.ir import CONST0, CONST1, Circuit, live_mask

# A rule gets (builder, op, a, b) with a, b already remapped and returns a node id (alias) or a
# new (op, a, b) to emit.
Rule = Callable[["_Builder", int, int, int], "int | tuple[int, int, int]"]


class _Builder:
    def __init__(self, c: Circuit) -> None:
        self.first = c.first_gate
        self.op: list[int] = []
        self.a: list[int] = []
        self.b: list[int] = []

    def emit(self, op: int, a: int, b: int) -> int:
        self.op.append(op)
        self.a.append(a)
        self.b.append(b)
        return self.first + len(self.op) - 1

    def gate(self, node: int) -> tuple[int, int, int] | None:
        """``(op, a, b)`` of ``node`` if it is a gate of the new circuit."""
        i = node - self.first
        return (self.op[i], self.a[i], self.b[i]) if i >= 0 else None

    def not_of(self, node: int) -> int | None:
        """``x`` if ``node`` is a canonical ``NOT_A(x, x)``."""
        g = self.gate(node)
        if g is not None and g[0] == tt.NOT_A and g[1] == g[2]:
            return g[1]
        return None


def _sweep(c: Circuit, rule: Rule) -> Circuit:
    bld = _Builder(c)
    remap = list(range(c.first_gate)) + [0] * c.num_gates
    ops, as_, bs = c.op.tolist(), c.a.tolist(), c.b.tolist()
    for i, (g, a, b) in enumerate(zip(ops, as_, bs, strict=True)):
        r = rule(bld, g, remap[a], remap[b])
        remap[c.first_gate + i] = r if isinstance(r, int) else bld.emit(*r)
    return c.replace(
        op=np.asarray(bld.op, dtype=np.uint8),
        a=np.asarray(bld.a, dtype=np.int64),
        b=np.asarray(bld.b, dtype=np.int64),
        outputs=np.asarray([remap[o] for o in c.outputs.tolist()], dtype=np.int64),
    )


def _one_var(bld: _Builder, fn: tuple[int, int], x: int) -> int | tuple[int, int, int]:
    """Node computing the one-variable function ``fn = (f(0), f(1))`` of node ``x``."""
    if fn == (0, 0):
        return CONST0
    if fn == (1, 1):
        return CONST1
    if fn == (0, 1):
        return x
    if x in (CONST0, CONST1):  # NOT of a constant
        return CONST1 if x == CONST0 else CONST0
    return (tt.NOT_A, x, x)


# ---- constant folding -------------------------------------------------------------------------
def _fold_rule(bld: _Builder, g: int, a: int, b: int) -> int | tuple[int, int, int]:
    if g == tt.FALSE:
        return CONST0
    if g == tt.TRUE:
        return CONST1
    if a in (CONST0, CONST1):
        return _one_var(bld, tt.restrict_a(g, a), b)
    if b in (CONST0, CONST1):
        return _one_var(bld, tt.restrict_b(g, b), a)
    return (g, a, b)


def fold_constants(c: Circuit) -> Circuit:
    return _sweep(c, _fold_rule)


# ---- pass-through and double negation -----------------------------------------------------------
def _passthrough_rule(bld: _Builder, g: int, a: int, b: int) -> int | tuple[int, int, int]:
    da, db = tt.DEPENDS_A[g], tt.DEPENDS_B[g]
    if a == b:
        fn = tt.diagonal(g)
    elif not db:
        fn, b = tt.restrict_b(g, 0), a  # a function of a alone
    elif not da:
        fn, a = tt.restrict_a(g, 0), b  # a function of b alone
    else:
        # A true 2-input gate: absorb inverters on its operands into its truth table.
        xa, xb = bld.not_of(a), bld.not_of(b)
        if xa is not None:
            g, a = tt.negate_a(g), xa
        if xb is not None:
            g, b = tt.negate_b(g), xb
        if a == b:  # e.g. AND(x, NOT x)
            return _one_var(bld, tt.diagonal(g), a)
        return (g, a, b)
    if fn == (1, 0):  # NOT: NOT(NOT x) = x
        inner = bld.not_of(a)
        if inner is not None:
            return inner
    return _one_var(bld, fn, a)


def remove_passthrough(c: Circuit) -> Circuit:
    return _sweep(c, _passthrough_rule)


# ---- inverter pushing --------------------------------------------------------------------------
def push_inverters(c: Circuit) -> Circuit:
    """``NOT(g(a, b))`` -> ``(~g)(a, b)`` when the NOT is the only reader of gate ``g``.

    The complemented truth table is gate ``15 - g``; the original gate is left dead. This removes
    inverters that cannot be absorbed forwards (e.g. those feeding an output).
    """
    fanout = np.zeros(c.num_nodes, dtype=np.int64)
    dep_a = np.asarray(tt.DEPENDS_A)[c.op]
    dep_b = np.asarray(tt.DEPENDS_B)[c.op]
    np.add.at(fanout, c.a[dep_a], 1)
    np.add.at(fanout, c.b[dep_b & ~(dep_a & (c.a == c.b))], 1)
    np.add.at(fanout, c.outputs, 1)
    fo = fanout.tolist()
    first = c.first_gate
    old_a = c.a.tolist()
    state = {"i": 0}

    def rule(bld: _Builder, g: int, a: int, b: int) -> int | tuple[int, int, int]:
        i = state["i"]
        state["i"] += 1
        da, db = tt.DEPENDS_A[g], tt.DEPENDS_B[g]
        if da and not db and tt.restrict_b(g, 0) == (1, 0):  # NOT of operand a
            x_old = old_a[i]
            inner = bld.gate(a)
            if x_old >= first and fo[x_old] == 1 and inner is not None:
                return (15 - inner[0], inner[1], inner[2])
        return (g, a, b)

    return _sweep(c, rule)


# ---- structural hashing -----------------------------------------------------------------------
def structural_hash(c: Circuit) -> Circuit:
    seen: dict[tuple[int, int, int], int] = {}

    def rule(bld: _Builder, g: int, a: int, b: int) -> int | tuple[int, int, int]:
        if a > b:
            g, a, b = tt.swap(g), b, a
        key = (g, a, b)
        hit = seen.get(key)
        if hit is not None:
            return hit
        seen[key] = bld.first + len(bld.op)  # the id emit() will give
        return key

    return _sweep(c, rule)


# ---- dead-gate elimination ----------------------------------------------------------------------
def eliminate_dead(c: Circuit) -> Circuit:
    live = live_mask(c)
    keep = np.flatnonzero(live[c.first_gate :])
    remap = np.arange(c.num_nodes, dtype=np.int64)
    remap[c.first_gate + keep] = c.first_gate + np.arange(keep.size)
    # Operands a gate does not depend on may point at removed gates: point them at a constant.
    op = c.op[keep]
    a = c.a[keep]
    b = c.b[keep]
    dep_a = np.asarray(tt.DEPENDS_A)[op]
    dep_b = np.asarray(tt.DEPENDS_B)[op]
    a = np.where(dep_a | live[a], remap[a], CONST0)
    b = np.where(dep_b | live[b], remap[b], CONST0)
    return c.replace(op=op, a=a, b=b, outputs=remap[c.outputs])


PASSES: dict[str, Callable[[Circuit], Circuit]] = {
    "fold_constants": fold_constants,
    "remove_passthrough": remove_passthrough,
    "push_inverters": push_inverters,
    "structural_hash": structural_hash,
    "eliminate_dead": eliminate_dead,
}


def simplify(c: Circuit, *, max_rounds: int = 10) -> tuple[Circuit, list[dict[str, Any]]]:
    """Run all passes in order until a round changes nothing.

    Returns the simplified circuit and one record per pass run:
    ``{"round", "pass", "gates_before", "gates_after"}``.
    """
    report: list[dict[str, Any]] = []
    for rnd in range(1, max_rounds + 1):
        start = c
        for name, fn in PASSES.items():
            before = c.num_gates
            c = fn(c)
            report.append(
                {"round": rnd, "pass": name, "gates_before": before, "gates_after": c.num_gates}
            )
        if c == start:
            break
    return c, report
