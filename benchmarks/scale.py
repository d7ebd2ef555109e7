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
    python benchmarks/scale.py brain       # a generated 140,000-neuron, 3M-edge brain (below)
    python benchmarks/scale.py brain --tiny   # 2,000 neurons, 40,000 edges, --quick (a test)

``brain``: ``wirelab connectome generate --neurons 140000 --edges 3000000`` into a temporary
folder (``generate_s``), the edge list loaded once here (``load_s``, column-wise and row by row,
``load_reference_s``), then ``wirelab reservoir run`` on it with sensory inputs, the descending
neurons read out and one degree-preserving null, on 1 and 2 workers; ``peak_rss_1_mb`` and
``peak_rss_2_mb`` are the largest process's peak resident memory of each run (with 2 workers,
the driver and each worker are separate processes), ``estimate_mb`` the study's estimate
(`wirelab.reservoir.memory`, for 1 worker). ``--tiny`` runs every study at a test's size.
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

# the brain study's null family, named (docs/scale.md measured one degree null; the default,
# degree and degree-boundary, would run one of each): its command and its memory estimate
BRAIN_NULLS = ["degree"]
STUDIES = {
    "reservoir": "reservoir run --task narma10 --quick --nulls 4 --null-model degree".split(),  # noqa: SIM905
    "taxis": ["fly", "taxis", "--body", "kinematic", "--trials", "50", "--train-trials", "20"],
    "brain": [
        *"reservoir run --task narma10 --inputs sensory --outputs descending --nulls 1".split(),  # noqa: SIM905
        *["--null-model", ",".join(BRAIN_NULLS)],
    ],
}
TINY = {  # --tiny: the same studies at a test's size
    "reservoir": ["--alpha", "1.0", "--nulls", "1"],
    "taxis": ["--trials", "4", "--train-trials", "2"],
    "brain": ["--quick", "--alpha", "0.8,1.2"],
}
BRAIN = {"full": (140_000, 3_000_000), "tiny": (2_000, 40_000)}  # neurons, edges
JOB_MODULES = {
    "reservoir": "wirelab.reservoir.jobs",
    "taxis": "wirelab.fly.taxis.jobs",
    "brain": "wirelab.reservoir.jobs",
}
PREDICT = (1, 2, 8, 32, 128)


def makespan(seconds: list[float], n: int) -> float:
    """Greedy list scheduling of ``seconds`` (in order) on ``n`` workers: the last finish."""
    loads = [0.0] * n
    heapq.heapify(loads)
    for s in seconds:
        heapq.heappush(loads, heapq.heappop(loads) + s)
    return max(loads)


def measure(
    argv: list[str], workers: int, tmp: Path
) -> tuple[float, dict[str, list[float]], float]:
    """Wall seconds of the command, the seconds of its jobs by phase (label) and the largest
    peak resident memory (MB) among its processes."""
    log = tmp / f"jobs-{workers}.jsonl"
    env = {**os.environ, "WIRELAB_JOB_TIMES": str(log)}
    out = tmp / f"out-{workers}"
    cmd = [sys.executable, "-m", "wirelab.cli", *argv, "--workers", str(workers), "--out", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)  # the run's own usage, its reaped workers' included
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err.strip()[-500:]}")
    phases: dict[str, list[float]] = {}
    for line in log.read_text().splitlines():
        rec = json.loads(line)
        phases.setdefault(rec["label"], []).append(rec["seconds"])
    return wall, phases, usage.ru_maxrss / 1024


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


def make_brain(tmp: Path, tiny: bool, argv: list[str]) -> tuple[list[str], dict[str, float]]:
    """Generate the brain-sized connectome into ``tmp``, time it and its load; the study's
    arguments with ``--connectome`` and its memory estimate (for the study's own null family,
    `BRAIN_NULLS`, not the default's)."""
    from dataclasses import replace

    from wirelab.data.connectomes.user import load_user_connectome
    from wirelab.reservoir.config import DEFAULTS, resolve_experiment
    from wirelab.reservoir.memory import study_memory

    neurons, edges = BRAIN["tiny" if tiny else "full"]
    gen = [sys.executable, "-m", "wirelab.cli", "connectome", "generate"]
    gen += ["--neurons", str(neurons), "--edges", str(edges), "--out", str(tmp / "brain")]
    t0 = time.perf_counter()
    subprocess.run(gen, check=True, stdout=subprocess.DEVNULL)
    record = {"neurons": neurons, "edges": edges, "generate_s": time.perf_counter() - t0}
    path = tmp / "brain" / "edges.parquet"
    for key, fast in (("load_s", True), ("load_reference_s", False)):
        t0 = time.perf_counter()
        load_user_connectome(path, fast=fast)
        record[key] = time.perf_counter() - t0
    cfg = replace(DEFAULTS, connectome=str(path), tasks=["narma10"], workers=1)
    cfg = replace(cfg, inputs="sensory", outputs="descending", nulls=1, quick=tiny)
    cfg = replace(cfg, null_models=list(BRAIN_NULLS))
    if tiny:
        cfg = replace(cfg, alphas=[0.8, 1.2])
    record["estimate_mb"] = study_memory(resolve_experiment(cfg), 1).peak / 2**20
    return [*argv, "--connectome", str(path)], {k: round(v, 2) for k, v in record.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("study", choices=sorted(STUDIES))
    parser.add_argument("--tiny", action="store_true", help="every study at a test's size")
    args = parser.parse_args()
    argv = STUDIES[args.study] + (TINY[args.study] if args.tiny else [])
    load = os.getloadavg()[0]
    extra: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="wirelab-scale-") as tmp:
        if args.study == "brain":
            argv, extra = make_brain(Path(tmp), args.tiny, argv)
        t1, phases, rss1 = measure(argv, 1, Path(tmp))
        t2, _, rss2 = measure(argv, 2, Path(tmp))
    if args.study == "brain":
        extra.update({"peak_rss_1_mb": round(rss1), "peak_rss_2_mb": round(rss2)})
    fit = model(t1, pool_startup(JOB_MODULES[args.study]), phases)
    jobs = {k: {"jobs": len(v), "seconds": [round(x, 2) for x in v]} for k, v in phases.items()}
    record = {
        "study": args.study,
        "tiny": args.tiny,
        "command": "wirelab " + " ".join(argv),
        **extra,
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
