"""Figures and the side-by-side video of the turn study (`wirelab.fly.turns.study`).

The video shows, per frame, the left-stimulated, control and right-stimulated flies (seed 0, the
tracking camera of each run, labelled), their trajectories overlaid on one floor up to that time,
and their heading change since stimulus onset. Frames come from the runs (rendered every
``frame_every`` physics steps in the worker processes); this module only composes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from wirelab.data.connectomes import SIDES
from wirelab.plotting import pyplot

ORDER = ("left", "control", "right")
COLORS = {"left": "C0", "control": "0.4", "right": "C3"}
LABELS = {
    "left": "left stimulated",
    "control": "control (no stimulus)",
    "right": "right stimulated",
}


def _rel_heading(r: Mapping[str, Any], settle: float) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(r["time"])
    h = np.degrees(np.asarray(r["heading"]))
    i0 = int(np.searchsorted(t, settle - 1e-9))
    return t, h - h[min(i0, len(h) - 1)]


def heading_plot(runs: Sequence[Mapping[str, Any]], model: str, settle: float) -> Any:
    """Heading change since stimulus onset, every seed (thin) and the mean (thick), per condition
    of ``model`` and the control."""
    fig, ax = pyplot().subplots(figsize=(7, 4))
    for c in ORDER:
        sel = [r for r in runs if r["condition"] == c and (c == "control" or r["model"] == model)]
        if not sel:
            continue
        curves = [_rel_heading(r, settle) for r in sel]
        for t, h in curves:
            ax.plot(t, h, color=COLORS[c], lw=0.6, alpha=0.5)
        n = min(len(h) for _, h in curves)
        ax.plot(
            curves[0][0][:n],
            np.mean([h[:n] for _, h in curves], axis=0),
            color=COLORS[c],
            lw=2.2,
            label=f"{LABELS[c]} (mean of {len(sel)})",
        )
    ax.axvline(settle, color="k", lw=0.8, ls="--")
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("time (s); stimulus on after the dashed line")
    ax.set_ylabel("heading change since onset (deg, CCW +)")
    ax.set_title(f"{model}: heading per seed")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


PLOTTED_NULLS = 8  # more nulls than this: `turn_plot` shows the other models, `null_plot` them


def turn_plot(table: Sequence[Mapping[str, Any]]) -> Any:
    """Mean turn minus control with its 95% CI per model, left and right side by side (the null
    models too when there are at most `PLOTTED_NULLS`; more go to `null_plot`)."""
    from wirelab.fly.turns.stats import null_family

    rows = [r for r in table if r["condition"] in SIDES]
    if len({r["model"] for r in rows if null_family(r["model"])}) > PLOTTED_NULLS:
        rows = [r for r in rows if not null_family(r["model"])]
    models = list(dict.fromkeys(r["model"] for r in rows))
    fig, ax = pyplot().subplots(figsize=(max(5, 1.1 * len(models) + 2), 3.8))
    for j, c in enumerate(SIDES):
        for i, m in enumerate(models):
            r = next(x for x in rows if x["model"] == m and x["condition"] == c)
            d = r["minus_control"]
            x = i + (j - 0.5) * 0.35
            ax.errorbar(
                x,
                d["mean"],
                yerr=[[d["mean"] - d["ci"][0]], [d["ci"][1] - d["mean"]]],
                fmt="o",
                color=COLORS[c],
                capsize=3,
                label=LABELS[c] if i == 0 else None,
            )
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels(models)
    ax.set_ylabel("turn minus control (deg, 95% CI)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def null_plot(nulls: Mapping[str, Any]) -> Any:
    """Per null family (``metrics["nulls"]`` of the study, `stats.compare_nulls`): the nulls'
    L - R (degrees) as a histogram, the first model's L - R and its mirror image marked, with the
    rank p of ``|L - R|``."""
    families = list(nulls["families"].values())
    fig, axes = pyplot().subplots(
        1, len(families), figsize=(4.2 * len(families), 3.4), squeeze=False
    )
    for ax, fam in zip(axes[0], families, strict=True):
        lr, observed = np.asarray(fam["nulls_lr"]), float(fam["observed_lr"])
        lim = 1.05 * max(float(np.abs(lr).max()), abs(observed))
        ax.hist(lr, bins=np.linspace(-lim, lim, 41), color="0.6")
        ax.axvline(observed, color="C3", lw=2, label=f"{nulls['model']}: {observed:+.1f} deg")
        ax.axvline(-observed, color="C3", lw=1, ls=":")
        ax.set_title(f"{fam['n_nulls']} {fam['family']} nulls: p = {fam['p']:.2g}", fontsize=9)
        ax.set_xlabel("left - right turn (deg)")
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("nulls")
    fig.tight_layout()
    return fig


def write_video(
    filmed: Mapping[str, Mapping[str, Any]], path: Path, settle: float, strip: Path | None = None
) -> int:
    """Compose the labelled side-by-side MP4 from the runs' frames (and ``strip``, a PNG of four
    evenly spaced composite frames side by side); returns the frame count."""
    import imageio.v2 as imageio
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    conds = [c for c in ORDER if c in filmed]
    n = min(len(filmed[c]["frames"]) for c in conds)
    total_t = float(np.asarray(filmed[conds[0]]["time"])[-1])
    frame_t = np.linspace(total_t / n, total_t, n)
    fig = pyplot().figure(figsize=(9, 6), dpi=80)
    canvas = FigureCanvasAgg(fig)
    grid = fig.add_gridspec(2, 3, height_ratios=[1.1, 1])
    img_axes = [fig.add_subplot(grid[0, i]) for i in range(len(conds))]
    ax_xy, ax_h = fig.add_subplot(grid[1, :2]), fig.add_subplot(grid[1, 2])
    ims = []
    for ax, c in zip(img_axes, conds, strict=False):
        ims.append(ax.imshow(filmed[c]["frames"][0]))
        ax.set_title(LABELS[c], color=COLORS[c], fontsize=10)
        ax.axis("off")
    lines_xy, lines_h = {}, {}
    for c in conds:
        p = np.asarray(filmed[c]["position"])
        ax_xy.plot(p[:, 0], p[:, 1], color=COLORS[c], lw=0.4, alpha=0.25)
        (lines_xy[c],) = ax_xy.plot([], [], color=COLORS[c], lw=1.8, label=LABELS[c])
        t, h = _rel_heading(filmed[c], settle)
        ax_h.plot(t, h, color=COLORS[c], lw=0.4, alpha=0.25)
        (lines_h[c],) = ax_h.plot([], [], color=COLORS[c], lw=1.8)
    ax_xy.set_aspect("equal", adjustable="datalim")
    ax_xy.set_xlabel("x (mm)")
    ax_xy.set_ylabel("y (mm)")
    ax_xy.legend(fontsize=7, loc="best")
    ax_h.axvline(settle, color="k", lw=0.8, ls="--")
    ax_h.set_xlabel("time (s)")
    ax_h.set_ylabel("heading since onset (deg)")
    title = fig.suptitle("")
    fig.tight_layout()
    keep = set(np.linspace(n // 4, n - 1, 4).astype(int).tolist())
    kept: list[np.ndarray] = []
    with cast(Any, imageio.get_writer(path, fps=15, macro_block_size=1)) as writer:
        for k in range(n):
            for im, c in zip(ims, conds, strict=False):
                im.set_data(filmed[c]["frames"][k])
            for c in conds:
                t = np.asarray(filmed[c]["time"])
                j = int(np.searchsorted(t, frame_t[k])) + 1
                p = np.asarray(filmed[c]["position"])[:j]
                lines_xy[c].set_data(p[:, 0], p[:, 1])
                th, h = _rel_heading(filmed[c], settle)
                lines_h[c].set_data(th[:j], h[:j])
            phase = "stimulus ON" if frame_t[k] >= settle else "walking, stimulus off"
            title.set_text(f"t = {frame_t[k]:.2f} s simulated ({phase})")
            canvas.draw()
            rgb = np.asarray(canvas.buffer_rgba())[..., :3].copy()
            writer.append_data(rgb)
            if k in keep:
                kept.append(rgb)
    pyplot().close(fig)
    if strip is not None:
        imageio.imwrite(strip, np.concatenate(kept, axis=1))
    return n
