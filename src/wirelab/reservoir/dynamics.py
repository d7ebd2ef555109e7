"""`Reservoir`: M matrices x G gains x B input sequences advanced together, one call per step.

The stepped counterpart of `engine.run_blocks` (which runs whole input blocks of every task at
once): the fly's controller steps it, LIF units run through its reference loop, and its helpers
(`weight_matrices`, `gain_vector`, `state_dtype`, `transposed_block_diagonal`,
`divergence_error`) check the inputs and build the product for both.

The units and their reference single-step updates (`esn_step`, `lif_step`, equations there) are in
`wirelab.reservoir.units`. `Reservoir` advances M weight matrices ``W[pre, post]`` (e.g. the
connectome and its nulls), G gains (alphas) and B input sequences as ONE sparse-times-dense
product per step::

    Z = Wt @ X        Wt: (M*N, M*N) block-diagonal of the W_m.T (rows post, columns pre)
                      X:  (M*N, G*B) the states, column (g, b) of model m in rows m*N .. m*N+N-1

followed by the gain, input drive, bias, activation and leak of `esn_step`, in place on ``Z``.
Its public state has shape ``(M, G, B, N)``; recorded traces have shape ``(T, M, G, B, P)`` for
the ``P`` recorded neurons. A NaN or inf raises `DivergenceError` naming the step and the
settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.errors import DivergenceError, UsageError
from wirelab.reservoir.units import LIFState, LIFUnits, Units, lif_step

RATE_UNITS = Units()


def _brief(value: Any) -> str:
    """A setting for a one-line message: arrays as their shape and range, not their values."""
    if isinstance(value, np.ndarray) and value.size > 4:
        return f"array{value.shape} in [{value.min():.3g}, {value.max():.3g}]"
    return str(value)


def weight_matrices(
    weights: sp.spmatrix | np.ndarray | Sequence[sp.spmatrix | np.ndarray],
) -> list[sp.csr_matrix]:
    """One matrix or a sequence of M, as float64 CSR ``(N, N)`` ``[pre, post]`` (all one N)."""
    single = sp.issparse(weights) or isinstance(weights, np.ndarray)
    mats: list[Any] = [weights] if single else list(weights)
    if not mats:
        raise UsageError("Reservoir needs at least one weight matrix")
    csr = [sp.csr_matrix(m, dtype=np.float64) for m in mats]
    n = csr[0].shape[0]
    for m in csr:
        if m.shape != (n, n):
            raise UsageError(f"every weight matrix must be ({n}, {n}) [pre, post], got {m.shape}")
    return csr


def gain_vector(alphas: float | Sequence[float] | np.ndarray) -> np.ndarray:
    """The G global gains as a finite float64 ``(G,)`` vector."""
    out = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
    if out.ndim != 1 or not np.all(np.isfinite(out)):
        raise UsageError("alphas must be a finite 1-D sequence")
    return out


def state_dtype(dtype: Any) -> np.dtype[Any]:
    """The state precision: float32 or float64."""
    out = np.dtype(dtype)
    if out not in (np.float32, np.float64):
        raise UsageError("dtype must be float32 or float64")
    return out


def transposed_block_diagonal(mats: Sequence[sp.csr_matrix], dtype: Any) -> sp.csr_matrix:
    """``Wt`` ``(M*N, M*N)``: the block-diagonal of the ``W_m.T`` (rows post, columns pre), in
    ``dtype`` with sorted indices, so ``Wt @ X`` advances every model's state columns at once."""
    wt = sp.block_diag([m.T for m in mats], format="csr", dtype=dtype)
    wt.sort_indices()
    return wt


def divergence_error(
    step: int,
    units: Units | LIFUnits,
    alphas: np.ndarray,
    settings: Mapping[str, Any],
    where: str = "",
) -> DivergenceError:
    """The one-line error of a NaN/inf state: the step, ``where`` (model and alpha, when known)
    and every setting (units, gains, ``settings``), arrays as their shape and range."""
    named = {**asdict(units), "alphas": [float(a) for a in alphas], **settings}
    text = ", ".join(f"{k}={_brief(v)}" for k, v in named.items())
    return DivergenceError(f"reservoir diverged (NaN/inf) at step {step}{where}; {text}")


