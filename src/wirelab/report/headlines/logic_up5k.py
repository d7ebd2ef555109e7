"""The whole classifier on one chip (``wirelab logic up5k``): does a ten-class MNIST classifier
run on one iCE40 UP5K, giving the same classes as its C model?

The run's ``metrics.json`` (`wirelab.logic.fpga.up5k`) holds the C back end's test accuracy on
the whole test split, the placed logic cells of the 5,280, Fmax against the clock asked, the
images per second at that clock (cycles per image from the simulation) and the simulation of the
placed and routed netlist against C on the first test images. Yes when it was placed and routed,
timing met and every simulated image got C's class; no when it was not routed, missed timing or
one image differs. A committed run (`wirelab.report.committed`) says the command that makes it
again; another run the command it was started with.
"""

from __future__ import annotations

from typing import Any

from wirelab.anchors import anchors_for
from wirelab.report.article import command_line
from wirelab.report.committed import CommittedRun, reproduce_command
from wirelab.report.headlines.base import Comparison, Headline, HeadlineEntry
from wirelab.report.headlines.values import dig, number, pct, wilson
from wirelab.report.runs import Run
from wirelab.report.words import code

CHIP = "iCE40 UP5K"
TEN_CLASSES = CommittedRun(  # the tour's page shows it (`wirelab.report.committed`)
    "docs/figures/fpga/up5k-b256-shift",
    "the ten-class MNIST classifier placed and routed on one iCE40 UP5K",
    "wirelab logic up5k docs/figures/fpga/mnist10-up5k-seeds/seed-1 --out runs/up5k-ten-classes",
)
ROUTED = "placed and routed"  # metrics["postsim_netlist"] when the simulated netlist is routed


def _int(m: Any, key: str) -> int | None:
    x = number(dig(m, key))
    return None if x is None else round(x)


def _equal(m: Any) -> tuple[int, int, bool] | None:
    """(images equal to C, images simulated, whether the routed netlist was simulated)."""
    equal, images = _int(m, "postsim_equal_to_c"), _int(m, "postsim_images")
    if equal is None or not images:
        return None
    return equal, images, dig(m, "postsim_netlist") == ROUTED


def _chip_words(m: Any, cells: int, available: int) -> tuple[str, str]:
    """(the answer's chip part, the verdict's): cells, clock met or not, images per second."""
    fmax, clock = number(dig(m, "fmax_mhz")), number(dig(m, "clock_mhz"))
    met = dig(m, "timing_met") is True
    per_s, at_fmax = _int(m, "images_per_s_at_clock"), _int(m, "images_per_s_at_fmax")
    timing = f"{clock or 0:g} MHz clock {'met' if met else 'not met'}" + (
        f" (Fmax {fmax:.2f} MHz)" if fmax is not None else ""
    )
    speed = f", {per_s:,} images per second" if per_s else ""
    answer = f"{cells:,} of {available:,} cells, {timing}{speed}"
    verdict = f"it uses {cells:,} of the chip's {available:,} logic cells and "
    verdict += (
        f"meets its {clock or 0:g} MHz clock" if met else f"misses its {clock or 0:g} MHz clock"
    )
    verdict += f" (Fmax {fmax:.2f} MHz)" if fmax is not None else ""
    if per_s:
        verdict += f", classifying {per_s:,} images per second"
        verdict += f" ({at_fmax:,} at Fmax)" if at_fmax else ""
    return answer, verdict


