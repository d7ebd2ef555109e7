"""`run_tool`'s child (yosys, nextpnr, iverilog) lives within its parent's lifetime: it dies with a
SIGKILLed parent and is stopped with a SIGTERMed or interrupted one. A harmless ``sleep`` stands
in for the tool."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clirun import REPO
from tests.fly.procs import alive, group, wait_until
from wirelab.logic.circuit.tools import ToolError, run_tool

PARENT = """
import signal, sys
from pathlib import Path
from wirelab.logic.circuit.tools import run_tool
signal.signal(signal.SIGINT, signal.default_int_handler)  # even where started in the background
run_tool(["sleep", "600"], Path(sys.argv[1]), "sleep")
"""


def tool_of(parent: subprocess.Popen[bytes]) -> int:
    """The pid of the parent's tool, once ``sleep`` runs (after the tether's exec)."""

    def find() -> int | None:
        for entry in Path("/proc").iterdir():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            if ppid == parent.pid and cmdline.startswith(b"sleep\0"):
                return int(entry.name)
        return None

    assert wait_until(lambda: find() is not None, 60), "the tool did not start"
    pid = find()
    assert pid is not None
    return pid


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_the_tool_does_not_outlive_its_parent(tmp_path: Path, sig: int) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(tmp_path)], cwd=REPO, stderr=subprocess.DEVNULL
    )
    try:
        tool = tool_of(parent)
        parent.send_signal(sig)
        parent.wait(timeout=30)
    finally:  # a failure leaves nothing running (the tool is tethered to the parent)
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    assert wait_until(lambda: not alive(tool) and not group(tool), 20), "the tool outlived it"
    if sig == signal.SIGTERM:
        assert parent.returncode == 143


def test_a_tool_that_times_out_is_killed_with_its_group(tmp_path: Path) -> None:
    script = "sleep 600 & echo $! > bg.pid; wait"
    with pytest.raises(ToolError, match="timed out"):
        run_tool(["sh", "-c", script], tmp_path, "two sleeps", timeout=1.0)
    assert (tmp_path / "sh.log").exists()  # the log is named after the tool, not the tether
    background = int((tmp_path / "bg.pid").read_text())
    assert wait_until(lambda: not alive(background), 10), "what the tool started outlived it"


def test_a_missing_tool_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="exit 127"):
        run_tool([str(tmp_path / "no-such-tool")], tmp_path, "no-such-tool")
