"""Headlines of the connectome systems: the reservoir against its nulls, and the fly.

Every function reads a run's ``metrics.json`` (``run.metrics``) and ``config.json``
(``run.config``) and returns a `Headline` whose verdict is derived from those numbers, or None
when a key it needs is missing (the page then shows the generic view).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wirelab.anchors import anchors_for
from wirelab.report.headline import (
    GROUPS,
    HEADLINES,
    Comparison,
    Headline,
    dig,
    number,
    plural,
    wilson,
)
from wirelab.report.runs import Run

ALPHA = 0.05  # p at or below this is called significant
VISIBLE_TURN_DEG = 20.0  # a heading difference a viewer sees in the video
NULL_NAMES = {"degree": "degree-preserving", "erdos-renyi": "Erdos-Renyi", "weights":
              "weight-shuffled", "mirror": "left-right mirrored"}  # fmt: skip
PREFERRED_TASKS = ("memory-capacity", "mackey-glass-84")  # the headline's task, if the run has it
TASK_WORDS = {
    "memory-capacity": "remember more",
    "mackey-glass-84": "predict Mackey-Glass 84 steps ahead better",
    "mackey-glass": "predict Mackey-Glass better",
    "narma10": "model NARMA-10 better",
}


def _connectome(config: dict[str, Any]) -> str:
    name = dig(config, "config", "connectome") or dig(config, "connectome") or "larva"
    return "the larval connectome" if name == "larva" else f"the {name} connectome"


def _p_text(p: float, n: int) -> str:
    floor = 1 / (n + 1)
    note = f"; the smallest p {n} nulls can give is {floor:.2g}" if p <= floor + 1e-12 else ""
    return f"p = {p:.2g} ({plural(n, 'null')}{note})"


@HEADLINES.register("wirelab reservoir run", "a reservoir task against null networks")
def reservoir(run: Run) -> Headline | None:
    """The connectome's best-alpha score against its nulls at that alpha (`stats.summarize`)."""
    summary = dig(run.metrics, "summary")
    if not isinstance(summary, dict) or not summary:
        return None
    task = next((t for t in PREFERRED_TASKS if t in summary), sorted(summary)[0])
    s = summary[task]
    score, metric = number(dig(s, "connectome")), dig(s, "metric") or task
    if score is None:
        return None
    hib = dig(s, "higher_is_better") is not False
    kind = dig(run.config, "config", "null_models", 0) or "degree"
    nulls = NULL_NAMES.get(str(kind), str(kind))
    who = _connectome(run.config)
    does = TASK_WORDS.get(task, f"score better on {task}")
    question = f"Does {who} {does} than its {nulls} nulls?"
    alpha = number(dig(s, "best_alpha"))
    answer = f"{metric} {score:.3g}" + (f" at alpha {alpha:g}" if alpha is not None else "")
    mean, sd = number(dig(s, "null_mean")), number(dig(s, "null_std"))
    p, z, n = number(dig(s, "p_value")), number(dig(s, "z")), int(number(dig(s, "n_nulls")) or 0)
    missing = [] if p is not None else [f"(metrics.json, summary.{task}.p_value)"]
    comparisons = [Comparison(who.removeprefix("the "), f"{score:.3g}", "this run", True)]
    if mean is not None:
        comparisons.append(
            Comparison(f"{nulls} nulls", f"{mean:.3g} ± {sd or 0:.2g}", f"mean ± sd of {n}, run")
        )
    comparisons += [Comparison.of(a) for a in anchors_for(task)]
    if mean is None or p is None or n == 0:
        uncertainty, outcome = "no null networks in this run", "info"
        verdict = f"No comparison: the run has no {nulls} nulls (--nulls 0)."
    else:
        better = score > mean if hib else score < mean
        p_own = number(dig(s, "p_value_own_best_alpha"))
        uncertainty = _p_text(p, n) + (f"; z = {z:+.2f}" if z is not None else "")
        if p_own is not None:
            uncertainty += f"; every network at its own best alpha: p = {p_own:.2g}"
        word = "above" if hib else "below"
        if better and p <= ALPHA:
            outcome = "yes"
            verdict = f"Yes: {score:.3g} is {word} the null mean {mean:.3g}, p = {p:.2g} ≤ {ALPHA}."
        elif better:
            outcome = "unresolved"
            verdict = (
                f"Not shown: {score:.3g} is {word} the null mean {mean:.3g}, but p = {p:.2g} "
                f"> {ALPHA} with {plural(n, 'null')}."
            )
        else:
            outcome = "no"
            verdict = f"No: {metric} {score:.3g} is not {word} the null mean {mean:.3g}."
    return Headline(question, answer, uncertainty, verdict, outcome, comparisons,
                    plots=("score_vs_alpha",), missing=missing)  # fmt: skip


