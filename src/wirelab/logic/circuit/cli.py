"""``wirelab logic compile | verify | synth RUN_DIR``: the circuit tools on a trained run.

`register` adds the commands to the ``wirelab logic`` group (called by `wirelab.logic.cli`). Each
command parses its options and calls one function of `wirelab.logic.circuit.rundir`, which alone
writes into the run directory; the back ends and synthesis targets offered are the registries
`wirelab.logic.circuit.backends.BACKENDS` and `wirelab.logic.circuit.targets.TARGETS`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from wirelab.cli_options import COUNT, SECONDS, count, finite_float
from wirelab.logic.circuit.backends import BACKENDS
from wirelab.logic.circuit.rundir import compile_run, resolve_backends, synth_run, verify_run
from wirelab.logic.circuit.targets import DEFAULT_TARGET, TARGETS
from wirelab.registry import RegistryChoice
from wirelab.results import sanitize

_console = Console(stderr=True)
PIPELINE = count(min=0, max=1024)  # a register rank every K levels (0: none)


def _log(msg: str) -> None:
    _console.print(f"[dim]…[/dim] {msg}")


def _echo(obj: Any, as_json: bool, lines: list[str]) -> None:
    if as_json:
        click.echo(json.dumps(sanitize(obj)[0]))  # non-finite numbers as null, as in the files
    else:
        for ln in lines:
            click.echo(ln)


class _BackendChoice(RegistryChoice):
    """A registered back end, or ``all`` (every back end the command applies to)."""

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join((*self.registry.names(), "all")) + "]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return "all" if value == "all" else super().convert(value, param, ctx)


run_dir_arg = click.argument(
    "run_dir", type=click.Path(file_okay=False, path_type=Path, exists=True)
)


@click.command("compile")
@run_dir_arg
@click.option(
    "--backend",
    "--target",
    "backends",
    type=_BackendChoice(BACKENDS),
    multiple=True,
    default=("all",),
    show_default=True,
    help="Back end to write into RUN_DIR/<back end> (repeatable): "
    + "; ".join(f"{n}: {h}" for n, h in BACKENDS.describe()),
)
@click.option(
    "--pipeline",
    type=PIPELINE,
    default=0,
    show_default=True,
    help="Also write Verilog with a register rank every K logic levels.",
)
@click.option(
    "--word-bits",
    type=click.Choice(["8", "16", "32", "64"]),
    default="64",
    show_default=True,
    help="C word width (samples per word).",
)
@click.option(
    "--lanes",
    type=count(1, 64),
    default=1,
    show_default=True,
    help="C words per operation (GCC vector extension; 4 x 64 = AVX2).",
)
@click.option("--opt", default="-O2", show_default=True, help="C optimisation flag.")
@click.option("--native", is_flag=True, help="Compile with -march=native.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON line.")
def compile_cmd(
    run_dir: Path,
    backends: tuple[str, ...],
    pipeline: int,
    word_bits: str,
    lanes: int,
    opt: str,
    native: bool,
    as_json: bool,
) -> None:
    """Simplify the run's circuit and write C (compiled), Verilog, ... into RUN_DIR."""
    m = compile_run(
        run_dir,
        backends,
        pipeline=pipeline,
        word_bits=int(word_bits),
        lanes=lanes,
        opt=opt,
        march_native=native,
        log=_log,
    )
    lines = [f"gates: {m['gates_raw']} -> {m['gates_simplified']} (depth {m['logic_depth']})"]
    lines += [out["summary"] for out in m["backends"].values() if out["summary"]]
    _echo(m, as_json, lines)


