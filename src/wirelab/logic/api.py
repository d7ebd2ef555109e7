"""The logic system from Python: recipe -> model -> `train` -> `discretize` -> circuits.

Every function here is what ``wirelab logic`` runs: `train` is the training loop of
``wirelab logic train`` (which calls it), `verify` is ``wirelab logic verify`` and `up5k` is
``wirelab logic up5k``, on the same run directories; `make_config` reads a recipe as the CLI does,
with the same defaults (`TrainConfig`, `ModelSpec`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import torch
from torch import nn

from wirelab.errors import UsageError
from wirelab.logic.config import TrainConfig, from_dict, load_recipe, resolve
from wirelab.logic.discrete import DiscreteLogicNet
from wirelab.logic.model import LogicNet
from wirelab.logic.modules import sequential_to_discrete
from wirelab.logic.spec import ModelSpec
from wirelab.logic.training import build_model as build_run_model
from wirelab.logic.training import checkpoint_config, load_data, train_run

__all__ = [
    "Recipe",
    "Trained",
    "build_model",
    "discretize",
    "make_config",
    "train",
    "up5k",
    "verify",
]

# a recipe: a TOML file or a run directory / config.json, a dict of [train] options with a
# "model" table, or a `TrainConfig`
Recipe = str | Path | Mapping[str, Any] | TrainConfig
TRAIN_FIELDS = frozenset(f.name for f in fields(TrainConfig))
MODEL_FIELDS = frozenset(f.name for f in fields(ModelSpec))


def make_config(recipe: Recipe | None = None, **options: Any) -> TrainConfig:
    """The `TrainConfig` of a recipe with ``options`` on top, as ``wirelab logic train
    --recipe R --option value`` builds it: a `TrainConfig` field (``epochs=5``) sets the
    training option, a `ModelSpec` field (``dense=[64, 64]``) the model option, and
    ``model=`` a whole `ModelSpec` (or its dict). Unset options keep the recipe's value, then
    the defaults. Not yet resolved (`wirelab.logic.config.resolve` checks it)."""
    if recipe is None:
        doc: dict[str, Any] = {}
    elif isinstance(recipe, TrainConfig):
        doc = asdict(recipe)
    elif isinstance(recipe, Mapping):
        doc = dict(recipe)
    else:
        doc = load_recipe(recipe)
    model = doc.get("model") or {}
    model = dict(model.to_dict() if isinstance(model, ModelSpec) else model)
    for key, value in options.items():
        if key == "model":
            model = dict(value.to_dict() if isinstance(value, ModelSpec) else value)
        elif key in TRAIN_FIELDS:
            doc[key] = value
        elif key in MODEL_FIELDS:
            model[key] = ModelSpec(**{key: value}).to_dict()[key] if key == "conv" else value
        else:
            raise UsageError(f"unknown option {key!r}: not a TrainConfig or ModelSpec field")
    doc["model"] = model
    return from_dict(doc, str(recipe) if isinstance(recipe, (str, Path)) else "options")


def build_model(recipe: Recipe | ModelSpec | None = None, **options: Any) -> LogicNet:
    """The untrained `LogicNet` a training run of ``recipe`` (see `make_config`) starts from,
    or the network of a `ModelSpec`: the same wiring and initial weights (seeded), so
    ``build_model(recipe)`` is ``train(recipe)``'s model at step 0.

    Example:
        >>> model = build_model(dataset="digits", dense=[200, 200], tau=3.0)
        >>> model(torch.rand(5, 8, 8)).shape  # class scores, relaxed gates
        torch.Size([5, 10])
    """
    if isinstance(recipe, ModelSpec):
        return LogicNet(recipe.replace(**options) if options else recipe)
    cfg = resolve(make_config(recipe, **options))
    spec = ModelSpec.from_dict(cfg.model)
    if spec.prune > 0 and spec.input_bits is None:  # pruned inputs: chosen on the training split
        return build_run_model(cfg, load_data(cfg))
    torch.manual_seed(cfg.seed)
    return LogicNet(spec)


@dataclass(frozen=True)
class Trained:
    """What `train` returns: ``model`` (the `LogicNet` with its best-by-validation weights, in
    eval mode), ``net`` (its `DiscreteLogicNet`, ``discrete.json``), ``history`` (one dict
    per validation: ``step``, ``epoch``, ``loss``, ``val_soft``, ``val_discrete``,
    ``train_seconds``), ``metrics`` (``metrics.json``: ``accuracy_discrete``, ``gates``, ...),
    the resolved ``config``, and ``out``, the run directory (``None`` if none was kept)."""

    model: LogicNet
    net: DiscreteLogicNet
    history: list[dict[str, Any]]
    metrics: dict[str, Any]
    config: TrainConfig
    out: Path | None

    @property
    def accuracy(self) -> float:
        """Test accuracy of the discrete network."""
        return float(self.metrics["accuracy_discrete"])


def train(
    recipe: Recipe | None = None,
    out: str | Path | None = None,
    *,
    overwrite: bool = False,
    resume: bool = False,
    quiet: bool = False,
    **options: Any,
) -> Trained:
    """Train a logic gate network: AdamW on the relaxed gates, a validation of the discrete
    network every ``eval_every`` steps (or epoch), the best weights by validation accuracy,
    then the test accuracy of the soft and the discrete network.

    This is ``wirelab logic train`` (the command calls it): ``recipe`` and ``options`` as in
    `make_config`, the run directory ``out`` (``config.json``, ``checkpoint.pt``,
    ``discrete.json``, ``model.pt``, ``metrics.json``, ``training.png``; ``None``: a temporary
    one, removed afterwards), ``resume`` a killed run in ``out`` (its checkpoint's configuration
    unless a recipe is given); ``quiet`` hides the progress.

    Example:
        >>> result = train(dataset="digits", dense=[200, 200], tau=3.0, epochs=8, quiet=True)
        >>> result.accuracy, result.net.gates  # doctest: +SKIP
        (0.86, 400)
    """
    if resume and recipe is None and out is not None:  # the killed run's own configuration
        recipe = checkpoint_config(out)
    cfg = make_config(recipe, **options)
    if out is None:
        if resume:
            raise UsageError("resume needs the run directory out=")
        with tempfile.TemporaryDirectory(prefix="wirelab-logic-") as tmp:
            return _trained(cfg, Path(tmp) / "run", None, quiet=quiet)
    return _trained(cfg, Path(out), Path(out), overwrite=overwrite, resume=resume, quiet=quiet)


def _trained(cfg: TrainConfig, run_dir: Path, keep: Path | None, **flags: bool) -> Trained:
    model, metrics = train_run(cfg, run_dir, **flags)
    net = DiscreteLogicNet.load(run_dir / "discrete.json")
    return Trained(model, net, list(metrics["history"]), metrics, resolve(cfg), keep)


def discretize(model: LogicNet | Trained | nn.Sequential) -> DiscreteLogicNet:
    """The pure Boolean network of a trained model: each neuron's argmax gate and chosen
    inputs, the input thresholds and the GroupSum head. ``model``: a `LogicNet`, a `Trained`
    (its ``net``), or ``nn.Sequential(Binarize, LogicLayer, ..., GroupSum)``. Its
    ``predict(x)`` equals the model's argmax in ``hard`` (eval) mode."""
    if isinstance(model, Trained):
        return model.net
    if isinstance(model, LogicNet):
        return model.discretize()
    if isinstance(model, nn.Sequential):
        return sequential_to_discrete(model)
    raise UsageError(f"cannot discretize {type(model).__name__}")


