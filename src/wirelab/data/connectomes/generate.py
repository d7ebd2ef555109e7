"""A generated connectome of any size, shaped like a whole adult fly brain (the test input for
whole-brain studies: no adult connectome is reachable offline).

`generate` draws ``edges`` distinct directed pairs among ``neurons`` neurons, Chung-Lu style:
each neuron ``i`` has an out-propensity ``a_i`` and an in-propensity ``b_i``, both lognormal
(heavy-tailed degrees), sharing a factor (a neuron with many outputs tends to have many inputs)
and scaled by its class (sensory neurons have few inputs, descending and motor neurons few
outputs inside the brain)::

    g_i ~ N(0, 1),  e_i, f_i ~ N(0, 1)           shared and own factors, per neuron
    a_i = c_out[class_i] exp(sigma (rho g_i + sqrt(1 - rho^2) e_i))
    b_i = c_in[class_i]  exp(sigma (rho g_i + sqrt(1 - rho^2) f_i))
    P(pre = i) = a_i / sum a,  P(post = j) = b_j / sum b    (independent draws)

Pairs are drawn in rounds; self-loops and repeats are dropped (the first draw of a pair is kept)
until ``edges`` remain, in the order drawn. Weights are synapse counts with a Pareto tail above
FlyWire's usual threshold of 5 synapses, ``w = floor(5 U^(-1 / 1.6))`` (``U ~ U(0, 1]``), capped
at 5,000. Everything is drawn from one ``numpy.random.Generator(seed)``.

The neuron table (`Neurons`) gives every neuron a FlyWire-like root id (``7205759406...``), a
class as ``celltype`` in the proportions of `CLASSES` (roughly FlyWire's super classes: optic
and central interneurons, sensory, visual projection, ascending, descending, motor, endocrine; a
stand-in, not fitted), a side and a contralateral ``partner`` (`PAIRED` of each class in
left/right pairs, the rest unpaired on a random side or the midline), and ``annotations``: the
sensory modality of a sensory neuron (`MODALITIES`), ``interneuron`` for optic and central
neurons, and a transmitter (`TRANSMITTERS`); ``signed=True`` writes ``signed_weight`` with the
sign of the presynaptic neuron's transmitter (Dale's law: GABA and glutamate inhibitory).

`write` saves ``DIR/edges.parquet`` (or ``.csv``) and its neuron table
``DIR/edges.neurons.parquet``, the file pair `wirelab.data.connectomes.user` reads (the table is
found beside the edge list). ``wirelab connectome generate`` is the command.

Example:
    ``g = generate(2000, 40000, seed=0); write(g, Path("out"), "parquet")``, then
    ``wirelab reservoir run --connectome out/edges.parquet --inputs sensory --outputs descending``
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wirelab.cli_options import check_memory
from wirelab.errors import UsageError

# class: (fraction of neurons, in-propensity scale c_in, out-propensity scale c_out)
CLASSES: dict[str, tuple[float, float, float]] = {
    "optic": (0.55, 1.0, 1.0),
    "sensory": (0.12, 0.02, 1.5),
    "projection": (0.06, 1.0, 1.0),
    "ascending": (0.017, 0.3, 1.5),
    "descending": (0.0094, 3.0, 0.1),
    "motor": (0.0007, 2.0, 0.02),
    "endocrine": (0.0006, 1.0, 0.3),
    "central": (0.0, 1.0, 1.0),  # the rest
}
MODALITIES = {  # share of the sensory neurons
    "visual": 0.5,
    "olfactory": 0.2,
    "mechanosensory": 0.15,
    "gustatory": 0.1,
    "thermosensory": 0.03,
    "hygrosensory": 0.02,
}
TRANSMITTERS = {"ach": (0.6, 1.0), "gaba": (0.2, -1.0), "glut": (0.15, -1.0), "other": (0.05, 1.0)}
PAIRED = 0.9  # of each class, in left/right pairs
SIGMA, RHO = 1.2, 0.6  # lognormal degree spread; correlation of a neuron's in and out propensity
MIN_SYNAPSES, TAIL, MAX_SYNAPSES = 5, 1.6, 5000
ROOT = 720575940600000000  # FlyWire-like root ids start here
MAX_DENSITY = 0.1  # edges / (N (N - 1)) allowed: beyond it repeats dominate the draws
NEURON_BYTES, EDGE_BYTES = 300, 100  # 140,000 neurons and 3M edges peaked at 0.45 GB


@dataclass(frozen=True)
class Neurons:
    """The neuron table: ``(N,)`` arrays in table order (ids ascending)."""

    ids: np.ndarray  # int64 root ids
    celltype: np.ndarray  # str
    side: np.ndarray  # "left", "right" or ""
    partner: np.ndarray  # int64 index of the partner, -1 unpaired
    annotations: list[str]  # ";"-joined tokens
    sign: np.ndarray  # +1 / -1 by transmitter


@dataclass(frozen=True)
class Generated:
    """A generated connectome: ``pre``, ``post`` ``(E,)`` int64 indices into ``neurons``,
    ``weight`` ``(E,)`` int64 synapse counts (``signed``: times the presynaptic sign)."""

    neurons: Neurons
    pre: np.ndarray
    post: np.ndarray
    weight: np.ndarray
    signed: bool
    seed: int

    def summary(self) -> dict[str, object]:
        """Counts and degree percentiles (what ``wirelab connectome generate`` reports)."""
        n = self.neurons.ids.size
        out_deg = np.bincount(self.pre, minlength=n)
        in_deg = np.bincount(self.post, minlength=n)
        pct = (50, 90, 99, 100)
        classes, counts = np.unique(self.neurons.celltype, return_counts=True)
        return {
            "neurons": int(n),
            "edges": int(self.pre.size),
            "synapses": int(np.abs(self.weight).sum()),
            "signed": self.signed,
            "seed": self.seed,
            "out_degree_percentiles": _percentiles(out_deg, pct),
            "in_degree_percentiles": _percentiles(in_deg, pct),
            "classes": {str(c): int(k) for c, k in zip(classes, counts, strict=True)},
        }


def _percentiles(x: np.ndarray, pct: tuple[int, ...]) -> dict[str, float]:
    return {str(p): float(v) for p, v in zip(pct, np.percentile(x, pct), strict=True)}


def _class_sizes(n: int) -> dict[str, int]:
    sizes = {c: int(round(f * n)) for c, (f, _, _) in CLASSES.items() if f > 0}
    sizes["central"] = n - sum(sizes.values())
    if sizes["central"] < 0:
        raise UsageError(f"--neurons {n} is too few for the classes")
    return sizes


def _sides(
    rng: np.random.Generator, members: np.ndarray, side: np.ndarray, partner: np.ndarray
) -> None:
    """Pairs `PAIRED` of ``members`` left/right (partners of each other), the rest unpaired."""
    pairs = int(PAIRED * members.size) // 2
    left, right = members[:pairs], members[pairs : 2 * pairs]
    side[left], side[right] = "left", "right"
    partner[left], partner[right] = right, left
    rest = members[2 * pairs :]
    side[rest] = rng.choice(np.array(["left", "right", ""]), rest.size)


def _neurons(n: int, rng: np.random.Generator) -> Neurons:
    ids = ROOT + 1000 * np.arange(n, dtype=np.int64) + rng.integers(0, 1000, n)
    celltype = np.empty(n, dtype=object)
    side = np.full(n, "", dtype=object)
    partner = np.full(n, -1, dtype=np.int64)
    notes: list[list[str]] = [[] for _ in range(n)]
    order = rng.permutation(n)
    at = 0
    for cls, size in _class_sizes(n).items():
        members = order[at : at + size]
        at += size
        celltype[members] = cls
        _sides(rng, members, side, partner)
        if cls == "sensory":
            kinds = list(MODALITIES)
            which = rng.choice(len(kinds), members.size, p=list(MODALITIES.values()))
            for i, k in zip(members, which, strict=True):
                notes[i].append(kinds[k])
        elif cls in ("optic", "central"):
            for i in members:
                notes[i].append("interneuron")
    names = list(TRANSMITTERS)
    nt = rng.choice(len(names), n, p=[p for p, _ in TRANSMITTERS.values()])
    signs = np.array([s for _, s in TRANSMITTERS.values()])[nt]
    for i in range(n):
        notes[i].append(names[nt[i]])
    return Neurons(
        ids,
        celltype.astype(str),
        side.astype(str),
        partner,
        [";".join(t) for t in notes],
        signs.astype(np.int64),
    )


def _propensities(neurons: Neurons, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    n = neurons.ids.size
    g, e, f = rng.standard_normal((3, n))
    own = np.sqrt(1 - RHO**2)
    c_in = np.array([CLASSES[c][1] for c in neurons.celltype])
    c_out = np.array([CLASSES[c][2] for c in neurons.celltype])
    a = c_out * np.exp(SIGMA * (RHO * g + own * e))
    b = c_in * np.exp(SIGMA * (RHO * g + own * f))
    return a / a.sum(), b / b.sum()


def _pairs(
    n: int, edges: int, p_out: np.ndarray, p_in: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``edges`` distinct non-loop pairs, first draws kept, in the order drawn."""
    cdf_out, cdf_in = np.cumsum(p_out), np.cumsum(p_in)
    keys = np.empty(0, dtype=np.int64)
    while keys.size < edges:
        need = edges - keys.size
        draw = int(need * 1.3) + 1000
        pre = np.minimum(np.searchsorted(cdf_out, rng.random(draw), side="right"), n - 1)
        post = np.minimum(np.searchsorted(cdf_in, rng.random(draw), side="right"), n - 1)
        new = (pre * n + post)[pre != post]
        keys = np.concatenate([keys, new])
        _, first = np.unique(keys, return_index=True)
        keys = keys[np.sort(first)]
    keys = keys[:edges]
    return keys // n, keys % n


