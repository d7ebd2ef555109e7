"""Closed-loop episodes of the choice task on the kinematic body: train a readout, then test it.

One episode runs ``G x B`` kinematic flies at once (`wirelab.fly.bodies.kinematic`): block ``g``
of ``B`` flies is driven by the network at gain ``alpha_g`` (`ChoiceNetwork`), every block from
the same ``B`` starts (`Starts.tile`). Every ``K`` body steps (``K = update_interval / body_dt``)
the loop reads the four cues (`cues`), encodes them (`encode`), advances the network, asks the
policy for the signal and holds it for ``K`` steps; it stops once every fly has reached the
attractive source, touched the aversive one or left the arena (`run_episode`).

Training (`train`, the same for every network, connectome and null alike: same starts, same
teacher, same exploration noise, same ridge grid and folds): the teacher's turn plus
Ornstein-Uhlenbeck exploration noise drives the flies; the readout features of each gain up to
each fly's first event, and the clean teacher signal ``(2,)`` at the same moments, are fitted by
ridge regression (`wirelab.fly.mapping.fit_ridge_cv`, penalty by leave-flies-out CV), one
``W (F, 2), b (2,)`` per gain::

    signal = features @ W + b          # (B, 2); ``sums``: 2 x 2 weights + 2 biases per gain

``merged`` (the routing-free control, no network): the features are the encoded cues summed per
side, ``[u_AL + u_VL, u_AR + u_VR]``, fitted the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wirelab.fly.bodies.kinematic import KinematicBody
from wirelab.fly.choice.network import ChoiceNetwork
from wirelab.fly.choice.task import (
    ChoiceConfig,
    Starts,
    cues,
    encode,
    evaluate,
    steer,
    teacher,
    teacher_turn,
)
from wirelab.fly.mapping import LinearMapping, fit_ridge_cv

Decide = Callable[[np.ndarray, np.ndarray, np.ndarray | None], np.ndarray]


@dataclass
class Episode:
    """Positions ``(S+1, G*B, 2)`` (row ``i`` at ``i * dt_u``), cues and inputs ``(S, G*B, 4)``,
    features ``(S, G*B, F)`` (None without a network)."""

    position: np.ndarray
    cues: np.ndarray
    inputs: np.ndarray
    features: np.ndarray | None
    dt_u: float


def merged_features(u: np.ndarray) -> np.ndarray:
    """The routing-free control's features: ``(B, 4)`` cues -> ``(B, 2)`` per-side sums."""
    return np.stack([u[:, 0] + u[:, 2], u[:, 1] + u[:, 3]], axis=-1)


