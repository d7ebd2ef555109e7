import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.clirun import REPO, one_line_error, wirelab
from wirelab.logic.discrete import DiscreteLogicNet
from wirelab.logic.training import TrainConfig, checkpoint_config, run

pytest.importorskip("sklearn")  # the digits dataset ships inside scikit-learn

TINY = {
    "dataset": "digits",
    "classes": "all",
    "epochs": 8,
    "batch_size": 32,
    "lr": 0.05,
    "patience": 100,
    "threads": 1,
    "seed": 3,
    "model": {"dense": [200, 200], "init": "gaussian", "tau": 3.0},
}
COMPARE = ("accuracy_soft", "accuracy_discrete", "best_epoch", "epochs_run", "gates_by_type")


def test_killed_run_resumes_to_the_same_metrics(tmp_path: Path) -> None:
    whole = run(TrainConfig(**TINY), tmp_path / "whole", quiet=True)
    assert whole["accuracy_discrete"] > 0.5  # it learned something real
    assert whole["accuracy_discrete_numpy"] == whole["accuracy_discrete"]

    recipe = tmp_path / "tiny.toml"
    model = TINY["model"]
    train_keys = "\n".join(f"{k} = {json.dumps(v)}" for k, v in TINY.items() if k != "model")
    recipe.write_text(
        f"[train]\n{train_keys}\n[model]\ndense = {model['dense']}\n"
        f'init = "{model["init"]}"\ntau = {model["tau"]}\n'
    )
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "wirelab.cli",
            "logic",
            "train",
            "--recipe",
            str(recipe),
            "--out",
            str(out),
            "--quiet",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
    )
    deadline = time.time() + 120
    while not (out / "checkpoint.pt").exists() and time.time() < deadline:
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (out / "metrics.json").exists(), "the run finished before it could be killed"
    resumed = run(checkpoint_config(out), out, resume=True, quiet=True)
    for key in COMPARE:
        assert resumed[key] == whole[key], key
    assert [h["loss"] for h in resumed["history"]] == [h["loss"] for h in whole["history"]]
    a = DiscreteLogicNet.load(out / "discrete.json").to_dict()
    b = DiscreteLogicNet.load(tmp_path / "whole" / "discrete.json").to_dict()
    assert a["layers"] == b["layers"]
    for name in ("config.json", "metrics.json", "model.pt", "training.png"):
        assert (out / name).is_file()


def test_cli_trains_and_reports(tmp_path: Path) -> None:
    r = wirelab(
        "logic",
        "train",
        "--dataset",
        "digits",
        "--classes",
        "0,1",
        "--dense",
        "40,40",
        "--epochs",
        "2",
        "--threads",
        "1",
        "--out",
        tmp_path / "r",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    m = json.loads((tmp_path / "r" / "metrics.json").read_text())
    for key in (
        "accuracy_soft",
        "accuracy_discrete",
        "discretization_gap",
        "gates",
        "gates_by_type",
        "pass_through_fraction",
        "train_seconds",
    ):
        assert key in m
    assert m["gates"] == 80 and m["classes"] == [0, 1]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--dataset", "digits", "--classes", "0,12"], "class 12"),
        (["--dataset", "digits", "--arch", "conv"], "--conv-channels"),
    ],
)
def test_cli_bad_input_is_one_line_usage_error(
    tmp_path: Path, args: list[str], needle: str
) -> None:
    r = wirelab("logic", "train", *args, "--out", tmp_path / "bad", "--quiet")
    assert r.returncode == 2, r.stderr
    assert needle in r.stderr and one_line_error(r)
    assert not (tmp_path / "bad").exists()


def test_resume_without_checkpoint_is_an_error(tmp_path: Path) -> None:
    r = wirelab("logic", "train", "--resume", "--out", tmp_path)
    assert r.returncode == 2 and "checkpoint" in r.stderr and one_line_error(r)