def check_sizes(neurons: int, edges: int) -> None:
    """A one-line `UsageError` for sizes `generate` refuses: fewer than 100 neurons, more than
    `MAX_DENSITY` of the ordered pairs, or more than the memory available now (at least
    `NEURON_BYTES` per neuron and `EDGE_BYTES` per edge)."""
    if neurons < 100:
        raise UsageError(f"--neurons must be at least 100, got {neurons}")
    if not 1 <= edges <= MAX_DENSITY * neurons * (neurons - 1):
        raise UsageError(
            f"--edges must be in [1, {MAX_DENSITY} N (N - 1)] = [1, "
            f"{int(MAX_DENSITY * neurons * (neurons - 1))}] for {neurons} neurons, got {edges}"
        )
    check_memory(
        f"--neurons {neurons} --edges {edges}", NEURON_BYTES * neurons + EDGE_BYTES * edges
    )


def generate(neurons: int, edges: int, *, seed: int = 0, signed: bool = False) -> Generated:
    """A connectome of ``neurons`` neurons and ``edges`` edges (module docstring), seeded."""
    check_sizes(neurons, edges)
    rng = np.random.default_rng(seed)
    table = _neurons(neurons, rng)
    p_out, p_in = _propensities(table, rng)
    pre, post = _pairs(neurons, edges, p_out, p_in, rng)
    u = 1.0 - rng.random(edges)  # (0, 1]
    w = np.minimum(np.floor(MIN_SYNAPSES * u ** (-1.0 / TAIL)), MAX_SYNAPSES).astype(np.int64)
    if signed:
        w = w * table.sign[pre]
    return Generated(table, pre, post, w, signed, seed)


