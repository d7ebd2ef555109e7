"""Post-synthesis (or post-place-and-route) simulation of ``wl_seq_top`` in Icarus Verilog.

`netlist_verilog` turns a yosys or nextpnr JSON netlist into Verilog (``yosys read_json;
write_verilog``): after ``synth_ice40`` it instantiates ``SB_LUT4``, ``SB_CARRY`` and ``SB_DFF*``
cells; after nextpnr (``--write``) the packed ``ICESTORM_LC`` cells and ``SB_IO`` pads. Either
is simulated with the iCE40 cell models that ship with yosys (``ice40/cells_sim.v``), i.e. the
gates the bitstream holds rather than the RTL they came from.

`run_top` drives the top level as the host would (`testbench`): per image the ``ceil(U / W)``
input words with ``load`` (one per clock), a ``start`` pulse, then it waits for ``done`` and
prints ``C <image> <class> <cycles>`` (cycles from the first load edge to the done edge). The
same testbench runs the RTL (``wl_seq.v`` + ``wl_seq_top.v``), so both can be compared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import UsageError
from wirelab.logic.circuit.tools import ToolError, require, run_tool, script_word, write_text
from wirelab.logic.fpga.top import TOP
from wirelab.results import write_json

CELLS_SIM = "ice40/cells_sim.v"


def cells_sim() -> Path:
    """yosys's iCE40 simulation models (``<yosys datdir>/ice40/cells_sim.v``)."""
    yosys = Path(require("yosys")).resolve()
    for share in (yosys.parent.parent / "share" / "yosys", Path("/usr/share/yosys")):
        if (share / CELLS_SIM).is_file():
            return share / CELLS_SIM
    raise ToolError(f"yosys's {CELLS_SIM} not found beside {yosys}")


def netlist_verilog(netlist_json: Path, out: Path) -> Path:
    """``yosys read_json <netlist_json>; write_verilog <out>`` (cells as instances); the top
    module is named ``wl_seq_top`` (nextpnr writes it as ``top``)."""
    import json

    doc = json.loads(Path(netlist_json).read_text())
    if complete_carry_chains(doc):
        netlist_json = write_json(out.parent / "netlist_carry.json", doc)
    src = script_word(netlist_json)
    dst = script_word(out)
    modules = doc.get("modules", {})
    tops = [m for m, v in modules.items() if v.get("attributes", {}).get("top")] or list(modules)
    if TOP not in modules and len(tops) != 1:
        raise ToolError(f"{netlist_json}: no single top module ({len(tops)} candidates)")
    rename = "" if TOP in modules else f"rename {script_word(tops[0], 'module name')} {TOP}\n"
    script = f"read_json {src}\n{rename}opt_clean -purge\nwrite_verilog -noattr {dst}\n"
    work = out.parent
    write_text(work / "netlist.ys", script)
    run_tool([require("yosys"), "-q", "-l", "netlist.log", "netlist.ys"], work, "yosys")
    return out


def _bel(cell: dict[str, Any]) -> tuple[int, int, int] | None:
    m = re.fullmatch(
        r"X(\d+)/Y(\d+)/lc(\d)", str(cell.get("attributes", {}).get("NEXTPNR_BEL", ""))
    )
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def complete_carry_chains(doc: dict[str, Any]) -> int:
    """Connect the carry input a placed netlist leaves implicit; returns how many were added.

    In nextpnr's netlist a logic cell in a carry chain may have no ``CIN`` net: on the chip its
    carry input is wired to the carry output of the cell below it (``lc<z-1>`` of the same tile,
    or ``lc7`` of the tile below for ``lc0``), a connection the cell model only sees as a port.
    Each such ``CIN`` (``CARRY_ENABLE`` set, ``CIN_CONST`` clear) gets that cell's ``COUT``."""
    cells = next(iter(doc["modules"].values()))["cells"]
    by_bel = {b: c for c in cells.values() if c["type"] == "ICESTORM_LC" and (b := _bel(c))}
    next_bit = 1 + max(
        (
            b
            for c in cells.values()
            for bs in c["connections"].values()
            for b in bs
            if isinstance(b, int)
        ),
        default=1,
    )
    added = 0
    for (x, y, z), cell in by_bel.items():
        prm = cell["parameters"]
        if int(str(prm.get("CARRY_ENABLE", "0")), 2) != 1 or int(str(prm.get("CIN_CONST", "0")), 2):
            continue
        if cell["connections"].get("CIN"):
            continue
        below = by_bel.get((x, y, z - 1) if z else (x, y - 1, 7))
        if below is None:
            continue
        if not below["connections"].get("COUT"):
            below["connections"]["COUT"] = [next_bit]
            next_bit += 1
        cell["connections"]["CIN"] = list(below["connections"]["COUT"])
        cell.setdefault("port_directions", {})["CIN"] = "input"
        added += 1
    return added


