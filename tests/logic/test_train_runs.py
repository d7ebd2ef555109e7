"""Iteration-based runs, exact resume, and robust handling of damaged or foreign run files."""

import json
from pathlib import Path

import pytest
import torch

from tests.clirun import one_line_error, wirelab
from tests.logic.killed import Interrupt, run_until_checkpoint
from wirelab.errors import UsageError
from wirelab.logic.checkpoint import init_weights, load_checkpoint, load_model
from wirelab.logic.discrete import DiscreteLogicNet
from wirelab.logic.training import TrainConfig, checkpoint_config, run

pytest.importorskip("sklearn")  # the digits dataset ships inside scikit-learn

STEPS = {
    "dataset": "digits",
    "classes": "all",
    "steps": 60,
    "eval_every": 20,
    "batch_size": 32,
    "lr": 0.05,
    "lr_schedule": "cosine",
    "patience": 0,
    "threads": 1,
    "seed": 1,
    "model": {
        "dense": [200, 200],
        "init": "gaussian",
        "tau": 3.0,
        "crop": 6,
        "inputs": "real",
        "prune": 0.01,
    },
}


def test_iteration_run_selects_on_validation_and_resumes_bit_identically(tmp_path, monkeypatch):
    whole = run(TrainConfig(**STEPS), tmp_path / "whole", quiet=True)
    hist = whole["history"]
    assert [h["step"] for h in hist] == [20, 40, 60] and whole["steps_run"] == 60
    best = max(hist, key=lambda h: h["val_discrete"])  # the first of equal maxima
    assert whole["best_step"] == best["step"]
    assert whole["val_accuracy_discrete"] == best["val_discrete"]
    assert whole["accuracy_discrete"] == whole["accuracy_discrete_numpy"]
    model = load_model(tmp_path / "whole")
    assert model.spec["input_bits"] is not None and model.spec["crop"] == 6
    assert whole["input_bits"] == len(model.spec["input_bits"]) <= 6 * 6  # cropped, pruned

    out = tmp_path / "killed"  # an interruption just after the second checkpoint
    run_until_checkpoint(monkeypatch, TrainConfig(**STEPS), out, after=2)
    assert load_checkpoint(out / "checkpoint.pt")["step"] == 40
    resumed = run(checkpoint_config(out), out, resume=True, quiet=True)
    for key in ("accuracy_soft", "accuracy_discrete", "best_step", "history", "gates_by_type"):
        if key == "history":
            strip = [{k: v for k, v in h.items() if k != "train_seconds"} for h in hist]
            assert strip == [
                {k: v for k, v in h.items() if k != "train_seconds"} for h in resumed["history"]
            ]
        else:
            assert resumed[key] == whole[key], key
    a = DiscreteLogicNet.load(out / "discrete.json").to_dict()
    b = DiscreteLogicNet.load(tmp_path / "whole" / "discrete.json").to_dict()
    assert a["layers"] == b["layers"]


