"""The pure helpers of TEPAStore: filters, namespace conditions, cosine scores."""

from __future__ import annotations

import pytest
from langgraph.store.base import MatchCondition

from langchain_tepa import InvalidArgumentError
from langchain_tepa.store.queries import matches_condition, matches_filter, validate_filter


@pytest.mark.parametrize(
    "flt",
    [
        "status",
        {1: "x"},
        {"a": {"$in": [1]}},
        {"a": {"$gt": 1, "b": 2}},
        {"a": {"$lt": "abc"}},
        {"a": {"b": {"$regex": "x"}}},
        {"a": [{"$nope": 1}]},
    ],
)
def test_bad_filters(flt: object) -> None:
    with pytest.raises(InvalidArgumentError):
        validate_filter(flt)


def test_filter_semantics() -> None:
    value = {"n": 5, "s": "7", "flag": True, "nested": {"x": [1, 2]}}
    assert matches_filter(value, None)
    assert matches_filter(value, {"n": {"$gte": 5, "$lt": 6}})
    assert matches_filter(value, {"s": {"$gt": 6.5}})  # numeric strings compare as numbers
    assert matches_filter(value, {"flag": {"$gte": 1}})  # True is 1, as float(True)
    assert matches_filter(value, {"nested": {"x": [1, 2]}})
    assert not matches_filter(value, {"nested": {"x": [1]}})
    assert not matches_filter(value, {"nested": "x"})
    assert not matches_filter(value, {"missing": {"$lt": 1}})
    assert matches_filter(value, {"missing": {"$ne": 1}})


def test_match_conditions() -> None:
    ns = ("a", "b", "c")
    assert matches_condition(MatchCondition("prefix", ("a", "*")), ns)
    assert matches_condition(MatchCondition("suffix", ("b", "c")), ns)
    assert not matches_condition(MatchCondition("suffix", ("a", "b", "c", "d")), ns)
    with pytest.raises(InvalidArgumentError):
        matches_condition(MatchCondition("middle", ("a",)), ns)  # type: ignore[arg-type]
