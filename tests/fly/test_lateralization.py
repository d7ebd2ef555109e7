"""Lateralisation study: batched bootstrap equals one-at-a-time runs; mirror symmetry."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import requires_larva
from wirelab.data.connectomes import Connectome
from wirelab.fly.controller import ConnectomeController, ControllerConfig
from wirelab.fly.stimulation import lateralization as lat


@requires_larva
def test_replicate_zero_equals_the_controller_response(larva: Connectome) -> None:
    models = lat.build_models(larva, ["row"], n_nulls=0, mirror=False)
    resp = lat.response(larva, models, "olfactory", "left", [1.0], n_boot=3, steps=10, tail=1)
    assert resp.shape == (1, 1, 4, 2)
    ctrl = ConnectomeController(larva, ControllerConfig(modality="olfactory", normalize="row"))
    for _ in range(10):
        dn, _ = ctrl.update(np.array([1.0, 0.0]))
    np.testing.assert_allclose(resp[0, 0, 0], dn[0], rtol=1e-4)


@requires_larva
def test_study_rows_and_verdicts(larva: Connectome) -> None:
    models = lat.build_models(larva, ["row"], n_nulls=0, mirror=True)
    rows = lat.study(larva, models, ["olfactory"], [1.0], n_boot=20, steps=12)
    assert len(rows) == 2
    conn, mirr = rows
    assert conn["ci_low"] <= conn["ci_high"]
    assert conn["verdict"] in ("ipsilateral", "contralateral", "undetermined")
    # mirroring the hemispheres swaps the roles of the sides: LI after left stimulation of the
    # mirror equals minus LI after right stimulation of the connectome (all paired neurons)
    assert mirr["li_left_stim"] == pytest.approx(-conn["li_right_stim"], abs=0.02)
    summary = lat.summarize(rows)
    assert summary[0]["mirror_contrast"] == mirr["contrast"]
