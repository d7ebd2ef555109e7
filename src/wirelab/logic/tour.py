"""Tour step: the MNIST 0-vs-1 logic circuit, trained, compiled, verified, placed and routed.

Trains the 0-vs-1 recipe (`RECIPE`, ``recipes/logic/mnist01.toml``: 500 gates in two layers of
250 on the centre 20 x 20 pixels, 3,000 Adam steps), then, where the tools are installed, writes
its C library and Verilog (`compile_run`), checks them against the discrete model (the C library
on every test image, Icarus on `SIM_VECTORS` images, the formal proof with yosys:
`verify_run`) and synthesises it for the iCE40 UltraPlus UP5K with place and route (yosys
``synth_ice40``, nextpnr-ice40 at 12 MHz, icepack: `synth_run`), which answers whether it fits
(placed logic cells of 5,280) and at what Fmax. A missing tool skips what needs it, saying which.
``quick`` only simulates fewer images in Icarus.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from wirelab.errors import MissingDataError, SkipStep
from wirelab.progress import progress_bar

RECIPE = "mnist01"  # the packaged recipe (recipes/logic/mnist01.toml), by name
SIM_VECTORS = {True: 200, False: 1000}  # test images simulated with Icarus (quick, full)
CIRCUIT_TOOLS = ("iverilog", "yosys")  # compile and verify; synthesis adds `PNR_TOOLS`
PNR_TOOLS = ("nextpnr-ice40", "icepack")


def _missing(tools: tuple[str, ...]) -> list[str]:
    have_cc = shutil.which("cc") or shutil.which("gcc")
    return [t for t in tools if not shutil.which(t)] + ([] if have_cc else ["a C compiler"])


def run(out: Path, quick: bool = False) -> dict[str, Any]:
    from wirelab.logic.config import from_dict, load_recipe
    from wirelab.logic.recipe_registry import RECIPES
    from wirelab.logic.training import run as train

    run_dir = out / "mnist01"
    try:  # the packaged file, whatever the working directory holds
        m = train(from_dict(load_recipe(RECIPES.get(RECIPE)), RECIPE), run_dir, overwrite=True)
    except MissingDataError as exc:
        raise SkipStep(f"MNIST not available ({exc}); run 'wirelab data fetch mnist'") from None
    summary: dict[str, Any] = {
        "gates": m["gates"],
        "acc_discrete": round(m["accuracy_discrete"], 4),
        "train_s": round(m["train_seconds"], 1),
    }
    missing = _missing(CIRCUIT_TOOLS)
    if missing:
        tools = ", ".join(missing)
        summary["circuit"] = f"skipped: install {tools} (docs/getting-started.md: system packages)"
        return summary
    summary.update(_circuit(run_dir, quick))
    return summary


def _circuit(run_dir: Path, quick: bool) -> dict[str, Any]:
    """Compile, verify and (with nextpnr and icepack) place and route ``run_dir``'s circuit."""
    from wirelab.logic.circuit.rundir import compile_run, synth_run, verify_run
    from wirelab.logic.circuit.targets import DEFAULT_TARGET

    pnr = not _missing(PNR_TOOLS)
    out: dict[str, Any] = {}
    with progress_bar("circuit: compile, verify, synthesise", total=3) as bar:
        c = compile_run(run_dir, "all")
        out["gates_simplified"], out["depth"] = c["gates_simplified"], c["logic_depth"]
        bar.advance()
        v = verify_run(run_dir, sim_vectors=SIM_VECTORS[quick], formal_timeout=120)
        out["verified"] = v["verified"]
        bar.advance()
        s = synth_run(run_dir, DEFAULT_TARGET, pnr=pnr)
        bar.advance()
    out["lut4"], out["fits"] = s["luts"], s.get("fits")
    if pnr:
        out["placed_cells"] = s["pnr"]["logic_cells"]["used"]
        out["fmax_mhz"] = round(s["pnr"]["fmax_mhz"], 1)
    else:
        out["pnr"] = f"skipped: install {', '.join(_missing(PNR_TOOLS))}"
    return out
