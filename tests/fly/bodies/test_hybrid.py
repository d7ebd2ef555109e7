"""The lean hybrid turning controller equals flygym 2's demo controller, and its readable reference.

The first test runs flygym's own wiring (``HybridControllerObservation.from_sim`` ->
``HybridTurningController.step`` -> ``apply_locomotion_action`` -> ``sim.step``) and ours
(`NmfWiring` -> `HybridTurning`) on two copies of the same model from the same start, and
compares every actuator command and the final state. Skipped where flygym 2 is not importable
(Python < 3.12).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from wirelab.fly.bodies.flygym2 import flygym2_available

pytestmark = pytest.mark.fly
STEPS = 2000  # 0.2 s at 1e-4 s


@pytest.fixture(scope="module", autouse=True)
def _flygym2() -> None:
    reason = flygym2_available()
    if reason:
        pytest.skip(reason)


def _settled(seed: int) -> tuple[Any, Any, Any]:
    """A flygym 2 simulation settled in the neutral pose, its wiring and a lean controller."""
    from wirelab.fly.bodies.flygym2 import NmfWiring, build_simulation
    from wirelab.fly.bodies.hybrid import HybridTurning

    sim = build_simulation((0.0, 0.0), 0.0, 1e-4)
    wiring, ctrl = NmfWiring(sim), HybridTurning(1e-4, seed)
    sim.reset()
    wiring.actuate(ctrl.data.neutral, np.ones(6))
    sim.warmup()
    return sim, wiring, ctrl


def _demo(drive: list[float], seed: int) -> tuple[np.ndarray, np.ndarray]:
    from flygym.compose import ActuatorType
    from flygym_demo.complex_terrain import (
        HybridControllerObservation,
        HybridTurningController,
        PreprogrammedSteps,
        apply_locomotion_action,
    )

    sim, _, _ = _settled(seed)
    fly = sim.world.fly
    dofs = fly.get_actuated_jointdofs_order(ActuatorType.POSITION)
    ctrl = HybridTurningController(
        timestep=sim.timestep, preprogrammed_steps=PreprogrammedSteps(), output_dof_order=dofs
    )
    ctrl.reset(seed=seed)
    commands = []
    for _ in range(STEPS):
        obs = HybridControllerObservation.from_sim(sim, fly.name)
        apply_locomotion_action(sim, fly.name, ctrl.step(np.array(drive), obs))
        commands.append(sim.mj_data.ctrl.copy())
        sim.step()
    return np.array(commands), sim.mj_data.qpos.copy()


def _lean(drive: list[float], seed: int) -> tuple[np.ndarray, np.ndarray]:
    import mujoco

    sim, wiring, ctrl = _settled(seed)
    commands = []
    for _ in range(STEPS):
        stumbling = wiring.sense(ctrl.params.stumbling_force)
        wiring.actuate(*ctrl.step(np.array(drive), wiring.depth, stumbling))
        commands.append(sim.mj_data.ctrl.copy())
        mujoco.mj_step(sim.mj_model, sim.mj_data)
    return np.array(commands), sim.mj_data.qpos.copy()


@pytest.mark.parametrize(
    ("drive", "seed"), [([1.0, 1.0], 0), ([1.2, 0.4], 1), ([0.4, 1.2], 2), ([-0.4, 1.0], 3)]
)
def test_lean_controller_reproduces_flygym_demo(drive: list[float], seed: int) -> None:
    """Same joint and adhesion commands at every step and the same body state after 0.2 s
    (bit for bit on this machine; the assertion allows 1e-9)."""
    demo_cmd, demo_q = _demo(drive, seed)
    lean_cmd, lean_q = _lean(drive, seed)
    assert demo_cmd.shape == lean_cmd.shape == (STEPS, 48)
    np.testing.assert_allclose(lean_cmd, demo_cmd, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lean_q, demo_q, rtol=0, atol=1e-9)
    assert np.ptp(demo_cmd[:, :42], axis=0).max() > 0.1  # the legs did move


def test_reference_equals_fast_path() -> None:
    """The plain-loop reference and the numba kernel on one random sensor stream (changing
    and negative drives, retraction and stumbling firing) give the same commands."""
    from wirelab.fly.bodies.hybrid import HybridTurning
    from wirelab.fly.bodies.hybrid_reference import HybridTurningReference

    fast = HybridTurning(1e-4, seed=5)
    ref = HybridTurningReference(1e-4, seed=5, steps=fast.data)
    rng = np.random.default_rng(0)
    worst = 0.0
    fired = np.zeros(3)
    for t in range(3000):
        drive = np.array([1.0, 1.0]) if t < 500 else rng.uniform(-0.5, 1.5, 2)
        depth = 1.0 + rng.normal(0.0, 0.05, 6)
        if (t // 400) % 2:  # one claw hangs low long enough for the retraction to persist
            depth[(t // 800) % 6] += 0.3
        stumbling = rng.random(6) < 0.2
        a_fast, adh_fast = fast.step(drive, depth, stumbling)
        a_ref, adh_ref = ref.step(drive, depth, stumbling)
        worst = max(worst, float(np.abs(a_fast - a_ref).max()))
        assert np.array_equal(adh_fast, adh_ref), t
        fired += [fast.state[2].any(), fast.state[3].any(), fast.persistence.any()]
    assert worst <= 1e-9
    assert fired.min() > 20  # both corrections and the persistence were active
    np.testing.assert_allclose(fast.state[0], ref.theta, rtol=0, atol=1e-9)


def test_lean_controller_equals_demo_on_a_synthetic_sensor_stream() -> None:
    """Both controllers fed the same made-up observations: hanging claws (the retraction rule,
    which flat ground never triggers), ground forces against the heading, changing drives."""
    from flygym_demo.complex_terrain import HybridControllerObservation, HybridTurningController
    from flygym_demo.complex_terrain.common import dof_spec_to_jointdof

    from wirelab.fly.bodies.hybrid import DOFS, LEGS, HybridTurning, stumbling_from_forces

    parent = {"coxa": "thorax", "trochanterfemur": "coxa", "tibia": "trochanterfemur"}
    parent["tarsus1"] = "tibia"
    order = [dof_spec_to_jointdof(leg, (parent[c], c, a)) for leg in LEGS for c, a in DOFS]
    demo = HybridTurningController(timestep=1e-4, output_dof_order=order)
    demo.reset(seed=4)
    lean = HybridTurning(1e-4, seed=4)
    rng = np.random.default_rng(1)
    retracted = persisted = 0
    for t in range(4000):
        drive = np.array([1.0, 0.6]) if t < 1000 else rng.uniform(-0.5, 1.5, 2)
        thorax_z, claws = 1.0, rng.normal(0.0, 0.04, 6)
        if (t // 400) % 2:  # one leg hangs 0.3 mm low for 400 steps: long enough to persist
            claws[(t // 800) % 6] -= 0.3
        forces = rng.normal(0.0, 0.6, (6, 3, 3))
        heading = np.array([np.cos(t / 500), np.sin(t / 500), 0.0])
        obs = HybridControllerObservation(thorax_z, claws, forces, heading)
        want = demo.step(drive, obs)
        stumbling = stumbling_from_forces(forces, heading, lean.params.stumbling_force)
        angles, adhesion = lean.step(drive, thorax_z - claws, stumbling)
        assert np.array_equal(angles.ravel(), want.joint_angles), t
        assert np.array_equal(adhesion.astype(bool), want.adhesion_onoff), t
        retracted += demo.last_info["leg_to_correct_retraction"] is not None
        persisted += lean.persistence.any()
    assert retracted > 100
    assert persisted > 20
