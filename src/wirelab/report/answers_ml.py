"""Headlines of the learned systems (the logic circuit, attention pooling) and of sweeps.

As in `wirelab.report.answers`: each function reads one run and returns a `Headline` with a
verdict derived from its numbers, or None when the run lacks what it needs.
"""

from __future__ import annotations

import csv
import math
from typing import Any

from wirelab.anchors import Anchor, anchors_for
from wirelab.report.headline import (
    HEADLINES,
    Comparison,
    Headline,
    dig,
    number,
    pct,
    plural,
    read_side_json,
    wilson,
)
from wirelab.report.runs import Run

Z95 = 1.96
MAX_CSV_BYTES = 2 * 1024 * 1024
FPGA = "ice40-up5k"
PNR_KEYS = ("fmax_mhz", "clock_mhz", "timing_met", "images_per_s")  # from place and route


def _pnr(entry: dict[str, Any], key: str) -> Any:
    """``entry[key]``, or the same key one level down (``entry["pnr"][key]``), or None."""
    if key in entry:
        return entry[key]
    return next((v[key] for v in entry.values() if isinstance(v, dict) and key in v), None)


def logic_task(metrics: Any) -> str | None:
    """``mnist01`` (digits 0 and 1), ``mnist10`` (all ten digits) or None (another task)."""
    classes = dig(metrics, "classes")
    if dig(metrics, "dataset") != "mnist" or not isinstance(classes, list):
        return None
    if sorted(classes) == [0, 1]:
        return "mnist01"
    return "mnist10" if sorted(classes) == list(range(10)) else None


def _nearest(anchors: list[Anchor], gates: int) -> Anchor | None:
    """The anchor whose gate count is closest to ``gates`` (on a log scale)."""
    sized = [a for a in anchors if a.gates]
    return min(sized, key=lambda a: abs(math.log(a.gates / gates)), default=None)  # type: ignore[operator]


def _relation(lo: float, hi: float, ref: float) -> str:
    return "above" if lo > ref else "below" if hi < ref else "level with"


def _fpga(run: Run) -> tuple[dict[str, Any], list[str]]:
    """The UP5K entry of ``synth.json`` (falling back to the ``synth_*`` metrics) and what it
    lacks."""
    synth = read_side_json(run.path / "synth.json") or {}
    found = synth.get(FPGA)
    entry: dict[str, Any] = found if isinstance(found, dict) else {}
    m = run.metrics
    luts = number(dig(entry, "luts")) or number(dig(m, "synth_ice40_up5k_luts"))
    fits = dig(entry, "fits") if "fits" in entry else dig(m, "synth_ice40_up5k_fits")
    out: dict[str, Any] = {"luts": luts, "fits": fits if isinstance(fits, bool) else None}
    out["device_luts"] = number(dig(entry, "device_luts"))
    out["network_only"] = number(dig(synth, f"{FPGA}-network-only", "luts")) or number(
        dig(m, "synth_ice40_up5k_network_only_luts")
    )
    for key in ("flip_flops", "carry_cells", "depth_cells", "utilisation"):
        out[key] = number(dig(entry, key))
    for key in PNR_KEYS:
        out[key] = _pnr(entry, key)
    cells = _pnr(entry, "logic_cells")
    out["logic_cells"] = number(dig(cells, "used")) if isinstance(cells, dict) else number(cells)
    missing = []
    if luts is None:
        missing.append(f"(synth.json, {FPGA}.luts)")
    if number(out["fmax_mhz"]) is None:
        missing.append(f"(synth.json, {FPGA}.fmax_mhz)")
    return out, missing


def _evidence(run: Run, fpga: dict[str, Any]) -> list[tuple[str, Any]]:
    """Gate counts, depth, LUTs, Fmax and the equivalence checks, where the run has them."""
    m = run.metrics
    verify = read_side_json(run.path / "verify" / "verify.json") or {}
    rows: list[tuple[str, Any]] = [
        ("gates (trained)", dig(m, "gates")),
        ("gates (simplified circuit)", dig(m, "gates_simplified")),
        ("logic depth", dig(m, "logic_depth")),
        ("inputs used", dig(m, "inputs_used")),
        ("iCE40 UP5K LUT4 (with GroupSum and argmax)", fpga["luts"]),
        ("iCE40 UP5K LUT4 (gate network alone)", fpga["network_only"]),
        ("flip-flops", fpga["flip_flops"]),
        ("carry cells", fpga["carry_cells"]),
        ("depth (cells)", fpga["depth_cells"]),
        ("utilisation of the UP5K", pct(fpga["utilisation"], 1) if fpga["utilisation"] else None),
        ("fits the UP5K", fpga["fits"]),
        ("placed logic cells (nextpnr)", fpga["logic_cells"]),
        ("Fmax (MHz, nextpnr)", fpga["fmax_mhz"]),
        ("clock asked (MHz)", fpga["clock_mhz"]),
        ("timing met", fpga["timing_met"]),
        ("images per second on the FPGA", fpga["images_per_s"]),
        ("verified (C, Verilog, formal)", dig(verify or m, "verified")),
        ("C library checked on (images)", dig(m, "verified_c_images")),
        ("Icarus Verilog checked on (images)", dig(m, "verified_verilog_images")),
        ("formal proof", dig(m, "verified_formal")),
    ]
    return [(k, int(v) if isinstance(v, float) and v.is_integer() else v) for k, v in rows
            if v is not None]  # fmt: skip


