"""flygym's ``Fly`` with its observation reused while the physics state is unchanged.

``HybridTurningController.step`` (flygym 1.2.1) reads the fly's observation *before* the
physics step, for its stumbling and retraction rules, and ``Simulation.step`` reads it again
*after* the step. Between the read at the end of step ``t`` and the read at the start of step
``t + 1`` nothing touches the physics, so the second read recomputes the same dict
(`Fly.get_observation` is most of a step's time, read twice; docs/fly.md has the measured
saving).

`cached_fly_class` returns a subclass of ``flygym.Fly`` whose ``get_observation`` keys the last
result on the physics state that the observation is a function of::

    key = (time, qpos, qvel, act, last adhesion command)     (bytes of each)

and returns the stored dict when the key is equal, else computes and stores a new one. The
reference is flygym's own method (``FlygymBody(..., cached_observation=False)``);
`tests/fly/test_flygym_body.py` checks that both give bit-identical trajectories.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np


@cache
def cached_fly_class(fly_class: type) -> type:
    """A subclass of ``fly_class`` (flygym's ``Fly``) with the cached observation."""

    class CachedObservationFly(fly_class):
        _obs_key: tuple[Any, ...] | None = None
        _obs: Any = None
        obs_computed = 0  # observations computed (not reused), for tests and profiling

        def get_observation(self, sim: Any) -> Any:
            d = sim.physics.data
            key = (
                float(d.time),
                d.qpos.tobytes(),
                d.qvel.tobytes(),
                d.act.tobytes(),
                np.asarray(getattr(self, "_last_adhesion", ())).tobytes(),
            )
            if key != self._obs_key:
                self._obs = super().get_observation(sim)
                self._obs_key = key
                self.obs_computed += 1
            return self._obs

    CachedObservationFly.__name__ = f"CachedObservation{fly_class.__name__}"
    return CachedObservationFly
