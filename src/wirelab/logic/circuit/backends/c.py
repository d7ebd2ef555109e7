"""The ``c`` back end: bit-parallel C (`_c_source`), compiled to a shared library and called
through ctypes (`_c_build`), checked on every test image.

``RUN_DIR/c/`` gets ``wl_model.h``, ``wl_model*.c``, ``libwl_model_<hash>.so`` and, last,
``build.json``. The check (`check_c`) compares all output bits with the discrete model's numpy
reference and the class counts and predictions with the PyTorch discrete model (``mode="hard"``)
when the run saved one; ``metrics.json`` gets ``verified_c_images`` (test images checked) and
``verified_c_reference`` (``pytorch`` or ``numpy``).

This module is also the public face of the C tools: `generate_c`, `build`, `CLibrary`,
`load_compiled`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.logic.circuit.backends._c_build import (
    CLibrary,
    CompiledC,
    build,
    load_compiled,
    write_build_info,
)
from wirelab.logic.circuit.backends._c_source import CSources, generate_c
from wirelab.logic.circuit.backends.base import (
    Backend,
    CompileOptions,
    Evaluator,
    Generated,
    Results,
    VerifiedFigure,
    VerifyContext,
    first_difference,
)
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.discrete import DiscreteLogicNet

__all__ = [
    "BACKEND",
    "CLibrary",
    "CSources",
    "CompiledC",
    "build",
    "check_c",
    "generate_c",
    "load_compiled",
]


def generate(circuit: Circuit, out_dir: Path, opts: CompileOptions) -> Generated:
    """Write the sources, build the library, then ``build.json``."""
    (out_dir / "build.json").unlink(missing_ok=True)  # written again once the library is built
    flags = ("-march=native",) if opts.march_native else ()
    lib, built = build(
        circuit,
        out_dir,
        word_bits=opts.word_bits,
        lanes=opts.lanes,
        opt=opts.opt,
        extra_flags=flags,
    )
    info = write_build_info(
        out_dir, built, word_bits=opts.word_bits, lanes=opts.lanes, opt=opts.opt
    )
    metrics = {
        "c_compile_seconds": round(built.seconds, 3),
        "c_compile_cpu_seconds": round(built.cpu_seconds, 3),
        "c_flags": " ".join(built.flags),
        "c_word_bits": opts.word_bits * opts.lanes,
    }
    paths = [out_dir / name for name in lib.src.files] + [built.library, info]
    summary = f"C compiled in {built.seconds:.2f} s ({metrics['c_flags']})"
    return Generated(paths, metrics, summary)


def evaluator(circuit: Circuit, out_dir: Path) -> Evaluator:
    """The library built in ``out_dir``, as bits -> (output bits, counts)."""
    return load_compiled(out_dir, circuit).forward_bits


def check(ctx: VerifyContext) -> dict[str, dict[str, Any]]:
    """``{"c": result}``: the library of ``RUN_DIR/c`` on every test image (`check_c`)."""
    lib = load_compiled(ctx.run_dir / "c", ctx.circuit)
    ctx.log(f"C library vs the discrete model on {len(ctx.x)} test images")
    return {"c": check_c(lib, ctx.net, ctx.x, torch_scores=ctx.torch_scores)}


def check_c(
    lib: CLibrary,
    net: DiscreteLogicNet,
    x: np.ndarray,
    *,
    torch_scores: Callable[[np.ndarray], np.ndarray] | None = None,
    chunk: int = 4096,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """C library vs the discrete model on all of ``x`` ``(N, F)``; stops at the first mismatch.

    Per chunk: the output bits against `DiscreteLogicNet.forward_bits`, then the counts of
    ``wl_eval_batch`` and ``wl_classify`` and the predicted class against the reference counts
    (``rint(torch_scores * tau)`` with a PyTorch model, else the group sums of the bits)."""
    n = len(x)
    flat = np.asarray(x).reshape(n, -1)
    for s in range(0, n, chunk):
        xb = flat[s : s + chunk]
        bits = net.binarize(xb)
        out, counts = lib.forward_bits(bits)
        ref = net.forward_bits(bits)
        bad = np.flatnonzero((out != ref).any(axis=1))
        if bad.size:
            j = int(bad[0])
            first = first_difference("C output bits", s + j, out[j], ref[j])
            return {"ok": False, "checked": s + j, "first_mismatch": first}
        pred, counts_c = lib.classify(xb)
        ref_counts = ref.reshape(len(ref), net.num_classes, -1).sum(-1)
        name = "C class counts vs numpy"
        if torch_scores is not None:
            ref_counts = np.rint(torch_scores(xb) * net.tau).astype(np.int64)
            name = "C class counts vs PyTorch"
        for got, want, what in (
            (counts, ref_counts, name),
            (counts_c, ref_counts, name + " (wl_classify)"),
            (pred[:, None], np.argmax(ref_counts, axis=1)[:, None], "C predicted class"),
        ):
            bad = np.flatnonzero((got != want).any(axis=1))
            if bad.size:
                j = int(bad[0])
                first = first_difference(what, s + j, got[j], want[j])
                return {"ok": False, "checked": s + j, "first_mismatch": first}
        if progress is not None:
            progress(len(xb))
    return {"ok": True, "checked": n, "reference": "pytorch" if torch_scores else "numpy"}


def summary(results: Results) -> list[str]:
    """The ``verify`` line of the C check."""
    if "c" not in results:
        return []
    c = results["c"]
    return [f"C: {c['checked']} test images agree with the {c['reference']} discrete model"]


BACKEND = Backend(
    generate=generate,
    evaluator=evaluator,
    check=check,
    verified=(
        VerifiedFigure("verified_c_images", "c", ("checked",), "C library checked on (images)"),
        VerifiedFigure("verified_c_reference", "c", ("reference",)),
    ),
    summary=summary,
)
