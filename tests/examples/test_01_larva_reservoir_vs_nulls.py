"""examples/01_larva_reservoir_vs_nulls.py at its CI size: the larval reservoir's memory capacity
at three gains against degree-preserving and random-ESN nulls, the verdicts, and the plot."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import requires_larva
from tests.examples import run_example

REPO = Path(__file__).resolve().parents[2]
SCRIPT = "examples/01_larva_reservoir_vs_nulls.py"
NUM = r"(-?[\d.]+)"
# alpha, the connectome's MC, then mean +- std of the degree and the random-ESN nulls
ROW = re.compile(rf"^\s*{NUM}\s+{NUM}\s+{NUM} \+- {NUM}\s+{NUM} \+- {NUM}\s*$", re.M)
VERDICT = re.compile(rf"^vs (\S+) nulls \(n=4\): at alpha {NUM} MC {NUM} .* p = {NUM}; ", re.M)


@requires_larva
def test_example_01_compares_the_larva_with_both_null_families(tmp_path: Path) -> None:
    r = run_example(SCRIPT, "--small", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    rows = ROW.findall(r.stdout)
    assert [float(row[0]) for row in rows] == [0.6, 1.0, 1.4]
    for _, mc, *nulls in rows:
        assert 0 < float(mc) <= 30  # MC is at most its 30 delays (--quick)
        assert all(0 <= float(v) <= 30 for v in nulls)
    verdicts = VERDICT.findall(r.stdout)
    assert [v[0] for v in verdicts] == ["degree", "random-esn"]
    for _, alpha, mc, p in verdicts:
        assert float(alpha) in (0.6, 1.0, 1.4) and 0 < float(mc) <= 30
        assert any(abs(float(p) - k / 5) < 1e-3 for k in range(1, 6))  # 4 nulls: p = k / 5
    assert (tmp_path / "score_vs_alpha.png").stat().st_size > 5_000
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert set(summary) == {"degree", "random-esn"}
    assert summary["degree"]["memory-capacity"]["n_nulls"] == 4