@HEADLINES.register("wirelab logic train", "a logic gate network: accuracy, gates, FPGA fit")
def logic(run: Run) -> Headline | None:
    """Test accuracy of the discrete network with its Wilson CI, against the seed and papers at
    similar gate counts; for 0 vs 1, whether the synthesised circuit fits the iCE40 UP5K."""
    m = run.metrics
    acc, n, gates = number(dig(m, "accuracy_discrete")), dig(m, "n_test"), dig(m, "gates")
    if acc is None or not isinstance(n, int) or n <= 0 or not isinstance(gates, int) or gates <= 0:
        return None
    task = logic_task(m)
    lo, hi = wilson(acc * n, n)
    fpga, missing = _fpga(run)
    answer = f"{pct(acc)} test accuracy with {gates:,} gates"
    uncertainty = f"Wilson 95% CI [{pct(lo)}, {pct(hi)}] on {n:,} test images, one seed"
    anchors = anchors_for(task) if task else []
    comparisons = [Comparison("this run", f"{pct(acc)} with {gates:,} gates",
                              "discrete network, MNIST test set", True)]  # fmt: skip
    comparisons += [Comparison.of(a) for a in anchors]
    ref = anchors_for(task, "seed")[0] if task == "mnist01" else _nearest(anchors, gates)
    parts, outcome = [], "info"
    if ref is not None:
        rel = _relation(lo, hi, ref.value)
        who = "the seed" if ref.source == "seed" else ref.who
        parts.append(
            f"{rel} {who}'s {ref.figure()} with {ref.size} ({gates / (ref.gates or gates):.2g}x)"
        )
        outcome = "no" if rel == "below" else "yes"
    if task == "mnist01":
        question = "How accurate is a 0-vs-1 logic circuit, and does it fit on an iCE40 UP5K?"
        device = anchors_for(FPGA)[0]
        cap = int(fpga["device_luts"] or device.value)
        if fpga["fits"] is None or fpga["luts"] is None:
            parts.append("not synthesised for the UP5K (wirelab logic synth RUN --target "
                         "ice40-up5k)")  # fmt: skip
            outcome = "unresolved" if outcome == "yes" else outcome
        else:
            verb = "fits" if fpga["fits"] else "does not fit"
            parts.append(f"{verb} the UP5K: {int(fpga['luts']):,} of {cap:,} LUT4")
            outcome = outcome if fpga["fits"] else "no"
    elif task == "mnist10":
        question = "How accurate is a 10-class MNIST logic gate network for its number of gates?"
    else:
        question = f"How accurate is the logic gate network on {dig(m, 'dataset')}?"
        missing = []
    verdict = "; ".join(parts) + "." if parts else f"{pct(acc)} on the test set."
    return Headline(question, answer, uncertainty, verdict[0].upper() + verdict[1:], outcome,
                    comparisons, plots=("training", "passes"), table=_evidence(run, fpga),
                    table_caption="the circuit", missing=missing)  # fmt: skip


def _accuracy(per: Any) -> float | None:
    return number(dig(per, "accuracy_mean"))


