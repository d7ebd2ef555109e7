"""Place and route (nextpnr-ice40, icepack), pipelined heads, the PicoSoC peripheral and its
register map, and the firmware build: real tools on tiny synthetic circuits."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.clirun import one_line_error, wirelab
from tests.conftest import requires_mnist
from tests.logic.circuit.conftest import reference_outputs
from tests.logic.circuit.runs import make_run
from wirelab.logic.circuit.backends.c import generate_c
from wirelab.logic.circuit.backends.verilog import generate_verilog, simulate
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.passes import simplify
from wirelab.logic.circuit.pnr import pnr_classifier
from wirelab.logic.circuit.synthetic import random_net
from wirelab.logic.circuit.tools import have
from wirelab.logic.fpga.peripheral import RESULT_OFFSET, make_layout, peripheral_verilog

needs_pnr = pytest.mark.skipif(
    not have("yosys", "nextpnr-ice40", "icepack"),
    reason="yosys, nextpnr-ice40 or icepack not found: apt-get install yosys nextpnr-ice40 "
    "fpga-icestorm (scripts/system-deps.sh)",
)
needs_iverilog = pytest.mark.skipif(
    not have("iverilog", "vvp"), reason="Icarus Verilog not found: apt-get install iverilog"
)
pytestmark = pytest.mark.hardware


def tiny(seed: int = 1, classes: int = 2) -> Circuit:
    net = random_net([24, 12, 6 * classes], features=12, num_classes=classes, seed=seed)
    return simplify(Circuit.from_net(net))[0]


@needs_pnr
def test_place_and_route_a_tiny_circuit_for_real(tmp_path: Path) -> None:
    c = tiny()
    for pipeline, work in ((0, tmp_path / "comb"), (1, tmp_path / "pipe")):
        vm = generate_verilog(c, pipeline=pipeline, head_pipeline=pipeline)
        r = pnr_classifier(vm, c.used_inputs(), work, clock_mhz=48)
        assert (work / "wl_top.asc").stat().st_size > 0
        assert (work / "wl_top.bin").stat().st_size == r["bitstream_bytes"] > 0
        assert r["logic_cells"]["available"] == 5280
        assert 0 < r["logic_cells"]["used"] < 5280 and r["shell_cells"] == c.used_inputs().size
        assert r["fmax_mhz"] > 0 and r["timing_met"] == (r["fmax_mhz"] >= 48)
        assert r["images_per_s"] == round(r["fmax_mhz"] * 1e6)


@needs_iverilog
@pytest.mark.parametrize("pipeline,head_pipeline", [(0, 1), (1, 1), (1, 2), (2, 3)])
def test_pipelined_heads_simulate_equal(tmp_path: Path, pipeline: int, head_pipeline: int) -> None:
    c = tiny(seed=2, classes=3)
    bits = np.random.default_rng(0).random((40, c.num_inputs)) > 0.5
    y = reference_outputs(c, bits)
    vm = generate_verilog(c, pipeline=pipeline, head_pipeline=head_pipeline)
    assert vm.y_latency == (c.depth - 1) // max(pipeline, 1) if pipeline else vm.y_latency == 0
    assert vm.latency > (vm.y_latency or 0)
    r = simulate(vm, bits, y, c.counts_from_bits(y), tmp_path)
    assert r.ok, r.first_mismatch


def test_layout_packs_every_stage_operand() -> None:
    c = tiny(seed=3)
    bits = np.random.default_rng(1).random((5, c.num_inputs)) > 0.5
    for stage in ("bits", "level1"):
        lay = make_layout(c, stage, "firmware")
        words = lay.pack(bits)
        assert words.shape == (5, lay.num_words) and words.dtype == np.uint32
        for node, (_, word, bit) in lay.stage.items():
            src = lay.slots[word * 32 + bit]
            if src >= 0:
                assert np.array_equal((words[:, word] >> bit) & 1, bits[:, src])
            assert node >= 2
    lay = make_layout(c, "level1", "hw")
    assert lay.num_results == 1  # class + two 4-bit counts


def _bus_testbench(lay_words: np.ndarray, n_results: int) -> str:
    """Drive the peripheral like PicoSoC's iomem: valid until ready; writes, then reads."""
    writes = []
    for row in lay_words:
        for k, v in enumerate(row):
            writes.append(f"    bus(4'hf, 12'h{4 * k:03x}, 32'h{int(v):08x});")
        for j in range(n_results):
            writes.append(f"    bus(4'h0, 12'h{RESULT_OFFSET + 4 * j:03x}, 0);")
            writes.append('    $display("RES %h", rdata);')
    body = "\n".join(writes)
    return f"""`timescale 1ns/1ps
module tb;
  reg clk = 0, sel = 0; reg [3:0] wstrb = 0; reg [11:0] addr = 0; reg [31:0] wdata = 0;
  wire ready; wire [31:0] rdata;
  wl_periph p (.clk(clk), .resetn(1'b1), .sel(sel), .wstrb(wstrb), .addr(addr), .wdata(wdata),
               .ready(ready), .rdata(rdata));
  always #5 clk = !clk;
  task bus(input [3:0] s, input [11:0] a, input [31:0] d);
    begin
      @(negedge clk); sel = 1; wstrb = s; addr = a; wdata = d;
      @(posedge clk); while (!ready) @(posedge clk);
      #1 sel = 0;
    end
  endtask
  initial begin
{body}
    $finish;
  end
endmodule
"""


