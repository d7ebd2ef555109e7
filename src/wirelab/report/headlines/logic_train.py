"""The logic gate network's headline (``wirelab logic train``): how accurate is the circuit for its
number of gates, and (0 vs 1) does it fit on an iCE40 UP5K?

The discrete network's test accuracy with its Wilson 95% CI on the test images is compared with
the seed's (0 vs 1) or with the published figure nearest in gates on a log scale (10 classes):
above, level with or below. For 0 vs 1 the synthesised circuit's LUT4 count (``synth.json``,
`wirelab logic synth`) decides whether it fits the UP5K. The evidence table lists the gate counts,
depth, LUTs, place-and-route figures and the equivalence checks the run records.
"""

from __future__ import annotations

import math
from typing import Any

from wirelab.anchors import Anchor, anchors_for
from wirelab.logic.circuit.backends import verification_figures
from wirelab.report.headlines.base import Comparison, Headline, HeadlineEntry
from wirelab.report.headlines.resolution import Resolution
from wirelab.report.headlines.values import dig, number, pct, read_side_json, wilson
from wirelab.report.runs import Run
from wirelab.report.words import code, times

FPGA = "ice40-up5k"
SYNTH_STUDY = Resolution(
    "wirelab logic synth RUN --pnr --clock 12",
    "the 972-gate 0-vs-1 circuit (99.86%) fits: 1,836 of 5,280 cells, Fmax 17.8 MHz (12 MHz met)",
    "yes",
    "`docs/results/logic.md`, On a chip; `docs/logic-circuits.md`",
)
PNR_KEYS = ("fmax_mhz", "clock_mhz", "timing_met", "images_per_s")  # from place and route


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


def _pnr(entry: dict[str, Any], key: str) -> Any:
    """``entry[key]``, or the same key one level down (``entry["pnr"][key]``), or None."""
    if key in entry:
        return entry[key]
    return next((v[key] for v in entry.values() if isinstance(v, dict) and key in v), None)


def _fpga(run: Run) -> tuple[dict[str, Any], list[str]]:
    """The UP5K entry of ``synth.json`` (falling back to the ``synth_*`` metrics) and what it
    lacks."""
    synth = read_side_json(run.path / "synth.json", run.path) or {}
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
    synth_json = code("synth.json")
    if luts is None:
        missing.append(
            f"the circuit's LUT4 count on the UP5K ({code(FPGA + '.luts')} in {synth_json})"
        )
    if number(out["fmax_mhz"]) is None:
        missing.append(
            f"its placed-and-routed clock, Fmax ({code(FPGA + '.fmax_mhz')} in {synth_json})"
        )
    return out, missing


def verification_rows(run: Run) -> list[tuple[str, Any]]:
    """The equivalence checks of the circuit's back ends, as evidence rows (label, value): the
    overall verdict, then each labelled `VerifiedFigure` of `wirelab.logic.circuit.backends`."""
    m = run.metrics
    verify = read_side_json(run.path / "verify" / "verify.json", run.path) or {}
    figures = [f for f in verification_figures() if f.label]
    checks = ", ".join(dict.fromkeys(f.check[:1].upper() + f.check[1:] for f in figures))
    return [
        (f"verified ({checks})", dig(verify or m, "verified")),
        *[(f.label, dig(m, f.key)) for f in figures],
    ]


def _evidence(run: Run, fpga: dict[str, Any]) -> list[tuple[str, Any]]:
    """Gate counts, depth, LUTs, Fmax and the equivalence checks, where the run has them."""
    m = run.metrics
    utilisation = pct(fpga["utilisation"], 1) if fpga["utilisation"] else None
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
        ("utilisation of the UP5K", utilisation),
        ("fits the UP5K", fpga["fits"]),
        ("placed logic cells (nextpnr)", fpga["logic_cells"]),
        ("Fmax (MHz, nextpnr)", fpga["fmax_mhz"]),
        ("clock asked (MHz)", fpga["clock_mhz"]),
        ("timing met", fpga["timing_met"]),
        ("images per second on the FPGA", fpga["images_per_s"]),
        *verification_rows(run),
    ]
    return [
        (k, int(v) if isinstance(v, float) and v.is_integer() else v)
        for k, v in rows
        if v is not None
    ]


