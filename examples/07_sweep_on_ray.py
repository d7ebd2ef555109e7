"""A sweep on Ray: the larval reservoir against its null models over a grid of gains.

Does the larval *Drosophila* connectome (Winding et al. 2023), run as a reservoir of tanh units,
remember its input longer than random networks wired like it? One point of the grid is one
``wirelab reservoir run``: the connectome and ``--nulls`` null networks (degree-preserving:
every neuron keeps its in- and out-degree; Erdos-Renyi: only the edge count is kept) score
memory capacity (MC = sum over delays k of corr(y_k(t), u(t-k))^2) at one global gain alpha,
and the run reports the connectome's MC, the nulls' mean and std, z and the empirical p-value.

The grid (gain x null model) runs through the Python API of `wirelab.sweep`, the same call as
``wirelab sweep GRID.toml --backend ray``: each point is a Ray task on a local Ray node (started
here by the sweep, ``workers`` CPUs, shut down at the end; ``--address HOST:PORT`` joins a
running cluster instead). A task runs its command in a temporary directory on its node and sends
the result directory back, so the sweep directory holds every point's ``metrics.json`` and
plots, the tidy table ``results.csv`` and ``summary.png``. Running the script again resumes:
finished points are not run again.

    python examples/07_sweep_on_ray.py            # 5 gains x 2 null models, 10 nulls (minutes)
    python examples/07_sweep_on_ray.py --small    # 2 gains x 1 null model, 2 nulls (CI size)
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from wirelab.sweep import SweepOptions, parse_grid, run_sweep

METRIC = "summary.memory-capacity"  # where each point's metrics keep the task's summary


def gain_grid(small: bool) -> dict[str, object]:
    """The grid as the tables of a grid file (``[sweep]``, ``[fixed]``, ``[vary]``)."""
    return {
        "sweep": {"command": "wirelab reservoir run", "metric": f"{METRIC}.connectome"},
        "fixed": {
            "task": "memory-capacity",
            "connectome": "larva",
            "inputs": "sensory",  # sensory neurons get the input u(t)
            "outputs": "DN-VNC",  # descending neurons are read out
            "normalize": "row",
            "nulls": 2 if small else 10,
            "quick": True,  # short task sequences
            "seed": 0,
            "workers": 1,  # each point's own engine: one process (the sweep runs points at once)
        },
        "vary": {
            "alpha": [0.5, 1.0] if small else [0.2, 0.55, 0.9, 1.25, 1.6],
            "null_model": ["degree"] if small else ["degree", "erdos-renyi"],
        },
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    """One line per point: the gain, the null model, the connectome's MC against its nulls."""
    head = f"{'alpha':>5}  {'null model':<11} {'status':<6} {'MC conn.':>8}  {'MC nulls':>14}"
    print(f"{head}  {'z':>7}  {'p':>6}")
    for r in rows:
        if r["status"] != "ok":
            print(f"{r['alpha']:>5}  {r['null_model']:<11} {r['status']:<6} {r['error']}")
            continue
        nulls = f"{r[f'{METRIC}.null_mean']:.2f} +- {r[f'{METRIC}.null_std']:.2f}"
        print(
            f"{r['alpha']:>5}  {r['null_model']:<11} {r['status']:<6} "
            f"{r[f'{METRIC}.connectome']:>8.2f}  {nulls:>14}  {r[f'{METRIC}.z']:>7.1f}  "
            f"{r[f'{METRIC}.p_value']:>6.3f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", action="store_true", help="CI size: 2 points, 2 nulls each")
    ap.add_argument("--out", type=Path, default=Path("runs/examples/07_sweep_on_ray"))
    ap.add_argument("--workers", type=int, default=2, help="points at once (Ray CPUs)")
    ap.add_argument("--address", default=None, help="a running Ray cluster (HOST:PORT)")
    args = ap.parse_args()

    grid = parse_grid(gain_grid(args.small), "examples/07_sweep_on_ray.py")
    print(f"{len(grid.points())} points: {grid.command} over {', '.join(grid.vary)}")
    # threads=1: each point's BLAS uses one thread (the default is CPUs // workers)
    options = SweepOptions(backend="ray", workers=args.workers, threads=1, address=args.address)
    result = run_sweep(grid, args.out, options)

    done = f"{result.ran} points run on Ray, {result.resumed} already complete"
    print(f"\n{done}, {result.failed} failed, {result.seconds:.1f} s")
    print_table(result.rows)
    ok = [r for r in result.rows if r["status"] == "ok"]
    above = sum(r[f"{METRIC}.connectome"] > r[f"{METRIC}.null_mean"] for r in ok)
    print(f"\nthe connectome's MC is above its nulls' mean at {above} of {len(ok)} points")
    for f in result.files:
        print(f"wrote {f}")


if __name__ == "__main__":
    main()
