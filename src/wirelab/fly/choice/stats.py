"""The study's arithmetic: rank p against nulls, z, effect sizes, per-start paired comparisons.

Against ``N`` null networks with scores ``s_1 .. s_N`` (one-sided: is the connectome better?)::

    p = (1 + #{i : s_i >= s_0}) / (N + 1)          # rank p; a tie counts against the connectome
    z = (s_0 - mean(s)) / sd(s)                      # sd with ddof 1; None when sd = 0 or N < 2
    difference = s_0 - mean(s)                       # in the score's units (success rate)
    h = 2 asin(sqrt(s_0)) - 2 asin(sqrt(mean(s)))    # Cohen's h for proportions

Paired per start (the same starts for every condition): ``a_only`` starts where condition A
succeeded and B did not, ``b_only`` the reverse; the exact two-sided McNemar p is the binomial
test of ``a_only`` among ``a_only + b_only`` at 1/2.

The same start on two bodies (`per_start`, kinematic vs flygym): each trial's outcome is the first
event, ``goal``, ``contact``, ``left`` (the arena) or ``time`` (`outcomes`); ``same_outcome``
counts the starts with the same outcome on both, ``same_success`` those whose success or failure
is the same (the taxis study's "same outcome per start"), ``success`` is `paired` of the two.

    rank_p(0.5, [0.4, 0.5, 0.6]) == 0.75
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import binomtest


def rank_p(observed: float, nulls: Sequence[float]) -> float:
    """``(1 + #{null >= observed}) / (N + 1)`` (module docstring)."""
    return (1 + sum(1 for s in nulls if s >= observed)) / (len(nulls) + 1)


def cohens_h(p1: float, p2: float) -> float:
    """``2 asin(sqrt(p1)) - 2 asin(sqrt(p2))`` for proportions in [0, 1]."""
    return 2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2))


def against_nulls(observed: float, nulls: Sequence[float]) -> dict[str, Any]:
    """Rank p, z, difference and Cohen's h of ``observed`` against ``nulls`` (a rate each)."""
    s = np.asarray(nulls, dtype=np.float64)
    sd = float(s.std(ddof=1)) if s.size > 1 else 0.0
    mean = float(s.mean()) if s.size else float("nan")
    return {
        "observed": float(observed),
        "nulls": s.tolist(),
        "n_nulls": int(s.size),
        "p": rank_p(observed, s.tolist()),
        "null_mean": mean,
        "null_sd": sd,
        "z": (observed - mean) / sd if sd > 0 else None,
        "difference": observed - mean if s.size else None,
        "cohens_h": cohens_h(observed, mean) if s.size else None,
    }


OUTCOMES = ("goal", "contact", "left", "time")


def outcomes(success: Sequence[bool], contact: Sequence[bool], left: Sequence[bool]) -> list[str]:
    """Per trial the first event (`OUTCOMES`): ``outcomes([True, False], [False, False],
    [False, True]) == ["goal", "left"]``; at most one flag may be set per trial."""
    rows = list(zip(success, contact, left, strict=True))
    if any(sum(map(bool, r)) > 1 for r in rows):
        raise ValueError("a trial has one first event: goal, contact or left")
    return [OUTCOMES[[*map(bool, r), True].index(True)] for r in rows]


def per_start(
    kin: Mapping[str, Sequence[bool]], fly: Mapping[str, Sequence[bool]]
) -> dict[str, Any]:
    """One condition's starts on the kinematic body ``kin`` and on flygym ``fly`` (``success``,
    ``contact``, ``left_arena`` lists each, the same starts in the same order) compared per
    start (module docstring)."""
    oa = outcomes(kin["success"], kin["contact"], kin["left_arena"])
    ob = outcomes(fly["success"], fly["contact"], fly["left_arena"])
    if len(oa) != len(ob):
        raise ValueError("per-start comparisons need the same starts")
    same = sum(x == y for x, y in zip(oa, ob, strict=True))
    succ = paired(kin["success"], fly["success"])
    return {
        "kinematic": oa,
        "flygym": ob,
        "same_outcome": same,
        "same_success": succ["both"] + succ["neither"],
        "starts": len(oa),
        "same_outcome_rate": same / len(oa) if oa else None,
        "success": succ,  # a_only: the kinematic body alone succeeded
    }


def paired(a: Sequence[bool], b: Sequence[bool]) -> dict[str, Any]:
    """Per-start paired comparison of two conditions' successes (module docstring)."""
    if len(a) != len(b):
        raise ValueError("paired comparisons need the same starts")
    x, y = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    a_only, b_only = int(np.sum(x & ~y)), int(np.sum(~x & y))
    p = binomtest(a_only, a_only + b_only, 0.5).pvalue if a_only + b_only else 1.0
    return {
        "a_only": a_only,
        "b_only": b_only,
        "both": int(np.sum(x & y)),
        "neither": int(np.sum(~x & ~y)),
        "difference": float(x.mean() - y.mean()),
        "mcnemar_p": float(p),
    }
