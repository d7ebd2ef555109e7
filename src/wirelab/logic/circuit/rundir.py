"""Compile, verify and synthesise the discrete model of a training run directory.

Layout added to ``RUN_DIR`` (which holds ``discrete.json`` from ``wirelab logic train``)::

    circuit/circuit.json   simplified circuit IR      circuit/passes.json  gate counts per pass
    <back end>/            each back end's files (`wirelab.logic.circuit.backends`)
    verify/                the checks' work directories; verify.json
    synth/<target>/        yosys logs; synth.json (all targets) in RUN_DIR

and ``metrics.json`` gains ``gates_simplified``, ``logic_depth``, the back ends' figures,
``verified`` with each back end's verified figures, and the synthesis figures.

Each step is one function here (`compile_run`, `verify_run`, `synth_run`), called by the CLI and
the tour. A step works on a *finished* training run, validates its arguments before it writes
anything, writes every file atomically, and writes its record last: the back ends' own marker
files (e.g. ``c/build.json``), then ``metrics.json``, then ``verify/verify.json`` or ``synth.json``.
The back ends come from `wirelab.logic.circuit.backends.BACKENDS`, the synthesis targets from
`wirelab.logic.circuit.targets.TARGETS`; the code here loops over them and names none.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import UsageError
from wirelab.logic.circuit.backends import (
    BACKENDS,
    CompileOptions,
    Generated,
    VerifyContext,
    VerifyOptions,
    checking_backends,
    generating_backends,
)
from wirelab.logic.circuit.backends.base import VerificationError, describe
from wirelab.logic.circuit.backends.verilog import generate_verilog
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.passes import PASSES, simplify
from wirelab.logic.circuit.pnr import pnr_classifier
from wirelab.logic.circuit.synth import synthesize
from wirelab.logic.circuit.targets import TARGETS, pnr_targets
from wirelab.logic.circuit.tools import script_word
from wirelab.logic.discrete import DiscreteLogicNet
from wirelab.plotting import pyplot
from wirelab.results import ResultDir, write_json

Progress = Callable[[str], None]


def _noop(msg: str) -> None:
    pass


def load_run(run_dir: str | Path) -> tuple[ResultDir, DiscreteLogicNet]:
    """The run directory and its discrete model; a `UsageError` unless training finished."""
    rd = ResultDir.open(run_dir)
    path = rd.path / "discrete.json"
    if not path.is_file():
        raise UsageError(
            f"{rd.path} has no discrete.json (train a model with 'wirelab logic train')"
        )
    if rd.status != "complete":
        raise UsageError(f"{rd.path} holds no finished training run (status: {rd.status})")
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


def resolve_backends(backends: str | Sequence[str], step: str = "compile") -> tuple[str, ...]:
    """Registered back-end names for ``step`` (``"compile"``: those that write files;
    ``"verify"``: those with a check), in registry order; ``"all"``: every one of them."""
    names = [backends] if isinstance(backends, str) else list(backends)
    usable = generating_backends() if step == "compile" else checking_backends()
    if not names or "all" in names:
        return usable
    for name in names:
        BACKENDS.get(name)  # a one-line UsageError naming the back ends
        if name not in usable:
            what = "writes nothing to compile" if step == "compile" else "has nothing to verify"
            raise UsageError(f"the {name} back end {what}")
    return tuple(n for n in usable if n in names)


def compile_run(
    run_dir: str | Path,
    backends: str | Sequence[str] = "all",
    *,
    pipeline: int = 0,
    word_bits: int = 64,
    lanes: int = 1,
    opt: str = "-O2",
    march_native: bool = False,
    log: Progress = _noop,
) -> dict[str, Any]:
    """Simplify the run's circuit and write each back end's files into ``RUN_DIR/<back end>``.

    Returns the figures added to ``metrics.json``, with the pass report (``passes``) and per
    back end its files and summary (``backends``)."""
    names = resolve_backends(backends)
    options = CompileOptions(
        pipeline=pipeline, word_bits=word_bits, lanes=lanes, opt=opt, march_native=march_native
    )
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
    options = dataclasses.replace(options, reference=raw)
    outputs: dict[str, Generated] = {}
    for name in names:
        generate = BACKENDS.get(name).generate
        assert generate is not None
        log(f"{name} back end ({simple.num_gates} gates) -> {rd.path / name}")
        outputs[name] = generate(simple, rd.path / name, options)
        metrics.update(outputs[name].metrics)
    rd.update_metrics(metrics)
    plot_passes(rd, report, raw, simple)
    metrics["passes"] = report
    metrics["backends"] = {
        name: {"files": [str(p.relative_to(rd.path)) for p in g.paths], "summary": g.summary}
        for name, g in outputs.items()
    }
    return metrics


def plot_passes(rd: ResultDir, report: list[dict[str, Any]], raw: Circuit, simple: Circuit) -> Path:
    """``passes.png``: gate count after each pass of the first round, and gates by type."""
    plt = pyplot()

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


def test_set(rd: ResultDir, net: DiscreteLogicNet) -> tuple[np.ndarray, np.ndarray]:
    """The run's test split, preprocessed as in training (pixel / 255 as float32)."""
    from wirelab.logic.datasets import load_task, parse_classes

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

    from wirelab.logic.checkpoint import load_model

    model = load_model(path).eval()  # weights_only load; a damaged file is one line

    def scores(x: np.ndarray) -> np.ndarray:
        shape = [int(v) for v in model.spec["input_shape"]]
        with torch.no_grad():
            xt = torch.from_numpy(np.asarray(x, dtype=np.float32).reshape(len(x), *shape))
            return model(xt, mode="hard").double().numpy()

    return scores


