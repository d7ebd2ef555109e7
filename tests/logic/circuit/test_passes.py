from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from tests.logic.circuit.conftest import all_input_bits, circuits, reference_outputs
from wirelab.logic.circuit.ir import Circuit, live_mask
from wirelab.logic.circuit.passes import (
    PASSES,
    eliminate_dead,
    fold_constants,
    push_inverters,
    remove_passthrough,
    simplify,
    structural_hash,
)


def same_function(c1: Circuit, c2: Circuit) -> None:
    bits = all_input_bits(c1.num_inputs)
    np.testing.assert_array_equal(reference_outputs(c1, bits), reference_outputs(c2, bits))


def gates(n_in: int, spec: list[tuple[int, int, int]], outputs: list[int]) -> Circuit:
    op, a, b = zip(*spec, strict=True) if spec else ((), (), ())
    return Circuit(
        num_inputs=n_in,
        op=np.asarray(op, np.uint8),
        a=np.asarray(a, np.int64),
        b=np.asarray(b, np.int64),
        outputs=np.asarray(outputs, np.int64),
        num_classes=1,
    )


@pytest.mark.parametrize("name", list(PASSES))
@settings(max_examples=60, deadline=None)
@given(c=circuits())
def test_every_pass_preserves_the_function(name: str, c: Circuit) -> None:
    out = PASSES[name](c)
    assert out.num_gates <= c.num_gates
    assert out.num_outputs == c.num_outputs
    same_function(c, out)


@settings(max_examples=60, deadline=None)
@given(c=circuits())
def test_simplify_preserves_function_and_reaches_a_fixed_point(c: Circuit) -> None:
    s, report = simplify(c)
    same_function(c, s)
    assert s.depth <= c.depth
    assert simplify(s)[0] == s
    assert report[0]["gates_before"] == c.num_gates and report[-1]["gates_after"] == s.num_gates
    # After simplification no gate is constant, pass-through, or dead.
    assert not np.isin(s.op, [0, 3, 5, 10, 15]).any()
    assert live_mask(s)[s.first_gate :].all()


def test_fold_constants() -> None:
    # inputs: node 2 = x. AND(x, 1) -> x; OR(x, 1) -> 1; XOR(0, x) -> x; XNOR(x, 0) -> NOT x;
    # FALSE(x, x) -> 0
    c = gates(1, [(1, 2, 1), (7, 2, 1), (6, 0, 2), (9, 2, 0), (0, 2, 2)], [3, 4, 5, 6, 7])
    f = fold_constants(c)
    assert f.outputs[:3].tolist() == [2, 1, 2]
    assert f.outputs[4] == 0
    assert f.num_gates == 1 and f.op[0] == 12 and f.a[0] == f.b[0] == 2  # one canonical NOT
    same_function(c, f)


def test_passthrough_and_double_negation() -> None:
    # x = 2, y = 3. g4 = A(x, y) -> x; g5 = NOT_A(x, y); g6 = NOT_B(y, g5) -> NOT NOT x -> x;
    # g7 = AND(g5, y) -> absorbs the inverter: NOT_A_AND_B(x, y); g8 = XOR(x, x) -> 0
    c = gates(2, [(3, 2, 3), (12, 2, 3), (10, 3, 5), (1, 5, 3), (6, 2, 2)], [4, 6, 7, 8])
    p = remove_passthrough(c)
    assert p.outputs[0] == 2 and p.outputs[1] == 2 and p.outputs[3] == 0
    out_gate = p.outputs[2] - p.first_gate
    assert (p.op[out_gate], p.a[out_gate], p.b[out_gate]) == (4, 2, 3)
    same_function(c, p)
    assert eliminate_dead(p).num_gates == 1  # the NOT is dead once absorbed


def test_structural_hash_merges_commuted_and_mirrored_gates() -> None:
    # AND(x, y), AND(y, x), A_AND_NOT_B(x, y) vs NOT_A_AND_B(y, x): 4 gates -> 2
    c = gates(2, [(1, 2, 3), (1, 3, 2), (2, 2, 3), (4, 3, 2)], [4, 5, 6, 7])
    h = structural_hash(c)
    assert h.num_gates == 2
    assert h.outputs.tolist() == [4, 4, 5, 5]
    same_function(c, h)


def test_dead_gate_elimination_keeps_only_what_outputs_read() -> None:
    c = gates(2, [(1, 2, 3), (7, 2, 3), (6, 4, 3)], [6])  # the OR is dead
    d = eliminate_dead(c)
    assert d.num_gates == 2 and d.outputs.tolist() == [5]
    same_function(c, d)
    assert eliminate_dead(gates(2, [(1, 2, 3)], [2])).num_gates == 0  # output is an input


def test_unused_inputs_are_reported() -> None:
    c = gates(3, [(1, 2, 4)], [5])
    assert c.used_inputs().tolist() == [0, 2]


def test_push_inverters_merges_a_single_reader_not_into_its_gate() -> None:
    # g4 = AND(x, y); g5 = NOT_A(g4, g4) -> NAND(x, y); g6 = XOR(x, y) read twice: NOT kept.
    c = gates(2, [(1, 2, 3), (12, 4, 4), (6, 2, 3), (12, 6, 6), (7, 6, 3)], [5, 7, 8])
    p = push_inverters(c)
    g5 = p.outputs[0] - p.first_gate
    assert (p.op[g5], p.a[g5], p.b[g5]) == (14, 2, 3)
    g7 = p.outputs[1] - p.first_gate
    assert p.op[g7] == 12
    same_function(c, p)
    assert eliminate_dead(p).num_gates == 4
