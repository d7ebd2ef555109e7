"""NeuroMechFly on flygym 2 (MuJoCo 3.16) behind the `Body` interface, driven by `HybridTurning`.

The fly is flygym 2's standard legs-only, position-controlled NeuroMechFly with leg adhesion
(``flygym_demo.complex_terrain.make_locomotion_fly``) on a flat ground, spawned at ``start_xy``
facing ``start_heading``. `reset` puts it in the neutral pose with adhesion on, lets it settle
for ``settle`` s (flygym's ``warmup``) and restarts the clock at 0. One ``act`` is one physics
step of ``timestep`` s: sense, controller (`wirelab.fly.bodies.hybrid`), actuators, ``mj_step``.

`NmfWiring` resolves every body, geom, actuator and joint index once, so a step reads and writes
MuJoCo's arrays directly: the controller's inputs (claw depth below the thorax, ground forces on
tibia and tarsus 1-2 projected on the heading) as flygym's demo computes them, its outputs into
``ctrl``. The Observation's position and heading are read from the root free joint (the state
after the step), the odor at the two funiculi (third antennal segments)::

    I(a) = sum_k P_k / |a - s_k|^2,   s_k = (x_k, y_k, ANTENNA_Z + height_k)

Rendering (``video=PATH``, ``keep_frames``, ``viewer``) uses the fly's tracking camera
(``fly.add_tracking_camera``: follows the thorax with a fixed orientation, looking from the
world's -y side and above), a frame every ``frame_every`` physics steps. Headless rendering needs
``MUJOCO_GL=osmesa`` or ``egl``; osmesa is set here when no display is found.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numba import njit

from wirelab.errors import DivergenceError, UsageError
from wirelab.fly.bodies.base import DRIVE_RANGE, Observation, check_signal, has_display
from wirelab.fly.bodies.hybrid import DOFS, LEGS, HybridTurning, stumbling_from_forces
from wirelab.fly.odor import OdorSource

SPAWN_Z = 0.7  # mm: spawn height of the fly's attachment frame
ANTENNA_Z = 1.13  # mm: mean funiculus height while walking on flygym 2 (measured, 0.1-1 s)
STUMBLING_LINKS = ("tibia", "tarsus1", "tarsus2")
CAMERA = "trackcam"


def flygym2_available() -> str | None:
    """None when flygym 2 imports, else the reason (for skips and clear errors)."""
    if not has_display():
        os.environ.setdefault("MUJOCO_GL", "osmesa")
    try:
        from flygym.compose import FlatGroundWorld  # noqa: F401  (flygym 1.x has no compose)
        from flygym_demo.complex_terrain import make_locomotion_fly  # noqa: F401
    except Exception as exc:  # ImportError, or a MuJoCo/GL error at import
        return f"flygym 2 is not usable here ({type(exc).__name__}: {exc}); needs Python >= 3.12"
    return None


def build_simulation(start_xy: Sequence[float], start_heading: float, timestep: float) -> Any:
    """flygym 2's ``Simulation`` of one locomotion fly (with a tracking camera) on flat ground."""
    reason = flygym2_available()
    if reason:
        raise UsageError(reason)
    from flygym import Simulation
    from flygym.compose import FlatGroundWorld
    from flygym.utils.math import Rotation3D
    from flygym_demo.complex_terrain import make_locomotion_fly

    fly = make_locomotion_fly(colorize=True)
    fly.add_tracking_camera(name=CAMERA)
    world = FlatGroundWorld()
    half = 0.5 * float(start_heading)
    quat = (math.cos(half), 0.0, 0.0, math.sin(half))
    world.add_fly(fly, (float(start_xy[0]), float(start_xy[1]), SPAWN_Z), Rotation3D("quat", quat))
    return Simulation(world, timestep=timestep)


