"""wirelab: three ways of wiring a neural computer.

1. Borrowed wiring: a real connectome as the fixed recurrent matrix of a reservoir
   (`wirelab.reservoir`), driving a simulated fly body (`wirelab.fly`).
2. Learned logic: differentiable logic gate networks that become Boolean circuits (`wirelab.logic`).
3. Data-dependent wiring: attention (`wirelab.attention`).

Data come through `wirelab.data`; every experiment writes a result directory (`wirelab.results`).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("wirelab")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
