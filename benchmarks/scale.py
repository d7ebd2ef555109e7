"""Wall time of a study on 1 and 2 workers, and the cost model's prediction for N cores.

Runs one study command (``--workers 1``, then ``--workers 2``) with ``WIRELAB_JOB_TIMES`` set, so
that the executor records every job's seconds, and prints ONE JSON line: the measured wall times,
the speed-up, the jobs per phase and their seconds, and the cost model (docs/scale.md)::

    T(N) = s + sum over phases p of [ q(N) + makespan(jobs of p, N) ]
    makespan(jobs, N) = the longest worker's load when jobs go, longest first, to the least
                        loaded of N workers (a job list in the order given, as the executor runs it)
    q(N) = 0 for N = 1 (jobs run in the driver), else the start-up of a pool of workers

``s`` (serial work: loading, resolving, plotting) = T(1) - sum of job seconds at N = 1; ``q`` is
measured on its own: two spawned workers importing the study's job module (`pool_startup`). Per-job
seconds are those measured with 1 worker. The model is fitted on the 1-worker run only, so the
2-worker run checks it (``error_2``: predicted / measured - 1).

    python benchmarks/scale.py reservoir   # wirelab reservoir run --task narma10 --nulls 4 ...
    python benchmarks/scale.py taxis       # wirelab fly taxis (kinematic body), the defaults
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STUDIES = {
    "reservoir": "reservoir run --task narma10 --quick --nulls 4 --null-model degree".split(),  # noqa: SIM905
    "taxis": ["fly", "taxis", "--body", "kinematic", "--trials", "50", "--train-trials", "20"],
}
JOB_MODULES = {"reservoir": "wirelab.reservoir.jobs", "taxis": "wirelab.fly.taxis.jobs"}
PREDICT = (1, 2, 8, 32, 128)


def makespan(seconds: list[float], n: int) -> float:
    """Greedy list scheduling of ``seconds`` (in order) on ``n`` workers: the last finish."""
    loads = [0.0] * n
    heapq.heapify(loads)
    for s in seconds:
        heapq.heappush(loads, heapq.heappop(loads) + s)
    return max(loads)


def measure(argv: list[str], workers: int, tmp: Path) -> tuple[float, dict[str, list[float]]]:
    """Wall seconds of the command and the seconds of its jobs by phase (label)."""
    log = tmp / f"jobs-{workers}.jsonl"
    env = {**os.environ, "WIRELAB_JOB_TIMES": str(log)}
    out = tmp / f"out-{workers}"
    cmd = [sys.executable, "-m", "wirelab.cli", *argv, "--workers", str(workers), "--out", str(out)]
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    phases: dict[str, list[float]] = {}
    for line in log.read_text().splitlines():
        rec = json.loads(line)
        phases.setdefault(rec["label"], []).append(rec["seconds"])
    return wall, phases


def pool_startup(module: str) -> float:
    """Seconds for two spawned workers to start and import ``module`` (one job each)."""
    from wirelab.parallel import ExecOptions, Job, map_jobs

    jobs = [Job(str(i), _import, (module,)) for i in range(2)]
    t0 = time.perf_counter()
    map_jobs(jobs, ExecOptions(workers=2), show=False)
    return time.perf_counter() - t0


def _import(module: str) -> str:
    import importlib

    return importlib.import_module(module).__name__


def model(t1: float, q: float, phases: dict[str, list[float]]) -> dict[str, float]:
    """The fitted ``s``, the measured ``q`` and the predicted wall time for `PREDICT` cores."""
    s = t1 - sum(sum(v) for v in phases.values())
    out = {"serial_s": round(s, 2), "pool_startup_s": round(q, 2)}
    for n in PREDICT:
        t = s + sum((q if n > 1 else 0.0) + makespan(v, n) for v in phases.values())
        out[f"predicted_{n}_s"] = round(t, 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("study", choices=sorted(STUDIES))
    args = parser.parse_args()
    argv = STUDIES[args.study]
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="wirelab-scale-") as tmp:
        t1, phases = measure(argv, 1, Path(tmp))
        t2, _ = measure(argv, 2, Path(tmp))
    fit = model(t1, pool_startup(JOB_MODULES[args.study]), phases)
    jobs = {k: {"jobs": len(v), "seconds": [round(x, 2) for x in v]} for k, v in phases.items()}
    record = {
        "study": args.study,
        "command": "wirelab " + " ".join(argv),
        "wall_1_s": round(t1, 1),
        "wall_2_s": round(t2, 1),
        "speedup_2": round(t1 / t2, 2),
        "phases": jobs,
        **fit,
        "error_2": round(fit["predicted_2_s"] / t2 - 1, 3),
        "load_before": load,
        "load_after": os.getloadavg()[0],
    }
    print(json.dumps(record))


if __name__ == "__main__":
    main()
