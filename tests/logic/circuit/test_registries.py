"""The back-end and synthesis-target registries: a toy entry of each, registered in one line, runs
through ``wirelab logic compile | verify | synth`` (`tests.clirun`); the built-in back ends'
verified figures; paths that a yosys script would read as commands are refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.clirun import one_line_error, wirelab
from tests.logic.circuit.runs import make_run
from wirelab.errors import UsageError
from wirelab.logic.circuit.backends import (
    BACKENDS,
    Backend,
    CompileOptions,
    Generated,
    VerifiedFigure,
    VerifyContext,
    verification_figures,
    verification_keys,
)
from wirelab.logic.circuit.backends.base import first_difference
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.pnr import synth_ice40_json
from wirelab.logic.circuit.synthetic import random_net
from wirelab.logic.circuit.targets import TARGETS, SynthTarget
from wirelab.logic.circuit.tools import have, write_text
from wirelab.logic.gates import NAMES


# ---- a toy back end: one text line per gate, checked by reading them back --------------------
def _gate_lines(circuit: Circuit) -> list[str]:
    ops, as_, bs = circuit.op.tolist(), circuit.a.tolist(), circuit.b.tolist()
    return [
        f"n{circuit.first_gate + i} = {NAMES[g]}({a}, {b})"
        for i, (g, a, b) in enumerate(zip(ops, as_, bs, strict=True))
    ]


def _toy_generate(circuit: Circuit, out_dir: Path, options: CompileOptions) -> Generated:
    """``gates.txt``: one line per gate, ``node = NAME(a, b)``."""
    lines = _gate_lines(circuit)
    path = write_text(out_dir / "gates.txt", "\n".join(lines) + "\n")
    return Generated([path], {"toy_lines": len(lines)}, f"toy: {path}")


def _toy_check(ctx: VerifyContext) -> dict[str, dict[str, Any]]:
    """``gates.txt`` against the simplified circuit, line by line."""
    got = (ctx.run_dir / "toy" / "gates.txt").read_text().splitlines()
    want = _gate_lines(ctx.circuit)
    if got != want:
        i = next((k for k, (p, q) in enumerate(zip(got, want, strict=False)) if p != q), 0)
        first = first_difference("toy gate lines", i, np.array([len(got)]), np.array([len(want)]))
        return {"toy": {"ok": False, "lines": len(got), "first_mismatch": first}}
    return {"toy": {"ok": True, "lines": len(got)}}


TOY = Backend(
    generate=_toy_generate,
    check=_toy_check,
    verified=(VerifiedFigure("verified_toy_lines", "toy", ("lines",), "toy lines checked"),),
    summary=lambda r: [f"toy: {r['toy']['lines']} gate lines agree"] if "toy" in r else [],
)


@pytest.fixture
def toy_backend() -> Iterator[str]:
    BACKENDS.add("toy", TOY, "a text file of the gates")
    yield "toy"
    BACKENDS.remove("toy")


def test_a_registered_backend_runs_through_compile(tmp_path: Path, toy_backend: str) -> None:
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


def test_a_registered_backend_runs_through_verify(tmp_path: Path, toy_backend: str) -> None:
    """The toy back end's check, verified figure and summary line, on the digits test split;
    then a broken ``gates.txt`` fails verification with its first mismatch."""
    run = make_run(tmp_path / "run", dataset="digits")
    assert wirelab("logic", "compile", run, "--backend", toy_backend).returncode == 0
    assert "verified_toy_lines" in verification_keys()
    assert "toy lines checked" in [f.label for f in verification_figures()]
    p = wirelab("logic", "verify", run, "--backend", toy_backend)
    assert p.returncode == 0, p.stderr
    n = len((run / "toy" / "gates.txt").read_text().splitlines())
    assert p.stdout.splitlines() == [f"toy: {n} gate lines agree", "verified: true"]
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["verified"] is True and metrics["verified_toy_lines"] == n
    assert "verified_c_images" not in metrics  # only the chosen back end's figures
    record = json.loads((run / "verify" / "verify.json").read_text())
    assert record["toy"] == {"ok": True, "lines": n} and record["verified"] is True

    (run / "toy" / "gates.txt").write_text("n0 = FALSE(0, 0)\n")
    p = wirelab("logic", "verify", run, "--backend", toy_backend)
    assert p.returncode == 1 and one_line_error(p)
    assert "toy gate lines differs on test input 0" in p.stderr
    assert json.loads((run / "metrics.json").read_text())["verified"] is False


def test_verify_refuses_a_backend_without_a_check(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", dataset="digits")
    p = wirelab("logic", "verify", run, "--backend", "python")
    assert p.returncode == 2 and one_line_error(p)
    assert "has nothing to verify" in p.stderr
    assert sorted(f.name for f in run.iterdir()) == ["config.json", "discrete.json", "metrics.json"]


def test_the_built_in_backends_write_the_verified_figures_of_before() -> None:
    """The ``metrics.json`` keys of ``wirelab logic verify``, in order, and the report's rows."""
    assert verification_keys() == (
        "verified_c_images",
        "verified_c_reference",
        "verified_verilog_images",
        "verified_formal",
        "verified_formal_scope",
    )
    rows = [(f.key, f.label) for f in verification_figures() if f.label]
    assert rows == [
        ("verified_c_images", "C library checked on (images)"),
        ("verified_verilog_images", "Icarus Verilog checked on (images)"),
        ("verified_formal", "formal proof"),
    ]
    formal = BACKENDS.get("verilog").verified[2]
    assert formal.read({"formal": {"ok": None, "skipped": "too big"}}) == "too big"
    assert formal.read({"formal": {"ok": True, "scope": "y"}}) == "y"
    assert formal.read({}) is None


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


