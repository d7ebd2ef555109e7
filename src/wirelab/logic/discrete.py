"""The discrete logic gate network: what a trained model becomes, and what circuits are built from.

A `DiscreteLogicNet` is a pure Boolean circuit in layers:

- ``thresholds``: ``(F, T)`` float input binarisation: input bit ``f * T + t`` is
  ``x[f] > thresholds[f, t]`` (``T = 1``: plain thresholding; ``T > 1``: thermometer code);
  the binarised input vector has ``F * T`` bits.
- ``layers``: each a `DiscreteLayer` with ``a, b`` (``(n,)`` int64 indices into the previous
  layer's outputs, the binarised input for the first layer) and ``gate`` (``(n,)`` uint8 ids in
  `wirelab.logic.gates` numbering);
- ``num_classes`` and ``tau``: GroupSum; the last layer's ``n`` outputs are split into
  ``num_classes`` consecutive groups of ``n / num_classes`` bits, class score = popcount / tau.

It is saved as JSON (`to_dict` / `from_dict`) so that the circuit tools need no torch.
Convolutional models are flattened to this form when discretised.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import CorruptDataError, UsageError
from wirelab.logic.gates import NUM_GATES, TRUTH


@dataclass(frozen=True)
class DiscreteLayer:
    """One layer of gates: gate ``j`` computes ``TRUTH[gate[j]]`` of inputs ``a[j]``, ``b[j]``
    (indices into the previous layer's outputs); ``a, b`` ``(n,)`` int64, ``gate`` ``(n,)``
    uint8."""

    a: np.ndarray  # (n,) int64
    b: np.ndarray  # (n,) int64
    gate: np.ndarray  # (n,) uint8 in [0, 16)

    def __post_init__(self) -> None:
        if not (self.a.shape == self.b.shape == self.gate.shape) or self.a.ndim != 1:
            raise UsageError("a, b and gate must be 1-D arrays of the same length")
        if self.gate.size and (self.gate.min() < 0 or self.gate.max() >= NUM_GATES):
            raise UsageError("gate ids must lie in [0, 16)")

    @property
    def size(self) -> int:
        return int(self.a.shape[0])


@dataclass(frozen=True)
class DiscreteLogicNet:
    """The Boolean classifier (see the module docstring): ``thresholds`` ``(F, T)``, ``layers``,
    the GroupSum head (``num_classes``, ``tau``). ``predict(x)`` ``(B, F)`` -> ``(B,)``
    classes, ``scores(x)`` -> ``(B, num_classes)``; ``gates`` counts its gates; `save` /
    `load` its JSON (``discrete.json``).

    Example:
        >>> net = DiscreteLogicNet.load("runs/logic/digits/discrete.json")  # doctest: +SKIP
        >>> net.predict(x_test).shape, net.gates  # doctest: +SKIP
    """

    thresholds: np.ndarray  # (F, T) float
    layers: tuple[DiscreteLayer, ...]
    num_classes: int
    tau: float = 1.0
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        width = self.input_bits
        for i, layer in enumerate(self.layers):
            if layer.size and (
                min(layer.a.min(), layer.b.min()) < 0 or max(layer.a.max(), layer.b.max()) >= width
            ):
                raise UsageError(f"layer {i} reads an index outside its {width} inputs")
            width = layer.size
        if self.layers and width % self.num_classes:
            raise UsageError(f"{width} outputs do not split into {self.num_classes} classes")

    @property
    def input_features(self) -> int:
        return int(self.thresholds.shape[0])

    @property
    def input_bits(self) -> int:
        return int(self.thresholds.shape[0] * self.thresholds.shape[1])

    @property
    def gates(self) -> int:
        return sum(layer.size for layer in self.layers)

    def binarize(self, x: np.ndarray) -> np.ndarray:
        """``(B, F)`` floats -> ``(B, F * T)`` bool."""
        x = np.asarray(x, dtype=np.float64).reshape(len(x), -1)
        if x.shape[1] != self.input_features:
            raise UsageError(f"expected {self.input_features} input features, got {x.shape[1]}")
        return (x[:, :, None] > self.thresholds[None]).reshape(len(x), -1)

    def forward_bits(self, bits: np.ndarray) -> np.ndarray:
        """Reference Boolean evaluation: ``(B, input_bits)`` bool -> ``(B, n_last)`` bool."""
        h = np.asarray(bits, dtype=np.uint8)
        for layer in self.layers:
            h = TRUTH[layer.gate[None, :], 2 * h[:, layer.a] + h[:, layer.b]]
        return h.astype(bool)

    def scores(self, x: np.ndarray) -> np.ndarray:
        """Class scores ``(B, num_classes)``: popcount per group / tau."""
        out = self.forward_bits(self.binarize(x))
        return out.reshape(len(out), self.num_classes, -1).sum(-1) / self.tau

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Argmax class (ties go to the lowest index)."""
        return np.argmax(self.scores(x), axis=1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "wirelab.discrete_logic_net/1",
            "thresholds": self.thresholds.tolist(),
            "layers": [
                {"a": lay.a.tolist(), "b": lay.b.tolist(), "gate": lay.gate.tolist()}
                for lay in self.layers
            ],
            "num_classes": self.num_classes,
            "tau": self.tau,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DiscreteLogicNet:
        if d.get("format") != "wirelab.discrete_logic_net/1":
            raise UsageError("not a wirelab discrete logic net (format field missing or unknown)")
        layers = tuple(
            DiscreteLayer(
                np.asarray(lay["a"], dtype=np.int64),
                np.asarray(lay["b"], dtype=np.int64),
                np.asarray(lay["gate"], dtype=np.uint8),
            )
            for lay in d["layers"]
        )
        thr = np.asarray(d["thresholds"], dtype=np.float64)
        return cls(
            thr.reshape(len(thr), -1),
            layers,
            int(d["num_classes"]),
            float(d["tau"]),
            dict(d.get("meta", {})),
        )

    def save(self, path: str | Path) -> Path:
        from wirelab.results import write_json

        return write_json(Path(path), self.to_dict())

    @classmethod
    def load(cls, path: str | Path) -> DiscreteLogicNet:
        """The net saved at ``path``; a one-line `CorruptDataError` when the file is empty,
        truncated, not UTF-8 JSON, or not a valid net (wrong format, keys, shapes or indices)."""
        path = Path(path)
        try:
            doc = json.loads(path.read_bytes().decode("utf-8"))
        except UnicodeDecodeError:
            raise CorruptDataError(f"{path} is not a discrete logic net (not UTF-8 text)") from None
        except json.JSONDecodeError as exc:
            why = (
                "empty" if not exc.doc.strip() else f"not valid JSON: {exc.msg}, line {exc.lineno}"
            )
            raise CorruptDataError(f"{path} is not a discrete logic net ({why})") from None
        if not isinstance(doc, dict):
            raise CorruptDataError(f"{path} is not a discrete logic net (not a JSON object)")
        try:
            return cls.from_dict(doc)
        except (KeyError, TypeError, ValueError, OverflowError, IndexError) as exc:
            why = f"missing {exc}" if isinstance(exc, KeyError) else " ".join(str(exc).split())
            raise CorruptDataError(f"{path} is not a valid discrete logic net: {why}") from None
