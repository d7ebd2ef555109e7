"""The attention-pooling headline (``wirelab attention pooling``): does attention pooling ignore
distractors that mean pooling cannot?

The run's ``metrics.json`` holds ``summary[method][distractors]`` with the accuracy over seeds.
At the largest distractor count the best attention pooling's accuracy a is compared with mean
pooling's b: the difference d = a - b with the binomial 95% CI
``d -+ 1.96 sqrt(a(1-a)/N + b(1-b)/N)``, N = seeds x test bags; yes when the CI lies above 0, no
when below. The verdict adds the attention weight on the marked digit against mean pooling's
uniform 1 / (n + 1).
"""

from __future__ import annotations

import math
from typing import Any

from wirelab.report.headlines.base import Comparison, Headline, HeadlineEntry
from wirelab.report.headlines.values import dig, number, pct, plural
from wirelab.report.runs import Run
from wirelab.report.words import pooling_method

Z95 = 1.96
QUESTION = "Does attention pooling ignore distractors that mean pooling cannot?"


def _accuracy(per: Any) -> float | None:
    return number(dig(per, "accuracy_mean"))


def _count(c: str) -> int:
    """A distractor count's sort key (non-numeric keys first)."""
    return int(c) if c.isdigit() else -1


def _comparisons(
    summary: dict[str, Any], methods: list[str], best: str, n: str
) -> list[Comparison]:
    """Every method's accuracy at every distractor count (mean ± sd over seeds), the best
    attention pooling at the largest count marked as this run's figure."""
    out = []
    for method in methods:
        for c in sorted(summary[method], key=_count):
            acc, sd = _accuracy(summary[method][c]), number(dig(summary, method, c, "accuracy_std"))
            if acc is not None:
                figure = f"{pct(acc, 1)}" + (f" ± {100 * sd:.1f}" if sd else "")
                out.append(
                    Comparison(
                        f"{pooling_method(method)}, {c} distractors",
                        figure,
                        "mean ± sd over seeds, this run",
                        method == best and c == n,
                    )
                )
    return out


def _weight(summary: dict[str, Any], best: str, n: str) -> str:
    """The best method's weight on the marked digit against mean pooling's, or ""."""
    share = number(dig(summary, best, n, "marked_weight_share_mean"))
    uniform = 1 / (int(n) + 1) if n.isdigit() else None
    if share is None or uniform is None:
        return ""
    return (
        f"; it puts {pct(share, 0)} of its weight on the marked digit (mean pooling: "
        f"{pct(uniform, 1)})"
    )


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
    n = max(counts, key=_count)
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
        uncertainty = "the run does not record its number of test bags: no interval"
    answer = f"{pooling_method(best)} {pct(a, 1)} vs mean pooling {pct(b, 1)} with {n} distractors"
    if bags and diff - half > 0:
        outcome = "yes"
        verdict = (
            f"Yes: attention is {100 * diff:.1f} points more accurate{_weight(summary, best, n)}."
        )
    elif bags and diff + half < 0:
        outcome, verdict = "no", f"No: mean pooling is {100 * -diff:.1f} points more accurate."
    else:
        outcome = "unresolved"
        verdict = f"Not shown: the difference ({100 * diff:+.1f} points) is within its interval."
    comparisons = _comparisons(summary, ["mean", *attn], best, n)
    plots = ("accuracy_vs_distractors", "weight_maps")
    return Headline(QUESTION, answer, uncertainty, verdict, outcome, comparisons, plots=plots)


POOLING = HeadlineEntry("wirelab attention pooling", pooling)
