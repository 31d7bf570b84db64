"""The ``a``-prefixed async twins of :class:`~langchain_tepa.memory.TEPAMemory`.

Each twin runs its sync method in a worker thread (``asyncio.to_thread``), so the logic is shared
and the event loop is never blocked by storage calls.

Example:
    >>> import asyncio
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> asyncio.run(memory.aobserve("user.diet", "vegan")).precedent.state.value
    'active'
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable
from typing import Any

from langchain_core.documents import Document

from langchain_tepa.core.types import Evidence, Fact
from langchain_tepa.results import KeyAudit, ObservationResult, ReconcileReport

__all__ = ["AsyncTwinsMixin"]


class AsyncTwinsMixin:
    """Async twins of the memory's calls (mixed into ``TEPAMemory``).

    Example:
        >>> hasattr(AsyncTwinsMixin, "aretrieve")
        True
    """

    async def _run(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Run the sync method ``name`` in a worker thread."""
        fn: Callable[..., Any] = getattr(self, name)
        return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))

    async def aobserve(self, key: str, value: Any, **kwargs: Any) -> ObservationResult:
        """Async twin of :meth:`observe`."""
        return await self._run("observe", key, value, **kwargs)

    async def arecord_outcome(
        self, key: str, value: Any, success: bool, **kwargs: Any
    ) -> ObservationResult:
        """Async twin of :meth:`record_outcome`."""
        return await self._run("record_outcome", key, value, success, **kwargs)

    async def aobserve_many(
        self, facts: Iterable[Fact | tuple[str, Any]]
    ) -> list[ObservationResult]:
        """Async twin of :meth:`observe_many`."""
        return await self._run("observe_many", facts)

    async def aadd_texts(self, texts: Iterable[str], **kwargs: Any) -> list[ObservationResult]:
        """Async twin of :meth:`add_texts`."""
        return await self._run("add_texts", texts, **kwargs)

    async def aretrieve(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        """Async twin of :meth:`retrieve`."""
        return await self._run("retrieve", query, k, **kwargs)

    async def aget(self, key: str, **kwargs: Any) -> Any:
        """Async twin of :meth:`get`."""
        return await self._run("get", key, **kwargs)

    async def aaudit(self, key: str, **kwargs: Any) -> KeyAudit:
        """Async twin of :meth:`audit`."""
        return await self._run("audit", key, **kwargs)

    async def ahistory(self, key: str, **kwargs: Any) -> list[Evidence]:
        """Async twin of :meth:`history`."""
        return await self._run("history", key, **kwargs)

    async def arevoke(self, key: str, value: Any, **kwargs: Any) -> ObservationResult:
        """Async twin of :meth:`revoke`."""
        return await self._run("revoke", key, value, **kwargs)

    async def apromote(self, key: str, value: Any, **kwargs: Any) -> ObservationResult:
        """Async twin of :meth:`promote`."""
        return await self._run("promote", key, value, **kwargs)

    async def arecord_trial(
        self, key: str, value: Any, positive: bool, **kwargs: Any
    ) -> ObservationResult:
        """Async twin of :meth:`record_trial`."""
        return await self._run("record_trial", key, value, positive, **kwargs)

    async def amark_boundary(self, **kwargs: Any) -> list[ObservationResult]:
        """Async twin of :meth:`mark_boundary`."""
        return await self._run("mark_boundary", **kwargs)

    async def areconcile(self) -> ReconcileReport:
        """Async twin of :meth:`reconcile`."""
        return await self._run("reconcile")

    async def aflush(self) -> None:
        """Async twin of :meth:`flush`."""
        await self._run("flush")
