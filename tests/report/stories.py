"""Synthetic result directories of every run type with a headline, shaped like the real runs'
(the metrics keys of `wirelab.reservoir.experiment`, `wirelab.fly.stimulate`, ...)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tests.report.conftest import _plot
from wirelab.results import ResultDir, write_json


def reservoir_metrics(connectome: float = 11.5, p: float = 0.01, n: int = 99) -> dict[str, Any]:
    s = {
        "metric": "MC",
        "higher_is_better": True,
        "best_alpha": 1.0,
        "connectome": connectome,
        "null_mean": 7.62,
        "null_std": 0.16,
        "p_value": p,
        "z": 23.7,
        "n_nulls": n,
        "p_value_own_best_alpha": p,
        "z_own_best_alpha": 20.0,
        "per_alpha": [],
    }
    return {"summary": {"memory-capacity": s}, "results": [], "wall_seconds": 1.0}


def logic_metrics(acc: float = 0.9967, gates: int = 400) -> dict[str, Any]:
    return {
        "dataset": "mnist",
        "classes": [0, 1],
        "accuracy_soft": acc,
        "accuracy_discrete": acc,
        "gates": gates,
        "n_test": 2115,
        "gates_simplified": 259,
        "logic_depth": 2,
        "verified": True,
    }


def pooling_metrics(attn: float = 0.652, mean: float = 0.228) -> dict[str, Any]:
    return {
        "summary": {
            "mean": {
                "16": {
                    "accuracy_mean": mean,
                    "accuracy_std": 0.0,
                    "marked_weight_share_mean": 1 / 17,
                }
            },
            "attn1": {
                "16": {"accuracy_mean": attn, "accuracy_std": 0.0, "marked_weight_share_mean": 0.9}
            },
        }
    }


def stimulate_metrics(side: str, turn: float) -> dict[str, Any]:
    return {
        "heading_change_deg": turn,
        "lateralization_index": 0.05,
        "side": side,
        "normalize": "row",
        "body": "flygym",
        "dn_left": 0.3,
        "dn_right": 0.2,
    }


def taxis_metrics(connectome: int = 18, random: int = 3) -> dict[str, Any]:
    rows = [
        {"condition": c, "trials": 20, "successes": k, "success_rate": k / 20}
        for c, k in (
            ("teacher", 19),
            ("constant", 2),
            ("random", random),
            ("connectome", connectome),
            ("degree-null-0", 9),
        )
    ]
    return {"success_rate": connectome / 20, "conditions": rows}


def mp4(path: Path, frames: int = 12, fps: int = 12) -> bool:
    """A short real H.264 clip written as the fly's videos are (imageio with its ffmpeg plugin);
    False where imageio-ffmpeg is missing."""
    try:
        import imageio.v2 as imageio
        import numpy as np
    except ImportError:
        return False
    images = [np.full((48, 64, 3), 10 * i, np.uint8) for i in range(frames)]
    try:
        imageio.mimwrite(path, images, fps=fps)  # type: ignore[arg-type]
    except Exception:  # no ffmpeg backend
        return False
    return path.stat().st_size > 0


def _run(path: Path, command: str, config: Any, plots: tuple[str, ...]) -> ResultDir:
    rd = ResultDir.create(path, command=command, config=config or {})
    for i, name in enumerate(plots):
        _plot(rd, name, i)
    return rd


def make_story_runs(root: Path) -> dict[str, Path]:
    """One finished run of each type with a headline, the fly's left and right runs with videos,
    a logic run with synth.json, and a sweep with results.csv, a summary plot and two points."""
    d: dict[str, Path] = {}
    cfg: dict[str, Any] = {"connectome": "larva", "null_models": ["degree"]}
    rd = _run(root / "reservoir" / "mc", "wirelab reservoir run", cfg, ("score_vs_alpha", "other"))
    d["reservoir"] = rd.path
    rd.finish(reservoir_metrics())
    for side, turn in (("left", 25.0), ("right", -22.0)):
        rd = _run(
            root / "fly" / f"stimulate-{side}",
            "wirelab fly stimulate",
            {"side": side},
            ("trajectory", "dn_traces"),
        )
        mp4(rd.path / "video.mp4")
        rd.finish(stimulate_metrics(side, turn))
        d[f"fly-{side}"] = rd.path
    rd = _run(root / "fly" / "taxis", "wirelab fly taxis", {}, ("success_rate",))
    rd.finish(taxis_metrics())
    d["taxis"] = rd.path
    rd = _run(
        root / "logic" / "mnist01", "wirelab logic train", {"seed": 0}, ("training", "passes")
    )
    write_json(
        rd.path / "synth.json",
        {
            "ice40-up5k": {
                "luts": 525,
                "device_luts": 5280,
                "fits": True,
                "flip_flops": 0,
                "utilisation": 0.0994,
            }
        },
    )
    rd.finish(logic_metrics())
    d["logic"] = rd.path
    cfg = {"seeds": [0], "test_bags": 500}
    plots = ("accuracy_vs_distractors", "weight_maps")
    rd = _run(root / "attention" / "pooling", "wirelab attention pooling", cfg, plots)
    rd.finish(pooling_metrics())
    d["pooling"] = rd.path
    d["sweep"] = _sweep(root / "sweep")
    return d


def _sweep(path: Path) -> Path:
    grid = {"command": "wirelab reservoir run", "vary": {"alpha": [0.5, 1.0]}, "metric": "mc"}
    rd = _run(path, "wirelab sweep grids/x.toml", {"grid": grid}, ("summary",))
    for i, alpha in enumerate((0.5, 1.0)):
        inner = ResultDir.create(
            rd.path / "points" / f"p{i}", command="wirelab reservoir run", config={"alpha": alpha}
        )
        inner.finish(reservoir_metrics(connectome=8 + i))
    (rd.path / "results.csv").write_text(
        "index,point,alpha,status,attempts,seconds,error,mc\n"
        "0,p0,0.5,ok,1,1.0,,8.25\n1,p1,1.0,ok,1,1.0,,9.5\n"
    )
    rd.finish({"points": 2, "ok": 2, "failed": 0, "metric": "mc"})
    return rd.path


def edited(metrics: dict[str, Any], *path: str | int, value: Any) -> dict[str, Any]:
    """A deep copy of ``metrics`` with the value at ``path`` replaced."""
    out = copy.deepcopy(metrics)
    doc: Any = out
    for k in path[:-1]:
        doc = doc[k]
    doc[path[-1]] = value
    return out