@HEADLINES.register("wirelab attention pooling", "attention vs mean pooling with distractors")
def pooling(run: Run) -> Headline | None:
    """At the largest distractor count: the best attention pooling's accuracy minus mean
    pooling's, with a binomial 95% CI over seeds x test bags, and the weight on the marked digit."""
    summary = dig(run.metrics, "summary")
    if not isinstance(summary, dict) or "mean" not in summary:
        return None
    attn = [k for k in summary if k != "mean" and isinstance(summary[k], dict)]
    counts = [
        c
        for c in dig(summary, "mean") or {}
        if all(_accuracy(dig(summary, a, c)) is not None for a in ["mean", *attn])
    ]
    if not attn or not counts:
        return None
    n = max(counts, key=lambda c: int(c) if c.isdigit() else -1)
    best = max(attn, key=lambda a: _accuracy(summary[a][n]) or 0.0)
    a, b = _accuracy(summary[best][n]) or 0.0, _accuracy(summary["mean"][n]) or 0.0
    seeds = dig(run.config, "config", "seeds")
    seeds_n = len(seeds) if isinstance(seeds, list) else 1
    bags = int(number(dig(run.config, "config", "test_bags")) or 0)
    trials = max(1, seeds_n * bags)
    diff = a - b
    half = Z95 * math.sqrt(a * (1 - a) / trials + b * (1 - b) / trials)
    uncertainty = (
        f"95% CI of the difference [{100 * (diff - half):+.1f}, {100 * (diff + half):+.1f}] "
        f"points (binomial, {plural(seeds_n, 'seed')} x {bags:,} test bags)"
    )
    if bags == 0:
        uncertainty = "no test_bags in config.json: no interval"
    answer = f"{best} {pct(a, 1)} vs mean pooling {pct(b, 1)} with {n} distractors"
    share = number(dig(summary, best, n, "marked_weight_share_mean"))
    uniform = 1 / (int(n) + 1) if n.isdigit() else None
    weight = ""
    if share is not None and uniform is not None:
        weight = (f"; it puts {pct(share, 0)} of its weight on the marked digit (mean pooling: "
                  f"{pct(uniform, 1)})")  # fmt: skip
    if bags and diff - half > 0:
        outcome = "yes"
        verdict = f"Yes: attention is {100 * diff:.1f} points more accurate{weight}."
    elif bags and diff + half < 0:
        outcome, verdict = "no", f"No: mean pooling is {100 * -diff:.1f} points more accurate."
    else:
        outcome = "unresolved"
        verdict = f"Not shown: the difference ({100 * diff:+.1f} points) is within its interval."
    comparisons = []
    for method in ["mean", *attn]:
        for c in sorted(summary[method], key=lambda c: int(c) if c.isdigit() else -1):
            acc, sd = _accuracy(summary[method][c]), number(dig(summary, method, c, "accuracy_std"))
            if acc is not None:
                comparisons.append(Comparison(f"{method}, {c} distractors", f"{pct(acc, 1)}" + (
                    f" ± {100 * sd:.1f}" if sd else ""), "mean ± sd over seeds, this run",
                    method == best and c == n))  # fmt: skip
    return Headline("Does attention pooling ignore distractors that mean pooling cannot?", answer,
                    uncertainty, verdict, outcome, comparisons,
                    plots=("accuracy_vs_distractors", "weight_maps"))  # fmt: skip


def _read_csv(run: Run, name: str) -> list[dict[str, str]]:
    path = run.path / name
    try:
        if path.stat().st_size > MAX_CSV_BYTES:
            return []
        with open(path, newline="", encoding="utf-8") as fh:
            return list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def _float(text: str | None) -> float | None:
    try:
        return number(float(text)) if text not in (None, "") else None
    except ValueError:
        return None


@HEADLINES.register("wirelab sweep", "a sweep: its results table and summary plot")
def sweep(run: Run) -> Headline | None:
    """The swept metric's range over the completed points, and where its extremes are."""
    grid = dig(run.config, "config", "grid") or {}
    vary = [str(k) for k in dig(grid, "vary") or {}]
    points, ok = number(dig(run.metrics, "points")), number(dig(run.metrics, "ok"))
    if points is None or ok is None:
        return None
    metric = dig(run.metrics, "metric") or dig(grid, "metric")
    params = ", ".join(vary) or "its parameters"
    question = f"How does {metric or 'the result'} change with {params}?"
    failed = int(points - ok)
    uncertainty = f"{int(ok)} of {plural(int(points), 'point')} complete"
    if "seed" in vary:
        uncertainty += f", {len(dig(grid, 'vary', 'seed') or [])} seeds per setting"
    rows = [r for r in _read_csv(run, "results.csv") if r.get("status") == "ok"]
    vals = [(v, r) for r in rows if (v := _float(r.get(str(metric)))) is not None]
    if not metric or not vals:
        answer = f"{plural(int(points), 'point')} of {dig(grid, 'command') or 'a command'}"
        verdict = f"{int(ok)} complete, {failed} failed; no numeric metric to compare."
        outcome = "info" if not failed else "unresolved"
    else:
        (lo, rlo), (hi, rhi) = min(vals, key=lambda t: t[0]), max(vals, key=lambda t: t[0])

        def where(r: dict[str, str]) -> str:
            at = ", ".join(f"{k}={r.get(k)}" for k in vary if k != "seed")
            return at or f"point {r.get('index')}"

        answer = f"{metric} from {lo:.4g} to {hi:.4g} over {plural(len(vals), 'point')}"
        verdict = f"Highest at {where(rhi)} ({hi:.4g}), lowest at {where(rlo)} ({lo:.4g})"
        verdict += f"; {failed} points failed." if failed else "."
        outcome = "unresolved" if failed else "info"
    return Headline(
        question, answer, uncertainty, verdict, outcome, plots=("summary",), tables=("results.csv",)
    )