def test_config_json_repeats_the_run(tmp_path):
    cfg = {**STEPS, "steps": 20, "eval_every": 10}
    first = run(TrainConfig(**cfg), tmp_path / "a", quiet=True)
    saved = json.loads((tmp_path / "a" / "config.json").read_text())["config"]
    assert saved["model"]["dense"] == [200, 200] and saved["model"]["tau"] == 3.0
    assert saved["model"]["binarize"] == "fixed" and saved["model"]["connections"] == "unique"
    r = wirelab(
        "logic",
        "train",
        "--recipe",
        tmp_path / "a" / "config.json",
        "--out",
        tmp_path / "b",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    second = json.loads((tmp_path / "b" / "metrics.json").read_text())
    assert second["accuracy_discrete"] == first["accuracy_discrete"]
    assert second["history"][-1]["loss"] == first["history"][-1]["loss"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run") / "r"
    cfg = {**STEPS, "steps": 10, "eval_every": 5, "model": {"dense": [40, 40], "tau": 5.0}}
    run(TrainConfig(**cfg), out, quiet=True)
    return out


def _damage(path: Path, how: str) -> None:
    if how == "empty":
        path.write_bytes(b"")
    elif how == "truncated":
        path.write_bytes(path.read_bytes()[:300])
    elif how == "foreign":
        torch.save({"hello": torch.zeros(2)}, path)
    elif how == "pickle":  # arbitrary objects: refused by weights_only=True
        torch.save(Interrupt("x"), path)


@pytest.mark.parametrize("how", ["empty", "truncated", "foreign", "pickle"])
def test_bad_checkpoint_is_a_one_line_error_naming_it(finished, tmp_path, how):
    out = tmp_path / "copy"
    out.mkdir()
    for p in finished.iterdir():
        if p.is_file():
            (out / p.name).write_bytes(p.read_bytes())
    _damage(out / "checkpoint.pt", how)
    r = wirelab("logic", "train", "--resume", "--out", out)
    assert one_line_error(r) and r.returncode == 2, r.stderr
    assert "checkpoint.pt" in r.stderr
    _damage(out / "model.pt", how)
    r = wirelab(
        "logic",
        "train",
        "--dataset",
        "digits",
        "--dense",
        "40,40",
        "--steps",
        "2",
        "--init-from",
        out,
        "--out",
        tmp_path / "new",
        "--quiet",
    )
    assert one_line_error(r) and "model.pt" in r.stderr, r.stderr
    assert not (tmp_path / "new").exists()
    with pytest.raises(UsageError, match=r"model\.pt"):
        load_model(out)


def test_resume_with_other_options_refuses_and_lists_them(finished):
    r = wirelab("logic", "train", "--resume", "--out", finished, "--lr", "0.5", "--tau", "2")
    assert one_line_error(r), r.stderr
    assert "lr: 0.05 -> 0.5" in r.stderr and "model.tau: 5.0 -> 2.0" in r.stderr
    done = wirelab("logic", "train", "--resume", "--out", finished, "--max-minutes", "5", "--quiet")
    assert one_line_error(done) and "complete run" in done.stderr, done.stderr  # nothing to resume


def test_init_from_a_checkpoint_and_a_different_model(finished):
    model = load_model(finished)
    init_weights(model, finished / "checkpoint.pt")
    other = load_model(finished)
    other.spec = {**other.spec, "tau": 99.0}
    with pytest.raises(UsageError, match="different model spec"):
        init_weights(other, finished)


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--max-train", "1"], "max-train"),
        (["--max-train", "2", "--val-fraction", "0.9"], "validation split"),
        (["--lr", "nan"], "lr"),
        (["--tau", "inf"], "tau"),
        (["--prune", "0.7"], "prune"),
        (["--crop", "9"], "crop"),
    ],
)
def test_bad_options_fail_before_the_directory_exists(tmp_path, args, needle):
    out = tmp_path / "never"
    r = wirelab("logic", "train", "--dataset", "digits", *args, "--out", out, "--quiet")
    assert one_line_error(r) and needle in r.stderr, r.stderr
    assert not out.exists()


def test_a_large_gap_is_reported(tmp_path):
    r = wirelab(
        "logic",
        "train",
        "--dataset",
        "digits",
        "--dense",
        "400,400",
        "--epochs",
        "4",
        "--init",
        "residual",
        "--tau",
        "10",
        "--threads",
        "1",
        "--out",
        tmp_path / "g",
    )
    m = json.loads((tmp_path / "g" / "metrics.json").read_text())
    assert r.returncode == 0, r.stderr
    assert m["discretization_gap"] > 0.01 and "points below" in m["gap_warning"]
    assert "warning:" in r.stderr


def test_stop_at_ends_the_run_at_the_first_validation_that_meets_it(tmp_path: Path) -> None:
    whole = run(TrainConfig(**STEPS), tmp_path / "whole", quiet=True)
    first = whole["history"][0]["val_discrete"]  # met by the first validation: stop there
    stopped = run(TrainConfig(**STEPS, stop_at=first), tmp_path / "stopped", quiet=True)
    assert stopped["stopped_at_target"] and stopped["steps_run"] == STEPS["eval_every"]
    drop = lambda h: {k: v for k, v in h.items() if k != "train_seconds"}  # noqa: E731
    assert [drop(h) for h in stopped["history"]] == [drop(whole["history"][0])]
    never = max(h["val_discrete"] for h in whole["history"]) + 1e-9
    assert "stopped_at_target" not in run(
        TrainConfig(**STEPS, stop_at=min(never, 1.0)), tmp_path / "never", quiet=True
    )
