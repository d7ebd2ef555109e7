"""Issue #33: one writer per result directory.

A run holds its directory's lock (`wirelab.lifetime.lock_dir`) until it ends: a second run into a
directory whose run is alive is refused with one line naming that process, and the lock dies with
the process however it dies. SIGTERM leaves ``failed.json`` like Ctrl-C. ``--resume`` of a
complete run changes nothing (`wirelab.results.refuse_finished_resume`). ``--out ''`` is a usage
error.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clirun import REPO, one_line_error, wirelab
from wirelab.errors import UsageError
from wirelab.lifetime import LOCK, DirectoryBusy
from wirelab.results import FAILED, IN_PROGRESS, ResultDir, experiment, refuse_finished_resume

# A tiny experiment in its own process: starts a run into argv[1], says so, sleeps argv[2] s.
HOLD = """
import sys, time
from wirelab.results import experiment
with experiment(sys.argv[1], command="hold", config={}) as rd:
    print("started", flush=True)
    time.sleep(float(sys.argv[2]))
    rd.finish({"slept": float(sys.argv[2])})
"""


def _files(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.is_file()}


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """A process whose run into ``tmp_path/run`` is alive (sleeping), and that directory."""
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)])}
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(out), "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
    yield proc, out
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=30)


def test_a_second_run_into_a_live_directory_is_refused_naming_its_pid(holder) -> None:
    proc, out = holder
    before = _files(out)
    assert (out / LOCK).read_text().strip() == str(proc.pid)
    r = wirelab("attention", "positional", "--length", "16", "--dim", "2", "--out", out)
    assert r.returncode == 2 and one_line_error(r), r.stderr
    assert f"pid {proc.pid}" in r.stderr and "still alive" in r.stderr
    for kw in ({}, {"overwrite": True}, {"resume": True}):
        with pytest.raises(DirectoryBusy, match=f"pid {proc.pid}"):
            ResultDir.create(out, command="x", config={}, **kw)
    assert _files(out) == before  # nothing of the live run was touched


def test_the_lock_dies_with_a_killed_run(holder) -> None:
    proc, out = holder
    proc.kill()  # SIGKILL: no cleanup; the marker and the lock file stay, the lock does not
    proc.wait(timeout=30)
    assert (out / IN_PROGRESS).is_file() and (out / LOCK).is_file()
    with experiment(out, command="again", config={}) as rd:
        assert (out / LOCK).read_text().strip() == str(os.getpid())
        rd.finish({"ok": 1})
    assert ResultDir(out).status == "complete" and not (out / LOCK).exists()


def test_sigterm_leaves_failed_json(holder) -> None:
    proc, out = holder
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err
    assert json.loads((out / FAILED).read_text())["error"] == "Terminated: SIGTERM"
    assert ResultDir(out).status == "failed"
    assert not (out / IN_PROGRESS).exists() and not (out / LOCK).exists()


def test_one_process_one_writer_and_the_lock_released_at_the_end(tmp_path: Path) -> None:
    out = tmp_path / "run"
    rd = ResultDir.create(out, command="x", config={})
    with pytest.raises(DirectoryBusy, match=f"pid {os.getpid()}"):
        ResultDir.create(out, command="y", config={})
    rd.finish({"v": 1})
    assert not (out / LOCK).exists()
    with pytest.raises(RuntimeError), experiment(out, command="x", config={}, overwrite=True):
        raise RuntimeError("boom")
    assert not (out / LOCK).exists() and ResultDir(out).status == "failed"
    with experiment(out, command="x", config={}, resume=True):
        pass  # a body that returns without finishing: in progress, but no longer locked
    assert ResultDir(out).status == "in progress" and not (out / LOCK).exists()
    ResultDir.create(out, command="x", config={}).finish({"v": 2})


def test_sigterm_handler_is_installed_for_the_run_only(tmp_path: Path) -> None:
    def mine(signum: int, frame: object) -> None:
        raise AssertionError("not expected")

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        with experiment(tmp_path / "a", command="x", config={}) as rd:
            assert signal.getsignal(signal.SIGTERM) is not mine
            rd.finish({})
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)
    done: list[str] = []

    def in_thread() -> None:  # signals belong to the main thread: elsewhere it runs as before
        with experiment(tmp_path / "b", command="x", config={}) as rd:
            rd.finish({})
            done.append("ok")

    t = threading.Thread(target=in_thread)
    t.start()
    t.join()
    assert done == ["ok"] and ResultDir(tmp_path / "b").status == "complete"


def test_resume_of_a_complete_run_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with experiment(out, command="x", config={"v": 1}) as rd:
        rd.finish({"v": 1})
    before = _files(out)
    with pytest.raises(UsageError, match="holds a complete run, there is nothing to resume"):
        refuse_finished_resume(out)
    assert _files(out) == before
    (out / IN_PROGRESS).write_text("{}")  # killed during a rerun: resumable
    refuse_finished_resume(out)
    refuse_finished_resume(tmp_path / "none")  # nothing there: the command's own check says so


def test_empty_out_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = wirelab("attention", "positional", "--length", "16", "--dim", "2", "--out", "")
    assert r.returncode == 2 and one_line_error(r) and "'' is empty" in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_forked_child_leaves_the_lock_with_the_run(tmp_path: Path) -> None:
    """A worker forked during a run (multiprocessing) that drops its copy of the run keeps
    neither the file nor the lock from the run."""
    out = tmp_path / "run"
    rd = ResultDir.create(out, command="x", config={})
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        rd.release()
        os._exit(0)
    os.waitpid(child, 0)
    assert (out / LOCK).read_text().strip() == str(os.getpid())
    with pytest.raises(DirectoryBusy):
        ResultDir.create(out, command="y", config={})
    rd.finish({})
    assert not (out / LOCK).exists()
