"""Taxis test trials one fly per process (flygym): a trial stops at the source or the arena's edge.

`trial` is a top-level function of plain, picklable arguments (`TrialSpec`): each trial is a job of
the study executor (`wirelab.parallel`, every condition's trials at once); each worker loads the
connectome once (cached, `wirelab.fly.controller.cached_connectome`) and builds the model's weights
(the connectome, ``mirror`` or ``null-i``) by name (`wirelab.fly.controller.model_weights`). A trial
ends at ``time_limit`` or as soon as the fly is within ``radius`` of the source or farther than
``arena_radius`` from it (`wirelab.fly.taxis.task.ended`, checked after every controller update;
leaving is a failure, recorded as ``left_arena`` with its ``exit_time_s``), so a trial costs only
the time it needs. With a ``store`` folder every finished trial is saved as it ends and trials saved
there with the same fingerprint are read back instead of run (`wirelab.fly.store`): a killed study
resumes.

A saved trial is named ``<condition>_<index>``; its fingerprint (`TrialSpec.key`) covers
everything that decides it (policy, model, trained mapping, task and controller settings, body
and timestep). `save_trial` stores the trace's arrays (one fly: ``time`` ``(S,)``, ``position``
``(S, 1, 2)``, ``heading`` ``(S, 1)``, ``inputs``/``signal``/``dn`` ``(S, 1, 2)``, the optional
``features``/``odor`` and ``final_position`` ``(1, 2)``) and the result dict as its record.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.fly.bodies import body_class
from wirelab.fly.controller import ControllerConfig, cached_connectome, model_weights
from wirelab.fly.loop import Trace
from wirelab.fly.mapping import LinearMapping
from wirelab.fly.store import fingerprint, load_item, save_item
from wirelab.fly.taxis.task import TaxisConfig, deploy, ended, source, starts
from wirelab.parallel import ExecOptions, Job, JobResult, map_jobs

TRIALS = "trials"  # the study's folder of finished one-fly trials
TRACE_ARRAYS = ("time", "position", "heading", "inputs", "signal", "dn")
OPTIONAL_ARRAYS = ("features", "odor")


@dataclass(frozen=True)
class TrialSpec:
    """One test trial: the ``policy`` (`wirelab.fly.taxis.task.deploy`), the reservoir ``model``
    (``connectome``, ``mirror``, ``null-i``; ignored by the baselines) and its trained mapping."""

    index: int
    policy: str
    model: str
    cfg: TaxisConfig
    ctrl_cfg: ControllerConfig
    mapping: LinearMapping | None
    body: str = "flygym"
    timestep: float = 1e-4
    video: str | None = None
    connectome: str = "larva"

    def key(self) -> str:
        """What decides the trial's result (not the video), as a `wirelab.fly.store.fingerprint`."""
        m = self.mapping
        arrays = [np.asarray(m.weight), np.asarray(m.bias)] if m is not None else []
        settings = [self.index, self.policy, self.model, self.cfg.to_dict()]
        settings += [self.ctrl_cfg.to_dict(), self.body, self.timestep, self.connectome]
        return fingerprint(settings, *arrays)


def save_trial(
    folder: Path, condition: str, index: int, trace: Trace, result: dict[str, Any], key: str
) -> Path:
    """Keep one finished trial in ``folder`` as ``<condition>_<index>`` (module docstring)."""
    arrays = {k: np.asarray(getattr(trace, k)) for k in TRACE_ARRAYS}
    arrays.update({k: getattr(trace, k) for k in OPTIONAL_ARRAYS if getattr(trace, k) is not None})
    arrays["final_position"] = np.asarray(trace.extra["final_position"])
    return save_item(folder, f"{condition}_{index}", key, result, arrays)


def load_trial(
    folder: Path, condition: str, index: int, key: str
) -> tuple[Trace, dict[str, Any]] | None:
    """The saved trial with fingerprint ``key`` as `trial` returned it, or None (run it again)."""
    item = load_item(folder, f"{condition}_{index}", key)
    if item is None or not {*TRACE_ARRAYS, "final_position"} <= set(item[1]):
        return None
    result, z = item
    trace = Trace(
        **{k: z[k] for k in TRACE_ARRAYS},
        **{k: z[k] for k in OPTIONAL_ARRAYS if k in z},
        extra={"final_position": z["final_position"]},
    )
    return trace, result


