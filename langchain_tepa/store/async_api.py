"""The async twins of :class:`~langchain_tepa.store.TEPAStore`'s methods.

Each does what its sync twin does: ``abatch`` runs the same three steps
(:mod:`~langchain_tepa.store.execution`) with the embeddings awaited and the storage work in a
worker thread, and runs the calls of one event loop that arrive while a batch runs together as
the next batch (:mod:`~langchain_tepa.store.batching`); the others build the same ops, or call
LangGraph's own async convenience methods after the same namespace checks (typed errors:
:class:`~langchain_tepa.store.StoreNamespaceError`).

Example:
    >>> import asyncio
    >>> from langchain_tepa.store import TEPAStore
    >>> store = TEPAStore.in_memory()
    >>> async def main() -> dict:
    ...     await store.aput(("users", "u1"), "diet", {"value": "vegan"})
    ...     return (await store.aget(("users", "u1"), "diet")).value
    >>> asyncio.run(main())
    {'value': 'vegan'}
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    Item,
    NamespacePath,
    NotProvided,
    Op,
    Result,
    SearchItem,
    SearchOp,
)

from langchain_tepa.memory import AsOfPoint
from langchain_tepa.store.batching import AsyncCoalescer
from langchain_tepa.store.execution import ExecutionMixin
from langchain_tepa.store.planning import (
    as_ops,
    check_key_arg,
    check_namespace_arg,
    check_paths,
    namespace_errors,
)

__all__ = ["AsyncStoreMixin"]


class AsyncStoreMixin(ExecutionMixin, AsyncCoalescer, BaseStore):
    """The async methods of :class:`~langchain_tepa.store.TEPAStore` (module docstring).

    Example:
        >>> from langchain_tepa.store import TEPAStore
        >>> issubclass(TEPAStore, AsyncStoreMixin)
        True
    """

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Async twin of :meth:`batch` (embeddings awaited, storage work in a worker thread).

        Calls of one event loop that arrive while a batch runs are run together as the next
        batch (each caller's ops validated on their own, results split back).
        """
        return await self._coalesced(as_ops(ops), self._abatch_now)

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
        correction: bool | None = None,
    ) -> None:
        """Async twin of :meth:`put`."""
        await self.abatch([self._put_op(namespace, key, value, index, ttl, correction)])

    async def aget(
        self,
        namespace: tuple[str, ...],
        key: str,
        *,
        refresh_ttl: bool | None = None,
        as_of: AsOfPoint | None = None,
    ) -> Item | None:
        """Async twin of :meth:`get`."""
        check_namespace_arg(namespace)
        check_key_arg(key)
        if as_of is None:
            with namespace_errors():
                return await super().aget(namespace, key, refresh_ttl=refresh_ttl)
        return await asyncio.to_thread(self._get_as_of, namespace, key, as_of)

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
        as_of: AsOfPoint | None = None,
    ) -> list[SearchItem]:
        """Async twin of :meth:`search`."""
        check_namespace_arg(namespace_prefix, "namespace_prefix")
        if as_of is None:
            with namespace_errors():
                return await super().asearch(
                    namespace_prefix,
                    query=query,
                    filter=filter,
                    limit=limit,
                    offset=offset,
                    refresh_ttl=refresh_ttl,
                )
        op = SearchOp(tuple(namespace_prefix), filter, limit, offset, query, refresh_ttl=False)
        return await asyncio.to_thread(self._search_as_of, op, as_of)

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """Async twin of :meth:`delete`."""
        check_namespace_arg(namespace)
        check_key_arg(key)
        with namespace_errors():
            await super().adelete(namespace, key)

    async def alist_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """Async twin of :meth:`list_namespaces`."""
        check_paths(prefix, suffix)
        with namespace_errors():
            return await super().alist_namespaces(
                prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
            )
