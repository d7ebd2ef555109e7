"""A narrower last layer without retraining: keep the ``M`` most class-selective outputs of each
class group (``wirelab logic narrow RUN --per-class M --out DIR``).

``--out`` and ``--per-class`` are checked before the outputs are scored (`check_per_class`,
`wirelab.cli_options.check_out`): a bad one is one line, with no work done and nothing written.

On the FPGA every output of the last layer costs about one LUT4 in the gate network and one in
the head that reads it (a multiplexer input or an adder-tree leaf), so the number of outputs, not
the gates before them, decides whether a ten-class classifier fits the UP5K. `narrow_net` scores
each output ``j`` of class ``c``'s group on the training split (never the test split)::

    s_j = P(y_j = 1 | label = c) - P(y_j = 1 | label != c)      (B, O) bits -> (O,) scores

and keeps, per class, the ``M`` outputs with the largest ``s_j`` (ties: the lower index), in
their original order: the last layer becomes those ``C * M`` gates, everything before it is
unchanged (gates no kept output reads are then removed by the circuit passes). The class score
stays popcount / tau; the argmax (ties to the lowest class) is unchanged in kind. The result is a
new discrete model whose accuracy is measured like any other (on the test split, by the C back
end in ``wirelab logic up5k``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.cli_options import check_out
from wirelab.errors import UsageError
from wirelab.logic.circuit.rundir import load_run
from wirelab.logic.discrete import DiscreteLayer, DiscreteLogicNet
from wirelab.results import experiment


def selectivity(y: np.ndarray, labels: np.ndarray, num_classes: int) -> np.ndarray:
    """``(B, O)`` output bits, ``(B,)`` labels -> ``(O,)`` scores ``s_j`` (module docstring)."""
    y = np.asarray(y, dtype=bool)
    labels = np.asarray(labels)
    group = y.shape[1] // num_classes
    owner = np.repeat(np.arange(num_classes), group)  # class of each output
    scores = np.zeros(y.shape[1])
    for c in range(num_classes):
        mine = labels == c
        if not mine.any() or mine.all():
            continue
        cols = owner == c
        scores[cols] = y[mine][:, cols].mean(0) - y[~mine][:, cols].mean(0)
    return scores


def check_per_class(net: DiscreteLogicNet, per_class: int) -> None:
    """One line unless ``1 <= per_class <=`` the model's outputs per class."""
    if not net.layers:
        raise UsageError("the model has no layers to narrow")
    group = net.layers[-1].size // net.num_classes
    if not 1 <= per_class <= group:
        raise UsageError(f"--per-class must lie in [1, {group}] (the model's group size)")


def narrow_net(net: DiscreteLogicNet, scores: np.ndarray, per_class: int) -> DiscreteLogicNet:
    """``net`` with its last layer cut to the ``per_class`` best-scoring outputs of each class."""
    check_per_class(net, per_class)
    last = net.layers[-1]
    group = last.size // net.num_classes
    keep = []
    for c in range(net.num_classes):
        idx = np.arange(c * group, (c + 1) * group)
        order = np.lexsort((idx, -scores[idx]))  # best first, ties to the lower index
        keep.append(np.sort(idx[order[:per_class]]))
    sel = np.concatenate(keep)
    layer = DiscreteLayer(last.a[sel], last.b[sel], last.gate[sel])
    meta = {**net.meta, "narrowed_per_class": per_class, "narrowed_from_group": group}
    return DiscreteLogicNet(
        net.thresholds, (*net.layers[:-1], layer), net.num_classes, net.tau, meta
    )


def narrow_run(
    run_dir: str | Path,
    out: str | Path,
    per_class: int,
    *,
    max_train: int = 20000,
    overwrite: bool = False,
    log: Callable[[str], None] = lambda m: None,
) -> dict[str, Any]:
    """Score on (up to ``max_train`` images of) the run's training split, narrow, and write a
    finished run directory (``discrete.json``; metrics: test and validation accuracy of both)."""
    from wirelab.logic.datasets import load_task, parse_classes

    check_out(out, overwrite=overwrite)  # before any work: nothing is scored for a bad --out
    if Path(out).resolve() == Path(run_dir).resolve():
        raise UsageError(f"--out {out} is RUN_DIR itself: choose a new directory")
    if max_train < 1:
        raise UsageError(f"--max-train must be >= 1, got {max_train}")
    rd, net = load_run(run_dir)
    check_per_class(net, per_class)
    dataset, classes = net.meta.get("dataset"), net.meta.get("classes")
    if dataset is None or classes is None:
        raise UsageError(f"{rd.path}: the model does not say which dataset it was trained on")
    config = {"run_dir": str(run_dir), "per_class": per_class, "max_train": max_train}
    config.update({"dataset": dataset, "classes": classes})
    data = load_task(str(dataset), parse_classes(classes, str(dataset)))
    n = min(max_train, len(data.train.y))
    log(f"scoring {net.layers[-1].size} outputs on {n} training images")
    xtr = data.train.x[:n].reshape(n, -1)
    scores = selectivity(net.forward_bits(net.binarize(xtr)), data.train.y[:n], net.num_classes)
    small = narrow_net(net, scores, per_class)
    with experiment(out, command="wirelab logic narrow", config=config, overwrite=overwrite) as r:
        small.save(r.path / "discrete.json")
        metrics: dict[str, Any] = {"dataset": dataset, "classes": classes}
        for name, split in (("test", data.test), ("val", data.val)):
            x = split.x.reshape(len(split.x), -1)
            metrics[f"accuracy_{name}_narrowed"] = float((small.predict(x) == split.y).mean())
            metrics[f"accuracy_{name}_original"] = float((net.predict(x) == split.y).mean())
        metrics["accuracy_discrete"] = metrics["accuracy_test_narrowed"]
        metrics.update(
            {
                "outputs": small.layers[-1].size,
                "outputs_original": net.layers[-1].size,
                "gates": small.gates,
            }
        )
        return r.finish(metrics)
