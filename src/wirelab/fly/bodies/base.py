"""The body entry type: the `Body` protocol every fly body follows and its `Observation`.

A body is a simulated fly driven by a two-dimensional descending signal. Its protocol::

    reset() -> Observation                  back to the start; the first observation
    act(descending_signal) -> Observation   one step of ``dt`` simulated seconds under the signal
    close() -> None                         release the simulator (and write a video, if any)

Class attributes say what a body can do, so that experiments ask the body instead of testing
its name (`Body`): ``renders_video``, ``supports_batch``; NeuroMechFly bodies also report
their antennae (``antennae() -> (2, 3)`` world positions, left and right).

The descending signal is flygym's ``HybridTurningController`` action: ``[left, right]`` drive
(CPG amplitude of the legs on that side; a negative drive reverses that side's stepping), shape
``(2,)`` for one fly or ``(B, 2)`` for a batch of ``B``. Every body clips it to flygym's action
space `DRIVE_RANGE` ``[-0.5, 1.5]`` (`check_signal`). Equal drives walk straight; a larger left
drive turns the fly to the right (clockwise seen from above), as in flygym.

The bodies themselves are registered in `wirelab.fly.bodies` (``BODIES``); this module holds
only the shared types and imports nothing else of ``wirelab.fly``.

Conventions: positions in mm, time in s, heading in rad (counter-clockwise from +x, unwrapped so
that heading changes can exceed a full turn), odor as ``[left, right]`` antenna intensity.
"""

from __future__ import annotations

import importlib.metadata
import os
from dataclasses import dataclass
from typing import ClassVar, Protocol

import numpy as np

from wirelab.errors import UsageError

DRIVE_RANGE = (-0.5, 1.5)  # flygym HybridTurningController action space


@dataclass(frozen=True)
class Observation:
    """What a body reports after each ``act``.

    Shapes are ``(2,)`` / ``()`` for one fly and ``(B, 2)`` / ``(B,)`` for a batch of ``B``.
    """

    time: float
    position: np.ndarray  # (..., 2) mm
    heading: np.ndarray  # (...) rad, unwrapped
    odor: np.ndarray | None  # (..., 2) [left, right] antenna intensity, None without odor


class Body(Protocol):
    """A simulated fly driven by a two-dimensional descending signal.

    Class attributes describe what a body can do, so that experiments ask the body instead of
    testing its name: ``renders_video`` (accepts ``video=PATH`` and ``viewer=True``),
    ``supports_batch`` (accepts ``batch=B``, ``dt``, ``heading_noise`` and runs ``B`` flies as
    one).
    """

    name: str
    dt: float  # simulated seconds per ``act``
    renders_video: ClassVar[bool]
    supports_batch: ClassVar[bool]

    def reset(self) -> Observation: ...

    def act(self, descending_signal: np.ndarray) -> Observation: ...

    def close(self) -> None: ...


def check_signal(signal: np.ndarray, batch: int | None) -> np.ndarray:
    """Validate ``(2,)`` or ``(B, 2)`` finite drives and clip them to `DRIVE_RANGE`."""
    s = np.asarray(signal, dtype=np.float64)
    want = (2,) if batch is None else (batch, 2)
    if s.shape != want:
        if batch is None or s.shape != (2,):
            raise UsageError(f"descending signal must have shape {want}, got {s.shape}")
        s = np.broadcast_to(s, want)
    if not np.isfinite(s).all():
        raise UsageError("descending signal contains NaN or inf")
    return s.clip(*DRIVE_RANGE)


def has_display() -> bool:
    """True when an X11 or Wayland display is available for a live viewer."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def flygym2_here() -> bool:
    """True when this interpreter imports flygym 2 (the body of the fly environment)."""
    try:
        return importlib.metadata.version("flygym").split(".")[0] == "2"
    except importlib.metadata.PackageNotFoundError:
        return False