@dataclass
class RunResult:
    """Recorded traces ``(T - washout, M, G, B, P)`` and the final public state."""

    states: np.ndarray
    final: Any
    recorded: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


class Reservoir:
    """M matrices x G gains x B input sequences, advanced together.

    Args:
        weights: one ``(N, N)`` matrix ``[pre, post]`` (normalised, without the gain) or a
            sequence of M of them (same N).
        w_in: ``(K, N)`` input weights ``[channel, post]``.
        alphas: the G global gains; model ``m`` at gain ``g`` uses ``alphas[g] * weights[m]``.
        units: `Units` (rate) or `LIFUnits` (spiking).
        batch: B, the number of input sequences run side by side.
        dtype: float32 (fast path) or float64.
        settings: extra key/values named in a `DivergenceError` (e.g. normalisation).
    """

    def __init__(
        self,
        weights: sp.spmatrix | np.ndarray | Sequence[sp.spmatrix | np.ndarray],
        w_in: np.ndarray,
        *,
        alphas: float | Sequence[float] | np.ndarray = 1.0,
        units: Units | LIFUnits = RATE_UNITS,
        batch: int = 1,
        dtype: Any = np.float32,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        csr = weight_matrices(weights)
        n = csr[0].shape[0]
        w_in = np.asarray(w_in, dtype=np.float64)
        if w_in.ndim == 1:
            w_in = w_in[None, :]
        if w_in.ndim != 2 or w_in.shape[1] != n:
            raise UsageError(f"w_in must be (K, N={n}) [channel, post], got {w_in.shape}")
        self.alphas = gain_vector(alphas)
        if batch < 1:
            raise UsageError(f"batch must be >= 1, got {batch}")
        self.n, self.m, self.g, self.b, self.k = n, len(csr), len(self.alphas), batch, w_in.shape[0]
        self.units = units
        self.dtype = state_dtype(dtype)
        self.spiking = isinstance(units, LIFUnits)
        self.settings = dict(settings or {})
        self.weights = csr
        self.w_in = w_in
        self._wt = transposed_block_diagonal(csr, self.dtype)
        self._win_t = np.ascontiguousarray(w_in.T, dtype=self.dtype)  # (N, K)
        self._gain = np.repeat(self.alphas, batch).astype(self.dtype)  # (G*B,)
        bias = getattr(units, "bias", 0.0)
        self._unit_gain = bool(np.all(self.alphas == 1.0))
        self._has_bias = bool(np.any(np.asarray(getattr(units, "bias", 0.0)) != 0))
        self._bias = np.broadcast_to(np.asarray(bias, dtype=self.dtype), (n,)).copy()

    # ---- layout helpers: public (M, G, B, N) <-> internal (M*N, G*B) ----
    @property
    def shape(self) -> tuple[int, int, int, int]:
        return (self.m, self.g, self.b, self.n)

    def zeros(self) -> Any:
        if self.spiking:
            return LIFState.zeros(self.shape, getattr(self.units, "v_rest", 0.0))
        return np.zeros(self.shape, dtype=self.dtype)

    def _to_internal(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=self.dtype)
        if x.shape != self.shape:
            raise UsageError(f"state must have shape (M, G, B, N)={self.shape}, got {x.shape}")
        return np.ascontiguousarray(x.transpose(0, 3, 1, 2).reshape(self.m * self.n, -1))

    def _to_public(self, x: np.ndarray) -> np.ndarray:
        return x.reshape(self.m, self.n, self.g, self.b).transpose(0, 2, 3, 1).copy()

    def _inputs(self, u: np.ndarray, steps: bool) -> np.ndarray:
        """Inputs as ``(T, B, K)`` (``steps``) or ``(B, K)``; a missing B axis is broadcast."""
        u = np.asarray(u, dtype=self.dtype)
        want = 3 if steps else 2
        if u.ndim == want - 1:
            u = np.broadcast_to(u[..., None, :], (*u.shape[:-1], self.b, u.shape[-1]))
        if steps and u.ndim == 1:
            u = u[:, None, None]
        if u.ndim != want or u.shape[-1] != self.k or u.shape[-2] != self.b:
            axes = "(T, B, K)" if steps else "(B, K)"
            raise UsageError(f"inputs must be {axes} with B={self.b}, K={self.k}, got {u.shape}")
        return np.ascontiguousarray(u)

    def _diverged(self, step: int, x: np.ndarray) -> DivergenceError:
        bad = ~np.isfinite(x)
        where = ""
        if bad.any():
            r, c = np.argwhere(bad)[0]
            where = f" (model {r // self.n}, alpha {self.alphas[c // self.b]:g})"
        return divergence_error(step, self.units, self.alphas, self.settings, where)

    # ---- one step ----
    def step(self, state: Any, u: np.ndarray) -> Any:
        """Pure batched step: ``state`` ``(M, G, B, N)`` or `LIFState`; ``u`` ``(B, K)``."""
        u = np.asarray(u, dtype=self.dtype)
        if u.ndim == 4:  # (M, G, B, K): per-model, per-gain inputs (closed-loop use)
            if u.shape != (self.m, self.g, self.b, self.k) or self.spiking:
                raise UsageError(
                    f"per-column inputs must be (M, G, B, K)={self.shape[:3]}"
                    f"+({self.k},) with rate units, got {u.shape}"
                )
            y = self._advance(self._to_internal(state), u)
            if not np.all(np.isfinite(y)):
                raise self._diverged(0, y)
            return self._to_public(y)
        ut = self._inputs(u, steps=False)  # (B, K)
        if self.spiking:
            return self._lif_advance(state, ut)
        x = self._to_internal(state)
        y = self._advance(x, ut)
        if not np.all(np.isfinite(y)):
            raise self._diverged(0, y)
        return self._to_public(y)

    def _advance(
        self, x: np.ndarray, ut: np.ndarray, drive: np.ndarray | None = None
    ) -> np.ndarray:
        """Internal ``(M*N, G*B)`` -> next state (no divergence check); ``ut`` ``(B, K)`` or
        ``(M, G, B, K)``, ``drive`` an optional precomputed ``W_in.T @ u`` ``(1, N, 1, B)``.

        In place on the product ``z = wt @ x`` ``(M*N, G*B)``, viewed as ``(M, N, G, B)``.
        """
        assert isinstance(self.units, Units)
        u = self.units
        m, n, g, b = self.m, self.n, self.g, self.b
        z = np.asarray(self._wt @ x)  # rows post, summed over pre
        z4 = z.reshape(m, n, g, b)
        if drive is not None:  # precomputed ``W_in.T @ u``: (1, N, 1, B)
            pass
        elif ut.ndim == 2:  # (B, K) shared by every model and gain
            drive = (self._win_t @ ut.T)[None, :, None, :]  # (1, N, 1, B)
        else:  # (M, G, B, K): one input per model, gain and sequence (closed loop)
            drive = np.einsum("nk,mgbk->mngb", self._win_t, ut)  # (M, N, G, B)
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is checked by the caller
            if not self._unit_gain:
                z4 *= self._gain.reshape(1, 1, g, b)
            z4 += u.input_scaling * drive
            if self._has_bias:
                z4 += self._bias.reshape(1, n, 1, 1)
            if u.activation == "tanh":
                np.tanh(z, out=z)
            elif u.activation == "sigmoid":
                np.negative(z, out=z)
                np.exp(z, out=z)
                z += 1.0
                np.reciprocal(z, out=z)
            if u.leak != 1.0:
                z *= u.leak
                z += (1.0 - u.leak) * x
            return z

    def _lif_advance(self, state: LIFState, ut: np.ndarray) -> LIFState:
        """Batched LIF step on the public layout ``(M, G, B, N)`` (scipy, loops over M and G)."""
        assert isinstance(self.units, LIFUnits)
        fields = ("v", "refractory", "spikes", "rate")
        new = {f: np.empty(self.shape) for f in fields}
        for m, w in enumerate(self.weights):
            for g, a in enumerate(self.alphas):
                sub = LIFState(*(getattr(state, f)[m, g] for f in fields))  # each (B, N)
                nxt = lif_step(w, sub, ut, self.w_in, self.units, alpha=float(a))
                for f in fields:
                    new[f][m, g] = getattr(nxt, f)
        return LIFState(**new)

    # ---- many steps ----
    def run(
        self,
        inputs: np.ndarray,
        *,
        record: Sequence[int] | np.ndarray | None = None,
        state0: Any = None,
        washout: int = 0,
        check_every: int = 25,
        lif_readout: str = "rate",
    ) -> RunResult:
        """Advance over ``inputs`` ``(T, B, K)`` (or ``(T, K)`` shared by the batch, or ``(T,)``).

        Records only the neurons in ``record`` (default all), for steps ``t >= washout``:
        ``states`` has shape ``(T - washout, M, G, B, P)``. For LIF units ``lif_readout`` picks
        the rate trace ``r`` or the spikes (summing them over a window gives spike counts).
        """
        u = self._inputs(inputs, steps=True)  # (T, B, K)
        steps = u.shape[0]
        if not 0 <= washout <= steps:
            raise UsageError(f"washout must be in [0, T={steps}], got {washout}")
        rec_idx = (
            np.arange(self.n, dtype=np.int64)
            if record is None
            else np.asarray(record, dtype=np.int64).ravel()
        )
        if rec_idx.size == 0 or rec_idx.min() < 0 or rec_idx.max() >= self.n:
            raise UsageError(f"record must be non-empty indices in [0, {self.n})")
        p = rec_idx.size
        if self.spiking:
            if lif_readout not in ("rate", "spikes"):
                raise UsageError(f"lif_readout must be 'rate' or 'spikes', not {lif_readout!r}")
            return self._run_lif(u, rec_idx, state0, washout, lif_readout)
        x = self._to_internal(self.zeros() if state0 is None else state0)
        rows = (np.arange(self.m)[:, None] * self.n + rec_idx[None, :]).ravel()  # (M*P,)
        rec = np.empty((steps - washout, self.m * p, self.g * self.b), dtype=self.dtype)
        full = rows.size == x.shape[0]  # recording every row: a plain copy
        chunk = 256
        for t0 in range(0, steps, chunk):
            # input drive for a block of steps at once: (T_c, N, B)
            drives = np.einsum("tbk,nk->tnb", u[t0 : t0 + chunk], self._win_t)
            for t in range(t0, min(t0 + chunk, steps)):
                x = self._advance(x, u[t], drives[t - t0][None, :, None, :])
                if t >= washout:
                    if full:
                        rec[t - washout] = x
                    else:
                        np.take(x, rows, axis=0, out=rec[t - washout])
                if ((t + 1) % check_every == 0 or t == steps - 1) and not np.all(np.isfinite(x)):
                    raise self._diverged(t, x)
        states = rec.reshape(-1, self.m, p, self.g, self.b).transpose(0, 1, 3, 4, 2)
        return RunResult(states, self._to_public(x), rec_idx)

    def _run_lif(
        self, u: np.ndarray, rec_idx: np.ndarray, state0: Any, washout: int, field_name: str
    ) -> RunResult:
        """LIF run recording the rate trace or the 0/1 spikes (sum over a window for counts)."""
        st = self.zeros() if state0 is None else state0
        out = np.empty((u.shape[0] - washout, self.m, self.g, self.b, rec_idx.size), self.dtype)
        for t in range(u.shape[0]):
            st = self._lif_advance(st, u[t])
            if not np.all(np.isfinite(st.v)):
                raise self._diverged(t, self._to_internal(st.v))
            if t >= washout:
                out[t - washout] = getattr(st, field_name)[..., rec_idx]
        return RunResult(out, st, rec_idx)
