"""Compile, verify and synthesise the discrete model of a training run directory.

Layout added to ``RUN_DIR`` (which holds ``discrete.json`` from ``wirelab logic train``)::

    circuit/circuit.json   simplified circuit IR      circuit/passes.json  gate counts per pass
    c/                     wl_model.h, wl_model*.c, libwl_model_<hash>.so, build.json
    verilog/               wl_circuit.v (combinational), wl_circuit_pipe<K>.v, wl_ref.v
    verify/                simulation and proof work directories; verify.json
    synth/<target>/        yosys logs; synth.json (all targets) in RUN_DIR

and ``metrics.json`` gains ``gates_simplified``, ``logic_depth``, ``c_compile_seconds``,
``verified`` and the synthesis figures.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import UsageError
from wirelab.logic.circuit.c_build import CLibrary, build
from wirelab.logic.circuit.equivalence import (
    VerificationError,
    check_c,
    check_formal,
    check_verilog,
    describe,
)
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.passes import PASSES, simplify
from wirelab.logic.circuit.synth import TARGETS, synthesize
from wirelab.logic.circuit.tools import ToolError
from wirelab.logic.circuit.verilog_backend import generate_reference_verilog, generate_verilog
from wirelab.logic.discrete import DiscreteLogicNet
from wirelab.results import ResultDir, write_json

Progress = Callable[[str], None]


def _noop(msg: str) -> None:
    pass


def load_run(run_dir: str | Path) -> tuple[ResultDir, DiscreteLogicNet]:
    rd = ResultDir.open(run_dir)
    path = rd.path / "discrete.json"
    if not path.is_file():
        raise UsageError(
            f"{rd.path} has no discrete.json (train a model with 'wirelab logic train')"
        )
    return rd, DiscreteLogicNet.load(path)


def circuits_of(
    rd: ResultDir, net: DiscreteLogicNet
) -> tuple[Circuit, Circuit, list[dict[str, Any]]]:
    """(raw circuit, simplified circuit, pass report); the simplified one is cached on disk,
    keyed by the SHA-256 of ``discrete.json`` and the list of passes."""
    raw = Circuit.from_net(net)
    cached = rd.path / "circuit" / "circuit.json"
    report_path = rd.path / "circuit" / "passes.json"
    key = {
        "discrete_sha256": hashlib.sha256((rd.path / "discrete.json").read_bytes()).hexdigest(),
        "passes": list(PASSES),
    }
    if cached.is_file() and report_path.is_file():
        saved = json.loads(report_path.read_text())
        if saved.get("key") == key:
            return raw, Circuit.load(cached), saved["report"]
    simple, report = simplify(raw)
    simple.save(cached)
    write_json(report_path, {"key": key, "report": report})
    return raw, simple, report


def compile_run(
    run_dir: str | Path,
    target: str = "all",
    *,
    pipeline: int = 0,
    word_bits: int = 64,
    lanes: int = 1,
    opt: str = "-O2",
    march_native: bool = False,
    log: Progress = _noop,
) -> dict[str, Any]:
    if target not in ("c", "verilog", "all"):
        raise UsageError(f"--target must be c, verilog or all, got {target!r}")
    if pipeline < 0:
        raise UsageError("--pipeline must be >= 0")
    rd, net = load_run(run_dir)
    log("simplifying the circuit")
    raw, simple, report = circuits_of(rd, net)
    metrics: dict[str, Any] = {
        "gates_raw": raw.num_gates,
        "gates_simplified": simple.num_gates,
        "logic_depth": simple.depth,
        "logic_depth_raw": raw.depth,
        "inputs_used": int(simple.used_inputs().size),
        "gates_simplified_by_type": simple.gates_by_type(),
    }
    if target in ("c", "all"):
        log(f"compiling C ({simple.num_gates} gates, {opt})")
        flags = ("-march=native",) if march_native else ()
        _, built = build(simple, rd.path / "c", word_bits=word_bits, lanes=lanes, opt=opt,
                         extra_flags=flags)  # fmt: skip
        metrics.update(
            c_compile_seconds=round(built.seconds, 3),
            c_compile_cpu_seconds=round(built.cpu_seconds, 3),
            c_flags=" ".join(built.flags),
            c_word_bits=word_bits * lanes,
        )
        write_json(rd.path / "c" / "build.json", {"word_bits": word_bits, "lanes": lanes,
                   "opt": opt, "flags": list(built.flags), "seconds": built.seconds,
                   "library": built.library.name})  # fmt: skip
    if target in ("verilog", "all"):
        log("writing Verilog")
        vdir = rd.path / "verilog"
        vdir.mkdir(parents=True, exist_ok=True)
        (vdir / "wl_circuit.v").write_text(generate_verilog(simple).text)
        (vdir / "wl_ref.v").write_text(generate_reference_verilog(raw).text)
        if pipeline:
            vm = generate_verilog(simple, module=f"wl_circuit_pipe{pipeline}", pipeline=pipeline)
            (vdir / f"{vm.module}.v").write_text(vm.text)
            metrics["verilog_pipeline_latency"] = vm.latency
    rd.update_metrics(metrics)
    plot_passes(rd, report, raw, simple)
    metrics["passes"] = report
    return metrics


def plot_passes(rd: ResultDir, report: list[dict[str, Any]], raw: Circuit, simple: Circuit) -> Path:
    """``passes.png``: gate count after each pass of the first round, and gates by type."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.2))
    first = [r for r in report if r["round"] == 1]
    labels = ["network"] + [r["pass"].replace("_", "\n") for r in first] + ["final"]
    values = [raw.num_gates] + [r["gates_after"] for r in first] + [simple.num_gates]
    ax1.bar(range(len(values)), values, color="tab:blue")
    ax1.set_xticks(range(len(values)), labels, fontsize=7)
    ax1.set_ylabel("gates")
    ax1.set_title(f"simplification: {raw.num_gates} -> {simple.num_gates} gates", fontsize=9)
    before, after = raw.gates_by_type(), simple.gates_by_type()
    names = sorted(set(before) | set(after), key=lambda n: -before.get(n, 0))
    xs = np.arange(len(names))
    ax2.bar(xs - 0.2, [before.get(n, 0) for n in names], 0.4, label="network")
    ax2.bar(xs + 0.2, [after.get(n, 0) for n in names], 0.4, label="simplified")
    ax2.set_xticks(xs, names, rotation=70, fontsize=6)
    ax2.legend(fontsize=7)
    ax2.set_title("gates by type", fontsize=9)
    return rd.save_figure(fig, "passes")


