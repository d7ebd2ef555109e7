"""The UP5K top level, its post-synthesis and post-place-and-route simulation in Icarus with
yosys's iCE40 cell models, and ``wirelab logic up5k`` on a tiny model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.clirun import one_line_error, wirelab
from tests.conftest import requires_mnist
from tests.logic.circuit.conftest import reference_outputs
from tests.logic.circuit.runs import make_run
from wirelab.errors import UsageError
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.passes import simplify
from wirelab.logic.circuit.pnr import place_and_route, synth_ice40_json
from wirelab.logic.circuit.synthetic import random_net
from wirelab.logic.circuit.tools import have, write_text
from wirelab.logic.fpga.postsim import netlist_verilog, run_top
from wirelab.logic.fpga.seqhead import HeadSpec, generate_sequential
from wirelab.logic.fpga.top import TOP, pack_words, top_verilog

needs_tools = pytest.mark.skipif(
    not have("yosys", "nextpnr-ice40", "icepack", "iverilog", "vvp"),
    reason="yosys, nextpnr-ice40, icepack or Icarus Verilog not found: apt-get install yosys "
    "nextpnr-ice40 fpga-icestorm iverilog (scripts/system-deps.sh)",
)
pytestmark = pytest.mark.hardware


def test_words_load_the_used_bits_in_order() -> None:
    bits = np.zeros((1, 10), bool)
    bits[0, [3, 9]] = True
    used = np.array([1, 3, 4, 9])  # register bits 0..3 = inputs 1, 3, 4, 9
    words = pack_words(bits, used, 3)  # 2 words; the first loaded ends on top
    assert words.tolist() == [[0b001, 0b010]]  # reg bit 3 (input 9), then reg bit 1 (input 3)


@needs_tools
@pytest.mark.parametrize(
    ("input_ram", "w", "head"),
    [
        (False, 4, HeadSpec(1, 2, 1)),
        (True, 4, HeadSpec(1, 2, 1)),
        (True, 16, HeadSpec(kind="shift")),
    ],
)
def test_rtl_synthesised_and_placed_netlists_classify_alike(
    tmp_path: Path, input_ram: bool, w: int, head: HeadSpec
) -> None:
    """Each image classified from its own bits. With block RAM the last word (written at the
    edge before ``start``) must be read, not the previous image's: the shift head reads ``x``
    at its start edge only, and with 16-bit words the last of two holds 14 of the 30 inputs."""
    net = random_net([60, 40, 30], features=30, num_classes=3, seed=1)
    c = simplify(Circuit.from_net(net))[0]
    sm = generate_sequential(c, head)
    write_text(tmp_path / "wl_seq.v", sm.text)
    write_text(tmp_path / f"{TOP}.v", top_verilog(sm, c.used_inputs(), w, input_ram))
    bits = np.random.default_rng(0).random((40, c.num_inputs)) < 0.5
    want = np.argmax(c.counts_from_bits(reference_outputs(c, bits)), axis=1)
    words = pack_words(bits, c.used_inputs(), w, input_ram)
    rtl_src = [tmp_path / "wl_seq.v", tmp_path / f"{TOP}.v"]
    rtl = run_top(rtl_src, words, w, sm.class_bits, tmp_path / "rtl", cell_models=input_ram)
    assert rtl.classes.tolist() == want.tolist()
    assert set(rtl.cycles.tolist()) == {words.shape[1] + int(input_ram) + sm.cycles}
    js = synth_ice40_json(rtl_src, TOP, tmp_path)
    syn_v = netlist_verilog(js, tmp_path / "syn" / "netlist.v")
    assert "SB_LUT4" in syn_v.read_text() and "wl_seq_net" not in syn_v.read_text()
    syn = run_top([syn_v], words, w, sm.class_bits, tmp_path / "syn", cell_models=True)
    assert syn.classes.tolist() == want.tolist()
    p = place_and_route(js, tmp_path, clock_mhz=12, write_placed=True)
    assert p["block_ram"]["used"] == (words.shape[1] if input_ram else 0)
    placed_v = netlist_verilog(tmp_path / f"{TOP}_placed.json", tmp_path / "pl" / "netlist.v")
    assert "ICESTORM_LC" in placed_v.read_text()
    placed = run_top([placed_v], words, w, sm.class_bits, tmp_path / "pl", cell_models=True)
    assert placed.classes.tolist() == want.tolist()
    assert placed.cycles.tolist() == rtl.cycles.tolist()


@needs_tools
@requires_mnist
def test_up5k_command_writes_a_result_directory(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    out = tmp_path / "up5k"
    args = ("--images", "20", "--head-kind", "mux", "--slices", "2", "--input-registers")
    p = wirelab("logic", "up5k", run, "--out", out, *args, "--router", "router1", "--json")
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout)
    assert json.loads((out / "metrics.json").read_text()) == m
    assert (out / "config.json").is_file() and not (out / ".in-progress").exists()
    assert m["head"] == "seq-p1-k2" and m["steps"] == 4
    assert m["postsim_netlist"] == "placed and routed"
    assert m["postsim_images"] == m["postsim_equal_to_c"] == 20
    assert m["postsim_mismatches"] == []
    assert m["c_equals_discrete"] == m["test_images"]
    assert m["accuracy_c"] == m["accuracy_discrete"]
    assert m["fits"] and 0 < m["logic_cells"] <= 5280
    assert (out / "pnr" / f"{TOP}.bin").stat().st_size == m["bitstream_bytes"]
    assert m["cycles_per_image"] == m["input_words"] + m["classify_cycles"]
    assert m["images_per_s_at_fmax"] == round(m["fmax_mhz"] * 1e6 / m["cycles_per_image"])
    again = wirelab("logic", "up5k", run, "--out", out)
    assert again.returncode == 2 and one_line_error(again) and "--overwrite" in again.stderr
    bad = wirelab("logic", "up5k", run, "--out", tmp_path / "b", "--bus-bits", "0")
    assert bad.returncode == 2 and one_line_error(bad)


def test_narrowing_keeps_the_most_selective_outputs_of_each_class() -> None:
    from wirelab.logic.fpga.narrow import narrow_net, selectivity

    net = random_net([16, 8], features=6, num_classes=2, seed=5)
    labels = np.array([0, 0, 1, 1])
    y = np.zeros((4, 8), bool)
    y[:2, 2] = True  # output 2 (class 0) fires on class 0 only: score 1
    y[2:, 7] = True  # output 7 (class 1) fires on class 1 only: score 1
    y[:, 5] = True  # output 5 (class 1) always: score 0
    s = selectivity(y, labels, 2)
    assert s[2] == 1 and s[7] == 1 and s[5] == 0 and s[0] == 0
    small = narrow_net(net, s, 2)
    last, orig = small.layers[-1], net.layers[-1]
    assert last.size == 4 and small.layers[:-1] == net.layers[:-1]
    kept = [0, 2, 4, 7]  # class 0: 2 then the lowest-index 0-score output; class 1: 7, then 4
    assert last.gate.tolist() == orig.gate[kept].tolist()
    assert last.a.tolist() == orig.a[kept].tolist()
    assert narrow_net(net, s, 4).layers[-1].a.tolist() == orig.a.tolist()
    with pytest.raises(UsageError):
        narrow_net(net, s, 5)


def test_implicit_carry_inputs_are_connected_from_the_cell_below() -> None:
    from wirelab.logic.fpga.postsim import complete_carry_chains

    def lc(bel: str, carry: int, conns: dict[str, list[int]], cin_const: int = 0) -> dict:
        prm = {"CARRY_ENABLE": format(carry, "032b"), "CIN_CONST": format(cin_const, "032b")}
        return {
            "type": "ICESTORM_LC",
            "parameters": prm,
            "attributes": {"NEXTPNR_BEL": bel},
            "connections": conns,
        }

    cells = {
        "a": lc("X1/Y1/lc7", 1, {"COUT": [10], "I1": [3]}),
        "b": lc("X1/Y2/lc0", 1, {"CIN": [], "I1": [4]}),  # below it: lc7 of tile Y1
        "c": lc("X1/Y2/lc1", 1, {"I1": [5]}),  # below it: b, whose COUT is unconnected
        "d": lc("X1/Y2/lc2", 1, {"I1": [6]}, cin_const=1),  # constant carry in: left alone
        "e": lc("X1/Y2/lc3", 0, {"I1": [7]}),  # no carry: left alone
    }
    doc = {"modules": {"top": {"cells": cells}}}
    assert complete_carry_chains(doc) == 2
    assert cells["b"]["connections"]["CIN"] == [10]
    new = cells["b"]["connections"]["COUT"]
    assert cells["c"]["connections"]["CIN"] == new and new[0] > 10
    assert "CIN" not in cells["d"]["connections"] and "CIN" not in cells["e"]["connections"]


def test_a_failed_place_and_route_is_read_from_nextpnr_s_log() -> None:
    from wirelab.logic.fpga.up5k import unplaced_figures

    full = "Info: \t         ICESTORM_LC:  7099/ 5280   134%\nERROR: Unable to place cell 'x'\n"
    assert unplaced_figures(full) == {
        "logic_cells_needed": 7099,
        "placed_not_routed": False,
        "placement_fmax_mhz": None,
    }
    congested = (
        "Info: \t         ICESTORM_LC:  4390/ 5280    83%\n"
        "Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 15.78 MHz (PASS at 12.00 MHz)\n"
        "Info:     iter=253 wires=78427 overused=2197 overuse=2197 archfail=NA\n"
    )
    assert unplaced_figures(congested) == {
        "logic_cells_needed": 4390,
        "placed_not_routed": True,
        "placement_fmax_mhz": 15.78,
    }
