"""One executor for every parallel study: independent jobs in, results out as they finish.

A study builds a list of `Job` (a module-level function and its arguments) and hands it, with
its `ExecOptions` (``--backend local|ray``, ``--workers``, ``--address``), to `run_jobs` (results
as they finish) or `map_jobs` (values in job order; the first failed job stops the rest and is
raised as one line). The back ends are one registry, `POOLS` (``local``: worker processes here;
``ray``: tasks on a Ray cluster): every study command's ``--backend`` and ``wirelab sweep``'s read
it, and adding one is a `Pool` subclass plus one ``POOLS.add`` line. Every back end shares one
progress line, one cancellation path (Ctrl-C and SIGTERM stop every job, no worker outlives the
run: `tethered` processes die with their driver), one retry policy and one way to report a failed
job (`wirelab.parallel.jobs`). Jobs that only wait on a subprocess of their own (a sweep's points)
run from threads on the ``local`` back end (`ThreadPool`, `Pool.subprocess_pool`). ``wirelab
reservoir run``, ``wirelab fly turns``, ``taxis``, ``timestep``, ``lateralization``, ``wirelab logic
train --seeds`` and ``wirelab sweep`` all run through it; docs/scale.md is the guide.

Quickstart:

```python
import math
from wirelab.parallel import ExecOptions, Job, map_jobs, run_jobs

jobs = [Job(f"{n}!", math.factorial, (n,)) for n in range(8)]
print(map_jobs(jobs, ExecOptions(workers=2), show=False))  # values in job order
for r in run_jobs(jobs, ExecOptions(workers=1), show=False):  # results as they finish
    print(r.key, r.value, "ok" if r.ok else r.error)
# ExecOptions(backend="ray", workers=4): the same jobs as tasks on a local Ray node
```
"""

from wirelab.parallel.executor import map_jobs, run_jobs
from wirelab.parallel.jobs import Job, JobFailed, JobResult, default_workers
from wirelab.parallel.pool import POOLS, ExecOptions, Pool, ThreadPool
from wirelab.parallel.tether import tethered

__all__ = [
    "POOLS",
    "ExecOptions",
    "Job",
    "JobFailed",
    "JobResult",
    "Pool",
    "ThreadPool",
    "default_workers",
    "map_jobs",
    "run_jobs",
    "tethered",
]
