"""NeuroMechFly on flygym 2 behind the Body interface: turns, odor, video, bad inputs.

Skipped where flygym 2 is not importable (Python < 3.12), except the checks that fail before
any flygym import.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wirelab.errors import DivergenceError, UsageError
from wirelab.fly.bodies.flygym2 import Flygym2Body, flygym2_available
from wirelab.fly.odor import OdorSource

pytestmark = pytest.mark.fly


@pytest.fixture(scope="module")
def flygym2_ok() -> None:
    reason = flygym2_available()
    if reason:
        pytest.skip(reason)


def test_left_and_right_drives_turn_the_fly_opposite_ways(flygym2_ok: None) -> None:
    turns = {}
    for name, signal in {"right": [1.2, 0.2], "left": [0.2, 1.2]}.items():
        body = Flygym2Body(seed=0)
        obs0 = body.reset()
        for _ in range(1500):  # 0.15 s
            obs = body.act(np.array(signal))
        body.close()
        assert np.linalg.norm(obs.position - obs0.position) > 0.3, name  # it walked (mm)
        assert obs.time == pytest.approx(0.15)
        turns[name] = float(obs.heading - obs0.heading)
    # a larger left drive turns clockwise (heading decreases), the mirror the other way
    assert turns["right"] < 0 < turns["left"]


def test_odor_at_the_antennae_is_peak_over_squared_distance(flygym2_ok: None) -> None:
    """Two sources add; each gives ``P / |a - s|^2`` at the funiculi, whose positions come
    from flygym's own body-position getter."""
    from wirelab.fly.bodies.flygym2 import ANTENNA_Z

    sources = (OdorSource((6.0, 2.0), height=1.0, peak=3.0), OdorSource((-4.0, 0.0), peak=0.5))
    body = Flygym2Body(odor=sources, start_heading=0.3)
    for _ in range(200):
        obs = body.act(np.array([1.0, 0.8]))
    body.sim.forward()  # derived positions of the current state
    fly = body.sim.world.fly
    names = [s.name for s in fly.get_bodysegs_order()]
    pos = body.sim.get_body_positions(fly.name)
    antennae = pos[[names.index("l_funiculus"), names.index("r_funiculus")]]  # (2, 3)
    want = np.zeros(2)
    for s in sources:
        d = antennae - np.array([*s.xy, ANTENNA_Z + s.height])
        want += s.peak / (d**2).sum(axis=1)
    body.close()
    assert obs.odor is not None
    np.testing.assert_allclose(obs.odor, want, rtol=1e-9)
    assert antennae[0, 1] > antennae[1, 1] - 0.3  # left antenna on the fly's left (+y here)


def test_bad_signals_are_rejected_and_large_drives_clipped(flygym2_ok: None) -> None:
    body = Flygym2Body(seed=1)
    with pytest.raises(UsageError, match="shape"):
        body.act(np.zeros(3))
    with pytest.raises(UsageError, match="NaN"):
        body.act(np.array([np.nan, 1.0]))
    clipped = [body.act(np.array([5.0, -3.0])).position for _ in range(50)]
    body.close()
    body = Flygym2Body(seed=1)
    same = [body.act(np.array([1.5, -0.5])).position for _ in range(50)]
    body.close()
    np.testing.assert_array_equal(clipped, same)


def test_a_blown_up_state_is_a_divergence_error(
    flygym2_ok: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # MuJoCo writes its warning to MUJOCO_LOG.TXT here
    body = Flygym2Body()
    body.act(np.ones(2))
    body.sim.mj_data.qvel[:] = np.nan  # MuJoCo would silently reset the fly
    with pytest.raises(DivergenceError):
        body.act(np.ones(2))
    body.close()


def test_frames_show_the_whole_fly_large(flygym2_ok: None, tmp_path: Path) -> None:
    """Headless frames from the tracking camera, one per ``frame_every`` steps; the fly (all
    non-ground pixels of a segmentation render) spans at least a quarter of the frame width."""
    import mujoco

    video = tmp_path / "fly.mp4"
    body = Flygym2Body(video=video, keep_frames=True, frame_every=100, frame_size=(160, 120))
    for _ in range(300):
        body.act(np.ones(2))
    frames = body.frames
    assert len(frames) == body.frames_rendered == 3
    assert frames[0].shape == (120, 160, 3) and frames[0].dtype == np.uint8
    model, data = body.sim.mj_model, body.sim.mj_data
    seg = mujoco.Renderer(model, 120, 160)
    seg.enable_segmentation_rendering()
    seg.update_scene(data, camera=body.camera)
    ids = seg.render()[:, :, 0]
    seg.close()
    geom = mujoco.mjtObj.mjOBJ_GEOM
    ground = [mujoco.mj_name2id(model, geom, g.name) for g in body.sim.world.ground_geoms]
    cols = np.flatnonzero(((ids >= 0) & ~np.isin(ids, ground)).any(axis=0))
    assert (cols.max() - cols.min() + 1) / 160 >= 0.25
    body.close()
    assert video.stat().st_size > 1000


def test_viewer_without_display_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(UsageError, match="no display"):
        Flygym2Body(viewer=True)


def test_the_body_describes_itself() -> None:
    assert Flygym2Body.renders_video and not Flygym2Body.supports_batch
    with pytest.raises(UsageError, match="timestep"):
        Flygym2Body(timestep=0.01)