STIM_QUESTION = "Does stimulating the left or the right side turn the fly?"


def _turn_words(deg: float) -> str:
    """Heading change (counter-clockwise positive) in words."""
    return f"{deg:+.1f}° ({'left' if deg > 0 else 'right' if deg < 0 else 'no'} turn)"


def _ci(metrics: Any, key: str) -> tuple[float, float] | None:
    lo, hi = number(dig(metrics, key, 0)), number(dig(metrics, key, 1))
    return (lo, hi) if lo is not None and hi is not None else None


def _seeds(metrics: Any) -> int:
    seeds = dig(metrics, "seeds")
    if isinstance(seeds, list):
        return len(seeds)
    return int(number(seeds) or number(dig(metrics, "n_seeds")) or 1)


@HEADLINES.register("wirelab fly stimulate", "one-sided stimulation of the fly")
def stimulate(run: Run) -> Headline | None:
    """One side's stimulation: the heading change, and whether it is toward that side."""
    m = run.metrics
    turn, side = number(dig(m, "heading_change_deg")), dig(m, "side")
    if turn is None or side not in ("left", "right", "both"):
        return None
    li = number(dig(m, "lateralization_index"))
    answer = f"{side} stimulation: heading {_turn_words(turn)}"
    ci, seeds = _ci(m, "heading_change_deg_ci"), _seeds(m)
    missing = [] if ci else ["(metrics.json, heading_change_deg_ci)"]
    if ci:
        uncertainty = f"95% CI [{ci[0]:+.1f}°, {ci[1]:+.1f}°] over {plural(seeds, 'seed')}"
    else:
        uncertainty = f"{plural(seeds, 'seed')}, no interval"
    if li is not None:
        uncertainty += f"; DN-VNC lateralization index {li:+.3f}"
    toward = (turn > 0) == (side == "left")
    where = "toward" if toward else "away from"
    if side == "both":
        outcome, verdict = "info", f"Control (both sides): the fly turned {_turn_words(turn)}."
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
    return Headline(STIM_QUESTION, answer, uncertainty, verdict, outcome,
                    plots=("trajectory", "dn_traces"), missing=missing)  # fmt: skip


@GROUPS.register("wirelab fly stimulate", "left and right stimulation side by side")
def stimulate_pairs(runs: Sequence[Run]) -> list[tuple[Headline, list[Run]]]:
    """Left and right runs in one folder with the same body: do they turn the fly oppositely?"""
    folders: dict[tuple[Path, str], dict[str, Run]] = {}
    for r in runs:
        side, body = dig(r.metrics, "side"), str(dig(r.metrics, "body"))
        if side in ("left", "right", "both") and number(dig(r.metrics, "heading_change_deg")):
            folders.setdefault((r.path.parent, body), {}).setdefault(str(side), r)
    out = []
    for (_, body), by_side in sorted(folders.items(), key=lambda kv: str(kv[0])):
        if "left" in by_side and "right" in by_side:
            out.append((_pair(by_side, body), [by_side[s] for s in ("left", "right", "both")
                                               if s in by_side]))  # fmt: skip
    return out


