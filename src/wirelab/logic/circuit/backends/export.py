"""The circuit back ends from Python: a discrete network, or a training run, to C or Verilog.

`to_circuit` builds the `Circuit` of a `DiscreteLogicNet` and runs the simplification passes;
`export` writes one back end's files (`BACKENDS`) for it. A *training run directory* (what
``wirelab logic train`` or `wirelab.logic.train` with ``out=`` writes) goes through
`wirelab.logic.circuit.rundir.compile_run`, exactly as ``wirelab logic compile`` does: its
files land in ``RUN_DIR/<back end>/`` and its figures in the run's ``metrics.json``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wirelab.errors import UsageError
from wirelab.logic.circuit.backends import BACKENDS, CompileOptions
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.passes import simplify
from wirelab.logic.discrete import DiscreteLogicNet

__all__ = ["export", "export_c", "export_verilog", "to_circuit"]

Source = DiscreteLogicNet | str | Path | Any  # a net, a run directory, or a `Trained`


def to_circuit(net: DiscreteLogicNet, *, simplified: bool = True) -> Circuit:
    """The circuit of ``net``: 2-input gates between the input thresholds and the GroupSum
    head; ``simplified`` (default) after constant folding, pass-through removal, structural
    hashing and dead-gate elimination (`wirelab.logic.circuit.passes.simplify`), which keep
    every class score. ``circuit.num_gates`` and ``circuit.depth`` are its size and depth."""
    raw = Circuit.from_net(net)
    return simplify(raw)[0] if simplified else raw


def _net_or_run(source: Source) -> DiscreteLogicNet | Path:
    """A `DiscreteLogicNet`, or the run directory a source names (a `Trained` with ``out``)."""
    if isinstance(source, DiscreteLogicNet):
        return source
    if isinstance(source, (str, Path)):
        return Path(source)
    out, net = getattr(source, "out", None), getattr(source, "net", None)
    if out is not None:
        return Path(out)
    if isinstance(net, DiscreteLogicNet):
        return net
    raise UsageError(f"cannot export {type(source).__name__}: give a DiscreteLogicNet or a run")


def export(
    source: Source, backend: str, out: str | Path | None = None, **options: Any
) -> list[Path]:
    """Write back end ``backend``'s files (a `BACKENDS` name) for ``source``; the paths written.

    ``source`` is a `DiscreteLogicNet` (files into ``out``), or a training run directory or a
    `Trained` that has one (files into ``RUN_DIR/<backend>``, ``out`` must be unset).
    ``options`` are `CompileOptions` fields (``pipeline``, ``word_bits``, ``lanes``, ``opt``,
    ``march_native``)."""
    if BACKENDS.get(backend).generate is None:
        raise UsageError(f"the {backend} back end writes nothing to export")
    what = _net_or_run(source)
    if isinstance(what, Path):
        if out is not None:
            raise UsageError(f"a run's {backend} files go in {what / backend}; leave out unset")
        from wirelab.logic.circuit.rundir import compile_run

        m = compile_run(what, backend, **options)
        return [what / f for f in m["backends"][backend]["files"]]
    if out is None:
        raise UsageError("export of a DiscreteLogicNet needs out= (the folder for its files)")
    raw = Circuit.from_net(what)
    simple, _ = simplify(raw)
    generate = BACKENDS.get(backend).generate
    assert generate is not None
    opts = CompileOptions(reference=raw, **options)
    return list(generate(simple, Path(out), opts).paths)


def export_c(source: Source, out: str | Path | None = None, **options: Any) -> list[Path]:
    """The bit-parallel C classifier of ``source`` (sources, ``wl_classify`` shared library and
    ``build.json``), compiled with the system C compiler; see `export`.

    Example:
        >>> paths = export_c(net, "net_c")  # doctest: +SKIP
    """
    return export(source, "c", out, **options)


def export_verilog(source: Source, out: str | Path | None = None, **options: Any) -> list[Path]:
    """The combinational Verilog classifier of ``source`` (``wl_circuit.v``, the unsimplified
    reference ``wl_ref.v``, and with ``pipeline=K`` a pipelined module); see `export`."""
    return export(source, "verilog", out, **options)