# ---- a toy synthesis target ------------------------------------------------------------------
TOY_LUT4 = SynthTarget(
    device="generic 4-input LUT fabric",
    lut_inputs=4,
    device_luts=None,
    commands=lambda top: f"synth -top {top} -flatten\nabc -lut 4\nopt_clean\n",
    figures=lambda cells: (cells.get("$lut", 0), {"flip_flops": 0}),
)


@pytest.fixture
def toy_target() -> Iterator[str]:
    TARGETS.add("toy-lut4", TOY_LUT4, "generic 4-input LUTs")
    yield "toy-lut4"
    TARGETS.remove("toy-lut4")


def test_a_registered_synthesis_target_is_offered(tmp_path: Path, toy_target: str) -> None:
    """Without yosys: the target is a choice, and ``--pnr`` names the targets that can."""
    assert toy_target in wirelab("logic", "synth", "--help").stdout
    run = make_run(tmp_path / "run")
    p = wirelab("logic", "synth", run, "--target", toy_target, "--pnr")
    assert p.returncode == 2 and one_line_error(p)
    assert "--pnr places and routes for --target ice40-up5k only" in p.stderr


@pytest.mark.skipif(not have("yosys"), reason="needs yosys")
@pytest.mark.hardware
def test_a_registered_synthesis_target_runs_through_the_cli(
    tmp_path: Path, toy_target: str
) -> None:
    run = make_run(tmp_path / "run")
    p = wirelab("logic", "synth", run, "--target", toy_target, "--json")
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    assert res["luts"] > 0 and res["lut_inputs"] == 4 and "fits" not in res
    assert json.loads((run / "synth.json").read_text())["toy-lut4"]["luts"] == res["luts"]
    assert json.loads((run / "metrics.json").read_text())["synth_toy_lut4_luts"] == res["luts"]


# ---- paths written into yosys scripts --------------------------------------------------------
@pytest.mark.parametrize("name", ["a;b", "a\nb", "a b", "a#b"])
def test_a_path_a_yosys_script_would_misread_is_refused(tmp_path: Path, name: str) -> None:
    src = tmp_path / name / "wl_top.v"
    src.parent.mkdir()
    src.write_text("module wl_top; endmodule\n")
    with pytest.raises(UsageError, match=r"cannot write the path .* into a yosys script"):
        synth_ice40_json([src], "wl_top", tmp_path)
    with pytest.raises(UsageError, match="define"):
        synth_ice40_json([tmp_path / "ok.v"], "wl_top", tmp_path, defines=("X;Y",))
    assert not list(tmp_path.glob("*.ys"))


def test_synth_pnr_refuses_a_run_directory_with_a_semicolon(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run;echo")
    p = wirelab("logic", "synth", run, "--pnr")
    assert p.returncode == 2 and one_line_error(p)
    assert "yosys script" in p.stderr
    assert sorted(f.name for f in run.iterdir()) == ["config.json", "discrete.json", "metrics.json"]
