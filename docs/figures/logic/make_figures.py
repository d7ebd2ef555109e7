"""Figures for docs/logic.md from finished run directories.

Run:  .venv/bin/python docs/figures/logic/make_figures.py runs/logic
Writes curves.png (validation accuracy per epoch, soft and discrete) and gates.png (gate types).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from wirelab.logic.gates import NAMES

root = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/logic")
out = Path(__file__).parent
runs = sorted(p.parent for p in root.glob("*/metrics.json"))
metrics = {r.name: json.loads((r / "metrics.json").read_text()) for r in runs}

cols = min(3, len(metrics))
rows = -(-len(metrics) // cols)
fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.8 * rows), squeeze=False)
for ax, (name, m) in zip(axes.flat, metrics.items(), strict=False):
    h = m["history"]
    ep = [r["epoch"] for r in h]
    ax.plot(ep, [r["val_soft"] for r in h], label="soft")
    ax.plot(ep, [r["val_discrete"] for r in h], label="discrete")
    ax.set_title(f"{name} ({m['gates']:,} gates)", fontsize=9)
    ax.set_xlabel("epoch")
    ax.set_ylim(max(0.8, min(r["val_discrete"] for r in h) - 0.01), 1.0)
axes[0][0].set_ylabel("validation accuracy")
axes[0][0].legend()
fig.tight_layout()
fig.savefig(out / "curves.png", dpi=90)

fig, ax = plt.subplots(figsize=(8, 3))
width = 0.8 / max(1, len(metrics))
for i, (name, m) in enumerate(metrics.items()):
    counts = [m["gates_by_type"][n] / m["gates"] for n in NAMES]
    ax.bar([g + i * width for g in range(16)], counts, width, label=name)
ax.set_xticks([g + 0.4 - width / 2 for g in range(16)], NAMES, rotation=60, fontsize=7)
ax.set_ylabel("fraction of gates")
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out / "gates.png", dpi=90)
print(f"wrote {out / 'curves.png'} and {out / 'gates.png'} from {len(metrics)} runs")
