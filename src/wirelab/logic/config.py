"""`TrainConfig`: everything a training run depends on, resolved so that it alone repeats the run.

A recipe (a name of `wirelab.logic.recipe_registry.RECIPES` such as ``"mnist01"``, or a TOML
file such as ``recipes/logic/mnist01.toml``) has a ``[train]`` table (`TrainConfig` fields) and a
``[model]`` table (the dict form of a `wirelab.logic.spec.ModelSpec`); a run's own
``config.json`` is accepted as a recipe too. `resolve` builds the `ModelSpec` (every model
default, and the data-dependent shape and class count: `model_spec`) and records its dict form
in ``model``, so ``config.json`` records the network actually built.

Two run lengths: ``epochs`` passes over the training split with a validation after each, or
``steps`` optimiser steps with a validation every ``eval_every`` steps (the 2022 paper's
200,000-iteration runs). Either way the best weights by *validation* accuracy of the discrete
network are kept; ``patience`` (validations without improvement, 0: never) stops early.
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from wirelab import config_diff
from wirelab.cli_options import MAX_COUNT, check_memory
from wirelab.errors import UsageError
from wirelab.logic.datasets import dataset_shape, parse_classes
from wirelab.logic.forwards import TRAINING_FORWARDS
from wirelab.logic.functional import LIGHT_WIDTH
from wirelab.logic.gates import NUM_GATES
from wirelab.logic.recipe_registry import recipe_path
from wirelab.logic.spec import ADDED_DEFAULTS, ModelSpec

FORWARDS = TRAINING_FORWARDS
LR_SCHEDULES = ("constant", "cosine")
# Options a resumed run may change: they do not alter the steps taken. ``threads`` does not
# either with the numba kernels: their per-gate gradient sums run over the whole batch in one
# order whatever the thread count (`wirelab.logic.kernels`, tested bit for bit on 1 and 2
# threads); torch's fallback path (no numba) may still round differently on another count.
RESUMABLE_CHANGES = ("max_minutes", "stop_at", "threads")


@dataclass
class TrainConfig:
    """Every option of a training run (``wirelab logic train`` and `wirelab.logic.train`), with
    the defaults both read: the data (``dataset``, a `TRAINING_SETS` name, and ``classes``),
    ``model`` (the dict form of a `ModelSpec`), the run length (``epochs``, or ``steps`` with a
    validation every ``eval_every``), AdamW (``lr``, ``lr_schedule``, ``weight_decay``,
    ``batch_size``), the training ``forward`` mode, early stopping and budgets, ``seed`` and
    ``threads``. `resolve` checks it and fills in the model."""

    dataset: str = "mnist"
    classes: str = "all"
    model: dict[str, Any] = field(default_factory=dict)
    epochs: int = 30
    steps: int | None = None  # iteration-based run: this many optimiser steps (instead of epochs)
    eval_every: int | None = None  # steps between validations (default: one epoch)
    batch_size: int = 128
    lr: float = 0.01
    lr_schedule: str = "constant"  # or "cosine": lr * (1 + cos(pi * step / steps)) / 2
    weight_decay: float = 0.0
    forward: str = "soft"  # a training mode of `wirelab.logic.forwards`: soft, st, gumbel, cage
    patience: int | None = 10  # validations without improvement before stopping; 0/None: never
    val_fraction: float = 0.1
    max_train: int | None = None
    seed: int = 0
    threads: int = 2
    eval_batch: int = 2048
    max_minutes: float | None = None  # wall-clock budget: stop at the first validation past it
    stop_at: float | None = None  # stop at the first validation whose discrete accuracy >= this
    init_from: str | None = None  # run dir, model.pt or checkpoint.pt whose weights start this run
    connection_tau_end: float | None = None  # learned connections' temperature at the last step
    input_ramp_end: float | None = None  # real-valued inputs' ramp width at the last step (1 -> w)
    augment_shift: int = 0  # training images shifted by up to this many pixels (`logic.augment`)
    augment_rotate: float = 0.0  # ... turned by a random angle in [-this, this] degrees
    augment_elastic: float = 0.0  # ... elastically distorted: alpha pixels (`logic.warp`)
    augment_elastic_sigma: float = 4.0  # the distortion field's Gaussian width in pixels

    def validate(self) -> None:
        """Every field in range; one-line `UsageError` otherwise (before any directory exists)."""
        counts = {
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "threads": self.threads,
            "eval_batch": self.eval_batch,
            "steps": self.steps,
            "eval_every": self.eval_every,
        }
        for name, v in counts.items():
            if v is not None and (
                isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_COUNT
            ):
                raise UsageError(f"{name} must be a whole number in [1, 2**31 - 1], not {v!r}")
        shift = self.augment_shift
        if not isinstance(shift, int) or isinstance(shift, bool) or not 0 <= shift <= 8:
            raise UsageError(f"augment_shift must be a whole number 0-8, not {shift!r}")
        _finite("augment_rotate", self.augment_rotate, 0.0, 45.0)
        _finite("augment_elastic", self.augment_elastic, 0.0, 40.0)
        _finite("augment_elastic_sigma", self.augment_elastic_sigma, 0.0, 100.0, lo_open=True)
        patience = self.patience
        if patience is not None and (
            not isinstance(patience, int) or not 0 <= patience <= MAX_COUNT
        ):
            raise UsageError(f"patience must be a whole number in [0, 2**31 - 1], not {patience!r}")
        if self.max_train is not None and (
            not isinstance(self.max_train, int) or not 2 <= self.max_train <= MAX_COUNT
        ):
            raise UsageError(f"max_train must be in [2, 2**31 - 1], not {self.max_train!r}")
        if (
            not isinstance(self.seed, int)
            or isinstance(self.seed, bool)
            or not 0 <= self.seed < 2**32
        ):
            raise UsageError(f"seed must be a whole number in [0, 2**32 - 1], not {self.seed!r}")
        _finite("lr", self.lr, 0.0, lo_open=True)
        _finite("weight_decay", self.weight_decay, 0.0)
        _finite("val_fraction", self.val_fraction, 0.0, 1.0, lo_open=True, hi_open=True)
        if self.max_minutes is not None:
            _finite("max_minutes", self.max_minutes, 0.0, lo_open=True)
        if self.stop_at is not None:
            _finite("stop_at", self.stop_at, 0.0, 1.0, lo_open=True)
        if self.connection_tau_end is not None:
            _finite("connection_tau_end", self.connection_tau_end, 0.0, lo_open=True)
        if self.input_ramp_end is not None:
            _finite("input_ramp_end", self.input_ramp_end, 0.0, 1.0, lo_open=True)
        if self.forward not in FORWARDS:
            choices = ", ".join(FORWARDS)
            raise UsageError(f"--forward must be one of {choices}, not {self.forward!r}")
        if self.lr_schedule not in LR_SCHEDULES:
            raise UsageError(f"--lr-schedule must be one of {', '.join(LR_SCHEDULES)}")


def _finite(
    name: str,
    v: Any,
    lo: float,
    hi: float = math.inf,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> None:
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    if ok:
        ok = (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)
    if not ok:
        raise UsageError(f"{name} = {v!r} is not a finite number in range")


def resolve(cfg: TrainConfig) -> TrainConfig:
    """A checked copy whose ``model`` is the complete spec of the network the run builds."""
    try:
        cfg = TrainConfig(**asdict(cfg))
    except TypeError as exc:
        raise UsageError(f"bad configuration: {exc}") from None
    cfg.validate()
    spec = model_spec(cfg)
    if cfg.connection_tau_end is not None and spec.connections == "dirac":
        raise UsageError(
            "connection_tau_end anneals learned, topk and dirac-k connections; "
            "'dirac' is a plain softmax (its fixed temperature: connection_tau)"
        )
    cfg.model = spec.to_dict()
    check_dense_memory(list(spec.dense), cfg.batch_size, spec.gate_param)
    return cfg


def model_spec(cfg: TrainConfig) -> ModelSpec:
    """The `ModelSpec` a run of ``cfg`` builds: ``cfg.model`` with the dataset's image shape
    and class count, and the run's seed unless the model names its own."""
    if not isinstance(cfg.model, dict):
        raise UsageError(f"model must be a table of model options, not {cfg.model!r}")
    classes = parse_classes(cfg.classes, cfg.dataset)
    spec = {**cfg.model, "classes": len(classes), "input_shape": list(dataset_shape(cfg.dataset))}
    spec.setdefault("seed", cfg.seed)
    return ModelSpec.from_dict(spec)


