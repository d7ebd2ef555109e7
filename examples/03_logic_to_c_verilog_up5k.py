"""From training to an FPGA: a logic gate network becomes C, Verilog and an iCE40 UP5K bitstream.

A differentiable logic gate network learns, for each neuron, which of the 16 two-input Boolean
functions to compute (a softmax over 16 gate logits while training). Discretised, it *is* a
Boolean circuit, so the same network runs as bit-parallel C, as a Verilog module, and as
configured logic cells of a small FPGA, each checked equal to the network:

1. **train** the ``mnist01`` recipe (MNIST 0 vs 1, two layers of 250 gates, the 2022 paper's
   input setup) with `wirelab.logic.train`, the loop ``wirelab logic train`` runs;
2. **discretise**: every neuron keeps its argmax gate (`discretize`), and the circuit passes
   remove constant, pass-through and dead gates (`to_circuit`);
3. **compile** to C (a shared library) and Verilog (`export_c`, `export_verilog`);
4. **check** them (`verify`): the C library on every test image, the Verilog module in Icarus,
   and a yosys proof that the simplified circuit equals the trained network;
5. **place and route** the whole classifier (network + a sequential popcount/argmax head) on an
   iCE40 UP5K with yosys and nextpnr-ice40 (`up5k`), then simulate the routed netlist against C.

Steps 4 and 5 need yosys, Icarus Verilog and nextpnr-ice40 (``make install`` installs them);
without them they are skipped with the reason printed.

    python examples/03_logic_to_c_verilog_up5k.py           # the mnist01 recipe (about 30 s)
    python examples/03_logic_to_c_verilog_up5k.py --small   # 400 steps, 2 x 60 gates (CI size)

``--recipe mnist10-up5k`` runs the ten-class classifier sized for the UP5K
the same way (40,000 training steps: hours on one core; its place and route takes minutes).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from wirelab.logic import discretize, export_c, export_verilog, to_circuit, train, up5k, verify
from wirelab.logic.circuit.tools import have

RECIPE = "mnist01"  # a recipe by name (wirelab.logic.RECIPES), or the path of a TOML file
PROOF_TOOLS = ("yosys", "iverilog", "vvp")
FPGA_TOOLS = ("yosys", "nextpnr-ice40", "icepack", "iverilog", "vvp")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a tiny model (CI size)")
    parser.add_argument(
        "--out", type=Path, default=Path("runs/examples/03_logic_to_c_verilog_up5k")
    )
    parser.add_argument(
        "--recipe", default=RECIPE, help="a recipe name (wirelab logic recipes) or a TOML file"
    )
    args = parser.parse_args()
    summary: dict[str, object] = {}

    # 1. train: the recipe as the CLI reads it; --small overrides the run length and widths
    small = {"steps": 400, "eval_every": 100, "dense": [60, 60]} if args.small else {}
    result = train(args.recipe, out=args.out / "run", overwrite=True, quiet=True, **small)
    m = result.metrics
    print(f"trained {Path(args.recipe).stem}: {m['steps_run']} steps in {m['train_seconds']:.1f} s")
    print(
        f"test accuracy ({m['n_test']} images): relaxed {m['accuracy_soft']:.4f}, "
        f"discrete {result.accuracy:.4f}"
    )

    # 2. discretise: one Boolean gate per neuron, then the circuit passes
    net = discretize(result.model)
    circuit = to_circuit(net)
    print(
        f"gates: {net.gates} in the network, {circuit.num_gates} after simplification "
        f"(logic depth {circuit.depth})"
    )
    summary.update(accuracy_discrete=result.accuracy, gates=net.gates)
    summary.update(gates_simplified=circuit.num_gates, logic_depth=circuit.depth)

    # 3. C and Verilog, written into the run directory (as `wirelab logic compile` does)
    c_files, v_files = export_c(result), export_verilog(result)
    print(f"C: {', '.join(p.name for p in c_files[:2])}, ... in {c_files[0].parent}")
    print(f"Verilog: {', '.join(p.name for p in v_files)} in {v_files[0].parent}")

    # 4. equivalence: C on every test image; Verilog simulated and proved (when installed)
    checks = ["c", "verilog"] if have(*PROOF_TOOLS) else ["c"]
    record = verify(result, checks)
    c = record["c"]
    print(f"C library equal to the network on {c['checked']} test images: {c['ok']}")
    if "verilog" in record:
        sim, proof = record["verilog"], record["formal"]
        print(f"Verilog in Icarus equal on {sim['vectors']} test images: {sim['ok']}")
        print(f"yosys proof, simplified circuit == trained network: {proof['ok']}")
    else:
        print(f"Verilog checks skipped: {', '.join(PROOF_TOOLS)} not all installed")
    summary["verified"] = record["verified"]

    # 5. the whole classifier on one iCE40 UP5K: synthesis, place and route, bitstream
    if have(*FPGA_TOOLS):
        images = 20 if args.small else 200
        fpga = up5k(result, args.out / "up5k", images=images, overwrite=True)
        print(
            f"UP5K: {fpga['logic_cells']} of {fpga['logic_cells_available']} logic cells, "
            f"Fmax {fpga['fmax_mhz']} MHz, {fpga['cycles_per_image']} cycles per image, "
            f"bitstream {fpga['bitstream_bytes']:,} bytes"
        )
        print(
            f"routed netlist in Icarus: {fpga['postsim_equal_to_c']} of {fpga['postsim_images']} "
            f"classes equal to the C back end"
        )
        summary.update({k: fpga[k] for k in ("logic_cells", "fmax_mhz", "bitstream_bytes")})
    else:
        print(f"UP5K step skipped: {', '.join(FPGA_TOOLS)} not all installed (make install)")
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"wrote {args.out / 'summary.json'} (the run in {result.out})")


if __name__ == "__main__":
    main()
