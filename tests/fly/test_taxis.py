"""Closed-loop taxis on the kinematic body (small and fast) and its pieces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import requires_larva
from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.fly.bodies.kinematic import KinematicBody
from wirelab.fly.controller import ControllerConfig
from wirelab.fly.loop import Trace
from wirelab.fly.taxis.study import TaxisStudyConfig, run_study
from wirelab.fly.taxis.task import (
    TaxisConfig,
    deploy,
    encode,
    evaluate,
    source,
    starts,
    teacher,
    wilson,
)
from wirelab.parallel import ExecOptions


def test_teacher_turns_toward_the_stronger_side() -> None:
    cfg = TaxisConfig()
    sig = teacher(cfg, np.array([[2.0, 1.0], [1.0, 2.0], [1.0, 1.0]]))
    assert sig[0, 0] < sig[0, 1]  # more odor on the left -> lower left drive -> left turn
    assert sig[1, 0] > sig[1, 1]
    np.testing.assert_allclose(sig[2], [1.0, 1.0])


def test_adapted_encoding_removes_the_common_level() -> None:
    cfg = TaxisConfig(encoding="adapted", input_gain=1.0)
    a = encode(cfg, np.array([[2.0, 1.0]]))
    b = encode(cfg, np.array([[200.0, 100.0]]))
    np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(a.sum(), 2.0)


def test_starts_are_seeded_and_in_range() -> None:
    cfg = TaxisConfig(start_distance=(10.0, 12.0))
    xy, h = starts(cfg, 50, seed=1)
    xy2, _ = starts(cfg, 50, seed=1)
    np.testing.assert_array_equal(xy, xy2)
    r = np.linalg.norm(xy, axis=1)
    assert np.all((r >= 10.0) & (r <= 12.0)) and np.all(np.abs(h) <= np.pi)


def test_teacher_beats_constant_walking_in_closed_loop() -> None:
    cfg = TaxisConfig(trials=40, time_limit=4.0, start_distance=(6.0, 8.0), seed=5)
    _, teach = deploy(cfg, "teacher")
    _, const = deploy(cfg, "constant")
    assert teach["success_rate"] > const["success_rate"] + 0.2


def test_evaluate_counts_success_and_efficiency() -> None:
    pos = np.array([[[10.0, 0.0]], [[5.0, 0.0]], [[1.0, 0.0]]])  # straight to the source
    tr = Trace(
        np.array([0.0, 1.0, 2.0]),
        pos,
        np.zeros((3, 1)),
        np.zeros((3, 1, 2)),
        np.zeros((3, 1, 2)),
        np.zeros((3, 1, 2)),
        extra={"final_position": np.array([[0.0, 0.0]])},
    )
    res = evaluate(tr, TaxisConfig(radius=2.0, start_distance=(5, 10)), dt_u=1.0)
    assert res["success_rate"] == 1.0
    assert res["time_to_source_s"] == 2.0
    assert res["path_efficiency"] == pytest.approx(8.0 / 9.0)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_bad_taxis_config_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        TaxisConfig(trials=0)
    with pytest.raises(UsageError):
        TaxisConfig(radius=5.0, start_distance=(3.0, 4.0))


@requires_larva
def test_taxis_pipeline_trains_and_deploys_on_the_kinematic_body(larva: Connectome) -> None:
    cfg = TaxisConfig(trials=6, train_trials=4, time_limit=1.5, start_distance=(4.0, 6.0))
    ctrl = ControllerConfig(modality="olfactory", update_steps=100)
    config = TaxisStudyConfig(taxis=cfg, controller=ctrl, nulls=0, mirror=False)
    rows, traces = run_study(larva, config, show=False)
    names = [r["condition"] for r in rows]
    assert names == ["teacher", "constant", "random", "connectome", "input-only"]
    conn = rows[-1]
    assert conn["trials"] == 6 and 0.0 <= conn["success_rate"] <= 1.0
    assert conn["train_r2"] > 0.0  # the readout explains part of the teacher's signal
    assert traces["connectome"].position.shape[1] == 6


@requires_larva
def test_saved_taxis_trials_are_reused_and_a_changed_readout_reruns(
    tmp_path: Path, larva: Connectome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One-fly trials saved as they end are read back bit for bit instead of rerun; a trial
    whose fingerprint (here: the mapping) differs is run again, a corrupt file too."""
    from wirelab.fly.mapping import LinearMapping
    from wirelab.fly.taxis import trials as taxis_trials
    from wirelab.fly.taxis.trials import TrialSpec, run_trials

    cfg = TaxisConfig(trials=3, train_trials=2, time_limit=0.6, start_distance=(4.0, 6.0))
    ctrl = ControllerConfig(modality="olfactory", update_steps=100)
    lin = LinearMapping(weight=np.array([[2.0, -2.0], [-2.0, 2.0]]), bias=np.ones(2))
    spec = lambda i, m: TrialSpec(i, "input-only", "connectome", cfg, ctrl, m, "kinematic")  # noqa: E731
    specs = [spec(i, lin) for i in range(3)]
    store = tmp_path / "trials"
    tr, res = run_trials(specs, ExecOptions(workers=1), store=store, condition="input-only")
    assert sorted(p.name for p in store.iterdir()) == [f"input-only_{i}.npz" for i in range(3)]

    ran: list[int] = []
    real = taxis_trials.trial

    def counted(s: TrialSpec) -> object:
        ran.append(s.index)
        return real(s)

    monkeypatch.setattr(taxis_trials, "trial", counted)
    tr2, res2 = run_trials(specs, ExecOptions(workers=1), store=store, condition="input-only")
    assert ran == [] and res2 == res
    assert np.array_equal(tr2.position, tr.position) and np.array_equal(tr2.dn, tr.dn, True)

    (store / "input-only_1.npz").write_bytes(b"not a zip")
    other = LinearMapping(weight=lin.weight * 2, bias=lin.bias)
    changed = [specs[0], specs[1], spec(2, other)]
    run_trials(changed, ExecOptions(workers=1), store=store, condition="input-only")
    assert ran == [1, 2]