class NmfWiring:
    """Indices into one flygym 2 fly's MuJoCo arrays, resolved once (``sim``: its Simulation).

    Attributes:
        actuators: ``(6, 7)`` position actuator ids in `wirelab.fly.bodies.hybrid` order.
        adhesion: ``(6,)`` adhesion actuator ids.
        thorax: thorax body id; ``claws``: ``(6,)`` tarsus 5 body ids.
        qpos: address of the root free joint (position, then quaternion w, x, y, z).
        antenna_offset: ``(2, 3)`` left, right funiculus in the thorax frame (mm).
    """

    def __init__(self, sim: Any) -> None:
        import mujoco as mj
        from flygym.compose import ActuatorType

        fly = sim.world.fly
        model = self.model = sim.mj_model
        self.data = sim.mj_data
        if list(fly.get_legs_order()) != list(LEGS):
            raise UsageError(f"unexpected leg order {fly.get_legs_order()}")
        seg = {s.name: s for s in fly.bodyseg_to_mjcfbody}
        obj, bodies, glue = mj.mjtObj, fly.bodyseg_to_mjcfbody, fly.leg_to_adhesionactuator

        def ident(kind: Any, element: Any) -> int:
            return int(mj.mj_name2id(model, kind, element.name))

        self.thorax = ident(obj.mjOBJ_BODY, bodies[seg["c_thorax"]])
        self.claws = np.array([ident(obj.mjOBJ_BODY, bodies[seg[f"{g}_tarsus5"]]) for g in LEGS])
        self._z_ids = np.concatenate([[self.thorax], self.claws])
        self.actuators = np.zeros((6, 7), dtype=np.int64)
        for dof, act in fly.jointdof_to_mjcfactuator_by_type[ActuatorType.POSITION].items():
            leg, link = dof.child.name.split("_", 1)
            q = DOFS.index((link, dof.axis.value))
            self.actuators[LEGS.index(leg), q] = ident(obj.mjOBJ_ACTUATOR, act)
        self.adhesion = np.array([ident(obj.mjOBJ_ACTUATOR, glue[leg]) for leg in LEGS])
        # stumbling sensors: geom id -> slot (leg * 3 + link) or -1; ground geoms
        self._slot = np.full(model.ngeom, -1, dtype=np.int64)
        for i, (leg, link) in enumerate((lg, lk) for lg in LEGS for lk in STUMBLING_LINKS):
            for g in fly.bodyseg_to_mjcfgeom[seg[f"{leg}_{link}"]]:
                self._slot[ident(obj.mjOBJ_GEOM, g)] = i
        self._ground = np.zeros(model.ngeom, dtype=np.bool_)
        for g in sim.world.ground_geoms:
            self._ground[ident(obj.mjOBJ_GEOM, g)] = True
        self.qpos = int(model.jnt_qposadr[model.body_jntadr[self.thorax]])
        if model.jnt_type[model.body_jntadr[self.thorax]] != mj.mjtJoint.mjJNT_FREE:
            raise UsageError("the thorax is not the fly's free root body")
        self._fly_name = fly.name
        self._antenna_idx = [fly.get_bodysegs_order().index(seg[f"{s}_funiculus"]) for s in "lr"]
        self.antenna_offset = np.zeros((2, 3))
        self._wrench = np.zeros(6)
        self._calm = np.zeros(6, dtype=np.bool_)
        self.depth = np.zeros(6)
        self._root = self.data.qpos[self.qpos : self.qpos + 7]  # a view into MuJoCo's state

    def measure_antennae(self, sim: Any) -> None:
        """Store the funiculi in the thorax frame (rigid: the head is fused to the thorax)."""
        sim.forward()
        world = sim.get_body_positions(self._fly_name)[self._antenna_idx]  # (2, 3)
        rot = self.data.xmat[self.thorax].reshape(3, 3)
        self.antenna_offset = (world - self.data.xpos[self.thorax]) @ rot  # R^T (a - x)

    def sense(self, threshold: float) -> np.ndarray:
        """Fill ``depth`` (``(6,)`` thorax z minus claw z) and return the stumbling flags.

        Both read the state at the start of the last ``mj_step``, as flygym's demo does.
        """
        d = self.data
        geom = d.contact.geom  # (ncon, 2)
        if not _sense(d.xpos, self._z_ids, geom, self._slot, self._ground, self.depth):
            return self._calm
        return self._stumbling(geom, threshold)

    def _stumbling(self, geom: np.ndarray, threshold: float) -> np.ndarray:
        """flygym's ``get_bodysegment_contact_forces`` for the 18 links, same arithmetic."""
        import mujoco as mj

        d, slot, ground = self.data, self._slot, self._ground
        forces = np.zeros((18, 3))
        exclude, frame = d.contact.exclude, d.contact.frame
        for c in range(len(geom)):
            s1, s2 = slot[geom[c, 0]], slot[geom[c, 1]]
            touch = (s1 >= 0 and ground[geom[c, 1]]) or (s2 >= 0 and ground[geom[c, 0]])
            if not touch or exclude[c]:
                continue
            mj.mj_contactForce(self.model, d, c, self._wrench)
            f = frame[c].reshape(3, 3).T @ self._wrench[:3]  # world frame
            if s1 >= 0:
                forces[s1] -= f
            if s2 >= 0:
                forces[s2] += f
        heading = d.xmat[self.thorax].reshape(3, 3)[:, 0].copy()
        return stumbling_from_forces(forces.reshape(6, 3, 3), heading, threshold)

    def actuate(self, angles: np.ndarray, adhesion: np.ndarray) -> None:
        """Write ``(6, 7)`` joint targets and ``(6,)`` adhesion (0/1) into ``ctrl``."""
        ctrl = self.data.ctrl
        ctrl[self.actuators] = angles
        ctrl[self.adhesion] = adhesion

    def pose(self) -> tuple[float, ...]:
        """Root free joint now: ``x, y, z`` (mm) and quaternion ``w, x, y, z`` (7 floats)."""
        return tuple(self._root.tolist())


