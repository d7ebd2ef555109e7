"""The turn study's headline (``wirelab fly turns``): do left and right stimulation turn the fly
opposite ways, against a no-stimulation control on the same seeds; and, when the study ran
degree-preserving rewirings, does the wiring decide the turn?

The run's ``metrics.json`` holds a table of (model, condition) rows: each side's turn minus the
control's on the same seed, and the paired difference L - R with its 95% CI over seeds. Yes when
that CI excludes 0 and the sides turn opposite ways; no when both sides turn the same way.

With nulls (models ``null-0``, ``null-1``, ... of the ``degree`` family, ``null-<family>-<seed>``
of any other `wirelab.reservoir.nulls.NULLS` family) the question is the wiring's: per family,
the first model's |L - R| ranked among the nulls', ``p = (1 + #{nulls with |L - R| >= the
model's}) / (n + 1)`` (the smallest p n nulls can give is ``1 / (n + 1)``; the study's own
arithmetic, `wirelab.fly.turns.stats.compare_nulls`); yes when the turn is resolved as above and
``p <= ALPHA`` against every family present.

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
NULL_QUESTION = "Does the wiring decide which way the fly turns, against {} nulls?"

FLYGYM_STUDY = Resolution(
    "wirelab fly turns --body flygym1 --seeds 8 --models row,spectral,mirror,null --nulls 2 "
    "--null-walk-seeds 4",
    "L − R −104.0° [−121.2°, −86.7°] for the connectome over 8 seeds on NeuroMechFly "
    "(flygym 1.2.1): left −44.3°, right +59.7° minus the control",
    "yes",
    "`docs/figures/fly/turns_flygym_all_models.png`; "
    "`docs/results/fly.md`, Does the connectome turn the fly?",
)
NULL_STUDY = Resolution(
    "wirelab fly turns --body kinematic --seeds 2 --models row,null --nulls 99 "
    "--null-family degree,degree-boundary --null-seed 5000 --no-video",
    "|L − R| 78.8° for the connectome against 99 degree-preserving nulls' 28.3° ± 20.4° "
    "(p = 0.02) and 99 boundary-preserving nulls' 1.4° ± 1.1° (p = 0.01)",
    "yes",
    "`docs/figures/fly/turns-99/metrics.json`; `docs/results/fly.md`, Does the connectome turn "
    "the fly?",
)
NULL_STUDY_FAMILIES = ("degree", "degree-boundary")  # the null families `NULL_STUDY` ran
NULL_STUDY_NULLS = 99  # its nulls per family: a run with fewer defers to it


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


def null_rank(table: list[Any]) -> dict[str, dict[str, Any]]:
    """Per null family present, the first model's |L - R| against that family's nulls (rank p,
    z, the nulls' L - R: `wirelab.fly.turns.stats.compare_nulls`, the study's own arithmetic);
    ``{}`` when the run has no nulls."""
    from wirelab.fly.turns.stats import compare_nulls

    families = compare_nulls(table).get("families", {})
    return families if isinstance(families, dict) else {}


def _clause(c: dict[str, Any], passed: bool) -> str:
    """How the first model's turn ranks among one family's nulls, in words."""
    n, p, family = c["n_nulls"], c["p"], c["family"]
    as_far = round(p * (n + 1)) - 1
    if not passed:
        return f"{as_far} of {n} {family} rewirings turn the fly as far (p = {p:.2g} > {ALPHA})"
    if as_far == 0:
        return f"farther than every one of {n} {family} rewirings (p = {p:.2g} ≤ {ALPHA})"
    return f"farther than {n - as_far} of {n} {family} rewirings (p = {p:.2g} ≤ {ALPHA})"


def _with_nulls(h: Headline, d: float, families: dict[str, dict[str, Any]]) -> Headline:
    """The wiring's question: the first model's L - R against each family's nulls."""
    ps = []
    for family, c in families.items():
        n, p, lr = c["n_nulls"], c["p"], c["nulls_lr"]
        floor = 1 / (n + 1)
        note = f"; the smallest p {n} nulls can give is {floor:.2g}" if p <= floor + 1e-12 else ""
        h.answer += f"; {n} {family} {'null' if n == 1 else 'nulls'}: L − R "
        h.answer += f"{min(lr):+.1f}° to {max(lr):+.1f}°"
        ps.append(f"p = {p:.2g} against {plural(n, family + ' null')}{note}")
        h.comparisons.append(
            Comparison(f"{n} {family} nulls (L − R)", f"{sum(lr) / n:+.1f}° mean", "this run")
        )
    h.question = NULL_QUESTION.format(" and ".join(families))
    h.uncertainty = f"{'; '.join(ps)}; {h.uncertainty}"
    if h.outcome != "yes":
        return h
    failed = [c for c in families.values() if c["p"] > ALPHA]
    if not failed:
        clauses = " and ".join(_clause(c, True) for c in families.values())
        h.verdict = f"Yes: opposite turns, L − R = {d:+.1f}°, {clauses}."
        return h
    h.outcome = "unresolved"
    clauses = "; ".join(_clause(c, c["p"] <= ALPHA) for c in families.values())
    h.verdict = f"Opposite turns (L − R = {d:+.1f}°), but {clauses}."
    return h


def turns(run: Run) -> Headline | None:
    """The first model's paired left-minus-right turn (95% CI over seeds) and each side's turn
    minus the control; yes when the CI of L - R excludes 0 and the sides turn opposite ways;
    with nulls, also when the first model turns the fly farther than the nulls (p <= ALPHA)."""
    from wirelab.fly.turns.stats import null_family

    rows = dig(run.metrics, "table")
    if not isinstance(rows, list):
        return None
    by = {(r.get("model"), r.get("condition")): r for r in rows if isinstance(r, dict)}
    lr_models = [m for m, c in by if c == "left-right"]
    model = next((m for m in lr_models if null_family(m) is None), next(iter(lr_models), None))
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
        if c in ("left", "right") and null_family(m) is None and dig(r, "minus_control")
    ]
    drawn = {path.stem for path in run.images}
    plots = tuple(p for p in ("turns", "nulls", "headings") if p != "nulls" or p in drawn)
    h = Headline(QUESTION, answer, uncertainty, verdict, outcome, comparisons, plots=plots)
    ranked = null_rank(rows)
    if ranked:
        h = _with_nulls(h, d, ranked)
    if h.outcome == "unresolved":
        failed = {f for f, c in ranked.items() if c["p"] > ALPHA}
        if not ranked:
            return FLYGYM_STUDY.settle(h, h.verdict)
        fewer = all(ranked[f]["n_nulls"] < NULL_STUDY_NULLS for f in failed)
        if failed <= set(NULL_STUDY_FAMILIES) and fewer:  # the larger committed study answers
            return NULL_STUDY.settle(h, h.verdict)
    return h


TURNS = HeadlineEntry("wirelab fly turns", turns)
