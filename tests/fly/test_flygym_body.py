"""A short real NeuroMechFly run (0.2 s simulated): the fly moves and turns as the signal says."""

from __future__ import annotations

import numpy as np
import pytest

from wirelab.errors import UsageError

pytestmark = pytest.mark.fly


def test_flygym_fly_walks_and_turns_the_way_the_signal_implies(flygym_ok: None) -> None:
    from wirelab.fly.bodies.flygym1 import FlygymBody

    result = {}
    for name, signal in {"right": [1.2, 0.2], "left": [0.2, 1.2]}.items():
        body = FlygymBody(seed=0)
        obs0 = body.reset()
        for _ in range(1000):  # 0.1 s
            obs = body.act(np.array(signal))
        body.close()
        result[name] = (obs0, obs)
    for name, (obs0, obs) in result.items():
        assert np.linalg.norm(obs.position - obs0.position) > 0.3, name  # it walked (mm)
    turn_right = float(result["right"][1].heading - result["right"][0].heading)
    turn_left = float(result["left"][1].heading - result["left"][0].heading)
    # a larger left drive turns clockwise (heading decreases) and the mirror turns the other way
    assert turn_right < turn_left
    assert turn_right < 0 < turn_left


def test_viewer_without_display_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from wirelab.fly.bodies.flygym1 import FlygymBody

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(UsageError, match="no display"):
        FlygymBody(viewer=True)


@pytest.mark.parametrize("frames", [False, True])
def test_the_cached_observation_gives_the_same_fly_bit_for_bit(
    flygym_ok: None, frames: bool
) -> None:
    """`wirelab.fly.bodies.flygym1_obs` against flygym's own observation: the same positions,
    headings and odor readings over 300 steps of changing drives (with rendering in between too),
    and one observation computed per step instead of two."""
    from wirelab.fly.bodies.flygym1 import FlygymBody
    from wirelab.fly.odor import OdorSource

    def walk(cached: bool) -> tuple[np.ndarray, int | None]:
        body = FlygymBody(
            start_xy=(10.0, 0.0),
            odor=OdorSource(xy=(0.0, 0.0)),
            seed=3,
            cached_observation=cached,
            keep_frames=frames,
            frame_every=50,
            frame_size=(64, 48),
        )
        rng = np.random.default_rng(0)
        rows = []
        for i in range(300):
            o = body.act(np.ones(2) if i < 100 else rng.uniform(0.2, 1.2, 2))
            rows.append([*o.position, float(o.heading), *o.odor])
        computed = getattr(body.sim.fly, "obs_computed", None)
        body.close()
        return np.array(rows), computed

    reference, _ = walk(False)
    cached, computed = walk(True)
    assert np.array_equal(reference, cached)
    assert computed == 301  # reset + one per step
