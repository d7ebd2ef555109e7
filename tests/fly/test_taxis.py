"""Closed-loop taxis on the kinematic body (small and fast) and its pieces."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import requires_larva
from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.fly.controller import ControllerConfig
from wirelab.fly.taxis.study import run_study
from wirelab.fly.taxis.task import TaxisConfig, deploy, encode, evaluate, starts, teacher, wilson


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
    from wirelab.fly.loop import Trace

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
    rows, traces = run_study(larva, ctrl, cfg, n_nulls=0, mirror=False)
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
    tr, res = run_trials(specs, workers=1, store=store, condition="input-only")
    assert sorted(p.name for p in store.iterdir()) == [f"input-only_{i}.npz" for i in range(3)]

    ran: list[int] = []
    real = taxis_trials.trial

    def counted(s: TrialSpec) -> object:
        ran.append(s.index)
        return real(s)

    monkeypatch.setattr(taxis_trials, "trial", counted)
    tr2, res2 = run_trials(specs, workers=1, store=store, condition="input-only")
    assert ran == [] and res2 == res
    assert np.array_equal(tr2.position, tr.position) and np.array_equal(tr2.dn, tr.dn, True)

    (store / "input-only_1.npz").write_bytes(b"not a zip")
    other = LinearMapping(weight=lin.weight * 2, bias=lin.bias)
    changed = [specs[0], specs[1], spec(2, other)]
    run_trials(changed, workers=1, store=store, condition="input-only")
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
    r = wirelab(*args, "--time-limit", "0.5", "--out", out, "--resume", "--workers", "1")
    assert r.returncode == 0, r.stderr
