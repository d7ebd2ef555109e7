"""A user's own connectome from a file: an edge list (CSV or Parquet) or a scipy sparse ``.npz``.

Edge list (``.csv``, ``.parquet``): one row per edge, columns

- ``pre``, ``post``: neuron ids (any text; integers stay integers), the edge is ``pre -> post``;
- ``weight`` (>= 0, finite), or ``signed_weight`` (finite, any sign: a signed matrix);
- ``edge_type`` (optional): any names (``chemical``, ``gap``, ...); without it every edge is of
  the one type ``all``. A (pre, post, edge_type) triple may appear once.

Matrix (``.npz``, written by ``scipy.sparse.save_npz``): a square sparse matrix ``[pre, post]``,
one edge type ``all``, neuron ids ``0..N-1``; a name ending in ``.signed.npz`` declares a signed
matrix (negative weights allowed).

Neuron table (optional): a file beside the connectome named ``<stem>.neurons.csv`` (or
``.neurons.parquet``), or ``neurons=`` in Python, with columns ``id`` (required), ``celltype``,
``side`` (``left``, ``right`` or empty), ``partner`` (the id of the contralateral neuron) and
``annotations`` (``;``-separated tokens), all but ``id`` optional. With a table, its rows fix the
neurons and their order (an edge naming an id not in it is an error, neurons without edges are
kept); without one, the neurons are the ids in the edges, sorted, without annotations.

Every problem is a one-line `UsageError`: missing file or column, an empty file, an id unknown to
the neuron table, a duplicate edge or neuron, a NaN, infinite or (unless signed) negative weight,
a bad side or partner, a non-square matrix.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes.base import SIDES, Connectome
from wirelab.data.connectomes.edge_codes import EdgeCodes, read_fast
from wirelab.errors import UsageError

SUFFIXES = (".csv", ".parquet", ".npz")
DEFAULT_EDGE_TYPE = "all"


def is_connectome_file(value: str) -> bool:
    """Whether ``value`` names a file wirelab would read as a connectome (by its suffix)."""
    return Path(value).suffix.lower() in SUFFIXES


def _read_table(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Columns and rows (as text) of a CSV or Parquet file."""
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    if path.suffix.lower() == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            msg = "reading Parquet needs pyarrow: pip install 'wirelab[parquet]'"
            raise UsageError(msg) from None
        try:
            table = pq.read_table(path)
        except Exception as exc:  # pyarrow raises several types for a bad file
            msg = f"{path}: not a readable Parquet file ({type(exc).__name__})"
            raise UsageError(msg) from None
        cols = [str(c) for c in table.column_names]
        data = table.to_pydict()
        rows = [
            {c: "" if data[c][i] is None else str(data[c][i]) for c in cols}
            for i in range(table.num_rows)
        ]
        return cols, rows
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            rows = [{k: (v or "").strip() for k, v in r.items() if k is not None} for r in reader]
            cols = [c.strip() for c in reader.fieldnames or []]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"{path}: not a readable CSV file ({exc})") from None
    return cols, [{k.strip(): v for k, v in r.items()} for r in rows]


def _need(path: Path, cols: Sequence[str], required: Sequence[str]) -> None:
    missing = [c for c in required if c not in cols]
    if missing:
        raise UsageError(f"{path}: missing column(s) {', '.join(missing)} (has: {', '.join(cols)})")


def _weight(path: Path, line: int, text: str, signed: bool) -> float:
    try:
        w = float(text)
    except ValueError:
        raise UsageError(f"{path}:{line}: weight {text!r} is not a number") from None
    if not math.isfinite(w):
        raise UsageError(f"{path}:{line}: weight {text!r} is not finite")
    if w < 0 and not signed:
        raise UsageError(
            f"{path}:{line}: negative weight {text} (name the column signed_weight for a signed "
            "matrix)"
        )
    return w


def _sorted_ids(ids: set[str]) -> list[str]:
    """Integers in numeric order, otherwise text order."""
    if all(i.lstrip("-").isdigit() and str(int(i)) == i for i in ids):
        return sorted(ids, key=int)
    return sorted(ids)


