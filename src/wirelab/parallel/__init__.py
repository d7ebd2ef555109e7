"""One executor for every parallel study: independent jobs in, results out as they finish.

A study builds a list of `Job` (a module-level function and its arguments) and hands it, with
its `ExecOptions` (``--backend local|ray``, ``--workers``, ``--address``), to `run_jobs` (results
as they finish) or `map_jobs` (values in job order; the first failed job stops the rest and is
raised as one line). Every back end (`POOLS`) shares one progress line, one cancellation path
(Ctrl-C and SIGTERM stop every job, no worker outlives the run), one retry policy and one way to
report a failed job (`wirelab.parallel.jobs`). ``wirelab reservoir run``, ``wirelab fly turns``,
``taxis``, ``timestep``, ``lateralization``, ``wirelab logic train --seeds`` and ``wirelab
sweep`` all run through it.
"""

from wirelab.parallel.executor import map_jobs, run_jobs
from wirelab.parallel.jobs import Job, JobFailed, JobResult, default_workers
from wirelab.parallel.pool import POOLS, ExecOptions, Pool

__all__ = [
    "POOLS",
    "ExecOptions",
    "Job",
    "JobFailed",
    "JobResult",
    "Pool",
    "default_workers",
    "map_jobs",
    "run_jobs",
]