def load_library(rd: ResultDir, simple: Circuit) -> CLibrary:
    from wirelab.logic.circuit.c_backend import generate_c

    info_path = rd.path / "c" / "build.json"
    info = json.loads(info_path.read_text()) if info_path.is_file() else {}
    lib_path = rd.path / "c" / str(info.get("library", "-"))
    if not lib_path.is_file():
        raise UsageError(f"{rd.path} has no compiled C library; run 'wirelab logic compile' first")
    src = generate_c(simple, word_bits=info["word_bits"], lanes=info["lanes"])
    feats = simple.thresholds.shape[0] if simple.thresholds.size else simple.num_inputs
    return CLibrary(lib_path, src, num_inputs=simple.num_inputs, num_outputs=simple.num_outputs,
                    num_classes=simple.num_classes, num_features=feats)  # fmt: skip


def test_set(rd: ResultDir, net: DiscreteLogicNet) -> tuple[np.ndarray, np.ndarray]:
    """The run's test split, preprocessed as in training (pixel / 255 as float32)."""
    from wirelab.logic.data import load_task, parse_classes

    cfg = rd.config.get("config", {})
    dataset = net.meta.get("dataset") or cfg.get("dataset")
    classes = net.meta.get("classes") or cfg.get("classes")
    if dataset is None or classes is None:
        raise UsageError(
            f"{rd.path}: cannot tell which dataset and classes the model was trained on"
        )
    data = load_task(str(dataset), parse_classes(classes, str(dataset)))
    return data.test.x.reshape(len(data.test.x), -1), data.test.y


