"""Open-loop stimulation: one-sided sensory input -> connectome -> DN-VNC -> walking fly.

For each normalisation (``row`` and ``spectral``) the sensory neurons of a modality on the left,
the right or both sides receive a constant input ``u`` (``[1, 0]``, ``[0, 1]`` or ``[1, 1]``,
times ``input_gain``); the controller's fixed mapping (`wirelab.fly.mapping.FixedMapping`,
``evoked`` by default: ``drive = offset + gain * (dn(u) - dn(u0))`` per side, ``u0`` the
side-swapped input) turns the DN-VNC activity into the drive of the body. Metrics per
normalisation::

    dn_left, dn_right        mean DN-VNC activity over the second half of the run (input u)
    evoked_left, evoked_right  e = the mapping's input at the end of the run (direct: e = dn)
    lateralization_index     (dn_left - dn_right) / (dn_left + dn_right)
    heading_change_deg       final minus initial heading (CCW positive, i.e. left turn > 0)
    displacement_mm          straight-line distance from start to end
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.cli_options import check_output_file
from wirelab.data.connectomes import SIDE_CHOICES, SIDES, Connectome, load_connectome
from wirelab.errors import UsageError
from wirelab.fly.bodies import body_class, open_body, renderers
from wirelab.fly.controller import ConnectomeController, ControllerConfig
from wirelab.fly.envs import in_fly_env
from wirelab.fly.limits import check_seconds, check_seeds
from wirelab.fly.loop import Trace, run_loop
from wirelab.fly.mapping import FixedMapping, default_mapping
from wirelab.progress import progress_bar
from wirelab.results import experiment

# u = [left, right] in the connectome's side order (`wirelab.data.connectomes.SIDES`); "both"
# stimulates every side: {"left": (1, 0), "right": (0, 1), "both": (1, 1)}
STIMULI = {side: tuple(float(side in (s, "both")) for s in SIDES) for side in SIDE_CHOICES}


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
    timestep: float = 1e-4,
) -> StimulationRun:
    """One run on one body with one normalisation (``config.normalize``)."""
    if side not in STIMULI:
        raise UsageError(f"side must be one of {', '.join(STIMULI)}, not {side!r}")
    stim = mapping.inputs(np.array([STIMULI[side]]))  # (1, 2) or (2, 2) with the baseline
    controller = ConnectomeController.from_connectome(con, config, mapping=mapping)
    kwargs: dict[str, Any] = {"seed": seed}
    if body_class(body).renders_video:
        kwargs["video"] = video
        kwargs["viewer"] = viewer
        kwargs["timestep"] = timestep
    with open_body(body, **kwargs) as b:
        trace = run_loop(
            b,
            duration,
            sense=lambda obs: stim,
            decide=lambda obs, u, dn, f: mapping(dn, f),  # type: ignore[arg-type]
            controller=controller,
            progress=progress,
        )
    metrics = summarize(trace)
    e = mapping.evoked(trace.dn[-1])[0]
    metrics.update(evoked_left=float(e[0]), evoked_right=float(e[1]))
    return StimulationRun(config.normalize, trace, metrics)


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


@dataclass(frozen=True)
class StimulateConfig:
    """One `stimulate` experiment: which side, which body, how long, and which normalisations.

    ``video`` defaults to ``OUT/video.mp4`` on a body that renders (flygym); ``compare`` also runs
    the normalisation that ``controller.normalize`` is not.
    """

    side: str
    controller: ControllerConfig = field(default_factory=ControllerConfig)
    mapping: FixedMapping = field(default_factory=default_mapping)
    body: str = "kinematic"
    duration: float = 1.0
    video: Path | None = None
    viewer: bool = False
    compare: bool = True
    seed: int = 0
    connectome: str = "larva"
    timestep: float = 1e-4

    @property
    def normalizations(self) -> list[str]:
        norms = [self.controller.normalize]
        if self.compare:
            norms += [n for n in ("row", "spectral") if n != self.controller.normalize]
        return norms

    def validate(self) -> None:
        """One-line `UsageError` for a bad side, body, duration, a video on a body without one,
        or a ``video`` path where no file can be written (checked before any work)."""
        if self.side not in STIMULI:
            raise UsageError(f"side must be one of {', '.join(STIMULI)}, not {self.side!r}")
        if not (np.isfinite(self.timestep) and 0 < self.timestep <= 1e-3):
            raise UsageError("timestep must be in (0, 1e-3] s")
        body_class(self.body)  # an unknown body: the registry's line
        interval = self.controller.update_interval
        check_seconds(
            self.duration, "--duration", self.body, timestep=self.timestep, interval=interval
        )
        check_seeds(self.seed, 1)
        if (self.video or self.viewer) and not body_class(self.body).renders_video:
            raise UsageError(
                f"--video and --viewer need a body that renders: --body {' or '.join(renderers())}"
            )
        if self.video is not None:
            check_output_file(self.video, "--video")


@in_fly_env
def run(
    config: StimulateConfig,
    out: Path,
    *,
    overwrite: bool = False,
    con: Connectome | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """`stimulate` with ``config.controller.normalize`` (and the other one when ``compare``),
    written to the result directory ``out``: trajectory and DN-trace plots, the video (a body
    that renders; default ``out/video.mp4``) and ``metrics.json``. Returns the metrics.

    ``con`` is the connectome (``config.connectome`` loaded when None).
    """
    from wirelab.fly.plots import dn_traces, trajectories
    from wirelab.fly.populations import Populations

    config.validate()
    ctrl = config.controller
    body = config.body
    cls = body_class(body)
    if con is None:
        con = load_connectome(config.connectome)
    Populations.build(con, ctrl.modality, ctrl.readout)  # unknown modality: fail before the run
    norms = config.normalizations
    video = config.video
    if cls.renders_video and video is None:
        video = Path(out) / "video.mp4"
    run_config = {
        "side": config.side,
        "normalizations": norms,
        "duration": config.duration,
        "body": body,
        "video": video,
        "mapping": dataclasses.asdict(config.mapping),
        "seed": config.seed,
        "timestep": config.timestep,
        "controller": ctrl.to_dict(),
        "connectome": config.connectome,
    }
    with experiment(
        out, command="wirelab fly stimulate", config=run_config, overwrite=overwrite
    ) as rd:
        t0 = time.perf_counter()
        runs: dict[str, StimulationRun] = {}
        for n in norms:
            with progress_bar(f"{body} {n} {config.side}", show=progress) as bar:
                runs[n] = stimulate(
                    con,
                    config.side,
                    dataclasses.replace(ctrl, normalize=n),
                    config.mapping,
                    body,
                    config.duration,
                    video=video if n == ctrl.normalize else None,
                    seed=config.seed,
                    progress=bar,
                    viewer=config.viewer and n == ctrl.normalize,
                    timestep=config.timestep,
                )
        traces = {f"{n} normalisation": r.trace for n, r in runs.items()}
        title = f"{body}: {ctrl.modality} {config.side} stimulation"
        rd.save_figure(trajectories(traces, title), "trajectory")
        rd.save_figure(
            dn_traces(traces, f"DN-VNC activity, {ctrl.modality} {config.side}"), "dn_traces"
        )
        metrics: dict[str, Any] = {
            **runs[ctrl.normalize].metrics,
            "side": config.side,
            "normalize": ctrl.normalize,
            "body": body,
            "by_normalization": {n: r.metrics for n, r in runs.items()},
            "wall_s": time.perf_counter() - t0,
        }
        if cls.renders_video and video is not None:
            metrics["video"] = str(video)
        return rd.finish(metrics)
