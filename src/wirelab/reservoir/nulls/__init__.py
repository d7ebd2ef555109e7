"""Null models of a directed, weighted connectome ``W[pre, post]``, one stated definition each.

All take the raw matrix (a `Connectome` or any source of `weights.as_csr`) and a seed, and return
a float64 CSR ``[pre, post]`` of the same size; normalisation and gain are applied afterwards, the
same way as for the real connectome, so a comparison changes only the wiring.

- ``erdos-renyi``: the same number of edges E placed uniformly at random among the N(N-1)
  ordered pairs without self-loops, carrying a random permutation of the real edge weights
  (matched density and weight distribution; degrees become binomial).
- ``degree``: degree-preserving rewiring (Maslov & Sneppen 2002, Science 296:910; `degree`):
  ``10`` attempted double-edge swaps ``(a->b, c->d) -> (a->d, c->b)`` per movable edge, rejected
  when they would create a self-loop or a duplicate edge. Every in- and out-degree, the weight
  multiset (each weight stays on its edge, which keeps its presynaptic neuron, so every out-
  strength) and every self-loop (place and weight: the larva's 537 stay) are kept. Gap junctions
  (edge type ``gap``) are rewired as undirected edges among themselves: symmetric before and
  after, each neuron's number of gap partners and the pair weights kept.
- ``degree-noloops``: the ``degree`` definition used before December 2026 (and by the figures
  made then): one directed graph of every chosen edge type, gap junctions as two directed edges,
  self-loops swappable, so they disappear (larva 537 -> 0) and gap junctions become asymmetric.
- ``degree-boundary``: ``degree`` with swaps only between two edges of the same class pair
  ``(class(pre), class(post))`` (`classes`: sensory by modality, ascending, interneuron, DN-VNC,
  DN-SEZ, other outputs): every class-to-class edge count kept as well, so no sensory ->
  descending shortcut appears that the connectome lacks. Needs two or more cell classes
  (`needs_cell_classes`; a study naming it on a connectome without them: a one-line `UsageError`).
- ``weights``: the real topology with the edge weights randomly permuted among the edges.
- ``random-esn``: a standard echo state network of the same size and edge count: E positions
  drawn as for ``erdos-renyi`` (no self-loops), each with an N(0, 1) weight
  (`wirelab.reservoir.esn.random_esn_matrix`); the real weights are not used. After the run's
  normalisation it is rescaled to the spectral radius of the normalised connectome
  (`match_radius`; the nulls in `RADIUS_MATCHED`), so at every gain it has the connectome's
  spectral radius: the answer to "is the connectome better than a standard ESN of its size?".
- ``mirror``: the two hemispheres swapped: with ``P`` the permutation sending every paired
  neuron to its contralateral partner (unpaired neurons to themselves),
  ``W_mirror[i, j] = W[P[i], P[j]]``: left neurons get the wiring of their right partners and
  vice versa. Deterministic (the seed is ignored).

`DEFAULT_NULLS` (``degree`` and ``degree-boundary``) is what a run compares the connectome with
unless told otherwise: both families, because a plain degree-preserving rewiring sends about 24
times the larva's share of sensory output straight onto DN-VNC (docs/reservoir-nulls.md). A null
whose entry ``needs`` what the connectome lacks (``degree-boundary``: two or more cell classes)
is left out of the defaults on that connectome, with the reason (`usable_nulls`: a user's edge
list without a neuron table; ``esn-1000``, every unit one class); named explicitly, it is a
one-line `UsageError`.

The rewirings work on edge lists with a hash set of edge keys (`swaps`, `kernel`), so their
memory is O(E), not O(N^2). `NULLS` is the one list of them (the CLI's ``--null-model``, the
validation, the experiment and the docs read it); each entry is a `NullModel`: ``null(source,
seed, edge_types) -> W`` (``edge_types`` None: every type) and how the experiment treats it
(deterministic, radius matched, its colour). The fly experiments use `degree_preserving` and
`mirrored` directly on a `Connectome`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import scipy.sparse as sp

from wirelab.errors import UsageError
from wirelab.registry import Registry
from wirelab.reservoir.nulls.classes import cell_classes
from wirelab.reservoir.nulls.degree import boundary_preserving, degree_noloops, degree_preserving
from wirelab.reservoir.nulls.simple import (
    erdos_renyi,
    match_radius,
    mirror_permutation,
    mirrored,
    random_esn,
    weight_permutation,
)
from wirelab.reservoir.weights import as_csr


@dataclass(frozen=True)
class NullModel:
    """A `NULLS` entry: ``build(source, seed, edge_types) -> W`` (``edge_types`` None: every
    type) and what the experiment needs to know about it: ``deterministic`` (the seed is
    ignored, so ``--nulls N`` runs one), ``radius_matched`` (rescaled to the spectral radius of
    the normalised connectome after the run's normalisation, `match_radius`), the ``colour``
    of its band in score_vs_alpha.png, its ``words`` in the report's question ("than its
    degree-preserving nulls"; empty: its registry name) and what it ``needs`` of a connectome
    (``needs(con) -> ""`` where it is defined, else the reason in one line; None: defined on
    every connectome). Calling the entry builds the null."""

    build: Callable[[Any, int, Any], sp.csr_matrix]
    deterministic: bool = False
    radius_matched: bool = False
    colour: str = "grey"
    words: str = ""
    needs: Callable[[Any], str] | None = None

    def __call__(self, source: Any, seed: int, edge_types: Any = None) -> sp.csr_matrix:
        return self.build(source, seed, edge_types)

    def missing(self, con: Any) -> str:
        """Why this null is not defined on ``con`` (a `Connectome`); "" where it is."""
        return self.needs(con) if self.needs is not None else ""


def needs_cell_classes(con: Any) -> str:
    """ "" where ``con`` has two or more cell classes (`cell_classes`), else why not: no cell
    types at all, or every neuron in one class (the boundary-preserving rewiring would then be
    the ``degree`` rewiring itself, swap for swap)."""
    try:
        _, names = cell_classes(con)
    except UsageError as exc:
        return str(exc)
    if len(names) < 2:
        return (
            f"every neuron of {con.name} is in one cell class ({names[0]}): no sensory-motor "
            "boundary to keep, so the null would be the degree null itself"
        )
    return ""


def on_matrix(null: Callable[[Any, int], sp.csr_matrix]) -> Callable[[Any, int, Any], Any]:
    """``null(source, seed)`` as a ``build``: the edge types are selected first."""

    def build(source: Any, seed: int, edge_types: Any) -> sp.csr_matrix:
        return null(
            as_csr(source, edge_types=edge_types) if edge_types is not None else source, seed
        )

    return build


def with_edge_types(null: Callable[..., sp.csr_matrix]) -> Callable[[Any, int, Any], Any]:
    """``null(source, seed, edge_types=...)`` as a ``build`` (it splits the edge types itself)."""

    def build(source: Any, seed: int, edge_types: Any) -> sp.csr_matrix:
        return null(source, seed, edge_types=edge_types)

    return build


def _mirror(con: Any, seed: int, edge_types: Any) -> sp.csr_matrix:
    return mirrored(con, edge_types)


NULLS = Registry[NullModel]("null model")
"""The null models by name (``erdos-renyi``, ``degree``, ``degree-noloops``, ``degree-boundary``,
``weights``, ``mirror``, ``random-esn``; module docstring), each a `NullModel`:
``NULLS.get("degree")(connectome, seed)`` builds one ``(N, N)`` ``[pre, post]`` null;
`wirelab.reservoir.compare`'s ``null_models``."""
NULLS.add(
    "erdos-renyi",
    NullModel(on_matrix(erdos_renyi), colour="tab:green", words="Erdos-Renyi"),
    "matched density and weights, random topology",
)
NULLS.add(
    "degree",
    NullModel(with_edge_types(degree_preserving), colour="tab:orange", words="degree-preserving"),
    "degree-preserving rewiring (Maslov-Sneppen): self-loops kept, gap junctions undirected",
)
NULLS.add(
    "degree-noloops",
    NullModel(
        with_edge_types(degree_noloops),
        colour="tab:brown",
        words="degree-preserving (loops removed)",
    ),
    "the degree rewiring before 2026-12: self-loops moved away, gap junctions as directed edges",
)
NULLS.add(
    "degree-boundary",
    NullModel(
        with_edge_types(boundary_preserving),
        colour="tab:cyan",
        words="boundary-preserving degree",
        needs=needs_cell_classes,
    ),
    "degree rewiring within each cell-class pair: class-to-class edge counts kept (cell types)",
)
NULLS.add(
    "weights",
    NullModel(on_matrix(weight_permutation), colour="tab:purple", words="weight-shuffled"),
    "real topology, weights permuted",
)
NULLS.add(
    "mirror",
    NullModel(_mirror, deterministic=True, colour="tab:red", words="left-right mirrored"),
    "hemispheres swapped",
)
NULLS.add(
    "random-esn",
    NullModel(on_matrix(random_esn), radius_matched=True),
    "standard random ESN: same N and edge count, N(0, 1) weights, connectome's spectral radius",
)
DEFAULT_NULLS = ("degree", "degree-boundary")  # a run's null families by default (docstring)
RADIUS_MATCHED = frozenset(name for name in NULLS if NULLS.get(name).radius_matched)


def usable_nulls(con: Any, names: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """``(kept, left_out)``: the null models ``names`` (`NULLS` names) defined on ``con`` (each
    entry's `NullModel.missing`) and ``{name: reason}`` of the others. Only the defaults leave
    one out (``names`` equal to `DEFAULT_NULLS`: ``degree-boundary`` on a connectome without
    cell classes); a null named explicitly that ``con`` cannot have is a one-line `UsageError`.

    Example: ``usable_nulls(load_connectome("esn-1000"), DEFAULT_NULLS)`` ->
    ``(["degree"], {"degree-boundary": "every neuron of esn-1000 is in one cell class ..."})``
    """
    reasons = {name: NULLS.get(name).missing(con) for name in names}
    left_out = {name: why for name, why in reasons.items() if why}
    if left_out and tuple(names) != DEFAULT_NULLS:
        name, why = next(iter(left_out.items()))
        raise UsageError(f"null model {name!r} is not defined on {con.name}: {why}")
    return [name for name in names if name not in left_out], left_out


def make_null(kind: str, source: Any, seed: int = 0, edge_types: Any = None) -> sp.csr_matrix:
    """The null model ``kind`` (a `NULLS` name) of ``source`` (a Connectome or a matrix)."""
    return NULLS.get(kind)(source, seed, edge_types)


__all__ = [
    "DEFAULT_NULLS",
    "NULLS",
    "RADIUS_MATCHED",
    "NullModel",
    "boundary_preserving",
    "cell_classes",
    "degree_noloops",
    "degree_preserving",
    "erdos_renyi",
    "make_null",
    "match_radius",
    "mirror_permutation",
    "mirrored",
    "needs_cell_classes",
    "on_matrix",
    "random_esn",
    "usable_nulls",
    "weight_permutation",
    "with_edge_types",
]
