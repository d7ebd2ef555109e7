"""``wirelab reservoir run`` and ``wirelab connectome paths``: on the real larval connectome, and on
a toy connectome added with one registry line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from tests.clirun import one_line_error, wirelab
from tests.conftest import requires_larva
from wirelab.data.connectomes import CONNECTOMES, Connectome
from wirelab.data.connectomes.larva import EDGE_TYPES
from wirelab.reservoir.esn import load_esn
from wirelab.reservoir.experiment import ExperimentConfig, resolve


def toy_connectome(n: int = 48, seed: int = 0) -> Connectome:
    """A random 48-neuron connectome: 8 sensory and 8 DN-VNC neurons, left/right pairs (2k, 2k+1),
    every synapse axo-dendritic."""
    rng = np.random.default_rng(seed)
    w = (rng.random((n, n)) < 0.15) * rng.integers(1, 6, (n, n)).astype(np.float64)
    np.fill_diagonal(w, 0.0)
    weights = sp.csr_matrix(w)
    zero = sp.csr_matrix((n, n))
    celltype = np.array(["sensory"] * 8 + ["DN-VNC"] * 8 + ["inter"] * (n - 16))
    idx = np.arange(n)
    return Connectome(
        name="toy",
        skeleton_ids=np.arange(1000, 1000 + n, dtype=np.int64),
        weights=weights,
        edge_types={e: (weights if e == "ad" else zero) for e in EDGE_TYPES},
        celltype=celltype,
        side=np.where(idx % 2 == 0, "left", "right"),
        partner=idx ^ 1,
        annotations=tuple(frozenset() for _ in range(n)),
        cluster=np.full(n, -1, dtype=np.int64),
    )


@pytest.fixture
def toy() -> Iterator[str]:
    CONNECTOMES.add("toy", toy_connectome, "a random 48-neuron test connectome")
    try:
        yield "toy"
    finally:
        CONNECTOMES.remove("toy")


def test_a_registered_connectome_runs_through_every_command(toy: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["reservoir", "run", "--connectome", toy, "--task", "memory-capacity"]
    args += ["--task", "decision", "--alpha", "0.5,1.0", "--nulls", "2"]
    args += ["--null-model", "degree,mirror", "--workers", "1", "--quick", "--out", str(out)]
    r = wirelab(*args)
    assert r.returncode == 0, r.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    # (connectome + 2 degree nulls + 1 mirror) x 2 alphas x 2 tasks
    assert len(metrics["results"]) == 4 * 2 * 2
    assert metrics["population_sizes"] == {
        "inputs": 8,
        "outputs": 48,  # every neuron is read out by default
        "inputs_left": 4,
        "inputs_right": 4,
    }
    config = json.loads((out / "config.json").read_text())["config"]
    assert config["connectome"] == "toy"
    # the resolved settings are recorded, so the run repeats from config.json
    assert (config["normalize"], config["bias"], config["input_scaling"], config["outputs"]) == (
        "row",
        "random:0.2",
        0.3,
        "all",
    )
    cfg = ExperimentConfig(**config)
    assert asdict(resolve(cfg)) == config
    assert (out / "score_vs_alpha.png").is_file()

    r = wirelab("reservoir", "run", *args[2:])  # a finished run is not replaced silently
    assert r.returncode == 2 and one_line_error(r) and "--overwrite" in r.stderr
    assert wirelab(*args, "--overwrite").returncode == 0

    r = wirelab("connectome", "paths", "--connectome", toy, "--edge-types", "ad", "--steps", "5")
    assert r.returncode == 0, r.stderr
    assert "crossing the midline" in r.stdout
    r = wirelab("data", "info", toy, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["neurons"] == 48


def test_unknown_connectome_and_bad_settings_fail_before_the_result_directory(
    toy: str, tmp_path: Path
) -> None:
    out = tmp_path / "x"
    base = ["reservoir", "run", "--task", "narma10", "--connectome", toy, "--out", str(out)]
    for extra, words in [
        (["--edge-types", "xx"], "edge types"),
        (["--null-model", "shuffle"], "null models"),
        (["--bias", "nan"], "bias must be a number or random[:SCALE]"),
        (["--bias", "random:-1"], "scale >= 0"),
        (["--alpha", "nan"], "finite numbers"),
        (["--alpha", "0.5,inf"], "finite numbers"),
        (["--input-scaling", "nan"], "not a finite number"),
        (["--seed", "-1"], "range"),
        (["--leak", "0"], "out of range"),
        (["--outputs", "annotation=nothing"], "population is empty"),
    ]:
        r = wirelab(*base, *extra)
        assert r.returncode == 2, (extra, r.stderr)
        assert one_line_error(r) and words in r.stderr, (extra, r.stderr)
        assert not out.exists()
    r = wirelab("reservoir", "run", "--task", "narma10", "--connectome", "nosuch", "--out", out)
    assert r.returncode == 2 and one_line_error(r) and "toy" in r.stderr  # choices at parse time
    r = wirelab("connectome", "paths", "--connectome", toy, "--edge-types", "xx", "--out", out)
    assert r.returncode == 2 and one_line_error(r) and "edge types" in r.stderr
    assert not out.exists()


def test_a_default_run_prints_both_null_families_or_says_which_it_left_out(
    toy: str, tmp_path: Path
) -> None:
    """No --null-model: the plain and the boundary-preserving degree nulls, a table each; on a
    connectome without cell classes (esn-1000: every unit one class) the plain one and why."""
    args = ["reservoir", "run", "--task", "memory-capacity", "--alpha", "1.0", "--nulls", "1"]
    args += ["--workers", "1", "--quick", "--inputs", "all"]
    r = wirelab(*args, "--connectome", toy, "--out", str(tmp_path / "toy"))
    assert r.returncode == 0, r.stderr
    assert "connectome vs degree nulls" in r.stdout
    assert "connectome vs degree-boundary nulls" in r.stdout
    config = json.loads((tmp_path / "toy" / "config.json").read_text())["config"]
    assert config["null_models"] == ["degree", "degree-boundary"]
    r = wirelab(*args, "--connectome", "esn-1000", "--out", str(tmp_path / "esn"))
    assert r.returncode == 0, r.stderr
    assert "connectome vs degree nulls" in r.stdout and "vs degree-boundary" not in r.stdout
    assert "degree-boundary nulls left out: every neuron of esn-1000" in r.stdout
    metrics = json.loads((tmp_path / "esn" / "metrics.json").read_text())
    assert list(metrics["null_models_left_out"]) == ["degree-boundary"]


@requires_larva
def test_reservoir_run_writes_results_and_summary(tmp_path: Path) -> None:
    out = tmp_path / "mc"
    proc = wirelab(
        "reservoir",
        "run",
        "--task",
        "memory-capacity",
        "--connectome",
        "larva",
        "--inputs",
        "sensory",
        "--outputs",
        "DN-VNC",
        "--normalize",
        "row",
        "--alpha",
        "0.5:1.0:2",
        "--nulls",
        "1",
        "--workers",
        "1",
        "--quick",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert "MC = sum_(k=1..30)" in proc.stdout  # the metric definition is printed
    metrics = json.loads((out / "metrics.json").read_text())
    rows = metrics["results"]
    assert len(rows) == 3 * 2  # (connectome + 1 null of each default family) x 2 alphas
    assert set(rows[0]) == {"model", "null", "alpha", "task", "metric", "value"}
    s = metrics["summary"]["memory-capacity"]
    assert {"best_alpha", "connectome", "null_mean", "null_std", "p_value", "z"} <= set(s)
    assert s["p_value"] in (0.5, 1.0)
    assert (out / "score_vs_alpha.png").stat().st_size > 1000
    config = json.loads((out / "config.json").read_text())
    assert config["config"]["seed"] == 0 and config["config"]["nulls"] == 1


@requires_larva
def test_bad_population_and_alpha_are_one_line_errors(tmp_path: Path) -> None:
    proc = wirelab(
        "reservoir",
        "run",
        "--task",
        "decision",
        "--outputs",
        "annotation=nothing",
        "--nulls",
        "0",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "x"),
    )
    assert proc.returncode == 2
    assert one_line_error(proc) and proc.stderr.startswith("wirelab: error: population is empty")
    proc = wirelab(
        "reservoir", "run", "--task", "narma10", "--alpha", "1:2", "--out", str(tmp_path / "y")
    )
    assert proc.returncode == 2 and "START:STOP:N" in proc.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


@requires_larva
def test_connectome_paths(tmp_path: Path) -> None:
    proc = wirelab(
        "connectome",
        "paths",
        "--from",
        "sensory:left",
        "--to",
        "DN-VNC",
        "--populations",
        "sensory:left,DN-VNC:left,DN-VNC:right",
        "--steps",
        "10",
        "--out",
        str(tmp_path / "p"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "crossing the midline" in proc.stdout
    m = json.loads((tmp_path / "p" / "metrics.json").read_text())
    assert m["reachability"]["reachable"] > 0.9
    assert abs(m["spectral_radius"] - 1.0) < 1e-6  # row-stochastic: Perron root 1
    assert m["response"]["sensory:left"]["DN-VNC:left"]["gain"] > 0


@pytest.mark.parametrize(
    "args",
    [("connectome", "paths", "--steps", "-3"), ("reservoir", "run", "--seed", "-1")],
)
def test_negative_steps_and_seed_give_one_line(args: tuple[str, ...], tmp_path: Path) -> None:
    r = wirelab(*args, "--out", tmp_path / "run")
    assert r.returncode == 2 and one_line_error(r), r.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--nulls", "1000000000"), "of memory, over the limit of"),
        (("--nulls", "100000000000000000000"), "--nulls"),
        (("--seed", "4294967295", "--nulls", "1"), "seed + nulls must be below 2**32"),
        (("--seed", "12345678901234567890123"), "--seed"),
    ],
    ids=["1e9 nulls", "1e20 nulls", "seed + nulls", "23-digit seed"],
)
def test_unbounded_nulls_and_seeds_are_one_line_before_any_work(
    args: tuple[str, ...], said: str, tmp_path: Path
) -> None:
    """Issue #47: ``--nulls 1000000000`` was a MemoryError traceback after the run had begun."""
    r = wirelab("reservoir", "run", "--task", "narma10", *args, "--out", tmp_path / "run")
    assert r.returncode == 2 and one_line_error(r) and said in r.stderr, r.stderr
    assert not (tmp_path / "run").exists()


