"""examples/03_logic_to_c_verilog_up5k.py at its CI size: a tiny MNIST 0-vs-1 logic net trained,
discretised, compiled to C and Verilog, checked, and placed and routed on the iCE40 UP5K."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import requires_mnist
from tests.examples import run_example
from wirelab.logic.circuit.tools import have

REPO = Path(__file__).resolve().parents[2]
SCRIPT = "examples/03_logic_to_c_verilog_up5k.py"


@requires_mnist
def test_example_03_goes_from_training_to_a_bitstream(tmp_path: Path) -> None:
    r = run_example(SCRIPT, "--small", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout
    acc = re.search(r"relaxed ([\d.]+), discrete ([\d.]+)", out)
    assert acc and 0.9 < float(acc[2]) <= 1.0  # 0 vs 1 is easy even for 120 gates
    gates = re.search(r"gates: (\d+) in the network, (\d+) after simplification", out)
    assert gates and int(gates[1]) == 120 and 0 < int(gates[2]) <= 120
    assert re.search(r"C library equal to the network on \d+ test images: True", out)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["accuracy_discrete"] == pytest.approx(float(acc[2]), abs=5e-5)
    assert summary["verified"] is True
    assert (tmp_path / "run" / "discrete.json").is_file()
    assert (tmp_path / "run" / "verilog" / "wl_circuit.v").is_file()
    if not have("yosys", "nextpnr-ice40", "icepack", "iverilog", "vvp"):
        assert "UP5K step skipped" in out
        return
    assert "yosys proof, simplified circuit == trained network: True" in out
    fpga = re.search(r"UP5K: (\d+) of 5280 logic cells, Fmax ([\d.]+) MHz", out)
    assert fpga and 0 < int(fpga[1]) <= 5280 and float(fpga[2]) > 12
    assert re.search(r"routed netlist in Icarus: (\d+) of \1 classes equal", out)
    assert summary["logic_cells"] == int(fpga[1])
    assert (tmp_path / "up5k" / "pnr" / "wl_seq_top.bin").stat().st_size == summary[
        "bitstream_bytes"
    ]
