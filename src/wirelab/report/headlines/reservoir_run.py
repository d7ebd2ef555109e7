"""The reservoir's headline (``wirelab reservoir run``): does the connectome score better on its
task than its null networks?

The run's ``metrics.json`` holds ``summary[task]`` (`wirelab.reservoir.stats.summarize`): the
connectome's score at its best alpha, the nulls' mean and sd at that alpha, the empirical p-value
(with ``n_nulls`` nulls the smallest p is ``1 / (n_nulls + 1)``), z, and p with every network at
its own best alpha. The verdict: yes if the score is better than the null mean with p <= `ALPHA`,
not resolved if better with a larger p, no if not better; with several null families
(``summary_by_null_model``: e.g. plain and boundary-preserving degree nulls) one comparison and
one verdict per family, yes or no overall only when they agree. A default run has two families,
``degree`` and ``degree-boundary`` (`wirelab.reservoir.nulls.DEFAULT_NULLS`): each is named with
its mean ± sd and p; a family the connectome could not have (``null_models_left_out``: no cell
classes) is named with the reason.
"""

from __future__ import annotations

from typing import Any

from wirelab.anchors import anchors_for
from wirelab.report.headlines.base import Comparison, Headline, HeadlineEntry
from wirelab.report.headlines.values import dig, number, plural
from wirelab.report.runs import Run
from wirelab.report.words import code, score
from wirelab.reservoir.nulls import DEFAULT_NULLS, NULLS
from wirelab.reservoir.tasks import labelled_metrics, metric_of

ALPHA = 0.05  # p at or below this is called significant


# --- the reservoir's tasks and null models, in the words their registry entries carry --------


def task_words(task: str) -> str:
    """What the connectome would do better on ``task`` (a task or score label of metrics.json's
    summary), as the question says it (``remember more``): the words of its `Metric`
    (`wirelab.reservoir.tasks`); ``score better on TASK`` for one without words."""
    metric = metric_of(task)
    return metric.words if metric is not None and metric.words else f"score better on {code(task)}"


def null_words(kind: str) -> str:
    """The null model ``kind`` as the question names it (``degree-preserving``): its entry's
    words (`wirelab.reservoir.nulls.NULLS`), else its name."""
    words = NULLS.get(kind).words if kind in NULLS else ""
    return words or code(kind)


def preferred_tasks() -> list[str]:
    """The scores a run's headline prefers, in registry order (the metrics marked ``headline``)."""
    return [label for label, metric in labelled_metrics() if metric.headline]


# --- the headline ---------------------------------------------------------------------------


def _connectome(config: dict[str, Any]) -> str:
    name = dig(config, "config", "connectome") or dig(config, "connectome") or "larva"
    return "the larval connectome" if name == "larva" else f"the {code(name)} connectome"


def _p_text(p: float, n: int) -> str:
    floor = 1 / (n + 1)
    note = f"; the smallest p {n} nulls can give is {floor:.2g}" if p <= floor + 1e-12 else ""
    return f"p = {p:.2g} ({plural(n, 'null')}{note})"


def _verdict(s: dict[str, Any], value: float, metric: str, nulls: str) -> tuple[str, str, str]:
    """(uncertainty, outcome, verdict) of the task's summary ``s`` for the connectome's score
    ``value`` (``metric`` in words): the p-value against the nulls decides."""
    mean, p, n = number(dig(s, "null_mean")), number(dig(s, "p_value")), dig(s, "n_nulls")
    n = int(number(n) or 0)
    if mean is None or p is None or n == 0:
        return (
            "no null networks in this run",
            "info",
            f"No comparison: the run has no {nulls} nulls (--nulls 0).",
        )
    hib = dig(s, "higher_is_better") is not False
    z, p_own = number(dig(s, "z")), number(dig(s, "p_value_own_best_alpha"))
    uncertainty = _p_text(p, n) + (f"; z = {z:+.2f}" if z is not None else "")
    if p_own is not None:
        uncertainty += f"; every network at its own best gain: p = {p_own:.2g}"
    better = value > mean if hib else value < mean
    word = "above" if hib else "below"
    if better and p <= ALPHA:
        verdict = f"Yes: {value:.3g} is {word} the null mean {mean:.3g}, p = {p:.2g} ≤ {ALPHA}."
        return uncertainty, "yes", verdict
    if better:
        verdict = (
            f"Not shown: {value:.3g} is {word} the null mean {mean:.3g}, but p = {p:.2g} "
            f"> {ALPHA} with {plural(n, 'null')}."
        )
        return uncertainty, "unresolved", verdict
    return uncertainty, "no", f"No: {metric} {value:.3g} is not {word} the null mean {mean:.3g}."


