"""Propagation diagnostics on ``W[pre, post]``: hops, reachability, midline, gain, latency.

- **Hop distance / reachability** from a source population S to a target population T: the
  multi-source BFS distance ``d(t) = min_{s in S} hops(s -> t)`` along directed edges pre -> post;
  ``reachable`` is the fraction of T with finite ``d``.
- **Midline crossings**: over all shortest paths from each ``s`` to each reachable ``t``
  (counted exactly by dynamic programming on the BFS layers), the fraction that use at least one
  edge between a left- and a right-annotated neuron. ``crossing_fraction`` averages the per-pair
  fractions over reachable (s, t) pairs; it is also split into ipsilateral and contralateral pairs.
- **Response gain and latency** (population A -> B): a constant input of amplitude ``amp`` drives
  A (leaky tanh dynamics with the chosen normalisation and gain, from rest); ``r_B(t)`` is the mean
  absolute activity of B. Gain = mean ``r_B`` over the last half of the run divided by ``amp``;
  latency = first step at which ``r_B`` exceeds ``threshold``.
- **Spectral radius** of the normalised matrix times alpha (`weights.spectral_radius`).

`run` is the experiment of ``wirelab connectome paths``: a `PathsConfig` in, the diagnostics of
one connectome (metrics.json) out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import check_edge_types, connectome_edge_types, load_connectome
from wirelab.errors import UsageError
from wirelab.reservoir.dynamics import Reservoir
from wirelab.reservoir.populations import parse_population
from wirelab.reservoir.units import Units
from wirelab.reservoir.weights import NORMALIZATIONS, as_csr, normalize, spectral_radius
from wirelab.results import experiment, sanitize


def _binary(w: sp.spmatrix) -> sp.csr_matrix:
    b = sp.csr_matrix(w, dtype=np.float64, copy=True)
    b.data[:] = 1.0
    b.eliminate_zeros()
    return b


def hop_distances(w: sp.spmatrix, sources: np.ndarray) -> np.ndarray:
    """``(S, N)`` hop counts from each source along ``pre -> post`` edges (inf if unreachable)."""
    a = _binary(w)
    n = a.shape[0]
    sources = np.asarray(sources, dtype=np.int64)
    dist = np.full((sources.size, n), np.inf)
    frontier = np.zeros((sources.size, n))
    frontier[np.arange(sources.size), sources] = 1.0
    dist[np.arange(sources.size), sources] = 0
    hop = 0
    while frontier.any():
        hop += 1
        nxt = np.asarray(a.T @ frontier.T).T > 0  # (S, N): reached via one more edge
        nxt &= np.isinf(dist)
        dist[nxt] = hop
        frontier = nxt.astype(np.float64)
    return dist


def shortest_path_crossings(
    w: sp.spmatrix, side: np.ndarray, sources: np.ndarray, targets: np.ndarray
) -> dict[str, Any]:
    """Exact shortest-path counts ``sigma`` and non-crossing counts, per (source, target) pair."""
    a = _binary(w)
    coo = a.tocoo()
    s_pre, s_post = side[coo.row], side[coo.col]
    crossing = (s_pre != "") & (s_post != "") & (s_pre != s_post)
    keep = ~crossing
    a_nc = sp.csr_matrix((np.ones(keep.sum()), (coo.row[keep], coo.col[keep])), shape=a.shape)
    n_src = sources.size
    n = a.shape[0]
    dist = np.full((n_src, n), np.inf)
    sigma = np.zeros((n_src, n))
    sigma_nc = np.zeros((n_src, n))
    idx = np.arange(n_src)
    dist[idx, sources] = 0
    sigma[idx, sources] = 1.0
    sigma_nc[idx, sources] = 1.0
    layer = np.zeros((n_src, n), dtype=bool)
    layer[idx, sources] = True
    hop = 0
    while layer.any():
        hop += 1
        s_l = np.where(layer, sigma, 0.0)
        nc_l = np.where(layer, sigma_nc, 0.0)
        new_sigma = np.asarray(a.T @ s_l.T).T  # paths arriving in one more hop
        new_nc = np.asarray(a_nc.T @ nc_l.T).T
        nxt = (new_sigma > 0) & np.isinf(dist)
        dist[nxt] = hop
        sigma[nxt] = new_sigma[nxt]
        sigma_nc[nxt] = new_nc[nxt]
        layer = nxt
    d = dist[:, targets]
    ok = np.isfinite(d)
    frac = np.where(ok, 1.0 - sigma_nc[:, targets] / np.where(ok, sigma[:, targets], 1.0), np.nan)
    same = side[sources][:, None] == side[targets][None, :]
    out: dict[str, Any] = {
        "pairs_reachable": int(ok.sum()),
        "pairs": int(ok.size),
        "crossing_fraction": float(np.nanmean(frac)) if ok.any() else float("nan"),
    }
    for name, mask in (("ipsilateral", same), ("contralateral", ~same)):
        m = ok & mask
        out[f"crossing_fraction_{name}"] = float(np.mean(frac[m])) if m.any() else float("nan")
    return out


def reachability(w: sp.spmatrix, sources: np.ndarray, targets: np.ndarray) -> dict[str, Any]:
    """Hop distance from S (nearest source) to each target; summary statistics."""
    if sources.size == 0 or targets.size == 0:
        raise UsageError("source and target populations must be non-empty")
    d = hop_distances(w, sources).min(0)[targets]
    fin = d[np.isfinite(d)]
    return {
        "targets": int(targets.size),
        "reachable": float(fin.size / targets.size),
        "hops_min": float(fin.min()) if fin.size else float("inf"),
        "hops_median": float(np.median(fin)) if fin.size else float("inf"),
        "hops_mean": float(fin.mean()) if fin.size else float("inf"),
        "hops_max": float(fin.max()) if fin.size else float("inf"),
        "hops_histogram": {int(h): int(np.sum(fin == h)) for h in np.unique(fin)},
    }


def response_matrix(
    w: sp.spmatrix,
    populations: dict[str, np.ndarray],
    *,
    alpha: float = 1.0,
    steps: int = 40,
    amp: float = 1.0,
    threshold: float = 1e-3,
    units: Units | None = None,
) -> dict[str, dict[str, dict[str, float]]]:
    """``{source: {target: {"gain", "latency"}}}`` with every source driven in its own batch row."""
    names = list(populations)
    n = w.shape[0]
    w_in = np.zeros((len(names), n))
    for k, name in enumerate(names):
        w_in[k, populations[name]] = 1.0
    res = Reservoir(
        w,
        w_in,
        alphas=[alpha],
        units=units or Units(input_scaling=1.0),
        batch=len(names),
        dtype=np.float64,
    )
    u = np.zeros((steps, len(names), len(names)))
    u[:, np.arange(len(names)), np.arange(len(names))] = amp
    states = res.run(u).states[:, 0, 0]  # (T, B, N)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for b, src in enumerate(names):
        out[src] = {}
        for tgt in names:
            r = np.abs(states[:, b][:, populations[tgt]]).mean(1)  # (T,)
            above = np.flatnonzero(r > threshold)
            out[src][tgt] = {
                "gain": float(r[steps // 2 :].mean() / amp),
                "latency": float(above[0] + 1) if above.size else float("inf"),
            }
    return out


def diagnose(
    w_normalised: sp.spmatrix,
    side: np.ndarray,
    sources: np.ndarray,
    targets: np.ndarray,
    populations: dict[str, np.ndarray],
    *,
    alpha: float = 1.0,
    steps: int = 40,
    seed: int = 0,
) -> dict[str, Any]:
    """All diagnostics for one normalised matrix."""
    return {
        "spectral_radius": spectral_radius(w_normalised, seed=seed) * abs(alpha),
        "reachability": reachability(w_normalised, sources, targets),
        "midline": shortest_path_crossings(w_normalised, side, sources, targets),
        "response": response_matrix(w_normalised, populations, alpha=alpha, steps=steps),
    }


def population_table(con: Any, specs: Sequence[str]) -> dict[str, np.ndarray]:
    return {s: parse_population(con, s) for s in specs}


@dataclass
class PathsConfig:
    """``wirelab connectome paths``: from ``source`` to ``target`` on one normalised matrix;
    ``populations`` are the rows and columns of the response gain/latency matrix."""

    connectome: str = "larva"
    source: str = "sensory"
    target: str = "DN-VNC"
    normalize: str = "row"
    edge_types: list[str] | None = None
    alpha: float = 1.0
    populations: list[str] = field(
        default_factory=lambda: ["sensory:left", "sensory:right", "DN-VNC:left", "DN-VNC:right"]
    )
    steps: int = 40


def prepare_paths(cfg: PathsConfig) -> Callable[[], dict[str, Any]]:
    """Check ``cfg`` and resolve its connectome and populations (a one-line `UsageError` on a bad
    name, edge type or empty population, before any work); returns the measurement: a function
    computing `diagnose` plus the settings."""
    if cfg.normalize not in NORMALIZATIONS:
        raise UsageError(f"normalize must be one of {', '.join(NORMALIZATIONS)}")
    if cfg.edge_types is not None:
        check_edge_types(cfg.edge_types, connectome_edge_types(cfg.connectome))
    if cfg.steps < 1:
        raise UsageError(f"steps must be >= 1, got {cfg.steps}")
    con = load_connectome(cfg.connectome)
    sources = parse_population(con, cfg.source)
    targets = parse_population(con, cfg.target)
    pops = population_table(con, cfg.populations)

    def measure() -> dict[str, Any]:
        w = normalize(as_csr(con, edge_types=cfg.edge_types), cfg.normalize)
        result = diagnose(w, con.side, sources, targets, pops, alpha=cfg.alpha, steps=cfg.steps)
        result.update(
            source=cfg.source, target=cfg.target, normalize=cfg.normalize, alpha=cfg.alpha
        )
        return result

    return measure


def run(cfg: PathsConfig, out: Path | None, *, overwrite: bool = False) -> dict[str, Any]:
    """Diagnose ``cfg`` into the result directory ``out`` (config.json, metrics.json); with
    ``out`` None, only compute. Returns the metrics as written (non-finite numbers -> None)."""
    measure = prepare_paths(cfg)
    if out is None:
        return dict(sanitize(measure())[0])
    with experiment(
        out, command="wirelab connectome paths", config=asdict(cfg), overwrite=overwrite
    ) as rd:
        return rd.finish(measure())
