"""What the turn study cost, over all its parts: a study continued with ``--resume`` reports the
seconds its runs really took, not only the new part's.

A *part* is one call of `wirelab.fly.turns.study.run` on a result directory: the first start, then
each ``--resume``. The part log ``out/runs/parts.json`` (beside the saved runs, the study's
checkpoint) lists every part as ``{"wall_s", "runs_run", "runs_loaded"}``: the wall-clock seconds
of its runs (from its start to its last saved run while it goes, so a killed part keeps the time
that produced its saved runs; at its end the seconds `run_all` measured), the runs it simulated
and the saved runs it loaded. It is rewritten at each part's start (a fresh start begins a new
log) and after each saved run. A resumed study with no log (saved before the log existed) takes
its earlier time from the old ``metrics.json`` ``timing.wall_s`` when that file is there, else
records the earlier part with ``wall_s`` None (not measured here, never 0)::

    wall_s = sum_p wall_s(p)        over the parts p = 1 .. P (None when one part's is unknown)

    log = PartLog.start(out / "runs", earlier_parts(out, out / "runs", resume=True))
    log.tick()                      # after each saved run
    log.close(wall, runs_loaded)    # the parts as metrics.json's timing reports them
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.results import read_json, write_json

PARTS = "parts.json"  # the part log, in the study's runs folder


def earlier_parts(out: Path, store: Path, resume: bool) -> list[dict[str, Any]]:
    """The parts before this one: none for a fresh start; else the part log of ``store``, or
    (a study saved without one) the old ``out/metrics.json``'s timing as one part."""
    if not resume:
        return []
    try:
        if (store / PARTS).is_file():
            return list(read_json(store / PARTS)["parts"])
        if (out / "metrics.json").is_file():
            t = read_json(out / "metrics.json")["timing"]
            if t.get("parts_log"):
                return list(t["parts_log"])
            return [{"wall_s": t.get("wall_s"), "runs_run": t.get("runs_run", t.get("runs", 0))}]
    except (OSError, ValueError, KeyError, TypeError):
        pass  # unreadable: the earlier parts' time is unknown (the loaded runs say so below)
    return []


@dataclass
class PartLog:
    """This part's entry of the part log (module docstring), written as the part goes."""

    path: Path
    earlier: list[dict[str, Any]]
    t0: float = field(default_factory=time.perf_counter)
    runs_run: int = 0
    runs_loaded: int = 0

    @classmethod
    def start(cls, store: Path, earlier: list[dict[str, Any]]) -> PartLog:
        store.mkdir(parents=True, exist_ok=True)
        log = cls(store / PARTS, earlier)
        log.write(0.0)
        return log

    def parts(self, wall_s: float) -> list[dict[str, Any]]:
        """The earlier parts, one for loaded runs no part recorded, and this one."""
        earlier = list(self.earlier)
        unrecorded = self.runs_loaded - sum(int(p.get("runs_run") or 0) for p in earlier)
        if unrecorded > 0:
            earlier.append({"wall_s": None, "runs_run": unrecorded, "runs_loaded": 0})
        this = {"wall_s": wall_s, "runs_run": self.runs_run, "runs_loaded": self.runs_loaded}
        return [*earlier, this]

    def write(self, wall_s: float) -> None:
        write_json(self.path, {"parts": self.parts(wall_s)})

    def tick(self) -> None:
        """One more run simulated and saved: the part's seconds so far go to the log."""
        self.runs_run += 1
        self.write(time.perf_counter() - self.t0)

    def close(self, wall_s: float, runs_loaded: int) -> list[dict[str, Any]]:
        """The part ended after ``wall_s`` seconds of runs; the final log, returned."""
        self.runs_loaded = runs_loaded
        self.write(wall_s)
        return self.parts(wall_s)


def timing_summary(
    runs: Sequence[dict[str, Any]], parts: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """``metrics.json``'s ``timing``; every number a measurement, None where none was made.

    ``runs``: runs in the table; ``runs_run``: simulated in this part; ``runs_loaded``: read from
    saved runs of earlier parts; ``part_wall_s``: this part's wall-clock seconds of runs;
    ``wall_s``: the study's, summed over its ``parts`` (``parts_log``, module docstring; None when
    an earlier part's time was not recorded); ``earlier_wall_s``: ``wall_s - part_wall_s``;
    ``run_wall_s_sum`` / ``run_cpu_s_sum``: every run's own process wall / CPU seconds summed,
    all parts (the CPU sum None when a saved run predates its measurement); medians per run.
    """
    t = [r["timing"] for r in runs]
    per_frame = [x["render_s_per_frame"] for x in t if x["render_s_per_frame"] is not None]
    cpu = [x.get("cpu_s") for x in t]
    walls = [p["wall_s"] for p in parts]
    known = all(w is not None for w in walls)
    return {
        "runs": len(runs),
        "runs_run": int(parts[-1]["runs_run"]),
        "runs_loaded": int(parts[-1]["runs_loaded"]),
        "part_wall_s": walls[-1],
        "wall_s": float(sum(walls)) if known else None,
        "earlier_wall_s": float(sum(walls[:-1])) if known else None,
        "parts": len(parts),
        "parts_log": list(parts),
        "run_wall_s_sum": float(sum(x["wall_s"] for x in t)),
        "run_cpu_s_sum": float(sum(c for c in cpu if c is not None)) if None not in cpu else None,
        "run_wall_s_median": float(np.median([x["wall_s"] for x in t])),
        "step_ms_median": float(np.median([x["step_ms"] for x in t])),
        "render_s_per_frame": float(np.median(per_frame)) if per_frame else None,
        "frames_rendered": int(sum(x["frames"] for x in t)),
    }


def timing_line(t: dict[str, Any]) -> str:
    """How many runs and what they cost, for the command's last line (``t``: `timing_summary`)."""
    n, wall, before = t["runs"], t["wall_s"], t["earlier_wall_s"]
    if t["parts"] == 1:
        return f"{n} runs in {wall:.0f} s"
    if wall is None:
        return (
            f"{n} runs ({t['runs_loaded']} saved before, their wall time not recorded; each "
            f"run's own seconds sum to {t['run_wall_s_sum']:.0f} s; {t['part_wall_s']:.0f} s now)"
        )
    if t["runs_run"] == 0:
        return f"{n} runs (all done before; {before:.0f} s when run)"
    return (
        f"{n} runs in {wall:.0f} s over {t['parts']} parts "
        f"({t['runs_run']} now in {t['part_wall_s']:.0f} s)"
    )
