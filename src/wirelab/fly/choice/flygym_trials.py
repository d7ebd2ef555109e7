"""One choice test trial on NeuroMechFly (flygym 2), one fly per job: the readout fitted on the
kinematic body drives `wirelab.fly.bodies.flygym2.Flygym2Body` from one test start.

The loop is `wirelab.fly.choice.episode.run_episode`'s for one fly: every ``K`` physics steps
(``K = update_interval / timestep``, 100 x 0.1 ms = 10 ms as on the kinematic body) it reads the
four cues at the two funiculi (`flygym_cues`), encodes them (`wirelab.fly.choice.task.encode`),
advances the network (one gain, one fly; `ChoiceNetwork`), asks the policy
(`wirelab.fly.choice.episode.POLICIES`) for the signal and holds it for ``K`` steps. The trial
ends at the first event (goal within ``radius``, the aversive source within ``contact_radius``,
farther than ``arena_radius`` from the start) or at ``time_limit``, and is scored by the kinematic
run's `wirelab.fly.choice.task.evaluate` on the positions at the updates ``(S+1, 1, 2)``.

Both sources are read with flygym's law (`Flygym2Body.odor_at`'s, one source at a time) at the
funiculi ``a`` ``(2, 3)`` (`Flygym2Body.antennae`), each source at ``ANTENNA_Z + h`` above it::

    I_k(a) = 1 / |a - (x_k, y_k, ANTENNA_Z + h)|^2  ~=  1 / (r^2 + h^2)
    c = [A_L, A_R, V_L, V_R]                                   # (1, 4)

Call (in the fly environment)::

    out = trial(Setup(con, task, network), FlyTrial("connectome", 0, "readout", mapping=m))
    out["scores"]["success"]        # [True] or [False]; out["position"]: (S+1, 2)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.fly.choice.episode import POLICIES
from wirelab.fly.choice.jobs import Setup
from wirelab.fly.choice.network import ChoiceNetwork
from wirelab.fly.choice.task import Starts, encode, evaluate, starts
from wirelab.fly.mapping import LinearMapping

VIDEO_PLAY_SPEED = 0.5  # the MP4 at half speed: 60 frames per simulated second, played at 30 fps
_WEIGHTS: dict[tuple[int, str, int], sp.spmatrix] = {}


@dataclass(frozen=True)
class FlyTrial:
    """Condition ``condition``'s test start ``index`` under ``policy``; a network is the
    connectome (``family`` None) or ``NULLS.get(family)(con, seed)``, ``swap`` the input control,
    at gain ``gain`` with its kinematic ``mapping``. ``video``: MP4 path of this trial."""

    condition: str
    index: int
    policy: str
    family: str | None = None
    seed: int = 0
    swap: bool = False
    gain: float | None = None
    mapping: LinearMapping | None = None
    timestep: float = 1e-4
    video: str | None = None


def flygym_cues(antennae: np.ndarray, st: Starts, height: float, z: float) -> np.ndarray:
    """``(1, 4)`` ``[A_L, A_R, V_L, V_R]`` at the funiculi ``antennae`` ``(2, 3)`` of one fly
    (``st`` one start), each source ``height`` above the funiculus height ``z`` (module law)."""
    out = []
    for src in (st.attractive[0], st.aversive[0]):
        d = antennae - np.array([src[0], src[1], z + height])  # (2, 3)
        out.append(1.0 / np.einsum("ij,ij->i", d, d))
    return np.concatenate(out)[None]


def _network(setup: Setup, spec: FlyTrial) -> ChoiceNetwork | None:
    """The trial's network at its one gain (None for a baseline); null weights kept per process."""
    if spec.policy != "readout":
        return None
    from wirelab.reservoir.nulls import NULLS

    weights = None
    if spec.family is not None:
        key = (id(setup.con), spec.family, spec.seed)
        if key not in _WEIGHTS:
            _WEIGHTS.clear()  # one null at a time: a worker's trials come network by network
            _WEIGHTS[key] = NULLS.get(spec.family)(setup.con, spec.seed)
        weights = _WEIGHTS[key]
    assert spec.gain is not None
    ncfg = replace(setup.network, gains=(spec.gain,))
    return ChoiceNetwork(setup.con, ncfg, 1, weights=weights, swap=spec.swap)


