"""examples/05_attention_pooling_and_gqa_kv_cache.py at its CI size: attention vs mean pooling on
MNIST bags, and a multi-query decoder whose cached decoding equals the uncached one."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.examples import run_example

REPO = Path(__file__).resolve().parents[2]
SCRIPT = "examples/05_attention_pooling_and_gqa_kv_cache.py"


def test_example_05_pools_and_decodes_with_a_kv_cache(tmp_path: Path) -> None:
    r = run_example(SCRIPT, "--small", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    acc = dict(re.findall(r"(mean|attention) pooling: accuracy ([\d.]+)", r.stdout))
    assert set(acc) == {"mean", "attention"}
    assert all(0.0 <= float(a) <= 1.0 for a in acc.values())
    assert "cached decode == uncached: tokens True" in r.stdout
    diff = float(re.search(r"max logit difference ([\d.e+-]+)", r.stdout)[1])  # type: ignore[index]
    assert diff < 1e-4
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    lm = metrics["decoder"]
    assert 0.5 < lm["next_pixel_accuracy"] <= 1 and 0 < lm["bits_per_pixel"] < 1.6
    share = metrics["pooling"]["attention"]["16"]["weight_on_flagged"]
    assert share > 1 / 17  # attention moves weight onto the flagged digit (uniform: 1/17)
    assert (
        metrics["decoder"]["kv_cache_bytes_per_layer"] * 4
        == (metrics["decoder"]["mha_kv_cache_bytes_per_layer"])
    )
    for png in ("pooling.png", "completions.png"):
        assert (tmp_path / png).stat().st_size > 5_000
