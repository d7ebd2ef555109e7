"""Validation curves of the three 8,000-step runs of docs/logic.md ("Top-K and Gumbel-ST: a first
measurement"), from the run directories copied beside this script.

Run:  .venv/bin/python docs/figures/logic/frontier-8k-8000/compare.py
Writes compare.png: validation accuracy (soft dashed, discrete solid) per step, whole range and
zoomed, and ms per step.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = Path(__file__).parent
runs = {p.parent.name: json.loads(p.read_text()) for p in sorted(here.glob("*/metrics.json"))}
fig, (ax0, ax, ax2) = plt.subplots(1, 3, figsize=(13, 3.4))
for i, (name, m) in enumerate(runs.items()):
    h = m["history"]
    steps = [r["step"] for r in h]
    colour = f"C{i}"
    for a in (ax0, ax):
        a.plot(steps, [r["val_discrete"] for r in h], colour, label=f"{name}, discrete")
        a.plot(steps, [r["val_soft"] for r in h], colour, linestyle="--", label=f"{name}, soft")
    secs = [0.0, *(r["train_seconds"] for r in h)]
    starts = [0, *steps]
    ms = [1000 * (secs[i + 1] - secs[i]) / (starts[i + 1] - starts[i]) for i in range(len(steps))]
    ax2.plot(steps, ms, colour, label=name)
ax0.set(xlabel="step", ylabel="validation accuracy", ylim=(0.0, 1.0))
ax0.legend(fontsize=7)
ax.set(xlabel="step", ylabel="validation accuracy (zoom)", ylim=(0.9, 0.975))
ax2.set(xlabel="step", ylabel="ms per step (shared 2-core machine)")
ax2.legend(fontsize=7)
fig.tight_layout()
fig.savefig(here / "compare.png", dpi=90)
