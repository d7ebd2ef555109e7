"""Differentiable logic gate networks (Petersen et al. 2022, 2024) and their Boolean circuits.

A logic gate network is layers of two-input gates: each neuron reads two wires and learns which
of the 16 Boolean functions it computes. Training relaxes the choice to a softmax over 16 gate
logits, ``y = sum_g softmax(w)_g f_g(a, b)`` on inputs in [0, 1]; discretisation keeps each
neuron's argmax gate, which gives a pure Boolean circuit that wirelab compiles to C, Verilog
and an iCE40 UP5K bitstream, each checked equal to the network.

- layers for your own ``torch.nn`` model: `LogicLayer` (fixed, learned or Top-K wiring),
  `GroupSum`, `Binarize` (the input step);
- the classifier of a recipe: `make_config`, `ModelSpec`, `build_model`, `train` (what
  ``wirelab logic train`` runs), `Trained`. A recipe is the name of one of the project's
  recipes, `RECIPES` (shipped in the package: ``train("mnist01")``, ``make_config(
  "mnist10-8k-learned")``; ``wirelab logic recipes`` lists them), a TOML file of your own, a
  run directory, a dict of options or a `TrainConfig`; an existing path wins over a name;
- the discrete network and its circuits: `discretize`, `DiscreteLogicNet` (of `DiscreteLayer` s),
  `to_circuit`, `export_c`, `export_verilog`, `verify`, `up5k`;
- the tables: the gates' `NAMES`, truth tables `TRUTH` and coefficients `COEFFS` (`NUM_GATES`
  = 16), and `TRAINING_SETS`, the datasets ``train`` reads by name (`TrainingSet`).

Quickstart (scikit-learn's 8 x 8 digits, about 5 s on one core):

```python
from wirelab.logic import discretize, export_c, train

result = train(dataset="digits", dense=[400, 400], tau=3.0, epochs=15, lr=0.05,
               batch_size=32, threads=1, quiet=True)
net = discretize(result.model)  # the Boolean network: one gate per neuron
print(f"discrete test accuracy {result.accuracy:.3f} with {net.gates} gates")
print("C classifier:", [p.name for p in export_c(net, "digits_c")])
```
"""

from wirelab.logic.circuit.backends.export import export_c, export_verilog, to_circuit
from wirelab.logic.datasets import TRAINING_SETS, TrainingSet
from wirelab.logic.discrete import DiscreteLayer, DiscreteLogicNet
from wirelab.logic.gates import COEFFS, NAMES, NUM_GATES, TRUTH
from wirelab.logic.recipe_registry import RECIPES
from wirelab.logic.spec import ConvBlock, ModelSpec

try:  # the layers, the model and training need torch (the `ml` extra); the discrete network,
    import torch as _torch  # its circuits and back ends do not (the report reads them without)
except ImportError:  # pragma: no cover - an install without torch
    pass
else:
    from wirelab.logic.api import (
        Trained,
        build_model,
        discretize,
        make_config,
        train,
        up5k,
        verify,
    )
    from wirelab.logic.config import TrainConfig
    from wirelab.logic.model import LogicNet
    from wirelab.logic.modules import Binarize, GroupSum, LogicLayer

    del _torch

__all__ = [
    "COEFFS",
    "NAMES",
    "NUM_GATES",
    "RECIPES",
    "TRAINING_SETS",
    "TRUTH",
    "Binarize",
    "ConvBlock",
    "DiscreteLayer",
    "DiscreteLogicNet",
    "GroupSum",
    "LogicLayer",
    "LogicNet",
    "ModelSpec",
    "TrainConfig",
    "Trained",
    "TrainingSet",
    "build_model",
    "discretize",
    "export_c",
    "export_verilog",
    "make_config",
    "to_circuit",
    "train",
    "up5k",
    "verify",
]
