"""The tidy table of a sweep (one row per point: parameters, status, metrics) and its plot.

Metrics are flattened to dotted keys (``summary.mc.p_value``); lists of scalars up to 12 long are
kept as JSON text, longer lists and lists of objects (per-step detail) are left to the point's
``metrics.json``. Rows follow the grid's expansion order, whatever order the points finished in,
so that two backends give the same table. A point's ``metrics.json`` that cannot be read
(`read_metrics`: not JSON, a number past Python's digit limit, nesting past `MAX_DEPTH`) makes
that point ``failed`` with the reason, never the sweep's failure.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from wirelab.errors import UsageError
from wirelab.results import atomic_write_bytes

MAX_DEPTH = 64  # deeper metrics are refused (a parser's or a flattener's recursion)
BASE_COLUMNS = ("index", "point", "status", "attempts", "seconds", "error")
# columns that measure time and so differ between two runs of the same grid
TIMING_WORDS = ("seconds", "time", "wall", "elapsed", "throughput", "per_s", "speed")


def read_metrics(path: Path) -> Any:
    """A point's ``metrics.json``; a `ValueError` with a one-line reason when it cannot be read
    as JSON of at most `MAX_DEPTH` levels (`OSError` when it cannot be opened)."""
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except RecursionError:
        raise ValueError(f"nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # not UTF-8, not JSON, an integer past the digit limit
        raise ValueError(" ".join(str(exc).split(";")[0].split())[:160]) from None
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"nests deeper than {MAX_DEPTH} levels")
        values = item.values() if isinstance(item, dict) else item
        stack += [(v, depth + 1) for v in values if isinstance(v, dict | list)]
    return doc


def flatten_metrics(metrics: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(metrics, dict):
        return {prefix or "value": metrics} if _scalar(metrics) else {}
    out: dict[str, Any] = {}
    for k, v in metrics.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict):
            out.update(flatten_metrics(v, key))
        elif _scalar(v):
            out[key] = v
        elif isinstance(v, list) and len(v) <= 12 and all(_scalar(x) for x in v):
            out[key] = json.dumps(v)
    return out


def _scalar(x: Any) -> bool:
    return x is None or isinstance(x, (bool, int, float, str))


def timing_column(name: str) -> bool:
    low = name.lower()
    return any(w in low for w in TIMING_WORDS)


def columns(rows: list[dict[str, Any]], params: list[str]) -> list[str]:
    cols = ["index", "point", *params, "status", "attempts", "seconds", "error"]
    for row in rows:
        cols += [c for c in row if c not in cols]
    return cols


def write_tables(path: Path, rows: list[dict[str, Any]], params: list[str]) -> list[Path]:
    """``results.csv`` and ``results.jsonl`` in ``path``; returns their paths."""
    cols = columns(rows, params)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: _csv(row.get(c)) for c in cols})
    csv_path = atomic_write_bytes(path / "results.csv", buf.getvalue().encode())
    lines = "".join(json.dumps({c: row.get(c) for c in cols}, default=str) + "\n" for row in rows)
    jsonl_path = atomic_write_bytes(path / "results.jsonl", lines.encode())
    return [csv_path, jsonl_path]


def _csv(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, list):
        return json.dumps(v)
    return v


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def numeric_metrics(rows: list[dict[str, Any]], params: list[str]) -> list[str]:
    skip = {*BASE_COLUMNS, *params}
    names: list[str] = []
    for row in rows:
        for k, v in row.items():
            if k in skip or k in names or timing_column(k):
                continue
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                names.append(k)
    return names


def check_metric(
    metric: str | None, rows: list[dict[str, Any]], params: list[str], source: str = ""
) -> bool:
    """False while no complete row can tell; True once one has ``metric`` as a number (or null:
    non-finite). A complete row without it is a one-line `UsageError` naming the numeric columns."""
    ok = [r for r in rows if r.get("status") == "ok"]
    if metric is None or not ok:
        return metric is None
    row = ok[0]
    value = row.get(metric, "")
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return True
    skip = {*BASE_COLUMNS, *params}
    numeric = [k for k, v in row.items() if k not in skip and isinstance(v, (int, float))]
    raise UsageError(
        f"{source or 'grid'}: metric {metric!r} is not a numeric column of the results "
        f"(point {row['point']}); numeric columns: {', '.join(numeric) or 'none'}"
    )


def summary_plot(
    path: Path, rows: list[dict[str, Any]], params: list[str], metric: str | None
) -> tuple[Path | None, str | None]:
    """Plot ``metric`` (default: the first numeric, non-timing column) against the first varied
    parameter, one line per other setting, mean and standard deviation over ``seed``. Returns
    (png path or None, the metric plotted)."""
    ok = [r for r in rows if r.get("status") == "ok"]
    candidates = numeric_metrics(ok, params)
    if metric is None:  # a named metric was checked by the driver (`sweep.check_metric`)
        metric = candidates[0] if candidates else None
    if metric is None or not params:
        return None, metric
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x_key = next((p for p in params if p != "seed"), params[0])
    group_keys = [p for p in params if p not in (x_key, "seed")]
    series: dict[tuple[Any, ...], dict[Any, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in ok:
        v = r.get(metric)
        if isinstance(v, (int, float)) and math.isfinite(float(v)):
            key = tuple(json.dumps(r.get(g)) for g in group_keys)
            series[key][json.dumps(r.get(x_key))].append(float(v))
    xs_all = sorted({x for s in series.values() for x in s}, key=_sort_key)
    numeric_x = all(isinstance(json.loads(x), (int, float)) for x in xs_all)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for key, by_x in sorted(series.items()):
        xs = sorted(by_x, key=_sort_key)
        pos = [json.loads(x) if numeric_x else xs_all.index(x) for x in xs]
        mean = [sum(by_x[x]) / len(by_x[x]) for x in xs]
        std = [_std(by_x[x]) for x in xs]
        label = ", ".join(f"{g}={json.loads(k)}" for g, k in zip(group_keys, key, strict=True))
        ax.errorbar(pos, mean, yerr=std, marker="o", capsize=3, label=label or None)
    if not numeric_x:
        ax.set_xticks(range(len(xs_all)), [str(json.loads(x)) for x in xs_all], rotation=30)
    else:
        values = [float(json.loads(x)) for x in xs_all]
        if min(values) > 0 and max(values) / min(values) >= 10:  # e.g. widths 32 ... 512
            ax.set_xscale("log")
            ax.set_xticks(values, [str(json.loads(x)) for x in xs_all])
            ax.minorticks_off()
    ax.set_xlabel(x_key)
    ax.set_ylabel(metric)
    seeds = " (mean ± std over seed)" if "seed" in params else ""
    ax.set_title(f"{metric} vs {x_key}{seeds}", fontsize=10)
    if group_keys:
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return atomic_write_bytes(path / "summary.png", buf.getvalue()), metric


def _sort_key(x: str) -> tuple[int, Any]:
    v = json.loads(x)
    return (0, v) if isinstance(v, (int, float)) else (1, str(v))


def _std(v: list[float]) -> float:
    if len(v) < 2:
        return 0.0
    m = sum(v) / len(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))
