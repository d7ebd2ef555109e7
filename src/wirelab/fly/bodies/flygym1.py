"""NeuroMechFly in MuJoCo (flygym 1.2.1) behind the `Body` interface.

The body is flygym's ``HybridTurningController`` (CPGs + stumbling/retraction rules, with a 2-D
descending input that scales left/right CPG amplitudes; Wang-Chen et al. 2024, Nature Methods
21:2353), with the contact sensors it requires on every leg's Tibia and Tarsus1-5, adhesion on,
on a flat arena or flygym's ``OdorArena``. One ``act`` is one physics step (``timestep`` 1e-4 s).

Rendering is decoupled from physics: a frame is rendered every ``frame_every`` physics steps
(default: the video's frame interval at ``play_speed``) at ``frame_size`` pixels, and only then;
``body.render_s`` / ``body.frames_rendered`` measure what rendering cost. ``video=PATH`` records
headless frames with a tracking camera (set ``MUJOCO_GL=osmesa`` on machines without a
GPU/display; this module does so when no display is found) and writes an MP4 on ``close``;
``keep_frames=True`` keeps the frames (``body.frames``, ``(H, W, 3)`` uint8 each) without a file.
``viewer=True`` opens MuJoCo's passive viewer looking through the same flygym camera
when a display exists, and raises a clear `UsageError` when there is none.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from wirelab.errors import DivergenceError, UsageError
from wirelab.fly.bodies.base import Observation, check_signal, has_display
from wirelab.fly.bodies.flygym1_obs import cached_fly_class
from wirelab.fly.odor import OdorSource

LEGS = ("LF", "LM", "LH", "RF", "RM", "RH")
CONTACT_SEGMENTS = ("Tibia", "Tarsus1", "Tarsus2", "Tarsus3", "Tarsus4", "Tarsus5")
ANTENNA_Z = 0.86  # mm: antenna height while walking (measured, see calibration.json)


def flygym_available() -> str | None:
    """None when flygym imports, else the reason (for skips and clear errors)."""
    if not has_display():
        os.environ.setdefault("MUJOCO_GL", "osmesa")
    try:
        import flygym  # noqa: F401
        from flygym.examples.locomotion import HybridTurningController  # noqa: F401
    except Exception as exc:  # ImportError, or a MuJoCo/GL error at import
        return (
            f"flygym 1.2.1 is not usable here ({type(exc).__name__}: {exc}); it needs Python 3.11"
            " and pip install 'wirelab[fly-legacy]'"
        )
    return None


def _import_flygym() -> Any:
    reason = flygym_available()
    if reason:
        raise UsageError(reason)
    import flygym

    return flygym


class FlygymBody:
    """NeuroMechFly walking under ``HybridTurningController`` (see module docstring).

    Args:
        start_xy: spawn position (mm).
        start_heading: spawn heading (rad, 0 faces +x).
        odor: odor source (uses ``OdorArena`` and the fly's olfaction), or None (flat arena).
        timestep: physics step (s).
        seed: seed of the controller's CPG initial state.
        video: MP4 path to record to, or None.
        camera: flygym camera preset for the video and the viewer.
        play_speed: video play speed (0.1 = ten times slower than real time).
        viewer: open MuJoCo's passive viewer (needs a display).
        frame_every: physics steps per rendered frame (None: ``play_speed / 30 fps``).
        frame_size: ``(width, height)`` of a rendered frame in pixels.
        keep_frames: render frames (as for a video) and keep them in ``frames``.
        cached_observation: reuse the fly's observation while the physics state is unchanged
            (`wirelab.fly.bodies.flygym1_obs`; bit-identical, 16% faster measured); False:
            flygym's own.
    """

    name = "flygym1"
    renders_video: ClassVar[bool] = True
    supports_batch: ClassVar[bool] = False

    def __init__(
        self,
        start_xy: tuple[float, float] = (0.0, 0.0),
        start_heading: float = 0.0,
        odor: OdorSource | None = None,
        timestep: float = 1e-4,
        seed: int = 0,
        video: str | Path | None = None,
        camera: str = "camera_top_zoomout",
        play_speed: float = 0.1,
        viewer: bool = False,
        frame_every: int | None = None,
        frame_size: tuple[int, int] = (640, 480),
        keep_frames: bool = False,
        cached_observation: bool = True,
    ) -> None:
        if not (np.isfinite(timestep) and 0 < timestep <= 1e-3):
            raise UsageError(f"timestep must be in (0, 1e-3] s, not {timestep}")
        if viewer and not has_display():
            raise UsageError(
                "no display found (DISPLAY/WAYLAND_DISPLAY unset): the live viewer needs one; "
                "record a video with --video PATH instead"
            )
        flygym = _import_flygym()
        from flygym.arena import FlatTerrain, OdorArena
        from flygym.examples.locomotion import HybridTurningController

        self.dt = float(timestep)
        self.odor = odor
        self.video = Path(video) if video else None
        fly_class = cached_fly_class(flygym.Fly) if cached_observation else flygym.Fly
        fly = fly_class(
            spawn_pos=(float(start_xy[0]), float(start_xy[1]), 0.2),
            spawn_orientation=(0.0, 0.0, float(start_heading)),
            contact_sensor_placements=[f"{leg}{seg}" for leg in LEGS for seg in CONTACT_SEGMENTS],
            enable_adhesion=True,
            draw_adhesion=False,
            enable_olfaction=odor is not None,
        )
        if odor is not None:
            arena: Any = OdorArena(
                odor_source=np.array([[*odor.xy, ANTENNA_Z + odor.height]]),
                peak_odor_intensity=np.array([[odor.peak]]),
                diffuse_func=lambda x: x**-2,
                marker_size=0.3,
            )
        else:
            arena = FlatTerrain()
        self.camera = None
        fps = 30
        self.frame_every = max(
            1, round(play_speed / fps / self.dt) if frame_every is None else int(frame_every)
        )
        self.render_s = 0.0
        self.frames_rendered = 0
        self._steps = 0
        if self.video is not None or viewer or keep_frames:
            self.camera = flygym.YawOnlyCamera(
                attachment_point=fly.model.worldbody,
                camera_name=camera,
                targeted_fly_names=fly.name,
                window_size=tuple(frame_size),
                fps=fps,
                play_speed=self.frame_every * self.dt * fps,
                play_speed_text=False,
                timestamp_text=True,
            )
        self.sim = HybridTurningController(
            fly=fly,
            cameras=[self.camera] if self.camera is not None else [],
            arena=arena,
            timestep=self.dt,
            seed=seed,
        )
        self.seed = seed
        self.viewer: Any = None
        if viewer:
            self._open_viewer(f"{fly.name}/{camera}")
        self.reset()

    def _open_viewer(self, camera_name: str) -> None:
        import mujoco
        import mujoco.viewer

        model, data = self.sim.physics.model.ptr, self.sim.physics.data.ptr
        self.viewer = mujoco.viewer.launch_passive(model, data)
        cam_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, camera_name)
        if cam_id >= 0:
            self.viewer.cam.type = mujoco.mjtCamera.mjCAMERA_FIXED
            self.viewer.cam.fixedcamid = cam_id

    def reset(self) -> Observation:
        obs, _ = self.sim.reset(seed=self.seed)
        self.t = 0.0
        self._steps = 0
        self._heading = float(self._raw_heading(obs))
        return self._observation(obs)

    @staticmethod
    def _raw_heading(obs: dict[str, np.ndarray]) -> float:
        o = obs["fly_orientation"]  # unit vector the fly faces
        return float(np.arctan2(o[1], o[0]))

    def _observation(self, obs: dict[str, np.ndarray]) -> Observation:
        raw = self._raw_heading(obs)
        self._heading += (raw - self._heading + np.pi) % (2 * np.pi) - np.pi  # unwrap
        odor = None
        if self.odor is not None:
            odor = np.asarray(obs["odor_intensity"][0, 2:4], dtype=np.float64)  # antennae L, R
        pos = np.asarray(obs["fly"][0][:2], dtype=np.float64)
        return Observation(self.t, pos, np.asarray(self._heading), odor)

    def act(self, descending_signal: np.ndarray) -> Observation:
        from dm_control.rl.control import PhysicsError

        d = check_signal(descending_signal, None)
        try:
            obs, *_ = self.sim.step(d)
        except PhysicsError as exc:
            raise DivergenceError(f"flygym physics diverged at t={self.t:.4f} s: {exc}") from None
        self.t += self.dt
        self._steps += 1
        if self.camera is not None and self._steps % self.frame_every == 0:
            t0 = time.perf_counter()
            self.sim.render()
            self.render_s += time.perf_counter() - t0
            self.frames_rendered += 1
        if self.viewer is not None and self.viewer.is_running():
            self.viewer.sync()
        return self._observation(obs)

    def antennae(self) -> np.ndarray:
        """``(2, 3)`` world positions of the left and right antenna now (mm), from flygym's
        olfaction sensors (so only with an ``odor`` source)."""
        if self.odor is None:
            raise UsageError("flygym 1.2.1 reports its antennae only with an odor source")
        sim = self.sim
        ant = np.asarray(sim.physics.bind(sim.fly._antennae_sensors).sensordata)
        return ant.reshape(4, 3)[2:4].copy()  # sensors: [maxillary L, R, antenna L, R]

    @property
    def frames(self) -> list[np.ndarray]:
        """The rendered frames so far (empty without a camera)."""
        return list(self.camera._frames) if self.camera is not None else []

    def close(self) -> None:
        if self.camera is not None and self.video is not None:
            self.video.parent.mkdir(parents=True, exist_ok=True)
            self.camera.save_video(self.video, stabilization_time=0)
        if self.viewer is not None:
            self.viewer.close()
            self.viewer = None
        self.sim.close()
