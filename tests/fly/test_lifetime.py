"""The fly hand-off's child lives within its parent's lifetime (`wirelab.fly.child`): it dies with
a SIGKILLed parent (the directory then does not look finished), a SIGTERMed parent stops it and
leaves ``failed.json`` in the run's directory, and nothing of it is left running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.clirun import REPO
from tests.fly.procs import alive, group, run_pid, wait_until
from wirelab.fly import envs

needs_fly_env = pytest.mark.skipif(
    envs.flygym2_here() or envs.fly_python() is None,
    reason="needs the main environment with a fly environment beside it (.venv-fly: make fly-env)",
)


STARTED: list[subprocess.Popen[bytes]] = []


@pytest.fixture(autouse=True)
def _kill_leftovers() -> Iterator[None]:
    """A test that fails half-way leaves nothing running: its parents are SIGKILLed (their
    children are tethered to them)."""
    yield
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def popen(argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(argv, **kwargs)
    STARTED.append(proc)
    return proc


def start_flygym(out: Path, tmp_path: Path) -> subprocess.Popen[bytes]:
    """``wirelab fly stimulate --body flygym`` long enough to be stopped while it walks."""
    argv = [sys.executable, "-m", "wirelab.cli", "fly", "stimulate", "--side", "left"]
    argv += ["--body", "flygym", "--duration", "30", "--no-compare"]
    argv += ["--video", str(tmp_path / "v.mp4"), "--out", str(out)]
    with (tmp_path / "log.txt").open("wb") as log:
        return popen(argv, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)


def walking(log: Path) -> bool:
    """Whether the flygym run logging to ``log`` is past its imports, walking (its progress)."""
    return log.is_file() and b"flygym row left" in log.read_bytes()


def child_of(parent: subprocess.Popen[bytes], out: Path, log: Path | None = None) -> int:
    """The child's pid, once it has started the run in ``out`` (and, with ``log``, walks)."""

    def started() -> bool:
        return run_pid(out) not in (None, parent.pid) and (log is None or walking(log))

    if not wait_until(started, 240, 0.2):
        parent.kill()
        pytest.fail(f"the hand-off did not start its run (exit {parent.poll()})")
    pid = run_pid(out)
    assert pid is not None and alive(pid)
    return pid


def assert_all_gone(parent: subprocess.Popen[bytes], child: int) -> None:
    parent.wait(timeout=60)
    assert wait_until(lambda: not alive(child) and not group(child), 30), "a child outlived it"


@needs_fly_env
def test_a_sigkilled_parent_takes_the_fly_child_along(tmp_path: Path) -> None:
    out = tmp_path / "stim"
    parent = start_flygym(out, tmp_path)
    child = child_of(parent, out, tmp_path / "log.txt")
    parent.send_signal(signal.SIGKILL)
    assert_all_gone(parent, child)
    assert (out / ".in-progress").exists()  # a killed run, never a finished one
    assert not (out / "metrics.json").exists() and not (out / "failed.json").exists()


@needs_fly_env
def test_a_sigtermed_parent_stops_the_fly_child_and_records_it(tmp_path: Path) -> None:
    out = tmp_path / "stim"
    parent = start_flygym(out, tmp_path)
    child = child_of(parent, out, tmp_path / "log.txt")
    parent.send_signal(signal.SIGTERM)
    assert_all_gone(parent, child)
    assert parent.returncode == 143
    assert "SIGTERM" in json.loads((out / "failed.json").read_text())["error"]
    assert not (out / ".in-progress").exists() and not (out / "metrics.json").exists()
    assert {p.name for p in tmp_path.iterdir()} <= {"log.txt", "stim", "v.mp4"}


# The mechanism without the fly environment: a parent runs a test child through `run_child`.
# The child marks the run as `experiment` does (``.in-progress`` naming its pid) and then
# ignores SIGTERM, so that only the parent can record the failure (after the grace period).
CHILD = """
import json, os, signal, sys, time
from pathlib import Path
out = Path(sys.argv[1])
out.mkdir()
(out / ".in-progress").write_text(json.dumps({"pid": os.getpid(), "host": os.uname().nodename}))
signal.signal(signal.SIGTERM, signal.SIG_IGN)
time.sleep(600)
"""

PARENT = """
import os, signal, sys
from pathlib import Path
from wirelab.fly import child
signal.signal(signal.SIGINT, signal.default_int_handler)  # even where started in the background
child.GRACE = 1.0
out = Path(sys.argv[1])
child.run_child([sys.executable, "-c", sys.argv[2], str(out)], env=dict(os.environ), out=out)
"""


def start_parent(out: Path) -> subprocess.Popen[bytes]:
    code = textwrap.dedent(PARENT)
    return popen([sys.executable, "-c", code, str(out), CHILD], cwd=REPO)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_parent_ends_a_stubborn_child_and_writes_failed_json(
    tmp_path: Path, sig: int
) -> None:
    out = tmp_path / "run"
    parent = start_parent(out)
    child = child_of(parent, out)
    parent.send_signal(sig)
    assert_all_gone(parent, child)
    reason = json.loads((out / "failed.json").read_text())["error"]
    assert ("SIGTERM" if sig == signal.SIGTERM else "KeyboardInterrupt") in reason
    assert not (out / ".in-progress").exists() and not (out / ".lock").exists()


def test_a_sigkilled_parent_takes_its_child_along(tmp_path: Path) -> None:
    out = tmp_path / "run"
    parent = start_parent(out)
    child = child_of(parent, out)
    parent.send_signal(signal.SIGKILL)
    assert_all_gone(parent, child)
    assert (out / ".in-progress").exists() and not (out / "failed.json").exists()


def test_failed_json_only_for_the_childs_own_run(tmp_path: Path) -> None:
    from wirelab.fly.child import record_failure

    out = tmp_path / "run"
    out.mkdir()
    marker = {"pid": os.getpid() + 1_000_000, "host": os.uname().nodename}
    (out / ".in-progress").write_text(json.dumps(marker))
    assert not record_failure(out, os.getpid(), KeyboardInterrupt())  # another process's run
    assert not record_failure(tmp_path / "none", os.getpid(), KeyboardInterrupt())
    assert not (out / "failed.json").exists() and not (tmp_path / "none").exists()


# `rerun_in_fly_env` (a script such as examples/06 that opens the flygym body itself): the main
# environment's Python stands in for the fly environment's; the rerun script just waits.
SCRIPT = """
import os, time
if not os.environ.get("WIRELAB_IN_FLY_ENV"):
    from wirelab.fly import rerun_in_fly_env
    rerun_in_fly_env()
open(os.environ["STARTED"], "w").write(str(os.getpid()))
time.sleep(600)
"""


@pytest.mark.skipif(envs.flygym2_here(), reason="this interpreter is the fly environment")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_rerun_script_does_not_outlive_its_parent(tmp_path: Path, sig: int) -> None:
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    started = tmp_path / "started"
    env = {**os.environ, envs.PYTHON_VAR: sys.executable, "STARTED": str(started)}
    env.pop(envs.CHILD_VAR, None)
    parent = popen([sys.executable, str(script)], cwd=REPO, env=env)
    assert wait_until(lambda: started.is_file() and started.read_text(), 60), "no rerun"
    child = int(started.read_text())
    assert child != parent.pid and alive(child)
    parent.send_signal(sig)
    assert_all_gone(parent, child)
    if sig == signal.SIGTERM:
        assert parent.returncode == 143
