"""``wirelab report`` in-process (`tests.clirun.wirelab`): output, exit codes, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clirun import one_line_error, wirelab
from tests.report.conftest import make_runs


def test_report_command(tmp_path: Path) -> None:
    make_runs(tmp_path / "runs")
    out = tmp_path / "page.html"
    r = wirelab(
        "report", tmp_path / "runs" / "logic", tmp_path / "runs" / "reservoir", "--out", out
    )
    assert r.returncode == 0, r.stderr
    assert f"3 runs -> {out}" in r.stdout
    page = out.read_text()
    assert "run-logic-train" in page and "run-reservoir-mc" in page
    assert "run-attention-broken" not in page


def test_runs_not_complete_are_reported_not_fatal(tmp_path: Path) -> None:
    make_runs(tmp_path / "runs")
    r = wirelab("report", tmp_path / "runs", "--out", tmp_path / "p.html")
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == (
        "not complete (shown with the reason): logic/unfinished (in progress), "
        "attention/broken (broken), attention/failed (failed)"
    )


def test_no_result_dirs_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "nothing").mkdir()
    r = wirelab("report", tmp_path / "nothing", "--out", tmp_path / "p.html")
    assert r.returncode == 2 and one_line_error(r)
    assert r.stderr.startswith("wirelab: error: no result directories")
    assert not (tmp_path / "p.html").exists()
    r = wirelab("report", tmp_path / "missing")
    assert r.returncode == 2 and one_line_error(r) and "does not exist" in r.stderr
    r = wirelab("report")
    assert r.returncode == 2 and one_line_error(r)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--out", "{tmp}/missing/dir/page.html"], "missing/dir does not exist"),
        (["--out", "{tmp}/runs/logic/train/net.v/page.html"], "is not a directory"),
        (["--out", "{tmp}/runs"], "is a directory"),
        (["--screenshot", "{tmp}/missing/shot.png"], "--screenshot"),
        (["--screenshot-size", "12"], "WIDTHxHEIGHT"),
        (["--screenshot-size", "50x50"], "out of range"),
        (["--max-rows", "0"], "--max-rows"),
        (["--max-embed-mb", "nan"], "--max-embed-mb"),
        (["--max-page-mb", "inf"], "--max-page-mb"),
        (["--max-page-mb", "0"], "--max-page-mb"),
    ],
)
def test_bad_paths_and_values_are_one_line_errors(
    tmp_path: Path, args: list[str], message: str
) -> None:
    make_runs(tmp_path / "runs")
    args = [a.format(tmp=tmp_path) for a in args]
    out = [] if "--out" in args else ["--out", str(tmp_path / "p.html")]
    r = wirelab("report", tmp_path / "runs", *out, *args)
    assert one_line_error(r), r.stderr
    assert message in r.stderr
    assert not (tmp_path / "missing").exists()  # no folder is created
    assert not (tmp_path / "p.html").exists()  # refused before any work


def test_report_command_tells_the_story(tmp_path: Path) -> None:
    from tests.report.stories import make_story_runs

    make_story_runs(tmp_path / "runs")
    out = tmp_path / "page.html"
    r = wirelab("report", tmp_path / "runs", "--out", out, "--max-page-mb", "0.001")
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert '<section id="answers">' in page
    assert "Does the larval connectome remember more than its degree-preserving nulls?" in page
    assert "data:video/mp4" not in page  # both videos past a 1 KB budget: linked
