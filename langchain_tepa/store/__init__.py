"""`TEPAStore`: LangGraph's ``BaseStore`` over a :class:`~langchain_tepa.memory.TEPAMemory`.

The package: :mod:`~langchain_tepa.store.store` (the store: its public methods),
:mod:`~langchain_tepa.store.async_api` (its async twins),
:mod:`~langchain_tepa.store.execution` (running a batch: read, embed, rank, write),
:mod:`~langchain_tepa.store.planning` (validation of a whole batch and its plan),
:mod:`~langchain_tepa.store.index` (the ``IndexConfig``),
:mod:`~langchain_tepa.store.queries` (filters and namespace matching),
:mod:`~langchain_tepa.store.search` (ranking), :mod:`~langchain_tepa.store.listing`
(``list_namespaces``), :mod:`~langchain_tepa.store.ttl` and
:mod:`~langchain_tepa.store.sweeper` (time-to-live and its sweeper),
:mod:`~langchain_tepa.store.corrections` (corrections) and
:mod:`~langchain_tepa.store.batching` (coalescing concurrent async calls).

Example:
    >>> store = TEPAStore.in_memory()
    >>> store.put(("users", "u1"), "diet", {"value": "vegan"})
    >>> store.get(("users", "u1"), "diet").value
    {'value': 'vegan'}
"""

from __future__ import annotations

from langchain_tepa.store.planning import StoreNamespaceError
from langchain_tepa.store.store import TEPAStore, store_policy

__all__ = ["StoreNamespaceError", "TEPAStore", "store_policy"]
