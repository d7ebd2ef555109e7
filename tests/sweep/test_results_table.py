from __future__ import annotations

import json
from pathlib import Path

from wirelab.sweep.results_table import (
    flatten_metrics,
    read_csv,
    summary_plot,
    timing_column,
    write_tables,
)


def test_flatten_metrics() -> None:
    m = {
        "acc": 0.9,
        "s": {"mc": {"p": 0.01}},
        "xs": [1, 2],
        "long": list(range(50)),
        "rows": [{"a": 1}],
    }
    assert flatten_metrics(m) == {"acc": 0.9, "s.mc.p": 0.01, "xs": "[1, 2]"}
    assert flatten_metrics(3.5) == {"value": 3.5}


def test_tables_and_plot(tmp_path: Path) -> None:
    rows = [
        {"index": i, "point": f"p{i}", "n": n, "seed": s, "status": "ok", "attempts": 1,
         "seconds": 0.5, "error": "", "r2": 0.5 + 0.1 * n + 0.01 * s, "train_seconds": 1.0}
        for i, (n, s) in enumerate([(1, 0), (1, 1), (2, 0), (2, 1)])
    ]  # fmt: skip
    rows.append({"index": 4, "point": "p4", "n": 3, "seed": 0, "status": "failed",
                 "attempts": 2, "seconds": 0.1, "error": "exit 1: boom"})  # fmt: skip
    csv_path, jsonl_path = write_tables(tmp_path, rows, ["n", "seed"])
    back = read_csv(csv_path)
    assert list(back[0])[:9] == [
        "index",
        "point",
        "n",
        "seed",
        "status",
        "attempts",
        "seconds",
        "error",
        "r2",
    ]
    assert back[4]["status"] == "failed" and back[4]["r2"] == ""
    assert float(back[3]["r2"]) == rows[3]["r2"]  # floats round-trip exactly (repr)
    assert [json.loads(x)["point"] for x in jsonl_path.read_text().splitlines()] == [
        f"p{i}" for i in range(5)
    ]
    png, metric = summary_plot(tmp_path, rows, ["n", "seed"], None)
    assert metric == "r2"  # train_seconds is a timing column, not the default metric
    assert png is not None and png.read_bytes()[:4] == b"\x89PNG"
    assert timing_column("train_seconds") and not timing_column("test_r2")