def testbench(n_images: int, n_words: int, bus_bits: int, class_bits: int, limit: int) -> str:
    """Host side of `wirelab.logic.fpga.top`: words from ``words.hex`` (image-major)."""
    total = n_images * n_words
    return f"""`timescale 1ns/1ps
module wl_tb_top;
  reg [{bus_bits - 1}:0] mem [0:{total - 1}];
  reg clk = 0, load = 0, start = 0;
  reg [{bus_bits - 1}:0] din = 0;
  wire busy, done;
  wire [{class_bits - 1}:0] cls;
  integer i, j, c;
  always #5 clk = ~clk;
  {TOP} dut(.clk(clk), .din(din), .load(load), .start(start), .busy(busy), .done(done),
            .cls(cls));
  initial begin
    $readmemh("words.hex", mem);
    for (i = 0; i < {n_images}; i = i + 1) begin
      c = 0;
      for (j = 0; j < {n_words}; j = j + 1) begin
        @(negedge clk); din = mem[i * {n_words} + j]; load = 1; c = c + 1;
      end
      @(negedge clk); load = 0; start = 1; c = c + 1;
      @(negedge clk); start = 0;
      while (!done && c < {limit}) begin @(negedge clk); c = c + 1; end
      $display("C %0d %0d %0d", i, cls, done ? c : -1);
    end
    $finish;
  end
endmodule
"""


@dataclass(frozen=True)
class TopSim:
    classes: np.ndarray  # (N,)
    cycles: np.ndarray  # (N,) first load edge -> done edge
    seconds: float


def run_top(
    sources: list[Path],
    words: np.ndarray,
    bus_bits: int,
    class_bits: int,
    work: Path,
    *,
    cell_models: bool,
    limit: int = 100_000,
) -> TopSim:
    """Simulate ``wl_seq_top`` from ``sources`` (with yosys's cell models if ``cell_models``) on
    ``words`` ``(N, n_words)``; the class and cycle count per image."""
    import time

    words = np.asarray(words, dtype=np.int64)
    if words.ndim != 2 or not len(words):
        raise UsageError("no images to simulate")
    iverilog, vvp = require("iverilog"), require("vvp")
    digits = -(-bus_bits // 4)
    write_text(work / "words.hex", "\n".join(f"{int(w):0{digits}x}" for w in words.ravel()) + "\n")
    n, nw = words.shape
    write_text(work / "wl_tb_top.v", testbench(n, nw, bus_bits, class_bits, limit))
    srcs = [work / "wl_tb_top.v", *sources] + ([cells_sim()] if cell_models else [])
    cmd = [iverilog, "-g2005", "-DNO_ICE40_DEFAULT_ASSIGNMENTS", "-s", "wl_tb_top", "-o", "top.vvp"]
    cmd += [str(Path(s).resolve()) for s in srcs]
    run_tool(cmd, work, "iverilog")
    t0 = time.perf_counter()
    log = run_tool([vvp, "-n", "top.vvp"], work, "vvp simulation")
    seconds = time.perf_counter() - t0
    rows = [ln.split()[1:] for ln in log.splitlines() if ln.startswith("C ")]
    arr = np.array([[int(v) for v in r] for r in rows], dtype=np.int64).reshape(-1, 3)
    if len(arr) != n or (arr[:, 2] < 0).any():
        raise ToolError(f"the simulated classifier did not finish every image (see {work})")
    return TopSim(arr[:, 1], arr[:, 2], seconds)
