from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import requires_mnist
from wirelab.data.datasets.mnist import load_mnist, parse_idx, read_idx
from wirelab.errors import CorruptDataError, UsageError


def _idx(arr: np.ndarray) -> bytes:
    magic = struct.pack(">HBB", 0, 0x08, arr.ndim)
    return magic + struct.pack(f">{arr.ndim}I", *arr.shape) + arr.astype(np.uint8).tobytes()


def test_roundtrip_raw_and_gzip(tmp_path: Path) -> None:
    arr = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    (tmp_path / "a").write_bytes(_idx(arr))
    (tmp_path / "a.gz").write_bytes(gzip.compress(_idx(arr)))
    assert np.array_equal(read_idx(tmp_path / "a"), arr)
    assert np.array_equal(read_idx(tmp_path / "a.gz"), arr)


def test_bad_magic_and_truncation_are_clear() -> None:
    good = _idx(np.zeros((3, 28, 28), dtype=np.uint8))
    with pytest.raises(CorruptDataError, match="magic"):
        parse_idx(b"\x00\x00\x0d\x03" + good[4:])
    with pytest.raises(CorruptDataError, match="promises shape"):
        parse_idx(good[:-5])
    with pytest.raises(CorruptDataError, match="too short"):
        parse_idx(b"\x00")


def test_truncated_gzip(tmp_path: Path) -> None:
    p = tmp_path / "x.gz"
    p.write_bytes(gzip.compress(_idx(np.zeros(100, dtype=np.uint8)))[:-10])
    with pytest.raises(CorruptDataError):
        read_idx(p)


@requires_mnist
def test_real_mnist() -> None:
    x, y = load_mnist("test", allow_download=False)
    assert x.shape == (10000, 28, 28) and x.dtype == np.uint8
    assert y.shape == (10000,) and set(np.unique(y)) == set(range(10))
    assert np.bincount(y).tolist()[:2] == [980, 1135]


def test_unknown_split() -> None:
    with pytest.raises(UsageError):
        load_mnist("valid")  # type: ignore[arg-type]
