"""The CLI as a user runs it: real files; in-process (`tests.clirun.wirelab`) except the entry
point itself, which runs as a real subprocess once."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.clirun import one_line_error, wirelab, wirelab_process
from tests.conftest import requires_larva, requires_mnist


def test_help_lists_groups() -> None:
    out = wirelab_process("--help")
    assert out.returncode == 0
    for g in ("data", "reservoir", "fly", "logic", "attention", "report", "tour"):
        assert g in out.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["data", "info", "nosuch"],
        ["data", "fetch"],
        ["--bogus"],
        ["data", "info", "mnist", "--jsn"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(args: list[str]) -> None:
    out = wirelab(*args)
    assert out.returncode == 2 and one_line_error(out)
    assert out.stderr.startswith("wirelab: error:")


@requires_larva
def test_info_larva_json() -> None:
    out = wirelab("data", "info", "larva", "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert (info["neurons"], info["edges"], info["synapses"]) == (2952, 110677, 352611)
    assert info["populations"]["sensory"] == {"left": 211, "right": 219}
    assert info["populations"]["DN-VNC"] == {"left": 91, "right": 91}
    assert info["populations"]["DN-SEZ"] == {"left": 82, "right": 82}


@requires_mnist
def test_info_mnist_json() -> None:
    out = wirelab("data", "info", "mnist", "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert (info["train"], info["test"], info["shape"]) == (60000, 10000, [28, 28])


@requires_larva
def test_verify_detects_altered_and_truncated_files(tmp_path: Path) -> None:
    src = (
        Path(os.environ["WIRELAB_DATA_DIR"])
        / "connectome"
        / "winding2023-Supplementary-Data-S1.zip"
    )
    cache = tmp_path / "cache"
    env = {"WIRELAB_CACHE": str(cache), "WIRELAB_DATA_DIR": str(tmp_path / "empty")}
    target = cache / "connectome" / src.name
    target.parent.mkdir(parents=True)
    shutil.copy(src, target)
    assert wirelab("data", "verify", "larva", env=env).returncode == 0

    data = bytearray(src.read_bytes())
    data[1000] ^= 0xFF  # altered
    target.write_bytes(bytes(data))
    out = wirelab("data", "verify", "larva", env=env)
    assert out.returncode == 1
    assert "checksum mismatch" in out.stderr and "8c1f43809ed5d527" in out.stderr
    assert not target.exists() and list(cache.rglob("*.zip")) == []

    target.write_bytes(src.read_bytes()[:500_000])  # truncated
    out = wirelab("data", "verify", "larva", env=env)
    assert out.returncode == 1 and "checksum mismatch" in out.stderr
    assert [p for p in cache.rglob("*") if p.is_file()] == []


@requires_mnist
def test_verify_truncated_gzip_in_data_dir_is_reported_not_deleted(tmp_path: Path) -> None:
    src = Path(os.environ["WIRELAB_DATA_DIR"]) / "mnist" / "t10k-labels-idx1-ubyte.gz"
    ddir = tmp_path / "offline"
    (ddir / "mnist").mkdir(parents=True)
    (ddir / "mnist" / src.name).write_bytes(src.read_bytes()[:-100])
    env = {"WIRELAB_CACHE": str(tmp_path / "cache"), "WIRELAB_DATA_DIR": str(ddir)}
    out = wirelab("data", "verify", "mnist", env=env)
    assert out.returncode == 1
    assert "t10k-labels-idx1-ubyte.gz" in out.stderr and "gzip" in out.stderr
    assert (ddir / "mnist" / src.name).exists()
