from __future__ import annotations

import numpy as np
import pytest

from wirelab.errors import UsageError
from wirelab.reservoir.populations import parse_population, population


def test_populations_by_celltype_side_annotation(larva) -> None:  # type: ignore[no-untyped-def]
    left = parse_population(larva, "sensory:left")
    assert left.size == 211 and np.all(larva.side[left] == "left")
    both = parse_population(larva, "DN-VNC")
    assert both.size == 182 and np.all(np.diff(both) > 0)
    dn = parse_population(larva, "DN-VNC+DN-SEZ:right")
    assert dn.size == 91 + 82
    olf = parse_population(larva, "annotation=olfactory")
    assert olf.size == 42
    assert set(larva.celltype[olf]) == {"sensory"}
    idx = parse_population(larva, "index=0-9,20")
    assert idx.tolist() == [*range(10), 20]
    assert (
        population(larva, celltype="sensory", side="left", index=left[:5]).tolist()
        == left[:5].tolist()
    )


def test_empty_or_bad_population_is_a_clear_error(larva) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match="empty"):
        population(larva, celltype="sensory", annotation="kc")
    with pytest.raises(UsageError, match="unknown cell type"):
        parse_population(larva, "sensori")
    with pytest.raises(UsageError, match="side"):
        parse_population(larva, "sensory:up")
    with pytest.raises(UsageError, match="out of range"):
        parse_population(larva, "index=5000")


def test_population_without_connectome() -> None:
    assert parse_population(None, "index=1,3", n=5).tolist() == [1, 3]
    assert parse_population(None, "all", n=3).tolist() == [0, 1, 2]
    with pytest.raises(UsageError, match="needs a Connectome"):
        parse_population(None, "sensory", n=5)
