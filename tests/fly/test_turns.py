"""The evoked mapping, the turn study on the kinematic body, early stop, and one short flygym
check that left and right evoked drives turn NeuroMechFly in opposite directions."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.clirun import wirelab
from tests.conftest import requires_larva
from wirelab.fly.controller import ConnectomeController, ControllerConfig
from wirelab.fly.mapping import FixedMapping, baseline_input
from wirelab.parallel import ExecOptions


def test_baseline_inputs() -> None:
    u = np.array([[1.0, 0.0], [0.2, 0.6]])
    assert np.allclose(baseline_input(u, "swapped"), np.array([[0.0, 1.0], [0.6, 0.2]]))
    assert np.allclose(baseline_input(u, "symmetric"), [[0.5, 0.5], [0.4, 0.4]])
    assert np.allclose(baseline_input(u, "none"), 0)
    m = FixedMapping(gain=2.0, offset=1.0, response="evoked")
    assert m.networks_per_fly == 2 and m.inputs(u).shape == (4, 2)
    dn = np.array([[0.3, 0.1], [0.2, 0.2], [0.1, 0.3], [0.2, 0.2]])
    assert np.allclose(m(dn, None), [[1.4, 0.6], [1.0, 1.0]])  # type: ignore[arg-type]


@requires_larva
def test_evoked_response_removes_the_shared_bias(larva: object) -> None:
    """Direct: both one-sided stimuli raise the left DN-VNC more. Evoked: opposite signs; no
    stimulus and symmetric stimulation give the resting drive exactly."""
    from wirelab.data.connectomes import load_connectome

    con = load_connectome("larva")
    u = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [1.0, 1.0]])
    for baseline in ("swapped", "symmetric"):
        m = FixedMapping(gain=10.0, response="evoked", baseline=baseline)
        ctrl = ConnectomeController(con, ControllerConfig(), batch=2 * len(u))
        for _ in range(20):
            dn, f = ctrl.update(m.inputs(u))
        direct = dn[: len(u)]
        assert direct[0, 0] > direct[0, 1] and direct[1, 0] > direct[1, 1]  # the bias
        e = m.evoked(dn)
        assert np.sign(e[0, 0] - e[0, 1]) == -np.sign(e[1, 0] - e[1, 1]) != 0, baseline
        assert np.allclose(m(dn, f)[2:], 1.0)  # control and both sides: [offset, offset]


@requires_larva
def test_turns_on_the_kinematic_body(tmp_path: Path, larva: object) -> None:
    out = tmp_path / "turns"
    args = ["fly", "turns", "--body", "kinematic", "--no-video", "--workers", "1"]
    args += ["--seeds", "2", "--settle", "0.1", "--duration", "0.5"]
    r = wirelab(*args, "--out", out)
    assert r.returncode == 0, r.stderr
    m = json.loads((out / "metrics.json").read_text())
    rows = {(x["model"], x["condition"]): x for x in m["table"]}
    left, right = rows["row", "left"], rows["row", "right"]
    assert left["turn"]["mean"] < 0 < right["turn"]["mean"]  # ipsilateral: away from stimulus
    assert rows["row", "left-right"]["turn"]["mean"] < 0
    assert rows["(all)", "control"]["turn"]["mean"] == pytest.approx(0.0, abs=1e-9)
    assert {"headings.png", "turns.png"} <= {p.name for p in out.iterdir()}
    assert m["timing"]["runs"] == 6


@requires_larva
def test_a_killed_turn_study_resumes_from_its_saved_runs(tmp_path: Path, larva: object) -> None:
    """Saved runs are reused, the table equals an uninterrupted study's, and changed settings
    are refused with the difference named; a saved run that does not read back (or whose
    fingerprint differs) is run again (`wirelab.fly.store`'s policy)."""
    from wirelab.fly.turns.runs import RUNS, load_run
    from wirelab.fly.turns.study import TurnsConfig

    out = tmp_path / "turns"
    args = ["fly", "turns", "--body", "kinematic", "--no-video", "--workers", "1"]
    args += ["--seeds", "2", "--settle", "0.1", "--duration", "0.3"]
    assert wirelab(*args, "--out", out).returncode == 0
    full = json.loads((out / "metrics.json").read_text())
    store = out / RUNS
    saved = sorted(p.name for p in store.glob("*.npz"))
    assert len(saved) == 6
    specs = TurnsConfig(seeds=2, settle=0.1, duration=0.3, body="kinematic", video=False).specs()
    assert sorted(f"{s.name()}.npz" for s in specs) == saved
    run = load_run(store, specs[0])
    assert run is not None and run["time"].ndim == 1
    other = replace(specs[0], duration=0.4)
    assert other.name() == specs[0].name() and load_run(store, other) is None
    # as if killed after four runs: two runs gone, the directory marked in progress
    for p in sorted(store.glob("*.npz"))[:2]:
        p.unlink()
    (out / "metrics.json").unlink()
    (out / ".in-progress").write_text("{}")
    r = wirelab(*args, "--out", out, "--resume")
    assert r.returncode == 0, r.stderr
    again = json.loads((out / "metrics.json").read_text())
    assert again["table"] == full["table"]
    t = again["timing"]  # both parts' seconds: the first's whole, then the resumed part's
    assert (t["parts"], t["runs_run"], t["runs_loaded"]) == (2, 2, 4)
    assert t["earlier_wall_s"] == full["timing"]["wall_s"] > 0
    assert t["wall_s"] == pytest.approx(t["earlier_wall_s"] + t["part_wall_s"])
    r = wirelab(*args[:-2], "--duration", "0.4", "--out", out, "--resume")
    assert r.returncode == 2 and "duration: 0.3 -> 0.4" in r.stderr
    (store / saved[0]).write_bytes(b"not a zip")
    (out / "metrics.json").unlink()
    r = wirelab(*args, "--out", out, "--resume")
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "metrics.json").read_text())["table"] == full["table"]
    assert all(load_run(store, s) is not None for s in specs)  # the corrupt run was rerun


