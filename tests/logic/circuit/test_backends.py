"""The python (packed, level-at-a-time) and C back ends against the unpacked reference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.logic.circuit.conftest import all_input_bits, circuits, reference_outputs
from wirelab.logic.circuit.backends.c import build
from wirelab.logic.circuit.backends.python import PyEvaluator, evaluate_words_reference
from wirelab.logic.circuit.groupsum import count_bits, decode_counts, with_groupsum
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.pack import pack_bits, unpack_bits
from wirelab.logic.circuit.passes import simplify
from wirelab.logic.circuit.synthetic import random_net


def random_bits(batch: int, n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random((batch, n)) < 0.5


@settings(max_examples=60, deadline=None)
@given(circuits(), st.integers(1, 200), st.integers(0, 5))
def test_python_backends_agree_with_reference(c: Circuit, batch: int, seed: int) -> None:
    bits = random_bits(batch, c.num_inputs, seed)
    ref = reference_outputs(c, bits)
    np.testing.assert_array_equal(PyEvaluator(c).forward_bits(bits), ref)
    words = pack_bits(bits, 32)
    np.testing.assert_array_equal(unpack_bits(evaluate_words_reference(c, words), batch), ref)
    np.testing.assert_array_equal(unpack_bits(PyEvaluator(c).evaluate_words(words), batch), ref)


@settings(max_examples=40, deadline=None)
@given(circuits(max_inputs=8, max_gates=10), st.integers(1, 9))
def test_groupsum_adders_count_bits(c: Circuit, group: int) -> None:
    # Make every node an output, grouped into classes of `group` bits.
    n = (c.num_nodes // group) * group
    if n == 0:
        return
    c = c.replace(outputs=np.arange(n), num_classes=n // group)
    ext, nb = with_groupsum(c)
    assert nb == count_bits(group) == max(1, group.bit_length())
    bits = all_input_bits(min(c.num_inputs, 8))
    out = PyEvaluator(ext).forward_bits(bits)
    np.testing.assert_array_equal(out[:, :n], reference_outputs(c, bits))
    counts = decode_counts(out[:, n:], c.num_classes, nb)
    np.testing.assert_array_equal(counts, c.counts_from_bits(out[:, :n]))


# ---- C ------------------------------------------------------------------------------------------
def check_c(c: Circuit, tmp: Path, batch: int, **kw: Any) -> None:
    lib, _ = build(c, tmp, **kw)
    bits = random_bits(batch, c.num_inputs, batch)
    out, counts = lib.forward_bits(bits)
    ref = reference_outputs(c, bits)
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(counts, c.counts_from_bits(ref))


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    circuits(),
    st.integers(1, 300),
    st.sampled_from([(64, 1), (32, 1), (8, 1), (64, 4)]),
)
def test_c_agrees_with_reference_on_random_circuits(
    tmp_path: Path, c: Circuit, batch: int, word: tuple[int, int]
) -> None:
    check_c(c, tmp_path / f"c{batch}", batch, word_bits=word[0], lanes=word[1])


@pytest.mark.parametrize("batch", [1, 63, 64, 65, 200])
def test_c_batches_that_do_not_fill_a_word(tmp_path: Path, batch: int) -> None:
    c = Circuit.from_net(random_net([40, 20, 6], features=7, thermometer=2, num_classes=3))
    check_c(c, tmp_path, batch, lanes=2)


def test_c_edge_cases(tmp_path: Path) -> None:
    # Outputs that are constants and inputs, constant gates, one-output classes, unused inputs.
    c = Circuit(
        num_inputs=3,
        op=np.array([0, 15, 6, 12], np.uint8),
        a=np.array([2, 2, 2, 6], np.int64),
        b=np.array([2, 3, 0, 6], np.int64),
        outputs=np.array([0, 1, 2, 5, 6, 7, 8, 4], np.int64),
        num_classes=8,
        thresholds=np.full((3, 1), 0.5),
    )
    check_c(c, tmp_path / "raw", 70)
    check_c(simplify(c)[0], tmp_path / "simple", 70)
    empty = Circuit(
        0,
        np.zeros(0, np.uint8),
        np.zeros(0, np.int64),
        np.zeros(0, np.int64),
        np.array([0, 1]),
        num_classes=2,
    )
    check_c(empty, tmp_path / "empty", 5)


def test_c_classify_matches_the_discrete_net(tmp_path: Path) -> None:
    net = random_net([60, 60, 30], features=12, thermometer=3, num_classes=3, tau=2.0, seed=5)
    c, _ = simplify(Circuit.from_net(net))
    lib, built = build(c, tmp_path, lanes=4)
    assert built.seconds > 0 and built.library.is_file()
    x = np.random.default_rng(2).random((333, 12))
    pred, counts = lib.classify(x)
    np.testing.assert_array_equal(counts / net.tau, net.scores(x))
    np.testing.assert_array_equal(pred, net.predict(x))
    src = (tmp_path / "wl_model.c").read_text()
    assert "malloc" not in src and "calloc" not in src


def test_c_pixel_path_equals_the_float_path(tmp_path: Path) -> None:
    net = random_net([50, 30], features=20, thermometer=3, num_classes=2, seed=9)
    # thresholds on the pixel grid p / 255 and between grid points: both must match exactly
    thr = np.sort(np.random.default_rng(1).integers(0, 256, (20, 3)) / 255.0, axis=1)
    thr[:, 0] = np.round(thr[:, 0] * 255) / 255 + 1e-9
    net = type(net)(thr, net.layers, 2, 1.0)
    c = Circuit.from_net(net)
    lib, _ = build(c, tmp_path, pixel_scale=255.0)
    px = np.random.default_rng(3).integers(0, 256, (300, 20)).astype(np.uint8)
    pixels = np.concatenate([px, np.repeat(np.arange(256, dtype=np.uint8)[:, None], 20, 1)])
    x = (pixels.astype(np.float32) / np.float32(255.0)).astype(np.float64)
    pred_u8, counts_u8 = lib.classify_u8(pixels)
    pred_f, counts_f = lib.classify(x)
    np.testing.assert_array_equal(counts_u8, counts_f)
    np.testing.assert_array_equal(counts_f, c.counts_from_bits(net.forward_bits(net.binarize(x))))
    np.testing.assert_array_equal(pred_u8, pred_f)


@pytest.mark.skipif(
    "avx2" not in (Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""),
    reason="needs an x86 CPU with AVX2",
)
def test_c_vector_words_accept_unaligned_buffers(tmp_path: Path) -> None:
    # numpy guarantees only 8- or 16-byte alignment; 4 x 64-bit vectors need 32 bytes unless
    # the generated type lowers its alignment (a general protection fault otherwise).
    c = Circuit.from_net(random_net([64, 32, 8], features=10, num_classes=2, seed=1))
    lib, _ = build(c, tmp_path, lanes=4, extra_flags=("-mavx2",))
    bits = random_bits(256 * 3, c.num_inputs)
    ref = reference_outputs(c, bits)
    words = pack_bits(bits)  # (I, 12)

    def shifted(shape: tuple[int, int], offset: int, fill: np.ndarray | None = None) -> np.ndarray:
        arr = np.zeros(shape[0] * shape[1] + offset, np.uint64)[offset:].reshape(shape)
        if fill is not None:
            arr[:] = fill
        return arr

    for offset in (1, 2, 3):
        inw = shifted((words.shape[0], words.shape[1]), offset, words)
        out = shifted((c.num_outputs, words.shape[1]), offset)
        cnt = shifted((c.num_classes * lib.src.count_bits, words.shape[1]), offset)
        lib._eval_batch(inw, words.shape[1] // 4, out, cnt)
        np.testing.assert_array_equal(unpack_bits(out, len(bits)), ref)
