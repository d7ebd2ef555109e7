"""The generated whole-brain-sized test connectome (`wirelab.data.connectomes.generate`) and the
``wirelab connectome generate`` command, at a scaled-down size."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from tests.clirun import one_line_error, wirelab
from wirelab.data.connectomes import load_connectome
from wirelab.data.connectomes.generate import CLASSES, generate, write
from wirelab.errors import UsageError

HAS_ARROW = importlib.util.find_spec("pyarrow") is not None


def test_sizes_distinct_edges_and_heavy_tails() -> None:
    g = generate(3000, 60000, seed=3)
    assert g.pre.size == g.post.size == g.weight.size == 60000
    assert not np.any(g.pre == g.post)  # no self-loops
    assert np.unique(g.pre * 3000 + g.post).size == 60000  # no repeated pair
    assert g.weight.min() >= 5 and g.weight.max() <= 5000  # synapse counts above threshold
    for deg in (np.bincount(g.pre, minlength=3000), np.bincount(g.post, minlength=3000)):
        assert deg.max() > 10 * np.median(deg)  # heavy-tailed, not binomial
    # sensory neurons have few inputs, descending neurons few outputs inside the brain
    ct = g.neurons.celltype
    indeg = np.bincount(g.post, minlength=3000)
    outdeg = np.bincount(g.pre, minlength=3000)
    assert indeg[ct == "sensory"].mean() < 0.2 * indeg.mean()
    assert outdeg[ct == "descending"].mean() < 0.5 * outdeg.mean()


def test_seeded_and_the_table_is_consistent() -> None:
    a, b, c = generate(500, 5000, seed=1), generate(500, 5000, seed=1), generate(500, 5000, seed=2)
    assert np.array_equal(a.pre, b.pre) and np.array_equal(a.weight, b.weight)
    assert not np.array_equal(a.pre, c.pre)
    nt = a.neurons
    assert np.unique(nt.ids).size == 500 and set(nt.celltype) <= set(CLASSES)
    paired = np.flatnonzero(nt.partner >= 0)
    assert np.array_equal(nt.partner[nt.partner[paired]], paired)  # partners of each other
    assert set(nt.side[paired]) == {"left", "right"}
    assert np.all(nt.side[paired] != nt.side[nt.partner[paired]])
    sensory = nt.celltype == "sensory"
    assert all(";" in x for x in np.array(nt.annotations)[sensory])  # modality; transmitter


def test_signed_follows_the_presynaptic_transmitter() -> None:
    g = generate(400, 4000, seed=0, signed=True)
    assert np.array_equal(np.sign(g.weight), g.neurons.sign[g.pre])
    assert (g.weight < 0).any() and (g.weight > 0).any()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_written_files_load_as_the_generated_graph(tmp_path: Path, fmt: str) -> None:
    if fmt == "parquet" and not HAS_ARROW:
        pytest.skip("pyarrow not installed")
    g = generate(800, 8000, seed=4)
    edges, _ = write(g, tmp_path, fmt)
    con = load_connectome(edges)
    assert con.n == 800 and con.weights.nnz == 8000
    assert np.array_equal(con.skeleton_ids, g.neurons.ids)  # table order, root ids kept
    assert con.weights[g.pre[0], g.post[0]] == g.weight[0]
    assert np.isclose(con.weights.sum(), g.weight.sum())
    assert np.array_equal(con.partner, g.neurons.partner)
    assert con.select(celltype="descending").size == int(np.sum(g.neurons.celltype == "descending"))
    assert con.select(annotation="olfactory").size > 0


def test_bad_sizes_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--edges must be in"):
        generate(200, 200 * 199)
    with pytest.raises(UsageError, match="at least 100"):
        generate(50, 10)
    r = wirelab(
        "connectome", "generate", "--neurons", "200", "--edges", "10**9", "--out", tmp_path / "x"
    )
    assert r.returncode == 2 and one_line_error(r)
    r = wirelab(
        "connectome", "generate", "--neurons", "200", "--edges", "39800", "--out", tmp_path / "x"
    )
    assert r.returncode == 2 and one_line_error(r) and "--edges must be in" in r.stderr
    assert not (tmp_path / "x").exists()


def test_the_command_writes_a_loadable_pair(tmp_path: Path) -> None:
    fmt = "parquet" if HAS_ARROW else "csv"
    args = ["connectome", "generate", "--neurons", "1000", "--edges", "10000", "--seed", "5"]
    r = wirelab(*args, "--format", fmt, "--out", tmp_path / "g")
    assert r.returncode == 0, r.stderr
    metrics = json.loads((tmp_path / "g" / "metrics.json").read_text())
    assert (metrics["neurons"], metrics["edges"]) == (1000, 10000)
    con = load_connectome(tmp_path / "g" / f"edges.{fmt}")
    assert con.summary()["edges"] == 10000 and "descending" in con.celltypes