def neuron_table_for(path: Path) -> Path | None:
    """The sibling neuron table of ``path`` (``<stem>.neurons.csv`` or ``.parquet``), if present."""
    for suffix in (".csv", ".parquet"):
        candidate = path.with_name(f"{path.stem}.neurons{suffix}")
        if candidate.is_file():
            return candidate
    return None


def _neurons(path: Path) -> tuple[list[str], dict[str, Any]]:
    """Ids in table order and the per-neuron annotation lists."""
    cols, rows = _read_table(path)
    _need(path, cols, ["id"])
    if not rows:
        raise UsageError(f"{path}: the neuron table is empty")
    ids = [r["id"] for r in rows]
    if "" in ids:
        raise UsageError(f"{path}:{ids.index('') + 2}: empty id")
    seen: set[str] = set()
    for i, x in enumerate(ids):
        if x in seen:
            raise UsageError(f"{path}:{i + 2}: duplicate neuron id {x!r}")
        seen.add(x)
    sides = [r.get("side", "").lower() for r in rows]
    for i, s in enumerate(sides):
        if s not in ("", *SIDES):
            raise UsageError(f"{path}:{i + 2}: side must be left, right or empty, not {s!r}")
    partners = [r.get("partner", "") for r in rows]
    for i, p in enumerate(partners):
        if p and p not in seen:
            raise UsageError(f"{path}:{i + 2}: partner {p!r} is not a neuron id in the table")
    notes = [
        frozenset(t.strip().lower() for t in r.get("annotations", "").split(";") if t.strip())
        for r in rows
    ]
    extra = {
        "celltype": [r.get("celltype", "") for r in rows],
        "side": sides,
        "partner": partners,
        "annotations": notes,
    }
    return ids, extra


def _check_rows(path: Path, cols: list[str], rows: list[dict[str, str]], signed: bool) -> EdgeCodes:
    """The reference reader: every row checked in order (the first wrong one is a one-line
    `UsageError` naming its line), as `EdgeCodes`."""
    wcol = "signed_weight" if "signed_weight" in cols else "weight"
    _need(path, cols, ["pre", "post", wcol])
    if not rows:
        raise UsageError(f"{path}: no edges (the file has a header only)")
    signed = signed or wcol == "signed_weight"
    typed = "edge_type" in cols
    edges, seen = [], set()
    for line, r in enumerate(rows, start=2):
        pre, post = r["pre"], r["post"]
        if not pre or not post:
            raise UsageError(f"{path}:{line}: empty pre or post id")
        etype = r["edge_type"] if typed else DEFAULT_EDGE_TYPE
        if not etype:
            raise UsageError(f"{path}:{line}: empty edge_type")
        key = (pre, post, etype)
        if key in seen:
            raise UsageError(f"{path}:{line}: duplicate edge {pre} -> {post} ({etype})")
        seen.add(key)
        edges.append((pre, post, etype, _weight(path, line, r[wcol], signed)))
    return EdgeCodes.from_tuples(edges, signed)


def _edges(path: Path, signed: bool, *, fast: bool = True) -> EdgeCodes:
    """The edge list at ``path``: column-wise where pyarrow reads it the reference's way
    (`edge_codes.read_fast`, ``fast``), else row by row (`_check_rows`); the same result and
    the same one-line errors either way."""
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    if fast:
        got = read_fast(
            path, signed, DEFAULT_EDGE_TYPE, lambda c, r: _check_rows(path, c, r, signed)
        )
        if got is not None:
            return got
    cols, rows = _read_table(path)
    return _check_rows(path, cols, rows, signed)