def _against_anchor(task: str | None, lo: float, hi: float, gates: int) -> tuple[list[str], str]:
    """(verdict parts, outcome) against the seed (0 vs 1) or the anchor nearest in gates."""
    anchors = anchors_for(task) if task else []
    ref = anchors_for(task, "seed")[0] if task == "mnist01" else _nearest(anchors, gates)
    if ref is None:
        return [], "info"
    rel = _relation(lo, hi, ref.value)
    who = "the seed" if ref.source == "seed" else ref.who
    size = times(gates, ref.gates or gates, "gates")
    return [f"{rel} {who}'s {ref.figure()} with {ref.size}, using {size}"], (
        "no" if rel == "below" else "yes"
    )


def fits_words(fpga: dict[str, Any]) -> tuple[str, str] | None:
    """(``fits`` or ``does not fit``, the figures): ``937 of 5,280 cells, Fmax 18.3 MHz (12 MHz
    met)`` where it was placed and routed, ``663 of 5,280 LUT4`` where only synthesised; None
    when not synthesised."""
    if fpga["fits"] is None or fpga["luts"] is None:
        return None
    cap = int(fpga["device_luts"] or anchors_for(FPGA)[0].value)
    verb = "fits" if fpga["fits"] else "does not fit"
    cells, fmax = number(fpga["logic_cells"]), number(fpga["fmax_mhz"])
    if cells is None or fmax is None:
        return verb, f"{int(fpga['luts']):,} of {cap:,} LUT4"
    met = {True: "met", False: "not met"}.get(fpga["timing_met"])
    clock = f" ({number(fpga['clock_mhz']) or 0:g} MHz {met})" if met else ""
    return verb, f"{int(cells):,} of {cap:,} cells, Fmax {fmax:.1f} MHz{clock}"


def _fits(fpga: dict[str, Any], outcome: str) -> tuple[str, str]:
    """(verdict part, outcome) of the 0-vs-1 circuit on the UP5K: fits (placed cells and Fmax
    where it was placed and routed), does not, or not synthesised (then `SYNTH_STUDY`
    answers)."""
    words = fits_words(fpga)
    if words is None:
        command = code(f"wirelab logic synth RUN --target {FPGA}")
        return f"not synthesised for the UP5K ({command})", outcome
    return f"{words[0]} the UP5K: {words[1]}", outcome if fpga["fits"] else "no"


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
    this = f"{pct(acc)} with {gates:,} gates"
    comparisons = [Comparison("this run", this, "discrete network, MNIST test set", True)]
    comparisons += [Comparison.of(a) for a in (anchors_for(task) if task else [])]
    parts, outcome = _against_anchor(task, lo, hi, gates)
    if task == "mnist01":
        question = "How accurate is a 0-vs-1 logic circuit, and does it fit on an iCE40 UP5K?"
        part, outcome = _fits(fpga, outcome)
        parts.append(part)
        words = fits_words(fpga)
        answer += f"; {words[0]}: {words[1]}" if words else ""
    elif task == "mnist10":
        question = "How accurate is a 10-class MNIST logic gate network for its number of gates?"
        missing = []  # the question is the accuracy; the chip is the up5k run's card
    else:
        question = f"How accurate is the logic gate network on {code(dig(m, 'dataset'))}?"
        missing = []
    verdict = "; ".join(parts) + "." if parts else f"{pct(acc)} on the test set."
    h = Headline(
        question,
        answer,
        uncertainty,
        verdict[0].upper() + verdict[1:],
        outcome,
        comparisons,
        plots=("training", "passes"),
        table=_evidence(run, fpga),
        table_caption="the circuit",
        missing=missing,
    )
    if task == "mnist01" and fits_words(fpga) is None and outcome == "yes":
        return SYNTH_STUDY.settle(h, h.verdict)
    return h


LOGIC = HeadlineEntry("wirelab logic train", logic)
