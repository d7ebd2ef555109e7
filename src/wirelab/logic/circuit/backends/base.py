"""What a circuit back end is: the `Backend` entry and the contract its functions share.

A back end is a `Backend` of up to three functions, each optional, and the figures its checks add
to ``metrics.json``:

- ``generate(circuit, out_dir, options) -> Generated``: write the back end's files for the
  simplified ``circuit`` into ``out_dir`` (``RUN_DIR/<name>``), each atomically
  (`wirelab.logic.circuit.tools.write_text`), a file that marks the whole output complete last;
  return the paths, the figures for ``metrics.json`` and a one-line summary;
- ``evaluator(circuit, out_dir) -> Evaluator``: what ``generate`` wrote, loaded as a function
  ``(B, I)`` input bits -> ``((B, O)`` output bits, ``(B, C)`` integer class counts``)``;
- ``check(ctx) -> {name: result}``: compare the back end's output with the discrete model on the
  run's test images (`VerifyContext`); each result is a dict with ``ok`` (``True``, ``False``
  with a ``first_mismatch`` (`first_difference`), or ``None`` when not done) that
  ``verify.json`` records under ``name``;
- ``verified``: the `VerifiedFigure` s that ``wirelab logic verify`` copies from those results
  into ``metrics.json`` (e.g. ``verified_c_images``), with the report's words for them;
- ``summary(results) -> lines``: what ``wirelab logic verify`` prints for the back end's results.

`VerificationError` is what ``wirelab logic verify`` raises when a check failed: the one-line
`describe` of the first mismatch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import UsageError, WirelabError
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.discrete import DiscreteLogicNet

Evaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
Progress = Callable[[str], None]
Results = Mapping[str, Any]  # check name -> result dict, as in verify.json


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
class VerifiedFigure:
    """A figure of ``metrics.json`` copied from a check's result: ``key`` = field ``fields[0]``
    of result ``check`` (with several fields the first true one, else the last one; ``None``
    when the result or field is missing). ``label``: the report's words for it (``""``: not a
    row of the report)."""

    key: str
    check: str
    fields: tuple[str, ...]
    label: str = ""

    def read(self, results: Results) -> Any:
        result = results.get(self.check, {})
        value = None
        for name in self.fields:
            value = value or result.get(name)
        return value


@dataclass(frozen=True)
class Backend:
    """A registered circuit back end (see the module docstring)."""

    generate: Callable[[Circuit, Path, CompileOptions], Generated] | None = None
    evaluator: Callable[[Circuit, Path], Evaluator] | None = None
    check: Callable[[VerifyContext], dict[str, dict[str, Any]]] | None = None
    verified: tuple[VerifiedFigure, ...] = ()
    summary: Callable[[Results], list[str]] | None = None

    @property
    def verified_keys(self) -> tuple[str, ...]:
        """The ``metrics.json`` keys this back end's verification writes."""
        return tuple(f.key for f in self.verified)

    def verified_metrics(self, results: Results) -> dict[str, Any]:
        """``{key: value}`` of `verified` read from the check results."""
        return {f.key: f.read(results) for f in self.verified}


class VerificationError(WirelabError):
    """A compiled artifact computes something other than the discrete model."""


def first_difference(check: str, i: int, got: np.ndarray, want: np.ndarray) -> dict[str, Any]:
    """The ``first_mismatch`` record of a check: input ``i``, up to 8 differing positions of the
    1-D arrays ``got`` and ``want`` and both values there."""
    idx = np.flatnonzero(got != want)[:8]
    return {
        "check": check,
        "input": int(i),
        "positions": idx.tolist(),
        "got": np.asarray(got)[idx].astype(int).tolist(),
        "expected": np.asarray(want)[idx].astype(int).tolist(),
    }


def describe(m: dict[str, Any]) -> str:
    """One line for a ``first_mismatch`` record."""
    return (
        f"{m['check']} differs on test input {m['input']}: at positions {m['positions']} "
        f"got {m['got']}, expected {m['expected']}"
    )
