"""Null-model statistics: empirical p-value and z-score of the connectome against N nulls.

For a score ``s`` of the connectome and scores ``s_1..s_N`` of N null networks (paired: every
network sees the same input sequences and readout split), with ``better`` the direction in which
a score improves (higher memory capacity / accuracy, lower NRMSE)::

    p = (1 + #{i : s_i is at least as good as s}) / (N + 1)      (one-sided, Phipson & Smyth 2010)
    z = sign * (s - mean(s_i)) / std(s_i, ddof=1),   sign = +1 if higher is better else -1

so ``z > 0`` means the connectome beats its nulls. With N nulls the smallest reachable p is
``1 / (N + 1)``. Two edge cases are reported, not hidden (`z_with_note`): with fewer than two
nulls ``std`` is undefined, so ``z`` is absent (None, written as null) and ``z_note`` says why;
when every null scores the same (zero spread) ``z`` is ``+inf`` if the connectome is better,
``-inf`` if it is worse and 0 if it ties, and ``z_note`` says which (JSON has no infinity:
`wirelab.results` writes null and lists the key under ``non_finite``, so the note keeps the
direction). Picking the connectome's best alpha and testing there favours the connectome
(the nulls were not maximised), so `summarize` also reports p and z with every network at its
own best alpha (``p_value_own_best_alpha``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from wirelab.errors import UsageError


def empirical_p(score: float, nulls: Sequence[float] | np.ndarray, higher_is_better: bool) -> float:
    arr = np.asarray(nulls, dtype=np.float64)
    if arr.size == 0:
        raise UsageError("no null scores")
    at_least = arr >= score if higher_is_better else arr <= score
    return float((1 + np.sum(at_least)) / (arr.size + 1))


def z_with_note(
    score: float, nulls: Sequence[float] | np.ndarray, higher_is_better: bool
) -> tuple[float | None, str | None]:
    """``(z, note)``: z as in the module docstring; ``note`` explains an absent or infinite z."""
    arr = np.asarray(nulls, dtype=np.float64)
    if arr.size < 2:
        return None, f"z needs at least 2 nulls (std of {arr.size} is undefined)"
    sign = 1.0 if higher_is_better else -1.0
    diff = sign * (score - arr.mean())
    sd = arr.std(ddof=1)
    if sd == 0:
        if diff == 0:
            return 0.0, "every null scores the same as the connectome (zero spread)"
        word = "better" if diff > 0 else "worse"
        return float(np.copysign(np.inf, diff)), (
            f"every null scores the same (zero spread); the connectome is {word}"
        )
    return float(diff / sd), None


def z_score(
    score: float, nulls: Sequence[float] | np.ndarray, higher_is_better: bool
) -> float | None:
    """z of the connectome against its nulls (`z_with_note` without the note)."""
    return z_with_note(score, nulls, higher_is_better)[0]


def summarize(
    rows: Iterable[Mapping[str, Any]], higher_is_better: Mapping[str, bool]
) -> dict[str, dict[str, Any]]:
    """Per task: best alpha for the connectome and its comparison with the nulls at that alpha.

    ``rows`` are tidy records with ``model`` (``"connectome"`` or a null name), ``null`` (index,
    -1 for the connectome), ``alpha``, ``task``, ``metric`` and ``value``. Also reports p and z at
    every alpha (``per_alpha``).
    """
    rows = list(rows)
    out: dict[str, dict[str, Any]] = {}
    for task in sorted({r["task"] for r in rows}):
        sub = [r for r in rows if r["task"] == task and np.isfinite(r["value"])]
        hib = higher_is_better[task]
        metric = sub[0]["metric"] if sub else ""
        con = {r["alpha"]: r["value"] for r in sub if r["model"] == "connectome"}
        if not con:
            continue
        per_alpha = []
        for alpha in sorted(con):
            nulls = [r["value"] for r in sub if r["model"] != "connectome" and r["alpha"] == alpha]
            entry: dict[str, Any] = {"alpha": alpha, "connectome": con[alpha]}
            if nulls:
                z, note = z_with_note(con[alpha], nulls, hib)
                entry.update(
                    null_mean=float(np.mean(nulls)),
                    null_std=float(np.std(nulls, ddof=1)) if len(nulls) > 1 else None,
                    p_value=empirical_p(con[alpha], nulls, hib),
                    z=z,
                    z_note=note,
                    n_nulls=len(nulls),
                )
            per_alpha.append(entry)
        pick = max if hib else min
        best = pick(per_alpha, key=lambda e: e["connectome"])
        # selection-fair comparison: every network at its own best alpha
        own_best: dict[tuple[str, int], float] = {}
        for r in sub:
            key = (r["model"], int(r["null"]))
            own_best[key] = pick(own_best.get(key, r["value"]), r["value"])
        con_best = own_best.pop(("connectome", -1))
        null_best = list(own_best.values())
        z_own, note_own = z_with_note(con_best, null_best, hib) if null_best else (None, None)
        out[task] = {
            "metric": metric,
            "higher_is_better": hib,
            "best_alpha": best["alpha"],
            "connectome": best["connectome"],
            "null_mean": best.get("null_mean"),
            "null_std": best.get("null_std"),
            "p_value": best.get("p_value"),
            "z": best.get("z"),
            "z_note": best.get("z_note"),
            "n_nulls": best.get("n_nulls", 0),
            "p_value_own_best_alpha": empirical_p(con_best, null_best, hib) if null_best else None,
            "z_own_best_alpha": z_own,
            "z_own_best_alpha_note": note_own,
            "per_alpha": per_alpha,
        }
    return out
