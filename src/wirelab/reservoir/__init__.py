"""Connectome reservoir computing: a connectome as an echo state network, scored against nulls.

A connectome's weight matrix ``W[pre, post]`` (``W[i, j]``: synapses from neuron ``i`` onto
neuron ``j``) is normalised, scaled by a global gain ``alpha`` and run as the recurrent matrix of
an echo state network; row-vector states, so the recurrent drive of neuron ``j`` is
``(x @ W)[j]``. One step (`esn_step`; leaky integrate-and-fire units: `lif_step`):

    x(t+1) = (1 - a) x(t) + a f( alpha * x(t) @ W + s_in * u(t+1) @ W_in + b )

    x: (N,) states     W: (N, N) normalize(W_raw), [pre, post]     u: (K,) input
    W_in: (K, N) [channel, post], U[-1, 1] on the input population, 0 elsewhere
    f: tanh | linear | sigmoid    a: leak in (0, 1]    s_in: input scaling    b: (N,) bias

A linear readout of the output population's states (ridge, lambda by cross-validation) is
trained per task. A task's score is compared with the scores of null networks (degree-preserving
rewirings, random ESNs, ...) that see the same inputs, readout population and split: empirical
``p = (1 + #{nulls at least as good}) / (n + 1)`` and ``z`` (`stats`).

Quickstart (the larval connectome read out at its 182 descending neurons: how well a linear
readout recalls past inputs, then its memory capacity against 9 degree-preserving rewirings and
9 that also keep the sensory-motor boundary, docs/reservoir-nulls.md):

```python
import numpy as np
from wirelab.reservoir import build, compare, fit_readout

res = build("larva", alpha=1.0, outputs="DN-VNC")  # 2,952 neurons, 182 read out
u = np.random.default_rng(0).uniform(-0.8, 0.8, 2000)
x = res.run(u, washout=100)  # (1900, 182): the DN-VNC neurons' states
for k in (5, 10, 15, 20):  # recall the input k steps back, on held-out steps
    y = np.roll(u, k)[100:]
    r = np.corrcoef(fit_readout(x[:1500], y[:1500]).predict(x[1500:])[:, 0], y[1500:])[0, 1]
    print(f"recall of u(t-{k}): r = {r:.3f}")

mc = compare("larva", "memory-capacity", alphas=[1.0], outputs="DN-VNC", nulls=9, quick=True)
for family in mc.config.null_models:  # by default both: "degree" and "degree-boundary", 9 of each
    c = mc.against("memory-capacity", family)
    print(f"memory capacity {c.score:.2f}; {family} nulls {c.null_mean:.2f} +- {c.null_std:.2f}")
    print(f"  p = {c.p_value:.2f} (the smallest 9 nulls can give), z = {c.z:.1f}")
```

`compare` gives the numbers ``wirelab reservoir run`` writes for the same settings (here
``--task memory-capacity --alpha 1.0 --outputs DN-VNC --nulls 9 --quick``); both read one set of
defaults, `DEFAULTS` (an `ExperimentConfig`: input scaling 0.3, a random per-neuron bias
``U[-0.2, 0.2]`` drawn from the seed, row normalisation for synapse counts, every neuron read
out, 20 nulls of each default family: degree-preserving and boundary-preserving, the second left
out with a note on a connectome without cell classes; gains 0.2 .. 1.6). Tasks: `TASKS`; null
models: `NULLS`.
"""

from wirelab.reservoir.config import DEFAULTS, ExperimentConfig
from wirelab.reservoir.dynamics import Reservoir, RunResult
from wirelab.reservoir.network import ConnectomeReservoir, build
from wirelab.reservoir.nulls import NULLS, make_null
from wirelab.reservoir.populations import parse_population, population
from wirelab.reservoir.ridge import Readout, fit_readout
from wirelab.reservoir.scoring import Comparison, NullComparison, TaskScore, compare, score
from wirelab.reservoir.tasks import TASKS
from wirelab.reservoir.units import LIFState, LIFUnits, Units, esn_step, lif_step
from wirelab.reservoir.weights import (
    as_csr,
    from_edge_list,
    normalize,
    parse_alphas,
    reservoir_weights,
    spectral_radius,
)

__all__ = [
    "DEFAULTS",
    "NULLS",
    "TASKS",
    "Comparison",
    "ConnectomeReservoir",
    "ExperimentConfig",
    "LIFState",
    "LIFUnits",
    "NullComparison",
    "Readout",
    "Reservoir",
    "RunResult",
    "TaskScore",
    "Units",
    "as_csr",
    "build",
    "compare",
    "esn_step",
    "fit_readout",
    "from_edge_list",
    "lif_step",
    "make_null",
    "normalize",
    "parse_alphas",
    "parse_population",
    "population",
    "reservoir_weights",
    "score",
    "spectral_radius",
]