@njit(cache=True)
def _sense(
    xpos: np.ndarray,
    z_ids: np.ndarray,
    geom: np.ndarray,
    slot: np.ndarray,
    ground: np.ndarray,
    depth: np.ndarray,
) -> bool:
    """``depth[i] = z_thorax - z_claw_i``; True when a stumbling link touches the ground."""
    for i in range(6):
        depth[i] = xpos[z_ids[0], 2] - xpos[z_ids[i + 1], 2]
    for c in range(geom.shape[0]):
        g1, g2 = geom[c, 0], geom[c, 1]
        if (slot[g1] >= 0 and ground[g2]) or (slot[g2] >= 0 and ground[g1]):
            return True
    return False


class Flygym2Body:
    """NeuroMechFly on flygym 2 under the lean hybrid turning controller (see module docstring).

    Args:
        start_xy: spawn position (mm).
        start_heading: spawn heading (rad, 0 faces +x).
        odor: an odor source, a sequence of them (intensities add), or None.
        timestep: physics step (s).
        seed: seed of the controller's initial CPG phases.
        video: MP4 path to record to, or None.
        play_speed: video play speed (0.1 = ten times slower than real time).
        viewer: open MuJoCo's passive viewer (needs a display).
        frame_every: physics steps per rendered frame (None: ``play_speed / 30 fps``).
        frame_size: ``(width, height)`` of a rendered frame in pixels.
        keep_frames: render frames (as for a video) and keep them in ``frames``.
        settle: seconds the fly stands in the neutral pose at `reset` before the clock starts.
    """

    name = "flygym"
    renders_video: ClassVar[bool] = True
    supports_batch: ClassVar[bool] = False

    def __init__(
        self,
        start_xy: tuple[float, float] = (0.0, 0.0),
        start_heading: float = 0.0,
        odor: OdorSource | Sequence[OdorSource] | None = None,
        timestep: float = 1e-4,
        seed: int = 0,
        video: str | Path | None = None,
        play_speed: float = 0.1,
        viewer: bool = False,
        frame_every: int | None = None,
        frame_size: tuple[int, int] = (640, 480),
        keep_frames: bool = False,
        settle: float = 0.05,
    ) -> None:
        if not (np.isfinite(timestep) and 0 < timestep <= 1e-3):
            raise UsageError(f"timestep must be in (0, 1e-3] s, not {timestep}")
        if viewer and not has_display():
            raise UsageError(
                "no display found (DISPLAY/WAYLAND_DISPLAY unset): the live viewer needs one; "
                "record a video with --video PATH instead"
            )
        import mujoco as mj

        self.dt = float(timestep)
        self.seed = seed
        self.settle = float(settle)
        self.sources = (odor,) if isinstance(odor, OdorSource) else tuple(odor or ())
        self.odor = self.sources[0] if len(self.sources) == 1 else (self.sources or None)
        self.video = Path(video) if video else None
        self.sim = build_simulation(start_xy, start_heading, self.dt)
        self.wiring = NmfWiring(self.sim)
        self.controller = HybridTurning(self.dt, seed)
        self._step = mj.mj_step
        # MuJoCo resets an unstable state itself and counts a warning: a view read each step
        w = mj.mjtWarning
        bad = sorted(int(k) for k in (w.mjWARN_BADQPOS, w.mjWARN_BADQVEL, w.mjWARN_BADQACC))
        self._bad = self.sim.mj_data.warning.number[bad[0] : bad[-1] + 1]
        self._drive = np.zeros(2)
        fps = 30
        self.frame_every = max(
            1, round(play_speed / fps / self.dt) if frame_every is None else int(frame_every)
        )
        self.render_s = 0.0
        self.frames_rendered = 0
        self.renderer: Any = None
        self.viewer: Any = None
        camera = self.sim.world.fly.cameraname_to_mjcfcamera[CAMERA]
        self.camera = camera.name  # the tracking camera's name in the compiled model
        if self.video is not None or viewer or keep_frames:
            from flygym.rendering import Renderer

            self.renderer = Renderer(
                self.sim.mj_model,
                camera,
                camera_res=(int(frame_size[1]), int(frame_size[0])),
                playback_speed=self.frame_every * self.dt * fps,
                output_fps=fps,
            )
        if viewer:
            self._open_viewer(camera.name)
        self.reset()

    def _open_viewer(self, camera_name: str) -> None:
        import mujoco as mj
        import mujoco.viewer

        model, data = self.sim.mj_model, self.sim.mj_data
        self.viewer = mujoco.viewer.launch_passive(model, data)
        cam_id = mj.mj_name2id(model, mj.mjtObj.mjOBJ_CAMERA, camera_name)
        if cam_id >= 0:
            self.viewer.cam.type = mj.mjtCamera.mjCAMERA_FIXED
            self.viewer.cam.fixedcamid = cam_id

    def reset(self) -> Observation:
        """Neutral pose, adhesion on, ``settle`` s of physics, then the clock starts at 0."""
        self.sim.reset()
        self.controller.reset(self.seed)
        self.wiring.actuate(self.controller.data.neutral, np.ones(6))
        self.sim.warmup(self.settle)
        self.wiring.measure_antennae(self.sim)
        self._offsets = [tuple(o) for o in self.wiring.antenna_offset.tolist()]
        if self.renderer is not None:
            self.renderer.reset()
        self.t = 0.0
        self._steps = 0
        self._heading = 0.0
        self._heading = self._unwrap(self.wiring.pose())
        return self._observation()

    def act(self, descending_signal: np.ndarray) -> Observation:
        """One physics step under the drives ``[left, right]`` (clipped to ``DRIVE_RANGE``)."""
        drive = self._checked(descending_signal)
        stumbling = self.wiring.sense(self.controller.params.stumbling_force)
        angles, adhesion = self.controller.step(drive, self.wiring.depth, stumbling)
        self.wiring.actuate(angles, adhesion)
        self._step(self.wiring.model, self.wiring.data)
        self.t += self.dt
        self._steps += 1
        obs = self._observation()
        if self.renderer is not None and self._steps % self.frame_every == 0:
            t0 = time.perf_counter()
            self.renderer.render_as_needed(self.wiring.data)
            self.render_s += time.perf_counter() - t0
            self.frames_rendered += 1
        if self.viewer is not None and self.viewer.is_running():
            self.viewer.sync()
        return obs

    def _checked(self, signal: np.ndarray) -> np.ndarray:
        """`check_signal` for one fly, without its array overhead on the usual path."""
        s = np.asarray(signal, dtype=np.float64)
        if s.shape == (2,):
            left, right = s.tolist()
            if math.isfinite(left) and math.isfinite(right):
                lo, hi = DRIVE_RANGE
                self._drive[0], self._drive[1] = min(max(left, lo), hi), min(max(right, lo), hi)
                return self._drive
        return check_signal(s, None)  # raises the usual error

    def _unwrap(self, pose: tuple[float, ...]) -> float:
        """Heading of the thorax x axis from the quaternion, unwrapped against the last one."""
        _, _, _, w, x, y, z = pose
        raw = math.atan2(2.0 * (x * y + w * z), w * w + x * x - y * y - z * z)
        return self._heading + (raw - self._heading + math.pi) % (2 * math.pi) - math.pi

    def _observation(self) -> Observation:
        pose = self.wiring.pose()
        if not math.isfinite(sum(pose)) or any(self._bad.tolist()):
            raise DivergenceError(f"flygym 2 physics diverged at t={self.t:.4f} s")
        self._heading = self._unwrap(pose)
        odor = self.odor_at(self.antennae(pose)) if self.sources else None
        return Observation(self.t, np.array(pose[:2]), np.asarray(self._heading), odor)

    def antennae(self, pose: tuple[float, ...] | None = None) -> np.ndarray:
        """``(2, 3)`` world positions of the left and right funiculus now (mm)."""
        px, py, pz, w, x, y, z = self.wiring.pose() if pose is None else pose
        n = w * w + x * x + y * y + z * z  # rotation of a (not quite) unit quaternion
        rot = (
            ((w * w + x * x - y * y - z * z) / n, 2 * (x * y - w * z) / n, 2 * (x * z + w * y) / n),
            (2 * (x * y + w * z) / n, (w * w - x * x + y * y - z * z) / n, 2 * (y * z - w * x) / n),
            (2 * (x * z - w * y) / n, 2 * (y * z + w * x) / n, (w * w - x * x - y * y + z * z) / n),
        )
        out = [
            [p + r[0] * a + r[1] * b + r[2] * c for p, r in zip((px, py, pz), rot, strict=True)]
            for a, b, c in self._offsets
        ]
        return np.array(out)

    def odor_at(self, points: np.ndarray) -> np.ndarray:
        """``(n,)`` intensity ``sum_k P_k / |a - s_k|^2`` at ``points`` ``(n, 3)`` (mm)."""
        total = np.zeros(len(points))
        for s in self.sources:
            d = points - np.array([s.xy[0], s.xy[1], ANTENNA_Z + s.height])
            total += s.peak / np.einsum("ij,ij->i", d, d)
        return total

    @property
    def frames(self) -> list[np.ndarray]:
        """The rendered frames so far, ``(H, W, 3)`` uint8 each (empty without a camera)."""
        if self.renderer is None:
            return []
        return [f for frames in self.renderer.frames.values() for f in frames]

    def close(self) -> None:
        if self.renderer is not None:
            if self.video is not None and self.frames:
                self.video.parent.mkdir(parents=True, exist_ok=True)
                self.renderer.save_video(self.video)
            self.renderer.close()
            self.renderer = None
        if self.viewer is not None:
            self.viewer.close()
            self.viewer = None
        self.sim.close()
