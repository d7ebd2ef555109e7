"""``wirelab logic compile | verify | synth`` on a run directory, through a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import requires_mnist
from wirelab.logic.circuit.synthetic import random_net
from wirelab.logic.circuit.tools import have
from wirelab.results import ResultDir


def wirelab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wirelab.cli", "logic", *args], capture_output=True, text=True
    )


def make_run(path: Path) -> Path:
    """A run directory holding an (untrained, random) MNIST 0-vs-1 discrete net."""
    net = random_net([48, 24], features=784, num_classes=2, tau=2.0, seed=3)
    net = type(net)(np.full((784, 1), 0.5), net.layers, 2, 2.0, {"dataset": "mnist",
                    "classes": [0, 1]})  # fmt: skip
    rd = ResultDir.create(path, command="test", config={"dataset": "mnist", "classes": "0,1"})
    net.save(rd.path / "discrete.json")
    rd.write_metrics({"gates": net.gates})
    return rd.path


def test_missing_model_is_a_usage_error(tmp_path: Path) -> None:
    ResultDir.create(tmp_path / "r", command="test", config={})
    p = wirelab("compile", str(tmp_path / "r"))
    assert p.returncode == 2
    assert "no discrete.json" in p.stderr and "Traceback" not in p.stderr
    p = wirelab("synth", str(tmp_path / "r"), "--target", "xc7")
    assert p.returncode == 2


@requires_mnist
@pytest.mark.skipif(not have("yosys", "iverilog", "vvp"), reason="needs yosys and iverilog")
@pytest.mark.hardware
def test_compile_verify_synth_and_a_detected_mismatch(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    p = wirelab("compile", str(run), "--target", "all", "--pipeline", "1", "--json")
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout)
    assert m["gates_raw"] == 72 and m["gates_simplified"] <= 72
    lib = json.loads((run / "c" / "build.json").read_text())["library"]
    for f in ("c/wl_model.h", f"c/{lib}", "verilog/wl_circuit.v", "verilog/wl_ref.v",
              "verilog/wl_circuit_pipe1.v", "circuit/circuit.json"):  # fmt: skip
        assert (run / f).is_file(), f
    p = wirelab("verify", str(run), "--sim-vectors", "200", "--json")
    assert p.returncode == 0, p.stderr
    v = json.loads(p.stdout)
    assert v["verified"] and v["c"]["checked"] == v["test_images"] == 2115
    assert v["verilog"]["vectors"] == 200 and v["formal"]["ok"] is True
    # A proof that runs out of time is recorded as not done, not as a failure.
    p = wirelab("verify", str(run), "--sim-vectors", "10", "--formal-timeout", "0.001", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["formal"] == {"ok": None, "skipped": "proof timed out (0 s)"}
    p = wirelab("synth", str(run), "--target", "ice40-up5k", "--json")
    assert p.returncode == 0, p.stderr
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["verified"] is True and metrics["synth_ice40_up5k_fits"] is True
    assert metrics["gates_simplified"] == m["gates_simplified"] and "c_compile_seconds" in metrics
    assert json.loads((run / "synth.json").read_text())["ice40-up5k"]["luts"] > 0

    # Break the compiled circuit (one gate's function) and recompile the C: verify must fail
    # with the first differing test image, and record verified = false.
    circ_path = run / "circuit" / "circuit.json"
    circ = json.loads(circ_path.read_text())
    last = len(circ["op"]) - 1
    circ["op"][last] = 15 - circ["op"][last]
    circ_path.write_text(json.dumps(circ))
    assert wirelab("compile", str(run), "--target", "c").returncode == 0
    p = wirelab("verify", str(run), "--sim-vectors", "50")
    assert p.returncode == 1
    assert "differs on test input" in p.stderr and "Traceback" not in p.stderr
    assert json.loads((run / "metrics.json").read_text())["verified"] is False
