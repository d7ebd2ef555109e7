"""The executor of every study (`wirelab.parallel`): same values with 1 and N workers, one way
to report a failed job, the retry policy, no worker outliving its run, options checked."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.parallel import toyjobs
from wirelab.errors import UsageError
from wirelab.parallel import (
    POOLS,
    ExecOptions,
    Job,
    JobFailed,
    JobResult,
    Pool,
    default_workers,
    map_jobs,
    run_jobs,
)
from wirelab.parallel.jobs import call

REPO = Path(__file__).resolve().parents[2]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_one_and_two_workers_give_the_same_values_in_job_order() -> None:
    jobs = [Job(str(i), toyjobs.scaled, (i,)) for i in range(7)]
    one = map_jobs(jobs, ExecOptions(workers=1), shared=3, show=False)
    two = map_jobs(jobs, ExecOptions(workers=2), shared=3, show=False)
    assert one == two == [3 * i for i in range(7)]


def test_two_workers_are_two_processes_and_one_is_this_one() -> None:
    jobs = [Job(str(i), toyjobs.pid, (i,)) for i in range(4)]
    assert set(map_jobs(jobs, ExecOptions(workers=1), show=False)) == {os.getpid()}
    pids = set(map_jobs(jobs, ExecOptions(workers=2), show=False))
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


@pytest.mark.parametrize("workers", [1, 2])
def test_a_job_that_raises_is_reported_once_with_its_key(workers: int) -> None:
    jobs = [Job(f"job {i}", toyjobs.fail_on, (i, 2)) for i in range(4)]
    results = list(run_jobs(jobs, ExecOptions(workers=workers), show=False))
    (bad,) = [r for r in results if not r.ok]
    assert bad.key == "job 2" and bad.attempts == 1  # raised: not retried
    assert bad.error == "ValueError: 2 is bad"  # one line
    with pytest.raises(JobFailed, match=r"^job job 2 failed after 1 attempt\(s\): ValueError"):
        map_jobs(jobs, ExecOptions(workers=workers), show=False)


def test_a_wirelab_error_in_a_job_keeps_its_class_and_message() -> None:
    with pytest.raises(UsageError, match=r"^bad input 1$"):
        map_jobs([Job("a", toyjobs.usage_error, (1,))], ExecOptions(workers=2), show=False)


def test_a_lost_worker_is_replaced_and_its_job_retried(tmp_path: Path) -> None:
    flag = str(tmp_path / "flag")
    jobs = [Job("dies once", toyjobs.die_once, (flag, 5)), Job("fine", toyjobs.square, (3,))]
    results = {r.key: r for r in run_jobs(jobs, ExecOptions(workers=2), show=False)}
    assert results["dies once"].ok and results["dies once"].value == 5
    assert results["dies once"].attempts == 2 and results["fine"].value == 9


def test_a_job_that_always_kills_its_worker_fails_after_the_retries() -> None:
    jobs = [Job("dies", toyjobs.die, (1,)), Job("fine", toyjobs.square, (2,))]
    results = {r.key: r for r in run_jobs(jobs, ExecOptions(workers=2, retries=1), show=False)}
    assert results["fine"].value == 4
    assert results["dies"].attempts == 2 and "worker lost" in results["dies"].error


def test_closing_the_results_early_stops_every_worker(tmp_path: Path) -> None:
    jobs = [Job(str(i), toyjobs.sleep_forever, (str(tmp_path), i)) for i in range(2)]
    jobs.append(Job("quick", toyjobs.square, (2,)))
    results = run_jobs(jobs, ExecOptions(workers=3), show=False)
    assert next(results).value == 4
    assert _wait(lambda: len(list(tmp_path.glob("*.pid"))) == 2, 60)
    pids = [int(p.stem) for p in tmp_path.glob("*.pid")]
    results.close()  # type: ignore[attr-defined]
    assert not any(_alive(p) for p in pids)


DRIVER = """
import signal
import sys
from tests.parallel import toyjobs
from wirelab.lifetime import sigterm_raises
from wirelab.parallel import ExecOptions, Job, map_jobs
if __name__ == "__main__":
    # as in a terminal: a shell's background job (CI started with '&') inherits SIGINT ignored
    signal.signal(signal.SIGINT, signal.default_int_handler)
    jobs = [Job(str(i), toyjobs.sleep_forever, (sys.argv[1], i)) for i in range(2)]
    with sigterm_raises():
        map_jobs(jobs, ExecOptions(workers=2), show=False)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_stopped_driver_leaves_no_worker(tmp_path: Path, sig: int) -> None:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'src'}"}
    driver = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path)], cwd=REPO, env=env, stderr=subprocess.PIPE
    )
    assert _wait(lambda: len(list(tmp_path.glob("*.pid"))) == 2, 60), "workers never started"
    pids = [int(p.stem) for p in tmp_path.glob("*.pid")]
    os.kill(driver.pid, sig)
    driver.wait(timeout=30)
    assert driver.returncode != 0
    assert _wait(lambda: not any(_alive(p) for p in pids), 10), "a worker outlived its driver"


class SerialPool(Pool):
    """Toy back end: the jobs one after another, in this thread."""

    def run(self, jobs: list[Job], shared: Any = None) -> Iterator[JobResult]:
        for i, job in enumerate(jobs):
            yield JobResult(i, job.key, call(job.fn, shared, job.args))


def test_a_registered_back_end_is_one_class_and_one_line() -> None:
    POOLS.add("toy", SerialPool, "toy: the jobs in order here")
    try:
        jobs = [Job(str(i), toyjobs.square, (i,)) for i in range(5)]
        assert map_jobs(jobs, ExecOptions("toy", workers=3), show=False) == [0, 1, 4, 9, 16]
    finally:
        POOLS.remove("toy")


def test_default_workers_are_the_cores_this_process_may_use() -> None:
    assert default_workers() == len(os.sched_getaffinity(0))
    assert ExecOptions().n_workers == default_workers()
    assert ExecOptions(workers=1000).pool(3).workers == 3  # never more workers than jobs


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (ExecOptions(workers=0), "--workers must be 1 to 4,096, got 0"),
        (ExecOptions(workers=10**20), "--workers must be 1 to 4,096, got 1000"),
        (ExecOptions(address="h:1"), "--address only applies to --backend ray"),
        (ExecOptions("nope"), "unknown executor back end 'nope'"),
    ],
)
def test_bad_options_are_one_line(options: ExecOptions, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        options.validate()
