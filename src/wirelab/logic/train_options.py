"""The options of ``wirelab logic train`` and the `TrainConfig` they make.

The options' defaults are the fields of `TrainConfig`, `ModelSpec` and `ConvBlock` (one set of
defaults, compared by ``tests/logic/test_api.py``); an option left at its default does not
override the recipe (click's parameter source tells which options were given).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, fields
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from wirelab.cli_options import COUNT, SEED, THREADS, count, finite_float
from wirelab.errors import UsageError
from wirelab.logic.config import LR_SCHEDULES, TrainConfig
from wirelab.logic.datasets import TRAINING_SETS
from wirelab.logic.forwards import TRAINING_FORWARDS
from wirelab.logic.spec import CHOICES, ConvBlock, ModelSpec

F = TypeVar("F", bound=Callable[..., Any])

# the one set of defaults: the option defaults below are these dataclasses' field defaults
TRAIN_DEFAULTS = {f.name: f.default for f in fields(TrainConfig) if f.name != "model"}
MODEL_DEFAULTS = {f.name: f.default for f in fields(ModelSpec)}
CONV_DEFAULTS = {f.name: f.default for f in fields(ConvBlock) if f.name != "channels"}

POSITIVE = finite_float(0.0, min_open=True)
POSITIVE_SIGMA = finite_float(0.0, 100.0, min_open=True)
THREAD_COUNT = THREADS
# option name -> TrainConfig field (train options) or model spec key (model options)
TRAIN_OPTIONS = (
    "dataset",
    "classes",
    "forward",
    "epochs",
    "steps",
    "eval_every",
    "batch_size",
    "lr",
    "lr_schedule",
    "weight_decay",
    "patience",
    "val_fraction",
    "max_train",
    "seed",
    "threads",
    "max_minutes",
    "stop_at",
    "init_from",
    "connection_tau_end",
    "input_ramp_end",
    "augment_shift",
    "augment_rotate",
    "augment_elastic",
    "augment_elastic_sigma",
)
MODEL_OPTIONS = (
    "binarize",
    "levels",
    "threshold",
    "crop",
    "prune",
    "inputs",
    "connections",
    "candidates",
    "connection_tau",
    "rewire_every",
    "gate_param",
    "init",
    "tau",
    "group_tau",
)


def _ints(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise UsageError(f"expected comma-separated integers, got {text!r}") from None


def config_of(kw: dict[str, Any], given: set[str]) -> Any:
    """The `TrainConfig` of the options: recipe (or, for ``--resume`` without one, the
    checkpoint's configuration, or the seeds study's) overridden by every option ``given``
    (not left at its default)."""
    from wirelab.logic.config import from_dict, load_recipe
    from wirelab.logic.training import checkpoint_config

    if kw["recipe"]:
        cfg = load_recipe(kw["recipe"])
    elif kw["resume"] and kw["seeds"] is not None:
        from wirelab.logic.seeds import study_config

        cfg = study_config(kw["out"])
    elif kw["resume"]:
        cfg = asdict(checkpoint_config(kw["out"]))
    else:
        cfg = {}
    if not isinstance(cfg.get("model") or {}, dict):
        raise UsageError(f"{kw['recipe'] or kw['out']}: its model settings are not a table")
    model = dict(cfg.get("model") or {})
    cfg.update({k: kw[k] for k in TRAIN_OPTIONS if k in given})
    model.update({k: kw[k] for k in MODEL_OPTIONS if k in given})
    if "dense" in given:
        model["dense"] = _ints(kw["dense"])
    arch = kw["arch"] or ("conv" if model.get("conv") else "dense")
    if arch == "conv":
        chans = _ints(kw["conv_channels"])
        if chans is not None:
            model["conv"] = [{"channels": c, "pool": True} for c in chans]
        if not model.get("conv"):
            raise UsageError("--arch conv needs --conv-channels (e.g. 16,32)")
        model["conv"] = [dict(block) for block in model["conv"]]
        for block in model["conv"]:
            if "kernel" in given:
                block["kernel"] = kw["kernel"]
            if "depth" in given:
                block["depth"] = kw["depth"]
    else:
        model["conv"] = []
    cfg["model"] = model
    return from_dict(cfg, kw["recipe"] or "options")


def given_options(kw: dict[str, Any]) -> set[str]:
    """The options of the current command the user gave (not left at their default)."""
    ctx = click.get_current_context()
    return {k for k in kw if ctx.get_parameter_source(k) not in (ParameterSource.DEFAULT, None)}


def train_options(f: F) -> F:
    """The recipe, data, model and training options of ``wirelab logic train``."""
    for option in reversed(_OPTIONS):
        f = option(f)
    return f


def _train_option(name: str, kind: Any, text: str) -> Callable[[F], F]:
    """``--name`` (dashes) for the `TrainConfig` field ``name``, defaulting to the field's."""
    flag = "--" + name.replace("_", "-")
    return click.option(flag, type=kind, default=TRAIN_DEFAULTS[name], show_default=True, help=text)


