"""Tour step: a small MNIST 0-vs-1 logic gate network, then (when the circuit tools are present)
its C library, Verilog, equivalence checks and an iCE40 UltraPlus synthesis.

Quick mode trains a 400-gate net on 6,000 images for 3 epochs and checks the C library and 64
Icarus-simulated images; the default mode trains the 972-gate recipe model for 6 epochs and adds
the formal proof (yosys) and ``synth_ice40``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from wirelab.errors import MissingDataError, SkipStep


def run(out: Path, quick: bool = False) -> dict[str, Any]:
    from wirelab.logic.circuit.rundir import compile_run, synth_run, verify_run
    from wirelab.logic.circuit.targets import DEFAULT_TARGET
    from wirelab.logic.train import TrainConfig
    from wirelab.logic.train import run as train

    cfg = TrainConfig(
        dataset="mnist",
        classes="0,1",
        epochs=3 if quick else 6,
        batch_size=64,
        lr=0.01,
        patience=10,
        seed=0,
        threads=1,
        max_train=6000 if quick else None,
        model={
            "binarize": "fixed",
            "threshold": 0.5,
            "dense": [200, 200] if quick else [486, 486],
            "init": "gaussian",
            "tau": 5.0,
            "connections": "unique",
        },
    )
    run_dir = out / "mnist01"
    try:
        m = train(cfg, run_dir, overwrite=True, quiet=True)
    except MissingDataError as exc:
        raise SkipStep(f"MNIST not available ({exc}); run 'wirelab data fetch mnist'") from None
    summary: dict[str, Any] = {
        "gates": m["gates"],
        "acc_soft": round(m["accuracy_soft"], 4),
        "acc_discrete": round(m["accuracy_discrete"], 4),
        "train_s": round(m["train_seconds"], 1),
    }
    if not (shutil.which("cc") or shutil.which("gcc")) or not shutil.which("iverilog"):
        summary["circuit"] = "skipped: install a C compiler and iverilog (apt-get install iverilog)"
        return summary
    c = compile_run(run_dir, "all")
    summary["gates_simplified"] = c["gates_simplified"]
    summary["depth"] = c["logic_depth"]
    v = verify_run(
        run_dir,
        sim_vectors=64 if quick else 1000,
        formal_max_gates=0 if quick else 20000,
        formal_timeout=300,
    )
    summary["verified"] = v["verified"]
    if not quick and shutil.which("yosys"):
        s = synth_run(run_dir, DEFAULT_TARGET)
        summary["ice40_lut4"] = s["luts"]
        summary["fits_up5k"] = s.get("fits")
    return summary