@requires_larva
def test_taxis_resume_refuses_changed_settings(tmp_path: Path, larva: Connectome) -> None:
    from tests.clirun import wirelab

    out = tmp_path / "taxis"
    args = ("fly", "taxis", "--trials", "2", "--train-trials", "2", "--nulls", "0", "--no-mirror")
    r = wirelab(*args, "--time-limit", "0.5", "--out", out)
    assert r.returncode == 0, r.stderr
    r = wirelab(*args, "--time-limit", "0.6", "--out", out, "--resume")
    assert r.returncode == 2 and "time_limit: 0.5 -> 0.6" in r.stderr
    assert (out / "metrics.json").is_file()  # a refused resume loses nothing
    r = wirelab(*args, "--time-limit", "0.5", "--out", out, "--resume", "--overwrite")
    assert r.returncode == 2 and "exclude" in r.stderr
    before = (out / "metrics.json").read_bytes()
    r = wirelab(*args, "--time-limit", "0.5", "--out", out, "--resume", "--workers", "1")
    assert r.returncode == 2 and "complete run" in r.stderr  # same settings: nothing to resume
    assert (out / "metrics.json").read_bytes() == before


def _old_evaluate(trace: Trace, cfg: TaxisConfig, dt_u: float) -> dict[str, Any]:
    """`evaluate` before the arena existed (reached within ``radius``, whenever), as reference."""
    pos = np.concatenate([trace.position, np.asarray(trace.extra["final_position"])[None]])
    dist = np.linalg.norm(pos, axis=-1)
    reached = dist <= cfg.radius
    success = reached.any(axis=0)
    first = np.where(success, reached.argmax(axis=0), len(pos) - 1)
    steps = np.linalg.norm(np.diff(pos, axis=0), axis=-1)
    path = np.array([steps[: first[i], i].sum() for i in range(pos.shape[1])])
    eff = np.divide(dist[0] - cfg.radius, path, out=np.zeros_like(path), where=path > 0)
    return {
        "success": success.tolist(),
        "efficiency": eff[success].tolist(),
        "times": (first * dt_u)[success].tolist(),
        "final": dist[-1].tolist(),
    }


def _fly_trace(xs: list[float]) -> Trace:
    """One fly walking along x through ``xs`` (the last one is the final position)."""
    pos = np.array([[[x, 0.0]] for x in xs[:-1]])
    z = np.zeros((len(pos), 1, 2))
    return Trace(
        np.arange(len(pos), dtype=float),
        pos,
        np.zeros((len(pos), 1)),
        z,
        z,
        z,
        extra={"final_position": np.array([[xs[-1], 0.0]])},
    )


def test_a_fly_that_leaves_the_arena_fails_even_if_it_comes_back() -> None:
    cfg = TaxisConfig(radius=2.0, start_distance=(5, 10), arena_radius=20.0)
    res = evaluate(_fly_trace([10.0, 25.0, 15.0, 1.0]), cfg, dt_u=0.5)
    assert res["success"] == [False] and res["left_arena"] == [True]
    assert res["exit_time_s"] == [0.5] and res["arena_exits"] == 1
    assert res["final_distance_mm"] == 25.0  # taken at the exit
    res = evaluate(_fly_trace([10.0, 15.0, 1.0, 25.0]), cfg, dt_u=0.5)
    assert res["success"] == [True] and res["left_arena"] == [False]  # arrived first
    assert res["exit_time_s"] == [None] and res["time_to_source_s"] == 1.0


