"""``wirelab logic compile | verify | synth`` on a run directory, in-process (`tests.clirun`),
and the back-end and synthesis-target registries: a toy entry of each runs through the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.clirun import one_line_error, wirelab
from tests.conftest import requires_mnist
from wirelab.logic.circuit.backends import BACKENDS, Backend, CompileOptions, Generated
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.synthetic import random_net
from wirelab.logic.circuit.targets import TARGETS, SynthTarget
from wirelab.logic.circuit.tools import have, write_text
from wirelab.logic.gates import NAMES
from wirelab.results import ResultDir


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


# ---- registries: one toy entry each, through the CLI ------------------------------------------
def _toy_generate(circuit: Circuit, out_dir: Path, options: CompileOptions) -> Generated:
    """One line per gate: ``node = NAME(a, b)``."""
    lines = [
        f"n{circuit.first_gate + i} = {NAMES[g]}({a}, {b})"
        for i, (g, a, b) in enumerate(zip(circuit.op, circuit.a, circuit.b, strict=True))
    ]
    path = write_text(out_dir / "gates.txt", "\n".join(lines) + "\n")
    return Generated([path], {"toy_lines": len(lines)}, f"toy: {path}")


@pytest.fixture
def toy_backend() -> Iterator[str]:
    BACKENDS.add("toy", Backend(generate=_toy_generate), "a text file of the gates")
    yield "toy"
    BACKENDS.remove("toy")


def test_a_registered_backend_runs_through_the_cli(tmp_path: Path, toy_backend: str) -> None:
    run = make_run(tmp_path / "run")
    p = wirelab("logic", "compile", run, "--backend", toy_backend, "--json")
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout)
    gates_txt = run / "toy" / "gates.txt"
    gates = gates_txt.read_text().splitlines()
    assert len(gates) == m["gates_simplified"] == m["toy_lines"] > 0
    assert m["backends"]["toy"] == {
        "files": ["toy/gates.txt"],
        "summary": f"toy: {run}/toy/gates.txt",
    }
    assert json.loads((run / "metrics.json").read_text())["toy_lines"] == len(gates)
    assert not (run / "c").exists() and not (run / "verilog").exists()
    assert "toy" in wirelab("logic", "compile", "--help").stdout


@pytest.mark.skipif(not have("yosys"), reason="needs yosys")
@pytest.mark.hardware
def test_a_registered_synthesis_target_runs_through_the_cli(tmp_path: Path) -> None:
    lut4 = SynthTarget(
        device="generic 4-input LUT fabric",
        lut_inputs=4,
        device_luts=None,
        commands=lambda top: f"synth -top {top} -flatten\nabc -lut 4\nopt_clean\n",
        figures=lambda cells: (cells.get("$lut", 0), {"flip_flops": 0}),
    )
    TARGETS.add("toy-lut4", lut4, "generic 4-input LUTs")
    try:
        run = make_run(tmp_path / "run")
        p = wirelab("logic", "synth", run, "--target", "toy-lut4", "--json")
        assert p.returncode == 0, p.stderr
        res = json.loads(p.stdout)
        assert res["luts"] > 0 and res["lut_inputs"] == 4 and "fits" not in res
        assert json.loads((run / "synth.json").read_text())["toy-lut4"]["luts"] == res["luts"]
        assert json.loads((run / "metrics.json").read_text())["synth_toy_lut4_luts"] == res["luts"]
    finally:
        TARGETS.remove("toy-lut4")


def test_backends_with_an_evaluator_agree_with_the_python_reference(tmp_path: Path) -> None:
    c = Circuit.from_net(random_net([40, 20, 6], features=7, thermometer=2, num_classes=3))
    bits = np.random.default_rng(0).random((130, c.num_inputs)) < 0.5
    ref_bits, ref_counts = BACKENDS.get("python").evaluator(c, tmp_path)(bits)  # type: ignore[misc]
    checked = []
    for name in BACKENDS.names():
        backend = BACKENDS.get(name)
        if backend.evaluator is None:
            continue
        if backend.generate is not None:
            backend.generate(c, tmp_path / name, CompileOptions())
        out, counts = backend.evaluator(c, tmp_path / name)(bits)
        np.testing.assert_array_equal(out, ref_bits)
        np.testing.assert_array_equal(counts, ref_counts)
        checked.append(name)
    assert checked[:2] == ["python", "c"]


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
    for f in ("c/wl_model.h", f"c/{lib}", "verilog/wl_circuit.v", "verilog/wl_ref.v",
              "verilog/wl_circuit_pipe1.v", "circuit/circuit.json"):  # fmt: skip
        assert (run / f).is_file(), f
    assert not list(run.rglob("*.tmp")), "a temporary file was left behind"
    p = wirelab("logic", "verify", run, "--sim-vectors", "200", "--json")
    assert p.returncode == 0, p.stderr
    v = json.loads(p.stdout)
    assert v["verified"] and v["c"]["checked"] == v["test_images"] == 2115
    assert v["verilog"]["vectors"] == 200 and v["formal"]["ok"] is True
    assert json.loads((run / "verify" / "verify.json").read_text()) == v
    # A proof that runs out of time is recorded as not done, not as a failure.
    p = wirelab("logic", "verify", run, "--sim-vectors", "10", "--formal-timeout", "0.001",
                "--json")  # fmt: skip
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
