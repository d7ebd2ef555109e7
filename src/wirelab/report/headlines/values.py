"""Reading a run's numbers and putting them in words, for the headline functions.

`dig` and `number` read nested JSON without raising (None for anything missing or of the wrong
type), `interval` a ``[low, high]`` pair, `read_side_json` a run's extra JSON record; `wilson` is
the binomial confidence interval the headlines quote; `pct` and `plural` write numbers in words.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from wirelab.report.reading import file_size, read_json

MAX_SIDE_JSON = 1 << 20  # synth.json / verify.json larger than this are not read


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


def interval(doc: Any, key: str) -> tuple[float, float] | None:
    """``doc[key]`` read as a ``[low, high]`` pair of finite numbers, or None."""
    lo, hi = number(dig(doc, key, 0)), number(dig(doc, key, 1))
    return (lo, hi) if lo is not None and hi is not None else None


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
    """``x`` as a percentage: ``pct(0.9967) == "99.67%"``."""
    return f"{100 * x:.{digits}f}%"


def plural(n: int, word: str) -> str:
    """``n`` with thousands separators and ``word``, plural unless n is 1: ``2 nulls``."""
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def read_side_json(path: Path, root: Path) -> dict[str, Any] | None:
    """A run's extra JSON record (``synth.json``) inside its folder ``root``, or None if absent,
    too large, malformed, a symbolic link or outside ``root`` (`wirelab.report.reading`)."""
    try:
        if file_size(path, root) > MAX_SIDE_JSON:
            return None
        doc = read_json(path, root)
    except (OSError, ValueError):  # Refused, Unreadable (bad JSON, huge numbers, deep nesting)
        return None
    return doc if isinstance(doc, dict) else None
