"""Inference speed of a 6 x 8,000 MNIST logic gate network: compiled C vs PyTorch vs torchlogix.

One process, one core (torch.set_num_threads(1); the C code is single-threaded), MNIST test
images. Prints ONE JSON line:

- ``c_images_per_s``: `wl_classify` end to end (float pixels -> thresholds -> circuit ->
  bit-sliced GroupSum -> argmax), best of the word layouts tried (64-bit words, -O2; and 4 x 64
  bit GCC vectors with -march=native when the CPU has AVX2);
- ``c_core_images_per_s``: the circuit and GroupSum on pre-packed input words (no binarisation);
- ``torch_images_per_s``: the same discrete model in PyTorch (``mode="hard"``), batch 1024;
- ``torchlogix_images_per_s``: torchlogix 0.2.2's compiled circuit of a model of the same shape,
  or the reason it could not be measured;
- the ratios against the targets (>= 1e6 images/s, >= 100x PyTorch, >= 1.5x torchlogix).

The model is the trained run given by ``--run`` (default ``runs/logic/mnist10-48k`` if it holds
``model.pt``); otherwise an *untrained* `LogicNet` of the same shape with random (Gaussian-init)
gates, which the output says (``"model"``).

``peers`` names every peer configuration with its images/s (``torch_hard``,
``torchlogix_compiled``); without torchlogix the line says why under ``refused`` and gives no
torchlogix ratio.

    python benchmarks/logic_inference.py [--run RUN_DIR] [--images 10000]
    [--tiny: an untrained 2 x 800 network, 1,024 images; seconds]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from wirelab.data import load_mnist
from wirelab.logic.checkpoint import load_model as load_run_model
from wirelab.logic.circuit.backends.c import build
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.pack import pack_bits
from wirelab.logic.circuit.passes import simplify
from wirelab.logic.model import LogicNet

SPEC = {
    "input_shape": [28, 28], "binarize": "thermometer", "levels": 2, "dense": [8000] * 6,
    "connections": "unique", "init": "gaussian", "classes": 10, "tau": 20.0, "seed": 0,
}  # fmt: skip


def best_rate(
    fn: Any, n_items: int, repeats: int = 3, min_seconds: float = 0.3
) -> dict[str, float]:
    """Items per second, best of ``repeats`` runs of ``fn`` (each run repeats ``fn`` for at least
    ``min_seconds``), by CPU time of this process (``cpu``: single-threaded code is not charged
    for time spent waiting for a core on a shared machine) and by wall-clock time (``wall``)."""
    best_cpu = best_wall = 0.0
    for _ in range(repeats):
        calls, c0, w0 = 0, time.process_time(), time.perf_counter()
        while True:
            fn()
            calls += 1
            dc, dw = time.process_time() - c0, time.perf_counter() - w0
            if dc >= min_seconds:
                break
        best_cpu = max(best_cpu, calls * n_items / dc)
        best_wall = max(best_wall, calls * n_items / dw)
    return {"cpu": best_cpu, "wall": best_wall}


def load_model(run: Path | None) -> tuple[LogicNet, str]:
    if run is not None and (run / "model.pt").is_file():
        return load_run_model(run / "model.pt").eval(), f"trained ({run})"
    return LogicNet(SPEC).eval(), "untrained LogicNet 6x8000, random (gaussian-init) gates"


def bench_c(
    circuit: Circuit, pixels: np.ndarray, torch_pred: np.ndarray, work: Path
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cpuinfo = Path("/proc/cpuinfo")
    avx2 = cpuinfo.exists() and "avx2" in cpuinfo.read_text()
    layouts = [("64x1", 64, 1, ())] + ([("64x4-avx2", 64, 4, ("-march=native",))] if avx2 else [])
    x = (pixels.astype(np.float32) / np.float32(255.0)).astype(np.float64)
    bits = circuit.binarize(x)
    for name, wb, lanes, flags in layouts:
        lib, built = build(circuit, work / name, word_bits=wb, lanes=lanes, extra_flags=flags,
                           pixel_scale=255.0)  # fmt: skip
        pred, _ = lib.classify_u8(pixels)
        n = min(len(torch_pred), len(pred))
        agree = bool((pred[:n] == torch_pred[:n]).all() and (lib.classify(x)[0] == pred).all())
        u8 = best_rate(lambda lib=lib: lib.classify_u8(pixels), len(pixels))
        f64 = best_rate(lambda lib=lib: lib.classify(x), len(x))
        # Core: pre-packed words straight into wl_eval_batch (the circuit + GroupSum only).
        nw = len(x) // (wb * lanes)
        inw = np.ascontiguousarray(pack_bits(bits[: nw * wb * lanes], wb))
        o = np.zeros((circuit.num_outputs, nw * lanes), dtype=inw.dtype)
        cnt = np.zeros((circuit.num_classes * lib.src.count_bits, nw * lanes), dtype=inw.dtype)
        args = (inw, nw, o, cnt)
        core = best_rate(lambda lib=lib, args=args: lib._eval_batch(*args), nw * wb * lanes)
        out[name] = {
            "u8_images_per_s": round(u8["cpu"]),
            "u8_images_per_s_wall": round(u8["wall"]),
            "float_images_per_s": round(f64["cpu"]),
            "core_images_per_s": round(core["cpu"]),
            "core_images_per_s_wall": round(core["wall"]),
            "compile_seconds": round(built.seconds, 2),
            "compile_cpu_seconds": round(built.cpu_seconds, 2),
            "agrees_with_torch": agree,
        }
    return out


def import_torchlogix() -> Any:
    """Import torchlogix 0.2.2 on Python 3.11. Its ``circuit.py`` nests a triple-quoted f-string
    inside another with the same quotes, which only Python 3.12 parses; the source is loaded
    with the inner string's delimiters changed from \"\"\" to \'\'\' (nothing else)."""
    import importlib.util
    import types

    try:
        import torchlogix

        return torchlogix
    except SyntaxError:
        pass
    for name in [m for m in sys.modules if m.startswith("torchlogix")]:
        del sys.modules[name]
    spec = importlib.util.find_spec("torchlogix")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("torchlogix is not installed (make bench installs it)")
    pkg_dir = Path(next(iter(spec.submodule_search_locations)))
    src = (pkg_dir / "circuit.py").read_text()
    inner_open, inner_close = '{"" if pack_bits is None else f"""', '}}"""}"""'
    if src.count(inner_open) != 1 or src.count(inner_close) != 1:
        raise ImportError("torchlogix.circuit is not the 0.2.2 source this shim expects")
    src = src.replace(inner_open, inner_open[:-3] + "'''").replace(inner_close, "}}'''}" + '"""')
    shell = types.ModuleType("torchlogix")
    shell.__path__ = [str(pkg_dir)]
    sys.modules["torchlogix"] = shell
    mod = types.ModuleType("torchlogix.circuit")
    mod.__file__, mod.__package__ = str(pkg_dir / "circuit.py"), "torchlogix"
    sys.modules["torchlogix.circuit"] = mod
    exec(compile(src, mod.__file__, "exec"), mod.__dict__)
    del sys.modules["torchlogix"]
    import torchlogix

    return torchlogix