@pytest.fixture
def esn() -> Iterator[str]:
    CONNECTOMES.add("esn-test", lambda: load_esn(120, 0.05, 0), "a random 120-unit ESN")
    try:
        yield "esn-test"
    finally:
        CONNECTOMES.remove("esn-test")


def test_a_random_esn_runs_with_every_unit_in_and_out_and_a_random_esn_null(
    esn: str, toy: str, tmp_path: Path
) -> None:
    """A signed network: normalised spectrally under auto, read out from every unit; the
    random-ESN null of the (unsigned, row-normalised) toy connectome has its spectral radius."""
    out = tmp_path / "esn"
    args = ["reservoir", "run", "--connectome", esn, "--task", "narma10", "--inputs", "all"]
    args += ["--alpha", "0.9", "--nulls", "1", "--null-model", "degree", "--workers", "1"]
    r = wirelab(*args, "--quick", "--out", str(out))
    assert r.returncode == 0, r.stderr
    config = json.loads((out / "config.json").read_text())["config"]
    assert config["normalize"] == "spectral" and config["outputs"] == "all"
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["population_sizes"]["outputs"] == 120
    assert metrics["networks"][0]["spectral_radius"] == pytest.approx(1.0, rel=1e-6)

    out = tmp_path / "toy"
    args = ["reservoir", "run", "--connectome", toy, "--task", "narma10", "--alpha", "1.0"]
    args += ["--nulls", "2", "--null-model", "random-esn", "--workers", "1", "--quick"]
    r = wirelab(*args, "--outputs", "DN-VNC+sensory", "--out", str(out))
    assert r.returncode == 0, r.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["population_sizes"]["outputs"] == 16  # the union of the two cell types
    radii = [n["spectral_radius"] for n in metrics["networks"]]
    assert [n["model"] for n in metrics["networks"]] == ["connectome", "random-esn", "random-esn"]
    assert radii == pytest.approx([radii[0]] * 3, rel=1e-6)
    r = wirelab(*args, "--outputs", "DN-VNC+nosuch", "--out", str(tmp_path / "bad"))
    assert r.returncode == 2 and one_line_error(r) and "nosuch" in r.stderr


