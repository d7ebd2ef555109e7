"""``wirelab logic up5k RUN_DIR --out DIR``: the whole classifier with a sequential head on one
iCE40 UP5K, placed and routed, and its netlist simulated after synthesis.

Every option is checked before anything is built or written (one line each): ``--out`` (the
shared guard, `wirelab.cli_options.check_out`; never RUN_DIR itself), ``--pnr-timeout`` in (0,
a week], ``--clock`` in (0, 1000] MHz, ``--seed`` below 2**32, a head no larger than the model.
`up5k_run` writes a result directory (``config.json`` first, ``metrics.json`` last)::

    hdl/wl_seq.v, hdl/wl_seq_top.v   the gate network, the sequential head (`seqhead`), the top
                                     level with the input register (flip-flops, or block RAM
                                     with ``input_ram``) and handshake (`top`)
    pnr/                             synth_ice40 netlist, nextpnr report, .asc, .bin (bitstream)
    sim/                             the netlist as Verilog, testbench, Icarus log
    c_reference/                     the C back end (the reference of the simulation)

1. **C back end** on the whole test split: accuracy, and equality with the numpy discrete model
   (`DiscreteLogicNet.predict`); throughput on one core (CPU time of ``wl_classify``).
2. **Synthesis, place and route**: ``synth_ice40`` of ``wl_seq_top``, nextpnr-ice40 (UP5K,
   sg48, ``--clock``), icepack: LUT4, carry and flip-flop cells, placed logic cells, Fmax, timing
   met, bitstream bytes. A design that does not fit records nextpnr's count of the logic cells it
   needs (``logic_cells_needed``) and goes on with the synthesised netlist; one that was placed
   but not routed (congestion, or nextpnr stopped after ``pnr_timeout`` seconds) also records
   ``placed_not_routed`` and the placer's Fmax estimate (``placement_fmax_mhz``).
3. **Post-synthesis simulation**: the placed and routed netlist (nextpnr ``--write``; the
   synthesised one if it did not fit), written as Verilog by yosys, simulated in Icarus with
   yosys's iCE40 cell models on the first ``images`` test images (`postsim.run_top`); its
   classes against the C back end's; cycles per image (input words, start, classification).
"""

from __future__ import annotations

import inspect
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.cli_options import MAX_SECONDS, check_out
from wirelab.errors import UsageError
from wirelab.logic.circuit.backends.c import build
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.pnr import place_and_route, synth_ice40_json
from wirelab.logic.circuit.rundir import circuits_of, load_run, test_set
from wirelab.logic.circuit.tools import ToolError, script_word, write_text
from wirelab.logic.fpga.postsim import netlist_verilog, run_top
from wirelab.logic.fpga.seqhead import HeadSpec, SeqModule, generate_sequential
from wirelab.logic.fpga.top import TOP, num_words, pack_words, top_verilog
from wirelab.results import experiment

Progress = Callable[[str], None]


def _noop(msg: str) -> None:
    pass


DEFAULT_HEAD = HeadSpec(kind="shift")  # the head of ``wirelab logic up5k`` unless told otherwise


