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
(``fly.add_tracking_camera``: follows the thorax, fixed orientation, looking at the fly from its
right and above), a frame every ``frame_every`` physics steps; set ``MUJOCO_GL=osmesa`` or
``egl`` without a display (done here when no display is found).
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
from wirelab.fly.bodies.hybrid import LEGS, HybridTurning, stumbling_from_forces
from wirelab.fly.body import Observation, check_signal, has_display
from wirelab.fly.odor import OdorSource

SPAWN_Z = 0.7  # mm: spawn height of the fly's attachment frame
ANTENNA_Z = 1.2  # mm: funiculus height while walking on flygym 2 (measured)
STUMBLING_LINKS = ("tibia", "tarsus1", "tarsus2")
CAMERA = "trackcam"


def flygym2_available() -> str | None:
    """None when flygym 2 imports, else the reason (for skips and clear errors)."""
    if not has_display():
        os.environ.setdefault("MUJOCO_GL", "osmesa")
    try:
        import flygym
        from flygym_demo.complex_terrain import make_locomotion_fly  # noqa: F401

        if not hasattr(flygym, "Simulation"):
            raise ImportError(f"flygym {getattr(flygym, '__version__', '?')} is not flygym 2")
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

    fly = make_locomotion_fly()
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

        def body(name: str) -> int:
            return mj.mj_name2id(model, mj.mjtObj.mjOBJ_BODY, fly.bodyseg_to_mjcfbody[seg[name]].name)

        self.thorax = body("c_thorax")
        self.claws = np.array([body(f"{leg}_tarsus5") for leg in LEGS])
        self._z_ids = np.concatenate([[self.thorax], self.claws])
        self.actuators = np.zeros((6, 7), dtype=np.int64)
        from wirelab.fly.bodies.hybrid import DOFS

        for dof, act in fly.jointdof_to_mjcfactuator_by_type[ActuatorType.POSITION].items():
            leg, link = dof.child.name.split("_", 1)
            q = DOFS.index((link, dof.axis.value))
            self.actuators[LEGS.index(leg), q] = mj.mj_name2id(model, mj.mjtObj.mjOBJ_ACTUATOR, act.name)
        self.adhesion = np.array(
            [mj.mj_name2id(model, mj.mjtObj.mjOBJ_ACTUATOR, fly.leg_to_adhesionactuator[leg].name) for leg in LEGS]
        )
        # stumbling sensors: geom id -> slot (leg * 3 + link) or -1; ground geoms
        self._slot = np.full(model.ngeom, -1, dtype=np.int64)
        for i, (leg, link) in enumerate((lg, lk) for lg in LEGS for lk in STUMBLING_LINKS):
            for g in fly.bodyseg_to_mjcfgeom[seg[f"{leg}_{link}"]]:
                self._slot[mj.mj_name2id(model, mj.mjtObj.mjOBJ_GEOM, g.name)] = i
        self._ground = np.zeros(model.ngeom, dtype=np.bool_)
        for g in sim.world.ground_geoms:
            self._ground[mj.mj_name2id(model, mj.mjtObj.mjOBJ_GEOM, g.name)] = True
        self.qpos = int(model.jnt_qposadr[model.body_jntadr[self.thorax]])
        if model.jnt_type[model.body_jntadr[self.thorax]] != mj.mjtJoint.mjJNT_FREE:
            raise UsageError("the thorax is not the fly's free root body")
        self._fly_name = fly.name
        self._antenna_idx = [fly.get_bodysegs_order().index(seg[f"{s}_funiculus"]) for s in "lr"]
        self.antenna_offset = np.zeros((2, 3))
        self._wrench = np.zeros(6)
        self._calm = np.zeros(6, dtype=np.bool_)
        self.depth = np.zeros(6)

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

    def pose(self) -> tuple[float, float, float, float, float, float, float]:
        """Root free joint now: ``x, y, z`` (mm) and quaternion ``w, x, y, z``."""
        return tuple(self.data.qpos[self.qpos : self.qpos + 7].tolist())  # type: ignore[return-value]


@njit(cache=True)
def _sense(xpos, z_ids, geom, slot, ground, depth) -> bool:  # type: ignore[no-untyped-def]
    """``depth[i] = z_thorax - z_claw_i``; True when a stumbling link touches the ground."""
    for i in range(6):
        depth[i] = xpos[z_ids[0], 2] - xpos[z_ids[i + 1], 2]
    for c in range(geom.shape[0]):
        g1, g2 = geom[c, 0], geom[c, 1]
        if (slot[g1] >= 0 and ground[g2]) or (slot[g2] >= 0 and ground[g1]):
            return True
    return False