def trial(spec: TrialSpec) -> tuple[Trace, dict[str, Any]]:
    """Run one trial from start ``index`` of ``starts(cfg, trials, cfg.seed)``."""
    t0 = time.perf_counter()
    cfg = spec.cfg
    xy, heading = starts(cfg, cfg.trials, cfg.seed)
    i = spec.index
    cls = body_class(spec.body)
    kwargs: dict[str, Any] = {}
    if cls.renders_video:
        kwargs.update(video=spec.video, timestep=spec.timestep)
    body = cls(
        start_xy=(float(xy[i, 0]), float(xy[i, 1])),  # type: ignore[call-arg]
        start_heading=float(heading[i]),
        odor=source(cfg),
        seed=cfg.seed + i,
        **kwargs,
    )
    con = cached_connectome(spec.connectome) if spec.policy != "input-only" else None
    weights = None if spec.model == "connectome" else model_weights(spec.connectome, spec.model)
    stop = ended(cfg)
    tr, res = deploy(
        cfg, spec.policy, con, spec.ctrl_cfg, spec.mapping, weights=weights, body=body, stop=stop
    )
    res["wall_s"] = time.perf_counter() - t0
    res["simulated_s"] = float(tr.time[-1]) if len(tr.time) else 0.0
    return tr, res


def run_trials(
    specs: Sequence[TrialSpec],
    options: ExecOptions | None = None,
    store: Path | None = None,
    condition: str = "",
    show: bool = False,
) -> tuple[Trace, dict[str, Any]]:
    """All ``specs`` of one ``condition`` (`run_conditions`)."""
    return run_conditions({condition: specs}, options, store=store, show=show)[condition]


def run_conditions(
    conditions: Mapping[str, Sequence[TrialSpec]],
    options: ExecOptions | None = None,
    store: Path | None = None,
    label: str = "taxis trials",
    show: bool = True,
) -> dict[str, tuple[Trace, dict[str, Any]]]:
    """Every trial of every condition as one job each (`wirelab.parallel`), merged per condition
    into one `Trace` ``(S, n, ...)`` and one result; with ``store``, saved trials are reused and
    new ones saved as they finish."""
    out: dict[str, list[tuple[Trace, dict[str, Any]] | None]] = {}
    keys = {c: [s.key() for s in specs] for c, specs in conditions.items()}
    todo: list[tuple[str, int]] = []
    for c, specs in conditions.items():
        out[c] = [None] * len(specs)
        for k, s in enumerate(specs):
            if store is not None:
                out[c][k] = load_trial(store, c, s.index, keys[c][k])
            if out[c][k] is None:
                todo.append((c, k))

    def keep(result: JobResult) -> None:
        c, k = todo[result.index]
        out[c][k] = result.value
        if store is not None:
            trace, res = result.value
            save_trial(store, c, conditions[c][k].index, trace, res, keys[c][k])

    jobs = [Job(f"{c} trial {conditions[c][k].index}", trial, (conditions[c][k],)) for c, k in todo]
    saved = sum(len(s) for s in conditions.values()) - len(todo)
    label += f" ({saved} saved)" if saved else ""
    map_jobs(jobs, options or ExecOptions(), label=label, show=show, on_result=keep)
    merged = {}
    for c, results in out.items():
        done = [o for o in results if o is not None]
        merged[c] = merge([t for t, _ in done], [r for _, r in done], len(conditions[c]))
    return merged


def merge(traces: list[Trace], results: list[dict[str, Any]], n: int) -> tuple[Trace, dict]:
    """One trace padded to the longest trial (a stopped trial repeats its last row)."""
    s = max(len(t.time) for t in traces)

    def pad(a: np.ndarray) -> np.ndarray:
        return np.concatenate([a, np.repeat(a[-1:], s - len(a), axis=0)]) if len(a) < s else a

    longest = max(traces, key=lambda t: len(t.time))
    merged = Trace(
        time=longest.time,
        position=np.concatenate([pad(t.position) for t in traces], axis=1),
        heading=np.concatenate([pad(t.heading) for t in traces], axis=1),
        inputs=np.concatenate([pad(t.inputs) for t in traces], axis=1),
        signal=np.concatenate([pad(t.signal) for t in traces], axis=1),
        dn=np.concatenate([pad(t.dn) for t in traces], axis=1),
        extra={"final_position": np.concatenate([t.extra["final_position"] for t in traces])},
    )
    succ = [bool(r["success"][0]) for r in results]
    left = [bool(r["left_arena"][0]) for r in results]
    eff = [r["path_efficiency"] for r in results if r["path_efficiency"] is not None]
    tts = [r["time_to_source_s"] for r in results if r["time_to_source_s"] is not None]
    walls = [r["wall_s"] for r in results]
    return merged, {
        "trials": n,
        "successes": int(sum(succ)),
        "success_rate": float(np.mean(succ)),
        "path_efficiency": float(np.mean(eff)) if eff else None,
        "time_to_source_s": float(np.mean(tts)) if tts else None,
        "final_distance_mm": float(np.mean([r["final_distance_mm"] for r in results])),
        "success": succ,
        "arena_exits": int(sum(left)),
        "left_arena": left,
        "exit_time_s": [r["exit_time_s"][0] for r in results],
        "trial_wall_s_mean": float(np.mean(walls)),
        "simulated_s_mean": float(np.mean([r["simulated_s"] for r in results])),
    }
