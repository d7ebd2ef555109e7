from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from wirelab.errors import DivergenceError, UsageError
from wirelab.reservoir.dynamics import Reservoir
from wirelab.reservoir.units import LIFState, LIFUnits, Units, esn_step, lif_step
from wirelab.reservoir.weights import normalize


def _random(n: int = 40, seed: int = 0) -> tuple[sp.csr_matrix, np.ndarray]:
    rng = np.random.default_rng(seed)
    w = sp.random(n, n, density=0.15, random_state=seed, data_rvs=rng.standard_normal)
    w_in = rng.uniform(-1, 1, (2, n)) * (rng.random((2, n)) < 0.3)
    return normalize(w, "spectral"), w_in


def _reference_run(w, w_in, u, units, alpha):  # type: ignore[no-untyped-def]
    x = np.zeros(w.shape[0])
    out = []
    for t in range(u.shape[0]):
        x = esn_step(w, x, u[t], w_in, units, alpha)
        out.append(x)
    return np.array(out)


def test_step_orientation_is_pre_to_post() -> None:
    # one edge 0 -> 1: activity in 0 must drive 1, never the reverse
    w = sp.csr_matrix(([1.0], ([0], [1])), shape=(2, 2))
    x = esn_step(w, np.array([1.0, 0.0]), np.zeros(1), np.zeros((1, 2)), Units("linear"))
    np.testing.assert_allclose(x, [0.0, 1.0])
    r = Reservoir(w, np.zeros((1, 2)), units=Units("linear"))
    np.testing.assert_allclose(r.step(np.array([[[[1.0, 0.0]]]]), np.zeros(1))[0, 0, 0], [0, 1])


@pytest.mark.parametrize("activation", ["tanh", "linear", "sigmoid"])
def test_batched_engine_matches_reference_step(activation: str) -> None:
    w1, w_in = _random(seed=1)
    w2, _ = _random(seed=2)
    units = Units(activation, leak=0.7, input_scaling=0.5, bias=0.1)
    alphas = [0.4, 0.8]
    rng = np.random.default_rng(3)
    u = rng.uniform(-1, 1, (30, 3, 2))  # (T, B, K)
    res = Reservoir([w1, w2], w_in, alphas=alphas, units=units, batch=3, dtype=np.float64)
    run = res.run(u, record=[0, 5, 7], washout=4)
    assert run.states.shape == (26, 2, 2, 3, 3)  # (T - washout, M, G, B, P)
    for m, w in enumerate((w1, w2)):
        for g, a in enumerate(alphas):
            for b in range(3):
                ref = _reference_run(w, w_in, u[:, b], units, a)
                np.testing.assert_allclose(run.states[:, m, g, b], ref[4:, [0, 5, 7]], atol=1e-12)
    # step-by-step through the public step equals the fused run
    st = res.zeros()
    for t in range(30):
        st = res.step(st, u[t])
    np.testing.assert_allclose(st, run.final, atol=1e-9)


def test_float32_fast_path_agrees_with_float64_reference() -> None:
    w, w_in = _random(60, seed=4)
    u = np.random.default_rng(5).uniform(-1, 1, (200, 2))
    fast = Reservoir(w, w_in, alphas=[0.9, 1.1], batch=1).run(u)
    ref = Reservoir(w, w_in, alphas=[0.9, 1.1], dtype=np.float64).run(u)
    assert fast.states.dtype == np.float32
    np.testing.assert_allclose(fast.states, ref.states, atol=2e-5)


def test_divergence_names_step_and_settings() -> None:
    w, w_in = _random(seed=6)
    res = Reservoir(
        w,
        w_in,
        alphas=[0.5, 50.0],
        units=Units("linear"),
        settings={"normalize": "spectral"},
    )
    u = np.ones((2000, 2))
    with pytest.raises(DivergenceError, match=r"at step \d+.*alpha 50.*normalize=spectral"):
        res.run(u)


def test_lif_spikes_refractory_and_rate() -> None:
    w = sp.csr_matrix((2, 2))
    units = LIFUnits(tau=5.0, v_th=1.0, refractory=3, tau_rate=4.0, input_scaling=1.0)
    st = LIFState.zeros((2,))
    spikes = []
    for _ in range(30):
        st = lif_step(w, st, np.array([0.6]), np.array([[1.0, 0.0]]), units)
        spikes.append(st.spikes.copy())
    s = np.array(spikes)[:, 0]
    times = np.flatnonzero(s)
    assert times.size >= 3 and np.all(np.diff(times) >= 4)  # at least refractory + 1 apart
    assert np.all(np.array(spikes)[:, 1] == 0)
    # batched engine, spiking units, rate readout
    res = Reservoir(w, np.array([[1.0, 0.0]]), units=units, alphas=[1.0, 2.0])
    run = res.run(np.full((30, 1), 0.6))
    assert run.states.shape == (30, 1, 2, 1, 2)
    assert run.states[-1, 0, 0, 0, 0] > 0 and run.states[-1, 0, 0, 0, 1] == 0
    spikes = res.run(np.full((30, 1), 0.6), lif_readout="spikes").states[:, 0, 0, 0, 0]
    np.testing.assert_array_equal(spikes, s)  # the same spike train as the pure lif_step
    with pytest.raises(UsageError, match="lif_readout"):
        res.run(np.full((3, 1), 0.6), lif_readout="voltage")


def test_lif_recurrent_spikes_propagate_pre_to_post() -> None:
    w = sp.csr_matrix(([2.0], ([0], [1])), shape=(2, 2))
    st = LIFState.zeros((2,))
    units = LIFUnits(refractory=0, input_scaling=1.0)
    st = lif_step(w, st, np.array([2.0]), np.array([[1.0, 0.0]]), units)
    assert st.spikes.tolist() == [1.0, 0.0]
    st = lif_step(w, st, np.array([0.0]), np.array([[1.0, 0.0]]), units)
    assert st.spikes.tolist() == [0.0, 1.0]


def test_bad_shapes_raise_usage_errors() -> None:
    w, w_in = _random()
    with pytest.raises(UsageError, match="w_in"):
        Reservoir(w, w_in[:, :5])
    with pytest.raises(UsageError, match="every"):
        Reservoir([w, sp.eye(3)], w_in)
    res = Reservoir(w, w_in, batch=2)
    with pytest.raises(UsageError, match=r"\(T, B, K\)"):
        res.run(np.zeros((10, 3, 2)))
    with pytest.raises(UsageError, match="record"):
        res.run(np.zeros((10, 2)), record=[])
    with pytest.raises(UsageError, match="leak"):
        Units(leak=0.0)


def test_a_divergence_with_a_per_neuron_bias_is_one_line() -> None:
    """The error names the settings; a per-neuron bias appears as its shape and range."""
    n = 50
    w = sp.random(n, n, density=0.3, format="csr", random_state=0) * 50
    bias = np.linspace(-1.0, 1.0, n)
    res = Reservoir(w, np.ones((1, n)), alphas=[1e30], units=Units("linear", 1.0, 1.0, bias))
    with pytest.raises(DivergenceError) as info:
        res.run(np.ones((400, 1)))
    text = str(info.value)
    assert len(text.splitlines()) == 1 and "bias=array(50,) in [-1, 1]" in text