def check_dense_memory(widths: list[int], batch_size: int, gate_param: str = "softmax") -> None:
    """Refuse, before anything is allocated, dense widths whose gates cannot fit in memory.

    A lower bound of what ``G = sum(widths)`` gates need: their float32 gate parameters
    (16 logits per gate, or 4 for ``light``) and one batch of their float32 outputs,
    ``4 G (P + batch_size)`` bytes; `wirelab.cli_options.check_memory` compares it with the memory
    available now (one-line `UsageError`).
    """
    per_gate = (NUM_GATES if gate_param == "softmax" else LIGHT_WIDTH) + batch_size
    what = f"dense {','.join(str(w) for w in widths)} (batch size {batch_size})"
    check_memory(what, 4 * sum(widths) * per_gate)


def from_dict(doc: dict[str, Any], source: str = "configuration") -> TrainConfig:
    names = {f.name for f in fields(TrainConfig)}
    unknown = set(doc) - names
    if unknown:
        raise UsageError(f"{source}: unknown options {', '.join(sorted(unknown))}")
    return TrainConfig(**doc)


def load_recipe(path: str | Path) -> dict[str, Any]:
    """A recipe as a plain dict: TOML with ``[train]`` and ``[model]`` tables, or a run's
    ``config.json`` (its ``config``), so a finished run can be repeated from its directory.
    ``path``: an existing file or run directory, else a packaged recipe's name (``"mnist01"``,
    `wirelab.logic.recipe_registry.recipe_path`). A TOML recipe without ``[train]`` or
    ``[model]`` settings (an empty or mistyped file) is a `UsageError`, never the defaults."""
    p = recipe_path(path)
    if p.is_dir():
        p = p / "config.json"
    if not p.is_file():
        raise UsageError(f"recipe {p} does not exist")
    if p.suffix == ".json":
        try:
            doc = json.loads(p.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(f"recipe {p}: not JSON ({exc})") from None
        cfg = doc.get("config") if isinstance(doc, dict) else None
        if not isinstance(cfg, dict) or not isinstance(cfg.get("model"), dict):
            raise UsageError(f"recipe {p}: not a wirelab logic train config.json")
        return dict(cfg)
    try:
        doc = tomllib.loads(p.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"recipe {p}: {exc}") from None
    unknown = set(doc) - {"train", "model", "description", "targets"}
    if unknown:
        raise UsageError(f"recipe {p}: unknown tables {', '.join(sorted(unknown))}")
    tables = {k: doc.get(k, {}) for k in ("train", "model")}
    if not all(isinstance(t, dict) for t in tables.values()):
        raise UsageError(f"recipe {p}: [train] and [model] must be tables")
    if not any(tables.values()):  # a typo'd or empty file must not train with the defaults
        raise UsageError(f"recipe {p}: no [train] or [model] settings (an empty recipe)")
    cfg = dict(tables["train"])
    cfg["model"] = dict(tables["model"])
    return cfg


def changed_options(cfg: TrainConfig, saved: dict[str, Any]) -> list[str]:
    """``name: saved -> given`` for each option (model options as ``model.name``) that differs
    between a resolved configuration and a checkpoint's, except `RESUMABLE_CHANGES`
    (`wirelab.config_diff.changed_options`). A checkpoint older than the `ADDED_DEFAULTS` model
    options used their defaults, so those fill its model spec first."""
    if isinstance(saved.get("model"), dict):
        saved = {**saved, "model": {**ADDED_DEFAULTS, **saved["model"]}}
    return config_diff.changed_options(saved, asdict(cfg), ignore=RESUMABLE_CHANGES)
