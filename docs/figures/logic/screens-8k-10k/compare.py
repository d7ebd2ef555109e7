"""The 10,000-step screens of issue 46's 8K options (docs/logic.md, "Choosing the long 8K
recipe"): every run is `recipes/logic/mnist10-8k-learned.toml` with `--steps 10000` and the
options its config.json records, seed 0, one thread, validation only (the test split unread).

Run:  .venv/bin/python docs/figures/logic/screens-8k-10k/compare.py
Writes compare.png (discrete validation accuracy per step, per screen) and prints the table of
best validation accuracies.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = Path(__file__).parent
runs = {p.parent.name: json.loads(p.read_text()) for p in sorted(here.glob("*/metrics.json"))}
order = sorted(runs, key=lambda n: -max(r["val_discrete"] for r in runs[n]["history"]))
fig, ax = plt.subplots(figsize=(8, 4.2))
for i, name in enumerate(order):
    h = runs[name]["history"]
    best = max(r["val_discrete"] for r in h)
    ax.plot(
        [r["step"] for r in h],
        [r["val_discrete"] for r in h],
        f"C{i % 10}",
        linestyle="-" if i < 10 else "--",
        label=f"{name} ({100 * best:.2f}%)",
    )
    print(
        f"{name:14s} best {100 * best:.2f}%  last {100 * h[-1]['val_discrete']:.2f}%  "
        f"{runs[name]['train_seconds']:.0f} s"
    )
ax.set(xlabel="step", ylabel="discrete validation accuracy", ylim=(0.9, 0.98))
ax.legend(fontsize=7, ncol=2)
fig.tight_layout()
fig.savefig(here / "compare.png", dpi=90)