@requires_larva
def test_resuming_a_finished_study_reports_the_seconds_it_took(
    tmp_path: Path, larva: object
) -> None:
    """Every run saved, the study marked unfinished (killed while drawing, say): ``--resume``
    loads all six and reports the first part's seconds, from the part log or (a study saved
    without one) its old metrics.json; with neither, the time is None and said unrecorded."""
    out = tmp_path / "turns"
    args = ["fly", "turns", "--body", "kinematic", "--no-video", "--workers", "1"]
    args += ["--seeds", "2", "--settle", "0.1", "--duration", "0.3"]
    assert wirelab(*args, "--out", out).returncode == 0
    first = json.loads((out / "metrics.json").read_text())["timing"]
    assert first["wall_s"] > 0 and first["parts"] == 1 and first["runs_run"] == 6
    assert first["run_cpu_s_sum"] > 0

    def resume(drop: tuple[str, ...]) -> tuple[dict[str, Any], str]:
        for name in drop:
            (out / name).unlink()
        (out / ".in-progress").write_text("{}")
        r = wirelab(*args, "--out", out, "--resume")
        assert r.returncode == 0, r.stderr
        return json.loads((out / "metrics.json").read_text())["timing"], r.stdout

    t, stdout = resume(("metrics.json",))
    assert (t["runs"], t["runs_run"], t["runs_loaded"], t["parts"]) == (6, 0, 6, 2)
    assert t["earlier_wall_s"] == first["wall_s"]  # not the new part's ~0 s
    assert t["wall_s"] == pytest.approx(first["wall_s"] + t["part_wall_s"])
    assert t["run_wall_s_sum"] == first["run_wall_s_sum"]
    assert t["run_cpu_s_sum"] == first["run_cpu_s_sum"]
    assert f"6 runs (all done before; {first['wall_s']:.0f} s when run)" in stdout
    # a study saved before the part log: its metrics.json's timing had runs and wall_s only
    old = {"runs": 6, "wall_s": first["wall_s"], "step_ms_median": 0.1}
    (out / "metrics.json").write_text(json.dumps({"timing": old}))
    legacy, _ = resume(("runs/parts.json",))
    assert legacy["earlier_wall_s"] == first["wall_s"] and legacy["parts"] == 2
    unknown, stdout = resume(("runs/parts.json", "metrics.json"))
    assert unknown["wall_s"] is None and unknown["earlier_wall_s"] is None
    assert unknown["run_wall_s_sum"] == first["run_wall_s_sum"] > 0
    assert "6 saved before, their wall time not recorded" in stdout


def test_a_taxis_trial_stops_at_the_source() -> None:
    from wirelab.fly.taxis.task import TaxisConfig
    from wirelab.fly.taxis.trials import TrialSpec, run_trials

    cfg = TaxisConfig(trials=2, time_limit=5.0, start_distance=(2.6, 2.8), heading_noise=0.0)
    specs = [
        TrialSpec(i, "teacher", "connectome", cfg, ControllerConfig(), None, body="kinematic")
        for i in range(2)
    ]
    trace, res = run_trials(specs, ExecOptions(workers=1))
    assert res["successes"] >= 1
    # a trial that reached the source stopped there instead of running to the 5 s limit
    assert res["simulated_s_mean"] < 5.0
    assert trace.position.shape[1] == 2


@requires_larva
@pytest.mark.fly
def test_flygym_left_and_right_evoked_drives_turn_opposite_ways(
    flygym2_ok: None, larva: object
) -> None:
    from wirelab.fly.turns.runs import RunSpec, run_one

    turns = {}
    for side in ("left", "right"):
        mapping = FixedMapping(gain=60.0, response="evoked")
        spec = RunSpec("row", side, 0, 0.0, 0.2, mapping, ControllerConfig())
        r = run_one(spec)
        assert r["mean_signal"][0] != pytest.approx(r["mean_signal"][1], abs=0.1)
        turns[side] = r["turn_deg"]
    # left stimulation raises the left DN-VNC (ipsilateral): stronger left legs, clockwise turn
    assert turns["left"] < 0 < turns["right"], turns


@pytest.mark.fly
def test_timestep_validation_compares_speed_and_yaw_rate(flygym_ok: None) -> None:
    """The reference step against itself is exact (same seed); the check reports per drive."""
    from wirelab.fly.bodies.timestep import validate_timestep

    r = validate_timestep(
        1e-4,
        grid=((1.2, 0.4),),
        duration=0.3,
        settle=0.1,
        options=ExecOptions(workers=1),
        body="flygym1",
    )
    (row,) = r["rows"]
    assert r["ok"] and row["v_rel_error"] == 0 and row["omega_rel_error"] == 0
    assert row["omega_ref"] < 0 < row["v_ref"]  # a larger left drive turns clockwise


@pytest.mark.slow
@pytest.mark.fly
def test_a_timestep_of_2e4_is_not_within_5_percent(flygym_ok: None) -> None:
    """Covered by `wirelab fly timestep --body flygym1 --timestep 2e-4` (docs/fly.md): on
    flygym 1.2.1 it fails the 5% check."""
    from wirelab.fly.bodies.timestep import validate_timestep

    assert not validate_timestep(2e-4, duration=0.6, settle=0.2, body="flygym1")["ok"]
