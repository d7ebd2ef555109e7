"""Headlines: each run's question, its answer with the uncertainty, and a verdict computed from the
numbers (never written by hand).

`HEADLINES` is a registry keyed by run type (the command a result directory records in
``config.json``, e.g. ``wirelab reservoir run``); each entry is a function ``(run) -> Headline |
None`` that reads the run's ``metrics.json``, ``config.json`` and (for the logic circuit) its
``synth.json``/``verify/verify.json``, and returns None when the run lacks what it needs, so the
page falls back to the generic view. `GROUPS` holds functions that answer one question from
several runs of one type (left and right stimulation of the fly): ``(runs) -> [(Headline,
runs)]``.

The functions live in `wirelab.report.answers` (reservoir, fly) and `wirelab.report.answers_ml`
(logic, attention, sweeps), which register them; `wirelab.report.story` imports both and picks
the headline of each run (`wirelab.report.story.headline_of`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wirelab.anchors import Anchor
from wirelab.registry import Registry
from wirelab.report.runs import Run

OUTCOMES = ("yes", "no", "unresolved", "info")  # the verdict's CSS class
MAX_SIDE_JSON = 1 << 20  # synth.json / verify.json larger than this are not read


@dataclass
class Comparison:
    """One row of the anchors table beside an answer: who, what figure, and where from."""

    who: str
    figure: str
    note: str = ""
    this_run: bool = False  # the run's own figure (shown first, in bold)

    @classmethod
    def of(cls, anchor: Anchor) -> Comparison:
        return cls(anchor.who, anchor.text().rsplit(" (", 1)[0], anchor.citation)


@dataclass
class Headline:
    """A run's (or a group of runs') answer to its question.

    ``answer`` is the number in words (``MC 8.93``), ``uncertainty`` its interval or p-value with
    the number of seeds, nulls or test images, ``verdict`` one line derived from those numbers
    and ``outcome`` one of `OUTCOMES`. ``plots`` names the key plots (file stems, in order),
    ``table`` a small evidence table (gate counts, LUTs, Fmax), ``tables`` CSV files shown
    with it (a sweep's ``results.csv``), ``missing`` the (file, key) pairs the answer would use
    but the run lacks.
    """

    question: str
    answer: str
    uncertainty: str
    verdict: str
    outcome: str = "info"
    comparisons: list[Comparison] = field(default_factory=list)
    plots: tuple[str, ...] = ()
    table: list[tuple[str, Any]] = field(default_factory=list)
    table_caption: str = ""
    tables: tuple[str, ...] = ()  # CSV files of the run shown with the evidence
    missing: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, not {self.outcome!r}")


HeadlineFn = Callable[[Run], "Headline | None"]
GroupFn = Callable[[Sequence[Run]], "list[tuple[Headline, list[Run]]]"]

# filled by `wirelab.report.answers` and `wirelab.report.answers_ml` (``@HEADLINES.register``)
HEADLINES = Registry[HeadlineFn]("headline")
GROUPS = Registry[GroupFn]("headline group")


def run_type(run: Run) -> str:
    """The key of `HEADLINES`: the recorded command, or ``wirelab sweep`` for any sweep."""
    cmd = " ".join(run.command.split())
    return "wirelab sweep" if cmd.startswith("wirelab sweep") else cmd


# --- helpers for the headline functions ------------------------------------------------------


def dig(doc: Any, *keys: str | int) -> Any:
    """``doc[k1][k2]...``, or None where a key is missing or a value has the wrong type."""
    for k in keys:
        if isinstance(doc, dict) and isinstance(k, str):
            doc = doc.get(k)
        elif isinstance(doc, list) and isinstance(k, int) and -len(doc) <= k < len(doc):
            doc = doc[k]
        else:
            return None
    return doc


def number(x: Any) -> float | None:
    """``x`` as a finite float, or None (missing, null, a string, nan)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion ``successes / n`` (95% for z = 1.96).

    ``(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``, with p = successes / n.
    """
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def pct(x: float, digits: int = 2) -> str:
    return f"{100 * x:.{digits}f}%"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def read_side_json(path: Path) -> dict[str, Any] | None:
    """A run's extra JSON record (``synth.json``), or None if absent, too large or malformed."""
    try:
        if path.stat().st_size > MAX_SIDE_JSON:
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return doc if isinstance(doc, dict) else None
