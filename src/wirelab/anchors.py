"""Published figures that wirelab's results are read against: one table, with citations.

The report (`wirelab.report`), the README and the docs quote these numbers from here, so they
agree. Each `Anchor` is one figure from one source: the *seed* (the prototype this project grew
from: its results table) or a paper. A run's own baselines (the taxis study's teacher, constant
and random policies, the reservoir's null networks) are not here: the report reads them from the
run itself.

Tasks (`Anchor.task`):

- ``mnist01``: MNIST digits 0 vs 1, test accuracy of the discrete (Boolean) network;
- ``mnist10``: 10-class MNIST, test accuracy of the discrete network (compare at equal gates);
- ``mackey-glass-84``: Mackey-Glass (tau 17) free-running prediction, NRMSE 84 steps ahead;
- ``ice40-up5k``: the FPGA the 0-vs-1 circuit is meant to fit.

``python -m wirelab.anchors`` prints the table as Markdown (`markdown_table`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Anchor:
    """One published figure: ``value`` of ``metric`` on ``task``, reported by ``source``.

    ``unit`` says how to show it: ``"fraction"`` as a percentage (0.9927 -> 99.27%),
    ``"count"`` as an integer with thousands separators, ``"ratio"`` as a plain number.
    ``size`` is the model's size in the source's words (``"973 gates"``).
    """

    task: str
    source: str  # "seed" or "paper" (or "device": a data-sheet figure)
    who: str  # short name shown beside the figure
    metric: str
    value: float
    unit: str
    size: str
    gates: int | None
    citation: str
    note: str = ""

    def figure(self) -> str:
        """The figure as text: ``99.27%``, ``5,280``, ``6.3e-05``."""
        return format_value(self.value, self.unit)

    def text(self) -> str:
        """``99.27% with 973 gates (seed)``."""
        size = f" with {self.size}" if self.size else ""
        return f"{self.figure()}{size} ({self.who})"


def format_value(value: float, unit: str) -> str:
    if unit == "fraction":
        return f"{100 * value:.2f}%"
    if unit == "count":
        return f"{round(value):,}"
    return f"{value:.2g}" if abs(value) < 1e-2 else f"{value:.4g}"


SEED = "wirelab seed: the prototype this project grew from, its results table"
PETERSEN_2022 = (
    "Petersen, Borgelt, Kuehne, Deussen (2022). Deep Differentiable Logic Gate Networks. "
    "NeurIPS 2022 (arXiv:2210.08277), MNIST table"
)
LILOGICNET_2025 = (
    "Fojcik, Zioma, Armaitis (2025). LILogic Net: Compact Logic Gate Networks with Learnable "
    "Connectivity for Efficient Hardware Deployment. arXiv:2511.12340"
)
JAEGER_HAAS_2004 = (
    "Jaeger, Haas (2004). Harnessing Nonlinearity: Predicting Chaotic Systems and Saving "
    "Energy in Wireless Communication. Science 304:78-80"
)
LATTICE_UP5K = "Lattice iCE40 UltraPlus family data sheet, FPGA-DS-02008"

ANCHORS: tuple[Anchor, ...] = (
    Anchor("mnist01", "seed", "seed", "test accuracy", 0.9927, "fraction", "973 gates", 973, SEED),
    Anchor(
        "mnist10", "seed", "seed", "test accuracy", 0.9485, "fraction", "12,207 gates", 12207, SEED
    ),
    Anchor(
        "mnist10",
        "paper",
        "Petersen et al. 2022",
        "test accuracy",
        0.9769,
        "fraction",
        "48,000 gates (6 x 8,000)",
        48000,
        PETERSEN_2022,
    ),
    Anchor(
        "mnist10",
        "paper",
        "LILogicNet 2025",
        "test accuracy",
        0.9845,
        "fraction",
        "8,000 gates, learned connections",
        8000,
        LILOGICNET_2025,
    ),
    Anchor(
        "mackey-glass-84",
        "paper",
        "Jaeger & Haas 2004",
        "NRMSE_84",
        10**-4.2,
        "ratio",
        "1,000 units",
        None,
        JAEGER_HAAS_2004,
        "10^-4.2, about 1e-4",
    ),
    Anchor(
        "ice40-up5k",
        "device",
        "iCE40 UP5K",
        "LUT4 logic cells",
        5280,
        "count",
        "",
        None,
        LATTICE_UP5K,
    ),
)


def anchors_for(task: str, source: str | None = None) -> list[Anchor]:
    """The anchors of ``task`` (optionally only one ``source``), in table order."""
    return [a for a in ANCHORS if a.task == task and (source is None or a.source == source)]


def markdown_table(anchors: tuple[Anchor, ...] = ANCHORS) -> str:
    """The table as Markdown: task, source, figure, size, citation."""
    lines = ["| task | source | figure | size | citation |", "| --- | --- | ---: | --- | --- |"]
    for a in anchors:
        note = f" ({a.note})" if a.note else ""
        lines.append(
            f"| {a.task} | {a.who} | {a.figure()} {a.metric}{note} | {a.size or '-'} "
            f"| {a.citation} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