@click.command("verify")
@run_dir_arg
@click.option(
    "--backend",
    "backends",
    type=_BackendChoice(BACKENDS),
    multiple=True,
    default=("all",),
    show_default=True,
    help="Back end whose check to run (repeatable; all: every back end with a check).",
)
@click.option(
    "--sim-vectors",
    type=COUNT,
    default=1000,
    show_default=True,
    help="Test images simulated with Icarus Verilog.",
)
@click.option(
    "--formal-max-gates",
    type=count(min=0),
    default=20000,
    show_default=True,
    help="Prove equivalence formally only up to this many gates.",
)
@click.option(
    "--formal-timeout",
    type=SECONDS,
    default=600,
    show_default=True,
    help="Seconds before the formal proof is stopped.",
)
@click.option(
    "--pipeline",
    type=PIPELINE,
    default=0,
    show_default=True,
    help="Also simulate the module pipelined every K levels.",
)
@click.option("--json", "as_json", is_flag=True)
def verify_cmd(
    run_dir: Path,
    backends: tuple[str, ...],
    sim_vectors: int,
    formal_max_gates: int,
    formal_timeout: float,
    pipeline: int,
    as_json: bool,
) -> None:
    """Check C, Verilog and the formal proof against the discrete model; exit 1 on a mismatch."""
    r = verify_run(
        run_dir,
        backends,
        sim_vectors=sim_vectors,
        formal_max_gates=formal_max_gates,
        formal_timeout=formal_timeout,
        pipeline=pipeline,
        log=_log,
    )
    lines = []
    for name in resolve_backends(backends, "verify"):
        summary = BACKENDS.get(name).summary
        lines += summary(r) if summary is not None else []
    _echo(r, as_json, [*lines, "verified: true"])


@click.command("synth")
@run_dir_arg
@click.option(
    "--target",
    type=TARGETS.choice(),
    default=DEFAULT_TARGET,
    show_default=True,
    help="; ".join(f"{n}: {h}" for n, h in TARGETS.describe()),
)
@click.option(
    "--no-heads",
    is_flag=True,
    help="Synthesise the gate network only (no GroupSum adders, no argmax).",
)
@click.option(
    "--pnr",
    is_flag=True,
    help="Also place and route (nextpnr-ice40) and write the bitstream (icepack).",
)
@click.option(
    "--clock",
    "clock_mhz",
    type=finite_float(0.0, 1000.0, min_open=True),
    default=12.0,
    show_default=True,
    help="Clock (MHz) that --pnr's timing must meet.",
)
@click.option(
    "--pipeline",
    type=PIPELINE,
    default=0,
    show_default=True,
    help="Register rank every K logic levels and K adder-tree levels.",
)
@click.option("--json", "as_json", is_flag=True)
def synth_cmd(
    run_dir: Path,
    target: str,
    no_heads: bool,
    pnr: bool,
    clock_mhz: float,
    pipeline: int,
    as_json: bool,
) -> None:
    """Synthesise the circuit with yosys; write synth.json (LUTs, depth, fit; with --pnr placed
    cells, Fmax, timing and the bitstream)."""
    r = synth_run(
        run_dir,
        target,
        heads=not no_heads,
        pnr=pnr,
        clock_mhz=clock_mhz,
        pipeline=pipeline,
        log=_log,
    )
    fit = ""
    if "fits" in r:
        fit = f", {'fits' if r['fits'] else 'does NOT fit'} {r['device']} ({r['device_luts']} LUT4)"
    lines = [f"{r['luts']} LUT{r['lut_inputs']}, depth {r['depth_cells']} cells{fit}"]
    if "pnr" in r:
        p = r["pnr"]
        met = "met" if p["timing_met"] else "NOT met"
        lines.append(
            f"placed: {p['logic_cells']['used']} of {p['logic_cells']['available']} "
            f"logic cells, Fmax {p['fmax_mhz']} MHz ({p['clock_mhz']:g} MHz {met}), "
            f"{p['images_per_s']:,} images/s; bitstream {p['bitstream']}"
        )
    _echo(r, as_json, lines)


def register(group: click.Group) -> None:
    """Add compile, verify, synth, soc, up5k and narrow to the ``wirelab logic`` group."""
    from wirelab.logic.fpga.cli import narrow_cmd, soc_cmd, up5k_cmd

    for cmd in (compile_cmd, verify_cmd, synth_cmd, soc_cmd, up5k_cmd, narrow_cmd):
        group.add_command(cmd)
