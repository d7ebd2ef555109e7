"""Verilog back end with Icarus Verilog, formal equivalence and synthesis with yosys."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.logic.circuit.conftest import all_input_bits, circuits, reference_outputs
from wirelab.logic.circuit.backends.verilog import (
    SimResult,
    generate_reference_verilog,
    generate_verilog,
    prove_equivalent,
    simulate,
)
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.passes import simplify
from wirelab.logic.circuit.synth import synthesize
from wirelab.logic.circuit.synthetic import random_net
from wirelab.logic.circuit.tools import have

needs_iverilog = pytest.mark.skipif(
    not have("iverilog", "vvp"), reason="Icarus Verilog not found: apt-get install iverilog"
)
needs_yosys = pytest.mark.skipif(not have("yosys"), reason="yosys not found: apt-get install yosys")
pytestmark = pytest.mark.hardware


def sim(c: Circuit, bits: np.ndarray, work: Path, pipeline: int = 0) -> SimResult:
    y = reference_outputs(c, bits)
    return simulate(generate_verilog(c, pipeline=pipeline), bits, y, c.counts_from_bits(y), work)


@needs_iverilog
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(circuits(), st.integers(0, 3), st.integers(1, 70))
def test_verilog_agrees_with_reference_on_random_circuits(
    tmp_path: Path, c: Circuit, pipeline: int, batch: int
) -> None:
    bits = np.random.default_rng(batch).random((batch, c.num_inputs)) < 0.5
    res = sim(c, bits, tmp_path / f"p{pipeline}_{batch}", pipeline)
    assert res.ok, res.first_mismatch


@needs_iverilog
def test_pipelined_module_has_the_expected_latency(tmp_path: Path) -> None:
    net = random_net(
        [30, 30, 30, 30, 12],
        features=10,
        num_classes=3,
        seed=2,
        gate_probs=[0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 0],
    )
    c, _ = simplify(Circuit.from_net(net))
    bits = np.random.default_rng(0).random((100, c.num_inputs)) < 0.5
    for k in (1, 2):
        vm = generate_verilog(c, pipeline=k)
        assert vm.latency == (c.depth - 1) // k
        assert sim(c, bits, tmp_path / str(k), k).ok
    # the reference netlist simulates to the same outputs
    y = reference_outputs(c, bits)
    ref = generate_reference_verilog(c, module="wl_ref")
    assert simulate(ref, bits, y, c.counts_from_bits(y), tmp_path / "ref").ok


@needs_iverilog
def test_simulation_reports_the_first_mismatch(tmp_path: Path) -> None:
    c = Circuit.from_net(random_net([20, 8], features=6, num_classes=2, seed=4))
    bits = all_input_bits(6)
    y = reference_outputs(c, bits)
    wrong = y.copy()
    wrong[9, 5] ^= True
    wrong[20, 1] ^= True
    res = simulate(generate_verilog(c), bits, wrong, c.counts_from_bits(y), tmp_path)
    assert not res.ok and res.errors == 2
    assert res.first_mismatch is not None
    assert res.first_mismatch["vector"] == 9 and res.first_mismatch["differing_output_bits"] == [5]


@needs_yosys
def test_formal_proof_and_counterexample(tmp_path: Path) -> None:
    net = random_net([40, 30, 10], features=8, num_classes=2, seed=7)
    raw = Circuit.from_net(net)
    simple, _ = simplify(raw)
    for heads in (False, True):
        ref = generate_reference_verilog(raw, heads=heads)
        ok = prove_equivalent(ref, generate_verilog(simple, heads=heads), tmp_path / f"h{heads}")
        assert ok.equivalent
    # Break one output gate: the proof must fail with an input that shows the difference.
    broken = simple.replace(op=simple.op.copy())
    live_out = int(broken.outputs[broken.outputs >= broken.first_gate][0]) - broken.first_gate
    broken.op[live_out] ^= 0b1111  # the complementary function
    bad = prove_equivalent(
        generate_reference_verilog(raw, heads=False),
        generate_verilog(broken, heads=False),
        tmp_path / "bad",
    )
    assert not bad.equivalent and bad.counterexample is not None
    x = bad.counterexample["in_x"]
    bits = np.array([[c == "1" for c in reversed(x)]])
    assert (reference_outputs(raw, bits) != reference_outputs(broken, bits)).any()


@needs_yosys
@pytest.mark.parametrize("target", ["ice40-up5k", "lut6"])
def test_synthesis_reports_luts_and_fit(tmp_path: Path, target: str) -> None:
    c, _ = simplify(Circuit.from_net(random_net([24, 12], features=8, num_classes=2, seed=1)))
    res = synthesize(generate_verilog(c), target, tmp_path)
    assert res["luts"] > 0 and res["depth_cells"] >= 1
    assert (tmp_path / "synth.json").is_file()
    if target == "ice40-up5k":
        assert res["fits"] is True and res["device_luts"] == 5280