def up5k_run(
    run_dir: str | Path,
    out: str | Path,
    *,
    spec: HeadSpec = DEFAULT_HEAD,
    bus_bits: int = 16,
    input_ram: bool = True,
    clock_mhz: float = 12.0,
    images: int = 200,
    pnr: bool = True,
    seed: int = 1,
    router: str = "router2",
    pnr_timeout: float = 3600,
    overwrite: bool = False,
    log: Progress = _noop,
) -> dict[str, Any]:
    """See the module docstring; returns the metrics as written. The defaults are
    ``wirelab logic up5k``'s (its options read them: `UP5K_DEFAULTS`, `DEFAULT_HEAD`)."""
    if images < 1 or not 0 < clock_mhz <= 1000 or not 1 <= bus_bits <= (16 if input_ram else 32):
        raise UsageError(
            "--images must be >= 1, --clock in (0, 1000] MHz and --bus-bits in [1, 16] (in "
            "[1, 32] with --input-registers)"
        )
    if not 0 < pnr_timeout <= MAX_SECONDS:  # NaN fails too
        raise UsageError(
            f"--pnr-timeout must be in (0, {MAX_SECONDS:g}] seconds, got {pnr_timeout}"
        )
    if not 0 <= seed < 2**32:
        raise UsageError(f"--seed must be in [0, 2**32 - 1], got {seed}")
    check_out(out, overwrite=overwrite)
    if Path(out).resolve() == Path(run_dir).resolve():
        raise UsageError(f"--out {out} is RUN_DIR itself: choose a new directory")
    rd, net = load_run(run_dir)
    script_word(Path(out), "--out directory")  # written into the yosys scripts
    config = {
        "run_dir": str(run_dir),
        "classes_per_step": spec.classes_per_step,
        "slices": spec.slices,
        "head_pipeline": spec.pipeline,
        "bus_bits": bus_bits,
        "input_ram": input_ram,
        "clock_mhz": clock_mhz,
        "images": images,
        "pnr": pnr,
        "seed": seed,
        "router": router,
        "pnr_timeout": pnr_timeout,
    }
    _check_head(spec, net)
    _, simple, _ = circuits_of(rd, net)
    x, labels = test_set(rd, net)
    with experiment(out, command="wirelab logic up5k", config=config, overwrite=overwrite) as res:
        o = res.path
        sm = generate_sequential(simple, spec)
        write_text(o / "hdl" / "wl_seq.v", sm.text)
        top = top_verilog(sm, simple.used_inputs(), bus_bits, input_ram)
        write_text(o / "hdl" / f"{TOP}.v", top)
        m: dict[str, Any] = {"head": spec.name, **simple.summary(), "steps": sm.steps}
        log(f"C back end on {len(x)} test images")
        c_pred, c_metrics = _c_reference(simple, net, x, labels, o / "c_reference")
        m.update(c_metrics)
        log(f"yosys synth_ice40 ({simple.num_gates} gates, {spec.name})")
        hw = _hardware(o, sm, clock_mhz, pnr, (seed, router, pnr_timeout), log)
        m.update(hw)
        netlist = o / "pnr" / f"{TOP}_placed.json" if hw.get("fits") else o / "pnr" / f"{TOP}.json"
        log(f"Icarus Verilog: {netlist.name} with the iCE40 cell models, {images} test images")
        words = pack_words(simple.binarize(x[:images]), simple.used_inputs(), bus_bits, input_ram)
        m.update(_postsim(sm, netlist, words, c_pred[:images], bus_bits, o / "sim"))
        m.update(_throughput(m, simple.used_inputs().size, bus_bits, sm))
        return res.finish(m)


UP5K_DEFAULTS = {
    name: p.default
    for name, p in inspect.signature(up5k_run).parameters.items()
    if p.default is not inspect.Parameter.empty
}


def _check_head(spec: HeadSpec, net: Any) -> None:
    """One line, before anything is built or written, for a head larger than the model (a
    `DiscreteLogicNet`): more lanes than classes, more slices or shift bits than outputs per
    class."""
    classes = net.num_classes
    g = net.layers[-1].size // classes if net.layers else 0
    if spec.classes_per_step > classes:
        raise UsageError(f"--classes-per-step must be <= {classes} (the model's classes)")
    if spec.slices > g or spec.bits > g:
        raise UsageError(
            f"--slices and --shift-bits must be <= {g} (the model's outputs per class)"
        )


def _c_reference(
    c: Circuit, net: Any, x: np.ndarray, labels: np.ndarray, work: Path
) -> tuple[np.ndarray, dict[str, Any]]:
    """The C back end's classes on ``x``, its accuracy, equality with the discrete model and
    its throughput on one core (best of three, CPU time)."""
    lib, _ = build(c, work, jobs=1)
    pred, _ = lib.classify(x)
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        lib.classify(x)
        best = min(best, time.process_time() - t0)
    numpy_pred = net.predict(x)
    return pred, {
        "test_images": len(x),
        "accuracy_c": float((pred == labels).mean()),
        "accuracy_discrete": float((numpy_pred == labels).mean()),
        "c_equals_discrete": int((pred == numpy_pred).sum()),
        "c_images_per_s_one_core": round(len(x) / best) if best > 0 else None,
    }


def _cell_counts(netlist: Path) -> dict[str, int]:
    """SB_LUT4, SB_CARRY and flip-flop cells of the top module of a synth_ice40 netlist."""
    doc = json.loads(netlist.read_text())
    top = doc["modules"][TOP]
    types = [str(cell["type"]) for cell in top["cells"].values()]
    return {
        "luts": types.count("SB_LUT4"),
        "carry_cells": types.count("SB_CARRY"),
        "flip_flops": sum(t.startswith("SB_DFF") for t in types),
        "block_ram_cells": sum(t.startswith("SB_RAM") for t in types),
    }


