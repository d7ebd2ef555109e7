"""The Python API of `wirelab.logic`: one set of defaults with the CLI, the CLI's numbers from
`train`, `ModelSpec`, and the recipes and committed runs it must keep reading."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from tests.clirun import REPO, wirelab
from wirelab.errors import UsageError
from wirelab.logic import (
    TRAINING_SETS,
    ConvBlock,
    DiscreteLogicNet,
    ModelSpec,
    TrainConfig,
    TrainingSet,
    build_model,
    discretize,
    make_config,
    train,
)
from wirelab.logic.cli import train as train_cmd
from wirelab.logic.config import from_dict, load_recipe, resolve
from wirelab.logic.datasets import load_task
from wirelab.logic.spec import ADDED_DEFAULTS
from wirelab.logic.train_options import MODEL_OPTIONS, TRAIN_OPTIONS

TINY_RECIPE = """
[train]
dataset = "digits"
epochs = 4
batch_size = 32
lr = 0.05
threads = 1
seed = 2

[model]
dense = [120, 120]
tau = 3.0
"""


def _defaults(cls: type) -> dict[str, object]:
    return {f.name: f.default for f in dataclasses.fields(cls)}


def test_the_cli_defaults_are_the_python_defaults() -> None:
    params = {p.name: p.default for p in train_cmd.params}
    train_d, model_d, conv_d = _defaults(TrainConfig), _defaults(ModelSpec), _defaults(ConvBlock)
    assert {k: params[k] for k in TRAIN_OPTIONS} == {k: train_d[k] for k in TRAIN_OPTIONS}
    assert {k: params[k] for k in MODEL_OPTIONS} == {k: model_d[k] for k in MODEL_OPTIONS}
    assert (params["kernel"], params["depth"]) == (conv_d["kernel"], conv_d["depth"])
    assert params["dense"] == ",".join(map(str, ModelSpec().dense))
    # every training option of the Python side is a CLI option, except the model table and the
    # validation batch size
    assert set(train_d) - set(TRAIN_OPTIONS) == {"model", "eval_batch"}


def test_python_train_gives_the_cli_numbers(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    recipe = tmp_path / "tiny.toml"
    recipe.write_text(TINY_RECIPE)
    r = wirelab("logic", "train", "--recipe", recipe, "--out", tmp_path / "cli", "--quiet")
    assert r.returncode == 0, r.stderr
    cli = json.loads((tmp_path / "cli" / "metrics.json").read_text())
    result = train(recipe, tmp_path / "py", quiet=True)
    assert result.metrics["accuracy_discrete"] == cli["accuracy_discrete"] > 0.5
    assert result.metrics["history"] == result.history
    for key in ("accuracy_soft", "gates_by_type", "best_step"):
        assert result.metrics[key] == cli[key]
    # the returned model is the best-by-validation model; its discrete form is discrete.json
    test = load_task("digits", tuple(range(10))).test
    pred = result.net.predict(test.x.reshape(len(test.x), -1))
    assert float((pred == test.y).mean()) == cli["accuracy_discrete"]
    saved = DiscreteLogicNet.load(tmp_path / "cli" / "discrete.json")
    for a, b in zip(discretize(result.model).layers, saved.layers, strict=True):
        assert np.array_equal(a.gate, b.gate) and np.array_equal(a.a, b.a)
    # without a run directory: the same run, nothing kept
    alone = train(recipe, quiet=True)
    assert alone.out is None and alone.accuracy == cli["accuracy_discrete"]


def test_make_config_reads_options_as_the_cli_does(tmp_path: Path) -> None:
    recipe = tmp_path / "r.toml"
    recipe.write_text(TINY_RECIPE)
    cfg = make_config(recipe, epochs=2, dense=[60, 60], conv=[])
    assert (cfg.epochs, cfg.lr, cfg.model["dense"], cfg.model["tau"]) == (2, 0.05, [60, 60], 3.0)
    with pytest.raises(UsageError, match="unknown option 'dens'"):
        make_config(recipe, dens=[3])
    spec = ModelSpec(dense=(60, 60), tau=3.0)
    assert make_config(model=spec).model == spec.to_dict()


def test_build_model_is_the_run_model_at_step_zero() -> None:
    a = build_model(dataset="digits", dense=[50, 50], seed=4)
    b = build_model(dataset="digits", dense=[50, 50], seed=4)
    assert a.model_spec.input_shape == (8, 8) and a.model_spec.seed == 4
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert ka == kb and bool((va == vb).all())
    spec = ModelSpec(input_shape=(8, 8), dense=(40,), classes=2)
    assert build_model(spec).num_classes == 2


def test_model_spec_checks_and_round_trips() -> None:
    spec = ModelSpec(dense=[10, 20], conv=[{"channels": 4, "pool": True}], input_bits=None)
    assert spec.dense == (10, 20) and spec.conv == (ConvBlock(4, pool=True),)
    assert ModelSpec.from_dict(spec.to_dict()) == spec
    assert json.loads(json.dumps(spec.to_dict())) == spec.to_dict()
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.tau = 2.0  # type: ignore[misc]
    for bad, message in (
        ({"dense": [0]}, "dense width must be at least 1"),
        ({"connections": "magic"}, "use one of random, unique, learned, topk"),
        ({"tau": -1}, "out of range"),
        ({"crop": 40}, "does not fit"),
        ({"widths": [3]}, "unknown model options: widths"),
        ({"conv": [{"kernel": 3}]}, "needs at least 'channels'"),
    ):
        with pytest.raises(UsageError, match=message):
            ModelSpec.from_dict(bad)


COMMITTED = sorted(
    p
    for p in (REPO / "docs" / "figures" / "logic").rglob("config.json")
    if json.loads(p.read_text()).get("command") == "wirelab logic train"
)


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.parent.name))
def test_committed_runs_still_read_as_recipes(path: Path) -> None:
    """Each committed run's config.json is a recipe that resolves to its own model spec."""
    saved = json.loads(path.read_text())["config"]
    cfg = resolve(from_dict(load_recipe(path), str(path)))
    assert cfg.model == {**ADDED_DEFAULTS, **saved["model"]}


