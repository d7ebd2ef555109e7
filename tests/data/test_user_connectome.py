"""A user's own connectome: edge lists (CSV, Parquet), sparse ``.npz``, neuron tables, errors."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import click
import numpy as np
import pytest
import scipy.sparse as sp
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.clirun import one_line_error, wirelab
from wirelab.data.connectomes import CONNECTOME, connectome_edge_types, load_connectome
from wirelab.data.connectomes.user import load_user_connectome
from wirelab.errors import UsageError

EDGES = """pre,post,weight,edge_type
a1L,a1R,3,chemical
a1L,m1,2,chemical
a1R,a1L,1,gap
a1L,a1R,1,gap
m1,s1,4,chemical
"""
NEURONS = """id,celltype,side,partner,annotations
s1,sensory,,,olfactory
a1L,inter,left,a1R,command;AVA-like
a1R,inter,right,a1L,command
m1,motor,,,
x9,inter,,,isolated
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture
def edge_list(tmp_path: Path) -> Path:
    write(tmp_path / "toy.neurons.csv", NEURONS)
    return write(tmp_path / "toy.csv", EDGES)


def test_edge_list_with_its_sibling_neuron_table(edge_list: Path) -> None:
    con = load_connectome(edge_list)
    assert con.names == ("s1", "a1L", "a1R", "m1", "x9")  # table order, isolated x9 kept
    i = {n: k for k, n in enumerate(con.names)}
    # orientation: weights[pre, post]
    assert con.edge_types["chemical"][i["a1L"], i["a1R"]] == 3
    assert con.edge_types["chemical"][i["a1R"], i["a1L"]] == 0
    assert con.edge_types["gap"][i["a1R"], i["a1L"]] == 1
    assert con.weights[i["a1L"], i["a1R"]] == 4  # chemical 3 + gap 1
    assert con.edge_type_names == ("chemical", "gap")
    assert connectome_edge_types(edge_list) == ("chemical", "gap")
    assert con.side[i["a1L"]] == "left" and con.partner[i["a1L"]] == i["a1R"]
    assert con.partner[i["a1R"]] == i["a1L"] and con.partner[i["m1"]] == -1
    assert list(con.select(celltype="inter", side="left")) == [i["a1L"]]
    assert list(con.select(annotation="ava-like")) == [i["a1L"]]
    s = con.summary()
    assert (s["neurons"], s["edges"], s["synapses"]) == (5, 4, 11)
    assert s["edge_types"] == {
        "chemical": {"edges": 3, "synapses": 9},
        "gap": {"edges": 2, "synapses": 2},
    }
    pops = s["populations"]
    assert isinstance(pops, dict) and pops["inter"] == {"left": 1, "right": 1, "unpaired": 1}


def test_without_a_neuron_table_ids_are_sorted_and_integers_stay_integers(tmp_path: Path) -> None:
    path = write(tmp_path / "ints.csv", "pre,post,weight\n10,2,1.5\n2,10,1\n")
    con = load_user_connectome(path)
    assert list(con.skeleton_ids) == [2, 10] and con.names == ()
    assert con.edge_type_names == ("all",)
    assert con.weights[1, 0] == 1.5 and con.index_of(10) == 1
    assert con.celltypes == []
    padded = load_user_connectome(write(tmp_path / "pad.csv", "pre,post,weight\n007,7,1\n"))
    assert padded.names == ("007", "7") and list(padded.skeleton_ids) == [0, 1]


def test_parquet_reads_like_csv(edge_list: Path, tmp_path: Path) -> None:
    if importlib.util.find_spec("pyarrow") is None:
        pytest.skip("pyarrow not installed: pip install 'wirelab[parquet]'")
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [line.split(",") for line in EDGES.strip().splitlines()[1:]]
    table = pa.table(
        {
            "pre": [r[0] for r in rows],
            "post": [r[1] for r in rows],
            "weight": [float(r[2]) for r in rows],
            "edge_type": [r[3] for r in rows],
        }
    )
    pq.write_table(table, tmp_path / "pq.parquet")
    got = load_user_connectome(tmp_path / "pq.parquet", neurons=tmp_path / "toy.neurons.csv")
    want = load_connectome(edge_list)
    assert got.names == want.names
    for t in want.edge_types:
        assert abs(got.edge_types[t] - want.edge_types[t]).max() == 0


