"""Arbitrary ``metrics.json`` -> readable HTML tables.

A metrics document is any JSON value. It is split into
- *scalars*: numbers, strings, booleans, nulls and short lists of scalars, with nested objects
  flattened to dotted keys (``{"mc": {"total": 3.1}}`` -> ``mc.total``), shown as one key/value
  table;
- *record tables*: lists of objects (``"results": [{"alpha": 0.9, "mc": 3.1}, ...]``), one table
  each with the union of their keys as columns, cut to ``max_rows`` rows; a nested object with
  more than ``WIDE_DICT`` scalars (counts per gate type) becomes a one-row table, and an object of
  objects of scalars (``{"CN": {"left": 50, "right": 50}, ...}``) a table with one row per key;
- *series*: long lists of numbers or nested lists, summarised by length, shape and range.

Every string that reaches the page goes through `html.escape`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from html import escape
from typing import Any

SHORT_LIST = 12  # lists of scalars up to this length are shown in full
WIDE_DICT = 8  # a nested object with more scalars than this becomes a one-row table
MAX_ROWS = 25  # rows shown per record table; longer ones are cut with a note


def is_scalar(x: Any) -> bool:
    return x is None or isinstance(x, (bool, int, float, str))


def fmt(x: Any) -> str:
    """One value as text: floats to 4 significant digits, nulls as an em dash."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return str(x)
        if x == int(x) and abs(x) < 1e6:
            return f"{x:.1f}"
        return f"{x:.4g}"
    if isinstance(x, str):
        return x
    text = json.dumps(x, separators=(", ", ": "), default=str)
    return text if len(text) <= 120 else text[:117] + "…"


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


@dataclass
class Series:
    """A long list summarised: its length, nested shape and numeric range."""

    key: str
    shape: tuple[int, ...]
    lo: float | None
    hi: float | None
    head: list[Any]


@dataclass
class Records:
    """A list of objects shown as a table."""

    key: str
    columns: list[str]
    rows: list[dict[str, Any]]
    total: int


@dataclass
class Split:
    scalars: list[tuple[str, Any]] = field(default_factory=list)
    records: list[Records] = field(default_factory=list)
    series: list[Series] = field(default_factory=list)


def _is_table_of_objects(d: dict[Any, Any]) -> bool:
    """At least two entries, each an object of scalars (or short scalar lists)."""

    def flat(v: Any) -> bool:
        return is_scalar(v) or (
            isinstance(v, list) and len(v) <= SHORT_LIST and all(is_scalar(x) for x in v)
        )

    return len(d) >= 2 and all(
        isinstance(v, dict) and v and all(flat(x) for x in v.values()) for v in d.values()
    )


def _shape(x: Any) -> tuple[int, ...]:
    if isinstance(x, list):
        return (len(x), *(_shape(x[0]) if x else ()))
    return ()


def _flat_numbers(x: Any) -> list[float]:
    if isinstance(x, list):
        return [v for item in x for v in _flat_numbers(item)]
    return [float(x)] if is_number(x) and not math.isnan(float(x)) else []


def split_metrics(metrics: Any, max_rows: int = MAX_ROWS) -> Split:
    """Sort a metrics document into scalars, record tables and series (see module doc)."""
    out = Split()
    if not isinstance(metrics, dict):
        metrics = {"value": metrics}

    def visit(prefix: str, value: Any, nested: bool = True) -> None:
        if is_scalar(value):
            out.scalars.append((prefix, value))
        elif isinstance(value, dict):
            if nested and len(value) > WIDE_DICT and all(is_scalar(v) for v in value.values()):
                # many scalars under one key (counts per gate type, ...): one wide row
                out.records.append(Records(prefix, [str(k) for k in value], [value], 1))
                return
            if nested and _is_table_of_objects(value):
                # {"CN": {"left": 50, "right": 50}, "KC": {...}}: one row per key
                names = ["name"]
                for row in value.values():
                    names += [str(k) for k in row if str(k) not in names]
                rows = [{"name": k, **v} for k, v in value.items()]
                out.records.append(Records(prefix, names, rows[:max_rows], len(rows)))
                return
            if not value and nested:
                out.scalars.append((prefix, "{}"))
            for k, v in value.items():
                visit(f"{prefix}.{k}" if nested else str(k), v)
        elif isinstance(value, list):
            if all(is_scalar(v) for v in value) and len(value) <= SHORT_LIST:
                out.scalars.append((prefix, ", ".join(fmt(v) for v in value) or "[]"))
            elif value and all(isinstance(v, dict) for v in value):
                columns: list[str] = []
                for row in value:
                    columns += [str(k) for k in row if str(k) not in columns]
                out.records.append(Records(prefix, columns, value[:max_rows], len(value)))
            else:
                nums = _flat_numbers(value)
                out.series.append(
                    Series(
                        prefix,
                        _shape(value),
                        min(nums) if nums else None,
                        max(nums) if nums else None,
                        value[:5],
                    )
                )
        else:  # not produced by json.load, but keep the page alive
            out.scalars.append((prefix, str(value)))

    visit("", metrics, nested=False)
    return out


