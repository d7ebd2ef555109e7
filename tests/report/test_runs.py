from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from tests.report.conftest import make_runs
from wirelab.errors import UsageError
from wirelab.report.runs import find_result_dirs, infer_system, load_run, load_runs
from wirelab.results import FAILED, IN_PROGRESS, ResultDir, write_json


def test_find_by_dir_metrics_path_and_parent(tmp_path: Path) -> None:
    d = make_runs(tmp_path / "r")
    assert find_result_dirs([d["mc"]]) == [d["mc"].resolve()]
    assert find_result_dirs([d["mc"] / "metrics.json"]) == [d["mc"].resolve()]
    assert find_result_dirs([d["unfinished"] / "config.json"]) == [d["unfinished"].resolve()]
    found = find_result_dirs([tmp_path])
    assert found == sorted(p.resolve() for p in d.values())
    # duplicates collapse
    assert find_result_dirs([tmp_path, d["mc"]]) == found


def test_nested_result_dirs_are_separate_runs(tmp_path: Path) -> None:
    outer = ResultDir.create(tmp_path / "sweep", command="wirelab sweep grid.toml", config={})
    inner = ResultDir.create(outer.path / "p0", command="wirelab reservoir run", config={})
    (inner.path / "plot.png").write_bytes(b"\x89PNG")
    outer.write_metrics({"points": 1})
    inner.write_metrics({"mc": 1.0})
    runs = {r.name: r for r in load_runs([tmp_path])}
    assert set(runs) == {"sweep", "sweep/p0"}
    assert runs["sweep"].images == [] and runs["sweep"].system == "sweep"
    assert [p.name for p in runs["sweep/p0"].images] == ["plot.png"]
    assert runs["sweep/p0"].system == "reservoir"


def test_missing_path_and_nothing_found_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        find_result_dirs([tmp_path / "nope"])
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    with pytest.raises(UsageError, match="no result directories"):
        find_result_dirs([tmp_path / "empty"])
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(UsageError, match="neither"):
        find_result_dirs([tmp_path / "x.txt"])


@pytest.mark.parametrize(
    ("command", "path", "system"),
    [
        ("wirelab reservoir memory-capacity", "x", "reservoir"),
        ("wirelab connectome spectrum", "x", "reservoir"),
        ("wirelab tour (fly)", "x", "fly"),
        ("wirelab logic train", "x", "logic"),
        ("wirelab attention pool", "x", "attention"),
        ("", "runs/tour/attention", "attention"),
        ("python my_script.py", "runs/misc", "other"),
    ],
)
def test_infer_system(command: str, path: str, system: str) -> None:
    assert infer_system(command, Path(path)) == system


def test_load_run_statuses_and_files(tmp_path: Path) -> None:
    d = make_runs(tmp_path)
    mc = load_run(d["mc"])
    assert mc.status == "complete" and not mc.problems
    assert sorted(p.name for p in mc.images) == ["memory_capacity.png", "spectrum.png"]
    assert mc.config["config"]["seed"] == 0 and mc.metrics["memory_capacity"] == 4.25
    logic = load_run(d["logic"])
    assert [p.name for p in logic.files] == ["net.v"]
    unfinished = load_run(d["unfinished"])
    assert unfinished.status == "in progress" and unfinished.problems == [unfinished.reason]
    assert unfinished.reason.startswith("in progress: started ")
    broken = load_run(d["broken"])
    assert broken.status == "broken" and broken.metrics is None
    assert "metrics.json is not valid JSON" in broken.problems[0]


def test_config_not_an_object_and_unreadable(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "config.json").write_text("[1, 2]")
    (tmp_path / "a" / "metrics.json").write_bytes(b"\xff\xfe{")
    run = load_run(tmp_path / "a")
    assert run.status == "broken"
    assert "config.json is not a JSON object" in run.problems
    assert any("metrics.json is not UTF-8" in p for p in run.problems)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_lifecycle_statuses_come_from_the_result_directory(tmp_path: Path) -> None:
    """In progress, killed, failed and pre-marker runs are shown as such, never as complete."""
    d = make_runs(tmp_path / "r")
    failed = load_run(d["failed"])
    assert failed.status == "failed" and failed.metrics is None
    assert failed.reason == "failed: ValueError: --test-size 50000 is larger than the data"
    assert failed.problems == [failed.reason]
    assert failed.files == []  # failed.json is read, not listed as an artifact
    # a run killed right after it started: the marker and config.json, nothing else
    killed = ResultDir.create(tmp_path / "killed", command="wirelab reservoir run", config={})
    marker = killed.path / IN_PROGRESS
    write_json(marker, {"pid": _dead_pid(), "host": platform.node(), "started": "x"})
    assert find_result_dirs([killed.path]) == [killed.path.resolve()]
    run = load_run(killed.path)
    assert run.status == "in progress" and run.status_class == "in-progress"
    assert (
        run.reason.startswith("killed: started x by process") and "no longer exists" in run.reason
    )
    # a killed rerun into a finished directory: the old metrics.json is gone, never complete
    rerun = ResultDir.create(d["logic"], command="wirelab logic train", config={}, overwrite=True)
    assert load_run(rerun.path).status == "in progress"
    # a run from before the marker existed: config.json only
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "config.json").write_text('{"command": "wirelab logic train"}')
    old = load_run(tmp_path / "old")
    assert old.status == "incomplete" and "did not finish" in old.reason
    # a damaged failed.json still shows the run as failed
    (d["failed"] / FAILED).write_text("{")
    assert load_run(d["failed"]).reason.startswith("failed (failed.json is not valid JSON")


def test_a_failure_mentioning_json_is_failed_not_broken(tmp_path: Path) -> None:
    d = make_runs(tmp_path)
    write_json(d["failed"] / FAILED, {"error": "config.json is not valid JSON: line 1"})
    run = load_run(d["failed"])
    assert run.status == "failed" and run.config["command"] == "wirelab attention translate"
