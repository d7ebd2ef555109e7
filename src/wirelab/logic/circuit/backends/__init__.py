"""Circuit back ends: the one list (`BACKENDS`) that ``wirelab logic compile --backend``, its
validation, ``wirelab logic verify``, the report and the docs read.

Each back end is one module of this package defining ``BACKEND = Backend(...)`` (the entry type
and its contract: `wirelab.logic.circuit.backends.base`), registered below in one line as a lazy
``"module:BACKEND"`` entry (imported when the back end is first used). Adding a back end is one
module plus one ``BACKENDS.add`` line. Modules whose names start with ``_`` are helpers of one
back end (the C sources, templates and build; the Verilog writer, simulation and proof).
"""

from __future__ import annotations

from wirelab.logic.circuit.backends.base import (
    Backend,
    CompileOptions,
    Generated,
    VerifiedFigure,
    VerifyContext,
    VerifyOptions,
)
from wirelab.registry import Registry

__all__ = [
    "BACKENDS",
    "Backend",
    "CompileOptions",
    "Generated",
    "VerifiedFigure",
    "VerifyContext",
    "VerifyOptions",
    "checking_backends",
    "generating_backends",
    "verification_figures",
    "verification_keys",
]

BACKENDS = Registry[Backend]("circuit back end")
BACKENDS.add(
    "python",
    "wirelab.logic.circuit.backends.python:BACKEND",
    "numpy on packed words, level at a time: the reference (writes nothing)",
)
BACKENDS.add(
    "c",
    "wirelab.logic.circuit.backends.c:BACKEND",
    "bit-parallel C, compiled to a shared library (ctypes)",
)
BACKENDS.add(
    "verilog",
    "wirelab.logic.circuit.backends.verilog:BACKEND",
    "combinational (or pipelined) Verilog module, simulated with Icarus, proved with yosys",
)


def generating_backends() -> tuple[str, ...]:
    """The back ends that write files (what ``compile --backend all`` compiles), in order."""
    return tuple(name for name in BACKENDS.names() if BACKENDS.get(name).generate is not None)


def checking_backends() -> tuple[str, ...]:
    """The back ends with a check (what ``verify --backend all`` checks), in order."""
    return tuple(name for name in BACKENDS.names() if BACKENDS.get(name).check is not None)


def verification_figures() -> list[VerifiedFigure]:
    """Every back end's `VerifiedFigure` s, in registry order (the report's rows)."""
    return [f for name in BACKENDS.names() for f in BACKENDS.get(name).verified]


def verification_keys() -> tuple[str, ...]:
    """The ``metrics.json`` keys ``wirelab logic verify`` writes besides ``verified``."""
    return tuple(f.key for f in verification_figures())
