from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from wirelab.reservoir.diagnostics import (
    hop_distances,
    reachability,
    response_matrix,
    shortest_path_crossings,
)


def _chain() -> tuple[sp.csr_matrix, np.ndarray]:
    # 0(L) -> 1(L) -> 3(R);  0(L) -> 2(R) -> 3(R);  4(R) isolated;  edges are pre -> post
    w = sp.csr_matrix(([1.0, 1.0, 1.0, 1.0], ([0, 1, 0, 2], [1, 3, 2, 3])), shape=(5, 5))
    return w, np.array(["left", "left", "right", "right", "right"])


def test_hops_follow_pre_to_post_direction() -> None:
    w, _ = _chain()
    d = hop_distances(w, np.array([0, 3]))
    np.testing.assert_array_equal(d[0], [0, 1, 1, 2, np.inf])
    np.testing.assert_array_equal(d[1], [np.inf, np.inf, np.inf, 0, np.inf])  # 3 has no outputs
    r = reachability(w, np.array([0]), np.array([3, 4]))
    assert r["reachable"] == 0.5 and r["hops_min"] == 2


def test_midline_crossing_counts_all_shortest_paths() -> None:
    w, side = _chain()
    # 0 -> 3 has two shortest paths, both cross (0L->1L->3R crosses at 1->3; 0L->2R crosses)
    out = shortest_path_crossings(w, side, np.array([0]), np.array([1, 3]))
    assert out["pairs_reachable"] == 2
    # pair (0, 1): ipsilateral, no crossing; pair (0, 3): contralateral, all cross
    assert out["crossing_fraction_ipsilateral"] == 0.0
    assert out["crossing_fraction_contralateral"] == 1.0
    assert out["crossing_fraction"] == 0.5


def test_response_gain_and_latency() -> None:
    w, _ = _chain()
    pops = {"a": np.array([0]), "b": np.array([3]), "c": np.array([4])}
    res = response_matrix(w, pops, alpha=1.0, steps=10)
    assert res["a"]["a"]["latency"] == 1 and res["a"]["b"]["latency"] == 3
    assert res["a"]["c"]["latency"] == np.inf and res["a"]["c"]["gain"] == 0
    assert res["b"]["a"]["gain"] == 0  # no path back against the edge direction
