"""Hostile or broken local state gives one line (exit 1), never a traceback, and leaves nothing
half-written: unreadable files in the data directory or the cache, a cache that cannot be written
(read-only, or a path that is a file), a directory at a download destination, and a derived
``.npz`` holding the wrong arrays (rebuilt)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.clirun import one_line_error, wirelab
from tests.conftest import requires_larva
from tests.data.test_download import PAYLOAD, _leftovers, _remote
from wirelab.data import download as dl
from wirelab.errors import DataError

ROOT = os.geteuid() == 0
as_root = pytest.mark.skipif(ROOT, reason="root reads and writes whatever the mode bits say")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("WIRELAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("WIRELAB_DATA_DIR", raising=False)
    dl._verified.clear()
    yield tmp_path / "cache"
    dl._verified.clear()


def _copy(root: Path) -> Path:
    target = root / "test" / "good.bin"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(PAYLOAD)
    return target


def _deny(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Opening ``path`` for reading raises PermissionError, as mode 000 does for a normal user."""

    def guarded(file: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(file) == path:
            raise PermissionError(13, "Permission denied", str(file))
        return open(file, *args, **kwargs)

    monkeypatch.setattr(dl, "open", guarded, raising=False)


def _one_line(exc: pytest.ExceptionInfo[DataError]) -> str:
    msg = str(exc.value)
    assert "\n" not in msg
    return msg


@pytest.mark.parametrize("where", ["data", "cache"])
def test_unreadable_file_is_one_line(
    where: str, tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "offline" if where == "data" else cache
    if where == "data":
        monkeypatch.setenv("WIRELAB_DATA_DIR", str(root))
    target = _copy(root)
    _deny(monkeypatch, target)
    with pytest.raises(DataError) as err:
        dl.fetch(_remote("http://127.0.0.1:9/good.bin"), progress=False)
    msg = _one_line(err)
    assert str(target) in msg and "Permission denied" in msg
    assert target.read_bytes() == PAYLOAD  # reported, never deleted


@as_root
@pytest.mark.parametrize("where", ["data", "cache"])
def test_unreadable_file_by_mode_bits(
    where: str, tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "offline" if where == "data" else cache
    if where == "data":
        monkeypatch.setenv("WIRELAB_DATA_DIR", str(root))
    target = _copy(root)
    target.chmod(0)
    try:
        with pytest.raises(DataError, match="Permission denied"):
            dl.fetch(_remote("http://127.0.0.1:9/good.bin"), progress=False)
    finally:
        target.chmod(0o644)


def test_cache_path_that_is_a_file_is_one_line_through_the_cli(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "cache-file"
    not_a_dir.write_text("x")
    env = {"WIRELAB_CACHE": str(not_a_dir), "WIRELAB_DATA_DIR": str(tmp_path / "empty")}
    r = wirelab("data", "fetch", "mnist", env=env)
    assert r.returncode == 1 and one_line_error(r), r.stderr
    assert "cannot write to the cache" in r.stderr and "WIRELAB_CACHE" in r.stderr
    assert not_a_dir.read_text() == "x"


def test_read_only_cache_is_one_line(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied", str(cache))

    monkeypatch.setattr(dl.tempfile, "mkstemp", refuse)
    remote = _remote("http://127.0.0.1:9/good.bin")
    with pytest.raises(DataError) as err:
        dl.download(remote.urls[0], remote, cache / remote.path, progress=False)
    assert "cannot write to the cache" in _one_line(err)


@as_root
def test_read_only_cache_by_mode_bits(cache: Path) -> None:
    cache.mkdir()
    cache.chmod(0o555)
    remote = _remote("http://127.0.0.1:9/good.bin")
    try:
        with pytest.raises(DataError, match="cannot write to the cache"):
            dl.fetch(remote, progress=False)
    finally:
        cache.chmod(0o755)


def test_directory_at_download_destination_is_one_line(cache: Path) -> None:
    remote = _remote("http://127.0.0.1:9/good.bin")
    (cache / remote.path / "inside").mkdir(parents=True)
    with pytest.raises(DataError) as err:
        dl.download(remote.urls[0], remote, cache / remote.path, progress=False)
    assert "is a directory" in _one_line(err)
    assert _leftovers(cache) == []


def test_directory_at_destination_through_fetch(cache: Path) -> None:
    remote = _remote("http://127.0.0.1:9/good.bin")
    (cache / remote.path).mkdir(parents=True)
    with pytest.raises(DataError, match="is a directory"):
        dl.fetch(remote, progress=False)


@requires_larva
def test_derived_npz_with_wrong_arrays_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wirelab.data.connectomes import larva

    monkeypatch.setenv("WIRELAB_CACHE", str(tmp_path / "cache"))
    derived = tmp_path / "cache" / "derived"
    derived.mkdir(parents=True)
    name = f"larva-{larva.LARVA.files[0].sha256[:16]}-v{larva._DERIVED_VERSION}.npz"
    wrong_keys = {"something_else": np.zeros(3)}
    right_keys = {k: np.arange(3) for k in larva.derived_keys()}  # ints, data not float
    out_of_range = {
        k: np.full(3, 10**6 if k.endswith(("row", "col")) else 1.0) for k in larva.derived_keys()
    }
    for arrays in (wrong_keys, right_keys, out_of_range):
        np.savez(derived / name, **arrays)
        con = larva.load_larva(allow_download=False)
        assert con.n > 0
        with np.load(derived / name) as npz:
            assert set(npz.files) == larva.derived_keys()
            assert larva._consistent({k: npz[k] for k in npz.files})


def test_cli_unreadable_data_file_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from wirelab.data.datasets.mnist import MNIST
    from wirelab.data.dirs import data_dir

    ddir = data_dir()
    if ddir is None or not (ddir / MNIST.files[0].path).is_file():
        pytest.skip("MNIST not found: set WIRELAB_DATA_DIR")
    dl._verified.clear()
    _deny(monkeypatch, ddir / MNIST.files[0].path)
    r = wirelab("data", "verify", "mnist")
    dl._verified.clear()
    assert r.returncode == 1 and one_line_error(r), r.stderr
    assert "Permission denied" in r.stderr


@requires_larva
def test_unwritable_derived_cache_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wirelab.data.connectomes import larva

    cache_file = tmp_path / "cache-file"
    cache_file.write_text("x")
    monkeypatch.setenv("WIRELAB_CACHE", str(cache_file))
    assert larva.load_larva(allow_download=False).n > 0
    assert cache_file.read_text() == "x"
