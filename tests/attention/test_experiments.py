from __future__ import annotations

import json
import math
import subprocess

import pytest
import torch

from tests.clirun import one_line_error, wirelab
from tests.conftest import requires_mnist
from wirelab.attention.experiments import layers as L
from wirelab.attention.experiments.complexity import crossover, loglog_slope
from wirelab.attention.experiments.path_lengths import max_path_length
from wirelab.attention.experiments.translate import MONTHS, encode, make_split
from wirelab.errors import UsageError


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return wirelab("attention", *args)


@pytest.mark.parametrize("name", L.LAYERS)
def test_layer_fast_equals_reference(name):
    from wirelab.attention.experiments.complexity import LayerSet

    ls = LayerSet(16, 3, 6, torch.Generator().manual_seed(0))
    x = torch.randn(40, 16)
    assert torch.allclose(ls.fast(name)(x), ls.reference(name)(x), atol=1e-5)


def test_path_lengths_match_the_table():
    for n in (16, 32):
        assert max_path_length("self_attention", n)[0] == 1
        assert max_path_length("recurrent", n)[0] == n  # x_0 -> h_0 -> ... -> h_{n-1}
        assert max_path_length("convolution", n, k=3)[0] == n - 1  # one step per layer
        assert max_path_length("dilated_convolution", n, k=3)[0] == math.ceil(math.log(n, 3))
        assert max_path_length("restricted_attention", n, r=8)[0] == math.ceil((n - 1) / 4)


def test_slope_and_crossover_helpers():
    xs = [8, 16, 32, 64]
    assert loglog_slope(xs, [x**2 * 3.0 for x in xs]) == pytest.approx(2.0)
    a = [x**2 for x in xs]  # attention-like
    b = [32 * x for x in xs]  # recurrence-like, equal at x = 32
    assert crossover(xs, a, b) == pytest.approx(32.0)
    assert crossover(xs, b, a) == pytest.approx(32.0)  # either direction
    assert crossover(xs, a, [10 * y for y in a]) is None  # never crosses


def test_date_task_alignment_and_holdout():
    import datetime as dt

    src, tgt, align = encode(dt.date(2023, 3, 4))
    assert len(src) == 6 and len(tgt) == 11 and len(align) == 11
    # year digits come from the end of the source, the day's leading 0 and digit from position 0
    assert align[:4] == [2, 3, 4, 5] and align[5:7] == [1, 1] and align[8:10] == [0, 0]
    assert src[1] == 11 + MONTHS.index("march")
    train, test = make_split(0, 100)
    assert len(test) == 100 and not set(train) & set(test)
    with pytest.raises(UsageError):
        make_split(0, 0)


def test_translate_runs_tiny(tmp_path):
    from wirelab.attention.experiments.translate import TranslateConfig, run

    m = run(
        TranslateConfig(
            steps=3, batch=8, dim=16, heads=2, layers=1, test_size=20, eval_every=3, progress=False
        ),
        tmp_path / "t",
    )
    assert 0 <= m["exact_match"] <= 1 and 0 <= m["alignment_score"] <= 1
    assert len(m["alignment_per_head"]) == 1 and len(m["alignment_per_head"][0]) == 2
    for f in ("config.json", "metrics.json", "cross_attention.png", "learning_curve.png"):
        assert (tmp_path / "t" / f).is_file()


@requires_mnist
def test_pooling_runs_tiny(tmp_path):
    from wirelab.attention.experiments.pooling import PoolingConfig, run

    m = run(
        PoolingConfig(
            distractors=(2, 5), seeds=(0,), steps=3, test_bags=30, train_images=500, progress=False
        ),
        tmp_path / "p",
    )
    assert set(m["summary"]) == {"mean", "attn1", "attn4"}
    mean = m["summary"]["mean"]
    assert mean["2"]["marked_weight_share_mean"] == pytest.approx(1 / 3)
    assert mean["5"]["marked_weight_share_mean"] == pytest.approx(1 / 6)
    for f in ("metrics.json", "accuracy_vs_distractors.png", "weight_maps.png"):
        assert (tmp_path / "p" / f).is_file()


def test_complexity_and_positional_cli(tmp_path):
    r = _cli(
        "complexity",
        "--out",
        str(tmp_path / "c"),
        "--ns",
        "16,32",
        "--ds",
        "8,16",
        "--d",
        "16",
        "--n",
        "16",
        "--path-ns",
        "8,16",
        "--repeats",
        "1",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    m = json.loads((tmp_path / "c" / "metrics.json").read_text())
    assert {row["layer"] for row in m["table"]} == set(L.LAYERS)
    for check in m["flop_check"].values():
        assert check["ratio"] == pytest.approx(1.0)
    for f in ("wall_time.png", "path_length.png", "table1.png"):
        assert (tmp_path / "c" / f).is_file()
    r = _cli("positional", "--out", str(tmp_path / "p"), "--length", "64", "--dim", "16")
    assert r.returncode == 0, r.stderr
    m = json.loads((tmp_path / "p" / "metrics.json").read_text())
    assert max(m["sinusoidal_shift_residual_float64"].values()) < 1e-10
    assert m["rope_relative_residual"]["half"]["float64"] < 1e-10
    # every registered encoding is scored; the relative ones depend on i - j only
    enc = m["encodings"]
    assert list(enc) == ["sinusoidal", "learned", "rope", "alibi"]
    assert [e["kind"] for e in enc.values()] == ["input", "input", "qk", "bias"]
    assert enc["rope"]["shift_residual"] < 1e-10 and enc["alibi"]["shift_residual"] < 1e-10
    assert enc["sinusoidal"]["shift_residual"] > 1e-3
    assert (tmp_path / "p" / "encoding_scores.png").is_file()
    # a finished run is not replaced unless asked
    again = ("positional", "--out", str(tmp_path / "p"), "--length", "64", "--dim", "16")
    r = _cli(*again)
    assert r.returncode == 2 and one_line_error(r) and "--overwrite" in r.stderr
    r = _cli(*again, "--overwrite", "--encodings", "rope")
    assert r.returncode == 0, r.stderr
    assert list(json.loads((tmp_path / "p" / "metrics.json").read_text())["encodings"]) == ["rope"]


def test_cli_bad_arguments_exit_2(tmp_path):
    r = _cli("complexity", "--out", str(tmp_path / "c"), "--ns", "16,abc")
    assert r.returncode == 2 and "comma-separated" in r.stderr
    r = _cli("translate", "--out", str(tmp_path / "t"), "--dim", "30", "--heads", "4")
    assert r.returncode == 2 and one_line_error(r) and "multiple of --heads" in r.stderr
    r = _cli("positional", "--out", str(tmp_path / "p"), "--encodings", "rope,nope")
    assert r.returncode == 2 and one_line_error(r) and "'nope'" in r.stderr and "alibi" in r.stderr
    r = _cli("complexity", "--out", str(tmp_path / "c"), "--ns", "16")
    assert r.returncode == 2 and one_line_error(r) and "two sizes" in r.stderr
    # validation happens before the result directory is created
    assert not (tmp_path / "t").exists() and not (tmp_path / "c").exists()