@needs_iverilog
@pytest.mark.parametrize("stage", ["bits", "level1"])
@pytest.mark.parametrize("head", ["hw", "firmware"])
def test_peripheral_on_the_bus_equals_the_reference(tmp_path: Path, stage: str, head: str) -> None:
    c = tiny(seed=4, classes=3)
    bits = np.random.default_rng(2).random((12, c.num_inputs)) > 0.5
    lay = make_layout(c, stage, head)
    (tmp_path / "p.v").write_text(peripheral_verilog(c, lay))
    (tmp_path / "tb.v").write_text(_bus_testbench(lay.pack(bits), lay.num_results))
    subprocess.run(["iverilog", "-o", "tb.vvp", "tb.v", "p.v"], cwd=tmp_path, check=True)
    out = subprocess.run(["vvp", "-N", "tb.vvp"], cwd=tmp_path, capture_output=True, text=True)
    res = [int(h, 16) for h in re.findall(r"^RES ([0-9a-f]+)", out.stdout, re.M)]
    cls, counts = lay.decode(np.asarray(res, dtype=np.uint64).reshape(len(bits), -1))
    expect = c.counts_from_bits(reference_outputs(c, bits))
    assert np.array_equal(counts, expect)
    assert np.array_equal(cls, np.argmax(expect, axis=1))


def test_the_header_declares_the_pixel_api_only_when_built_with_it() -> None:
    c = tiny()
    assert "classify_u8" not in generate_c(c).header
    with_px = generate_c(c, pixel_scale=255.0).header
    assert "wl_classify_u8" in with_px and "wl_binarize_u8" in with_px


@needs_pnr
def test_synth_pnr_cli_writes_a_bitstream_and_refuses_other_targets(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    p = wirelab("logic", "synth", run, "--target", "lut6", "--pnr")
    assert p.returncode == 2 and one_line_error(p) and "ice40-up5k" in p.stderr
    p = wirelab("logic", "synth", run, "--pnr", "--clock", "48", "--pipeline", "1", "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)["pnr"]
    assert r["logic_cells"]["used"] > 0 and r["clock_mhz"] == 48
    assert (run / "synth" / "ice40-up5k-pipe1" / r["bitstream"]).is_file()
    synth = json.loads((run / "synth.json").read_text())
    assert synth["ice40-up5k-pipe1"]["pnr"]["fmax_mhz"] == r["fmax_mhz"]
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["pnr_ice40_up5k_pipe1_timing_met"] == r["timing_met"]


needs_riscv = pytest.mark.skipif(
    not have("riscv64-unknown-elf-gcc", "riscv64-unknown-elf-objcopy"),
    reason="riscv64-unknown-elf-gcc not found: apt-get install gcc-riscv64-unknown-elf",
)


@needs_riscv
def test_firmware_builds_for_rv32i_from_the_picosoc_sources(tmp_path: Path) -> None:
    from wirelab.logic.fpga.firmware import build_firmware, firmware_c
    from wirelab.logic.fpga.soc import picosoc_dir

    c = tiny()
    lay = make_layout(c, "level1", "firmware")
    words = lay.pack(np.random.default_rng(3).random((3, c.num_inputs)) > 0.5)
    fw = build_firmware(firmware_c(lay, words), picosoc_dir(), tmp_path)
    assert fw["hex"].read_text().startswith("@00100000")
    assert 0 < fw["bin"].stat().st_size < 8192


@requires_mnist
@needs_pnr
@needs_iverilog
@needs_riscv
@pytest.mark.slow
def test_soc_simulation_prints_the_c_back_ends_classes(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    p = wirelab("logic", "soc", run, "--no-hardware", "--images", "2", "--json")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)["simulation"]
    assert s["images"] == 2 and s["all_equal"] and s["cycles_per_image"]["min"] > 0
