"""The data experiment (`wirelab.data.summary.run`, the tour's data step) and the connectome
registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import requires_larva, requires_mnist
from wirelab.data.connectomes import CONNECTOMES, load_connectome
from wirelab.data.summary import SummaryConfig, run
from wirelab.errors import UsageError
from wirelab.results import ResultDir


def test_unknown_connectome_is_one_line_naming_the_choices() -> None:
    assert CONNECTOMES.names()[0] == "larva"
    with pytest.raises(UsageError, match="unknown connectome 'nosuch'; choose one of: larva"):
        load_connectome("nosuch")


@requires_larva
@requires_mnist
def test_summary_writes_a_result_directory_once(tmp_path: Path) -> None:
    metrics = run(SummaryConfig(), tmp_path / "d")
    assert metrics["larva"]["neurons"] == 2952 and metrics["mnist"]["train"] == 60000
    rd = ResultDir.open(tmp_path / "d")
    assert rd.complete and rd.config["config"] == {"connectome": "larva"}
    with pytest.raises(UsageError, match="--overwrite"):
        run(SummaryConfig(), tmp_path / "d")
    assert run(SummaryConfig(), tmp_path / "d", overwrite=True) == metrics
