"""Connectome and dataset entries: a toy of each registered in one line and run through the CLI
(``wirelab reservoir run`` and ``wirelab data info / list`` for the connectome; ``wirelab data
verify / fetch / info / list`` for the dataset)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from tests.clirun import one_line_error, wirelab
from wirelab.data.connectomes import CONNECTOMES, Connectome
from wirelab.data.datasets import DATASETS, Dataset, RemoteFile

N = 24


def toy_connectome() -> Connectome:
    """24 neurons in left/right pairs (2k, 2k+1), the first 6 sensory; one edge type ``syn``."""
    rng = np.random.default_rng(1)
    w = (rng.random((N, N)) < 0.2) * rng.integers(1, 4, (N, N)).astype(np.float64)
    np.fill_diagonal(w, 0.0)
    idx = np.arange(N)
    return Connectome(
        name="toy",
        skeleton_ids=idx.astype(np.int64),
        weights=sp.csr_matrix(w),
        edge_types={"syn": sp.csr_matrix(w)},
        celltype=np.array(["sensory"] * 6 + ["inter"] * (N - 6)),
        side=np.where(idx % 2 == 0, "left", "right"),
        partner=idx ^ 1,
        annotations=tuple(frozenset() for _ in range(N)),
        cluster=np.full(N, -1, dtype=np.int64),
    )


@pytest.fixture
def toy_connectome_entry() -> Iterator[str]:
    CONNECTOMES.add("toy", toy_connectome, "a random 24-neuron test connectome")
    try:
        yield "toy"
    finally:
        CONNECTOMES.remove("toy")


def test_a_registered_connectome_runs_through_the_cli(
    toy_connectome_entry: str, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = ["reservoir", "run", "--connectome", "toy", "--task", "memory-capacity"]
    args += ["--alpha", "0.9", "--nulls", "1", "--workers", "1", "--quick", "--out", out]
    r = wirelab(*args)
    assert r.returncode == 0, r.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    assert len(metrics["results"]) == 3  # the connectome, one null of each default family
    assert metrics["population_sizes"]["inputs"] == 6

    r = wirelab("data", "info", "toy", "--json")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert (info["name"], info["neurons"]) == ("toy", N)
    assert list(info["edge_types"]) == ["syn"]
    assert info["populations"]["sensory"] == {"left": 3, "right": 3}
    assert "toy" in wirelab("data", "list").stdout


TEXT = b"a tiny dataset file\n"


@pytest.fixture
def toy_dataset(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A one-file dataset ``toy`` whose file lies in a data directory under ``tmp_path``."""
    root = tmp_path / "data"
    (root / "toy").mkdir(parents=True)
    (root / "toy" / "hello.txt").write_bytes(TEXT)
    sha = hashlib.sha256(TEXT).hexdigest()
    remote = RemoteFile("toy/hello.txt", ("https://example.invalid/hello.txt",), sha, len(TEXT))
    DATASETS.add("toy", Dataset("A toy dataset: one line.", "nobody", (remote,)), "a toy")
    env = {"WIRELAB_DATA_DIR": str(root), "WIRELAB_CACHE": str(tmp_path / "cache")}
    try:
        yield root, env
    finally:
        DATASETS.remove("toy")


def test_a_registered_dataset_runs_through_the_cli(
    toy_dataset: tuple[Path, dict[str, str]],
) -> None:
    root, env = toy_dataset
    where = root / "toy" / "hello.txt"
    r = wirelab("data", "verify", "toy", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ok", "toy/hello.txt", str(where)]
    r = wirelab("data", "fetch", "toy", env=env)
    assert r.returncode == 0 and r.stdout.split() == ["ok", "toy/hello.txt", str(where)]
    r = wirelab("data", "info", "toy", "--json", env=env)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["files"] == {"toy/hello.txt": str(where)} and info["bytes"] == len(TEXT)
    listing = wirelab("data", "list", env=env).stdout
    assert "toy/hello.txt" in listing and "A toy dataset" in listing

    where.write_bytes(b"changed bytes\n")
    r = wirelab("data", "verify", "toy", env=env)
    assert r.returncode == 1 and one_line_error(r) and "checksum mismatch" in r.stderr


def test_a_dataset_that_describes_itself_is_described_by_data_info(
    toy_dataset: tuple[Path, dict[str, str]],
) -> None:
    _, env = toy_dataset

    def lines() -> dict[str, object]:
        return {"name": "toy-lines", "lines": TEXT.count(b"\n")}

    counted = dataclasses.replace(DATASETS.get("toy"), info=lines)
    DATASETS.add("toy-lines", counted, "the toy dataset, its lines counted")
    try:
        r = wirelab("data", "info", "toy-lines", "--json", env=env)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout) == {"name": "toy-lines", "lines": 1}
    finally:
        DATASETS.remove("toy-lines")