def test_npz_matrix_with_and_without_a_table(tmp_path: Path) -> None:
    m = sp.csr_matrix(np.array([[0, 2, 0], [1, 0, 0], [0, 5, 0]], dtype=float))
    sp.save_npz(tmp_path / "w.npz", m)
    con = load_connectome(tmp_path / "w.npz")
    assert con.n == 3 and list(con.skeleton_ids) == [0, 1, 2]
    assert abs(con.weights - m).max() == 0  # [pre, post] as stored
    write(tmp_path / "w.neurons.csv", "id,celltype,side\nA,sensory,left\nB,motor,right\nC,inter,\n")
    named = load_connectome(tmp_path / "w.npz")
    assert named.names == ("A", "B", "C") and named.index_of("C") == 2
    signed = sp.csr_matrix(np.array([[0, -2], [1, 0]], dtype=float))
    sp.save_npz(tmp_path / "s.npz", signed)
    with pytest.raises(UsageError, match="negative weights"):
        load_connectome(tmp_path / "s.npz")
    sp.save_npz(tmp_path / "s.signed.npz", signed)
    assert load_connectome(tmp_path / "s.signed.npz").signed


def test_signed_weight_column_allows_negative_weights(tmp_path: Path) -> None:
    path = write(tmp_path / "signed.csv", "pre,post,signed_weight\n1,2,-1.5\n2,1,2\n")
    con = load_connectome(path)
    assert con.signed and con.weights[0, 1] == -1.5 and con.summary()["signed"] is True


@pytest.mark.parametrize(
    ("edges", "neurons", "message"),
    [
        ("pre,post,weight\n", None, "no edges"),
        ("", None, "missing column"),
        ("pre,post\n1,2\n", None, "missing column.*weight"),
        ("pre,post,weight\n1,2,1\n1,2,3\n", None, ":3: duplicate edge 1 -> 2"),
        ("pre,post,weight\n1,2,nan\n", None, ":2: weight 'nan' is not finite"),
        ("pre,post,weight\n1,2,inf\n", None, "not finite"),
        ("pre,post,weight\n1,2,-1\n", None, "negative weight -1 .*signed_weight"),
        ("pre,post,weight\n1,2,heavy\n", None, "is not a number"),
        ("pre,post,weight\n1,,1\n", None, "empty pre or post"),
        ("pre,post,weight\n1,2,1\n2,7,1\n", "id\n1\n2\n", r"1 id\(s\) not in the neuron.*: 7"),
        ("pre,post,weight\n1,2,1\n", "id\n1\n2\n1\n", ":4: duplicate neuron id '1'"),
        ("pre,post,weight\n1,2,1\n", "id,side\n1,middle\n2,\n", "side must be left, right"),
        ("pre,post,weight\n1,2,1\n", "id,partner\n1,3\n2,\n", "partner '3' is not a neuron"),
        ("pre,post,weight\n1,2,1\n", "id\n", "neuron table is empty"),
    ],
)
def test_bad_edge_lists_are_one_line_errors(
    tmp_path: Path, edges: str, neurons: str | None, message: str
) -> None:
    path = write(tmp_path / "bad.csv", edges)
    if neurons is not None:
        write(tmp_path / "bad.neurons.csv", neurons)
    with pytest.raises(UsageError, match=message) as info:
        load_connectome(path)
    assert "\n" not in str(info.value)
    r = wirelab("data", "info", path, "--json")
    assert one_line_error(r) and r.stdout == "", r.stderr