def _pair(by_side: dict[str, Run], body: str) -> Headline:
    left, right = (float(dig(by_side[s].metrics, "heading_change_deg")) for s in ("left", "right"))
    diff = left - right
    cis = [_ci(by_side[s].metrics, "heading_change_deg_ci") for s in ("left", "right")]
    seeds = min(_seeds(by_side[s].metrics) for s in ("left", "right"))
    answer = f"left {left:+.1f}°, right {right:+.1f}°: difference L − R {diff:+.1f}°"
    dci = None
    if cis[0] and cis[1]:  # independent sides: half-widths add in quadrature
        half = ((cis[0][1] - cis[0][0]) ** 2 + (cis[1][1] - cis[1][0]) ** 2) ** 0.5 / 2
        dci = (diff - half, diff + half)
        uncertainty = f"95% CI of L − R [{dci[0]:+.1f}°, {dci[1]:+.1f}°], {plural(seeds, 'seed')}"
    else:
        uncertainty = "one seed per side: no interval"
    opposite = left * right < 0
    if dci and (dci[0] > 0 or dci[1] < 0) and opposite:
        outcome, verdict = "yes", f"Yes: opposite turns, L − R = {diff:+.1f}° (CI excludes 0)."
    elif not opposite:
        way = "left" if left > 0 else "right"
        if dci is None:  # one run per side cannot say no either
            outcome = "unresolved"
            verdict = (
                f"Both turned {way} ({left:+.1f}° and {right:+.1f}°), one seed per side: one run "
                "cannot tell a turn from drift (flygym drifts ~18° per 2 s on equal drives); "
                "the turn study over seeds with controls answers this."
            )
        else:
            outcome = "no"
            verdict = (
                f"No: both stimuli turn the fly {way} ({left:+.1f}° and {right:+.1f}°); the turn "
                "does not follow the stimulated side."
            )
    elif abs(diff) >= VISIBLE_TURN_DEG and dci is None:
        outcome = "unresolved"
        verdict = f"Opposite turns, {abs(diff):.1f}° apart, but one seed per side: no interval."
    elif dci is None:
        outcome = "unresolved"
        verdict = (
            f"Opposite turns but only {abs(diff):.1f}° apart (under the {VISIBLE_TURN_DEG:.0f}° "
            "a viewer sees), one seed per side."
        )
    else:
        outcome, verdict = "no", f"Not shown: the CI of L − R ({diff:+.1f}°) includes 0."
    comparisons = [
        Comparison(f"{s} stimulation", _turn_words(float(dig(r.metrics, "heading_change_deg"))),
                   f"{body} body, this run", True)
        for s, r in by_side.items()
    ]  # fmt: skip
    return Headline(STIM_QUESTION, answer, uncertainty, verdict, outcome, comparisons,
                    plots=("trajectory",))  # fmt: skip


@HEADLINES.register("wirelab fly taxis", "closed-loop odour taxis against baselines")
def taxis(run: Run) -> Headline | None:
    """The connectome's success rate (Wilson CI) against the run's own baselines and nulls."""
    rows = dig(run.metrics, "conditions")
    if not isinstance(rows, list):
        return None
    by = {str(dig(r, "condition")): r for r in rows if isinstance(r, dict)}
    main = by.get("connectome")
    if main is None or number(dig(main, "trials")) is None:
        return None

    def rate(r: dict[str, Any]) -> tuple[float, float, float, int]:
        n = int(number(dig(r, "trials")) or 0)
        k = number(dig(r, "successes"))
        k = k if k is not None else (number(dig(r, "success_rate")) or 0.0) * n
        lo, hi = _ci(r, "success_ci") or wilson(k, n)
        return k / n if n else 0.0, lo, hi, n

    p, lo, hi, n = rate(main)
    answer = f"reaches the odour source in {100 * p:.0f}% of {plural(n, 'trial')}"
    uncertainty = f"Wilson 95% CI [{100 * lo:.0f}%, {100 * hi:.0f}%]"
    comparisons = [Comparison("connectome reservoir", f"{100 * p:.0f}% [{100 * lo:.0f}, "
                              f"{100 * hi:.0f}]", f"{n} trials, this run", True)]  # fmt: skip
    for name, r in by.items():
        if name != "connectome":
            q, qlo, qhi, qn = rate(r)
            comparisons.append(
                Comparison(name, f"{100 * q:.0f}% [{100 * qlo:.0f}, {100 * qhi:.0f}]",
                           f"{qn} trials, this run")
            )  # fmt: skip
    dumb = [rate(by[b]) for b in ("constant", "random") if b in by]
    nulls = [rate(r) for name, r in by.items() if name.startswith("degree-null")]
    if not dumb:
        outcome, verdict = "info", "No constant or random baseline in this run to compare with."
    elif lo > max(d[2] for d in dumb):
        outcome = "yes"
        verdict = "Yes: above the constant and random policies (the 95% intervals do not overlap)"
    elif hi < max(d[1] for d in dumb):
        outcome, verdict = "no", "No: below the best of the constant and random policies"
    else:
        outcome = "unresolved"
        verdict = "Not shown: its interval overlaps the constant or random policy's"
    if nulls and dumb:
        beaten = sum(lo > q[2] for q in nulls)
        verdict += f"; above {beaten} of {plural(len(nulls), 'degree-preserving null')}."
    elif dumb:
        verdict += "."
    return Headline("Does the connectome reservoir steer the fly to the odour source?", answer,
                    uncertainty, verdict, outcome, comparisons,
                    plots=("success_rate", "trajectories"))  # fmt: skip