def _evidence(m: Any) -> list[tuple[str, Any]]:
    rows = [
        ("gates in the circuit", "gates"),
        ("inputs used (of 784 pixels)", "inputs_used"),
        ("placed logic cells (nextpnr)", "logic_cells"),
        ("logic cells on the chip", "logic_cells_available"),
        ("LUT4 (yosys)", "luts"),
        ("flip-flops", "flip_flops"),
        ("carry cells", "carry_cells"),
        ("block RAM cells", "block_ram_cells"),
        ("Fmax (MHz, nextpnr)", "fmax_mhz"),
        ("clock asked (MHz)", "clock_mhz"),
        ("timing met", "timing_met"),
        ("cycles per image", "cycles_per_image"),
        ("images per second at the clock", "images_per_s_at_clock"),
        ("images per second at Fmax", "images_per_s_at_fmax"),
        ("latency at Fmax (µs)", "latency_us_at_fmax"),
        ("bitstream (bytes)", "bitstream_bytes"),
        ("nextpnr (seconds)", "nextpnr_seconds"),
        ("netlist simulated", "postsim_netlist"),
        ("test images simulated", "postsim_images"),
        ("of them equal to C", "postsim_equal_to_c"),
        ("C equal to the discrete model (test images)", "c_equals_discrete"),
    ]
    return [(label, dig(m, key)) for label, key in rows if dig(m, key) is not None]


def up5k(run: Run) -> Headline | None:
    """Test accuracy (Wilson CI), cells of the chip, clock met, images per second and the
    routed netlist's equality with C; yes when all hold."""
    m = run.metrics
    acc = number(dig(m, "accuracy_c"))
    acc = acc if acc is not None else number(dig(m, "accuracy_discrete"))
    n, classes = _int(m, "test_images"), _int(m, "classes")
    if acc is None or not n:
        return None
    what = "ten-class" if classes == 10 else f"{classes}-class" if classes else "MNIST"
    question = (
        f"Does a {what} MNIST classifier run on one {CHIP}, giving the same classes as its "
        "C model after place and route?"
    )
    lo, hi = wilson(acc * n, n)
    uncertainty = f"Wilson 95% CI [{pct(lo)}, {pct(hi)}] on {n:,} test images"
    equal = _equal(m)
    cells, available = _int(m, "logic_cells"), _int(m, "logic_cells_available")
    routed = dig(m, "fits") is True and cells is not None and available
    answer = f"{pct(acc)} test accuracy on one {CHIP}"
    if routed:
        chip_answer, chip_verdict = _chip_words(m, cells, available)  # type: ignore[arg-type]
        answer += f": {chip_answer}"
    if equal:
        k, images, on_routed = equal
        netlist = "placed and routed netlist" if on_routed else "synthesised netlist"
        uncertainty += f"; the {netlist} simulated on {images:,} test images"
        same = f"its {netlist} gives the C model's class on {k:,} of {images:,} test images"
    if not routed:
        needed = _int(m, "logic_cells_needed")
        cap = round(anchors_for("ice40-up5k")[0].value)
        need = f"; nextpnr needed {needed:,} of its {cap:,} cells" if needed else ""
        verdict, outcome = f"No: not placed and routed on the chip{need}.", "no"
    else:
        all_equal = equal is not None and equal[0] == equal[1] and equal[2]
        ok = dig(m, "timing_met") is True and all_equal
        verdict = f"{'Yes' if ok else 'No'}: {chip_verdict}"
        verdict += f"; {same}." if equal else "; its netlist was not simulated."
        outcome = "yes" if ok else "no"
    command = reproduce_command(run, UP5K.committed)
    if command:
        verdict += f" Reproduce it with {code(command)}."
    elif line := command_line(run):
        verdict += f" Made by {code(line)}."
    this = f"{pct(acc)}" + (f", {cells:,} of {available:,} cells" if routed else "")
    comparisons = [Comparison("this circuit", this, "C back end on the MNIST test set", True)]
    comparisons += [
        Comparison(a.who, f"{a.figure()} {a.metric}", a.citation) for a in anchors_for("ice40-up5k")
    ]
    comparisons += [Comparison.of(a) for a in (anchors_for("mnist10") if classes == 10 else [])]
    return Headline(
        question,
        answer,
        uncertainty,
        verdict,
        outcome,
        comparisons,
        table=_evidence(m),
        table_caption="the circuit on the chip",
    )


UP5K = HeadlineEntry("wirelab logic up5k", up5k, committed=(TEN_CLASSES,))