def run_episode(
    cfg: ChoiceConfig,
    st: Starts,
    decide: Decide,
    network: ChoiceNetwork | None = None,
    update_interval: float = 5e-3,
    seed: int = 0,
) -> Episode:
    """Run the flies of ``st`` (``G*B`` of them) until ``time_limit`` or every fly's end."""
    n = len(st.side)
    body = KinematicBody(
        batch=n,
        dt=cfg.body_dt,
        start_xy=st.xy,
        start_heading=st.heading,
        heading_noise=cfg.heading_noise,
        seed=seed,
    )
    k = max(1, round(update_interval / body.dt))
    dt_u = k * body.dt
    obs = body.reset()
    if network is not None:
        network.reset()
    rows: dict[str, list[np.ndarray]] = {"position": [], "cues": [], "inputs": [], "features": []}
    done = np.zeros(n, dtype=bool)
    for _ in range(max(1, round(cfg.time_limit / dt_u))):
        c = cues(
            st,
            obs.position,
            obs.heading,
            body.antenna_forward,
            body.antenna_lateral,
            cfg.source_height,
        )  # (n, 4)
        u = encode(cfg, c)
        feats = None
        if network is not None:
            g = len(network.cfg.gains)
            feats = network.update(u.reshape(g, n // g, 4)).reshape(n, -1)
            rows["features"].append(feats.astype(np.float32))
        signal = decide(c, u, feats)
        for key, value in (("position", obs.position), ("cues", c), ("inputs", u)):
            rows[key].append(np.array(value))
        for _ in range(k):
            obs = body.act(signal)
        p = obs.position
        done |= np.linalg.norm(p - st.attractive, axis=-1) <= cfg.radius
        done |= np.linalg.norm(p - st.aversive, axis=-1) <= cfg.contact_radius
        done |= np.linalg.norm(p - st.xy, axis=-1) > cfg.arena_radius
        if done.all():
            break
    rows["position"].append(np.array(obs.position))
    return Episode(
        position=np.stack(rows["position"]),
        cues=np.stack(rows["cues"]),
        inputs=np.stack(rows["inputs"]),
        features=np.stack(rows["features"]) if rows["features"] else None,
        dt_u=dt_u,
    )


def _ou(cfg: ChoiceConfig, n: int, dt_u: float, seed: int) -> Callable[[], np.ndarray]:
    """Ornstein-Uhlenbeck exploration noise ``(n,)``, advanced by one update per call."""
    rng = np.random.default_rng(seed)
    state = np.zeros(n)

    def advance() -> np.ndarray:
        nonlocal state
        state = (
            state
            - state * dt_u / cfg.explore_tau
            + cfg.explore_sigma * np.sqrt(2 * dt_u / cfg.explore_tau) * rng.standard_normal(n)
        )
        return state

    return advance


def train(
    cfg: ChoiceConfig,
    st: Starts,
    g: int,
    network: ChoiceNetwork | None,
    update_interval: float,
) -> tuple[list[LinearMapping], list[dict[str, Any]]]:
    """One ridge readout per gain block (module docstring); ``st`` holds the ``B`` training
    starts (tiled ``g`` times here). ``network`` None: the ``merged`` control (``g`` = 1)."""
    tiled = st.tile(g)
    n = len(tiled.side)
    noise = _ou(cfg, n, update_interval, cfg.seed + 20_000)

    def decide(c: np.ndarray, u: np.ndarray, f: np.ndarray | None) -> np.ndarray:
        return steer(cfg, np.clip(teacher_turn(cfg, c) + noise(), -1, 1))

    ep = run_episode(cfg, tiled, decide, network, update_interval, seed=cfg.seed + 10_000)
    ends = np.asarray(evaluate(ep.position, tiled, cfg, ep.dt_u)["end_time_s"]) / ep.dt_u
    s = len(ep.cues)
    keep = np.arange(s)[:, None] <= np.round(ends)[None]  # (S, n): up to each fly's first event
    feats = ep.features if ep.features is not None else _merged(ep.inputs)
    y_all = teacher(cfg, ep.cues.reshape(-1, 4)).reshape(s, n, 2)
    b = n // g
    mappings, infos = [], []
    for j in range(g):
        cols = slice(j * b, (j + 1) * b)
        mask = keep[:, cols]
        x, y = feats[:, cols][mask], y_all[:, cols][mask]
        groups = np.broadcast_to(np.arange(b), (s, b))[mask]
        mapping, ridge, _ = fit_ridge_cv(x, y, groups)
        r2 = 1 - np.sum((mapping(None, x) - y) ** 2) / np.sum((y - y.mean(axis=0)) ** 2)  # type: ignore[arg-type]
        mappings.append(mapping)
        infos.append({"ridge": ridge, "train_r2": float(r2), "samples": int(mask.sum())})
    return mappings, infos


def _merged(inputs: np.ndarray) -> np.ndarray:
    s, n, _ = inputs.shape
    return merged_features(inputs.reshape(-1, 4)).reshape(s, n, 2)


def _by_gain(x: np.ndarray | None, mappings: Sequence[LinearMapping]) -> np.ndarray:
    """Gain block ``j`` of the features ``x`` ``(G*B, F)`` through ``mappings[j]``."""
    assert x is not None
    b = len(x) // len(mappings)
    return np.concatenate([m(None, x[j * b : (j + 1) * b]) for j, m in enumerate(mappings)])  # type: ignore[arg-type]


Policy = Callable[[ChoiceConfig, Sequence[LinearMapping], np.ndarray, np.ndarray, Any], np.ndarray]
POLICIES: dict[str, Policy] = {
    "teacher": lambda cfg, maps, c, u, f: teacher(cfg, c),
    "constant": lambda cfg, maps, c, u, f: np.ones((len(c), 2)),
    "readout": lambda cfg, maps, c, u, f: _by_gain(f, maps),
    "merged": lambda cfg, maps, c, u, f: _by_gain(merged_features(u), maps),
}
"""Test policies: ``(cfg, mappings, cues (n, 4), inputs (n, 4), features (n, F)) -> (n, 2)``."""


def test(
    cfg: ChoiceConfig,
    st: Starts,
    policy: str,
    network: ChoiceNetwork | None = None,
    mappings: Sequence[LinearMapping] = (),
    update_interval: float = 5e-3,
) -> tuple[Episode, list[dict[str, Any]]]:
    """Closed-loop test on the ``B`` starts ``st``: ``policy`` (`POLICIES`) ``readout`` (a network
    and one mapping per gain), ``merged`` (one mapping), ``teacher`` or ``constant``. Returns the
    episode and `evaluate`'s per-trial scores per gain block."""
    act = POLICIES[policy]
    g = max(1, len(mappings))
    tiled = st.tile(g)
    b = len(st.side)

    def decide(c: np.ndarray, u: np.ndarray, f: np.ndarray | None) -> np.ndarray:
        return act(cfg, mappings, c, u, f)

    ep = run_episode(cfg, tiled, decide, network, update_interval, seed=cfg.seed)
    scores = evaluate(ep.position, tiled, cfg, ep.dt_u)
    return ep, [{k: v[j * b : (j + 1) * b] for k, v in scores.items()} for j in range(g)]
