"""Tour step: does one-sided stimulation turn the fly, and does the wiring decide which way?

Two turn studies (`wirelab.fly.turns.study.run`: left, right and a no-stimulus control on the same
seeds, each side's turn minus the control and the paired left-minus-right difference L - R with
its 95% CI over seeds), each sized to answer its question in the tour's time:

- ``turns-nulls``, on the kinematic body (`STATS_BODY`, a few milliseconds per simulated second):
  the row-normalised connectome against `NULLS` degree-preserving rewirings, so that the rank
  p-value ``(1 + #{nulls with |L - R| >= the connectome's}) / (NULLS + 1)`` can reach 0.05. The
  body has no drift, so two seeds (the least a CI takes) suffice.
- ``turns``, on NeuroMechFly (the turn study's default body, flygym 2 in the fly environment,
  `wirelab.fly.envs`): the connectome alone on `FLYGYM_SEEDS` seeds, which confirms the turn on
  the physical body against its drift, and films seed 0 of left, control and right side by side
  (``video.mp4``, the report's evidence). Skipped, with the reason, when the fly environment is
  not set up.

The quick tour runs 1 s of stimulus after a short settle on both bodies; the full tour the
kinematic null study in docs/results/fly.md (2 s settle, 2 s stimulus, 20 nulls) and 2 s of
stimulus on flygym.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wirelab.fly.envs import SETUP_HINT, fly_python, needs_fly_env
from wirelab.fly.turns.study import TurnsConfig
from wirelab.fly.turns.study import run as turns

STATS_BODY = "kinematic"
NULLS = {True: 19, False: 20}  # quick, full; 19 nulls: the smallest p is 1 / 20 = 0.05
TIMING = {True: (0.2, 1.0), False: (2.0, 2.0)}  # kinematic (settle, stimulated) seconds
FLYGYM_SEEDS = {True: 3, False: 5}  # 3: the paired t interval's factor drops from 12.7 to 4.3
FLYGYM_TIMING = {True: (0.5, 1.0), False: (1.0, 2.0)}


def flygym_missing(body: str) -> str | None:
    """Why the NeuroMechFly ``body`` cannot run from here (no fly environment), or None."""
    if needs_fly_env(body) and fly_python() is None:
        return f"NeuroMechFly runs in the fly environment, not set up; {SETUP_HINT}"
    return None


def _row_summary(metrics: dict[str, Any], model: str) -> dict[str, Any]:
    """L - R of ``model`` with its CI, and each side minus the control (degrees, 1 decimal)."""
    out: dict[str, Any] = {}
    for row in metrics["table"]:
        if row["model"] != model:
            continue
        d = row.get("minus_control", row["turn"])
        key = "L-R" if row["condition"] == "left-right" else f"{row['condition']}-control"
        out[key] = f"{d['mean']:+.1f} [{d['ci'][0]:+.1f}, {d['ci'][1]:+.1f}]"
    return out


def run(out: Path, quick: bool = False) -> dict[str, Any]:
    settle, stimulated = TIMING[quick]
    stats = TurnsConfig(
        seeds=2,
        models=("row", "null"),
        nulls=NULLS[quick],
        settle=settle,
        duration=stimulated,
        body=STATS_BODY,
        video=False,
    )
    m = turns(stats, out / "turns-nulls", overwrite=True, progress=True)
    summary: dict[str, Any] = {f"{STATS_BODY} {k}": v for k, v in _row_summary(m, "row").items()}
    body = TurnsConfig().body  # NeuroMechFly: the turn study's default body
    why = flygym_missing(body)
    if why:
        summary[body] = f"skipped: {why}"
        return summary
    settle, stimulated = FLYGYM_TIMING[quick]
    confirm = TurnsConfig(seeds=FLYGYM_SEEDS[quick], settle=settle, duration=stimulated, body=body)
    m = turns(confirm, out / "turns", overwrite=True, progress=True)
    summary.update({f"{body} {k}": v for k, v in _row_summary(m, "row").items()})
    return summary
