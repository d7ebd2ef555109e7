from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from tests.logic.circuit.conftest import circuits
from wirelab.errors import UsageError
from wirelab.logic.circuit.backends.python import PyEvaluator
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.synthetic import random_net
from wirelab.logic.circuit.truth_tables import (
    EXPRESSIONS,
    depends_a,
    depends_b,
    diagonal,
    negate_a,
    negate_b,
    restrict_a,
    restrict_b,
    swap,
)
from wirelab.logic.discrete import DiscreteLayer, DiscreteLogicNet
from wirelab.logic.gates import TRUTH


def f(g: int, a: int, b: int) -> int:
    return int(TRUTH[g, 2 * a + b])


@pytest.mark.parametrize("g", range(16))
def test_gate_expressions_match_truth_table(g: int) -> None:
    # The C and Verilog back ends write these; evaluated here on 1-bit Python ints.
    for a in (0, 1):
        for b in (0, 1):
            expr = EXPRESSIONS[g].format(a=a, b=b, zero=0, one=-1)
            assert eval(expr) & 1 == f(g, a, b), (g, expr)


@pytest.mark.parametrize("g", range(16))
def test_table_algebra_matches_truth_table(g: int) -> None:
    for a in (0, 1):
        for b in (0, 1):
            assert f(swap(g), a, b) == f(g, b, a)
            assert f(negate_a(g), a, b) == f(g, 1 - a, b)
            assert f(negate_b(g), a, b) == f(g, a, 1 - b)
            assert restrict_a(g, a)[b] == f(g, a, b)
            assert restrict_b(g, b)[a] == f(g, a, b)
        assert diagonal(g)[a] == f(g, a, a)
    assert depends_a(g) == any(f(g, 0, b) != f(g, 1, b) for b in (0, 1))
    assert depends_b(g) == any(f(g, a, 0) != f(g, a, 1) for a in (0, 1))


def test_from_net_matches_discrete_reference() -> None:
    net = random_net([50, 30, 12], features=9, thermometer=3, num_classes=4, seed=3)
    c = Circuit.from_net(net)
    assert c.num_inputs == 27 and c.num_gates == 92 and c.num_outputs == 12
    x = np.random.default_rng(1).random((77, 9))
    np.testing.assert_array_equal(
        PyEvaluator(c).forward_bits(c.binarize(x)), net.forward_bits(net.binarize(x))
    )
    np.testing.assert_array_equal(PyEvaluator(c).counts(x) / c.tau, net.scores(x))


def test_depth_counts_only_real_operands() -> None:
    # in0 -> NOT -> AND(not, in1) -> A(pass, reads the AND) ; a FALSE gate has level 0.
    c = Circuit(
        num_inputs=2,
        op=np.array([12, 1, 3, 0], np.uint8),
        a=np.array([2, 4, 5, 5], np.int64),
        b=np.array([2, 3, 0, 6], np.int64),
        outputs=np.array([6, 7], np.int64),
        num_classes=1,
    )
    np.testing.assert_array_equal(c.levels(), [0, 0, 0, 0, 1, 2, 3, 0])
    assert c.depth == 3


@settings(max_examples=40, deadline=None)
@given(circuits())
def test_json_round_trip(c: Circuit) -> None:
    again = Circuit.from_dict(c.to_dict())
    assert again == c
    assert again.depth == c.depth


def test_save_load(tmp_path: Path) -> None:
    c = Circuit.from_net(random_net([10, 4], features=5, num_classes=2))
    c.save(tmp_path / "c.json")
    assert Circuit.load(tmp_path / "c.json") == c


def test_bad_circuits_raise_usage_errors() -> None:
    ok = dict(
        num_inputs=1,
        op=np.array([1], np.uint8),
        a=np.array([2]),
        b=np.array([2]),
        outputs=np.array([3]),
        num_classes=1,
    )
    Circuit(**ok)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="DAG"):
        Circuit(**{**ok, "a": np.array([3])})  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="node ids"):
        Circuit(**{**ok, "outputs": np.array([9])})  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="classes"):
        Circuit(**{**ok, "num_classes": 2})  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="format"):
        Circuit.from_dict({"format": "nope"})
    c = Circuit(**ok)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="features"):
        c.binarize(np.zeros((2, 3)))


def test_net_with_no_layers_is_an_identity_circuit() -> None:
    net = DiscreteLogicNet(np.array([[0.5], [0.2]]), (), num_classes=2)
    c = Circuit.from_net(net)
    assert c.num_gates == 0 and c.depth == 0
    x = np.array([[0.9, 0.1], [0.1, 0.9]])
    np.testing.assert_array_equal(PyEvaluator(c).counts(x), [[1, 0], [0, 1]])


def test_layer_wiring_is_remapped_per_layer() -> None:
    layer1 = DiscreteLayer(np.array([0, 1]), np.array([1, 0]), np.array([1, 6], np.uint8))
    layer2 = DiscreteLayer(np.array([1]), np.array([0]), np.array([2], np.uint8))  # XOR & ~AND
    net = DiscreteLogicNet(np.array([[0.5], [0.5]]), (layer1, layer2), num_classes=1)
    c = Circuit.from_net(net)
    np.testing.assert_array_equal(c.a, [2, 3, 5])
    np.testing.assert_array_equal(c.b, [3, 2, 4])
    bits = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], bool)
    np.testing.assert_array_equal(PyEvaluator(c).forward_bits(bits)[:, 0], [0, 1, 1, 0])
