"""Bounds of the fly commands' numbers: limits a person never reaches honestly, checked where a
number is read (the click option types of `wirelab.fly.options` and each experiment config's
``validate``, so the Python API gets them too), before any work or directory.

- counts (seeds, nulls, trials, bootstrap resamples, steps): at most `MAX_COUNT`, `MAX_BOOT` or
  `MAX_STEPS`; a seed with the seeds derived from it stays below ``2**32`` (`check_seeds`);
- simulated seconds: at most what the body simulates in a day here (`max_seconds`)::

      max_seconds = 86400 s / wall_per_sim(body) * (timestep / 1e-4)   (flygym bodies)
      max_seconds = 86400 s / wall_per_sim(body)                       (the kinematic body)

  with ``wall_per_sim`` the body's measured wall seconds per simulated second (a fact of
  `wirelab.fly.bodies.BODIES`, measured at the physics step ``1e-4`` s for flygym), and the
  trace such a run keeps in memory (~`ROW_BYTES` + `FLY_BYTES` per fly, per control update) checked
  against the memory available (`wirelab.cli_options.check_memory`);
- lengths and gains: finite and at most `MAX_MAGNITUDE` in size.

Every refusal is one `UsageError` line naming the option and its limit (exit 2).
"""

from __future__ import annotations

import math

from wirelab.cli_options import check_memory
from wirelab.errors import UsageError

DAY_S = 86_400.0
MAX_COUNT = 10_000  # seeds, nulls, trials
MAX_BOOT = 1_000_000  # bootstrap resamples
MAX_STEPS = 1_000_000  # update steps, reservoir steps, frame intervals
SEED_END = 2**32  # numpy seeds are below this
MAX_MAGNITUDE = 1e6  # mm of an arena, a gain
FLYGYM_STEP = 1e-4  # the physics step at which a flygym body's speed is measured
ROW_BYTES = 1024  # one control update as `wirelab.fly.loop.run_loop` records it (its arrays)
FLY_BYTES = 128  # and each fly's numbers in it


def check_count(value: int, option: str, limit: int = MAX_COUNT, low: int = 0) -> int:
    """``value`` when ``low <= value <= limit``; else a one-line `UsageError`."""
    if not low <= value <= limit:
        raise UsageError(f"{option} must be between {low} and {limit:,}, not {value}")
    return value


def check_seeds(first: int, n: int, option: str = "--seed") -> None:
    """The seeds ``first .. first + n - 1`` (a run's seed and those derived from it, e.g. one
    per null model) must all be below ``2**32``."""
    if first < 0 or first + max(n, 1) - 1 >= SEED_END:
        raise UsageError(
            f"{option} {first} with {n} seeds derived from it goes past {SEED_END - 1} "
            f"(2**32 - 1, the largest seed); use a smaller {option}"
        )


def check_magnitude(value: float, option: str, limit: float = MAX_MAGNITUDE) -> None:
    """A finite ``value`` with ``|value| <= limit``; else a one-line `UsageError`."""
    if not (math.isfinite(value) and abs(value) <= limit):
        raise UsageError(f"{option} must be a number of size at most {limit:g}, not {value}")


def max_seconds(body: str, timestep: float | None = None) -> float:
    """Simulated seconds that ``body`` runs in a day on this machine (module docstring)."""
    from wirelab.fly.bodies import BODIES

    wall = float(BODIES.fact(body, "wall_per_sim", 1.0))
    if BODIES.fact(body, "dt") is None and timestep:  # a flygym body: the step sets its pace
        wall *= FLYGYM_STEP / timestep
    return DAY_S / wall


def check_seconds(
    seconds: float,
    option: str,
    body: str,
    *,
    timestep: float | None = None,
    interval: float = 0.0,
    flies: int = 1,
) -> None:
    """``seconds`` simulated by ``body`` (``flies`` of them at once, a controller update every
    ``interval`` s): finite and > 0, at most a day's worth (`max_seconds`), and its recorded
    trace within the memory available."""
    from wirelab.fly.bodies import BODIES

    if not (math.isfinite(seconds) and seconds > 0):
        raise UsageError(f"{option} must be a finite number of seconds > 0, not {seconds}")
    limit = max_seconds(body, timestep)
    if seconds > limit:
        raise UsageError(
            f"{option} ({seconds:g} simulated s) is more than the {body} body simulates in a "
            "day here "
            f"(at most {limit:.4g} simulated s)"
        )
    dt = float(BODIES.fact(body, "dt") or timestep or FLYGYM_STEP)
    updates = seconds / max(dt, interval)
    check_memory(f"{option} ({seconds:g} simulated s)", updates * (ROW_BYTES + flies * FLY_BYTES))
