"""Issue #18: `wirelab attention complexity` measures the sequential depth (a traced chain of
dependent operations), and every bound of the paper names where the paper states it."""

from __future__ import annotations

import json

import pytest
import torch

from tests.clirun import wirelab
from wirelab.attention.experiments import complexity as C
from wirelab.attention.experiments import layers as L
from wirelab.attention.experiments.op_depth import op_depth


def test_op_depth_counts_dependent_chains_not_operations():
    x = torch.ones(4, 3)

    def chain(t: torch.Tensor) -> torch.Tensor:
        for _ in range(7):
            t = t * 2 + 1  # two dependent ops per step
        return t

    def parallel(t: torch.Tensor) -> torch.Tensor:
        return torch.stack([t * i for i in range(7)])  # 7 independent products, then one stack

    assert op_depth(chain, x) == 14
    assert op_depth(parallel, x) == 2
    assert op_depth(lambda t: t.view(-1)[None].T, x) == 0  # views compute nothing
    assert op_depth(lambda t: t.add_(1).mul_(2), x.clone()) == 2  # in place: still a chain


def test_depth_follows_the_implementation_not_the_layer_name(monkeypatch):
    """A recurrence written as a loop is deep whatever it is called; the table reads the trace."""
    ls = C.LayerSet(16, 3, 4, torch.Generator().manual_seed(0))
    rnn = ls.fast("recurrent")
    monkeypatch.setattr(C.LayerSet, "fast", lambda self, name: rnn)
    paths = C.path_lengths(C.ComplexityConfig(path_ns=(8, 16)))
    assert paths["self_attention"]["sequential_depth"] == paths["recurrent"]["sequential_depth"]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("complexity") / "c"
    args = ["--ns", "16,32", "--ds", "8,16", "--d", "16", "--n", "16"]
    r = wirelab("attention", "complexity", "--out", out, *args, "--path-ns", "8,16,32",
                "--repeats", "1", "--quiet")  # fmt: skip
    assert r.returncode == 0, r.stderr
    return json.loads((out / "metrics.json").read_text())


def test_complexity_table_depth_is_measured(tiny_run):
    rows = {row["layer"]: row for row in tiny_run["table"]}
    assert "traced" in tiny_run["sequential_depth_method"]
    rnn = rows["recurrent"]["sequential_depth"]
    assert rnn[0] < rnn[1] < rnn[2] and rows["recurrent"]["sequential_depth_slope_n"] > 0.8
    for name in L.LAYERS:
        if name != "recurrent":  # O(1): the same depth at every n
            depth = rows[name]["sequential_depth"]
            assert len(set(depth)) == 1 and depth[0] >= 1, (name, depth)
            assert rows[name]["sequential_depth_slope_n"] == pytest.approx(0.0, abs=1e-9)


def test_complexity_bounds_cite_where_the_paper_states_them(tiny_run):
    rows = {row["layer"]: row for row in tiny_run["table"]}
    conv, dilated = rows["convolution"], rows["dilated_convolution"]
    assert conv["paper_path"] == "O(n/k)" and "sec. 4 text" in conv["paper_source"]["path"]
    assert "Table 1" not in conv["paper_source"]["path"]
    assert dilated["paper_path"] == "O(log_k n)" and "Table 1" in dilated["paper_source"]["path"]
    for row in rows.values():
        assert set(row["paper_source"]) == {"complexity", "sequential", "path"}
        assert all("Vaswani et al. 2017" in src for src in row["paper_source"].values())
