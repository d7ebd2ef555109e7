"""wirelab: three ways of wiring a neural computer.

1. Borrowed wiring: a real connectome as the fixed recurrent matrix of a reservoir
   (`wirelab.reservoir`), driving a simulated fly body (`wirelab.fly`).
2. Learned logic: differentiable logic gate networks that become Boolean circuits (`wirelab.logic`).
3. Data-dependent wiring: attention (`wirelab.attention`).

Data come through `wirelab.data`; every experiment writes a result directory (`wirelab.results`).
`__version__` is the installed version. Each package's docstring has its own quickstart; this one
checks the install and the data layer:

```python
import wirelab
from wirelab.data import load_connectome

print("wirelab", wirelab.__version__)
larva = load_connectome("larva")  # from $WIRELAB_DATA_DIR, or downloaded and checksummed
print(f"larval connectome: {larva.n} neurons, {larva.weights.nnz} edges")
```
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("wirelab")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
