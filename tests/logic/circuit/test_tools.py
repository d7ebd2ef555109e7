"""`run_tool`: the output kept in ``<tool>.log``, a failure or a timeout as one `ToolError`, and
with ``progress`` the log's last line reported while the tool runs."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from wirelab.logic.circuit.tools import ToolError, run_tool

SH = shutil.which("sh") or "/bin/sh"


@pytest.mark.parametrize("watched", [False, True])
def test_output_is_returned_and_kept_in_the_log(tmp_path: Path, watched: bool) -> None:
    seen: list[str] = []
    progress = seen.append if watched else None
    out = run_tool([SH, "-c", "echo one; echo two >&2"], tmp_path, "sh", progress=progress)
    assert out.split() == ["one", "two"]
    assert (tmp_path / "sh.log").read_text().split() == ["one", "two"]


@pytest.mark.parametrize("watched", [False, True])
def test_a_failure_names_its_error_line(tmp_path: Path, watched: bool) -> None:
    progress = (lambda _: None) if watched else None
    with pytest.raises(ToolError, match=r"sh failed \(exit 3\): Error: no such cell"):
        run_tool(
            [SH, "-c", "echo ok; echo 'Error: no such cell'; exit 3"],
            tmp_path,
            "sh",
            progress=progress,
        )


@pytest.mark.parametrize("watched", [False, True])
def test_a_timeout_stops_the_tool_and_keeps_its_output(tmp_path: Path, watched: bool) -> None:
    progress = (lambda _: None) if watched else None
    t0 = time.monotonic()
    with pytest.raises(ToolError, match="timed out after 1 s"):
        run_tool([SH, "-c", "echo started; sleep 30"], tmp_path, "sh", 1, progress, every=0.2)
    assert time.monotonic() - t0 < 10
    assert "started" in (tmp_path / "sh.log").read_text()


def test_progress_reports_the_latest_line_while_the_tool_runs(tmp_path: Path) -> None:
    seen: list[str] = []
    script = (
        "echo 'Info:     iter=1 overused=40'; sleep 0.6; "
        "echo 'Info:     iter=2 overused=7'; sleep 0.6"
    )
    run_tool([SH, "-c", script], tmp_path, "sh", progress=seen.append, every=0.2)
    assert any(s.endswith(": iter=1 overused=40") for s in seen)
    assert any(s.endswith(": iter=2 overused=7") for s in seen)
    assert all(s.split()[1] == "s:" and s.split()[0].isdigit() for s in seen)
