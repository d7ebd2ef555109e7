"""The ``verilog`` back end: a combinational (or pipelined) Verilog module (`_verilog_source`),
simulated with Icarus Verilog (`_verilog_sim`) and proved equal to a reference netlist with yosys
(`_verilog_formal`).

``RUN_DIR/verilog/`` gets ``wl_circuit.v``, the reference netlist ``wl_ref.v`` of the circuit
before the passes, and with ``--pipeline K`` ``wl_circuit_pipe<K>.v``. The check (`check`) has
three results in ``verify.json``:

- ``verilog``: Icarus simulation of the module on the first ``--sim-vectors`` test images
  against the numpy discrete model (`check_verilog`); ``verilog_pipelined`` likewise for the
  module pipelined every ``--pipeline`` levels;
- ``formal``: the yosys proof that the simplified module equals the reference netlist written
  from the unsimplified circuit (`check_formal`), skipped above ``--formal-max-gates`` gates and
  recorded as not done (``ok: None``) when it runs out of time. The proof is a check of this
  back end: it proves the generated Verilog (and the passes before it) against the Verilog
  reference netlist this back end writes.

``metrics.json`` gets ``verified_verilog_images``, ``verified_formal`` and
``verified_formal_scope``. This module is also the public face of the Verilog tools used by
synthesis, place and route and the SoC: `generate_verilog`, `generate_reference_verilog`,
`VerilogModule`, `simulate`, `prove_equivalent`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from wirelab.logic.circuit.backends._verilog_formal import ProofResult, prove_equivalent
from wirelab.logic.circuit.backends._verilog_sim import SimResult, simulate
from wirelab.logic.circuit.backends._verilog_source import (
    V_EXPR,
    VerilogModule,
    adder_tree,
    argmax_chain,
    class_bits,
    generate_reference_verilog,
    generate_verilog,
)
from wirelab.logic.circuit.backends.base import (
    Backend,
    CompileOptions,
    Generated,
    Results,
    VerifiedFigure,
    VerifyContext,
)
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.tools import ToolError, write_text
from wirelab.logic.discrete import DiscreteLogicNet

__all__ = [
    "BACKEND",
    "V_EXPR",
    "ProofResult",
    "SimResult",
    "VerilogModule",
    "adder_tree",
    "argmax_chain",
    "check_formal",
    "check_verilog",
    "class_bits",
    "generate_reference_verilog",
    "generate_verilog",
    "prove_equivalent",
    "simulate",
]


def generate(circuit: Circuit, out_dir: Path, opts: CompileOptions) -> Generated:
    """The module, the reference netlist (of ``opts.reference``) and the pipelined module."""
    paths = [write_text(out_dir / "wl_circuit.v", generate_verilog(circuit).text)]
    if opts.reference is not None:
        ref = generate_reference_verilog(opts.reference).text
        paths.append(write_text(out_dir / "wl_ref.v", ref))
    metrics: dict[str, Any] = {}
    if opts.pipeline:
        vm = generate_verilog(
            circuit, module=f"wl_circuit_pipe{opts.pipeline}", pipeline=opts.pipeline
        )
        paths.append(write_text(out_dir / f"{vm.module}.v", vm.text))
        metrics["verilog_pipeline_latency"] = vm.latency
    return Generated(paths, metrics, f"Verilog: {out_dir}")


def check(ctx: VerifyContext) -> dict[str, dict[str, Any]]:
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
        work = ctx.run_dir / "verify" / "formal"
        return check_formal(ctx.raw, ctx.circuit, work, timeout=o.formal_timeout)
    except ToolError as exc:
        if "timed out" not in str(exc):
            raise
        return {"ok": None, "skipped": f"proof timed out ({o.formal_timeout:.0f} s)"}


def check_verilog(
    circuit: Circuit, net: DiscreteLogicNet, x: np.ndarray, work: Path, *, pipeline: int = 0
) -> dict[str, Any]:
    """Icarus simulation of the generated module on ``x`` against the numpy discrete model."""
    bits = net.binarize(np.asarray(x).reshape(len(x), -1))
    y = net.forward_bits(bits)
    counts = y.reshape(len(y), net.num_classes, -1).sum(-1)
    vm = generate_verilog(circuit, pipeline=pipeline)
    res = simulate(vm, bits, y, counts, work)
    out: dict[str, Any] = {
        "ok": res.ok,
        "vectors": res.vectors,
        "errors": res.errors,
        "pipeline": pipeline,
        "latency": vm.latency,
    }
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


def summary(results: Results) -> list[str]:
    """The ``verify`` lines of the simulation and the proof."""
    lines = []
    if "verilog" in results:
        lines.append(f"Verilog (Icarus): {results['verilog']['vectors']} test images agree")
    if "formal" in results:
        f = results["formal"]
        formal = (
            f"proved ({f['scope']}, {f['seconds']} s)"
            if f.get("ok")
            else f"skipped: {f.get('skipped')}"
        )
        lines.append(f"formal: {formal}")
    return lines


BACKEND = Backend(
    generate=generate,
    check=check,
    verified=(
        VerifiedFigure(
            "verified_verilog_images",
            "verilog",
            ("vectors",),
            "Icarus Verilog checked on (images)",
        ),
        VerifiedFigure("verified_formal", "formal", ("ok",), "formal proof"),
        VerifiedFigure("verified_formal_scope", "formal", ("scope", "skipped")),
    ),
    summary=summary,
)
