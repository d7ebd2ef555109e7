"""Tour step: left/right stimulation, then the turn study (left, right, control over 3 seeds).

Uses NeuroMechFly (flygym) with the side-by-side video when flygym imports, else the kinematic
body, and says which in its summary. Each part is one experiment ``run`` (rerun: ``overwrite``):
`wirelab.fly.stimulation.stimulate.run` per side (evoked mapping) and
`wirelab.fly.turns.study.run` (its table and ``video.mp4`` / ``video_strip.png`` are what the
report shows).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wirelab.data.connectomes import load_connectome
from wirelab.fly.bodies import body_class
from wirelab.fly.bodies.flygym1 import flygym_available
from wirelab.fly.controller import ControllerConfig
from wirelab.fly.stimulation.stimulate import StimulateConfig
from wirelab.fly.stimulation.stimulate import run as stimulate
from wirelab.fly.turns.study import TurnsConfig
from wirelab.fly.turns.study import run as turns

TURNS_TIMING = {True: (0.2, 0.3), False: (2.0, 2.0)}  # quick: (settle, stimulated) seconds
TURNS_SEEDS = {True: 2, False: 3}  # 3: the paired t interval's factor drops from 12.7 to 4.3


def run(out: Path, quick: bool = False) -> dict[str, Any]:
    reason = flygym_available()
    body = "kinematic" if reason else "flygym"
    duration = body_class(body).tour_duration[0 if quick else 1]
    con = load_connectome("larva")
    summary: dict[str, Any] = {"body": f"{body} ({reason})" if reason else body}
    for side in ("left", "right"):
        config = StimulateConfig(
            side=side,
            controller=ControllerConfig(modality="olfactory", normalize="row"),
            body=body,
            duration=duration,
            compare=not quick,
        )
        m = stimulate(config, out / f"stimulate-{side}", overwrite=True, con=con, progress=False)
        summary[f"LI_{side}"] = round(m["lateralization_index"], 3)
        # the one-run heading change is not in the summary: one short run per side cannot tell a
        # turn from flygym's drift; the turn study below answers that
    summary["simulated_s"] = duration
    settle, stimulated = TURNS_TIMING[quick]
    tc = TurnsConfig(
        seeds=TURNS_SEEDS[quick],
        settle=settle,
        duration=stimulated,
        body=body,
        video=not reason,
        workers=1 if reason else 2,
    )
    t = turns(tc, out / "turns", overwrite=True, progress=False)
    for row in t["table"]:
        if row["model"] == "row":
            d = row.get("minus_control", row["turn"])
            summary[f"turns_{row['condition']}_deg"] = round(d["mean"], 1)
            summary[f"turns_{row['condition']}_ci"] = [round(x, 1) for x in d["ci"]]
    return summary
