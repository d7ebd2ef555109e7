"""Issue 47: ``--backend ray --address`` where no Ray head answers ends at once, on every study
command that has ``--backend``: one line, exit 1 (exit 2 for a malformed address), well under 30 s,
nothing left running and nothing written into ``--out``. The port is probed before Ray is asked to
join it (`wirelab.parallel.address`), so these cases never start Ray."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clirun import one_line_error
from tests.conftest import requires_larva
from wirelab.errors import UsageError, WirelabError
from wirelab.parallel import ExecOptions
from wirelab.parallel.address import parse_address, probe_address


@pytest.fixture(scope="module")
def closed_port() -> Iterator[int]:
    """A local port that is bound but not listening (a connection to it is refused) for as long
    as the tests run, so nothing else can take it meanwhile."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


def _session_processes(sid: int) -> list[int]:
    """Pids of the processes still in session ``sid`` (what the command started, transitively,
    unless it left the session)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(entry))
    return found


def _run(args: list[str], tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "wirelab.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        pytest.fail(f"wirelab {' '.join(args)} still ran after 60 s")
    elapsed = time.monotonic() - t0
    left = _session_processes(proc.pid)
    assert not left, f"processes left running: {left}"
    return subprocess.CompletedProcess(args, proc.returncode, out, err), elapsed


STUDIES = {
    "reservoir run": (
        "reservoir run --task memory-capacity --connectome esn-1000 --nulls 1 --alpha 1 --quick",
        [],
    ),
    "fly turns": (
        "fly turns --body kinematic --seeds 2 --nulls 0 --duration 0.3 --settle 0.1 --no-video",
        [requires_larva],
    ),
    "fly taxis": (
        "fly taxis --body kinematic --trials 2 --train-trials 2 --time-limit 1 --nulls 0",
        [requires_larva],
    ),
    "fly turns (flygym)": ("fly turns --body flygym --seeds 2 --nulls 0 --no-video", []),
    "fly taxis (flygym)": ("fly taxis --body flygym --trials 2 --train-trials 2 --nulls 0", []),
    "fly timestep": ("fly timestep --body flygym", []),
    "fly lateralization": ("fly lateralization --nulls 1 --boot 1 --steps 2", [requires_larva]),
    "logic train --seeds": ("logic train --dataset digits --dense 8 --steps 1 --seeds 2", []),
    "sweep": ("sweep GRID", []),
}


def _argv(name: str, address: str, tmp_path: Path) -> list[str]:
    words = STUDIES[name][0].split()
    if name == "sweep":
        grid = tmp_path / "grid.toml"
        grid.write_text(
            '[sweep]\ncommand = "wirelab reservoir run"\n[fixed]\ntask = "memory-capacity"\n'
            'connectome = "esn-1000"\nquick = true\n[vary]\nalpha = [0.5, 1.0]\n'
        )
        words = ["sweep", str(grid)]
    return [*words, "--backend", "ray", "--address", address, "--out", str(tmp_path / "out")]


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=marks) for n, (_, marks) in STUDIES.items()]
)
def test_a_closed_port_ends_at_once_with_one_line(
    name: str, closed_port: int, tmp_path: Path
) -> None:
    r, elapsed = _run(_argv(name, f"127.0.0.1:{closed_port}", tmp_path), tmp_path)
    assert r.returncode == 1 and one_line_error(r), r.stderr
    assert f"no Ray cluster at 127.0.0.1:{closed_port}" in r.stderr, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert elapsed < 30, elapsed
    assert not (tmp_path / "out").exists()  # refused before the run directory is made


@pytest.mark.parametrize("name", ["reservoir run", "sweep"])
@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("127.0.0.1:99999", "port must be 1-65535"),
        ("127.0.0.1:0", "port must be 1-65535"),
        ("127.0.0.1", "must be HOST:PORT"),
        ("ray://127.0.0.1:6379", "must be HOST:PORT"),
        ("127.0.0.1:63x", "must be HOST:PORT"),
        ("", "must be HOST:PORT"),
    ],
)
def test_a_malformed_address_is_a_usage_error(
    name: str, address: str, message: str, tmp_path: Path
) -> None:
    r, elapsed = _run(_argv(name, address, tmp_path), tmp_path)
    assert r.returncode == 2 and one_line_error(r) and message in r.stderr, r.stderr
    assert elapsed < 30 and not (tmp_path / "out").exists()


def test_parse_address() -> None:
    assert parse_address("10.0.0.1:6379") == ("10.0.0.1", 6379)
    assert parse_address("head-node.example:1") == ("head-node.example", 1)
    assert parse_address("[::1]:6379") == ("::1", 6379)
    for bad in ("h", "h:", ":1", "h:65536", "h:" + "9" * 5000, "::1:6379", "h h:1", "h:1\n"):
        with pytest.raises(UsageError):
            parse_address(bad)


def test_the_python_api_probes_too(closed_port: int) -> None:
    """`ExecOptions.validate` (what every study calls first) makes the same checks."""
    with pytest.raises(UsageError, match="port must be 1-65535"):
        ExecOptions("ray", address="127.0.0.1:99999").validate()
    with pytest.raises(WirelabError, match="connection refused"):
        ExecOptions("ray", address=f"127.0.0.1:{closed_port}").validate()


def test_a_listener_that_does_not_answer_like_ray_is_refused_in_bounded_time() -> None:
    """Something listens but never answers (or answers like HTTP/1): refused after the
    deadline, never handed to Ray."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        address = f"127.0.0.1:{server.getsockname()[1]}"
        t0 = time.monotonic()
        with pytest.raises(WirelabError, match="does not answer like a Ray head"):
            probe_address(address, timeout=0.5)
        assert time.monotonic() - t0 < 5