def test_bad_matrices_and_paths(tmp_path: Path) -> None:
    sp.save_npz(tmp_path / "rect.npz", sp.csr_matrix(np.ones((2, 3))))
    with pytest.raises(UsageError, match="square"):
        load_connectome(tmp_path / "rect.npz")
    sp.save_npz(tmp_path / "zero.npz", sp.csr_matrix((3, 3)))
    with pytest.raises(UsageError, match="no edges"):
        load_connectome(tmp_path / "zero.npz")
    sp.save_npz(tmp_path / "nan.npz", sp.csr_matrix(np.array([[0, np.nan], [1, 0]])))
    with pytest.raises(UsageError, match="NaN"):
        load_connectome(tmp_path / "nan.npz")
    write(tmp_path / "junk.npz", "not a zip")
    with pytest.raises(UsageError, match="save_npz"):
        load_connectome(tmp_path / "junk.npz")
    sp.save_npz(tmp_path / "three.npz", sp.csr_matrix(np.eye(3)))
    write(tmp_path / "three.neurons.csv", "id\na\nb\n")
    with pytest.raises(UsageError, match="3 x 3 matrix but 2 neurons"):
        load_connectome(tmp_path / "three.npz")
    with pytest.raises(UsageError, match="does not exist"):
        load_connectome(tmp_path / "missing.csv")
    with pytest.raises(UsageError, match=r"unknown connectome 'nosuch\.txt'; choose one of: larva"):
        load_connectome("nosuch.txt")


