"""The turn study against its nulls: the reference model's turn ranked among each family's.

The reference is the study's first model that is not a null (``row`` by default); its paired
left-minus-right turn ``d_0`` (mean over seeds, degrees: the ``left-right`` rows of
`wirelab.fly.turns.study.summarize`) is compared with the nulls of each family (`NULLS` names,
the models `wirelab.fly.controller.parse_null` reads), ``d_1 .. d_N``. The statistic is the size
of the turn whichever way it goes, ``s_i = |d_i|``::

    p = (1 + #{i : s_i >= s_0}) / (N + 1)     rank p (`wirelab.fly.choice.stats.rank_p`, the one
                                              implementation); the smallest is 1 / (N + 1)
    difference = s_0 - mean(s)                degrees
    z = (s_0 - mean(s)) / sd(s)               sd with ddof 1; None when N < 2 or sd = 0

``z`` is the standardised effect size: the difference in units of the nulls' sd (Glass's delta,
which for one observed value against N nulls is its z-score)::

    compare_nulls(metrics["table"])["families"]["degree"]["p"]
"""

from __future__ import annotations

import math
from typing import Any

from wirelab.errors import UsageError
from wirelab.fly.controller import NULL_PREFIX, parse_null

STATISTIC = "|L - R| (degrees)"


def null_family(model: object) -> str | None:
    """The family of a null model's name (``null-3`` -> ``degree``), None for a model that is
    not a null; a name that starts like a null's but does not parse is family ``unknown``."""
    name = str(model)
    if not name.startswith(NULL_PREFIX):
        return None
    try:
        parsed = parse_null(name)
    except UsageError:
        return "unknown"
    return parsed[0] if parsed else None


def _mean(row: dict[str, Any]) -> float | None:
    turn = row.get("turn")
    value = turn.get("mean") if isinstance(turn, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def against(observed: float, nulls: list[float]) -> dict[str, Any]:
    """Rank p, mean, sd, difference and z of ``|observed|`` among ``|nulls|`` (module
    docstring); the signed values are kept as ``observed_lr`` and ``nulls_lr``."""
    from wirelab.fly.choice.stats import rank_p

    s0, s = abs(observed), [abs(v) for v in nulls]
    n = len(s)
    mean = sum(s) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in s) / (n - 1)) if n > 1 else 0.0
    return {
        "observed_lr": observed,
        "nulls_lr": list(nulls),
        "observed": s0,
        "nulls": s,
        "n_nulls": n,
        "p": rank_p(s0, s),
        "null_mean": mean,
        "null_sd": sd,
        "difference": s0 - mean,
        "z": (s0 - mean) / sd if sd > 0 else None,
    }


def compare_nulls(table: list[dict[str, Any]]) -> dict[str, Any]:
    """The reference model's L - R against each family's nulls: ``{"model", "statistic",
    "families": {family: against(...) plus "family" and "models"}}``; ``{}`` when the table has
    no reference model or no null (rows that are not dicts or lack a finite mean are skipped)."""
    lr: dict[str, float] = {}
    for r in table:
        if isinstance(r, dict) and r.get("condition") == "left-right":
            d = _mean(r)
            if d is not None:
                lr.setdefault(str(r.get("model")), d)
    reference = next((m for m in lr if null_family(m) is None), None)
    by_family: dict[str, list[str]] = {}
    for m in lr:
        family = null_family(m)
        if family is not None:
            by_family.setdefault(family, []).append(m)
    if reference is None or not by_family:
        return {}
    families = {
        f: {"family": f, "models": ms, **against(lr[reference], [lr[m] for m in ms])}
        for f, ms in by_family.items()
    }
    return {"model": reference, "statistic": STATISTIC, "families": families}
