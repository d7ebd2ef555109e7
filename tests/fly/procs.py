"""Helpers of the lifetime tests: the processes of a group, read from ``/proc``."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path


def _stat(pid: int) -> tuple[str, int, int] | None:
    """``(state, ppid, pgrp)`` of a live process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[2])


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped counts as ended)."""
    st = _stat(pid)
    return st is not None and st[0] not in ("Z", "X")


def group(pgid: int) -> set[int]:
    """The live processes of process group ``pgid``."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None and st[2] == pgid and st[0] not in ("Z", "X"):
                found.add(int(entry))
    return found


def wait_until(cond: Callable[[], object], timeout: float, step: float = 0.1) -> bool:
    """Poll ``cond`` until it is true or ``timeout`` seconds have passed; its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(step)
    return bool(cond())


def run_pid(out: Path) -> int | None:
    """The pid that ``out/.in-progress`` names, or None while there is none."""
    try:
        return int(json.loads((out / ".in-progress").read_text())["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
