"""Circuit back ends: the one list (`BACKENDS`) that ``wirelab logic compile --backend``, its
validation, ``wirelab logic verify`` and the docs read.

A back end is a `Backend` of up to three functions, each optional:

- ``generate(circuit, out_dir, options) -> Generated``: write the back end's files for the
  simplified ``circuit`` into ``out_dir`` (``RUN_DIR/<name>``), each atomically
  (`wirelab.logic.circuit.tools.write_text`), a file that marks the whole output complete last;
  return the paths, the figures for ``metrics.json`` and a one-line summary;
- ``evaluator(circuit, out_dir) -> Evaluator``: what ``generate`` wrote, loaded as a function
  ``(B, I)`` input bits -> ``((B, O)`` output bits, ``(B, C)`` integer class counts``)``;
- ``check(ctx) -> {name: result}``: compare the back end's output with the discrete model on the
  run's test images (`VerifyContext`); each result is a dict with ``ok`` (``True``, ``False``
  with a ``first_mismatch``, or ``None`` when not done) that ``verify.json`` records.

Adding a back end is one module defining ``BACKEND = Backend(...)`` and one line below,
``BACKENDS.add("name", "package.module:BACKEND", "help")`` (a lazy entry: the module is imported
when the back end is first used). The built-in ones are defined here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import UsageError
from wirelab.logic.circuit.c_build import build, load_compiled, write_build_info
from wirelab.logic.circuit.equivalence import check_c, check_formal, check_verilog
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.python_backend import PyEvaluator
from wirelab.logic.circuit.tools import ToolError, write_text
from wirelab.logic.circuit.verilog_backend import generate_reference_verilog, generate_verilog
from wirelab.logic.discrete import DiscreteLogicNet
from wirelab.registry import Registry

Evaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
Progress = Callable[[str], None]


def _noop(msg: str) -> None:
    pass


@dataclass(frozen=True)
class CompileOptions:
    """Options of ``wirelab logic compile``; a back end reads the ones it needs.

    ``reference``: the circuit as built from the network, before the passes (for back ends that
    also write a reference model of it, e.g. the Verilog netlist ``wl_ref.v``).
    """

    pipeline: int = 0
    word_bits: int = 64
    lanes: int = 1
    opt: str = "-O2"
    march_native: bool = False
    reference: Circuit | None = None

    def __post_init__(self) -> None:
        if self.pipeline < 0:
            raise UsageError("--pipeline must be >= 0")
        if self.word_bits not in (8, 16, 32, 64):
            raise UsageError(f"--word-bits must be 8, 16, 32 or 64, got {self.word_bits}")
        if self.lanes < 1 or self.lanes & (self.lanes - 1):
            raise UsageError(f"--lanes must be a power of two, got {self.lanes}")


@dataclass(frozen=True)
class VerifyOptions:
    """Options of ``wirelab logic verify``."""

    sim_vectors: int = 1000
    formal_max_gates: int = 20000
    formal_timeout: float = 600
    pipeline: int = 0

    def __post_init__(self) -> None:
        if self.sim_vectors < 1:
            raise UsageError("--sim-vectors must be at least 1")
        if self.pipeline < 0:
            raise UsageError("--pipeline must be >= 0")


@dataclass(frozen=True)
class Generated:
    paths: list[Path]
    metrics: dict[str, Any] = field(default_factory=dict)
    summary: str = ""


@dataclass(frozen=True)
class VerifyContext:
    """What a back end's check gets: the run directory, both circuits, the discrete model and
    the run's test split ``x`` ``(N, F)``, with the PyTorch model's class scores when the run
    saved one (``torch_scores``: ``(B, F)`` -> ``(B, C)``)."""

    run_dir: Path
    raw: Circuit
    circuit: Circuit
    net: DiscreteLogicNet
    x: np.ndarray
    options: VerifyOptions
    torch_scores: Callable[[np.ndarray], np.ndarray] | None = None
    log: Progress = _noop


@dataclass(frozen=True)
class Backend:
    generate: Callable[[Circuit, Path, CompileOptions], Generated] | None = None
    evaluator: Callable[[Circuit, Path], Evaluator] | None = None
    check: Callable[[VerifyContext], dict[str, dict[str, Any]]] | None = None


BACKENDS = Registry[Backend]("circuit back end")


def generating_backends() -> tuple[str, ...]:
    """The back ends that write files (what ``--backend all`` compiles), in registry order."""
    return tuple(name for name in BACKENDS.names() if BACKENDS.get(name).generate is not None)


# ---- python (numpy): the reference; nothing to write ---------------------------------------
def _python_evaluator(circuit: Circuit, out_dir: Path) -> Evaluator:
    ev = PyEvaluator(circuit)

    def evaluate(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = ev.forward_bits(bits)
        return out, circuit.counts_from_bits(out)

    return evaluate


# ---- C: sources, a shared library and build.json -------------------------------------------
def _generate_c(circuit: Circuit, out_dir: Path, opts: CompileOptions) -> Generated:
    (out_dir / "build.json").unlink(missing_ok=True)  # written again once the library is built
    flags = ("-march=native",) if opts.march_native else ()
    lib, built = build(circuit, out_dir, word_bits=opts.word_bits, lanes=opts.lanes,
                       opt=opts.opt, extra_flags=flags)  # fmt: skip
    info = write_build_info(out_dir, built, word_bits=opts.word_bits, lanes=opts.lanes,
                            opt=opts.opt)  # fmt: skip
    metrics = {
        "c_compile_seconds": round(built.seconds, 3),
        "c_compile_cpu_seconds": round(built.cpu_seconds, 3),
        "c_flags": " ".join(built.flags),
        "c_word_bits": opts.word_bits * opts.lanes,
    }
    paths = [out_dir / name for name in lib.src.files] + [built.library, info]
    summary = f"C compiled in {built.seconds:.2f} s ({metrics['c_flags']})"
    return Generated(paths, metrics, summary)


def _c_evaluator(circuit: Circuit, out_dir: Path) -> Evaluator:
    return load_compiled(out_dir, circuit).forward_bits


def _check_c(ctx: VerifyContext) -> dict[str, dict[str, Any]]:
    lib = load_compiled(ctx.run_dir / "c", ctx.circuit)
    ctx.log(f"C library vs the discrete model on {len(ctx.x)} test images")
    return {"c": check_c(lib, ctx.net, ctx.x, torch_scores=ctx.torch_scores)}


# ---- Verilog: the module, its pipelined form and the reference netlist ---------------------
def _generate_verilog(circuit: Circuit, out_dir: Path, opts: CompileOptions) -> Generated:
    paths = [write_text(out_dir / "wl_circuit.v", generate_verilog(circuit).text)]
    if opts.reference is not None:
        ref = generate_reference_verilog(opts.reference).text
        paths.append(write_text(out_dir / "wl_ref.v", ref))
    metrics: dict[str, Any] = {}
    if opts.pipeline:
        vm = generate_verilog(circuit, module=f"wl_circuit_pipe{opts.pipeline}",
                              pipeline=opts.pipeline)  # fmt: skip
        paths.append(write_text(out_dir / f"{vm.module}.v", vm.text))
        metrics["verilog_pipeline_latency"] = vm.latency
    return Generated(paths, metrics, f"Verilog: {out_dir}")


def _check_verilog(ctx: VerifyContext) -> dict[str, dict[str, Any]]:
    """Icarus simulation (combinational, and pipelined with ``--pipeline``) on the first
    ``sim_vectors`` test images, then the formal proof against the unsimplified circuit."""
    o, work = ctx.options, ctx.run_dir / "verify"
    n_sim = min(o.sim_vectors, len(ctx.x))
    xs = ctx.x[:n_sim]
    ctx.log(f"Icarus Verilog simulation on {n_sim} test images")
    result = {"verilog": check_verilog(ctx.circuit, ctx.net, xs, work / "sim")}
    if o.pipeline:
        ctx.log(f"Icarus Verilog simulation, pipeline every {o.pipeline} levels")
        result["verilog_pipelined"] = check_verilog(
            ctx.circuit, ctx.net, xs, work / f"sim_pipe{o.pipeline}", pipeline=o.pipeline
        )
    result["formal"] = _formal(ctx)
    return result


def _formal(ctx: VerifyContext) -> dict[str, Any]:
    o, gates = ctx.options, ctx.raw.num_gates
    if gates > o.formal_max_gates:
        return {"ok": None, "skipped": f"{gates} gates > {o.formal_max_gates}"}
    ctx.log(f"formal equivalence with yosys ({gates} gates)")
    try:
        return check_formal(ctx.raw, ctx.circuit, ctx.run_dir / "verify" / "formal",
                            timeout=o.formal_timeout)  # fmt: skip
    except ToolError as exc:
        if "timed out" not in str(exc):
            raise
        return {"ok": None, "skipped": f"proof timed out ({o.formal_timeout:.0f} s)"}


BACKENDS.add(
    "python",
    Backend(evaluator=_python_evaluator),
    "numpy on packed words, level at a time: the reference (writes nothing)",
)
BACKENDS.add(
    "c",
    Backend(generate=_generate_c, evaluator=_c_evaluator, check=_check_c),
    "bit-parallel C, compiled to a shared library (ctypes)",
)
BACKENDS.add(
    "verilog",
    Backend(generate=_generate_verilog, check=_check_verilog),
    "combinational (or pipelined) Verilog module, simulated with Icarus, proved with yosys",
)
