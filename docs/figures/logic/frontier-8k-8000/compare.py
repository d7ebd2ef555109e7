"""Validation curves of the three 8,000-step runs of docs/logic.md ("Top-K and Gumbel-ST: a first
measurement"), from the run directories copied beside this script.

Run:  .venv/bin/python docs/figures/logic/frontier-8k-8000/compare.py
Writes compare.png: validation accuracy (soft dashed, discrete solid) per step, and ms per step.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = Path(__file__).parent
runs = {p.parent.name: json.loads(p.read_text()) for p in sorted(here.glob("*/metrics.json"))}
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 3.2))
for i, (name, m) in enumerate(runs.items()):
    h = m["history"]
    steps = [r["step"] for r in h]
    colour = f"C{i}"
    ax.plot(steps, [r["val_discrete"] for r in h], colour, label=f"{name}, discrete")
    ax.plot(steps, [r["val_soft"] for r in h], colour, linestyle="--", label=f"{name}, soft")
    secs = [0.0] + [r["train_seconds"] for r in h]
    ms = [1000 * (b - a) / (s1 - s0) for a, b, s0, s1 in zip(secs, secs[1:], [0] + steps, steps)]
    ax2.plot(steps, ms, colour, label=name)
ax.set(xlabel="step", ylabel="validation accuracy", ylim=(0.9, 0.975))
ax.legend(fontsize=7)
ax2.set(xlabel="step", ylabel="ms per step (shared 2-core machine)")
ax2.legend(fontsize=7)
fig.tight_layout()
fig.savefig(here / "compare.png", dpi=90)
