"""The turn study's headline (``wirelab fly turns``): do left and right stimulation turn the fly
opposite ways, against a no-stimulation control on the same seeds; and, when the study ran
degree-preserving rewirings, does the wiring decide the turn?

The run's ``metrics.json`` holds a table of (model, condition) rows: each side's turn minus the
control's on the same seed, and the paired difference L - R with its 95% CI over seeds. Yes when
that CI excludes 0 and the sides turn opposite ways; no when both sides turn the same way.

With nulls (models ``null-0``, ``null-1``, ...: `NULL_PREFIX`) the question is the wiring's: the
first model's |L - R| ranked among the nulls', ``p = (1 + #{nulls with |L - R| >= the
model's}) / (n + 1)`` (the smallest p n nulls can give is ``1 / (n + 1)``); yes when the turn
is resolved as above and ``p <= ALPHA``.

A run that leaves its question open (a few seeds on flygym, whose drift can hide the turn; too
few nulls) is answered by the committed study that resolves it (`FLYGYM_STUDY`, `NULL_STUDY`,
`wirelab.report.headlines.resolution`).
"""

from __future__ import annotations

from typing import Any

from wirelab.report.headlines.base import Comparison, Headline, HeadlineEntry
from wirelab.report.headlines.fly_stimulate import VISIBLE_TURN_DEG
from wirelab.report.headlines.reservoir_run import ALPHA
from wirelab.report.headlines.resolution import Resolution
from wirelab.report.headlines.values import dig, number, plural
from wirelab.report.runs import Run
from wirelab.report.words import fly_model

QUESTION = (
    "Do left and right stimulation turn the fly opposite ways, against a no-stimulation control "
    "on the same seeds?"
)
NULL_QUESTION = (
    "Does the wiring decide which way the fly turns, against degree-preserving rewirings?"
)
NULL_PREFIX = "null-"  # the turn study's rewirings (`wirelab.fly.turns.runs.model_names`)

FLYGYM_STUDY = Resolution(
    "wirelab fly turns --body flygym1 --seeds 8 --models row,spectral,mirror,null --nulls 2 "
    "--null-seeds 4",
    "L − R −104.0° [−121.2°, −86.7°] for the connectome over 8 seeds on NeuroMechFly "
    "(flygym 1.2.1): left −44.3°, right +59.7° minus the control",
    "yes",
    "`docs/figures/fly/turns_flygym_all_models.png`; "
    "`docs/results/fly.md`, Does the connectome turn the fly?",
)
NULL_STUDY = Resolution(
    "wirelab fly turns --body kinematic --seeds 2 --models row,null --nulls 20 --null-seeds 2 "
    "--no-video",
    "L − R −86.4° for the connectome against 20 nulls from −66.9° to +53.0°, p = 0.048",
    "yes",
    "`docs/results/fly.md`, Does the connectome turn the fly?",
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


def null_rank(by: dict[tuple[Any, Any], Any], model: Any) -> tuple[float, list[float]] | None:
    """The rank p-value of ``model``'s |L - R| among the nulls' and the nulls' L - R, or None
    when the run has no nulls."""
    lr = {m: number(dig(r, "turn", "mean")) for (m, c), r in by.items() if c == "left-right"}
    nulls = [
        v for m, v in lr.items() if m != model and str(m).startswith(NULL_PREFIX) and v is not None
    ]
    d = lr.get(model)
    if not nulls or d is None:
        return None
    return (1 + sum(abs(v) >= abs(d) for v in nulls)) / (len(nulls) + 1), nulls


def _with_nulls(h: Headline, d: float, p: float, nulls: list[float]) -> Headline:
    """The wiring's question: the first model's L - R against the nulls' (`null_rank`)."""
    n, floor = len(nulls), 1 / (len(nulls) + 1)
    note = f"; the smallest p {n} nulls can give is {floor:.2g}" if p <= floor + 1e-12 else ""
    h.question = NULL_QUESTION
    h.answer += f"; {plural(n, 'null')}: L − R {min(nulls):+.1f}° to {max(nulls):+.1f}°"
    h.uncertainty = f"p = {p:.2g} ({plural(n, 'null')}{note}); {h.uncertainty}"
    mean = sum(nulls) / n
    h.comparisons.append(
        Comparison(f"{plural(n, 'null')} (L − R)", f"{mean:+.1f}° mean", "degree-preserving, run")
    )
    if h.outcome != "yes":
        return h
    as_far = round(p * (n + 1)) - 1
    if p <= ALPHA:
        h.verdict = (
            f"Yes: opposite turns, L − R = {d:+.1f}°, farther than every one of {n} rewirings "
            f"of the wiring (p = {p:.2g} ≤ {ALPHA})."
            if as_far == 0
            else f"Yes: L − R = {d:+.1f}°, p = {p:.2g} ≤ {ALPHA} against {n} rewirings."
        )
    else:
        h.outcome = "unresolved"
        h.verdict = (
            f"Opposite turns (L − R = {d:+.1f}°), but {as_far} of {n} rewirings turn the fly as "
            f"far (p = {p:.2g} > {ALPHA})."
        )
    return h


def turns(run: Run) -> Headline | None:
    """The first model's paired left-minus-right turn (95% CI over seeds) and each side's turn
    minus the control; yes when the CI of L - R excludes 0 and the sides turn opposite ways;
    with nulls, also when the first model turns the fly farther than the nulls (p <= ALPHA)."""
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
    answer = (
        f"L − R {d:+.1f}°; minus control: left {lm:+.1f}°, right {rm:+.1f}° ({fly_model(model)})"
    )
    uncertainty = f"95% CI of L − R [{lo:+.1f}°, {hi:+.1f}°] over {plural(n, 'seed')}"
    outcome, verdict = _verdict(d, lo, hi, lm, rm)
    comparisons = [
        Comparison(
            f"{c} ({fly_model(m)})",
            f"{number(dig(r, 'minus_control', 'mean')) or 0:+.1f}° vs control",
            "this run",
            True,
        )
        for (m, c), r in by.items()
        if c in ("left", "right") and not str(m).startswith(NULL_PREFIX) and dig(r, "minus_control")
    ]
    plots = ("turns", "headings")
    h = Headline(QUESTION, answer, uncertainty, verdict, outcome, comparisons, plots=plots)
    ranked = null_rank(by, model)
    if ranked is not None:
        h = _with_nulls(h, d, *ranked)
    if h.outcome == "unresolved":
        return (NULL_STUDY if ranked else FLYGYM_STUDY).settle(h, h.verdict)
    return h


TURNS = HeadlineEntry("wirelab fly turns", turns)