@HEADLINES.register("wirelab fly lateralization", "ipsilateral or contralateral DN response")
def lateralization(run: Run) -> Headline | None:
    """The contrast C = (LI_left - LI_right) / 2 with its bootstrap CI, for all modalities at
    the gain closest to 1 with row normalisation (or the first setting the run has)."""
    rows = [r for r in dig(run.metrics, "summary") or [] if isinstance(r, dict)]
    rows = [r for r in rows if None not in (number(r.get(k)) for k in ("contrast", "ci_low",
                                                                       "ci_high"))]  # fmt: skip
    if not rows:
        return None

    def rank(r: dict[str, Any]) -> tuple[bool, bool, float]:
        gain = number(r.get("gain"))
        return (r.get("modality") != "all", r.get("normalize") != "row",
                abs((gain if gain is not None else 1.0) - 1.0))  # fmt: skip

    r = min(rows, key=rank)
    c, lo, hi = float(r["contrast"]), float(r["ci_low"]), float(r["ci_high"])
    what = f"{r.get('modality')} sensory neurons, gain {r.get('gain')}, {r.get('normalize')}"
    boot = dig(run.config, "config", "boot")
    uncertainty = f"95% bootstrap CI [{lo:+.3f}, {hi:+.3f}]" + (
        f" over {boot} replicates" if isinstance(boot, int) else ""
    )
    p_null = number(r.get("p_null"))
    n_nulls = dig(run.config, "config", "nulls")
    if p_null is not None and isinstance(n_nulls, int):
        uncertainty += f"; against {plural(n_nulls, 'degree-preserving null')}: p = {p_null:.2g}"
    resolved = [x for x in rows if x["ci_low"] > 0 or x["ci_high"] < 0]
    ipsi = sum(x["ci_low"] > 0 for x in rows)
    tally = f" ({ipsi} of {len(rows)} settings ipsilateral, {len(resolved) - ipsi} contralateral)"
    if lo > 0:
        outcome, verdict = "yes", "Ipsilateral: the stimulated side's DN-VNC respond more" + tally
    elif hi < 0:
        outcome, verdict = "yes", "Contralateral: the opposite side's DN-VNC respond more" + tally
    else:
        outcome, verdict = "unresolved", "Not resolved: the interval includes 0" + tally
    comparisons = [Comparison("connectome", f"C = {c:+.3f}", what + ", this run", True)]
    mean, sd = number(r.get("null_mean")), number(r.get("null_std"))
    if mean is not None:
        comparisons.append(Comparison("degree-preserving nulls", f"{mean:+.3f} ± {sd or 0:.3f}",
                                      "mean ± sd, this run"))  # fmt: skip
    mirror = number(r.get("mirror_contrast"))
    if mirror is not None:
        comparisons.append(Comparison("mirrored connectome", f"{mirror:+.3f}", "this run"))
    return Headline(
        "Does one-sided sensory input drive the same side's descending neurons (DN-VNC) more?",
        f"contrast C = {c:+.3f} ({what})",
        uncertainty,
        verdict + ".",
        outcome,
        comparisons,
        plots=(f"lateralization_{r.get('normalize')}",),
    )


TURNS_QUESTION = (
    "Do left and right stimulation turn the fly opposite ways, against a no-stimulation control "
    "on the same seeds?"
)


@HEADLINES.register("wirelab fly turns", "left, right and control flies over seeds")
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
    opposite = lm * rm < 0
    if (lo > 0 or hi < 0) and opposite:
        small = abs(d) < VISIBLE_TURN_DEG
        size = f", under the {VISIBLE_TURN_DEG:.0f}° a viewer sees" if small else ""
        outcome, verdict = "yes", f"Yes: opposite turns, L − R = {d:+.1f}° (CI excludes 0{size})."
    elif opposite:
        outcome = "unresolved"
        verdict = f"Opposite turns ({d:+.1f}° apart), but the CI of L − R includes 0."
    else:
        outcome = "no"
        verdict = (
            f"No: both sides turn the fly the same way against the control ({lm:+.1f}°, "
            f"{rm:+.1f}°)."
        )
    comparisons = [
        Comparison(f"{c} ({m})", f"{number(dig(r, 'minus_control', 'mean')) or 0:+.1f}° vs control",
                   "this run", True)
        for (m, c), r in by.items() if c in ("left", "right") and dig(r, "minus_control")
    ]  # fmt: skip
    return Headline(TURNS_QUESTION, answer, uncertainty, verdict, outcome, comparisons,
                    plots=("turns", "headings"))  # fmt: skip
