"""The choice study on flygym: which trials run, how they are put back, the per-start outcomes;
one flygym 2 trial end to end where the fly environment is this interpreter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.clirun import one_line_error, wirelab
from wirelab.fly.choice.flygym_study import collect, compare_bodies, pad, specs
from wirelab.fly.choice.network import NetworkConfig
from wirelab.fly.choice.study import ChoiceStudyConfig
from wirelab.fly.choice.task import ChoiceConfig, starts
from wirelab.fly.mapping import LinearMapping


def _w(m: LinearMapping | None) -> float:
    assert m is not None
    return float(m.weight[0, 0])


def _mapping(x: float) -> LinearMapping:
    return LinearMapping(weight=np.full((1, 2), x), bias=np.ones(2))


def _kinematic(gains: tuple[float, ...], n: int) -> dict[str, Any]:
    """A kinematic `run_study` result (the fields the flygym step reads) for n test starts."""

    def net(tag: float) -> dict[str, Any]:
        return {
            "by_gain": [{"gain": g, "success": [True] * n, "contact": [False] * n} for g in gains],
            "left_arena": [[False] * n for _ in gains],
            "mappings": [_mapping(tag + g) for g in gains],
            "lateral": {"attractive": list(gains), "aversive": list(gains)},
        }

    base = {"by_gain": [{"gain": None, "success": [False] * n, "contact": [False] * n}]}
    return {
        "connectome": net(0.0),
        "input-control": net(10.0),
        "teacher": {**base, "left_arena": [[False] * n], "mappings": []},
        "merged": {**base, "left_arena": [[True] * n], "mappings": [_mapping(-1.0)]},
        "null-1000": net(20.0),
    }


CONFIG = ChoiceStudyConfig(
    task=ChoiceConfig(trials=3, train_trials=4),
    network=NetworkConfig(gains=(0.6, 1.0, 1.4)),
    gain=1.0,
    null_family="degree-boundary",
    body="flygym",
    timestep=2e-4,
    video=Path("v.mp4"),
)


def test_specs_deploy_each_networks_kinematic_mapping_at_the_connectomes_gain() -> None:
    todo = specs(CONFIG, _kinematic(CONFIG.network.gains, 3))
    assert list(todo) == ["connectome", "input-control", "teacher", "merged", "null-1000"]
    assert all([s.index for s in ss] == [0, 1, 2] for ss in todo.values())
    c, ic, t, m, n = (todo[k][1] for k in todo)
    assert c.policy == "readout" and c.gain == 1.0 and not c.swap and c.family is None
    assert _w(c.mapping) == 1.0  # gain 1.0's mapping, not 0.6's or 1.4's
    assert ic.swap and _w(ic.mapping) == 11.0
    assert n.family == "degree-boundary" and n.seed == 1000 and _w(n.mapping) == 21
    assert t.policy == "teacher" and t.mapping is None and t.gain is None
    assert m.policy == "merged" and _w(m.mapping) == -1.0
    assert all(s.timestep == 2e-4 for ss in todo.values() for s in ss)
    videos = [(k, s.index) for k, ss in todo.items() for s in ss if s.video]
    assert videos == [("connectome", 0)] and todo["connectome"][0].video == "v.mp4"


def _trial(success: bool, left: bool, steps: int) -> dict[str, Any]:
    scores = {
        "success": [success],
        "contact": [False],
        "left_arena": [left],
        "closest_aversive_mm": [5.0],
        "time_to_goal_s": [1.0 if success else None],
        "path_efficiency": [0.5 if success else None],
        "end_time_s": [steps * 0.01],
    }
    pos = np.cumsum(np.ones((steps + 1, 2), dtype=np.float32), axis=0)
    return {"scores": scores, "position": pos, "wall_s": 2.0, "simulated_s": steps * 0.01}


def test_collect_and_compare_bodies_put_flygym_trials_beside_the_kinematic_ones() -> None:
    kin = _kinematic(CONFIG.network.gains, 3)
    fly_trials = {
        "connectome": [_trial(True, False, 5), _trial(False, True, 9), _trial(True, False, 2)],
        "merged": [_trial(False, True, 4), _trial(False, False, 6), _trial(False, True, 3)],
    }
    fly = collect(fly_trials, CONFIG, kin)
    row = fly["connectome"]["by_gain"][0]
    assert row["gain"] == 1.0 and row["success"] == [True, False, True]
    assert row["success_rate"] == pytest.approx(2 / 3) and row["arena_exits"] == 1
    assert fly["merged"]["by_gain"][0]["gain"] is None and "lateral" not in fly["merged"]
    assert fly["connectome"]["lateral"] == kin["connectome"]["lateral"]
    assert fly["connectome"]["paths"][0].shape == (10, 3, 2)  # padded to the longest trial
    assert fly["connectome"]["seconds"]["total"] == pytest.approx(6.0)
    per = compare_bodies(kin, fly, CONFIG)
    assert per["connectome"]["kinematic"] == ["goal"] * 3
    assert per["connectome"]["flygym"] == ["goal", "left", "goal"]
    assert per["connectome"]["same_outcome"] == 2
    assert per["merged"]["kinematic"] == ["left"] * 3  # the baseline's one entry
    assert per["merged"]["flygym"] == ["left", "time", "left"]
    assert per["merged"]["same_outcome"] == 2 and per["merged"]["same_success"] == 3


def test_pad_repeats_each_shorter_trials_last_position() -> None:
    p = pad([np.zeros((2, 2)), np.ones((4, 2))])
    assert p.shape == (4, 2, 2) and (p[:, 0] == 0).all() and (p[:, 1] == 1).all()


def test_video_on_the_kinematic_body_is_a_one_line_error(tmp_path: Path) -> None:
    r = wirelab("fly", "choice", "--video", str(tmp_path / "v.mp4"), "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and one_line_error(r) and "--video" in r.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.fly
def test_one_flygym_trial_reads_both_sources_and_ends_at_an_event(
    flygym2_ok: None, tmp_path: Path
) -> None:
    """flygym 2: the cues at the funiculi follow the kinematic law (the attractive source on
    the fly's side is stronger there), and a teacher trial is scored as the kinematic run's."""
    from wirelab.data.connectomes import load_connectome
    from wirelab.fly.bodies.flygym2 import ANTENNA_Z, Flygym2Body
    from wirelab.fly.bodies.kinematic import KinematicBody
    from wirelab.fly.choice.flygym_trials import FlyTrial, flygym_cues, trial
    from wirelab.fly.choice.jobs import Setup
    from wirelab.fly.choice.task import cues

    cfg = ChoiceConfig(trials=2, train_trials=2, time_limit=0.3)
    st = starts(cfg, 2, cfg.seed).pick(0)
    body = Flygym2Body(start_heading=float(st.heading[0]))
    try:
        obs = body.reset()
        c = flygym_cues(body.antennae(), st, cfg.source_height, ANTENNA_Z)  # (1, 4)
    finally:
        body.close()
    side = int(st.side[0])  # +1: attractive on the left
    assert (c[0, 0] - c[0, 1]) * side > 0 and (c[0, 2] - c[0, 3]) * side < 0
    kin = KinematicBody(batch=1)  # its antennae: calibrated on flygym 2
    pos, heading = obs.position[None], np.atleast_1d(obs.heading)
    flat = cues(st, pos, heading, kin.antenna_forward, kin.antenna_lateral, cfg.source_height)
    assert np.allclose(c, flat, rtol=0.02)  # the same law at (about) the same antennae
    setup = Setup(load_connectome("larva"), cfg, NetworkConfig())
    video = tmp_path / "t.mp4"
    out = trial(setup, FlyTrial("teacher", 0, "teacher", timestep=1e-4, video=str(video)))
    assert out["scores"]["end_time_s"] == [pytest.approx(0.3)]  # 0.3 s: no event yet
    assert out["position"].shape == (31, 2) and 0.2 < out["simulated_s"] < 0.31
    assert video.stat().st_size > 0 and video.with_suffix(".png").stat().st_size > 0
