"""Module-level job functions for the executor tests (a worker imports them by name)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from wirelab.errors import UsageError


def square(x: int) -> int:
    return x * x


def scaled(shared: int, x: int) -> int:
    return shared * x


def fail_on(x: int, bad: int) -> int:
    if x == bad:
        raise ValueError(f"{x} is bad\nsecond line")
    return x


def usage_error(x: int) -> int:
    raise UsageError(f"bad input {x}")


def die_once(flag: str, x: int) -> int:
    """Kills its worker the first time (no flag file yet), returns ``x`` the second time."""
    path = Path(flag)
    if not path.exists():
        path.write_text("died")
        os._exit(9)
    return x


def die(x: int) -> int:
    os._exit(9)


def sleep_forever(folder: str, x: int) -> int:
    """Records its worker's pid, then sleeps (a job the driver must stop)."""
    Path(folder, f"{os.getpid()}.pid").write_text(str(x))
    time.sleep(600)
    return x


def pid(x: int) -> int:
    return os.getpid()