def bench_torchlogix(net: Any, bits: np.ndarray, counts: np.ndarray) -> dict[str, Any]:
    """torchlogix's compiled circuit (pack_bits=64, gcc -O3) of the SAME discrete network: its
    LogicDense layers get our wiring and one-hot gate weights; outputs are checked equal."""
    try:
        tlx = import_torchlogix()
    except (ImportError, SyntaxError) as exc:
        return {"error": f"torchlogix unavailable: {exc}"}
    from torchlogix.circuit import Circuit as TLCircuit
    from torchlogix.layers import GroupSum, LogicDense

    layers: list[torch.nn.Module] = [torch.nn.Flatten()]
    width = net.input_bits
    for lay in net.layers:
        dense = LogicDense(width, lay.size)
        dense.connections.indices = torch.stack([torch.from_numpy(lay.a), torch.from_numpy(lay.b)])
        w = torch.full((lay.size, 16), -10.0)
        w[torch.arange(lay.size), torch.from_numpy(lay.gate.astype(np.int64))] = 10.0
        dense.weight.data = w
        layers.append(dense)
        width = lay.size
    model = torch.nn.Sequential(*layers, GroupSum(net.num_classes, net.tau))
    t0 = time.perf_counter()
    circ = TLCircuit.from_model(model, [net.input_bits])
    circ.simplify()
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    circ.compile(opt_level=3, pack_bits=64)
    compile_s = time.perf_counter() - t0
    n = (len(bits) // 64) * 64
    xb = np.ascontiguousarray(bits[:n])
    scores = circ(xb, use_compiled=True)
    agree = bool(np.allclose(scores * net.tau, counts[:n], atol=1e-3))
    rate = best_rate(lambda: circ(xb, use_compiled=True), n)
    return {
        "version": getattr(tlx, "__version__", "0.2.2"),
        "images_per_s": round(rate["cpu"]),
        "images_per_s_wall": round(rate["wall"]),
        "input": "bool bits (its circuit_bench_bool packs them in C)",
        "gates_after_its_simplify": len(getattr(circ, "gates", [])) or None,
        "trace_and_simplify_seconds": round(build_s, 1),
        "compile_seconds_O3": round(compile_s, 1),
        "agrees_with_wirelab": agree,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_run = Path("runs/logic/mnist10-48k")
    ap.add_argument("--run", type=Path, default=default_run if default_run.is_dir() else None)
    ap.add_argument("--images", type=int, default=10000)
    ap.add_argument("--no-torchlogix", action="store_true")
    ap.add_argument("--tiny", action="store_true", help="untrained 2 x 800 gates, 1024 images")
    args = ap.parse_args()
    torch.set_num_threads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    if args.tiny:
        args.images = 1024
        model, model_desc = LogicNet({**SPEC, "dense": [800, 800]}).eval(), "tiny: untrained 2x800"
    else:
        model, model_desc = load_model(args.run)
    imgs, _ = load_mnist("test")
    pixels = np.ascontiguousarray(imgs[: args.images].reshape(-1, 784))
    x = pixels.astype(np.float32) / np.float32(255.0)

    # PyTorch, discrete (hard) mode, batch 1024.
    xt = torch.from_numpy(x[:1024].reshape(-1, 28, 28))
    with torch.no_grad():
        torch_pred = model(xt, mode="hard").argmax(1).numpy()
        torch_rate = best_rate(lambda: model(xt, mode="hard"), len(xt), repeats=2, min_seconds=1)

    net = model.discretize()
    raw = Circuit.from_net(net)
    t0 = time.perf_counter()
    simple, _ = simplify(raw)
    simplify_s = time.perf_counter() - t0
    bits = net.binarize(x)
    counts = net.forward_bits(bits).reshape(len(bits), net.num_classes, -1).sum(-1)
    with tempfile.TemporaryDirectory() as tmp:
        c = bench_c(simple, pixels, torch_pred, Path(tmp))
        tl = bench_torchlogix(net, bits, counts) if not args.no_torchlogix else {"skipped": True}
    best = max(c.values(), key=lambda r: r["u8_images_per_s"])
    c_rate = best["u8_images_per_s"]
    core = max(r["core_images_per_s"] for r in c.values())
    t_rate = torch_rate["cpu"]
    result: dict[str, Any] = {
        "benchmark": "logic_inference",
        "model": model_desc,
        "gates": raw.num_gates,
        "gates_simplified": simple.num_gates,
        "logic_depth": simple.depth,
        "simplify_seconds": round(simplify_s, 2),
        "images": len(x),
        "c_images_per_s": c_rate,
        "c_core_images_per_s": core,
        "c": c,
        "torch_images_per_s": round(t_rate),
        "torch_images_per_s_wall": round(torch_rate["wall"]),
        "torchlogix": tl,
        "ratio_c_vs_torch": round(c_rate / t_rate, 1),
        "target_1M_images_per_s": {"end_to_end": c_rate >= 1e6, "core": core >= 1e6},
        "target_100x_torch": c_rate / t_rate >= 100,
        "rates": "images per CPU-second of this process, one thread (wall-clock figures beside)",
        "load_average_1min": round(os.getloadavg()[0], 1),
        "machine": "2-core CPU",
    }
    result["peers"] = {
        "torch_hard": round(t_rate),
        "torchlogix_compiled": tl.get("images_per_s", tl.get("error", "skipped")),
    }
    if "error" in tl:
        result["refused"] = f"no ratio against torchlogix: {tl['error']}"
    if "images_per_s" in tl:
        result["ratio_c_vs_torchlogix"] = round(c_rate / tl["images_per_s"], 2)
        result["target_1.5x_torchlogix"] = c_rate / tl["images_per_s"] >= 1.5
    print(json.dumps(result))


if __name__ == "__main__":
    main()
