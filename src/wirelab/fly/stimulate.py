"""Open-loop stimulation: one-sided sensory input -> connectome -> DN-VNC -> walking fly.

For each normalisation (``row`` and ``spectral``) the sensory neurons of a modality on the left,
the right or both sides receive a constant input ``u`` (``[1, 0]``, ``[0, 1]`` or ``[1, 1]``,
times ``input_gain``); the controller's fixed mapping turns the DN-VNC activity into the drive of
the body. Metrics per normalisation::

    dn_left, dn_right        mean DN-VNC activity over the second half of the run
    lateralization_index     (dn_left - dn_right) / (dn_left + dn_right)
    heading_change_deg       final minus initial heading (CCW positive, i.e. left turn > 0)
    displacement_mm          straight-line distance from start to end
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.data.connectome import Connectome
from wirelab.errors import UsageError
from wirelab.fly.body import make_body
from wirelab.fly.controller import ConnectomeController, ControllerConfig
from wirelab.fly.loop import Trace, run_loop
from wirelab.fly.mapping import FixedMapping

STIMULI = {"left": (1.0, 0.0), "right": (0.0, 1.0), "both": (1.0, 1.0)}


def lateralization_index(left: float, right: float) -> float:
    """``(L - R) / (L + R)``; 0 when both are 0."""
    total = left + right
    return float((left - right) / total) if total != 0 else 0.0


@dataclass
class StimulationRun:
    normalize: str
    trace: Trace
    metrics: dict[str, float]


def stimulate(
    con: Connectome,
    side: str,
    config: ControllerConfig,
    mapping: FixedMapping,
    body: str = "kinematic",
    duration: float = 1.0,
    video: Path | None = None,
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
    viewer: bool = False,
) -> StimulationRun:
    """One run on one body with one normalisation (``config.normalize``)."""
    if side not in STIMULI:
        raise UsageError(f"side must be one of {', '.join(STIMULI)}, not {side!r}")
    stim = np.array([STIMULI[side]])  # (1, 2)
    controller = ConnectomeController(con, config, batch=1)
    kwargs: dict[str, Any] = {"seed": seed}
    if body == "flygym":
        kwargs["video"] = video
        kwargs["viewer"] = viewer
    b = make_body(body, **kwargs)
    try:
        trace = run_loop(
            b,
            duration,
            sense=lambda obs: stim,
            decide=lambda obs, u, dn, f: mapping(dn, f),  # type: ignore[arg-type]
            controller=controller,
            progress=progress,
        )
    finally:
        b.close()
    return StimulationRun(config.normalize, trace, summarize(trace))


def summarize(trace: Trace) -> dict[str, float]:
    """The metrics of the module docstring for fly 0 of a trace."""
    half = len(trace.time) // 2
    dn = trace.dn[half:, 0]  # (S/2, 2)
    dn_l, dn_r = float(dn[:, 0].mean()), float(dn[:, 1].mean())
    start = trace.position[0, 0]
    end = np.asarray(trace.extra["final_position"])[0]
    h0 = float(trace.heading[0, 0])
    h1 = float(np.asarray(trace.extra["final_heading"])[0])
    sig = trace.signal[:, 0]
    return {
        "dn_left": dn_l,
        "dn_right": dn_r,
        "lateralization_index": lateralization_index(dn_l, dn_r),
        "heading_change_deg": float(np.degrees(h1 - h0)),
        "displacement_mm": float(np.linalg.norm(end - start)),
        "mean_signal_left": float(sig[:, 0].mean()),
        "mean_signal_right": float(sig[:, 1].mean()),
        "simulated_s": float(trace.time[-1] + (trace.time[1] - trace.time[0]))
        if len(trace.time) > 1
        else 0.0,
    }


def run_experiment(
    out: Path,
    side: str,
    config: ControllerConfig,
    mapping: FixedMapping,
    body: str = "kinematic",
    duration: float = 1.0,
    video: Path | None = None,
    viewer: bool = False,
    compare: bool = True,
    seed: int = 0,
    con: Connectome | None = None,
    progress_factory: Callable[[str], AbstractContextManager[Any]] | None = None,
) -> dict[str, Any]:
    """`stimulate` with ``config.normalize`` (and the other normalisation when ``compare``),
    written to the result directory ``out``: trajectory and DN-trace plots, the video
    (flygym; default ``out/video.mp4``) and ``metrics.json``. Returns the metrics."""
    from wirelab.fly.plots import dn_traces, trajectories
    from wirelab.results import ResultDir

    if duration <= 0:
        raise UsageError("duration must be > 0")
    if con is None:
        from wirelab.data import load_larva

        con = load_larva()
    norms = [config.normalize]
    if compare:
        norms += [n for n in ("row", "spectral") if n != config.normalize]
    if body == "flygym" and video is None:
        video = Path(out) / "video.mp4"
    rd = ResultDir.create(
        out,
        command="wirelab fly stimulate",
        config={
            "side": side,
            "normalizations": norms,
            "duration": duration,
            "body": body,
            "video": video,
            "mapping": dataclasses.asdict(mapping),
            "seed": seed,
            "controller": config.to_dict(),
        },
    )
    t0 = time.perf_counter()
    runs: dict[str, StimulationRun] = {}
    for n in norms:
        ctx = progress_factory(f"{body} {n} {side}") if progress_factory else nullcontext(None)
        with ctx as prog:
            runs[n] = stimulate(
                con,
                side,
                dataclasses.replace(config, normalize=n),
                mapping,
                body,
                duration,
                video=video if n == config.normalize else None,
                seed=seed,
                progress=prog,
                viewer=viewer and n == config.normalize,
            )
    traces = {f"{n} normalisation": r.trace for n, r in runs.items()}
    title = f"{body}: {config.modality} {side} stimulation"
    rd.save_figure(trajectories(traces, title), "trajectory")
    rd.save_figure(dn_traces(traces, f"DN-VNC activity, {config.modality} {side}"), "dn_traces")
    metrics: dict[str, Any] = {
        **runs[config.normalize].metrics,
        "side": side,
        "normalize": config.normalize,
        "body": body,
        "by_normalization": {n: r.metrics for n, r in runs.items()},
        "wall_s": time.perf_counter() - t0,
    }
    if body == "flygym" and video is not None:
        metrics["video"] = str(video)
    rd.write_metrics(metrics)
    return metrics
