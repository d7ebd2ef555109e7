"""`wirelab.config_diff.changed_options`: the one "options differ" check of every ``--resume``."""

from __future__ import annotations

from wirelab.config_diff import changed_options, flatten


def test_nested_options_are_compared_by_dotted_name_and_sorted() -> None:
    saved = {"lr": 0.01, "model": {"tau": 5.0, "dense": [40, 40]}, "seed": 0}
    given = {"lr": 0.02, "model": {"tau": 5.0, "dense": [40, 60], "new": 1}, "seed": 0}
    assert changed_options(saved, given) == [
        "lr: 0.01 -> 0.02",
        "model.dense: [40, 40] -> [40, 60]",
        "model.new: None -> 1",
    ]
    assert changed_options(saved, saved) == []


def test_ignored_names_cover_everything_under_them() -> None:
    saved = {"workers": 1, "pool": {"size": 2}, "x": 1}
    given = {"workers": 2, "pool": {"size": 4}, "x": 1}
    assert changed_options(saved, given, ignore=("workers", "pool")) == []
    assert changed_options(saved, given, ignore=("pool.size",)) == ["workers: 1 -> 2"]


def test_lists_compare_whole_and_mappings_flatten() -> None:
    assert flatten({"a": {"b": {"c": 1}}, "d": [{"e": 2}]}) == {"a.b.c": 1, "d": [{"e": 2}]}
    assert flatten(3, "k") == {"k": 3}
