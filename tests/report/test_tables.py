from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.report.htmlcheck import well_formed_errors
from wirelab.report.tables import fmt, headline, metrics_html, split_metrics


def test_fmt() -> None:
    assert fmt(0.123456) == "0.1235"
    assert fmt(3.0) == "3.0"
    assert fmt(12345678.0) == "1.235e+07"
    assert fmt(7) == "7"
    assert fmt(True) == "true"
    assert fmt(None) == "—"
    assert fmt(float("nan")) == "nan"
    assert fmt(list(range(100))).endswith("…")


def test_split_flattens_nested_objects_and_short_lists() -> None:
    s = split_metrics({"a": 1, "b": {"c": {"d": 2.5}}, "e": [1, 2], "f": "x"})
    assert s.scalars == [("a", 1), ("b.c.d", 2.5), ("e", "1, 2"), ("f", "x")]
    assert not s.records and not s.series


def test_split_records_union_of_keys_and_truncation() -> None:
    rows = [{"a": i} for i in range(50)] + [{"a": 50, "b": "late"}]
    s = split_metrics({"results": rows}, max_rows=10)
    (rec,) = s.records
    assert rec.key == "results" and rec.columns == ["a", "b"]
    assert rec.total == 51 and len(rec.rows) == 10
    html = metrics_html({"results": rows}, max_rows=10)
    assert "41 more rows of 51" in html
    assert html.count("<tr>") == 11  # header + 10 rows


def test_split_series_summarised() -> None:
    s = split_metrics({"trace": [float(i) for i in range(100)], "m": [[1, 2, 3], [4, 5, 6]]})
    trace, m = s.series
    assert trace.shape == (100,) and (trace.lo, trace.hi) == (0.0, 99.0)
    assert m.shape == (2, 3) and (m.lo, m.hi) == (1.0, 6.0)


def test_non_object_metrics_and_empty() -> None:
    assert split_metrics([1, 2]).scalars == [("value", "1, 2")]
    assert "empty" in metrics_html({})


def test_headline_prefers_numbers() -> None:
    assert headline({"name": "x", "acc": 0.9, "n": 3, "ok": True}) == [("acc", 0.9), ("n", 3)]


def test_text_is_escaped() -> None:
    html = metrics_html({"<b>": "<script>alert(1)</script>", "r": [{"<i>": "&"}]})
    assert "<script" not in html and "<b>" not in html and "<i>" not in html
    assert "&lt;script&gt;" in html


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=30,
)


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_any_json_renders_to_well_formed_html(value: object) -> None:
    value = json.loads(json.dumps(value))  # what json.load would give
    html = metrics_html(value)
    assert well_formed_errors("<!DOCTYPE html><html><body>" + html + "</body></html>") == []
    s = split_metrics(value)
    n_parts = len(s.scalars) + len(s.records) + len(s.series)
    assert n_parts >= 1 or value == {}


def test_wide_nested_object_becomes_one_row_table() -> None:
    counts = {f"g{i}": i for i in range(16)}
    s = split_metrics({"acc": 0.9, "gates_by_type": counts, "small": {"a": 1}})
    assert s.scalars == [("acc", 0.9), ("small.a", 1)]
    (rec,) = s.records
    assert rec.key == "gates_by_type" and rec.columns == list(counts) and rec.rows == [counts]


def test_object_of_objects_becomes_a_table_with_a_row_per_key() -> None:
    pops = {"CN": {"left": 50, "right": 50}, "KC": {"left": 73, "right": 71, "note": [1, 2]}}
    s = split_metrics({"larva": {"neurons": 2952, "populations": pops}})
    assert s.scalars == [("larva.neurons", 2952)]
    (rec,) = s.records
    assert rec.key == "larva.populations" and rec.columns == ["name", "left", "right", "note"]
    assert rec.rows[1] == {"name": "KC", "left": 73, "right": 71, "note": [1, 2]}
    # a single entry, or entries that are not all flat objects, stay flattened
    assert not split_metrics({"by": {"row": {"a": 1}}}).records
    assert not split_metrics({"x": {"a": {"b": {"c": 1}}, "d": {"e": 2}}}).records


def test_empty_key_is_kept() -> None:
    """A key that is the empty string is still a key (found by the property test above)."""
    assert split_metrics({"": {}}).scalars == [("", "{}")]
    assert split_metrics({"": {"a": 1}}).scalars == [(".a", 1)]
