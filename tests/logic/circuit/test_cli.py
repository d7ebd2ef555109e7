"""``wirelab logic compile | verify | synth`` on a run directory, in-process (`tests.clirun`):
refusals before anything is written, and the three steps end to end (the registries' toy
entries: `tests.logic.circuit.test_registries`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.clirun import one_line_error, wirelab
from tests.conftest import requires_mnist
from tests.logic.circuit.runs import make_run
from wirelab.logic.circuit.tools import have
from wirelab.results import ResultDir


def test_missing_model_is_a_usage_error(tmp_path: Path) -> None:
    ResultDir.create(tmp_path / "r", command="test", config={})
    p = wirelab("logic", "compile", tmp_path / "r")
    assert p.returncode == 2 and one_line_error(p)
    assert "no discrete.json" in p.stderr
    p = wirelab("logic", "synth", tmp_path / "r", "--target", "xc7")
    assert p.returncode == 2 and "ice40-up5k" in p.stderr
    p = wirelab("logic", "compile", tmp_path / "r", "--backend", "vhdl")
    assert p.returncode == 2 and "verilog" in p.stderr


def test_an_unfinished_training_run_is_refused(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    (run / ".in-progress").write_text("{}")
    p = wirelab("logic", "compile", run, "--backend", "verilog")
    assert p.returncode == 2 and one_line_error(p)
    assert "in progress" in p.stderr
    assert not (run / "verilog").exists() and not (run / "circuit").exists()


def test_bad_options_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    for args in (["--lanes", "3"], ["--pipeline", "-1"], ["--backend", "python"]):
        p = wirelab("logic", "compile", run, *args)
        assert p.returncode == 2 and one_line_error(p), args
    p = wirelab("logic", "verify", run, "--sim-vectors", "0")
    assert p.returncode == 2 and one_line_error(p)
    assert sorted(f.name for f in run.iterdir()) == ["config.json", "discrete.json", "metrics.json"]


# ---- the three steps end to end --------------------------------------------------------------
@requires_mnist
@pytest.mark.skipif(not have("yosys", "iverilog", "vvp"), reason="needs yosys and iverilog")
@pytest.mark.hardware
def test_compile_verify_synth_and_a_detected_mismatch(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    p = wirelab("logic", "compile", run, "--target", "all", "--pipeline", "1", "--json")
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout)
    assert m["gates_raw"] == 72 and m["gates_simplified"] <= 72
    lib = json.loads((run / "c" / "build.json").read_text())["library"]
    for f in (
        "c/wl_model.h",
        f"c/{lib}",
        "verilog/wl_circuit.v",
        "verilog/wl_ref.v",
        "verilog/wl_circuit_pipe1.v",
        "circuit/circuit.json",
    ):
        assert (run / f).is_file(), f
    assert not list(run.rglob("*.tmp")), "a temporary file was left behind"
    p = wirelab("logic", "verify", run, "--sim-vectors", "200", "--json")
    assert p.returncode == 0, p.stderr
    v = json.loads(p.stdout)
    assert v["verified"] and v["c"]["checked"] == v["test_images"] == 2115
    assert v["verilog"]["vectors"] == 200 and v["formal"]["ok"] is True
    assert json.loads((run / "verify" / "verify.json").read_text()) == v
    # A proof that runs out of time is recorded as not done, not as a failure.
    p = wirelab(
        "logic", "verify", run, "--sim-vectors", "10", "--formal-timeout", "0.001", "--json"
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["formal"] == {"ok": None, "skipped": "proof timed out (0 s)"}
    p = wirelab("logic", "synth", run, "--target", "ice40-up5k", "--json")
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
    assert wirelab("logic", "compile", run, "--backend", "c").returncode == 0
    p = wirelab("logic", "verify", run, "--sim-vectors", "50")
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "differs on test input" in p.stderr.splitlines()[-1]
    assert json.loads((run / "metrics.json").read_text())["verified"] is False
    assert json.loads((run / "verify" / "verify.json").read_text())["verified"] is False