def trial(setup: Setup, spec: FlyTrial) -> dict[str, Any]:
    """Run ``spec`` (module docstring): ``scores`` (`evaluate`'s lists of one trial),
    ``position`` ``(S+1, 2)`` float32, ``wall_s``, ``simulated_s``; writes the video and its
    frame strip (`write_strip`) when ``spec.video`` is set."""
    from wirelab.fly.bodies.flygym2 import ANTENNA_Z, Flygym2Body

    t0 = time.perf_counter()
    cfg = setup.task
    st = starts(cfg, cfg.trials, cfg.seed).pick(spec.index)
    body = Flygym2Body(
        start_xy=(float(st.xy[0, 0]), float(st.xy[0, 1])),
        start_heading=float(st.heading[0]),
        timestep=spec.timestep,
        seed=cfg.seed + spec.index,
        video=spec.video,
        play_speed=VIDEO_PLAY_SPEED,
    )
    try:
        net = _network(setup, spec)
        maps = [spec.mapping] if spec.mapping is not None else []
        act = POLICIES[spec.policy]
        k = max(1, round(setup.network.update_interval / body.dt))
        dt_u = k * body.dt
        obs = body.reset()
        rows = []
        for _ in range(max(1, round(cfg.time_limit / dt_u))):
            c = flygym_cues(body.antennae(), st, cfg.source_height, ANTENNA_Z)
            u = encode(cfg, c)
            feats = None if net is None else net.update(u[None]).reshape(1, -1)
            signal = act(cfg, maps, c, u, feats)[0]
            rows.append(np.array(obs.position))
            for _ in range(k):
                obs = body.act(signal)
            p = obs.position
            if (
                np.linalg.norm(p - st.attractive[0]) <= cfg.radius
                or np.linalg.norm(p - st.aversive[0]) <= cfg.contact_radius
                or np.linalg.norm(p - st.xy[0]) > cfg.arena_radius
            ):
                break
        rows.append(np.array(obs.position))
        pos = np.stack(rows)  # (S+1, 2)
        scores = evaluate(pos[:, None], st, cfg, dt_u)
        if spec.video:
            write_strip(body.frames, pos, st, Path(spec.video).with_suffix(".png"))
        simulated = float(obs.time)
    finally:
        body.close()
    return {
        "scores": scores,
        "position": pos.astype(np.float32),
        "wall_s": time.perf_counter() - t0,
        "simulated_s": simulated,
    }


def write_strip(frames: list[np.ndarray], pos: np.ndarray, st: Starts, path: Path) -> None:
    """A PNG of four evenly spaced tracking-camera frames ``(H, W, 3)`` beside the trajectory
    ``pos`` ``(S+1, 2)`` with the attractive (green) and aversive (red) sources of ``st``."""
    from wirelab.plotting import pyplot

    plt = pyplot()
    picks = np.linspace(0, len(frames) - 1, 4).astype(int).tolist() if frames else []
    fig, axes = plt.subplots(1, 5, figsize=(20, 3.6), dpi=80)
    for ax, i in zip(axes[:4], picks, strict=False):
        ax.imshow(frames[i])
        ax.set_title(f"frame {i + 1} of {len(frames)}", fontsize=9)
    for ax in axes[:4]:
        ax.axis("off")
    ax = axes[4]
    ax.plot(pos[:, 0], pos[:, 1], color="k", lw=1.2, label="fly")
    ax.plot(*st.attractive[0], "o", color="tab:green", ms=9, label="attractive")
    ax.plot(*st.aversive[0], "X", color="tab:red", ms=9, label="aversive")
    ax.plot(*pos[0], "^", color="0.5", label="start")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x (mm)")
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
