"""The *C. elegans* connectomes (Cook et al. 2019, Witvliet et al. 2021) from the cect package."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from tests.clirun import one_line_error, wirelab
from wirelab.data.connectomes import CONNECTOMES, Connectome, celegans, load_connectome
from wirelab.errors import CorruptDataError, UsageError

HAVE_CECT = importlib.util.find_spec("cect") is not None
requires_cect = pytest.mark.skipif(
    not HAVE_CECT, reason="cect not installed: pip install 'wirelab[celegans]'"
)

# Neurons-only counts: (neurons, chemical edges, chemical weight, gap entries, gap weight).
# Cook 2019: 302 hermaphrodite neurons as in the paper; the male sheets connect 381 neurons.
EXPECTED = {
    "celegans-cook2019-herm": (302, 3709, 20965, 2196, 11523),
    "celegans-cook2019-male": (381, 4048, 36979, 2584, 19355),
    "celegans-witvliet2021-1": (161, 675, 1152, 164, 206),
    "celegans-witvliet2021-2": (162, 865, 1687, 240, 258),
    "celegans-witvliet2021-3": (162, 887, 1884, 186, 216),
    "celegans-witvliet2021-4": (168, 1011, 2521, 407, 475),
    "celegans-witvliet2021-5": (174, 1324, 3644, 572, 824),
    "celegans-witvliet2021-6": (175, 1315, 3894, 422, 528),
    "celegans-witvliet2021-7": (181, 1944, 6587, 528, 732),
    "celegans-witvliet2021-8": (180, 1933, 7099, 600, 839),
}


@pytest.fixture(scope="session")
def worms() -> dict[str, Connectome]:
    if not HAVE_CECT:
        pytest.skip("cect not installed: pip install 'wirelab[celegans]'")
    return {name: load_connectome(name) for name in EXPECTED}


def test_every_dataset_is_registered() -> None:
    assert [n for n in CONNECTOMES.names() if n.startswith("celegans-")] == list(EXPECTED)


@requires_cect
@pytest.mark.parametrize("name", list(EXPECTED))
def test_counts_of_each_dataset(worms: dict[str, Connectome], name: str) -> None:
    con = worms[name]
    s = con.summary()
    chem, gap = s["edge_types"]["chemical"], s["edge_types"]["gap"]
    got = (s["neurons"], chem["edges"], chem["synapses"], gap["edges"], gap["synapses"])
    assert got == EXPECTED[name]
    assert s["synapses"] == chem["synapses"] + gap["synapses"]
    assert sum(sum(p.values()) for p in s["populations"].values()) == s["neurons"]
    assert s["source"]["cells"] == celegans.BY_KEY[name].cells[0]


@requires_cect
def test_cook_classes_match_the_paper(worms: dict[str, Connectome]) -> None:
    herm = worms["celegans-cook2019-herm"]
    # Cook et al. 2019: 83 sensory neurons shared by both sexes; 302 neurons in all.
    assert len(herm.select(celltype="sensory")) == 83
    assert herm.celltypes == ["inter", "motor", "polymodal", "sensory", "unknown"]
    pharynx = herm.select(annotation="pharyngeal")
    assert len(pharynx) == 20  # the pharyngeal nervous system has 20 neurons
    male = worms["celegans-cook2019-male"]
    assert len(male.select(annotation="male-specific")) > 80
    assert len(herm.select(annotation="male-specific")) == 0


@requires_cect
def test_edge_types_are_separate(worms: dict[str, Connectome]) -> None:
    for con in worms.values():
        chem, gap = con.edge_types["chemical"], con.edge_types["gap"]
        assert con.edge_type_names == ("chemical", "gap")
        assert abs(gap - gap.T).max() == 0  # gap junctions in both directions
        assert abs(chem - chem.T).max() > 0  # chemical synapses are directed
        assert abs(con.weights - (chem + gap)).max() == 0
        assert con.matrix(["gap"]).sum() == gap.sum()
    with pytest.raises(UsageError, match=r"edge types of celegans-cook2019-herm.*'chemical'"):
        worms["celegans-cook2019-herm"].matrix(["ad"])


@requires_cect
def test_sides_and_partners(worms: dict[str, Connectome]) -> None:
    herm = worms["celegans-cook2019-herm"]
    aval, avar = herm.index_of("AVAL"), herm.index_of("AVAR")
    assert (herm.side[aval], herm.side[avar]) == ("left", "right")
    assert (herm.partner[aval], herm.partner[avar]) == (avar, aval)
    for unpaired in ("AVL", "PVR", "DA1", "RMED", "SABD", "MI"):
        i = herm.index_of(unpaired)
        assert herm.side[i] == "" and herm.partner[i] == -1, unpaired
    assert herm.celltype[aval] == "inter" and {"ava", "in1"} <= herm.annotations[aval]
    for con in worms.values():
        paired = np.flatnonzero(con.partner >= 0)
        assert np.array_equal(con.partner[con.partner[paired]], paired)
        assert np.all(con.side[paired] != con.side[con.partner[paired]])
        assert set(con.side[paired]) <= {"left", "right"}
        names = np.array(con.names)
        pairs = zip(names[paired], names[con.partner[paired]], strict=True)
        assert all(n[:-1] == m[:-1] for n, m in pairs)
    # ADAR has no connection in the male sheets: ADAL is still a left neuron, without a partner
    male = worms["celegans-cook2019-male"]
    adal = male.index_of("ADAL")
    assert "ADAR" not in male.names and male.side[adal] == "left" and male.partner[adal] == -1


@requires_cect
def test_cached_file_equals_the_conversion(
    worms: dict[str, Connectome], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WIRELAB_CACHE", str(tmp_path))
    fresh = load_connectome("celegans-witvliet2021-8")  # converts, writes the cache
    assert list((tmp_path / "derived").glob("celegans-witvliet2021-8-*.npz"))
    cached = load_connectome("celegans-witvliet2021-8")
    for con in (fresh, cached):
        ref = worms["celegans-witvliet2021-8"]
        assert con.names == ref.names and con.annotations == ref.annotations
        assert np.array_equal(con.celltype, ref.celltype) and np.array_equal(con.side, ref.side)
        assert np.array_equal(con.partner, ref.partner) and con.source == ref.source
        for t in ref.edge_types:
            assert abs(con.edge_types[t] - ref.edge_types[t]).max() == 0
    # a corrupt cache file is rebuilt
    (path,) = (tmp_path / "derived").glob("*.npz")
    path.write_bytes(b"garbage")
    assert load_connectome("celegans-witvliet2021-8").n == 180


@requires_cect
def test_bundled_json_equals_the_published_spreadsheet() -> None:
    """cect's JSON (what wirelab reads) is cect's own parse of the published spreadsheet."""
    from cect.readers import WitvlietDataReader8

    sheet = WitvlietDataReader8.get_instance(from_cache=False)
    nodes, mats = celegans._read_source(celegans.BY_KEY["celegans-witvliet2021-8"])
    order = [sheet.nodes.index(n) for n in nodes]
    for ours, theirs in (("chemical", "Generic_CS"), ("gap", "Generic_GJ")):
        assert np.array_equal(mats[ours], sheet.connections[theirs][np.ix_(order, order)])


@pytest.mark.slow
@requires_cect
def test_cook_json_equals_the_published_spreadsheet() -> None:
    """The same for Cook 2019 (about 30 s: the adjacency spreadsheet is large)."""
    from cect.readers import Cook2019HermReader

    sheet = Cook2019HermReader.get_instance(from_cache=False)
    nodes, mats = celegans._read_source(celegans.BY_KEY["celegans-cook2019-herm"])
    order = [sheet.nodes.index(n) for n in nodes]
    assert np.array_equal(mats["chemical"], sheet.connections["Generic_CS"][np.ix_(order, order)])


def test_missing_cect_is_one_line_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WIRELAB_CACHE", str(tmp_path))  # no cached conversion either
    real = importlib.util.find_spec
    monkeypatch.setattr(
        celegans.importlib.util, "find_spec", lambda n, *a: None if n == "cect" else real(n, *a)
    )
    with pytest.raises(UsageError, match=r"pip install 'wirelab\[celegans\]'"):
        load_connectome("celegans-cook2019-herm")
    r = wirelab("data", "info", "celegans-cook2019-herm", "--json")
    assert one_line_error(r) and "wirelab[celegans]" in r.stderr


@requires_cect
def test_a_changed_source_file_fails_loudly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WIRELAB_CACHE", str(tmp_path))
    ds = celegans.BY_KEY["celegans-witvliet2021-1"]
    monkeypatch.setitem(celegans.BY_KEY, ds.key, dataclasses.replace(ds, sha256="0" * 64))
    with pytest.raises(CorruptDataError, match=r"differs from the one in cect 0\.3\.5"):
        load_connectome(ds.key)
    monkeypatch.setitem(celegans.BY_KEY, ds.key, dataclasses.replace(ds, cells=(1, 2, 3, 4, 5)))
    with pytest.raises(CorruptDataError, match="expected \\(cells, edges, weights\\)"):
        load_connectome(ds.key)


@requires_cect
def test_data_info_json_prints_the_counts(worms: dict[str, Connectome]) -> None:
    r = wirelab("data", "info", "celegans-cook2019-herm", "--json")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["neurons"] == 302
    assert info["edge_types"]["chemical"] == {"edges": 3709, "synapses": 20965}
    assert info["edge_types"]["gap"] == {"edges": 2196, "synapses": 11523}
    # the full published matrices (all 473 cells), as cect's summary states them
    assert info["source"]["chemical"] == {"edges": 4879, "weight": 28113}
    assert info["source"]["gap"] == {"edges": 2883, "weight": 23313}
    listing = wirelab("data", "list")
    assert listing.returncode == 0 and "celegans-witvliet2021-8" in listing.stdout
