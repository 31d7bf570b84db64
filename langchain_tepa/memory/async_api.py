"""The ``a``-prefixed async twins of :class:`~langchain_tepa.memory.TEPAMemory`'s calls.

Each twin runs its sync method in a worker thread (``asyncio.to_thread``): the logic is shared,
and the event loop is never blocked by storage or embedding calls.

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
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from langchain_core.documents import Document

from langchain_tepa.core.errors import OutcomeUnknownError
from langchain_tepa.core.types import Evidence, Fact, Precedent
from langchain_tepa.memory.batch import Decision, RevokeKey
from langchain_tepa.memory.rows import AnswerRow, AnswerTable
from langchain_tepa.results import KeyAudit, ObservationResult, ReconcileReport, TextsResult
from langchain_tepa.storage.answers import AnswerHit

__all__ = ["AsyncMemoryMixin"]

_Self = TypeVar("_Self", bound="AsyncMemoryMixin")

_Namespace = str | Sequence[str]
_AsOf = datetime | float | int | str


class AsyncMemoryMixin:
    """Async twins of the memory's calls (mixed into ``TEPAMemory``).

    Example:
        >>> hasattr(AsyncMemoryMixin, "aretrieve")
        True
    """

    async def _run(self, name: str, *args: Any, **kwargs: Any) -> Any:
        fn = getattr(self, name)
        return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))

    async def aobserve(
        self,
        key: str,
        value: Any,
        *,
        text: str | None = None,
        namespace: _Namespace | None = None,
        metadata: Mapping[str, Any] | None = None,
        source: str | None = None,
        correction: bool = False,
    ) -> ObservationResult:
        """Async twin of :meth:`TEPAMemory.observe`."""
        return await self._run(
            "observe",
            key,
            value,
            text=text,
            namespace=namespace,
            metadata=metadata,
            source=source,
            correction=correction,
        )

    async def arecord_outcome(
        self,
        key: str,
        value: Any,
        success: bool,
        *,
        namespace: _Namespace | None = None,
        metadata: Mapping[str, Any] | None = None,
        source: str | None = None,
        text: str | None = None,
    ) -> ObservationResult:
        """Async twin of :meth:`TEPAMemory.record_outcome`."""
        return await self._run(
            "record_outcome",
            key,
            value,
            success,
            namespace=namespace,
            metadata=metadata,
            source=source,
            text=text,
        )

    async def aobserve_many(
        self, facts: Iterable[Fact | tuple[str, Any]]
    ) -> list[ObservationResult]:
        """Async twin of :meth:`TEPAMemory.observe_many`."""
        return await self._run("observe_many", list(facts) if not isinstance(facts, str) else facts)

    async def awrite_many(
        self,
        writes: Iterable[Fact | RevokeKey | Decision | tuple[str, Any]],
        *,
        items: Sequence[Mapping[str, Sequence[Sequence[float]]] | None] | None = None,
    ) -> list[ObservationResult]:
        """Async twin of :meth:`TEPAMemory.write_many`."""
        listed = list(writes) if not isinstance(writes, str | bytes | Mapping) else writes
        return await self._run("write_many", listed, items=items)

    async def aadd_facts(self, facts: Iterable[Fact | tuple[str, Any]]) -> list[ObservationResult]:
        """Async twin of :meth:`TEPAMemory.add_facts`."""
        return await self.aobserve_many(facts)

    async def aadd_texts(
        self,
        texts: Iterable[str] | str,
        *,
        namespace: _Namespace | None = None,
        source: str | None = None,
    ) -> TextsResult:
        """Async twin of :meth:`TEPAMemory.add_texts`."""
        return await self._run("add_texts", texts, namespace=namespace, source=source)

    async def aretrieve(
        self,
        query: str,
        k: int = 4,
        *,
        namespace: _Namespace | None = None,
        key_prefix: str | None = None,
        as_of: _AsOf | None = None,
        all_values: bool = False,
    ) -> list[Document]:
        """Async twin of :meth:`TEPAMemory.retrieve`."""
        return await self._run(
            "retrieve",
            query,
            k,
            namespace=namespace,
            key_prefix=key_prefix,
            as_of=as_of,
            all_values=all_values,
        )

    async def aretrieve_by_vector(
        self,
        vector: Sequence[float],
        k: int = 4,
        *,
        namespace: _Namespace | None = None,
        key_prefix: str | None = None,
        as_of: _AsOf | None = None,
        all_values: bool = False,
    ) -> list[Document]:
        """Async twin of :meth:`TEPAMemory.retrieve_by_vector`."""
        return await self._run(
            "retrieve_by_vector",
            vector,
            k,
            namespace=namespace,
            key_prefix=key_prefix,
            as_of=as_of,
            all_values=all_values,
        )

    async def avectors(
        self, ids: Sequence[str], *, namespace: _Namespace | None = None
    ) -> dict[str, list[float]]:
        """Async twin of :meth:`TEPAMemory.vectors`."""
        return await self._run("vectors", ids, namespace=namespace)

    async def aactive_documents(
        self,
        *,
        namespace: _Namespace | None = None,
        key_prefix: str | None = None,
        as_of: _AsOf | None = None,
    ) -> list[Document]:
        """Async twin of :meth:`TEPAMemory.active_documents`."""
        return await self._run(
            "active_documents", namespace=namespace, key_prefix=key_prefix, as_of=as_of
        )

    async def aanswer(
        self, key: str, *, namespace: _Namespace | None = None, as_of: _AsOf | None = None
    ) -> Precedent | None:
        """Async twin of :meth:`TEPAMemory.answer`."""
        return await self._run("answer", key, namespace=namespace, as_of=as_of)

    async def aanswer_row(
        self, key: str, *, namespace: _Namespace | None = None, payloads: str | None = None
    ) -> tuple[AnswerRow | None, list[list[float]] | None]:
        """Async :meth:`~langchain_tepa.memory.TEPAMemory.answer_row`."""
        return await self._run("answer_row", key, namespace=namespace, payloads=payloads)

    async def aanswers(
        self,
        *,
        namespace: _Namespace | None = None,
        key_prefix: str | None = None,
        as_of: _AsOf | None = None,
    ) -> list[Precedent]:
        """Async twin of :meth:`TEPAMemory.answers`."""
        return await self._run("answers", namespace=namespace, key_prefix=key_prefix, as_of=as_of)

    async def aanswer_rows(
        self, *, namespace: _Namespace | None = None, as_of: _AsOf | None = None
    ) -> tuple[AnswerRow, ...]:
        """Async twin of :meth:`TEPAMemory.answer_rows`."""
        return await self._run("answer_rows", namespace=namespace, as_of=as_of)

    async def aanswer_tables(
        self,
        namespaces: Iterable[_Namespace],
        *,
        vector_spaces: Sequence[str] = (),
        payload_spaces: Mapping[str, int] | None = None,
        as_of: _AsOf | None = None,
    ) -> dict[str, AnswerTable]:
        """Async twin of :meth:`TEPAMemory.answer_tables`."""
        return await self._run(
            "answer_tables",
            list(namespaces),
            vector_spaces=vector_spaces,
            payload_spaces=payload_spaces,
            as_of=as_of,
        )

    async def aanswer_tables_under(
        self,
        prefix: _Namespace,
        *,
        vector_spaces: Sequence[str] = (),
        payload_spaces: Mapping[str, int] | None = None,
    ) -> dict[str, AnswerTable]:
        """Async twin of :meth:`TEPAMemory.answer_tables_under`."""
        return await self._run(
            "answer_tables_under",
            prefix,
            vector_spaces=vector_spaces,
            payload_spaces=payload_spaces,
        )

    async def asearch_answers(
        self,
        space: str,
        vector: Sequence[float],
        n: int,
        *,
        prefix: _Namespace | None = None,
    ) -> list[AnswerHit] | None:
        """Async :meth:`~langchain_tepa.memory.TEPAMemory.search_answers`."""
        return await self._run("search_answers", space, vector, n, prefix=prefix)

    async def arevoke_key(
        self,
        key: str,
        *,
        reason: str = "revoked by hand",
        namespace: _Namespace | None = None,
        source: str | None = None,
    ) -> list[ObservationResult]:
        """Async twin of :meth:`TEPAMemory.revoke_key`."""
        return await self._run("revoke_key", key, reason=reason, namespace=namespace, source=source)

    async def aget(
        self, key: str, *, namespace: _Namespace | None = None, as_of: _AsOf | None = None
    ) -> Any:
        """Async twin of :meth:`TEPAMemory.get`."""
        return await self._run("get", key, namespace=namespace, as_of=as_of)

    async def aaudit(
        self, key: str, *, namespace: _Namespace | None = None, as_of: _AsOf | None = None
    ) -> KeyAudit:
        """Async twin of :meth:`TEPAMemory.audit`."""
        return await self._run("audit", key, namespace=namespace, as_of=as_of)

    async def ahistory(self, key: str, *, namespace: _Namespace | None = None) -> list[Evidence]:
        """Async twin of :meth:`TEPAMemory.history`."""
        return await self._run("history", key, namespace=namespace)

    async def akeys(
        self, *, namespace: _Namespace | None = None, as_of: _AsOf | None = None
    ) -> list[str]:
        """Async twin of :meth:`TEPAMemory.keys`."""
        return await self._run("keys", namespace=namespace, as_of=as_of)

    async def anamespaces(self) -> list[str]:
        """Async twin of :meth:`TEPAMemory.namespaces`."""
        return await self._run("namespaces")

    async def aactive_among(self, names: Iterable[str]) -> list[str]:
        """Async twin of :meth:`TEPAMemory.active_among`."""
        return await self._run("active_among", list(names))

    async def aprecedents(self, *, namespace: _Namespace | None = None) -> list[Precedent]:
        """Async twin of :meth:`TEPAMemory.precedents`."""
        return await self._run("precedents", namespace=namespace)

    async def arevoke(
        self,
        key: str,
        value: Any,
        *,
        reason: str = "revoked by hand",
        namespace: _Namespace | None = None,
        source: str | None = None,
    ) -> ObservationResult:
        """Async twin of :meth:`TEPAMemory.revoke`."""
        return await self._run(
            "revoke", key, value, reason=reason, namespace=namespace, source=source
        )

    async def apromote(
        self,
        key: str,
        value: Any,
        *,
        reason: str = "promoted by hand",
        namespace: _Namespace | None = None,
        source: str | None = None,
    ) -> ObservationResult:
        """Async twin of :meth:`TEPAMemory.promote`."""
        return await self._run(
            "promote", key, value, reason=reason, namespace=namespace, source=source
        )

    async def arecord_trial(
        self,
        key: str,
        value: Any,
        positive: bool,
        *,
        trial_kind: str,
        namespace: _Namespace | None = None,
        detail: str = "",
    ) -> ObservationResult:
        """Async twin of :meth:`TEPAMemory.record_trial`."""
        return await self._run(
            "record_trial",
            key,
            value,
            positive,
            trial_kind=trial_kind,
            namespace=namespace,
            detail=detail,
        )

    async def amark_boundary(
        self, *, namespace: _Namespace | None = None, key: str | None = None
    ) -> list[ObservationResult]:
        """Async twin of :meth:`TEPAMemory.mark_boundary`."""
        return await self._run("mark_boundary", namespace=namespace, key=key)

    async def aevidence_count(self, *, namespace: _Namespace | None = None) -> int:
        """Async twin of :meth:`TEPAMemory.evidence_count`."""
        return await self._run("evidence_count", namespace=namespace)

    async def areconcile(self, *, reindex: bool = False) -> ReconcileReport:
        """Async twin of :meth:`TEPAMemory.reconcile`."""
        return await self._run("reconcile", reindex=reindex)

    async def aretry(self, error: OutcomeUnknownError) -> None:
        """Async twin of :meth:`TEPAMemory.retry`."""
        await self._run("retry", error)

    async def aflush(self) -> None:
        """Async twin of :meth:`TEPAMemory.flush`."""
        await self._run("flush")

    async def aclose(self) -> None:
        """Async twin of :meth:`TEPAMemory.close`."""
        await self._run("close")

    async def __aenter__(self: _Self) -> _Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
