"""The odour-taxis headline (``wirelab fly taxis``): does the connectome reservoir steer the fly
to the odour source?

The run's ``metrics.json`` holds one row per condition (the connectome, the teacher, constant and
random policies, degree-preserving nulls) with its trials and successes. The connectome's success
rate p = k / n with its Wilson 95% interval is compared with the constant and random policies':
yes when its interval lies above theirs, no when it lies below the best of them.
"""

from __future__ import annotations

from typing import Any

from wirelab.report.headlines.base import Comparison, Headline, HeadlineEntry
from wirelab.report.headlines.values import dig, interval, number, plural, wilson
from wirelab.report.runs import Run
from wirelab.report.words import taxis_condition

QUESTION = "Does the connectome reservoir steer the fly to the odour source?"
BASELINES = ("constant", "random")  # the policies that know nothing of the odour


def rate(row: dict[str, Any]) -> tuple[float, float, float, int]:
    """(success rate, CI low, CI high, trials) of one condition: its recorded ``success_ci``, else
    the Wilson interval of its successes (or rate x trials)."""
    n = int(number(dig(row, "trials")) or 0)
    k = number(dig(row, "successes"))
    k = k if k is not None else (number(dig(row, "success_rate")) or 0.0) * n
    lo, hi = interval(row, "success_ci") or wilson(k, n)
    return k / n if n else 0.0, lo, hi, n


def _verdict(lo: float, hi: float, by: dict[str, dict[str, Any]]) -> tuple[str, str]:
    """(outcome, verdict) of the connectome's interval [lo, hi] against the baselines' and the
    degree-preserving nulls' intervals."""
    dumb = [rate(by[b]) for b in BASELINES if b in by]
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
    return outcome, verdict


def taxis(run: Run) -> Headline | None:
    """The connectome's success rate (Wilson CI) against the run's own baselines and nulls."""
    rows = dig(run.metrics, "conditions")
    if not isinstance(rows, list):
        return None
    by = {str(dig(r, "condition")): r for r in rows if isinstance(r, dict)}
    main = by.get("connectome")
    if main is None or number(dig(main, "trials")) is None:
        return None
    p, lo, hi, n = rate(main)
    answer = f"reaches the odour source in {100 * p:.0f}% of {plural(n, 'trial')}"
    uncertainty = f"Wilson 95% CI [{100 * lo:.0f}%, {100 * hi:.0f}%]"
    figure = f"{100 * p:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}]"
    comparisons = [Comparison("connectome reservoir", figure, f"{n} trials, this run", True)]
    for name, r in by.items():
        if name != "connectome":
            q, qlo, qhi, qn = rate(r)
            figure = f"{100 * q:.0f}% [{100 * qlo:.0f}, {100 * qhi:.0f}]"
            comparisons.append(Comparison(taxis_condition(name), figure, f"{qn} trials, this run"))
    outcome, verdict = _verdict(lo, hi, by)
    plots = ("success_rate", "trajectories")
    return Headline(QUESTION, answer, uncertainty, verdict, outcome, comparisons, plots=plots)


TAXIS = HeadlineEntry("wirelab fly taxis", taxis)