def test_every_recipe_resolves() -> None:
    for path in sorted((REPO / "recipes" / "logic").glob("*.toml")):
        spec = ModelSpec.from_dict(resolve(make_config(path)).model)
        assert spec.gates > 0 or spec.conv, path


def test_a_toy_training_set_trains_through_the_cli(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)

    def toy() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        y = rng.integers(0, 2, 200)
        x = np.zeros((200, 4, 4), np.uint8)
        x[y == 1, :2] = 255  # class 1: the top half lit
        return x[:160], y[:160], x[160:], y[160:]

    TRAINING_SETS.add("toy", TrainingSet(2, (4, 4), toy), "two classes: top half lit or not")
    try:
        args = ("--dataset", "toy", "--dense", "16,16", "--epochs", "3", "--threads", "1")
        r = wirelab("logic", "train", *args, "--out", tmp_path / "toy", "--quiet")
        assert r.returncode == 0, r.stderr
        assert json.loads((tmp_path / "toy" / "metrics.json").read_text())["classes"] == [0, 1]
    finally:
        TRAINING_SETS.remove("toy")


def test_the_up5k_cli_defaults_are_up5k_run_s() -> None:
    from wirelab.logic.fpga.cli import up5k_cmd
    from wirelab.logic.fpga.up5k import DEFAULT_HEAD, UP5K_DEFAULTS

    params = {p.name: p.default for p in up5k_cmd.params}
    for name in ("bus_bits", "input_ram", "clock_mhz", "images", "seed", "router", "pnr_timeout"):
        assert params[name] == UP5K_DEFAULTS[name], name
    head = (DEFAULT_HEAD.classes_per_step, DEFAULT_HEAD.slices, DEFAULT_HEAD.pipeline)
    assert (params["classes_per_step"], params["slices"], params["head_pipeline"]) == head
    assert (params["head_kind"], params["shift_bits"]) == (DEFAULT_HEAD.kind, DEFAULT_HEAD.bits)
    assert UP5K_DEFAULTS["pnr"] is True  # --no-pnr is a flag: place and route unless given


def _quickstart_train_options() -> dict[str, object]:
    """The keyword arguments of the ``train(...)`` call in `wirelab.logic`'s quickstart."""
    import ast

    import wirelab.logic

    code = wirelab.logic.__doc__.split("```python", 1)[1].split("```", 1)[0]
    calls = [
        n
        for n in ast.walk(ast.parse(code))
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "train"
    ]
    assert len(calls) == 1 and not calls[0].args
    return {k.arg: ast.literal_eval(k.value) for k in calls[0].keywords if k.arg}


def test_the_quickstart_prints_the_cli_s_accuracy(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    options = _quickstart_train_options()
    flags: list[str] = []
    for key, value in options.items():
        if key == "quiet":
            continue
        text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        flags += [f"--{key.replace('_', '-')}", text]
    r = wirelab("logic", "train", *flags, "--out", tmp_path / "cli", "--quiet")
    assert r.returncode == 0, r.stderr
    cli = json.loads((tmp_path / "cli" / "metrics.json").read_text())
    assert train(**options).accuracy == cli["accuracy_discrete"] > 0.8  # type: ignore[arg-type]


def test_a_killed_run_resumes_from_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sklearn")
    from tests.logic.killed import run_until_checkpoint
    from tests.logic.tiny import tiny_digits

    whole = train(tiny_digits(), tmp_path / "whole", quiet=True)
    run_until_checkpoint(monkeypatch, tiny_digits(), tmp_path / "killed")
    resumed = train(out=tmp_path / "killed", resume=True, quiet=True)

    def timeless(history: list[dict[str, object]]) -> list[dict[str, object]]:
        return [{k: v for k, v in h.items() if k != "train_seconds"} for h in history]

    assert timeless(resumed.history) == timeless(whole.history)
    assert resumed.accuracy == whole.accuracy
    with pytest.raises(UsageError, match="resume needs the run directory"):
        train(tiny_digits(), resume=True)
