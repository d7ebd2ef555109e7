"""The choice study's shortcut fractions: each cue's class, the connectome against a family."""

from __future__ import annotations

import pytest

from tests.conftest import requires_larva
from wirelab.data.connectomes import Connectome
from wirelab.fly.choice.shortcuts import network_shortcuts, summarize
from wirelab.reservoir.nulls import NULLS


@requires_larva
def test_plain_nulls_add_olfactory_shortcuts_boundary_nulls_keep_them(larva: Connectome) -> None:
    classes = ("olfactory", "visual")
    conn = network_shortcuts(larva, None, classes)
    assert set(conn) == {"sensory", *classes}
    results = {"connectome": {"shortcuts": conn}}
    for family in ("degree", "degree-boundary"):
        make = NULLS.get(family)
        nulls = {
            f"null-{s}": {"shortcuts": network_shortcuts(larva, make(larva, s), classes)}
            for s in (1, 2)
        }
        summary = summarize(results | nulls)
        assert summary["connectome"] == conn
        one_hop = summary["nulls"]["olfactory"]["one_hop"]
        assert conn["olfactory"]["one_hop"] == 0  # no olfactory neuron synapses onto a DN-VNC
        if family == "degree-boundary":  # every class-to-class edge count kept: still none
            assert one_hop["max"] == 0 and one_hop["ratio"] is None
        else:  # a plain rewiring wires olfactory neurons straight onto DN-VNC neurons
            assert one_hop["min"] > 0.01
        within = summary["nulls"]["sensory"]["within_two"]
        assert within["min"] <= within["mean"] <= within["max"]
        assert within["ratio"] == pytest.approx(within["mean"] / conn["sensory"]["within_two"])
    assert "nulls" not in summarize(results)
