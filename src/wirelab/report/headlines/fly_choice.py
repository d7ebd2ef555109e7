"""The choice study's headline (``wirelab fly choice``): does the wiring help the fly choose
between two cues of opposite value, against rewirings of the connectome?

A run's ``metrics.json`` holds the connectome's success rate (``conditions[0]``, a Wilson 95%
interval), its input control and baselines, and under ``nulls`` the comparison with one null
family (``family``): at the connectome's gain (``same_gain``) and at each network's own best gain
(``own_best_gain``), each with the rank ``p = (1 + #{null >= connectome}) / (n + 1)``, z and
Cohen's h (`wirelab.fly.choice.stats.against_nulls`); ``shortcuts`` the share of each cue's
sensory class reaching the DN-VNC neurons in the connectome and in the family.

Per family, the connectome beats the nulls when ``p <= ALPHA`` both at the same gain and at the
own best gains (an advantage that a null's gain would undo is none). Runs of one protocol (the
same task and seed) with different families answer together (`choices`): yes when the connectome
beats every family, no when some family with enough nulls to reach ``ALPHA`` is not beaten (the
verdict names which it beat and which it did not), not resolved when a family has too few nulls
(``1 / (n + 1) > ALPHA``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from wirelab.report.committed import CommittedRun
from wirelab.report.headlines.base import Comparison, Headline, HeadlineEntry
from wirelab.report.headlines.reservoir_run import ALPHA, null_words
from wirelab.report.headlines.resolution import Resolution
from wirelab.report.headlines.values import dig, number
from wirelab.report.runs import Run
from wirelab.report.words import choice_condition

QUESTION = (
    "Does the wiring help the fly choose between two odours, an attractive and an aversive one, "
    "against rewirings of the connectome?"
)
GAINS = (("same_gain", "at the connectome's gain"), ("own_best_gain", "each at its best gain"))
STUDY = "docs/figures/fly/choice"
COMMITTED = (
    *(
        CommittedRun(
            f"{STUDY}-{family}-99",
            f"the confirmatory choice study against 99 {family} nulls",
            f"wirelab fly choice --nulls 99 --null-family {family} --seed 2026 --null-seed 5000 "
            f"--workers 2 --out runs/fly/choice-{family}",
        )
        for family in ("degree", "degree-boundary")
    ),
    CommittedRun(
        f"{STUDY}-flygym2",
        "the choice study's trained networks tested on NeuroMechFly (flygym 2), filmed",
        "wirelab fly choice --body flygym --trials 30 --nulls 10 --null-family degree-boundary "
        "--seed 2026 --null-seed 5000 --workers 2 --video runs/fly/choice-video.mp4 "
        "--out runs/fly/choice-flygym2",
    ),
)
CONFIRMATORY = Resolution(
    COMMITTED[1].command,
    "the connectome's 0.57 not above 99 degree-preserving nulls (0.27 ± 0.27, p = 0.13) nor 99 "
    "boundary-preserving ones (0.27 ± 0.28, p = 0.21)",
    "no",
    "`docs/figures/fly/choice-degree-99`, `docs/figures/fly/choice-degree-boundary-99`; "
    "`docs/fly-choice.md`",
)


def _family(run: Run) -> tuple[str, dict[str, Any]] | None:
    """(family, the run's null comparison) or None when the run has no nulls."""
    nulls = dig(run.metrics, "nulls")
    if not isinstance(nulls, dict) or not number(dig(nulls, "same_gain", "n_nulls")):
        return None
    return str(dig(nulls, "family")), nulls


def _compared(nulls: dict[str, Any], key: str, how: str) -> str:
    """One gain rule's comparison in words: observed vs the nulls' mean +- SD, p, z, h."""

    def v(name: str) -> float:
        return number(dig(nulls, key, name)) or 0.0

    return (
        f"{how}: {v('observed'):.2f} vs {v('null_mean'):.2f} ± {v('null_sd'):.2f}, "
        f"p = {v('p'):.2g}, z = {v('z'):+.2f}, h = {v('cohens_h'):+.2f}"
    )


def _beats(nulls: dict[str, Any]) -> tuple[str, str]:
    """(outcome, words) of the connectome against one family at both gain rules."""
    n = int(number(dig(nulls, "same_gain", "n_nulls")) or 0)
    ps = [number(dig(nulls, key, "p")) or 1.0 for key, _ in GAINS]
    words = "; ".join(_compared(nulls, key, how) for key, how in GAINS)
    if all(p <= ALPHA for p in ps):
        return "yes", words
    if 1.0 / (n + 1) > ALPHA:
        return "unresolved", words
    return "no", words


def _shortcut(run: Run, cls: str) -> str:
    """The cue class's one-hop shortcut share, connectome vs the family mean, in words."""
    conn = number(dig(run.metrics, "shortcuts", "connectome", cls, "one_hop"))
    mean = number(dig(run.metrics, "shortcuts", "nulls", cls, "one_hop", "mean"))
    if conn is None or mean is None:
        return ""
    return f"{cls} output straight onto DN-VNC {100 * conn:.2f}% vs {100 * mean:.2f}%"


def _headline(runs: Sequence[Run]) -> Headline | None:
    """One headline from runs of one protocol, each against its own family."""
    main = dig(runs[0].metrics, "conditions", 0)
    rate, ci = number(dig(main, "success_rate")), dig(main, "success_ci")
    if rate is None or not isinstance(ci, list):
        return None
    n = int(number(dig(main, "trials")) or 0)
    answer = f"the connectome reaches the attractive source in {100 * rate:.0f}% of {n} trials"
    uncertainty = f"Wilson 95% CI [{100 * ci[0]:.0f}%, {100 * ci[1]:.0f}%]"
    comparisons = [
        Comparison(choice_condition("connectome"), f"{100 * rate:.0f}%", "this run", True)
    ]
    kinematic = number(dig(runs[0].metrics, "kinematic", "conditions", 0, "success_rate"))
    if dig(runs[0].metrics, "body") == "flygym" and kinematic is not None:
        answer += " on NeuroMechFly (flygym 2)"
        same = dig(runs[0].metrics, "per_start", "connectome", "same_success")
        note = f"the same starts and readout; the same success on {same} of {n} starts"
        comparisons.append(
            Comparison("connectome on the kinematic body", f"{100 * kinematic:.0f}%", note)
        )
    for row in (dig(runs[0].metrics, "conditions") or [])[1:]:
        name = str(dig(row, "condition"))
        if not name.startswith("null-"):
            figure = f"{100 * (number(dig(row, 'success_rate')) or 0):.0f}%"
            comparisons.append(Comparison(choice_condition(name), figure, "the same starts"))
    parts = []
    for run in runs:
        fam = _family(run)
        if fam is None:
            continue
        family, nulls = fam
        outcome, words = _beats(nulls)
        k = int(number(dig(nulls, "same_gain", "n_nulls")) or 0)
        label = f"{k} {null_words(family)} nulls"
        shortcut = _shortcut(run, str(dig(run.config, "config", "network", "attractive_class")))
        note = f"{words}" + (f"; {shortcut}" if shortcut else "")
        comparisons.append(Comparison(label, words.split(";")[0], note))
        ps = " and ".join(f"{number(dig(nulls, key, 'p')) or 1.0:.2g}" for key, _ in GAINS)
        parts.append((label, outcome, ps))
    if not parts:
        verdict = "No nulls in this run: the question needs a rewiring to compare with."
        return Headline(QUESTION, answer, uncertainty, verdict, "info", comparisons)
    outcomes = {o for _, o, _ in parts}
    outcome = "no" if "no" in outcomes else "yes" if outcomes == {"yes"} else "unresolved"
    said = {"yes": "above", "no": "not above", "unresolved": "too few nulls to decide against"}
    verdict = {"yes": "Yes", "no": "No", "unresolved": "Not resolved"}[outcome] + ": "
    verdict += "; ".join(f"{said[o]} {label} (p = {ps})" for label, o, ps in parts)
    verdict += f" (p at the connectome's gain and at each network's best gain; alpha {ALPHA})"
    return Headline(
        QUESTION, answer, uncertainty, verdict + ".", outcome, comparisons, plots=("trajectories",)
    )


def choice(run: Run) -> Headline | None:
    """One run against its own null family; a run with too few nulls to decide is answered by
    the confirmatory study (`CONFIRMATORY`)."""
    h = _headline([run])
    if h is not None and h.outcome == "unresolved":
        return CONFIRMATORY.settle(h, "it has too few nulls to reach p <= 0.05.")
    return h


def _protocol(run: Run) -> str:
    """What runs of one protocol share: the task and network settings (not the nulls)."""
    cfg = dig(run.config, "config")
    keep = {k: v for k, v in (cfg or {}).items() if k in ("task", "network", "gain", "body")}
    return json.dumps(keep, sort_keys=True)


def choices(runs: Sequence[Run]) -> list[tuple[Headline, list[Run]]]:
    """Runs of one protocol with different null families, answered together."""
    groups: dict[str, list[Run]] = {}
    for r in runs:
        groups.setdefault(_protocol(r), []).append(r)
    out = []
    for members in groups.values():
        families = {str(dig(r.metrics, "nulls", "family")) for r in members}
        if len(members) > 1 and len(families) == len(members):
            h = _headline(members)
            if h is not None:
                out.append((h, members))
    return out


CHOICE = HeadlineEntry("wirelab fly choice", choice, group=choices, committed=COMMITTED)
