"""Validation of the item vectors adapters store with their observations.

Example:
    >>> validate_items({"ix": [[1.0, 0.5]]})
    {'ix': [[1.0, 0.5]]}
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import safe_repr

__all__ = ["SPACE_NAME", "validate_items", "validate_space"]

SPACE_NAME = re.compile(r"^[a-z0-9][a-z0-9_]{0,23}$")
_MAX_VECTORS = 256
_MAX_DIMS = 16384


def validate_space(name: object) -> str:
    """A space name: 1-24 lower-case letters, digits or ``_``."""
    if not isinstance(name, str) or not SPACE_NAME.match(name):
        raise InvalidArgumentError(
            f"vector space name {safe_repr(name)} must be 1-24 lower-case letters, digits or '_'"
        )
    return name


def validate_items(items: object) -> dict[str, list[list[float]]]:
    """``space -> vectors`` with valid names and lists of finite numbers (a plain copy)."""
    if not isinstance(items, Mapping):
        raise InvalidArgumentError(
            f"items must map space names to lists of vectors, got {type(items).__name__}"
        )
    out: dict[str, list[list[float]]] = {}
    for space, vectors in items.items():
        name = validate_space(space)
        if isinstance(vectors, str | bytes) or not isinstance(vectors, list | tuple):
            raise InvalidArgumentError(f"items[{safe_repr(name)}] must be a list of vectors")
        if len(vectors) > _MAX_VECTORS:
            raise InvalidArgumentError(
                f"items[{safe_repr(name)}] holds more than {_MAX_VECTORS} vectors"
            )
        out[name] = [_vector(v, name) for v in vectors]
    return out


def _vector(vector: Any, space: str) -> list[float]:
    if isinstance(vector, str | bytes) or not isinstance(vector, list | tuple) or not vector:
        raise InvalidArgumentError(
            f"each vector of items[{safe_repr(space)}] must be a non-empty list"
        )
    if len(vector) > _MAX_DIMS:
        raise InvalidArgumentError(
            f"a vector of items[{safe_repr(space)}] has over {_MAX_DIMS} numbers"
        )
    out = []
    for x in vector:
        if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
            raise InvalidArgumentError(
                f"items[{safe_repr(space)}] holds {safe_repr(x)}; vectors hold finite numbers"
            )
        out.append(float(x))
    return out
