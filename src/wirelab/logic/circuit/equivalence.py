"""Equivalence checks of the compiled artifacts against the discrete model.

- `check_c`: the C library on every test image against the discrete model: all output bits
  against the numpy reference (`DiscreteLogicNet.forward_bits`) and the class counts and
  predictions against the PyTorch discrete model (``mode="hard"``) when the run has one.
- `check_verilog`: Icarus Verilog simulation of the generated module (`simulate`).
- `check_formal`: yosys proof that the simplified module equals the reference netlist written
  from the unsimplified circuit IR (`formal`).

Each returns a dict with ``ok`` and, on a mismatch, ``first_mismatch`` (the input index, the
differing outputs and both values); `VerificationError` carries the first mismatch as its
one-line message.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import WirelabError
from wirelab.logic.circuit.c_build import CLibrary
from wirelab.logic.circuit.formal import prove_equivalent
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.simulate import simulate
from wirelab.logic.circuit.verilog_backend import generate_reference_verilog, generate_verilog
from wirelab.logic.discrete import DiscreteLogicNet


class VerificationError(WirelabError):
    """A compiled artifact computes something other than the discrete model."""


def _first_diff(name: str, i: int, got: np.ndarray, want: np.ndarray) -> dict[str, Any]:
    idx = np.flatnonzero(got != want)[:8]
    return {
        "check": name,
        "input": int(i),
        "positions": idx.tolist(),
        "got": np.asarray(got)[idx].astype(int).tolist(),
        "expected": np.asarray(want)[idx].astype(int).tolist(),
    }


def describe(m: dict[str, Any]) -> str:
    return (
        f"{m['check']} differs on test input {m['input']}: at positions {m['positions']} "
        f"got {m['got']}, expected {m['expected']}"
    )


def check_c(
    lib: CLibrary,
    net: DiscreteLogicNet,
    x: np.ndarray,
    *,
    torch_scores: Callable[[np.ndarray], np.ndarray] | None = None,
    chunk: int = 4096,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """C library vs the discrete model on all of ``x`` ``(N, F)``; stops at the first mismatch."""
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
            first = _first_diff("C output bits", s + j, out[j], ref[j])
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
                return {"ok": False, "checked": s + j,
                        "first_mismatch": _first_diff(what, s + j, got[j], want[j])}  # fmt: skip
        if progress is not None:
            progress(len(xb))
    return {"ok": True, "checked": n, "reference": "pytorch" if torch_scores else "numpy"}


def check_verilog(
    circuit: Circuit, net: DiscreteLogicNet, x: np.ndarray, work: Path, *, pipeline: int = 0
) -> dict[str, Any]:
    """Icarus simulation of the generated module on ``x`` against the numpy discrete model."""
    bits = net.binarize(np.asarray(x).reshape(len(x), -1))
    y = net.forward_bits(bits)
    counts = y.reshape(len(y), net.num_classes, -1).sum(-1)
    vm = generate_verilog(circuit, pipeline=pipeline)
    res = simulate(vm, bits, y, counts, work)
    out: dict[str, Any] = {"ok": res.ok, "vectors": res.vectors, "errors": res.errors,
                           "pipeline": pipeline, "latency": vm.latency}  # fmt: skip
    if res.first_mismatch is not None:
        fm = res.first_mismatch
        out["first_mismatch"] = {
            "check": f"Verilog simulation (pipeline {pipeline})",
            "input": fm["vector"],
            "positions": fm["differing_output_bits"][:8] or fm["differing_count_bits"][:8],
            "got": fm["raw_output"],
            "expected": "see exp.hex",
        }
    return out


def check_formal(
    raw: Circuit, simplified: Circuit, work: Path, *, heads: bool = False, timeout: float = 600
) -> dict[str, Any]:
    """Prove the simplified module equal to the reference netlist of the raw circuit."""
    ref = generate_reference_verilog(raw, heads=heads)
    impl = generate_verilog(simplified, heads=heads)
    res = prove_equivalent(ref, impl, work, timeout=timeout)
    out: dict[str, Any] = {
        "ok": res.equivalent,
        "method": res.method,
        "scope": "outputs y, counts, cls" if heads else "network outputs y",
        "seconds": round(res.seconds, 2),
    }
    if res.counterexample is not None:
        cex = res.counterexample
        gold, gate = cex.get("gold_y", ""), cex.get("gate_y", "")
        pos = [
            len(gold) - 1 - k for k, (p, q) in enumerate(zip(gold, gate, strict=False)) if p != q
        ]
        out["first_mismatch"] = {
            "check": "formal (yosys sat)",
            "input": cex.get("in_x", "?"),
            "positions": sorted(pos)[:8],
            "got": gate,
            "expected": gold,
        }
    return out
