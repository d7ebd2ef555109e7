from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

from wirelab import __version__
from wirelab.errors import UsageError
from wirelab.results import ResultDir, experiment, write_json


def test_result_dir_roundtrip(tmp_path: Path) -> None:
    rd = ResultDir.create(tmp_path / "run", command="wirelab test", config={"seed": 3})
    cfg = json.loads((tmp_path / "run" / "config.json").read_text())
    assert cfg["config"]["seed"] == 3 and cfg["environment"]["wirelab"] == __version__
    assert not rd.complete
    rd.write_metrics({"acc": np.float32(0.5), "n": np.int64(3), "v": np.arange(2)})
    assert rd.complete and rd.metrics == {"acc": 0.5, "n": 3, "v": [0, 1]}
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    assert rd.save_figure(fig, "line").stat().st_size > 0
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "config.json",
        "line.png",
        "metrics.json",
    ]


def test_failed_write_leaves_old_file(tmp_path: Path) -> None:
    p = write_json(tmp_path / "m.json", {"a": 1})
    with pytest.raises(TypeError):
        write_json(p, {"a": object()})
    assert json.loads(p.read_text()) == {"a": 1}
    assert [q.name for q in tmp_path.iterdir()] == ["m.json"]


def test_non_finite_become_null_and_are_listed(tmp_path: Path) -> None:
    p = write_json(tmp_path / "m.json", {"a": float("nan"), "b": [1.0, np.float32("inf")]})
    assert json.loads(p.read_text()) == {"a": None, "b": [1.0, None]}
    rd = ResultDir.create(tmp_path / "run", command="x", config={})
    m = rd.finish({"score": {"nrmse": float("inf"), "mc": 3.0}})
    assert m["score"]["nrmse"] is None and m["non_finite"] == ["score.nrmse"]
    assert json.loads((tmp_path / "run" / "metrics.json").read_text()) == m


def test_lifecycle_refuses_finished_and_clears_stale(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with experiment(out, command="x", config={"v": 1}) as rd:
        assert rd.status == "in progress"
        fig, _ = plt.subplots()
        rd.save_figure(fig, "old")
        rd.finish({"v": 1})
    assert ResultDir(out).status == "complete"
    with pytest.raises(UsageError, match="--overwrite"):
        ResultDir.create(out, command="x", config={"v": 2})
    assert ResultDir(out).metrics == {"v": 1}  # a refused rerun loses nothing
    # a rerun that is killed after it started can never look complete
    rd = ResultDir.create(out, command="x", config={"v": 2}, overwrite=True)
    assert rd.status == "in progress" and not (out / "metrics.json").exists()
    assert not (out / "old.png").exists()


def test_failed_run_is_recorded(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with pytest.raises(RuntimeError), experiment(out, command="x", config={}):
        raise RuntimeError("boom\nsecond line")
    rd = ResultDir(out)
    assert rd.status == "failed" and not rd.complete
    assert (
        json.loads((out / "failed.json").read_text())["error"] == "RuntimeError: boom second line"
    )
    with experiment(out, command="x", config={}, resume=True) as again:
        again.finish({"ok": 1})
    assert rd.status == "complete"


def test_files_respect_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        rd = ResultDir.create(tmp_path / "run", command="x", config={})
        rd.finish({})
    finally:
        os.umask(old)
    for name in ("config.json", "metrics.json"):
        assert stat.S_IMODE((tmp_path / "run" / name).stat().st_mode) == 0o644


def test_refuses_file_as_dir(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(UsageError):
        ResultDir.create(tmp_path / "f", command="x", config={})
    with pytest.raises(UsageError):
        ResultDir.open(tmp_path)


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_npz_cache_files_respect_umask(tmp_path: Path, umask: int, mode: int) -> None:
    """Derived cache files get ``0666 & ~umask`` like every other file (not mkstemp's 0600)."""
    from wirelab.data.npzfile import read_npz, save_npz, write_npz

    old = os.umask(umask)
    try:
        save_npz(tmp_path / "a.npz", {"x": np.arange(3)})
        write_npz(tmp_path / "b.npz", {"y": np.ones(2)})
    finally:
        os.umask(old)
    for name in ("a.npz", "b.npz"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == mode
    assert read_npz(tmp_path / "a.npz")["x"].tolist() == [0, 1, 2]  # type: ignore[index]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.npz", "b.npz"]


def test_a_fresh_out_keeps_the_users_own_pictures(tmp_path: Path) -> None:
    """Only a directory that held a run has stale figures: a user's files in a new --out stay."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "photo.png").write_bytes(b"\x89PNG user's own")
    with experiment(out, command="x", config={}) as rd:
        rd.finish({})
    assert (out / "photo.png").read_bytes() == b"\x89PNG user's own"


def test_environment_records_the_cpu_and_torch_capability(tmp_path: Path) -> None:
    import torch

    from wirelab.results import cpu_info

    (tmp_path / "cpuinfo").write_text(
        "processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: fpu sse2 sse4_2 avx2 fma\n\n"
        "processor\t: 1\nmodel name\t: Other\n"
    )
    assert cpu_info(str(tmp_path / "cpuinfo")) == {
        "cpu": "Test CPU 9000",
        "cpu_simd": "sse4_2 avx2 fma",
    }
    assert cpu_info(str(tmp_path / "missing"))["cpu"]  # no /proc: platform.processor()
    rd = ResultDir.create(tmp_path / "run", command="x", config={})
    env = json.loads((tmp_path / "run" / "config.json").read_text())["environment"]
    assert env["cpu"] == cpu_info()["cpu"] and env["cpu"]
    assert env["torch_cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    rd.release()