def test_a_user_signed_edge_list_runs_through_connectome_path(tmp_path: Path) -> None:
    """``--connectome PATH``: a signed edge list with a neuron table, every unit read out."""
    con = load_esn(60, 0.1, 2)
    m = con.matrix().tocoo()
    rows = "".join(
        f"n{i},n{j},{float(w)!r}\n" for i, j, w in zip(m.row, m.col, m.data, strict=True)
    )
    (tmp_path / "net.csv").write_text("pre,post,signed_weight\n" + rows)
    cells = "".join(f"n{i},{'sensory' if i < 10 else 'inter'}\n" for i in range(60))
    (tmp_path / "net.neurons.csv").write_text("id,celltype\n" + cells)
    out = tmp_path / "run"
    args = ["reservoir", "run", "--connectome", str(tmp_path / "net.csv"), "--task", "narma10"]
    args += ["--alpha", "0.9", "--nulls", "1", "--null-model", "random-esn", "--workers", "1"]
    r = wirelab(*args, "--quick", "--out", str(out))
    assert r.returncode == 0, r.stderr
    config = json.loads((out / "config.json").read_text())["config"]
    assert config["normalize"] == "spectral"  # auto: the weights are signed
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["population_sizes"] == {"inputs": 10, "outputs": 60}
    r = wirelab(*args, "--connectome", str(tmp_path / "none.csv"), "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and one_line_error(r) and "does not exist" in r.stderr
    assert not (tmp_path / "x").exists()
