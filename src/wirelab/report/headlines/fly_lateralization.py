"""The lateralization headline (``wirelab fly lateralization``): does one-sided sensory input drive
the same side's descending neurons (DN-VNC) more?

The run's ``metrics.json`` holds one row per setting (modality, gain, normalisation) with the
contrast C = (LI_left - LI_right) / 2 of the DN lateralization indices under left and right
stimulation and its bootstrap 95% CI. The headline reads all modalities at the gain closest to 1
with row normalisation (or the first setting the run has): ipsilateral when the CI lies above 0,
contralateral when below, else not resolved; with the tally over every setting.
"""

from __future__ import annotations

from typing import Any

from wirelab.report.headlines.base import Comparison, Headline, HeadlineEntry
from wirelab.report.headlines.values import dig, number, plural
from wirelab.report.runs import Run
from wirelab.report.words import normalisation, plain

QUESTION = "Does one-sided sensory input drive the same side's descending neurons (DN-VNC) more?"
NEEDED = ("contrast", "ci_low", "ci_high")


def _rank(r: dict[str, Any]) -> tuple[bool, bool, float]:
    """Sort key: all modalities first, then row normalisation, then the gain nearest 1."""
    gain = number(r.get("gain"))
    gap = abs((gain if gain is not None else 1.0) - 1.0)
    return (r.get("modality") != "all", r.get("normalize") != "row", gap)


def _uncertainty(run: Run, r: dict[str, Any]) -> str:
    """The bootstrap CI of the chosen row, with the p-value against the nulls where run."""
    lo, hi = float(r["ci_low"]), float(r["ci_high"])
    boot = dig(run.config, "config", "boot")
    uncertainty = f"95% bootstrap CI [{lo:+.3f}, {hi:+.3f}]" + (
        f" over {boot} replicates" if isinstance(boot, int) else ""
    )
    p_null = number(r.get("p_null"))
    n_nulls = dig(run.config, "config", "nulls")
    if p_null is not None and isinstance(n_nulls, int):
        uncertainty += f"; against {plural(n_nulls, 'degree-preserving null')}: p = {p_null:.2g}"
    return uncertainty


def _verdict(rows: list[dict[str, Any]], lo: float, hi: float) -> tuple[str, str]:
    """(outcome, verdict) of the chosen CI [lo, hi], with the tally over all ``rows``."""
    resolved = [x for x in rows if x["ci_low"] > 0 or x["ci_high"] < 0]
    ipsi = sum(x["ci_low"] > 0 for x in rows)
    tally = f" ({ipsi} of {len(rows)} settings ipsilateral, {len(resolved) - ipsi} contralateral)"
    if lo > 0:
        return "yes", "Ipsilateral: the stimulated side's DN-VNC respond more" + tally
    if hi < 0:
        return "yes", "Contralateral: the opposite side's DN-VNC respond more" + tally
    return "unresolved", "Not resolved: the interval includes 0" + tally


def lateralization(run: Run) -> Headline | None:
    """The contrast C = (LI_left - LI_right) / 2 with its bootstrap CI, for all modalities at
    the gain closest to 1 with row normalisation (or the first setting the run has)."""
    rows = [r for r in dig(run.metrics, "summary") or [] if isinstance(r, dict)]
    rows = [r for r in rows if None not in (number(r.get(k)) for k in NEEDED)]
    if not rows:
        return None
    r = min(rows, key=_rank)
    c, lo, hi = float(r["contrast"]), float(r["ci_low"]), float(r["ci_high"])
    neurons = f"{plain(r.get('modality'))} sensory neurons"
    what = f"{neurons}, gain {r.get('gain')}, {normalisation(r.get('normalize'))}"
    outcome, verdict = _verdict(rows, lo, hi)
    comparisons = [Comparison("connectome", f"C = {c:+.3f}", what + ", this run", True)]
    mean, sd = number(r.get("null_mean")), number(r.get("null_std"))
    if mean is not None:
        figure = f"{mean:+.3f} ± {sd or 0:.3f}"
        comparisons.append(Comparison("degree-preserving nulls", figure, "mean ± sd, this run"))
    mirror = number(r.get("mirror_contrast"))
    if mirror is not None:
        comparisons.append(Comparison("mirrored connectome", f"{mirror:+.3f}", "this run"))
    return Headline(
        QUESTION,
        f"contrast C = {c:+.3f} ({what})",
        _uncertainty(run, r),
        verdict + ".",
        outcome,
        comparisons,
        plots=(f"lateralization_{r.get('normalize')}",),
    )


LATERAL = HeadlineEntry("wirelab fly lateralization", lateralization)
