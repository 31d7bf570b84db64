"""Metadata filters as LangChain RAG code passes them (Chroma's ``where``, PGVector's ``filter``).

A filter is a dict over a document's metadata:

* ``{"field": value}``: equality (``{"field": {"$eq": value}}``); several fields in one dict
  must all match (PGVector's reading; Chroma asks for an explicit ``$and``);
* ``{"field": {"$op": operand}}`` with ``$eq $ne $gt $gte $lt $lte $in $nin``: ``$gt``-style
  operators compare numbers (a bool is no number), ``$in``/``$nin`` take a non-empty list;
* ``{"$and": [filter, ...]}`` and ``{"$or": [filter, ...]}`` with at least one filter each.

As in Chroma, a document without the field matches ``$ne`` and ``$nin`` and nothing else, and
``True`` equals neither ``1`` nor ``1.0``. A filter is checked when a search starts: anything
else (an unknown operator, a ``$gt`` of a string, an empty ``$and``) is an
:class:`~langchain_tepa.core.errors.InvalidArgumentError` naming the place.

Example:
    >>> flt = {"$and": [{"genre": {"$in": ["sf", "crime"]}}, {"year": {"$gte": 2000}}]}
    >>> check_filter(flt) is flt
    True
    >>> matches({"genre": "sf", "year": 2004}, flt), matches({"genre": "sf"}, flt)
    (True, False)
    >>> matches({}, {"genre": {"$ne": "sf"}}), matches({"n": True}, {"n": 1})
    (True, False)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import safe_repr

__all__ = ["OPERATORS", "check_filter", "matches"]

OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin")
"""The field operators (``$and`` and ``$or`` combine filters)."""

_ORDER = {"$gt", "$gte", "$lt", "$lte"}
_MAX_DEPTH = 32
_MISSING = object()


def _number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and not _nan(x)


def _nan(x: object) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _scalar(x: object, where: str) -> None:
    if x is None or isinstance(x, str | bool) or _number(x):
        return
    raise InvalidArgumentError(
        f"{where} compares with {safe_repr(x)}; pass a string, a number, a bool or None"
    )


def check_filter(flt: object, where: str = "filter", depth: int = 0) -> Mapping[str, Any]:
    """``flt`` if it is a valid filter (module docstring), else a typed error naming the place.

    Raises:
        InvalidArgumentError: For anything that is not a filter.
    """
    if depth > _MAX_DEPTH:
        raise InvalidArgumentError(f"{where} nests deeper than {_MAX_DEPTH} levels")
    if not isinstance(flt, Mapping) or not flt:
        raise InvalidArgumentError(
            f"{where} must be a non-empty dict such as {{'genre': 'sf'}} or "
            f"{{'$and': [...]}}, got {safe_repr(flt)}"
        )
    for name, cond in flt.items():
        if not isinstance(name, str) or not name:
            raise InvalidArgumentError(f"{where} has a key {safe_repr(name)}; use field names")
        place = f"{where}[{name!r}]"
        if name in ("$and", "$or"):
            if not isinstance(cond, list | tuple) or not cond:
                raise InvalidArgumentError(f"{place} must be a non-empty list of filters")
            for i, sub in enumerate(cond):
                check_filter(sub, f"{place}[{i}]", depth + 1)
        elif name.startswith("$"):
            raise InvalidArgumentError(
                f"{where}: unknown operator {name!r} at the top of a filter; use a field name, "
                "'$and' or '$or'"
            )
        elif isinstance(cond, Mapping):
            _check_condition(cond, place)
        else:
            _scalar(cond, place)
    return flt


def _check_condition(cond: Mapping[Any, Any], place: str) -> None:
    if not cond:
        raise InvalidArgumentError(f"{place} is an empty condition; pass {{'$eq': value}}")
    for op, operand in cond.items():
        if op not in OPERATORS:
            raise InvalidArgumentError(
                f"{place}: unknown operator {safe_repr(op)}; use one of {', '.join(OPERATORS)}"
            )
        if op in _ORDER and not _number(operand):
            raise InvalidArgumentError(
                f"{place}: {op} compares numbers, got {safe_repr(operand)}; pass a number"
            )
        if op in ("$in", "$nin"):
            if not isinstance(operand, list | tuple) or not operand:
                raise InvalidArgumentError(f"{place}: {op} takes a non-empty list of values")
            for x in operand:
                _scalar(x, f"{place}[{op!r}]")
        elif op in ("$eq", "$ne"):
            _scalar(operand, f"{place}[{op!r}]")


def _equal(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    return a == b


def _holds(value: object, op: str, operand: Any) -> bool:
    if value is _MISSING:
        return op in ("$ne", "$nin")
    if op == "$eq":
        return _equal(value, operand)
    if op == "$ne":
        return not _equal(value, operand)
    if op == "$in":
        return any(_equal(value, x) for x in operand)
    if op == "$nin":
        return not any(_equal(value, x) for x in operand)
    if not _number(value):
        return False
    if op == "$gt":
        return value > operand
    if op == "$gte":
        return value >= operand
    if op == "$lt":
        return value < operand
    return value <= operand


def matches(metadata: Mapping[str, Any], flt: Mapping[str, Any]) -> bool:
    """Whether ``metadata`` matches the (checked) filter ``flt``."""
    for name, cond in flt.items():
        if name == "$and":
            if not all(matches(metadata, sub) for sub in cond):
                return False
        elif name == "$or":
            if not any(matches(metadata, sub) for sub in cond):
                return False
        else:
            value = metadata.get(name, _MISSING)
            conds = cond.items() if isinstance(cond, Mapping) else (("$eq", cond),)
            if not all(_holds(value, op, operand) for op, operand in conds):
                return False
    return True
