"""`TEPAMemory`: the facade (lifecycle core + storage + embeddings).

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.pizza_topping", "pineapple")
    >>> _ = memory.observe("user.pizza_topping", "mushroom")
    >>> _ = memory.observe("user.pizza_topping", "mushroom")
    >>> memory.get("user.pizza_topping")
    'mushroom'
    >>> [p.state.value for p in memory.audit("user.pizza_topping").precedents]
    ['revoked', 'active']
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from langchain_tepa._async_twins import AsyncTwinsMixin
from langchain_tepa._gc import gc_paused
from langchain_tepa.core.errors import (
    InvalidArgumentError,
    ReadOnlyError,
    StorageError,
    UnknownPrecedentError,
)
from langchain_tepa.core.fold import apply_evidence, fold_all, refresh_posterior
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import (
    Evidence,
    EvidenceKind,
    Fact,
    KeyState,
    Lifecycle,
    Precedent,
)
from langchain_tepa.core.values import (
    DEFAULT_NAMESPACE,
    validate_key,
    validate_namespace,
    validate_value,
    value_identity,
)
from langchain_tepa.embeddings import default_embeddings
from langchain_tepa.results import KeyAudit, ObservationResult, ReconcileReport
from langchain_tepa.storage.base import PrecedentWrite, StorageBackend
from langchain_tepa.storage.chroma import ChromaStorage
from langchain_tepa.storage.memory import InMemoryStorage
from langchain_tepa.validation import MAX_K, MAX_TEXT_CHARS
from langchain_tepa.validation import as_fact as _as_fact
from langchain_tepa.validation import iterate_items as _iterate
from langchain_tepa.validation import validate_k as _validate_k
from langchain_tepa.validation import validate_metadata as _validate_metadata
from langchain_tepa.validation import validate_reason as _validate_reason
from langchain_tepa.validation import validate_source as _validate_source
from langchain_tepa.validation import validate_text as _validate_text

if TYPE_CHECKING:
    from langchain_tepa.extraction.base import FactExtractor

__all__ = ["MAX_K", "MAX_TEXT_CHARS", "TEPAMemory"]


class TEPAMemory(AsyncTwinsMixin):
    """Revocable evidence memory: observe, record outcomes, retrieve only what is still valid.

    Every call writes an immutable evidence record; precedents (one per key and value) are a
    fold of that evidence under a :class:`~langchain_tepa.core.policy.LifecyclePolicy`.
    Retrieval sees Active precedents only; Revoked ones stay in the archive for ``audit``.

    Args:
        storage: A storage backend. Defaults to an in-process store; use :meth:`from_path`
            (embedded persistent Chroma) or :meth:`from_client` (any chromadb client).
        embeddings: Any LangChain ``Embeddings``; defaults to :func:`default_embeddings`.
        policy: A policy or a preset name (``"tepa-rev"`` by default).
        namespace: Default namespace of calls that do not name one.
        writer: Name of this writer in evidence records (default: a random id per instance).
        clock: Time source (seconds); benchmarks pass their own.
        flush_every: Count-only view updates buffered before they are written (evidence and
            state changes are always written at once).
        extractor: Fact extractor for :meth:`add_texts` (default: the offline extractor).
        read_only: Open without writing anything: no view repairs on opening, and every write
            (observe, outcomes, decisions, reconcile, flush of views) raises
            :class:`~langchain_tepa.core.errors.ReadOnlyError`. ``tepa inspect`` uses it.

    Example:
        >>> memory = TEPAMemory.in_memory()
        >>> memory.observe("user.diet", "vegan").precedent.state.value
        'active'
        >>> memory.retrieve("what does the user eat?", k=1)[0].metadata["value"]
        'vegan'
    """

    def __init__(
        self,
        storage: StorageBackend | None = None,
        *,
        embeddings: Embeddings | None = None,
        policy: LifecyclePolicy | str | None = None,
        namespace: str = DEFAULT_NAMESPACE,
        writer: str | None = None,
        clock: Callable[[], float] | None = None,
        flush_every: int = 256,
        extractor: FactExtractor | None = None,
        read_only: bool = False,
    ) -> None:
        if isinstance(policy, str):
            policy = LifecyclePolicy.preset(policy)
        elif policy is None:
            policy = LifecyclePolicy()
        elif not isinstance(policy, LifecyclePolicy):
            raise InvalidArgumentError(
                f"policy must be a LifecyclePolicy or a preset name, got {type(policy).__name__}"
            )
        if isinstance(flush_every, bool) or not isinstance(flush_every, int) or flush_every < 1:
            raise InvalidArgumentError(f"flush_every must be an integer >= 1, got {flush_every!r}")
        self.policy: LifecyclePolicy = policy
        self.storage: StorageBackend = storage if storage is not None else InMemoryStorage()
        self.embeddings: Embeddings = embeddings if embeddings is not None else default_embeddings()
        self.namespace = validate_namespace(namespace)
        if writer is not None:
            _validate_text(writer, "writer")
            if len(writer) > 128:
                raise InvalidArgumentError("writer must be at most 128 characters")
        self.writer = writer or f"w{os.getpid():x}{os.urandom(3).hex()}"
        self._instance = os.urandom(8).hex()  # 64 bits: evidence ids unique by construction
        self._pid = os.getpid()
        self._clock = clock or time.time
        self.flush_every = flush_every
        self._extractor = extractor
        self._resolver: Any = None  # KeyResolver of add_texts, created on first use
        self._resolver_synced = -1  # len(self._index) when the resolver cache was last synced
        self._lock = threading.RLock()
        self._counter = 0
        self._last_time = float("-inf")
        self._index: dict[tuple[str, str], KeyState] = {}
        self._by_id: dict[str, Precedent] = {}
        self._dirty: dict[str, Precedent] = {}
        self._unchecked_sets: set[str] = set()  # namespaces whose retrievable set awaits a check
        self._closed = False
        self.read_only = bool(read_only)
        if hasattr(self.storage, "reembed"):
            self.storage.reembed = self._embed_precedents
        self._open()

    def _embed_precedents(self, precedents: Sequence[Precedent]) -> list[list[float]]:
        if not precedents:
            return []
        return self.embeddings.embed_documents([p.page_content for p in precedents])

    def _vectors_of(self, precedents: Sequence[Precedent]) -> dict[str, list[float]]:
        """Embeddings of ``precedents`` by id (one embedding call, none for an empty list)."""
        embedded = self._embed_precedents(precedents)
        return {p.id: v for p, v in zip(precedents, embedded, strict=True)}

    # ------------------------------------------------------------------ constructors
    @classmethod
    def in_memory(cls, **kwargs: Any) -> TEPAMemory:
        """A memory in this process only (tests, notebooks, simulations)."""
        return cls(InMemoryStorage(), **kwargs)

    @classmethod
    def from_client(cls, client: Any, *, prefix: str = "tepa", **kwargs: Any) -> TEPAMemory:
        """A memory on any chromadb client (ephemeral, persistent, ``HttpClient`` or async).

        Args:
            client: The chromadb client. An async client (``await chromadb.AsyncHttpClient(...)``)
                is served through :class:`~langchain_tepa.storage.chroma_async.AsyncChromaStorage`;
                from async code prefer :meth:`afrom_client`, which does not block the loop.
            prefix: Collection name prefix (several memories can share one Chroma).
            **kwargs: Passed to :class:`TEPAMemory`.
        """
        from langchain_tepa.storage.chroma_async import AsyncChromaStorage, is_async_client

        if is_async_client(client):
            return cls(AsyncChromaStorage(client, prefix=prefix), **kwargs)
        return cls(ChromaStorage(client, prefix=prefix), **kwargs)

    @classmethod
    async def afrom_client(cls, client: Any, *, prefix: str = "tepa", **kwargs: Any) -> TEPAMemory:
        """Async twin of :meth:`from_client` (opening reads the evidence in a worker thread).

        Example:
            >>> client = await chromadb.AsyncHttpClient(port=8000)  # doctest: +SKIP
            >>> memory = await TEPAMemory.afrom_client(client, prefix="app")  # doctest: +SKIP
        """
        return await asyncio.to_thread(
            functools.partial(cls.from_client, client, prefix=prefix, **kwargs)
        )

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], **kwargs: Any) -> TEPAMemory:
        """A memory in an embedded persistent Chroma at ``path`` (created when missing).

        Args:
            path: Folder of the Chroma database.
            **kwargs: ``prefix`` and the arguments of :class:`TEPAMemory`.
        """
        import chromadb
        from chromadb.config import Settings

        folder = Path(path)
        read_only = bool(kwargs.get("read_only", False))
        if read_only and not (folder / "chroma.sqlite3").is_file():
            raise StorageError(f"no memory at {folder}: it holds no chroma.sqlite3; check the path")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create memory folder {folder}: {exc}") from exc
        client = chromadb.PersistentClient(
            path=str(folder), settings=Settings(anonymized_telemetry=False)
        )
        prefix = kwargs.pop("prefix", "tepa")
        if read_only:
            names = {str(getattr(c, "name", c)) for c in client.list_collections()}
            if f"{prefix}_evidence" not in names:
                raise StorageError(
                    f"no memory with prefix {prefix!r} at {folder}; "
                    f"collections there: {sorted(names)}; pass the right prefix"
                )
        return cls.from_client(client, prefix=prefix, **kwargs)

    # ------------------------------------------------------------------ opening
    def _open(self) -> None:
        """Rebuild the in-process key index from the evidence and repair the stored views.

        Opening checks where each precedent's record is in the archive (read by ids only, in
        a second thread while this one folds) and rewrites only records in the wrong place or
        with the wrong state. Each namespace's retrievable set is checked at its first query
        (:meth:`_check_active_set`); ``reconcile()`` reads every set and compares every stored
        view's content.
        """
        places_of = getattr(self.storage, "precedent_places", None)
        prefetch: ThreadPoolExecutor | None = None
        places: Future[Any] | None = None
        if places_of is not None and not self.read_only:
            # Chroma reads the stored places (mostly outside the GIL) while this thread folds.
            prefetch = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tepa-open")
            places = prefetch.submit(places_of, active_sets=False)
        try:
            with gc_paused():
                records = self.storage.load_evidence()
                states = fold_all(records, self.policy)
            with self._lock:
                self._index = states
                self._by_id = {p.id: p for s in states.values() for p in s.precedents.values()}
                if records:
                    self._last_time = max(self._last_time, records[-1].time)
            if records and not self.read_only:
                self._repair_views(full=False, places=places.result() if places else None)
        finally:
            if prefetch is not None:
                prefetch.shutdown(wait=True)

    def _repair_views(self, *, full: bool, places: Any = None) -> tuple[int, int]:
        """Make the stored views agree with the index; returns (views, retrievable fixes).

        Uses the storage's ``precedent_places()`` when it has one (Chroma: records live in the
        retrievable set when Active, in the archive otherwise); other backends are compared
        view by view. Opening (``full=False``) reads the archive only: each namespace's
        retrievable set is checked when it is first queried (:meth:`_check_active_set`), so
        opening does not load every set. ``reconcile()`` (``full=True``) reads them all.
        """
        places_of = getattr(self.storage, "precedent_places", None)
        if places_of is None:
            return self._repair_by_views()
        if places is None:
            places = places_of(active_sets=full)
        stored = {p.id: p for p in self.storage.load_precedents()} if full else {}
        missing = [p for p in self._by_id.values() if full and p.id not in places]
        vectors = self._vectors_of(missing)
        writes: list[PrecedentWrite] = []
        moved = 0
        for p in self._by_id.values():
            place = places.get(p.id)
            if place is None and full:
                writes.append(PrecedentWrite(p.snapshot(), vectors[p.id], False, True))
                moved += p.is_active
            elif place is None:
                if not p.is_active:  # not in the archive: in its retrievable set, or lost
                    writes.append(PrecedentWrite(p.snapshot(), None, True, False))
                    moved += 1
                # An Active one not in the archive is where it belongs, or is found missing
                # when its namespace's retrievable set is first queried.
            elif p.is_active and (place.archived is not None or not place.active):
                # In the archive (perhaps in both): move it to the retrievable set.
                writes.append(PrecedentWrite(p.snapshot(), None, False, False))
                moved += 1
            elif not p.is_active and place.active:
                # In the retrievable set (perhaps in both): move it to the archive.
                writes.append(PrecedentWrite(p.snapshot(), None, True, False))
                moved += 1
            elif not p.is_active and place.archived is not p.state:
                writes.append(PrecedentWrite(p.snapshot(), None, False, False))
            elif full and (p.id not in stored or stored[p.id].to_dict() != p.to_dict()):
                writes.append(PrecedentWrite(p.snapshot(), None, p.is_active, False))
        self.storage.write_precedents(writes)
        self._dirty.clear()
        if full or not hasattr(self.storage, "archived_ids"):
            self._unchecked_sets = set()
        else:
            self._unchecked_sets = {ns for ns, _ in self._index}
        return len(writes), moved

    def _check_active_set(self, ns: str) -> None:
        """Before the first query of ``ns`` since opening, repair its retrievable set.

        A crash can leave an Active precedent stored nowhere (its first write was cut off) or
        a record in both the set and the archive (a move cut off before its delete). Records
        another writer may have moved since this memory folded (in one place only) are left
        alone; ``refresh()`` and ``reconcile()`` deal with those.
        """
        if ns not in self._unchecked_sets:
            return
        with self._lock:
            if ns not in self._unchecked_sets:
                return
            storage: Any = self.storage
            if not self.read_only:
                have = storage.active_ids(ns)
                want = {
                    p.id
                    for (n, _), s in self._index.items()
                    if n == ns
                    for p in s.precedents.values()
                    if p.is_active
                }
                extra = {pid for pid in have - want if pid in self._by_id}
                suspects = sorted((want - have) | extra)
                archived = storage.archived_ids(suspects) if suspects else set()
                writes = [
                    PrecedentWrite(self._by_id[pid].snapshot(), None, False, False)
                    for pid in sorted(want - have)
                    if pid not in archived
                ]
                writes += [
                    PrecedentWrite(self._by_id[pid].snapshot(), None, True, False)
                    for pid in sorted(extra)
                    if pid in archived
                ]
                storage.write_precedents(writes)
            self._unchecked_sets.discard(ns)

    def _repair_by_views(self) -> tuple[int, int]:
        """Compare every stored view with the index (backends without ``precedent_places``)."""
        stored = {p.id: p for p in self.storage.load_precedents()}
        missing = [p for p in self._by_id.values() if p.id not in stored]
        vectors = self._vectors_of(missing)
        writes: list[PrecedentWrite] = []
        for p in self._by_id.values():
            old = stored.get(p.id)
            if old is None:
                writes.append(PrecedentWrite(p.snapshot(), vectors[p.id], False, True))
            elif old.to_dict() != p.to_dict():
                writes.append(PrecedentWrite(p.snapshot(), None, old.is_active, False))
        self.storage.write_precedents(writes)
        self._dirty.clear()
        return len(writes), 0

    # ------------------------------------------------------------------ helpers
    def _ns(self, namespace: str | None) -> str:
        return self.namespace if namespace is None else validate_namespace(namespace)

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError("this TEPAMemory is closed; open a new one")

    def _check_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(
                "this TEPAMemory was opened with read_only=True; open it without read_only to write"
            )

    def _next(self) -> tuple[str, float]:
        # Under the lock: two threads must never get the same counter (duplicate evidence ids).
        with self._lock:
            if self._pid != os.getpid():  # forked: the child must not reuse the parent's ids
                self._pid, self._instance = os.getpid(), os.urandom(8).hex()
            self._counter += 1
            now = float(self._clock())
            if not math.isfinite(now):
                raise InvalidArgumentError(
                    f"the clock returned {now!r}; it must return finite seconds"
                )
            now = max(now, self._last_time)
            self._last_time = now
            return f"{self.writer}.{self._instance}.{self._counter:010d}", now

    def _in_order(self, ev: Evidence, state: KeyState) -> Evidence:
        """Restamp ``ev`` if later evidence of its key was committed first (another thread).

        The in-process index folds evidence incrementally, so each key must receive it in
        ``(time, id)`` order; otherwise the index would differ from a refold of the same evidence.
        """
        if ev.sort_key > state.last_sort_key:
            return ev
        eid, now = self._next()
        now = max(now, state.last_sort_key[0])
        if (now, eid) <= state.last_sort_key:
            now = math.nextafter(now, math.inf)
        self._last_time = max(self._last_time, now)
        return dataclasses.replace(ev, id=eid, time=now)

    def _make(
        self,
        kind: EvidenceKind,
        namespace: str | None,
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
        v = validate_value(value)
        t = _validate_text(text)
        meta = _validate_metadata(metadata)
        src = _validate_source(source)
        eid, now = self._next()
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
        """Fold records into copies of their key states, write, then publish (atomic)."""
        with self._lock:
            self._check_open()
            self._check_writable()
            work: dict[tuple[str, str], KeyState] = {}
            before: dict[str, tuple[Lifecycle, bool]] = {}
            seen: dict[str, int] = {}  # evidence ids per precedent before this commit
            results: list[tuple[Evidence, tuple[str, str], list[Any]]] = []
            for ev in records:
                nk = (ev.namespace, ev.key)
                if nk not in work:
                    current = self._index.get(nk)
                    work[nk] = current.snapshot() if current else KeyState(ev.namespace, ev.key)
                    for p in work[nk].precedents.values():
                        before[p.id] = (p.state, True)
                        seen[p.id] = len(p.evidence_ids)
                ev = self._in_order(ev, work[nk])
                trs = apply_evidence(work[nk], ev, self.policy)
                results.append((ev, nk, trs))
            new_prec = [
                p
                for s in work.values()
                for p in s.precedents.values()
                if p.id not in before and p.id not in self._by_id
            ]
            vectors = self._vectors_of(new_prec)
            writes: list[PrecedentWrite] = []
            dirty: list[Precedent] = []
            for s in work.values():
                for p in s.precedents.values():
                    old = before.get(p.id)
                    if p.id in vectors:
                        writes.append(PrecedentWrite(p.snapshot(), vectors[p.id], False, True))
                    elif old is not None and old[0] is not p.state:
                        writes.append(
                            PrecedentWrite(p.snapshot(), None, old[0] is Lifecycle.ACTIVE, False)
                        )
                    elif len(p.evidence_ids) != seen.get(p.id, -1) or p.id in self._dirty:
                        # Touched by this commit (or already buffered): a count-only update.
                        # Untouched precedents of a touched key need no view write.
                        dirty.append(p)
            try:
                self.storage.append_evidence([ev for ev, _, _ in results])
            except StorageError:
                raise
            except Exception as exc:
                raise StorageError(f"could not write evidence: {exc}") from exc
            # Evidence is durable from here on; views may lag and reconcile() repairs them.
            for nk, s in work.items():
                self._index[nk] = s
                for p in s.precedents.values():
                    self._by_id[p.id] = p
            for p in dirty:
                self._dirty[p.id] = p
            for w in writes:
                self._dirty.pop(w.precedent.id, None)
            try:
                self.storage.write_precedents(writes)
            except Exception as exc:
                raise StorageError(
                    f"evidence was stored but the precedent views were not ({exc}); "
                    "call reconcile() to repair them"
                ) from exc
            if len(self._dirty) >= self.flush_every:
                self._flush_locked()
            out: list[ObservationResult] = []
            for ev, nk, trs in results:
                state = self._index[nk]
                prec = None
                if ev.kind is not EvidenceKind.BOUNDARY:
                    vid = value_identity(ev.value, normalize=self.policy.normalize_values)
                    found = state.precedents.get(vid)
                    prec = found.snapshot() if found else None
                out.append(ObservationResult(ev, prec, list(trs)))
            return out

    def _flush_locked(self) -> None:
        if not self._dirty or self.read_only:
            return
        writes = []
        for p in self._dirty.values():
            refresh_posterior(p, self.policy)
            writes.append(PrecedentWrite(p.snapshot(), None, p.is_active, False))
        self.storage.write_precedents(writes)
        self._dirty.clear()

    # ------------------------------------------------------------------ writing
    def observe(
        self,
        key: str,
        value: Any,
        *,
        text: str | None = None,
        namespace: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        source: str | None = None,
    ) -> ObservationResult:
        """Assert that ``key`` has ``value``.

        Same key and value adds support; same key and another value adds conflict to the other
        values (single-valued keys). A new value starts as a Hypothesis.

        Args:
            key: The key (``"user.pizza_topping"``).
            value: A JSON-serialisable value, not ``None``.
            text: Free text the value came from; it is embedded for retrieval.
            namespace: Scope (default: the memory's namespace).
            metadata: Scalar metadata kept with the evidence.
            source: Who asserted it (user, tool, extractor).

        Returns:
            The evidence written, the precedent and the transitions it caused.

        Raises:
            InvalidArgumentError: On bad input; nothing is stored then.
        """
        ev = self._make(
            EvidenceKind.OBSERVATION,
            namespace,
            key,
            value,
            text=text,
            metadata=metadata,
            source=source,
        )
        return self._commit([ev])[0]

    def record_outcome(
        self,
        key: str,
        value: Any,
        success: bool,
        *,
        namespace: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        source: str | None = None,
        text: str | None = None,
    ) -> ObservationResult:
        """Report that acting on ``value`` for ``key`` worked (``success=True``) or failed.

        A success adds support (and, for single-valued keys, conflict to the other values);
        a failure adds conflict. Both go into the value's recent-outcome window.

        Raises:
            InvalidArgumentError: If ``success`` is not a bool, or on bad key/value.
        """
        if not isinstance(success, bool):
            raise InvalidArgumentError(f"success must be True or False, got {success!r}")
        ev = self._make(
            EvidenceKind.OUTCOME,
            namespace,
            key,
            value,
            outcome=success,
            text=text,
            metadata=metadata,
            source=source,
        )
        return self._commit([ev])[0]

    def observe_many(self, facts: Iterable[Fact | tuple[str, Any]]) -> list[ObservationResult]:
        """Observe many facts with one evidence write and one view write (bulk ingestion).

        Args:
            facts: :class:`~langchain_tepa.core.types.Fact` objects or ``(key, value)`` pairs.

        Raises:
            InvalidArgumentError: If any fact is invalid; then none is stored.
        """
        records = []
        for item in _iterate(facts, "facts"):
            fact = _as_fact(item)
            records.append(
                self._make(
                    EvidenceKind.OBSERVATION,
                    fact.namespace,
                    fact.key,
                    fact.value,
                    text=fact.text,
                    metadata=fact.metadata,
                    source=fact.source,
                )
            )
        return self._commit(records) if records else []

    def _decision(
        self,
        kind: EvidenceKind,
        key: str,
        value: Any,
        reason: str,
        namespace: str | None,
        source: str | None,
        metadata: Mapping[str, Any] | None = None,
        outcome: bool | None = None,
    ) -> ObservationResult:
        ns = self._ns(namespace)
        k = validate_key(key)
        validate_value(value)
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidArgumentError("reason must be a non-empty string")
        _validate_text(reason, "reason")
        state = self._index.get((ns, k))
        vid = value_identity(value, normalize=self.policy.normalize_values)
        if state is None or vid not in state.precedents:
            raise UnknownPrecedentError(
                f"no precedent {value!r} under key {k!r} in namespace {ns!r}; "
                "check audit(key) for the values that exist"
            )
        ev = self._make(
            kind,
            ns,
            k,
            value,
            reason=reason,
            source=source,
            metadata=metadata,
            outcome=outcome,
        )
        return self._commit([ev])[0]

    def revoke(
        self,
        key: str,
        value: Any,
        *,
        reason: str = "revoked by hand",
        namespace: str | None = None,
        source: str | None = None,
    ) -> ObservationResult:
        """Revoke a precedent by hand; it stays in the archive and can come back with support.

        Raises:
            UnknownPrecedentError: If the key has no such value.
        """
        # "rejected: ..." is the trial judge's wording (langchain_tepa.graph); keep it as is.
        keep = _validate_reason(reason).startswith(("revoked", "rejected"))
        text = reason if keep else f"revoked by hand: {reason}"
        return self._decision(EvidenceKind.REVOKE, key, value, text, namespace, source)

    def promote(
        self,
        key: str,
        value: Any,
        *,
        reason: str = "promoted by hand",
        namespace: str | None = None,
        source: str | None = None,
    ) -> ObservationResult:
        """Promote a precedent to Active by hand (or as the trial judge's decision).

        Raises:
            UnknownPrecedentError: If the key has no such value.
        """
        prefixed = _validate_reason(reason).startswith("promoted")
        text = reason if prefixed else f"promoted by hand: {reason}"
        return self._decision(EvidenceKind.PROMOTE, key, value, text, namespace, source)

    def record_trial(
        self,
        key: str,
        value: Any,
        positive: bool,
        *,
        trial_kind: str,
        namespace: str | None = None,
        detail: str = "",
    ) -> ObservationResult:
        """Record a trial-by-execution result (audit evidence; it moves no counts).

        Raises:
            UnknownPrecedentError: If the key has no such value.
        """
        if not isinstance(positive, bool):
            raise InvalidArgumentError(f"positive must be True or False, got {positive!r}")
        if not _validate_reason(trial_kind, "trial_kind"):
            raise InvalidArgumentError("trial_kind must not be empty, e.g. 'counterfactual'")
        if not isinstance(detail, str):
            raise InvalidArgumentError(f"detail must be a string, got {type(detail).__name__}")
        reason = f"trial {trial_kind}: {'positive' if positive else 'negative'}"
        if detail:
            reason += f" ({detail[:200]})"
        return self._decision(
            EvidenceKind.TRIAL,
            key,
            value,
            reason,
            namespace,
            None,
            metadata={"trial_kind": trial_kind},
            outcome=positive,
        )

    def mark_boundary(
        self, *, namespace: str | None = None, key: str | None = None
    ) -> list[ObservationResult]:
        """Record a phase boundary on every key of ``namespace`` (or on ``key`` only).

        Only the oracle-reset baseline acts on it (it is told when the world changed); for every
        other policy it is an audit note.
        """
        ns = self._ns(namespace)
        only = validate_key(key) if key is not None else None
        records = []
        for n, k in sorted(self._index):
            if n == ns and (only is None or k == only):
                eid, now = self._next()
                records.append(
                    Evidence(
                        id=eid,
                        namespace=ns,
                        key=k,
                        value=None,
                        kind=EvidenceKind.BOUNDARY,
                        time=now,
                        writer=self.writer,
                        reason="phase boundary",
                    )
                )
        return self._commit(records) if records else []

    # ------------------------------------------------------------------ reading
    def retrieve(
        self,
        query: str,
        k: int = 4,
        *,
        namespace: str | None = None,
        key_prefix: str | None = None,
    ) -> list[Document]:
        """The ``k`` Active precedents most similar to ``query``, as Documents.

        Args:
            query: Natural-language query.
            k: How many (1 to 1000).
            namespace: Scope (default: the memory's namespace).
            key_prefix: Only keys equal to it or below it (``"user"`` matches ``"user.diet"``).

        Returns:
            Documents whose metadata holds key, value, state, support, conflict, validity,
            lower_95, namespace, precedent_id, evidence_ids and score.
        """
        if not isinstance(query, str):
            raise InvalidArgumentError(f"query must be a string, got {type(query).__name__}")
        _validate_text(query, "query")
        k = _validate_k(k)
        ns = self._ns(namespace)
        if key_prefix is not None:
            key_prefix = validate_key(key_prefix)
        self._check_open()
        if not self.policy.retrieval_enabled:
            return []
        vector = self.embeddings.embed_query(query)
        self._check_active_set(ns)
        hits = self.storage.query_active(ns, vector, k, key_prefix=key_prefix)
        docs = []
        with self._lock:
            for pid, score in hits:
                p = self._by_id.get(pid)
                if p is None or not p.is_active or p.namespace != ns:
                    continue
                docs.append(self._document(p, score))
        return docs

    def _document(self, p: Precedent, score: float | None = None) -> Document:
        refresh_posterior(p, self.policy)
        meta: dict[str, Any] = {
            "key": p.key,
            "value": p.value,
            "state": p.state.value,
            "support": p.support,
            "conflict": p.conflict,
            "validity": round(p.validity, 4),
            "lower_95": round(p.lower_bound, 4),
            "namespace": p.namespace,
            "precedent_id": p.id,
            "evidence_ids": list(p.evidence_ids[-20:]),
            "created_at": p.created_at,
            "updated_at": p.updated_at,
        }
        if score is not None:
            meta["score"] = round(score, 6)
        return Document(page_content=p.page_content, metadata=meta, id=p.id)

    def active_documents(
        self, *, namespace: str | None = None, key_prefix: str | None = None
    ) -> list[Document]:
        """Every Active precedent of a namespace as Documents (no similarity ranking)."""
        ns = self._ns(namespace)
        prefix = validate_key(key_prefix) if key_prefix is not None else None
        if not self.policy.retrieval_enabled:
            return []
        with self._lock:
            out: list[Document] = []
            for (n, k), s in sorted(self._index.items()):
                if n != ns or (prefix and not (k == prefix or k.startswith(prefix + "."))):
                    continue
                out.extend(self._document(p) for p in s.active())
            return out

    def get(self, key: str, *, namespace: str | None = None) -> Any:
        """The Active value of ``key``, or ``None``.

        For a single-valued key, the best Active value (highest validity, then most recent
        support); for a multi-valued key, the list of Active values.
        """
        ns = self._ns(namespace)
        k = validate_key(key)
        multi = self.policy.is_multi_valued(k)
        if not self.policy.retrieval_enabled:
            return [] if multi else None
        with self._lock:
            state = self._index.get((ns, k))
            active = state.active() if state else []
            if multi:
                return [p.value for p in active]
            return active[0].value if active else None

    def audit(self, key: str, *, namespace: str | None = None) -> KeyAudit:
        """Every precedent of ``key`` with its state, posterior and transition reasons."""
        ns = self._ns(namespace)
        k = validate_key(key)
        with self._lock:
            state = self._index.get((ns, k))
            if state is None:
                return KeyAudit(ns, k, [], 0)
            precs = []
            for p in state.precedents.values():
                refresh_posterior(p, self.policy)
                precs.append(p.snapshot())
            return KeyAudit(ns, k, precs, state.seq)

    def history(self, key: str, *, namespace: str | None = None) -> list[Evidence]:
        """The evidence of ``key``, oldest first, read from storage (the source of truth)."""
        ns = self._ns(namespace)
        k = validate_key(key)
        return self.storage.load_evidence(namespace=ns, key=k)

    def keys(self, *, namespace: str | None = None) -> list[str]:
        """Keys of a namespace that have evidence."""
        ns = self._ns(namespace)
        with self._lock:
            return sorted(k for n, k in self._index if n == ns)

    def namespaces(self) -> list[str]:
        """Every namespace that has evidence."""
        with self._lock:
            return sorted({n for n, _ in self._index})

    def precedents(self, *, namespace: str | None = None) -> list[Precedent]:
        """Snapshots of every precedent (all namespaces when ``namespace`` is None)."""
        with self._lock:
            out = []
            for (n, _), s in sorted(self._index.items()):
                if namespace is None or n == namespace:
                    for p in s.precedents.values():
                        refresh_posterior(p, self.policy)
                        out.append(p.snapshot())
            return out

    def evidence_count(self) -> int:
        """Evidence records in storage."""
        return self.storage.count_evidence()

    # ------------------------------------------------------------------ maintenance
    def reconcile(self) -> ReconcileReport:
        """Refold every key from the evidence and repair views and active sets. Idempotent."""
        start = time.perf_counter()
        with self._lock:
            self._check_open()
            self._check_writable()
            self._flush_locked()
            with gc_paused():
                records = self.storage.load_evidence()
                states = fold_all(records, self.policy)
            self._index = states
            self._by_id = {p.id: p for s in states.values() for p in s.precedents.values()}
            self._dirty.clear()
            views, active = self._repair_views(full=True)
            if records:
                self._last_time = max(self._last_time, records[-1].time)
        return ReconcileReport(
            keys=len(states),
            evidence=len(records),
            repaired_views=views,
            repaired_active=active,
            seconds=time.perf_counter() - start,
        )

    def refresh(self) -> None:
        """Re-read evidence written by other processes into the in-process index."""
        with self._lock:
            self._check_open()
            self._open()

    def flush(self) -> None:
        """Write buffered count updates of precedent views."""
        with self._lock:
            self._check_open()
            self._flush_locked()

    def close(self) -> None:
        """Flush and release the storage. The data stays."""
        with self._lock:
            if self._closed:
                return
            self._flush_locked()
            self.storage.close()
            self._closed = True

    def __enter__(self) -> TEPAMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"TEPAMemory(policy={self.policy.name!r}, namespace={self.namespace!r}, "
            f"storage={type(self.storage).__name__}, keys={len(self._index)})"
        )

    # ------------------------------------------------------------------ text
    def add_texts(
        self,
        texts: Iterable[str],
        *,
        namespace: str | None = None,
        source: str | None = None,
    ) -> list[ObservationResult]:
        """Extract keyed facts from free text and observe them (bulk).

        Uses the memory's extractor (the offline pattern extractor by default).
        """
        from langchain_tepa.extraction import resolve_extractor

        extractor = resolve_extractor(self._extractor)
        ns = self._ns(namespace)
        facts: list[Fact] = []
        for text in _iterate(texts, "texts"):
            _validate_text(text)
            for fact in extractor.extract(text):
                facts.append(
                    Fact(
                        key=validate_key(fact.key),
                        value=fact.value,
                        namespace=ns,
                        text=fact.text or text,
                        source=source or fact.source,
                        metadata=fact.metadata,
                        confidence=fact.confidence,
                    )
                )
        facts = self._resolve_keys(ns, facts)
        results = self.observe_many(facts)
        with self._lock:
            new_keys = self._key_resolver().unknown(ns, (f.key for f in facts))
            before = len(self._index) - len(new_keys)
            self._key_resolver().register(ns, [f.key for f in facts])
            if self._resolver_synced == before:  # no other writer added keys meanwhile
                self._resolver_synced = len(self._index)
        return results

    def _key_resolver(self) -> Any:
        """The key resolver of :meth:`add_texts` (created on first use; keys cached per ns)."""
        from langchain_tepa.extraction.resolution import KeyResolver

        if self._resolver is None:
            self._resolver = KeyResolver(self.embeddings, self.policy.key_match_threshold)
            self._resolver_synced = -1
        return self._resolver

    def _resolve_keys(self, ns: str, facts: list[Fact]) -> list[Fact]:
        """Map new keys onto similar stored keys of the same namespace (key resolution)."""
        if not facts:
            return facts
        resolver = self._key_resolver()
        with self._lock:
            if not resolver.has_namespace(ns) or self._resolver_synced != len(self._index):
                resolver.register(ns, [k for n, k in self._index if n == ns])
                self._resolver_synced = len(self._index)
        mapped = resolver.resolve_many(ns, [f.key for f in facts])
        out = []
        for fact, key in zip(facts, mapped, strict=True):
            if key != fact.key:
                meta = {**(fact.metadata or {}), "extracted_key": fact.key}
                fact = Fact(key, fact.value, ns, fact.text, fact.source, meta, fact.confidence)
            out.append(fact)
        return out

    def add_facts(self, facts: Iterable[Fact | tuple[str, Any]]) -> list[ObservationResult]:
        """Observe already-keyed facts (alias of :meth:`observe_many`)."""
        return self.observe_many(facts)

    # ------------------------------------------------------------------ integrations
    def as_retriever(self, **kwargs: Any) -> Any:
        """A :class:`~langchain_tepa.retriever.TEPARetriever` over this memory."""
        from langchain_tepa.retriever import TEPARetriever

        return TEPARetriever(memory=self, **kwargs)

    def as_store(self, **kwargs: Any) -> Any:
        """A :class:`~langchain_tepa.store.TEPAStore` (LangGraph ``BaseStore``) over this memory."""
        from langchain_tepa.store import TEPAStore

        return TEPAStore(memory=self, **kwargs)

    def as_langchain_memory(self, **kwargs: Any) -> Any:
        """A classic LangChain ``BaseMemory`` adapter (needs the ``classic`` extra)."""
        from langchain_tepa.classic import TEPAConversationMemory

        return TEPAConversationMemory(memory=self, **kwargs)
