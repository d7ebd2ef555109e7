"""Click options and types shared by every command (one definition each).

- `out_option`: ``--out DIR`` (a directory; a file there is a one-line usage error) and
  ``--overwrite`` (rerun into a directory that holds a finished run; see `wirelab.results`).
- `FINITE_FLOAT` and `finite_float(min=..., max=...)`: floats that reject NaN and inf up front,
  with one line, before any result directory exists.
- `SEED`: an integer seed in [0, 2**32 - 1] (what numpy accepts); `THREADS`: 1 to 1024.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


class FiniteFloat(click.ParamType):
    """A float that is finite and optionally bounded: ``nan``, ``inf`` and out-of-range fail."""

    name = "float"

    def __init__(
        self,
        min: float | None = None,
        max: float | None = None,
        *,
        min_open: bool = False,
        max_open: bool = False,
    ) -> None:
        self.min, self.max, self.min_open, self.max_open = min, max, min_open, max_open

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            x = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(x):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        lo_bad = self.min is not None and (x <= self.min if self.min_open else x < self.min)
        hi_bad = self.max is not None and (x >= self.max if self.max_open else x > self.max)
        if lo_bad or hi_bad:
            lo = "" if self.min is None else f"{'>' if self.min_open else '>='} {self.min:g}"
            hi = "" if self.max is None else f"{'<' if self.max_open else '<='} {self.max:g}"
            self.fail(
                f"{x:g} is out of range (must be {' and '.join(s for s in (lo, hi) if s)})",
                param,
                ctx,
            )
        return x


FINITE_FLOAT = FiniteFloat()


def finite_float(
    min: float | None = None,
    max: float | None = None,
    *,
    min_open: bool = False,
    max_open: bool = False,
) -> FiniteFloat:
    return FiniteFloat(min, max, min_open=min_open, max_open=max_open)


SEED = click.IntRange(min=0, max=2**32 - 1)
# Thread counts: at least one, and not absurd (torch and numba overflow on huge values).
THREADS = click.IntRange(min=1, max=1024)


def out_option(
    default: str | None = None, help: str = "Result directory to write."
) -> Callable[[F], F]:
    """``--out`` (required when no default) and ``--overwrite`` in one decorator."""

    def deco(f: F) -> F:
        f = click.option(
            "--overwrite",
            is_flag=True,
            help="Replace a finished run in --out (by default the command refuses).",
        )(f)
        return click.option(
            "--out",
            type=click.Path(file_okay=False, path_type=Path),
            default=default,
            required=default is None,
            show_default=default is not None,
            help=help,
        )(f)

    return deco