def _run_dir(source: str | Path | Trained) -> Path:
    if isinstance(source, Trained):
        if source.out is None:
            raise UsageError("this needs a run directory: train with out=...")
        return source.out
    return Path(source)


def verify(source: str | Path | Trained, backends: str = "all", **options: Any) -> dict[str, Any]:
    """``wirelab logic verify``: each back end against the discrete network on the run's test
    split (C on every image, Verilog in Icarus and proved equal by yosys); compile first
    (`export_c`, `export_verilog`). ``options``: ``sim_vectors``, ``formal_max_gates``,
    ``formal_timeout``, ``pipeline``. Returns the record (``verified``: all checks passed)."""
    from wirelab.logic.circuit.rundir import verify_run

    return verify_run(_run_dir(source), backends, **options)


def up5k(source: str | Path | Trained, out: str | Path, **options: Any) -> dict[str, Any]:
    """``wirelab logic up5k``: the classifier with a sequential head on one iCE40 UP5K (yosys,
    nextpnr-ice40, icepack), its netlist simulated against the C back end; a result
    directory ``out``. Returns its metrics: ``logic_cells``, ``fmax_mhz``, ``timing_met``,
    ``accuracy_c``, ``postsim_equal_to_c``, ... ``options``: those of
    `wirelab.logic.fpga.up5k.up5k_run` (``spec``, ``images``, ``clock_mhz``, ``pnr``, ...)."""
    from wirelab.logic.fpga.up5k import up5k_run

    return up5k_run(_run_dir(source), out, **options)
