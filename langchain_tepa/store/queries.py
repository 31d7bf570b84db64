"""Pure helpers of :class:`~langchain_tepa.store.TEPAStore`: filters and namespaces.

The filter semantics mirror LangGraph's ``InMemoryStore`` (``$eq $ne $gt $gte $lt $lte`` and
plain equality on top-level value keys, nested dicts compared key by key, lists element by
element, a missing key reads as ``None``), with one deliberate change: an ordering operator on a
value that is not a number (or a numeric string) is no match instead of a ``TypeError`` or
``ValueError`` in the middle of a search (this is what the SQL-backed LangGraph stores do).

Example:
    >>> matches_filter({"score": 5, "kind": "a"}, {"score": {"$gt": 3}, "kind": "a"})
    True
    >>> matches_filter({"kind": "a"}, {"score": {"$gt": 3}})
    False
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.store.base import MatchCondition

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import safe_repr

__all__ = [
    "COMPARISON_OPERATORS",
    "matches_condition",
    "matches_filter",
    "validate_filter",
]

COMPARISON_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})
_ORDERING = frozenset({"$gt", "$gte", "$lt", "$lte"})
_MAX_DEPTH = 64  # nested dicts and lists in a filter: deeper would recurse past Python's limit


def _as_number(value: Any) -> float | None:
    """``float(value)`` as ``InMemoryStore`` computes it, or ``None`` when that would raise."""
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def validate_filter(flt: object, *, path: str = "filter", depth: int = 0) -> None:
    """Check a search filter before anything runs.

    Raises:
        InvalidArgumentError: If the filter is not a dict with string keys, uses an operator
            other than ``$eq $ne $gt $gte $lt $lte``, mixes operators and field names in one
            dict, compares with ``$gt``-style operators against a non-number, or nests dicts and
            lists more than 64 levels deep.
    """
    if depth > _MAX_DEPTH:
        raise InvalidArgumentError(f"{path[:200]} nests deeper than {_MAX_DEPTH} levels")
    if flt is None:
        return
    if not isinstance(flt, Mapping):
        raise InvalidArgumentError(
            f"{path} must be a dict such as {{'status': 'active'}}, got {type(flt).__name__}"
        )
    for key, expected in flt.items():
        if not isinstance(key, str):
            raise InvalidArgumentError(f"{path} keys must be strings, got {safe_repr(key)}")
        _validate_condition(expected, f"{path}[{key!r}]", depth + 1)


def _validate_condition(expected: object, path: str, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise InvalidArgumentError(f"{path[:200]} nests deeper than {_MAX_DEPTH} levels")
    if isinstance(expected, dict):
        keys = list(expected)
        if any(isinstance(k, str) and k.startswith("$") for k in keys):
            for op in keys:
                if op not in COMPARISON_OPERATORS:
                    raise InvalidArgumentError(
                        f"unsupported filter operator {safe_repr(op)} in {path}; use one of "
                        f"{', '.join(sorted(COMPARISON_OPERATORS))} (and no field names "
                        "next to operators)"
                    )
                if op in _ORDERING and _as_number(expected[op]) is None:
                    raise InvalidArgumentError(
                        f"{path}: {op} compares numbers, got {safe_repr(expected[op])}; pass a "
                        "number"
                    )
            return
        validate_filter(expected, path=path, depth=depth)
    elif isinstance(expected, list | tuple):
        for i, item in enumerate(expected):
            _validate_condition(item, f"{path}[{i}]", depth + 1)


def _compare(actual: Any, expected: Any) -> bool:
    if isinstance(expected, dict):
        if any(k.startswith("$") for k in expected):
            return all(_apply(actual, op, operand) for op, operand in expected.items())
        if not isinstance(actual, dict):
            return False
        return all(_compare(actual.get(k), v) for k, v in expected.items())
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(_compare(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return bool(actual == expected)


def _apply(actual: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(actual == operand)
    if op == "$ne":
        return bool(actual != operand)
    left, right = _as_number(actual), _as_number(operand)
    if left is None or right is None:
        return False  # deliberate: InMemoryStore raises here; SQL stores find no match
    if op == "$gt":
        return left > right
    if op == "$gte":
        return left >= right
    if op == "$lt":
        return left < right
    return left <= right  # $lte (validate_filter admits nothing else)


def matches_filter(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    """Whether an item value passes a (validated) filter; a missing key reads as ``None``."""
    if not flt:
        return True
    return all(_compare(value.get(key), expected) for key, expected in flt.items())


def matches_condition(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """LangGraph's prefix/suffix namespace match, with ``"*"`` matching any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise InvalidArgumentError(
            f"unsupported match type {safe_repr(condition.match_type)}; use 'prefix' or 'suffix'"
        )
    return all(p == "*" or n == p for n, p in pairs)
