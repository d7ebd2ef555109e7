"""The fly's stimulation headline (``wirelab fly stimulate``): does stimulating one side turn the
fly?

One run records the heading change (counter-clockwise positive, degrees) of one side's
stimulation, with a 95% CI over seeds where it ran several. Left and right runs in one folder
with the same body are answered together (`stimulate_pairs`): the difference L - R, with a CI
whose half-width adds the sides' half-widths in quadrature (independent sides); opposite turns
with a CI excluding 0 are a yes, the same turn on both sides a no.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wirelab.data.connectomes import SIDE_CHOICES, SIDES
from wirelab.report.headlines.base import Comparison, Headline, HeadlineEntry
from wirelab.report.headlines.values import dig, interval, number, plural
from wirelab.report.runs import Run
from wirelab.report.words import code

VISIBLE_TURN_DEG = 20.0  # a heading difference a viewer sees in the video
STIM_QUESTION = "Does stimulating the left or the right side turn the fly?"


def turn_words(deg: float) -> str:
    """Heading change (counter-clockwise positive) in words."""
    return f"{deg:+.1f}° ({'left' if deg > 0 else 'right' if deg < 0 else 'no'} turn)"


def _seeds(metrics: Any) -> int:
    seeds = dig(metrics, "seeds")
    if isinstance(seeds, list):
        return len(seeds)
    return int(number(seeds) or number(dig(metrics, "n_seeds")) or 1)


def stimulate(run: Run) -> Headline | None:
    """One side's stimulation: the heading change, and whether it is toward that side."""
    m = run.metrics
    turn, side = number(dig(m, "heading_change_deg")), dig(m, "side")
    if turn is None or side not in SIDE_CHOICES:
        return None
    li = number(dig(m, "lateralization_index"))
    answer = f"{side} stimulation: heading {turn_words(turn)}"
    ci, seeds = interval(m, "heading_change_deg_ci"), _seeds(m)
    where = f"{code('heading_change_deg_ci')} in {code('metrics.json')}"
    missing = [] if ci else [f"the 95% CI of the heading change over seeds ({where})"]
    if ci:
        uncertainty = f"95% CI [{ci[0]:+.1f}°, {ci[1]:+.1f}°] over {plural(seeds, 'seed')}"
    else:
        uncertainty = f"{plural(seeds, 'seed')}, no interval"
    if li is not None:
        uncertainty += f"; DN-VNC lateralization index {li:+.3f}"
    toward = (turn > 0) == (side == "left")
    where = "toward" if toward else "away from"
    if side == "both":
        outcome, verdict = "info", f"Control (both sides): the fly turned {turn_words(turn)}."
    elif ci and (ci[0] > 0 or ci[1] < 0):
        outcome = "yes"
        verdict = f"Yes: it turns {where} the stimulated side; the 95% CI excludes 0."
    elif ci:
        outcome, verdict = "no", "No turn shown: the 95% CI of the heading change includes 0."
    else:
        outcome = "unresolved"
        verdict = (
            f"It turned {abs(turn):.1f}° {where} the stimulated side; one seed cannot tell a "
            "turn from drift: compare with the other side."
        )
    plots = ("trajectory", "dn_traces")
    return Headline(
        STIM_QUESTION, answer, uncertainty, verdict, outcome, plots=plots, missing=missing
    )


def stimulate_pairs(runs: Sequence[Run]) -> list[tuple[Headline, list[Run]]]:
    """Left and right runs in one folder with the same body: do they turn the fly oppositely?"""
    folders: dict[tuple[Path, str], dict[str, Run]] = {}
    for r in runs:
        side, body = dig(r.metrics, "side"), str(dig(r.metrics, "body"))
        if side in SIDE_CHOICES and number(dig(r.metrics, "heading_change_deg")):
            folders.setdefault((r.path.parent, body), {}).setdefault(str(side), r)
    out = []
    for (_, body), by_side in sorted(folders.items(), key=lambda kv: str(kv[0])):
        if "left" in by_side and "right" in by_side:
            members = [by_side[s] for s in SIDE_CHOICES if s in by_side]
            out.append((_pair(by_side, body), members))
    return out


def _pair_verdict(left: float, right: float, dci: tuple[float, float] | None) -> tuple[str, str]:
    """(outcome, verdict) of the left and right turns and the CI of L - R (None: one seed)."""
    diff = left - right
    opposite = left * right < 0
    if dci and (dci[0] > 0 or dci[1] < 0) and opposite:
        return "yes", f"Yes: opposite turns, L − R = {diff:+.1f}° (CI excludes 0)."
    if not opposite:
        way = "left" if left > 0 else "right"
        if dci is None:  # one run per side cannot say no either
            return "unresolved", (
                f"Both turned {way} ({left:+.1f}° and {right:+.1f}°), one seed per side: one run "
                "cannot tell a turn from drift (flygym drifts ~18° per 2 s on equal drives); "
                "the turn study over seeds with controls answers this."
            )
        return "no", (
            f"No: both stimuli turn the fly {way} ({left:+.1f}° and {right:+.1f}°); the turn "
            "does not follow the stimulated side."
        )
    if abs(diff) >= VISIBLE_TURN_DEG and dci is None:
        return "unresolved", (
            f"Opposite turns, {abs(diff):.1f}° apart, but one seed per side: no interval."
        )
    if dci is None:
        return "unresolved", (
            f"Opposite turns but only {abs(diff):.1f}° apart (under the {VISIBLE_TURN_DEG:.0f}° "
            "a viewer sees), one seed per side."
        )
    return "no", f"Not shown: the CI of L − R ({diff:+.1f}°) includes 0."


def _pair(by_side: dict[str, Run], body: str) -> Headline:
    left, right = (float(dig(by_side[s].metrics, "heading_change_deg")) for s in SIDES)
    diff = left - right
    cis = [interval(by_side[s].metrics, "heading_change_deg_ci") for s in SIDES]
    seeds = min(_seeds(by_side[s].metrics) for s in SIDES)
    answer = f"left {left:+.1f}°, right {right:+.1f}°: difference L − R {diff:+.1f}°"
    dci = None
    if cis[0] and cis[1]:  # independent sides: half-widths add in quadrature
        half = ((cis[0][1] - cis[0][0]) ** 2 + (cis[1][1] - cis[1][0]) ** 2) ** 0.5 / 2
        dci = (diff - half, diff + half)
        uncertainty = f"95% CI of L − R [{dci[0]:+.1f}°, {dci[1]:+.1f}°], {plural(seeds, 'seed')}"
    else:
        uncertainty = "one seed per side: no interval"
    outcome, verdict = _pair_verdict(left, right, dci)
    comparisons = [
        Comparison(
            f"{s} stimulation",
            turn_words(float(dig(r.metrics, "heading_change_deg"))),
            f"{body} body, this run",
            True,
        )
        for s, r in by_side.items()
    ]
    return Headline(
        STIM_QUESTION, answer, uncertainty, verdict, outcome, comparisons, plots=("trajectory",)
    )


STIMULATE = HeadlineEntry("wirelab fly stimulate", stimulate, group=stimulate_pairs)