def _hardware(
    o: Path,
    sm: SeqModule,
    clock_mhz: float,
    pnr: bool,
    how: tuple[int, str, float],
    log: Progress,
) -> dict[str, Any]:
    """Synthesis; with ``pnr`` nextpnr (placer seed, router, timeout: ``how``) and icepack."""
    work = o / "pnr"
    t0 = time.perf_counter()
    srcs = [o / "hdl" / "wl_seq.v", o / "hdl" / f"{TOP}.v"]
    netlist = synth_ice40_json(srcs, TOP, work)
    hw: dict[str, Any] = {"yosys_seconds": round(time.perf_counter() - t0, 1)}
    hw.update(_cell_counts(netlist))
    if not pnr:
        return hw
    log(f"nextpnr-ice40 ({clock_mhz:g} MHz) + icepack -> {work}")
    try:
        p = place_and_route(
            netlist,
            work,
            clock_mhz=clock_mhz,
            seed=how[0],
            router=how[1],
            timeout=how[2],
            write_placed=True,
            progress=lambda line: log(f"nextpnr {line}"),
        )
    except ToolError as exc:  # does not fit, or not routed
        log_path = work / "nextpnr-ice40.log"
        text = log_path.read_text() if log_path.is_file() else str(exc)
        hw.update({"fits": False, "pnr_error": str(exc), **unplaced_figures(text)})
        return hw
    hw.update(
        {
            "fits": True,
            "logic_cells": p["logic_cells"]["used"],
            "logic_cells_available": p["logic_cells"]["available"],
            "io": p["io"]["used"],
            "block_ram": p["block_ram"]["used"],
            "fmax_mhz": p["fmax_mhz"],
            "clock_mhz": clock_mhz,
            "timing_met": p["timing_met"],
            "bitstream_bytes": p["bitstream_bytes"],
            "nextpnr_seconds": p["nextpnr_seconds"],
            "device": p["device"],
        }
    )
    return hw


def unplaced_figures(log: str) -> dict[str, Any]:
    """From the log of a nextpnr run that failed or was stopped: ``logic_cells_needed`` (its
    ``ICESTORM_LC`` count after packing), ``placed_not_routed`` (the router ran: placed, but
    congested or stopped) and ``placement_fmax_mhz`` (the last Fmax estimate it printed)."""
    need = re.search(r"ICESTORM_LC:\s+(\d+)\s*/\s*\d+", log) or re.search(
        r"of (\d+) ICESTORM_LCs", log
    )
    fmax = re.findall(r"Max frequency for clock '[^']+': ([\d.]+) MHz", log)
    return {
        "logic_cells_needed": int(need.group(1)) if need else None,
        "placed_not_routed": bool(re.search(r"iter=\d+ wires=", log)),
        "placement_fmax_mhz": float(fmax[-1]) if fmax else None,
    }


def _postsim(
    sm: SeqModule, netlist: Path, words: np.ndarray, c_pred: np.ndarray, bus_bits: int, work: Path
) -> dict[str, Any]:
    nv = netlist_verilog(netlist, work / "netlist.v")
    sim = run_top([nv], words, bus_bits, sm.class_bits, work, cell_models=True)
    equal = sim.classes == c_pred
    return {
        "postsim_netlist": "placed and routed" if "placed" in netlist.name else "synthesised",
        "postsim_images": len(words),
        "postsim_equal_to_c": int(equal.sum()),
        "postsim_all_equal": bool(equal.all()),
        # [test image, netlist's class, C's class] of the first 20 that differ
        "postsim_mismatches": [
            [int(i), int(sim.classes[i]), int(c_pred[i])] for i in np.flatnonzero(~equal)[:20]
        ],
        "postsim_seconds": round(sim.seconds, 1),
        "cycles_per_image": int(sim.cycles.max()),
    }


def _throughput(m: dict[str, Any], used: int, bus_bits: int, sm: SeqModule) -> dict[str, Any]:
    """Cycles per image (input words + start + classification) and images/s at Fmax."""
    cycles = int(m["cycles_per_image"])
    out: dict[str, Any] = {
        "input_words": num_words(used, bus_bits),
        "classify_cycles": sm.cycles,
    }
    fmax = m.get("fmax_mhz")
    if fmax:
        out["images_per_s_at_fmax"] = round(fmax * 1e6 / cycles)
        out["latency_us_at_fmax"] = round(cycles / fmax, 3)
        clock = min(fmax, m["clock_mhz"])
        out["images_per_s_at_clock"] = round(clock * 1e6 / cycles)
    return out
