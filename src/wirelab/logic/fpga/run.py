"""``wirelab logic soc RUN_DIR``: the classifier beside PicoRV32 on one iCE40 UP5K.

`soc_run` writes ``RUN_DIR/soc/<input stage>-<head>/`` and its entry in ``RUN_DIR/soc.json``
(written last):

1. **Hardware**: the peripheral (`wirelab.logic.fpga.peripheral`) and the top level
   (`wirelab.logic.fpga.soc`) with PicoSoC from the ``picorv32`` dataset, ``synth_ice40 -dsp``,
   nextpnr-ice40 with PicoSoC's ``icebreaker.pcf`` at 12 MHz, icepack: placed logic cells,
   RAM/SPRAM/DSP, Fmax, timing met, the bitstream (`wirelab.logic.circuit.pnr`).
2. **Firmware in the loop**: the first ``images`` test images, binarised on the host and packed
   into the peripheral's input words, in the firmware's flash image (`wirelab.logic.fpga.firmware`);
   the whole SoC simulated in Icarus Verilog with the flash model; the classes the firmware
   prints over the UART compared with the compiled C back end on the same images; cycles per
   image (``rdcycle`` around writing the words and reading the result back).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import UsageError
from wirelab.logic.circuit.backends.c import build
from wirelab.logic.circuit.pnr import place_and_route, synth_ice40_json
from wirelab.logic.circuit.rundir import circuits_of, load_run, test_set
from wirelab.logic.circuit.tools import ToolError, require, run_tool, write_text
from wirelab.logic.fpga.firmware import build_firmware, firmware_c
from wirelab.logic.fpga.peripheral import make_layout, peripheral_verilog
from wirelab.logic.fpga.soc import picosoc_dir, soc_sources, testbench_verilog, top_verilog
from wirelab.logic.fpga.up5k import unplaced_figures
from wirelab.results import write_json

CELLS_SIM = Path("/usr/share/yosys/ice40/cells_sim.v")  # yosys's iCE40 primitives for Icarus


def soc_run(
    run_dir: str | Path,
    *,
    input_stage: str = "level1",
    head: str = "firmware",
    images: int = 20,
    hardware: bool = True,
    simulate: bool = True,
    clock_mhz: float = 12.0,
    max_cycles: int = 20_000_000,
    log: Callable[[str], None] = lambda m: None,
) -> dict[str, Any]:
    """Build (``hardware``) and simulate (``simulate``) one variant; see the module docstring."""
    if images < 1 or not clock_mhz > 0:
        raise UsageError("--images must be >= 1 and --clock > 0")
    if not (hardware or simulate):
        raise UsageError("nothing to do: both the hardware build and the simulation are off")
    rd, net = load_run(run_dir)
    root = picosoc_dir()
    _, simple, _ = circuits_of(rd, net)
    lay = make_layout(simple, input_stage, head)
    name = f"{input_stage}-{head}"
    work = rd.path / "soc" / name
    write_text(work / "wl_periph.v", peripheral_verilog(simple, lay))
    result: dict[str, Any] = {
        "input_stage": input_stage,
        "head": head,
        "input_words": lay.num_words,
        "result_words": lay.num_results,
        "gates": simple.num_gates,
    }
    if hardware:
        log(f"{name}: yosys synth_ice40 -dsp + nextpnr-ice40 ({clock_mhz:g} MHz) -> {work}")
        write_text(work / "wl_icebreaker.v", top_verilog())
        sources = [work / "wl_icebreaker.v", work / "wl_periph.v", *soc_sources(root)]
        t0 = time.perf_counter()
        netlist = synth_ice40_json(sources, "wl_icebreaker", work, dsp=True)
        result["yosys_seconds"] = round(time.perf_counter() - t0, 1)
        try:
            result["pnr"] = place_and_route(
                netlist,
                work,
                clock_mhz=clock_mhz,
                pcf=root / "picosoc" / "icebreaker.pcf",
                progress=lambda line: log(f"nextpnr {line}"),
            )
            result["fits"] = True
        except ToolError as exc:  # a design that does not fit: record nextpnr's reason
            result["fits"], result["pnr_error"] = False, str(exc)
            log_path = work / "nextpnr-ice40.log"
            text = log_path.read_text() if log_path.is_file() else str(exc)
            result["logic_cells_needed"] = unplaced_figures(text)["logic_cells_needed"]
    if simulate:
        result["simulation"] = _simulate(rd.path, simple, lay, work, root, images, max_cycles, log)
    path = rd.path / "soc.json"
    allres = json.loads(path.read_text()) if path.is_file() else {}
    allres[name] = {**allres.get(name, {}), **result}  # a step not rerun keeps its figures
    write_json(path, allres)
    return result


def _simulate(
    run: Path,
    simple: Any,
    lay: Any,
    work: Path,
    root: Path,
    images: int,
    max_cycles: int,
    log: Callable[[str], None],
) -> dict[str, Any]:
    rd, net = load_run(run)
    x, labels = test_set(rd, net)
    x, labels = x[:images], labels[:images]
    bits = simple.binarize(x)
    fw = build_firmware(firmware_c(lay, lay.pack(bits)), root, work)
    lib, _ = build(simple, work / "c", jobs=1)
    c_pred, _ = lib.classify(x)
    iverilog, vvp = require("iverilog"), require("vvp")
    write_text(work / "wl_tb.v", testbench_verilog(max_cycles))
    srcs = [
        work / "wl_tb.v",
        work / "wl_icebreaker.v",
        work / "wl_periph.v",
        *soc_sources(root),
        root / "picosoc" / "spiflash.v",
        CELLS_SIM,
    ]
    if not (work / "wl_icebreaker.v").is_file():
        write_text(work / "wl_icebreaker.v", top_verilog())
    run_tool(
        [
            iverilog,
            "-g2005",
            "-s",
            "wl_tb",
            "-DNO_ICE40_DEFAULT_ASSIGNMENTS",
            "-o",
            "wl_soc.vvp",
            *(str(s.resolve()) for s in srcs),
        ],
        work,
        "iverilog",
    )
    log(f"Icarus Verilog: PicoSoC + firmware, {len(x)} test images")
    t0 = time.perf_counter()
    out = run_tool([vvp, "-N", "wl_soc.vvp", f"+firmware={fw['hex'].name}"], work, "vvp")
    seconds = time.perf_counter() - t0
    if "TIMEOUT" in out:
        raise ToolError(f"SoC simulation stopped after {max_cycles} cycles without EOT")
    text = "".join(chr(int(m.group(1))) for m in re.finditer(r"^UART (\d+) \d+", out, re.M))
    end = [int(m.group(1)) for m in re.finditer(r"^UART \d+ (\d+)", out, re.M)]
    rows = [ln.split() for ln in text.split("\n") if len(ln.split()) == 2]
    pred = np.array([int(a, 16) for a, _ in rows], dtype=np.int64)
    cycles = np.array([int(b, 16) for _, b in rows], dtype=np.int64)
    if len(pred) != len(x):
        raise ToolError(f"the firmware printed {len(pred)} classes for {len(x)} images")
    equal = pred == c_pred
    return {
        "images": len(x),
        "predictions": pred.tolist(),
        "c_predictions": c_pred.tolist(),
        "labels": np.asarray(labels).tolist(),
        "equal_to_c": int(equal.sum()),
        "all_equal": bool(equal.all()),
        "accuracy": float((pred == np.asarray(labels)).mean()),
        "cycles_per_image": {
            "mean": float(cycles.mean()),
            "min": int(cycles.min()),
            "max": int(cycles.max()),
        },
        "simulated_cycles": end[-1] if end else None,
        "simulation_seconds": round(seconds, 1),
        "firmware_bytes": fw["bin"].stat().st_size,
    }
