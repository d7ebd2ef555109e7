"""Score a connectome on tasks and compare it with its null models, from Python.

`compare` is ``wirelab reservoir run`` without the result directory: the same configuration
(`config.ExperimentConfig`, defaults `config.DEFAULTS`), resolved the same way, the same jobs
(`jobs.evaluate`: the connectome and ``nulls`` networks of each null model, every task at every
gain), so its numbers are the CLI's metrics.json (`Comparison.metrics` IS that dictionary, less
``wall_seconds``). Per task and null model (`NullComparison`), with ``better`` the direction in
which the task's metric improves (`wirelab.reservoir.stats`)::

    p = (1 + #{i : null_i at least as good as the connectome}) / (n + 1)
    z = sign * (s - mean(null_i)) / std(null_i, ddof=1)        (z > 0: the connectome is better)

at the connectome's best gain, and with every network at its own best gain
(``p_value_own_best_alpha``). `score` runs the connectome alone (no nulls).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.cli_options import comma_list
from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.reservoir.config import ExperimentConfig, resolve_experiment
from wirelab.reservoir.experiment import plot_scores
from wirelab.reservoir.jobs import evaluate
from wirelab.reservoir.network import settings_config
from wirelab.reservoir.tasks import metric_of, task_names
from wirelab.reservoir.weights import parse_alphas

__all__ = ["Comparison", "NullComparison", "TaskScore", "compare", "score"]


@dataclass(frozen=True, eq=False)
class TaskScore:
    """One metric of one network at every gain.

    Attributes:
        task: the metric's label (a task name, or a second score's label such as the
            Mackey-Glass free run's).
        metric: the metric's name (``"MC"``, ``"NRMSE"``, ``"accuracy"``, ...).
        higher_is_better: its direction.
        alphas: ``(G,)`` the gains.
        values: ``(G,)`` the scores at each gain (NaN where a run diverged).
    """

    task: str
    metric: str
    higher_is_better: bool
    alphas: np.ndarray
    values: np.ndarray

    @property
    def best_alpha(self) -> float:
        """The gain with the best finite score."""
        vals = np.where(np.isfinite(self.values), self.values, np.nan)
        pick = np.nanargmax if self.higher_is_better else np.nanargmin
        return float(self.alphas[int(pick(vals))])

    @property
    def best(self) -> float:
        """The best finite score (at `best_alpha`)."""
        return float(self.values[list(self.alphas).index(self.best_alpha)])


@dataclass(frozen=True, eq=False)
class NullComparison:
    """The connectome against the nulls of one null model, on one metric.

    Attributes:
        task, metric, higher_is_better: as in `TaskScore`.
        null_model: the `wirelab.reservoir.nulls.NULLS` name.
        alphas: ``(G,)`` the gains.
        connectome: ``(G,)`` the connectome's scores.
        nulls: ``(n, G)`` each null network's scores.
        best_alpha: the connectome's best gain; ``score`` its score there.
        null_mean, null_std: the nulls' mean and standard deviation (``ddof=1``) there.
        p_value, z: the connectome vs the nulls there (module docstring); ``z_note`` says why a
            z is absent or infinite.
        p_value_own_best_alpha, z_own_best_alpha: every network at its own best gain.
    """

    task: str
    metric: str
    null_model: str
    higher_is_better: bool
    alphas: np.ndarray
    connectome: np.ndarray
    nulls: np.ndarray
    best_alpha: float
    score: float
    null_mean: float | None
    null_std: float | None
    p_value: float | None
    z: float | None
    z_note: str | None
    p_value_own_best_alpha: float | None
    z_own_best_alpha: float | None


@dataclass(frozen=True, eq=False)
class Comparison:
    """What `compare` returns: ``comparison["memory-capacity"]`` is that task's
    `NullComparison` against the first null model, `against` picks another.

    Attributes:
        config: the resolved settings (as config.json's ``config``).
        metrics: the metrics as ``wirelab reservoir run`` writes them to metrics.json (rows,
            summaries, per-network extras, warnings), less ``wall_seconds``.
    """

    config: ExperimentConfig
    metrics: dict[str, Any]

    @property
    def tasks(self) -> tuple[str, ...]:
        """The metric labels, sorted (a task's name; the Mackey-Glass free run adds one)."""
        return tuple(sorted({row["task"] for row in self.metrics["results"]}))

    @property
    def alphas(self) -> np.ndarray:
        """``(G,)`` the gains."""
        return np.asarray(self.config.alphas, dtype=np.float64)

    def __getitem__(self, task: str) -> NullComparison:
        if not self.config.null_models:
            raise UsageError("this comparison has no null models")
        return self.against(task, self.config.null_models[0])

    def _values(self, task: str, model: str, index: int) -> np.ndarray:
        """``(G,)`` the scores of network ``(model, index)`` on ``task``."""
        table = {
            r["alpha"]: r["value"]
            for r in self.metrics["results"]
            if r["task"] == task and r["model"] == model and r["null"] == index
        }
        return np.array([table.get(a, np.nan) for a in self.config.alphas], dtype=np.float64)

    def score(self, task: str) -> TaskScore:
        """The connectome's `TaskScore` on ``task`` (a label of `tasks`)."""
        if task not in self.tasks:
            raise UsageError(f"no scores for {task!r}; this comparison has {', '.join(self.tasks)}")
        metric = metric_of(task)
        assert metric is not None  # every label of the rows is a registered task's
        values = self._values(task, "connectome", -1)
        return TaskScore(task, metric.name, metric.higher_is_better, self.alphas, values)

    def against(self, task: str, null_model: str) -> NullComparison:
        """``task`` (a label of `tasks`) against the nulls of ``null_model``."""
        by_model = self.metrics["summary_by_null_model"]
        if null_model not in by_model or task not in by_model[null_model]:
            raise UsageError(
                f"no comparison of {task!r} with {null_model!r} nulls; tasks: "
                f"{', '.join(self.tasks)}; null models: {', '.join(by_model)}"
            )
        s = by_model[null_model][task]
        indices = sorted({r["null"] for r in self.metrics["results"] if r["model"] == null_model})
        nulls = [self._values(task, null_model, i) for i in indices]
        return NullComparison(
            task=task,
            metric=s["metric"],
            null_model=null_model,
            higher_is_better=s["higher_is_better"],
            alphas=self.alphas,
            connectome=self._values(task, "connectome", -1),
            nulls=np.array(nulls).reshape(len(indices), self.alphas.size),
            best_alpha=s["best_alpha"],
            score=s["connectome"],
            null_mean=s["null_mean"],
            null_std=s["null_std"],
            p_value=s["p_value"],
            z=s["z"],
            z_note=s["z_note"],
            p_value_own_best_alpha=s["p_value_own_best_alpha"],
            z_own_best_alpha=s["z_own_best_alpha"],
        )

    def figure(self) -> Any:
        """Score vs alpha per task: the connectome's line over each null model's band (the
        CLI's score_vs_alpha.png); a matplotlib figure."""
        return plot_scores(self.metrics)


def _study(tasks: str | Sequence[str], settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` with ``tasks`` (a name, a list, or ``"all"``), ``alphas`` (a number, a
    list or ``"START:STOP:N"``) and ``null_models`` (a name or a list) in config form."""
    out = {**settings, "tasks": task_names(tasks)}
    if "alphas" in out:
        out["alphas"] = [float(a) for a in parse_alphas(out["alphas"])]
    if isinstance(out.get("null_models"), str):
        out["null_models"] = comma_list(out["null_models"]) or []
    return out


def compare(
    connectome: str | Path | Connectome,
    tasks: str | Sequence[str],
    *,
    show_progress: bool = False,
    **settings: Any,
) -> Comparison:
    """Score the connectome and its nulls on ``tasks`` at every gain; p-values and z.

    Args:
        connectome: a registered name, an edge list / matrix file, or a loaded `Connectome`.
        tasks: a `wirelab.reservoir.tasks.TASKS` name, a list of them, or ``"all"``.
        show_progress: a progress bar over the networks.
        **settings: any field of `ExperimentConfig`, defaults `DEFAULTS` (``alphas``:
            0.2 .. 1.6 in 8 steps, ``nulls=20`` per null model, ``null_models=["degree",
            "degree-boundary"]`` (the second left out, with a note, without cell classes),
            ``inputs="sensory"``, ``outputs="all"``, ``input_scaling=0.3``,
            ``bias="random:0.2"``, ``seed=0``, ``quick=False``, ``workers=None``: every core).

    Returns:
        a `Comparison` (numbers equal to ``wirelab reservoir run``'s with the same settings).

    ``workers=None`` (or > 1) runs the networks in spawned worker processes: in a script, call
    `compare` under ``if __name__ == "__main__":`` (or pass ``workers=1``, in this process).

    Example:
        ``compare("larva", "narma10", alphas=[0.8, 1.0], outputs="DN-VNC", nulls=9)``
    """
    cfg, loaded = settings_config(connectome, _study(tasks, settings))
    exp = resolve_experiment(cfg, loaded)
    metrics = evaluate(exp, show_progress=show_progress)
    return Comparison(exp.config, metrics)


def score(connectome: str | Path | Connectome, task: str, **settings: Any) -> TaskScore:
    """The connectome's own score on ``task`` at every gain (`compare` without nulls).

    Args:
        connectome: as in `compare`.
        task: a `wirelab.reservoir.tasks.TASKS` name; its own metric is returned.
        **settings: as in `compare` (``nulls`` is 0).

    Example:
        ``score("larva", "memory-capacity", alphas=[1.0], outputs="DN-VNC").best``
    """
    if not isinstance(task, str) or task == "all":
        raise UsageError("score takes one task name; compare takes several")
    comparison = compare(connectome, task, **{**settings, "nulls": 0})
    return comparison.score(task)
