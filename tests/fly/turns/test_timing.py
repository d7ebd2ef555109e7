"""The turn study's part log and timing (`wirelab.fly.turns.timing`): a resumed study's seconds
are every part's, loaded runs of an unlogged part are an unknown time, never 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wirelab.fly.turns.timing import PARTS, PartLog, earlier_parts, timing_line, timing_summary


def _run(wall: float, cpu: float | None = 1.0) -> dict[str, Any]:
    timing = {"wall_s": wall, "step_ms": 0.1, "frames": 0, "render_s_per_frame": None}
    return {"timing": timing if cpu is None else {**timing, "cpu_s": cpu}}


def test_the_part_log_sums_the_parts(tmp_path: Path) -> None:
    store = tmp_path / "runs"
    log = PartLog.start(store, [])
    assert json.loads((store / PARTS).read_text())["parts"][0]["runs_run"] == 0
    log.tick()
    log.tick()  # killed here: the log keeps two runs and their seconds
    killed = json.loads((store / PARTS).read_text())["parts"]
    assert killed[0]["runs_run"] == 2 and killed[0]["wall_s"] >= 0
    later = PartLog.start(store, earlier_parts(tmp_path, store, resume=True))
    later.tick()
    parts = later.close(7.0, runs_loaded=2)
    t = timing_summary([_run(3.0), _run(4.0), _run(5.0)], parts)
    assert (t["parts"], t["runs"], t["runs_run"], t["runs_loaded"]) == (2, 3, 1, 2)
    assert t["wall_s"] == pytest.approx(killed[0]["wall_s"] + 7.0)
    assert t["part_wall_s"] == 7.0 and t["run_wall_s_sum"] == 12.0 and t["run_cpu_s_sum"] == 3.0
    assert timing_line(t) == f"3 runs in {t['wall_s']:.0f} s over 2 parts (1 now in 7 s)"
    assert earlier_parts(tmp_path, store, resume=False) == []


def test_loaded_runs_no_part_recorded_have_an_unknown_time(tmp_path: Path) -> None:
    log = PartLog.start(tmp_path / "runs", [])  # a study saved before the log (none read)
    t = timing_summary([_run(3.0, None), _run(4.0)], log.close(0.01, runs_loaded=2))
    assert t["wall_s"] is None and t["earlier_wall_s"] is None and t["run_cpu_s_sum"] is None
    assert t["parts"] == 2 and t["parts_log"][0] == {
        "wall_s": None,
        "runs_run": 2,
        "runs_loaded": 0,
    }
    assert "2 saved before, their wall time not recorded" in timing_line(t)
    assert "sum to 7 s" in timing_line(t)


def test_all_runs_done_before_report_their_seconds() -> None:
    parts = [{"wall_s": 329.0, "runs_run": 2, "runs_loaded": 0}]
    parts.append({"wall_s": 0.2, "runs_run": 0, "runs_loaded": 2})
    t = timing_summary([_run(3.0), _run(4.0)], parts)
    assert timing_line(t) == "2 runs (all done before; 329 s when run)"
    assert t["wall_s"] == pytest.approx(329.2) and t["earlier_wall_s"] == 329.0
    one = timing_summary([_run(3.0)], [{"wall_s": 2.0, "runs_run": 1, "runs_loaded": 0}])
    assert timing_line(one) == "1 runs in 2 s"
