"""``wirelab logic soc RUN_DIR``: the classifier as a PicoSoC peripheral on the iCE40 UP5K."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console

from wirelab.cli_options import COUNT, SECONDS, SEED, count, finite_float, out_option
from wirelab.logic.fpga.peripheral import HEADS, INPUT_STAGES
from wirelab.logic.fpga.run import soc_run
from wirelab.logic.fpga.seqhead import HEAD_KINDS
from wirelab.logic.fpga.up5k import DEFAULT_HEAD, UP5K_DEFAULTS
from wirelab.results import sanitize

_console = Console(stderr=True)
CLOCK_MHZ = finite_float(0.0, 1000.0, min_open=True)  # an iCE40 clock in MHz: > 0, <= 1 GHz


@click.command("soc")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path, exists=True))
@click.option(
    "--input-stage",
    type=click.Choice(INPUT_STAGES),
    default="level1",
    show_default=True,
    help="bits: an input register; level1: the first logic level "
    "evaluated as the input words are written.",
)
@click.option(
    "--head",
    type=click.Choice(HEADS),
    default="firmware",
    show_default=True,
    help="hw: popcount and argmax in logic; firmware: on the soft core.",
)
@click.option(
    "--images",
    type=COUNT,
    default=20,
    show_default=True,
    help="Test images the simulated firmware classifies.",
)
@click.option("--no-hardware", is_flag=True, help="Skip synthesis, place and route.")
@click.option("--no-sim", is_flag=True, help="Skip the firmware simulation.")
@click.option(
    "--clock",
    "clock_mhz",
    type=CLOCK_MHZ,
    default=12.0,
    show_default=True,
    help="Clock (MHz) the SoC's timing must meet.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON line.")
def soc_cmd(
    run_dir: Path,
    input_stage: str,
    head: str,
    images: int,
    no_hardware: bool,
    no_sim: bool,
    clock_mhz: float,
    as_json: bool,
) -> None:
    """Put the classifier beside PicoRV32 (PicoSoC, iCEBreaker): place and route, bitstream,
    firmware simulated in Icarus Verilog; writes RUN_DIR/soc/ and RUN_DIR/soc.json."""
    r = soc_run(
        run_dir,
        input_stage=input_stage,
        head=head,
        images=images,
        hardware=not no_hardware,
        simulate=not no_sim,
        clock_mhz=clock_mhz,
        log=lambda m: _console.print(f"[dim]…[/dim] {m}"),
    )
    if as_json:
        click.echo(json.dumps(sanitize(r)[0]))
        return
    if "pnr" in r:
        p = r["pnr"]
        met = "met" if p["timing_met"] else "NOT met"
        click.echo(
            f"SoC + classifier: {p['logic_cells']['used']} of "
            f"{p['logic_cells']['available']} logic cells, Fmax {p['fmax_mhz']} MHz "
            f"({p['clock_mhz']:g} MHz {met}); bitstream {p['bitstream']}"
        )
    elif "pnr_error" in r:
        click.echo(f"does not fit: {r['pnr_error']}")
    if "simulation" in r:
        s = r["simulation"]
        click.echo(
            f"firmware: {s['equal_to_c']} / {s['images']} classes equal to the C back "
            f"end, {s['cycles_per_image']['mean']:.0f} cycles per image"
        )


@click.command("up5k")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path, exists=True))
@out_option(help="Result directory (a new one, or a finished run with --overwrite).")
@click.option(
    "--classes-per-step",
    type=COUNT,
    default=DEFAULT_HEAD.classes_per_step,
    show_default=True,
    help="Classes the sequential head counts per cycle (lanes).",
)
@click.option(
    "--slices",
    type=COUNT,
    default=DEFAULT_HEAD.slices,
    show_default=True,
    help="Cycles per class group: each class's outputs are counted in this many slices.",
)
@click.option(
    "--head-pipeline",
    type=count(min=0),
    default=DEFAULT_HEAD.pipeline,
    show_default=True,
    help="Register rank every K adder-tree levels of the head (0: none).",
)
@click.option(
    "--head-kind",
    type=click.Choice(list(HEAD_KINDS)),
    default=DEFAULT_HEAD.kind,
    show_default=True,
    help="mux: slices read through multiplexers; shift: each class's outputs captured in a "
    "shift register and counted --shift-bits per cycle (local wiring).",
)
@click.option(
    "--shift-bits",
    type=COUNT,
    default=DEFAULT_HEAD.bits,
    show_default=True,
    help="Bits of every class counted per cycle (--head-kind shift).",
)
@click.option(
    "--bus-bits",
    type=COUNT,
    default=UP5K_DEFAULTS["bus_bits"],
    show_default=True,
    help="Input bits loaded per cycle.",
)
@click.option(
    "--input-ram/--input-registers",
    default=UP5K_DEFAULTS["input_ram"],
    show_default=True,
    help="Hold the input bits in block RAM read ports (W <= 16), or in flip-flops.",
)
@click.option(
    "--clock",
    "clock_mhz",
    type=CLOCK_MHZ,
    default=UP5K_DEFAULTS["clock_mhz"],
    show_default=True,
    help="Clock (MHz).",
)
@click.option(
    "--images",
    type=COUNT,
    default=UP5K_DEFAULTS["images"],
    show_default=True,
    help="Test images simulated on the netlist.",
)
@click.option("--no-pnr", is_flag=True, help="Synthesise only (simulate the synthesised netlist).")
@click.option(
    "--seed",
    type=SEED,
    default=UP5K_DEFAULTS["seed"],
    show_default=True,
    help="nextpnr placer seed.",
)
@click.option(
    "--router",
    type=click.Choice(["router1", "router2"]),
    default=UP5K_DEFAULTS["router"],
    show_default=True,
    help="nextpnr router (router2 routed the shift head's 2,000-output design at 71 %).",
)
@click.option(
    "--pnr-timeout",
    type=SECONDS,
    default=UP5K_DEFAULTS["pnr_timeout"],
    show_default=True,
    help="Seconds before nextpnr is stopped (the design is then reported as not routed).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as one JSON line.")
def up5k_cmd(
    run_dir: Path,
    out: Path,
    classes_per_step: int,
    slices: int,
    head_pipeline: int,
    head_kind: str,
    shift_bits: int,
    bus_bits: int,
    input_ram: bool,
    clock_mhz: float,
    images: int,
    no_pnr: bool,
    seed: int,
    router: str,
    pnr_timeout: float,
    overwrite: bool,
    as_json: bool,
) -> None:
    """The whole classifier with a sequential popcount/argmax head on one iCE40 UP5K: place
    and route, bitstream, the netlist simulated in Icarus against the C back end."""
    from wirelab.logic.fpga.seqhead import HeadSpec
    from wirelab.logic.fpga.up5k import up5k_run

    m = up5k_run(
        run_dir,
        out,
        spec=HeadSpec(classes_per_step, slices, head_pipeline, head_kind, shift_bits),
        bus_bits=bus_bits,
        input_ram=input_ram,
        clock_mhz=clock_mhz,
        images=images,
        pnr=not no_pnr,
        seed=seed,
        router=router,
        pnr_timeout=pnr_timeout,
        overwrite=overwrite,
        log=lambda msg: _console.print(f"[dim]…[/dim] {msg}"),
    )
    if as_json:
        click.echo(json.dumps(sanitize(m)[0]))
        return
    click.echo(
        f"{m['head']}: {m['luts']} LUT4 + {m['carry_cells']} carry + {m['flip_flops']} FF; "
        f"C accuracy {m['accuracy_c']:.4f} on {m['test_images']} test images"
    )
    if m.get("fits"):
        met = "met" if m["timing_met"] else "NOT met"
        click.echo(
            f"placed: {m['logic_cells']} of {m['logic_cells_available']} logic cells, Fmax "
            f"{m['fmax_mhz']} MHz ({m['clock_mhz']:g} MHz {met}), {m['cycles_per_image']} cycles "
            f"per image, {m['images_per_s_at_fmax']:,} images/s at Fmax; bitstream "
            f"{m['bitstream_bytes']:,} bytes"
        )
    elif m.get("placed_not_routed"):
        click.echo(f"placed ({m['logic_cells_needed']} of 5280 logic cells) but not routed")
    elif "fits" in m and m.get("logic_cells_needed") is not None:
        click.echo(f"does not fit: needs {m['logic_cells_needed']} of 5280 logic cells")
    elif "fits" in m:  # nextpnr stopped before packing: no count to report
        click.echo(f"not placed: {m.get('pnr_error') or 'nextpnr failed'}")
    click.echo(
        f"{m['postsim_netlist']} netlist in Icarus: {m['postsim_equal_to_c']} / "
        f"{m['postsim_images']} classes equal to the C back end"
    )


@click.command("narrow")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path, exists=True))
@out_option(help="New run directory (a new one, or a finished run with --overwrite).")
@click.option(
    "--per-class",
    type=COUNT,
    required=True,
    help="Outputs kept per class (the most class-selective on the training split).",
)
@click.option(
    "--max-train",
    type=COUNT,
    default=20000,
    show_default=True,
    help="Training images used to score the outputs.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as one JSON line.")
def narrow_cmd(
    run_dir: Path, out: Path, per_class: int, max_train: int, overwrite: bool, as_json: bool
) -> None:
    """Cut the last layer to the most class-selective outputs (no retraining); writes a run
    directory that compile, verify, synth and up5k accept."""
    from wirelab.logic.fpga.narrow import narrow_run

    m = narrow_run(
        run_dir,
        out,
        per_class,
        max_train=max_train,
        overwrite=overwrite,
        log=lambda msg: _console.print(f"[dim]…[/dim] {msg}"),
    )
    if as_json:
        click.echo(json.dumps(sanitize(m)[0]))
        return
    click.echo(
        f"{m['outputs_original']} -> {m['outputs']} outputs: test accuracy "
        f"{m['accuracy_test_original']:.4f} -> {m['accuracy_test_narrowed']:.4f} "
        f"(validation {m['accuracy_val_original']:.4f} -> {m['accuracy_val_narrowed']:.4f})"
    )
