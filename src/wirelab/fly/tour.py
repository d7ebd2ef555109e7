"""Tour step: stimulate the olfactory sensory neurons on the left, then on the right.

Uses NeuroMechFly (flygym) with a short video when flygym imports, else the kinematic body, and
says which in its summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wirelab.fly.controller import ControllerConfig
from wirelab.fly.flygym_body import flygym_available
from wirelab.fly.mapping import FixedMapping
from wirelab.fly.stimulate import run_experiment


def run(out: Path, quick: bool = False) -> dict[str, Any]:
    from wirelab.data import load_larva

    reason = flygym_available()
    body = "kinematic" if reason else "flygym"
    duration = (0.06 if quick else 0.3) if body == "flygym" else (0.5 if quick else 2.0)
    con = load_larva()
    summary: dict[str, Any] = {"body": body if body == "flygym" else f"kinematic ({reason})"}
    for side in ("left", "right"):
        m = run_experiment(
            out / f"stimulate-{side}",
            side,
            ControllerConfig(modality="olfactory", normalize="row"),
            FixedMapping("ipsilateral", gain=1.0, offset=1.0),
            body=body,
            duration=duration,
            compare=not quick,
            con=con,
        )
        summary[f"LI_{side}"] = round(m["lateralization_index"], 3)
        summary[f"turn_{side}_deg"] = round(m["heading_change_deg"], 1)
    summary["simulated_s"] = duration
    return summary
