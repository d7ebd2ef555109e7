"""The sequential GroupSum head (`wirelab.logic.fpga.seqhead`) against the combinational head,
both simulated in Icarus Verilog, and against numpy's argmax (ties to the lowest class)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.logic.circuit.conftest import circuits, reference_outputs
from wirelab.errors import UsageError
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.tools import have
from wirelab.logic.fpga.seqhead import HeadSpec, generate_sequential
from wirelab.logic.fpga.seqsim import simulate_heads

needs_iverilog = pytest.mark.skipif(
    not have("iverilog", "vvp"), reason="Icarus Verilog not found: apt-get install iverilog"
)
pytestmark = pytest.mark.hardware


def numpy_classes(c: Circuit, bits: np.ndarray) -> np.ndarray:
    counts = c.counts_from_bits(reference_outputs(c, bits))
    return np.argmax(counts, axis=1)


@needs_iverilog
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    circuits(max_inputs=8, max_gates=30),
    st.integers(1, 4),
    st.integers(1, 5),
    st.integers(0, 2),
    st.integers(1, 40),
)
def test_sequential_head_equals_the_combinational_one(
    tmp_path: Path, c: Circuit, p: int, k: int, r: int, batch: int
) -> None:
    bits = np.random.default_rng(batch).random((batch, c.num_inputs)) < 0.5
    sim = simulate_heads(c, HeadSpec(p, k, r), bits, tmp_path / f"{p}{k}{r}_{batch}")
    assert sim.equal, (sim.seq, sim.comb)
    assert np.array_equal(sim.seq, numpy_classes(c, bits))
    assert set(sim.cycles.tolist()) == {generate_sequential(c, HeadSpec(p, k, r)).cycles}


@needs_iverilog
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(circuits(max_inputs=8, max_gates=30), st.integers(1, 5), st.integers(1, 40))
def test_shift_head_equals_the_combinational_one(
    tmp_path: Path, c: Circuit, bits: int, batch: int
) -> None:
    spec = HeadSpec(kind="shift", bits=bits)
    x = np.random.default_rng(batch).random((batch, c.num_inputs)) < 0.5
    sim = simulate_heads(c, spec, x, tmp_path / f"shift{bits}_{batch}")
    assert sim.equal, (sim.seq, sim.comb)
    assert np.array_equal(sim.seq, numpy_classes(c, x))
    assert set(sim.cycles.tolist()) == {generate_sequential(c, spec).cycles}


def tie_circuit() -> Circuit:
    """3 classes of 2 outputs read straight from inputs: class k counts x[2k] + x[2k+1]."""
    return Circuit(
        num_inputs=6,
        op=np.zeros(0, np.uint8),
        a=np.zeros(0, np.int64),
        b=np.zeros(0, np.int64),
        outputs=np.arange(2, 8, dtype=np.int64),
        num_classes=3,
        thresholds=np.full((6, 1), 0.5),
    )


@needs_iverilog
@pytest.mark.parametrize(
    "spec",
    [HeadSpec(1, 1), HeadSpec(2, 2, 1), HeadSpec(3, 1), HeadSpec(kind="shift", bits=1)],
)
def test_ties_go_to_the_lowest_class(tmp_path: Path, spec: HeadSpec) -> None:
    c = tie_circuit()
    rows = [
        [0, 0, 0, 0, 0, 0],  # all 0: class 0
        [0, 0, 1, 0, 0, 1],  # 1 and 2 tie at 1: class 1
        [1, 1, 1, 1, 1, 1],  # all tie at 2: class 0
        [0, 1, 1, 1, 1, 1],  # 1 and 2 tie at 2 above class 0: class 1
        [0, 0, 0, 0, 1, 0],  # only class 2: class 2
    ]
    bits = np.array(rows, dtype=bool)
    sim = simulate_heads(c, spec, bits, tmp_path)
    assert sim.seq.tolist() == sim.comb.tolist() == [0, 1, 0, 1, 2]


def test_head_spec_refuses_bad_values_and_names_itself() -> None:
    with pytest.raises(UsageError):
        HeadSpec(0, 1)
    with pytest.raises(UsageError):
        HeadSpec(1, 1, -1)
    assert HeadSpec(2, 4, 1).name == "seq-p2-k4-r1"
    sm = generate_sequential(tie_circuit(), HeadSpec(2, 1))
    assert sm.steps == 2 and sm.cycles == sm.steps + sm.ranks + 2
