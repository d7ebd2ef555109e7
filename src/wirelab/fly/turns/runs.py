"""One stimulated walk per process: the unit of the turn study (`wirelab.fly.turns.study`).

A run walks one fly (seed ``seed``) with the resting drive for ``settle`` s (flygym's start-up
transient), then switches on the one-sided stimulus of ``condition`` (``left`` ``u = [1, 0]``,
``right`` ``[0, 1]``, ``control`` ``[0, 0]``) for ``duration`` s; the connectome controller and
the `FixedMapping` turn the DN-VNC response into the drive. The turn is the heading change from
stimulus onset to the end (degrees, CCW positive). `run_one` is a top-level function of plain
arguments so that a process pool can call it; it returns arrays and timings (and the rendered
frames when asked), never a body or a network.

A finished run is kept in the study's ``runs/`` folder (`wirelab.fly.store`), named
``<model>_<condition>_<seed>`` with the fingerprint of its `RunSpec`: `save_run` stores its
arrays (``time`` ``(S,)``, ``heading`` ``(S,)``, ``position`` ``(S, 2)``, ``frames``
``(F, H, W, 3)`` uint8 when filmed) as arrays and every other field as JSON; `load_run` reads it
back as `run_one` returned it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.data.connectomes import SIDES
from wirelab.errors import UsageError
from wirelab.fly.bodies import body_class, open_body
from wirelab.fly.controller import (
    DEFAULT_NULL_FAMILY,
    ConnectomeController,
    ControllerConfig,
    null_name,
)
from wirelab.fly.loop import run_loop
from wirelab.fly.mapping import FixedMapping
from wirelab.fly.store import fingerprint, load_item, save_item

RUNS = "runs"  # the study's folder of finished runs
ARRAYS = ("time", "heading", "position")
# the stimulated side (u = 1 on that side's sensory neurons), or none: u = [left, right]
CONDITIONS = {**{s: tuple(float(s == t) for t in SIDES) for s in SIDES}, "control": (0.0, 0.0)}
MODEL_HELP = (
    "row (the connectome, row-normalised), spectral (spectral radius 1), mirror (left-right "
    "mirrored, row), null (--nulls rewirings of each --null-family, row)"
)


def model_names(
    models: tuple[str, ...],
    nulls: int,
    families: tuple[str, ...] = (DEFAULT_NULL_FAMILY,),
    null_seed: int = 0,
) -> list[str]:
    """Expand ``null`` into ``nulls`` models per family of ``families`` (`NULLS` names), seeds
    ``null_seed + i``, named by `wirelab.fly.controller.null_name` (``null-0``, ...,
    ``null-degree-boundary-0``, ...; one of a deterministic family such as ``mirror``, whose
    seed is ignored); validate the others::

        model_names(("row", "null"), 2, ("degree", "degree-boundary"))
        # ["row", "null-0", "null-1", "null-degree-boundary-0", "null-degree-boundary-1"]
    """
    from wirelab.reservoir.nulls import NULLS

    out: list[str] = []
    for m in models:
        if m == "null":
            for family in families:
                n = min(nulls, 1) if NULLS.get(family).deterministic else nulls
                out += [null_name(family, null_seed + i) for i in range(n)]
        elif m in ("row", "spectral", "mirror"):
            out.append(m)
        else:
            raise UsageError(f"unknown model {m!r}; known: {MODEL_HELP}")
    return out


@dataclass(frozen=True)
class RunSpec:
    """What one process simulates (all plain, picklable values)."""

    model: str
    condition: str
    seed: int
    settle: float
    duration: float
    mapping: FixedMapping
    controller: ControllerConfig
    body: str = "flygym"
    timestep: float = 1e-4
    frames: bool = False
    frame_every: int = 100
    frame_size: tuple[int, int] = (240, 240)
    connectome: str = "larva"

    def name(self) -> str:
        """The run's file name in the store: ``<model>_<condition>_<seed>``."""
        return f"{self.model}_{self.condition}_{self.seed}"

    def key(self) -> str:
        """What decides the run's result (every field), as a `wirelab.fly.store.fingerprint`."""
        return fingerprint(asdict(self))


