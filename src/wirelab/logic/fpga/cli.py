"""``wirelab logic soc RUN_DIR``: the classifier as a PicoSoC peripheral on the iCE40 UP5K."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console

from wirelab.logic.fpga.peripheral import HEADS, INPUT_STAGES
from wirelab.logic.fpga.run import soc_run
from wirelab.results import sanitize

_console = Console(stderr=True)


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
    type=int,
    default=20,
    show_default=True,
    help="Test images the simulated firmware classifies.",
)
@click.option("--no-hardware", is_flag=True, help="Skip synthesis, place and route.")
@click.option("--no-sim", is_flag=True, help="Skip the firmware simulation.")
@click.option(
    "--clock",
    "clock_mhz",
    type=float,
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
