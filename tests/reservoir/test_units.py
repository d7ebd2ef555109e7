"""Units: the bias specification (constant or random per neuron) and the finite-value checks."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from wirelab.errors import UsageError
from wirelab.reservoir import Reservoir
from wirelab.reservoir.units import BiasSpec, LIFUnits, Units, esn_step, parse_bias


def test_bias_specs_parse_to_a_canonical_form_that_reads_back() -> None:
    for spec, want in [
        ("0.2", "0.2"),
        (0.0, "0"),
        ("random", "random:1"),
        ("random:0.25", "random:0.25"),
        (" RANDOM:1e-1 ", "random:0.1"),
    ]:
        got = parse_bias(spec)
        assert str(got) == want and parse_bias(str(got)) == got


@pytest.mark.parametrize(
    "spec", ["nan", "inf", "random:nan", "random:-1", "random:", "x", "0.1:2", "1e400"]
)
def test_bad_bias_specs_are_one_line_errors(spec: str) -> None:
    with pytest.raises(UsageError, match="bias"):
        parse_bias(spec)


def test_a_random_bias_is_seeded_uniform_per_neuron_and_the_same_for_every_network() -> None:
    spec = parse_bias("random:0.5")
    b = spec.vector(20_000, seed=3)
    assert isinstance(b, np.ndarray) and b.shape == (20_000,)
    assert -0.5 <= b.min() < -0.49 and 0.49 < b.max() <= 0.5
    assert abs(b.mean()) < 0.01 and b.std() == pytest.approx(0.5 / np.sqrt(3), rel=0.02)
    np.testing.assert_array_equal(b, spec.vector(20_000, seed=3))
    assert not np.array_equal(b[:100], spec.vector(100, seed=4))
    np.testing.assert_array_equal(b[:100], spec.vector(100, seed=3))  # prefix: same neurons
    assert BiasSpec("constant", 0.2).vector(5, seed=0) == 0.2


def test_units_refuse_non_finite_settings() -> None:
    with pytest.raises(UsageError, match="input scaling"):
        Units(input_scaling=float("nan"))
    with pytest.raises(UsageError, match="bias"):
        Units(bias=np.array([0.0, np.inf]))
    with pytest.raises(UsageError, match="bias"):
        LIFUnits(bias=float("nan"))


def test_the_engine_applies_a_per_neuron_bias_like_the_reference_step() -> None:
    rng = np.random.default_rng(0)
    n = 30
    w = sp.random(n, n, density=0.2, random_state=1, format="csr") * 0.3
    w_in = rng.uniform(-1, 1, (1, n))
    units = Units("tanh", leak=0.5, input_scaling=0.3, bias=parse_bias("random:0.5").vector(n, 0))
    u = rng.uniform(-1, 1, (40, 1))
    run = Reservoir(w, w_in, alphas=[0.9], units=units, dtype=np.float64).run(u)
    x = np.zeros(n)
    for t in range(40):
        x = esn_step(w, x, u[t], w_in, units, alpha=0.9)
        np.testing.assert_allclose(run.states[t, 0, 0, 0], x, rtol=1e-12, atol=1e-12)
    # an odd function without bias: u -> -u gives x -> -x; the bias breaks the symmetry
    zero = Units("tanh", input_scaling=0.3)
    pos = Reservoir(w, w_in, units=zero, dtype=np.float64).run(u).states
    neg = Reservoir(w, w_in, units=zero, dtype=np.float64).run(-u).states
    np.testing.assert_allclose(pos, -neg, atol=1e-12)
    neg_b = Reservoir(w, w_in, units=units, dtype=np.float64).run(-u).states
    assert np.abs(run.states + neg_b).max() > 0.1