def test_flies_heading_out_of_the_arena_leave_and_stop_counting() -> None:
    """A kinematic batch: the fly at the edge facing away leaves within a fraction of a second
    (a failure, timed, scored at the exit); the one facing the source arrives."""
    cfg = TaxisConfig(trials=2, time_limit=3.0, start_distance=(5.0, 25.0), arena_radius=26.0)
    body = KinematicBody(
        batch=2,
        start_xy=np.array([[24.0, 0.0], [0.0, 6.0]]),
        start_heading=np.array([0.0, -np.pi / 2]),
        odor=source(cfg),
    )
    tr, res = deploy(cfg, "constant", body=body)
    assert res["left_arena"] == [True, False] and res["success"] == [False, True]
    exit_s = res["exit_time_s"][0]
    assert exit_s is not None and 0.05 < exit_s < 0.5
    assert np.linalg.norm(tr.position[-1, 0]) > 50  # the batch walked on; the score did not


def test_kinematic_results_of_flies_that_never_leave_are_unchanged() -> None:
    """Against the scoring before the arena: the same successes, path efficiencies, times and
    final distances for every fly that stays inside (here: all of them, and a huge arena)."""
    cfg = TaxisConfig(trials=40, time_limit=4.0, start_distance=(6.0, 8.0), seed=5)
    dt_u = round(ControllerConfig().update_interval / cfg.body_dt) * cfg.body_dt
    for policy in ("teacher", "constant"):
        tr, res = deploy(cfg, policy)
        old = _old_evaluate(tr, cfg, dt_u)
        stayed = ~np.array(res["left_arena"])
        assert 0 < stayed.sum() < 40  # (walking straight, most flies leave within 4 s)
        assert (
            np.array(res["success"])[stayed].tolist() == np.array(old["success"])[stayed].tolist()
        )
    cfg = TaxisConfig(
        trials=40, time_limit=4.0, start_distance=(6.0, 8.0), seed=5, arena_radius=1e6
    )
    tr, res = deploy(cfg, "teacher")
    old = _old_evaluate(tr, cfg, dt_u)
    assert res["arena_exits"] == 0 and res["success"] == old["success"]
    assert res["path_efficiency"] == np.mean(old["efficiency"])
    assert res["time_to_source_s"] == np.mean(old["times"])
    assert res["final_distance_mm"] == np.mean(old["final"])


def test_a_one_fly_trial_ends_at_the_arena_edge() -> None:
    """One-fly trials (the flygym path, here with the kinematic body) stop when the fly leaves;
    the input-only readout with zero weights walks straight (drives [1, 1])."""
    from wirelab.fly.mapping import LinearMapping
    from wirelab.fly.taxis.trials import TrialSpec, trial

    cfg = TaxisConfig(trials=4, time_limit=5.0, start_distance=(24.0, 25.0), arena_radius=25.5)
    ctrl = ControllerConfig(modality="olfactory", update_steps=50)  # an update every 5 ms
    walk = LinearMapping(weight=np.zeros((2, 2)), bias=np.ones(2))
    for i in range(4):
        spec = TrialSpec(i, "input-only", "connectome", cfg, ctrl, walk, "kinematic")
        tr, res = trial(spec)
        assert res["left_arena"][0] != res["success"][0], res  # one or the other ended it
        assert res["simulated_s"] < 4.0 and len(tr.time) < 800  # 5 s would be 1,000 updates
        if res["left_arena"][0]:
            assert res["exit_time_s"][0] == pytest.approx(len(tr.time) * 5e-3)


@pytest.mark.fly
def test_taxis_on_flygym2_smells_at_the_antennae_and_stops_at_source_or_edge(
    flygym2_ok: None,
) -> None:
    """flygym 2 in the taxis loop: the source on the fly's left smells stronger at the left
    funiculus, the teacher walks the fly to it; a fly at the edge facing out leaves at once."""
    from wirelab.fly.bodies.flygym2 import Flygym2Body
    from wirelab.fly.taxis.task import ended

    cfg = TaxisConfig(trials=1, time_limit=2.0, start_distance=(3.0, 25.0), arena_radius=25.2)
    body = Flygym2Body(start_xy=(4.0, 0.0), start_heading=np.pi / 2, odor=source(cfg))
    first = body.reset().odor
    assert first is not None and first[0] > first[1]  # facing +y, the origin lies to the left
    tr, res = deploy(cfg, "teacher", body=body, stop=ended(cfg))
    assert res["success"] == [True] and res["left_arena"] == [False], res
    assert tr.time[-1] < 1.9  # stopped at the source
    body = Flygym2Body(start_xy=(24.0, 0.0), start_heading=0.0, odor=source(cfg))
    tr, res = deploy(cfg, "constant", body=body, stop=ended(cfg))
    assert res["left_arena"] == [True] and res["success"] == [False], res
    exit_s = res["exit_time_s"][0]  # the thorax starts 0.55 mm ahead of start_xy on flygym 2
    assert exit_s is not None and 0.0 < exit_s < 0.3 and tr.time[-1] < 0.3
