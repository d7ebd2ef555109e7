"""Run a command that dies with the process that started it (Linux ``PR_SET_PDEATHSIG``).

``python -I -S tether.py PARENT_PID COMMAND [ARGS...]`` asks the kernel to send it SIGKILL when
the thread that started it ends, checks that its parent is still ``PARENT_PID`` (the parent may
have ended before the request was made), then replaces itself with ``COMMAND`` (``execvp``: the
same pid and process group; the death signal is kept across ``exec``). `wirelab.sweep.runner`
starts each point of a sweep through it (`tethered`), so that a driver killed without any chance
to clean up (SIGKILL, a closed terminal) takes its points with it; the driver's own cleanup still
ends their whole process groups on an orderly stop. The worker processes of the ``local`` back end
(`wirelab.parallel.local`) call `tether` themselves. Where ``prctl`` does not exist (not Linux) the
command simply runs untethered.

The script imports nothing outside the standard library (it runs with ``-I -S``, before any
package is importable). A command that cannot be started prints ``NAME: reason`` and exits 127,
as a shell does.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def tethered(argv: list[str]) -> list[str]:
    """``argv`` started through this script: it dies with this process.

    Example: `subprocess.Popen(tethered(["sleep", "60"]))` is killed by the kernel when the
    process that started it dies, even by SIGKILL."""
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), str(os.getpid()), *argv]


def tether() -> None:
    """Ask for SIGKILL when the parent thread ends (no-op where ``prctl`` is unavailable)."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def main(argv: list[str]) -> int:
    """``PARENT_PID COMMAND [ARGS...]``: tether, check the parent, then ``exec`` the command."""
    parent, command = int(argv[0]), argv[1:]
    tether()
    if os.getppid() != parent:  # the driver ended before the request: end with it
        return 137
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"{command[0]}: {exc.strerror or exc}", file=sys.stderr)
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