def _build(
    name: str,
    ids: list[str],
    mats: dict[str, sp.csr_matrix],
    extra: dict[str, Any] | None,
    signed: bool,
    source: dict[str, object],
) -> Connectome:
    n = len(ids)
    total = sp.csr_matrix((n, n), dtype=np.float64)
    for m in mats.values():
        total = total + m
    pos = {x: i for i, x in enumerate(ids)}
    # integer ids stay integers when they read back unchanged ("007" and "7" would collide)
    numeric = all(x.lstrip("-").isdigit() and str(int(x)) == x and abs(int(x)) < 2**63 for x in ids)
    extra = extra or {}
    partner = np.array([pos.get(p, -1) for p in extra.get("partner", [""] * n)], dtype=np.int64)
    return Connectome(
        name=name,
        skeleton_ids=np.array([int(x) for x in ids] if numeric else np.arange(n), dtype=np.int64),
        weights=sp.csr_matrix(total),
        edge_types=mats,
        celltype=np.array(extra.get("celltype", [""] * n), dtype=str),
        side=np.array(extra.get("side", [""] * n), dtype=str),
        partner=partner,
        annotations=tuple(extra.get("annotations", [frozenset()] * n)),
        cluster=np.full(n, -1, dtype=np.int64),
        names=() if numeric else tuple(ids),
        signed=signed,
        source=source,
    )


def load_user_connectome(
    path: str | Path,
    *,
    neurons: str | Path | None = None,
    signed: bool = False,
    fast: bool = True,
) -> Connectome:
    """Read a connectome file (see the module docstring); ``neurons`` replaces the sibling table;
    ``fast=False`` reads an edge list row by row (the reference, `_check_rows`), else
    column-wise where pyarrow is installed (`edge_codes.read_fast`: the same result)."""
    path = Path(path)
    if path.suffix.lower() not in SUFFIXES:
        raise UsageError(f"{path}: a connectome file must end in {', '.join(SUFFIXES)}")
    table = Path(neurons) if neurons is not None else neuron_table_for(path)
    ids, extra = _neurons(table) if table is not None else (None, None)
    source: dict[str, object] = {"file": str(path)}
    if table is not None:
        source["neurons"] = str(table)
    if path.suffix.lower() == ".npz":
        return _from_npz(path, ids, extra, signed, source)
    codes = _edges(path, signed, fast=fast)
    if ids is None:
        ids = _sorted_ids(set(codes.vocab))
    pos = {x: i for i, x in enumerate(ids)}
    where = np.array([pos.get(v, -1) for v in codes.vocab], dtype=np.int64)  # vocab -> neuron
    if np.any(where < 0):
        unknown = sorted(v for v, i in zip(codes.vocab, where, strict=True) if i < 0)
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        msg = f"{path}: {len(unknown)} id(s) not in the neuron table {table}: {shown}"
        raise UsageError(msg)
    n, pre, post = len(ids), where[codes.pre], where[codes.post]
    mats = {}
    for k, t in enumerate(codes.types):
        sel = codes.etype == k
        m = sp.csr_matrix((codes.weight[sel], (pre[sel], post[sel])), shape=(n, n))
        m.eliminate_zeros()
        mats[t] = m
    signed = codes.signed
    return _build(path.stem, ids, mats, extra, signed, source)


def _from_npz(
    path: Path,
    ids: list[str] | None,
    extra: dict[str, Any] | None,
    signed: bool,
    source: dict[str, object],
) -> Connectome:
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    try:
        m = sp.load_npz(path)
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(
            f"{path}: not a scipy sparse matrix saved with scipy.sparse.save_npz ({exc})"
        ) from None
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise UsageError(f"{path}: the matrix must be square [pre, post], non-empty: {m.shape}")
    m = sp.csr_matrix(m, dtype=np.float64)
    m.eliminate_zeros()
    if m.nnz == 0:
        raise UsageError(f"{path}: the matrix has no edges")
    if not np.all(np.isfinite(m.data)):
        raise UsageError(f"{path}: the matrix holds NaN or infinite weights")
    signed = signed or path.name.lower().endswith(".signed.npz")
    if not signed and np.any(m.data < 0):
        raise UsageError(f"{path}: negative weights (name it *.signed.npz for a signed matrix)")
    n = m.shape[0]
    if ids is None:
        ids = [str(i) for i in range(n)]
    elif len(ids) != n:
        raise UsageError(f"{path}: {n} x {n} matrix but {len(ids)} neurons in the table")
    return _build(path.stem, ids, {DEFAULT_EDGE_TYPE: m}, extra, signed, source)
