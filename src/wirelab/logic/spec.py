"""`ModelSpec`: the one typed description of a `LogicNet`, checked when it is made.

A recipe's ``[model]`` table, a run's ``config.json`` ``model`` entry and a ``model.pt``'s
``spec`` are the plain-dict form of a `ModelSpec` (`ModelSpec.to_dict` / `ModelSpec.from_dict`);
every default, type and range lives here, and nowhere else:

    input_shape (H, W) -> binarize ("fixed" at threshold, or "thermometer" with levels)
      -> crop / prune / input_bits (the bits the first layer reads) -> conv blocks
      -> dense widths (connections "unique" | "random" | "learned" | "topk" | "dirac" | "dirac-k")
      -> GroupSum(classes, tau), or its adaptive tau (group_tau)

`wirelab.logic.config.resolve` fills in the data-dependent fields (``input_shape`` and
``classes`` from the dataset, ``seed`` from the run), `wirelab.logic.inputs` reads the input
fields, and `wirelab.logic.model.LogicNet` builds the network of a spec.

Example:
    >>> ModelSpec(dense=(64, 64), classes=2, input_shape=(8, 8)).gates
    128
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wirelab.errors import UsageError

__all__ = [
    "ADDED_DEFAULTS",
    "CHOICES",
    "DEFAULT_SPEC",
    "ConvBlock",
    "ModelSpec",
    "resolve_spec",
]

# the string options and their choices (the CLI's choices read these too)
CHOICES: dict[str, tuple[str, ...]] = {
    "binarize": ("fixed", "thermometer"),
    "inputs": ("binary", "real"),
    "connections": ("random", "unique", "learned", "topk", "dirac", "dirac-k"),
    "gate_param": ("softmax", "light"),
    "init": ("gaussian", "residual"),
    "group_tau": ("fixed", "adaptive"),
}


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
        raise UsageError(f"{what} must be a whole number, not {value!r}")
    if value < 1:
        raise UsageError(f"{what} must be at least 1, not {value!r}")
    return int(value)


def _number(key: str, value: Any, lo: float, hi: float = math.inf) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"model option {key} must be a number, not {value!r}") from None
    if not (math.isfinite(v) and lo <= v <= hi):
        raise UsageError(f"model option {key} = {value!r} is out of range [{lo:g}, {hi:g}]")
    return v


def _seq(value: Any, what: str) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise UsageError(f"{what} must be a list, not {value!r}")
    return tuple(value)


@dataclass(frozen=True)
class ConvBlock:
    """One convolutional block (`wirelab.logic.conv.LogicConv2d`): ``channels`` kernels, each a
    binary tree of logic gates of ``depth`` levels over a ``kernel x kernel`` receptive field,
    then (``pool``) a 2 x 2 OR pooling."""

    channels: int
    kernel: int = 3
    depth: int = 3
    pool: bool = False

    def __post_init__(self) -> None:
        for name in ("channels", "kernel", "depth"):
            object.__setattr__(self, name, _count(getattr(self, name), f"conv {name}"))
        object.__setattr__(self, "pool", bool(self.pool))

    @classmethod
    def of(cls, block: Any) -> ConvBlock:
        """A block from a `ConvBlock` or its dict (``channels`` required); one-line errors."""
        if isinstance(block, ConvBlock):
            return block
        if not isinstance(block, Mapping) or "channels" not in block:
            raise UsageError(f"a conv block needs at least 'channels', got {block!r}")
        unknown = set(block) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise UsageError(f"unknown conv block options: {', '.join(sorted(unknown))}")
        return cls(**block)


@dataclass(frozen=True)
class ModelSpec:
    """Everything a `LogicNet` is built from; every field has its default, and a spec is
    checked when it is made (one-line `UsageError`). Sequences are stored as tuples.

    Fields: ``input_shape`` raw image ``(H, W)``; ``binarize`` ``fixed`` (one bit per pixel,
    ``x > threshold``) or ``thermometer`` (``levels`` bits, thresholds ``(t + 1) / (levels + 1)``);
    ``crop`` the centre ``crop x crop`` window; ``prune`` drop input bits that are 1 in fewer than
    ``prune`` or more than ``1 - prune`` of the training images; ``inputs`` ``binary`` or ``real``
    (relaxed pixels while training); ``input_bits`` the raw bits the first layer reads (chosen
    by pruning; ``None``: all, or the crop); ``conv`` `ConvBlock` s; ``dense`` gates per dense
    layer; ``connections`` their wiring (``unique``/``random`` fixed, ``learned`` among
    ``candidates`` wires per input at softmax temperature ``connection_tau``, ``topk`` over all
    wires, re-selected every ``rewire_every`` steps, ``dirac`` a softmax over every wire started
    on one, ``dirac-k`` the same over ``candidates`` wires chosen at init); ``gate_param``
    ``softmax`` (16 logits per gate) or ``light`` (4); ``init`` ``gaussian`` or ``residual``;
    ``classes`` and ``tau`` of the GroupSum head, ``group_tau`` ``fixed`` (``tau``) or
    ``adaptive`` (`wirelab.logic.adaptive_tau`); ``seed`` of the wiring and initial weights.
    """

    input_shape: tuple[int, ...] = (28, 28)
    binarize: str = "fixed"
    levels: int = 1
    threshold: float = 0.5
    crop: int | None = None
    prune: float = 0.0
    inputs: str = "binary"
    input_bits: tuple[int, ...] | None = None
    conv: tuple[ConvBlock, ...] = ()
    dense: tuple[int, ...] = (1000,)
    connections: str = "unique"
    candidates: int = 16
    connection_tau: float = 1.0
    rewire_every: int = 100
    gate_param: str = "softmax"
    init: str = "gaussian"
    classes: int = 10
    tau: float = 5.0
    group_tau: str = "fixed"
    seed: int = 0

    def __post_init__(self) -> None:
        for key, choices in CHOICES.items():
            if getattr(self, key) not in choices:
                raise UsageError(
                    f"model option {key} = {getattr(self, key)!r}; use one of {', '.join(choices)}"
                )
        typed = {
            "input_shape": tuple(_count(v, "input_shape") for v in _seq(self.input_shape, "x")),
            "levels": _count(self.levels, "levels"),
            "threshold": _number("threshold", self.threshold, 0.0, 1.0),
            "crop": None if self.crop is None else _count(self.crop, "crop"),
            "prune": _number("prune", self.prune, 0.0, 0.4999),
            "input_bits": None
            if self.input_bits is None
            else tuple(int(v) for v in _seq(self.input_bits, "input_bits")),
            "conv": tuple(ConvBlock.of(b) for b in _seq(self.conv, "conv")),
            "dense": tuple(_count(n, "dense width") for n in _seq(self.dense, "dense")),
            "candidates": _count(self.candidates, "candidates"),
            "connection_tau": _number("connection_tau", self.connection_tau, 1e-6),
            "rewire_every": _count(self.rewire_every, "rewire_every"),
            "classes": _count(self.classes, "classes"),
            "tau": _number("tau", self.tau, 1e-12),
            "seed": int(self.seed),
        }
        for name, value in typed.items():
            object.__setattr__(self, name, value)
        self._check_combinations()

    def _check_combinations(self) -> None:
        shape = self.input_shape
        if self.crop is not None and (len(shape) != 2 or self.crop > min(shape)):
            raise UsageError(f"crop {self.crop} does not fit the input shape {list(shape)}")
        if self.conv and (self.prune > 0 or self.input_bits is not None):
            raise UsageError(
                "input pruning needs a dense model (a convolution reads an image grid)"
            )
        if self.inputs == "real" and self.binarize == "fixed" and not 0 < self.threshold < 1:
            raise UsageError("real-valued inputs need a threshold strictly between 0 and 1")

    @classmethod
    def from_dict(cls, spec: ModelSpec | Mapping[str, Any]) -> ModelSpec:
        """A spec from its dict form (a recipe's ``[model]`` table, partial or whole; missing
        keys take their defaults; a `ModelSpec` is returned as it is); unknown keys are a
        one-line `UsageError`."""
        if isinstance(spec, ModelSpec):
            return spec
        if not isinstance(spec, Mapping):
            raise UsageError(f"a model spec must be a table of options, not {spec!r}")
        unknown = set(spec) - set(DEFAULT_SPEC)
        if unknown:
            raise UsageError(f"unknown model options: {', '.join(sorted(unknown))}")
        return cls(**spec)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (lists and dicts), as ``config.json`` and ``model.pt`` record it."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["input_shape"] = list(self.input_shape)
        d["input_bits"] = None if self.input_bits is None else list(self.input_bits)
        d["conv"] = [dataclasses.asdict(b) for b in self.conv]
        d["dense"] = list(self.dense)
        return d

    def replace(self, **changes: Any) -> ModelSpec:
        """A copy with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)

    @property
    def gates(self) -> int:
        """Gates of the dense layers (a convolution's gates depend on its image sizes)."""
        return sum(self.dense)


DEFAULT_SPEC: dict[str, Any] = ModelSpec().to_dict()
# keys added after the first checkpoints were written: a saved spec without them used these
ADDED_DEFAULTS = {
    k: DEFAULT_SPEC[k]
    for k in ("candidates", "connection_tau", "gate_param", "rewire_every", "group_tau")
}


def resolve_spec(spec: ModelSpec | Mapping[str, Any]) -> dict[str, Any]:
    """Every option filled in, typed and checked, in dict form; raises `UsageError` with one
    line (``ModelSpec.from_dict(spec).to_dict()``)."""
    return ModelSpec.from_dict(spec).to_dict()
