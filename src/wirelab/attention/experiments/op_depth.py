"""Sequential depth measured by tracing: the longest chain of dependent tensor operations.

A `TorchDispatchMode` sees every ATen operation a forward call runs (after torch's own
decompositions: the fused RNN loop, for example, shows up as its per-step matrix products and
``tanh``). Each tensor storage carries the depth of the operation that last wrote it; an
operation's depth is

    depth(op) = 1 + max(depth(s) for s in the storages it reads)     (0 when it reads no tensor)

and the layer's sequential depth is the maximum over its operations. View operations (``view``,
``transpose``, ``select``, ...) compute nothing and pass the depth of their input on unchanged.
Operations with no dependency between them can run in parallel, so this depth, not the
operation count, is what no amount of hardware shortens: O(1) in n means it stays constant as the
sequence grows, O(n) that it grows linearly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

__all__ = ["DepthTracer", "op_depth"]


def _tensors(tree: Any) -> list[torch.Tensor]:
    return [t for t in tree_flatten(tree)[0] if isinstance(t, torch.Tensor)]


class DepthTracer(TorchDispatchMode):
    """Records ``depth`` (longest dependent chain so far) and ``ops`` (operations seen)."""

    def __init__(self) -> None:
        super().__init__()
        self._written: dict[int, int] = {}  # storage data pointer -> depth of its last writer
        self.depth = 0
        self.ops = 0

    def _depth_of(self, t: torch.Tensor) -> int:
        return self._written.get(t.untyped_storage().data_ptr(), 0)

    def __torch_dispatch__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        out = func(*args, **(kwargs or {}))
        inputs = _tensors((args, kwargs))
        depth = max((self._depth_of(t) for t in inputs), default=0)
        if inputs and not func.is_view:
            depth += 1
            self.ops += 1
        for t in _tensors(out):  # in-place and out= results are among the outputs too
            self._written[t.untyped_storage().data_ptr()] = depth
        self.depth = max(self.depth, depth)
        return out


def op_depth(fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> int:
    """The longest chain of dependent ATen operations in ``fn(x)`` (under ``no_grad``)."""
    with torch.no_grad(), DepthTracer() as tracer:
        fn(x)
    return tracer.depth
