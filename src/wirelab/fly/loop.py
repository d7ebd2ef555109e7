"""The sensorimotor loop: body -> sense -> (controller) -> decide -> body, every K body steps.

``run_loop`` works for one flygym fly or a batch of kinematic flies. Every ``K`` body steps it
calls ``sense(obs) -> u`` ``(B, 2)``, advances the controller (if any) with ``u``, asks
``decide(obs, u, dn, features) -> signal`` ``(B, 2)`` and holds that signal for the next ``K``
body steps. One row of the returned `Trace` is recorded per update. ``stop(obs) -> bool``, when
given, ends the run early after any update (e.g. a fly that reached the odor source).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from wirelab.errors import DivergenceError, UsageError
from wirelab.fly.bodies.base import Body, Observation
from wirelab.fly.controller import ConnectomeController

Sense = Callable[[Observation], np.ndarray]
Decide = Callable[[Observation, np.ndarray, np.ndarray | None, np.ndarray | None], np.ndarray]


@dataclass
class Trace:
    """Per update ``s`` of ``S``: time ``(S,)``, position ``(S, B, 2)``, heading ``(S, B)``,
    input ``(S, B, 2)``, signal ``(S, B, 2)``, dn ``(S, B, 2)`` (NaN without a controller),
    features ``(S, B, F)`` when recorded, odor ``(S, B, 2)`` when the body smells."""

    time: np.ndarray
    position: np.ndarray
    heading: np.ndarray
    inputs: np.ndarray
    signal: np.ndarray
    dn: np.ndarray
    features: np.ndarray | None = None
    odor: np.ndarray | None = None
    extra: dict[str, object] = field(default_factory=dict)


def _batched(a: np.ndarray, tail: int) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    return a.reshape(-1, *a.shape[a.ndim - tail :]) if tail else a.reshape(-1)


def run_loop(
    body: Body,
    duration: float,
    sense: Sense,
    decide: Decide,
    controller: ConnectomeController | None = None,
    steps_per_update: int | None = None,
    record_features: bool = False,
    progress: Callable[[float], None] | None = None,
    stop: Callable[[Observation], bool] | None = None,
) -> Trace:
    """Run ``duration`` simulated seconds (see module docstring)."""
    if duration <= 0:
        raise UsageError("duration must be > 0")
    if steps_per_update is None:
        steps_per_update = controller.steps_per_update(body.dt) if controller else 1
    k = max(1, int(steps_per_update))
    n_updates = max(1, round(duration / (k * body.dt)))
    obs = body.reset()
    if controller is not None:
        controller.reset()
    rows: dict[str, list[np.ndarray]] = {
        k_: []
        for k_ in ("time", "position", "heading", "inputs", "signal", "dn", "features", "odor")
    }
    for s in range(n_updates):
        u = sense(obs)
        dn: np.ndarray | None = None
        feats: np.ndarray | None = None
        if controller is not None:
            dn, feats = controller.update(u)
        signal = decide(obs, u, dn, feats)
        if not np.all(np.isfinite(signal)):
            raise DivergenceError(f"descending signal is NaN/inf at t={obs.time:.3f} s")
        rows["time"].append(np.asarray(obs.time))
        rows["position"].append(_batched(obs.position, 1))
        rows["heading"].append(_batched(obs.heading, 0))
        rows["inputs"].append(_batched(u, 1))
        rows["signal"].append(_batched(signal, 1))
        rows["dn"].append(
            _batched(dn, 1) if dn is not None else np.full_like(rows["inputs"][-1], np.nan)
        )
        if record_features and feats is not None:
            rows["features"].append(_batched(feats, 1).astype(np.float32))
        if obs.odor is not None:
            rows["odor"].append(_batched(obs.odor, 1))
        batched_signal = (
            signal if getattr(body, "batch", None) is not None else np.reshape(signal, 2)
        )
        for _ in range(k):
            obs = body.act(batched_signal)
        if progress is not None:
            progress((s + 1) / n_updates)
        if stop is not None and stop(obs):
            break
    return Trace(
        time=np.array(rows["time"]),
        position=np.array(rows["position"]),
        heading=np.array(rows["heading"]),
        inputs=np.array(rows["inputs"]),
        signal=np.array(rows["signal"]),
        dn=np.array(rows["dn"]),
        features=np.array(rows["features"]) if rows["features"] else None,
        odor=np.array(rows["odor"]) if rows["odor"] else None,
        extra={
            "final_position": _batched(obs.position, 1),
            "final_heading": _batched(obs.heading, 0),
        },
    )
