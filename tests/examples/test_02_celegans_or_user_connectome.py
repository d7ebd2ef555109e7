"""examples/02_celegans_or_user_connectome.py at its CI size: the Cook et al. 2019 hermaphrodite
(through cect) and the same worm's chemical synapses written and read back as a user's edge list
with its neuron table, each scored against both default null families (degree-preserving and
boundary-preserving); and a user's own edge list given with --edges, without a neuron table: the
degree family alone, and the one-line reason the boundary family is left out."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.examples import run_example

REPO = Path(__file__).resolve().parents[2]
SCRIPT = "examples/02_celegans_or_user_connectome.py"
NUM = r"(-?[\d.]+)"
VERDICT = re.compile(
    rf"best alpha {NUM}: MC {NUM} vs (degree|degree-boundary) nulls {NUM} \+- {NUM} \(n=9\), "
    rf"z = {NUM}, p = {NUM}"
)
LEFT_OUT = "degree-boundary nulls left out: "


def _run(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_example(SCRIPT, "--small", "--out", str(out), *extra)


def test_example_02_scores_the_worm_and_its_edge_list(tmp_path: Path) -> None:
    pytest.importorskip("cect", reason="the celegans extra is not installed")
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "celegans-cook2019-herm: 302 neurons, 5146 edges (chemical 3709, gap 2196)" in r.stdout
    assert "worm_chemical: 302 neurons, 3709 edges" in r.stdout
    assert "83 sensory neurons driven, 123 motor neurons read out" in r.stdout
    verdicts = VERDICT.findall(r.stdout)
    # the worm and its edge list (with the neuron table): each against both families
    assert [v[2] for v in verdicts] == ["degree", "degree-boundary"] * 2
    assert LEFT_OUT not in r.stdout
    for alpha, mc, _kind, null_mean, null_std, _z, p in verdicts:
        assert float(alpha) in (0.6, 1.0, 1.4)
        assert 0 < float(mc) <= 30 and 0 < float(null_mean) <= 30 and float(null_std) >= 0
        assert any(abs(float(p) - k / 10) < 1e-3 for k in range(1, 11))  # 9 nulls: p = k / 10
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert set(scores) == {"worm", "edge_list"} and len(scores["worm"]["connectome"]) == 3
    for entry in scores.values():
        assert list(entry["nulls"]) == ["degree", "degree-boundary"]
        assert entry["null_models_left_out"] == {}
        assert all(len(f["null_mean"]) == 3 for f in entry["nulls"].values())
    edges = (tmp_path / "worm_chemical.csv").read_text().splitlines()
    assert edges[0] == "pre,post,weight" and len(edges) == 3709 + 1
    assert (tmp_path / "worm_chemical.neurons.csv").is_file()


def test_example_02_takes_a_users_edge_list(tmp_path: Path) -> None:
    pytest.importorskip("cect", reason="the celegans extra is not installed")
    rng = np.random.default_rng(0)
    lines = ["pre,post,weight"]
    for i in range(40):  # a ring of 40 neurons, each with one chord that skips 2 to 38 neurons
        lines += [f"n{i},n{(i + 1) % 40},2", f"n{i},n{(i + int(rng.integers(2, 39))) % 40},1"]
    edges = tmp_path / "mine.csv"
    edges.write_text("\n".join(lines) + "\n")
    args = ["--edges", str(edges), "--inputs", "index=0-4", "--outputs", "all"]
    r = _run(tmp_path / "out", *args)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "mine: 40 neurons" in r.stdout and "mine.csv (user edge list)" in r.stdout
    # the worm against both families; the edge list without a neuron table: degree alone, and why
    assert [v[2] for v in VERDICT.findall(r.stdout)] == ["degree", "degree-boundary", "degree"]
    (why,) = [ln for ln in r.stdout.splitlines() if LEFT_OUT in ln]
    assert "mine" in why and len(why.split(LEFT_OUT)[1]) > 20
    left = json.loads((tmp_path / "out" / "scores.json").read_text())["edge_list"]
    assert list(left["nulls"]) == ["degree"] and set(left["null_models_left_out"]) == {
        "degree-boundary"
    }
