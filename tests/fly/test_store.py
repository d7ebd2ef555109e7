"""`wirelab.fly.store`, the one resumable study store: an item is reused only when it reads back
with the fingerprint asked for; anything else (absent, unreadable, other fingerprint) reruns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wirelab.errors import UsageError, WirelabError
from wirelab.fly.store import (
    fingerprint,
    item_path,
    load_item,
    resumable_experiment,
    save_item,
)


def test_an_item_reads_back_only_with_its_fingerprint(tmp_path: Path) -> None:
    key = fingerprint({"seed": 1, "mapping": (1.0, 2.0)}, np.arange(3.0))
    assert key == fingerprint({"mapping": [1.0, 2.0], "seed": 1}, np.arange(3.0))
    assert key != fingerprint({"seed": 1, "mapping": (1.0, 2.0)}, np.arange(3.0, dtype=np.float32))
    arrays = {"time": np.linspace(0, 1, 5), "frames": np.zeros((2, 4, 4, 3), np.uint8)}
    save_item(tmp_path, "row_left_0", key, {"turn": 1.5, "n": np.int64(3)}, arrays)
    record, back = load_item(tmp_path, "row_left_0", key) or ({}, {})
    assert record == {"turn": 1.5, "n": 3}
    assert back.keys() == arrays.keys() and all(np.array_equal(back[k], arrays[k]) for k in arrays)
    assert load_item(tmp_path, "row_left_0", "other") is None
    assert load_item(tmp_path, "absent", key) is None
    item_path(tmp_path, "row_left_0").write_bytes(b"not a zip")
    assert load_item(tmp_path, "row_left_0", key) is None
    assert [p.name for p in tmp_path.iterdir()] == ["row_left_0.npz"]  # no temporary left
    with pytest.raises(ValueError):
        save_item(tmp_path, "x", key, {}, {"meta": np.zeros(1)})


def test_resume_refuses_changed_settings_and_a_fresh_start_clears_saved_work(
    tmp_path: Path,
) -> None:
    out = tmp_path / "study"
    config = {"duration": 0.3, "workers": 2, "mapping": {"gain": 1.0}}
    with (
        pytest.raises(WirelabError),
        resumable_experiment(out, "test", config, "runs") as (rd, store),
    ):
        save_item(store, "a", "k", {}, {"x": np.zeros(1)})
        raise WirelabError("stopped after one item")  # a study that stopped part way
    assert (out / "runs" / "a.npz").is_file()
    changed = {**config, "mapping": {"gain": 2.0}}
    refused = pytest.raises(UsageError, match=r"mapping.gain: 1.0 -> 2.0")
    with refused, resumable_experiment(out, "test", changed, "runs", resume=True):
        pass
    fewer_workers = {**config, "workers": 1}
    with resumable_experiment(out, "test", fewer_workers, "runs", resume=True) as (rd, store):
        assert load_item(store, "a", "k") is not None  # workers may change on a resume
        rd.finish({})
    complete = pytest.raises(UsageError, match="complete run")
    with complete, resumable_experiment(out, "test", fewer_workers, "runs", resume=True):
        pass  # a finished study: nothing to resume, nothing changed
    with resumable_experiment(out, "test", config, "runs", overwrite=True) as (rd, store):
        assert not list(store.glob("*.npz"))
        rd.finish({})
    nothing = pytest.raises(UsageError, match="nothing to resume")
    with nothing, resumable_experiment(tmp_path / "none", "test", config, "runs", resume=True):
        pass
