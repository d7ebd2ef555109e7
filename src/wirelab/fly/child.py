"""The fly environment's process lives inside the lifetime of the process that started it.

`run_child` starts the hand-off's child (`wirelab.fly.envs`) so that

- it dies with its parent however the parent dies: it is started through
  `wirelab.parallel.tether.tethered` (Linux ``PR_SET_PDEATHSIG``), so a SIGKILLed parent takes
  it along (the run's directory then keeps ``.in-progress``: it never looks finished);
- SIGTERM and SIGINT of the parent stop it: the child runs in a process group of its own (so a
  Ctrl-C typed at the terminal reaches it once, through the parent, and its ffmpeg writer is not
  killed under it), the parent forwards the signal and waits up to `GRACE` seconds for the child
  to record the failure in its result directory, then kills whatever is left of the child's group;
- the parent returns or raises only once the child is gone, so nothing the child does can land
  after the parent ended (e.g. in the next run's directory);
- ``failed.json`` is written in the run's directory ``out``, and only there: by the child's own
  `wirelab.results.experiment` as for any run, or, when the child could not (killed after
  `GRACE`), by the parent, only if ``out/.in-progress`` names the child's pid on this host and
  the directory's lock is free (`record_failure`).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import signal
import subprocess
import time
from pathlib import Path

from wirelab.errors import WirelabError
from wirelab.lifetime import lock_dir, sigterm_raises, unlock_dir
from wirelab.parallel.tether import tethered
from wirelab.results import FAILED, IN_PROGRESS, one_line, write_json

GRACE = 10.0  # seconds a stopped child gets to write its failed.json


def run_child(
    argv: list[str],
    *,
    env: dict[str, str],
    payload: bytes | None = None,
    out: Path | None = None,
) -> int:
    """Run ``argv`` as a child that lives within this process's lifetime; return its exit status.

    ``payload`` is written to its stdin (then closed); with None it shares this stdin. On
    SIGTERM (raised as `wirelab.lifetime.Terminated` while it runs), Ctrl-C or any other
    exception here, the child is stopped (`stop`), its failure recorded in ``out`` where it could
    not record it itself (`record_failure`), and the exception re-raised. `OSError` when the
    command cannot be started."""
    with sigterm_raises():
        proc = subprocess.Popen(
            tethered(argv),
            stdin=subprocess.PIPE if payload is not None else None,
            env=env,
            process_group=0,
        )
        try:
            if payload is not None and proc.stdin is not None:
                with contextlib.suppress(BrokenPipeError):  # it ended early: its status says why
                    proc.stdin.write(payload)
                    proc.stdin.close()
            return proc.wait()
        except BaseException as exc:
            stop(proc, signal.SIGINT if isinstance(exc, KeyboardInterrupt) else signal.SIGTERM)
            if out is not None:
                record_failure(out, proc.pid, exc)
            raise


def stop(proc: subprocess.Popen[bytes], sig: int, grace: float | None = None) -> None:
    """Send ``sig`` to the child, wait up to ``grace`` seconds (default `GRACE`) for it to end,
    then SIGKILL its whole process group (a writer it started included) and reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, sig)
    deadline = time.monotonic() + (GRACE if grace is None else grace)
    while proc.poll() is None and time.monotonic() < deadline:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=0.1)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def record_failure(out: Path, pid: int, exc: BaseException) -> bool:
    """Write ``out/failed.json`` for the run of the child ``pid`` that ended without recording
    it: only when ``out/.in-progress`` names ``pid`` on this host and the directory's lock can
    be taken (nobody else writes it). Returns whether it wrote."""
    marker = Path(out) / IN_PROGRESS
    try:
        info = json.loads(marker.read_text())
    except (OSError, ValueError):
        return False  # the child recorded its end, or never started the run
    if not isinstance(info, dict) or info.get("pid") != pid or info.get("host") != platform.node():
        return False
    try:
        fd = lock_dir(Path(out))
    except WirelabError:
        return False  # another live run holds it
    try:
        write_json(
            Path(out) / FAILED,
            {"error": one_line(exc), "ended": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
        )
        marker.unlink(missing_ok=True)
    finally:
        unlock_dir(Path(out), fd, os.getpid())
    return True
