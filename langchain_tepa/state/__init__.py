"""The per-namespace state layer: pure Python and numpy, no Chroma and no LangChain.

A memory holds the fold of each namespace it has touched (:class:`NamespaceState`), up to a
vector clock of the writers' appends, in a bounded LRU cache (:class:`StateCache`); it catches a
state up by folding only the pages written since its clock. Point-in-time reads fold the
evidence up to a point (:func:`fold_as_of`). Views waiting to be written are bounded in count and
age (:class:`ViewBuffer`). In-process ranking of a namespace's vectors: :class:`VectorTable`.

Example:
    >>> from langchain_tepa.state import NamespaceState, StateCache
    >>> cache = StateCache(capacity=4)
    >>> cache.put(NamespaceState("users.u1"))
    >>> cache.get("users.u1").namespace
    'users.u1'
"""

from __future__ import annotations

from langchain_tepa.state.asof import AsOf, fold_as_of
from langchain_tepa.state.cache import DEFAULT_CACHE_SIZE, StateCache
from langchain_tepa.state.namespace import (
    Absorbed,
    NamespaceState,
    Ranking,
    active_in,
    answers_of,
)
from langchain_tepa.state.vectors import ItemColumn, ItemTable, VectorTable, matvec, unit_rows
from langchain_tepa.state.views import Pending, ViewBuffer

__all__ = [
    "DEFAULT_CACHE_SIZE",
    "Absorbed",
    "AsOf",
    "ItemColumn",
    "ItemTable",
    "NamespaceState",
    "Pending",
    "Ranking",
    "StateCache",
    "VectorTable",
    "ViewBuffer",
    "active_in",
    "answers_of",
    "fold_as_of",
    "matvec",
    "unit_rows",
]