def families(run: Run, task: str) -> list[tuple[str, dict[str, Any]]]:
    """``[(null model, summary of task against it), ...]`` in the run's order: every family of
    ``summary_by_null_model``, or (a run written before it existed) ``summary`` against the
    config's first null model."""
    by_model = dig(run.metrics, "summary_by_null_model")
    if isinstance(by_model, dict) and by_model:
        return [(str(k), v[task]) for k, v in by_model.items() if isinstance(v, dict) and task in v]
    kind = dig(run.config, "config", "null_models", 0) or DEFAULT_NULLS[0]
    return [(str(kind), dig(run.metrics, "summary", task))]


def _spread(s: dict[str, Any]) -> str:
    """The nulls' ``mean ± sd`` of summary ``s`` (``mean`` alone with one null), "" without."""
    mean, sd = number(dig(s, "null_mean")), number(dig(s, "null_std"))
    if mean is None:
        return ""
    return f"{mean:.3g} ± {sd:.2g} (mean ± sd), " if sd is not None else f"{mean:.3g}, "


def _left_out(run: Run) -> str:
    """``"; boundary-preserving degree nulls left out: REASON"`` per default family the run's
    connectome could not have (metrics.json ``null_models_left_out``), "" if none."""
    left = dig(run.metrics, "null_models_left_out")
    if not isinstance(left, dict):
        return ""
    return "".join(f"; {null_words(str(k))} nulls left out: {why}" for k, why in left.items())


def _combined(parts: list[tuple[str, str, str, str]]) -> tuple[str, str, str]:
    """One (uncertainty, outcome, verdict) from each family's ``(words, uncertainty, outcome,
    verdict)``: yes or no only when every family agrees, else not resolved."""
    if len(parts) == 1:
        return parts[0][1], parts[0][2], parts[0][3]
    outcomes = {o for _, _, o, _ in parts}
    outcome = outcomes.pop() if len(outcomes) == 1 else "unresolved"
    uncertainty = "; ".join(f"{words} nulls: {u}" for words, u, _, _ in parts)
    verdict = " ".join(f"Against the {words} nulls: {v}" for words, _, _, v in parts)
    return uncertainty, outcome, verdict


def reservoir(run: Run) -> Headline | None:
    """The connectome's best-alpha score against each family of nulls at that alpha
    (`stats.summarize`, one summary per null model): a family each comparison, a verdict each."""
    summary = dig(run.metrics, "summary")
    if not isinstance(summary, dict) or not summary:
        return None
    task = next((t for t in preferred_tasks() if t in summary), sorted(summary)[0])
    s = summary[task]
    value, metric = number(dig(s, "connectome")), score(dig(s, "metric") or task)
    if value is None:
        return None
    fams = families(run, task) or [(DEFAULT_NULLS[0], s)]
    named = [(null_words(kind), fs) for kind, fs in fams]
    who = _connectome(run.config)
    nulls = " and ".join(words for words, _ in named)
    question = f"Does {who} {task_words(task)} than its {nulls} nulls?"
    alpha = number(dig(s, "best_alpha"))
    answer = f"{metric} {value:.3g}" + (f" at gain {alpha:g}" if alpha is not None else "")
    where = code(f"summary.{task}.p_value") + " in " + code("metrics.json")
    missing = (
        []
        if number(dig(s, "p_value")) is not None
        else [f"the p-value against the nulls ({where})"]
    )
    comparisons = [Comparison(who.removeprefix("the "), f"{value:.3g}", "this run", True)]
    parts = []
    for words, fs in named:
        mean, sd = number(dig(fs, "null_mean")), number(dig(fs, "null_std"))
        n = int(number(dig(fs, "n_nulls")) or 0)
        if mean is not None:
            comparisons.append(
                Comparison(
                    f"{words} nulls", f"{mean:.3g} ± {sd or 0:.2g}", f"mean ± sd of {n}, run"
                )
            )
        uncertainty, outcome, verdict = _verdict(fs, value, metric, words)
        parts.append((words, _spread(fs) + uncertainty, outcome, verdict))
    comparisons += [Comparison.of(a) for a in anchors_for(task)]
    uncertainty, outcome, verdict = _combined(parts)
    uncertainty += _left_out(run)
    return Headline(
        question,
        answer,
        uncertainty,
        verdict,
        outcome,
        comparisons,
        plots=("score_vs_alpha",),
        missing=missing,
    )


RESERVOIR = HeadlineEntry("wirelab reservoir run", reservoir)