def torch_scorer(rd: ResultDir) -> Callable[[np.ndarray], np.ndarray] | None:
    """Class scores of the PyTorch model in ``hard`` (discrete) mode, if the run saved one."""
    path = rd.path / "model.pt"
    if not path.is_file():
        return None
    import torch

    from wirelab.logic.model import LogicNet

    state = torch.load(path, map_location="cpu", weights_only=False)
    model = LogicNet(state["spec"])
    model.load_state_dict(state["state_dict"])
    model.eval()

    def scores(x: np.ndarray) -> np.ndarray:
        shape = [int(v) for v in model.spec["input_shape"]]
        with torch.no_grad():
            xt = torch.from_numpy(np.asarray(x, dtype=np.float32).reshape(len(x), *shape))
            return model(xt, mode="hard").double().numpy()

    return scores


def verify_run(
    run_dir: str | Path,
    *,
    sim_vectors: int = 1000,
    formal_max_gates: int = 20000,
    formal_timeout: float = 600,
    pipeline: int = 0,
    log: Progress = _noop,
) -> dict[str, Any]:
    rd, net = load_run(run_dir)
    raw, simple, _ = circuits_of(rd, net)
    lib = load_library(rd, simple)
    x, _ = test_set(rd, net)
    result: dict[str, Any] = {"test_images": len(x)}
    t0 = time.perf_counter()
    log(f"C library vs the discrete model on {len(x)} test images")
    result["c"] = check_c(lib, net, x, torch_scores=torch_scorer(rd))
    n_sim = min(sim_vectors, len(x))
    log(f"Icarus Verilog simulation on {n_sim} test images")
    result["verilog"] = check_verilog(simple, net, x[:n_sim], rd.path / "verify" / "sim")
    if pipeline:
        log(f"Icarus Verilog simulation, pipeline every {pipeline} levels")
        result["verilog_pipelined"] = check_verilog(
            simple, net, x[:n_sim], rd.path / "verify" / f"sim_pipe{pipeline}", pipeline=pipeline
        )
    if raw.num_gates <= formal_max_gates:
        log(f"formal equivalence with yosys ({raw.num_gates} gates)")
        try:
            result["formal"] = check_formal(raw, simple, rd.path / "verify" / "formal",
                                            timeout=formal_timeout)  # fmt: skip
        except ToolError as exc:
            if "timed out" not in str(exc):
                raise
            result["formal"] = {"ok": None, "skipped": f"proof timed out ({formal_timeout:.0f} s)"}
    else:
        result["formal"] = {"ok": None, "skipped": f"{raw.num_gates} gates > {formal_max_gates}"}
    result["seconds"] = round(time.perf_counter() - t0, 2)
    checks = [v for k, v in result.items() if isinstance(v, dict)]
    failed = [c for c in checks if c.get("ok") is False]
    result["verified"] = not failed
    write_json(rd.path / "verify" / "verify.json", result)
    rd.update_metrics({
        "verified": result["verified"],
        "verified_c_images": result["c"].get("checked"),
        "verified_c_reference": result["c"].get("reference"),
        "verified_verilog_images": result["verilog"].get("vectors"),
        "verified_formal": result["formal"].get("ok"),
        "verified_formal_scope": result["formal"].get("scope") or result["formal"].get("skipped"),
    })  # fmt: skip
    if failed:
        raise VerificationError(describe(failed[0]["first_mismatch"]))
    return result


def synth_run(
    run_dir: str | Path, target: str, *, heads: bool = True, log: Progress = _noop
) -> dict[str, Any]:
    if target not in TARGETS:
        raise UsageError(f"unknown --target {target!r}; use one of {', '.join(TARGETS)}")
    rd, net = load_run(run_dir)
    _, simple, _ = circuits_of(rd, net)
    log(f"yosys {target} ({simple.num_gates} gates)")
    vm = generate_verilog(simple, heads=heads)
    res = synthesize(vm, target, rd.path / "synth" / target)
    res["heads"] = heads
    path = rd.path / "synth.json"
    allres = json.loads(path.read_text()) if path.is_file() else {}
    allres[target if heads else f"{target}-network-only"] = res
    write_json(path, allres)
    key = target.replace("-", "_") + ("" if heads else "_network_only")
    figures = {f"synth_{key}_luts": res["luts"], f"synth_{key}_depth": res["depth_cells"]}
    if "fits" in res:
        figures[f"synth_{key}_fits"] = res["fits"]
    rd.update_metrics(figures)
    return res