def save_run(folder: Path, spec: RunSpec, run: dict[str, Any]) -> Path:
    """Keep the finished ``run`` of ``spec`` in ``folder`` (module docstring)."""
    record = {k: v for k, v in run.items() if k not in (*ARRAYS, "frames")}
    arrays = {k: np.asarray(run[k]) for k in ARRAYS}
    if run.get("frames") is not None:
        arrays["frames"] = np.asarray(run["frames"], dtype=np.uint8)
    return save_item(folder, spec.name(), spec.key(), record, arrays)


def load_run(folder: Path, spec: RunSpec) -> dict[str, Any] | None:
    """The saved run of ``spec`` as `run_one` returned it, or None (run it again)."""
    item = load_item(folder, spec.name(), spec.key())
    if item is None or not set(ARRAYS) <= set(item[1]):
        return None
    run, arrays = item
    run.update({k: arrays[k] for k in ARRAYS})
    run["frames"] = list(arrays["frames"]) if "frames" in arrays else None
    return run


def run_one(spec: RunSpec) -> dict[str, Any]:
    """Simulate ``spec``; return the traces ``(S, ...)`` per controller update and the turn."""
    import dataclasses

    t_start, cpu_start = time.perf_counter(), time.process_time()
    normalize = "spectral" if spec.model == "spectral" else "row"
    ctrl_cfg = dataclasses.replace(spec.controller, normalize=normalize)
    ctrl = ConnectomeController.from_connectome(
        spec.connectome, ctrl_cfg, mapping=spec.mapping, model=spec.model
    )  # row/spectral: the connectome's weights; mirror, nulls: model_weights
    kwargs: dict[str, Any] = {"seed": spec.seed}
    if body_class(spec.body).renders_video:
        kwargs.update(timestep=spec.timestep, keep_frames=spec.frames)
        kwargs.update(frame_every=spec.frame_every, frame_size=spec.frame_size)
    stim = np.array([CONDITIONS[spec.condition]])  # (1, 2)
    off = np.zeros((1, 2))
    with open_body(spec.body, **kwargs) as body:
        onset = spec.settle - 0.5 * ctrl.steps_per_update(body.dt) * body.dt
        t_setup = time.perf_counter()
        trace = run_loop(
            body,
            spec.settle + spec.duration,
            sense=lambda obs: spec.mapping.inputs(stim if obs.time >= onset else off),
            decide=lambda obs, u, dn, f: spec.mapping(dn, f),  # type: ignore[arg-type]
            controller=ctrl,
        )
        frames = getattr(body, "frames", None) if spec.frames else None
        render_s = float(getattr(body, "render_s", 0.0))
        n_frames = int(getattr(body, "frames_rendered", 0))
    t_end = time.perf_counter()
    time_s = np.append(trace.time, trace.time[-1] + (trace.time[1] - trace.time[0]))
    heading = np.append(trace.heading[:, 0], np.asarray(trace.extra["final_heading"])[0])
    position = np.vstack([trace.position[:, 0], np.asarray(trace.extra["final_position"])[:1]])
    i0 = int(np.searchsorted(time_s, spec.settle - 1e-9))
    steps = round((spec.settle + spec.duration) / body.dt)
    physics_s = t_end - t_setup - render_s
    return {
        "model": spec.model,
        "condition": spec.condition,
        "seed": spec.seed,
        "turn_deg": float(np.degrees(heading[-1] - heading[i0])),
        "settle_turn_deg": float(np.degrees(heading[i0] - heading[0])),
        "displacement_mm": float(np.linalg.norm(position[-1] - position[i0])),
        "evoked": spec.mapping.evoked(trace.dn[-1, :, :]).tolist()[0],
        "mean_signal": trace.signal[i0:, 0].mean(axis=0).tolist(),
        "time": time_s,
        "heading": heading,
        "position": position,
        "frames": frames,
        "timing": {
            "setup_s": t_setup - t_start,
            "wall_s": t_end - t_start,
            "cpu_s": time.process_time() - cpu_start,  # this process's CPU seconds
            "physics_steps": steps,
            "step_ms": 1e3 * physics_s / steps,
            "frames": n_frames,
            "render_s_per_frame": render_s / n_frames if n_frames else None,
        },
    }
