"""Matplotlib figures for the fly experiments (Agg backend, returned to `ResultDir.save_figure`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from wirelab.fly.loop import Trace
from wirelab.plotting import pyplot


def _path(trace: Trace, i: int = 0) -> np.ndarray:
    final = np.asarray(trace.extra["final_position"])[i]
    return np.vstack([trace.position[:, i], final[None]])  # (S+1, 2)


def trajectories(traces: Mapping[str, Trace], title: str) -> Any:
    """Top view of fly 0 of each trace; start marked with a dot."""
    fig, ax = pyplot().subplots(figsize=(5, 5))
    for label, tr in traces.items():
        p = _path(tr)
        ax.plot(p[:, 0], p[:, 1], label=label)
        ax.plot(*p[0], "ko", ms=4)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x (mm)")
    ax.set_ylabel("y (mm)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return fig


def dn_traces(traces: Mapping[str, Trace], title: str) -> Any:
    """DN-VNC left/right mean activity over time, one panel per trace (scales differ)."""
    fig, axes = pyplot().subplots(len(traces), 1, figsize=(6, 2.2 * len(traces)), squeeze=False)
    for ax, (label, tr) in zip(axes[:, 0], traces.items(), strict=True):
        ax.plot(tr.time, tr.dn[:, 0, 0], label="DN-VNC left")
        ax.plot(tr.time, tr.dn[:, 0, 1], label="DN-VNC right")
        ax.set_ylabel("activity")
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=7)
    axes[-1, 0].set_xlabel("time (s)")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def lateralization(summary: Sequence[dict[str, Any]], normalize: str) -> Any:
    """Contrast C with its bootstrap CI per modality (x) and gain (colour), nulls as grey bars."""
    rows = [r for r in summary if r["normalize"] == normalize]
    mods = sorted({r["modality"] for r in rows})
    gains = sorted({r["gain"] for r in rows})
    fig, ax = pyplot().subplots(figsize=(max(6, 0.9 * len(mods) * len(gains) / 2), 4))
    width = 0.8 / len(gains)
    for gi, g in enumerate(gains):
        xs, ys, lo, hi, nm, ns = [], [], [], [], [], []
        for mi, m in enumerate(mods):
            r = next(x for x in rows if x["modality"] == m and x["gain"] == g)
            xs.append(mi + (gi - (len(gains) - 1) / 2) * width)
            ys.append(r["contrast"])
            lo.append(r["contrast"] - r["ci_low"])
            hi.append(r["ci_high"] - r["contrast"])
            nm.append(r.get("null_mean", np.nan))
            ns.append(r.get("null_std", np.nan))
        ax.bar(
            xs,
            np.array(ns) * 2,
            bottom=np.array(nm) - np.array(ns),
            width=width * 0.9,
            color="0.85",
            label="nulls mean ± sd" if gi == 0 else None,
        )
        # a percentile interval need not contain the estimate (skewed bootstrap): clip at 0
        err = [np.maximum(lo, 0.0), np.maximum(hi, 0.0)]
        ax.errorbar(xs, ys, yerr=err, fmt="o", ms=4, capsize=2, label=f"input gain {g:g}")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(range(len(mods)))
    ax.set_xticklabels(mods, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("C = (LI_left - LI_right)/2\n> 0 ipsilateral, < 0 contralateral")
    ax.set_title(f"DN-VNC lateralisation, {normalize} normalisation (95% bootstrap CI)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def taxis_paths(traces: Mapping[str, Trace], radius: float, n: int = 12) -> Any:
    """First ``n`` test trajectories of each condition around the source (origin)."""
    fig, axes = pyplot().subplots(1, len(traces), figsize=(3.2 * len(traces), 3.4), squeeze=False)
    for ax, (label, tr) in zip(axes[0], traces.items(), strict=True):
        for i in range(min(n, tr.position.shape[1])):
            p = _path(tr, i)
            ax.plot(p[:, 0], p[:, 1], lw=0.8)
            ax.plot(*p[0], "k.", ms=3)
        ax.add_patch(pyplot().Circle((0, 0), radius, color="orange", alpha=0.6))
        ax.set_aspect("equal")
        ax.set_xlim(-35, 35)
        ax.set_ylim(-35, 35)
        ax.set_title(label, fontsize=9)
    fig.tight_layout()
    return fig


def taxis_bars(rows: Sequence[dict[str, Any]]) -> Any:
    """Success rate per condition with a Wilson 95% interval."""
    fig, ax = pyplot().subplots(figsize=(max(5, 0.8 * len(rows)), 3.5))
    names = [r["condition"] for r in rows]
    rate = np.array([r["success_rate"] for r in rows])
    lo = np.array([r["success_ci"][0] for r in rows])
    hi = np.array([r["success_ci"][1] for r in rows])
    ax.bar(range(len(rows)), rate, yerr=[rate - lo, hi - rate], capsize=3, color="C0")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("success rate")
    ax.set_ylim(0, 1)
    fig.tight_layout()
    return fig
