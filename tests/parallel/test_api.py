"""The Python API of `wirelab.parallel`: every public name documented, the package quickstart
runs, the tether lives here (nothing in `wirelab.parallel` imports `wirelab.sweep`), and every
back end says how it drives jobs that only wait on subprocesses."""

from __future__ import annotations

import inspect
import re
import subprocess
from pathlib import Path

import wirelab.parallel
from tests.attention.test_docs import run_snippet
from wirelab.parallel import POOLS, ThreadPool, tethered

SRC = Path(wirelab.parallel.__file__).parent


def test_every_public_name_is_documented() -> None:
    names = wirelab.parallel.__all__
    assert [n for n in names if not inspect.getdoc(getattr(wirelab.parallel, n))] == []


def test_the_package_quickstart_runs(tmp_path: Path) -> None:
    (code,) = re.findall(r"^```python\n(.*?)^```", wirelab.parallel.__doc__ or "", re.M | re.S)
    r = run_snippet(code, tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "[1, 1, 2, 6, 24, 120, 720, 5040]" in r.stdout and "7! 5040 ok" in r.stdout


def test_parallel_imports_nothing_from_sweep() -> None:
    imports = re.compile(r"^\s*(from|import) wirelab\.sweep", re.M)
    offenders = [p.name for p in SRC.glob("*.py") if imports.search(p.read_text())]
    assert offenders == []


def test_a_tethered_command_runs_it_as_given(tmp_path: Path) -> None:
    argv = tethered(["sh", "-c", "echo $$ > pid; echo tethered"])
    assert argv[-3:] == ["sh", "-c", "echo $$ > pid; echo tethered"]
    r = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stdout == "tethered\n"
    r = subprocess.run(tethered(["no-such-command-here"]), capture_output=True, text=True)
    assert r.returncode == 127 and "no-such-command-here" in r.stderr


def test_local_drives_waiting_jobs_from_threads_ray_runs_them_as_tasks() -> None:
    local = POOLS.get("local")(workers=2).subprocess_pool(lambda: None)
    assert isinstance(local, ThreadPool) and local.workers == 2
    assert not POOLS.get("local").remote and POOLS.get("ray").remote
    ray = POOLS.get("ray")(workers=2)
    assert ray.subprocess_pool(lambda: None) is ray