def headline(metrics: Any, n: int = 4) -> list[tuple[str, Any]]:
    """The first ``n`` numeric scalars (then any scalars) of a metrics document."""
    scalars = split_metrics(metrics, max_rows=0).scalars
    nums = [(k, v) for k, v in scalars if is_number(v)]
    return (nums or scalars)[:n]


def _td(value: Any) -> str:
    cls = ' class="num"' if is_number(value) else ""
    return f"<td{cls}>{escape(fmt(value))}</td>"


def kv_table(pairs: list[tuple[str, Any]], caption: str | None = None) -> str:
    """A two-column key/value table."""
    if not pairs:
        return ""
    rows = "".join(f"<tr><th scope=row>{escape(k)}</th>{_td(v)}</tr>" for k, v in pairs)
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f'<table class="kv">{cap}<tbody>{rows}</tbody></table>'


def records_table(rec: Records) -> str:
    head = "".join(f"<th scope=col>{escape(c)}</th>" for c in rec.columns)
    body = "".join(
        "<tr>" + "".join(_td(row.get(c)) for c in rec.columns) + "</tr>" for row in rec.rows
    )
    more = ""
    if rec.total > len(rec.rows):
        more = (
            f'<tr class="more"><td colspan="{len(rec.columns)}">… {rec.total - len(rec.rows)} '
            f"more rows of {rec.total} in metrics.json</td></tr>"
        )
    rows = f" <span class=dim>({rec.total} rows)</span>" if rec.total > 1 else ""
    cap = f"<caption>{escape(rec.key)}{rows}</caption>"
    return (
        f'<div class="scroll"><table class="records">{cap}<thead><tr>{head}</tr></thead>'
        f"<tbody>{body}{more}</tbody></table></div>"
    )


def series_table(series: list[Series]) -> str:
    if not series:
        return ""
    rows = []
    for s in series:
        shape = " × ".join(str(d) for d in s.shape)
        rng = f"{fmt(s.lo)} … {fmt(s.hi)}" if s.lo is not None else "—"
        rows.append(
            f"<tr><th scope=row>{escape(s.key)}</th><td>{escape(shape)}</td>"
            f"<td class=num>{escape(rng)}</td><td>{escape(fmt(s.head))}</td></tr>"
        )
    head = "<tr><th>series</th><th>shape</th><th>range</th><th>first values</th></tr>"
    return (
        f'<div class="scroll"><table class="series"><thead>{head}</thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def metrics_parts(metrics: Any, max_rows: int = MAX_ROWS) -> tuple[str, str]:
    """(the key/value table of scalars, the record and series tables) of a metrics document."""
    split = split_metrics(metrics, max_rows)
    tables = [records_table(r) for r in split.records]
    tables.append(series_table(split.series))
    return kv_table(split.scalars), "".join(t for t in tables if t)


def metrics_html(metrics: Any, max_rows: int = MAX_ROWS) -> str:
    """All tables for one metrics document."""
    scalars, tables = metrics_parts(metrics, max_rows)
    return scalars + tables or '<p class="dim">metrics.json is empty.</p>'
