"""examples/02_celegans_or_user_connectome.py at its CI size: the Cook et al. 2019 hermaphrodite
(through cect) and the same worm's chemical synapses written and read back as a user's edge list,
each scored against degree-preserving nulls; and a user's own edge list given with --edges."""

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
    rf"best alpha {NUM}: MC {NUM} vs degree nulls {NUM} \+- {NUM} \(n=9\), z = {NUM}, p = {NUM}"
)


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
    assert len(verdicts) == 2
    for alpha, mc, null_mean, null_std, _z, p in verdicts:
        assert float(alpha) in (0.6, 1.0, 1.4)
        assert 0 < float(mc) <= 30 and 0 < float(null_mean) <= 30 and float(null_std) >= 0
        assert any(abs(float(p) - k / 10) < 1e-3 for k in range(1, 11))  # 9 nulls: p = k / 10
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert set(scores) == {"worm", "edge_list"} and len(scores["worm"]["connectome"]) == 3
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
    assert len(VERDICT.findall(r.stdout)) == 2
