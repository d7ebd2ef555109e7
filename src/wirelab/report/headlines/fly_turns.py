"""The turn study's headline (``wirelab fly turns``): do left and right stimulation turn the fly
opposite ways, against a no-stimulation control on the same seeds?

The run's ``metrics.json`` holds a table of (model, condition) rows: each side's turn minus the
control's on the same seed, and the paired difference L - R with its 95% CI over seeds. Yes when
that CI excludes 0 and the sides turn opposite ways; no when both sides turn the same way.
"""

from __future__ import annotations

from wirelab.report.headlines.base import Comparison, Headline, HeadlineEntry
from wirelab.report.headlines.fly_stimulate import VISIBLE_TURN_DEG
from wirelab.report.headlines.values import dig, number, plural
from wirelab.report.runs import Run

QUESTION = (
    "Do left and right stimulation turn the fly opposite ways, against a no-stimulation control "
    "on the same seeds?"
)


def _verdict(d: float, lo: float, hi: float, lm: float, rm: float) -> tuple[str, str]:
    """(outcome, verdict) of L - R = d with CI [lo, hi] and each side minus the control."""
    opposite = lm * rm < 0
    if (lo > 0 or hi < 0) and opposite:
        small = abs(d) < VISIBLE_TURN_DEG
        size = f", under the {VISIBLE_TURN_DEG:.0f}° a viewer sees" if small else ""
        return "yes", f"Yes: opposite turns, L − R = {d:+.1f}° (CI excludes 0{size})."
    if opposite:
        return "unresolved", f"Opposite turns ({d:+.1f}° apart), but the CI of L − R includes 0."
    return "no", (
        f"No: both sides turn the fly the same way against the control ({lm:+.1f}°, {rm:+.1f}°)."
    )


def turns(run: Run) -> Headline | None:
    """The first model's paired left-minus-right turn (95% CI over seeds) and each side's turn
    minus the control; yes when the CI of L - R excludes 0 and the sides turn opposite ways."""
    rows = dig(run.metrics, "table")
    if not isinstance(rows, list):
        return None
    by = {(r.get("model"), r.get("condition")): r for r in rows if isinstance(r, dict)}
    model = next((m for m, c in by if c == "left-right"), None)
    diff = dig(by.get((model, "left-right")), "turn")
    left = dig(by.get((model, "left")), "minus_control")
    right = dig(by.get((model, "right")), "minus_control")
    d, lo, hi = number(dig(diff, "mean")), number(dig(diff, "ci", 0)), number(dig(diff, "ci", 1))
    lm, rm = number(dig(left, "mean")), number(dig(right, "mean"))
    if d is None or lo is None or hi is None or lm is None or rm is None:
        return None
    n = int(number(dig(diff, "n")) or 0)
    answer = f"L − R {d:+.1f}°; minus control: left {lm:+.1f}°, right {rm:+.1f}° ({model})"
    uncertainty = f"95% CI of L − R [{lo:+.1f}°, {hi:+.1f}°] over {plural(n, 'seed')}"
    outcome, verdict = _verdict(d, lo, hi, lm, rm)
    comparisons = [
        Comparison(
            f"{c} ({m})",
            f"{number(dig(r, 'minus_control', 'mean')) or 0:+.1f}° vs control",
            "this run",
            True,
        )
        for (m, c), r in by.items()
        if c in ("left", "right") and dig(r, "minus_control")
    ]
    plots = ("turns", "headings")
    return Headline(QUESTION, answer, uncertainty, verdict, outcome, comparisons, plots=plots)


TURNS = HeadlineEntry("wirelab fly turns", turns)
