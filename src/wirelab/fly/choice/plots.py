"""The choice study's trajectories: each start drawn in its own frame, so they overlay.

Frame of a start: the fly starts at the origin, the bisector of the two sources points along
+x, and the attractive source lies up (+y; starts with the attractive source on the right are
mirrored). ``x' = M R(-b) (p - p0)`` with ``R`` the rotation and ``M = diag(1, side)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from wirelab.fly.choice.task import ChoiceConfig, Starts, evaluate, starts


def canonical(
    path: np.ndarray, xy: np.ndarray, attractive: np.ndarray, aversive: np.ndarray
) -> np.ndarray:
    """``(S, k, 2)`` positions of ``k`` flies in their starts' frames (module docstring)."""
    mid = (attractive + aversive) / 2 - xy  # (k, 2)
    b = np.arctan2(mid[:, 1], mid[:, 0])
    c, s = np.cos(-b), np.sin(-b)
    d = path - xy[None]
    x = c * d[..., 0] - s * d[..., 1]
    y = s * d[..., 0] + c * d[..., 1]
    ya = s * (attractive - xy)[:, 0] + c * (attractive - xy)[:, 1]
    return np.stack([x, y * np.where(ya >= 0, 1.0, -1.0)], axis=-1)


def choice_paths(paths: Mapping[str, np.ndarray], cfg: ChoiceConfig) -> Any:
    """One panel per condition: its first test flies' paths in the starts' frame, each up to
    its first event (goal, contact, arena exit) or the time limit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(paths), figsize=(4 * len(paths), 4), squeeze=False)
    st = starts(cfg, cfg.trials, cfg.seed)
    for ax, (name, p) in zip(axes[0], paths.items(), strict=True):
        k = p.shape[1]
        xy, att, av = st.xy[:k], st.attractive[:k], st.aversive[:k]
        path = np.asarray(p, dtype=np.float64)  # (S+1, k, 2)
        sub = Starts(xy, st.heading[:k], att, av, st.side[:k])
        end = np.asarray(evaluate(path, sub, cfg, dt_u=1.0)["end_time_s"])  # in rows
        path[np.arange(len(path))[:, None] > end[None]] = np.nan  # each fly up to its end
        q = canonical(path, xy, att, av)
        srcs = canonical(np.stack([att, av]), xy, att, av)  # (2, k, 2)
        for i in range(k):
            ax.plot(q[:, i, 0], q[:, i, 1], lw=0.8, alpha=0.8)
        ax.scatter(*srcs[0].T, c="tab:green", marker="o", s=20, label="attractive")
        ax.scatter(*srcs[1].T, c="tab:red", marker="x", s=20, label="aversive")
        ax.add_patch(plt.Circle((0, 0), cfg.arena_radius, fill=False, ls=":", color="grey"))
        lim = cfg.arena_radius * 1.05
        ax.set(xlim=(-lim, lim), ylim=(-lim, lim), aspect="equal", title=name, xlabel="mm")
    axes[0][0].legend(loc="lower left", fontsize=7)
    fig.tight_layout()
    return fig