@settings(max_examples=30, deadline=None)
@given(
    st.dictionaries(
        st.tuples(st.integers(0, 6), st.integers(0, 6), st.sampled_from(["x", "y"])),
        st.floats(0.5, 100, allow_nan=False).map(lambda w: round(w, 3)),
        min_size=1,
        max_size=20,
    )
)
def test_edge_list_round_trip(edges: dict[tuple[int, int, str], float]) -> None:
    """Every row lands at ``[pre, post]`` of its edge type; the total is their sum."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        rows = [f"{a},{b},{w},{t}" for (a, b, t), w in edges.items()]
        lines = ["pre,post,weight,edge_type", *rows]
        path = write(Path(tmp) / "e.csv", "\n".join(lines) + "\n")
        con = load_connectome(path)
    for (a, b, t), w in edges.items():
        assert con.edge_types[t][con.index_of(a), con.index_of(b)] == w
    assert np.isclose(con.weights.sum(), sum(edges.values()))
    assert con.summary()["edges"] == len({(a, b) for a, b, _ in edges})


def test_the_click_type_takes_a_name_or_a_file(edge_list: Path) -> None:
    @click.command()
    @click.option("--connectome", type=CONNECTOME, default="larva")
    def cmd(connectome: str) -> None:
        click.echo(connectome)

    runner = CliRunner()
    assert runner.invoke(cmd, []).output.strip() == "larva"
    assert runner.invoke(cmd, ["--connectome", "celegans-cook2019-male"]).exit_code == 0
    assert runner.invoke(cmd, ["--connectome", str(edge_list)]).output.strip() == str(edge_list)
    bad = runner.invoke(cmd, ["--connectome", "lavra"])
    assert bad.exit_code == 2 and "unknown connectome 'lavra'; choose one of: larva" in bad.output
    gone = runner.invoke(cmd, ["--connectome", str(edge_list.with_name("gone.csv"))])
    assert gone.exit_code == 2 and "does not exist" in gone.output
    r = wirelab("data", "info", edge_list.with_name("gone.csv"))
    assert one_line_error(r) and "does not exist" in r.stderr


def test_data_info_json_on_a_user_file(edge_list: Path) -> None:
    r = wirelab("data", "info", edge_list, "--json")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert (info["neurons"], info["edges"], info["synapses"]) == (5, 4, 11)
    assert info["edge_types"]["gap"] == {"edges": 2, "synapses": 2}
    assert info["source"]["file"] == str(edge_list)
    table = wirelab("data", "info", edge_list)
    assert table.returncode == 0 and "unpaired" in table.stdout


WORM = """pre,post,weight,edge_type
ASHL,AVAL,12,chemical
ASHR,AVAR,10,chemical
AVAL,AVAR,3,gap
AVAR,AVAL,3,gap
AVAL,DA1,8,chemical
AVAR,DA1,6,chemical
DA1,AVAL,2,chemical
"""
WORM_NEURONS = """id,celltype,side,partner,annotations
ASHL,sensory,left,ASHR,nociceptive
ASHR,sensory,right,ASHL,nociceptive
AVAL,inter,left,AVAR,command
AVAR,inter,right,AVAL,command
DA1,motor,,,ventral cord
"""


def test_a_user_edge_list_runs_through_the_reservoir(tmp_path: Path) -> None:
    """The documented example file, end to end through `wirelab reservoir run`, registered under a
    name here (``--connectome PATH`` itself is tested in tests/reservoir/test_cli.py,
    `test_a_user_signed_edge_list_runs_through_connectome_path`)."""
    from wirelab.data.connectomes import CONNECTOMES

    path = write(tmp_path / "worm.csv", WORM)
    write(tmp_path / "worm.neurons.csv", WORM_NEURONS)
    CONNECTOMES.add("worm-file", lambda: load_connectome(path), "the docs' example file")
    try:
        args = ["reservoir", "run", "--connectome", "worm-file", "--task", "memory-capacity"]
        args += ["--inputs", "sensory", "--outputs", "motor"]
        args += ["--alpha", "0.5", "--nulls", "0", "--workers", "1", "--quick"]
        r = wirelab(*args, "--out", tmp_path / "run")
    finally:
        CONNECTOMES.remove("worm-file")
    assert r.returncode == 0, r.stderr
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["population_sizes"] == {"inputs": 2, "outputs": 1}  # ASHL/ASHR -> DA1
    (row,) = metrics["results"]
    assert row["model"] == "connectome" and row["metric"] == "MC" and row["value"] > 0


def _load_or_error(path: Path, fast: bool) -> object:
    try:
        con = load_user_connectome(path, fast=fast)
    except UsageError as exc:
        return str(exc)
    mats = {t: (m.toarray().tolist()) for t, m in con.edge_types.items()}
    return con.names, con.skeleton_ids.tolist(), list(con.edge_types), mats, con.signed


ID = st.sampled_from(["1", "2", "07", "7", "a", " b", "", "-3"])
WEIGHT = st.sampled_from(["1", "2.5", " 3 ", "0", "-1", "nan", "inf", "1_0", "x", "", "1e3"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(ID, ID, WEIGHT, st.sampled_from(["c", "g", ""])), min_size=1, max_size=8),
    st.sampled_from(["weight", "signed_weight"]),
    st.booleans(),
)
def test_the_column_reader_agrees_with_the_row_reader(
    rows: list[tuple[str, str, str, str]], wcol: str, typed: bool
) -> None:
    """`edge_codes.read_fast` (pyarrow) and the row-by-row reference give the same connectome,
    or the same one-line error, on any CSV (ids padded, spaced, empty; weights Python's float()
    takes and arrow does not, NaN, negative; duplicates)."""
    if importlib.util.find_spec("pyarrow") is None:
        pytest.skip("pyarrow not installed")
    import tempfile

    header = f"pre,post,{wcol}" + (",edge_type" if typed else "")
    lines = [header] + [",".join(r if typed else r[:3]) for r in rows]
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp) / "e.csv", "\n".join(lines) + "\n")
        assert _load_or_error(path, True) == _load_or_error(path, False)


def test_parquet_integer_ids_and_nulls_read_like_the_reference(tmp_path: Path) -> None:
    if importlib.util.find_spec("pyarrow") is None:
        pytest.skip("pyarrow not installed")
    import pyarrow as pa
    import pyarrow.parquet as pq

    good = pa.table({"pre": [10, 2, 2**62], "post": [2, 10, 2], "weight": [1, 2, 3]})
    pq.write_table(good, tmp_path / "ints.parquet")
    assert _load_or_error(tmp_path / "ints.parquet", True) == _load_or_error(
        tmp_path / "ints.parquet", False
    )
    assert list(load_user_connectome(tmp_path / "ints.parquet").skeleton_ids) == [2, 10, 2**62]
    bad = pa.table({"pre": ["a", "b"], "post": ["b", None], "weight": [1.0, None]})
    pq.write_table(bad, tmp_path / "nulls.parquet")
    fast = _load_or_error(tmp_path / "nulls.parquet", True)
    assert fast == _load_or_error(tmp_path / "nulls.parquet", False)
    assert isinstance(fast, str) and ":3: empty pre or post id" in fast
