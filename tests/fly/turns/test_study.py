"""The turn study's nulls: families and seeds reach the models, the metrics carry the family, p
and z, and the command refuses an unknown family in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.clirun import one_line_error, wirelab
from tests.conftest import requires_larva
from wirelab.errors import UsageError
from wirelab.fly.turns.runs import model_names
from wirelab.fly.turns.study import TurnsConfig


def test_model_names_per_family_and_seed() -> None:
    assert model_names(("row", "null"), 2) == ["row", "null-0", "null-1"]
    assert model_names(("null",), 2, ("degree", "degree-boundary"), null_seed=5) == [
        "null-5",
        "null-6",
        "null-degree-boundary-5",
        "null-degree-boundary-6",
    ]
    assert model_names(("null",), 3, ("mirror",)) == ["null-mirror-0"]  # deterministic: one
    with pytest.raises(UsageError, match="unknown null model 'bogus'"):
        model_names(("null",), 2, ("bogus",))


def test_the_config_refuses_bad_null_settings() -> None:
    base = {"body": "kinematic", "video": False, "models": ("row", "null")}
    with pytest.raises(UsageError, match="unknown null model 'bogus'"):
        TurnsConfig(**base, null_family=("bogus",)).validate()  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="unknown null model 'bogus'"):  # even without nulls
        TurnsConfig(body="kinematic", video=False, null_family=("bogus",)).validate()
    with pytest.raises(UsageError, match="each family once"):
        TurnsConfig(**base, null_family=("degree", "degree")).validate()  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="--null-seed"):
        TurnsConfig(**base, null_seed=2**32 - 1, nulls=3).validate()  # type: ignore[arg-type]
    specs = TurnsConfig(**base, nulls=1, null_family=("degree-boundary",), null_seed=4).specs()  # type: ignore[arg-type]
    assert {s.model for s in specs} == {"row", "null-degree-boundary-4"}


def test_the_command_refuses_an_unknown_family_in_one_line(tmp_path: Path) -> None:
    r = wirelab(
        "fly", "turns", "--body", "kinematic", "--no-video", "--null-family", "degree,bogus",
        "--out", tmp_path / "t",
    )  # fmt: skip
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "unknown null model 'bogus'" in r.stderr
    assert not (tmp_path / "t").exists()


@requires_larva
def test_two_families_reach_the_metrics(tmp_path: Path, larva: object) -> None:
    out = tmp_path / "turns"
    args = ["fly", "turns", "--body", "kinematic", "--no-video", "--workers", "1"]
    args += ["--seeds", "2", "--settle", "0.05", "--duration", "0.3", "--models", "row,null"]
    args += ["--nulls", "2", "--null-seed", "5", "--null-family", "degree,degree-boundary"]
    r = wirelab(*args, "--out", out)
    assert r.returncode == 0, r.stderr
    assert "row vs 2 degree-boundary nulls" in r.stdout
    m = json.loads((out / "metrics.json").read_text())
    models = {x["model"] for x in m["table"]}
    assert {"null-5", "null-6", "null-degree-boundary-5", "null-degree-boundary-6"} <= models
    lr = {x["model"]: x["turn"]["mean"] for x in m["table"] if x["condition"] == "left-right"}
    assert lr["null-5"] != lr["null-degree-boundary-5"]  # same seed, another family
    nulls = m["nulls"]
    assert nulls["model"] == "row" and set(nulls["families"]) == {"degree", "degree-boundary"}
    for family, c in nulls["families"].items():
        assert c["family"] == family and c["n_nulls"] == 2
        assert c["observed"] == pytest.approx(abs(lr["row"]))
        assert 1 / 3 <= c["p"] <= 1 and {"z", "difference", "null_sd"} <= set(c)
    config = json.loads((out / "config.json").read_text())
    assert config["config"]["null_family"] == ["degree", "degree-boundary"]
    assert config["config"]["null_seed"] == 5


def test_null_seed_and_null_walk_seeds_cannot_be_mistaken(tmp_path: Path) -> None:
    """--null-seed is a rewiring seed, --null-walk-seeds (old name --null-seeds, still taken but
    not in --help) a count of fly seeds; a seed given to the count is one line naming the other."""
    from wirelab.fly.turns.cli import turns_cmd

    for name in ("--null-walk-seeds", "--null-seeds"):
        ctx = turns_cmd.make_context("turns", [name, "3"])
        assert (ctx.params["null_seeds"], ctx.params["null_seed"]) == (3, 0)
        r = wirelab("fly", "turns", "--body", "kinematic", "--no-video", "--models", "row,null",
                    name, "5000", "--out", tmp_path / "t")  # fmt: skip
        assert r.returncode == 2 and one_line_error(r), r.stderr
        assert "--null-walk-seeds 5000 is how many fly seeds" in r.stderr
        assert "rewiring seed is --null-seed" in r.stderr
        assert not (tmp_path / "t").exists()
    text = " ".join(wirelab("fly", "turns", "--help").stdout.split())
    assert "--null-seeds" not in text and "(how many walk seeds the nulls get: --null-walk-" in text
    assert "A count, not a seed" in text and "the nulls' rewiring seed: --null-seed)" in text