FORMATS = ("parquet", "csv")


def write(gen: Generated, out: Path, fmt: str = "parquet") -> tuple[Path, Path]:
    """``out/edges.<fmt>`` (``pre, post, weight`` or ``signed_weight``) and its neuron table
    ``out/edges.neurons.<fmt>`` (``id, celltype, side, partner, annotations``); their paths."""
    if fmt not in FORMATS:
        raise UsageError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    nt = gen.neurons
    ids = nt.ids
    wcol = "signed_weight" if gen.signed else "weight"
    edges = {"pre": ids[gen.pre], "post": ids[gen.post], wcol: gen.weight}
    partner = np.where(nt.partner >= 0, ids[np.maximum(nt.partner, 0)].astype(str), "")
    table = {
        "id": ids,
        "celltype": nt.celltype,
        "side": nt.side,
        "partner": partner,
        "annotations": np.array(nt.annotations, dtype=str),
    }
    out.mkdir(parents=True, exist_ok=True)
    paths = out / f"edges.{fmt}", out / f"edges.neurons.{fmt}"
    for path, cols in zip(paths, (edges, table), strict=True):
        _write_columns(path, cols, fmt)
    return paths


def _write_columns(path: Path, cols: dict[str, np.ndarray], fmt: str) -> None:
    try:
        import pyarrow as pa
    except ImportError:
        if fmt == "parquet":
            raise UsageError(
                "writing Parquet needs pyarrow: pip install 'wirelab[parquet]' (or --format csv)"
            ) from None
        with path.open("w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(list(cols))
            writer.writerows(zip(*(c.tolist() for c in cols.values()), strict=True))
        return
    table = pa.table({k: pa.array(v) for k, v in cols.items()})
    if fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, path)
    else:
        import pyarrow.csv as pcsv

        pcsv.write_csv(table, path, pcsv.WriteOptions(quoting_style="needed"))