def verify_run(
    run_dir: str | Path,
    backends: str | Sequence[str] = "all",
    *,
    sim_vectors: int = 1000,
    formal_max_gates: int = 20000,
    formal_timeout: float = 600,
    pipeline: int = 0,
    log: Progress = _noop,
) -> dict[str, Any]:
    """Run the check (`Backend.check`) of each back end in ``backends`` (``"all"``: every one
    with a check) on the run's test split; write ``verified`` and each back end's verified
    figures (`Backend.verified`) to ``metrics.json``, then ``verify/verify.json``; raise
    `VerificationError` with the first mismatch if a check failed."""
    names = resolve_backends(backends, "verify")
    options = VerifyOptions(
        sim_vectors=sim_vectors,
        formal_max_gates=formal_max_gates,
        formal_timeout=formal_timeout,
        pipeline=pipeline,
    )
    rd, net = load_run(run_dir)
    raw, simple, _ = circuits_of(rd, net)
    record = rd.path / "verify" / "verify.json"
    record.unlink(missing_ok=True)  # no verdict of an earlier run beside this run's work files
    x, _ = test_set(rd, net)
    ctx = VerifyContext(rd.path, raw, simple, net, x, options, torch_scorer(rd), log)
    result: dict[str, Any] = {"test_images": len(x)}
    t0 = time.perf_counter()
    for name in names:
        check = BACKENDS.get(name).check
        assert check is not None
        result.update(check(ctx))
    result["seconds"] = round(time.perf_counter() - t0, 2)
    checks = [v for k, v in result.items() if isinstance(v, dict)]
    failed = [c for c in checks if c.get("ok") is False]
    result["verified"] = not failed
    figures: dict[str, Any] = {"verified": result["verified"]}
    for name in names:
        figures.update(BACKENDS.get(name).verified_metrics(result))
    rd.update_metrics(figures)
    write_json(record, result)
    if failed:
        raise VerificationError(describe(failed[0]["first_mismatch"]))
    return result


def synth_run(
    run_dir: str | Path,
    target: str,
    *,
    heads: bool = True,
    pnr: bool = False,
    clock_mhz: float = 12.0,
    pipeline: int = 0,
    log: Progress = _noop,
) -> dict[str, Any]:
    """Synthesise the simplified circuit for ``target`` (`TARGETS`); add its figures to
    ``metrics.json``, then its entry to ``synth.json``.

    ``pnr``: also place and route it (targets with `SynthTarget.place_and_route`: the iCE40
    UP5K, `wirelab.logic.circuit.pnr`) against a
    ``clock_mhz`` clock and write the bitstream; ``pipeline=K``: the module with a register rank
    every K logic levels and every K adder-tree levels (entry ``<target>-pipe<K>``)."""
    spec = TARGETS.get(target)  # a one-line UsageError naming the targets
    if pnr and not spec.place_and_route:
        raise UsageError(f"--pnr places and routes for --target {', '.join(pnr_targets())} only")
    if pnr and not heads:
        raise UsageError("--pnr needs the whole classifier (drop --no-heads)")
    if pipeline < 0 or not clock_mhz > 0:
        raise UsageError("--pipeline must be >= 0 and --clock > 0")
    rd, net = load_run(run_dir)
    name = target + ("" if heads else "-network-only") + (f"-pipe{pipeline}" if pipeline else "")
    work = rd.path / "synth" / name
    if pnr:
        script_word(work, "work directory")  # written into the yosys script of the shell
    _, simple, _ = circuits_of(rd, net)
    log(f"yosys {target} ({simple.num_gates} gates)")
    vm = generate_verilog(simple, heads=heads, pipeline=pipeline, head_pipeline=pipeline)
    res = synthesize(vm, target, work)
    res["heads"] = heads
    res["pipeline"] = pipeline
    key = name.replace("-", "_")
    figures = {f"synth_{key}_luts": res["luts"], f"synth_{key}_depth": res["depth_cells"]}
    if "fits" in res:
        figures[f"synth_{key}_fits"] = res["fits"]
    if pnr:
        log(f"nextpnr-ice40 + icepack ({clock_mhz:g} MHz) -> {work}")
        res["pnr"] = pnr_classifier(vm, simple.used_inputs(), work, clock_mhz=clock_mhz)
        p = res["pnr"]
        figures.update(
            {
                f"pnr_{key}_logic_cells": p["logic_cells"]["used"],
                f"pnr_{key}_fmax_mhz": p["fmax_mhz"],
                f"pnr_{key}_timing_met": p["timing_met"],
                f"pnr_{key}_images_per_s": p["images_per_s"],
            }
        )
    rd.update_metrics(figures)
    path = rd.path / "synth.json"
    allres = json.loads(path.read_text()) if path.is_file() else {}
    allres[name] = res
    write_json(path, allres)
    return res
