"""What a training run reports besides its numbers: the discretisation-gap warning and the
training curves (``training.png``)."""

from __future__ import annotations

from typing import Any

from wirelab.plotting import pyplot
from wirelab.results import ResultDir

GAP_WARNING_PP = 1.0  # a discretisation gap above this many points is reported


def gap_warning(gap: float) -> str | None:
    """A warning when the test accuracy drops more than `GAP_WARNING_PP` points on
    discretisation (``gap`` = soft - discrete, a fraction), else ``None``."""
    if gap * 100 <= GAP_WARNING_PP:
        return None
    return (
        f"the discrete network is {gap * 100:.2f} points below the relaxed one on the test set "
        f"(more than {GAP_WARNING_PP:g}); try a lower tau, longer training or --forward st"
    )


def plot_history(history: list[dict[str, Any]], rd: ResultDir, *, by_step: bool) -> None:
    """``training.png``: training loss and validation accuracy (soft, discrete) per record."""
    plt = pyplot()
    key = "step" if by_step else "epoch"
    xs = [h[key] for h in history]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.2))
    ax1.plot(xs, [h["loss"] for h in history])
    ax1.set(xlabel=key, ylabel="training loss")
    ax2.plot(xs, [h["val_soft"] for h in history], label="validation, soft")
    ax2.plot(xs, [h["val_discrete"] for h in history], label="validation, discrete")
    ax2.set(xlabel=key, ylabel="accuracy")
    ax2.legend()
    rd.save_figure(fig, "training")
