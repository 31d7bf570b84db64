"""`MemoryCore`: what every part of :class:`~langchain_tepa.memory.TEPAMemory` shares.

The facade is split by job: :class:`MemoryCore` (state, validation helpers, copies),
:class:`~langchain_tepa.memory.writing.WritingMixin` (observations, outcomes, decisions),
:class:`~langchain_tepa.memory.reading.ReadingMixin` (answers, audit, points in time) over
:class:`~langchain_tepa.memory.retrieval.RetrievalMixin` (ranked retrieval, trust, vectors) and
the facade itself (constructors, maintenance, adapters).

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> isinstance(TEPAMemory.in_memory(), MemoryCore)
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from langchain_core.embeddings import Embeddings

from langchain_tepa.core.errors import InvalidArgumentError, StorageError, UnknownPrecedentError
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import Evidence, EvidenceKind, KeyState
from langchain_tepa.core.values import (
    safe_repr,
    validate_key,
    validate_namespace,
    validate_value,
    value_identity,
)
from langchain_tepa.memory.documents import detached, detached_evidence
from langchain_tepa.memory.engine import Engine, Folded
from langchain_tepa.results import ObservationResult
from langchain_tepa.state import AsOf
from langchain_tepa.storage.base import StorageBackend
from langchain_tepa.validation import validate_metadata as _validate_metadata
from langchain_tepa.validation import validate_source as _validate_source
from langchain_tepa.validation import validate_text as _validate_text

if TYPE_CHECKING:
    from langchain_tepa.memory.ingest import TextIngest

__all__ = ["AsOfPoint", "MemoryCore", "Namespace"]

Namespace = str | Sequence[str]
"""A namespace: ``"users.u1"`` or ``("users", "u1")``."""

AsOfPoint = datetime | float | int | str
"""A point in time for ``as_of=``: a datetime (naive ones are UTC), seconds on the memory's
clock, or the id of an evidence record (just after it)."""


class MemoryCore:
    """State and helpers shared by the parts of the facade (see the module docstring).

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> TEPAMemory.in_memory().namespace
        'default'
    """

    policy: LifecyclePolicy
    storage: StorageBackend
    embeddings: Embeddings
    namespace: str
    writer: str
    read_only: bool
    _engine: Engine
    _ingest: TextIngest
    _closed: bool

    def _ns(self, namespace: Namespace | None) -> str:
        return self.namespace if namespace is None else validate_namespace(namespace)

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError("this TEPAMemory is closed; open a new one")

    def _point(self, namespace: str, as_of: object) -> AsOf:
        """``as_of`` as a point of ``namespace``'s evidence."""
        if isinstance(as_of, datetime):
            stamp = as_of if as_of.tzinfo else as_of.replace(tzinfo=timezone.utc)
            return AsOf(stamp.timestamp())
        if isinstance(as_of, bool):
            raise InvalidArgumentError("as_of must be a datetime, seconds or an evidence id")
        if isinstance(as_of, int | float):
            try:
                seconds = float(as_of)
            except OverflowError:
                seconds = math.inf
            if not math.isfinite(seconds):
                raise InvalidArgumentError(
                    f"as_of must be a finite number of seconds, got {safe_repr(as_of)}"
                )
            return AsOf(seconds)
        if isinstance(as_of, str):
            ev = self._engine.find_evidence(namespace, as_of)
            if ev is None:
                raise UnknownPrecedentError(
                    f"no evidence {safe_repr(as_of)} in namespace {safe_repr(namespace)}; pass an "
                    "id from "
                    "history(key) or a datetime"
                )
            return AsOf(ev.time, ev.id)
        raise InvalidArgumentError(
            f"as_of must be a datetime, seconds or an evidence id, got {type(as_of).__name__}"
        )

    def _key_state(self, ns: str, key: str, as_of: object) -> KeyState | None:
        """``key``'s state now (caught up) or at ``as_of``; a live object, do not hand out."""
        self._check_open()
        if as_of is not None:
            return self._engine.as_of(ns, self._point(ns, as_of), [key]).get(key)
        with self._engine.reading([ns]) as states:
            return states[ns].keys.get(key)

    def _make(
        self,
        kind: EvidenceKind,
        namespace: Namespace | None,
        key: object,
        value: object,
        *,
        outcome: bool | None = None,
        text: object = None,
        metadata: object = None,
        source: object = None,
        reason: str | None = None,
    ) -> Evidence:
        ns = self._ns(namespace)
        k = validate_key(key)
        v = validate_value(value)  # a plain JSON copy: the caller's object is not kept
        t = _validate_text(text)
        meta = _validate_metadata(metadata)
        src = _validate_source(source)
        eid, now = self._engine.next_id()
        return Evidence(
            id=eid,
            namespace=ns,
            key=k,
            value=v,
            kind=kind,
            outcome=outcome,
            time=now,
            writer=self.writer,
            source=src,
            reason=reason,
            text=t,
            metadata=meta,
        )

    def _commit(self, records: Sequence[Evidence]) -> list[ObservationResult]:
        self._check_open()
        folded = self._engine.commit(records)
        return [self._result(f) for f in folded]

    def _result(self, f: Folded) -> ObservationResult:
        prec = f.precedent
        if prec is None and f.evidence.kind is not EvidenceKind.BOUNDARY:
            vid = value_identity(f.evidence.value, normalize=self.policy.normalize_values)
            found = f.state.precedents.get(vid)
            prec = detached(found, self.policy) if found else None
        return ObservationResult(detached_evidence(f.evidence), prec, list(f.transitions))