_OPTIONS: list[Callable[[F], F]] = [
    click.option(
        "--recipe",
        type=click.Path(),
        help="A recipe: a name (wirelab logic recipes lists them), a TOML file, or a run's "
        "config.json (or its directory); an existing path wins over a name.",
    ),
    click.option(
        "--dataset",
        type=TRAINING_SETS.choice(),
        default=TRAIN_DEFAULTS["dataset"],
        show_default=True,
    ),
    click.option(
        "--classes",
        default=TRAIN_DEFAULTS["classes"],
        show_default=True,
        help="'all' or a comma list such as 0,1.",
    ),
    click.option("--arch", type=click.Choice(["dense", "conv"]), default=None),
    click.option(
        "--dense",
        "dense",
        default=",".join(str(n) for n in ModelSpec.dense),
        show_default=True,
        help="Dense widths, e.g. 8000,8000,8000.",
    ),
    click.option("--conv-channels", default=None, help="Conv blocks' kernel counts, e.g. 16,32."),
    click.option(
        "--kernel",
        type=COUNT,
        default=CONV_DEFAULTS["kernel"],
        show_default=True,
        help="Conv receptive field k (k x k).",
    ),
    click.option(
        "--depth",
        type=COUNT,
        default=CONV_DEFAULTS["depth"],
        show_default=True,
        help="Conv tree depth.",
    ),
    click.option(
        "--binarize",
        type=click.Choice(CHOICES["binarize"]),
        default=MODEL_DEFAULTS["binarize"],
        show_default=True,
    ),
    click.option(
        "--levels",
        type=COUNT,
        default=MODEL_DEFAULTS["levels"],
        show_default=True,
        help="Thermometer levels.",
    ),
    click.option(
        "--threshold",
        type=finite_float(0.0, 1.0, min_open=True, max_open=True),
        default=MODEL_DEFAULTS["threshold"],
        show_default=True,
        help="Fixed binarisation threshold.",
    ),
    click.option(
        "--crop",
        type=COUNT,
        default=MODEL_DEFAULTS["crop"],
        show_default=True,
        help="Train on the centre CROP x CROP pixels.",
    ),
    click.option(
        "--prune",
        type=finite_float(0.0, 0.5, max_open=True),
        default=MODEL_DEFAULTS["prune"],
        show_default=True,
        help="Drop input bits that are 1 in fewer than this fraction (or more than 1 - it) of the "
        "training images.",
    ),
    click.option(
        "--inputs",
        type=click.Choice(CHOICES["inputs"]),
        default=MODEL_DEFAULTS["inputs"],
        show_default=True,
        help="real: train on real-valued pixels, threshold only in the discrete network.",
    ),
    click.option(
        "--connections",
        type=click.Choice(CHOICES["connections"]),
        default=MODEL_DEFAULTS["connections"],
        show_default=True,
        help="learned: each gate input learns its wire among --candidates wires; topk: among all "
        "wires of the layer input, reading the top --candidates; dirac: a softmax over all wires "
        "started on one; dirac-k: the same over --candidates wires chosen at init.",
    ),
    click.option(
        "--rewire-every",
        type=COUNT,
        default=MODEL_DEFAULTS["rewire_every"],
        show_default=True,
        help="topk connections: re-select each gate input's top wires every this many steps.",
    ),
    click.option(
        "--candidates",
        type=COUNT,
        default=MODEL_DEFAULTS["candidates"],
        show_default=True,
        help="Candidate wires per gate input.",
    ),
    click.option(
        "--connection-tau",
        type=POSITIVE,
        default=MODEL_DEFAULTS["connection_tau"],
        show_default=True,
        help="Softmax temperature over candidates.",
    ),
    click.option(
        "--gate-param",
        type=click.Choice(CHOICES["gate_param"]),
        default=MODEL_DEFAULTS["gate_param"],
        show_default=True,
        help="Gate parameters: 16 softmax logits, or light: 4 truth-table logits.",
    ),
    click.option(
        "--connection-tau-end",
        type=POSITIVE,
        default=TRAIN_DEFAULTS["connection_tau_end"],
        show_default=True,
        help="Anneal the connection temperature geometrically to this value at the last step.",
    ),
    click.option(
        "--input-ramp-end",
        type=finite_float(0.0, 1.0, min_open=True),
        default=TRAIN_DEFAULTS["input_ramp_end"],
        show_default=True,
        help="Anneal real-valued inputs toward their thresholded bits: ramp width 1 -> this.",
    ),
    _train_option("augment_shift", click.IntRange(0, 8), "Shift training images <= N px each way."),
    _train_option("augment_rotate", finite_float(0.0, 45.0), "Turn training images <= R degrees."),
    _train_option("augment_elastic", finite_float(0.0, 40.0), "Elastic warp of images: alpha px."),
    _train_option("augment_elastic_sigma", POSITIVE_SIGMA, "The warp field's Gaussian width px."),
    click.option(
        "--init",
        type=click.Choice(CHOICES["init"]),
        default=MODEL_DEFAULTS["init"],
        show_default=True,
    ),
    click.option(
        "--tau",
        type=POSITIVE,
        default=MODEL_DEFAULTS["tau"],
        show_default=True,
        help="GroupSum temperature.",
    ),
    click.option(
        "--group-tau",
        type=click.Choice(CHOICES["group_tau"]),
        default=MODEL_DEFAULTS["group_tau"],
        show_default=True,
        help="adaptive: tau follows std(class sums) / 6 (wirelab.logic.adaptive_tau).",
    ),
    click.option(
        "--forward",
        type=click.Choice(list(TRAINING_FORWARDS)),
        default=TRAIN_DEFAULTS["forward"],
        show_default=True,
        help="st: straight-through; gumbel: Gumbel noise + straight-through; cage: "
        "straight-through with a confidence-adaptive backward temperature.",
    ),
    click.option("--epochs", type=COUNT, default=TRAIN_DEFAULTS["epochs"], show_default=True),
    click.option(
        "--steps",
        type=COUNT,
        default=TRAIN_DEFAULTS["steps"],
        show_default=True,
        help="Train this many steps (not epochs).",
    ),
    click.option(
        "--eval-every",
        type=COUNT,
        default=TRAIN_DEFAULTS["eval_every"],
        show_default=True,
        help="Steps between validations.",
    ),
    click.option(
        "--batch-size", type=COUNT, default=TRAIN_DEFAULTS["batch_size"], show_default=True
    ),
    click.option("--lr", type=POSITIVE, default=TRAIN_DEFAULTS["lr"], show_default=True),
    click.option(
        "--lr-schedule",
        type=click.Choice(LR_SCHEDULES),
        default=TRAIN_DEFAULTS["lr_schedule"],
        show_default=True,
    ),
    click.option(
        "--weight-decay",
        type=finite_float(0.0),
        default=TRAIN_DEFAULTS["weight_decay"],
        show_default=True,
    ),
    click.option(
        "--patience",
        type=count(min=0),
        default=TRAIN_DEFAULTS["patience"],
        show_default=True,
        help="Stop after this many validations without improvement (0: never).",
    ),
    click.option(
        "--val-fraction",
        type=finite_float(0.0, 1.0, min_open=True, max_open=True),
        default=TRAIN_DEFAULTS["val_fraction"],
        show_default=True,
    ),
    click.option(
        "--max-train",
        type=count(min=2),
        default=TRAIN_DEFAULTS["max_train"],
        show_default=True,
        help="Use only this many images.",
    ),
    click.option("--seed", type=SEED, default=TRAIN_DEFAULTS["seed"], show_default=True),
    click.option(
        "--threads", type=THREAD_COUNT, default=TRAIN_DEFAULTS["threads"], show_default=True
    ),
    click.option(
        "--max-minutes",
        type=POSITIVE,
        default=TRAIN_DEFAULTS["max_minutes"],
        show_default=True,
        help="Training time budget.",
    ),
    click.option(
        "--stop-at",
        type=finite_float(0.0, 1.0, min_open=True),
        default=TRAIN_DEFAULTS["stop_at"],
        show_default=True,
        help="Stop at the first validation whose discrete accuracy reaches this (time to "
        "accuracy).",
    ),
    click.option(
        "--init-from",
        default=TRAIN_DEFAULTS["init_from"],
        show_default=True,
        help="Start from a run's weights (its directory).",
    ),
]
