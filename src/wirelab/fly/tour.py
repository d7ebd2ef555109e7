"""Tour step: stimulate the olfactory sensory neurons on the left, then on the right.

Uses NeuroMechFly (flygym) with a short video when flygym imports, else the kinematic body, and
says which in its summary. Each side is one `wirelab.fly.stimulate.run` (rerun: ``overwrite``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wirelab.data.connectomes import load_connectome
from wirelab.fly.bodies import body_class
from wirelab.fly.controller import ControllerConfig
from wirelab.fly.flygym_body import flygym_available
from wirelab.fly.mapping import FixedMapping
from wirelab.fly.stimulate import StimulateConfig
from wirelab.fly.stimulate import run as stimulate


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
            mapping=FixedMapping("ipsilateral", gain=1.0, offset=1.0),
            body=body,
            duration=duration,
            compare=not quick,
        )
        m = stimulate(config, out / f"stimulate-{side}", overwrite=True, con=con, progress=False)
        summary[f"LI_{side}"] = round(m["lateralization_index"], 3)
        summary[f"turn_{side}_deg"] = round(m["heading_change_deg"], 1)
    summary["simulated_s"] = duration
    return summary
